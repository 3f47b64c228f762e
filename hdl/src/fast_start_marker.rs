//! `FastStartMarker`: the sender's fast-start ECN marker with the IPv4 ECN
//! rewrite and RFC 1624 incremental checksum, one event per clock
//! (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1).
//!
//! The rules, the PSN choice (24-bit, modulo 2^24), the error codes and the
//! behaviour on bad input are documented once, with the golden model, in
//! `ldcp_sim::fast_start_marker`; `FastStartMarkerModel` mirrors this file and
//! cosimulation compares every output every cycle.
//!
//! # Timing
//! - Throughput: one event (transmit, ACK, NAK, flow reset) per clock, any
//!   flow pattern, back-to-back events of one flow included.
//! - Latency: an event presented in cycle t is on the output registers after
//!   edge t + 4 (`LATENCY_CYCLES` = 5, a design constant).
//! - `reset` (synchronous): clears the outputs and the pipeline, then
//!   writes every table entry idle, one per cycle (256 cycles); `in_ready`
//!   is low meanwhile and events presented then are ignored. At power-up the
//!   table is already idle (RAM initial values), no sweep.
//!
//! # Pipeline
//! ```text
//! edge t     in_* -> s1_* registers; the table RAMs read entry in_flow[7:0]
//! cycle t+1  from the input registers only: PSN + 1, IPv4?, and RFC 1624
//!            Eq. 3's three-term sum for both codepoints -> s2_*; the RAM's
//!            word (or the write of edge t) registered by the table
//! cycle t+2  the two checksum folds; off = PSN - base, sent = next - base
//!            and in order? (PSN == next), each against every source of the
//!            state (the s3 op's new state, the last edge's write, the read;
//!            [`TableSweep::deep`]) -> s3_*; the state registered
//! cycle t+3  the rules on the registered state and the registered off,
//!            sent and in-order; the new state -> RAM, the forwarding and
//!            the bypass; the decisions -> r_* registers
//! cycle t+4  the result from the decisions (the ECN decision picks one of
//!            the two precomputed headers; the window for the set) -> out_*
//! ```
//! The loop the clock closes is the rules alone: two compares of
//! registered values (12-bit halves), a few LUTs, the forwarding mux. The
//! subtractions, the checksum and the result's muxes are never on it.
//!
//! The table is three RAMs per flow: `base` (24 bits), `next` (24) and
//! `misc` = stage (2) | fs_len - 1 (12), written together (the model's
//! `acked` decides nothing and is not kept); their sweep, write port,
//! forwarding, bypasses and the refusal of ids beyond the table are the
//! shared [`TableSweep::deep`] (its doc says what a reset cycle writes:
//! nothing).

use crate::table_sweep::TableSweep;
use ldcp_sim::fast_start_marker::{kind, COUNT_BITS, FLOW_ID_BITS, FPGA_FLOW_BITS, PSN_BITS};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = FPGA_FLOW_BITS;
/// Flow bits of the simulation-size build (4,096 flows).
pub const FB_4K: usize = 12;
const PB: usize = PSN_BITS as usize;
const CB: usize = COUNT_BITS;
/// Bits of the `misc` word: stage | fs_len - 1.
const MISC_BITS: usize = 2 + CB;
/// Bits of a flow's state: base | next | misc.
const STATE_BITS: usize = 2 * PB + MISC_BITS;
// the state word is base (bits 61..38) | next (37..14) | misc (13..0): the
// shifts below are literals (RustHDL's HDL has no named shift constants)
const _: () = assert!(FB_ICE40 == 8 && PB == 24 && CB == 12 && MISC_BITS == 14 && STATE_BITS == 62);
const _: () = assert!(MISC_BITS + PB == 38);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "fast_start_marker",
    doc: "sender fast-start ECN marker with the IPv4 ECN rewrite and RFC 1624 checksum update, 256 flows, one event per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1)",
    open: &["ts$s1_idx", "ts$s1_oor", "ts$sweep_ptr", "ts$p_state", "ts$z_state"],
    subs: &[],
};

/// The module of the formal-size build, 4 flows
/// ([`crate::generate::FB_FORMAL`]): the block's name and ports, for its
/// property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the fast-start marker at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[],
};

/// The module of the simulation-size build, 4,096 flows.
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "fast_start_marker_4k",
    doc: "the fast-start marker with 4,096 flows (simulation size)",
    open: MODULE.open,
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]), 256 flows; the sub-block
/// inputs it drives are marked `isolate_assignments`
/// ([`crate::verilog::isolate_table_inputs`]: the table's forwarding select
/// and its write data meet in one RustHDL block, a loop to Verilator that
/// no signal closes).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    verilog_of::<FB_ICE40>(&MODULE)
}

/// The simulation-size block's Verilog (module [`MODULE_4K`]), 4,096 flows.
pub fn verilog_4k() -> Result<String, crate::verilog::VerilogError> {
    verilog_of::<FB_4K>(&MODULE_4K)
}

/// The formal-size block's Verilog (module [`MODULE_FORMAL`], 4 flows:
/// [`crate::generate::FB_FORMAL`]), for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog_of::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

fn verilog_of<const FB: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    let raw = crate::generate::raw_verilog(FastStartMarker::<FB>::default())
        .map(|v| crate::verilog::isolate_table_inputs(&v))
        .map_err(crate::verilog::VerilogError::RustHdl)?;
    crate::verilog::finalize_open(&raw, m.name, m.doc, &m.open_all())
}

