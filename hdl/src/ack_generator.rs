//! `AckGenerator`: the receiver's ACK generator, per-packet and delayed
//! ACKs with exact ECE counts, NAKs once per gap, and the timeout flush;
//! 256 flows, one event in and at most one ACK out per clock
//! (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1).
//!
//! The rules, the back-pressure (`in_ready`), the timeout's lateness and the
//! behaviour on bad input are documented once, with the golden model, in
//! `ldcp_sim::ack_generator`; `AckGeneratorModel` mirrors this file and
//! cosimulation compares every output every cycle.
//!
//! # Structure
//! ```text
//! op select   scanner hit? flush(hit_idx) : input (if valid and in_ready)
//!             -> s1_*; table M read at the op's flow (TableSweep::deep)
//! s1 (t+1)    M's word registered (or the write of edge t)
//! s2 (t+2)    d = PSN - expected, in order?, age = T' - held-since, each
//!             against every source of the state (the s3 op's new state, the
//!             last edge's write, the read) -> s3_* registers
//! s3 (t+3)    the rules on the registered state; M and its copy C written;
//!             the op's ACKs (two for a split) and error -> r_* registers
//! queue (t+4) the ACKs, oldest first, one per clock -> out_*; the rest wait
//!             in an 8-entry queue
//! scanner     C read at sc_ptr every edge r (C = pending | held-since,
//!             written with M); r+1: pending != 0, the stamp and T
//!             registered; r+2: the age T - stamp; r+3: age >= timeout ->
//!             hit (registered)
//! ```
//! Every stage is one carry chain at most: 100 MHz on the HX8K.
//! M = expected (24) | pending (4) | gap NAKed (1) | held since (20) = 49
//! bits; C = pending | held since = 24 bits. M's sweep, write port,
//! forwarding, bypasses and refusal of ids beyond the table are the shared
//! [`TableSweep`] (C is written with M; a flush is an op from inside, never
//! refused).
//!
//! # Timing
//! - An ACK leaves 5 cycles after its packet is taken, later when ACKs
//!   queue ahead of it (the second ACK of a split queues one cycle).
//! - `in_ready` is from registers only: low during the reset sweep, in the
//!   cycle a flush the scanner found enters, and while the queue holds more
//!   than `READY_MAX_QUEUED` ACKs (the queue cannot overflow: see
//!   `ldcp_sim::ack_generator`).
//! - `reset` (synchronous): outputs, queue and T cleared, the ops in the
//!   pipeline dropped (a reset cycle writes nothing, see [`TableSweep`]),
//!   then the tables are swept (256 cycles, `in_ready` low).

use crate::table_sweep::TableSweep;
use ldcp_sim::ack_generator::{
    ACK_QUEUE, FLOW_ID_BITS, FPGA_FLOW_BITS, GAP_MAX, N_BITS, PSN_BITS, READY_MAX_QUEUED,
    TIMEOUT_BITS, T_BITS,
};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = FPGA_FLOW_BITS;
/// Flow bits of the simulation-size build (4,096 flows).
pub const FB_4K: usize = 12;
const PB: usize = PSN_BITS as usize;
const TB: usize = T_BITS as usize;
const M_BITS: usize = PB + N_BITS + 1 + TB;
const C_BITS: usize = N_BITS + TB;
const _: () = assert!(FB_ICE40 == 8 && PB == 24 && TB == 20 && N_BITS == 4 && GAP_MAX == 4095);
const _: () = assert!(M_BITS == 49 && C_BITS == 24 && TIMEOUT_BITS == 16);
/// Bits of a queued ACK below its flow index: PSN (24) | ECE | n (4) | NAK
/// (the shifts below are literals: RustHDL's HDL has no named shift
/// constants).
const Q_LOW_BITS: usize = PB + 1 + N_BITS + 1;
const _: () = assert!(Q_LOW_BITS == 30 && ACK_QUEUE == 8 && READY_MAX_QUEUED == 2);
/// Bits of a queued ACK in the iCE40 build: flow index (8) above the rest.
pub const Q_BITS_ICE40: usize = FB_ICE40 + Q_LOW_BITS;
/// Bits of a queued ACK in the simulation-size build.
pub const Q_BITS_4K: usize = FB_4K + Q_LOW_BITS;
/// The iCE40 build, 256 flows.
pub type AckGeneratorIce40 = AckGenerator<FB_ICE40, Q_BITS_ICE40>;
/// The simulation-size build, 4,096 flows.
pub type AckGenerator4k = AckGenerator<FB_4K, Q_BITS_4K>;
/// The formal-size build, 4 flows ([`verilog_formal`]).
pub type AckGeneratorFormal =
    AckGenerator<{ crate::generate::FB_FORMAL }, { crate::generate::FB_FORMAL + Q_LOW_BITS }>;

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "ack_generator",
    doc: "receiver ACK generator: per-packet or delayed ACKs with exact ECE counts, NAK once per gap, timeout flush, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1)",
    open: &["ts$s1_oor", "ts$sweep_ptr", "ts$p_state", "ts$z_state"],
    subs: &[],
};

/// The module of the formal-size build, 4 flows
/// ([`crate::generate::FB_FORMAL`]): the block's name and ports, for its
/// property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the ACK generator at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[],
};

