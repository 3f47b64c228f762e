//! A mutation fuzzer for the codecs (stable Rust, deterministic from its
//! seed): each input is a valid encoding from a target's corpus with one
//! to four stacked mutations (bit flips, byte writes of boundary values,
//! truncation, extension, insertion, deletion, block copies, and
//! half the time a fix-up of the target's lengths and checksums so that
//! the input gets past them to the fields behind), or now and then plain
//! random bytes. Each input is parsed; a parse that succeeds must
//! re-encode to the same bytes and parse again to the same value; a panic
//! is caught and reported with the input that caused it.
//!
//! CI runs every target for a bounded number of inputs
//! (`cargo test -p ldcp-sim fuzz`); `ldcp fuzz` runs them as long as asked.
//! The engine is [`crate::fuzz`]'s (this module is its `codecs`, the
//! codec targets, beside the engine and the bridge's targets).

use super::Target;
use crate::wire::{arn, coord, hex, rocev2, srv6};

/// Every target.
pub const TARGETS: [Target; 6] = [
    Target {
        name: "arn",
        corpus: arn_corpus,
        fixup: |_| {},
        check: |b| verdict(check_arn(b)),
    },
    Target {
        name: "rocev2",
        corpus: rocev2_corpus,
        fixup: fix_rocev2,
        check: |b| verdict(check_rocev2(b)),
    },
    Target {
        name: "srv6",
        corpus: srv6_corpus,
        fixup: fix_srv6,
        check: |b| verdict(check_srv6(b)),
    },
    Target {
        name: "fast_cnp",
        corpus: srv6_corpus,
        fixup: fix_srv6,
        check: |b| verdict(check_fast_cnp(b)),
    },
    Target {
        name: "coord_tag",
        corpus: coord_tag_corpus,
        fixup: |_| {},
        check: |b| verdict(check_coord_tag(b)),
    },
    Target {
        name: "coord_notify",
        corpus: coord_notify_corpus,
        fixup: fix_coord_notify,
        check: |b| verdict(check_coord_notify(b)),
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().copied().find(|t| t.name == name)
}

fn kind(e: &crate::wire::WireError) -> &'static str {
    match e {
        crate::wire::WireError::Truncated { .. } => "truncated",
        crate::wire::WireError::OverLong { .. } => "over-long",
        crate::wire::WireError::Field { .. } => "field",
        crate::wire::WireError::Check { .. } => "checksum",
    }
}

/// A codec check's outcome as the engine takes it.
fn verdict(c: Checked) -> crate::fuzz::Verdict {
    c.map(|r| r.map_err(|e| crate::fuzz::Refusal::new(kind(&e), e.to_string())))
}

/// A check's outcome: `Ok(Ok(()))` accepted and round-tripped,
/// `Ok(Err(e))` refused with error `e`, `Err(why)` a property broken.
pub type Checked = Result<Result<(), crate::wire::WireError>, String>;

/// A parse's round trip: a refusal as it is; an accepted value must
/// re-encode to the same bytes, and is returned for further checks.
fn round_trip<T>(
    b: &[u8],
    parsed: Result<T, crate::wire::WireError>,
    encode: impl FnOnce(&T) -> Result<Vec<u8>, crate::wire::WireError>,
) -> Result<Result<T, crate::wire::WireError>, String> {
    let v = match parsed {
        Err(e) => return Ok(Err(e)),
        Ok(v) => v,
    };
    let again = encode(&v).map_err(|e| format!("re-encode failed: {e}"))?;
    if again != b {
        return Err(format!("re-encoded to {}", hex(&again)));
    }
    Ok(Ok(v))
}

fn check_coord_tag(b: &[u8]) -> Checked {
    round_trip(b, coord::Tag::parse(b), |t| t.encode().map(|a| a.to_vec())).map(|r| r.map(drop))
}

fn check_coord_notify(b: &[u8]) -> Checked {
    round_trip(
        b,
        coord::Notification::parse(b),
        coord::Notification::encode,
    )
    .map(|r| r.map(drop))
}

fn coord_tag_corpus() -> Vec<Vec<u8>> {
    [
        coord::Tag::NEW,
        coord::Tag {
            cc: true,
            ..coord::Tag::NEW
        },
        coord::Tag {
            arv: true,
            ar_id: 0x00_2101,
            ..coord::Tag::NEW
        },
        coord::Tag {
            cc: true,
            arv: true,
            reserved: 0x15,
            ar_id: coord::MAX_AR_ID,
        },
    ]
    .iter()
    .filter_map(|t| t.encode().ok().map(|b| b.to_vec()))
    .collect()
}

