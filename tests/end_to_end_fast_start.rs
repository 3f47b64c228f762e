//! End to end, on the golden models: one sender (fast-start marker, window
//! engine, pacing timer), one switch port (WRED/ECN) and one receiver (ACK
//! generator), one packet per tick on the sender's link, a bottleneck ten
//! times slower, 50 ticks of propagation each way. Three fast starts:
//! without loss, with losses in the burst, and with every first-RTT packet
//! dropped (the window falls to gamma and the pacing timer takes over).
//! Each reaches the stable stage with the window §3.1 prescribes, and the
//! whole message is delivered in order.

use ldcp_sim::ack_generator::{Ack, AckFlow};
use ldcp_sim::fast_start_marker::{ipv4, FastStartTable, Stage, ECN_ECT0, ECN_NOT_ECT, PSN_MASK};
use ldcp_sim::pacing_timer::PacedFlow;
use ldcp_sim::window_engine::{
    interval_error_bound, pace_interval, FlowTable, WindowParams, CW_FRAC_BITS, CW_ONE,
};
use ldcp_sim::wred_ecn::{Decision, WredEcnPort, WredParams};
use std::collections::VecDeque;

const PKT_BYTES: u32 = 1000;
const DRAIN_BYTES_PER_TICK: u32 = 100;
const PROP_TICKS: u64 = 50;
const RTT_TICKS: u32 = 2 * PROP_TICKS as u32;
/// The first PSN: close to the 2^24 wrap, so the exchange crosses it.
const BASE: u32 = PSN_MASK - 9;

struct Outcome {
    /// The window handed to the window engine at the transition, packets.
    set_pkts: u32,
    /// The go-back-N PSN requested at the transition, if any.
    gbn: Option<u32>,
    /// In-order packets delivered before the first loss (the sender's view
    /// of the switch decisions), or the message length without loss.
    delivered_before_first_loss: u32,
    /// The engine's cw right after the transition (UQ12.20).
    cw_after_set: u32,
    /// Ticks between consecutive sends while cw < 1, with the interval the
    /// pacing timer had for each.
    paced_gaps: Vec<(u64, u32)>,
    /// When the transition happened, and the first paced send after it.
    set_at: u64,
    first_paced_at: Option<u64>,
    /// Ticks to deliver the whole message.
    done_at: u64,
    /// Not-ECT and ECT packets sent in fast start.
    not_ect: u32,
}

