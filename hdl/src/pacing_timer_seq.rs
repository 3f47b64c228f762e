//! `PacingTimerSeq`: the gamma floor's timer in the fewest cells, for a
//! board the pipelined [`crate::pacing_timer::PacingTimer`] does not fit
//! beside the other NIC blocks (the Alchitry Cu's HX8K). Same ports and
//! the same rules as `ldcp_sim::pacing_timer` (a member is granted one
//! send credit when its due time has come, the next due time is the last
//! one plus the latest interval, one whole interval behind restarts from
//! the visit), with one table and one op at a time: no pipeline, no
//! second or third table, no bypass.
//!
//! Unlike the pipelined timer, a join fixes its first due time when the
//! update is taken (T of the take cycle plus the interval), as the
//! functional `PacedFlow` does, so the pipelined timer's known defect (a
//! restart at T equal to the old join time modulo 2^25 not seen as fresh)
//! does not exist here. `ldcp_sim::pacing_timer::PacingTimerSeqModel` is its cycle
//! model, and cosimulation compares every port every cycle.
//!
//! # The table and its ops (design constants)
//! One entry per flow, in two block RAMs read at one address: member bit
//! and interval (written by updates only), and the next due time (written
//! by a join and by a grant). One op starts at a time:
//! - a **visit** of the flow under the pointer, started in cycle s: the
//!   entry is read at the end of s and registered at the end of s + 1; in
//!   s + 2 the visit registers due? (member and `T - next` not negative),
//!   the lateness and `next + interval`; in s + 3 it writes the due time
//!   of a grant (`next + interval`, or `T + interval` when that is reached
//!   too) and registers the grant, shown in s + 4. The next visit may
//!   start in s + 2 (its entry register is loaded at the end of s + 3), so
//!   visits follow every [`ldcp_sim::pacing_timer::SEQ_VISIT_CYCLES`] = 2
//!   cycles: a flow is visited every 2N cycles when no update waits.
//! - an **update** waiting in the input register: it starts in a cycle
//!   with no visit in flight (its read at the end of that cycle) and
//!   writes its entry at the end of the next one. After an update the next
//!   op is a visit, so updates never starve the scanner: the gap between
//!   two visits is at most 2 + [`ldcp_sim::pacing_timer::SEQ_UPDATE_CYCLES`]
//!   = 6 cycles, a lap at most 6N cycles, and a grant at most a lap less
//!   one cycle late for intervals of 3 cycles or more
//!   (`ldcp_sim::pacing_timer::seq_lateness_bound_cycles`).
//!
//! An update is taken into the input register when `in_ready` (no update
//! waits, no sweep; from registers), and written at most 5 cycles after
//! its take: a source with at least 6 cycles between updates (the
//! sequential window engine: one result per 7 cycles at least) never
//! sees `in_ready` low outside a sweep. A flow id beyond the table is
//! taken and dropped; `stat_err_flow_strobe` shows it two cycles after the
//! take, as the pipelined timer's.
//!
//! # Reset
//! `reset` (synchronous): the op in flight and the input register are
//! dropped (a reset cycle writes nothing), outputs, the pointer and T are
//! cleared, then the table is swept idle, one entry a clock (N cycles,
//! `in_ready` low), as [`ldcp_sim::Sweep`] does. The table powers up idle.

use ldcp_sim::pacing_timer::{FLOW_ID_BITS, INTERVAL_BITS, LATE_BITS, T_BITS};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = crate::pacing_timer::FB_ICE40;
const TB: usize = T_BITS as usize;
const IB: usize = INTERVAL_BITS;
/// Member bit | interval.
const V_BITS: usize = 1 + IB;
// the sign of a T difference and the member bit are bit 24 (literals: the
// Verilog sees no Rust constants)
const _: () = assert!(TB == 25 && IB == 24 && LATE_BITS == 16 && V_BITS == 25);
const _: () = assert!(
    ldcp_sim::pacing_timer::SEQ_VISIT_CYCLES == 2 && ldcp_sim::pacing_timer::SEQ_UPDATE_CYCLES == 4
);

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "pacing_timer_seq",
    doc: "pacing timer of the gamma floor in the fewest cells: one send credit per grant to flows with cw < 1 every RTT/cw, one table, a flow visited every 2 to 6 cycles x 256 flows (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
    // T - next: its sign (due?) and low 16 bits (the lateness) are read;
    // T - (next + interval): only its sign
    open: &["diff", "r2"],
    subs: &[],
};

/// The module of the formal-size build ([`crate::generate::FB_FORMAL`]
/// flow bits), for its property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the sequential pacing timer at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[],
};

/// The Verilog of the block with 2^`FB` flows, as module `m`.
pub fn verilog<const FB: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, PacingTimerSeq::<FB>::default())
}

