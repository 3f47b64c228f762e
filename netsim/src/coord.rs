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

use crate::packet::Pkt;
pub use crate::packet::AR_NONE;
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
    pub(crate) fn offer(
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
    pub(crate) fn delivered(&mut self, pkt: &Pkt, ce_echoed: bool) {
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
