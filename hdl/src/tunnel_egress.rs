//! `TunnelEgress`: the egress PE's ECN decapsulation (RFC 6040 Figure 4, as
//! draft 001 §4.2.1 Figure 6 requires), one packet per clock.
//!
//! The table, its flags and the checksum arithmetic are defined once, with
//! the golden model, in `ldcp_sim::tunnel_ecn` (the table is
//! `ldcp_sim::tunnel_ecn::EGRESS`: this block's truth tables are built from
//! it, so the RTL cannot disagree with the transcription it is tested
//! against); `TunnelEgressModel` mirrors every register below and
//! cosimulation compares them every cycle.
//!
//! # Timing (design constants)
//! - One packet per clock, no back-pressure.
//! - A packet presented in cycle t has its decision on the output
//!   registers in cycle t + 5 (`EGRESS_LATENCY_CYCLES`); the counters count
//!   it one cycle later (`EGRESS_COUNTER_LATENCY_CYCLES`).
//! - `reset` (synchronous) drops the packets in flight and zeroes the
//!   counters. The output fields are 0 in a cycle without a decision.
//!
//! # Pipeline (one carry chain per stage)
//! ```text
//! s0  input registers
//! s1  inner = the ECN field of word 0 (IPv6: bits 5..4, IPv4: 1..0); the
//!     table's drop, flag and ECN for (inner, outer): each bit a 16-entry
//!     truth table indexed by the four bits; the new word; t = ~csum + ~word0
//! s2  s = t + new word (RFC 1624 Eq. 3's three-term sum, 18 bits)
//! s3  f = s[15:0] + s[17:16]
//! o   csum' = ~(f[15:0] + f[16]) for a forwarded IPv4 inner, else the
//!     checksum as it came; the output registers
//! c   the four saturating counters count what the outputs show
//! ```

use ldcp_sim::tunnel_ecn::{
    Action, EGRESS, EGRESS_COUNTER_BITS, EGRESS_COUNTER_LATENCY_CYCLES, EGRESS_LATENCY_CYCLES,
};
use rust_hdl::prelude::*;

const _: () = assert!(EGRESS_LATENCY_CYCLES == 5 && EGRESS_COUNTER_LATENCY_CYCLES == 1);
const CB: usize = EGRESS_COUNTER_BITS;

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "tunnel_egress",
    doc: "the egress PE's tunnel ECN decapsulation, RFC 6040 Figure 4 (draft-hu-rtgwg-rocev2-fcn-00 §4.2.1), one packet per clock, with the inner IPv4 checksum updated (RFC 1624)",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, TunnelEgress::default())
}

/// One bit of the table's answer, as a truth table over (inner, outer):
/// bit `inner * 4 + outer` of the result.
fn truth_table(bit: impl Fn(u8, u8) -> bool) -> u64 {
    (0..16u8).fold(0, |t, a| t | ((bit(a >> 2, a & 3) as u64) << a))
}

