//! The cycle-accurate golden model of the NIC system
//! (`hdl/src/nic_system.rs`): the NIC core's model with its sweep held for
//! the pacing timer, the extension decoder's model, the four blocks' cycle
//! models and the glue (slots, result registers, counters), register for
//! register. The RTL's module doc describes the behaviour.

use crate::ack_generator::{AckGeneratorModel, AgInputs, AgOutputs};
use crate::fast_start_marker::{FastStartMarkerModel, FsInputs, FsOutputs};
use crate::nic_core::{ev_push_word, map, NicCoreModel, FLOW_BITS, FLOW_BITS_4K};
use crate::pacing_timer::{PacingTimerModel, PtInputs, PtOutputs};
use crate::wred_ecn::{WredEcnModel, WredInputs};
use ldcp_regmap::model::{BusIn, RegFileModel};
use ldcp_regmap::position::ext_regs;

crate::ports! {
    callback nic_system_ports;
    /// One cycle of the system's inputs: the register bus.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SysIn {
        /// Byte address of the access (12 bits are decoded).
        bus_addr: u32 = ldcp_regmap::ADDR_BITS,
        /// Write data.
        bus_wdata: u32 = 32,
        /// Write strobe.
        bus_we: bool = 1,
        /// Read strobe (`bus_rdata` is valid with `bus_rvalid` `READ_LATENCY_CYCLES` later).
        bus_re: bool = 1,
    }
    /// The system's outputs: the bus, and every block's registered outputs
    /// as observation ports (so cosimulation compares them every cycle, not
    /// only through bus reads).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SysOut {
        /// Read data of the last cycle's read (0 otherwise).
        bus_rdata: u32 = 32,
        /// `bus_rdata` holds a read's data.
        bus_rvalid: bool = 1,
        /// The pacing timer grants a send credit.
        obs_pt_out_valid: bool = 1,
        /// Its flow.
        obs_pt_out_flow: u32 = crate::FLOW_ID_BITS as u32,
        /// The pacing timer refused an update's flow id.
        obs_pt_stat_err_flow_strobe: bool = 1,
        /// The ACK generator sends an ACK.
        obs_ag_out_valid: bool = 1,
        /// Its flow.
        obs_ag_out_flow: u32 = crate::FLOW_ID_BITS as u32,
        /// Its PSN.
        obs_ag_out_psn: u32 = crate::ack_generator::PSN_BITS,
        /// Its n, packets.
        obs_ag_out_n_pkts: u32 = crate::ack_generator::N_BITS as u32,
        /// Its ECE.
        obs_ag_out_ece: bool = 1,
        /// A NAK.
        obs_ag_out_nak: bool = 1,
        /// The fast-start marker has a result.
        obs_fs_out_valid: bool = 1,
        /// Its flow.
        obs_fs_out_flow: u32 = crate::FLOW_ID_BITS as u32,
        /// Its error.
        obs_fs_out_err: u8 = 2,
        /// Its ECN codepoint.
        obs_fs_out_ecn: u8 = 2,
        /// Its checksum.
        obs_fs_out_csum: u16 = 16,
        /// The WRED/ECN port decided on a packet.
        obs_wred_out_valid: bool = 1,
        /// Its decision.
        obs_wred_out_decision: u8 = 2,
    }
}

impl From<BusIn> for SysIn {
    fn from(b: BusIn) -> Self {
        SysIn {
            bus_addr: b.addr & (ldcp_regmap::WINDOW_BYTES - 1),
            bus_wdata: b.wdata,
            bus_we: b.we,
            bus_re: b.re,
        }
    }
}

