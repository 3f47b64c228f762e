use super::*;
use proptest::prelude::*;

fn params() -> WredParams {
    WredParams {
        k_min_bytes: 10_000,
        k_max_bytes: 50_000,
        k_bytes: 30_000,
        buf_max_bytes: 100_000,
        p_max_raw: UQ1_15::from_f64(0.5).unwrap().raw(),
        seed: 12345,
    }
}

/// A port whose queue holds exactly `q` bytes.
fn port_at(p: WredParams, q: u32) -> WredEcnPort {
    let mut port = WredEcnPort::new(WredParams {
        k_bytes: p.buf_max_bytes,
        ..p
    })
    .unwrap();
    let mut left = q;
    while left > 0 {
        let len = left.min(LEN_MAX);
        // Not-ECT below the (temporarily raised) K: accepted, never marked.
        assert_eq!(
            port.cycle(Some((len, ecn::NOT_ECT)), 0).unwrap().0,
            Decision::Forward
        );
        left -= len;
    }
    port.set_params(p).unwrap();
    port.counters = Counters::default();
    assert_eq!(port.occupancy_bytes(), q);
    port
}

/// The decision for one packet at occupancy `q` (queue refilled as drained).
fn decide_at(port: &mut WredEcnPort, len: u32, e: u8) -> (Decision, u8) {
    let q = port.occupancy_bytes();
    let out = port.cycle(Some((len, e)), 0).unwrap();
    // restore q: drain what was accepted
    let extra = port.occupancy_bytes() - q;
    port.cycle(None, extra);
    out
}

#[test]
fn wred_ecn_never_marks_at_k_min() {
    let mut port = port_at(params(), 10_000);
    for _ in 0..10_000 {
        assert_eq!(decide_at(&mut port, 100, ecn::ECT0).0, Decision::Forward);
    }
    // and every r value says no at D = 0
    let cfg = RampCfg::from_params(&params());
    assert!((0..=u16::MAX).all(|r| !mark_test(10_000, &cfg, r)));
}

#[test]
fn wred_ecn_always_marks_at_k_max() {
    let cfg = RampCfg::from_params(&params());
    assert!((0..=u16::MAX).all(|r| mark_test(50_000, &cfg, r)));
    let mut port = port_at(params(), 50_000);
    for e in [ecn::ECT0, ecn::ECT1] {
        assert_eq!(
            decide_at(&mut port, 1500, e),
            (Decision::ForwardMarked, ecn::CE)
        );
    }
    // just below K_max the ramp is just below P_max (0.5): not every draw marks
    assert!((0..=u16::MAX).any(|r| !mark_test(49_999, &cfg, r)));
}

#[test]
fn wred_ecn_drops_not_ect_from_k() {
    let mut port = port_at(params(), 29_999);
    assert_eq!(
        decide_at(&mut port, 1500, ecn::NOT_ECT),
        (Decision::Forward, ecn::NOT_ECT)
    );
    let mut port = port_at(params(), 30_000);
    assert_eq!(
        decide_at(&mut port, 1500, ecn::NOT_ECT),
        (Decision::DropWred, ecn::NOT_ECT)
    );
    assert_eq!(
        port.occupancy_bytes(),
        30_000,
        "a dropped packet does not enter the queue"
    );
    assert_eq!(port.counters().dropped_wred, 1);
    // ECN-capable packets are not subject to K
    assert_ne!(decide_at(&mut port, 1500, ecn::ECT0).0, Decision::DropWred);
}

#[test]
fn wred_ecn_drops_what_does_not_fit_buf_max() {
    let mut port = port_at(params(), 98_500);
    // exactly fills the buffer: accepted (marked, since q >= K_max)
    assert_eq!(
        port.cycle(Some((1500, ecn::ECT0)), 0).unwrap().0,
        Decision::ForwardMarked
    );
    assert_eq!(port.occupancy_bytes(), 100_000);
    // one byte more does not fit, whatever the codepoint
    for e in [ecn::NOT_ECT, ecn::ECT0, ecn::ECT1, ecn::CE] {
        assert_eq!(
            port.cycle(Some((1, e)), 0).unwrap().0,
            Decision::DropOverflow
        );
    }
    // zero-length packets always fit
    assert_eq!(
        port.cycle(Some((0, ecn::CE)), 0).unwrap().0,
        Decision::Forward
    );
    assert_eq!(port.occupancy_bytes(), 100_000);
    assert_eq!(port.counters().dropped_overflow, 4);
}

