//! `WindowEngineSeq`: the window engine in the fewest cells, for a board
//! the pipelined [`crate::window_engine::WindowEngine`] does not fit (the
//! Alchitry Cu's HX8K, beside the other NIC blocks). Same rules, same
//! arithmetic, same ports plus `in_ready`: one event at a time, applied
//! alone, through one shared datapath.
//!
//! The rules, the fixed-point formats and the error bounds are those of
//! `ldcp_sim::window_engine` (PAWA, Eq. 1 and Eq. 2, the gamma floor, the
//! boundary at cw = 1). Each update is exactly `update()` of that module
//! on one event: `n` unmarked or `n` marked packets, never merged, so the
//! engine equals the functional model `FlowTable` event for event.
//! `ldcp_sim::window_engine::WindowEngineSeqModel` is its cycle model, and
//! cosimulation compares every port every cycle.
//!
//! # Handshake and timing (design constants)
//! An event is taken in a cycle with `in_valid`, `in_ready` and no
//! `reset`; an event offered while `in_ready` is low is not taken (the
//! source holds it). The update of an event taken in cycle t shows on the
//! outputs for one cycle (`out_valid`) in cycle t + [`SEQ_LATENCY_CYCLES`]
//! (27) when it needs the multiply (an increase of cw >= 1, or a new cw
//! below one packet: its pacing interval), else in cycle t +
//! [`SEQ_SHORT_LATENCY_CYCLES`] (7: SETs to one packet or more, decreases
//! that stay there, reads). `in_ready` is low from t + 1 and high again in
//! that cycle: one event per 7 to 27 cycles. The data outputs hold the last
//! update's values between updates.
//!
//! # The datapath, by step (the cycle after the take is step 0)
//! - take: the event and the raw configuration are registered (alpha or
//!   beta by ECE); the table is read at the event's flow.
//! - 0: cw from the table (a SET's value otherwise); the configuration
//!   clamped (alpha and beta to [1, 256], gamma_shift to [1, 8], cw_max to
//!   at least 1.0).
//! - 1: n alpha or n beta; gamma, its mask (the bits at and above gamma's),
//!   n gamma; cw > cw_max; the room below 1.0; the halving cw >> n.
//! - 2: cw + n gamma and whether it passes 1.0, cw - n beta, and the
//!   floors' tests (by gamma's mask).
//! - 3: the value the update reaches without a multiply (`c1`), and
//!   whether it needs the increase `n alpha / cw` (an unmarked ACK at cw >=
//!   1).
//! - 4: the leading one of the multiply's operand: cw for the increase,
//!   the new cw for the pacing interval `RTT / cw` (cw < 1). An update
//!   that needs neither goes on at step 25.
//! - 5: the reciprocal ROM's address, the 8 bits below that leading one.
//! - 6: the ROM's R, and the multiplicand: n alpha, or RTT.
//! - 7: 3 R.
//! - 8..=15: a shift-and-add multiply, two bits of the multiplier per
//!   step (adding 0, R, 2 R or 3 R).
//! - 16..=23: the right shift by 4 + e (increase) or 15 - k (interval)
//!   continued in the same register, two bits per step, then the odd one
//!   (what `update()` and `pace_interval()` floor).
//! - 24: cw + the increase, and whether it passes cw_max.
//! - 25: the new cw (capped at cw_max), written to the table, and the
//!   outputs registered.
//!
//! One multiply serves both uses: an update that increases cw >= 1 ends at
//! cw >= 1, whose interval is 0, and no other update needs the increase.
//!
//! # Reset and power-up
//! `reset` (synchronous) drops the event in flight, including one in its
//! last step: the table holds exactly the updates that were output. The
//! table is block RAM and keeps its values; at configuration every flow
//! holds cw = 1.0.
//!
//! # Ports
//! Those of the pipelined engine, plus `in_ready`; one flat port per field
//! of `WsInputs` (the pipelined engine's `WeInputs`) / `WsOutputs`.

use crate::window_engine::recip_rom;
use ldcp_sim::window_engine::{
    AB_BITS, AB_ONE, CW_BITS, CW_FRAC_BITS, CW_ONE, GAMMA_SHIFT_BITS, GAMMA_SHIFT_MAX,
    GAMMA_SHIFT_MIN, INTERVAL_BITS, NSUM_BITS, N_BITS, RTT_BITS, SEQ_LATENCY_CYCLES,
    SEQ_SHORT_LATENCY_CYCLES,
};
use rust_hdl::prelude::*;

