//! `PacingTimer`: the gamma floor's timer, 256 flows, at most one send
//! credit per clock (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2).
//!
//! The rules (join, leave, due times, catch-up), the lateness bound (N - 1
//! cycles for any number of flows due at once) and the behaviour on bad
//! input are documented once, with the golden model, in
//! `ldcp_sim::pacing_timer`; `PacingTimerModel` mirrors this file and
//! cosimulation compares every output every cycle.
//!
//! # Structure
//! ```text
//! update path  edge t: in_* -> s1_*, A read (in_flow)
//!              t+1:    A entry (or the bypass of the last write): join or
//!                      leave; edge t+1 writes A and U
//! scanner      every edge r: U and S read entry sc_ptr, sc_ptr += 1
//!              X1 (r+1): the entries, T and "fresh join?" registered
//!              X2 (r+2): next due = join + interval (fresh) or S's
//!              X3 (r+3): T - next, next + interval, T + interval
//!              X4 (r+4): due? next += interval (or T + interval when a
//!                      whole interval behind) -> y_* registers
//!              Y (r+5): S written, out_* (the grant)
//! (one carry chain per scanner stage, so each closes 100 MHz)
//! ```
//! Tables (block RAM, 256 entries): A = active | join (26 bits, the update
//! path's own), U = active | interval | join (50, update path -> scanner),
//! S = active seen | join seen | next due (51, the scanner's own). Each table
//! has one writer, so updates and the scan never compete for a port. A's
//! sweep, write port, bypass and refusal of ids beyond the table are the
//! shared [`TableSweep`] (U is written with A; S is swept with them).
//!
//! # Timing
//! - One update per clock (`in_ready` high except during the reset sweep).
//! - A visit whose table read is at edge r has its grant on `out_*` after
//!   edge r + 4 (T is that of cycle r + 1); a flow is visited every 256
//!   cycles.
//! - `reset` (synchronous): T = 0, pointers 0, outputs cleared, the update
//!   taken the cycle before dropped (a reset cycle writes nothing, see
//!   [`TableSweep`]), then the three tables are swept idle (256 cycles).

use crate::table_sweep::TableSweep;
use ldcp_sim::pacing_timer::{
    FLOW_ID_BITS, FPGA_FLOW_BITS, INTERVAL_BITS, LATE_BITS, MIN_FLOW_BITS, T_BITS,
};
use rust_hdl::prelude::*;

/// Flow bits of the iCE40 build (256 flows).
pub const FB_ICE40: usize = FPGA_FLOW_BITS;
/// Flow bits of the simulation-size build (4,096 flows).
pub const FB_4K: usize = 12;
const TB: usize = T_BITS as usize;
const IB: usize = INTERVAL_BITS;
const A_BITS: usize = 1 + TB;
const U_BITS: usize = 1 + IB + TB;
const S_BITS: usize = 1 + 2 * TB;
const _: () = assert!(FB_ICE40 == 8 && TB == 25 && IB == 24 && LATE_BITS == 16);
const _: () = assert!(A_BITS == 26 && U_BITS == 50 && S_BITS == 51);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "pacing_timer",
    doc: "pacing timer of the gamma floor: one send credit per clock to flows with cw < 1 every RTT/cw, 256 flows (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2)",
    open: &["ts$s1_idx", "ts$upd_oor", "ts$p_state", "ts$z_hit", "ts$z_state", "ts$fwd"],
    subs: &[],
};

/// Flow bits of the formal-size build: [`crate::generate::FB_FORMAL`], or
/// the fewest the scanner allows ([`MIN_FLOW_BITS`], 8 flows), whichever is
/// more.
pub const FB_FORMAL: usize = if crate::generate::FB_FORMAL > MIN_FLOW_BITS as usize {
    crate::generate::FB_FORMAL
} else {
    MIN_FLOW_BITS as usize
};

/// The module of the formal-size build, 2^[`FB_FORMAL`] flows: the
/// block's name and ports, for its property harness in `formal/`.
pub const MODULE_FORMAL: crate::generate::Module = crate::generate::Module {
    name: MODULE.name,
    doc: "the pacing timer at the formal size its property harness proves (pacing_timer::FB_FORMAL flow bits)",
    open: MODULE.open,
    subs: &[],
};