#[test]
fn wred_ecn_handles_zero_and_maximum_length() {
    let p = WredParams {
        buf_max_bytes: Q_MAX,
        k_max_bytes: 60_000,
        ..params()
    };
    let mut port = WredEcnPort::new(p).unwrap();
    assert_eq!(
        port.cycle(Some((0, ecn::ECT0)), 0).unwrap(),
        (Decision::Forward, ecn::ECT0)
    );
    assert_eq!(port.occupancy_bytes(), 0);
    assert_eq!(
        port.cycle(Some((LEN_MAX, ecn::ECT0)), 0).unwrap(),
        (Decision::Forward, ecn::ECT0)
    );
    assert_eq!(port.occupancy_bytes(), LEN_MAX);
    // a maximum-length packet into a full buffer is dropped, not wrapped
    let mut full = port_at(
        WredParams {
            buf_max_bytes: Q_MAX,
            k_max_bytes: Q_MAX,
            k_bytes: Q_MAX,
            ..params()
        },
        Q_MAX - 10,
    );
    assert_eq!(
        full.cycle(Some((LEN_MAX, ecn::ECT1)), 0).unwrap().0,
        Decision::DropOverflow
    );
    assert_eq!(full.occupancy_bytes(), Q_MAX - 10);
}

#[test]
fn wred_ecn_keeps_ce_and_does_not_count_it_as_marked() {
    let mut port = port_at(params(), 60_000);
    assert_eq!(
        decide_at(&mut port, 500, ecn::CE),
        (Decision::Forward, ecn::CE)
    );
    let mut low = port_at(params(), 0);
    assert_eq!(
        decide_at(&mut low, 500, ecn::CE),
        (Decision::Forward, ecn::CE)
    );
    assert_eq!(port.counters().marked, 0);
    assert_eq!(port.counters().forwarded, 1);
}

#[test]
fn wred_ecn_drain_saturates_at_empty() {
    let mut port = port_at(params(), 1000);
    port.cycle(None, 5000);
    assert_eq!(port.occupancy_bytes(), 0);
    // a packet arriving in a cycle that over-drains: the queue empties, then holds it
    let mut port = port_at(params(), 1000);
    port.cycle(Some((700, ecn::ECT0)), 5000);
    assert_eq!(port.occupancy_bytes(), 700);
}

#[test]
fn wred_ecn_counters_saturate() {
    let mut c = Counters {
        forwarded: COUNTER_MAX - 1,
        marked: COUNTER_MAX,
        ..Default::default()
    };
    c.count(Decision::ForwardMarked);
    c.count(Decision::ForwardMarked);
    assert_eq!((c.forwarded, c.marked), (COUNTER_MAX, COUNTER_MAX));
}

