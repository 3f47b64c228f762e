//! `ldcpctl`: drive an LDCP device, the NIC or the switch port: identify
//! it, set its parameters, read and set flows, send packets to the WRED/ECN
//! port and the switch port's draft-001 blocks (tunnel ECN, END.CON, Fast
//! CNP), read its counters, and measure its throughput.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use ldcp_host::{parse_assignment, parse_typed, Device, DriverError, Param, Typed};
use ldcpctl::backend::{self, Kind, Target};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Drive an LDCP device: the NIC, or the switch port (register map docs/regmap.md).
///
/// The default backend is the simulated device: the Verilated NIC core,
/// built on first use (a minute or two, then cached). Each invocation
/// starts a fresh simulated device at power-up; hardware keeps its state
/// between invocations, and so does the simulated board of `serve-sim`
/// (reached with `--backend uart --port <its pty>`).
#[derive(Parser, Debug)]
#[command(name = "ldcpctl", version)]
struct Cli {
    /// Where the device is.
    #[arg(long, value_enum, default_value = "sim", global = true)]
    backend: Kind,
    /// pcie: the device's PCI address, DDDD:BB:DD.F (see lspci -D).
    #[arg(long, global = true)]
    bdf: Option<String>,
    /// pcie: map this file instead of the sysfs BAR (tests, VFIO dumps).
    #[arg(long, global = true)]
    bar_file: Option<std::path::PathBuf>,
    /// uart: the board's serial port (Alchitry Cu, NIC or switch port; ULX3S).
    #[arg(long, global = true, default_value = "/dev/ttyUSB1")]
    port: std::path::PathBuf,
    /// uart: the line rate the bitstream was built for.
    #[arg(long, global = true, default_value_t = ldcp_sim::uart_bridge::DEFAULT_BAUD)]
    baud: u32,
    /// Print one JSON object on stdout.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Identify the device: what it is (NIC or switch port), register-map version, build, sizes.
    Probe,
    /// Read or set parameters by name (the parameter registers of docs/regmap.md; `config get`
    /// lists them, with their units and legal ranges).
    Config {
        #[command(subcommand)]
        op: ConfigOp,
    },
    /// Read, set or reset one flow's window.
    Flow {
        #[command(subcommand)]
        op: FlowCmd,
    },
    /// The counters (NIC: cycles, events, pushes, drops, updates, marks, packets; switch port:
    /// the WRED/ECN port's counters, queue and last decision).
    Stats {
        /// Zero the event counters and error flags after reading them.
        #[arg(long)]
        clear: bool,
    },
    /// Reset the whole core (every flow to init_cw, parameters to defaults).
    Reset,
    /// Fast-start marker: present one event (needs BLOCKS.FAST_START; `probe` lists the blocks).
    Fs {
        /// The event.
        #[arg(long, value_enum, default_value = "tx")]
        kind: ldcp_host::FsKind,
        /// Flow id.
        #[arg(long)]
        flow: u32,
        /// TX: the packet's PSN; ACK/NAK: the receiver's expected PSN (24 bits).
        #[arg(long, default_value_t = 0)]
        psn: u32,
        /// TX: the packet ends its message.
        #[arg(long)]
        last: bool,
        /// TX: IPv4 header word 0 (hex), version/IHL/DSCP/ECN.
        #[arg(long, default_value = "4500", value_parser = parse_hex16)]
        word0: u16,
        /// TX: IPv4 header checksum (hex).
        #[arg(long, default_value = "0", value_parser = parse_hex16)]
        csum: u16,
    },
    /// ACK generator: present one received packet (needs BLOCKS.ACK_GEN).
    Ag {
        /// Open the flow at --psn (held packets discarded) instead of a data packet.
        #[arg(long)]
        open: bool,
        /// Flow id.
        #[arg(long)]
        flow: u32,
        /// The packet's PSN (open: the PSN expected next), 24 bits.
        #[arg(long, default_value_t = 0)]
        psn: u32,
        /// The packet arrived with CE.
        #[arg(long)]
        ce: bool,
        /// The packet ends its message.
        #[arg(long)]
        last: bool,
    },
    /// WRED/ECN port: send packets back to back, print the decisions (needs BLOCKS.WRED_ECN: a
    /// switch port, or the NIC system).
    Wred {
        /// Packet length, bytes (0..=16383).
        #[arg(long, default_value_t = 1500)]
        len: u32,
        /// ECN codepoint: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
        #[arg(long, default_value_t = 2)]
        ecn: u32,
        /// Packets.
        #[arg(long, default_value_t = 1)]
        count: u32,
    },
    /// Pacing timer: grants, the last one and the worst lateness (needs BLOCKS.PACING_TIMER).
    Pacing,
    /// Tunnel ECN (RFC 6040, draft 001) at a PE's switch port (the alchitry-cu-pe bitstream:
    /// SW_BLOCKS.TUNNEL_INGRESS, TUNNEL_EGRESS): set a tunnel's mode, encapsulate or
    /// decapsulate one packet.
    Tunnel {
        #[command(subcommand)]
        op: TunnelOp,
    },
    /// END.CON at a PE's switch port (SW_BLOCKS.END_CON): set the SID, match one packet.
    EndCon {
        #[command(subcommand)]
        op: EndConOp,
    },
    /// Draft 002's per-packet decision at a switch port (the ulx3s-switch bitstream:
    /// SW_BLOCKS.COORD): one packet's inputs in, the decision (re-route, write the AR
    /// indicator, type 3, marking allowed, incast) and the block's counters out.
    Coord {
        /// Its egress queue is at K_min or more.
        #[arg(long)]
        congested: bool,
        /// Its tag's CC indicator is set.
        #[arg(long)]
        cc: bool,
        /// Light-loaded candidate paths, 0..=3 (3: three or more).
        #[arg(long, default_value_t = 0)]
        light: u8,
        /// Its tag's AR indicator is valid.
        #[arg(long)]
        arv: bool,
        /// Its egress faces the destination host.
        #[arg(long)]
        last_hop: bool,
    },
    /// Fast CNP at a P node's switch port (the alchitry-cu-switch bitstream: SW_BLOCKS.FAST_CNP):
    /// send a flow's packets through the WRED/ECN port, take the notifications it queued. The
    /// rate limit is the parameter fcnp_interval (`ldcpctl config set fcnp_interval 5000`).
    FastCnp {
        #[command(subcommand)]
        op: FastCnpOp,
    },
    /// Serve a simulated Alchitry Cu on a pseudo-terminal until SIGINT/SIGTERM: the board core's
    /// RTL (bridge, register map, NIC core; with `--core system` the whole NIC system, with
    /// `--core switch` or `pe` a switch port) fed the bytes a client writes, at the bit level.
    ///
    /// Prints `port: /dev/pts/N` (with --json: {"port": ...}) once the board is up; then
    /// `ldcpctl --backend uart --port /dev/pts/N <command>` works session after session, the
    /// board keeping its state as the real one does. Board time advances with the line's bits
    /// (100 clocks per bit at 1 Mbaud) and with the host's pauses, replayed at 100 cycles per us
    /// up to 200 us each (ldcpctl/src/sim_board.rs). On exit a summary goes to stderr (with
    /// --json, a second JSON line on stdout).
    ServeSim {
        /// What runs the board: its Verilated RTL, the golden model, or both in lock step.
        #[arg(long, value_enum, default_value = "rtl")]
        engine: ldcpctl::sim_board::Engine,
        /// Which board core: the Alchitry Cu's NIC core, the whole NIC system (the ULX3S's
        /// core, with the extension blocks and the loopback) at the same line timing, the
        /// Alchitry Cu's complete NIC (`cu`: the alchitry-cu-nic core, at this line timing,
        /// not its 60 MHz clock), or a
        /// switch port: a P node's (WRED/ECN, Fast CNP), a PE's (WRED/ECN, tunnel ECN,
        /// END.CON) or the one with every block (`full`: the ulx3s-switch core, draft 002's
        /// decision included).
        #[arg(long, value_enum, default_value = "nic")]
        core: ldcpctl::sim_board::Core,
        /// Exit once no byte has come for this many seconds, in (0, 1e9] (and the board has
        /// settled).
        #[arg(long, value_name = "SECS")]
        exit_after_idle: Option<f64>,
    },
    /// Throughput: the on-chip generator and/or host pushes through the FIFO, or the on-chip
    /// loopback (`--mode loop`: sender, fast-start marker, WRED/ECN port, ACK generator and the
    /// ACKs back into the engine, counted at the blocks' ports; the NIC system and the Alchitry
    /// Cu's complete NIC, whose loop has no WRED/ECN port).
    Bench {
        /// Events per run.
        #[arg(long, default_value_t = 1_000_000)]
        events: u32,
        /// What to measure.
        #[arg(long, value_enum, default_value = "both")]
        mode: BenchMode,
        /// Seed of the event stream.
        #[arg(long, default_value_t = 1)]
        seed: u32,
        /// Host-pushed events for the FIFO run (default: events / 10).
        #[arg(long)]
        fifo_events: Option<u32>,
        /// Loop run: the sender's flows (1 to the device's flows: 256 on
        /// the iCE40-size build and the sim backend, 4,096 on the ULX3S).
        #[arg(long, default_value_t = 16)]
        loop_flows: u32,
        /// Loop run: device cycles the sender runs.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Set a parameter before the run, as `config set` does (repeatable):
        /// `--set wred_drain=4000 --set rtt_ticks=100`. The simulated device starts fresh
        /// with every invocation, so this is how a sim run gets its parameters.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
    },
}

