//! The sequential window engine: the generated Verilog against
//! `WindowEngineSeqModel`, every output every cycle (`in_ready` among them), over
//! the pipelined engine's proptest segments (random flows, same-flow
//! bursts, all-marked and all-unmarked runs, n up to 15, SETs to gamma, 1
//! and cw_max, illegal parameters, idle cycles and resets), most events
//! offered while the engine is busy; and a source that holds each event
//! until it is taken, whose updates must equal `FlowTable` event for event.

use ldcp_sim::cosim::Cosim;
use ldcp_sim::window_engine::*;
use proptest::prelude::*;

const FLOW_BITS: u32 = 8;
/// Updates CI needs the proptest cases to reach.
const MIN_UPDATES: u64 = 30_000;

/// What the compared cases reached, from the ports.
#[derive(Default)]
struct Reached {
    offered: u64,
    updates: u64,
    model: WindowEngineSeqStats,
}

#[test]
fn window_engine_seq_matches_model() {
    let strategy =
        proptest::collection::vec(ldcp_tests::window_segment(), 1..5).prop_map(|s| s.concat());
    let (t, c) = ldcp_tests::cosim_cases(
        "window_engine_seq",
        "cosim_window_engine_seq",
        0x5EED_0020,
        600,
        strategy,
        || WindowEngineSeqModel::new(FLOW_BITS),
        |i: &WsInputs, o: &WsOutputs, c: &mut Reached| {
            c.offered += (i.in_valid && !i.reset) as u64;
            c.updates += o.out_valid as u64;
        },
        |m: &WindowEngineSeqModel, c: &mut Reached| c.model += m.stats(),
    );
    eprintln!(
        "window_engine_seq cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing \
         left in flight; {} events offered, {} taken, {} updates ({} increases, {} below one \
         packet, {} without the multiply), {} dropped by a reset",
        t.cases,
        t.cycles,
        t.drain_cycles,
        c.offered,
        c.model.events,
        c.updates,
        c.model.increases,
        c.model.paced,
        c.model.short,
        c.model.dropped
    );
    assert!(
        c.updates >= MIN_UPDATES,
        "only {} updates; CI needs at least {MIN_UPDATES}",
        c.updates
    );
    assert_eq!(
        c.updates, c.model.updates,
        "updates at the ports vs the model's"
    );
    assert_eq!(
        c.model.events,
        c.model.updates + c.model.dropped,
        "every taken event is output or dropped by a reset"
    );
    assert!(
        c.model.increases > 5_000
            && c.model.paced > 1_000
            && c.model.short > 1_000
            && c.model.dropped > 10,
        "{:?}",
        c.model
    );
}

/// A source behind the handshake: each event is held until the engine
/// takes it. The RTL's updates (checked against the model every cycle)
/// equal `FlowTable`'s, event for event, and so do the tables at the end.
#[test]
fn window_engine_seq_equals_the_functional_model_event_for_event() {
    let cosim: Cosim<WindowEngineSeqModel> = ldcp_tests::cosim("window_engine_seq");
    let p = WindowParams {
        gamma_shift: 4,
        cw_max_raw: 200 * CW_ONE,
        ..WindowParams::default()
    };
    // 4,000 events over 16 flows: unmarked runs, then marked runs, so cw
    // climbs, falls below one packet and climbs back
    let mut events = Vec::new();
    let mut rng = ldcp_sim::SplitMix64::new(0x5EED_0021);
    for k in 0..4_000u64 {
        let r = rng.next_u64();
        let marked_phase = (k / 500) % 2 == 1;
        let ece = if marked_phase {
            !r.is_multiple_of(4)
        } else {
            r.is_multiple_of(50)
        };
        events.push(WsInputs {
            in_valid: true,
            in_flow: (r >> 8) as u32 % 16,
            in_set: (r >> 20).is_multiple_of(200),
            in_ece: ece,
            in_n_pkts: 1 + ((r >> 24) % 15) as u32,
            in_cw: ((r >> 32) as u32) % (300 * CW_ONE),
            ..WeInputs::idle(&p)
        });
    }
    // the stimulus: each event offered until taken
    let stim = ldcp_tests::held(
        WindowEngineSeqModel::new(FLOW_BITS),
        &events,
        |o: &WsOutputs| o.in_ready,
        |_| true,
    );
    let mut table = FlowTable::new(1 << FLOW_BITS, p, CW_ONE).expect("legal parameters");
    let mut ready = true;
    let mut taken = Vec::new();
    let mut outs = Vec::new();
    let (st, m) = cosim
        .run_observed(
            WindowEngineSeqModel::new(FLOW_BITS),
            || stim.iter().cloned(),
            "held-source",
            &mut |i: &WsInputs, o: &WsOutputs| {
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
    assert_eq!(taken.len(), events.len(), "every event taken once");
    assert_eq!(outs.len(), events.len(), "one update per event");
    for (k, (i, o)) in taken.iter().zip(&outs).enumerate() {
        assert_eq!(i, &events[k], "event {k} taken in order");
        let f = i.in_flow as usize;
        let want = if i.in_set {
            table.set(f, i.in_cw);
            table.cw(f).expect("a flow of the table")
        } else {
            table
                .ack(f, i.in_ece, i.in_n_pkts)
                .expect("a flow of the table")
        };
        assert_eq!(
            (o.out_flow, o.out_cw),
            (i.in_flow, want),
            "event {k}: {i:?}"
        );
        assert_eq!(
            o.out_interval_ticks,
            pace_interval(want, p.rtt_ticks),
            "event {k}"
        );
    }
    for f in 0..16 {
        assert_eq!(m.table(f), table.cw(f), "flow {f} at the end");
    }
    let below = outs.iter().filter(|o| o.out_cw < CW_ONE).count();
    let above = outs.iter().filter(|o| o.out_cw > 4 * CW_ONE).count();
    eprintln!(
        "window_engine_seq held source: {} events, {} cycles ({} of drain), {:.4} events per \
         cycle, {below} updates below one packet, {above} above four, {} without the multiply",
        events.len(),
        st.cycles,
        st.drain_cycles,
        events.len() as f64 / stim.len() as f64,
        m.stats().short
    );
    assert!(
        below > 200 && above > 200,
        "{below} below 1, {above} above 4"
    );
    // each event but the last occupies the engine for its latency: 27
    // cycles with the multiply, 7 without
    let short = m.stats().short as usize;
    let full = (events.len() - short) * SEQ_LATENCY_CYCLES + short * SEQ_SHORT_LATENCY_CYCLES + 1;
    assert!(
        stim.len() == full - SEQ_LATENCY_CYCLES || stim.len() == full - SEQ_SHORT_LATENCY_CYCLES,
        "{} cycles offered, {short} short updates",
        stim.len()
    );
    assert!(short > 500, "{short} short updates");
}