// the steps below are literals (RustHDL's HDL takes no named constants):
// the last step is 25, whose outputs show the cycle after (27 cycles from
// the take), and an update without the multiply goes there from step 4 (7)
const _: () = assert!(SEQ_LATENCY_CYCLES == 27 && SEQ_SHORT_LATENCY_CYCLES == 7);
const _: () = assert!(CW_BITS == 32 && CW_FRAC_BITS == 20);
const _: () = assert!(N_BITS == 4 && AB_BITS == 9 && RTT_BITS == 16 && INTERVAL_BITS == 24);
// n alpha and n beta: 15 * 256 < 2^16, the multiplier's operand
const _: () = assert!(15 * (AB_ONE as usize) < 1 << 16);

/// Bits of the step counter (steps 0..=25, and 26 after the last).
const ST_BITS: usize = 6;
/// The multiply's first step, the shift's first, and the sum's: each
/// phase is the 8 steps of one value of the step's bits 5..3.
const ST_MUL_FIRST: usize = 8;
const ST_SHIFT_FIRST: usize = 16;
const ST_SUM: usize = 24;
const _: () = assert!(
    ST_MUL_FIRST.is_multiple_of(8)
        && ST_SHIFT_FIRST == ST_MUL_FIRST + 8
        && ST_SUM == ST_SHIFT_FIRST + 8
);

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "window_engine_seq",
    doc: "NIC window engine in the fewest cells: PAWA and the gamma floor, 256 flows, one event per 7 to 27 cycles (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
    open: &[],
    subs: &[],
};

/// The module of the formal-size build ([`crate::generate::FB_FORMAL`]
/// flow bits), for its property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the sequential window engine at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: &[],
    subs: &[],
};

/// The Verilog of the engine with 2^`FLOW_BITS` flows, as module `m`.
pub fn verilog<const FLOW_BITS: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, WindowEngineSeq::<FLOW_BITS>::default())
}

/// The formal-size engine's Verilog, for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

