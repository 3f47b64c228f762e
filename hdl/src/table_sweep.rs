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
//! # Timing
//! Edge t registers `op_flow` (its index and whether it is beyond the
//! table); in cycle t + 1 `state` is the entry's state and the parent
//! computes the new one into `wr_state`; edge t + 1 writes it (when the
//! parent raises `wr_valid`) and captures it for the bypass.

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
    /// The RAM's read data (the word at the address of the last edge).
    pub rd_state: Signal<In, Bits<D>>,
    /// The entry's state for the op in s1: the RAM's word, or the state
    /// written by the previous edge if it was the same entry.
    pub state: Signal<Out, Bits<D>>,
    /// The op in s1 writes its new state at the next edge (the parent's
    /// s1 valid bit; refused ids and resets are masked here).
    pub wr_valid: Signal<In, Bit>,
    /// The new state of the op in s1.
    pub wr_state: Signal<In, Bits<D>>,
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
    write_op: Signal<Local, Bit>,
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
            rd_state: Default::default(),
            state: Default::default(),
            wr_valid: Default::default(),
            wr_state: Default::default(),
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
            write_op: Default::default(),
            flow_max: Constant::new(Bits::<FLOW_ID_BITS>::from((1u64 << FB) - 1)),
            last_idx: Constant::new(Bits::<FB>::from((1u64 << FB) - 1)),
            one: Constant::new(Bits::<FB>::from(1u64)),
        }
    }
}

impl<const FB: usize, const D: usize> Logic for TableSweep<FB, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idx1, oor1, hit, wb_state, active, ptr);
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

        // ---- the entry's state: the RAM's word, or the bypass of the last write
        // (whether the entering op's entry is the one being written is
        // decided the cycle before, so the select comes from a register)
        self.state.next = self.rd_state.val();
        if self.hit.q.val() {
            self.state.next = self.wb_state.q.val();
        }

        // ---- the write: the op's new state, or the sweep; nothing in a reset cycle
        self.write_op.next = self.wr_valid.val() & !self.oor1.q.val() & !self.reset.val();
        self.wr_addr.next = self.idx1.q.val();
        self.wr_data.next = self.wr_state.val();
        self.wr_en.next = self.write_op.val();
        if self.active.q.val() {
            self.wr_addr.next = self.ptr.q.val();
            self.wr_data.next = bits::<D>(0);
            self.wr_en.next = !self.reset.val();
        }
        self.hit.d.next =
            self.write_op.val() & !self.active.q.val() & (self.idx1.q.val() == self.rd_addr.val());
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
