//! `FastStartMarker`: the sender's fast-start ECN marker with the IPv4 ECN
//! rewrite and RFC 1624 incremental checksum, one event per clock
//! (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1).
//!
//! The rules, the PSN choice (24-bit, modulo 2^24), the error codes and the
//! behaviour on bad input are documented once, with the golden model, in
//! `ldcp_sim::fast_start_marker`; `FastStartModel` mirrors this file and
//! cosimulation compares every output every cycle.
//!
//! # Timing
//! - Throughput: one event (transmit, ACK, NAK, flow reset) per clock, any
//!   flow pattern, back-to-back events of one flow included.
//! - Latency: an event presented in cycle t is on the output registers after
//!   edge t + 1 (`LATENCY_CYCLES` = 2).
//! - `reset` (synchronous): clears the outputs and the input register, then
//!   writes every table entry idle, one per cycle (256 cycles); `in_ready`
//!   is low meanwhile and events presented then are ignored. At power-up the
//!   table is already idle (RAM initial values), no sweep.
//!
//! # Pipeline
//! ```text
//! edge t     in_* -> s1_* registers; the table RAMs read entry in_flow[7:0]
//! cycle t+1  state = the RAM word, or the bypass of the last write if
//!            it is the same flow; the rules; Eq. 3: ~HC + ~m + m' (UQ18),
//!            two folds (UQ17, UQ16), complement
//! edge t+1   the new state -> RAM and the bypass; the result -> out_* registers
//! ```
//! The table is three RAMs per flow: `base` (24 bits), `next` (24) and
//! `misc` = stage (2) | fs_len (12) | acked (12), written together; their
//! sweep, write port, bypass and the refusal of ids beyond the table are
//! the shared [`TableSweep`] (its doc says what a reset cycle writes:
//! nothing).

use crate::table_sweep::TableSweep;
use ldcp_sim::fast_start_marker::{
    kind, COUNT_BITS, COUNT_MAX, FLOW_ID_BITS, FPGA_FLOW_BITS, PSN_BITS,
};
use rust_hdl::prelude::*;