#[test]
fn wred_ecn_refuses_illegal_parameters_with_clear_errors() {
    let ok = params();
    assert!(ok.validate().is_ok());
    let cases: [(WredParams, &str); 6] = [
        (
            WredParams {
                k_min_bytes: 60_000,
                ..ok
            },
            "k_min = 60000 bytes is above k_max = 50000",
        ),
        (
            WredParams {
                p_max_raw: 0x8001,
                ..ok
            },
            "must be in [0, 1]",
        ),
        (
            WredParams {
                k_max_bytes: 200_000,
                ..ok
            },
            "k_max = 200000 bytes is above buf_max = 100000",
        ),
        (
            WredParams {
                k_bytes: 100_001,
                ..ok
            },
            "k = 100001 bytes is above buf_max",
        ),
        (
            WredParams {
                buf_max_bytes: 1 << 24,
                ..ok
            },
            "buf_max = 16777216 bytes is out of range: it must be in [0, 16777215]",
        ),
        (
            WredParams {
                k_min_bytes: 1 << 30,
                ..ok
            },
            "k_min = 1073741824 bytes is out of range",
        ),
    ];
    for (p, msg) in cases {
        let err = p.validate().unwrap_err().to_string();
        assert!(err.contains(msg), "{err:?} should contain {msg:?}");
        assert!(WredEcnPort::new(p).is_err());
    }
    // a refused set leaves the port's parameters as they were
    let mut port = WredEcnPort::new(ok).unwrap();
    assert!(port
        .set_params(WredParams {
            p_max_raw: 0xffff,
            ..ok
        })
        .is_err());
    assert_eq!(*port.params(), ok);
    assert!(UQ1_15::from_f64(1.5).is_err());
    assert_eq!(UQ1_15::from_f64(1.0).unwrap(), UQ1_15::ONE);
}

/// Exact realized probability of the ramp test: the number of 16-bit draws that mark.
fn realized_probability(q: u32, cfg: &RampCfg) -> f64 {
    if q >= cfg.k_max {
        return 1.0;
    }
    if q < cfg.k_min {
        return 0.0;
    }
    let d_prime = (((q - cfg.k_min) & Q_MAX) >> cfg.shift) as u64;
    let num = 2 * cfg.p_eff as u64 * d_prime;
    let den = cfg.r_prime as u64;
    // r * den < num  <=>  r < num / den  <=> r <= ceil(num/den) - 1
    let hits = num.div_ceil(den).min(1 << 16);
    hits as f64 / 65536.0
}

#[test]
fn wred_ecn_realized_probability_formula_matches_brute_force() {
    for (kmin, kmax, p) in [
        (0, 7, 0x8000),
        (1000, 1_000_000, 0x1234),
        (5, 70_000, 0x7fff),
        (3, 4, 1),
    ] {
        let pr = WredParams {
            k_min_bytes: kmin,
            k_max_bytes: kmax,
            k_bytes: 0,
            buf_max_bytes: Q_MAX,
            p_max_raw: p,
            seed: 1,
        };
        let cfg = RampCfg::from_params(&pr);
        for q in [kmin, kmin + 1, (kmin + kmax) / 2, kmax - 1, kmax] {
            let brute = (0..=u16::MAX).filter(|&r| mark_test(q, &cfg, r)).count() as f64 / 65536.0;
            assert_eq!(
                brute,
                realized_probability(q, &cfg),
                "q={q} kmin={kmin} kmax={kmax}"
            );
        }
    }
}

