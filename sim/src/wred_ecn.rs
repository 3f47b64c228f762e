//! WRED/ECN at one switch egress queue: draft-dai-tsvwg-pfc-free-congestion-
//! control-01 §2.1 (marking ramp, Eq. in §2.1) and §2.3 (Eq. 3: Not-ECT
//! fast-start packets are dropped once the queue reaches K).
//!
//! This file holds the three software layers of the block:
//! - [`ideal`]: the draft's rules in `f64`;
//! - [`WredEcnPort`]: the functional golden model, one call per clock, fast
//!   enough to be the switch of the network simulator;
//! - [`WredEcnModel`]: the cycle-accurate mirror of the RTL
//!   (`ldcp_hdl::wred_ecn::WredEcn`): same registers, same latency, same
//!   behaviour during a parameter change or a reset. Cosimulation compares
//!   it with the Verilog every cycle.
//!
//! # Decision rules (what both models and the RTL implement)
//! For a packet of `len` bytes with ECN codepoint `ecn`, arriving when the
//! queue holds `q` bytes (the occupancy at the start of its decision cycle,
//! before that cycle's drain):
//! 1. it does not fit (`q + len > buf_max`): **drop, overflow**;
//! 2. else Not-ECT and `q >= K`: **drop, WRED** (Eq. 3);
//! 3. else ECT(0)/ECT(1): forward, and mark CE with probability p(q):
//!    0 for `q < K_min`, `P_max * (q - K_min) / (K_max - K_min)` on the ramp,
//!    1 for `q >= K_max`;
//! 4. else (Not-ECT below K, or CE already): forward unchanged. CE stays CE
//!    and is not counted as marked by this port.
//!
//! Then `q' = max(q - drain, 0) + (accepted ? len : 0)`: the drain takes
//! only what was queued before the cycle, so a packet is never sent in the
//! cycle it arrives (a drain larger than `q` is lost). Since a packet is
//! accepted only if `q + len <= buf_max`, `q' <= buf_max` whenever
//! `q <= buf_max`: the queue never exceeds the buffer while buf_max holds
//! still or rises, whatever K, K_min, K_max and P_max do (a Not-ECT packet's
//! K and the headroom `buf_max + 1 - K` it is compared with are of one
//! generation of K, see the RTL's module doc; lowering buf_max leaves the
//! queue above it until it drains).
//!
//! # Fixed point of the marking test
//! With `R = K_max - K_min`, `D = q - K_min` (`0 <= D < R` on the ramp), a
//! shift `s = max(0, bitlen(R) - 16)` brings both into 16 bits:
//! `R' = R >> s`, `D' = D >> s` (UQ16.0 each). `P` is `P_max` in UQ1.15
//! (`0x8000` = 1.0) and `r` a 16-bit draw of the xorshift32 generator
//! (`r / 2^16` is uniform in [0, 1)). The packet is marked when
//! ```text
//! r * R'  <  2 * P * D'        (UQ16 x UQ16 -> UQ32 on both sides, compared in 33 bits)
//! ```
//! i.e. when `r / 2^16 < P_max * D' / R'`. No division is needed, so the
//! hardware uses two 16x16 multiplies. The realized probability is
//! `ceil(2 P D' / R') / 2^16`; its distance to the ideal p(q) is at most
//! [`MARK_PROBABILITY_ERROR_BOUND`] (truncating D and R by `s` bits moves
//! D/R by less than 2^-15 because R' >= 2^15 when s > 0, and the draw adds
//! at most 2^-16). `tests::wred_ecn_mark_probability_error_is_bounded`
//! enforces it.
//!
//! # Illegal parameters, in hardware
//! The driver and [`WredParams::validate`] refuse them; the hardware, given
//! them anyway, stays safe and deterministic:
//! - `P_max > 1.0` (raw > 0x8000) is clamped to 1.0;
//! - `K_min > K_max`: the ramp is empty, marking is a step at `K_max`;
//! - `K_max > buf_max` or `K > buf_max`: those thresholds are never reached;
//!   the buffer limit still holds;
//! - seed 0 loads [`crate::xorshift::ZERO_SEED_SUBSTITUTE`].

use crate::xorshift;

/// Bits of the queue occupancy and of every byte threshold (up to 16 MiB - 1).
pub const Q_BITS: usize = 24;
/// Bits of a packet length in bytes (up to 16,383: jumbo frames fit).
pub const LEN_BITS: usize = 14;
/// Bits of the per-cycle drain in bytes.
pub const DRAIN_BITS: usize = 14;
/// Bits of `P_max`, format UQ1.15.
pub const P_BITS: usize = 16;
/// Bits of the random draw per packet.
pub const RAND_BITS: usize = 16;
/// Bits of each saturating counter.
pub const COUNTER_BITS: usize = 32;
/// Bits of the generator seed.
pub const SEED_BITS: usize = 32;
/// Largest byte value of the queue and thresholds.
pub const Q_MAX: u32 = (1 << Q_BITS) - 1;
/// Largest packet length.
pub const LEN_MAX: u32 = (1 << LEN_BITS) - 1;
/// Largest drain per cycle.
pub const DRAIN_MAX: u32 = (1 << DRAIN_BITS) - 1;
/// Largest counter value; counters stop there.
pub const COUNTER_MAX: u32 = u32::MAX;
/// Cycles from a packet on the input to its decision on the output registers.
pub const LATENCY_CYCLES: usize = 12;
/// Cycles from a packet on the input to its effect on the counters.
pub const COUNTER_LATENCY_CYCLES: usize = LATENCY_CYCLES + 1;
/// Cycles from a packet on the input to its effect on `occupancy_bytes`.
pub const OCCUPANCY_LATENCY_CYCLES: usize = 5;
/// Worst distance between the realized marking probability and the ideal
/// p(q) (see the module doc): 2^-15 + 2^-16, rounded up to 2^-14.
pub const MARK_PROBABILITY_ERROR_BOUND: f64 = 1.0 / 16384.0;

