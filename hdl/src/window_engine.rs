//! `WindowEngine`: the NIC's per-flow congestion window, one ACK event per
//! clock, PAWA and the gamma floor (draft-dai-tsvwg-pfc-free-congestion-
//! control-01 §2.2, Eq. 1 and Eq. 2, and the cw < 1 rules).
//!
//! The rules, the boundary at cw = 1 (a step ends on it, never crosses it),
//! the fixed-point formats, the merge rule and the error bounds are
//! documented once, with the golden models, in `ldcp_sim::window_engine`;
//! `WindowEngineModel` there mirrors every register of this file, stage by
//! stage under the same names ([`stage`]), and cosimulation compares them
//! every cycle.
//!
//! # One event per clock at 100 MHz: merging
//! The update (normalise, reciprocal table, multiply, shift, add, cap, then
//! the decrease) takes 15 clocks from reading a flow's cw to writing it back:
//! far too long to close as a one-clock loop. Instead every event first
//! spends [`WINDOW`] = 16 cycles in a merge window of slots: an event whose
//! flow already has a slot in the window is merged into it, unmarked and
//! marked packets counted apart (`n_u`, `n_m`) and applied in that order,
//! as Eq. 2 applies a delayed ACK (how far that drifts from one by one,
//! and when it can happen at line rate: `ldcp_sim::window_engine`,
//! Merging). So two updates of one flow leave the
//! window at least 16 cycles apart, and the second reads the table after
//! the first has written it (15 < 16): no forwarding, no stall. The input
//! never stalls; a merged event produces no update of its own. Merged counts
//! cannot overflow: at most 16 events of n <= 15 meet in a slot (240 < 256).
//!
//! # Events
//! - ACK (`in_set` = 0): `in_n_pkts` (0..=15) packets acknowledged,
//!   `in_ece`. An ACK with n = 0 changes nothing but still produces an
//!   update: a read.
//! - SET (`in_set` = 1): cw := `in_cw` clamped to [gamma, cw_max] (the
//!   limits in force when its slot leaves the window, stage X); it
//!   replaces what its flow's slot had gathered (it came later), and ACKs
//!   that follow merge after it. The driver's set, reset-to-initial and read
//!   of a flow are events like the others.
//!
//! # Latency and outputs
//! An event presented in cycle t that starts a slot shows its update on the
//! outputs in cycle t + 38 ([`LATENCY_CYCLES`]): the flow, its new cw, the
//! packets applied, and the pacing interval RTT / cw (ticks) when cw < 1.
//!
//! # Reset and power-up
//! `reset` (synchronous) writes the update at the table write (stage O) at
//! its edge, as without the reset, and drops every other event in flight:
//! those in the input register, the window and stages B..N never reach the
//! table; those at O..T (at most six, already in the table) lose their
//! outputs. So the table holds exactly the updates that reached the write,
//! in order; no output appears for any event in flight at the reset
//! (`window_engine_reset_keeps_what_reached_the_table` in `ldcp-sim` checks
//! it). The table is block RAM and keeps its values; at configuration every
//! flow holds cw = 1.0. Illegal parameter values are clamped: alpha and beta
//! to [1, 256], gamma_shift to [1, 8], cw_max to at least 1.0.
//!
//! # Ports
//! One flat port per field of the model's declaration (`WeInputs`,
//! `WeOutputs`), not `LogicInterface` bundles: RustHDL names a bundle's
//! ports `bundle$field`, and these names are the ones users connect.

use crate::mul::{PipelinedMul16, PipelinedMul16Bram};
use ldcp_sim::window_engine::stage;
use ldcp_sim::window_engine::{
    AB_BITS, AB_ONE, CW_BITS, CW_FRAC_BITS, CW_ONE, GAMMA_SHIFT_BITS, GAMMA_SHIFT_MAX,
    GAMMA_SHIFT_MIN, INTERVAL_BITS, LATENCY_CYCLES, NSUM_BITS, N_BITS, RECIP_TABLE, RTT_BITS,
    WINDOW,
};
use rust_hdl::prelude::*;

const _: () = assert!(WINDOW == 16 && LATENCY_CYCLES == 38 && CW_BITS == 32 && CW_FRAC_BITS == 20);
const _: () = assert!(NSUM_BITS == 8 && N_BITS == 4 && INTERVAL_BITS == 24);
// the stages' shifts below are literals (RustHDL's HDL has no named shift
// constants): the exponent is split as e = (e & 12) + (e & 3), and the
// reciprocal ROM's index sits 12 = CW_FRAC_BITS - 8 bits above e
const _: () = assert!(CW_FRAC_BITS - 8 == 12 && GAMMA_SHIFT_BITS == 4);

/// Bits of a merged count with one more for the 33-bit sums and headrooms.
const W33: usize = CW_BITS + 1;
/// Bits of n alpha and n beta: a count of NSUM_BITS times alpha or beta
/// as the configuration registers hold them (clamped to <= 256) fits, so
/// the product's upper bits are always 0 and are not looked at.
const NAB_BITS: usize = 16;
const _: () = assert!(((1 << NSUM_BITS) - 1) * (AB_ONE as usize) < 1 << NAB_BITS);
/// Bits of the halvings count (at most 8 matter: gamma >= 2^-8).
const HS_BITS: usize = 4;
/// Bits of the exponent e = floor(log2 int(cw)), 0..=11.
const E_BITS: usize = 4;
/// Bits of the interval's normalisation shift k, 0..=7.
const K_BITS: usize = 3;

