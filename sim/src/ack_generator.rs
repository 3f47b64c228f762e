//! The receiver's ACK generator: per-packet and delayed ACKs with exact ECE
//! counts, NAKs for go-back-N, and a timeout that flushes held ACKs
//! (draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2 and §3.1).
//!
//! Layers: [`AckFlow`] (the functional model of one flow: one call per
//! packet, no timing, for the network simulator) and [`AckGeneratorModel`]
//! (the cycle-accurate mirror of the RTL).
//!
//! # ACKs
//! An ACK carries the flow, `psn` = the cumulative sequence acknowledged,
//! written as the next expected PSN (every PSN before it was received in
//! order), `ece`, `n` (how many packets it covers, 1..=15) and `nak`.
//!
//! # The rules, per data packet (PSN, CE, last-of-message)
//! `e` is the flow's expected PSN, `d = psn - e` modulo 2^24, `m` the
//! delayed-ACK count (`m = 1` *is* per-packet mode), `pending` the unmarked
//! in-order packets not yet acknowledged.
//! - `d == 0`, in order: `e += 1`, the gap flag clears, and
//!   - CE: if `pending > 0`, first `ACK(e_old, ece 0, n = pending)`, then
//!     `ACK(e, ece 1, n 1)` (two ACKs, so the sender's count of marked
//!     packets stays exact, as DCTCP's receiver does); else `ACK(e, 1, 1)`;
//!   - not CE: `pending += 1`; at `pending == m` or on the last packet of a
//!     message, `ACK(e, 0, pending)` and `pending = 0`; otherwise held (the
//!     first held packet stamps the timeout clock).
//! - `0 < d < 4096`, a gap (a lost or reordered packet): the packet is
//!   dropped (go-back-N) and, once per gap, `NAK(e, ece 0, n = pending)` is
//!   sent (carrying the held packets so none is lost); repeats of the same
//!   gap are dropped silently (error 3) until an in-order packet closes it.
//! - `d >= 2^23` (behind `e`: a duplicate) or `4096 <= d < 2^23` (far outside
//!   any window): dropped, error 2, no change.
//! - **Timeout**: a flow holding `pending > 0` for `timeout` cycles or more is
//!   flushed with `ACK(e, 0, pending)`.
//! - **Open** (`in_kind` 1): the flow expects PSN `psn` next; held packets
//!   are discarded (a new connection).
//!
//! # Bad input
//! A flow id beyond the table: error 1, ignored. `m` 0 acts as 1, `m` is 4
//! bits so at most 15 (the window engine's largest n). A zero-length message
//! is one packet with `last` set (RoCEv2), acknowledged at once.
//!
//! # One ACK per clock, back-pressure, and the timeout's lateness (RTL)
//! The RTL takes one event per clock and shows at most one ACK per clock.
//! An event's ACKs are decided four edges after it is taken (the table's
//! read, the state's choice, the update) and shown from an 8-entry queue
//! ([`ACK_QUEUE`]), oldest first: the second ACK of a CE packet with held
//! packets (a split) waits there a cycle instead of stalling the input.
//! `in_ready` is from registers only; it is low
//! - during the reset sweep,
//! - in the cycle a flush the timeout scanner found enters the pipeline
//!   (the flush is an op, in place of an input event), and
//! - while the queue holds more than [`READY_MAX_QUEUED`] ACKs. Every op
//!   adds at most one ACK to the queue beyond the one that leaves per
//!   clock, and at most five ops (four in flight and the one taken) add
//!   theirs before the ready rule sees it, so the queue never overflows
//!   (the model asserts it; per flow an ACK covers at least one packet, so
//!   the queue only fills when many flows' held packets are split at once).
//!
//! Events presented while `in_ready` is low are not taken (the sender holds
//! them); none is lost and no ACK is dropped. The scanner visits one flow per
//! clock (a copy of the table's pending/stamp fields, written with it), so a
//! held ACK is flushed at most `N - 1` cycles after its timeout (N = flows)
//! plus the scanner's three stages and the op's pipeline (the flush re-checks
//! the timeout on the flow's state when it is updated). Latency of an ACK: 5
//! cycles from its packet, more when ACKs queue ahead of it (design
//! constants of the RTL).

pub use crate::{FLOW_ID_BITS, FPGA_FLOW_BITS};

/// Bits of a PSN (RoCEv2).
pub const PSN_BITS: u32 = 24;
/// PSN mask.
pub const PSN_MASK: u32 = (1 << PSN_BITS) - 1;
/// Bits of an ACK's n and of `m` (1..=15, as the window engine's n).
pub const N_BITS: usize = 4;
/// Largest n.
pub const N_MAX: u32 = (1 << N_BITS) - 1;
/// Bits of the timeout parameter, cycles.
pub const TIMEOUT_BITS: usize = 16;
/// Bits of the time counter and the held-since stamp.
pub const T_BITS: u32 = 20;
/// Mask of T.
pub const T_MASK: u32 = (1 << T_BITS) - 1;
/// A gap of at most this many packets is a loss (NAK); beyond it the PSN is
/// out of window (the window engine's largest window is 4,095 packets).
pub const GAP_MAX: u32 = 4095;

