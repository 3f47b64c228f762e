//! The switch port's boards: `SwitchBoardCore` (the board shell
//! [`crate::board_shell::BoardShell`] in front of a `SwitchPortCore`: the
//! generated switch decoder [`crate::switch_regfile::SwitchRegFile`], the
//! WRED/ECN port [`crate::wred_ecn::WredEcn`], the packet staging and the
//! draft-001 blocks of its role), and the top modules and pin constraints
//! that `ldcp synth --board alchitry-cu-switch` (a P node's port: WRED/ECN
//! and the Fast CNP trigger [`crate::fast_cnp::FastCnp`] with its
//! descriptor queue) and `--board alchitry-cu-pe` (a PE's port: WRED/ECN,
//! [`crate::tunnel_ingress::TunnelIngress`],
//! [`crate::tunnel_egress::TunnelEgress`], [`crate::end_con::EndCon`])
//! wrap around them. One Cu holds no more than one role: every block with
//! the port, the bridge and the staging took 9,201 logic cells of 7,680
//! (`ldcp_sim::switch_board::SwitchRole`). A role's absent blocks have
//! their inputs tied off by constants and the synthesis removes them.
//! `ldcp_sim::switch_board::SwitchBoardModel` is the model, register for
//! register (its file says how the registers behave).
//!
//! # Timing notes
//! The Fast CNP trigger hashes its slot's key into its table RAM's read
//! address in the packet's own cycle. Fed from the staging registers
//! (which also feed the descriptor queue's 28 block RAMs across the chip)
//! the P board closed at 84.9 MHz (seed 1); the key now comes from the
//! trigger's own descriptor registers (the staging a cycle late) and the
//! queue is written from the staging, which put the hash beside its
//! registers: 95.75-103.22 MHz over eight seeds, 100 met at two. The
//! queue's push and pop enables take registered level != 0 and level ==
//! 256 flags, not the level's compares (those were the critical path at
//! three seeds of seven). Two more steps made 100 MHz a margin rather
//! than a seed's luck (94.61-100.04 MHz at seeds 1-4, CI's clean build
//! 97.22 at best of ten):
//! - the trigger's age test takes the age from a register its s2 fills
//!   from the RAM's word (`crate::fast_cnp`, "Pipeline"), no longer a
//!   31-bit chain from a register through two 7-bit AND trees;
//! - the queue's head reaches the decoder through registers: at a read's
//!   request every RAM's half that address bit 2 selects is registered
//!   beside its RAM (`h_*`), and the FC_DSC_* registers read those, so no
//!   block RAM output crosses the chip into the read mux (with the age
//!   chain shortened first, that was the critical path at four of the
//!   five seeds read: 85.02-101.86 MHz over six). The RAMs read at the
//!   next read pointer, so a read's timing is every register's (module
//!   doc of `ldcp_sim::switch_board`). One 32-bit head-word register fed
//!   by a 16-way mux of all 28 RAMs' outputs was worse (87.81-100.12 MHz,
//!   the mux the critical path): the halves keep each mux beside its RAM.
//!
//! Now 93.61-106.24 MHz over six seeds, met at four (the committed
//! report), the slowest paths spread over the WRED/ECN occupancy loop,
//! the trigger's age chain and the decoder; CI holds 100 MHz over up to
//! eight seeds. The PE board holds 100 MHz.
//!
//! # Clock: the 100 MHz oscillator itself, no PLL
//! The board core runs on the Cu's oscillator (pin P7) directly: no PLL,
//! no derating. It used to run a 90 MHz PLL clock because the WRED/ECN
//! port's occupancy loop closed at 97-101 MHz alone and 93-99 MHz on the
//! board; the loop now takes its selects from registers computed a cycle
//! ahead (`crate::wred_ecn`, "The loop") and the build holds 100 MHz, failing
//! when a placement misses it (the committed report gives the margin over
//! every seed). 100 clocks per bit give the UART 1 Mbaud. Reset: the
//! button (active low) holds the core; at configuration every register is
//! zero and the shell's power-on sequencer releases the core.
//!
//! # Pins (ICE40HX8K-CB132, Alchitry Cu)
//! Those of the NIC board, LEDs included ([`crate::board`], which owns the
//! Cu's constraints). LED 0: power-on done; LED 1: bridge traffic; LED 2:
//! a refused frame since the last CORE_RESET; the others off.

use crate::board_shell::BoardShell;
use crate::coord_decision::CoordDecision;
use crate::end_con::EndCon;
use crate::fast_cnp::FastCnp;
use crate::nic_core::BuildId;
use crate::switch_regfile::SwitchRegFile;
use crate::tunnel_egress::TunnelEgress;
use crate::tunnel_ingress::TunnelIngress;
use crate::wred_ecn::WredEcn;
use ldcp_regmap::{
    BLOCK_COORD, BLOCK_END_CON, BLOCK_FAST_CNP, BLOCK_TUNNEL_EGRESS, BLOCK_TUNNEL_INGRESS,
};
use ldcp_sim::board_shell::LED_HOLD_BITS;
use ldcp_sim::switch_board::{SwitchRole, DSC_QUEUE_BITS, DSC_QUEUE_DEPTH};
use rust_hdl::prelude::*;

const _: () = assert!(
    ldcp_regmap::BLOCKS_SWITCH_PORT == 1 << ldcp_regmap::BLOCK_WRED_ECN
        && ldcp_regmap::BLOCK_WRED_ECN == 4
        && ldcp_regmap::BLOCKS_SWITCH_PORT_001 == 0x1F_0010
);
// the queue's pointers and level below are 8 and 9 bits
const _: () = assert!(DSC_QUEUE_BITS == 8 && DSC_QUEUE_DEPTH == 256);

const HB: usize = LED_HOLD_BITS as usize;

/// The board clock, MHz: the oscillator's, no PLL.
pub const CLOCK_MHZ: f64 = OSC_MHZ;
/// The oscillator, MHz.
pub const OSC_MHZ: f64 = 100.0;
/// The UART line rate on the board.
pub const BAUD: u32 = ldcp_sim::uart_bridge::DEFAULT_BAUD;
/// Clocks per UART bit on the board.
pub const BAUD_DIV: u32 = 100;

/// The switch port's board core (see the module doc).
#[derive(LogicBlock)]
pub struct SwitchBoardCore {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// The UART line from the host (FTDI), asynchronous.
    pub uart_rx: Signal<In, Bit>,
    /// Clocks per UART bit (the board ties it to [`BAUD_DIV`]).
    pub cfg_bit_cycles: Signal<In, Bits<10>>,
    /// Cycles the activity LED stays lit after bridge traffic (the board ties it).
    pub cfg_led_hold_cycles: Signal<In, Bits<HB>>,
    /// Power-on hold: PLL not locked, or the reset button pressed; asynchronous.
    pub reset_hold: Signal<In, Bit>,
    /// The UART line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// LED: the power-on sequence is over.
    pub led_ready: Signal<Out, Bit>,
    /// LED: bridge traffic within the hold.
    pub led_activity: Signal<Out, Bit>,
    /// LED: a frame was refused since the last CORE_RESET.
    pub led_error: Signal<Out, Bit>,
    /// Observation: the bus address.
    pub obs_bus_addr: Signal<Out, Bits<12>>,
    /// Observation: the bus write data.
    pub obs_bus_wdata: Signal<Out, Bits<32>>,
    /// Observation: the bus write strobe.
    pub obs_bus_we: Signal<Out, Bit>,
    /// Observation: the bus read strobe.
    pub obs_bus_re: Signal<Out, Bit>,
    /// Observation: the decoder's read data.
    pub obs_bus_rdata: Signal<Out, Bits<32>>,
    /// Observation: the decoder's read-valid.
    pub obs_bus_rvalid: Signal<Out, Bit>,
    shell: BoardShell,
    port: SwitchPortCore,
}

