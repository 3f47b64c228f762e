//! The golden model of the switch port's board core
//! (`hdl/src/switch_board.rs`, the `alchitry-cu-switch` bitstream): the
//! board shell ([`crate::board_shell`]: power-on sequencer, UART bridge,
//! LEDs) around [`SwitchCoreModel`], the switch port's register decoder
//! (the map's [`ldcp_regmap::switch_registers`]: id, CORE_RESET, WRED/ECN)
//! and the WRED/ECN port ([`crate::wred_ecn::WredEcnModel`]).
//!
//! The WRED/ECN registers behave as in the NIC system
//! ([`crate::nic_system`]): WRED_PKT presents one packet straight off the
//! bus, the egress drains WRED_DRAIN bytes per cycle, WRED_LAST holds the
//! last decision and its codepoint, WRED_OCC and the port's saturating
//! counters are the block's own. CORE_RESET (registered, as in the NIC
//! core: it acts one cycle after its write) resets the port, loading the
//! WRED_SEED held when it was written, and returns every RW register to its
//! reset value. At power-up the port is reset for one cycle (its generator
//! state is 0 until a reset loads a seed). CAPS reads KIND = SWITCH_PORT,
//! DIRTY from the build, and 0 in the NIC's fields.

use crate::board_shell::{BusCore, ShellBoard};
use crate::wred_ecn::{WredEcnModel, WredInputs};
use ldcp_regmap::model::{switch_index, BusIn, BusOut, RegFileModel};

/// The switch port's board core.
pub type SwitchBoardModel = ShellBoard<SwitchCoreModel>;

/// Register indices in the switch decoder.
#[derive(Clone, Copy, Debug)]
struct Ix {
    git_hash: usize,
    caps: usize,
    blocks: usize,
    core_reset: usize,
    k_min: usize,
    k_max: usize,
    k: usize,
    buf_max: usize,
    p_max: usize,
    seed: usize,
    drain: usize,
    pkt: usize,
    last: usize,
    occ: usize,
    forwarded: usize,
    marked: usize,
    dropped_wred: usize,
    dropped_full: usize,
}

impl Ix {
    fn new() -> Self {
        Ix {
            git_hash: switch_index("GIT_HASH"),
            caps: switch_index("CAPS"),
            blocks: switch_index("BLOCKS"),
            core_reset: switch_index("CORE_RESET"),
            k_min: switch_index("WRED_K_MIN"),
            k_max: switch_index("WRED_K_MAX"),
            k: switch_index("WRED_K"),
            buf_max: switch_index("WRED_BUF_MAX"),
            p_max: switch_index("WRED_P_MAX"),
            seed: switch_index("WRED_SEED"),
            drain: switch_index("WRED_DRAIN"),
            pkt: switch_index("WRED_PKT"),
            last: switch_index("WRED_LAST"),
            occ: switch_index("WRED_OCC"),
            forwarded: switch_index("WRED_FORWARDED"),
            marked: switch_index("WRED_MARKED"),
            dropped_wred: switch_index("WRED_DROPPED_WRED"),
            dropped_full: switch_index("WRED_DROPPED_FULL"),
        }
    }
}

/// CAPS as a switch port reports it.
pub fn caps(dirty: bool) -> u32 {
    let f = |n: &str| crate::nic_core::caps_field(n);
    f("KIND").put(ldcp_regmap::KIND_SWITCH_PORT) | f("DIRTY").put(dirty as u32)
}

/// The switch port's registers and WRED/ECN port, mirrored.
#[derive(Clone, Debug)]
pub struct SwitchCoreModel {
    regs: RegFileModel,
    ix: Ix,
    wred: WredEcnModel,
    hash: u32,
    dirty: bool,
    reset_q: bool,
    por_done: bool,
    decision: u32,
    ecn: u32,
}

impl SwitchCoreModel {
    /// The core at power-up, reporting `hash` and `dirty` as its build.
    pub fn new(hash: u32, dirty: bool) -> Self {
        SwitchCoreModel {
            regs: RegFileModel::switch(),
            ix: Ix::new(),
            wred: WredEcnModel::new(),
            hash,
            dirty,
            reset_q: false,
            por_done: false,
            decision: 0,
            ecn: 0,
        }
    }

    /// The WRED/ECN port inside.
    pub fn wred(&self) -> &WredEcnModel {
        &self.wred
    }

    /// The port's outputs after the last edge.
    pub fn wred_outputs(&self) -> crate::wred_ecn::WredOutputs {
        self.wred.outputs()
    }

