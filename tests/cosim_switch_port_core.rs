//! The switch port cores at the register bus, the P node's (the switch
//! decoder, the WRED/ECN port, the Fast CNP trigger behind it and its
//! descriptor queue, the packet staging) and the PE's (the decoder, the
//! port, tunnel ECN ingress and egress, END.CON, the staging): the
//! generated Verilog against `SwitchCoreModel` of its role, the bus every
//! cycle, over proptest streams of per-cycle choices that `SwitchStimulus`
//! turns into bus cycles (WRED/ECN packets and parameters, legal or not;
//! reads of every offset; CORE_RESET; staged headers; END.CON SIDs; tunnel
//! modes; the draft-001 blocks' packets; Fast CNP intervals; descriptor
//! pops and reads); each case drained and checked empty. The board test
//! (`cosim_switch_board_core`) carries the same cores behind the UART
//! bridge, a few thousand bus operations; here they get millions.

use ldcp_sim::switch_board::{
    Draft001Counts, SwitchCoreIn, SwitchCoreModel, SwitchRole, SwitchStimulus,
};
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases, per role.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<SwitchCoreIn>> {
    ldcp_tests::choices(4_000..24_000).prop_map(|c| {
        ldcp_sim::from_choices(SwitchStimulus::default(), &c)
            .into_iter()
            .map(SwitchCoreIn::from)
            .collect()
    })
}

/// What the compared cases reached: bus reads from the RTL's outputs, the
/// blocks' decisions from the models that ran in lock step with it.
#[derive(Default, Debug)]
struct Reached {
    reads: u64,
    reads_nonzero: u64,
    draft001: Draft001Counts,
}

fn role_matches_model(role: SwitchRole, block: &str, test: &'static str, seed: u64) -> Reached {
    let (t, c) = ldcp_tests::cosim_cases(
        block,
        test,
        seed,
        100,
        stream(),
        || SwitchCoreModel::of_role(0, true, role),
        |_, o, c: &mut Reached| {
            c.reads += o.bus_rvalid as u64;
            c.reads_nonzero += (o.bus_rvalid && o.bus_rdata != 0) as u64;
        },
        |m, c| c.draft001 += m.draft001_counts(),
    );
    eprintln!(
        "{block} cosim ({role:?}): {} cases, {} cycles ({} of drain), 0 mismatches, nothing left \
         in flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert!(c.reads > 10_000 && c.reads_nonzero > 1_000, "{c:?}");
    c
}

#[test]
fn switch_port_core_matches_model() {
    let c = role_matches_model(
        SwitchRole::P,
        "switch_port_core",
        "cosim_switch_port_core",
        0x5EED_0010,
    );
    let d = c.draft001;
    // the trigger sent, suppressed and refused; the queue was popped and
    // filled until it lost descriptors; the PE's blocks are absent
    assert!(
        d.fc_sent > 1_000
            && d.fc_suppressed > 1_000
            && d.fc_unparsed > 100
            && d.fc_popped > 500
            && d.fc_lost > 0,
        "{d:?}"
    );
    assert_eq!((d.ti_packets, d.te_forwarded, d.ec_actions), (0, 0, [0; 4]));
    assert_eq!(d.cd_decisions, 0, "draft 002's decision is the full role's");
}

#[test]
fn pe_port_core_matches_model() {
    let c = role_matches_model(
        SwitchRole::Pe,
        "pe_port_core",
        "cosim_pe_port_core",
        0x5EED_0011,
    );
    let d = c.draft001;
    // both tunnel modes, forwards and drops at the egress with flagged
    // cells, every END.CON action; no Fast CNP block
    assert!(
        d.ti_packets > 1_000
            && d.ti_compat > 100
            && d.te_forwarded > 1_000
            && d.te_dropped > 50
            && d.te_flagged > 100
            && d.ec_actions.iter().all(|&n| n > 50),
        "{d:?}"
    );
    assert_eq!((d.fc_sent, d.fc_suppressed, d.fc_popped), (0, 0, 0));
    assert_eq!(d.cd_decisions, 0, "draft 002's decision is the full role's");
}

#[test]
fn full_port_core_matches_model() {
    let c = role_matches_model(
        SwitchRole::Full,
        "switch_full_port_core",
        "cosim_switch_full_port_core",
        0x5EED_0012,
    );
    let d = c.draft001;
    // every block at once, draft 002's decision among them
    assert!(
        d.fc_sent > 1_000
            && d.te_forwarded > 1_000
            && d.ec_actions.iter().all(|&n| n > 50)
            && d.cd_decisions > 1_000,
        "{d:?}"
    );
}