/// Stages the halvings count is carried through: B ..= M.
const HS_STAGES: usize = stage::M + 1;
/// Stages the regime bit is carried through: C ..= K.
const SUB_STAGES: usize = stage::K - stage::C + 1;
/// Stages the exponent is carried through: C ..= I.
const E_STAGES: usize = stage::I - stage::C + 1;
/// Stages n_m beta is carried through: E ..= L.
const NB_STAGES: usize = stage::L - stage::E + 1;
/// The interval's stages: P ..= T.
const IVAL_STAGES: usize = stage::T - stage::P + 1;

/// The reciprocal ROM, from the one table the models use.
pub(crate) fn recip_rom() -> SyncROM<Bits<16>, 8> {
    SyncROM::from(RECIP_TABLE.iter().map(|&r| Bits::<16>::from(r as u64)))
}

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "window_engine",
    doc: "NIC window engine, PAWA and the gamma floor, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
    open: OPEN,
    subs: &[],
};

/// Sub-block outputs left open: the upper half of n alpha and n beta, 0 by
/// construction (`NAB_BITS`).
const OPEN: &[&str] = &["mul_na$p", "mul_nb$p"];

/// The module of the formal-size build, 4 flows
/// ([`crate::generate::FB_FORMAL`]): the block's name and ports, for its
/// property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the window engine at the formal size its property harness proves (generate::FB_FORMAL flow bits)",
    open: OPEN,
    subs: &[],
};

/// The module of the simulation-size build, 4,096 flows.
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "window_engine_4k",
    doc: "the window engine with 4,096 flows (simulation size)",
    open: OPEN,
    subs: &[],
};

/// The Verilog of the engine with 2^`FLOW_BITS` flows, as module `m`.
pub fn verilog<const FLOW_BITS: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, WindowEngine::<FLOW_BITS>::default())
}

/// The formal-size engine's Verilog (module [`MODULE_FORMAL`], 4 flows:
/// [`crate::generate::FB_FORMAL`]), for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    verilog::<{ crate::generate::FB_FORMAL }>(&MODULE_FORMAL)
}

