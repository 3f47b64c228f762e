//! A mutation fuzzer for every parser of outside input (stable Rust,
//! deterministic from its seed): each input is a valid one from a target's
//! corpus with one to four stacked mutations (bit flips, byte writes of
//! boundary values, truncation, extension, insertion, deletion, block
//! copies, and half the time a fix-up of the target's lengths and
//! checksums so that the input gets past them to the fields behind), or now
//! and then plain random bytes. The target's check parses it and states
//! what an accepted input must satisfy; a panic is caught and reported with
//! the input that caused it.
//!
//! The targets: the codecs of the drafts ([`codecs`]), the UART
//! bridge's frames at the board ([`BRIDGE_TARGETS`]: the frame parser, and
//! the bridge's cycle model at the UART line, which cosimulation holds to
//! the RTL), and, in their own crates, the host's response reader and the
//! register values `ldcpctl` takes (`ldcp-host`), `ldcpctl`'s arguments
//! (`ldcpctl`), `ldcp`'s arguments and the sweep spec files (`ldcp-flow`).
//! CI runs every target for a bounded number of inputs; `ldcp fuzz` runs
//! them as long as asked.

pub mod codecs;

use crate::uart_bridge as br;
use crate::wire::hex;
use std::collections::BTreeMap;

/// An input a parser refused, as it should: the kind of refusal (a
/// coverage class) and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The class of refusal (`"truncated"`, `"bad crc"`, ...).
    pub kind: &'static str,
    /// The message the user would see.
    pub message: String,
}

impl Refusal {
    /// A refusal of `kind` with `message`.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            kind,
            message: message.into(),
        }
    }
}

/// A check's outcome: `Ok(Ok(()))` accepted (and whatever an accepted
/// input must satisfy held), `Ok(Err(r))` refused, `Err(why)` a property
/// broken.
pub type Verdict = Result<Result<(), Refusal>, String>;

/// One parser under test.
#[derive(Clone, Copy)]
pub struct Target {
    /// Its name (`ldcp fuzz --target`).
    pub name: &'static str,
    /// Valid inputs to mutate.
    pub corpus: fn() -> Vec<Vec<u8>>,
    /// Repairs lengths and checksums after a mutation.
    pub fixup: fn(&mut [u8]),
    /// Parses, and checks what an accepted input must satisfy.
    pub check: fn(&[u8]) -> Verdict,
}

/// What a run found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    /// The target.
    pub target: String,
    /// The seed.
    pub seed: u64,
    /// Inputs tried.
    pub inputs: u64,
    /// Inputs accepted.
    pub accepted: u64,
    /// Inputs refused, by the kind of refusal.
    pub refused: BTreeMap<&'static str, u64>,
    /// Panics caught.
    pub panics: u64,
    /// Broken properties (a round trip that changed the bytes or value,
    /// a register written that should not be, ...).
    pub broken: u64,
    /// The first failing input and what failed, if any.
    pub first_failure: Option<String>,
    /// Distinct refusal messages seen, numbers left out (a coarse coverage
    /// figure: how many different refusals the inputs reached).
    pub distinct_errors: usize,
}