proptest! {
    #![proptest_config(crate::testing::proptest_config(env!("CARGO_MANIFEST_DIR"), "wred_ecn_model", 0x5EED_1002, 20_000))]

    #[test]
    fn wred_ecn_mark_probability_error_is_bounded(
        kmin in 0u32..Q_MAX, span in 1u32..Q_MAX, pmax in 0u16..=0x8000, frac in 0.0f64..1.0
    ) {
        let kmax = (kmin as u64 + span as u64).min(Q_MAX as u64) as u32;
        prop_assume!(kmax > kmin);
        let pr = WredParams { k_min_bytes: kmin, k_max_bytes: kmax, k_bytes: 0, buf_max_bytes: Q_MAX, p_max_raw: pmax, seed: 1 };
        let q = kmin + ((kmax - kmin) as f64 * frac) as u32;
        let cfg = RampCfg::from_params(&pr);
        let err = (realized_probability(q, &cfg) - ideal::p_mark_params(q, &pr)).abs();
        prop_assert!(err <= MARK_PROBABILITY_ERROR_BOUND, "error {err} at q={q} kmin={kmin} kmax={kmax} pmax={pmax}");
    }

    #[test]
    fn wred_ecn_queue_never_exceeds_buf_max(
        buf in 0u32..200_000, ops in proptest::collection::vec((any::<bool>(), 0u32..=LEN_MAX, 0u8..4, 0u32..3000), 1..400)
    ) {
        let p = WredParams { k_min_bytes: 0, k_max_bytes: buf / 2, k_bytes: buf / 3, buf_max_bytes: buf, p_max_raw: 0x4000, seed: 9 };
        let mut port = WredEcnPort::new(p).unwrap();
        let mut n = 0u32;
        for (v, len, e, drain) in ops {
            let before = port.occupancy_bytes();
            let out = port.cycle(v.then_some((len, e)), drain);
            prop_assert!(port.occupancy_bytes() <= buf);
            if let Some((d, e_out)) = out {
                n += 1;
                let accepted = matches!(d, Decision::Forward | Decision::ForwardMarked);
                let expect = before.saturating_sub(drain) + if accepted { len } else { 0 };
                prop_assert_eq!(port.occupancy_bytes(), expect);
                // the ideal reference agrees on every admission decision
                let ideal = ideal::decide(before, len, e, &p, 2.0);
                prop_assert_eq!(ideal == Decision::Forward, accepted);
                prop_assert_eq!(e_out == ecn::CE, d == Decision::ForwardMarked || e == ecn::CE);
            }
        }
        let c = port.counters();
        prop_assert_eq!(c.forwarded + c.dropped_wred + c.dropped_overflow, n);
    }
}

/// Over many packets at a fixed q, the golden model marks with a frequency
/// within a 5-sigma binomial bound (plus the fixed-point bound) of p(q).
#[test]
fn wred_ecn_marking_frequency_matches_ideal_p() {
    let p = WredParams {
        k_min_bytes: 20_000,
        k_max_bytes: 200_000,
        k_bytes: 100_000,
        buf_max_bytes: 1 << 20,
        p_max_raw: UQ1_15::from_f64(0.25).unwrap().raw(),
        seed: 0xC0FFEE,
    };
    let n = 200_000u32;
    for q in [20_000, 20_001, 45_000, 110_000, 155_555, 199_999, 200_000] {
        let mut port = port_at(p, q);
        let mut marked = 0u32;
        for _ in 0..n {
            if decide_at(&mut port, 1000, ecn::ECT0).0 == Decision::ForwardMarked {
                marked += 1;
            }
            debug_assert_eq!(port.occupancy_bytes(), q);
        }
        let f = marked as f64 / n as f64;
        let pi = ideal::p_mark_params(q, &p);
        let sigma = (pi * (1.0 - pi) / n as f64).sqrt();
        let bound = 5.0 * sigma + MARK_PROBABILITY_ERROR_BOUND;
        assert!(
            (f - pi).abs() <= bound,
            "q={q}: frequency {f}, ideal {pi}, bound {bound}"
        );
    }
}