/// The switch port's core behind the bus (everything on the board but
/// the shell): the switch decoder, the WRED/ECN port, the role's
/// draft-001 blocks and the staging. `ldcp_sim::switch_board::SwitchCoreModel`
/// is its model, cycle for cycle at the bus (the `switch_port_core` and
/// `pe_port_core` cosimulations).
#[derive(LogicBlock)]
pub struct SwitchPortCore {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Byte address of the access.
    pub bus_addr: Signal<In, Bits<12>>,
    /// Write data.
    pub bus_wdata: Signal<In, Bits<32>>,
    /// Write strobe.
    pub bus_we: Signal<In, Bit>,
    /// Read strobe.
    pub bus_re: Signal<In, Bit>,
    /// Read data.
    pub bus_rdata: Signal<Out, Bits<32>>,
    /// Read data valid.
    pub bus_rvalid: Signal<Out, Bit>,
    regs: SwitchRegFile,
    wred: WredEcn,
    ti: TunnelIngress,
    te: TunnelEgress,
    ec: EndCon,
    fc: FastCnp,
    cd: CoordDecision,
    // the packet staging (PKT_*): one register per written word, so a
    // write is an enable and no multiplexer
    p_osrc: [DFF<Bits<32>>; 4],
    p_odst: [DFF<Bits<32>>; 4],
    p_isrc: [DFF<Bits<32>>; 4],
    p_idst: [DFF<Bits<32>>; 4],
    p_bth: DFF<Bits<26>>,
    p_udp: DFF<Bits<32>>,
    p_srh: DFF<Bits<32>>,
    p_inner: DFF<Bits<32>>,
    osrc_hi: Signal<Local, Bits<64>>,
    osrc_lo: Signal<Local, Bits<64>>,
    odst_hi: Signal<Local, Bits<64>>,
    odst_lo: Signal<Local, Bits<64>>,
    isrc_hi: Signal<Local, Bits<64>>,
    isrc_lo: Signal<Local, Bits<64>>,
    idst_hi: Signal<Local, Bits<64>>,
    idst_lo: Signal<Local, Bits<64>>,
    // the last decisions
    ti_last: DFF<Bits<8>>,
    ti_compat: DFF<Bits<1>>,
    te_drop: DFF<Bits<1>>,
    te_last: DFF<Bits<4>>,
    te_words: DFF<Bits<32>>,
    ec_last: DFF<Bits<14>>,
    fc_emit: DFF<Bits<1>>,
    fc_supp: DFF<Bits<1>>,
    fc_unp: DFF<Bits<1>>,
    cd_last: DFF<Bits<5>>,
    // the Fast CNP descriptor queue: 256 entries in block RAM (the
    // addresses in six 64-bit RAMs, the rest in one)
    q_src_hi: RAM<Bits<64>, 8>,
    q_src_lo: RAM<Bits<64>, 8>,
    q_dst_hi: RAM<Bits<64>, 8>,
    q_dst_lo: RAM<Bits<64>, 8>,
    q_ec_hi: RAM<Bits<64>, 8>,
    q_ec_lo: RAM<Bits<64>, 8>,
    q_misc: RAM<Bits<57>, 8>,
    q_wr: DFF<Bits<8>>,
    q_rd: DFF<Bits<8>>,
    q_level: DFF<Bits<9>>,
    q_lost: DFF<Bits<32>>,
    // level != 0 and level == 256, registered with the level (the push and
    // pop enables then take one gate, not the level's comparisons)
    q_nonempty: DFF<Bit>,
    q_full: DFF<Bit>,
    q_push: Signal<Local, Bit>,
    q_pop: Signal<Local, Bit>,
    // the read pointer after this edge: the RAMs read there, so a pop's
    // next descriptor reads one cycle sooner (see `dsc_word`)
    q_rd_next: Signal<Local, Bits<8>>,
    // each RAM's half of the head that address bit 2 selects this cycle,
    // registered beside the RAM: the regfile reads them the next cycle
    // (FC_DSC_QP and _UDP from the misc RAM's), so no RAM output reaches
    // its read mux
    h_src_hi: DFF<Bits<32>>,
    h_src_lo: DFF<Bits<32>>,
    h_dst_hi: DFF<Bits<32>>,
    h_dst_lo: DFF<Bits<32>>,
    h_ec_hi: DFF<Bits<32>>,
    h_ec_lo: DFF<Bits<32>>,
    h_misc: DFF<Bits<32>>,
    // FC_STATUS.LEVEL a cycle late: a descriptor the status shows was
    // pushed at least two edges before any later read of its words
    q_level_seen: DFF<Bits<9>>,
    // CORE_RESET acts one cycle after its write, as in the NIC core
    reset_q: DFF<Bit>,
    // power-up: one cycle of reset for the port, whose generator state is 0
    // until a reset loads the seed
    por: DFFWithInit<Bit>,
    decision: DFF<Bits<2>>,
    ecn: DFF<Bits<2>>,
    c_hash: Constant<Bits<32>>,
    c_dirty: Constant<Bits<1>>,
    c_kind: Constant<Bits<2>>,
    // the role's blocks (SW_BLOCKS): a block without its bit has its
    // inputs tied off, and the synthesis removes it
    c_ti: Constant<Bits<1>>,
    c_te: Constant<Bits<1>>,
    c_ec: Constant<Bits<1>>,
    c_fc: Constant<Bits<1>>,
    c_cd: Constant<Bits<1>>,
}

impl SwitchBoardCore {
    /// The board core of `role` reporting `build` in GIT_HASH and CAPS.DIRTY.
    pub fn new(build: BuildId, role: SwitchRole) -> Self {
        SwitchBoardCore {
            clock: Default::default(),
            uart_rx: Default::default(),
            cfg_bit_cycles: Default::default(),
            cfg_led_hold_cycles: Default::default(),
            reset_hold: Default::default(),
            uart_tx: Default::default(),
            led_ready: Default::default(),
            led_activity: Default::default(),
            led_error: Default::default(),
            obs_bus_addr: Default::default(),
            obs_bus_wdata: Default::default(),
            obs_bus_we: Default::default(),
            obs_bus_re: Default::default(),
            obs_bus_rdata: Default::default(),
            obs_bus_rvalid: Default::default(),
            shell: Default::default(),
            port: SwitchPortCore::new(build, role),
        }
    }
}

impl SwitchPortCore {
    /// The port core of `role` reporting `build` in GIT_HASH and CAPS.DIRTY.
    pub fn new(build: BuildId, role: SwitchRole) -> Self {
        let has = |b: u32| Constant::new(bits::<1>(role.has(b) as u64));
        SwitchPortCore {
            c_ti: has(BLOCK_TUNNEL_INGRESS),
            c_te: has(BLOCK_TUNNEL_EGRESS),
            c_ec: has(BLOCK_END_CON),
            c_fc: has(BLOCK_FAST_CNP),
            c_cd: has(BLOCK_COORD),
            clock: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_we: Default::default(),
            bus_re: Default::default(),
            bus_rdata: Default::default(),
            bus_rvalid: Default::default(),
            regs: Default::default(),
            wred: Default::default(),
            ti: Default::default(),
            te: Default::default(),
            ec: Default::default(),
            fc: Default::default(),
            cd: Default::default(),
            p_osrc: Default::default(),
            p_odst: Default::default(),
            p_isrc: Default::default(),
            p_idst: Default::default(),
            p_bth: Default::default(),
            p_udp: Default::default(),
            p_srh: Default::default(),
            p_inner: Default::default(),
            osrc_hi: Default::default(),
            osrc_lo: Default::default(),
            odst_hi: Default::default(),
            odst_lo: Default::default(),
            isrc_hi: Default::default(),
            isrc_lo: Default::default(),
            idst_hi: Default::default(),
            idst_lo: Default::default(),
            ti_last: Default::default(),
            ti_compat: Default::default(),
            te_drop: Default::default(),
            te_last: Default::default(),
            te_words: Default::default(),
            ec_last: Default::default(),
            fc_emit: Default::default(),
            fc_supp: Default::default(),
            fc_unp: Default::default(),
            cd_last: Default::default(),
            q_src_hi: Default::default(),
            q_src_lo: Default::default(),
            q_dst_hi: Default::default(),
            q_dst_lo: Default::default(),
            q_ec_hi: Default::default(),
            q_ec_lo: Default::default(),
            q_misc: Default::default(),
            q_wr: Default::default(),
            q_rd: Default::default(),
            q_level: Default::default(),
            q_lost: Default::default(),
            q_nonempty: Default::default(),
            q_full: Default::default(),
            q_push: Default::default(),
            q_pop: Default::default(),
            q_rd_next: Default::default(),
            h_src_hi: Default::default(),
            h_src_lo: Default::default(),
            h_dst_hi: Default::default(),
            h_dst_lo: Default::default(),
            h_ec_hi: Default::default(),
            h_ec_lo: Default::default(),
            h_misc: Default::default(),
            q_level_seen: Default::default(),
            reset_q: Default::default(),
            por: DFFWithInit::new(true),
            decision: Default::default(),
            ecn: Default::default(),
            c_hash: Constant::new(bits::<32>(build.hash as u64)),
            c_dirty: Constant::new(bits::<1>(build.dirty as u64)),
            c_kind: Constant::new(bits::<2>(ldcp_regmap::KIND_SWITCH_PORT as u64)),
        }
    }
}

