//! Draft 001 across the WAN (scenarios 001-A and 001-B): the tunnel's
//! ECN modes, the fault run, the Fast CNP reaction against COMPANION.md's
//! analytic x D and (2 - x) D, and the options' errors.

use ldcp_netsim::config::Cc;
use ldcp_netsim::engine::Models;
use ldcp_netsim::scenario::{self, Options, Outcome};
use serde_json::Value;

fn run(name: &str, f: impl FnOnce(&mut Options)) -> Outcome {
    let mut o = Options::new(name, Cc::Ldcp, 1);
    f(&mut o);
    println!("scenario {name}, seed 1, {:?}", o.tuning);
    scenario::run(&o, &mut Models, &mut |_| {}).expect("the scenario runs")
}

fn conserved(o: &Outcome) {
    let p = &o.json["packets"];
    assert_eq!(p["conserved"], true, "{p}");
    assert_eq!(p["in_flight_after_drain"], 0, "{p}");
    assert_eq!(p["ctrl_in_flight_after_drain"], 0, "{p}");
    assert_eq!(o.json["flows_unfinished"], 0);
    assert_eq!(o.json["ldcp"]["engine_in_flight_after_drain"], 0);
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

fn x(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Normal mode: R5 marks CE, it crosses the tunnel to the receivers, and
/// no ECN-capable packet is dropped at R5; compatibility mode: R5 cannot
/// mark (the outer is Not-ECT), drops ECN-capable packets instead, and the
/// senders get less through.
#[test]
fn normal_mode_marks_where_compatibility_mode_drops() {
    let normal = run("wan-tunnel-ecn", |_| {});
    let compat = run("wan-tunnel-ecn", |o| {
        o.tuning.tunnel_mode = Some("compatibility".into())
    });
    for r in [&normal, &compat] {
        conserved(r);
    }
    let (a, b) = (&normal.json["extra"], &compat.json["extra"]);
    println!("normal {a}\ncompatibility {b}");
    assert_eq!(n(&a["bottleneck"]["dropped_inner_ect"]), 0);
    assert!(n(&a["bottleneck"]["marked"]) > 100);
    assert!(n(&a["tunnel_in_run"]["ce_delivered"]) >= n(&a["bottleneck"]["marked"]));
    assert_eq!(n(&b["bottleneck"]["marked"]), 0);
    assert!(n(&b["bottleneck"]["dropped_inner_ect"]) > 100);
    assert!(x(&a["senders_goodput_gbps"]) > x(&b["senders_goodput_gbps"]) + 1.0);
    // every packet encapsulated is decapsulated, dropped at the egress, or
    // dropped by a port inside the tunnel (the ingress PE's and the P
    // nodes'), nothing being in flight after the drain
    for r in [&normal, &compat] {
        let t = &r.json["extra"]["tunnel_after_drain"];
        let w = r.sim.wan.as_ref().unwrap();
        let inside: Vec<usize> = std::iter::once(w.cfg.ingress)
            .chain(w.cfg.p_nodes.iter().copied())
            .collect();
        let dropped: u64 = r
            .sim
            .ports
            .iter()
            .filter(|p| inside.contains(&(p.from as usize)))
            .map(|p| p.dropped)
            .sum();
        assert_eq!(n(&t["egress_dropped"]), 0);
        assert!(
            dropped > 0,
            "fast start's Not-ECT packets are dropped at R5"
        );
        assert_eq!(
            n(&t["encapsulated"]),
            n(&t["decapsulated"]) + n(&t["egress_dropped"]) + dropped
        );
    }
}

/// A P node that sets CE on Not-ECT outers: the egress PE drops every such
/// packet (Figure 6's one drop cell), counts it, and delivers none.
#[test]
fn a_faulty_node_costs_drops_at_the_egress_and_delivers_none() {
    let r = run("wan-tunnel-ecn", |o| o.tuning.fault = true);
    conserved(&r);
    let t = &r.json["extra"]["tunnel_after_drain"];
    println!("{t}");
    assert!(n(&t["faulted"]) > 1000, "LDCP's fast start is Not-ECT");
    assert_eq!(n(&t["faulted_not_ect_delivered"]), 0);
    assert!(n(&t["egress_dropped"]) > 1000);
    assert!(n(&t["egress_dropped"]) <= n(&t["faulted"]));
    assert_eq!(
        n(&t["egress_dropped"]),
        n(&r.json["packets"]["dropped_tunnel_egress"])
    );
}

/// The first Fast CNP reaches a sender x D after R5's first mark, the
/// first ECN-Echo (2 - x) D after it plus the marked packet's wait in
/// R5's queue, each within 10 us of serialization; the first window cut
/// follows the first signal; and notifying at every mark lowers R5's
/// queue peak.
#[test]
fn fast_cnp_reacts_in_x_d_and_the_receiver_in_2_minus_x_d() {
    for cong in [0.25, 0.75] {
        let mut peak = Vec::new();
        let mut sent = Vec::new();
        for (policy, interval) in [
            ("off", None),
            ("on", None),
            ("on", Some(0.0)),
            ("instead", Some(0.0)),
        ] {
            let r = run("wan-fast-cnp", |o| {
                o.tuning.cong_at = Some(cong);
                o.tuning.fast_cnp = Some(policy.into());
                o.tuning.fast_cnp_interval_us = interval;
            });
            conserved(&r);
            let e = &r.json["extra"];
            let re = &e["reaction"];
            let t = &e["tunnel_in_run"];
            println!("x {cong} {policy} {interval:?}: {re} {t}");
            let d = x(&e["one_way_delay_us"]);
            let queue = x(&re["queue_at_first_mark_us"]);
            let first_signal = if policy == "off" {
                assert!(re["first_fast_cnp_after_mark_us"].is_null());
                assert_eq!(n(&t["fast_cnp_sent"]), 0);
                x(&re["first_ece_after_mark_us"])
            } else {
                let f = x(&re["first_fast_cnp_after_mark_us"]);
                assert!((cong * d..=cong * d + 10.0).contains(&f), "{f}");
                f
            };
            // every candidate is sent, suppressed or unparsed
            assert_eq!(
                n(&t["fast_cnp_candidates"]),
                n(&t["fast_cnp_sent"]) + n(&t["fast_cnp_suppressed"]) + n(&t["fast_cnp_unparsed"])
            );
            sent.push(n(&t["fast_cnp_sent"]));
            if policy == "instead" {
                // no CE on a packet a Fast CNP was sent for
                assert_eq!(n(&t["double_signal"]), 0);
            } else {
                let ece = x(&re["first_ece_after_mark_us"]);
                let via = (2.0 - cong) * d + queue;
                assert!((via..=via + 10.0).contains(&ece), "{ece} against {via}");
            }
            if policy == "on" {
                assert_eq!(n(&t["double_signal"]), n(&t["fast_cnp_sent"]));
            }
            if interval.is_none() && policy == "on" {
                assert!(n(&t["fast_cnp_suppressed"]) > 0);
            }
            // the cross traffic is not RoCEv2: counted, never notified
            if policy != "off" {
                assert!(n(&t["fast_cnp_unparsed"]) > 0);
            }
            let cut = x(&re["first_cut_after_mark_us"]);
            assert!((first_signal..first_signal + 2.0).contains(&cut), "{cut}");
            peak.push(n(&e["bottleneck"]["queue_max_bytes"]));
        }
        println!("x {cong}: peaks {peak:?}, sent {sent:?}");
        assert!(peak[2] < peak[0] && peak[3] < peak[0] && peak[1] <= peak[0]);
        // the 50 us limit sends a fraction of what one per mark sends
        assert!(sent[1] > 0 && 2 * sent[1] < sent[2], "{sent:?}");
    }
}

#[test]
fn wan_options_are_checked() {
    let err = |name: &str, f: &dyn Fn(&mut Options)| {
        let mut o = Options::new(name, Cc::Ldcp, 1);
        f(&mut o);
        scenario::check(&o).expect_err("refused")
    };
    let e = err("stable-2", &|o| o.tuning.wan_delay_us = Some(1000));
    assert!(
        e.contains("--wan-delay-us") && e.contains("stable-2"),
        "{e}"
    );
    let e = err("wan-tunnel-ecn", &|o| o.tuning.cong_at = Some(0.5));
    assert!(e.contains("--cong-at applies to wan-fast-cnp"), "{e}");
    let e = err("wan-fast-cnp", &|o| o.tuning.fault = true);
    assert!(e.contains("--fault applies to wan-tunnel-ecn"), "{e}");
    let e = err("wan-fast-cnp", &|o| o.tuning.cong_at = Some(1.0));
    assert!(e.contains("1") && e.contains("[0.05, 0.95]"), "{e}");
    let e = err("wan-fast-cnp", &|o| {
        o.tuning.tunnel_mode = Some("ecn".into())
    });
    assert!(
        e.contains("--tunnel-mode ecn") && e.contains("normal or compatibility"),
        "{e}"
    );
    let e = err("wan-fast-cnp", &|o| o.tuning.fast_cnp = Some("yes".into()));
    assert!(e.contains("off, on or instead"), "{e}");
    let e = err("wan-fast-cnp", &|o| o.tuning.wan_delay_us = Some(50));
    assert!(
        e.contains("--wan-delay-us = 50") && e.contains("[100, 20000]"),
        "{e}"
    );
    let e = err("wan-fast-cnp", &|o| {
        o.tuning.fast_cnp_interval_us = Some(-1.0)
    });
    assert!(e.contains("[0, 167772]"), "{e}");
}

fn arn_run(fc: &str, burst_kb: u64) -> Outcome {
    run("wan-arn", |o| {
        o.tuning.flow_control = Some(fc.into());
        o.tuning.burst_kb = Some(burst_kb);
    })
}

/// 001-C with a 4 MB burst: PFC pauses the victim B with the offender,
/// ARN's flow mode halts only the offender A1 and sends no PAUSE; flow
/// control loses nothing, leaves nothing in a side queue, and A1 finishes
/// at its bottleneck's pace either way.
#[test]
fn arn_flow_mode_spares_the_victim_that_pfc_pauses() {
    let mut b = Vec::new();
    for fc in ["none", "pfc", "arn-priority", "arn-service", "arn-flow"] {
        let r = arn_run(fc, 4_000);
        conserved(&r);
        let e = &r.json["extra"];
        println!("{fc}: {e}");
        assert_eq!(n(&e["dropped"]), 0, "{fc}");
        assert_eq!(r.sim.halts_open(), 0, "{fc}: every halt ended");
        let a1 = x(&e["a1_completion_us"]);
        let bound = x(&e["a1_bottleneck_bound_us"]);
        assert!(a1 >= bound && a1 < bound + 500.0, "{fc}: A1 in {a1} us");
        b.push((x(&e["b_gbps_during_burst"]), x(&e["b_delay"]["p99_us"])));
        let s = &e["flow_control_stats"];
        match fc {
            "arn-flow" => {
                assert_eq!(n(&s["pause_sent"]), 0);
                assert!(n(&s["arn_halt_sent"]) > 0 && n(&s["side_queued_pkts"]) > 0);
            }
            "pfc" => {
                assert!(n(&s["pause_sent"]) > 0 && x(&s["host_paused_us"]) > 100.0);
                assert_eq!(n(&s["arn_halt_sent"]), 0);
            }
            _ => {}
        }
    }
    let (none, pfc, prio, flow) = (b[0], b[1], b[2], b[4]);
    assert!(none.0 > 19.5 && flow.0 > 19.5, "{b:?}");
    assert!(pfc.0 < 17.0 && pfc.1 > 5.0 * flow.1, "{b:?}");
    // priority mode halts the whole class: B too
    assert!(prio.0 < 18.0, "{b:?}");
}

/// A burst beyond R5's buffer: without flow control it overflows (and the
/// unresponsive sender's go-back-N never finishes, every packet still
/// accounted for); with PFC or ARN nothing is dropped.
#[test]
fn without_flow_control_a_large_burst_overflows() {
    let none = arn_run("none", 16_000);
    assert_eq!(none.json["packets"]["conserved"], true);
    assert!(n(&none.json["extra"]["dropped"]) > 1000);
    for fc in ["pfc", "arn-flow"] {
        let r = arn_run(fc, 16_000);
        conserved(&r);
        assert_eq!(n(&r.json["extra"]["dropped"]), 0, "{fc}");
        assert_eq!(r.sim.halts_open(), 0);
    }
}

#[test]
fn arn_options_are_checked() {
    let err = |name: &str, f: &dyn Fn(&mut Options)| {
        let mut o = Options::new(name, Cc::Ldcp, 1);
        f(&mut o);
        scenario::check(&o).expect_err("refused")
    };
    let e = err("wan-arn", &|o| o.tuning.flow_control = Some("xon".into()));
    assert!(
        e.contains("--flow-control xon") && e.contains("arn-priority"),
        "{e}"
    );
    let e = err("wan-fast-cnp", &|o| o.tuning.burst_kb = Some(1000));
    assert!(e.contains("--burst-kb applies to wan-arn"), "{e}");
    let e = err("wan-arn", &|o| o.tuning.tunnel_mode = Some("normal".into()));
    assert!(
        e.contains("--tunnel-mode applies to wan-tunnel-ecn and wan-fast-cnp"),
        "{e}"
    );
    let e = err("wan-arn", &|o| o.tuning.xoff_kb = Some(5));
    assert!(
        e.contains("--xoff-kb = 5") && e.contains("[10, 16000]"),
        "{e}"
    );
    let e = err("wan-arn", &|o| o.tuning.arn_time_us = Some(0));
    assert!(e.contains("[10, 1000000]"), "{e}");
    let e = err("wan-arn", &|o| o.tuning.rate_gbps = Some(100));
    assert!(e.contains("--rate-gbps does not apply to wan-arn"), "{e}");
}

/// A run too short for its figures is refused, not reported as zeros.
#[test]
fn a_wan_run_too_short_for_its_figures_is_refused() {
    let mut o = Options::new("wan-fast-cnp", Cc::Ldcp, 1);
    o.tuning.duration_us = Some(5_000);
    let e = scenario::run(&o, &mut Models, &mut |_| {})
        .err()
        .expect("refused");
    assert!(
        e.contains("--duration-us = 5000 is too short for wan-fast-cnp"),
        "{e}"
    );
}
