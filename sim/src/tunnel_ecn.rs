//! ECN through an IP-in-IPv6 (SRv6) tunnel, RFC 6040 as draft 001 §4.2.1
//! requires it (`../shared/seeds/COMPANION.md` 1.1, F2-F5, G2): what the
//! ingress PE writes into the outer header, and what the egress PE makes
//! of the (inner, outer) pair it receives.
//!
//! Codepoints as RFC 3168: `00` Not-ECT, `01` ECT(1), `10` ECT(0), `11` CE.
//!
//! # Ingress (Figure 5)
//! - **normal** mode: outer = inner, for all four codepoints (F2);
//! - **compatibility** mode: outer = Not-ECT, for all four (F3);
//! - the inner header is never modified; a tunnel is in normal mode unless
//!   configured otherwise ("the ingress PE MUST use the normal mode", F4).
//!
//! # Egress (Figure 6)
//! [`EGRESS`] is the table transcribed cell by cell, rows the arriving
//! inner codepoint, columns the arriving outer one. One cell drops the
//! packet (a Not-ECT inner under a CE outer: the congestion cannot be
//! passed on, so the packet is dropped as the outer's marker meant). Five
//! cells are currently unused combinations, flagged so that a node can
//! count them by class (G2): four `(!!!)` (always potentially dangerous,
//! the drop cell among them) and one `(!)` (possibly dangerous); they are
//! still forwarded as the table says. [`egress_closed_form`] is the
//! second oracle COMPANION.md gives, written independently of the table.
//!
//! When the egress changes an IPv4 inner packet's ECN field, its header
//! checksum is updated incrementally ([`crate::ipv4::incremental`], RFC
//! 1624 Eq. 3, the fast-start marker's own arithmetic); an IPv6 inner
//! header has no checksum.

/// The four codepoints.
pub mod ecn {
    /// Not ECN-capable transport.
    pub const NOT_ECT: u8 = 0b00;
    /// ECN-capable transport (1).
    pub const ECT1: u8 = 0b01;
    /// ECN-capable transport (0).
    pub const ECT0: u8 = 0b10;
    /// Congestion experienced.
    pub const CE: u8 = 0b11;
    /// RFC 3168's names, by codepoint.
    pub const NAMES: [&str; 4] = ["Not-ECT", "ECT(1)", "ECT(0)", "CE"];
}

/// How a tunnel's ingress sets the outer ECN field (per tunnel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
    /// Outer = inner (RFC 6040 normal mode): the default, as 001 requires.
    #[default]
    Normal,
    /// Outer = Not-ECT (RFC 6040 compatibility mode, for egresses that
    /// predate RFC 6040): congestion inside the tunnel drops instead.
    Compatibility,
}

/// The outer header's ECN field the ingress writes for an inner packet of
/// codepoint `inner` (its low two bits); the inner packet is not changed.
pub fn ingress(mode: Mode, inner: u8) -> u8 {
    match mode {
        Mode::Normal => inner & 3,
        Mode::Compatibility => ecn::NOT_ECT,
    }
}

/// The class of a currently-unused (inner, outer) combination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Flag {
    /// A combination in use.
    #[default]
    None,
    /// `(!)`: currently unused, possibly dangerous.
    Unused,
    /// `(!!!)`: currently unused, always potentially dangerous.
    Dangerous,
}

/// What the egress does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Action {
    /// Forward the inner packet with this ECN field.
    Forward(u8),
    /// Drop it (and count it).
    Drop,
}

/// One cell of the egress table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Cell {
    /// What happens to the packet.
    pub action: Action,
    /// Its class, if the combination is currently unused.
    pub flag: Flag,
}

const fn fwd(ecn: u8) -> Cell {
    Cell {
        action: Action::Forward(ecn),
        flag: Flag::None,
    }
}

const fn fwd_flagged(ecn: u8, flag: Flag) -> Cell {
    Cell {
        action: Action::Forward(ecn),
        flag,
    }
}

const DROP: Cell = Cell {
    action: Action::Drop,
    flag: Flag::Dangerous,
};