impl Default for SwitchBoardCore {
    /// GIT_HASH 0, CAPS.DIRTY set (tests, the flow's block).
    fn default() -> Self {
        SwitchBoardCore::new(BuildId::UNSTAMPED, SwitchRole::P)
    }
}

impl Logic for SwitchBoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.shell.clock.next = self.clock.val();
        self.port.clock.next = self.clock.val();
        // the shell: UART, power-on, LEDs; it masters the port's bus
        self.shell.uart_rx.next = self.uart_rx.val();
        self.shell.cfg_bit_cycles.next = self.cfg_bit_cycles.val();
        self.shell.cfg_led_hold_cycles.next = self.cfg_led_hold_cycles.val();
        self.shell.reset_hold.next = self.reset_hold.val();
        self.shell.bus_rdata.next = self.port.bus_rdata.val();
        self.shell.bus_rvalid.next = self.port.bus_rvalid.val();
        self.port.bus_addr.next = self.shell.bus_addr.val();
        self.port.bus_wdata.next = self.shell.bus_wdata.val();
        self.port.bus_we.next = self.shell.bus_we.val();
        self.port.bus_re.next = self.shell.bus_re.val();
        self.uart_tx.next = self.shell.uart_tx.val();
        self.led_ready.next = self.shell.led_ready.val();
        self.led_activity.next = self.shell.led_activity.val();
        self.led_error.next = self.shell.led_error.val();
        self.obs_bus_addr.next = self.shell.bus_addr.val();
        self.obs_bus_wdata.next = self.shell.bus_wdata.val();
        self.obs_bus_we.next = self.shell.bus_we.val();
        self.obs_bus_re.next = self.shell.bus_re.val();
        self.obs_bus_rdata.next = self.port.bus_rdata.val();
        self.obs_bus_rvalid.next = self.port.bus_rvalid.val();
    }
}

