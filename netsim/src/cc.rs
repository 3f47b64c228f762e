//! The baselines' per-flow state, beside LDCP's (which is the hardware's:
//! the fast-start marker, the window engine and the pacing timer, driven by
//! [`crate::sim`]).
//!
//! - **DCTCP** as RFC 8257 says: alpha starts at 1, `alpha = (1-g) alpha +
//!   g M` once per observation window (it ends when the cumulative ACK
//!   passes `WindowEnd`, the `snd.nxt` recorded when the last one ended,
//!   initially the first sequence number, as §3.3 initializes it), with M
//!   the fraction of acknowledged packets that were marked; then, on
//!   ECN-Echo, at most once per window, `cwnd = cwnd (1 - alpha/2)` with
//!   that alpha; otherwise `cwnd += n / cwnd`
//!   (congestion avoidance); floor one packet. A NAK (loss) halves cwnd at
//!   most once per window (RFC 8257 §3.5, RFC 5681) and goes back N; a
//!   timeout sets cwnd to 1. The window starts at one BDP, as the HPCC
//!   simulator's hardware DCTCP starts at line rate (no slow start).
//! - **DCQCN** as the HPCC simulator runs it (`rdma-hw.cc`, the `Mlx`
//!   functions; parameters in [`crate::config::DcqcnParams`]): line rate and
//!   alpha = 1 at start; an ECN-Echo on an ACK is the CNP (the receiver
//!   echoes CE in the ACK of that packet, as HPCC's does). A CE packet the
//!   receiver discards (go-back-N) has no ACK: HPCC loses its mark; here it
//!   becomes a CNP packet, at most one per flow per 50 us (the DCQCN
//!   paper's notification point), so a flow in loss recovery still slows
//!   down. The first CNP does not cut the rate (`RateOnFirstCnp` 1.0) but
//!   starts alpha's timer and the decrease check. Every alpha interval,
//!   `alpha = (1-g) alpha + g` if a CNP came in it, else `(1-g) alpha`
//!   (computed when next needed, in closed form, not by an event per flow
//!   per microsecond). Every decrease interval on the same grid, if a CNP
//!   came since the last check: `Rt = Rc` (unless the increase stage is 0:
//!   `CLAMP_TARGET_RATE` 0), `Rc = max(min_rate, Rc (1 - alpha/2))`, the
//!   increase stage returns to 0 and the increase timer restarts. Every
//!   increase-timer period: stage < fast_recovery: `Rc = (Rc + Rt)/2`;
//!   stage == fast_recovery: `Rt += RAI`; above: `Rt += RHAI` (capped at
//!   line rate), then `Rc = (Rc + Rt)/2`; then the stage grows. No byte
//!   counter, no window (`dcqcn`, not `dcqcn_vwin`). The sender paces each
//!   packet at the current rate.

use crate::config::{Cc, NetConfig};

/// DCTCP's per-flow state.
#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// alpha.
    pub alpha: f64,
    window_end: u64,
    acked: u64,
    marked: u64,
    cwr_end: u64,
}

/// DCQCN's per-flow state.
#[derive(Clone, Copy, Debug)]
pub struct Dcqcn {
    /// Current rate, bits/s.
    pub rate_bps: f64,
    /// Target rate, bits/s.
    pub target_bps: f64,
    /// alpha.
    pub alpha: f64,
    line_bps: f64,
    /// The first CNP's time (the alpha and decrease timers' grid), if any.
    started: Option<u64>,
    /// alpha's next timer tick, ps.
    alpha_tick: u64,
    /// A CNP came since alpha's last tick.
    alpha_cnp: bool,
    /// A CNP came since the last decrease check.
    pub decrease_cnp: bool,
    /// A decrease check is scheduled.
    pub check_pending: bool,
    stage: u32,
    /// Next rate-increase time, ps (u64::MAX: not started; the first cut
    /// starts it, as in HPCC).
    pub timer_at: u64,
    /// Earliest next transmission, ps.
    pub next_send_ps: u64,
}

impl Dcqcn {
    /// alpha's timer ticks up to `t` (inclusive), in closed form.
    fn alpha_to(&mut self, t: u64, p: &crate::config::DcqcnParams) {
        if self.started.is_none() || self.alpha_tick > t {
            return;
        }
        let k = (t - self.alpha_tick) / p.alpha_interval_ps + 1;
        self.alpha = if self.alpha_cnp {
            (1.0 - p.g) * self.alpha + p.g
        } else {
            (1.0 - p.g) * self.alpha
        };
        self.alpha *= (1.0 - p.g).powi((k - 1).min(i32::MAX as u64) as i32);
        self.alpha_cnp = false;
        self.alpha_tick += k * p.alpha_interval_ps;
    }

    /// The next decrease-check time after `now` on the grid.
    pub fn next_check(&self, now: u64, p: &crate::config::DcqcnParams) -> u64 {
        let t0 = self.started.unwrap_or(now);
        let k = (now.saturating_sub(t0)) / p.decrease_interval_ps + 1;
        t0 + k * p.decrease_interval_ps
    }
}

