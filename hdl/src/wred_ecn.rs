//! `WredEcn`: WRED/ECN for one switch egress queue, one packet decision per
//! clock cycle (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.1, and
//! §2.3 Eq. 3 for Not-ECT fast-start packets).
//!
//! The rules, the fixed-point marking test `r * R' < 2 * P * D'`, its error
//! bound against the ideal p(q), and the behaviour under illegal parameters
//! are documented once, with the golden model, in `ldcp_sim::wred_ecn`; this
//! file is its register-transfer twin (`WredEcnModel` mirrors every register
//! below, and cosimulation compares them every cycle).
//!
//! # Timing
//! - Throughput: one packet per clock, no back-pressure, any pattern.
//! - Latency: a packet presented in cycle t has its decision on the output
//!   registers in cycle t + 12 ([`LATENCY_CYCLES`]); its bytes are in
//!   `stat_occupancy_bytes` in cycle t + 5. Decisions leave in arrival order.
//! - Parameter ports are registered; a change reaches every stage within
//!   four cycles (the derived registers follow the thresholds' own: the
//!   ramp's `range`, `shift`, `r_prime` one, two and three cycles after,
//!   `buf_max + 1` one, `buf_max + 1 - K` and its clamp at 0 two and
//!   three; K itself is delayed to the same age, three, for the Not-ECT
//!   bound, so the bound always compares one K with its own headroom
//!   `buf_max + 1 - K`). Packets in flight during a change may mix old and
//!   new values; every mix is still a probability in [0, 1], and the
//!   buffer limit holds across every change of K, K_min, K_max and P_max,
//!   and while buf_max rises (lowering it leaves the queue above it until
//!   it drains). Before this delay, for two cycles after K changed a
//!   Not-ECT packet met the new K against the old headroom, so raising K
//!   could admit a packet that did not fit (found by the formal harness
//!   `formal/wred_ecn.sv`: buf_max 5,120, a 4,608-byte packet accepted at
//!   q = 3,072, the occupancy 6,656).
//! - `reset` (synchronous, active high) empties the queue, drops the packets
//!   in flight (no decision comes out for them), zeroes the counters and
//!   loads the generator from the `cfg_seed` registered the cycle before.
//!
//! # Pipeline
//! ```text
//! s0  register inputs and parameters
//! s1  lim1 = buf_max + 1 - len, ldiff = len - drain (26-bit two's complement),
//!     bound = Not-ECT and len < max(0, buf_max + 1 - K) ? K : lim1 (min(lim1, K)
//!     for Not-ECT, without a compare on lim1's carry chain)
//! s2  the same, a cycle later
//! s3  the look-ahead: from slot n (s2) and slot n + 1 (s1), the thresholds of
//!     slot n + 1's tests on slot n's q (below), registered with slot n
//! B   the occupancy loop, the only loop (below); q, the draw and the admission
//!     are registered
//! C   fits = q < lim1 (the drop's reason); over = q >= K_max, under = q < K_min,
//!     D = q - K_min
//! D   D' = D >> shift (16 bits)
//! E-G two PipelinedMul16: A = r * R', B = P * D'
//! I   lt = A < 2B (33-bit compare)
//! H   mark = forwarded & ECT & (over | !under & lt); the output registers
//! J   the saturating counters count what H shows (one cycle after the outputs)
//! ```
//!
//! # The loop
//! A slot (a cycle, with or without a packet) is accepted iff it carries a
//! packet that can fit (`lim1 >= 0`) and `q < bound`, and borrows iff
//! `q < drain`; then
//! `q' = borrow ? (accept ? len : 0) : q + (accept ? len - drain : -drain)`
//! (modulo 2^24; exact, since it cannot go negative without a borrow).
//! The accept and borrow of slot n are registers (`acc`, `bor`), computed
//! in slot n - 1's cycle from what q' will be: after a borrow q' does not
//! depend on q, so its tests are bits computed in s3; otherwise
//! `q' < T` is `q < T - delta` with delta = len - drain or -drain, and s3
//! computes both thresholds. The loop is then: the registered selects
//! pick a threshold (or the addend), one carry chain compares (or adds),
//! one LUT picks the result. No comparator's carry out fans out to the
//! 24 bits of q, which was the critical path of the previous design
//! (`q < bound` selecting the update, 97-101 MHz alone).

use crate::mul::{PipelinedMul16, MUL_LATENCY_CYCLES};
use ldcp_sim::wred_ecn::{
    COUNTER_BITS, COUNTER_MAX, DRAIN_BITS, LATENCY_CYCLES, LEN_BITS, P_BITS, Q_BITS, RAND_BITS,
    SEED_BITS,
};
use ldcp_sim::xorshift::{XORSHIFT_SHIFTS, ZERO_SEED_SUBSTITUTE};
use rust_hdl::prelude::*;

const _: () = assert!(MUL_LATENCY_CYCLES == 3 && LATENCY_CYCLES == 9 + MUL_LATENCY_CYCLES);
const _: () = assert!(Q_BITS == 24 && RAND_BITS == 16 && P_BITS == 16);

