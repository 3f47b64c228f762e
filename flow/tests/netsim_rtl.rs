//! The network simulator with the RTL in the loop: the Verilated window
//! engine and WRED/ECN ports give the same closed-loop run as the golden
//! models (every packet's fate, every cw).

mod common;

use common::ldcp;
use ldcp_flow::netsim_rtl::Rtl;
use ldcp_netsim::config::Cc;
use ldcp_netsim::engine::{Hardware, Models};
use ldcp_netsim::scenario::{self, Options};
use ldcp_sim::wred_ecn::WredParams;
use ldcp_sim::SplitMix64;

/// One WRED/ECN port, stepped with random packets and drains: the RTL
/// backend's decisions and occupancy are the golden model's.
#[test]
fn wred_steps_match() {
    let mut rtl = Rtl::new().expect("verilator builds the blocks");
    let p = WredParams {
        k_min_bytes: 5_000,
        k_max_bytes: 50_000,
        k_bytes: 20_000,
        buf_max_bytes: 100_000,
        p_max_raw: 0x4000,
        seed: 77,
    };
    let mut a = rtl.wred(p).unwrap();
    let mut b = Models.wred(p).unwrap();
    let seed = 11;
    println!("seed {seed}");
    let mut r = SplitMix64::new(seed);
    for i in 0..20_000 {
        let x = r.next_u64();
        let pkt = if !x.is_multiple_of(3) {
            Some((64 + (x >> 8) as u32 % 1500, ((x >> 4) % 4) as u8))
        } else {
            None
        };
        let drain = if x.is_multiple_of(5) {
            (x >> 20) as u32 % 3000
        } else {
            0
        };
        let (da, db) = (a.step(pkt, drain), b.step(pkt, drain));
        assert_eq!(da, db, "step {i}: {pkt:?} drain {drain}");
        // the occupancy port is OCCUPANCY_LATENCY_CYCLES late: settled
        // after a packet's step (the backend ticks until its decision)
        if pkt.is_some() {
            assert_eq!(a.occupancy_bytes(), b.occupancy_bytes(), "step {i}");
        }
    }
}

/// The closed loop with the RTL in it: the `mini` scenario (long flows and
/// an incast, marks, fast-start drops, merges) gives every packet's fate at
/// every switch port and every cw update the golden models give, and the
/// same figures (but for the engine's name, the wall time and the merge
/// figures: the RTL's ports show updates, not the ACKs each merged).
#[test]
fn rtl_in_the_loop_equals_the_models() {
    let mut rtl = Rtl::new().expect("verilator builds the blocks");
    for seed in [1u64, 2] {
        println!("seed {seed}");
        let mut o = Options::new("mini", Cc::Ldcp, seed);
        o.log_engine = true;
        let t = std::time::Instant::now();
        let m = scenario::run(&o, &mut Models, &mut |_| {}).unwrap();
        let tm = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let r = scenario::run(&o, &mut rtl, &mut |_| {}).unwrap();
        let tr = t.elapsed().as_secs_f64();
        println!("model {tm:.3} s, rtl {tr:.3} s: {:.1}x slower", tr / tm);
        // every packet's fate and every cw: the engines' outputs, in order
        let outs = |s: &ldcp_netsim::sim::Sim| -> Vec<String> {
            s.engine_log
                .as_ref()
                .unwrap()
                .iter()
                .filter_map(|e| match e {
                    ldcp_netsim::sim::EngineLog::Out(h, u) => Some(format!("{h} {u:?}")),
                    _ => None,
                })
                .collect()
        };
        let (a, b) = (outs(&m.sim), outs(&r.sim));
        assert!(
            a.len() > 1000,
            "the run exercised the engine: {} updates",
            a.len()
        );
        assert_eq!(a, b, "every cw update");
        // every packet's fate at every switch port: time, port, flow, PSN, decision, codepoint
        let (wa, wb) = (
            m.sim.wred_log.as_ref().unwrap(),
            r.sim.wred_log.as_ref().unwrap(),
        );
        assert!(wa.len() > 1000, "{} switch decisions", wa.len());
        assert_eq!(wa, wb, "every switch decision");
        println!(
            "{} cw updates and {} switch decisions identical",
            a.len(),
            wa.len()
        );
        for k in ["packets", "fct", "watched", "events", "flows_completed"] {
            assert_eq!(m.json[k], r.json[k], "{k}");
        }
        let fates = |s: &ldcp_netsim::sim::Sim| -> Vec<(u64, u64, u64, u32)> {
            s.flows
                .iter()
                .map(|f| (f.sent_pkts, f.retx_pkts, f.finish_ps.unwrap(), f.min_cw_raw))
                .collect()
        };
        assert_eq!(
            fates(&m.sim),
            fates(&r.sim),
            "per flow: sent, resent, finish time, smallest cw"
        );
        assert_eq!(r.json["ldcp"]["engine_in_flight_after_drain"], 0);
        assert_eq!(
            r.json["packets"]["conserved"], true,
            "sent = delivered + dropped + in flight"
        );
        assert_eq!(
            r.json["packets"]["in_flight_after_drain"], 0,
            "nothing in flight after the drain"
        );
        assert_eq!(r.json["flows_unfinished"], 0);
    }
}

