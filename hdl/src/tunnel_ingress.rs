//! `TunnelIngress`: the ingress PE's ECN encapsulation (RFC 6040 Figure 3,
//! draft 001 §4.2.1 Figure 5), one packet per clock, a mode per tunnel.
//!
//! The rule and the cycle model are in `ldcp_sim::tunnel_ecn`
//! (`TunnelIngressModel` mirrors every register below; cosimulation
//! compares them every cycle). Each of the 64 tunnels
//! (`ldcp_sim::tunnel_ecn::TUNNEL_BITS`) is in normal mode (outer = inner)
//! unless written to compatibility mode (outer Not-ECT); power-up and
//! `reset` put every tunnel in normal mode, as 001 requires. The inner
//! header is never modified.
//!
//! # Timing (design constants)
//! - One packet per clock, no back-pressure; a packet presented in cycle t
//!   has its outer ECN field on the output registers in cycle t + 2
//!   (`INGRESS_LATENCY_CYCLES`).
//! - A mode write (`cfg_we`) is registered and applies to packets presented
//!   from the cycle after it (a packet in the write's own cycle gets the old
//!   mode).
//! - Outputs are 0 in a cycle without a packet; `reset` drops the packet
//!   in flight and a pending write.
//!
//! The modes are 64 flip-flops with a synchronous clear (a table in block
//! RAM would need a sweep after every reset, during which packets would
//! see stale modes).

use ldcp_sim::tunnel_ecn::{INGRESS_LATENCY_CYCLES, TUNNELS, TUNNEL_BITS};
use rust_hdl::prelude::*;

const TB: usize = TUNNEL_BITS as usize;
const _: () = assert!(INGRESS_LATENCY_CYCLES == 2 && TUNNELS == 64);

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "tunnel_ingress",
    doc: "the ingress PE's tunnel ECN encapsulation, RFC 6040 Figure 3 (draft-hu-rtgwg-rocev2-fcn-00 §4.2.1), one packet per clock, normal or compatibility mode per tunnel (64 tunnels, normal by default)",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, TunnelIngress::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct TunnelIngress {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A packet to encapsulate.
    pub in_valid: Signal<In, Bit>,
    /// Its tunnel.
    pub in_tunnel: Signal<In, Bits<TB>>,
    /// Its inner header is IPv6.
    pub in_ipv6: Signal<In, Bit>,
    /// The inner header's word 0.
    pub in_word0: Signal<In, Bits<16>>,
    /// A mode write.
    pub cfg_we: Signal<In, Bit>,
    /// Its tunnel.
    pub cfg_tunnel: Signal<In, Bits<TB>>,
    /// Its mode (1 compatibility).
    pub cfg_compat: Signal<In, Bit>,
    /// A decision.
    pub out_valid: Signal<Out, Bit>,
    /// Its tunnel.
    pub out_tunnel: Signal<Out, Bits<TB>>,
    /// The outer ECN field.
    pub out_outer_ecn: Signal<Out, Bits<2>>,
    /// The mode used.
    pub out_compat: Signal<Out, Bit>,
    modes: DFF<Bits<TUNNELS>>,
    w_v: DFF<Bit>,
    w_t: DFF<Bits<TB>>,
    w_c: DFF<Bit>,
    p_v: DFF<Bit>,
    p_t: DFF<Bits<TB>>,
    p_ipv6: DFF<Bit>,
    p_w: DFF<Bits<16>>,
    inner: Signal<Local, Bits<2>>,
    one: Constant<Bits<TUNNELS>>,
    sel: Signal<Local, Bits<TUNNELS>>,
    compat: Signal<Local, Bit>,
    ov: DFF<Bit>,
    ot: DFF<Bits<TB>>,
    oecn: DFF<Bits<2>>,
    ocompat: DFF<Bit>,
}

