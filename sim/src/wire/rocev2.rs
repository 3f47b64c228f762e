//! RoCEv2 packets (IBTA Annex A17): IPv4 or IPv6, UDP to port 4791, the
//! 12-byte Base Transport Header, the payload and the 4-byte invariant CRC;
//! the CNP (BTH opcode 0x81, BECN set, 16 reserved bytes); and the Fast
//! CNP of draft 001 §4.2.2, which a congested WAN node builds from a data
//! packet and returns to the ingress PE's END.CON SID (COMPANION.md 1.2,
//! G4, G6-G8).
//!
//! The ICRC is CRC-32 (the Ethernet polynomial, reflected, initial value
//! and final XOR all ones) over eight 0xFF bytes standing for the masked
//! LRH, then the IP header with its variant fields set to ones (IPv4: TOS,
//! TTL, header checksum; IPv6: traffic class, flow label, hop limit), the
//! UDP header with its checksum set to ones, the BTH with byte 4 (FECN,
//! BECN, reserved) set to ones, and the payload; it goes on the wire least
//! significant byte first. Two packets verify it in the tests: a CNP
//! captured on a ConnectX-4 Lx and scapy's UC SEND example.

use super::{field, srv6, Reader, WireError};
use std::net::IpAddr;

/// RoCEv2's UDP destination port.
pub const ROCEV2_UDP_PORT: u16 = 4791;
/// The BTH opcode of a CNP.
pub const CNP_OPCODE: u8 = 0x81;
/// Bytes of a BTH.
pub const BTH_BYTES: usize = 12;
/// Bytes of the ICRC.
pub const ICRC_BYTES: usize = 4;
/// The CNP's reserved bytes after its BTH.
pub const CNP_RESERVED_BYTES: usize = 16;
/// Bytes of an IPv4 header without options (the only kind taken here).
pub const IPV4_HEADER_BYTES: usize = 20;
/// Bytes of a UDP header.
pub const UDP_HEADER_BYTES: usize = 8;
/// The P_Key of COMPANION.md's example CNP (the default partition).
pub const DEFAULT_PKEY: u16 = 0xffff;
/// The traffic class of generated control packets, inner and outer (G4):
/// DSCP 48 (CS6, the class RoCE NICs send CNPs in by default), Not-ECT,
/// so that no node can mark one CE and no egress can drop it.
pub const CONTROL_TRAFFIC_CLASS: u8 = 48 << 2;
/// The hop limit (TTL) of generated control packets.
pub const CONTROL_HOP_LIMIT: u8 = 64;
/// How deep a P node parses for a Fast CNP (G8): an SRH of at most this
/// many segments (the inner packet at byte 40 + 8 + 16 * 8 = 176 or
/// before); deeper ones get a CE mark only.
pub const FAST_CNP_MAX_SEGMENTS: usize = 8;

/// An IPv4 header without options (RFC 791).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    /// TOS: DSCP (6) and ECN (2).
    pub tos: u8,
    /// Total Length.
    pub total_len: u16,
    /// Identification.
    pub id: u16,
    /// Flags (3) and Fragment Offset (13).
    pub flags_frag: u16,
    /// TTL.
    pub ttl: u8,
    /// Protocol.
    pub protocol: u8,
    /// Header checksum (as carried; [`Rocev2Packet::encode`] computes it).
    pub checksum: u16,
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
}

/// The "don't fragment" flag.
pub const IPV4_DF: u16 = 0x4000;

impl Ipv4Header {
    fn words(&self, checksum: u16) -> [u16; 10] {
        [
            0x4500 | self.tos as u16,
            self.total_len,
            self.id,
            self.flags_frag,
            ((self.ttl as u16) << 8) | self.protocol as u16,
            checksum,
            u16::from_be_bytes([self.src[0], self.src[1]]),
            u16::from_be_bytes([self.src[2], self.src[3]]),
            u16::from_be_bytes([self.dst[0], self.dst[1]]),
            u16::from_be_bytes([self.dst[2], self.dst[3]]),
        ]
    }

