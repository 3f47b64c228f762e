//! A run's outputs besides its JSON: a one-screen summary, CSV series and
//! SVG plots (plotters' SVG backend: text is written as SVG text, so no
//! system font is needed).

use crate::scenario::Outcome;
use plotters::prelude::*;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// A few lines for a person; `wall_s` is the run's wall time.
pub fn summary(j: &Value, wall_s: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} with {} ({} engine, seed {}): {}; {} flows, base RTT {:.2} us, BDP {} packets",
        j["scenario"].as_str().unwrap_or(""),
        j["cc"].as_str().unwrap_or(""),
        j["engine"].as_str().unwrap_or(""),
        j["seed"],
        j["topology"].as_str().unwrap_or(""),
        j["flows"],
        f(&j["parameters"]["base_rtt_us"]),
        j["parameters"]["bdp_pkts"]
    );
    for w in j["watched"].as_array().into_iter().flatten() {
        let _ = writeln!(
            s,
            "  {}: utilization {:.3}, queue p50 {:.1} / p99 {:.1} / max {:.1} packets ({}..{} us)",
            w["port"].as_str().unwrap_or(""),
            f(&w["utilization"]),
            f(&w["queue_p50_pkts"]),
            f(&w["queue_p99_pkts"]),
            f(&w["queue_max_pkts"]),
            f(&w["from_us"]),
            f(&w["to_us"])
        );
    }
    let p = &j["packets"];
    let _ = writeln!(
        s,
        "  packets: {} sent ({} Not-ECT), {} delivered, {} marked; dropped: {} WRED (Not-ECT), {} overflow ECT, {} overflow Not-ECT; {} timeouts; conserved: {}, in flight after drain: {}",
        p["data_sent"], p["not_ect_sent"], p["delivered"], p["marked_ce"], p["dropped_wred_not_ect"],
        p["dropped_overflow_ect"], p["dropped_overflow_not_ect"], p["timeouts"], p["conserved"], p["in_flight_after_drain"]
    );
    if let Some(l) = j.get("ldcp") {
        let _ = writeln!(
            s,
            "  ldcp: {} of {} flows had cw < 1; engine merged {} of {} events ({} merged updates, {} differ from one-by-one, max {:.4} packets)",
            l["flows_with_cw_below_1"], l["flows_with_updates"], l["merge"]["merged_events"], l["merge"]["events"],
            l["merge"]["merged_updates"], l["merge"]["differing_updates"], f(&l["merge"]["drift_max_pkts"])
        );
    }
    let e = &j["extra"];
    if let Some(t) = e.get("tunnel_in_run") {
        let b = &e["bottleneck"];
        let _ = writeln!(
            s,
            "  WAN ({} mode, one-way {} us, Fast CNP {}): bottleneck {} Gb/s dropped {} ({} ECN-capable inside), marked {}; senders' goodput {:.2} Gb/s; \
             tunnel: {} encapsulated, {} decapsulated, {} dropped at the egress, {} (!!!) and {} (!) forwarded, {} outers faulted, {} CE delivered; \
             Fast CNP: {} sent, {} suppressed, {} unparsed, {} heard twice",
            e["tunnel_mode"].as_str().unwrap_or(""), f(&e["one_way_delay_us"]), e["fast_cnp"].as_str().unwrap_or(""),
            f(&b["rate_gbps"]), b["dropped"], b["dropped_inner_ect"], b["marked"], f(&e["senders_goodput_gbps"]),
            t["encapsulated"], t["decapsulated"], t["egress_dropped"], t["egress_dangerous"], t["egress_unused"],
            t["faulted"], t["ce_delivered"], t["fast_cnp_sent"], t["fast_cnp_suppressed"], t["fast_cnp_unparsed"],
            t["double_signal"]
        );
    }
    if let Some(r) = e.get("reaction") {
        let us = us_or_dash;
        let _ = writeln!(
            s,
            "  reaction after the first mark at R5 (x = {}): Fast CNP {} (analytic x D = {:.0} us), ECN-Echo {} (analytic (2 - x) D = {:.0} us + {:.1} us of queue at the mark), first cut {}",
            r["congestion_at_x"], us(&r["first_fast_cnp_after_mark_us"]), f(&r["analytic_fast_cnp_us"]),
            us(&r["first_ece_after_mark_us"]), f(&r["analytic_via_receiver_us"]), f(&r["queue_at_first_mark_us"]),
            us(&r["first_cut_after_mark_us"])
        );
    }
    if let Some(fc) = e.get("flow_control") {
        let st = &e["flow_control_stats"];
        let _ = writeln!(
            s,
            "  001-C ({}, A1's burst {} bytes): B {:.2} Gb/s of 20 during the burst, delay p99 {:.0} us; A2 {:.2} Gb/s of 5; \
             A1 done in {} us (bound {:.0} us); {} drops; PAUSE {} / ARN {} frames; paused {} us (hosts {} us), halted {} us",
            fc.as_str().unwrap_or(""), e["burst_bytes"], f(&e["b_gbps_during_burst"]), f(&e["b_delay"]["p99_us"]),
            f(&e["a2_gbps_during_burst"]),
            e["a1_completion_us"].as_f64().map_or("(never)".to_string(), |t| format!("{t:.0}")),
            f(&e["a1_bottleneck_bound_us"]), e["dropped"],
            st["pause_sent"].as_u64().unwrap_or(0) + st["resume_sent"].as_u64().unwrap_or(0),
            st["arn_halt_sent"].as_u64().unwrap_or(0) + st["arn_resume_sent"].as_u64().unwrap_or(0),
            st["paused_us"].as_f64().map_or("-".to_string(), |t| format!("{t:.0}")),
            st["host_paused_us"].as_f64().map_or("-".to_string(), |t| format!("{t:.0}")),
            st["halted_us"].as_f64().map_or("-".to_string(), |t| format!("{t:.0}"))
        );
    }
    if let Some(x) = j.get("fct") {
        let _ = writeln!(
            s,
            "  FCT: {} flows, slowdown p50 {:.2} / p95 {:.2} / p99 {:.2}; median FCT {:.2} us (ideal {:.2} us); last completion at {:.1} us",
            x["completed"], f(&x["slowdown_p50"]), f(&x["slowdown_p95"]), f(&x["slowdown_p99"]),
            f(&x["fct_us_median"]), f(&x["ideal_us_median"]), f(&x["last_completion_us"])
        );
    }
    let _ = writeln!(
        s,
        "  {} events in {:.2} s of wall time ({:.2} M events/s); {} flows unfinished",
        j["events"],
        wall_s,
        f(&j["events"]) / wall_s.max(1e-9) / 1e6,
        j["flows_unfinished"]
    );
    s
}