/// The module of the simulation-size build, 4,096 flows.
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "ack_generator_4k",
    doc: "the ACK generator with 4,096 flows (simulation size)",
    open: MODULE.open,
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]), 256 flows; its table's inputs
/// and outputs are marked `isolate_assignments`
/// ([`crate::verilog::isolate_table_inputs`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    verilog_of(&MODULE, AckGeneratorIce40::default())
}

/// The simulation-size block's Verilog (module [`MODULE_4K`]), 4,096 flows.
pub fn verilog_4k() -> Result<String, crate::verilog::VerilogError> {
    verilog_of(&MODULE_4K, AckGenerator4k::default())
}

/// The formal-size block's Verilog (module [`MODULE_FORMAL`], 4 flows:
/// [`crate::generate::FB_FORMAL`]), for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog_of(&MODULE_FORMAL, AckGeneratorFormal::default())
}

fn verilog_of<const FB: usize, const QB: usize>(
    m: &crate::generate::Module,
    uut: AckGenerator<FB, QB>,
) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(uut)
        .map(|v| crate::verilog::isolate_table_inputs(&v))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}

/// See the module doc. `FB` sizes the flow tables: 2^`FB` flows, 8 (256)
/// on the iCE40, 12 (4,096) in simulation; `QB` is the width of a queued
/// ACK, `FB` + 30 (stable Rust cannot compute a type's width from a
/// generic, so the builds name both: [`AckGeneratorIce40`],
/// [`AckGenerator4k`]).
#[derive(LogicBlock)]
pub struct AckGenerator<const FB: usize, const QB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    // ---- packets in
    /// An event this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// 0: a data packet; 1: open the flow (`in_psn` expected next).
    pub in_open: Signal<In, Bit>,
    /// Flow id, 16 bits (ids >= 256 are refused, error 1).
    pub in_flow: Signal<In, Bits<FLOW_ID_BITS>>,
    /// The packet's PSN, UQ24.
    pub in_psn: Signal<In, Bits<PB>>,
    /// The packet arrived with CE.
    pub in_ce: Signal<In, Bit>,
    /// The packet ends its message.
    pub in_last: Signal<In, Bit>,
    /// Delayed-ACK count m, packets, 1..=15 (0 acts as 1; 1 is per-packet).
    pub cfg_m_pkts: Signal<In, Bits<N_BITS>>,
    /// Timeout of a held ACK, cycles, UQ16.
    pub cfg_timeout_cycles: Signal<In, Bits<TIMEOUT_BITS>>,
    /// Events are taken this cycle (see the module doc).
    pub in_ready: Signal<Out, Bit>,
    // ---- ACKs out (registered)
    /// An ACK this cycle.
    pub out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub out_flow: Signal<Out, Bits<FLOW_ID_BITS>>,
    /// Cumulative: the next expected PSN, UQ24.
    pub out_psn: Signal<Out, Bits<PB>>,
    /// ECN-Echo.
    pub out_ece: Signal<Out, Bit>,
    /// Packets covered, 0..=15 (0 only on a NAK with nothing held).
    pub out_n_pkts: Signal<Out, Bits<N_BITS>>,
    /// A NAK: go back to `ack_psn`.
    pub out_nak: Signal<Out, Bit>,
    /// Error of the event computed last cycle: 0 none, 1 flow id beyond the
    /// table, 2 duplicate or out-of-window PSN, 3 a gap already NAKed.
    pub stat_err: Signal<Out, Bits<2>>,
    // ---- registers
    cf_m: DFF<Bits<N_BITS>>,
    cf_mm1: DFF<Bits<N_BITS>>,
    cf_to: DFF<Bits<TIMEOUT_BITS>>,
    t_now: DFF<Bits<TB>>,
    /// T + 1 (1 at power-up, as T is 0).
    t_p1: DFFWithInit<Bits<TB>>,
    sc_ptr: DFF<Bits<FB>>,
    sc_idx: DFF<Bits<FB>>,
    sc_v: DFF<Bit>,
    h1_v: DFF<Bit>,
    h1_idx: DFF<Bits<FB>>,
    h1_nz: DFF<Bit>,
    h1_since: DFF<Bits<TB>>,
    h1_t: DFF<Bits<TB>>,
    h2_v: DFF<Bit>,
    h2_idx: DFF<Bits<FB>>,
    h2_nz: DFF<Bit>,
    h2_age: DFF<Bits<TB>>,
    hit_v: DFF<Bit>,
    hit_idx: DFF<Bits<FB>>,
    s1_v: DFF<Bit>,
    s1_flush: DFF<Bit>,
    s1_kind: DFF<Bit>,
    s1_psn: DFF<Bits<PB>>,
    s1_ce: DFF<Bit>,
    s1_last: DFF<Bit>,
    s2_v: DFF<Bit>,
    s2_flush: DFF<Bit>,
    s2_kind: DFF<Bit>,
    s2_psn: DFF<Bits<PB>>,
    s2_psn1: DFF<Bits<PB>>,
    s2_ce: DFF<Bit>,
    s2_last: DFF<Bit>,
    s2_idx: DFF<Bits<FB>>,
    s3_v: DFF<Bit>,
    s3_flush: DFF<Bit>,
    s3_kind: DFF<Bit>,
    s3_psn: DFF<Bits<PB>>,
    s3_psn1: DFF<Bits<PB>>,
    s3_ce: DFF<Bit>,
    s3_last: DFF<Bit>,
    s3_idx: DFF<Bits<FB>>,
    s3_d: DFF<Bits<PB>>,
    s3_d0: DFF<Bit>,
    s3_age: DFF<Bits<TB>>,
    r_a1v: DFF<Bit>,
    r_a1psn: DFF<Bits<PB>>,
    r_a1ece: DFF<Bit>,
    r_a1n: DFF<Bits<N_BITS>>,
    r_a1nak: DFF<Bit>,
    r_a2v: DFF<Bit>,
    r_a2psn: DFF<Bits<PB>>,
    r_idx: DFF<Bits<FB>>,
    r_err: DFF<Bits<2>>,
    fq0: DFF<Bits<QB>>,
    fq1: DFF<Bits<QB>>,
    fq2: DFF<Bits<QB>>,
    fq3: DFF<Bits<QB>>,
    fq4: DFF<Bits<QB>>,
    fq5: DFF<Bits<QB>>,
    fq6: DFF<Bits<QB>>,
    fq7: DFF<Bits<QB>>,
    rp: DFF<Bits<3>>,
    wp: DFF<Bits<3>>,
    cnt: DFF<Bits<4>>,
    busy: DFF<Bit>,
    q_v: DFF<Bit>,
    q_idx: DFF<Bits<FB>>,
    q_psn: DFF<Bits<PB>>,
    q_ece: DFF<Bit>,
    q_n: DFF<Bits<N_BITS>>,
    q_nak: DFF<Bit>,
    q_err: DFF<Bits<2>>,
    // ---- tables: M's sweep, write port (C's too), forwarding and bypasses
    ts: TableSweep<FB, M_BITS>,
    t_m: RAM<Bits<M_BITS>, FB>,
    t_c: RAM<Bits<C_BITS>, FB>,
    // ---- combinational
    st: Signal<Local, Bits<M_BITS>>,
    e_cur: Signal<Local, Bits<PB>>,
    pend: Signal<Local, Bits<N_BITS>>,
    nak_cur: Signal<Local, Bit>,
    since: Signal<Local, Bits<TB>>,
    d: Signal<Local, Bits<PB>>,
    d0: Signal<Local, Bit>,
    gap: Signal<Local, Bit>,
    p1: Signal<Local, Bits<N_BITS>>,
    to20: Signal<Local, Bits<TB>>,
    flush_ok: Signal<Local, Bit>,
    n_e: Signal<Local, Bits<PB>>,
    n_pend: Signal<Local, Bits<N_BITS>>,
    n_nak: Signal<Local, Bit>,
    n_since: Signal<Local, Bits<TB>>,
    n_st: Signal<Local, Bits<M_BITS>>,
    a1_v: Signal<Local, Bit>,
    a1_psn: Signal<Local, Bits<PB>>,
    a1_ece: Signal<Local, Bit>,
    a1_n: Signal<Local, Bits<N_BITS>>,
    a1_nak: Signal<Local, Bit>,
    split: Signal<Local, Bit>,
    err_code: Signal<Local, Bits<2>>,
    c_pend: Signal<Local, Bits<N_BITS>>,
    c_since: Signal<Local, Bits<TB>>,
    y_open: Signal<Local, Bit>,
    y_inord: Signal<Local, Bit>,
    y_stamp: Signal<Local, Bit>,
    p_e: Signal<Local, Bits<PB>>,
    z_e: Signal<Local, Bits<PB>>,
    p_since: Signal<Local, Bits<TB>>,
    z_since: Signal<Local, Bits<TB>>,
    has_q: Signal<Local, Bit>,
    head: Signal<Local, Bits<QB>>,
    a1_word: Signal<Local, Bits<QB>>,
    a2_word: Signal<Local, Bits<QB>>,
    pf_v: Signal<Local, Bit>,
    pf: Signal<Local, Bits<QB>>,
    ps_v: Signal<Local, Bit>,
    wp1: Signal<Local, Bits<3>>,
    cnt_n: Signal<Local, Bits<4>>,
    o_word: Signal<Local, Bits<QB>>,
    o_v: Signal<Local, Bit>,
    // ---- constants
    nak_bit: Constant<Bits<M_BITS>>,
    one_fb: Constant<Bits<FB>>,
    one_tb: Constant<Bits<TB>>,
    one_pb: Constant<Bits<PB>>,
    one_n: Constant<Bits<N_BITS>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    ready_max: Constant<Bits<4>>,
    gap_max: Constant<Bits<PB>>,
    q_ece_bit: Constant<Bits<QB>>,
    q_nak_bit: Constant<Bits<QB>>,
    q_ece_n1: Constant<Bits<QB>>,
    e_flow: Constant<Bits<2>>,
    e_seq: Constant<Bits<2>>,
    e_gap: Constant<Bits<2>>,
}

