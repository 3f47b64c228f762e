//! The END.CON match at a PE (draft 001 §4.2.2, COMPANION.md F10, G11):
//! one packet per clock, its outer IPv6 destination compared with the
//! PE's configured 128-bit END.CON SID, then its next header checked.
//!
//! END.CON has no behaviour codepoint and no IGP encoding (IANA TBD);
//! COMPANION.md G11 chooses RFC 8986 §4.8 End.DT46 with the global table:
//! - destination != END.CON: **forward** (normal IPv6 forwarding);
//! - destination == END.CON, and the upper layer (the outer Next Header,
//!   or the SRH's when the outer one is 43) is IPv4 (4) or IPv6 (41), with
//!   Segments Left 0 when there is an SRH: **decapsulate** (strip the
//!   outer header and SRH, route the inner packet: the Fast CNP's way back
//!   to its sender);
//! - destination == END.CON and the upper layer ICMPv6 (58): **punt** to
//!   the control plane (END.CON is the source of all tunnel traffic, so
//!   ICMPv6 errors come back to it; they are never forwarded);
//! - destination == END.CON otherwise (an SRH with Segments Left > 0, any
//!   other upper layer): **drop** (RFC 8754 §4.3.1.2 upper-layer
//!   processing has nothing to give it to).
//!
//! Every decision is counted. An SID of all zeros (`::`, the unspecified
//! address, which is never a destination) means *not configured*: nothing
//! matches, every packet is forwarded. Power-up and reset leave it so.

/// Cycles from a packet on the inputs to its decision on the output
/// registers of `EndCon` (`hdl/src/end_con.rs`): the input registers; four
/// 32-bit compares with the upper layer's class; the decision (a design
/// constant: one LUT tree per stage).
pub const END_CON_LATENCY_CYCLES: usize = 3;
/// Cycles from a decision on the outputs to its count (a design constant).
pub const END_CON_COUNTER_LATENCY_CYCLES: usize = 1;
/// Bits of each counter (they saturate at 2^32 - 1).
pub const END_CON_COUNTER_BITS: usize = 32;
/// Bits of `out_strip_bytes`: the outer header and an SRH of Hdr Ext Len
/// 255 are 40 + 8 * 256 = 2,088 bytes.
pub const STRIP_BITS: u32 = 12;

/// What the PE does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Not for END.CON: normal forwarding.
    Forward,
    /// For END.CON: strip the outer header (and SRH), route the inner one.
    Decapsulate,
    /// For END.CON, ICMPv6: to the control plane.
    Punt,
    /// For END.CON, nothing to deliver it to.
    Drop,
}

impl Action {
    /// The code on `out_action`.
    pub const fn code(self) -> u8 {
        match self {
            Action::Forward => 0,
            Action::Decapsulate => 1,
            Action::Punt => 2,
            Action::Drop => 3,
        }
    }

    /// The action of a code.
    pub const fn from_code(c: u8) -> Action {
        match c & 3 {
            0 => Action::Forward,
            1 => Action::Decapsulate,
            2 => Action::Punt,
            _ => Action::Drop,
        }
    }
}

/// The decision for a packet whose destination is (`matches`) END.CON,
/// with its outer Next Header, and its SRH's Next Header and Segments Left
/// (read only when the outer Next Header is 43). The rule of the module
/// doc, written once: the model, the tests and the hardware's truth table
/// all come from it.
pub fn decide(matches: bool, outer_nh: u8, srh_nh: u8, segments_left: u8) -> Action {
    use crate::wire::srv6::{NH_ICMPV6, NH_IPV4, NH_IPV6, NH_ROUTING};
    if !matches {
        return Action::Forward;
    }
    let (upper, sl_ok) = if outer_nh == NH_ROUTING {
        (srh_nh, segments_left == 0)
    } else {
        (outer_nh, true)
    };
    match upper {
        _ if !sl_ok => Action::Drop,
        NH_IPV4 | NH_IPV6 => Action::Decapsulate,
        NH_ICMPV6 => Action::Punt,
        _ => Action::Drop,
    }
}

