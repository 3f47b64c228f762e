//! The SRv6 tunnel of draft 001 §4: an outer IPv6 header (RFC 8200)
//! whose source address is the ingress PE's END.CON SID (F8), an optional
//! Segment Routing Header (RFC 8754 §2), and the inner RoCEv2 packet
//! (IPv4 or IPv6) unchanged but for its ECN field.
//!
//! Layouts (COMPANION.md 1.2): outer IPv6 40 bytes, its ECN field byte 1
//! mask `0x30`; the SRH at byte 40, Next Header 4 or 41, Hdr Ext Len in
//! 8-octet units excluding the first 8, Routing Type 4, Segments Left,
//! Last Entry = n - 1, Flags, Tag, Segment `List[0..n-1]` (`List[0]` the final
//! segment), then TLVs (kept as bytes, not interpreted); the inner packet
//! at byte 40 + 8 (Hdr Ext Len + 1).

use super::{field, Reader, WireError};
use crate::tunnel_ecn::{self, Action, Mode};

/// IPv6 Next Header of an IPv4 inner packet.
pub const NH_IPV4: u8 = 4;
/// IPv6 Next Header of an IPv6 inner packet.
pub const NH_IPV6: u8 = 41;
/// IPv6 Next Header of a routing header (the SRH).
pub const NH_ROUTING: u8 = 43;
/// IP protocol of UDP.
pub const NH_UDP: u8 = 17;
/// IPv6 Next Header of ICMPv6.
pub const NH_ICMPV6: u8 = 58;
/// The SRH's Routing Type.
pub const SRH_ROUTING_TYPE: u8 = 4;
/// Bytes of an IPv6 header.
pub const IPV6_HEADER_BYTES: usize = 40;
/// Bytes of an SRH before its segment list.
pub const SRH_FIXED_BYTES: usize = 8;
/// The largest segment list an SRH can hold (Hdr Ext Len 255: 2,040
/// bytes after the first 8, 127 segments of 16).
pub const SRH_MAX_SEGMENTS: usize = 127;

/// A 128-bit IPv6 address or SID.
pub type Addr6 = [u8; 16];

/// An IPv6 header (RFC 8200 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Header {
    /// Traffic Class: DSCP (6) and ECN (2, its low bits).
    pub traffic_class: u8,
    /// Flow Label, 20 bits.
    pub flow_label: u32,
    /// Payload Length: the bytes after this header.
    pub payload_len: u16,
    /// Next Header.
    pub next_header: u8,
    /// Hop Limit.
    pub hop_limit: u8,
    /// Source address.
    pub src: Addr6,
    /// Destination address.
    pub dst: Addr6,
}

impl Ipv6Header {
    /// Its ECN field.
    pub fn ecn(&self) -> u8 {
        self.traffic_class & 3
    }

    /// Appends its 40 bytes.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        if self.flow_label >= 1 << 20 {
            return Err(field(
                "IPv6 Flow Label",
                self.flow_label,
                "0..=0xfffff (20 bits)",
            ));
        }
        let w0 = (6u32 << 28) | ((self.traffic_class as u32) << 20) | self.flow_label;
        out.extend_from_slice(&w0.to_be_bytes());
        out.extend_from_slice(&self.payload_len.to_be_bytes());
        out.extend_from_slice(&[self.next_header, self.hop_limit]);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
        Ok(())
    }

    /// Reads one from `r` (version 6 or an error).
    pub fn parse(r: &mut Reader<'_>) -> Result<Ipv6Header, WireError> {
        let w0 = r.u32()?;
        if w0 >> 28 != 6 {
            return Err(field("IPv6 Version", w0 >> 28, "6"));
        }
        Ok(Ipv6Header {
            traffic_class: (w0 >> 20) as u8,
            flow_label: w0 & 0xf_ffff,
            payload_len: r.u16()?,
            next_header: r.u8()?,
            hop_limit: r.u8()?,
            src: r.array()?,
            dst: r.array()?,
        })
    }
}

