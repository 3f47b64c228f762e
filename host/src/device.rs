//! An LDCP device as software sees it, on any [`RegAccess`] backend: the
//! NIC (core, or system with the extension blocks) or the switch port
//! (CAPS.KIND), each register used only where the device decodes it.

use crate::regs::{self, Param};
use crate::{DriverError, Field, RegAccess};

/// What `probe` finds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// MAGIC.
    pub magic: u32,
    /// Register-map version, major.minor.
    pub map_version: String,
    /// What the device is (CAPS.KIND): "NIC" or "SWITCH_PORT".
    pub kind: String,
    /// GIT_HASH, 8 hex digits.
    pub git_hash: String,
    /// Built from a tree with uncommitted changes.
    pub dirty: bool,
    /// Flows (0 on a switch port).
    pub flows: u32,
    /// Event FIFO depth (0 on a switch port).
    pub fifo_depth: u32,
    /// Window engine latency, cycles.
    pub engine_latency: u32,
    /// The extension decoder is present (CAPS.EXT).
    pub ext: bool,
    /// The blocks the device holds (BLOCKS; on a map-1.2 device, which has
    /// no BLOCKS register, derived from CAPS.KIND and CAPS.EXT), by their
    /// BLOCKS field names.
    pub blocks: Vec<String>,
    /// The backend.
    pub backend: String,
}

/// A parameter's value as the device holds it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ParamValue {
    /// The parameter.
    pub param: Param,
    /// The register field's raw value.
    pub raw: u32,
    /// The value in the parameter's unit (fixed point: raw / 2^frac).
    pub value: f64,
}

impl ParamValue {
    fn of(param: Param, raw: u32) -> Self {
        ParamValue {
            param,
            raw,
            value: param.field().to_value(raw),
        }
    }
}

/// A refused value of `p`: the field's reason (the value and its legal
/// range) with the parameter's name and format.
fn bad_param(p: Param, why: String) -> DriverError {
    DriverError::BadValue(format!(
        "{} = {why} ({})",
        p.name(),
        p.field().format.describe()
    ))
}

/// The counters and status flags of the device, enumerated from the
/// register map's counters ([`regs::CoreCounters`], [`regs::ExtCounters`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// The free-running cycle counter (CYCLES_HI:CYCLES_LO).
    pub cycles: u64,
    /// Events waiting in the FIFO (STATUS.FIFO_LEVEL).
    pub fifo_level: u32,
    /// Events the on-chip generator has still to produce (GEN_REMAINING).
    pub gen_remaining: u32,
    /// ERRORS.FIFO_OVERFLOW.
    pub err_fifo_overflow: bool,
    /// ERRORS.FLOW_CMD_BUSY.
    pub err_flow_cmd_busy: bool,
    /// The core's counters.
    pub core: regs::CoreCounters,
    /// The extension blocks' counters and flags, with CAPS.EXT.
    pub ext: Option<ExtStats>,
}

/// A switch port's counters and state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SwitchStats {
    /// WRED_FORWARDED: packets forwarded, marked or not (saturating).
    pub forwarded: u32,
    /// WRED_MARKED: packets marked CE (saturating).
    pub marked: u32,
    /// WRED_DROPPED_WRED: Not-ECT packets dropped by Eq. 3 (saturating).
    pub dropped_wred: u32,
    /// WRED_DROPPED_FULL: packets dropped for room (saturating).
    pub dropped_full: u32,
    /// WRED_OCC: the queue, bytes.
    pub occupancy_bytes: u32,
    /// WRED_LAST.DECISION: 0 forwarded, 1 marked, 2 dropped (Eq. 3), 3 dropped (full).
    pub last_decision: u32,
    /// WRED_LAST.ECN: the codepoint the last packet left with.
    pub last_ecn: u32,
}

/// The extension blocks' counters and status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExtStats {
    /// The counters.
    pub counters: regs::ExtCounters,
    /// PT_MAX_LATE: the worst grant lateness since the last clear, cycles.
    pub pt_max_late_cycles: u32,
    /// WRED_OCC: the port's queue, bytes.
    pub wred_occupancy_bytes: u32,
    /// XERRORS.FS_OVERRUN.
    pub err_fs_overrun: bool,
    /// XERRORS.AG_OVERRUN.
    pub err_ag_overrun: bool,
    /// XERRORS.WRED_OVERRUN: a WRED_PKT write met a loop packet (map 1.4).
    pub err_wred_overrun: bool,
    /// LOOP_STATUS.IN_PIPE: loop packets on chip (map 1.4).
    pub loop_in_pipe: u32,
}