    /// The checksum its other fields give (RFC 1071).
    pub fn computed_checksum(&self) -> u16 {
        crate::ipv4::full_checksum(&self.words(0))
    }

    fn encode(&self, out: &mut Vec<u8>) {
        for w in self.words(self.checksum) {
            out.extend_from_slice(&w.to_be_bytes());
        }
    }

    fn parse(r: &mut Reader<'_>) -> Result<Ipv4Header, WireError> {
        let b0 = r.u8()?;
        if b0 >> 4 != 4 {
            return Err(field("IP Version", b0 >> 4, "4 or 6"));
        }
        if b0 & 0xf != 5 {
            return Err(field(
                "IPv4 IHL",
                b0 & 0xf,
                "5 (RoCEv2 packets carry no IPv4 options)",
            ));
        }
        let h = Ipv4Header {
            tos: r.u8()?,
            total_len: r.u16()?,
            id: r.u16()?,
            flags_frag: r.u16()?,
            ttl: r.u8()?,
            protocol: r.u8()?,
            checksum: r.u16()?,
            src: r.array()?,
            dst: r.array()?,
        };
        if h.flags_frag & 0x3fff != 0 {
            return Err(field(
                "IPv4 More Fragments flag and Fragment Offset",
                h.flags_frag & 0x3fff,
                "0 (a RoCEv2 packet is never a fragment)",
            ));
        }
        if h.checksum != h.computed_checksum() {
            return Err(WireError::Check {
                what: "IPv4 header checksum",
                carried: h.checksum.into(),
                computed: h.computed_checksum().into(),
            });
        }
        Ok(h)
    }
}

/// A RoCEv2 packet's IP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpHeader {
    /// IPv4.
    V4(Ipv4Header),
    /// IPv6 (no extension headers: Next Header 17).
    V6(srv6::Ipv6Header),
}

impl IpHeader {
    /// Its source address.
    pub fn src(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.src.into(),
            IpHeader::V6(h) => h.src.into(),
        }
    }

    /// Its destination address.
    pub fn dst(&self) -> IpAddr {
        match self {
            IpHeader::V4(h) => h.dst.into(),
            IpHeader::V6(h) => h.dst.into(),
        }
    }

    /// Its ECN field.
    pub fn ecn(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.tos & 3,
            IpHeader::V6(h) => h.ecn(),
        }
    }

    /// A header from `src` to `dst` (one family) in the control class.
    pub fn control(src: IpAddr, dst: IpAddr) -> Result<IpHeader, WireError> {
        match (src, dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => Ok(IpHeader::V4(Ipv4Header {
                tos: CONTROL_TRAFFIC_CLASS,
                total_len: 0,
                id: 0,
                flags_frag: IPV4_DF,
                ttl: CONTROL_HOP_LIMIT,
                protocol: srv6::NH_UDP,
                checksum: 0,
                src: s.octets(),
                dst: d.octets(),
            })),
            (IpAddr::V6(s), IpAddr::V6(d)) => Ok(IpHeader::V6(srv6::Ipv6Header {
                traffic_class: CONTROL_TRAFFIC_CLASS,
                flow_label: 0,
                payload_len: 0,
                next_header: srv6::NH_UDP,
                hop_limit: CONTROL_HOP_LIMIT,
                src: s.octets(),
                dst: d.octets(),
            })),
            _ => Err(field(
                "address family",
                0u8,
                "source and destination of one family",
            )),
        }
    }
}

/// The Base Transport Header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bth {
    /// OpCode.
    pub opcode: u8,
    /// Solicited Event.
    pub solicited: bool,
    /// MigReq.
    pub migreq: bool,
    /// Pad Count (2 bits).
    pub pad_count: u8,
    /// Transport header version (4 bits).
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// FECN.
    pub fecn: bool,
    /// BECN.
    pub becn: bool,
    /// The 6 reserved bits after BECN (kept, so that a parse re-encodes
    /// to the same bytes; receivers ignore them).
    pub resv6: u8,
    /// Destination QP (24 bits).
    pub dest_qp: u32,
    /// AckReq.
    pub ack_req: bool,
    /// The 7 reserved bits after AckReq.
    pub resv7: u8,
    /// PSN (24 bits).
    pub psn: u32,
}

