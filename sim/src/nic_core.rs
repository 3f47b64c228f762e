//! The cycle-accurate golden model of the NIC core (`hdl/src/nic_core.rs`):
//! the generated decoder's model ([`ldcp_regmap::model`]), the window
//! engine's cycle model, the event FIFO, the generator, the flow window and
//! the counters, register for register. The RTL's module doc describes the
//! behaviour; this file mirrors it statement for statement.

use crate::window_engine::{WeInputs, WeOutputs, WindowEngineModel, WindowEngineSeqModel};
use ldcp_regmap::model::{field, BusIn, BusOut, RegFileModel};
use ldcp_regmap::position::core_regs;
use ldcp_regmap::REGISTERS;

/// Flow-id bits of the core's iCE40 build.
pub const FLOW_BITS: u32 = ldcp_regmap::FLOW_BITS;
/// Flows of the iCE40 build.
pub const FLOWS: usize = 1 << FLOW_BITS;
/// Flow-id bits of the 4,096-flow build (the ECP5 system's).
pub const FLOW_BITS_4K: u32 = ldcp_regmap::FLOW_FIELD_BITS;
/// The event FIFO's depth.
pub const FIFO_DEPTH: u32 = 1 << ldcp_regmap::FIFO_DEPTH_LOG2;
/// The first age at which an update of the commanded flow is its result
/// (the pipelined engine's merge window: see the RTL's module doc).
pub const CAPTURE_AGE: u32 = 22;
/// The same with the sequential engine: its result is the first update of
/// the commanded flow after the command's event was taken (nothing of the
/// flow is in flight then), which comes at age 6 at the earliest; every
/// age from 2 on picks it (the RTL registers `age >= CAPTURE_AGE - 1`).
pub const CAPTURE_AGE_SEQ: u32 = 2;

/// The build an instance reports in GIT_HASH and CAPS.DIRTY.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildId {
    /// The first 8 hex digits of the commit.
    pub hash: u32,
    /// Uncommitted changes in the tree.
    pub dirty: bool,
}

impl BuildId {
    /// The build the flow's blocks report: GIT_HASH 0 with CAPS.DIRTY set,
    /// so their Verilog, and the committed reports' hashes, do not change
    /// with every commit (a board build or the driver stamps a real one).
    pub const UNSTAMPED: BuildId = BuildId {
        hash: 0,
        dirty: true,
    };

    /// The commit of the source tree this crate was built from (asked of
    /// `git` at run time; hash 0 and dirty when git cannot tell).
    pub fn current() -> Self {
        let dir = env!("CARGO_MANIFEST_DIR");
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let hash =
            git(&["rev-parse", "--short=8", "HEAD"]).and_then(|h| u32::from_str_radix(&h, 16).ok());
        let clean = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| s.is_empty());
        match (hash, clean) {
            (Some(hash), Some(clean)) => BuildId {
                hash,
                dirty: !clean,
            },
            _ => BuildId {
                hash: 0,
                dirty: true,
            },
        }
    }
}

/// The window engine a core carries, and its cycle model: the pipelined
/// engine (one event per cycle, never refused) or the sequential one
/// (`in_ready`: every source of the core's port waits for it).
// one core holds one engine for its life: boxing the pipelined model (the
// large variant) would add an indirection to every cycle of the common one
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum EngineModel {
    /// `ldcp_hdl::window_engine::WindowEngine`.
    Pipelined(WindowEngineModel),
    /// `ldcp_hdl::window_engine_seq::WindowEngineSeq`.
    Sequential(WindowEngineSeqModel),
}

impl EngineModel {
    /// The engine takes an event this cycle (always, for the pipelined one).
    pub fn ready(&self) -> bool {
        match self {
            EngineModel::Pipelined(_) => true,
            EngineModel::Sequential(m) => m.outputs().in_ready,
        }
    }

    /// Its update outputs.
    pub fn outputs(&self) -> WeOutputs {
        match self {
            EngineModel::Pipelined(m) => m.outputs(),
            EngineModel::Sequential(m) => {
                let o = m.outputs();
                WeOutputs {
                    out_valid: o.out_valid,
                    out_flow: o.out_flow,
                    out_cw: o.out_cw,
                    out_interval_ticks: o.out_interval_ticks,
                    out_n_u_pkts: o.out_n_u_pkts,
                    out_n_m_pkts: o.out_n_m_pkts,
                }
            }
        }
    }

    fn tick(&mut self, i: &WeInputs) {
        match self {
            EngineModel::Pipelined(m) => m.tick(i),
            EngineModel::Sequential(m) => m.tick(i),
        }
    }

    fn table(&self, flow: usize) -> Option<u32> {
        match self {
            EngineModel::Pipelined(m) => m.table(flow),
            EngineModel::Sequential(m) => m.table(flow),
        }
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        match self {
            EngineModel::Pipelined(m) => m.in_flight(),
            EngineModel::Sequential(m) => m.in_flight(),
        }
    }

    /// CAPS.LATENCY: its longest latency, cycles.
    pub fn latency_cycles(&self) -> u32 {
        match self {
            EngineModel::Pipelined(_) => crate::window_engine::LATENCY_CYCLES as u32,
            EngineModel::Sequential(_) => crate::window_engine::SEQ_LATENCY_CYCLES as u32,
        }
    }

    /// The first age at which an update of a commanded flow is its result.
    pub fn capture_age(&self) -> u32 {
        match self {
            EngineModel::Pipelined(_) => CAPTURE_AGE,
            EngineModel::Sequential(_) => CAPTURE_AGE_SEQ,
        }
    }
}

pub use crate::xorshift::{seed_state, step as xorshift32};

/// A field of CAPS (panics on a name not in the map: a name in code).
pub fn caps_field(name: &str) -> &'static ldcp_regmap::Field {
    field("CAPS", name)
}

