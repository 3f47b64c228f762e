//! `NicSystem`: the whole LDCP NIC behind one register map: the NIC core
//! ([`crate::nic_core::NicCore`]: window engine, FIFO, generator, flow
//! window, counters) plus the extension blocks, decoded by the generated
//! [`crate::ext_regfile::ExtRegFile`] at 0x100..0x1FF (CAPS.EXT = 1):
//! - the **pacing timer**, fed by the window engine's updates (flow, RTT/cw
//!   for cw < 1): its grants are counted (PT_GRANTS) and the last one and
//!   the worst lateness are readable;
//! - the **fast-start marker** and the **ACK generator**, each with a
//!   one-event slot written through FS_EV / AG_EV (with FS_PSN, FS_HDR,
//!   AG_PSN) and its last result in RO registers;
//! - the **fast-start hand-off**, in hardware: the window the marker
//!   decides at a transition (a result with FS_RESULT.SET) is written into
//!   the window engine as a SET of that flow, the cycle the result leaves
//!   the marker (packets to UQ12.20; 0 becomes gamma by the engine's
//!   clamp). It goes ahead of flow commands, the generator and the FIFO
//!   (they wait that cycle; the marker gives at most one result per
//!   cycle, so nothing queues). The marker's slot waits while the core's
//!   reset sweep runs (STATUS.RESETTING), so no hand-off meets the sweep;
//! - the **WRED/ECN port**: parameters, WRED_PKT presents one packet, the
//!   egress drains WRED_DRAIN bytes per cycle;
//! - the **loopback** (LOOP_*, below): one chip runs a sender and a
//!   receiver and closes the congestion loop.
//!
//! `ldcp_sim::nic_system::NicSystemModel` mirrors every register of this
//! file; cosimulation compares the bus and the blocks' outputs each cycle.
//! It does not fit the iCE40-HX8K (the core alone fills most of it, see
//! its report): it is the simulated device's top and the core for a larger
//! FPGA.
//!
//! # Slots
//! An FS_EV / AG_EV write, or a flow reset, loads the block's slot (the
//! request's fields and the PSN/header registers as they are then); the
//! slot presents it from the next cycle until the block takes it
//! (`in_ready`). A request that finds the slot full, and not emptying in
//! that cycle, is dropped and flagged (XERRORS.*_OVERRUN); XSTATUS shows a
//! full slot. The fast-start marker takes one event per clock except in its
//! reset sweep; the ACK generator also pauses one cycle for a split ACK or
//! a timeout flush.
//!
//! # Loopback
//! With LOOP_CTRL.LOOPBACK, every ACK or NAK the ACK generator sends
//! returns to this NIC, in the cycle it leaves the generator:
//! - into the window engine, through the core's event FIFO (`sys_push`:
//!   flow, n, ECE; ahead of an EV_PUSH command in that cycle, which is then
//!   dropped and counted in CNT_DROPPED);
//! - to the sender's table (below);
//! - four cycles later to the fast-start marker, as an ACK or NAK event
//!   (so its transition hands its window to the engine, as with FS_EV);
//!   four is the sender's op stages and its send register, so a returned
//!   ACK never meets a send at the marker's one port.
//!
//! With LOOP_CTRL.SEND too, the **sender** visits flows 0..FLOWS-1 round
//! robin, one per cycle in which its table's port is free (a flow reset
//! and a returned ACK go first; it pauses while the marker's slot holds an
//! FS_EV or the core sweeps). Its table (block RAM, the deep form of
//! [`TableSweep`], swept by CORE_RESET) holds per flow the next PSN, the
//! acknowledged PSN, a progress stamp (16 bits of a cycle counter) and a
//! send credit; every op writes its entry back, changed or not, in its
//! third stage, deciding on a registered state (deciding on the RAM's
//! output was the ULX3S's critical path: 54 against 75 MHz). A second RAM
//! holds the engine's window, whole packets, written by every engine
//! update, read with the table. A visit
//! - goes back to the acknowledged PSN when packets are in flight and the
//!   stamp is LOOP_RTO cycles old or more (a timeout; 0: never);
//! - else sends the next PSN when fewer than floor(cw) packets are in
//!   flight, or, below one packet, when nothing is in flight and the flow
//!   holds a send credit (a grant of the pacing timer, RTT / cw apart; the
//!   send spends it), and fewer than 32 loop packets are on chip (the
//!   credit that keeps the receive queue from overflowing).
//!
//! The pacing timer's grants (with LOOPBACK) are ops of the sender's table
//! too, after flow resets and returned ACKs; a grant that finds the port
//! taken is held in one register, and one that comes while a grant is
//! held and the port taken is lost (the timer grants the flow again an
//! interval later). The window RAM powers up at one packet for every flow,
//! as the engine's table does.
//!
//! An ACK moves the acknowledged PSN forward (and the next PSN with it
//! past a rewind); a NAK rewinds the flow to its PSN (go-back-N, as the ACK
//! generator drops what follows a gap). A FLOW_CMD RESET zeroes the flow's
//! entry, as the receiver opens it at PSN 0 and the marker idles it. A sent
//! packet goes to the marker (header FS_HDR, the marker writes its ECN
//! codepoint), then, tagged through the marker's latency, to the WRED/ECN
//! port with LOOP_LEN bytes (ahead of a WRED_PKT write in that cycle,
//! which is dropped and flagged XERRORS.WRED_OVERRUN), then, beside the
//! port's latency, forwarded (CE if marked) into a 32-entry receive queue
//! in front of the ACK generator (behind its AG_EV slot), or dropped.
//!
//! The marker's one port carries a packet and its ACK, so the loop peaks
//! at half a packet per cycle. Stop the loop by
//! clearing SEND, then LOOPBACK once LOOP_STATUS.IN_PIPE is 0 and the
//! receiver's held ACKs are out; a sender and receiver that disagree after
//! an early stop are set right by the timeout or a flow reset.
//!
//! # Resets
//! - A FLOW_CMD RESET the core accepts also resets the flow in the other
//!   blocks: a flow reset event (kind 3) to the fast-start marker, an open
//!   at PSN 0 to the ACK generator (held packets discarded), and the
//!   engine's update of the reset flow reaches the pacing timer as a
//!   restart (no due time survives).
//! - CORE_RESET resets every block and the extension registers (RW fields
//!   to their reset values). The pacing timer sweeps its tables first (2^FB
//!   cycles) while the core's own sweep waits (`sweep_hold`), so the
//!   sweep's updates (every flow at INIT_CW) all reach the timer: STATUS.
//!   RESETTING is high for 2 x 2^FB cycles (512 at 256 flows, 8,192 at
//!   4,096). (CORE_RESET returns INIT_CW to 1.0,
//!   whose updates make flows leave, so the hold matters when software
//!   writes an INIT_CW below 1 during the sweep: those flows then join.)
//! - An FS_EV, AG_EV or FLOW_CMD RESET written in the cycle right after a
//!   CORE_RESET write is lost with the reset (the slots are cleared at that
//!   edge), unflagged; software waits for STATUS.RESETTING to clear anyway.
//! - The pacing timer tells a restart by its join time (25 bits of T): a
//!   restart exactly 2^25 cycles after the flow's last join keeps the old
//!   due time (0.34 s at 100 MHz, 0.67 s at the ULX3S's 50 MHz; the same holds for a leave and rejoin). The WRED/ECN port reloads its
//!   generator from the WRED_SEED held when CORE_RESET was written.
//! - At power-up the WRED/ECN port is reset for one cycle (its generator
//!   state is 0 until a reset loads a seed; a seed of 0 loads the
//!   substitute). The other blocks' tables power up idle.
//! - CORE_RESET empties the loop (its delay lines, queue, credit and
//!   sender's op) and sweeps the sender's table with the others.
//! - CNT_CLEAR also zeroes PT_GRANTS, PT_MAX_LATE, FS_EVENTS, FS_ERRORS,
//!   AG_ACKS, AG_NAKS, AG_ERRORS and the LOOP_* counters; the port's WRED_* counters (saturating,
//!   inside the block) clear on CORE_RESET only.

