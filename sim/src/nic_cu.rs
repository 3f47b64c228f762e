//! The cycle-accurate golden model of the Alchitry Cu NIC
//! (`hdl/src/nic_cu.rs`): the NIC core's model with the sequential window
//! engine, the extension decoder's model, the sequential pacing timer's,
//! fast-start marker's and ACK generator's models, and the glue
//! register for register (the slots, results and counters shared with
//! [`crate::nic_system`]'s model, and the sender's decision). The RTL's
//! module doc describes the behaviour. Its ports are the NIC system's
//! ([`SysIn`], [`SysOut`]; the WRED/ECN port's observation outputs are 0).

use crate::ack_generator::{AckGeneratorSeqModel, AgInputs};
use crate::fast_start_marker::{FastStartMarkerSeqModel, FsInputs};
use crate::nic_core::{ev_push_word, map, NicCoreModel, FLOW_BITS};
use crate::nic_system::{
    decide, results_ro, AgAck, FsResult, Glue, GlueIn, LoopOp, LoopTable, Sender, SenderIn, SysIn,
    SysOut, SysStats,
};
use crate::pacing_timer::{PacingTimerSeqModel, PtInputs};
use ldcp_regmap::model::{BusIn, RegFileModel};
use ldcp_regmap::position::ext_regs;

/// Entries of the queue of returned ACKs in front of the fast-start marker
/// (flip-flops: the HX8K's block RAMs are spent).
pub const LOOP_ACK_QUEUE: usize = 4;

/// What the Cu's own glue did since power-up (beside [`SysStats`]), for
/// tests to show what a stimulus reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CuStats {
    /// Cycles a handed-over window waited for the core (held, not taken).
    pub handoff_waits: u64,
    /// Returned ACKs queued for the marker.
    pub queued_acks: u64,
    /// Cycles the ACK queue was full.
    pub queue_full: u64,
    /// Cycles a send waited in the send register.
    pub send_waits: u64,
    /// Cycles the marker was ready but held for the hand-off register.
    pub marker_held: u64,
    /// Engine updates the pacing timer did not take (`in_ready` low for a
    /// waiting update; the engine's results come at least 7 cycles apart
    /// and the timer writes an update within 5, so 0 by design).
    pub pt_refused: u64,
    /// Cycles a visit waited only because the op ahead (in s1) is of its
    /// flow (the RTL's s2 reads a visit's entry from registers).
    pub visits_behind: u64,
}

impl std::ops::AddAssign for CuStats {
    /// Sums two runs' figures (every field).
    fn add_assign(&mut self, o: CuStats) {
        let CuStats {
            handoff_waits,
            queued_acks,
            queue_full,
            send_waits,
            marker_held,
            pt_refused,
            visits_behind,
        } = o;
        self.handoff_waits += handoff_waits;
        self.queued_acks += queued_acks;
        self.queue_full += queue_full;
        self.send_waits += send_waits;
        self.marker_held += marker_held;
        self.pt_refused += pt_refused;
        self.visits_behind += visits_behind;
    }
}

/// The sender visits a flow only while the core's event FIFO holds fewer
/// returned ACKs than this: the sequential engine takes an ACK per 7 to 27
/// cycles, the loop can return one per 14 (a packet and its ACK through
/// the marker), so without the hold the FIFO would fill and drop ACKs.
pub const LOOP_FIFO_LIMIT: u32 = 32;

/// A returned ACK waiting for the marker.
#[derive(Clone, Copy, Debug, Default)]
struct QueuedAck {
    v: bool,
    flow: u32,
    psn: u32,
    nak: bool,
}

/// The loopback's registers, and the hand-off register.
#[derive(Clone, Copy, Debug, Default)]
struct Loop {
    snd: Sender,
    tx_v: bool,
    tx_flow: u32,
    tx_psn: u32,
    /// The marker's event is a loop packet.
    fs_lp: bool,
    rx_v: bool,
    rx_flow: u32,
    rx_psn: u32,
    rx_ce: bool,
    pipe: u32,
    sent: u32,
    delivered: u32,
    rewinds: u32,
    timeouts: u32,
    lost: u32,
    aq: [QueuedAck; LOOP_ACK_QUEUE],
    set_pend: bool,
    set_flow: u32,
    set_cw: u32,
}