#[derive(Subcommand, Debug)]
enum ConfigOp {
    /// Print one parameter, or all that the device has.
    Get {
        /// Parameter (all when omitted).
        #[arg(value_enum)]
        name: Option<Param>,
    },
    /// Set a parameter: a value in its unit (alpha 0.5, wred_k_min 30000), or a raw register
    /// value as raw:N or 0xN. An illegal value is refused, naming its legal range, and writes
    /// nothing.
    Set {
        /// Parameter.
        #[arg(value_enum)]
        name: Param,
        /// Value: in the parameter's unit, or raw:N / 0xN.
        value: String,
    },
}

#[derive(Subcommand, Debug)]
enum TunnelOp {
    /// Set a tunnel's mode (CORE_RESET returns every tunnel to normal).
    Mode {
        /// Tunnel, 0..=63.
        #[arg(long)]
        tunnel: u32,
        /// normal (outer = inner) or compatibility (outer Not-ECT).
        #[arg(long, value_enum)]
        mode: TunnelMode,
    },
    /// Encapsulate one packet at the ingress PE: prints the outer ECN field.
    Ingress {
        /// Tunnel, 0..=63.
        #[arg(long)]
        tunnel: u32,
        /// The inner header's word 0 (hex): IPv4 version/IHL/DSCP/ECN, or IPv6's first word.
        #[arg(long, default_value = "4502", value_parser = parse_hex16)]
        word0: u16,
        /// The inner header is IPv6 (ECN in word 0 bits 5..4).
        #[arg(long)]
        ipv6: bool,
    },
    /// Decapsulate one packet at the egress PE: prints the inner ECN field and checksum
    /// leaving, or the drop.
    Egress {
        /// The outer ECN codepoint as it arrived: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
        #[arg(long)]
        outer_ecn: u32,
        /// The inner header's word 0 (hex).
        #[arg(long, default_value = "4502", value_parser = parse_hex16)]
        word0: u16,
        /// The inner IPv4 header checksum (hex).
        #[arg(long, default_value = "0", value_parser = parse_hex16)]
        csum: u16,
        /// The inner header is IPv6.
        #[arg(long)]
        ipv6: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TunnelMode {
    /// Outer ECN = inner ECN (RFC 6040 normal mode, the default).
    Normal,
    /// Outer Not-ECT (RFC 6040 compatibility mode).
    Compatibility,
}

#[derive(Subcommand, Debug)]
enum EndConOp {
    /// Set the END.CON SID (an IPv6 address; CORE_RESET clears it to ::).
    Sid {
        /// The SID.
        sid: std::net::Ipv6Addr,
    },
    /// Match one packet: prints forward, decapsulate (with the bytes stripped), punt or drop.
    Packet {
        /// Its outer IPv6 destination.
        #[arg(long)]
        dst: std::net::Ipv6Addr,
        /// Its outer Next Header (43: an SRH follows; 4 IPv4, 41 IPv6, 58 ICMPv6).
        #[arg(long, default_value_t = 43)]
        next_header: u8,
        /// The SRH's Next Header.
        #[arg(long, default_value_t = 4)]
        srh_next_header: u8,
        /// The SRH's Segments Left.
        #[arg(long, default_value_t = 0)]
        segments_left: u8,
        /// The SRH's Hdr Ext Len.
        #[arg(long, default_value_t = 2)]
        ext_len: u8,
    },
}

#[derive(Subcommand, Debug)]
enum FastCnpOp {
    /// Stage a flow's packet and send it `--count` times through the WRED/ECN port; prints the
    /// port's decisions and the trigger's (sent, suppressed, unparsed).
    Send {
        /// The data packet's inner source (the sender: the Fast CNP's destination), IPv4 or IPv6.
        #[arg(long)]
        src: std::net::IpAddr,
        /// Its inner destination.
        #[arg(long)]
        dst: std::net::IpAddr,
        /// Its outer source: the ingress PE's END.CON SID the Fast CNP returns through.
        #[arg(long, default_value = "::")]
        end_con: std::net::Ipv6Addr,
        /// The BTH's DestQP (24 bits, decimal or 0x hex).
        #[arg(long, default_value = "0x100", value_parser = parse_qp)]
        dest_qp: u32,
        /// P_Key (hex).
        #[arg(long, default_value = "ffff", value_parser = parse_hex16)]
        pkey: u16,
        /// UDP source port.
        #[arg(long, default_value_t = 49152)]
        udp_src: u16,
        /// The parser did not find the inner RoCEv2 packet (counted unparsed, no Fast CNP).
        #[arg(long)]
        unparsed: bool,
        /// Packet length, bytes (0..=16383).
        #[arg(long, default_value_t = 1500)]
        len: u32,
        /// ECN codepoint: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
        #[arg(long, default_value_t = 2)]
        ecn: u32,
        /// Packets.
        #[arg(long, default_value_t = 1)]
        count: u32,
    },
    /// Take the queued notifications, oldest first (each read, then removed).
    Queue {
        /// At most this many.
        #[arg(long, default_value_t = 256)]
        max: u32,
    },
}

fn parse_qp(s: &str) -> Result<u32, String> {
    let v = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("{s:?} is not a number"))?;
    if v > 0xff_ffff {
        return Err(format!(
            "{v:#x} is out of range: it must be in [0, 0xffffff] (24 bits)"
        ));
    }
    Ok(v)
}

fn addr_u128(a: std::net::IpAddr) -> (u128, bool) {
    match a {
        std::net::IpAddr::V4(v) => (u32::from(v) as u128, false),
        std::net::IpAddr::V6(v) => (u128::from(v), true),
    }
}

#[derive(Subcommand, Debug)]
enum FlowCmd {
    /// Print a flow's cw and pacing interval.
    Show {
        /// Flow id.
        flow: u32,
    },
    /// Set a flow's cw (packets; the engine clamps it to [gamma, cw_max]).
    Set {
        /// Flow id.
        flow: u32,
        /// cw in packets (or raw:N / 0xN, UQ12.20).
        cw: String,
    },
    /// Reset a flow's cw to init_cw.
    Reset {
        /// Flow id.
        flow: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BenchMode {
    /// The on-chip generator (one event per clock).
    Generator,
    /// Host pushes through the event FIFO.
    Fifo,
    /// Both.
    Both,
    /// The on-chip loopback (`--loop-flows`, `--cycles`).
    Loop,
}

fn parse_hex16(s: &str) -> Result<u16, String> {
    u16::from_str_radix(s.trim_start_matches("0x"), 16)
        .map_err(|_| format!("{s:?} is not a 16-bit hex value (0..=ffff)"))
}

/// A progress line on stderr (only when stderr is a terminal), at most 5 per second.
struct Progress {
    what: &'static str,
    tty: bool,
    last: std::time::Instant,
}

impl Progress {
    fn new(what: &'static str) -> Self {
        Progress {
            what,
            tty: std::io::stderr().is_terminal(),
            last: std::time::Instant::now() - std::time::Duration::from_secs(1),
        }
    }

    fn show(&mut self, done: u64, total: u64) {
        if !self.tty || (self.last.elapsed().as_millis() < 200 && done < total) {
            return;
        }
        self.last = std::time::Instant::now();
        let frac = done as f64 / total.max(1) as f64;
        let bar = (frac * 30.0) as usize;
        eprint!(
            "\r{} [{}{}] {:5.1}% {done}/{total}",
            self.what,
            "#".repeat(bar),
            " ".repeat(30 - bar),
            frac * 100.0
        );
        if done >= total {
            eprintln!();
        }
    }
}

/// The longest `--exit-after-idle`, s (about 31 years; a Duration holds
/// far more, but no wait that long is meant).
const MAX_IDLE_S: f64 = 1e9;

/// `serve-sim`: the board on a pty until stopped; the summary.
fn serve_sim(
    json: bool,
    core: ldcpctl::sim_board::Core,
    engine: ldcpctl::sim_board::Engine,
    exit_after_idle: Option<f64>,
) -> Result<serde_json::Value, DriverError> {
    use ldcpctl::sim_board::{self as sb, Pty, ServeOptions, SimBoard};
    use std::io::Write;
    let exit_after_idle = match exit_after_idle {
        None => None,
        Some(s) if s > 0.0 && s <= MAX_IDLE_S => Some(std::time::Duration::from_secs_f64(s)),
        Some(s) => {
            return Err(DriverError::BadValue(format!(
                "--exit-after-idle {s} is out of range: it must be seconds in (0, {MAX_IDLE_S:e}]"
            )))
        }
    };
    // a signal during the build stops the server before it serves
    sb::stop_on_signals()?;
    if engine != sb::Engine::Model {
        eprintln!("serve-sim: verilating the board core (cached after the first time)...");
    }
    let build = ldcp_hdl::nic_core::BuildId::current();
    let mut board = SimBoard::power_on(sb::open_board(core, engine, build)?)?;
    let pty = Pty::open()?;
    let port = pty.path().display().to_string();
    eprintln!(
        "serve-sim: {} on {port}, {} baud 8N1 ({} clocks per bit at {} MHz); stop with SIGINT or SIGTERM",
        board.describe(),
        ldcp_hdl::board::BAUD,
        sb::BIT_CYCLES,
        sb::CYCLES_PER_US
    );
    let ready = serde_json::json!({
        "port": port,
        "pid": std::process::id(),
        "engine": board.describe(),
        "baud": ldcp_hdl::board::BAUD,
        "clock_mhz": sb::CYCLES_PER_US,
        "bit_cycles": sb::BIT_CYCLES,
        "settle_bits": sb::SETTLE_BITS,
        "quiet_max_cycles": sb::QUIET_MAX_CYCLES,
        "cycles": board.cycles(),
    });
    {
        // the port goes out at once: a client waits for this line
        let mut out = std::io::stdout().lock();
        let line = if json {
            ready.to_string()
        } else {
            format!("port: {port}")
        };
        // a closed stdout only loses the line; the board still serves
        let _ = writeln!(out, "{line}").and_then(|_| out.flush());
    }
    let s = sb::serve(
        &mut board,
        &pty,
        &ServeOptions {
            exit_after_idle,
            stop: None,
        },
    )?;
    eprintln!(
        "serve-sim: stopped by {}: {} board cycles ({} while serving) in {:.2} s of simulation ({:.3} M cycles/s), \
         {} bytes in, {} out, {} dropped for want of a reader; served {:.1} s",
        s.stopped_by,
        s.cycles,
        s.served_cycles,
        s.sim_seconds,
        s.cycles_per_second / 1e6,
        s.host_bytes,
        s.board_bytes,
        s.board_bytes_dropped,
        s.wall_seconds
    );
    match s.mismatched_cycles {
        Some(n) if n > 0 => Err(DriverError::Sim(format!(
            "the RTL and its golden model differed: {}",
            s.engine
        ))),
        Some(_) => {
            eprintln!("serve-sim: {}", s.engine);
            Ok(serde_json::to_value(&s).unwrap_or_default())
        }
        None => Ok(serde_json::to_value(&s).unwrap_or_default()),
    }
}

fn run(cli: &Cli) -> Result<serde_json::Value, DriverError> {
    if let Cmd::ServeSim {
        engine,
        core,
        exit_after_idle,
    } = &cli.cmd
    {
        return serve_sim(cli.json, *core, *engine, *exit_after_idle);
    }
    let t = Target {
        bdf: cli.bdf.clone(),
        bar_file: cli.bar_file.clone(),
        port: Some(cli.port.clone()),
        baud: Some(cli.baud),
    };
    let io = backend::open(cli.backend, &t)?;
    let mut dev = Device::open(io)?;
    let json = cli.json;
    Ok(match &cli.cmd {
        Cmd::Probe if dev.is_switch_port() => {
            let i = dev.info().clone();
            if !json {
                println!("LDCP switch port, register map {}", i.map_version);
                println!(
                    "  build      {}{}",
                    i.git_hash,
                    if i.dirty { " (dirty)" } else { "" }
                );
                println!(
                    "  blocks     {} (no NIC: flows, FIFO, engine)",
                    i.blocks.join(", ")
                );
                println!("  backend    {}", i.backend);
            }
            serde_json::to_value(&i).unwrap_or_default()
        }
        Cmd::Probe => {
            let i = dev.info().clone();
            if !json {
                println!("LDCP NIC core, register map {}", i.map_version);
                println!(
                    "  build      {}{}",
                    i.git_hash,
                    if i.dirty { " (dirty)" } else { "" }
                );
                println!("  flows      {}", i.flows);
                println!("  event FIFO {} entries", i.fifo_depth);
                println!("  latency    {} cycles", i.engine_latency);
                println!("  blocks     {}", i.blocks.join(", "));
                println!("  backend    {}", i.backend);
            }
            serde_json::to_value(&i).unwrap_or_default()
        }
        Cmd::Config { .. } => config(&mut dev, json, &cli.cmd, cli.backend)?,
        Cmd::Flow { op } => {
            let s = match op {
                FlowCmd::Show { flow } => dev.flow_show(*flow)?,
                FlowCmd::Set { flow, cw } => match parse_typed("flow cw", cw)? {
                    Typed::Value(v) => dev.flow_set(*flow, v)?,
                    Typed::Raw(r) => dev.flow_set_raw(*flow, r)?,
                },
                FlowCmd::Reset { flow } => dev.flow_reset(*flow)?,
            };
            if !json {
                println!(
                    "flow {}: cw {} packets (raw {:#x}), pacing interval {} ticks",
                    s.flow, s.cw, s.cw_raw, s.interval_ticks
                );
            }
            serde_json::to_value(s).unwrap_or_default()
        }
        Cmd::Stats { clear } if dev.is_switch_port() => {
            if *clear {
                return Err(DriverError::BadValue(
                    "stats --clear: a switch port's counters clear on CORE_RESET only (`ldcpctl reset`)"
                        .into(),
                ));
            }
            let v = dev.switch_stats()?;
            let entries: [(&str, u64); 7] = [
                ("WRED_FORWARDED", v.forwarded as u64),
                ("WRED_MARKED", v.marked as u64),
                ("WRED_DROPPED_WRED", v.dropped_wred as u64),
                ("WRED_DROPPED_FULL", v.dropped_full as u64),
                ("WRED_OCC", v.occupancy_bytes as u64),
                ("WRED_LAST.DECISION", v.last_decision as u64),
                ("WRED_LAST.ECN", v.last_ecn as u64),
            ];
            let mut obj = serde_json::Map::new();
            let extra = dev.draft001_stats()?;
            for (n, c) in entries
                .iter()
                .map(|(n, c)| (n.to_string(), *c))
                .chain(extra)
            {
                if !json {
                    println!("{n:<22} {c}");
                }
                obj.insert(n, c.into());
            }
            serde_json::Value::Object(obj)
        }
        Cmd::Stats { clear } => {
            let v = dev.stats()?;
            if *clear {
                dev.clear_counters()?;
            }
            let mut obj = serde_json::Map::new();
            for (n, c) in v.entries() {
                if !json {
                    println!("{n:<22} {c}");
                }
                obj.insert(n, c.into());
            }
            serde_json::Value::Object(obj)
        }
        Cmd::Reset => {
            dev.core_reset()?;
            if !json {
                if dev.is_switch_port() {
                    println!("core reset: the WRED/ECN port's queue and counters cleared, parameters at their defaults");
                } else {
                    println!("core reset: every flow at init_cw, parameters at their defaults");
                }
            }
            serde_json::json!({"reset": true})
        }
        Cmd::Fs { .. } => fs(&mut dev, json, &cli.cmd)?,
        Cmd::Ag { .. } => ag(&mut dev, json, &cli.cmd)?,
        Cmd::Wred { len, ecn, count } => {
            let r = dev.wred_packets(*len, *ecn, *count)?;
            if !json {
                println!(
                    "{} packets: {} forwarded ({} marked CE), {} dropped by Eq. 3, {} dropped for room; queue {} bytes",
                    r.packets, r.forwarded, r.marked, r.dropped_wred, r.dropped_full, r.occupancy_bytes
                );
            }
            serde_json::to_value(r).unwrap_or_default()
        }
        Cmd::Tunnel { .. } => tunnel(&mut dev, json, &cli.cmd)?,
        Cmd::Coord { .. } => coord(&mut dev, json, &cli.cmd)?,
        Cmd::EndCon { .. } => end_con(&mut dev, json, &cli.cmd)?,
        Cmd::FastCnp { .. } => fast_cnp(&mut dev, json, &cli.cmd)?,
        Cmd::Pacing => {
            let r = dev.pacing()?;
            if !json {
                println!(
                    "pacing: {} grants; last flow {} ({} cycles late); worst lateness {} cycles",
                    r.grants, r.last_flow, r.last_late, r.max_late
                );
            }
            serde_json::to_value(r).unwrap_or_default()
        }
        Cmd::ServeSim { .. } => unreachable!("serve-sim opens no backend (handled above)"),
        Cmd::Bench { .. } => bench(&mut dev, json, &cli.cmd)?,
    })
}

/// `config get|set`: the parameters, read or written, each with its range.
fn config<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
    backend: Kind,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Config { op } = cmd else {
        unreachable!("run() dispatches only Cmd::Config here")
    };
    Ok({
        let params: Vec<Param> = match op {
            ConfigOp::Get { name: Some(p) } => vec![*p],
            ConfigOp::Get { name: None } => Param::ALL
                .iter()
                .copied()
                .filter(|p| dev.has(p.register()))
                .collect(),
            ConfigOp::Set { name, value } => {
                match parse_typed(name.name(), value)? {
                    Typed::Value(v) => dev.set_param(*name, v)?,
                    Typed::Raw(r) => dev.set_param_raw(*name, r)?,
                };
                if matches!(backend, Kind::Sim | Kind::Model) {
                    eprintln!(
                    "ldcpctl: note: the simulated device lives only as long as this command: \
                     the value is gone at the next one. For a device that keeps its state, run \
                     `ldcpctl serve-sim` and use `--backend uart --port <its pty>`; for a bench run, \
                     `bench --set NAME=VALUE`"
                );
                }
                vec![*name]
            }
        };
        let mut obj = serde_json::Map::new();
        for p in params {
            let v = dev.param(p)?;
            if !json {
                let f = p.field();
                println!(
                    "{:<13} {:<14} (raw {:#x}; {} .. {}, {})",
                    p.name(),
                    v.value,
                    v.raw,
                    f.to_value(f.min),
                    f.to_value(f.max),
                    f.format.describe()
                );
            }
            obj.insert(
                p.name().into(),
                serde_json::json!({"value": v.value, "raw": v.raw}),
            );
        }
        serde_json::Value::Object(obj)
    })
}

/// `fs`: the fast-start marker, one packet.
fn fs<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Fs {
        kind,
        flow,
        psn,
        last,
        word0,
        csum,
    } = cmd
    else {
        unreachable!("run() dispatches only Cmd::Fs here")
    };
    Ok({
        let r = dev.fs_event(*kind, *flow, *psn, *last, *word0, *csum)?;
        if !json {
            println!(
            "fast start, flow {}: err {}, ECN {}, stage {}, word0 {:#06x}, csum {:#06x}, psn {}{}{}",
            r.flow,
            r.err,
            r.ecn,
            r.stage,
            r.word0,
            r.csum,
            r.psn,
            if r.set {
                format!(", set cw to {} packets (handed to the window engine in hardware)", r.cw_pkts)
            } else {
                String::new()
            },
            if r.gbn { ", go back" } else { "" }
        );
        }
        serde_json::to_value(r).unwrap_or_default()
    })
}

/// `ag`: the ACK generator, one packet.
fn ag<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Ag {
        open,
        flow,
        psn,
        ce,
        last,
    } = cmd
    else {
        unreachable!("run() dispatches only Cmd::Ag here")
    };
    Ok({
        let r = dev.ag_packet(*open, *flow, *psn, *ce, *last)?;
        if !json {
            match r.last_ack {
                Some(a) => println!(
                    "{} ACK(s); last: flow {}, {} psn {}, n {}, ECE {}",
                    r.acks,
                    a.flow,
                    if a.nak { "NAK" } else { "ACK" },
                    a.psn,
                    a.n,
                    a.ece as u8
                ),
                None => println!("no ACK (held for a delayed ACK, or refused)"),
            }
            if r.err != 0 {
                println!("refused: error {}", r.err);
            }
        }
        serde_json::to_value(r).unwrap_or_default()
    })
}

