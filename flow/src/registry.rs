//! The blocks the flow knows, each once: its module (name and doc, from the
//! block's file in `ldcp-hdl`), where it is meant to run, how its clock is
//! held, how its Verilog is made, and its adapter (the golden model, the
//! seeded stimulus, RustHDL's stepper, the full-rate run, the functional
//! model) through which `ldcp cosim` ([`crate::cosim`]) and `ldcp bench`
//! ([`crate::bench`]) run it.

use crate::bench::{self, BenchReport, EngineResult, Figures, Stepper};
use crate::cosim::{self, CosimReport};
use crate::FlowError;
use ldcp_hdl::generate::Module;
use ldcp_hdl::nic_core::BuildId;
use ldcp_sim::cosim::{Cosim, CosimModel};
use ldcp_sim::ports::{Port, Ports};

/// How CI and `ldcp run` treat a block's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Held to the target: a missed target fails the run (100 MHz for a
    /// block alone, the PLL clock for a board).
    Held,
    /// Measured and reported, not held; the reason, for `ldcp blocks`.
    Reported(&'static str),
}

/// A block of the flow.
pub struct Block {
    /// Its module: the `--block` name, the Verilog module name, the stem
    /// of its report, and its one-line doc.
    pub module: &'static Module,
    /// Whether it is meant for an FPGA: the iCE40-HX8K, or its board's
    /// (false: a simulation size).
    pub fpga: bool,
    /// How its clock is treated.
    pub clock: Clock,
    /// The board whose build synthesizes it (`ldcp synth --board`).
    pub board: Option<&'static str>,
    verilog: fn() -> Result<String, ldcp_hdl::verilog::VerilogError>,
    adapter: fn() -> Box<dyn FlowBlock>,
}

impl Block {
    /// The block's name.
    pub fn name(&self) -> &'static str {
        self.module.name
    }

    /// What it is, one line.
    pub fn doc(&self) -> &'static str {
        self.module.doc
    }

    /// Whether a missed clock target fails the run.
    pub fn timing_held(&self) -> bool {
        self.clock == Clock::Held
    }

    /// The block's finalized Verilog (module [`Block::name`], lint-clean).
    pub fn verilog(&self) -> Result<String, ldcp_hdl::verilog::VerilogError> {
        (self.verilog)()
    }

    /// Its adapter.
    pub fn adapter(&self) -> Box<dyn FlowBlock> {
        (self.adapter)()
    }
}

