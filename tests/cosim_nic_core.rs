//! NIC core: the generated Verilog (register decoder, window engine, FIFO,
//! generator, flow window, counters) against `NicCoreModel`, the bus and the
//! system taps every cycle, over proptest streams of per-cycle choices that
//! `NcStimulus` turns into bus cycles; each case drained (the generator
//! stopped, the FIFO, the flow command and the engine emptied) and checked
//! empty. What the streams reached is counted on the cosimulated cases.

use ldcp_sim::nic_core::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<NicCoreIn>> {
    ldcp_tests::choices(4_000..24_000).prop_map(|c| {
        ldcp_sim::from_choices(NcStimulus::default(), &c)
            .into_iter()
            .map(NicCoreIn::from)
            .collect()
    })
}

/// What the compared cases reached: bus reads from the RTL's outputs, the
/// rest from the models that ran in lock step with it.
#[derive(Default, Debug)]
struct Reached {
    reads: u64,
    reads_nonzero: u64,
    events: u64,
    flow_results: u64,
    dropped: u64,
    resets: u64,
    gen_cycles: u64,
    gen_borrows: u64,
}

/// Counts a compared cycle's reads.
fn observe(_: &NicCoreIn, o: &NicCoreOut, c: &mut Reached) {
    c.reads += o.bus_rvalid as u64;
    c.reads_nonzero += (o.bus_rvalid && o.bus_rdata != 0) as u64;
}

/// Adds what the model counted over a compared case.
fn finish(m: &NicCoreModel, c: &mut Reached) {
    let s = m.stats();
    c.events += s.events;
    c.flow_results += s.flow_results;
    c.dropped += s.dropped;
    c.resets += s.resets;
    c.gen_cycles += s.gen_cycles;
    c.gen_borrows += s.gen_borrows;
}

#[test]
fn nic_core_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "nic_core",
        "cosim_nic_core",
        0x5EED_0007,
        100,
        stream(),
        || NicCoreModel::new(0, true),
        observe,
        finish,
    );
    eprintln!(
        "nic_core cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(c.reads > 50_000 && c.reads_nonzero > 20_000, "{c:?}");
    assert!(
        c.events > 100_000 && c.flow_results > 1_000 && c.dropped > 100,
        "{c:?}"
    );
    assert!(
        c.resets > 5 && c.gen_cycles > 10_000 && c.gen_borrows > 10,
        "{c:?}"
    );
}

/// The 4,096-flow core (the ECP5 system's) against its model: 12 cases of
/// its seeded stimulus over 2^12 flows ([`ldcp_tests::cosim_4k`]).
#[test]
fn nic_core_4k_matches_model() {
    use ldcp_tests::FLOW_BITS_4K as FB;
    ldcp_tests::cosim_4k(
        "nic_core_4k",
        "cosim_nic_core_4k",
        0x5EED_0010,
        |c| {
            ldcp_sim::from_choices(NcStimulus::sized(FB), c)
                .into_iter()
                .map(NicCoreIn::from)
                .collect()
        },
        || NicCoreModel::sized(FB, 0, true, false),
        |o: &NicCoreOut| o.sys_upd_valid.then_some(o.sys_upd_flow),
    );
}

/// The core with the sequential window engine (`nic_core_seq`) against its
/// model, over the same streams: every source of the engine's port (the
/// reset sweep, flow commands, the generator, the FIFO) waits for its
/// ready, and a flow command's result is the first update of its flow
/// after its event was taken. Each case is drained (at the worst an event
/// per 27 cycles) and checked empty.
#[test]
fn nic_core_seq_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "nic_core_seq",
        "cosim_nic_core_seq",
        0x5EED_0022,
        60,
        stream(),
        || NicCoreModel::sized_seq(FLOW_BITS, 0, true),
        observe,
        finish,
    );
    eprintln!(
        "nic_core_seq cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= MIN_CYCLES, "only {} cycles compared", t.cycles);
    assert!(c.reads > 20_000 && c.reads_nonzero > 5_000, "{c:?}");
    // the engine takes an event per 7 to 27 cycles: fewer events, the
    // FIFO overflows under the stream's pushes, and a flow command (which
    // waits for an empty FIFO) completes less often (72 at this seed)
    assert!(
        c.events > 10_000 && c.flow_results > 50 && c.dropped > 10_000,
        "{c:?}"
    );
    assert!(c.resets > 3 && c.gen_cycles > 10_000, "{c:?}");
}
