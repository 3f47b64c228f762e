use super::*;
use crate::SplitMix64;

/// A random valid IPv4 header (20 bytes as 10 words) with its checksum.
fn header(rng: &mut SplitMix64) -> [u16; 10] {
    let mut h = [0u16; 10];
    for w in h.iter_mut() {
        *w = rng.next_u64() as u16;
    }
    h[0] = 0x4500 | (h[0] & 0xff);
    h[5] = 0;
    h[5] = ipv4::full_checksum(&h);
    h
}

/// Rewrites the ECN field the way the block does and returns the header.
fn rewrite(h: &[u16; 10], ecn: u8) -> [u16; 10] {
    let mut o = *h;
    o[0] = ipv4::with_ecn(h[0], ecn);
    o[5] = ipv4::incremental(h[5], h[0], o[0]);
    o
}

#[test]
fn fast_start_marker_incremental_checksum_equals_full_recomputation() {
    let mut rng = SplitMix64::new(0xC5C5);
    for _ in 0..200_000 {
        let h = header(&mut rng);
        assert!(ipv4::verifies(&h));
        for ecn in 0..4u8 {
            let o = rewrite(&h, ecn);
            assert_eq!(o[5], ipv4::full_checksum(&o), "header {h:04x?} ecn {ecn}");
            assert!(ipv4::verifies(&o));
        }
    }
}

#[test]
fn fast_start_marker_checksum_corner_cases_0000_and_ffff() {
    // headers whose checksum is 0x0000 before or after the rewrite: search by
    // adjusting the identification word until the sum hits 0xFFFF
    let mut rng = SplitMix64::new(7);
    for _ in 0..2_000 {
        let mut h = header(&mut rng);
        for target_after in [false, true] {
            let ecn = (rng.next_u64() & 3) as u8;
            // choose word 2 so that the (pre- or post-rewrite) sum is 0xFFFF
            let probe0 = if target_after {
                ipv4::with_ecn(h[0], ecn)
            } else {
                h[0]
            };
            let mut g = h;
            g[0] = probe0;
            g[2] = 0;
            g[5] = 0;
            let rest = ipv4::ones_sum(g.iter().copied());
            h[2] = !rest; // rest + ~rest = 0xFFFF
            h[5] = 0;
            h[5] = ipv4::full_checksum(&h);
            let o = rewrite(&h, ecn);
            if target_after {
                assert_eq!(ipv4::full_checksum(&o), 0x0000);
            } else {
                assert_eq!(h[5], 0x0000);
            }
            assert_eq!(o[5], ipv4::full_checksum(&o), "header {h:04x?} ecn {ecn}");
            assert!(ipv4::verifies(&o));
        }
    }
    // 0xFFFF is never a computed checksum (it needs an all-zero header), so
    // a rewrite never produces it either
    let mut rng = SplitMix64::new(8);
    for _ in 0..100_000 {
        let h = header(&mut rng);
        assert_ne!(h[5], 0xffff);
        assert_ne!(rewrite(&h, (rng.next_u64() & 3) as u8)[5], 0xffff);
    }
    // Eq. 3 on an unchanged word is the identity, except that -0 (0xFFFF),
    // which no valid header carries, becomes +0
    for hc in [0x0000u16, 0x0001, 0x8000, 0xfffe] {
        assert_eq!(ipv4::incremental(hc, 0x4502, 0x4502), hc);
    }
    assert_eq!(ipv4::incremental(0xffff, 0x4502, 0x4502), 0x0000);
}

fn ipv4_w0() -> u16 {
    0x4500
}

/// Sends `k` new packets from `psn` and returns their codepoints.
fn send(f: &mut FsFlow, psn: u32, k: u32, last_at: Option<u32>, iw: u32) -> Vec<u8> {
    (0..k)
        .map(|j| {
            let r = f.tx(
                (psn + j) & PSN_MASK,
                Some(j + 1) == last_at,
                ipv4_w0(),
                0x1234,
                iw,
            );
            assert_eq!(r.err, err::NONE);
            r.ecn
        })
        .collect()
}

