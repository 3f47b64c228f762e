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
}

/// The parameters, by name.
pub const CONFIG: &[ConfigParam] = &[
    ConfigParam {
        name: "alpha",
        field: regs::alpha::RAW,
        offset: regs::alpha::OFFSET,
        frac: 8,
        doc: "PAWA increase factor, (0, 1] in steps of 1/256",
    },
    ConfigParam {
        name: "beta",
        field: regs::beta::RAW,
        offset: regs::beta::OFFSET,
        frac: 8,
        doc: "PAWA decrease factor, (0, 1] in steps of 1/256",
    },
    ConfigParam {
        name: "gamma_shift",
        field: regs::gamma::SHIFT,
        offset: regs::gamma::OFFSET,
        frac: 0,
        doc: "gamma = 2^-gamma_shift, 1..=8",
    },
    ConfigParam {
        name: "cw_max",
        field: regs::cw_max::CW,
        offset: regs::cw_max::OFFSET,
        frac: 20,
        doc: "largest cw, packets, [1, 4096)",
    },
    ConfigParam {
        name: "rtt_ticks",
        field: regs::rtt::TICKS,
        offset: regs::rtt::OFFSET,
        frac: 0,
        doc: "RTT in pacing ticks, 1..=65535",
    },
    ConfigParam {
        name: "init_cw",
        field: regs::init_cw::CW,
        offset: regs::init_cw::OFFSET,
        frac: 20,
        doc: "cw a flow reset sets, packets, [1/256, 4096)",
    },
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

    /// A parameter's raw value.
    pub fn config_get(&mut self, name: &str) -> Result<(u32, f64), DriverError> {
        let p = ConfigParam::find(name)?;
        let raw = p.field.get(self.io.read32(p.offset)?);
        Ok((raw, p.value(raw)))
    }

    /// Sets a parameter from text in its unit (validated first: an illegal
    /// value writes nothing).
    pub fn config_set(&mut self, name: &str, value: &str) -> Result<(u32, f64), DriverError> {
        let p = ConfigParam::find(name)?;
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
        self.io.write32(regs::flow_id::OFFSET, flow)?;
        if op == FlowOp::Write {
            self.io.write32(regs::flow_wdata::OFFSET, cw_raw)?;
        }
        self.io.write32(regs::flow_cmd::OFFSET, op as u32)?;
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
        Ok(v)
    }

    /// Zeroes the event counters and the error flags.
    pub fn clear_counters(&mut self) -> Result<(), DriverError> {
        self.io
            .write32(regs::cnt_clear::OFFSET, regs::cnt_clear::GO.put(1))?;
        self.io.write32(
            regs::errors::OFFSET,
            regs::errors::FIFO_OVERFLOW.mask() | regs::errors::FLOW_CMD_BUSY.mask(),
        )
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
