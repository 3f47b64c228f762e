//! `FastStartMarkerSeq`: the sender's fast-start ECN marker in the fewest
//! cells, for a board the pipelined
//! [`crate::fast_start_marker::FastStartMarker`] does not fit beside the
//! other NIC blocks (the Alchitry Cu's HX8K). Same rules, same ports: one
//! event at a time, so the table needs no forwarding and no bypass, and
//! the checksum is computed once, for the codepoint decided.
//!
//! The rules, the PSN choice, the error codes and the behaviour on bad
//! input are those of `ldcp_sim::fast_start_marker` ([`FsFlow::tx`],
//! [`FsFlow::ack`], the flow reset; RFC 1624 Eq. 3 for the checksum).
//! `ldcp_sim::fast_start_marker::FastStartMarkerSeqModel` is its cycle model: it applies
//! each event with the pipelined model's own result function, so
//! cosimulation checks this RTL against the same golden functions.
//!
//! [`FsFlow::tx`]: ldcp_sim::fast_start_marker::FsFlow::tx
//! [`FsFlow::ack`]: ldcp_sim::fast_start_marker::FsFlow::ack
//!
//! # Handshake and timing (design constants)
//! An event is taken in a cycle with `in_valid`, `in_ready` and no
//! `reset`. An event taken in cycle t reads its flow's entry at the end of
//! t, and
//! - in t + 1 registers the entry, PSN + 1 and whether the header is IPv4;
//! - in t + 2 registers off = PSN - base, sent = next - base and PSN ==
//!   next;
//! - in t + 3 registers the compares of off against fs_len - 1 and sent;
//! - in t + 4 applies the rules (IW as registered in t + 4), writes the
//!   entry and registers the decisions;
//! - in t + 5 sums RFC 1624 Eq. 3's three terms for the codepoint decided;
//! - in t + 6 folds the sum and registers the result, shown in t + 7
//!   ([`ldcp_sim::fast_start_marker::SEQ_LATENCY_CYCLES`]).
//!
//! The result's fields (every `out_*` but `out_valid`, a one-cycle strobe)
//! hold until the next result, and a reset clears them, so a system reads
//! the last result from them (the Cu NIC's FS_RESULT registers).
//!
//! `in_ready` is from registers: low from t + 1 to t + 6 (one event per 7
//! cycles) and during the reset sweep. Each stage's logic is one carry
//! chain at most: the rules and the write only select among registered
//! compares.
//!
//! # Reset
//! `reset` (synchronous): the event in flight is dropped (a reset cycle
//! writes nothing), the outputs are cleared, then the table is swept, one
//! entry a clock (N cycles, `in_ready` low), as [`ldcp_sim::Sweep`] does.
//! The table powers up idle.

use ldcp_sim::fast_start_marker::{
    kind, COUNT_BITS, FLOW_ID_BITS, FPGA_FLOW_BITS, PSN_BITS, SEQ_LATENCY_CYCLES,
};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = FPGA_FLOW_BITS;
const PB: usize = PSN_BITS as usize;
const CB: usize = COUNT_BITS;
/// Bits of the `misc` word: stage | fs_len - 1.
const MISC_BITS: usize = 2 + CB;
const _: () = assert!(PB == 24 && CB == 12 && MISC_BITS == 14);
// the step counter's states: 0..=5 after the take, then the result
const _: () = assert!(SEQ_LATENCY_CYCLES == 7);
const _: () = assert!(kind::TX == 0 && kind::ACK == 1 && kind::NAK == 2 && kind::RESET_FLOW == 3);

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "fast_start_marker_seq",
    doc: "sender fast-start ECN marker in the fewest cells, with the IPv4 ECN rewrite and RFC 1624 checksum update, 256 flows, one event per 7 cycles (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1)",
    open: &[],
    subs: &[],
};

