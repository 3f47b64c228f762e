//! `AckGeneratorSeq`: the receiver's ACK generator in the fewest cells,
//! for a board the pipelined [`crate::ack_generator::AckGenerator`] does
//! not fit beside the other NIC blocks (the Alchitry Cu's HX8K). Same
//! rules, same ports: one op at a time, so the table needs no forwarding,
//! no bypass and no ACK queue.
//!
//! The rules and the behaviour on bad input are those of
//! `ldcp_sim::ack_generator` ([`ldcp_sim::ack_generator::AckFlow`]: per
//! packet and delayed ACKs with exact ECE counts, a NAK once per gap, the
//! timeout flush, opens); each op is exactly `AckFlow::packet`, `open` or
//! `flush` of its flow. `ldcp_sim::ack_generator::AckGeneratorSeqModel` is its cycle
//! model, and cosimulation compares every port every cycle.
//!
//! # Handshake and timing (design constants)
//! An event is taken in a cycle with `in_valid`, `in_ready` and no
//! `reset`. An op (an event taken, or a flush the timeout scanner found)
//! taken in cycle t reads its flow's entry at the end of t, and
//! - in t + 1 registers the entry, PSN + 1 and the age T - held-since;
//! - in t + 2 registers PSN == expected, whether PSN - expected is a gap
//!   (1..=4095), whether the held ACK is due (age >= timeout), pending + 1
//!   and whether it reaches m (the parameters as registered in t + 2);
//! - in t + 3 applies the rules (a first held packet is stamped with T of
//!   t + 3), writes the entry (and the scanner's copy) and registers its
//!   first ACK and error;
//! - shows them in t + 4 ([`ldcp_sim::ack_generator::SEQ_OP_CYCLES`]), and a
//!   split's second ACK (ECE, n 1) in t + 5.
//!
//! The ACK's fields (`out_flow`, `out_psn`, `out_ece`, `out_n_pkts`,
//! `out_nak`) hold until the next ACK, and a reset clears them, so a
//! system reads the last ACK from them (the Cu NIC's AG_ACK registers);
//! `out_valid` and `stat_err` are one-cycle strobes.
//!
//! `in_ready` is from registers: low from t + 1 to t + 3 (so the next op,
//! taken in t + 4 at the earliest, reads the entry this op wrote: one op
//! per 4 cycles), during the reset sweep, and while a flush the scanner
//! found waits (it goes ahead of the input).
//!
//! # The timeout scanner
//! The scanner reads a copy of each entry's pending count and held-since
//! stamp (C, written with the table), one flow per clock, and after three
//! stages (the read, the age, the compare) holds a flow whose held ACK is
//! due in `hit`. While `hit` waits for the op port (at most the 3 cycles
//! of the op in flight), the scanner stalls, re-reading the entry it
//! holds, so no due flow is skipped: a held ACK is flushed at most one
//! lap (N cycles, plus 4 for each flush ahead of it) after its timeout.
//! The flush re-checks the timeout on the entry it updates.
//!
//! # Reset
//! `reset` (synchronous): the op in flight is dropped (a reset cycle
//! writes nothing), outputs, the scanner and T are cleared, then the
//! tables are swept, one entry a clock (N cycles, `in_ready` low), as
//! [`ldcp_sim::Sweep`] does. The tables power up idle.

