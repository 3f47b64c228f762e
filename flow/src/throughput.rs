//! What each block's RTL does at full rate, measured by one lock-step run
//! of its Verilog against its model (so a figure is also bit-exact with the
//! model): events the block accepted, counted at its ready/valid ports;
//! results it emitted; and conservation (what went in came out, nothing in
//! flight after the drain). Design properties the figures are read against
//! (a latency, the absence of a ready signal, a bound) go in `design`,
//! never among the measured figures.

use crate::bench::Figures;
use crate::FlowError;
use ldcp_regmap::model::BusIn;
use ldcp_sim::cosim::{Cosim, CosimModel};
use ldcp_sim::SplitMix64;

/// Runs `stim` then the drain in lock step; `observe` sees every compared
/// cycle. Returns the model as the run left it and the drain's length.
fn lockstep<M: CosimModel>(
    cosim: &Cosim<M>,
    model: M,
    stim: &[M::Input],
    observe: &mut dyn FnMut(&M::Input, &M::Output),
) -> Result<(M, u64), FlowError> {
    cosim
        .run_observed(model, || stim.iter().cloned(), "throughput", observe)
        .map(|(st, m)| (m, st.drain_cycles))
        .map_err(|e| FlowError::Mismatch(e.to_string()))
}

/// Fails unless `a == b` (a conservation law of the run).
fn conserved(what: &str, a: u64, b: u64) -> Result<(), FlowError> {
    if a == b {
        Ok(())
    } else {
        Err(FlowError::Mismatch(format!(
            "conservation broken: {what}: {a} in, {b} out"
        )))
    }
}

fn per_cycle(n: u64, cycles: u64) -> f64 {
    n as f64 / cycles.max(1) as f64
}

