//! Draft 002 in the simulator: coordinated congestion management
//! (draft-lyu-rtgwg-coordinated-cm, COMPANION.md §2.2 C1-C12 with the
//! choices H1-H14). Three modes share one network and one workload:
//!
//! - **CC only** ([`CoordMode::CcOnly`]): ECMP, every congested port marks
//!   by its WRED/ECN block; nothing moves. Today's simulator, unchanged.
//! - **Independent** ([`CoordMode::Independent`]): congestion control as
//!   above, and adaptive routing beside it that does not know of it (002
//!   §4): a switch whose egress is congested (H2) moves the flow to its
//!   least-loaded light candidate if it has one, whatever the packet's tag,
//!   and WRED/ECN marks as always; a host re-paths a flow on congestion
//!   signals as PLB does (twelve consecutive rounds of one RTT_min with at
//!   least half of the ACKs ECN-Echoed: Linux's `tcp_plb_rehash_rounds`
//!   and `tcp_plb_cong_thresh` defaults for a flow with data in flight), by
//!   changing its ECMP entropy (H12).
//! - **Coordinated** ([`CoordMode::Coordinated`]): every data packet carries
//!   the tag (C2); each switch applies [`ldcp_sim::coord::decide`] (C9, the
//!   rule the RTL block `coord_decision` implements) and acts on it:
//!   - the indicator written (C9, H3, H9);
//!   - a re-route to the least-loaded light candidate (C8, C9);
//!   - a type 3 to the AR point the tag names (C6), at most one per
//!     (flow, AR point) per T_notify (H7), the packet unmarked on its path;
//!     the limit is the Fast CNP trigger's: its hashed last-sent table
//!     and rule (`ldcp_sim::fast_cnp::LastSent`, 256 slots, so flows that
//!     share a slot share the limit), one per switch;
//!   - WRED/ECN's mark only where the rule allows it (C7, H14); its drops
//!     (Not-ECT at K, overflow) always apply;
//!   - at a last-hop port, incast (C4): a type 1 to each incast flow's
//!     source, at most one per flow per T_notify (the port's own
//!     last-sent table, as above), re-sent when an untagged packet of a
//!     flagged flow arrives and the limit allows (H4); a type 2 to every
//!     flagged flow once the queue has stayed below K_min / 2 for
//!     T_release (H5; not limited: one per flow per release), re-sent
//!     when a tagged packet of a released flow arrives at the uncongested
//!     port and the limit allows.
//!
//!   Hosts (C10) set the CC bit on type 1, clear it on type 2, re-path on a
//!   type 3 addressed to them (new entropy, H12; never a CC-tagged flow,
//!   H9) and obey every congestion signal (H6). A new flow's AR indicator
//!   names its host, which can re-path (C2's choice).
//!
//! **Granularity** (H10): per flowlet by default, per packet (spray) as an
//! option. A flowlet switch keeps a per-flow entry (the egress it chose);
//! the entry holds while the flow's packets keep coming and is dropped
//! after an idle gap of T_flowlet, when the flow returns to its ECMP path.
//! *Where this differs from H10 as written:* H10 re-routes only at an idle
//! gap; a long flow at line rate never has one, so it could be neither
//! moved nor marked (C9 forbids the mark while a move is possible) and its
//! congestion would grow to buf_max. Here a re-route decision starts a new
//! flowlet at once, and the entry is pinned for T_pin (H8) so that it does
//! not oscillate. Spray moves only the packet the decision is for.
//!
//! **Type 3 at an AR point** (H8): the switch moves the flow off the egress
//! the packet used to the least-loaded light alternative and pins it for
//! T_pin; with none, or inside T_pin of its last move, it ignores the
//! notification. Notifications travel as control packets (64 bytes on the
//! wire: the simulator's control-packet size, as an ACK's; the 24-byte
//! message of `ldcp_sim::wire::coord` in IPv4/UDP would be 52 bytes
//! before Ethernet's) back along the path the triggering packet came, straight to
//! their target (H11: the AR indicator is the node's index).
//!
//! **What is counted.** Path changes: moves by a switch (a flowlet entry
//! set or changed, by a re-route or a type 3, or one sprayed packet) and
//! re-paths by the host. At the receiver: deliveries out of order (sent
//! before a packet of the flow delivered earlier), CE marks split into
//! needless (when the mark was made, a path from the first switch to the
//! last-hop switch existed whose every port was light, H2; the simulator
//! sees every queue) and needed; notifications sent and applied by type.

use ldcp_sim::fast_cnp::{self, LastSent};
use serde::Serialize;
use std::collections::HashMap;

/// Which scheme the network runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoordMode {
    /// Congestion control over ECMP, nothing moves.
    CcOnly,
    /// Congestion control and adaptive routing that ignore each other.
    Independent,
    /// Draft 002's coordinated scheme.
    Coordinated,
}