/// A Segment Routing Header (RFC 8754 §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Srh {
    /// Next Header after the SRH (4 or 41 in a tunnel).
    pub next_header: u8,
    /// Segments Left: the index of the active segment.
    pub segments_left: u8,
    /// Flags.
    pub flags: u8,
    /// Tag.
    pub tag: u16,
    /// Segment `List[0..n-1]`, `List[0]` the final segment.
    pub segments: Vec<Addr6>,
    /// TLVs after the list, uninterpreted (a multiple of 8 bytes).
    pub tlvs: Vec<u8>,
}

impl Srh {
    /// Its length in bytes.
    pub fn wire_len(&self) -> usize {
        SRH_FIXED_BYTES + 16 * self.segments.len() + self.tlvs.len()
    }

    /// Appends its bytes.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let n = self.segments.len();
        if n == 0 || n > SRH_MAX_SEGMENTS {
            return Err(field("SRH segment count", n as u64, "1..=127"));
        }
        if !self.tlvs.len().is_multiple_of(8) {
            return Err(field(
                "SRH TLV bytes",
                self.tlvs.len() as u64,
                "a multiple of 8",
            ));
        }
        let ext = (self.wire_len() - 8) / 8;
        if ext > 255 {
            return Err(field(
                "SRH Hdr Ext Len",
                ext as u64,
                "0..=255 (segments and TLVs up to 2,040 bytes)",
            ));
        }
        if self.segments_left as usize >= n {
            return Err(field(
                "SRH Segments Left",
                self.segments_left,
                "0..=Last Entry (segments - 1)",
            ));
        }
        out.extend_from_slice(&[
            self.next_header,
            ext as u8,
            SRH_ROUTING_TYPE,
            self.segments_left,
            (n - 1) as u8,
            self.flags,
        ]);
        out.extend_from_slice(&self.tag.to_be_bytes());
        for s in &self.segments {
            out.extend_from_slice(s);
        }
        out.extend_from_slice(&self.tlvs);
        Ok(())
    }

    /// Reads one from `r`.
    pub fn parse(r: &mut Reader<'_>) -> Result<Srh, WireError> {
        let next_header = r.u8()?;
        let ext = r.u8()? as usize;
        let routing_type = r.u8()?;
        if routing_type != SRH_ROUTING_TYPE {
            return Err(field(
                "routing header Routing Type",
                routing_type,
                "4 (SRH)",
            ));
        }
        let segments_left = r.u8()?;
        let last_entry = r.u8()?;
        let flags = r.u8()?;
        let tag = r.u16()?;
        let n = last_entry as usize + 1;
        if 16 * n > 8 * ext {
            return Err(field(
                "SRH Last Entry",
                last_entry,
                "a list that fits Hdr Ext Len (16 (Last Entry + 1) <= 8 Hdr Ext Len)",
            ));
        }
        if segments_left > last_entry {
            return Err(field("SRH Segments Left", segments_left, "0..=Last Entry"));
        }
        let mut segments = Vec::with_capacity(n);
        for _ in 0..n {
            segments.push(r.array()?);
        }
        let tlvs = r.take(8 * ext - 16 * n)?.to_vec();
        Ok(Srh {
            next_header,
            segments_left,
            flags,
            tag,
            segments,
            tlvs,
        })
    }
}

/// An SRv6 tunnel packet: the outer header, its SRH if any, the inner
/// packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Srv6Packet {
    /// The outer IPv6 header. [`Srv6Packet::encode`] writes its Payload
    /// Length from the contents, and Next Header 43 when an SRH follows.
    pub outer: Ipv6Header,
    /// The SRH, if the outer Next Header is 43.
    pub srh: Option<Srh>,
    /// The inner packet (its protocol is the SRH's Next Header, or the
    /// outer one's without an SRH).
    pub inner: Vec<u8>,
}

