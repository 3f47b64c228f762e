//! The Sim side of hop-by-hop flow control (`crate::flowctl`): pauses,
//! ARN halts and their release, and what is queued beside the ports.

use super::*;

impl Sim {
    /// A data packet admitted at the switch that port `p` reaches, for its
    /// egress port `out`: counted against `p` (ingress accounting) and its
    /// key; into a side queue if `out` has its key halted (returns true).
    pub(super) fn fc_arrive(&mut self, p: u32, out: u32, pkt: &mut Pkt) -> bool {
        let fc = self.fc.as_mut().expect("flow control");
        let service = self.flows[pkt.flow as usize].service;
        let key = fc.key(pkt.flow, service);
        let b = pkt.bytes as u64;
        let node = self.ports[p as usize].to as usize;
        pkt.from_port = p;
        fc.ing[p as usize] += b;
        *fc.ing_key.entry((p, key)).or_insert(0) += b;
        fc.node_bytes[node] += b;
        let peak = &mut fc.stats.peak_node_bytes[node];
        *peak = (*peak).max(fc.node_bytes[node]);
        let halted = self.ports[out as usize]
            .halts
            .iter_mut()
            .find(|h| h.key == key);
        let side = if let Some(h) = halted {
            h.queue.push_back(*pkt);
            fc.stats.side_queued_pkts += 1;
            true
        } else {
            false
        };
        self.fc_check(p);
        side
    }

    /// A data packet leaves its switch (its serialization starts).
    pub(super) fn fc_depart(&mut self, pkt: &Pkt) {
        let fc = self.fc.as_mut().expect("flow control");
        let p = pkt.from_port;
        let key = fc.key(pkt.flow, self.flows[pkt.flow as usize].service);
        let b = pkt.bytes as u64;
        let node = self.ports[p as usize].to as usize;
        fc.ing[p as usize] -= b;
        if let Some(k) = fc.ing_key.get_mut(&(p, key)) {
            *k -= b;
        }
        fc.node_bytes[node] -= b;
        self.fc_check(p);
    }

    /// XOFF and XON on arrival port `p` of its node.
    pub(super) fn fc_check(&mut self, p: u32) {
        use crate::flowctl::FcMode;
        let fc = self.fc.as_mut().expect("flow control");
        let up = self.ports[p as usize].from as usize;
        let ing = fc.ing[p as usize];
        let arn = matches!(fc.cfg.mode, FcMode::Arn(_)) && fc.cfg.arn_nodes[up];
        let time = fc.cfg.time_us;
        let mut send: Vec<(Kind, u32)> = Vec::new();
        let mut refresh = None;
        if ing > fc.cfg.xoff_bytes {
            if arn {
                let a = &mut fc.asserted[p as usize];
                if !a.refresh_pending {
                    // newly above XOFF: every key named before is named
                    // again (its halt may have expired upstream)
                    a.refresh_pending = true;
                    refresh = Some(self.now + time as u64 * 500_000);
                    let keys = a.keys.clone();
                    for k in keys {
                        send.push((Kind::Arn, Self::arn_bytes(fc, p, k, time)));
                    }
                }
                if let Some(k) = fc.largest_key(p) {
                    if !fc.asserted[p as usize].keys.contains(&k) {
                        fc.asserted[p as usize].keys.push(k);
                        send.push((Kind::Arn, Self::arn_bytes(fc, p, k, time)));
                    }
                }
            } else if !fc.asserted[p as usize].pfc {
                fc.asserted[p as usize].pfc = true;
                fc.stats.pause_sent += 1;
                send.push((Kind::Pause, 1));
            }
        } else if ing < fc.cfg.xon_bytes {
            let a = &mut fc.asserted[p as usize];
            if a.pfc {
                a.pfc = false;
                fc.stats.resume_sent += 1;
                send.push((Kind::Pause, 0));
            }
            let keys = std::mem::take(&mut fc.asserted[p as usize].keys);
            for k in keys {
                send.push((Kind::Arn, Self::arn_bytes(fc, p, k, 0)));
            }
        }
        if let Some(t) = refresh {
            self.at(t, Ev::ArnRefresh(p));
        }
        for (kind, psn) in send {
            self.send_upstream(p, kind, psn);
        }
    }

    /// An ARN for `key` with `time` from the node port `p` reaches, as
    /// bytes kept for its receiver; counted. Returns the bytes' index.
    pub(super) fn arn_bytes(
        fc: &mut crate::flowctl::FlowControl,
        p: u32,
        key: u64,
        time: u32,
    ) -> u32 {
        let metric = ldcp_sim::wire::arn::metric(fc.ing[p as usize], 2 * fc.cfg.xoff_bytes);
        let b = fc.encode(key, time, metric);
        if time == 0 {
            fc.stats.arn_resume_sent += 1;
        } else {
            fc.stats.arn_halt_sent += 1;
        }
        fc.arn_wire.push(b);
        (fc.arn_wire.len() - 1) as u32
    }