use crate::ack_generator::AckGenerator;
use crate::ext_regfile::ExtRegFile;
use crate::fast_start_marker::FastStartMarker;
use crate::nic_core::{BuildId, NicCore, EW_4K, EW_ICE40, FB_4K, FB_ICE40};
use crate::pacing_timer::PacingTimer;
use crate::table_sweep::TableSweep;
use crate::wred_ecn::WredEcn;
use rust_hdl::prelude::*;

/// The system of the iCE40-size build (256 flows; more than the HX8K
/// holds: a simulation size, and the reference the cosimulation checks).
pub type NicSystemIce40 = NicSystem<FB_ICE40, EW_ICE40, { FB_ICE40 + 30 }>;
/// The system of the ECP5 build (4,096 flows).
pub type NicSystem4k = NicSystem<FB_4K, EW_4K, { FB_4K + 30 }>;
/// Bits of a loop receive-queue word: PSN (23..0), CE (24), the flow above
/// (25.., as wide as the widest build's flows).
const RX_BITS: usize = 25 + FB_4K;
/// The map's flow fields.
const MAP_FB: usize = ldcp_regmap::FLOW_FIELD_BITS as usize;
/// LOOP_CTRL.FLOWS (up to 2^MAP_FB).
const FLOWS_FIELD: usize = MAP_FB + 1;
use crate::nic_core::PUSH_BITS;
/// Stages of the loop's tag beside the fast-start marker (its latency).
const LFS: usize = ldcp_sim::fast_start_marker::LATENCY_CYCLES;
/// Stages of the loop's delay line beside the WRED/ECN port (its latency).
const LWS: usize = ldcp_sim::wred_ecn::LATENCY_CYCLES;
/// Stages of a returned ACK on its way to the marker.
const LAS: usize = ldcp_sim::nic_system::LOOP_ACK_STAGES;
use ldcp_sim::nic_system::LOOP_RX_DEPTH;
const _: () = assert!(LOOP_RX_DEPTH == 32);
// the hand-off's packets -> UQ12.20 is a literal shift of a 12-bit count
const _: () = assert!(
    ldcp_sim::fast_start_marker::COUNT_BITS == 12 && ldcp_sim::window_engine::CW_FRAC_BITS == 20
);

/// The NIC system (see the module doc) with 2^`FB` flows; `EW` is its
/// core's FIFO word (FB + 5) and `QB` its ACK generator's queued ACK
/// (FB + 30): each build names them ([`NicSystemIce40`], [`NicSystem4k`]),
/// the sub-blocks' constructors assert they agree.
#[derive(LogicBlock)]
pub struct NicSystem<const FB: usize, const EW: usize, const QB: usize> {
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
    /// A read's data is on `bus_rdata` (the cycle after `bus_re`).
    pub bus_rvalid: Signal<Out, Bit>,
    // ---- observation (the blocks' registered outputs, for cosimulation
    // and for a design that sends the packets they describe)
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
    /// The pacing timer refused an update's flow id (never: the engine's
    /// flows are the timer's).
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
    /// The WRED/ECN port decided on a packet.
    pub obs_wred_out_valid: Signal<Out, Bit>,
    /// Its decision.
    pub obs_wred_out_decision: Signal<Out, Bits<2>>,
    core: NicCore<FB, EW>,
    xregs: ExtRegFile,
    pt: PacingTimer<FB>,
    fs: FastStartMarker<FB>,
    ag: AckGenerator<FB, QB>,
    wred: WredEcn,
    one32: Constant<Bits<32>>,
    one24: Constant<Bits<24>>,
    one16: Constant<Bits<16>>,
    one_fb: Constant<Bits<FB>>,
    one6: Constant<Bits<6>>,
    last_fb: Constant<Bits<FB>>,
    rx_depth: Constant<Bits<6>>,
    c_bit64: Constant<Bits<65>>,
    ce_bit: Constant<Bits<RX_BITS>>,
    c_all_flows: Constant<Bits<FLOWS_FIELD>>,
    kind_reset: Constant<Bits<2>>,
    ag_ece_bits: Signal<Local, Bits<1>>,
    // local decisions
    fs_req: Signal<Local, Bit>,
    fs_take: Signal<Local, Bit>,
    ag_req: Signal<Local, Bit>,
    ag_take: Signal<Local, Bit>,
    // power-up: one cycle of reset for the WRED/ECN port, whose generator
    // state is 0 until a reset loads the seed
    por: DFFWithInit<Bit>,
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
    // results and counters
    pt_grants: DFF<Bits<32>>,
    pt_last_flow: DFF<Bits<FB>>,
    pt_last_late: DFF<Bits<16>>,
    pt_max_late: DFF<Bits<16>>,
    fs_r_kind: DFF<Bits<2>>,
    fs_r_err: DFF<Bits<2>>,
    fs_r_ecn: DFF<Bits<2>>,
    fs_r_stage: DFF<Bits<2>>,
    fs_r_set: DFF<Bit>,
    fs_r_gbn: DFF<Bit>,
    fs_r_flow: DFF<Bits<FB>>,
    fs_r_word0: DFF<Bits<16>>,
    fs_r_csum: DFF<Bits<16>>,
    fs_r_psn: DFF<Bits<24>>,
    fs_r_cw: DFF<Bits<12>>,
    fs_events: DFF<Bits<32>>,
    fs_errors: DFF<Bits<32>>,
    ag_a_psn: DFF<Bits<24>>,
    ag_a_n: DFF<Bits<4>>,
    ag_a_ece: DFF<Bit>,
    ag_a_nak: DFF<Bit>,
    ag_a_flow: DFF<Bits<FB>>,
    ag_acks: DFF<Bits<32>>,
    ag_naks: DFF<Bits<32>>,
    ag_errors: DFF<Bits<32>>,
    ag_err: DFF<Bits<2>>,
    wred_decision: DFF<Bits<2>>,
    wred_ecn: DFF<Bits<2>>,
    // ---- the loopback (see the module doc, Loopback)
    lts: TableSweep<FB, 65>,
    lt_ram: RAM<Bits<65>, FB>,
    lw_ram: RAM<Bits<12>, FB>,
    rx_ram: RAM<Bits<RX_BITS>, 5>,
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
    rx_wr: DFF<Bits<6>>,
    rx_wr_d: DFF<Bits<6>>,
    rx_rd: DFF<Bits<6>>,
    lp_pipe: DFF<Bits<6>>,
    lp_sent: DFF<Bits<32>>,
    lp_deliv: DFF<Bits<32>>,
    lp_rew: DFF<Bits<32>>,
    lp_tmo: DFF<Bits<32>>,
    lp_wovr: DFF<Bits<1>>,
    lp_fst: [DFF<Bit>; LFS],
    lp_ad_v: [DFF<Bit>; LAS],
    lp_ad_flow: [DFF<Bits<FB>>; LAS],
    lp_ad_psn: [DFF<Bits<24>>; LAS],
    lp_ad_nak: [DFF<Bit>; LAS],
    lp_wd_v: [DFF<Bit>; LWS],
    lp_wd_flow: [DFF<Bits<FB>>; LWS],
    lp_wd_psn: [DFF<Bits<24>>; LWS],
    lp_loopback: Signal<Local, Bit>,
    lp_send: Signal<Local, Bit>,
    lp_last: Signal<Local, Bits<FB>>,
    lp_sel_ack: Signal<Local, Bit>,
    lp_visit: Signal<Local, Bit>,
    lp_op_v: Signal<Local, Bit>,
    lp_nx: Signal<Local, Bits<24>>,
    lp_ak: Signal<Local, Bits<24>>,
    lp_stamp: Signal<Local, Bits<16>>,
    lp_infl: Signal<Local, Bits<24>>,
    lp_win: Signal<Local, Bits<24>>,
    lp_age: Signal<Local, Bits<16>>,
    lp_adv: Signal<Local, Bits<24>>,
    lp_past: Signal<Local, Bits<24>>,
    lp_ws: Signal<Local, Bits<64>>,
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
    lp_fs: Signal<Local, Bit>,
    lp_pkt: Signal<Local, Bit>,
    rx_avail: Signal<Local, Bit>,
    rx_take: Signal<Local, Bit>,
    rx_push: Signal<Local, Bit>,
    lp_drop: Signal<Local, Bit>,
    rx_next: Signal<Local, Bits<6>>,
    rx_word: Signal<Local, Bits<RX_BITS>>,
    lp_ad_out_v: Signal<Local, Bit>,
    lp_ad_out_flow: Signal<Local, Bits<FB>>,
    lp_ad_out_psn: Signal<Local, Bits<24>>,
    lp_ad_out_nak: Signal<Local, Bit>,
    lp_inc: Signal<Local, Bits<6>>,
    lp_dec: Signal<Local, Bits<6>>,
    lp_nx1: Signal<Local, Bits<24>>,
    wd_last_flow: Signal<Local, Bits<FB>>,
    wd_last_psn: Signal<Local, Bits<24>>,
    lp_flows: Signal<Local, Bits<FLOWS_FIELD>>,
}

