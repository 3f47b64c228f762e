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

/// The same streams with windows handed over in hardware laid on top (for
/// the sequential-engine core, whose engine is not always ready): after
/// 0 to 1,999 quiet cycles, `sys_set_valid` for 1 to 40 cycles with one
/// flow of the build and any 32-bit window (values beyond CW_MAX
/// included), drawn from an xorshift32 seeded by the case's first choice.
/// A cycle of `sys_set_ready` in a hold takes it (again, if the hold goes
/// on: the core takes what is offered).
fn stream_with_sets() -> impl Strategy<Value = Vec<NicCoreIn>> {
    ldcp_tests::choices(4_000..24_000).prop_map(|c| {
        let mut x = ldcp_sim::xorshift::seed_state(c[0][0] as u32);
        let mut draw = |n: u32| {
            x = ldcp_sim::xorshift::step(x);
            x % n
        };
        let (mut quiet, mut hold, mut flow, mut cw) = (draw(2_000), 0, 0, 0);
        ldcp_sim::from_choices(NcStimulus::default(), &c)
            .into_iter()
            .map(|b| {
                let mut i = NicCoreIn::from(b);
                if quiet > 0 {
                    quiet -= 1;
                    if quiet == 0 {
                        (hold, flow, cw) = (1 + draw(40), draw(1 << FLOW_BITS), draw(u32::MAX));
                    }
                } else {
                    (i.sys_set_valid, i.sys_set_flow, i.sys_set_cw) = (true, flow, cw);
                    hold -= 1;
                    if hold == 0 {
                        quiet = 1 + draw(2_000);
                    }
                }
                i
            })
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
    /// Cycles a handed-over window was offered, and taken.
    sets_offered: u64,
    sets_taken: u64,
}

/// Counts a compared cycle's reads and hand-overs.
fn observe(i: &NicCoreIn, o: &NicCoreOut, c: &mut Reached) {
    c.sets_offered += i.sys_set_valid as u64;
    c.sets_taken += (i.sys_set_valid && o.sys_set_ready) as u64;
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
/// model, over the same streams with windows handed over in hardware
/// ([`stream_with_sets`]): every source of the engine's port (the reset
/// sweep, a hand-over, flow commands, the generator, the FIFO) waits for
/// its ready, and a flow command's result is the first update of its flow
/// after its event was taken. Each case is drained (at the worst an event
/// per 27 cycles) and checked empty.
#[test]
fn nic_core_seq_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "nic_core_seq",
        "cosim_nic_core_seq",
        0x5EED_0022,
        60,
        stream_with_sets(),
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
    // a hold is refused while the engine is busy or the core sweeps (985
    // of 15,947 offered cycles taken at this seed)
    assert!(
        c.sets_taken > 500 && c.sets_offered > 2 * c.sets_taken,
        "{c:?}"
    );
}

/// The stimulus of a bus program on the sequential-engine core, built by
/// running the core's model ahead (the cosimulation then checks that the
/// RTL's every output equals the model's, so what the model reads here is
/// what the RTL reads).
struct BusProgram {
    m: NicCoreModel,
    stim: Vec<NicCoreIn>,
}

impl BusProgram {
    fn tick(&mut self, b: ldcp_regmap::model::BusIn) {
        use ldcp_sim::cosim::CosimModel;
        let i = NicCoreIn::from(b);
        CosimModel::tick(&mut self.m, &i);
        self.stim.push(i);
    }

    fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.tick(Default::default());
        }
    }

    fn write(&mut self, name: &str, v: u32) {
        self.tick(ldcp_regmap::model::BusIn::write(
            ldcp_regmap::model::offset(name),
            v,
        ));
    }

    fn read(&mut self, name: &str) -> u32 {
        use ldcp_sim::cosim::CosimModel;
        self.tick(ldcp_regmap::model::BusIn::read(ldcp_regmap::model::offset(
            name,
        )));
        self.idle(ldcp_regmap::READ_LATENCY_CYCLES as usize - 1);
        let o = CosimModel::outputs(&self.m);
        assert!(o.bus_rvalid, "{name}: no data");
        o.bus_rdata
    }

    /// A flow command (FLOW_CMD op 1 READ, 2 WRITE, 3 RESET), polled until
    /// FLOW_STATUS shows it done for its flow: (FLOW_CW, FLOW_INTERVAL,
    /// polls).
    fn flow_cmd(&mut self, flow: u32, op: u32, cw: u32) -> (u32, u32, u32) {
        let st_flow = ldcp_regmap::model::field("FLOW_STATUS", "FLOW");
        let st_done = ldcp_regmap::model::field("FLOW_STATUS", "DONE");
        self.write("FLOW_ID", flow);
        self.write("FLOW_WDATA", cw);
        self.write("FLOW_CMD", op);
        for polls in 1..=200 {
            let st = self.read("FLOW_STATUS");
            if st_done.get(st) != 0 && st_flow.get(st) == flow {
                return (self.read("FLOW_CW"), self.read("FLOW_INTERVAL"), polls);
            }
        }
        panic!("flow {flow}: command {op} never done");
    }
}