impl SysIn {
    /// The bus.
    pub fn bus(&self) -> BusIn {
        BusIn {
            addr: self.bus_addr,
            wdata: self.bus_wdata,
            we: self.bus_we,
            re: self.bus_re,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slot {
    pub(crate) pend: bool,
    pub(crate) kind: u32,
    pub(crate) flow: u32,
    pub(crate) last: bool,
    pub(crate) ce: bool,
    pub(crate) psn: u32,
    pub(crate) word0: u32,
    pub(crate) csum: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FsResult {
    kind: u32,
    err: u32,
    ecn: u32,
    stage: u32,
    set: bool,
    gbn: bool,
    flow: u32,
    word0: u32,
    csum: u32,
    psn: u32,
    cw: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgAck {
    psn: u32,
    n: u32,
    ece: bool,
    nak: bool,
    flow: u32,
}

impl FsResult {
    /// The marker's result on its outputs (the flow's low bits, `mask`).
    pub(crate) fn of(fso: &crate::fast_start_marker::FsOutputs, mask: u32) -> Self {
        FsResult {
            kind: fso.out_kind as u32,
            err: fso.out_err as u32,
            ecn: fso.out_ecn as u32,
            stage: fso.out_stage as u32,
            set: fso.out_set,
            gbn: fso.out_gbn,
            flow: fso.out_flow & mask,
            word0: fso.out_word0 as u32,
            csum: fso.out_csum as u32,
            psn: fso.out_psn,
            cw: fso.out_cw_pkts,
        }
    }
}

impl AgAck {
    /// The ACK generator's ACK on its outputs (the flow's low bits, `mask`).
    pub(crate) fn of(ago: &crate::ack_generator::AgOutputs, mask: u32) -> Self {
        AgAck {
            psn: ago.out_psn,
            n: ago.out_n_pkts,
            ece: ago.out_ece,
            nak: ago.out_nak,
            flow: ago.out_flow & mask,
        }
    }
}

/// FS_RESULT* and AG_ACK* as registers show `r` and `a`.
pub(crate) fn results_ro(ro: &mut [u32], r: FsResult, a: AgAck) {
    ro[ext_regs::FS_RESULT] = r.kind
        | r.err << 2
        | r.ecn << 4
        | r.stage << 6
        | (r.set as u32) << 8
        | (r.gbn as u32) << 9
        | map().fs_result_flow.put(r.flow);
    ro[ext_regs::FS_RESULT_HDR] = r.word0 | r.csum << 16;
    ro[ext_regs::FS_RESULT_PSN] = r.psn;
    ro[ext_regs::FS_RESULT_CW] = r.cw;
    ro[ext_regs::AG_ACK] = a.psn | a.n << 24 | (a.ece as u32) << 28 | (a.nak as u32) << 29;
    ro[ext_regs::AG_ACK_FLOW] = a.flow;
}

/// Stages of the loop's delay line beside the fast-start marker.
const LOOP_FS_STAGES: usize = crate::fast_start_marker::LATENCY_CYCLES;
/// Stages of the loop's delay line beside the WRED/ECN port.
const LOOP_WRED_STAGES: usize = crate::wred_ecn::LATENCY_CYCLES;
/// Entries of the receive queue in front of the ACK generator (and the
/// sender's credit: packets sent and not yet taken or dropped).
pub const LOOP_RX_DEPTH: u32 = 32;
const _: () = assert!(LOOP_FS_STAGES == 5 && LOOP_WRED_STAGES == 12 && LOOP_RX_DEPTH == 32);
pub(crate) const M24: u32 = 0xff_ffff;
/// Bits of a flow's window in whole packets (the sender reads it, `lw`)
/// and so of its packets in flight (next PSN - acknowledged): a send needs
/// fewer in flight than the window, every other op leaves fewer or none,
/// and a table starts at 0, so a flow never has more than
/// 2^LOOP_WINDOW_BITS - 1 (`packets_in_flight_stay_below_the_widest_window`).
/// The Cu NIC's RTL keeps the count in these bits.
pub const LOOP_WINDOW_BITS: usize = 12;

/// The sender's per-flow table (next PSN | acknowledged PSN | stamp |
/// send credit), as the RTL's deep `TableSweep` keeps it: every op sees
/// the writes of the ops before it, in order, so the table is the state.
/// A reset zeroes it (the sweep, which no op can watch: none is taken
/// until it ends).
#[derive(Clone, Debug)]
pub(crate) struct LoopTable {
    pub(crate) ram: Vec<u128>,
    pub(crate) sweep: crate::Sweep,
}

impl LoopTable {
    pub(crate) fn new(flow_bits: u32) -> Self {
        LoopTable {
            ram: vec![0; 1 << flow_bits],
            sweep: crate::Sweep::default(),
        }
    }

    /// One edge: the s3 op's write (`write`: entry, state); none in a reset.
    pub(crate) fn tick(&mut self, reset: bool, write: Option<(u32, u128)>) {
        if reset {
            self.ram.fill(0);
        } else if let Some((idx, w)) = write {
            self.ram[idx as usize] = w;
        }
        self.sweep.tick(reset, self.ram.len());
    }
}

/// An op of the sender's table in one of its stages.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LoopOp {
    pub(crate) v: bool,
    /// 0 a visit, 1 an ACK, 2 a NAK, 3 a flow reset, 4 a pacing grant.
    pub(crate) kind: u32,
    pub(crate) psn: u32,
    pub(crate) idx: u32,
    /// The flow's window, whole packets (read with the table, from s2 on).
    pub(crate) lw: u32,
}

/// The sender's op stages and its round robin, which both NIC systems'
/// loops keep alike: the visit pointer, the time stamp counter, the op in
/// s1, s2, s3, and the pacing grant held.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sender {
    pub(crate) ptr: u32,
    pub(crate) t: u32,
    pub(crate) s1: LoopOp,
    pub(crate) s2: LoopOp,
    pub(crate) s3: LoopOp,
    pub(crate) g_pend: bool,
    pub(crate) g_flow: u32,
}

/// What the sender's op stage sees in a cycle.
pub(crate) struct SenderIn {
    /// LOOP_CTRL.LOOPBACK.
    pub(crate) loopback: bool,
    /// A visit may be issued, as far as the system is concerned (SEND, and
    /// each system's own holds).
    pub(crate) visit_gate: bool,
    /// A flow reset accepted: its flow.
    pub(crate) flow_reset: Option<u32>,
    /// The ACK generator's output (with LOOPBACK): flow, NAK, PSN.
    pub(crate) ack: Option<(u32, bool, u32)>,
    /// The pacing timer grants this cycle, and its flow output (read as
    /// the RTL reads it, valid or not).
    pub(crate) grant: bool,
    pub(crate) grant_flow: u32,
    /// The table sweeps (no op is taken).
    pub(crate) sweeping: bool,
    pub(crate) rst: bool,
    /// The last flow the sender visits.
    pub(crate) last: u32,
    /// The window RAM's read of the s1 op's flow.
    pub(crate) lw_q: u32,
    pub(crate) mask: u32,
}

/// The sender's op of a cycle.
pub(crate) struct SenderStep {
    /// The registers after the edge.
    pub(crate) next: Sender,
    /// The op's flow (the tables' read address).
    pub(crate) op_flow: u32,
    /// A returned ACK is the op (it also goes to the engine's FIFO).
    pub(crate) sel_ack: bool,
    /// A grant was lost: one came while one was held and the port taken.
    pub(crate) g_lost: bool,
}

impl Sender {
    /// The op of this cycle: a flow reset, a returned ACK, a pacing grant
    /// (the one held, else the timer's), or a visit of the next flow.
    pub(crate) fn step(&self, i: &SenderIn) -> SenderStep {
        let o = self;
        let mask = i.mask;
        let sel_ack = i.loopback && i.ack.is_some();
        let g_cand = o.g_pend || i.grant;
        let g_flow = if o.g_pend {
            o.g_flow
        } else {
            i.grant_flow & mask
        };
        let reset = i.flow_reset.is_some();
        let sel_grant = i.loopback && g_cand && !reset && !sel_ack && !i.sweeping;
        let visit = i.loopback && i.visit_gate && !reset && !sel_ack && !sel_grant;
        let op_v = (reset || sel_ack || sel_grant || visit) && !i.sweeping && !i.rst;
        let (op_flow, op_kind, op_psn) = match (i.flow_reset, i.ack) {
            (Some(id), _) => (id, 3, 0),
            (None, Some((flow, nak, psn))) if sel_ack => {
                (flow & mask, if nak { 2 } else { 1 }, psn)
            }
            _ if sel_grant => (g_flow, 4, 0),
            _ => (o.ptr, 0, 0),
        };
        let mut n = *o;
        n.s1 = LoopOp {
            v: op_v,
            kind: op_kind,
            psn: op_psn,
            idx: op_flow & mask,
            lw: 0,
        };
        n.s2 = LoopOp {
            v: o.s1.v && !i.rst,
            lw: i.lw_q,
            ..o.s1
        };
        n.s3 = LoopOp {
            v: o.s2.v && !i.rst,
            ..o.s2
        };
        if visit && op_v {
            n.ptr = if o.ptr >= i.last { 0 } else { o.ptr + 1 };
        }
        // the grant held: the timer's new one while the held one went in,
        // or the timer's that found the port taken (a held one is kept, and
        // a new one then is lost: the timer grants again an interval later)
        let mut g_lost = false;
        if sel_grant && op_v {
            n.g_pend = o.g_pend && i.grant;
            n.g_flow = i.grant_flow & mask;
        } else if o.g_pend {
            g_lost = i.grant;
        } else {
            n.g_pend = i.loopback && i.grant;
            n.g_flow = i.grant_flow & mask;
        }
        n.t = (o.t + 1) & 0xffff;
        SenderStep {
            next: n,
            op_flow,
            sel_ack,
            g_lost,
        }
    }
}

/// The s3 op's decision: the state written back (every op writes it,
/// changed or not), and whether the op sends, rewinds, by timeout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decision {
    pub(crate) w: u128,
    pub(crate) tx: bool,
    pub(crate) rewind: bool,
    pub(crate) timeout: bool,
    /// The flow's next PSN before the op (a send's PSN).
    pub(crate) nx: u32,
}

/// The s3 op `d`'s decision on its flow's state `st` (next PSN |
/// acknowledged | stamp | send credit) at the sender's time `t`, with
/// LOOP_RTO `rto` and `pipe` loop packets on chip.
pub(crate) fn decide(d: LoopOp, st: u128, t: u32, rto: u32, pipe: u32) -> Decision {
    let (nx, ak) = (st as u32 & M24, (st >> 24) as u32 & M24);
    let (stamp, credit) = ((st >> 48) as u32 & 0xffff, (st >> 64) & 1 != 0);
    let infl = nx.wrapping_sub(ak) & M24;
    let age = t.wrapping_sub(stamp) & 0xffff;
    let e = d.psn;
    let pack = |nx: u32, ak: u32, stamp: u32, credit: bool| {
        nx as u128 | (ak as u128) << 24 | (stamp as u128) << 48 | (credit as u128) << 64
    };
    let (mut w, mut tx, mut rewind, mut timeout) = (st, false, false, false);
    match d.kind {
        0 => {
            // below one packet (cw's whole part 0) a send needs a credit
            // and nothing in flight
            let may = if d.lw == 0 {
                credit && infl == 0
            } else {
                infl < d.lw
            };
            if infl != 0 && rto != 0 && age >= rto {
                w = pack(ak, ak, t, credit);
                rewind = true;
                timeout = true;
            } else if may && pipe < LOOP_RX_DEPTH {
                let stamp = if infl == 0 { t } else { stamp };
                w = pack((nx + 1) & M24, ak, stamp, false);
                tx = true;
            }
        }
        1 => {
            let adv = e.wrapping_sub(ak) & M24;
            if adv != 0 && adv < 1 << 23 {
                let past = e.wrapping_sub(nx) & M24;
                let nnx = if past != 0 && past < 1 << 23 { e } else { nx };
                w = pack(nnx, e, t, credit);
            }
        }
        2 if e.wrapping_sub(ak) & M24 < 1 << 23 => {
            w = pack(e, e, t, credit);
            rewind = nx != e;
        }
        3 => w = 0,
        4 => w = st | 1 << 64,
        _ => {}
    }
    Decision {
        w,
        tx: d.v && tx,
        rewind: d.v && rewind,
        timeout: d.v && timeout,
        nx,
    }
}

/// A returned ACK on its way to the marker.
#[derive(Clone, Copy, Debug, Default)]
struct LoopAck {
    v: bool,
    flow: u32,
    psn: u32,
    nak: bool,
}

/// Cycles from a returned ACK to the marker: the sender's op stages (s1,
/// s2, s3) and its send register, so a returned ACK and a send never meet.
pub const LOOP_ACK_STAGES: usize = 4;

/// The loopback's registers (see the RTL's module doc, Loopback).
#[derive(Clone, Copy, Debug, Default)]
struct Loop {
    snd: Sender,
    tx_v: bool,
    tx_flow: u32,
    tx_psn: u32,
    ad: [LoopAck; LOOP_ACK_STAGES],
    fst: [bool; LOOP_FS_STAGES],
    wd_v: [bool; LOOP_WRED_STAGES],
    wd_flow: [u32; LOOP_WRED_STAGES],
    wd_psn: [u32; LOOP_WRED_STAGES],
    rx_wr: u32,
    rx_wr_d: u32,
    rx_rd: u32,
    rx_q: u64,
    pipe: u32,
    sent: u32,
    delivered: u32,
    rewinds: u32,
    timeouts: u32,
    wred_ovr: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct State {
    lp: Loop,
    por_done: bool,
    g: Glue,
    wred_decision: u32,
    wred_ecn: u32,
}

/// The registers both NIC systems (this and `crate::nic_cu`'s) keep alike
/// around their blocks: the two slots, the result registers, the counters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Glue {
    pub(crate) fs: Slot,
    pub(crate) ag: Slot,
    pub(crate) fs_ovr: bool,
    pub(crate) ag_ovr: bool,
    pt_grants: u32,
    pt_last_flow: u32,
    pt_last_late: u32,
    pt_max_late: u32,
    fs_r: FsResult,
    fs_events: u32,
    fs_errors: u32,
    ag_a: AgAck,
    ag_acks: u32,
    ag_naks: u32,
    ag_errors: u32,
    ag_err: u32,
}

/// What the glue sees in a cycle.
pub(crate) struct GlueIn {
    pub(crate) rst: bool,
    pub(crate) cnt_clear: bool,
    /// A FLOW_CMD RESET accepted: its flow.
    pub(crate) flow_reset: Option<u32>,
    pub(crate) pto: PtOutputs,
    pub(crate) fso: FsOutputs,
    pub(crate) ago: AgOutputs,
    /// The marker takes its slot's event; the ACK generator its slot's.
    pub(crate) fs_take: bool,
    pub(crate) ag_take: bool,
    /// FS_EV, AG_EV written (their commands this cycle).
    pub(crate) fs_ev: bool,
    pub(crate) ag_ev: bool,
    /// The word a command carries this cycle.
    pub(crate) wdata: u32,
    pub(crate) fs_psn: u32,
    pub(crate) fs_hdr: u32,
    pub(crate) ag_psn: u32,
    pub(crate) mask: u32,
}

impl Glue {
    /// The registers after this edge.
    pub(crate) fn next(&self, i: &GlueIn) -> Glue {
        let (o, mask) = (self, i.mask);
        let mut n = *o;
        let (pto, fso, ago) = (&i.pto, &i.fso, &i.ago);
        if pto.out_valid {
            n.pt_grants = o.pt_grants.wrapping_add(1);
            n.pt_last_flow = pto.out_flow & mask;
            n.pt_last_late = pto.out_late_cycles;
            if pto.out_late_cycles > o.pt_max_late {
                n.pt_max_late = pto.out_late_cycles;
            }
        }
        // the fast-start slot
        if i.fs_take {
            n.fs.pend = false;
        }
        n.fs_ovr = false;
        if i.fs_ev || i.flow_reset.is_some() {
            if o.fs.pend && !i.fs_take {
                n.fs_ovr = true;
            } else {
                let v = i.wdata;
                n.fs = Slot {
                    pend: true,
                    kind: v & 3,
                    flow: (v >> 8) & mask,
                    last: v & 4 != 0,
                    ce: false,
                    psn: i.fs_psn,
                    word0: i.fs_hdr & 0xffff,
                    csum: i.fs_hdr >> 16,
                };
                if let Some(id) = i.flow_reset {
                    n.fs.kind = 3;
                    n.fs.flow = id;
                    n.fs.last = false;
                    n.fs.psn = 0;
                }
            }
        }
        if fso.out_valid {
            n.fs_r = FsResult::of(fso, mask);
            n.fs_events = o.fs_events.wrapping_add(1);
            if fso.out_err != 0 {
                n.fs_errors = o.fs_errors.wrapping_add(1);
            }
        }
        // the ACK generator's slot
        if i.ag_take {
            n.ag.pend = false;
        }
        n.ag_ovr = false;
        if i.ag_ev || i.flow_reset.is_some() {
            if o.ag.pend && !i.ag_take {
                n.ag_ovr = true;
            } else {
                let v = i.wdata;
                n.ag = Slot {
                    pend: true,
                    kind: v & 1,
                    flow: (v >> 8) & mask,
                    last: v & 4 != 0,
                    ce: v & 2 != 0,
                    psn: i.ag_psn,
                    word0: 0,
                    csum: 0,
                };
                if let Some(id) = i.flow_reset {
                    n.ag.kind = 1;
                    n.ag.flow = id;
                    n.ag.ce = false;
                    n.ag.last = false;
                    n.ag.psn = 0;
                }
            }
        }
        if ago.out_valid {
            n.ag_a = AgAck::of(ago, mask);
            n.ag_acks = o.ag_acks.wrapping_add(1);
            if ago.out_nak {
                n.ag_naks = o.ag_naks.wrapping_add(1);
            }
        }
        if ago.stat_err != 0 {
            n.ag_errors = o.ag_errors.wrapping_add(1);
            n.ag_err = ago.stat_err as u32;
        }
        if i.cnt_clear || i.rst {
            n.pt_grants = 0;
            n.pt_max_late = 0;
            n.fs_events = 0;
            n.fs_errors = 0;
            n.ag_acks = 0;
            n.ag_naks = 0;
            n.ag_errors = 0;
        }
        if i.rst {
            n.fs.pend = false;
            n.ag.pend = false;
            n.fs_ovr = false;
            n.ag_ovr = false;
            n.pt_last_flow = 0;
            n.pt_last_late = 0;
            n.fs_r = FsResult::default();
            n.ag_a = AgAck::default();
            n.ag_err = 0;
        }
        n
    }

    /// What the extension decoder reads of them (pre-edge), and the W1C
    /// sets of the slots' overruns (XERRORS bits 0 and 1).
    pub(crate) fn ro(&self, ro: &mut [u32], set: &mut [u32]) {
        let o = self;
        ro[ext_regs::XSTATUS] = o.fs.pend as u32 | (o.ag.pend as u32) << 1;
        set[ext_regs::XERRORS] = o.fs_ovr as u32 | (o.ag_ovr as u32) << 1;
        ro[ext_regs::PT_GRANTS] = o.pt_grants;
        ro[ext_regs::PT_LAST] =
            map().pt_last_flow.put(o.pt_last_flow) | map().pt_last_late.put(o.pt_last_late);
        ro[ext_regs::PT_MAX_LATE] = o.pt_max_late;
        results_ro(ro, o.fs_r, o.ag_a);
        ro[ext_regs::FS_EVENTS] = o.fs_events;
        ro[ext_regs::FS_ERRORS] = o.fs_errors;
        ro[ext_regs::AG_ACKS] = o.ag_acks;
        ro[ext_regs::AG_NAKS] = o.ag_naks;
        ro[ext_regs::AG_ERRORS] = o.ag_errors;
        ro[ext_regs::AG_ERR] = o.ag_err;
    }
}

/// What the extension blocks did since power-up (not part of the RTL: for
/// tests to show what a stimulus reached).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SysStats {
    /// Pacing grants.
    pub grants: u64,
    /// Pacing restarts (flow resets reaching the timer).
    pub restarts: u64,
    /// Fast-start results.
    pub fs_results: u64,
    /// Of them, with an error.
    pub fs_errors: u64,
    /// ACKs (NAKs included).
    pub acks: u64,
    /// NAKs.
    pub naks: u64,
    /// WRED/ECN decisions: forwarded, marked, dropped (either cause).
    pub wred: [u64; 3],
    /// Requests dropped at a full slot.
    pub overruns: u64,
    /// Flow resets sent to the fast-start marker and the ACK generator.
    pub flow_resets: u64,
    /// Cycles the core's sweep was held for the pacing timer.
    pub held: u64,
    /// Windows the fast-start marker handed to the window engine (SETs).
    pub handoffs: u64,
    /// Loop packets sent (retransmissions included).
    pub loop_sent: u64,
    /// Loop packets the receiver took.
    pub loop_delivered: u64,
    /// Loop packets the port dropped.
    pub loop_dropped: u64,
    /// Loop packets marked CE by the port.
    pub loop_marked: u64,
    /// ACKs returned to the engine's FIFO.
    pub loop_acks: u64,
    /// Go-back-N rewinds (NAKs and timeouts).
    pub loop_rewinds: u64,
    /// Of them, timeouts.
    pub loop_timeouts: u64,
    /// Pacing grants that became send credits.
    pub loop_credits: u64,
    /// Pacing grants lost: one came while one was held and the port taken.
    pub loop_grants_lost: u64,
    /// Loop events a block could not take (never: the model asserts
    /// nothing and counts them here for the tests).
    pub loop_lost: u64,
}

impl std::ops::AddAssign for SysStats {
    /// Sums two runs' figures (every field: a new one must be added here).
    fn add_assign(&mut self, o: SysStats) {
        let SysStats {
            grants,
            restarts,
            fs_results,
            fs_errors,
            acks,
            naks,
            wred,
            overruns,
            flow_resets,
            held,
            handoffs,
            loop_sent,
            loop_delivered,
            loop_dropped,
            loop_marked,
            loop_acks,
            loop_rewinds,
            loop_timeouts,
            loop_credits,
            loop_grants_lost,
            loop_lost,
        } = o;
        self.grants += grants;
        self.restarts += restarts;
        self.fs_results += fs_results;
        self.fs_errors += fs_errors;
        self.acks += acks;
        self.naks += naks;
        for (a, b) in self.wred.iter_mut().zip(wred) {
            *a += b;
        }
        self.overruns += overruns;
        self.flow_resets += flow_resets;
        self.held += held;
        self.handoffs += handoffs;
        self.loop_sent += loop_sent;
        self.loop_delivered += loop_delivered;
        self.loop_dropped += loop_dropped;
        self.loop_marked += loop_marked;
        self.loop_acks += loop_acks;
        self.loop_rewinds += loop_rewinds;
        self.loop_timeouts += loop_timeouts;
        self.loop_credits += loop_credits;
        self.loop_grants_lost += loop_grants_lost;
        self.loop_lost += loop_lost;
    }
}

/// The NIC system's registers, mirrored.
#[derive(Clone, Debug)]
pub struct NicSystemModel {
    /// The build's flow bits (every block's).
    fb: u32,
    core: NicCoreModel,
    x: RegFileModel,
    pt: PacingTimerModel,
    fs: FastStartMarkerModel,
    ag: AckGeneratorModel,
    wred: WredEcnModel,
    lt: LoopTable,
    lw: Vec<u32>,
    lw_q: u32,
    rx: Vec<u64>,
    s: State,
    stats: SysStats,
    /// The values driven into the extension decoder's RO registers and its
    /// W1C sets, refilled every tick (kept to spare two allocations a cycle).
    ro: Vec<u32>,
    set: Vec<u32>,
}

impl NicSystemModel {
    /// The system of the iCE40-size build (256 flows) at power-up,
    /// reporting `hash` and `dirty` as its build.
    pub fn new(hash: u32, dirty: bool) -> Self {
        Self::sized(FLOW_BITS, hash, dirty)
    }