/// Every block, in data-path order.
pub const BLOCKS: &[Block] = &[
    Block {
        module: &ldcp_hdl::window_engine::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || ldcp_hdl::window_engine::verilog::<8>(&ldcp_hdl::window_engine::MODULE),
        adapter: || Box::new(window_engine::<8>()),
    },
    Block {
        module: &ldcp_hdl::window_engine::MODULE_4K,
        fpga: false,
        // not synthesized (`ldcp synth` refuses a simulation size), so
        // nothing holds its clock
        clock: Clock::Reported("a simulation size (4,096 flows): not synthesized"),
        board: None,
        verilog: || ldcp_hdl::window_engine::verilog::<12>(&ldcp_hdl::window_engine::MODULE_4K),
        adapter: || Box::new(window_engine::<12>()),
    },
    Block {
        module: &ldcp_hdl::window_engine_seq::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || ldcp_hdl::window_engine_seq::verilog::<8>(&ldcp_hdl::window_engine_seq::MODULE),
        adapter: || Box::new(window_engine_seq::<8>()),
    },
    Block {
        module: &ldcp_hdl::fast_start_marker::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::fast_start_marker::verilog,
        adapter: || Box::new(fast_start_marker::<{ ldcp_hdl::fast_start_marker::FB_ICE40 }>()),
    },
    Block {
        module: &ldcp_hdl::fast_start_marker::MODULE_4K,
        fpga: false,
        clock: Clock::Reported("a simulation size (4,096 flows): not synthesized"),
        board: None,
        verilog: ldcp_hdl::fast_start_marker::verilog_4k,
        adapter: || Box::new(fast_start_marker::<{ ldcp_hdl::fast_start_marker::FB_4K }>()),
    },
    Block {
        module: &ldcp_hdl::pacing_timer::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::pacing_timer::verilog,
        adapter: || Box::new(pacing_timer::<{ ldcp_hdl::pacing_timer::FB_ICE40 }>()),
    },
    Block {
        module: &ldcp_hdl::pacing_timer::MODULE_4K,
        fpga: false,
        clock: Clock::Reported("a simulation size (4,096 flows): not synthesized"),
        board: None,
        verilog: ldcp_hdl::pacing_timer::verilog_4k,
        adapter: || Box::new(pacing_timer::<{ ldcp_hdl::pacing_timer::FB_4K }>()),
    },
    Block {
        module: &ldcp_hdl::ack_generator::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::ack_generator::verilog,
        adapter: || {
            use ldcp_hdl::ack_generator::{FB_ICE40, Q_BITS_ICE40};
            Box::new(ack_generator::<FB_ICE40, Q_BITS_ICE40>())
        },
    },
    Block {
        module: &ldcp_hdl::ack_generator::MODULE_4K,
        fpga: false,
        clock: Clock::Reported("a simulation size (4,096 flows): not synthesized"),
        board: None,
        verilog: ldcp_hdl::ack_generator::verilog_4k,
        adapter: || {
            use ldcp_hdl::ack_generator::{FB_4K, Q_BITS_4K};
            Box::new(ack_generator::<FB_4K, Q_BITS_4K>())
        },
    },
    Block {
        module: &ldcp_hdl::ack_generator_seq::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || {
            use ldcp_hdl::ack_generator_seq::{verilog, FB_ICE40, MODULE};
            verilog::<FB_ICE40>(&MODULE)
        },
        adapter: || Box::new(ack_generator_seq::<{ ldcp_hdl::ack_generator_seq::FB_ICE40 }>()),
    },
    Block {
        module: &ldcp_hdl::pacing_timer_seq::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || {
            use ldcp_hdl::pacing_timer_seq::{verilog, FB_ICE40, MODULE};
            verilog::<FB_ICE40>(&MODULE)
        },
        adapter: || Box::new(pacing_timer_seq::<{ ldcp_hdl::pacing_timer_seq::FB_ICE40 }>()),
    },
    Block {
        module: &ldcp_hdl::fast_start_marker_seq::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || {
            use ldcp_hdl::fast_start_marker_seq::{verilog, FB_ICE40, MODULE};
            verilog::<FB_ICE40>(&MODULE)
        },
        adapter: || {
            Box::new(fast_start_marker_seq::<
                { ldcp_hdl::fast_start_marker_seq::FB_ICE40 },
            >())
        },
    },
    Block {
        module: &ldcp_hdl::nic_core::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: || ldcp_hdl::nic_core::verilog(BuildId::UNSTAMPED),
        adapter: || {
            use ldcp_hdl::nic_core::{EW_ICE40, FB_ICE40};
            Box::new(nic_core::<FB_ICE40, EW_ICE40>())
        },
    },
    Block {
        module: &ldcp_hdl::nic_core::MODULE_SEQ,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::nic_core::verilog_seq,
        adapter: || Box::new(nic_core_seq()),
    },
    Block {
        module: &ldcp_hdl::nic_core::MODULE_4K,
        fpga: false,
        clock: Clock::Reported("a simulation size (4,096 flows): the ULX3S system carries it"),
        board: None,
        verilog: ldcp_hdl::nic_core::verilog_4k,
        adapter: || {
            use ldcp_hdl::nic_core::{EW_4K, FB_4K};
            Box::new(nic_core::<FB_4K, EW_4K>())
        },
    },
    Block {
        module: &ldcp_hdl::nic_system::MODULE,
        fpga: false,
        clock: Clock::Reported("more than the HX8K holds: simulation size"),
        board: None,
        verilog: || ldcp_hdl::nic_system::verilog(BuildId::UNSTAMPED),
        adapter: || {
            use ldcp_hdl::nic_core::{EW_ICE40, FB_ICE40};
            Box::new(nic_system::<FB_ICE40, EW_ICE40, { FB_ICE40 + 30 }>())
        },
    },
    Block {
        module: &ldcp_hdl::nic_cu::MODULE,
        fpga: false,
        clock: Clock::Reported(
            "the Alchitry Cu NIC: the alchitry-cu-nic board synthesizes it inside its board core, at the board's 60 MHz PLL clock (`ldcp area --block nic_cu` for its cells)",
        ),
        board: None,
        verilog: || ldcp_hdl::nic_cu::verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(nic_cu()),
    },
    Block {
        module: &ldcp_hdl::nic_system::MODULE_4K,
        fpga: false,
        clock: Clock::Reported(
            "a simulation size (4,096 flows): the ULX3S build synthesizes it inside its board core",
        ),
        board: None,
        verilog: || ldcp_hdl::nic_system::verilog_4k(BuildId::UNSTAMPED),
        adapter: || {
            use ldcp_hdl::nic_core::{EW_4K, FB_4K};
            Box::new(nic_system::<FB_4K, EW_4K, { FB_4K + 30 }>())
        },
    },
    Block {
        module: &ldcp_hdl::board::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("alchitry-cu"),
        verilog: || ldcp_hdl::board::core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(board_core()),
    },
    Block {
        module: &ldcp_hdl::cu_board::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("alchitry-cu-nic"),
        verilog: || ldcp_hdl::cu_board::core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(cu_board_core()),
    },
    Block {
        module: &ldcp_hdl::wred_ecn::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::wred_ecn::verilog,
        adapter: || Box::new(wred_ecn()),
    },
    Block {
        module: &ldcp_hdl::tunnel_ingress::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::tunnel_ingress::verilog,
        adapter: || Box::new(tunnel_ingress()),
    },
    Block {
        module: &ldcp_hdl::tunnel_egress::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::tunnel_egress::verilog,
        adapter: || Box::new(tunnel_egress()),
    },
    Block {
        module: &ldcp_hdl::end_con::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::end_con::verilog,
        adapter: || Box::new(end_con()),
    },
    Block {
        module: &ldcp_hdl::fast_cnp::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::fast_cnp::verilog,
        adapter: || Box::new(fast_cnp()),
    },
    Block {
        module: &ldcp_hdl::coord_decision::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: None,
        verilog: ldcp_hdl::coord_decision::verilog,
        adapter: || Box::new(coord_decision()),
    },
    Block {
        module: &ldcp_hdl::switch_board::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("alchitry-cu-switch"),
        verilog: || ldcp_hdl::switch_board::core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(switch_role_core::<0>()),
    },
    Block {
        module: &ldcp_hdl::switch_board::PORT_MODULE,
        fpga: false,
        clock: Clock::Reported(
            "the bus-level view of the alchitry-cu-switch board core, which synthesizes it",
        ),
        board: None,
        verilog: ldcp_hdl::switch_board::port_verilog,
        adapter: || Box::new(switch_port_core::<0>()),
    },
    Block {
        module: &ldcp_hdl::switch_board::PE_PORT_MODULE,
        fpga: false,
        clock: Clock::Reported(
            "the bus-level view of the alchitry-cu-pe board core, which synthesizes it",
        ),
        board: None,
        verilog: ldcp_hdl::switch_board::pe_port_verilog,
        adapter: || Box::new(switch_port_core::<1>()),
    },
    Block {
        module: &ldcp_hdl::switch_board::FULL_PORT_MODULE,
        fpga: false,
        clock: Clock::Reported(
            "the bus-level view of the ulx3s-switch board core, which synthesizes it",
        ),
        board: None,
        verilog: ldcp_hdl::switch_board::full_port_verilog,
        adapter: || Box::new(switch_port_core::<2>()),
    },
    Block {
        module: &ldcp_hdl::switch_board::PE_MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("alchitry-cu-pe"),
        verilog: || ldcp_hdl::switch_board::pe_core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(switch_role_core::<1>()),
    },
    Block {
        module: &ldcp_hdl::switch_board::FULL_MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("ulx3s-switch"),
        verilog: || ldcp_hdl::switch_board::full_core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(switch_role_core::<2>()),
    },
    Block {
        module: &ldcp_hdl::system_board::MODULE,
        fpga: true,
        clock: Clock::Held,
        board: Some("ulx3s"),
        verilog: || ldcp_hdl::system_board::core_verilog(BuildId::UNSTAMPED),
        adapter: || Box::new(system_board_core()),
    },
];

