//! The links: a port serializes one packet at a time, carries it over its
//! pipe and hands it to the next node, where a switch admits it to an egress
//! port (WRED/ECN, tunnel ECN, Fast CNP) or a host receives it.

use super::*;

impl Sim {
    pub(super) fn start_tx(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.sending.is_some() {
            return;
        }
        let paused = port.paused_since.is_some();
        let mut dequeued = false;
        let pkt = if let Some(c) = port.ctrl.pop_front() {
            Some(c)
        } else if paused {
            None
        } else if let Some(d) = port.data.pop_front() {
            port.data_bytes -= d.bytes as u64;
            dequeued = true;
            Some(d)
        } else {
            None
        };
        if let Some(pkt) = pkt {
            let t = self.now + ser_ps(port, pkt.bytes);
            port.sending = Some(pkt);
            self.at(t, Ev::TxDone(p));
            if pkt.kind == Kind::Data && pkt.from_port != u32::MAX && self.fc.is_some() {
                self.fc_depart(&pkt);
            }
            if dequeued
                && self
                    .coord
                    .as_ref()
                    .is_some_and(|c| c.notifiers.contains_key(&p))
            {
                self.coord_dequeued(p);
            }
        } else if (port.from as usize) < self.topo.hosts && !paused {
            let h = port.from;
            self.host_pull(h);
        }
    }

    pub(super) fn tx_done(&mut self, p: u32) {
        let pkt = self.ports[p as usize]
            .sending
            .take()
            .expect("a packet in serialization");
        self.stats.link_tx += 1;
        let port = &mut self.ports[p as usize];
        if pkt.kind == Kind::Data {
            port.tx_data_bytes += pkt.bytes as u64;
            if let Some(w) = port.wred.as_mut() {
                w.drain += pkt.bytes as u64;
            }
        }
        let arrive = self.now + port.delay_ps;
        port.pipe.push_back((arrive, pkt));
        let first = port.pipe.len() == 1;
        if first {
            self.at(arrive, Ev::Arrive(p));
        }
        self.start_tx(p);
    }

    pub(super) fn arrive(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let (_, mut pkt) = port.pipe.pop_front().expect("a packet in the pipe");
        let next = port.pipe.front().map(|x| x.0);
        let node = port.to as usize;
        if let Some(t) = next {
            self.at(t, Ev::Arrive(p));
        }
        match pkt.kind {
            Kind::Pause => return self.receive_pause(p, pkt.psn == 1),
            Kind::Arn => return self.receive_arn(p, pkt.psn),
            Kind::Notify if pkt.psn as usize == node => {
                return self.receive_notify(node, pkt);
            }
            _ => {}
        }
        if node < self.topo.hosts {
            match pkt.kind {
                Kind::Data => self.receive_data(pkt),
                Kind::Ack | Kind::Nak => self.receive_ack(pkt),
                Kind::Cnp => self.receive_cnp(pkt.flow),
                Kind::FastCnp => self.receive_fast_cnp(pkt.flow),
                // taken above, at any node (a notification reaches only
                // the node it is for)
                Kind::Pause | Kind::Arn | Kind::Notify => {}
            }
            return;
        }
        // a switch: draft 002's decision (which may move the packet to
        // another path), then the next hop of the packet's path
        let mark_allowed = if pkt.kind == Kind::Data && self.coord.is_some() {
            self.coord_switch(node, &mut pkt)
        } else {
            true
        };
        let arrived_hop = pkt.hop;
        let out = if pkt.kind == Kind::Data {
            self.path_fwd(pkt.flow, pkt.path)[pkt.hop as usize]
        } else {
            self.path_rev(pkt.flow, pkt.path)[pkt.hop as usize]
        };
        pkt.hop += 1;
        if pkt.kind != Kind::Data {
            self.ports[out as usize].ctrl.push_back(pkt);
            self.start_tx(out);
            return;
        }
        if self.wan.is_some() && !self.tunnel(node, &mut pkt) {
            return;
        }
        let port = &mut self.ports[out as usize];
        let w = port
            .wred
            .as_mut()
            .expect("a switch port has its WRED block");
        while w.drain > 0 {
            let d = w.drain.min(ldcp_sim::wred_ecn::DRAIN_MAX as u64);
            w.drain -= d;
            w.hw.step(None, d as u32);
        }
        // a P node sees only the outer header
        let seen = pkt.outer.unwrap_or(pkt.ecn);
        let (decision, ecn) =
            w.hw.step(Some((pkt.bytes, seen)), 0)
                .expect("a packet step has a decision");
        let occ = w.hw.occupancy_bytes() as u64;
        port.max_queue_bytes = port.max_queue_bytes.max(occ);
        if let Some(l) = self.wred_log.as_mut() {
            l.push((self.now, out, pkt.flow, pkt.psn, decision as u8, ecn));
        }
        use ldcp_sim::wred_ecn::Decision::*;
        match decision {
            Forward | ForwardMarked => {
                let mut ecn = ecn;
                if decision == ForwardMarked && !mark_allowed {
                    // draft 002: someone can re-route this packet, so no
                    // congestion control (C9); the block's occupancy
                    // already counts it
                    ecn = seen;
                    if let Some(c) = self.coord.as_mut() {
                        c.stats.marks_withheld += 1;
                    }
                } else if decision == ForwardMarked {
                    self.stats.marked += 1;
                    port.marked += 1;
                    let cbr = matches!(self.flows[pkt.flow as usize].cc, FlowCc::Cbr { .. });
                    if out == self.probe.port && !cbr && self.probe.first_mark_ps.is_none() {
                        first(&mut self.probe.first_mark_ps, self.now, self.probe.from_ps);
                        self.probe.mark_queue_bytes = occ;
                    }
                    if self.fast_cnp(node, arrived_hop, &mut pkt) {
                        // G10's ablation: notified instead of marked
                        ecn = seen;
                    }
                    if self.coord.is_some() {
                        pkt.light_mark = self.light_path_exists(pkt.flow, out);
                    }
                }
                match pkt.outer.as_mut() {
                    Some(o) => *o = ecn,
                    None => pkt.ecn = ecn,
                }
                if self.fc.is_some() && self.fc_arrive(p, out, &mut pkt) {
                    return; // it waits in a side queue
                }
                let port = &mut self.ports[out as usize];
                port.data_bytes += pkt.bytes as u64;
                port.data.push_back(pkt);
                self.start_tx(out);
            }
            DropWred | DropOverflow => {
                port.dropped += 1;
                if pkt.ecn != ldcp_sim::wred_ecn::ecn::NOT_ECT {
                    port.dropped_inner_ect += 1;
                }
                let why = if decision == DropWred {
                    DropReason::Wred
                } else {
                    DropReason::Overflow
                };
                self.stats.drop(seen, why);
            }
        }
    }

