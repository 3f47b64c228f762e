//! The simulated Alchitry Cu behind a pseudo-terminal (`ldcpctl serve-sim`):
//! a board that keeps its state from one `ldcpctl --backend uart` session
//! to the next, with no hardware.
//!
//! # What runs
//! The board core of the bitstream (`ldcp_hdl::board::core_verilog`: the
//! power-on sequencer, the UART bridge and the NIC core, stamped with this
//! tree's build like `ldcp synth --board alchitry-cu` stamps it), Verilated;
//! or its golden model [`BoardModel`] (`--engine model`); or both in lock
//! step, every output compared every cycle (`--engine lockstep`). Its
//! `cfg_bit_cycles` is tied to [`BIT_CYCLES`] as the board top ties it; its
//! `uart_rx` is driven and its `uart_tx` decoded one clock at a time, at
//! the board's 100 MHz clock (the oscillator's; the board has no PLL). After
//! the power-on sequence the server reads MAGIC through the bridge once,
//! as a self-check, before it publishes the port.
//!
//! # The line
//! The pty's slave is the board's serial port (the FT2232's channel B,
//! `/dev/ttyUSB1` on a real host). A byte a client writes to it is put on
//! the FPGA's line as the FT2232 would send it: 8N1, at the line rate the
//! client set with termios (read back from the pty on every read), that is
//! at `100 MHz / baud` clocks per bit, rounded to whole clocks (100 at the
//! bitstream's 1 Mbaud; a client at another rate sends the board garbage,
//! as it would the real one). The board's line out is sampled at the same
//! rate, and the bytes with a good stop bit are written to the pty. So the
//! bytes on the pty are those the board's USB-UART would carry.
//!
//! # Time: the design rule
//! The simulator runs far below the board's 100 MHz (about 1 M cycles/s),
//! so board time cannot follow the wall clock. It follows the host's
//! pauses instead, by this rule:
//! 1. Every event on the line ties a board cycle to a wall-clock instant
//!    (the anchor): host bytes arriving on the pty, at the cycle their
//!    first start bit goes on the line; board bytes written to the pty, at
//!    the cycle their stop bit ended.
//! 2. Bytes a host writes `t` after the last event start on the line
//!    `min(t x 100 cycles/us, QUIET_MAX_CYCLES)` cycles after it: a host's
//!    pause is replayed at the board's clock ([`CYCLES_PER_US`]), so a
//!    session's think time, the driver's `idle` sleeps and a client that
//!    goes away take the board time they take on the board, up to 200 us
//!    ([`QUIET_MAX_CYCLES`], 20,000 cycles) per pause. Bytes never start
//!    before the host bytes still on the line have been sent (they follow
//!    them back to back, as a buffer the FT2232 sends does; one byte is
//!    [`BYTE_CYCLES`] = 1,000 cycles at 1 Mbaud), nor before the board's
//!    present cycle: the simulator may have run up to one [`CHUNK_CYCLES`]
//!    past that point, or the rest of a settle (rule 3), so a host that
//!    answers the board within about 30 us is answered a little later.
//! 3. Between events the simulator runs the board toward where rule 2
//!    would put a byte written now, so it keeps up with the wall clock as
//!    far as it can and stops 200 us of board time after the last event;
//!    and after a host's last bit it always runs [`SETTLE_BITS`] bit times
//!    of idle line, whatever the wall clock says, so the board's answer
//!    (70 bits, starting 1..2 bit times after the request's stop bit) is
//!    complete.
//!
//! So a frame cut short by a client that went away is dropped by the
//! bridge's frame timeout ([`br::IDLE_TIMEOUT_BITS`], 64 bit times) before
//! the next client's first byte unless that client writes within 64 us,
//! as on the board; CYCLES counts the line's bits and the host's pauses,
//! each capped at 200 us, not seconds. Bytes are dated when the server's
//! reader thread gets them from the pty, not when they were written: on a
//! loaded machine a host's pause looks longer by the reader's scheduling
//! delay (bounded by the cap), and a reader starved for longer than the gap
//! between two clients' writes would read them as one.
//!
//! # The pty
//! On Linux a pty slave takes every termios call the uart backend makes:
//! `cfsetispeed`/`cfsetospeed` only store the rate (one rate: the input
//! speed follows the output speed), `CLOCAL`/`CRTSCTS` are accepted and do
//! nothing, and `tcflush(TCIOFLUSH)` at open discards what the board sent
//! to an earlier client that did not read it (and the bytes that client
//! wrote which the server has not read yet). It cannot discard an answer
//! the board has not sent yet: the simulator answers a few ms after a
//! request (the board in 110 us), so a client that opens the port within
//! that of an earlier one leaving without its answer may read that answer
//! first. `tcgetattr` on the master returns the slave's settings; the
//! server keeps its own descriptor of the slave open, so the slave's
//! settings (raw, 1 Mbaud from the start) last from one client to the next
//! and the master never sees a hang-up (with every slave descriptor closed
//! it would poll as POLLHUP).

use ldcp_host::DriverError;
use ldcp_sim::board::{BoardIn, BoardModel, BoardOut};
use ldcp_sim::board_shell::{ShellIn, ShellOut};
use ldcp_sim::ports::Ports;
use ldcp_sim::system_board::SystemBoardModel;
use ldcp_sim::uart_bridge::{self as br, LineDecoder};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

