//! Named, seeded random streams. Every source of randomness in a run is a
//! stream named by what it draws (`"arrivals"`, `"sizes"`, `"ecmp"`...),
//! seeded from the run's seed and the name, so adding a stream never shifts
//! another one's draws. The algorithm is SplitMix64 (Steele, Lea and Flood),
//! `ldcp_sim::SplitMix64`, whose output is fixed by its definition (unlike
//! `rand::StdRng`, documented as non-portable across versions).

use ldcp_sim::SplitMix64;

/// FNV-1a of a name (the stream's seed offset).
pub fn fnv64(s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One named stream.
#[derive(Clone, Debug)]
pub struct Stream(SplitMix64);

impl Stream {
    /// The stream `name` of the run seeded by `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        let mut s = SplitMix64::new(seed ^ fnv64(name));
        s.next_u64(); // decorrelate neighbouring seeds
        Stream(s)
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n) (n > 0), by multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

/// A 64-bit mix of a few words: ECMP's flow hash (deterministic, no state).
pub fn mix(words: &[u64]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for &w in words {
        let mut s = SplitMix64::new(h ^ w);
        h = s.next_u64();
    }
    h
}