const FB: usize = FPGA_FLOW_BITS;
const PB: usize = PSN_BITS as usize;
const CB: usize = COUNT_BITS;
/// Bits of the `misc` word: stage | fs_len | acked.
const MISC_BITS: usize = 2 + 2 * CB;
/// Bits of a flow's state: base | next | misc.
const STATE_BITS: usize = 2 * PB + MISC_BITS;
// the state word is base (bits 73..50) | next (49..26) | misc (25..0): the
// shifts below are literals (RustHDL's HDL has no named shift constants)
const _: () = assert!(FB == 8 && PB == 24 && CB == 12 && MISC_BITS == 26 && STATE_BITS == 74);
const _: () = assert!(MISC_BITS == 26 && MISC_BITS + PB == 50);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "fast_start_marker",
    doc: "sender fast-start ECN marker with the IPv4 ECN rewrite and RFC 1624 checksum update, 256 flows, one event per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1)",
    open: &["ts$s1_idx", "ts$sweep_ptr"],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, FastStartMarker::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct FastStartMarker {
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
    // ---- registers
    cf_iw: DFF<Bits<CB>>,
    s1_v: DFF<Bit>,
    s1_kind: DFF<Bits<2>>,
    s1_flow: DFF<Bits<FLOW_ID_BITS>>,
    s1_psn: DFF<Bits<PB>>,
    s1_last: DFF<Bit>,
    s1_word0: DFF<Bits<16>>,
    s1_csum: DFF<Bits<16>>,
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
    // ---- the table: its sweep, write port and bypass, and three RAMs
    ts: TableSweep<FB, STATE_BITS>,
    t_base: RAM<Bits<PB>, FB>,
    t_next: RAM<Bits<PB>, FB>,
    t_misc: RAM<Bits<MISC_BITS>, FB>,
    // ---- combinational
    c_base: Signal<Local, Bits<PB>>,
    c_next: Signal<Local, Bits<PB>>,
    c_misc: Signal<Local, Bits<MISC_BITS>>,
    c_stage: Signal<Local, Bits<2>>,
    c_fs: Signal<Local, Bits<CB>>,
    c_acked: Signal<Local, Bits<CB>>,
    fs24: Signal<Local, Bits<PB>>,
    n_base: Signal<Local, Bits<PB>>,
    n_next: Signal<Local, Bits<PB>>,
    n_stage: Signal<Local, Bits<2>>,
    n_fs: Signal<Local, Bits<CB>>,
    n_acked: Signal<Local, Bits<CB>>,
    n_misc: Signal<Local, Bits<MISC_BITS>>,
    off: Signal<Local, Bits<PB>>,
    sent: Signal<Local, Bits<PB>>,
    k: Signal<Local, Bits<PB>>,
    amin: Signal<Local, Bits<CB>>,
    ipv4: Signal<Local, Bit>,
    ect: Signal<Local, Bit>,
    e_code: Signal<Local, Bits<2>>,
    w_new: Signal<Local, Bits<16>>,
    nc: Signal<Local, Bits<16>>,
    nm: Signal<Local, Bits<16>>,
    sum18: Signal<Local, Bits<18>>,
    lo16: Signal<Local, Bits<16>>,
    hi2: Signal<Local, Bits<2>>,
    fold17: Signal<Local, Bits<17>>,
    lo16b: Signal<Local, Bits<16>>,
    hi1: Signal<Local, Bits<1>>,
    fold16: Signal<Local, Bits<16>>,
    // ---- constants
    k_tx: Constant<Bits<2>>,
    k_ack: Constant<Bits<2>>,
    k_nak: Constant<Bits<2>>,
    st_idle: Constant<Bits<2>>,
    st_fast: Constant<Bits<2>>,
    st_stable: Constant<Bits<2>>,
    ecn_ect0: Constant<Bits<2>>,
    ecn_not_ect: Constant<Bits<2>>,
    one_cb: Constant<Bits<CB>>,
    count_max: Constant<Bits<CB>>,
    one_pb: Constant<Bits<PB>>,
    four: Constant<Bits<4>>,
    ecn_mask: Constant<Bits<16>>,
    ect_bits: Constant<Bits<16>>,
    five: Constant<Bits<4>>,
    e_flow: Constant<Bits<2>>,
    e_seq: Constant<Bits<2>>,
    e_ipv4: Constant<Bits<2>>,
}

