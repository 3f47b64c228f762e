//! Draft 002 in the simulator: the draft's own walk-through (§7,
//! COMPANION.md C11) on its example network, and the three schemes on the
//! coord-* scenarios against the checklist (C4, C5, C8-C10, H4, H5, H9).

use ldcp_netsim::config::{Cc, NetConfig};
use ldcp_netsim::coord::{CoordMode, Granularity, HopLog, Notify, NotifyLog};
use ldcp_netsim::engine::Models;
use ldcp_netsim::scenario::{self, Options};
use ldcp_netsim::sim::Sim;
use ldcp_netsim::topo::Topology;

const US: u64 = 1_000_000;

/// C11: P1 of F1 from H-1-1 takes L1-1-1 (two light paths: it writes
/// itself), L2-1-1 (writes itself), L3-1-1 (one path: keeps L2-1-1) and
/// L4-1-1; once L4-1-1 is congested (cross traffic) with no path of its
/// own, it sends a type 3 to L2-1-1, which moves F1 from L3-1-1 to L3-m-1.
/// Later L1-n-1 is congested by an incast, sends a type 1 to H-1-1, F1's
/// packets carry CC from then on, are never moved again, and are marked.
#[test]
fn c11_the_drafts_example_walks_through() {
    let (topo, n) = Topology::c11();
    let cfg = NetConfig::new(Cc::Ldcp, 100_000_000_000, 14 * US);
    let seed = 0x5EED_C011;
    println!("seed {seed:#x}");
    let mut sim = Sim::new(topo, cfg, seed, &mut Models).unwrap();
    sim.enable_coord(CoordMode::Coordinated, Granularity::Flowlet);
    sim.coord.as_mut().unwrap().log = Some((Vec::new(), Vec::new()));
    let f1 = sim.add_flow(n.h_1_1, n.h_n_1, u64::MAX, 0, 0).unwrap();
    // which of the two equal-cost switches ECMP chose is F1's "-1-1"
    let route = sim.flow_route(f1 as usize).to_vec();
    let to: Vec<usize> = sim.ports.iter().map(|p| p.to as usize).collect();
    let node = |p: u32| to[p as usize];
    let hops: Vec<usize> = route.iter().map(|&p| node(p)).collect();
    assert_eq!(hops[0], n.l1_1_1);
    let l2 = hops[1];
    let (l3, l4) = (hops[2], hops[3]);
    let k = n.l3.iter().position(|&x| x == l3).unwrap();
    assert_eq!(l4, n.l4[k], "the layer-3 switch's one uplink");
    let other_l3 = n.l3[1 - k];
    println!(
        "F1: L2-1-1 = node {l2}, L3-1-1 = node {l3}, L4-1-1 = node {l4}, L3-m-1 = node {other_l3}"
    );
    // L4-1-1's way down congested from 50 us; the incast from 150 us
    sim.add_cbr(
        n.cross_src[k],
        n.cross_dst[k],
        100_000_000_000,
        2_000_000,
        50 * US,
        1,
    )
    .unwrap();
    let incast: Vec<u32> = n
        .incast
        .iter()
        .enumerate()
        .map(|(i, &h)| {
            sim.add_flow(h, n.h_n_1, 200_000, 150 * US, 10 + i as u64)
                .unwrap()
        })
        .collect();
    sim.run(400 * US, &mut |_| {}).unwrap();
    let c = sim.coord.as_ref().unwrap();
    let (hop_log, notes) = c.log.as_ref().unwrap();
    let of_f1: Vec<&HopLog> = hop_log.iter().filter(|h| h.flow == f1).collect();

    // P1 (F1's first packet): the indicators the example writes
    let p1: Vec<&&HopLog> = of_f1.iter().filter(|h| h.psn == 0).take(4).collect();
    let at = |x: usize| p1.iter().find(|h| h.node as usize == x).unwrap();
    assert_eq!(
        at(n.l1_1_1).ar_in,
        n.h_1_1 as u32,
        "C2's choice: the host names itself"
    );
    assert_eq!(at(n.l1_1_1).light, 2);
    assert_eq!(at(n.l1_1_1).ar_out, n.l1_1_1 as u32, "L1-1-1 writes itself");
    assert_eq!(at(l2).light, 2);
    assert_eq!(at(l2).ar_out, l2 as u32, "L2-1-1 writes itself");
    assert_eq!(at(l3).light, 1);
    assert_eq!(at(l3).ar_out, l2 as u32, "L3-1-1 keeps L2-1-1");
    assert_eq!(at(l4).ar_in, l2 as u32);

    // L4-1-1 congested, no path: a type 3 to L2-1-1, the packet unmarked
    let t3 = of_f1
        .iter()
        .find(|h| h.node as usize == l4 && h.type3)
        .expect("L4-1-1 sends a type 3 for F1");
    assert!(t3.congested && t3.light == 0 && t3.ar_in == l2 as u32);
    assert!(t3.t >= 50 * US, "only once the cross traffic congests it");
    let sent3: Vec<&NotifyLog> = notes
        .iter()
        .filter(|e| e.flow == f1 && e.kind == Notify::ArRequired)
        .collect();
    assert!(!sent3.is_empty());
    assert!(
        sent3.iter().all(|e| e.to == l2 as u32),
        "every type 3 of F1 goes to L2-1-1"
    );
    let arrived = sent3.iter().find(|e| e.arrived).expect("it reaches L2-1-1");
    // L2-1-1 moves F1 from L3-1-1 to L3-m-1 for its new packets
    let moved = of_f1
        .iter()
        .find(|h| h.node as usize == l2 && h.t > arrived.t)
        .expect("F1 passes L2-1-1 after the type 3");
    assert_eq!(node(moved.out), other_l3, "moved to L3-m-1");
    assert!(
        of_f1.iter().any(|h| h.node as usize == other_l3),
        "F1 travels through L3-m-1"
    );

    // the incast at L1-n-1: a type 1 to H-1-1 for F1, and to every sender
    let t1 = notes
        .iter()
        .find(|e| e.flow == f1 && e.kind == Notify::CcRequired && e.arrived)
        .expect("H-1-1 receives a type 1 for F1");
    assert_eq!(t1.to, n.h_1_1 as u32);
    let from = notes
        .iter()
        .find(|e| e.flow == f1 && e.kind == Notify::CcRequired && !e.arrived)
        .unwrap();
    assert_eq!(
        from.from, n.l1_n_1 as u32,
        "sent by the incast switch L1-n-1"
    );
    for &f in &incast {
        assert!(
            notes
                .iter()
                .any(|e| e.flow == f && e.kind == Notify::CcRequired && e.arrived),
            "incast flow {f} gets a type 1"
        );
    }
    // from then on F1 is tagged CC until a type 2, and never moved again
    let released = notes
        .iter()
        .find(|e| e.flow == f1 && e.kind == Notify::CcReleased && e.arrived)
        .map_or(u64::MAX, |e| e.t);
    let tagged: Vec<&&HopLog> = of_f1
        .iter()
        .filter(|h| h.node == n.l1_1_1 as u32 && h.t > t1.t + 2 * US && h.t < released)
        .collect();
    assert!(
        tagged.len() > 10,
        "F1 sends after the type 1: {}",
        tagged.len()
    );
    assert!(tagged.iter().all(|h| h.cc), "F1's packets carry CC (C10)");
    // never re-pathed again (C11, H9): at every switch, F1's tagged
    // packets leave on one port, the one its first tagged packet took
    let mut outs: std::collections::BTreeMap<u32, std::collections::BTreeSet<u32>> =
        Default::default();
    for h in of_f1.iter().filter(|h| h.cc && h.t < released) {
        outs.entry(h.node).or_default().insert(h.out);
    }
    assert!(
        outs.len() >= 5,
        "F1's tagged packets pass its switches: {outs:?}"
    );
    for (node, ports) in &outs {
        assert_eq!(
            ports.len(),
            1,
            "F1 moved at node {node} while tagged: {ports:?}"
        );
    }
    assert!(
        !of_f1.iter().any(|h| h.cc && h.type3),
        "a CC-tagged flow causes no type 3 (C8)"
    );
    let st = &c.stats.flows[f1 as usize];
    assert!(st.type1 >= 1);
    assert!(
        st.marks_needed > 0,
        "F1's rate is reduced by CC: marked at the incast port"
    );
    // the cross traffic is not F1's business: no F1 packet marked at L4-1-1
    // after the move would have been needless
    println!(
        "F1: {} switch moves, {} type 3 caused, {} marks (needless {}), {} out of order; type 3 at {} us, type 1 at {} us, type 2 at {}",
        st.switch_moves,
        st.type3,
        st.marks_needed + st.marks_needless,
        st.marks_needless,
        st.out_of_order,
        t3.t / US,
        t1.t / US,
        if released == u64::MAX { "never".to_string() } else { format!("{} us", released / US) }
    );
    assert!(st.switch_moves >= 1);
}