/// See the module doc. `FLOW_BITS` sizes the flow table: 8 (256 flows) on
/// the iCE40, 12 (4,096) in simulation.
#[derive(LogicBlock)]
pub struct WindowEngine<const FLOW_BITS: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module doc).
    pub reset: Signal<In, Bit>,
    /// An event arrives (never refused).
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
    /// An update completed.
    pub out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub out_flow: Signal<Out, Bits<FLOW_BITS>>,
    /// The new cw, packets, UQ12.20.
    pub out_cw: Signal<Out, Bits<CW_BITS>>,
    /// RTT / cw in ticks when cw < 1, else 0.
    pub out_interval_ticks: Signal<Out, Bits<INTERVAL_BITS>>,
    /// Unmarked packets applied.
    pub out_n_u_pkts: Signal<Out, Bits<NSUM_BITS>>,
    /// Marked packets applied.
    pub out_n_m_pkts: Signal<Out, Bits<NSUM_BITS>>,
    // ---- configuration: registered as given, then clamped
    cr_alpha: DFF<Bits<AB_BITS>>,
    cr_beta: DFF<Bits<AB_BITS>>,
    cr_g: DFF<Bits<GAMMA_SHIFT_BITS>>,
    cr_cwmax: DFF<Bits<CW_BITS>>,
    cr_rtt: DFF<Bits<RTT_BITS>>,
    cf_alpha: DFF<Bits<AB_BITS>>,
    cf_beta: DFF<Bits<AB_BITS>>,
    cf_g: DFF<Bits<GAMMA_SHIFT_BITS>>,
    cf_gsh: DFF<Bits<5>>,
    cf_cwmax: DFF<Bits<CW_BITS>>,
    cf_rtt: DFF<Bits<RTT_BITS>>,
    cf_gamma: DFF<Bits<CW_BITS>>,
    // ---- I, the input register, then the window's slots 0..15, then X
    // (a slot: occupied, flow, SET and its value, unmarked and marked
    // packets gathered; X adds the value below gamma / above cw_max)
    ir_v: DFF<Bit>,
    ir_flow: DFF<Bits<FLOW_BITS>>,
    ir_set: DFF<Bit>,
    ir_value: DFF<Bits<CW_BITS>>,
    ir_nu: DFF<Bits<NSUM_BITS>>,
    ir_nm: DFF<Bits<NSUM_BITS>>,
    sl_v: [DFF<Bit>; WINDOW],
    sl_flow: [DFF<Bits<FLOW_BITS>>; WINDOW],
    sl_set: [DFF<Bit>; WINDOW],
    sl_value: [DFF<Bits<CW_BITS>>; WINDOW],
    sl_nu: [DFF<Bits<NSUM_BITS>>; WINDOW],
    sl_nm: [DFF<Bits<NSUM_BITS>>; WINDOW],
    hit: [Signal<Local, Bit>; WINDOW - 1],
    merged: Signal<Local, Bit>,
    x_v: DFF<Bit>,
    x_flow: DFF<Bits<FLOW_BITS>>,
    x_set: DFF<Bit>,
    x_value: DFF<Bits<CW_BITS>>,
    x_lo: DFF<Bit>,
    x_hi: DFF<Bit>,
    x_nu: DFF<Bits<NSUM_BITS>>,
    x_nm: DFF<Bits<NSUM_BITS>>,
    // ---- the update's stages B..T: what each stage carries. The lanes of
    // every stage are indexed by stage; the others from their first stage
    // (ld_sub, ld_e from C; ld_nb from E; ld_isub, ld_tiny, ld_k from P)
    ld_v: [DFF<Bit>; stage::LANES],
    ld_flow: [DFF<Bits<FLOW_BITS>>; stage::LANES],
    ld_nu: [DFF<Bits<NSUM_BITS>>; stage::LANES],
    ld_nm: [DFF<Bits<NSUM_BITS>>; stage::LANES],
    ld_c: [DFF<Bits<CW_BITS>>; stage::LANES],
    ld_hs: [DFF<Bits<HS_BITS>>; HS_STAGES],
    ld_sub: [DFF<Bit>; SUB_STAGES],
    ld_e: [DFF<Bits<E_BITS>>; E_STAGES],
    ld_nb: [DFF<Bits<NAB_BITS>>; NB_STAGES],
    ld_isub: [DFF<Bit>; IVAL_STAGES],
    ld_tiny: [DFF<Bit>; IVAL_STAGES],
    ld_k: [DFF<Bits<K_BITS>>; IVAL_STAGES],
    // ---- what one stage computes for the next (named stage_value)
    d_t: DFF<Bits<CW_BITS>>,
    e_na: DFF<Bits<NAB_BITS>>,
    i_u: DFF<Bits<CW_BITS>>,
    j_inc: DFF<Bits<CW_BITS>>,
    j_gstep: DFF<Bits<CW_BITS>>,
    j_h: DFF<Bits<W33>>,
    j_hg: DFF<Bits<W33>>,
    k_x: DFF<Bits<W33>>,
    k_y: DFF<Bits<W33>>,
    k_over: DFF<Bit>,
    k_yover: DFF<Bit>,
    m_big: DFF<Bit>,
    m_lt: DFF<Bit>,
    m_x: DFF<Bits<W33>>,
    m_y: DFF<Bits<W33>>,
    m_gthr: DFF<Bits<CW_BITS>>,
    n_big: DFF<Bit>,
    n_x: DFF<Bits<W33>>,
    n_y: DFF<Bits<W33>>,
    n_ltg: DFF<Bit>,
    // ---- the output registers
    z_valid: DFF<Bit>,
    z_flow: DFF<Bits<FLOW_BITS>>,
    z_cw: DFF<Bits<CW_BITS>>,
    z_interval: DFF<Bits<INTERVAL_BITS>>,
    z_nu: DFF<Bits<NSUM_BITS>>,
    z_nm: DFF<Bits<NSUM_BITS>>,
    // ---- combinational (what a stage reads from an indexed register, where
    // it is cast: RustHDL's HDL evaluates a cast's width outside the stage)
    d_e_lo: Signal<Local, Bits<E_BITS>>,
    j_nu: Signal<Local, Bits<NSUM_BITS>>,
    j_c: Signal<Local, Bits<CW_BITS>>,
    k_c: Signal<Local, Bits<CW_BITS>>,
    m_c: Signal<Local, Bits<CW_BITS>>,
    m_nb: Signal<Local, Bits<NAB_BITS>>,
    p_c: Signal<Local, Bits<CW_BITS>>,
    p_k: Signal<Local, Bits<K_BITS>>,
    t_k: Signal<Local, Bits<K_BITS>>,
    rom_shift: Signal<Local, Bits<5>>,
    half: Signal<Local, Bits<CW_BITS>>,
    ival_shift: Signal<Local, Bits<4>>,
    // ---- constants, by meaning
    cw_one: Constant<Bits<CW_BITS>>,
    cw_one33: Constant<Bits<W33>>,
    ab_one: Constant<Bits<AB_BITS>>,
    ab_min: Constant<Bits<AB_BITS>>,
    g_min: Constant<Bits<GAMMA_SHIFT_BITS>>,
    g_max: Constant<Bits<GAMMA_SHIFT_BITS>>,
    cw_frac: Constant<Bits<5>>,
    halvings_max: Constant<Bits<NSUM_BITS>>,
    halvings_cap: Constant<Bits<HS_BITS>>,
    rom_index_at: Constant<Bits<5>>,
    ival_shift_at: Constant<Bits<4>>,
    e_hi: Constant<Bits<E_BITS>>,
    e_lo: Constant<Bits<E_BITS>>,
    interval_max: Constant<Bits<INTERVAL_BITS>>,
    /// e for cw's integer bit 21 + b (the priority encoder of stage C).
    e_code: [Constant<Bits<E_BITS>>; 11],
    /// k for cw's fraction bit 12 + b (the priority encoder of stage P).
    k_code: [Constant<Bits<K_BITS>>; 8],
    // ---- the multipliers, ROMs and the flow table
    mul_na: PipelinedMul16,
    mul_nb: PipelinedMul16,
    mul_p: PipelinedMul16Bram,
    mul_i: PipelinedMul16Bram,
    rom: SyncROM<Bits<16>, 8>,
    rom2: SyncROM<Bits<16>, 8>,
    cw_table: RAM<Bits<CW_BITS>, FLOW_BITS>,
}

