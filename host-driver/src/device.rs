//! The NIC core as software sees it, on any [`RegAccess`] backend.

use crate::regs;
use crate::{DriverError, Field, RegAccess};

/// What `probe` finds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// MAGIC.
    pub magic: u32,
    /// Register-map version, major.minor.
    pub map_version: String,
    /// GIT_HASH, 8 hex digits.
    pub git_hash: String,
    /// Built from a tree with uncommitted changes.
    pub dirty: bool,
    /// Flows.
    pub flows: u32,
    /// Event FIFO depth.
    pub fifo_depth: u32,
    /// Window engine latency, cycles.
    pub engine_latency: u32,
    /// The extension blocks are present (CAPS.EXT).
    pub ext: bool,
    /// The backend.
    pub backend: String,
}

/// A parameter `config get|set` knows: (name, field, what it is).
pub struct ConfigParam {
    /// The name on the command line.
    pub name: &'static str,
    /// Its field.
    pub field: Field,
    /// Its register's offset.
    pub offset: u32,
    /// Fraction bits of its fixed-point format (0: an integer).
    pub frac: u32,
    /// One line.
    pub doc: &'static str,
    /// It belongs to an extension block (needs CAPS.EXT).
    pub ext: bool,
}

const fn ext(
    name: &'static str,
    field: Field,
    offset: u32,
    frac: u32,
    doc: &'static str,
) -> ConfigParam {
    ConfigParam {
        name,
        field,
        offset,
        frac,
        doc,
        ext: true,
    }
}

/// The parameters, by name.
pub const CONFIG: &[ConfigParam] = &[
    ConfigParam {
        name: "alpha",
        field: regs::alpha::RAW,
        offset: regs::alpha::OFFSET,
        frac: 8,
        doc: "PAWA increase factor, (0, 1] in steps of 1/256",
        ext: false,
    },
    ConfigParam {
        name: "beta",
        field: regs::beta::RAW,
        offset: regs::beta::OFFSET,
        frac: 8,
        doc: "PAWA decrease factor, (0, 1] in steps of 1/256",
        ext: false,
    },
    ConfigParam {
        name: "gamma_shift",
        field: regs::gamma::SHIFT,
        offset: regs::gamma::OFFSET,
        frac: 0,
        doc: "gamma = 2^-gamma_shift, 1..=8",
        ext: false,
    },
    ConfigParam {
        name: "cw_max",
        field: regs::cw_max::CW,
        offset: regs::cw_max::OFFSET,
        frac: 20,
        doc: "largest cw, packets, [1, 4096)",
        ext: false,
    },
    ConfigParam {
        name: "rtt_ticks",
        field: regs::rtt::TICKS,
        offset: regs::rtt::OFFSET,
        frac: 0,
        doc: "RTT in pacing ticks, 1..=65535",
        ext: false,
    },
    ConfigParam {
        name: "init_cw",
        field: regs::init_cw::CW,
        offset: regs::init_cw::OFFSET,
        frac: 20,
        doc: "cw a flow reset sets, packets, [1/256, 4096)",
        ext: false,
    },
    ext(
        "fs_iw",
        regs::fs_iw::PKTS,
        regs::fs_iw::OFFSET,
        0,
        "fast-start IW, packets, 1..=4095",
    ),
    ext(
        "ag_m",
        regs::ag_m::PKTS,
        regs::ag_m::OFFSET,
        0,
        "packets per delayed ACK, 1..=15",
    ),
    ext(
        "ag_timeout",
        regs::ag_timeout::CYCLES,
        regs::ag_timeout::OFFSET,
        0,
        "held-ACK timeout, cycles, 1..=65535",
    ),
    ext(
        "wred_k_min",
        regs::wred_k_min::BYTES,
        regs::wred_k_min::OFFSET,
        0,
        "start of the marking ramp, bytes, 0..=16777215",
    ),
    ext(
        "wred_k_max",
        regs::wred_k_max::BYTES,
        regs::wred_k_max::OFFSET,
        0,
        "end of the marking ramp, bytes, 0..=16777215",
    ),
    ext(
        "wred_k",
        regs::wred_k::BYTES,
        regs::wred_k::OFFSET,
        0,
        "Not-ECT drop threshold K (Eq. 3), bytes, 0..=16777215",
    ),
    ext(
        "wred_buf_max",
        regs::wred_buf_max::BYTES,
        regs::wred_buf_max::OFFSET,
        0,
        "the queue's buffer, bytes, 0..=16777215",
    ),
    ext(
        "wred_p_max",
        regs::wred_p_max::P,
        regs::wred_p_max::OFFSET,
        15,
        "marking probability at K_max, [0, 1] in steps of 2^-15",
    ),
    ext(
        "wred_seed",
        regs::wred_seed::SEED,
        regs::wred_seed::OFFSET,
        0,
        "seed of the marking draws (loaded at a core reset)",
    ),
    ext(
        "wred_drain",
        regs::wred_drain::BYTES,
        regs::wred_drain::OFFSET,
        0,
        "egress bytes per cycle, 0..=16383",
    ),
];