/// Figure 6 (RFC 6040 Figure 4), in its own row and column order: rows
/// inner Not-ECT, ECT(0), ECT(1), CE; columns outer Not-ECT, ECT(0),
/// ECT(1), CE. [`EGRESS`] indexes it by codepoint.
const FIGURE_6: [[Cell; 4]; 4] = {
    use ecn::*;
    use Flag::*;
    [
        [
            fwd(NOT_ECT),
            fwd_flagged(NOT_ECT, Dangerous),
            fwd_flagged(NOT_ECT, Dangerous),
            DROP,
        ],
        [fwd(ECT0), fwd(ECT0), fwd(ECT1), fwd(CE)],
        [fwd(ECT1), fwd_flagged(ECT1, Unused), fwd(ECT1), fwd(CE)],
        [fwd(CE), fwd(CE), fwd_flagged(CE, Dangerous), fwd(CE)],
    ]
};

/// Figure 6's order of codepoints (its rows and columns).
const FIGURE_ORDER: [u8; 4] = [ecn::NOT_ECT, ecn::ECT0, ecn::ECT1, ecn::CE];

/// The egress table indexed `[inner][outer]` by codepoint.
pub const EGRESS: [[Cell; 4]; 4] = {
    let mut t = [[DROP; 4]; 4];
    let mut r = 0;
    while r < 4 {
        let mut c = 0;
        while c < 4 {
            t[FIGURE_ORDER[r] as usize][FIGURE_ORDER[c] as usize] = FIGURE_6[r][c];
            c += 1;
        }
        r += 1;
    }
    t
};

/// The egress's decision for an arriving (inner, outer) pair (their low
/// two bits).
pub fn egress(inner: u8, outer: u8) -> Cell {
    EGRESS[(inner & 3) as usize][(outer & 3) as usize]
}

/// COMPANION.md's closed form of the table's actions (the flags are not
/// in it): `inner == 00 ? (outer == 11 ? DROP : 00) : (outer == 11 ||
/// inner == 11) ? 11 : outer == 01 ? 01 : inner`.
pub fn egress_closed_form(inner: u8, outer: u8) -> Action {
    let (i, o) = (inner & 3, outer & 3);
    if i == 0b00 {
        if o == 0b11 {
            Action::Drop
        } else {
            Action::Forward(0b00)
        }
    } else if o == 0b11 || i == 0b11 {
        Action::Forward(0b11)
    } else if o == 0b01 {
        Action::Forward(0b01)
    } else {
        Action::Forward(i)
    }
}

/// Cycles from a packet on the inputs to its decision on the output
/// registers of `TunnelEgress` (`hdl/src/tunnel_egress.rs`): the input
/// registers; the table's decision with `~csum + ~word0`; the sum with the
/// new word; its first fold; its second fold into the output registers (a
/// design constant: one carry chain per stage).
pub const EGRESS_LATENCY_CYCLES: usize = 5;
/// Cycles from a decision on the outputs to its count in the `stat_*`
/// counters (a design constant).
pub const EGRESS_COUNTER_LATENCY_CYCLES: usize = 1;
/// Bits of each counter (they saturate at 2^32 - 1).
pub const EGRESS_COUNTER_BITS: usize = 32;

crate::ports! {
    callback tunnel_egress_ports;
    /// One cycle of the egress PE's inputs: the inner packet's first
    /// header word and checksum, and the outer header's ECN field.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct EgressInputs {
        /// Synchronous reset: drops the packets in flight, zeroes the counters.
        reset: bool = 1,
        /// A decapsulated packet this cycle (one per clock, no back-pressure).
        in_valid: bool = 1,
        /// The inner header is IPv6 (ECN in word 0 bits 5..4, no checksum); else IPv4 (ECN in bits 1..0, checksum updated).
        in_ipv6: bool = 1,
        /// The inner header's first 16-bit word (IPv4: version, IHL, DSCP, ECN; IPv6: version, traffic class, flow label's top).
        in_word0: u16 = 16,
        /// The inner IPv4 header checksum (IPv6: passed through).
        in_csum: u16 = 16,
        /// The outer header's ECN field as it arrived.
        in_outer_ecn: u8 = 2,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct EgressOutputs {
        /// A decision this cycle.
        out_valid: bool = 1,
        /// The packet is dropped (a Not-ECT inner under a CE outer).
        out_drop: bool = 1,
        /// Its class: 0 in use, 1 `(!)` currently unused, 2 `(!!!)` potentially dangerous.
        out_flag: u8 = 2,
        /// The inner ECN field leaving (the arriving one for a drop).
        out_ecn: u8 = 2,
        /// Word 0 with that ECN field (unchanged for a drop).
        out_word0: u16 = 16,
        /// The checksum, updated by RFC 1624 Eq. 3 for an IPv4 inner whose word 0 changed (unchanged otherwise).
        out_csum: u16 = 16,
        /// Packets forwarded (saturating).
        stat_forwarded_pkts: u32 = EGRESS_COUNTER_BITS as u32,
        /// Packets dropped (saturating).
        stat_dropped_pkts: u32 = EGRESS_COUNTER_BITS as u32,
        /// Packets of a `(!!!)` combination, the drops included (saturating).
        stat_dangerous_pkts: u32 = EGRESS_COUNTER_BITS as u32,
        /// Packets of the `(!)` combination (saturating).
        stat_unused_pkts: u32 = EGRESS_COUNTER_BITS as u32,
    }
}

