//! The report's section on draft 002 (coordinated congestion management,
//! COMPANION.md §2.2): the coord-* scenarios under congestion control
//! alone, with independent adaptive routing and with the coordinated
//! scheme; their table, the headline comparisons and the plots.

use super::common::{f, go, plot_x, Error};
use crate::config::Cc;
use crate::output::{self, Series};
use crate::scenario::{windowed_gbps, Options, Outcome};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// One run: (scenario, --coord, --ar, --collision, --topology).
type Run = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
);

/// The runs.
const RUNS: [Run; 21] = [
    ("coord-collision", "cc-only", "flowlet", None, None),
    ("coord-collision", "independent", "flowlet", None, None),
    ("coord-collision", "coordinated", "flowlet", None, None),
    ("coord-collision", "coordinated", "spray", None, None),
    (
        "coord-collision",
        "cc-only",
        "flowlet",
        Some("leaf-uplink"),
        None,
    ),
    (
        "coord-collision",
        "independent",
        "flowlet",
        Some("leaf-uplink"),
        None,
    ),
    (
        "coord-collision",
        "coordinated",
        "flowlet",
        Some("leaf-uplink"),
        None,
    ),
    ("coord-incast", "cc-only", "flowlet", None, None),
    ("coord-incast", "independent", "flowlet", None, None),
    ("coord-incast", "coordinated", "flowlet", None, None),
    ("coord-incast", "coordinated", "spray", None, None),
    ("coord-both", "cc-only", "flowlet", None, None),
    ("coord-both", "independent", "flowlet", None, None),
    ("coord-both", "coordinated", "flowlet", None, None),
    ("coord-both", "coordinated", "spray", None, None),
    (
        "coord-collision",
        "cc-only",
        "flowlet",
        None,
        Some("fat-tree"),
    ),
    (
        "coord-collision",
        "independent",
        "flowlet",
        None,
        Some("fat-tree"),
    ),
    (
        "coord-collision",
        "coordinated",
        "flowlet",
        None,
        Some("fat-tree"),
    ),
    ("coord-incast", "cc-only", "flowlet", None, Some("fat-tree")),
    (
        "coord-incast",
        "independent",
        "flowlet",
        None,
        Some("fat-tree"),
    ),
    (
        "coord-incast",
        "coordinated",
        "flowlet",
        None,
        Some("fat-tree"),
    ),
];

/// A run's draft-002 figures without the granularity's name.
fn without_ar(v: &Value) -> Value {
    let mut e = v["extra"].clone();
    e["ar"] = Value::Null;
    e
}