    /// The system of the ECP5 build (4,096 flows).
    pub fn new_4k(hash: u32, dirty: bool) -> Self {
        Self::sized(FLOW_BITS_4K, hash, dirty)
    }

    /// The system of a build with 2^`flow_bits` flows.
    pub fn sized(flow_bits: u32, hash: u32, dirty: bool) -> Self {
        NicSystemModel {
            fb: flow_bits,
            core: NicCoreModel::sized(flow_bits, hash, dirty, true),
            x: RegFileModel::ext(),
            pt: PacingTimerModel::new(flow_bits),
            fs: FastStartMarkerModel::new(flow_bits),
            ag: AckGeneratorModel::new(flow_bits),
            wred: WredEcnModel::new(),
            lt: LoopTable::new(flow_bits),
            // the engine's window at configuration: 1.0 for every flow
            lw: vec![1; 1 << flow_bits],
            lw_q: 0,
            rx: vec![0; LOOP_RX_DEPTH as usize],
            s: State::default(),
            stats: SysStats::default(),
            ro: vec![0; ldcp_regmap::ext_registers().len()],
            set: vec![0; ldcp_regmap::ext_registers().len()],
        }
    }

    /// The build's flow bits (CAPS.FLOW_BITS).
    pub fn flow_bits(&self) -> u32 {
        self.fb
    }

