//! `TableSweep`: the part of a per-flow table that the packet-path blocks
//! (fast-start marker, pacing timer, ACK generator) share, written once:
//! - the refusal of flow ids beyond the table (never aliased);
//! - the update path's write port: the op of the previous cycle writes its
//!   entry's new state;
//! - the one-entry bypass of that write, so an op on the entry written in
//!   the cycle before sees the new state, not the RAM's stale word (the RAM
//!   is read one edge ahead): back-to-back ops of one flow behave as one
//!   after another;
//! - the reset sweep: after a reset, one entry written idle (0) per clock,
//!   in order, while the block takes no op.
//!
//! It mirrors the models' [`ldcp_sim::Sweep`] (the sweep's timing) and the
//! models' in-order application of ops (the bypass). The block owns no RAM:
//! the parent wires its RAM's read data to `rd_state` and `wr_*` to its
//! write port (tables written beside it take `wr_addr`, `wr_en` and zero
//! their data while `sweeping`).
//!
//! # Reset, decided here for every table
//! A cycle with `reset` high writes nothing: neither the op taken the
//! cycle before (it is dropped, as the block's doc says of ops in flight)
//! nor the sweep (which restarts at entry 0 on the next edge). The bypass
//! is cleared. After the reset the sweep writes entries 0, 1, ..., N - 1
//! in consecutive cycles (`sweeping` high, the parent's `in_ready` low) and
//! ends. `table_sweep_reset_writes_nothing_then_sweeps_in_order` shows it.
//!
//! # Timing, one-cycle ([`TableSweep::default`])
//! Edge t registers `op_flow` (its index and whether it is beyond the
//! table); in cycle t + 1 `state` is the entry's state and the parent
//! computes the new one into `wr_state`; edge t + 1 writes it (when the
//! parent raises `wr_valid`) and captures it for the bypass. The RAM's
//! read data, the bypass mux and the parent's whole update are one path.
//!
//! # Timing, deep ([`TableSweep::deep`])
//! The op is updated two cycles later, so that the loop the clock must
//! close is only the parent's update of a registered state, and the parent
//! has a cycle of its own to precompute, from registers, what its update
//! needs (a difference between the op's fields and the entry's). Stages
//! are named by the cycle the op spends in them:
//! - edge t: the op enters, the RAM reads its entry;
//! - cycle t + 1 (s1): the RAM's word, or the state written at edge t if it
//!   was this entry (the read saw the old word); registered (`p_state`);
//! - cycle t + 2 (s2): the entry's state is, newest first, the state the
//!   op in s3 writes at the next edge (`fwd`; the parent knows from which
//!   of its update's sources that state comes), the state written at edge
//!   t + 1 (`z_hit`, `z_state`), or `p_state`; edge t + 2 registers it;
//! - cycle t + 3 (s3): `state` is that register, the parent computes
//!   `wr_state`; edge t + 3 writes it.
//!
//! Back-to-back ops of one entry still behave as one after another at one
//! op per clock. `wr_valid` is the parent's s3 valid bit, `pre_valid` its
//! s2 valid bit (`fwd` is registered), and `upd_oor` says whether the s3 op
//! was refused. The parent masks each of its stage valid bits in a reset
//! cycle.

use ldcp_sim::FLOW_ID_BITS;
use rust_hdl::prelude::*;