use ldcp_sim::ack_generator::{
    FLOW_ID_BITS, N_BITS, PSN_BITS, SEQ_OP_CYCLES, TIMEOUT_BITS, T_BITS,
};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = crate::ack_generator::FB_ICE40;
const PB: usize = PSN_BITS as usize;
const TB: usize = T_BITS as usize;
/// The entry: expected (24) | pending (4) | gap NAKed (1) | held since (20).
const M_BITS: usize = PB + N_BITS + 1 + TB;
/// The scanner's copy: pending (4) | held since (20).
const C_BITS: usize = N_BITS + TB;
const _: () = assert!(PB == 24 && TB == 20 && N_BITS == 4 && M_BITS == 49 && C_BITS == 24);
// step numbers 0..=2 after the take, then the first ACK: t + 4
const _: () = assert!(SEQ_OP_CYCLES == 4);

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "ack_generator_seq",
    doc: "receiver ACK generator in the fewest cells: per-packet or delayed ACKs with exact ECE counts, NAK once per gap, timeout flush, 256 flows, one op per 4 cycles (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1)",
    // PSN - expected: only its upper 12 bits are read (the gap test; the
    // difference's zero is the equality compare beside it)
    open: &["dsub"],
    subs: &[],
};

/// The module of the formal-size build ([`crate::generate::FB_FORMAL`]
/// flow bits), for its property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the sequential ACK generator at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[],
};

/// The Verilog of the block with 2^`FB` flows, as module `m`.
pub fn verilog<const FB: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, AckGeneratorSeq::<FB>::default())
}

/// The formal-size block's Verilog, for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

/// See the module doc. `FB` sizes the tables: 2^`FB` flows, 8 (256) on the
/// iCE40.
#[derive(LogicBlock)]
pub struct AckGeneratorSeq<const FB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    /// An event this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// 0: a data packet; 1: open the flow (`in_psn` expected next).
    pub in_open: Signal<In, Bit>,
    /// Flow id, 16 bits (ids beyond the table are refused, error 1).
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
    /// Events are taken this cycle (from registers; see the module doc).
    pub in_ready: Signal<Out, Bit>,
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
    /// A NAK: go back to `out_psn`.
    pub out_nak: Signal<Out, Bit>,
    /// Error of the op whose first ACK would show this cycle: 0 none, 1
    /// flow id beyond the table, 2 duplicate or out-of-window PSN, 3 a gap
    /// already NAKed.
    pub stat_err: Signal<Out, Bits<2>>,
    // ---- parameters, time, the sweep
    cf_mm1: DFF<Bits<N_BITS>>,
    cf_to: DFF<Bits<TIMEOUT_BITS>>,
    t_now: DFF<Bits<TB>>,
    sw_active: DFF<Bit>,
    sw_ptr: DFF<Bits<FB>>,
    // ---- the scanner
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
    // ---- the op
    busy: DFF<Bit>,
    st: DFF<Bits<2>>,
    o_flush: DFF<Bit>,
    o_open: DFF<Bit>,
    o_oor: DFF<Bit>,
    o_ce: DFF<Bit>,
    o_last: DFF<Bit>,
    o_idx: DFF<Bits<FB>>,
    o_psn: DFF<Bits<PB>>,
    o_psn1: DFF<Bits<PB>>,
    m_st: DFF<Bits<M_BITS>>,
    d0: DFF<Bit>,
    gap: DFF<Bit>,
    age: DFF<Bits<TB>>,
    due: DFF<Bit>,
    full: DFF<Bit>,
    p1: DFF<Bits<N_BITS>>,
    a2_v: DFF<Bit>,
    // ---- outputs
    q_v: DFF<Bit>,
    q_idx: DFF<Bits<FB>>,
    q_psn: DFF<Bits<PB>>,
    q_ece: DFF<Bit>,
    q_n: DFF<Bits<N_BITS>>,
    q_nak: DFF<Bit>,
    q_err: DFF<Bits<2>>,
    // ---- tables
    t_m: RAM<Bits<M_BITS>, FB>,
    t_c: RAM<Bits<C_BITS>, FB>,
    // ---- combinational
    stall: Signal<Local, Bit>,
    take_hit: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    rd_idx: Signal<Local, Bits<FB>>,
    dsub: Signal<Local, Bits<PB>>,
    w_addr: Signal<Local, Bits<FB>>,
    w_en: Signal<Local, Bit>,
    to20: Signal<Local, Bits<TB>>,
    e_cur: Signal<Local, Bits<PB>>,
    pend: Signal<Local, Bits<N_BITS>>,
    nak_cur: Signal<Local, Bit>,
    since: Signal<Local, Bits<TB>>,
    decide: Signal<Local, Bit>,
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
    // ---- constants
    flow_max: Constant<Bits<FLOW_ID_BITS>>,
    last_idx: Constant<Bits<FB>>,
    nak_bit: Constant<Bits<M_BITS>>,
}

