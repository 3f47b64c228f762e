//! The ARN message of draft 001 §4.1.1 (its Figure 2, from
//! draft-wh-rtgwg-adaptive-routing-arn): a 32-bit header `Type(8)
//! Version(4) Rsvd(4) Metric(8) Para-Type(8)` and one parameter per set
//! Para-Type bit (COMPANION.md 1.2, F12-F17).
//!
//! The choices where the drafts are silent (COMPANION.md section 3):
//! - G13: Para-Type bit 0 is the MSB (0x80 flow identifier, 0x40 path
//!   identifier, 0x20 Priority, 0x10 Time); parameters follow in ascending
//!   bit order; a set bit 4-7 is refused (no length would let a parser
//!   skip it); the message is exactly 4 bytes plus its parameters.
//! - G12: Type and Version are configurable ([`DEFAULT_TYPE`],
//!   [`DEFAULT_VERSION`] are this project's); Metric is the queue
//!   occupancy quantised to 0-255 ([`metric`]); the flow identifier is
//!   [`FlowKey`] (draft 002's key layout, AF-tagged).
//! - G14: Priority is a traffic class 0-7 in the low bits; above 7 is
//!   refused.
//! - G15: Time is in microseconds; 0 means resume now.
//! - Rsvd is kept as read, so a parse re-encodes to the same bytes.

use super::{field, FlowKey, Reader, WireError};

/// Para-Type bit of the flow identifier.
pub const PARA_FLOW: u8 = 0x80;
/// Para-Type bit of the 32-bit path identifier.
pub const PARA_PATH: u8 = 0x40;
/// Para-Type bit of the 32-bit Priority.
pub const PARA_PRIORITY: u8 = 0x20;
/// Para-Type bit of the 32-bit Time.
pub const PARA_TIME: u8 = 0x10;
/// The undefined Para-Type bits 4-7.
pub const PARA_UNDEFINED: u8 = 0x0f;
/// This project's ARN Type (G12: the value is the ARN draft's to assign).
pub const DEFAULT_TYPE: u8 = 1;
/// This project's ARN Version (G12).
pub const DEFAULT_VERSION: u8 = 1;
/// The highest Priority (8 traffic classes, G14).
pub const MAX_PRIORITY: u32 = 7;

/// An ARN message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arn {
    /// Type.
    pub msg_type: u8,
    /// Version (4 bits).
    pub version: u8,
    /// The reserved nibble (4 bits; written 0).
    pub reserved: u8,
    /// Metric.
    pub metric: u8,
    /// The affected flow (Para-Type 0x80).
    pub flow: Option<FlowKey>,
    /// The affected path (Para-Type 0x40).
    pub path: Option<u32>,
    /// The affected priority, 0-7 (Para-Type 0x20).
    pub priority: Option<u32>,
    /// How long to halt, in microseconds (Para-Type 0x10).
    pub time_us: Option<u32>,
}

/// The configured mode of a congested node (001 §4.1.2): which parameters
/// its ARNs carry (F15-F17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArnMode {
    /// The outer header's key (G5) and Time: Para-Type 0x90.
    Service,
    /// The inner five-tuple and Time: Para-Type 0x90.
    Flow,
    /// Priority and Time: Para-Type 0x30.
    Priority,
}

impl Arn {
    fn base(metric: u8, time_us: u32) -> Arn {
        Arn {
            msg_type: DEFAULT_TYPE,
            version: DEFAULT_VERSION,
            reserved: 0,
            metric,
            flow: None,
            path: None,
            priority: None,
            time_us: Some(time_us),
        }
    }

    /// A service- or flow-mode ARN for `key` (the caller takes it from the
    /// outer or the inner header), halting it for `time_us`.
    pub fn for_flow(key: FlowKey, metric: u8, time_us: u32) -> Arn {
        Arn {
            flow: Some(key),
            ..Arn::base(metric, time_us)
        }
    }

    /// A priority-mode ARN.
    pub fn for_priority(priority: u32, metric: u8, time_us: u32) -> Result<Arn, WireError> {
        if priority > MAX_PRIORITY {
            return Err(field("ARN Priority", priority, "0..=7 (G14)"));
        }
        Ok(Arn {
            priority: Some(priority),
            ..Arn::base(metric, time_us)
        })
    }

    /// Its Para-Type: the bits of the parameters present.
    pub fn para_type(&self) -> u8 {
        (self.flow.is_some() as u8 * PARA_FLOW)
            | (self.path.is_some() as u8 * PARA_PATH)
            | (self.priority.is_some() as u8 * PARA_PRIORITY)
            | (self.time_us.is_some() as u8 * PARA_TIME)
    }

