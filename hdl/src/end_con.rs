//! `EndCon`: the END.CON match at a PE (draft 001 §4.2.2, COMPANION.md
//! F10, G11), one packet per clock: the outer IPv6 destination against the
//! configured 128-bit SID, then the next header, giving forward,
//! decapsulate, punt or drop, and the bytes a decapsulation strips.
//!
//! The rule is `ldcp_sim::end_con::decide` (its module doc says why each
//! case is what it is); `EndConModel` mirrors every register below and
//! cosimulation compares them every cycle.
//!
//! # Timing (design constants)
//! - One packet per clock, no back-pressure; a packet presented in cycle t
//!   has its decision on the output registers in cycle t + 3
//!   (`END_CON_LATENCY_CYCLES`), its count one cycle later.
//! - An SID word write (`cfg_we`) is registered and applies to packets
//!   presented from the cycle after it.
//! - `reset` (synchronous) sets the SID to `::` (not configured: nothing
//!   matches), drops the packets in flight and zeroes the counters.
//!
//! # Pipeline
//! ```text
//! s1  input registers (the packet, the SID write)
//! s2  four 32-bit compares of the destination with the SID (a 4-level
//!     LUT tree each); the upper layer's class (IP, ICMPv6, other) with the
//!     Segments Left check; the strip length 48 + 8 Hdr Ext Len or 40; the
//!     SID word write lands; "SID configured" = SID != 0, registered
//! o   the decision from the four equalities and the class; the outputs
//! c   the four saturating counters count what the outputs show
//! ```

use ldcp_sim::end_con::{
    Action, END_CON_COUNTER_BITS, END_CON_COUNTER_LATENCY_CYCLES, END_CON_LATENCY_CYCLES,
    STRIP_BITS,
};
use ldcp_sim::wire::srv6::{NH_ICMPV6, NH_IPV4, NH_IPV6, NH_ROUTING};
use rust_hdl::prelude::*;

// RustHDL's generator takes literals in expressions, not named constants:
// the literals below are these, and the codes are `Action::code`'s.
const _: () = assert!(NH_IPV4 == 4 && NH_IPV6 == 41 && NH_ROUTING == 43 && NH_ICMPV6 == 58);
const _: () = assert!(
    Action::Forward.code() == 0
        && Action::Decapsulate.code() == 1
        && Action::Punt.code() == 2
        && Action::Drop.code() == 3
);
const _: () = assert!(END_CON_LATENCY_CYCLES == 3 && END_CON_COUNTER_LATENCY_CYCLES == 1);
const CB: usize = END_CON_COUNTER_BITS;
const SB: usize = STRIP_BITS as usize;

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "end_con",
    doc: "the END.CON match at a PE (draft-hu-rtgwg-rocev2-fcn-00 §4.2.2; End.DT46 as COMPANION.md G11 chooses): the outer destination against the configured 128-bit SID and the next header, deciding forward, decapsulate, punt or drop, one packet per clock",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, EndCon::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct EndCon {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A packet.
    pub in_valid: Signal<In, Bit>,
    /// Its outer destination, bits 127..64.
    pub in_dst_hi: Signal<In, Bits<64>>,
    /// Its outer destination, bits 63..0.
    pub in_dst_lo: Signal<In, Bits<64>>,
    /// The outer Next Header.
    pub in_next_header: Signal<In, Bits<8>>,
    /// The SRH's Next Header.
    pub in_srh_next_header: Signal<In, Bits<8>>,
    /// The SRH's Segments Left.
    pub in_srh_segments_left: Signal<In, Bits<8>>,
    /// The SRH's Hdr Ext Len.
    pub in_srh_ext_len: Signal<In, Bits<8>>,
    /// An SID word write.
    pub cfg_we: Signal<In, Bit>,
    /// Its word (0 = bits 127..96).
    pub cfg_word: Signal<In, Bits<2>>,
    /// Its value.
    pub cfg_data: Signal<In, Bits<32>>,
    /// A decision.
    pub out_valid: Signal<Out, Bit>,
    /// Its action.
    pub out_action: Signal<Out, Bits<2>>,
    /// Bytes to strip (decapsulation).
    pub out_strip_bytes: Signal<Out, Bits<SB>>,
    /// Forwarded.
    pub stat_forwarded_pkts: Signal<Out, Bits<CB>>,
    /// Decapsulated.
    pub stat_decap_pkts: Signal<Out, Bits<CB>>,
    /// Punted.
    pub stat_punted_pkts: Signal<Out, Bits<CB>>,
    /// Dropped.
    pub stat_dropped_pkts: Signal<Out, Bits<CB>>,
    // the SID write
    w_v: DFF<Bit>,
    w_word: DFF<Bits<2>>,
    w_data: DFF<Bits<32>>,
    sid0: DFF<Bits<32>>,
    sid1: DFF<Bits<32>>,
    sid2: DFF<Bits<32>>,
    sid3: DFF<Bits<32>>,
    sid_set: DFF<Bit>,
    // s1
    p_v: DFF<Bit>,
    p_hi: DFF<Bits<64>>,
    p_lo: DFF<Bits<64>>,
    p_nh: DFF<Bits<8>>,
    p_snh: DFF<Bits<8>>,
    p_sl: DFF<Bits<8>>,
    p_ext: DFF<Bits<8>>,
    // s2
    upper: Signal<Local, Bits<8>>,
    sl_ok: Signal<Local, Bit>,
    q_v: DFF<Bit>,
    q_eq0: DFF<Bit>,
    q_eq1: DFF<Bit>,
    q_eq2: DFF<Bit>,
    q_eq3: DFF<Bit>,
    q_ip: DFF<Bit>,
    q_icmp: DFF<Bit>,
    q_strip: DFF<Bits<SB>>,
    // o
    hit: Signal<Local, Bit>,
    ov: DFF<Bit>,
    oact: DFF<Bits<2>>,
    ostrip: DFF<Bits<SB>>,
    // c
    one_cb: Constant<Bits<CB>>,
    n_fwd: DFF<Bits<CB>>,
    n_decap: DFF<Bits<CB>>,
    n_punt: DFF<Bits<CB>>,
    n_drop: DFF<Bits<CB>>,
}