impl<const FB: usize> Default for AckGeneratorSeq<FB> {
    fn default() -> Self {
        assert!(
            (1..=FLOW_ID_BITS).contains(&FB),
            "flow bits {FB} out of [1, {FLOW_ID_BITS}]"
        );
        with_defaults!(
            t_m: RAM::from((0..1usize << FB).map(|_| Bits::<M_BITS>::from(0u64))),
            t_c: RAM::from((0..1usize << FB).map(|_| Bits::<C_BITS>::from(0u64))),
            flow_max: Constant::new(((1u64 << FB) - 1).into()),
            last_idx: Constant::new(((1u64 << FB) - 1).into()),
            nak_bit: Constant::new((1u64 << TB).into()),
            ;
            clock, reset, in_valid, in_open, in_flow, in_psn, in_ce, in_last, cfg_m_pkts,
            cfg_timeout_cycles, in_ready, out_valid, out_flow, out_psn, out_ece, out_n_pkts,
            out_nak, stat_err, cf_mm1, cf_to, t_now, sw_active, sw_ptr, sc_ptr, sc_idx, sc_v,
            h1_v, h1_idx, h1_nz, h1_since, h1_t, h2_v, h2_idx, h2_nz, h2_age, hit_v, hit_idx,
            busy, st, o_flush, o_open, o_oor, o_ce, o_last, o_idx, o_psn, o_psn1, m_st, d0, gap,
            age, due, full, p1, a2_v, q_v, q_idx, q_psn, q_ece, q_n, q_nak, q_err, stall, take_hit, take, rd_idx, dsub, w_addr, w_en, to20,
            e_cur, pend, nak_cur, since, decide, n_e, n_pend, n_nak, n_since, n_st, a1_v, a1_psn,
            a1_ece, a1_n, a1_nak, split, err_code,
        )
    }
}