/// Bits of the headroom `buf_max + 1 - len` and of every threshold of the
/// loop's look-ahead: two's complement, two bits more than q (buf_max + 1
/// reaches 2^24, and a threshold moves it by a packet and a drain more).
const LIM_BITS: usize = Q_BITS + 2;
const _: () = assert!(LIM_BITS == 26 && LEN_BITS == DRAIN_BITS);
/// Bits of the normalising shift (0..=8).
const SHIFT_BITS: usize = 4;

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "wred_ecn",
    doc: "switch-port WRED/ECN, one packet per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.1, §2.3 Eq. 3)",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, WredEcn::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct WredEcn {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    // ---- packet in
    /// A packet arrives this cycle.
    pub in_valid: Signal<In, Bit>,
    /// Its length, bytes, UQ14.
    pub in_len_bytes: Signal<In, Bits<LEN_BITS>>,
    /// Its ECN codepoint (00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE).
    pub in_ecn: Signal<In, Bits<2>>,
    // ---- egress
    /// Bytes the egress link sends this cycle, UQ14, every cycle (not
    /// qualified by `in_valid`): drained from what was queued before this
    /// cycle, so a packet is never sent in the cycle it arrives.
    pub egress_drain_bytes: Signal<In, Bits<DRAIN_BITS>>,
    // ---- parameters
    /// Start of the marking ramp, bytes, UQ24.
    pub cfg_k_min_bytes: Signal<In, Bits<Q_BITS>>,
    /// End of the ramp (p = 1 from here), bytes, UQ24.
    pub cfg_k_max_bytes: Signal<In, Bits<Q_BITS>>,
    /// Eq. 3's K for Not-ECT packets, bytes, UQ24.
    pub cfg_k_bytes: Signal<In, Bits<Q_BITS>>,
    /// Buffer size, bytes, UQ24.
    pub cfg_buf_max_bytes: Signal<In, Bits<Q_BITS>>,
    /// P_max, UQ1.15 (0x8000 = 1.0; larger values act as 1.0).
    pub cfg_p_max: Signal<In, Bits<P_BITS>>,
    /// Seed of the xorshift32 generator, loaded on reset (0 loads the substitute).
    pub cfg_seed: Signal<In, Bits<SEED_BITS>>,
    // ---- decision out
    /// A decision is on the outputs this cycle.
    pub out_valid: Signal<Out, Bit>,
    /// 0 forward, 1 forward marked CE, 2 drop (Eq. 3), 3 drop (overflow).
    pub out_decision: Signal<Out, Bits<2>>,
    /// The outgoing ECN codepoint.
    pub out_ecn: Signal<Out, Bits<2>>,
    // ---- state and counters
    /// Queue occupancy, bytes, UQ24.
    pub stat_occupancy_bytes: Signal<Out, Bits<Q_BITS>>,
    /// Packets forwarded (marked or not), saturating.
    pub stat_forwarded_pkts: Signal<Out, Bits<COUNTER_BITS>>,
    /// Packets marked CE by this port, saturating.
    pub stat_marked_pkts: Signal<Out, Bits<COUNTER_BITS>>,
    /// Packets dropped by Eq. 3, saturating.
    pub stat_dropped_wred_pkts: Signal<Out, Bits<COUNTER_BITS>>,
    /// Packets dropped because they did not fit, saturating.
    pub stat_dropped_overflow_pkts: Signal<Out, Bits<COUNTER_BITS>>,

    // config registers
    c_kmin: DFF<Bits<Q_BITS>>,
    c_kmax: DFF<Bits<Q_BITS>>,
    c_k: DFF<Bits<Q_BITS>>,
    /// K a cycle later, and another: `c_k3` is the K of `c_bk`.
    c_k2: DFF<Bits<Q_BITS>>,
    c_k3: DFF<Bits<Q_BITS>>,
    c_buf1: DFF<Bits<LIM_BITS>>,
    c_bk: DFF<Bits<LIM_BITS>>,
    c_bkr: DFF<Bits<LIM_BITS>>,
    c_buf: DFF<Bits<Q_BITS>>,
    c_p: DFF<Bits<P_BITS>>,
    c_seed: DFF<Bits<SEED_BITS>>,
    c_range: DFF<Bits<Q_BITS>>,
    c_shift: DFF<Bits<SHIFT_BITS>>,
    c_rprime: DFF<Bits<16>>,
    p_one: Constant<Bits<P_BITS>>,
    seed_substitute: Constant<Bits<SEED_BITS>>,
    xs_a: Constant<Bits<5>>,
    xs_b: Constant<Bits<5>>,
    xs_c: Constant<Bits<5>>,
    // s0
    s0_valid: DFF<Bit>,
    s0_len: DFF<Bits<LEN_BITS>>,
    s0_ecn: DFF<Bits<2>>,
    s0_drain: DFF<Bits<DRAIN_BITS>>,
    // s1
    s1_valid: DFF<Bit>,
    s1_len: DFF<Bits<LEN_BITS>>,
    s1_ecn: DFF<Bits<2>>,
    s1_drain: DFF<Bits<DRAIN_BITS>>,
    s1_lim1: DFF<Bits<LIM_BITS>>,
    s1_ldiff: DFF<Bits<LIM_BITS>>,
    s1_bound: DFF<Bits<LIM_BITS>>,
    lim1_next: Signal<Local, Bits<LIM_BITS>>,
    // s2
    s2_valid: DFF<Bit>,
    s2_len: DFF<Bits<LEN_BITS>>,
    s2_ecn: DFF<Bits<2>>,
    s2_drain: DFF<Bits<DRAIN_BITS>>,
    s2_lim1: DFF<Bits<LIM_BITS>>,
    s2_ldiff: DFF<Bits<LIM_BITS>>,
    // s3: the loop's slot, and the look-ahead of the next slot's tests
    s3_valid: DFF<Bit>,
    s3_len: DFF<Bits<LEN_BITS>>,
    s3_ecn: DFF<Bits<2>>,
    s3_lim1: DFF<Bits<LIM_BITS>>,
    s3_ldiff: DFF<Bits<Q_BITS>>,
    s3_ndrain: DFF<Bits<Q_BITS>>,
    la_t_b: DFF<Bits<LIM_BITS>>,
    la_t_d: DFF<Bits<LIM_BITS>>,
    la_y_b: DFF<Bits<LIM_BITS>>,
    la_y_d: DFF<Bits<LIM_BITS>>,
    la_pre_a: DFF<Bit>,
    la_pre_c: DFF<Bit>,
    la_pre_ba: DFF<Bit>,
    la_pre_bc: DFF<Bit>,
    good: Signal<Local, Bit>,
    drain_wide: Signal<Local, Bits<LIM_BITS>>,
    sign: Constant<Bits<LIM_BITS>>,
    // the loop: q, and this slot's accept and borrow, registered a cycle ahead
    occ: DFF<Bits<Q_BITS>>,
    acc: DFF<Bit>,
    bor: DFF<Bit>,
    rng: DFF<Bits<SEED_BITS>>,
    q_off: Signal<Local, Bits<LIM_BITS>>,
    sel_t: Signal<Local, Bits<LIM_BITS>>,
    sel_y: Signal<Local, Bits<LIM_BITS>>,
    addend: Signal<Local, Bits<Q_BITS>>,
    pre_acc: Signal<Local, Bit>,
    pre_bor: Signal<Local, Bit>,
    x1: Signal<Local, Bits<SEED_BITS>>,
    x2: Signal<Local, Bits<SEED_BITS>>,
    x3: Signal<Local, Bits<SEED_BITS>>,
    // B
    sb_valid: DFF<Bit>,
    sb_ecn: DFF<Bits<2>>,
    sb_acc: DFF<Bit>,
    sb_lim1: DFF<Bits<LIM_BITS>>,
    sb_q: DFF<Bits<Q_BITS>>,
    sb_r: DFF<Bits<RAND_BITS>>,
    // C
    sc_valid: DFF<Bit>,
    sc_ecn: DFF<Bits<2>>,
    sc_dec: DFF<Bits<2>>,
    sc_over: DFF<Bit>,
    sc_under: DFF<Bit>,
    sc_d: DFF<Bits<Q_BITS>>,
    sc_r: DFF<Bits<RAND_BITS>>,
    // D
    sd_valid: DFF<Bit>,
    sd_ecn: DFF<Bits<2>>,
    sd_dec: DFF<Bits<2>>,
    sd_over: DFF<Bit>,
    sd_under: DFF<Bit>,
    sd_dp: DFF<Bits<16>>,
    sd_r: DFF<Bits<RAND_BITS>>,
    // E, F, G: the multipliers and what travels beside them
    mul_a: PipelinedMul16,
    mul_b: PipelinedMul16,
    se_valid: DFF<Bit>,
    se_ecn: DFF<Bits<2>>,
    se_dec: DFF<Bits<2>>,
    se_over: DFF<Bit>,
    se_under: DFF<Bit>,
    sf_valid: DFF<Bit>,
    sf_ecn: DFF<Bits<2>>,
    sf_dec: DFF<Bits<2>>,
    sf_over: DFF<Bit>,
    sf_under: DFF<Bit>,
    sg_valid: DFF<Bit>,
    sg_ecn: DFF<Bits<2>>,
    sg_dec: DFF<Bits<2>>,
    sg_over: DFF<Bit>,
    sg_under: DFF<Bit>,
    // I
    si_valid: DFF<Bit>,
    si_ecn: DFF<Bits<2>>,
    si_dec: DFF<Bits<2>>,
    si_over: DFF<Bit>,
    si_under: DFF<Bit>,
    si_lt: DFF<Bit>,
    // H
    mark: Signal<Local, Bit>,
    forwarded: Signal<Local, Bit>,
    o_valid: DFF<Bit>,
    o_dec: DFF<Bits<2>>,
    o_ecn: DFF<Bits<2>>,
    n_fwd: DFF<Bits<COUNTER_BITS>>,
    n_mark: DFF<Bits<COUNTER_BITS>>,
    n_wred: DFF<Bits<COUNTER_BITS>>,
    n_ovf: DFF<Bits<COUNTER_BITS>>,
    sat_fwd: DFF<Bit>,
    sat_mark: DFF<Bit>,
    sat_wred: DFF<Bit>,
    sat_ovf: DFF<Bit>,
    inc_fwd: Signal<Local, Bit>,
    inc_mark: Signal<Local, Bit>,
    inc_wred: Signal<Local, Bit>,
    inc_ovf: Signal<Local, Bit>,
    counter_max_m1: Constant<Bits<COUNTER_BITS>>,
}

