//! `CounterBank<K>`: K (2 to [`SLOTS`]) 32-bit event counters kept in block RAM,
//! read exactly, for a design whose flip-flops are short (the Alchitry Cu
//! NIC's eleven extension counters: 32 flip-flops, a carry chain, a clear
//! and a 32-bit leg of the register decoder's read multiplexer each).
//!
//! Counter k counts the cycles with `inc` bit k set (at most one event a
//! cycle each); `clear` zeroes every counter (an increment in the clear
//! cycle is lost, as a flip-flop counter's whose clear is assigned last).
//! `value`, in cycle t + 1, is counter `rd_idx`'s (given in cycle t) count
//! as a flip-flop counter's would be in cycle t + 1: every increment of
//! cycles up to t. So a register decoder that samples a flip-flop counter
//! one cycle after the bus address reads the same word from `value`,
//! whatever the bus does (a read every cycle included). An index at or
//! above K reads 0.
//!
//! # How (design constants)
//! - Each counter is a word in two copies of one RAM (F and R, written
//!   together) and a pending count P_k of [`PENDING_BITS`] flip-flops.
//! - The **flush** visits counter `ptr` every cycle, round robin over the
//!   K counters: read F at t, then at t + 1 add P_k to the word and write
//!   it to F and R. The P_k and clear flag that t + 1 adds are registered
//!   at t (the pointer's counter is not the one flushed at t), so t + 1
//!   holds only the word's add, and no increment reaches the add: P_k
//!   restarts from the increments of t and t + 1 (those of t registered;
//!   none after a clear). So P_k never exceeds K + 1 (at most
//!   [`SLOTS`] + 1), and F is never read at the
//!   address written at the same edge (`ptr` advances every cycle and
//!   K >= 2). A read never delays a flush: it has R to itself.
//! - A **read** reads R at `rd_idx` in cycle t; at t + 1 `value` is that
//!   word plus P. If the flush wrote that counter at the same edge, the
//!   word is the flush's sum, kept in a register (R is read at an address
//!   written at the same edge only then, and its word is not used).
//! - A clear sets one flag per counter (its word reads as 0 until its
//!   next flush) and zeroes every P: the bank needs no sweep.
//! - Power-up: both RAMs hold 0, the flags are clear; the first cycle
//!   flushes nothing (its flush index is not the pointer's last value).

use rust_hdl::prelude::*;

/// The most counters a bank holds: the RAMs' depth.
pub const SLOTS: usize = 16;
/// Index bits.
pub const IB: usize = 4;
const _: () = assert!(1 << IB == SLOTS);
/// P's width: a counter's increments between two flushes and the cycle
/// after (at most [`SLOTS`] + 1) fit.
pub const PENDING_BITS: usize = 5;
const _: () = assert!(SLOTS + 1 < 1 << PENDING_BITS);
const PB: usize = PENDING_BITS;

/// The bank (see the module doc).
#[derive(LogicBlock)]
pub struct CounterBank<const K: usize> {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Zero every counter.
    pub clear: Signal<In, Bit>,
    /// Bit k: counter k counts an event this cycle.
    pub inc: Signal<In, Bits<K>>,
    /// The counter `value` shows next cycle.
    pub rd_idx: Signal<In, Bits<IB>>,
    /// Counter `rd_idx`'s (of the cycle before) count.
    pub value: Signal<Out, Bits<32>>,
    ram_f: RAM<Bits<32>, IB>,
    ram_r: RAM<Bits<32>, IB>,
    ptr: DFF<Bits<IB>>,
    f_v: DFF<Bit>,
    f_idx: DFF<Bits<IB>>,
    r_idx: DFF<Bits<IB>>,
    w_v: DFF<Bit>,
    w_idx: DFF<Bits<IB>>,
    w_sum: DFF<Bits<32>>,
    zeroed: DFF<Bits<K>>,
    /// the flushed counter's P and clear flag, taken a cycle ahead
    f_p: DFF<Bits<PB>>,
    /// the increments of the cycle before (none after a clear)
    inc_q: DFF<Bits<K>>,
    z_f: DFF<Bit>,
    pend: [DFF<Bits<PB>>; K],
    idx: [Constant<Bits<IB>>; K],
    onehot: [Constant<Bits<K>>; K],
    last: Constant<Bits<IB>>,
    r_p: Signal<Local, Bits<PB>>,
    n_p: Signal<Local, Bits<PB>>,
    f_word: Signal<Local, Bits<32>>,
    r_word: Signal<Local, Bits<32>>,
    f_sum: Signal<Local, Bits<32>>,
    z_r: Signal<Local, Bit>,
}