/// The module of the formal-size build ([`crate::generate::FB_FORMAL`]
/// flow bits), for its property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the sequential fast-start marker at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: &[],
    subs: &[],
};

/// The Verilog of the block with 2^`FB` flows, as module `m`.
pub fn verilog<const FB: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, FastStartMarkerSeq::<FB>::default())
}

/// The formal-size block's Verilog, for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

/// See the module doc. `FB` sizes the table: 2^`FB` flows, 8 (256) on the
/// iCE40.
#[derive(LogicBlock)]
pub struct FastStartMarkerSeq<const FB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    /// An event this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// Kind: 0 transmit, 1 ACK, 2 NAK, 3 flow reset.
    pub in_kind: Signal<In, Bits<2>>,
    /// Flow id, 16 bits (ids beyond the table are refused with error 1).
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
    /// Events are taken this cycle (from registers; see the module doc).
    pub in_ready: Signal<Out, Bit>,
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
    /// ACK/NAK: hand `out_cw_pkts` to the window engine's per-flow set.
    pub out_set: Signal<Out, Bit>,
    /// The window for the set, packets, UQ12.
    pub out_cw_pkts: Signal<Out, Bits<CB>>,
    /// Go-back-N from `out_psn` (a loss during fast start).
    pub out_gbn: Signal<Out, Bit>,
    /// The event's PSN (0 for a flow reset).
    pub out_psn: Signal<Out, Bits<PB>>,
    /// The flow's stage after the event: 0 idle, 1 fast start, 2 stable.
    pub out_stage: Signal<Out, Bits<2>>,
    // ---- IW, the sweep, control
    cf_iw: DFF<Bits<CB>>,
    cf_iwm1: DFF<Bits<CB>>,
    sw_active: DFF<Bit>,
    sw_ptr: DFF<Bits<FB>>,
    busy: DFF<Bit>,
    st: DFF<Bits<3>>,
    // ---- the event (taken), held until its result
    e_kind: DFF<Bits<2>>,
    e_flow: DFF<Bits<FLOW_ID_BITS>>,
    e_oor: DFF<Bit>,
    e_psn: DFF<Bits<PB>>,
    e_last: DFF<Bit>,
    e_word0: DFF<Bits<16>>,
    e_csum: DFF<Bits<16>>,
    // ---- t + 1: the entry, PSN + 1, IPv4?
    s_base: DFF<Bits<PB>>,
    s_next: DFF<Bits<PB>>,
    s_stage: DFF<Bits<2>>,
    s_fm1: DFF<Bits<CB>>,
    e_psn1: DFF<Bits<PB>>,
    e_ipv4: DFF<Bit>,
    // ---- t + 2
    x_off: DFF<Bits<PB>>,
    x_sent: DFF<Bits<PB>>,
    x_inord: DFF<Bit>,
    // ---- t + 3: the compares against the state
    y_lt: DFF<Bit>,
    y_ale: DFF<Bit>,
    y_ge: DFF<Bit>,
    // ---- t + 4: the decisions
    r_ect: DFF<Bit>,
    r_err: DFF<Bits<2>>,
    r_stage: DFF<Bits<2>>,
    r_set: DFF<Bit>,
    r_gbn: DFF<Bit>,
    r_cw_iw: DFF<Bit>,
    r_iw: DFF<Bits<CB>>,
    r_rewrite: DFF<Bit>,
    // ---- t + 4: the checksum's sum
    k_sum: DFF<Bits<18>>,
    // ---- the result
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
    // ---- the table: base, next, misc = stage | fs_len - 1
    t_base: RAM<Bits<PB>, FB>,
    t_next: RAM<Bits<PB>, FB>,
    t_misc: RAM<Bits<MISC_BITS>, FB>,
    // ---- combinational
    take: Signal<Local, Bit>,
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    at2: Signal<Local, Bit>,
    at3: Signal<Local, Bit>,
    at4: Signal<Local, Bit>,
    at5: Signal<Local, Bit>,
    w_addr: Signal<Local, Bits<FB>>,
    w_en: Signal<Local, Bit>,
    off12: Signal<Local, Bits<CB>>,
    off_small: Signal<Local, Bit>,
    lt: Signal<Local, Bit>,
    a_le_fm1: Signal<Local, Bit>,
    ge_sent: Signal<Local, Bit>,
    gt_sent: Signal<Local, Bit>,
    is_tx: Signal<Local, Bit>,
    is_ack: Signal<Local, Bit>,
    is_nak: Signal<Local, Bit>,
    tx_ok: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    tx_new: Signal<Local, Bit>,
    ack_fast: Signal<Local, Bit>,
    leave: Signal<Local, Bit>,
    ect: Signal<Local, Bit>,
    e_code: Signal<Local, Bits<2>>,
    n_base: Signal<Local, Bits<PB>>,
    n_next: Signal<Local, Bits<PB>>,
    n_stage: Signal<Local, Bits<2>>,
    e_fm1: Signal<Local, Bits<CB>>,
    n_fm1: Signal<Local, Bits<CB>>,
    w_new: Signal<Local, Bits<16>>,
    nc: Signal<Local, Bits<16>>,
    nm: Signal<Local, Bits<16>>,
    f17: Signal<Local, Bits<17>>,
    f16: Signal<Local, Bits<16>>,
    // ---- constants
    flow_max: Constant<Bits<FLOW_ID_BITS>>,
    last_idx: Constant<Bits<FB>>,
    ecn_mask: Constant<Bits<16>>,
    ect_bits: Constant<Bits<16>>,
}