/// `tunnel`: the PE's tunnel ECN blocks (RFC 6040).
fn tunnel<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Tunnel { op } = cmd else {
        unreachable!("run() dispatches only Cmd::Tunnel here")
    };
    Ok(match op {
        TunnelOp::Mode { tunnel, mode } => {
            let compat = *mode == TunnelMode::Compatibility;
            dev.tunnel_mode(*tunnel, compat)?;
            if !json {
                let m = if compat { "compatibility" } else { "normal" };
                println!("tunnel {tunnel}: {m} mode");
            }
            serde_json::json!({"tunnel": tunnel, "compatibility": compat})
        }
        TunnelOp::Ingress {
            tunnel,
            word0,
            ipv6,
        } => {
            dev.stage(&ldcp_host::SwitchPacket {
                word0: *word0,
                ipv6: *ipv6,
                ..Default::default()
            })?;
            let r = dev.tunnel_ingress(*tunnel)?;
            if !json {
                println!(
                    "tunnel {}: outer ECN {} ({} mode)",
                    r.tunnel,
                    r.outer_ecn,
                    if r.compat { "compatibility" } else { "normal" }
                );
            }
            serde_json::to_value(r).unwrap_or_default()
        }
        TunnelOp::Egress {
            outer_ecn,
            word0,
            csum,
            ipv6,
        } => {
            dev.stage(&ldcp_host::SwitchPacket {
                word0: *word0,
                csum: *csum,
                ipv6: *ipv6,
                ..Default::default()
            })?;
            let r = dev.tunnel_egress(*outer_ecn)?;
            if !json {
                let flag = ["", " (!) currently unused", " (!!!) potentially dangerous"]
                    [r.flag as usize % 3];
                if r.dropped {
                    println!("dropped: Not-ECT inner under a CE outer{flag}");
                } else {
                    println!(
                        "forwarded: inner ECN {}, word 0 {:04x}, checksum {:04x}{flag}",
                        r.ecn, r.word0, r.csum
                    );
                }
            }
            serde_json::to_value(r).unwrap_or_default()
        }
    })
}