    /// Draft 001's tunnel at node `node` for a data packet: encapsulation
    /// at the ingress PE, the faulty node's rewrite, decapsulation at the
    /// egress PE. Returns false when the packet is dropped (counted).
    pub(super) fn tunnel(&mut self, node: usize, pkt: &mut Pkt) -> bool {
        use crate::wan::{Decap, SRV6_OVERHEAD_BYTES};
        let w = self.wan.as_mut().expect("a WAN");
        if node == w.cfg.ingress && pkt.outer.is_none() {
            pkt.outer = Some(w.encapsulate(pkt.ecn));
            pkt.bytes += SRV6_OVERHEAD_BYTES;
        }
        if let Some(o) = pkt.outer {
            let n = w.fault(node, o);
            pkt.faulted |= n != o;
            pkt.outer = Some(n);
        }
        if node == w.cfg.egress {
            if let Some(o) = pkt.outer.take() {
                pkt.bytes -= SRV6_OVERHEAD_BYTES;
                match w.decapsulate(pkt.ecn, o) {
                    Decap::Forward(e) => pkt.ecn = e,
                    Decap::Drop => {
                        self.stats.drop(pkt.ecn, DropReason::TunnelEgress);
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A data packet marked CE at node `node`, which it reached over its
    /// route's port `arrived_hop - 1`: a Fast CNP candidate if the node is
    /// a trigger. Returns true when the mark is to be undone (a Fast CNP
    /// was sent in the `Instead` policy).
    pub(super) fn fast_cnp(&mut self, node: usize, arrived_hop: u8, pkt: &mut Pkt) -> bool {
        use crate::wan::{dest_qp, host_ipv4, FastCnpMode};
        let Some(w) = self.wan.as_mut() else {
            return false;
        };
        if !w.is_trigger(node) {
            return false;
        }
        let fl = &self.flows[pkt.flow as usize];
        debug_assert_eq!(pkt.path, 0, "a WAN run does not re-route");
        let roce = pkt.outer.is_some() && !matches!(fl.cc, FlowCc::Cbr { .. });
        let cycle = self.now / self.cycle_ps;
        if !w.offer(
            node,
            roce,
            host_ipv4(fl.src),
            host_ipv4(fl.dst),
            dest_qp(pkt.flow),
            cycle,
        ) {
            return false;
        }
        pkt.fcnp = true;
        let instead = w.cfg.fast_cnp == FastCnpMode::Instead;
        // back along the reverse route from this node (G6: to END.CON, whose
        // decapsulation forwards the inner CNP to the sender on that route)
        let r0 = fl.rev.len() - arrived_hop as usize;
        let p = fl.rev[r0];
        let cnp = Pkt {
            ece: true,
            ..Pkt::control(pkt.flow, Kind::FastCnp, 0, self.cfg.ack_bytes, r0 as u8 + 1)
        };
        self.push_ctrl(p, cnp);
        instead
    }

    pub(super) fn sample(&mut self) {
        let t = self.now;
        for i in 0..self.stats.watches.len() {
            let p = self.stats.watches[i].port as usize;
            let port = &self.ports[p];
            let q = port.data_bytes
                + port
                    .sending
                    .filter(|s| s.kind == Kind::Data)
                    .map_or(0, |s| s.bytes as u64);
            let tx = port.tx_data_bytes;
            self.stats.watches[i].sample(t, q, tx);
        }
        if let Some(c) = self.coord.as_mut() {
            for (k, &f) in c.tracked.iter().enumerate() {
                c.progress[k].push((t, self.flows[f as usize].una));
            }
        }
        let nt = t + self.cfg.sample_ps;
        if nt <= self.sample_until && !self.all_done() {
            self.at(nt, Ev::Sample);
        }
    }
}
