//! `NicCore`: the LDCP NIC core behind its register map: the window engine
//! (2^FB flows: 256 in the iCE40 build, 4,096 in the ECP5's), the event
//! FIFO, the on-chip event generator, the indirect flow window, the
//! counters and the free-running cycle counter, all on one
//! 32-bit register bus decoded by the generated [`crate::regfile::RegFile`].
//! `docs/regmap.md` documents every register; `ldcp_sim::nic_core` mirrors
//! every register of this file, and cosimulation compares them each cycle.
//!
//! # The engine's one input port, by priority
//! 1. the reset sweep (2^FB cycles after CORE_RESET): SET flow := INIT_CW;
//! 2. a window handed over in hardware by the system (`sys_set_*`: the
//!    fast-start marker's window at its transition): a SET (ignored during
//!    the sweep, when the system holds its source);
//! 3. a FLOW_CMD, issued once the FIFO is empty (so every event pushed
//!    before the command enters the engine before it): READ is an ACK with
//!    n = 0, WRITE a SET to FLOW_WDATA, RESET a SET to INIT_CW;
//! 4. the generator, one event per clock while it runs;
//! 5. the FIFO, one event per clock while it holds one.
//!
//! A lower source waits while a higher one holds the port; nothing is
//! dropped but a push into a full FIFO (counted, flagged).
//!
//! # The engine
//! The core is generic over its window engine ([`Engine`]): the pipelined
//! [`WindowEngine`] (every build but one: one event per clock, never
//! refused, merging within 16 cycles) or the sequential
//! [`WindowEngineSeq`] ([`NicCoreSeqIce40`], for the Alchitry Cu's
//! complete NIC: one event per 7 to 27 cycles, with `in_ready`). Its logic
//! is written once (`core_logic!`); with the pipelined engine the generated
//! Verilog is the same, byte for byte, as before the sequential one existed.
//! With the sequential engine every source above waits for the engine's
//! `in_ready` besides its turn (the sweep takes 7 cycles a flow at INIT_CW
//! 1.0, the generator runs at the engine's pace, the FIFO absorbs bursts
//! and drops what overflows it), CAPS.LATENCY reads 27, and a system must
//! hold a handed-over window (`sys_set_*`) until the core takes it (no such
//! system exists yet: the core alone ties it low).
//!
//! A system around the core (`crate::nic_system`) may hold the sweep
//! (`sweep_hold`) until its own blocks have finished their reset sweeps;
//! the core alone ties it low. The other taps (`core_rst`, `upd_*`,
//! `flow_reset*`, `cnt_clear`) let the system follow the core: its reset,
//! the engine's updates (for the pacing timer), accepted flow resets and
//! counter clears.
//!
//! # Flow commands
//! The engine merges events of one flow within 16 cycles, so a command's
//! result is the update of the slot it started or merged into. That update
//! leaves the engine 23 to 38 cycles after the command reaches the core
//! (the cycle after its write: the decoder registers commands); an update
//! of the flow from an earlier slot leaves at most 22 cycles after.
//! The core captures the first update of the flow whose age is at least
//! [`CAPTURE_AGE`] (age counted from 0 in the cycle after the command;
//! with the sequential engine, which merges nothing, from 0 in the cycle
//! after the command's event was taken, and the first update of the flow
//! from age `CAPTURE_AGE_SEQ` = 2 on, its own, which comes at age 6 at the
//! earliest):
//! FLOW_CW and FLOW_INTERVAL then hold the flow's cw after every event that
//! came before the command (and any that merged with it), and
//! FLOW_STATUS.DONE is set.
//!
//! # Event FIFO
//! 256 entries of block RAM (n, ECE and the flow: FB + 5 bits). A push
//! into a full FIFO is dropped, counted (CNT_DROPPED) and flagged
//! (ERRORS.FIFO_OVERFLOW); the bus never stalls. The RAM read is registered, so an entry becomes
//! poppable the second cycle after its push: the pop side compares against
//! the write pointer of the previous cycle.
//!
//! # Counters
//! CNT_EVENTS, CNT_MARKED, CNT_PUSHED and CNT_DROPPED count their event
//! one cycle after it (the increment is registered: the port's arbitration
//! and the bus decode in front of the adders were the core's critical
//! paths); CNT_UPDATES and CNT_PACKETS count the engine's output in its
//! cycle. A CNT_CLEAR clears every event before its cycle; one in the
//! clearing cycle itself is counted after the clear. CORE_RESET drops both.
//!
//! # Generator
//! xorshift32 (13, 17, 5) from GEN_SEED (0 acts as 2,463,534,242, as in
//! `ldcp_sim::xorshift`); each state x gives
//! one ACK: flow = `x[FB-1:0]`, n = `x[FB+3:FB]`, ECE when `x[FB+7:FB+5]` = 0
//! (1 in 8), where FB is the build's flow bits (flow = `x[7:0]`, n = `x[11:8]`,
//! ECE on `x[15:13]` at 256 flows).
//! GEN_CYCLES counts the cycles it runs; alone on the port it produces one
//! event per cycle.
//!
//! # Reset
//! CORE_RESET resets, at the second edge after its write (the decoder
//! registers the command, and the core its strobe once more, so the
//! decoder's reset does not depend on its own decode): the register file
//! (every RW field to its reset value, W1C flags to 0), the engine's window and
//! pipelines (events in flight are dropped), the FIFO, the generator, the
//! flow window and the counters. Then a sweep SETs every flow to INIT_CW,
//! one per cycle (STATUS.RESETTING). CYCLES is free-running and never reset.
//! A flow's RESET command is a SET, which replaces whatever its slot had
//! gathered: no earlier event of that flow survives it.

use crate::regfile::RegFile;
use crate::window_engine::WindowEngine;
use crate::window_engine_seq::WindowEngineSeq;
use rust_hdl::prelude::*;

