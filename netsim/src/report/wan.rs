//! The report's section on draft 001 across a WAN (COMPANION.md §5,
//! scenarios 001-A and 001-B): the runs, their tables against the analytic
//! expectations, and the plots.

use super::common::{f, go, plot_x, Error};
use crate::config::Cc;
use crate::output::{self, Series};
use crate::scenario::{Options, Outcome};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// A series with its time axis in ms, kept between `from` and `to` ms.
fn in_ms(s: Series, from: f64, to: f64) -> Series {
    Series {
        label: s.label,
        points: s
            .points
            .into_iter()
            .map(|(t, y)| (t / 1000.0, y))
            .filter(|&(t, _)| t >= from && t <= to)
            .collect(),
    }
}

fn plot(
    dir: &Path,
    file: &str,
    title: &str,
    ylabel: &str,
    series: Vec<Series>,
    log: bool,
) -> Result<String, Error> {
    plot_x(dir, file, title, "time (ms)", ylabel, series, log)
}

/// The Fast CNP policies the report compares: (label, `--fast-cnp`,
/// `--fast-cnp-interval-us`).
const POLICIES: [(&str, &str, Option<f64>); 4] = [
    ("off (via the receiver)", "off", None),
    ("on, 50 us per flow (G9's default)", "on", None),
    ("on, every mark", "on", Some(0.0)),
    ("instead of the mark, every mark", "instead", Some(0.0)),
];

/// Keeps a run's figures; whether it conserved its packets and finished.
pub(super) fn note(o: &Outcome, all: &mut Vec<Value>) -> bool {
    all.push(o.json.clone());
    o.json["packets"]["conserved"] == true
        && o.json["flows_unfinished"] == 0
        && o.json["packets"]["in_flight_after_drain"] == 0
}