/// The Cu NIC's registers, mirrored.
#[derive(Clone, Debug)]
pub struct NicCuModel {
    fb: u32,
    core: NicCoreModel,
    x: RegFileModel,
    pt: PacingTimerSeqModel,
    fs: FastStartMarkerSeqModel,
    ag: AckGeneratorSeqModel,
    lt: LoopTable,
    lw: Vec<u32>,
    lw_q: u32,
    g: Glue,
    lp: Loop,
    stats: SysStats,
    cu: CuStats,
    ro: Vec<u32>,
    set: Vec<u32>,
}

impl NicCuModel {
    /// The Cu build (256 flows) at power-up, reporting `hash` and `dirty`.
    pub fn new(hash: u32, dirty: bool) -> Self {
        let fb = FLOW_BITS;
        NicCuModel {
            fb,
            core: NicCoreModel::sized_seq_in(fb, hash, dirty, ldcp_regmap::BLOCKS_NIC_CU),
            x: RegFileModel::ext_of(ldcp_regmap::BLOCKS_NIC_CU),
            pt: PacingTimerSeqModel::new(fb),
            fs: FastStartMarkerSeqModel::new(fb),
            ag: AckGeneratorSeqModel::new(fb),
            lt: LoopTable::new(fb),
            lw: vec![1; 1 << fb],
            lw_q: 0,
            g: Glue::default(),
            lp: Loop::default(),
            stats: SysStats::default(),
            cu: CuStats::default(),
            ro: vec![0; ldcp_regmap::ext_registers().len()],
            set: vec![0; ldcp_regmap::ext_registers().len()],
        }
    }

    /// The NIC core inside.
    pub fn core(&self) -> &NicCoreModel {
        &self.core
    }

    /// What the blocks did since power-up (`wred`, `loop_dropped` and
    /// `loop_marked` stay 0: no port; `loop_lost` counts LOOP_LOST).
    pub fn stats(&self) -> SysStats {
        self.stats
    }

    /// What the Cu's own glue did since power-up.
    pub fn cu_stats(&self) -> CuStats {
        self.cu
    }

