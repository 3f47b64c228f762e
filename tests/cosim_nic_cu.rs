//! The Alchitry Cu NIC (`nic_cu`): the generated Verilog (the NIC core with
//! the sequential window engine, the extension decoder, the pacing timer,
//! the sequential fast-start marker and ACK generator, the loopback and
//! their glue) against `NicCuModel`: the bus and every block's registered
//! outputs, every cycle, over proptest streams of the NIC system's
//! stimulus (`SysStimulus`); each case drained and checked empty. What the
//! streams reached is counted on the cosimulated cases.

use ldcp_sim::nic_cu::*;
use ldcp_sim::nic_system::{SysIn, SysOut, SysStats, SysStimulus};
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
    /// reads of the counter bank's registers, and of them nonzero
    bank_reads: u64,
    bank_nonzero: u64,
    /// the address read in the cycle before (its word shows this cycle)
    read_before: Option<u32>,
    grants: u64,
    acks: u64,
    wred_outputs: u64,
    model: SysStats,
    cu: CuStats,
    core_events: u64,
}

#[test]
fn nic_cu_matches_model() {
    // the counters the Cu NIC keeps in block RAM
    let bank: Vec<u32> = ldcp_hdl::nic_cu::BANK_COUNTERS
        .iter()
        .map(|n| ldcp_regmap::register(n).expect("a register").offset)
        .collect();
    let (t, c) = ldcp_tests::cosim_cases(
        "nic_cu",
        "cosim_nic_cu",
        0x5EED_0028,
        50,
        stream(),
        || NicCuModel::new(0, true),
        |i: &SysIn, o: &SysOut, c: &mut Reached| {
            c.reads += o.bus_rvalid as u64;
            if let (true, Some(a)) = (o.bus_rvalid, c.read_before) {
                if bank.contains(&a) {
                    c.bank_reads += 1;
                    c.bank_nonzero += (o.bus_rdata != 0) as u64;
                }
            }
            c.read_before = i.bus_re.then_some(i.bus_addr);
            c.grants += o.obs_pt_out_valid as u64;
            c.acks += o.obs_ag_out_valid as u64;
            c.wred_outputs += (o.obs_wred_out_valid || o.obs_wred_out_decision != 0) as u64;
        },
        |m: &NicCuModel, c: &mut Reached| {
            c.model += m.stats();
            c.cu += m.cu_stats();
            c.core_events += m.core().stats().events;
        },
    );
    let (st, cu) = (c.model, c.cu);
    eprintln!(
        "nic_cu cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {} reads ({} of the counter bank, {} of them nonzero), {} grants, {} ACKs; models over the compared cases: {st:?}, {cu:?}, \
         {} core events",
        t.cases, t.cycles, t.drain_cycles, c.reads, c.bank_reads, c.bank_nonzero, c.grants, c.acks, c.core_events
    );
    assert!(
        t.cycles >= MIN_CYCLES,
        "only {} cycles compared; CI needs at least {MIN_CYCLES}",
        t.cycles
    );
    assert_eq!(c.wred_outputs, 0, "no WRED/ECN port on the Cu");
    assert!(c.reads > 10_000 && c.grants > 50 && c.acks > 500, "{c:?}");
    // the counter bank read exactly (nonzero counts among them)
    assert!(c.bank_reads > 500 && c.bank_nonzero > 100, "{c:?}");
    assert!(st.fs_results > 1_000 && st.handoffs > 10, "{st:?}");
    // the loop ran (held by the core's FIFO, which the stream's own pushes
    // and generator runs keep full), and its ACK queue overflowed (34 ACKs
    // lost to the marker at this seed, counted in LOOP_LOST)
    assert!(
        st.loop_sent > 100
            && st.loop_delivered > 100
            && st.loop_acks > 100
            && st.loop_rewinds > st.loop_timeouts
            && st.loop_timeouts > 10
            && st.loop_lost > 0,
        "{st:?}"
    );
    assert!(
        cu.handoff_waits > 0
            && cu.queued_acks > 100
            && cu.send_waits > 0
            && cu.marker_held > 0
            && cu.visits_behind > 0,
        "{cu:?}"
    );
    assert_eq!(cu.pt_refused, 0, "the pacing timer takes every update");
}