impl Default for WredEcn {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_len_bytes: Default::default(),
            in_ecn: Default::default(),
            egress_drain_bytes: Default::default(),
            cfg_k_min_bytes: Default::default(),
            cfg_k_max_bytes: Default::default(),
            cfg_k_bytes: Default::default(),
            cfg_buf_max_bytes: Default::default(),
            cfg_p_max: Default::default(),
            cfg_seed: Default::default(),
            out_valid: Default::default(),
            out_decision: Default::default(),
            out_ecn: Default::default(),
            stat_occupancy_bytes: Default::default(),
            stat_forwarded_pkts: Default::default(),
            stat_marked_pkts: Default::default(),
            stat_dropped_wred_pkts: Default::default(),
            stat_dropped_overflow_pkts: Default::default(),
            c_kmin: Default::default(),
            c_kmax: Default::default(),
            c_k: Default::default(),
            c_k2: Default::default(),
            c_k3: Default::default(),
            c_buf1: Default::default(),
            c_bk: Default::default(),
            c_bkr: Default::default(),
            c_buf: Default::default(),
            c_p: Default::default(),
            c_seed: Default::default(),
            c_range: Default::default(),
            c_shift: Default::default(),
            c_rprime: Default::default(),
            p_one: Constant::new((1u64 << 15).into()),
            seed_substitute: Constant::new((ZERO_SEED_SUBSTITUTE as u64).into()),
            xs_a: Constant::new((XORSHIFT_SHIFTS.0 as u64).into()),
            xs_b: Constant::new((XORSHIFT_SHIFTS.1 as u64).into()),
            xs_c: Constant::new((XORSHIFT_SHIFTS.2 as u64).into()),
            s0_valid: Default::default(),
            s0_len: Default::default(),
            s0_ecn: Default::default(),
            s0_drain: Default::default(),
            s1_valid: Default::default(),
            s1_len: Default::default(),
            s1_ecn: Default::default(),
            s1_drain: Default::default(),
            s1_lim1: Default::default(),
            s1_ldiff: Default::default(),
            s1_bound: Default::default(),
            lim1_next: Default::default(),
            s2_valid: Default::default(),
            s2_len: Default::default(),
            s2_ecn: Default::default(),
            s2_drain: Default::default(),
            s2_lim1: Default::default(),
            s2_ldiff: Default::default(),
            s3_valid: Default::default(),
            s3_len: Default::default(),
            s3_ecn: Default::default(),
            s3_lim1: Default::default(),
            s3_ldiff: Default::default(),
            s3_ndrain: Default::default(),
            la_t_b: Default::default(),
            la_t_d: Default::default(),
            la_y_b: Default::default(),
            la_y_d: Default::default(),
            la_pre_a: Default::default(),
            la_pre_c: Default::default(),
            la_pre_ba: Default::default(),
            la_pre_bc: Default::default(),
            good: Default::default(),
            drain_wide: Default::default(),
            sign: Constant::new((1u64 << (LIM_BITS - 1)).into()),
            occ: Default::default(),
            acc: Default::default(),
            bor: Default::default(),
            rng: Default::default(),
            q_off: Default::default(),
            sel_t: Default::default(),
            sel_y: Default::default(),
            addend: Default::default(),
            pre_acc: Default::default(),
            pre_bor: Default::default(),
            x1: Default::default(),
            x2: Default::default(),
            x3: Default::default(),
            sb_valid: Default::default(),
            sb_ecn: Default::default(),
            sb_acc: Default::default(),
            sb_lim1: Default::default(),
            sb_q: Default::default(),
            sb_r: Default::default(),
            sc_valid: Default::default(),
            sc_ecn: Default::default(),
            sc_dec: Default::default(),
            sc_over: Default::default(),
            sc_under: Default::default(),
            sc_d: Default::default(),
            sc_r: Default::default(),
            sd_valid: Default::default(),
            sd_ecn: Default::default(),
            sd_dec: Default::default(),
            sd_over: Default::default(),
            sd_under: Default::default(),
            sd_dp: Default::default(),
            sd_r: Default::default(),
            mul_a: Default::default(),
            mul_b: Default::default(),
            se_valid: Default::default(),
            se_ecn: Default::default(),
            se_dec: Default::default(),
            se_over: Default::default(),
            se_under: Default::default(),
            sf_valid: Default::default(),
            sf_ecn: Default::default(),
            sf_dec: Default::default(),
            sf_over: Default::default(),
            sf_under: Default::default(),
            sg_valid: Default::default(),
            sg_ecn: Default::default(),
            sg_dec: Default::default(),
            sg_over: Default::default(),
            sg_under: Default::default(),
            si_valid: Default::default(),
            si_ecn: Default::default(),
            si_dec: Default::default(),
            si_over: Default::default(),
            si_under: Default::default(),
            si_lt: Default::default(),
            mark: Default::default(),
            forwarded: Default::default(),
            o_valid: Default::default(),
            o_dec: Default::default(),
            o_ecn: Default::default(),
            n_fwd: Default::default(),
            n_mark: Default::default(),
            n_wred: Default::default(),
            n_ovf: Default::default(),
            sat_fwd: Default::default(),
            sat_mark: Default::default(),
            sat_wred: Default::default(),
            sat_ovf: Default::default(),
            inc_fwd: Default::default(),
            inc_mark: Default::default(),
            inc_wred: Default::default(),
            inc_ovf: Default::default(),
            counter_max_m1: Constant::new((COUNTER_MAX as u64 - 1).into()),
        }
    }
}

