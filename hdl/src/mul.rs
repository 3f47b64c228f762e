//! `PipelinedMul16`: an unsigned 16 x 16 -> 32 multiply in three stages,
//! for the iCE40, which has no DSP blocks.
//!
//! A combinational 16x16 multiply closes at about 65 MHz on the HX8K and a
//! 16x8 one at about 90 MHz (`TOOLCHAIN.md`); yosys does not retime, so the
//! pipeline is explicit. Operand `b` is cut into four nibbles:
//! ```text
//! stage 1: pp_i = a * b[4i+3:4i]                 UQ16 x UQ4 -> UQ20, i = 0..3
//! stage 2: lo = pp_0 + (pp_1 << 4)                UQ20 + UQ24 -> UQ24 (no overflow: a*b[7:0] < 2^24)
//!          hi = pp_2 + (pp_3 << 4)                same
//! stage 3: p  = lo + (hi << 8)                    UQ24 + UQ32 -> UQ32 (no overflow: a*b < 2^32)
//! ```
//! Latency: 3 cycles (`p` shows `a * b` three rising edges after `a`, `b`
//! were applied). Throughput: one product per cycle. No reset: the pipeline
//! flushes itself in three cycles, and its consumer qualifies the product
//! with its own valid bits. The golden models use the exact product
//! `a as u32 * b as u32`, delayed by [`MUL_LATENCY_CYCLES`].

use rust_hdl::prelude::*;

/// Cycles from operands to product.
pub const MUL_LATENCY_CYCLES: usize = 3;

/// See the module doc.
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
