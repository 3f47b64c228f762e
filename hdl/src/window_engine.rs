//! `WindowEngine`: the NIC's per-flow congestion window, one ACK event per
//! clock, PAWA and the gamma floor (draft-dai-tsvwg-pfc-free-congestion-
//! control-01 §2.2, Eq. 1 and Eq. 2, and the cw < 1 rules).
//!
//! The rules, the boundary at cw = 1 (a step ends on it, never crosses it),
//! the fixed-point formats and the error bounds are documented once, with
//! the golden models, in `ldcp_sim::window_engine`; `WindowEngineModel`
//! there mirrors every register of this file and cosimulation compares them
//! every cycle.
//!
//! # One event per clock at 100 MHz: merging
//! The update (normalise, reciprocal table, multiply, shift, add, cap, then
//! the decrease) takes 15 clocks from reading a flow's cw to writing it back:
//! far too long to close as a one-clock loop. Instead every event first
//! spends `WINDOW` = 16 cycles in a merge window (`MergeSlot` x 15 after the
//! entry slot): an event whose flow already has a slot in the window is
//! merged into it, unmarked and marked packets counted apart (`n_u`, `n_m`)
//! and applied in that order, exactly as Eq. 2 applies a delayed ACK. So two
//! updates of one flow leave the window at least 16 cycles apart, and the
//! second reads the table after the first has written it (15 < 16): the
//! pipeline needs no forwarding and no stall. The input never stalls; a
//! merged event simply produces no update of its own. Merged counts cannot
//! overflow: at most 16 events of n <= 15 meet in a slot (240 < 256).
//! `ldcp_sim::window_engine` bounds the drift of merging against one-by-one
//! processing and the ideal reference.
//!
//! # Events
//! - ACK (`ev_set` = 0): `ev_n` (0..=15) packets acknowledged, `ev_ece`. An
//!   ACK with n = 0 changes nothing but still produces an update: a read.
//! - SET (`ev_set` = 1): cw := `ev_value` clamped to [gamma, cw_max]; it
//!   replaces what its flow's slot had gathered (it came later), and ACKs
//!   that follow merge after it. The driver's set, reset-to-initial and read
//!   of a flow are events like the others: each costs one input cycle, and
//!   the ACK stream is never stopped.
//!
//! # Latency and outputs
//! An event presented in cycle t that starts a slot shows its update on the
//! outputs in cycle t + 38 ([`LATENCY_CYCLES`]): the flow, its new cw, the
//! packets applied, and the pacing interval RTT / cw (ticks) when cw < 1.
//!
//! # Reset and power-up
//! `reset` (synchronous) empties the window and the pipelines: the events in
//! them are dropped. The flow table is block RAM and keeps its values; at
//! configuration every flow holds cw = 1.0. Illegal parameter values are
//! clamped: alpha and beta to [1, 256], gamma_shift to [1, 8], cw_max to at
//! least 1.0.

use crate::mul::PipelinedMul16;
use ldcp_sim::window_engine::{
    AB_BITS, AB_ONE, CW_BITS, CW_FRAC_BITS, CW_ONE, GAMMA_SHIFT_MAX, GAMMA_SHIFT_MIN,
    INTERVAL_BITS, LATENCY_CYCLES, NSUM_BITS, N_BITS, RECIP_TABLE, RTT_BITS, WINDOW,
};
use rust_hdl::prelude::*;

const _: () = assert!(WINDOW == 16 && LATENCY_CYCLES == 38 && CW_BITS == 32 && CW_FRAC_BITS == 20);
const _: () = assert!(NSUM_BITS == 8 && N_BITS == 4 && INTERVAL_BITS == 24);

fn recip_rom() -> SyncROM<Bits<16>, 8> {
    SyncROM::from(RECIP_TABLE.iter().map(|&r| Bits::<16>::from(r as u64)))
}

/// One slot of the merge window after the entry slot: takes the previous
/// slot's content, merges the input event into it when their flows match,
/// and registers it.
#[derive(LogicBlock, Default)]
pub struct MergeSlot<const FLOW_BITS: usize> {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the slot empties.
    pub reset: Signal<In, Bit>,
    /// Previous slot: occupied.
    pub p_v: Signal<In, Bit>,
    /// Previous slot: flow.
    pub p_flow: Signal<In, Bits<FLOW_BITS>>,
    /// Previous slot: holds a SET.
    pub p_set: Signal<In, Bit>,
    /// Previous slot: SET value, UQ12.20.
    pub p_value: Signal<In, Bits<CW_BITS>>,
    /// Previous slot: SET value below gamma.
    pub p_lo: Signal<In, Bit>,
    /// Previous slot: SET value above cw_max.
    pub p_hi: Signal<In, Bit>,
    /// Previous slot: unmarked packets gathered.
    pub p_nu: Signal<In, Bits<NSUM_BITS>>,
    /// Previous slot: marked packets gathered.
    pub p_nm: Signal<In, Bits<NSUM_BITS>>,
    /// Input event: valid.
    pub i_v: Signal<In, Bit>,
    /// Input event: flow.
    pub i_flow: Signal<In, Bits<FLOW_BITS>>,
    /// Input event: SET.
    pub i_set: Signal<In, Bit>,
    /// Input event: SET value.
    pub i_value: Signal<In, Bits<CW_BITS>>,
    /// Input event: SET value below gamma.
    pub i_lo: Signal<In, Bit>,
    /// Input event: SET value above cw_max.
    pub i_hi: Signal<In, Bit>,
    /// Input event: unmarked packets.
    pub i_nu: Signal<In, Bits<NSUM_BITS>>,
    /// Input event: marked packets.
    pub i_nm: Signal<In, Bits<NSUM_BITS>>,
    /// The input event belongs to the previous slot's flow.
    pub hit: Signal<Out, Bit>,
    /// This slot: occupied.
    pub q_v: Signal<Out, Bit>,
    /// This slot: flow.
    pub q_flow: Signal<Out, Bits<FLOW_BITS>>,
    /// This slot: holds a SET.
    pub q_set: Signal<Out, Bit>,
    /// This slot: SET value.
    pub q_value: Signal<Out, Bits<CW_BITS>>,
    /// This slot: SET value below gamma.
    pub q_lo: Signal<Out, Bit>,
    /// This slot: SET value above cw_max.
    pub q_hi: Signal<Out, Bit>,
    /// This slot: unmarked packets.
    pub q_nu: Signal<Out, Bits<NSUM_BITS>>,
    /// This slot: marked packets.
    pub q_nm: Signal<Out, Bits<NSUM_BITS>>,
    v: DFF<Bit>,
    flow: DFF<Bits<FLOW_BITS>>,
    set: DFF<Bit>,
    value: DFF<Bits<CW_BITS>>,
    lo: DFF<Bit>,
    hi: DFF<Bit>,
    nu: DFF<Bits<NSUM_BITS>>,
    nm: DFF<Bits<NSUM_BITS>>,
}

impl<const FLOW_BITS: usize> Logic for MergeSlot<FLOW_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v, flow, set, value, lo, hi, nu, nm);
        self.hit.next = self.p_v.val() & self.i_v.val() & (self.p_flow.val() == self.i_flow.val());
        self.v.d.next = self.p_v.val() & !self.reset.val();
        self.flow.d.next = self.p_flow.val();
        self.set.d.next = self.p_set.val();
        self.value.d.next = self.p_value.val();
        self.lo.d.next = self.p_lo.val();
        self.hi.d.next = self.p_hi.val();
        self.nu.d.next = self.p_nu.val();
        self.nm.d.next = self.p_nm.val();
        if self.hit.val() {
            if self.i_set.val() {
                // a SET replaces what the slot gathered (its counts are 0)
                self.set.d.next = true;
                self.value.d.next = self.i_value.val();
                self.lo.d.next = self.i_lo.val();
                self.hi.d.next = self.i_hi.val();
                self.nu.d.next = self.i_nu.val();
                self.nm.d.next = self.i_nm.val();
            } else {
                self.nu.d.next = self.p_nu.val() + self.i_nu.val();
                self.nm.d.next = self.p_nm.val() + self.i_nm.val();
            }
        }
        self.q_v.next = self.v.q.val();
        self.q_flow.next = self.flow.q.val();
        self.q_set.next = self.set.q.val();
        self.q_value.next = self.value.q.val();
        self.q_lo.next = self.lo.q.val();
        self.q_hi.next = self.hi.q.val();
        self.q_nu.next = self.nu.q.val();
        self.q_nm.next = self.nm.q.val();
    }
}

/// The module of the iCE40 build, 256 flows.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "window_engine",
    doc: "NIC window engine, PAWA and the gamma floor, 256 flows, one ACK per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
    open: &[],
};

/// The module of the simulation-size build, 4,096 flows.
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "window_engine_4k",
    doc: "the window engine with 4,096 flows (simulation size)",
    open: &[],
};

/// The Verilog of the engine with 2^`FLOW_BITS` flows, as module `m`.
pub fn verilog<const FLOW_BITS: usize>(
    m: &crate::generate::Module,
) -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(m, WindowEngine::<FLOW_BITS>::default())
}