impl Bth {
    /// Its 12 bytes.
    pub fn encode(&self) -> Result<[u8; BTH_BYTES], WireError> {
        let check = |what, v: u32, bits: u32, legal| {
            if v >> bits != 0 {
                Err(field(what, v, legal))
            } else {
                Ok(())
            }
        };
        check("BTH Pad Count", self.pad_count.into(), 2, "0..=3")?;
        check("BTH TVer", self.tver.into(), 4, "0..=15")?;
        check(
            "BTH reserved bits after BECN",
            self.resv6.into(),
            6,
            "0..=63",
        )?;
        check("BTH DestQP", self.dest_qp, 24, "0..=0xffffff")?;
        check(
            "BTH reserved bits after AckReq",
            self.resv7.into(),
            7,
            "0..=127",
        )?;
        check("BTH PSN", self.psn, 24, "0..=0xffffff")?;
        let mut b = [0u8; BTH_BYTES];
        b[0] = self.opcode;
        b[1] = (self.solicited as u8) << 7
            | (self.migreq as u8) << 6
            | self.pad_count << 4
            | self.tver;
        b[2..4].copy_from_slice(&self.pkey.to_be_bytes());
        b[4] = (self.fecn as u8) << 7 | (self.becn as u8) << 6 | self.resv6;
        b[5..8].copy_from_slice(&self.dest_qp.to_be_bytes()[1..]);
        b[8] = (self.ack_req as u8) << 7 | self.resv7;
        b[9..12].copy_from_slice(&self.psn.to_be_bytes()[1..]);
        Ok(b)
    }

    /// Reads one from `r`.
    pub fn parse(r: &mut Reader<'_>) -> Result<Bth, WireError> {
        let opcode = r.u8()?;
        let b1 = r.u8()?;
        let pkey = r.u16()?;
        let b4 = r.u8()?;
        let dest_qp = r.u24()?;
        let b8 = r.u8()?;
        let psn = r.u24()?;
        Ok(Bth {
            opcode,
            solicited: b1 & 0x80 != 0,
            migreq: b1 & 0x40 != 0,
            pad_count: (b1 >> 4) & 3,
            tver: b1 & 0xf,
            pkey,
            fecn: b4 & 0x80 != 0,
            becn: b4 & 0x40 != 0,
            resv6: b4 & 0x3f,
            dest_qp,
            ack_req: b8 & 0x80 != 0,
            resv7: b8 & 0x7f,
            psn,
        })
    }

    /// A CNP's BTH for `dest_qp` in partition `pkey`: BECN 1, PSN 0,
    /// everything else 0.
    pub fn cnp(pkey: u16, dest_qp: u32) -> Bth {
        Bth {
            opcode: CNP_OPCODE,
            pkey,
            becn: true,
            dest_qp,
            ..Bth::default()
        }
    }
}

/// CRC-32 (IEEE 802.3: polynomial 0x04C11DB7 reflected, initial value and
/// final XOR all ones), as zlib computes it.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_update(!0, bytes) ^ !0
}

fn crc32_update(mut c: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    c
}