/// Flow-id bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = ldcp_regmap::FLOW_BITS as usize;
/// Flow-id bits of the 4,096-flow build (the ECP5 system).
pub const FB_4K: usize = ldcp_regmap::FLOW_FIELD_BITS as usize;
/// Bits of an event FIFO word below its flow: n (3..0) and ECE (4); the
/// flow is above them, so a word is FB + `EV_LOW_BITS` bits (the RTL
/// writes the 5 as a literal: `hdl_gen` takes no named constants).
pub const EV_LOW_BITS: usize = 5;
/// The FIFO word of the iCE40 build.
pub const EW_ICE40: usize = FB_ICE40 + EV_LOW_BITS;
/// The FIFO word of the 4,096-flow build.
pub const EW_4K: usize = FB_4K + EV_LOW_BITS;
/// The core of the iCE40 build (256 flows).
pub type NicCoreIce40 = NicCore<FB_ICE40, EW_ICE40>;
/// The core of the 4,096-flow build.
pub type NicCore4k = NicCore<FB_4K, EW_4K>;
/// The core of the iCE40 build with the sequential window engine
/// ([`crate::window_engine_seq`]): every source of the engine's port
/// waits for its `in_ready`, and a flow command's result is the first
/// update of its flow after its event was taken.
pub type NicCoreSeqIce40 = NicCore<FB_ICE40, EW_ICE40, WindowEngineSeq<FB_ICE40>>;
/// log2 of the event FIFO's depth.
const FIFO_LOG2: usize = ldcp_regmap::FIFO_DEPTH_LOG2 as usize;
/// Bits of the system's push word (`sys_push_event`): EV_PUSH's fields,
/// flow (11..0), n (15..12), ECE (16), whatever the build's flows.
pub const PUSH_BITS: usize = 17;
const _: () = {
    let f = ldcp_regmap::REGISTERS;
    let mut i = 0;
    // EV_PUSH is FLOW, N, ECE, packed from bit 0 up to PUSH_BITS
    while !matches!(f[i].name.as_bytes(), b"EV_PUSH") {
        i += 1;
    }
    let r = &f[i];
    assert!(r.fields[0].lsb == 0 && r.fields[0].width == ldcp_regmap::FLOW_FIELD_BITS);
    assert!(r.fields[1].lsb == ldcp_regmap::FLOW_FIELD_BITS && r.fields[1].width == 4);
    assert!(r.fields[2].lsb + 1 == PUSH_BITS as u32);
};
/// The first age at which an update of the commanded flow is its result.
pub const CAPTURE_AGE: u64 = 22;
const _: () = assert!(CAPTURE_AGE >= 1 && CAPTURE_AGE < 63, "fc_age is 6 bits");

/// The window engine a core of 2^FB flows carries: its latency as
/// CAPS.LATENCY reports it, the age from which an update of a commanded
/// flow is the command's result ([`CAPTURE_AGE`] for the pipelined
/// engine), and the core's logic for it (written once, in `core_logic!`).
pub trait Engine<const FB: usize>: Block + Default + Sized {
    /// CAPS.LATENCY: cycles from an event to its update (the longest).
    const LATENCY_CYCLES: u64;
    /// The first age (cycles after the command) at which an update of the
    /// commanded flow is its result.
    const CAPTURE_AGE: u64;
    /// The core's `Logic::update` with this engine.
    fn core_update<const EW: usize>(core: &mut NicCore<FB, EW, Self>);
    /// Its `Logic::connect`.
    fn core_connect<const EW: usize>(core: &mut NicCore<FB, EW, Self>);
    /// Its `Logic::hdl`.
    fn core_hdl<const EW: usize>(core: &NicCore<FB, EW, Self>) -> ast::Verilog;
}

/// The core's logic for one engine (what `#[hdl_gen]` makes of
/// `core_logic!`), which [`Engine`] dispatches to.
trait CoreLogic {
    fn update(&mut self);
    fn connect(&mut self);
    fn hdl(&self) -> ast::Verilog;
}

impl<const FB: usize, const EW: usize, E: Engine<FB>> Logic for NicCore<FB, EW, E> {
    fn update(&mut self) {
        E::core_update(self)
    }
    fn connect(&mut self) {
        E::core_connect(self)
    }
    fn hdl(&self) -> ast::Verilog {
        E::core_hdl(self)
    }
}

impl<const FB: usize> Engine<FB> for WindowEngine<FB> {
    const LATENCY_CYCLES: u64 = ldcp_regmap::ENGINE_LATENCY as u64;
    const CAPTURE_AGE: u64 = CAPTURE_AGE;
    fn core_update<const EW: usize>(core: &mut NicCore<FB, EW, Self>) {
        CoreLogic::update(core)
    }
    fn core_connect<const EW: usize>(core: &mut NicCore<FB, EW, Self>) {
        CoreLogic::connect(core)
    }
    fn core_hdl<const EW: usize>(core: &NicCore<FB, EW, Self>) -> ast::Verilog {
        CoreLogic::hdl(core)
    }
}

/// The sequential engine takes one event at a time and never merges: the
/// first update of the commanded flow after the command's event is taken is
/// its result, and nothing of that flow is in flight then (the engine took
/// the command's event only once its previous update was out). The
/// command's own update comes at age 6 at the earliest (age k - 1 in the
/// k-th cycle after the take); from age 2 (an age of 1 would make the
/// registered compare `fc_age >= 0`, constant) every update of the flow is
/// that one.
impl<const FB: usize> Engine<FB> for WindowEngineSeq<FB> {
    const LATENCY_CYCLES: u64 = ldcp_sim::window_engine::SEQ_LATENCY_CYCLES as u64;
    const CAPTURE_AGE: u64 = ldcp_sim::nic_core::CAPTURE_AGE_SEQ as u64;
    fn core_update<const EW: usize>(core: &mut NicCore<FB, EW, Self>) {
        CoreLogic::update(core)
    }
    fn core_connect<const EW: usize>(core: &mut NicCore<FB, EW, Self>) {
        CoreLogic::connect(core)
    }
    fn core_hdl<const EW: usize>(core: &NicCore<FB, EW, Self>) -> ast::Verilog {
        CoreLogic::hdl(core)
    }
}
const _: () = assert!(
    ldcp_sim::nic_core::CAPTURE_AGE_SEQ >= 2
        && (ldcp_sim::nic_core::CAPTURE_AGE_SEQ as usize)
            < ldcp_sim::window_engine::SEQ_SHORT_LATENCY_CYCLES
);
// the BLOCKS bits the core drives, in the order it drives them
const _: () = assert!(
    ldcp_regmap::BLOCK_WINDOW_ENGINE == 0
        && ldcp_regmap::BLOCK_PACING_TIMER == 1
        && ldcp_regmap::BLOCK_FAST_START == 2
        && ldcp_regmap::BLOCK_ACK_GEN == 3
        && ldcp_regmap::BLOCK_WRED_ECN == 4
        && ldcp_regmap::BLOCK_LOOP == 5
        && ldcp_regmap::BLOCK_GENERATOR == 6
);

pub use ldcp_sim::nic_core::BuildId;