impl Logic for EndCon {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_v, w_word, w_data, sid0, sid1, sid2, sid3, sid_set, p_v, p_hi, p_lo,
            p_nh, p_snh, p_sl, p_ext, q_v, q_eq0, q_eq1, q_eq2, q_eq3, q_ip, q_icmp, q_strip, ov,
            oact, ostrip, n_fwd, n_decap, n_punt, n_drop
        );
        // ---- s1: the registered write and packet
        self.w_v.d.next = self.cfg_we.val();
        self.w_word.d.next = self.cfg_word.val();
        self.w_data.d.next = self.cfg_data.val();
        self.p_v.d.next = self.in_valid.val();
        self.p_hi.d.next = self.in_dst_hi.val();
        self.p_lo.d.next = self.in_dst_lo.val();
        self.p_nh.d.next = self.in_next_header.val();
        self.p_snh.d.next = self.in_srh_next_header.val();
        self.p_sl.d.next = self.in_srh_segments_left.val();
        self.p_ext.d.next = self.in_srh_ext_len.val();

        // ---- s2: the compares see the SID before this edge's write
        self.q_v.d.next = self.p_v.q.val();
        self.q_eq0.d.next = self.p_hi.q.val().get_bits::<32>(32) == self.sid0.q.val();
        self.q_eq1.d.next = self.p_hi.q.val().get_bits::<32>(0) == self.sid1.q.val();
        self.q_eq2.d.next = self.p_lo.q.val().get_bits::<32>(32) == self.sid2.q.val();
        self.q_eq3.d.next = self.p_lo.q.val().get_bits::<32>(0) == self.sid3.q.val();
        self.sid_set.d.next =
            (self.sid0.q.val() | self.sid1.q.val() | self.sid2.q.val() | self.sid3.q.val()).any();
        self.upper.next = self.p_nh.q.val();
        self.sl_ok.next = true;
        self.q_strip.d.next = bits::<SB>(40);
        if self.p_nh.q.val() == bits::<8>(43) {
            self.upper.next = self.p_snh.q.val();
            self.sl_ok.next = !self.p_sl.q.val().any();
            self.q_strip.d.next = bits::<SB>(48) + (bit_cast::<SB, 8>(self.p_ext.q.val()) << 3);
        }
        self.q_ip.d.next = self.sl_ok.val()
            & ((self.upper.val() == bits::<8>(4)) | (self.upper.val() == bits::<8>(41)));
        self.q_icmp.d.next = self.sl_ok.val() & (self.upper.val() == bits::<8>(58));
        if self.w_v.q.val() {
            if self.w_word.q.val() == bits::<2>(0) {
                self.sid0.d.next = self.w_data.q.val();
            }
            if self.w_word.q.val() == bits::<2>(1) {
                self.sid1.d.next = self.w_data.q.val();
            }
            if self.w_word.q.val() == bits::<2>(2) {
                self.sid2.d.next = self.w_data.q.val();
            }
            if self.w_word.q.val() == bits::<2>(3) {
                self.sid3.d.next = self.w_data.q.val();
            }
        }

        // ---- o: the decision
        self.hit.next = self.q_eq0.q.val()
            & self.q_eq1.q.val()
            & self.q_eq2.q.val()
            & self.q_eq3.q.val()
            & self.sid_set.q.val();
        self.ov.d.next = self.q_v.q.val();
        self.oact.d.next = bits::<2>(0);
        self.ostrip.d.next = bits::<SB>(0);
        if self.q_v.q.val() & self.hit.val() {
            self.oact.d.next = bits::<2>(3);
            if self.q_icmp.q.val() {
                self.oact.d.next = bits::<2>(2);
            }
            if self.q_ip.q.val() {
                self.oact.d.next = bits::<2>(1);
                self.ostrip.d.next = self.q_strip.q.val();
            }
        }
        self.out_valid.next = self.ov.q.val();
        self.out_action.next = self.oact.q.val();
        self.out_strip_bytes.next = self.ostrip.q.val();

        // ---- c: the counters, saturating
        if self.ov.q.val() & (self.oact.q.val() == bits::<2>(0)) & !self.n_fwd.q.val().all() {
            self.n_fwd.d.next = self.n_fwd.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & (self.oact.q.val() == bits::<2>(1)) & !self.n_decap.q.val().all() {
            self.n_decap.d.next = self.n_decap.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & (self.oact.q.val() == bits::<2>(2)) & !self.n_punt.q.val().all() {
            self.n_punt.d.next = self.n_punt.q.val() + self.one_cb.val();
        }
        if self.ov.q.val() & (self.oact.q.val() == bits::<2>(3)) & !self.n_drop.q.val().all() {
            self.n_drop.d.next = self.n_drop.q.val() + self.one_cb.val();
        }
        self.stat_forwarded_pkts.next = self.n_fwd.q.val();
        self.stat_decap_pkts.next = self.n_decap.q.val();
        self.stat_punted_pkts.next = self.n_punt.q.val();
        self.stat_dropped_pkts.next = self.n_drop.q.val();

        // ---- reset: SID ::, nothing in flight, the counters zero
        if self.reset.val() {
            self.w_v.d.next = false;
            self.sid0.d.next = bits::<32>(0);
            self.sid1.d.next = bits::<32>(0);
            self.sid2.d.next = bits::<32>(0);
            self.sid3.d.next = bits::<32>(0);
            self.sid_set.d.next = false;
            self.p_v.d.next = false;
            self.q_v.d.next = false;
            self.ov.d.next = false;
            self.oact.d.next = bits::<2>(0);
            self.ostrip.d.next = bits::<SB>(0);
            self.n_fwd.d.next = bits::<CB>(0);
            self.n_decap.d.next = bits::<CB>(0);
            self.n_punt.d.next = bits::<CB>(0);
            self.n_drop.d.next = bits::<CB>(0);
        }
    }
}