impl<const FB: usize> Logic for AckGeneratorSeq<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_mm1, cf_to, t_now, sw_active, sw_ptr, sc_ptr, sc_idx, sc_v, h1_v,
            h1_idx, h1_nz, h1_since, h1_t, h2_v, h2_idx, h2_nz, h2_age, hit_v, hit_idx, busy, st,
            o_flush, o_open, o_oor, o_ce, o_last, o_idx, o_psn, o_psn1, m_st, d0, gap, age, due,
            full, p1, a2_v, q_v, q_idx, q_psn, q_ece, q_n, q_nak, q_err
        );
        self.t_m.read_clock.next = self.clock.val();
        self.t_m.write_clock.next = self.clock.val();
        self.t_c.read_clock.next = self.clock.val();
        self.t_c.write_clock.next = self.clock.val();

        // ---- parameters (m - 1 for the compare pending + 1 >= m) and T
        self.cf_mm1.d.next = self.cfg_m_pkts.val() - bits::<N_BITS>(1);
        if !self.cfg_m_pkts.val().any() {
            self.cf_mm1.d.next = bits::<N_BITS>(0);
        }
        self.cf_to.d.next = self.cfg_timeout_cycles.val();
        self.to20.next = bit_cast::<TB, TIMEOUT_BITS>(self.cf_to.q.val());
        self.t_now.d.next = self.t_now.q.val() + bits::<TB>(1);

        // ---- the op port: a flush the scanner found, else the input
        self.in_ready.next = !self.sw_active.q.val() & !self.busy.q.val() & !self.hit_v.q.val();
        self.take_hit.next =
            self.hit_v.q.val() & !self.busy.q.val() & !self.sw_active.q.val() & !self.reset.val();
        self.take.next = self.take_hit.val()
            | (self.in_valid.val()
                & !self.sw_active.q.val()
                & !self.busy.q.val()
                & !self.hit_v.q.val()
                & !self.reset.val());
        self.rd_idx.next = self.in_flow.val().get_bits::<FB>(0);
        if self.hit_v.q.val() {
            self.rd_idx.next = self.hit_idx.q.val();
        }
        self.t_m.read_address.next = self.rd_idx.val();
        if self.take.val() {
            self.busy.d.next = true;
            self.st.d.next = bits::<2>(0);
            self.o_flush.d.next = self.hit_v.q.val();
            self.o_open.d.next = self.in_open.val();
            self.o_oor.d.next = !self.hit_v.q.val() & (self.in_flow.val() > self.flow_max.val());
            self.o_ce.d.next = self.in_ce.val();
            self.o_last.d.next = self.in_last.val();
            self.o_idx.d.next = self.rd_idx.val();
            self.o_psn.d.next = self.in_psn.val();
        }
        if self.busy.q.val() {
            self.st.d.next = self.st.q.val() + bits::<2>(1);
        }

        // ---- t + 1: the entry, PSN + 1, the age
        self.e_cur.next = self.m_st.q.val().get_bits::<PB>(25);
        self.pend.next = self.m_st.q.val().get_bits::<N_BITS>(21);
        self.nak_cur.next = self.m_st.q.val().get_bit(20);
        self.since.next = self.m_st.q.val().get_bits::<TB>(0);
        if self.busy.q.val() & (self.st.q.val() == bits::<2>(0)) {
            self.m_st.d.next = self.t_m.read_data.val();
            self.o_psn1.d.next = self.o_psn.q.val() + bits::<PB>(1);
            self.age.d.next = self.t_now.q.val() - self.t_m.read_data.val().get_bits::<TB>(0);
        }
        self.dsub.next = self.o_psn.q.val() - self.e_cur.val();
        // ---- t + 2: in order, a gap (PSN - expected in 1..=4095), due,
        // pending + 1 and whether it reaches m
        if self.busy.q.val() & (self.st.q.val() == bits::<2>(1)) {
            self.d0.d.next = self.o_psn.q.val() == self.e_cur.val();
            self.gap.d.next = !self.dsub.val().get_bits::<12>(12).any()
                & (self.o_psn.q.val() != self.e_cur.val());
            self.due.d.next = self.pend.val().any() & (self.age.q.val() >= self.to20.val());
            self.full.d.next = self.pend.val() >= self.cf_mm1.q.val();
            self.p1.d.next = self.pend.val() + bits::<N_BITS>(1);
        }

        // ---- t + 3: the rules (see ldcp_sim::ack_generator)
        self.decide.next = self.busy.q.val() & (self.st.q.val() == bits::<2>(2));
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
        if self.o_flush.q.val() {
            if self.due.q.val() {
                self.a1_v.next = true;
                self.n_pend.next = bits::<N_BITS>(0);
            }
        } else if self.o_open.q.val() {
            self.n_e.next = self.o_psn.q.val();
            self.n_pend.next = bits::<N_BITS>(0);
            self.n_nak.next = false;
            self.n_since.next = bits::<TB>(0);
        } else if self.d0.q.val() {
            // in order: expected + 1 is PSN + 1
            self.n_e.next = self.o_psn1.q.val();
            self.n_nak.next = false;
            if self.o_ce.q.val() {
                self.n_pend.next = bits::<N_BITS>(0);
                self.a1_v.next = true;
                if self.pend.val().any() {
                    self.split.next = true;
                } else {
                    self.a1_psn.next = self.o_psn1.q.val();
                    self.a1_ece.next = true;
                    self.a1_n.next = bits::<N_BITS>(1);
                }
            } else if self.full.q.val() | self.o_last.q.val() {
                self.a1_v.next = true;
                self.a1_psn.next = self.o_psn1.q.val();
                self.a1_n.next = self.p1.q.val();
                self.n_pend.next = bits::<N_BITS>(0);
            } else {
                self.n_pend.next = self.p1.q.val();
                if !self.pend.val().any() {
                    self.n_since.next = self.t_now.q.val();
                }
            }
        } else if self.gap.q.val() {
            if self.nak_cur.val() {
                self.err_code.next = bits::<2>(3);
            } else {
                self.a1_v.next = true;
                self.a1_nak.next = true;
                self.n_pend.next = bits::<N_BITS>(0);
                self.n_nak.next = true;
            }
        } else {
            self.err_code.next = bits::<2>(2);
        }
        if self.o_oor.q.val() {
            self.a1_v.next = false;
            self.split.next = false;
            self.err_code.next = bits::<2>(1);
        }
        self.n_st.next = (bit_cast::<M_BITS, PB>(self.n_e.val()) << 25)
            | (bit_cast::<M_BITS, N_BITS>(self.n_pend.val()) << 21)
            | bit_cast::<M_BITS, TB>(self.n_since.val());
        if self.n_nak.val() {
            self.n_st.next = self.n_st.val() | self.nak_bit.val();
        }

        // ---- the writes: the op's entry at t + 3 (its copy C with it), or
        // the sweep; nothing in a reset cycle
        self.w_addr.next = self.o_idx.q.val();
        self.w_en.next = self.decide.val() & !self.o_oor.q.val() & !self.reset.val();
        self.t_m.write_data.next = self.n_st.val();
        self.t_c.write_data.next = (bit_cast::<C_BITS, N_BITS>(self.n_pend.val()) << 20)
            | bit_cast::<C_BITS, TB>(self.n_since.val());
        if self.sw_active.q.val() {
            self.w_addr.next = self.sw_ptr.q.val();
            self.w_en.next = !self.reset.val();
            self.t_m.write_data.next = bits::<M_BITS>(0);
            self.t_c.write_data.next = bits::<C_BITS>(0);
        }
        self.t_m.write_address.next = self.w_addr.val();
        self.t_m.write_enable.next = self.w_en.val();
        self.t_c.write_address.next = self.w_addr.val();
        self.t_c.write_enable.next = self.w_en.val();
        if self.sw_active.q.val() {
            self.sw_ptr.d.next = self.sw_ptr.q.val() + bits::<FB>(1);
            self.sw_active.d.next = self.sw_ptr.q.val() != self.last_idx.val();
        }
        if self.decide.val() {
            self.busy.d.next = false;
        }

        // ---- the outputs: an op's first ACK and error at t + 4, a split's
        // second at t + 5 (its flow and PSN + 1 are still the op's at t + 4);
        // the ACK's fields hold until the next ACK (a reset clears them)
        self.q_v.d.next = false;
        self.q_err.d.next = bits::<2>(0);
        self.a2_v.d.next = false;
        if self.decide.val() {
            self.q_err.d.next = self.err_code.val();
            self.a2_v.d.next = self.split.val();
            if self.a1_v.val() {
                self.q_v.d.next = true;
                self.q_idx.d.next = self.o_idx.q.val();
                self.q_psn.d.next = self.a1_psn.val();
                self.q_ece.d.next = self.a1_ece.val();
                self.q_n.d.next = self.a1_n.val();
                self.q_nak.d.next = self.a1_nak.val();
            }
        }
        if self.a2_v.q.val() {
            self.q_v.d.next = true;
            self.q_idx.d.next = self.o_idx.q.val();
            self.q_psn.d.next = self.o_psn1.q.val();
            self.q_ece.d.next = true;
            self.q_n.d.next = bits::<N_BITS>(1);
            self.q_nak.d.next = false;
        }

        // ---- the scanner: C read at sc_ptr; r+1: registered; r+2: the age;
        // r+3: due? A hit that waits for the op port stalls it (C re-read at
        // the index the first stage holds)
        self.stall.next = self.hit_v.q.val() & !self.take_hit.val();
        self.t_c.read_address.next = self.sc_ptr.q.val();
        if self.stall.val() {
            self.t_c.read_address.next = self.sc_idx.q.val();
        } else {
            self.sc_ptr.d.next = self.sc_ptr.q.val() + bits::<FB>(1);
            self.sc_idx.d.next = self.sc_ptr.q.val();
            self.sc_v.d.next = !self.sw_active.q.val();
            self.h1_v.d.next = self.sc_v.q.val();
            self.h1_idx.d.next = self.sc_idx.q.val();
            self.h1_nz.d.next = self.t_c.read_data.val().get_bits::<N_BITS>(20).any();
            self.h1_since.d.next = self.t_c.read_data.val().get_bits::<TB>(0);
            self.h1_t.d.next = self.t_now.q.val();
            self.h2_v.d.next = self.h1_v.q.val();
            self.h2_idx.d.next = self.h1_idx.q.val();
            self.h2_nz.d.next = self.h1_nz.q.val();
            self.h2_age.d.next = self.h1_t.q.val() - self.h1_since.q.val();
            self.hit_v.d.next =
                self.h2_v.q.val() & self.h2_nz.q.val() & (self.h2_age.q.val() >= self.to20.val());
            self.hit_idx.d.next = self.h2_idx.q.val();
        }

        if self.reset.val() {
            self.busy.d.next = false;
            self.a2_v.d.next = false;
            self.q_v.d.next = false;
            self.q_idx.d.next = bits::<FB>(0);
            self.q_psn.d.next = bits::<PB>(0);
            self.q_ece.d.next = false;
            self.q_n.d.next = bits::<N_BITS>(0);
            self.q_nak.d.next = false;
            self.q_err.d.next = bits::<2>(0);
            self.t_now.d.next = bits::<TB>(0);
            self.sc_ptr.d.next = bits::<FB>(0);
            self.sc_v.d.next = false;
            self.h1_v.d.next = false;
            self.h2_v.d.next = false;
            self.hit_v.d.next = false;
            self.sw_active.d.next = true;
            self.sw_ptr.d.next = bits::<FB>(0);
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
/// ([`crate::stepper`]).
pub type AckGeneratorSeqRustHdl<const FB: usize> = crate::stepper::RustHdlSim<AckGeneratorSeq<FB>>;

ldcp_sim::ack_generator_ports!(crate::hand_stepped {
    AckGeneratorSeq<FB> [const FB: usize],
    ldcp_sim::ack_generator::AgInputs,
    ldcp_sim::ack_generator::AgOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::ack_generator::{stimulus, AckGeneratorSeqModel};

    /// RustHDL's own simulation agrees with the cycle model (the Verilog
    /// is checked by cosimulation).
    #[test]
    fn ack_generator_seq_rusthdl_simulation_matches_model() {
        let mut sim = AckGeneratorSeqRustHdl::<FB_ICE40>::new();
        let mut model = AckGeneratorSeqModel::new(FB_ICE40 as u32);
        let (mut acks, mut ready_low, mut errs) = (0u32, 0u32, 0u32);
        for (c, i) in stimulus(5, FB_ICE40 as u32).take(20_000).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
            acks += got.out_valid as u32;
            ready_low += !got.in_ready as u32;
            errs += (got.stat_err != 0) as u32;
        }
        let st = model.stats();
        eprintln!("{acks} ACKs, {errs} errors, in_ready low {ready_low} cycles, {st:?}");
        // packets, errors, timeout flushes and the scanner's stalls were all reached
        assert!(
            acks > 300 && errs > 50 && ready_low > 5_000,
            "{acks} {errs} {ready_low}"
        );
        assert!(
            st.flushed > 5 && st.stalls > 5 && st.events > 1_000,
            "{st:?}"
        );
    }
}