/// The formal-size block's Verilog, for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

/// See the module doc. `FB` sizes the table: 2^`FB` flows, 8 (256) on the
/// iCE40, at least 1 (two visits in flight read different entries).
#[derive(LogicBlock)]
pub struct PacingTimerSeq<const FB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    /// An update this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// 0: an update; 1: a restart (the flow reset): interval 0 leaves, any
    /// other interval joins afresh, its first grant one interval after the
    /// take.
    pub in_restart: Signal<In, Bit>,
    /// Flow id, 16 bits (ids beyond the table are refused).
    pub in_flow: Signal<In, Bits<FLOW_ID_BITS>>,
    /// Pacing interval, cycles, UQ24; 0 when cw >= 1 (the flow leaves).
    pub in_interval_cycles: Signal<In, Bits<IB>>,
    /// Updates are taken (low while one waits, and during the sweep).
    pub in_ready: Signal<Out, Bit>,
    /// One send credit for `out_flow`.
    pub out_valid: Signal<Out, Bit>,
    /// The granted flow (0 with no grant).
    pub out_flow: Signal<Out, Bits<FLOW_ID_BITS>>,
    /// Lateness of the grant, cycles (T - due at the visit, low 16 bits).
    pub out_late_cycles: Signal<Out, Bits<LATE_BITS>>,
    /// The update taken two cycles ago named a flow beyond the table.
    pub stat_err_flow_strobe: Signal<Out, Bit>,
    // ---- time, the sweep
    t_now: DFF<Bits<TB>>,
    sw_active: DFF<Bit>,
    sw_ptr: DFF<Bits<FB>>,
    // ---- the input register
    u_v: DFF<Bit>,
    u_flow: DFF<Bits<FB>>,
    u_iv: DFF<Bits<IB>>,
    u_rst: DFF<Bit>,
    u_due: DFF<Bits<TB>>,
    // ---- the ops
    fair: DFF<Bit>,
    sc_ptr: DFF<Bits<FB>>,
    v_idx: DFF<Bits<FB>>,
    w_idx: DFF<Bits<FB>>,
    v1: DFF<Bit>,
    v2: DFF<Bit>,
    v3: DFF<Bit>,
    up: DFF<Bit>,
    q_act: DFF<Bit>,
    q_iv: DFF<Bits<TB>>,
    q_nx: DFF<Bits<TB>>,
    d_due: DFF<Bit>,
    d_late: DFF<Bits<LATE_BITS>>,
    d_n2: DFF<Bits<TB>>,
    // ---- outputs
    q_v: DFF<Bit>,
    q_flow: DFF<Bits<FB>>,
    q_late: DFF<Bits<LATE_BITS>>,
    q_e1: DFF<Bit>,
    q_e2: DFF<Bit>,
    // ---- the table: member | interval, and next due
    t_iv: RAM<Bits<V_BITS>, FB>,
    t_nx: RAM<Bits<TB>, FB>,
    // ---- combinational
    take: Signal<Local, Bit>,
    oor: Signal<Local, Bit>,
    want_upd: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    start_upd: Signal<Local, Bit>,
    start_vis: Signal<Local, Bit>,
    e_act: Signal<Local, Bit>,
    e_iv: Signal<Local, Bits<TB>>,
    e_nx: Signal<Local, Bits<TB>>,
    diff: Signal<Local, Bits<TB>>,
    r2: Signal<Local, Bits<TB>>,
    nx_vis: Signal<Local, Bits<TB>>,
    grant: Signal<Local, Bit>,
    u_join: Signal<Local, Bit>,
    iv_nz: Signal<Local, Bit>,
    // ---- constants
    flow_max: Constant<Bits<FLOW_ID_BITS>>,
    last_idx: Constant<Bits<FB>>,
    act_bit: Constant<Bits<V_BITS>>,
}

impl<const FB: usize> Default for PacingTimerSeq<FB> {
    fn default() -> Self {
        assert!(
            (1..=FLOW_ID_BITS).contains(&FB),
            "flow bits {FB} out of [1, {FLOW_ID_BITS}]"
        );
        with_defaults!(
            t_iv: RAM::from((0..1usize << FB).map(|_| Bits::<V_BITS>::from(0u64))),
            t_nx: RAM::from((0..1usize << FB).map(|_| Bits::<TB>::from(0u64))),
            flow_max: Constant::new(((1u64 << FB) - 1).into()),
            last_idx: Constant::new(((1u64 << FB) - 1).into()),
            act_bit: Constant::new((1u64 << IB).into()),
            ;
            clock, reset, in_valid, in_restart, in_flow, in_interval_cycles, in_ready,
            out_valid, out_flow, out_late_cycles, stat_err_flow_strobe, t_now, sw_active,
            sw_ptr, u_v, u_flow, u_iv, u_rst, u_due, fair, sc_ptr, v_idx, w_idx, v1, v2, v3, up,
            q_act, q_iv, q_nx, d_due, d_late, d_n2, q_v, q_flow, q_late, q_e1, q_e2, take, oor, want_upd, free,
            start_upd, start_vis, e_act, e_iv, e_nx, diff, r2, nx_vis, grant, u_join, iv_nz,
        )
    }
}