/// ECN codepoints (RFC 3168), as carried in the 2 ECN bits.
pub mod ecn {
    /// Not ECN-capable transport: a fast-start packet in LDCP.
    pub const NOT_ECT: u8 = 0b00;
    /// ECN-capable, ECT(1).
    pub const ECT1: u8 = 0b01;
    /// ECN-capable, ECT(0).
    pub const ECT0: u8 = 0b10;
    /// Congestion experienced.
    pub const CE: u8 = 0b11;
}

/// `P_max` as UQ1.15: raw `0x8000` is 1.0, raw values above are illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct UQ1_15(u16);

impl UQ1_15 {
    /// 1.0.
    pub const ONE: UQ1_15 = UQ1_15(1 << 15);
    /// From the raw register value (any 16-bit value; > 1.0 is illegal but representable).
    pub const fn from_raw(raw: u16) -> Self {
        UQ1_15(raw)
    }
    /// The raw register value.
    pub const fn raw(self) -> u16 {
        self.0
    }
    /// Nearest representable value of a probability in [0, 1].
    pub fn from_f64(p: f64) -> Result<Self, ParamError> {
        if !(0.0..=1.0).contains(&p) {
            return Err(ParamError::new(format!(
                "p_max = {p} is out of range: it must be a probability in [0, 1]"
            )));
        }
        Ok(UQ1_15((p * 32768.0).round() as u16))
    }
    /// The value as a real number.
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / 32768.0
    }
}

/// A refused parameter set: the message names the value and its legal range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParamError(pub String);

impl ParamError {
    fn new(msg: String) -> Self {
        ParamError(msg)
    }
}

/// The block's parameters, in the encoding of its ports and registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WredParams {
    /// Start of the marking ramp, bytes.
    pub k_min_bytes: u32,
    /// End of the marking ramp (p = 1 from here), bytes.
    pub k_max_bytes: u32,
    /// Eq. 3's K: Not-ECT packets are dropped when q >= K, bytes.
    pub k_bytes: u32,
    /// Buffer size: a packet that does not fit is dropped, bytes.
    pub buf_max_bytes: u32,
    /// Marking probability at the end of the ramp, UQ1.15 raw.
    pub p_max_raw: u16,
    /// Seed of the xorshift32 generator (0 loads the substitute seed).
    pub seed: u32,
}

impl Default for WredParams {
    /// A 100 Gb/s port with 1,500-byte packets: K_min 20 KB, K_max 200 KB,
    /// P_max 0.2, K 100 KB, 1 MiB of buffer (HPCC/DCQCN-like settings).
    fn default() -> Self {
        WredParams {
            k_min_bytes: 20_000,
            k_max_bytes: 200_000,
            k_bytes: 100_000,
            buf_max_bytes: 1 << 20,
            p_max_raw: 6554, // 0.2 in UQ1.15
            seed: 1,
        }
    }
}

impl WredParams {
    /// Refuses an illegal set, naming the value and its legal range.
    pub fn validate(&self) -> Result<(), ParamError> {
        let byte_field = |name: &str, v: u32| {
            if v > Q_MAX {
                Err(ParamError::new(format!(
                    "{name} = {v} bytes is out of range: it must be in [0, {Q_MAX}] ({Q_BITS}-bit register)"
                )))
            } else {
                Ok(())
            }
        };
        byte_field("buf_max", self.buf_max_bytes)?;
        byte_field("k_min", self.k_min_bytes)?;
        byte_field("k_max", self.k_max_bytes)?;
        byte_field("k", self.k_bytes)?;
        if self.p_max_raw > UQ1_15::ONE.raw() {
            return Err(ParamError::new(format!(
                "p_max = {} (raw {:#06x}) is out of range: it must be in [0, 1] (raw 0x0000..=0x8000, UQ1.15)",
                UQ1_15(self.p_max_raw).to_f64(),
                self.p_max_raw
            )));
        }
        if self.k_min_bytes > self.k_max_bytes {
            return Err(ParamError::new(format!(
                "k_min = {} bytes is above k_max = {} bytes: the ramp needs k_min <= k_max",
                self.k_min_bytes, self.k_max_bytes
            )));
        }
        if self.k_max_bytes > self.buf_max_bytes {
            return Err(ParamError::new(format!(
                "k_max = {} bytes is above buf_max = {} bytes: it must be in [k_min, buf_max]",
                self.k_max_bytes, self.buf_max_bytes
            )));
        }
        if self.k_bytes > self.buf_max_bytes {
            return Err(ParamError::new(format!(
                "k = {} bytes is above buf_max = {} bytes: it must be in [0, buf_max]",
                self.k_bytes, self.buf_max_bytes
            )));
        }
        Ok(())
    }
}