/// The ACK event the generator of a build with `flow_bits` flow bits
/// makes of state `x`: (flow, n, ECE): flow = x[FB-1:0], n = x[FB+3:FB],
/// ECE when x[FB+7:FB+5] = 0.
pub fn gen_event(x: u32, flow_bits: u32) -> (u32, u32, bool) {
    let hi = x >> flow_bits;
    (x & ((1 << flow_bits) - 1), hi & 0xf, (hi >> 5) & 7 == 0)
}

/// The generator's events from GEN_SEED = `seed` in a build with
/// `flow_bits` flow bits (CAPS.FLOW_BITS), in the order it makes them (a
/// host replays a run with it).
pub fn gen_events(seed: u32, flow_bits: u32) -> impl Iterator<Item = (u32, u32, bool)> {
    std::iter::successors(Some(seed_state(seed)), |&x| Some(xorshift32(x)))
        .map(move |x| gen_event(x, flow_bits))
}

/// The fields of the map the NIC models pack and unpack every cycle,
/// looked up by name once (a lookup is a search of the map).
pub(crate) struct MapFields {
    pub ev_flow: &'static ldcp_regmap::Field,
    pub ev_n: &'static ldcp_regmap::Field,
    pub ev_ece: &'static ldcp_regmap::Field,
    pub status_flow: &'static ldcp_regmap::Field,
    pub caps_kind: &'static ldcp_regmap::Field,
    pub loop_flows: &'static ldcp_regmap::Field,
    pub pt_last_flow: &'static ldcp_regmap::Field,
    pub pt_last_late: &'static ldcp_regmap::Field,
    pub fs_result_flow: &'static ldcp_regmap::Field,
}

/// [`MapFields`], once.
pub(crate) fn map() -> &'static MapFields {
    static MAP: std::sync::OnceLock<MapFields> = std::sync::OnceLock::new();
    MAP.get_or_init(|| MapFields {
        ev_flow: field("EV_PUSH", "FLOW"),
        ev_n: field("EV_PUSH", "N"),
        ev_ece: field("EV_PUSH", "ECE"),
        status_flow: field("FLOW_STATUS", "FLOW"),
        caps_kind: field("CAPS", "KIND"),
        loop_flows: field("LOOP_CTRL", "FLOWS"),
        pt_last_flow: field("PT_LAST", "FLOW"),
        pt_last_late: field("PT_LAST", "LATE"),
        fs_result_flow: field("FS_RESULT", "FLOW"),
    })
}

/// An EV_PUSH value (the system's push word too): the flow (its bits
/// above the map's field dropped), n, ECE.
pub fn ev_push_word(flow: u32, n: u32, ece: bool) -> u32 {
    let m = map();
    m.ev_flow.put(flow) | m.ev_n.put(n) | m.ev_ece.put(ece as u32)
}

/// The (flow, n, ECE) of an EV_PUSH value.
pub fn ev_push_fields(v: u32) -> (u32, u32, bool) {
    let m = map();
    (m.ev_flow.get(v), m.ev_n.get(v), m.ev_ece.get(v) != 0)
}

/// What a model has done since power-up (not part of the RTL: for tests to
/// show what a stimulus reached).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// ACK events into the engine (FIFO and generator).
    pub events: u64,
    /// Of them, from the generator.
    pub gen_events: u64,
    /// Pushes dropped (FIFO full).
    pub dropped: u64,
    /// Flow-command results captured.
    pub flow_results: u64,
    /// Core resets.
    pub resets: u64,
    /// Cycles the generator ran.
    pub gen_cycles: u64,
    /// Generator events whose count of events left was a nonzero multiple
    /// of 2^16 (the 32-bit count's borrow out of its low half).
    pub gen_borrows: u64,
    /// Engine updates.
    pub updates: u64,
}

/// The core's own registers (the decoder, the engine and the FIFO RAM are
/// kept apart: each edge computes the next copy of these from the last).
#[derive(Clone, Copy, Debug, Default)]
struct State {
    fifo_q: u32,
    reset_q: bool,
    ovf_q: bool,
    fcb_q: bool,
    cycles: u64,
    cycles_hi: u32,
    sweeping: bool,
    sweep_ptr: u32,
    wr_ptr: u32,
    wr_ptr_d: u32,
    level: u32,
    rd_ptr: u32,
    gen_busy: bool,
    gen_x: u32,
    gen_rem: u32,
    fc_busy: bool,
    fc_issued: bool,
    fc_op: u32,
    fc_flow: u32,
    fc_age: u32,
    fc_done: bool,
    res_cw: u32,
    res_interval: u32,
    res_flow: u32,
    cnt_events: u32,
    cnt_pushed: u32,
    cnt_dropped: u32,
    /// Losses of the cycle before, not yet in `cnt_dropped` (0..=2).
    lost_q: u32,
    /// ACKs taken, ECE among them, pushes, of the cycle before, not yet
    /// in their counters.
    ack_q: bool,
    ece_q: bool,
    push_q: bool,
    cnt_updates: u32,
    cnt_marked: u32,
    gen_cycles: u32,
    cnt_packets: u32,
}

/// The core's taps for a system around it (`hdl/src/nic_core.rs` names
/// the ports): combinational from its registers and the bus of the cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Taps {
    /// The core resets at this edge.
    pub core_rst: bool,
    /// The window engine's update this cycle.
    pub upd_valid: bool,
    /// Its flow.
    pub upd_flow: u32,
    /// Its pacing interval.
    pub upd_interval: u32,
    /// Its window's whole packets.
    pub upd_cw_pkts: u32,
    /// The update is a FLOW_CMD RESET's result.
    pub upd_restart: bool,
    /// A FLOW_CMD RESET is accepted this cycle.
    pub flow_reset: bool,
    /// Its flow.
    pub flow_reset_id: u32,
    /// CNT_CLEAR.GO is written this cycle.
    pub cnt_clear: bool,
    /// The reset sweep is running.
    pub sweeping: bool,
    /// A window handed over (`set` of [`NicCoreModel::tick_sys`]) is
    /// taken this cycle: no sweep, and the engine ready.
    pub set_ready: bool,
    /// The event FIFO's level.
    pub fifo_level: u32,
}

