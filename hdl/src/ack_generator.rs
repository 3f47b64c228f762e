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
//! op select   split pending? nothing : scanner hit? flush(sc_idx) : input (if valid)
//!             -> s1_* registers; table M read at the op's flow
//! s1          state = M word or the bypass of the last write; the rules;
//!             edge: M and its copy C written, ACK -> out_* (or from the hold
//!             register when it holds a split's second ACK)
//! scanner     C read at sc_ptr every edge (C = pending | held-since, written
//!             with M); next cycle: pending != 0 and T - since >= timeout?
//! ```
//! M = expected (24) | pending (4) | gap NAKed (1) | held since (20) = 49
//! bits; C = pending | held since = 24 bits. M's sweep, write port, bypass
//! and refusal of ids beyond the table are the shared [`TableSweep`] (C is
//! written with M; a flush is an op from inside, never refused).
//!
//! # Timing
//! - An ACK leaves 2 cycles after its packet is taken (3 for the second ACK
//!   of a split).
//! - `in_ready` is combinational from registers and table reads: low during
//!   the reset sweep, in the cycle a split's first ACK is computed, and in
//!   the cycle a flush enters the pipeline.
//! - `reset` (synchronous): outputs, hold and T cleared, the op taken the
//!   cycle before dropped (a reset cycle writes nothing, see
//!   [`TableSweep`]), then the tables are swept (256 cycles, `in_ready` low).

use crate::table_sweep::TableSweep;
use ldcp_sim::ack_generator::{
    FLOW_ID_BITS, FPGA_FLOW_BITS, GAP_MAX, N_BITS, PSN_BITS, TIMEOUT_BITS, T_BITS,
};
use rust_hdl::prelude::*;

const FB: usize = FPGA_FLOW_BITS;
const PB: usize = PSN_BITS as usize;
const TB: usize = T_BITS as usize;
const M_BITS: usize = PB + N_BITS + 1 + TB;
const C_BITS: usize = N_BITS + TB;
const _: () = assert!(FB == 8 && PB == 24 && TB == 20 && N_BITS == 4 && GAP_MAX == 4095);
const _: () = assert!(M_BITS == 49 && C_BITS == 24 && TIMEOUT_BITS == 16);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "ack_generator",
    doc: "receiver ACK generator: per-packet or delayed ACKs with exact ECE counts, NAK once per gap, timeout flush, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1)",
    open: &["ts$sweep_ptr", "ts$upd_oor", "ts$p_state", "ts$z_hit", "ts$z_state", "ts$fwd"],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, AckGenerator::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct AckGenerator {
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
    cf_to: DFF<Bits<TIMEOUT_BITS>>,
    t_now: DFF<Bits<TB>>,
    s1_v: DFF<Bit>,
    s1_flush: DFF<Bit>,
    s1_kind: DFF<Bit>,
    s1_psn: DFF<Bits<PB>>,
    s1_ce: DFF<Bit>,
    s1_last: DFF<Bit>,
    hold_v: DFF<Bit>,
    hold_idx: DFF<Bits<FB>>,
    hold_psn: DFF<Bits<PB>>,
    q_v: DFF<Bit>,
    q_idx: DFF<Bits<FB>>,
    q_psn: DFF<Bits<PB>>,
    q_ece: DFF<Bit>,
    q_n: DFF<Bits<N_BITS>>,
    q_nak: DFF<Bit>,
    q_err: DFF<Bits<2>>,
    sc_ptr: DFF<Bits<FB>>,
    sc_idx: DFF<Bits<FB>>,
    sc_v: DFF<Bit>,
    // ---- tables: M's sweep, write port (C's too) and bypass
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
    e1: Signal<Local, Bits<PB>>,
    p1: Signal<Local, Bits<N_BITS>>,
    age: Signal<Local, Bits<TB>>,
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
    c_age: Signal<Local, Bits<TB>>,
    hit: Signal<Local, Bit>,
    o_v: Signal<Local, Bit>,
    o_idx: Signal<Local, Bits<FB>>,
    o_psn: Signal<Local, Bits<PB>>,
    o_ece: Signal<Local, Bit>,
    o_n: Signal<Local, Bits<N_BITS>>,
    o_nak: Signal<Local, Bit>,
    // ---- constants
    nak_bit: Constant<Bits<M_BITS>>,
    one_fb: Constant<Bits<FB>>,
    one_tb: Constant<Bits<TB>>,
    one_pb: Constant<Bits<PB>>,
    one_n: Constant<Bits<N_BITS>>,
    e_flow: Constant<Bits<2>>,
    e_seq: Constant<Bits<2>>,
    e_gap: Constant<Bits<2>>,
}