impl ConfigParam {
    /// A parameter by name.
    pub fn find(name: &str) -> Result<&'static ConfigParam, DriverError> {
        CONFIG
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                DriverError::BadValue(format!(
                    "no parameter {name:?}; the parameters are: {}",
                    CONFIG.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
                ))
            })
    }

    /// A raw value in the parameter's unit.
    pub fn value(&self, raw: u32) -> f64 {
        raw as f64 / (1u64 << self.frac) as f64
    }

    /// Parses a value in the parameter's unit (`0.5`), or a raw value
    /// (`raw:128`, `0x80`), and checks its legal range.
    pub fn parse(&self, s: &str) -> Result<u32, DriverError> {
        let s = s.trim();
        let bad = || {
            DriverError::BadValue(format!(
                "{} = {s:?} is not a number (give a value like 0.5, or a raw register value as raw:128 or 0x80)",
                self.name
            ))
        };
        let raw: u64 = if let Some(r) = s.strip_prefix("raw:") {
            r.parse().map_err(|_| bad())?
        } else if let Some(h) = s.strip_prefix("0x") {
            u64::from_str_radix(h, 16).map_err(|_| bad())?
        } else {
            let v: f64 = s.parse().map_err(|_| bad())?;
            if !v.is_finite() || v < 0.0 {
                return Err(DriverError::BadValue(format!(
                    "{} = {s} is out of range: {}",
                    self.name, self.doc
                )));
            }
            let scaled = v * (1u64 << self.frac) as f64;
            let r = scaled.round();
            if (scaled - r).abs() > 1e-9 * scaled.max(1.0) {
                return Err(DriverError::BadValue(format!(
                    "{} = {s} is not representable in steps of 2^-{} (nearest: {})",
                    self.name,
                    self.frac,
                    r / (1u64 << self.frac) as f64
                )));
            }
            if r > u32::MAX as f64 {
                u64::MAX
            } else {
                r as u64
            }
        };
        if raw < self.field.min as u64 || raw > self.field.max as u64 {
            return Err(DriverError::BadValue(format!(
                "{} = {s} is out of range: it must be in [{}, {}] ({}; raw {}..={})",
                self.name,
                self.value(self.field.min),
                self.value(self.field.max),
                self.doc,
                self.field.min,
                self.field.max
            )));
        }
        Ok(raw as u32)
    }
}

/// FLOW_CMD ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowOp {
    /// Read cw.
    Read = 1,
    /// cw := FLOW_WDATA.
    Write = 2,
    /// cw := INIT_CW.
    Reset = 3,
}

/// A flow's state as the flow window returns it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowState {
    /// The flow.
    pub flow: u32,
    /// cw, UQ12.20 raw.
    pub cw_raw: u32,
    /// cw, packets.
    pub cw: f64,
    /// Pacing interval, ticks (0 when cw >= 1).
    pub interval_ticks: u32,
}

/// A generator run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GenRun {
    /// Events asked for.
    pub events: u64,
    /// CNT_EVENTS after the run.
    pub events_counted: u64,
    /// GEN_CYCLES after the run.
    pub gen_cycles: u64,
    /// events_counted / gen_cycles.
    pub events_per_cycle: f64,
    /// Device cycles (CYCLES) from start to the last poll.
    pub device_cycles: u64,
    /// Host seconds from start to the last poll.
    pub host_seconds: f64,
}

/// Host pushes through the FIFO.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PushRun {
    /// Events pushed and accepted.
    pub events: u64,
    /// Pushes the FIFO dropped (CNT_DROPPED; 0 unless something else pushed).
    pub dropped: u64,
    /// Device cycles (CYCLES) from the first push to the FIFO empty.
    pub device_cycles: u64,
    /// events / device_cycles.
    pub events_per_cycle: f64,
    /// Host seconds.
    pub host_seconds: f64,
    /// events / host_seconds.
    pub events_per_second: f64,
}

/// Polls before a flow command or a reset is declared stuck.
const POLLS: u32 = 10_000;

