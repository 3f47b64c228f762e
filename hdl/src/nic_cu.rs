//! `NicCu`: the whole LDCP NIC for the Alchitry Cu (iCE40-HX8K): the NIC
//! core with the sequential window engine ([`crate::nic_core::NicCoreSeqIce40`]'s
//! core), the sequential pacing timer ([`crate::pacing_timer_seq`]), fast-start
//! marker ([`crate::fast_start_marker_seq`]) and ACK generator
//! ([`crate::ack_generator_seq`]) and the on-chip loopback, behind the
//! same register map as [`crate::nic_system::NicSystem`] (CAPS.EXT = 1,
//! BLOCKS = `ldcp_regmap::BLOCKS_NIC_CU`: no WRED/ECN port, which belongs to
//! a switch; its decoder, [`crate::ext_regfile_cu::ExtRegFileCu`], holds
//! only the registers `ldcp_regmap::decoded_by` gives this build, so the
//! port's offsets read as 0 and ignore writes, and the port's observation
//! outputs are 0; nor the core's event generator, whose GEN_* registers
//! the core's decoder leaves undecoded for this BLOCKS, so yosys drops the
//! generator: the loopback is this NIC's traffic source).
//!
//! Registers, slots, result registers, counters, the pacing timer's glue,
//! resets and the sender's table behave as in `NicSystem` (its module doc);
//! FS_RESULT* and AG_ACK* are the marker's and the generator's own output
//! registers, which hold their last result (`NicSystem` copies them).
//! What differs follows from blocks that take one event at a time (the
//! engine one per 7 to 27 cycles, the marker one per 7, the generator one
//! op per 4, the pacing timer an update within 5 cycles and a visit per 2
//! to 6), where `NicSystem`'s take one per cycle. The engine's updates
//! reach the timer at least 7 cycles apart, so it takes every one (its
//! `in_ready` is low only in its sweep, when the core's sweep waits for
//! it, or while an update waits).
//!
//!
//! # The fast-start hand-off
//! A marker result with SET loads the hand-off register (flow, window),
//! which offers the SET to the core (`sys_set_valid`) until the core takes
//! it (`sys_set_ready`). The marker takes no event while the register is
//! full or being filled, so a second SET never finds it full.
//!
//! # The marker's port
//! The marker takes an event when it is ready, no hand-off is held or
//! being filled, and the core does not sweep; by priority:
//! 1. the slot (FS_EV, a flow reset);
//! 2. the head of the **ACK queue**: every ACK or NAK the ACK generator
//!    returns in loopback enters it ([`LOOP_ACK_QUEUE`] entries, flip-flops),
//!    besides going to the core's FIFO and the sender's table as in
//!    `NicSystem`. One that finds the queue full (and not emptying that
//!    cycle) reaches the engine and the sender, but not the marker: it is
//!    counted in LOOP_LOST (the marker's ACK rules are cumulative, so a
//!    later ACK covers a lost one; a lost NAK leaves the flow in fast start
//!    until an ACK covers its burst);
//! 3. the sender's **send register**: a packet the sender decided to send
//!    waits there until the marker takes it, and only while the receive
//!    register is empty and no loop packet is leaving the marker, so a
//!    packet leaving the marker always finds the receive register empty.
//!
//! The marker's result for a loop packet (a flag set at its take: one
//! event is in the marker at a time) goes to the **receive register**
//! (CE if the marker's codepoint is CE), in front of the ACK generator
//! behind its AG_EV slot, as `NicSystem`'s receive queue; no port sits
//! between them, so no packet is dropped or marked on chip.
//!
//! # The sender
//! As `NicSystem`'s (the same table, ops and decision), except that a
//! visit is issued only while no other visit is in the table's stages and
//! the send register is empty: a send decided is then always taken into
//! the send register; and only while the core's event FIFO holds fewer
//! than [`LOOP_FIFO_LIMIT`] events, so the loop runs at the pace of the
//! sequential engine (an ACK per 7 to 27 cycles) rather than filling the
//! FIFO (a FIFO overflow, counted in CNT_DROPPED, then needs more than
//! that limit of ACKs returned after a visit: 256 - 32 flows each holding
//! a delayed ACK that the generator flushes at once, or software pushing
//! EV_PUSH into the loop's FIFO). ACK and grant ops still enter every
//! cycle.
//! LOOP_STATUS.IN_PIPE counts packets sent and not yet taken by the
//! receiver (at most 3: the send register, the marker, the receive
//! register).
//!
//! A visit is also not issued right behind an op of its flow (the op in
//! s1), so no op writes a visit's entry at the edge between its s2 and
//! s3: its state in s2 is the one the table registers for s3 (`p_state`,
//! or `z_state`, the write of the edge before). From it s2 registers what
//! the decision needs of the entry: the packets in flight (next PSN -
//! acknowledged) are nonzero, fewer than the window (or, below one packet,
//! a credit and none in flight), and the entry's age at s3. So the s3
//! decision, whose write-back of the entry is the table's one-cycle loop,
//! holds a compare of registers (the age against LOOP_RTO) where it held
//! two subtractions and two compares of the entry. The count in flight
//! takes the low [`ldcp_sim::nic_system::LOOP_WINDOW_BITS`] bits, which
//! are the whole count: a flow never has more in flight than the widest
//! window.
//!
//! # Block RAM reads during a write
//! Eleven of the Cu NIC's thirteen RAMs are never used for what a read
//! returns when the same address is written at that edge (their blocks
//! forward the newer word themselves, or drop the read; two are the
//! counter bank's). They are declared `no_rw_check`
//! ([`crate::verilog::no_rw_check`]): yosys leaves that read undefined
//! rather than building Verilog's old word around each iCE40 block RAM (a
//! register and a multiplexer per bit: about 370 logic cells for the nine
//! tables). The cosimulation returns poison for it
//! ([`ldcp_sim::cosim::rams`]), so a block that used it would mismatch its
//! model. The other two ([`OLD_WORD_RAMS`]) use the old word.
//!
//! # Counters
//! The eleven extension counters ([`BANK_COUNTERS`]) are a
//! [`crate::counter_bank::CounterBank`]: block RAM words read exactly, a
//! cycle after the bus address as a flip-flop counter's (the decoder's
//! eleven count inputs all take the bank's one word).

use crate::ack_generator_seq::AckGeneratorSeq;
use crate::counter_bank::{CounterBank, IB};
use crate::ext_regfile_cu::ExtRegFileCu;
use crate::fast_start_marker_seq::FastStartMarkerSeq;
use crate::nic_core::{BuildId, NicCore, EW_ICE40, FB_ICE40, PUSH_BITS};
use crate::pacing_timer_seq::PacingTimerSeq;
use crate::table_sweep::TableSweep;
use crate::window_engine_seq::WindowEngineSeq;
use rust_hdl::prelude::*;

/// The Cu build: 256 flows.
pub type NicCuIce40 = NicCu<FB_ICE40, EW_ICE40>;
/// The map's flow fields.
const MAP_FB: usize = ldcp_regmap::FLOW_FIELD_BITS as usize;
/// LOOP_CTRL.FLOWS (up to 2^MAP_FB).
const FLOWS_FIELD: usize = MAP_FB + 1;
pub use ldcp_sim::nic_cu::{LOOP_ACK_QUEUE, LOOP_FIFO_LIMIT};
const AQ: usize = LOOP_ACK_QUEUE;
/// The sender's packets in flight (module doc, The sender).
const LW: usize = ldcp_sim::nic_system::LOOP_WINDOW_BITS;
const _: () = assert!(
    AQ >= 3,
    "the queue's write select has a first, middle and last entry"
);
use ldcp_sim::nic_system::LOOP_RX_DEPTH;
// the hand-off's packets -> UQ12.20 is a literal shift of a 12-bit count
const _: () = assert!(
    ldcp_sim::fast_start_marker::COUNT_BITS == 12 && ldcp_sim::window_engine::CW_FRAC_BITS == 20
);

/// The extension counters the Cu NIC keeps in its counter bank
/// ([`crate::counter_bank`]), by bank index.
pub const BANK_COUNTERS: [&str; 11] = [
    "PT_GRANTS",
    "FS_EVENTS",
    "FS_ERRORS",
    "AG_ACKS",
    "AG_NAKS",
    "AG_ERRORS",
    "LOOP_SENT",
    "LOOP_DELIVERED",
    "LOOP_REWINDS",
    "LOOP_TIMEOUTS",
    "LOOP_LOST",
];
const NCNT: usize = BANK_COUNTERS.len();

