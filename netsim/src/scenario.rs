//! The scenarios of the report, each a topology, a workload and the figures
//! that show one of the draft's claims; every one runs with LDCP, DCTCP or
//! DCQCN on the same network and the same flows.

use crate::config::{Cc, NetConfig};
use crate::coord::{CoordMode, Granularity};
use crate::engine::Hardware;
use crate::flowctl::{FcConfig, FcMode, FlowControl};
use crate::sim::Sim;
use crate::topo::Topology;
use crate::wan::{FastCnpMode, Wan, WanConfig};
use crate::workload;
use serde_json::{json, Value};

const US: u64 = 1_000_000;

/// The coord-* scenarios' leaf-spine: leaves, hosts per leaf, spines.
const COORD_LEAVES: usize = 4;
const COORD_PER_LEAF: usize = 8;
const COORD_SPINES: usize = 4;
/// coord-incast: senders, bytes each, start.
const INCAST_SENDERS: usize = 16;
const INCAST_BYTES: u64 = 500_000;
const INCAST_START_PS: u64 = 200 * US;
/// coord-collision: the second flow's start.
const COLLISION_START_PS: u64 = 100 * US;

/// 001-B's unresponsive cross traffic at R5, b/s.
const CROSS_BPS: u64 = 30_000_000_000;

/// A scenario of the catalogue.
pub struct Scenario {
    /// Its name (`--scenario`).
    pub name: &'static str,
    /// What it shows.
    pub doc: &'static str,
}

/// Every scenario.
pub const SCENARIOS: &[Scenario] = &[
    Scenario { name: "stable-2", doc: "2 long flows on a 100 Gb/s dumbbell bottleneck: utilization, queue, drops, cw over time" },
    Scenario { name: "stable-8", doc: "8 long flows on the dumbbell" },
    Scenario { name: "stable-64", doc: "64 long flows on the dumbbell" },
    Scenario { name: "incast-100", doc: "100 senders x 16 KB to one receiver (star, 100 Gb/s): sub-packet windows, queue against buf_max, ECT drops, completion" },
    Scenario { name: "incast-1000", doc: "1,000 senders x 16 KB to one receiver" },
    Scenario { name: "incast-10000", doc: "10,000 senders x 16 KB to one receiver" },
    Scenario { name: "fast-start-idle", doc: "one message of one BDP on an idle dumbbell path: completion against base RTT + serialization" },
    Scenario { name: "fast-start-load", doc: "4 long flows, then 1-BDP messages every 20 us from 4 other hosts: message completion, fast-start drops, the long flows' throughput and queue before and after" },
    Scenario { name: "fct-websearch-30", doc: "WebSearch flow sizes, Poisson arrivals at 30% load on a leaf-spine (--topology fat-tree: the HPCC 320-host fat tree): FCT slowdown per size decile" },
    Scenario { name: "fct-websearch-50", doc: "WebSearch at 50% load" },
    Scenario { name: "fct-websearch-70", doc: "WebSearch at 70% load" },
    Scenario { name: "fct-hadoop-30", doc: "FB_Hadoop flow sizes at 30% load" },
    Scenario { name: "fct-hadoop-50", doc: "FB_Hadoop at 50% load" },
    Scenario { name: "fct-hadoop-70", doc: "FB_Hadoop at 70% load" },
    Scenario { name: "dumbbell-10g", doc: "the ns-3 comparison: 8 long flows from 8 senders on one switch to one receiver, 10 Gb/s, 20 us links, 1,500-byte packets, 100 ms (DCTCP with K = 65 packets)" },
    Scenario { name: "wan-tunnel-ecn", doc: "draft 001-A: 4 LDCP senders at 10 Gb/s across an SRv6 WAN (one-way --wan-delay-us, default 1,000) to a 20 Gb/s bottleneck at R5: RFC 6040 normal or --tunnel-mode compatibility; --fault makes R1 set CE on Not-ECT outers. Drops and marks at R5, CE delivered, goodput, egress drops" },
    Scenario { name: "wan-fast-cnp", doc: "draft 001-B: 2 LDCP senders at 10 Gb/s across the WAN; at t0 = 5 RTTs, 30 Gb/s of unresponsive cross traffic joins at R5 (a 40 Gb/s port, --cong-at x of the one-way delay from the senders): first mark, first Fast CNP and ECN-Echo at a sender, first cut, queue peak, against (2-x)D and xD; --fast-cnp off|on|instead, --fast-cnp-interval-us" },
    Scenario { name: "wan-arn", doc: "draft 001-C: services A and B on one priority across one WAN link; A's flow A1 bursts (--burst-kb) at 40 Gb/s into a 10 Gb/s egress at R5, A2 (5 Gb/s) and B (20 Gb/s) go elsewhere. --flow-control none, pfc, arn-service, arn-flow (default) or arn-priority: B's throughput and latency, A1's completion, pause and halt time, buffer peaks" },
    Scenario { name: "coord-collision", doc: "draft 002 (i): a leaf-spine of 100 Gb/s links (4 leaves x 8 hosts, 4 spines; --topology fat-tree: HPCC's, five flows); two long LDCP flows to leaf 0 hashed onto one link while three are idle: --collision spine-downlink (from leaves 1 and 2, default) or leaf-uplink (both from leaf 1). --coord cc-only|independent|coordinated (default coordinated), --ar flowlet|spray: per-flow throughput, recovery after the first move, window cuts needless and needed, path changes and reordering, queue peaks, notifications by type" },
    Scenario { name: "coord-incast", doc: "draft 002 (ii): 16 senders on leaves 1-3 send 500 KB each to one host on leaf 0 at 200 us (a 16-to-1 incast on leaf 0's port), same network and options: incast completion, its flows' path changes and reordering, notifications by type, queue peak at the incast port" },
    Scenario { name: "coord-both", doc: "draft 002 (iii): the collision and the incast at once (the collision's receivers on leaf 0 beside the incast's)" },
    Scenario { name: "mini", doc: "CI-sized: 3 long flows on a dumbbell and a 6-sender incast, 300 us (the RTL-in-the-loop equivalence run)" },
];

/// What one run changes from its scenario's defaults: the command line's
/// options (`ldcp netsim --rate-gbps ...`) and a sweep spec line's keys
/// (`{"rate_gbps": ...}`) are this one struct. Each value is checked by
/// [`check`].
#[derive(Clone, Debug, Default, PartialEq, clap::Args, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tuning {
    /// Host link rate, Gb/s, 10..=400 (default: 100; 10 for dumbbell-10g).
    #[arg(long, value_name = "GBPS")]
    pub rate_gbps: Option<u64>,
    /// Buffer per 100 Gb/s switch port, KiB (x1024 bytes), 64..=16383 (scaled with the port's rate, capped at the block's 16 MiB - 1; default 4096).
    #[arg(long, value_name = "KB")]
    pub buf_kb: Option<u32>,
    /// Simulated time before the drain, us, 10..=10^7 (default per scenario).
    #[arg(long, value_name = "US")]
    pub duration_us: Option<u64>,
    /// FCT and coord-* scenarios' network: leaf-spine (default, CI-sized) or fat-tree (HPCC's 320 hosts; coord-*: five flows collide, since its links above the ToRs carry four hosts' rate).
    #[arg(long, value_name = "KIND")]
    pub topology: Option<String>,
    /// LDCP's gamma = 2^-SHIFT, 1..=8 (default 4, 1/16; 8, 1/256, in the incast scenarios).
    #[arg(long, value_name = "SHIFT")]
    pub gamma_shift: Option<u8>,
    /// The receiver's delayed-ACK count m, 1..=15 (default 1: an ACK per packet).
    #[arg(long, value_name = "M")]
    pub ack_m: Option<u32>,
    /// LDCP's switch: start of the marking ramp K_min on a 100 Gb/s port, KB (x1000 bytes), 0..=16383 (default 5).
    #[arg(long, value_name = "KB")]
    pub ldcp_kmin_kb: Option<u32>,
    /// LDCP's switch: end of the ramp K_max on a 100 Gb/s port, KB, 0..=16383, at least K_min (default 50).
    #[arg(long, value_name = "KB")]
    pub ldcp_kmax_kb: Option<u32>,
    /// LDCP's switch: Eq. 3's K (fast-start packets dropped from here) on a 100 Gb/s port, KB, 0..=16383 (default 20).
    #[arg(long, value_name = "KB")]
    pub ldcp_k_kb: Option<u32>,
    /// LDCP's switch: P_max, 0..=1 (default 1).
    #[arg(long, value_name = "P")]
    pub ldcp_pmax: Option<f64>,
    /// WAN scenarios: one-way delay from a sender to its receiver, us, 100..=20000 (default 1000); wan-arn: the delay of its one WAN link (default 100).
    #[arg(long, value_name = "US")]
    pub wan_delay_us: Option<u64>,
    /// WAN scenarios: the tunnel's RFC 6040 mode, normal or compatibility (default normal).
    #[arg(long, value_name = "MODE")]
    pub tunnel_mode: Option<String>,
    /// wan-tunnel-ecn: R1 sets CE on every Not-ECT outer header (a faulty P node).
    #[arg(long)]
    #[serde(default)]
    pub fault: bool,
    /// wan-fast-cnp: where the congestion point (R5's port to R4) is, as the fraction x of the one-way delay from the senders, 0.05..=0.95 (default 0.5).
    #[arg(long, value_name = "X")]
    pub cong_at: Option<f64>,
    /// WAN scenarios: Fast CNP at the P nodes: off, on (and the CE mark, G10's default) or instead (of the CE mark) (default off in wan-tunnel-ecn, on in wan-fast-cnp).
    #[arg(long, value_name = "POLICY")]
    pub fast_cnp: Option<String>,
    /// WAN scenarios: the Fast CNP limiter's per-flow interval, us, 0..=167772 (24 bits of 10 ns cycles; 0: every mark; default 50, the DCQCN paper's CNP interval).
    #[arg(long, value_name = "US")]
    pub fast_cnp_interval_us: Option<f64>,
    /// wan-arn: hop-by-hop flow control: none, pfc, arn-service, arn-flow or arn-priority (default arn-flow).
    #[arg(long, value_name = "KIND")]
    pub flow_control: Option<String>,
    /// wan-arn: flow A1's burst, KB (x1000 bytes), 100..=100000 (default 4000).
    #[arg(long, value_name = "KB")]
    pub burst_kb: Option<u64>,
    /// wan-arn: XOFF per ingress port, KB, 10..=16000 (default 1000; XON is half of it).
    #[arg(long, value_name = "KB")]
    pub xoff_kb: Option<u64>,
    /// wan-arn: ARN's Time, us, 10..=1000000 (default 500; re-sent every Time/2 while above XOFF).
    #[arg(long, value_name = "US")]
    pub arn_time_us: Option<u32>,
    /// coord-* scenarios: draft 002's scheme: cc-only (LDCP over ECMP), independent (adaptive routing beside it, unaware of it) or coordinated (default).
    #[arg(long, value_name = "MODE")]
    pub coord: Option<String>,
    /// coord-* scenarios: adaptive routing per flowlet (default) or per packet (spray).
    #[arg(long, value_name = "GRAIN")]
    pub ar: Option<String>,
    /// coord-collision and coord-both: where the two long flows collide: spine-downlink (from leaves 1 and 2, on a spine's link to leaf 0, where only an upstream switch can move them; default) or leaf-uplink (both from leaf 1, on one of its four uplinks).
    #[arg(long, value_name = "WHERE")]
    pub collision: Option<String>,
}