/// `coord`: draft 002's decision at the switch port.
fn coord<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Coord {
        congested,
        cc,
        light,
        arv,
        last_hop,
    } = cmd
    else {
        unreachable!("run() dispatches only Cmd::Coord here")
    };
    Ok({
        let r = dev.coord_decide(&ldcp_sim::coord::DecisionIn {
            congested: *congested,
            cc: *cc,
            light: *light,
            arv: *arv,
            last_hop: *last_hop,
        })?;
        if !json {
            let mut acts = Vec::new();
            for (on, name) in [
                (r.reroute, "re-route"),
                (r.write_indicator, "write the AR indicator"),
                (r.type3, "type 3 to the AR point"),
                (r.mark_allowed, "marking allowed"),
                (r.incast, "incast"),
            ] {
                if on {
                    acts.push(name);
                }
            }
            println!(
                "{}",
                if acts.is_empty() {
                    "forward (nothing to do)".to_string()
                } else {
                    acts.join(", ")
                }
            );
            println!(
                "counters: re-routes {}, type 3 {}, marks allowed {}, incast {}",
                r.counts[0], r.counts[1], r.counts[2], r.counts[3]
            );
        }
        serde_json::to_value(r).unwrap_or_default()
    })
}

/// `end-con`: the PE's END.CON match.
fn end_con<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::EndCon { op } = cmd else {
        unreachable!("run() dispatches only Cmd::EndCon here")
    };
    Ok(match op {
        EndConOp::Sid { sid } => {
            dev.end_con_sid(u128::from(*sid))?;
            if !json {
                println!("END.CON SID {sid}");
            }
            serde_json::json!({"sid": sid.to_string()})
        }
        EndConOp::Packet {
            dst,
            next_header,
            srh_next_header,
            segments_left,
            ext_len,
        } => {
            dev.stage(&ldcp_host::SwitchPacket {
                outer_dst: u128::from(*dst),
                next_header: *next_header,
                srh_next_header: *srh_next_header,
                segments_left: *segments_left,
                ext_len: *ext_len,
                ..Default::default()
            })?;
            let r = dev.end_con_packet()?;
            if !json {
                if r.action == 1 {
                    println!("decapsulate: strip {} bytes", r.strip_bytes);
                } else {
                    println!("{}", r.action_name);
                }
            }
            serde_json::to_value(r).unwrap_or_default()
        }
    })
}