impl<const FLOW_BITS: usize> Default for WindowEngine<FLOW_BITS> {
    fn default() -> Self {
        with_defaults!(
            cw_one: Constant::new((CW_ONE as u64).into()),
            cw_one33: Constant::new((CW_ONE as u64).into()),
            ab_one: Constant::new((AB_ONE as u64).into()),
            ab_min: Constant::new(1.into()),
            g_min: Constant::new((GAMMA_SHIFT_MIN as u64).into()),
            g_max: Constant::new((GAMMA_SHIFT_MAX as u64).into()),
            cw_frac: Constant::new((CW_FRAC_BITS as u64).into()),
            halvings_max: Constant::new((GAMMA_SHIFT_MAX as u64).into()),
            halvings_cap: Constant::new((GAMMA_SHIFT_MAX as u64).into()),
            rom_index_at: Constant::new(((CW_FRAC_BITS - 8) as u64).into()),
            ival_shift_at: Constant::new(15.into()),
            e_hi: Constant::new(0b1100.into()),
            e_lo: Constant::new(0b0011.into()),
            interval_max: Constant::new(((1u64 << INTERVAL_BITS) - 1).into()),
            e_code: std::array::from_fn(|b| Constant::new((b as u64 + 1).into())),
            k_code: std::array::from_fn(|b| Constant::new((7 - b as u64).into())),
            rom: recip_rom(),
            rom2: recip_rom(),
            cw_table: RAM::from(
                (0..1usize << FLOW_BITS).map(|_| Bits::<CW_BITS>::from(CW_ONE as u64)),
            ),
            ;
            clock, reset, in_valid, in_flow, in_set, in_ece, in_n_pkts, in_cw, cfg_alpha,
            cfg_beta, cfg_gamma_shift, cfg_cw_max, cfg_rtt_ticks, out_valid, out_flow, out_cw,
            out_interval_ticks, out_n_u_pkts, out_n_m_pkts, cr_alpha, cr_beta, cr_g, cr_cwmax,
            cr_rtt, cf_alpha, cf_beta, cf_g, cf_gsh, cf_cwmax, cf_rtt, cf_gamma, ir_v, ir_flow,
            ir_set, ir_value, ir_nu, ir_nm, sl_v, sl_flow, sl_set, sl_value, sl_nu, sl_nm, hit,
            merged, x_v, x_flow, x_set, x_value, x_lo, x_hi, x_nu, x_nm, ld_v, ld_flow, ld_nu, ld_nm, ld_c, ld_hs, ld_sub, ld_e, ld_nb, ld_isub,
            ld_tiny, ld_k, d_t, e_na, i_u, j_inc, j_gstep, j_h, j_hg, k_x, k_y, k_over, k_yover,
            m_big, m_lt, m_x, m_y, m_gthr, n_big, n_x, n_y, n_ltg, z_valid, z_flow, z_cw,
            z_interval, z_nu, z_nm, d_e_lo, j_nu, j_c, k_c, m_c, m_nb, p_c, p_k, t_k,
            rom_shift, half, ival_shift, mul_na, mul_nb, mul_p, mul_i,
        )
    }
}