impl Default for FastStartMarker {
    fn default() -> Self {
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
            s1_v: Default::default(),
            s1_kind: Default::default(),
            s1_flow: Default::default(),
            s1_psn: Default::default(),
            s1_last: Default::default(),
            s1_word0: Default::default(),
            s1_csum: Default::default(),
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
            ts: Default::default(),
            t_base: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_next: RAM::from((0..1usize << FB).map(|_| Bits::<PB>::from(0u64))),
            t_misc: RAM::from((0..1usize << FB).map(|_| Bits::<MISC_BITS>::from(0u64))),
            c_base: Default::default(),
            c_next: Default::default(),
            c_misc: Default::default(),
            c_stage: Default::default(),
            c_fs: Default::default(),
            c_acked: Default::default(),
            fs24: Default::default(),
            n_base: Default::default(),
            n_next: Default::default(),
            n_stage: Default::default(),
            n_fs: Default::default(),
            n_acked: Default::default(),
            n_misc: Default::default(),
            off: Default::default(),
            sent: Default::default(),
            k: Default::default(),
            amin: Default::default(),
            ipv4: Default::default(),
            ect: Default::default(),
            e_code: Default::default(),
            w_new: Default::default(),
            nc: Default::default(),
            nm: Default::default(),
            sum18: Default::default(),
            lo16: Default::default(),
            hi2: Default::default(),
            fold17: Default::default(),
            lo16b: Default::default(),
            hi1: Default::default(),
            fold16: Default::default(),
            k_tx: c2(kind::TX as u64),
            k_ack: c2(kind::ACK as u64),
            k_nak: c2(kind::NAK as u64),
            st_idle: c2(0),
            st_fast: c2(1),
            st_stable: c2(2),
            ecn_ect0: c2(0b10),
            ecn_not_ect: c2(0b00),
            one_cb: Constant::new(Bits::<CB>::from(1u64)),
            count_max: Constant::new(Bits::<CB>::from(COUNT_MAX as u64)),
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

impl Logic for FastStartMarker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_iw, s1_v, s1_kind, s1_flow, s1_psn, s1_last, s1_word0, s1_csum,
            q_valid, q_kind, q_flow, q_err, q_ecn, q_word0, q_csum, q_set, q_cw, q_gbn, q_psn,
            q_stage
        );
        self.t_base.read_clock.next = self.clock.val();
        self.t_base.write_clock.next = self.clock.val();
        self.t_next.read_clock.next = self.clock.val();
        self.t_next.write_clock.next = self.clock.val();
        self.t_misc.read_clock.next = self.clock.val();
        self.t_misc.write_clock.next = self.clock.val();
        self.ts.clock.next = self.clock.val();
        self.ts.reset.next = self.reset.val();

        // ---- IW, registered and clamped to >= 1
        self.cf_iw.d.next = self.cfg_iw_pkts.val();
        if !self.cfg_iw_pkts.val().any() {
            self.cf_iw.d.next = self.one_cb.val();
        }

        // ---- the input register and the table read (one edge ahead)
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

        // ---- the flow's state: the RAM word, or the bypass of the last write
        self.ts.rd_state.next = (bit_cast::<STATE_BITS, PB>(self.t_base.read_data.val()) << 50)
            | (bit_cast::<STATE_BITS, PB>(self.t_next.read_data.val()) << 26)
            | bit_cast::<STATE_BITS, MISC_BITS>(self.t_misc.read_data.val());
        self.c_base.next = self.ts.state.val().get_bits::<PB>(50);
        self.c_next.next = self.ts.state.val().get_bits::<PB>(26);
        self.c_misc.next = self.ts.state.val().get_bits::<MISC_BITS>(0);
        self.c_stage.next = self.c_misc.val().get_bits::<2>(24);
        self.c_fs.next = self.c_misc.val().get_bits::<CB>(12);
        self.c_acked.next = self.c_misc.val().get_bits::<CB>(0);
        self.fs24.next = bit_cast::<PB, CB>(self.c_fs.val());
        self.off.next = self.s1_psn.q.val() - self.c_base.val();
        self.sent.next = self.c_next.val() - self.c_base.val();
        self.k.next = self.off.val() + self.one_pb.val();
        self.amin.next = self.off.val().get_bits::<CB>(0);
        if self.off.val().get_bits::<CB>(12).any() {
            self.amin.next = self.count_max.val();
        }
        self.ipv4.next = (self.s1_word0.q.val().get_bits::<4>(12) == self.four.val())
            & (self.s1_word0.q.val().get_bits::<4>(8) >= self.five.val());