impl Logic for SwitchPortCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            reset_q,
            por,
            decision,
            ecn,
            p_bth,
            p_udp,
            p_srh,
            p_inner,
            ti_last,
            ti_compat,
            te_drop,
            te_last,
            te_words,
            ec_last,
            fc_emit,
            fc_supp,
            fc_unp,
            cd_last,
            q_wr,
            q_rd,
            q_level,
            q_lost,
            q_nonempty,
            q_full,
            h_src_hi,
            h_src_lo,
            h_dst_hi,
            h_dst_lo,
            h_ec_hi,
            h_ec_lo,
            h_misc,
            q_level_seen
        );
        for i in 0..4 {
            self.p_osrc[i].clock.next = self.clock.val();
            self.p_odst[i].clock.next = self.clock.val();
            self.p_isrc[i].clock.next = self.clock.val();
            self.p_idst[i].clock.next = self.clock.val();
            self.p_osrc[i].d.next = self.p_osrc[i].q.val();
            self.p_odst[i].d.next = self.p_odst[i].q.val();
            self.p_isrc[i].d.next = self.p_isrc[i].q.val();
            self.p_idst[i].d.next = self.p_idst[i].q.val();
        }
        self.regs.clock.next = self.clock.val();
        self.wred.clock.next = self.clock.val();
        self.ti.clock.next = self.clock.val();
        self.te.clock.next = self.clock.val();
        self.ec.clock.next = self.clock.val();
        self.fc.clock.next = self.clock.val();
        self.cd.clock.next = self.clock.val();
        self.q_src_hi.read_clock.next = self.clock.val();
        self.q_src_hi.write_clock.next = self.clock.val();
        self.q_src_lo.read_clock.next = self.clock.val();
        self.q_src_lo.write_clock.next = self.clock.val();
        self.q_dst_hi.read_clock.next = self.clock.val();
        self.q_dst_hi.write_clock.next = self.clock.val();
        self.q_dst_lo.read_clock.next = self.clock.val();
        self.q_dst_lo.write_clock.next = self.clock.val();
        self.q_ec_hi.read_clock.next = self.clock.val();
        self.q_ec_hi.write_clock.next = self.clock.val();
        self.q_ec_lo.read_clock.next = self.clock.val();
        self.q_ec_lo.write_clock.next = self.clock.val();
        self.q_misc.read_clock.next = self.clock.val();
        self.q_misc.write_clock.next = self.clock.val();

        // ---- the bus
        self.regs.bus_addr.next = self.bus_addr.val();
        self.regs.bus_wdata.next = self.bus_wdata.val();
        self.regs.bus_we.next = self.bus_we.val();
        self.regs.bus_re.next = self.bus_re.val();
        self.bus_rdata.next = self.regs.bus_rdata.val();
        self.bus_rvalid.next = self.regs.bus_rvalid.val();

        // ---- id and reset
        self.regs.git_hash_hash.next = self.c_hash.val();
        self.regs.caps_flow_bits.next = bits::<8>(0);
        self.regs.caps_fifo_log2.next = bits::<8>(0);
        self.regs.caps_latency.next = bits::<8>(0);
        self.regs.caps_dirty.next = self.c_dirty.val();
        self.regs.caps_ext.next = bits::<1>(0);
        self.regs.caps_kind.next = self.c_kind.val();
        // BLOCKS: the WRED/ECN port only (ldcp_regmap::BLOCKS_SWITCH_PORT)
        self.regs.blocks_window_engine.next = bits::<1>(0);
        self.regs.blocks_pacing_timer.next = bits::<1>(0);
        self.regs.blocks_fast_start.next = bits::<1>(0);
        self.regs.blocks_ack_gen.next = bits::<1>(0);
        self.regs.blocks_wred_ecn.next = bits::<1>(1);
        self.regs.blocks_loop.next = bits::<1>(0);
        self.regs.blocks_generator.next = bits::<1>(0);
        // SW_BLOCKS: the role's (SwitchRole::sw_blocks), the staging in every one
        self.regs.sw_blocks_tunnel_ingress.next = self.c_ti.val();
        self.regs.sw_blocks_tunnel_egress.next = self.c_te.val();
        self.regs.sw_blocks_end_con.next = self.c_ec.val();
        self.regs.sw_blocks_fast_cnp.next = self.c_fc.val();
        self.regs.sw_blocks_pkt.next = bits::<1>(1);
        self.regs.sw_blocks_coord.next = self.c_cd.val();
        self.reset_q.d.next = self.regs.core_reset_wr.val() & self.regs.core_reset_go.val().any();
        self.regs.reset.next = self.reset_q.q.val();

        // ---- the WRED/ECN port (the packet fields are the decoder's registered
        // WRED_PKT word)
        self.por.d.next = false;
        self.wred.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.wred.in_valid.next = self.regs.wred_pkt_wr.val();
        self.wred.in_len_bytes.next = self.regs.wred_pkt_len.val();
        self.wred.in_ecn.next = self.regs.wred_pkt_ecn.val();
        self.wred.egress_drain_bytes.next = self.regs.wred_drain_bytes.val();
        self.wred.cfg_k_min_bytes.next = self.regs.wred_k_min_bytes.val();
        self.wred.cfg_k_max_bytes.next = self.regs.wred_k_max_bytes.val();
        self.wred.cfg_k_bytes.next = self.regs.wred_k_bytes.val();
        self.wred.cfg_buf_max_bytes.next = self.regs.wred_buf_max_bytes.val();
        self.wred.cfg_p_max.next = self.regs.wred_p_max_p.val();
        self.wred.cfg_seed.next = self.regs.wred_seed_seed.val();
        if self.wred.out_valid.val() {
            self.decision.d.next = self.wred.out_decision.val();
            self.ecn.d.next = self.wred.out_ecn.val();
        }
        if self.reset_q.q.val() {
            self.decision.d.next = bits::<2>(0);
            self.ecn.d.next = bits::<2>(0);
        }
        self.regs.wred_last_decision.next = self.decision.q.val();
        self.regs.wred_last_ecn.next = self.ecn.q.val();
        self.regs.wred_occ_bytes.next = self.wred.stat_occupancy_bytes.val();
        self.regs.wred_forwarded_count.next = self.wred.stat_forwarded_pkts.val();
        self.regs.wred_marked_count.next = self.wred.stat_marked_pkts.val();
        self.regs.wred_dropped_wred_count.next = self.wred.stat_dropped_wred_pkts.val();
        self.regs.wred_dropped_full_count.next = self.wred.stat_dropped_overflow_pkts.val();

        // ---- the packet staging: each word held until written again, cleared
        // by CORE_RESET
        if self.regs.pkt_outer_src0_wr.val() {
            self.p_osrc[0].d.next = self.regs.pkt_outer_src0_word.val();
        }
        if self.regs.pkt_outer_src1_wr.val() {
            self.p_osrc[1].d.next = self.regs.pkt_outer_src1_word.val();
        }
        if self.regs.pkt_outer_src2_wr.val() {
            self.p_osrc[2].d.next = self.regs.pkt_outer_src2_word.val();
        }
        if self.regs.pkt_outer_src3_wr.val() {
            self.p_osrc[3].d.next = self.regs.pkt_outer_src3_word.val();
        }
        if self.regs.pkt_outer_dst0_wr.val() {
            self.p_odst[0].d.next = self.regs.pkt_outer_dst0_word.val();
        }
        if self.regs.pkt_outer_dst1_wr.val() {
            self.p_odst[1].d.next = self.regs.pkt_outer_dst1_word.val();
        }
        if self.regs.pkt_outer_dst2_wr.val() {
            self.p_odst[2].d.next = self.regs.pkt_outer_dst2_word.val();
        }
        if self.regs.pkt_outer_dst3_wr.val() {
            self.p_odst[3].d.next = self.regs.pkt_outer_dst3_word.val();
        }
        if self.regs.pkt_inner_src0_wr.val() {
            self.p_isrc[0].d.next = self.regs.pkt_inner_src0_word.val();
        }
        if self.regs.pkt_inner_src1_wr.val() {
            self.p_isrc[1].d.next = self.regs.pkt_inner_src1_word.val();
        }
        if self.regs.pkt_inner_src2_wr.val() {
            self.p_isrc[2].d.next = self.regs.pkt_inner_src2_word.val();
        }
        if self.regs.pkt_inner_src3_wr.val() {
            self.p_isrc[3].d.next = self.regs.pkt_inner_src3_word.val();
        }
        if self.regs.pkt_inner_dst0_wr.val() {
            self.p_idst[0].d.next = self.regs.pkt_inner_dst0_word.val();
        }
        if self.regs.pkt_inner_dst1_wr.val() {
            self.p_idst[1].d.next = self.regs.pkt_inner_dst1_word.val();
        }
        if self.regs.pkt_inner_dst2_wr.val() {
            self.p_idst[2].d.next = self.regs.pkt_inner_dst2_word.val();
        }
        if self.regs.pkt_inner_dst3_wr.val() {
            self.p_idst[3].d.next = self.regs.pkt_inner_dst3_word.val();
        }
        if self.regs.pkt_bth_wr.val() {
            self.p_bth.d.next = bit_cast::<26, 24>(self.regs.pkt_bth_dest_qp.val())
                | (bit_cast::<26, 1>(self.regs.pkt_bth_parsed.val()) << 24)
                | (bit_cast::<26, 1>(self.regs.pkt_bth_ipv6.val()) << 25);
        }
        if self.regs.pkt_udp_wr.val() {
            self.p_udp.d.next = bit_cast::<32, 16>(self.regs.pkt_udp_pkey.val())
                | (bit_cast::<32, 16>(self.regs.pkt_udp_udp_src.val()) << 16);
        }
        if self.regs.pkt_srh_wr.val() {
            self.p_srh.d.next = bit_cast::<32, 8>(self.regs.pkt_srh_next_header.val())
                | (bit_cast::<32, 8>(self.regs.pkt_srh_srh_next_header.val()) << 8)
                | (bit_cast::<32, 8>(self.regs.pkt_srh_segments_left.val()) << 16)
                | (bit_cast::<32, 8>(self.regs.pkt_srh_ext_len.val()) << 24);
        }
        if self.regs.pkt_inner_wr.val() {
            self.p_inner.d.next = bit_cast::<32, 16>(self.regs.pkt_inner_word0.val())
                | (bit_cast::<32, 16>(self.regs.pkt_inner_csum.val()) << 16);
        }
        if self.reset_q.q.val() {
            for i in 0..4 {
                self.p_osrc[i].d.next = bits::<32>(0);
                self.p_odst[i].d.next = bits::<32>(0);
                self.p_isrc[i].d.next = bits::<32>(0);
                self.p_idst[i].d.next = bits::<32>(0);
            }
            self.p_bth.d.next = bits::<26>(0);
            self.p_udp.d.next = bits::<32>(0);
            self.p_srh.d.next = bits::<32>(0);
            self.p_inner.d.next = bits::<32>(0);
        }
        self.osrc_hi.next = (bit_cast::<64, 32>(self.p_osrc[0].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_osrc[1].q.val());
        self.osrc_lo.next = (bit_cast::<64, 32>(self.p_osrc[2].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_osrc[3].q.val());
        self.odst_hi.next = (bit_cast::<64, 32>(self.p_odst[0].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_odst[1].q.val());
        self.odst_lo.next = (bit_cast::<64, 32>(self.p_odst[2].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_odst[3].q.val());
        self.isrc_hi.next = (bit_cast::<64, 32>(self.p_isrc[0].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_isrc[1].q.val());
        self.isrc_lo.next = (bit_cast::<64, 32>(self.p_isrc[2].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_isrc[3].q.val());
        self.idst_hi.next = (bit_cast::<64, 32>(self.p_idst[0].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_idst[1].q.val());
        self.idst_lo.next = (bit_cast::<64, 32>(self.p_idst[2].q.val()) << 32)
            | bit_cast::<64, 32>(self.p_idst[3].q.val());

        // ---- tunnel ECN at the ingress: TI_MODE writes a mode, TI_PKT a packet
        self.ti.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.ti.in_valid.next = self.regs.ti_pkt_wr.val() & self.c_ti.val().any();
        self.ti.in_tunnel.next = self.regs.ti_pkt_tunnel.val();
        self.ti.in_ipv6.next = self.p_bth.q.val().get_bit(25);
        self.ti.in_word0.next = self.p_inner.q.val().get_bits::<16>(0);
        self.ti.cfg_we.next = self.regs.ti_mode_wr.val() & self.c_ti.val().any();
        self.ti.cfg_tunnel.next = self.regs.ti_mode_tunnel.val();
        self.ti.cfg_compat.next = self.regs.ti_mode_compat.val().any();
        if self.ti.out_valid.val() {
            self.ti_last.d.next = bit_cast::<8, 2>(self.ti.out_outer_ecn.val())
                | (bit_cast::<8, 6>(self.ti.out_tunnel.val()) << 2);
            self.ti_compat.d.next = bits::<1>(0);
            if self.ti.out_compat.val() {
                self.ti_compat.d.next = bits::<1>(1);
            }
        }
        self.regs.ti_last_outer_ecn.next = self.ti_last.q.val().get_bits::<2>(0);
        self.regs.ti_last_compat.next = self.ti_compat.q.val();
        self.regs.ti_last_tunnel.next = self.ti_last.q.val().get_bits::<6>(2);

        // ---- tunnel ECN at the egress: TE_PKT a packet
        self.te.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.te.in_valid.next = self.regs.te_pkt_wr.val() & self.c_te.val().any();
        self.te.in_ipv6.next = self.p_bth.q.val().get_bit(25);
        self.te.in_word0.next = self.p_inner.q.val().get_bits::<16>(0);
        self.te.in_csum.next = self.p_inner.q.val().get_bits::<16>(16);
        self.te.in_outer_ecn.next = self.regs.te_pkt_outer_ecn.val();
        if self.te.out_valid.val() {
            self.te_drop.d.next = bits::<1>(0);
            if self.te.out_drop.val() {
                self.te_drop.d.next = bits::<1>(1);
            }
            self.te_last.d.next = bit_cast::<4, 2>(self.te.out_flag.val())
                | (bit_cast::<4, 2>(self.te.out_ecn.val()) << 2);
            self.te_words.d.next = bit_cast::<32, 16>(self.te.out_word0.val())
                | (bit_cast::<32, 16>(self.te.out_csum.val()) << 16);
        }
        self.regs.te_last_drop.next = self.te_drop.q.val();
        self.regs.te_last_flag.next = self.te_last.q.val().get_bits::<2>(0);
        self.regs.te_last_ecn.next = self.te_last.q.val().get_bits::<2>(2);
        self.regs.te_words_word0.next = self.te_words.q.val().get_bits::<16>(0);
        self.regs.te_words_csum.next = self.te_words.q.val().get_bits::<16>(16);
        self.regs.te_forwarded_count.next = self.te.stat_forwarded_pkts.val();
        self.regs.te_dropped_count.next = self.te.stat_dropped_pkts.val();
        self.regs.te_dangerous_count.next = self.te.stat_dangerous_pkts.val();
        self.regs.te_unused_count.next = self.te.stat_unused_pkts.val();

        // ---- END.CON: EC_SIDn write the SID's words, EC_PKT a packet
        self.ec.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.ec.in_valid.next =
            self.regs.ec_pkt_wr.val() & self.regs.ec_pkt_go.val().any() & self.c_ec.val().any();
        self.ec.in_dst_hi.next = self.odst_hi.val();
        self.ec.in_dst_lo.next = self.odst_lo.val();
        self.ec.in_next_header.next = self.p_srh.q.val().get_bits::<8>(0);
        self.ec.in_srh_next_header.next = self.p_srh.q.val().get_bits::<8>(8);
        self.ec.in_srh_segments_left.next = self.p_srh.q.val().get_bits::<8>(16);
        self.ec.in_srh_ext_len.next = self.p_srh.q.val().get_bits::<8>(24);
        self.ec.cfg_we.next = (self.regs.ec_sid0_wr.val()
            | self.regs.ec_sid1_wr.val()
            | self.regs.ec_sid2_wr.val()
            | self.regs.ec_sid3_wr.val())
            & self.c_ec.val().any();
        self.ec.cfg_word.next = bits::<2>(0);
        if self.regs.ec_sid1_wr.val() {
            self.ec.cfg_word.next = bits::<2>(1);
        }
        if self.regs.ec_sid2_wr.val() {
            self.ec.cfg_word.next = bits::<2>(2);
        }
        if self.regs.ec_sid3_wr.val() {
            self.ec.cfg_word.next = bits::<2>(3);
        }
        self.ec.cfg_data.next = self.regs.ec_sid0_word.val();
        if self.ec.out_valid.val() {
            self.ec_last.d.next = bit_cast::<14, 2>(self.ec.out_action.val())
                | (bit_cast::<14, 12>(self.ec.out_strip_bytes.val()) << 2);
        }
        self.regs.ec_last_action.next = self.ec_last.q.val().get_bits::<2>(0);
        self.regs.ec_last_strip_bytes.next = self.ec_last.q.val().get_bits::<12>(2);
        self.regs.ec_forwarded_count.next = self.ec.stat_forwarded_pkts.val();
        self.regs.ec_decap_count.next = self.ec.stat_decap_pkts.val();
        self.regs.ec_punted_count.next = self.ec.stat_punted_pkts.val();
        self.regs.ec_dropped_count.next = self.ec.stat_dropped_pkts.val();

        // ---- draft 002's decision: every CD_PKT write is a packet
        self.cd.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.cd.in_valid.next = self.regs.cd_pkt_wr.val() & self.c_cd.val().any();
        self.cd.in_congested.next = self.regs.cd_pkt_congested.val().any();
        self.cd.in_cc.next = self.regs.cd_pkt_cc.val().any();
        self.cd.in_light.next = self.regs.cd_pkt_light.val();
        self.cd.in_arv.next = self.regs.cd_pkt_arv.val().any();
        self.cd.in_last_hop.next = self.regs.cd_pkt_last_hop.val().any();
        if self.cd.out_valid.val() {
            self.cd_last.d.next = bit_cast::<5, 1>(self.cd.out_reroute.val().into())
                | (bit_cast::<5, 1>(self.cd.out_write_indicator.val().into()) << 1)
                | (bit_cast::<5, 1>(self.cd.out_type3.val().into()) << 2)
                | (bit_cast::<5, 1>(self.cd.out_mark_allowed.val().into()) << 3)
                | (bit_cast::<5, 1>(self.cd.out_incast.val().into()) << 4);
        }
        self.regs.cd_last_reroute.next = self.cd_last.q.val().get_bits::<1>(0);
        self.regs.cd_last_write_indicator.next = self.cd_last.q.val().get_bits::<1>(1);
        self.regs.cd_last_type3.next = self.cd_last.q.val().get_bits::<1>(2);
        self.regs.cd_last_mark_allowed.next = self.cd_last.q.val().get_bits::<1>(3);
        self.regs.cd_last_incast.next = self.cd_last.q.val().get_bits::<1>(4);
        self.regs.cd_reroutes_count.next = self.cd.stat_reroutes.val();
        self.regs.cd_type3_count.next = self.cd.stat_type3.val();
        self.regs.cd_marks_count.next = self.cd.stat_marks_allowed.val();
        self.regs.cd_incast_count.next = self.cd.stat_incast.val();

        // ---- Fast CNP behind the WRED/ECN port: every decision of the port
        // is a packet for it, its descriptor from the staging (held across
        // the port's latency: the switch pipeline's fields), and its slot's
        // key from the trigger's own descriptor registers, which hold the
        // staging of the cycle before (swapped back): the hash then starts
        // at registers beside it, not at the staging across the chip (from
        // the staging directly the build closed at 84.9 MHz at seed 1)
        self.fc.reset.next = self.reset_q.q.val() | self.por.q.val();
        self.fc.in_valid.next = self.wred.out_valid.val() & self.c_fc.val().any();
        self.fc.in_decision.next = self.wred.out_decision.val();
        self.fc.in_parsed.next = self.p_bth.q.val().get_bit(24);
        self.fc.in_src_hi.next = self.fc.out_cnp_dst_hi.val();
        self.fc.in_src_lo.next = self.fc.out_cnp_dst_lo.val();
        self.fc.in_dst_hi.next = self.fc.out_cnp_src_hi.val();
        self.fc.in_dst_lo.next = self.fc.out_cnp_src_lo.val();
        self.fc.in_dest_qp.next = self.fc.out_dest_qp.val();
        self.fc.dsc_ipv6.next = self.p_bth.q.val().get_bit(25);
        self.fc.dsc_src_hi.next = self.isrc_hi.val();
        self.fc.dsc_src_lo.next = self.isrc_lo.val();
        self.fc.dsc_dst_hi.next = self.idst_hi.val();
        self.fc.dsc_dst_lo.next = self.idst_lo.val();
        self.fc.dsc_end_con_hi.next = self.osrc_hi.val();
        self.fc.dsc_end_con_lo.next = self.osrc_lo.val();
        self.fc.dsc_dest_qp.next = self.p_bth.q.val().get_bits::<24>(0);
        self.fc.dsc_pkey.next = self.p_udp.q.val().get_bits::<16>(0);
        self.fc.dsc_udp_src.next = self.p_udp.q.val().get_bits::<16>(16);
        self.fc.cfg_interval_cycles.next = self.regs.fc_interval_cycles.val();
        if self.fc.out_valid.val() {
            self.fc_emit.d.next = bits::<1>(0);
            self.fc_supp.d.next = bits::<1>(0);
            self.fc_unp.d.next = bits::<1>(0);
            if self.fc.out_emit.val() {
                self.fc_emit.d.next = bits::<1>(1);
            }
            if self.fc.out_suppressed.val() {
                self.fc_supp.d.next = bits::<1>(1);
            }
            if self.fc.out_unparsed.val() {
                self.fc_unp.d.next = bits::<1>(1);
            }
        }
        self.regs.fc_last_emit.next = self.fc_emit.q.val();
        self.regs.fc_last_suppressed.next = self.fc_supp.q.val();
        self.regs.fc_last_unparsed.next = self.fc_unp.q.val();
        self.regs.fc_status_table_ready.next = bits::<1>(0);
        if self.fc.stat_table_ready.val() {
            self.regs.fc_status_table_ready.next = bits::<1>(1);
        }
        self.regs.fc_marked_count.next = self.fc.stat_marked_pkts.val();
        self.regs.fc_sent_count.next = self.fc.stat_sent_pkts.val();
        self.regs.fc_suppressed_count.next = self.fc.stat_suppressed_pkts.val();
        self.regs.fc_unparsed_count.next = self.fc.stat_unparsed_pkts.val();

        // ---- the descriptor queue: an emitted descriptor is pushed unless the
        // queue is full (then counted lost); FC_POP drops the head, whose
        // words the RAMs read every cycle at the read pointer
        self.q_push.next = self.fc.out_emit.val() & !self.q_full.q.val();
        self.q_pop.next =
            self.regs.fc_pop_wr.val() & self.regs.fc_pop_go.val().any() & self.q_nonempty.q.val();
        if self.fc.out_emit.val() & !self.q_push.val() & !self.q_lost.q.val().all() {
            self.q_lost.d.next = self.q_lost.q.val() + bits::<32>(1);
        }
        if self.q_push.val() {
            self.q_wr.d.next = self.q_wr.q.val() + bits::<8>(1);
        }
        self.q_rd_next.next = self.q_rd.q.val();
        if self.q_pop.val() {
            self.q_rd_next.next = self.q_rd.q.val() + bits::<8>(1);
        }
        if self.reset_q.q.val() {
            self.q_rd_next.next = bits::<8>(0);
        }
        self.q_rd.d.next = self.q_rd_next.val();
        if self.q_push.val() & !self.q_pop.val() {
            self.q_level.d.next = self.q_level.q.val() + bits::<9>(1);
            self.q_nonempty.d.next = true;
            self.q_full.d.next = self.q_level.q.val() == bits::<9>(255);
        }
        if !self.q_push.val() & self.q_pop.val() {
            self.q_level.d.next = self.q_level.q.val() - bits::<9>(1);
            self.q_nonempty.d.next = self.q_level.q.val() != bits::<9>(1);
            self.q_full.d.next = false;
        }
        if self.reset_q.q.val() {
            self.q_wr.d.next = bits::<8>(0);
            self.q_level.d.next = bits::<9>(0);
            self.q_lost.d.next = bits::<32>(0);
            self.q_nonempty.d.next = false;
            self.q_full.d.next = false;
        }
        self.q_src_hi.write_address.next = self.q_wr.q.val();
        self.q_src_lo.write_address.next = self.q_wr.q.val();
        self.q_dst_hi.write_address.next = self.q_wr.q.val();
        self.q_dst_lo.write_address.next = self.q_wr.q.val();
        self.q_ec_hi.write_address.next = self.q_wr.q.val();
        self.q_ec_lo.write_address.next = self.q_wr.q.val();
        self.q_misc.write_address.next = self.q_wr.q.val();
        self.q_src_hi.write_enable.next = self.q_push.val();
        self.q_src_lo.write_enable.next = self.q_push.val();
        self.q_dst_hi.write_enable.next = self.q_push.val();
        self.q_dst_lo.write_enable.next = self.q_push.val();
        self.q_ec_hi.write_enable.next = self.q_push.val();
        self.q_ec_lo.write_enable.next = self.q_push.val();
        self.q_misc.write_enable.next = self.q_push.val();
        // the descriptor written is the staging at the emission, swapped as
        // the trigger swaps it (its own descriptor registers hold the
        // staging of the cycle before, and feed its hash: written from
        // there, they were pulled across the chip to the RAMs)
        self.q_src_hi.write_data.next = self.idst_hi.val();
        self.q_src_lo.write_data.next = self.idst_lo.val();
        self.q_dst_hi.write_data.next = self.isrc_hi.val();
        self.q_dst_lo.write_data.next = self.isrc_lo.val();
        self.q_ec_hi.write_data.next = self.osrc_hi.val();
        self.q_ec_lo.write_data.next = self.osrc_lo.val();
        self.q_misc.write_data.next = bit_cast::<57, 24>(self.p_bth.q.val().get_bits::<24>(0))
            | (bit_cast::<57, 1>(self.p_bth.q.val().get_bits::<1>(25)) << 24)
            | (bit_cast::<57, 32>(self.p_udp.q.val()) << 25);
        self.q_src_hi.read_address.next = self.q_rd_next.val();
        self.q_src_lo.read_address.next = self.q_rd_next.val();
        self.q_dst_hi.read_address.next = self.q_rd_next.val();
        self.q_dst_lo.read_address.next = self.q_rd_next.val();
        self.q_ec_hi.read_address.next = self.q_rd_next.val();
        self.q_ec_lo.read_address.next = self.q_rd_next.val();
        self.q_misc.read_address.next = self.q_rd_next.val();
        self.q_level_seen.d.next = self.q_level.q.val();
        self.regs.fc_status_level.next = self.q_level_seen.q.val();
        self.regs.fc_lost_count.next = self.q_lost.q.val();
        // the head's words: every RAM's half that address bit 2 selects
        // (bits 63..32 for the registers at 0 mod 8), registered; the
        // regfile reads the register the address names the next cycle
        self.h_src_hi.d.next = self.q_src_hi.read_data.val().get_bits::<32>(32);
        self.h_src_lo.d.next = self.q_src_lo.read_data.val().get_bits::<32>(32);
        self.h_dst_hi.d.next = self.q_dst_hi.read_data.val().get_bits::<32>(32);
        self.h_dst_lo.d.next = self.q_dst_lo.read_data.val().get_bits::<32>(32);
        self.h_ec_hi.d.next = self.q_ec_hi.read_data.val().get_bits::<32>(32);
        self.h_ec_lo.d.next = self.q_ec_lo.read_data.val().get_bits::<32>(32);
        self.h_misc.d.next = bit_cast::<32, 25>(self.q_misc.read_data.val().get_bits::<25>(0));
        if self.bus_addr.val().get_bit(2) {
            self.h_src_hi.d.next = self.q_src_hi.read_data.val().get_bits::<32>(0);
            self.h_src_lo.d.next = self.q_src_lo.read_data.val().get_bits::<32>(0);
            self.h_dst_hi.d.next = self.q_dst_hi.read_data.val().get_bits::<32>(0);
            self.h_dst_lo.d.next = self.q_dst_lo.read_data.val().get_bits::<32>(0);
            self.h_ec_hi.d.next = self.q_ec_hi.read_data.val().get_bits::<32>(0);
            self.h_ec_lo.d.next = self.q_ec_lo.read_data.val().get_bits::<32>(0);
            self.h_misc.d.next = self.q_misc.read_data.val().get_bits::<32>(25);
        }
        self.regs.fc_dsc_qp_dest_qp.next = self.h_misc.q.val().get_bits::<24>(0);
        self.regs.fc_dsc_qp_ipv6.next = self.h_misc.q.val().get_bits::<1>(24);
        self.regs.fc_dsc_udp_pkey.next = self.h_misc.q.val().get_bits::<16>(0);
        self.regs.fc_dsc_udp_udp_src.next = self.h_misc.q.val().get_bits::<16>(16);
        self.regs.fc_dsc_src0_word.next = self.h_src_hi.q.val();
        self.regs.fc_dsc_src1_word.next = self.h_src_hi.q.val();
        self.regs.fc_dsc_src2_word.next = self.h_src_lo.q.val();
        self.regs.fc_dsc_src3_word.next = self.h_src_lo.q.val();
        self.regs.fc_dsc_dst0_word.next = self.h_dst_hi.q.val();
        self.regs.fc_dsc_dst1_word.next = self.h_dst_hi.q.val();
        self.regs.fc_dsc_dst2_word.next = self.h_dst_lo.q.val();
        self.regs.fc_dsc_dst3_word.next = self.h_dst_lo.q.val();
        self.regs.fc_dsc_end_con0_word.next = self.h_ec_hi.q.val();
        self.regs.fc_dsc_end_con1_word.next = self.h_ec_hi.q.val();
        self.regs.fc_dsc_end_con2_word.next = self.h_ec_lo.q.val();
        self.regs.fc_dsc_end_con3_word.next = self.h_ec_lo.q.val();
        if self.reset_q.q.val() {
            self.ti_last.d.next = bits::<8>(0);
            self.ti_compat.d.next = bits::<1>(0);
            self.te_drop.d.next = bits::<1>(0);
            self.te_last.d.next = bits::<4>(0);
            self.te_words.d.next = bits::<32>(0);
            self.ec_last.d.next = bits::<14>(0);
            self.cd_last.d.next = bits::<5>(0);
            self.fc_emit.d.next = bits::<1>(0);
            self.fc_supp.d.next = bits::<1>(0);
            self.fc_unp.d.next = bits::<1>(0);
        }
    }
}

/// Every block a port core's Verilog instantiates (whatever its role: a
/// role's absent blocks are tied off, and the synthesis removes them).
const PORT_SUBS: &[&crate::generate::Module] = &[
    &crate::wred_ecn::MODULE,
    &crate::tunnel_ingress::MODULE,
    &crate::tunnel_egress::MODULE,
    &crate::end_con::MODULE,
    &crate::fast_cnp::MODULE,
    &crate::coord_decision::MODULE,
];

/// What a port core leaves unused on purpose: the trigger's descriptor
/// outputs other than its key (the queue is written from the staging),
/// and the SID words' fields beside the first (the four are the same
/// write-data bits; the strobe says which word).
const PORT_OPEN: &[&str] = &[
    "fc$out_end_con_hi",
    "fc$out_end_con_lo",
    "fc$out_ipv6",
    "fc$out_pkey",
    "fc$out_udp_src",
    "regs$ec_sid1_word",
    "regs$ec_sid2_word",
    "regs$ec_sid3_word",
];

/// The P node's port core's module ([`SwitchPortCore`] of
/// [`SwitchRole::P`]: the bus-level cosimulation's).
pub const PORT_MODULE: crate::generate::Module = crate::generate::Module {
    name: "switch_port_core",
    doc: "the P node's switch port core behind the register bus: the switch register decoder, the WRED/ECN port with the Fast CNP trigger behind it and its descriptor queue, and the packet staging registers",
    open: PORT_OPEN,
    subs: PORT_SUBS,
};

/// The PE's port core's module ([`SwitchPortCore`] of [`SwitchRole::Pe`]).
pub const PE_PORT_MODULE: crate::generate::Module = crate::generate::Module {
    name: "pe_port_core",
    doc: "the PE's switch port core behind the register bus: the switch register decoder, the WRED/ECN port, tunnel ECN ingress and egress, END.CON, and the packet staging registers",
    open: PORT_OPEN,
    subs: PORT_SUBS,
};

/// The port core with every block's module ([`SwitchPortCore`] of
/// [`SwitchRole::Full`]: the bus-level cosimulation of the `ulx3s-switch`
/// core, draft 002's decision included).
pub const FULL_PORT_MODULE: crate::generate::Module = crate::generate::Module {
    name: "switch_full_port_core",
    doc: "the switch port core with every block behind the register bus: the switch register decoder, the WRED/ECN port with the Fast CNP trigger and its descriptor queue, tunnel ECN ingress and egress, END.CON, draft 002's per-packet decision, and the packet staging registers",
    open: PORT_OPEN,
    subs: PORT_SUBS,
};

/// The P node's board core's module (the `alchitry-cu-switch` bitstream).
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "switch_board_core",
    doc: "the switch port's board core, a P node (alchitry-cu-switch): power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, the switch register decoder, the WRED/ECN port with the Fast CNP trigger behind it and its descriptor queue, and the packet staging registers",
    open: &[],
    subs: &[&PORT_MODULE],
};

/// The PE's board core's module (the `alchitry-cu-pe` bitstream).
pub const PE_MODULE: crate::generate::Module = crate::generate::Module {
    name: "pe_board_core",
    doc: "the switch port's board core, a PE (alchitry-cu-pe): power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, the switch register decoder, the WRED/ECN port, tunnel ECN ingress and egress, END.CON, and the packet staging registers",
    open: &[],
    subs: &[&PE_PORT_MODULE],
};

/// The board core with every switch block's module (the `ulx3s-switch`
/// bitstream: more than one HX8K holds).
pub const FULL_MODULE: crate::generate::Module = crate::generate::Module {
    name: "switch_full_board_core",
    doc: "the switch port's board core with every block (ulx3s-switch): power-on sequencer, UART-to-register bridge (framed, CRC-8), LEDs, the switch register decoder, the WRED/ECN port with the Fast CNP trigger and its descriptor queue, tunnel ECN ingress and egress, END.CON, draft 002's per-packet decision, and the packet staging registers",
    open: &[],
    subs: &[&PORT_MODULE, &PE_PORT_MODULE],
};

/// The module of a role's board core.
pub fn module_of(role: SwitchRole) -> &'static crate::generate::Module {
    match role {
        SwitchRole::P => &MODULE,
        SwitchRole::Pe => &PE_MODULE,
        SwitchRole::Full => &FULL_MODULE,
    }
}

/// The full board core's finalized Verilog (module [`FULL_MODULE`]), stamped.
pub fn full_core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    role_verilog(build, SwitchRole::Full)
}

/// The ULX3S switch board's top module name.
pub const ULX3S_TOP: &str = "ldcp_ulx3s_switch";

/// The ULX3S switch board's top module: the ULX3S's PLL, hold and LEDs
/// ([`crate::system_board::top_of`]) around [`FULL_MODULE`].
pub fn ulx3s_top_verilog() -> String {
    crate::system_board::top_of(
        ULX3S_TOP,
        FULL_MODULE.name,
        "the LDCP switch port with every block (WRED/ECN, Fast CNP, tunnel ECN, END.CON)",
    )
}

/// The ULX3S switch board's pin constraints.
pub fn ulx3s_lpf() -> String {
    crate::system_board::lpf_of(ULX3S_TOP)
}

/// The P node's board core's finalized Verilog (module [`MODULE`]), stamped.
pub fn core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    role_verilog(build, SwitchRole::P)
}

/// The PE's board core's finalized Verilog (module [`PE_MODULE`]), stamped.
pub fn pe_core_verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    role_verilog(build, SwitchRole::Pe)
}