    /// One rising edge with `bus` on the inputs.
    pub fn tick(&mut self, bus: &BusIn) {
        let ix = self.ix;
        let wo = self.wred.outputs();
        let held = |i: usize| self.regs.held(i);
        let rst = self.reset_q;
        let w_in = WredInputs {
            reset: rst || !self.por_done,
            in_valid: self.regs.command(ix.pkt).is_some(),
            in_len_bytes: self.regs.wdata_q() & 0x3fff,
            in_ecn: ((self.regs.wdata_q() >> 16) & 3) as u8,
            egress_drain_bytes: held(ix.drain),
            cfg_k_min_bytes: held(ix.k_min),
            cfg_k_max_bytes: held(ix.k_max),
            cfg_k_bytes: held(ix.k),
            cfg_buf_max_bytes: held(ix.buf_max),
            cfg_p_max: held(ix.p_max) as u16,
            cfg_seed: held(ix.seed),
        };
        let n = self.regs.registers().len();
        let mut ro = vec![0u32; n];
        let set = vec![0u32; n];
        ro[ix.git_hash] = self.hash;
        ro[ix.caps] = caps(self.dirty);
        ro[ix.blocks] = ldcp_regmap::BLOCKS_SWITCH_PORT;
        ro[ix.last] = self.decision | self.ecn << 2;
        ro[ix.occ] = wo.stat_occupancy_bytes;
        ro[ix.forwarded] = wo.stat_forwarded_pkts;
        ro[ix.marked] = wo.stat_marked_pkts;
        ro[ix.dropped_wred] = wo.stat_dropped_wred_pkts;
        ro[ix.dropped_full] = wo.stat_dropped_overflow_pkts;
        if wo.out_valid {
            self.decision = wo.out_decision as u32;
            self.ecn = wo.out_ecn as u32;
        }
        if rst {
            self.decision = 0;
            self.ecn = 0;
        }
        self.reset_q = self.regs.command(ix.core_reset).is_some_and(|v| v & 1 != 0);
        self.por_done = true;
        self.wred.tick(&w_in);
        self.regs.tick(bus, rst, &ro, &set);
    }

    /// The bus cycles of a test that bring the port to rest: its pipeline
    /// empties in [`crate::wred_ecn::COUNTER_LATENCY_CYCLES`] cycles.
    pub fn drain_cycles() -> usize {
        crate::wred_ecn::COUNTER_LATENCY_CYCLES + 2
    }
}

impl BusCore for SwitchCoreModel {
    fn bus_out(&self) -> BusOut {
        self.regs.outputs()
    }

    fn bus_tick(&mut self, bus: &BusIn) {
        self.tick(bus);
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = crate::cosim::CosimModel::in_flight(&self.wred);
        if self.reset_q {
            v.push(("CORE_RESET", 1));
        }
        v
    }

    fn drain_cycles(&self) -> usize {
        SwitchCoreModel::drain_cycles()
    }
}

/// The bus stimulus of the switch port: writes and reads of every
/// register of its decoder (and of offsets it does not decode), WRED
/// parameter changes (illegal ones included: K_min above K_max, P_max
/// above 1, thresholds above the buffer), bursts of packets of every
/// codepoint and length that fill and drain the queue, and CORE_RESET
/// writes with new seeds.
#[derive(Clone, Debug, Default)]
pub struct SwitchStimulus {
    queue: std::collections::VecDeque<BusIn>,
}

/// A seeded stream of the switch port's bus cycles.
pub fn stimulus(seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    crate::seeded(SwitchStimulus::default(), seed ^ 0x5117_C4B0_A4D0_0001)
}