impl CoordMode {
    /// Every mode, in report order.
    pub const ALL: [CoordMode; 3] = [
        CoordMode::CcOnly,
        CoordMode::Independent,
        CoordMode::Coordinated,
    ];

    /// Its name (`--coord`).
    pub fn name(self) -> &'static str {
        match self {
            CoordMode::CcOnly => "cc-only",
            CoordMode::Independent => "independent",
            CoordMode::Coordinated => "coordinated",
        }
    }

    /// The mode named `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("--coord {s}: it must be cc-only, independent or coordinated"))
    }
}

/// Adaptive routing's granularity (H10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// A per-flow entry, moved by a re-route, dropped after an idle gap.
    Flowlet,
    /// Each re-routed packet alone.
    Spray,
}

impl Granularity {
    /// Its name (`--ar`).
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Flowlet => "flowlet",
            Granularity::Spray => "spray",
        }
    }

    /// The granularity named `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "flowlet" => Ok(Granularity::Flowlet),
            "spray" => Ok(Granularity::Spray),
            _ => Err(format!("--ar {s}: it must be flowlet or spray")),
        }
    }
}

/// The scheme's parameters (the draft sets none; the defaults are
/// COMPANION.md's).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CoordConfig {
    /// The scheme.
    pub mode: CoordMode,
    /// Adaptive routing's granularity.
    pub granularity: Granularity,
    /// One notification per (flow, target) per this, ps (H4, H7: 50 us).
    pub t_notify_ps: u64,
    /// An incast is over after its port's queue stayed below K_min / 2 this
    /// long, ps (H5: 10 RTT_min).
    pub t_release_ps: u64,
    /// A move is pinned this long, ps (H8: 1 RTT_min).
    pub t_pin_ps: u64,
    /// A flowlet entry is dropped after this idle gap, ps (H10: 2 RTT_min).
    pub t_flowlet_ps: u64,
    /// RTT_min, ps: the independent hosts' PLB round.
    pub rtt_ps: u64,
}

impl CoordConfig {
    /// COMPANION.md's defaults for a network of base RTT `rtt_ps`.
    pub fn new(mode: CoordMode, granularity: Granularity, rtt_ps: u64) -> Self {
        CoordConfig {
            mode,
            granularity,
            t_notify_ps: 50_000_000,
            t_release_ps: 10 * rtt_ps,
            t_pin_ps: rtt_ps,
            t_flowlet_ps: 2 * rtt_ps,
            rtt_ps,
        }
    }
}

/// PLB's rounds before a re-path (the independent hosts).
pub const PLB_ROUNDS: u32 = 12;

/// A notification's type (002 §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Notify {
    /// Congestion control required (incast switch -> source host).
    CcRequired = 1,
    /// Congestion control released.
    CcReleased = 2,
    /// Upstream adaptive routing required (-> the AR point).
    ArRequired = 3,
}

impl Notify {
    /// From its wire value.
    pub fn from_type(t: u8) -> Option<Notify> {
        match t {
            1 => Some(Notify::CcRequired),
            2 => Some(Notify::CcReleased),
            3 => Some(Notify::ArRequired),
            _ => None,
        }
    }
}

/// No AR point in the tag.
pub const AR_NONE: u32 = u32::MAX;

/// A switch's per-flow adaptive-routing entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// The egress port the flow takes here.
    pub port: u32,
    /// No move before this time, ps.
    pub pinned_until: u64,
    /// The flow's last packet here, ps.
    pub last_ps: u64,
}

/// A last-hop port's incast notifier (H4, H5).
#[derive(Clone, Debug, Default)]
pub(crate) struct Notifier {
    /// Flows with a packet here while the port was congested, since the
    /// last release: when first seen, ps.
    pub seen: HashMap<u32, u64>,
    /// Flagged (incast) flows, sent a type 1: when flagged, ps.
    pub flagged: HashMap<u32, u64>,
    /// Released flows: when released, ps.
    pub released: HashMap<u32, u64>,
    /// The port's notification limiter: the Fast CNP trigger's hashed
    /// last-sent table and rule ([`LastSent`]) under T_notify.
    pub limit: LastSent,
    /// The queue has been below K_min / 2 since then.
    pub below_since: Option<u64>,
    /// A release check is scheduled.
    pub check_pending: bool,
}

/// A host's per-flow view (C10) and the receiver's counts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlowState {
    /// The CC indicator its packets carry.
    pub cc: bool,
    /// Receiver: the latest send time delivered, ps.
    pub max_t_sent: u64,
    /// Independent hosts (PLB): the round's start, its ACKs, its ECN-Echoes,
    /// congested rounds in a row.
    pub round_start: u64,
    pub round_acks: u32,
    pub round_ece: u32,
    pub congested_rounds: u32,
    /// No host re-path before this time, ps.
    pub host_pinned_until: u64,
    /// Host re-paths drawn (the entropy's counter).
    pub repath_draws: u32,
}