/// `fast-cnp`: the congested node's Fast CNP trigger and its descriptor queue.
fn fast_cnp<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::FastCnp { op } = cmd else {
        unreachable!("run() dispatches only Cmd::FastCnp here")
    };
    Ok(match op {
        FastCnpOp::Send {
            src,
            dst,
            end_con,
            dest_qp,
            pkey,
            udp_src,
            unparsed,
            len,
            ecn,
            count,
        } => {
            let (s, v6s) = addr_u128(*src);
            let (d, v6d) = addr_u128(*dst);
            if v6s != v6d {
                return Err(DriverError::BadValue(format!(
                    "--src {src} and --dst {dst}: one is IPv4 and the other IPv6"
                )));
            }
            let before = dev.draft001_stats()?;
            dev.stage(&ldcp_host::SwitchPacket {
                outer_src: u128::from(*end_con),
                inner_src: s,
                inner_dst: d,
                dest_qp: *dest_qp,
                parsed: !*unparsed,
                ipv6: v6s,
                pkey: *pkey,
                udp_src: *udp_src,
                ..Default::default()
            })?;
            let w = dev.wred_packets(*len, *ecn, *count)?;
            // the trigger decides 4 cycles after the port, the queue one later
            let after = dev.draft001_stats()?;
            let delta = |n: &str| {
                let g = |v: &Vec<(String, u64)>| v.iter().find(|e| e.0 == n).map_or(0, |e| e.1);
                g(&after).wrapping_sub(g(&before))
            };
            let (sent, supp, unp) = (
                delta("FC_SENT"),
                delta("FC_SUPPRESSED"),
                delta("FC_UNPARSED"),
            );
            let level = after
                .iter()
                .find(|e| e.0 == "FC_STATUS.LEVEL")
                .map_or(0, |e| e.1);
            if !json {
                println!(
                "{} packets: {} forwarded ({} marked CE), {} dropped; Fast CNP: {sent} sent, {supp} suppressed, {unp} unparsed; {level} queued",
                w.packets, w.forwarded, w.marked, w.dropped_wred + w.dropped_full
            );
            }
            serde_json::json!({"port": w, "fast_cnp_sent": sent, "fast_cnp_suppressed": supp,
            "fast_cnp_unparsed": unp, "queued": level})
        }
        FastCnpOp::Queue { max } => {
            let v = dev.fast_cnp_descriptors(*max)?;
            if !json {
                if v.is_empty() {
                    println!("no Fast CNP queued");
                }
                for d in &v {
                    println!(
                    "Fast CNP {} -> {} via END.CON {}: DestQP {:#08x}, P_Key {:04x}, UDP source {}",
                    d.src, d.dst, d.end_con, d.dest_qp, d.pkey, d.udp_src
                );
                }
            }
            serde_json::to_value(v).unwrap_or_default()
        }
    })
}