/// An opened, identified NIC core.
pub struct Device<A: RegAccess> {
    io: A,
    info: DeviceInfo,
}

impl<A: RegAccess> Device<A> {
    /// Identifies the device: refuses one that is not an LDCP core or whose
    /// register-map version this driver does not know.
    pub fn open(mut io: A) -> Result<Self, DriverError> {
        let magic = io.read32(regs::magic::OFFSET)?;
        if magic != regs::MAGIC {
            return Err(DriverError::NotLdcp {
                found: magic,
                expected: regs::MAGIC,
            });
        }
        let v = io.read32(regs::version::OFFSET)?;
        let known = regs::MAP_VERSION;
        if v >> 16 != known >> 16 || (v & 0xffff) > (known & 0xffff) {
            return Err(DriverError::VersionMismatch { found: v, known });
        }
        let hash = io.read32(regs::git_hash::OFFSET)?;
        let caps = io.read32(regs::caps::OFFSET)?;
        let info = DeviceInfo {
            magic,
            map_version: format!("{}.{}", v >> 16, v & 0xffff),
            git_hash: format!("{hash:08x}"),
            dirty: regs::caps::DIRTY.get(caps) != 0,
            flows: 1 << regs::caps::FLOW_BITS.get(caps),
            fifo_depth: 1 << regs::caps::FIFO_LOG2.get(caps),
            engine_latency: regs::caps::LATENCY.get(caps),
            ext: regs::caps::EXT.get(caps) != 0,
            backend: io.describe(),
        };
        Ok(Device { io, info })
    }

    /// What `open` found.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The backend.
    pub fn io(&mut self) -> &mut A {
        &mut self.io
    }

    fn need_ext(&self, what: &str) -> Result<(), DriverError> {
        if self.info.ext {
            Ok(())
        } else {
            Err(DriverError::NoExt(what.to_string()))
        }
    }

    /// A parameter's raw value.
    pub fn config_get(&mut self, name: &str) -> Result<(u32, f64), DriverError> {
        let p = ConfigParam::find(name)?;
        if p.ext {
            self.need_ext(&format!("parameter {}", p.name))?;
        }
        let raw = p.field.get(self.io.read32(p.offset)?);
        Ok((raw, p.value(raw)))
    }

    /// Sets a parameter from text in its unit (validated first: an illegal
    /// value writes nothing).
    pub fn config_set(&mut self, name: &str, value: &str) -> Result<(u32, f64), DriverError> {
        let p = ConfigParam::find(name)?;
        if p.ext {
            self.need_ext(&format!("parameter {}", p.name))?;
        }
        let raw = p.parse(value)?;
        self.io.write32(p.offset, p.field.put(raw))?;
        self.config_get(name)
    }

    fn check_flow(&self, flow: u32) -> Result<(), DriverError> {
        if flow >= self.info.flows {
            return Err(DriverError::BadValue(format!(
                "flow {flow} is out of range: this device has flows 0..={}",
                self.info.flows - 1
            )));
        }
        Ok(())
    }

    /// Runs a flow command and returns the flow's state after it.
    pub fn flow_cmd(
        &mut self,
        flow: u32,
        op: FlowOp,
        cw_raw: u32,
    ) -> Result<FlowState, DriverError> {
        self.check_flow(flow)?;
        for _ in 0..POLLS {
            let st = self.io.read32(regs::flow_status::OFFSET)?;
            if regs::flow_status::BUSY.get(st) == 0 {
                break;
            }
            self.io.idle(16)?;
        }
        // a flow reset also resets the flow in the extension blocks, through
        // their one-event slots: wait until they are empty
        let ext_reset = op == FlowOp::Reset && self.info.ext;
        if ext_reset {
            self.await_slots(
                regs::xstatus::FS_PENDING.mask() | regs::xstatus::AG_PENDING.mask(),
                "flow reset",
            )?;
            self.clear_overrun(regs::xerrors::FS_OVERRUN)?;
            self.clear_overrun(regs::xerrors::AG_OVERRUN)?;
        }
        self.io.write32(regs::flow_id::OFFSET, flow)?;
        if op == FlowOp::Write {
            self.io.write32(regs::flow_wdata::OFFSET, cw_raw)?;
        }
        self.io.write32(regs::flow_cmd::OFFSET, op as u32)?;
        if ext_reset {
            self.check_overrun(regs::xerrors::FS_OVERRUN, "flow reset (fast-start marker)")?;
            self.check_overrun(regs::xerrors::AG_OVERRUN, "flow reset (ACK generator)")?;
        }
        // the result leaves the engine 23..38 cycles later (more during a reset sweep)
        self.io.idle(ldcp_regmap::ENGINE_LATENCY as u64)?;
        for _ in 0..POLLS {
            let st = self.io.read32(regs::flow_status::OFFSET)?;
            if regs::flow_status::DONE.get(st) != 0 && regs::flow_status::FLOW.get(st) == flow {
                let cw_raw = self.io.read32(regs::flow_cw::OFFSET)?;
                let interval_ticks = self.io.read32(regs::flow_interval::OFFSET)?;
                return Ok(FlowState {
                    flow,
                    cw_raw,
                    cw: cw_raw as f64 / (1u64 << 20) as f64,
                    interval_ticks,
                });
            }
            self.io.idle(8)?;
        }
        Err(DriverError::Timeout(format!(
            "flow {flow}: the command did not complete after {POLLS} polls of FLOW_STATUS"
        )))
    }