impl Default for AckGenerator {
    fn default() -> Self {
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
            cf_to: Default::default(),
            t_now: Default::default(),
            s1_v: Default::default(),
            s1_flush: Default::default(),
            s1_kind: Default::default(),
            s1_psn: Default::default(),
            s1_ce: Default::default(),
            s1_last: Default::default(),
            hold_v: Default::default(),
            hold_idx: Default::default(),
            hold_psn: Default::default(),
            q_v: Default::default(),
            q_idx: Default::default(),
            q_psn: Default::default(),
            q_ece: Default::default(),
            q_n: Default::default(),
            q_nak: Default::default(),
            q_err: Default::default(),
            sc_ptr: Default::default(),
            sc_idx: Default::default(),
            sc_v: Default::default(),
            ts: Default::default(),
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
            e1: Default::default(),
            p1: Default::default(),
            age: Default::default(),
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
            c_age: Default::default(),
            hit: Default::default(),
            o_v: Default::default(),
            o_idx: Default::default(),
            o_psn: Default::default(),
            o_ece: Default::default(),
            o_n: Default::default(),
            o_nak: Default::default(),
            nak_bit: Constant::new(Bits::<M_BITS>::from(1u64 << TB)),
            one_fb: Constant::new(Bits::<FB>::from(1u64)),
            one_tb: Constant::new(Bits::<TB>::from(1u64)),
            one_pb: Constant::new(Bits::<PB>::from(1u64)),
            one_n: Constant::new(Bits::<N_BITS>::from(1u64)),
            e_flow: c2(1),
            e_seq: c2(2),
            e_gap: c2(3),
        }
    }
}

