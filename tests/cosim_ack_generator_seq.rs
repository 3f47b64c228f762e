//! The sequential ACK generator: the generated Verilog against
//! `AckGeneratorSeqModel`, every output (`in_ready` included) every cycle, over the
//! pipelined generator's proptest streams (in order with 0 to 100% CE,
//! losses and their go-back-N retransmissions, duplicates, far PSNs, opens
//! near the 2^24 wrap, ids beyond the table, m 0..=15, timeouts
//! 0..=65,535, idle stretches, resets with their sweeps), most events
//! offered while the block is busy, each case drained (every held ACK
//! flushed) and checked empty; and a source that holds each event until it
//! is taken, whose ACKs and errors must equal `AckFlow`'s, event for event.

use ldcp_sim::ack_generator::*;
use ldcp_sim::cosim::Cosim;
use proptest::prelude::*;

const FB: u32 = FPGA_FLOW_BITS as u32;
/// ACKs CI needs the proptest cases to reach.
const MIN_ACKS: u64 = 20_000;

fn stream() -> impl Strategy<Value = Vec<AgInputs>> {
    ldcp_tests::choices(4_000..16_000).prop_map(|c| ldcp_sim::from_choices(AgStimulus::new(FB), &c))
}

/// What the compared cases reached, from the ports and the model.
#[derive(Default, Debug)]
struct Reached {
    acks: u64,
    ece: u64,
    naks: u64,
    covering_several: u64,
    err_flow: u64,
    err_seq: u64,
    err_gap_repeat: u64,
    model: AckGeneratorSeqStats,
}

#[test]
fn ack_generator_seq_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "ack_generator_seq",
        "cosim_ack_generator_seq",
        0x5EED_0023,
        120,
        stream(),
        || AckGeneratorSeqModel::new(FB),
        |_, o: &AgOutputs, c: &mut Reached| {
            if o.out_valid {
                c.acks += 1;
                c.ece += o.out_ece as u64;
                c.naks += o.out_nak as u64;
                c.covering_several += (o.out_n_pkts > 1) as u64;
            }
            match o.stat_err {
                1 => c.err_flow += 1,
                2 => c.err_seq += 1,
                3 => c.err_gap_repeat += 1,
                _ => {}
            }
        },
        |m: &AckGeneratorSeqModel, c: &mut Reached| {
            let s = m.stats();
            c.model.events += s.events;
            c.model.flush_ops += s.flush_ops;
            c.model.flushed += s.flushed;
            c.model.stalls += s.stalls;
            c.model.dropped += s.dropped;
        },
    );
    eprintln!(
        "ack_generator_seq cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing \
         left in flight (every held ACK flushed); {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        c.acks >= MIN_ACKS,
        "only {} ACKs; CI needs at least {MIN_ACKS}",
        c.acks
    );
    let all = [
        c.ece,
        c.naks,
        c.covering_several,
        c.err_flow,
        c.err_seq,
        c.err_gap_repeat,
        c.model.flushed,
        c.model.stalls,
    ];
    assert!(
        all.iter().all(|&x| x > 50) && c.model.dropped > 10,
        "the streams must reach every outcome: {c:?}"
    );
    assert!(
        c.model.flush_ops >= c.model.flushed,
        "a flush op sends at most one ACK: {c:?}"
    );
}