/// The NIC core's registers, mirrored.
#[derive(Clone, Debug)]
pub struct NicCoreModel {
    /// The build's flow bits.
    fb: u32,
    hash: u32,
    dirty: bool,
    /// BLOCKS (CAPS.EXT: any block beyond the core's).
    blocks: u32,
    regs: RegFileModel,
    eng: EngineModel,
    fifo: Vec<u32>,
    s: State,
    stats: Stats,
}

impl NicCoreModel {
    /// The iCE40 build's core at power-up, reporting `hash` and `dirty` as
    /// its build (CAPS.EXT 0).
    pub fn new(hash: u32, dirty: bool) -> Self {
        Self::sized(FLOW_BITS, hash, dirty, false)
    }

    /// The core of a build with 2^`flow_bits` flows (8: the iCE40's, 12:
    /// the ECP5's), reporting `ext` in CAPS.EXT.
    pub fn sized(flow_bits: u32, hash: u32, dirty: bool, ext: bool) -> Self {
        Self::with_engine(
            EngineModel::Pipelined(WindowEngineModel::new(flow_bits)),
            flow_bits,
            hash,
            dirty,
            if ext {
                ldcp_regmap::BLOCKS_NIC_SYSTEM
            } else {
                ldcp_regmap::BLOCKS_NIC_CORE
            },
        )
    }

    /// The core of 2^`flow_bits` flows with the sequential window engine
    /// (`ldcp_hdl::nic_core::NicCoreSeqIce40` at 8), CAPS.EXT 0.
    pub fn sized_seq(flow_bits: u32, hash: u32, dirty: bool) -> Self {
        Self::with_engine(
            EngineModel::Sequential(WindowEngineSeqModel::new(flow_bits)),
            flow_bits,
            hash,
            dirty,
            ldcp_regmap::BLOCKS_NIC_CORE,
        )
    }

    /// The core of 2^`flow_bits` flows with the sequential window engine
    /// inside a system whose blocks are `blocks` (BLOCKS; CAPS.EXT when any
    /// is beyond the core's): `ldcp_hdl::nic_cu`'s, at 8.
    pub fn sized_seq_in(flow_bits: u32, hash: u32, dirty: bool, blocks: u32) -> Self {
        Self::with_engine(
            EngineModel::Sequential(WindowEngineSeqModel::new(flow_bits)),
            flow_bits,
            hash,
            dirty,
            blocks,
        )
    }

    fn with_engine(eng: EngineModel, flow_bits: u32, hash: u32, dirty: bool, blocks: u32) -> Self {
        assert!(
            (1..=FLOW_BITS_4K).contains(&flow_bits),
            "flow bits {flow_bits} out of [1, {FLOW_BITS_4K}]"
        );
        NicCoreModel {
            fb: flow_bits,
            hash,
            dirty,
            blocks,
            regs: RegFileModel::core_of(blocks),
            eng,
            fifo: vec![0; FIFO_DEPTH as usize],
            s: State::default(),
            stats: Stats::default(),
        }
    }

    /// The build's flow bits (CAPS.FLOW_BITS).
    pub fn flow_bits(&self) -> u32 {
        self.fb
    }

    /// What the model has done since power-up.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The bus outputs.
    pub fn outputs(&self) -> BusOut {
        self.regs.outputs()
    }

    /// A flow's cw in the engine's table (updates in flight not included).
    pub fn table(&self, flow: usize) -> Option<u32> {
        self.eng.table(flow)
    }

    /// Cycles since power-up.
    pub fn cycles(&self) -> u64 {
        self.s.cycles
    }

    /// The taps in this cycle, from the registers as they are (the bus
    /// reaches them through the decoder's registered commands).
    pub fn taps(&self) -> Taps {
        let o = &self.s;
        let eo = self.eng.outputs();
        let capture = o.fc_issued
            && eo.out_valid
            && eo.out_flow == o.fc_flow
            && o.fc_age >= self.eng.capture_age();
        let flow_cmd = self.regs.command(core_regs::FLOW_CMD);
        Taps {
            core_rst: o.reset_q,
            upd_valid: eo.out_valid,
            upd_flow: eo.out_flow,
            upd_interval: eo.out_interval_ticks,
            upd_cw_pkts: eo.out_cw >> 20,
            upd_restart: capture && o.fc_op == 3,
            flow_reset: flow_cmd.is_some_and(|v| v & 3 == 3) && !o.fc_busy,
            flow_reset_id: self.regs.held(core_regs::FLOW_ID) & self.flow_mask(),
            cnt_clear: self
                .regs
                .command(core_regs::CNT_CLEAR)
                .is_some_and(|v| v & 1 != 0),
            sweeping: o.sweeping,
            set_ready: !o.sweeping && self.eng.ready(),
            fifo_level: o.level,
        }
    }

    fn flow_mask(&self) -> u32 {
        (1 << self.fb) - 1
    }

    /// One rising edge with `bus` on the inputs, the sweep not held.
    pub fn tick(&mut self, bus: &BusIn) {
        self.tick_held(bus, false);
    }

    /// One rising edge with `bus` and `sweep_hold` on the inputs.
    pub fn tick_held(&mut self, bus: &BusIn, sweep_hold: bool) {
        self.tick_sys(bus, sweep_hold, None, None);
    }