impl<const FB: usize, const QB: usize> Default for AckGenerator<FB, QB> {
    fn default() -> Self {
        assert!(
            (1..=FLOW_ID_BITS).contains(&FB) && QB == FB + Q_LOW_BITS,
            "flow bits {FB} out of [1, {FLOW_ID_BITS}], or a queued ACK of {QB} bits, not {FB} + {Q_LOW_BITS}"
        );
        let c2 = |v: u64| Constant::new(Bits::<2>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_open: Default::default(),
            in_flow: Default::default(),
            in_psn: Default::default(),
            in_ce: Default::default(),
            in_last: Default::default(),
            cfg_m_pkts: Default::default(),
            cfg_timeout_cycles: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_flow: Default::default(),
            out_psn: Default::default(),
            out_ece: Default::default(),
            out_n_pkts: Default::default(),
            out_nak: Default::default(),
            stat_err: Default::default(),
            cf_m: Default::default(),
            cf_mm1: Default::default(),
            cf_to: Default::default(),
            t_now: Default::default(),
            t_p1: DFFWithInit::new(Bits::<TB>::from(1u64)),
            sc_ptr: Default::default(),
            sc_idx: Default::default(),
            sc_v: Default::default(),
            h1_v: Default::default(),
            h1_idx: Default::default(),
            h1_nz: Default::default(),
            h1_since: Default::default(),
            h1_t: Default::default(),
            h2_v: Default::default(),
            h2_idx: Default::default(),
            h2_nz: Default::default(),
            h2_age: Default::default(),
            hit_v: Default::default(),
            hit_idx: Default::default(),
            s1_v: Default::default(),
            s1_flush: Default::default(),
            s1_kind: Default::default(),
            s1_psn: Default::default(),
            s1_ce: Default::default(),
            s1_last: Default::default(),
            s2_v: Default::default(),
            s2_flush: Default::default(),
            s2_kind: Default::default(),
            s2_psn: Default::default(),
            s2_psn1: Default::default(),
            s2_ce: Default::default(),
            s2_last: Default::default(),
            s2_idx: Default::default(),
            s3_v: Default::default(),
            s3_flush: Default::default(),
            s3_kind: Default::default(),
            s3_psn: Default::default(),
            s3_psn1: Default::default(),
            s3_ce: Default::default(),
            s3_last: Default::default(),
            s3_idx: Default::default(),
            s3_d: Default::default(),
            s3_d0: Default::default(),
            s3_age: Default::default(),
            r_a1v: Default::default(),
            r_a1psn: Default::default(),
            r_a1ece: Default::default(),
            r_a1n: Default::default(),
            r_a1nak: Default::default(),
            r_a2v: Default::default(),
            r_a2psn: Default::default(),
            r_idx: Default::default(),
            r_err: Default::default(),
            fq0: Default::default(),
            fq1: Default::default(),
            fq2: Default::default(),
            fq3: Default::default(),
            fq4: Default::default(),
            fq5: Default::default(),
            fq6: Default::default(),
            fq7: Default::default(),
            rp: Default::default(),
            wp: Default::default(),
            cnt: Default::default(),
            busy: Default::default(),
            q_v: Default::default(),
            q_idx: Default::default(),
            q_psn: Default::default(),
            q_ece: Default::default(),
            q_n: Default::default(),
            q_nak: Default::default(),
            q_err: Default::default(),
            ts: TableSweep::deep(),
            t_m: RAM::from((0..1usize << FB).map(|_| Bits::<M_BITS>::from(0u64))),
            t_c: RAM::from((0..1usize << FB).map(|_| Bits::<C_BITS>::from(0u64))),
            st: Default::default(),
            e_cur: Default::default(),
            pend: Default::default(),
            nak_cur: Default::default(),
            since: Default::default(),
            d: Default::default(),
            d0: Default::default(),
            gap: Default::default(),
            p1: Default::default(),
            to20: Default::default(),
            flush_ok: Default::default(),
            n_e: Default::default(),
            n_pend: Default::default(),
            n_nak: Default::default(),
            n_since: Default::default(),
            n_st: Default::default(),
            a1_v: Default::default(),
            a1_psn: Default::default(),
            a1_ece: Default::default(),
            a1_n: Default::default(),
            a1_nak: Default::default(),
            split: Default::default(),
            err_code: Default::default(),
            c_pend: Default::default(),
            c_since: Default::default(),
            y_open: Default::default(),
            y_inord: Default::default(),
            y_stamp: Default::default(),
            p_e: Default::default(),
            z_e: Default::default(),
            p_since: Default::default(),
            z_since: Default::default(),
            has_q: Default::default(),
            head: Default::default(),
            a1_word: Default::default(),
            a2_word: Default::default(),
            pf_v: Default::default(),
            pf: Default::default(),
            ps_v: Default::default(),
            wp1: Default::default(),
            cnt_n: Default::default(),
            o_word: Default::default(),
            o_v: Default::default(),
            nak_bit: Constant::new(Bits::<M_BITS>::from(1u64 << TB)),
            one_fb: Constant::new(Bits::<FB>::from(1u64)),
            one_tb: Constant::new(Bits::<TB>::from(1u64)),
            one_pb: Constant::new(Bits::<PB>::from(1u64)),
            one_n: Constant::new(Bits::<N_BITS>::from(1u64)),
            one3: Constant::new(Bits::<3>::from(1u64)),
            one4: Constant::new(Bits::<4>::from(1u64)),
            ready_max: Constant::new(Bits::<4>::from(READY_MAX_QUEUED as u64)),
            gap_max: Constant::new(Bits::<PB>::from(GAP_MAX as u64)),
            q_ece_bit: Constant::new(Bits::<QB>::from(1u64 << 5)),
            q_nak_bit: Constant::new(Bits::<QB>::from(1u64)),
            q_ece_n1: Constant::new(Bits::<QB>::from((1u64 << 5) | (1 << 1))),
            e_flow: c2(1),
            e_seq: c2(2),
            e_gap: c2(3),
        }
    }
}