impl<const FB: usize> Default for FastStartMarkerSeq<FB> {
    fn default() -> Self {
        assert!(
            (1..=FLOW_ID_BITS).contains(&FB),
            "flow bits {FB} out of [1, {FLOW_ID_BITS}]"
        );
        with_defaults!(
            t_base: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_next: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_misc: RAM::from((0..1usize << FB).map(|_| Bits::<MISC_BITS>::from(0u64))),
            flow_max: Constant::new(((1u64 << FB) - 1).into()),
            last_idx: Constant::new(((1u64 << FB) - 1).into()),
            ecn_mask: Constant::new(0xFFFCu64.into()),
            ect_bits: Constant::new(0x0002u64.into()),
            ;
            clock, reset, in_valid, in_kind, in_flow, in_psn, in_last, in_word0, in_csum,
            cfg_iw_pkts, in_ready, out_valid, out_kind, out_flow, out_err, out_ecn, out_word0,
            out_csum, out_set, out_cw_pkts, out_gbn, out_psn, out_stage, cf_iw, cf_iwm1,
            sw_active, sw_ptr, busy, st, e_kind, e_flow, e_oor, e_psn, e_last, e_word0, e_csum,
            s_base, s_next, s_stage, s_fm1, e_psn1, e_ipv4, x_off, x_sent, x_inord, y_lt, y_ale, y_ge,
            r_ect, r_err,
            r_stage, r_set, r_gbn, r_cw_iw, r_iw, r_rewrite, k_sum, q_valid, q_kind, q_flow,
            q_err, q_ecn, q_word0, q_csum, q_set, q_cw, q_gbn, q_psn, q_stage, take, at0, at1,
            at2, at3, at4, at5, w_addr, w_en, off12, off_small, lt, a_le_fm1, ge_sent, gt_sent, is_tx,
            is_ack, is_nak, tx_ok, start, tx_new, ack_fast, leave, ect, e_code, n_base, n_next,
            n_stage, e_fm1, n_fm1, w_new, nc, nm, f17, f16,
        )
    }
}