/// The NIC core (see the module doc) with 2^`FB` flows; `EW` is its FIFO
/// word, FB + [`EV_LOW_BITS`] (stable Rust cannot derive one width from
/// another: each build names both, [`NicCoreIce40`] and [`NicCore4k`], and
/// the constructor asserts they agree).
#[derive(LogicBlock)]
pub struct NicCore<const FB: usize, const EW: usize, E: Engine<FB> = WindowEngine<FB>> {
    /// The core clock.
    pub clock: Signal<In, Clock>,
    /// Byte address of the register bus.
    pub bus_addr: Signal<In, Bits<12>>,
    /// Write data.
    pub bus_wdata: Signal<In, Bits<32>>,
    /// Write strobe (one cycle per write).
    pub bus_we: Signal<In, Bit>,
    /// Read strobe (one cycle per read).
    pub bus_re: Signal<In, Bit>,
    /// Read data, valid with `bus_rvalid`.
    pub bus_rdata: Signal<Out, Bits<32>>,
    /// A read's data is on `bus_rdata` (the cycle after `bus_re`).
    pub bus_rvalid: Signal<Out, Bit>,
    // ---- taps for a system around the core (`crate::nic_system`); a core
    // alone (and the board) ties `sweep_hold` low
    /// While high, the reset sweep waits (and with it every event source).
    pub sys_sweep_hold: Signal<In, Bit>,
    /// A window handed over in hardware (the fast-start marker's, at its
    /// transition): SET flow `sys_set_flow` to `sys_set_cw`, clamped as any
    /// SET. It takes the engine's port ahead of a flow command, the
    /// generator and the FIFO (which wait that cycle), in a cycle of
    /// `sys_set_ready`; in any other cycle it is not taken, and the system
    /// holds it. A core alone ties it low.
    pub sys_set_valid: Signal<In, Bit>,
    /// The flow of `sys_set_valid`.
    pub sys_set_flow: Signal<In, Bits<FB>>,
    /// The window of `sys_set_valid`, packets, UQ12.20.
    pub sys_set_cw: Signal<In, Bits<32>>,
    /// An event pushed into the FIFO by the system (the receiver's ACKs in
    /// loopback): it goes ahead of an EV_PUSH command in the same cycle
    /// (written in the cycle before), which is then dropped (counted in
    /// CNT_DROPPED, ERRORS.FIFO_OVERFLOW); a push into a full FIFO is
    /// dropped the same way. A core alone ties it low.
    pub sys_push_valid: Signal<In, Bit>,
    /// Its event, as EV_PUSH packs it: flow (11..0; the bits above the
    /// build's flows are ignored), n (15..12), ECE (16).
    pub sys_push_event: Signal<In, Bits<PUSH_BITS>>,
    /// A `sys_set_valid` is taken this cycle: the reset sweep is not
    /// running and the engine is ready (from registers; the pipelined
    /// engine is always ready).
    pub sys_set_ready: Signal<Out, Bit>,
    /// The reset sweep is running (STATUS.RESETTING).
    pub sys_sweeping: Signal<Out, Bit>,
    /// The event FIFO's level (entries pushed and not yet popped, 0 to
    /// 256; a register): a system whose events outrun a sequential engine
    /// holds its source by it.
    pub sys_fifo_level: Signal<Out, Bits<9>>,
    /// The core resets at this edge (CORE_RESET, registered).
    pub sys_core_rst: Signal<Out, Bit>,
    /// The window engine's update this cycle.
    pub sys_upd_valid: Signal<Out, Bit>,
    /// Its flow.
    pub sys_upd_flow: Signal<Out, Bits<FB>>,
    /// Its pacing interval (0: cw >= 1).
    pub sys_upd_interval_ticks: Signal<Out, Bits<24>>,
    /// Its window's whole packets (cw's integer part).
    pub sys_upd_cw_pkts: Signal<Out, Bits<12>>,
    /// The update is the result of a FLOW_CMD RESET (the flow restarts).
    pub sys_upd_restart: Signal<Out, Bit>,
    /// A FLOW_CMD RESET is accepted this cycle, for flow `flow_reset_id`.
    pub sys_flow_reset: Signal<Out, Bit>,
    /// The flow of `flow_reset`.
    pub sys_flow_reset_id: Signal<Out, Bits<FB>>,
    /// CNT_CLEAR.GO is written this cycle.
    pub sys_cnt_clear: Signal<Out, Bit>,
    regs: RegFile,
    eng: E,
    fifo: RAM<Bits<EW>, FIFO_LOG2>,
    c_hash: Constant<Bits<32>>,
    c_dirty: Constant<Bits<1>>,
    c_ext: Constant<Bits<1>>,
    c_kind: Constant<Bits<2>>,
    c_blocks: Constant<Bits<7>>,
    c_flow_bits: Constant<Bits<8>>,
    c_fifo_log2: Constant<Bits<8>>,
    c_latency: Constant<Bits<8>>,
    c_age: Constant<Bits<6>>,
    c_one9: Constant<Bits<9>>,
    c_zero_seed: Constant<Bits<32>>,
    one6: Constant<Bits<6>>,
    one_fb: Constant<Bits<FB>>,
    c_fb: Constant<Bits<32>>,
    gen_n: Signal<Local, Bits<4>>,
    gen_e: Signal<Local, Bits<3>>,
    c_fb5: Constant<Bits<32>>,
    push_word: Signal<Local, Bits<EW>>,
    one9: Constant<Bits<9>>,
    one32: Constant<Bits<32>>,
    one48: Constant<Bits<48>>,
    op_read: Constant<Bits<2>>,
    op_write: Constant<Bits<2>>,
    op_reset: Constant<Bits<2>>,
    // local decisions
    core_reset: Signal<Local, Bit>,
    take_sweep: Signal<Local, Bit>,
    take_set: Signal<Local, Bit>,
    take_fc: Signal<Local, Bit>,
    take_gen: Signal<Local, Bit>,
    take_fifo: Signal<Local, Bit>,
    fifo_avail: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    rd_next: Signal<Local, Bits<9>>,
    push_ok: Signal<Local, Bit>,
    lost_full: Signal<Local, Bits<1>>,
    lost_bus: Signal<Local, Bits<1>>,
    lost_n: Signal<Local, Bits<2>>,
    lost_q: DFF<Bits<2>>,
    ack_q: DFF<Bit>,
    ece_q: DFF<Bit>,
    push_q: DFF<Bit>,
    gen_x1: Signal<Local, Bits<32>>,
    gen_x2: Signal<Local, Bits<32>>,
    gen_x3: Signal<Local, Bits<32>>,
    gen_ece: Signal<Local, Bit>,
    ack_in: Signal<Local, Bit>,
    ack_ece: Signal<Local, Bit>,
    fc_start: Signal<Local, Bit>,
    capture: Signal<Local, Bit>,
    // registers
    reset_q: DFF<Bit>,
    ovf_q: DFF<Bits<1>>,
    fcb_q: DFF<Bits<1>>,
    cycles: DFF<Bits<48>>,
    cycles_hi: DFF<Bits<16>>,
    sweeping: DFF<Bit>,
    sweep_ptr: DFF<Bits<FB>>,
    wr_ptr: DFF<Bits<9>>,
    wr_ptr_d: DFF<Bits<9>>,
    level: DFF<Bits<9>>,
    /// level != 0, a register of its own (see the port)
    nonempty: DFF<Bit>,
    rd_ptr: DFF<Bits<9>>,
    gen_busy: DFF<Bit>,
    gen_x: DFF<Bits<32>>,
    gen_rem: DFF<Bits<32>>,
    fc_busy: DFF<Bit>,
    fc_issued: DFF<Bit>,
    fc_op: DFF<Bits<2>>,
    fc_flow: DFF<Bits<FB>>,
    fc_age: DFF<Bits<6>>,
    /// fc_age >= CAPTURE_AGE, a register of its own (see the capture)
    fc_aged: DFF<Bit>,
    fc_done: DFF<Bit>,
    res_cw: DFF<Bits<32>>,
    res_interval: DFF<Bits<24>>,
    res_flow: DFF<Bits<FB>>,
    cnt_events: DFF<Bits<32>>,
    cnt_pushed: DFF<Bits<32>>,
    cnt_dropped: DFF<Bits<32>>,
    cnt_updates: DFF<Bits<32>>,
    cnt_marked: DFF<Bits<32>>,
    gen_cycles: DFF<Bits<32>>,
    cnt_packets: DFF<Bits<32>>,
}