/// Runs the cycle-accurate model beside the functional one on `cycles`
/// cycles of `next` (packet or none, drain) with stable parameters `p`:
/// the same decisions LATENCY_CYCLES later and the same occupancy
/// OCCUPANCY_LATENCY_CYCLES later, every cycle; then drains both and checks
/// the counters in full and that nothing is left in flight. Returns what
/// the run reached.
fn cycle_model_against_functional(
    p: WredParams,
    cycles: usize,
    mut next: impl FnMut(usize) -> (Option<(u32, u8)>, u32),
) -> Reached {
    let mut port = WredEcnPort::new(p).unwrap();
    let mut model = WredEcnModel::new();
    let mut expected = std::collections::VecDeque::new();
    let mut occupancy = std::collections::VecDeque::new();
    // reset with the parameters applied (the seed reaches its register first)
    for _ in 0..4 {
        model.tick(&WredInputs {
            reset: true,
            ..WredInputs::idle(&p)
        });
    }
    // a packet presented before edge t is on the outputs after edge t + LATENCY - 1
    for _ in 0..LATENCY_CYCLES - 1 {
        expected.push_back(None);
    }
    for _ in 0..OCCUPANCY_LATENCY_CYCLES - 1 {
        occupancy.push_back(0);
    }
    let mut reached = Reached::default();
    for cycle in 0..cycles {
        let (pkt, drain) = next(cycle);
        let inp = WredInputs {
            reset: false,
            in_valid: pkt.is_some(),
            in_len_bytes: pkt.map_or(0, |x| x.0),
            in_ecn: pkt.map_or(0, |x| x.1),
            egress_drain_bytes: drain,
            ..WredInputs::idle(&p)
        };
        let q = port.occupancy_bytes();
        let decided = port.cycle(pkt, drain);
        if let (Some((0, _)), Some((d, _))) = (pkt, decided) {
            // a zero-length packet at a queue a largest packet no longer fits
            let full = q as u64 + LEN_MAX as u64 > p.buf_max_bytes as u64;
            reached.zero_len_forwarded_full += (full && d != Decision::DropOverflow) as u32;
        }
        reached.max_occupancy = reached.max_occupancy.max(port.occupancy_bytes());
        expected.push_back(decided);
        occupancy.push_back(port.occupancy_bytes());
        model.tick(&inp);
        let out = model.outputs();
        let want = expected.pop_front().unwrap();
        let got = out
            .out_valid
            .then(|| (Decision::from_bits(out.out_decision), out.out_ecn));
        assert_eq!(got, want, "cycle {cycle}");
        assert_eq!(
            out.stat_occupancy_bytes,
            occupancy.pop_front().unwrap(),
            "cycle {cycle}"
        );
        if got.map(|g| g.0) == Some(Decision::ForwardMarked) {
            reached.marked += 1;
        }
    }
    // drain: idle cycles until every decision is out and counted, then the
    // counters agree in full and nothing is left in flight
    for cycle in 0..COUNTER_LATENCY_CYCLES {
        let idle = WredInputs::idle(&p);
        expected.push_back(port.cycle(None, 0));
        model.tick(&idle);
        let out = model.outputs();
        let got = out
            .out_valid
            .then(|| (Decision::from_bits(out.out_decision), out.out_ecn));
        assert_eq!(got, expected.pop_front().unwrap(), "drain cycle {cycle}");
    }
    assert_eq!(model.in_flight(), 0);
    assert_eq!(model.outputs().counters(), port.counters());
    reached.counters = port.counters();
    reached
}

/// What a run of [`cycle_model_against_functional`] reached.
#[derive(Default)]
struct Reached {
    marked: u32,
    max_occupancy: u32,
    /// Zero-length packets that arrived when a largest packet no longer
    /// fit, and were not dropped as overflow.
    zero_len_forwarded_full: u32,
    counters: Counters,
}

/// With stable parameters the cycle-accurate model gives the functional
/// model's decisions and occupancy (see the helper above).
#[test]
fn wred_ecn_cycle_model_matches_functional_model() {
    let p = WredParams {
        k_min_bytes: 3_000,
        k_max_bytes: 40_000,
        k_bytes: 20_000,
        buf_max_bytes: 60_000,
        p_max_raw: 0x6000,
        seed: 77,
    };
    let mut rng = 0x1234_5678u32;
    let marked = cycle_model_against_functional(p, 200_000, |_| {
        rng = crate::xorshift::step(rng);
        let valid = rng & 3 != 0;
        let len = (rng >> 2) % 4000;
        let e = ((rng >> 14) & 3) as u8;
        let drain = (rng >> 18) % 3500;
        (valid.then_some((len, e)), drain)
    })
    .marked;
    assert!(
        marked > 1000,
        "the stream should exercise the ramp (marked {marked})"
    );
}