    /// Cycles since power-up.
    pub fn cycles(&self) -> u64 {
        self.core.cycles()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> SysOut {
        let c = self.core.outputs();
        let x = self.x.outputs();
        let p = self.pt.outputs();
        let a = self.ag.outputs();
        let f = self.fs.outputs();
        SysOut {
            bus_rdata: c.rdata | x.rdata,
            bus_rvalid: c.rvalid,
            obs_pt_out_valid: p.out_valid,
            obs_pt_out_flow: p.out_flow,
            obs_pt_stat_err_flow_strobe: p.stat_err_flow_strobe,
            obs_ag_out_valid: a.out_valid,
            obs_ag_out_flow: a.out_flow,
            obs_ag_out_psn: a.out_psn,
            obs_ag_out_n_pkts: a.out_n_pkts,
            obs_ag_out_ece: a.out_ece,
            obs_ag_out_nak: a.out_nak,
            obs_fs_out_valid: f.out_valid,
            obs_fs_out_flow: f.out_flow,
            obs_fs_out_err: f.out_err,
            obs_fs_out_ecn: f.out_ecn,
            obs_fs_out_csum: f.out_csum,
            obs_wred_out_valid: false,
            obs_wred_out_decision: 0,
        }
    }

    /// One rising edge with `bus` on the inputs.
    pub fn tick(&mut self, bus: &BusIn) {
        let (o, ol) = (self.g, self.lp);
        let t = self.core.taps();
        let pto = self.pt.outputs();
        let fso = self.fs.outputs();
        let ago = self.ag.outputs();
        let held = |i: usize| self.x.held(i);
        let command = |i: usize| self.x.command(i);
        let fb = self.fb;
        let mask = (1u32 << fb) - 1;
        let rst = t.core_rst;
        let mut nl = ol;

        // ---- pacing timer
        let pt_in = PtInputs {
            reset: rst,
            in_valid: t.upd_valid,
            in_restart: t.upd_restart,
            in_flow: t.upd_flow,
            in_interval_cycles: t.upd_interval,
        };
        let hold = !pto.in_ready;

        // ---- the hand-off register
        let handoff = ol
            .set_pend
            .then_some((ol.set_flow, ol.set_cw << crate::window_engine::CW_FRAC_BITS));
        if t.set_ready {
            nl.set_pend = false;
        }
        if fso.out_valid && fso.out_set {
            debug_assert!(
                !ol.set_pend || t.set_ready,
                "a second SET finds the register full"
            );
            nl.set_pend = true;
            nl.set_flow = fso.out_flow & mask;
            nl.set_cw = fso.out_cw_pkts;
        }

        // ---- the sender's op
        let lctl = held(ext_regs::LOOP_CTRL);
        let loopback = lctl & 1 != 0;
        let send = lctl & 2 != 0;
        let lp_last = map().loop_flows.get(lctl).clamp(1, 1 << fb) - 1;
        let is_visit = |op: &LoopOp| op.v && op.kind == 0;
        let snd = &ol.snd;
        // one visit at a time, and none right behind an op of its flow
        let one_visit = is_visit(&snd.s1) || is_visit(&snd.s2) || is_visit(&snd.s3) || ol.tx_v;
        let behind = snd.s1.v && snd.s1.idx == snd.ptr;
        let gate =
            send && !o.fs.pend && !t.sweeping && !one_visit && t.fifo_level < LOOP_FIFO_LIMIT;
        let lt_sweeping = self.lt.sweep.active();
        let step = snd.step(&SenderIn {
            loopback,
            visit_gate: gate && !behind,
            flow_reset: t.flow_reset.then_some(t.flow_reset_id),
            ack: ago
                .out_valid
                .then_some((ago.out_flow, ago.out_nak, ago.out_psn)),
            grant: pto.out_valid,
            grant_flow: pto.out_flow,
            sweeping: lt_sweeping,
            rst,
            last: lp_last,
            lw_q: self.lw_q,
            mask,
        });
        let (op_flow, sel_ack, g_lost) = (step.op_flow, step.sel_ack, step.g_lost);
        let d = snd.s3;
        let dec = decide(
            d,
            self.lt.ram[d.idx as usize],
            snd.t,
            held(ext_regs::LOOP_RTO),
            ol.pipe,
        );
        let w = d.v.then_some((d.idx, dec.w));
        nl.snd = step.next;
        if dec.tx {
            nl.tx_v = true;
            nl.tx_flow = d.idx;
            nl.tx_psn = dec.nx;
        }
        nl.sent = ol.sent.wrapping_add(dec.tx as u32);
        nl.rewinds = ol.rewinds.wrapping_add(dec.rewind as u32);
        nl.timeouts = ol.timeouts.wrapping_add(dec.timeout as u32);
        let sys_push = sel_ack.then_some(ev_push_word(
            ago.out_flow & mask,
            ago.out_n_pkts,
            ago.out_ece,
        ));

        // ---- the marker's port: the slot, the ACK queue's head, the send
        let hdr = held(ext_regs::FS_HDR);
        let head = ol.aq[0];
        let set_coming = fso.out_valid && fso.out_set;
        let fs_free = fso.in_ready && !ol.set_pend && !set_coming && !t.sweeping;
        let fs_take = fs_free && o.fs.pend;
        let aq_take = fs_free && !o.fs.pend && head.v;
        let pkt_leaving = fso.out_valid && ol.fs_lp;
        let tx_take = fs_free && !o.fs.pend && !head.v && ol.tx_v && !ol.rx_v && !pkt_leaving;
        let mut fs_in = FsInputs {
            reset: rst,
            in_valid: fs_take || aq_take || tx_take,
            in_kind: o.fs.kind as u8,
            in_flow: o.fs.flow,
            in_psn: o.fs.psn,
            in_last: o.fs.last,
            in_word0: o.fs.word0 as u16,
            in_csum: o.fs.csum as u16,
            cfg_iw_pkts: held(ext_regs::FS_IW),
        };
        if !o.fs.pend {
            (fs_in.in_kind, fs_in.in_flow, fs_in.in_psn) = if head.v {
                (if head.nak { 2 } else { 1 }, head.flow, head.psn)
            } else {
                (0, ol.tx_flow, ol.tx_psn)
            };
            fs_in.in_last = false;
            fs_in.in_word0 = (hdr & 0xffff) as u16;
            fs_in.in_csum = (hdr >> 16) as u16;
        }
        if fs_in.in_valid {
            nl.fs_lp = tx_take;
        }
        if tx_take {
            nl.tx_v = false;
        }

        // ---- the ACK queue (entries in order from 0, its head)
        // a full queue takes one only in a cycle it pops
        let push = sel_ack && (aq_take || !ol.aq[LOOP_ACK_QUEUE - 1].v);
        nl.lost = ol.lost.wrapping_add((sel_ack && !push) as u32);
        let mut q: Vec<QueuedAck> = ol.aq.iter().copied().filter(|a| a.v).collect();
        if aq_take {
            q.remove(0);
        }
        if push {
            q.push(QueuedAck {
                v: true,
                flow: ago.out_flow & mask,
                psn: ago.out_psn,
                nak: ago.out_nak,
            });
        }
        for (i, e) in nl.aq.iter_mut().enumerate() {
            // an entry left empty keeps its fields (the RTL's flip-flops do)
            *e = match q.get(i) {
                Some(a) => *a,
                None if aq_take && i + 1 < LOOP_ACK_QUEUE => QueuedAck {
                    v: false,
                    ..ol.aq[i + 1]
                },
                None => QueuedAck {
                    v: false,
                    ..ol.aq[i]
                },
            };
        }

        // ---- a loop packet leaving the marker: the receive register
        if fso.out_valid && ol.fs_lp {
            nl.rx_v = true;
            nl.rx_flow = fso.out_flow & mask;
            nl.rx_psn = fso.out_psn;
            nl.rx_ce = fso.out_ecn == 3;
        }

        // ---- ACK generator: the slot first, then the receive register
        let mut ag_in = AgInputs {
            reset: rst,
            in_valid: o.ag.pend || ol.rx_v,
            in_open: o.ag.kind & 1 != 0,
            in_flow: o.ag.flow,
            in_psn: o.ag.psn,
            in_ce: o.ag.ce,
            in_last: o.ag.last,
            cfg_m_pkts: held(ext_regs::AG_M),
            cfg_timeout_cycles: held(ext_regs::AG_TIMEOUT),
        };
        if !o.ag.pend {
            ag_in.in_open = false;
            ag_in.in_flow = ol.rx_flow;
            ag_in.in_psn = ol.rx_psn;
            ag_in.in_ce = ol.rx_ce;
            ag_in.in_last = false;
        }
        let ag_take = o.ag.pend && ago.in_ready;
        let rx_take = !o.ag.pend && ol.rx_v && ago.in_ready;
        if rx_take {
            nl.rx_v = false;
        }
        nl.delivered = ol.delivered.wrapping_add(rx_take as u32);
        nl.pipe = (ol.pipe + dec.tx as u32).wrapping_sub(rx_take as u32) & 0x3f;

        // ---- the slots, results and counters
        let ng = o.next(&GlueIn {
            rst,
            cnt_clear: t.cnt_clear,
            flow_reset: t.flow_reset.then_some(t.flow_reset_id),
            pto,
            fso,
            ago,
            fs_take,
            ag_take,
            fs_ev: command(ext_regs::FS_EV).is_some(),
            ag_ev: command(ext_regs::AG_EV).is_some(),
            wdata: self.x.wdata_q(),
            fs_psn: held(ext_regs::FS_PSN),
            fs_hdr: hdr,
            ag_psn: held(ext_regs::AG_PSN),
            mask,
        });
        if t.cnt_clear || rst {
            nl.sent = 0;
            nl.delivered = 0;
            nl.rewinds = 0;
            nl.timeouts = 0;
            nl.lost = 0;
        }
        if rst {
            // the fields the RTL does not reset (their valid bits are)
            nl = Loop {
                sent: nl.sent,
                delivered: nl.delivered,
                rewinds: nl.rewinds,
                timeouts: nl.timeouts,
                lost: nl.lost,
                rx_flow: nl.rx_flow,
                rx_psn: nl.rx_psn,
                rx_ce: nl.rx_ce,
                set_flow: nl.set_flow,
                set_cw: nl.set_cw,
                aq: nl.aq.map(|a| QueuedAck { v: false, ..a }),
                ..Loop::default()
            };
        }

        // ---- what the extension decoder reads (pre-edge)
        let mut ro = std::mem::take(&mut self.ro);
        let mut set = std::mem::take(&mut self.set);
        ro.fill(0);
        set.fill(0);
        o.ro(&mut ro, &mut set);
        // FS_RESULT* and AG_ACK* are the blocks' own output registers, which
        // hold their last result (the RTL keeps no copy)
        results_ro(&mut ro, FsResult::of(&fso, mask), AgAck::of(&ago, mask));
        ro[ext_regs::LOOP_STATUS] = ol.pipe;
        ro[ext_regs::LOOP_SENT] = ol.sent;
        ro[ext_regs::LOOP_DELIVERED] = ol.delivered;
        ro[ext_regs::LOOP_REWINDS] = ol.rewinds;
        ro[ext_regs::LOOP_TIMEOUTS] = ol.timeouts;
        ro[ext_regs::LOOP_LOST] = ol.lost;

        // ---- statistics
        let st = &mut self.stats;
        st.grants += pto.out_valid as u64;
        st.restarts += (t.upd_valid && t.upd_restart) as u64;
        st.fs_results += fso.out_valid as u64;
        st.fs_errors += (fso.out_valid && fso.out_err != 0) as u64;
        st.acks += ago.out_valid as u64;
        st.naks += (ago.out_valid && ago.out_nak) as u64;
        st.overruns += (ng.fs_ovr as u64) + (ng.ag_ovr as u64);
        st.flow_resets += t.flow_reset as u64;
        st.held += (hold && !rst) as u64;
        st.handoffs += (handoff.is_some() && t.set_ready) as u64;
        st.loop_sent += dec.tx as u64;
        st.loop_delivered += rx_take as u64;
        st.loop_acks += sys_push.is_some() as u64;
        st.loop_rewinds += dec.rewind as u64;
        st.loop_timeouts += dec.timeout as u64;
        st.loop_credits += (d.v && d.kind == 4) as u64;
        st.loop_grants_lost += g_lost as u64;
        st.loop_lost += (sel_ack && !push) as u64;
        let cu = &mut self.cu;
        cu.handoff_waits += (ol.set_pend && !t.set_ready) as u64;
        cu.queued_acks += push as u64;
        cu.queue_full += ol.aq[LOOP_ACK_QUEUE - 1].v as u64;
        cu.send_waits += (ol.tx_v && !tx_take) as u64;
        // (no op entered: a visit would have, but for the op ahead)
        cu.visits_behind +=
            (loopback && gate && behind && !step.next.s1.v && !rst && !lt_sweeping) as u64;
        cu.pt_refused += (t.upd_valid && !pto.in_ready && !rst) as u64;
        cu.marker_held +=
            (fso.in_ready && (ol.set_pend || (fso.out_valid && fso.out_set)) && !rst) as u64;

        // ---- the loop's RAMs: read (old data), then write
        self.lw_q = self.lw[(op_flow & mask) as usize];
        if t.upd_valid {
            self.lw[(t.upd_flow & mask) as usize] = t.upd_cw_pkts;
        }
        self.lt.tick(rst, w);

        // ---- every sub-block takes the same edge
        self.core.tick_sys(bus, hold, handoff, sys_push);
        self.pt.tick(&pt_in);
        self.fs.tick(&fs_in);
        self.ag.tick(&ag_in);
        self.x.tick(bus, rst, &ro, &set);
        self.ro = ro;
        self.set = set;
        self.g = ng;
        self.lp = nl;
    }

    /// What is in flight, by place: the core's, the slots, the hand-off,
    /// the loop's registers, and each block's.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        use crate::cosim::CosimModel;
        let mut v = self.core.in_flight();
        let l = &self.lp;
        let items = [
            ("fast-start slot", self.g.fs.pend as u64),
            ("ACK generator slot", self.g.ag.pend as u64),
            ("window hand-off", l.set_pend as u64),
            ("loop packets in flight (sender to receiver)", l.pipe as u64),
            (
                "loop sender's ops",
                [l.snd.s1.v, l.snd.s2.v, l.snd.s3.v, l.tx_v]
                    .iter()
                    .filter(|&&v| v)
                    .count() as u64,
            ),
            (
                "returned ACKs queued for the marker",
                l.aq.iter().filter(|a| a.v).count() as u64,
            ),
            ("loop packet in the receive register", l.rx_v as u64),
        ];
        v.extend(items.into_iter().filter(|(_, n)| *n > 0));
        v.extend(self.pt.in_flight());
        v.extend(self.fs.in_flight());
        v.extend(self.ag.in_flight());
        v
    }