impl<const FB: usize, const QB: usize> Logic for AckGenerator<FB, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_m, cf_mm1, cf_to, t_now, t_p1, sc_ptr, sc_idx, sc_v, h1_v, h1_idx,
            h1_nz, h1_since, h1_t, h2_v, h2_idx, h2_nz, h2_age, hit_v, hit_idx, s1_v, s1_flush,
            s1_kind, s1_psn, s1_ce, s1_last, s2_v, s2_flush, s2_kind, s2_psn, s2_psn1, s2_ce,
            s2_last, s2_idx, s3_v, s3_flush, s3_kind, s3_psn, s3_psn1, s3_ce, s3_last, s3_idx,
            s3_d, s3_d0, s3_age, r_a1v, r_a1psn, r_a1ece, r_a1n, r_a1nak, r_a2v, r_a2psn, r_idx,
            r_err, fq0, fq1, fq2, fq3, fq4, fq5, fq6, fq7, rp, wp, cnt, busy, q_v, q_idx, q_psn,
            q_ece, q_n, q_nak, q_err
        );
        self.t_m.read_clock.next = self.clock.val();
        self.t_m.write_clock.next = self.clock.val();
        self.t_c.read_clock.next = self.clock.val();
        self.t_c.write_clock.next = self.clock.val();
        self.ts.clock.next = self.clock.val();
        self.ts.reset.next = self.reset.val();

        // ---- parameters and time (T and T + 1, both counters)
        self.cf_m.d.next = self.cfg_m_pkts.val();
        self.cf_mm1.d.next = self.cfg_m_pkts.val() - self.one_n.val();
        if !self.cfg_m_pkts.val().any() {
            self.cf_m.d.next = self.one_n.val();
            self.cf_mm1.d.next = bits::<N_BITS>(0);
        }
        self.cf_to.d.next = self.cfg_timeout_cycles.val();
        self.t_now.d.next = self.t_now.q.val() + self.one_tb.val();
        self.t_p1.d.next = self.t_p1.q.val() + self.one_tb.val();
        self.to20.next = bit_cast::<TB, TIMEOUT_BITS>(self.cf_to.q.val());

        // ---- the scanner: C read at sc_ptr; r+1: registered; r+2: the age; r+3: due?
        self.t_c.read_address.next = self.sc_ptr.q.val();
        self.sc_ptr.d.next = self.sc_ptr.q.val() + self.one_fb.val();
        self.sc_idx.d.next = self.sc_ptr.q.val();
        self.sc_v.d.next = !self.ts.sweeping.val() & !self.reset.val();
        self.c_pend.next = self.t_c.read_data.val().get_bits::<N_BITS>(20);
        self.c_since.next = self.t_c.read_data.val().get_bits::<TB>(0);
        self.h1_v.d.next = self.sc_v.q.val() & !self.reset.val();
        self.h1_idx.d.next = self.sc_idx.q.val();
        self.h1_nz.d.next = self.c_pend.val().any();
        self.h1_since.d.next = self.c_since.val();
        self.h1_t.d.next = self.t_now.q.val();
        self.h2_v.d.next = self.h1_v.q.val() & !self.reset.val();
        self.h2_idx.d.next = self.h1_idx.q.val();
        self.h2_nz.d.next = self.h1_nz.q.val();
        self.h2_age.d.next = self.h1_t.q.val() - self.h1_since.q.val();
        self.hit_v.d.next = self.h2_v.q.val()
            & self.h2_nz.q.val()
            & (self.h2_age.q.val() >= self.to20.val())
            & !self.reset.val();
        self.hit_idx.d.next = self.h2_idx.q.val();

        // ---- the next op: a flush the scanner found, else the input
        self.in_ready.next = !self.ts.sweeping.val() & !self.hit_v.q.val() & !self.busy.q.val();
        self.s1_v.d.next = !self.reset.val()
            & !self.ts.sweeping.val()
            & (self.hit_v.q.val() | (self.in_valid.val() & !self.busy.q.val()));
        self.s1_flush.d.next = self.hit_v.q.val();
        self.s1_kind.d.next = self.in_open.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_last.d.next = self.in_last.val();
        self.ts.op_flow.next = self.in_flow.val();
        self.ts.op_internal.next = self.hit_v.q.val();
        self.ts.op_entry.next = self.hit_idx.q.val();
        self.t_m.read_address.next = self.ts.rd_addr.val();
        self.ts.rd_state.next = self.t_m.read_data.val();

        // ---- s1 -> s2
        self.s2_v.d.next = self.s1_v.q.val() & !self.reset.val();
        self.s2_flush.d.next = self.s1_flush.q.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_psn.d.next = self.s1_psn.q.val();
        self.s2_psn1.d.next = self.s1_psn.q.val() + self.one_pb.val();
        self.s2_ce.d.next = self.s1_ce.q.val();
        self.s2_last.d.next = self.s1_last.q.val();
        self.s2_idx.d.next = self.ts.s1_idx.val();

        // ---- the s3 op's state (registered by the table), used by s2 and s3
        self.st.next = self.ts.state.val();
        self.e_cur.next = self.st.val().get_bits::<PB>(25);
        self.pend.next = self.st.val().get_bits::<N_BITS>(21);
        self.nak_cur.next = self.st.val().get_bit(20);
        self.since.next = self.st.val().get_bits::<TB>(0);
        self.p1.next = self.pend.val() + self.one_n.val();
        // p1 >= m <=> pending >= m - 1 (no increment before the compare)

        // ---- s2: d = PSN - expected, PSN == expected and the age at the
        // s3 cycle (T + 1 now), against every source of the state: the s3
        // op's new state (expected: its PSN on an open, PSN + 1 in order;
        // held-since: 0 on an open, T when it starts holding), the last
        // edge's write, the read
        self.y_open.next = !self.s3_flush.q.val() & self.s3_kind.q.val();
        self.y_inord.next = !self.s3_flush.q.val() & !self.s3_kind.q.val() & self.s3_d0.q.val();
        self.y_stamp.next = self.y_inord.val()
            & !self.s3_ce.q.val()
            & !((self.pend.val() >= self.cf_mm1.q.val()) | self.s3_last.q.val())
            & !self.pend.val().any();
        self.p_e.next = self.ts.p_state.val().get_bits::<PB>(25);
        self.z_e.next = self.ts.z_state.val().get_bits::<PB>(25);
        self.p_since.next = self.ts.p_state.val().get_bits::<TB>(0);
        self.z_since.next = self.ts.z_state.val().get_bits::<TB>(0);
        self.s3_d.d.next = self.s2_psn.q.val() - self.p_e.val();
        self.s3_d0.d.next = self.s2_psn.q.val() == self.p_e.val();
        self.s3_age.d.next = self.t_p1.q.val() - self.p_since.val();
        if self.ts.z_hit.val() {
            self.s3_d.d.next = self.s2_psn.q.val() - self.z_e.val();
            self.s3_d0.d.next = self.s2_psn.q.val() == self.z_e.val();
            self.s3_age.d.next = self.t_p1.q.val() - self.z_since.val();
        }
        if self.ts.fwd.val() {
            self.s3_d.d.next = self.s2_psn.q.val() - self.e_cur.val();
            self.s3_d0.d.next = self.s2_psn.q.val() == self.e_cur.val();
            if self.y_inord.val() {
                self.s3_d.d.next = self.s2_psn.q.val() - self.s3_psn1.q.val();
                self.s3_d0.d.next = self.s2_psn.q.val() == self.s3_psn1.q.val();
            }
            if self.y_open.val() {
                self.s3_d.d.next = self.s2_psn.q.val() - self.s3_psn.q.val();
                self.s3_d0.d.next = self.s2_psn.q.val() == self.s3_psn.q.val();
            }
            self.s3_age.d.next = self.t_p1.q.val() - self.since.val();
            if self.y_stamp.val() {
                self.s3_age.d.next = bits::<TB>(1);
            }
            if self.y_open.val() {
                self.s3_age.d.next = self.t_p1.q.val();
            }
        }
        self.s3_v.d.next = self.s2_v.q.val() & !self.reset.val();
        self.s3_flush.d.next = self.s2_flush.q.val();
        self.s3_kind.d.next = self.s2_kind.q.val();
        self.s3_psn.d.next = self.s2_psn.q.val();
        self.s3_psn1.d.next = self.s2_psn1.q.val();
        self.s3_ce.d.next = self.s2_ce.q.val();
        self.s3_last.d.next = self.s2_last.q.val();
        self.s3_idx.d.next = self.s2_idx.q.val();
        self.ts.pre_valid.next = self.s2_v.q.val();

        // ---- s3: the rules (see ldcp_sim::ack_generator)
        self.d.next = self.s3_d.q.val();
        self.d0.next = self.s3_d0.q.val();
        self.gap.next = (self.d.val() <= self.gap_max.val()) & !self.d0.val();
        self.flush_ok.next = self.pend.val().any() & (self.s3_age.q.val() >= self.to20.val());
        self.n_e.next = self.e_cur.val();
        self.n_pend.next = self.pend.val();
        self.n_nak.next = self.nak_cur.val();
        self.n_since.next = self.since.val();
        self.a1_v.next = false;
        self.a1_psn.next = self.e_cur.val();
        self.a1_ece.next = false;
        self.a1_n.next = self.pend.val();
        self.a1_nak.next = false;
        self.split.next = false;
        self.err_code.next = bits::<2>(0);
        if self.s3_flush.q.val() {
            if self.flush_ok.val() {
                self.a1_v.next = true;
                self.n_pend.next = bits::<N_BITS>(0);
            }
        } else if self.s3_kind.q.val() {
            self.n_e.next = self.s3_psn.q.val();
            self.n_pend.next = bits::<N_BITS>(0);
            self.n_nak.next = false;
        } else if self.d0.val() {
            // in order: the expected PSN was this one, so expected + 1 is PSN + 1
            self.n_e.next = self.s3_psn1.q.val();
            self.n_nak.next = false;
            if self.s3_ce.q.val() {
                self.n_pend.next = bits::<N_BITS>(0);
                self.a1_v.next = true;
                if self.pend.val().any() {
                    self.split.next = true;
                } else {
                    self.a1_psn.next = self.s3_psn1.q.val();
                    self.a1_ece.next = true;
                    self.a1_n.next = self.one_n.val();
                }
            } else if (self.pend.val() >= self.cf_mm1.q.val()) | self.s3_last.q.val() {
                self.a1_v.next = true;
                self.a1_psn.next = self.s3_psn1.q.val();
                self.a1_n.next = self.p1.val();
                self.n_pend.next = bits::<N_BITS>(0);
            } else {
                self.n_pend.next = self.p1.val();
            }
        } else if self.gap.val() {
            if self.nak_cur.val() {
                self.err_code.next = self.e_gap.val();
            } else {
                self.a1_v.next = true;
                self.a1_nak.next = true;
                self.n_pend.next = bits::<N_BITS>(0);
                self.n_nak.next = true;
            }
        } else {
            self.err_code.next = self.e_seq.val();
        }
        // held-since: stamped by the first held packet, cleared by an open
        // (written flat, so the decisions enter last)
        if self.s3_kind.q.val() & !self.s3_flush.q.val() {
            self.n_since.next = bits::<TB>(0);
        }
        if self.y_stamp.val() {
            self.n_since.next = self.t_now.q.val();
        }
        if self.ts.upd_oor.val() {
            self.a1_v.next = false;
            self.split.next = false;
            self.err_code.next = self.e_flow.val();
        }
        if !self.s3_v.q.val() {
            self.a1_v.next = false;
            self.split.next = false;
            self.err_code.next = bits::<2>(0);
        }
        self.n_st.next = (bit_cast::<M_BITS, PB>(self.n_e.val()) << 25)
            | (bit_cast::<M_BITS, N_BITS>(self.n_pend.val()) << 21)
            | bit_cast::<M_BITS, TB>(self.n_since.val());
        if self.n_nak.val() {
            self.n_st.next = (bit_cast::<M_BITS, PB>(self.n_e.val()) << 25)
                | (bit_cast::<M_BITS, N_BITS>(self.n_pend.val()) << 21)
                | bit_cast::<M_BITS, TB>(self.n_since.val())
                | self.nak_bit.val();
        }

        // ---- the writes (the op's new state, or the sweep), forwarding and bypasses
        self.ts.wr_valid.next = self.s3_v.q.val();
        self.ts.wr_state.next = self.n_st.val();
        self.t_m.write_address.next = self.ts.wr_addr.val();
        self.t_m.write_data.next = self.ts.wr_data.val();
        self.t_m.write_enable.next = self.ts.wr_en.val();
        // C, the scanner's copy, is written with M (the sweep zeroes it too)
        self.t_c.write_address.next = self.ts.wr_addr.val();
        self.t_c.write_data.next = (bit_cast::<C_BITS, N_BITS>(self.n_pend.val()) << 20)
            | bit_cast::<C_BITS, TB>(self.n_since.val());
        if self.ts.sweeping.val() {
            self.t_c.write_data.next = bits::<C_BITS>(0);
        }
        self.t_c.write_enable.next = self.ts.wr_en.val();

        // ---- edge t+3: the op's ACKs and error, registered
        self.r_a1v.d.next = self.a1_v.val() & !self.reset.val();
        self.r_a1psn.d.next = self.a1_psn.val();
        self.r_a1ece.d.next = self.a1_ece.val();
        self.r_a1n.d.next = self.a1_n.val();
        self.r_a1nak.d.next = self.a1_nak.val();
        self.r_a2v.d.next = self.split.val() & !self.reset.val();
        self.r_a2psn.d.next = self.s3_psn1.q.val();
        self.r_idx.d.next = self.s3_idx.q.val();
        self.r_err.d.next = self.err_code.val();
        if self.reset.val() {
            self.r_err.d.next = bits::<2>(0);
        }

        // ---- t+4: the queue. The ACK shown is the oldest queued, else
        // this edge's first; the rest are queued in order
        self.a1_word.next = (bit_cast::<QB, FB>(self.r_idx.q.val()) << 30)
            | (bit_cast::<QB, PB>(self.r_a1psn.q.val()) << 6)
            | (bit_cast::<QB, N_BITS>(self.r_a1n.q.val()) << 1);
        if self.r_a1ece.q.val() {
            self.a1_word.next = self.a1_word.val() | self.q_ece_bit.val();
        }
        if self.r_a1nak.q.val() {
            self.a1_word.next = self.a1_word.val() | self.q_nak_bit.val();
        }
        // the second ACK of a split: ECE, n = 1
        self.a2_word.next = (bit_cast::<QB, FB>(self.r_idx.q.val()) << 30)
            | (bit_cast::<QB, PB>(self.r_a2psn.q.val()) << 6)
            | self.q_ece_n1.val();
        self.has_q.next = self.cnt.q.val().any();
        self.head.next = self.fq0.q.val();
        if self.rp.q.val() == bits::<3>(1) {
            self.head.next = self.fq1.q.val();
        }
        if self.rp.q.val() == bits::<3>(2) {
            self.head.next = self.fq2.q.val();
        }
        if self.rp.q.val() == bits::<3>(3) {
            self.head.next = self.fq3.q.val();
        }
        if self.rp.q.val() == bits::<3>(4) {
            self.head.next = self.fq4.q.val();
        }
        if self.rp.q.val() == bits::<3>(5) {
            self.head.next = self.fq5.q.val();
        }
        if self.rp.q.val() == bits::<3>(6) {
            self.head.next = self.fq6.q.val();
        }
        if self.rp.q.val() == bits::<3>(7) {
            self.head.next = self.fq7.q.val();
        }
        self.o_v.next = self.has_q.val() | self.r_a1v.q.val();
        self.o_word.next = self.a1_word.val();
        self.pf_v.next = self.r_a2v.q.val();
        self.pf.next = self.a2_word.val();
        self.ps_v.next = false;
        if self.has_q.val() {
            self.o_word.next = self.head.val();
            self.pf_v.next = self.r_a1v.q.val();
            self.pf.next = self.a1_word.val();
            self.ps_v.next = self.r_a2v.q.val();
        }
        self.wp1.next = self.wp.q.val() + self.one3.val();
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(0)) {
            self.fq0.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(0)) {
            self.fq0.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(1)) {
            self.fq1.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(1)) {
            self.fq1.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(2)) {
            self.fq2.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(2)) {
            self.fq2.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(3)) {
            self.fq3.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(3)) {
            self.fq3.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(4)) {
            self.fq4.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(4)) {
            self.fq4.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(5)) {
            self.fq5.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(5)) {
            self.fq5.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(6)) {
            self.fq6.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(6)) {
            self.fq6.d.next = self.a2_word.val();
        }
        if self.pf_v.val() & (self.wp.q.val() == bits::<3>(7)) {
            self.fq7.d.next = self.pf.val();
        }
        if self.ps_v.val() & (self.wp1.val() == bits::<3>(7)) {
            self.fq7.d.next = self.a2_word.val();
        }
        self.wp.d.next = self.wp.q.val();
        if self.pf_v.val() {
            self.wp.d.next = self.wp1.val();
        }
        if self.pf_v.val() & self.ps_v.val() {
            self.wp.d.next = self.wp1.val() + self.one3.val();
        }
        self.rp.d.next = self.rp.q.val();
        self.cnt_n.next = self.cnt.q.val();
        if self.has_q.val() {
            self.rp.d.next = self.rp.q.val() + self.one3.val();
            self.cnt_n.next = self.cnt.q.val() - self.one4.val();
        }
        if self.pf_v.val() & self.ps_v.val() {
            self.cnt_n.next = self.cnt_n.val() + bits::<4>(2);
        } else if self.pf_v.val() {
            self.cnt_n.next = self.cnt_n.val() + self.one4.val();
        }
        self.cnt.d.next = self.cnt_n.val();
        self.busy.d.next = self.cnt_n.val() > self.ready_max.val();
        self.q_v.d.next = self.o_v.val();
        self.q_idx.d.next = bits::<FB>(0);
        self.q_psn.d.next = bits::<PB>(0);
        self.q_ece.d.next = false;
        self.q_n.d.next = bits::<N_BITS>(0);
        self.q_nak.d.next = false;
        if self.o_v.val() {
            self.q_idx.d.next = self.o_word.val().get_bits::<FB>(30);
            self.q_psn.d.next = self.o_word.val().get_bits::<PB>(6);
            self.q_ece.d.next = self.o_word.val().get_bit(5);
            self.q_n.d.next = self.o_word.val().get_bits::<N_BITS>(1);
            self.q_nak.d.next = self.o_word.val().get_bit(0);
        }
        self.q_err.d.next = self.r_err.q.val();
        if self.reset.val() {
            self.q_v.d.next = false;
            self.q_idx.d.next = bits::<FB>(0);
            self.q_psn.d.next = bits::<PB>(0);
            self.q_ece.d.next = false;
            self.q_n.d.next = bits::<N_BITS>(0);
            self.q_nak.d.next = false;
            self.q_err.d.next = bits::<2>(0);
            self.rp.d.next = bits::<3>(0);
            self.wp.d.next = bits::<3>(0);
            self.cnt.d.next = bits::<4>(0);
            self.busy.d.next = false;
            self.t_now.d.next = bits::<TB>(0);
            self.t_p1.d.next = bits::<TB>(1);
            self.sc_ptr.d.next = bits::<FB>(0);
        }
        self.out_valid.next = self.q_v.q.val();
        self.out_flow.next = bit_cast::<FLOW_ID_BITS, FB>(self.q_idx.q.val());
        self.out_psn.next = self.q_psn.q.val();
        self.out_ece.next = self.q_ece.q.val();
        self.out_n_pkts.next = self.q_n.q.val();
        self.out_nak.next = self.q_nak.q.val();
        self.stat_err.next = self.q_err.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]): RustHDL's second opinion on the RTL, and the