/// Bank counter `k`'s register, as a bus word address (byte offset / 4).
fn bank_word(k: usize) -> u64 {
    let r = ldcp_regmap::register(BANK_COUNTERS[k])
        .unwrap_or_else(|| panic!("no register {}", BANK_COUNTERS[k]));
    assert!(r.is_counter(), "{} is not a counter", r.name);
    u64::from(r.offset >> 2)
}

/// The Cu NIC (see the module doc) with 2^`FB` flows; `EW` is its core's
/// FIFO word (FB + 5, asserted by the core).
#[derive(LogicBlock)]
pub struct NicCu<const FB: usize, const EW: usize> {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Byte address of the register bus.
    pub bus_addr: Signal<In, Bits<12>>,
    /// Write data.
    pub bus_wdata: Signal<In, Bits<32>>,
    /// Write strobe.
    pub bus_we: Signal<In, Bit>,
    /// Read strobe.
    pub bus_re: Signal<In, Bit>,
    /// Read data, valid with `bus_rvalid`.
    pub bus_rdata: Signal<Out, Bits<32>>,
    /// A read's data is on `bus_rdata`.
    pub bus_rvalid: Signal<Out, Bit>,
    // ---- observation (as NicSystem's: the blocks' registered outputs)
    /// The pacing timer grants a send credit.
    pub obs_pt_out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub obs_pt_out_flow: Signal<Out, Bits<16>>,
    /// The ACK generator sends an ACK (or NAK).
    pub obs_ag_out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub obs_ag_out_flow: Signal<Out, Bits<16>>,
    /// Its PSN.
    pub obs_ag_out_psn: Signal<Out, Bits<24>>,
    /// Its n.
    pub obs_ag_out_n_pkts: Signal<Out, Bits<4>>,
    /// Its ECE.
    pub obs_ag_out_ece: Signal<Out, Bit>,
    /// A NAK.
    pub obs_ag_out_nak: Signal<Out, Bit>,
    /// The pacing timer refused an update's flow id (never).
    pub obs_pt_stat_err_flow_strobe: Signal<Out, Bit>,
    /// The fast-start marker has a result.
    pub obs_fs_out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub obs_fs_out_flow: Signal<Out, Bits<16>>,
    /// Its error.
    pub obs_fs_out_err: Signal<Out, Bits<2>>,
    /// Its ECN codepoint.
    pub obs_fs_out_ecn: Signal<Out, Bits<2>>,
    /// Its checksum.
    pub obs_fs_out_csum: Signal<Out, Bits<16>>,
    /// No WRED/ECN port on this NIC: 0.
    pub obs_wred_out_valid: Signal<Out, Bit>,
    /// No WRED/ECN port on this NIC: 0.
    pub obs_wred_out_decision: Signal<Out, Bits<2>>,
    core: NicCore<FB, EW, WindowEngineSeq<FB>>,
    xregs: ExtRegFileCu,
    pt: PacingTimerSeq<FB>,
    fs: FastStartMarkerSeq<FB>,
    ag: AckGeneratorSeq<FB>,
    one24: Constant<Bits<24>>,
    one16: Constant<Bits<16>>,
    one_fb: Constant<Bits<FB>>,
    one6: Constant<Bits<6>>,
    last_fb: Constant<Bits<FB>>,
    rx_depth: Constant<Bits<6>>,
    fifo_limit: Constant<Bits<9>>,
    c_bit64: Constant<Bits<65>>,
    c_all_flows: Constant<Bits<FLOWS_FIELD>>,
    kind_reset: Constant<Bits<2>>,
    ag_ece_bits: Signal<Local, Bits<1>>,
    // local decisions
    fs_req: Signal<Local, Bit>,
    fs_free: Signal<Local, Bit>,
    fs_take: Signal<Local, Bit>,
    aq_take: Signal<Local, Bit>,
    tx_take: Signal<Local, Bit>,
    ag_req: Signal<Local, Bit>,
    ag_take: Signal<Local, Bit>,
    // slots
    fs_pend: DFF<Bit>,
    fs_kind: DFF<Bits<2>>,
    fs_flow: DFF<Bits<FB>>,
    fs_last: DFF<Bit>,
    fs_psn: DFF<Bits<24>>,
    fs_word0: DFF<Bits<16>>,
    fs_csum: DFF<Bits<16>>,
    ag_pend: DFF<Bit>,
    ag_kind: DFF<Bit>,
    ag_flow: DFF<Bits<FB>>,
    ag_ce: DFF<Bit>,
    ag_last: DFF<Bit>,
    ag_psn: DFF<Bits<24>>,
    fs_ovr: DFF<Bits<1>>,
    ag_ovr: DFF<Bits<1>>,
    // the hand-off register
    set_pend: DFF<Bit>,
    set_flow: DFF<Bits<FB>>,
    set_cw: DFF<Bits<12>>,
    // results and counters
    pt_last_flow: DFF<Bits<FB>>,
    pt_last_late: DFF<Bits<16>>,
    pt_max_late: DFF<Bits<16>>,
    ag_err: DFF<Bits<2>>,
    /// the eleven extension counters ([`BANK_COUNTERS`])
    cnt: CounterBank<NCNT>,
    cnt_word: [Constant<Bits<10>>; NCNT],
    cnt_idx: [Constant<Bits<IB>>; NCNT],
    i_pt_grants: Signal<Local, Bits<1>>,
    i_fs_events: Signal<Local, Bits<1>>,
    i_fs_errors: Signal<Local, Bits<1>>,
    i_ag_acks: Signal<Local, Bits<1>>,
    i_ag_naks: Signal<Local, Bits<1>>,
    i_ag_errors: Signal<Local, Bits<1>>,
    i_lp_sent: Signal<Local, Bits<1>>,
    i_lp_deliv: Signal<Local, Bits<1>>,
    i_lp_rew: Signal<Local, Bits<1>>,
    i_lp_tmo: Signal<Local, Bits<1>>,
    i_lp_lost: Signal<Local, Bits<1>>,
    // ---- the loopback (see the module doc)
    lts: TableSweep<FB, 65>,
    lt_ram: RAM<Bits<65>, FB>,
    lw_ram: RAM<Bits<12>, FB>,
    lp_ptr: DFF<Bits<FB>>,
    lp_t: DFF<Bits<16>>,
    lp_s1_v: DFF<Bit>,
    lp_s1_kind: DFF<Bits<3>>,
    lp_g_pend: DFF<Bit>,
    lp_g_flow: DFF<Bits<FB>>,
    lp_s1_psn: DFF<Bits<24>>,
    lp_tx_v: DFF<Bit>,
    lp_tx_flow: DFF<Bits<FB>>,
    lp_tx_psn: DFF<Bits<24>>,
    lp_s2_v: DFF<Bit>,
    lp_s2_kind: DFF<Bits<3>>,
    lp_s2_psn: DFF<Bits<24>>,
    lp_s2_lw: DFF<Bits<12>>,
    lp_s2_idx: DFF<Bits<FB>>,
    lp_s3_v: DFF<Bit>,
    lp_s3_kind: DFF<Bits<3>>,
    lp_s3_psn: DFF<Bits<24>>,
    lp_s3_lw: DFF<Bits<12>>,
    lp_s3_idx: DFF<Bits<FB>>,
    /// a visit's decision inputs, registered in s2 (module doc, The
    /// sender): packets in flight, fewer than the window (or a credit and
    /// none), the entry's age at s3; only a visit (kind 0) reads them
    lp_s3_busy: DFF<Bit>,
    lp_s3_may: DFF<Bit>,
    lp_s3_age: DFF<Bits<16>>,
    /// the marker's event is a loop packet
    fs_lp: DFF<Bit>,
    rx_v: DFF<Bit>,
    rx_flow: DFF<Bits<FB>>,
    rx_psn: DFF<Bits<24>>,
    rx_ce: DFF<Bit>,
    lp_pipe: DFF<Bits<6>>,
    aq_v: [DFF<Bit>; AQ],
    aq_flow: [DFF<Bits<FB>>; AQ],
    aq_psn: [DFF<Bits<24>>; AQ],
    aq_nak: [DFF<Bit>; AQ],
    aq_pop: Signal<Local, Bit>,
    aq_push: Signal<Local, Bit>,
    aq_full: Signal<Local, Bit>,
    lp_loopback: Signal<Local, Bit>,
    lp_send: Signal<Local, Bit>,
    lp_last: Signal<Local, Bits<FB>>,
    lp_sel_ack: Signal<Local, Bit>,
    lp_vis_busy: Signal<Local, Bit>,
    lp_visit: Signal<Local, Bit>,
    lp_op_v: Signal<Local, Bit>,
    lp_nx: Signal<Local, Bits<24>>,
    lp_ak: Signal<Local, Bits<24>>,
    lp_stamp: Signal<Local, Bits<16>>,
    lp_src_nx: Signal<Local, Bits<LW>>,
    lp_src_ak: Signal<Local, Bits<LW>>,
    lp_src_st: Signal<Local, Bits<16>>,
    lp_src_cr: Signal<Local, Bit>,
    lp_i2: Signal<Local, Bits<LW>>,
    lp_tn: Signal<Local, Bits<16>>,
    /// packets in flight (next != acked), as s2 registered it
    lp_busy: Signal<Local, Bit>,
    lp_age: Signal<Local, Bits<16>>,
    lp_adv: Signal<Local, Bits<24>>,
    lp_past: Signal<Local, Bits<24>>,
    lp_ws: Signal<Local, Bits<64>>,
    lp_ws_nx: Signal<Local, Bits<24>>,
    lp_ws_ak: Signal<Local, Bits<24>>,
    lp_ws_st: Signal<Local, Bits<16>>,
    lp_wc: Signal<Local, Bit>,
    lp_credit: Signal<Local, Bit>,
    lp_may: Signal<Local, Bit>,
    lp_sel_grant: Signal<Local, Bit>,
    lp_g_cand: Signal<Local, Bit>,
    lp_g_fl: Signal<Local, Bits<FB>>,
    lp_cr65: Signal<Local, Bits<65>>,
    lp_tx: Signal<Local, Bit>,
    lp_rewind: Signal<Local, Bit>,
    lp_timeout: Signal<Local, Bit>,
    lp_pkt: Signal<Local, Bit>,
    rx_take: Signal<Local, Bit>,
    lp_pipe_p0: Signal<Local, Bits<6>>,
    lp_pipe_p1: Signal<Local, Bits<6>>,
    lp_nx1: Signal<Local, Bits<24>>,
    lp_flows: Signal<Local, Bits<FLOWS_FIELD>>,
}

