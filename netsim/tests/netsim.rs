//! The simulator's own tests: physics on an idle path, conservation,
//! determinism, DCTCP against its steady-state analysis, and the LDCP
//! sender's windows against the window engine's cycle-accurate model.

use ldcp_netsim::config::{Cc, NetConfig};
use ldcp_netsim::engine::Models;
use ldcp_netsim::scenario::{self, Options, Outcome};
use ldcp_netsim::sim::{EngineLog, Sim};
use ldcp_netsim::topo::Topology;

const US: u64 = 1_000_000;

fn run(name: &str, cc: Cc, seed: u64, f: impl FnOnce(&mut Options)) -> Outcome {
    let mut o = Options::new(name, cc, seed);
    f(&mut o);
    println!("scenario {name}, cc {}, seed {seed}", cc.name());
    scenario::run(&o, &mut Models, &mut |_| {}).expect("the scenario runs")
}

fn conserved(o: &Outcome) {
    let p = &o.json["packets"];
    assert_eq!(
        p["conserved"], true,
        "sent = delivered + dropped + in flight: {p}"
    );
    assert_eq!(
        p["in_flight_after_drain"], 0,
        "nothing in flight after the drain: {p}"
    );
    assert_eq!(
        p["ctrl_in_flight_after_drain"], 0,
        "no ACK in flight after the drain: {p}"
    );
    assert_eq!(
        o.json["flows_unfinished"], 0,
        "every flow finished in the drain"
    );
    if let Some(l) = o.json.get("ldcp") {
        assert_eq!(
            l["engine_in_flight_after_drain"], 0,
            "no engine update in flight"
        );
    }
}

/// One long flow on an idle 100 Gb/s path reaches at least 99% of line rate.
#[test]
fn one_flow_fills_an_idle_path() {
    for cc in Cc::ALL {
        let cfg = NetConfig::new(cc, 100_000_000_000, 6_270_000);
        let mut sim = Sim::new(Topology::dumbbell(1, 100, US), cfg, 1, &mut Models).unwrap();
        sim.add_flow(0, 1, u64::MAX, 0, 0).unwrap();
        let p = sim.port_between(2, 3).unwrap();
        sim.watch_port(p, "bottleneck");
        sim.run(1_000 * US, &mut |_| {}).unwrap();
        let (bytes, dt) = sim.stats.watches[0].sent_between(200 * US, 1_000 * US);
        let util = bytes as f64 * 8.0 / (100e9 * dt as f64 * 1e-12);
        println!("{}: utilization {util:.4}", cc.name());
        assert!(util >= 0.99, "{}: utilization {util} < 0.99", cc.name());
        assert_eq!(sim.stats.dropped_in_network(), 0);
    }
}

/// A one-BDP message on an idle path completes in base RTT + its
/// serialization, within 1%: computed here from the path itself, store and
/// forward on every hop for the first packet (the base RTT: propagation,
/// one data packet and one ACK per hop, both ways) plus the other N - 1
/// packets at the NIC's rate. (HPCC's ideal FCT, which the report's
/// slowdowns use, adds all N packets: one packet's serialization twice.)
#[test]
fn a_message_completes_in_one_rtt_plus_serialization() {
    for cc in Cc::ALL {
        let o = run("fast-start-idle", cc, 1, |_| {});
        let sim = &o.sim;
        let f = &sim.flows[0];
        let (data, ack) = (sim.cfg.packet_bytes() as u64, sim.cfg.ack_bytes as u64);
        let ser = |bytes: u64, bps: u64| (bytes * 8 * 1_000_000_000_000) as f64 / bps as f64;
        let mut exact = 0.0;
        for &p in sim.flow_route(0) {
            let port = &sim.ports[p as usize];
            exact +=
                2.0 * port.delay_ps as f64 + ser(data, port.rate_bps) + ser(ack, port.rate_bps);
        }
        let first = &sim.ports[sim.flow_route(0)[0] as usize];
        exact += (f.size_pkts - 1) as f64 * ser(data, first.rate_bps);
        let fct = (f.finish_ps.unwrap() - f.arrival_ps) as f64;
        println!(
            "{}: FCT {:.3} us, base RTT + serialization {:.3} us",
            cc.name(),
            fct / 1e6,
            exact / 1e6
        );
        assert!(
            (fct - exact).abs() <= 0.01 * exact,
            "{}: {fct} vs {exact}",
            cc.name()
        );
        conserved(&o);
    }
}

/// Conservation, drain and unfinished flows, for every algorithm on the
/// CI-sized scenarios (incast with drops, long flows with marks).
#[test]
fn every_packet_is_accounted_for() {
    for cc in Cc::ALL {
        for name in ["mini", "incast-100", "stable-8"] {
            let o = run(name, cc, 3, |o| o.tuning.duration_us = Some(500));
            conserved(&o);
            let p = &o.json["packets"];
            let sent = p["data_sent"].as_u64().unwrap();
            assert!(sent > 0);
        }
    }
}