        // ---- the rules (see ldcp_sim::fast_start_marker)
        self.n_base.next = self.c_base.val();
        self.n_next.next = self.c_next.val();
        self.n_stage.next = self.c_stage.val();
        self.n_fs.next = self.c_fs.val();
        self.n_acked.next = self.c_acked.val();
        self.ect.next = true;
        self.e_code.next = self.st_idle.val();
        self.q_set.d.next = false;
        self.q_cw.d.next = bits::<CB>(0);
        self.q_gbn.d.next = false;
        if self.s1_kind.q.val() == self.k_tx.val() {
            if !self.ipv4.val() {
                self.e_code.next = self.e_ipv4.val();
            } else if self.c_stage.val() == self.st_idle.val() {
                self.n_stage.next = self.st_fast.val();
                self.n_base.next = self.s1_psn.q.val();
                self.n_next.next = self.s1_psn.q.val() + self.one_pb.val();
                self.n_acked.next = bits::<CB>(0);
                self.n_fs.next = self.cf_iw.q.val();
                self.ect.next = self.cf_iw.q.val() == self.one_cb.val();
                if self.s1_last.q.val() {
                    self.n_fs.next = self.one_cb.val();
                    self.ect.next = true;
                }
            } else if self.c_stage.val() == self.st_fast.val() {
                if self.s1_psn.q.val() == self.c_next.val() {
                    self.n_next.next = self.c_next.val() + self.one_pb.val();
                    if self.k.val() < self.fs24.val() {
                        if self.s1_last.q.val() {
                            self.n_fs.next = self.k.val().get_bits::<CB>(0);
                        } else {
                            self.ect.next = false;
                        }
                    }
                } else if self.off.val() >= self.sent.val() {
                    self.e_code.next = self.e_seq.val();
                }
            }
        } else if (self.s1_kind.q.val() == self.k_ack.val())
            | (self.s1_kind.q.val() == self.k_nak.val())
        {
            if self.c_stage.val() == self.st_idle.val() {
                self.e_code.next = self.e_seq.val();
            } else if self.c_stage.val() == self.st_fast.val() {
                if self.off.val() > self.sent.val() {
                    self.e_code.next = self.e_seq.val();
                } else {
                    if self.amin.val() > self.c_acked.val() {
                        self.n_acked.next = self.amin.val();
                    }
                    if self.s1_kind.q.val() == self.k_nak.val() {
                        self.n_stage.next = self.st_stable.val();
                        self.q_set.d.next = true;
                        self.q_gbn.d.next = true;
                        self.q_cw.d.next = self.c_fs.val();
                        if self.off.val() < self.fs24.val() {
                            self.q_cw.d.next = self.off.val().get_bits::<CB>(0);
                        }
                    } else if self.off.val() >= self.fs24.val() {
                        self.n_stage.next = self.st_stable.val();
                        self.q_set.d.next = true;
                        self.q_cw.d.next = self.cf_iw.q.val();
                    }
                }
            }
        } else {
            self.n_base.next = bits::<PB>(0);
            self.n_next.next = bits::<PB>(0);
            self.n_stage.next = self.st_idle.val();
            self.n_fs.next = bits::<CB>(0);
            self.n_acked.next = bits::<CB>(0);
        }
        self.n_misc.next = (bit_cast::<MISC_BITS, 2>(self.n_stage.val()) << 24)
            | (bit_cast::<MISC_BITS, CB>(self.n_fs.val()) << 12)
            | bit_cast::<MISC_BITS, CB>(self.n_acked.val());

        // ---- RFC 1624 Eq. 3: HC' = ~(~HC + ~m + m')
        self.w_new.next = self.s1_word0.q.val() & self.ecn_mask.val();
        if self.ect.val() {
            self.w_new.next = (self.s1_word0.q.val() & self.ecn_mask.val()) | self.ect_bits.val();
        }
        self.nc.next = !self.s1_csum.q.val();
        self.nm.next = !self.s1_word0.q.val();
        self.sum18.next = bit_cast::<18, 16>(self.nc.val())
            + bit_cast::<18, 16>(self.nm.val())
            + bit_cast::<18, 16>(self.w_new.val());
        self.lo16.next = self.sum18.val().get_bits::<16>(0);
        self.hi2.next = self.sum18.val().get_bits::<2>(16);
        self.fold17.next = bit_cast::<17, 16>(self.lo16.val()) + bit_cast::<17, 2>(self.hi2.val());
        self.lo16b.next = self.fold17.val().get_bits::<16>(0);
        self.hi1.next = self.fold17.val().get_bits::<1>(16);
        self.fold16.next = self.lo16b.val() + bit_cast::<16, 1>(self.hi1.val());