impl<const FB: usize, const EW: usize, E: Engine<FB>> NicCore<FB, EW, E> {
    /// A core reporting `build` in GIT_HASH and CAPS.DIRTY, CAPS.EXT 0.
    pub fn new(build: BuildId) -> Self {
        Self::with_ext(build, false)
    }

    /// A core reporting `build`, and `ext` in CAPS.EXT (set by a system
    /// that decodes the extension registers around it: then BLOCKS is the
    /// NIC system's, else the core's).
    pub fn with_ext(build: BuildId, ext: bool) -> Self {
        Self::with_blocks(
            build,
            if ext {
                ldcp_regmap::BLOCKS_NIC_SYSTEM
            } else {
                ldcp_regmap::BLOCKS_NIC_CORE
            },
        )
    }

    /// A core reporting `build`, and `blocks` in BLOCKS (CAPS.EXT set when
    /// any block is beyond the core's).
    pub fn with_blocks(build: BuildId, blocks: u32) -> Self {
        let ext = blocks & !ldcp_regmap::BLOCKS_NIC_CORE != 0;
        assert!(
            (1..=FB_4K).contains(&FB) && EW == FB + EV_LOW_BITS,
            "flow bits {FB} out of [1, {FB_4K}], or a FIFO word of {EW} bits, not {FB} + {EV_LOW_BITS}"
        );
        NicCore {
            sys_sweep_hold: Default::default(),
            sys_set_valid: Default::default(),
            sys_set_flow: Default::default(),
            sys_set_cw: Default::default(),
            sys_push_valid: Default::default(),
            sys_push_event: Default::default(),
            sys_set_ready: Default::default(),
            sys_sweeping: Default::default(),
            sys_fifo_level: Default::default(),
            sys_core_rst: Default::default(),
            sys_upd_valid: Default::default(),
            sys_upd_flow: Default::default(),
            sys_upd_interval_ticks: Default::default(),
            sys_upd_cw_pkts: Default::default(),
            sys_upd_restart: Default::default(),
            sys_flow_reset: Default::default(),
            sys_flow_reset_id: Default::default(),
            sys_cnt_clear: Default::default(),
            clock: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_we: Default::default(),
            bus_re: Default::default(),
            bus_rdata: Default::default(),
            bus_rvalid: Default::default(),
            regs: RegFile::with_blocks(blocks),
            eng: Default::default(),
            fifo: Default::default(),
            c_hash: Constant::new(bits::<32>(build.hash as u64)),
            c_dirty: Constant::new(bits::<1>(build.dirty as u64)),
            c_ext: Constant::new(bits::<1>(ext as u64)),
            c_kind: Constant::new(bits::<2>(ldcp_regmap::KIND_NIC as u64)),
            c_blocks: Constant::new(bits::<7>(blocks as u64)),
            c_flow_bits: Constant::new(bits::<8>(FB as u64)),
            c_fifo_log2: Constant::new(bits::<8>(ldcp_regmap::FIFO_DEPTH_LOG2 as u64)),
            c_latency: Constant::new(bits::<8>(E::LATENCY_CYCLES)),
            c_age: Constant::new(bits::<6>(E::CAPTURE_AGE - 1)),
            c_one9: Constant::new(bits::<9>(1)),
            c_zero_seed: Constant::new(bits::<32>(ldcp_sim::xorshift::ZERO_SEED_SUBSTITUTE as u64)),
            one6: Constant::new(bits::<6>(1)),
            one_fb: Constant::new(bits::<FB>(1)),
            c_fb: Constant::new(bits::<32>(FB as u64)),
            gen_n: Default::default(),
            gen_e: Default::default(),
            c_fb5: Constant::new(bits::<32>(FB as u64 + 5)),
            push_word: Default::default(),
            one9: Constant::new(bits::<9>(1)),
            one32: Constant::new(bits::<32>(1)),
            one48: Constant::new(bits::<48>(1)),
            op_read: Constant::new(bits::<2>(1)),
            op_write: Constant::new(bits::<2>(2)),
            op_reset: Constant::new(bits::<2>(3)),
            core_reset: Default::default(),
            take_sweep: Default::default(),
            take_set: Default::default(),
            take_fc: Default::default(),
            take_gen: Default::default(),
            take_fifo: Default::default(),
            fifo_avail: Default::default(),
            push: Default::default(),
            rd_next: Default::default(),
            push_ok: Default::default(),
            lost_full: Default::default(),
            lost_bus: Default::default(),
            lost_n: Default::default(),
            lost_q: Default::default(),
            ack_q: Default::default(),
            ece_q: Default::default(),
            push_q: Default::default(),
            gen_x1: Default::default(),
            gen_x2: Default::default(),
            gen_x3: Default::default(),
            gen_ece: Default::default(),
            ack_in: Default::default(),
            ack_ece: Default::default(),
            fc_start: Default::default(),
            capture: Default::default(),
            reset_q: Default::default(),
            ovf_q: Default::default(),
            fcb_q: Default::default(),
            cycles: Default::default(),
            cycles_hi: Default::default(),
            sweeping: Default::default(),
            sweep_ptr: Default::default(),
            wr_ptr: Default::default(),
            wr_ptr_d: Default::default(),
            level: Default::default(),
            nonempty: Default::default(),
            rd_ptr: Default::default(),
            gen_busy: Default::default(),
            gen_x: Default::default(),
            gen_rem: Default::default(),
            fc_busy: Default::default(),
            fc_issued: Default::default(),
            fc_op: Default::default(),
            fc_flow: Default::default(),
            fc_age: Default::default(),
            fc_aged: Default::default(),
            fc_done: Default::default(),
            res_cw: Default::default(),
            res_interval: Default::default(),
            res_flow: Default::default(),
            cnt_events: Default::default(),
            cnt_pushed: Default::default(),
            cnt_dropped: Default::default(),
            cnt_updates: Default::default(),
            cnt_marked: Default::default(),
            gen_cycles: Default::default(),
            cnt_packets: Default::default(),
        }
    }
}

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "nic_core",
    doc: "the LDCP NIC core: window engine (256 flows), event FIFO, on-chip event generator, indirect flow window, counters, behind the register map of docs/regmap.md",
    // the map's flow fields are 12 bits; this build ignores bits 11..8
    open: &["sys_push_event", "regs$flow_id_id", "regs$ev_push_flow"],
    subs: &[&crate::window_engine::MODULE],
};

/// The 4,096-flow core's module (a simulation size: its table is more
/// than the HX8K's block RAM; the ULX3S system carries it).
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "nic_core_4k",
    doc: "the LDCP NIC core with 4,096 flows (simulation size; the ECP5 build's): window engine, event FIFO, on-chip event generator, indirect flow window, counters, behind the register map of docs/regmap.md",
    open: &[],
    subs: &[&crate::window_engine::MODULE_4K],
};