impl<const FB: usize> Logic for PacingTimerSeq<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, t_now, sw_active, sw_ptr, u_v, u_flow, u_iv, u_rst, u_due, fair, sc_ptr,
            v_idx, w_idx, v1, v2, v3, up, q_act, q_iv, q_nx, d_due, d_late, d_n2, q_v, q_flow,
            q_late, q_e1, q_e2
        );
        self.t_iv.read_clock.next = self.clock.val();
        self.t_iv.write_clock.next = self.clock.val();
        self.t_nx.read_clock.next = self.clock.val();
        self.t_nx.write_clock.next = self.clock.val();
        self.t_now.d.next = self.t_now.q.val() + bits::<TB>(1);

        // ---- the input register
        self.in_ready.next = !self.sw_active.q.val() & !self.u_v.q.val();
        self.take.next =
            self.in_valid.val() & !self.sw_active.q.val() & !self.u_v.q.val() & !self.reset.val();
        self.oor.next = self.in_flow.val() > self.flow_max.val();
        if self.up.q.val() {
            self.u_v.d.next = false;
        }
        self.q_e1.d.next = self.take.val() & self.oor.val();
        self.q_e2.d.next = self.q_e1.q.val();
        if self.take.val() & !self.oor.val() {
            self.u_v.d.next = true;
            self.u_flow.d.next = self.in_flow.val().get_bits::<FB>(0);
            self.u_iv.d.next = self.in_interval_cycles.val();
            self.u_rst.d.next = self.in_restart.val();
            self.u_due.d.next =
                self.t_now.q.val() + bit_cast::<TB, IB>(self.in_interval_cycles.val());
        }

        // ---- the port: an op starts when the read port is free
        self.want_upd.next = self.u_v.q.val() & !self.fair.q.val();
        self.free.next =
            !self.sw_active.q.val() & !self.reset.val() & !self.v1.q.val() & !self.up.q.val();
        self.start_upd.next =
            self.free.val() & self.want_upd.val() & !self.v2.q.val() & !self.v3.q.val();
        self.start_vis.next = self.free.val() & !self.want_upd.val();
        self.t_iv.read_address.next = self.sc_ptr.q.val();
        if self.want_upd.val() {
            self.t_iv.read_address.next = self.u_flow.q.val();
        }
        self.t_nx.read_address.next = self.t_iv.read_address.val();
        self.v1.d.next = self.start_vis.val();
        self.v2.d.next = self.v1.q.val();
        self.v3.d.next = self.v2.q.val();
        self.up.d.next = self.start_upd.val();
        if self.v2.q.val() {
            self.w_idx.d.next = self.v_idx.q.val();
        }
        if self.start_upd.val() {
            self.fair.d.next = true;
        }
        if self.start_vis.val() {
            self.fair.d.next = false;
            self.v_idx.d.next = self.sc_ptr.q.val();
            self.sc_ptr.d.next = self.sc_ptr.q.val() + bits::<FB>(1);
        }

        // ---- the entry on the RAMs' output (a visit's in s + 1, registered;
        // an update's in its write cycle)
        self.e_act.next = self.t_iv.read_data.val().get_bit(24);
        self.e_iv.next = bit_cast::<TB, IB>(self.t_iv.read_data.val().get_bits::<IB>(0));
        self.e_nx.next = self.t_nx.read_data.val();
        if self.v1.q.val() {
            self.q_act.d.next = self.e_act.val();
            self.q_iv.d.next = self.e_iv.val();
            self.q_nx.d.next = self.e_nx.val();
        }
        // s + 2: due? the lateness, next + interval (loaded every cycle,
        // read in s + 3 only)
        self.diff.next = self.t_now.q.val() - self.q_nx.q.val();
        self.d_due.d.next = self.q_act.q.val() & !self.diff.val().get_bit(24);
        self.d_late.d.next = self.diff.val().get_bits::<LATE_BITS>(0);
        self.d_n2.d.next = self.q_nx.q.val() + self.q_iv.q.val();
        // s + 3: the grant and its next due time
        self.r2.next = self.t_now.q.val() - self.d_n2.q.val();
        self.nx_vis.next = self.d_n2.q.val();
        if !self.r2.val().get_bit(24) {
            self.nx_vis.next = self.t_now.q.val() + self.q_iv.q.val();
        }
        self.grant.next = self.v3.q.val() & self.d_due.q.val();

        // ---- the writes: an update's entry, a grant's due time, or the
        // sweep; nothing in a reset cycle
        self.iv_nz.next = self.u_iv.q.val().any();
        self.u_join.next = self.u_rst.q.val() | !self.e_act.val();
        self.t_iv.write_address.next = self.u_flow.q.val();
        self.t_iv.write_data.next = bits::<V_BITS>(0);
        if self.iv_nz.val() {
            self.t_iv.write_data.next =
                bit_cast::<V_BITS, IB>(self.u_iv.q.val()) | self.act_bit.val();
        }
        self.t_iv.write_enable.next = self.up.q.val() & !self.reset.val();
        self.t_nx.write_address.next = self.w_idx.q.val();
        self.t_nx.write_data.next = self.nx_vis.val();
        self.t_nx.write_enable.next = self.grant.val() & !self.reset.val();
        if self.up.q.val() {
            self.t_nx.write_address.next = self.u_flow.q.val();
            self.t_nx.write_data.next = self.u_due.q.val();
            self.t_nx.write_enable.next = self.iv_nz.val() & self.u_join.val() & !self.reset.val();
        }
        if self.sw_active.q.val() {
            self.t_iv.write_address.next = self.sw_ptr.q.val();
            self.t_iv.write_data.next = bits::<V_BITS>(0);
            self.t_iv.write_enable.next = !self.reset.val();
            self.t_nx.write_address.next = self.sw_ptr.q.val();
            self.t_nx.write_data.next = bits::<TB>(0);
            self.t_nx.write_enable.next = !self.reset.val();
            self.sw_ptr.d.next = self.sw_ptr.q.val() + bits::<FB>(1);
            self.sw_active.d.next = self.sw_ptr.q.val() != self.last_idx.val();
        }

        // ---- the grant, shown the cycle after its decision
        self.q_v.d.next = self.grant.val();
        self.q_flow.d.next = bits::<FB>(0);
        self.q_late.d.next = bits::<LATE_BITS>(0);
        if self.grant.val() {
            self.q_flow.d.next = self.w_idx.q.val();
            self.q_late.d.next = self.d_late.q.val();
        }

        if self.reset.val() {
            self.t_now.d.next = bits::<TB>(0);
            self.sw_active.d.next = true;
            self.sw_ptr.d.next = bits::<FB>(0);
            self.u_v.d.next = false;
            self.fair.d.next = false;
            self.sc_ptr.d.next = bits::<FB>(0);
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.up.d.next = false;
            self.q_v.d.next = false;
            self.q_flow.d.next = bits::<FB>(0);
            self.q_late.d.next = bits::<LATE_BITS>(0);
            self.q_e1.d.next = false;
            self.q_e2.d.next = false;
        }
        self.out_valid.next = self.q_v.q.val();
        self.out_flow.next = bit_cast::<FLOW_ID_BITS, FB>(self.q_flow.q.val());
        self.out_late_cycles.next = self.q_late.q.val();
        self.stat_err_flow_strobe.next = self.q_e2.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]).