    /// The NIC core inside.
    pub fn core(&self) -> &NicCoreModel {
        &self.core
    }

    /// What the extension blocks did since power-up.
    pub fn stats(&self) -> SysStats {
        self.stats
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
        let w = self.wred.outputs();
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
            obs_wred_out_valid: w.out_valid,
            obs_wred_out_decision: w.out_decision,
        }
    }

    /// One rising edge with `bus` on the inputs.
    pub fn tick(&mut self, bus: &BusIn) {
        let o = self.s;
        let t = self.core.taps();
        let pto = self.pt.outputs();
        let fso = self.fs.outputs();
        let ago = self.ag.outputs();
        let wo = self.wred.outputs();
        let held = |i: usize| self.x.held(i);
        let command = |i: usize| self.x.command(i);
        let fb = self.fb;
        let mask = (1u32 << fb) - 1;
        let rst = t.core_rst;
        let mut n = o;

        // ---- pacing timer
        let pt_in = PtInputs {
            reset: rst,
            in_valid: t.upd_valid,
            in_restart: t.upd_restart,
            in_flow: t.upd_flow,
            in_interval_cycles: t.upd_interval,
        };
        let hold = !pto.in_ready;

        // ---- the loopback: the sender's op (a flow reset, a returned ACK,
        // or a visit of the next flow), and the decision on the s1 op
        let ol = o.lp;
        let lctl = held(ext_regs::LOOP_CTRL);
        let loopback = lctl & 1 != 0;
        let send = lctl & 2 != 0;
        let lp_last = map().loop_flows.get(lctl).clamp(1, 1 << fb) - 1;
        let step = ol.snd.step(&SenderIn {
            loopback,
            visit_gate: send && !o.g.fs.pend && !t.sweeping,
            flow_reset: t.flow_reset.then_some(t.flow_reset_id),
            ack: ago
                .out_valid
                .then_some((ago.out_flow, ago.out_nak, ago.out_psn)),
            grant: pto.out_valid,
            grant_flow: pto.out_flow,
            sweeping: self.lt.sweep.active(),
            rst,
            last: lp_last,
            lw_q: self.lw_q,
            mask,
        });
        let (op_flow, sel_ack, g_lost) = (step.op_flow, step.sel_ack, step.g_lost);
        // the s3 op: the decision on its flow's state; every op writes the
        // state back, changed or not
        let d = ol.snd.s3;
        let dec = decide(
            d,
            self.lt.ram[d.idx as usize],
            ol.snd.t,
            held(ext_regs::LOOP_RTO),
            ol.pipe,
        );
        let w = d.v.then_some((d.idx, dec.w));
        let (tx, rewind, timeout) = (dec.tx, dec.rewind, dec.timeout);
        let mut nl = ol;
        nl.snd = step.next;
        nl.tx_v = tx;
        nl.tx_flow = d.idx;
        nl.tx_psn = dec.nx;
        nl.sent = ol.sent.wrapping_add(tx as u32);
        nl.rewinds = ol.rewinds.wrapping_add(rewind as u32);
        nl.timeouts = ol.timeouts.wrapping_add(timeout as u32);
        // the returned ACK: to the marker LOOP_ACK_STAGES cycles on (when
        // the sender's op of this cycle would have sent), to the engine's
        // FIFO now
        nl.ad[0] = LoopAck {
            v: sel_ack,
            flow: ago.out_flow & mask,
            psn: ago.out_psn,
            nak: ago.out_nak,
        };
        nl.ad[1..].copy_from_slice(&ol.ad[..LOOP_ACK_STAGES - 1]);
        let ack_fs = ol.ad[LOOP_ACK_STAGES - 1];
        let sys_push = sel_ack.then_some(ev_push_word(
            ago.out_flow & mask,
            ago.out_n_pkts,
            ago.out_ece,
        ));

        // ---- fast-start marker
        let hdr = held(ext_regs::FS_HDR);
        // the slot waits while the core sweeps (no hand-off meets the sweep)
        // and while a loop event holds the port
        let lp_fs = ack_fs.v || ol.tx_v;
        let mut fs_in = FsInputs {
            reset: rst,
            in_valid: lp_fs || (o.g.fs.pend && !t.sweeping),
            in_kind: o.g.fs.kind as u8,
            in_flow: o.g.fs.flow,
            in_psn: o.g.fs.psn,
            in_last: o.g.fs.last,
            in_word0: o.g.fs.word0 as u16,
            in_csum: o.g.fs.csum as u16,
            cfg_iw_pkts: held(ext_regs::FS_IW),
        };
        if lp_fs {
            (fs_in.in_kind, fs_in.in_flow, fs_in.in_psn) = if ack_fs.v {
                (if ack_fs.nak { 2 } else { 1 }, ack_fs.flow, ack_fs.psn)
            } else {
                (0, ol.tx_flow, ol.tx_psn)
            };
            fs_in.in_last = false;
            fs_in.in_word0 = (hdr & 0xffff) as u16;
            fs_in.in_csum = (hdr >> 16) as u16;
        }
        let fs_take = o.g.fs.pend && fso.in_ready && !t.sweeping && !lp_fs;
        nl.fst[0] = ol.tx_v && fso.in_ready;
        for i in 1..LOOP_FS_STAGES {
            nl.fst[i] = ol.fst[i - 1];
        }
        let lost_fs = lp_fs && !fso.in_ready;
        // the hand-off: the window decided at the transition, as a SET
        let handoff = (fso.out_valid && fso.out_set).then_some((
            fso.out_flow & mask,
            fso.out_cw_pkts << crate::window_engine::CW_FRAC_BITS,
        ));

        // ---- ACK generator
        // the slot first, then the head of the loop's receive queue
        let rx_avail = ol.rx_wr_d != ol.rx_rd;
        let mut ag_in = AgInputs {
            reset: rst,
            in_valid: o.g.ag.pend || rx_avail,
            in_open: o.g.ag.kind & 1 != 0,
            in_flow: o.g.ag.flow,
            in_psn: o.g.ag.psn,
            in_ce: o.g.ag.ce,
            in_last: o.g.ag.last,
            cfg_m_pkts: held(ext_regs::AG_M),
            cfg_timeout_cycles: held(ext_regs::AG_TIMEOUT),
        };
        if !o.g.ag.pend {
            ag_in.in_open = false;
            ag_in.in_flow = (ol.rx_q >> 25) as u32 & mask;
            ag_in.in_psn = ol.rx_q as u32 & M24;
            ag_in.in_ce = (ol.rx_q >> 24) & 1 != 0;
            ag_in.in_last = false;
        }
        let ag_take = o.g.ag.pend && ago.in_ready;
        let rx_take = !o.g.ag.pend && rx_avail && ago.in_ready;

        // ---- WRED/ECN port (the packet fields come straight off the bus)
        n.por_done = true;
        // a loop packet leaving the marker goes ahead of a WRED_PKT write
        let loop_pkt = ol.fst[LOOP_FS_STAGES - 1];
        let pkt_wr = command(ext_regs::WRED_PKT).is_some();
        let w_in = WredInputs {
            reset: rst || !o.por_done,
            in_valid: loop_pkt || pkt_wr,
            in_len_bytes: if loop_pkt {
                held(ext_regs::LOOP_LEN)
            } else {
                self.x.wdata_q() & 0x3fff
            },
            in_ecn: if loop_pkt {
                fso.out_ecn
            } else {
                ((self.x.wdata_q() >> 16) & 3) as u8
            },
            egress_drain_bytes: held(ext_regs::WRED_DRAIN),
            cfg_k_min_bytes: held(ext_regs::WRED_K_MIN),
            cfg_k_max_bytes: held(ext_regs::WRED_K_MAX),
            cfg_k_bytes: held(ext_regs::WRED_K),
            cfg_buf_max_bytes: held(ext_regs::WRED_BUF_MAX),
            cfg_p_max: held(ext_regs::WRED_P_MAX) as u16,
            cfg_seed: held(ext_regs::WRED_SEED),
        };
        if wo.out_valid {
            n.wred_decision = wo.out_decision as u32;
            n.wred_ecn = wo.out_ecn as u32;
        }
        nl.wred_ovr = loop_pkt && pkt_wr;
        nl.wd_v[0] = loop_pkt;
        nl.wd_flow[0] = fso.out_flow & mask;
        nl.wd_psn[0] = fso.out_psn;
        for i in 1..LOOP_WRED_STAGES {
            nl.wd_v[i] = ol.wd_v[i - 1];
            nl.wd_flow[i] = ol.wd_flow[i - 1];
            nl.wd_psn[i] = ol.wd_psn[i - 1];
        }
        // the port's decision on a loop packet: into the receive queue, or
        // dropped (its credit returns)
        let lw_end = LOOP_WRED_STAGES - 1;
        let decided = ol.wd_v[lw_end];
        let rx_push = decided && wo.out_decision <= 1;
        let w_drop = decided && wo.out_decision > 1;
        // the RTL's word: PSN (23..0), CE (24), the flow above
        let rx_word = ol.wd_psn[lw_end] as u64
            | ((wo.out_ecn == 3) as u64) << 24
            | (ol.wd_flow[lw_end] as u64) << 25;
        let mut rx_addr = ol.rx_rd;
        if rx_push {
            nl.rx_wr = (ol.rx_wr + 1) & 0x3f;
        }
        nl.rx_wr_d = ol.rx_wr;
        if rx_take {
            nl.rx_rd = (ol.rx_rd + 1) & 0x3f;
            rx_addr = nl.rx_rd;
        }
        nl.delivered = ol.delivered.wrapping_add(rx_take as u32);
        nl.pipe = (ol.pipe + tx as u32).wrapping_sub(rx_take as u32 + w_drop as u32) & 0x3f;

        // ---- the slots, results and counters
        n.g = o.g.next(&GlueIn {
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

        // ---- counter clear and core reset
        if t.cnt_clear || rst {
            nl.sent = 0;
            nl.delivered = 0;
            nl.rewinds = 0;
            nl.timeouts = 0;
        }
        if rst {
            nl = Loop {
                sent: nl.sent,
                delivered: nl.delivered,
                rewinds: nl.rewinds,
                timeouts: nl.timeouts,
                // the delay lines' fields are not reset (their valid bits are)
                wd_flow: nl.wd_flow,
                wd_psn: nl.wd_psn,
                ad: nl.ad.map(|a| LoopAck { v: false, ..a }),
                ..Loop::default()
            };
            n.wred_decision = 0;
            n.wred_ecn = 0;
        }

        // ---- what the extension decoder reads (pre-edge)
        let mut ro = std::mem::take(&mut self.ro);
        let mut set = std::mem::take(&mut self.set);
        ro.fill(0);
        set.fill(0);
        o.g.ro(&mut ro, &mut set);
        set[ext_regs::XERRORS] |= (ol.wred_ovr as u32) << 2;
        ro[ext_regs::LOOP_STATUS] = ol.pipe;
        ro[ext_regs::LOOP_SENT] = ol.sent;
        ro[ext_regs::LOOP_DELIVERED] = ol.delivered;
        ro[ext_regs::LOOP_REWINDS] = ol.rewinds;
        ro[ext_regs::LOOP_TIMEOUTS] = ol.timeouts;
        ro[ext_regs::WRED_LAST] = o.wred_decision | o.wred_ecn << 2;
        ro[ext_regs::WRED_OCC] = wo.stat_occupancy_bytes;
        ro[ext_regs::WRED_FORWARDED] = wo.stat_forwarded_pkts;
        ro[ext_regs::WRED_MARKED] = wo.stat_marked_pkts;
        ro[ext_regs::WRED_DROPPED_WRED] = wo.stat_dropped_wred_pkts;
        ro[ext_regs::WRED_DROPPED_FULL] = wo.stat_dropped_overflow_pkts;

        // ---- statistics
        let st = &mut self.stats;
        st.grants += pto.out_valid as u64;
        st.restarts += (t.upd_valid && t.upd_restart) as u64;
        st.fs_results += fso.out_valid as u64;
        st.fs_errors += (fso.out_valid && fso.out_err != 0) as u64;
        st.acks += ago.out_valid as u64;
        st.naks += (ago.out_valid && ago.out_nak) as u64;
        if wo.out_valid {
            st.wred[match wo.out_decision {
                0 => 0,
                1 => 1,
                _ => 2,
            }] += 1;
        }
        st.overruns += (n.g.fs_ovr as u64) + (n.g.ag_ovr as u64);
        st.flow_resets += t.flow_reset as u64;
        st.held += (hold && !rst) as u64;
        st.handoffs += handoff.is_some() as u64;
        st.loop_sent += tx as u64;
        st.loop_delivered += rx_take as u64;
        st.loop_dropped += w_drop as u64;
        st.loop_marked += (rx_push && wo.out_decision == 1) as u64;
        st.loop_acks += sys_push.is_some() as u64;
        st.loop_rewinds += rewind as u64;
        st.loop_timeouts += timeout as u64;
        st.loop_credits += (d.v && d.kind == 4) as u64;
        st.loop_grants_lost += g_lost as u64;
        st.loop_lost += lost_fs as u64 + (decided && !wo.out_valid) as u64;
        n.lp = nl;
        // the loop's RAMs: read (old data), then write
        let upd = t.upd_valid.then_some((t.upd_flow, t.upd_cw_pkts));
        self.lw_q = self.lw[(op_flow & mask) as usize];
        if let Some((f, c)) = upd {
            self.lw[(f & mask) as usize] = c;
        }
        self.lt.tick(rst, w);
        let rx_next = self.rx[(rx_addr & 0x1f) as usize];
        if rx_push {
            self.rx[(ol.rx_wr & 0x1f) as usize] = rx_word;
        }
        n.lp.rx_q = rx_next;

        // ---- every sub-block takes the same edge
        self.core.tick_sys(bus, hold, handoff, sys_push);
        self.pt.tick(&pt_in);
        self.fs.tick(&fs_in);
        self.ag.tick(&ag_in);
        self.wred.tick(&w_in);
        self.x.tick(bus, rst, &ro, &set);
        self.ro = ro;
        self.set = set;
        self.s = n;
    }
}

impl NicSystemModel {
    /// What is in flight, by place: the core's, the extension slots, and
    /// each block's.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        use crate::cosim::CosimModel;
        let mut v = self.core.in_flight();
        if self.s.g.fs.pend {
            v.push(("fast-start slot", 1));
        }
        if self.s.g.ag.pend {
            v.push(("ACK generator slot", 1));
        }
        let l = &self.s.lp;
        let loop_items = [
            ("loop packets in flight (sender to receiver)", l.pipe as u64),
            (
                "loop sender's ops",
                [l.snd.s1.v, l.snd.s2.v, l.snd.s3.v, l.tx_v]
                    .iter()
                    .filter(|&&v| v)
                    .count() as u64,
            ),
            (
                "returned ACKs on their way to the marker",
                l.ad.iter().filter(|a| a.v).count() as u64,
            ),
        ];
        v.extend(loop_items.into_iter().filter(|(_, n)| *n > 0));
        v.extend(self.pt.in_flight());
        v.extend(self.fs.in_flight());
        v.extend(self.ag.in_flight());
        v.extend(CosimModel::in_flight(&self.wred));
        v
    }

    /// The bus cycles that bring the system to rest: the core's generator
    /// stopped, the ACK generator's timeout set to 0 (every held ACK is
    /// flushed at the scanner's next visit), then idle cycles for the
    /// core's drain, the pacing timer's sweep before the core's, and three
    /// passes of the ACK generator's scanner.
    pub fn drain_bus(&self) -> Vec<BusIn> {
        let timeout0 = BusIn::write(ldcp_regmap::position::offset::AG_TIMEOUT, 0);
        let loop_off = BusIn::write(ldcp_regmap::position::offset::LOOP_CTRL, 0);
        let mut v = self.core.drain_bus();
        v.insert(1, timeout0);
        v.insert(0, loop_off);
        v.extend(std::iter::repeat_n(BusIn::default(), 4 * (1 << self.fb)));
        v
    }
}

impl crate::cosim::CosimModel for NicSystemModel {
    type Input = SysIn;
    type Output = SysOut;