    /// The bus cycles that bring the NIC to rest: the loop stopped, the
    /// ACK generator's timeout set to 0 (every held ACK is flushed at the
    /// scanner's next visit), the core's drain, then idle cycles for
    /// eight laps of the generator's scanner (each flush takes an op of 4
    /// cycles) and the marker's queue.
    pub fn drain_bus(&self) -> Vec<BusIn> {
        let timeout0 = BusIn::write(ldcp_regmap::position::offset::AG_TIMEOUT, 0);
        let loop_off = BusIn::write(ldcp_regmap::position::offset::LOOP_CTRL, 0);
        let mut v = self.core.drain_bus();
        v.insert(1, timeout0);
        v.insert(0, loop_off);
        v.extend(std::iter::repeat_n(BusIn::default(), 8 * (1 << self.fb)));
        v
    }
}

impl crate::cosim::CosimModel for NicCuModel {
    type Input = SysIn;
    type Output = SysOut;

    fn tick(&mut self, i: &SysIn) {
        NicCuModel::tick(self, &i.bus());
    }

    fn outputs(&self) -> SysOut {
        NicCuModel::outputs(self)
    }

    /// [`NicCuModel::drain_bus`].
    fn drain(&self, _last: Option<&SysIn>) -> Vec<SysIn> {
        NicCuModel::drain_bus(self)
            .into_iter()
            .map(SysIn::from)
            .collect()
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        NicCuModel::in_flight(self)
    }
}

