//! The sequential fast-start marker: the generated Verilog against
//! `FastStartMarkerSeqModel`, every output (`in_ready` included) every cycle, over the
//! pipelined marker's proptest streams (in-sequence transmits of short and
//! long messages, ACKs within and beyond the window, NAKs,
//! retransmissions, flow resets, PSNs across the 2^24 wrap, ids beyond the
//! table, non-IPv4 headers, IW 0, 1 and 4,095, idle cycles, block resets
//! with their sweeps), each event held by its source until taken, each case
//! drained and checked empty; and the results of such a held stream equal
//! `FastStartTable`'s (the functional model), event for event.

use ldcp_sim::cosim::Cosim;
use ldcp_sim::fast_start_marker::*;
use proptest::prelude::*;

const FB: u32 = FPGA_FLOW_BITS as u32;
/// Results CI needs the proptest cases to reach.
const MIN_RESULTS: u64 = 100_000;

/// A source behind the handshake ([`ldcp_tests::held`]): each event of
/// `events` offered until the block takes it; idle cycles and resets pass
/// as they are.
fn held(events: &[FsInputs]) -> Vec<FsInputs> {
    ldcp_tests::held(
        FastStartMarkerSeqModel::new(FB),
        events,
        |o: &FsOutputs| o.in_ready,
        |e| e.in_valid && !e.reset,
    )
}

fn stream() -> impl Strategy<Value = Vec<FsInputs>> {
    ldcp_tests::choices(1_000..4_000)
        .prop_map(|c| held(&ldcp_sim::from_choices(FsStimulus::new(FB), &c)))
}

/// What the compared cases reached, from the ports and the model.
#[derive(Default, Debug)]
struct Reached {
    not_ect: u64,
    ect: u64,
    sets: u64,
    gbn: u64,
    err_flow: u64,
    err_seq: u64,
    err_ipv4: u64,
    results: u64,
    model: FastStartMarkerSeqStats,
}

#[test]
fn fast_start_marker_seq_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "fast_start_marker_seq",
        "cosim_fast_start_marker_seq",
        0x5EED_0025,
        150,
        stream(),
        || FastStartMarkerSeqModel::new(FB),
        |_, o: &FsOutputs, c: &mut Reached| {
            if o.out_valid {
                c.results += 1;
                let tx_ok = o.out_kind == kind::TX && o.out_err == 0;
                c.not_ect += (tx_ok && o.out_ecn == ECN_NOT_ECT) as u64;
                c.ect += (tx_ok && o.out_ecn == ECN_ECT0) as u64;
                c.sets += o.out_set as u64;
                c.gbn += o.out_gbn as u64;
                c.err_flow += (o.out_err == err::FLOW) as u64;
                c.err_seq += (o.out_err == err::SEQ) as u64;
                c.err_ipv4 += (o.out_err == err::NOT_IPV4) as u64;
            }
        },
        |m: &FastStartMarkerSeqModel, c: &mut Reached| {
            let s = m.stats();
            c.model.events += s.events;
            c.model.refused += s.refused;
            c.model.dropped += s.dropped;
        },
    );
    eprintln!(
        "fast_start_marker_seq cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing \
         left in flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        c.results >= MIN_RESULTS,
        "only {} results; CI needs at least {MIN_RESULTS}",
        c.results
    );
    assert_eq!(
        c.model.events,
        c.results + c.model.dropped,
        "every event taken gives one result, or is dropped by a reset"
    );
    let all = [
        c.not_ect,
        c.ect,
        c.sets,
        c.gbn,
        c.err_flow,
        c.err_seq,
        c.err_ipv4,
        c.model.refused,
    ];
    assert!(
        all.iter().all(|&x| x > 100) && c.model.dropped > 0,
        "the streams must reach every outcome: {c:?}"
    );
}

