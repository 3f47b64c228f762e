//! Draft 002's decision: the generated Verilog against
//! `CoordDecisionModel`, every output every cycle, over proptest streams
//! (packets most cycles, every input combination often, resets); each
//! case drained and checked empty. And the RTL on every one of its 64
//! inputs, exhaustively, against `decide` and against C9's rows as
//! COMPANION.md words them.

use ldcp_sim::coord::*;
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<CoordInputs>> {
    ldcp_tests::choices(2_000..8_000).prop_map(|c| ldcp_sim::from_choices(CoordStimulus, &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    decisions: u64,
    reroutes: u64,
    indicators: u64,
    type3: u64,
    marks: u64,
    incast: u64,
    resets: u64,
}

#[test]
fn coord_decision_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "coord_decision",
        "cosim_coord_decision",
        0x5EED_0020,
        50,
        stream(),
        CoordDecisionModel::new,
        |i: &CoordInputs, o: &CoordOutputs, c: &mut Reached| {
            c.resets += i.reset as u64;
            c.decisions += o.out_valid as u64;
            c.reroutes += o.out_reroute as u64;
            c.indicators += o.out_write_indicator as u64;
            c.type3 += o.out_type3 as u64;
            c.marks += o.out_mark_allowed as u64;
            c.incast += o.out_incast as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "coord_decision cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(
        c.decisions > 150_000
            && c.reroutes > 10_000
            && c.indicators > 20_000
            && c.type3 > 2_000
            && c.marks > 10_000
            && c.incast > 10_000
            && c.resets > 50,
        "{c:?}"
    );
}

/// The RTL on all 64 inputs (each once, back to back): every decision as
/// `decide` says; for an untagged packet on a congested port that is not
/// the last hop, C9's row; every congested packet one action; the
/// counters equal the decisions.
#[test]
fn coord_decision_rtl_decides_every_input_as_c9_says() {
    let cosim = ldcp_tests::cosim::<CoordDecisionModel>("coord_decision");
    let inputs: Vec<DecisionIn> = every_input().collect();
    let stim: Vec<CoordInputs> = inputs.iter().map(CoordInputs::packet).collect();
    let mut got = vec![];
    let mut last = CoordOutputs::default();
    cosim
        .run_observed(
            CoordDecisionModel::new(),
            || stim.iter().cloned(),
            "every-input",
            &mut |_, o: &CoordOutputs| {
                if o.out_valid {
                    got.push(*o);
                }
                last = *o;
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.len(), 64);
    // C9 (COMPANION.md 2.2): L >= 2 -> choose one, indicator := this
    // switch; L == 1 -> use it, indicator unchanged; L == 0 -> indicator
    // valid ? type 3 (no ECN mark) : mark ECN
    let c9 = |light: u8, arv: bool| match (light, arv) {
        (0, false) => (false, false, false, true),
        (0, true) => (false, false, true, false),
        (1, _) => (true, false, false, false),
        _ => (true, true, false, false),
    };
    let (mut congested, mut rows) = (0u32, 0);
    for (i, o) in inputs.iter().zip(&got) {
        let d = decide(i);
        let rtl = o.decision();
        assert_eq!(rtl, d, "{i:?}");
        if i.congested && !i.cc && !i.last_hop {
            rows += 1;
            assert_eq!(
                (
                    rtl.reroute,
                    rtl.write_indicator,
                    rtl.type3,
                    rtl.mark_allowed
                ),
                c9(i.light, i.arv),
                "C9 row {i:?}"
            );
        }
        let actions = rtl.reroute as u32 + rtl.type3 as u32 + rtl.mark_allowed as u32;
        assert_eq!(actions, i.congested as u32, "{i:?}");
        congested += i.congested as u32;
    }
    assert_eq!(rows, 8, "C9's eight rows (L 0-3, ARV) reached");
    assert_eq!(
        last.stat_reroutes + last.stat_type3 + last.stat_marks_allowed,
        congested,
        "{last:?}"
    );
    eprintln!(
        "coord_decision on the RTL: all 64 inputs as `decide` says, C9's 8 rows as written, \
         {congested} congested packets one action each; counters {} re-routes, {} type 3, {} \
         marks allowed, {} incast",
        last.stat_reroutes, last.stat_type3, last.stat_marks_allowed, last.stat_incast
    );
}