/// See the module doc. `FLOW_BITS` sizes the flow table: 8 (256 flows) on
/// the iCE40, 12 (4,096) in simulation.
#[derive(LogicBlock)]
pub struct WindowEngine<const FLOW_BITS: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the window and pipelines (see the module doc).
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
    /// SET: the new cw, UQ12.20.
    pub in_cw: Signal<In, Bits<CW_BITS>>,
    /// alpha, UQ1.8 raw (1..=256; clamped).
    pub cfg_alpha: Signal<In, Bits<AB_BITS>>,
    /// beta, UQ1.8 raw (1..=256; clamped).
    pub cfg_beta: Signal<In, Bits<AB_BITS>>,
    /// gamma = 2^-gamma_shift (1..=8; clamped).
    pub cfg_gamma_shift: Signal<In, Bits<4>>,
    /// cw cap, UQ12.20 (at least 1.0; clamped).
    pub cfg_cw_max: Signal<In, Bits<CW_BITS>>,
    /// RTT in pacing-timer ticks.
    pub cfg_rtt_ticks: Signal<In, Bits<RTT_BITS>>,
    /// An update completed.
    pub out_valid: Signal<Out, Bit>,
    /// Its flow.
    pub out_flow: Signal<Out, Bits<FLOW_BITS>>,
    /// The new cw, UQ12.20.
    pub out_cw: Signal<Out, Bits<CW_BITS>>,
    /// RTT / cw in ticks when cw < 1, else 0.
    pub out_interval_ticks: Signal<Out, Bits<INTERVAL_BITS>>,
    /// Unmarked packets applied.
    pub out_n_u_pkts: Signal<Out, Bits<NSUM_BITS>>,
    /// Marked packets applied.
    pub out_n_m_pkts: Signal<Out, Bits<NSUM_BITS>>,
    cr_alpha: DFF<Bits<AB_BITS>>,
    cr_beta: DFF<Bits<AB_BITS>>,
    cr_g: DFF<Bits<4>>,
    cr_cwmax: DFF<Bits<CW_BITS>>,
    cr_rtt: DFF<Bits<RTT_BITS>>,
    cf_alpha: DFF<Bits<AB_BITS>>,
    cf_beta: DFF<Bits<AB_BITS>>,
    cf_g: DFF<Bits<4>>,
    cf_gsh: DFF<Bits<5>>,
    cf_cwmax: DFF<Bits<CW_BITS>>,
    cf_rtt: DFF<Bits<RTT_BITS>>,
    cf_gamma: DFF<Bits<CW_BITS>>,
    ir_v: DFF<Bit>,
    ir_flow: DFF<Bits<FLOW_BITS>>,
    ir_set: DFF<Bit>,
    ir_value: DFF<Bits<CW_BITS>>,
    ir_lo: DFF<Bit>,
    ir_hi: DFF<Bit>,
    ir_nu: DFF<Bits<NSUM_BITS>>,
    ir_nm: DFF<Bits<NSUM_BITS>>,
    s0_v: DFF<Bit>,
    s0_flow: DFF<Bits<FLOW_BITS>>,
    s0_set: DFF<Bit>,
    s0_value: DFF<Bits<CW_BITS>>,
    s0_lo: DFF<Bit>,
    s0_hi: DFF<Bit>,
    s0_nu: DFF<Bits<NSUM_BITS>>,
    s0_nm: DFF<Bits<NSUM_BITS>>,
    x_v: DFF<Bit>,
    x_flow: DFF<Bits<FLOW_BITS>>,
    x_set: DFF<Bit>,
    x_value: DFF<Bits<CW_BITS>>,
    x_lo: DFF<Bit>,
    x_hi: DFF<Bit>,
    x_nu: DFF<Bits<NSUM_BITS>>,
    x_nm: DFF<Bits<NSUM_BITS>>,
    b_v: DFF<Bit>,
    b_flow: DFF<Bits<FLOW_BITS>>,
    b_nu: DFF<Bits<NSUM_BITS>>,
    b_nm: DFF<Bits<NSUM_BITS>>,
    b_hs: DFF<Bits<4>>,
    b_c: DFF<Bits<CW_BITS>>,
    c_v: DFF<Bit>,
    c_flow: DFF<Bits<FLOW_BITS>>,
    c_nu: DFF<Bits<NSUM_BITS>>,
    c_nm: DFF<Bits<NSUM_BITS>>,
    c_hs: DFF<Bits<4>>,
    c_c: DFF<Bits<CW_BITS>>,
    c_sub: DFF<Bit>,
    c_e: DFF<Bits<4>>,
    d_v: DFF<Bit>,
    d_flow: DFF<Bits<FLOW_BITS>>,
    d_nu: DFF<Bits<NSUM_BITS>>,
    d_nm: DFF<Bits<NSUM_BITS>>,
    d_hs: DFF<Bits<4>>,
    d_c: DFF<Bits<CW_BITS>>,
    d_sub: DFF<Bit>,
    d_e: DFF<Bits<4>>,
    d_t: DFF<Bits<CW_BITS>>,
    e_v: DFF<Bit>,
    e_flow: DFF<Bits<FLOW_BITS>>,
    e_nu: DFF<Bits<NSUM_BITS>>,
    e_nm: DFF<Bits<NSUM_BITS>>,
    e_hs: DFF<Bits<4>>,
    e_c: DFF<Bits<CW_BITS>>,
    e_sub: DFF<Bit>,
    e_e: DFF<Bits<4>>,
    e_na: DFF<Bits<16>>,
    e_nb: DFF<Bits<16>>,
    f_v: DFF<Bit>,
    f_flow: DFF<Bits<FLOW_BITS>>,
    f_nu: DFF<Bits<NSUM_BITS>>,
    f_nm: DFF<Bits<NSUM_BITS>>,
    f_hs: DFF<Bits<4>>,
    f_c: DFF<Bits<CW_BITS>>,
    f_sub: DFF<Bit>,
    f_e: DFF<Bits<4>>,
    f_nb: DFF<Bits<16>>,
    g_v: DFF<Bit>,
    g_flow: DFF<Bits<FLOW_BITS>>,
    g_nu: DFF<Bits<NSUM_BITS>>,
    g_nm: DFF<Bits<NSUM_BITS>>,
    g_hs: DFF<Bits<4>>,
    g_c: DFF<Bits<CW_BITS>>,
    g_sub: DFF<Bit>,
    g_e: DFF<Bits<4>>,
    g_nb: DFF<Bits<16>>,
    h_v: DFF<Bit>,
    h_flow: DFF<Bits<FLOW_BITS>>,
    h_nu: DFF<Bits<NSUM_BITS>>,
    h_nm: DFF<Bits<NSUM_BITS>>,
    h_hs: DFF<Bits<4>>,
    h_c: DFF<Bits<CW_BITS>>,
    h_sub: DFF<Bit>,
    h_e: DFF<Bits<4>>,
    h_nb: DFF<Bits<16>>,
    i_v: DFF<Bit>,
    i_flow: DFF<Bits<FLOW_BITS>>,
    i_nu: DFF<Bits<NSUM_BITS>>,
    i_nm: DFF<Bits<NSUM_BITS>>,
    i_hs: DFF<Bits<4>>,
    i_c: DFF<Bits<CW_BITS>>,
    i_sub: DFF<Bit>,
    i_e: DFF<Bits<4>>,
    i_nb: DFF<Bits<16>>,
    i_t: DFF<Bits<CW_BITS>>,
    j_v: DFF<Bit>,
    j_flow: DFF<Bits<FLOW_BITS>>,
    j_nu: DFF<Bits<NSUM_BITS>>,
    j_nm: DFF<Bits<NSUM_BITS>>,
    j_hs: DFF<Bits<4>>,
    j_c: DFF<Bits<CW_BITS>>,
    j_gstep: DFF<Bits<CW_BITS>>,
    j_sub: DFF<Bit>,
    j_nb: DFF<Bits<16>>,
    j_t: DFF<Bits<CW_BITS>>,
    j_h: DFF<Bits<33>>,
    j_hg: DFF<Bits<33>>,
    k_v: DFF<Bit>,
    k_flow: DFF<Bits<FLOW_BITS>>,
    k_nu: DFF<Bits<NSUM_BITS>>,
    k_nm: DFF<Bits<NSUM_BITS>>,
    k_hs: DFF<Bits<4>>,
    k_c: DFF<Bits<CW_BITS>>,
    k_sub: DFF<Bit>,
    k_nb: DFF<Bits<16>>,
    k_x: DFF<Bits<33>>,
    k_y: DFF<Bits<33>>,
    k_over: DFF<Bit>,
    k_yover: DFF<Bit>,
    l_v: DFF<Bit>,
    l_flow: DFF<Bits<FLOW_BITS>>,
    l_nu: DFF<Bits<NSUM_BITS>>,
    l_nm: DFF<Bits<NSUM_BITS>>,
    l_hs: DFF<Bits<4>>,
    l_c: DFF<Bits<CW_BITS>>,
    l_nb: DFF<Bits<16>>,
    m_v: DFF<Bit>,
    m_flow: DFF<Bits<FLOW_BITS>>,
    m_nu: DFF<Bits<NSUM_BITS>>,
    m_nm: DFF<Bits<NSUM_BITS>>,
    m_hs: DFF<Bits<4>>,
    m_c: DFF<Bits<CW_BITS>>,
    m_big: DFF<Bit>,
    m_lt: DFF<Bit>,
    m_x: DFF<Bits<33>>,
    m_y: DFF<Bits<33>>,
    m_gthr: DFF<Bits<CW_BITS>>,
    n_v: DFF<Bit>,
    n_flow: DFF<Bits<FLOW_BITS>>,
    n_nu: DFF<Bits<NSUM_BITS>>,
    n_nm: DFF<Bits<NSUM_BITS>>,
    n_c: DFF<Bits<CW_BITS>>,
    n_big: DFF<Bit>,
    n_x: DFF<Bits<33>>,
    n_y: DFF<Bits<33>>,
    n_ltg: DFF<Bit>,
    o_v: DFF<Bit>,
    o_flow: DFF<Bits<FLOW_BITS>>,
    o_nu: DFF<Bits<NSUM_BITS>>,
    o_nm: DFF<Bits<NSUM_BITS>>,
    o_c: DFF<Bits<CW_BITS>>,
    p_v: DFF<Bit>,
    p_flow: DFF<Bits<FLOW_BITS>>,
    p_nu: DFF<Bits<NSUM_BITS>>,
    p_nm: DFF<Bits<NSUM_BITS>>,
    p_c: DFF<Bits<CW_BITS>>,
    p_sub: DFF<Bit>,
    p_tiny: DFF<Bit>,
    p_k: DFF<Bits<3>>,
    q_v: DFF<Bit>,
    q_flow: DFF<Bits<FLOW_BITS>>,
    q_nu: DFF<Bits<NSUM_BITS>>,
    q_nm: DFF<Bits<NSUM_BITS>>,
    q_c: DFF<Bits<CW_BITS>>,
    q_sub: DFF<Bit>,
    q_tiny: DFF<Bit>,
    q_k: DFF<Bits<3>>,
    r_v: DFF<Bit>,
    r_flow: DFF<Bits<FLOW_BITS>>,
    r_nu: DFF<Bits<NSUM_BITS>>,
    r_nm: DFF<Bits<NSUM_BITS>>,
    r_c: DFF<Bits<CW_BITS>>,
    r_sub: DFF<Bit>,
    r_tiny: DFF<Bit>,
    r_k: DFF<Bits<3>>,
    s_v: DFF<Bit>,
    s_flow: DFF<Bits<FLOW_BITS>>,
    s_nu: DFF<Bits<NSUM_BITS>>,
    s_nm: DFF<Bits<NSUM_BITS>>,
    s_c: DFF<Bits<CW_BITS>>,
    s_sub: DFF<Bit>,
    s_tiny: DFF<Bit>,
    s_k: DFF<Bits<3>>,
    t_v: DFF<Bit>,
    t_flow: DFF<Bits<FLOW_BITS>>,
    t_nu: DFF<Bits<NSUM_BITS>>,
    t_nm: DFF<Bits<NSUM_BITS>>,
    t_c: DFF<Bits<CW_BITS>>,
    t_sub: DFF<Bit>,
    t_tiny: DFF<Bit>,
    t_k: DFF<Bits<3>>,
    z_valid: DFF<Bit>,
    z_flow: DFF<Bits<FLOW_BITS>>,
    z_cw: DFF<Bits<CW_BITS>>,
    z_interval: DFF<Bits<INTERVAL_BITS>>,
    z_nu: DFF<Bits<NSUM_BITS>>,
    z_nm: DFF<Bits<NSUM_BITS>>,
    any_hit: Signal<Local, Bit>,
    e_low: Signal<Local, Bits<4>>,
    rom_shift: Signal<Local, Bits<5>>,
    half: Signal<Local, Bits<CW_BITS>>,
    ival_shift: Signal<Local, Bits<4>>,
    one32: Constant<Bits<CW_BITS>>,
    one33: Constant<Bits<33>>,
    ab_max: Constant<Bits<AB_BITS>>,
    ab_min: Constant<Bits<AB_BITS>>,
    g_min: Constant<Bits<4>>,
    g_max: Constant<Bits<4>>,
    frac: Constant<Bits<5>>,
    hs_max: Constant<Bits<NSUM_BITS>>,
    twelve: Constant<Bits<5>>,
    fifteen: Constant<Bits<4>>,
    mask12: Constant<Bits<4>>,
    mask3: Constant<Bits<4>>,
    interval_max: Constant<Bits<INTERVAL_BITS>>,
    sat16: Constant<Bits<16>>,
    m1: MergeSlot<FLOW_BITS>,
    m2: MergeSlot<FLOW_BITS>,
    m3: MergeSlot<FLOW_BITS>,
    m4: MergeSlot<FLOW_BITS>,
    m5: MergeSlot<FLOW_BITS>,
    m6: MergeSlot<FLOW_BITS>,
    m7: MergeSlot<FLOW_BITS>,
    m8: MergeSlot<FLOW_BITS>,
    m9: MergeSlot<FLOW_BITS>,
    m10: MergeSlot<FLOW_BITS>,
    m11: MergeSlot<FLOW_BITS>,
    m12: MergeSlot<FLOW_BITS>,
    m13: MergeSlot<FLOW_BITS>,
    m14: MergeSlot<FLOW_BITS>,
    m15: MergeSlot<FLOW_BITS>,
    mul_na: PipelinedMul16,
    mul_nb: PipelinedMul16,
    mul_p: PipelinedMul16,
    mul_i: PipelinedMul16,
    cw_table: RAM<Bits<CW_BITS>, FLOW_BITS>,
    rom: SyncROM<Bits<16>, 8>,
    rom2: SyncROM<Bits<16>, 8>,
}

