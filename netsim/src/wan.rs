//! Draft 001 in the simulator (COMPANION.md §5, scenarios 001-A and 001-B):
//! an SRv6 tunnel across a WAN whose PEs apply RFC 6040 to the ECN field
//! (`ldcp_sim::tunnel_ecn`, the models of the tunnel blocks), a P node that
//! can be faulted to set CE on Not-ECT outer headers, and the Fast CNP
//! trigger at the P nodes (the rule of `ldcp_sim::fast_cnp`: its hash and
//! its last-sent table).
//!
//! What is modelled and what is not:
//! - A data packet arriving at the ingress PE is encapsulated: its outer
//!   ECN field is `tunnel_ecn::ingress(mode, inner)` and it grows by
//!   [`SRV6_OVERHEAD_BYTES`] (an outer IPv6 header and an SRH of one
//!   segment). Every switch port on the way marks or drops by the outer
//!   field, as a P node sees only it. At the egress PE the packet is
//!   decapsulated by `tunnel_ecn::egress(inner, outer)`: forwarded with the
//!   cell's ECN, or dropped (a Not-ECT inner under a CE outer), the
//!   currently-unused cells counted apart (G2).
//! - ACKs and CNPs travel back un-tunnelled: they are control packets in a
//!   strict-priority queue that no WRED block sees, so their ECN field is
//!   never read; the reverse tunnel's bytes are not modelled.
//! - Fast CNP (G6-G10): at a P node, a tunnelled data packet that the
//!   port's WRED/ECN block forwards marked CE is a candidate (never a
//!   dropped one, G9); traffic that is not RoCEv2 (the cross traffic) is
//!   counted unparsed (G8). The flow's slot is `fast_cnp::slot` of its
//!   inner addresses and DestQP, and `fast_cnp::LastSent` decides sent or
//!   suppressed with the time in the hardware's cycles. A sent one is a
//!   CNP that returns along the flow's reverse path (through the END.CON
//!   of the ingress PE, which the reverse path crosses) to the sender, in
//!   the control queues. The sender treats it as one CNP: LDCP, one
//!   ECN-Echo of one packet into its window engine (cw -= beta, G10);
//!   in fast start it is ignored (the fast-start marker reacts to drops).
//! - G10's two policies: `On` keeps the CE mark as well (the receiver
//!   echoes it: the sender hears of the congestion twice, counted);
//!   `Instead` leaves the packet unmarked when a Fast CNP is sent for it
//!   (and marks it when the limiter suppresses one, so no signal is lost).

use ldcp_sim::fast_cnp::{self, LastSent};
use ldcp_sim::tunnel_ecn::{self, Action, Flag, Mode};

/// Bytes an SRv6 encapsulation adds: an outer IPv6 header and an SRH of
/// one segment (`ldcp_sim::wire::srv6`'s layout).
pub const SRV6_OVERHEAD_BYTES: u32 =
    (ldcp_sim::wire::srv6::IPV6_HEADER_BYTES + ldcp_sim::wire::srv6::SRH_FIXED_BYTES + 16) as u32;

/// Whether and how the P nodes send Fast CNPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FastCnpMode {
    /// No Fast CNP: congestion reaches the sender through the receiver.
    Off,
    /// A Fast CNP and the CE mark (G10's default).
    On,
    /// A Fast CNP instead of the CE mark (G10's ablation).
    Instead,
}

/// The tunnel and the WAN nodes' behaviour.
#[derive(Clone, Debug)]
pub struct WanConfig {
    /// The ingress PE (node index): encapsulates.
    pub ingress: usize,
    /// The egress PE: decapsulates.
    pub egress: usize,
    /// The P routers between them (Fast CNP triggers).
    pub p_nodes: Vec<usize>,
    /// The tunnel's ECN mode (RFC 6040 §4.3).
    pub mode: Mode,
    /// A faulty node that sets CE on every Not-ECT outer header, if any.
    pub fault: Option<usize>,
    /// Fast CNP policy.
    pub fast_cnp: FastCnpMode,
    /// The Fast CNP limiter's per-flow interval, hardware cycles (24 bits).
    pub fast_cnp_interval_cycles: u32,
}