/// The ECN field of an inner header's word 0.
pub fn word_ecn(word0: u16, ipv6: bool) -> u8 {
    if ipv6 {
        (word0 >> 4) as u8 & 3
    } else {
        word0 as u8 & 3
    }
}

/// Word 0 with its ECN field replaced.
pub fn word_with_ecn(word0: u16, ipv6: bool, e: u8) -> u16 {
    if ipv6 {
        (word0 & !0x30) | ((e as u16 & 3) << 4)
    } else {
        crate::ipv4::with_ecn(word0, e)
    }
}

impl Flag {
    /// The code on `out_flag`.
    pub fn code(self) -> u8 {
        match self {
            Flag::None => 0,
            Flag::Unused => 1,
            Flag::Dangerous => 2,
        }
    }
}

/// The decision of one packet, as the block's outputs show it.
pub fn egress_decision(i: &EgressInputs) -> EgressOutputs {
    let inner = word_ecn(i.in_word0, i.in_ipv6);
    let c = egress(inner, i.in_outer_ecn);
    let (drop, e) = match c.action {
        Action::Drop => (true, inner),
        Action::Forward(e) => (false, e),
    };
    let w = word_with_ecn(i.in_word0, i.in_ipv6, e);
    let csum = if i.in_ipv6 {
        i.in_csum
    } else {
        crate::ipv4::incremental(i.in_csum, i.in_word0, w)
    };
    EgressOutputs {
        out_valid: true,
        out_drop: drop,
        out_flag: c.flag.code(),
        out_ecn: e,
        out_word0: w,
        out_csum: if drop { i.in_csum } else { csum },
        ..Default::default()
    }
}

/// The cycle model of `TunnelEgress`: its pipeline of
/// [`EGRESS_LATENCY_CYCLES`] registers (a packet's decision is a function
/// of the packet alone, so the stages carry it unchanged) and the
/// saturating counters one cycle behind the outputs.
#[derive(Clone, Debug, Default)]
pub struct TunnelEgressModel {
    /// The decisions in flight, the next to leave last.
    pipe: [Option<EgressOutputs>; EGRESS_LATENCY_CYCLES],
    counts: EgressCounters,
}

/// The block's four counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EgressCounters {
    /// Forwarded.
    pub forwarded: u32,
    /// Dropped.
    pub dropped: u32,
    /// `(!!!)`.
    pub dangerous: u32,
    /// `(!)`.
    pub unused: u32,
}

impl TunnelEgressModel {
    /// The block at power-up.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> EgressOutputs {
        let c = self.counts;
        let o = self.pipe[EGRESS_LATENCY_CYCLES - 1].unwrap_or_default();
        EgressOutputs {
            stat_forwarded_pkts: c.forwarded,
            stat_dropped_pkts: c.dropped,
            stat_dangerous_pkts: c.dangerous,
            stat_unused_pkts: c.unused,
            ..o
        }
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &EgressInputs) {
        if i.reset {
            *self = Self::default();
            return;
        }
        // the counters count what the outputs show this cycle
        if let Some(o) = self.pipe[EGRESS_LATENCY_CYCLES - 1] {
            let c = &mut self.counts;
            let sat = |x: &mut u32, on: bool| *x = x.saturating_add(on as u32);
            sat(&mut c.forwarded, !o.out_drop);
            sat(&mut c.dropped, o.out_drop);
            sat(&mut c.dangerous, o.out_flag == Flag::Dangerous.code());
            sat(&mut c.unused, o.out_flag == Flag::Unused.code());
        }
        self.pipe.rotate_right(1);
        self.pipe[0] = i.in_valid.then(|| egress_decision(i));
    }

    /// Loads the counters (a test reaches saturation without 2^32 packets).
    pub fn preset_counters(&mut self, c: EgressCounters) {
        self.counts = c;
    }
}