/// The P node's port core's finalized Verilog (module [`PORT_MODULE`]).
pub fn port_verilog() -> Result<String, crate::verilog::VerilogError> {
    port_role_verilog(SwitchRole::P)
}

/// The PE's port core's finalized Verilog (module [`PE_PORT_MODULE`]).
pub fn pe_port_verilog() -> Result<String, crate::verilog::VerilogError> {
    port_role_verilog(SwitchRole::Pe)
}

/// The full port core's finalized Verilog (module [`FULL_PORT_MODULE`]).
pub fn full_port_verilog() -> Result<String, crate::verilog::VerilogError> {
    port_role_verilog(SwitchRole::Full)
}

fn port_role_verilog(role: SwitchRole) -> Result<String, crate::verilog::VerilogError> {
    let m = match role {
        SwitchRole::P => &PORT_MODULE,
        SwitchRole::Pe => &PE_PORT_MODULE,
        SwitchRole::Full => &FULL_PORT_MODULE,
    };
    let raw = crate::generate::raw_verilog(SwitchPortCore::new(BuildId::UNSTAMPED, role))
        .map(|v| crate::verilog::isolate_sub_inputs(&v))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}

fn role_verilog(build: BuildId, role: SwitchRole) -> Result<String, crate::verilog::VerilogError> {
    let m = module_of(role);
    let raw = crate::generate::raw_verilog(SwitchBoardCore::new(build, role))
        .map(|v| crate::verilog::isolate_sub_inputs(&v))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}

