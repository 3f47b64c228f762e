//! Unsigned 16 x 16 -> 32 multiplies in three stages, for the iCE40, which
//! has no DSP blocks. Two cuts of the same product, same latency:
//!
//! - [`PipelinedMul16`]: operand `b` in four nibbles, for operands that
//!   come from registers:
//!   ```text
//!   stage 1: pp_i = a * b[4i+3:4i]                 UQ16 x UQ4 -> UQ20, i = 0..3 (two adder levels)
//!   stage 2: lo = pp_0 + (pp_1 << 4)                UQ20 + UQ24 -> UQ24 (no overflow: a*b[7:0] < 2^24)
//!            hi = pp_2 + (pp_3 << 4)                same
//!   stage 3: p  = lo + (hi << 8)                    UQ24 + UQ32 -> UQ32 (no overflow: a*b < 2^32)
//!   ```
//! - [`PipelinedMul16Bram`]: `b` in eight 2-bit slices, for an operand read
//!   straight from a block RAM (whose data arrive about 2 ns after the edge
//!   on the iCE40, then cross the die): stage 1 has one adder level, the
//!   second stage two, from registers:
//!   ```text
//!   stage 1: pp_i = a * b[2i+1:2i]                 UQ16 x UQ2 -> UQ18, i = 0..7 (one adder level)
//!   stage 2: lo = (pp_0 + (pp_1 << 2)) + ((pp_2 << 4) + (pp_3 << 6))    UQ24
//!            hi = the same of pp_4..pp_7                                UQ24
//!   stage 3: p  = lo + (hi << 8)                                        UQ32
//!   ```
//!   The window engine's two reciprocal ROMs feed multipliers: its
//!   critical path ran from a ROM's read data into the nibble cut's first
//!   stage, and this cut moved it elsewhere (the committed report; the
//!   figures over five seeds are in the git history of the change).
//!
//! A combinational 16x16 multiply closes at about 65 MHz on the HX8K and a
//! 16x8 one at about 90 MHz (`TOOLCHAIN.md`); yosys does not retime, so the
//! pipeline is explicit. Latency: 3 cycles (`p` shows `a * b` three rising
//! edges after `a`, `b` were applied). Throughput: one product per cycle.
//! No reset: the pipeline flushes itself in three cycles, and its consumer
//! qualifies the product with its own valid bits. The golden models use the
//! exact product `a as u32 * b as u32`, delayed by [`MUL_LATENCY_CYCLES`].

use rust_hdl::prelude::*;

/// Cycles from operands to product (both cuts).
pub const MUL_LATENCY_CYCLES: usize = 3;

/// See the module doc: `b` in nibbles.
#[derive(LogicBlock, Default)]
pub struct PipelinedMul16 {
    /// The clock; all stages are rising-edge registers.
    pub clock: Signal<In, Clock>,
    /// Multiplicand, UQ16.
    pub a: Signal<In, Bits<16>>,
    /// Multiplier, UQ16.
    pub b: Signal<In, Bits<16>>,
    /// `a * b` from three cycles earlier, UQ32.
    pub p: Signal<Out, Bits<32>>,
    pp0: DFF<Bits<32>>,
    pp1: DFF<Bits<32>>,
    pp2: DFF<Bits<32>>,
    pp3: DFF<Bits<32>>,
    lo: DFF<Bits<32>>,
    hi: DFF<Bits<32>>,
    prod: DFF<Bits<32>>,
}

impl Logic for PipelinedMul16 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pp0, pp1, pp2, pp3, lo, hi, prod);
        // stage 1: four 16x4 partial products (yosys trims the zero-extended
        // operand, so each is a 16x4 array, two adder levels)
        self.pp0.d.next = self.a.val() * bit_cast::<16, 4>(self.b.val().get_bits::<4>(0));
        self.pp1.d.next = self.a.val() * bit_cast::<16, 4>(self.b.val().get_bits::<4>(4));
        self.pp2.d.next = self.a.val() * bit_cast::<16, 4>(self.b.val().get_bits::<4>(8));
        self.pp3.d.next = self.a.val() * bit_cast::<16, 4>(self.b.val().get_bits::<4>(12));
        // stage 2: pairs
        self.lo.d.next = self.pp0.q.val() + (self.pp1.q.val() << 4);
        self.hi.d.next = self.pp2.q.val() + (self.pp3.q.val() << 4);
        // stage 3: the product
        self.prod.d.next = self.lo.q.val() + (self.hi.q.val() << 8);
        self.p.next = self.prod.q.val();
    }
}