/// How a run is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// Scenario name.
    pub scenario: String,
    /// Algorithm.
    pub cc: Cc,
    /// Seed.
    pub seed: u64,
    /// What the run changes from the scenario's defaults.
    pub tuning: Tuning,
    /// Flows whose cw is traced.
    pub trace: u32,
    /// Log every engine input and output and every switch decision (tests).
    pub log_engine: bool,
}

impl Options {
    /// Defaults for a scenario.
    pub fn new(scenario: &str, cc: Cc, seed: u64) -> Self {
        Options {
            scenario: scenario.into(),
            cc,
            seed,
            tuning: Tuning::default(),
            trace: 4,
            log_engine: false,
        }
    }
}

/// What one run produced.
pub struct Outcome {
    /// The figures, as the JSON report prints them.
    pub json: Value,
    /// The simulator as the run left it (series for plots and CSV).
    pub sim: Sim,
    /// Wall seconds of the run, drain included (not in `json`: the same seed
    /// and options give byte-identical JSON).
    pub wall_s: f64,
    /// Wall seconds building the network and the flows.
    pub setup_s: f64,
    /// Wall seconds of the run up to its end (`--duration-us`), before the drain.
    pub run_s: f64,
}

/// The round trip of an empty path of `hops` links (data there, ACK back):
/// propagation both ways plus store-and-forward of one data packet and one
/// ACK per hop.
fn base_rtt_ps(links: &[(u64, u64)], data_bytes: u32, ack_bytes: u32) -> u64 {
    links
        .iter()
        .map(|&(bps, d)| {
            2 * d
                + (data_bytes as u64 * 8 * 1_000_000_000_000).div_ceil(bps)
                + (ack_bytes as u64 * 8 * 1_000_000_000_000).div_ceil(bps)
        })
        .sum()
}

/// The path of a flow as (rate, delay) per link.
fn flow_links(sim: &Sim, f: usize) -> Vec<(u64, u64)> {
    sim.flow_route(f)
        .iter()
        .map(|&p| {
            let port = &sim.ports[p as usize];
            (port.rate_bps, port.delay_ps)
        })
        .collect()
}

fn check_range<T: PartialOrd + std::fmt::Display>(
    name: &str,
    v: T,
    lo: T,
    hi: T,
) -> Result<T, String> {
    if v < lo || v > hi {
        Err(format!(
            "{name} = {v} is out of range: it must be in [{lo}, {hi}]"
        ))
    } else {
        Ok(v)
    }
}

/// Options given where they change nothing, refused with where they
/// apply: the LDCP-only options with another `--cc`, `--topology` outside
/// the FCT and coord-* scenarios, and the options of one scenario
/// elsewhere (named by the scenario they belong to).
fn not_applicable(o: &Options) -> Result<(), String> {
    let name = o.scenario.as_str();
    let t = &o.tuning;
    if o.cc != Cc::Ldcp {
        for (flag, set) in [
            ("--gamma-shift", t.gamma_shift.is_some()),
            ("--ldcp-kmin-kb", t.ldcp_kmin_kb.is_some()),
            ("--ldcp-kmax-kb", t.ldcp_kmax_kb.is_some()),
            ("--ldcp-k-kb", t.ldcp_k_kb.is_some()),
            ("--ldcp-pmax", t.ldcp_pmax.is_some()),
        ] {
            if set {
                return Err(format!(
                    "{flag} applies to --cc ldcp, not to --cc {} (its switches keep their own thresholds)",
                    o.cc.name()
                ));
            }
        }
    }
    if t.topology.is_some() && !(name.starts_with("fct-") || name.starts_with("coord-")) {
        return Err(format!(
            "--topology applies to the fct-* and coord-* scenarios, not to {name}"
        ));
    }
    if t.fault && name != "wan-tunnel-ecn" {
        return Err(format!("--fault applies to wan-tunnel-ecn, not to {name}"));
    }
    if t.cong_at.is_some() && name != "wan-fast-cnp" {
        return Err(format!("--cong-at applies to wan-fast-cnp, not to {name}"));
    }
    Ok(())
}