/// Looks a block up by name.
pub fn find(name: &str) -> Option<&'static Block> {
    BLOCKS.iter().find(|b| b.name() == name)
}

/// The block names, for error messages and `--help`.
pub fn names() -> Vec<&'static str> {
    BLOCKS.iter().map(|b| b.name()).collect()
}

/// What `ldcp` needs of a block beyond its Verilog.
pub trait FlowBlock {
    /// The model's declared ports (inputs, outputs).
    fn ports(&self) -> (&'static [Port], &'static [Port]);
    /// Cosimulates `cycles` cycles of the seeded stimulus, then the drain.
    fn cosim(
        &self,
        verilog: &str,
        name: &str,
        cycles: u64,
        seed: u64,
    ) -> Result<CosimReport, FlowError>;
    /// Measures every engine and the full-rate run.
    fn bench(
        &self,
        verilog: &str,
        name: &str,
        cycles: u64,
        runs: usize,
        progress: &mut dyn FnMut(&str),
    ) -> Result<BenchReport, FlowError>;
}

/// The network simulator's functional model of a block, timed apart: a
/// setup (untimed) that returns the timed loop of `n` operations.
pub struct Functional {
    /// What the engine is and what an operation is.
    pub what: &'static str,
    /// Builds the loop.
    pub setup: fn() -> Box<dyn FnMut(u64)>,
}

/// A block's adapter: its golden model, its seeded stimulus, RustHDL's
/// stepper, its full-rate run and its functional model.
pub struct Adapter<M: CosimModel> {
    /// The model at power-up.
    pub model: fn() -> M,
    /// The seeded stimulus of `ldcp cosim` and of the engines' timing.
    pub stimulus: fn(u64) -> Box<dyn Iterator<Item = M::Input>>,
    /// RustHDL's simulation of the block, stepped by hand.
    pub rusthdl: fn() -> Stepper<M::Input>,
    /// The block at full rate on its RTL: measured figures and design
    /// constants.
    pub throughput: fn(&Cosim<M>) -> Result<Figures, FlowError>,
    /// The functional model, where the block has one.
    pub functional: Option<Functional>,
    /// RustHDL runs this fraction of the cycles (it is slow).
    pub rusthdl_divisor: u64,
}

/// Stimulus chunk shared by the engines (repeated up to `cycles`).
const CHUNK: usize = 1 << 16;