/// What the tunnel and the P nodes did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct WanStats {
    /// Packets encapsulated at the ingress PE.
    pub encapsulated: u64,
    /// Packets decapsulated and forwarded at the egress PE.
    pub decapsulated: u64,
    /// Dropped at the egress PE (a Not-ECT inner under a CE outer).
    pub egress_dropped: u64,
    /// Forwarded from a `(!!!)` cell (currently unused, always dangerous).
    pub egress_dangerous: u64,
    /// Forwarded from a `(!)` cell (currently unused, possibly dangerous).
    pub egress_unused: u64,
    /// Outer headers the faulty node set to CE.
    pub faulted: u64,
    /// Of those, packets delivered to a receiver (a fault must deliver
    /// none of the Not-ECT ones: the egress drops them).
    pub faulted_not_ect_delivered: u64,
    /// Fast CNP candidates (marked at a P node).
    pub fast_cnp_candidates: u64,
    /// Fast CNPs sent.
    pub fast_cnp_sent: u64,
    /// Candidates the limiter suppressed.
    pub fast_cnp_suppressed: u64,
    /// Candidates that are not RoCEv2 (G8: no Fast CNP, the mark stays).
    pub fast_cnp_unparsed: u64,
    /// Fast CNPs that reached their sender.
    pub fast_cnp_received: u64,
    /// Fast CNPs the sender's window engine acted on.
    pub fast_cnp_applied: u64,
    /// Packets a Fast CNP was sent for whose CE mark the receiver also
    /// echoed: one congestion heard twice (G10).
    pub double_signal: u64,
    /// Data packets of the responsive flows (not the cross traffic)
    /// delivered with CE (inner, after decapsulation).
    pub ce_delivered: u64,
}

/// The state of the WAN's behaviour in a run.
pub struct Wan {
    /// Its configuration.
    pub cfg: WanConfig,
    /// Its counters.
    pub stats: WanStats,
    /// One last-sent table per node (only P nodes' are used).
    limiters: Vec<Option<LastSent>>,
}

/// What the egress PE did with a packet.
pub enum Decap {
    /// Forward with this inner ECN.
    Forward(u8),
    /// Dropped.
    Drop,
}

impl Wan {
    /// The WAN of `cfg` in a network of `nodes` nodes.
    pub fn new(cfg: WanConfig, nodes: usize) -> Result<Self, String> {
        for (what, n) in [("ingress PE", cfg.ingress), ("egress PE", cfg.egress)]
            .into_iter()
            .chain(cfg.p_nodes.iter().map(|&p| ("P node", p)))
            .chain(cfg.fault.map(|f| ("faulty node", f)))
        {
            if n >= nodes {
                return Err(format!(
                    "the WAN's {what} is node {n}; the network has nodes 0..{nodes}"
                ));
            }
        }
        if cfg.fast_cnp_interval_cycles >= 1 << fast_cnp::INTERVAL_BITS {
            return Err(format!(
                "Fast CNP interval = {} cycles is out of range: it must be below 2^{}",
                cfg.fast_cnp_interval_cycles,
                fast_cnp::INTERVAL_BITS
            ));
        }
        let mut limiters = vec![None; nodes];
        for &p in &cfg.p_nodes {
            limiters[p] = Some(LastSent::new());
        }
        Ok(Wan {
            cfg,
            stats: WanStats::default(),
            limiters,
        })
    }

    /// The outer ECN field for an inner packet of codepoint `inner`.
    pub fn encapsulate(&mut self, inner: u8) -> u8 {
        self.stats.encapsulated += 1;
        tunnel_ecn::ingress(self.cfg.mode, inner)
    }

    /// The faulty node's rewrite of an outer field (at node `node`).
    pub fn fault(&mut self, node: usize, outer: u8) -> u8 {
        if self.cfg.fault == Some(node) && outer == tunnel_ecn::ecn::NOT_ECT {
            self.stats.faulted += 1;
            tunnel_ecn::ecn::CE
        } else {
            outer
        }
    }

    /// The egress PE's decision, counted.
    pub fn decapsulate(&mut self, inner: u8, outer: u8) -> Decap {
        let cell = tunnel_ecn::egress(inner, outer);
        match cell.action {
            Action::Drop => {
                self.stats.egress_dropped += 1;
                Decap::Drop
            }
            Action::Forward(e) => {
                self.stats.decapsulated += 1;
                match cell.flag {
                    Flag::Dangerous => self.stats.egress_dangerous += 1,
                    Flag::Unused => self.stats.egress_unused += 1,
                    Flag::None => {}
                }
                Decap::Forward(e)
            }
        }
    }

    /// Whether `node` triggers Fast CNPs.
    pub fn is_trigger(&self, node: usize) -> bool {
        self.cfg.fast_cnp != FastCnpMode::Off && self.limiters[node].is_some()
    }