/// See the module doc. `FLOW_BITS` sizes the flow table: 8 (256 flows) on
/// the iCE40.
#[derive(LogicBlock)]
pub struct WindowEngineSeq<const FLOW_BITS: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module doc).
    pub reset: Signal<In, Bit>,
    /// An event is offered; taken in a cycle with `in_ready`.
    pub in_valid: Signal<In, Bit>,
    /// Its flow.
    pub in_flow: Signal<In, Bits<FLOW_BITS>>,
    /// SET (1) or ACK (0).
    pub in_set: Signal<In, Bit>,
    /// ACK: ECN-Echo.
    pub in_ece: Signal<In, Bit>,
    /// ACK: packets acknowledged, 0..=15.
    pub in_n_pkts: Signal<In, Bits<N_BITS>>,
    /// SET: the new cw, packets, UQ12.20.
    pub in_cw: Signal<In, Bits<CW_BITS>>,
    /// alpha, UQ1.8 raw (1..=256; clamped).
    pub cfg_alpha: Signal<In, Bits<AB_BITS>>,
    /// beta, UQ1.8 raw (1..=256; clamped).
    pub cfg_beta: Signal<In, Bits<AB_BITS>>,
    /// gamma = 2^-cfg_gamma_shift (1..=8; clamped).
    pub cfg_gamma_shift: Signal<In, Bits<GAMMA_SHIFT_BITS>>,
    /// cw cap, packets, UQ12.20 (at least 1.0; clamped).
    pub cfg_cw_max: Signal<In, Bits<CW_BITS>>,
    /// RTT in pacing-timer ticks.
    pub cfg_rtt_ticks: Signal<In, Bits<RTT_BITS>>,
    /// The engine takes an event this cycle (if no reset).
    pub in_ready: Signal<Out, Bit>,
    /// An update completed (one cycle).
    pub out_valid: Signal<Out, Bit>,
    /// Its flow (held until the next update).
    pub out_flow: Signal<Out, Bits<FLOW_BITS>>,
    /// The new cw, packets, UQ12.20.
    pub out_cw: Signal<Out, Bits<CW_BITS>>,
    /// RTT / cw in ticks when cw < 1, else 0.
    pub out_interval_ticks: Signal<Out, Bits<INTERVAL_BITS>>,
    /// Unmarked packets applied.
    pub out_n_u_pkts: Signal<Out, Bits<NSUM_BITS>>,
    /// Marked packets applied.
    pub out_n_m_pkts: Signal<Out, Bits<NSUM_BITS>>,
    // ---- control
    busy: DFF<Bit>,
    st: DFF<Bits<ST_BITS>>,
    // ---- the event and its configuration (raw at the take, clamped at 0)
    e_flow: DFF<Bits<FLOW_BITS>>,
    e_set: DFF<Bit>,
    e_ece: DFF<Bit>,
    e_n: DFF<Bits<N_BITS>>,
    e_ab: DFF<Bits<AB_BITS>>,
    e_g: DFF<Bits<GAMMA_SHIFT_BITS>>,
    e_cwmax: DFF<Bits<CW_BITS>>,
    e_rtt: DFF<Bits<RTT_BITS>>,
    // ---- step 1 and 2 values
    cw: DFF<Bits<CW_BITS>>,
    nab: DFF<Bits<32>>,
    gamma: DFF<Bits<CW_BITS>>,
    gmask: DFF<Bits<CW_BITS>>,
    gstep: DFF<Bits<CW_BITS>>,
    hi: DFF<Bit>,
    sub: DFF<Bit>,
    big: DFF<Bit>,
    half: DFF<Bits<21>>,
    lo: DFF<Bit>,
    y: DFF<Bits<25>>,
    hg: DFF<Bits<21>>,
    yover: DFF<Bit>,
    diff: DFF<Bits<33>>,
    ltg: DFF<Bit>,
    // ---- step 3 on
    c1: DFF<Bits<CW_BITS>>,
    inc: DFF<Bit>,
    j: DFF<Bits<5>>,
    tiny: DFF<Bit>,
    m: DFF<Bits<16>>,
    p: DFF<Bits<32>>,
    m3: DFF<Bits<18>>,
    rem: DFF<Bits<4>>,
    sum: DFF<Bits<33>>,
    room: DFF<Bits<33>>,
    over: DFF<Bit>,
    // ---- outputs
    z_valid: DFF<Bit>,
    z_flow: DFF<Bits<FLOW_BITS>>,
    z_cw: DFF<Bits<CW_BITS>>,
    z_interval: DFF<Bits<INTERVAL_BITS>>,
    z_nu: DFF<Bits<NSUM_BITS>>,
    z_nm: DFF<Bits<NSUM_BITS>>,
    // ---- combinational
    take: Signal<Local, Bit>,
    fin: Signal<Local, Bits<CW_BITS>>,
    addend: Signal<Local, Bits<18>>,
    s18: Signal<Local, Bits<18>>,
    // ---- constants
    cw_one: Constant<Bits<CW_BITS>>,
    cw_one21: Constant<Bits<21>>,
    low20: Constant<Bits<CW_BITS>>,
    ab_one: Constant<Bits<AB_BITS>>,
    ab_min: Constant<Bits<AB_BITS>>,
    g_min: Constant<Bits<GAMMA_SHIFT_BITS>>,
    g_max: Constant<Bits<GAMMA_SHIFT_BITS>>,
    interval_max: Constant<Bits<INTERVAL_BITS>>,
    /// The step numbers the datapath acts at (see the module doc).
    st_clamp: Constant<Bits<ST_BITS>>,
    st_select: Constant<Bits<ST_BITS>>,
    st_skip: Constant<Bits<ST_BITS>>,
    st_load: Constant<Bits<ST_BITS>>,
    /// The multiply's steps (8..=15) and the shift's (16..=23) are each
    /// one value of the step's bits above 3 (a 3-bit compare, not a
    /// magnitude compare's carry chain in front of P's select)
    ph_mul: Constant<Bits<3>>,
    ph_shift: Constant<Bits<3>>,
    st_last: Constant<Bits<ST_BITS>>,
    /// The floor's shift is j minus this for the increase (4 + e, cw's
    /// leading one at 20 + e = 12 + j)...
    sh_inc: Constant<Bits<5>>,
    /// ... and j plus this for the interval (15 - k, the new cw's leading
    /// one at 19 - k = 12 + j).
    sh_ival: Constant<Bits<5>>,
    /// j for c1's bit 12 + b (the leading-one encoder of step 4).
    j_code: [Constant<Bits<5>>; 20],
    rom: SyncROM<Bits<16>, 8>,
    cw_table: RAM<Bits<CW_BITS>, FLOW_BITS>,
}