/// The egress's outcome (RFC 6040 Figure 4 = 001 Figure 6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decap {
    /// The inner packet leaves, its ECN field (and IPv4 checksum) set.
    Forward(Vec<u8>),
    /// Dropped: a Not-ECT inner under a CE outer.
    Drop,
}

impl Srv6Packet {
    /// Its bytes.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let srh_len = self.srh.as_ref().map_or(0, Srh::wire_len);
        let payload = srh_len + self.inner.len();
        if payload > u16::MAX as usize {
            return Err(field("IPv6 Payload Length", payload as u64, "0..=65535"));
        }
        let mut outer = self.outer;
        outer.payload_len = payload as u16;
        if self.srh.is_some() {
            outer.next_header = NH_ROUTING;
        } else if outer.next_header == NH_ROUTING {
            return Err(field(
                "outer Next Header",
                NH_ROUTING,
                "not 43 without an SRH",
            ));
        }
        let mut out = Vec::with_capacity(IPV6_HEADER_BYTES + payload);
        outer.encode(&mut out)?;
        if let Some(s) = &self.srh {
            s.encode(&mut out)?;
        }
        out.extend_from_slice(&self.inner);
        Ok(out)
    }

    /// Parses a whole packet: its Payload Length must match the bytes
    /// given exactly.
    pub fn parse(bytes: &[u8]) -> Result<Srv6Packet, WireError> {
        let mut r = Reader::new(bytes, "SRv6 packet");
        let outer = Ipv6Header::parse(&mut r)?;
        let expected = IPV6_HEADER_BYTES + outer.payload_len as usize;
        if bytes.len() < expected {
            return Err(WireError::Truncated {
                what: "SRv6 packet",
                have: bytes.len(),
                need: expected,
            });
        }
        if bytes.len() > expected {
            return Err(WireError::OverLong {
                what: "SRv6 packet",
                have: bytes.len(),
                expected,
            });
        }
        let srh = if outer.next_header == NH_ROUTING {
            Some(Srh::parse(&mut r)?)
        } else {
            None
        };
        Ok(Srv6Packet {
            outer,
            srh,
            inner: r.rest().to_vec(),
        })
    }

    /// The inner packet's protocol (Next Header after the SRH, or the
    /// outer one).
    pub fn inner_next_header(&self) -> u8 {
        self.srh
            .as_ref()
            .map_or(self.outer.next_header, |s| s.next_header)
    }

    /// The tunnel's far end for a flow key (G5): Segment `List[0]`, or the
    /// destination when there is no SRH.
    pub fn final_segment(&self) -> Addr6 {
        self.srh
            .as_ref()
            .and_then(|s| s.segments.first().copied())
            .unwrap_or(self.outer.dst)
    }

    /// The ingress PE's encapsulation (F1, F2-F4, F8): outer source = its
    /// END.CON SID, the SRH's list `segments` (`List[0]` the final segment;
    /// the first one visited, List[n-1], is the outer destination, and
    /// Segments Left = n - 1), the outer ECN field by RFC 6040 `mode`, the
    /// outer traffic class's DSCP copied from the inner one. The inner
    /// packet is not changed. An SRH is always written, even for one
    /// segment (001 shows one; reduced encapsulation is not used).
    pub fn encapsulate(
        inner: &[u8],
        end_con: Addr6,
        segments: &[Addr6],
        mode: Mode,
        hop_limit: u8,
    ) -> Result<Srv6Packet, WireError> {
        let (nh, tc) = inner_family(inner)?;
        let last = match segments.last() {
            Some(s) if segments.len() <= SRH_MAX_SEGMENTS => *s,
            _ => return Err(field("segment count", segments.len() as u64, "1..=127")),
        };
        Ok(Srv6Packet {
            outer: Ipv6Header {
                traffic_class: (tc & !3) | tunnel_ecn::ingress(mode, tc & 3),
                flow_label: 0,
                payload_len: 0,
                next_header: NH_ROUTING,
                hop_limit,
                src: end_con,
                dst: last,
            },
            srh: Some(Srh {
                next_header: nh,
                segments_left: (segments.len() - 1) as u8,
                flags: 0,
                tag: 0,
                segments: segments.to_vec(),
                tlvs: Vec::new(),
            }),
            inner: inner.to_vec(),
        })
    }

    /// The egress PE's decapsulation (F1, F5): the inner packet with the
    /// ECN field of RFC 6040's table and, for IPv4, its header checksum
    /// updated by RFC 1624 (the tunnel egress block's arithmetic); or a
    /// drop.
    pub fn decapsulate(&self) -> Result<Decap, WireError> {
        let (_, tc) = inner_family(&self.inner)?;
        let v6 = self.inner[0] >> 4 == 6;
        match tunnel_ecn::egress(tc & 3, self.outer.ecn()).action {
            Action::Drop => Ok(Decap::Drop),
            Action::Forward(e) => {
                let mut p = self.inner.clone();
                let w0 = u16::from_be_bytes([p[0], p[1]]);
                let w = tunnel_ecn::word_with_ecn(w0, v6, e);
                p[..2].copy_from_slice(&w.to_be_bytes());
                if !v6 {
                    let hc = u16::from_be_bytes([p[10], p[11]]);
                    let hc = crate::ipv4::incremental(hc, w0, w);
                    p[10..12].copy_from_slice(&hc.to_be_bytes());
                }
                Ok(Decap::Forward(p))
            }
        }
    }
}