    /// Flow `flow`'s cw.
    pub fn flow_show(&mut self, flow: u32) -> Result<FlowState, DriverError> {
        self.flow_cmd(flow, FlowOp::Read, 0)
    }

    /// Sets flow `flow`'s cw (packets; the engine clamps to [gamma, cw_max]).
    pub fn flow_set(&mut self, flow: u32, cw: &str) -> Result<FlowState, DriverError> {
        let p = ConfigParam {
            name: "cw",
            field: regs::flow_wdata::CW,
            offset: regs::flow_wdata::OFFSET,
            frac: 20,
            doc: "cw in packets, [0, 4096)",
            ext: false,
        };
        let raw = p.parse(cw)?;
        self.flow_cmd(flow, FlowOp::Write, raw)
    }

    /// Resets flow `flow` to INIT_CW.
    pub fn flow_reset(&mut self, flow: u32) -> Result<FlowState, DriverError> {
        self.flow_cmd(flow, FlowOp::Reset, 0)
    }

    /// Resets the whole core and waits for the flow sweep to finish.
    pub fn core_reset(&mut self) -> Result<(), DriverError> {
        self.io
            .write32(regs::core_reset::OFFSET, regs::core_reset::GO.put(1))?;
        self.io.idle(2)?;
        for _ in 0..POLLS {
            if regs::status::RESETTING.get(self.io.read32(regs::status::OFFSET)?) == 0 {
                // let the sweep's last SETs leave the engine
                return self.io.idle(ldcp_regmap::ENGINE_LATENCY as u64 + 2);
            }
            self.io.idle(64)?;
        }
        Err(DriverError::Timeout(
            "core reset: STATUS.RESETTING never cleared".into(),
        ))
    }

    /// The counters, by register name.
    pub fn stats(&mut self) -> Result<Vec<(&'static str, u64)>, DriverError> {
        let lo = self.io.read32(regs::cycles_lo::OFFSET)? as u64;
        let hi = self.io.read32(regs::cycles_hi::OFFSET)? as u64;
        let mut v = vec![("CYCLES", hi << 32 | lo)];
        for (name, off) in [
            (regs::cnt_events::NAME, regs::cnt_events::OFFSET),
            (regs::cnt_pushed::NAME, regs::cnt_pushed::OFFSET),
            (regs::cnt_dropped::NAME, regs::cnt_dropped::OFFSET),
            (regs::cnt_updates::NAME, regs::cnt_updates::OFFSET),
            (regs::cnt_marked::NAME, regs::cnt_marked::OFFSET),
            (regs::cnt_packets::NAME, regs::cnt_packets::OFFSET),
            (regs::gen_cycles::NAME, regs::gen_cycles::OFFSET),
            (regs::gen_remaining::NAME, regs::gen_remaining::OFFSET),
        ] {
            v.push((name, self.io.read32(off)? as u64));
        }
        let st = self.io.read32(regs::status::OFFSET)?;
        v.push(("FIFO_LEVEL", regs::status::FIFO_LEVEL.get(st) as u64));
        let err = self.io.read32(regs::errors::OFFSET)?;
        v.push((
            "ERR_FIFO_OVERFLOW",
            regs::errors::FIFO_OVERFLOW.get(err) as u64,
        ));
        v.push((
            "ERR_FLOW_CMD_BUSY",
            regs::errors::FLOW_CMD_BUSY.get(err) as u64,
        ));
        if self.info.ext {
            for (name, off) in [
                (regs::pt_grants::NAME, regs::pt_grants::OFFSET),
                (regs::pt_max_late::NAME, regs::pt_max_late::OFFSET),
                (regs::fs_events::NAME, regs::fs_events::OFFSET),
                (regs::fs_errors::NAME, regs::fs_errors::OFFSET),
                (regs::ag_acks::NAME, regs::ag_acks::OFFSET),
                (regs::ag_naks::NAME, regs::ag_naks::OFFSET),
                (regs::ag_errors::NAME, regs::ag_errors::OFFSET),
                (regs::wred_forwarded::NAME, regs::wred_forwarded::OFFSET),
                (regs::wred_marked::NAME, regs::wred_marked::OFFSET),
                (
                    regs::wred_dropped_wred::NAME,
                    regs::wred_dropped_wred::OFFSET,
                ),
                (
                    regs::wred_dropped_full::NAME,
                    regs::wred_dropped_full::OFFSET,
                ),
                (regs::wred_occ::NAME, regs::wred_occ::OFFSET),
            ] {
                v.push((name, self.io.read32(off)? as u64));
            }
            let x = self.io.read32(regs::xerrors::OFFSET)?;
            v.push(("ERR_FS_OVERRUN", regs::xerrors::FS_OVERRUN.get(x) as u64));
            v.push(("ERR_AG_OVERRUN", regs::xerrors::AG_OVERRUN.get(x) as u64));
        }
        Ok(v)
    }