/// The module of the simulation-size build, 4,096 flows.
pub const MODULE_4K: crate::generate::Module = crate::generate::Module {
    name: "pacing_timer_4k",
    doc: "the pacing timer with 4,096 flows (simulation size)",
    open: MODULE.open,
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]), 256 flows.
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, PacingTimer::<FB_ICE40>::default())
}

/// The simulation-size block's Verilog (module [`MODULE_4K`]), 4,096 flows.
pub fn verilog_4k() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE_4K, PacingTimer::<FB_4K>::default())
}

/// The formal-size block's Verilog (module [`MODULE_FORMAL`], 2^[`FB_FORMAL`]
/// flows), for its property harness.
pub fn verilog_formal() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE_FORMAL, PacingTimer::<FB_FORMAL>::default())
}

/// See the module doc. `FB` sizes the flow tables: 2^`FB` flows, 8 (256)
/// on the iCE40, 12 (4,096) in simulation, at least [`MIN_FLOW_BITS`] (8
/// flows: the scanner writes a flow's entry five edges after reading it,
/// before its next visit); fewer is refused when the block is built.
#[derive(LogicBlock)]
pub struct PacingTimer<const FB: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (see the module doc).
    pub reset: Signal<In, Bit>,
    // ---- updates in (from the window engine's output)
    /// An update this cycle (taken when `in_ready`).
    pub in_valid: Signal<In, Bit>,
    /// 0: an update; 1: a restart (the flow reset): interval 0 leaves, any
    /// other interval joins afresh, its first grant one interval from now.
    pub in_restart: Signal<In, Bit>,
    /// Flow id, 16 bits (ids >= 256 are refused, `o_err_flow`).
    pub in_flow: Signal<In, Bits<FLOW_ID_BITS>>,
    /// Pacing interval, cycles, UQ24; 0 when cw >= 1 (the flow leaves).
    pub in_interval_cycles: Signal<In, Bits<IB>>,
    /// Updates are taken (low during the reset sweep).
    pub in_ready: Signal<Out, Bit>,
    // ---- grants out (registered)
    /// One send credit for `grant_flow`.
    pub out_valid: Signal<Out, Bit>,
    /// The granted flow.
    pub out_flow: Signal<Out, Bits<FLOW_ID_BITS>>,
    /// Lateness of the grant, cycles (T - due at the visit, low 16 bits).
    pub out_late_cycles: Signal<Out, Bits<LATE_BITS>>,
    /// The update taken two cycles ago named a flow beyond the table.
    pub stat_err_flow_strobe: Signal<Out, Bit>,
    // ---- registers
    t_now: DFF<Bits<TB>>,
    s1_v: DFF<Bit>,
    s1_kind: DFF<Bit>,
    s1_iv: DFF<Bits<IB>>,
    sc_ptr: DFF<Bits<FB>>,
    sc_idx: DFF<Bits<FB>>,
    sc_v: DFF<Bit>,
    x1_v: DFF<Bit>,
    x1_idx: DFF<Bits<FB>>,
    x1_uact: DFF<Bit>,
    x1_iv: DFF<Bits<IB>>,
    x1_ujoin: DFF<Bits<TB>>,
    x1_snext: DFF<Bits<TB>>,
    x1_fresh: DFF<Bit>,
    x1_t: DFF<Bits<TB>>,
    x2_v: DFF<Bit>,
    x2_idx: DFF<Bits<FB>>,
    x2_uact: DFF<Bit>,
    x2_iv: DFF<Bits<IB>>,
    x2_ujoin: DFF<Bits<TB>>,
    x2_snext: DFF<Bits<TB>>,
    x2_nxt: DFF<Bits<TB>>,
    x2_t: DFF<Bits<TB>>,
    x3_v: DFF<Bit>,
    x3_idx: DFF<Bits<FB>>,
    x3_uact: DFF<Bit>,
    x3_iv: DFF<Bits<IB>>,
    x3_ujoin: DFF<Bits<TB>>,
    x3_snext: DFF<Bits<TB>>,
    x3_nxt: DFF<Bits<TB>>,
    x3_diff: DFF<Bits<TB>>,
    x3_n2: DFF<Bits<TB>>,
    x3_tn: DFF<Bits<TB>>,
    y_v: DFF<Bit>,
    y_idx: DFF<Bits<FB>>,
    y_s: DFF<Bits<S_BITS>>,
    y_grant: DFF<Bit>,
    y_late: DFF<Bits<LATE_BITS>>,
    q_err: DFF<Bit>,
    // ---- tables: A's sweep, write port (U's too) and bypass; S swept with them
    ts: TableSweep<FB, A_BITS>,
    t_a: RAM<Bits<A_BITS>, FB>,
    t_u: RAM<Bits<U_BITS>, FB>,
    t_s: RAM<Bits<S_BITS>, FB>,
    // ---- combinational: update path
    a_cur: Signal<Local, Bits<A_BITS>>,
    a_join: Signal<Local, Bits<TB>>,
    u_join_new: Signal<Local, Bits<TB>>,
    leave: Signal<Local, Bit>,
    u_wdata: Signal<Local, Bits<U_BITS>>,
    // ---- combinational: scanner X
    u_active: Signal<Local, Bit>,
    u_iv: Signal<Local, Bits<IB>>,
    u_iv25: Signal<Local, Bits<TB>>,
    u_join: Signal<Local, Bits<TB>>,
    s_active: Signal<Local, Bit>,
    s_join: Signal<Local, Bits<TB>>,
    s_next: Signal<Local, Bits<TB>>,
    nxt: Signal<Local, Bits<TB>>,
    diff: Signal<Local, Bits<TB>>,
    due: Signal<Local, Bit>,
    diff_lo: Signal<Local, Bits<IB>>,
    nxt_w: Signal<Local, Bits<TB>>,
    x2_iv25: Signal<Local, Bits<TB>>,
    // ---- constants
    one_fb: Constant<Bits<FB>>,
    one_tb: Constant<Bits<TB>>,
    a_active_bit: Constant<Bits<A_BITS>>,
    u_active_bit: Constant<Bits<U_BITS>>,
    s_active_bit: Constant<Bits<S_BITS>>,
}

