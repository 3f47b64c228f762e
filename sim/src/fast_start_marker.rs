//! The fast-start ECN marker (sender side): zero-RTT bandwidth acquisition,
//! draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3 and §3.1.
//!
//! This file holds the software layers of the block:
//! - [`ipv4`]: the header checksum, full (RFC 1071, the reference) and
//!   incremental (RFC 1624 Eq. 3, what the hardware does);
//! - [`FsFlow`] / [`FastStartTable`]: the functional golden model, one flow
//!   or a table of them, for the network simulator (no pipeline);
//! - [`FastStartMarkerModel`]: the cycle-accurate mirror of the RTL's registers,
//!   for cosimulation.
//!
//! # Sequence numbers: the 24-bit PSN, and why
//! The block counts packets, as the window engine and the ACK generator do
//! (IW, cw and ACK's n are packet counts). RoCEv2's 24-bit PSN numbers
//! packets; the draft's byte LSN (§3.1) exists because uNIC's PSN jumps when
//! READ and SEND/WRITE requests interleave and packets differ in size. Here a
//! flow is one send queue with its own contiguous PSN space, so the PSN
//! already is a packet count and the LSN would only add a bytes-to-packets
//! division. PSNs are modulo 2^24 ([`PSN_BITS`]); every comparison is a
//! distance modulo 2^24 from the flow's first PSN, so wrap-around is free.
//!
//! # The rules (one event per call; the RTL takes one per clock)
//! Per flow: `stage` (idle, fast start, stable), `base` (first PSN), `next`
//! (next new PSN), `fs_len` (length of the fast-start burst, IW or shorter)
//! and `acked` (in-order packets acknowledged, saturating at 4,095).
//!
//! **Transmit** (PSN, last-of-message, IPv4 word 0, checksum):
//! - idle: the flow starts its fast start with this packet: `base = psn`,
//!   `fs_len` = IW (the parameter), or 1 if this packet ends its message.
//! - fast start, new packet (`psn == next`), its index `k = psn - base + 1`:
//!   Not-ECT while `k < fs_len` and the packet does not end its message;
//!   ECT for the IW-th packet (`k == fs_len`), for the last packet of a
//!   message shorter than IW (which also shortens `fs_len` to `k`: the burst
//!   ends there), and for every packet after the burst (`k > fs_len`: the
//!   second RTT, sent ECN-capable "ever since", §3.1).
//! - fast start, a PSN in `[base, next)`: a retransmission, ECT, no change.
//!   Any other PSN: out of window, ECT, no change, error 2.
//! - stable: ECT.
//! - A header that is not IPv4 (version != 4 or IHL < 5): passed unchanged,
//!   no change to the flow, error 3.
//!
//! ECT is ECT(0), `10`. The ECN field is rewritten and the checksum updated
//! by RFC 1624 Eq. 3 (`HC' = ~(~HC + ~m + m')`, one's complement sums).
//!
//! **ACK or NAK** carrying `e`, the receiver's next expected PSN (all PSNs
//! before `e` received in order), `a = e - base`, `sent = next - base`:
//! - fast start, `a > sent` (acknowledges what was never sent): error 2,
//!   ignored. Otherwise `acked = max(acked, min(a, 4095))`, then:
//!   - NAK (transition 1, a loss in fast start): stable, the window becomes
//!     `min(a, fs_len)` packets (acknowledged in order before the loss; 0
//!     becomes the engine's floor gamma) and go-back-N from `e` is requested;
//!   - ACK with `a >= fs_len` (transition 2, the whole burst acknowledged):
//!     stable, the window becomes IW. A message shorter than IW that is
//!     acknowledged without loss also leaves with IW: no loss was seen, which
//!     is transition 2's evidence.
//! - stable: nothing (the window engine owns stable-stage ACKs).
//! - idle: error 2 (nothing was sent), ignored.
//!
//! **Flow reset**: the flow becomes idle (its next packet starts a new fast
//! start). A whole-block reset makes every flow idle (see the RTL timing).
//!
//! **Bad input**: a flow id beyond the table is error 1, ignored (a transmit
//! leaves its header unchanged). IW is 12 bits; 0 is clamped to 1. RoCEv2
//! sends a zero-length message as one packet without payload, so to this
//! block it is a one-packet message (`last` set on its only packet): ECT,
//! `fs_len` = 1.
//!
//! # Timing of the RTL
//! One event per clock, no back-pressure except during a reset sweep. An
//! event presented in cycle t has its result on the output registers after
//! edge t + 4 ([`LATENCY_CYCLES`] = 5). The per-flow state is block RAM
//! (read one edge ahead, registered twice, written by the decisions' edge)
//! with forwarding and two bypasses, so back-to-back events of one flow
//! see each other exactly as the functional model does. `reset` clears the outputs and sweeps the table
//! (2^flow_bits cycles with `in_ready` low; events presented then are
//! ignored, not queued).