impl crate::cosim::CosimModel for TunnelEgressModel {
    type Input = EgressInputs;
    type Output = EgressOutputs;

    fn tick(&mut self, i: &EgressInputs) {
        TunnelEgressModel::tick(self, i)
    }

    fn outputs(&self) -> EgressOutputs {
        TunnelEgressModel::outputs(self)
    }

    /// Idle cycles until every decision is out and counted.
    fn drain(&self, _last: Option<&EgressInputs>) -> Vec<EgressInputs> {
        vec![EgressInputs::default(); EGRESS_LATENCY_CYCLES + EGRESS_COUNTER_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        // the last stage is on the outputs, its count not yet taken
        let n = self.pipe.iter().filter(|p| p.is_some()).count() as u64;
        if n == 0 {
            vec![]
        } else {
            vec![("packets in the egress pipeline", n)]
        }
    }
}

/// The egress's stimulus: packets most cycles, every (inner, outer) pair,
/// IPv4 and IPv6 inners with random other bits, idle runs, resets now and
/// then.
#[derive(Clone, Debug, Default)]
pub struct EgressStimulus;

impl crate::Stimulus for EgressStimulus {
    type Input = EgressInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> EgressInputs {
        let x = d.next_u64();
        EgressInputs {
            reset: x.is_multiple_of(2000),
            in_valid: !(x >> 11).is_multiple_of(8),
            in_ipv6: (x >> 14) & 3 == 0,
            in_word0: (x >> 16) as u16,
            in_csum: (x >> 32) as u16,
            in_outer_ecn: (x >> 48) as u8 & 3,
        }
    }
}

/// A seeded stream of the egress's inputs.
pub fn egress_stimulus(seed: u64) -> impl Iterator<Item = EgressInputs> + Clone {
    crate::seeded(EgressStimulus, seed ^ 0x7E6E_6040_0000_0001)
}

/// Figure 5 (RFC 6040 Figure 3) as printed: for each incoming inner
/// codepoint (rows Not-ECT, ECT(0), ECT(1), CE), the departing outer one
/// in compatibility and in normal mode. [`ingress`] is the rule; the tests
/// hold it (and the RTL) to this table.
pub const FIGURE_5: [(u8, u8, u8); 4] = {
    use ecn::*;
    [
        (NOT_ECT, NOT_ECT, NOT_ECT),
        (ECT0, NOT_ECT, ECT0),
        (ECT1, NOT_ECT, ECT1),
        (CE, NOT_ECT, CE),
    ]
};

/// Tunnel-id bits of `TunnelIngress` (64 tunnels per ingress PE, each with
/// its own mode; a build constant).
pub const TUNNEL_BITS: u32 = 6;
/// Tunnels of `TunnelIngress`.
pub const TUNNELS: usize = 1 << TUNNEL_BITS;
/// Cycles from a packet on the inputs to its outer ECN field on the
/// output registers of `TunnelIngress` (a design constant).
pub const INGRESS_LATENCY_CYCLES: usize = 2;

crate::ports! {
    callback tunnel_ingress_ports;
    /// One cycle of the ingress PE's inputs: a packet to encapsulate, and
    /// a write of one tunnel's mode.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct IngressInputs {
        /// Synchronous reset: every tunnel back to normal mode, the packets in flight dropped.
        reset: bool = 1,
        /// A packet to encapsulate this cycle (one per clock, no back-pressure).
        in_valid: bool = 1,
        /// Its tunnel.
        in_tunnel: u8 = TUNNEL_BITS,
        /// Its inner header is IPv6 (ECN in word 0 bits 5..4); else IPv4 (bits 1..0).
        in_ipv6: bool = 1,
        /// The inner header's first 16-bit word (never modified at the ingress).
        in_word0: u16 = 16,
        /// Write tunnel `cfg_tunnel`'s mode: it applies to packets presented from the next cycle on.
        cfg_we: bool = 1,
        /// The tunnel written.
        cfg_tunnel: u8 = TUNNEL_BITS,
        /// Its mode: 1 compatibility (outer Not-ECT), 0 normal (outer = inner).
        cfg_compat: bool = 1,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct IngressOutputs {
        /// A packet's outer header is decided.
        out_valid: bool = 1,
        /// Its tunnel.
        out_tunnel: u8 = TUNNEL_BITS,
        /// The ECN field of its outer header.
        out_outer_ecn: u8 = 2,
        /// The tunnel's mode it was encapsulated in (1 compatibility).
        out_compat: bool = 1,
    }
}

/// The cycle model of `TunnelIngress` (`hdl/src/tunnel_ingress.rs`): the
/// modes of the 64 tunnels (normal at power-up and after a reset), the
/// registered mode write, the registered packet, the output registers.
/// Outputs are 0 in a cycle without a packet.
#[derive(Clone, Debug, Default)]
pub struct TunnelIngressModel {
    /// Bit t: tunnel t is in compatibility mode.
    modes: u64,
    write: Option<(u8, bool)>,
    pkt: Option<(u8, bool, u16)>,
    out: IngressOutputs,
}

impl TunnelIngressModel {
    /// The block at power-up: every tunnel in normal mode.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tunnel `t`'s mode.
    pub fn mode(&self, t: u8) -> Mode {
        if self.modes >> (t as usize % TUNNELS) & 1 != 0 {
            Mode::Compatibility
        } else {
            Mode::Normal
        }
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> IngressOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &IngressInputs) {
        if i.reset {
            *self = Self::default();
            return;
        }
        let mask = TUNNELS as u8 - 1;
        self.out = match self.pkt {
            Some((t, ipv6, w)) => {
                let mode = self.mode(t);
                IngressOutputs {
                    out_valid: true,
                    out_tunnel: t,
                    out_outer_ecn: ingress(mode, word_ecn(w, ipv6)),
                    out_compat: mode == Mode::Compatibility,
                }
            }
            None => IngressOutputs::default(),
        };
        if let Some((t, c)) = self.write {
            let bit = 1u64 << t;
            self.modes = if c {
                self.modes | bit
            } else {
                self.modes & !bit
            };
        }
        self.write = i.cfg_we.then_some((i.cfg_tunnel & mask, i.cfg_compat));
        self.pkt = i
            .in_valid
            .then_some((i.in_tunnel & mask, i.in_ipv6, i.in_word0));
    }
}

impl crate::cosim::CosimModel for TunnelIngressModel {
    type Input = IngressInputs;
    type Output = IngressOutputs;

