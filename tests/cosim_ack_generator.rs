//! ACK generator: the generated Verilog against `AckGeneratorModel`, every
//! output (`in_ready` included), every cycle, over proptest streams of
//! per-cycle choices that `AgStimulus` turns into packets (in order with 0
//! to 100% CE, losses and the go-back-N retransmissions after them,
//! duplicates, far PSNs, opens near the 2^24 wrap, ids beyond the table,
//! m 0..=15, timeouts 0..=65,535, idle stretches and block resets with
//! their sweeps), each case drained (every held ACK flushed by its
//! timeout) and checked empty.

use ldcp_sim::ack_generator::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<AgInputs>> {
    ldcp_tests::choices(4_000..16_000)
        .prop_map(|c| ldcp_sim::from_choices(AgStimulus::new(FPGA_FLOW_BITS as u32), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    acks: u64,
    ece: u64,
    naks: u64,
    covering_several: u64,
    ready_low: u64,
    err_flow: u64,
    err_seq: u64,
    err_gap_repeat: u64,
}

#[test]
fn ack_generator_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "ack_generator",
        "cosim_ack_generator",
        0x5EED_0006,
        120,
        stream(),
        || AckGeneratorModel::new(FPGA_FLOW_BITS as u32),
        |_, o: &AgOutputs, c: &mut Reached| {
            c.ready_low += !o.in_ready as u64;
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
        |_, _| {},
    );
    eprintln!(
        "ack_generator cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight (every held ACK flushed); {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    let all = [
        c.acks,
        c.ece,
        c.naks,
        c.covering_several,
        c.ready_low,
        c.err_flow,
        c.err_seq,
        c.err_gap_repeat,
    ];
    assert!(
        all.iter().all(|&x| x > 100),
        "the streams must reach every outcome: {c:?}"
    );
}

/// The 4,096-flow build (`ack_generator_4k`, a simulation size): the same
/// stimulus over 2^12 flows ([`ldcp_tests::cosim_4k`]).
#[test]
fn ack_generator_4k_matches_model() {
    use ldcp_tests::FLOW_BITS_4K as FB;
    ldcp_tests::cosim_4k(
        "ack_generator_4k",
        "cosim_ack_generator_4k",
        0x5EED_000E,
        |c| ldcp_sim::from_choices(AgStimulus::new(FB), c),
        || AckGeneratorModel::new(FB),
        |o: &AgOutputs| o.out_valid.then_some(o.out_flow),
    );
}
