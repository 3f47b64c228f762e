//! Draft 002's coordination tag and notification message, in this
//! project's encoding (COMPANION.md 2.1; 002 gives neither a layout nor a
//! width, H1):
//!
//! - **Tag** (002 §6.1), 32 bits in every data packet: `CC(1) | ARV(1) |
//!   Rsvd(6) | AR_ID(24)`. CC: the packet may cause incast congestion
//!   (the host set it on a type 1); ARV: the AR indicator is valid, and
//!   AR_ID names the upstream AR point (a 24-bit node ID a control-plane
//!   table resolves to an address, H11).
//! - **Notification** (002 §6.2), a UDP payload: `Ver(4)=0 | Type(4) |
//!   AF(8) | Length(16)`, the flow key ([`FlowKey`]: the key's own AF byte
//!   must repeat the header's), then `Originator ID(32)`. Type 1
//!   (congestion control required), 2 (released) or 3 (upstream AR
//!   required); any other type is refused (C3).
//!
//! The choices where 2.1 is silent:
//! - Length counts the whole message in bytes (24 for IPv4, 48 for
//!   IPv6); a message whose Length differs from its bytes is refused.
//! - The tag's Rsvd bits are kept as read (a parse re-encodes to the same
//!   bytes), as the ARN header's; AR_ID is kept when ARV is 0 (a switch
//!   that clears ARV need not clear the ID).
//! - Ver must be 0.

use super::{field, FlowKey, Reader, WireError};

/// The tag's length on the wire, bytes.
pub const TAG_BYTES: usize = 4;
/// The largest AR point ID (24 bits, H11).
pub const MAX_AR_ID: u32 = 0xff_ffff;
/// The notification format's version.
pub const NOTIFY_VERSION: u8 = 0;

/// The coordination tag (002 §6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tag {
    /// CC indicator: the flow may cause incast congestion; switches apply
    /// congestion control to it and never re-route it (C1, C8, H9).
    pub cc: bool,
    /// The AR indicator is valid (an AR point upstream can re-route).
    pub arv: bool,
    /// The six reserved bits, as read (written 0).
    pub reserved: u8,
    /// The AR point's node ID (24 bits).
    pub ar_id: u32,
}

impl Tag {
    /// A new flow's tag: CC 0, no AR point (C2).
    pub const NEW: Tag = Tag {
        cc: false,
        arv: false,
        reserved: 0,
        ar_id: 0,
    };

    /// Its 4 bytes; refuses an AR_ID above 24 bits or reserved bits above 6.
    pub fn encode(&self) -> Result<[u8; TAG_BYTES], WireError> {
        if self.ar_id > MAX_AR_ID {
            return Err(field("tag AR_ID", self.ar_id, "0..=0xffffff (24 bits)"));
        }
        if self.reserved > 0x3f {
            return Err(field(
                "tag reserved bits",
                self.reserved,
                "0..=0x3f (6 bits)",
            ));
        }
        let w = (self.cc as u32) << 31
            | (self.arv as u32) << 30
            | (self.reserved as u32) << 24
            | self.ar_id;
        Ok(w.to_be_bytes())
    }

    /// Parses exactly 4 bytes.
    pub fn parse(b: &[u8]) -> Result<Tag, WireError> {
        let mut r = Reader::new(b, "coordination tag");
        let w = r.u32()?;
        r.finish()?;
        Ok(Tag {
            cc: w >> 31 != 0,
            arv: w >> 30 & 1 != 0,
            reserved: (w >> 24 & 0x3f) as u8,
            ar_id: w & MAX_AR_ID,
        })
    }
}

/// A notification's type (002 §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum NotifyType {
    /// 1: congestion control required (incast switch -> each incast
    /// flow's source host).
    CcRequired = 1,
    /// 2: congestion control released (the same switch -> the same hosts).
    CcReleased = 2,
    /// 3: upstream AR required (congested switch -> the AR point the
    /// packet's tag names).
    ArRequired = 3,
}

impl NotifyType {
    /// The type field's value.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The type of a field value; `None` outside 1..=3.
    pub fn of(code: u8) -> Option<NotifyType> {
        match code {
            1 => Some(NotifyType::CcRequired),
            2 => Some(NotifyType::CcReleased),
            3 => Some(NotifyType::ArRequired),
            _ => None,
        }
    }
}

/// A notification message (002 §6.2): its sender and receiver are the
/// IP header's, not repeated here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The type.
    pub ntype: NotifyType,
    /// The flow it is about.
    pub flow: FlowKey,
    /// The node ID of the switch that sent it (32 bits on the wire, kept
    /// as read; the IDs a tag can name are 24 bits, H11).
    pub originator: u32,
}

impl Notification {
    /// Its length on the wire: 24 bytes (IPv4 key) or 48 (IPv6).
    pub fn wire_len(&self) -> usize {
        4 + self.flow.wire_len() + 4
    }