    /// A control frame back over arrival port `p` to its upstream node.
    pub(super) fn send_upstream(&mut self, p: u32, kind: Kind, psn: u32) {
        let back = self.ports[p as usize].peer;
        let pkt = Pkt::control(u32::MAX, kind, psn, self.cfg.ack_bytes, 0);
        self.push_ctrl(back, pkt);
    }

    /// A control packet into port `p`'s priority queue.
    pub(crate) fn push_ctrl(&mut self, p: u32, pkt: Pkt) {
        self.ports[p as usize].ctrl.push_back(pkt);
        self.start_tx(p);
    }

    /// A PFC frame that came over port `p`: its node's port back (`p`'s
    /// peer) stops or resumes data.
    pub(super) fn receive_pause(&mut self, p: u32, on: bool) {
        let t = self.ports[p as usize].peer;
        let now = self.now;
        let host = (self.ports[t as usize].from as usize) < self.topo.hosts;
        let port = &mut self.ports[t as usize];
        match (on, port.paused_since) {
            (true, None) => port.paused_since = Some(now),
            (false, Some(since)) => {
                port.paused_since = None;
                if let Some(fc) = self.fc.as_mut() {
                    fc.stats.paused_ps += now - since;
                    if host {
                        fc.stats.host_paused_ps += now - since;
                    }
                }
                self.start_tx(t);
            }
            _ => {}
        }
    }

    /// An ARN that came over port `p` (its bytes at `idx`): halt or release
    /// its key on the port back.
    pub(super) fn receive_arn(&mut self, p: u32, idx: u32) {
        let t = self.ports[p as usize].peer;
        let now = self.now;
        let fc = self.fc.as_ref().expect("flow control");
        let (key, time) = fc
            .decode(&fc.arn_wire[idx as usize])
            .expect("the simulator's ARNs parse");
        if time == 0 {
            self.release(t, key);
            return;
        }
        let until = now + time as u64 * 1_000_000;
        let port = &mut self.ports[t as usize];
        match port.halts.iter_mut().find(|h| h.key == key) {
            Some(h) => h.until = h.until.max(until),
            None => port.halts.push(crate::flowctl::Halt {
                key,
                until,
                since: now,
                queue: VecDeque::new(),
            }),
        }
        self.at(until, Ev::HaltExpire(t));
    }

    pub(super) fn halt_expire(&mut self, t: u32) {
        let now = self.now;
        let due: Vec<u64> = self.ports[t as usize]
            .halts
            .iter()
            .filter(|h| h.until <= now)
            .map(|h| h.key)
            .collect();
        for k in due {
            self.release(t, k);
        }
    }

    /// Ends the halt of `key` on port `t`: its side queue joins the port's
    /// data queue, in order.
    pub(super) fn release(&mut self, t: u32, key: u64) {
        let now = self.now;
        let port = &mut self.ports[t as usize];
        let Some(i) = port.halts.iter().position(|h| h.key == key) else {
            return;
        };
        let h = port.halts.swap_remove(i);
        for pkt in h.queue {
            port.data_bytes += pkt.bytes as u64;
            port.data.push_back(pkt);
        }
        if let Some(fc) = self.fc.as_mut() {
            fc.stats.halted_ps += now - h.since;
        }
        self.start_tx(t);
    }

    /// ARN's re-send at Time/2 while arrival port `p` is above XOFF.
    pub(super) fn arn_refresh(&mut self, p: u32) {
        let fc = self.fc.as_mut().expect("flow control");
        fc.asserted[p as usize].refresh_pending = false;
        if fc.ing[p as usize] > fc.cfg.xoff_bytes {
            // above XOFF still: fc_check names every key again
            self.fc_check(p);
        }
    }

    /// Closes the pause and halt times still open at the end of a run.
    pub fn fc_finish(&mut self) {
        let now = self.now;
        let hosts = self.topo.hosts;
        let Some(fc) = self.fc.as_mut() else {
            return;
        };
        for port in &mut self.ports {
            if let Some(since) = port.paused_since {
                fc.stats.paused_ps += now - since;
                if (port.from as usize) < hosts {
                    fc.stats.host_paused_ps += now - since;
                }
                port.paused_since = Some(now);
            }
            for h in &mut port.halts {
                fc.stats.halted_ps += now - h.since;
                h.since = now;
            }
        }
    }

    /// Halts still open on any port (ARN).
    pub fn halts_open(&self) -> usize {
        self.ports.iter().map(|p| p.halts.len()).sum()
    }

    /// Data packets waiting in side queues.
    pub fn side_queued(&self) -> u64 {
        self.ports
            .iter()
            .flat_map(|p| p.halts.iter())
            .map(|h| h.queue.len() as u64)
            .sum()
    }

    // ---------------------------------------------------------------- end
}