fn run(name: &str, coord: &str, ar: &str) -> serde_json::Value {
    let mut o = Options::new(name, Cc::Ldcp, 1);
    o.tuning.coord = Some(coord.into());
    o.tuning.ar = Some(ar.into());
    let out = scenario::run(&o, &mut Models, &mut |_| {}).expect("the scenario runs");
    let v = out.json;
    assert_eq!(v["packets"]["conserved"], true, "{name} {coord} {ar}");
    assert_eq!(v["flows_unfinished"], 0);
    assert_eq!(v["packets"]["in_flight_after_drain"], 0);
    v
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap()
}

/// The claim on the collision: with CC alone the two flows share the link
/// and every mark is needless (three spines idle); the coordinated scheme
/// moves them (type 3 to the source leaves) and marks no packet needlessly;
/// the independent scheme cannot move them (no local path at the spine)
/// and marks as CC alone does.
#[test]
fn the_collision_under_each_scheme() {
    let cc = run("coord-collision", "cc-only", "flowlet");
    let ind = run("coord-collision", "independent", "flowlet");
    let co = run("coord-collision", "coordinated", "flowlet");
    let e = |v: &serde_json::Value, k: &str| v["extra"]["collision_flows"][k].clone();
    println!(
        "needless marks: cc-only {}, independent {}, coordinated {}; delivered {} / {} / {}",
        e(&cc, "marks_needless"),
        e(&ind, "marks_needless"),
        e(&co, "marks_needless"),
        cc["packets"]["delivered"],
        ind["packets"]["delivered"],
        co["packets"]["delivered"]
    );
    assert!(u(&e(&cc, "marks_needless")) > 100);
    assert_eq!(u(&e(&cc, "path_changes")), 0, "ECMP never moves a flow");
    assert_eq!(u(&e(&co, "marks_needless")), 0);
    assert!(u(&co["extra"]["notifications_sent"]["type3"]) >= 1);
    assert!(u(&co["extra"]["type3_moves"]) >= 1);
    assert!(u(&co["packets"]["delivered"]) > u(&cc["packets"]["delivered"]) * 3 / 2);
    assert!(co["extra"]["collision_both_at_90pct_us"].is_number());
    assert!(cc["extra"]["collision_both_at_90pct_us"].is_null());
    assert_eq!(u(&ind["extra"]["notifications_sent"]["type3"]), 0);
    // from leaf 1 twice: the leaf moves one of them itself, no mark needed
    let mut o = Options::new("coord-collision", Cc::Ldcp, 1);
    o.tuning.collision = Some("leaf-uplink".into());
    let v = scenario::run(&o, &mut Models, &mut |_| {}).unwrap().json;
    assert_eq!(u(&v["extra"]["reroute_decisions"]), 1);
    assert_eq!(u(&v["extra"]["collision_flows"]["marks_needless"]), 0);
}