/// What the scheme did, per flow.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FlowCounts {
    /// Deliveries out of order.
    pub out_of_order: u64,
    /// CE marks delivered while a light path existed.
    pub marks_needless: u64,
    /// CE marks delivered with no light path.
    pub marks_needed: u64,
    /// Type 1s this flow's source applied.
    pub type1: u32,
    /// Type 2s applied.
    pub type2: u32,
    /// Type 3s this flow caused.
    pub type3: u32,
    /// Moves of this flow by a switch (flowlet entries set or changed, or
    /// sprayed packets).
    pub switch_moves: u64,
    /// Re-paths by its host.
    pub host_repaths: u32,
    /// Its first move (by a switch or its host), ps.
    pub first_move_ps: Option<u64>,
}

/// What the scheme did, in all.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CoordStats {
    /// Notifications sent: type 1, 2, 3.
    pub sent: [u64; 3],
    /// Notifications that reached their target: type 1, 2, 3.
    pub received: [u64; 3],
    /// Type 3s their AR point acted on (a move).
    pub type3_moves: u64,
    /// Type 3s ignored (no light alternative, or pinned).
    pub type3_ignored: u64,
    /// Re-route decisions at congested switches.
    pub reroute_decisions: u64,
    /// Of those, the ones a pin held on its path.
    pub reroutes_pinned: u64,
    /// Marks WRED/ECN made that the rule withheld.
    pub marks_withheld: u64,
    /// Per flow.
    pub flows: Vec<FlowCounts>,
}

/// One switch decision for a data packet, logged when
/// [`Coord::log`] is set (tests): (time ps, node, flow, PSN, AR indicator
/// before, after, light candidates, congested, re-routed to this port or
/// `u32::MAX`, type 3 sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopLog {
    /// Time, ps.
    pub t: u64,
    /// The switch.
    pub node: u32,
    /// The flow.
    pub flow: u32,
    /// The packet's PSN.
    pub psn: u32,
    /// Its CC bit.
    pub cc: bool,
    /// The AR indicator it arrived with.
    pub ar_in: u32,
    /// The AR indicator it left with.
    pub ar_out: u32,
    /// Light candidates here.
    pub light: u32,
    /// Its egress was congested.
    pub congested: bool,
    /// The egress it left on.
    pub out: u32,
    /// A type 3 was sent for it.
    pub type3: bool,
}

/// A notification event, logged when [`Coord::log`] is set: (time ps,
/// type, flow, from node, to node, applied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotifyLog {
    /// Time, ps.
    pub t: u64,
    /// Its type.
    pub kind: Notify,
    /// The flow.
    pub flow: u32,
    /// The node that sent it.
    pub from: u32,
    /// Its target.
    pub to: u32,
    /// false: sent; true: reached its target.
    pub arrived: bool,
}

/// The scheme's state in a run.
pub struct Coord {
    /// Parameters.
    pub cfg: CoordConfig,
    /// Per port: K_min, bytes (congested at or above, light below).
    pub(crate) k_min: Vec<u64>,
    /// Switch entries by (node, flow).
    pub(crate) entries: HashMap<(u32, u32), Entry>,
    /// Last-hop notifiers by port.
    pub(crate) notifiers: HashMap<u32, Notifier>,
    /// Type 3 limiters per switch (H7), keyed by (flow, AR point): the
    /// Fast CNP trigger's table and rule.
    pub(crate) type3_limit: HashMap<u32, LastSent>,
    /// The hardware's clock period, ps (the limiters' stamps are cycles).
    pub(crate) cycle_ps: u64,
    /// Per flow.
    pub(crate) flows: Vec<FlowState>,
    /// What it did.
    pub stats: CoordStats,
    /// Flows whose delivered packets are sampled with the watched ports.
    pub tracked: Vec<u32>,
    /// Per tracked flow: (time ps, packets acknowledged) samples.
    pub progress: Vec<Vec<(u64, u64)>>,
    /// When set, every switch decision and notification is logged (tests).
    pub log: Option<(Vec<HopLog>, Vec<NotifyLog>)>,
}

impl Coord {
    /// The scheme on a network whose ports have these K_min, its hardware
    /// clocked at `cycle_ps` (the limiters' stamps).
    pub fn new(cfg: CoordConfig, k_min: Vec<u64>, cycle_ps: u64) -> Self {
        Coord {
            cfg,
            k_min,
            entries: HashMap::new(),
            notifiers: HashMap::new(),
            type3_limit: HashMap::new(),
            cycle_ps,
            flows: Vec::new(),
            stats: CoordStats::default(),
            tracked: Vec::new(),
            progress: Vec::new(),
            log: None,
        }
    }