impl Stats {
    /// (name, value) of every figure, in register order: the map's
    /// register names, and `<REGISTER>.<FIELD>` for flags and levels.
    pub fn entries(&self) -> Vec<(String, u64)> {
        let mut v = vec![("CYCLES".to_string(), self.cycles)];
        v.extend(
            self.core
                .entries()
                .into_iter()
                .map(|(n, c)| (n.to_string(), c)),
        );
        v.push(("STATUS.FIFO_LEVEL".into(), self.fifo_level as u64));
        v.push((regs::gen_remaining::NAME.into(), self.gen_remaining as u64));
        v.push(("ERRORS.FIFO_OVERFLOW".into(), self.err_fifo_overflow as u64));
        v.push(("ERRORS.FLOW_CMD_BUSY".into(), self.err_flow_cmd_busy as u64));
        if let Some(x) = &self.ext {
            v.extend(
                x.counters
                    .entries()
                    .into_iter()
                    .map(|(n, c)| (n.to_string(), c)),
            );
            v.push((regs::pt_max_late::NAME.into(), x.pt_max_late_cycles as u64));
            v.push((regs::wred_occ::NAME.into(), x.wred_occupancy_bytes as u64));
            v.push(("XERRORS.FS_OVERRUN".into(), x.err_fs_overrun as u64));
            v.push(("XERRORS.AG_OVERRUN".into(), x.err_ag_overrun as u64));
            v.push(("XERRORS.WRED_OVERRUN".into(), x.err_wred_overrun as u64));
            v.push(("LOOP_STATUS.IN_PIPE".into(), x.loop_in_pipe as u64));
        }
        v
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

/// A run of the on-chip loopback (`nic_system`): the sender, the marker,
/// the port, the receiver and the ACKs back to the engine, all counted at
/// the blocks' ports by the device.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LoopRun {
    /// The sender's flows.
    pub flows: u32,
    /// Device cycles the sender ran (LOOP_CTRL.SEND set).
    pub send_cycles: u64,
    /// Device cycles of the drain after it (the last packets and ACKs).
    pub drain_cycles: u64,
    /// Packets sent, retransmissions included (LOOP_SENT).
    pub sent: u64,
    /// Packets the receiver took (LOOP_DELIVERED).
    pub delivered: u64,
    /// ACKs and NAKs the receiver sent back (AG_ACKS).
    pub acks: u64,
    /// ACK events that entered the window engine (CNT_EVENTS).
    pub engine_events: u64,
    /// Window updates the engine wrote (CNT_UPDATES).
    pub engine_updates: u64,
    /// Packets the port marked CE (WRED_MARKED, difference over the run).
    pub marked: u64,
    /// Packets the port dropped (WRED_DROPPED_*, difference over the run).
    pub dropped: u64,
    /// Go-back-N rewinds (LOOP_REWINDS), of them by timeout (LOOP_TIMEOUTS).
    pub rewinds: u64,
    /// Rewinds by the retransmission timeout.
    pub timeouts: u64,
    /// sent / send_cycles.
    pub sent_per_cycle: f64,
    /// delivered / send_cycles.
    pub delivered_per_cycle: f64,
    /// engine_events / send_cycles.
    pub engine_events_per_cycle: f64,
    /// Host seconds of the whole run.
    pub host_seconds: f64,
}

/// Host pushes through the FIFO.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PushRun {
    /// EV_PUSH writes the host made.
    pub written: u64,
    /// Events the FIFO accepted, as the device counted them (CNT_PUSHED).
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

/// An opened, identified device.
pub struct Device<A: RegAccess> {
    io: A,
    info: DeviceInfo,
    kind: u32,
    /// BLOCKS, raw.
    blocks: u32,
}

/// The field that reports block-set bit `bit`: BLOCKS' own bits, and
/// SW_BLOCKS' from `ldcp_regmap::SW_BLOCKS_SHIFT`.
fn block_field(bit: u32) -> Option<&'static ldcp_regmap::Field> {
    let (reg, lsb) = if bit >= ldcp_regmap::SW_BLOCKS_SHIFT {
        ("SW_BLOCKS", bit - ldcp_regmap::SW_BLOCKS_SHIFT)
    } else {
        ("BLOCKS", bit)
    };
    ldcp_regmap::register(reg)?
        .fields
        .iter()
        .find(|f| f.lsb == lsb)
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
        let kind = regs::caps::KIND.get(caps);
        let kind_name = ldcp_regmap::KINDS
            .iter()
            .find(|(c, _)| *c == kind)
            .map(|(_, n)| n.to_string())
            .ok_or(DriverError::UnknownKind(kind))?;
        let nic = kind == ldcp_regmap::KIND_NIC;
        let ext = regs::caps::EXT.get(caps) != 0;
        // (every 2.x device has BLOCKS; a 1.x device, whose flow fields
        // are 8 bits wide with other fields right above them, was refused)
        let mut blocks = io.read32(regs::blocks::OFFSET)? & 0xffff;
        if v & 0xffff == 0 && blocks >> ldcp_regmap::BLOCK_WINDOW_ENGINE & 1 != 0 {
            // a 2.0 device has no BLOCKS.GENERATOR: it holds the generator
            // wherever it holds the window engine
            blocks |= 1 << ldcp_regmap::BLOCK_GENERATOR;
        }
        if kind == ldcp_regmap::KIND_SWITCH_PORT {
            // a switch port's own blocks (draft 001); 0 on a build without
            // them, whose decoder does not map the register
            blocks |= io.read32(regs::sw_blocks::OFFSET)? << ldcp_regmap::SW_BLOCKS_SHIFT;
        }
        let info = DeviceInfo {
            magic,
            map_version: format!("{}.{}", v >> 16, v & 0xffff),
            kind: kind_name,
            git_hash: format!("{hash:08x}"),
            dirty: regs::caps::DIRTY.get(caps) != 0,
            flows: if nic {
                1 << regs::caps::FLOW_BITS.get(caps)
            } else {
                0
            },
            fifo_depth: if nic {
                1 << regs::caps::FIFO_LOG2.get(caps)
            } else {
                0
            },
            engine_latency: regs::caps::LATENCY.get(caps),
            ext,
            blocks: (0..32)
                .filter(|b| blocks >> b & 1 != 0)
                .map(|b| block_field(b).map_or(format!("BIT{b}"), |f| f.name.to_string()))
                .collect(),
            backend: io.describe(),
        };
        Ok(Device {
            io,
            info,
            kind,
            blocks,
        })
    }

    /// Whether it is a switch port (CAPS.KIND = SWITCH_PORT).
    pub fn is_switch_port(&self) -> bool {
        self.kind == ldcp_regmap::KIND_SWITCH_PORT
    }

    /// Whether the device decodes `r` (others read as 0 and ignore writes).
    pub fn has(&self, r: &ldcp_regmap::Register) -> bool {
        ldcp_regmap::decoded_by(r, self.kind, self.info.ext, self.blocks)
    }

    /// Whether the device holds the block of BLOCKS bit `bit`
    /// (`ldcp_regmap::BLOCK_*`).
    pub fn has_block(&self, bit: u32) -> bool {
        self.blocks >> bit & 1 != 0
    }

    /// Refuses `what` (which uses register `r`) on a device that does not
    /// decode it, saying why.
    fn need(&self, r: &ldcp_regmap::Register, what: &str) -> Result<(), DriverError> {
        if self.has(r) {
            Ok(())
        } else if let Some(b) = ldcp_regmap::block_bit(r).filter(|&b| !self.has_block(b)) {
            Err(DriverError::NoBlock {
                what: what.to_string(),
                block: block_field(b).map_or("?", |f| f.name).to_string(),
                has: self.info.blocks.join(", "),
            })
        } else if self.is_switch_port() {
            Err(DriverError::NotOnSwitchPort(what.to_string()))
        } else {
            Err(DriverError::NoExt(what.to_string()))
        }
    }

    fn reg(name: &str) -> &'static ldcp_regmap::Register {
        ldcp_regmap::register(name).unwrap_or_else(|| panic!("no register {name} in the map"))
    }

    /// What `open` found.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The backend.
    pub fn io(&mut self) -> &mut A {
        &mut self.io
    }

    fn need_param(&self, p: Param) -> Result<(), DriverError> {
        self.need(p.register(), &format!("parameter {}", p.name()))
    }

    /// A parameter's value.
    pub fn param(&mut self, p: Param) -> Result<ParamValue, DriverError> {
        self.need_param(p)?;
        let raw = p.field().get(self.io.read32(p.register().offset)?);
        Ok(ParamValue::of(p, raw))
    }

    /// Sets a parameter to a raw register value, checked against the map's
    /// legal range first (an illegal value writes nothing); returns what
    /// the device then holds.
    pub fn set_param_raw(&mut self, p: Param, raw: u64) -> Result<ParamValue, DriverError> {
        self.need_param(p)?;
        let raw = p.field().check_raw(raw).map_err(|e| bad_param(p, e))?;
        self.write_param(p, raw)
    }

    fn write_param(&mut self, p: Param, raw: u32) -> Result<ParamValue, DriverError> {
        self.io.write32(p.register().offset, p.field().put(raw))?;
        self.param(p)
    }

    /// Sets a parameter to a value in its unit (0.5 for alpha, 30000
    /// bytes for wred_k_min), which must be a whole number of the format's
    /// steps and in the legal range (an illegal value writes nothing).
    pub fn set_param(&mut self, p: Param, value: f64) -> Result<ParamValue, DriverError> {
        self.need_param(p)?;
        let raw = p.field().from_value(value).map_err(|e| bad_param(p, e))?;
        self.write_param(p, raw)
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
        self.need(Self::reg("FLOW_CMD"), "the flow window")?;
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
        // the result leaves the engine about its latency after the write
        // (CAPS.LATENCY: the device's own engine, 38 pipelined, 27 at most
        // for the sequential one; more during a reset sweep or behind
        // queued events): wait that long, then poll
        self.io.idle(self.info.engine_latency as u64)?;
        for _ in 0..POLLS {
            let st = self.io.read32(regs::flow_status::OFFSET)?;
            if regs::flow_status::DONE.get(st) != 0 && regs::flow_status::FLOW.get(st) == flow {
                let cw_raw = self.io.read32(regs::flow_cw::OFFSET)?;
                let interval_ticks = self.io.read32(regs::flow_interval::OFFSET)?;
                return Ok(FlowState {
                    flow,
                    cw_raw,
                    cw: regs::flow_cw::CW.to_value(cw_raw),
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

    /// Sets flow `flow`'s cw to `cw_raw` (UQ12.20 packets; the engine
    /// clamps it to [gamma, cw_max]).
    pub fn flow_set_raw(&mut self, flow: u32, cw_raw: u64) -> Result<FlowState, DriverError> {
        let raw = regs::flow_wdata::CW
            .check_raw(cw_raw)
            .map_err(|e| DriverError::BadValue(format!("flow cw = {e} (packets, UQ12.20)")))?;
        self.flow_cmd(flow, FlowOp::Write, raw)
    }

    /// Sets flow `flow`'s cw to `cw` packets, a whole number of UQ12.20
    /// steps in [0, 4096) (the engine clamps it to [gamma, cw_max]).
    pub fn flow_set(&mut self, flow: u32, cw: f64) -> Result<FlowState, DriverError> {
        let raw = regs::flow_wdata::CW
            .from_value(cw)
            .map_err(|e| DriverError::BadValue(format!("flow cw = {e} (packets, UQ12.20)")))?;
        self.flow_cmd(flow, FlowOp::Write, raw)
    }

    /// Resets flow `flow` to INIT_CW.
    pub fn flow_reset(&mut self, flow: u32) -> Result<FlowState, DriverError> {
        self.flow_cmd(flow, FlowOp::Reset, 0)
    }

    /// Resets the whole core and waits for the flow sweep to finish (a
    /// switch port resets at once).
    pub fn core_reset(&mut self) -> Result<(), DriverError> {
        self.io
            .write32(regs::core_reset::OFFSET, regs::core_reset::GO.put(1))?;
        self.io.idle(2)?;
        if self.is_switch_port() {
            // CORE_RESET acts one cycle after its write; the port's pipeline is empty then
            return Ok(());
        }
        for _ in 0..POLLS {
            if regs::status::RESETTING.get(self.io.read32(regs::status::OFFSET)?) == 0 {
                // let the sweep's last SETs leave the engine (its latency
                // as the device reports it)
                return self.io.idle(self.info.engine_latency as u64 + 2);
            }
            self.io.idle(64)?;
        }
        Err(DriverError::Timeout(
            "core reset: STATUS.RESETTING never cleared".into(),
        ))
    }

    /// The counters and status flags.
    pub fn stats(&mut self) -> Result<Stats, DriverError> {
        self.need(Self::reg("CNT_EVENTS"), "the NIC's counters")?;
        let cycles = self.cycles()?;
        let core = regs::CoreCounters::read(|off| self.io.read32(off))?;
        let st = self.io.read32(regs::status::OFFSET)?;
        let err = self.io.read32(regs::errors::OFFSET)?;
        let ext = if self.info.ext {
            let counters = regs::ExtCounters::read(|off| self.io.read32(off))?;
            let x = self.io.read32(regs::xerrors::OFFSET)?;
            Some(ExtStats {
                counters,
                pt_max_late_cycles: self.io.read32(regs::pt_max_late::OFFSET)?,
                wred_occupancy_bytes: self.io.read32(regs::wred_occ::OFFSET)?,
                err_fs_overrun: regs::xerrors::FS_OVERRUN.get(x) != 0,
                err_ag_overrun: regs::xerrors::AG_OVERRUN.get(x) != 0,
                err_wred_overrun: regs::xerrors::WRED_OVERRUN.get(x) != 0,
                loop_in_pipe: regs::loop_status::IN_PIPE
                    .get(self.io.read32(regs::loop_status::OFFSET)?),
            })
        } else {
            None
        };
        Ok(Stats {
            cycles,
            fifo_level: regs::status::FIFO_LEVEL.get(st),
            gen_remaining: self.io.read32(regs::gen_remaining::OFFSET)?,
            err_fifo_overflow: regs::errors::FIFO_OVERFLOW.get(err) != 0,
            err_flow_cmd_busy: regs::errors::FLOW_CMD_BUSY.get(err) != 0,
            core,
            ext,
        })
    }

    /// The switch port's view: its counters (WRED_*; saturating, cleared
    /// by CORE_RESET only), its queue and its last decision.
    pub fn switch_stats(&mut self) -> Result<SwitchStats, DriverError> {
        self.need(Self::reg("WRED_FORWARDED"), "the WRED/ECN port's counters")?;
        let last = self.io.read32(regs::wred_last::OFFSET)?;
        Ok(SwitchStats {
            forwarded: self.io.read32(regs::wred_forwarded::OFFSET)?,
            marked: self.io.read32(regs::wred_marked::OFFSET)?,
            dropped_wred: self.io.read32(regs::wred_dropped_wred::OFFSET)?,
            dropped_full: self.io.read32(regs::wred_dropped_full::OFFSET)?,
            occupancy_bytes: self.io.read32(regs::wred_occ::OFFSET)?,
            last_decision: regs::wred_last::DECISION.get(last),
            last_ecn: regs::wred_last::ECN.get(last),
        })
    }

    /// Zeroes the event counters and the error flags.
    pub fn clear_counters(&mut self) -> Result<(), DriverError> {
        self.need(Self::reg("CNT_CLEAR"), "the NIC's counters")?;
        self.io
            .write32(regs::cnt_clear::OFFSET, regs::cnt_clear::GO.put(1))?;
        self.io.write32(
            regs::errors::OFFSET,
            regs::errors::FIFO_OVERFLOW.mask() | regs::errors::FLOW_CMD_BUSY.mask(),
        )?;
        if self.info.ext {
            self.io.write32(
                regs::xerrors::OFFSET,
                regs::xerrors::FS_OVERRUN.mask()
                    | regs::xerrors::AG_OVERRUN.mask()
                    | regs::xerrors::WRED_OVERRUN.mask(),
            )?;
        }
        Ok(())
    }

    /// The free-running cycle counter.
    pub fn cycles(&mut self) -> Result<u64, DriverError> {
        self.need(Self::reg("CYCLES_LO"), "the cycle counter")?;
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
        self.need(Self::reg("EV_PUSH"), "the event FIFO")?;
        let depth = self.info.fifo_depth;
        let d0 = self.io.read32(regs::cnt_dropped::OFFSET)?;
        let a0 = self.io.read32(regs::cnt_pushed::OFFSET)?;
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
        // the 32-bit counters wrap: their differences are exact below 2^32
        let dropped = self.io.read32(regs::cnt_dropped::OFFSET)?.wrapping_sub(d0) as u64;
        let accepted = self.io.read32(regs::cnt_pushed::OFFSET)?.wrapping_sub(a0) as u64;
        let device_cycles = c1 - c0;
        Ok(PushRun {
            written: pushed,
            events: accepted,
            dropped,
            device_cycles,
            events_per_cycle: accepted as f64 / device_cycles.max(1) as f64,
            host_seconds: secs,
            events_per_second: accepted as f64 / secs.max(1e-9),
        })
    }

    /// Runs the on-chip generator for `events` events and waits for it.
    pub fn run_generator(
        &mut self,
        events: u32,
        seed: u32,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<GenRun, DriverError> {
        self.need(Self::reg("GEN_CTRL"), "the on-chip generator")?;
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

impl<A: RegAccess> Device<A> {
    /// Runs the on-chip loopback with `flows` flows for `cycles` device
    /// cycles, then stops the sender and waits for the packets and ACKs
    /// on chip to come in; LOOP_CTRL is restored to what it was. The
    /// counters are cleared first (CNT_CLEAR).
    pub fn run_loop(
        &mut self,
        flows: u32,
        cycles: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<LoopRun, DriverError> {
        self.run_loop_until(flows, cycles, progress, &|| false)
    }

    /// [`Device::run_loop`], stopped early when `stop` says so (a signal):
    /// the sender is stopped (LOOP_CTRL restored) before the error
    /// [`DriverError::Interrupted`] returns, so nothing keeps running on
    /// the device after the command.
    pub fn run_loop_until(
        &mut self,
        flows: u32,
        cycles: u64,
        progress: &mut dyn FnMut(u64, u64),
        stop: &dyn Fn() -> bool,
    ) -> Result<LoopRun, DriverError> {
        self.need(Self::reg("LOOP_CTRL"), "the on-chip loopback")?;
        // the map's range, narrowed to this device's flows (above them the
        // device would act as if all of them had been asked)
        let f = regs::loop_ctrl::FLOWS;
        let max = f.max.min(self.info.flows);
        if !(f.min..=max).contains(&flows) {
            return Err(DriverError::BadValue(format!(
                "--loop-flows {flows} is out of range: this device's loop takes [{}, {max}] (its flows)",
                f.min
            )));
        }
        if cycles == 0 {
            return Err(DriverError::BadValue(
                "--cycles 0: a loop run needs at least one cycle".into(),
            ));
        }
        let saved = self.io.read32(regs::loop_ctrl::OFFSET)?;
        self.clear_counters()?;
        let p0 = self.wred_counts()?;
        let t0 = std::time::Instant::now();
        let c0 = self.cycles()?;
        let on = regs::loop_ctrl::LOOPBACK.put(1) | regs::loop_ctrl::SEND.put(1) | f.put(flows);
        self.io.write32(regs::loop_ctrl::OFFSET, on)?;
        // run until the device's own cycle counter says so: a link that
        // cannot idle the device for long (the simulated board replays a
        // host pause up to 200 us) still runs it, through the reads
        let step = (cycles / 50).clamp(1_000, 1_000_000);
        let mut done = 0;
        let ran = (|| -> Result<(), DriverError> {
            loop {
                done = self.cycles()? - c0;
                progress(done.min(cycles), cycles);
                if done >= cycles || stop() {
                    return Ok(());
                }
                self.io.idle(step.min(cycles - done))?;
            }
        })();
        if stop() {
            // a signal (it may also have cut a read short): the sender off
            self.io.write32(regs::loop_ctrl::OFFSET, saved)?;
            return Err(DriverError::Interrupted(format!(
                "interrupted after {done} of {cycles} cycles: the loop's sender is stopped (LOOP_CTRL restored to {saved:#x})"
            )));
        }
        ran?;
        // stop the sender; the return path stays until the chip is empty
        self.io.write32(
            regs::loop_ctrl::OFFSET,
            regs::loop_ctrl::LOOPBACK.put(1) | f.put(flows),
        )?;
        let c1 = self.cycles()?;
        let mut waited = 0;
        while regs::loop_status::IN_PIPE.get(self.io.read32(regs::loop_status::OFFSET)?) != 0 {
            self.io.idle(100)?;
            waited += 100;
            if waited > 1_000_000 {
                self.io.write32(regs::loop_ctrl::OFFSET, saved)?;
                return Err(DriverError::Timeout(
                    "loopback: packets still on chip 1,000,000 cycles after the sender stopped"
                        .into(),
                ));
            }
        }
        // the receiver's held ACKs leave by its timeout
        let flush = self.io.read32(regs::ag_timeout::OFFSET)? as u64 + 300;
        self.io.idle(flush)?;
        self.io.write32(regs::loop_ctrl::OFFSET, saved)?;
        let c2 = self.cycles()?;
        let p1 = self.wred_counts()?;
        let rd =
            |d: &mut Self, off: u32| -> Result<u64, DriverError> { Ok(d.io.read32(off)? as u64) };
        let sent = rd(self, regs::loop_sent::OFFSET)?;
        let delivered = rd(self, regs::loop_delivered::OFFSET)?;
        let engine_events = rd(self, regs::cnt_events::OFFSET)?;
        let send_cycles = c1 - c0;
        let per = |n: u64| n as f64 / send_cycles.max(1) as f64;
        Ok(LoopRun {
            flows,
            send_cycles,
            drain_cycles: c2 - c1,
            sent,
            delivered,
            acks: rd(self, regs::ag_acks::OFFSET)?,
            engine_events,
            engine_updates: rd(self, regs::cnt_updates::OFFSET)?,
            marked: p1[1].wrapping_sub(p0[1]),
            dropped: p1[2].wrapping_sub(p0[2]) + p1[3].wrapping_sub(p0[3]),
            rewinds: rd(self, regs::loop_rewinds::OFFSET)?,
            timeouts: rd(self, regs::loop_timeouts::OFFSET)?,
            sent_per_cycle: per(sent),
            delivered_per_cycle: per(delivered),
            engine_events_per_cycle: per(engine_events),
            host_seconds: t0.elapsed().as_secs_f64(),
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

/// An ACK (or NAK) the ACK generator sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AckInfo {
    /// The flow.
    pub flow: u32,
    /// Cumulative: the next PSN expected.
    pub psn: u32,
    /// Packets it acknowledges.
    pub n: u32,
    /// ECN-Echo.
    pub ece: bool,
    /// A NAK: go back to `psn`.
    pub nak: bool,
}

/// What the ACK generator did with one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AgOutcome {
    /// ACKs (and NAKs) it sent meanwhile (0: held for a delayed ACK).
    pub acks: u32,
    /// The last of them.
    pub last_ack: Option<AckInfo>,
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

/// A packet's header fields as the switch port's staging takes them
/// ([`Device::stage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SwitchPacket {
    /// Outer IPv6 source (the ingress PE's END.CON SID).
    pub outer_src: u128,
    /// Outer IPv6 destination.
    pub outer_dst: u128,
    /// Inner source address (IPv4 in the low 32 bits).
    pub inner_src: u128,
    /// Inner destination address.
    pub inner_dst: u128,
    /// The BTH's DestQP (24 bits).
    pub dest_qp: u32,
    /// The parser found the inner RoCEv2 data packet.
    pub parsed: bool,
    /// The inner header is IPv6.
    pub ipv6: bool,
    /// P_Key.
    pub pkey: u16,
    /// Inner UDP source port.
    pub udp_src: u16,
    /// The outer Next Header.
    pub next_header: u8,
    /// The SRH's Next Header.
    pub srh_next_header: u8,
    /// The SRH's Segments Left.
    pub segments_left: u8,
    /// The SRH's Hdr Ext Len.
    pub ext_len: u8,
    /// The inner header's word 0.
    pub word0: u16,
    /// The inner IPv4 checksum.
    pub csum: u16,
}

/// What the tunnel ingress did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct IngressOutcome {
    /// Its tunnel.
    pub tunnel: u32,
    /// The outer ECN field.
    pub outer_ecn: u32,
    /// The tunnel was in compatibility mode.
    pub compat: bool,
}

/// What the tunnel egress did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EgressOutcome {
    /// Dropped (Not-ECT inner, CE outer).
    pub dropped: bool,
    /// 0 in use, 1 `(!)`, 2 `(!!!)`.
    pub flag: u32,
    /// The inner ECN field leaving.
    pub ecn: u32,
    /// Inner word 0 leaving.
    pub word0: u32,
    /// The inner checksum leaving.
    pub csum: u32,
}

/// END.CON's decision on a packet.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EndConOutcome {
    /// 0 forward, 1 decapsulate, 2 punt, 3 drop.
    pub action: u32,
    /// Its name.
    pub action_name: String,
    /// Bytes a decapsulation strips (0 otherwise).
    pub strip_bytes: u32,
}

/// Draft 002's decision on one packet (CD_LAST) and the block's counters
/// after it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CoordOutcome {
    /// Re-route onto a light candidate.
    pub reroute: bool,
    /// Write this switch into the AR indicator.
    pub write_indicator: bool,
    /// Send a type 3 to the AR point.
    pub type3: bool,
    /// WRED/ECN may mark it.
    pub mark_allowed: bool,
    /// An incast flow's packet.
    pub incast: bool,
    /// CD_REROUTES, CD_TYPE3, CD_MARKS, CD_INCAST.
    pub counts: [u32; 4],
}

/// A Fast CNP descriptor from the queue: the notification to send.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CnpDescriptor {
    /// The CNP's source (the data packet's inner destination).
    pub src: String,
    /// The CNP's destination (the data packet's inner source).
    pub dst: String,
    /// The END.CON SID it returns through.
    pub end_con: String,
    /// DestQP.
    pub dest_qp: u32,
    /// The CNP is IPv6.
    pub ipv6: bool,
    /// P_Key.
    pub pkey: u32,
    /// UDP source port.
    pub udp_src: u32,
}

/// An address as text: IPv6 with `ipv6`, else IPv4 (its low 32 bits).
pub fn addr_text(a: u128, ipv6: bool) -> String {
    if ipv6 {
        std::net::Ipv6Addr::from(a).to_string()
    } else {
        std::net::Ipv4Addr::from(a as u32).to_string()
    }
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
        self.need(Self::reg("FS_EV"), "the fast-start marker")?;
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
        self.need(Self::reg("AG_EV"), "the ACK generator")?;
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
            Some(AckInfo {
                flow: self.io.read32(regs::ag_ack_flow::OFFSET)?,
                psn: regs::ag_ack::PSN.get(a),
                n: regs::ag_ack::N.get(a),
                ece: regs::ag_ack::ECE.get(a) != 0,
                nak: regs::ag_ack::NAK.get(a) != 0,
            })
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
        self.need(Self::reg("WRED_PKT"), "the WRED/ECN port")?;
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
        let before = self.wred_counts()?;
        let word = regs::wred_pkt::LEN.put(len) | regs::wred_pkt::ECN.put(ecn);
        for _ in 0..count {
            self.io.write32(regs::wred_pkt::OFFSET, word)?;
        }
        // decisions leave LATENCY_CYCLES after their packet; the counters follow one later
        self.io
            .idle(ldcp_sim::wred_ecn::COUNTER_LATENCY_CYCLES as u64 + 1)?;
        let after = self.wred_counts()?;
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

    /// The WRED/ECN port's counters: forwarded, marked, dropped by Eq. 3,
    /// dropped for room (WRED_*; saturating).
    fn wred_counts(&mut self) -> Result<[u64; 4], DriverError> {
        Ok([
            self.io.read32(regs::wred_forwarded::OFFSET)? as u64,
            self.io.read32(regs::wred_marked::OFFSET)? as u64,
            self.io.read32(regs::wred_dropped_wred::OFFSET)? as u64,
            self.io.read32(regs::wred_dropped_full::OFFSET)? as u64,
        ])
    }

    /// Stages a packet's header fields (PKT_*): the addresses, the BTH and
    /// UDP fields, the outer next headers, the inner word 0 and checksum.
    /// The device holds them until written again; every field is written.
    pub fn stage(&mut self, p: &SwitchPacket) -> Result<(), DriverError> {
        self.need(Self::reg("PKT_BTH"), "packet staging")?;
        if p.dest_qp > regs::pkt_bth::DEST_QP.max {
            return Err(DriverError::BadValue(format!(
                "DestQP {:#x} is out of range: it must be in [0, {:#x}] (24 bits)",
                p.dest_qp,
                regs::pkt_bth::DEST_QP.max
            )));
        }
        let words = |a: u128| {
            [
                (a >> 96) as u32,
                (a >> 64) as u32,
                (a >> 32) as u32,
                a as u32,
            ]
        };
        for (name, a) in [
            ("PKT_OUTER_SRC", p.outer_src),
            ("PKT_OUTER_DST", p.outer_dst),
            ("PKT_INNER_SRC", p.inner_src),
            ("PKT_INNER_DST", p.inner_dst),
        ] {
            for (k, w) in words(a).iter().enumerate() {
                self.io
                    .write32(Self::reg(&format!("{name}{k}")).offset, *w)?;
            }
        }
        self.io.write32(
            regs::pkt_bth::OFFSET,
            regs::pkt_bth::DEST_QP.put(p.dest_qp)
                | regs::pkt_bth::PARSED.put(p.parsed as u32)
                | regs::pkt_bth::IPV6.put(p.ipv6 as u32),
        )?;
        self.io.write32(
            regs::pkt_udp::OFFSET,
            regs::pkt_udp::PKEY.put(p.pkey as u32) | regs::pkt_udp::UDP_SRC.put(p.udp_src as u32),
        )?;
        self.io.write32(
            regs::pkt_srh::OFFSET,
            regs::pkt_srh::NEXT_HEADER.put(p.next_header as u32)
                | regs::pkt_srh::SRH_NEXT_HEADER.put(p.srh_next_header as u32)
                | regs::pkt_srh::SEGMENTS_LEFT.put(p.segments_left as u32)
                | regs::pkt_srh::EXT_LEN.put(p.ext_len as u32),
        )?;
        self.io.write32(
            regs::pkt_inner::OFFSET,
            regs::pkt_inner::WORD0.put(p.word0 as u32) | regs::pkt_inner::CSUM.put(p.csum as u32),
        )
    }

    fn check_tunnel(tunnel: u32) -> Result<(), DriverError> {
        let max = regs::ti_pkt::TUNNEL.max;
        if tunnel > max {
            return Err(DriverError::BadValue(format!(
                "tunnel {tunnel} is out of range: it must be in [0, {max}]"
            )));
        }
        Ok(())
    }

    /// Sets tunnel `tunnel`'s mode at the ingress PE (compatibility: outer
    /// Not-ECT; normal: outer = inner).
    pub fn tunnel_mode(&mut self, tunnel: u32, compat: bool) -> Result<(), DriverError> {
        self.need(Self::reg("TI_MODE"), "the tunnel ECN ingress")?;
        Self::check_tunnel(tunnel)?;
        self.io.write32(
            regs::ti_mode::OFFSET,
            regs::ti_mode::TUNNEL.put(tunnel) | regs::ti_mode::COMPAT.put(compat as u32),
        )
    }

    /// Encapsulates the staged packet in tunnel `tunnel` (its inner word 0
    /// and IPV6 from the staging): the outer ECN field and the mode used.
    pub fn tunnel_ingress(&mut self, tunnel: u32) -> Result<IngressOutcome, DriverError> {
        self.need(Self::reg("TI_PKT"), "the tunnel ECN ingress")?;
        Self::check_tunnel(tunnel)?;
        self.io
            .write32(regs::ti_pkt::OFFSET, regs::ti_pkt::TUNNEL.put(tunnel))?;
        self.io
            .idle(ldcp_sim::tunnel_ecn::INGRESS_LATENCY_CYCLES as u64 + 2)?;
        let v = self.io.read32(regs::ti_last::OFFSET)?;
        Ok(IngressOutcome {
            tunnel: regs::ti_last::TUNNEL.get(v),
            outer_ecn: regs::ti_last::OUTER_ECN.get(v),
            compat: regs::ti_last::COMPAT.get(v) != 0,
        })
    }

    /// Decapsulates the staged packet arriving with outer ECN `outer_ecn`
    /// (its inner word 0, checksum and IPV6 from the staging).
    pub fn tunnel_egress(&mut self, outer_ecn: u32) -> Result<EgressOutcome, DriverError> {
        self.need(Self::reg("TE_PKT"), "the tunnel ECN egress")?;
        if outer_ecn > 3 {
            return Err(DriverError::BadValue(format!(
                "outer ECN codepoint {outer_ecn} is out of range: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE"
            )));
        }
        self.io
            .write32(regs::te_pkt::OFFSET, regs::te_pkt::OUTER_ECN.put(outer_ecn))?;
        self.io
            .idle(ldcp_sim::tunnel_ecn::EGRESS_LATENCY_CYCLES as u64 + 2)?;
        let v = self.io.read32(regs::te_last::OFFSET)?;
        let w = self.io.read32(regs::te_words::OFFSET)?;
        Ok(EgressOutcome {
            dropped: regs::te_last::DROP.get(v) != 0,
            flag: regs::te_last::FLAG.get(v),
            ecn: regs::te_last::ECN.get(v),
            word0: regs::te_words::WORD0.get(w),
            csum: regs::te_words::CSUM.get(w),
        })
    }

    /// Sets the PE's END.CON SID.
    pub fn end_con_sid(&mut self, sid: u128) -> Result<(), DriverError> {
        self.need(Self::reg("EC_SID0"), "END.CON")?;
        for k in 0..4u32 {
            let w = (sid >> (96 - 32 * k)) as u32;
            self.io
                .write32(Self::reg(&format!("EC_SID{k}")).offset, w)?;
        }
        Ok(())
    }

    /// Matches the staged packet (its outer destination and next headers)
    /// against END.CON: the action and the bytes a decapsulation strips.
    pub fn end_con_packet(&mut self) -> Result<EndConOutcome, DriverError> {
        self.need(Self::reg("EC_PKT"), "END.CON")?;
        self.io
            .write32(regs::ec_pkt::OFFSET, regs::ec_pkt::GO.put(1))?;
        self.io
            .idle(ldcp_sim::end_con::END_CON_LATENCY_CYCLES as u64 + 2)?;
        let v = self.io.read32(regs::ec_last::OFFSET)?;
        let action = regs::ec_last::ACTION.get(v);
        Ok(EndConOutcome {
            action,
            action_name: ["forward", "decapsulate", "punt", "drop"][action as usize & 3].into(),
            strip_bytes: regs::ec_last::STRIP_BYTES.get(v),
        })
    }

    /// Draft 002's decision on one packet (SW_BLOCKS.COORD): its inputs
    /// as the rule takes them (`light` 0-3, 3 meaning three or more: a
    /// larger value is refused, not written).
    pub fn coord_decide(
        &mut self,
        i: &ldcp_sim::coord::DecisionIn,
    ) -> Result<CoordOutcome, DriverError> {
        self.need(Self::reg("CD_PKT"), "draft 002's decision")?;
        let f = regs::cd_pkt::LIGHT;
        if i.light as u32 > f.max {
            return Err(DriverError::BadValue(format!(
                "light = {} is out of range: it must be in [0, {}] (light candidate paths; {} means {} or more)",
                i.light, f.max, f.max, f.max
            )));
        }
        let v = regs::cd_pkt::CONGESTED.put(i.congested as u32)
            | regs::cd_pkt::CC.put(i.cc as u32)
            | f.put(i.light as u32)
            | regs::cd_pkt::ARV.put(i.arv as u32)
            | regs::cd_pkt::LAST_HOP.put(i.last_hop as u32);
        self.io.write32(regs::cd_pkt::OFFSET, v)?;
        self.io
            .idle(ldcp_sim::coord::DECISION_LATENCY_CYCLES as u64 + 2)?;
        let v = self.io.read32(regs::cd_last::OFFSET)?;
        let mut counts = [0; 4];
        for (c, r) in counts.iter_mut().zip([
            regs::cd_reroutes::OFFSET,
            regs::cd_type3::OFFSET,
            regs::cd_marks::OFFSET,
            regs::cd_incast::OFFSET,
        ]) {
            *c = self.io.read32(r)?;
        }
        Ok(CoordOutcome {
            reroute: regs::cd_last::REROUTE.get(v) != 0,
            write_indicator: regs::cd_last::WRITE_INDICATOR.get(v) != 0,
            type3: regs::cd_last::TYPE3.get(v) != 0,
            mark_allowed: regs::cd_last::MARK_ALLOWED.get(v) != 0,
            incast: regs::cd_last::INCAST.get(v) != 0,
            counts,
        })
    }

    /// The Fast CNP queue's level and table state.
    pub fn fast_cnp_status(&mut self) -> Result<(u32, bool), DriverError> {
        self.need(Self::reg("FC_STATUS"), "the Fast CNP trigger")?;
        let v = self.io.read32(regs::fc_status::OFFSET)?;
        Ok((
            regs::fc_status::LEVEL.get(v),
            regs::fc_status::TABLE_READY.get(v) != 0,
        ))
    }

    /// Takes up to `max` descriptors from the Fast CNP queue, oldest first
    /// (each read, then popped).
    pub fn fast_cnp_descriptors(&mut self, max: u32) -> Result<Vec<CnpDescriptor>, DriverError> {
        let (level, _) = self.fast_cnp_status()?;
        let mut v = Vec::new();
        for _ in 0..level.min(max) {
            let word = |d: &mut Self, name: &str| -> Result<u128, DriverError> {
                let mut a = 0u128;
                for k in 0..4 {
                    a = a << 32 | d.io.read32(Self::reg(&format!("{name}{k}")).offset)? as u128;
                }
                Ok(a)
            };
            let qp = self.io.read32(regs::fc_dsc_qp::OFFSET)?;
            let udp = self.io.read32(regs::fc_dsc_udp::OFFSET)?;
            let ipv6 = regs::fc_dsc_qp::IPV6.get(qp) != 0;
            let d = CnpDescriptor {
                src: addr_text(word(self, "FC_DSC_SRC")?, ipv6),
                dst: addr_text(word(self, "FC_DSC_DST")?, ipv6),
                end_con: addr_text(word(self, "FC_DSC_END_CON")?, true),
                dest_qp: regs::fc_dsc_qp::DEST_QP.get(qp),
                ipv6,
                pkey: regs::fc_dsc_udp::PKEY.get(udp),
                udp_src: regs::fc_dsc_udp::UDP_SRC.get(udp),
            };
            self.io
                .write32(regs::fc_pop::OFFSET, regs::fc_pop::GO.put(1))?;
            // the next head is read from the RAMs two cycles after the pop
            self.io.idle(4)?;
            v.push(d);
        }
        Ok(v)
    }

    /// The draft-001 blocks' counters and queue state, of the blocks the
    /// device holds (register name, value).
    pub fn draft001_stats(&mut self) -> Result<Vec<(String, u64)>, DriverError> {
        let mut v = Vec::new();
        let held: Vec<&ldcp_regmap::Register> = ldcp_regmap::REGISTERS
            .iter()
            .filter(|r| r.is_switch_only() && self.has(r))
            .collect();
        for r in held {
            if r.is_counter() {
                v.push((r.name.to_string(), self.io.read32(r.offset)? as u64));
            } else if r.name == "FC_STATUS" {
                let x = self.io.read32(r.offset)?;
                v.push((
                    "FC_STATUS.LEVEL".into(),
                    regs::fc_status::LEVEL.get(x) as u64,
                ));
                v.push((
                    "FC_STATUS.TABLE_READY".into(),
                    regs::fc_status::TABLE_READY.get(x) as u64,
                ));
            }
        }
        Ok(v)
    }

    /// The pacing timer's counters.
    pub fn pacing(&mut self) -> Result<PacingState, DriverError> {
        self.need(Self::reg("PT_GRANTS"), "the pacing timer")?;
        let last = self.io.read32(regs::pt_last::OFFSET)?;
        Ok(PacingState {
            grants: self.io.read32(regs::pt_grants::OFFSET)?,
            last_flow: regs::pt_last::FLOW.get(last),
            last_late: regs::pt_last::LATE.get(last),
            max_late: self.io.read32(regs::pt_max_late::OFFSET)?,
        })
    }
}