/// The incast: with the coordinated scheme every incast flow's source gets
/// a type 1 (and H4's repairs) and, once the port is quiet, one type 2
/// (C5, H4, H5); with
/// the independent one the incast flows are moved (the draft's "invalid
/// path switching") and no notification exists.
#[test]
fn the_incast_under_each_scheme() {
    let ind = run("coord-incast", "independent", "flowlet");
    let co = run("coord-incast", "coordinated", "flowlet");
    let spray = run("coord-incast", "coordinated", "spray");
    let i = |v: &serde_json::Value, k: &str| u(&v["extra"]["incast_flows"][k]);
    println!(
        "incast flows: path changes independent {}, coordinated {}, spray {}; out of order {} / {} / {}",
        i(&ind, "path_changes"),
        i(&co, "path_changes"),
        i(&spray, "path_changes"),
        i(&ind, "out_of_order"),
        i(&co, "out_of_order"),
        i(&spray, "out_of_order")
    );
    // one type 1 per flow, and H4's repairs (an untagged packet after
    // T_notify); every one arrives; one type 2 per flow at the release
    let sent1 = u(&co["extra"]["notifications_sent"]["type1"]);
    assert!((16..=32).contains(&sent1), "{sent1} type 1");
    assert_eq!(i(&co, "type1_applied"), sent1);
    assert_eq!(i(&co, "type2_applied"), 16);
    assert_eq!(u(&co["extra"]["notifications_received"]["type2"]), 16);
    assert!(i(&ind, "path_changes") > 0);
    assert_eq!(u(&ind["extra"]["notifications_sent"]["type1"]), 0);
    assert!(
        i(&spray, "switch_moves") > i(&co, "switch_moves"),
        "spray moves packets one by one"
    );
}