    fn tick(&mut self, i: &IngressInputs) {
        TunnelIngressModel::tick(self, i)
    }

    fn outputs(&self) -> IngressOutputs {
        TunnelIngressModel::outputs(self)
    }

    /// Idle cycles until the last packet's decision has left.
    fn drain(&self, _last: Option<&IngressInputs>) -> Vec<IngressInputs> {
        vec![IngressInputs::default(); INGRESS_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let n = self.pkt.is_some() as u64 + self.write.is_some() as u64;
        if n == 0 {
            vec![]
        } else {
            vec![("a packet or a mode write in the ingress", n)]
        }
    }
}

/// The ingress's stimulus: packets most cycles on a few tunnels, every
/// codepoint, IPv4 and IPv6 inners; mode writes now and then (some in the
/// same cycle as a packet of the same tunnel); resets now and then.
#[derive(Clone, Debug, Default)]
pub struct IngressStimulus;

impl crate::Stimulus for IngressStimulus {
    type Input = IngressInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> IngressInputs {
        let x = d.next_u64();
        let hot = (x >> 20) as u8 & 3;
        let tunnel = if x & 0x300 == 0 {
            (x >> 24) as u8
        } else {
            hot * 9
        };
        IngressInputs {
            reset: x.is_multiple_of(1500),
            in_valid: !(x >> 11).is_multiple_of(6),
            in_tunnel: tunnel & (TUNNELS as u8 - 1),
            in_ipv6: (x >> 14) & 3 == 0,
            in_word0: (x >> 32) as u16,
            cfg_we: (x >> 48).is_multiple_of(8),
            cfg_tunnel: if x >> 52 & 1 != 0 {
                hot * 9
            } else {
                (x >> 56) as u8 & (TUNNELS as u8 - 1)
            },
            cfg_compat: x >> 53 & 1 != 0,
        }
    }
}

/// A seeded stream of the ingress's inputs.
pub fn ingress_stimulus(seed: u64) -> impl Iterator<Item = IngressInputs> + Clone {
    crate::seeded(IngressStimulus, seed ^ 0x7E6E_6040_0000_0002)
}

#[cfg(test)]
mod tests {
    use super::ecn::*;
    use super::*;