impl<const FLOW_BITS: usize> Default for WindowEngineSeq<FLOW_BITS> {
    fn default() -> Self {
        with_defaults!(
            cw_one: Constant::new((CW_ONE as u64).into()),
            cw_one21: Constant::new((CW_ONE as u64).into()),
            low20: Constant::new((CW_ONE as u64 - 1).into()),
            ab_one: Constant::new((AB_ONE as u64).into()),
            ab_min: Constant::new(1.into()),
            g_min: Constant::new((GAMMA_SHIFT_MIN as u64).into()),
            g_max: Constant::new((GAMMA_SHIFT_MAX as u64).into()),
            interval_max: Constant::new(((1u64 << INTERVAL_BITS) - 1).into()),
            st_clamp: Constant::new(0.into()),
            st_select: Constant::new(3.into()),
            st_skip: Constant::new(4.into()),
            st_load: Constant::new(6.into()),
            ph_mul: Constant::new(((ST_MUL_FIRST >> 3) as u64).into()),
            ph_shift: Constant::new(((ST_SHIFT_FIRST >> 3) as u64).into()),
            st_last: Constant::new(25.into()),
            sh_inc: Constant::new(4.into()),
            sh_ival: Constant::new(8.into()),
            j_code: std::array::from_fn(|b| Constant::new((b as u64).into())),
            rom: recip_rom(),
            cw_table: RAM::from(
                (0..1usize << FLOW_BITS).map(|_| Bits::<CW_BITS>::from(CW_ONE as u64)),
            ),
            ;
            clock, reset, in_valid, in_flow, in_set, in_ece, in_n_pkts, in_cw, cfg_alpha,
            cfg_beta, cfg_gamma_shift, cfg_cw_max, cfg_rtt_ticks, in_ready, out_valid, out_flow,
            out_cw, out_interval_ticks, out_n_u_pkts, out_n_m_pkts, busy, st, e_flow, e_set,
            e_ece, e_n, e_ab, e_g, e_cwmax, e_rtt, cw, nab, gamma, gmask, gstep, hi, sub, big,
            half, lo, y, hg, yover, diff, ltg, c1, inc, j, tiny, m, p, m3, rem, sum, room, over, z_valid, z_flow, z_cw,
            z_interval, z_nu, z_nm, take, fin, addend, s18,
        )
    }
}