impl<const FB: usize, const EW: usize> NicCu<FB, EW> {
    /// A Cu NIC reporting `build` in GIT_HASH and CAPS.DIRTY.
    pub fn new(build: BuildId) -> Self {
        with_defaults!(
            core: NicCore::with_blocks(build, ldcp_regmap::BLOCKS_NIC_CU),
            one24: Constant::new(bits::<24>(1)),
            one16: Constant::new(bits::<16>(1)),
            one_fb: Constant::new(bits::<FB>(1)),
            one6: Constant::new(bits::<6>(1)),
            last_fb: Constant::new(bits::<FB>((1 << FB) - 1)),
            rx_depth: Constant::new(bits::<6>(LOOP_RX_DEPTH as u64)),
            fifo_limit: Constant::new(bits::<9>(LOOP_FIFO_LIMIT as u64)),
            c_bit64: Constant::new(Bits::<65>::from(1u64) << 64),
            c_all_flows: Constant::new(bits::<FLOWS_FIELD>(1 << FB)),
            kind_reset: Constant::new(bits::<2>(3)),
            lts: TableSweep::deep(),
            cnt: CounterBank::new(),
            cnt_word: std::array::from_fn(|k| Constant::new(bits::<10>(bank_word(k)))),
            cnt_idx: std::array::from_fn(|k| Constant::new(bits::<IB>(k as u64))),
            lt_ram: RAM::from((0..1usize << FB).map(|_| Bits::<65>::from(0u64))),
            // every flow's window at configuration is 1.0, as the engine's table
            lw_ram: RAM::from((0..1usize << FB).map(|_| Bits::<12>::from(1u64))),
            ;
            clock, bus_addr, bus_wdata, bus_we, bus_re, bus_rdata, bus_rvalid,
            obs_pt_out_valid, obs_pt_out_flow, obs_ag_out_valid, obs_ag_out_flow,
            obs_ag_out_psn, obs_ag_out_n_pkts, obs_ag_out_ece, obs_ag_out_nak,
            obs_pt_stat_err_flow_strobe, obs_fs_out_valid, obs_fs_out_flow,
            obs_fs_out_err, obs_fs_out_ecn, obs_fs_out_csum, obs_wred_out_valid,
            obs_wred_out_decision, xregs, pt, fs, ag, ag_ece_bits, fs_req, fs_free,
            fs_take, aq_take, tx_take, ag_req, ag_take, fs_pend, fs_kind, fs_flow,
            fs_last, fs_psn, fs_word0, fs_csum, ag_pend, ag_kind, ag_flow, ag_ce,
            ag_last, ag_psn, fs_ovr, ag_ovr, set_pend, set_flow, set_cw,
            pt_last_flow, pt_last_late, pt_max_late, ag_err, lp_ptr, lp_t,
            lp_s1_v, lp_s1_kind, lp_g_pend, lp_g_flow, lp_s1_psn, lp_tx_v, lp_tx_flow,
            lp_tx_psn, lp_s2_v, lp_s2_kind, lp_s2_psn, lp_s2_lw, lp_s2_idx, lp_s3_v,
            lp_s3_kind, lp_s3_psn, lp_s3_lw, lp_s3_idx, lp_s3_busy, lp_s3_may, lp_s3_age, fs_lp, rx_v, rx_flow, rx_psn,
            rx_ce, lp_pipe, aq_v, aq_flow,
            aq_psn, aq_nak, aq_pop, aq_push, aq_full, lp_loopback, lp_send, lp_last,
            lp_sel_ack, lp_vis_busy, lp_visit, lp_op_v, lp_nx, lp_ak, lp_stamp,
            lp_src_nx, lp_src_ak, lp_src_st, lp_src_cr, lp_i2, lp_tn, lp_busy, lp_age, lp_adv, lp_past, lp_ws, lp_ws_nx, lp_ws_ak, lp_ws_st, lp_wc, lp_credit, lp_may,
            lp_sel_grant, lp_g_cand, lp_g_fl, lp_cr65, lp_tx, lp_rewind, lp_timeout,
            lp_pkt, rx_take, lp_pipe_p0, lp_pipe_p1, lp_nx1, lp_flows,
            i_pt_grants, i_fs_events, i_fs_errors, i_ag_acks, i_ag_naks, i_ag_errors, i_lp_sent, i_lp_deliv, i_lp_rew, i_lp_tmo, i_lp_lost,
        )
    }
}

impl<const FB: usize, const EW: usize> Default for NicCu<FB, EW> {
    /// A Cu NIC reporting GIT_HASH 0 with CAPS.DIRTY set (tests, benches).
    fn default() -> Self {
        NicCu::new(BuildId::UNSTAMPED)
    }
}

/// Open in the Cu build: of the sender's table (TableSweep's deep form)
/// it reads `state` and, of the s2 sources (a visit's decision inputs),
/// only the low LOOP_WINDOW_BITS of the PSNs, the stamp and the credit;
/// not `fwd` (no op writes a visit's entry between its s2 and s3); the
/// 256-flow build ignores the flow fields' bits 11..8; and LOOP_LEN (the
/// loop packets' length, which only a WRED/ECN port reads) drives nothing.
const CU_OPEN: [&str; 9] = [
    "xregs$fs_ev_flow",
    "xregs$ag_ev_flow",
    "lts$s1_oor",
    "lts$upd_oor",
    "lts$p_state",
    "lts$z_state",
    "lts$fwd",
    "lts$sweep_ptr",
    "xregs$loop_len_bytes",
];

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "nic_cu",
    doc: "the LDCP NIC for the Alchitry Cu: the NIC core with the sequential window engine, the sequential pacing timer, fast-start marker and ACK generator and the on-chip loopback behind the extension registers of docs/regmap.md (256 flows; no WRED/ECN port)",
    open: &CU_OPEN,
    subs: &[
        &crate::nic_core::MODULE_SEQ,
        &crate::fast_start_marker_seq::MODULE,
        &crate::pacing_timer_seq::MODULE,
        &crate::ack_generator_seq::MODULE,
    ],
};