#[test]
fn fast_start_marker_first_rtt_not_ect_iw_th_packet_ect() {
    let mut f = FsFlow::default();
    let e = send(&mut f, 100, 12, None, 8);
    assert_eq!(&e[..7], &[ECN_NOT_ECT; 7]);
    assert_eq!(&e[7..], &[ECN_ECT0; 5], "IW-th and later packets are ECT");
    assert_eq!(f.stage, Stage::FastStart);
    // a message shorter than IW: its last packet is ECT and ends the burst
    let mut f = FsFlow::default();
    let e = send(&mut f, 0, 5, Some(3), 8);
    assert_eq!(
        e,
        vec![ECN_NOT_ECT, ECN_NOT_ECT, ECN_ECT0, ECN_ECT0, ECN_ECT0]
    );
    assert_eq!(f.fs_len, 3);
    // a zero-length message is one packet with last set
    let mut f = FsFlow::default();
    assert_eq!(send(&mut f, 9, 1, Some(1), 8), vec![ECN_ECT0]);
    assert_eq!(f.fs_len, 1);
    // IW = 1: the first packet is the last fast-start packet; IW 0 acts as 1
    for iw in [0, 1] {
        let mut f = FsFlow::default();
        assert_eq!(send(&mut f, 9, 2, None, iw), vec![ECN_ECT0, ECN_ECT0]);
    }
    // stable: everything ECT
    let mut f = FsFlow {
        stage: Stage::Stable,
        ..Default::default()
    };
    assert_eq!(send(&mut f, 1, 3, None, 100), vec![ECN_ECT0; 3]);
}

#[test]
fn fast_start_marker_transitions_into_stable_stage() {
    // (2) all IW acknowledged: cw = IW
    let mut f = FsFlow::default();
    send(&mut f, 50, 10, None, 10);
    let r = f.ack(55, false, 10);
    assert_eq!(
        (r.set_cw_pkts, f.stage, f.acked),
        (None, Stage::FastStart, 5)
    );
    let r = f.ack(60, false, 10);
    assert_eq!(
        (r.set_cw_pkts, r.go_back_n, f.stage),
        (Some(10), None, Stage::Stable)
    );
    assert_eq!(f.acked, 10);
    // (1) loss: cw = packets acknowledged in order before it, go-back-N from e
    let mut f = FsFlow::default();
    send(&mut f, 50, 10, None, 10);
    f.ack(53, false, 10);
    let r = f.ack(54, true, 10);
    assert_eq!(
        (r.set_cw_pkts, r.go_back_n, f.stage),
        (Some(4), Some(54), Stage::Stable)
    );
    // the first packet lost: 0, which the engine floors at gamma
    let mut f = FsFlow::default();
    send(&mut f, 50, 10, None, 10);
    assert_eq!(f.ack(50, true, 10).set_cw_pkts, Some(0));
    // stable: ACKs and NAKs are the engine's, nothing happens here
    assert_eq!(f.ack(55, true, 10), AckResult::default());
    // a short message acknowledged without loss leaves with IW
    let mut f = FsFlow::default();
    send(&mut f, 0, 3, Some(3), 10);
    assert_eq!(f.ack(3, false, 10).set_cw_pkts, Some(10));
}

#[test]
fn fast_start_marker_psn_wraps_at_2_pow_24() {
    let start = PSN_MASK - 3;
    let mut f = FsFlow::default();
    let e = send(&mut f, start, 10, None, 8);
    assert_eq!(e.iter().filter(|&&c| c == ECN_NOT_ECT).count(), 7);
    assert_eq!(f.next, 6);
    // a retransmission across the wrap is in window
    assert_eq!(f.tx(PSN_MASK, false, 0x4500, 0, 8).err, err::NONE);
    assert_eq!(f.tx(2, false, 0x4500, 0, 8).err, err::NONE);
    assert_eq!(f.tx(7, false, 0x4500, 0, 8).err, err::SEQ, "beyond next");
    // e = 4 is 8 packets after PSN 2^24 - 4: the whole IW
    assert_eq!(f.ack(3, false, 8).set_cw_pkts, None);
    assert_eq!(f.ack(4, false, 8).set_cw_pkts, Some(8));
}