    /// Offers a notification of flow `f` keyed with `key` to `limiter` at
    /// `now_ps`: whether it may go (H4, H7: one per key per T_notify). The
    /// slot is the Fast CNP trigger's hash of (the flow's source, `key`
    /// as the destination, its DestQP), the stamp the hardware's cycle.
    fn offer(
        limiter: &mut LastSent,
        cfg: &CoordConfig,
        cycle_ps: u64,
        (src, key, f): (u32, u32, u32),
        now_ps: u64,
    ) -> bool {
        let slot = fast_cnp::slot(
            crate::wan::host_ipv4(src) as u128,
            key as u128,
            crate::wan::dest_qp(f),
        );
        let stamp = ((now_ps / cycle_ps) & ((1 << fast_cnp::TIME_BITS) - 1)) as u32;
        let interval = (cfg.t_notify_ps / cycle_ps).min(u32::MAX as u64) as u32;
        limiter.offer(slot, stamp, interval)
    }

    /// Makes room for flow `f`.
    pub(crate) fn ensure(&mut self, f: u32) {
        let n = f as usize + 1;
        if self.flows.len() < n {
            self.flows.resize(n, FlowState::default());
            self.stats.flows.resize(n, FlowCounts::default());
        }
    }

    /// Tracks flow `f`'s progress (sampled with the watched ports).
    pub fn track(&mut self, f: u32) {
        self.tracked.push(f);
        self.progress.push(Vec::new());
    }
}

impl Coord {
    /// A data packet at its receiver: order, path and mark counts.
    /// `ce_echoed`: it carries CE and the receiver accepted it (its mark
    /// becomes an ECN-Echo, one window cut at the sender).
    pub(crate) fn delivered(&mut self, pkt: &crate::sim::Pkt, ce_echoed: bool) {
        self.ensure(pkt.flow);
        let s = &mut self.flows[pkt.flow as usize];
        let n = &mut self.stats.flows[pkt.flow as usize];
        if pkt.t_sent < s.max_t_sent {
            n.out_of_order += 1;
        } else {
            s.max_t_sent = pkt.t_sent;
        }
        if ce_echoed {
            if pkt.light_mark {
                n.marks_needless += 1;
            } else {
                n.marks_needed += 1;
            }
        }
    }
}

use crate::sim::{Kind, Pkt, Sim};
use ldcp_sim::coord::{decide, DecisionIn, LIGHT_MAX};

impl Sim {
    /// Turns draft 002's scheme on for this network: K_min per switch port
    /// from its WRED/ECN parameters (H2), the defaults of [`CoordConfig`]
    /// for the run's base RTT.
    pub fn enable_coord(&mut self, mode: CoordMode, granularity: Granularity) {
        let k_min = self
            .ports
            .iter()
            .map(|p| {
                if (p.from as usize) < self.topo.hosts {
                    u64::MAX // a NIC's queue is no switch's candidate
                } else {
                    self.cfg.wred_for(p.rate_bps, 1).k_min_bytes as u64
                }
            })
            .collect();
        let cfg = CoordConfig::new(mode, granularity, self.cfg.base_rtt_ps);
        self.coord = Some(Coord::new(cfg, k_min, self.cfg.cycle_ps()));
    }

    /// Flow `f`'s path `path`, forward, port by port.
    pub(crate) fn path_fwd(&self, f: u32, path: u16) -> &[u32] {
        let fl = &self.flows[f as usize];
        match path {
            0 => &fl.fwd,
            k => &fl.alt[k as usize - 1].0,
        }
    }

    /// Flow `f`'s path `path`, backward.
    pub(crate) fn path_rev(&self, f: u32, path: u16) -> &[u32] {
        let fl = &self.flows[f as usize];
        match path {
            0 => &fl.rev,
            k => &fl.alt[k as usize - 1].1,
        }
    }

    /// Port `p`'s data occupancy (queued and in serialization), bytes: what
    /// H2's congested and light compare with K_min.
    pub(crate) fn queue_bytes(&self, p: u32) -> u64 {
        let port = &self.ports[p as usize];
        port.data_bytes
            + port
                .sending
                .filter(|s| s.kind == Kind::Data)
                .map_or(0, |s| s.bytes as u64)
    }

    fn k_min(&self, p: u32) -> u64 {
        self.coord.as_ref().expect("coordination").k_min[p as usize]
    }

    fn light(&self, p: u32) -> bool {
        self.queue_bytes(p) < self.k_min(p)
    }

    /// The routing's next hops from switch `x` toward host `dst` (C12: the
    /// shortest-path next hops, equal cost or not).
    fn candidates(&mut self, x: usize, dst: usize) -> Vec<u32> {
        if self.dist[dst].is_none() {
            // computed by the route of the first flow to `dst`
            let _ = self.route(x, dst, 0);
        }
        let d = self.dist[dst].as_ref().expect("computed");
        self.node_ports[x]
            .iter()
            .copied()
            .filter(|&p| {
                let y = self.ports[p as usize].to as usize;
                d[y] != u16::MAX && d[y] + 1 == d[x] && (y >= self.topo.hosts || y == dst)
            })
            .collect()
    }