/// The board's clock in cycles per microsecond: the 100 MHz oscillator's
/// (`ldcp_hdl::board::CLOCK_MHZ`, a whole number of MHz: a test checks it).
pub const CYCLES_PER_US: u64 = ldcp_hdl::board::CLOCK_MHZ as u64;
/// Clocks per bit at the bitstream's line rate (100 MHz / 1 Mbaud).
pub const BIT_CYCLES: u32 = ldcp_hdl::board::BAUD_DIV;
/// One 8N1 byte at the bitstream's line rate, cycles.
pub const BYTE_CYCLES: u64 = 10 * BIT_CYCLES as u64;
/// Bit times (at the board's 100 clocks per bit: its answer's rate) of idle
/// line the board always runs after a client's last bit.
pub const SETTLE_BITS: u64 = 100;
/// The most bit times one host pause lasts (200 us of board time): three
/// times the bridge's frame timeout, so a client that went away mid-frame
/// is always forgotten; short, because each replayed cycle costs the
/// simulator about 50 times its board time, and a host that is descheduled
/// for a few ms would otherwise stall the next access for as long.
pub const QUIET_MAX_BITS: u64 = 200;
/// [`QUIET_MAX_BITS`] in cycles: the board's clock stops this long after
/// the last event on the line.
pub const QUIET_MAX_CYCLES: u64 = QUIET_MAX_BITS * BIT_CYCLES as u64;
/// Cycles simulated between two looks at the pty: one byte time, so a byte
/// that arrives while the board runs goes on the line at most this late.
pub const CHUNK_CYCLES: u64 = BYTE_CYCLES;
/// Cycles from configuration until the bridge is live: the hold's
/// two-flop synchroniser and the power-on sequencer's count.
pub const POWER_ON_CYCLES: u64 = ldcp_sim::board::POR_DONE as u64 + 4;

// the settle covers a response; a pause can outlast the bridge's frame timeout
const _: () = assert!(SETTLE_BITS > 10 * br::RESP_LEN as u64 + 2);
const _: () = assert!(QUIET_MAX_BITS >= 3 * br::IDLE_TIMEOUT_BITS as u64);

/// Clocks per bit for a host line at `baud`: 100 MHz / baud, rounded.
pub fn bit_cycles(baud: u32) -> u32 {
    let hz = CYCLES_PER_US * 1_000_000;
    ((hz + baud as u64 / 2) / baud.max(1) as u64).max(1) as u32
}

/// What runs the board: the Verilated RTL, the golden model, or both in lock step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The Verilated board core (the bitstream's RTL).
    Rtl,
    /// Its cycle-accurate golden model, `ldcp_sim::board::BoardModel`.
    Model,
    /// Both in lock step, every output compared every cycle (the RTL drives the line; the summary
    /// counts the cycles that differed).
    Lockstep,
}

/// A board core whose UART lines are driven one clock at a time.
pub trait BoardLine {
    /// One clock per entry of `rx` (the host's line into the FPGA, idle
    /// high); the board's line out after each edge is pushed onto `tx`.
    fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>);
    /// What it is.
    fn describe(&self) -> String;
    /// With a model in lock step: the cycles on which it and the RTL differed.
    fn mismatched_cycles(&self) -> Option<u64> {
        None
    }
}

/// Which board core serves: the Alchitry Cu's (the NIC core), or the whole
/// NIC system behind the same shell (the ULX3S's core).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Core {
    /// The Alchitry Cu NIC board core: bridge, register map, NIC core.
    Nic,
    /// The whole NIC system (core, pacing timer, fast-start marker, ACK
    /// generator, WRED/ECN port, loopback) behind the board shell, as the
    /// ULX3S carries it; simulated at the Cu's line timing (100 clocks per
    /// bit, 100 cycles per us), not the ULX3S's 50.
    System,
    /// The Alchitry Cu's complete NIC (the alchitry-cu-nic bitstream: the
    /// core with the sequential window engine, the sequential pacing
    /// timer, fast-start marker and ACK generator, the on-chip loopback;
    /// 256 flows) behind the board shell; simulated at 100 clocks per bit
    /// and 100 cycles per us, not the board's 60 MHz PLL clock.
    Cu,
    /// A P node's switch port (the alchitry-cu-switch bitstream): the
    /// WRED/ECN port, the Fast CNP trigger and its descriptor queue.
    Switch,
    /// A PE's switch port (the alchitry-cu-pe bitstream): the WRED/ECN
    /// port, tunnel ECN ingress and egress, END.CON.
    Pe,
    /// The switch port with every block (the ulx3s-switch bitstream's
    /// core, draft 002's decision included), at the Cu's line timing.
    Full,
}

/// A board core's inputs and outputs as the server drives them.
pub trait LinePorts: Ports + Copy + PartialEq + std::fmt::Debug {
    /// The inputs on the board: the line, the divider tied to
    /// [`BIT_CYCLES`], no hold (the button released).
    fn line(rx: bool) -> Self;
    /// The line out.
    fn tx(&self) -> bool;
}

impl LinePorts for BoardIn {
    fn line(rx: bool) -> Self {
        BoardIn {
            uart_rx: rx,
            cfg_bit_cycles: BIT_CYCLES,
            reset_hold: false,
        }
    }
    fn tx(&self) -> bool {
        false
    }
}

impl LinePorts for BoardOut {
    fn line(_: bool) -> Self {
        BoardOut::default()
    }
    fn tx(&self) -> bool {
        self.uart_tx
    }
}

impl LinePorts for ShellIn {
    fn line(rx: bool) -> Self {
        ShellIn {
            uart_rx: rx,
            cfg_bit_cycles: BIT_CYCLES,
            cfg_led_hold_cycles: ldcp_sim::board_shell::led_hold_cycles(CYCLES_PER_US as f64),
            reset_hold: false,
        }
    }
    fn tx(&self) -> bool {
        false
    }
}

impl LinePorts for ShellOut {
    fn line(_: bool) -> Self {
        ShellOut::default()
    }
    fn tx(&self) -> bool {
        self.uart_tx
    }
}

/// A board core's golden model.
pub trait LineModel {
    /// Its inputs.
    type In: LinePorts;
    /// Its outputs.
    type Out: LinePorts;
    /// One rising edge.
    fn tick(&mut self, i: &Self::In);
    /// The outputs after the last edge.
    fn outputs(&self) -> Self::Out;
    /// What it is.
    fn name() -> &'static str;
}

impl LineModel for BoardModel {
    type In = BoardIn;
    type Out = BoardOut;
    fn tick(&mut self, i: &BoardIn) {
        BoardModel::tick(self, i)
    }
    fn outputs(&self) -> BoardOut {
        BoardModel::outputs(self)
    }
    fn name() -> &'static str {
        "board_core golden model (BoardModel)"
    }
}

