//! Draft 002's per-packet decision at a switch port (draft-lyu-rtgwg-
//! coordinated-cm §6.3, COMPANION.md C1, C4, C6-C9, H2, H3, H6, H7, H9,
//! H14): given whether the packet's egress is congested, its tag's CC bit
//! and AR indicator, how many light-loaded candidate paths the switch has
//! and whether the egress faces the destination host, decide whether to
//! re-route it, write this switch into its AR indicator, send a type 3 to
//! the AR point upstream, allow congestion control (ECN marking), and
//! whether it is an incast flow's packet (a type 1 candidate).
//!
//! The rule ([`decide`]), with the choices where 002 is silent:
//! - **Congested** and **light** are the port's (H2): congested iff the
//!   egress queue is at least K_min (the WRED/ECN parameter of draft 000),
//!   light iff a candidate's queue is below K_min and its link is up;
//!   the candidates are the routing's next hops to the destination, so the
//!   congested egress itself is never counted light. `L` saturates at 3
//!   (two bits in hardware: 0, 1, 2 and "3 or more" are all the rule
//!   distinguishes).
//! - **Incast** (C4): congestion on a last-hop port (the egress faces the
//!   destination host). Its packets are CC'd (marked), never re-routed
//!   (C1, C7), and are type 1 candidates (C5; the rate limiter and the
//!   flow set are the notifier's, H4).
//! - **The indicator** (C9, H3, H9): a switch with two or more light
//!   candidates writes itself into the AR indicator of every packet it
//!   forwards, CC-tagged or not, congested or not (002 §7: the multi-path
//!   L1-1-1 and L2-1-1 write it, the single-path L3-1-1 keeps it); never
//!   at the last hop, which has one way to the host.
//! - **Congested, not CC, not the last hop** (C8, C9): one light
//!   candidate or more -> re-route (with two or more, also the indicator
//!   above); none, and the indicator is valid -> a type 3 to the AR point,
//!   the packet forwarded unmarked on its path (H7); none and no AR point
//!   -> congestion control (mark).
//! - **CC-tagged** (C7, H9, H14): marked normally at any congested switch,
//!   never re-routed and never the cause of a type 3.
//! - Not congested: nothing but the indicator.
//!
//! So a congested packet gets exactly one of re-route, type 3 and mark
//! allowed, and an uncongested one none (a test checks it over every
//! input). H6: hosts obey every congestion
//! signal; "mark allowed" only says WRED/ECN may mark (it still marks by
//! its own probability, and drops at buf_max regardless).

/// Cycles from a packet on the inputs to its decision on the output
/// registers of `CoordDecision` (a design constant).
pub const DECISION_LATENCY_CYCLES: usize = 1;

/// Light candidate paths as the block counts them: 0, 1, 2, 3 or more.
pub const LIGHT_MAX: u8 = 3;

/// What the decision sees of one packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DecisionIn {
    /// The packet's egress queue is at least K_min (H2).
    pub congested: bool,
    /// The tag's CC indicator.
    pub cc: bool,
    /// Light-loaded candidate paths, saturated at [`LIGHT_MAX`].
    pub light: u8,
    /// The tag's AR indicator is valid.
    pub arv: bool,
    /// The egress faces the destination host (the last hop).
    pub last_hop: bool,
}

/// What the switch does with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decision {
    /// Forward on a light candidate instead of its current path.
    pub reroute: bool,
    /// Write this switch into the AR indicator (ARV := 1, AR_ID := self).
    pub write_indicator: bool,
    /// Send a type 3 to the AR point the tag names.
    pub type3: bool,
    /// WRED/ECN may mark it (congestion control applies).
    pub mark_allowed: bool,
    /// An incast flow's packet: a type 1 candidate.
    pub incast: bool,
}

/// The rule (see the module doc).
pub fn decide(i: &DecisionIn) -> Decision {
    let light = i.light.min(LIGHT_MAX);
    let ar_possible = i.congested && !i.cc && !i.last_hop;
    Decision {
        reroute: ar_possible && light >= 1,
        write_indicator: !i.last_hop && light >= 2,
        type3: ar_possible && light == 0 && i.arv,
        mark_allowed: i.congested && (i.cc || i.last_hop || (light == 0 && !i.arv)),
        incast: i.congested && i.last_hop,
    }
}