/// What the port does with a packet; the value is the 2-bit `decision` port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[repr(u8)]
pub enum Decision {
    /// Forwarded with its codepoint unchanged.
    Forward = 0,
    /// Forwarded with its codepoint rewritten to CE.
    ForwardMarked = 1,
    /// Dropped by Eq. 3 (Not-ECT with q >= K).
    DropWred = 2,
    /// Dropped because it does not fit in buf_max.
    DropOverflow = 3,
}

impl Decision {
    /// From the 2-bit port value.
    pub fn from_bits(b: u8) -> Decision {
        match b & 3 {
            0 => Decision::Forward,
            1 => Decision::ForwardMarked,
            2 => Decision::DropWred,
            _ => Decision::DropOverflow,
        }
    }
}

/// The marking configuration the hardware derives from the parameters
/// (its config registers `p_eff`, `range`, `shift`, `r_prime`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RampCfg {
    /// K_min, bytes.
    pub k_min: u32,
    /// K_max, bytes.
    pub k_max: u32,
    /// P_max clamped to 1.0, UQ1.15 raw.
    pub p_eff: u16,
    /// K_max - K_min modulo 2^24.
    pub range: u32,
    /// s = max(0, bitlen(range) - 16), 0..=8.
    pub shift: u32,
    /// R' = (range >> s) mod 2^16.
    pub r_prime: u16,
}

/// `P_max` as the hardware uses it: raw values above 1.0 are clamped.
#[inline]
pub fn p_effective(p_max_raw: u16) -> u16 {
    p_max_raw.min(UQ1_15::ONE.raw())
}

/// The range from the ramp thresholds (modulo 2^24, as the 24-bit subtractor).
#[inline]
pub fn ramp_range(k_min: u32, k_max: u32) -> u32 {
    k_max.wrapping_sub(k_min) & Q_MAX
}

/// The normalising shift: `max(0, bitlen(range) - 16)`.
#[inline]
pub fn ramp_shift(range: u32) -> u32 {
    let bitlen = 32 - (range & Q_MAX).leading_zeros();
    bitlen.saturating_sub(16)
}

/// R' from a range and a shift (truncated to 16 bits like its register).
#[inline]
pub fn ramp_r_prime(range: u32, shift: u32) -> u16 {
    ((range & Q_MAX) >> shift) as u16
}

impl RampCfg {
    /// The settled configuration for a parameter set.
    pub fn from_params(p: &WredParams) -> Self {
        let range = ramp_range(p.k_min_bytes, p.k_max_bytes);
        let shift = ramp_shift(range);
        RampCfg {
            k_min: p.k_min_bytes & Q_MAX,
            k_max: p.k_max_bytes & Q_MAX,
            p_eff: p_effective(p.p_max_raw),
            range,
            shift,
            r_prime: ramp_r_prime(range, shift),
        }
    }
}

/// The ramp's comparison `r * R' < 2 * P * D'` (see the module doc).
#[inline]
pub fn ramp_hit(r: u16, r_prime: u16, p_eff: u16, d_prime: u16) -> bool {
    let lhs = r as u64 * r_prime as u64;
    let rhs = 2 * (p_eff as u64 * d_prime as u64);
    lhs < rhs
}

/// Whether an accepted ECN-capable packet seen at `q` is marked, given its draw `r`.
#[inline]
pub fn mark_test(q: u32, cfg: &RampCfg, r: u16) -> bool {
    if q >= cfg.k_max {
        return true;
    }
    if q < cfg.k_min {
        return false;
    }
    let d_prime = (((q - cfg.k_min) & Q_MAX) >> cfg.shift) as u16;
    ramp_hit(r, cfg.r_prime, cfg.p_eff, d_prime)
}

/// Whether the codepoint is ECT(0) or ECT(1) (CE is left alone).
#[inline]
pub fn is_ect(ecn: u8) -> bool {
    ecn == ecn::ECT0 || ecn == ecn::ECT1
}

/// The admission part of the decision: overflow, then Eq. 3, else accepted.
#[inline]
pub fn admit(q: u32, len: u32, ecn_in: u8, buf_max: u32, k: u32) -> Decision {
    if q as u64 + len as u64 > buf_max as u64 {
        Decision::DropOverflow
    } else if ecn_in == ecn::NOT_ECT && q >= k {
        Decision::DropWred
    } else {
        Decision::Forward
    }
}

/// The occupancy after one cycle: `max(q - drain, 0) + (accepted ? len : 0)`.
#[inline]
pub fn next_occupancy(q: u32, drain: u32, accepted_len: u32) -> u32 {
    q.saturating_sub(drain) + accepted_len
}

/// The ideal reference: the draft's rules in `f64`.
pub mod ideal {
    use super::*;

    /// p(q) of §2.1: 0 below K_min, the linear ramp to P_max, 1 from K_max.
    pub fn p_mark(q: f64, k_min: f64, k_max: f64, p_max: f64) -> f64 {
        if q >= k_max {
            1.0
        } else if q < k_min {
            0.0
        } else {
            p_max * (q - k_min) / (k_max - k_min)
        }
    }