/// See the module doc. `FB`: address bits of the table (2^FB entries);
/// `D`: bits of an entry's state.
#[derive(LogicBlock)]
pub struct TableSweep<const FB: usize, const D: usize> {
    /// The clock; every register is rising-edge.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module doc).
    pub reset: Signal<In, Bit>,
    /// The flow id of the op entering this cycle from the block's input
    /// port (any 16-bit value).
    pub op_flow: Signal<In, Bits<FLOW_ID_BITS>>,
    /// The op entering this cycle comes from inside the block instead (the
    /// ACK generator's timeout scanner): its entry is `op_entry`, never
    /// refused. Tied low by blocks whose ops all come from the port.
    pub op_internal: Signal<In, Bit>,
    /// The entry of an internal op.
    pub op_entry: Signal<In, Bits<FB>>,
    /// The table's read address this cycle: `op_flow`'s low bits.
    pub rd_addr: Signal<Out, Bits<FB>>,
    /// The entering op's table index, registered.
    pub s1_idx: Signal<Out, Bits<FB>>,
    /// The entering op's flow id was beyond the table, registered: its op
    /// writes nothing (the parent reports the error).
    pub s1_oor: Signal<Out, Bit>,
    /// The op being updated (s1, or s3 in the deep form) was beyond the table.
    pub upd_oor: Signal<Out, Bit>,
    /// Deep form, for the op in s2: its entry's state as read (registered).
    pub p_state: Signal<Out, Bits<D>>,
    /// Deep form, for the op in s2: the write of the last edge was its entry...
    pub z_hit: Signal<Out, Bit>,
    /// ... and this is the state it wrote.
    pub z_state: Signal<Out, Bits<D>>,
    /// Deep form, for the op in s2: the op in s3 writes its entry at the next
    /// edge (its `wr_state` is the newest state); registered.
    pub fwd: Signal<Out, Bit>,
    /// The RAM's read data (the word at the address of the last edge).
    pub rd_state: Signal<In, Bits<D>>,
    /// The entry's state for the op being updated (s1 in the one-cycle
    /// form, s3 in the deep one; see the module doc).
    pub state: Signal<Out, Bits<D>>,
    /// The op being updated writes its new state at the next edge (the
    /// parent's valid bit of that stage; refused ids and resets are masked
    /// here).
    pub wr_valid: Signal<In, Bit>,
    /// The new state of the op being updated.
    pub wr_state: Signal<In, Bits<D>>,
    /// Deep form: the parent's valid bit of its op in s2 (the next to be
    /// updated), so that `fwd` can be registered.
    /// Tied low by one-cycle parents.
    pub pre_valid: Signal<In, Bit>,
    /// The table's write address.
    pub wr_addr: Signal<Out, Bits<FB>>,
    /// The table's write data (0 while sweeping).
    pub wr_data: Signal<Out, Bits<D>>,
    /// The table's write enable.
    pub wr_en: Signal<Out, Bit>,
    /// The sweep is running: the parent takes no op.
    pub sweeping: Signal<Out, Bit>,
    /// The entry the sweep writes this cycle.
    pub sweep_ptr: Signal<Out, Bits<FB>>,
    idx1: DFF<Bits<FB>>,
    oor1: DFF<Bit>,
    hit: DFF<Bit>,
    wb_state: DFF<Bits<D>>,
    active: DFF<Bit>,
    ptr: DFF<Bits<FB>>,
    idx2: DFF<Bits<FB>>,
    oor2: DFF<Bit>,
    idx3: DFF<Bits<FB>>,
    oor3: DFF<Bit>,
    p_st: DFF<Bits<D>>,
    hitz: DFF<Bit>,
    fwdr: DFF<Bit>,
    st3: DFF<Bits<D>>,
    write_op: Signal<Local, Bit>,
    w_idx: Signal<Local, Bits<FB>>,
    w_oor: Signal<Local, Bit>,
    s1_state: Signal<Local, Bits<D>>,
    deep: Constant<Bit>,
    flow_max: Constant<Bits<FLOW_ID_BITS>>,
    last_idx: Constant<Bits<FB>>,
    one: Constant<Bits<FB>>,
}

impl<const FB: usize, const D: usize> Default for TableSweep<FB, D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            op_flow: Default::default(),
            op_internal: Default::default(),
            op_entry: Default::default(),
            rd_addr: Default::default(),
            s1_idx: Default::default(),
            s1_oor: Default::default(),
            upd_oor: Default::default(),
            p_state: Default::default(),
            z_hit: Default::default(),
            z_state: Default::default(),
            fwd: Default::default(),
            rd_state: Default::default(),
            state: Default::default(),
            wr_valid: Default::default(),
            wr_state: Default::default(),
            pre_valid: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_en: Default::default(),
            sweeping: Default::default(),
            sweep_ptr: Default::default(),
            idx1: Default::default(),
            oor1: Default::default(),
            hit: Default::default(),
            wb_state: Default::default(),
            active: Default::default(),
            ptr: Default::default(),
            idx2: Default::default(),
            oor2: Default::default(),
            idx3: Default::default(),
            oor3: Default::default(),
            p_st: Default::default(),
            hitz: Default::default(),
            fwdr: Default::default(),
            st3: Default::default(),
            write_op: Default::default(),
            w_idx: Default::default(),
            w_oor: Default::default(),
            s1_state: Default::default(),
            deep: Constant::new(false),
            flow_max: Constant::new(Bits::<FLOW_ID_BITS>::from((1u64 << FB) - 1)),
            last_idx: Constant::new(Bits::<FB>::from((1u64 << FB) - 1)),
            one: Constant::new(Bits::<FB>::from(1u64)),
        }
    }
}