/// The Cu NIC's RAMs (module names' ends) whose block uses the old word a
/// read returns when the same address is written at that edge, so yosys
/// keeps building it: the ACK generator's scanner reads its table C
/// while an op writes it, and the sender reads a flow's last window
/// while the core writes it (the models read the old word).
pub const OLD_WORD_RAMS: [&str; 2] = ["$ag$t_c", "$lw_ram"];

/// `v` (the Cu NIC's Verilog, alone or inside a board core) with every
/// RAM but [`OLD_WORD_RAMS`] declared `no_rw_check` (the module doc).
pub(crate) fn mark_rams(v: &str) -> String {
    crate::verilog::no_rw_check(v, &OLD_WORD_RAMS).0
}

/// The Cu NIC's finalized Verilog (module [`MODULE`]), stamped with
/// `build`; every sub-block input the top drives is marked
/// `isolate_assignments`, as `NicSystem`'s, and every block RAM but
/// [`OLD_WORD_RAMS`] `no_rw_check` (the module doc).
pub fn verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(NicCuIce40::new(build))
        .map(|v| {
            mark_rams(&crate::verilog::isolate_table_inputs(
                &crate::verilog::isolate_sub_inputs(&v),
            ))
        })
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, MODULE.name, MODULE.doc, &MODULE.open_all())
}