impl Report {
    /// No panic and no broken property.
    pub fn clean(&self) -> bool {
        self.panics == 0 && self.broken == 0
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64* (Vigna)
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const BOUNDARY: [u8; 8] = [0x00, 0x01, 0x04, 0x0f, 0x2b, 0x7f, 0x80, 0xff];

fn mutate(rng: &mut Rng, b: &mut Vec<u8>) {
    match rng.below(8) {
        0 if !b.is_empty() => {
            let i = rng.below(b.len());
            b[i] ^= 1 << rng.below(8);
        }
        1 if !b.is_empty() => {
            let i = rng.below(b.len());
            b[i] = BOUNDARY[rng.below(BOUNDARY.len())];
        }
        2 => {
            let n = rng.below(b.len() + 1);
            b.truncate(n);
        }
        3 => {
            for _ in 0..=rng.below(24) {
                b.push(rng.next() as u8);
            }
        }
        4 => {
            let i = rng.below(b.len() + 1);
            b.insert(i, rng.next() as u8);
        }
        5 if !b.is_empty() => {
            let i = rng.below(b.len());
            b.remove(i);
        }
        6 if b.len() >= 2 => {
            let (from, to) = (rng.below(b.len()), rng.below(b.len()));
            let n = rng.below(17).min(b.len() - from).min(b.len() - to);
            let chunk = b[from..from + n].to_vec();
            b[to..to + n].copy_from_slice(&chunk);
        }
        _ if !b.is_empty() => {
            let i = rng.below(b.len());
            b[i] = rng.next() as u8;
        }
        _ => b.push(rng.next() as u8),
    }
}

/// Runs `inputs` inputs of `t` from `seed`, calling `progress` every 2^16.
pub fn run(t: &Target, seed: u64, inputs: u64, mut progress: impl FnMut(u64)) -> Report {
    let corpus = (t.corpus)();
    let mut rng = Rng(seed | 1);
    let mut r = Report {
        target: t.name.into(),
        seed,
        ..Report::default()
    };
    let mut messages = std::collections::HashSet::new();
    quiet_panics_on_this_thread(true);
    for n in 0..inputs {
        let mut b = if corpus.is_empty() || rng.below(64) == 0 {
            (0..rng.below(200)).map(|_| rng.next() as u8).collect()
        } else {
            corpus[rng.below(corpus.len())].clone()
        };
        for _ in 0..=rng.below(4) {
            mutate(&mut rng, &mut b);
        }
        if rng.below(2) == 0 {
            (t.fixup)(&mut b);
        }
        r.inputs += 1;
        match std::panic::catch_unwind(|| (t.check)(&b)) {
            Ok(Ok(Ok(()))) => r.accepted += 1,
            Ok(Ok(Err(e))) => {
                *r.refused.entry(e.kind).or_default() += 1;
                if messages.len() < 100_000 {
                    messages.insert(without_numbers(&e.message));
                }
            }
            Ok(Err(why)) => {
                r.broken += 1;
                r.first_failure
                    .get_or_insert(format!("{why}: input {}", hex(&b)));
            }
            Err(_) => {
                r.panics += 1;
                r.first_failure
                    .get_or_insert(format!("panic: input {}", hex(&b)));
            }
        }
        if n & 0xffff == 0xffff {
            progress(n + 1);
        }
    }
    quiet_panics_on_this_thread(false);
    r.distinct_errors = messages.len();
    r
}

/// The bounded run a CI test makes of `t`: `inputs` inputs from `seed`,
/// printed with the seed; it fails on a panic or a broken property, on
/// fewer than `least_accepted` inputs accepted, or on refusals of one kind
/// only (a fuzzer that reaches one side of the parser tests nothing).
pub fn assert_bounded_run(t: &Target, seed: u64, inputs: u64, least_accepted: u64) -> Report {
    let t0 = std::time::Instant::now();
    let r = run(t, seed, inputs, |_| {});
    println!(
        "fuzz {}: seed {seed:#x}, {} inputs in {:.1} s, {} accepted, refused {:?}, {} distinct refusals, {} panics, {} broken",
        t.name,
        r.inputs,
        t0.elapsed().as_secs_f64(),
        r.accepted,
        r.refused,
        r.distinct_errors,
        r.panics,
        r.broken
    );
    assert!(r.clean(), "{}: {:?}", t.name, r.first_failure);
    assert!(
        r.accepted >= least_accepted,
        "{}: only {} inputs accepted",
        t.name,
        r.accepted
    );
    assert!(
        r.refused.len() >= 2,
        "{}: refusals of one kind only: {:?}",
        t.name,
        r.refused
    );
    r
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Silences panic messages of this thread only (the panics the fuzzer
/// catches would flood the output); other threads' still print.
fn quiet_panics_on_this_thread(q: bool) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|c| c.get()) {
                prev(info)
            }
        }));
    });
    QUIET.with(|c| c.set(q));
}