/// The NIC system's bus stimulus ([`crate::nic_system::stimulus`]): its
/// WRED/ECN traffic reaches registers that drive nothing here.
pub use crate::nic_system::stimulus;

#[cfg(test)]
mod tests {
    use super::*;

    fn write(m: &mut NicCuModel, name: &str, v: u32) {
        m.tick(&BusIn::write(ldcp_regmap::model::offset(name), v));
    }

    fn read(m: &mut NicCuModel, name: &str) -> u32 {
        m.tick(&BusIn::read(ldcp_regmap::model::offset(name)));
        for _ in 1..ldcp_regmap::READ_LATENCY_CYCLES {
            m.tick(&BusIn::default());
        }
        assert!(m.outputs().bus_rvalid);
        m.outputs().bus_rdata
    }

    /// The Cu decodes the registers its BLOCKS give it: the WRED/ECN
    /// port's read as 0 and ignore writes (the decoder holds none of
    /// them), the others hold what is written.
    #[test]
    fn nic_cu_decodes_no_wred_registers() {
        let mut m = NicCuModel::new(0, true);
        for r in ldcp_regmap::ext_registers() {
            if r.access != ldcp_regmap::Access::Rw {
                continue;
            }
            let v = r.mask() & 0x5a5a_5a5a;
            write(&mut m, r.name, v);
            let got = read(&mut m, r.name);
            if r.block == "wred" {
                assert_eq!(got, 0, "{} reads 0 on the Cu", r.name);
            } else {
                assert_eq!(got, v, "{} holds what is written", r.name);
            }
        }
        let bl = read(&mut m, "BLOCKS");
        assert_eq!(bl, ldcp_regmap::BLOCKS_NIC_CU);
        assert_eq!(bl >> ldcp_regmap::BLOCK_WRED_ECN & 1, 0);
        // nor the generator's: its RW registers read 0, and a START
        // starts nothing
        assert_eq!(bl >> ldcp_regmap::BLOCK_GENERATOR & 1, 0);
        for r in ["GEN_COUNT", "GEN_SEED"] {
            write(&mut m, r, 0x1234);
            assert_eq!(read(&mut m, r), 0, "{r} reads 0 on the Cu");
        }
        write(&mut m, "GEN_CTRL", 1);
        for _ in 0..50 {
            m.tick(&BusIn::default());
        }
        assert_eq!(read(&mut m, "STATUS") >> 2 & 1, 0, "STATUS.GEN_BUSY");
        assert_eq!(read(&mut m, "GEN_CYCLES"), 0);
        assert_eq!(read(&mut m, "CNT_EVENTS"), 0);
    }