/// See the module doc. `FB` sizes the flow tables: 2^`FB` flows, 8 (256)
/// on the iCE40, 12 (4,096) in simulation.
#[derive(LogicBlock)]
pub struct FastStartMarker<const FB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    // ---- event in
    /// An event this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// Kind: 0 transmit, 1 ACK, 2 NAK, 3 flow reset.
    pub in_kind: Signal<In, Bits<2>>,
    /// Flow id, 16 bits (ids >= 256 are refused with error 1).
    pub in_flow: Signal<In, Bits<FLOW_ID_BITS>>,
    /// Transmit: the packet's PSN; ACK/NAK: the receiver's expected PSN. UQ24.
    pub in_psn: Signal<In, Bits<PB>>,
    /// Transmit: the packet ends its message.
    pub in_last: Signal<In, Bit>,
    /// Transmit: IPv4 header word 0 (version, IHL, DSCP, ECN).
    pub in_word0: Signal<In, Bits<16>>,
    /// Transmit: IPv4 header checksum.
    pub in_csum: Signal<In, Bits<16>>,
    /// IW, packets, UQ12 (0 acts as 1); registered.
    pub cfg_iw_pkts: Signal<In, Bits<CB>>,
    /// Events are taken (low during the reset sweep).
    pub in_ready: Signal<Out, Bit>,
    // ---- result out (registered)
    /// A result this cycle.
    pub out_valid: Signal<Out, Bit>,
    /// Its event's kind.
    pub out_kind: Signal<Out, Bits<2>>,
    /// Its flow id.
    pub out_flow: Signal<Out, Bits<FLOW_ID_BITS>>,
    /// Error: 0 none, 1 flow id beyond the table, 2 PSN out of window (or an
    /// ACK for an idle flow), 3 not IPv4.
    pub out_err: Signal<Out, Bits<2>>,
    /// Transmit: the ECN codepoint written (00 Not-ECT, 10 ECT(0)).
    pub out_ecn: Signal<Out, Bits<2>>,
    /// Transmit: word 0 with the ECN field rewritten.
    pub out_word0: Signal<Out, Bits<16>>,
    /// Transmit: the updated checksum (RFC 1624 Eq. 3).
    pub out_csum: Signal<Out, Bits<16>>,
    /// ACK/NAK: hand `o_cw_pkts` to the window engine's per-flow set.
    pub out_set: Signal<Out, Bit>,
    /// The window for the set, packets, UQ12.
    pub out_cw_pkts: Signal<Out, Bits<CB>>,
    /// Go-back-N from `o_psn` (a loss during fast start).
    pub out_gbn: Signal<Out, Bit>,
    /// The event's PSN (0 for a flow reset).
    pub out_psn: Signal<Out, Bits<PB>>,
    /// The flow's stage after the event: 0 idle, 1 fast start, 2 stable.
    pub out_stage: Signal<Out, Bits<2>>,
    // ---- registers (s1: edge t, s2: edge t+1, s3: edge t+2, r: edge t+3, q: edge t+4)
    cf_iw: DFF<Bits<CB>>,
    cf_iwm1: DFF<Bits<CB>>,
    s1_v: DFF<Bit>,
    s1_kind: DFF<Bits<2>>,
    s1_flow: DFF<Bits<FLOW_ID_BITS>>,
    s1_psn: DFF<Bits<PB>>,
    s1_last: DFF<Bit>,
    s1_word0: DFF<Bits<16>>,
    s1_csum: DFF<Bits<16>>,
    s2_v: DFF<Bit>,
    s2_kind: DFF<Bits<2>>,
    s2_flow: DFF<Bits<FLOW_ID_BITS>>,
    s2_psn: DFF<Bits<PB>>,
    s2_psn1: DFF<Bits<PB>>,
    s2_last: DFF<Bit>,
    s2_ipv4: DFF<Bit>,
    s2_word0: DFF<Bits<16>>,
    s2_csum: DFF<Bits<16>>,
    s2_sum_n: DFF<Bits<18>>,
    s2_sum_e: DFF<Bits<18>>,
    s3_v: DFF<Bit>,
    s3_kind: DFF<Bits<2>>,
    s3_flow: DFF<Bits<FLOW_ID_BITS>>,
    s3_psn: DFF<Bits<PB>>,
    s3_last: DFF<Bit>,
    s3_ipv4: DFF<Bit>,
    s3_word0: DFF<Bits<16>>,
    s3_csum: DFF<Bits<16>>,
    s3_ck_n: DFF<Bits<16>>,
    s3_ck_e: DFF<Bits<16>>,
    s3_off: DFF<Bits<PB>>,
    s3_sent: DFF<Bits<PB>>,
    s3_inord: DFF<Bit>,
    s3_psn1: DFF<Bits<PB>>,
    r_v: DFF<Bit>,
    r_kind: DFF<Bits<2>>,
    r_flow: DFF<Bits<FLOW_ID_BITS>>,
    r_psn: DFF<Bits<PB>>,
    r_word0: DFF<Bits<16>>,
    r_csum: DFF<Bits<16>>,
    r_ck_n: DFF<Bits<16>>,
    r_ck_e: DFF<Bits<16>>,
    r_rewrite: DFF<Bit>,
    r_ect: DFF<Bit>,
    r_err: DFF<Bits<2>>,
    r_stage: DFF<Bits<2>>,
    r_set: DFF<Bit>,
    r_gbn: DFF<Bit>,
    r_cw_iw: DFF<Bit>,
    r_a_le: DFF<Bit>,
    r_off12: DFF<Bits<CB>>,
    r_fm1: DFF<Bits<CB>>,
    r_iw: DFF<Bits<CB>>,
    q_valid: DFF<Bit>,
    q_kind: DFF<Bits<2>>,
    q_flow: DFF<Bits<FLOW_ID_BITS>>,
    q_err: DFF<Bits<2>>,
    q_ecn: DFF<Bits<2>>,
    q_word0: DFF<Bits<16>>,
    q_csum: DFF<Bits<16>>,
    q_set: DFF<Bit>,
    q_cw: DFF<Bits<CB>>,
    q_gbn: DFF<Bit>,
    q_psn: DFF<Bits<PB>>,
    q_stage: DFF<Bits<2>>,
    // ---- the table: its sweep, write port, forwarding and bypasses, and three RAMs
    ts: TableSweep<FB, STATE_BITS>,
    t_base: RAM<Bits<PB>, FB>,
    t_next: RAM<Bits<PB>, FB>,
    t_misc: RAM<Bits<MISC_BITS>, FB>,
    // ---- combinational
    lt: Signal<Local, Bit>,
    gt_sent: Signal<Local, Bit>,
    ge_sent: Signal<Local, Bit>,
    is_tx: Signal<Local, Bit>,
    is_ack: Signal<Local, Bit>,
    is_nak: Signal<Local, Bit>,
    tx_ok: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    tx_new: Signal<Local, Bit>,
    ack_fast: Signal<Local, Bit>,
    e_stage: Signal<Local, Bits<2>>,
    e_fm1: Signal<Local, Bits<CB>>,
    leave: Signal<Local, Bit>,
    leave_if: Signal<Local, Bit>,
    o_p: Signal<Local, Bits<PB>>,
    sn_p: Signal<Local, Bits<PB>>,
    sn_z: Signal<Local, Bits<PB>>,
    sn_y1: Signal<Local, Bits<PB>>,
    y_inc: Signal<Local, Bit>,
    c_next: Signal<Local, Bits<PB>>,
    n_next: Signal<Local, Bits<PB>>,
    o_z: Signal<Local, Bits<PB>>,
    o_y: Signal<Local, Bits<PB>>,
    o_c: Signal<Local, Bits<PB>>,
    y_start: Signal<Local, Bit>,
    y_reset: Signal<Local, Bit>,
    c_base: Signal<Local, Bits<PB>>,
    c_stage: Signal<Local, Bits<2>>,
    c_fm1: Signal<Local, Bits<CB>>,
    n_base: Signal<Local, Bits<PB>>,
    n_stage: Signal<Local, Bits<2>>,
    n_fm1: Signal<Local, Bits<CB>>,
    n_misc: Signal<Local, Bits<MISC_BITS>>,
    off: Signal<Local, Bits<PB>>,
    off12: Signal<Local, Bits<CB>>,
    off_small: Signal<Local, Bit>,
    a_le_fm1: Signal<Local, Bit>,
    ect: Signal<Local, Bit>,
    e_code: Signal<Local, Bits<2>>,
    nc: Signal<Local, Bits<16>>,
    nm: Signal<Local, Bits<16>>,
    w_not: Signal<Local, Bits<16>>,
    w_ect: Signal<Local, Bits<16>>,
    f17_n: Signal<Local, Bits<17>>,
    f17_e: Signal<Local, Bits<17>>,
    f16_n: Signal<Local, Bits<16>>,
    f16_e: Signal<Local, Bits<16>>,
    fs_len: Signal<Local, Bits<CB>>,
    // ---- constants
    k_tx: Constant<Bits<2>>,
    k_ack: Constant<Bits<2>>,
    k_nak: Constant<Bits<2>>,
    k_reset: Constant<Bits<2>>,
    st_idle: Constant<Bits<2>>,
    st_fast: Constant<Bits<2>>,
    st_stable: Constant<Bits<2>>,
    ecn_ect0: Constant<Bits<2>>,
    ecn_not_ect: Constant<Bits<2>>,
    one_cb: Constant<Bits<CB>>,
    one_pb: Constant<Bits<PB>>,
    four: Constant<Bits<4>>,
    ecn_mask: Constant<Bits<16>>,
    ect_bits: Constant<Bits<16>>,
    five: Constant<Bits<4>>,
    e_flow: Constant<Bits<2>>,
    e_seq: Constant<Bits<2>>,
    e_ipv4: Constant<Bits<2>>,
}