impl<const FLOW_BITS: usize> Logic for WindowEngineSeq<FLOW_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, st, e_flow, e_set, e_ece, e_n, e_ab, e_g, e_cwmax, e_rtt, cw, nab,
            gamma, gmask, gstep, hi, sub, big, half, lo, y, hg, yover, diff, ltg, c1, inc, j, tiny,
            m, p, m3, rem, sum, room, over, z_valid, z_flow, z_cw, z_interval, z_nu, z_nm
        );
        clock!(self, clock, rom);
        self.cw_table.read_clock.next = self.clock.val();
        self.cw_table.write_clock.next = self.clock.val();

        // ---- the take: the event, the raw configuration, the table read
        self.in_ready.next = !self.busy.q.val();
        self.take.next = self.in_valid.val() & !self.busy.q.val() & !self.reset.val();
        self.cw_table.read_address.next = self.in_flow.val();
        // an idle engine loads its step and the event's registers every
        // cycle (the take only sets busy): the port's valid, late in the
        // cycle from the core's arbitration, then drives busy alone
        if self.take.val() {
            self.busy.d.next = true;
        }
        if !self.busy.q.val() {
            self.st.d.next = bits::<ST_BITS>(0);
            self.e_flow.d.next = self.in_flow.val();
            self.e_set.d.next = self.in_set.val();
            self.e_ece.d.next = self.in_ece.val();
            self.e_n.d.next = self.in_n_pkts.val();
            self.e_ab.d.next = self.cfg_alpha.val();
            if self.in_ece.val() {
                self.e_ab.d.next = self.cfg_beta.val();
            }
            self.e_g.d.next = self.cfg_gamma_shift.val();
            self.e_cwmax.d.next = self.cfg_cw_max.val();
            self.e_rtt.d.next = self.cfg_rtt_ticks.val();
            self.cw.d.next = self.in_cw.val();
        }
        if self.busy.q.val() {
            self.st.d.next = self.st.q.val() + bits::<ST_BITS>(1);
        }
        // an update that needs no multiply (no increase, and a new cw of one
        // packet or more, or below the interval's range) goes from step 4 to
        // the last step
        if self.busy.q.val()
            & (self.st.q.val() == self.st_skip.val())
            & !self.inc.q.val()
            & (self.c1.q.val().get_bits::<12>(20).any() | !self.c1.q.val().get_bits::<20>(12).any())
        {
            self.st.d.next = self.st_last.val();
        }

        // ---- 0: cw from the table; the configuration clamped
        if self.busy.q.val() & (self.st.q.val() == self.st_clamp.val()) {
            if !self.e_set.q.val() {
                self.cw.d.next = self.cw_table.read_data.val();
            }
            if self.e_ab.q.val() > self.ab_one.val() {
                self.e_ab.d.next = self.ab_one.val();
            }
            if !self.e_ab.q.val().any() {
                self.e_ab.d.next = self.ab_min.val();
            }
            if self.e_g.q.val() > self.g_max.val() {
                self.e_g.d.next = self.g_max.val();
            }
            if self.e_g.q.val() < self.g_min.val() {
                self.e_g.d.next = self.g_min.val();
            }
            // below 1.0 <=> no integer bit set
            if !self.e_cwmax.q.val().get_bits::<12>(20).any() {
                self.e_cwmax.d.next = self.cw_one.val();
            }
        }

        // ---- 1: n alpha or n beta; gamma and its mask; n gamma; the cap's
        // test; the regime; the halving
        self.nab.d.next =
            bit_cast::<16, AB_BITS>(self.e_ab.q.val()) * bit_cast::<16, N_BITS>(self.e_n.q.val());
        self.gamma.d.next = self.cw_one.val() >> self.e_g.q.val();
        self.gmask.d.next = !(self.low20.val() >> self.e_g.q.val());
        self.gstep.d.next =
            (bit_cast::<CW_BITS, N_BITS>(self.e_n.q.val()) << 20) >> self.e_g.q.val();
        self.hi.d.next = self.cw.q.val() > self.e_cwmax.q.val();
        self.sub.d.next = !self.cw.q.val().get_bits::<12>(20).any();
        self.big.d.next = self.cw.q.val().get_bits::<11>(21).any()
            | (self.cw.q.val().get_bit(20) & self.cw.q.val().get_bits::<20>(0).any());
        self.half.d.next = self.cw.q.val().get_bits::<21>(0) >> self.e_n.q.val();
        // the room below 1.0 (read only when cw < 1.0)
        self.hg.d.next = self.cw_one21.val() - self.cw.q.val().get_bits::<21>(0);

        // ---- 2: the sums and the floors' tests (a value below gamma has
        // no bit in gamma's mask)
        self.lo.d.next = !(self.cw.q.val() & self.gmask.q.val()).any();
        self.y.d.next = bit_cast::<25, 24>(self.cw.q.val().get_bits::<24>(0))
            + bit_cast::<25, 24>(self.gstep.q.val().get_bits::<24>(0));
        // cw + n gamma > 1.0, beside the add
        self.yover.d.next = self.gstep.q.val() > bit_cast::<CW_BITS, 21>(self.hg.q.val());
        self.diff.d.next =
            bit_cast::<33, CW_BITS>(self.cw.q.val()) - (bit_cast::<33, 32>(self.nab.q.val()) << 12);
        self.ltg.d.next = !(bit_cast::<CW_BITS, 21>(self.half.q.val()) & self.gmask.q.val()).any();

        // ---- 3: what the update reaches without a multiply, and whether
        // it needs the increase
        if self.busy.q.val() & (self.st.q.val() == self.st_select.val()) {
            self.c1.d.next = self.cw.q.val();
            self.inc.d.next = false;
            if self.e_set.q.val() {
                if self.lo.q.val() {
                    self.c1.d.next = self.gamma.q.val();
                }
                if self.hi.q.val() {
                    self.c1.d.next = self.e_cwmax.q.val();
                }
            } else if self.e_n.q.val().any() {
                if !self.e_ece.q.val() {
                    if self.sub.q.val() {
                        self.c1.d.next = bit_cast::<CW_BITS, 25>(self.y.q.val());
                        if self.yover.q.val() {
                            self.c1.d.next = self.cw_one.val();
                        }
                    } else {
                        self.inc.d.next = true;
                    }
                } else if self.big.q.val() {
                    self.c1.d.next = self.diff.q.val().get_bits::<CW_BITS>(0);
                    if self.diff.q.val().get_bit(32) | !self.diff.q.val().get_bits::<12>(20).any() {
                        self.c1.d.next = self.cw_one.val();
                    }
                } else {
                    self.c1.d.next = bit_cast::<CW_BITS, 21>(self.half.q.val());
                    if self.ltg.q.val() {
                        self.c1.d.next = self.gamma.q.val();
                    }
                }
            }
        }

        // ---- 4: the leading one of c1 among its bits 12..31 (j: bit
        // 12 + j); none there: the interval's out-of-range value
        self.j.d.next = bits::<5>(0);
        for b in 0..20 {
            if self.c1.q.val().get_bit(12 + b) {
                self.j.d.next = self.j_code[b].val();
            }
        }
        self.tiny.d.next = !self.c1.q.val().get_bits::<20>(12).any();

        // ---- 5: the ROM's address, the 8 bits below the leading one
        self.rom.address.next = bits::<8>(0);
        for b in 0..20 {
            if self.j.q.val() == self.j_code[b].val() {
                self.rom.address.next = self.c1.q.val().get_bits::<8>(4 + b);
            }
        }

        // ---- 6: R and the multiplicand; the floor's shift: 4 + e = j - 4
        // for the increase, 15 - k = j + 8 for the interval
        if self.st.q.val() == self.st_load.val() {
            self.m.d.next = self.rom.data.val();
            self.p.d.next = bit_cast::<32, RTT_BITS>(self.e_rtt.q.val());
            self.rem.d.next = bit_cast::<4, 5>(self.j.q.val() + self.sh_ival.val());
            if self.inc.q.val() {
                self.p.d.next = self.nab.q.val();
                self.rem.d.next = bit_cast::<4, 5>(self.j.q.val() - self.sh_inc.val());
            }
        }

        // ---- 7: 3 R (kept while M is)
        self.m3.d.next =
            bit_cast::<18, 16>(self.m.q.val()) + (bit_cast::<18, 16>(self.m.q.val()) << 1);

        // ---- 8..=15: the multiply, two bits of the multiplier per step:
        // P = A 2^16 + Q; A += Q[1:0] M, then P >> 2 (A < 2^16 after each
        // step, so A + 3 M < 2^18)
        self.addend.next = bits::<18>(0);
        if self.p.q.val().get_bit(0) {
            self.addend.next = bit_cast::<18, 16>(self.m.q.val());
        }
        if self.p.q.val().get_bit(1) {
            self.addend.next = bit_cast::<18, 16>(self.m.q.val()) << 1;
            if self.p.q.val().get_bit(0) {
                self.addend.next = self.m3.q.val();
            }
        }
        self.s18.next = bit_cast::<18, 16>(self.p.q.val().get_bits::<16>(16)) + self.addend.val();
        if self.st.q.val().get_bits::<3>(3) == self.ph_mul.val() {
            self.p.d.next = (bit_cast::<32, 18>(self.s18.val()) << 14)
                | bit_cast::<32, 14>(self.p.q.val().get_bits::<14>(2));
        }

        // ---- 16..=23: the floor's shift, two bits per step, then the odd one
        if self.st.q.val().get_bits::<3>(3) == self.ph_shift.val() {
            if self.rem.q.val().get_bits::<3>(1).any() {
                self.p.d.next = self.p.q.val() >> 2;
                self.rem.d.next = self.rem.q.val() - bits::<4>(2);
            } else if self.rem.q.val().get_bit(0) {
                self.p.d.next = self.p.q.val() >> 1;
                self.rem.d.next = bits::<4>(0);
            }
        }

        // ---- 24: cw + the increase, and whether it passes cw_max (by the
        // room below the cap, kept from step 4 on: the compare beside the
        // add, not after it)
        self.room.d.next = bit_cast::<33, CW_BITS>(self.e_cwmax.q.val())
            - bit_cast::<33, CW_BITS>(self.c1.q.val());
        self.sum.d.next =
            bit_cast::<33, CW_BITS>(self.c1.q.val()) + bit_cast::<33, CW_BITS>(self.p.q.val());
        self.over.d.next = self.room.q.val().get_bit(32)
            | (self.p.q.val() > self.room.q.val().get_bits::<CW_BITS>(0));

        // ---- 25: the new cw, to the table and the outputs
        self.fin.next = self.c1.q.val();
        if self.inc.q.val() {
            self.fin.next = self.sum.q.val().get_bits::<CW_BITS>(0);
            if self.over.q.val() {
                self.fin.next = self.e_cwmax.q.val();
            }
        }
        self.cw_table.write_address.next = self.e_flow.q.val();
        self.cw_table.write_data.next = self.fin.val();
        self.cw_table.write_enable.next = false;
        self.z_valid.d.next = false;
        if self.busy.q.val() & (self.st.q.val() == self.st_last.val()) & !self.reset.val() {
            self.cw_table.write_enable.next = true;
            self.z_valid.d.next = true;
            self.busy.d.next = false;
            self.z_flow.d.next = self.e_flow.q.val();
            self.z_cw.d.next = self.fin.val();
            self.z_interval.d.next = bits::<INTERVAL_BITS>(0);
            if !self.inc.q.val() & !self.c1.q.val().get_bits::<12>(20).any() {
                self.z_interval.d.next = self.p.q.val().get_bits::<INTERVAL_BITS>(0);
                if self.tiny.q.val() {
                    self.z_interval.d.next = self.interval_max.val();
                }
            }
            self.z_nu.d.next = bits::<NSUM_BITS>(0);
            self.z_nm.d.next = bits::<NSUM_BITS>(0);
            if !self.e_set.q.val() {
                if self.e_ece.q.val() {
                    self.z_nm.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.e_n.q.val());
                } else {
                    self.z_nu.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.e_n.q.val());
                }
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
        }
        self.out_valid.next = self.z_valid.q.val();
        self.out_flow.next = self.z_flow.q.val();
        self.out_cw.next = self.z_cw.q.val();
        self.out_interval_ticks.next = self.z_interval.q.val();
        self.out_n_u_pkts.next = self.z_nu.q.val();
        self.out_n_m_pkts.next = self.z_nm.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]).