impl<const FB: usize, const EW: usize, const QB: usize> NicSystem<FB, EW, QB> {
    /// A system reporting `build` in GIT_HASH and CAPS.DIRTY.
    pub fn new(build: BuildId) -> Self {
        NicSystem {
            clock: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_we: Default::default(),
            bus_re: Default::default(),
            bus_rdata: Default::default(),
            bus_rvalid: Default::default(),
            obs_pt_out_valid: Default::default(),
            obs_pt_out_flow: Default::default(),
            obs_ag_out_valid: Default::default(),
            obs_ag_out_flow: Default::default(),
            obs_ag_out_psn: Default::default(),
            obs_ag_out_n_pkts: Default::default(),
            obs_ag_out_ece: Default::default(),
            obs_ag_out_nak: Default::default(),
            obs_pt_stat_err_flow_strobe: Default::default(),
            obs_fs_out_valid: Default::default(),
            obs_fs_out_flow: Default::default(),
            obs_fs_out_err: Default::default(),
            obs_fs_out_ecn: Default::default(),
            obs_fs_out_csum: Default::default(),
            obs_wred_out_valid: Default::default(),
            obs_wred_out_decision: Default::default(),
            core: NicCore::<FB, EW>::with_ext(build, true),
            xregs: Default::default(),
            pt: Default::default(),
            fs: Default::default(),
            ag: Default::default(),
            wred: Default::default(),
            one32: Constant::new(bits::<32>(1)),
            one24: Constant::new(bits::<24>(1)),
            one16: Constant::new(bits::<16>(1)),
            one_fb: Constant::new(bits::<FB>(1)),
            one6: Constant::new(bits::<6>(1)),
            last_fb: Constant::new(bits::<FB>((1 << FB) - 1)),
            rx_depth: Constant::new(bits::<6>(LOOP_RX_DEPTH as u64)),
            c_bit64: Constant::new(Bits::<65>::from(1u64) << 64),
            ce_bit: Constant::new(bits::<RX_BITS>(1 << 24)),
            c_all_flows: Constant::new(bits::<FLOWS_FIELD>(1 << FB)),
            kind_reset: Constant::new(bits::<2>(3)),
            ag_ece_bits: Default::default(),
            fs_req: Default::default(),
            fs_take: Default::default(),
            ag_req: Default::default(),
            ag_take: Default::default(),
            por: DFFWithInit::new(true),
            fs_pend: Default::default(),
            fs_kind: Default::default(),
            fs_flow: Default::default(),
            fs_last: Default::default(),
            fs_psn: Default::default(),
            fs_word0: Default::default(),
            fs_csum: Default::default(),
            ag_pend: Default::default(),
            ag_kind: Default::default(),
            ag_flow: Default::default(),
            ag_ce: Default::default(),
            ag_last: Default::default(),
            ag_psn: Default::default(),
            fs_ovr: Default::default(),
            ag_ovr: Default::default(),
            pt_grants: Default::default(),
            pt_last_flow: Default::default(),
            pt_last_late: Default::default(),
            pt_max_late: Default::default(),
            fs_r_kind: Default::default(),
            fs_r_err: Default::default(),
            fs_r_ecn: Default::default(),
            fs_r_stage: Default::default(),
            fs_r_set: Default::default(),
            fs_r_gbn: Default::default(),
            fs_r_flow: Default::default(),
            fs_r_word0: Default::default(),
            fs_r_csum: Default::default(),
            fs_r_psn: Default::default(),
            fs_r_cw: Default::default(),
            fs_events: Default::default(),
            fs_errors: Default::default(),
            ag_a_psn: Default::default(),
            ag_a_n: Default::default(),
            ag_a_ece: Default::default(),
            ag_a_nak: Default::default(),
            ag_a_flow: Default::default(),
            ag_acks: Default::default(),
            ag_naks: Default::default(),
            ag_errors: Default::default(),
            ag_err: Default::default(),
            wred_decision: Default::default(),
            wred_ecn: Default::default(),
            lts: TableSweep::deep(),
            lt_ram: RAM::from((0..1usize << FB).map(|_| Bits::<65>::from(0u64))),
            // every flow's window at configuration is 1.0, as the engine's table
            lw_ram: RAM::from((0..1usize << FB).map(|_| Bits::<12>::from(1u64))),
            rx_ram: RAM::from((0..32usize).map(|_| Bits::<RX_BITS>::from(0u64))),
            lp_ptr: Default::default(),
            lp_t: Default::default(),
            lp_s1_v: Default::default(),
            lp_s1_kind: Default::default(),
            lp_g_pend: Default::default(),
            lp_g_flow: Default::default(),
            lp_s1_psn: Default::default(),
            lp_tx_v: Default::default(),
            lp_tx_flow: Default::default(),
            lp_tx_psn: Default::default(),
            lp_s2_v: Default::default(),
            lp_s2_kind: Default::default(),
            lp_s2_psn: Default::default(),
            lp_s2_lw: Default::default(),
            lp_s2_idx: Default::default(),
            lp_s3_v: Default::default(),
            lp_s3_kind: Default::default(),
            lp_s3_psn: Default::default(),
            lp_s3_lw: Default::default(),
            lp_s3_idx: Default::default(),
            rx_wr: Default::default(),
            rx_wr_d: Default::default(),
            rx_rd: Default::default(),
            lp_pipe: Default::default(),
            lp_sent: Default::default(),
            lp_deliv: Default::default(),
            lp_rew: Default::default(),
            lp_tmo: Default::default(),
            lp_wovr: Default::default(),
            lp_fst: Default::default(),
            lp_ad_v: Default::default(),
            lp_ad_flow: Default::default(),
            lp_ad_psn: Default::default(),
            lp_ad_nak: Default::default(),
            lp_wd_v: Default::default(),
            lp_wd_flow: Default::default(),
            lp_wd_psn: Default::default(),
            lp_loopback: Default::default(),
            lp_send: Default::default(),
            lp_last: Default::default(),
            lp_sel_ack: Default::default(),
            lp_visit: Default::default(),
            lp_op_v: Default::default(),
            lp_nx: Default::default(),
            lp_ak: Default::default(),
            lp_stamp: Default::default(),
            lp_infl: Default::default(),
            lp_win: Default::default(),
            lp_age: Default::default(),
            lp_adv: Default::default(),
            lp_past: Default::default(),
            lp_ws: Default::default(),
            lp_wc: Default::default(),
            lp_credit: Default::default(),
            lp_may: Default::default(),
            lp_sel_grant: Default::default(),
            lp_g_cand: Default::default(),
            lp_g_fl: Default::default(),
            lp_cr65: Default::default(),
            lp_tx: Default::default(),
            lp_rewind: Default::default(),
            lp_timeout: Default::default(),
            lp_fs: Default::default(),
            lp_pkt: Default::default(),
            rx_avail: Default::default(),
            rx_take: Default::default(),
            rx_push: Default::default(),
            lp_drop: Default::default(),
            rx_next: Default::default(),
            rx_word: Default::default(),
            lp_ad_out_v: Default::default(),
            lp_ad_out_flow: Default::default(),
            lp_ad_out_psn: Default::default(),
            lp_ad_out_nak: Default::default(),
            lp_inc: Default::default(),
            lp_dec: Default::default(),
            lp_nx1: Default::default(),
            wd_last_flow: Default::default(),
            wd_last_psn: Default::default(),
            lp_flows: Default::default(),
        }
    }
}