impl<const FB: usize> Default for PacingTimer<FB> {
    fn default() -> Self {
        assert!(
            (MIN_FLOW_BITS as usize..=FLOW_ID_BITS).contains(&FB),
            "flow bits {FB} out of [{MIN_FLOW_BITS}, {FLOW_ID_BITS}]"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_restart: Default::default(),
            in_flow: Default::default(),
            in_interval_cycles: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_flow: Default::default(),
            out_late_cycles: Default::default(),
            stat_err_flow_strobe: Default::default(),
            t_now: Default::default(),
            s1_v: Default::default(),
            s1_kind: Default::default(),
            s1_iv: Default::default(),
            sc_ptr: Default::default(),
            sc_idx: Default::default(),
            sc_v: Default::default(),
            x1_v: Default::default(),
            x1_idx: Default::default(),
            x1_uact: Default::default(),
            x1_iv: Default::default(),
            x1_ujoin: Default::default(),
            x1_snext: Default::default(),
            x1_fresh: Default::default(),
            x1_t: Default::default(),
            x2_v: Default::default(),
            x2_idx: Default::default(),
            x2_uact: Default::default(),
            x2_iv: Default::default(),
            x2_ujoin: Default::default(),
            x2_snext: Default::default(),
            x2_nxt: Default::default(),
            x2_t: Default::default(),
            x3_v: Default::default(),
            x3_idx: Default::default(),
            x3_uact: Default::default(),
            x3_iv: Default::default(),
            x3_ujoin: Default::default(),
            x3_snext: Default::default(),
            x3_nxt: Default::default(),
            x3_diff: Default::default(),
            x3_n2: Default::default(),
            x3_tn: Default::default(),
            y_v: Default::default(),
            y_idx: Default::default(),
            y_s: Default::default(),
            y_grant: Default::default(),
            y_late: Default::default(),
            q_err: Default::default(),
            ts: Default::default(),
            t_a: RAM::from((0..1usize << FB).map(|_| Bits::<A_BITS>::from(0u64))),
            t_u: RAM::from((0..1usize << FB).map(|_| Bits::<U_BITS>::from(0u64))),
            t_s: RAM::from((0..1usize << FB).map(|_| Bits::<S_BITS>::from(0u64))),
            a_cur: Default::default(),
            a_join: Default::default(),
            u_join_new: Default::default(),
            leave: Default::default(),
            u_wdata: Default::default(),
            u_active: Default::default(),
            u_iv: Default::default(),
            u_iv25: Default::default(),
            u_join: Default::default(),
            s_active: Default::default(),
            s_join: Default::default(),
            s_next: Default::default(),
            nxt: Default::default(),
            diff: Default::default(),
            due: Default::default(),
            diff_lo: Default::default(),
            nxt_w: Default::default(),
            x2_iv25: Default::default(),
            one_fb: Constant::new(Bits::<FB>::from(1u64)),
            one_tb: Constant::new(Bits::<TB>::from(1u64)),
            a_active_bit: Constant::new(Bits::<A_BITS>::from(1u64 << TB)),
            u_active_bit: Constant::new(Bits::<U_BITS>::from(1u64 << (IB + TB))),
            s_active_bit: Constant::new(Bits::<S_BITS>::from(1u64 << (2 * TB))),
        }
    }
}