/// The P node board's top module name.
pub const TOP: &str = "ldcp_switch_alchitry_cu";
/// The PE board's top module name.
pub const PE_TOP: &str = "ldcp_pe_alchitry_cu";

/// The board's top module: the hold, the LEDs, and `switch_board_core`
/// on the oscillator's clock with its divider and LED hold tied.
/// Hand-written Verilog, like the NIC board's; it has no logic but one
/// inverter.
pub fn top_verilog() -> String {
    top_of(TOP, MODULE.name, "P node: WRED/ECN and Fast CNP")
}

/// The PE board's top module ([`PE_TOP`]), as [`top_verilog`].
pub fn pe_top_verilog() -> String {
    top_of(PE_TOP, PE_MODULE.name, "PE: WRED/ECN, tunnel ECN, END.CON")
}

fn top_of(top: &str, core: &str, what: &str) -> String {
    cu_top_of(
        top,
        core,
        &format!("the LDCP switch port ({what})"),
        "hdl/src/switch_board.rs",
        CuClock::OSCILLATOR,
    )
}

/// An Alchitry Cu board's core clock: the oscillator's, or an
/// `SB_PLL40_CORE`'s output; and the UART's clocks per bit at it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CuClock {
    /// The core clock, MHz.
    pub mhz: f64,
    /// Clocks per UART bit.
    pub baud_div: u32,
    /// The PLL that makes it (none: the oscillator's clock).
    pub pll: Option<crate::board::Ice40Pll>,
}