/// A flow's algorithm state (LDCP's lives in the hardware models).
#[derive(Clone, Copy, Debug)]
pub enum FlowCc {
    /// LDCP.
    None,
    /// DCTCP.
    Dctcp(Dctcp),
    /// DCQCN.
    Dcqcn(Dcqcn),
    /// Unresponsive constant bit rate (cross traffic): one packet every
    /// `gap_ps`, ECT(0), deaf to every congestion signal.
    Cbr {
        /// Time between packets, ps.
        gap_ps: u64,
        /// Earliest next transmission, ps.
        next_send_ps: u64,
    },
}

/// A new flow's state at line rate `line_bps`.
pub fn init(cc: Cc, cfg: &NetConfig, line_bps: f64) -> FlowCc {
    match cc {
        Cc::Ldcp => FlowCc::None,
        Cc::Dctcp => FlowCc::Dctcp(Dctcp {
            cwnd: cfg.dctcp_iw_pkts as f64,
            alpha: 1.0,
            window_end: 0,
            acked: 0,
            marked: 0,
            cwr_end: 0,
        }),
        Cc::Dcqcn => FlowCc::Dcqcn(Dcqcn {
            rate_bps: line_bps,
            target_bps: line_bps,
            alpha: 1.0,
            line_bps,
            started: None,
            alpha_tick: 0,
            alpha_cnp: false,
            decrease_cnp: false,
            check_pending: false,
            stage: 0,
            timer_at: u64::MAX,
            next_send_ps: 0,
        }),
    }
}

/// An ACK (or NAK) of `n` packets at `now`; `una` and `nxt` after it.
#[allow(clippy::too_many_arguments)]
pub fn on_ack(
    c: &mut FlowCc,
    cfg: &NetConfig,
    now: u64,
    ece: bool,
    n: u32,
    una: u64,
    nxt: u64,
    nak: bool,
) {
    match c {
        FlowCc::None | FlowCc::Cbr { .. } => {}
        FlowCc::Dctcp(d) => {
            // RFC 8257 §3.3: count, then close the observation window
            // (alpha updated), then react (§3.4) with the current alpha
            d.acked += n as u64;
            if ece {
                d.marked += n as u64;
            }
            if una > d.window_end {
                let m = if d.acked == 0 {
                    0.0
                } else {
                    d.marked as f64 / d.acked as f64
                };
                d.alpha = (1.0 - cfg.dctcp_g) * d.alpha + cfg.dctcp_g * m;
                d.acked = 0;
                d.marked = 0;
                d.window_end = nxt;
            }
            if nak {
                if una >= d.cwr_end {
                    d.cwnd = (d.cwnd / 2.0).max(1.0);
                    d.cwr_end = nxt;
                }
            } else if ece {
                if una >= d.cwr_end {
                    d.cwnd = (d.cwnd * (1.0 - d.alpha / 2.0)).max(1.0);
                    d.cwr_end = nxt;
                }
            } else {
                d.cwnd += n as f64 / d.cwnd;
            }
        }
        FlowCc::Dcqcn(d) => {
            if ece {
                let p = &cfg.dcqcn;
                if d.started.is_none() {
                    // HPCC's first CNP: alpha = 1, its flag cleared, the
                    // alpha and decrease timers started
                    d.started = Some(now);
                    d.alpha = 1.0;
                    d.alpha_tick = now + p.alpha_interval_ps;
                    d.alpha_cnp = false;
                } else {
                    d.alpha_to(now, p);
                    d.alpha_cnp = true;
                }
                d.decrease_cnp = true;
            }
        }
    }
}

/// DCQCN's decrease check at `now` (on its grid); returns whether the
/// check found a CNP (and cut the rate).
pub fn dcqcn_check(d: &mut Dcqcn, cfg: &NetConfig, now: u64) -> bool {
    let p = &cfg.dcqcn;
    d.check_pending = false;
    if !d.decrease_cnp {
        return false;
    }
    // alpha's ticks before this check (a tick at the same instant was
    // scheduled earlier in the HPCC simulator: it goes first)
    d.alpha_to(now, p);
    d.decrease_cnp = false;
    if d.stage != 0 {
        d.target_bps = d.rate_bps;
    }
    d.rate_bps = (d.rate_bps * (1.0 - d.alpha / 2.0)).max(p.min_rate_bps);
    d.stage = 0;
    d.timer_at = now + p.rp_timer_ps;
    true
}

/// A retransmission timeout.
pub fn on_timeout(c: &mut FlowCc) {
    if let FlowCc::Dctcp(d) = c {
        d.cwnd = 1.0;
    }
}

/// DCQCN's rate-increase timer fired.
pub fn dcqcn_increase(d: &mut Dcqcn, cfg: &NetConfig) {
    let p = &cfg.dcqcn;
    if d.stage >= p.fast_recovery {
        d.target_bps += if d.stage == p.fast_recovery {
            p.rai_bps
        } else {
            p.rhai_bps
        };
        d.target_bps = d.target_bps.min(d.line_bps);
    }
    d.rate_bps = ((d.target_bps + d.rate_bps) / 2.0).min(d.line_bps);
    d.stage += 1;
}