    /// Its bytes.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        if self.version > 15 {
            return Err(field("ARN Version", self.version, "0..=15"));
        }
        if self.reserved > 15 {
            return Err(field("ARN Rsvd", self.reserved, "0..=15"));
        }
        let mut out = vec![
            self.msg_type,
            self.version << 4 | self.reserved,
            self.metric,
            self.para_type(),
        ];
        if let Some(k) = &self.flow {
            k.encode(&mut out)?;
        }
        if let Some(p) = self.path {
            out.extend_from_slice(&p.to_be_bytes());
        }
        if let Some(p) = self.priority {
            if p > MAX_PRIORITY {
                return Err(field("ARN Priority", p, "0..=7 (G14)"));
            }
            out.extend_from_slice(&p.to_be_bytes());
        }
        if let Some(t) = self.time_us {
            out.extend_from_slice(&t.to_be_bytes());
        }
        Ok(out)
    }

    /// Parses a whole message.
    pub fn parse(bytes: &[u8]) -> Result<Arn, WireError> {
        let mut r = Reader::new(bytes, "ARN message");
        let msg_type = r.u8()?;
        let b1 = r.u8()?;
        let metric = r.u8()?;
        let pt = r.u8()?;
        if pt & PARA_UNDEFINED != 0 {
            return Err(field(
                "ARN Para-Type",
                pt,
                "bits 0-3 only (mask 0xf0; bits 4-7 are undefined, G13)",
            ));
        }
        let flow = if pt & PARA_FLOW != 0 {
            Some(FlowKey::parse(&mut r)?)
        } else {
            None
        };
        let path = if pt & PARA_PATH != 0 {
            Some(r.u32()?)
        } else {
            None
        };
        let priority = if pt & PARA_PRIORITY != 0 {
            let p = r.u32()?;
            if p > MAX_PRIORITY {
                return Err(field("ARN Priority", p, "0..=7 (G14)"));
            }
            Some(p)
        } else {
            None
        };
        let time_us = if pt & PARA_TIME != 0 {
            Some(r.u32()?)
        } else {
            None
        };
        r.finish()?;
        Ok(Arn {
            msg_type,
            version: b1 >> 4,
            reserved: b1 & 0xf,
            metric,
            flow,
            path,
            priority,
            time_us,
        })
    }
}

/// The Metric of a node whose receive queue holds `queue` of `capacity`
/// bytes (G12): the occupancy quantised to 0-255, 255 when full or over.
pub fn metric(queue: u64, capacity: u64) -> u8 {
    if capacity == 0 || queue >= capacity {
        255
    } else {
        (queue * 256 / capacity).min(255) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{hex, unhex};

    #[test]
    fn companions_priority_vector_is_byte_exact() {
        // COMPANION.md 1.2: priority 3, time 100 = TT V0 MM 30 | 00000003 | 00000064
        let a = Arn::for_priority(3, 0x7f, 100).unwrap();
        let b = a.encode().unwrap();
        assert_eq!(hex(&b), "01107f300000000300000064");
        assert_eq!(Arn::parse(&b), Ok(a));
        assert_eq!(a.para_type(), 0x30, "F17: Priority and Time");
    }

    #[test]
    fn flow_mode_carries_the_key_then_the_time() {
        let key = FlowKey {
            protocol: 17,
            src_port: 0xc000,
            dst_port: 4791,
            src: "10.0.17.1".parse().unwrap(),
            dst: "10.0.18.1".parse().unwrap(),
        };
        let a = Arn::for_flow(key, 200, 0);
        let b = a.encode().unwrap();
        assert_eq!(
            hex(&b),
            hex(&unhex("0110c890 1104c00012b70000 0a001101 0a001201 00000000").unwrap())
        );
        assert_eq!(a.para_type(), 0x90, "F15/F16: flow identifier and Time");
        assert_eq!(Arn::parse(&b), Ok(a));
        let all = Arn {
            path: Some(0xdead_beef),
            priority: Some(7),
            ..a
        };
        let b = all.encode().unwrap();
        assert_eq!(b[3], 0xf0);
        assert_eq!(b.len(), 4 + 16 + 4 + 4 + 4);
        assert_eq!(Arn::parse(&b), Ok(all));
    }

    #[test]
    fn malformed_arns_are_refused_by_name() {
        let b = Arn::for_priority(3, 0, 100).unwrap().encode().unwrap();
        let err = |b: &[u8]| Arn::parse(b).unwrap_err().to_string();
        assert_eq!(
            err(&b[..11]),
            "ARN message is truncated: 11 bytes where 12 are needed"
        );
        assert_eq!(
            err(&b[..3]),
            "ARN message is truncated: 3 bytes where 4 are needed"
        );
        let mut long = b.clone();
        long.push(0);
        assert_eq!(
            err(&long),
            "ARN message is over-long: 13 bytes where its length says 12"
        );
        let mut u = b.clone();
        u[3] |= 0x01;
        assert_eq!(
            err(&u),
            "ARN Para-Type is 0x31; legal: bits 0-3 only (mask 0xf0; bits 4-7 are undefined, G13)"
        );
        let mut p = b.clone();
        p[7] = 8;
        assert_eq!(err(&p), "ARN Priority is 0x8; legal: 0..=7 (G14)");
        assert!(Arn::for_priority(8, 0, 1).is_err());
        assert!(Arn {
            version: 16,
            ..Arn::for_priority(1, 0, 1).unwrap()
        }
        .encode()
        .is_err());
    }

    #[test]
    fn metric_quantises_occupancy() {
        assert_eq!(metric(0, 1000), 0);
        assert_eq!(metric(500, 1000), 128);
        assert_eq!(metric(999, 1000), 255);
        assert_eq!(metric(2000, 1000), 255);
        assert_eq!(metric(1, 0), 255);
    }
}
