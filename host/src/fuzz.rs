//! Fuzz targets of the host's parsers of outside input, for
//! `ldcp_sim::fuzz`'s engine: the bridge responses the UART backend reads
//! off the line, and the parameter values a user gives `ldcpctl`
//! (`config set NAME VALUE`, `bench --set NAME=VALUE`), applied to a
//! simulated device (the golden model) whose every register write is
//! recorded. `ldcp fuzz` runs them beside the others; CI makes a bounded
//! run (`cargo test -p ldcp-host fuzz`).

use crate::backend::sim::SimBus;
use crate::backend::uart::ResponseReader;
use crate::{parse_assignment, Device, DriverError, Param, RegAccess, Typed};
use ldcp_sim::fuzz::{Refusal, Target, Verdict};
use ldcp_sim::uart_bridge as br;
use std::cell::RefCell;

/// The host's targets.
pub const TARGETS: [Target; 2] = [
    Target {
        name: "uart_responses",
        corpus: response_corpus,
        fixup: fix_response,
        check: check_response,
    },
    Target {
        name: "param_values",
        corpus: param_corpus,
        fixup: |_| {},
        check: check_param,
    },
];

/// Byte 0 sets the sizes of the reads (two bits per read, cycled); the
/// rest is the line.
fn response_corpus() -> Vec<Vec<u8>> {
    let mut c = Vec::new();
    for (pattern, noise, st, d) in [
        (0x00u8, &[][..], br::ST_OK, 0x1234_5678u32),
        (0xff, &[0x00, 0xa5][..], br::ST_BAD_CRC, 0),
        (0x1b, &[0x5b, 0xff, 0x00][..], br::ST_BAD_FRAME, 0),
        (0xe4, &[][..], br::ST_OK, 0x5a5a_5a5a),
    ] {
        let mut b = vec![pattern];
        b.extend(noise);
        b.extend(br::response(st, d));
        c.push(b);
    }
    c
}

/// The CRC of the 7 bytes from the first sync byte, so mutated statuses
/// and data get past it.
fn fix_response(b: &mut [u8]) {
    if let Some(s) = b.iter().skip(1).position(|&x| x == br::RESP_SYNC) {
        let s = s + 1;
        if s + br::RESP_LEN <= b.len() {
            b[s + 6] = br::crc8(&b[s + 1..s + 6]);
        }
    }
}

/// The reader over reads of 1 to 4 bytes (as byte 0 says; never more than
/// its room): its frame is the 7 bytes from the line's first sync byte,
/// or none when fewer arrived; a frame whose CRC fails is refused, else
/// its status and data are the frame's.
fn check_response(b: &[u8]) -> Verdict {
    let Some((&pattern, line)) = b.split_first() else {
        return Ok(Err(Refusal::new("no response", "nothing on the line")));
    };
    let mut rd = ResponseReader::default();
    let (mut at, mut k) = (0, 0);
    while at < line.len() && rd.frame().is_none() {
        let want = 1 + (pattern >> (2 * (k % 4)) & 3) as usize;
        let n = want.min(rd.room()).min(line.len() - at);
        rd.push(&line[at..at + n]);
        at += n;
        k += 1;
    }
    let expect = line
        .iter()
        .position(|&x| x == br::RESP_SYNC)
        .filter(|s| s + br::RESP_LEN <= line.len())
        .map(|s| &line[s..s + br::RESP_LEN]);
    match (rd.frame(), expect) {
        (None, None) => Ok(Err(Refusal::new("no response", "no complete response"))),
        (Some(f), Some(e)) if f[..] == *e => match br::parse_response(&f) {
            Err(e) => Ok(Err(Refusal::new("bad crc", e.to_string()))),
            Ok((st, d)) => {
                if st != f[1] || d.to_le_bytes() != f[2..6] {
                    return Err(format!("parsed ({st}, {d:#x}) from {f:02x?}"));
                }
                Ok(Ok(()))
            }
        },
        (f, e) => Err(format!(
            "the reader framed {f:02x?}, the line holds {e:02x?}"
        )),
    }
}

/// A backend that records every write and passes it on.
struct Recording {
    inner: SimBus,
    writes: Vec<(u32, u32)>,
}

