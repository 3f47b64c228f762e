//! The Sim side of draft 002's coordinated congestion management
//! (`crate::coord` holds its state and rules): turning the scheme on, the
//! switches' AR decisions on data packets, notifications sent and applied,
//! and the receiver's accounting.

use super::{Ev, Kind, Pkt, Sim};
use crate::coord::*;
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
            self.at(now + t_release, Ev::NotifyCheck(p));
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
            self.at(since + t_release, Ev::NotifyCheck(p));
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
