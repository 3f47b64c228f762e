//! Packet and message codecs of the companion drafts, byte for byte as
//! `../shared/seeds/COMPANION.md` 1.2 and 2.1 lay them out: the SRv6
//! tunnel (outer IPv6 and its SRH, [`srv6`]), RoCEv2 with its BTH, ICRC,
//! CNP and the Fast CNP a WAN node builds from a data packet
//! ([`rocev2`]), the ARN message ([`arn`]), and draft 002's coordination
//! tag and notification ([`coord`]).
//!
//! Every parser takes bytes from outside: it refuses malformed, truncated
//! and over-long input with a [`WireError`] that names the field and what
//! was wrong, and never panics or reads out of bounds (every read goes
//! through [`Reader`]). [`crate::fuzz::codecs`] mutates valid encodings
//! to check that, a bounded run in CI and a long one on request
//! (`ldcp fuzz`).

pub mod arn;
pub mod coord;
pub mod rocev2;
pub mod srv6;

/// Why bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Fewer bytes than the structure needs.
    #[error("{what} is truncated: {have} bytes where {need} are needed")]
    Truncated {
        /// The structure.
        what: &'static str,
        /// Bytes given.
        have: usize,
        /// Bytes needed.
        need: usize,
    },
    /// More bytes than the structure's own length says.
    #[error("{what} is over-long: {have} bytes where its length says {expected}")]
    OverLong {
        /// The structure.
        what: &'static str,
        /// Bytes given.
        have: usize,
        /// Bytes its length field (or its layout) allows.
        expected: usize,
    },
    /// A field outside its legal values.
    #[error("{what} is {value:#x}; legal: {legal}")]
    Field {
        /// The field.
        what: &'static str,
        /// Its value.
        value: u64,
        /// What it may be.
        legal: &'static str,
    },
    /// A checksum or CRC that does not verify.
    #[error(
        "{what} does not verify: the packet carries {carried:#x}, its contents give {computed:#x}"
    )]
    Check {
        /// The checksum.
        what: &'static str,
        /// As carried.
        carried: u64,
        /// As computed.
        computed: u64,
    },
}

/// A field error.
pub fn field(what: &'static str, value: impl Into<u64>, legal: &'static str) -> WireError {
    WireError::Field {
        what,
        value: value.into(),
        legal,
    }
}

/// Bounds-checked big-endian reads: every parser reads through one.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`, naming `what` in its errors.
    pub fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader { bytes, at: 0, what }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let s = &self.bytes[self.at..end];
                self.at = end;
                Ok(s)
            }
            _ => Err(WireError::Truncated {
                what: self.what,
                have: self.bytes.len(),
                need: self.at.saturating_add(n),
            }),
        }
    }

    /// The rest.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.bytes[self.at..];
        self.at = self.bytes.len();
        s
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    /// A big-endian 16-bit word.
    pub fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// A big-endian 24-bit field.
    pub fn u24(&mut self) -> Result<u32, WireError> {
        let b = self.take(3)?;
        Ok(u32::from_be_bytes([0, b[0], b[1], b[2]]))
    }

    /// A big-endian 32-bit word.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// Refuses bytes left over: the structure is over-long.
    pub fn finish(&self) -> Result<(), WireError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(WireError::OverLong {
                what: self.what,
                have: self.bytes.len(),
                expected: self.at,
            })
        }
    }
}

/// A flow's key, the layout COMPANION.md 2.1 gives draft 002's
/// notifications: `Proto(8) AF(8) SrcPort(16) | DstPort(16) Rsvd(16) |
/// SrcAddr | DstAddr`, the addresses 4 bytes (AF 4) or 16 (AF 6).
///
/// **Choice:** 002's key has `Rsvd(8)` where this one has `AF(8)`: the
/// ARN flow identifier (001, G12: "the 002 flow-key layout, AF-tagged")
/// has no header of its own to carry the family, so the key carries it in
/// that reserved byte; the offsets of every other field are 002's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// IP protocol (17 UDP; 4 or 41 for an SRv6 outer key, G5).
    pub protocol: u8,
    /// Source port (0 for an outer key: matching ignores ports, G5).
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Source address.
    pub src: std::net::IpAddr,
    /// Destination address.
    pub dst: std::net::IpAddr,
}

impl FlowKey {
    /// Its length on the wire: 16 bytes (IPv4) or 40 (IPv6).
    pub fn wire_len(&self) -> usize {
        8 + 2 * addr_len(&self.src)
    }