    /// A candidate at P node `node` (its WRED/ECN block marked it): sent
    /// or suppressed by the node's table; `roce` false counts it unparsed.
    /// `src`, `dst` are the inner IPv4 addresses, `qp` the DestQP, `cycle`
    /// the hardware clock's count.
    pub fn offer(
        &mut self,
        node: usize,
        roce: bool,
        src: u32,
        dst: u32,
        qp: u32,
        cycle: u64,
    ) -> bool {
        self.stats.fast_cnp_candidates += 1;
        if !roce {
            self.stats.fast_cnp_unparsed += 1;
            return false;
        }
        let interval = self.cfg.fast_cnp_interval_cycles;
        let t = self.limiters[node].as_mut().expect("a P node");
        let slot = fast_cnp::slot(src as u128, dst as u128, qp);
        let stamp = (cycle & ((1 << fast_cnp::TIME_BITS) - 1)) as u32;
        if t.offer(slot, stamp, interval) {
            self.stats.fast_cnp_sent += 1;
            true
        } else {
            self.stats.fast_cnp_suppressed += 1;
            false
        }
    }
}

/// A host's IPv4 address in the simulator: 10.0.0.0/16 by node index.
pub fn host_ipv4(h: u32) -> u32 {
    0x0a00_0000 | (h & 0xffff)
}

/// A flow's DestQP in the simulator (the receiver's QPN; G7).
pub fn dest_qp(flow: u32) -> u32 {
    0x100 + (flow & 0xff_feff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::tunnel_ecn::ecn::*;

    fn cfg(mode: Mode, fast: FastCnpMode, interval: u32) -> WanConfig {
        WanConfig {
            ingress: 1,
            egress: 4,
            p_nodes: vec![2, 3],
            mode,
            fault: Some(2),
            fast_cnp: fast,
            fast_cnp_interval_cycles: interval,
        }
    }

    #[test]
    fn the_tunnel_follows_rfc_6040_and_counts() {
        let mut w = Wan::new(cfg(Mode::Normal, FastCnpMode::Off, 0), 6).unwrap();
        assert_eq!(w.encapsulate(ECT0), ECT0);
        let mut c = Wan::new(cfg(Mode::Compatibility, FastCnpMode::Off, 0), 6).unwrap();
        assert_eq!(c.encapsulate(ECT0), NOT_ECT);
        // the faulty node sets CE only on Not-ECT outers, only where it is
        assert_eq!(w.fault(2, NOT_ECT), CE);
        assert_eq!(w.fault(3, NOT_ECT), NOT_ECT);
        assert_eq!(w.fault(2, ECT0), ECT0);
        assert_eq!(w.stats.faulted, 1);
        assert!(matches!(w.decapsulate(NOT_ECT, CE), Decap::Drop));
        assert!(matches!(w.decapsulate(ECT0, CE), Decap::Forward(CE)));
        assert!(matches!(
            w.decapsulate(NOT_ECT, ECT0),
            Decap::Forward(NOT_ECT)
        ));
        assert!(matches!(w.decapsulate(ECT1, ECT0), Decap::Forward(ECT1)));
        assert_eq!(
            (
                w.stats.egress_dropped,
                w.stats.decapsulated,
                w.stats.egress_dangerous,
                w.stats.egress_unused
            ),
            (1, 3, 1, 1)
        );
    }

    #[test]
    fn the_limiter_sends_once_per_interval_per_flow() {
        let mut w = Wan::new(cfg(Mode::Normal, FastCnpMode::On, 5_000), 6).unwrap();
        assert!(w.is_trigger(2) && !w.is_trigger(1));
        let (s, d) = (host_ipv4(0), host_ipv4(9));
        assert!(w.offer(2, true, s, d, dest_qp(0), 100));
        assert!(!w.offer(2, true, s, d, dest_qp(0), 5_099));
        assert!(w.offer(2, true, s, d, dest_qp(0), 5_100));
        // the other P node has its own table
        assert!(w.offer(3, true, s, d, dest_qp(0), 5_101));
        // not RoCEv2: counted unparsed, never sent
        assert!(!w.offer(2, false, s, d, dest_qp(0), 20_000));
        let st = &w.stats;
        assert_eq!(
            (
                st.fast_cnp_candidates,
                st.fast_cnp_sent,
                st.fast_cnp_suppressed,
                st.fast_cnp_unparsed
            ),
            (5, 3, 1, 1)
        );
        let off = Wan::new(cfg(Mode::Normal, FastCnpMode::Off, 0), 6).unwrap();
        assert!(!off.is_trigger(2));
    }

    #[test]
    fn bad_nodes_and_intervals_are_refused() {
        let e = Wan::new(cfg(Mode::Normal, FastCnpMode::On, 0), 4)
            .err()
            .unwrap();
        assert!(
            e.contains("egress PE is node 4") && e.contains("0..4"),
            "{e}"
        );
        let e = Wan::new(cfg(Mode::Normal, FastCnpMode::On, 1 << 24), 6)
            .err()
            .unwrap();
        assert!(e.contains("16777216") && e.contains("2^24"), "{e}");
    }
}
