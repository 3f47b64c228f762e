//! The cycle-accurate golden model of the NIC system
//! (`hdl/src/nic_system.rs`): the NIC core's model with its sweep held for
//! the pacing timer, the extension decoder's model, the four blocks' cycle
//! models and the glue (slots, result registers, counters), register for
//! register. The RTL's module doc describes the behaviour.

use crate::ack_generator::{AckGeneratorModel, AgInputs};
use crate::fast_start_marker::{FastStartModel, FsInputs};
use crate::nic_core::NicCoreModel;
use crate::pacing_timer::{PacingTimerModel, PtInputs};
use crate::wred_ecn::{WredEcnModel, WredInputs};
use ldcp_regmap::model::{ext_index, BusIn, RegFileModel};

/// Flow-id bits of every block in the system.
const FB: u32 = ldcp_regmap::FLOW_BITS;

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
        /// Read strobe (`bus_rdata` is valid with `bus_rvalid` one cycle later).
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
struct Slot {
    pend: bool,
    kind: u32,
    flow: u32,
    last: bool,
    ce: bool,
    psn: u32,
    word0: u32,
    csum: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct FsResult {
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
struct AgAck {
    psn: u32,
    n: u32,
    ece: bool,
    nak: bool,
    flow: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct State {
    por_done: bool,
    fs: Slot,
    ag: Slot,
    fs_ovr: bool,
    ag_ovr: bool,
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
    wred_decision: u32,
    wred_ecn: u32,
}

/// Extension register indices, resolved once.
#[derive(Clone, Copy, Debug)]
struct XIx {
    xstatus: usize,
    xerrors: usize,
    pt_grants: usize,
    pt_last: usize,
    pt_max_late: usize,
    fs_iw: usize,
    fs_psn: usize,
    fs_hdr: usize,
    fs_ev: usize,
    fs_result: usize,
    fs_result_hdr: usize,
    fs_result_psn: usize,
    fs_result_cw: usize,
    fs_events: usize,
    fs_errors: usize,
    ag_m: usize,
    ag_timeout: usize,
    ag_psn: usize,
    ag_ev: usize,
    ag_ack: usize,
    ag_ack_flow: usize,
    ag_acks: usize,
    ag_naks: usize,
    ag_errors: usize,
    ag_err: usize,
    k_min: usize,
    k_max: usize,
    k: usize,
    buf_max: usize,
    p_max: usize,
    seed: usize,
    drain: usize,
    pkt: usize,
    last: usize,
    occ: usize,
    forwarded: usize,
    marked: usize,
    dropped_wred: usize,
    dropped_full: usize,
}

impl XIx {
    fn new() -> Self {
        XIx {
            xstatus: ext_index("XSTATUS"),
            xerrors: ext_index("XERRORS"),
            pt_grants: ext_index("PT_GRANTS"),
            pt_last: ext_index("PT_LAST"),
            pt_max_late: ext_index("PT_MAX_LATE"),
            fs_iw: ext_index("FS_IW"),
            fs_psn: ext_index("FS_PSN"),
            fs_hdr: ext_index("FS_HDR"),
            fs_ev: ext_index("FS_EV"),
            fs_result: ext_index("FS_RESULT"),
            fs_result_hdr: ext_index("FS_RESULT_HDR"),
            fs_result_psn: ext_index("FS_RESULT_PSN"),
            fs_result_cw: ext_index("FS_RESULT_CW"),
            fs_events: ext_index("FS_EVENTS"),
            fs_errors: ext_index("FS_ERRORS"),
            ag_m: ext_index("AG_M"),
            ag_timeout: ext_index("AG_TIMEOUT"),
            ag_psn: ext_index("AG_PSN"),
            ag_ev: ext_index("AG_EV"),
            ag_ack: ext_index("AG_ACK"),
            ag_ack_flow: ext_index("AG_ACK_FLOW"),
            ag_acks: ext_index("AG_ACKS"),
            ag_naks: ext_index("AG_NAKS"),
            ag_errors: ext_index("AG_ERRORS"),
            ag_err: ext_index("AG_ERR"),
            k_min: ext_index("WRED_K_MIN"),
            k_max: ext_index("WRED_K_MAX"),
            k: ext_index("WRED_K"),
            buf_max: ext_index("WRED_BUF_MAX"),
            p_max: ext_index("WRED_P_MAX"),
            seed: ext_index("WRED_SEED"),
            drain: ext_index("WRED_DRAIN"),
            pkt: ext_index("WRED_PKT"),
            last: ext_index("WRED_LAST"),
            occ: ext_index("WRED_OCC"),
            forwarded: ext_index("WRED_FORWARDED"),
            marked: ext_index("WRED_MARKED"),
            dropped_wred: ext_index("WRED_DROPPED_WRED"),
            dropped_full: ext_index("WRED_DROPPED_FULL"),
        }
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
    }
}

/// The NIC system's registers, mirrored.
#[derive(Clone, Debug)]
pub struct NicSystemModel {
    core: NicCoreModel,
    x: RegFileModel,
    xi: XIx,
    pt: PacingTimerModel,
    fs: FastStartModel,
    ag: AckGeneratorModel,
    wred: WredEcnModel,
    s: State,
    stats: SysStats,
    /// The values driven into the extension decoder's RO registers and its
    /// W1C sets, refilled every tick (kept to spare two allocations a cycle).
    ro: Vec<u32>,
    set: Vec<u32>,
}

impl NicSystemModel {
    /// The system at power-up, reporting `hash` and `dirty` as its build.
    pub fn new(hash: u32, dirty: bool) -> Self {
        NicSystemModel {
            core: NicCoreModel::with_ext(hash, dirty, true),
            x: RegFileModel::ext(),
            xi: XIx::new(),
            pt: PacingTimerModel::new(FB),
            fs: FastStartModel::new(FB),
            ag: AckGeneratorModel::new(FB),
            wred: WredEcnModel::new(),
            s: State::default(),
            stats: SysStats::default(),
            ro: vec![0; ldcp_regmap::ext_registers().len()],
            set: vec![0; ldcp_regmap::ext_registers().len()],
        }
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
        let xi = self.xi;
        let o = self.s;
        let t = self.core.taps(bus);
        let pto = self.pt.outputs();
        let fso = self.fs.outputs();
        let ago = self.ag.outputs();
        let wo = self.wred.outputs();
        let held = |i: usize| self.x.held(i);
        let wrote = |i: usize| self.x.wrote(bus, i);
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
        if pto.out_valid {
            n.pt_grants = o.pt_grants.wrapping_add(1);
            n.pt_last_flow = pto.out_flow & 0xff;
            n.pt_last_late = pto.out_late_cycles;
            if pto.out_late_cycles > o.pt_max_late {
                n.pt_max_late = pto.out_late_cycles;
            }
        }

        // ---- fast-start marker
        let hdr = held(xi.fs_hdr);
        // the slot waits while the core sweeps (no hand-off meets the sweep)
        let fs_in = FsInputs {
            reset: rst,
            in_valid: o.fs.pend && !t.sweeping,
            in_kind: o.fs.kind as u8,
            in_flow: o.fs.flow,
            in_psn: o.fs.psn,
            in_last: o.fs.last,
            in_word0: o.fs.word0 as u16,
            in_csum: o.fs.csum as u16,
            cfg_iw_pkts: held(xi.fs_iw),
        };
        let fs_take = o.fs.pend && fso.in_ready && !t.sweeping;
        // the hand-off: the window decided at the transition, as a SET
        let handoff = (fso.out_valid && fso.out_set).then_some((
            fso.out_flow & 0xff,
            fso.out_cw_pkts << crate::window_engine::CW_FRAC_BITS,
        ));
        let fs_ev = wrote(xi.fs_ev);
        if fs_take {
            n.fs.pend = false;
        }
        n.fs_ovr = false;
        if fs_ev.is_some() || t.flow_reset {
            if o.fs.pend && !fs_take {
                n.fs_ovr = true;
            } else {
                let v = bus.wdata;
                n.fs = Slot {
                    pend: true,
                    kind: v & 3,
                    flow: (v >> 8) & 0xff,
                    last: v & 4 != 0,
                    ce: false,
                    psn: held(xi.fs_psn),
                    word0: hdr & 0xffff,
                    csum: hdr >> 16,
                };
                if t.flow_reset {
                    n.fs.kind = 3;
                    n.fs.flow = t.flow_reset_id;
                    n.fs.last = false;
                    n.fs.psn = 0;
                }
            }
        }
        if fso.out_valid {
            n.fs_r = FsResult {
                kind: fso.out_kind as u32,
                err: fso.out_err as u32,
                ecn: fso.out_ecn as u32,
                stage: fso.out_stage as u32,
                set: fso.out_set,
                gbn: fso.out_gbn,
                flow: fso.out_flow & 0xff,
                word0: fso.out_word0 as u32,
                csum: fso.out_csum as u32,
                psn: fso.out_psn,
                cw: fso.out_cw_pkts,
            };
            n.fs_events = o.fs_events.wrapping_add(1);
            if fso.out_err != 0 {
                n.fs_errors = o.fs_errors.wrapping_add(1);
            }
        }

        // ---- ACK generator
        let ag_in = AgInputs {
            reset: rst,
            in_valid: o.ag.pend,
            in_open: o.ag.kind & 1 != 0,
            in_flow: o.ag.flow,
            in_psn: o.ag.psn,
            in_ce: o.ag.ce,
            in_last: o.ag.last,
            cfg_m_pkts: held(xi.ag_m),
            cfg_timeout_cycles: held(xi.ag_timeout),
        };
        let ag_take = o.ag.pend && ago.in_ready;
        let ag_ev = wrote(xi.ag_ev);
        if ag_take {
            n.ag.pend = false;
        }
        n.ag_ovr = false;
        if ag_ev.is_some() || t.flow_reset {
            if o.ag.pend && !ag_take {
                n.ag_ovr = true;
            } else {
                let v = bus.wdata;
                n.ag = Slot {
                    pend: true,
                    kind: v & 1,
                    flow: (v >> 8) & 0xff,
                    last: v & 4 != 0,
                    ce: v & 2 != 0,
                    psn: held(xi.ag_psn),
                    word0: 0,
                    csum: 0,
                };
                if t.flow_reset {
                    n.ag.kind = 1;
                    n.ag.flow = t.flow_reset_id;
                    n.ag.ce = false;
                    n.ag.last = false;
                    n.ag.psn = 0;
                }
            }
        }
        if ago.out_valid {
            n.ag_a = AgAck {
                psn: ago.out_psn,
                n: ago.out_n_pkts,
                ece: ago.out_ece,
                nak: ago.out_nak,
                flow: ago.out_flow & 0xff,
            };
            n.ag_acks = o.ag_acks.wrapping_add(1);
            if ago.out_nak {
                n.ag_naks = o.ag_naks.wrapping_add(1);
            }
        }
        if ago.stat_err != 0 {
            n.ag_errors = o.ag_errors.wrapping_add(1);
            n.ag_err = ago.stat_err as u32;
        }

        // ---- WRED/ECN port (the packet fields come straight off the bus)
        n.por_done = true;
        let w_in = WredInputs {
            reset: rst || !o.por_done,
            in_valid: wrote(xi.pkt).is_some(),
            in_len_bytes: bus.wdata & 0x3fff,
            in_ecn: ((bus.wdata >> 16) & 3) as u8,
            egress_drain_bytes: held(xi.drain),
            cfg_k_min_bytes: held(xi.k_min),
            cfg_k_max_bytes: held(xi.k_max),
            cfg_k_bytes: held(xi.k),
            cfg_buf_max_bytes: held(xi.buf_max),
            cfg_p_max: held(xi.p_max) as u16,
            cfg_seed: held(xi.seed),
        };
        if wo.out_valid {
            n.wred_decision = wo.out_decision as u32;
            n.wred_ecn = wo.out_ecn as u32;
        }

        // ---- counter clear and core reset
        if t.cnt_clear || rst {
            n.pt_grants = 0;
            n.pt_max_late = 0;
            n.fs_events = 0;
            n.fs_errors = 0;
            n.ag_acks = 0;
            n.ag_naks = 0;
            n.ag_errors = 0;
        }
        if rst {
            n.fs.pend = false;
            n.ag.pend = false;
            n.fs_ovr = false;
            n.ag_ovr = false;
            n.pt_last_flow = 0;
            n.pt_last_late = 0;
            n.fs_r = FsResult::default();
            n.ag_a = AgAck::default();
            n.ag_err = 0;
            n.wred_decision = 0;
            n.wred_ecn = 0;
        }

        // ---- what the extension decoder reads (pre-edge)
        let mut ro = std::mem::take(&mut self.ro);
        let mut set = std::mem::take(&mut self.set);
        ro.fill(0);
        set.fill(0);
        ro[xi.xstatus] = o.fs.pend as u32 | (o.ag.pend as u32) << 1;
        set[xi.xerrors] = o.fs_ovr as u32 | (o.ag_ovr as u32) << 1;
        ro[xi.pt_grants] = o.pt_grants;
        ro[xi.pt_last] = o.pt_last_flow | o.pt_last_late << 16;
        ro[xi.pt_max_late] = o.pt_max_late;
        let r = o.fs_r;
        ro[xi.fs_result] = r.kind
            | r.err << 2
            | r.ecn << 4
            | r.stage << 6
            | (r.set as u32) << 8
            | (r.gbn as u32) << 9
            | r.flow << 16;
        ro[xi.fs_result_hdr] = r.word0 | r.csum << 16;
        ro[xi.fs_result_psn] = r.psn;
        ro[xi.fs_result_cw] = r.cw;
        ro[xi.fs_events] = o.fs_events;
        ro[xi.fs_errors] = o.fs_errors;
        let a = o.ag_a;
        ro[xi.ag_ack] = a.psn | a.n << 24 | (a.ece as u32) << 28 | (a.nak as u32) << 29;
        ro[xi.ag_ack_flow] = a.flow;
        ro[xi.ag_acks] = o.ag_acks;
        ro[xi.ag_naks] = o.ag_naks;
        ro[xi.ag_errors] = o.ag_errors;
        ro[xi.ag_err] = o.ag_err;
        ro[xi.last] = o.wred_decision | o.wred_ecn << 2;
        ro[xi.occ] = wo.stat_occupancy_bytes;
        ro[xi.forwarded] = wo.stat_forwarded_pkts;
        ro[xi.marked] = wo.stat_marked_pkts;
        ro[xi.dropped_wred] = wo.stat_dropped_wred_pkts;
        ro[xi.dropped_full] = wo.stat_dropped_overflow_pkts;

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
        st.overruns += (n.fs_ovr as u64) + (n.ag_ovr as u64);
        st.flow_resets += t.flow_reset as u64;
        st.held += (hold && !rst) as u64;
        st.handoffs += handoff.is_some() as u64;

        // ---- every sub-block takes the same edge
        self.core.tick_sys(bus, hold, handoff);
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
        if self.s.fs.pend {
            v.push(("fast-start slot", 1));
        }
        if self.s.ag.pend {
            v.push(("ACK generator slot", 1));
        }
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
    pub fn drain_bus() -> Vec<BusIn> {
        let timeout0 = BusIn::write(ldcp_regmap::model::offset("AG_TIMEOUT"), 0);
        let mut v = crate::nic_core::NicCoreModel::drain_bus();
        v.insert(1, timeout0);
        v.extend(std::iter::repeat_n(BusIn::default(), 4 * (1 << FB)));
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
    fn drain(_last: Option<&SysIn>) -> Vec<SysIn> {
        NicSystemModel::drain_bus()
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
#[derive(Clone, Debug, Default)]
pub struct SysStimulus {
    core: crate::nic_core::NcStimulus,
    queue: std::collections::VecDeque<BusIn>,
    fs_next: [u32; 4],
    ag_next: [u32; 4],
}

/// A seeded stream of bus cycles for the whole system: [`SysStimulus`]
/// from a seed.
pub fn stimulus(seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    crate::seeded(SysStimulus::default(), seed ^ 0x5157_E4D0_0000_0001)
}

impl crate::Stimulus for SysStimulus {
    type Input = BusIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BusIn {
        let SysStimulus {
            core,
            queue,
            fs_next,
            ag_next,
        } = self;
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
                        (x >> 8) as u32 & 0xff
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

    fn write(m: &mut NicSystemModel, name: &str, v: u32) {
        m.tick(&BusIn::write(ldcp_regmap::model::offset(name), v));
    }

    fn read(m: &mut NicSystemModel, name: &str) -> u32 {
        m.tick(&BusIn::read(ldcp_regmap::model::offset(name)));
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