impl Logic for WredEcn {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c_kmin, c_kmax, c_k, c_k2, c_k3, c_buf1, c_bkr, c_bk, c_buf, c_p, c_seed,
            c_range, c_shift, c_rprime, s0_valid, s0_len, s0_ecn, s0_drain, s1_valid, s1_len,
            s1_ecn, s1_drain, s1_lim1, s1_ldiff, s1_bound, s2_valid, s2_len, s2_ecn, s2_drain,
            s2_lim1, s2_ldiff, s3_valid, s3_len, s3_ecn, s3_lim1, s3_ldiff, s3_ndrain, la_t_b,
            la_t_d, la_y_b, la_y_d, la_pre_a, la_pre_c, la_pre_ba, la_pre_bc, occ, acc, bor, rng,
            sb_valid, sb_ecn, sb_acc, sb_lim1, sb_q, sb_r, sc_valid, sc_ecn, sc_dec, sc_over,
            sc_under, sc_d, sc_r, sd_valid, sd_ecn, sd_dec, sd_over, sd_under, sd_dp, sd_r,
            se_valid, se_ecn, se_dec, se_over, se_under, sf_valid, sf_ecn, sf_dec, sf_over,
            sf_under, sg_valid, sg_ecn, sg_dec, sg_over, sg_under, si_valid, si_ecn, si_dec,
            si_over, si_under, si_lt, o_valid, o_dec, o_ecn, n_fwd, n_mark, n_wred, n_ovf, sat_fwd,
            sat_mark, sat_wred, sat_ovf
        );
        self.mul_a.clock.next = self.clock.val();
        self.mul_b.clock.next = self.clock.val();

        // ---- config pipeline: thresholds, then range, then shift, then R'
        self.c_kmin.d.next = self.cfg_k_min_bytes.val();
        self.c_kmax.d.next = self.cfg_k_max_bytes.val();
        self.c_k.d.next = self.cfg_k_bytes.val();
        self.c_k2.d.next = self.c_k.q.val();
        self.c_k3.d.next = self.c_k2.q.val();
        self.c_buf1.d.next = bit_cast::<LIM_BITS, Q_BITS>(self.c_buf.q.val()) + bits::<LIM_BITS>(1);
        // c_bk = max(0, buf + 1 - K): a packet meets K before the buffer
        // (K < buf + 1 - len) iff len < c_bk
        // (two registers: the clamp maps to the flip-flops' reset, which a
        // carry chain's sign in front of it would route through a global buffer)
        self.c_bkr.d.next = self.c_buf1.q.val() - bit_cast::<LIM_BITS, Q_BITS>(self.c_k.q.val());
        self.c_bk.d.next = self.c_bkr.q.val();
        if self.c_bkr.q.val().get_bit(25) {
            self.c_bk.d.next = bits::<LIM_BITS>(0);
        }
        self.c_buf.d.next = self.cfg_buf_max_bytes.val();
        self.c_seed.d.next = self.cfg_seed.val();
        self.c_p.d.next = self.cfg_p_max.val();
        if self.cfg_p_max.val() > self.p_one.val() {
            self.c_p.d.next = self.p_one.val();
        }
        self.c_range.d.next = self.c_kmax.q.val() - self.c_kmin.q.val();
        // shift = max(0, bitlen(range) - 16): the highest set bit of range[23:16] wins
        self.c_shift.d.next = bits::<SHIFT_BITS>(0);
        if self.c_range.q.val().get_bit(16) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(1);
        }
        if self.c_range.q.val().get_bit(17) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(2);
        }
        if self.c_range.q.val().get_bit(18) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(3);
        }
        if self.c_range.q.val().get_bit(19) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(4);
        }
        if self.c_range.q.val().get_bit(20) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(5);
        }
        if self.c_range.q.val().get_bit(21) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(6);
        }
        if self.c_range.q.val().get_bit(22) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(7);
        }
        if self.c_range.q.val().get_bit(23) {
            self.c_shift.d.next = bits::<SHIFT_BITS>(8);
        }
        // a narrowing cast of a right shift: Rust and Verilog agree (shift in 24 bits, keep 16)
        self.c_rprime.d.next = bit_cast::<16, Q_BITS>(self.c_range.q.val() >> self.c_shift.q.val());

        // ---- s0: register the packet and the drain
        self.s0_valid.d.next = self.in_valid.val() & !self.reset.val();
        self.s0_len.d.next = self.in_len_bytes.val();
        self.s0_ecn.d.next = self.in_ecn.val();
        self.s0_drain.d.next = self.egress_drain_bytes.val();

        // ---- s1: everything that does not depend on q
        self.s1_valid.d.next = self.s0_valid.q.val() & !self.reset.val();
        self.s1_len.d.next = self.s0_len.q.val();
        self.s1_ecn.d.next = self.s0_ecn.q.val();
        self.s1_drain.d.next = self.s0_drain.q.val();
        self.lim1_next.next =
            self.c_buf1.q.val() - bit_cast::<LIM_BITS, LEN_BITS>(self.s0_len.q.val());
        self.s1_lim1.d.next = self.lim1_next.val();
        // the admission bound (used while lim1 >= 0): Not-ECT ? min(lim1, K) : lim1
        self.s1_bound.d.next = self.lim1_next.val();
        if !self.s0_ecn.q.val().any()
            & (bit_cast::<LIM_BITS, LEN_BITS>(self.s0_len.q.val()) < self.c_bk.q.val())
        {
            self.s1_bound.d.next = bit_cast::<LIM_BITS, Q_BITS>(self.c_k3.q.val());
        }
        self.s1_ldiff.d.next = bit_cast::<LIM_BITS, LEN_BITS>(self.s0_len.q.val())
            - bit_cast::<LIM_BITS, DRAIN_BITS>(self.s0_drain.q.val());

        // ---- s2: the same, a cycle later: slot n here while slot n + 1 is in s1
        self.s2_valid.d.next = self.s1_valid.q.val() & !self.reset.val();
        self.s2_len.d.next = self.s1_len.q.val();
        self.s2_ecn.d.next = self.s1_ecn.q.val();
        self.s2_drain.d.next = self.s1_drain.q.val();
        self.s2_lim1.d.next = self.s1_lim1.q.val();
        self.s2_ldiff.d.next = self.s1_ldiff.q.val();

        // ---- s3: the loop's slot, and the look-ahead (slot n in s2, n + 1 in s1).
        // Slot n + 1 is accepted iff q' < bound'. q' is q + ldiff (accepted,
        // no borrow), q - drain (rejected, no borrow), len or 0 (borrow), so
        // each test is q against a threshold computed here, or a bit computed
        // here. A threshold of 0 never passes (an invalid or hopeless slot).
        self.s3_valid.d.next = self.s2_valid.q.val() & !self.reset.val();
        self.s3_len.d.next = self.s2_len.q.val();
        self.s3_ecn.d.next = self.s2_ecn.q.val();
        self.s3_lim1.d.next = self.s2_lim1.q.val();
        self.s3_ldiff.d.next = self.s2_ldiff.q.val().get_bits::<Q_BITS>(0);
        self.s3_ndrain.d.next =
            bits::<Q_BITS>(0) - bit_cast::<Q_BITS, DRAIN_BITS>(self.s2_drain.q.val());
        // bit 25 of lim1 is its sign (LIM_BITS = 26)
        self.good.next =
            self.s1_valid.q.val() & !self.reset.val() & !self.s1_lim1.q.val().get_bit(25);
        self.drain_wide.next = bit_cast::<LIM_BITS, DRAIN_BITS>(self.s2_drain.q.val());
        self.la_t_b.d.next = bits::<LIM_BITS>(0);
        self.la_t_d.d.next = bits::<LIM_BITS>(0);
        if self.good.val() {
            self.la_t_b.d.next = self.s1_bound.q.val() - self.s2_ldiff.q.val();
            self.la_t_d.d.next = self.s1_bound.q.val() + self.drain_wide.val();
        }
        self.la_y_b.d.next =
            bit_cast::<LIM_BITS, DRAIN_BITS>(self.s1_drain.q.val()) - self.s2_ldiff.q.val();
        self.la_y_d.d.next =
            bit_cast::<LIM_BITS, DRAIN_BITS>(self.s1_drain.q.val()) + self.drain_wide.val();
        // when slot n borrows: q' = len (accepted) or 0; bound' >= 0 when good
        self.la_pre_a.d.next = self.good.val()
            & (bit_cast::<LIM_BITS, LEN_BITS>(self.s2_len.q.val()) < self.s1_bound.q.val());
        self.la_pre_c.d.next = self.good.val() & self.s1_bound.q.val().any();
        self.la_pre_ba.d.next =
            bit_cast::<DRAIN_BITS, LEN_BITS>(self.s2_len.q.val()) < self.s1_drain.q.val();
        self.la_pre_bc.d.next = self.s1_drain.q.val().any();

        // ---- B: the occupancy loop. The tests compare q with a threshold in
        // offset binary (a signed compare as an unsigned one, the sign bit
        // flipped); the selects are registers, so the loop is a mux, one
        // carry chain and one LUT.
        self.q_off.next = bit_cast::<LIM_BITS, Q_BITS>(self.occ.q.val()) | self.sign.val();
        self.sel_t.next = self.la_t_d.q.val();
        self.sel_y.next = self.la_y_d.q.val();
        self.addend.next = self.s3_ndrain.q.val();
        self.pre_acc.next = self.la_pre_c.q.val();
        self.pre_bor.next = self.la_pre_bc.q.val();
        if self.acc.q.val() {
            self.sel_t.next = self.la_t_b.q.val();
            self.sel_y.next = self.la_y_b.q.val();
            self.addend.next = self.s3_ldiff.q.val();
            self.pre_acc.next = self.la_pre_a.q.val();
            self.pre_bor.next = self.la_pre_ba.q.val();
        }
        if self.bor.q.val() {
            self.occ.d.next = bits::<Q_BITS>(0);
            if self.acc.q.val() {
                self.occ.d.next = bit_cast::<Q_BITS, LEN_BITS>(self.s3_len.q.val());
            }
            self.acc.d.next = self.pre_acc.val();
            self.bor.d.next = self.pre_bor.val();
        } else {
            self.occ.d.next = self.occ.q.val() + self.addend.val();
            self.acc.d.next = self.q_off.val() < (self.sel_t.val() ^ self.sign.val());
            self.bor.d.next = self.q_off.val() < (self.sel_y.val() ^ self.sign.val());
        }
        // xorshift32, one step per packet
        self.x1.next = self.rng.q.val() ^ (self.rng.q.val() << self.xs_a.val());
        self.x2.next = self.x1.val() ^ (self.x1.val() >> self.xs_b.val());
        self.x3.next = self.x2.val() ^ (self.x2.val() << self.xs_c.val());
        if self.s3_valid.q.val() {
            self.rng.d.next = self.x3.val();
        }
        if self.reset.val() {
            self.occ.d.next = bits::<Q_BITS>(0);
            self.acc.d.next = false;
            self.bor.d.next = self.la_pre_bc.q.val();
            self.rng.d.next = self.c_seed.q.val();
            if !self.c_seed.q.val().any() {
                self.rng.d.next = self.seed_substitute.val();
            }
        }
        self.sb_valid.d.next = self.s3_valid.q.val() & !self.reset.val();
        self.sb_ecn.d.next = self.s3_ecn.q.val();
        // the admission is encoded one stage later, off the loop
        self.sb_acc.d.next = self.acc.q.val();
        self.sb_lim1.d.next = self.s3_lim1.q.val();
        self.sb_q.d.next = self.occ.q.val();
        self.sb_r.d.next = self.x3.val().get_bits::<RAND_BITS>(16);

        // ---- C: where q is on the ramp
        self.sc_valid.d.next = self.sb_valid.q.val() & !self.reset.val();
        self.sc_ecn.d.next = self.sb_ecn.q.val();
        // the admission: accepted, else overflow if it does not fit, else Eq. 3
        self.sc_dec.d.next = bits::<2>(2);
        // it fits iff q < lim1 (lim1 >= 0)
        if self.sb_lim1.q.val().get_bit(25)
            | (bit_cast::<LIM_BITS, Q_BITS>(self.sb_q.q.val()) >= self.sb_lim1.q.val())
        {
            self.sc_dec.d.next = bits::<2>(3);
        }
        if self.sb_acc.q.val() {
            self.sc_dec.d.next = bits::<2>(0);
        }
        self.sc_r.d.next = self.sb_r.q.val();
        self.sc_over.d.next = self.sb_q.q.val() >= self.c_kmax.q.val();
        self.sc_under.d.next = self.sb_q.q.val() < self.c_kmin.q.val();
        self.sc_d.d.next = self.sb_q.q.val() - self.c_kmin.q.val();

        // ---- D: D' = D >> shift
        self.sd_valid.d.next = self.sc_valid.q.val() & !self.reset.val();
        self.sd_ecn.d.next = self.sc_ecn.q.val();
        self.sd_dec.d.next = self.sc_dec.q.val();
        self.sd_over.d.next = self.sc_over.q.val();
        self.sd_under.d.next = self.sc_under.q.val();
        self.sd_r.d.next = self.sc_r.q.val();
        self.sd_dp.d.next = bit_cast::<16, Q_BITS>(self.sc_d.q.val() >> self.c_shift.q.val());

        // ---- E, F, G: A = r * R', B = P * D'
        self.mul_a.a.next = self.sd_r.q.val();
        self.mul_a.b.next = self.c_rprime.q.val();
        self.mul_b.a.next = self.c_p.q.val();
        self.mul_b.b.next = self.sd_dp.q.val();
        self.se_valid.d.next = self.sd_valid.q.val() & !self.reset.val();
        self.se_ecn.d.next = self.sd_ecn.q.val();
        self.se_dec.d.next = self.sd_dec.q.val();
        self.se_over.d.next = self.sd_over.q.val();
        self.se_under.d.next = self.sd_under.q.val();
        self.sf_valid.d.next = self.se_valid.q.val() & !self.reset.val();
        self.sf_ecn.d.next = self.se_ecn.q.val();
        self.sf_dec.d.next = self.se_dec.q.val();
        self.sf_over.d.next = self.se_over.q.val();
        self.sf_under.d.next = self.se_under.q.val();
        self.sg_valid.d.next = self.sf_valid.q.val() & !self.reset.val();
        self.sg_ecn.d.next = self.sf_ecn.q.val();
        self.sg_dec.d.next = self.sf_dec.q.val();
        self.sg_over.d.next = self.sf_over.q.val();
        self.sg_under.d.next = self.sf_under.q.val();

        // ---- I: the ramp comparison A < 2B, in 33 bits, registered
        self.si_valid.d.next = self.sg_valid.q.val() & !self.reset.val();
        self.si_ecn.d.next = self.sg_ecn.q.val();
        self.si_dec.d.next = self.sg_dec.q.val();
        self.si_over.d.next = self.sg_over.q.val();
        self.si_under.d.next = self.sg_under.q.val();
        self.si_lt.d.next =
            bit_cast::<33, 32>(self.mul_a.p.val()) < (bit_cast::<33, 32>(self.mul_b.p.val()) << 1);

        // ---- H: mark, outputs, counters
        self.forwarded.next = !self.si_dec.q.val().any();
        // ECT(0) or ECT(1): exactly one of the two bits set
        self.mark.next = self.forwarded.val()
            & (self.si_ecn.q.val().get_bit(0) ^ self.si_ecn.q.val().get_bit(1))
            & (self.si_over.q.val() | (!self.si_under.q.val() & self.si_lt.q.val()));
        self.o_valid.d.next = self.si_valid.q.val() & !self.reset.val();
        self.o_dec.d.next = self.si_dec.q.val();
        self.o_ecn.d.next = self.si_ecn.q.val();
        if self.mark.val() {
            self.o_dec.d.next = bits::<2>(1);
            self.o_ecn.d.next = bits::<2>(3);
        }
        // ---- counters: count what the output registers show, one cycle later.
        // Each has a flag `sat` = (count == MAX), kept by comparing with MAX - 1,
        // so the enable is one LUT from registers.
        self.inc_fwd.next = self.o_valid.q.val() & !self.o_dec.q.val().get_bit(1);
        self.inc_mark.next =
            self.o_valid.q.val() & !self.o_dec.q.val().get_bit(1) & self.o_dec.q.val().get_bit(0);
        self.inc_wred.next =
            self.o_valid.q.val() & self.o_dec.q.val().get_bit(1) & !self.o_dec.q.val().get_bit(0);
        self.inc_ovf.next = self.o_valid.q.val() & self.o_dec.q.val().all();
        if self.inc_fwd.val() & !self.sat_fwd.q.val() {
            self.n_fwd.d.next = self.n_fwd.q.val() + bits::<COUNTER_BITS>(1);
            self.sat_fwd.d.next = self.n_fwd.q.val() == self.counter_max_m1.val();
        }
        if self.inc_mark.val() & !self.sat_mark.q.val() {
            self.n_mark.d.next = self.n_mark.q.val() + bits::<COUNTER_BITS>(1);
            self.sat_mark.d.next = self.n_mark.q.val() == self.counter_max_m1.val();
        }
        if self.inc_wred.val() & !self.sat_wred.q.val() {
            self.n_wred.d.next = self.n_wred.q.val() + bits::<COUNTER_BITS>(1);
            self.sat_wred.d.next = self.n_wred.q.val() == self.counter_max_m1.val();
        }
        if self.inc_ovf.val() & !self.sat_ovf.q.val() {
            self.n_ovf.d.next = self.n_ovf.q.val() + bits::<COUNTER_BITS>(1);
            self.sat_ovf.d.next = self.n_ovf.q.val() == self.counter_max_m1.val();
        }
        if self.reset.val() {
            self.n_fwd.d.next = bits::<COUNTER_BITS>(0);
            self.n_mark.d.next = bits::<COUNTER_BITS>(0);
            self.n_wred.d.next = bits::<COUNTER_BITS>(0);
            self.n_ovf.d.next = bits::<COUNTER_BITS>(0);
            self.sat_fwd.d.next = false;
            self.sat_mark.d.next = false;
            self.sat_wred.d.next = false;
            self.sat_ovf.d.next = false;
        }

        self.out_valid.next = self.o_valid.q.val();
        self.out_decision.next = self.o_dec.q.val();
        self.out_ecn.next = self.o_ecn.q.val();
        self.stat_occupancy_bytes.next = self.occ.q.val();
        self.stat_forwarded_pkts.next = self.n_fwd.q.val();
        self.stat_marked_pkts.next = self.n_mark.q.val();
        self.stat_dropped_wred_pkts.next = self.n_wred.q.val();
        self.stat_dropped_overflow_pkts.next = self.n_ovf.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]): RustHDL's second opinion on the RTL, and the