fn cell_ecn(inner: u8, outer: u8) -> u8 {
    match EGRESS[inner as usize][outer as usize].action {
        Action::Forward(e) => e,
        Action::Drop => inner,
    }
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct TunnelEgress {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A decapsulated packet this cycle.
    pub in_valid: Signal<In, Bit>,
    /// The inner header is IPv6.
    pub in_ipv6: Signal<In, Bit>,
    /// The inner header's word 0.
    pub in_word0: Signal<In, Bits<16>>,
    /// The inner IPv4 checksum.
    pub in_csum: Signal<In, Bits<16>>,
    /// The outer ECN field.
    pub in_outer_ecn: Signal<In, Bits<2>>,
    /// A decision.
    pub out_valid: Signal<Out, Bit>,
    /// Dropped.
    pub out_drop: Signal<Out, Bit>,
    /// 0 in use, 1 `(!)`, 2 `(!!!)`.
    pub out_flag: Signal<Out, Bits<2>>,
    /// The ECN field leaving.
    pub out_ecn: Signal<Out, Bits<2>>,
    /// Word 0 leaving.
    pub out_word0: Signal<Out, Bits<16>>,
    /// The checksum leaving.
    pub out_csum: Signal<Out, Bits<16>>,
    /// Packets forwarded.
    pub stat_forwarded_pkts: Signal<Out, Bits<CB>>,
    /// Packets dropped.
    pub stat_dropped_pkts: Signal<Out, Bits<CB>>,
    /// `(!!!)` packets.
    pub stat_dangerous_pkts: Signal<Out, Bits<CB>>,
    /// `(!)` packets.
    pub stat_unused_pkts: Signal<Out, Bits<CB>>,
    // the table, one truth table per answer bit
    t_drop: Constant<Bits<16>>,
    t_flag0: Constant<Bits<16>>,
    t_flag1: Constant<Bits<16>>,
    t_ecn0: Constant<Bits<16>>,
    t_ecn1: Constant<Bits<16>>,
    one_cb: Constant<Bits<CB>>,
    // s0
    v0: DFF<Bit>,
    ipv6_0: DFF<Bit>,
    w0: DFF<Bits<16>>,
    c0: DFF<Bits<16>>,
    outer0: DFF<Bits<2>>,
    // s1
    inner: Signal<Local, Bits<2>>,
    addr: Signal<Local, Bits<4>>,
    e: Signal<Local, Bits<2>>,
    wn: Signal<Local, Bits<16>>,
    nc: Signal<Local, Bits<16>>,
    nw: Signal<Local, Bits<16>>,
    v1: DFF<Bit>,
    ipv6_1: DFF<Bit>,
    drop1: DFF<Bit>,
    flag1: DFF<Bits<2>>,
    e1: DFF<Bits<2>>,
    wn1: DFF<Bits<16>>,
    c1: DFF<Bits<16>>,
    t1: DFF<Bits<17>>,
    // s2
    v2: DFF<Bit>,
    ipv6_2: DFF<Bit>,
    drop2: DFF<Bit>,
    flag2: DFF<Bits<2>>,
    e2: DFF<Bits<2>>,
    wn2: DFF<Bits<16>>,
    c2: DFF<Bits<16>>,
    s2: DFF<Bits<18>>,
    // s3
    v3: DFF<Bit>,
    ipv6_3: DFF<Bit>,
    drop3: DFF<Bit>,
    flag3: DFF<Bits<2>>,
    e3: DFF<Bits<2>>,
    wn3: DFF<Bits<16>>,
    c3: DFF<Bits<16>>,
    f3: DFF<Bits<17>>,
    f4: Signal<Local, Bits<16>>,
    // outputs and counters
    ov: DFF<Bit>,
    odrop: DFF<Bit>,
    oflag: DFF<Bits<2>>,
    oecn: DFF<Bits<2>>,
    oword: DFF<Bits<16>>,
    ocsum: DFF<Bits<16>>,
    n_fwd: DFF<Bits<CB>>,
    n_drop: DFF<Bits<CB>>,
    n_dang: DFF<Bits<CB>>,
    n_unused: DFF<Bits<CB>>,
}

impl Default for TunnelEgress {
    fn default() -> Self {
        let t = |f: &dyn Fn(u8, u8) -> bool| Constant::new(bits::<16>(truth_table(f)));
        let flag = |i: u8, o: u8| EGRESS[i as usize][o as usize].flag.code();
        TunnelEgress {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ipv6: Default::default(),
            in_word0: Default::default(),
            in_csum: Default::default(),
            in_outer_ecn: Default::default(),
            out_valid: Default::default(),
            out_drop: Default::default(),
            out_flag: Default::default(),
            out_ecn: Default::default(),
            out_word0: Default::default(),
            out_csum: Default::default(),
            stat_forwarded_pkts: Default::default(),
            stat_dropped_pkts: Default::default(),
            stat_dangerous_pkts: Default::default(),
            stat_unused_pkts: Default::default(),
            t_drop: t(&|i, o| EGRESS[i as usize][o as usize].action == Action::Drop),
            t_flag0: t(&|i, o| flag(i, o) & 1 != 0),
            t_flag1: t(&|i, o| flag(i, o) & 2 != 0),
            t_ecn0: t(&|i, o| cell_ecn(i, o) & 1 != 0),
            t_ecn1: t(&|i, o| cell_ecn(i, o) & 2 != 0),
            one_cb: Constant::new(bits::<CB>(1)),
            v0: Default::default(),
            ipv6_0: Default::default(),
            w0: Default::default(),
            c0: Default::default(),
            outer0: Default::default(),
            inner: Default::default(),
            addr: Default::default(),
            e: Default::default(),
            wn: Default::default(),
            nc: Default::default(),
            nw: Default::default(),
            v1: Default::default(),
            ipv6_1: Default::default(),
            drop1: Default::default(),
            flag1: Default::default(),
            e1: Default::default(),
            wn1: Default::default(),
            c1: Default::default(),
            t1: Default::default(),
            v2: Default::default(),
            ipv6_2: Default::default(),
            drop2: Default::default(),
            flag2: Default::default(),
            e2: Default::default(),
            wn2: Default::default(),
            c2: Default::default(),
            s2: Default::default(),
            v3: Default::default(),
            ipv6_3: Default::default(),
            drop3: Default::default(),
            flag3: Default::default(),
            e3: Default::default(),
            wn3: Default::default(),
            c3: Default::default(),
            f3: Default::default(),
            f4: Default::default(),
            ov: Default::default(),
            odrop: Default::default(),
            oflag: Default::default(),
            oecn: Default::default(),
            oword: Default::default(),
            ocsum: Default::default(),
            n_fwd: Default::default(),
            n_drop: Default::default(),
            n_dang: Default::default(),
            n_unused: Default::default(),
        }
    }
}

impl Logic for TunnelEgress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v0, ipv6_0, w0, c0, outer0, v1, ipv6_1, drop1, flag1, e1, wn1, c1, t1, v2,
            ipv6_2, drop2, flag2, e2, wn2, c2, s2, v3, ipv6_3, drop3, flag3, e3, wn3, c3, f3, ov,
            odrop, oflag, oecn, oword, ocsum, n_fwd, n_drop, n_dang, n_unused
        );
        // ---- s0
        self.v0.d.next = self.in_valid.val();
        self.ipv6_0.d.next = self.in_ipv6.val();
        self.w0.d.next = self.in_word0.val();
        self.c0.d.next = self.in_csum.val();
        self.outer0.d.next = self.in_outer_ecn.val();

        // ---- s1: the table
        self.inner.next = self.w0.q.val().get_bits::<2>(0);
        if self.ipv6_0.q.val() {
            self.inner.next = self.w0.q.val().get_bits::<2>(4);
        }
        self.addr.next =
            (bit_cast::<4, 2>(self.inner.val()) << 2) | bit_cast::<4, 2>(self.outer0.q.val());
        self.e.next = bits::<2>(0);
        if self.t_ecn0.val().get_bit(self.addr.val().index()) {
            self.e.next = self.e.val() | bits::<2>(1);
        }
        if self.t_ecn1.val().get_bit(self.addr.val().index()) {
            self.e.next = self.e.val() | bits::<2>(2);
        }
        self.flag1.d.next = bits::<2>(0);
        if self.t_flag0.val().get_bit(self.addr.val().index()) {
            self.flag1.d.next = bits::<2>(1);
        }
        if self.t_flag1.val().get_bit(self.addr.val().index()) {
            self.flag1.d.next = bits::<2>(2);
        }
        self.drop1.d.next = self.t_drop.val().get_bit(self.addr.val().index());
        self.wn.next = (self.w0.q.val() & bits::<16>(0xfffc)) | bit_cast::<16, 2>(self.e.val());
        if self.ipv6_0.q.val() {
            self.wn.next =
                (self.w0.q.val() & bits::<16>(0xffcf)) | (bit_cast::<16, 2>(self.e.val()) << 4);
        }
        self.v1.d.next = self.v0.q.val();
        self.ipv6_1.d.next = self.ipv6_0.q.val();
        self.e1.d.next = self.e.val();
        self.wn1.d.next = self.wn.val();
        self.c1.d.next = self.c0.q.val();
        // (the complements are signals of their own: a cast of `~x` to a
        // wider width would complement the extension bits in Verilog)
        self.nc.next = !self.c0.q.val();
        self.nw.next = !self.w0.q.val();
        self.t1.d.next = bit_cast::<17, 16>(self.nc.val()) + bit_cast::<17, 16>(self.nw.val());

        // ---- s2: the three-term sum
        self.v2.d.next = self.v1.q.val();
        self.ipv6_2.d.next = self.ipv6_1.q.val();
        self.drop2.d.next = self.drop1.q.val();
        self.flag2.d.next = self.flag1.q.val();
        self.e2.d.next = self.e1.q.val();
        self.wn2.d.next = self.wn1.q.val();
        self.c2.d.next = self.c1.q.val();
        self.s2.d.next = bit_cast::<18, 17>(self.t1.q.val()) + bit_cast::<18, 16>(self.wn1.q.val());

        // ---- s3: the first fold
        self.v3.d.next = self.v2.q.val();
        self.ipv6_3.d.next = self.ipv6_2.q.val();
        self.drop3.d.next = self.drop2.q.val();
        self.flag3.d.next = self.flag2.q.val();
        self.e3.d.next = self.e2.q.val();
        self.wn3.d.next = self.wn2.q.val();
        self.c3.d.next = self.c2.q.val();
        self.f3.d.next = bit_cast::<17, 16>(self.s2.q.val().get_bits::<16>(0))
            + bit_cast::<17, 2>(self.s2.q.val().get_bits::<2>(16));

        // ---- the second fold, into the output registers
        self.f4.next = self.f3.q.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.f3.q.val().get_bits::<1>(16));
        // (the fields are 0 in a cycle without a decision)
        self.ov.d.next = self.v3.q.val();
        self.odrop.d.next = false;
        self.oflag.d.next = bits::<2>(0);
        self.oecn.d.next = bits::<2>(0);
        self.oword.d.next = bits::<16>(0);
        self.ocsum.d.next = bits::<16>(0);
        if self.v3.q.val() {
            self.odrop.d.next = self.drop3.q.val();
            self.oflag.d.next = self.flag3.q.val();
            self.oecn.d.next = self.e3.q.val();
            self.oword.d.next = self.wn3.q.val();
            self.ocsum.d.next = !self.f4.val();
            if self.ipv6_3.q.val() | self.drop3.q.val() {
                self.ocsum.d.next = self.c3.q.val();
            }
        }
        self.out_valid.next = self.ov.q.val();
        self.out_drop.next = self.odrop.q.val();
        self.out_flag.next = self.oflag.q.val();
        self.out_ecn.next = self.oecn.q.val();
        self.out_word0.next = self.oword.q.val();
        self.out_csum.next = self.ocsum.q.val();

        // ---- the counters: what the outputs show, saturating
        if self.ov.q.val() & !self.odrop.q.val() & !self.n_fwd.q.val().all() {
            self.n_fwd.d.next = self.n_fwd.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & self.odrop.q.val() & !self.n_drop.q.val().all() {
            self.n_drop.d.next = self.n_drop.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & self.oflag.q.val().get_bit(1) & !self.n_dang.q.val().all() {
            self.n_dang.d.next = self.n_dang.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & self.oflag.q.val().get_bit(0) & !self.n_unused.q.val().all() {
            self.n_unused.d.next = self.n_unused.q.val() + self.one_cb.val();
        }
        self.stat_forwarded_pkts.next = self.n_fwd.q.val();
        self.stat_dropped_pkts.next = self.n_drop.q.val();
        self.stat_dangerous_pkts.next = self.n_dang.q.val();
        self.stat_unused_pkts.next = self.n_unused.q.val();

        // ---- reset: nothing in flight, the counters zero
        if self.reset.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.ov.d.next = false;
            self.odrop.d.next = false;
            self.oflag.d.next = bits::<2>(0);
            self.oecn.d.next = bits::<2>(0);
            self.oword.d.next = bits::<16>(0);
            self.ocsum.d.next = bits::<16>(0);
            self.n_fwd.d.next = bits::<CB>(0);
            self.n_drop.d.next = bits::<CB>(0);
            self.n_dang.d.next = bits::<CB>(0);
            self.n_unused.d.next = bits::<CB>(0);
        }
    }
}