impl<const FB: usize, const EW: usize> Logic for NicCu<FB, EW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            fs_pend,
            fs_kind,
            fs_flow,
            fs_last,
            fs_psn,
            fs_word0,
            fs_csum,
            ag_pend,
            ag_kind,
            ag_flow,
            ag_ce,
            ag_last,
            ag_psn,
            fs_ovr,
            ag_ovr,
            set_pend,
            set_flow,
            set_cw,
            pt_last_flow,
            pt_last_late,
            pt_max_late,
            ag_err,
            lp_ptr,
            lp_t,
            lp_s1_v,
            lp_s1_kind,
            lp_g_pend,
            lp_g_flow,
            lp_s1_psn,
            lp_tx_v,
            lp_tx_flow,
            lp_tx_psn,
            lp_s2_v,
            lp_s2_kind,
            lp_s2_psn,
            lp_s2_lw,
            lp_s2_idx,
            lp_s3_v,
            lp_s3_kind,
            lp_s3_psn,
            lp_s3_lw,
            lp_s3_idx,
            lp_s3_busy,
            lp_s3_may,
            lp_s3_age,
            fs_lp,
            rx_v,
            rx_flow,
            rx_psn,
            rx_ce,
            lp_pipe
        );
        self.lts.clock.next = self.clock.val();
        self.lt_ram.read_clock.next = self.clock.val();
        self.lt_ram.write_clock.next = self.clock.val();
        self.lw_ram.read_clock.next = self.clock.val();
        self.lw_ram.write_clock.next = self.clock.val();
        for i in 0..AQ {
            self.aq_v[i].clock.next = self.clock.val();
            self.aq_flow[i].clock.next = self.clock.val();
            self.aq_psn[i].clock.next = self.clock.val();
            self.aq_nak[i].clock.next = self.clock.val();
            self.aq_v[i].d.next = self.aq_v[i].q.val();
            self.aq_flow[i].d.next = self.aq_flow[i].q.val();
            self.aq_psn[i].d.next = self.aq_psn[i].q.val();
            self.aq_nak[i].d.next = self.aq_nak[i].q.val();
        }
        self.core.clock.next = self.clock.val();
        self.xregs.clock.next = self.clock.val();
        self.pt.clock.next = self.clock.val();
        self.fs.clock.next = self.clock.val();
        self.ag.clock.next = self.clock.val();
        self.cnt.clock.next = self.clock.val();
        self.i_pt_grants.next = bits::<1>(0);
        self.i_fs_events.next = bits::<1>(0);
        self.i_fs_errors.next = bits::<1>(0);
        self.i_ag_acks.next = bits::<1>(0);
        self.i_ag_naks.next = bits::<1>(0);
        self.i_ag_errors.next = bits::<1>(0);
        self.i_lp_sent.next = bits::<1>(0);
        self.i_lp_deliv.next = bits::<1>(0);
        self.i_lp_rew.next = bits::<1>(0);
        self.i_lp_tmo.next = bits::<1>(0);
        self.i_lp_lost.next = bits::<1>(0);

        // ---- the bus: both decoders see every cycle; each reads 0 outside its range
        self.core.bus_addr.next = self.bus_addr.val();
        self.core.bus_wdata.next = self.bus_wdata.val();
        self.core.bus_we.next = self.bus_we.val();
        self.core.bus_re.next = self.bus_re.val();
        self.xregs.bus_addr.next = self.bus_addr.val();
        self.xregs.bus_wdata.next = self.bus_wdata.val();
        self.xregs.bus_we.next = self.bus_we.val();
        self.xregs.bus_re.next = self.bus_re.val();
        self.bus_rdata.next = self.core.bus_rdata.val() | self.xregs.bus_rdata.val();
        self.bus_rvalid.next = self.core.bus_rvalid.val() | self.xregs.bus_rvalid.val();
        self.xregs.reset.next = self.core.sys_core_rst.val();

        // ---- pacing timer: the engine's updates; the core's sweep waits for the timer's
        self.pt.reset.next = self.core.sys_core_rst.val();
        self.pt.in_valid.next = self.core.sys_upd_valid.val();
        self.pt.in_restart.next = self.core.sys_upd_restart.val();
        self.pt.in_flow.next = bit_cast::<16, FB>(self.core.sys_upd_flow.val());
        self.pt.in_interval_cycles.next = self.core.sys_upd_interval_ticks.val();
        self.core.sys_sweep_hold.next = !self.pt.in_ready.val();
        if self.pt.out_valid.val() {
            self.i_pt_grants.next = bits::<1>(1);
            self.pt_last_flow.d.next = self.pt.out_flow.val().get_bits::<FB>(0);
            self.pt_last_late.d.next = self.pt.out_late_cycles.val();
            if self.pt.out_late_cycles.val() > self.pt_max_late.q.val() {
                self.pt_max_late.d.next = self.pt.out_late_cycles.val();
            }
        }
        self.xregs.pt_grants_count.next = self.cnt.value.val();
        self.xregs.pt_last_flow.next = bit_cast::<MAP_FB, FB>(self.pt_last_flow.q.val());
        self.xregs.pt_last_late.next = self.pt_last_late.q.val();
        self.xregs.pt_max_late_late.next = self.pt_max_late.q.val();

        // ---- the fast-start hand-off: held until the core takes it
        self.core.sys_set_valid.next = self.set_pend.q.val();
        self.core.sys_set_flow.next = self.set_flow.q.val();
        self.core.sys_set_cw.next = bit_cast::<32, 12>(self.set_cw.q.val()) << 20;
        if self.core.sys_set_ready.val() {
            self.set_pend.d.next = false;
        }
        if self.fs.out_valid.val() & self.fs.out_set.val() {
            self.set_pend.d.next = true;
            self.set_flow.d.next = self.fs.out_flow.val().get_bits::<FB>(0);
            self.set_cw.d.next = self.fs.out_cw_pkts.val();
        }

        // ---- the loopback: the sender's op (a flow reset, a returned ACK,
        // a pacing grant, or a visit of the next flow)
        self.lp_loopback.next = self.xregs.loop_ctrl_loopback.val().any();
        self.lp_send.next = self.xregs.loop_ctrl_send.val().any();
        self.lp_flows.next = self.xregs.loop_ctrl_flows.val();
        self.lp_last.next = self.lp_flows.val().get_bits::<FB>(0) - self.one_fb.val();
        if !self.lp_flows.val().any() {
            self.lp_last.next = bits::<FB>(0);
        }
        if self.lp_flows.val() >= self.c_all_flows.val() {
            self.lp_last.next = self.last_fb.val();
        }
        self.lp_sel_ack.next = self.lp_loopback.val() & self.ag.out_valid.val();
        self.lp_g_cand.next = self.lp_g_pend.q.val() | self.pt.out_valid.val();
        self.lp_g_fl.next = self.pt.out_flow.val().get_bits::<FB>(0);
        if self.lp_g_pend.q.val() {
            self.lp_g_fl.next = self.lp_g_flow.q.val();
        }
        self.lp_sel_grant.next = self.lp_loopback.val()
            & self.lp_g_cand.val()
            & !self.core.sys_flow_reset.val()
            & !self.lp_sel_ack.val()
            & !self.lts.sweeping.val();
        // one visit at a time: none in the table's stages, none waiting to
        // send; and none right behind an op of its flow (module doc)
        self.lp_vis_busy.next = (self.lp_s1_v.q.val() & !self.lp_s1_kind.q.val().any())
            | (self.lp_s1_v.q.val() & (self.lts.s1_idx.val() == self.lp_ptr.q.val()))
            | (self.lp_s2_v.q.val() & !self.lp_s2_kind.q.val().any())
            | (self.lp_s3_v.q.val() & !self.lp_s3_kind.q.val().any())
            | self.lp_tx_v.q.val();
        self.lp_visit.next = self.lp_loopback.val()
            & self.lp_send.val()
            & !self.core.sys_flow_reset.val()
            & !self.lp_sel_ack.val()
            & !self.lp_sel_grant.val()
            & !self.fs_pend.q.val()
            & !self.core.sys_sweeping.val()
            & !self.lp_vis_busy.val()
            & (self.core.sys_fifo_level.val() < self.fifo_limit.val());
        self.lp_op_v.next = (self.core.sys_flow_reset.val()
            | self.lp_sel_ack.val()
            | self.lp_sel_grant.val()
            | self.lp_visit.val())
            & !self.lts.sweeping.val()
            & !self.core.sys_core_rst.val();
        if self.lp_sel_grant.val() & self.lp_op_v.val() {
            self.lp_g_pend.d.next = self.lp_g_pend.q.val() & self.pt.out_valid.val();
            self.lp_g_flow.d.next = self.pt.out_flow.val().get_bits::<FB>(0);
        } else if !self.lp_g_pend.q.val() {
            self.lp_g_pend.d.next = self.lp_loopback.val() & self.pt.out_valid.val();
            self.lp_g_flow.d.next = self.pt.out_flow.val().get_bits::<FB>(0);
        }
        self.lts.reset.next = self.core.sys_core_rst.val();
        self.lts.op_internal.next = false;
        self.lts.op_entry.next = bits::<FB>(0);
        self.lts.op_flow.next = bit_cast::<16, FB>(self.lp_ptr.q.val());
        self.lp_s1_kind.d.next = bits::<3>(0);
        self.lp_s1_psn.d.next = bits::<24>(0);
        if self.lp_sel_ack.val() {
            self.lts.op_flow.next = bit_cast::<16, FB>(self.ag.out_flow.val().get_bits::<FB>(0));
            self.lp_s1_kind.d.next = bits::<3>(1);
            if self.ag.out_nak.val() {
                self.lp_s1_kind.d.next = bits::<3>(2);
            }
            self.lp_s1_psn.d.next = self.ag.out_psn.val();
        }
        if self.lp_sel_grant.val() {
            self.lts.op_flow.next = bit_cast::<16, FB>(self.lp_g_fl.val());
            self.lp_s1_kind.d.next = bits::<3>(4);
        }
        if self.core.sys_flow_reset.val() {
            self.lts.op_flow.next = bit_cast::<16, FB>(self.core.sys_flow_reset_id.val());
            self.lp_s1_kind.d.next = bits::<3>(3);
            self.lp_s1_psn.d.next = bits::<24>(0);
        }
        self.lp_s1_v.d.next = self.lp_op_v.val();
        if self.lp_visit.val() & self.lp_op_v.val() {
            self.lp_ptr.d.next = self.lp_ptr.q.val() + self.one_fb.val();
            if self.lp_ptr.q.val() >= self.lp_last.val() {
                self.lp_ptr.d.next = bits::<FB>(0);
            }
        }
        self.lp_tn.next = self.lp_t.q.val() + self.one16.val();
        self.lp_t.d.next = self.lp_tn.val();
        self.lt_ram.read_address.next = self.lts.rd_addr.val();
        self.lw_ram.read_address.next = self.lts.rd_addr.val();
        self.lts.rd_state.next = self.lt_ram.read_data.val();
        self.lt_ram.write_address.next = self.lts.wr_addr.val();
        self.lt_ram.write_data.next = self.lts.wr_data.val();
        self.lt_ram.write_enable.next = self.lts.wr_en.val();
        self.lw_ram.write_address.next = self.core.sys_upd_flow.val();
        self.lw_ram.write_data.next = self.core.sys_upd_cw_pkts.val();
        self.lw_ram.write_enable.next = self.core.sys_upd_valid.val();

        // ---- the op's stages: s1 (the table's read, the window's), s2, s3
        self.lts.pre_valid.next = self.lp_s2_v.q.val();
        self.lp_s2_v.d.next = self.lp_s1_v.q.val() & !self.core.sys_core_rst.val();
        self.lp_s2_kind.d.next = self.lp_s1_kind.q.val();
        self.lp_s2_psn.d.next = self.lp_s1_psn.q.val();
        self.lp_s2_lw.d.next = self.lw_ram.read_data.val();
        self.lp_s2_idx.d.next = self.lts.s1_idx.val();
        self.lp_s3_v.d.next = self.lp_s2_v.q.val() & !self.core.sys_core_rst.val();
        self.lp_s3_kind.d.next = self.lp_s2_kind.q.val();
        self.lp_s3_psn.d.next = self.lp_s2_psn.q.val();
        self.lp_s3_lw.d.next = self.lp_s2_lw.q.val();
        self.lp_s3_idx.d.next = self.lp_s2_idx.q.val();

        // ---- s2: a visit's decision inputs, from the state the table
        // registers for s3 (its `p_state`, or `z_state` written the cycle
        // before), a cycle ahead of the decision (module doc, The sender):
        // no op ahead of a visit writes its flow at the edge between
        self.lp_src_nx.next = self.lts.p_state.val().get_bits::<LW>(0);
        self.lp_src_ak.next = self.lts.p_state.val().get_bits::<LW>(24);
        self.lp_src_st.next = self.lts.p_state.val().get_bits::<16>(48);
        self.lp_src_cr.next = self.lts.p_state.val().get_bit(64);
        if self.lts.z_hit.val() {
            self.lp_src_nx.next = self.lts.z_state.val().get_bits::<LW>(0);
            self.lp_src_ak.next = self.lts.z_state.val().get_bits::<LW>(24);
            self.lp_src_st.next = self.lts.z_state.val().get_bits::<16>(48);
            self.lp_src_cr.next = self.lts.z_state.val().get_bit(64);
        }
        self.lp_i2.next = self.lp_src_nx.val() - self.lp_src_ak.val();
        self.lp_s3_busy.d.next = self.lp_i2.val().any();
        self.lp_s3_may.d.next = self.lp_i2.val() < self.lp_s2_lw.q.val();
        if !self.lp_s2_lw.q.val().any() {
            self.lp_s3_may.d.next = self.lp_src_cr.val() & !self.lp_i2.val().any();
        }
        self.lp_s3_age.d.next = self.lp_tn.val() - self.lp_src_st.val();

        // ---- the s3 op's decision (NicSystem's)
        self.lp_nx.next = self.lts.state.val().get_bits::<24>(0);
        self.lp_ak.next = self.lts.state.val().get_bits::<24>(24);
        self.lp_stamp.next = self.lts.state.val().get_bits::<16>(48);
        self.lp_busy.next = self.lp_s3_busy.q.val();
        self.lp_nx1.next = self.lp_nx.val() + self.one24.val();
        self.lp_age.next = self.lp_s3_age.q.val();
        self.lp_adv.next = self.lp_s3_psn.q.val() - self.lp_ak.val();
        self.lp_past.next = self.lp_s3_psn.q.val() - self.lp_nx.val();
        self.lp_credit.next = self.lts.state.val().get_bit(64);
        self.lp_wc.next = self.lp_credit.val();
        self.lp_may.next = self.lp_s3_may.q.val();
        // the entry written back, field by field (next | acked | stamp),
        // each a mux of its own few sources (NicSystem's decision)
        self.lp_ws_nx.next = self.lp_nx.val();
        self.lp_ws_ak.next = self.lp_ak.val();
        self.lp_ws_st.next = self.lp_stamp.val();
        self.lp_tx.next = false;
        self.lp_rewind.next = false;
        self.lp_timeout.next = false;
        if self.lp_s3_kind.q.val() == bits::<3>(0) {
            if self.lp_busy.val()
                & self.xregs.loop_rto_cycles.val().any()
                & (self.lp_age.val() >= self.xregs.loop_rto_cycles.val())
            {
                self.lp_rewind.next = true;
                self.lp_timeout.next = true;
                self.lp_ws_nx.next = self.lp_ak.val();
                self.lp_ws_st.next = self.lp_t.q.val();
            } else if self.lp_may.val() & (self.lp_pipe.q.val() < self.rx_depth.val()) {
                self.lp_tx.next = true;
                self.lp_wc.next = false;
                self.lp_ws_nx.next = self.lp_nx1.val();
                if !self.lp_busy.val() {
                    self.lp_ws_st.next = self.lp_t.q.val();
                }
            }
        }
        if (self.lp_s3_kind.q.val() == bits::<3>(1))
            & self.lp_adv.val().any()
            & !self.lp_adv.val().get_bit(23)
        {
            self.lp_ws_ak.next = self.lp_s3_psn.q.val();
            self.lp_ws_st.next = self.lp_t.q.val();
            if self.lp_past.val().any() & !self.lp_past.val().get_bit(23) {
                self.lp_ws_nx.next = self.lp_s3_psn.q.val();
            }
        }
        if (self.lp_s3_kind.q.val() == bits::<3>(2)) & !self.lp_adv.val().get_bit(23) {
            self.lp_ws_nx.next = self.lp_s3_psn.q.val();
            self.lp_ws_ak.next = self.lp_s3_psn.q.val();
            self.lp_ws_st.next = self.lp_t.q.val();
            self.lp_rewind.next = self.lp_nx.val() != self.lp_s3_psn.q.val();
        }
        if self.lp_s3_kind.q.val() == bits::<3>(3) {
            self.lp_ws_nx.next = bits::<24>(0);
            self.lp_ws_ak.next = bits::<24>(0);
            self.lp_ws_st.next = bits::<16>(0);
            self.lp_wc.next = false;
        }
        if self.lp_s3_kind.q.val() == bits::<3>(4) {
            self.lp_wc.next = true;
        }
        self.lp_ws.next = bit_cast::<64, 24>(self.lp_ws_nx.val())
            | (bit_cast::<64, 24>(self.lp_ws_ak.val()) << 24)
            | (bit_cast::<64, 16>(self.lp_ws_st.val()) << 48);
        self.lts.wr_valid.next = self.lp_s3_v.q.val();
        self.lp_cr65.next = bits::<65>(0);
        if self.lp_wc.val() {
            self.lp_cr65.next = self.c_bit64.val();
        }
        self.lts.wr_state.next = bit_cast::<65, 64>(self.lp_ws.val()) | self.lp_cr65.val();
        // a send waits in the send register until the marker takes it. A
        // visit is issued only while the register is empty and none is in
        // the stages, so a send always finds it empty: its flow and PSN
        // follow the s3 op while it is empty (read only while full), and
        // the decision drives only the valid bit
        if !self.lp_tx_v.q.val() {
            self.lp_tx_flow.d.next = self.lp_s3_idx.q.val();
            self.lp_tx_psn.d.next = self.lp_nx.val();
        }
        if self.lp_s3_v.q.val() & self.lp_tx.val() {
            self.lp_tx_v.d.next = true;
            self.i_lp_sent.next = bits::<1>(1);
        }
        if self.lp_s3_v.q.val() & self.lp_rewind.val() {
            self.i_lp_rew.next = bits::<1>(1);
        }
        if self.lp_s3_v.q.val() & self.lp_timeout.val() {
            self.i_lp_tmo.next = bits::<1>(1);
        }

        // ---- the returned ACK: to the engine's FIFO and the sender's
        // table now (above), to the marker through the ACK queue
        self.ag_ece_bits.next = bits::<1>(0);
        if self.ag.out_ece.val() {
            self.ag_ece_bits.next = bits::<1>(1);
        }
        self.core.sys_push_valid.next = self.lp_sel_ack.val();
        self.core.sys_push_event.next =
            bit_cast::<PUSH_BITS, FB>(self.ag.out_flow.val().get_bits::<FB>(0))
                | (bit_cast::<PUSH_BITS, 4>(self.ag.out_n_pkts.val()) << 12)
                | (bit_cast::<PUSH_BITS, 1>(self.ag_ece_bits.val()) << 16);

        // ---- fast-start marker: its port (module doc)
        self.fs.reset.next = self.core.sys_core_rst.val();
        self.fs.cfg_iw_pkts.next = self.xregs.fs_iw_pkts.val();
        self.fs_free.next = self.fs.in_ready.val()
            & !self.set_pend.q.val()
            & !(self.fs.out_valid.val() & self.fs.out_set.val())
            & !self.core.sys_sweeping.val();
        self.fs_take.next = self.fs_free.val() & self.fs_pend.q.val();
        self.aq_take.next = self.fs_free.val() & !self.fs_pend.q.val() & self.aq_v[0].q.val();
        self.tx_take.next = self.fs_free.val()
            & !self.fs_pend.q.val()
            & !self.aq_v[0].q.val()
            & self.lp_tx_v.q.val()
            & !self.rx_v.q.val()
            & !(self.fs.out_valid.val() & self.fs_lp.q.val());
        self.fs.in_valid.next = self.fs_take.val() | self.aq_take.val() | self.tx_take.val();
        self.fs.in_kind.next = self.fs_kind.q.val();
        self.fs.in_flow.next = bit_cast::<16, FB>(self.fs_flow.q.val());
        self.fs.in_psn.next = self.fs_psn.q.val();
        self.fs.in_last.next = self.fs_last.q.val();
        self.fs.in_word0.next = self.fs_word0.q.val();
        self.fs.in_csum.next = self.fs_csum.q.val();
        if !self.fs_pend.q.val() {
            self.fs.in_kind.next = bits::<2>(0);
            self.fs.in_flow.next = bit_cast::<16, FB>(self.lp_tx_flow.q.val());
            self.fs.in_psn.next = self.lp_tx_psn.q.val();
            self.fs.in_last.next = false;
            self.fs.in_word0.next = self.xregs.fs_hdr_word0.val();
            self.fs.in_csum.next = self.xregs.fs_hdr_csum.val();
            if self.aq_v[0].q.val() {
                self.fs.in_kind.next = bits::<2>(1);
                if self.aq_nak[0].q.val() {
                    self.fs.in_kind.next = bits::<2>(2);
                }
                self.fs.in_flow.next = bit_cast::<16, FB>(self.aq_flow[0].q.val());
                self.fs.in_psn.next = self.aq_psn[0].q.val();
            }
        }
        if self.fs.in_valid.val() {
            self.fs_lp.d.next = self.tx_take.val();
        }
        if self.tx_take.val() {
            self.lp_tx_v.d.next = false;
        }

        // ---- the ACK queue: a shift register, its head in entry 0
        self.aq_pop.next = self.aq_take.val();
        // (RustHDL names an index only as a loop's: `last` is AQ - 1)
        for last in (AQ - 1)..AQ {
            self.aq_full.next = self.aq_v[last].q.val();
        }
        self.aq_push.next = self.lp_sel_ack.val() & !(!self.aq_pop.val() & self.aq_full.val());
        if self.lp_sel_ack.val() & !self.aq_push.val() {
            self.i_lp_lost.next = bits::<1>(1);
        }
        if self.aq_pop.val() {
            for i in 0..(AQ - 1) {
                self.aq_v[i].d.next = self.aq_v[i + 1].q.val();
                self.aq_flow[i].d.next = self.aq_flow[i + 1].q.val();
                self.aq_psn[i].d.next = self.aq_psn[i + 1].q.val();
                self.aq_nak[i].d.next = self.aq_nak[i + 1].q.val();
            }
            for last in (AQ - 1)..AQ {
                self.aq_v[last].d.next = false;
            }
        }
        // the pushed ACK lands in the first entry left empty by the shift
        if self.aq_push.val()
            & !((self.aq_pop.val() & self.aq_v[1].q.val())
                | (!self.aq_pop.val() & self.aq_v[0].q.val()))
        {
            self.aq_v[0].d.next = true;
            self.aq_flow[0].d.next = self.ag.out_flow.val().get_bits::<FB>(0);
            self.aq_psn[0].d.next = self.ag.out_psn.val();
            self.aq_nak[0].d.next = self.ag.out_nak.val();
        }
        for i in 1..(AQ - 1) {
            if self.aq_push.val()
                & !((self.aq_pop.val() & self.aq_v[i + 1].q.val())
                    | (!self.aq_pop.val() & self.aq_v[i].q.val()))
                & ((self.aq_pop.val() & self.aq_v[i].q.val())
                    | (!self.aq_pop.val() & self.aq_v[i - 1].q.val()))
            {
                self.aq_v[i].d.next = true;
                self.aq_flow[i].d.next = self.ag.out_flow.val().get_bits::<FB>(0);
                self.aq_psn[i].d.next = self.ag.out_psn.val();
                self.aq_nak[i].d.next = self.ag.out_nak.val();
            }
        }
        // (the last entry: after a pop of a full queue, or the one after
        // the last full entry)
        for last in (AQ - 1)..AQ {
            if self.aq_push.val()
                & ((self.aq_pop.val() & self.aq_v[last].q.val())
                    | (!self.aq_pop.val() & !self.aq_v[last].q.val() & self.aq_v[last - 1].q.val()))
            {
                self.aq_v[last].d.next = true;
                self.aq_flow[last].d.next = self.ag.out_flow.val().get_bits::<FB>(0);
                self.aq_psn[last].d.next = self.ag.out_psn.val();
                self.aq_nak[last].d.next = self.ag.out_nak.val();
            }
        }

        // ---- fast-start marker: its slot
        self.fs_req.next = self.xregs.fs_ev_wr.val() | self.core.sys_flow_reset.val();
        if self.fs_take.val() {
            self.fs_pend.d.next = false;
        }
        self.fs_ovr.d.next = bits::<1>(0);
        if self.fs_req.val() {
            if self.fs_pend.q.val() & !self.fs_take.val() {
                self.fs_ovr.d.next = bits::<1>(1);
            } else {
                self.fs_pend.d.next = true;
                self.fs_kind.d.next = self.xregs.fs_ev_kind.val();
                self.fs_flow.d.next = self.xregs.fs_ev_flow.val().get_bits::<FB>(0);
                self.fs_last.d.next = self.xregs.fs_ev_last.val().any();
                self.fs_psn.d.next = self.xregs.fs_psn_psn.val();
                self.fs_word0.d.next = self.xregs.fs_hdr_word0.val();
                self.fs_csum.d.next = self.xregs.fs_hdr_csum.val();
                if self.core.sys_flow_reset.val() {
                    self.fs_kind.d.next = self.kind_reset.val();
                    self.fs_flow.d.next = self.core.sys_flow_reset_id.val();
                    self.fs_last.d.next = false;
                    self.fs_psn.d.next = bits::<24>(0);
                }
            }
        }
        self.xregs.xerrors_fs_overrun_set.next = self.fs_ovr.q.val();
        self.xregs.xstatus_fs_pending.next = bits::<1>(0);
        if self.fs_pend.q.val() {
            self.xregs.xstatus_fs_pending.next = bits::<1>(1);
        }
        if self.fs.out_valid.val() {
            self.i_fs_events.next = bits::<1>(1);
            if self.fs.out_err.val().any() {
                self.i_fs_errors.next = bits::<1>(1);
            }
        }
        self.xregs.fs_result_kind.next = self.fs.out_kind.val();
        self.xregs.fs_result_err.next = self.fs.out_err.val();
        self.xregs.fs_result_ecn.next = self.fs.out_ecn.val();
        self.xregs.fs_result_stage.next = self.fs.out_stage.val();
        self.xregs.fs_result_set.next = bits::<1>(0);
        if self.fs.out_set.val() {
            self.xregs.fs_result_set.next = bits::<1>(1);
        }
        self.xregs.fs_result_gbn.next = bits::<1>(0);
        if self.fs.out_gbn.val() {
            self.xregs.fs_result_gbn.next = bits::<1>(1);
        }
        self.xregs.fs_result_flow.next =
            bit_cast::<MAP_FB, FB>(self.fs.out_flow.val().get_bits::<FB>(0));
        self.xregs.fs_result_hdr_word0.next = self.fs.out_word0.val();
        self.xregs.fs_result_hdr_csum.next = self.fs.out_csum.val();
        self.xregs.fs_result_psn_psn.next = self.fs.out_psn.val();
        self.xregs.fs_result_cw_pkts.next = self.fs.out_cw_pkts.val();
        self.xregs.fs_events_count.next = self.cnt.value.val();
        self.xregs.fs_errors_count.next = self.cnt.value.val();

        // ---- a loop packet leaving the marker: into the receive register
        self.lp_pkt.next = self.fs.out_valid.val() & self.fs_lp.q.val();
        if self.lp_pkt.val() {
            self.rx_v.d.next = true;
            self.rx_flow.d.next = self.fs.out_flow.val().get_bits::<FB>(0);
            self.rx_psn.d.next = self.fs.out_psn.val();
            self.rx_ce.d.next = self.fs.out_ecn.val() == bits::<2>(3);
        }

        // ---- ACK generator: its slot first, then the receive register
        self.ag.reset.next = self.core.sys_core_rst.val();
        self.ag.cfg_m_pkts.next = self.xregs.ag_m_pkts.val();
        self.ag.cfg_timeout_cycles.next = self.xregs.ag_timeout_cycles.val();
        self.ag.in_valid.next = self.ag_pend.q.val() | self.rx_v.q.val();
        self.ag.in_open.next = self.ag_kind.q.val();
        self.ag.in_flow.next = bit_cast::<16, FB>(self.ag_flow.q.val());
        self.ag.in_psn.next = self.ag_psn.q.val();
        self.ag.in_ce.next = self.ag_ce.q.val();
        self.ag.in_last.next = self.ag_last.q.val();
        if !self.ag_pend.q.val() {
            self.ag.in_open.next = false;
            self.ag.in_flow.next = bit_cast::<16, FB>(self.rx_flow.q.val());
            self.ag.in_psn.next = self.rx_psn.q.val();
            self.ag.in_ce.next = self.rx_ce.q.val();
            self.ag.in_last.next = false;
        }
        self.ag_take.next = self.ag_pend.q.val() & self.ag.in_ready.val();
        self.rx_take.next = !self.ag_pend.q.val() & self.rx_v.q.val() & self.ag.in_ready.val();
        if self.rx_take.val() {
            self.rx_v.d.next = false;
            self.i_lp_deliv.next = bits::<1>(1);
        }
        self.ag_req.next = self.xregs.ag_ev_wr.val() | self.core.sys_flow_reset.val();
        if self.ag_take.val() {
            self.ag_pend.d.next = false;
        }
        self.ag_ovr.d.next = bits::<1>(0);
        if self.ag_req.val() {
            if self.ag_pend.q.val() & !self.ag_take.val() {
                self.ag_ovr.d.next = bits::<1>(1);
            } else {
                self.ag_pend.d.next = true;
                self.ag_kind.d.next = self.xregs.ag_ev_kind.val().any();
                self.ag_flow.d.next = self.xregs.ag_ev_flow.val().get_bits::<FB>(0);
                self.ag_ce.d.next = self.xregs.ag_ev_ce.val().any();
                self.ag_last.d.next = self.xregs.ag_ev_last.val().any();
                self.ag_psn.d.next = self.xregs.ag_psn_psn.val();
                if self.core.sys_flow_reset.val() {
                    self.ag_kind.d.next = true;
                    self.ag_flow.d.next = self.core.sys_flow_reset_id.val();
                    self.ag_ce.d.next = false;
                    self.ag_last.d.next = false;
                    self.ag_psn.d.next = bits::<24>(0);
                }
            }
        }
        self.xregs.xerrors_ag_overrun_set.next = self.ag_ovr.q.val();
        self.xregs.xstatus_ag_pending.next = bits::<1>(0);
        if self.ag_pend.q.val() {
            self.xregs.xstatus_ag_pending.next = bits::<1>(1);
        }
        if self.ag.out_valid.val() {
            self.i_ag_acks.next = bits::<1>(1);
            if self.ag.out_nak.val() {
                self.i_ag_naks.next = bits::<1>(1);
            }
        }
        if self.ag.stat_err.val().any() {
            self.i_ag_errors.next = bits::<1>(1);
            self.ag_err.d.next = self.ag.stat_err.val();
        }
        self.xregs.ag_ack_psn.next = self.ag.out_psn.val();
        self.xregs.ag_ack_n.next = self.ag.out_n_pkts.val();
        self.xregs.ag_ack_ece.next = bits::<1>(0);
        if self.ag.out_ece.val() {
            self.xregs.ag_ack_ece.next = bits::<1>(1);
        }
        self.xregs.ag_ack_nak.next = bits::<1>(0);
        if self.ag.out_nak.val() {
            self.xregs.ag_ack_nak.next = bits::<1>(1);
        }
        self.xregs.ag_ack_flow_flow.next =
            bit_cast::<MAP_FB, FB>(self.ag.out_flow.val().get_bits::<FB>(0));
        self.xregs.ag_acks_count.next = self.cnt.value.val();
        self.xregs.ag_naks_count.next = self.cnt.value.val();
        self.xregs.ag_errors_count.next = self.cnt.value.val();
        self.xregs.ag_err_code.next = self.ag_err.q.val();

        // ---- the loop's packets on chip: + a send, - a packet the receiver took
        // both sums from the registers, the send only selecting (it is the
        // end of the s3 decision's path)
        self.lp_pipe_p0.next = self.lp_pipe.q.val();
        self.lp_pipe_p1.next = self.lp_pipe.q.val() + self.one6.val();
        if self.rx_take.val() {
            self.lp_pipe_p0.next = self.lp_pipe.q.val() - self.one6.val();
            self.lp_pipe_p1.next = self.lp_pipe.q.val();
        }
        self.lp_pipe.d.next = self.lp_pipe_p0.val();
        if self.lp_s3_v.q.val() & self.lp_tx.val() {
            self.lp_pipe.d.next = self.lp_pipe_p1.val();
        }
        self.xregs.loop_status_in_pipe.next = self.lp_pipe.q.val();
        self.xregs.loop_sent_count.next = self.cnt.value.val();
        self.xregs.loop_delivered_count.next = self.cnt.value.val();
        self.xregs.loop_rewinds_count.next = self.cnt.value.val();
        self.xregs.loop_timeouts_count.next = self.cnt.value.val();
        self.xregs.loop_lost_count.next = self.cnt.value.val();
        // no WRED/ECN port: its registers drive nothing, its reads are 0
        self.xregs.xerrors_wred_overrun_set.next = bits::<1>(0);

        // ---- observation
        self.obs_pt_out_valid.next = self.pt.out_valid.val();
        self.obs_pt_out_flow.next = self.pt.out_flow.val();
        self.obs_pt_stat_err_flow_strobe.next = self.pt.stat_err_flow_strobe.val();
        self.obs_ag_out_valid.next = self.ag.out_valid.val();
        self.obs_ag_out_flow.next = self.ag.out_flow.val();
        self.obs_ag_out_psn.next = self.ag.out_psn.val();
        self.obs_ag_out_n_pkts.next = self.ag.out_n_pkts.val();
        self.obs_ag_out_ece.next = self.ag.out_ece.val();
        self.obs_ag_out_nak.next = self.ag.out_nak.val();
        self.obs_fs_out_valid.next = self.fs.out_valid.val();
        self.obs_fs_out_flow.next = self.fs.out_flow.val();
        self.obs_fs_out_err.next = self.fs.out_err.val();
        self.obs_fs_out_ecn.next = self.fs.out_ecn.val();
        self.obs_fs_out_csum.next = self.fs.out_csum.val();
        self.obs_wred_out_valid.next = false;
        self.obs_wred_out_decision.next = bits::<2>(0);

        // ---- the counter bank: every event above, and the counter the bus
        // addresses (its word shows to the decoder next cycle)
        self.cnt.inc.next = bit_cast::<NCNT, 1>(self.i_pt_grants.val())
            | (bit_cast::<NCNT, 1>(self.i_fs_events.val()) << 1)
            | (bit_cast::<NCNT, 1>(self.i_fs_errors.val()) << 2)
            | (bit_cast::<NCNT, 1>(self.i_ag_acks.val()) << 3)
            | (bit_cast::<NCNT, 1>(self.i_ag_naks.val()) << 4)
            | (bit_cast::<NCNT, 1>(self.i_ag_errors.val()) << 5)
            | (bit_cast::<NCNT, 1>(self.i_lp_sent.val()) << 6)
            | (bit_cast::<NCNT, 1>(self.i_lp_deliv.val()) << 7)
            | (bit_cast::<NCNT, 1>(self.i_lp_rew.val()) << 8)
            | (bit_cast::<NCNT, 1>(self.i_lp_tmo.val()) << 9)
            | (bit_cast::<NCNT, 1>(self.i_lp_lost.val()) << 10);
        self.cnt.rd_idx.next = bits::<IB>(0);
        for k in 0..NCNT {
            if self.bus_addr.val().get_bits::<10>(2) == self.cnt_word[k].val() {
                self.cnt.rd_idx.next = self.cnt_idx[k].val();
            }
        }
        self.cnt.clear.next = self.core.sys_cnt_clear.val() | self.core.sys_core_rst.val();

        // ---- counter clear and core reset
        if self.core.sys_cnt_clear.val() | self.core.sys_core_rst.val() {
            self.pt_max_late.d.next = bits::<16>(0);
        }
        if self.core.sys_core_rst.val() {
            self.lp_ptr.d.next = bits::<FB>(0);
            self.lp_t.d.next = bits::<16>(0);
            self.lp_s1_v.d.next = false;
            self.lp_s1_kind.d.next = bits::<3>(0);
            self.lp_g_pend.d.next = false;
            self.lp_g_flow.d.next = bits::<FB>(0);
            self.lp_s1_psn.d.next = bits::<24>(0);
            self.lp_tx_v.d.next = false;
            self.lp_s2_v.d.next = false;
            self.lp_s2_kind.d.next = bits::<3>(0);
            self.lp_s2_psn.d.next = bits::<24>(0);
            self.lp_s2_lw.d.next = bits::<12>(0);
            self.lp_s2_idx.d.next = bits::<FB>(0);
            self.lp_s3_v.d.next = false;
            self.lp_s3_kind.d.next = bits::<3>(0);
            self.lp_s3_psn.d.next = bits::<24>(0);
            self.lp_s3_lw.d.next = bits::<12>(0);
            self.lp_s3_idx.d.next = bits::<FB>(0);
            self.fs_lp.d.next = false;
            self.rx_v.d.next = false;
            self.lp_pipe.d.next = bits::<6>(0);
            self.set_pend.d.next = false;
            for i in 0..AQ {
                self.aq_v[i].d.next = false;
            }
            self.fs_pend.d.next = false;
            self.ag_pend.d.next = false;
            self.fs_ovr.d.next = bits::<1>(0);
            self.ag_ovr.d.next = bits::<1>(0);
            self.pt_last_flow.d.next = bits::<FB>(0);
            self.pt_last_late.d.next = bits::<16>(0);
            self.ag_err.d.next = bits::<2>(0);
        }
    }
}