#[test]
fn fast_start_marker_bad_input_is_refused_and_counted() {
    let mut t = FastStartTable::new(4, 16).unwrap();
    assert!(FastStartTable::new(4, 0).unwrap_err().contains("1..=4095"));
    assert!(FastStartTable::new(4, 4096).is_err());
    // a flow id beyond the table: header unchanged, error 1
    let r = t.tx(4, 0, false, 0x4501, 0xabcd);
    assert_eq!((r.word0, r.csum, r.err), (0x4501, 0xabcd, err::FLOW));
    assert_eq!(t.ack(99, 0, false).err, err::FLOW);
    assert!(!t.reset_flow(4));
    // not IPv4: unchanged, no state change
    let r = t.tx(0, 0, false, 0x6000, 0x1111);
    assert_eq!((r.word0, r.csum, r.err), (0x6000, 0x1111, err::NOT_IPV4));
    assert_eq!(t.flow(0).unwrap().stage, Stage::Idle);
    assert_eq!(t.tx(0, 0, false, 0x4400, 0).err, err::NOT_IPV4, "IHL 4");
    // ACK of an idle flow, ACK beyond what was sent, PSN far outside
    assert_eq!(t.ack(1, 5, false).err, err::SEQ);
    t.tx(1, 1000, false, 0x4500, 0);
    t.tx(1, 1001, false, 0x4500, 0);
    let before = *t.flow(1).unwrap();
    assert_eq!(t.ack(1, 1003, false).err, err::SEQ);
    assert_eq!(t.ack(1, 1000 + (1 << 23), true).err, err::SEQ);
    assert_eq!(t.tx(1, 5_000_000, false, 0x4500, 0).err, err::SEQ);
    assert_eq!(*t.flow(1).unwrap(), before, "refused events change nothing");
    assert_eq!(t.errors, [0, 3, 4, 2]);
    // a reset flow starts a new fast start
    assert!(t.reset_flow(1));
    assert_eq!(t.tx(1, 7, false, 0x4500, 0).ecn, ECN_NOT_ECT);
    assert_eq!(t.flow(1).unwrap().base, 7);
}

#[test]
fn fast_start_marker_model_latency_ready_and_sweep() {
    let mut m = FastStartMarkerModel::new(3);
    let tx = FsInputs {
        in_valid: true,
        in_kind: kind::TX,
        in_flow: 2,
        in_psn: 10,
        in_word0: 0x4500,
        cfg_iw_pkts: 4,
        ..Default::default()
    };
    m.tick(&tx);
    let mut edges = 1;
    while !m.outputs().out_valid {
        assert!(edges < 10, "no result");
        m.tick(&FsInputs::default());
        edges += 1;
    }
    assert_eq!(
        edges, LATENCY_CYCLES,
        "the result shows LATENCY_CYCLES edges after the event"
    );
    let o = m.outputs();
    assert!(o.in_ready && o.out_flow == 2 && o.out_stage == 1);
    m.tick(&FsInputs {
        reset: true,
        ..Default::default()
    });
    for c in 0..8 {
        assert!(!m.outputs().in_ready, "sweep cycle {c}");
        m.tick(&tx); // ignored
    }
    assert!(m.outputs().in_ready);
    m.tick(&FsInputs::default());
    assert!(
        !m.outputs().out_valid,
        "events during the sweep are ignored"
    );
    assert_eq!(m.flow(2).unwrap().stage, Stage::Idle);
}