/// An inner packet's Next Header (4 or 41) and traffic class (IPv4: its
/// TOS byte), refusing anything that is not an IPv4 or IPv6 header.
fn inner_family(inner: &[u8]) -> Result<(u8, u8), WireError> {
    let mut r = Reader::new(inner, "inner packet");
    let b0 = r.u8()?;
    let b1 = r.u8()?;
    match b0 >> 4 {
        4 => {
            if inner.len() < 20 {
                return Err(WireError::Truncated {
                    what: "inner IPv4 header",
                    have: inner.len(),
                    need: 20,
                });
            }
            Ok((NH_IPV4, b1))
        }
        6 => {
            if inner.len() < IPV6_HEADER_BYTES {
                return Err(WireError::Truncated {
                    what: "inner IPv6 header",
                    have: inner.len(),
                    need: IPV6_HEADER_BYTES,
                });
            }
            Ok((NH_IPV6, (b0 << 4) | (b1 >> 4)))
        }
        v => Err(field("inner IP Version", v, "4 or 6")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tunnel_ecn::ecn;
    use crate::wire::{hex, unhex};

    fn sid(last: u8) -> Addr6 {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        a[15] = last;
        a
    }

    /// The ConnectX-4 Lx CNP of `rocev2`'s vectors, as an inner packet.
    fn inner_v4() -> Vec<u8> {
        crate::wire::rocev2::tests::cx4_cnp()
    }

    #[test]
    fn encapsulation_bytes_match_the_layout_byte_for_byte() {
        let inner = inner_v4();
        let p = Srv6Packet::encapsulate(&inner, sid(0xc0), &[sid(2), sid(1)], Mode::Normal, 64)
            .unwrap();
        let b = p.encode().unwrap();
        let tc = inner[1]; // 0xc2: DSCP 48, ECN ECT(0)
        let expect = format!(
            "6{tc:02x}00000 {len:04x} 2b 40 {src} {dst} 04 04 04 01 01 00 0000 {l0} {l1} {inner}",
            len = 8 + 32 + inner.len(),
            src = hex(&sid(0xc0)),
            dst = hex(&sid(1)),
            l0 = hex(&sid(2)),
            l1 = hex(&sid(1)),
            inner = hex(&inner),
        );
        assert_eq!(hex(&b), hex(&unhex(&expect).unwrap()));
        // the outer ECN field is byte 1 mask 0x30 (COMPANION.md 1.2)
        assert_eq!((b[1] & 0x30) >> 4, ecn::ECT0);
        assert_eq!(Srv6Packet::parse(&b).unwrap(), {
            let mut q = p.clone();
            q.outer.payload_len = (b.len() - 40) as u16;
            q
        });
        assert_eq!(p.final_segment(), sid(2));
        assert_eq!(p.inner_next_header(), NH_IPV4);
        // compatibility mode: outer Not-ECT, DSCP kept, inner unchanged (F3)
        let c =
            Srv6Packet::encapsulate(&inner, sid(0xc0), &[sid(2)], Mode::Compatibility, 64).unwrap();
        assert_eq!(c.outer.traffic_class, 0xc0);
        assert_eq!(c.inner, inner);
    }

    #[test]
    fn round_trip_without_ce_is_the_identity_and_ce_reaches_an_ect_inner() {
        let inner = inner_v4();
        for mode in [Mode::Normal, Mode::Compatibility] {
            let p = Srv6Packet::encapsulate(&inner, sid(9), &[sid(1), sid(2), sid(3)], mode, 64)
                .unwrap();
            let q = Srv6Packet::parse(&p.encode().unwrap()).unwrap();
            assert_eq!(
                q.decapsulate().unwrap(),
                Decap::Forward(inner.clone()),
                "{mode:?}"
            );
        }
        // a congested P node marks the outer CE (F6): the inner ECT(0)
        // leaves CE with a checksum that verifies
        let mut p = Srv6Packet::encapsulate(&inner, sid(9), &[sid(1)], Mode::Normal, 64).unwrap();
        p.outer.traffic_class |= 3;
        let Decap::Forward(out) = p.decapsulate().unwrap() else {
            panic!("an ECT inner under CE is forwarded");
        };
        assert_eq!(out[1] & 3, ecn::CE);
        let words: Vec<u16> = out[..20]
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]))
            .collect();
        assert!(crate::ipv4::verifies(&words));
        // a Not-ECT inner under CE is dropped (F5)
        let mut n = inner.clone();
        n[1] &= !3;
        let words: Vec<u16> = n[..20]
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]))
            .collect();
        let hc = crate::ipv4::full_checksum(&words);
        n[10..12].copy_from_slice(&hc.to_be_bytes());
        let mut p = Srv6Packet::encapsulate(&n, sid(9), &[sid(1)], Mode::Normal, 64).unwrap();
        p.outer.traffic_class |= 3;
        assert_eq!(p.decapsulate().unwrap(), Decap::Drop);
    }

    #[test]
    fn malformed_tunnels_are_refused_with_the_field_named() {
        let inner = inner_v4();
        let b = Srv6Packet::encapsulate(&inner, sid(9), &[sid(1), sid(2)], Mode::Normal, 64)
            .unwrap()
            .encode()
            .unwrap();
        let err = |b: &[u8]| Srv6Packet::parse(b).unwrap_err().to_string();
        assert_eq!(
            err(&b[..b.len() - 1]),
            format!(
                "SRv6 packet is truncated: {} bytes where {} are needed",
                b.len() - 1,
                b.len()
            )
        );
        let mut long = b.clone();
        long.push(0);
        assert!(err(&long).contains("over-long"));
        let mut v = b.clone();
        v[0] = 0x45;
        assert_eq!(err(&v), "IPv6 Version is 0x4; legal: 6");
        let mut t = b.clone();
        t[42] = 2;
        assert_eq!(
            err(&t),
            "routing header Routing Type is 0x2; legal: 4 (SRH)"
        );
        let mut sl = b.clone();
        sl[43] = 2;
        assert_eq!(err(&sl), "SRH Segments Left is 0x2; legal: 0..=Last Entry");
        let mut le = b.clone();
        le[44] = 2;
        assert!(err(&le).starts_with("SRH Last Entry is 0x2"));
        assert!(err(&[0x60]).contains("truncated"));
        assert!(Srv6Packet::encapsulate(&[0x50; 40], sid(9), &[sid(1)], Mode::Normal, 64).is_err());
        assert!(Srv6Packet::encapsulate(&inner, sid(9), &[], Mode::Normal, 64).is_err());
    }
}