    /// p(q) for a parameter set.
    pub fn p_mark_params(q: u32, p: &WredParams) -> f64 {
        p_mark(
            q as f64,
            p.k_min_bytes as f64,
            p.k_max_bytes as f64,
            UQ1_15(p.p_max_raw).to_f64(),
        )
    }

    /// The decision for a packet, with `u` uniform in [0, 1) deciding the mark.
    pub fn decide(q: u32, len: u32, ecn_in: u8, p: &WredParams, u: f64) -> Decision {
        match admit(q, len, ecn_in, p.buf_max_bytes, p.k_bytes) {
            Decision::Forward if is_ect(ecn_in) && u < p_mark_params(q, p) => {
                Decision::ForwardMarked
            }
            d => d,
        }
    }
}

/// The outgoing codepoint for a decision.
#[inline]
pub fn ecn_out(decision: Decision, ecn_in: u8) -> u8 {
    if decision == Decision::ForwardMarked {
        ecn::CE
    } else {
        ecn_in
    }
}

/// Saturating counters of a port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Packets forwarded, marked or not.
    pub forwarded: u32,
    /// Packets this port marked CE (a subset of `forwarded`).
    pub marked: u32,
    /// Packets dropped by Eq. 3.
    pub dropped_wred: u32,
    /// Packets dropped because they did not fit.
    pub dropped_overflow: u32,
}

impl Counters {
    /// Counts one decision, saturating at [`COUNTER_MAX`].
    #[inline]
    pub fn count(&mut self, d: Decision) {
        let inc = |c: &mut u32| *c = c.saturating_add(1);
        match d {
            Decision::Forward => inc(&mut self.forwarded),
            Decision::ForwardMarked => {
                inc(&mut self.forwarded);
                inc(&mut self.marked)
            }
            Decision::DropWred => inc(&mut self.dropped_wred),
            Decision::DropOverflow => inc(&mut self.dropped_overflow),
        }
    }
}

/// The functional golden model: one egress queue, one call per clock cycle,
/// decisions available at once (the RTL gives the same decisions
/// [`LATENCY_CYCLES`] later). This is the switch of the network simulator.
#[derive(Clone, Debug)]
pub struct WredEcnPort {
    params: WredParams,
    cfg: RampCfg,
    q: u32,
    rng: u32,
    counters: Counters,
}

impl WredEcnPort {
    /// A port with an empty queue, refusing illegal parameters.
    pub fn new(params: WredParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(WredEcnPort {
            params,
            cfg: RampCfg::from_params(&params),
            q: 0,
            rng: xorshift::seed_state(params.seed),
            counters: Counters::default(),
        })
    }

    /// Changes the parameters; the queue and the generator keep their state.
    pub fn set_params(&mut self, params: WredParams) -> Result<(), ParamError> {
        params.validate()?;
        self.params = params;
        self.cfg = RampCfg::from_params(&params);
        Ok(())
    }

    /// The parameters in force.
    pub fn params(&self) -> &WredParams {
        &self.params
    }

    /// Queue occupancy in bytes.
    pub fn occupancy_bytes(&self) -> u32 {
        self.q
    }

    /// The counters.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// One clock cycle: an optional arriving packet `(len, ecn)` and the bytes
    /// the egress link drained this cycle. Returns the packet's decision and
    /// outgoing codepoint.
    #[inline]
    pub fn cycle(&mut self, pkt: Option<(u32, u8)>, drain: u32) -> Option<(Decision, u8)> {
        let q = self.q;
        let mut accepted_len = 0;
        let out = pkt.map(|(len, ecn_in)| {
            self.rng = xorshift::step(self.rng);
            let r = xorshift::draw16(self.rng);
            let mut d = admit(
                q,
                len,
                ecn_in,
                self.params.buf_max_bytes,
                self.params.k_bytes,
            );
            if d == Decision::Forward {
                accepted_len = len;
                if is_ect(ecn_in) && mark_test(q, &self.cfg, r) {
                    d = Decision::ForwardMarked;
                }
            }
            self.counters.count(d);
            (d, ecn_out(d, ecn_in))
        });
        self.q = next_occupancy(q, drain, accepted_len);
        out
    }
}

