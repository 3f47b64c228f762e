//! `CoordDecision`: draft 002's per-packet decision at a switch port
//! (COMPANION.md C9 and the checklist around it), one packet per clock:
//! re-route, write the AR indicator, send a type 3, allow marking, incast.
//!
//! The rule and its choices are in `ldcp_sim::coord` (module doc and
//! `decide`); `CoordDecisionModel` mirrors every output and cosimulation
//! compares them every cycle.
//!
//! # Timing (design constants)
//! - One packet per clock, no back-pressure; a packet presented in cycle t
//!   has its decision on the output registers in cycle t + 1
//!   (`DECISION_LATENCY_CYCLES`), 0 in a cycle without one; its counts one
//!   cycle later.
//! - `reset` drops the packet in flight and zeroes the counters.
//!
//! The decision is six gates deep at most: the registers are the cost.

use ldcp_sim::coord::{DECISION_LATENCY_CYCLES, LIGHT_MAX};
use rust_hdl::prelude::*;

const _: () = assert!(DECISION_LATENCY_CYCLES == 1 && LIGHT_MAX == 3);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "coord_decision",
    doc: "draft-lyu-rtgwg-coordinated-cm's per-packet decision at a switch port (COMPANION.md C9): re-route, write the AR indicator, send a type 3, allow marking, incast; one packet per clock",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, CoordDecision::default())
}

/// See the module doc.
#[derive(LogicBlock, Default)]
pub struct CoordDecision {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A packet.
    pub in_valid: Signal<In, Bit>,
    /// Its egress queue is at least K_min.
    pub in_congested: Signal<In, Bit>,
    /// Its tag's CC indicator.
    pub in_cc: Signal<In, Bit>,
    /// Light-loaded candidate paths, 0-3 (3: three or more).
    pub in_light: Signal<In, Bits<2>>,
    /// Its tag's AR indicator is valid.
    pub in_arv: Signal<In, Bit>,
    /// Its egress faces the destination host.
    pub in_last_hop: Signal<In, Bit>,
    /// A decision.
    pub out_valid: Signal<Out, Bit>,
    /// Re-route onto a light candidate.
    pub out_reroute: Signal<Out, Bit>,
    /// Write this switch into the AR indicator.
    pub out_write_indicator: Signal<Out, Bit>,
    /// Send a type 3 to the AR point.
    pub out_type3: Signal<Out, Bit>,
    /// Marking allowed.
    pub out_mark_allowed: Signal<Out, Bit>,
    /// An incast flow's packet.
    pub out_incast: Signal<Out, Bit>,
    /// Packets re-routed (saturating).
    pub stat_reroutes: Signal<Out, Bits<32>>,
    /// Type 3 notifications decided (saturating).
    pub stat_type3: Signal<Out, Bits<32>>,
    /// Congested packets left to congestion control (saturating).
    pub stat_marks_allowed: Signal<Out, Bits<32>>,
    /// Incast packets (saturating).
    pub stat_incast: Signal<Out, Bits<32>>,
    ar_possible: Signal<Local, Bit>,
    none_light: Signal<Local, Bit>,
    ov: DFF<Bit>,
    ore: DFF<Bit>,
    owi: DFF<Bit>,
    ot3: DFF<Bit>,
    oma: DFF<Bit>,
    oinc: DFF<Bit>,
    n_re: DFF<Bits<32>>,
    n_t3: DFF<Bits<32>>,
    n_ma: DFF<Bits<32>>,
    n_inc: DFF<Bits<32>>,
}

impl Logic for CoordDecision {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ov, ore, owi, ot3, oma, oinc, n_re, n_t3, n_ma, n_inc);
        // ---- the decision (ldcp_sim::coord::decide), registered; 0
        // without a packet
        self.ar_possible.next = self.in_valid.val()
            & self.in_congested.val()
            & !self.in_cc.val()
            & !self.in_last_hop.val();
        self.none_light.next = !self.in_light.val().any();
        self.ov.d.next = self.in_valid.val();
        self.ore.d.next = self.ar_possible.val() & !self.none_light.val();
        self.owi.d.next =
            self.in_valid.val() & !self.in_last_hop.val() & self.in_light.val().get_bit(1);
        self.ot3.d.next = self.ar_possible.val() & self.none_light.val() & self.in_arv.val();
        self.oma.d.next = self.in_valid.val()
            & self.in_congested.val()
            & (self.in_cc.val()
                | self.in_last_hop.val()
                | (self.none_light.val() & !self.in_arv.val()));
        self.oinc.d.next = self.in_valid.val() & self.in_congested.val() & self.in_last_hop.val();
        // ---- the counters count the registered decision
        if self.ore.q.val() & !self.n_re.q.val().all() {
            self.n_re.d.next = self.n_re.q.val() + bits::<32>(1);
        }
        if self.ot3.q.val() & !self.n_t3.q.val().all() {
            self.n_t3.d.next = self.n_t3.q.val() + bits::<32>(1);
        }
        if self.oma.q.val() & !self.n_ma.q.val().all() {
            self.n_ma.d.next = self.n_ma.q.val() + bits::<32>(1);
        }
        if self.oinc.q.val() & !self.n_inc.q.val().all() {
            self.n_inc.d.next = self.n_inc.q.val() + bits::<32>(1);
        }
        self.out_valid.next = self.ov.q.val();
        self.out_reroute.next = self.ore.q.val();
        self.out_write_indicator.next = self.owi.q.val();
        self.out_type3.next = self.ot3.q.val();
        self.out_mark_allowed.next = self.oma.q.val();
        self.out_incast.next = self.oinc.q.val();
        self.stat_reroutes.next = self.n_re.q.val();
        self.stat_type3.next = self.n_t3.q.val();
        self.stat_marks_allowed.next = self.n_ma.q.val();
        self.stat_incast.next = self.n_inc.q.val();
        // ---- reset: nothing in flight, the counters zeroed
        if self.reset.val() {
            self.ov.d.next = false;
            self.ore.d.next = false;
            self.owi.d.next = false;
            self.ot3.d.next = false;
            self.oma.d.next = false;
            self.oinc.d.next = false;
            self.n_re.d.next = bits::<32>(0);
            self.n_t3.d.next = bits::<32>(0);
            self.n_ma.d.next = bits::<32>(0);
            self.n_inc.d.next = bits::<32>(0);
        }
    }
}

ldcp_sim::coord_decision_ports!(crate::hand_stepped {
    CoordDecision [],
    ldcp_sim::coord::CoordInputs,
    ldcp_sim::coord::CoordOutputs
});

/// The block in RustHDL's own simulator, stepped by hand.
pub type CoordDecisionRustHdl = crate::stepper::RustHdlSim<CoordDecision>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::coord::{coord_stimulus, CoordDecisionModel};

    #[test]
    fn coord_decision_rusthdl_simulation_matches_model() {
        let mut sim = CoordDecisionRustHdl::new();
        let mut m = CoordDecisionModel::new();
        for (c, i) in coord_stimulus(5).take(3_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