    /// One rising edge with `bus`, `sweep_hold` and a window handed over
    /// in hardware (`set`: flow, cw UQ12.20; the RTL's `sys_set_*`) on the
    /// inputs. The SET takes the engine's port ahead of a flow command,
    /// the generator and the FIFO, in a cycle of [`Taps::set_ready`]; in
    /// any other it is not taken (the system holds it).
    /// `push`: a FIFO word the system pushes (`sys_push_*`), ahead of an
    /// EV_PUSH command in the same cycle (written in the cycle before).
    pub fn tick_sys(
        &mut self,
        bus: &BusIn,
        sweep_hold: bool,
        set: Option<(u32, u32)>,
        sys_push: Option<u32>,
    ) {
        let o = self.s;
        let held = |i: usize| self.regs.held(i);
        // the commands the decoder presents this cycle (written in the last)
        let command = |i: usize| self.regs.command(i);

        let core_reset = o.reset_q;
        let reset_d = command(core_regs::CORE_RESET).is_some_and(|v| v & 1 != 0);

        // ---- FIFO occupancy and the port
        let fifo_level = o.level;
        let fifo_avail = o.wr_ptr_d != o.rd_ptr;
        let fc_start = o.fc_busy && !o.fc_issued;
        // every source waits for the engine (the pipelined one is always
        // ready)
        let ready = self.eng.ready();
        let take_sweep = o.sweeping && !sweep_hold && ready;
        let set_valid = set.is_some();
        let take_set = set_valid && !o.sweeping && ready; // Taps::set_ready
        let take_fc = !o.sweeping && !set_valid && fc_start && o.level == 0 && ready;
        let take_gen = !o.sweeping && !set_valid && !take_fc && o.gen_busy && ready;
        // no `!take_fc`, as the RTL: a poppable entry means level > 0
        let take_fifo = !o.sweeping && !set_valid && !o.gen_busy && fifo_avail && ready;
        debug_assert!(!(take_fifo && take_fc), "a command waits for an empty FIFO");
        let mask = self.flow_mask();
        let (gflow, gn, gece) = gen_event(o.gen_x, self.fb);

        let mut ev = WeInputs {
            reset: core_reset,
            in_valid: take_sweep || take_set || take_fc || take_gen || take_fifo,
            // the generator's event unless another source is taken (the
            // RTL's default: what an idle cycle carries shows on the
            // engine's outputs)
            in_flow: gflow,
            in_set: false,
            in_ece: gece,
            in_n_pkts: gn,
            in_cw: held(core_regs::INIT_CW),
            cfg_alpha: held(core_regs::ALPHA) as u16,
            cfg_beta: held(core_regs::BETA) as u16,
            cfg_gamma_shift: held(core_regs::GAMMA) as u8,
            cfg_cw_max: held(core_regs::CW_MAX),
            cfg_rtt_ticks: held(core_regs::RTT),
        };
        if take_fc {
            ev.in_flow = o.fc_flow;
            ev.in_n_pkts = 0;
            ev.in_ece = false;
            ev.in_set = o.fc_op != 0 && o.fc_op != 1;
        }
        // the SET value, selected from registers only (as the RTL does)
        if !o.sweeping && o.fc_op == 2 {
            ev.in_cw = held(core_regs::FLOW_WDATA);
        }
        if let (true, Some((flow, cw))) = (take_set, set) {
            ev.in_flow = flow & mask;
            ev.in_n_pkts = 0;
            ev.in_ece = false;
            ev.in_set = true;
            ev.in_cw = cw;
        }
        if take_sweep {
            ev.in_flow = o.sweep_ptr;
            ev.in_n_pkts = 0;
            ev.in_ece = false;
            ev.in_set = true;
        }
        if take_fifo {
            let (flow, n, ece) = ev_push_fields(o.fifo_q);
            ev.in_flow = flow & mask;
            ev.in_n_pkts = n;
            ev.in_ece = ece;
            ev.in_set = false;
        }
        let ack_in = take_gen || take_fifo;
        let ack_ece = ev.in_ece && ack_in;
        let eo = self.eng.outputs();

        // ---- values the core drives into the decoder (pre-edge)
        let mut ro = [0u32; REGISTERS.len()];
        let mut set = [0u32; REGISTERS.len()];
        ro[core_regs::GIT_HASH] = self.hash;
        ro[core_regs::CAPS] = self.fb
            | (ldcp_regmap::FIFO_DEPTH_LOG2 << 8)
            | (self.eng.latency_cycles() << 16)
            | ((self.dirty as u32) << 24)
            | (((self.blocks & !ldcp_regmap::BLOCKS_NIC_CORE != 0) as u32) << 25)
            | map().caps_kind.put(ldcp_regmap::KIND_NIC);
        ro[core_regs::BLOCKS] = self.blocks;
        ro[core_regs::STATUS] = o.sweeping as u32
            | (o.fc_busy as u32) << 1
            | (o.gen_busy as u32) << 2
            | fifo_level << 16;
        ro[core_regs::FLOW_CW] = o.res_cw;
        ro[core_regs::FLOW_INTERVAL] = o.res_interval;
        ro[core_regs::FLOW_STATUS] =
            o.fc_done as u32 | (o.fc_busy as u32) << 1 | map().status_flow.put(o.res_flow);
        ro[core_regs::GEN_REMAINING] = o.gen_rem;
        ro[core_regs::CYCLES_LO] = o.cycles as u32;
        ro[core_regs::CYCLES_HI] = o.cycles_hi;
        ro[core_regs::CNT_EVENTS] = o.cnt_events;
        ro[core_regs::CNT_PUSHED] = o.cnt_pushed;
        ro[core_regs::CNT_DROPPED] = o.cnt_dropped;
        ro[core_regs::CNT_UPDATES] = o.cnt_updates;
        ro[core_regs::CNT_MARKED] = o.cnt_marked;
        ro[core_regs::GEN_CYCLES] = o.gen_cycles;
        ro[core_regs::CNT_PACKETS] = o.cnt_packets;
        set[core_regs::ERRORS] = o.ovf_q as u32 | (o.fcb_q as u32) << 1;

        // ---- strobes
        let cycles_lo_rd = self.regs.samples(core_regs::CYCLES_LO);
        let bus_push = command(core_regs::EV_PUSH);
        let push = sys_push.or(bus_push);
        let push_ok = push.is_some() && fifo_level & 0x100 == 0;
        // events lost: refused at a full FIFO; an EV_PUSH the system displaced
        let lost_full = push.is_some() && !push_ok;
        let lost_bus = bus_push.is_some() && sys_push.is_some();
        let gen_ctrl = command(core_regs::GEN_CTRL);
        let flow_cmd = command(core_regs::FLOW_CMD);
        let cnt_clear = command(core_regs::CNT_CLEAR).is_some_and(|v| v & 1 != 0);
        let gen_count = held(core_regs::GEN_COUNT);
        let gen_seed = held(core_regs::GEN_SEED);
        let flow_id = held(core_regs::FLOW_ID) & mask;

        // ---- next state, in the RTL's order
        let mut n = o;
        n.reset_q = reset_d;
        n.cycles = (o.cycles + 1) & ((1 << 48) - 1);
        if cycles_lo_rd {
            n.cycles_hi = (o.cycles >> 32) as u32 & 0xffff;
        }
        n.wr_ptr_d = o.wr_ptr;
        if take_sweep {
            n.sweep_ptr = (o.sweep_ptr + 1) & mask;
            if o.sweep_ptr == mask {
                n.sweeping = false;
            }
        }
        // FIFO RAM: read (old data), then write
        let mut write = push_ok;
        let mut read_addr = o.rd_ptr & 0xff;
        if push_ok {
            n.wr_ptr = (o.wr_ptr + 1) & 0x1ff;
        }
        if push_ok && !take_fifo {
            n.level = o.level + 1;
        }
        if !push_ok && take_fifo {
            n.level = o.level - 1;
        }
        if take_fifo {
            n.rd_ptr = (o.rd_ptr + 1) & 0x1ff;
            read_addr = n.rd_ptr & 0xff;
        }
        n.ovf_q = lost_full || lost_bus;
        // generator
        if take_gen {
            n.gen_x = xorshift32(o.gen_x);
            n.gen_rem = o.gen_rem.wrapping_sub(1);
            if o.gen_rem == 1 {
                n.gen_busy = false;
            }
        }
        if o.gen_busy {
            n.gen_cycles = o.gen_cycles.wrapping_add(1);
        }
        if let Some(v) = gen_ctrl {
            if v & 1 != 0 && !o.gen_busy {
                n.gen_busy = gen_count != 0;
                n.gen_rem = gen_count;
                n.gen_x = seed_state(gen_seed);
            }
            if v & 2 != 0 {
                n.gen_busy = false;
            }
        }
        // flow commands
        if take_fc {
            n.fc_issued = true;
            n.fc_age = 0;
        }
        if o.fc_issued && o.fc_age != 63 {
            n.fc_age = o.fc_age + 1;
        }
        let capture = o.fc_issued
            && eo.out_valid
            && eo.out_flow == o.fc_flow
            && o.fc_age >= self.eng.capture_age();
        if capture {
            n.fc_busy = false;
            n.fc_issued = false;
            n.fc_done = true;
            n.res_cw = eo.out_cw;
            n.res_interval = eo.out_interval_ticks;
            n.res_flow = o.fc_flow;
        }
        n.fcb_q = false;
        if let Some(v) = flow_cmd {
            let op = v & 3;
            if op != 0 {
                if o.fc_busy {
                    n.fcb_q = true;
                } else {
                    n.fc_busy = true;
                    n.fc_issued = false;
                    n.fc_done = false;
                    n.fc_op = op;
                    n.fc_flow = flow_id;
                }
            }
        }
        // counters: each counts a cycle after its event (registered in the RTL)
        n.ack_q = ack_in;
        n.ece_q = ack_ece;
        n.push_q = push_ok;
        n.cnt_events = o.cnt_events.wrapping_add(o.ack_q as u32);
        n.cnt_marked = o.cnt_marked.wrapping_add(o.ece_q as u32);
        n.cnt_pushed = o.cnt_pushed.wrapping_add(o.push_q as u32);
        // the losses are counted a cycle later (registered in the RTL)
        n.lost_q = lost_full as u32 + lost_bus as u32;
        n.cnt_dropped = o.cnt_dropped.wrapping_add(o.lost_q);
        if eo.out_valid {
            n.cnt_updates = o.cnt_updates.wrapping_add(1);
            n.cnt_packets = o
                .cnt_packets
                .wrapping_add(eo.out_n_u_pkts)
                .wrapping_add(eo.out_n_m_pkts);
        }
        if cnt_clear {
            n.cnt_events = 0;
            n.cnt_marked = 0;
            n.cnt_pushed = 0;
            n.cnt_dropped = 0;
            n.cnt_updates = 0;
            n.gen_cycles = 0;
            n.cnt_packets = 0;
        }
        if core_reset {
            n.sweeping = true;
            n.sweep_ptr = 0;
            n.wr_ptr = 0;
            n.wr_ptr_d = 0;
            n.level = 0;
            n.rd_ptr = 0;
            n.gen_busy = false;
            n.gen_rem = 0;
            n.gen_x = 0;
            n.fc_busy = false;
            n.fc_issued = false;
            n.fc_done = false;
            n.fc_op = 0;
            n.fc_flow = 0;
            n.res_cw = 0;
            n.res_interval = 0;
            n.res_flow = 0;
            n.cnt_events = 0;
            n.cnt_marked = 0;
            n.cnt_pushed = 0;
            n.cnt_dropped = 0;
            n.lost_q = 0;
            n.ack_q = false;
            n.ece_q = false;
            n.push_q = false;
            n.cnt_updates = 0;
            n.gen_cycles = 0;
            n.cnt_packets = 0;
            write = false;
        }
        let st = &mut self.stats;
        st.events += ack_in as u64;
        st.gen_events += take_gen as u64;
        st.gen_borrows += (take_gen && o.gen_rem & 0xffff == 0) as u64;
        st.dropped += lost_full as u64 + lost_bus as u64;
        st.flow_results += capture as u64;
        st.resets += core_reset as u64;
        st.gen_cycles += o.gen_busy as u64;
        st.updates += eo.out_valid as u64;
        // the RAM and the sub-blocks take the same edge
        n.fifo_q = self.fifo[read_addr as usize];
        if write {
            let p = push.unwrap_or(0);
            // the RAM keeps the build's flow bits, n and ECE
            let (flow, n, ece) = ev_push_fields(p);
            self.fifo[(o.wr_ptr & 0xff) as usize] = ev_push_word(flow & mask, n, ece);
        }
        self.eng.tick(&ev);
        self.regs.tick(bus, core_reset, &ro, &set);
        self.s = n;
    }
}