impl Logic for TunnelIngress {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, modes, w_v, w_t, w_c, p_v, p_t, p_ipv6, p_w, ov, ot, oecn, ocompat);
        // ---- the registered write and packet
        self.w_v.d.next = self.cfg_we.val();
        self.w_t.d.next = self.cfg_tunnel.val();
        self.w_c.d.next = self.cfg_compat.val();
        self.p_v.d.next = self.in_valid.val();
        self.p_t.d.next = self.in_tunnel.val();
        self.p_ipv6.d.next = self.in_ipv6.val();
        self.p_w.d.next = self.in_word0.val();
        // ---- the modes: the registered write lands at this edge
        // (a one-hot mask: RustHDL's replace_bit shifts a 1-bit value
        // into 64 bits, which Verilator's width lint refuses)
        self.sel.next = self.one.val() << self.w_t.q.val();
        if self.w_v.q.val() {
            self.modes.d.next = self.modes.q.val() & !self.sel.val();
            if self.w_c.q.val() {
                self.modes.d.next = self.modes.q.val() | self.sel.val();
            }
        }
        // ---- the decision on the registered packet, with the modes as
        // they were before this edge's write
        self.inner.next = self.p_w.q.val().get_bits::<2>(0);
        if self.p_ipv6.q.val() {
            self.inner.next = self.p_w.q.val().get_bits::<2>(4);
        }
        self.compat.next = self.modes.q.val().get_bit(self.p_t.q.val().index());
        self.ov.d.next = self.p_v.q.val();
        self.ot.d.next = bits::<TB>(0);
        self.oecn.d.next = bits::<2>(0);
        self.ocompat.d.next = false;
        if self.p_v.q.val() {
            self.ot.d.next = self.p_t.q.val();
            self.ocompat.d.next = self.compat.val();
            if !self.compat.val() {
                self.oecn.d.next = self.inner.val();
            }
        }
        self.out_valid.next = self.ov.q.val();
        self.out_tunnel.next = self.ot.q.val();
        self.out_outer_ecn.next = self.oecn.q.val();
        self.out_compat.next = self.ocompat.q.val();
        // ---- reset: every tunnel normal, nothing in flight
        if self.reset.val() {
            self.modes.d.next = bits::<TUNNELS>(0);
            self.w_v.d.next = false;
            self.p_v.d.next = false;
            self.ov.d.next = false;
            self.ot.d.next = bits::<TB>(0);
            self.oecn.d.next = bits::<2>(0);
            self.ocompat.d.next = false;
        }
    }
}

impl Default for TunnelIngress {
    fn default() -> Self {
        TunnelIngress {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_tunnel: Default::default(),
            in_ipv6: Default::default(),
            in_word0: Default::default(),
            cfg_we: Default::default(),
            cfg_tunnel: Default::default(),
            cfg_compat: Default::default(),
            out_valid: Default::default(),
            out_tunnel: Default::default(),
            out_outer_ecn: Default::default(),
            out_compat: Default::default(),
            modes: Default::default(),
            w_v: Default::default(),
            w_t: Default::default(),
            w_c: Default::default(),
            p_v: Default::default(),
            p_t: Default::default(),
            p_ipv6: Default::default(),
            p_w: Default::default(),
            inner: Default::default(),
            one: Constant::new(bits::<TUNNELS>(1)),
            sel: Default::default(),
            compat: Default::default(),
            ov: Default::default(),
            ot: Default::default(),
            oecn: Default::default(),
            ocompat: Default::default(),
        }
    }
}

ldcp_sim::tunnel_ingress_ports!(crate::hand_stepped {
    TunnelIngress [],
    ldcp_sim::tunnel_ecn::IngressInputs,
    ldcp_sim::tunnel_ecn::IngressOutputs
});

/// The block in RustHDL's own simulator, stepped by hand.
pub type TunnelIngressRustHdl = crate::stepper::RustHdlSim<TunnelIngress>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::tunnel_ecn::{ingress_stimulus, TunnelIngressModel};

    #[test]
    fn tunnel_ingress_rusthdl_simulation_matches_model() {
        let mut sim = TunnelIngressRustHdl::new();
        let mut m = TunnelIngressModel::new();
        for (c, i) in ingress_stimulus(5).take(3_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
        }
    }
}