/// The module of the formal-size core, 4 flows
/// ([`crate::generate::FB_FORMAL`]): the core's name and ports, for the
/// property harness of its event FIFO in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the NIC core at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[&crate::window_engine::MODULE_FORMAL],
};

/// The formal-size core's Verilog (module [`MODULE_FORMAL`]), unstamped.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    use crate::generate::FB_FORMAL;
    crate::generate::finalized(
        &MODULE_FORMAL,
        NicCore::<FB_FORMAL, { FB_FORMAL + EV_LOW_BITS }>::new(BuildId::UNSTAMPED),
    )
}

/// The core's finalized Verilog (module [`MODULE`]), stamped with `build`.
/// The flow's block reports GIT_HASH 0 with CAPS.DIRTY set
/// ([`NicCore::default`]), so its Verilog, and the committed report's
/// hash, do not change with every commit.
pub fn verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, NicCoreIce40::new(build))
}

/// The module of the core with the sequential engine ([`NicCoreSeqIce40`]).
pub const MODULE_SEQ: crate::generate::Module = crate::generate::Module {
    name: "nic_core_seq",
    doc: "the LDCP NIC core with the sequential window engine (256 flows, one event per 7 to 27 cycles): event FIFO, on-chip event generator, indirect flow window, counters, behind the register map of docs/regmap.md",
    open: MODULE.open,
    subs: &[&crate::window_engine_seq::MODULE],
};

/// The sequential-engine core's Verilog (module [`MODULE_SEQ`]), unstamped.
pub fn verilog_seq() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE_SEQ, NicCoreSeqIce40::new(BuildId::UNSTAMPED))
}

/// The module of the formal-size core with the sequential engine, 4 flows
/// ([`crate::generate::FB_FORMAL`]), for its property harness.
pub const MODULE_FORMAL_SEQ: crate::generate::Module = crate::generate::Module {
    name: MODULE_SEQ.name,
    doc: "the NIC core with the sequential window engine at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[&crate::window_engine_seq::MODULE_FORMAL],
};

/// The formal-size sequential-engine core's Verilog (module
/// [`MODULE_FORMAL_SEQ`]), unstamped.
pub fn verilog_formal_seq() -> Result<String, crate::verilog::VerilogError> {
    use crate::generate::FB_FORMAL;
    crate::generate::finalized(
        &MODULE_FORMAL_SEQ,
        NicCore::<FB_FORMAL, { FB_FORMAL + EV_LOW_BITS }, WindowEngineSeq<FB_FORMAL>>::new(
            BuildId::UNSTAMPED,
        ),
    )
}

/// The 4,096-flow core's Verilog (module [`MODULE_4K`]), unstamped.
pub fn verilog_4k() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE_4K, NicCore4k::new(BuildId::UNSTAMPED))
}

impl<const FB: usize, const EW: usize, E: Engine<FB>> Default for NicCore<FB, EW, E> {
    /// A core reporting GIT_HASH 0 with CAPS.DIRTY set (tests, benches).
    fn default() -> Self {
        NicCore::new(BuildId::UNSTAMPED)
    }
}