/// Runs one message of `msg` packets with initial window `iw` through a port
/// whose Eq. 3 threshold is `k_bytes`, with `prefill` background bytes
/// already queued at time 0.
fn run(msg: u32, iw: u32, k_bytes: u32, prefill: u32) -> Outcome {
    let wp = WindowParams {
        rtt_ticks: RTT_TICKS,
        ..WindowParams::default()
    };
    let mut fs = FastStartTable::new(1, iw).unwrap();
    let mut engine = FlowTable::new(1, wp, CW_ONE).unwrap();
    let mut pacer = PacedFlow::default();
    let mut port = WredEcnPort::new(WredParams {
        k_min_bytes: 40_000,
        k_max_bytes: 200_000,
        k_bytes,
        buf_max_bytes: 1 << 20,
        p_max_raw: 6554,
        seed: 7,
    })
    .unwrap();
    for _ in 0..prefill / PKT_BYTES {
        port.cycle(Some((PKT_BYTES, ECN_ECT0)), 0);
    }
    let mut rx = AckFlow::default();
    rx.open(BASE);
    let dist = |a: u32, b: u32| a.wrapping_sub(b) & PSN_MASK; // a - b modulo 2^24
    let (mut next, mut una) = (BASE, BASE);
    let mut to_rx: VecDeque<(u64, u32, bool, bool)> = VecDeque::new();
    let mut to_tx: VecDeque<(u64, Ack)> = VecDeque::new();
    let mut out = Outcome {
        set_pkts: u32::MAX,
        gbn: None,
        delivered_before_first_loss: msg,
        cw_after_set: 0,
        paced_gaps: vec![],
        done_at: 0,
        not_ect: 0,
        set_at: 0,
        first_paced_at: None,
    };
    let mut first_loss_seen = false;
    let mut last_paced_send: Option<u64> = None;
    for now in 0..2_000_000u64 {
        // ---- ACKs reach the sender
        while to_tx.front().is_some_and(|(t, _)| *t <= now) {
            let (_, a) = to_tx.pop_front().unwrap();
            if dist(a.psn, una) < 1 << 23 {
                una = a.psn;
            }
            if fs.flow(0).unwrap().stage == Stage::FastStart {
                let r = fs.ack(0, a.psn, a.nak);
                assert_eq!(r.err, 0, "ACK {a:?}");
                if let Some(p) = r.set_cw_pkts {
                    engine.set(0, p << CW_FRAC_BITS);
                    out.set_pkts = p;
                    out.gbn = r.go_back_n;
                    out.cw_after_set = engine.cw(0).unwrap();
                    out.set_at = now;
                    if let Some(g) = r.go_back_n {
                        next = g;
                    }
                    pacer.update(now, pace_interval(out.cw_after_set, RTT_TICKS));
                }
            } else {
                if a.nak {
                    next = a.psn; // go-back-N
                }
                if a.n > 0 {
                    let cw = engine.ack(0, a.ece, a.n).unwrap();
                    pacer.update(now, pace_interval(cw, RTT_TICKS));
                }
            }
        }
        if dist(una, BASE) == msg {
            out.done_at = now;
            break;
        }
        // ---- the sender: fast start window IW, then cw (or the pacing timer)
        let inflight = dist(next, una);
        let stage = fs.flow(0).unwrap().stage;
        let cw = engine.cw(0).unwrap();
        let may_send = dist(next, BASE) < msg
            && match stage {
                Stage::Idle => true,
                Stage::FastStart => inflight < iw,
                Stage::Stable if cw >= CW_ONE => inflight < cw >> CW_FRAC_BITS,
                Stage::Stable => {
                    let iv = pacer.interval;
                    let g = pacer.grant(now);
                    if g {
                        if let Some(t) = last_paced_send {
                            out.paced_gaps.push((now - t, iv));
                        }
                        out.first_paced_at.get_or_insert(now);
                        last_paced_send = Some(now);
                    }
                    g
                }
            };
        let pkt = if may_send {
            let psn = next;
            let last = dist(psn, BASE) == msg - 1;
            // a real header: the marker rewrites ECN and fixes the checksum
            let mut h = [
                0x4500u16, 1040, 0x1c46, 0x4000, 0x4011, 0, 0x0a00, 0x0001, 0x0a00, 0x0002,
            ];
            h[5] = ipv4::full_checksum(&h);
            let r = fs.tx(0, psn, last, h[0], h[5]);
            assert_eq!(r.err, 0);
            h[0] = r.word0;
            h[5] = r.csum;
            assert!(ipv4::verifies(&h), "the rewritten header verifies");
            if fs.flow(0).unwrap().stage == Stage::FastStart && r.ecn == ECN_NOT_ECT {
                out.not_ect += 1;
            }
            next = (next + 1) & PSN_MASK;
            Some((psn, last, r.ecn))
        } else {
            None
        };
        // ---- the switch port
        let q_before = port.occupancy_bytes();
        let d = port.cycle(
            pkt.map(|(_, _, ecn)| (PKT_BYTES, ecn)),
            DRAIN_BYTES_PER_TICK,
        );
        if let (Some((psn, last, _)), Some((dec, ecn_out))) = (pkt, d) {
            match dec {
                Decision::Forward | Decision::ForwardMarked => {
                    let depart = now + ((q_before + PKT_BYTES) / DRAIN_BYTES_PER_TICK) as u64;
                    to_rx.push_back((depart + PROP_TICKS, psn, ecn_out == 3, last));
                }
                _ => {
                    if !first_loss_seen && stage != Stage::Stable {
                        first_loss_seen = true;
                        out.delivered_before_first_loss = dist(psn, BASE);
                    }
                }
            }
        }
        // ---- the receiver: per-packet ACKs
        while to_rx.front().is_some_and(|(t, ..)| *t <= now) {
            let (_, psn, ce, last) = to_rx.pop_front().unwrap();
            let o = rx.packet(0, psn, ce, last, 1, now as u32);
            for a in [o.first, o.second].into_iter().flatten() {
                to_tx.push_back((now + PROP_TICKS, a));
            }
        }
    }
    assert!(out.done_at > 0, "the message was not delivered");
    assert_eq!(fs.flow(0).unwrap().stage, Stage::Stable);
    out
}