/// Error codes (the `o_err` port).
pub mod err {
    /// No error.
    pub const NONE: u8 = 0;
    /// Flow id beyond the table.
    pub const FLOW: u8 = 1;
    /// Duplicate or out-of-window PSN.
    pub const SEQ: u8 = 2;
    /// Another packet of a gap already NAKed.
    pub const GAP_REPEAT: u8 = 3;
}

/// One ACK (or NAK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ack {
    /// Flow.
    pub flow: u32,
    /// Cumulative: the next expected PSN.
    pub psn: u32,
    /// ECN-Echo.
    pub ece: bool,
    /// Packets covered.
    pub n: u32,
    /// A NAK: go back to `psn`.
    pub nak: bool,
}

/// One flow's receiver state (what the RTL keeps per flow).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckFlow {
    /// Expected PSN.
    pub expected: u32,
    /// Unmarked in-order packets held.
    pub pending: u32,
    /// A NAK was sent for the current gap.
    pub nak_sent: bool,
    /// When the first held packet arrived (T, 20 bits).
    pub held_since: u32,
}

/// What one event produced: up to two ACKs, in order, and an error code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckOut {
    /// First ACK.
    pub first: Option<Ack>,
    /// Second ACK (a CE packet after held packets).
    pub second: Option<Ack>,
    /// [`err`] code.
    pub err: u8,
}

/// `m` as the hardware takes it: 4 bits, 0 acts as 1.
pub fn clamp_m(m: u32) -> u32 {
    (m & N_MAX).max(1)
}

impl AckFlow {
    /// A data packet at time `now` (T, 20 bits), with delayed-ACK count `m`.
    pub fn packet(
        &mut self,
        flow: u32,
        psn: u32,
        ce: bool,
        last: bool,
        m: u32,
        now: u32,
    ) -> AckOut {
        let m = clamp_m(m);
        let e = self.expected;
        let d = psn.wrapping_sub(e) & PSN_MASK;
        let mut o = AckOut::default();
        let ack = |psn, ece, n, nak| Ack {
            flow,
            psn,
            ece,
            n,
            nak,
        };
        if d == 0 {
            let e1 = (e + 1) & PSN_MASK;
            self.expected = e1;
            self.nak_sent = false;
            if ce {
                if self.pending > 0 {
                    o.first = Some(ack(e, false, self.pending, false));
                    o.second = Some(ack(e1, true, 1, false));
                } else {
                    o.first = Some(ack(e1, true, 1, false));
                }
                self.pending = 0;
            } else {
                let p = self.pending + 1;
                if p >= m || last {
                    o.first = Some(ack(e1, false, p, false));
                    self.pending = 0;
                } else {
                    if self.pending == 0 {
                        self.held_since = now & T_MASK;
                    }
                    self.pending = p;
                }
            }
        } else if d <= GAP_MAX {
            if self.nak_sent {
                o.err = err::GAP_REPEAT;
            } else {
                o.first = Some(ack(e, false, self.pending, true));
                self.pending = 0;
                self.nak_sent = true;
            }
        } else {
            o.err = err::SEQ;
        }
        o
    }

    /// The timeout: the held ACK, if `pending > 0` for `timeout` cycles or
    /// more at time `now`.
    pub fn flush(&mut self, flow: u32, timeout: u32, now: u32) -> Option<Ack> {
        if self.pending == 0 || self.age(now) < timeout {
            return None;
        }
        let a = Ack {
            flow,
            psn: self.expected,
            ece: false,
            n: self.pending,
            nak: false,
        };
        self.pending = 0;
        Some(a)
    }

    /// Cycles since the first held packet (modulo 2^20).
    pub fn age(&self, now: u32) -> u32 {
        now.wrapping_sub(self.held_since) & T_MASK
    }

    /// Opens the flow: PSN `psn` is expected next; held packets discarded.
    pub fn open(&mut self, psn: u32) {
        *self = AckFlow {
            expected: psn & PSN_MASK,
            ..Default::default()
        };
    }
}

mod rtl_model;
mod seq_model;
pub use rtl_model::{
    stimulus, AckGeneratorModel, AgInputs, AgOutputs, AgStimulus, ACK_QUEUE, READY_MAX_QUEUED,
};
pub use seq_model::{AckGeneratorSeqModel, AckGeneratorSeqStats, SEQ_OP_CYCLES};

#[cfg(test)]
mod tests;