impl<const FB: usize> Default for FastStartMarker<FB> {
    fn default() -> Self {
        assert!(
            (1..=FLOW_ID_BITS).contains(&FB),
            "flow bits {FB} out of [1, {FLOW_ID_BITS}]"
        );
        let c2 = |v: u64| Constant::new(Bits::<2>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_kind: Default::default(),
            in_flow: Default::default(),
            in_psn: Default::default(),
            in_last: Default::default(),
            in_word0: Default::default(),
            in_csum: Default::default(),
            cfg_iw_pkts: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_kind: Default::default(),
            out_flow: Default::default(),
            out_err: Default::default(),
            out_ecn: Default::default(),
            out_word0: Default::default(),
            out_csum: Default::default(),
            out_set: Default::default(),
            out_cw_pkts: Default::default(),
            out_gbn: Default::default(),
            out_psn: Default::default(),
            out_stage: Default::default(),
            cf_iw: Default::default(),
            cf_iwm1: Default::default(),
            s1_v: Default::default(),
            s1_kind: Default::default(),
            s1_flow: Default::default(),
            s1_psn: Default::default(),
            s1_last: Default::default(),
            s1_word0: Default::default(),
            s1_csum: Default::default(),
            s2_v: Default::default(),
            s2_kind: Default::default(),
            s2_flow: Default::default(),
            s2_psn: Default::default(),
            s2_psn1: Default::default(),
            s2_last: Default::default(),
            s2_ipv4: Default::default(),
            s2_word0: Default::default(),
            s2_csum: Default::default(),
            s2_sum_n: Default::default(),
            s2_sum_e: Default::default(),
            s3_v: Default::default(),
            s3_kind: Default::default(),
            s3_flow: Default::default(),
            s3_psn: Default::default(),
            s3_last: Default::default(),
            s3_ipv4: Default::default(),
            s3_word0: Default::default(),
            s3_csum: Default::default(),
            s3_ck_n: Default::default(),
            s3_ck_e: Default::default(),
            s3_off: Default::default(),
            s3_sent: Default::default(),
            s3_inord: Default::default(),
            s3_psn1: Default::default(),
            r_v: Default::default(),
            r_kind: Default::default(),
            r_flow: Default::default(),
            r_psn: Default::default(),
            r_word0: Default::default(),
            r_csum: Default::default(),
            r_ck_n: Default::default(),
            r_ck_e: Default::default(),
            r_rewrite: Default::default(),
            r_ect: Default::default(),
            r_err: Default::default(),
            r_stage: Default::default(),
            r_set: Default::default(),
            r_gbn: Default::default(),
            r_cw_iw: Default::default(),
            r_a_le: Default::default(),
            r_off12: Default::default(),
            r_fm1: Default::default(),
            r_iw: Default::default(),
            q_valid: Default::default(),
            q_kind: Default::default(),
            q_flow: Default::default(),
            q_err: Default::default(),
            q_ecn: Default::default(),
            q_word0: Default::default(),
            q_csum: Default::default(),
            q_set: Default::default(),
            q_cw: Default::default(),
            q_gbn: Default::default(),
            q_psn: Default::default(),
            q_stage: Default::default(),
            ts: TableSweep::deep(),
            t_base: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_next: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_misc: RAM::from((0..1usize << FB).map(|_| Bits::<MISC_BITS>::from(0u64))),
            lt: Default::default(),
            gt_sent: Default::default(),
            ge_sent: Default::default(),
            is_tx: Default::default(),
            is_ack: Default::default(),
            is_nak: Default::default(),
            tx_ok: Default::default(),
            start: Default::default(),
            tx_new: Default::default(),
            ack_fast: Default::default(),
            e_stage: Default::default(),
            e_fm1: Default::default(),
            leave: Default::default(),
            leave_if: Default::default(),
            o_p: Default::default(),
            sn_p: Default::default(),
            sn_z: Default::default(),
            sn_y1: Default::default(),
            y_inc: Default::default(),
            c_next: Default::default(),
            n_next: Default::default(),
            o_z: Default::default(),
            o_y: Default::default(),
            o_c: Default::default(),
            y_start: Default::default(),
            y_reset: Default::default(),
            c_base: Default::default(),
            c_stage: Default::default(),
            c_fm1: Default::default(),
            n_base: Default::default(),
            n_stage: Default::default(),
            n_fm1: Default::default(),
            n_misc: Default::default(),
            off: Default::default(),
            off12: Default::default(),
            off_small: Default::default(),
            a_le_fm1: Default::default(),
            ect: Default::default(),
            e_code: Default::default(),
            nc: Default::default(),
            nm: Default::default(),
            w_not: Default::default(),
            w_ect: Default::default(),
            f17_n: Default::default(),
            f17_e: Default::default(),
            f16_n: Default::default(),
            f16_e: Default::default(),
            fs_len: Default::default(),
            k_tx: c2(kind::TX as u64),
            k_ack: c2(kind::ACK as u64),
            k_nak: c2(kind::NAK as u64),
            k_reset: c2(kind::RESET_FLOW as u64),
            st_idle: c2(0),
            st_fast: c2(1),
            st_stable: c2(2),
            ecn_ect0: c2(0b10),
            ecn_not_ect: c2(0b00),
            one_cb: Constant::new(Bits::<CB>::from(1u64)),
            one_pb: Constant::new(Bits::<PB>::from(1u64)),
            four: Constant::new(Bits::<4>::from(4u64)),
            ecn_mask: Constant::new(Bits::<16>::from(0xFFFCu64)),
            ect_bits: Constant::new(Bits::<16>::from(0x0002u64)),
            five: Constant::new(Bits::<4>::from(5u64)),
            e_flow: c2(1),
            e_seq: c2(2),
            e_ipv4: c2(3),
        }
    }
}