    /// The loop closes on the Cu: 8 flows sent, received, acknowledged
    /// back into the engine, the sender and the marker; one fast-start
    /// hand-off per flow, taken by the core; with no port between sender
    /// and receiver nothing is dropped or marked, so the windows grow
    /// from IW; no ACK is lost, to the marker or to the engine (the sender
    /// waits for the engine's FIFO); once SEND stops, nothing is left on
    /// chip and the bus counters agree with the model. Returns the
    /// packets sent per cycle with the ACK generator's `ag_m`.
    fn loop_run(ag_m: u32) -> f64 {
        let mut m = NicCuModel::new(0, true);
        write(&mut m, "CORE_RESET", 1);
        for _ in 0..600 {
            m.tick(&BusIn::default());
        }
        write(&mut m, "FS_IW", 4);
        write(&mut m, "AG_M", ag_m);
        write(&mut m, "LOOP_RTO", 3000);
        write(&mut m, "LOOP_CTRL", 3 | 8 << 8);
        let cycles = 60_000;
        for _ in 0..cycles {
            m.tick(&BusIn::default());
        }
        write(&mut m, "LOOP_CTRL", 1); // SEND off, LOOPBACK on: the last ACKs return
        for _ in 0..6_000 {
            m.tick(&BusIn::default());
        }
        let (st, cu) = (m.stats(), m.cu_stats());
        eprintln!("AG_M {ag_m}: {st:?}\n{cu:?}");
        assert_eq!(st.handoffs, 8, "one fast-start hand-off per flow: {st:?}");
        assert_eq!(
            st.loop_sent, st.loop_delivered,
            "nothing left on chip: {st:?}"
        );
        assert_eq!(st.loop_acks, st.acks, "every ACK returned: {st:?}");
        assert_eq!(st.loop_lost, 0, "{st:?} {cu:?}");
        assert_eq!(cu.pt_refused, 0, "the pacing timer takes every update");
        assert_eq!(read(&mut m, "LOOP_STATUS"), 0);
        assert_eq!(read(&mut m, "LOOP_SENT") as u64, st.loop_sent);
        assert_eq!(read(&mut m, "LOOP_DELIVERED") as u64, st.loop_delivered);
        assert_eq!(read(&mut m, "LOOP_LOST"), 0);
        assert_eq!(read(&mut m, "CNT_DROPPED"), 0);
        assert_eq!(read(&mut m, "CNT_EVENTS") as u64, st.acks);
        assert!(m.in_flight().is_empty(), "{:?}", m.in_flight());
        let cws: Vec<u32> = (0..8).map(|f| m.core().table(f).unwrap()).collect();
        assert!(cws.iter().all(|&c| c > 4 << 20), "{cws:?}");
        st.loop_sent as f64 / cycles as f64
    }

    /// With an ACK per packet the engine sets the pace (an ACK per 27
    /// cycles at these windows); with an ACK per 4 packets the marker does
    /// (a packet and its share of ACKs, 7 cycles each).
    #[test]
    fn nic_cu_loopback_closes_the_loop() {
        let per_ack = loop_run(1);
        assert!((1.0 / 30.0..=1.0 / 26.0).contains(&per_ack), "{per_ack}");
        let per_4 = loop_run(4);
        assert!(
            per_4 > 1.5 * per_ack && per_4 < 1.0 / 7.0,
            "{per_4} against {per_ack}"
        );
    }
}