pub type PacingTimerSeqRustHdl<const FB: usize> = crate::stepper::RustHdlSim<PacingTimerSeq<FB>>;

ldcp_sim::pacing_timer_ports!(crate::hand_stepped {
    PacingTimerSeq<FB> [const FB: usize],
    ldcp_sim::pacing_timer::PtInputs,
    ldcp_sim::pacing_timer::PtOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::pacing_timer::{stimulus, PacingTimerSeqModel};

    /// RustHDL's own simulation agrees with the cycle model (the Verilog
    /// is checked by cosimulation).
    #[test]
    fn pacing_timer_seq_rusthdl_simulation_matches_model() {
        let mut sim = PacingTimerSeqRustHdl::<FB_ICE40>::new();
        let mut model = PacingTimerSeqModel::new(FB_ICE40 as u32);
        let (mut grants, mut ready_low, mut errs) = (0u32, 0u32, 0u32);
        for (c, i) in stimulus(5, FB_ICE40 as u32).take(20_000).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
            grants += got.out_valid as u32;
            ready_low += !got.in_ready as u32;
            errs += got.stat_err_flow_strobe as u32;
        }
        let st = model.stats();
        eprintln!("{grants} grants, {errs} refused, in_ready low {ready_low} cycles, {st:?}");
        assert!(
            grants > 300 && errs > 5 && ready_low > 2_000 && st.updates > 1_000,
            "{grants} {errs} {ready_low} {st:?}"
        );
    }
}