/// A time in microseconds, or "-" when the run has none.
pub fn us_or_dash(v: &Value) -> String {
    if v.is_null() {
        "-".to_string()
    } else {
        format!("{:.1} us", f(v))
    }
}

/// CSV files: `queue.csv` (time, port, bytes), `cw.csv` (time, flow, cw),
/// `fct.csv` (flow, bytes, start, fct).
pub fn write_csv(o: &Outcome, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut q = String::from("time_us,port,queue_bytes,sent_bytes\n");
    for w in &o.sim.stats.watches {
        for &(t, b, tx) in &w.series {
            let _ = writeln!(q, "{:.3},{},{},{}", t as f64 / 1e6, w.label, b, tx);
        }
    }
    std::fs::write(dir.join("queue.csv"), q)?;
    let mut c = String::from("time_us,flow,cw_pkts\n");
    for (i, tr) in o.sim.stats.cw.iter().enumerate() {
        for &(t, cw) in tr {
            let _ = writeln!(
                c,
                "{:.3},{},{:.6}",
                t as f64 / 1e6,
                i,
                cw as f64 / (1 << 20) as f64
            );
        }
    }
    std::fs::write(dir.join("cw.csv"), c)?;
    let mut x = String::from("flow,src,dst,bytes,start_us,fct_us\n");
    for (i, fl) in o.sim.flows.iter().enumerate() {
        if let (Some(t), true) = (fl.finish_ps, fl.size_bytes != u64::MAX) {
            let _ = writeln!(
                x,
                "{},{},{},{},{:.3},{:.3}",
                i,
                fl.src,
                fl.dst,
                fl.size_bytes,
                fl.arrival_ps as f64 / 1e6,
                (t - fl.arrival_ps) as f64 / 1e6
            );
        }
    }
    std::fs::write(dir.join("fct.csv"), x)
}