/// WRED/ECN: a packet presented every cycle (64..1,500 bytes, every
/// codepoint), an egress drain below the mean length so the queue builds,
/// hovers and overflows.
pub fn wred_ecn(
    cosim: &Cosim<ldcp_sim::wred_ecn::WredEcnModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::wred_ecn::*;
    let p = WredParams {
        k_min_bytes: 30_000,
        k_max_bytes: 90_000,
        k_bytes: 60_000,
        buf_max_bytes: 120_000,
        p_max_raw: 0x2000,
        seed: 7,
    };
    let mut rng = SplitMix64::new(1);
    let stim: Vec<WredInputs> = (0..cycles)
        .map(|_| {
            let r = rng.next_u64();
            WredInputs {
                in_valid: true,
                in_len_bytes: 64 + (r % 1437) as u32,
                in_ecn: (r >> 32) as u8 & 3,
                egress_drain_bytes: 700,
                ..WredInputs::idle(&p)
            }
        })
        .collect();
    let (mut pkts_in, mut out, mut by, mut occ_max) = (0u64, 0u64, [0u64; 4], 0u32);
    let (_, drain) = lockstep(cosim, WredEcnModel::new(), &stim, &mut |i, o| {
        pkts_in += i.in_valid as u64;
        if o.out_valid {
            out += 1;
            by[o.out_decision as usize & 3] += 1;
        }
        occ_max = occ_max.max(o.stat_occupancy_bytes);
    })?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    let mut f = Figures::ran(cycles, drain);
    f.run("packets_presented", pkts_in)
        .measured("decisions_out", out)
        .measured("packets_in_flight_after_drain", pkts_in - out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("forwarded", by[0] + by[1])
        .measured("marked", by[1])
        .measured("dropped_eq3", by[2])
        .measured("dropped_overflow", by[3])
        .measured("occupancy_max_bytes", occ_max)
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", LATENCY_CYCLES)
        .design("occupancy_latency_cycles", OCCUPANCY_LATENCY_CYCLES)
        .design("counter_latency_cycles", COUNTER_LATENCY_CYCLES)
        .design("buf_max_bytes", p.buf_max_bytes);
    if occ_max > p.buf_max_bytes {
        return Err(FlowError::Mismatch(format!(
            "occupancy reached {occ_max} bytes, above buf_max {}",
            p.buf_max_bytes
        )));
    }
    Ok(f)
}

/// The tunnel ingress: a packet every cycle over the 64 tunnels, half of
/// them in compatibility mode (written first); every packet decided, in
/// order, its outer ECN field as its tunnel's mode says.
pub fn tunnel_ingress(
    cosim: &Cosim<ldcp_sim::tunnel_ecn::TunnelIngressModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::tunnel_ecn::*;
    let compat = |t: u8| t % 2 == 1;
    let mut stim: Vec<IngressInputs> = (0..TUNNELS as u8)
        .map(|t| IngressInputs {
            cfg_we: true,
            cfg_tunnel: t,
            cfg_compat: compat(t),
            ..Default::default()
        })
        .collect();
    let mut rng = SplitMix64::new(1);
    let mut want = std::collections::VecDeque::new();
    for _ in 0..cycles {
        let r = rng.next_u64();
        let i = IngressInputs {
            in_valid: true,
            in_tunnel: r as u8 % TUNNELS as u8,
            in_ipv6: (r >> 8) & 3 == 0,
            in_word0: (r >> 16) as u16,
            ..Default::default()
        };
        let mode = if compat(i.in_tunnel) {
            Mode::Compatibility
        } else {
            Mode::Normal
        };
        want.push_back((i.in_tunnel, ingress(mode, word_ecn(i.in_word0, i.in_ipv6))));
        stim.push(i);
    }
    let (mut pkts_in, mut out, mut wrong, mut compat_out) = (0u64, 0u64, 0u64, 0u64);
    let (_, drain) = lockstep(cosim, TunnelIngressModel::new(), &stim, &mut |i, o| {
        pkts_in += i.in_valid as u64;
        if o.out_valid {
            out += 1;
            compat_out += o.out_compat as u64;
            wrong += (want.pop_front() != Some((o.out_tunnel, o.out_outer_ecn))) as u64;
        }
    })?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    conserved("decisions not as the tunnel's mode says", 0, wrong)?;
    let mut f = Figures::ran(stim.len() as u64, drain);
    f.run("mode_writes", TUNNELS as u64)
        .run("packets_presented", pkts_in)
        .measured("decisions_out", out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("in_compatibility_mode", compat_out)
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", INGRESS_LATENCY_CYCLES)
        .design("tunnels", TUNNELS);
    Ok(f)
}

/// The Fast CNP trigger: a packet every cycle from 64 flows, 7 in 8 of
/// them marked CE, the interval 1,000 cycles; every decision out in
/// order; per flow the descriptors at least the interval apart (no two
/// flows share a slot here, so the limit is exact per flow), every
/// descriptor the packet's fields swapped, and the counters account for
/// every candidate.
pub fn fast_cnp(
    cosim: &Cosim<ldcp_sim::fast_cnp::FastCnpModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::fast_cnp::*;
    const INTERVAL: u32 = 1_000;
    // 64 flows in 64 distinct slots (hosts with their own QPNs, the first
    // that take a slot of their own), so the limit is exact per flow
    let mut taken = std::collections::HashSet::new();
    let flows: Vec<(u64, u32)> = (0..1024u64)
        .map(|f| (0x0a00_0000 | f << 8 | 1, 0x100 + f as u32))
        .filter(|&(a, qp)| taken.insert(slot(a as u128, 0x0a63_0001, qp)))
        .take(64)
        .collect();
    let mut rng = SplitMix64::new(1);
    let pkts: Vec<(FastCnpInputs, Descriptor)> = (0..cycles)
        .map(|_| {
            let r = rng.next_u64();
            let (src, qp) = flows[(r % flows.len() as u64) as usize];
            let inputs = FastCnpInputs {
                in_valid: true,
                in_decision: if (r >> 8) & 7 == 0 {
                    0
                } else {
                    DECISION_MARKED
                },
                in_parsed: true,
                cfg_interval_cycles: INTERVAL,
                ..Default::default()
            };
            let d = Descriptor {
                ipv6: false,
                src: src as u128,
                dst: 0x0a63_0001,
                end_con: 0x2001_0db8_0000_00c0 << 64 | 0xc001,
                dest_qp: qp,
                pkey: 0xffff,
                udp_src: 0xc000 | (qp as u16 & 0xff),
            };
            (inputs, d)
        })
        .collect();
    // the switch's pipeline brings each packet's descriptor 3 cycles on
    let stim = aligned(&pkts);
    let mut last_sent: std::collections::HashMap<u64, u64> = Default::default();
    let (mut pkts_in, mut out, mut sent, mut too_soon, mut bad_fields) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut last = FastCnpOutputs::default();
    let mut cycle = 0u64;
    let (_, drain) = lockstep(cosim, FastCnpModel::new(), &stim, &mut |i, o| {
        pkts_in += i.in_valid as u64;
        cycle += 1;
        if o.out_valid {
            let k = out as usize;
            out += 1;
            if o.out_emit {
                sent += 1;
                let p = &pkts[k].1;
                bad_fields += (o.out_cnp_src_lo as u128 != p.dst
                    || o.out_cnp_dst_lo as u128 != p.src
                    || o.out_dest_qp != p.dest_qp
                    || o.out_end_con_lo != p.end_con as u64
                    || o.out_end_con_hi != (p.end_con >> 64) as u64
                    || o.out_pkey != p.pkey
                    || o.out_udp_src != p.udp_src) as u64;
                if let Some(prev) = last_sent.insert(o.out_cnp_dst_lo, cycle) {
                    too_soon += (cycle - prev < INTERVAL as u64) as u64;
                }
            }
        }
        last = *o;
    })?;
    conserved(
        "flows in this run (each in its own slot)",
        64,
        flows.len() as u64,
    )?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    conserved("descriptors closer than the interval", 0, too_soon)?;
    conserved(
        "descriptors whose fields are not the packet's, swapped",
        0,
        bad_fields,
    )?;
    conserved(
        "candidates vs sent + suppressed",
        last.stat_marked_pkts as u64,
        last.stat_sent_pkts as u64 + last.stat_suppressed_pkts as u64,
    )?;
    conserved(
        "descriptors shown vs counted",
        sent,
        last.stat_sent_pkts as u64,
    )?;
    let mut f = Figures::ran(cycles, drain);
    f.run("packets_presented", pkts_in)
        .run("flows", flows.len() as u64)
        .run("interval_cycles", INTERVAL)
        .measured("decisions_out", out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("candidates", last.stat_marked_pkts)
        .measured("descriptors_sent", last.stat_sent_pkts)
        .measured("suppressed", last.stat_suppressed_pkts)
        .measured(
            "descriptors_per_flow_per_interval",
            last.stat_sent_pkts as f64 / flows.len() as f64 / (cycles as f64 / INTERVAL as f64),
        )
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", FAST_CNP_LATENCY_CYCLES)
        .design("counter_latency_cycles", FAST_CNP_COUNTER_LATENCY_CYCLES)
        .design("table_slots", TABLE_ENTRIES)
        .design("reset_sweep_cycles", TABLE_ENTRIES);
    Ok(f)
}

/// The END.CON match: the SID written first, then a packet every cycle,
/// a quarter of them to other destinations and the rest to END.CON with
/// every next-header case of G11; every decision out in order and as the
/// rule says, and the counters account for every packet.
pub fn end_con(
    cosim: &Cosim<ldcp_sim::end_con::EndConModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::end_con::*;
    let sid: u128 = 0x2001_0db8_00c0_0000_0000_0000_0000_c001;
    let mut stim = sid_writes(sid).to_vec();
    let mut rng = SplitMix64::new(1);
    let mut want = std::collections::VecDeque::new();
    for _ in 0..cycles {
        let r = rng.next_u64();
        let dst = if r & 3 == 0 {
            sid ^ (1u128 << ((r >> 2) % 128))
        } else {
            sid
        };
        let nh = [4u8, 41, 43, 58, 17][(r >> 10) as usize % 5];
        let i = EndConInputs {
            in_valid: true,
            in_dst_hi: (dst >> 64) as u64,
            in_dst_lo: dst as u64,
            in_next_header: nh,
            in_srh_next_header: [4u8, 41, 58, 6][(r >> 20) as usize % 4],
            in_srh_segments_left: if (r >> 24) & 7 == 0 { 1 } else { 0 },
            in_srh_ext_len: (r >> 32) as u8,
            ..Default::default()
        };
        let d = decision(sid, &i);
        want.push_back((d.out_action, d.out_strip_bytes));
        stim.push(i);
    }
    let (mut pkts_in, mut out, mut wrong) = (0u64, 0u64, 0u64);
    let mut by_action = [0u64; 4];
    let mut last = EndConOutputs::default();
    let (_, drain) = lockstep(cosim, EndConModel::new(), &stim, &mut |i, o| {
        pkts_in += i.in_valid as u64;
        if o.out_valid {
            out += 1;
            by_action[o.out_action as usize & 3] += 1;
            wrong += (want.pop_front() != Some((o.out_action, o.out_strip_bytes))) as u64;
        }
        last = *o;
    })?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    conserved("decisions not as the rule says", 0, wrong)?;
    conserved(
        "decisions vs the counters",
        out,
        last.stat_forwarded_pkts as u64
            + last.stat_decap_pkts as u64
            + last.stat_punted_pkts as u64
            + last.stat_dropped_pkts as u64,
    )?;
    let mut f = Figures::ran(stim.len() as u64, drain);
    f.run("sid_word_writes", 4)
        .run("packets_presented", pkts_in)
        .measured("decisions_out", out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("forwarded", by_action[0])
        .measured("decapsulated", by_action[1])
        .measured("punted", by_action[2])
        .measured("dropped", by_action[3])
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", END_CON_LATENCY_CYCLES)
        .design("counter_latency_cycles", END_CON_COUNTER_LATENCY_CYCLES);
    Ok(f)
}

/// The tunnel egress: a packet every cycle, every (inner, outer) pair,
/// IPv4 and IPv6 inners; the decisions out and the counters read at the
/// end must account for every packet, and every forwarded IPv4 header must
/// still verify.
pub fn tunnel_egress(
    cosim: &Cosim<ldcp_sim::tunnel_ecn::TunnelEgressModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::tunnel_ecn::*;
    // each packet with the sum of the rest of its header, for the check
    let mut rng = SplitMix64::new(1);
    let (stim, rests): (Vec<EgressInputs>, Vec<u16>) = (0..cycles)
        .map(|_| {
            let r = rng.next_u64();
            let ipv6 = r & 3 == 0;
            // word 0, and a checksum that verifies with the rest of the
            // header summing to `rest`
            let w = if ipv6 {
                0x6000 | (r >> 8) as u16 & 0x0fff
            } else {
                0x4500 | (r >> 8) as u16 & 0xff
            };
            let rest = (r >> 24) as u16;
            let i = EgressInputs {
                in_valid: true,
                in_ipv6: ipv6,
                in_word0: w,
                in_csum: !ldcp_sim::ipv4::ones_sum([w, rest]),
                in_outer_ecn: (r >> 40) as u8 & 3,
                ..Default::default()
            };
            (i, rest)
        })
        .unzip();
    let (mut pkts_in, mut out, mut dropped, mut bad_csum) = (0u64, 0u64, 0u64, 0u64);
    let mut last = EgressOutputs::default();
    let (_, drain) = lockstep(cosim, TunnelEgressModel::new(), &stim, &mut |i, o| {
        pkts_in += i.in_valid as u64;
        if o.out_valid {
            // every cycle carries a packet and decisions leave in order:
            // decision k is packet k's
            let k = out as usize;
            out += 1;
            dropped += o.out_drop as u64;
            if !stim[k].in_ipv6 && !o.out_drop {
                let ok = ldcp_sim::ipv4::verifies(&[o.out_word0, rests[k], o.out_csum]);
                bad_csum += !ok as u64;
            }
        }
        last = *o;
    })?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    conserved(
        "decisions vs the counters (forwarded + dropped)",
        out,
        last.stat_forwarded_pkts as u64 + last.stat_dropped_pkts as u64,
    )?;
    conserved(
        "drops shown vs counted",
        dropped,
        last.stat_dropped_pkts as u64,
    )?;
    conserved("forwarded IPv4 headers that fail to verify", 0, bad_csum)?;
    let mut f = Figures::ran(cycles, drain);
    f.run("packets_presented", pkts_in)
        .measured("decisions_out", out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("forwarded", last.stat_forwarded_pkts)
        .measured("dropped", last.stat_dropped_pkts)
        .measured("dangerous_combinations", last.stat_dangerous_pkts)
        .measured("unused_combinations", last.stat_unused_pkts)
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", EGRESS_LATENCY_CYCLES)
        .design("counter_latency_cycles", EGRESS_COUNTER_LATENCY_CYCLES);
    Ok(f)
}

/// The sequential window engine: an ACK offered every cycle (held until
/// taken, as a source behind the handshake holds it), marked and not, n up
/// to 15, no SET and no reset.
pub fn window_engine_seq(
    cosim: &Cosim<ldcp_sim::window_engine::WindowEngineSeqModel>,
    flow_bits: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::window_engine::*;
    let p = WindowParams::default();
    let stim: Vec<WsInputs> = stimulus(1, flow_bits, p)
        .map(|i| WsInputs {
            reset: false,
            in_valid: true,
            in_set: false,
            ..i
        })
        .take(cycles as usize)
        .collect();
    let model = WindowEngineSeqModel::new(flow_bits);
    let mut port = ReadyValid::new(model.outputs().in_ready);
    let (mut pkts_in, mut pkts_out, mut updates) = (0u64, 0u64, 0u64);
    let (model, drain) = lockstep(cosim, model, &stim, &mut |i, o| {
        if i.in_valid && port.ready {
            pkts_in += i.in_n_pkts as u64;
        }
        port.cycle(i.in_valid, o.in_ready);
        if o.out_valid {
            updates += 1;
            pkts_out += (o.out_n_u_pkts + o.out_n_m_pkts) as u64;
        }
    })?;
    conserved("acknowledged packets vs packets applied", pkts_in, pkts_out)?;
    let st = model.stats();
    conserved(
        "events taken at the ports vs by the model",
        port.accepted,
        st.events,
    )?;
    conserved("events taken vs updates", port.accepted, updates)?;
    let mut f = Figures::ran(cycles, drain);
    port.figures(&mut f, "events", cycles);
    f.measured("updates_out", updates)
        .measured("updates_out_per_cycle", per_cycle(updates, cycles))
        .measured("increases", st.increases)
        .measured("updates_without_the_multiply", st.short)
        .measured("packets_out", pkts_out)
        .measured("packets_out_per_cycle", per_cycle(pkts_out, cycles))
        .design(
            "in_ready",
            "low while an event is in flight: one event per latency",
        )
        .design("latency_cycles", SEQ_LATENCY_CYCLES)
        .design(
            "latency_cycles_without_the_multiply",
            SEQ_SHORT_LATENCY_CYCLES,
        )
        .design("flows", 1u64 << flow_bits);
    Ok(f)
}

/// The window engine: an ACK every cycle (hot flows, so events merge),
/// marked and not, n up to 15, no SET and no reset (a SET rightly discards
/// what its flow had gathered, which would break the count).
pub fn window_engine(
    cosim: &Cosim<ldcp_sim::window_engine::WindowEngineModel>,
    flow_bits: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::window_engine::*;
    let p = WindowParams::default();
    let stim: Vec<WeInputs> = stimulus(1, flow_bits, p)
        .map(|i| WeInputs {
            reset: false,
            in_valid: true,
            in_set: false,
            ..i
        })
        .take(cycles as usize)
        .collect();
    let (mut events, mut pkts_in, mut pkts_out, mut updates) = (0u64, 0u64, 0u64, 0u64);
    let (model, drain) = lockstep(
        cosim,
        WindowEngineModel::new(flow_bits),
        &stim,
        &mut |i, o| {
            if i.in_valid {
                events += 1;
                pkts_in += i.in_n_pkts as u64;
            }
            if o.out_valid {
                updates += 1;
                pkts_out += (o.out_n_u_pkts + o.out_n_m_pkts) as u64;
            }
        },
    )?;
    conserved("acknowledged packets vs packets applied", pkts_in, pkts_out)?;
    let st = model.stats();
    conserved(
        "events vs updates plus merged events",
        events,
        updates + st.merged_events,
    )?;
    let mut f = Figures::ran(cycles, drain);
    f.run("events_presented", events)
        .run("packets_presented", pkts_in)
        .measured("updates_out", updates)
        .measured("updates_out_per_cycle", per_cycle(updates, cycles))
        .measured("merged_updates", st.merged_updates)
        .measured("mixed_updates", st.mixed_updates)
        .measured("merged_events", st.merged_events)
        .measured("events_accounted", updates + st.merged_events)
        .measured(
            "events_accounted_per_cycle",
            per_cycle(updates + st.merged_events, cycles),
        )
        .measured("packets_out", pkts_out)
        .measured("packets_in_flight_after_drain", pkts_in - pkts_out)
        .measured("packets_out_per_cycle", per_cycle(pkts_out, cycles))
        .design(
            "in_ready",
            "none: an event presented is an event taken, every cycle",
        )
        .design("latency_cycles", LATENCY_CYCLES)
        .design("merge_window_cycles", WINDOW)
        .design("flows", 1u64 << flow_bits);
    Ok(f)
}

/// Acceptance at a ready/valid port: the input of cycle t is taken when
/// `in_ready`, as the outputs after edge t - 1 show it, is high.
struct ReadyValid {
    ready: bool,
    presented: u64,
    accepted: u64,
    ready_low: u64,
}

impl ReadyValid {
    fn new(ready_at_power_up: bool) -> Self {
        ReadyValid {
            ready: ready_at_power_up,
            presented: 0,
            accepted: 0,
            ready_low: 0,
        }
    }

    /// Adds the port's figures over a run of `cycles`: the `what`s
    /// presented (what the run offered), accepted, per cycle, and the
    /// cycles `in_ready` was low.
    fn figures(&self, f: &mut Figures, what: &str, cycles: u64) {
        f.run(&format!("{what}_presented"), self.presented)
            .measured(&format!("{what}_accepted"), self.accepted)
            .measured(
                &format!("{what}_accepted_per_cycle"),
                per_cycle(self.accepted, cycles),
            )
            .measured("cycles_in_ready_low", self.ready_low);
    }

    /// Counts this cycle's input, then takes the `in_ready` shown after the edge.
    fn cycle(&mut self, valid: bool, ready_after: bool) {
        self.presented += valid as u64;
        self.accepted += (valid && self.ready) as u64;
        self.ready_low += !self.ready as u64;
        self.ready = ready_after;
    }
}

/// The fast-start marker: an event every cycle (transmits, ACKs, NAKs,
/// flow resets, bad ids and headers), no block reset.
pub fn fast_start_marker(
    cosim: &Cosim<ldcp_sim::fast_start_marker::FastStartMarkerModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::fast_start_marker::*;
    fast_start_marker_run(
        cosim,
        FastStartMarkerModel::new(fb),
        fb,
        cycles,
        [
            LATENCY_CYCLES.to_string(),
            "low only during a reset sweep, one cycle per flow".into(),
        ],
    )
}

/// The sequential fast-start marker ([`fast_start_marker`]'s run): one
/// event per 7 cycles, so the events offered while it is busy are not taken
/// (the stream does not hold them: this run measures the rate).
pub fn fast_start_marker_seq(
    cosim: &Cosim<ldcp_sim::fast_start_marker::FastStartMarkerSeqModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::fast_start_marker::*;
    fast_start_marker_run(
        cosim,
        FastStartMarkerSeqModel::new(fb),
        fb,
        cycles,
        [
            SEQ_LATENCY_CYCLES.to_string(),
            format!(
                "low for the {} cycles after a take (one event per {SEQ_LATENCY_CYCLES} \
                 cycles) and during a reset sweep",
                SEQ_LATENCY_CYCLES - 1
            ),
        ],
    )
}

/// [`fast_start_marker`]'s run on either block's model; `design`: the
/// latency and the ready rule, as the block's doc states them.
fn fast_start_marker_run<M>(
    cosim: &Cosim<M>,
    model: M,
    fb: u32,
    cycles: u64,
    design: [String; 2],
) -> Result<Figures, FlowError>
where
    M: CosimModel<
        Input = ldcp_sim::fast_start_marker::FsInputs,
        Output = ldcp_sim::fast_start_marker::FsOutputs,
    >,
{
    use ldcp_sim::fast_start_marker::*;
    let stim: Vec<FsInputs> = stimulus(1, fb)
        .map(|i| FsInputs {
            reset: false,
            in_valid: true,
            ..i
        })
        .take(cycles as usize)
        .collect();
    let mut port = ReadyValid::new(model.outputs().in_ready);
    let (mut results, mut ect, mut not_ect, mut errors) = (0u64, 0u64, 0u64, 0u64);
    let (_, drain) = lockstep(cosim, model, &stim, &mut |i, o| {
        port.cycle(i.in_valid, o.in_ready);
        if o.out_valid {
            results += 1;
            errors += (o.out_err != 0) as u64;
            if o.out_kind == kind::TX && o.out_err == 0 {
                ect += (o.out_ecn == ECN_ECT0) as u64;
                not_ect += (o.out_ecn == ECN_NOT_ECT) as u64;
            }
        }
    })?;
    conserved("events accepted vs results", port.accepted, results)?;
    let mut f = Figures::ran(cycles, drain);
    port.figures(&mut f, "events", cycles);
    f.measured("results_out", results)
        .measured("events_in_flight_after_drain", port.accepted - results)
        .measured("transmits_ect", ect)
        .measured("transmits_not_ect", not_ect)
        .measured("results_with_error", errors)
        .design("latency_cycles", design[0].clone())
        .design("in_ready", design[1].clone())
        .design("flows", 1u64 << fb);
    Ok(f)
}

/// A pacing timer's run (`model`, 2^`fb` flows): an update offered every
/// cycle (joins, leaves, restarts, all intervals; `in_ready` may hold it),
/// no block reset; every grant within `bound` cycles of its due time. The
/// measured figures; the caller adds its design constants.
fn pacing_run<M>(
    cosim: &Cosim<M>,
    model: M,
    fb: u32,
    cycles: u64,
    bound: u32,
) -> Result<Figures, FlowError>
where
    M: CosimModel<
        Input = ldcp_sim::pacing_timer::PtInputs,
        Output = ldcp_sim::pacing_timer::PtOutputs,
    >,
{
    use ldcp_sim::pacing_timer::*;
    let stim: Vec<PtInputs> = stimulus(1, fb)
        .map(|i| PtInputs {
            reset: false,
            in_valid: true,
            ..i
        })
        .take(cycles as usize)
        .collect();
    let mut port = ReadyValid::new(model.outputs().in_ready);
    let (mut grants, mut late_max, mut refused) = (0u64, 0u32, 0u64);
    let (_, drain) = lockstep(cosim, model, &stim, &mut |i, o| {
        port.cycle(i.in_valid, o.in_ready);
        if o.out_valid {
            grants += 1;
            late_max = late_max.max(o.out_late_cycles);
        }
        refused += o.stat_err_flow_strobe as u64;
    })?;
    if late_max > bound {
        return Err(FlowError::Mismatch(format!(
            "a grant {late_max} cycles late, beyond the bound of {bound}"
        )));
    }
    let mut f = Figures::ran(cycles, drain);
    port.figures(&mut f, "updates", cycles);
    f.measured("updates_refused_flow_id", refused)
        .measured("grants_out", grants)
        .measured("grants_per_cycle", per_cycle(grants, cycles + drain))
        .measured("grant_late_max_cycles", late_max);
    Ok(f)
}

/// The pacing timer with 2^`fb` flows ([`pacing_run`]).
pub fn pacing_timer(
    cosim: &Cosim<ldcp_sim::pacing_timer::PacingTimerModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::pacing_timer::*;
    let n = 1u32 << fb;
    let bound = lateness_bound_cycles(n, 1);
    let mut f = pacing_run(cosim, PacingTimerModel::new(fb), fb, cycles, bound)?;
    f.design(
        "grants_per_cycle_max",
        "1: one grant port, one flow visited per clock",
    )
    .design("lateness_bound_cycles", lateness_bound_cycles(n, n))
    .design("lateness_bound_cycles_short_intervals", bound)
    .design("flows", n);
    Ok(f)
}

/// The sequential pacing timer ([`pacing_run`]: `in_ready` is low while
/// an update waits).
pub fn pacing_timer_seq(
    cosim: &Cosim<ldcp_sim::pacing_timer::PacingTimerSeqModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::pacing_timer::*;
    let n = 1u32 << fb;
    let bound = seq_lateness_bound_cycles(n, 1);
    let mut f = pacing_run(cosim, PacingTimerSeqModel::new(fb), fb, cycles, bound)?;
    f.design(
        "grants_per_cycle_max",
        "1/2: one visit per 2 cycles (per 6 behind an update)",
    )
    .design("lap_max_cycles", seq_lap_max_cycles(n))
    .design(
        "lateness_bound_cycles_interval_3_up",
        seq_lateness_bound_cycles(n, 3),
    )
    .design("lateness_bound_cycles_interval_1", bound)
    .design("flows", n);
    Ok(f)
}

/// The ACK generator: a data packet every cycle, in order on every flow
/// (each flow opened at PSN 0 first), 10% CE, delayed ACKs of m = 4 and a
/// 400-cycle timeout, so splits and timeout flushes stall the input: every
/// packet taken must be acknowledged exactly once, every CE echoed.
pub fn ack_generator(
    cosim: &Cosim<ldcp_sim::ack_generator::AckGeneratorModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    ack_generator_run(
        cosim,
        ldcp_sim::ack_generator::AckGeneratorModel::new(fb),
        fb,
        cycles,
        [
            "5 from the packet's take, more when ACKs queue ahead of it (a split's second ACK \
             queues one cycle)",
            "1: one ACK port; in_ready drops while the ACK queue holds more than 2",
        ],
    )
}

/// The sequential ACK generator ([`ack_generator`]'s run): one op per 4
/// cycles, so most packets offered wait.
pub fn ack_generator_seq(
    cosim: &Cosim<ldcp_sim::ack_generator::AckGeneratorSeqModel>,
    fb: u32,
    cycles: u64,
) -> Result<Figures, FlowError> {
    ack_generator_run(
        cosim,
        ldcp_sim::ack_generator::AckGeneratorSeqModel::new(fb),
        fb,
        cycles,
        [
            "4 from the op's take, a split's second ACK at 5",
            "0.25 ops: one op per 4 cycles (SEQ_OP_CYCLES), at most two ACKs per op",
        ],
    )
}

/// [`ack_generator`]'s run on either block's model; `design`: the ACK
/// latency and the largest ACK rate, as the block's doc states them.
fn ack_generator_run<M>(
    cosim: &Cosim<M>,
    model: M,
    fb: u32,
    cycles: u64,
    design: [&'static str; 2],
) -> Result<Figures, FlowError>
where
    M: CosimModel<
            Input = ldcp_sim::ack_generator::AgInputs,
            Output = ldcp_sim::ack_generator::AgOutputs,
        > + Clone,
{
    use ldcp_sim::ack_generator::*;
    let n = 1usize << fb;
    let mut rng = SplitMix64::new(1);
    let cfg = AgInputs {
        cfg_m_pkts: 4,
        cfg_timeout_cycles: 400,
        ..Default::default()
    };
    // each flow is opened at PSN 0, then packets of random flows follow;
    // an event not taken (in_ready low, learnt from a copy of the model,
    // which the run checks against the RTL) is presented again, so every
    // flow's PSNs stay in order
    let mut opens = (0..n as u32).map(|f| AgInputs {
        in_valid: true,
        in_open: true,
        in_flow: f,
        ..cfg
    });
    let mut next_psn = vec![0u32; n];
    let mut shadow = model.clone();
    let mut pending: Option<AgInputs> = None;
    let mut stim = Vec::with_capacity(cycles as usize);
    while (stim.len() as u64) < cycles {
        let i = pending.take().or_else(|| opens.next()).unwrap_or_else(|| {
            let r = rng.next_u64();
            let f = (r % n as u64) as usize;
            AgInputs {
                in_valid: true,
                in_flow: f as u32,
                in_psn: next_psn[f],
                in_ce: (r >> 32).is_multiple_of(10),
                in_last: (r >> 40).is_multiple_of(12),
                ..cfg
            }
        });
        let taken = shadow.outputs().in_ready;
        shadow.tick(&i);
        if !taken {
            pending = Some(i);
        } else if !i.in_open {
            let f = i.in_flow as usize;
            next_psn[f] = (next_psn[f] + 1) & PSN_MASK;
        }
        stim.push(i);
    }
    let mut port = ReadyValid::new(model.outputs().in_ready);
    let (mut data_taken, mut ce_taken, mut acks, mut naks, mut acked, mut echoed, mut errs) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut opens_taken = 0u64;
    let (_, drain) = lockstep(cosim, model, &stim, &mut |i, o| {
        let was_ready = port.ready;
        port.cycle(i.in_valid, o.in_ready);
        if i.in_valid && was_ready && i.in_open {
            opens_taken += 1;
        } else if i.in_valid && was_ready {
            data_taken += 1;
            ce_taken += i.in_ce as u64;
        }
        if o.out_valid {
            acks += 1;
            naks += o.out_nak as u64;
            acked += o.out_n_pkts as u64;
            echoed += (o.out_ece as u64) * o.out_n_pkts as u64;
        }
        errs += (o.stat_err != 0) as u64;
    })?;
    conserved(
        "in-order packets taken vs packets acknowledged",
        data_taken,
        acked,
    )?;
    conserved("CE packets taken vs packets echoed", ce_taken, echoed)?;
    conserved("errors (an in-order stream has none)", 0, errs)?;
    let mut f = Figures::ran(cycles, drain);
    port.figures(&mut f, "events", cycles);
    f.measured("opens_accepted", opens_taken)
        .measured("packets_accepted", data_taken)
        .measured("acks_out", acks)
        .measured("naks_out", naks)
        .measured("acks_per_cycle", per_cycle(acks, cycles + drain))
        .measured("packets_acknowledged", acked)
        .measured("ce_packets_taken", ce_taken)
        .measured("ce_packets_echoed", echoed)
        .measured("packets_in_flight_after_drain", data_taken - acked)
        .design("acks_per_cycle_max", design[1])
        .design("ack_latency_cycles", design[0])
        .design("m_pkts", cfg.cfg_m_pkts)
        .design("timeout_cycles", cfg.cfg_timeout_cycles)
        .design("flows", n as u64);
    Ok(f)
}

/// A write of register `name`.
fn wr(name: &str, wdata: u32) -> BusIn {
    BusIn::write(ldcp_regmap::model::offset(name), wdata)
}

/// A read of register `name`.
fn rd(name: &str) -> BusIn {
    BusIn::read(ldcp_regmap::model::offset(name))
}

/// The counters a generator run is measured by, in read order.
const GEN_READS: [&str; 5] = [
    "CNT_EVENTS",
    "GEN_CYCLES",
    "CNT_UPDATES",
    "CNT_PACKETS",
    "CNT_MARKED",
];

/// A run of the on-chip generator through the register bus, as `ldcpctl
/// bench` does on hardware: `events` ACK events, one per clock, then enough
/// idle cycles for the engine to empty, then the counters read back;
/// `flow_bits` is the build's (the host replays the generator's stream).
pub fn generator_run<M>(
    cosim: &Cosim<M>,
    model: M,
    flow_bits: u32,
    events: u32,
    engine_latency: u32,
    cycles_per_event: u32,
) -> Result<Figures, FlowError>
where
    M: CosimModel,
    M::Input: From<BusIn>,
    M::Output: BusOutputs,
{
    let seed = 1u32;
    let mut bus = vec![
        wr("CNT_CLEAR", 1),
        wr("GEN_COUNT", events),
        wr("GEN_SEED", seed),
        wr("GEN_CTRL", 1),
    ];
    let idle = (events * cycles_per_event) as usize + 2 * engine_latency as usize + 8;
    bus.extend(std::iter::repeat_n(BusIn::default(), idle));
    let (reads, cycles, drain) = run_then_read(cosim, model, bus, &GEN_READS)?;
    let [ev, cyc, upd, pkts, marked] = [reads[0], reads[1], reads[2], reads[3], reads[4]];
    // the generator's stream, replayed on the host: the packets it acknowledged
    let (mut pkts_in, mut marked_in) = (0u64, 0u64);
    for (_, n, ece) in ldcp_sim::nic_core::gen_events(seed, flow_bits).take(events as usize) {
        pkts_in += n as u64;
        marked_in += ece as u64;
    }
    conserved("generator events vs CNT_EVENTS", events as u64, ev)?;
    conserved("packets generated vs CNT_PACKETS", pkts_in, pkts)?;
    conserved("marked events generated vs CNT_MARKED", marked_in, marked)?;
    let mut f = Figures::default();
    f.run("cycles", cycles)
        .run("drain_cycles", drain)
        .run("generator_events_requested", events)
        .run("packets_generated_replayed", pkts_in)
        .measured("generator_events", ev)
        .measured("generator_cycles", cyc)
        .measured("events_per_cycle", per_cycle(ev, cyc))
        .measured("updates", upd)
        .measured("packets_applied", pkts)
        .design("flows", 1u64 << ldcp_regmap::FLOW_BITS)
        .design("fifo_depth", 1u64 << ldcp_regmap::FIFO_DEPTH_LOG2)
        .design("engine_latency_cycles", engine_latency);
    Ok(f)
}

/// Runs `bus` in lock step, then reads the registers `names` back to back
/// and waits for the last answer: their values in order, the cycles run
/// and the drain's. Fails unless every read was answered.
fn run_then_read<M>(
    cosim: &Cosim<M>,
    model: M,
    mut bus: Vec<BusIn>,
    names: &[&str],
) -> Result<(Vec<u64>, u64, u64), FlowError>
where
    M: CosimModel,
    M::Input: From<BusIn>,
    M::Output: BusOutputs,
{
    bus.extend(names.iter().map(|n| rd(n)));
    bus.extend(std::iter::repeat_n(
        BusIn::default(),
        ldcp_regmap::READ_LATENCY_CYCLES as usize,
    ));
    let stim: Vec<M::Input> = bus.into_iter().map(M::Input::from).collect();
    let mut reads = Vec::new();
    let (_, drain) = lockstep(cosim, model, &stim, &mut |_, o| {
        if let Some(d) = o.read_data() {
            reads.push(d as u64);
        }
    })?;
    if reads.len() != names.len() {
        return Err(FlowError::Mismatch(format!(
            "{} counter reads answered, {} asked",
            reads.len(),
            names.len()
        )));
    }
    Ok((reads, stim.len() as u64, drain))
}

/// Loop flows and send cycles of [`loop_run`].
pub const LOOP_FLOWS: u32 = 8;
/// Cycles the sender runs in [`loop_run`].
pub const LOOP_SEND_CYCLES: u32 = 60_000;

/// A run of the on-chip loopback through the register bus, as `ldcpctl
/// bench --mode loop` does on hardware (the traffic source of a build
/// without the generator, the Alchitry Cu NIC): after a CORE_RESET,
/// [`LOOP_FLOWS`] flows sent for [`LOOP_SEND_CYCLES`] cycles with an ACK per
/// `ag_m` packets, then the sender stopped and the chip left to empty; the
/// counters are read back. Fails unless every packet sent was delivered
/// and acknowledged back into the engine and nothing is left on chip.
pub fn loop_run<M>(cosim: &Cosim<M>, model: M, ag_m: u32, sweep: u32) -> Result<Figures, FlowError>
where
    M: CosimModel,
    M::Input: From<BusIn>,
    M::Output: BusOutputs,
{
    const READS: [&str; 6] = [
        "LOOP_SENT",
        "LOOP_DELIVERED",
        "AG_ACKS",
        "CNT_EVENTS",
        "LOOP_LOST",
        "LOOP_STATUS",
    ];
    let idle = |n: u32| std::iter::repeat_n(BusIn::default(), n as usize);
    let mut bus = vec![wr("CORE_RESET", 1)];
    bus.extend(idle(sweep));
    bus.extend([
        wr("FS_IW", 4),
        wr("AG_M", ag_m),
        wr("LOOP_RTO", 3000),
        wr("LOOP_CTRL", 3 | LOOP_FLOWS << 8),
    ]);
    bus.extend(idle(LOOP_SEND_CYCLES));
    // SEND off, LOOPBACK on: the last packets and ACKs come home
    bus.push(wr("LOOP_CTRL", 1));
    bus.extend(idle(6_000));
    let (reads, cycles, drain) = run_then_read(cosim, model, bus, &READS)?;
    let [sent, delivered, acks, events, lost, status] =
        [reads[0], reads[1], reads[2], reads[3], reads[4], reads[5]];
    conserved("packets sent vs delivered", sent, delivered)?;
    conserved("ACKs sent vs events into the engine", acks, events)?;
    conserved("packets lost", 0, lost)?;
    conserved("LOOP_STATUS (packets on chip) at the end", 0, status)?;
    if sent == 0 {
        return Err(FlowError::Mismatch("the loop sent nothing".into()));
    }
    let mut f = Figures::default();
    f.run("cycles", cycles)
        .run("drain_cycles", drain)
        .run("loop_flows", LOOP_FLOWS)
        .run("ack_every_packets", ag_m)
        .run("send_cycles", LOOP_SEND_CYCLES)
        .measured("packets_sent", sent)
        .measured("packets_delivered", delivered)
        .measured("acks_into_engine", events)
        .measured(
            "packets_per_cycle",
            per_cycle(sent, LOOP_SEND_CYCLES as u64),
        )
        .measured("acks_per_cycle", per_cycle(events, LOOP_SEND_CYCLES as u64))
        .design("flows", 1u64 << ldcp_regmap::FLOW_BITS);
    Ok(f)
}

/// Outputs of a block behind the register bus.
pub trait BusOutputs {
    /// The data of a read answered this cycle.
    fn read_data(&self) -> Option<u32>;
}

impl BusOutputs for ldcp_sim::nic_core::NicCoreOut {
    fn read_data(&self) -> Option<u32> {
        self.bus_rvalid.then_some(self.bus_rdata)
    }
}

impl BusOutputs for ldcp_sim::nic_system::SysOut {
    fn read_data(&self) -> Option<u32> {
        self.bus_rvalid.then_some(self.bus_rdata)
    }
}

/// The board core: bridge frames at `div` clocks per bit, writes and reads
/// of the NIC core's registers back to back after power-up; every frame must
/// be answered and executed once.
pub fn board_core(
    cosim: &Cosim<ldcp_sim::board::BoardModel>,
    div: u32,
    frames: u32,
) -> Result<Figures, FlowError> {
    use ldcp_sim::board::*;
    let line = |rx: bool| BoardIn {
        uart_rx: rx,
        cfg_bit_cycles: div,
        reset_hold: false,
    };
    let regs = ["ALPHA", "BETA", "RTT", "FLOW_ID", "GEN_SEED"];
    let (stim, mut ex) = UartExchange::frames(line, POR_DONE as usize + 8, div, frames, &regs);
    let mut accesses = 0u64;
    let (_, drain) = lockstep(cosim, BoardModel::new(0, true), &stim, &mut |_, o| {
        ex.observe(o.uart_tx);
        accesses += (o.obs_bus_we || o.obs_bus_re) as u64;
    })?;
    let mut f = Figures::ran(stim.len() as u64, drain);
    ex.figures(&mut f, accesses)?;
    Ok(f)
}

/// Request frames on a board's UART line and what comes back: the line
/// stimulus (idle through `lead` cycles of power-on, then `frames` frames,
/// writes and reads of `regs` alternately, each sent when the previous
/// response is through), and the response bytes decoded from the RTL's
/// transmit line, with each response's latency.
struct UartExchange {
    frames: u32,
    div: u32,
    lead: u64,
    cycles: u64,
    /// The cycle each request's last bit is on the line from.
    sent: Vec<u64>,
    dec: ldcp_sim::uart_bridge::LineDecoder,
    bytes: u64,
    /// Cycles from the end of each request to the end of its response.
    latency: Vec<u64>,
    /// The cycle `observe` is at.
    t: u64,
}

impl UartExchange {
    fn frames<I: Clone>(
        line: impl Fn(bool) -> I,
        lead: usize,
        div: u32,
        frames: u32,
        regs: &[&str],
    ) -> (Vec<I>, Self) {
        use ldcp_sim::uart_bridge::{request, serialize};
        let mut stim: Vec<I> = vec![line(true); lead];
        let mut bits = Vec::new();
        let mut sent = Vec::with_capacity(frames as usize);
        let mut rng = SplitMix64::new(1);
        for k in 0..frames {
            let r = rng.next_u64();
            let reg =
                ldcp_regmap::register(regs[(r % regs.len() as u64) as usize]).expect("a register");
            bits.clear();
            serialize(
                &request(k % 2 == 0, reg.offset, 1 + (r >> 8) as u32 % 200),
                div,
                &mut bits,
            );
            stim.extend(bits.iter().map(|&b| line(b)));
            // the request's last bit has been on the line from here
            sent.push(stim.len() as u64);
            // the host waits for the 7-byte response before the next frame
            stim.extend(std::iter::repeat_n(line(true), 72 * div as usize));
        }
        let ex = UartExchange {
            frames,
            div,
            lead: lead as u64,
            cycles: stim.len() as u64,
            sent,
            dec: ldcp_sim::uart_bridge::LineDecoder::new(div),
            bytes: 0,
            latency: Vec::with_capacity(frames as usize),
            t: 0,
        };
        (stim, ex)
    }

    /// One cycle of the RTL's transmit line.
    fn observe(&mut self, tx: bool) {
        use ldcp_sim::uart_bridge::RESP_LEN;
        if self.dec.push(tx).is_some() {
            self.bytes += 1;
            if self.bytes.is_multiple_of(RESP_LEN as u64) {
                let k = (self.bytes / RESP_LEN as u64 - 1) as usize;
                let sent = self.sent.get(k).copied().unwrap_or(self.t);
                self.latency.push(self.t.saturating_sub(sent));
            }
        }
        self.t += 1;
    }

    /// Every frame answered and executed once (`accesses` bus accesses: one
    /// per frame and the power-on CORE_RESET), and the figures.
    fn figures(mut self, f: &mut Figures, accesses: u64) -> Result<(), FlowError> {
        use ldcp_sim::uart_bridge::{REQ_LEN, RESP_LEN};
        let responses = self.bytes / RESP_LEN as u64;
        self.latency.sort_unstable();
        conserved("frames sent vs responses", self.frames as u64, responses)?;
        conserved(
            "frames sent vs bus accesses",
            self.frames as u64 + 1,
            accesses,
        )?;
        f.run("frames_sent", self.frames)
            .run(
                "offered_cycles_per_frame",
                per_cycle(self.cycles - self.lead, self.frames as u64),
            )
            .measured("responses", responses)
            .measured("bus_accesses", accesses)
            .measured(
                "response_latency_cycles_median",
                self.latency
                    .get(self.latency.len() / 2)
                    .copied()
                    .unwrap_or(0),
            )
            .measured(
                "response_latency_cycles_max",
                self.latency.last().copied().unwrap_or(0),
            )
            .design("uart_clocks_per_bit", self.div)
            .design("request_bytes", REQ_LEN)
            .design("response_bytes", RESP_LEN);
        Ok(())
    }
}

/// A shell board core ([`ldcp_sim::board_shell::ShellBoard`]: the switch
/// port's, the ULX3S's) over its UART at `div` clocks per bit: `frames`
/// request frames, writes and reads of `regs` alternately, each sent when
/// the previous response is through; every frame answered, one bus access
/// each (and the power-on CORE_RESET), the response latency, and the LEDs
/// (ready from the end of power-on, no error, activity lit while frames
/// flow and dark after the hold).
pub fn shell_board<C>(
    cosim: &Cosim<ldcp_sim::board_shell::ShellBoard<C>>,
    model: ldcp_sim::board_shell::ShellBoard<C>,
    div: u32,
    led_hold: u32,
    frames: u32,
    regs: &[&str],
) -> Result<Figures, FlowError>
where
    C: ldcp_sim::board_shell::BusCore + std::fmt::Debug + 'static,
{
    use ldcp_sim::board_shell::{ShellIn, POR_DONE};
    let line = |rx: bool| ShellIn {
        uart_rx: rx,
        cfg_bit_cycles: div,
        cfg_led_hold_cycles: led_hold,
        reset_hold: false,
    };
    let (stim, mut ex) = UartExchange::frames(line, POR_DONE as usize + 8, div, frames, regs);
    let mut accesses = 0u64;
    let (mut lit, mut errors, mut ready_at) = (0u64, 0u64, None);
    let (_, drain) = lockstep(cosim, model, &stim, &mut |_, o| {
        if o.led_ready && ready_at.is_none() {
            ready_at = Some(ex.t);
        }
        ex.observe(o.uart_tx);
        accesses += (o.obs_bus_we || o.obs_bus_re) as u64;
        lit += o.led_activity as u64;
        errors += o.led_error as u64;
    })?;
    conserved("cycles with the error LED lit", 0, errors)?;
    let mut f = Figures::ran(stim.len() as u64, drain);
    ex.figures(&mut f, accesses)?;
    f.measured("led_ready_from_cycle", ready_at.unwrap_or(u64::MAX))
        .measured("led_activity_lit_cycles", lit)
        .design("led_hold_cycles", led_hold);
    Ok(f)
}

/// A switch port core at the bus (`switch_port_core`, `pe_port_core`,
/// `switch_full_port_core`): its setup (P and full: no drain and a short
/// marking ramp, so every ECN-capable packet is marked and each is a Fast
/// CNP candidate; PE: a SID and a staged header that END.CON
/// decapsulates), then a packet command on every bus cycle (P: WRED_PKT,
/// ECT(0) and Not-ECT alternating; full: those and CD_PKT, draft 002's
/// 64 inputs in turn, alternating; PE: TI_PKT, TE_PKT and EC_PKT in
/// turn), then the drain. Counted from the
/// model's tallies, which cosimulation holds equal to the RTL's counters:
/// the packets the blocks decided per cycle of the packet phase, and
/// conservation (every command decided once; at the P node every mark a
/// Fast CNP candidate: sent, suppressed or unparsed).
pub fn switch_port_core(
    cosim: &Cosim<ldcp_sim::switch_board::SwitchCoreModel>,
    model: ldcp_sim::switch_board::SwitchCoreModel,
    packets: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::switch_board::{SwitchCoreIn, SwitchRole};
    let off = ldcp_regmap::model::offset;
    let w = |name: &str, v: u32| SwitchCoreIn::from(BusIn::write(off(name), v));
    let pe = model.role() == SwitchRole::Pe;
    let full = model.role() == SwitchRole::Full;
    let mut cd_sent = 0u64;
    let mut stim: Vec<SwitchCoreIn> = Vec::new();
    let sid = [0x2001_0db8u32, 0, 0xc0, 1];
    if pe {
        for (k, v) in sid.iter().enumerate() {
            stim.push(w(&format!("EC_SID{k}"), *v));
            stim.push(w(&format!("PKT_OUTER_DST{k}"), *v));
        }
        stim.push(w("PKT_SRH", 43 | 4 << 8 | 2 << 24));
        stim.push(w("PKT_INNER", 0x4502 | 0xb1e5 << 16));
        stim.push(w("TI_MODE", 1 | 1 << 8));
    } else {
        stim.push(w("WRED_DRAIN", 0));
        stim.push(w("WRED_K_MIN", 0));
        stim.push(w("WRED_K_MAX", 1));
        stim.push(w("FC_INTERVAL", 50));
        stim.push(w("PKT_INNER_SRC3", 0x0a00_0001));
        stim.push(w("PKT_BTH", 0x11 | 1 << 24));
    }
    let setup = stim.len() as u64;
    let names = ["TI_PKT", "TE_PKT", "EC_PKT"];
    // PE: the commands of each kind, as presented
    let mut sent = [0u64; 3];
    for k in 0..packets {
        stim.push(if pe {
            let kind = k as usize % 3;
            sent[kind] += 1;
            let v = [k as u32 & 1, (k / 3) as u32 & 3, 1][kind];
            w(names[kind], v)
        } else if full && k % 2 == 1 {
            cd_sent += 1;
            w("CD_PKT", (k / 2) as u32 & 0x3f)
        } else {
            // 64 bytes: the 1 MiB buffer holds every packet of the run
            let j = if full { k / 2 } else { k };
            w("WRED_PKT", 64 | (2 * (j as u32 & 1)) << 16)
        });
    }
    let before = model.draft001_counts();
    let (m, drain) = lockstep(cosim, model, &stim, &mut |_, _| {})?;
    let d = m.draft001_counts();
    let mut f = Figures::ran(stim.len() as u64, drain);
    f.run("setup_cycles", setup).run("packet_commands", packets);
    if pe {
        let ec: u64 = d.ec_actions.iter().sum::<u64>() - before.ec_actions.iter().sum::<u64>();
        let te = d.te_forwarded + d.te_dropped - before.te_forwarded - before.te_dropped;
        let ti = d.ti_packets - before.ti_packets;
        conserved("TI_PKT commands -> encapsulations", sent[0], ti)?;
        conserved("TE_PKT commands -> decapsulation decisions", sent[1], te)?;
        conserved("EC_PKT commands -> END.CON decisions", sent[2], ec)?;
        f.measured("decisions_per_cycle", per_cycle(ti + te + ec, packets))
            .measured("ti_compat", d.ti_compat - before.ti_compat)
            .measured("te_dropped", d.te_dropped - before.te_dropped)
            .measured("ec_decapsulated", d.ec_actions[1] - before.ec_actions[1]);
    } else {
        let w = m.wred().outputs();
        let decided = w.stat_forwarded_pkts as u64
            + w.stat_dropped_wred_pkts as u64
            + w.stat_dropped_overflow_pkts as u64;
        conserved(
            "WRED_PKT commands -> port decisions",
            packets - cd_sent,
            decided,
        )?;
        if full {
            let cd = d.cd_decisions - before.cd_decisions;
            conserved("CD_PKT commands -> draft 002 decisions", cd_sent, cd)?;
            f.measured("coord_decisions", cd)
                .measured("decisions_per_cycle", per_cycle(decided + cd, packets));
        }
        let cand = d.fc_sent + d.fc_suppressed + d.fc_unparsed;
        conserved(
            "CE marks -> Fast CNP candidates",
            w.stat_marked_pkts as u64,
            cand,
        )?;
        f.measured("port_decisions_per_cycle", per_cycle(decided, packets))
            .measured("fast_cnp_candidates_per_cycle", per_cycle(cand, packets))
            .measured("fast_cnp_sent", d.fc_sent)
            .measured("fast_cnp_suppressed", d.fc_suppressed)
            .measured("descriptors_lost_queue_full", d.fc_lost)
            .design(
                "descriptor_queue_depth",
                ldcp_sim::switch_board::DSC_QUEUE_DEPTH as u64,
            );
        f.run("fast_cnp_interval_cycles", 50);
    }
    Ok(f)
}

/// Draft 002's decision: a packet every cycle, the 64 inputs in turn;
/// every decision out in order and as `decide` says, and the counters
/// account for every congested packet (one action each).
pub fn coord_decision(
    cosim: &Cosim<ldcp_sim::coord::CoordDecisionModel>,
    cycles: u64,
) -> Result<Figures, FlowError> {
    use ldcp_sim::coord::*;
    let all: Vec<DecisionIn> = every_input().collect();
    let stim: Vec<CoordInputs> = (0..cycles as usize)
        .map(|k| CoordInputs::packet(&all[k % all.len()]))
        .collect();
    let mut want = std::collections::VecDeque::new();
    let (mut pkts_in, mut out, mut wrong, mut congested) = (0u64, 0u64, 0u64, 0u64);
    let mut last = CoordOutputs::default();
    let (_, drain) = lockstep(cosim, CoordDecisionModel::new(), &stim, &mut |i, o| {
        if i.in_valid {
            pkts_in += 1;
            congested += i.in_congested as u64;
            want.push_back(decide(&i.view()));
        }
        if o.out_valid {
            out += 1;
            wrong += (want.pop_front() != Some(o.decision())) as u64;
        }
        last = *o;
    })?;
    conserved("packets presented vs decisions", pkts_in, out)?;
    conserved("decisions not as `decide` says", 0, wrong)?;
    let actions =
        last.stat_reroutes as u64 + last.stat_type3 as u64 + last.stat_marks_allowed as u64;
    conserved("congested packets vs actions counted", congested, actions)?;
    let mut f = Figures::ran(cycles, drain);
    f.run("packets_presented", pkts_in)
        .run("input_combinations", all.len() as u64)
        .measured("decisions_out", out)
        .measured("decisions_per_cycle", per_cycle(out, cycles))
        .measured("reroutes", last.stat_reroutes)
        .measured("type3", last.stat_type3)
        .measured("marks_allowed", last.stat_marks_allowed)
        .measured("incast", last.stat_incast)
        .design("in_ready", "none: a packet presented is a packet taken")
        .design("decision_latency_cycles", DECISION_LATENCY_CYCLES);
    Ok(f)
}