/// Flow commands on the sequential-engine core, against the functional
/// model: a program of WRITEs, READs and RESETs of 8 flows, with EV_PUSH
/// ACKs (marked and unmarked, n 1..=15) between them, each ACK given the
/// engine's longest latency before the next op (so the FIFO never drops
/// one). Every command's FLOW_CW and FLOW_INTERVAL, read through the bus,
/// equal `FlowTable`'s cw and `pace_interval` after the same events, and
/// the RTL equals the model every cycle of the program.
#[test]
fn nic_core_seq_flow_commands_equal_the_functional_model() {
    use ldcp_sim::window_engine::{pace_interval, FlowTable, WindowParams, CW_ONE};
    let p = WindowParams::default();
    let mut table = FlowTable::new(1 << FLOW_BITS, p, CW_ONE).expect("legal parameters");
    let mut prog = BusProgram {
        m: NicCoreModel::sized_seq(FLOW_BITS, 0, true),
        stim: Vec::new(),
    };
    // the power-up sweep (every flow SET to INIT_CW, 7 cycles each)
    prog.idle(8 << FLOW_BITS);
    assert_eq!(
        ldcp_regmap::model::field("STATUS", "RESETTING").get(prog.read("STATUS")),
        0
    );
    let mut rng = ldcp_sim::SplitMix64::new(0x5EED_0027);
    let (mut cmds, mut acks, mut max_polls) = (0u32, 0u32, 0u32);
    for _ in 0..1_500 {
        let r = rng.next_u64();
        let flow = (r % 8) as u32 * 31; // 8 flows spread over the table
        match (r >> 8) % 10 {
            0..=4 => {
                let (n, ece) = (1 + ((r >> 16) % 15) as u32, (r >> 24).is_multiple_of(3));
                prog.write("EV_PUSH", ev_push_word(flow, n, ece));
                prog.idle(ldcp_sim::window_engine::SEQ_LATENCY_CYCLES + 4);
                table
                    .ack(flow as usize, ece, n)
                    .expect("a flow of the table");
                acks += 1;
            }
            k => {
                let (op, cw) = match k {
                    5 | 6 => (2, ((r >> 32) as u32) % (300 * CW_ONE)),
                    7 | 8 => (1, 0),
                    _ => (3, 0),
                };
                match op {
                    2 => {
                        table.set(flow as usize, cw);
                    }
                    3 => {
                        table.set(flow as usize, CW_ONE);
                    }
                    _ => {}
                }
                let want = table.cw(flow as usize).expect("a flow of the table");
                let (got, interval, polls) = prog.flow_cmd(flow, op, cw);
                assert_eq!(got, want, "flow {flow}: command {op} (cw {cw:#x})");
                assert_eq!(interval, pace_interval(want, p.rtt_ticks), "flow {flow}");
                cmds += 1;
                max_polls = max_polls.max(polls);
            }
        }
    }
    assert_eq!(prog.read("CNT_DROPPED"), 0, "no ACK dropped");
    assert_eq!(prog.read("CNT_EVENTS"), acks);
    let cosim: ldcp_sim::cosim::Cosim<NicCoreModel> = ldcp_tests::cosim("nic_core_seq");
    let (st, _) = cosim
        .run_observed(
            NicCoreModel::sized_seq(FLOW_BITS, 0, true),
            || prog.stim.iter().cloned(),
            "flow-commands",
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "nic_core_seq flow commands: {cmds} commands and {acks} ACKs, every result equal to \
         FlowTable's; at most {max_polls} polls of FLOW_STATUS; {} cycles ({} of drain), 0 \
         mismatches",
        st.cycles, st.drain_cycles
    );
    assert!(cmds > 500 && acks > 500, "{cmds} commands, {acks} ACKs");
}
