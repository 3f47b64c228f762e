//! Ideal references, bit-accurate golden models and the Verilator
//! cosimulation harness of the LDCP blocks.
//!
//! Three layers, one truth (see `ARCHITECTURE.md`):
//! 1. `ideal`: the draft's equations in `f64`, never synthesized;
//! 2. the golden models (`wred_ecn::WredEcnModel` and friends): bit-accurate
//!    and cycle-accurate mirrors of the RTL, fast enough to drive a network
//!    simulator;
//! 3. the RTL, checked against (2) every cycle by [`cosim`].
//!
//! This crate does not depend on RustHDL: the network simulator and the host
//! driver use the models without pulling in the HDL toolchain.

pub mod ack_generator;
pub mod board;
pub mod board_shell;
pub mod coord;
pub mod cosim;
pub mod cu_board;
pub mod end_con;
pub mod fast_cnp;
pub mod fast_start_marker;
pub mod fuzz;
pub mod ipv4;
pub mod nic_core;
pub mod nic_cu;
pub mod nic_system;
pub mod pacing_timer;
pub mod ports;
pub mod switch_board;
pub mod system_board;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tools;
pub mod tunnel_ecn;
pub mod uart_bridge;
pub mod window_engine;
pub mod wire;
pub mod wred_ecn;
pub mod xorshift;

/// Flow-table address bits of the FPGA builds (256 flows): the NIC core's
/// register map defines it, every 256-flow block uses it.
pub const FPGA_FLOW_BITS: usize = ldcp_regmap::FLOW_BITS as usize;

/// Bits of the packet-path blocks' flow-id ports: ids at or above their
/// table size are refused with an error, never aliased.
pub const FLOW_ID_BITS: usize = 16;

/// Where the flow keeps its build products (verilated libraries, VCDs,
/// synthesis runs): `$LDCP_WORK_DIR`, else `$CARGO_TARGET_DIR/ldcp`, else the
/// `target/ldcp` folder of the enclosing Cargo workspace, else `./target/ldcp`.
pub fn work_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("LDCP_WORK_DIR") {
        return dir.into();
    }
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return std::path::PathBuf::from(dir).join("ldcp");
    }
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            if dir.join("Cargo.lock").is_file() {
                return dir.join("target").join("ldcp");
            }
            if !dir.pop() {
                break;
            }
        }
    }
    std::path::PathBuf::from("target").join("ldcp")
}

/// FNV-1a, 64 bits: a content hash that is stable across Rust releases
/// (unlike `DefaultHasher`), for cache keys and for tying a committed
/// report to the Verilog it was made from.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The hash of `text` as 16 hex digits.
    pub fn hex_of(text: &str) -> String {
        Self::hex_of_bytes(text.as_bytes())
    }

    /// The hash of `bytes` as 16 hex digits.
    pub fn hex_of_bytes(bytes: &[u8]) -> String {
        let mut h = Fnv64::default();
        h.write(bytes);
        format!("{:016x}", h.finish())
    }
}

/// SplitMix64 (Steele, Lea and Flood): the seeded generator of the test
/// and benchmark stimuli. Not the hardware's generator (that is
/// [`xorshift`]); only a reproducible source of input sequences.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The reset sweep of a flow table, as the packet-path blocks' RTL does it:
/// after the reset edge, one entry written idle per clock, in order, while
/// the block takes no event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sweep {
    active: bool,
    ptr: usize,
}

impl Sweep {
    /// Sweeping (the block's `in_ready` is low).
    pub fn active(&self) -> bool {
        self.active
    }

    /// The entry written at the next edge, while active.
    pub fn ptr(&self) -> usize {
        self.ptr
    }

    /// Entries of a table of `entries` the sweep has still to write (0
    /// when it is not running): what a model reports in flight.
    pub fn left(&self, entries: usize) -> u64 {
        if self.active {
            (entries - self.ptr) as u64
        } else {
            0
        }
    }

    /// One edge of a table of `entries`: a reset (re)starts the sweep at
    /// entry 0; otherwise an active sweep moves on and ends after the last.
    pub fn tick(&mut self, reset: bool, entries: usize) {
        if reset {
            *self = Sweep {
                active: true,
                ptr: 0,
            };
        } else if self.active {
            self.active = self.ptr + 1 < entries;
            self.ptr = (self.ptr + 1) % entries;
        }
    }
}

/// Words of randomness a stimulus generator may draw in one cycle before
/// it falls back on a generator seeded from them (see [`Draws`]).
pub const CHOICE_WORDS: usize = 4;

/// One cycle's choices: the randomness a stimulus generator turns into one
/// cycle of inputs.
pub type Choice = [u64; CHOICE_WORDS];

/// The draws of one cycle of a [`Stimulus`]: the cycle's own words first,
/// then a SplitMix64 seeded from them (so a generator that needs more draws
/// in a cycle still depends on that cycle's choice alone).
///
/// Why per-cycle choices: a property test that draws one seed per stream
/// shrinks a failure to a *different* stream; one that draws a [`Choice`]
/// per cycle (the "choice sequence" of Hypothesis-style shrinking) shrinks
/// it to a shorter one, cycle by cycle, each cycle's choice toward zero,
/// while the generator keeps the protocol state (PSNs in sequence, phases,
/// bursts) that a per-cycle strategy of raw port values would not.
#[derive(Clone, Debug)]
pub struct Draws<'a> {
    words: &'a [u64],
    used: usize,
    tail: Option<SplitMix64>,
}

impl<'a> Draws<'a> {
    /// The draws of one cycle.
    pub fn new(words: &'a [u64]) -> Self {
        Draws {
            words,
            used: 0,
            tail: None,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        if let Some(w) = self.words.get(self.used) {
            self.used += 1;
            return *w;
        }
        let words = self.words;
        self.tail
            .get_or_insert_with(|| {
                let mut h = Fnv64::default();
                for w in words {
                    h.write(&w.to_le_bytes());
                }
                SplitMix64::new(h.finish())
            })
            .next_u64()
    }
}

/// A stimulus generator: a state machine that turns each cycle's choices
/// into that cycle's inputs. [`seeded`] runs it from a seed (the CLI and
/// the benchmarks), [`from_choices`] from a property test's choices.
pub trait Stimulus: Clone {
    /// One cycle of inputs.
    type Input;
    /// The next cycle's inputs, drawing from `d`.
    fn cycle(&mut self, d: &mut Draws) -> Self::Input;
}

/// An endless stream of `gen` from a seed.
pub fn seeded<G: Stimulus>(mut gen: G, seed: u64) -> impl Iterator<Item = G::Input> + Clone
where
    G::Input: Clone,
{
    let mut rng = SplitMix64::new(seed);
    std::iter::from_fn(move || {
        let c: Choice = std::array::from_fn(|_| rng.next_u64());
        Some(gen.cycle(&mut Draws::new(&c)))
    })
}

/// The stream of `gen` over `choices`, one cycle per choice.
pub fn from_choices<G: Stimulus>(mut gen: G, choices: &[Choice]) -> Vec<G::Input> {
    choices
        .iter()
        .map(|c| gen.cycle(&mut Draws::new(c)))
        .collect()
}