impl<const K: usize> CounterBank<K> {
    /// A bank of `K` counters (2 ..= [`SLOTS`]).
    pub fn new() -> Self {
        const {
            assert!(
                K >= 2 && K <= SLOTS,
                "a counter bank holds 2 to SLOTS counters"
            )
        };
        let zero = || RAM::from((0..SLOTS).map(|_| Bits::<32>::from(0u64)));
        CounterBank {
            clock: Default::default(),
            clear: Default::default(),
            inc: Default::default(),
            rd_idx: Default::default(),
            value: Default::default(),
            ram_f: zero(),
            ram_r: zero(),
            ptr: Default::default(),
            f_v: Default::default(),
            f_idx: Default::default(),
            r_idx: Default::default(),
            w_v: Default::default(),
            w_idx: Default::default(),
            w_sum: Default::default(),
            zeroed: Default::default(),
            pend: std::array::from_fn(|_| Default::default()),
            idx: std::array::from_fn(|i| Constant::new(bits::<IB>(i as u64))),
            onehot: std::array::from_fn(|i| Constant::new(bits::<K>(1 << i))),
            last: Constant::new(bits::<IB>(K as u64 - 1)),
            f_p: Default::default(),
            inc_q: Default::default(),
            r_p: Default::default(),
            n_p: Default::default(),
            f_word: Default::default(),
            r_word: Default::default(),
            f_sum: Default::default(),
            z_f: Default::default(),
            z_r: Default::default(),
        }
    }
}