impl Logic for AckGenerator {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cf_m, cf_to, t_now, s1_v, s1_flush, s1_kind, s1_psn, s1_ce, s1_last,
            hold_v, hold_idx, hold_psn, q_v, q_idx, q_psn, q_ece, q_n, q_nak, q_err, sc_ptr,
            sc_idx, sc_v
        );
        self.t_m.read_clock.next = self.clock.val();
        self.t_m.write_clock.next = self.clock.val();
        self.t_c.read_clock.next = self.clock.val();
        self.t_c.write_clock.next = self.clock.val();
        self.ts.clock.next = self.clock.val();
        self.ts.reset.next = self.reset.val();

        // ---- parameters and time
        self.cf_m.d.next = self.cfg_m_pkts.val();
        if !self.cfg_m_pkts.val().any() {
            self.cf_m.d.next = self.one_n.val();
        }
        self.cf_to.d.next = self.cfg_timeout_cycles.val();
        self.t_now.d.next = self.t_now.q.val() + self.one_tb.val();
        self.to20.next = bit_cast::<TB, TIMEOUT_BITS>(self.cf_to.q.val());

        // ---- s1: the flow's state, the bypass of the last write
        self.ts.rd_state.next = self.t_m.read_data.val();
        self.st.next = self.ts.state.val();
        self.e_cur.next = self.st.val().get_bits::<PB>(25);
        self.pend.next = self.st.val().get_bits::<N_BITS>(21);
        self.nak_cur.next = self.st.val().get_bit(20);
        self.since.next = self.st.val().get_bits::<TB>(0);
        self.d.next = self.s1_psn.q.val() - self.e_cur.val();
        self.d0.next = !self.d.val().any();
        self.gap.next = !self.d.val().get_bits::<12>(12).any() & !self.d0.val();
        self.e1.next = self.e_cur.val() + self.one_pb.val();
        self.p1.next = self.pend.val() + self.one_n.val();
        self.age.next = self.t_now.q.val() - self.since.val();
        self.flush_ok.next = self.pend.val().any() & (self.age.val() >= self.to20.val());

        // ---- s1: the rules (see ldcp_sim::ack_generator)
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
        if self.s1_flush.q.val() {
            if self.flush_ok.val() {
                self.a1_v.next = true;
                self.n_pend.next = bits::<N_BITS>(0);
            }
        } else if self.s1_kind.q.val() {
            self.n_e.next = self.s1_psn.q.val();
            self.n_pend.next = bits::<N_BITS>(0);
            self.n_nak.next = false;
            self.n_since.next = bits::<TB>(0);
        } else if self.d0.val() {
            self.n_e.next = self.e1.val();
            self.n_nak.next = false;
            if self.s1_ce.q.val() {
                self.n_pend.next = bits::<N_BITS>(0);
                self.a1_v.next = true;
                if self.pend.val().any() {
                    self.split.next = true;
                } else {
                    self.a1_psn.next = self.e1.val();
                    self.a1_ece.next = true;
                    self.a1_n.next = self.one_n.val();
                }
            } else if (self.p1.val() >= self.cf_m.q.val()) | self.s1_last.q.val() {
                self.a1_v.next = true;
                self.a1_psn.next = self.e1.val();
                self.a1_n.next = self.p1.val();
                self.n_pend.next = bits::<N_BITS>(0);
            } else {
                self.n_pend.next = self.p1.val();
                if !self.pend.val().any() {
                    self.n_since.next = self.t_now.q.val();
                }
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
        if self.ts.s1_oor.val() {
            self.a1_v.next = false;
            self.split.next = false;
            self.err_code.next = self.e_flow.val();
        }
        if !self.s1_v.q.val() {
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

        // ---- the scanner: its copy C read at sc_ptr, checked the next cycle
        self.t_c.read_address.next = self.sc_ptr.q.val();
        self.sc_ptr.d.next = self.sc_ptr.q.val() + self.one_fb.val();
        self.sc_idx.d.next = self.sc_ptr.q.val();
        self.sc_v.d.next = !self.ts.sweeping.val() & !self.reset.val();
        self.c_pend.next = self.t_c.read_data.val().get_bits::<N_BITS>(20);
        self.c_since.next = self.t_c.read_data.val().get_bits::<TB>(0);
        self.c_age.next = self.t_now.q.val() - self.c_since.val();
        self.hit.next =
            self.sc_v.q.val() & self.c_pend.val().any() & (self.c_age.val() >= self.to20.val());

        // ---- the next op: nothing after a split, else a flush, else the input
        self.in_ready.next = !self.ts.sweeping.val() & !self.split.val() & !self.hit.val();
        self.s1_v.d.next = !self.reset.val()
            & !self.ts.sweeping.val()
            & !self.split.val()
            & (self.hit.val() | self.in_valid.val());
        self.s1_flush.d.next = self.hit.val();
        self.s1_kind.d.next = self.in_open.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_last.d.next = self.in_last.val();
        // the op: the input's flow, or the scanner's flush (always in the table)
        self.ts.op_flow.next = self.in_flow.val();
        self.ts.pre_valid.next = false;
        self.ts.op_internal.next = self.hit.val();
        self.ts.op_entry.next = self.sc_idx.q.val();
        self.t_m.read_address.next = self.ts.rd_addr.val();

        // ---- the writes (the op's new state, or the sweep) and the bypass
        self.ts.wr_valid.next = self.s1_v.q.val();
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

        // ---- the ACK registers: the held second ACK first, else this op's
        self.o_v.next = self.a1_v.val();
        self.o_idx.next = self.ts.s1_idx.val();
        self.o_psn.next = self.a1_psn.val();
        self.o_ece.next = self.a1_ece.val();
        self.o_n.next = self.a1_n.val();
        self.o_nak.next = self.a1_nak.val();
        self.hold_v.d.next = self.split.val();
        self.hold_idx.d.next = self.ts.s1_idx.val();
        self.hold_psn.d.next = self.e1.val();
        if self.hold_v.q.val() {
            self.o_v.next = true;
            self.o_idx.next = self.hold_idx.q.val();
            self.o_psn.next = self.hold_psn.q.val();
            self.o_ece.next = true;
            self.o_n.next = self.one_n.val();
            self.o_nak.next = false;
            self.hold_v.d.next = false;
        }
        self.q_v.d.next = self.o_v.val();
        self.q_idx.d.next = bits::<FB>(0);
        self.q_psn.d.next = bits::<PB>(0);
        self.q_ece.d.next = false;
        self.q_n.d.next = bits::<N_BITS>(0);
        self.q_nak.d.next = false;
        if self.o_v.val() {
            self.q_idx.d.next = self.o_idx.val();
            self.q_psn.d.next = self.o_psn.val();
            self.q_ece.d.next = self.o_ece.val();
            self.q_n.d.next = self.o_n.val();
            self.q_nak.d.next = self.o_nak.val();
        }
        self.q_err.d.next = self.err_code.val();
        if self.reset.val() {
            self.q_v.d.next = false;
            self.q_idx.d.next = bits::<FB>(0);
            self.q_psn.d.next = bits::<PB>(0);
            self.q_ece.d.next = false;
            self.q_n.d.next = bits::<N_BITS>(0);
            self.q_nak.d.next = false;
            self.q_err.d.next = bits::<2>(0);
            self.hold_v.d.next = false;
            self.t_now.d.next = bits::<TB>(0);
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
pub type AckGeneratorRustHdl = crate::stepper::RustHdlSim<AckGenerator>;

ldcp_sim::ack_generator_ports!(crate::hand_stepped {
    AckGenerator [],
    ldcp_sim::ack_generator::AgInputs,
    ldcp_sim::ack_generator::AgOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::ack_generator::{stimulus, AckGeneratorModel};

    /// RustHDL's own simulation agrees with the golden model.
    #[test]
    fn ack_generator_rusthdl_simulation_matches_model() {
        let mut sim = AckGeneratorRustHdl::new();
        let mut model = AckGeneratorModel::new(FB as u32);
        for (c, i) in stimulus(5, FB as u32).take(3_000).enumerate() {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
