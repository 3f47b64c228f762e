//! The baselines' per-flow state, beside LDCP's (which is the hardware's:
//! the fast-start marker, the window engine and the pacing timer, driven by
//! [`crate::sim`]).
//!
//! - **DCTCP** as RFC 8257 says: alpha starts at 1, `alpha = (1-g) alpha +
//!   g M` once per observation window (it ends when the cumulative ACK
//!   passes the `snd.nxt` recorded at its start), with M the fraction of
//!   acknowledged packets that were marked; on ECN-Echo, at most once per
//!   window, `cwnd = cwnd (1 - alpha/2)`; otherwise `cwnd += n / cwnd`
//!   (congestion avoidance); floor one packet. A NAK (loss) halves cwnd at
//!   most once per window (RFC 8257 §3.5, RFC 5681) and goes back N; a
//!   timeout sets cwnd to 1. The window starts at one BDP, as the HPCC
//!   simulator's hardware DCTCP starts at line rate (no slow start).
//! - **DCQCN** as the HPCC simulator runs it (`rdma-hw.cc`, the `mlx`
//!   variant; parameters in [`crate::config::DcqcnParams`]): line rate at
//!   start; on an ECN-Echo (the CNP), at most once per decrease interval,
//!   `Rt = Rc`, `Rc = max(min_rate, Rc (1 - alpha/2))`, `alpha = (1-g)
//!   alpha + g`, the increase stage and timer restart; alpha decays by
//!   `(1-g)` per alpha interval without a CNP (computed when next needed,
//!   not by a timer per flow); every rate-increase timer period the stage
//!   grows: below `fast_recovery` stages `Rc = (Rt + Rc)/2`, at it `Rt +=
//!   RAI`, above it `Rt += RHAI`, then `Rc = (Rt + Rc)/2`, capped at line
//!   rate. No window (`dcqcn`, not `dcqcn_vwin`).

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
    /// Window cuts (ECN and loss).
    pub cuts: u32,
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
    alpha_at: u64,
    last_cut: Option<u64>,
    stage: u32,
    /// Next rate-increase time, ps.
    pub timer_at: u64,
    /// Earliest next transmission, ps.
    pub next_send_ps: u64,
    /// Rate cuts.
    pub cuts: u32,
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
            cuts: 0,
        }),
        Cc::Dcqcn => FlowCc::Dcqcn(Dcqcn {
            rate_bps: line_bps,
            target_bps: line_bps,
            alpha: 1.0,
            line_bps,
            alpha_at: 0,
            last_cut: None,
            stage: 0,
            timer_at: 0,
            next_send_ps: 0,
            cuts: 0,
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
        FlowCc::None => {}
        FlowCc::Dctcp(d) => {
            d.acked += n as u64;
            if ece {
                d.marked += n as u64;
            }
            if nak {
                if una >= d.cwr_end {
                    d.cwnd = (d.cwnd / 2.0).max(1.0);
                    d.cwr_end = nxt;
                    d.cuts += 1;
                }
            } else if ece {
                if una >= d.cwr_end {
                    d.cwnd = (d.cwnd * (1.0 - d.alpha / 2.0)).max(1.0);
                    d.cwr_end = nxt;
                    d.cuts += 1;
                }
            } else {
                d.cwnd += n as f64 / d.cwnd;
            }
            if una >= d.window_end {
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
        }
        FlowCc::Dcqcn(d) => {
            if ece {
                let p = &cfg.dcqcn;
                // alpha's decay over the intervals without a CNP
                let k = (now.saturating_sub(d.alpha_at) / p.alpha_interval_ps) as i32;
                if k > 0 {
                    d.alpha *= (1.0 - p.g).powi(k);
                    d.alpha_at += k as u64 * p.alpha_interval_ps;
                }
                let due = d.last_cut.is_none_or(|t| now >= t + p.decrease_interval_ps);
                if due {
                    d.target_bps = d.rate_bps;
                    d.rate_bps = (d.rate_bps * (1.0 - d.alpha / 2.0)).max(p.min_rate_bps);
                    d.alpha = (1.0 - p.g) * d.alpha + p.g;
                    d.alpha_at = now;
                    d.last_cut = Some(now);
                    d.stage = 0;
                    d.timer_at = now + p.rp_timer_ps;
                    d.cuts += 1;
                }
            }
        }
    }
}

/// A retransmission timeout.
pub fn on_timeout(c: &mut FlowCc) {
    if let FlowCc::Dctcp(d) = c {
        d.cwnd = 1.0;
        d.cuts += 1;
    }
}

/// DCQCN's rate-increase timer fired.
pub fn dcqcn_increase(d: &mut Dcqcn, cfg: &NetConfig) {
    let p = &cfg.dcqcn;
    d.stage += 1;
    if d.stage >= p.fast_recovery {
        d.target_bps += if d.stage == p.fast_recovery {
            p.rai_bps
        } else {
            p.rhai_bps
        };
        d.target_bps = d.target_bps.min(d.line_bps);
    }
    d.rate_bps = ((d.target_bps + d.rate_bps) / 2.0).min(d.line_bps);
}