/// A held stream without block resets: every result equals
/// `FastStartTable`'s for its event (codepoint, rewritten header and
/// checksum, error, window hand-off, go-back-N, stage), and the tables
/// agree at the end; each event but the last occupies the block for
/// `SEQ_LATENCY_CYCLES`.
#[test]
fn fast_start_marker_seq_equals_the_functional_model_event_for_event() {
    const IW: u32 = 16;
    let cosim: Cosim<FastStartMarkerSeqModel> = ldcp_tests::cosim("fast_start_marker_seq");
    let mut rng = ldcp_sim::SplitMix64::new(0x5EED_0026);
    let choices: Vec<ldcp_sim::Choice> = (0..16_000)
        .map(|_| std::array::from_fn(|_| rng.next_u64()))
        .collect();
    let events: Vec<FsInputs> = ldcp_sim::from_choices(FsStimulus::new(FB), &choices)
        .into_iter()
        .filter(|e| e.in_valid && !e.reset)
        .map(|e| FsInputs {
            cfg_iw_pkts: IW,
            ..e
        })
        .take(8_000)
        .collect();
    assert_eq!(events.len(), 8_000);
    let input = held(&events);
    let mut table = FastStartTable::new(1 << FB, IW).expect("a legal IW");
    let mut ready = true;
    let mut taken = Vec::new();
    let mut outs = Vec::new();
    let (st, m) = cosim
        .run_observed(
            FastStartMarkerSeqModel::new(FB),
            || input.iter().cloned(),
            "held-source",
            &mut |i: &FsInputs, o: &FsOutputs| {
                if i.in_valid && ready {
                    taken.push(*i);
                }
                ready = o.in_ready;
                if o.out_valid {
                    outs.push(*o);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(taken, events, "every event taken once, in order");
    assert_eq!(outs.len(), events.len(), "one result per event");
    let (mut sets, mut not_ect) = (0, 0);
    for (k, (e, o)) in events.iter().zip(&outs).enumerate() {
        let f = e.in_flow as usize;
        let psn = e.in_psn & PSN_MASK;
        match e.in_kind {
            kind::TX => {
                let r = table.tx(f, e.in_psn, e.in_last, e.in_word0, e.in_csum);
                assert_eq!(
                    (o.out_ecn, o.out_word0, o.out_csum, o.out_err, o.out_psn),
                    (r.ecn, r.word0, r.csum, r.err, psn),
                    "event {k}: {e:?}"
                );
                not_ect += (r.err == 0 && r.ecn == ECN_NOT_ECT) as u32;
            }
            kind::ACK | kind::NAK => {
                let r = table.ack(f, e.in_psn, e.in_kind == kind::NAK);
                assert_eq!(
                    (o.out_set, o.out_cw_pkts, o.out_gbn, o.out_err, o.out_psn),
                    (
                        r.set_cw_pkts.is_some(),
                        r.set_cw_pkts.unwrap_or(0),
                        r.go_back_n.is_some(),
                        r.err,
                        psn
                    ),
                    "event {k}: {e:?}"
                );
                sets += r.set_cw_pkts.is_some() as u32;
            }
            _ => {
                let ok = table.reset_flow(f);
                assert_eq!(o.out_err, if ok { 0 } else { err::FLOW }, "event {k}");
            }
        }
        let stage = table.flow(f).map_or(0, |s| s.stage as u8);
        assert_eq!(
            (o.out_kind, o.out_flow, o.out_stage),
            (e.in_kind & 3, e.in_flow, stage),
            "event {k}"
        );
    }
    for f in 0..1usize << FB {
        let (a, b) = (m.flow(f).expect("a flow"), table.flow(f).expect("a flow"));
        assert_eq!(
            (a.stage, a.base, a.next, a.fs_len),
            (b.stage, b.base, b.next, b.fs_len),
            "flow {f} at the end"
        );
    }
    eprintln!(
        "fast_start_marker_seq held source: {} events in {} cycles offered ({:.4} per cycle), \
         {} cycles with the drain; {sets} window hand-offs, {not_ect} Not-ECT transmits, {} \
         errors",
        events.len(),
        input.len(),
        events.len() as f64 / input.len() as f64,
        st.cycles,
        table.errors.iter().sum::<u64>()
    );
    assert!(
        sets > 20 && not_ect > 100,
        "{sets} hand-offs, {not_ect} Not-ECT"
    );
    assert_eq!(input.len(), (events.len() - 1) * SEQ_LATENCY_CYCLES + 1);
}