impl<const FB: usize, const EW: usize, const QB: usize> Default for NicSystem<FB, EW, QB> {
    /// A system reporting GIT_HASH 0 with CAPS.DIRTY set (tests, benches).
    fn default() -> Self {
        NicSystem::new(BuildId::UNSTAMPED)
    }
}

/// Open in every build: the loop sender's table (TableSweep's deep form)
/// needs only its `state` (the forwarding terms, the refusal and the sweep
/// pointer stay open), and the pipelined core takes every handed-over
/// window outside its sweep, when the system holds the marker anyway, so
/// its `sys_set_ready` is not read, nor its FIFO's level (the engine
/// takes an event every cycle).
const SYSTEM_OPEN: [&str; 9] = [
    "lts$s1_oor",
    "lts$upd_oor",
    "lts$p_state",
    "lts$z_hit",
    "lts$z_state",
    "lts$fwd",
    "lts$sweep_ptr",
    "core$sys_set_ready",
    "core$sys_fifo_level",
];
/// The 256-flow build also ignores the flow fields' bits 11..8 (and the
/// receive queue's word holds the widest build's flow).
const ICE40_OPEN: [&str; 12] = {
    let narrow = ["xregs$fs_ev_flow", "xregs$ag_ev_flow", "rx_ram$read_data"];
    let mut all = [""; 12];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < narrow.len() {
            narrow[i]
        } else {
            SYSTEM_OPEN[i - narrow.len()]
        };
        i += 1;
    }
    all
};

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "nic_system",
    doc: "the LDCP NIC system: the NIC core plus the pacing timer (fed by the window engine), fast-start marker, ACK generator, WRED/ECN port and the on-chip loopback behind the extension registers of docs/regmap.md (simulation size: more than the HX8K holds)",
    open: &ICE40_OPEN,
    subs: &[
        &crate::nic_core::MODULE,
        &crate::fast_start_marker::MODULE,
        &crate::pacing_timer::MODULE,
        &crate::ack_generator::MODULE,
        &crate::wred_ecn::MODULE,
    ],
};

/// The 4,096-flow system's module (the ULX3S build's).
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "nic_system_4k",
    doc: "the LDCP NIC system with 4,096 flows (the ECP5 build's): the NIC core plus the pacing timer, fast-start marker, ACK generator, WRED/ECN port and the on-chip loopback behind the extension registers of docs/regmap.md",
    open: &SYSTEM_OPEN,
    subs: &[
        &crate::nic_core::MODULE_4K,
        &crate::fast_start_marker::MODULE_4K,
        &crate::pacing_timer::MODULE_4K,
        &crate::ack_generator::MODULE_4K,
        &crate::wred_ecn::MODULE,
    ],
};

/// The system's finalized Verilog (module [`MODULE`]), stamped with
/// `build`; every sub-block input the top drives is marked
/// `isolate_assignments` ([`crate::verilog::isolate_sub_inputs`]).
pub fn verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    verilog_of(&MODULE, NicSystemIce40::new(build))
}

/// The 4,096-flow system's Verilog (module [`MODULE_4K`]), stamped with
/// `build`.
pub fn verilog_4k(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    verilog_of(&MODULE_4K, NicSystem4k::new(build))
}

fn verilog_of<const FB: usize, const EW: usize, const QB: usize>(
    m: &crate::generate::Module,
    sys: NicSystem<FB, EW, QB>,
) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(sys)
        .map(|v| crate::verilog::isolate_table_inputs(&crate::verilog::isolate_sub_inputs(&v)))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}