    const ALL: [u8; 4] = [NOT_ECT, ECT1, ECT0, CE];

    /// Figure 5 as printed equals the rule.
    #[test]
    fn ingress_equals_figure_5() {
        for (inner, compat, normal) in FIGURE_5 {
            assert_eq!(ingress(Mode::Compatibility, inner), compat);
            assert_eq!(ingress(Mode::Normal, inner), normal);
        }
        let mut rows: Vec<u8> = FIGURE_5.iter().map(|r| r.0).collect();
        rows.sort();
        assert_eq!(rows, vec![0, 1, 2, 3], "every codepoint once");
    }

    /// A mode write applies to packets presented from the next cycle on;
    /// a reset returns every tunnel to normal mode.
    #[test]
    fn ingress_model_mode_writes_and_reset() {
        let mut m = TunnelIngressModel::new();
        let pkt = |t: u8| IngressInputs {
            in_valid: true,
            in_tunnel: t,
            in_word0: 0x4500 | CE as u16,
            ..Default::default()
        };
        // a write and a packet of tunnel 5 in one cycle: the packet is normal
        let both = IngressInputs {
            cfg_we: true,
            cfg_tunnel: 5,
            cfg_compat: true,
            ..pkt(5)
        };
        let mut outs = vec![];
        for i in [
            both,
            pkt(5),
            pkt(6),
            IngressInputs::default(),
            IngressInputs::default(),
        ] {
            m.tick(&i);
            outs.push(m.outputs());
        }
        let ecn: Vec<(bool, u8)> = outs
            .iter()
            .map(|o| (o.out_valid, o.out_outer_ecn))
            .collect();
        assert_eq!(
            ecn,
            vec![
                (false, 0),
                (true, CE),
                (true, NOT_ECT),
                (true, CE),
                (false, 0)
            ]
        );
        assert_eq!(m.mode(5), Mode::Compatibility);
        m.tick(&IngressInputs {
            reset: true,
            ..Default::default()
        });
        assert_eq!(m.mode(5), Mode::Normal);
    }

    /// F2, F3, F4: normal copies, compatibility clears, normal is the default.
    #[test]
    fn ingress_copies_in_normal_mode_and_clears_in_compatibility_mode() {
        assert_eq!(Mode::default(), Mode::Normal);
        for e in ALL {
            assert_eq!(ingress(Mode::Normal, e), e, "{}", NAMES[e as usize]);
            assert_eq!(ingress(Mode::Compatibility, e), NOT_ECT);
            // only the low two bits are a codepoint
            assert_eq!(ingress(Mode::Normal, e | 0xfc), e);
        }
    }

    /// F5: all 16 cells against the closed form, and the table's counts:
    /// one drop, four (!!!) with the drop among them, one (!).
    #[test]
    fn egress_table_equals_the_closed_form_in_all_16_cells() {
        let mut flags = std::collections::HashMap::new();
        let mut drops = vec![];
        for inner in ALL {
            for outer in ALL {
                let c = egress(inner, outer);
                assert_eq!(
                    c.action,
                    egress_closed_form(inner, outer),
                    "inner {}, outer {}",
                    NAMES[inner as usize],
                    NAMES[outer as usize]
                );
                *flags.entry(c.flag).or_insert(0) += 1;
                if c.action == Action::Drop {
                    drops.push((inner, outer, c.flag));
                }
            }
        }
        assert_eq!(drops, vec![(NOT_ECT, CE, Flag::Dangerous)]);
        assert_eq!(flags[&Flag::Dangerous], 4);
        assert_eq!(flags[&Flag::Unused], 1);
        assert_eq!(flags[&Flag::None], 11);
        // the flagged cells, by name (RFC 6040 Figure 4)
        assert_eq!(egress(NOT_ECT, ECT0).flag, Flag::Dangerous);
        assert_eq!(egress(NOT_ECT, ECT1).flag, Flag::Dangerous);
        assert_eq!(egress(CE, ECT1).flag, Flag::Dangerous);
        assert_eq!(egress(ECT1, ECT0).flag, Flag::Unused);
    }