pub use crate::{FLOW_ID_BITS, FPGA_FLOW_BITS};

/// Bits of a PSN.
pub const PSN_BITS: u32 = 24;
/// PSN modulus mask.
pub const PSN_MASK: u32 = (1 << PSN_BITS) - 1;
/// Bits of IW, `fs_len`, `acked` and the window handed to the engine, packets.
pub const COUNT_BITS: usize = 12;
/// Largest count (the window engine's largest integer window).
pub const COUNT_MAX: u32 = (1 << COUNT_BITS) - 1;
/// Cycles from an event on the inputs to its result on the outputs (a
/// design constant of the RTL: input register, read register, the
/// difference's register, decisions, result).
pub const LATENCY_CYCLES: usize = 5;

/// Not-ECT.
pub const ECN_NOT_ECT: u8 = 0b00;
/// ECT(0), what the block writes for ECN-capable packets.
pub const ECN_ECT0: u8 = 0b10;

/// Event kinds (the `in_kind` port).
pub mod kind {
    /// A data packet to transmit.
    pub const TX: u8 = 0;
    /// A cumulative ACK.
    pub const ACK: u8 = 1;
    /// A NAK (go-back-N from its PSN).
    pub const NAK: u8 = 2;
    /// Reset one flow to idle.
    pub const RESET_FLOW: u8 = 3;
}

/// Error codes (the `o_err` port).
pub mod err {
    /// No error.
    pub const NONE: u8 = 0;
    /// Flow id beyond the table.
    pub const FLOW: u8 = 1;
    /// Sequence number out of window, or an ACK for an idle flow.
    pub const SEQ: u8 = 2;
    /// The header is not IPv4.
    pub const NOT_IPV4: u8 = 3;
}

/// A flow's stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Stage {
    /// Nothing sent since reset.
    #[default]
    Idle = 0,
    /// First RTT: fast start.
    FastStart = 1,
    /// Congestion avoidance (§2.2).
    Stable = 2,
}

/// IPv4 header checksums (shared with the tunnel ECN egress).
pub use crate::ipv4;

/// One flow's state: what the RTL keeps per flow in its table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsFlow {
    /// Stage.
    pub stage: Stage,
    /// First PSN of the fast start.
    pub base: u32,
    /// Next new PSN.
    pub next: u32,
    /// Fast-start burst length, packets (IW, or a shorter message's length).
    pub fs_len: u32,
    /// In-order packets acknowledged during fast start (saturates at 4,095):
    /// the model's own record, which decides nothing (the RTL does not keep it).
    pub acked: u32,
}

/// What a transmit decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxResult {
    /// ECN codepoint on the wire.
    pub ecn: u8,
    /// IPv4 word 0, rewritten.
    pub word0: u16,
    /// The header checksum, updated.
    pub csum: u16,
    /// Error code ([`err`]).
    pub err: u8,
}

/// What an ACK or NAK changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckResult {
    /// The window (packets) handed to the window engine's per-flow set, on
    /// the transition into the stable stage.
    pub set_cw_pkts: Option<u32>,
    /// Go-back-N from this PSN (a loss in fast start).
    pub go_back_n: Option<u32>,
    /// Error code ([`err`]).
    pub err: u8,
}

/// IW as the hardware takes it: 12 bits, 0 clamped to 1.
pub fn clamp_iw(iw_pkts: u32) -> u32 {
    (iw_pkts & COUNT_MAX).max(1)
}

impl FsFlow {
    /// Decides the codepoint of one outgoing data packet and rewrites its
    /// header's word 0 and checksum.
    pub fn tx(&mut self, psn: u32, last: bool, word0: u16, csum: u16, iw_pkts: u32) -> TxResult {
        if !ipv4::is_ipv4(word0) {
            return TxResult {
                ecn: (word0 & 3) as u8,
                word0,
                csum,
                err: err::NOT_IPV4,
            };
        }
        let psn = psn & PSN_MASK;
        let mut e = err::NONE;
        let ect = match self.stage {
            Stage::Idle => {
                let fs = if last { 1 } else { clamp_iw(iw_pkts) };
                *self = FsFlow {
                    stage: Stage::FastStart,
                    base: psn,
                    next: (psn + 1) & PSN_MASK,
                    fs_len: fs,
                    acked: 0,
                };
                fs == 1
            }
            Stage::FastStart => {
                let sent = self.next.wrapping_sub(self.base) & PSN_MASK;
                let off = psn.wrapping_sub(self.base) & PSN_MASK;
                if psn == self.next {
                    let k = off + 1; // 1-based index, <= 2^24
                    self.next = (self.next + 1) & PSN_MASK;
                    if k < self.fs_len && last {
                        self.fs_len = k;
                        true
                    } else {
                        k >= self.fs_len
                    }
                } else {
                    if off >= sent {
                        e = err::SEQ;
                    }
                    true
                }
            }
            Stage::Stable => true,
        };
        let ecn = if ect { ECN_ECT0 } else { ECN_NOT_ECT };
        let w = ipv4::with_ecn(word0, ecn);
        TxResult {
            ecn,
            word0: w,
            csum: ipv4::incremental(csum, word0, w),
            err: e,
        }
    }