impl<const FB: usize, const D: usize> TableSweep<FB, D> {
    /// The deep form (see the module doc).
    pub fn deep() -> Self {
        Self {
            deep: Constant::new(true),
            ..Default::default()
        }
    }
}

impl<const FB: usize, const D: usize> Logic for TableSweep<FB, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, idx1, oor1, hit, wb_state, active, ptr, idx2, oor2, idx3, oor3, p_st,
            hitz, fwdr, st3
        );
        // ---- the entering op: its index, and whether it is in the table
        self.rd_addr.next = self.op_flow.val().get_bits::<FB>(0);
        self.oor1.d.next = self.op_flow.val() > self.flow_max.val();
        if self.op_internal.val() {
            self.rd_addr.next = self.op_entry.val();
            self.oor1.d.next = false;
        }
        self.idx1.d.next = self.rd_addr.val();
        self.s1_idx.next = self.idx1.q.val();
        self.s1_oor.next = self.oor1.q.val();
        self.idx2.d.next = self.idx1.q.val();
        self.oor2.d.next = self.oor1.q.val();
        self.idx3.d.next = self.idx2.q.val();
        self.oor3.d.next = self.oor2.q.val();

        // ---- the op being updated: s1 (one-cycle) or s3 (deep)
        self.w_idx.next = self.idx1.q.val();
        self.w_oor.next = self.oor1.q.val();
        if self.deep.val() {
            self.w_idx.next = self.idx3.q.val();
            self.w_oor.next = self.oor3.q.val();
        }
        self.upd_oor.next = self.w_oor.val();
        self.write_op.next = self.wr_valid.val() & !self.w_oor.val() & !self.reset.val();

        // ---- the s1 op's state: the RAM's word, or the bypass of the last
        // write (whether the entering op's entry is the one being written is
        // decided the cycle before, so the select comes from a register)
        self.s1_state.next = self.rd_state.val();
        if self.hit.q.val() {
            self.s1_state.next = self.wb_state.q.val();
        }
        self.state.next = self.s1_state.val();

        // ---- deep: registered for s2; in s2 the write of the last edge and
        // the s3 op's write are newer; the result is registered for s3
        self.p_st.d.next = self.s1_state.val();
        self.hitz.d.next =
            self.write_op.val() & !self.active.q.val() & (self.w_idx.val() == self.idx1.q.val());
        self.p_state.next = self.p_st.q.val();
        self.z_hit.next = self.hitz.q.val();
        self.z_state.next = self.wb_state.q.val();
        // (registered: the op now in s2 writes in the next cycle unless a
        // reset comes, and a reset drops the op this select serves)
        self.fwdr.d.next = self.pre_valid.val()
            & !self.oor2.q.val()
            & !self.reset.val()
            & (self.idx2.q.val() == self.idx1.q.val());
        self.fwd.next = self.fwdr.q.val();
        self.st3.d.next = self.p_st.q.val();
        if self.hitz.q.val() {
            self.st3.d.next = self.wb_state.q.val();
        }
        if self.fwdr.q.val() {
            self.st3.d.next = self.wr_state.val();
        }
        if self.deep.val() {
            self.state.next = self.st3.q.val();
        }

        // ---- the write: the op's new state, or the sweep; nothing in a reset cycle
        self.wr_addr.next = self.w_idx.val();
        self.wr_data.next = self.wr_state.val();
        self.wr_en.next = self.write_op.val();
        if self.active.q.val() {
            self.wr_addr.next = self.ptr.q.val();
            self.wr_data.next = bits::<D>(0);
            self.wr_en.next = !self.reset.val();
        }
        self.hit.d.next =
            self.write_op.val() & !self.active.q.val() & (self.w_idx.val() == self.rd_addr.val());
        self.wb_state.d.next = self.wr_state.val();

        // ---- the sweep
        self.ptr.d.next = self.ptr.q.val();
        if self.active.q.val() {
            self.ptr.d.next = self.ptr.q.val() + self.one.val();
            if self.ptr.q.val() == self.last_idx.val() {
                self.active.d.next = false;
            }
        }
        if self.reset.val() {
            self.active.d.next = true;
            self.ptr.d.next = bits::<FB>(0);
        }
        self.sweeping.next = self.active.q.val();
        self.sweep_ptr.next = self.ptr.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One cycle of the block in RustHDL's simulator: inputs set with the
    /// clock low, then the rising edge; the outputs of the next cycle.
    struct Sim(TableSweep<3, 8>);

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Out {
        wr_en: bool,
        wr_addr: u64,
        wr_data: u64,
        sweeping: bool,
        state: u64,
        s1_oor: bool,
    }

    impl Sim {
        fn new() -> Self {
            let mut u = TableSweep::<3, 8>::default();
            u.connect_all();
            Sim(u)
        }

        /// Sets the inputs for the coming edge and returns the write port
        /// as it is presented to that edge.
        fn present(&mut self, reset: bool, op_flow: u64, wr_valid: bool, wr_state: u64) -> Out {
            let u = &mut self.0;
            u.clock.next = Clock::from(false);
            u.reset.next = reset;
            u.op_flow.next = op_flow.into();
            u.wr_valid.next = wr_valid;
            u.wr_state.next = wr_state.into();
            u.rd_state.next = 0xAA.into();
            assert!(simulate(u, 50));
            Out {
                wr_en: u.wr_en.val(),
                wr_addr: u.wr_addr.val().to_u64(),
                wr_data: u.wr_data.val().to_u64(),
                sweeping: u.sweeping.val(),
                state: u.state.val().to_u64(),
                s1_oor: u.s1_oor.val(),
            }
        }

        fn edge(&mut self) {
            self.0.clock.next = Clock::from(true);
            assert!(simulate(&mut self.0, 50));
        }
    }

    /// The reset gating, decided once for the three tables: a reset cycle
    /// writes nothing (not the op taken the cycle before, not the sweep),
    /// then the sweep writes every entry idle, in order, one per cycle,
    /// and a reset during the sweep restarts it at entry 0. The bypass
    /// serves the write of the edge before, and never across a reset.
    #[test]
    fn table_sweep_reset_writes_nothing_then_sweeps_in_order() {
        let mut s = Sim::new();
        // power-up: no sweep; an op on entry 5 writes 0x11 at the next edge
        let o = s.present(false, 5, false, 0);
        assert!(!o.sweeping && !o.wr_en);
        s.edge();
        let o = s.present(false, 5, true, 0x11);
        assert_eq!((o.wr_en, o.wr_addr, o.wr_data), (true, 5, 0x11));
        s.edge();
        // the next op on entry 5 sees 0x11 through the bypass (the RAM says 0xAA)
        let o = s.present(false, 5, true, 0x12);
        assert_eq!(o.state, 0x11);
        // ... but a reset in this cycle: the op's write does not happen
        let o = s.present(true, 5, true, 0x12);
        assert!(!o.wr_en, "a reset cycle writes nothing");
        s.edge();
        // the sweep: entries 0..7, one per cycle, data 0; no bypass after it
        for k in 0..8u64 {
            let o = s.present(false, 5, true, 0x99);
            assert_eq!(
                (o.sweeping, o.wr_en, o.wr_addr, o.wr_data),
                (true, true, k, 0),
                "sweep cycle {k}"
            );
            if k == 3 {
                // a reset during the sweep: nothing written, the sweep restarts
                let o = s.present(true, 5, true, 0x99);
                assert!(!o.wr_en);
                s.edge();
                for j in 0..8u64 {
                    let o = s.present(false, 5, false, 0);
                    assert_eq!((o.wr_en, o.wr_addr), (true, j), "restarted sweep {j}");
                    s.edge();
                }
                break;
            }
            s.edge();
        }
        let o = s.present(false, 5, false, 0);
        assert!(
            !o.sweeping && !o.wr_en,
            "the sweep ended after the last entry"
        );
        assert_eq!(o.state, 0xAA, "no bypass of a sweep write");
        // a flow id beyond the table is refused: no write, never aliased
        s.edge();
        let o = s.present(false, 8 + 5, false, 0);
        s.edge();
        let o2 = s.present(false, 0, true, 0x33);
        assert!(!o.s1_oor && o2.s1_oor && !o2.wr_en, "{o:?} {o2:?}");
    }
}