/// `rusthdl` engine of `ldcp bench`.
pub type WredEcnRustHdl = crate::stepper::RustHdlSim<WredEcn>;

ldcp_sim::wred_ecn_ports!(crate::hand_stepped {
    WredEcn [],
    ldcp_sim::wred_ecn::WredInputs,
    ldcp_sim::wred_ecn::WredOutputs,
    settle 100
});

impl crate::stepper::RustHdlSim<WredEcn> {
    /// Loads the four counters (below their maximum) as if that many
    /// packets had been counted: lets a test reach saturation without 2^32
    /// packets. The `sat` flags stay clear, which is consistent for any
    /// value below the maximum.
    pub fn preset_counters(&mut self, c: ldcp_sim::wred_ecn::Counters) {
        let max = ldcp_sim::wred_ecn::COUNTER_MAX;
        assert!(
            c.forwarded < max && c.marked < max && c.dropped_wred < max && c.dropped_overflow < max
        );
        let u = &mut self.uut;
        u.n_fwd.q.next = (c.forwarded as u64).into();
        u.n_mark.q.next = (c.marked as u64).into();
        u.n_wred.q.next = (c.dropped_wred as u64).into();
        u.n_ovf.q.next = (c.dropped_overflow as u64).into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::wred_ecn::{random_stimulus, WredEcnModel};

    /// The counters stop at 2^32 - 1 in the hardware as in the model.
    #[test]
    fn wred_ecn_counters_saturate_in_rusthdl_simulation() {
        use ldcp_sim::wred_ecn::{ecn, Counters, WredInputs, WredParams, COUNTER_MAX};
        let near = Counters {
            forwarded: COUNTER_MAX - 3,
            marked: COUNTER_MAX - 2,
            dropped_wred: COUNTER_MAX - 5,
            dropped_overflow: COUNTER_MAX - 1,
        };
        let mut sim = WredEcnRustHdl::new();
        let mut model = WredEcnModel::new();
        sim.preset_counters(near);
        model.preset_counters(near);
        // K_max = 0 marks every ECT packet, K = 0 drops every Not-ECT one,
        // and a 16,000-byte packet never fits a 1,000-byte buffer
        let p = WredParams {
            k_min_bytes: 0,
            k_max_bytes: 0,
            k_bytes: 0,
            buf_max_bytes: 1000,
            p_max_raw: 0x8000,
            seed: 1,
        };
        let mut last = None;
        for c in 0..64u32 {
            let (len, e) = match c % 3 {
                0 => (100, ecn::ECT0),
                1 => (100, ecn::NOT_ECT),
                _ => (16_000, ecn::ECT1),
            };
            let i = WredInputs {
                in_valid: c < 40,
                in_len_bytes: len,
                in_ecn: e,
                egress_drain_bytes: 100,
                ..WredInputs::idle(&p)
            };
            let got = sim.step(&i).unwrap();
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}");
            last = Some(got.counters());
        }
        let all = Counters {
            forwarded: COUNTER_MAX,
            marked: COUNTER_MAX,
            dropped_wred: COUNTER_MAX,
            dropped_overflow: COUNTER_MAX,
        };
        assert_eq!(last.unwrap(), all);
    }

    /// RustHDL's own simulation of the block agrees with the golden model
    /// (the Verilog is checked by cosimulation; this checks RustHDL's
    /// semantics of the same source).
    #[test]
    fn wred_ecn_rusthdl_simulation_matches_model() {
        let mut sim = WredEcnRustHdl::new();
        let mut model = WredEcnModel::new();
        for (c, i) in random_stimulus(7, 3_000).iter().enumerate() {
            let got = sim.step(i).expect("RustHDL simulation settles");
            model.tick(i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