        // ---- the write (the event's new state, or the sweep) and the bypass
        self.ts.wr_valid.next = self.s1_v.q.val();
        self.ts.wr_state.next = (bit_cast::<STATE_BITS, PB>(self.n_base.val()) << 50)
            | (bit_cast::<STATE_BITS, PB>(self.n_next.val()) << 26)
            | bit_cast::<STATE_BITS, MISC_BITS>(self.n_misc.val());
        self.t_base.write_address.next = self.ts.wr_addr.val();
        self.t_next.write_address.next = self.ts.wr_addr.val();
        self.t_misc.write_address.next = self.ts.wr_addr.val();
        self.t_base.write_data.next = self.ts.wr_data.val().get_bits::<PB>(50);
        self.t_next.write_data.next = self.ts.wr_data.val().get_bits::<PB>(26);
        self.t_misc.write_data.next = self.ts.wr_data.val().get_bits::<MISC_BITS>(0);
        self.t_base.write_enable.next = self.ts.wr_en.val();
        self.t_next.write_enable.next = self.ts.wr_en.val();
        self.t_misc.write_enable.next = self.ts.wr_en.val();

        // ---- the result registers
        self.q_valid.d.next = self.s1_v.q.val() & !self.reset.val();
        self.q_kind.d.next = self.s1_kind.q.val();
        self.q_flow.d.next = self.s1_flow.q.val();
        self.q_err.d.next = self.e_code.val();
        self.q_stage.d.next = self.n_stage.val();
        self.q_psn.d.next = self.s1_psn.q.val();
        self.q_ecn.d.next = bits::<2>(0);
        self.q_word0.d.next = bits::<16>(0);
        self.q_csum.d.next = bits::<16>(0);
        if self.s1_kind.q.val() == self.k_tx.val() {
            self.q_ecn.d.next = self.s1_word0.q.val().get_bits::<2>(0);
            self.q_word0.d.next = self.s1_word0.q.val();
            self.q_csum.d.next = self.s1_csum.q.val();
            if self.ipv4.val() & !self.ts.s1_oor.val() {
                self.q_ecn.d.next = self.ecn_not_ect.val();
                if self.ect.val() {
                    self.q_ecn.d.next = self.ecn_ect0.val();
                }
                self.q_word0.d.next = self.w_new.val();
                self.q_csum.d.next = !self.fold16.val();
            }
        } else if !((self.s1_kind.q.val() == self.k_ack.val())
            | (self.s1_kind.q.val() == self.k_nak.val()))
        {
            self.q_psn.d.next = bits::<PB>(0);
        }
        if self.ts.s1_oor.val() {
            self.q_err.d.next = self.e_flow.val();
            self.q_stage.d.next = self.st_idle.val();
            self.q_set.d.next = false;
            self.q_cw.d.next = bits::<CB>(0);
            self.q_gbn.d.next = false;
        }
        if !self.s1_v.q.val() | self.reset.val() {
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
pub type FastStartMarkerRustHdl = crate::stepper::RustHdlSim<FastStartMarker>;

ldcp_sim::fast_start_marker_ports!(crate::hand_stepped {
    FastStartMarker [],
    ldcp_sim::fast_start_marker::FsInputs,
    ldcp_sim::fast_start_marker::FsOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::fast_start_marker::{stimulus, FastStartModel};

    /// RustHDL's own simulation agrees with the golden model.
    #[test]
    fn fast_start_marker_rusthdl_simulation_matches_model() {
        let mut sim = FastStartMarkerRustHdl::new();
        let mut model = FastStartModel::new(FB as u32);
        for (c, i) in stimulus(5, FB as u32).take(3_000).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