impl CuClock {
    /// The 100 MHz oscillator's clock, no PLL (the switch ports' boards).
    pub const OSCILLATOR: CuClock = CuClock {
        mhz: CLOCK_MHZ,
        baud_div: BAUD_DIV,
        pll: None,
    };
}

/// An Alchitry Cu top module `top` around the shell board core `core`,
/// `what` in its header: the PLL when `clock` has one (the core held until
/// it locks), the hold, the LEDs, the divider and LED hold tied for
/// `clock` (the switch ports' and the NIC's Cu boards), generated from
/// `src`.
pub fn cu_top_of(top: &str, core: &str, what: &str, src: &str, clock: CuClock) -> String {
    use ldcp_sim::ports::Ports;
    let CuClock { mhz, baud_div, pll } = clock;
    let hold = ldcp_sim::board_shell::led_hold_cycles(mhz);
    let obs: String = ldcp_sim::board_shell::ShellOut::PORTS
        .iter()
        .filter(|p| p.name.starts_with("obs_"))
        .map(|p| format!(",\n        .{}()", p.name))
        .collect();
    let (path, pll_inst, clk, hold_in) = match pll {
        None => (
            "(no PLL)".to_string(),
            String::new(),
            "clk_100mhz",
            "~rst_n",
        ),
        Some(p) => {
            let params: Vec<String> = p
                .params()
                .iter()
                .map(|(n, w, v)| format!("        .{n}({w}'d{v})"))
                .collect();
            (
                "(SB_PLL40_CORE; the core held until it locks)".to_string(),
                format!(
                    "    wire clk;\n\
                     \x20   wire locked;\n\
                     \x20   SB_PLL40_CORE #(\n\
                     \x20       .FEEDBACK_PATH(\"SIMPLE\"),\n\
                     {}\n\
                     \x20   ) pll (\n\
                     \x20       .REFERENCECLK(clk_100mhz),\n\
                     \x20       .PLLOUTGLOBAL(clk),\n\
                     \x20       .LOCK(locked),\n\
                     \x20       .RESETB(1'b1),\n\
                     \x20       .BYPASS(1'b0)\n\
                     \x20   );\n",
                    params.join(",\n")
                ),
                "clk",
                "~locked | ~rst_n",
            )
        }
    };
    format!(
        "// {top}: {what} on the Alchitry Cu (iCE40-HX8K, cb132).\n\
         // Generated by ldcp-hdl ({src}); do not edit.\n\
         // {OSC_MHZ} MHz oscillator -> {mhz} MHz core clock {path};\n\
         // UART {BAUD} baud 8N1 ({baud_div} clocks per bit) to the FTDI USB-UART;\n\
         // LED 0 power-on done, 1 bridge traffic, 2 a refused frame.\n\
         module {top}(\n\
         \x20   input  wire clk_100mhz,\n\
         \x20   input  wire rst_n,\n\
         \x20   input  wire usb_rx,\n\
         \x20   output wire usb_tx,\n\
         \x20   output wire [7:0] led\n\
         );\n\
         {pll_inst}\
         \x20   assign led[7:3] = 5'b0;\n\
         \x20   {core} core (\n\
         \x20       .clock({clk}),\n\
         \x20       .uart_rx(usb_rx),\n\
         \x20       .cfg_bit_cycles(10'd{baud_div}),\n\
         \x20       .cfg_led_hold_cycles({LED_HOLD_BITS}'d{hold}),\n\
         \x20       .reset_hold({hold_in}),\n\
         \x20       .uart_tx(usb_tx),\n\
         \x20       .led_ready(led[0]),\n\
         \x20       .led_activity(led[1]),\n\
         \x20       .led_error(led[2]){obs}\n\
         \x20   );\n\
         endmodule\n"
    )
}