impl LineModel for ldcp_sim::switch_board::SwitchBoardModel {
    type In = ShellIn;
    type Out = ShellOut;
    fn tick(&mut self, i: &ShellIn) {
        ldcp_sim::switch_board::SwitchBoardModel::tick(self, i)
    }
    fn outputs(&self) -> ShellOut {
        ldcp_sim::switch_board::SwitchBoardModel::outputs(self)
    }
    fn name() -> &'static str {
        "switch board core golden model (SwitchBoardModel)"
    }
}

impl LineModel for SystemBoardModel {
    type In = ShellIn;
    type Out = ShellOut;
    fn tick(&mut self, i: &ShellIn) {
        SystemBoardModel::tick(self, i)
    }
    fn outputs(&self) -> ShellOut {
        SystemBoardModel::outputs(self)
    }
    fn name() -> &'static str {
        "system_board_core golden model (SystemBoardModel)"
    }
}

impl LineModel for ldcp_sim::cu_board::CuBoardModel {
    type In = ShellIn;
    type Out = ShellOut;
    fn tick(&mut self, i: &ShellIn) {
        ldcp_sim::cu_board::CuBoardModel::tick(self, i)
    }
    fn outputs(&self) -> ShellOut {
        ldcp_sim::cu_board::CuBoardModel::outputs(self)
    }
    fn name() -> &'static str {
        "cu_board_core golden model (CuBoardModel)"
    }
}

/// A Verilated board core.
pub struct VerilatedBoard<M: LineModel> {
    inst: ldcp_sim::cosim::Instance,
    row_idle: Vec<u64>,
    row_start: Vec<u64>,
    ins: Vec<u64>,
    outs: Vec<u64>,
    name: &'static str,
    build: ldcp_hdl::nic_core::BuildId,
    _m: std::marker::PhantomData<M>,
}

impl<M: LineModel> VerilatedBoard<M> {
    /// Verilates `verilog` (module `name`; cached under the work
    /// directory: the first time takes a minute or two).
    fn from_verilog(
        verilog: &str,
        name: &'static str,
        build: ldcp_hdl::nic_core::BuildId,
    ) -> Result<Self, DriverError> {
        use ldcp_sim::cosim::{BuildSpec, VerilatedLib};
        let sim = |e: &dyn std::fmt::Display| DriverError::Sim(format!("{name}: {e}"));
        let spec = BuildSpec::new(verilog, name, M::In::PORTS, M::Out::PORTS, false)
            .map_err(|e| sim(&e))?;
        let lib = VerilatedLib::build(&spec).map_err(|e| sim(&e))?;
        let mut row_idle = vec![0; M::In::PORTS.len()];
        let mut row_start = row_idle.clone();
        M::In::line(true).to_ports(&mut row_idle);
        M::In::line(false).to_ports(&mut row_start);
        Ok(VerilatedBoard {
            inst: lib.instance(),
            row_idle,
            row_start,
            ins: Vec::new(),
            outs: Vec::new(),
            name,
            build,
            _m: std::marker::PhantomData,
        })
    }

    /// One clock per entry of `rx`; the output rows, `M::Out::PORTS`
    /// values each.
    fn run_rows(&mut self, rx: &[bool]) -> &[u64] {
        self.ins.clear();
        for &b in rx {
            self.ins
                .extend_from_slice(if b { &self.row_idle } else { &self.row_start });
        }
        self.outs.resize(rx.len() * M::Out::PORTS.len(), 0);
        self.inst.run(rx.len(), &self.ins, &mut self.outs);
        &self.outs
    }
}

impl VerilatedBoard<BoardModel> {
    /// The Alchitry Cu board core stamped with `build`, verilated.
    pub fn build(build: ldcp_hdl::nic_core::BuildId) -> Result<Self, DriverError> {
        let v = ldcp_hdl::board::core_verilog(build)
            .map_err(|e| DriverError::Sim(format!("board core: {e}")))?;
        Self::from_verilog(&v, ldcp_hdl::board::MODULE.name, build)
    }
}

impl VerilatedBoard<SystemBoardModel> {
    /// The whole-system board core stamped with `build`, verilated.
    pub fn build(build: ldcp_hdl::nic_core::BuildId) -> Result<Self, DriverError> {
        let v = ldcp_hdl::system_board::core_verilog(build)
            .map_err(|e| DriverError::Sim(format!("system board core: {e}")))?;
        Self::from_verilog(&v, ldcp_hdl::system_board::MODULE.name, build)
    }
}

impl VerilatedBoard<ldcp_sim::cu_board::CuBoardModel> {
    /// The Alchitry Cu's complete-NIC board core stamped with `build`,
    /// verilated.
    pub fn build(build: ldcp_hdl::nic_core::BuildId) -> Result<Self, DriverError> {
        let v = ldcp_hdl::cu_board::core_verilog(build)
            .map_err(|e| DriverError::Sim(format!("Cu NIC board core: {e}")))?;
        Self::from_verilog(&v, ldcp_hdl::cu_board::MODULE.name, build)
    }
}

impl VerilatedBoard<ldcp_sim::switch_board::SwitchBoardModel> {
    /// The switch board core of `role` (P or PE) stamped with `build`,
    /// verilated.
    pub fn build_switch(
        build: ldcp_hdl::nic_core::BuildId,
        role: ldcp_sim::switch_board::SwitchRole,
    ) -> Result<Self, DriverError> {
        use ldcp_hdl::switch_board as sb;
        use ldcp_sim::switch_board::SwitchRole;
        let (v, name) = match role {
            SwitchRole::Pe => (sb::pe_core_verilog(build), sb::PE_MODULE.name),
            SwitchRole::Full => (sb::full_core_verilog(build), sb::FULL_MODULE.name),
            SwitchRole::P => (sb::core_verilog(build), sb::MODULE.name),
        };
        let v = v.map_err(|e| DriverError::Sim(format!("switch board core: {e}")))?;
        Self::from_verilog(&v, name, build)
    }
}

impl<M: LineModel> BoardLine for VerilatedBoard<M> {
    fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>) {
        let rows = self.run_rows(rx);
        tx.extend(
            rows.chunks_exact(M::Out::PORTS.len())
                .map(|row| M::Out::from_ports(row).tx()),
        );
    }

    fn describe(&self) -> String {
        format!(
            "Verilated {} (git {:08x}{})",
            self.name,
            self.build.hash,
            if self.build.dirty { ", dirty" } else { "" }
        )
    }
}