crate::ports! {
    callback nic_core_ports;
    /// One cycle of the core's inputs: the register bus, and the system's
    /// hold of the flow sweep.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct NicCoreIn {
        /// Byte address of the access (12 bits are decoded).
        bus_addr: u32 = ldcp_regmap::ADDR_BITS,
        /// Write data.
        bus_wdata: u32 = 32,
        /// Write strobe.
        bus_we: bool = 1,
        /// Read strobe (`bus_rdata` is valid with `bus_rvalid` `READ_LATENCY_CYCLES` later).
        bus_re: bool = 1,
        /// The system around the core holds the core's reset sweep (the pacing timer sweeps first).
        sys_sweep_hold: bool = 1,
        /// A window handed over in hardware: SET `sys_set_flow` to `sys_set_cw`.
        sys_set_valid: bool = 1,
        /// Its flow.
        sys_set_flow: u32 = crate::ports::FLOW_WIDTH,
        /// Its window, packets, UQ12.20.
        sys_set_cw: u32 = 32,
        /// The system pushes an event into the FIFO (ahead of EV_PUSH).
        sys_push_valid: bool = 1,
        /// Its event, as EV_PUSH packs it: flow (11..0), n (15..12), ECE (16).
        sys_push_event: u32 = 17,
    }
    /// The core's outputs: the bus, and the taps a system around it uses.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct NicCoreOut {
        /// Read data of the last cycle's read (0 otherwise).
        bus_rdata: u32 = 32,
        /// `bus_rdata` holds a read's data.
        bus_rvalid: bool = 1,
        /// The core resets at this edge.
        sys_core_rst: bool = 1,
        /// The window engine's update this cycle.
        sys_upd_valid: bool = 1,
        /// Its flow.
        sys_upd_flow: u32 = crate::ports::FLOW_WIDTH,
        /// Its pacing interval, ticks (0 when cw >= 1).
        sys_upd_interval_ticks: u32 = crate::window_engine::INTERVAL_BITS as u32,
        /// Its window's whole packets.
        sys_upd_cw_pkts: u32 = 12,
        /// The update is a FLOW_CMD RESET's result.
        sys_upd_restart: bool = 1,
        /// A FLOW_CMD RESET is accepted this cycle.
        sys_flow_reset: bool = 1,
        /// Its flow.
        sys_flow_reset_id: u32 = crate::ports::FLOW_WIDTH,
        /// CNT_CLEAR.GO is written this cycle.
        sys_cnt_clear: bool = 1,
        /// The reset sweep is running.
        sys_sweeping: bool = 1,
        /// A `sys_set_valid` is taken this cycle.
        sys_set_ready: bool = 1,
        /// The event FIFO's level.
        sys_fifo_level: u32 = 9,
    }
}

