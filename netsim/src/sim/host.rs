//! The hosts and their flows: starting a flow, the NIC's send loop (the
//! window, the pacing grant), the receiver's ACKs, the sender's reaction to
//! ACKs, NAKs, CNPs and timeouts through the congestion control, and the
//! hardware congestion engine's events.

use super::*;

impl Sim {
    pub(super) fn all_done(&self) -> bool {
        self.stats.flows_done as usize == self.flows.len()
    }

    // ---------------------------------------------------------------- hosts

    pub(super) fn flow_start(&mut self, f: u32) {
        let h = self.flows[f as usize].src as usize;
        match self.hosts[h].free_slots.pop_front() {
            Some(s) => self.activate(f, s),
            None => {
                self.stats.slot_waits += 1;
                self.hosts[h].waiting.push_back(f)
            }
        }
    }

    pub(super) fn activate(&mut self, f: u32, slot: u32) {
        let cc_kind = self.cfg.cc;
        let rate =
            self.ports[self.hosts[self.flows[f as usize].src as usize].port as usize].rate_bps;
        let fl = &mut self.flows[f as usize];
        let h = fl.src as usize;
        fl.slot = slot;
        fl.started = true;
        fl.fs = FsFlow::default();
        fl.cc = if fl.cbr_gap_ps > 0 {
            FlowCc::Cbr {
                gap_ps: fl.cbr_gap_ps,
                next_send_ps: self.now,
            }
        } else {
            cc::init(cc_kind, &self.cfg, rate as f64)
        };
        self.hosts[h].slot_flow[slot as usize] = f;
        self.hosts[h].active.push_back(f);
        self.arm_rto(f);
        self.kick(h as u32);
    }

    pub(super) fn kick(&mut self, h: u32) {
        let p = self.hosts[h as usize].port;
        if self.ports[p as usize].sending.is_none() {
            self.start_tx(p);
        }
    }

    /// The NIC's link is free and its control queue empty: the next data
    /// packet, round robin over the flows allowed to send.
    pub(super) fn host_pull(&mut self, h: u32) {
        let hi = h as usize;
        let n = self.hosts[hi].active.len();
        let mut earliest = u64::MAX;
        for _ in 0..n {
            let f = self.hosts[hi].active.pop_front().expect("n entries");
            let fl = &self.flows[f as usize];
            if fl.finish_ps.is_some() {
                continue; // done: leaves the list
            }
            if fl.nxt >= fl.size_pkts {
                // everything sent once: stays out until a go-back-N
                continue;
            }
            match self.may_send(f) {
                Ok(()) => {
                    self.hosts[hi].active.push_back(f);
                    self.send_data(f);
                    return;
                }
                Err(t) => {
                    earliest = earliest.min(t);
                    self.hosts[hi].active.push_back(f);
                }
            }
        }
        if earliest != u64::MAX && earliest < self.hosts[hi].wake_at {
            self.hosts[hi].wake_at = earliest;
            self.at(earliest, Ev::Wake(h));
        }
    }

    /// Ok if flow `f` may send a packet now, else the time it may (u64::MAX:
    /// when an ACK or a grant comes).
    pub(super) fn may_send(&mut self, f: u32) -> Result<(), u64> {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let inflight = fl.nxt - fl.una;
        match &fl.cc {
            FlowCc::None => match fl.fs.stage {
                Stage::Idle => Ok(()),
                Stage::FastStart => {
                    if inflight < fl.fs.fs_len as u64 {
                        Ok(())
                    } else {
                        Err(u64::MAX)
                    }
                }
                Stage::Stable => {
                    if fl.awaiting_set {
                        // the window is the engine's answer to the fast-start SET
                        Err(u64::MAX)
                    } else if fl.cw_raw >= CW_ONE {
                        if (inflight + 1) * CW_ONE as u64 <= fl.cw_raw as u64 {
                            Ok(())
                        } else {
                            Err(u64::MAX)
                        }
                    } else if fl.credit {
                        fl.credit = false;
                        Ok(())
                    } else {
                        Err(u64::MAX)
                    }
                }
            },
            FlowCc::Dctcp(d) => {
                if (inflight as f64) < d.cwnd.floor().max(1.0) {
                    Ok(())
                } else {
                    Err(u64::MAX)
                }
            }
            FlowCc::Dcqcn(d) => {
                if now >= d.next_send_ps {
                    Ok(())
                } else {
                    Err(d.next_send_ps)
                }
            }
            FlowCc::Cbr { next_send_ps, .. } => {
                if now >= *next_send_ps {
                    Ok(())
                } else {
                    Err(*next_send_ps)
                }
            }
        }
    }