fn opt_us(v: &Value) -> String {
    v.as_f64().map_or("-".into(), |x| format!("{x:.1}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The largest queue of the watched port whose label holds `label`, KB.
fn peak_kb(r: &Value, label: &str) -> String {
    r["watched"]
        .as_array()
        .and_then(|w| {
            w.iter()
                .find(|x| x["port"].as_str().is_some_and(|l| l.contains(label)))
        })
        .map_or("-".into(), |x| {
            format!("{:.1}", f(&x["queue_max_bytes"]) / 1e3)
        })
}

/// The collision flows' throughput over 10-us windows, in us.
fn throughput(o: &Outcome, scheme: &str) -> Vec<Series> {
    let Some(c) = o.sim.coord.as_ref() else {
        return Vec::new();
    };
    let w = (10_000_000 / o.sim.cfg.sample_ps).max(1) as usize;
    let pk = o.sim.cfg.packet_bytes();
    c.progress
        .iter()
        .enumerate()
        .map(|(k, p)| Series {
            label: format!("{scheme}: flow {}", ["a", "b"][k.min(1)]),
            points: windowed_gbps(p, w, pk)
                .into_iter()
                .map(|(t, g)| (t as f64 / 1e6, g))
                .collect(),
        })
        .collect()
}

/// Section 9: returns its Markdown, every run's figures, and whether every
/// run conserved its packets and finished.
pub fn section(dir: &Path, seed: u64) -> Result<(String, Vec<Value>, bool), Error> {
    let mut md = String::new();
    let mut all = Vec::new();
    let mut ok = true;
    let _ = writeln!(
        md,
        "\n## 9. Draft 002: congestion control and adaptive routing, coordinated\n\n\
         `ldcp netsim --scenario coord-collision|coord-incast|coord-both --coord cc-only|independent|coordinated \
         --ar flowlet|spray` (`netsim/src/coord.rs`; its module doc lists every choice). A leaf-spine of 100 Gb/s \
         links, 4 leaves of 8 hosts and 4 spines, 1 us per link, LDCP everywhere. **(i) collision**: two long flows to \
         hosts 1 and 2 on leaf 0, flow b starting at 100 us (flow a is then in its stable stage at the line rate), \
         hashed onto one link while three are idle: from leaves 1 and 2 onto one spine's link down to leaf 0 \
         (`--collision spine-downlink`, where the spine has no other way and only an upstream switch can move \
         them), or both from leaf 1 onto one of its uplinks (`leaf-uplink`). **(ii) incast**: 16 senders on leaves \
         1-3 send 500 KB each to host 0 on leaf 0 at 200 us. **(iii) both at once.** 2 ms, then the drain. \
         **CC only** is LDCP over ECMP. **Independent** adds adaptive routing that does not know of congestion \
         control: a switch whose egress queue is at K_min or more moves the flow to its least-loaded light \
         candidate, and hosts re-path a flow (new ECMP entropy) after {} consecutive RTTs with half their ACKs \
         ECN-Echoed, as PLB does (Linux's defaults); WRED/ECN marks as always. **Coordinated** is the draft: the \
         tag, `ldcp_sim::coord::decide` at every switch port (the rule the RTL block `coord_decision` implements), \
         type 3 to the AR point, type 1 and 2 from the last hop once two or more flows met there congested, hosts \
         that set CC on type 1 and re-path on type 3. Congested and light are \
         H2's (queue >= K_min = 5 KB, or below); T_notify 50 us, T_release 10 RTT_min, T_pin 1 RTT_min, T_flowlet \
         2 RTT_min. A mark is **needless** when, as it was made, a path from the flow's first switch to its last-hop \
         switch had every port light (the simulator sees every queue), **needed** otherwise; each mark a receiver \
         accepts is one ECN-Echo and one window cut. Out of order: a delivery sent before one the receiver already \
         had (the receivers are go-back-N: the newer packets that overtook it were discarded as a gap's, and are \
         sent again). Path changes: moves by a \
         switch (a flowlet entry set or changed, or a sprayed packet) and re-paths by a host.\n",
        crate::coord::PLB_ROUNDS
    );
    let _ = writeln!(
        md,
        "| scenario | scheme | AR | collision flows a / b / ..., Gb/s after 100 us | recovery after the first move, us (a / b / ...) | both >= 90 Gb/s at, us | marks needless / needed (all flows) | incast: completion, us | incast flows: path changes / out of order | out of order, all flows | queue peak, KB: hot link / incast port | notifications sent: type 1 / 2 / 3 |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut plots_collision = Vec::new();
    let mut plots_both = Vec::new();
    let mut queue_incast = Vec::new();
    // each run's label, beside its figures in `all`
    let mut labels: Vec<String> = Vec::new();
    for (name, coord, ar, collision, topology) in RUNS {
        let mut o = Options::new(name, Cc::Ldcp, seed);
        o.tuning.coord = Some(coord.into());
        o.tuning.ar = Some(ar.into());
        o.tuning.collision = collision.map(String::from);
        o.tuning.topology = topology.map(String::from);
        let r = go(&o)?;
        let v = &r.json;
        let e = &v["extra"];
        ok &= super::wan::note(&r, &mut all);
        let coll = e["collision"].as_array().cloned().unwrap_or_default();
        let pair = |k: &str, fmt: &dyn Fn(&Value) -> String| {
            if coll.is_empty() {
                "-".to_string()
            } else {
                coll.iter()
                    .map(|c| fmt(&c[k]))
                    .collect::<Vec<_>>()
                    .join(" / ")
            }
        };
        let label = match collision {
            Some(c) => format!("{name} ({c})"),
            None if name != "coord-incast" => format!("{name} (spine-downlink)"),
            None => name.to_string(),
        };
        let label = match topology {
            Some(t) => format!("{label}, {t}"),
            None => label,
        };
        let n = &e["notifications_sent"];
        let _ = writeln!(
            md,
            "| {label} | {coord} | {ar} | {} | {} | {} | {} / {} | {} | {} | {} | {} / {} | {} / {} / {} |",
            pair("gbps_after_100us", &|x| format!("{:.1}", f(x))),
            pair("recovery_us", &opt_us),
            opt_us(&e["collision_both_at_90pct_us"]),
            e["all_flows"]["marks_needless"],
            e["all_flows"]["marks_needed"],
            opt_us(&e["incast"]["completion_us"]),
            if e["incast"].is_null() {
                "-".to_string()
            } else {
                format!(
                    "{} / {}",
                    e["incast_flows"]["path_changes"], e["incast_flows"]["out_of_order"]
                )
            },
            e["all_flows"]["out_of_order"],
            peak_kb(v, "(the collision's"),
            peak_kb(v, "(the incast port)"),
            n["type1"],
            n["type2"],
            n["type3"],
        );
        if ar == "flowlet" && collision.is_none() && topology.is_none() {
            match name {
                "coord-collision" => plots_collision.extend(throughput(&r, coord)),
                "coord-both" => plots_both.extend(throughput(&r, coord)),
                _ => {
                    if let Some(q) = output::queue_series(&r, coord) {
                        queue_incast.push(q);
                    }
                }
            }
        }
        labels.push(format!("{label} {coord} {ar}"));
    }
    // the headline comparisons, from the runs above
    let find = |k: &str| labels.iter().position(|l| l == k).map(|i| &all[i]);
    let sc = "coord-collision (spine-downlink)";
    if let (Some(cc), Some(ind), Some(co)) = (
        find(&format!("{sc} cc-only flowlet")),
        find(&format!("{sc} independent flowlet")),
        find(&format!("{sc} coordinated flowlet")),
    ) {
        let cf = |v: &Value, k: &str| u(&v["extra"]["collision_flows"][k]);
        let gb = |v: &Value| -> f64 {
            v["extra"]["collision"]
                .as_array()
                .map_or(0.0, |a| a.iter().map(|c| f(&c["gbps_after_100us"])).sum())
        };
        let spray_text = match find(&format!("{sc} coordinated spray")) {
            Some(sp) if sp["packets"] == co["packets"] && without_ar(sp) == without_ar(co) => {
                "Spray moves only the packets a switch re-routes itself, and here every move is a type 3's, \
                 which moves the flow at its AR point (H8): the spray run is packet for packet the flowlet run."
                    .to_string()
            }
            Some(sp) => format!(
                "With spray: {} needless marks, {} moves, {} out of order.",
                cf(sp, "marks_needless"),
                cf(sp, "switch_moves"),
                cf(sp, "out_of_order")
            ),
            None => String::new(),
        };
        let same = cf(ind, "marks_needless") == cf(cc, "marks_needless")
            && cf(ind, "switch_moves") + cf(ind, "host_repaths") == 0
            && ind["packets"] == cc["packets"];
        let ind_text = if same {
            format!(
                "Independent adaptive routing does not help: the spine has one way to leaf 0 and no host re-pathed \
                 (PLB's rounds need half of the ACKs ECN-Echoed), so its run is packet for packet the same ({} needless \
                 marks, {:.1} Gb/s).",
                cf(ind, "marks_needless"),
                gb(ind)
            )
        } else {
            format!(
                "Independent adaptive routing: {} needless marks, {:.1} Gb/s, {} switch moves, {} host re-paths.",
                cf(ind, "marks_needless"),
                gb(ind),
                cf(ind, "switch_moves"),
                cf(ind, "host_repaths")
            )
        };
        let _ = writeln!(
            md,
            "\n- **Collision on a spine's link (i)**: with CC alone the two flows share 100 Gb/s ({:.1} Gb/s together \
             after 100 us) and {} of their marks are needless ({} needed), while three spines idle. {ind_text} The \
             coordinated scheme sends {} type 3 to the source leaves, which move the flows ({} moves): {:.1} Gb/s \
             together, {} needless marks and {} needed, {} deliveries out of order. Flow b starts into the collision \
             in its fast start; the run dropped {} fast-start (Not-ECT) packets at K, and an LDCP flow whose fast \
             start loses a packet enters its stable stage at the window acknowledged before the loss and grows by \
             alpha = 1 packet per RTT (the findings above, on FCT): its recovery column. {spray_text}",
            gb(cc),
            cf(cc, "marks_needless"),
            cf(cc, "marks_needed"),
            u(&co["extra"]["notifications_sent"]["type3"]),
            cf(co, "switch_moves"),
            gb(co),
            cf(co, "marks_needless"),
            cf(co, "marks_needed"),
            cf(co, "out_of_order"),
            u(&co["packets_before_drain"]["dropped_wred_not_ect"]),
        );
    }
    let si = "coord-incast";
    if let (Some(cc), Some(ind), Some(co)) = (
        find(&format!("{si} cc-only flowlet")),
        find(&format!("{si} independent flowlet")),
        find(&format!("{si} coordinated flowlet")),
    ) {
        let i = |v: &Value, k: &str| u(&v["extra"]["incast_flows"][k]);
        let _ = writeln!(
            md,
            "- **Incast (ii)**: the 16 flows complete in {} us with CC alone, {} us with independent adaptive routing \
             ({} path changes, {} deliveries out of order) and {} us coordinated ({} path changes, {} out of order). \
             Coordinated, the sources receive {} type 1 and, once the port has been quiet for T_release, {} type 2; \
             {} type 3 were sent for incast flows (congestion inside the fabric while they were untagged), and their \
             sources or leaves moved them {} times.",
            opt_us(&cc["extra"]["incast"]["completion_us"]),
            opt_us(&ind["extra"]["incast"]["completion_us"]),
            i(ind, "path_changes"),
            i(ind, "out_of_order"),
            opt_us(&co["extra"]["incast"]["completion_us"]),
            i(co, "path_changes"),
            i(co, "out_of_order"),
            u(&co["extra"]["notifications_received"]["type1"]),
            u(&co["extra"]["notifications_received"]["type2"]),
            i(co, "type3_caused"),
            i(co, "path_changes"),
        );
    }
    let sf = "coord-collision (spine-downlink), fat-tree";
    if let (Some(cc), Some(co)) = (
        find(&format!("{sf} cc-only flowlet")),
        find(&format!("{sf} coordinated flowlet")),
    ) {
        let gb = |v: &Value| -> f64 {
            v["extra"]["collision"]
                .as_array()
                .map_or(0.0, |a| a.iter().map(|c| f(&c["gbps_after_100us"])).sum())
        };
        let cf = |v: &Value, k: &str| u(&v["extra"]["collision_flows"][k]);
        let _ = writeln!(
            md,
            "- **The same collision on the HPCC fat tree** (`--topology fat-tree`: five flows from other pods onto \
             one core's 400 Gb/s link down to pod 0): CC alone {:.1} Gb/s together with {} needless marks; \
             coordinated {:.1} Gb/s, {} type 3 sent, {} moves, {} marks withheld, {} needless. Each type 3 goes \
             to the flow's nearest multi-path switch upstream, its pod's aggregation switch, whose four cores \
             all lead to the same aggregation switch in pod 0 (the HPCC fat tree wires aggregation switch i of \
             every pod to cores 4i..4i+3): the move cannot leave that switch's one link to the receivers' ToR, \
             only the ToR above the sender could, and it is not the AR point the tag names.",
            gb(cc),
            cf(cc, "marks_needless"),
            gb(co),
            u(&co["extra"]["notifications_sent"]["type3"]),
            cf(co, "switch_moves"),
            u(&co["extra"]["marks_withheld"]),
            cf(co, "marks_needless"),
        );
    }
    let _ = writeln!(md);
    let us_plot = |file: &str, title: &str, ylabel: &str, s: Vec<Series>, log: bool| {
        plot_x(dir, file, title, "time (us)", ylabel, s, log)
    };
    md += &us_plot(
        "coord-collision-throughput.svg",
        "(i) collision on a spine's link: each flow's throughput (10-us windows)",
        "Gb/s",
        plots_collision,
        false,
    )?;
    md += &us_plot(
        "coord-incast-queue.svg",
        "(ii) incast: leaf 0's port to the receiver",
        "packets",
        queue_incast,
        false,
    )?;
    md += &us_plot(
        "coord-both-throughput.svg",
        "(iii) both: the collision flows' throughput (10-us windows)",
        "Gb/s",
        plots_both,
        false,
    )?;
    Ok((md, all, ok))
}