    /// The path of flow `f` that follows path `base` for its first `hop`
    /// ports, takes `port` and then the ECMP route of `base`'s hash; an
    /// existing path if one is the same.
    fn path_through(&mut self, f: u32, base: u16, hop: usize, port: u32) -> u16 {
        let (dst, h) = {
            let fl = &self.flows[f as usize];
            let h = match base {
                0 => fl.hash,
                k => fl.alt[k as usize - 1].2,
            };
            (fl.dst as usize, h)
        };
        let mut fwd: Vec<u32> = self.path_fwd(f, base)[..hop].to_vec();
        fwd.push(port);
        let next = self.ports[port as usize].to as usize;
        if next != dst {
            fwd.extend(self.route(next, dst, h).expect("a candidate leads to dst"));
        }
        self.add_path(f, fwd, h)
    }

    /// Flow `f`'s path `fwd` (hash `h` for its continuations): its index,
    /// added if new.
    fn add_path(&mut self, f: u32, fwd: Vec<u32>, h: u64) -> u16 {
        let fl = &self.flows[f as usize];
        if fl.fwd == fwd {
            return 0;
        }
        if let Some(k) = fl.alt.iter().position(|a| a.0 == fwd) {
            return k as u16 + 1;
        }
        let rev: Vec<u32> = fwd
            .iter()
            .rev()
            .map(|&p| self.ports[p as usize].peer)
            .collect();
        let fl = &mut self.flows[f as usize];
        fl.alt.push((fwd, rev, h));
        assert!(fl.alt.len() < u16::MAX as usize, "paths per flow");
        fl.alt.len() as u16
    }

    /// The tag on a data packet leaving its host (C2), on the path the host
    /// sends on.
    pub(crate) fn coord_tag(&mut self, mut pkt: Pkt) -> Pkt {
        let now = self.now();
        let Some(c) = self.coord.as_mut() else {
            return pkt;
        };
        c.ensure(pkt.flow);
        let fl = &self.flows[pkt.flow as usize];
        pkt.path = fl.cur_path;
        if c.cfg.mode == CoordMode::Coordinated {
            let s = &c.flows[pkt.flow as usize];
            pkt.cc = s.cc;
            // the host can re-path (C2's choice), except within T_pin of
            // its last re-path, when a type 3 to it would be ignored: the
            // packets then name no AR point, so a congested switch with no
            // path of its own marks them (C9's last row)
            if now >= s.host_pinned_until {
                pkt.ar = fl.src;
            }
        }
        pkt
    }

    /// The least-loaded light candidate other than `except` for flow `f`;
    /// ties are broken by a hash of the run's seed, the flow and the port
    /// (by the lower port index, every switch would send its flows to the
    /// same idle spine, where they would collide again).
    fn best_light(&self, cands: &[u32], except: u32, f: u32) -> Option<u32> {
        cands
            .iter()
            .copied()
            .filter(|&p| p != except && self.light(p))
            .min_by_key(|&p| {
                (
                    self.queue_bytes(p),
                    crate::rng::mix(&[self.seed, f as u64, p as u64]),
                )
            })
    }