/// The core's logic, written once for both engines: `core_logic!()` for
/// the pipelined engine (it takes an event every cycle), and
/// `core_logic!(in_ready)` for one with a ready, which every source of
/// its port then waits for (the reset sweep, the hand-off, a flow command,
/// the generator, the FIFO's pop).
macro_rules! core_logic {
    ($($rdy:ident)?) => {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            reset_q,
            ovf_q,
            lost_q,
            ack_q,
            ece_q,
            push_q,
            fcb_q,
            cycles,
            cycles_hi,
            sweeping,
            sweep_ptr,
            wr_ptr,
            wr_ptr_d,
            level,
            nonempty,
            rd_ptr,
            gen_busy,
            gen_x,
            gen_rem,
            fc_busy,
            fc_issued,
            fc_op,
            fc_flow,
            fc_age,
            fc_aged,
            fc_done,
            res_cw,
            res_interval,
            res_flow,
            cnt_events,
            cnt_pushed,
            cnt_dropped,
            cnt_updates,
            cnt_marked,
            gen_cycles,
            cnt_packets
        );
        self.regs.clock.next = self.clock.val();
        self.eng.clock.next = self.clock.val();
        self.fifo.read_clock.next = self.clock.val();
        self.fifo.write_clock.next = self.clock.val();

        // ---- the bus
        self.regs.bus_addr.next = self.bus_addr.val();
        self.regs.bus_wdata.next = self.bus_wdata.val();
        self.regs.bus_we.next = self.bus_we.val();
        self.regs.bus_re.next = self.bus_re.val();
        self.bus_rdata.next = self.regs.bus_rdata.val();
        self.bus_rvalid.next = self.regs.bus_rvalid.val();
        // a CORE_RESET command takes effect at the next edge (registered, so
        // the decoder's reset does not depend on its own strobe in one cycle)
        self.reset_q.d.next = self.regs.core_reset_wr.val() & self.regs.core_reset_go.val().any();
        self.core_reset.next = self.reset_q.q.val();
        self.regs.reset.next = self.reset_q.q.val();

        // ---- id
        self.regs.git_hash_hash.next = self.c_hash.val();
        self.regs.caps_flow_bits.next = self.c_flow_bits.val();
        self.regs.caps_fifo_log2.next = self.c_fifo_log2.val();
        self.regs.caps_latency.next = self.c_latency.val();
        self.regs.caps_dirty.next = self.c_dirty.val();
        self.regs.caps_ext.next = self.c_ext.val();
        self.regs.caps_kind.next = self.c_kind.val();
        // BLOCKS: the bits are ldcp_regmap::BLOCK_* (asserted below)
        self.regs.blocks_window_engine.next = self.c_blocks.val().get_bits::<1>(0);
        self.regs.blocks_pacing_timer.next = self.c_blocks.val().get_bits::<1>(1);
        self.regs.blocks_fast_start.next = self.c_blocks.val().get_bits::<1>(2);
        self.regs.blocks_ack_gen.next = self.c_blocks.val().get_bits::<1>(3);
        self.regs.blocks_wred_ecn.next = self.c_blocks.val().get_bits::<1>(4);
        self.regs.blocks_loop.next = self.c_blocks.val().get_bits::<1>(5);
        self.regs.blocks_generator.next = self.c_blocks.val().get_bits::<1>(6);

        // ---- cycle counter: reading CYCLES_LO latches the high word
        self.cycles.d.next = self.cycles.q.val() + self.one48.val();
        if self.regs.cycles_lo_rd.val() {
            self.cycles_hi.d.next = self.cycles.q.val().get_bits::<16>(32);
        }
        self.regs.cycles_lo_count.next = self.cycles.q.val().get_bits::<32>(0);
        self.regs.cycles_hi_count.next = self.cycles_hi.q.val();

        // ---- FIFO occupancy; an entry is poppable from the second cycle after its push
        // the level is a register of its own (wr - rd would put a 9-bit
        // subtract in front of the push decision)
        self.fifo_avail.next = self.wr_ptr_d.q.val() != self.rd_ptr.q.val();
        self.wr_ptr_d.d.next = self.wr_ptr.q.val();

        // ---- the engine's port, by priority
        self.fc_start.next = self.fc_busy.q.val() & !self.fc_issued.q.val();
        self.take_sweep.next =
            self.sweeping.q.val() & !self.sys_sweep_hold.val() $(& self.eng.$rdy.val())?;
        // a window handed over in hardware, then (it waits for the FIFO to
        // empty) a flow command, the generator, the FIFO
        self.sys_set_ready.next = !self.sweeping.q.val() $(& self.eng.$rdy.val())?;
        self.take_set.next = self.sys_set_ready.val() & self.sys_set_valid.val();
        self.take_fc.next = !self.sweeping.q.val()
            & !self.sys_set_valid.val()
            & self.fc_start.val()
            & !self.nonempty.q.val() $(& self.eng.$rdy.val())?;
        self.take_gen.next = !self.sweeping.q.val()
            & !self.sys_set_valid.val()
            & !self.take_fc.val()
            & self.gen_busy.q.val() $(& self.eng.$rdy.val())?;
        // (not gated by take_fc: a poppable entry means a FIFO level above
        // 0, and a command waits for level 0. The gate put the level's
        // compare and the command's arbitration in front of the FIFO's
        // select, the core's critical path)
        self.take_fifo.next = !self.sweeping.q.val()
            & !self.sys_set_valid.val()
            & !self.gen_busy.q.val()
            & self.fifo_avail.val() $(& self.eng.$rdy.val())?;
        // the generator's n and ECE sit above its flow (a shift by a
        // constant: FB's own width would need a generic index)
        self.gen_n.next = bit_cast::<4, 32>(self.gen_x.q.val() >> self.c_fb.val());
        self.gen_e.next = bit_cast::<3, 32>(self.gen_x.q.val() >> self.c_fb5.val());
        self.gen_ece.next = !self.gen_e.val().any();

        self.eng.reset.next = self.core_reset.val();
        self.eng.cfg_alpha.next = self.regs.alpha_raw.val();
        self.eng.cfg_beta.next = self.regs.beta_raw.val();
        self.eng.cfg_gamma_shift.next = self.regs.gamma_shift.val();
        self.eng.cfg_cw_max.next = self.regs.cw_max_cw.val();
        self.eng.cfg_rtt_ticks.next = self.regs.rtt_ticks.val();
        self.eng.in_valid.next = self.take_sweep.val()
            | self.take_set.val()
            | self.take_fc.val()
            | self.take_gen.val()
            | self.take_fifo.val();
        // the sources are exclusive, so their order here is free: the FIFO
        // (its RAM's data is late) comes last, one mux from the engine
        self.eng.in_flow.next = self.gen_x.q.val().get_bits::<FB>(0);
        self.eng.in_n_pkts.next = self.gen_n.val();
        self.eng.in_ece.next = self.gen_ece.val();
        self.eng.in_set.next = false;
        self.eng.in_cw.next = self.regs.init_cw_cw.val();
        if self.take_fc.val() {
            self.eng.in_flow.next = self.fc_flow.q.val();
            self.eng.in_n_pkts.next = bits::<4>(0);
            self.eng.in_ece.next = false;
            self.eng.in_set.next =
                self.fc_op.q.val().any() & (self.fc_op.q.val() != self.op_read.val());
        }
        // a SET's value: FLOW_WDATA for a WRITE command, INIT_CW for a RESET
        // or the sweep. Selected from registers only (not from take_fc,
        // which waits on the FIFO level): the engine compares it with its
        // limits in the same cycle, and that compare was the core's critical
        // path. Events that are not SETs carry a value nobody reads.
        if !self.sweeping.q.val() & (self.fc_op.q.val() == self.op_write.val()) {
            self.eng.in_cw.next = self.regs.flow_wdata_cw.val();
        }
        if self.take_set.val() {
            self.eng.in_flow.next = self.sys_set_flow.val();
            self.eng.in_n_pkts.next = bits::<4>(0);
            self.eng.in_ece.next = false;
            self.eng.in_set.next = true;
            self.eng.in_cw.next = self.sys_set_cw.val();
        }
        if self.take_sweep.val() {
            self.eng.in_flow.next = self.sweep_ptr.q.val();
            self.eng.in_n_pkts.next = bits::<4>(0);
            self.eng.in_ece.next = false;
            self.eng.in_set.next = true;
        }
        if self.take_fifo.val() {
            self.eng.in_flow.next = self.fifo.read_data.val().get_bits::<FB>(5);
            self.eng.in_n_pkts.next = self.fifo.read_data.val().get_bits::<4>(0);
            self.eng.in_ece.next = self.fifo.read_data.val().get_bit(4);
            self.eng.in_set.next = false;
        }
        self.ack_in.next = self.take_gen.val() | self.take_fifo.val();
        self.ack_ece.next = self.eng.in_ece.val() & self.ack_in.val();

        // ---- sweep
        if self.take_sweep.val() {
            self.sweep_ptr.d.next = self.sweep_ptr.q.val() + self.one_fb.val();
            if self.sweep_ptr.q.val().all() {
                self.sweeping.d.next = false;
            }
        }

        // ---- FIFO: push from the system (ahead) or the bus, pop to the engine
        self.push.next = self.regs.ev_push_wr.val() | self.sys_push_valid.val();
        self.push_ok.next = self.push.val() & !self.level.q.val().get_bit(8);
        // `nonempty` follows `level != 0` from registers: the level's 9-bit
        // compare was in front of the port's arbitration
        if self.push_ok.val() & !self.take_fifo.val() {
            self.level.d.next = self.level.q.val() + self.one9.val();
            self.nonempty.d.next = true;
        }
        if !self.push_ok.val() & self.take_fifo.val() {
            self.level.d.next = self.level.q.val() - self.one9.val();
            self.nonempty.d.next = self.level.q.val() != self.c_one9.val();
        }
        self.fifo.write_address.next = self.wr_ptr.q.val().get_bits::<FIFO_LOG2>(0);
        // a FIFO word: n (3..0), ECE (4), the flow above (the bits of a
        // written flow above the build's are dropped here)
        self.push_word.next = bit_cast::<EW, 4>(self.regs.ev_push_n.val())
            | (bit_cast::<EW, 1>(self.regs.ev_push_ece.val()) << 4)
            | (bit_cast::<EW, FB>(self.regs.ev_push_flow.val().get_bits::<FB>(0)) << 5);
        if self.sys_push_valid.val() {
            self.push_word.next = bit_cast::<EW, 4>(self.sys_push_event.val().get_bits::<4>(12))
                | (bit_cast::<EW, 1>(self.sys_push_event.val().get_bits::<1>(16)) << 4)
                | (bit_cast::<EW, FB>(self.sys_push_event.val().get_bits::<FB>(0)) << 5);
        }
        self.fifo.write_data.next = self.push_word.val();
        self.fifo.write_enable.next = self.push_ok.val();
        if self.push_ok.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + self.one9.val();
        }
        self.rd_next.next = self.rd_ptr.q.val() + self.one9.val();
        self.fifo.read_address.next = self.rd_ptr.q.val().get_bits::<FIFO_LOG2>(0);
        if self.take_fifo.val() {
            self.rd_ptr.d.next = self.rd_next.val();
            self.fifo.read_address.next = self.rd_next.val().get_bits::<FIFO_LOG2>(0);
        }
        // error flags are set one cycle after their cause (registered for
        // the same reason as the reset)
        self.ovf_q.d.next = bits::<1>(0);
        if (self.push.val() & !self.push_ok.val())
            | (self.sys_push_valid.val() & self.regs.ev_push_wr.val())
        {
            self.ovf_q.d.next = bits::<1>(1);
        }
        self.regs.errors_fifo_overflow_set.next = self.ovf_q.q.val();

        // ---- generator: xorshift32 (13, 17, 5)
        self.gen_x1.next = self.gen_x.q.val() ^ (self.gen_x.q.val() << 13);
        self.gen_x2.next = self.gen_x1.val() ^ (self.gen_x1.val() >> 17);
        self.gen_x3.next = self.gen_x2.val() ^ (self.gen_x2.val() << 5);
        if self.take_gen.val() {
            self.gen_x.d.next = self.gen_x3.val();
            self.gen_rem.d.next = self.gen_rem.q.val() - self.one32.val();
            if self.gen_rem.q.val() == self.one32.val() {
                self.gen_busy.d.next = false;
            }
        }
        if self.gen_busy.q.val() {
            self.gen_cycles.d.next = self.gen_cycles.q.val() + self.one32.val();
        }
        if self.regs.gen_ctrl_wr.val()
            & self.regs.gen_ctrl_start.val().any()
            & !self.gen_busy.q.val()
        {
            self.gen_busy.d.next = self.regs.gen_count_events.val().any();
            self.gen_rem.d.next = self.regs.gen_count_events.val();
            self.gen_x.d.next = self.regs.gen_seed_seed.val();
            if !self.regs.gen_seed_seed.val().any() {
                self.gen_x.d.next = self.c_zero_seed.val();
            }
        }
        if self.regs.gen_ctrl_wr.val() & self.regs.gen_ctrl_stop.val().any() {
            self.gen_busy.d.next = false;
        }
        self.regs.gen_remaining_events.next = self.gen_rem.q.val();

        // ---- flow commands
        // `fc_aged` follows `fc_age >= CAPTURE_AGE` from registers (the
        // compare's carry chain was in front of the result registers'
        // enables): set as the age steps from CAPTURE_AGE - 1
        if self.take_fc.val() {
            self.fc_issued.d.next = true;
            self.fc_age.d.next = bits::<6>(0);
            self.fc_aged.d.next = false;
        }
        if self.fc_issued.q.val() & !self.fc_age.q.val().all() {
            self.fc_age.d.next = self.fc_age.q.val() + self.one6.val();
            self.fc_aged.d.next = self.fc_age.q.val() >= self.c_age.val();
        }
        self.capture.next = self.fc_issued.q.val()
            & self.eng.out_valid.val()
            & (self.eng.out_flow.val() == self.fc_flow.q.val())
            & self.fc_aged.q.val();
        if self.capture.val() {
            self.fc_busy.d.next = false;
            self.fc_issued.d.next = false;
            self.fc_done.d.next = true;
            self.res_cw.d.next = self.eng.out_cw.val();
            self.res_interval.d.next = self.eng.out_interval_ticks.val();
            self.res_flow.d.next = self.fc_flow.q.val();
        }
        self.fcb_q.d.next = bits::<1>(0);
        self.regs.errors_flow_cmd_busy_set.next = self.fcb_q.q.val();
        if self.regs.flow_cmd_wr.val() & self.regs.flow_cmd_op.val().any() {
            if self.fc_busy.q.val() {
                self.fcb_q.d.next = bits::<1>(1);
            } else {
                self.fc_busy.d.next = true;
                self.fc_issued.d.next = false;
                self.fc_done.d.next = false;
                self.fc_op.d.next = self.regs.flow_cmd_op.val();
                self.fc_flow.d.next = self.regs.flow_id_id.val().get_bits::<FB>(0);
            }
        }
        self.sys_flow_reset.next = self.regs.flow_cmd_wr.val()
            & (self.regs.flow_cmd_op.val() == self.op_reset.val())
            & !self.fc_busy.q.val();
        self.sys_flow_reset_id.next = self.regs.flow_id_id.val().get_bits::<FB>(0);
        self.sys_upd_valid.next = self.eng.out_valid.val();
        self.sys_upd_flow.next = self.eng.out_flow.val();
        self.sys_upd_interval_ticks.next = self.eng.out_interval_ticks.val();
        self.sys_upd_cw_pkts.next = self.eng.out_cw.val().get_bits::<12>(20);
        self.sys_upd_restart.next =
            self.capture.val() & (self.fc_op.q.val() == self.op_reset.val());
        self.sys_core_rst.next = self.reset_q.q.val();
        self.sys_sweeping.next = self.sweeping.q.val();
        self.sys_fifo_level.next = self.level.q.val();
        self.sys_cnt_clear.next = self.regs.cnt_clear_wr.val() & self.regs.cnt_clear_go.val().any();
        self.regs.flow_cw_cw.next = self.res_cw.q.val();
        self.regs.flow_interval_ticks.next = self.res_interval.q.val();
        self.regs.flow_status_done.next = bits::<1>(0);
        if self.fc_done.q.val() {
            self.regs.flow_status_done.next = bits::<1>(1);
        }
        self.regs.flow_status_busy.next = bits::<1>(0);
        if self.fc_busy.q.val() {
            self.regs.flow_status_busy.next = bits::<1>(1);
        }
        self.regs.flow_status_flow.next =
            bit_cast::<{ ldcp_regmap::FLOW_FIELD_BITS as usize }, FB>(self.res_flow.q.val());

        // ---- counters
        // the counters count a cycle after the event (registered: the port's
        // arbitration and the bus decode in front of them were critical paths)
        self.ack_q.d.next = self.ack_in.val();
        self.ece_q.d.next = self.ack_ece.val();
        self.push_q.d.next = self.push_ok.val();
        if self.ack_q.q.val() {
            self.cnt_events.d.next = self.cnt_events.q.val() + self.one32.val();
        }
        if self.ece_q.q.val() {
            self.cnt_marked.d.next = self.cnt_marked.q.val() + self.one32.val();
        }
        if self.push_q.q.val() {
            self.cnt_pushed.d.next = self.cnt_pushed.q.val() + self.one32.val();
        }
        // events lost: a push refused (FIFO full), and an EV_PUSH write the
        // system's push displaced (both in one cycle: two)
        self.lost_full.next = bits::<1>(0);
        if self.push.val() & !self.push_ok.val() {
            self.lost_full.next = bits::<1>(1);
        }
        self.lost_bus.next = bits::<1>(0);
        if self.sys_push_valid.val() & self.regs.ev_push_wr.val() {
            self.lost_bus.next = bits::<1>(1);
        }
        // one adder of a 2-bit count (two chained 32-bit adds were the
        // core's critical path), registered: the count lands a cycle after
        // the loss (the bus decode in front of it was the critical path)
        self.lost_n.next = bits::<2>(0);
        if (self.lost_full.val() ^ self.lost_bus.val()).any() {
            self.lost_n.next = bits::<2>(1);
        }
        if (self.lost_full.val() & self.lost_bus.val()).any() {
            self.lost_n.next = bits::<2>(2);
        }
        self.lost_q.d.next = self.lost_n.val();
        if self.lost_q.q.val().any() {
            self.cnt_dropped.d.next =
                self.cnt_dropped.q.val() + bit_cast::<32, 2>(self.lost_q.q.val());
        }
        if self.eng.out_valid.val() {
            self.cnt_updates.d.next = self.cnt_updates.q.val() + self.one32.val();
            self.cnt_packets.d.next = self.cnt_packets.q.val()
                + bit_cast::<32, 8>(self.eng.out_n_u_pkts.val())
                + bit_cast::<32, 8>(self.eng.out_n_m_pkts.val());
        }
        if self.regs.cnt_clear_wr.val() & self.regs.cnt_clear_go.val().any() {
            self.cnt_events.d.next = bits::<32>(0);
            self.cnt_marked.d.next = bits::<32>(0);
            self.cnt_pushed.d.next = bits::<32>(0);
            self.cnt_dropped.d.next = bits::<32>(0);
            self.cnt_updates.d.next = bits::<32>(0);
            self.gen_cycles.d.next = bits::<32>(0);
            self.cnt_packets.d.next = bits::<32>(0);
        }
        self.regs.cnt_packets_count.next = self.cnt_packets.q.val();
        self.regs.cnt_events_count.next = self.cnt_events.q.val();
        self.regs.cnt_pushed_count.next = self.cnt_pushed.q.val();
        self.regs.cnt_dropped_count.next = self.cnt_dropped.q.val();
        self.regs.cnt_updates_count.next = self.cnt_updates.q.val();
        self.regs.cnt_marked_count.next = self.cnt_marked.q.val();
        self.regs.gen_cycles_count.next = self.gen_cycles.q.val();

        // ---- status
        self.regs.status_resetting.next = bits::<1>(0);
        if self.sweeping.q.val() {
            self.regs.status_resetting.next = bits::<1>(1);
        }
        self.regs.status_flow_busy.next = bits::<1>(0);
        if self.fc_busy.q.val() {
            self.regs.status_flow_busy.next = bits::<1>(1);
        }
        self.regs.status_gen_busy.next = bits::<1>(0);
        if self.gen_busy.q.val() {
            self.regs.status_gen_busy.next = bits::<1>(1);
        }
        self.regs.status_fifo_level.next = self.level.q.val();

        // ---- core reset: everything but CYCLES, then the sweep
        if self.core_reset.val() {
            self.sweeping.d.next = true;
            self.sweep_ptr.d.next = bits::<FB>(0);
            self.wr_ptr.d.next = bits::<9>(0);
            self.wr_ptr_d.d.next = bits::<9>(0);
            self.level.d.next = bits::<9>(0);
            self.nonempty.d.next = false;
            self.rd_ptr.d.next = bits::<9>(0);
            self.gen_busy.d.next = false;
            self.gen_rem.d.next = bits::<32>(0);
            self.gen_x.d.next = bits::<32>(0);
            self.fc_busy.d.next = false;
            self.fc_issued.d.next = false;
            self.fc_done.d.next = false;
            self.fc_op.d.next = bits::<2>(0);
            self.fc_flow.d.next = bits::<FB>(0);
            self.res_cw.d.next = bits::<32>(0);
            self.res_interval.d.next = bits::<24>(0);
            self.res_flow.d.next = bits::<FB>(0);
            self.cnt_events.d.next = bits::<32>(0);
            self.cnt_marked.d.next = bits::<32>(0);
            self.cnt_pushed.d.next = bits::<32>(0);
            self.cnt_dropped.d.next = bits::<32>(0);
            self.lost_q.d.next = bits::<2>(0);
            self.ack_q.d.next = false;
            self.ece_q.d.next = false;
            self.push_q.d.next = false;
            self.cnt_updates.d.next = bits::<32>(0);
            self.gen_cycles.d.next = bits::<32>(0);
            self.cnt_packets.d.next = bits::<32>(0);
            self.fifo.write_enable.next = false;
        }
    }
    };
}

