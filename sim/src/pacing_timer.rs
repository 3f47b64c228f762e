//! The pacing timer of the gamma floor: flows whose window is below one
//! packet send one packet every RTT / cw (draft-dai-tsvwg-pfc-free-
//! congestion-control-01 §2.2, "a flow with a cw < 1 is ticked out by a
//! timer, whose timeout is set as RTT/cw").
//!
//! Layers:
//! - [`PacedFlow`]: the functional model of one flow (the network
//!   simulator's timer: it grants at the exact due time);
//! - [`PacingTimerModel`]: the cycle-accurate mirror of the RTL, which
//!   shares one grant per clock among all flows.
//!
//! # What enters and what leaves
//! Updates come from the window engine's output: `(flow, interval)`, the
//! interval in clock cycles (`window_engine::pace_interval`, 24 bits), 0 when
//! cw >= 1. An update with a non-zero interval makes the flow a member (it
//! *joins* at that cycle if it was not one); interval 0 makes it leave. A
//! *restart* (`in_kind` 1, sent for a flow reset) forgets the flow's
//! schedule: interval 0 leaves, any other interval joins afresh at that
//! cycle, even a flow that is a member (no due time survives a reset). A member is granted one send credit when its
//! due time has come; the next due time is the previous one plus the
//! (latest) interval, so lateness does not accumulate and the long-run rate
//! is exactly one grant per interval. A join's first grant is due one
//! interval after the join.
//!
//! **Known defect, not fixed** (found while `formal/pacing_timer.sv` was
//! written; RTL and cycle model alike, `rtl_model.rs`): the scanner tells a
//! fresh join by the U entry's join time differing from the one S saw
//! (`u.join != s.join_seen`, 25 bits of T). A restart of a member (or a
//! leave and a re-join within one lap, before the scanner saw the leave)
//! taken when T equals the flow's previous join time modulo 2^25 (a
//! multiple of 0.34 s at 100 MHz after it) is therefore not seen as fresh:
//! the old schedule goes on, and the restart's first grant comes at the
//! old next due time rather than one interval after the restart (a
//! Verilator run: joined at T = 21 with interval 100, restarted with
//! interval 1,000 exactly 2^25 cycles later, granted 76 cycles after the
//! restart; restarted 5 cycles later, granted after 1,007). The harness's
//! schedule properties start at a grant for this reason.
//!
//! # One grant per clock, no flow starved, and the lateness bound
//! The RTL visits the flows round-robin, one per clock (a pointer over the
//! table), and grants the visited flow if it is due. Each flow therefore owns
//! one slot every N cycles (N = flows in the table), whatever the others do:
//! - **worst-case lateness = N - 1 cycles, for any number k of flows due at
//!   once** (1 <= k <= N). A due flow waits for its own slot, never behind
//!   the other k - 1, because their slots are different cycles. (A design
//!   that served due flows in order of arrival would have lateness k - 1;
//!   this one trades that for a bound that holds without any queue and
//!   with no state beyond one table read per clock.) A visit whose table
//!   read is at edge r shows its grant after edge r + 4 (a design constant:
//!   the RTL's scanner is five stages, one carry chain each), with its
//!   lateness `T - due` at the visit (T of the cycle after the read).
//! - No flow is starved: every member is visited every N cycles.
//! - Intervals shorter than N cycles cannot be honoured (one visit per N
//!   cycles): such a flow is granted at every visit, and when it falls a
//!   whole interval behind its next due time restarts from the visit
//!   (`T + interval`) rather than bursting to catch up. Its lateness is then
//!   at most N: a join's first due time is the join plus the interval known
//!   at the first visit, which can be up to N cycles after the join. With
//!   N = 256 at 100 MHz that is an interval below 2.56 us, i.e. RTT/cw below
//!   one pointer sweep, which datacentre RTTs (RTT/cw >= RTT) do not reach.
//!   [`lateness_bound_cycles`] gives both bounds.
//! - The functional [`PacedFlow`] fixes a join's first due time with the
//!   interval of the joining update; the RTL uses the latest interval at the
//!   flow's first visit. They differ only when a second update arrives
//!   within N cycles of a join.
//!
//! # Time
//! `T` is a free-running cycle counter of [`T_BITS`] = 25 bits; due times
//! are compared modulo 2^25 (`T - due` read as signed), valid because due
//! times stay within 2^24 (the largest interval) of `T`.
//!
//! # RTL timing
//! - Updates: one per clock, taken when `in_ready`; a flow's membership is a
//!   read-modify-write of table A (one-entry bypass), and the scanner's view
//!   (table U) is written in the same cycle. An update in cycle t is seen by
//!   a visit whose table read is at edge t + 2 or later.
//! - `reset` clears the grant register and `T`, then sweeps all three tables
//!   (N cycles, `in_ready` low, no grants, updates ignored).
//! - A flow id beyond the table is ignored; `o_err_flow` pulses one cycle
//!   after it was taken.

pub use crate::{FLOW_ID_BITS, FPGA_FLOW_BITS};

/// Bits of the time counter and due times.
pub const T_BITS: u32 = 25;
/// Mask of T.
pub const T_MASK: u32 = (1 << T_BITS) - 1;
/// Bits of an interval (the window engine's `INTERVAL_BITS`).
pub const INTERVAL_BITS: usize = crate::window_engine::INTERVAL_BITS;
/// Bits of the reported lateness (the low bits of `T - due`).
pub const LATE_BITS: usize = 16;

/// The worst-case lateness, cycles, of a grant in a table of `flows`
/// flows, whatever the number of flows due at once: `flows - 1` when every
/// interval is at least `flows` cycles, else `flows`.
pub fn lateness_bound_cycles(flows: u32, min_interval: u32) -> u32 {
    if min_interval >= flows {
        flows - 1
    } else {
        flows
    }
}

/// `a - b` modulo 2^25 is non-negative (as a signed 25-bit value).
fn reached(t: u32, due: u32) -> bool {
    (t.wrapping_sub(due) & T_MASK) >> (T_BITS - 1) == 0
}

/// One flow of the functional model: grants at the exact due time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacedFlow {
    /// A member (cw < 1).
    pub active: bool,
    /// Current interval, cycles.
    pub interval: u32,
    /// Next due time, absolute cycles (no wrap in the functional model).
    pub due: u64,
}

impl PacedFlow {
    /// An update from the window engine at time `now` (interval 0: leave).
    pub fn update(&mut self, now: u64, interval: u32) {
        if interval == 0 {
            self.active = false;
        } else {
            if !self.active {
                self.due = now + interval as u64;
            }
            self.active = true;
            self.interval = interval;
        }
    }

    /// A grant, if the flow is due at `now` (at most one per call).
    pub fn grant(&mut self, now: u64) -> bool {
        if !self.active || now < self.due {
            return false;
        }
        self.due += self.interval as u64;
        if self.due <= now {
            self.due = now + self.interval as u64;
        }
        true
    }
}

mod rtl_model;
pub use rtl_model::{stimulus, PacingTimerModel, PtInputs, PtOutputs, PtStimulus, MIN_FLOW_BITS};
mod seq_model;
pub use seq_model::{
    seq_lap_max_cycles, seq_lateness_bound_cycles, PacingTimerSeqModel, PacingTimerSeqStats,
    SEQ_UPDATE_CYCLES, SEQ_VISIT_CYCLES,
};

#[cfg(test)]
mod tests;