/// The ICRC of an IP packet (from its IP header to the end of its payload,
/// the ICRC itself excluded), as its 4 bytes on the wire. `ip` must hold
/// the IP, UDP and BTH headers.
pub fn icrc(ip: &[u8]) -> Result<[u8; ICRC_BYTES], WireError> {
    let hdr = match ip.first().map(|b| b >> 4) {
        Some(4) => IPV4_HEADER_BYTES,
        Some(6) => srv6::IPV6_HEADER_BYTES,
        Some(v) => return Err(field("IP Version", v, "4 or 6")),
        None => {
            return Err(WireError::Truncated {
                what: "RoCEv2 packet",
                have: 0,
                need: 1,
            })
        }
    };
    let need = hdr + UDP_HEADER_BYTES + BTH_BYTES;
    if ip.len() < need {
        return Err(WireError::Truncated {
            what: "RoCEv2 packet",
            have: ip.len(),
            need,
        });
    }
    let mut m = ip[..need].to_vec();
    if hdr == IPV4_HEADER_BYTES {
        m[1] = 0xff; // TOS
        m[8] = 0xff; // TTL
        m[10] = 0xff; // header checksum
        m[11] = 0xff;
    } else {
        m[0] |= 0x0f; // traffic class and flow label
        m[1] = 0xff;
        m[2] = 0xff;
        m[3] = 0xff;
        m[7] = 0xff; // hop limit
    }
    m[hdr + 6] = 0xff; // UDP checksum
    m[hdr + 7] = 0xff;
    m[hdr + UDP_HEADER_BYTES + 4] = 0xff; // FECN, BECN, reserved
    let c = crc32_update(crc32_update(!0, &[0xff; 8]), &m);
    let c = crc32_update(c, &ip[need..]) ^ !0;
    Ok(c.to_le_bytes())
}

/// A RoCEv2 packet from its IP header to its ICRC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rocev2Packet {
    /// The IP header ([`Rocev2Packet::encode`] writes its lengths and the
    /// IPv4 checksum from the contents).
    pub ip: IpHeader,
    /// The UDP source port (flow entropy).
    pub udp_src: u16,
    /// The UDP checksum as carried (RoCEv2 senders write 0; it is masked
    /// out of the ICRC, so any value is accepted).
    pub udp_checksum: u16,
    /// The BTH.
    pub bth: Bth,
    /// The bytes between the BTH and the ICRC (extended headers, payload,
    /// pad).
    pub payload: Vec<u8>,
}