    /// The egress never clears a CE, never marks a Not-ECT inner, and an
    /// unflagged cell never makes an ECT(0)/ECT(1) inner less marked than
    /// its outer.
    #[test]
    fn egress_keeps_congestion_and_never_marks_a_not_ect_packet() {
        for inner in ALL {
            for outer in ALL {
                match egress(inner, outer).action {
                    Action::Forward(e) => {
                        assert!(inner != CE && outer != CE || e == CE, "{inner} {outer}");
                        assert!(inner != NOT_ECT || e == NOT_ECT, "{inner} {outer}");
                    }
                    Action::Drop => assert_eq!((inner, outer), (NOT_ECT, CE)),
                }
            }
        }
    }

    /// F1 with the egress: a tunnel in normal mode and no congestion inside
    /// it delivers every codepoint unchanged; a CE set on the outer reaches
    /// every ECT inner and drops a Not-ECT one.
    #[test]
    fn a_round_trip_through_the_tunnel() {
        for inner in ALL {
            let outer = ingress(Mode::Normal, inner);
            assert_eq!(
                egress(inner, outer),
                fwd(inner),
                "{}",
                NAMES[inner as usize]
            );
            let marked = if outer == NOT_ECT { outer } else { CE };
            let want = if inner == NOT_ECT {
                fwd(NOT_ECT)
            } else {
                fwd(CE)
            };
            assert_eq!(egress(inner, marked), want);
            // compatibility mode: the outer is Not-ECT, nothing to pass on
            let outer = ingress(Mode::Compatibility, inner);
            assert_eq!(egress(inner, outer).action, Action::Forward(inner));
        }
        assert_eq!(egress(NOT_ECT, CE).action, Action::Drop);
    }

    /// The IPv4 inner header's checksum stays valid when the egress writes
    /// CE into it, for every header of a seeded sample.
    #[test]
    fn egress_rewrites_the_ipv4_checksum_incrementally() {
        let mut x = 0x1234_5678u32;
        for _ in 0..10_000 {
            let mut h = [0u16; 10];
            for w in h.iter_mut() {
                x = crate::xorshift::step(x);
                *w = x as u16;
            }
            h[0] = 0x4500 | (h[0] & 0xff);
            h[5] = crate::ipv4::full_checksum(&h);
            assert!(crate::ipv4::verifies(&h));
            for outer in ALL {
                let o = egress_decision(&EgressInputs {
                    in_valid: true,
                    in_word0: h[0],
                    in_csum: h[5],
                    in_outer_ecn: outer,
                    ..Default::default()
                });
                if o.out_drop {
                    assert_eq!((h[0] & 3, outer), (0u16, CE));
                    continue;
                }
                let mut h2 = h;
                h2[0] = o.out_word0;
                h2[5] = o.out_csum;
                assert!(crate::ipv4::verifies(&h2), "{h:04x?} outer {outer}");
                assert_eq!(h2[0] & !3, h[0] & !3, "only the ECN field changes");
            }
        }
    }

    /// The cycle model's counters over the 16 cells: 15 forwarded (3 of
    /// them with the ECN field changed), 1 dropped, 4 `(!!!)`, 1 `(!)`.
    #[test]
    fn egress_counts_by_action_and_class() {
        let mut m = TunnelEgressModel::new();
        let mut cells = vec![];
        for inner in ALL {
            for outer in ALL {
                cells.push(EgressInputs {
                    in_valid: true,
                    in_word0: 0x4500 | inner as u16,
                    in_outer_ecn: outer,
                    ..Default::default()
                });
            }
        }
        let drain = EGRESS_LATENCY_CYCLES + EGRESS_COUNTER_LATENCY_CYCLES;
        let mut out = vec![];
        for i in cells.iter().chain(&vec![EgressInputs::default(); drain]) {
            m.tick(i);
            if m.outputs().out_valid {
                out.push(m.outputs());
            }
        }
        // decisions leave in order: each beside the packet it was made of
        let rewritten = out
            .iter()
            .zip(&cells)
            .filter(|(o, i)| !o.out_drop && o.out_ecn as u16 != i.in_word0 & 3)
            .count();
        assert_eq!((out.len(), rewritten), (16, 3));
        let o = m.outputs();
        assert_eq!(
            (
                o.stat_forwarded_pkts,
                o.stat_dropped_pkts,
                o.stat_dangerous_pkts,
                o.stat_unused_pkts
            ),
            (15, 1, 4, 1)
        );
    }
}
