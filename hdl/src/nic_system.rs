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
//!   egress drains WRED_DRAIN bytes per cycle.
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
//! # Resets
//! - A FLOW_CMD RESET the core accepts also resets the flow in the other
//!   blocks: a flow reset event (kind 3) to the fast-start marker, an open
//!   at PSN 0 to the ACK generator (held packets discarded), and the
//!   engine's update of the reset flow reaches the pacing timer as a
//!   restart (no due time survives).
//! - CORE_RESET resets every block and the extension registers (RW fields
//!   to their reset values). The pacing timer sweeps its tables first (256
//!   cycles) while the core's own sweep waits (`sweep_hold`), so the
//!   sweep's updates (every flow at INIT_CW) all reach the timer: STATUS.
//!   RESETTING is high for 512 cycles. (CORE_RESET returns INIT_CW to 1.0,
//!   whose updates make flows leave, so the hold matters when software
//!   writes an INIT_CW below 1 during the sweep: those flows then join.)
//! - An FS_EV, AG_EV or FLOW_CMD RESET written in the cycle right after a
//!   CORE_RESET write is lost with the reset (the slots are cleared at that
//!   edge), unflagged; software waits for STATUS.RESETTING to clear anyway.
//! - The pacing timer tells a restart by its join time (25 bits of T): a
//!   restart exactly 2^25 cycles after the flow's last join keeps the old
//!   due time (0.56 s at 60 MHz; the same holds for a leave and rejoin). The WRED/ECN port reloads its
//!   generator from the WRED_SEED held when CORE_RESET was written.
//! - At power-up the WRED/ECN port is reset for one cycle (its generator
//!   state is 0 until a reset loads a seed; a seed of 0 loads the
//!   substitute). The other blocks' tables power up idle.
//! - CNT_CLEAR also zeroes PT_GRANTS, PT_MAX_LATE, FS_EVENTS, FS_ERRORS,
//!   AG_ACKS, AG_NAKS and AG_ERRORS; the port's WRED_* counters (saturating,
//!   inside the block) clear on CORE_RESET only.

use crate::ack_generator::AckGenerator;
use crate::ext_regfile::ExtRegFile;
use crate::fast_start_marker::FastStartMarker;
use crate::nic_core::{BuildId, NicCore, FLOW_BITS};
use crate::pacing_timer::PacingTimer;
use crate::wred_ecn::WredEcn;
use rust_hdl::prelude::*;

const FB: usize = FLOW_BITS;
// the hand-off's packets -> UQ12.20 is a literal shift of a 12-bit count
const _: () = assert!(
    ldcp_sim::fast_start_marker::COUNT_BITS == 12 && ldcp_sim::window_engine::CW_FRAC_BITS == 20
);

/// The NIC system (see the module doc).
#[derive(LogicBlock)]
pub struct NicSystem {
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
    core: NicCore,
    xregs: ExtRegFile,
    pt: PacingTimer,
    fs: FastStartMarker,
    ag: AckGenerator,
    wred: WredEcn,
    one32: Constant<Bits<32>>,
    kind_reset: Constant<Bits<2>>,
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
}

impl NicSystem {
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
            core: NicCore::with_ext(build, true),
            xregs: Default::default(),
            pt: Default::default(),
            fs: Default::default(),
            ag: Default::default(),
            wred: Default::default(),
            one32: Constant::new(bits::<32>(1)),
            kind_reset: Constant::new(bits::<2>(3)),
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
        }
    }
}

impl Default for NicSystem {
    /// A system reporting GIT_HASH 0 with CAPS.DIRTY set (tests, benches).
    fn default() -> Self {
        NicSystem::new(BuildId::UNSTAMPED)
    }
}

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "nic_system",
    doc: "the LDCP NIC system: the NIC core plus the pacing timer (fed by the window engine), fast-start marker, ACK generator and WRED/ECN port behind the extension registers of docs/regmap.md (simulation size: more than the HX8K holds)",
    open: &[],
    subs: &[
        &crate::nic_core::MODULE,
        &crate::fast_start_marker::MODULE,
        &crate::pacing_timer::MODULE,
        &crate::ack_generator::MODULE,
        &crate::wred_ecn::MODULE,
    ],
};