crate::ports! {
    callback coord_decision_ports;
    /// One cycle of the decision's inputs: a packet's view (see
    /// [`DecisionIn`]).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct CoordInputs {
        /// Synchronous reset: the packet in flight dropped, the counters zeroed.
        reset: bool = 1,
        /// A packet this cycle (one per clock, no back-pressure).
        in_valid: bool = 1,
        /// Its egress queue is at least K_min.
        in_congested: bool = 1,
        /// Its tag's CC indicator.
        in_cc: bool = 1,
        /// Light-loaded candidate paths, 0-3 (3: three or more).
        in_light: u8 = 2,
        /// Its tag's AR indicator is valid.
        in_arv: bool = 1,
        /// Its egress faces the destination host.
        in_last_hop: bool = 1,
    }
    /// The registered outputs (0 in a cycle without a packet) and the
    /// saturating counters.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct CoordOutputs {
        /// A decision.
        out_valid: bool = 1,
        /// Re-route onto a light candidate.
        out_reroute: bool = 1,
        /// Write this switch into the AR indicator.
        out_write_indicator: bool = 1,
        /// Send a type 3 to the AR point.
        out_type3: bool = 1,
        /// Marking allowed.
        out_mark_allowed: bool = 1,
        /// An incast flow's packet.
        out_incast: bool = 1,
        /// Packets re-routed.
        stat_reroutes: u32 = 32,
        /// Type 3 notifications decided.
        stat_type3: u32 = 32,
        /// Congested packets left to congestion control.
        stat_marks_allowed: u32 = 32,
        /// Incast packets.
        stat_incast: u32 = 32,
    }
}

impl CoordInputs {
    /// A packet with `d`'s view, on an otherwise idle cycle.
    pub fn packet(d: &DecisionIn) -> CoordInputs {
        CoordInputs {
            in_valid: true,
            in_congested: d.congested,
            in_cc: d.cc,
            in_light: d.light.min(LIGHT_MAX),
            in_arv: d.arv,
            in_last_hop: d.last_hop,
            ..Default::default()
        }
    }

    /// The view of this cycle's packet (meaningful with `in_valid`).
    pub fn view(&self) -> DecisionIn {
        DecisionIn {
            congested: self.in_congested,
            cc: self.in_cc,
            light: self.in_light & LIGHT_MAX,
            arv: self.in_arv,
            last_hop: self.in_last_hop,
        }
    }
}

impl CoordOutputs {
    /// The decision on the output registers (all false without one).
    pub fn decision(&self) -> Decision {
        Decision {
            reroute: self.out_reroute,
            write_indicator: self.out_write_indicator,
            type3: self.out_type3,
            mark_allowed: self.out_mark_allowed,
            incast: self.out_incast,
        }
    }
}

/// The cycle model of `CoordDecision` (`hdl/src/coord_decision.rs`): the
/// decision registered one cycle after its packet, the four counters
/// (saturating at 2^32 - 1) counting the registered decision one cycle
/// later still.
#[derive(Clone, Debug, Default)]
pub struct CoordDecisionModel {
    out: CoordOutputs,
}

impl CoordDecisionModel {
    /// The block at power-up.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> CoordOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &CoordInputs) {
        if i.reset {
            *self = Self::default();
            return;
        }
        let o = self.out;
        let add = |n: u32, b: bool| n.saturating_add(b as u32);
        let d = if i.in_valid {
            decide(&i.view())
        } else {
            Decision::default()
        };
        self.out = CoordOutputs {
            out_valid: i.in_valid,
            out_reroute: d.reroute,
            out_write_indicator: d.write_indicator,
            out_type3: d.type3,
            out_mark_allowed: d.mark_allowed,
            out_incast: d.incast,
            stat_reroutes: add(o.stat_reroutes, o.out_reroute),
            stat_type3: add(o.stat_type3, o.out_type3),
            stat_marks_allowed: add(o.stat_marks_allowed, o.out_mark_allowed),
            stat_incast: add(o.stat_incast, o.out_incast),
        };
    }
}

impl crate::cosim::CosimModel for CoordDecisionModel {
    type Input = CoordInputs;
    type Output = CoordOutputs;

    fn tick(&mut self, i: &CoordInputs) {
        CoordDecisionModel::tick(self, i)
    }

    fn outputs(&self) -> CoordOutputs {
        CoordDecisionModel::outputs(self)
    }

    /// Idle cycles until the last decision has left and been counted.
    fn drain(&self, _last: Option<&CoordInputs>) -> Vec<CoordInputs> {
        vec![CoordInputs::default(); DECISION_LATENCY_CYCLES + 1]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let o = &self.out;
        let n = o.out_reroute as u64
            + o.out_type3 as u64
            + o.out_mark_allowed as u64
            + o.out_incast as u64;
        if n == 0 {
            vec![]
        } else {
            vec![("a decision not yet counted", n)]
        }
    }
}

/// The decision's stimulus: packets most cycles, every input combination
/// often (congestion half the time), resets now and then.
#[derive(Clone, Debug, Default)]
pub struct CoordStimulus;

impl crate::Stimulus for CoordStimulus {
    type Input = CoordInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> CoordInputs {
        let x = d.next_u64();
        CoordInputs {
            reset: x.is_multiple_of(2_000),
            in_valid: !(x >> 12).is_multiple_of(5),
            in_congested: x >> 20 & 1 != 0,
            in_cc: (x >> 21) & 3 == 0,
            in_light: (x >> 23) as u8 & LIGHT_MAX,
            in_arv: x >> 25 & 1 != 0,
            in_last_hop: (x >> 26) & 3 == 0,
        }
    }
}