/// One line per series on a shared x axis (us).
pub struct Series {
    /// Legend.
    pub label: String,
    /// Points.
    pub points: Vec<(f64, f64)>,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// Draws `series` into an SVG file.
pub fn line_plot(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    log_y: bool,
) -> Result<(), String> {
    let root = SVGBackend::new(path, (800, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for s in series {
        for &(x, y) in &s.points {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut b = ChartBuilder::on(&root);
    b.caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70);
    if log_y {
        // zeros cannot be drawn on a log axis: they sit at the floor 0.5
        let lo = if y0 > 0.0 { y0 } else { 0.5 };
        let hi = (y1 * 1.2).max(lo * 10.0);
        let mut ch = b
            .build_cartesian_2d(x0..x1, (lo..hi).log_scale())
            .map_err(|e| err(&e))?;
        ch.configure_mesh()
            .x_desc(xlabel)
            .y_desc(ylabel)
            .draw()
            .map_err(|e| err(&e))?;
        for (i, s) in series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            ch.draw_series(LineSeries::new(
                s.points.iter().map(|&(x, y)| (x, y.max(lo))),
                c.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        }
        ch.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    } else {
        let hi = if y1 <= 0.0 { 1.0 } else { y1 * 1.1 };
        let mut ch = b
            .build_cartesian_2d(x0..x1, y0.min(0.0)..hi)
            .map_err(|e| err(&e))?;
        ch.configure_mesh()
            .x_desc(xlabel)
            .y_desc(ylabel)
            .draw()
            .map_err(|e| err(&e))?;
        for (i, s) in series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            ch.draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(s.label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
        }
        ch.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Thins a series to at most `n` points (every k-th).
pub fn thin(p: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
    if p.len() <= n {
        return p;
    }
    let k = p.len().div_ceil(n);
    p.into_iter().step_by(k).collect()
}

/// The queue of the first watched port, packets over us.
pub fn queue_series(o: &Outcome, label: &str) -> Option<Series> {
    let w = o.sim.stats.watches.first()?;
    let pkt = o.sim.cfg.packet_bytes() as f64;
    Some(Series {
        label: label.into(),
        points: thin(
            w.series
                .iter()
                .map(|&(t, q, _)| (t as f64 / 1e6, q as f64 / pkt))
                .collect(),
            4000,
        ),
    })
}

/// The throughput of the first watched port, Gb/s per `bin_ps`.
pub fn throughput_series(o: &Outcome, label: &str, bin_ps: u64) -> Option<Series> {
    throughput_series_of(o, 0, label, bin_ps)
}

/// The throughput of watched port `i`, Gb/s per `bin_ps`.
pub fn throughput_series_of(o: &Outcome, i: usize, label: &str, bin_ps: u64) -> Option<Series> {
    let w = o.sim.stats.watches.get(i)?;
    let mut pts = Vec::new();
    let mut last: Option<(u64, u64)> = None;
    for &(t, _, tx) in &w.series {
        match last {
            None => last = Some((t, tx)),
            Some((t0, b0)) if t - t0 >= bin_ps => {
                pts.push((
                    t as f64 / 1e6,
                    (tx - b0) as f64 * 8.0 / ((t - t0) as f64 * 1e-12) / 1e9,
                ));
                last = Some((t, tx));
            }
            _ => {}
        }
    }
    Some(Series {
        label: label.into(),
        points: thin(pts, 4000),
    })
}

/// The cw of traced flow `i`, packets.
pub fn cw_series(o: &Outcome, i: usize, label: &str) -> Option<Series> {
    let tr = o.sim.stats.cw.get(i)?;
    Some(Series {
        label: label.into(),
        points: thin(
            tr.iter()
                .map(|&(t, c)| (t as f64 / 1e6, c as f64 / (1 << 20) as f64))
                .collect(),
            4000,
        ),
    })
}

/// The plots of one run: queue, throughput, cw of traced flows.
pub fn write_plots(o: &Outcome, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = format!(
        "{}-{}",
        o.json["scenario"].as_str().unwrap_or("run"),
        o.json["cc"].as_str().unwrap_or("")
    );
    if let Some(q) = queue_series(o, "queue") {
        line_plot(
            &dir.join(format!("{name}-queue.svg")),
            &format!("{name}: queue"),
            "time (us)",
            "packets",
            &[q],
            false,
        )?;
    }
    if let Some(t) = throughput_series(o, "throughput", 10_000_000) {
        line_plot(
            &dir.join(format!("{name}-throughput.svg")),
            &format!("{name}: throughput"),
            "time (us)",
            "Gb/s",
            &[t],
            false,
        )?;
    }
    let cws: Vec<Series> = (0..o.sim.stats.cw.len())
        .filter_map(|i| cw_series(o, i, &format!("flow {i}")))
        .filter(|s| !s.points.is_empty())
        .collect();
    if !cws.is_empty() {
        line_plot(
            &dir.join(format!("{name}-cw.svg")),
            &format!("{name}: cw"),
            "time (us)",
            "cw (packets)",
            &cws,
            true,
        )?;
    }
    Ok(())
}