/// Two runs with one seed give byte-identical JSON;
/// another seed gives other numbers.
#[test]
fn runs_are_deterministic() {
    let strip = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap();
    for cc in Cc::ALL {
        let a = strip(run("fct-hadoop-50", cc, 7, |o| o.tuning.duration_us = Some(100)).json);
        let b = strip(run("fct-hadoop-50", cc, 7, |o| o.tuning.duration_us = Some(100)).json);
        let c = strip(run("fct-hadoop-50", cc, 8, |o| o.tuning.duration_us = Some(100)).json);
        assert_eq!(a, b, "{}: same seed, same JSON", cc.name());
        assert_ne!(a, c, "{}: another seed, other numbers", cc.name());
    }
}

/// DCTCP with N long flows against the DCTCP paper's steady-state analysis
/// (§3.3): the queue peaks at about K + N packets and oscillates with
/// amplitude A = sqrt(2 N (C RTT + K)) / 2. Tolerances: the peak within
/// 15% (the analysis is a fluid model of synchronized flows; marking here
/// is per packet at arrival), the amplitude (peak minus the 1st percentile)
/// within [A/2, 2A] (the model's sawtooth is exact only for synchronized
/// windows), both for the N the analysis is made for (N small).
#[test]
fn dctcp_matches_its_steady_state_analysis() {
    for n in [2u32, 8] {
        let o = run(&format!("stable-{n}"), Cc::Dctcp, 1, |_| {});
        let pkt = o.json["parameters"]["packet_bytes"].as_f64().unwrap();
        let k = o.json["parameters"]["dctcp"]["k_bytes_100g"]
            .as_f64()
            .unwrap()
            / pkt;
        let bdp = o.json["parameters"]["bdp_pkts"].as_f64().unwrap();
        let w = &o.sim.stats.watches[0];
        let h = w.hist_from(1_000 * US);
        let qmax = h.max() as f64 / pkt;
        let qlow = h.value_at_quantile(0.01) as f64 / pkt;
        let a = (2.0 * n as f64 * (bdp + k)).sqrt() / 2.0;
        println!(
            "N {n}: K {k:.1}, Qmax {qmax:.1} vs K+N {:.1}; amplitude {:.1} vs A {a:.1}",
            k + n as f64,
            qmax - qlow
        );
        assert!(
            (qmax - (k + n as f64)).abs() <= 0.15 * (k + n as f64),
            "N {n}: Qmax {qmax}"
        );
        let amp = qmax - qlow;
        assert!(
            amp >= a / 2.0 && amp <= 2.0 * a,
            "N {n}: amplitude {amp} vs {a}"
        );
        conserved(&o);
    }
}

/// The LDCP sender adds no arithmetic: every engine input the simulator
/// presented, replayed cycle by cycle into the window engine's
/// cycle-accurate model (the RTL's mirror, whose merge window is its own
/// code), gives every update the simulator applied: same flow, cw,
/// interval, packet counts and cycle.
#[test]
fn ldcp_windows_are_the_engines() {
    for m in [1, 4] {
        println!("delayed-ACK count m = {m}");
        engine_replay(m);
    }
}

fn engine_replay(ack_m: u32) {
    use ldcp_sim::window_engine::{WeInputs, WindowEngineModel};
    let o = run("mini", Cc::Ldcp, 5, |o| {
        o.log_engine = true;
        o.tuning.ack_m = Some(ack_m);
    });
    let log = o.sim.engine_log.as_ref().unwrap();
    let p = o.sim.cfg.window;
    let hosts: std::collections::BTreeSet<u32> = log
        .iter()
        .map(|e| match e {
            EngineLog::In(h, ..) | EngineLog::Out(h, _) => *h,
        })
        .collect();
    let mut compared = 0;
    for h in hosts {
        let ins: Vec<_> = log
            .iter()
            .filter_map(|e| match e {
                EngineLog::In(x, c, ev) if *x == h => Some((*c, *ev)),
                _ => None,
            })
            .collect();
        let outs: Vec<_> = log
            .iter()
            .filter_map(|e| match e {
                EngineLog::Out(x, u) if *x == h => Some(*u),
                _ => None,
            })
            .collect();
        let mut m = WindowEngineModel::new(8);
        const SETTLE: u64 = 4;
        for _ in 0..SETTLE {
            m.tick(&WeInputs::idle(&p));
        }
        let last = ins.last().unwrap().0 + 40;
        let mut i = 0;
        let mut got = Vec::new();
        for c in 0..=last {
            let inp = match ins.get(i) {
                Some(&(ci, ev)) if ci == c => {
                    i += 1;
                    match ev {
                        ldcp_netsim::engine::EngineEvent::Ack { flow, ece, n } => {
                            WeInputs::ack(&p, flow, ece, n)
                        }
                        ldcp_netsim::engine::EngineEvent::Set { flow, cw } => {
                            WeInputs::set(&p, flow, cw)
                        }
                    }
                }
                _ => WeInputs::idle(&p),
            };
            m.tick(&inp);
            let y = m.outputs();
            if y.out_valid {
                got.push((
                    c + 1,
                    y.out_flow,
                    y.out_cw,
                    y.out_interval_ticks,
                    y.out_n_u_pkts,
                    y.out_n_m_pkts,
                ));
            }
        }
        let want: Vec<_> = outs
            .iter()
            .map(|u| (u.cycle, u.flow, u.cw, u.interval, u.n_u, u.n_m))
            .collect();
        assert_eq!(
            got, want,
            "host {h}: the simulator's updates are the cycle-accurate model's"
        );
        compared += want.len();
    }
    let ms = &o.json["ldcp"]["merge"];
    println!(
        "{compared} updates compared; {} events merged",
        ms["merged_events"]
    );
    assert!(
        compared > 1000 / ack_m as usize,
        "the run exercised the engine: {compared} updates"
    );
    assert!(
        ms["merged_events"].as_u64().unwrap() > 0,
        "the run exercised merging"
    );
}