/// `rusthdl` engine of `ldcp bench`.
pub type AckGeneratorRustHdl<const FB: usize, const QB: usize> =
    crate::stepper::RustHdlSim<AckGenerator<FB, QB>>;

ldcp_sim::ack_generator_ports!(crate::hand_stepped {
    AckGenerator<FB, QB> [const FB: usize, const QB: usize],
    ldcp_sim::ack_generator::AgInputs,
    ldcp_sim::ack_generator::AgOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::ack_generator::{stimulus, AckGeneratorModel};

    /// RustHDL's own simulation agrees with the golden model.
    fn rusthdl_matches_model<const FB: usize, const QB: usize>(cycles: usize) {
        let mut sim = AckGeneratorRustHdl::<FB, QB>::new();
        let mut model = AckGeneratorModel::new(FB as u32);
        for (c, i) in stimulus(5, FB as u32).take(cycles).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(
                got,
                model.outputs(),
                "{FB} flow bits, cycle {c}, inputs {i:?}"
            );
        }
    }

    #[test]
    fn ack_generator_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_ICE40, Q_BITS_ICE40>(3_000);
    }

    /// The 4,096-flow build: its reset sweep (4,096 cycles) and past it.
    #[test]
    fn ack_generator_4k_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_4K, Q_BITS_4K>(6_000);
    }
}