impl<const FLOW_BITS: usize> Default for WindowEngine<FLOW_BITS> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_flow: Default::default(),
            in_set: Default::default(),
            in_ece: Default::default(),
            in_n_pkts: Default::default(),
            in_cw: Default::default(),
            cfg_alpha: Default::default(),
            cfg_beta: Default::default(),
            cfg_gamma_shift: Default::default(),
            cfg_cw_max: Default::default(),
            cfg_rtt_ticks: Default::default(),
            out_valid: Default::default(),
            out_flow: Default::default(),
            out_cw: Default::default(),
            out_interval_ticks: Default::default(),
            out_n_u_pkts: Default::default(),
            out_n_m_pkts: Default::default(),
            cr_alpha: Default::default(),
            cr_beta: Default::default(),
            cr_g: Default::default(),
            cr_cwmax: Default::default(),
            cr_rtt: Default::default(),
            cf_alpha: Default::default(),
            cf_beta: Default::default(),
            cf_g: Default::default(),
            cf_gsh: Default::default(),
            cf_cwmax: Default::default(),
            cf_rtt: Default::default(),
            cf_gamma: Default::default(),
            ir_v: Default::default(),
            ir_flow: Default::default(),
            ir_set: Default::default(),
            ir_value: Default::default(),
            ir_lo: Default::default(),
            ir_hi: Default::default(),
            ir_nu: Default::default(),
            ir_nm: Default::default(),
            s0_v: Default::default(),
            s0_flow: Default::default(),
            s0_set: Default::default(),
            s0_value: Default::default(),
            s0_lo: Default::default(),
            s0_hi: Default::default(),
            s0_nu: Default::default(),
            s0_nm: Default::default(),
            x_v: Default::default(),
            x_flow: Default::default(),
            x_set: Default::default(),
            x_value: Default::default(),
            x_lo: Default::default(),
            x_hi: Default::default(),
            x_nu: Default::default(),
            x_nm: Default::default(),
            b_v: Default::default(),
            b_flow: Default::default(),
            b_nu: Default::default(),
            b_nm: Default::default(),
            b_hs: Default::default(),
            b_c: Default::default(),
            c_v: Default::default(),
            c_flow: Default::default(),
            c_nu: Default::default(),
            c_nm: Default::default(),
            c_hs: Default::default(),
            c_c: Default::default(),
            c_sub: Default::default(),
            c_e: Default::default(),
            d_v: Default::default(),
            d_flow: Default::default(),
            d_nu: Default::default(),
            d_nm: Default::default(),
            d_hs: Default::default(),
            d_c: Default::default(),
            d_sub: Default::default(),
            d_e: Default::default(),
            d_t: Default::default(),
            e_v: Default::default(),
            e_flow: Default::default(),
            e_nu: Default::default(),
            e_nm: Default::default(),
            e_hs: Default::default(),
            e_c: Default::default(),
            e_sub: Default::default(),
            e_e: Default::default(),
            e_na: Default::default(),
            e_nb: Default::default(),
            f_v: Default::default(),
            f_flow: Default::default(),
            f_nu: Default::default(),
            f_nm: Default::default(),
            f_hs: Default::default(),
            f_c: Default::default(),
            f_sub: Default::default(),
            f_e: Default::default(),
            f_nb: Default::default(),
            g_v: Default::default(),
            g_flow: Default::default(),
            g_nu: Default::default(),
            g_nm: Default::default(),
            g_hs: Default::default(),
            g_c: Default::default(),
            g_sub: Default::default(),
            g_e: Default::default(),
            g_nb: Default::default(),
            h_v: Default::default(),
            h_flow: Default::default(),
            h_nu: Default::default(),
            h_nm: Default::default(),
            h_hs: Default::default(),
            h_c: Default::default(),
            h_sub: Default::default(),
            h_e: Default::default(),
            h_nb: Default::default(),
            i_v: Default::default(),
            i_flow: Default::default(),
            i_nu: Default::default(),
            i_nm: Default::default(),
            i_hs: Default::default(),
            i_c: Default::default(),
            i_sub: Default::default(),
            i_e: Default::default(),
            i_nb: Default::default(),
            i_t: Default::default(),
            j_v: Default::default(),
            j_flow: Default::default(),
            j_nu: Default::default(),
            j_nm: Default::default(),
            j_hs: Default::default(),
            j_c: Default::default(),
            j_gstep: Default::default(),
            j_sub: Default::default(),
            j_nb: Default::default(),
            j_t: Default::default(),
            j_h: Default::default(),
            j_hg: Default::default(),
            k_v: Default::default(),
            k_flow: Default::default(),
            k_nu: Default::default(),
            k_nm: Default::default(),
            k_hs: Default::default(),
            k_c: Default::default(),
            k_sub: Default::default(),
            k_nb: Default::default(),
            k_x: Default::default(),
            k_y: Default::default(),
            k_over: Default::default(),
            k_yover: Default::default(),
            l_v: Default::default(),
            l_flow: Default::default(),
            l_nu: Default::default(),
            l_nm: Default::default(),
            l_hs: Default::default(),
            l_c: Default::default(),
            l_nb: Default::default(),
            m_v: Default::default(),
            m_flow: Default::default(),
            m_nu: Default::default(),
            m_nm: Default::default(),
            m_hs: Default::default(),
            m_c: Default::default(),
            m_big: Default::default(),
            m_lt: Default::default(),
            m_x: Default::default(),
            m_y: Default::default(),
            m_gthr: Default::default(),
            n_v: Default::default(),
            n_flow: Default::default(),
            n_nu: Default::default(),
            n_nm: Default::default(),
            n_c: Default::default(),
            n_big: Default::default(),
            n_x: Default::default(),
            n_y: Default::default(),
            n_ltg: Default::default(),
            o_v: Default::default(),
            o_flow: Default::default(),
            o_nu: Default::default(),
            o_nm: Default::default(),
            o_c: Default::default(),
            p_v: Default::default(),
            p_flow: Default::default(),
            p_nu: Default::default(),
            p_nm: Default::default(),
            p_c: Default::default(),
            p_sub: Default::default(),
            p_tiny: Default::default(),
            p_k: Default::default(),
            q_v: Default::default(),
            q_flow: Default::default(),
            q_nu: Default::default(),
            q_nm: Default::default(),
            q_c: Default::default(),
            q_sub: Default::default(),
            q_tiny: Default::default(),
            q_k: Default::default(),
            r_v: Default::default(),
            r_flow: Default::default(),
            r_nu: Default::default(),
            r_nm: Default::default(),
            r_c: Default::default(),
            r_sub: Default::default(),
            r_tiny: Default::default(),
            r_k: Default::default(),
            s_v: Default::default(),
            s_flow: Default::default(),
            s_nu: Default::default(),
            s_nm: Default::default(),
            s_c: Default::default(),
            s_sub: Default::default(),
            s_tiny: Default::default(),
            s_k: Default::default(),
            t_v: Default::default(),
            t_flow: Default::default(),
            t_nu: Default::default(),
            t_nm: Default::default(),
            t_c: Default::default(),
            t_sub: Default::default(),
            t_tiny: Default::default(),
            t_k: Default::default(),
            z_valid: Default::default(),
            z_flow: Default::default(),
            z_cw: Default::default(),
            z_interval: Default::default(),
            z_nu: Default::default(),
            z_nm: Default::default(),
            any_hit: Default::default(),
            e_low: Default::default(),
            rom_shift: Default::default(),
            half: Default::default(),
            ival_shift: Default::default(),
            one32: Constant::new((CW_ONE as u64).into()),
            one33: Constant::new((CW_ONE as u64).into()),
            ab_max: Constant::new((AB_ONE as u64).into()),
            ab_min: Constant::new((1).into()),
            g_min: Constant::new((GAMMA_SHIFT_MIN as u64).into()),
            g_max: Constant::new((GAMMA_SHIFT_MAX as u64).into()),
            frac: Constant::new((CW_FRAC_BITS as u64).into()),
            hs_max: Constant::new((8).into()),
            twelve: Constant::new((12).into()),
            fifteen: Constant::new((15).into()),
            mask12: Constant::new((12).into()),
            mask3: Constant::new((3).into()),
            interval_max: Constant::new(((1u64 << INTERVAL_BITS) - 1).into()),
            sat16: Constant::new((0xffff).into()),
            m1: Default::default(),
            m2: Default::default(),
            m3: Default::default(),
            m4: Default::default(),
            m5: Default::default(),
            m6: Default::default(),
            m7: Default::default(),
            m8: Default::default(),
            m9: Default::default(),
            m10: Default::default(),
            m11: Default::default(),
            m12: Default::default(),
            m13: Default::default(),
            m14: Default::default(),
            m15: Default::default(),
            mul_na: Default::default(),
            mul_nb: Default::default(),
            mul_p: Default::default(),
            mul_i: Default::default(),
            cw_table: RAM::from(
                (0..1usize << FLOW_BITS).map(|_| Bits::<CW_BITS>::from(CW_ONE as u64)),
            ),
            rom: recip_rom(),
            rom2: recip_rom(),
        }
    }
}