/// The committed report (docs/netsim/report.json) is what the code gives
/// now: its cheap runs are re-run and compared figure for figure
/// (`ldcp netsim report` regenerates all of it).
#[test]
fn the_committed_report_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/netsim/report.json");
    let text = std::fs::read_to_string(path).expect("docs/netsim/report.json is committed");
    let all: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    let mut wan = 0;
    let mut coord = 0;
    for v in &all {
        let name = v["scenario"].as_str().unwrap();
        if name.starts_with("coord-") {
            // draft 002's runs, with their scheme, granularity and collision
            let e = &v["extra"];
            let o = run(name, Cc::Ldcp, v["seed"].as_u64().unwrap(), |o| {
                let t = &mut o.tuning;
                t.coord = e["coord"].as_str().map(String::from);
                t.ar = e["ar"].as_str().map(String::from);
                t.collision = e["collision_at"].as_str().map(String::from);
                t.topology = (v["topology_kind"] == "fat-tree").then(|| "fat-tree".into());
            })
            .json;
            let o: serde_json::Value =
                serde_json::from_str(&serde_json::to_string_pretty(&o).unwrap()).unwrap();
            if let Some(d) = first_difference(&o, v, String::new()) {
                panic!("{name}: {d}: regenerate with `ldcp netsim report`");
            }
            coord += 1;
            continue;
        }
        if name.starts_with("wan-") {
            // draft 001's runs, each with the options its figures name
            let e = &v["extra"];
            let o = run(name, Cc::Ldcp, v["seed"].as_u64().unwrap(), |o| {
                let t = &mut o.tuning;
                if name == "wan-arn" {
                    t.wan_delay_us = Some(e["wan_delay_us"].as_f64().unwrap() as u64);
                    t.flow_control = e["flow_control"].as_str().map(String::from);
                    t.burst_kb = Some(e["burst_bytes"].as_u64().unwrap() / 1000);
                    return;
                }
                t.wan_delay_us = Some(e["one_way_delay_us"].as_f64().unwrap() as u64);
                t.tunnel_mode = e["tunnel_mode"].as_str().map(String::from);
                t.fault = e["fault_at_r1"] == true;
                t.cong_at = e["reaction"]["congestion_at_x"].as_f64();
                t.fast_cnp = e["fast_cnp"].as_str().map(String::from);
                t.fast_cnp_interval_us = e["fast_cnp_interval_us"].as_f64();
            })
            .json;
            let o: serde_json::Value =
                serde_json::from_str(&serde_json::to_string_pretty(&o).unwrap()).unwrap();
            if let Some(d) = first_difference(&o, v, String::new()) {
                panic!("{name}: {d}: regenerate with `ldcp netsim report`");
            }
            wan += 1;
            continue;
        }
        if !["stable-2", "fast-start-idle", "incast-100"].contains(&name) {
            continue;
        }
        let cc = match v["cc"].as_str().unwrap() {
            "ldcp" => Cc::Ldcp,
            "dctcp" => Cc::Dctcp,
            _ => Cc::Dcqcn,
        };
        let seed = v["seed"].as_u64().unwrap();
        let o = run(name, cc, seed, |_| {}).json;
        // through the same text round trip as the committed file
        let o: serde_json::Value =
            serde_json::from_str(&serde_json::to_string_pretty(&o).unwrap()).unwrap();
        if o["parameters"]["switch_100g"] != v["parameters"]["switch_100g"] {
            continue; // a variant run of the same scenario (another buffer)
        }
        if let Some(d) = first_difference(&o, v, String::new()) {
            panic!(
                "{name} {}: {d}: regenerate with `ldcp netsim report`",
                cc.name()
            );
        }
        checked += 1;
    }
    assert!(checked >= 9, "{checked} runs checked");
    assert!(wan >= 31, "{wan} WAN runs checked");
    assert!(coord >= 21, "{coord} draft-002 runs checked");
}

/// The first path at which two JSON values differ, with both values.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: String) -> Option<String> {
    use serde_json::Value::Object;
    match (a, b) {
        (Object(x), Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, format!("{at}.{k}")),
                (p, q) => Some(format!("{at}.{k}: now {p:?}, committed {q:?}")),
            })
        }
        _ if a == b => None,
        _ => Some(format!("{at}: now {a}, committed {b}")),
    }
}