    /// Applies an ACK (`nak` false) or a NAK carrying `e`, the receiver's
    /// next expected PSN.
    pub fn ack(&mut self, e: u32, nak: bool, iw_pkts: u32) -> AckResult {
        let mut r = AckResult::default();
        match self.stage {
            Stage::Idle => r.err = err::SEQ,
            Stage::Stable => {}
            Stage::FastStart => {
                let e = e & PSN_MASK;
                let a = e.wrapping_sub(self.base) & PSN_MASK;
                let sent = self.next.wrapping_sub(self.base) & PSN_MASK;
                if a > sent {
                    r.err = err::SEQ;
                    return r;
                }
                self.acked = self.acked.max(a.min(COUNT_MAX));
                if nak {
                    self.stage = Stage::Stable;
                    r.set_cw_pkts = Some(a.min(self.fs_len));
                    r.go_back_n = Some(e);
                } else if a >= self.fs_len {
                    self.stage = Stage::Stable;
                    r.set_cw_pkts = Some(clamp_iw(iw_pkts));
                }
            }
        }
        r
    }
}

/// A table of flows: the functional golden model (one call per event, no
/// pipeline), for the network simulator and the end-to-end tests.
#[derive(Clone, Debug)]
pub struct FastStartTable {
    flows: Vec<FsFlow>,
    iw_pkts: u32,
    /// Events refused, by error code (index 1..=3).
    pub errors: [u64; 4],
}

impl FastStartTable {
    /// `flows` idle flows and IW (1..=4095 packets, refused otherwise).
    pub fn new(flows: usize, iw_pkts: u32) -> Result<Self, String> {
        if !(1..=COUNT_MAX).contains(&iw_pkts) {
            return Err(format!(
                "iw_pkts = {iw_pkts} is out of range: IW must be 1..={COUNT_MAX} packets"
            ));
        }
        Ok(FastStartTable {
            flows: vec![FsFlow::default(); flows],
            iw_pkts,
            errors: [0; 4],
        })
    }

    /// A flow's state.
    pub fn flow(&self, flow: usize) -> Option<&FsFlow> {
        self.flows.get(flow)
    }

    /// Transmit; `None` (counted as error 1) for a flow beyond the table.
    pub fn tx(&mut self, flow: usize, psn: u32, last: bool, word0: u16, csum: u16) -> TxResult {
        let iw = self.iw_pkts;
        let r = match self.flows.get_mut(flow) {
            Some(f) => f.tx(psn, last, word0, csum, iw),
            None => TxResult {
                ecn: (word0 & 3) as u8,
                word0,
                csum,
                err: err::FLOW,
            },
        };
        self.errors[r.err as usize] += (r.err != 0) as u64;
        r
    }

    /// ACK or NAK.
    pub fn ack(&mut self, flow: usize, e: u32, nak: bool) -> AckResult {
        let iw = self.iw_pkts;
        let r = match self.flows.get_mut(flow) {
            Some(f) => f.ack(e, nak, iw),
            None => AckResult {
                err: err::FLOW,
                ..Default::default()
            },
        };
        self.errors[r.err as usize] += (r.err != 0) as u64;
        r
    }

    /// Makes a flow idle; false for a flow beyond the table.
    pub fn reset_flow(&mut self, flow: usize) -> bool {
        match self.flows.get_mut(flow) {
            Some(f) => {
                *f = FsFlow::default();
                true
            }
            None => {
                self.errors[err::FLOW as usize] += 1;
                false
            }
        }
    }
}

mod rtl_model;
mod seq_model;
pub use rtl_model::{stimulus, FastStartMarkerModel, FsInputs, FsOutputs, FsStimulus};
pub use seq_model::{FastStartMarkerSeqModel, FastStartMarkerSeqStats, SEQ_LATENCY_CYCLES};

#[cfg(test)]
mod tests;