impl<M> FlowBlock for Adapter<M>
where
    M: CosimModel + Clone + 'static,
    M::Input: 'static,
{
    fn ports(&self) -> (&'static [Port], &'static [Port]) {
        (M::Input::PORTS, M::Output::PORTS)
    }

    fn cosim(
        &self,
        verilog: &str,
        name: &str,
        cycles: u64,
        seed: u64,
    ) -> Result<CosimReport, FlowError> {
        let c = cosim::verilated::<M>(verilog, name)?;
        cosim::run(
            name,
            &c,
            (self.model)(),
            || (self.stimulus)(seed),
            cycles,
            seed,
        )
    }

    fn bench(
        &self,
        verilog: &str,
        name: &str,
        cycles: u64,
        runs: usize,
        progress: &mut dyn FnMut(&str),
    ) -> Result<BenchReport, FlowError> {
        let c = cosim::verilated::<M>(verilog, name)?;
        progress("full rate on the RTL (lock step with the model, then the drain)");
        let figures = (self.throughput)(&c)?;
        let stim: Vec<M::Input> = (self.stimulus)(1).take(CHUNK).collect();
        let mut engines: Vec<EngineResult> =
            bench::bench_verilated(&c, &(self.model)(), &stim, cycles, runs, progress)?;
        let rc = (cycles / self.rusthdl_divisor).clamp(1_000, 200_000);
        engines.push(bench::bench_rusthdl(
            name,
            &stim,
            rc,
            runs,
            progress,
            self.rusthdl,
        )?);
        if let Some(f) = &self.functional {
            progress(&format!("model-functional ({})", f.what));
            let mut run = (f.setup)();
            engines.push(bench::measure(
                "model-functional",
                f.what,
                cycles,
                runs,
                || run(cycles),
            ));
        }
        Ok(BenchReport {
            block: name.to_string(),
            runs,
            ratios: bench::ratios(&engines),
            engines,
            run: figures.run,
            measured: figures.measured,
            design: figures.design,
        })
    }
}

/// The full-rate runs' length, cycles.
const THROUGHPUT_CYCLES: u64 = 200_000;

/// Flows of the functional models' benchmarks: the network simulator's
/// scale (10,000 flows and more).
const FUNCTIONAL_FLOWS: usize = 16_384;

/// The `rusthdl` engine of a block: RustHDL's simulator stepped by hand.
fn rusthdl<T: ldcp_hdl::stepper::HandStepped + 'static>() -> Stepper<T::Inputs> {
    let mut sim = ldcp_hdl::stepper::RustHdlSim::<T>::new();
    Box::new(move |s| sim.step(s).is_some())
}