/// The Verilated board core with its golden model in lock step on the same
/// line: every output (the line out, the core's bus and taps) compared
/// every cycle; the RTL drives the line.
pub struct LockStepBoard<M: LineModel> {
    rtl: VerilatedBoard<M>,
    model: M,
    cycles: u64,
    mismatched: u64,
    first: Option<(u64, M::Out, M::Out)>,
}

impl<M: LineModel> LockStepBoard<M> {
    /// Both.
    pub fn new(rtl: VerilatedBoard<M>, model: M) -> Self {
        LockStepBoard {
            rtl,
            model,
            cycles: 0,
            mismatched: 0,
            first: None,
        }
    }
}

impl<M: LineModel> BoardLine for LockStepBoard<M> {
    fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>) {
        let rows = self.rtl.run_rows(rx);
        for (row, &b) in rows.chunks_exact(M::Out::PORTS.len()).zip(rx) {
            let got = M::Out::from_ports(row);
            self.model.tick(&M::In::line(b));
            let want = self.model.outputs();
            if got != want {
                self.mismatched += 1;
                self.first.get_or_insert((self.cycles, got, want));
            }
            self.cycles += 1;
            tx.push(got.tx());
        }
    }

    fn describe(&self) -> String {
        let first = match &self.first {
            None => String::new(),
            Some((c, got, want)) => format!("; first at cycle {c}: RTL {got:?}, model {want:?}"),
        };
        format!(
            "{} and its golden model in lock step ({} of {} cycles differing{first})",
            self.rtl.describe(),
            self.mismatched,
            self.cycles
        )
    }

    fn mismatched_cycles(&self) -> Option<u64> {
        Some(self.mismatched)
    }
}

/// A board core's golden model on the line.
pub struct ModelBoard<M: LineModel>(pub M);

impl<M: LineModel> BoardLine for ModelBoard<M> {
    fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>) {
        for &b in rx {
            self.0.tick(&M::In::line(b));
            tx.push(self.0.outputs().tx());
        }
    }

    fn describe(&self) -> String {
        M::name().into()
    }
}

/// Opens the board core `core` that `engine` runs, stamped with `build`.
pub fn open_board(
    core: Core,
    engine: Engine,
    build: ldcp_hdl::nic_core::BuildId,
) -> Result<Box<dyn BoardLine + Send>, DriverError> {
    let (h, d) = (build.hash, build.dirty);
    let sys = || SystemBoardModel::new(ldcp_sim::nic_system::NicSystemModel::new_4k(h, d));
    Ok(match (core, engine) {
        (Core::Nic, Engine::Rtl) => Box::new(VerilatedBoard::<BoardModel>::build(build)?),
        (Core::Nic, Engine::Model) => Box::new(ModelBoard(BoardModel::new(h, d))),
        (Core::Nic, Engine::Lockstep) => Box::new(LockStepBoard::new(
            VerilatedBoard::<BoardModel>::build(build)?,
            BoardModel::new(h, d),
        )),
        (Core::System, Engine::Rtl) => Box::new(VerilatedBoard::<SystemBoardModel>::build(build)?),
        (Core::System, Engine::Model) => Box::new(ModelBoard(sys())),
        (Core::System, Engine::Lockstep) => Box::new(LockStepBoard::new(
            VerilatedBoard::<SystemBoardModel>::build(build)?,
            sys(),
        )),
        (Core::Cu, engine) => {
            use ldcp_sim::cu_board::CuBoardModel;
            let model = || CuBoardModel::new(ldcp_sim::nic_cu::NicCuModel::new(h, d));
            let rtl = || VerilatedBoard::<CuBoardModel>::build(build);
            match engine {
                Engine::Rtl => Box::new(rtl()?),
                Engine::Model => Box::new(ModelBoard(model())),
                Engine::Lockstep => Box::new(LockStepBoard::new(rtl()?, model())),
            }
        }
        (Core::Switch | Core::Pe | Core::Full, engine) => {
            use ldcp_sim::switch_board::{SwitchBoardModel, SwitchCoreModel, SwitchRole};
            let role = match core {
                Core::Pe => SwitchRole::Pe,
                Core::Full => SwitchRole::Full,
                _ => SwitchRole::P,
            };
            let model = || SwitchBoardModel::new(SwitchCoreModel::of_role(h, d, role));
            let rtl = || VerilatedBoard::<SwitchBoardModel>::build_switch(build, role);
            match engine {
                Engine::Rtl => Box::new(rtl()?),
                Engine::Model => Box::new(ModelBoard(model())),
                Engine::Lockstep => Box::new(LockStepBoard::new(rtl()?, model())),
            }
        }
    })
}

impl<B: BoardLine + ?Sized> BoardLine for Box<B> {
    fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>) {
        (**self).run(rx, tx)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn mismatched_cycles(&self) -> Option<u64> {
        (**self).mismatched_cycles()
    }
}

/// A board cycle tied to a wall-clock instant (rule 1).
#[derive(Clone, Copy, Debug)]
struct Anchor {
    cycle: u64,
    at: Instant,
}

impl Anchor {
    /// The cycle at which a byte written at `now` may start (rule 2).
    fn due(&self, now: Instant) -> u64 {
        let ns = now.saturating_duration_since(self.at).as_nanos();
        let pause = (ns * CYCLES_PER_US as u128 / 1000).min(QUIET_MAX_CYCLES as u128) as u64;
        self.cycle + pause
    }
}

/// The board and its line, advanced by the time rule of the module doc.
pub struct SimBoard<B: BoardLine> {
    board: B,
    /// The host's line not yet clocked in: (level, cycles) runs.
    rx: VecDeque<(bool, u64)>,
    /// The cycles in `rx`.
    rx_cycles: u64,
    /// Clocks per bit of the host's line rate.
    host_div: u32,
    dec: LineDecoder,
    /// Bytes decoded from the board's line, not yet taken.
    tx: Vec<u8>,
    /// The cycle after the stop bit of the last byte in `tx`.
    tx_end: u64,
    /// Settle cycles still to run (rule 3).
    settle_left: u64,
    anchor: Anchor,
    cycles: u64,
    sim_time: Duration,
    chunk_rx: Vec<bool>,
    chunk_tx: Vec<bool>,
}