/// `ldcp netsim` refuses bad values with the legal range and exit status 2.
#[test]
fn ldcp_netsim_refuses_bad_input() {
    let cases: [(&[&str], &str); 16] = [
        // found once the network is built, still a bad argument (exit 1 before)
        (
            &["netsim", "--scenario", "wan-arn", "--duration-us", "10"],
            "--duration-us = 10 is too short for wan-arn",
        ),
        // options that would change nothing are refused, naming where
        // they apply (they were ignored)
        (
            &["netsim", "--scenario", "mini", "--topology", "fat-tree"],
            "--topology applies to the fct-* and coord-* scenarios, not to mini",
        ),
        (
            &[
                "netsim",
                "--scenario",
                "mini",
                "--cc",
                "dctcp",
                "--ldcp-kmin-kb",
                "10",
            ],
            "--ldcp-kmin-kb applies to --cc ldcp, not to --cc dctcp",
        ),
        (
            &["netsim", "--scenario", "mini", "--cong-at", "0.5"],
            "--cong-at applies to wan-fast-cnp, not to mini",
        ),
        (
            &["netsim", "--scenario", "mini", "--fault"],
            "--fault applies to wan-tunnel-ecn, not to mini",
        ),
        (
            &["netsim", "--scenario", "mini", "--ack-m", "16"],
            "--ack-m = 16 is out of range: it must be in [1, 15]",
        ),
        (
            &["netsim", "--scenario", "mini", "--ldcp-kmin-kb", "60"],
            "--ldcp-kmin-kb = 60 is above --ldcp-kmax-kb = 50",
        ),
        (
            &["netsim", "--scenario", "mini", "--ldcp-pmax", "1.5"],
            "--ldcp-pmax = 1.5 is out of range: it must be in [0, 1]",
        ),
        (&["netsim", "--scenario", "nope"], "unknown scenario `nope`"),
        (
            &["netsim", "--scenario", "mini", "--rate-gbps", "5"],
            "--rate-gbps = 5 is out of range: it must be in [10, 400]",
        ),
        (
            &["netsim", "--scenario", "mini", "--buf-kb", "20000"],
            "--buf-kb = 20000 is out of range: it must be in [64, 16383]",
        ),
        (
            &["netsim", "--scenario", "mini", "--gamma-shift", "9"],
            "--gamma-shift = 9 is out of range: it must be in [1, 8]",
        ),
        (
            &["netsim", "--scenario", "mini", "--duration-us", "1"],
            "--duration-us = 1 is out of range",
        ),
        (
            &[
                "netsim",
                "--scenario",
                "fct-hadoop-50",
                "--topology",
                "torus",
            ],
            "--topology torus: it must be leaf-spine or fat-tree",
        ),
        (&["netsim"], "--scenario NAME is required"),
        (
            &["netsim", "sweep", "/nonexistent.jsonl", "--shard", "3/2"],
            "--shard 3/2: it must be I/N with 1 <= I <= N",
        ),
    ];
    for (args, msg) in cases {
        let (code, _, err) = ldcp(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(msg),
            "{args:?}: {err:?} should contain {msg:?}"
        );
    }
    let (code, out, _) = ldcp(&["netsim", "--list"]);
    assert_eq!(code, 0);
    for s in ldcp_netsim::scenario::SCENARIOS {
        assert!(out.contains(s.name), "--list names {}", s.name);
    }
}