/// `bench`: the loop, the event generator or host-written events, measured.
fn bench<A: ldcp_host::RegAccess>(
    dev: &mut Device<A>,
    json: bool,
    cmd: &Cmd,
) -> Result<serde_json::Value, DriverError> {
    let Cmd::Bench {
        events,
        mode,
        seed,
        fifo_events,
        loop_flows,
        cycles,
        set,
    } = cmd
    else {
        unreachable!("run() dispatches only Cmd::Bench here")
    };
    Ok({
        for kv in set {
            let (p, t) = parse_assignment(kv)?;
            match t {
                Typed::Value(v) => dev.set_param(p, v)?,
                Typed::Raw(r) => dev.set_param_raw(p, r)?,
            };
        }
        let mut out = serde_json::Map::new();
        out.insert("backend".into(), dev.info().backend.clone().into());
        if *mode == BenchMode::Loop {
            let mut p = Progress::new("loop");
            // Ctrl-C stops the on-chip sender before the command ends
            ldcpctl::sim_board::stop_on_signals()?;
            let stop = || ldcpctl::sim_board::stop_requested().is_some();
            let r = dev.run_loop_until(*loop_flows, *cycles, &mut |d, t| p.show(d, t), &stop)?;
            if !json {
                println!(
                "loop: {} flows, {} cycles sending (+{} draining): {} packets sent ({:.4} per cycle), \
                 {} delivered ({:.4} per cycle), {} ACKs back, {} engine events ({:.4} per cycle), \
                 {} window updates; port: {} marked, {} dropped; {} rewinds ({} by timeout); {:.3} s on the host",
                r.flows, r.send_cycles, r.drain_cycles, r.sent, r.sent_per_cycle, r.delivered,
                r.delivered_per_cycle, r.acks, r.engine_events, r.engine_events_per_cycle,
                r.engine_updates, r.marked, r.dropped, r.rewinds, r.timeouts, r.host_seconds
            );
            }
            out.insert("loop".into(), serde_json::to_value(&r).unwrap_or_default());
        }
        if matches!(mode, BenchMode::Generator | BenchMode::Both) {
            let mut p = Progress::new("generator");
            let r = dev.run_generator(*events, *seed, &mut |d, t| p.show(d, t))?;
            let sim_cps = r.device_cycles as f64 / r.host_seconds.max(1e-9);
            if !json {
                println!(
                    "generator: {} events in {} generator cycles = {:.4} events per device cycle; \
                 {} device cycles in {:.3} s on the host ({:.3} M device cycles/s)",
                    r.events_counted,
                    r.gen_cycles,
                    r.events_per_cycle,
                    r.device_cycles,
                    r.host_seconds,
                    sim_cps / 1e6
                );
            }
            let mut g = serde_json::to_value(&r).unwrap_or_default();
            g["device_cycles_per_second"] = sim_cps.into();
            out.insert("generator".into(), g);
        }
        if matches!(mode, BenchMode::Fifo | BenchMode::Both) {
            let n = fifo_events.unwrap_or((*events / 10).max(1));
            // the events the generator would make from this seed
            let flow_bits = dev.info().flows.max(1).trailing_zeros();
            let mut evs = ldcp_sim::nic_core::gen_events(*seed, flow_bits);
            let mut p = Progress::new("fifo");
            dev.clear_counters()?;
            let r = dev.push_events(&mut evs, n as u64, &mut |d, t| p.show(d, t))?;
            if !json {
                println!(
                "fifo: {} events written by the host, {} accepted by the device (CNT_PUSHED), {} dropped, in {:.3} s = {:.0} events/s host side; \
                 {} device cycles = {:.4} events per device cycle (the host link is the bottleneck)",
                r.written, r.events, r.dropped, r.host_seconds, r.events_per_second, r.device_cycles, r.events_per_cycle
            );
            }
            out.insert("fifo".into(), serde_json::to_value(&r).unwrap_or_default());
        }
        serde_json::Value::Object(out)
    })
}