pub type WindowEngineSeqRustHdl<const FLOW_BITS: usize> =
    crate::stepper::RustHdlSim<WindowEngineSeq<FLOW_BITS>>;

ldcp_sim::window_engine_seq_ports!(crate::hand_stepped {
    WindowEngineSeq<FLOW_BITS> [const FLOW_BITS: usize],
    ldcp_sim::window_engine::WsInputs,
    ldcp_sim::window_engine::WsOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::window_engine::{stimulus, WindowEngineSeqModel, WindowParams};

    /// RustHDL's own simulation of the engine agrees with its cycle model
    /// (the Verilog is checked by cosimulation).
    #[test]
    fn window_engine_seq_rusthdl_simulation_matches_model() {
        let mut sim = WindowEngineSeqRustHdl::<8>::new();
        let mut model = WindowEngineSeqModel::new(8);
        let mut updates = 0;
        for (c, i) in stimulus(5, 8, WindowParams::default())
            .take(20_000)
            .enumerate()
        {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
            updates += got.out_valid as u32;
        }
        let st = model.stats();
        eprintln!("{updates} updates: {st:?}");
        // every path was taken: increases (the multiply), paced updates
        // (the interval's multiply), and events refused while busy
        assert!(updates > 300 && st.updates == updates as u64, "{st:?}");
        assert!(
            st.increases > 50 && st.paced > 20 && st.refused > 1_000,
            "{st:?}"
        );
    }
}