    /// Its bytes.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let mut key = Vec::with_capacity(40);
        self.flow.encode(&mut key)?;
        let af = key[1];
        let len = self.wire_len();
        let mut out = Vec::with_capacity(len);
        out.push(NOTIFY_VERSION << 4 | self.ntype.code());
        out.push(af);
        out.extend_from_slice(&(len as u16).to_be_bytes());
        out.extend_from_slice(&key);
        out.extend_from_slice(&self.originator.to_be_bytes());
        Ok(out)
    }

    /// Parses exactly one message.
    pub fn parse(b: &[u8]) -> Result<Notification, WireError> {
        let mut r = Reader::new(b, "notification");
        let vt = r.u8()?;
        if vt >> 4 != NOTIFY_VERSION {
            return Err(field("notification version", vt >> 4, "0"));
        }
        let ntype = NotifyType::of(vt & 0xf)
            .ok_or_else(|| field("notification type", vt & 0xf, "1, 2 or 3 (C3)"))?;
        let af = r.u8()?;
        let want = match af {
            4 => 24,
            6 => 48,
            _ => return Err(field("notification address family", af, "4 or 6")),
        };
        let len = r.u16()? as usize;
        if len != want {
            return Err(WireError::Field {
                what: "notification length",
                value: len as u64,
                legal: if af == 4 {
                    "24 with an IPv4 key"
                } else {
                    "48 with an IPv6 key"
                },
            });
        }
        if b.len() < len {
            return Err(WireError::Truncated {
                what: "notification",
                have: b.len(),
                need: len,
            });
        }
        let key_af = *b.get(5).unwrap_or(&0);
        if key_af != af {
            return Err(field(
                "notification flow key address family",
                key_af,
                "the header's AF",
            ));
        }
        let flow = FlowKey::parse(&mut r)?;
        let originator = r.u32()?;
        r.finish()?;
        Ok(Notification {
            ntype,
            flow,
            originator,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::hex;
    use super::*;

    fn key4() -> FlowKey {
        FlowKey {
            protocol: 17,
            src_port: 0xc001,
            dst_port: 4791,
            src: "10.0.1.1".parse().unwrap(),
            dst: "10.0.2.7".parse().unwrap(),
        }
    }

    #[test]
    fn tags_encode_bit_for_bit_and_round_trip() {
        let t = Tag {
            cc: true,
            arv: true,
            reserved: 0,
            ar_id: 0x00_2101,
        };
        assert_eq!(hex(&t.encode().unwrap()), "c0002101");
        assert_eq!(Tag::parse(&t.encode().unwrap()), Ok(t));
        assert_eq!(hex(&Tag::NEW.encode().unwrap()), "00000000");
        let ar_only = Tag {
            arv: true,
            ar_id: 0xab_cdef,
            ..Tag::NEW
        };
        assert_eq!(hex(&ar_only.encode().unwrap()), "40abcdef");
        let rsvd = Tag::parse(&[0x3f, 0, 0, 1]).unwrap();
        assert_eq!(
            (rsvd.reserved, rsvd.cc, rsvd.arv, rsvd.ar_id),
            (0x3f, false, false, 1)
        );
        assert_eq!(rsvd.encode().unwrap(), [0x3f, 0, 0, 1]);
        assert_eq!(
            Tag {
                ar_id: 1 << 24,
                ..Tag::NEW
            }
            .encode()
            .unwrap_err()
            .to_string(),
            "tag AR_ID is 0x1000000; legal: 0..=0xffffff (24 bits)"
        );
        assert_eq!(
            Tag::parse(&[0, 0, 0]).unwrap_err().to_string(),
            "coordination tag is truncated: 3 bytes where 4 are needed"
        );
        assert_eq!(
            Tag::parse(&[0, 0, 0, 0, 0]).unwrap_err().to_string(),
            "coordination tag is over-long: 5 bytes where its length says 4"
        );
    }

    #[test]
    fn notifications_encode_byte_for_byte_and_refuse_what_is_wrong() {
        let n = Notification {
            ntype: NotifyType::ArRequired,
            flow: key4(),
            originator: 0x00_2101,
        };
        let b = n.encode().unwrap();
        assert_eq!(
            hex(&b),
            "03040018\
             1104c00112b700000a0001010a000207\
             00002101"
        );
        assert_eq!(b.len(), n.wire_len());
        assert_eq!(Notification::parse(&b), Ok(n));
        let n6 = Notification {
            ntype: NotifyType::CcRequired,
            flow: FlowKey {
                src: "2001:db8::1".parse().unwrap(),
                dst: "2001:db8::2".parse().unwrap(),
                ..key4()
            },
            originator: 7,
        };
        let b6 = n6.encode().unwrap();
        assert_eq!((b6.len(), &hex(&b6)[..8]), (48, "01060030"));
        assert_eq!(Notification::parse(&b6), Ok(n6));
        let refused = |mut b: Vec<u8>, at: usize, v: u8| {
            b[at] = v;
            Notification::parse(&b).unwrap_err().to_string()
        };
        for t in [0u8, 4, 15] {
            assert_eq!(
                refused(b.clone(), 0, t),
                format!("notification type is {t:#x}; legal: 1, 2 or 3 (C3)")
            );
        }
        assert_eq!(
            refused(b.clone(), 0, 0x13),
            "notification version is 0x1; legal: 0"
        );
        assert_eq!(
            refused(b.clone(), 1, 6),
            "notification length is 0x18; legal: 48 with an IPv6 key"
        );
        assert_eq!(
            refused(b.clone(), 5, 6),
            "notification flow key address family is 0x6; legal: the header's AF"
        );
        assert_eq!(
            Notification::parse(&b[..20]).unwrap_err().to_string(),
            "notification is truncated: 20 bytes where 24 are needed"
        );
        let mut long = b.clone();
        long.push(0);
        assert_eq!(
            Notification::parse(&long).unwrap_err().to_string(),
            "notification is over-long: 25 bytes where its length says 24"
        );
    }
}
