//! Fast CNP trigger: the generated Verilog against `FastCnpModel`, every
//! output every cycle, over proptest streams of per-cycle choices (packets
//! from a few flows, every WRED decision, unparsed marks, intervals from 0
//! through the bypass cases 1 and 2 to longer than a case, resets, some
//! during the sweep); each case drained and checked empty. And on the RTL:
//! one flow marked every cycle, for each interval 0..=4 and 10, gets
//! exactly one descriptor per interval (the write bypasses at ages 1, 2
//! and 3), and drops never trigger.

use ldcp_sim::fast_cnp::*;
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<FastCnpInputs>> {
    ldcp_tests::choices(2_000..8_000)
        .prop_map(|c| ldcp_sim::from_choices(FastCnpStimulus::default(), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    decisions: u64,
    sent: u64,
    suppressed: u64,
    unparsed: u64,
    resets: u64,
}

#[test]
fn fast_cnp_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "fast_cnp",
        "cosim_fast_cnp",
        0x5EED_0015,
        50,
        stream(),
        FastCnpModel::new,
        |i: &FastCnpInputs, o: &FastCnpOutputs, c: &mut Reached| {
            c.resets += i.reset as u64;
            c.decisions += o.out_valid as u64;
            c.sent += o.out_emit as u64;
            c.suppressed += o.out_suppressed as u64;
            c.unparsed += o.out_unparsed as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "fast_cnp cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(
        c.decisions > 150_000 && c.sent > 10_000 && c.suppressed > 10_000 && c.unparsed > 5_000,
        "{c:?}"
    );
    assert!(c.resets > 30, "{c:?}");
}

/// One flow, a marked packet every cycle for 60 cycles: interval I gives a
/// descriptor every max(I, 1) packets; a dropped packet between never
/// triggers and never counts.
#[test]
fn fast_cnp_rtl_limits_one_flow_exactly() {
    let cosim = ldcp_tests::cosim::<FastCnpModel>("fast_cnp");
    for interval in [0u32, 1, 2, 3, 4, 10] {
        let pkt = |d: u8| FastCnpInputs {
            in_valid: true,
            in_decision: d,
            in_parsed: true,
            in_src_lo: 0x0a00_0001,
            in_dst_lo: 0x0a00_0002,
            in_dest_qp: 0x42,
            cfg_interval_cycles: interval,
            ..Default::default()
        };
        let mut stim = vec![];
        for k in 0..60 {
            stim.push(pkt(if k == 30 { 2 } else { DECISION_MARKED }));
        }
        let mut got = vec![];
        let mut last = FastCnpOutputs::default();
        cosim
            .run_observed(
                FastCnpModel::new(),
                || stim.iter().cloned(),
                "one-flow",
                &mut |_, o: &FastCnpOutputs| {
                    if o.out_valid {
                        got.push(o.out_emit);
                    }
                    last = *o;
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let sent: Vec<usize> = (0..got.len()).filter(|&k| got[k]).collect();
        // the packets are one cycle apart, the drop at 30 is not a candidate
        let mut want = vec![];
        let mut prev: Option<usize> = None;
        for k in (0..60).filter(|&k| k != 30) {
            if prev.is_none_or(|p| k - p >= interval as usize) {
                want.push(k);
                prev = Some(k);
            }
        }
        assert_eq!(sent, want, "interval {interval}");
        assert_eq!(last.stat_marked_pkts, 59);
        assert_eq!(last.stat_sent_pkts as usize, want.len());
        eprintln!(
            "fast_cnp, one flow on the RTL, interval {interval}: {} of 59 candidates sent, as the rule says",
            want.len()
        );
    }
}