/// Refuses options out of their legal ranges, or given where they change
/// nothing (a bad argument).
pub fn check(o: &Options) -> Result<(), String> {
    if !SCENARIOS.iter().any(|s| s.name == o.scenario) {
        return Err(format!(
            "unknown scenario `{}`: `ldcp netsim --list` shows them ({})",
            o.scenario,
            SCENARIOS
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let name = o.scenario.as_str();
    not_applicable(o)?;
    let rate_default = if name == "dumbbell-10g" || name.starts_with("wan-") {
        10
    } else {
        100
    };
    check_range(
        "--rate-gbps",
        o.tuning.rate_gbps.unwrap_or(rate_default),
        10,
        400,
    )?;
    if let Some(b) = o.tuning.buf_kb {
        check_range("--buf-kb", b, 64, 16_383)?;
    }
    if let Some(g) = o.tuning.gamma_shift {
        check_range(
            "--gamma-shift",
            g,
            ldcp_sim::window_engine::GAMMA_SHIFT_MIN,
            ldcp_sim::window_engine::GAMMA_SHIFT_MAX,
        )?;
    }
    if let Some(d) = o.tuning.duration_us {
        check_range("--duration-us", d, 10, 10_000_000)?;
    }
    if let Some(m) = o.tuning.ack_m {
        check_range("--ack-m", m, 1, 15)?;
    }
    for (n, v) in [
        ("--ldcp-kmin-kb", o.tuning.ldcp_kmin_kb),
        ("--ldcp-kmax-kb", o.tuning.ldcp_kmax_kb),
        ("--ldcp-k-kb", o.tuning.ldcp_k_kb),
    ] {
        if let Some(v) = v {
            check_range(n, v, 0, 16_383)?;
        }
    }
    if let Some(p) = o.tuning.ldcp_pmax {
        if !(0.0..=1.0).contains(&p) {
            return Err(format!(
                "--ldcp-pmax = {p} is out of range: it must be in [0, 1]"
            ));
        }
    }
    let (kmin, kmax) = (
        o.tuning.ldcp_kmin_kb.unwrap_or(5),
        o.tuning.ldcp_kmax_kb.unwrap_or(50),
    );
    if kmin > kmax {
        return Err(format!(
            "--ldcp-kmin-kb = {kmin} is above --ldcp-kmax-kb = {kmax}: the ramp needs K_min <= K_max"
        ));
    }
    let wan = name.starts_with("wan-");
    let wan_only = [
        ("--wan-delay-us", o.tuning.wan_delay_us.is_some()),
        ("--tunnel-mode", o.tuning.tunnel_mode.is_some()),
        ("--fault", o.tuning.fault),
        ("--cong-at", o.tuning.cong_at.is_some()),
        ("--fast-cnp", o.tuning.fast_cnp.is_some()),
        (
            "--fast-cnp-interval-us",
            o.tuning.fast_cnp_interval_us.is_some(),
        ),
    ];
    let arn_only = [
        ("--flow-control", o.tuning.flow_control.is_some()),
        ("--burst-kb", o.tuning.burst_kb.is_some()),
        ("--xoff-kb", o.tuning.xoff_kb.is_some()),
        ("--arn-time-us", o.tuning.arn_time_us.is_some()),
    ];
    for (flag, set) in arn_only {
        if set && name != "wan-arn" {
            return Err(format!("{flag} applies to wan-arn, not to {name}"));
        }
    }
    if name == "wan-arn" && o.tuning.rate_gbps.is_some() {
        return Err(
            "--rate-gbps does not apply to wan-arn: its links are fixed (COMPANION.md 001-C)"
                .into(),
        );
    }
    if name == "wan-arn" {
        for (flag, set) in &wan_only[1..] {
            if *set {
                return Err(format!(
                    "{flag} applies to wan-tunnel-ecn and wan-fast-cnp, not to wan-arn"
                ));
            }
        }
    }
    flow_control(o)?;
    if let Some(b) = o.tuning.burst_kb {
        check_range("--burst-kb", b, 100, 100_000)?;
    }
    if let Some(x) = o.tuning.xoff_kb {
        check_range("--xoff-kb", x, 10, 16_000)?;
    }
    if let Some(t) = o.tuning.arn_time_us {
        check_range("--arn-time-us", t, 10, 1_000_000)?;
    }
    for (flag, set) in wan_only {
        if set && !wan {
            // each named with the scenarios that take it
            let takes = if flag == "--wan-delay-us" {
                "the WAN scenarios (wan-tunnel-ecn, wan-fast-cnp, wan-arn)"
            } else {
                "wan-tunnel-ecn and wan-fast-cnp"
            };
            return Err(format!("{flag} applies to {takes}, not to {name}"));
        }
    }
    if let Some(d) = o.tuning.wan_delay_us {
        check_range("--wan-delay-us", d, 100, 20_000)?;
    }
    if let Some(x) = o.tuning.cong_at {
        if !(0.05..=0.95).contains(&x) {
            return Err(format!(
                "--cong-at = {x} is out of range: it must be in [0.05, 0.95]"
            ));
        }
    }
    tunnel_mode(o)?;
    fast_cnp_mode(o)?;
    if let Some(i) = o.tuning.fast_cnp_interval_us {
        if !(0.0..=167_772.0).contains(&i) {
            return Err(format!(
                "--fast-cnp-interval-us = {i} is out of range: it must be in [0, 167772] (24 bits of 10 ns cycles)"
            ));
        }
    }
    let coord = name.starts_with("coord-");
    if o.tuning.collision.is_some() && !(name == "coord-collision" || name == "coord-both") {
        return Err(format!(
            "--collision applies to coord-collision and coord-both, not to {name}"
        ));
    }
    collision_at(o)?;
    for (flag, set) in [
        ("--coord", o.tuning.coord.is_some()),
        ("--ar", o.tuning.ar.is_some()),
    ] {
        if set && !coord {
            return Err(format!(
                "{flag} applies to the coord-* scenarios (coord-collision, coord-incast, coord-both), not to {name}"
            ));
        }
    }
    coord_mode(o)?;
    if coord && o.tuning.rate_gbps.is_some() {
        return Err(format!(
            "--rate-gbps does not apply to {name}: its links are 100 Gb/s, host and uplink alike"
        ));
    }
    if let Some(t) = o.tuning.topology.as_deref() {
        if t != "leaf-spine" && t != "fat-tree" {
            return Err(format!("--topology {t}: it must be leaf-spine or fat-tree"));
        }
        if t == "fat-tree" && o.tuning.rate_gbps.is_some() {
            return Err(
                "--rate-gbps cannot be used with --topology fat-tree: the HPCC fat tree's links are 100 and 400 Gb/s".into(),
            );
        }
    }
    Ok(())
}

fn tunnel_mode(o: &Options) -> Result<ldcp_sim::tunnel_ecn::Mode, String> {
    use ldcp_sim::tunnel_ecn::Mode;
    match o.tuning.tunnel_mode.as_deref() {
        None | Some("normal") => Ok(Mode::Normal),
        Some("compatibility") => Ok(Mode::Compatibility),
        Some(m) => Err(format!(
            "--tunnel-mode {m}: it must be normal or compatibility"
        )),
    }
}

fn flow_control(o: &Options) -> Result<FcMode, String> {
    use ldcp_sim::wire::arn::ArnMode;
    match o.tuning.flow_control.as_deref() {
        None | Some("arn-flow") => Ok(FcMode::Arn(ArnMode::Flow)),
        Some("none") => Ok(FcMode::None),
        Some("pfc") => Ok(FcMode::Pfc),
        Some("arn-service") => Ok(FcMode::Arn(ArnMode::Service)),
        Some("arn-priority") => Ok(FcMode::Arn(ArnMode::Priority)),
        Some(m) => Err(format!(
            "--flow-control {m}: it must be none, pfc, arn-service, arn-flow or arn-priority"
        )),
    }
}

fn collision_at(o: &Options) -> Result<&'static str, String> {
    match o.tuning.collision.as_deref() {
        None | Some("spine-downlink") => Ok("spine-downlink"),
        Some("leaf-uplink") => Ok("leaf-uplink"),
        Some(c) => Err(format!(
            "--collision {c}: it must be spine-downlink or leaf-uplink"
        )),
    }
}

fn coord_mode(o: &Options) -> Result<(CoordMode, Granularity), String> {
    let m = o
        .tuning
        .coord
        .as_deref()
        .map_or(Ok(CoordMode::Coordinated), CoordMode::parse)?;
    let g = o
        .tuning
        .ar
        .as_deref()
        .map_or(Ok(Granularity::Flowlet), Granularity::parse)?;
    Ok((m, g))
}

fn fast_cnp_mode(o: &Options) -> Result<FastCnpMode, String> {
    match o.tuning.fast_cnp.as_deref() {
        None if o.scenario == "wan-fast-cnp" => Ok(FastCnpMode::On),
        None | Some("off") => Ok(FastCnpMode::Off),
        Some("on") => Ok(FastCnpMode::On),
        Some("instead") => Ok(FastCnpMode::Instead),
        Some(m) => Err(format!("--fast-cnp {m}: it must be off, on or instead")),
    }
}

/// Runs a scenario; `progress(fraction)` is called now and then.
pub fn run(
    o: &Options,
    hw: &mut dyn Hardware,
    progress: &mut dyn FnMut(f64),
) -> Result<Outcome, String> {
    let t_setup = std::time::Instant::now();
    check(o)?;
    let name = o.scenario.as_str();
    not_applicable(o)?;
    let rate_default = if name == "dumbbell-10g" || name.starts_with("wan-") {
        10
    } else {
        100
    };
    let gbps = o.tuning.rate_gbps.unwrap_or(rate_default);
    let us = |d: u64| o.tuning.duration_us.unwrap_or(d) * US;
    let mut tmp = NetConfig::new(o.cc, gbps * 1_000_000_000, 10 * US);
    if name == "dumbbell-10g" {
        tmp.payload_bytes = 1452; // 1,500 bytes on the wire, as ns-3's IP packets
    }
    // the WAN scenarios carry RoCE's largest MTU, 4,096 bytes of payload:
    // a window of 4,095 packets (the engine's cw_max) then covers 10 Gb/s
    // for RTTs up to 13 ms
    let wan_d = o.tuning.wan_delay_us.unwrap_or(1_000) * US;
    let x = o.tuning.cong_at.unwrap_or(0.5);
    if name.starts_with("wan-") {
        tmp.payload_bytes = 4096;
    }
    let mut wan_nodes = None;
    let mut arn_nodes = None;
    // topology
    let (topo, kind) = match name {
        "wan-arn" => {
            let (t, n) = Topology::arn(o.tuning.wan_delay_us.unwrap_or(100) * US);
            arn_nodes = Some(n);
            (t, "wan")
        }
        "wan-tunnel-ecn" | "wan-fast-cnp" => {
            let (senders, bott, xx) = if name == "wan-tunnel-ecn" {
                (4, 20, 0.5)
            } else {
                (2, 40, x)
            };
            let (t, n) = Topology::wan(senders, gbps, 40, bott, wan_d, xx)?;
            wan_nodes = Some(n);
            (t, "wan")
        }
        n if n.starts_with("stable-") || n.starts_with("fast-start") => {
            let senders: usize = n
                .strip_prefix("stable-")
                .map_or(8, |x| x.parse().unwrap_or(8));
            (Topology::dumbbell(senders, gbps, US), "dumbbell")
        }
        "dumbbell-10g" => (Topology::star(8, gbps, 20 * US), "star"),
        n if n.starts_with("incast-") => {
            let s: usize = n["incast-".len()..].parse().expect("catalogue name");
            (Topology::star(s, gbps, US), "star")
        }
        "mini" => (Topology::dumbbell(6, gbps, US), "dumbbell"),
        n if n.starts_with("coord-") => match o.tuning.topology.as_deref() {
            Some("fat-tree") => (Topology::hpcc_fat_tree(), "fat-tree"),
            _ => (
                Topology::leaf_spine(COORD_LEAVES, COORD_PER_LEAF, COORD_SPINES, gbps, gbps, US),
                "leaf-spine",
            ),
        },
        _ => match o.tuning.topology.as_deref().unwrap_or("leaf-spine") {
            "leaf-spine" => (
                Topology::leaf_spine(4, 8, 2, gbps, 4 * gbps, US),
                "leaf-spine",
            ),
            "fat-tree" => (Topology::hpcc_fat_tree(), "fat-tree"),
            t => return Err(format!("--topology {t}: it must be leaf-spine or fat-tree")),
        },
    };
    // the base RTT of the longest route from host 0 (every scenario's
    // senders include host 0, and its farthest host is as far as any)
    let rtt = base_rtt_ps(&topo.farthest_route(0), tmp.packet_bytes(), tmp.ack_bytes);
    let mut cfg = NetConfig::new(o.cc, gbps * 1_000_000_000, rtt);
    cfg.payload_bytes = tmp.payload_bytes;
    if let Some(b) = o.tuning.buf_kb {
        cfg.buf_bytes_100g = b * 1024;
    }
    // incast: the smallest gamma the engine has (1/256), so that N senders
    // at the floor, N gamma packets per base RTT, stay under one BDP up to
    // 256 BDPs of senders (12,800 here); elsewhere the draft's 1/16
    if name.starts_with("incast-") {
        cfg.window.gamma_shift = 8;
    }
    if let Some(g) = o.tuning.gamma_shift {
        cfg.window.gamma_shift = g;
    }
    if let Some(m) = o.tuning.ack_m {
        cfg.ack_m = m;
    }
    if let Some(v) = o.tuning.ldcp_kmin_kb {
        cfg.ldcp_switch.k_min_bytes = v * 1000;
    }
    if let Some(v) = o.tuning.ldcp_kmax_kb {
        cfg.ldcp_switch.k_max_bytes = v * 1000;
    }
    if let Some(v) = o.tuning.ldcp_k_kb {
        cfg.ldcp_switch.k_bytes = v * 1000;
    }
    if let Some(v) = o.tuning.ldcp_pmax {
        cfg.ldcp_switch.p_max = v;
    }
    if name == "dumbbell-10g" {
        // K = 65 packets at 10 Gb/s (Linux's dctcp.txt), as the ns-3 run
        cfg.dctcp_k_bytes_100g = 65 * 1500 * 10;
    }
    cfg.derive_keep_k(name == "dumbbell-10g");
    if arn_nodes.is_some() && o.tuning.buf_kb.is_none() {
        // WAN buffers, as the other WAN scenarios (every flow here is
        // unresponsive: no thresholds matter but the buffer)
        cfg.buf_bytes_100g = 40 << 20;
    }
    if wan_nodes.is_some() {
        // a window of one BDP: a sender is at its line rate with no queue,
        // and every cut of cw slows it (above one BDP a cut would not)
        cfg.window.cw_max_raw =
            (cfg.bdp_pkts().clamp(1, 4095) as u32) << ldcp_sim::window_engine::CW_FRAC_BITS;
        // a tail-loss timeout above the WAN's RTT and its queues
        cfg.rto_ps = 3 * cfg.base_rtt_ps;
        if o.tuning.buf_kb.is_none() {
            // a WAN router's deep buffer: 40 MiB per 100 Gb/s, so that the
            // 40 Gb/s ports hold the WRED/ECN block's largest, 16 MiB - 1
            // (its 24-bit occupancy), and the 20 Gb/s one 8 MiB
            cfg.buf_bytes_100g = 40 << 20;
        }
        // LDCP's thresholds are set for a data centre's 10 us RTT; a WAN's
        // queue must hold the sawtooth of windows 100-1,000 times larger,
        // so each one not given scales with the base RTT, as far as K_max
        // reaching half the buffer (beyond it, ECT packets would overflow
        // before the ramp ends): x 201 at D = 1 ms (K_min 1 MB, K_max
        // 10 MB, K 4 MB per 100 Gb/s), x 419 at most
        let sw = &mut cfg.ldcp_switch;
        let s = (cfg.base_rtt_ps as f64 / (10 * US) as f64)
            .min(cfg.buf_bytes_100g as f64 / 2.0 / sw.k_max_bytes.max(1) as f64);
        let scale = |v: u32| (v as f64 * s).min(u32::MAX as f64) as u32;
        if o.tuning.ldcp_kmin_kb.is_none() {
            sw.k_min_bytes = scale(sw.k_min_bytes);
        }
        if o.tuning.ldcp_kmax_kb.is_none() {
            sw.k_max_bytes = scale(sw.k_max_bytes);
        }
        if o.tuning.ldcp_k_kb.is_none() {
            sw.k_bytes = scale(sw.k_bytes);
        }
    }
    let mut sim = Sim::new(topo, cfg, o.seed, hw)?;
    if let Some(n) = arn_nodes {
        let mode = flow_control(o)?;
        if mode != FcMode::None {
            let xoff = o.tuning.xoff_kb.unwrap_or(1_000) * 1000;
            let mut arn = vec![false; sim.topo.nodes()];
            for x in [n.pe_in, n.r1, n.r5, n.pe_a, n.pe_b] {
                arn[x] = true;
            }
            sim.fc = Some(FlowControl::new(
                FcConfig {
                    mode,
                    xoff_bytes: xoff,
                    xon_bytes: xoff / 2,
                    time_us: o.tuning.arn_time_us.unwrap_or(500),
                    arn_nodes: arn,
                },
                sim.ports.len(),
                sim.topo.nodes(),
            )?);
        }
        sim.latency = Some(vec![Vec::new(); 3]);
    }
    if let Some(w) = wan_nodes {
        let interval_cycles = (o.tuning.fast_cnp_interval_us.unwrap_or(50.0)
            * sim.cfg.clock_mhz as f64)
            .round() as u32;
        sim.wan = Some(Wan::new(
            WanConfig {
                ingress: w.pe_in,
                egress: w.pe_out,
                p_nodes: vec![w.r1, w.r5, w.r4],
                mode: tunnel_mode(o)?,
                fault: o.tuning.fault.then_some(w.r1),
                fast_cnp: fast_cnp_mode(o)?,
                fast_cnp_interval_cycles: interval_cycles,
            },
            sim.topo.nodes(),
        )?);
        let biggest = sim.cfg.packet_bytes() + crate::wan::SRV6_OVERHEAD_BYTES;
        if biggest > ldcp_sim::wred_ecn::LEN_MAX {
            return Err(format!(
                "a tunnelled packet of {biggest} bytes does not fit the switch block's {}-bit length",
                ldcp_sim::wred_ecn::LEN_BITS
            ));
        }
    }
    if name.starts_with("coord-") {
        let (mode, grain) = coord_mode(o)?;
        sim.enable_coord(mode, grain);
    }
    sim.stats.trace_flows(o.trace);
    if o.log_engine {
        sim.engine_log = Some(Vec::new());
        sim.wred_log = Some(Vec::new());
        if let Some(c) = sim.coord.as_mut() {
            c.log = Some((Vec::new(), Vec::new()));
        }
    }
    let b = sim.cfg.bdp_pkts();
    let payload = sim.cfg.payload_bytes as u64;
    let mut extra = json!({});
    let mut coord_flows = None;
    let (end, warm) = match name {
        n if n.starts_with("stable-") => {
            let senders = sim.topo.hosts / 2;
            for i in 0..senders {
                sim.add_flow(i, senders + i, u64::MAX, (i as u64) * 1000, i as u64)?;
            }
            let bott = sim
                .port_between(2 * senders, 2 * senders + 1)
                .expect("L-R link");
            sim.watch_port(bott, "bottleneck L->R");
            (us(5_000), us(5_000) / 5)
        }
        "dumbbell-10g" => {
            for i in 0..8 {
                sim.add_flow(i, 8, u64::MAX, 0, i as u64)?;
            }
            let bott = sim.port_between(9, 8).expect("switch to receiver");
            sim.watch_port(bott, "bottleneck to the receiver");
            (us(100_000), 10_000 * US)
        }
        n if n.starts_with("incast-") => {
            let s = sim.topo.hosts - 1;
            for i in 0..s {
                sim.add_flow(i, s, 16_000, 0, i as u64)?;
            }
            let last = sim.port_between(s + 1, s).expect("switch to receiver");
            sim.watch_port(last, "to the receiver");
            (us(10_000), 0)
        }
        "fast-start-idle" => {
            let n = sim.topo.hosts / 2;
            sim.add_flow(0, n, b * payload, 10 * US, 0)?;
            let bott = sim.port_between(2 * n, 2 * n + 1).expect("L-R link");
            sim.watch_port(bott, "bottleneck L->R");
            (us(1_000), 0)
        }
        "fast-start-load" => {
            let n = sim.topo.hosts / 2;
            for i in 0..4 {
                sim.add_flow(i, n + i, u64::MAX, i as u64 * 1000, i as u64)?;
            }
            let end = us(3_000);
            let mut t = 1_000 * US;
            let mut k = 0u64;
            while t < end {
                let src = 4 + (k % 4) as usize;
                sim.add_flow(src, n + src, b * payload, t, 100 + k)?;
                t += 20 * US;
                k += 1;
            }
            let bott = sim.port_between(2 * n, 2 * n + 1).expect("L-R link");
            sim.watch_port(bott, "bottleneck L->R");
            (end, 500 * US)
        }
        "wan-tunnel-ecn" => {
            let w = wan_nodes.expect("a WAN");
            for i in 0..4 {
                sim.add_flow(i, 4 + i, u64::MAX, i as u64 * 10 * US, i as u64)?;
            }
            let bott = sim.port_between(w.r5, w.r4).expect("R5-R4");
            sim.watch_port(bott, "R5 -> R4 (bottleneck)");
            // 50 RTTs; figures after the first 10
            let end = us(100 * wan_d / US);
            (end, end / 5)
        }
        "wan-arn" => {
            let n = arn_nodes.expect("001-C's network");
            let burst = o.tuning.burst_kb.unwrap_or(4_000) * 1000;
            let start = 100 * US;
            // A1 (flow 0), A2 (1): service 1; B (2): service 2
            let a1 = sim.add_cbr(n.sa, n.ra, 40_000_000_000, burst, start, 0)?;
            let a2 = sim.add_cbr(n.sa, n.rc, 5_000_000_000, u64::MAX, 0, 1)?;
            let b = sim.add_cbr(n.sb, n.rb, 20_000_000_000, u64::MAX, 0, 2)?;
            for (f, svc) in [(a1, 1), (a2, 1), (b, 2)] {
                sim.flows[f as usize].service = svc;
            }
            for (from, to, label) in [
                (n.r5, n.pe_a, "R5 -> PE_A (A1's bottleneck)"),
                (n.pe_b, n.rb, "to B's receiver"),
                (n.pe_b, n.rc, "to A2's receiver"),
                (n.r1, n.r5, "R1 -> R5 (the WAN link)"),
            ] {
                let p = sim.port_between(from, to).expect("a link");
                sim.watch_port(p, label);
            }
            // A1 drains at 10 Gb/s: its burst's time there, half again, and 2 ms
            let drain = burst * 8 * 1000 / 10;
            (us((start + drain * 3 / 2).div_ceil(US) + 2_000), start)
        }
        "wan-fast-cnp" => {
            let w = wan_nodes.expect("a WAN");
            for i in 0..2 {
                sim.add_flow(i, 2 + i, u64::MAX, i as u64 * 10 * US, i as u64)?;
            }
            let rtt = sim.cfg.base_rtt_ps;
            let t0 = (5 * rtt).div_ceil(US) * US;
            sim.add_cbr(w.cross_src, w.cross_dst, CROSS_BPS, u64::MAX, t0, 99)?;
            let bott = sim.port_between(w.r5, w.r4).expect("R5-R4");
            sim.watch_port(bott, "R5 -> R4 (congestion point)");
            sim.probe.port = bott;
            sim.probe.from_ps = t0;
            (us((t0 + 10 * rtt).div_ceil(US)), t0)
        }
        n if n.starts_with("coord-") => {
            let fat = kind == "fat-tree";
            // hosts per edge switch (leaf, or the fat tree's ToR)
            let per = if fat { 16 } else { COORD_PER_LEAF };
            let hosts = sim.topo.hosts;
            let edge = |h: usize| hosts + h / per;
            let mut collision = Vec::new();
            let mut incast = Vec::new();
            if n != "coord-incast" {
                // long flows to edge 0 (hosts 1, 2, ...), one more than the
                // hot link carries at the hosts' rate (2 on the 1:1
                // leaf-spine, 5 on the fat tree's 400 Gb/s links), each
                // after the first with a salt that makes ECMP put it on the
                // first one's link; those start when the first is in its
                // stable stage at the line rate. spine-downlink: from other
                // edges (leaf-spine: host 8 on leaf 1, host 23 on leaf 2;
                // fat tree: ToRs 4, 8, 12, 16, 5, other pods) onto the
                // link down to edge 0's switch from the switch above it,
                // which has no other way there (a spine; the fat tree's
                // core); leaf-uplink: all from edge 1 (hosts 8, 9, ...; on
                // the fat tree ToR 1, hosts 16, 17, ...) onto one of its
                // uplinks, whose siblings are idle.
                let spine_link = collision_at(o)? == "spine-downlink";
                let (srcs, hot_hop): (Vec<usize>, usize) = match (fat, spine_link) {
                    (false, true) => (vec![per, 3 * per - 1], 2),
                    (false, false) => ((per..2 * per).collect(), 1),
                    (true, true) => ([4, 8, 12, 16, 5].map(|t| t * per).to_vec(), 3),
                    (true, false) => ((per..2 * per).collect(), 1),
                };
                let a = sim.add_flow(srcs[0], 1, u64::MAX, 0, 0)?;
                let hot = sim.flow_route(a as usize)[hot_hop];
                let host_bps = sim.ports[sim.flow_route(a as usize)[0] as usize].rate_bps;
                let n_flows = (sim.ports[hot as usize].rate_bps / host_bps + 1) as usize;
                if n_flows > srcs.len() {
                    return Err(format!(
                        "{n}: the hot link carries {} host links' rate; this network has sources for {}",
                        n_flows - 1,
                        srcs.len() - 1
                    ));
                }
                collision.push(a);
                for (k, &src) in srcs.iter().enumerate().take(n_flows).skip(1) {
                    let salt = salt_onto(&mut sim, src, 1 + k, hot)?;
                    collision.push(sim.add_flow(src, 1 + k, u64::MAX, COLLISION_START_PS, salt)?);
                }
                let (from, to) = (
                    sim.ports[hot as usize].from as usize,
                    sim.ports[hot as usize].to as usize,
                );
                let label = match (fat, spine_link) {
                    (false, true) => format!(
                        "spine {} -> leaf 0 (the collision's link)",
                        from - hosts - COORD_LEAVES
                    ),
                    (false, false) => format!(
                        "leaf 1 -> spine {} (the collision's uplink)",
                        to - hosts - COORD_LEAVES
                    ),
                    _ => format!("node {from} -> node {to} (the collision's link)"),
                };
                sim.watch_port(hot, &label);
            }
            if n != "coord-collision" {
                // 16 senders, none of them a collision flow's: leaf-spine,
                // hosts 2-7 of leaf 1 and 0-4 of leaves 2 and 3; fat tree,
                // hosts 1-4 of ToRs 8-11 (pod 2)
                let senders: Vec<usize> = if fat {
                    (8..12)
                        .flat_map(|t| (1..5).map(move |i| t * per + i))
                        .collect()
                } else {
                    (per + 2..2 * per)
                        .chain(2 * per..2 * per + 5)
                        .chain(3 * per..3 * per + 5)
                        .collect()
                };
                for (i, &h) in senders.iter().enumerate() {
                    incast.push(sim.add_flow(
                        h,
                        0,
                        INCAST_BYTES,
                        INCAST_START_PS,
                        100 + i as u64,
                    )?);
                }
                debug_assert_eq!(incast.len(), INCAST_SENDERS);
                let port = sim.port_between(edge(0), 0).expect("edge 0 to host 0");
                let label = if fat {
                    "ToR 0 -> host 0 (the incast port)"
                } else {
                    "leaf 0 -> host 0 (the incast port)"
                };
                sim.watch_port(port, label);
            }
            let c = sim.coord.as_mut().expect("a coord scenario");
            for &f in &collision {
                c.track(f);
            }
            coord_flows = Some((collision, incast));
            (us(2_000), 0)
        }
        "mini" => {
            for i in 0..3 {
                sim.add_flow(i, 6 + i, u64::MAX, i as u64 * 500, i as u64)?;
            }
            for i in 3..6 {
                sim.add_flow(i, 9, 20 * payload, 100 * US, i as u64)?;
            }
            let bott = sim.port_between(12, 13).expect("L-R link");
            sim.watch_port(bott, "bottleneck L->R");
            (us(300), 50 * US)
        }
        _ => {
            // fct-<cdf>-<load>
            let mut it = name.split('-').skip(1);
            let cdf = match it.next() {
                Some("websearch") => workload::websearch(),
                _ => workload::fb_hadoop(),
            };
            let load: f64 = it.next().and_then(|x| x.parse().ok()).unwrap_or(50.0) / 100.0;
            let dur = us(if kind == "fat-tree" { 2_000 } else { 1_000 });
            let flows =
                workload::poisson(sim.topo.hosts, gbps as f64 * 1e9, load, &cdf, dur, o.seed);
            for (i, f) in flows.iter().enumerate() {
                sim.add_flow(f.src, f.dst, f.bytes, f.start_ps, i as u64)?;
            }
            extra = json!({"workload": cdf.name, "load": load, "mean_flow_bytes": cdf.mean(), "flows_generated": flows.len(), "arrivals_us": dur / US});
            (dur, 0)
        }
    };
    if name.starts_with("wan-") {
        // the figures start at `warm`; 001-B needs two base RTTs after its step
        let need = if name == "wan-fast-cnp" {
            warm + 2 * sim.cfg.base_rtt_ps
        } else {
            warm + US
        };
        if end < need {
            return Err(format!(
                "--duration-us = {} is too short for {name}: its figures start at {} us and need it to reach at least {} us",
                end / US,
                warm / US,
                need.div_ceil(US)
            ));
        }
    }
    let setup_s = t_setup.elapsed().as_secs_f64();
    let t0 = std::time::Instant::now();
    let total = end as f64;
    sim.sample_until = end;
    if name == "fast-start-load" {
        // the long flows' delivered packets before and after the messages start
        let long = |s: &Sim| -> u64 { (0..4).map(|i| s.flows[i].una).sum() };
        sim.run(500 * US, &mut |t| progress(t as f64 / total))?;
        let a = long(&sim);
        sim.run(1_000 * US, &mut |t| progress(t as f64 / total))?;
        let b = long(&sim);
        sim.run(end, &mut |t| progress((t as f64 / total).min(1.0)))?;
        let c = long(&sim);
        let gbps = |pkts: u64, us: u64| {
            pkts as f64 * sim.cfg.packet_bytes() as f64 * 8.0 / (us as f64 * 1e3)
        };
        let w = &sim.stats.watches[0];
        let q = |from: u64, to: u64| {
            let h = w.hist_between(from, to);
            let pk = sim.cfg.packet_bytes() as f64;
            json!({"p50_pkts": pct(&h, 0.5) as f64 / pk, "p99_pkts": pct(&h, 0.99) as f64 / pk, "max_pkts": h.max() as f64 / pk})
        };
        extra = json!({
            "long_flows_gbps_before": gbps(b - a, 500),
            "long_flows_gbps_during": gbps(c - b, (end / US).saturating_sub(1_000)),
            "queue_before": q(500 * US, 1_000 * US),
            "queue_during": q(1_000 * US, end),
            "messages_start_us": 1_000,
            "message_every_us": 20,
        });
    } else if let Some((collision, incast)) = coord_flows.as_ref() {
        sim.run(end, &mut |t| progress((t as f64 / total).min(1.0)))?;
        extra = coord_figures(&sim, collision, incast, collision_at(o)?, end);
    } else if name == "wan-arn" {
        sim.run(end, &mut |t| progress((t as f64 / total).min(1.0)))?;
        sim.fc_finish();
        extra = arn_figures(&sim, &arn_nodes.expect("001-C's network"), warm, end);
    } else if name.starts_with("wan-") {
        // the senders' goodput between `warm` and `end`
        let senders = |s: &Sim| -> u64 {
            s.flows
                .iter()
                .filter(|f| f.cbr_gap_ps == 0)
                .map(|f| f.una)
                .sum()
        };
        sim.run(warm, &mut |t| progress(t as f64 / total))?;
        let a = senders(&sim);
        sim.run(end, &mut |t| progress((t as f64 / total).min(1.0)))?;
        let b = senders(&sim);
        extra = wan_figures(&sim, o, warm, end, b - a, wan_d, x);
    } else {
        sim.run(end, &mut |t| progress((t as f64 / total).min(1.0)))?;
    }
    let at_end = sim.now();
    let run_s = t0.elapsed().as_secs_f64();
    let st = &sim.stats;
    let in_run = json!({
        "data_sent": st.data_sent,
        "not_ect_sent": st.not_ect_sent,
        "delivered": st.data_delivered,
        "marked_ce": st.marked,
        "dropped_wred_not_ect": st.drop_wred,
        "dropped_overflow_ect": st.drop_overflow_ect,
        "dropped_overflow_not_ect": st.drop_overflow_not_ect,
        "discarded_at_receiver": st.drop_receiver,
        "dropped_tunnel_egress": st.drop_tunnel_egress,
        "timeouts": st.timeouts,
    });
    // drain: long flows stop; everything in flight is delivered or dropped
    sim.stop_long_flows();
    let drain_deadline = end + 200_000 * US;
    sim.run(drain_deadline, &mut |_| {})?;
    let wall_s = t0.elapsed().as_secs_f64();
    if let Some(w) = sim.wan.as_ref() {
        // the tunnel's counters include the drain
        extra["tunnel_after_drain"] = serde_json::to_value(&w.stats).expect("plain counters");
    }
    let mut json = report(&sim, o, kind, warm, end, at_end, extra);
    json["packets_before_drain"] = in_run;
    Ok(Outcome {
        json,
        sim,
        wall_s,
        setup_s,
        run_s,
    })
}

/// A salt for a flow `src -> dst` whose ECMP route takes `port` (the
/// next flow's, by [`Sim::add_flow`]'s hash).
fn salt_onto(sim: &mut Sim, src: usize, dst: usize, port: u32) -> Result<u64, String> {
    let id = sim.flows.len() as u64;
    for salt in 1..10_000u64 {
        let r = sim.route(src, dst, crate::rng::mix(&[sim.seed, salt, id]))?;
        if r.contains(&port) {
            return Ok(salt);
        }
    }
    Err(format!(
        "no salt below 10,000 routes {src} -> {dst} over port {port}"
    ))
}

/// Throughput of a tracked flow's (time ps, packets acknowledged) samples
/// over windows of `w` samples: (window end ps, Gb/s).
pub fn windowed_gbps(samples: &[(u64, u64)], w: usize, pkt_bytes: u32) -> Vec<(u64, f64)> {
    samples
        .windows(w + 1)
        .map(|s| {
            let (t0, a) = s[0];
            let (t1, b) = s[w];
            let bits = (b - a) as f64 * pkt_bytes as f64 * 8.0;
            (t1, bits / ((t1 - t0) as f64 * 1e-12) / 1e9)
        })
        .collect()
}

/// Draft 002's figures (the coord-* scenarios) at the end of the run,
/// before the drain: what the scheme did, by class of flow; the collision
/// flows' throughput and recovery; the incast's completion.
fn coord_figures(
    sim: &Sim,
    collision: &[u32],
    incast: &[u32],
    collision_at: &str,
    end: u64,
) -> Value {
    let c = sim.coord.as_ref().expect("a coord scenario");
    let pk = sim.cfg.packet_bytes();
    let line = 100.0; // Gb/s: every coord-* link
    let per = |f: u32| c.stats.flows.get(f as usize).copied().unwrap_or_default();
    let class = |fs: &[u32]| {
        let sum = |g: &dyn Fn(&crate::coord::FlowCounts) -> u64| -> u64 {
            fs.iter().map(|&f| g(&per(f))).sum()
        };
        json!({
            "flows": fs.len(),
            "out_of_order": sum(&|n| n.out_of_order),
            "path_changes": sum(&|n| n.switch_moves + n.host_repaths as u64),
            "marks_needless": sum(&|n| n.marks_needless),
            "marks_needed": sum(&|n| n.marks_needed),
            "switch_moves": sum(&|n| n.switch_moves),
            "host_repaths": sum(&|n| n.host_repaths as u64),
            "type1_applied": sum(&|n| n.type1 as u64),
            "type2_applied": sum(&|n| n.type2 as u64),
            "type3_caused": sum(&|n| n.type3 as u64),
        })
    };
    let others: Vec<u32> = (0..sim.flows.len() as u32)
        .filter(|f| !collision.contains(f) && !incast.contains(f))
        .collect();
    let all: Vec<u32> = (0..sim.flows.len() as u32).collect();
    // the collision flows: 10-us windows of the 1-us samples
    let w = (10 * US / sim.cfg.sample_ps).max(1) as usize;
    let mut flows = Vec::new();
    let mut series = Vec::new();
    for (k, &f) in collision.iter().enumerate() {
        let s = windowed_gbps(&c.progress[k], w, pk);
        let first = per(f).first_move_ps;
        // the first 10-us window wholly after the move at 90% of the line
        let recovered = first.and_then(|t0| {
            s.iter()
                .find(|x| x.0 >= t0 + 10 * US && x.1 >= 0.9 * line)
                .map(|x| x.0)
        });
        let after = |from: u64| {
            let a = c.progress[k].iter().find(|x| x.0 >= from);
            let b = c.progress[k].last();
            match (a, b) {
                (Some(a), Some(b)) if b.0 > a.0 => {
                    (b.1 - a.1) as f64 * pk as f64 * 8.0 / ((b.0 - a.0) as f64 * 1e-12) / 1e9
                }
                _ => 0.0,
            }
        };
        flows.push(json!({
            "flow": f,
            "gbps_after_100us": after(100 * US),
            "first_move_us": first.map(|t| t as f64 / 1e6),
            "at_90pct_after_move_us": recovered.map(|t| t as f64 / 1e6),
            "recovery_us": first.zip(recovered).map(|(a, b)| (b - a) as f64 / 1e6),
        }));
        series.push(s);
    }
    // both collision flows at 90% of the line in the same window
    let both = if series.len() == 2 {
        series[0]
            .iter()
            .zip(&series[1])
            .find(|(a, b)| a.1 >= 0.9 * line && b.1 >= 0.9 * line)
            .map(|(a, _)| a.0 as f64 / 1e6)
    } else {
        None
    };
    let fin: Vec<u64> = incast
        .iter()
        .filter_map(|&f| sim.flows[f as usize].finish_ps)
        .collect();
    let incast_fig = if incast.is_empty() {
        Value::Null
    } else {
        json!({
            "senders": incast.len(),
            "bytes_each": INCAST_BYTES,
            "start_us": INCAST_START_PS / US,
            "finished": fin.len(),
            "completion_us": (fin.len() == incast.len()).then(|| (fin.iter().max().expect("some") - INCAST_START_PS) as f64 / 1e6),
            "mean_fct_us": (!fin.is_empty()).then(|| fin.iter().map(|t| (t - INCAST_START_PS) as f64).sum::<f64>() / fin.len() as f64 / 1e6),
        })
    };
    let st = &c.stats;
    json!({
        "coord": c.cfg.mode.name(),
        "ar": c.cfg.granularity.name(),
        "collision_at": (!collision.is_empty()).then_some(collision_at),
        "parameters": {
            "t_notify_us": c.cfg.t_notify_ps as f64 / 1e6,
            "t_release_us": c.cfg.t_release_ps as f64 / 1e6,
            "t_pin_us": c.cfg.t_pin_ps as f64 / 1e6,
            "t_flowlet_us": c.cfg.t_flowlet_ps as f64 / 1e6,
            "plb_rounds": crate::coord::PLB_ROUNDS,
        },
        "notifications_sent": {"type1": st.sent[0], "type2": st.sent[1], "type3": st.sent[2]},
        "notifications_received": {"type1": st.received[0], "type2": st.received[1], "type3": st.received[2]},
        "type3_moves": st.type3_moves,
        "type3_ignored": st.type3_ignored,
        "reroute_decisions": st.reroute_decisions,
        "reroutes_pinned": st.reroutes_pinned,
        "marks_withheld": st.marks_withheld,
        "all_flows": class(&all),
        "collision_flows": class(collision),
        "incast_flows": class(incast),
        "other_flows": class(&others),
        "collision": flows,
        "collision_both_at_90pct_us": both,
        "incast": incast_fig,
        "end_us": end / US,
    })
}

/// Scenario 001-C's figures at the end of its run (before the drain): over
/// A1's burst (its start to its completion, or the end), B's and A2's
/// throughput at their receivers, B's one-way delay, A1's completion
/// against its bottleneck's bound, pause and halt time, buffer peaks.
fn arn_figures(sim: &Sim, n: &crate::topo::ArnNodes, start: u64, end: u64) -> Value {
    let a1 = &sim.flows[0];
    let finish = a1.finish_ps.unwrap_or(end);
    let w = &sim.stats.watches;
    let gbps = |i: usize| {
        let (b, dt) = w[i].sent_between(start, finish);
        if dt == 0 {
            0.0
        } else {
            b as f64 * 8.0 / (dt as f64 * 1e-12) / 1e9
        }
    };
    // delays of the packets put on the wire during the burst
    let lat = |f: usize| -> Value {
        let mut d: Vec<u64> = sim.latency.as_ref().expect("001-C records delays")[f]
            .iter()
            .filter(|&&(t, _)| t >= start && t <= finish)
            .map(|&(_, d)| d)
            .collect();
        if d.is_empty() {
            return Value::Null;
        }
        d.sort_unstable();
        let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize] as f64 / 1e6;
        json!({"p50_us": q(0.5), "p99_us": q(0.99), "max_us": q(1.0), "packets": d.len()})
    };
    let burst = a1.size_bytes;
    let bound_us = burst as f64 * 8.0 / 10e9 * 1e6;
    let fc = sim.fc.as_ref();
    let mut v = json!({
        "flow_control": match fc.map(|f| f.cfg.mode) {
            None => "none".to_string(),
            Some(FcMode::Pfc) => "pfc".into(),
            Some(FcMode::Arn(m)) => format!("arn-{}", format!("{m:?}").to_lowercase()),
            Some(FcMode::None) => "none".into(),
        },
        "wan_delay_us": sim.ports[w[3].port as usize].delay_ps as f64 / 1e6,
        "burst_bytes": burst,
        "window_us": [start as f64 / 1e6, finish as f64 / 1e6],
        "a1_completion_us": a1.finish_ps.map(|t| (t - a1.arrival_ps) as f64 / 1e6),
        "a1_bottleneck_bound_us": bound_us,
        "b_gbps_during_burst": gbps(1),
        "b_offered_gbps": 20.0,
        "a2_gbps_during_burst": gbps(2),
        "a2_offered_gbps": 5.0,
        "b_delay": lat(2),
        "a2_delay": lat(1),
        "a1_delay": lat(0),
        "dropped": sim.stats.dropped_in_network(),
        "a1_retransmitted": a1.retx_pkts,
    });
    v["r5_to_pe_a_queue_max_bytes"] = json!(sim.ports[w[0].port as usize].max_queue_bytes);
    if let Some(fc) = fc {
        let peak = |x: usize| json!(fc.stats.peak_node_bytes[x]);
        v["flow_control_stats"] = json!({
            "xoff_bytes": fc.cfg.xoff_bytes, "xon_bytes": fc.cfg.xon_bytes, "arn_time_us": fc.cfg.time_us,
            "pause_sent": fc.stats.pause_sent, "resume_sent": fc.stats.resume_sent,
            "arn_halt_sent": fc.stats.arn_halt_sent, "arn_resume_sent": fc.stats.arn_resume_sent,
            "paused_us": fc.stats.paused_ps as f64 / 1e6, "host_paused_us": fc.stats.host_paused_ps as f64 / 1e6,
            "halted_us": fc.stats.halted_ps as f64 / 1e6, "side_queued_pkts": fc.stats.side_queued_pkts,
        });
        v["peak_bytes"] =
            json!({"gw": peak(n.gw), "pe_in": peak(n.pe_in), "r1": peak(n.r1), "r5": peak(n.r5)});
    }
    v
}

/// The WAN scenarios' figures at the end of the run (before the drain):
/// the bottleneck port's drops and marks, the tunnel's counters, the
/// senders' goodput over [`warm`, `end`], and for 001-B the reaction times
/// after the first mark at the congestion point against COMPANION.md's
/// analytic (2 - x) D and x D.
fn wan_figures(sim: &Sim, o: &Options, warm: u64, end: u64, pkts: u64, d: u64, x: f64) -> Value {
    let w = sim.wan.as_ref().expect("a WAN");
    let watch = &sim.stats.watches[0];
    let port = &sim.ports[watch.port as usize];
    let h = watch.hist_from(warm);
    let pk = sim.cfg.packet_bytes() as f64;
    let goodput_gbps =
        pkts as f64 * sim.cfg.payload_bytes as f64 * 8.0 / ((end - warm) as f64 * 1e-12) / 1e9;
    let mut v = json!({
        "one_way_delay_us": d as f64 / 1e6,
        "tunnel_mode": format!("{:?}", w.cfg.mode).to_lowercase(),
        "fault_at_r1": w.cfg.fault.is_some(),
        "fast_cnp": format!("{:?}", w.cfg.fast_cnp).to_lowercase(),
        "fast_cnp_interval_us": w.cfg.fast_cnp_interval_cycles as f64 / sim.cfg.clock_mhz as f64,
        "bottleneck": {
            "rate_gbps": port.rate_bps as f64 / 1e9,
            "dropped": port.dropped,
            "dropped_inner_ect": port.dropped_inner_ect,
            "marked": port.marked,
            "queue_p50_pkts": pct(&h, 0.5) as f64 / pk,
            "queue_p99_pkts": pct(&h, 0.99) as f64 / pk,
            "queue_max_bytes": h.max(),
            "queue_max_pkts": h.max() as f64 / pk,
        },
        "senders_goodput_gbps": goodput_gbps,
        "figures_from_us": warm as f64 / 1e6,
        "tunnel_in_run": serde_json::to_value(&w.stats).expect("plain counters"),
    });
    if o.scenario == "wan-fast-cnp" {
        let p = &sim.probe;
        let after = |t: Option<u64>| -> Value {
            match (t, p.first_mark_ps) {
                (Some(t), Some(m)) => json!((t as f64 - m as f64) / 1e6),
                _ => Value::Null,
            }
        };
        let dus = d as f64 / 1e6;
        // the senders at their line rate and the cross traffic, over the port
        let over =
            (2.0 * sim.cfg.host_rate_bps as f64 + CROSS_BPS as f64 - port.rate_bps as f64).max(0.0);
        v["reaction"] = json!({
            "congestion_at_x": x,
            "t0_us": p.from_ps as f64 / 1e6,
            "first_mark_us": p.first_mark_ps.map(|t| t as f64 / 1e6),
            "queue_at_first_mark_bytes": p.mark_queue_bytes,
            "queue_at_first_mark_us": p.mark_queue_bytes as f64 * 8.0 / port.rate_bps as f64 * 1e6,
            "first_fast_cnp_after_mark_us": after(p.first_fast_cnp_ps),
            "first_ece_after_mark_us": after(p.first_ece_ps),
            "first_cut_after_mark_us": after(p.first_cut_ps),
            "analytic_via_receiver_us": (2.0 - x) * dus,
            "analytic_fast_cnp_us": x * dus,
            "analytic_saving_us": 2.0 * (1.0 - x) * dus,
            "overload_gbps": over / 1e9,
            "analytic_queue_saving_bytes": over / 8.0 * 2.0 * (1.0 - x) * dus * 1e-6,
        });
    }
    v
}

fn pct(h: &hdrhistogram::Histogram<u64>, q: f64) -> u64 {
    if h.is_empty() {
        0
    } else {
        h.value_at_quantile(q)
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    sim: &Sim,
    o: &Options,
    kind: &str,
    warm: u64,
    end: u64,
    at_end: u64,
    extra: Value,
) -> Value {
    let c = &sim.cfg;
    let st = &sim.stats;
    let pkt = c.packet_bytes() as f64;
    let in_flight = sim.in_flight_data();
    let conserved = st.data_sent == st.data_delivered + st.dropped_in_network() + in_flight;
    let watches: Vec<Value> = st
        .watches
        .iter()
        .map(|w| {
            let h = w.hist_from(warm);
            let (bytes, dt) = w.sent_between(warm.max(1), end);
            let rate = sim.ports[w.port as usize].rate_bps as f64;
            json!({
                "port": w.label,
                "rate_gbps": rate / 1e9,
                "from_us": warm as f64 / 1e6,
                "to_us": end as f64 / 1e6,
                "utilization": if dt > 0 { bytes as f64 * 8.0 / (rate * dt as f64 * 1e-12) } else { 0.0 },
                "queue_p50_bytes": pct(&h, 0.5),
                "queue_p99_bytes": pct(&h, 0.99),
                "queue_max_bytes": h.max(),
                "queue_p50_pkts": pct(&h, 0.5) as f64 / pkt,
                "queue_p99_pkts": pct(&h, 0.99) as f64 / pkt,
                "queue_max_pkts": h.max() as f64 / pkt,
                "queue_max_in_block_bytes": sim.ports[w.port as usize].max_queue_bytes,
                "samples": h.len(),
            })
        })
        .collect();
    // flows
    let mut floor = Vec::new();
    let mut fcts = Vec::new();
    let mut below1 = 0u64;
    let mut ldcp_flows = 0u64;
    let mut last_finish = 0u64;
    for (i, f) in sim.flows.iter().enumerate() {
        if c.cc == Cc::Ldcp && f.min_cw_raw != u32::MAX {
            ldcp_flows += 1;
            below1 += (f.min_cw_raw < ldcp_sim::window_engine::CW_ONE) as u64;
        }
        if f.size_bytes != u64::MAX {
            if let Some(t) = f.finish_ps {
                last_finish = last_finish.max(t);
                // from the flow's arrival (a wait for a NIC table entry counts)
                let fct = t - f.arrival_ps;
                let links = flow_links(sim, i);
                let rtt = base_rtt_ps(&links, c.packet_bytes(), c.ack_bytes);
                let wire = f.size_bytes + f.size_pkts * c.header_bytes as u64;
                let host_bps = links[0].0;
                let ideal = rtt as f64 + wire as f64 * 8.0 / host_bps as f64 * 1e12;
                fcts.push((f.size_bytes, fct, (fct as f64 / ideal).max(1.0), ideal));
                floor.push(f.min_cw_raw == c.window.gamma_raw());
            }
        }
    }
    let sized = sim
        .flows
        .iter()
        .filter(|f| f.size_bytes != u64::MAX)
        .count();
    let ms = sim.merge_stats();
    let mut v = json!({
        "scenario": o.scenario,
        "cc": c.cc.name(),
        "engine": sim.hardware(),
        "seed": o.seed,
        "topology": sim.topo.name,
        "topology_kind": kind,
        "hosts": sim.topo.hosts,
        "flows": sim.flows.len(),
        "parameters": {
            "packet_bytes": c.packet_bytes(),
            "payload_bytes": c.payload_bytes,
            "ack_bytes": c.ack_bytes,
            "base_rtt_us": c.base_rtt_ps as f64 / 1e6,
            "bdp_pkts": c.bdp_pkts(),
            "clock_mhz": c.clock_mhz,
            "switch_100g": c.wred_for(100_000_000_000, 1),
            "ldcp": { "alpha": c.window.alpha_raw as f64 / 256.0, "beta": c.window.beta_raw as f64 / 256.0,
                      "gamma": 1.0 / (1u32 << c.window.gamma_shift) as f64, "cw_max_pkts": c.window.cw_max_raw >> 20,
                      "rtt_ticks": c.window.rtt_ticks, "iw_pkts": c.iw_pkts, "ack_m": c.ack_m },
            "dctcp": { "k_bytes_100g": c.dctcp_k_bytes_100g, "g": c.dctcp_g, "iw_pkts": c.dctcp_iw_pkts },
            "dcqcn": c.dcqcn,
            "rto_us": c.rto_ps as f64 / 1e6,
        },
        "time": { "run_us": end as f64 / 1e6, "stopped_at_us": at_end as f64 / 1e6, "ended_us": sim.now() as f64 / 1e6 },
        "watched": watches,
        "packets": {
            "data_sent": st.data_sent,
            "not_ect_sent": st.not_ect_sent,
            "delivered": st.data_delivered,
            "delivered_in_order": st.goodput_pkts,
            "discarded_at_receiver": st.drop_receiver,
            "marked_ce": st.marked,
            "dropped_wred_not_ect": st.drop_wred,
            "dropped_overflow_ect": st.drop_overflow_ect,
            "dropped_overflow_not_ect": st.drop_overflow_not_ect,
            "dropped_tunnel_egress": st.drop_tunnel_egress,
            "in_flight_after_drain": in_flight,
            "ctrl_in_flight_after_drain": sim.in_flight_ctrl(),
            "conserved": conserved,
            "acks_sent": st.acks_sent,
            "cnps_sent": st.cnps_sent,
            "timeouts": st.timeouts,
            "pacing_grants": st.grants,
        },
        "flows_completed": st.flows_done,
        "flow_starts_that_waited_for_a_nic_entry": st.slot_waits,
        "flows_sized": sized,
        "flows_unfinished": sim.unfinished(),
        "unfinished_examples": sim.flows.iter().enumerate().filter(|(_, f)| f.finish_ps.is_none()).take(5)
            .map(|(i, f)| json!({"flow": i, "una": f.una, "nxt": f.nxt, "max_sent": f.max_sent, "size_pkts": f.size_pkts, "timeouts": f.timeouts})).collect::<Vec<_>>(),
        "events": sim.events,
        "link_transmissions": st.link_tx,
        "extra": extra,
    });
    if c.cc == Cc::Ldcp {
        v["ldcp"] = json!({
            "flows_with_cw_below_1": below1,
            "flows_with_updates": ldcp_flows,
            "share_cw_below_1": if ldcp_flows > 0 { below1 as f64 / ldcp_flows as f64 } else { 0.0 },
            "engine_updates": st.engine_updates,
            "engine_in_flight_after_drain": sim.engine_in_flight(),
            "merge": ms,
            "merged_event_share": if ms.events > 0 { ms.merged_events as f64 / ms.events as f64 } else { 0.0 },
        });
    }
    if !fcts.is_empty() {
        let mut sl: Vec<f64> = fcts.iter().map(|x| x.2).collect();
        sl.sort_by(|a, b| a.total_cmp(b));
        let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        let med = |mut f: Vec<f64>| {
            f.sort_by(|a, b| a.total_cmp(b));
            q(&f, 0.5)
        };
        let fct_med = med(fcts.iter().map(|x| x.1 as f64 / 1e6).collect());
        let ideal_med = med(fcts.iter().map(|x| x.3 / 1e6).collect());
        v["fct"] = json!({
            "completed": fcts.len(),
            "last_completion_us": last_finish as f64 / 1e6,
            "slowdown_p50": q(&sl, 0.5), "slowdown_p95": q(&sl, 0.95), "slowdown_p99": q(&sl, 0.99),
            "fct_us_median": fct_med,
            "ideal_us_median": ideal_med,
            "buckets": buckets(&fcts),
            "at_gamma_floor": at_floor(&fcts, &floor, c.cc),
        });
    }
    v
}

/// LDCP: how many flows had their window at the floor gamma at some time,
/// among all flows and among the top 1% of slowdowns.
fn at_floor(fcts: &[(u64, u64, f64, f64)], floor: &[bool], cc: Cc) -> Value {
    if cc != Cc::Ldcp || fcts.is_empty() {
        return Value::Null;
    }
    let mut by: Vec<(f64, bool)> = fcts.iter().zip(floor).map(|(x, &g)| (x.2, g)).collect();
    by.sort_by(|a, b| b.0.total_cmp(&a.0));
    let top = (by.len() / 100).max(1);
    let n_top = by[..top].iter().filter(|x| x.1).count();
    let n_all = by.iter().filter(|x| x.1).count();
    json!({"flows": by.len(), "at_floor": n_all, "top_1pct": top, "top_1pct_at_floor": n_top})
}

/// FCT slowdown per flow-size decile (flows sorted by size, HPCC style).
fn buckets(fcts: &[(u64, u64, f64, f64)]) -> Vec<Value> {
    let mut by: Vec<_> = fcts.to_vec();
    by.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.total_cmp(&b.2)));
    let n = by.len();
    let k = 10.min(n);
    (0..k)
        .map(|i| {
            let s = &by[i * n / k..(i + 1) * n / k];
            let mut sl: Vec<f64> = s.iter().map(|x| x.2).collect();
            sl.sort_by(|a, b| a.total_cmp(b));
            let q = |p: f64| sl[((sl.len() - 1) as f64 * p).round() as usize];
            json!({"max_bytes": s.last().map_or(0, |x| x.0), "flows": s.len(), "p50": q(0.5), "p95": q(0.95), "p99": q(0.99)})
        })
        .collect()
}