/// A seeded stream of the decision's inputs.
pub fn coord_stimulus(seed: u64) -> impl Iterator<Item = CoordInputs> + Clone {
    crate::seeded(CoordStimulus, seed ^ 0xC00D_0002_0000_0001)
}

/// Every input of the decision: 2 x 2 x 4 x 2 x 2 = 64.
pub fn every_input() -> impl Iterator<Item = DecisionIn> {
    (0u8..64).map(|k| DecisionIn {
        congested: k & 1 != 0,
        cc: k & 2 != 0,
        light: k >> 2 & LIGHT_MAX,
        arv: k & 16 != 0,
        last_hop: k & 32 != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C9 as COMPANION.md words it, transcribed row by row for an
    /// untagged packet on a congested, non-last-hop port: (L, indicator
    /// valid) -> (re-route, indicator written, type 3, mark allowed).
    /// (re-route, indicator written, type 3, mark allowed)
    type Actions = (bool, bool, bool, bool);

    const C9: [(u8, bool, Actions); 8] = [
        (0, false, (false, false, false, true)),
        (0, true, (false, false, true, false)),
        (1, false, (true, false, false, false)),
        (1, true, (true, false, false, false)),
        (2, false, (true, true, false, false)),
        (2, true, (true, true, false, false)),
        (3, false, (true, true, false, false)),
        (3, true, (true, true, false, false)),
    ];

    #[test]
    fn c9_rows_hold_for_an_untagged_congested_packet() {
        for (light, arv, want) in C9 {
            let d = decide(&DecisionIn {
                congested: true,
                cc: false,
                light,
                arv,
                last_hop: false,
            });
            assert_eq!(
                (d.reroute, d.write_indicator, d.type3, d.mark_allowed),
                want,
                "L {light}, ARV {arv}"
            );
            assert!(!d.incast);
        }
    }

    /// Every input, against the checklist's statements one by one (a
    /// second reading of C1, C4, C7, C8, H7, H9, H14 beside `decide`).
    #[test]
    fn every_input_obeys_the_checklist() {
        let mut seen = std::collections::HashSet::new();
        for i in every_input() {
            assert!(seen.insert(i), "{i:?} twice");
            let d = decide(&i);
            // C4: incast iff congested on the last hop
            assert_eq!(d.incast, i.congested && i.last_hop, "{i:?}");
            // C1, H9: CC-tagged and incast packets are never re-routed,
            // and never cause a type 3
            if i.cc || i.last_hop {
                assert!(!d.reroute && !d.type3, "{i:?}");
            }
            // C7, H14: CC-tagged or incast and congested -> marked
            if i.congested && (i.cc || i.last_hop) {
                assert!(d.mark_allowed, "{i:?}");
            }
            // H7: the packet that causes a type 3 goes unmarked
            if d.type3 {
                assert!(!d.mark_allowed && i.arv && i.light == 0, "{i:?}");
            }
            // C8: a re-route needs congestion, CC 0 and a light path
            if d.reroute {
                assert!(i.congested && !i.cc && i.light >= 1, "{i:?}");
            }
            // H3, 002 §7: the indicator is written where two or more
            // light paths exist (not at the last hop), whatever else
            assert_eq!(d.write_indicator, i.light >= 2 && !i.last_hop, "{i:?}");
            // nothing but the indicator without congestion
            if !i.congested {
                assert!(
                    !d.reroute && !d.type3 && !d.mark_allowed && !d.incast,
                    "{i:?}"
                );
            }
        }
        assert_eq!(seen.len(), 64);
    }

    #[test]
    fn every_congested_packet_gets_one_action() {
        for i in every_input() {
            let d = decide(&i);
            let actions = d.reroute as u8 + d.type3 as u8 + d.mark_allowed as u8;
            assert_eq!(actions, i.congested as u8, "{i:?}: {d:?}");
        }
    }

    #[test]
    fn the_model_registers_the_decision_and_counts_it_a_cycle_later() {
        let mut m = CoordDecisionModel::new();
        let pkt = CoordInputs {
            in_valid: true,
            in_congested: true,
            in_light: 2,
            ..Default::default()
        };
        m.tick(&pkt);
        let o = m.outputs();
        assert!(o.out_valid && o.out_reroute && o.out_write_indicator && !o.out_mark_allowed);
        assert_eq!(o.stat_reroutes, 0);
        m.tick(&CoordInputs::default());
        assert_eq!(
            (m.outputs().out_valid, m.outputs().stat_reroutes),
            (false, 1)
        );
        assert!(crate::cosim::CosimModel::in_flight(&m).is_empty());
        m.tick(&CoordInputs { reset: true, ..pkt });
        assert_eq!(m.outputs(), CoordOutputs::default());
    }
}