impl<const FLOW_BITS: usize> Logic for WindowEngine<FLOW_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cr_alpha, cr_beta, cr_g, cr_cwmax, cr_rtt, cf_alpha, cf_beta, cf_g,
            cf_gsh, cf_cwmax, cf_rtt, cf_gamma, ir_v, ir_flow, ir_set, ir_value, ir_lo, ir_hi,
            ir_nu, ir_nm, s0_v, s0_flow, s0_set, s0_value, s0_lo, s0_hi, s0_nu, s0_nm, x_v, x_flow,
            x_set, x_value, x_lo, x_hi, x_nu, x_nm, b_v, b_flow, b_nu, b_nm, b_hs, b_c, c_v,
            c_flow, c_nu, c_nm, c_hs, c_c, c_sub, c_e, d_v, d_flow, d_nu, d_nm, d_hs, d_c, d_sub,
            d_e, d_t, e_v, e_flow, e_nu, e_nm, e_hs, e_c, e_sub, e_e, e_na, e_nb, f_v, f_flow,
            f_nu, f_nm, f_hs, f_c, f_sub, f_e, f_nb, g_v, g_flow, g_nu, g_nm, g_hs, g_c, g_sub,
            g_e, g_nb, h_v, h_flow, h_nu, h_nm, h_hs, h_c, h_sub, h_e, h_nb, i_v, i_flow, i_nu,
            i_nm, i_hs, i_c, i_sub, i_e, i_nb, i_t, j_v, j_flow, j_nu, j_nm, j_hs, j_c, j_gstep,
            j_sub, j_nb, j_t, j_h, j_hg, k_v, k_flow, k_nu, k_nm, k_hs, k_c, k_sub, k_nb, k_x, k_y,
            k_over, k_yover, l_v, l_flow, l_nu, l_nm, l_hs, l_c, l_nb, m_v, m_flow, m_nu, m_nm,
            m_hs, m_c, m_big, m_lt, m_x, m_y, m_gthr, n_v, n_flow, n_nu, n_nm, n_c, n_big, n_x,
            n_y, n_ltg, o_v, o_flow, o_nu, o_nm, o_c, p_v, p_flow, p_nu, p_nm, p_c, p_sub, p_tiny,
            p_k, q_v, q_flow, q_nu, q_nm, q_c, q_sub, q_tiny, q_k, r_v, r_flow, r_nu, r_nm, r_c,
            r_sub, r_tiny, r_k, s_v, s_flow, s_nu, s_nm, s_c, s_sub, s_tiny, s_k, t_v, t_flow,
            t_nu, t_nm, t_c, t_sub, t_tiny, t_k, z_valid, z_flow, z_cw, z_interval, z_nu, z_nm
        );
        self.mul_na.clock.next = self.clock.val();
        self.mul_nb.clock.next = self.clock.val();
        self.mul_p.clock.next = self.clock.val();
        self.mul_i.clock.next = self.clock.val();
        self.cw_table.read_clock.next = self.clock.val();
        self.cw_table.write_clock.next = self.clock.val();
        self.rom.clock.next = self.clock.val();
        self.rom2.clock.next = self.clock.val();

        // ---- configuration: registered as given, then clamped to the legal ranges
        self.cr_alpha.d.next = self.cfg_alpha.val();
        self.cr_beta.d.next = self.cfg_beta.val();
        self.cr_g.d.next = self.cfg_gamma_shift.val();
        self.cr_cwmax.d.next = self.cfg_cw_max.val();
        self.cr_rtt.d.next = self.cfg_rtt_ticks.val();
        self.cf_alpha.d.next = self.cr_alpha.q.val();
        if self.cr_alpha.q.val() > self.ab_max.val() {
            self.cf_alpha.d.next = self.ab_max.val();
        }
        if !self.cr_alpha.q.val().any() {
            self.cf_alpha.d.next = self.ab_min.val();
        }
        self.cf_beta.d.next = self.cr_beta.q.val();
        if self.cr_beta.q.val() > self.ab_max.val() {
            self.cf_beta.d.next = self.ab_max.val();
        }
        if !self.cr_beta.q.val().any() {
            self.cf_beta.d.next = self.ab_min.val();
        }
        self.cf_g.d.next = self.cr_g.q.val();
        self.cf_gsh.d.next = self.frac.val() - bit_cast::<5, 4>(self.cr_g.q.val());
        if self.cr_g.q.val() > self.g_max.val() {
            self.cf_g.d.next = self.g_max.val();
            self.cf_gsh.d.next = self.frac.val() - bit_cast::<5, 4>(self.g_max.val());
        }
        if self.cr_g.q.val() < self.g_min.val() {
            self.cf_g.d.next = self.g_min.val();
            self.cf_gsh.d.next = self.frac.val() - bit_cast::<5, 4>(self.g_min.val());
        }
        self.cf_cwmax.d.next = self.cr_cwmax.q.val();
        // below 1.0 <=> no integer bit set (a 12-input NOR, not a comparator)
        if !self.cr_cwmax.q.val().get_bits::<12>(20).any() {
            self.cf_cwmax.d.next = self.one32.val();
        }
        self.cf_rtt.d.next = self.cr_rtt.q.val();
        self.cf_gamma.d.next = self.one32.val() >> self.cf_g.q.val();

        // ---- the input register: counts by kind, SET value against the limits
        self.ir_v.d.next = self.in_valid.val() & !self.reset.val();
        self.ir_flow.d.next = self.in_flow.val();
        self.ir_set.d.next = self.in_set.val();
        self.ir_value.d.next = self.in_cw.val();
        self.ir_lo.d.next = self.in_cw.val() < self.cf_gamma.q.val();
        self.ir_hi.d.next = self.in_cw.val() > self.cf_cwmax.q.val();
        self.ir_nu.d.next = bits::<NSUM_BITS>(0);
        self.ir_nm.d.next = bits::<NSUM_BITS>(0);
        if !self.in_set.val() {
            if self.in_ece.val() {
                self.ir_nm.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.in_n_pkts.val());
            } else {
                self.ir_nu.d.next = bit_cast::<NSUM_BITS, N_BITS>(self.in_n_pkts.val());
            }
        }

        // ---- the merge window: entry slot s0, then m1..m15
        self.m1.p_v.next = self.s0_v.q.val();
        self.m1.i_v.next = self.ir_v.q.val();
        self.m1.p_flow.next = self.s0_flow.q.val();
        self.m1.i_flow.next = self.ir_flow.q.val();
        self.m1.p_set.next = self.s0_set.q.val();
        self.m1.i_set.next = self.ir_set.q.val();
        self.m1.p_value.next = self.s0_value.q.val();
        self.m1.i_value.next = self.ir_value.q.val();
        self.m1.p_lo.next = self.s0_lo.q.val();
        self.m1.i_lo.next = self.ir_lo.q.val();
        self.m1.p_hi.next = self.s0_hi.q.val();
        self.m1.i_hi.next = self.ir_hi.q.val();
        self.m1.p_nu.next = self.s0_nu.q.val();
        self.m1.i_nu.next = self.ir_nu.q.val();
        self.m1.p_nm.next = self.s0_nm.q.val();
        self.m1.i_nm.next = self.ir_nm.q.val();
        self.m1.clock.next = self.clock.val();
        self.m1.reset.next = self.reset.val();
        self.m2.p_v.next = self.m1.q_v.val();
        self.m2.i_v.next = self.ir_v.q.val();
        self.m2.p_flow.next = self.m1.q_flow.val();
        self.m2.i_flow.next = self.ir_flow.q.val();
        self.m2.p_set.next = self.m1.q_set.val();
        self.m2.i_set.next = self.ir_set.q.val();
        self.m2.p_value.next = self.m1.q_value.val();
        self.m2.i_value.next = self.ir_value.q.val();
        self.m2.p_lo.next = self.m1.q_lo.val();
        self.m2.i_lo.next = self.ir_lo.q.val();
        self.m2.p_hi.next = self.m1.q_hi.val();
        self.m2.i_hi.next = self.ir_hi.q.val();
        self.m2.p_nu.next = self.m1.q_nu.val();
        self.m2.i_nu.next = self.ir_nu.q.val();
        self.m2.p_nm.next = self.m1.q_nm.val();
        self.m2.i_nm.next = self.ir_nm.q.val();
        self.m2.clock.next = self.clock.val();
        self.m2.reset.next = self.reset.val();
        self.m3.p_v.next = self.m2.q_v.val();
        self.m3.i_v.next = self.ir_v.q.val();
        self.m3.p_flow.next = self.m2.q_flow.val();
        self.m3.i_flow.next = self.ir_flow.q.val();
        self.m3.p_set.next = self.m2.q_set.val();
        self.m3.i_set.next = self.ir_set.q.val();
        self.m3.p_value.next = self.m2.q_value.val();
        self.m3.i_value.next = self.ir_value.q.val();
        self.m3.p_lo.next = self.m2.q_lo.val();
        self.m3.i_lo.next = self.ir_lo.q.val();
        self.m3.p_hi.next = self.m2.q_hi.val();
        self.m3.i_hi.next = self.ir_hi.q.val();
        self.m3.p_nu.next = self.m2.q_nu.val();
        self.m3.i_nu.next = self.ir_nu.q.val();
        self.m3.p_nm.next = self.m2.q_nm.val();
        self.m3.i_nm.next = self.ir_nm.q.val();
        self.m3.clock.next = self.clock.val();
        self.m3.reset.next = self.reset.val();
        self.m4.p_v.next = self.m3.q_v.val();
        self.m4.i_v.next = self.ir_v.q.val();
        self.m4.p_flow.next = self.m3.q_flow.val();
        self.m4.i_flow.next = self.ir_flow.q.val();
        self.m4.p_set.next = self.m3.q_set.val();
        self.m4.i_set.next = self.ir_set.q.val();
        self.m4.p_value.next = self.m3.q_value.val();
        self.m4.i_value.next = self.ir_value.q.val();
        self.m4.p_lo.next = self.m3.q_lo.val();
        self.m4.i_lo.next = self.ir_lo.q.val();
        self.m4.p_hi.next = self.m3.q_hi.val();
        self.m4.i_hi.next = self.ir_hi.q.val();
        self.m4.p_nu.next = self.m3.q_nu.val();
        self.m4.i_nu.next = self.ir_nu.q.val();
        self.m4.p_nm.next = self.m3.q_nm.val();
        self.m4.i_nm.next = self.ir_nm.q.val();
        self.m4.clock.next = self.clock.val();
        self.m4.reset.next = self.reset.val();
        self.m5.p_v.next = self.m4.q_v.val();
        self.m5.i_v.next = self.ir_v.q.val();
        self.m5.p_flow.next = self.m4.q_flow.val();
        self.m5.i_flow.next = self.ir_flow.q.val();
        self.m5.p_set.next = self.m4.q_set.val();
        self.m5.i_set.next = self.ir_set.q.val();
        self.m5.p_value.next = self.m4.q_value.val();
        self.m5.i_value.next = self.ir_value.q.val();
        self.m5.p_lo.next = self.m4.q_lo.val();
        self.m5.i_lo.next = self.ir_lo.q.val();
        self.m5.p_hi.next = self.m4.q_hi.val();
        self.m5.i_hi.next = self.ir_hi.q.val();
        self.m5.p_nu.next = self.m4.q_nu.val();
        self.m5.i_nu.next = self.ir_nu.q.val();
        self.m5.p_nm.next = self.m4.q_nm.val();
        self.m5.i_nm.next = self.ir_nm.q.val();
        self.m5.clock.next = self.clock.val();
        self.m5.reset.next = self.reset.val();
        self.m6.p_v.next = self.m5.q_v.val();
        self.m6.i_v.next = self.ir_v.q.val();
        self.m6.p_flow.next = self.m5.q_flow.val();
        self.m6.i_flow.next = self.ir_flow.q.val();
        self.m6.p_set.next = self.m5.q_set.val();
        self.m6.i_set.next = self.ir_set.q.val();
        self.m6.p_value.next = self.m5.q_value.val();
        self.m6.i_value.next = self.ir_value.q.val();
        self.m6.p_lo.next = self.m5.q_lo.val();
        self.m6.i_lo.next = self.ir_lo.q.val();
        self.m6.p_hi.next = self.m5.q_hi.val();
        self.m6.i_hi.next = self.ir_hi.q.val();
        self.m6.p_nu.next = self.m5.q_nu.val();
        self.m6.i_nu.next = self.ir_nu.q.val();
        self.m6.p_nm.next = self.m5.q_nm.val();
        self.m6.i_nm.next = self.ir_nm.q.val();
        self.m6.clock.next = self.clock.val();
        self.m6.reset.next = self.reset.val();
        self.m7.p_v.next = self.m6.q_v.val();
        self.m7.i_v.next = self.ir_v.q.val();
        self.m7.p_flow.next = self.m6.q_flow.val();
        self.m7.i_flow.next = self.ir_flow.q.val();
        self.m7.p_set.next = self.m6.q_set.val();
        self.m7.i_set.next = self.ir_set.q.val();
        self.m7.p_value.next = self.m6.q_value.val();
        self.m7.i_value.next = self.ir_value.q.val();
        self.m7.p_lo.next = self.m6.q_lo.val();
        self.m7.i_lo.next = self.ir_lo.q.val();
        self.m7.p_hi.next = self.m6.q_hi.val();
        self.m7.i_hi.next = self.ir_hi.q.val();
        self.m7.p_nu.next = self.m6.q_nu.val();
        self.m7.i_nu.next = self.ir_nu.q.val();
        self.m7.p_nm.next = self.m6.q_nm.val();
        self.m7.i_nm.next = self.ir_nm.q.val();
        self.m7.clock.next = self.clock.val();
        self.m7.reset.next = self.reset.val();
        self.m8.p_v.next = self.m7.q_v.val();
        self.m8.i_v.next = self.ir_v.q.val();
        self.m8.p_flow.next = self.m7.q_flow.val();
        self.m8.i_flow.next = self.ir_flow.q.val();
        self.m8.p_set.next = self.m7.q_set.val();
        self.m8.i_set.next = self.ir_set.q.val();
        self.m8.p_value.next = self.m7.q_value.val();
        self.m8.i_value.next = self.ir_value.q.val();
        self.m8.p_lo.next = self.m7.q_lo.val();
        self.m8.i_lo.next = self.ir_lo.q.val();
        self.m8.p_hi.next = self.m7.q_hi.val();
        self.m8.i_hi.next = self.ir_hi.q.val();
        self.m8.p_nu.next = self.m7.q_nu.val();
        self.m8.i_nu.next = self.ir_nu.q.val();
        self.m8.p_nm.next = self.m7.q_nm.val();
        self.m8.i_nm.next = self.ir_nm.q.val();
        self.m8.clock.next = self.clock.val();
        self.m8.reset.next = self.reset.val();
        self.m9.p_v.next = self.m8.q_v.val();
        self.m9.i_v.next = self.ir_v.q.val();
        self.m9.p_flow.next = self.m8.q_flow.val();
        self.m9.i_flow.next = self.ir_flow.q.val();
        self.m9.p_set.next = self.m8.q_set.val();
        self.m9.i_set.next = self.ir_set.q.val();
        self.m9.p_value.next = self.m8.q_value.val();
        self.m9.i_value.next = self.ir_value.q.val();
        self.m9.p_lo.next = self.m8.q_lo.val();
        self.m9.i_lo.next = self.ir_lo.q.val();
        self.m9.p_hi.next = self.m8.q_hi.val();
        self.m9.i_hi.next = self.ir_hi.q.val();
        self.m9.p_nu.next = self.m8.q_nu.val();
        self.m9.i_nu.next = self.ir_nu.q.val();
        self.m9.p_nm.next = self.m8.q_nm.val();
        self.m9.i_nm.next = self.ir_nm.q.val();
        self.m9.clock.next = self.clock.val();
        self.m9.reset.next = self.reset.val();
        self.m10.p_v.next = self.m9.q_v.val();
        self.m10.i_v.next = self.ir_v.q.val();
        self.m10.p_flow.next = self.m9.q_flow.val();
        self.m10.i_flow.next = self.ir_flow.q.val();
        self.m10.p_set.next = self.m9.q_set.val();
        self.m10.i_set.next = self.ir_set.q.val();
        self.m10.p_value.next = self.m9.q_value.val();
        self.m10.i_value.next = self.ir_value.q.val();
        self.m10.p_lo.next = self.m9.q_lo.val();
        self.m10.i_lo.next = self.ir_lo.q.val();
        self.m10.p_hi.next = self.m9.q_hi.val();
        self.m10.i_hi.next = self.ir_hi.q.val();
        self.m10.p_nu.next = self.m9.q_nu.val();
        self.m10.i_nu.next = self.ir_nu.q.val();
        self.m10.p_nm.next = self.m9.q_nm.val();
        self.m10.i_nm.next = self.ir_nm.q.val();
        self.m10.clock.next = self.clock.val();
        self.m10.reset.next = self.reset.val();
        self.m11.p_v.next = self.m10.q_v.val();
        self.m11.i_v.next = self.ir_v.q.val();
        self.m11.p_flow.next = self.m10.q_flow.val();
        self.m11.i_flow.next = self.ir_flow.q.val();
        self.m11.p_set.next = self.m10.q_set.val();
        self.m11.i_set.next = self.ir_set.q.val();
        self.m11.p_value.next = self.m10.q_value.val();
        self.m11.i_value.next = self.ir_value.q.val();
        self.m11.p_lo.next = self.m10.q_lo.val();
        self.m11.i_lo.next = self.ir_lo.q.val();
        self.m11.p_hi.next = self.m10.q_hi.val();
        self.m11.i_hi.next = self.ir_hi.q.val();
        self.m11.p_nu.next = self.m10.q_nu.val();
        self.m11.i_nu.next = self.ir_nu.q.val();
        self.m11.p_nm.next = self.m10.q_nm.val();
        self.m11.i_nm.next = self.ir_nm.q.val();
        self.m11.clock.next = self.clock.val();
        self.m11.reset.next = self.reset.val();
        self.m12.p_v.next = self.m11.q_v.val();
        self.m12.i_v.next = self.ir_v.q.val();
        self.m12.p_flow.next = self.m11.q_flow.val();
        self.m12.i_flow.next = self.ir_flow.q.val();
        self.m12.p_set.next = self.m11.q_set.val();
        self.m12.i_set.next = self.ir_set.q.val();
        self.m12.p_value.next = self.m11.q_value.val();
        self.m12.i_value.next = self.ir_value.q.val();
        self.m12.p_lo.next = self.m11.q_lo.val();
        self.m12.i_lo.next = self.ir_lo.q.val();
        self.m12.p_hi.next = self.m11.q_hi.val();
        self.m12.i_hi.next = self.ir_hi.q.val();
        self.m12.p_nu.next = self.m11.q_nu.val();
        self.m12.i_nu.next = self.ir_nu.q.val();
        self.m12.p_nm.next = self.m11.q_nm.val();
        self.m12.i_nm.next = self.ir_nm.q.val();
        self.m12.clock.next = self.clock.val();
        self.m12.reset.next = self.reset.val();
        self.m13.p_v.next = self.m12.q_v.val();
        self.m13.i_v.next = self.ir_v.q.val();
        self.m13.p_flow.next = self.m12.q_flow.val();
        self.m13.i_flow.next = self.ir_flow.q.val();
        self.m13.p_set.next = self.m12.q_set.val();
        self.m13.i_set.next = self.ir_set.q.val();
        self.m13.p_value.next = self.m12.q_value.val();
        self.m13.i_value.next = self.ir_value.q.val();
        self.m13.p_lo.next = self.m12.q_lo.val();
        self.m13.i_lo.next = self.ir_lo.q.val();
        self.m13.p_hi.next = self.m12.q_hi.val();
        self.m13.i_hi.next = self.ir_hi.q.val();
        self.m13.p_nu.next = self.m12.q_nu.val();
        self.m13.i_nu.next = self.ir_nu.q.val();
        self.m13.p_nm.next = self.m12.q_nm.val();
        self.m13.i_nm.next = self.ir_nm.q.val();
        self.m13.clock.next = self.clock.val();
        self.m13.reset.next = self.reset.val();
        self.m14.p_v.next = self.m13.q_v.val();
        self.m14.i_v.next = self.ir_v.q.val();
        self.m14.p_flow.next = self.m13.q_flow.val();
        self.m14.i_flow.next = self.ir_flow.q.val();
        self.m14.p_set.next = self.m13.q_set.val();
        self.m14.i_set.next = self.ir_set.q.val();
        self.m14.p_value.next = self.m13.q_value.val();
        self.m14.i_value.next = self.ir_value.q.val();
        self.m14.p_lo.next = self.m13.q_lo.val();
        self.m14.i_lo.next = self.ir_lo.q.val();
        self.m14.p_hi.next = self.m13.q_hi.val();
        self.m14.i_hi.next = self.ir_hi.q.val();
        self.m14.p_nu.next = self.m13.q_nu.val();
        self.m14.i_nu.next = self.ir_nu.q.val();
        self.m14.p_nm.next = self.m13.q_nm.val();
        self.m14.i_nm.next = self.ir_nm.q.val();
        self.m14.clock.next = self.clock.val();
        self.m14.reset.next = self.reset.val();
        self.m15.p_v.next = self.m14.q_v.val();
        self.m15.i_v.next = self.ir_v.q.val();
        self.m15.p_flow.next = self.m14.q_flow.val();
        self.m15.i_flow.next = self.ir_flow.q.val();
        self.m15.p_set.next = self.m14.q_set.val();
        self.m15.i_set.next = self.ir_set.q.val();
        self.m15.p_value.next = self.m14.q_value.val();
        self.m15.i_value.next = self.ir_value.q.val();
        self.m15.p_lo.next = self.m14.q_lo.val();
        self.m15.i_lo.next = self.ir_lo.q.val();
        self.m15.p_hi.next = self.m14.q_hi.val();
        self.m15.i_hi.next = self.ir_hi.q.val();
        self.m15.p_nu.next = self.m14.q_nu.val();
        self.m15.i_nu.next = self.ir_nu.q.val();
        self.m15.p_nm.next = self.m14.q_nm.val();
        self.m15.i_nm.next = self.ir_nm.q.val();
        self.m15.clock.next = self.clock.val();
        self.m15.reset.next = self.reset.val();
        self.any_hit.next = self.m1.hit.val()
            | self.m2.hit.val()
            | self.m3.hit.val()
            | self.m4.hit.val()
            | self.m5.hit.val()
            | self.m6.hit.val()
            | self.m7.hit.val()
            | self.m8.hit.val()
            | self.m9.hit.val()
            | self.m10.hit.val()
            | self.m11.hit.val()
            | self.m12.hit.val()
            | self.m13.hit.val()
            | self.m14.hit.val()
            | self.m15.hit.val();
        self.s0_v.d.next = self.ir_v.q.val() & !self.any_hit.val() & !self.reset.val();
        self.s0_flow.d.next = self.ir_flow.q.val();
        self.s0_set.d.next = self.ir_set.q.val();
        self.s0_value.d.next = self.ir_value.q.val();
        self.s0_lo.d.next = self.ir_lo.q.val();
        self.s0_hi.d.next = self.ir_hi.q.val();
        self.s0_nu.d.next = self.ir_nu.q.val();
        self.s0_nm.d.next = self.ir_nm.q.val();
        // X: out of the window; the table is read at the same edge
        self.x_v.d.next = self.m15.q_v.val() & !self.reset.val();
        self.x_flow.d.next = self.m15.q_flow.val();
        self.x_set.d.next = self.m15.q_set.val();
        self.x_value.d.next = self.m15.q_value.val();
        self.x_lo.d.next = self.m15.q_lo.val();
        self.x_hi.d.next = self.m15.q_hi.val();
        self.x_nu.d.next = self.m15.q_nu.val();
        self.x_nm.d.next = self.m15.q_nm.val();
        self.cw_table.read_address.next = self.m15.q_flow.val();

        // ---- pass-through of every stage register (overridden below)
        self.c_v.d.next = self.b_v.q.val() & !self.reset.val();
        self.c_flow.d.next = self.b_flow.q.val();
        self.c_nu.d.next = self.b_nu.q.val();
        self.c_nm.d.next = self.b_nm.q.val();
        self.c_hs.d.next = self.b_hs.q.val();
        self.c_c.d.next = self.b_c.q.val();
        self.d_v.d.next = self.c_v.q.val() & !self.reset.val();
        self.d_flow.d.next = self.c_flow.q.val();
        self.d_nu.d.next = self.c_nu.q.val();
        self.d_nm.d.next = self.c_nm.q.val();
        self.d_hs.d.next = self.c_hs.q.val();
        self.d_c.d.next = self.c_c.q.val();
        self.d_sub.d.next = self.c_sub.q.val();
        self.d_e.d.next = self.c_e.q.val();
        self.e_v.d.next = self.d_v.q.val() & !self.reset.val();
        self.e_flow.d.next = self.d_flow.q.val();
        self.e_nu.d.next = self.d_nu.q.val();
        self.e_nm.d.next = self.d_nm.q.val();
        self.e_hs.d.next = self.d_hs.q.val();
        self.e_c.d.next = self.d_c.q.val();
        self.e_sub.d.next = self.d_sub.q.val();
        self.e_e.d.next = self.d_e.q.val();
        self.f_v.d.next = self.e_v.q.val() & !self.reset.val();
        self.f_flow.d.next = self.e_flow.q.val();
        self.f_nu.d.next = self.e_nu.q.val();
        self.f_nm.d.next = self.e_nm.q.val();
        self.f_hs.d.next = self.e_hs.q.val();
        self.f_c.d.next = self.e_c.q.val();
        self.f_sub.d.next = self.e_sub.q.val();
        self.f_e.d.next = self.e_e.q.val();
        self.f_nb.d.next = self.e_nb.q.val();
        self.g_v.d.next = self.f_v.q.val() & !self.reset.val();
        self.g_flow.d.next = self.f_flow.q.val();
        self.g_nu.d.next = self.f_nu.q.val();
        self.g_nm.d.next = self.f_nm.q.val();
        self.g_hs.d.next = self.f_hs.q.val();
        self.g_c.d.next = self.f_c.q.val();
        self.g_sub.d.next = self.f_sub.q.val();
        self.g_e.d.next = self.f_e.q.val();
        self.g_nb.d.next = self.f_nb.q.val();
        self.h_v.d.next = self.g_v.q.val() & !self.reset.val();
        self.h_flow.d.next = self.g_flow.q.val();
        self.h_nu.d.next = self.g_nu.q.val();
        self.h_nm.d.next = self.g_nm.q.val();
        self.h_hs.d.next = self.g_hs.q.val();
        self.h_c.d.next = self.g_c.q.val();
        self.h_sub.d.next = self.g_sub.q.val();
        self.h_e.d.next = self.g_e.q.val();
        self.h_nb.d.next = self.g_nb.q.val();
        self.i_v.d.next = self.h_v.q.val() & !self.reset.val();
        self.i_flow.d.next = self.h_flow.q.val();
        self.i_nu.d.next = self.h_nu.q.val();
        self.i_nm.d.next = self.h_nm.q.val();
        self.i_hs.d.next = self.h_hs.q.val();
        self.i_c.d.next = self.h_c.q.val();
        self.i_sub.d.next = self.h_sub.q.val();
        self.i_e.d.next = self.h_e.q.val();
        self.i_nb.d.next = self.h_nb.q.val();
        self.j_v.d.next = self.i_v.q.val() & !self.reset.val();
        self.j_flow.d.next = self.i_flow.q.val();
        self.j_nu.d.next = self.i_nu.q.val();
        self.j_nm.d.next = self.i_nm.q.val();
        self.j_hs.d.next = self.i_hs.q.val();
        self.j_c.d.next = self.i_c.q.val();
        self.j_sub.d.next = self.i_sub.q.val();
        self.j_nb.d.next = self.i_nb.q.val();
        self.j_t.d.next = self.i_t.q.val();
        self.k_v.d.next = self.j_v.q.val() & !self.reset.val();
        self.k_flow.d.next = self.j_flow.q.val();
        self.k_nu.d.next = self.j_nu.q.val();
        self.k_nm.d.next = self.j_nm.q.val();
        self.k_hs.d.next = self.j_hs.q.val();
        self.k_c.d.next = self.j_c.q.val();
        self.k_sub.d.next = self.j_sub.q.val();
        self.k_nb.d.next = self.j_nb.q.val();
        self.l_v.d.next = self.k_v.q.val() & !self.reset.val();
        self.l_flow.d.next = self.k_flow.q.val();
        self.l_nu.d.next = self.k_nu.q.val();
        self.l_nm.d.next = self.k_nm.q.val();
        self.l_hs.d.next = self.k_hs.q.val();
        self.l_c.d.next = self.k_c.q.val();
        self.l_nb.d.next = self.k_nb.q.val();
        self.m_v.d.next = self.l_v.q.val() & !self.reset.val();
        self.m_flow.d.next = self.l_flow.q.val();
        self.m_nu.d.next = self.l_nu.q.val();
        self.m_nm.d.next = self.l_nm.q.val();
        self.m_hs.d.next = self.l_hs.q.val();
        self.m_c.d.next = self.l_c.q.val();
        self.n_v.d.next = self.m_v.q.val() & !self.reset.val();
        self.n_flow.d.next = self.m_flow.q.val();
        self.n_nu.d.next = self.m_nu.q.val();
        self.n_nm.d.next = self.m_nm.q.val();
        self.n_c.d.next = self.m_c.q.val();
        self.n_big.d.next = self.m_big.q.val();
        self.n_x.d.next = self.m_x.q.val();
        self.n_y.d.next = self.m_y.q.val();
        self.o_v.d.next = self.n_v.q.val() & !self.reset.val();
        self.o_flow.d.next = self.n_flow.q.val();
        self.o_nu.d.next = self.n_nu.q.val();
        self.o_nm.d.next = self.n_nm.q.val();
        self.o_c.d.next = self.n_c.q.val();
        self.p_v.d.next = self.o_v.q.val() & !self.reset.val();
        self.p_flow.d.next = self.o_flow.q.val();
        self.p_nu.d.next = self.o_nu.q.val();
        self.p_nm.d.next = self.o_nm.q.val();
        self.p_c.d.next = self.o_c.q.val();
        self.q_v.d.next = self.p_v.q.val() & !self.reset.val();
        self.q_flow.d.next = self.p_flow.q.val();
        self.q_nu.d.next = self.p_nu.q.val();
        self.q_nm.d.next = self.p_nm.q.val();
        self.q_c.d.next = self.p_c.q.val();
        self.q_sub.d.next = self.p_sub.q.val();
        self.q_tiny.d.next = self.p_tiny.q.val();
        self.q_k.d.next = self.p_k.q.val();
        self.r_v.d.next = self.q_v.q.val() & !self.reset.val();
        self.r_flow.d.next = self.q_flow.q.val();
        self.r_nu.d.next = self.q_nu.q.val();
        self.r_nm.d.next = self.q_nm.q.val();
        self.r_c.d.next = self.q_c.q.val();
        self.r_sub.d.next = self.q_sub.q.val();
        self.r_tiny.d.next = self.q_tiny.q.val();
        self.r_k.d.next = self.q_k.q.val();
        self.s_v.d.next = self.r_v.q.val() & !self.reset.val();
        self.s_flow.d.next = self.r_flow.q.val();
        self.s_nu.d.next = self.r_nu.q.val();
        self.s_nm.d.next = self.r_nm.q.val();
        self.s_c.d.next = self.r_c.q.val();
        self.s_sub.d.next = self.r_sub.q.val();
        self.s_tiny.d.next = self.r_tiny.q.val();
        self.s_k.d.next = self.r_k.q.val();
        self.t_v.d.next = self.s_v.q.val() & !self.reset.val();
        self.t_flow.d.next = self.s_flow.q.val();
        self.t_nu.d.next = self.s_nu.q.val();
        self.t_nm.d.next = self.s_nm.q.val();
        self.t_c.d.next = self.s_c.q.val();
        self.t_sub.d.next = self.s_sub.q.val();
        self.t_tiny.d.next = self.s_tiny.q.val();
        self.t_k.d.next = self.s_k.q.val();

        // ---- B: the starting cw (the table's, or a clamped SET value)
        self.b_v.d.next = self.x_v.q.val() & !self.reset.val();
        self.b_flow.d.next = self.x_flow.q.val();
        self.b_nu.d.next = self.x_nu.q.val();
        self.b_nm.d.next = self.x_nm.q.val();
        self.b_hs.d.next = self.x_nm.q.val().get_bits::<4>(0);
        if self.x_nm.q.val() > self.hs_max.val() {
            self.b_hs.d.next = bits::<4>(8);
        }
        self.b_c.d.next = self.cw_table.read_data.val();
        if self.x_set.q.val() {
            self.b_c.d.next = self.x_value.q.val();
            if self.x_hi.q.val() {
                self.b_c.d.next = self.cf_cwmax.q.val();
            }
            if self.x_lo.q.val() {
                self.b_c.d.next = self.cf_gamma.q.val();
            }
        }
        self.mul_na.a.next = bit_cast::<16, NSUM_BITS>(self.x_nu.q.val());
        self.mul_na.b.next = bit_cast::<16, AB_BITS>(self.cf_alpha.q.val());
        self.mul_nb.a.next = bit_cast::<16, NSUM_BITS>(self.x_nm.q.val());
        self.mul_nb.b.next = bit_cast::<16, AB_BITS>(self.cf_beta.q.val());

        // ---- C: regime and exponent e = floor(log2(int(c)))
        self.c_sub.d.next = !self.b_c.q.val().get_bits::<12>(20).any();
        self.c_e.d.next = bits::<4>(0);
        if self.b_c.q.val().get_bit(21) {
            self.c_e.d.next = bits::<4>(1);
        }
        if self.b_c.q.val().get_bit(22) {
            self.c_e.d.next = bits::<4>(2);
        }
        if self.b_c.q.val().get_bit(23) {
            self.c_e.d.next = bits::<4>(3);
        }
        if self.b_c.q.val().get_bit(24) {
            self.c_e.d.next = bits::<4>(4);
        }
        if self.b_c.q.val().get_bit(25) {
            self.c_e.d.next = bits::<4>(5);
        }
        if self.b_c.q.val().get_bit(26) {
            self.c_e.d.next = bits::<4>(6);
        }
        if self.b_c.q.val().get_bit(27) {
            self.c_e.d.next = bits::<4>(7);
        }
        if self.b_c.q.val().get_bit(28) {
            self.c_e.d.next = bits::<4>(8);
        }
        if self.b_c.q.val().get_bit(29) {
            self.c_e.d.next = bits::<4>(9);
        }
        if self.b_c.q.val().get_bit(30) {
            self.c_e.d.next = bits::<4>(10);
        }
        if self.b_c.q.val().get_bit(31) {
            self.c_e.d.next = bits::<4>(11);
        }

        // ---- D: first half of the normalising shift; its cycle addresses the ROM
        self.d_t.d.next = self.c_c.q.val() >> (self.c_e.q.val() & self.mask12.val());
        self.e_low.next = self.d_e.q.val() & self.mask3.val();
        self.rom_shift.next = self.twelve.val() + bit_cast::<5, 4>(self.e_low.val());
        self.rom.address.next = bit_cast::<8, CW_BITS>(self.d_t.q.val() >> self.rom_shift.val());

        // ---- E: n_u * alpha and n_m * beta arrive; the multiplier takes na * R
        // n <= 255 and alpha, beta <= 256 keep the products below 2^16; the
        // saturation costs a few LUTs and makes that a property of the RTL
        self.e_na.d.next = bit_cast::<16, 32>(self.mul_na.p.val());
        if self.mul_na.p.val().get_bits::<16>(16).any() {
            self.e_na.d.next = self.sat16.val();
        }
        self.e_nb.d.next = bit_cast::<16, 32>(self.mul_nb.p.val());
        if self.mul_nb.p.val().get_bits::<16>(16).any() {
            self.e_nb.d.next = self.sat16.val();
        }
        self.mul_p.a.next = self.e_na.q.val();
        self.mul_p.b.next = self.rom.data.val();

        // ---- I, J: inc = p >> (4 + e), in two steps
        self.i_t.d.next =
            self.mul_p.p.val() >> (bits::<4>(4) + (self.h_e.q.val() & self.mask12.val()));
        self.j_t.d.next = self.i_t.q.val() >> (self.i_e.q.val() & self.mask3.val());
        self.j_gstep.d.next =
            bit_cast::<CW_BITS, NSUM_BITS>(self.i_nu.q.val()) << self.cf_gsh.q.val();
        // headrooms to the caps, so that K compares beside its adds
        self.j_h.d.next = bit_cast::<33, CW_BITS>(self.cf_cwmax.q.val())
            - bit_cast::<33, CW_BITS>(self.i_c.q.val());
        self.j_hg.d.next = self.one33.val() - bit_cast::<33, CW_BITS>(self.i_c.q.val());

        // ---- K: both sums, 33 bits
        self.k_x.d.next =
            bit_cast::<33, CW_BITS>(self.j_c.q.val()) + bit_cast::<33, CW_BITS>(self.j_t.q.val());
        self.k_y.d.next = bit_cast::<33, CW_BITS>(self.j_c.q.val())
            + bit_cast::<33, CW_BITS>(self.j_gstep.q.val());
        self.k_over.d.next = self.j_h.q.val().get_bit(32)
            | (self.j_t.q.val() > self.j_h.q.val().get_bits::<CW_BITS>(0));
        self.k_yover.d.next = self.j_hg.q.val().get_bit(32)
            | (self.j_gstep.q.val() > self.j_hg.q.val().get_bits::<CW_BITS>(0));

        // ---- L: the increase, capped (at 1 below 1, at cw_max above)
        if self.k_nu.q.val().any() {
            if self.k_sub.q.val() {
                self.l_c.d.next = self.k_y.q.val().get_bits::<CW_BITS>(0);
                if self.k_yover.q.val() {
                    self.l_c.d.next = self.one32.val();
                }
            } else {
                self.l_c.d.next = self.k_x.q.val().get_bits::<CW_BITS>(0);
                if self.k_over.q.val() {
                    self.l_c.d.next = self.cf_cwmax.q.val();
                }
            }
        }

        // ---- M: both decreases: linear (above 1) and the first halvings
        self.m_big.d.next = self.l_c.q.val() > self.one32.val();
        // whether the linear decrease would end below 1, decided beside it
        self.m_lt.d.next = bit_cast::<33, CW_BITS>(self.l_c.q.val())
            < (bit_cast::<33, 16>(self.l_nb.q.val()) << 12) + self.one33.val();
        self.m_x.d.next = bit_cast::<33, CW_BITS>(self.l_c.q.val())
            - (bit_cast::<33, 16>(self.l_nb.q.val()) << 12);
        self.half.next = self.l_c.q.val() >> (self.l_hs.q.val() & self.mask3.val());
        // gamma << (remaining halvings): compared with m_y in N, so that O only selects
        self.m_gthr.d.next = self.cf_gamma.q.val() << (self.l_hs.q.val() & self.mask12.val());
        self.m_y.d.next = bit_cast::<33, CW_BITS>(self.half.val());

        // ---- N: the linear decrease stops at 1; the remaining halvings
        if self.m_lt.q.val() {
            self.n_x.d.next = self.one33.val();
        }
        self.n_y.d.next = self.m_y.q.val() >> (self.m_hs.q.val() & self.mask12.val());
        self.n_ltg.d.next = self.m_y.q.val() < bit_cast::<33, CW_BITS>(self.m_gthr.q.val());

        // ---- O: the final cw, written to the table at the next edge
        if self.n_nm.q.val().any() {
            if self.n_big.q.val() {
                self.o_c.d.next = self.n_x.q.val().get_bits::<CW_BITS>(0);
            } else {
                self.o_c.d.next = self.n_y.q.val().get_bits::<CW_BITS>(0);
                if self.n_ltg.q.val() {
                    self.o_c.d.next = self.cf_gamma.q.val();
                }
            }
        }
        self.cw_table.write_address.next = self.o_flow.q.val();
        self.cw_table.write_data.next = self.o_c.q.val();
        self.cw_table.write_enable.next = self.o_v.q.val();

        // ---- P: the pacing interval's normalisation (cw < 1: cw << k has bit 19 set)
        self.p_sub.d.next = self.o_c.q.val() < self.one32.val();
        self.p_tiny.d.next =
            (self.o_c.q.val() < self.one32.val()) & !self.o_c.q.val().get_bits::<8>(12).any();
        self.p_k.d.next = bits::<3>(0);
        if self.o_c.q.val().get_bit(12) {
            self.p_k.d.next = bits::<3>(7);
        }
        if self.o_c.q.val().get_bit(13) {
            self.p_k.d.next = bits::<3>(6);
        }
        if self.o_c.q.val().get_bit(14) {
            self.p_k.d.next = bits::<3>(5);
        }
        if self.o_c.q.val().get_bit(15) {
            self.p_k.d.next = bits::<3>(4);
        }
        if self.o_c.q.val().get_bit(16) {
            self.p_k.d.next = bits::<3>(3);
        }
        if self.o_c.q.val().get_bit(17) {
            self.p_k.d.next = bits::<3>(2);
        }
        if self.o_c.q.val().get_bit(18) {
            self.p_k.d.next = bits::<3>(1);
        }
        if self.o_c.q.val().get_bit(19) {
            self.p_k.d.next = bits::<3>(0);
        }
        // P's cycle addresses ROM2; Q's cycle feeds the RTT multiplier
        self.rom2.address.next =
            bit_cast::<8, CW_BITS>((self.p_c.q.val() << self.p_k.q.val()) >> 11);
        self.mul_i.a.next = self.cf_rtt.q.val();
        self.mul_i.b.next = self.rom2.data.val();

        // ---- outputs, from T: interval = (RTT * R) >> (15 - k)
        self.ival_shift.next = self.fifteen.val() - bit_cast::<4, 3>(self.t_k.q.val());
        self.z_interval.d.next =
            bit_cast::<INTERVAL_BITS, 32>(self.mul_i.p.val() >> self.ival_shift.val());
        if self.t_tiny.q.val() {
            self.z_interval.d.next = self.interval_max.val();
        }
        if !self.t_sub.q.val() {
            self.z_interval.d.next = bits::<INTERVAL_BITS>(0);
        }
        self.z_valid.d.next = self.t_v.q.val() & !self.reset.val();
        self.z_flow.d.next = self.t_flow.q.val();
        self.z_cw.d.next = self.t_c.q.val();
        self.z_nu.d.next = self.t_nu.q.val();
        self.z_nm.d.next = self.t_nm.q.val();

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
