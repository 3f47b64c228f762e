//! NIC system: the generated Verilog (the NIC core with its sweep held for
//! the pacing timer, the extension decoder, the pacing timer, fast-start
//! marker, ACK generator, WRED/ECN port and their glue) against
//! `NicSystemModel`: the bus and every block's registered outputs, every
//! cycle, over proptest streams of per-cycle choices that `SysStimulus`
//! turns into bus cycles; each case drained and checked empty. What the
//! streams reached is counted on the cosimulated cases.

use ldcp_sim::nic_system::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 500_000;

fn stream() -> impl Strategy<Value = Vec<SysIn>> {
    ldcp_tests::choices(4_000..24_000).prop_map(|c| {
        ldcp_sim::from_choices(SysStimulus::default(), &c)
            .into_iter()
            .map(SysIn::from)
            .collect()
    })
}

/// What the compared cases reached: from the RTL's outputs, and from the
/// models that ran in lock step with it.
#[derive(Default, Debug)]
struct Reached {
    reads: u64,
    grants: u64,
    acks: u64,
    wred_decisions: u64,
    model: SysStats,
    core_events: u64,
}

#[test]
fn nic_system_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "nic_system",
        "cosim_nic_system",
        0x5EED_0009,
        50,
        stream(),
        || NicSystemModel::new(0, true),
        |_, o: &SysOut, c: &mut Reached| {
            c.reads += o.bus_rvalid as u64;
            c.grants += o.obs_pt_out_valid as u64;
            c.acks += o.obs_ag_out_valid as u64;
            c.wred_decisions += o.obs_wred_out_valid as u64;
        },
        |m: &NicSystemModel, c: &mut Reached| {
            c.model += m.stats();
            c.core_events += m.core().stats().events;
        },
    );
    let st = c.model;
    eprintln!(
        "nic_system cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {} reads, {} grants, {} ACKs, {} WRED decisions; models over the compared \
         cases: {st:?}, {} core events",
        t.cases,
        t.cycles,
        t.drain_cycles,
        c.reads,
        c.grants,
        c.acks,
        c.wred_decisions,
        c.core_events
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(
        c.reads > 20_000 && c.grants > 100 && c.acks > 1_500 && c.wred_decisions > 10_000,
        "{} {} {} {}",
        c.reads,
        c.grants,
        c.acks,
        c.wred_decisions
    );
    assert!(
        st.restarts > 20 && st.fs_results > 5_000 && st.fs_errors > 100,
        "{st:?}"
    );
    assert!(st.naks > 50 && st.wred.iter().all(|&d| d > 100), "{st:?}");
    assert!(
        st.overruns > 50 && st.flow_resets > 50 && st.held > 1_000 && st.handoffs > 100,
        "{st:?}"
    );
    // the loopback ran: packets sent, marked, dropped, delivered and
    // acknowledged back, rewinds by NAK and by timeout, pacing grants
    // turned into send credits, nothing lost between blocks
    assert!(
        st.loop_sent > 1_000
            && st.loop_delivered > 1_000
            && st.loop_marked > 50
            && st.loop_dropped > 10
            && st.loop_acks > 500
            && st.loop_rewinds > st.loop_timeouts
            && st.loop_timeouts > 5
            && st.loop_credits > 1_000
            && st.loop_lost == 0,
        "{st:?}"
    );
}

/// The 4,096-flow system (the ULX3S build's) against its model: 12 cases
/// of its seeded stimulus over 2^12 flows ([`ldcp_tests::cosim_4k`]); the
/// flows counted are the pacing timer's grants, the ACK generator's ACKs
/// and the fast-start marker's results.
#[test]
fn nic_system_4k_matches_model() {
    use ldcp_tests::FLOW_BITS_4K as FB;
    ldcp_tests::cosim_4k(
        "nic_system_4k",
        "cosim_nic_system_4k",
        0x5EED_0011,
        |c| {
            ldcp_sim::from_choices(SysStimulus::sized(FB), c)
                .into_iter()
                .map(SysIn::from)
                .collect()
        },
        || NicSystemModel::new_4k(0, true),
        |o: &SysOut| {
            if o.obs_pt_out_valid {
                Some(o.obs_pt_out_flow)
            } else if o.obs_ag_out_valid {
                Some(o.obs_ag_out_flow)
            } else {
                o.obs_fs_out_valid.then_some(o.obs_fs_out_flow)
            }
        },
    );
}