impl<B: BoardLine> SimBoard<B> {
    /// Powers the board up (the sequencer's CORE_RESET), then reads MAGIC
    /// through the bridge as a self-check; the answer is the first anchor.
    pub fn power_on(board: B) -> Result<Self, DriverError> {
        let now = Instant::now();
        let mut s = Self::configured(board, now);
        s.run_idle(POWER_ON_CYCLES);
        s.anchor.cycle = s.cycles;
        s.host_bytes(
            &br::request(false, ldcp_host::regs::magic::OFFSET, 0),
            ldcp_hdl::board::BAUD,
            now,
        );
        while s.step(now) > 0 {}
        let got = s.take_tx(Instant::now());
        let ok = <[u8; br::RESP_LEN]>::try_from(&got[..])
            .ok()
            .and_then(|r| br::parse_response(&r).ok());
        if ok != Some((br::ST_OK, ldcp_host::regs::MAGIC)) {
            return Err(DriverError::Sim(format!(
                "{}: the power-on self-check read of MAGIC answered {got:02x?}",
                s.board.describe()
            )));
        }
        Ok(s)
    }

    /// The board at configuration, its line idle, anchored at `now`.
    fn configured(board: B, now: Instant) -> Self {
        SimBoard {
            board,
            rx: VecDeque::new(),
            rx_cycles: 0,
            host_div: BIT_CYCLES,
            dec: LineDecoder::new(BIT_CYCLES),
            tx: Vec::new(),
            tx_end: 0,
            settle_left: 0,
            anchor: Anchor { cycle: 0, at: now },
            cycles: 0,
            sim_time: Duration::ZERO,
            chunk_rx: Vec::new(),
            chunk_tx: Vec::new(),
        }
    }

    /// What runs the board.
    pub fn describe(&self) -> String {
        self.board.describe()
    }

    /// With a model in lock step: the cycles on which it and the RTL differed.
    pub fn mismatched_cycles(&self) -> Option<u64> {
        self.board.mismatched_cycles()
    }

    /// Board cycles since configuration.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Host time spent simulating.
    pub fn sim_time(&self) -> Duration {
        self.sim_time
    }

    /// Whether the host's last bytes are clocked in and settled.
    pub fn settled(&self) -> bool {
        self.rx_cycles == 0 && self.settle_left == 0
    }

    /// Bytes from the host, written at `baud`, arriving at `now`: they go
    /// on the line where rule 2 puts them, the pause before them idle.
    pub fn host_bytes(&mut self, bytes: &[u8], baud: u32, now: Instant) {
        let start = self.start_cycle(now);
        self.push_rx(true, start - (self.cycles + self.rx_cycles));
        let div = bit_cycles(baud);
        if div != self.host_div {
            // the host changed its rate: its receiver now samples at the new one
            self.host_div = div;
            self.dec = LineDecoder::new(div);
        }
        // 8N1, LSB first: what `br::serialize` makes, as runs of `div` clocks
        for &b in bytes {
            let frame = 0x200u16 | (b as u16) << 1;
            for bit in 0..10 {
                self.push_rx(frame >> bit & 1 != 0, div as u64);
            }
        }
        self.settle_left = 0;
        self.anchor = Anchor {
            cycle: start,
            at: now,
        };
    }

    /// The cycle at which a byte the host writes at `now` starts (rule 2).
    pub fn start_cycle(&self, now: Instant) -> u64 {
        (self.cycles + self.rx_cycles).max(self.anchor.due(now))
    }

    fn push_rx(&mut self, level: bool, cycles: u64) {
        if cycles == 0 {
            return;
        }
        match self.rx.back_mut() {
            Some((l, n)) if *l == level => *n += cycles,
            _ => self.rx.push_back((level, cycles)),
        }
        self.rx_cycles += cycles;
    }

    /// Whether there are cycles to run at `now`.
    pub fn pending(&self, now: Instant) -> bool {
        !self.settled() || self.cycles < self.anchor.due(now)
    }

    /// Runs at most [`CHUNK_CYCLES`] of what is due at `now`; the cycles run.
    pub fn step(&mut self, now: Instant) -> u64 {
        if self.rx_cycles > 0 {
            let n = CHUNK_CYCLES.min(self.rx_cycles);
            let mut chunk = std::mem::take(&mut self.chunk_rx);
            chunk.clear();
            while (chunk.len() as u64) < n {
                let Some((level, len)) = self.rx.front_mut() else {
                    break;
                };
                let k = (*len).min(n - chunk.len() as u64);
                chunk.extend(std::iter::repeat_n(*level, k as usize));
                *len -= k;
                if *len == 0 {
                    self.rx.pop_front();
                }
            }
            self.rx_cycles -= n;
            self.run_line(&chunk);
            self.chunk_rx = chunk;
            if self.rx_cycles == 0 {
                // the board answers at its own rate, whatever the host's
                self.settle_left = SETTLE_BITS * BIT_CYCLES as u64;
            }
            return n;
        }
        let n = if self.settle_left > 0 {
            CHUNK_CYCLES.min(self.settle_left)
        } else {
            CHUNK_CYCLES.min(self.anchor.due(now).saturating_sub(self.cycles))
        };
        self.run_idle(n);
        self.settle_left = self.settle_left.saturating_sub(n);
        n
    }

    /// The bytes decoded from the board's line since the last call, to be
    /// written to the pty at `now` (an event: the anchor moves to them).
    pub fn take_tx(&mut self, now: Instant) -> Vec<u8> {
        if !self.tx.is_empty() {
            self.anchor = Anchor {
                cycle: self.tx_end,
                at: now,
            };
        }
        std::mem::take(&mut self.tx)
    }

    fn run_idle(&mut self, mut n: u64) {
        let mut idle = std::mem::take(&mut self.chunk_rx);
        while n > 0 {
            let k = n.min(4 * CHUNK_CYCLES) as usize;
            idle.clear();
            idle.resize(k, true);
            self.run_line(&idle);
            n -= k as u64;
        }
        self.chunk_rx = idle;
    }