    /// Draft 002 at switch `node` for a data packet about to take its
    /// path's next port: the flowlet entry, the decision and its actions.
    /// Returns whether WRED/ECN may mark it.
    pub(crate) fn coord_switch(&mut self, node: usize, pkt: &mut Pkt) -> bool {
        let now = self.now();
        let f = pkt.flow;
        let hop = pkt.hop as usize;
        let cfg = self.coord.as_ref().expect("coordination").cfg;
        let mode = cfg.mode;
        if mode == CoordMode::CcOnly {
            return true;
        }
        let mut out = self.path_fwd(f, pkt.path)[hop];
        // the switch's entry for the flow (flowlet granularity)
        let c = self.coord.as_mut().expect("coordination");
        let entry = match c.entries.get_mut(&(node as u32, f)) {
            Some(e) if now >= e.last_ps + cfg.t_flowlet_ps && now >= e.pinned_until => {
                c.entries.remove(&(node as u32, f));
                None
            }
            Some(e) => {
                e.last_ps = now;
                Some(*e)
            }
            None => None,
        };
        if let Some(e) = entry {
            if e.port != out {
                pkt.path = self.path_through(f, pkt.path, hop, e.port);
                out = e.port;
            }
        }
        let dst = self.flows[f as usize].dst as usize;
        let last_hop = (self.ports[out as usize].to as usize) < self.topo.hosts;
        let cands = self.candidates(node, dst);
        let light = cands.iter().filter(|&&p| self.light(p)).count() as u32;
        let congested = !self.light(out);
        let (reroute, type3, mut mark_allowed, incast, ar_out) = match mode {
            CoordMode::CcOnly => unreachable!("returned above"),
            CoordMode::Independent => {
                let r = congested && !last_hop && light >= 1;
                (r, false, true, false, pkt.ar)
            }
            CoordMode::Coordinated => {
                let d = decide(&DecisionIn {
                    congested,
                    cc: pkt.cc,
                    light: light.min(LIGHT_MAX as u32) as u8,
                    arv: pkt.ar != AR_NONE,
                    last_hop,
                });
                let ar = if d.write_indicator {
                    node as u32
                } else {
                    pkt.ar
                };
                (
                    d.reroute,
                    d.type3,
                    d.mark_allowed || !congested,
                    d.incast,
                    ar,
                )
            }
        };
        let ar_in = pkt.ar;
        pkt.ar = ar_out;
        if reroute {
            let to = self.best_light(&cands, out, f).expect("a light candidate");
            let c = self.coord.as_mut().expect("coordination");
            c.stats.reroute_decisions += 1;
            let key = (node as u32, f);
            let pinned = cfg.granularity == Granularity::Flowlet
                && c.entries.get(&key).is_some_and(|e| now < e.pinned_until);
            if pinned {
                // the move waits for the pin (H8): no path now, so
                // congestion control (the mark) applies meanwhile
                c.stats.reroutes_pinned += 1;
                mark_allowed = true;
            } else {
                c.ensure(f);
                let n = &mut c.stats.flows[f as usize];
                n.switch_moves += 1;
                n.first_move_ps.get_or_insert(now);
                if cfg.granularity == Granularity::Flowlet {
                    c.entries.insert(
                        key,
                        Entry {
                            port: to,
                            pinned_until: now + cfg.t_pin_ps,
                            last_ps: now,
                        },
                    );
                }
                pkt.path = self.path_through(f, pkt.path, hop, to);
                out = to;
            }
        }
        let mut sent3 = false;
        if type3 {
            let src = self.flows[f as usize].src;
            let c = self.coord.as_mut().expect("coordination");
            let cycle_ps = c.cycle_ps;
            let lim = c.type3_limit.entry(node as u32).or_default();
            if Coord::offer(lim, &cfg, cycle_ps, (src, ar_in, f), now) {
                c.ensure(f);
                c.stats.flows[f as usize].type3 += 1;
                sent3 = true;
                self.notify(node, Notify::ArRequired, f, ar_in, pkt.path);
            }
        }
        if last_hop && mode == CoordMode::Coordinated {
            self.incast_notifier(node, out, pkt, incast);
        }
        if let Some((hops, _)) = self.coord.as_mut().and_then(|c| c.log.as_mut()) {
            hops.push(HopLog {
                t: now,
                node: node as u32,
                flow: f,
                psn: pkt.psn,
                cc: pkt.cc,
                ar_in,
                ar_out,
                light,
                congested,
                out,
                type3: sent3,
            });
        }
        mark_allowed
    }

    /// C4, C5, H4, H5 at a last-hop port `out` of switch `node`, for a data
    /// packet that `incast` says arrived while the port was congested.
    ///
    /// *A choice beside H4:* congestion at a last-hop port is an incast
    /// once packets of two or more flows have arrived there while it was
    /// congested (since the last release). Read literally, H2 and H4 make
    /// one line-rate flow an "incast" of itself (its own queue reaches
    /// K_min = 5 KB at its host's port, for instance while its packets on
    /// an old and a new path meet), and the type 1 would then pin a flow
    /// that adaptive routing had just moved (H9); C4 allows other methods,
    /// and an in-cast is many to one.
    fn incast_notifier(&mut self, node: usize, out: u32, pkt: &Pkt, incast: bool) {
        let now = self.now();
        let f = pkt.flow;
        let q = self.queue_bytes(out);
        let k_min = self.k_min(out);
        let c = self.coord.as_mut().expect("coordination");
        let (cfg, cycle_ps) = (c.cfg, c.cycle_ps);
        let n = c.notifiers.entry(out).or_default();
        // the limiter's key: the flow (its source, 0, its DestQP)
        let flows = &self.flows;
        let may = |n: &mut Notifier, g: u32| {
            let src = flows[g as usize].src;
            Coord::offer(&mut n.limit, &cfg, cycle_ps, (src, 0, g), now)
        };
        // (flow, type, on the arriving packet's path)
        let mut send: Vec<(u32, Notify, bool)> = Vec::new();
        if incast {
            n.released.remove(&f);
            n.seen.entry(f).or_insert(now);
            if n.seen.len() >= 2 {
                let mut new: Vec<u32> = n
                    .seen
                    .keys()
                    .copied()
                    .filter(|g| !n.flagged.contains_key(g))
                    .collect();
                new.sort_unstable();
                for g in new {
                    n.flagged.insert(g, now);
                    if may(n, g) {
                        send.push((g, Notify::CcRequired, g == f));
                    }
                }
            }
        }
        if send.is_empty() && !pkt.cc && n.flagged.contains_key(&f) && may(n, f) {
            // H4's repair: an untagged packet of a flagged flow
            send.push((f, Notify::CcRequired, true));
        } else if !incast
            && pkt.cc
            && n.released
                .get(&f)
                .is_some_and(|&t| now >= t + cfg.t_notify_ps)
            && may(n, f)
        {
            // H5: re-sent for a tagged packet of a released flow (once the
            // release's own type 2 has had T_notify to arrive)
            send.push((f, Notify::CcReleased, true));
        }
        if 2 * q >= k_min {
            n.below_since = None;
        }
        for (g, kind, own) in send {
            // the last-hop switch is on every path of the flow (a host has
            // one link), so path 0 leads back from it as well
            let path = if own { pkt.path } else { 0 };
            self.notify(node, kind, g, self.flows[g as usize].src, path);
        }
    }