/// The system's finalized Verilog (module [`MODULE`]), stamped with
/// `build`; every sub-block input the top drives is marked
/// `isolate_assignments` ([`crate::verilog::isolate_sub_inputs`]).
pub fn verilog(build: BuildId) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(NicSystem::new(build))
        .map(|v| crate::verilog::isolate_table_inputs(&crate::verilog::isolate_sub_inputs(&v)))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, MODULE.name, MODULE.doc, &MODULE.open_all())
}

impl Logic for NicSystem {
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
            wred_ecn
        );
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
        self.xregs.pt_last_flow.next = self.pt_last_flow.q.val();
        self.xregs.pt_last_late.next = self.pt_last_late.q.val();
        self.xregs.pt_max_late_late.next = self.pt_max_late.q.val();

        // ---- fast-start marker: its slot
        self.fs.reset.next = self.core.sys_core_rst.val();
        self.fs.cfg_iw_pkts.next = self.xregs.fs_iw_pkts.val();
        self.fs.in_valid.next = self.fs_pend.q.val() & !self.core.sys_sweeping.val();
        self.fs.in_kind.next = self.fs_kind.q.val();
        self.fs.in_flow.next = bit_cast::<16, FB>(self.fs_flow.q.val());
        self.fs.in_psn.next = self.fs_psn.q.val();
        self.fs.in_last.next = self.fs_last.q.val();
        self.fs.in_word0.next = self.fs_word0.q.val();
        self.fs.in_csum.next = self.fs_csum.q.val();
        self.fs_take.next =
            self.fs_pend.q.val() & self.fs.in_ready.val() & !self.core.sys_sweeping.val();
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
                self.fs_flow.d.next = self.xregs.fs_ev_flow.val();
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
        self.xregs.fs_result_flow.next = self.fs_r_flow.q.val();
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
        self.ag.in_valid.next = self.ag_pend.q.val();
        self.ag.in_open.next = self.ag_kind.q.val();
        self.ag.in_flow.next = bit_cast::<16, FB>(self.ag_flow.q.val());
        self.ag.in_psn.next = self.ag_psn.q.val();
        self.ag.in_ce.next = self.ag_ce.q.val();
        self.ag.in_last.next = self.ag_last.q.val();
        self.ag_take.next = self.ag_pend.q.val() & self.ag.in_ready.val();
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
                self.ag_flow.d.next = self.xregs.ag_ev_flow.val();
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
        self.xregs.ag_ack_flow_flow.next = self.ag_a_flow.q.val();
        self.xregs.ag_acks_count.next = self.ag_acks.q.val();
        self.xregs.ag_naks_count.next = self.ag_naks.q.val();
        self.xregs.ag_errors_count.next = self.ag_errors.q.val();
        self.xregs.ag_err_code.next = self.ag_err.q.val();

        // ---- WRED/ECN port
        self.por.d.next = false;
        self.wred.reset.next = self.core.sys_core_rst.val() | self.por.q.val();
        self.wred.in_valid.next = self.xregs.wred_pkt_wr.val();
        self.wred.in_len_bytes.next = self.xregs.wred_pkt_len.val();
        self.wred.in_ecn.next = self.xregs.wred_pkt_ecn.val();
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
        }
        if self.core.sys_core_rst.val() {
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
    NicSystem [],
    ldcp_sim::nic_system::SysIn,
    ldcp_sim::nic_system::SysOut
});

/// The NIC system in RustHDL's simulator, stepped by hand.
pub type NicSystemRustHdl = crate::stepper::RustHdlSim<NicSystem>;

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