impl<const FB: usize> Logic for PacingTimer<FB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, t_now, s1_v, s1_kind, s1_iv, sc_ptr, sc_idx, sc_v, x1_v, x1_idx, x1_uact,
            x1_iv, x1_ujoin, x1_snext, x1_fresh, x1_t, x2_v, x2_idx, x2_uact, x2_iv, x2_ujoin,
            x2_snext, x2_nxt, x2_t, x3_v, x3_idx, x3_uact, x3_iv, x3_ujoin, x3_snext, x3_nxt,
            x3_diff, x3_n2, x3_tn, y_v, y_idx, y_s, y_grant, y_late, q_err
        );
        self.t_a.read_clock.next = self.clock.val();
        self.t_a.write_clock.next = self.clock.val();
        self.t_u.read_clock.next = self.clock.val();
        self.t_u.write_clock.next = self.clock.val();
        self.t_s.read_clock.next = self.clock.val();
        self.t_s.write_clock.next = self.clock.val();
        self.ts.clock.next = self.clock.val();
        self.ts.reset.next = self.reset.val();

        // ---- time
        self.t_now.d.next = self.t_now.q.val() + self.one_tb.val();

        // ---- update path: input register, A read one edge ahead
        self.in_ready.next = !self.ts.sweeping.val();
        self.s1_v.d.next = self.in_valid.val() & !self.ts.sweeping.val() & !self.reset.val();
        self.s1_kind.d.next = self.in_restart.val();
        self.ts.op_flow.next = self.in_flow.val();
        self.ts.pre_valid.next = false;
        self.ts.op_internal.next = false;
        self.ts.op_entry.next = bits::<FB>(0);
        self.s1_iv.d.next = self.in_interval_cycles.val();
        self.t_a.read_address.next = self.ts.rd_addr.val();

        // ---- update path: join or leave
        self.ts.rd_state.next = self.t_a.read_data.val();
        self.a_cur.next = self.ts.state.val();
        self.a_join.next = self.a_cur.val().get_bits::<TB>(0);
        self.leave.next = !self.s1_iv.q.val().any();
        self.u_join_new.next = self.a_join.val();
        // a new member, or a restart (kind 1): the join is now
        if !self.a_cur.val().get_bit(25) | self.s1_kind.q.val() {
            self.u_join_new.next = self.t_now.q.val();
        }
        if self.leave.val() {
            self.ts.wr_state.next = bit_cast::<A_BITS, TB>(self.a_join.val());
            self.u_wdata.next = bit_cast::<U_BITS, TB>(self.a_join.val());
        } else {
            self.ts.wr_state.next =
                self.a_active_bit.val() | bit_cast::<A_BITS, TB>(self.u_join_new.val());
            self.u_wdata.next = self.u_active_bit.val()
                | (bit_cast::<U_BITS, IB>(self.s1_iv.q.val()) << 25)
                | bit_cast::<U_BITS, TB>(self.u_join_new.val());
        }
        self.ts.wr_valid.next = self.s1_v.q.val();
        self.t_a.write_address.next = self.ts.wr_addr.val();
        self.t_a.write_data.next = self.ts.wr_data.val();
        self.t_a.write_enable.next = self.ts.wr_en.val();
        // U is written with A (the sweep zeroes it too)
        self.t_u.write_address.next = self.ts.wr_addr.val();
        self.t_u.write_data.next = self.u_wdata.val();
        if self.ts.sweeping.val() {
            self.t_u.write_data.next = bits::<U_BITS>(0);
        }
        self.t_u.write_enable.next = self.ts.wr_en.val();
        self.q_err.d.next = self.s1_v.q.val() & self.ts.s1_oor.val() & !self.reset.val();
        self.stat_err_flow_strobe.next = self.q_err.q.val();

        // ---- scanner: U and S read at sc_ptr, one flow per clock
        self.t_u.read_address.next = self.sc_ptr.q.val();
        self.t_s.read_address.next = self.sc_ptr.q.val();
        self.sc_ptr.d.next = self.sc_ptr.q.val() + self.one_fb.val();
        self.sc_idx.d.next = self.sc_ptr.q.val();
        self.sc_v.d.next = !self.ts.sweeping.val() & !self.reset.val();

        // ---- scanner X1 (the cycle after the read): the entries and T
        // registered, and whether the join is fresh (a 25-bit equality)
        self.u_active.next = self.t_u.read_data.val().get_bit(49);
        self.u_iv.next = self.t_u.read_data.val().get_bits::<IB>(25);
        self.u_join.next = self.t_u.read_data.val().get_bits::<TB>(0);
        self.s_active.next = self.t_s.read_data.val().get_bit(50);
        self.s_join.next = self.t_s.read_data.val().get_bits::<TB>(25);
        self.s_next.next = self.t_s.read_data.val().get_bits::<TB>(0);
        self.x1_v.d.next = self.sc_v.q.val() & !self.reset.val();
        self.x1_idx.d.next = self.sc_idx.q.val();
        self.x1_uact.d.next = self.u_active.val();
        self.x1_iv.d.next = self.u_iv.val();
        self.x1_ujoin.d.next = self.u_join.val();
        self.x1_snext.d.next = self.s_next.val();
        self.x1_fresh.d.next = !self.s_active.val() | (self.u_join.val() != self.s_join.val());
        self.x1_t.d.next = self.t_now.q.val();

        // ---- X2: the due time, a fresh join's first (join + interval)
        self.u_iv25.next = bit_cast::<TB, IB>(self.x1_iv.q.val());
        self.nxt.next = self.x1_snext.q.val();
        if self.x1_fresh.q.val() {
            self.nxt.next = self.x1_ujoin.q.val() + self.u_iv25.val();
        }
        self.x2_v.d.next = self.x1_v.q.val() & !self.reset.val();
        self.x2_idx.d.next = self.x1_idx.q.val();
        self.x2_uact.d.next = self.x1_uact.q.val();
        self.x2_iv.d.next = self.x1_iv.q.val();
        self.x2_ujoin.d.next = self.x1_ujoin.q.val();
        self.x2_snext.d.next = self.x1_snext.q.val();
        self.x2_nxt.d.next = self.nxt.val();
        self.x2_t.d.next = self.x1_t.q.val();

        // ---- X3: T - due, the due time after this grant, T + interval
        // (T is the visit's, the cycle after the read, carried along)
        self.x2_iv25.next = bit_cast::<TB, IB>(self.x2_iv.q.val());
        self.x3_v.d.next = self.x2_v.q.val() & !self.reset.val();
        self.x3_idx.d.next = self.x2_idx.q.val();
        self.x3_uact.d.next = self.x2_uact.q.val();
        self.x3_iv.d.next = self.x2_iv.q.val();
        self.x3_ujoin.d.next = self.x2_ujoin.q.val();
        self.x3_snext.d.next = self.x2_snext.q.val();
        self.x3_nxt.d.next = self.x2_nxt.q.val();
        self.x3_diff.d.next = self.x2_t.q.val() - self.x2_nxt.q.val();
        self.x3_n2.d.next = self.x2_nxt.q.val() + self.x2_iv25.val();
        self.x3_tn.d.next = self.x2_t.q.val() + self.x2_iv25.val();

        // ---- X4: due? the next due time (catch up when a whole interval behind)
        self.diff.next = self.x3_diff.q.val();
        self.due.next = !self.diff.val().get_bit(24);
        // T - (nxt + iv) >= 0 <=> diff >= iv, with diff < 2^24 when due
        self.diff_lo.next = self.diff.val().get_bits::<IB>(0);
        self.nxt_w.next = self.x3_nxt.q.val();
        if self.due.val() {
            self.nxt_w.next = self.x3_n2.q.val();
            if self.diff_lo.val() >= self.x3_iv.q.val() {
                self.nxt_w.next = self.x3_tn.q.val();
            }
        }
        self.y_v.d.next = self.x3_v.q.val() & !self.reset.val();
        self.y_idx.d.next = self.x3_idx.q.val();
        self.y_grant.d.next = self.x3_uact.q.val() & self.due.val();
        self.y_late.d.next = self.diff.val().get_bits::<LATE_BITS>(0);
        if self.x3_uact.q.val() {
            self.y_s.d.next = self.s_active_bit.val()
                | (bit_cast::<S_BITS, TB>(self.x3_ujoin.q.val()) << 25)
                | bit_cast::<S_BITS, TB>(self.nxt_w.val());
        } else {
            self.y_s.d.next = (bit_cast::<S_BITS, TB>(self.x3_ujoin.q.val()) << 25)
                | bit_cast::<S_BITS, TB>(self.x3_snext.q.val());
        }

        // ---- scanner Y: the S write and the grant
        self.t_s.write_address.next = self.y_idx.q.val();
        self.t_s.write_data.next = self.y_s.q.val();
        self.t_s.write_enable.next = self.y_v.q.val() & !self.reset.val();
        self.out_valid.next = self.y_v.q.val() & self.y_grant.q.val();
        self.out_flow.next = bits::<FLOW_ID_BITS>(0);
        self.out_late_cycles.next = bits::<LATE_BITS>(0);
        if self.y_v.q.val() & self.y_grant.q.val() {
            self.out_flow.next = bit_cast::<FLOW_ID_BITS, FB>(self.y_idx.q.val());
            self.out_late_cycles.next = self.y_late.q.val();
        }

        // ---- S is swept with A and U (the scanner is off meanwhile)
        if self.ts.sweeping.val() {
            self.t_s.write_address.next = self.ts.sweep_ptr.val();
            self.t_s.write_data.next = bits::<S_BITS>(0);
            self.t_s.write_enable.next = !self.reset.val();
        }
        if self.reset.val() {
            self.t_now.d.next = bits::<TB>(0);
            self.sc_ptr.d.next = bits::<FB>(0);
        }
    }
}