ldcp_sim::tunnel_egress_ports!(crate::hand_stepped {
    TunnelEgress [],
    ldcp_sim::tunnel_ecn::EgressInputs,
    ldcp_sim::tunnel_ecn::EgressOutputs
});

/// The block in RustHDL's own simulator, stepped by hand.
pub type TunnelEgressRustHdl = crate::stepper::RustHdlSim<TunnelEgress>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::tunnel_ecn::{egress_stimulus, TunnelEgressModel};

    /// The counters stop at 2^32 - 1 in the hardware as in the model.
    #[test]
    fn tunnel_egress_counters_saturate_in_rusthdl_simulation() {
        use ldcp_sim::tunnel_ecn::{ecn, EgressCounters, EgressInputs};
        let max = u32::MAX;
        let near = EgressCounters {
            forwarded: max - 3,
            dropped: max - 2,
            dangerous: max - 4,
            unused: max - 1,
        };
        let mut sim = TunnelEgressRustHdl::new();
        let mut m = TunnelEgressModel::new();
        sim.uut.n_fwd.q.next = (near.forwarded as u64).into();
        sim.uut.n_drop.q.next = (near.dropped as u64).into();
        sim.uut.n_dang.q.next = (near.dangerous as u64).into();
        sim.uut.n_unused.q.next = (near.unused as u64).into();
        m.preset_counters(near);
        // (Not-ECT, CE): dropped and (!!!); (ECT(1), ECT(0)): (!); (ECT(0), ECT(0)) forwarded
        let pkt = |inner: u8, outer: u8| EgressInputs {
            in_valid: true,
            in_word0: 0x4500 | inner as u16,
            in_outer_ecn: outer,
            ..Default::default()
        };
        let mut stim = vec![];
        for _ in 0..6 {
            stim.extend([
                pkt(ecn::NOT_ECT, ecn::CE),
                pkt(ecn::ECT1, ecn::ECT0),
                pkt(ecn::ECT0, ecn::ECT0),
            ]);
        }
        stim.extend([EgressInputs::default(); 8]);
        for (c, i) in stim.iter().enumerate() {
            let o = sim.step(i).expect("RustHDL settles");
            m.tick(i);
            assert_eq!(o, m.outputs(), "cycle {c}");
        }
        let o = m.outputs();
        assert_eq!(
            (
                o.stat_forwarded_pkts,
                o.stat_dropped_pkts,
                o.stat_dangerous_pkts,
                o.stat_unused_pkts
            ),
            (max, max, max, max)
        );
    }

    #[test]
    fn tunnel_egress_rusthdl_simulation_matches_model() {
        let mut sim = TunnelEgressRustHdl::new();
        let mut m = TunnelEgressModel::new();
        for (c, i) in egress_stimulus(3).take(3_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