    /// Zeroes the event counters and the error flags.
    pub fn clear_counters(&mut self) -> Result<(), DriverError> {
        self.io
            .write32(regs::cnt_clear::OFFSET, regs::cnt_clear::GO.put(1))?;
        self.io.write32(
            regs::errors::OFFSET,
            regs::errors::FIFO_OVERFLOW.mask() | regs::errors::FLOW_CMD_BUSY.mask(),
        )?;
        if self.info.ext {
            self.io.write32(
                regs::xerrors::OFFSET,
                regs::xerrors::FS_OVERRUN.mask() | regs::xerrors::AG_OVERRUN.mask(),
            )?;
        }
        Ok(())
    }

    /// The free-running cycle counter.
    pub fn cycles(&mut self) -> Result<u64, DriverError> {
        let lo = self.io.read32(regs::cycles_lo::OFFSET)? as u64;
        let hi = self.io.read32(regs::cycles_hi::OFFSET)? as u64;
        Ok(hi << 32 | lo)
    }

    /// Pushes ACK events (flow, n, ece) through the FIFO, never overfilling
    /// it (the level is read before each batch), and waits until it drains.
    pub fn push_events(
        &mut self,
        events: &mut dyn Iterator<Item = (u32, u32, bool)>,
        total: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<PushRun, DriverError> {
        let depth = self.info.fifo_depth;
        let d0 = self.io.read32(regs::cnt_dropped::OFFSET)? as u64;
        let t0 = std::time::Instant::now();
        let c0 = self.cycles()?;
        let mut pushed = 0u64;
        let mut events = events.take(total as usize).peekable();
        while events.peek().is_some() {
            let level = regs::status::FIFO_LEVEL.get(self.io.read32(regs::status::OFFSET)?);
            let room = depth.saturating_sub(level);
            for _ in 0..room {
                let Some((flow, n, ece)) = events.next() else {
                    break;
                };
                self.check_flow(flow)?;
                if n > 15 {
                    return Err(DriverError::BadValue(format!(
                        "event n = {n} is out of range: it must be in [0, 15]"
                    )));
                }
                self.io.write32(
                    regs::ev_push::OFFSET,
                    regs::ev_push::FLOW.put(flow)
                        | regs::ev_push::N.put(n)
                        | regs::ev_push::ECE.put(ece as u32),
                )?;
                pushed += 1;
            }
            progress(pushed, total);
        }
        for _ in 0..POLLS {
            if regs::status::FIFO_LEVEL.get(self.io.read32(regs::status::OFFSET)?) == 0 {
                break;
            }
        }
        let c1 = self.cycles()?;
        let secs = t0.elapsed().as_secs_f64();
        let dropped = self.io.read32(regs::cnt_dropped::OFFSET)? as u64 - d0;
        let device_cycles = c1 - c0;
        Ok(PushRun {
            events: pushed,
            dropped,
            device_cycles,
            events_per_cycle: pushed as f64 / device_cycles.max(1) as f64,
            host_seconds: secs,
            events_per_second: pushed as f64 / secs.max(1e-9),
        })
    }

    /// Runs the on-chip generator for `events` events and waits for it.
    pub fn run_generator(
        &mut self,
        events: u32,
        seed: u32,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<GenRun, DriverError> {
        if events == 0 {
            return Err(DriverError::BadValue(
                "--events 0: a generator run needs at least one event".into(),
            ));
        }
        self.clear_counters()?;
        self.io.write32(regs::gen_count::OFFSET, events)?;
        self.io.write32(regs::gen_seed::OFFSET, seed)?;
        let t0 = std::time::Instant::now();
        let c0 = self.cycles()?;
        self.io
            .write32(regs::gen_ctrl::OFFSET, regs::gen_ctrl::START.put(1))?;
        let step = (events as u64 / 50).clamp(1_000, 1_000_000);
        loop {
            self.io.idle(step)?;
            let rem = self.io.read32(regs::gen_remaining::OFFSET)?;
            let st = self.io.read32(regs::status::OFFSET)?;
            progress(events as u64 - rem as u64, events as u64);
            if regs::status::GEN_BUSY.get(st) == 0 {
                break;
            }
        }
        let c1 = self.cycles()?;
        let secs = t0.elapsed().as_secs_f64();
        let counted = self.io.read32(regs::cnt_events::OFFSET)? as u64;
        let gen_cycles = self.io.read32(regs::gen_cycles::OFFSET)? as u64;
        Ok(GenRun {
            events: events as u64,
            events_counted: counted,
            gen_cycles,
            events_per_cycle: counted as f64 / gen_cycles.max(1) as f64,
            device_cycles: c1 - c0,
            host_seconds: secs,
        })
    }
}

/// An event for the fast-start marker (FS_EV.KIND).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum FsKind {
    /// A packet leaves: its ECN codepoint is chosen, the checksum fixed.
    Tx = 0,
    /// An ACK: the receiver's expected PSN.
    Ack = 1,
    /// A NAK: go back to the PSN.
    Nak = 2,
    /// Reset the flow (idle).
    Reset = 3,
}

/// What the fast-start marker did with one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FsOutcome {
    /// The flow.
    pub flow: u32,
    /// The event's kind (FS_EV.KIND code).
    pub kind: u32,
    /// Error: 0 none, 1 flow id, 2 PSN out of window or ACK for an idle flow, 3 not IPv4.
    pub err: u32,
    /// TX: the codepoint written (0 Not-ECT, 2 ECT(0)).
    pub ecn: u32,
    /// The flow after the event: 0 idle, 1 fast start, 2 stable.
    pub stage: u32,
    /// The window engine's cw should become `cw_pkts`.
    pub set: bool,
    /// The window for that set, packets.
    pub cw_pkts: u32,
    /// Go back to `psn` (a loss during fast start).
    pub gbn: bool,
    /// The event's PSN.
    pub psn: u32,
    /// TX: header word 0 as rewritten.
    pub word0: u32,
    /// TX: the checksum as updated.
    pub csum: u32,
}