impl<const FB: usize> Logic for FastStartMarker<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_iw, cf_iwm1, s1_v, s1_kind, s1_flow, s1_psn, s1_last, s1_word0,
            s1_csum, s2_v, s2_kind, s2_flow, s2_psn, s2_psn1, s2_last, s2_ipv4, s2_word0, s2_csum,
            s2_sum_n, s2_sum_e, s3_v, s3_kind, s3_flow, s3_psn, s3_last, s3_ipv4, s3_word0,
            s3_csum, s3_ck_n, s3_ck_e, s3_off, s3_sent, s3_inord, s3_psn1, r_v, r_kind, r_flow,
            r_psn, r_word0, r_csum, r_ck_n, r_ck_e, r_rewrite, r_ect, r_err, r_stage, r_set, r_gbn,
            r_cw_iw, r_a_le, r_off12, r_fm1, r_iw, q_valid, q_kind, q_flow, q_err, q_ecn, q_word0,
            q_csum, q_set, q_cw, q_gbn, q_psn, q_stage
        );
        self.t_base.read_clock.next = self.clock.val();
        self.t_base.write_clock.next = self.clock.val();
        self.t_next.read_clock.next = self.clock.val();
        self.t_next.write_clock.next = self.clock.val();
        self.t_misc.read_clock.next = self.clock.val();
        self.t_misc.write_clock.next = self.clock.val();
        self.ts.clock.next = self.clock.val();
        self.ts.reset.next = self.reset.val();

        // ---- IW, registered and clamped to >= 1; IW - 1 beside it
        self.cf_iw.d.next = self.cfg_iw_pkts.val();
        self.cf_iwm1.d.next = self.cfg_iw_pkts.val() - self.one_cb.val();
        if !self.cfg_iw_pkts.val().any() {
            self.cf_iw.d.next = self.one_cb.val();
            self.cf_iwm1.d.next = bits::<CB>(0);
        }

        // ---- edge t: the input register and the table read
        self.in_ready.next = !self.ts.sweeping.val();
        self.s1_v.d.next = self.in_valid.val() & !self.ts.sweeping.val() & !self.reset.val();
        self.s1_kind.d.next = self.in_kind.val();
        self.s1_flow.d.next = self.in_flow.val();
        self.ts.op_flow.next = self.in_flow.val();
        self.ts.op_internal.next = false;
        self.ts.op_entry.next = bits::<FB>(0);
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_last.d.next = self.in_last.val();
        self.s1_word0.d.next = self.in_word0.val();
        self.s1_csum.d.next = self.in_csum.val();
        self.t_base.read_address.next = self.ts.rd_addr.val();
        self.t_next.read_address.next = self.ts.rd_addr.val();
        self.t_misc.read_address.next = self.ts.rd_addr.val();
        self.ts.rd_state.next = (bit_cast::<STATE_BITS, PB>(self.t_base.read_data.val()) << 38)
            | (bit_cast::<STATE_BITS, PB>(self.t_next.read_data.val()) << 14)
            | bit_cast::<STATE_BITS, MISC_BITS>(self.t_misc.read_data.val());

        // ---- cycle t+1, from the input registers: IPv4?, and RFC 1624
        // Eq. 3's three-term sum ~HC + ~m + m' (UQ18) for both codepoints
        self.s2_v.d.next = self.s1_v.q.val() & !self.reset.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_flow.d.next = self.s1_flow.q.val();
        self.s2_psn.d.next = self.s1_psn.q.val();
        self.s2_psn1.d.next = self.s1_psn.q.val() + self.one_pb.val();
        self.s2_last.d.next = self.s1_last.q.val();
        self.s2_ipv4.d.next = (self.s1_word0.q.val().get_bits::<4>(12) == self.four.val())
            & (self.s1_word0.q.val().get_bits::<4>(8) >= self.five.val());
        self.s2_word0.d.next = self.s1_word0.q.val();
        self.s2_csum.d.next = self.s1_csum.q.val();
        self.nc.next = !self.s1_csum.q.val();
        self.nm.next = !self.s1_word0.q.val();
        self.w_not.next = self.s1_word0.q.val() & self.ecn_mask.val();
        self.w_ect.next = (self.s1_word0.q.val() & self.ecn_mask.val()) | self.ect_bits.val();
        self.s2_sum_n.d.next = bit_cast::<18, 16>(self.nc.val())
            + bit_cast::<18, 16>(self.nm.val())
            + bit_cast::<18, 16>(self.w_not.val());
        self.s2_sum_e.d.next = bit_cast::<18, 16>(self.nc.val())
            + bit_cast::<18, 16>(self.nm.val())
            + bit_cast::<18, 16>(self.w_ect.val());

        // the s3 op's state (registered by the table: see cycle t+3)
        self.c_base.next = self.ts.state.val().get_bits::<PB>(38);
        self.c_next.next = self.ts.state.val().get_bits::<PB>(14);
        self.c_stage.next = self.ts.state.val().get_bits::<2>(12);
        self.c_fm1.next = self.ts.state.val().get_bits::<CB>(0);

        // ---- cycle t+2: the two folds; off = PSN - base against every
        // source the entry's state can come from (see TableSweep::deep):
        // the s3 op's new state (its base unchanged, its PSN for a fast
        // start, 0 for a flow reset), the last edge's write, the read
        self.s3_v.d.next = self.s2_v.q.val() & !self.reset.val();
        self.s3_kind.d.next = self.s2_kind.q.val();
        self.s3_flow.d.next = self.s2_flow.q.val();
        self.s3_psn.d.next = self.s2_psn.q.val();
        self.s3_last.d.next = self.s2_last.q.val();
        self.s3_ipv4.d.next = self.s2_ipv4.q.val();
        self.s3_word0.d.next = self.s2_word0.q.val();
        self.s3_csum.d.next = self.s2_csum.q.val();
        self.f17_n.next = bit_cast::<17, 16>(self.s2_sum_n.q.val().get_bits::<16>(0))
            + bit_cast::<17, 2>(self.s2_sum_n.q.val().get_bits::<2>(16));
        self.f17_e.next = bit_cast::<17, 16>(self.s2_sum_e.q.val().get_bits::<16>(0))
            + bit_cast::<17, 2>(self.s2_sum_e.q.val().get_bits::<2>(16));
        self.f16_n.next = self.f17_n.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.f17_n.val().get_bits::<1>(16));
        self.f16_e.next = self.f17_e.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.f17_e.val().get_bits::<1>(16));
        self.s3_ck_n.d.next = !self.f16_n.val();
        self.s3_ck_e.d.next = !self.f16_e.val();
        self.s3_psn1.d.next = self.s2_psn1.q.val();
        self.y_start.next = (self.s3_kind.q.val() == self.k_tx.val())
            & self.s3_ipv4.q.val()
            & (self.c_stage.val() == self.st_idle.val());
        self.y_inc.next = (self.s3_kind.q.val() == self.k_tx.val())
            & self.s3_ipv4.q.val()
            & (self.c_stage.val() == self.st_fast.val())
            & self.s3_inord.q.val();
        self.y_reset.next = self.s3_kind.q.val() == self.k_reset.val();
        // off = PSN - base
        self.o_p.next = self.s2_psn.q.val() - self.ts.p_state.val().get_bits::<PB>(38);
        self.o_z.next = self.s2_psn.q.val() - self.ts.z_state.val().get_bits::<PB>(38);
        self.o_y.next = self.s2_psn.q.val() - self.s3_psn.q.val();
        self.o_c.next = self.s2_psn.q.val() - self.c_base.val();
        // sent = next - base (the s3 op's: its own, + 1 for a new packet)
        self.sn_p.next =
            self.ts.p_state.val().get_bits::<PB>(14) - self.ts.p_state.val().get_bits::<PB>(38);
        self.sn_z.next =
            self.ts.z_state.val().get_bits::<PB>(14) - self.ts.z_state.val().get_bits::<PB>(38);
        // (its new next - its base: not its sent + 1, which yosys would
        // share with the loop's compare of sent and chain the two)
        self.sn_y1.next = self.s3_psn1.q.val() - self.c_base.val();
        // in order: PSN == next (the s3 op's next: PSN + 1 after a fast
        // start or a new packet)
        self.s3_off.d.next = self.o_p.val();
        self.s3_sent.d.next = self.sn_p.val();
        self.s3_inord.d.next = self.s2_psn.q.val() == self.ts.p_state.val().get_bits::<PB>(14);
        if self.ts.z_hit.val() {
            self.s3_off.d.next = self.o_z.val();
            self.s3_sent.d.next = self.sn_z.val();
            self.s3_inord.d.next = self.s2_psn.q.val() == self.ts.z_state.val().get_bits::<PB>(14);
        }
        if self.ts.fwd.val() {
            self.s3_off.d.next = self.o_c.val();
            self.s3_sent.d.next = self.s3_sent.q.val();
            self.s3_inord.d.next = self.s2_psn.q.val() == self.c_next.val();
            if self.y_inc.val() {
                self.s3_sent.d.next = self.sn_y1.val();
                self.s3_inord.d.next = self.s2_psn.q.val() == self.s3_psn1.q.val();
            }
            if self.y_start.val() {
                self.s3_off.d.next = self.o_y.val();
                self.s3_sent.d.next = bits::<PB>(1);
                self.s3_inord.d.next = self.s2_psn.q.val() == self.s3_psn1.q.val();
            }
            if self.y_reset.val() {
                self.s3_off.d.next = self.s2_psn.q.val();
                self.s3_sent.d.next = bits::<PB>(0);
                self.s3_inord.d.next = !self.s2_psn.q.val().any();
            }
        }

        // ---- cycle t+3: the flow's state (registered by the table), the rules
        self.off.next = self.s3_off.q.val();
        self.off12.next = self.off.val().get_bits::<CB>(0);
        self.off_small.next = !self.off.val().get_bits::<CB>(12).any();
        // the rules (see ldcp_sim::fast_start_marker), written so that the
        // three compares against the state come last: k = off + 1, so
        // k < fs_len <=> off < fs_len - 1 (`lt`), a < fs_len <=> a <= fs_len - 1
        // (`a_le_fm1`); off, sent and in-order come registered from cycle t+2
        self.lt.next = self.off_small.val() & (self.off12.val() < self.c_fm1.val());
        self.a_le_fm1.next = self.off_small.val() & (self.off12.val() <= self.c_fm1.val());
        // off >= sent in two 12-bit halves (two short carry chains side by
        // side, not one long one); off == sent is PSN == next, in order,
        // registered
        self.ge_sent.next = (self.off.val().get_bits::<CB>(12)
            > self.s3_sent.q.val().get_bits::<CB>(12))
            | ((self.off.val().get_bits::<CB>(12) == self.s3_sent.q.val().get_bits::<CB>(12))
                & (self.off12.val() >= self.s3_sent.q.val().get_bits::<CB>(0)));
        self.gt_sent.next = self.ge_sent.val() & !self.s3_inord.q.val();
        // from registers only
        self.is_tx.next = self.s3_kind.q.val() == self.k_tx.val();
        self.is_ack.next = self.s3_kind.q.val() == self.k_ack.val();
        self.is_nak.next = self.s3_kind.q.val() == self.k_nak.val();
        self.tx_ok.next = self.is_tx.val() & self.s3_ipv4.q.val();
        self.start.next = self.tx_ok.val() & (self.c_stage.val() == self.st_idle.val());
        self.tx_new.next =
            self.tx_ok.val() & (self.c_stage.val() == self.st_fast.val()) & self.s3_inord.q.val();
        self.ack_fast.next =
            (self.is_ack.val() | self.is_nak.val()) & (self.c_stage.val() == self.st_fast.val());
        self.n_base.next = self.c_base.val();
        self.n_next.next = self.c_next.val();
        self.e_stage.next = self.c_stage.val();
        self.e_fm1.next = self.c_fm1.val();
        if self.start.val() {
            self.n_base.next = self.s3_psn.q.val();
            self.n_next.next = self.s3_psn1.q.val();
            self.e_stage.next = self.st_fast.val();
            self.e_fm1.next = self.cf_iwm1.q.val();
            if self.s3_last.q.val() {
                self.e_fm1.next = bits::<CB>(0);
            }
        }
        if self.tx_new.val() {
            self.n_next.next = self.s3_psn1.q.val();
        }
        if !(self.is_tx.val() | self.is_ack.val() | self.is_nak.val()) {
            // a flow reset
            self.n_base.next = bits::<PB>(0);
            self.n_next.next = bits::<PB>(0);
            self.e_stage.next = self.st_idle.val();
            self.e_fm1.next = bits::<CB>(0);
        }
        // the late decisions: a new packet of a message shorter than IW
        // ends the burst; an ACK or NAK in window may end the fast start
        self.n_fm1.next = self.e_fm1.val();
        if self.tx_new.val() & self.s3_last.q.val() & self.lt.val() {
            self.n_fm1.next = self.off12.val();
        }
        // (the compares enter last: leave = (!ge | in order) & (NAK | !a_le))
        self.leave_if.next = (self.ack_fast.val() & self.is_nak.val())
            | (self.ack_fast.val() & !self.is_nak.val() & !self.a_le_fm1.val());
        self.leave.next = self.leave_if.val() & !self.gt_sent.val();
        self.n_stage.next = self.e_stage.val();
        if self.leave.val() {
            self.n_stage.next = self.st_stable.val();
        }
        self.r_set.d.next = self.leave.val();
        self.r_gbn.d.next = self.leave.val() & self.is_nak.val();
        self.r_cw_iw.d.next = self.leave.val() & !self.is_nak.val();
        self.ect.next = !(self.tx_new.val() & !self.s3_last.q.val() & self.lt.val());
        if self.start.val() & !self.s3_last.q.val() & self.cf_iwm1.q.val().any() {
            self.ect.next = false;
        }
        self.e_code.next = bits::<2>(0);
        if self.is_tx.val() & !self.s3_ipv4.q.val() {
            self.e_code.next = self.e_ipv4.val();
        }
        if (self.tx_ok.val()
            & (self.c_stage.val() == self.st_fast.val())
            & !self.s3_inord.q.val()
            & self.ge_sent.val())
            | ((self.is_ack.val() | self.is_nak.val()) & (self.c_stage.val() == self.st_idle.val()))
            | (self.ack_fast.val() & self.gt_sent.val())
        {
            self.e_code.next = self.e_seq.val();
        }
        self.n_misc.next = (bit_cast::<MISC_BITS, 2>(self.n_stage.val()) << 12)
            | bit_cast::<MISC_BITS, CB>(self.n_fm1.val());

        // ---- the write (the event's new state, or the sweep), forwarding and bypasses
        self.ts.wr_valid.next = self.s3_v.q.val();
        self.ts.pre_valid.next = self.s2_v.q.val();
        self.ts.wr_state.next = (bit_cast::<STATE_BITS, PB>(self.n_base.val()) << 38)
            | (bit_cast::<STATE_BITS, PB>(self.n_next.val()) << 14)
            | bit_cast::<STATE_BITS, MISC_BITS>(self.n_misc.val());
        self.t_base.write_address.next = self.ts.wr_addr.val();
        self.t_next.write_address.next = self.ts.wr_addr.val();
        self.t_misc.write_address.next = self.ts.wr_addr.val();
        self.t_base.write_data.next = self.ts.wr_data.val().get_bits::<PB>(38);
        self.t_next.write_data.next = self.ts.wr_data.val().get_bits::<PB>(14);
        self.t_misc.write_data.next = self.ts.wr_data.val().get_bits::<MISC_BITS>(0);
        self.t_base.write_enable.next = self.ts.wr_en.val();
        self.t_next.write_enable.next = self.ts.wr_en.val();
        self.t_misc.write_enable.next = self.ts.wr_en.val();

        // ---- edge t+3: the decisions, registered (the result is built from
        // them in cycle t+4, off the loop)
        self.r_v.d.next = self.s3_v.q.val() & !self.reset.val();
        self.r_kind.d.next = self.s3_kind.q.val();
        self.r_flow.d.next = self.s3_flow.q.val();
        self.r_psn.d.next = self.s3_psn.q.val();
        self.r_word0.d.next = self.s3_word0.q.val();
        self.r_csum.d.next = self.s3_csum.q.val();
        self.r_ck_n.d.next = self.s3_ck_n.q.val();
        self.r_ck_e.d.next = self.s3_ck_e.q.val();
        self.r_rewrite.d.next = self.s3_ipv4.q.val() & !self.ts.upd_oor.val();
        self.r_ect.d.next = self.ect.val();
        self.r_err.d.next = self.e_code.val();
        self.r_stage.d.next = self.n_stage.val();
        self.r_a_le.d.next = self.a_le_fm1.val();
        self.r_off12.d.next = self.off12.val();
        self.r_fm1.d.next = self.c_fm1.val();
        self.r_iw.d.next = self.cf_iw.q.val();
        if self.ts.upd_oor.val() {
            self.r_err.d.next = self.e_flow.val();
            self.r_stage.d.next = self.st_idle.val();
            self.r_set.d.next = false;
            self.r_gbn.d.next = false;
            self.r_cw_iw.d.next = false;
        }

        // ---- cycle t+4: the result registers
        self.fs_len.next = self.r_fm1.q.val() + self.one_cb.val();
        self.q_valid.d.next = self.r_v.q.val() & !self.reset.val();
        self.q_kind.d.next = self.r_kind.q.val();
        self.q_flow.d.next = self.r_flow.q.val();
        self.q_err.d.next = self.r_err.q.val();
        self.q_stage.d.next = self.r_stage.q.val();
        self.q_psn.d.next = self.r_psn.q.val();
        self.q_set.d.next = self.r_set.q.val();
        self.q_gbn.d.next = self.r_gbn.q.val();
        self.q_cw.d.next = bits::<CB>(0);
        if self.r_set.q.val() {
            // transition 2: IW; transition 1 (NAK): min(a, fs_len)
            self.q_cw.d.next = self.r_iw.q.val();
            if !self.r_cw_iw.q.val() {
                self.q_cw.d.next = self.fs_len.val();
                if self.r_a_le.q.val() {
                    self.q_cw.d.next = self.r_off12.q.val();
                }
            }
        }
        self.q_ecn.d.next = bits::<2>(0);
        self.q_word0.d.next = bits::<16>(0);
        self.q_csum.d.next = bits::<16>(0);
        if self.r_kind.q.val() == self.k_tx.val() {
            self.q_ecn.d.next = self.r_word0.q.val().get_bits::<2>(0);
            self.q_word0.d.next = self.r_word0.q.val();
            self.q_csum.d.next = self.r_csum.q.val();
            if self.r_rewrite.q.val() {
                if self.r_ect.q.val() {
                    self.q_ecn.d.next = self.ecn_ect0.val();
                    self.q_word0.d.next =
                        (self.r_word0.q.val() & self.ecn_mask.val()) | self.ect_bits.val();
                    self.q_csum.d.next = self.r_ck_e.q.val();
                } else {
                    self.q_ecn.d.next = self.ecn_not_ect.val();
                    self.q_word0.d.next = self.r_word0.q.val() & self.ecn_mask.val();
                    self.q_csum.d.next = self.r_ck_n.q.val();
                }
            }
        } else if !((self.r_kind.q.val() == self.k_ack.val())
            | (self.r_kind.q.val() == self.k_nak.val()))
        {
            self.q_psn.d.next = bits::<PB>(0);
        }
        if !self.r_v.q.val() | self.reset.val() {
            self.q_kind.d.next = bits::<2>(0);
            self.q_flow.d.next = bits::<FLOW_ID_BITS>(0);
            self.q_err.d.next = bits::<2>(0);
            self.q_stage.d.next = bits::<2>(0);
            self.q_psn.d.next = bits::<PB>(0);
            self.q_ecn.d.next = bits::<2>(0);
            self.q_word0.d.next = bits::<16>(0);
            self.q_csum.d.next = bits::<16>(0);
            self.q_set.d.next = false;
            self.q_cw.d.next = bits::<CB>(0);
            self.q_gbn.d.next = false;
        }
        self.out_valid.next = self.q_valid.q.val();
        self.out_kind.next = self.q_kind.q.val();
        self.out_flow.next = self.q_flow.q.val();
        self.out_err.next = self.q_err.q.val();
        self.out_ecn.next = self.q_ecn.q.val();
        self.out_word0.next = self.q_word0.q.val();
        self.out_csum.next = self.q_csum.q.val();
        self.out_set.next = self.q_set.q.val();
        self.out_cw_pkts.next = self.q_cw.q.val();
        self.out_gbn.next = self.q_gbn.q.val();
        self.out_psn.next = self.q_psn.q.val();
        self.out_stage.next = self.q_stage.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]): RustHDL's second opinion on the RTL, and the
/// `rusthdl` engine of `ldcp bench`.
pub type FastStartMarkerRustHdl<const FB: usize> = crate::stepper::RustHdlSim<FastStartMarker<FB>>;

ldcp_sim::fast_start_marker_ports!(crate::hand_stepped {
    FastStartMarker<FB> [const FB: usize],
    ldcp_sim::fast_start_marker::FsInputs,
    ldcp_sim::fast_start_marker::FsOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::fast_start_marker::{stimulus, FastStartMarkerModel};

    /// RustHDL's own simulation agrees with the golden model.
    fn rusthdl_matches_model<const FB: usize>(cycles: usize) {
        let mut sim = FastStartMarkerRustHdl::<FB>::new();
        let mut model = FastStartMarkerModel::new(FB as u32);
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
    fn fast_start_marker_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_ICE40>(3_000);
    }

    /// The 4,096-flow build: its reset sweep (4,096 cycles) and past it.
    #[test]
    fn fast_start_marker_4k_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_4K>(6_000);
    }
}