/// The corners of the admission arithmetic: the largest buffer (buf_max + 1
/// = 2^24, where a 25-bit headroom would read as negative), packets of 0
/// and of LEN_MAX bytes at a full queue, K at 0 and at the buffer, no
/// drain and the largest drain. The run must reach the full buffer: a
/// largest packet refused, and zero-length packets forwarded there.
#[test]
fn wred_ecn_cycle_model_matches_functional_model_at_the_corners() {
    for (k, drain_max) in [(0, 0), (Q_MAX, 0), (Q_MAX / 2, DRAIN_MAX)] {
        let p = WredParams {
            k_min_bytes: 0,
            k_max_bytes: Q_MAX,
            k_bytes: k,
            buf_max_bytes: Q_MAX,
            p_max_raw: 0x8000,
            seed: 5,
        };
        let mut rng = 0x9abc_def1u32;
        let r = cycle_model_against_functional(p, 6_000, |c| {
            rng = crate::xorshift::step(rng);
            let len = [0, LEN_MAX, 1, LEN_MAX - 1][(rng % 4) as usize];
            let e = ((rng >> 8) & 3) as u8;
            // fill for 2,000 cycles, then drain now and then
            let drain = if c > 2_000 && rng >> 20 & 7 == 0 {
                drain_max
            } else {
                0
            };
            (Some((len, e)), drain)
        });
        assert!(
            r.max_occupancy > Q_MAX - LEN_MAX
                && r.counters.dropped_overflow > 0
                && r.zero_len_forwarded_full > 100,
            "K {k}: the buffer's edge not exercised: max q {}, {} overflow drops, {} zero-length packets at it",
            r.max_occupancy,
            r.counters.dropped_overflow,
            r.zero_len_forwarded_full
        );
    }
}

/// The buffer limit holds whatever K does: K changed every few cycles
/// (anywhere in [0, 2^24), so both above and below the headroom) while
/// packets of every codepoint and size arrive, buf_max held. Before the fix,
/// a Not-ECT packet met the new K against the headroom `buf + 1 - K` of
/// the old one for two cycles (the case the draft formal harness found:
/// buf_max 5,120, K raised, a 4,608-byte packet accepted at q = 3,072).
#[test]
fn wred_ecn_occupancy_never_exceeds_buf_max_while_k_changes() {
    const SEED: u64 = 0x5EED_0E17;
    println!("seed {SEED:#x}");
    let mut rng = crate::SplitMix64::new(SEED);
    let mut worst = 0u32;
    let mut k_changes = 0u32;
    for buf_max in [5_120u32, 9_000, 65_536, 1_000_000] {
        let mut model = WredEcnModel::new();
        let mut p = WredParams {
            k_min_bytes: 0,
            k_max_bytes: buf_max,
            k_bytes: buf_max / 2,
            buf_max_bytes: buf_max,
            p_max_raw: 0,
            seed: 1,
        };
        for _ in 0..4 {
            model.tick(&WredInputs {
                reset: true,
                ..WredInputs::idle(&p)
            });
        }
        for cycle in 0..200_000u32 {
            if rng.next_u64().is_multiple_of(4) {
                p.k_bytes = match rng.next_u64() % 3 {
                    0 => 0,
                    1 => (rng.next_u64() % (buf_max as u64 + 1)) as u32,
                    _ => (rng.next_u64() & Q_MAX as u64) as u32,
                };
                k_changes += 1;
            }
            let len = (rng.next_u64() % (LEN_MAX as u64 + 1)) as u32;
            let inp = WredInputs {
                reset: false,
                in_valid: !rng.next_u64().is_multiple_of(4),
                in_len_bytes: len.min(buf_max),
                in_ecn: (rng.next_u64() % 4) as u8,
                egress_drain_bytes: (rng.next_u64() % 2_048) as u32,
                ..WredInputs::idle(&p)
            };
            model.tick(&inp);
            let q = model.outputs().stat_occupancy_bytes;
            worst = worst.max(q * 1000 / buf_max);
            assert!(
                q <= buf_max,
                "buf_max {buf_max}, cycle {cycle}: occupancy {q} (K now {})",
                p.k_bytes
            );
        }
    }
    println!("{k_changes} K changes; the fullest queue reached {worst} per mille of buf_max");
    assert!(worst >= 900, "the test never filled the buffer: {worst}");
}