/// What the ACK generator did with one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AgOutcome {
    /// ACKs (and NAKs) it sent meanwhile (0: held for a delayed ACK).
    pub acks: u32,
    /// The last of them: (flow, PSN, n, ECE, NAK).
    pub last_ack: Option<(u32, u32, u32, bool, bool)>,
    /// The error code if the packet was refused (1 flow, 2 duplicate or
    /// out of window, 3 a gap already NAKed), else 0.
    pub err: u32,
}

/// What the WRED/ECN port decided on a run of packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WredOutcome {
    /// Packets sent.
    pub packets: u32,
    /// Forwarded, marked or not.
    pub forwarded: u64,
    /// Marked CE (a subset of forwarded).
    pub marked: u64,
    /// Dropped by Eq. 3 (Not-ECT above K).
    pub dropped_wred: u64,
    /// Dropped: no room in the buffer.
    pub dropped_full: u64,
    /// The last packet's decision: 0 forwarded, 1 marked, 2 dropped (Eq. 3), 3 dropped (full).
    pub last_decision: u32,
    /// Queue occupancy after the run, bytes.
    pub occupancy_bytes: u32,
}

/// The pacing timer's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PacingState {
    /// Send credits granted since the last counter clear.
    pub grants: u32,
    /// The last grant's flow.
    pub last_flow: u32,
    /// Its lateness, cycles.
    pub last_late: u32,
    /// The worst lateness since the last counter clear, cycles.
    pub max_late: u32,
}

impl<A: RegAccess> Device<A> {
    fn check_psn(what: &str, psn: u32) -> Result<(), DriverError> {
        if psn > 0xff_ffff {
            return Err(DriverError::BadValue(format!(
                "{what} PSN {psn} is out of range: it must be in [0, 16777215] (24 bits)"
            )));
        }
        Ok(())
    }