impl Rocev2Packet {
    /// Its bytes, ICRC included.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let udp_len = UDP_HEADER_BYTES + BTH_BYTES + self.payload.len() + ICRC_BYTES;
        let mut out = Vec::with_capacity(srv6::IPV6_HEADER_BYTES + udp_len);
        match self.ip {
            IpHeader::V4(mut h) => {
                let total = IPV4_HEADER_BYTES + udp_len;
                if total > u16::MAX as usize {
                    return Err(field("IPv4 Total Length", total as u64, "0..=65535"));
                }
                h.total_len = total as u16;
                h.protocol = srv6::NH_UDP;
                h.checksum = h.computed_checksum();
                h.encode(&mut out);
            }
            IpHeader::V6(mut h) => {
                if udp_len > u16::MAX as usize {
                    return Err(field("IPv6 Payload Length", udp_len as u64, "0..=65535"));
                }
                h.payload_len = udp_len as u16;
                h.next_header = srv6::NH_UDP;
                h.encode(&mut out)?;
            }
        }
        out.extend_from_slice(&self.udp_src.to_be_bytes());
        out.extend_from_slice(&ROCEV2_UDP_PORT.to_be_bytes());
        out.extend_from_slice(&(udp_len as u16).to_be_bytes());
        out.extend_from_slice(&self.udp_checksum.to_be_bytes());
        out.extend_from_slice(&self.bth.encode()?);
        out.extend_from_slice(&self.payload);
        let c = icrc(&out)?;
        out.extend_from_slice(&c);
        Ok(out)
    }

    /// Parses a whole packet: the IP length must match the bytes given,
    /// the protocol be UDP to port 4791 with a length that matches, the
    /// IPv4 checksum and the ICRC verify.
    pub fn parse(bytes: &[u8]) -> Result<Rocev2Packet, WireError> {
        let mut r = Reader::new(bytes, "RoCEv2 packet");
        let (ip, len) = match bytes.first().map(|b| b >> 4) {
            Some(6) => {
                let h = srv6::Ipv6Header::parse(&mut r)?;
                if h.next_header != srv6::NH_UDP {
                    return Err(field(
                        "IPv6 Next Header",
                        h.next_header,
                        "17 (UDP, no extension headers)",
                    ));
                }
                (
                    IpHeader::V6(h),
                    srv6::IPV6_HEADER_BYTES + h.payload_len as usize,
                )
            }
            _ => {
                let h = Ipv4Header::parse(&mut r)?;
                if h.protocol != srv6::NH_UDP {
                    return Err(field("IPv4 Protocol", h.protocol, "17 (UDP)"));
                }
                (IpHeader::V4(h), h.total_len as usize)
            }
        };
        let hdr = r.position();
        let min = hdr + UDP_HEADER_BYTES + BTH_BYTES + ICRC_BYTES;
        if len < min {
            return Err(field(
                "IP length",
                len as u64,
                "at least the IP, UDP and BTH headers and the ICRC",
            ));
        }
        if bytes.len() < len {
            return Err(WireError::Truncated {
                what: "RoCEv2 packet",
                have: bytes.len(),
                need: len,
            });
        }
        if bytes.len() > len {
            return Err(WireError::OverLong {
                what: "RoCEv2 packet",
                have: bytes.len(),
                expected: len,
            });
        }
        let udp_src = r.u16()?;
        let dport = r.u16()?;
        if dport != ROCEV2_UDP_PORT {
            return Err(field("UDP destination port", dport, "4791 (RoCEv2)"));
        }
        let udp_len = r.u16()?;
        if udp_len as usize != len - hdr {
            return Err(field("UDP Length", udp_len, "the IP payload's length"));
        }
        let udp_checksum = r.u16()?;
        let bth = Bth::parse(&mut r)?;
        let payload = r.take(r.remaining() - ICRC_BYTES)?.to_vec();
        let carried: [u8; 4] = r.array()?;
        let computed = icrc(&bytes[..len - ICRC_BYTES])?;
        if carried != computed {
            return Err(WireError::Check {
                what: "ICRC",
                carried: u32::from_le_bytes(carried).into(),
                computed: u32::from_le_bytes(computed).into(),
            });
        }
        Ok(Rocev2Packet {
            ip,
            udp_src,
            udp_checksum,
            bth,
            payload,
        })
    }

    /// A CNP from `src` (the notifying end) to `dst` (the sender to slow
    /// down) for the sender's QP `dest_qp` (COMPANION.md 1.2), in the
    /// control class (G4), UDP checksum 0.
    pub fn cnp(
        src: IpAddr,
        dst: IpAddr,
        udp_src: u16,
        pkey: u16,
        dest_qp: u32,
    ) -> Result<Rocev2Packet, WireError> {
        Ok(Rocev2Packet {
            ip: IpHeader::control(src, dst)?,
            udp_src,
            udp_checksum: 0,
            bth: Bth::cnp(pkey, dest_qp),
            payload: vec![0; CNP_RESERVED_BYTES],
        })
    }

    /// True for a CNP: opcode 0x81 and its 16 reserved bytes.
    pub fn is_cnp(&self) -> bool {
        self.bth.opcode == CNP_OPCODE && self.payload.len() == CNP_RESERVED_BYTES
    }
}

/// What a Fast CNP needs from the data packet that triggers it: the
/// hardware trigger's descriptor (001 §4.2.2, F9, G6-G7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastCnpDescriptor {
    /// The CNP's source: the data packet's inner destination (the
    /// receiver), as if the receiver had sent it.
    pub src: IpAddr,
    /// The CNP's destination: the data packet's inner source (the sender).
    pub dst: IpAddr,
    /// The data packet's DestQP (G7: the receiver's QPN; the sender NIC
    /// resolves (CNP source, QPN) to its own QP, a deviation from IBTA,
    /// where a CNP names the sender's QP).
    pub dest_qp: u32,
    /// The data packet's P_Key.
    pub pkey: u16,
    /// The data packet's UDP source port (the CNP reuses the flow's
    /// entropy).
    pub udp_src: u16,
    /// The END.CON SID to return to: the data packet's outer source (F8).
    pub end_con: srv6::Addr6,
}