impl crate::Stimulus for SwitchStimulus {
    type Input = BusIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BusIn {
        let off = ldcp_regmap::model::offset;
        while self.queue.is_empty() {
            let r = d.next_u64();
            let q = &mut self.queue;
            match r % 100 {
                0..=29 => {
                    // a burst of packets (back to back on the bus; a frame each through the bridge)
                    let n = 1 + (r >> 8) % 8;
                    let len = match (r >> 16) % 4 {
                        0 => 64,
                        1 => 1500,
                        2 => (r >> 24) as u32 & 0x3fff,
                        _ => 9000,
                    };
                    let ecn = (r >> 40) as u32 & 3;
                    for _ in 0..n {
                        q.push_back(BusIn::write(off("WRED_PKT"), len | ecn << 16));
                    }
                }
                30..=49 => {
                    // a parameter, legal or not
                    let names = [
                        "WRED_K_MIN",
                        "WRED_K_MAX",
                        "WRED_K",
                        "WRED_BUF_MAX",
                        "WRED_P_MAX",
                        "WRED_DRAIN",
                        "WRED_SEED",
                    ];
                    let name = names[(r >> 8) as usize % names.len()];
                    let v = match (r >> 16) % 4 {
                        0 => (r >> 24) as u32 & 0xff_ffff,
                        1 => (r >> 24) as u32 & 0xffff,
                        2 => (r >> 24) as u32 & 0x3f,
                        _ => (r >> 24) as u32,
                    };
                    q.push_back(BusIn::write(off(name), v));
                }
                50..=84 => {
                    // a read: mostly of the port's registers, else of any register or
                    // offset (which the port may not decode)
                    let sw = ldcp_regmap::switch_registers();
                    let regs = ldcp_regmap::REGISTERS;
                    let a = match (r >> 8) % 4 {
                        0 => regs[(r >> 10) as usize % regs.len()].offset,
                        1 => (r >> 10) as u32 & 0xfff,
                        _ => sw[(r >> 10) as usize % sw.len()].offset,
                    };
                    q.push_back(BusIn::read(a));
                }
                85..=89 => {
                    // a write to a register the port does not decode, or a read-only one
                    let regs = ldcp_regmap::REGISTERS;
                    q.push_back(BusIn::write(
                        regs[(r >> 9) as usize % regs.len()].offset,
                        (r >> 32) as u32,
                    ));
                }
                90..=92 => {
                    q.push_back(BusIn::write(off("CORE_RESET"), (r >> 8) as u32 & 3));
                }
                _ => {
                    let n = 1 + (r >> 8) % 64;
                    q.extend(std::iter::repeat_n(BusIn::default(), n as usize));
                }
            }
        }
        self.queue.pop_front().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_shell::ShellHost;
    use crate::uart_bridge::{ST_BAD_CRC, ST_OK};

    fn off(name: &str) -> u32 {
        ldcp_regmap::register(name).unwrap().offset
    }

    #[test]
    fn switch_board_identifies_as_a_switch_port() {
        let mut h = ShellHost::new(SwitchCoreModel::new(0x1234_abcd, false), 5, 50);
        assert_eq!(h.read(off("MAGIC")), Some((ST_OK, ldcp_regmap::MAGIC)));
        assert_eq!(
            h.read(off("VERSION")),
            Some((ST_OK, ldcp_regmap::MAP_VERSION))
        );
        assert_eq!(h.read(off("GIT_HASH")), Some((ST_OK, 0x1234_abcd)));
        let (st, c) = h.read(off("CAPS")).unwrap();
        assert_eq!(st, ST_OK);
        let caps = ldcp_regmap::register("CAPS").unwrap();
        assert_eq!(
            caps.field("KIND").unwrap().get(c),
            ldcp_regmap::KIND_SWITCH_PORT
        );
        assert_eq!(caps.field("FLOW_BITS").unwrap().get(c), 0);
        assert_eq!(caps.field("EXT").unwrap().get(c), 0);
        // the NIC's registers are not there
        assert_eq!(h.write(off("INIT_CW"), 0x0003_0000), Some(ST_OK));
        assert_eq!(h.read(off("INIT_CW")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("FS_IW")), Some((ST_OK, 0)));
    }

    #[test]
    fn switch_board_runs_the_wred_port_through_the_bridge() {
        // the activity LED's hold outlasts a response (70 bits of 4 clocks)
        let mut h = ShellHost::new(SwitchCoreModel::new(0, true), 4, 500);
        // reset values from the map
        assert_eq!(h.read(off("WRED_K_MIN")), Some((ST_OK, 20_000)));
        // a small buffer, no drain: 1500-byte ECT packets fill it, then drop
        assert_eq!(h.write(off("WRED_DRAIN"), 0), Some(ST_OK));
        assert_eq!(h.write(off("WRED_BUF_MAX"), 10_000), Some(ST_OK));
        for _ in 0..8 {
            assert_eq!(h.write(off("WRED_PKT"), 1500 | 2 << 16), Some(ST_OK));
        }
        h.idle(40);
        assert_eq!(h.read(off("WRED_OCC")), Some((ST_OK, 6 * 1500)));
        assert_eq!(h.read(off("WRED_FORWARDED")), Some((ST_OK, 6)));
        assert_eq!(h.read(off("WRED_DROPPED_FULL")), Some((ST_OK, 2)));
        assert_eq!(h.read(off("WRED_LAST")), Some((ST_OK, 3 | 2 << 2)));
        // the LEDs: ready, lit by the traffic, no error yet
        let o = h.board.outputs();
        assert!(o.led_ready && o.led_activity && !o.led_error);
        h.idle(500);
        assert!(!h.board.outputs().led_activity, "the hold has run out");
        // a corrupted frame: refused, the error LED lights and stays
        let mut f = crate::uart_bridge::request(true, off("WRED_K"), 5);
        f[4] ^= 0x10;
        h.send(&f);
        let r = h.response(100).unwrap();
        assert_eq!(crate::uart_bridge::parse_response(&r), Ok((ST_BAD_CRC, 0)));
        h.idle(200);
        assert!(h.board.outputs().led_error);
        assert_eq!(h.read(off("WRED_K")), Some((ST_OK, 100_000)));
        // CORE_RESET clears it, empties the queue and restores the parameters
        assert_eq!(h.write(off("CORE_RESET"), 1), Some(ST_OK));
        h.idle(10);
        assert!(!h.board.outputs().led_error);
        assert_eq!(h.read(off("WRED_OCC")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("WRED_FORWARDED")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("WRED_BUF_MAX")), Some((ST_OK, 1 << 20)));
    }
}