/// See the module doc: `b` in 2-bit slices, for `b` from a block RAM.
#[derive(LogicBlock, Default)]
pub struct PipelinedMul16Bram {
    /// The clock; all stages are rising-edge registers.
    pub clock: Signal<In, Clock>,
    /// Multiplicand, UQ16.
    pub a: Signal<In, Bits<16>>,
    /// Multiplier, UQ16 (may come straight from a block RAM's read port).
    pub b: Signal<In, Bits<16>>,
    /// `a * b` from three cycles earlier, UQ32.
    pub p: Signal<Out, Bits<32>>,
    pp: [DFF<Bits<32>>; 8],
    lo: DFF<Bits<32>>,
    hi: DFF<Bits<32>>,
    prod: DFF<Bits<32>>,
}

impl Logic for PipelinedMul16Bram {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lo, hi, prod);
        for i in 0..8 {
            self.pp[i].clock.next = self.clock.val();
        }
        // stage 1: eight 16x2 partial products, one adder level each
        // (RustHDL's HDL takes no loop index inside a bit-slice offset)
        self.pp[0].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(0));
        self.pp[1].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(2));
        self.pp[2].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(4));
        self.pp[3].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(6));
        self.pp[4].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(8));
        self.pp[5].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(10));
        self.pp[6].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(12));
        self.pp[7].d.next = self.a.val() * bit_cast::<16, 2>(self.b.val().get_bits::<2>(14));
        // stage 2: two sums of four, two adder levels each
        self.lo.d.next = (self.pp[0].q.val() + (self.pp[1].q.val() << 2))
            + ((self.pp[2].q.val() << 4) + (self.pp[3].q.val() << 6));
        self.hi.d.next = (self.pp[4].q.val() + (self.pp[5].q.val() << 2))
            + ((self.pp[6].q.val() << 4) + (self.pp[7].q.val() << 6));
        // stage 3: the product
        self.prod.d.next = self.lo.q.val() + (self.hi.q.val() << 8);
        self.p.next = self.prod.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both cuts, in RustHDL's simulator: the product of the operands
    /// applied three edges earlier, every cycle, over operand streams with
    /// the extremes (0, 1, 0xFFFF) and a fixed-seed random walk.
    #[test]
    fn mul16_cuts_give_the_product_three_edges_later() {
        fn check<M: Block>(
            mut m: M,
            set: fn(&mut M, bool, u64, u64),
            p: fn(&M) -> u64,
            name: &str,
        ) {
            m.connect_all();
            let mut rng = ldcp_sim::SplitMix64::new(0x5EED_0012);
            let mut ops: Vec<(u64, u64)> = vec![(0xFFFF, 0xFFFF), (0, 0xFFFF), (0xFFFF, 1)];
            ops.extend((0..500).map(|_| {
                let r = rng.next_u64();
                (r & 0xFFFF, (r >> 16) & 0xFFFF)
            }));
            for (k, &(a, b)) in ops.iter().enumerate() {
                set(&mut m, false, a, b);
                assert!(simulate(&mut m, 50));
                if k >= MUL_LATENCY_CYCLES {
                    let (a0, b0) = ops[k - MUL_LATENCY_CYCLES];
                    assert_eq!(p(&m), a0 * b0, "{name}: cycle {k}: {a0:#x} * {b0:#x}");
                }
                set(&mut m, true, a, b);
                assert!(simulate(&mut m, 50));
            }
        }
        check(
            PipelinedMul16::default(),
            |m, clk, a, b| {
                m.clock.next = Clock::from(clk);
                m.a.next = a.into();
                m.b.next = b.into();
            },
            |m| m.p.val().to_u64(),
            "PipelinedMul16",
        );
        check(
            PipelinedMul16Bram::default(),
            |m, clk, a, b| {
                m.clock.next = Clock::from(clk);
                m.a.next = a.into();
                m.b.next = b.into();
            },
            |m| m.p.val().to_u64(),
            "PipelinedMul16Bram",
        );
    }
}