impl<const FB: usize, const EW: usize, const QB: usize> Logic for NicSystem<FB, EW, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            por,
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
            pt_grants,
            pt_last_flow,
            pt_last_late,
            pt_max_late,
            fs_r_kind,
            fs_r_err,
            fs_r_ecn,
            fs_r_stage,
            fs_r_set,
            fs_r_gbn,
            fs_r_flow,
            fs_r_word0,
            fs_r_csum,
            fs_r_psn,
            fs_r_cw,
            fs_events,
            fs_errors,
            ag_a_psn,
            ag_a_n,
            ag_a_ece,
            ag_a_nak,
            ag_a_flow,
            ag_acks,
            ag_naks,
            ag_errors,
            ag_err,
            wred_decision,
            wred_ecn,
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
            rx_wr,
            rx_wr_d,
            rx_rd,
            lp_pipe,
            lp_sent,
            lp_deliv,
            lp_rew,
            lp_tmo,
            lp_wovr
        );
        self.lts.clock.next = self.clock.val();
        self.lt_ram.read_clock.next = self.clock.val();
        self.lt_ram.write_clock.next = self.clock.val();
        self.lw_ram.read_clock.next = self.clock.val();
        self.lw_ram.write_clock.next = self.clock.val();
        self.rx_ram.read_clock.next = self.clock.val();
        self.rx_ram.write_clock.next = self.clock.val();
        for i in 0..LFS {
            self.lp_fst[i].clock.next = self.clock.val();
        }
        for i in 0..LAS {
            self.lp_ad_v[i].clock.next = self.clock.val();
            self.lp_ad_flow[i].clock.next = self.clock.val();
            self.lp_ad_psn[i].clock.next = self.clock.val();
            self.lp_ad_nak[i].clock.next = self.clock.val();
        }
        for i in 0..LWS {
            self.lp_wd_v[i].clock.next = self.clock.val();
            self.lp_wd_flow[i].clock.next = self.clock.val();
            self.lp_wd_psn[i].clock.next = self.clock.val();
        }
        self.core.clock.next = self.clock.val();
        self.xregs.clock.next = self.clock.val();
        self.pt.clock.next = self.clock.val();
        self.fs.clock.next = self.clock.val();
        self.ag.clock.next = self.clock.val();
        self.wred.clock.next = self.clock.val();

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
        // the two decoders' rvalid are the same register
        self.bus_rvalid.next = self.core.bus_rvalid.val() | self.xregs.bus_rvalid.val();
        self.xregs.reset.next = self.core.sys_core_rst.val();

        // ---- pacing timer: the engine's updates; the core's sweep waits for the timer's
        self.pt.reset.next = self.core.sys_core_rst.val();
        self.pt.in_valid.next = self.core.sys_upd_valid.val();
        self.pt.in_restart.next = self.core.sys_upd_restart.val();
        self.pt.in_flow.next = bit_cast::<16, FB>(self.core.sys_upd_flow.val());
        self.pt.in_interval_cycles.next = self.core.sys_upd_interval_ticks.val();
        self.core.sys_sweep_hold.next = !self.pt.in_ready.val();
        // ---- the fast-start hand-off: the window the marker decides at its
        // transition (FS_RESULT.SET) is written into the window engine as a
        // SET, packets -> UQ12.20 (0 becomes gamma by the engine's clamp);
        // the marker's slot waits while the core sweeps, so no hand-off
        // meets the sweep
        self.core.sys_set_valid.next = self.fs.out_valid.val() & self.fs.out_set.val();
        self.core.sys_set_flow.next = self.fs.out_flow.val().get_bits::<FB>(0);
        self.core.sys_set_cw.next = bit_cast::<32, 12>(self.fs.out_cw_pkts.val()) << 20;
        if self.pt.out_valid.val() {
            self.pt_grants.d.next = self.pt_grants.q.val() + self.one32.val();
            self.pt_last_flow.d.next = self.pt.out_flow.val().get_bits::<FB>(0);
            self.pt_last_late.d.next = self.pt.out_late_cycles.val();
            if self.pt.out_late_cycles.val() > self.pt_max_late.q.val() {
                self.pt_max_late.d.next = self.pt.out_late_cycles.val();
            }
        }
        self.xregs.pt_grants_count.next = self.pt_grants.q.val();
        self.xregs.pt_last_flow.next = bit_cast::<MAP_FB, FB>(self.pt_last_flow.q.val());
        self.xregs.pt_last_late.next = self.pt_last_late.q.val();
        self.xregs.pt_max_late_late.next = self.pt_max_late.q.val();

        // ---- the loopback: the sender's op (a flow reset, a returned ACK,
        // or a visit of the next flow)
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
        // a pacing grant (a send credit for a flow below one packet): the
        // one held, else the timer's of this cycle
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
        self.lp_visit.next = self.lp_loopback.val()
            & self.lp_send.val()
            & !self.core.sys_flow_reset.val()
            & !self.lp_sel_ack.val()
            & !self.lp_sel_grant.val()
            & !self.fs_pend.q.val()
            & !self.core.sys_sweeping.val();
        self.lp_op_v.next = (self.core.sys_flow_reset.val()
            | self.lp_sel_ack.val()
            | self.lp_sel_grant.val()
            | self.lp_visit.val())
            & !self.lts.sweeping.val()
            & !self.core.sys_core_rst.val();
        // the grant held: the timer's new one while the held one goes in,
        // or the timer's that finds the port taken (a held one is kept and
        // a new one then lost: the timer grants again an interval later)
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
        self.lp_t.d.next = self.lp_t.q.val() + self.one16.val();
        self.lt_ram.read_address.next = self.lts.rd_addr.val();
        self.lw_ram.read_address.next = self.lts.rd_addr.val();
        self.lts.rd_state.next = self.lt_ram.read_data.val();
        self.lt_ram.write_address.next = self.lts.wr_addr.val();
        self.lt_ram.write_data.next = self.lts.wr_data.val();
        self.lt_ram.write_enable.next = self.lts.wr_en.val();
        // the engine's window, whole packets, as its updates leave it
        self.lw_ram.write_address.next = self.core.sys_upd_flow.val();
        self.lw_ram.write_data.next = self.core.sys_upd_cw_pkts.val();
        self.lw_ram.write_enable.next = self.core.sys_upd_valid.val();

        // ---- the op's stages: s1 (the table's read, the window's), s2, s3
        // (the decision on the registered state: TableSweep's deep form)
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

        // ---- the s3 op: its flow's state (next PSN | acknowledged | stamp |
        // send credit); every op writes it back, changed or not (the deep
        // form forwards the s3 op's write to the op behind it)
        self.lp_nx.next = self.lts.state.val().get_bits::<24>(0);
        self.lp_ak.next = self.lts.state.val().get_bits::<24>(24);
        self.lp_stamp.next = self.lts.state.val().get_bits::<16>(48);
        self.lp_infl.next = self.lp_nx.val() - self.lp_ak.val();
        self.lp_nx1.next = self.lp_nx.val() + self.one24.val();
        self.lp_win.next = bit_cast::<24, 12>(self.lp_s3_lw.q.val());
        self.lp_age.next = self.lp_t.q.val() - self.lp_stamp.val();
        self.lp_adv.next = self.lp_s3_psn.q.val() - self.lp_ak.val();
        self.lp_past.next = self.lp_s3_psn.q.val() - self.lp_nx.val();
        self.lp_credit.next = self.lts.state.val().get_bit(64);
        self.lp_wc.next = self.lp_credit.val();
        self.lp_ws.next = self.lts.state.val().get_bits::<64>(0);
        // below one packet (cw's whole part 0) a send needs a pacing
        // credit and nothing in flight
        self.lp_may.next = self.lp_infl.val() < self.lp_win.val();
        if !self.lp_s3_lw.q.val().any() {
            self.lp_may.next = self.lp_credit.val() & !self.lp_infl.val().any();
        }
        self.lp_tx.next = false;
        self.lp_rewind.next = false;
        self.lp_timeout.next = false;
        // a visit: the timeout's rewind, else a send if the window and the
        // credit allow
        if self.lp_s3_kind.q.val() == bits::<3>(0) {
            if self.lp_infl.val().any()
                & self.xregs.loop_rto_cycles.val().any()
                & (self.lp_age.val() >= self.xregs.loop_rto_cycles.val())
            {
                self.lp_rewind.next = true;
                self.lp_timeout.next = true;
                self.lp_ws.next = bit_cast::<64, 24>(self.lp_ak.val())
                    | (bit_cast::<64, 24>(self.lp_ak.val()) << 24)
                    | (bit_cast::<64, 16>(self.lp_t.q.val()) << 48);
            } else if self.lp_may.val() & (self.lp_pipe.q.val() < self.rx_depth.val()) {
                self.lp_tx.next = true;
                self.lp_wc.next = false;
                self.lp_ws.next = bit_cast::<64, 24>(self.lp_nx1.val())
                    | (bit_cast::<64, 24>(self.lp_ak.val()) << 24)
                    | (bit_cast::<64, 16>(self.lp_stamp.val()) << 48);
                if !self.lp_infl.val().any() {
                    self.lp_ws.next = bit_cast::<64, 24>(self.lp_nx1.val())
                        | (bit_cast::<64, 24>(self.lp_ak.val()) << 24)
                        | (bit_cast::<64, 16>(self.lp_t.q.val()) << 48);
                }
            }
        }
        // an ACK: the acknowledged PSN advances (and next with it, past an
        // old rewind); a NAK: back to its PSN
        if (self.lp_s3_kind.q.val() == bits::<3>(1))
            & self.lp_adv.val().any()
            & !self.lp_adv.val().get_bit(23)
        {
            self.lp_ws.next = bit_cast::<64, 24>(self.lp_nx.val())
                | (bit_cast::<64, 24>(self.lp_s3_psn.q.val()) << 24)
                | (bit_cast::<64, 16>(self.lp_t.q.val()) << 48);
            if self.lp_past.val().any() & !self.lp_past.val().get_bit(23) {
                self.lp_ws.next = bit_cast::<64, 24>(self.lp_s3_psn.q.val())
                    | (bit_cast::<64, 24>(self.lp_s3_psn.q.val()) << 24)
                    | (bit_cast::<64, 16>(self.lp_t.q.val()) << 48);
            }
        }
        if (self.lp_s3_kind.q.val() == bits::<3>(2)) & !self.lp_adv.val().get_bit(23) {
            self.lp_ws.next = bit_cast::<64, 24>(self.lp_s3_psn.q.val())
                | (bit_cast::<64, 24>(self.lp_s3_psn.q.val()) << 24)
                | (bit_cast::<64, 16>(self.lp_t.q.val()) << 48);
            self.lp_rewind.next = self.lp_nx.val() != self.lp_s3_psn.q.val();
        }
        if self.lp_s3_kind.q.val() == bits::<3>(3) {
            self.lp_ws.next = bits::<64>(0);
            self.lp_wc.next = false;
        }
        // a pacing grant: the flow's send credit
        if self.lp_s3_kind.q.val() == bits::<3>(4) {
            self.lp_wc.next = true;
        }
        self.lts.wr_valid.next = self.lp_s3_v.q.val();
        self.lp_cr65.next = bits::<65>(0);
        if self.lp_wc.val() {
            self.lp_cr65.next = self.c_bit64.val();
        }
        self.lts.wr_state.next = bit_cast::<65, 64>(self.lp_ws.val()) | self.lp_cr65.val();
        self.lp_tx_v.d.next = self.lp_s3_v.q.val() & self.lp_tx.val();
        self.lp_tx_flow.d.next = self.lp_s3_idx.q.val();
        self.lp_tx_psn.d.next = self.lp_nx.val();
        if self.lp_s3_v.q.val() & self.lp_tx.val() {
            self.lp_sent.d.next = self.lp_sent.q.val() + self.one32.val();
        }
        if self.lp_s3_v.q.val() & self.lp_rewind.val() {
            self.lp_rew.d.next = self.lp_rew.q.val() + self.one32.val();
        }
        if self.lp_s3_v.q.val() & self.lp_timeout.val() {
            self.lp_tmo.d.next = self.lp_tmo.q.val() + self.one32.val();
        }
        // the returned ACK: to the marker four cycles on (when the sender's
        // op of this cycle would have sent), to the engine's FIFO now
        // (a reset clears the valid bits; the fields are don't-cares)
        self.lp_ad_v[0].d.next = self.lp_sel_ack.val() & !self.core.sys_core_rst.val();
        self.lp_ad_flow[0].d.next = self.ag.out_flow.val().get_bits::<FB>(0);
        self.lp_ad_psn[0].d.next = self.ag.out_psn.val();
        self.lp_ad_nak[0].d.next = self.ag.out_nak.val();
        for i in 1..LAS {
            self.lp_ad_v[i].d.next = self.lp_ad_v[i - 1].q.val() & !self.core.sys_core_rst.val();
            self.lp_ad_flow[i].d.next = self.lp_ad_flow[i - 1].q.val();
            self.lp_ad_psn[i].d.next = self.lp_ad_psn[i - 1].q.val();
            self.lp_ad_nak[i].d.next = self.lp_ad_nak[i - 1].q.val();
        }
        for last in (LAS - 1)..LAS {
            self.lp_ad_out_v.next = self.lp_ad_v[last].q.val();
            self.lp_ad_out_flow.next = self.lp_ad_flow[last].q.val();
            self.lp_ad_out_psn.next = self.lp_ad_psn[last].q.val();
            self.lp_ad_out_nak.next = self.lp_ad_nak[last].q.val();
        }
        self.ag_ece_bits.next = bits::<1>(0);
        if self.ag.out_ece.val() {
            self.ag_ece_bits.next = bits::<1>(1);
        }
        self.core.sys_push_valid.next = self.lp_sel_ack.val();
        // EV_PUSH's layout: flow (11..0), n (15..12), ECE (16) (asserted
        // in nic_core, at PUSH_BITS)
        self.core.sys_push_event.next =
            bit_cast::<PUSH_BITS, FB>(self.ag.out_flow.val().get_bits::<FB>(0))
                | (bit_cast::<PUSH_BITS, 4>(self.ag.out_n_pkts.val()) << 12)
                | (bit_cast::<PUSH_BITS, 1>(self.ag_ece_bits.val()) << 16);

        // ---- fast-start marker: its slot
        self.fs.reset.next = self.core.sys_core_rst.val();
        self.fs.cfg_iw_pkts.next = self.xregs.fs_iw_pkts.val();
        // a loop event (a returned ACK, or a packet the sender sends) goes
        // ahead of the slot
        self.lp_fs.next = self.lp_ad_out_v.val() | self.lp_tx_v.q.val();
        self.fs.in_valid.next =
            self.lp_fs.val() | (self.fs_pend.q.val() & !self.core.sys_sweeping.val());
        self.fs.in_kind.next = self.fs_kind.q.val();
        self.fs.in_flow.next = bit_cast::<16, FB>(self.fs_flow.q.val());
        self.fs.in_psn.next = self.fs_psn.q.val();
        self.fs.in_last.next = self.fs_last.q.val();
        self.fs.in_word0.next = self.fs_word0.q.val();
        self.fs.in_csum.next = self.fs_csum.q.val();
        if self.lp_fs.val() {
            self.fs.in_kind.next = bits::<2>(0);
            self.fs.in_flow.next = bit_cast::<16, FB>(self.lp_tx_flow.q.val());
            self.fs.in_psn.next = self.lp_tx_psn.q.val();
            self.fs.in_last.next = false;
            self.fs.in_word0.next = self.xregs.fs_hdr_word0.val();
            self.fs.in_csum.next = self.xregs.fs_hdr_csum.val();
        }
        if self.lp_ad_out_v.val() {
            self.fs.in_kind.next = bits::<2>(1);
            if self.lp_ad_out_nak.val() {
                self.fs.in_kind.next = bits::<2>(2);
            }
            self.fs.in_flow.next = bit_cast::<16, FB>(self.lp_ad_out_flow.val());
            self.fs.in_psn.next = self.lp_ad_out_psn.val();
        }
        self.fs_take.next = self.fs_pend.q.val()
            & self.fs.in_ready.val()
            & !self.core.sys_sweeping.val()
            & !self.lp_fs.val();
        // the packets the marker takes from the sender, tagged through its latency
        self.lp_fst[0].d.next =
            self.lp_tx_v.q.val() & self.fs.in_ready.val() & !self.core.sys_core_rst.val();
        for i in 1..LFS {
            self.lp_fst[i].d.next = self.lp_fst[i - 1].q.val() & !self.core.sys_core_rst.val();
        }
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
            self.fs_r_kind.d.next = self.fs.out_kind.val();
            self.fs_r_err.d.next = self.fs.out_err.val();
            self.fs_r_ecn.d.next = self.fs.out_ecn.val();
            self.fs_r_stage.d.next = self.fs.out_stage.val();
            self.fs_r_set.d.next = self.fs.out_set.val();
            self.fs_r_gbn.d.next = self.fs.out_gbn.val();
            self.fs_r_flow.d.next = self.fs.out_flow.val().get_bits::<FB>(0);
            self.fs_r_word0.d.next = self.fs.out_word0.val();
            self.fs_r_csum.d.next = self.fs.out_csum.val();
            self.fs_r_psn.d.next = self.fs.out_psn.val();
            self.fs_r_cw.d.next = self.fs.out_cw_pkts.val();
            self.fs_events.d.next = self.fs_events.q.val() + self.one32.val();
            if self.fs.out_err.val().any() {
                self.fs_errors.d.next = self.fs_errors.q.val() + self.one32.val();
            }
        }
        self.xregs.fs_result_kind.next = self.fs_r_kind.q.val();
        self.xregs.fs_result_err.next = self.fs_r_err.q.val();
        self.xregs.fs_result_ecn.next = self.fs_r_ecn.q.val();
        self.xregs.fs_result_stage.next = self.fs_r_stage.q.val();
        self.xregs.fs_result_set.next = bits::<1>(0);
        if self.fs_r_set.q.val() {
            self.xregs.fs_result_set.next = bits::<1>(1);
        }
        self.xregs.fs_result_gbn.next = bits::<1>(0);
        if self.fs_r_gbn.q.val() {
            self.xregs.fs_result_gbn.next = bits::<1>(1);
        }
        self.xregs.fs_result_flow.next = bit_cast::<MAP_FB, FB>(self.fs_r_flow.q.val());
        self.xregs.fs_result_hdr_word0.next = self.fs_r_word0.q.val();
        self.xregs.fs_result_hdr_csum.next = self.fs_r_csum.q.val();
        self.xregs.fs_result_psn_psn.next = self.fs_r_psn.q.val();
        self.xregs.fs_result_cw_pkts.next = self.fs_r_cw.q.val();
        self.xregs.fs_events_count.next = self.fs_events.q.val();
        self.xregs.fs_errors_count.next = self.fs_errors.q.val();

        // ---- ACK generator: its slot
        self.ag.reset.next = self.core.sys_core_rst.val();
        self.ag.cfg_m_pkts.next = self.xregs.ag_m_pkts.val();
        self.ag.cfg_timeout_cycles.next = self.xregs.ag_timeout_cycles.val();
        // the slot first, then the head of the loop's receive queue
        self.rx_avail.next = self.rx_wr_d.q.val() != self.rx_rd.q.val();
        self.ag.in_valid.next = self.ag_pend.q.val() | self.rx_avail.val();
        self.ag.in_open.next = self.ag_kind.q.val();
        self.ag.in_flow.next = bit_cast::<16, FB>(self.ag_flow.q.val());
        self.ag.in_psn.next = self.ag_psn.q.val();
        self.ag.in_ce.next = self.ag_ce.q.val();
        self.ag.in_last.next = self.ag_last.q.val();
        if !self.ag_pend.q.val() {
            self.ag.in_open.next = false;
            self.ag.in_flow.next =
                bit_cast::<16, FB>(self.rx_ram.read_data.val().get_bits::<FB>(25));
            self.ag.in_psn.next = self.rx_ram.read_data.val().get_bits::<24>(0);
            self.ag.in_ce.next = self.rx_ram.read_data.val().get_bit(24);
            self.ag.in_last.next = false;
        }
        self.ag_take.next = self.ag_pend.q.val() & self.ag.in_ready.val();
        self.rx_take.next = !self.ag_pend.q.val() & self.rx_avail.val() & self.ag.in_ready.val();
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
            self.ag_a_psn.d.next = self.ag.out_psn.val();
            self.ag_a_n.d.next = self.ag.out_n_pkts.val();
            self.ag_a_ece.d.next = self.ag.out_ece.val();
            self.ag_a_nak.d.next = self.ag.out_nak.val();
            self.ag_a_flow.d.next = self.ag.out_flow.val().get_bits::<FB>(0);
            self.ag_acks.d.next = self.ag_acks.q.val() + self.one32.val();
            if self.ag.out_nak.val() {
                self.ag_naks.d.next = self.ag_naks.q.val() + self.one32.val();
            }
        }
        if self.ag.stat_err.val().any() {
            self.ag_errors.d.next = self.ag_errors.q.val() + self.one32.val();
            self.ag_err.d.next = self.ag.stat_err.val();
        }
        self.xregs.ag_ack_psn.next = self.ag_a_psn.q.val();
        self.xregs.ag_ack_n.next = self.ag_a_n.q.val();
        self.xregs.ag_ack_ece.next = bits::<1>(0);
        if self.ag_a_ece.q.val() {
            self.xregs.ag_ack_ece.next = bits::<1>(1);
        }
        self.xregs.ag_ack_nak.next = bits::<1>(0);
        if self.ag_a_nak.q.val() {
            self.xregs.ag_ack_nak.next = bits::<1>(1);
        }
        self.xregs.ag_ack_flow_flow.next = bit_cast::<MAP_FB, FB>(self.ag_a_flow.q.val());
        self.xregs.ag_acks_count.next = self.ag_acks.q.val();
        self.xregs.ag_naks_count.next = self.ag_naks.q.val();
        self.xregs.ag_errors_count.next = self.ag_errors.q.val();
        self.xregs.ag_err_code.next = self.ag_err.q.val();

        // ---- WRED/ECN port
        self.por.d.next = false;
        self.wred.reset.next = self.core.sys_core_rst.val() | self.por.q.val();
        // a loop packet leaving the marker goes ahead of a WRED_PKT write
        for last in (LFS - 1)..LFS {
            self.lp_pkt.next = self.lp_fst[last].q.val();
        }
        self.wred.in_valid.next = self.lp_pkt.val() | self.xregs.wred_pkt_wr.val();
        self.wred.in_len_bytes.next = self.xregs.wred_pkt_len.val();
        self.wred.in_ecn.next = self.xregs.wred_pkt_ecn.val();
        if self.lp_pkt.val() {
            self.wred.in_len_bytes.next = self.xregs.loop_len_bytes.val();
            self.wred.in_ecn.next = self.fs.out_ecn.val();
        }
        self.lp_wovr.d.next = bits::<1>(0);
        if self.lp_pkt.val() & self.xregs.wred_pkt_wr.val() {
            self.lp_wovr.d.next = bits::<1>(1);
        }
        self.xregs.xerrors_wred_overrun_set.next = self.lp_wovr.q.val();
        // (a reset clears the valid bits; the fields are don't-cares)
        self.lp_wd_v[0].d.next = self.lp_pkt.val() & !self.core.sys_core_rst.val();
        self.lp_wd_flow[0].d.next = self.fs.out_flow.val().get_bits::<FB>(0);
        self.lp_wd_psn[0].d.next = self.fs.out_psn.val();
        for i in 1..LWS {
            self.lp_wd_v[i].d.next = self.lp_wd_v[i - 1].q.val() & !self.core.sys_core_rst.val();
            self.lp_wd_flow[i].d.next = self.lp_wd_flow[i - 1].q.val();
            self.lp_wd_psn[i].d.next = self.lp_wd_psn[i - 1].q.val();
        }
        // the port's decision on a loop packet: into the receive queue, or
        // dropped (its credit returns)
        for last in (LWS - 1)..LWS {
            self.rx_push.next =
                self.lp_wd_v[last].q.val() & !self.wred.out_decision.val().get_bit(1);
            self.lp_drop.next =
                self.lp_wd_v[last].q.val() & self.wred.out_decision.val().get_bit(1);
            self.wd_last_flow.next = self.lp_wd_flow[last].q.val();
            self.wd_last_psn.next = self.lp_wd_psn[last].q.val();
        }
        self.rx_word.next = bit_cast::<RX_BITS, 24>(self.wd_last_psn.val())
            | (bit_cast::<RX_BITS, FB>(self.wd_last_flow.val()) << 25);
        self.rx_ram.write_data.next = self.rx_word.val();
        if self.wred.out_ecn.val() == bits::<2>(3) {
            self.rx_ram.write_data.next = self.rx_word.val() | self.ce_bit.val();
        }
        self.rx_ram.write_address.next = self.rx_wr.q.val().get_bits::<5>(0);
        self.rx_ram.write_enable.next = self.rx_push.val();
        if self.rx_push.val() {
            self.rx_wr.d.next = self.rx_wr.q.val() + self.one6.val();
        }
        self.rx_wr_d.d.next = self.rx_wr.q.val();
        self.rx_next.next = self.rx_rd.q.val() + self.one6.val();
        self.rx_ram.read_address.next = self.rx_rd.q.val().get_bits::<5>(0);
        if self.rx_take.val() {
            self.rx_rd.d.next = self.rx_next.val();
            self.rx_ram.read_address.next = self.rx_next.val().get_bits::<5>(0);
            self.lp_deliv.d.next = self.lp_deliv.q.val() + self.one32.val();
        }
        // the credit: + a send, - a packet taken by the receiver, - a drop
        self.lp_inc.next = bits::<6>(0);
        if self.lp_s3_v.q.val() & self.lp_tx.val() {
            self.lp_inc.next = bits::<6>(1);
        }
        self.lp_dec.next = bits::<6>(0);
        if self.rx_take.val() ^ self.lp_drop.val() {
            self.lp_dec.next = bits::<6>(1);
        }
        if self.rx_take.val() & self.lp_drop.val() {
            self.lp_dec.next = bits::<6>(2);
        }
        self.lp_pipe.d.next = self.lp_pipe.q.val() + self.lp_inc.val() - self.lp_dec.val();
        self.xregs.loop_status_in_pipe.next = self.lp_pipe.q.val();
        self.xregs.loop_sent_count.next = self.lp_sent.q.val();
        self.xregs.loop_delivered_count.next = self.lp_deliv.q.val();
        self.xregs.loop_rewinds_count.next = self.lp_rew.q.val();
        self.xregs.loop_timeouts_count.next = self.lp_tmo.q.val();
        // every returned ACK reaches the marker at its fixed stage (LAS)
        self.xregs.loop_lost_count.next = bits::<32>(0);
        self.wred.egress_drain_bytes.next = self.xregs.wred_drain_bytes.val();
        self.wred.cfg_k_min_bytes.next = self.xregs.wred_k_min_bytes.val();
        self.wred.cfg_k_max_bytes.next = self.xregs.wred_k_max_bytes.val();
        self.wred.cfg_k_bytes.next = self.xregs.wred_k_bytes.val();
        self.wred.cfg_buf_max_bytes.next = self.xregs.wred_buf_max_bytes.val();
        self.wred.cfg_p_max.next = self.xregs.wred_p_max_p.val();
        self.wred.cfg_seed.next = self.xregs.wred_seed_seed.val();
        if self.wred.out_valid.val() {
            self.wred_decision.d.next = self.wred.out_decision.val();
            self.wred_ecn.d.next = self.wred.out_ecn.val();
        }
        self.xregs.wred_last_decision.next = self.wred_decision.q.val();
        self.xregs.wred_last_ecn.next = self.wred_ecn.q.val();
        self.xregs.wred_occ_bytes.next = self.wred.stat_occupancy_bytes.val();
        self.xregs.wred_forwarded_count.next = self.wred.stat_forwarded_pkts.val();
        self.xregs.wred_marked_count.next = self.wred.stat_marked_pkts.val();
        self.xregs.wred_dropped_wred_count.next = self.wred.stat_dropped_wred_pkts.val();
        self.xregs.wred_dropped_full_count.next = self.wred.stat_dropped_overflow_pkts.val();

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
        self.obs_wred_out_valid.next = self.wred.out_valid.val();
        self.obs_wred_out_decision.next = self.wred.out_decision.val();

        // ---- counter clear and core reset
        if self.core.sys_cnt_clear.val() | self.core.sys_core_rst.val() {
            self.pt_grants.d.next = bits::<32>(0);
            self.pt_max_late.d.next = bits::<16>(0);
            self.fs_events.d.next = bits::<32>(0);
            self.fs_errors.d.next = bits::<32>(0);
            self.ag_acks.d.next = bits::<32>(0);
            self.ag_naks.d.next = bits::<32>(0);
            self.ag_errors.d.next = bits::<32>(0);
            self.lp_sent.d.next = bits::<32>(0);
            self.lp_deliv.d.next = bits::<32>(0);
            self.lp_rew.d.next = bits::<32>(0);
            self.lp_tmo.d.next = bits::<32>(0);
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
            self.lp_tx_flow.d.next = bits::<FB>(0);
            self.lp_tx_psn.d.next = bits::<24>(0);
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
            self.rx_wr.d.next = bits::<6>(0);
            self.rx_wr_d.d.next = bits::<6>(0);
            self.rx_rd.d.next = bits::<6>(0);
            self.lp_pipe.d.next = bits::<6>(0);
            self.lp_wovr.d.next = bits::<1>(0);
            self.fs_pend.d.next = false;
            self.ag_pend.d.next = false;
            self.fs_ovr.d.next = bits::<1>(0);
            self.ag_ovr.d.next = bits::<1>(0);
            self.pt_last_flow.d.next = bits::<FB>(0);
            self.pt_last_late.d.next = bits::<16>(0);
            self.fs_r_kind.d.next = bits::<2>(0);
            self.fs_r_err.d.next = bits::<2>(0);
            self.fs_r_ecn.d.next = bits::<2>(0);
            self.fs_r_stage.d.next = bits::<2>(0);
            self.fs_r_set.d.next = false;
            self.fs_r_gbn.d.next = false;
            self.fs_r_flow.d.next = bits::<FB>(0);
            self.fs_r_word0.d.next = bits::<16>(0);
            self.fs_r_csum.d.next = bits::<16>(0);
            self.fs_r_psn.d.next = bits::<24>(0);
            self.fs_r_cw.d.next = bits::<12>(0);
            self.ag_a_psn.d.next = bits::<24>(0);
            self.ag_a_n.d.next = bits::<4>(0);
            self.ag_a_ece.d.next = false;
            self.ag_a_nak.d.next = false;
            self.ag_a_flow.d.next = bits::<FB>(0);
            self.ag_err.d.next = bits::<2>(0);
            self.wred_decision.d.next = bits::<2>(0);
            self.wred_ecn.d.next = bits::<2>(0);
        }
    }
}

ldcp_sim::nic_system_ports!(crate::hand_stepped {
    NicSystem<FB, EW, QB> [const FB: usize, const EW: usize, const QB: usize],
    ldcp_sim::nic_system::SysIn,
    ldcp_sim::nic_system::SysOut
});

/// The NIC system in RustHDL's simulator, stepped by hand.
pub type NicSystemRustHdl = crate::stepper::RustHdlSim<NicSystemIce40>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::nic_system::{stimulus, NicSystemModel, SysIn};

    #[test]
    fn nic_system_rusthdl_simulation_matches_model() {
        let mut sim = NicSystemRustHdl::new();
        let mut m = NicSystemModel::new(0, true);
        for (c, b) in stimulus(12).take(1_500).map(SysIn::from).enumerate() {
            let o = sim.step(&b).expect("RustHDL settles");
            m.tick(&b.bus());
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {b:?}");
        }
    }
}
