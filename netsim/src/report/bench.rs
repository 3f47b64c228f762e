//! `ldcp netsim bench`: the simulator's speed (the incast as it grows, the
//! RTL loop against the models, DCTCP beside ns-3), medians of runs in one
//! process.

use super::common::{f, go, opts, watch0, Error, RtlHardware};
use crate::cli::BenchArgs;
use crate::config::Cc;
use crate::engine::Models;
use crate::scenario;
use serde_json::{json, Value};
use std::path::Path;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// `ldcp netsim bench`.
pub fn bench(a: &BenchArgs, rtl_hw: RtlHardware) -> Result<bool, Error> {
    if !(1..=20).contains(&a.runs) {
        return Err(Error::BadArg(format!(
            "--runs {}: it must be in [1, 20]",
            a.runs
        )));
    }
    let mut report = json!({"runs": a.runs, "what": "medians of --runs runs in this process, golden models, one thread; wall times of whole runs (building the network and flows, the run and its drain)"});
    // the incast's cost as it grows
    let mut incast = Vec::new();
    for n in [100usize, 1000, 10000] {
        let (mut walls, mut first) = (Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..a.runs {
            let t = std::time::Instant::now();
            let o = go(&opts(&format!("incast-{n}"), Cc::Ldcp, 1))?;
            walls.push(t.elapsed().as_secs_f64());
            first.push(o.setup_s + o.run_s);
            last = Some(o);
        }
        let o = last.expect("runs >= 1");
        let w = median(walls);
        let w10 = median(first);
        incast.push(json!({
            "senders": n,
            "network_ms": f(&o.json["time"]["ended_us"]) / 1e3,
            "network_ms_before_drain": f(&o.json["time"]["run_us"]) / 1e3,
            "network_ms_note": "the run's 10 ms, then its drain until every flow has finished",
            "wall_s": w,
            "wall_s_first_10ms": w10,
            "wall_s_first_10ms_note": "building the network and the flows, then the first 10 ms of network time",
            "events": o.json["events"],
            "events_per_s": f(&o.json["events"]) / w,
            "link_transmissions_per_s": f(&o.json["link_transmissions"]) / w,
            "data_packets_sent": o.json["packets"]["data_sent"],
        }));
    }
    report["incast_ldcp"] = Value::Array(incast);
    // the RTL loop's cost
    let o = opts("mini", Cc::Ldcp, 1);
    let mut rtl = rtl_hw().map_err(Error::Tool)?;
    let (mut wm, mut wr) = (Vec::new(), Vec::new());
    for _ in 0..a.runs {
        wm.push(
            scenario::run(&o, &mut Models, &mut |_| {})
                .map_err(Error::Tool)?
                .wall_s,
        );
        wr.push(
            scenario::run(&o, rtl.as_mut(), &mut |_| {})
                .map_err(Error::Tool)?
                .wall_s,
        );
    }
    let (m, r) = (median(wm), median(wr));
    report["rtl_loop"] =
        json!({"scenario": "mini", "model_wall_s": m, "rtl_wall_s": r, "rtl_slowdown": r / m});
    // DCTCP beside ns-3
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..a.runs {
        let t = std::time::Instant::now();
        let o = go(&opts("dumbbell-10g", Cc::Dctcp, 1))?;
        walls.push(t.elapsed().as_secs_f64());
        last = Some(o);
    }
    let o = last.expect("runs >= 1");
    let ours_wall = median(walls);
    let h = o.sim.stats.watches[0].hist_from(10_000 * US);
    let pk = 1500.0;
    let ours = json!({
        "wall_s": ours_wall,
        "delivered_pkts": o.json["packets"]["delivered"],
        "utilization": watch0(&o.json)["utilization"],
        "queue_p50_pkts": h.value_at_quantile(0.5) as f64 / pk,
        "queue_p99_pkts": h.value_at_quantile(0.99) as f64 / pk,
        "queue_max_pkts": h.max() as f64 / pk,
        "events_per_s": f(&o.json["events"]) / ours_wall,
        "queue_sampling": "every 1 us from 10 ms to 100 ms",
    });
    report["dctcp_dumbbell_10g"] = json!({"ldcp_netsim": ours});
    if a.no_ns3 {
        report["dctcp_dumbbell_10g"]["ns3"] = json!("skipped (--no-ns3)");
    } else {
        let py = Path::new(".venv-ns3/bin/python");
        if !py.exists() {
            return Err(Error::Tool(
                "ns-3 is not installed: run `bash scripts/ns3_env.sh` (a project-local venv with ns3==3.44.post0, about 500 MB), or pass --no-ns3".into(),
            ));
        }
        let mut runs = Vec::new();
        for k in 0..a.runs {
            eprintln!("ns-3 run {}/{}", k + 1, a.runs);
            let out = std::process::Command::new(py)
                .args([
                    "scripts/ns3_dctcp_dumbbell.py",
                    "--senders",
                    "8",
                    "--rate-gbps",
                    "10",
                    "--duration-ms",
                    "100",
                    "--link-delay-us",
                    "20",
                    "--k-pkts",
                    "65",
                ])
                .output()
                .map_err(|e| Error::Tool(format!("ns-3: {e}")))?;
            if !out.status.success() {
                return Err(Error::Tool(format!(
                    "ns-3 failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                )));
            }
            let v: Value = serde_json::from_slice(&out.stdout)
                .map_err(|e| Error::Tool(format!("ns-3 output: {e}")))?;
            runs.push(v);
        }
        let w = median(runs.iter().map(|v| f(&v["wall_s_run"])).collect());
        let wt = median(runs.iter().map(|v| f(&v["wall_s_total"])).collect());
        let mut ns3 = runs.pop().expect("runs >= 1");
        ns3["wall_s_run_median"] = json!(w);
        ns3["wall_s_total_median"] = json!(wt);
        report["dctcp_dumbbell_10g"]["ns3"] = ns3;
        report["dctcp_dumbbell_10g"]["speedup_vs_ns3_run"] = json!(w / ours_wall);
        report["dctcp_dumbbell_10g"]["speedup_vs_ns3_total"] = json!(wt / ours_wall);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("json"));
    } else {
        for r in report["incast_ldcp"].as_array().into_iter().flatten() {
            println!(
                "incast {:>5} senders: {:.3} s wall for its first 10 ms, {:.3} s for all {:.1} ms of network time, {:.2} M events/s, {:.2} M link transmissions/s",
                r["senders"], f(&r["wall_s_first_10ms"]), f(&r["wall_s"]), f(&r["network_ms"]), f(&r["events_per_s"]) / 1e6, f(&r["link_transmissions_per_s"]) / 1e6
            );
        }
        let l = &report["rtl_loop"];
        println!(
            "RTL in the loop (mini): {:.3} s against {:.3} s with the models, {:.1}x slower",
            f(&l["rtl_wall_s"]),
            f(&l["model_wall_s"]),
            f(&l["rtl_slowdown"])
        );
        let d = &report["dctcp_dumbbell_10g"];
        println!(
            "DCTCP 8 x 10 Gb/s, 100 ms: ldcp-netsim {:.3} s (queue p50/p99 {:.0}/{:.0} packets); ns-3 {} s in Run() ({} s with its start-up), {}x",
            f(&d["ldcp_netsim"]["wall_s"]), f(&d["ldcp_netsim"]["queue_p50_pkts"]), f(&d["ldcp_netsim"]["queue_p99_pkts"]),
            d["ns3"]["wall_s_run_median"], d["ns3"]["wall_s_total_median"], d["speedup_vs_ns3_run"]
        );
    }
    Ok(true)
}

const US: u64 = 1_000_000;