ldcp_sim::nic_system_ports!(crate::hand_stepped {
    NicCu<FB, EW> [const FB: usize, const EW: usize],
    ldcp_sim::nic_system::SysIn,
    ldcp_sim::nic_system::SysOut
});

/// The Cu NIC in RustHDL's simulator, stepped by hand.
pub type NicCuRustHdl = crate::stepper::RustHdlSim<NicCuIce40>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::nic_cu::{stimulus, NicCuModel};
    use ldcp_sim::nic_system::SysIn;

    #[test]
    fn nic_cu_rusthdl_simulation_matches_model() {
        let mut sim = NicCuRustHdl::new();
        let mut m = NicCuModel::new(0, true);
        for (c, b) in stimulus(12).take(1_500).map(SysIn::from).enumerate() {
            let o = sim.step(&b).expect("RustHDL settles");
            m.tick(&b.bus());
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {b:?}");
        }
    }

    #[test]
    fn nic_cu_leaves_only_the_old_word_rams_checked() {
        use ldcp_sim::cosim::rams::{is_ram, map_modules, module_name, NO_RW_CHECK};
        let v = verilog(BuildId::UNSTAMPED).expect("Verilog");
        let (mut marked, mut kept) = (Vec::new(), Vec::new());
        map_modules(&v, |m| {
            let name = module_name(m).to_string();
            if is_ram(m) {
                if m.contains(NO_RW_CHECK) {
                    marked.push(name);
                } else {
                    kept.push(name);
                }
            }
            m.to_string()
        });
        assert_eq!(marked.len(), 11, "{marked:?}");
        assert_eq!(
            kept,
            ["nic_cu$ag$t_c", "nic_cu$lw_ram"],
            "the RAMs left with yosys' old-word emulation"
        );
    }
}