crate::ports! {
    callback wred_ecn_ports;
    /// One cycle of inputs of the RTL block, port for port.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct WredInputs {
        /// Synchronous reset: empties the queue and the pipeline, clears the counters, loads the seed.
        reset: bool = 1,
        /// A packet arrives this cycle.
        in_valid: bool = 1,
        /// Its length, bytes, UQ14.
        in_len_bytes: u32 = LEN_BITS as u32,
        /// Its ECN codepoint (00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE).
        in_ecn: u8 = 2,
        /// Bytes the egress link sends this cycle, UQ14, every cycle (not qualified by `in_valid`): it drains what was queued before this cycle, so a packet is never sent in the cycle it arrives.
        egress_drain_bytes: u32 = DRAIN_BITS as u32,
        /// Start of the marking ramp K_min, bytes, UQ24.
        cfg_k_min_bytes: u32 = Q_BITS as u32,
        /// End of the ramp K_max (p = 1 from here), bytes, UQ24.
        cfg_k_max_bytes: u32 = Q_BITS as u32,
        /// Eq. 3's K for Not-ECT packets, bytes, UQ24.
        cfg_k_bytes: u32 = Q_BITS as u32,
        /// Buffer size, bytes, UQ24.
        cfg_buf_max_bytes: u32 = Q_BITS as u32,
        /// P_max, UQ1.15 (0x8000 = 1.0; larger values act as 1.0).
        cfg_p_max: u16 = P_BITS as u32,
        /// Seed of the xorshift32 generator, loaded on reset (0 loads the substitute).
        cfg_seed: u32 = SEED_BITS as u32,
    }
    /// The registered outputs of the RTL block.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct WredOutputs {
        /// A decision is on the outputs this cycle.
        out_valid: bool = 1,
        /// Its [`Decision`]: 0 forward, 1 forward marked CE, 2 drop (Eq. 3), 3 drop (overflow).
        out_decision: u8 = 2,
        /// The outgoing ECN codepoint.
        out_ecn: u8 = 2,
        /// Queue occupancy, bytes, UQ24.
        stat_occupancy_bytes: u32 = Q_BITS as u32,
        /// Packets forwarded (marked or not), saturating.
        stat_forwarded_pkts: u32 = COUNTER_BITS as u32,
        /// Packets marked CE by this port, saturating.
        stat_marked_pkts: u32 = COUNTER_BITS as u32,
        /// Packets dropped by Eq. 3, saturating.
        stat_dropped_wred_pkts: u32 = COUNTER_BITS as u32,
        /// Packets dropped because they did not fit, saturating.
        stat_dropped_overflow_pkts: u32 = COUNTER_BITS as u32,
    }
}

impl WredInputs {
    /// The parameters on the parameter ports.
    pub fn params(&self) -> WredParams {
        WredParams {
            k_min_bytes: self.cfg_k_min_bytes,
            k_max_bytes: self.cfg_k_max_bytes,
            k_bytes: self.cfg_k_bytes,
            buf_max_bytes: self.cfg_buf_max_bytes,
            p_max_raw: self.cfg_p_max,
            seed: self.cfg_seed,
        }
    }

    /// These inputs with `p` on the parameter ports.
    pub fn with_params(self, p: &WredParams) -> Self {
        WredInputs {
            cfg_k_min_bytes: p.k_min_bytes,
            cfg_k_max_bytes: p.k_max_bytes,
            cfg_k_bytes: p.k_bytes,
            cfg_buf_max_bytes: p.buf_max_bytes,
            cfg_p_max: p.p_max_raw,
            cfg_seed: p.seed,
            ..self
        }
    }

    /// An idle cycle (no packet, no drain, no reset) with `p` on the parameter ports.
    pub fn idle(p: &WredParams) -> Self {
        WredInputs::default().with_params(p)
    }
}

impl WredOutputs {
    /// The four counters.
    pub fn counters(&self) -> Counters {
        Counters {
            forwarded: self.stat_forwarded_pkts,
            marked: self.stat_marked_pkts,
            dropped_wred: self.stat_dropped_wred_pkts,
            dropped_overflow: self.stat_dropped_overflow_pkts,
        }
    }
}

/// The output registers.
#[derive(Clone, Copy, Debug, Default)]
struct OutRegs {
    valid: bool,
    decision: u8,
    ecn: u8,
    counters: Counters,
}

/// One stage register of the data path (loaded every cycle, like the RTL's).
#[derive(Clone, Copy, Debug, Default)]
struct Stage {
    valid: bool,
    ecn: u8,
    decision: Decision0,
    over: bool,
    under: bool,
    value: u32, // q, then D, then D'
    acc: bool,  // stage B: accepted
    lim1: i64,  // stage B: buf + 1 - len (fits <=> q < lim1)
    r: u16,
    prod_a: u32,
    prod_b: u32,
    lt: bool,
}

/// The registers that hold the next slot's tests one cycle ahead, so that
/// the loop's selects are registers (see `ldcp_hdl::wred_ecn`, "The loop").
/// Thresholds are exact integers here and 26-bit two's complement in the
/// RTL (the ranges fit: |T| < 2^25); the RTL compares them with q in
/// offset binary, which is the same order.
#[derive(Clone, Copy, Debug, Default)]
struct Look {
    /// The next slot is accepted iff q' < bound', i.e. q < these: after an
    /// accepted no-borrow update (B) or a rejected one (D).
    t_b: i64,
    t_d: i64,
    /// q' < next drain: after B or D.
    y_b: i64,
    y_d: i64,
    /// The next slot's accept and borrow when this one borrows
    /// (q' = len if accepted, else 0).
    pre_a: bool,
    pre_c: bool,
    pre_ba: bool,
    pre_bc: bool,
}

/// `Decision` with a default, for the register mirror.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Decision0(u8);