/// The board's pin constraints (nextpnr-ice40 PCF): the Alchitry Cu's,
/// as the NIC board's ([`crate::board::pcf_of`]).
pub fn pcf() -> String {
    crate::board::pcf_of(TOP)
}

/// The PE board's pin constraints, as [`pcf`].
pub fn pe_pcf() -> String {
    crate::board::pcf_of(PE_TOP)
}

ldcp_sim::shell_board_ports!(crate::hand_stepped {
    SwitchBoardCore [],
    ldcp_sim::board_shell::ShellIn,
    ldcp_sim::board_shell::ShellOut
});

ldcp_sim::switch_core_ports!(crate::hand_stepped {
    SwitchPortCore [],
    ldcp_sim::switch_board::SwitchCoreIn,
    ldcp_sim::switch_board::SwitchCoreOut
});

impl Default for SwitchPortCore {
    /// The P node's, unstamped.
    fn default() -> Self {
        SwitchPortCore::new(BuildId::UNSTAMPED, SwitchRole::P)
    }
}

/// The board core in RustHDL's simulator, stepped by hand.
pub type SwitchBoardRustHdl = crate::stepper::RustHdlSim<SwitchBoardCore>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::switch_board::{SwitchBoardModel, SwitchCoreModel, SwitchStimulus};

    /// RustHDL's simulation of each role (the full set included: it is
    /// what the simulated device runs) against the model, over the bus
    /// stimulus through the bridge.
    #[test]
    fn switch_board_rusthdl_simulation_matches_model() {
        for role in [SwitchRole::P, SwitchRole::Pe, SwitchRole::Full] {
            let mut sim = SwitchBoardRustHdl::of(SwitchBoardCore::new(BuildId::UNSTAMPED, role));
            let mut m = SwitchBoardModel::new(SwitchCoreModel::of_role(0, true, role));
            let line = ldcp_sim::board_shell::ShellStimulus::new(4, 40, SwitchStimulus::default());
            for (c, i) in ldcp_sim::seeded(line, 5).take(8_000).enumerate() {
                let o = sim.step(&i).expect("RustHDL settles");
                m.tick(&i);
                assert_eq!(o, m.outputs(), "{role:?}: cycle {c}, inputs {i:?}");
            }
        }
    }

    #[test]
    fn switch_board_pins_and_clock() {
        assert_eq!(CLOCK_MHZ * 1e6 / BAUD_DIV as f64, BAUD as f64);
        let top = top_verilog();
        assert!(top.contains("10'd100") && !top.contains("SB_PLL40"));
        assert!(top.contains(".clock(clk_100mhz)") && top.contains(".reset_hold(~rst_n)"));
        assert!(top.contains(".led_error(led[2])"));
        let pcf = pcf();
        assert!(pcf.contains("set_io usb_rx P14") && pcf.contains("set_io led[0] J11"));
        assert!(pcf.contains("set_frequency clk_100mhz 100"));
    }
}