#[test]
fn end_to_end_fast_start_without_loss_leaves_with_iw() {
    let o = run(100, 32, 100_000, 0);
    assert_eq!(o.delivered_before_first_loss, 100, "no loss");
    assert_eq!((o.set_pkts, o.gbn), (32, None), "transition 2: cw = IW");
    assert_eq!(o.cw_after_set, 32 << CW_FRAC_BITS);
    assert_eq!(
        o.not_ect, 31,
        "the first IW - 1 packets are Not-ECT, the IW-th ECT"
    );
    eprintln!("no loss: delivered 100 packets in {} ticks", o.done_at);
}

#[test]
fn end_to_end_fast_start_with_losses_leaves_with_the_in_order_count() {
    let o = run(100, 32, 10_000, 0);
    let k = o.delivered_before_first_loss;
    assert!(k > 0 && k < 31, "the burst overflowed K after {k} packets");
    assert_eq!(
        o.set_pkts, k,
        "transition 1: cw = packets acknowledged in order before the loss"
    );
    assert_eq!(
        o.gbn,
        Some((BASE + k) & PSN_MASK),
        "go-back-N from the first lost packet"
    );
    assert_eq!(o.cw_after_set, k << CW_FRAC_BITS);
    eprintln!(
        "losses: first loss after {k} packets, cw = {k}, delivered in {} ticks",
        o.done_at
    );
}

#[test]
fn end_to_end_fast_start_into_a_full_queue_falls_to_gamma_and_is_paced() {
    // 20 KB queued ahead and K = 10 KB: every Not-ECT packet is dropped, the
    // IW-th (ECT) passes and reveals the loss of the very first packet
    let o = run(40, 32, 10_000, 20_000);
    assert_eq!(o.delivered_before_first_loss, 0);
    assert_eq!((o.set_pkts, o.gbn), (0, Some(BASE)));
    let gamma = WindowParams::default().gamma_raw();
    assert_eq!(
        o.cw_after_set, gamma,
        "a window of 0 packets is the engine's floor gamma"
    );
    // below one packet, sends are the pacing timer's: one per RTT / cw
    assert!(o.paced_gaps.len() >= 5, "{:?}", o.paced_gaps);
    // the first paced send is one interval RTT / gamma after the transition
    let iv = pace_interval(gamma, RTT_TICKS);
    assert_eq!(o.first_paced_at, Some(o.set_at + iv as u64));
    let ideal = 8.0 * RTT_TICKS as f64; // RTT / (1/8)
    assert!(
        (iv as f64 - ideal).abs() <= interval_error_bound(ideal),
        "{iv} vs {ideal}"
    );
    for &(gap, iv) in &o.paced_gaps {
        assert!(gap >= iv as u64, "a paced send came early: {gap} < {iv}");
    }
    eprintln!(
        "full queue: cw = gamma, first paced send {iv} ticks after the transition, {} paced sends \
         (gaps and intervals {:?}), delivered 40 packets in {} ticks",
        o.paced_gaps.len() + 1,
        o.paced_gaps,
        o.done_at
    );
}