    /// A data packet left last-hop port `p` (it has a notifier): the start
    /// of H5's quiet time.
    pub(crate) fn coord_dequeued(&mut self, p: u32) {
        let now = self.now();
        let q = self.queue_bytes(p);
        let k_min = self.k_min(p);
        let c = self.coord.as_mut().expect("coordination");
        let t_release = c.cfg.t_release_ps;
        let n = c.notifiers.get_mut(&p).expect("a notifier");
        if n.seen.is_empty() || 2 * q >= k_min || n.below_since.is_some() {
            return;
        }
        n.below_since = Some(now);
        if !n.check_pending {
            n.check_pending = true;
            self.at(now + t_release, crate::sim::Ev::NotifyCheck(p));
        }
    }

    /// H5's check at last-hop port `p`: quiet for T_release -> a type 2 to
    /// every flagged flow.
    pub(crate) fn notify_check(&mut self, p: u32) {
        let now = self.now();
        let c = self.coord.as_mut().expect("coordination");
        let t_release = c.cfg.t_release_ps;
        let n = c.notifiers.get_mut(&p).expect("a notifier");
        n.check_pending = false;
        let Some(since) = n.below_since else {
            return; // congested again; the next quiet time re-arms
        };
        if now < since + t_release {
            n.check_pending = true;
            self.at(since + t_release, crate::sim::Ev::NotifyCheck(p));
            return;
        }
        n.seen.clear();
        let mut flows: Vec<u32> = n.flagged.drain().map(|(f, _)| f).collect();
        flows.sort_unstable();
        for &f in &flows {
            n.released.insert(f, now);
        }
        n.below_since = None;
        let node = self.ports[p as usize].from as usize;
        for f in flows {
            let src = self.flows[f as usize].src;
            self.notify(node, Notify::CcReleased, f, src, 0);
        }
    }

    /// Sends a notification of `kind` about flow `f` from `node` to node
    /// `to`, back along the flow's path `path` (which passes `node`).
    fn notify(&mut self, node: usize, kind: Notify, f: u32, to: u32, path: u16) {
        let now = self.now();
        let rev = self.path_rev(f, path);
        let r = rev
            .iter()
            .position(|&p| self.ports[p as usize].from as usize == node)
            .expect("the notifier is on the path");
        let port = rev[r];
        let c = self.coord.as_mut().expect("coordination");
        c.stats.sent[kind as usize - 1] += 1;
        if let Some((_, log)) = c.log.as_mut() {
            log.push(NotifyLog {
                t: now,
                kind,
                flow: f,
                from: node as u32,
                to,
                arrived: false,
            });
        }
        let bytes = self.cfg.ack_bytes;
        let mut pkt = Pkt {
            path,
            ..Pkt::control(f, Kind::Notify, to, bytes, r as u8 + 1)
        };
        pkt.n = kind as u8;
        self.push_ctrl(port, pkt);
    }

    /// A notification at its target `node` (C10 at a host, H8 at a switch).
    pub(crate) fn receive_notify(&mut self, node: usize, pkt: Pkt) {
        let now = self.now();
        let f = pkt.flow;
        let kind = Notify::from_type(pkt.n).expect("the simulator sends types 1-3");
        let c = self.coord.as_mut().expect("coordination");
        c.ensure(f);
        c.stats.received[kind as usize - 1] += 1;
        let t_pin = c.cfg.t_pin_ps;
        if let Some((_, log)) = c.log.as_mut() {
            log.push(NotifyLog {
                t: now,
                kind,
                flow: f,
                from: u32::MAX,
                to: node as u32,
                arrived: true,
            });
        }
        let done = self.flows[f as usize].finish_ps.is_some();
        if node < self.topo.hosts {
            let s = &mut c.flows[f as usize];
            match kind {
                Notify::CcRequired => {
                    s.cc = true;
                    c.stats.flows[f as usize].type1 += 1;
                }
                Notify::CcReleased => {
                    s.cc = false;
                    c.stats.flows[f as usize].type2 += 1;
                }
                // H9: a CC-tagged flow is never re-pathed
                Notify::ArRequired if !s.cc && !done && now >= s.host_pinned_until => {
                    s.host_pinned_until = now + t_pin;
                    c.stats.type3_moves += 1;
                    self.host_repath(f);
                }
                Notify::ArRequired => c.stats.type3_ignored += 1,
            }
            return;
        }
        // H8: a switch moves the flow off the egress the packet used
        let fwd = self.path_fwd(f, pkt.path);
        let Some(hop) = fwd
            .iter()
            .position(|&p| self.ports[p as usize].from as usize == node)
        else {
            return;
        };
        let used = fwd[hop];
        let dst = self.flows[f as usize].dst as usize;
        let cands = self.candidates(node, dst);
        let to = self.best_light(&cands, used, f);
        let c = self.coord.as_mut().expect("coordination");
        let key = (node as u32, f);
        let pinned = c.entries.get(&key).is_some_and(|e| now < e.pinned_until);
        match to {
            // a late type 3 for a move already made is no new move
            Some(to)
                if !pinned
                    && kind == Notify::ArRequired
                    && c.entries.get(&key).is_none_or(|e| e.port != to) =>
            {
                c.stats.type3_moves += 1;
                let n = &mut c.stats.flows[f as usize];
                n.switch_moves += 1;
                n.first_move_ps.get_or_insert(now);
                c.entries.insert(
                    key,
                    Entry {
                        port: to,
                        pinned_until: now + t_pin,
                        last_ps: now,
                    },
                );
            }
            _ => c.stats.type3_ignored += 1,
        }
    }