impl<const FB: usize> Logic for FastStartMarkerSeq<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_iw, cf_iwm1, sw_active, sw_ptr, busy, st, e_kind, e_flow, e_oor, e_psn,
            e_last, e_word0, e_csum, s_base, s_next, s_stage, s_fm1, e_psn1, e_ipv4, x_off, x_sent,
            x_inord, y_lt, y_ale, y_ge, r_ect, r_err, r_stage, r_set, r_gbn, r_cw_iw, r_iw,
            r_rewrite, k_sum, q_valid, q_kind, q_flow, q_err, q_ecn, q_word0, q_csum, q_set, q_cw,
            q_gbn, q_psn, q_stage
        );
        self.t_base.read_clock.next = self.clock.val();
        self.t_base.write_clock.next = self.clock.val();
        self.t_next.read_clock.next = self.clock.val();
        self.t_next.write_clock.next = self.clock.val();
        self.t_misc.read_clock.next = self.clock.val();
        self.t_misc.write_clock.next = self.clock.val();

        // ---- IW, registered and clamped to >= 1; IW - 1 beside it
        self.cf_iw.d.next = self.cfg_iw_pkts.val();
        self.cf_iwm1.d.next = self.cfg_iw_pkts.val() - bits::<CB>(1);
        if !self.cfg_iw_pkts.val().any() {
            self.cf_iw.d.next = bits::<CB>(1);
            self.cf_iwm1.d.next = bits::<CB>(0);
        }

        // ---- the take: the event registered, the table read
        self.in_ready.next = !self.sw_active.q.val() & !self.busy.q.val();
        self.take.next =
            self.in_valid.val() & !self.sw_active.q.val() & !self.busy.q.val() & !self.reset.val();
        self.t_base.read_address.next = self.in_flow.val().get_bits::<FB>(0);
        self.t_next.read_address.next = self.in_flow.val().get_bits::<FB>(0);
        self.t_misc.read_address.next = self.in_flow.val().get_bits::<FB>(0);
        if self.take.val() {
            self.busy.d.next = true;
            self.st.d.next = bits::<3>(0);
            self.e_kind.d.next = self.in_kind.val();
            self.e_flow.d.next = self.in_flow.val();
            self.e_oor.d.next = self.in_flow.val() > self.flow_max.val();
            self.e_psn.d.next = self.in_psn.val();
            self.e_last.d.next = self.in_last.val();
            self.e_word0.d.next = self.in_word0.val();
            self.e_csum.d.next = self.in_csum.val();
        }
        if self.busy.q.val() {
            self.st.d.next = self.st.q.val() + bits::<3>(1);
        }
        self.at0.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(0));
        self.at1.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(1));
        self.at2.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(2));
        self.at3.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(3));
        self.at4.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(4));
        self.at5.next = self.busy.q.val() & (self.st.q.val() == bits::<3>(5));

        // ---- t + 1: the entry, PSN + 1, IPv4 (version 4, IHL >= 5)?
        if self.at0.val() {
            self.s_base.d.next = self.t_base.read_data.val();
            self.s_next.d.next = self.t_next.read_data.val();
            self.s_stage.d.next = self.t_misc.read_data.val().get_bits::<2>(12);
            self.s_fm1.d.next = self.t_misc.read_data.val().get_bits::<CB>(0);
            self.e_psn1.d.next = self.e_psn.q.val() + bits::<PB>(1);
            self.e_ipv4.d.next = (self.e_word0.q.val().get_bits::<4>(12) == bits::<4>(4))
                & (self.e_word0.q.val().get_bits::<4>(8) >= bits::<4>(5));
        }
        // ---- t + 2: off = PSN - base, sent = next - base, PSN == next
        if self.at1.val() {
            self.x_off.d.next = self.e_psn.q.val() - self.s_base.q.val();
            self.x_sent.d.next = self.s_next.q.val() - self.s_base.q.val();
            self.x_inord.d.next = self.e_psn.q.val() == self.s_next.q.val();
        }

        // ---- t + 3: the compares against the state, registered; k = off
        // + 1, so k < fs_len <=> off < fs_len - 1 (`lt`), a < fs_len <=>
        // a <= fs_len - 1 (`a_le_fm1`)
        self.off12.next = self.x_off.q.val().get_bits::<CB>(0);
        self.off_small.next = !self.x_off.q.val().get_bits::<CB>(12).any();
        if self.at2.val() {
            self.y_lt.d.next = self.off_small.val() & (self.off12.val() < self.s_fm1.q.val());
            self.y_ale.d.next = self.off_small.val() & (self.off12.val() <= self.s_fm1.q.val());
            self.y_ge.d.next = self.x_off.q.val() >= self.x_sent.q.val();
        }
        self.lt.next = self.y_lt.q.val();
        self.a_le_fm1.next = self.y_ale.q.val();
        self.ge_sent.next = self.y_ge.q.val();
        self.gt_sent.next = self.ge_sent.val() & !self.x_inord.q.val();
        // ---- t + 4: the rules (see ldcp_sim::fast_start_marker)
        self.is_tx.next = self.e_kind.q.val() == bits::<2>(0);
        self.is_ack.next = self.e_kind.q.val() == bits::<2>(1);
        self.is_nak.next = self.e_kind.q.val() == bits::<2>(2);
        self.tx_ok.next = self.is_tx.val() & self.e_ipv4.q.val();
        self.start.next = self.tx_ok.val() & (self.s_stage.q.val() == bits::<2>(0));
        self.tx_new.next =
            self.tx_ok.val() & (self.s_stage.q.val() == bits::<2>(1)) & self.x_inord.q.val();
        self.ack_fast.next =
            (self.is_ack.val() | self.is_nak.val()) & (self.s_stage.q.val() == bits::<2>(1));
        self.n_base.next = self.s_base.q.val();
        self.n_next.next = self.s_next.q.val();
        self.n_stage.next = self.s_stage.q.val();
        self.e_fm1.next = self.s_fm1.q.val();
        if self.start.val() {
            self.n_base.next = self.e_psn.q.val();
            self.n_next.next = self.e_psn1.q.val();
            self.n_stage.next = bits::<2>(1);
            self.e_fm1.next = self.cf_iwm1.q.val();
            if self.e_last.q.val() {
                self.e_fm1.next = bits::<CB>(0);
            }
        }
        if self.tx_new.val() {
            self.n_next.next = self.e_psn1.q.val();
        }
        if self.e_kind.q.val() == bits::<2>(3) {
            // a flow reset
            self.n_base.next = bits::<PB>(0);
            self.n_next.next = bits::<PB>(0);
            self.n_stage.next = bits::<2>(0);
            self.e_fm1.next = bits::<CB>(0);
        }
        // a new packet of a message shorter than IW ends the burst
        self.n_fm1.next = self.e_fm1.val();
        if self.tx_new.val() & self.e_last.q.val() & self.lt.val() {
            self.n_fm1.next = self.off12.val();
        }
        // an ACK or NAK in window may end the fast start
        self.leave.next =
            self.ack_fast.val() & (self.is_nak.val() | !self.a_le_fm1.val()) & !self.gt_sent.val();
        if self.leave.val() {
            self.n_stage.next = bits::<2>(2);
        }
        self.ect.next = !(self.tx_new.val() & !self.e_last.q.val() & self.lt.val());
        if self.start.val() & !self.e_last.q.val() & self.cf_iwm1.q.val().any() {
            self.ect.next = false;
        }
        self.e_code.next = bits::<2>(0);
        if self.is_tx.val() & !self.e_ipv4.q.val() {
            self.e_code.next = bits::<2>(3);
        }
        if (self.tx_ok.val()
            & (self.s_stage.q.val() == bits::<2>(1))
            & !self.x_inord.q.val()
            & self.ge_sent.val())
            | ((self.is_ack.val() | self.is_nak.val()) & (self.s_stage.q.val() == bits::<2>(0)))
            | (self.ack_fast.val() & self.gt_sent.val())
        {
            self.e_code.next = bits::<2>(2);
        }
        if self.at3.val() {
            self.r_ect.d.next = self.ect.val();
            self.r_err.d.next = self.e_code.val();
            self.r_stage.d.next = self.n_stage.val();
            self.r_set.d.next = self.leave.val();
            self.r_gbn.d.next = self.leave.val() & self.is_nak.val();
            self.r_cw_iw.d.next = self.leave.val() & !self.is_nak.val();
            self.r_iw.d.next = self.cf_iw.q.val();
            self.r_rewrite.d.next = self.e_ipv4.q.val() & !self.e_oor.q.val();
            if self.e_oor.q.val() {
                self.r_err.d.next = bits::<2>(1);
                self.r_stage.d.next = bits::<2>(0);
                self.r_set.d.next = false;
                self.r_gbn.d.next = false;
                self.r_cw_iw.d.next = false;
            }
        }

        // ---- the write at t + 4 (nothing for a refused id or in a reset
        // cycle), or the sweep
        self.w_addr.next = self.e_flow.q.val().get_bits::<FB>(0);
        self.w_en.next = self.at3.val() & !self.e_oor.q.val() & !self.reset.val();
        self.t_base.write_data.next = self.n_base.val();
        self.t_next.write_data.next = self.n_next.val();
        self.t_misc.write_data.next = (bit_cast::<MISC_BITS, 2>(self.n_stage.val()) << 12)
            | bit_cast::<MISC_BITS, CB>(self.n_fm1.val());
        if self.sw_active.q.val() {
            self.w_addr.next = self.sw_ptr.q.val();
            self.w_en.next = !self.reset.val();
            self.t_base.write_data.next = bits::<PB>(0);
            self.t_next.write_data.next = bits::<PB>(0);
            self.t_misc.write_data.next = bits::<MISC_BITS>(0);
            self.sw_ptr.d.next = self.sw_ptr.q.val() + bits::<FB>(1);
            self.sw_active.d.next = self.sw_ptr.q.val() != self.last_idx.val();
        }
        self.t_base.write_address.next = self.w_addr.val();
        self.t_next.write_address.next = self.w_addr.val();
        self.t_misc.write_address.next = self.w_addr.val();
        self.t_base.write_enable.next = self.w_en.val();
        self.t_next.write_enable.next = self.w_en.val();
        self.t_misc.write_enable.next = self.w_en.val();

        // ---- t + 5: RFC 1624 Eq. 3's sum ~HC + ~m + m' for the codepoint
        // decided (m' is word 0 with its ECN field rewritten)
        self.w_new.next = self.e_word0.q.val() & self.ecn_mask.val();
        if self.r_ect.q.val() {
            self.w_new.next = (self.e_word0.q.val() & self.ecn_mask.val()) | self.ect_bits.val();
        }
        // (the complements are 16-bit signals: inside a wider cast, Verilog
        // would complement the widened value)
        self.nc.next = !self.e_csum.q.val();
        self.nm.next = !self.e_word0.q.val();
        if self.at4.val() {
            self.k_sum.d.next = bit_cast::<18, 16>(self.nc.val())
                + bit_cast::<18, 16>(self.nm.val())
                + bit_cast::<18, 16>(self.w_new.val());
        }

        // ---- t + 6: the folds, and the result
        self.f17.next = bit_cast::<17, 16>(self.k_sum.q.val().get_bits::<16>(0))
            + bit_cast::<17, 2>(self.k_sum.q.val().get_bits::<2>(16));
        self.f16.next =
            self.f17.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.f17.val().get_bits::<1>(16));
        // the result's fields hold until the next result (a reset clears them)
        self.q_valid.d.next = false;
        if self.at5.val() {
            self.busy.d.next = false;
            self.q_valid.d.next = true;
            self.q_cw.d.next = bits::<CB>(0);
            self.q_ecn.d.next = bits::<2>(0);
            self.q_word0.d.next = bits::<16>(0);
            self.q_csum.d.next = bits::<16>(0);
            self.q_kind.d.next = self.e_kind.q.val();
            self.q_flow.d.next = self.e_flow.q.val();
            self.q_err.d.next = self.r_err.q.val();
            self.q_stage.d.next = self.r_stage.q.val();
            self.q_psn.d.next = self.e_psn.q.val();
            self.q_set.d.next = self.r_set.q.val();
            self.q_gbn.d.next = self.r_gbn.q.val();
            if self.r_set.q.val() {
                // transition 2: IW; transition 1 (NAK): min(a, fs_len)
                self.q_cw.d.next = self.r_iw.q.val();
                if !self.r_cw_iw.q.val() {
                    self.q_cw.d.next = self.s_fm1.q.val() + bits::<CB>(1);
                    if self.a_le_fm1.val() {
                        self.q_cw.d.next = self.off12.val();
                    }
                }
            }
            if self.is_tx.val() {
                self.q_ecn.d.next = self.e_word0.q.val().get_bits::<2>(0);
                self.q_word0.d.next = self.e_word0.q.val();
                self.q_csum.d.next = self.e_csum.q.val();
                if self.r_rewrite.q.val() {
                    self.q_ecn.d.next = self.w_new.val().get_bits::<2>(0);
                    self.q_word0.d.next = self.w_new.val();
                    self.q_csum.d.next = !self.f16.val();
                }
            } else if self.e_kind.q.val() == bits::<2>(3) {
                self.q_psn.d.next = bits::<PB>(0);
            }
        }

        if self.reset.val() {
            self.busy.d.next = false;
            self.q_valid.d.next = false;
            self.q_kind.d.next = bits::<2>(0);
            self.q_flow.d.next = bits::<FLOW_ID_BITS>(0);
            self.q_err.d.next = bits::<2>(0);
            self.q_stage.d.next = bits::<2>(0);
            self.q_psn.d.next = bits::<PB>(0);
            self.q_set.d.next = false;
            self.q_gbn.d.next = false;
            self.q_cw.d.next = bits::<CB>(0);
            self.q_ecn.d.next = bits::<2>(0);
            self.q_word0.d.next = bits::<16>(0);
            self.q_csum.d.next = bits::<16>(0);
            self.sw_active.d.next = true;
            self.sw_ptr.d.next = bits::<FB>(0);
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
/// ([`crate::stepper`]).
pub type FastStartMarkerSeqRustHdl<const FB: usize> =
    crate::stepper::RustHdlSim<FastStartMarkerSeq<FB>>;

ldcp_sim::fast_start_marker_ports!(crate::hand_stepped {
    FastStartMarkerSeq<FB> [const FB: usize],
    ldcp_sim::fast_start_marker::FsInputs,
    ldcp_sim::fast_start_marker::FsOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::fast_start_marker::{stimulus, FastStartMarkerSeqModel};

    /// RustHDL's own simulation agrees with the cycle model (the Verilog
    /// is checked by cosimulation).
    #[test]
    fn fast_start_marker_seq_rusthdl_simulation_matches_model() {
        let mut sim = FastStartMarkerSeqRustHdl::<FB_ICE40>::new();
        let mut model = FastStartMarkerSeqModel::new(FB_ICE40 as u32);
        let (mut results, mut sets, mut errs) = (0u32, 0u32, 0u32);
        for (c, i) in stimulus(5, FB_ICE40 as u32).take(20_000).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
            results += got.out_valid as u32;
            sets += got.out_set as u32;
            errs += (got.out_err != 0) as u32;
        }
        eprintln!("{results} results, {sets} window hand-offs, {errs} errors");
        assert!(
            results > 1_000 && sets > 5 && errs > 50,
            "{results} {sets} {errs}"
        );
    }
}