impl RegAccess for Recording {
    fn read32(&mut self, offset: u32) -> Result<u32, DriverError> {
        self.inner.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DriverError> {
        self.writes.push((offset, value));
        self.inner.write32(offset, value)
    }
    fn idle(&mut self, cycles: u64) -> Result<(), DriverError> {
        self.inner.idle(cycles)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

thread_local! {
    /// The simulated NIC system (the golden model), opened once per thread:
    /// the inputs set its parameters one after another, as a user would.
    static DEVICE: RefCell<Option<Device<Recording>>> = const { RefCell::new(None) };
}

fn param_corpus() -> Vec<Vec<u8>> {
    let mut c = Vec::new();
    for p in Param::ALL {
        let f = p.field();
        for v in [
            format!("{}", f.to_value(f.min)),
            format!("{}", f.to_value(f.max)),
            format!("raw:{}", f.max),
            format!("{:#x}", f.min),
        ] {
            c.push(format!("{}={v}", p.name()).into_bytes());
        }
    }
    c
}

/// An assignment (lossy UTF-8, as a shell passes it) parsed and applied:
/// refused, it writes nothing; accepted, it writes the parameter's
/// register once, with nothing outside the parameter's field, the device
/// then holds a value in the field's legal range, and every other
/// parameter is as it was.
fn check_param(b: &[u8]) -> Verdict {
    let kv = String::from_utf8_lossy(b);
    DEVICE.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            let io = Recording {
                inner: SimBus::model(),
                writes: Vec::new(),
            };
            *d = Some(Device::open(io).map_err(|e| format!("opening the model: {e}"))?);
        }
        let dev = d.as_mut().expect("opened above");
        let before = params(dev)?;
        dev.io().writes.clear();
        let set = parse_assignment(&kv).and_then(|(p, t)| {
            match t {
                Typed::Value(v) => dev.set_param(p, v),
                Typed::Raw(r) => dev.set_param_raw(p, r),
            }
            .map(|v| (p, v))
        });
        let writes = std::mem::take(&mut dev.io().writes);
        let after = params(dev)?;
        match set {
            Err(e) => {
                if !writes.is_empty() || before != after {
                    return Err(format!("refused ({e}) but wrote {writes:x?}"));
                }
                let kind = match e {
                    DriverError::BadValue(ref m) if m.contains("expected NAME=VALUE") => "syntax",
                    DriverError::BadValue(ref m) if m.contains("no parameter") => "name",
                    DriverError::BadValue(ref m) if m.contains("is not a number") => "number",
                    _ => "range",
                };
                Ok(Err(Refusal::new(kind, e.to_string())))
            }
            Ok((p, v)) => {
                let f = p.field();
                let reg = p.register().offset;
                if writes.len() != 1 || writes[0].0 != reg || writes[0].1 & !f.mask() != 0 {
                    return Err(format!("{} set by writes {writes:x?}", p.name()));
                }
                if !(f.min..=f.max).contains(&v.raw) {
                    return Err(format!(
                        "{} holds {:#x}, outside its range",
                        p.name(),
                        v.raw
                    ));
                }
                for ((q, x), (_, y)) in before.iter().zip(&after) {
                    if *q != p && x != y {
                        return Err(format!("setting {} changed {}", p.name(), q.name()));
                    }
                }
                Ok(Ok(()))
            }
        }
    })
}

/// Every parameter the device has, with its raw value.
fn params(dev: &mut Device<Recording>) -> Result<Vec<(Param, u32)>, String> {
    let have: Vec<Param> = Param::ALL
        .iter()
        .copied()
        .filter(|p| dev.has(p.register()))
        .collect();
    have.into_iter()
        .map(|p| {
            dev.param(p)
                .map(|v| (p, v.raw))
                .map_err(|e| format!("reading {}: {e}", p.name()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded run CI makes: fixed seeds (printed), no panic, no
    /// broken property, inputs accepted and refused in two ways or more.
    #[test]
    fn fuzz_the_hosts_parsers_for_a_bounded_run() {
        for (i, t) in TARGETS.iter().enumerate() {
            let seed = 0x5EED_F040 + i as u64;
            let n = if t.name == "param_values" {
                20_000
            } else {
                200_000
            };
            ldcp_sim::fuzz::assert_bounded_run(t, seed, n, 101);
        }
    }

    /// The checks can fail: a reader handed more than its room keeps only
    /// its frame, and an assignment of a legal value is accepted while an
    /// illegal one writes nothing.
    #[test]
    fn the_checks_see_what_they_claim() {
        let mut rd = ResponseReader::default();
        let mut line = vec![0x00];
        line.extend(br::response(0, 7));
        line.extend(br::response(0, 9));
        rd.push(&line);
        assert_eq!(rd.frame(), None, "one read takes at most its room");
        rd.push(&line[7..]);
        assert_eq!(rd.frame(), Some(br::response(0, 7)));
        assert_eq!(check_param(b"alpha=0.5"), Ok(Ok(())));
        assert_eq!(check_param(b"alpha=2").unwrap().unwrap_err().kind, "range");
        assert_eq!(check_param(b"alpha").unwrap().unwrap_err().kind, "syntax");
    }
}