fn coord_notify_corpus() -> Vec<Vec<u8>> {
    let key4 = crate::wire::FlowKey {
        protocol: 17,
        src_port: 0xc001,
        dst_port: 4791,
        src: "10.0.1.1".parse().expect("literal"),
        dst: "10.0.2.7".parse().expect("literal"),
    };
    let key6 = crate::wire::FlowKey {
        src: "2001:db8::1".parse().expect("literal"),
        dst: "2001:db8::2".parse().expect("literal"),
        ..key4
    };
    [
        (coord::NotifyType::CcRequired, key4, 1),
        (coord::NotifyType::CcReleased, key6, 0x00ff_ffff),
        (coord::NotifyType::ArRequired, key4, 0x2101),
    ]
    .into_iter()
    .filter_map(|(ntype, flow, originator)| {
        coord::Notification {
            ntype,
            flow,
            originator,
        }
        .encode()
        .ok()
    })
    .collect()
}

/// The header's AF and Length from the key's AF byte, so that inputs get
/// past them to the key and the ID.
fn fix_coord_notify(b: &mut [u8]) {
    if b.len() >= 6 {
        b[1] = b[5];
        let len = if b[5] == 6 { 48u16 } else { 24 };
        b[2..4].copy_from_slice(&len.to_be_bytes());
    }
}

fn check_arn(b: &[u8]) -> Checked {
    round_trip(b, arn::Arn::parse(b), arn::Arn::encode).map(|r| r.map(drop))
}

fn check_rocev2(b: &[u8]) -> Checked {
    round_trip(
        b,
        rocev2::Rocev2Packet::parse(b),
        rocev2::Rocev2Packet::encode,
    )
    .map(|r| r.map(drop))
}

fn check_srv6(b: &[u8]) -> Checked {
    match round_trip(b, srv6::Srv6Packet::parse(b), srv6::Srv6Packet::encode)? {
        Err(e) => Ok(Err(e)),
        Ok(p) => {
            // decapsulation refuses or succeeds, never panics; a forwarded
            // inner packet differs from the arriving one in its ECN field
            // and IPv4 checksum only
            if let Ok(srv6::Decap::Forward(inner)) = p.decapsulate() {
                let same = inner.len() == p.inner.len()
                    && inner.iter().zip(&p.inner).enumerate().all(|(i, (a, b))| {
                        a == b || i == 1 || (p.inner[0] >> 4 == 4 && (i == 10 || i == 11))
                    });
                if !same {
                    return Err("decapsulation changed more than the ECN field and checksum".into());
                }
            }
            Ok(Ok(()))
        }
    }
}

fn check_fast_cnp(b: &[u8]) -> Checked {
    let p = match srv6::Srv6Packet::parse(b) {
        Err(e) => return Ok(Err(e)),
        Ok(p) => p,
    };
    match rocev2::fast_cnp_descriptor(&p) {
        Err(e) => Ok(Err(e)),
        Ok(d) => {
            let f =
                rocev2::build_fast_cnp(&d, [0xfe; 16]).map_err(|e| format!("build failed: {e}"))?;
            let bytes = f.encode().map_err(|e| format!("encode failed: {e}"))?;
            let back = srv6::Srv6Packet::parse(&bytes)
                .map_err(|e| format!("own Fast CNP refused: {e}"))?;
            let cnp = rocev2::Rocev2Packet::parse(&back.inner)
                .map_err(|e| format!("own CNP refused: {e}"))?;
            if !cnp.is_cnp() || cnp.ip.dst() != d.dst || back.outer.dst != d.end_con {
                return Err("the Fast CNP does not return to the sender through END.CON".into());
            }
            Ok(Ok(()))
        }
    }
}

fn arn_corpus() -> Vec<Vec<u8>> {
    let key4 = crate::wire::FlowKey {
        protocol: 17,
        src_port: 0xc000,
        dst_port: 4791,
        src: "10.0.17.1".parse().expect("literal"),
        dst: "10.0.18.1".parse().expect("literal"),
    };
    let key6 = crate::wire::FlowKey {
        protocol: 41,
        src_port: 0,
        dst_port: 0,
        src: "2001:db8::1".parse().expect("literal"),
        dst: "2001:db8::2".parse().expect("literal"),
    };
    let mut all = arn::Arn::for_flow(key6, 9, 7);
    all.path = Some(0x1234_5678);
    all.priority = Some(5);
    [
        arn::Arn::for_priority(3, 0x7f, 100).ok(),
        Some(arn::Arn::for_flow(key4, 200, 0)),
        Some(arn::Arn::for_flow(key6, 1, 50)),
        Some(all),
    ]
    .into_iter()
    .flatten()
    .filter_map(|a| a.encode().ok())
    .collect()
}