/// A sweep fanned out over two shards and merged is the same as one shard:
/// every spec line once, in order, the same figures.
#[test]
fn ldcp_netsim_sweep_shards_merge_to_the_whole() {
    let dir = std::env::temp_dir().join(format!("ldcp-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.jsonl");
    std::fs::write(
        &spec,
        "# three runs\n{\"scenario\": \"mini\", \"cc\": \"ldcp\", \"seed\": 1, \"duration_us\": 50}\n\
         {\"scenario\": \"mini\", \"cc\": \"dctcp\", \"seed\": 2, \"duration_us\": 50}\n\
         {\"scenario\": \"incast-100\", \"cc\": \"dcqcn\", \"seed\": 3, \"duration_us\": 50}\n",
    )
    .unwrap();
    let s = spec.to_str().unwrap();
    // a key the spec does not know is refused, naming it
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"scenario\": \"mini\", \"duration\": 50}\n").unwrap();
    let (code, _, err) = ldcp(&["netsim", "sweep", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown field `duration`"), "{err}");
    // a value of the wrong type or beyond JSON's numbers names its field
    // and the field's range
    for (line, msg) in [
        (
            r#"{"scenario": "mini", "rate_gbps": -5}"#,
            "\"rate_gbps\": -5 is not a legal value: Host link rate, Gb/s, 10..=400",
        ),
        (
            r#"{"scenario": "mini", "rate_gbps": 1e999}"#,
            "\"rate_gbps\": the number is out of range",
        ),
        (
            r#"{"scenario": "mini", "duration_us": "NaN"}"#,
            "\"duration_us\": \"NaN\" is not a legal value: Simulated time before the drain, us, 10..=10^7",
        ),
    ] {
        std::fs::write(&bad, format!("{line}\n")).unwrap();
        let (code, _, err) = ldcp(&["netsim", "sweep", bad.to_str().unwrap()]);
        assert_eq!(code, 2, "{line}: {err}");
        assert!(err.contains(msg), "{line}: {err}");
    }
    // output paths are checked before any run: a folder that cannot be
    // made, a file given for a folder, a file that cannot be written
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let f = file.to_str().unwrap();
    for (args, msg) in [
        (
            vec!["netsim", "--scenario", "mini", "--plots", "/proc/nope"],
            "--plots /proc/nope: cannot make the folder".to_string(),
        ),
        (
            vec!["netsim", "--scenario", "mini", "--csv", f],
            format!("--csv {f}: not a directory"),
        ),
        (
            vec!["netsim", "sweep", s, "--out", "/proc/x"],
            "--out /proc/x: cannot write it".to_string(),
        ),
        (
            vec!["netsim", "report", "--out", f],
            format!("--out {f}: not a directory"),
        ),
    ] {
        let t = std::time::Instant::now();
        let (code, _, err) = ldcp(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(&msg), "{args:?}: {err}");
        assert!(
            t.elapsed().as_secs() < 20,
            "{args:?}: refused before the run"
        );
    }
    let files: Vec<_> = ["1/2", "2/2", "1/1"]
        .iter()
        .enumerate()
        .map(|(i, sh)| {
            let out = dir.join(format!("shard{i}.jsonl"));
            let (code, _, err) = ldcp(&[
                "netsim",
                "sweep",
                s,
                "--shard",
                sh,
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{err}");
            out
        })
        .collect();
    let merge = |fs: &[&std::path::Path]| -> serde_json::Value {
        let mut a = vec!["netsim", "merge"];
        a.extend(fs.iter().map(|p| p.to_str().unwrap()));
        let (code, out, err) = ldcp(&a);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let two = merge(&[&files[1], &files[0]]);
    let one = merge(&[&files[2]]);
    assert_eq!(two, one, "two shards merge to the one-shard sweep");
    let lines: Vec<u64> = one
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 3, 4], "every run once, in spec order");
    // a line in two shards' outputs is refused
    let (code, _, err) = ldcp(&[
        "netsim",
        "merge",
        files[2].to_str().unwrap(),
        files[0].to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("appears in two shards"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The same seed and options give byte-identical JSON on stdout; another
/// seed gives other numbers.
#[test]
fn ldcp_netsim_json_is_a_function_of_seed_and_options() {
    let run = |seed: &str| {
        let (code, out, err) = ldcp(&[
            "netsim",
            "--scenario",
            "incast-100",
            "--cc",
            "ldcp",
            "--ack-m",
            "4",
            "--seed",
            seed,
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let (a, b, c) = (run("5"), run("5"), run("6"));
    assert_eq!(a, b, "byte-identical");
    assert_ne!(a, c);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["parameters"]["ldcp"]["ack_m"], 4);
    assert_eq!(v["packets"]["conserved"], true);
}