impl Default for EndCon {
    fn default() -> Self {
        EndCon {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_dst_hi: Default::default(),
            in_dst_lo: Default::default(),
            in_next_header: Default::default(),
            in_srh_next_header: Default::default(),
            in_srh_segments_left: Default::default(),
            in_srh_ext_len: Default::default(),
            cfg_we: Default::default(),
            cfg_word: Default::default(),
            cfg_data: Default::default(),
            out_valid: Default::default(),
            out_action: Default::default(),
            out_strip_bytes: Default::default(),
            stat_forwarded_pkts: Default::default(),
            stat_decap_pkts: Default::default(),
            stat_punted_pkts: Default::default(),
            stat_dropped_pkts: Default::default(),
            w_v: Default::default(),
            w_word: Default::default(),
            w_data: Default::default(),
            sid0: Default::default(),
            sid1: Default::default(),
            sid2: Default::default(),
            sid3: Default::default(),
            sid_set: Default::default(),
            p_v: Default::default(),
            p_hi: Default::default(),
            p_lo: Default::default(),
            p_nh: Default::default(),
            p_snh: Default::default(),
            p_sl: Default::default(),
            p_ext: Default::default(),
            upper: Default::default(),
            sl_ok: Default::default(),
            q_v: Default::default(),
            q_eq0: Default::default(),
            q_eq1: Default::default(),
            q_eq2: Default::default(),
            q_eq3: Default::default(),
            q_ip: Default::default(),
            q_icmp: Default::default(),
            q_strip: Default::default(),
            hit: Default::default(),
            ov: Default::default(),
            oact: Default::default(),
            ostrip: Default::default(),
            one_cb: Constant::new(bits::<CB>(1)),
            n_fwd: Default::default(),
            n_decap: Default::default(),
            n_punt: Default::default(),
            n_drop: Default::default(),
        }
    }
}

ldcp_sim::end_con_ports!(crate::hand_stepped {
    EndCon [],
    ldcp_sim::end_con::EndConInputs,
    ldcp_sim::end_con::EndConOutputs
});

/// The block in RustHDL's own simulator, stepped by hand.
pub type EndConRustHdl = crate::stepper::RustHdlSim<EndCon>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::end_con::{end_con_stimulus, EndConModel};

    #[test]
    fn end_con_rusthdl_simulation_matches_model() {
        let mut sim = EndConRustHdl::new();
        let mut m = EndConModel::new();
        let (mut hits, mut n) = (0, 0);
        for (c, i) in end_con_stimulus(5).take(4_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
            n += o.out_valid as u32;
            hits += (o.out_valid && o.out_action != 0) as u32;
        }
        assert!(hits > n / 10, "{hits} of {n} decisions matched END.CON");
    }
}