fn rocev2_corpus() -> Vec<Vec<u8>> {
    let v4 = rocev2::Rocev2Packet::cnp(
        "10.0.18.1".parse().expect("literal"),
        "10.0.17.1".parse().expect("literal"),
        0xc000,
        0xffff,
        0x118,
    );
    let v6 = rocev2::Rocev2Packet::cnp(
        "2001:db8::7".parse().expect("literal"),
        "2001:db8::8".parse().expect("literal"),
        0xc001,
        0x8001,
        0xab_cdef,
    );
    let mut data = v6.clone();
    if let Ok(d) = &mut data {
        d.bth.opcode = 0x04;
        d.bth.psn = 77;
        d.payload = (0..64).collect();
    }
    [v4, v6, data]
        .into_iter()
        .filter_map(|p| p.ok()?.encode().ok())
        .collect()
}

fn srv6_corpus() -> Vec<Vec<u8>> {
    let sid = |n: u8| {
        let mut a = [0u8; 16];
        a[0] = 0x20;
        a[1] = 0x01;
        a[15] = n;
        a
    };
    let inner = rocev2_corpus();
    let mut out = Vec::new();
    for (i, p) in inner.iter().enumerate() {
        let segs: Vec<_> = (1..=(1 + i as u8 * 2)).map(sid).collect();
        if let Ok(t) =
            srv6::Srv6Packet::encapsulate(p, sid(0xc0), &segs, crate::tunnel_ecn::Mode::Normal, 64)
        {
            out.extend(t.encode().ok());
        }
    }
    let fast = out.iter().find_map(|b| {
        let d = rocev2::fast_cnp_descriptor(&srv6::Srv6Packet::parse(b).ok()?).ok()?;
        rocev2::build_fast_cnp(&d, sid(0x55)).ok()?.encode().ok()
    });
    out.extend(fast);
    out
}

fn fix_rocev2(b: &mut [u8]) {
    let len = b.len();
    match b.first().map(|x| x >> 4) {
        Some(4) if len >= 28 => {
            b[2..4].copy_from_slice(&(len as u16).to_be_bytes());
            b[10] = 0;
            b[11] = 0;
            let words: Vec<u16> = b[..20]
                .chunks(2)
                .map(|w| u16::from_be_bytes([w[0], w[1]]))
                .collect();
            let c = crate::ipv4::full_checksum(&words);
            b[10..12].copy_from_slice(&c.to_be_bytes());
            b[24..26].copy_from_slice(&((len - 20) as u16).to_be_bytes());
        }
        Some(6) if len >= 48 => {
            b[4..6].copy_from_slice(&((len - 40) as u16).to_be_bytes());
            b[44..46].copy_from_slice(&((len - 40) as u16).to_be_bytes());
        }
        _ => return,
    }
    if len >= 4 {
        if let Ok(c) = rocev2::icrc(&b[..len - 4]) {
            b[len - 4..].copy_from_slice(&c);
        }
    }
}

fn fix_srv6(b: &mut [u8]) {
    if b.len() >= 40 {
        let n = (b.len() - 40).min(u16::MAX as usize) as u16;
        b[4..6].copy_from_slice(&n.to_be_bytes());
        // the inner packet's own lengths and checks, where it starts
        let at = if b[6] == srv6::NH_ROUTING && b.len() >= 42 {
            40 + 8 * (b[41] as usize + 1)
        } else {
            40
        };
        if at < b.len() {
            let mut inner = b[at..].to_vec();
            fix_rocev2(&mut inner);
            b[at..].copy_from_slice(&inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded run CI makes: every target, fixed seeds (printed),
    /// no panic, no broken round trip, and inputs both accepted and
    /// refused (a fuzzer that only ever reaches one side tests nothing).
    #[test]
    fn fuzz_every_codec_for_a_bounded_run() {
        for (i, t) in TARGETS.iter().enumerate() {
            let seed = 0x5EED_F022 + i as u64;
            crate::fuzz::assert_bounded_run(t, seed, 200_000, 101);
        }
    }
}