/// Bytes a decapsulation strips: the outer header, and the SRH of Hdr Ext
/// Len `ext` when the outer Next Header is 43.
pub fn strip_bytes(outer_nh: u8, ext: u8) -> u16 {
    if outer_nh == crate::wire::srv6::NH_ROUTING {
        40 + 8 * (ext as u16 + 1)
    } else {
        40
    }
}

crate::ports! {
    callback end_con_ports;
    /// One cycle of the PE's inputs: a packet's outer header fields, and a
    /// write of one 32-bit word of the END.CON SID.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct EndConInputs {
        /// Synchronous reset: the SID back to `::` (not configured), the packets in flight dropped, the counters zeroed.
        reset: bool = 1,
        /// A packet this cycle (one per clock, no back-pressure).
        in_valid: bool = 1,
        /// Its outer IPv6 destination, bits 127..64 (address bytes 0-7).
        in_dst_hi: u64 = 64,
        /// Its outer IPv6 destination, bits 63..0 (address bytes 8-15).
        in_dst_lo: u64 = 64,
        /// The outer Next Header.
        in_next_header: u8 = 8,
        /// The SRH's Next Header (read when the outer one is 43).
        in_srh_next_header: u8 = 8,
        /// The SRH's Segments Left (read when the outer Next Header is 43).
        in_srh_segments_left: u8 = 8,
        /// The SRH's Hdr Ext Len, in 8-byte units after the first 8 (read when the outer Next Header is 43).
        in_srh_ext_len: u8 = 8,
        /// Write word `cfg_word` of the SID: it applies to packets presented from the next cycle on.
        cfg_we: bool = 1,
        /// The word: 0 is bits 127..96 (address bytes 0-3), 3 is bits 31..0.
        cfg_word: u8 = 2,
        /// Its value.
        cfg_data: u32 = 32,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct EndConOutputs {
        /// A decision this cycle.
        out_valid: bool = 1,
        /// 0 forward, 1 decapsulate, 2 punt to the control plane, 3 drop.
        out_action: u8 = 2,
        /// Bytes to strip before the inner packet (40, or 40 + the SRH's 8 (Hdr Ext Len + 1)) for a decapsulation; 0 otherwise.
        out_strip_bytes: u16 = STRIP_BITS,
        /// Packets forwarded (not for END.CON; saturating).
        stat_forwarded_pkts: u32 = END_CON_COUNTER_BITS as u32,
        /// Packets decapsulated (saturating).
        stat_decap_pkts: u32 = END_CON_COUNTER_BITS as u32,
        /// ICMPv6 packets to END.CON punted (saturating).
        stat_punted_pkts: u32 = END_CON_COUNTER_BITS as u32,
        /// Packets to END.CON dropped (saturating).
        stat_dropped_pkts: u32 = END_CON_COUNTER_BITS as u32,
    }
}

/// `sid` with 32-bit word `word` (0 = bits 127..96) replaced by `data`:
/// what a `cfg_we` write does.
pub fn with_sid_word(sid: u128, word: u8, data: u32) -> u128 {
    let shift = 32 * (3 - (word & 3) as u32);
    (sid & !(0xffff_ffffu128 << shift)) | (data as u128) << shift
}

/// The four word writes that set the SID to `sid`, word 0 first.
pub fn sid_writes(sid: u128) -> [EndConInputs; 4] {
    std::array::from_fn(|w| EndConInputs {
        cfg_we: true,
        cfg_word: w as u8,
        cfg_data: (sid >> (32 * (3 - w as u32))) as u32,
        ..Default::default()
    })
}

/// One packet's decision, as the outputs show it, against SID `sid`.
pub fn decision(sid: u128, i: &EndConInputs) -> EndConOutputs {
    let dst = (i.in_dst_hi as u128) << 64 | i.in_dst_lo as u128;
    let a = decide(
        sid != 0 && dst == sid,
        i.in_next_header,
        i.in_srh_next_header,
        i.in_srh_segments_left,
    );
    EndConOutputs {
        out_valid: true,
        out_action: a.code(),
        out_strip_bytes: if a == Action::Decapsulate {
            strip_bytes(i.in_next_header, i.in_srh_ext_len)
        } else {
            0
        },
        ..Default::default()
    }
}