    pub(super) fn send_data(&mut self, f: u32) {
        let bytes = self.cfg.packet_bytes();
        let iw = self.cfg.iw_pkts;
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let idx = fl.nxt;
        let psn = (idx & fs::PSN_MASK as u64) as u32;
        let last = fl.size_pkts != u64::MAX && idx + 1 == fl.size_pkts;
        let ecn = match fl.cc {
            FlowCc::None => {
                // the fast-start marker rewrites an IPv4 header's ECN field
                fl.fs.tx(psn, last, 0x4500, 0, iw).ecn
            }
            _ => ldcp_sim::wred_ecn::ecn::ECT0,
        };
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            let gap = (bytes as f64 * 8.0 / d.rate_bps * 1e12) as u64;
            d.next_send_ps = now.max(d.next_send_ps) + gap;
        }
        if let FlowCc::Cbr {
            gap_ps,
            next_send_ps,
        } = &mut fl.cc
        {
            *next_send_ps = now.max(*next_send_ps) + *gap_ps;
        }
        if idx < fl.max_sent {
            fl.retx_pkts += 1;
        }
        fl.nxt += 1;
        fl.max_sent = fl.max_sent.max(fl.nxt);
        fl.sent_pkts += 1;
        self.stats.data_sent += 1;
        if ecn == ldcp_sim::wred_ecn::ecn::NOT_ECT {
            self.stats.not_ect_sent += 1;
        }
        let pkt = Pkt {
            flow: f,
            kind: Kind::Data,
            psn,
            bytes,
            ecn,
            last,
            ece: false,
            n: 0,
            hop: 1,
            outer: None,
            fcnp: false,
            faulted: false,
            from_port: u32::MAX,
            t_sent: now,
            path: 0,
            cc: false,
            ar: crate::packet::AR_NONE,
            light_mark: false,
        };
        let pkt = self.coord_tag(pkt);
        let p = self.flows[f as usize].fwd[0];
        let port = &mut self.ports[p as usize];
        port.sending = Some(pkt);
        let t = now + ser_ps(port, bytes);
        self.at(t, Ev::TxDone(p));
    }

    pub(super) fn receive_data(&mut self, pkt: Pkt) {
        let f = pkt.flow as usize;
        let now_cycle = (self.now / self.cycle_ps) as u32 & ag::T_MASK;
        let m = self.cfg.ack_m;
        let fl = &mut self.flows[f];
        self.stats.data_delivered += 1;
        let ce = pkt.ecn == ldcp_sim::wred_ecn::ecn::CE;
        let held_before = fl.ack.pending;
        let out = fl.ack.packet(pkt.flow, pkt.psn, ce, pkt.last, m, now_cycle);
        // go-back-N: a packet behind a gap (NAKed or a repeat) or a duplicate
        let discarded = out.err != 0 || out.first.is_some_and(|a| a.nak);
        if discarded {
            self.stats.drop(pkt.ecn, DropReason::Receiver);
        } else {
            self.stats.goodput_pkts += 1;
        }
        if let Some(c) = self.coord.as_mut() {
            c.delivered(&pkt, ce && !discarded);
        }
        if let Some(l) = self.latency.as_mut().filter(|_| !discarded) {
            l[f].push((pkt.t_sent, self.now - pkt.t_sent));
        }
        let fl = &mut self.flows[f];
        let cbr = matches!(fl.cc, FlowCc::Cbr { .. });
        if let Some(w) = self.wan.as_mut() {
            let s = &mut w.stats;
            s.ce_delivered += (ce && !cbr) as u64;
            s.double_signal += (ce && pkt.fcnp && !discarded) as u64;
            s.faulted_not_ect_delivered +=
                (pkt.faulted && pkt.ecn == ldcp_sim::wred_ecn::ecn::NOT_ECT) as u64;
        }
        // DCQCN's notification point: a CE mark on a discarded packet is not
        // echoed by an ACK, so it becomes a CNP, at most one per flow per
        // 50 us (DCQCN's N)
        let now = self.now;
        if discarded
            && ce
            && self.cfg.cc == Cc::Dcqcn
            && fl.last_cnp_ps.is_none_or(|t| now >= t + CNP_INTERVAL_PS)
        {
            fl.last_cnp_ps = Some(now);
            let p = fl.rev[0];
            self.stats.cnps_sent += 1;
            let cnp = Pkt {
                ece: true,
                ..Pkt::control(pkt.flow, Kind::Cnp, 0, self.cfg.ack_bytes, 1)
            };
            self.push_ctrl(p, cnp);
        }
        let fl = &mut self.flows[f];
        let start_timer = held_before == 0 && fl.ack.pending > 0 && !fl.ack_timer_pending;
        for a in [out.first, out.second].into_iter().flatten() {
            self.send_ack(pkt.flow, a);
        }
        if start_timer {
            self.flows[f].ack_timer_pending = true;
            let t = self.now + self.cfg.ack_timeout_cycles as u64 * self.cycle_ps;
            self.at(t, Ev::AckTimer(pkt.flow));
        }
    }

    pub(super) fn ack_timer(&mut self, f: u32) {
        let now_cycle = (self.now / self.cycle_ps) as u32 & ag::T_MASK;
        let timeout = self.cfg.ack_timeout_cycles;
        let fl = &mut self.flows[f as usize];
        fl.ack_timer_pending = false;
        if let Some(a) = fl.ack.flush(f, timeout, now_cycle) {
            self.send_ack(f, a);
        } else if fl.ack.pending > 0 {
            let left = timeout.saturating_sub(fl.ack.age(now_cycle)).max(1);
            fl.ack_timer_pending = true;
            let t = self.now + left as u64 * self.cycle_ps;
            self.at(t, Ev::AckTimer(f));
        }
    }

    pub(super) fn send_ack(&mut self, f: u32, a: ag::Ack) {
        let kind = if a.nak { Kind::Nak } else { Kind::Ack };
        let pkt = Pkt {
            ece: a.ece,
            n: a.n as u8,
            ..Pkt::control(f, kind, a.psn, self.cfg.ack_bytes, 1)
        };
        self.stats.acks_sent += 1;
        let p = self.flows[f as usize].rev[0];
        self.push_ctrl(p, pkt);
    }

    /// A cumulative PSN (24 bits) as a packet index, relative to `una`.
    pub(super) fn unwrap_psn(una: u64, psn: u32) -> u64 {
        let d = (psn.wrapping_sub(una as u32) & fs::PSN_MASK) as u64;
        una + d
    }

    /// A Fast CNP at its sender (G10: one CNP; LDCP, one ECN-Echo of one
    /// packet into the window engine, cw -= beta).
    pub(super) fn receive_fast_cnp(&mut self, f: u32) {
        let now = self.now;
        let fi = f as usize;
        if matches!(self.flows[fi].cc, FlowCc::Cbr { .. }) {
            return;
        }
        if let Some(w) = self.wan.as_mut() {
            w.stats.fast_cnp_received += 1;
        }
        first(&mut self.probe.first_fast_cnp_ps, now, self.probe.from_ps);
        let fl = &self.flows[fi];
        if fl.finish_ps.is_some() || !fl.started {
            return;
        }
        match fl.cc {
            FlowCc::None => {
                // in fast start the marker reacts to drops; a SET in flight
                // would overwrite the cut
                if fl.fs.stage == Stage::Stable && !fl.awaiting_set {
                    let ev = EngineEvent::Ack {
                        flow: fl.slot,
                        ece: true,
                        n: 1,
                    };
                    let h = fl.src;
                    if let Some(w) = self.wan.as_mut() {
                        w.stats.fast_cnp_applied += 1;
                    }
                    self.engine_push(h, ev);
                }
            }
            _ => {
                if let Some(w) = self.wan.as_mut() {
                    w.stats.fast_cnp_applied += 1;
                }
                self.receive_cnp(f)
            }
        }
    }

    pub(super) fn receive_cnp(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.finish_ps.is_some() {
            return;
        }
        let (una, nxt) = (fl.una, fl.nxt);
        cc::on_ack(&mut fl.cc, &self.cfg, now, true, 0, una, nxt, false);
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            if d.decrease_cnp && !d.check_pending {
                d.check_pending = true;
                let t = d.next_check(now, &self.cfg.dcqcn);
                self.at(t, Ev::DecreaseCheck(f));
            }
        }
    }

    pub(super) fn receive_ack(&mut self, pkt: Pkt) {
        let f = pkt.flow;
        let fi = f as usize;
        if self.flows[fi].finish_ps.is_some() || !self.flows[fi].started {
            return;
        }
        let iw = self.cfg.iw_pkts;
        let now = self.now;
        let nak = pkt.kind == Kind::Nak;
        let cbr = matches!(self.flows[fi].cc, FlowCc::Cbr { .. });
        if pkt.ece && !cbr {
            first(&mut self.probe.first_ece_ps, now, self.probe.from_ps);
        }
        if !cbr && self.coord.is_some() && pkt.kind == Kind::Ack {
            self.coord_ack(f, pkt.ece);
        }
        let e = Self::unwrap_psn(self.flows[fi].una, pkt.psn).min(self.flows[fi].max_sent);
        let progressed = e > self.flows[fi].una;
        {
            let fl = &mut self.flows[fi];
            fl.una = fl.una.max(e);
            if fl.nxt < fl.una {
                fl.nxt = fl.una;
            }
        }
        if progressed {
            self.arm_rto(f);
        }
        let mut engine_ev = None;
        let mut go_back = if nak { Some(e) } else { None };
        match self.cfg.cc {
            _ if cbr => {}
            Cc::Ldcp => {
                let fl = &mut self.flows[fi];
                if fl.fs.stage == Stage::FastStart {
                    let r = fl.fs.ack(pkt.psn, nak, iw);
                    if let Some(w) = r.set_cw_pkts {
                        engine_ev = Some(EngineEvent::Set {
                            flow: fl.slot,
                            cw: w.min(4095) << ldcp_sim::window_engine::CW_FRAC_BITS,
                        });
                        // the stable stage starts from the engine's answer to the SET
                        fl.awaiting_set = true;
                    }
                    if let Some(g) = r.go_back_n {
                        go_back = Some(Self::unwrap_psn(fl.una, g));
                    }
                } else if pkt.n > 0 {
                    engine_ev = Some(EngineEvent::Ack {
                        flow: fl.slot,
                        ece: pkt.ece,
                        n: pkt.n as u32,
                    });
                }
            }
            Cc::Dctcp | Cc::Dcqcn => {
                let cfg = &self.cfg;
                let fl = &mut self.flows[fi];
                let nxt = fl.nxt;
                cc::on_ack(
                    &mut fl.cc,
                    cfg,
                    now,
                    pkt.ece,
                    pkt.n as u32,
                    fl.una,
                    nxt,
                    nak,
                );
                let mut check = None;
                if let FlowCc::Dcqcn(d) = &mut fl.cc {
                    if d.decrease_cnp && !d.check_pending {
                        d.check_pending = true;
                        check = Some(d.next_check(now, &cfg.dcqcn));
                    }
                }
                if let Some(t) = check {
                    self.at(t, Ev::DecreaseCheck(f));
                }
            }
        }
        if let FlowCc::Dctcp(d) = &self.flows[fi].cc {
            let c = (d.cwnd * ldcp_sim::window_engine::CW_ONE as f64) as u32;
            self.stats.cw_trace(f, now, c);
        }
        if let Some(g) = go_back {
            let fl = &mut self.flows[fi];
            if g < fl.nxt {
                fl.nxt = g.max(fl.una);
            }
            self.reactivate(f);
        }
        if let Some(ev) = engine_ev {
            self.engine_push(self.flows[fi].src, ev);
        }
        // completion
        let fl = &self.flows[fi];
        if fl.size_pkts != u64::MAX && fl.una >= fl.size_pkts {
            self.finish(f);
            return;
        }
        self.kick(self.flows[fi].src);
    }

    pub(super) fn reactivate(&mut self, f: u32) {
        let h = self.flows[f as usize].src as usize;
        if !self.hosts[h].active.contains(&f) {
            self.hosts[h].active.push_back(f);
        }
    }

    pub(super) fn finish(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.finish_ps = Some(now);
        fl.rto_at = u64::MAX;
        fl.pace.active = false;
        let h = fl.src as usize;
        let slot = fl.slot;
        self.stats.flows_done += 1;
        self.hosts[h].slot_flow[slot as usize] = u32::MAX;
        match self.hosts[h].engine {
            // the entry is free once every event of its last flow is out of
            // the engine: no update of it reaches the next flow, and no event
            // of the next flow merges into one of the last flow's
            Some(_) => {
                let c = (self.now / self.cycle_ps).max(self.hosts[h].engine_next_cycle);
                let t = (c + crate::engine::LATENCY_CYCLES as u64 + 1) * self.cycle_ps;
                self.at(t, Ev::FreeSlot(h as u32, slot));
            }
            None => self.free_slot(h as u32, slot),
        }
    }

    pub(super) fn free_slot(&mut self, h: u32, slot: u32) {
        let host = &mut self.hosts[h as usize];
        host.free_slots.push_back(slot);
        if let Some(w) = host.waiting.pop_front() {
            let s = host.free_slots.pop_front().expect("just freed");
            self.activate(w, s);
        }
    }

    pub(super) fn engine_push(&mut self, h: u32, ev: EngineEvent) {
        let cycle_now = self.now / self.cycle_ps;
        let host = &mut self.hosts[h as usize];
        let cycle = cycle_now.max(host.engine_next_cycle);
        host.engine_next_cycle = cycle + 1;
        host.engine
            .as_mut()
            .expect("LDCP hosts have an engine")
            .push(cycle, ev);
        if let Some(l) = self.engine_log.as_mut() {
            l.push(EngineLog::In(h, cycle, ev));
        }
        let t = (cycle + crate::engine::LATENCY_CYCLES as u64) * self.cycle_ps;
        self.at(t, Ev::EngineOut(h));
    }

    pub(super) fn engine_out(&mut self, h: u32) {
        let cycle_now = self.now / self.cycle_ps;
        let mut ups = std::mem::take(&mut self.hosts[h as usize].updates);
        ups.clear();
        self.hosts[h as usize]
            .engine
            .as_mut()
            .expect("LDCP hosts have an engine")
            .advance(cycle_now, &mut ups);
        for u in &ups {
            if let Some(l) = self.engine_log.as_mut() {
                l.push(EngineLog::Out(h, *u));
            }
            let f = self.hosts[h as usize].slot_flow[u.flow as usize];
            if f == u32::MAX {
                continue; // the flow finished while its update was in flight
            }
            self.stats.engine_updates += 1;
            let fl = &mut self.flows[f as usize];
            if u.cw < fl.cw_raw && !fl.awaiting_set {
                first(&mut self.probe.first_cut_ps, self.now, self.probe.from_ps);
            }
            fl.cw_raw = u.cw;
            fl.awaiting_set = false;
            fl.min_cw_raw = fl.min_cw_raw.min(u.cw);
            let was = fl.pace.active;
            fl.pace.update(u.cycle, u.interval);
            if u.interval == 0 {
                fl.credit = false;
            }
            self.stats.cw_trace(f, self.now, u.cw);
            if fl.pace.active && !was && !fl.grant_pending {
                fl.grant_pending = true;
                let t = fl.pace.due * self.cycle_ps;
                self.at(t, Ev::Grant(f));
            }
        }
        self.hosts[h as usize].updates = ups;
        self.kick(h);
    }

    pub(super) fn grant(&mut self, f: u32) {
        let cycle_now = self.now / self.cycle_ps;
        let fl = &mut self.flows[f as usize];
        fl.grant_pending = false;
        if !fl.pace.active || fl.finish_ps.is_some() {
            return;
        }
        if fl.pace.grant(cycle_now) {
            fl.credit = true;
            self.stats.grants += 1;
        }
        fl.grant_pending = true;
        let t = (fl.pace.due * self.cycle_ps).max(self.now + 1);
        let h = fl.src;
        self.at(t, Ev::Grant(f));
        self.reactivate(f);
        self.kick(h);
    }

    pub(super) fn arm_rto(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let pace = if fl.pace.active {
            fl.pace.interval as u64 * self.cycle_ps
        } else {
            0
        };
        fl.rto_at = self.now + self.cfg.rto_ps + 2 * pace;
        if !fl.rto_pending {
            fl.rto_pending = true;
            let t = fl.rto_at;
            self.at(t, Ev::Rto(f));
        }
    }

    pub(super) fn rto(&mut self, f: u32) {
        let now = self.now;
        let iw = self.cfg.iw_pkts;
        let fl = &mut self.flows[f as usize];
        fl.rto_pending = false;
        if fl.finish_ps.is_some() {
            return;
        }
        if fl.rto_at > now {
            fl.rto_pending = true;
            let t = fl.rto_at;
            self.at(t, Ev::Rto(f));
            return;
        }
        if fl.nxt == fl.una {
            // nothing outstanding: re-arm
            self.arm_rto(f);
            return;
        }
        fl.timeouts += 1;
        self.stats.timeouts += 1;
        fl.nxt = fl.una;
        let mut set = None;
        match &mut fl.cc {
            FlowCc::None => {
                if fl.fs.stage == Stage::FastStart {
                    // a timeout in fast start is the loss transition (a NAK at una)
                    let r = fl.fs.ack((fl.una & fs::PSN_MASK as u64) as u32, true, iw);
                    if let Some(w) = r.set_cw_pkts {
                        set = Some(EngineEvent::Set {
                            flow: fl.slot,
                            cw: w.min(4095) << ldcp_sim::window_engine::CW_FRAC_BITS,
                        });
                    }
                }
            }
            c => cc::on_timeout(c),
        }
        let h = fl.src;
        if let Some(ev) = set {
            self.engine_push(h, ev);
        }
        self.arm_rto(f);
        self.reactivate(f);
        self.kick(h);
    }

    pub(super) fn rate_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.finish_ps.is_some() {
            return;
        }
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            if d.timer_at > now {
                let t = d.timer_at;
                self.at(t, Ev::RateTimer(f));
                return;
            }
            cc::dcqcn_increase(d, &self.cfg);
            d.timer_at = now + self.cfg.dcqcn.rp_timer_ps;
            let t = d.timer_at;
            self.at(t, Ev::RateTimer(f));
        }
    }

    // ---------------------------------------------------------------- flow control
}