    /// Flow `f`'s host changes its ECMP entropy (H12): a new path from the
    /// host (the same one if the hash picks it again).
    /// A re-path that draws the same route is no path change and is not
    /// counted; either way the flow's switch entries are dropped (a new
    /// entropy is a new 5-tuple to a flowlet table, so the switches' old
    /// choices for the flow no longer apply).
    fn host_repath(&mut self, f: u32) {
        let now = self.now();
        let c = self.coord.as_mut().expect("coordination");
        let s = &mut c.flows[f as usize];
        s.repath_draws += 1;
        let k = s.repath_draws as u64;
        c.entries.retain(|&(_, g), _| g != f);
        let h = crate::rng::mix(&[self.seed, f as u64, k, 0xC002]);
        let (src, dst) = {
            let fl = &self.flows[f as usize];
            (fl.src as usize, fl.dst as usize)
        };
        let fwd = self.route(src, dst, h).expect("reachable: it was routed");
        let p = self.add_path(f, fwd, h);
        if p != self.flows[f as usize].cur_path {
            let n = &mut self.coord.as_mut().expect("coordination").stats.flows[f as usize];
            n.host_repaths += 1;
            n.first_move_ps.get_or_insert(now);
        }
        self.flows[f as usize].cur_path = p;
    }

    /// An ACK of flow `f` at its sender: the independent hosts' PLB.
    pub(crate) fn coord_ack(&mut self, f: u32, ece: bool) {
        let now = self.now();
        let c = self.coord.as_mut().expect("coordination");
        if c.cfg.mode != CoordMode::Independent {
            return;
        }
        c.ensure(f);
        let rtt = c.cfg.rtt_ps;
        let t_pin = c.cfg.t_pin_ps;
        let s = &mut c.flows[f as usize];
        if s.round_acks == 0 {
            s.round_start = now;
        }
        s.round_acks += 1;
        s.round_ece += ece as u32;
        if now < s.round_start + rtt {
            return;
        }
        let congested = 2 * s.round_ece >= s.round_acks;
        s.round_acks = 0;
        s.round_ece = 0;
        s.congested_rounds = if congested { s.congested_rounds + 1 } else { 0 };
        if s.congested_rounds >= PLB_ROUNDS && now >= s.host_pinned_until {
            s.congested_rounds = 0;
            s.host_pinned_until = now + t_pin;
            self.host_repath(f);
        }
    }

    /// Whether, at this moment, a path from flow `f`'s first switch to its
    /// last-hop switch exists whose every port is light (H2): a mark on
    /// port `marked` is then needless. A mark on the last hop (incast) is
    /// always needed.
    pub(crate) fn light_path_exists(&mut self, f: u32, marked: u32) -> bool {
        let (first, last, dst) = {
            let fl = &self.flows[f as usize];
            (
                self.ports[fl.fwd[0] as usize].to as usize,
                self.ports[fl.rev[0] as usize].to as usize,
                fl.dst as usize,
            )
        };
        if (self.ports[marked as usize].to as usize) < self.topo.hosts {
            return false;
        }
        // depth-first over the shortest-path DAG, light ports only
        let mut seen = vec![false; self.topo.nodes()];
        let mut stack = vec![first];
        while let Some(x) = stack.pop() {
            if x == last {
                return true;
            }
            if std::mem::replace(&mut seen[x], true) {
                continue;
            }
            for p in self.candidates(x, dst) {
                let y = self.ports[p as usize].to as usize;
                if y >= self.topo.hosts && !seen[y] && self.light(p) {
                    stack.push(y);
                }
            }
        }
        false
    }
}