// the stages' loop variables are the model's stage names; a register that
// exists from stage S on is indexed `[X - S]`, so its first stage reads
// `[S - S]` (clippy's eq_op)
#[allow(non_snake_case, clippy::eq_op)]
impl<const FLOW_BITS: usize> Logic for WindowEngine<FLOW_BITS> {
    // RustHDL's HDL resolves an array index only through loop variables: a
    // stage's logic is written in a one-pass loop whose variable is the
    // stage's name (`for L in stage::L..stage::L + 1`), and the first
    // stages of the partial lanes (C, E, P) are bound around them all. A
    // stage reads the registers of the stage before it (`L - 1`, K).
    // not formatted: the stages sit at one indentation inside the loops
    // that bind C, E and P
    #[rustfmt::skip]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cr_alpha, cr_beta, cr_g, cr_cwmax, cr_rtt, cf_alpha, cf_beta, cf_g,
            cf_gsh, cf_cwmax, cf_rtt, cf_gamma, ir_v, ir_flow, ir_set, ir_value, ir_nu, ir_nm,
            x_v, x_flow, x_set, x_value, x_lo, x_hi, x_nu, x_nm, d_t, e_na, i_u,
            j_inc, j_gstep, j_h, j_hg, k_x, k_y, k_over, k_yover, m_big, m_lt, m_x, m_y, m_gthr,
            n_big, n_x, n_y, n_ltg, z_valid, z_flow, z_cw, z_interval, z_nu, z_nm
        );
        clock!(self, clock, mul_na, mul_nb, mul_p, mul_i, rom, rom2);
        self.cw_table.read_clock.next = self.clock.val();
        self.cw_table.write_clock.next = self.clock.val();
        for j in 0..WINDOW {
            self.sl_v[j].clock.next = self.clock.val();
            self.sl_flow[j].clock.next = self.clock.val();
            self.sl_set[j].clock.next = self.clock.val();
            self.sl_value[j].clock.next = self.clock.val();
            self.sl_nu[j].clock.next = self.clock.val();
            self.sl_nm[j].clock.next = self.clock.val();
        }
        for s in 0..stage::LANES {
            self.ld_v[s].clock.next = self.clock.val();
            self.ld_flow[s].clock.next = self.clock.val();
            self.ld_nu[s].clock.next = self.clock.val();
            self.ld_nm[s].clock.next = self.clock.val();
            self.ld_c[s].clock.next = self.clock.val();
        }
        for s in 0..HS_STAGES {
            self.ld_hs[s].clock.next = self.clock.val();
        }
        for s in 0..SUB_STAGES {
            self.ld_sub[s].clock.next = self.clock.val();
        }
        for s in 0..E_STAGES {
            self.ld_e[s].clock.next = self.clock.val();
        }
        for s in 0..NB_STAGES {
            self.ld_nb[s].clock.next = self.clock.val();
        }
        for s in 0..IVAL_STAGES {
            self.ld_isub[s].clock.next = self.clock.val();
            self.ld_tiny[s].clock.next = self.clock.val();
            self.ld_k[s].clock.next = self.clock.val();
        }

        // ---- configuration: registered as given, then clamped to the legal ranges
        self.cr_alpha.d.next = self.cfg_alpha.val();
        self.cr_beta.d.next = self.cfg_beta.val();
        self.cr_g.d.next = self.cfg_gamma_shift.val();
        self.cr_cwmax.d.next = self.cfg_cw_max.val();
        self.cr_rtt.d.next = self.cfg_rtt_ticks.val();
        self.cf_alpha.d.next = self.cr_alpha.q.val();
        if self.cr_alpha.q.val() > self.ab_one.val() {
            self.cf_alpha.d.next = self.ab_one.val();
        }
        if !self.cr_alpha.q.val().any() {
            self.cf_alpha.d.next = self.ab_min.val();
        }
        self.cf_beta.d.next = self.cr_beta.q.val();
        if self.cr_beta.q.val() > self.ab_one.val() {
            self.cf_beta.d.next = self.ab_one.val();
        }
        if !self.cr_beta.q.val().any() {
            self.cf_beta.d.next = self.ab_min.val();
        }
        self.cf_g.d.next = self.cr_g.q.val();
        self.cf_gsh.d.next = self.cw_frac.val() - bit_cast::<5, 4>(self.cr_g.q.val());
        if self.cr_g.q.val() > self.g_max.val() {
            self.cf_g.d.next = self.g_max.val();
            self.cf_gsh.d.next = self.cw_frac.val() - bit_cast::<5, 4>(self.g_max.val());
        }
        if self.cr_g.q.val() < self.g_min.val() {
            self.cf_g.d.next = self.g_min.val();
            self.cf_gsh.d.next = self.cw_frac.val() - bit_cast::<5, 4>(self.g_min.val());
        }
        self.cf_cwmax.d.next = self.cr_cwmax.q.val();
        // below 1.0 <=> no integer bit set (a 12-input NOR, not a comparator)
        if !self.cr_cwmax.q.val().get_bits::<12>(20).any() {
            self.cf_cwmax.d.next = self.cw_one.val();
        }
        self.cf_rtt.d.next = self.cr_rtt.q.val();
        self.cf_gamma.d.next = self.cw_one.val() >> self.cf_g.q.val();

        // ---- I: counts by kind (the SET value meets the limits in X, off the
        // input's path: a compare here put the core's port mux in front of it)
        self.ir_v.d.next = self.in_valid.val() & !self.reset.val();
        self.ir_flow.d.next = self.in_flow.val();
        self.ir_set.d.next = self.in_set.val();
        self.ir_value.d.next = self.in_cw.val();
        self.ir_nu.d.next = bits::<NSUM_BITS>(0);
        self.ir_nm.d.next = bits::<NSUM_BITS>(0);
        if !self.in_set.val() {
            if self.in_ece.val() {
                self.ir_nm.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.in_n_pkts.val());
            } else {
                self.ir_nu.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.in_n_pkts.val());
            }
        }

        // ---- the window: slot j moves to slot j + 1, and I merges into the
        // slot of its flow (a SET replaces what the slot gathered)
        self.merged.next = false;
        for j in 0..(WINDOW - 1) {
            self.hit[j].next = self.sl_v[j].q.val()
                & self.ir_v.q.val()
                & (self.sl_flow[j].q.val() == self.ir_flow.q.val());
            if self.hit[j].val() {
                self.merged.next = true;
            }
            self.sl_v[j + 1].d.next = self.sl_v[j].q.val() & !self.reset.val();
            self.sl_flow[j + 1].d.next = self.sl_flow[j].q.val();
            self.sl_set[j + 1].d.next = self.sl_set[j].q.val();
            self.sl_value[j + 1].d.next = self.sl_value[j].q.val();
            self.sl_nu[j + 1].d.next = self.sl_nu[j].q.val();
            self.sl_nm[j + 1].d.next = self.sl_nm[j].q.val();
            if self.hit[j].val() {
                if self.ir_set.q.val() {
                    self.sl_set[j + 1].d.next = true;
                    self.sl_value[j + 1].d.next = self.ir_value.q.val();
                    self.sl_nu[j + 1].d.next = self.ir_nu.q.val();
                    self.sl_nm[j + 1].d.next = self.ir_nm.q.val();
                } else {
                    self.sl_nu[j + 1].d.next = self.sl_nu[j].q.val() + self.ir_nu.q.val();
                    self.sl_nm[j + 1].d.next = self.sl_nm[j].q.val() + self.ir_nm.q.val();
                }
            }
        }
        // slot 0 takes I unless I merged
        self.sl_v[0].d.next = self.ir_v.q.val() & !self.merged.val() & !self.reset.val();
        self.sl_flow[0].d.next = self.ir_flow.q.val();
        self.sl_set[0].d.next = self.ir_set.q.val();
        self.sl_value[0].d.next = self.ir_value.q.val();
        self.sl_nu[0].d.next = self.ir_nu.q.val();
        self.sl_nm[0].d.next = self.ir_nm.q.val();
        // X: out of the last slot; the table is read at the same edge
        for last in (WINDOW - 1)..WINDOW {
            self.x_v.d.next = self.sl_v[last].q.val() & !self.reset.val();
            self.x_flow.d.next = self.sl_flow[last].q.val();
            self.x_set.d.next = self.sl_set[last].q.val();
            self.x_value.d.next = self.sl_value[last].q.val();
            // the SET value against the limits in force as it leaves the window
            self.x_lo.d.next = self.sl_value[last].q.val() < self.cf_gamma.q.val();
            self.x_hi.d.next = self.sl_value[last].q.val() > self.cf_cwmax.q.val();
            self.x_nu.d.next = self.sl_nu[last].q.val();
            self.x_nm.d.next = self.sl_nm[last].q.val();
            self.cw_table.read_address.next = self.sl_flow[last].q.val();
        }

        // ---- what every stage carries to the next (a stage below overrides
        // what it computes)
        for s in 1..stage::LANES {
            self.ld_v[s].d.next = self.ld_v[s - 1].q.val() & !self.reset.val();
            self.ld_flow[s].d.next = self.ld_flow[s - 1].q.val();
            self.ld_nu[s].d.next = self.ld_nu[s - 1].q.val();
            self.ld_nm[s].d.next = self.ld_nm[s - 1].q.val();
            self.ld_c[s].d.next = self.ld_c[s - 1].q.val();
        }
        for s in 1..HS_STAGES {
            self.ld_hs[s].d.next = self.ld_hs[s - 1].q.val();
        }
        for s in 1..SUB_STAGES {
            self.ld_sub[s].d.next = self.ld_sub[s - 1].q.val();
        }
        for s in 1..E_STAGES {
            self.ld_e[s].d.next = self.ld_e[s - 1].q.val();
        }
        for s in 1..NB_STAGES {
            self.ld_nb[s].d.next = self.ld_nb[s - 1].q.val();
        }
        for s in 1..IVAL_STAGES {
            self.ld_isub[s].d.next = self.ld_isub[s - 1].q.val();
            self.ld_tiny[s].d.next = self.ld_tiny[s - 1].q.val();
            self.ld_k[s].d.next = self.ld_k[s - 1].q.val();
        }

        for C in stage::C..(stage::C + 1) { for E in stage::E..(stage::E + 1) { for P in stage::P..(stage::P + 1) {
        // ---- B: the starting cw (the table's, or a clamped SET value)
        for B in stage::B..(stage::B + 1) {
            self.ld_v[B].d.next = self.x_v.q.val() & !self.reset.val();
            self.ld_flow[B].d.next = self.x_flow.q.val();
            self.ld_nu[B].d.next = self.x_nu.q.val();
            self.ld_nm[B].d.next = self.x_nm.q.val();
            self.ld_hs[B].d.next = self.x_nm.q.val().get_bits::<HS_BITS>(0);
            if self.x_nm.q.val() > self.halvings_max.val() {
                self.ld_hs[B].d.next = self.halvings_cap.val();
            }
            self.ld_c[B].d.next = self.cw_table.read_data.val();
            if self.x_set.q.val() {
                self.ld_c[B].d.next = self.x_value.q.val();
                if self.x_hi.q.val() {
                    self.ld_c[B].d.next = self.cf_cwmax.q.val();
                }
                if self.x_lo.q.val() {
                    self.ld_c[B].d.next = self.cf_gamma.q.val();
                }
            }
            // the 8-bit count as the sliced operand: two nibbles, so the
            // upper partial products and the last adder are trimmed away
            self.mul_na.a.next = bit_cast::<16, AB_BITS>(self.cf_alpha.q.val());
            self.mul_na.b.next = bit_cast::<16, NSUM_BITS>(self.x_nu.q.val());
            self.mul_nb.a.next = bit_cast::<16, AB_BITS>(self.cf_beta.q.val());
            self.mul_nb.b.next = bit_cast::<16, NSUM_BITS>(self.x_nm.q.val());
        }

        // ---- C: regime (cw < 1) and exponent e = floor(log2(int(cw))), a
        // priority encoder of cw's integer bits 21..31
        self.ld_sub[C - C].d.next = !self.ld_c[C - 1].q.val().get_bits::<12>(20).any();
        self.ld_e[C - C].d.next = bits::<E_BITS>(0);
        for b in 0..11 {
            if self.ld_c[C - 1].q.val().get_bit(21 + b) {
                self.ld_e[C - C].d.next = self.e_code[b].val();
            }
        }

        // ---- D: t = c >> (e & 12); its cycle addresses the ROM with the
        // 8 bits below the leading one, t >> (12 + (e & 3))
        for D in stage::D..(stage::D + 1) {
            self.d_t.d.next = self.ld_c[D - 1].q.val()
                >> (self.ld_e[D - 1 - C].q.val() & self.e_hi.val());
            self.d_e_lo.next = self.ld_e[D - C].q.val() & self.e_lo.val();
            self.rom_shift.next =
                self.rom_index_at.val() + bit_cast::<5, 4>(self.d_e_lo.val());
            self.rom.address.next =
                bit_cast::<8, CW_BITS>(self.d_t.q.val() >> self.rom_shift.val());
        }

        // ---- E: n_u alpha and n_m beta arrive, in 16 bits (the counts are 8
        // bits and the configuration registers hold alpha, beta <= 256: see
        // NAB_BITS); the multiplier takes n_u alpha * R
        self.e_na.d.next = bit_cast::<NAB_BITS, 32>(self.mul_na.p.val());
        self.ld_nb[E - E].d.next = bit_cast::<NAB_BITS, 32>(self.mul_nb.p.val());
        self.mul_p.a.next = self.e_na.q.val();
        self.mul_p.b.next = self.rom.data.val();

        // ---- F, G, H: beside the multiplier; I: u = p >> (4 + (e & 12))
        for I in stage::I..(stage::I + 1) {
            self.i_u.d.next = self.mul_p.p.val()
                >> (bits::<4>(4) + (self.ld_e[I - 1 - C].q.val() & self.e_hi.val()));
        }

        // ---- J: inc = u >> (e & 3); n_u gamma; the headrooms to the caps,
        // so that K compares beside its adds
        for J in stage::J..(stage::J + 1) {
            self.j_inc.d.next =
                self.i_u.q.val() >> (self.ld_e[J - 1 - C].q.val() & self.e_lo.val());
            self.j_nu.next = self.ld_nu[J - 1].q.val();
            self.j_c.next = self.ld_c[J - 1].q.val();
            self.j_gstep.d.next =
                bit_cast::<CW_BITS, NSUM_BITS>(self.j_nu.val()) << self.cf_gsh.q.val();
            self.j_h.d.next = bit_cast::<W33, CW_BITS>(self.cf_cwmax.q.val())
                - bit_cast::<W33, CW_BITS>(self.j_c.val());
            self.j_hg.d.next =
                self.cw_one33.val() - bit_cast::<W33, CW_BITS>(self.j_c.val());
        }

        // ---- K: both sums, and whether each passes its cap
        for K in stage::K..(stage::K + 1) {
            self.k_c.next = self.ld_c[K - 1].q.val();
            self.k_x.d.next = bit_cast::<W33, CW_BITS>(self.k_c.val())
                + bit_cast::<W33, CW_BITS>(self.j_inc.q.val());
            self.k_y.d.next = bit_cast::<W33, CW_BITS>(self.k_c.val())
                + bit_cast::<W33, CW_BITS>(self.j_gstep.q.val());
        }
        self.k_over.d.next = self.j_h.q.val().get_bit(32)
            | (self.j_inc.q.val() > self.j_h.q.val().get_bits::<CW_BITS>(0));
        self.k_yover.d.next = self.j_hg.q.val().get_bit(32)
            | (self.j_gstep.q.val() > self.j_hg.q.val().get_bits::<CW_BITS>(0));

        // ---- L: the increase, capped (at 1 below 1, at cw_max above)
        for L in stage::L..(stage::L + 1) {
            if self.ld_nu[L - 1].q.val().any() {
                if self.ld_sub[L - 1 - C].q.val() {
                    self.ld_c[L].d.next = self.k_y.q.val().get_bits::<CW_BITS>(0);
                    if self.k_yover.q.val() {
                        self.ld_c[L].d.next = self.cw_one.val();
                    }
                } else {
                    self.ld_c[L].d.next = self.k_x.q.val().get_bits::<CW_BITS>(0);
                    if self.k_over.q.val() {
                        self.ld_c[L].d.next = self.cf_cwmax.q.val();
                    }
                }
            }
        }

        // ---- M: both decreases: linear (above 1, and whether it ends below
        // 1, decided beside it) and the first halvings; gamma << (the
        // remaining halvings), compared in N so that O only selects
        for M in stage::M..(stage::M + 1) {
            self.m_c.next = self.ld_c[M - 1].q.val();
            self.m_nb.next = self.ld_nb[M - 1 - E].q.val();
            self.m_big.d.next = self.m_c.val() > self.cw_one.val();
            self.m_lt.d.next = bit_cast::<W33, CW_BITS>(self.m_c.val())
                < (bit_cast::<W33, NAB_BITS>(self.m_nb.val()) << 12)
                    + self.cw_one33.val();
            self.m_x.d.next = bit_cast::<W33, CW_BITS>(self.m_c.val())
                - (bit_cast::<W33, NAB_BITS>(self.m_nb.val()) << 12);
            self.half.next = self.ld_c[M - 1].q.val()
                >> (self.ld_hs[M - 1].q.val() & self.e_lo.val());
            self.m_gthr.d.next =
                self.cf_gamma.q.val() << (self.ld_hs[M - 1].q.val() & self.e_hi.val());
            self.m_y.d.next = bit_cast::<W33, CW_BITS>(self.half.val());
        }

        // ---- N: the linear decrease stops at 1; the remaining halvings
        for N in stage::N..(stage::N + 1) {
            self.n_big.d.next = self.m_big.q.val();
            self.n_x.d.next = self.m_x.q.val();
            if self.m_lt.q.val() {
                self.n_x.d.next = self.cw_one33.val();
            }
            self.n_y.d.next =
                self.m_y.q.val() >> (self.ld_hs[N - 1].q.val() & self.e_hi.val());
            self.n_ltg.d.next =
                self.m_y.q.val() < bit_cast::<W33, CW_BITS>(self.m_gthr.q.val());
        }

        // ---- O: the final cw, written to the table at the next edge
        for O in stage::O..(stage::O + 1) {
            if self.ld_nm[O - 1].q.val().any() {
                if self.n_big.q.val() {
                    self.ld_c[O].d.next = self.n_x.q.val().get_bits::<CW_BITS>(0);
                } else {
                    self.ld_c[O].d.next = self.n_y.q.val().get_bits::<CW_BITS>(0);
                    if self.n_ltg.q.val() {
                        self.ld_c[O].d.next = self.cf_gamma.q.val();
                    }
                }
            }
            self.cw_table.write_address.next = self.ld_flow[O].q.val();
            self.cw_table.write_data.next = self.ld_c[O].q.val();
            self.cw_table.write_enable.next = self.ld_v[O].q.val();
        }

        // ---- P: the interval's regime and normalisation (cw < 1: cw << k
        // has bit 19 set), a priority encoder of cw's bits 12..19; its cycle
        // addresses ROM2, Q's feeds the RTT multiplier
        // cw < 1.0 <=> no integer bit set: a 12-input NOR (yosys made the
        // compare with the constant a 32-bit carry chain, the engine's
        // critical path)
        self.ld_isub[P - P].d.next = !self.ld_c[P - 1].q.val().get_bits::<12>(20).any();
        self.ld_tiny[P - P].d.next = !self.ld_c[P - 1].q.val().get_bits::<12>(20).any()
            & !self.ld_c[P - 1].q.val().get_bits::<8>(12).any();
        self.ld_k[P - P].d.next = bits::<K_BITS>(0);
        for b in 0..8 {
            if self.ld_c[P - 1].q.val().get_bit(12 + b) {
                self.ld_k[P - P].d.next = self.k_code[b].val();
            }
        }
        self.p_c.next = self.ld_c[P].q.val();
        self.p_k.next = self.ld_k[P - P].q.val();
        self.rom2.address.next =
            bit_cast::<8, CW_BITS>((self.p_c.val() << self.p_k.val()) >> 11);
        self.mul_i.a.next = self.cf_rtt.q.val();
        self.mul_i.b.next = self.rom2.data.val();

        // ---- the outputs, from T: interval = (RTT * R) >> (15 - k)
        for T in stage::T..(stage::T + 1) {
            self.t_k.next = self.ld_k[T - P].q.val();
            self.ival_shift.next =
                self.ival_shift_at.val() - bit_cast::<4, K_BITS>(self.t_k.val());
            self.z_interval.d.next = bit_cast::<INTERVAL_BITS, 32>(
                self.mul_i.p.val() >> self.ival_shift.val(),
            );
            if self.ld_tiny[T - P].q.val() {
                self.z_interval.d.next = self.interval_max.val();
            }
            if !self.ld_isub[T - P].q.val() {
                self.z_interval.d.next = bits::<INTERVAL_BITS>(0);
            }
            self.z_valid.d.next = self.ld_v[T].q.val() & !self.reset.val();
            self.z_flow.d.next = self.ld_flow[T].q.val();
            self.z_cw.d.next = self.ld_c[T].q.val();
            self.z_nu.d.next = self.ld_nu[T].q.val();
            self.z_nm.d.next = self.ld_nm[T].q.val();
        }
        }}}
        self.out_valid.next = self.z_valid.q.val();
        self.out_flow.next = self.z_flow.q.val();
        self.out_cw.next = self.z_cw.q.val();
        self.out_interval_ticks.next = self.z_interval.q.val();
        self.out_n_u_pkts.next = self.z_nu.q.val();
        self.out_n_m_pkts.next = self.z_nm.q.val();
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]): RustHDL's second opinion on the RTL, and the
/// `rusthdl` engine of `ldcp bench`.
pub type WindowEngineRustHdl<const FLOW_BITS: usize> =
    crate::stepper::RustHdlSim<WindowEngine<FLOW_BITS>>;

ldcp_sim::window_engine_ports!(crate::hand_stepped {
    WindowEngine<FLOW_BITS> [const FLOW_BITS: usize],
    ldcp_sim::window_engine::WeInputs,
    ldcp_sim::window_engine::WeOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::window_engine::{stimulus, WindowEngineModel, WindowParams};

    /// RustHDL's own simulation of the engine agrees with the golden model
    /// (the Verilog is checked by cosimulation; this checks RustHDL's
    /// semantics of the same source).
    #[test]
    fn window_engine_rusthdl_simulation_matches_model() {
        let mut sim = WindowEngineRustHdl::<8>::new();
        let mut model = WindowEngineModel::new(8);
        for (c, i) in stimulus(5, 8, WindowParams::default())
            .take(3_000)
            .enumerate()
        {
            let got = sim.step(&i).expect("RustHDL simulation settles");
            model.tick(&i);
            assert_eq!(got, model.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