impl From<BusIn> for NicCoreIn {
    fn from(b: BusIn) -> Self {
        NicCoreIn {
            bus_addr: b.addr & (ldcp_regmap::WINDOW_BYTES - 1),
            bus_wdata: b.wdata,
            bus_we: b.we,
            bus_re: b.re,
            sys_sweep_hold: false,
            sys_set_valid: false,
            sys_set_flow: 0,
            sys_set_cw: 0,
            sys_push_valid: false,
            sys_push_event: 0,
        }
    }
}

impl NicCoreIn {
    /// The bus part.
    pub fn bus(&self) -> BusIn {
        BusIn {
            addr: self.bus_addr,
            wdata: self.bus_wdata,
            we: self.bus_we,
            re: self.bus_re,
        }
    }
}

impl NicCoreModel {
    /// What is in flight, by place: the FIFO's events, the window engine's,
    /// a flow command, the reset sweep, a generator run.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let s = &self.s;
        let mut v: Vec<(&'static str, u64)> = [
            ("events in the FIFO", s.level as u64),
            ("flow command", s.fc_busy as u64),
            ("reset sweep", s.sweeping as u64 + s.reset_q as u64),
            ("generator run", s.gen_busy as u64),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect();
        v.extend(self.eng.in_flight());
        v
    }

    /// The bus writes that stop the core's own source of events (the
    /// on-chip generator), then enough idle cycles for everything in flight
    /// to leave: a reset sweep, a full FIFO, a flow command and the
    /// engine's latency, each in turn.
    pub fn drain_bus(&self) -> Vec<BusIn> {
        let stop = BusIn::write(ldcp_regmap::position::offset::GEN_CTRL, 2);
        // the sequential engine takes an event per latency at the worst
        let per_event = match self.eng {
            EngineModel::Pipelined(_) => 1,
            EngineModel::Sequential(_) => crate::window_engine::SEQ_LATENCY_CYCLES,
        };
        let idle = (2 * (1usize << self.fb) + FIFO_DEPTH as usize) * per_event
            + 64
            + 2 * self.eng.latency_cycles() as usize;
        std::iter::once(stop)
            .chain(std::iter::repeat_n(BusIn::default(), idle))
            .collect()
    }
}