/// The block in RustHDL's own simulator, stepped by hand
/// ([`crate::stepper`]): RustHDL's second opinion on the RTL, and the
/// `rusthdl` engine of `ldcp bench`.
pub type PacingTimerRustHdl<const FB: usize> = crate::stepper::RustHdlSim<PacingTimer<FB>>;

ldcp_sim::pacing_timer_ports!(crate::hand_stepped {
    PacingTimer<FB> [const FB: usize],
    ldcp_sim::pacing_timer::PtInputs,
    ldcp_sim::pacing_timer::PtOutputs
});

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::pacing_timer::{stimulus, PacingTimerModel};

    /// Fewer than 8 flows are refused when the block is built: the scanner
    /// would read a flow's entry again before writing it back.
    #[test]
    #[should_panic(expected = "flow bits 2 out of [3, 16]")]
    fn fewer_than_eight_flows_are_refused() {
        let _ = PacingTimer::<2>::default();
    }

    /// RustHDL's own simulation agrees with the golden model.
    fn rusthdl_matches_model<const FB: usize>(cycles: usize) {
        let mut sim = PacingTimerRustHdl::<FB>::new();
        let mut model = PacingTimerModel::new(FB as u32);
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
    fn pacing_timer_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_ICE40>(3_000);
    }

    /// The 4,096-flow build: its reset sweep (4,096 cycles) and past it.
    #[test]
    fn pacing_timer_4k_rusthdl_simulation_matches_model() {
        rusthdl_matches_model::<FB_4K>(6_000);
    }
}