    /// Waits until `reg` differs from `before` (a counter moved).
    fn await_change(&mut self, reg: u32, before: u32, what: &str) -> Result<u32, DriverError> {
        for _ in 0..POLLS {
            let now = self.io.read32(reg)?;
            if now != before {
                return Ok(now);
            }
            self.io.idle(2)?;
        }
        Err(DriverError::Timeout(format!(
            "{what}: no result after {POLLS} polls"
        )))
    }

    /// Clears an overrun flag before a write that could set it.
    fn clear_overrun(&mut self, flag: Field) -> Result<(), DriverError> {
        self.io.write32(regs::xerrors::OFFSET, flag.mask())
    }

    /// Whether the write just made overran (the flag was cleared before it).
    fn check_overrun(&mut self, flag: Field, what: &str) -> Result<(), DriverError> {
        // the flag is set two edges after the write that overran
        self.io.idle(2)?;
        let x = self.io.read32(regs::xerrors::OFFSET)?;
        if flag.get(x) != 0 {
            self.io.write32(regs::xerrors::OFFSET, flag.mask())?;
            return Err(DriverError::Overrun(what.to_string()));
        }
        Ok(())
    }

    /// Waits until the extension blocks' slots are empty.
    fn await_slots(&mut self, mask: u32, what: &str) -> Result<(), DriverError> {
        for _ in 0..POLLS {
            if self.io.read32(regs::xstatus::OFFSET)? & mask == 0 {
                return Ok(());
            }
            self.io.idle(2)?;
        }
        Err(DriverError::Timeout(format!(
            "{what}: XSTATUS still shows a pending event after {POLLS} polls"
        )))
    }

    /// Presents one event to the fast-start marker and returns its result.
    pub fn fs_event(
        &mut self,
        kind: FsKind,
        flow: u32,
        psn: u32,
        last: bool,
        word0: u16,
        csum: u16,
    ) -> Result<FsOutcome, DriverError> {
        self.need_ext("the fast-start marker")?;
        self.check_flow(flow)?;
        Self::check_psn("fast-start", psn)?;
        let before = self.io.read32(regs::fs_events::OFFSET)?;
        self.clear_overrun(regs::xerrors::FS_OVERRUN)?;
        self.io.write32(regs::fs_psn::OFFSET, psn)?;
        self.io.write32(
            regs::fs_hdr::OFFSET,
            regs::fs_hdr::WORD0.put(word0 as u32) | regs::fs_hdr::CSUM.put(csum as u32),
        )?;
        self.io.write32(
            regs::fs_ev::OFFSET,
            regs::fs_ev::KIND.put(kind as u32)
                | regs::fs_ev::LAST.put(last as u32)
                | regs::fs_ev::FLOW.put(flow),
        )?;
        self.check_overrun(regs::xerrors::FS_OVERRUN, "fast-start event")?;
        self.await_change(regs::fs_events::OFFSET, before, "fast-start event")?;
        let r = self.io.read32(regs::fs_result::OFFSET)?;
        let h = self.io.read32(regs::fs_result_hdr::OFFSET)?;
        Ok(FsOutcome {
            flow: regs::fs_result::FLOW.get(r),
            kind: regs::fs_result::KIND.get(r),
            err: regs::fs_result::ERR.get(r),
            ecn: regs::fs_result::ECN.get(r),
            stage: regs::fs_result::STAGE.get(r),
            set: regs::fs_result::SET.get(r) != 0,
            cw_pkts: self.io.read32(regs::fs_result_cw::OFFSET)?,
            gbn: regs::fs_result::GBN.get(r) != 0,
            psn: self.io.read32(regs::fs_result_psn::OFFSET)?,
            word0: regs::fs_result_hdr::WORD0.get(h),
            csum: regs::fs_result_hdr::CSUM.get(h),
        })
    }