impl<const FB: usize, const EW: usize> CoreLogic for NicCore<FB, EW, WindowEngine<FB>> {
    core_logic!();
}

impl<const FB: usize, const EW: usize> CoreLogic for NicCore<FB, EW, WindowEngineSeq<FB>> {
    core_logic!(in_ready);
}

ldcp_sim::nic_core_ports!(crate::hand_stepped {
    NicCore<FB, EW, WindowEngine<FB>> [const FB: usize, const EW: usize],
    ldcp_sim::nic_core::NicCoreIn,
    ldcp_sim::nic_core::NicCoreOut
});

ldcp_sim::nic_core_ports!(crate::hand_stepped {
    NicCore<FB, EW, WindowEngineSeq<FB>> [const FB: usize, const EW: usize],
    ldcp_sim::nic_core::NicCoreIn,
    ldcp_sim::nic_core::NicCoreOut
});

/// The NIC core in RustHDL's simulator, stepped by hand.
pub type NicCoreRustHdl = crate::stepper::RustHdlSim<NicCoreIce40>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::cosim::CosimModel;
    use ldcp_sim::nic_core::{stimulus, NicCoreIn, NicCoreModel};

    #[test]
    fn nic_core_rusthdl_simulation_matches_model() {
        let mut sim = NicCoreRustHdl::new();
        let mut m = NicCoreModel::new(0, true);
        for (c, b) in stimulus(11).take(1_500).map(NicCoreIn::from).enumerate() {
            let o = sim.step(&b).expect("RustHDL settles");
            CosimModel::tick(&mut m, &b);
            assert_eq!(o, CosimModel::outputs(&m), "cycle {c}, inputs {b:?}");
        }
    }

    /// The core with the sequential engine, against its model: the reset
    /// sweep, bus commands and events waiting for the engine.
    #[test]
    fn nic_core_seq_rusthdl_simulation_matches_model() {
        let mut sim = crate::stepper::RustHdlSim::<NicCoreSeqIce40>::new();
        let mut m = NicCoreModel::sized_seq(8, 0, true);
        for (c, b) in stimulus(12).take(3_000).map(NicCoreIn::from).enumerate() {
            let o = sim.step(&b).expect("RustHDL settles");
            CosimModel::tick(&mut m, &b);
            assert_eq!(o, CosimModel::outputs(&m), "cycle {c}, inputs {b:?}");
        }
        assert!(m.stats().updates > 20, "{:?}", m.stats());
    }
}
