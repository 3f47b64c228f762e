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
pub mod cosim;
pub mod fast_start_marker;
pub mod nic_core;
pub mod nic_system;
pub mod pacing_timer;
pub mod tools;
pub mod uart_bridge;
pub mod window_engine;
pub mod wred_ecn;
pub mod xorshift;

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