    /// Appends its bytes; both addresses must be of one family.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let af = match (self.src, self.dst) {
            (std::net::IpAddr::V4(_), std::net::IpAddr::V4(_)) => 4u8,
            (std::net::IpAddr::V6(_), std::net::IpAddr::V6(_)) => 6,
            _ => {
                return Err(field(
                    "flow key address family",
                    0u8,
                    "both addresses IPv4 or both IPv6",
                ))
            }
        };
        out.extend_from_slice(&[self.protocol, af]);
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        push_addr(out, &self.src);
        push_addr(out, &self.dst);
        Ok(())
    }

    /// Reads one from `r`.
    pub fn parse(r: &mut Reader<'_>) -> Result<FlowKey, WireError> {
        let protocol = r.u8()?;
        let af = r.u8()?;
        let src_port = r.u16()?;
        let dst_port = r.u16()?;
        let rsvd = r.u16()?;
        if rsvd != 0 {
            return Err(field("flow key reserved word", rsvd, "0"));
        }
        let (src, dst) = match af {
            4 => (
                std::net::IpAddr::from(r.array::<4>()?),
                std::net::IpAddr::from(r.array::<4>()?),
            ),
            6 => (
                std::net::IpAddr::from(r.array::<16>()?),
                std::net::IpAddr::from(r.array::<16>()?),
            ),
            _ => return Err(field("flow key address family", af, "4 or 6")),
        };
        Ok(FlowKey {
            protocol,
            src_port,
            dst_port,
            src,
            dst,
        })
    }
}

fn addr_len(a: &std::net::IpAddr) -> usize {
    match a {
        std::net::IpAddr::V4(_) => 4,
        std::net::IpAddr::V6(_) => 16,
    }
}

/// Appends an address's bytes.
pub fn push_addr(out: &mut Vec<u8>, a: &std::net::IpAddr) {
    match a {
        std::net::IpAddr::V4(a) => out.extend_from_slice(&a.octets()),
        std::net::IpAddr::V6(a) => out.extend_from_slice(&a.octets()),
    }
}

/// Bytes as a hex string (test vectors, error messages).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hex string (whitespace ignored) as bytes; `None` if it is not hex.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_refuses_reads_past_the_end_and_names_the_structure() {
        let mut r = Reader::new(&[1, 2, 3], "thing");
        assert_eq!(r.u16(), Ok(0x0102));
        assert_eq!(
            r.u16(),
            Err(WireError::Truncated {
                what: "thing",
                have: 3,
                need: 4
            })
        );
        assert_eq!(r.u8(), Ok(3));
        assert_eq!(r.finish(), Ok(()));
        let mut r = Reader::new(&[1, 2, 3], "thing");
        assert!(r.take(usize::MAX).is_err());
        r.u8().unwrap();
        assert_eq!(
            r.finish().unwrap_err().to_string(),
            "thing is over-long: 3 bytes where its length says 1"
        );
    }

    #[test]
    fn flow_keys_round_trip_in_both_families() {
        let k4 = FlowKey {
            protocol: 17,
            src_port: 49152,
            dst_port: 4791,
            src: "10.0.17.1".parse().unwrap(),
            dst: "10.0.18.1".parse().unwrap(),
        };
        let mut b = Vec::new();
        k4.encode(&mut b).unwrap();
        assert_eq!(hex(&b), "1104c00012b700000a0011010a001201");
        assert_eq!(b.len(), k4.wire_len());
        assert_eq!(FlowKey::parse(&mut Reader::new(&b, "key")), Ok(k4));
        let k6 = FlowKey {
            protocol: 41,
            src_port: 0,
            dst_port: 0,
            src: "2001:db8::1".parse().unwrap(),
            dst: "2001:db8::2".parse().unwrap(),
        };
        let mut b = Vec::new();
        k6.encode(&mut b).unwrap();
        assert_eq!(b.len(), 40);
        assert_eq!(FlowKey::parse(&mut Reader::new(&b, "key")), Ok(k6));
        b[1] = 5;
        assert_eq!(
            FlowKey::parse(&mut Reader::new(&b, "key"))
                .unwrap_err()
                .to_string(),
            "flow key address family is 0x5; legal: 4 or 6"
        );
        let mixed = FlowKey { dst: k4.dst, ..k6 };
        assert!(mixed.encode(&mut Vec::new()).is_err());
    }
}