impl crate::cosim::CosimModel for NicCoreModel {
    type Input = NicCoreIn;
    type Output = NicCoreOut;

    fn tick(&mut self, i: &NicCoreIn) {
        NicCoreModel::tick_sys(
            self,
            &i.bus(),
            i.sys_sweep_hold,
            i.sys_set_valid.then_some((i.sys_set_flow, i.sys_set_cw)),
            i.sys_push_valid.then_some(i.sys_push_event),
        );
    }

    fn outputs(&self) -> NicCoreOut {
        let o = NicCoreModel::outputs(self);
        let t = self.taps();
        NicCoreOut {
            bus_rdata: o.rdata,
            bus_rvalid: o.rvalid,
            sys_core_rst: t.core_rst,
            sys_upd_valid: t.upd_valid,
            sys_upd_flow: t.upd_flow,
            sys_upd_interval_ticks: t.upd_interval,
            sys_upd_cw_pkts: t.upd_cw_pkts,
            sys_upd_restart: t.upd_restart,
            sys_flow_reset: t.flow_reset,
            sys_flow_reset_id: t.flow_reset_id,
            sys_cnt_clear: t.cnt_clear,
            sys_sweeping: t.sweeping,
            sys_set_ready: t.set_ready,
            sys_fifo_level: t.fifo_level,
        }
    }

    /// [`NicCoreModel::drain_bus`].
    fn drain(&self, _last: Option<&NicCoreIn>) -> Vec<NicCoreIn> {
        NicCoreModel::drain_bus(self)
            .into_iter()
            .map(NicCoreIn::from)
            .collect()
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        NicCoreModel::in_flight(self)
    }
}

/// A seeded stream of bus cycles that exercises the whole core of the
/// iCE40 build: [`NcStimulus`] from a seed.
pub fn stimulus(seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    stimulus_sized(FLOW_BITS, seed)
}

/// The same for a build with 2^`flow_bits` flows.
pub fn stimulus_sized(flow_bits: u32, seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    crate::seeded(NcStimulus::sized(flow_bits), seed ^ 0x9E37_79B9_7F4A_7C15)
}

/// The bus stimulus generator of the core: ACK pushes in bursts (a few hot
/// flows, so the engine merges), register reads and writes (illegal
/// parameter values, unmapped and unaligned addresses included), flow
/// commands with polling, generator runs (which back the FIFO up until it
/// overflows), counter clears and core resets. A decision may queue
/// several bus cycles; a cycle draws only when the queue is empty. One
/// flow id in 16 has bits above the build's (the core ignores them).
#[derive(Clone, Debug)]
pub struct NcStimulus {
    queue: std::collections::VecDeque<BusIn>,
    flow_bits: u32,
}

impl Default for NcStimulus {
    /// The iCE40 build's.
    fn default() -> Self {
        Self::sized(FLOW_BITS)
    }
}

impl NcStimulus {
    /// The stimulus of a build with 2^`flow_bits` flows.
    pub fn sized(flow_bits: u32) -> Self {
        NcStimulus {
            queue: Default::default(),
            flow_bits,
        }
    }
}