/// The block's four counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EndConCounters {
    /// Forwarded.
    pub forwarded: u32,
    /// Decapsulated.
    pub decapsulated: u32,
    /// Punted.
    pub punted: u32,
    /// Dropped.
    pub dropped: u32,
}

/// The cycle model of `EndCon`: the SID, the registered word write, the
/// packets in the pipeline (each stage holds the packet with the SID its
/// compare will see), the counters one cycle behind the outputs.
#[derive(Clone, Debug, Default)]
pub struct EndConModel {
    sid: u128,
    write: Option<(u8, u32)>,
    /// Stage 1: the registered packet.
    s1: Option<EndConInputs>,
    /// Stage 2: the packet's decision, taken with the SID of its compare.
    s2: Option<EndConOutputs>,
    out: Option<EndConOutputs>,
    counts: EndConCounters,
}

impl EndConModel {
    /// The block at power-up: SID `::`, not configured.
    pub fn new() -> Self {
        Self::default()
    }

    /// The SID as written.
    pub fn sid(&self) -> u128 {
        self.sid
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> EndConOutputs {
        let c = self.counts;
        EndConOutputs {
            stat_forwarded_pkts: c.forwarded,
            stat_decap_pkts: c.decapsulated,
            stat_punted_pkts: c.punted,
            stat_dropped_pkts: c.dropped,
            ..self.out.unwrap_or_default()
        }
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &EndConInputs) {
        if i.reset {
            *self = Self::default();
            return;
        }
        if let Some(o) = self.out {
            let c = &mut self.counts;
            let n = match Action::from_code(o.out_action) {
                Action::Forward => &mut c.forwarded,
                Action::Decapsulate => &mut c.decapsulated,
                Action::Punt => &mut c.punted,
                Action::Drop => &mut c.dropped,
            };
            *n = n.saturating_add(1);
        }
        self.out = self.s2;
        // the compare of stage 1's packet sees the SID before this edge's write
        self.s2 = self.s1.map(|p| decision(self.sid, &p));
        if let Some((w, d)) = self.write {
            self.sid = with_sid_word(self.sid, w, d);
        }
        self.write = i.cfg_we.then_some((i.cfg_word & 3, i.cfg_data));
        self.s1 = i.in_valid.then_some(*i);
    }

    /// Loads the counters (a test reaches saturation without 2^32 packets).
    pub fn preset_counters(&mut self, c: EndConCounters) {
        self.counts = c;
    }
}

impl crate::cosim::CosimModel for EndConModel {
    type Input = EndConInputs;
    type Output = EndConOutputs;

    fn tick(&mut self, i: &EndConInputs) {
        EndConModel::tick(self, i)
    }

    fn outputs(&self) -> EndConOutputs {
        EndConModel::outputs(self)
    }