/// Bad options name the value and the legal set.
#[test]
fn coord_options_are_checked() {
    let mut o = Options::new("coord-incast", Cc::Ldcp, 1);
    o.tuning.coord = Some("both".into());
    let e = scenario::run(&o, &mut Models, &mut |_| {}).err().unwrap();
    assert!(e.contains("--coord both") && e.contains("cc-only"), "{e}");
    let mut o = Options::new("stable-2", Cc::Ldcp, 1);
    o.tuning.ar = Some("spray".into());
    let e = scenario::run(&o, &mut Models, &mut |_| {}).err().unwrap();
    assert!(e.contains("--ar applies to the coord-* scenarios"), "{e}");
    let mut o = Options::new("coord-collision", Cc::Ldcp, 1);
    o.tuning.collision = Some("core".into());
    let e = scenario::run(&o, &mut Models, &mut |_| {}).err().unwrap();
    assert!(
        e.contains("--collision core") && e.contains("spine-downlink"),
        "{e}"
    );
    let mut o = Options::new("coord-incast", Cc::Ldcp, 1);
    o.tuning.rate_gbps = Some(40);
    let e = scenario::run(&o, &mut Models, &mut |_| {}).err().unwrap();
    assert!(e.contains("--rate-gbps does not apply"), "{e}");
}

/// On the HPCC fat tree the hot link carries four host links' rate, so
/// five flows collide on one core's link down to pod 0, and every one of
/// them is on it.
#[test]
fn the_fat_tree_collision_takes_five_flows() {
    let mut o = Options::new("coord-collision", Cc::Ldcp, 1);
    o.tuning.topology = Some("fat-tree".into());
    o.tuning.coord = Some("cc-only".into());
    let out = scenario::run(&o, &mut Models, &mut |_| {}).unwrap();
    let v = &out.json;
    assert_eq!(v["topology_kind"], "fat-tree");
    assert_eq!(v["extra"]["collision_flows"]["flows"], 5);
    let hot = out.sim.stats.watches[0].port;
    for f in 0..5 {
        assert!(out.sim.flow_route(f).contains(&hot), "flow {f}");
    }
    assert!(u(&v["extra"]["collision_flows"]["marks_needless"]) > 100);
    assert_eq!(v["packets"]["conserved"], true);
}

/// The report's reading of the fat-tree collision: coordinated, every
/// type 3 of a collision flow goes to an aggregation switch of the
/// sender's pod (the last multi-path switch its packets passed), never to
/// the sender's ToR.
#[test]
fn fat_tree_type3_goes_to_the_senders_aggregation_switch() {
    let mut o = Options::new("coord-collision", Cc::Ldcp, 1);
    o.tuning.topology = Some("fat-tree".into());
    o.tuning.coord = Some("coordinated".into());
    o.log_engine = true;
    let out = scenario::run(&o, &mut Models, &mut |_| {}).unwrap();
    let hosts = out.sim.topo.hosts;
    let (agg0, core0) = (hosts + 20, hosts + 40);
    let (_, notes) = out.sim.coord.as_ref().unwrap().log.as_ref().unwrap();
    let t3: Vec<&NotifyLog> = notes
        .iter()
        .filter(|e| e.kind == Notify::ArRequired && !e.arrived && e.flow < 5)
        .collect();
    assert!(t3.len() >= 5, "{} type 3", t3.len());
    for e in t3 {
        let to = e.to as usize;
        assert!((agg0..core0).contains(&to), "type 3 to node {to}");
        // the sender's pod: aggregation switches 4p..4p+3, ToRs 4p..4p+3
        let src_pod = out.sim.flows[e.flow as usize].src as usize / 16 / 4;
        assert_eq!((to - agg0) / 4, src_pod, "type 3 to node {to}");
    }
}