impl crate::Stimulus for NcStimulus {
    type Input = BusIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BusIn {
        let queue = &mut self.queue;
        let mut next = || d.next_u64();
        let off = ldcp_regmap::model::offset;
        // a random flow of the build, or (1 in 16) of the map's field
        let fb = self.flow_bits;
        let any_flow = |x: u64| {
            let all = (x >> 8) as u32 & ((1 << ldcp_regmap::FLOW_FIELD_BITS) - 1);
            if x >> 60 == 0 {
                all
            } else {
                all & ((1 << fb) - 1)
            }
        };
        while queue.is_empty() {
            let r = next();
            let pick = r % 1000;
            let (w, rd) = (BusIn::write, BusIn::read);
            let hot = (r >> 32) as u32 & 3;
            match pick {
                0..=299 => {
                    // a burst of pushes, mostly to a few hot flows
                    let len = 1 + (r >> 16) % 24;
                    for _ in 0..len {
                        let x = next();
                        let flow = if x & 3 != 0 { hot * 17 } else { any_flow(x) };
                        let n = (x >> 24) as u32 & 0xf;
                        let ece = (x >> 28) & 3 == 0;
                        // (the bits above the fields are written too)
                        queue.push_back(w(
                            off("EV_PUSH"),
                            ev_push_word(flow, n, ece) | ((x >> 30) as u32 & 0xfffe_0000),
                        ));
                    }
                }
                300..=449 => {
                    let reg = &REGISTERS[(r >> 16) as usize % REGISTERS.len()];
                    queue.push_back(rd(reg.offset));
                }
                450..=479 => queue.push_back(rd((r >> 16) as u32 & 0xfff)),
                480..=509 => {
                    // any register, any value (unaligned too)
                    let reg = &REGISTERS[(r >> 16) as usize % REGISTERS.len()];
                    let addr = if r & 0x100 != 0 {
                        reg.offset | ((r >> 9) as u32 & 3)
                    } else {
                        reg.offset
                    };
                    if reg.name != "CORE_RESET" {
                        queue.push_back(w(addr, (r >> 32) as u32));
                    }
                }
                510..=589 => {
                    // legal parameters
                    let x = next();
                    let (name, v) = match x % 6 {
                        0 => ("ALPHA", 1 + (x >> 8) as u32 % 256),
                        1 => ("BETA", 1 + (x >> 8) as u32 % 256),
                        2 => ("GAMMA", 1 + (x >> 8) as u32 % 8),
                        3 => ("CW_MAX", (1 << 20) + (x >> 8) as u32 % (64 << 20)),
                        4 => ("RTT", 1 + (x >> 8) as u32 % 65535),
                        _ => ("INIT_CW", (1 << 12) + (x >> 8) as u32 % (40 << 20)),
                    };
                    queue.push_back(w(off(name), v));
                }
                590..=689 => {
                    // a flow command, then polls
                    let x = next();
                    let flow = if x & 1 != 0 { hot * 17 } else { any_flow(x) };
                    queue.push_back(w(off("FLOW_ID"), flow));
                    if x & 6 == 2 {
                        queue.push_back(w(off("FLOW_WDATA"), (x >> 16) as u32));
                    }
                    queue.push_back(w(off("FLOW_CMD"), (x >> 24) as u32 & 3));
                    for _ in 0..(x >> 32) % 12 {
                        queue.push_back(rd(off("FLOW_STATUS")));
                        queue.push_back(rd(off("FLOW_CW")));
                        queue.push_back(BusIn::default());
                    }
                }
                690..=719 => {
                    let x = next();
                    // mostly short runs; now and then none (0), or one whose
                    // count's low 16 bits run out within 600 events (a
                    // borrow from the upper bits), or a huge one; the long
                    // ones are stopped
                    let small = (x % 600) as u32;
                    let (count, long) = match (x >> 20) % 16 {
                        0 => (0, false),
                        1 => (0x0001_0000 + small, true),
                        2 => (0xFFFF_0000 | small, true),
                        _ => (1 + small, false),
                    };
                    queue.push_back(w(off("GEN_COUNT"), count));
                    queue.push_back(w(
                        off("GEN_SEED"),
                        (x >> 32) as u32 & if x & 0x800 != 0 { 0 } else { u32::MAX },
                    ));
                    queue.push_back(w(off("GEN_CTRL"), 1));
                    if long {
                        for _ in 0..small + 2 {
                            queue.push_back(BusIn::default());
                        }
                        queue.push_back(rd(off("GEN_REMAINING")));
                        queue.push_back(BusIn::default());
                        queue.push_back(w(off("GEN_CTRL"), 2));
                    } else if x & 0x1000 != 0 {
                        for _ in 0..(x >> 13) % 200 {
                            queue.push_back(BusIn::default());
                        }
                        queue.push_back(w(off("GEN_CTRL"), 2));
                    }
                }
                720..=722 => queue.push_back(w(off("CORE_RESET"), 1 | (r >> 32) as u32)),
                723..=732 => queue.push_back(w(off("CNT_CLEAR"), (r >> 32) as u32)),
                733..=752 => {
                    queue.push_back(rd(off("CYCLES_LO")));
                    queue.push_back(rd(off("CYCLES_HI")));
                }
                _ => {
                    for _ in 0..1 + (r >> 16) % 40 {
                        queue.push_back(BusIn::default());
                    }
                }
            }
        }
        queue.pop_front().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_regmap::model::offset;

    /// A register read on `m`: the data READ_LATENCY_CYCLES after the strobe.
    fn read(m: &mut NicCoreModel, name: &str) -> u32 {
        m.tick(&BusIn::read(offset(name)));
        for _ in 1..ldcp_regmap::READ_LATENCY_CYCLES {
            m.tick(&BusIn::default());
        }
        let o = m.outputs();
        assert!(o.rvalid, "{name}: no data");
        o.rdata
    }

    /// Writes FLOW_ID = `flow`, runs `op` (cw `cw` for a WRITE) and waits
    /// for its result: (FLOW_CW, FLOW_STATUS.FLOW).
    fn flow_cmd(m: &mut NicCoreModel, flow: u32, op: u32, cw: u32) -> (u32, u32) {
        m.tick(&BusIn::write(offset("FLOW_ID"), flow));
        m.tick(&BusIn::write(offset("FLOW_WDATA"), cw));
        m.tick(&BusIn::write(offset("FLOW_CMD"), op));
        for _ in 0..200 {
            m.tick(&BusIn::default());
        }
        let st = read(m, "FLOW_STATUS");
        assert_eq!(st & 3, 1, "done, not busy");
        (read(m, "FLOW_CW"), field("FLOW_STATUS", "FLOW").get(st))
    }

    /// The map's flow fields are 12 bits: a 256-flow build takes a flow
    /// modulo 256 (its bits 11..8 ignored) and reports the flow it acted on;
    /// a 4,096-flow build keeps them apart.
    #[test]
    fn a_flow_above_the_builds_flows_is_taken_modulo_its_flows() {
        for (fb, same) in [(FLOW_BITS, true), (FLOW_BITS_4K, false)] {
            let mut m = NicCoreModel::sized(fb, 0, true, false);
            for _ in 0..2 * (1 << fb) + 100 {
                m.tick(&BusIn::default());
            }
            assert_eq!(read(&mut m, "CAPS") & 0xff, fb);
            let two = 2 << 20;
            assert_eq!(
                flow_cmd(&mut m, 0x305, 2, two),
                (two, 0x305 & ((1 << fb) - 1))
            );
            let (cw5, flow) = flow_cmd(&mut m, 5, 1, 0);
            assert_eq!(flow, 5);
            assert_eq!(cw5 == two, same, "flow bits {fb}: flow 5's cw {cw5:#x}");
            // an EV_PUSH for flow 0x105 acknowledges flow 5 at 256 flows
            let before = read(&mut m, "CNT_EVENTS");
            m.tick(&BusIn::write(
                offset("EV_PUSH"),
                ev_push_word(0x105, 1, false),
            ));
            for _ in 0..100 {
                m.tick(&BusIn::default());
            }
            assert_eq!(read(&mut m, "CNT_EVENTS"), before + 1);
            let (cw5_after, _) = flow_cmd(&mut m, 5, 1, 0);
            assert_eq!(
                cw5_after > cw5,
                same,
                "flow bits {fb}: {cw5:#x} -> {cw5_after:#x}"
            );
        }
    }
}