    /// Idle cycles until every decision is out and counted.
    fn drain(&self, _last: Option<&EndConInputs>) -> Vec<EndConInputs> {
        vec![EndConInputs::default(); END_CON_LATENCY_CYCLES + END_CON_COUNTER_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let n = self.s1.is_some() as u64
            + self.s2.is_some() as u64
            + self.out.is_some() as u64
            + self.write.is_some() as u64;
        if n == 0 {
            vec![]
        } else {
            vec![("packets or an SID write in the END.CON match", n)]
        }
    }
}

/// The next headers the stimulus draws from: the ones the rule names and
/// two it does not (UDP, TCP).
const NEXT_HEADERS: [u8; 6] = [4, 41, 43, 58, 17, 6];

/// The stimulus: packets most cycles, their destination the SID as the
/// stimulus last wrote it (it mirrors its own writes and resets), the SID
/// with one bit flipped (every bit of every compare word), or anything;
/// every next header of the rule with SRH fields around their edges; SID
/// word writes now and then, resets rarely.
#[derive(Clone, Debug, Default)]
pub struct EndConStimulus {
    /// The SID as the block will hold it after the writes drawn so far.
    sid: u128,
}

impl crate::Stimulus for EndConStimulus {
    type Input = EndConInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> EndConInputs {
        let x = d.next_u64();
        let y = d.next_u64();
        let z = d.next_u64();
        let reset = x.is_multiple_of(3000);
        let dst = match (x >> 12) % 8 {
            0..=3 => self.sid,
            4 | 5 => self.sid ^ 1u128 << (y % 128),
            6 => 0,
            _ => (y as u128) << 64 | z as u128,
        };
        let nh = |v: u64| {
            if v & 0x1f == 0 {
                (v >> 8) as u8
            } else {
                NEXT_HEADERS[(v >> 5) as usize % NEXT_HEADERS.len()]
            }
        };
        let cfg_we = (x >> 20).is_multiple_of(16);
        // words of a few SIDs, so that destinations often equal one
        let cfg_data = if (x >> 26) & 1 == 0 {
            0x2001_0db8 ^ ((x >> 27) as u32 & 3)
        } else {
            (z >> 32) as u32
        };
        let cfg_word = (x >> 30) as u8 & 3;
        let i = EndConInputs {
            reset,
            in_valid: !(x >> 16).is_multiple_of(8),
            in_dst_hi: (dst >> 64) as u64,
            in_dst_lo: dst as u64,
            in_next_header: nh(x >> 32),
            in_srh_next_header: nh(x >> 44),
            in_srh_segments_left: if (x >> 56) & 3 == 0 {
                (y >> 8) as u8
            } else {
                0
            },
            in_srh_ext_len: (z >> 8) as u8,
            cfg_we,
            cfg_word,
            cfg_data,
        };
        if reset {
            self.sid = 0;
        } else if cfg_we {
            self.sid = with_sid_word(self.sid, cfg_word, cfg_data);
        }
        i
    }
}

/// A seeded stream of the block's inputs.
pub fn end_con_stimulus(seed: u64) -> impl Iterator<Item = EndConInputs> + Clone {
    crate::seeded(EndConStimulus::default(), seed ^ 0xE0DC_0000_0000_0001)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::srv6::{Ipv6Header, Srh, Srv6Packet};

    /// The rule over every (match, outer NH, SRH NH, Segments Left in {0,
    /// 1, 255}) with all 256 values of both next headers: against the
    /// cases of G11 written out one by one.
    #[test]
    fn decide_equals_g11_exhaustively() {
        let mut counts = std::collections::HashMap::new();
        for m in [false, true] {
            for o in 0..=255u8 {
                for s in 0..=255u8 {
                    for sl in [0u8, 1, 255] {
                        let a = decide(m, o, s, sl);
                        let want = if !m {
                            Action::Forward
                        } else if o == 43 {
                            match (sl, s) {
                                (0, 4 | 41) => Action::Decapsulate,
                                (0, 58) => Action::Punt,
                                _ => Action::Drop,
                            }
                        } else {
                            match o {
                                4 | 41 => Action::Decapsulate,
                                58 => Action::Punt,
                                _ => Action::Drop,
                            }
                        };
                        assert_eq!(a, want, "match {m}, NH {o}, SRH NH {s}, SL {sl}");
                        *counts.entry(a).or_insert(0u32) += 1;
                    }
                }
            }
        }
        assert_eq!(counts[&Action::Forward], 256 * 256 * 3);
        // decap: outer 4/41 (any SRH fields) + outer 43 with SRH 4/41 and SL 0
        assert_eq!(counts[&Action::Decapsulate], 2 * 256 * 3 + 2);
        assert_eq!(counts[&Action::Punt], 256 * 3 + 1);
    }

    /// F10 on real packets: a Fast CNP to END.CON is decapsulated (no SRH,
    /// 40 bytes), a tunnel packet whose SRH ends at END.CON too (with its
    /// SRH's bytes), one with segments left is dropped, another
    /// destination is forwarded; the model agrees with the packets' bytes.
    #[test]
    fn end_con_decides_real_packets() {
        let end_con: [u8; 16] = *b"\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\xc0\x01";
        let sid = u128::from_be_bytes(end_con);
        let inner = crate::wire::rocev2::tests::cx4_cnp();
        let outer = |dst, nh| Ipv6Header {
            traffic_class: 0,
            flow_label: 0,
            payload_len: 0,
            next_header: nh,
            hop_limit: 64,
            src: [0xfe; 16],
            dst,
        };
        let srh = |sl| Srh {
            next_header: 4,
            segments_left: sl,
            flags: 0,
            tag: 0,
            segments: vec![end_con, [1; 16]],
            tlvs: vec![],
        };
        let cases = [
            (outer(end_con, 4), None, Action::Decapsulate, 40),
            (outer(end_con, 43), Some(srh(0)), Action::Decapsulate, 80),
            (outer(end_con, 43), Some(srh(1)), Action::Drop, 0),
            (outer([1; 16], 4), None, Action::Forward, 0),
            (outer(end_con, 58), None, Action::Punt, 0),
        ];
        for (o, s, want, strip) in cases {
            let p = Srv6Packet {
                outer: o,
                srh: s,
                inner: inner.clone(),
            };
            let b = p.encode().unwrap();
            let i = EndConInputs {
                in_valid: true,
                in_dst_hi: u64::from_be_bytes(b[24..32].try_into().unwrap()),
                in_dst_lo: u64::from_be_bytes(b[32..40].try_into().unwrap()),
                in_next_header: b[6],
                in_srh_next_header: b.get(40).copied().unwrap_or(0),
                in_srh_segments_left: b.get(43).copied().unwrap_or(0),
                in_srh_ext_len: b.get(41).copied().unwrap_or(0),
                ..Default::default()
            };
            let d = decision(sid, &i);
            assert_eq!(Action::from_code(d.out_action), want, "{:?}", p.outer);
            assert_eq!(d.out_strip_bytes, strip);
            if want == Action::Decapsulate {
                assert_eq!(
                    &b[strip as usize..],
                    &inner[..],
                    "the inner packet follows the strip"
                );
            }
        }
        // not configured: nothing matches, not even the destination ::
        let i = EndConInputs {
            in_valid: true,
            in_next_header: 4,
            ..Default::default()
        };
        assert_eq!(decision(0, &i).out_action, Action::Forward.code());
    }

    /// SID writes apply from the next cycle's packets; the counters count
    /// each decision once, a cycle after it shows; a reset forgets the SID.
    #[test]
    fn model_writes_pipeline_and_counters() {
        let mut m = EndConModel::new();
        let sid: u128 = 0x2001_0db8_0000_0000_0000_0000_0000_c001;
        let mut stim = sid_writes(sid).to_vec();
        let pkt = EndConInputs {
            in_valid: true,
            in_dst_hi: (sid >> 64) as u64,
            in_dst_lo: sid as u64,
            in_next_header: 41,
            ..Default::default()
        };
        // in the cycle of the last word's write: the old SID (no match)
        stim[3] = EndConInputs { ..pkt };
        stim[3].cfg_we = true;
        stim[3].cfg_word = 3;
        stim[3].cfg_data = sid as u32;
        stim.push(pkt);
        stim.extend([EndConInputs::default(); 4]);
        let mut acts = vec![];
        for i in &stim {
            m.tick(i);
            if m.outputs().out_valid {
                acts.push(Action::from_code(m.outputs().out_action));
            }
        }
        assert_eq!(m.sid(), sid);
        assert_eq!(acts, vec![Action::Forward, Action::Decapsulate]);
        let o = m.outputs();
        assert_eq!((o.stat_forwarded_pkts, o.stat_decap_pkts), (1, 1));
        m.preset_counters(EndConCounters {
            decapsulated: u32::MAX,
            ..Default::default()
        });
        for _ in 0..6 {
            m.tick(&pkt);
        }
        assert_eq!(m.outputs().stat_decap_pkts, u32::MAX, "saturates");
        m.tick(&EndConInputs {
            reset: true,
            ..Default::default()
        });
        assert_eq!((m.sid(), m.outputs()), (0, EndConOutputs::default()));
    }
}