/// The bus program of a loop run: CORE_RESET and its sweep, IW 4, the ACK
/// generator's `ag_m`, an RTO, then the sender on 8 flows for `cycles`,
/// then SEND off (LOOPBACK on) for the last ACKs to return.
fn loop_program(ag_m: u32, cycles: usize) -> Vec<SysIn> {
    use ldcp_regmap::model::{offset, BusIn};
    let mut v = vec![BusIn::write(offset("CORE_RESET"), 1)];
    v.extend(std::iter::repeat_n(BusIn::default(), 600));
    v.push(BusIn::write(offset("FS_IW"), 4));
    v.push(BusIn::write(offset("AG_M"), ag_m));
    v.push(BusIn::write(offset("LOOP_RTO"), 3000));
    v.push(BusIn::write(offset("LOOP_CTRL"), 3 | 8 << 8));
    v.extend(std::iter::repeat_n(BusIn::default(), cycles));
    v.push(BusIn::write(offset("LOOP_CTRL"), 1));
    v.extend(std::iter::repeat_n(BusIn::default(), 6_000));
    v.into_iter().map(SysIn::from).collect()
}

/// The loop closed on chip, in the RTL: two loop runs (an ACK per packet,
/// an ACK per 4) cosimulated every cycle, so the model's figures are the
/// RTL's: every packet sent is received and acknowledged back into the
/// engine, the sender and the marker, one fast-start hand-off per flow,
/// no ACK lost to the marker or the engine; with an ACK per packet the
/// sequential engine sets the pace, with an ACK per 4 the marker does.
#[test]
fn nic_cu_loop_runs_on_the_rtl() {
    let cosim: ldcp_sim::cosim::Cosim<NicCuModel> = ldcp_tests::cosim("nic_cu");
    let cycles = 60_000;
    let mut rates = Vec::new();
    for ag_m in [1, 4] {
        let stim = loop_program(ag_m, cycles);
        let (run, _) = cosim
            .run_observed(
                NicCuModel::new(0, true),
                || stim.iter().cloned(),
                "loop",
                &mut |_, _| {},
            )
            .unwrap_or_else(|e| panic!("AG_M {ag_m}: {e}"));
        let mut m = NicCuModel::new(0, true);
        for i in &stim {
            m.tick(&i.bus());
        }
        let (st, core) = (m.stats(), m.core().stats());
        let rate = st.loop_sent as f64 / cycles as f64;
        eprintln!(
            "nic_cu loop, AG_M {ag_m}: {} cycles cosimulated ({} of drain), 0 mismatches; {} \
             packets sent in {cycles} cycles ({rate:.4} per cycle), {} received, {} ACKs \
             returned, {} taken by the engine, {} dropped, {} hand-offs, {} lost to the marker",
            run.cycles,
            run.drain_cycles,
            st.loop_sent,
            st.loop_delivered,
            st.loop_acks,
            core.events,
            core.dropped,
            st.handoffs,
            st.loop_lost
        );
        assert_eq!(st.loop_sent, st.loop_delivered, "{st:?}");
        assert_eq!(st.loop_acks, st.acks, "{st:?}");
        assert_eq!((core.events, core.dropped), (st.acks, 0), "{core:?}");
        assert_eq!((st.handoffs, st.loop_lost), (8, 0), "{st:?}");
        rates.push(rate);
    }
    assert!((1.0 / 30.0..=1.0 / 26.0).contains(&rates[0]), "{rates:?}");
    assert!(
        rates[1] > 1.5 * rates[0] && rates[1] < 1.0 / 7.0,
        "{rates:?}"
    );
}
