//! The window engine: the generated Verilog against `WindowEngineModel`,
//! every output every cycle, over proptest streams of random flows,
//! same-flow bursts, all-marked and all-unmarked runs, n up to 15, SETs to
//! gamma, 1 and cw_max, idle cycles and resets; and the 4,096-flow build
//! over the seeded stream.

use ldcp_sim::cosim::Cosim;
use ldcp_sim::window_engine::*;
use proptest::prelude::*;

const MIN_EVENTS: u64 = 1_000_000;
const FLOW_BITS: u32 = 8;

/// What the compared cases reached: from the RTL's outputs, and from the
/// model's own counts over the same compared cycles.
#[derive(Default)]
struct Reached {
    events: u64,
    updates: u64,
    packets_out: u64,
    model: WeStats,
}

#[test]
fn window_engine_matches_model() {
    let strategy =
        proptest::collection::vec(ldcp_tests::window_segment(), 1..5).prop_map(|s| s.concat());
    let (t, c) = ldcp_tests::cosim_cases(
        "window_engine",
        "cosim_window_engine",
        0x5EED_0003,
        400,
        strategy,
        || WindowEngineModel::new(FLOW_BITS),
        |i: &WeInputs, o: &WeOutputs, c: &mut Reached| {
            // an event in a reset cycle is dropped, never taken
            c.events += (i.in_valid && !i.reset) as u64;
            if o.out_valid {
                c.updates += 1;
                c.packets_out += (o.out_n_u_pkts + o.out_n_m_pkts) as u64;
            }
        },
        |m: &WindowEngineModel, c: &mut Reached| c.model += m.stats(),
    );
    eprintln!(
        "window_engine cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {} events, {} updates ({} merged two or more ACKs, {} of them mixed), {} ACKs \
         merged into an earlier slot, {} packets applied",
        t.cases,
        t.cycles,
        t.drain_cycles,
        c.events,
        c.updates,
        c.model.merged_updates,
        c.model.mixed_updates,
        c.model.merged_events,
        c.packets_out
    );
    assert!(
        c.events >= MIN_EVENTS,
        "only {} events; CI needs at least {MIN_EVENTS}",
        c.events
    );
    assert_eq!(
        c.events, c.model.events,
        "events at the ports vs taken by the model"
    );
    // merging happened, in the window's both forms
    assert!(
        c.model.merged_updates > 10_000 && c.model.mixed_updates > 1_000,
        "{:?}",
        c.model
    );
}

/// The 4,096-flow build, over the CLI's seeded stream, drained.
#[test]
fn window_engine_4k_matches_model_on_the_seeded_stream() {
    let cosim: Cosim<WindowEngineModel> = ldcp_tests::cosim("window_engine_4k");
    let p = WindowParams::default();
    let (st, m) = cosim
        .run_iter(
            WindowEngineModel::new(12),
            || stimulus(11, 12, p).take(200_000),
            "seed-11",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let s = m.stats();
    eprintln!(
        "window_engine_4k cosim: {} cycles ({} of drain), {s:?}",
        st.cycles, st.drain_cycles
    );
    assert!(s.updates > 50_000 && s.merged_updates > 1_000, "{s:?}");
}

/// A case proptest once found, kept as data (`tests/regressions/`): it is
/// replayed exactly, then drained.
#[test]
fn window_engine_matches_model_on_a_recorded_case() {
    let text = include_str!("regressions/window_engine_ebca7e1.txt");
    let rows: Vec<Vec<u64>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .filter(|w| *w != "params")
                .map(|w| w.parse().expect("a number"))
                .collect()
        })
        .collect();
    let (p, cycles) = rows.split_first().expect("the parameters line first");
    let params = WindowParams {
        alpha_raw: p[0] as u16,
        beta_raw: p[1] as u16,
        gamma_shift: p[2] as u8,
        cw_max_raw: p[3] as u32,
        rtt_ticks: p[4] as u32,
    };
    let stim: Vec<WeInputs> = cycles
        .iter()
        .map(|c| WeInputs {
            reset: c[0] != 0,
            in_valid: c[1] != 0,
            in_flow: c[2] as u32,
            in_set: c[3] != 0,
            in_ece: c[4] != 0,
            in_n_pkts: c[5] as u32,
            in_cw: c[6] as u32,
            ..WeInputs::idle(&params)
        })
        .collect();
    let cosim: Cosim<WindowEngineModel> = ldcp_tests::cosim("window_engine");
    let (st, m) = cosim
        .run_iter(
            WindowEngineModel::new(8),
            || stim.iter().cloned(),
            "ebca7e1",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "recorded case: {} cycles ({} of drain), {:?}",
        st.cycles,
        st.drain_cycles,
        m.stats()
    );
    assert_eq!(stim.len(), 910);
    assert!(m.stats().updates > 500, "{:?}", m.stats());
}
