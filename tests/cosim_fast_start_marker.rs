//! Fast-start marker: the generated Verilog against `FastStartMarkerModel`, every
//! output, every cycle, over proptest streams of per-cycle choices that
//! `FsStimulus` turns into events (in-sequence transmits of short and long
//! messages, ACKs within and beyond the window, NAKs, retransmissions, flow
//! resets, PSNs across the 2^24 wrap, ids beyond the table, non-IPv4
//! headers, IW 0, 1 and 4,095, idle cycles and block resets with their
//! sweeps), each case drained and checked empty.

use ldcp_sim::fast_start_marker::*;
use proptest::prelude::*;

/// Cycles every CI run must compare, across the cases.
const MIN_CYCLES: u64 = 1_000_000;

fn stream() -> impl Strategy<Value = Vec<FsInputs>> {
    ldcp_tests::choices(2_000..10_000)
        .prop_map(|c| ldcp_sim::from_choices(FsStimulus::new(FPGA_FLOW_BITS as u32), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    not_ect: u64,
    ect: u64,
    sets: u64,
    gbn: u64,
    err_flow: u64,
    err_seq: u64,
    err_ipv4: u64,
    ready_low: u64,
}

#[test]
fn fast_start_marker_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "fast_start_marker",
        "cosim_fast_start_marker",
        0x5EED_0004,
        200,
        stream(),
        || FastStartMarkerModel::new(FPGA_FLOW_BITS as u32),
        |_, o: &FsOutputs, c: &mut Reached| {
            c.ready_low += !o.in_ready as u64;
            if o.out_valid {
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
        |_, _| {},
    );
    eprintln!(
        "fast_start_marker cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left \
         in flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    let all = [
        c.not_ect,
        c.ect,
        c.sets,
        c.gbn,
        c.err_flow,
        c.err_seq,
        c.err_ipv4,
        c.ready_low,
    ];
    assert!(
        all.iter().all(|&x| x > 100),
        "the streams must reach every outcome: {c:?}"
    );
}

/// The 4,096-flow build (`fast_start_marker_4k`, a simulation size): the same
/// stimulus over 2^12 flows ([`ldcp_tests::cosim_4k`]).
#[test]
fn fast_start_marker_4k_matches_model() {
    use ldcp_tests::FLOW_BITS_4K as FB;
    ldcp_tests::cosim_4k(
        "fast_start_marker_4k",
        "cosim_fast_start_marker_4k",
        0x5EED_000D,
        |c| ldcp_sim::from_choices(FsStimulus::new(FB), c),
        || FastStartMarkerModel::new(FB),
        |o: &FsOutputs| o.out_valid.then_some(o.out_flow),
    );
}