/// The descriptor of a Fast CNP for an SRv6 data packet, or why it gets
/// none (G8: an SRH deeper than [`FAST_CNP_MAX_SEGMENTS`], an inner packet
/// that is not RoCEv2, or a CNP itself).
pub fn fast_cnp_descriptor(data: &srv6::Srv6Packet) -> Result<FastCnpDescriptor, WireError> {
    if let Some(s) = &data.srh {
        if s.segments.len() > FAST_CNP_MAX_SEGMENTS {
            return Err(field(
                "SRH segment count for a Fast CNP",
                s.segments.len() as u64,
                "1..=8 (G8: a P node parses no deeper)",
            ));
        }
    }
    let nh = data.inner_next_header();
    if nh != srv6::NH_IPV4 && nh != srv6::NH_IPV6 {
        return Err(field("inner Next Header", nh, "4 (IPv4) or 41 (IPv6)"));
    }
    let p = Rocev2Packet::parse(&data.inner)?;
    if matches!(p.ip, IpHeader::V4(_)) != (nh == srv6::NH_IPV4) {
        return Err(field(
            "inner Next Header",
            nh,
            "4 for an IPv4 inner packet, 41 for an IPv6 one",
        ));
    }
    if p.bth.opcode == CNP_OPCODE {
        return Err(field(
            "inner BTH OpCode",
            CNP_OPCODE,
            "a data opcode (never a CNP for a CNP)",
        ));
    }
    Ok(FastCnpDescriptor {
        src: p.ip.dst(),
        dst: p.ip.src(),
        dest_qp: p.bth.dest_qp,
        pkey: p.bth.pkey,
        udp_src: p.udp_src,
        end_con: data.outer.src,
    })
}