    /// Presents one packet (`open`: open the flow at `psn` instead) to the
    /// ACK generator and returns the ACKs it sent meanwhile.
    pub fn ag_packet(
        &mut self,
        open: bool,
        flow: u32,
        psn: u32,
        ce: bool,
        last: bool,
    ) -> Result<AgOutcome, DriverError> {
        self.need_ext("the ACK generator")?;
        self.check_flow(flow)?;
        Self::check_psn("receiver", psn)?;
        let acks0 = self.io.read32(regs::ag_acks::OFFSET)?;
        let errs0 = self.io.read32(regs::ag_errors::OFFSET)?;
        self.clear_overrun(regs::xerrors::AG_OVERRUN)?;
        self.io.write32(regs::ag_psn::OFFSET, psn)?;
        self.io.write32(
            regs::ag_ev::OFFSET,
            regs::ag_ev::KIND.put(open as u32)
                | regs::ag_ev::CE.put(ce as u32)
                | regs::ag_ev::LAST.put(last as u32)
                | regs::ag_ev::FLOW.put(flow),
        )?;
        self.check_overrun(regs::xerrors::AG_OVERRUN, "receiver packet")?;
        self.await_slots(regs::xstatus::AG_PENDING.mask(), "receiver packet")?;
        // an ACK leaves 2 cycles after its packet is taken (3 for a split's second)
        self.io.idle(4)?;
        let acks = self.io.read32(regs::ag_acks::OFFSET)?.wrapping_sub(acks0);
        let err = if self.io.read32(regs::ag_errors::OFFSET)? != errs0 {
            self.io.read32(regs::ag_err::OFFSET)?
        } else {
            0
        };
        let last_ack = if acks > 0 {
            let a = self.io.read32(regs::ag_ack::OFFSET)?;
            Some((
                self.io.read32(regs::ag_ack_flow::OFFSET)?,
                regs::ag_ack::PSN.get(a),
                regs::ag_ack::N.get(a),
                regs::ag_ack::ECE.get(a) != 0,
                regs::ag_ack::NAK.get(a) != 0,
            ))
        } else {
            None
        };
        Ok(AgOutcome {
            acks,
            last_ack,
            err,
        })
    }

    /// Sends `count` packets of `len` bytes with codepoint `ecn` to the
    /// WRED/ECN port, back to back, and returns its decisions.
    pub fn wred_packets(
        &mut self,
        len: u32,
        ecn: u32,
        count: u32,
    ) -> Result<WredOutcome, DriverError> {
        self.need_ext("the WRED/ECN port")?;
        let f = regs::wred_pkt::LEN;
        if len > f.max {
            return Err(DriverError::BadValue(format!(
                "packet length {len} bytes is out of range: it must be in [0, {}] (14 bits)",
                f.max
            )));
        }
        if ecn > 3 {
            return Err(DriverError::BadValue(format!(
                "ECN codepoint {ecn} is out of range: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE"
            )));
        }
        let read = |d: &mut Self| -> Result<[u64; 4], DriverError> {
            Ok([
                d.io.read32(regs::wred_forwarded::OFFSET)? as u64,
                d.io.read32(regs::wred_marked::OFFSET)? as u64,
                d.io.read32(regs::wred_dropped_wred::OFFSET)? as u64,
                d.io.read32(regs::wred_dropped_full::OFFSET)? as u64,
            ])
        };
        let before = read(self)?;
        let word = regs::wred_pkt::LEN.put(len) | regs::wred_pkt::ECN.put(ecn);
        for _ in 0..count {
            self.io.write32(regs::wred_pkt::OFFSET, word)?;
        }
        // decisions leave 11 cycles after their packet; the counters follow one later
        self.io
            .idle(ldcp_sim::wred_ecn::COUNTER_LATENCY_CYCLES as u64 + 1)?;
        let after = read(self)?;
        let d: Vec<u64> = after.iter().zip(before).map(|(a, b)| a - b).collect();
        let decided = d[0] + d[2] + d[3];
        if decided < count as u64 && after.iter().all(|&c| c < u32::MAX as u64) {
            return Err(DriverError::Timeout(format!(
                "WRED/ECN port: {decided} decisions for {count} packets"
            )));
        }
        Ok(WredOutcome {
            packets: count,
            forwarded: d[0],
            marked: d[1],
            dropped_wred: d[2],
            dropped_full: d[3],
            last_decision: regs::wred_last::DECISION.get(self.io.read32(regs::wred_last::OFFSET)?),
            occupancy_bytes: self.io.read32(regs::wred_occ::OFFSET)?,
        })
    }

    /// The pacing timer's counters.
    pub fn pacing(&mut self) -> Result<PacingState, DriverError> {
        self.need_ext("the pacing timer")?;
        let last = self.io.read32(regs::pt_last::OFFSET)?;
        Ok(PacingState {
            grants: self.io.read32(regs::pt_grants::OFFSET)?,
            last_flow: regs::pt_last::FLOW.get(last),
            last_late: regs::pt_last::LATE.get(last),
            max_late: self.io.read32(regs::pt_max_late::OFFSET)?,
        })
    }
}