fn tunnel_ingress() -> Adapter<ldcp_sim::tunnel_ecn::TunnelIngressModel> {
    use ldcp_sim::tunnel_ecn::*;
    Adapter {
        model: TunnelIngressModel::new,
        stimulus: |seed| Box::new(ingress_stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::tunnel_ingress::TunnelIngress>,
        throughput: |c| crate::throughput::tunnel_ingress(c, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn coord_decision() -> Adapter<ldcp_sim::coord::CoordDecisionModel> {
    use ldcp_sim::coord::*;
    Adapter {
        model: CoordDecisionModel::new,
        stimulus: |seed| Box::new(coord_stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::coord_decision::CoordDecision>,
        throughput: |c| crate::throughput::coord_decision(c, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn tunnel_egress() -> Adapter<ldcp_sim::tunnel_ecn::TunnelEgressModel> {
    use ldcp_sim::tunnel_ecn::*;
    Adapter {
        model: TunnelEgressModel::new,
        stimulus: |seed| Box::new(egress_stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::tunnel_egress::TunnelEgress>,
        throughput: |c| crate::throughput::tunnel_egress(c, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn end_con() -> Adapter<ldcp_sim::end_con::EndConModel> {
    use ldcp_sim::end_con::*;
    Adapter {
        model: EndConModel::new,
        stimulus: |seed| Box::new(end_con_stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::end_con::EndCon>,
        throughput: |c| crate::throughput::end_con(c, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn fast_cnp() -> Adapter<ldcp_sim::fast_cnp::FastCnpModel> {
    use ldcp_sim::fast_cnp::*;
    Adapter {
        model: FastCnpModel::new,
        stimulus: |seed| Box::new(fast_cnp_stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::fast_cnp::FastCnp>,
        throughput: |c| crate::throughput::fast_cnp(c, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn wred_ecn() -> Adapter<ldcp_sim::wred_ecn::WredEcnModel> {
    use ldcp_sim::wred_ecn::*;
    Adapter {
        model: WredEcnModel::new,
        stimulus: |seed| Box::new(stimulus(seed)),
        rusthdl: rusthdl::<ldcp_hdl::wred_ecn::WredEcn>,
        throughput: |c| crate::throughput::wred_ecn(c, THROUGHPUT_CYCLES),
        functional: Some(Functional {
            what: "WredEcnPort::cycle, the network simulator's switch port: decisions at once, no pipeline; cycles per second",
            setup: || {
                let stim = random_stimulus(1, CHUNK);
                let mut port =
                    WredEcnPort::new(WredParams::default()).expect("default parameters are legal");
                Box::new(move |n| {
                    for s in stim.iter().cycle().take(n as usize) {
                        std::hint::black_box(port.cycle(
                            s.in_valid.then_some((s.in_len_bytes, s.in_ecn)),
                            s.egress_drain_bytes,
                        ));
                    }
                })
            },
        }),
        rusthdl_divisor: 200,
    }
}

fn window_engine<const FB: usize>() -> Adapter<ldcp_sim::window_engine::WindowEngineModel> {
    use ldcp_sim::window_engine::*;
    let functional = Functional {
        what: "FlowTable::ack over 4,096 flows, the network simulator's congestion control: ACK updates per second",
        setup: || {
            let acks: Vec<(usize, bool, u32)> = stimulus(1, 12, WindowParams::default())
                .take(CHUNK)
                .map(|s| (s.in_flow as usize, s.in_ece, s.in_n_pkts.max(1)))
                .collect();
            let mut t = FlowTable::new(4096, WindowParams::default(), 10 * CW_ONE)
                .expect("default parameters are legal");
            Box::new(move |n| {
                for &(f, e, k) in acks.iter().cycle().take(n as usize) {
                    std::hint::black_box(t.ack(f, e, k));
                }
            })
        },
    };
    Adapter {
        model: || WindowEngineModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32, WindowParams::default())),
        rusthdl: rusthdl::<ldcp_hdl::window_engine::WindowEngine<FB>>,
        throughput: |c| crate::throughput::window_engine(c, FB as u32, THROUGHPUT_CYCLES),
        functional: Some(functional),
        rusthdl_divisor: 400,
    }
}

fn window_engine_seq<const FB: usize>() -> Adapter<ldcp_sim::window_engine::WindowEngineSeqModel> {
    use ldcp_sim::window_engine::*;
    Adapter {
        model: || WindowEngineSeqModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32, WindowParams::default())),
        rusthdl: rusthdl::<ldcp_hdl::window_engine_seq::WindowEngineSeq<FB>>,
        throughput: |c| crate::throughput::window_engine_seq(c, FB as u32, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn fast_start_marker<const FB: usize>() -> Adapter<ldcp_sim::fast_start_marker::FastStartMarkerModel>
{
    use ldcp_sim::fast_start_marker::*;
    Adapter {
        model: || FastStartMarkerModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::fast_start_marker::FastStartMarker<FB>>,
        throughput: |c| crate::throughput::fast_start_marker(c, FB as u32, THROUGHPUT_CYCLES),
        functional: Some(Functional {
            what: "FastStartTable: transmits, ACKs, NAKs and resets over 16,384 flows, events per second",
            setup: || {
                let ev: Vec<FsInputs> = stimulus(2, 14).take(CHUNK).collect();
                let mut t = FastStartTable::new(FUNCTIONAL_FLOWS, 64).expect("IW 64 is legal");
                Box::new(move |n| {
                    for i in ev.iter().cycle().take(n as usize) {
                        let f = i.in_flow as usize;
                        match i.in_kind {
                            kind::TX => {
                                std::hint::black_box(t.tx(
                                    f, i.in_psn, i.in_last, i.in_word0, i.in_csum,
                                ));
                            }
                            kind::ACK | kind::NAK => {
                                std::hint::black_box(t.ack(
                                    f,
                                    i.in_psn,
                                    i.in_kind == kind::NAK,
                                ));
                            }
                            _ => {
                                t.reset_flow(f);
                            }
                        }
                    }
                })
            },
        }),
        rusthdl_divisor: 200,
    }
}

fn pacing_timer<const FB: usize>() -> Adapter<ldcp_sim::pacing_timer::PacingTimerModel> {
    use ldcp_sim::pacing_timer::*;
    Adapter {
        model: || PacingTimerModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::pacing_timer::PacingTimer<FB>>,
        throughput: |c| crate::throughput::pacing_timer(c, FB as u32, THROUGHPUT_CYCLES),
        functional: Some(Functional {
            what: "PacedFlow over 16,384 flows: updates and grant checks, events per second",
            setup: || {
                let ev: Vec<PtInputs> = stimulus(2, 14).take(CHUNK).collect();
                let mut flows = vec![PacedFlow::default(); FUNCTIONAL_FLOWS];
                Box::new(move |n| {
                    for (now, i) in ev.iter().cycle().take(n as usize).enumerate() {
                        let f = &mut flows[i.in_flow as usize % FUNCTIONAL_FLOWS];
                        if i.in_valid {
                            let iv = if i.in_restart {
                                0
                            } else {
                                i.in_interval_cycles
                            };
                            f.update(now as u64, iv);
                        } else {
                            std::hint::black_box(f.grant(now as u64));
                        }
                    }
                })
            },
        }),
        rusthdl_divisor: 200,
    }
}

fn ack_generator<const FB: usize, const QB: usize>(
) -> Adapter<ldcp_sim::ack_generator::AckGeneratorModel> {
    use ldcp_sim::ack_generator::*;
    Adapter {
        model: || AckGeneratorModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::ack_generator::AckGenerator<FB, QB>>,
        throughput: |c| crate::throughput::ack_generator(c, FB as u32, THROUGHPUT_CYCLES),
        functional: Some(Functional {
            what: "AckFlow::packet over 16,384 flows, packets per second",
            setup: || {
                let ev: Vec<AgInputs> = stimulus(2, 14).take(CHUNK).collect();
                let mut flows = vec![AckFlow::default(); FUNCTIONAL_FLOWS];
                Box::new(move |n| {
                    for (now, i) in ev.iter().cycle().take(n as usize).enumerate() {
                        let f = i.in_flow as usize % FUNCTIONAL_FLOWS;
                        std::hint::black_box(flows[f].packet(
                            f as u32,
                            i.in_psn,
                            i.in_ce,
                            i.in_last,
                            i.cfg_m_pkts,
                            now as u32,
                        ));
                    }
                })
            },
        }),
        rusthdl_divisor: 200,
    }
}

fn fast_start_marker_seq<const FB: usize>(
) -> Adapter<ldcp_sim::fast_start_marker::FastStartMarkerSeqModel> {
    use ldcp_sim::fast_start_marker::*;
    Adapter {
        model: || FastStartMarkerSeqModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::fast_start_marker_seq::FastStartMarkerSeq<FB>>,
        throughput: |c| crate::throughput::fast_start_marker_seq(c, FB as u32, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn pacing_timer_seq<const FB: usize>() -> Adapter<ldcp_sim::pacing_timer::PacingTimerSeqModel> {
    use ldcp_sim::pacing_timer::*;
    Adapter {
        model: || PacingTimerSeqModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::pacing_timer_seq::PacingTimerSeq<FB>>,
        throughput: |c| crate::throughput::pacing_timer_seq(c, FB as u32, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

fn ack_generator_seq<const FB: usize>() -> Adapter<ldcp_sim::ack_generator::AckGeneratorSeqModel> {
    use ldcp_sim::ack_generator::*;
    Adapter {
        model: || AckGeneratorSeqModel::new(FB as u32),
        stimulus: |seed| Box::new(stimulus(seed, FB as u32)),
        rusthdl: rusthdl::<ldcp_hdl::ack_generator_seq::AckGeneratorSeq<FB>>,
        throughput: |c| crate::throughput::ack_generator_seq(c, FB as u32, THROUGHPUT_CYCLES),
        functional: None,
        rusthdl_divisor: 50,
    }
}

/// Generator events of the bus blocks' full-rate runs.
const GENERATOR_EVENTS: u32 = 200_000;

fn nic_core<const FB: usize, const EW: usize>() -> Adapter<ldcp_sim::nic_core::NicCoreModel> {
    use ldcp_sim::nic_core::*;
    Adapter {
        model: || NicCoreModel::sized(FB as u32, 0, true, false),
        stimulus: |seed| Box::new(stimulus_sized(FB as u32, seed).map(NicCoreIn::from)),
        rusthdl: rusthdl::<ldcp_hdl::nic_core::NicCore<FB, EW>>,
        throughput: |c| {
            crate::throughput::generator_run(
                c,
                NicCoreModel::sized(FB as u32, 0, true, false),
                FB as u32,
                GENERATOR_EVENTS,
                ldcp_regmap::ENGINE_LATENCY,
                1,
            )
        },
        functional: None,
        rusthdl_divisor: 200,
    }
}

fn nic_core_seq() -> Adapter<ldcp_sim::nic_core::NicCoreModel> {
    use ldcp_sim::nic_core::*;
    Adapter {
        model: || NicCoreModel::sized_seq(FLOW_BITS, 0, true),
        stimulus: |seed| Box::new(stimulus_sized(FLOW_BITS, seed).map(NicCoreIn::from)),
        rusthdl: rusthdl::<ldcp_hdl::nic_core::NicCoreSeqIce40>,
        throughput: |c| {
            crate::throughput::generator_run(
                c,
                NicCoreModel::sized_seq(FLOW_BITS, 0, true),
                FLOW_BITS,
                GENERATOR_EVENTS,
                ldcp_sim::window_engine::SEQ_LATENCY_CYCLES as u32,
                ldcp_sim::window_engine::SEQ_LATENCY_CYCLES as u32,
            )
        },
        functional: None,
        rusthdl_divisor: 200,
    }
}

fn nic_system<const FB: usize, const EW: usize, const QB: usize>(
) -> Adapter<ldcp_sim::nic_system::NicSystemModel> {
    use ldcp_sim::nic_system::*;
    Adapter {
        model: || NicSystemModel::sized(FB as u32, 0, true),
        stimulus: |seed| Box::new(stimulus_sized(FB as u32, seed).map(SysIn::from)),
        rusthdl: rusthdl::<ldcp_hdl::nic_system::NicSystem<FB, EW, QB>>,
        throughput: |c| {
            crate::throughput::generator_run(
                c,
                NicSystemModel::sized(FB as u32, 0, true),
                FB as u32,
                GENERATOR_EVENTS,
                ldcp_regmap::ENGINE_LATENCY,
                1,
            )
        },
        functional: None,
        rusthdl_divisor: 200,
    }
}

fn nic_cu() -> Adapter<ldcp_sim::nic_cu::NicCuModel> {
    use ldcp_sim::nic_core::FLOW_BITS;
    use ldcp_sim::nic_cu::NicCuModel;
    use ldcp_sim::nic_system::{stimulus_sized, SysIn};
    Adapter {
        model: || NicCuModel::new(0, true),
        stimulus: |seed| Box::new(stimulus_sized(FLOW_BITS, seed).map(SysIn::from)),
        rusthdl: rusthdl::<ldcp_hdl::nic_cu::NicCuIce40>,
        // no generator on the Cu (BLOCKS.GENERATOR 0): the loopback is its
        // traffic, an ACK per packet, after the reset's two sweeps
        throughput: |c| crate::throughput::loop_run(c, NicCuModel::new(0, true), 1, 2 << FLOW_BITS),
        functional: None,
        rusthdl_divisor: 400,
    }
}

/// Clocks per UART bit of the board core's cosimulation and bench streams
/// (the board itself uses 60; the divider is a port, so the Verilog is the
/// same).
const BOARD_SIM_DIV: u32 = 4;

fn board_core() -> Adapter<ldcp_sim::board::BoardModel> {
    use ldcp_sim::board::*;
    Adapter {
        model: || BoardModel::new(0, true),
        stimulus: |seed| Box::new(stimulus(seed, BOARD_SIM_DIV)),
        rusthdl: rusthdl::<ldcp_hdl::board::BoardCore>,
        throughput: |c| crate::throughput::board_core(c, BOARD_SIM_DIV, 400),
        functional: None,
        rusthdl_divisor: 200,
    }
}

/// The activity LED's hold in the shell boards' cosimulation and bench
/// streams (the boards tie about 1/16 s; the hold is a port, so the
/// Verilog is the same): short, so the LED goes dark within a run.
const BOARD_SIM_LED_HOLD: u32 = 300;

/// The role of a switch board block: 0 a P node's, 1 a PE's, 2 every block.
const fn switch_role<const R: u8>() -> ldcp_sim::switch_board::SwitchRole {
    match R {
        0 => ldcp_sim::switch_board::SwitchRole::P,
        1 => ldcp_sim::switch_board::SwitchRole::Pe,
        _ => ldcp_sim::switch_board::SwitchRole::Full,
    }
}

fn switch_port_core<const R: u8>() -> Adapter<ldcp_sim::switch_board::SwitchCoreModel> {
    use ldcp_sim::switch_board::*;
    Adapter {
        model: || SwitchCoreModel::of_role(0, true, switch_role::<R>()),
        stimulus: |seed| Box::new(core_stimulus(seed)),
        rusthdl: || {
            let mut sim = ldcp_hdl::stepper::RustHdlSim::of(
                ldcp_hdl::switch_board::SwitchPortCore::new(BuildId::UNSTAMPED, switch_role::<R>()),
            );
            Box::new(move |s| sim.step(s).is_some())
        },
        throughput: |c| {
            crate::throughput::switch_port_core(
                c,
                SwitchCoreModel::of_role(0, true, switch_role::<R>()),
                30_000,
            )
        },
        functional: None,
        rusthdl_divisor: 100,
    }
}

fn switch_role_core<const R: u8>() -> Adapter<ldcp_sim::switch_board::SwitchBoardModel> {
    use ldcp_sim::switch_board::*;
    Adapter {
        model: || SwitchBoardModel::new(SwitchCoreModel::of_role(0, true, switch_role::<R>())),
        stimulus: |seed| {
            Box::new(ldcp_sim::board_shell::stimulus(
                seed,
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                SwitchStimulus::default(),
            ))
        },
        rusthdl: || {
            let mut sim =
                ldcp_hdl::stepper::RustHdlSim::of(ldcp_hdl::switch_board::SwitchBoardCore::new(
                    BuildId::UNSTAMPED,
                    switch_role::<R>(),
                ));
            Box::new(move |s| sim.step(s).is_some())
        },
        throughput: |c| {
            crate::throughput::shell_board(
                c,
                SwitchBoardModel::new(SwitchCoreModel::of_role(0, true, switch_role::<R>())),
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                400,
                &["WRED_K_MIN", "WRED_K_MAX", "WRED_P_MAX", "WRED_DRAIN"],
            )
        },
        functional: None,
        rusthdl_divisor: 200,
    }
}

fn cu_board_core() -> Adapter<ldcp_sim::cu_board::CuBoardModel> {
    use ldcp_sim::cu_board::*;
    use ldcp_sim::nic_cu::NicCuModel;
    use ldcp_sim::nic_system::SysStimulus;
    Adapter {
        model: || CuBoardModel::new(NicCuModel::new(0, true)),
        stimulus: |seed| {
            Box::new(ldcp_sim::board_shell::stimulus(
                seed,
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                SysStimulus::default(),
            ))
        },
        rusthdl: rusthdl::<ldcp_hdl::cu_board::CuBoardCore>,
        throughput: |c| {
            crate::throughput::shell_board(
                c,
                CuBoardModel::new(NicCuModel::new(0, true)),
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                400,
                &["ALPHA", "BETA", "RTT", "FS_IW", "AG_M"],
            )
        },
        functional: None,
        rusthdl_divisor: 400,
    }
}

fn system_board_core() -> Adapter<ldcp_sim::system_board::SystemBoardModel> {
    use ldcp_sim::nic_system::{NicSystemModel, SysStimulus};
    use ldcp_sim::system_board::*;
    Adapter {
        model: || SystemBoardModel::new(NicSystemModel::new_4k(0, true)),
        stimulus: |seed| {
            Box::new(ldcp_sim::board_shell::stimulus(
                seed,
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                SysStimulus::sized(ldcp_sim::nic_core::FLOW_BITS_4K),
            ))
        },
        rusthdl: rusthdl::<ldcp_hdl::system_board::SystemBoardCore>,
        throughput: |c| {
            crate::throughput::shell_board(
                c,
                SystemBoardModel::new(NicSystemModel::new_4k(0, true)),
                BOARD_SIM_DIV,
                BOARD_SIM_LED_HOLD,
                400,
                &["ALPHA", "BETA", "RTT", "FS_IW", "WRED_K_MIN"],
            )
        },
        functional: None,
        rusthdl_divisor: 400,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block has an adapter whose model declares exactly the ports
    /// of the block's Verilog (names, directions, widths), its Verilog
    /// names the module after the block and, but for a board core,
    /// elaborates in yosys with `check -assert` (no multiple drivers, no
    /// combinational loop), and the names are unique. Two kinds of block
    /// skip the yosys step, each because another entry's check covers its
    /// structure and yosys 0.23 reads large RAM initial blocks slowly
    /// (about 12 s per 4,096-entry table, quadratic in its entries):
    /// - a board core is its blocks (each an entry here, checked) in the
    ///   board's shell; its board's build, which CI runs, reads it through
    ///   yosys `hierarchy -check`;
    /// - a simulation size (`<name>_4k`, 4,096 flows) is the same RustHDL
    ///   as `<name>` (checked here) at wider table addresses
    ///   (`nic_system_4k` alone took minutes).
    ///
    /// (`verilator --lint-only -Wall` of every block, these included, which
    /// also refuses multiple drivers and combinational loops, is the main
    /// job's, `ldcp run`, which CI runs on every block:
    /// `flow/tests/flow.rs`.)
    #[test]
    fn registry_every_block_has_its_adapter_and_verilog_that_elaborates() {
        let dir = ldcp_sim::work_dir().join("registry-test");
        std::fs::create_dir_all(&dir).unwrap();
        let check = |b: &Block| {
            let v = b.verilog().unwrap_or_else(|e| panic!("{}: {e}", b.name()));
            assert!(
                v.contains(&format!("module {}(", b.name())) && !v.contains("module top("),
                "{}",
                b.name()
            );
            let (ins, outs) = b.adapter().ports();
            ldcp_sim::cosim::BuildSpec::new(&v, b.name(), ins, outs, false)
                .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
            if b.board.is_none() && sized_twin(b).is_none() {
                let file = dir.join(format!("{}.v", b.name()));
                std::fs::write(&file, &v).unwrap();
                ldcp_sim::tools::yosys_check(&file, b.name())
                    .unwrap_or_else(|e| panic!("{}: {e}", b.name()));
            }
        };
        // every block, on two threads (each block's generation and tools
        // are single-threaded, and the test runs mostly alone)
        let checked = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for half in 0..2 {
                let (check, checked) = (&check, &checked);
                s.spawn(move || {
                    for b in BLOCKS.iter().skip(half).step_by(2) {
                        check(b);
                        checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(checked.into_inner(), BLOCKS.len());
        let mut unique = names();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), BLOCKS.len(), "block names are unique");
    }

    /// The block `b` is a simulation size of (`x` for `x_4k`), which must
    /// be an entry of its own.
    fn sized_twin(b: &Block) -> Option<&'static Block> {
        let base = b.name().strip_suffix("_4k")?;
        assert!(
            !b.fpga && b.board.is_none(),
            "{} is a simulation size",
            b.name()
        );
        Some(find(base).unwrap_or_else(|| panic!("{}: no block {base}", b.name())))
    }

    /// The port check refuses a model whose declaration differs from the
    /// Verilog: a renamed port, a wrong width.
    #[test]
    fn registry_port_check_refuses_a_wrong_declaration() {
        let b = find("wred_ecn").unwrap();
        let v = b.verilog().unwrap();
        let (ins, outs) = b.adapter().ports();
        let mut wrong: Vec<Port> = ins.to_vec();
        wrong[2].width += 1;
        let e = ldcp_sim::cosim::BuildSpec::new(&v, "wred_ecn", &wrong, outs, false)
            .expect_err("a wrong width is refused");
        assert!(
            e.to_string()
                .contains("`in_len_bytes` is 14 bits wide in the module, 15"),
            "{e}"
        );
        let mut wrong: Vec<Port> = outs.to_vec();
        wrong[0].name = "out_vld";
        let e = ldcp_sim::cosim::BuildSpec::new(&v, "wred_ecn", ins, &wrong, false)
            .expect_err("a wrong name is refused");
        assert!(e.to_string().contains("out_vld"), "{e}");
    }
}