/// The cycle-accurate mirror of the RTL block `WredEcn`: same registers,
/// same latency, same transient behaviour on parameter changes and reset.
#[derive(Clone, Debug)]
pub struct WredEcnModel {
    // config pipeline
    c_kmin: u32,
    c_kmax: u32,
    c_k: u32,
    c_k2: u32, // K a cycle later
    c_k3: u32, // and another: the K of c_bk, which the bound uses
    c_buf1: u32,
    c_bkr: i64, // buf + 1 - K
    c_bk: u32,  // max(0, c_bkr): len < c_bk <=> K < buf + 1 - len
    c_buf: u32,
    c_p: u16,
    c_seed: u32,
    c_range: u32,
    c_shift: u32,
    c_rprime: u16,
    // stage 0: inputs registered
    s0_valid: bool,
    s0_len: u32,
    s0_ecn: u8,
    s0_drain: u32,
    // stage 1: precomputed, q-independent
    s1_valid: bool,
    s1_len: u32,
    s1_ecn: u8,
    s1_drain: u32,
    s1_lim1: i64,  // buf + 1 - len (26-bit two's complement in the RTL)
    s1_ldiff: i64, // len - drain (26-bit two's complement in the RTL)
    s1_bound: i64, // accept <=> q < bound, when lim1 >= 0: Not-ECT ? min(lim1, K) : lim1
    // stage 2: the same, one cycle later (slot n while slot n + 1 is in stage 1)
    s2_valid: bool,
    s2_len: u32,
    s2_ecn: u8,
    s2_drain: u32,
    s2_lim1: i64,
    s2_ldiff: i64,
    // stage 3: the loop's slot, with the thresholds of the next slot's tests
    s3_valid: bool,
    s3_len: u32,
    s3_ecn: u8,
    s3_lim1: i64,
    s3_ldiff: u32,  // len - drain modulo 2^24 (the accepted, no-borrow addend)
    s3_ndrain: u32, // -drain modulo 2^24 (the rejected, no-borrow addend)
    la: Look,
    // the loop: q and the two selects of this slot's update, held one cycle ahead
    q: u32,
    acc: bool,
    bor: bool,
    rng: u32,
    // stages B (decision), C (ramp position), D (normalised), E/F/G (multiply), I (compare)
    sb: Stage,
    sc: Stage,
    sd: Stage,
    se: Stage,
    sf: Stage,
    sg: Stage,
    si: Stage,
    out: OutRegs,
}

impl Default for WredEcnModel {
    fn default() -> Self {
        Self::new()
    }
}

impl WredEcnModel {
    /// The state after configuration: every register zero, like the
    /// FPGA's. Stage B's zero admission bits (not accepted, not fitting)
    /// decode in stage C as an overflow drop, which is what the RTL shows
    /// downstream until the first packet arrives (with `out_valid` low).
    pub fn new() -> Self {
        WredEcnModel {
            c_kmin: 0,
            c_kmax: 0,
            c_k: 0,
            c_k2: 0,
            c_k3: 0,
            c_buf1: 0,
            c_bkr: 0,
            c_bk: 0,
            c_buf: 0,
            c_p: 0,
            c_seed: 0,
            c_range: 0,
            c_shift: 0,
            c_rprime: 0,
            s0_valid: false,
            s0_len: 0,
            s0_ecn: 0,
            s0_drain: 0,
            s1_valid: false,
            s1_len: 0,
            s1_ecn: 0,
            s1_drain: 0,
            s1_lim1: 0,
            s1_ldiff: 0,
            s1_bound: 0,
            s2_valid: false,
            s2_len: 0,
            s2_ecn: 0,
            s2_drain: 0,
            s2_lim1: 0,
            s2_ldiff: 0,
            s3_valid: false,
            s3_len: 0,
            s3_ecn: 0,
            s3_lim1: 0,
            s3_ldiff: 0,
            s3_ndrain: 0,
            la: Look::default(),
            q: 0,
            acc: false,
            bor: false,
            rng: 0,
            sb: Stage::default(),
            sc: Stage::default(),
            sd: Stage::default(),
            se: Stage::default(),
            sf: Stage::default(),
            sg: Stage::default(),
            si: Stage::default(),
            out: OutRegs::default(),
        }
    }

    /// Loads the counters, as `WredEcnRustHdl::preset_counters` does in
    /// the RTL: reaches saturation in a test without 2^32 packets.
    pub fn preset_counters(&mut self, c: Counters) {
        self.out.counters = c;
    }

    /// The registered outputs.
    pub fn outputs(&self) -> WredOutputs {
        let c = self.out.counters;
        WredOutputs {
            out_valid: self.out.valid,
            out_decision: self.out.decision,
            out_ecn: self.out.ecn,
            stat_occupancy_bytes: self.q,
            stat_forwarded_pkts: c.forwarded,
            stat_marked_pkts: c.marked,
            stat_dropped_wred_pkts: c.dropped_wred,
            stat_dropped_overflow_pkts: c.dropped_overflow,
        }
    }

    /// Packets in the decision pipeline (taken, decision not yet out).
    pub fn in_flight(&self) -> u64 {
        [
            self.s0_valid,
            self.s1_valid,
            self.s2_valid,
            self.s3_valid,
            self.sb.valid,
            self.sc.valid,
            self.sd.valid,
            self.se.valid,
            self.sf.valid,
            self.sg.valid,
            self.si.valid,
        ]
        .iter()
        .filter(|&&v| v)
        .count() as u64
    }