    fn run_line(&mut self, rx: &[bool]) {
        let t0 = Instant::now();
        self.chunk_tx.clear();
        self.board.run(rx, &mut self.chunk_tx);
        for (i, &b) in self.chunk_tx.iter().enumerate() {
            if let Some(byte) = self.dec.push(b) {
                self.tx.push(byte);
                self.tx_end = self.cycles + i as u64 + 1;
            }
        }
        self.chunk_tx.clear();
        self.cycles += rx.len() as u64;
        self.sim_time += t0.elapsed();
    }
}

/// A pseudo-terminal: the server's master, and its own descriptor of the
/// slave (the port clients open), raw at the bitstream's line rate.
pub struct Pty {
    master: std::fs::File,
    slave: std::fs::File,
    path: PathBuf,
}

impl Pty {
    /// A new pty, its slave raw 8N1 at 1 Mbaud, its master non-blocking.
    pub fn open() -> Result<Self, DriverError> {
        let io = |what: &str| DriverError::Io {
            context: format!("creating the pseudo-terminal ({what})"),
            source: std::io::Error::last_os_error(),
        };
        // SAFETY: plain libc calls on a descriptor this function owns; the
        // name buffer is large enough and NUL-terminated by ptsname_r.
        let (master, path) = unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            if fd < 0 {
                return Err(io("posix_openpt"));
            }
            let master = std::fs::File::from_raw_fd(fd);
            if libc::grantpt(fd) != 0 {
                return Err(io("grantpt"));
            }
            if libc::unlockpt(fd) != 0 {
                return Err(io("unlockpt"));
            }
            let mut name = [0 as libc::c_char; 128];
            if libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) != 0 {
                return Err(io("ptsname_r"));
            }
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) != 0 {
                return Err(io("O_NONBLOCK"));
            }
            let path = std::ffi::CStr::from_ptr(name.as_ptr())
                .to_string_lossy()
                .into_owned();
            (master, PathBuf::from(path))
        };
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(&path)
            .map_err(|e| DriverError::Io {
                context: format!("opening {}", path.display()),
                source: e,
            })?;
        ldcp_host::backend::uart::make_raw(&slave, ldcp_hdl::board::BAUD).map_err(|e| {
            DriverError::Io {
                context: format!("configuring {}", path.display()),
                source: e,
            }
        })?;
        Ok(Pty {
            master,
            slave,
            path,
        })
    }

    /// The port clients open.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The line rate the port is set to (by its last client), in baud;
    /// `None` for a rate termios has no number for (B0).
    pub fn baud(&self) -> Option<u32> {
        // SAFETY: tcgetattr fills the zeroed struct from an open descriptor.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(self.slave.as_raw_fd(), &mut t) != 0 {
                return None;
            }
            ldcp_host::backend::uart::baud_of(libc::cfgetospeed(&t))
        }
    }
}

/// When `serve` stops (besides SIGINT, SIGTERM and SIGHUP).
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Stop once no byte has come for this long and the board has settled.
    pub exit_after_idle: Option<Duration>,
    /// Stop once this is set (a server in a thread).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What a `serve` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ServeSummary {
    /// Why it stopped: "SIGINT", "SIGTERM", "SIGHUP", "idle" or "stop".
    pub stopped_by: String,
    /// Board cycles since configuration.
    pub cycles: u64,
    /// Board cycles run while serving.
    pub served_cycles: u64,
    /// Bytes the clients wrote.
    pub host_bytes: u64,
    /// Bytes the board sent that reached the pty.
    pub board_bytes: u64,
    /// Bytes the board sent that the pty had no room for (a client that
    /// does not read), dropped as the FT2232's full buffer drops them.
    pub board_bytes_dropped: u64,
    /// Wall time served.
    pub wall_seconds: f64,
    /// Host time spent simulating.
    pub sim_seconds: f64,
    /// Board cycles per second of simulation.
    pub cycles_per_second: f64,
    /// `--engine lockstep`: the cycles on which the RTL and the model differed.
    pub mismatched_cycles: Option<u64>,
    /// What ran the board (with the lock step's first difference).
    pub engine: String,
}

/// The signal that asked the server to stop (0: none yet).
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    // an atomic store is async-signal-safe
    STOP_SIGNAL.store(sig, Ordering::SeqCst);
}

/// Makes SIGINT, SIGTERM and SIGHUP ask [`serve`] to stop (it returns
/// within [`POLL_MS`] and a simulation chunk) instead of killing the
/// process.
pub fn stop_on_signals() -> Result<(), DriverError> {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a handler that only stores an atomic;
        // no SA_RESTART, so a blocked poll returns EINTR at once.
        let rc = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(DriverError::Io {
                context: "installing the signal handlers".into(),
                source: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// The stop signal received so far, by name.
pub fn stop_requested() -> Option<&'static str> {
    match STOP_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        libc::SIGINT => Some("SIGINT"),
        libc::SIGTERM => Some("SIGTERM"),
        libc::SIGHUP => Some("SIGHUP"),
        _ => Some("signal"),
    }
}

/// The longest the server waits for bytes before it looks at the signals
/// and the idle limit again.
pub const POLL_MS: u64 = 20;

/// Bytes a client wrote, dated when the reader thread got them.
struct Arrival {
    at: Instant,
    /// The line rate the port was set to then.
    baud: u32,
    bytes: Vec<u8>,
}

/// The reader thread: waits on the pty's master and dates each read, so a
/// host's pauses are measured while the simulator is busy (rule 2 needs
/// when bytes were written, not when the simulator got round to them).
fn read_host(
    pty: &Pty,
    done: &std::sync::atomic::AtomicBool,
    out: Sender<std::io::Result<Arrival>>,
) {
    let mut buf = [0u8; 4096];
    while !done.load(Ordering::Relaxed) {
        let mut pfd = libc::pollfd {
            fd: pty.master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, POLL_MS as i32) };
        if ready <= 0 || pfd.revents & libc::POLLIN == 0 {
            continue;
        }
        let r = match (&pty.master).read(&mut buf) {
            Ok(0) => continue,
            Ok(n) => Ok(Arrival {
                at: Instant::now(),
                baud: pty.baud().unwrap_or(ldcp_hdl::board::BAUD),
                bytes: buf[..n].to_vec(),
            }),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) => Err(e),
        };
        let fatal = r.is_err();
        if out.send(r).is_err() || fatal {
            return;
        }
    }
}