    fn tick(&mut self, i: &SysIn) {
        NicSystemModel::tick(self, &i.bus());
    }

    fn outputs(&self) -> SysOut {
        NicSystemModel::outputs(self)
    }

    /// [`NicSystemModel::drain_bus`].
    fn drain(&self, _last: Option<&SysIn>) -> Vec<SysIn> {
        NicSystemModel::drain_bus(self)
            .into_iter()
            .map(SysIn::from)
            .collect()
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        NicSystemModel::in_flight(self)
    }
}

/// The bus stimulus generator of the whole system: the NIC core's own
/// stimulus ([`crate::nic_core::stimulus`]) interleaved with traffic for the
/// extension blocks: fast-start transmits, ACKs, NAKs and resets on a few
/// hot flows with advancing PSNs (non-IPv4 headers and bad PSNs included),
/// receiver packets in order, with gaps, duplicates and CE, delayed-ACK and
/// timeout settings, WRED packet bursts that fill the queue, parameter
/// writes (illegal ones included), flows pushed below cw = 1 so the pacing
/// timer grants, back-to-back requests that overrun a slot, and reads of
/// every extension register.
#[derive(Clone, Debug)]
pub struct SysStimulus {
    core: crate::nic_core::NcStimulus,
    queue: std::collections::VecDeque<BusIn>,
    fs_next: [u32; 4],
    ag_next: [u32; 4],
    flow_bits: u32,
}

impl Default for SysStimulus {
    /// The iCE40-size build's.
    fn default() -> Self {
        Self::sized(FLOW_BITS)
    }
}

impl SysStimulus {
    /// The stimulus of a build with 2^`flow_bits` flows.
    pub fn sized(flow_bits: u32) -> Self {
        SysStimulus {
            core: crate::nic_core::NcStimulus::sized(flow_bits),
            queue: Default::default(),
            fs_next: [0; 4],
            ag_next: [0; 4],
            flow_bits,
        }
    }
}

/// A seeded stream of bus cycles for the whole system of the iCE40-size
/// build: [`SysStimulus`] from a seed.
pub fn stimulus(seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    stimulus_sized(FLOW_BITS, seed)
}

/// The same for a build with 2^`flow_bits` flows.
pub fn stimulus_sized(flow_bits: u32, seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    crate::seeded(SysStimulus::sized(flow_bits), seed ^ 0x5157_E4D0_0000_0001)
}

impl crate::Stimulus for SysStimulus {
    type Input = BusIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BusIn {
        let SysStimulus {
            core,
            queue,
            fs_next,
            ag_next,
            flow_bits,
        } = self;
        let all = 1u32 << *flow_bits;
        let off = ldcp_regmap::model::offset;
        let xregs = ldcp_regmap::ext_registers();
        while queue.is_empty() {
            let r = d.next_u64();
            let (w, rd) = (BusIn::write, BusIn::read);
            let idle = BusIn::default();
            let hot = (r >> 40) as usize & 3;
            let flow = hot as u32 * 37 + 5;
            match r % 100 {
                0..=34 => {
                    for _ in 0..1 + (r >> 8) % 24 {
                        queue.push_back(core.cycle(d));
                    }
                }
                35..=46 => {
                    // fast start: TX (mostly), ACK, NAK, reset
                    let x = d.next_u64();
                    let (kind, psn) = match x % 20 {
                        0..=11 => {
                            fs_next[hot] = (fs_next[hot] + 1) & 0xff_ffff;
                            (0, fs_next[hot].wrapping_sub(1))
                        }
                        12..=16 => (1, fs_next[hot].wrapping_sub((x >> 8) as u32 % 4)),
                        17 => (2, fs_next[hot].wrapping_sub((x >> 8) as u32 % 8)),
                        18 => (1, (x >> 16) as u32),
                        _ => {
                            fs_next[hot] = 0;
                            (3, 0)
                        }
                    };
                    queue.push_back(w(off("FS_PSN"), psn & 0xff_ffff));
                    let word0 = if x & 0x3f00_0000 == 0 {
                        0x6000
                    } else {
                        0x4500 | (x >> 32) as u32 & 0xff
                    };
                    queue.push_back(w(off("FS_HDR"), word0 | (x >> 40) as u32 & 0xffff_0000));
                    let last = (x >> 20).is_multiple_of(6);
                    queue.push_back(w(off("FS_EV"), kind | (last as u32) << 2 | flow << 8));
                    if x & 0x4000_0000_0000 != 0 {
                        // back to back: the second may find the slot full
                        queue.push_back(w(off("FS_EV"), kind | flow << 8));
                    }
                }
                47..=58 => {
                    // receiver: in order mostly, gaps, duplicates, CE, opens
                    let x = d.next_u64();
                    let (kind, psn) = match x % 20 {
                        0..=14 => {
                            ag_next[hot] = (ag_next[hot] + 1) & 0xff_ffff;
                            (0, ag_next[hot].wrapping_sub(1))
                        }
                        15 | 16 => (0, ag_next[hot] + 1 + (x >> 8) as u32 % 5),
                        17 => (0, ag_next[hot].wrapping_sub(1 + (x >> 8) as u32 % 3)),
                        18 => (0, (x >> 16) as u32),
                        _ => {
                            ag_next[hot] = (x >> 24) as u32 & 0xff_ffff;
                            (1, ag_next[hot])
                        }
                    };
                    queue.push_back(w(off("AG_PSN"), psn & 0xff_ffff));
                    let ce = (x >> 50).is_multiple_of(5);
                    let last = (x >> 53).is_multiple_of(7);
                    queue.push_back(w(
                        off("AG_EV"),
                        kind | (ce as u32) << 1 | (last as u32) << 2 | flow << 8,
                    ));
                    if x & 0x0800_0000_0000_0000 != 0 {
                        queue.push_back(w(off("AG_EV"), flow << 8));
                    }
                }
                59..=68 => {
                    // a burst of packets at the switch port
                    let x = d.next_u64();
                    for i in 0..1 + (x % 40) {
                        let len = 64
                            + (((x >> (i % 32)) as u32).wrapping_mul(2_654_435_761) >> 18) % 9000;
                        let ecn = ((x >> 40) as u32 + i as u32) & 3;
                        queue.push_back(w(off("WRED_PKT"), len | ecn << 16));
                    }
                }
                69..=76 => {
                    // parameters, mostly legal
                    let x = d.next_u64();
                    let v = (x >> 16) as u32;
                    let (name, val) = match x % 12 {
                        0 => ("FS_IW", v % 40),
                        1 => ("AG_M", v % 16),
                        2 => ("AG_TIMEOUT", v % 3000),
                        3 => ("WRED_K_MIN", v % 60_000),
                        4 => ("WRED_K_MAX", 20_000 + v % 200_000),
                        5 => ("WRED_K", v % 150_000),
                        6 => ("WRED_BUF_MAX", 30_000 + v % 300_000),
                        7 => ("WRED_P_MAX", v % 0x9000),
                        8 => ("WRED_SEED", v),
                        9 => ("WRED_DRAIN", v % 200),
                        10 => ("RTT", 50 + v % 2000),
                        _ => ("INIT_CW", (1 << 14) + v % (2 << 20)),
                    };
                    queue.push_back(w(off(name), val));
                }
                77..=82 => {
                    // a flow below cw = 1: the pacing timer takes it
                    let x = d.next_u64();
                    let f = if x & 1 != 0 {
                        flow
                    } else {
                        (x >> 8) as u32 & (all - 1)
                    };
                    queue.push_back(w(off("RTT"), 20 + (x >> 16) as u32 % 400));
                    queue.push_back(w(off("FLOW_ID"), f));
                    queue.push_back(w(
                        off("FLOW_WDATA"),
                        (1 << 14) + (x >> 24) as u32 % (1 << 20),
                    ));
                    queue.push_back(w(off("FLOW_CMD"), if x & 6 == 0 { 3 } else { 2 }));
                    for _ in 0..(x >> 40) % 50 {
                        queue.push_back(idle);
                    }
                }
                83..=92 => {
                    let reg = &xregs[(r >> 8) as usize % xregs.len()];
                    queue.push_back(rd(reg.offset));
                }
                93..=94 => {
                    // any extension register, any value
                    let reg = &xregs[(r >> 8) as usize % xregs.len()];
                    queue.push_back(w(reg.offset, (r >> 32) as u32));
                }
                95 => queue.push_back(w(off("CNT_CLEAR"), 1)),
                96..=97 => {
                    // the loopback: on with a few flows (sometimes none,
                    // all, or an illegal count), a timeout, a length; or off
                    let x = d.next_u64();
                    let flows = match x % 8 {
                        0 => 0,
                        1 => all + (x >> 8) as u32 % all,
                        2 => 1 + (x >> 8) as u32 % all,
                        _ => 1 + (x >> 8) as u32 % 6,
                    };
                    let mode = match (x >> 20) % 6 {
                        0 => 0,
                        1 => 1,
                        2 => 2,
                        _ => 3,
                    };
                    queue.push_back(w(
                        off("LOOP_RTO"),
                        [0, 40, 300, 2000][(x >> 24) as usize % 4],
                    ));
                    queue.push_back(w(off("LOOP_LEN"), 64 + (x >> 32) as u32 % 9000));
                    queue.push_back(w(off("LOOP_CTRL"), mode | flows << 8));
                    for _ in 0..(x >> 44) % 400 {
                        queue.push_back(idle);
                    }
                }
                _ => {
                    for _ in 0..1 + (r >> 8) % 60 {
                        queue.push_back(idle);
                    }
                }
            }
        }
        queue.pop_front().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::testing::proptest_config(env!("CARGO_MANIFEST_DIR"), "loop_packets_in_flight", 0x5EED_1030, 20_000))]
        /// The bound LOOP_WINDOW_BITS states: from any state with fewer
        /// than 2^LOOP_WINDOW_BITS packets in flight, every op (any kind,
        /// PSN near the acknowledged one or anywhere, window, time,
        /// timeout and pipe) leaves fewer; a send adds exactly one.
        #[test]
        fn packets_in_flight_stay_below_the_widest_window(
            ak in 0u32..1 << 24,
            infl in prop_oneof![Just(0u32), 0u32..1 << LOOP_WINDOW_BITS, Just((1 << LOOP_WINDOW_BITS) - 1)],
            stamp in 0u32..1 << 16,
            credit in any::<bool>(),
            kind in 0u32..5,
            near in any::<bool>(),
            delta in -5000i32..5000,
            far in 0u32..1 << 24,
            lw in prop_oneof![Just(0u32), 0u32..1 << LOOP_WINDOW_BITS, Just((1 << LOOP_WINDOW_BITS) - 1)],
            t in 0u32..1 << 16,
            rto in prop_oneof![Just(0u32), 0u32..1 << 16],
            pipe in 0u32..LOOP_RX_DEPTH + 2,
        ) {
            let bound = 1u32 << LOOP_WINDOW_BITS;
            let nx = (ak + infl) & M24;
            let st = nx as u128 | (ak as u128) << 24 | (stamp as u128) << 48 | (credit as u128) << 64;
            let psn = if near { (ak as i64 + delta as i64).rem_euclid(1 << 24) as u32 } else { far };
            let d = LoopOp { v: true, kind, psn, idx: 0, lw };
            let dec = decide(d, st, t, rto, pipe);
            let (wnx, wak) = (dec.w as u32 & M24, (dec.w >> 24) as u32 & M24);
            let winfl = wnx.wrapping_sub(wak) & M24;
            prop_assert!(winfl < bound, "{infl} in flight, op {d:?} -> {winfl} ({dec:?})");
            if dec.tx {
                prop_assert_eq!(winfl, infl + 1);
            }
        }
    }

    /// The bound is reached, so it is the narrowest: with the widest
    /// window a flow sends its 2^LOOP_WINDOW_BITS - 1st packet in flight
    /// and no more; an ACK then leaves next PSN - its PSN, a NAK none.
    #[test]
    fn the_widest_window_fills_to_the_bound() {
        let max = (1u32 << LOOP_WINDOW_BITS) - 1;
        let ak = M24 - 100; // the PSNs wrap while the flow is full
        let st = |infl: u32| ((ak + infl) & M24) as u128 | (ak as u128) << 24;
        let visit = LoopOp {
            v: true,
            kind: 0,
            psn: 0,
            idx: 0,
            lw: max,
        };
        let dec = decide(visit, st(max - 1), 0, 0, 0);
        assert!(dec.tx);
        assert_eq!(dec.w, st(max));
        assert!(!decide(visit, st(max), 0, 0, 0).tx);
        let ack = LoopOp {
            kind: 1,
            psn: (ak + 1000) & M24,
            ..visit
        };
        let w = decide(ack, st(max), 7, 0, 0).w;
        assert_eq!(
            (w as u32 & M24).wrapping_sub((w >> 24) as u32) & M24,
            max - 1000
        );
        let nak = LoopOp { kind: 2, ..ack };
        let w = decide(nak, st(max), 7, 0, 0).w;
        assert_eq!(w as u32 & M24, (w >> 24) as u32 & M24);
    }

    fn write(m: &mut NicSystemModel, name: &str, v: u32) {
        m.tick(&BusIn::write(ldcp_regmap::model::offset(name), v));
    }

    fn read(m: &mut NicSystemModel, name: &str) -> u32 {
        m.tick(&BusIn::read(ldcp_regmap::model::offset(name)));
        for _ in 1..ldcp_regmap::READ_LATENCY_CYCLES {
            m.tick(&BusIn::default());
        }
        assert!(m.outputs().bus_rvalid);
        m.outputs().bus_rdata
    }

    /// The fast-start hand-off is hardware: after a burst of IW packets and
    /// the ACK that covers it (transition 2), or a NAK in the burst
    /// (transition 1), the window engine holds the window the marker
    /// decided (IW, or the packets acknowledged before the loss), with no
    /// write from the host; a flow that never transitions keeps INIT_CW.
    #[test]
    fn nic_system_hands_the_fast_start_window_to_the_engine() {
        fn flow_cw(m: &mut NicSystemModel, flow: u32) -> u32 {
            write(m, "FLOW_ID", flow);
            write(m, "FLOW_CMD", 1); // READ
            for _ in 0..200 {
                if read(m, "FLOW_STATUS") & 1 != 0 {
                    return read(m, "FLOW_CW");
                }
            }
            panic!("FLOW_CMD READ of flow {flow} never finished");
        }
        fn fs(m: &mut NicSystemModel, kind: u32, flow: u32, psn: u32) {
            write(m, "FS_PSN", psn);
            write(m, "FS_EV", kind | flow << 8);
        }
        let mut m = NicSystemModel::new(0, true);
        write(&mut m, "FS_IW", 8);
        for (flow, ack_kind, e, want_pkts) in [(5, 1, 8, 8), (6, 2, 3, 3)] {
            for psn in 0..8 {
                fs(&mut m, 0, flow, psn); // TX
            }
            fs(&mut m, ack_kind, flow, e); // ACK of all 8, or a NAK at 3
            for _ in 0..20 {
                m.tick(&BusIn::default());
            }
            assert!(
                read(&mut m, "FS_RESULT") >> 8 & 1 != 0,
                "flow {flow}: a SET result"
            );
            assert_eq!(flow_cw(&mut m, flow), want_pkts << 20, "flow {flow}");
        }
        assert_eq!(m.stats().handoffs, 2);
        // a flow with no transition keeps INIT_CW (1.0)
        assert_eq!(flow_cw(&mut m, 7), 1 << 20);
    }

    /// The loopback closes the congestion loop on chip: the sender sends
    /// within each flow's window, the port marks as its queue grows, the
    /// receiver's ACKs return to the engine (which cuts the windows on the
    /// marks and grows them otherwise), to the marker (whose fast-start
    /// hand-off sets the window) and to the sender. Every packet sent is
    /// delivered, dropped by the port or still on chip; none is lost
    /// between blocks; the counters read over the bus agree with the model.
    #[test]
    fn nic_system_loopback_closes_the_congestion_loop() {
        // (stats, every flow's cw) after a loop run through a port that
        // sends `drain` bytes a cycle (a loop packet is 1000 bytes)
        fn run(drain: u32) -> (SysStats, Vec<u32>, NicSystemModel) {
            let mut m = NicSystemModel::new(0, true);
            write(&mut m, "CORE_RESET", 1);
            for _ in 0..600 {
                m.tick(&BusIn::default());
            }
            write(&mut m, "FS_IW", 4);
            write(&mut m, "RTT", 100); // the pacing interval RTT / cw, cycles
            write(&mut m, "WRED_DRAIN", drain);
            write(&mut m, "WRED_BUF_MAX", 0xff_ffff);
            write(&mut m, "WRED_K_MIN", 2_000);
            write(&mut m, "WRED_K_MAX", 20_000);
            write(&mut m, "WRED_K", 10_000);
            write(&mut m, "WRED_P_MAX", 0x2000);
            write(&mut m, "LOOP_LEN", 1000);
            write(&mut m, "LOOP_RTO", 3000);
            write(&mut m, "LOOP_CTRL", 3 | 8 << 8);
            for _ in 0..60_000 {
                m.tick(&BusIn::default());
            }
            write(&mut m, "LOOP_CTRL", 1); // SEND off, LOOPBACK on: the last ACKs return
            for _ in 0..3_000 {
                m.tick(&BusIn::default());
            }
            let st = m.stats();
            assert_eq!(st.loop_lost, 0, "{st:?}");
            assert_eq!(st.handoffs, 8, "one fast-start hand-off per flow: {st:?}");
            assert_eq!(
                st.loop_sent,
                st.loop_delivered + st.loop_dropped,
                "nothing left on chip: {st:?}"
            );
            assert_eq!(st.loop_acks, st.acks, "every ACK returned: {st:?}");
            assert_eq!(read(&mut m, "LOOP_STATUS"), 0);
            assert_eq!(read(&mut m, "LOOP_SENT") as u64, st.loop_sent);
            assert_eq!(read(&mut m, "LOOP_DELIVERED") as u64, st.loop_delivered);
            assert!(m.in_flight().is_empty(), "{:?}", m.in_flight());
            let cws = (0..8).map(|f| m.core().table(f).unwrap()).collect();
            (st, cws, m)
        }
        // a congested port (12 bytes a cycle: 720 loop packets in the 60,000
        // cycles): the marks drive every window below one packet, the
        // pacing timer's grants pace the flows (RTT / cw), and what the
        // receiver gets follows the port's rate
        let (st, cws, _) = run(12);
        assert!(cws.iter().all(|&c| c < 1 << 20), "{cws:?}");
        assert!(st.loop_marked > 100 && st.loop_credits > 100, "{st:?}");
        assert!(
            (600..=900).contains(&st.loop_delivered),
            "delivered {} against the port's 720: {st:?}",
            st.loop_delivered
        );
        // a port faster than the loop (4000 bytes a cycle): no queue, no
        // marks; the windows grow from IW = 4 by alpha/cw per packet, and
        // the sender's rate with them
        let (st2, cws2, _) = run(4_000);
        assert_eq!(st2.loop_marked + st2.loop_dropped, 0, "{st2:?}");
        assert!(cws2.iter().all(|&c| c > 20 << 20), "{cws2:?}");
        // the marker's one port carries a packet and its ACK: at most half
        // a packet a cycle, which the uncongested loop reaches
        assert!(st2.loop_sent > 29_000, "{st2:?}");
        assert!(st2.loop_sent > st.loop_sent, "{st2:?} against {st:?}");
    }

    /// From power-up, without a CORE_RESET, the port's marking draws are
    /// random (a generator left at state 0 would draw 0 and mark every
    /// ECT packet on the ramp).
    #[test]
    fn nic_system_wred_marks_at_random_from_power_up() {
        let mut m = NicSystemModel::new(0, true);
        write(&mut m, "WRED_DRAIN", 0);
        write(&mut m, "WRED_K_MIN", 0);
        write(&mut m, "WRED_K_MAX", 200_000);
        write(&mut m, "WRED_P_MAX", 0x4000); // 0.5
        for _ in 0..200 {
            write(&mut m, "WRED_PKT", 1000 | 2 << 16);
        }
        for _ in 0..16 {
            m.tick(&BusIn::default());
        }
        let marked = read(&mut m, "WRED_MARKED");
        let fwd = read(&mut m, "WRED_FORWARDED");
        assert_eq!(fwd, 200);
        // p rises from 0 to 0.5 over the 200 packets: about 50 marks
        assert!((20..=90).contains(&marked), "{marked} of 200 marked");
    }
}