    /// One rising clock edge with these inputs.
    pub fn tick(&mut self, i: &WredInputs) {
        let rst = i.reset;
        // --- outputs and counters (stage H), from stage I
        let g = self.si;
        let admitted = Decision::from_bits(g.decision.0);
        let ramp = !g.under && g.lt;
        let mark = admitted == Decision::Forward && is_ect(g.ecn) && (g.over || ramp);
        let dec = if mark {
            Decision::ForwardMarked
        } else {
            admitted
        };
        // counters (stage J) count what the output registers show
        let mut counters = self.out.counters;
        if self.out.valid {
            counters.count(Decision::from_bits(self.out.decision));
        }
        let out_next = OutRegs {
            valid: g.valid && !rst,
            decision: dec as u8,
            ecn: ecn_out(dec, g.ecn),
            counters: if rst { Counters::default() } else { counters },
        };

        // --- stage I: the ramp comparison
        let si_next = Stage {
            valid: self.sg.valid && !rst,
            lt: self.sg.prod_a < self.sg.prod_b,
            ..self.sg
        };
        // --- multiply pipeline E -> F -> G (products exact, delayed 3 cycles)
        let sg_next = Stage {
            valid: self.sf.valid && !rst,
            ..self.sf
        };
        let sf_next = Stage {
            valid: self.se.valid && !rst,
            ..self.se
        };
        let d = self.sd;
        let se_next = Stage {
            valid: d.valid && !rst,
            prod_a: d.r as u32 * self.c_rprime as u32,
            prod_b: 2 * (self.c_p as u32 * d.value),
            ..d
        };
        // --- stage D: normalise D by the shift
        let c = self.sc;
        let sd_next = Stage {
            valid: c.valid && !rst,
            value: (c.value >> self.c_shift) & 0xffff,
            ..c
        };
        // --- stage C: position on the ramp, and the admission decoded:
        // accepted, else overflow if it does not fit, else Eq. 3
        let b = self.sb;
        let fits = b.lim1 >= 0 && (b.value as i64) < b.lim1;
        let admitted_c = if b.acc {
            Decision::Forward
        } else if !fits {
            Decision::DropOverflow
        } else {
            Decision::DropWred
        };
        let sc_next = Stage {
            valid: b.valid && !rst,
            decision: Decision0(admitted_c as u8),
            over: b.value >= self.c_kmax,
            under: b.value < self.c_kmin,
            value: b.value.wrapping_sub(self.c_kmin) & Q_MAX,
            ..b
        };
        // --- stage B: the occupancy loop. `acc` and `bor` are this slot's
        // accept (q < bound) and borrow (q < drain), registered one cycle
        // ahead; the loop computes q' and the next slot's two selects.
        let q = self.q;
        let l = self.la;
        let qi = q as i64;
        let (t, y) = if self.acc {
            (l.t_b, l.y_b)
        } else {
            (l.t_d, l.y_d)
        };
        let (pre_acc, pre_bor) = if self.acc {
            (l.pre_a, l.pre_ba)
        } else {
            (l.pre_c, l.pre_bc)
        };
        let (q_next, acc_next, bor_next) = if rst {
            (0, false, l.pre_bc)
        } else if self.bor {
            (if self.acc { self.s3_len } else { 0 }, pre_acc, pre_bor)
        } else {
            let addend = if self.acc {
                self.s3_ldiff
            } else {
                self.s3_ndrain
            };
            (q.wrapping_add(addend) & Q_MAX, qi < t, qi < y)
        };
        let rng_step = xorshift::step(self.rng);
        let rng_next = if rst {
            xorshift::seed_state(self.c_seed)
        } else if self.s3_valid {
            rng_step
        } else {
            self.rng
        };
        let sb_next = Stage {
            valid: self.s3_valid && !rst,
            ecn: self.s3_ecn,
            decision: Decision0(0),
            over: false,
            under: false,
            value: q,
            acc: self.acc,
            lim1: self.s3_lim1,
            r: xorshift::draw16(rng_step),
            prod_a: 0,
            prod_b: 0,
            lt: false,
        };
        // --- stage 3's look-ahead: slot n (stage 2) with slot n + 1 (stage 1)
        let good = self.s1_valid && !rst && self.s1_lim1 >= 0;
        let (ldiff, drain, len) = (self.s2_ldiff, self.s2_drain as i64, self.s2_len as i64);
        let (bound, drain1) = (self.s1_bound, self.s1_drain as i64);
        let la_next = Look {
            t_b: if good { bound - ldiff } else { 0 },
            t_d: if good { bound + drain } else { 0 },
            y_b: drain1 - ldiff,
            y_d: drain1 + drain,
            pre_a: good && len < bound,
            pre_c: good && bound > 0,
            pre_ba: len < drain1,
            pre_bc: drain1 > 0,
        };
        // --- stage 1: q-independent precomputation
        let s1_lim1 = self.c_buf1 as i64 - self.s0_len as i64;
        let k_first = self.s0_ecn == ecn::NOT_ECT && self.s0_len < self.c_bk;
        let s1_bound = if k_first { self.c_k3 as i64 } else { s1_lim1 };
        let s1_ldiff = self.s0_len as i64 - self.s0_drain as i64;
        // --- config pipeline
        let c_range_next = ramp_range(self.c_kmin, self.c_kmax);
        let c_shift_next = ramp_shift(self.c_range);
        let c_rprime_next = ramp_r_prime(self.c_range, self.c_shift);

        // --- commit (all registers at once)
        self.out = out_next;
        self.si = si_next;
        self.sg = sg_next;
        self.sf = sf_next;
        self.se = se_next;
        self.sd = sd_next;
        self.sc = sc_next;
        self.sb = sb_next;
        self.q = q_next;
        self.acc = acc_next;
        self.bor = bor_next;
        self.rng = rng_next;
        self.la = la_next;
        self.s3_valid = self.s2_valid && !rst;
        self.s3_len = self.s2_len;
        self.s3_ecn = self.s2_ecn;
        self.s3_lim1 = self.s2_lim1;
        self.s3_ldiff = (self.s2_ldiff as u32) & Q_MAX;
        self.s3_ndrain = self.s2_drain.wrapping_neg() & Q_MAX;
        self.s2_valid = self.s1_valid && !rst;
        self.s2_len = self.s1_len;
        self.s2_ecn = self.s1_ecn;
        self.s2_drain = self.s1_drain;
        self.s2_lim1 = self.s1_lim1;
        self.s2_ldiff = self.s1_ldiff;
        self.s1_bound = s1_bound;
        self.s1_valid = self.s0_valid && !rst;
        self.s1_len = self.s0_len;
        self.s1_ecn = self.s0_ecn;
        self.s1_drain = self.s0_drain;
        self.s1_lim1 = s1_lim1;
        self.s1_ldiff = s1_ldiff;
        self.s0_valid = i.in_valid && !rst;
        self.s0_len = i.in_len_bytes & LEN_MAX;
        self.s0_ecn = i.in_ecn & 3;
        self.s0_drain = i.egress_drain_bytes & DRAIN_MAX;
        self.c_bk = self.c_bkr.max(0) as u32;
        self.c_bkr = self.c_buf1 as i64 - self.c_k as i64;
        self.c_buf1 = self.c_buf + 1;
        self.c_range = c_range_next;
        self.c_shift = c_shift_next;
        self.c_rprime = c_rprime_next;
        self.c_kmin = i.cfg_k_min_bytes & Q_MAX;
        self.c_kmax = i.cfg_k_max_bytes & Q_MAX;
        self.c_k3 = self.c_k2;
        self.c_k2 = self.c_k;
        self.c_k = i.cfg_k_bytes & Q_MAX;
        self.c_buf = i.cfg_buf_max_bytes & Q_MAX;
        self.c_p = p_effective(i.cfg_p_max);
        self.c_seed = i.cfg_seed;
    }
}