/// The backend options serve-sim does not take (it serves a board; a
/// client's `ldcpctl --backend uart --port` reaches it): refused when given
/// on the command line, not ignored.
fn refuse_backend_options_for_serve_sim(m: &clap::ArgMatches) {
    use clap::parser::ValueSource;
    let Some(sub) = m.subcommand_matches("serve-sim") else {
        return;
    };
    for id in ["backend", "bdf", "bar_file", "port", "baud"] {
        let given = |x: &clap::ArgMatches| {
            x.try_contains_id(id).unwrap_or(false)
                && x.value_source(id) == Some(ValueSource::CommandLine)
        };
        if given(m) || given(sub) {
            let flag = format!("--{}", id.replace('_', "-"));
            Cli::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "{flag} cannot be used with serve-sim: it serves the board itself; \
                         its clients use `ldcpctl --backend uart --port <the pty it prints>`"
                    ),
                )
                .exit();
        }
    }
}

fn main() -> ExitCode {
    let m = Cli::command().get_matches();
    refuse_backend_options_for_serve_sim(&m);
    let cli = Cli::from_arg_matches(&m).unwrap_or_else(|e| e.exit());
    // A reader that goes away (`ldcpctl config get | head -1`) ends the
    // command quietly, by SIGPIPE, as it ends any Unix filter: Rust ignores
    // SIGPIPE, and println! then panicked (exit 101). The device operation
    // has been done by the time anything is printed. serve-sim keeps it
    // ignored: its clients come and go, and it handles EPIPE itself.
    if !matches!(cli.cmd, Cmd::ServeSim { .. }) {
        // SAFETY: setting a signal's disposition to its default, before any
        // thread is started
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match run(&cli) {
        Ok(v) => {
            if cli.json {
                // a reader that went away loses the line; it is no failure of the command
                use std::io::Write;
                let _ = writeln!(std::io::stdout(), "{v}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ldcpctl: error: {e}");
            // a bad argument exits 2, as clap's own refusals do
            match e {
                DriverError::BadValue(_) => ExitCode::from(2),
                // as a shell reports a command a SIGINT ended
                DriverError::Interrupted(_) => ExitCode::from(130),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::fuzz::{argv_bytes, argv_of, Refusal, Target, Verdict};

    fn corpus() -> Vec<Vec<u8>> {
        [
            &["probe"][..],
            &["config", "get"],
            &["config", "set", "alpha", "0.5"],
            &["config", "set", "wred_k_min", "raw:30000"],
            &["config", "set", "cw_max", "0x100000"],
            &["flow", "set", "7", "2.5"],
            &["flow", "show", "255"],
            &["flow", "reset", "3"],
            &["stats", "--clear"],
            &["fs", "--kind", "tx", "--flow", "4", "--psn", "100"],
            &[
                "bench",
                "--events",
                "200",
                "--set",
                "wred_drain=4000",
                "--set",
                "rtt_ticks=100",
            ],
            &["--json", "reset"],
        ]
        .iter()
        .map(|a| argv_bytes(a))
        .collect()
    }

    /// The golden model runs a command whose numbers are all small (a
    /// fuzzed `bench --events 4000000000` would run for hours: its
    /// arguments are only parsed).
    fn cheap(argv: &[String]) -> bool {
        argv.iter()
            .all(|a| a.parse::<f64>().map_or(true, |v| v.abs() <= 4096.0))
    }

    /// The arguments (NUL-separated, lossy UTF-8) through clap, then, on
    /// the golden model (`--backend model` whatever the input says), the
    /// command itself: refused with an error or done, never a panic
    /// (clap's debug assertions on the command's definition run too).
    fn check(b: &[u8]) -> Verdict {
        let argv = argv_of(b);
        let argv0 = std::iter::once("ldcpctl".to_string());
        let mut cli = match Cli::try_parse_from(argv0.chain(argv.clone())) {
            Err(e) => return Ok(Err(Refusal::new("clap", e.to_string()))),
            Ok(c) => c,
        };
        if matches!(cli.cmd, Cmd::ServeSim { .. }) || !cheap(&argv) {
            return Ok(Ok(()));
        }
        cli.backend = Kind::Model;
        match run(&cli) {
            Ok(_) => Ok(Ok(())),
            Err(e) => Ok(Err(Refusal::new("device", e.to_string()))),
        }
    }

    /// The bounded run CI makes of `ldcpctl`'s arguments: a fixed seed
    /// (printed; LDCP_FUZZ_INPUTS sets the count, 3,000 by default), no
    /// panic, commands accepted and refused by clap and by the device.
    #[test]
    fn fuzz_ldcpctls_arguments_for_a_bounded_run() {
        let t = Target {
            name: "ldcpctl_args",
            corpus,
            fixup: |_| {},
            check,
        };
        let n = std::env::var("LDCP_FUZZ_INPUTS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3_000);
        // most mutations break a subcommand's or an option's name: about
        // one input in 100 is a command that runs
        let r = ldcp_sim::fuzz::assert_bounded_run(&t, 0x5EED_F060, n, 10);
        assert_eq!(r.refused.len(), 2, "{:?}", r.refused);
    }
}