/// A source behind the handshake: each event is held until the block takes
/// it. The RTL's ACKs and errors (checked against the model every cycle)
/// equal `AckFlow`'s, event for event: opens, in-order packets with CE and
/// message ends, losses and the go-back-N retransmissions after their NAK,
/// duplicates, ids beyond the table. The timeout (65,535 cycles) is longer
/// than the run, so no flush comes between; the drain then flushes every
/// held ACK.
#[test]
fn ack_generator_seq_equals_the_functional_model_event_for_event() {
    const FLOWS: u32 = 32;
    let cosim: Cosim<AckGeneratorSeqModel> = ldcp_tests::cosim("ack_generator_seq");
    let cfg = AgInputs {
        cfg_m_pkts: 4,
        cfg_timeout_cycles: 0xffff,
        ..Default::default()
    };
    let mut rng = ldcp_sim::SplitMix64::new(0x5EED_0024);
    let mut events: Vec<AgInputs> = (0..FLOWS)
        .map(|f| AgInputs {
            in_valid: true,
            in_open: true,
            in_flow: f,
            in_psn: (f * 0x7_1234) & PSN_MASK,
            ..cfg
        })
        .collect();
    // the sender's next PSN per flow: a loss skips one, a NAK (seen by
    // the functional model below) rewinds it; duplicates resend an old one
    let mut next: Vec<u32> = events.iter().map(|e| e.in_psn).collect();
    let mut func: Vec<AckFlow> = vec![AckFlow::default(); FLOWS as usize];
    let mut want: Vec<AckOut> = Vec::new();
    for e in &events {
        func[e.in_flow as usize].open(e.in_psn);
        want.push(AckOut::default());
    }
    for _ in 0..6_000 {
        let r = rng.next_u64();
        let f = (r % FLOWS as u64) as usize;
        let mut psn = next[f];
        if (r >> 8).is_multiple_of(40) {
            psn = (psn + 1) & PSN_MASK; // a loss before this packet
        } else if (r >> 16).is_multiple_of(50) {
            psn = psn.wrapping_sub(3) & PSN_MASK; // a duplicate
        }
        let flow = if (r >> 24).is_multiple_of(100) {
            FLOWS + 300 // beyond the table
        } else {
            f as u32
        };
        let e = AgInputs {
            in_valid: true,
            in_flow: flow,
            in_psn: psn,
            in_ce: (r >> 32).is_multiple_of(8),
            in_last: (r >> 40).is_multiple_of(10),
            ..cfg
        };
        let o = if flow as usize >= func.len() {
            AckOut {
                err: err::FLOW,
                ..Default::default()
            }
        } else {
            // T does not matter: nothing is flushed during the run
            func[f].packet(flow, psn, e.in_ce, e.in_last, cfg.cfg_m_pkts, 0)
        };
        if flow as usize == f {
            next[f] = func[f].expected;
        }
        want.push(o);
        events.push(e);
    }
    // the stimulus: each event offered until taken
    let stim = ldcp_tests::held(
        AckGeneratorSeqModel::new(FB),
        &events,
        |o: &AgOutputs| o.in_ready,
        |_| true,
    );
    let offered = stim.len();
    let mut ready = true;
    let mut taken = Vec::new();
    let mut acks = Vec::new();
    let mut errs = Vec::new();
    let (st, m) = cosim
        .run_observed(
            AckGeneratorSeqModel::new(FB),
            || stim.iter().cloned(),
            "held-source",
            &mut |i: &AgInputs, o: &AgOutputs| {
                if i.in_valid && ready {
                    taken.push(*i);
                }
                ready = o.in_ready;
                if o.out_valid {
                    acks.push(Ack {
                        flow: o.out_flow,
                        psn: o.out_psn,
                        ece: o.out_ece,
                        n: o.out_n_pkts,
                        nak: o.out_nak,
                    });
                }
                if o.stat_err != 0 {
                    errs.push(o.stat_err);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(taken, events, "every event taken once, in order");
    let want_acks: Vec<Ack> = want
        .iter()
        .flat_map(|o| o.first.into_iter().chain(o.second))
        .collect();
    let want_errs: Vec<u8> = want.iter().map(|o| o.err).filter(|&e| e != 0).collect();
    // the run's ACKs, then the drain's flushes of what was held at the end
    assert!(
        acks.len() >= want_acks.len(),
        "{} ACKs, {} wanted",
        acks.len(),
        want_acks.len()
    );
    for (k, (got, w)) in acks.iter().zip(&want_acks).enumerate() {
        assert_eq!(got, w, "ACK {k}");
    }
    let held: Vec<Ack> = func
        .iter()
        .enumerate()
        .filter(|(_, s)| s.pending > 0)
        .map(|(f, s)| Ack {
            flow: f as u32,
            psn: s.expected,
            ece: false,
            n: s.pending,
            nak: false,
        })
        .collect();
    let mut flushed = acks[want_acks.len()..].to_vec();
    flushed.sort_by_key(|a| a.flow);
    assert_eq!(flushed, held, "the drain flushes exactly what was held");
    assert_eq!(errs, want_errs, "the errors, in order");
    for (f, s) in func.iter().enumerate() {
        let got = m.flow(f).expect("a flow of the table");
        assert_eq!(
            got.expected, s.expected,
            "flow {f}'s expected PSN at the end"
        );
        assert_eq!(got.nak_sent, s.nak_sent, "flow {f}'s gap flag at the end");
    }
    let naks = acks.iter().filter(|a| a.nak).count();
    let ece = acks.iter().filter(|a| a.ece).count();
    let several = acks.iter().filter(|a| a.n > 1).count();
    eprintln!(
        "ack_generator_seq held source: {} events in {offered} cycles offered ({:.4} per \
         cycle), {} cycles with the drain, {} ACKs ({naks} NAKs, {ece} ECE, {several} \
         covering several packets; {} flushed by the drain), {} errors",
        events.len(),
        events.len() as f64 / offered as f64,
        st.cycles,
        acks.len(),
        flushed.len(),
        errs.len()
    );
    assert!(
        naks > 50 && ece > 300 && several > 300 && errs.len() > 100 && !flushed.is_empty(),
        "every outcome reached"
    );
    // each event but the last occupies the block for SEQ_OP_CYCLES
    assert_eq!(offered, (events.len() - 1) * SEQ_OP_CYCLES + 1);
}