#[cfg(test)]
mod tests;

/// A seeded, endless stimulus for the CLI's cosimulation and the
/// benchmarks: phases of 200 to 3,200 cycles, each with its own load,
/// packet sizes, drain rate and legal parameter set, and a rare reset.
pub fn stimulus(seed: u64) -> impl Iterator<Item = WredInputs> + Clone {
    let mut rng = crate::SplitMix64::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    let mut left = 0usize;
    let mut phase = (WredParams::default(), 0u64, 1u64, 1u64);
    std::iter::from_fn(move || {
        if left == 0 {
            let scale = [4_000u32, 50_000, 1_000_000, Q_MAX][(next() % 4) as usize];
            let mut t = [0u32; 4].map(|_| (next() % (scale as u64 + 1)) as u32);
            t.sort_unstable();
            let params = WredParams {
                k_min_bytes: t[0],
                k_bytes: t[1],
                k_max_bytes: t[2],
                buf_max_bytes: t[3],
                p_max_raw: (next() % 0x8001) as u16,
                seed: next() as u32,
            };
            let load = next() % 101;
            let max_len = [64u64, 1600, LEN_MAX as u64 + 1][(next() % 3) as usize];
            let max_drain = [1u64, 1200, DRAIN_MAX as u64 + 1][(next() % 3) as usize];
            phase = (params, load, max_len, max_drain);
            left = 200 + (next() % 3000) as usize;
        }
        left -= 1;
        let (params, load, max_len, max_drain) = phase;
        let r = next();
        Some(
            WredInputs {
                reset: r % 5000 == 0,
                in_valid: (r >> 16) % 100 < load,
                in_len_bytes: ((r >> 24) % max_len) as u32,
                in_ecn: ((r >> 40) & 3) as u8,
                egress_drain_bytes: ((r >> 42) % max_drain) as u32,
                ..Default::default()
            }
            .with_params(&params),
        )
    })
}

/// The first `cycles` cycles of [`stimulus`].
pub fn random_stimulus(seed: u64, cycles: usize) -> Vec<WredInputs> {
    stimulus(seed).take(cycles).collect()
}

impl crate::cosim::CosimModel for WredEcnModel {
    type Input = WredInputs;
    type Output = WredOutputs;

    fn tick(&mut self, i: &WredInputs) {
        WredEcnModel::tick(self, i)
    }

    fn outputs(&self) -> WredOutputs {
        WredEcnModel::outputs(self)
    }

    /// [`COUNTER_LATENCY_CYCLES`] idle cycles (no packet, no drain), the
    /// last parameters kept: every decision is out and counted.
    fn drain(&self, last: Option<&WredInputs>) -> Vec<WredInputs> {
        let p = last.map(|i| i.params()).unwrap_or_default();
        vec![WredInputs::idle(&p); COUNTER_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let n = WredEcnModel::in_flight(self);
        if n == 0 {
            vec![]
        } else {
            vec![("packets in the decision pipeline", n)]
        }
    }
}