/// Serves `board` on `pty` until a stop signal or, with
/// `exit_after_idle`, a quiet line.
pub fn serve<B: BoardLine>(
    board: &mut SimBoard<B>,
    pty: &Pty,
    opts: &ServeOptions,
) -> Result<ServeSummary, DriverError> {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = scope.spawn(|| read_host(pty, &done, tx));
        let r = serve_loop(board, pty, opts, &rx);
        done.store(true, Ordering::Relaxed);
        let _ = reader.join();
        r
    })
}

fn serve_loop<B: BoardLine>(
    board: &mut SimBoard<B>,
    pty: &Pty,
    opts: &ServeOptions,
    arrivals: &Receiver<std::io::Result<Arrival>>,
) -> Result<ServeSummary, DriverError> {
    use std::sync::mpsc::RecvTimeoutError;
    let t0 = Instant::now();
    let (c0, s0) = (board.cycles(), board.sim_time());
    let mut last_byte = t0;
    let (mut host_bytes, mut board_bytes, mut dropped) = (0u64, 0u64, 0u64);
    let io = |e: std::io::Error| DriverError::Io {
        context: format!("serving {}", pty.path.display()),
        source: e,
    };
    let stopped_by = loop {
        if let Some(s) = stop_requested() {
            break s.to_string();
        }
        if opts
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            break "stop".to_string();
        }
        let now = Instant::now();
        if let Some(limit) = opts.exit_after_idle {
            if board.settled() && now.duration_since(last_byte) >= limit {
                break "idle".to_string();
            }
        }
        let wait = if board.pending(now) {
            Duration::ZERO
        } else {
            Duration::from_millis(POLL_MS)
        };
        let first = match arrivals.recv_timeout(wait) {
            Ok(a) => Some(a),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(DriverError::Sim(format!(
                    "the reader of {} stopped",
                    pty.path.display()
                )))
            }
        };
        for a in first.into_iter().chain(arrivals.try_iter()) {
            let a = a.map_err(io)?;
            board.host_bytes(&a.bytes, a.baud, a.at);
            host_bytes += a.bytes.len() as u64;
            last_byte = a.at;
        }
        board.step(Instant::now());
        let out = board.take_tx(Instant::now());
        let mut sent = 0;
        while sent < out.len() {
            match (&pty.master).write(&out[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // no room in the pty: the rest is lost, as in a full FT2232
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(io(e)),
            }
        }
        board_bytes += sent as u64;
        dropped += (out.len() - sent) as u64;
    };
    let served_cycles = board.cycles() - c0;
    let sim = (board.sim_time() - s0).as_secs_f64();
    Ok(ServeSummary {
        stopped_by,
        cycles: board.cycles(),
        served_cycles,
        host_bytes,
        board_bytes,
        board_bytes_dropped: dropped,
        wall_seconds: t0.elapsed().as_secs_f64(),
        sim_seconds: sim,
        cycles_per_second: served_cycles as f64 / sim.max(1e-9),
        mismatched_cycles: board.mismatched_cycles(),
        engine: board.describe(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> SimBoard<ModelBoard<BoardModel>> {
        SimBoard::power_on(ModelBoard(BoardModel::new(0, true))).unwrap()
    }

    /// Runs everything due at `now`; the bytes the board sent, taken at `now`.
    fn drain<B: BoardLine>(b: &mut SimBoard<B>, now: Instant) -> Vec<u8> {
        while b.step(now) > 0 {}
        b.take_tx(now)
    }

    fn answer(bytes: &[u8]) -> Option<(u8, u32)> {
        let r: [u8; br::RESP_LEN] = bytes.try_into().ok()?;
        br::parse_response(&r).ok()
    }

    /// A powered-up board whose last event is a read answered at `t`.
    fn board_at(t: Instant) -> SimBoard<ModelBoard<BoardModel>> {
        let mut b = model();
        b.host_bytes(&br::request(false, 0, 0), 1_000_000, t);
        assert_eq!(
            answer(&drain(&mut b, t)),
            Some((br::ST_OK, ldcp_host::regs::MAGIC))
        );
        b
    }

    const US: Duration = Duration::from_micros(1);

    /// A board that records its line in and never answers.
    #[derive(Default)]
    struct Probe {
        line: Vec<bool>,
    }

    impl BoardLine for Probe {
        fn run(&mut self, rx: &[bool], tx: &mut Vec<bool>) {
            self.line.extend_from_slice(rx);
            tx.extend(rx.iter().map(|_| true));
        }
        fn describe(&self) -> String {
            "probe".into()
        }
    }

    #[test]
    fn sim_board_line_is_the_hosts_bytes_at_its_rate() {
        for baud in [1_000_000, 115_200] {
            let t = Instant::now();
            let mut b = SimBoard::configured(Probe::default(), t);
            let bytes = [0xA5, 0x3C, 0x00, 0xFF];
            b.host_bytes(&bytes[..1], baud, t);
            b.step(t);
            // the rest arrives 5 us later, while the first is on the line:
            // back to back
            b.host_bytes(&bytes[1..], baud, t + 5 * US);
            // and one more 1 ms later: it starts 200 us (the cap) after the
            // last event, the second write's start, or after the queued
            // bytes if they last longer (at 115200 baud)
            b.host_bytes(&[0x42], baud, t + 1000 * US);
            drain(&mut b, t + 1000 * US);
            let byte = 10 * bit_cycles(baud) as usize;
            let mut want = Vec::new();
            br::serialize(&bytes, bit_cycles(baud), &mut want);
            let start = want.len().max(byte + QUIET_MAX_CYCLES as usize);
            want.resize(start, true);
            br::serialize(&[0x42], bit_cycles(baud), &mut want);
            let n = want.len();
            let first_diff = (0..n).find(|&i| b.board.line.get(i) != Some(&want[i]));
            assert_eq!(first_diff, None, "{baud} baud: the line differs");
            // then the settle, idle, at the board's rate
            assert_eq!(
                b.board.line.len(),
                n + (SETTLE_BITS * BIT_CYCLES as u64) as usize
            );
            assert!(b.board.line[n..].iter().all(|&l| l));
        }
    }

    #[test]
    fn sim_board_constants_match_the_board() {
        assert_eq!(CYCLES_PER_US as f64, ldcp_hdl::board::CLOCK_MHZ);
        assert_eq!(bit_cycles(ldcp_hdl::board::BAUD), BIT_CYCLES);
        // 100 MHz / 115,200 baud = 868.06
        assert_eq!(bit_cycles(115_200), 868);
    }

    #[test]
    fn sim_board_answers_a_read_after_the_line_time() {
        let t = Instant::now();
        let mut b = board_at(t);
        let addr = ldcp_host::regs::alpha::OFFSET;
        b.host_bytes(&br::request(true, addr, 77), 1_000_000, t);
        assert_eq!(answer(&drain(&mut b, t)), Some((br::ST_OK, 0)));
        // a read written at once: the board already ran past the answer
        // (the settle), so it starts at the present cycle
        assert_eq!(b.start_cycle(t), b.cycles());
        let before = b.cycles();
        b.host_bytes(&br::request(false, addr, 0), 1_000_000, t);
        assert_eq!(answer(&drain(&mut b, t)), Some((br::ST_OK, 77)));
        // the request's 90 bits, then the settle; nothing for the wall clock
        assert_eq!(
            b.cycles() - before,
            br::REQ_LEN as u64 * BYTE_CYCLES + SETTLE_BITS * BIT_CYCLES as u64
        );
        assert!(b.settled() && !b.pending(t));
    }

    #[test]
    fn sim_board_replays_host_pauses_up_to_the_cap() {
        let t = Instant::now();
        let mut b = board_at(t);
        let long = Duration::from_secs(1);
        // the cycle of the answer's stop bit
        let anchor = b.start_cycle(t + long) - QUIET_MAX_CYCLES;
        // the settle ran past the answer: a pause of 10 us is lost...
        assert_eq!(b.start_cycle(t + 10 * US), b.cycles());
        // ...one of 150 us (past the settle's 100 bit times) is 150 us of
        // board cycles after the answer's stop bit
        let p = 150 * CYCLES_PER_US;
        assert!(p > SETTLE_BITS * BIT_CYCLES as u64 && p < QUIET_MAX_CYCLES);
        assert_eq!(b.start_cycle(t + 150 * US), anchor + p);
        assert!(b.pending(t + 150 * US));
        drain(&mut b, t + 150 * US);
        assert_eq!(b.cycles(), anchor + p);
        // a second's pause is capped at 200 us of board time, and the
        // board stops there
        drain(&mut b, t + long);
        assert_eq!(b.cycles(), anchor + QUIET_MAX_CYCLES);
        assert!(!b.pending(t + 2 * long));
        // a byte written 150 us after the next answer starts 150 us of
        // board cycles after that answer's stop bit, and the settle follows
        // its 10 bits
        let t3 = t + 2 * long;
        b.host_bytes(&br::request(false, 0, 0), 1_000_000, t3);
        drain(&mut b, t3);
        let anchor3 = b.start_cycle(t3 + long) - QUIET_MAX_CYCLES;
        let start = b.start_cycle(t3 + 150 * US);
        assert_eq!(start, anchor3 + p);
        b.host_bytes(&[0], 1_000_000, t3 + 150 * US);
        drain(&mut b, t3 + 150 * US);
        assert_eq!(
            b.cycles(),
            start + BYTE_CYCLES + SETTLE_BITS * BIT_CYCLES as u64
        );
    }

    #[test]
    fn sim_board_drops_a_frame_cut_short() {
        let t = Instant::now();
        let mut b = board_at(t);
        let addr = ldcp_host::regs::alpha::OFFSET;
        let w = br::request(true, addr, 9);
        // a client writes half a frame and goes away; the next one writes
        // 1 ms later, while the simulator is still settling after the half
        // frame: its bytes start 200 us of board time (the cap) after the
        // half frame, past the bridge's frame timeout, and are not taken as
        // its rest
        b.host_bytes(&w[..4], 1_000_000, t);
        for _ in 0..5 {
            b.step(t);
        }
        assert!(!b.settled());
        assert!(b.take_tx(t).is_empty(), "no answer to half a frame");
        b.host_bytes(&w[4..], 1_000_000, t + 1000 * US);
        assert!(drain(&mut b, t + 1000 * US).is_empty(), "no frame");
        let t2 = t + 2000 * US;
        b.host_bytes(&br::request(false, addr, 0), 1_000_000, t2);
        assert_eq!(
            answer(&drain(&mut b, t2)),
            Some((br::ST_OK, ldcp_host::regs::alpha::RESET))
        );
        // the same half frame with the rest written while it is still on
        // the line is one frame, sent back to back
        let t3 = t2 + 2000 * US;
        b.host_bytes(&w[..4], 1_000_000, t3);
        b.step(t3);
        b.host_bytes(&w[4..], 1_000_000, t3 + 5 * US);
        assert_eq!(answer(&drain(&mut b, t3 + 5 * US)), Some((br::ST_OK, 0)));
        b.host_bytes(&br::request(false, addr, 0), 1_000_000, t3 + 2000 * US);
        assert_eq!(answer(&drain(&mut b, t3 + 2000 * US)), Some((br::ST_OK, 9)));
    }

    #[test]
    fn sim_board_at_a_wrong_rate_gets_no_answer() {
        let t = Instant::now();
        let mut b = board_at(t);
        b.host_bytes(&br::request(false, 0, 0), 115_200, t);
        let got = drain(&mut b, t);
        assert_ne!(
            answer(&got),
            Some((br::ST_OK, ldcp_host::regs::MAGIC)),
            "{got:02x?}"
        );
        // back at the board's rate a millisecond later, the line works
        let t2 = t + 1000 * US;
        b.host_bytes(&br::request(false, 0, 0), 1_000_000, t2);
        assert_eq!(
            answer(&drain(&mut b, t2)),
            Some((br::ST_OK, ldcp_host::regs::MAGIC))
        );
    }
}