/// The Fast CNP a WAN node sends for a descriptor (F9, G4, G6): the CNP,
/// encapsulated in an outer IPv6 header from `node` to the END.CON SID
/// (no SRH), both headers Not-ECT in the control class.
pub fn build_fast_cnp(
    d: &FastCnpDescriptor,
    node: srv6::Addr6,
) -> Result<srv6::Srv6Packet, WireError> {
    let cnp = Rocev2Packet::cnp(d.src, d.dst, d.udp_src, d.pkey, d.dest_qp)?;
    Ok(srv6::Srv6Packet {
        outer: srv6::Ipv6Header {
            traffic_class: CONTROL_TRAFFIC_CLASS,
            flow_label: 0,
            payload_len: 0,
            next_header: if d.src.is_ipv4() {
                srv6::NH_IPV4
            } else {
                srv6::NH_IPV6
            },
            hop_limit: CONTROL_HOP_LIMIT,
            src: node,
            dst: d.end_con,
        },
        srh: None,
        inner: cnp.encode()?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tunnel_ecn::Mode;
    use crate::wire::{hex, unhex};

    /// A CNP captured on a ConnectX-4 Lx (scapy's RoCE tests), from its
    /// IPv4 header on: 10.0.17.1 -> 10.0.18.1, DestQP 0x118, ICRC
    /// `82 fd 00 2a`.
    pub(crate) fn cx4_cnp() -> Vec<u8> {
        unhex(
            "45c2 003c 718c 4000 4011 9161 0a00 1101 0a00 1201
             0000 12b7 0028 0000 8100 ffff 4000 0118 0000 0000
             0000 0000 0000 0000 0000 0000 0000 0000 82fd 002a",
        )
        .unwrap()
    }

    /// scapy's UC SEND ONLY example: 192.168.0.7 to itself, DestQP 211,
    /// PSN 13571856, 20 payload bytes (2 of them pad), ICRC `78 f3 53 f3`.
    fn scapy_uc_send() -> Vec<u8> {
        unhex(
            "4501 0040 0478 4000 4011 b4d5 c0a8 0007 c0a8 0007
             c000 12b7 002c aca2 2460 ffff 0000 00d3 00cf 1710
             4630 818b e289 35d9 0e9a 9550 5401 be88 5e50 0000 78f3 53f3",
        )
        .unwrap()
    }

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn captured_cnp_verifies_and_re_encodes_to_its_own_bytes() {
        let b = cx4_cnp();
        let p = Rocev2Packet::parse(&b).unwrap();
        assert!(p.is_cnp());
        assert_eq!(p.bth, Bth::cnp(0xffff, 0x118));
        assert_eq!(p.ip.src(), "10.0.17.1".parse::<IpAddr>().unwrap());
        assert_eq!(p.encode().unwrap(), b);
        // COMPANION.md's example BTH bytes
        assert_eq!(
            hex(&Bth::cnp(0xffff, 0xd2).encode().unwrap()),
            "8100ffff400000d200000000"
        );
    }

    #[test]
    fn scapy_uc_send_verifies_and_re_encodes_to_its_own_bytes() {
        let b = scapy_uc_send();
        let p = Rocev2Packet::parse(&b).unwrap();
        assert_eq!(
            (p.bth.opcode, p.bth.migreq, p.bth.pad_count),
            (0x24, true, 2)
        );
        assert_eq!((p.bth.dest_qp, p.bth.psn), (211, 13_571_856));
        assert_eq!(p.udp_checksum, 0xaca2);
        assert_eq!(p.encode().unwrap(), b);
    }

    #[test]
    fn the_icrc_ignores_exactly_the_variant_fields() {
        let b = cx4_cnp();
        let base = icrc(&b[..56]).unwrap();
        // variant: TOS, TTL, IPv4 checksum, UDP checksum, BTH byte 4
        for i in [1, 8, 10, 11, 26, 27, 32] {
            let mut m = b.clone();
            m[i] ^= 0x5a;
            assert_eq!(icrc(&m[..56]).unwrap(), base, "byte {i}");
        }
        // invariant: everything else
        for i in (0..56).filter(|i| ![1, 8, 10, 11, 26, 27, 32].contains(i)) {
            let mut m = b.clone();
            m[i] ^= 0x01;
            assert_ne!(icrc(&m[..56]).unwrap(), base, "byte {i}");
        }
    }

    #[test]
    fn ipv6_cnp_round_trips_and_masks_its_variant_fields() {
        let p = Rocev2Packet::cnp(
            "2001:db8::7".parse().unwrap(),
            "2001:db8::8".parse().unwrap(),
            0xc000,
            0x8001,
            0x00ab_cdef,
        )
        .unwrap();
        let b = p.encode().unwrap();
        assert_eq!(b.len(), 40 + 8 + 32);
        let mut q = p.clone();
        if let IpHeader::V6(h) = &mut q.ip {
            h.payload_len = 40;
        }
        assert_eq!(Rocev2Packet::parse(&b).unwrap(), q);
        let mut m = b.clone();
        m[1] ^= 0xff; // traffic class and flow label
        m[3] ^= 0x11;
        m[7] ^= 0x3f; // hop limit
        assert!(Rocev2Packet::parse(&m).is_ok());
    }

    #[test]
    fn damaged_rocev2_packets_are_refused_by_name() {
        let b = cx4_cnp();
        let err = |b: &[u8]| Rocev2Packet::parse(b).unwrap_err().to_string();
        let mut m = b.clone();
        m[40] ^= 1;
        assert!(err(&m).starts_with(
            "ICRC does not verify: the packet carries 0x2a00fd82, its contents give "
        ));
        let mut m = b.clone();
        m[12] ^= 1;
        assert!(err(&m).starts_with("IPv4 header checksum does not verify"));
        let mut m = b.clone();
        m[22..24].copy_from_slice(&4792u16.to_be_bytes());
        assert_eq!(
            err(&m),
            "UDP destination port is 0x12b8; legal: 4791 (RoCEv2)"
        );
        assert!(err(&b[..59]).contains("truncated"));
        let mut m = b.clone();
        m.push(0);
        assert!(err(&m).contains("over-long"));
        assert_eq!(
            err(&[0x46]),
            "IPv4 IHL is 0x6; legal: 5 (RoCEv2 packets carry no IPv4 options)"
        );
        assert!(err(&[]).contains("truncated"));
    }

    fn addr6(last: u8) -> srv6::Addr6 {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        a[15] = last;
        a
    }

    #[test]
    fn fast_cnp_swaps_the_inner_addresses_and_returns_to_end_con() {
        let data = scapy_uc_send_between("10.1.0.2", "10.2.0.9");
        let tunnel = srv6::Srv6Packet::encapsulate(
            &data,
            addr6(0xc0),
            &[addr6(2), addr6(1)],
            Mode::Normal,
            64,
        )
        .unwrap();
        let d = fast_cnp_descriptor(&tunnel).unwrap();
        assert_eq!(d.src, "10.2.0.9".parse::<IpAddr>().unwrap());
        assert_eq!(d.dst, "10.1.0.2".parse::<IpAddr>().unwrap());
        assert_eq!(
            (d.dest_qp, d.pkey, d.udp_src, d.end_con),
            (211, 0xffff, 0xc000, addr6(0xc0))
        );
        let f = build_fast_cnp(&d, addr6(0x55)).unwrap();
        let bytes = f.encode().unwrap();
        let back = srv6::Srv6Packet::parse(&bytes).unwrap();
        assert_eq!((back.outer.src, back.outer.dst), (addr6(0x55), addr6(0xc0)));
        assert_eq!(back.outer.ecn(), 0, "G4: Not-ECT outer");
        assert_eq!(back.inner_next_header(), srv6::NH_IPV4);
        let cnp = Rocev2Packet::parse(&back.inner).unwrap();
        assert!(cnp.is_cnp());
        assert_eq!(cnp.ip.ecn(), 0, "G4: Not-ECT inner");
        assert_eq!((cnp.ip.src(), cnp.ip.dst()), (d.src, d.dst));
        assert_eq!(cnp.bth, Bth::cnp(0xffff, 211));
        // no Fast CNP for a CNP, for a deep SRH or a non-RoCEv2 inner (G8)
        let again =
            srv6::Srv6Packet::encapsulate(&back.inner, addr6(1), &[addr6(2)], Mode::Normal, 64)
                .unwrap();
        assert!(fast_cnp_descriptor(&again).is_err());
        let deep: Vec<_> = (0..9).map(addr6).collect();
        let t = srv6::Srv6Packet::encapsulate(&data, addr6(0xc0), &deep, Mode::Normal, 64).unwrap();
        assert!(fast_cnp_descriptor(&t)
            .unwrap_err()
            .to_string()
            .contains("G8"));
        // a Next Header that names the other family
        let mut wrong =
            srv6::Srv6Packet::encapsulate(&data, addr6(0xc0), &[addr6(1)], Mode::Normal, 64)
                .unwrap();
        wrong.srh.as_mut().unwrap().next_header = srv6::NH_IPV6;
        assert!(fast_cnp_descriptor(&wrong)
            .unwrap_err()
            .to_string()
            .contains("4 for an IPv4"));
        let mut udp = data.clone();
        udp[22..24].copy_from_slice(&53u16.to_be_bytes());
        let t = srv6::Srv6Packet::encapsulate(&udp, addr6(0xc0), &[addr6(1)], Mode::Normal, 64)
            .unwrap();
        assert!(fast_cnp_descriptor(&t).is_err());
    }

    /// scapy's UC packet re-addressed (checksum and ICRC recomputed).
    pub(crate) fn scapy_uc_send_between(src: &str, dst: &str) -> Vec<u8> {
        let mut p = Rocev2Packet::parse(&scapy_uc_send()).unwrap();
        if let IpHeader::V4(h) = &mut p.ip {
            h.src = src.parse::<std::net::Ipv4Addr>().unwrap().octets();
            h.dst = dst.parse::<std::net::Ipv4Addr>().unwrap().octets();
        }
        p.encode().unwrap()
    }
}