/// A message without its numbers: one entry per kind of refusal.
fn without_numbers(m: &str) -> String {
    m.split_whitespace()
        .filter(|w| !w.contains(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An argument vector as a fuzz input: the arguments joined by NUL bytes
/// (no argument holds one), so byte mutations split, join, cut and alter
/// arguments.
pub fn argv_bytes(args: &[&str]) -> Vec<u8> {
    args.join("\0").into_bytes()
}

/// The arguments of an [`argv_bytes`] input (invalid UTF-8 replaced, as a
/// shell would pass it lossily through `OsString::to_string_lossy`).
pub fn argv_of(b: &[u8]) -> Vec<String> {
    b.split(|&c| c == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// The UART bridge's targets (the board's side of the protocol).
pub const BRIDGE_TARGETS: [Target; 2] = [
    Target {
        name: "bridge_frames",
        corpus: bridge_corpus,
        fixup: fix_bridge,
        check: check_bridge_frames,
    },
    Target {
        name: "bridge_line",
        corpus: bridge_corpus,
        fixup: fix_bridge,
        check: check_bridge_line,
    },
];

/// Request streams: single frames of every kind and back-to-back ones,
/// with noise before a sync byte.
fn bridge_corpus() -> Vec<Vec<u8>> {
    let mut c = vec![
        br::request(false, 0, 0).to_vec(),
        br::request(true, 0x040, 0x1234_5678).to_vec(),
        br::request(true, 0xffc, 0xffff_ffff).to_vec(),
        br::request(false, 0x800, 0).to_vec(),
    ];
    let mut two = br::request(true, 0x100, 7).to_vec();
    two.extend(br::request(false, 0x100, 0));
    c.push(two);
    let mut noisy = vec![0x00, 0x5a, 0xff];
    noisy.extend(br::request(true, 0x004, 0xa5a5_a5a5));
    c.push(noisy);
    c
}

/// Each 9-byte window that starts with the sync byte gets its CRC, so
/// mutated fields reach the op and address checks.
fn fix_bridge(b: &mut [u8]) {
    let mut i = 0;
    while i + br::REQ_LEN <= b.len() {
        if b[i] == br::REQ_SYNC {
            b[i + 8] = br::crc8(&b[i + 1..i + 8]);
            i += br::REQ_LEN;
        } else {
            i += 1;
        }
    }
}

/// What the 9 bytes of a complete frame must give: the protocol's rules
/// (`crate::uart_bridge`'s module doc), written here apart from the
/// parser.
fn expected_action(f: &[u8]) -> br::Action {
    if br::crc8(&f[1..8]) != f[8] {
        return br::Action::Refuse(br::ST_BAD_CRC);
    }
    let addr = u16::from_le_bytes([f[2], f[3]]) as u32;
    let data = u32::from_le_bytes([f[4], f[5], f[6], f[7]]);
    match f[1] {
        _ if addr >= 1 << 12 => br::Action::Refuse(br::ST_BAD_FRAME),
        br::OP_READ => br::Action::Read(addr),
        br::OP_WRITE => br::Action::Write(addr, data),
        _ => br::Action::Refuse(br::ST_BAD_FRAME),
    }
}

fn tally(actions: &[br::Action]) -> Result<(), Refusal> {
    let bus = actions
        .iter()
        .filter(|a| !matches!(a, br::Action::Refuse(_)))
        .count();
    if bus > 0 {
        Ok(())
    } else if actions.contains(&br::Action::Refuse(br::ST_BAD_CRC)) {
        Err(Refusal::new("bad crc", "a frame refused: bad CRC"))
    } else if actions.is_empty() {
        Err(Refusal::new("no frame", "no complete frame"))
    } else {
        Err(Refusal::new(
            "bad frame",
            "a frame refused: bad op or address",
        ))
    }
}

/// The frame parser, byte by byte: every action is the one its 9 bytes
/// (the last 9 of the stream, starting with the sync byte) call for; a
/// frame failing its CRC, op or address never reaches the bus; the parser
/// is hunting or mid-frame as the stream's tail says.
fn check_bridge_frames(b: &[u8]) -> Verdict {
    let mut p = br::FrameParser::default();
    let mut actions = Vec::new();
    let mut start = None;
    for (i, &x) in b.iter().enumerate() {
        if start.is_none() && x == br::REQ_SYNC {
            start = Some(i);
        }
        let a = p.feed(x);
        match (a, start) {
            (Some(a), Some(s)) if i + 1 - s == br::REQ_LEN => {
                let want = expected_action(&b[s..=i]);
                if a != want {
                    return Err(format!(
                        "frame {} gave {a:?}, the protocol says {want:?}",
                        hex(&b[s..=i])
                    ));
                }
                actions.push(a);
                start = None;
            }
            (None, Some(s)) if i + 1 - s == br::REQ_LEN => {
                return Err(format!("frame {} gave no action", hex(&b[s..=i])));
            }
            (None, _) => {}
            (Some(a), _) => return Err(format!("{a:?} at byte {i}, not a frame's ninth")),
        }
    }
    let pending = start.map_or(0, |s| b.len() - s);
    if p.pending() != pending {
        return Err(format!(
            "the parser holds {} bytes, the stream's tail {pending}",
            p.pending()
        ));
    }
    Ok(tally(&actions))
}

/// The bridge's cycle model at the UART line (4 clocks per bit), the host
/// waiting for each response before its next byte (a host that does
/// not wait is the line test's case): its bus accesses are exactly the
/// Read and Write actions of the frame parser on the same bytes, in order
/// and with their addresses and data; it refuses exactly the refused
/// frames; it ends idle.
fn check_bridge_line(b: &[u8]) -> Verdict {
    const DIV: u32 = br::MIN_BAUD_DIV;
    let b = &b[..b.len().min(64)];
    let mut want = Vec::new();
    let mut p = br::FrameParser::default();
    let mut m = br::BridgeModel::new();
    let mut got = Vec::new();
    let mut refused = 0;
    let mut rvalid = false;
    let mut step = |m: &mut br::BridgeModel, rx: bool, got: &mut Vec<br::Action>| {
        m.tick(&br::BridgeIn {
            rx,
            baud_div: DIV,
            clear: false,
            bus_rdata: 0x0bad_f00d,
            bus_rvalid: rvalid,
        });
        let o = m.outputs();
        rvalid = o.bus_re;
        if o.bus_we {
            got.push(br::Action::Write(o.bus_addr, o.bus_wdata));
        }
        if o.bus_re {
            got.push(br::Action::Read(o.bus_addr));
        }
        refused += o.refused as u32;
    };
    let mut line = Vec::new();
    // the bytes back to back; after a frame's last byte the host waits
    // for the response (at most its length and a margin); at the end the
    // line idles past the frame timeout, which drops a partial frame
    let wait = (br::RESP_LEN as u32 + 2) * 10 * DIV;
    const _: () = assert!((br::RESP_LEN as u32 + 2) * 10 > br::IDLE_TIMEOUT_BITS);
    for &x in b {
        line.clear();
        br::serialize(&[x], DIV, &mut line);
        for &bit in &line {
            step(&mut m, bit, &mut got);
        }
        let frame = p.feed(x);
        want.extend(frame);
        for _ in 0..wait {
            if frame.is_none() || !m.busy() {
                break;
            }
            step(&mut m, true, &mut got);
        }
    }
    for _ in 0..wait {
        step(&mut m, true, &mut got);
    }
    let bus: Vec<_> = want
        .iter()
        .copied()
        .filter(|a| !matches!(a, br::Action::Refuse(_)))
        .collect();
    if got != bus {
        return Err(format!("bus accesses {got:?}, the frames call for {bus:?}"));
    }
    let refusals = want.len() - bus.len();
    if refused as usize != refusals {
        return Err(format!(
            "{refused} refusals, the frames call for {refusals}"
        ));
    }
    if m.busy() {
        return Err(format!("not idle at the end: {:?}", m.in_flight()));
    }
    Ok(tally(&want))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded run CI makes of the bridge's targets: fixed seeds
    /// (printed), no panic, no broken property, and inputs both accepted
    /// and refused in two ways or more.
    #[test]
    fn fuzz_the_bridge_for_a_bounded_run() {
        for (i, t) in BRIDGE_TARGETS.iter().enumerate() {
            let seed = 0x5EED_F030 + i as u64;
            let n = if t.name == "bridge_line" {
                20_000
            } else {
                200_000
            };
            assert_bounded_run(t, seed, n, 101);
        }
    }

    /// The harness catches what it is meant to: a check that panics on
    /// some input is reported with that input.
    #[test]
    fn the_fuzzer_reports_a_panicking_parser() {
        let t = Target {
            name: "broken",
            corpus: || vec![vec![1, 2, 3]],
            fixup: |_| {},
            check: |b| {
                if b.len() > 3 {
                    let _ = b[b.len() + usize::from(b[0] == 7)];
                }
                Ok(Ok(()))
            },
        };
        let r = run(&t, 1, 5_000, |_| {});
        assert!(r.panics > 0);
        assert!(r.first_failure.unwrap().starts_with("panic: input "));
    }

    /// The bridge's checks can fail: a parser that let a bad-CRC frame
    /// through would be caught (the check's reference refuses it).
    #[test]
    fn a_bad_crc_frame_is_refused_by_the_reference() {
        let mut f = br::request(true, 4, 5);
        f[8] ^= 1;
        assert_eq!(expected_action(&f), br::Action::Refuse(br::ST_BAD_CRC));
        assert_eq!(
            check_bridge_frames(&f).unwrap().unwrap_err().kind,
            "bad crc"
        );
        let ok = br::request(true, 4, 5);
        assert_eq!(check_bridge_line(&ok), Ok(Ok(())));
        assert_eq!(argv_of(&argv_bytes(&["a", "b c"])), vec!["a", "b c"]);
    }
}