/// Section 8: returns its Markdown, every run's figures, and whether every
/// run conserved its packets and met the checks the section states.
pub fn section(dir: &Path, seed: u64) -> Result<(String, Vec<Value>, bool), Error> {
    let mut md = String::new();
    let mut all = Vec::new();
    let mut ok = true;
    let _ = writeln!(
        md,
        "\n## 8. Draft 001 across an SRv6 WAN: ECN through the tunnel, Fast CNP\n\n\
         COMPANION.md §5's path (`ldcp netsim --scenario wan-tunnel-ecn` and `wan-fast-cnp`): senders on DC1's leaf, \
         gateway, ingress PE (it encapsulates: RFC 6040's ingress map, `tunnel_ecn::ingress`, +64 bytes of outer IPv6 \
         and SRH), P routers R1, R5, R4, egress PE (it decapsulates by Figure 6, `tunnel_ecn::egress`), gateway, DC2's \
         leaf, receivers. Host links 10 Gb/s, DC and WAN links 40 Gb/s, 1 us per DC-side link, the WAN links share the \
         rest of the one-way delay D. Packets carry RoCE's 4,096-byte MTU (4,144 bytes, 4,208 in the tunnel). Every \
         switch port is a `WredEcnPort` acting on the outer header inside the tunnel. Choices (the draft sets none): \
         the LDCP senders' cw_max is one BDP (a window above it would not slow a sender that its line rate limits); \
         LDCP's switch thresholds scale with the base RTT until K_max reaches half the buffer (the data-centre values \
         K_min 5 KB, K_max 50 KB, K 20 KB per 100 Gb/s are for a 10 us RTT; x201 at D = 1 ms, x419 at D = 5 ms), the \
         buffer is 40 MiB per 100 Gb/s, so that a 40 Gb/s port holds the WRED/ECN block's largest occupancy, \
         16 MiB - 1 (24 bits), and R5's 20 Gb/s port of 001-A 8 MiB; the tail-loss timeout is 3 base RTTs. The \
         window engine's RTT register saturates at 65,535 cycles (655 us), which matters only to pacing below one packet.\n"
    );

    // ------------------------------------------------------------- 001-A
    let _ = writeln!(
        md,
        "### 001-A: RFC 6040 normal against compatibility mode\n\n\
         4 LDCP senders (40 Gb/s offered) into R5's 20 Gb/s port to R4, 50 RTTs, figures after the first 10 (goodput: \
         packets the senders had acknowledged in order, payload only). In normal mode the outer header copies the \
         inner ECN field, so R5 marks CE and the egress copies it into the inner header; in compatibility mode the \
         outer is Not-ECT and R5 drops at K instead (Eq. 3). Not-ECT packets are LDCP's fast start: R5 drops them at K \
         in both modes, by design.\n\n\
         | D | mode | drops at R5: all / ECT inside | CE marked at R5 | CE delivered | sender goodput, Gb/s of 20 | R5 queue p50 / p99 / max (packets) | discarded at receivers (go-back-N) | timeouts |\n\
         |---|---|---|---|---|---|---|---|---|"
    );
    let mut qa = Vec::new();
    let mut cwa = Vec::new();
    // (D ms, mode) -> (goodput, ECT drops at R5)
    let mut seen_a = Vec::new();
    for d in [1_000u64, 5_000] {
        for mode in ["normal", "compatibility"] {
            let mut o = Options::new("wan-tunnel-ecn", Cc::Ldcp, seed);
            o.tuning.wan_delay_us = Some(d);
            o.tuning.tunnel_mode = (mode != "normal").then(|| mode.to_string());
            let r = go(&o)?;
            let e = &r.json["extra"];
            let b = &e["bottleneck"];
            let pk = &r.json["packets_before_drain"];
            if mode == "normal" {
                // the draft's claim: no ECN-capable packet is lost at R5
                ok &= b["dropped_inner_ect"] == 0;
            }
            let _ = writeln!(
                md,
                "| {} ms | {mode} | {} / {} | {} | {} | {:.2} | {:.0} / {:.0} / {:.0} | {} | {} |",
                d / 1000,
                b["dropped"],
                b["dropped_inner_ect"],
                b["marked"],
                e["tunnel_in_run"]["ce_delivered"],
                f(&e["senders_goodput_gbps"]),
                f(&b["queue_p50_pkts"]),
                f(&b["queue_p99_pkts"]),
                f(&b["queue_max_pkts"]),
                pk["discarded_at_receiver"],
                pk["timeouts"]
            );
            seen_a.push((
                d / 1000,
                mode,
                f(&e["senders_goodput_gbps"]),
                b["dropped_inner_ect"].as_u64().unwrap_or(0),
            ));
            if d == 1_000 {
                if let Some(q) = output::queue_series(&r, mode) {
                    qa.push(in_ms(q, 0.0, f64::MAX));
                }
                if let Some(c) = output::cw_series(&r, 0, &format!("{mode}: sender 0's cw")) {
                    cwa.push(in_ms(c, 0.0, f64::MAX));
                }
            }
            ok &= note(&r, &mut all);
        }
    }
    for d in [1u64, 5] {
        let g = |m: &str| {
            seen_a
                .iter()
                .find(|x| x.0 == d && x.1 == m)
                .map_or((f64::NAN, 0), |x| (x.2, x.3))
        };
        let (gn, dn) = g("normal");
        let (gc, dc) = g("compatibility");
        let _ = writeln!(
            md,
            "{}D = {d} ms: normal mode carries {:.2}x the goodput of compatibility mode, which dropped {dc} ECN-capable \
             packets at R5 (normal mode: {dn}).",
            if d == 1 { "\n" } else { "" },
            gn / gc
        );
    }
    let _ = writeln!(
        md,
        "\nIn normal mode R5's queue stays near one packet, below K_min: after fast start's drops each sender is \
         window-limited and LDCP's increase, alpha = 1 packet per RTT, takes one 2 ms RTT per packet of window (the cw plot), \
         so the 20 Gb/s are not filled within the run. That is the draft's window growth at a WAN's RTT, not the tunnel; \
         in compatibility mode no CE arrives, the windows only grow, and R5 holds its queue at K by dropping."
    );
    // the fault run
    let mut o = Options::new("wan-tunnel-ecn", Cc::Ldcp, seed);
    o.tuning.fault = true;
    let r = go(&o)?;
    let t = &r.json["extra"]["tunnel_after_drain"];
    let faulted_delivered = t["faulted_not_ect_delivered"].as_u64().unwrap_or(u64::MAX);
    ok &=
        faulted_delivered == 0 && t["egress_dropped"] == r.json["packets"]["dropped_tunnel_egress"];
    let _ = writeln!(
        md,
        "\n**Fault run** (`--fault`, D = 1 ms, normal mode): R1 sets CE on every Not-ECT outer header, so every fast-start \
         packet of the senders arrives at the egress PE as (inner Not-ECT, outer CE), the one cell of Figure 6 that drops. \
         R1 rewrote {} outer headers; the egress PE dropped {} packets (counted as tunnel-egress drops: {}), forwarded {} \
         from the dangerous `(!!!)` cells and {} from the `(!)` cell, and **{} of the faulted Not-ECT packets reached a \
         receiver**. The senders lose their whole fast start to the fault: goodput {:.2} Gb/s, {} timeouts.\n",
        t["faulted"],
        t["egress_dropped"],
        r.json["packets"]["dropped_tunnel_egress"],
        t["egress_dangerous"],
        t["egress_unused"],
        faulted_delivered,
        f(&r.json["extra"]["senders_goodput_gbps"]),
        r.json["packets_before_drain"]["timeouts"]
    );
    ok &= note(&r, &mut all);
    md += &plot(
        dir,
        "wan-tunnel-ecn-queue.svg",
        "001-A, D = 1 ms: R5's queue (log; 0 at 0.5), normal against compatibility mode",
        "packets",
        qa,
        true,
    )?;
    md += &plot(
        dir,
        "wan-tunnel-ecn-cw.svg",
        "001-A, D = 1 ms: a sender's LDCP window",
        "packets",
        cwa,
        false,
    )?;

    // ------------------------------------------------------------- 001-B
    let _ = writeln!(
        md,
        "\n### 001-B: Fast CNP from the congested node\n\n\
         2 LDCP senders at 10 Gb/s cross the WAN with no queue (R5's port to R4 is 40 Gb/s); at t0 = 5 base RTTs, 30 Gb/s \
         of unresponsive ECT(0) cross traffic (not RoCEv2: no Fast CNP for it, G8) joins at R5, 10 Gb/s over the port's \
         rate. R5 sits at the fraction x of the one-way delay D from the senders. The times are from the first CE mark \
         on a sender's packet at R5 after t0: COMPANION.md's analytic reaction is x D for a Fast CNP and (2 - x) D \
         through the receiver, queueing ignored; the marked packet itself waits behind R5's queue at that moment (its \
         occupancy / 40 Gb/s, shown), which the Fast CNP does not. A Fast CNP is one CNP to the sender (one ECN-Echo \
         into LDCP's engine, cw -= beta: G10). The queue peak is R5's after t0; COMPANION.md's expectation for the \
         saving is the overload times the time saved, 10 Gb/s x 2(1 - x) D. \"Double\" counts packets a Fast CNP was \
         sent for whose CE mark the receiver also echoed (G10: one congestion heard twice).\n\n\
         | D | x | Fast CNP | first Fast CNP (analytic x D) | first ECN-Echo (analytic (2 - x) D + queue) | first cut | R5 queue peak | peak lower than off by (analytic) | drops at R5 | Fast CNPs sent / suppressed / double | sender goodput after t0, Gb/s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut qb = Vec::new();
    // (D, x, policy label) -> (saving MB, analytic MB, goodput)
    let mut seen_b: Vec<(u64, f64, &str, f64, f64, f64)> = Vec::new();
    let (mut fast_dev, mut ece_dev) = (f64::MIN, f64::MIN);
    for (d, xs) in [(1_000u64, &[0.25, 0.5, 0.75][..]), (5_000, &[0.5][..])] {
        for &x in xs {
            let mut off_peak = f64::NAN;
            for (label, fc, interval) in POLICIES {
                let mut o = Options::new("wan-fast-cnp", Cc::Ldcp, seed);
                o.tuning.wan_delay_us = Some(d);
                o.tuning.cong_at = Some(x);
                o.tuning.fast_cnp = Some(fc.to_string());
                o.tuning.fast_cnp_interval_us = interval;
                let r = go(&o)?;
                let e = &r.json["extra"];
                let re = &e["reaction"];
                let t = &e["tunnel_in_run"];
                let peak = f(&e["bottleneck"]["queue_max_bytes"]) / 1e6;
                if fc == "off" {
                    off_peak = peak;
                } else {
                    // a Fast CNP reaches the sender x D after the mark, plus
                    // at most 10 us of serialization and switching
                    let fast = f(&re["first_fast_cnp_after_mark_us"]);
                    ok &= fast >= f(&re["analytic_fast_cnp_us"])
                        && fast <= f(&re["analytic_fast_cnp_us"]) + 10.0;
                }
                let us = output::us_or_dash;
                let _ = writeln!(
                    md,
                    "| {} ms | {x} | {label} | {} ({:.0}) | {} ({:.0} + {:.1}) | {} | {:.2} MB | {} ({:.2} MB) | {} | {} / {} / {} | {:.2} |",
                    d / 1000,
                    us(&re["first_fast_cnp_after_mark_us"]),
                    f(&re["analytic_fast_cnp_us"]),
                    us(&re["first_ece_after_mark_us"]),
                    f(&re["analytic_via_receiver_us"]),
                    f(&re["queue_at_first_mark_us"]),
                    us(&re["first_cut_after_mark_us"]),
                    peak,
                    if fc == "off" {
                        "-".to_string()
                    } else {
                        format!("{:.2} MB", off_peak - peak)
                    },
                    f(&re["analytic_queue_saving_bytes"]) / 1e6,
                    e["bottleneck"]["dropped"],
                    t["fast_cnp_sent"],
                    t["fast_cnp_suppressed"],
                    t["double_signal"],
                    f(&e["senders_goodput_gbps"])
                );
                seen_b.push((
                    d,
                    x,
                    label,
                    off_peak - peak,
                    f(&re["analytic_queue_saving_bytes"]) / 1e6,
                    f(&e["senders_goodput_gbps"]),
                ));
                // how far each first signal is from its analytic time
                if !re["first_fast_cnp_after_mark_us"].is_null() {
                    fast_dev = fast_dev.max(
                        f(&re["first_fast_cnp_after_mark_us"]) - f(&re["analytic_fast_cnp_us"]),
                    );
                }
                if !re["first_ece_after_mark_us"].is_null() {
                    ece_dev = ece_dev.max(
                        f(&re["first_ece_after_mark_us"])
                            - f(&re["analytic_via_receiver_us"])
                            - f(&re["queue_at_first_mark_us"]),
                    );
                }
                if d == 1_000 && x == 0.5 {
                    let t0 = f(&re["t0_us"]) / 1000.0;
                    if let Some(q) = output::queue_series(&r, label) {
                        qb.push(in_ms(q, t0 - 1.0, t0 + 10.0));
                    }
                }
                ok &= note(&r, &mut all);
            }
        }
    }
    let pick = |d: u64, x: f64, l: &str| {
        seen_b
            .iter()
            .find(|r| r.0 == d && r.1 == x && r.2 == l)
            .map_or((f64::NAN, f64::NAN, f64::NAN), |r| (r.3, r.4, r.5))
    };
    let (every, analytic, g_every) = pick(1_000, 0.5, POLICIES[2].0);
    let (limited, _, _) = pick(1_000, 0.5, POLICIES[1].0);
    let (_, _, g_off) = pick(1_000, 0.5, POLICIES[0].0);
    let (s_instead, _, g_instead) = pick(1_000, 0.5, POLICIES[3].0);
    let _ = writeln!(
        md,
        "\nAt every x and D the first Fast CNP reaches a sender at most {fast_dev:.1} us after x D, and the first \
         ECN-Echo at most {ece_dev:.1} us after (2 - x) D plus the marked packet's wait in R5's queue (the rest is \
         serialization on the hops after R5). What the earlier signal buys depends on how many signals arrive: LDCP \
         cuts cw by beta per ECN-Echo, so one Fast CNP per flow per 50 us (G9's default, the DCQCN interval) is a \
         trickle beside the per-packet echoes, and lowers R5's peak by {limited:.2} MB at D = 1 ms, x = 0.5; a Fast \
         CNP for every mark lowers it by {every:.2} MB against the analytic {analytic:.2} MB. Keeping the mark as well \
         (G10's default) makes the sender hear each congestion twice, once x D and once (2 - x) D after it{}: goodput \
         after the step {g_every:.2} Gb/s against {g_off:.2} without Fast CNP; notifying instead of marking gives \
         {g_instead:.2} Gb/s and lowers the peak by {s_instead:.2} MB.{}\n",
        if g_every < g_off { ", and cut twice" } else { "" },
        if g_instead > g_off && s_instead > limited {
            " In these runs the setting that both lowers the peak and keeps the goodput is interval 0 with notify-instead: \
             G10's ablation, not its default."
        } else {
            ""
        }
    );
    md += &plot(
        dir,
        "wan-fast-cnp-queue.svg",
        "001-B, D = 1 ms, x = 0.5: R5's queue around the overload step",
        "packets",
        qb,
        false,
    )?;
    let (c_md, c_ok) = arn_section(dir, seed, &mut all)?;
    md += &c_md;
    ok &= c_ok;
    Ok((md, all, ok))
}

/// 001-C's flow-control modes: (label, `--flow-control`).
const FLOW_CONTROL: [(&str, &str); 5] = [
    ("none (lossy)", "none"),
    ("PFC", "pfc"),
    ("ARN, priority mode", "arn-priority"),
    ("ARN, service mode", "arn-service"),
    ("ARN, flow mode", "arn-flow"),
];

/// Scenario 001-C.
fn arn_section(dir: &Path, seed: u64, all: &mut Vec<Value>) -> Result<(String, bool), Error> {
    let mut md = String::new();
    let mut ok = true;
    let _ = writeln!(
        md,
        "\n### 001-C: precise flow control, ARN against PFC\n\n\
         `ldcp netsim --scenario wan-arn`: services A and B share one priority and one WAN link (R1 -> R5, 100 Gb/s, \
         100 us). Service A's flow A1 sends a burst at 40 Gb/s into R5's 10 Gb/s port toward its egress PE; A's flow A2 \
         (5 Gb/s) and service B's flow (20 Gb/s, the victim) leave R5 by an idle 100 Gb/s port. Every flow is \
         unresponsive (no congestion control: the traffic PFC exists for) and ECT, so a full buffer is the only loss. \
         Each switch counts the bytes each ingress port brought in (G17); above XOFF = 1 MB it asserts, below XON = \
         0.5 MB it releases. PFC pauses the upstream port's priority (hosts included); ARN (G12-G16) names the key with \
         the largest backlog from that port with Time = 500 us, re-sent every 250 us while above XOFF, Time = 0 below \
         XON; the upstream node holds that key's packets in a side queue (G18). The WAN's nodes (ingress PE, R1, R5, \
         egress PEs) speak ARN; the ingress PE turns its own congestion into PFC toward the DC gateway, which uses PFC \
         toward the hosts (G17). Each ARN crosses the link as its bytes (`ldcp_sim::wire::arn`) and is parsed at the \
         other end. Figures over A1's burst, from its start to its completion; delays are one-way, from the wire at the \
         sender to the receiver, of the packets sent during the burst (107 us when nothing waits).\n\n\
         | A1's burst | flow control | B, Gb/s of 20 | B delay p50 / p99 / max | A2, Gb/s of 5, delay p99 | A1 completion (bound) | paused: hosts / all ports | halted (key-time) | PAUSE / ARN frames | peak bytes: gateway / ingress PE / R1 / R5 | drops |\n\
         |---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut series = Vec::new();
    let mut seen = Vec::new();
    let mut never = None;
    let mut drops_none4 = u64::MAX;
    for burst in [4_000u64, 16_000] {
        for (label, fc) in FLOW_CONTROL {
            let mut o = Options::new("wan-arn", Cc::Ldcp, seed);
            o.tuning.flow_control = Some(fc.to_string());
            o.tuning.burst_kb = Some(burst);
            let r = go(&o)?;
            let e = &r.json["extra"];
            let s = &e["flow_control_stats"];
            let pk = &e["peak_bytes"];
            let mb = |v: &Value| format!("{:.2}", f(v) / 1e6);
            let ms = |v: &Value| {
                if v.is_null() {
                    "-".to_string()
                } else {
                    format!("{:.2} ms", f(v) / 1000.0)
                }
            };
            let completion = if e["a1_completion_us"].is_null() {
                format!("**never** ({} retransmissions)", e["a1_retransmitted"])
            } else {
                ms(&e["a1_completion_us"])
            };
            let _ = writeln!(
                md,
                "| {} MB | {label} | {:.2} | {:.0} / {:.0} / {:.0} us | {:.2}, {:.0} us | {} ({}) | {} / {} | {} | {} / {} | {} | {} |",
                burst / 1000,
                f(&e["b_gbps_during_burst"]),
                f(&e["b_delay"]["p50_us"]),
                f(&e["b_delay"]["p99_us"]),
                f(&e["b_delay"]["max_us"]),
                f(&e["a2_gbps_during_burst"]),
                f(&e["a2_delay"]["p99_us"]),
                completion,
                ms(&e["a1_bottleneck_bound_us"]),
                ms(&s["host_paused_us"]),
                ms(&s["paused_us"]),
                ms(&s["halted_us"]),
                s["pause_sent"].as_u64().unwrap_or(0) + s["resume_sent"].as_u64().unwrap_or(0),
                s["arn_halt_sent"].as_u64().unwrap_or(0) + s["arn_resume_sent"].as_u64().unwrap_or(0),
                if pk.is_null() {
                    format!("R5's port: {}", mb(&e["r5_to_pe_a_queue_max_bytes"]))
                } else {
                    format!("{} / {} / {} / {}", mb(&pk["gw"]), mb(&pk["pe_in"]), mb(&pk["r1"]), mb(&pk["r5"]))
                },
                e["dropped"]
            );
            seen.push((
                burst,
                fc,
                f(&e["b_gbps_during_burst"]),
                f(&e["b_delay"]["p99_us"]),
                s["pause_sent"].as_u64().unwrap_or(0),
            ));
            // flow control must lose nothing and finish everything
            all.push(r.json.clone());
            let p = &r.json["packets"];
            ok &= p["conserved"] == true;
            if fc != "none" {
                // flow control loses nothing and everything finishes; without
                // it an unresponsive go-back-N sender may retransmit forever
                ok &= e["dropped"] == 0
                    && r.json["flows_unfinished"] == 0
                    && p["in_flight_after_drain"] == 0;
            } else {
                if burst == 4_000 {
                    drops_none4 = e["dropped"].as_u64().unwrap_or(u64::MAX);
                }
                if r.json["flows_unfinished"] != 0 {
                    never = Some((burst, p["in_flight_after_drain"].clone()));
                }
            }
            if burst == 4_000 {
                let end = f(&e["window_us"][1]) / 1000.0 + 1.0;
                if let Some(t) = output::throughput_series_of(&r, 1, label, 20_000_000) {
                    series.push(in_ms(t, 0.0, end));
                }
            }
        }
    }
    let get = |b: u64, fc: &str| {
        seen.iter()
            .find(|x| x.0 == b && x.1 == fc)
            .map_or((f64::NAN, f64::NAN, 0), |x| (x.2, x.3, x.4))
    };
    let (b_pfc, d_pfc, _) = get(4_000, "pfc");
    let (b_flow, d_flow, p_flow) = get(4_000, "arn-flow");
    let (b_svc, _, p_svc) = get(4_000, "arn-service");
    let (b_flow16, _, _) = get(16_000, "arn-flow");
    let (b_prio, _, _) = get(4_000, "arn-priority");
    let (b_pfc16, _, _) = get(16_000, "pfc");
    let (_, _, p_pfc) = get(4_000, "pfc");
    let none4_drops = drops_none4;
    let mut t = format!(
        "\nWith a 4 MB burst, PFC pauses the WAN link for every flow of the priority ({p_pfc} PAUSE (on) frames), and the \
         pause walks back toward the hosts: B gets {b_pfc:.2} Gb/s and a p99 delay of {d_pfc:.0} us (a packet held at \
         its paused NIC is not in the delay: the pause shows as lost throughput). ARN in flow mode halts only A1, hop \
         by hop: B keeps {b_flow:.2} Gb/s at a p99 of {d_flow:.0} us ({p_flow} PAUSE (on) frames in the run). Service mode \
         halts A2 with A1 (one service)"
    );
    if p_svc > 0 && b_svc < b_flow - 0.5 {
        t += &format!(
            ", and that extra backlog reaches the ingress PE's XOFF, so its PFC toward the gateway ({p_svc} PAUSE \
             (on) frames) touches B ({b_svc:.2} Gb/s)"
        );
    } else {
        t += &format!(" (B: {b_svc:.2} Gb/s)");
    }
    t += &format!(
        "; priority mode halts the whole class, B included ({b_prio:.2} Gb/s). With a 16 MB burst the WAN's hops \
         cannot hold A1's excess within their XOFF, the halted backlog propagates (G17) to the ingress PE, whose PFC \
         toward the gateway pauses B's sender too: flow mode gives B {b_flow16:.2} Gb/s, PFC {b_pfc16:.2}."
    );
    t += &format!(
        " Without flow control the 4 MB burst {} R5's buffer ({none4_drops} drops); the 16 MB one overflows it",
        if none4_drops == 0 { "fits" } else { "overflows" }
    );
    t += &never.map_or(String::new(), |(b, n)| {
        format!(
            ", and the unresponsive sender's go-back-N retransmits into the same overflow without end (the {} MB \
             run ends its 200 ms drain with {n} of A1's packets still in flight, every packet accounted for)",
            b / 1000
        )
    });
    t += ". A side queue released at once joins the port's FIFO whole, so the flows behind it wait for it: the \
          dips of B's throughput in flow mode (the plot) and its p99 above the idle 107 us. A1 completes at its \
          bottleneck's pace whenever nothing is lost: flow control moves where its excess waits, not when it leaves.\n";
    md += &t;
    md += &plot(
        dir,
        "wan-arn-victim.svg",
        "001-C, 4 MB burst: B's throughput at its receiver (20 us bins)",
        "Gb/s",
        series,
        false,
    )?;
    Ok((md, ok))
}