impl<const K: usize> Default for CounterBank<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const K: usize> Logic for CounterBank<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ptr, f_v, f_idx, r_idx, w_v, w_idx, w_sum, zeroed, f_p, z_f, inc_q);
        self.ram_f.read_clock.next = self.clock.val();
        self.ram_f.write_clock.next = self.clock.val();
        self.ram_r.read_clock.next = self.clock.val();
        self.ram_r.write_clock.next = self.clock.val();

        // ---- the flush: F read at ptr (t), the sum written at t + 1
        self.ram_f.read_address.next = self.ptr.q.val();
        self.ptr.d.next = self.ptr.q.val() + bits::<IB>(1);
        if self.ptr.q.val() == self.last.val() {
            self.ptr.d.next = bits::<IB>(0);
        }
        self.f_idx.d.next = self.ptr.q.val();
        // no flush in the first cycle: f_idx is not yet ptr's last value
        self.f_v.d.next = true;
        // the counter read now is flushed next cycle: the flush adds its P
        // of now (the flush of this cycle is of another counter, K >= 2),
        // and its flag then is its flag now, or this cycle's clear
        self.n_p.next = bits::<PB>(0);
        self.r_p.next = bits::<PB>(0);
        for k in 0..K {
            self.pend[k].clock.next = self.clock.val();
            self.pend[k].d.next = self.pend[k].q.val();
            if (self.inc.val() & self.onehot[k].val()).any() {
                self.pend[k].d.next = self.pend[k].q.val() + bits::<PB>(1);
            }
            if self.ptr.q.val() == self.idx[k].val() {
                self.n_p.next = self.pend[k].q.val();
            }
            if self.f_v.q.val() & (self.f_idx.q.val() == self.idx[k].val()) {
                // the flush adds P as it was a cycle ago: P restarts from
                // the increments of that cycle and of this one
                self.pend[k].d.next = bits::<PB>(0);
                if (self.inc_q.q.val() & self.onehot[k].val()).any() {
                    self.pend[k].d.next = bits::<PB>(1);
                }
                if (self.inc.val() & self.onehot[k].val()).any() {
                    self.pend[k].d.next = bits::<PB>(1);
                    if (self.inc_q.q.val() & self.onehot[k].val()).any() {
                        self.pend[k].d.next = bits::<PB>(2);
                    }
                }
            }
            if self.r_idx.q.val() == self.idx[k].val() {
                self.r_p.next = self.pend[k].q.val();
            }
            if self.clear.val() {
                self.pend[k].d.next = bits::<PB>(0);
            }
        }
        self.f_p.d.next = self.n_p.val();
        self.inc_q.d.next = self.inc.val();
        if self.clear.val() {
            self.f_p.d.next = bits::<PB>(0);
            self.inc_q.d.next = bits::<K>(0);
        }
        self.z_f.d.next = self.clear.val()
            | (self.zeroed.q.val() & (bits::<K>(1) << bit_cast::<K, IB>(self.ptr.q.val()))).any();
        self.f_word.next = self.ram_f.read_data.val();
        if self.z_f.q.val() {
            self.f_word.next = bits::<32>(0);
        }
        self.f_sum.next = self.f_word.val() + bit_cast::<32, PB>(self.f_p.q.val());
        self.ram_f.write_address.next = self.f_idx.q.val();
        self.ram_f.write_data.next = self.f_sum.val();
        self.ram_f.write_enable.next = self.f_v.q.val();
        self.ram_r.write_address.next = self.f_idx.q.val();
        self.ram_r.write_data.next = self.f_sum.val();
        self.ram_r.write_enable.next = self.f_v.q.val();
        self.w_v.d.next = self.f_v.q.val();
        self.w_idx.d.next = self.f_idx.q.val();
        self.w_sum.d.next = self.f_sum.val();
        if self.f_v.q.val() {
            self.zeroed.d.next =
                self.zeroed.q.val() & !(bits::<K>(1) << bit_cast::<K, IB>(self.f_idx.q.val()));
        }
        if self.clear.val() {
            self.zeroed.d.next = !bits::<K>(0);
        }

        // ---- the read: R at rd_idx (t), the count at t + 1
        self.ram_r.read_address.next = self.rd_idx.val();
        self.r_idx.d.next = self.rd_idx.val();
        self.r_word.next = self.ram_r.read_data.val();
        if self.w_v.q.val() & (self.w_idx.q.val() == self.r_idx.q.val()) {
            self.r_word.next = self.w_sum.q.val();
        }
        self.z_r.next =
            (self.zeroed.q.val() & (bits::<K>(1) << bit_cast::<K, IB>(self.r_idx.q.val()))).any();
        if self.z_r.val() {
            self.r_word.next = bits::<32>(0);
        }
        self.value.next = self.r_word.val() + bit_cast::<32, PB>(self.r_p.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One cycle: inputs with the clock low, settled, then the edge.
    fn step<const K: usize>(b: &mut CounterBank<K>, clear: bool, inc: u64, rd: u64) -> u64 {
        b.clock.next = Clock::from(false);
        b.clear.next = clear;
        b.inc.next = Bits::<K>::from(inc);
        b.rd_idx.next = Bits::<IB>::from(rd);
        assert!(simulate(b, 200), "settles");
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 200), "settles");
        b.value.val().to_u64()
    }

    /// Against plain counters, every cycle: dense and sparse phases of
    /// increments on every counter, reads of every counter (back to back,
    /// and of the counter the flush writes), clears.
    fn run<const K: usize>(seed: u64) {
        eprintln!("counter bank, {K} counters, seed {seed:#x}");
        let mut b = CounterBank::<K>::new();
        b.connect_all();
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut want = [0u64; K];
        let (mut reads, mut nonzero) = (0u64, 0u64);
        for c in 0..6_000u64 {
            let r = next();
            let dense = (c / 500) % 2 == 0;
            let mut inc = if dense { r } else { r & (r >> 16) & (r >> 32) };
            inc &= (1 << K) - 1;
            let clear = (r >> 48) % 997 == 0;
            let rd = (r >> 52) % K as u64;
            let got = step(&mut b, clear, inc, rd);
            for (i, w) in want.iter_mut().enumerate() {
                *w += (inc >> i) & 1;
                if clear {
                    *w = 0;
                }
            }
            // after the edge: counter rd's count with this cycle's increments
            assert_eq!(got, want[rd as usize], "cycle {c}: counter {rd}");
            reads += 1;
            nonzero += (got != 0) as u64;
        }
        assert!(reads == 6_000 && nonzero > 5_000, "{nonzero} nonzero");
    }

    #[test]
    fn counter_bank_reads_exact_counts() {
        run::<11>(0x5EED_0030);
        run::<2>(0x5EED_0031);
        run::<16>(0x5EED_0032);
    }
}
