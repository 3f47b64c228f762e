//! The cycle-accurate mirror of the RTL `WindowEngine`: the merge window,
//! the arithmetic pipeline and the pacing-interval pipeline, register for
//! register. The arithmetic is [`super::update`] split at the RTL's
//! register boundaries, so a test can check that the two agree.

use super::*;
use crate::ports::FLOW_WIDTH;

/// Slots of the merge window: an event waits here [`WINDOW`] cycles, and a
/// later event of the same flow merges into it (Eq. 2). The arithmetic
/// pipeline reads a flow's cw [`WINDOW`] cycles after its previous update
/// was read, and writes that update back within [`WRITE_LATENCY`] <
/// [`WINDOW`] cycles: no read ever sees a stale cw.
pub const WINDOW: usize = 16;
/// Edges from the read of a flow's cw to the write of its update.
pub const WRITE_LATENCY: usize = 15;
const _: () = assert!(WRITE_LATENCY < WINDOW && WINDOW * (N_MAX as usize) <= 255);

crate::ports! {
    callback window_engine_ports;
    /// One cycle of inputs, port for port.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct WeInputs {
        /// Synchronous reset: drops the events in flight (the pipelined engine still writes the update at its table write, stage O; the sequential engine drops even one in its last step); the flow table keeps its values.
        reset: bool = 1,
        /// An event arrives (the pipelined engine takes every one; the sequential engine only with `in_ready` and no reset, the source holding it until then).
        in_valid: bool = 1,
        /// Its flow (the build's flow bits).
        in_flow: u32 = FLOW_WIDTH,
        /// SET (1): cw := `in_cw` clamped to [gamma, cw_max]; ACK (0).
        in_set: bool = 1,
        /// ACK: ECN-Echo.
        in_ece: bool = 1,
        /// ACK: packets acknowledged, 0..=15 (0: no change, the update still reports the flow's cw: a read).
        in_n_pkts: u32 = N_BITS as u32,
        /// SET: the new cw, packets, UQ12.20.
        in_cw: u32 = CW_BITS as u32,
        /// alpha, UQ1.8 raw (1..=256; 0 acts as 1, above 256 as 256).
        cfg_alpha: u16 = AB_BITS as u32,
        /// beta, UQ1.8 raw (1..=256; clamped like alpha).
        cfg_beta: u16 = AB_BITS as u32,
        /// gamma = 2^-cfg_gamma_shift (1..=8; clamped).
        cfg_gamma_shift: u8 = GAMMA_SHIFT_BITS as u32,
        /// cw cap, packets, UQ12.20 (below 1.0 acts as 1.0).
        cfg_cw_max: u32 = CW_BITS as u32,
        /// RTT in pacing-timer ticks.
        cfg_rtt_ticks: u32 = RTT_BITS as u32,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct WeOutputs {
        /// An update completed.
        out_valid: bool = 1,
        /// Its flow.
        out_flow: u32 = FLOW_WIDTH,
        /// The flow's new cw, packets, UQ12.20.
        out_cw: u32 = CW_BITS as u32,
        /// RTT / cw in ticks if cw < 1, else 0.
        out_interval_ticks: u32 = INTERVAL_BITS as u32,
        /// Unmarked packets this update applied.
        out_n_u_pkts: u32 = NSUM_BITS as u32,
        /// Marked packets this update applied.
        out_n_m_pkts: u32 = NSUM_BITS as u32,
    }
}

impl WeInputs {
    /// The parameters on the parameter ports.
    pub fn params(&self) -> WindowParams {
        WindowParams {
            alpha_raw: self.cfg_alpha,
            beta_raw: self.cfg_beta,
            gamma_shift: self.cfg_gamma_shift,
            cw_max_raw: self.cfg_cw_max,
            rtt_ticks: self.cfg_rtt_ticks,
        }
    }

    /// These inputs with `p` on the parameter ports.
    pub fn with_params(self, p: &WindowParams) -> Self {
        WeInputs {
            cfg_alpha: p.alpha_raw,
            cfg_beta: p.beta_raw,
            cfg_gamma_shift: p.gamma_shift,
            cfg_cw_max: p.cw_max_raw,
            cfg_rtt_ticks: p.rtt_ticks,
            ..self
        }
    }

    /// An idle cycle (no event, no reset) with `p` on the parameter ports.
    pub fn idle(p: &WindowParams) -> Self {
        WeInputs::default().with_params(p)
    }

    /// An ACK of `n` packets of `flow`.
    pub fn ack(p: &WindowParams, flow: u32, ece: bool, n: u32) -> Self {
        WeInputs {
            in_valid: true,
            in_flow: flow,
            in_ece: ece,
            in_n_pkts: n,
            ..WeInputs::idle(p)
        }
    }

    /// A SET of `flow`'s cw to `cw` (UQ12.20).
    pub fn set(p: &WindowParams, flow: u32, cw: u32) -> Self {
        WeInputs {
            in_valid: true,
            in_flow: flow,
            in_set: true,
            in_cw: cw,
            ..WeInputs::idle(p)
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    v: bool,
    flow: u32,
    set: bool,
    value: u32,
    /// Below gamma / above cw_max: set in X only.
    lo: bool,
    hi: bool,
    nu: u32,
    nm: u32,
    /// The ACK events whose packets the slot carries (a SET starts at 0
    /// and discards what came before it). Bookkeeping of the model for
    /// [`WeStats`], not a register of the RTL.
    acks: u32,
}

/// What the engine did, counted by the model as it mirrors the RTL: a
/// cosimulation test reads these off the model it ran in lock step, so
/// they count what the compared run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WeStats {
    /// Events taken (ACKs and SETs).
    pub events: u64,
    /// Updates that left the merge window for the pipeline.
    pub updates: u64,
    /// Of those, updates that merged two or more ACK events.
    pub merged_updates: u64,
    /// Of the merged, those that carried unmarked and marked packets.
    pub mixed_updates: u64,
    /// ACK events that merged into an earlier event's slot.
    pub merged_events: u64,
}

impl std::ops::AddAssign for WeStats {
    /// Sums two runs' figures (every field: a new one must be added here).
    fn add_assign(&mut self, o: WeStats) {
        let WeStats {
            events,
            updates,
            merged_updates,
            mixed_updates,
            merged_events,
        } = o;
        self.events += events;
        self.updates += updates;
        self.merged_updates += merged_updates;
        self.mixed_updates += mixed_updates;
        self.merged_events += merged_events;
    }
}

/// One stage register of the pipelines (a superset of what each stage holds).
#[derive(Clone, Copy, Debug, Default)]
struct Lane {
    v: bool,
    flow: u32,
    nu: u32,
    nm: u32,
    hs: u32,    // min(n_m, 8): halvings
    c: u32,     // the cw being updated
    sub: bool,  // c < 1
    e: u32,     // floor(log2(int(c))), 0 when c < 1
    t: u32,     // partial shifts
    gstep: u32, // n_u * gamma
    na: u32,    // n_u * alpha_raw
    nb: u32,    // n_m * beta_raw
    x: u64,     // sums, differences, halvings
    y: u64,
    big: bool,   // c > 1 (decrease regime)
    lt: bool,    // the linear decrease ends below 1
    h: i64,      // cw_max - c
    hg: i64,     // 1 - c
    over: bool,  // c + inc > cw_max
    yover: bool, // c + n_u * gamma > 1
    gthr: u32,   // gamma << (halvings left after M)
    ltg: bool,   // the halved cw is below gamma
    k: u32,      // interval normalisation shift
    tiny: bool,  // cw < 2^-8 (unreachable)
}

/// The configuration registers (clamped to the legal ranges).
#[derive(Clone, Copy, Debug, Default)]
struct Cfg {
    alpha: u32,
    beta: u32,
    g: u32,
    gsh: u32, // 20 - g
    cw_max: u32,
    rtt: u32,
    gamma: u32,
}

/// The update's stages after the window's exit register X, by name: the
/// arithmetic pipeline B (t1) ... O (t14), whose O value is written to the
/// table at t15, then the interval pipeline P (t15) ... T (t19); outputs at
/// t20. The RTL's per-stage registers are indexed by the same constants
/// (`hdl/src/window_engine.rs`), so each stage is found by name in both.
pub mod stage {
    /// The starting cw: the table's, or a clamped SET value.
    pub const B: usize = 0;
    /// Regime (cw < 1) and exponent e = floor(log2 int(cw)).
    pub const C: usize = 1;
    /// First half of the normalising shift; addresses the reciprocal ROM.
    pub const D: usize = 2;
    /// n_u * alpha and n_m * beta arrive; the multiplier takes n_u alpha * R.
    pub const E: usize = 3;
    /// Beside the multiplier.
    pub const F: usize = 4;
    /// Beside the multiplier.
    pub const G: usize = 5;
    /// Beside the multiplier.
    pub const H: usize = 6;
    /// u = p >> (4 + (e & 12)).
    pub const I: usize = 7;
    /// inc = u >> (e & 3); n_u gamma; the headrooms to the caps.
    pub const J: usize = 8;
    /// Both sums and their caps' comparisons.
    pub const K: usize = 9;
    /// The increase, capped.
    pub const L: usize = 10;
    /// Both decreases: linear (above 1) and the first halvings.
    pub const M: usize = 11;
    /// The linear decrease stops at 1; the remaining halvings.
    pub const N: usize = 12;
    /// The final cw, written to the table at the next edge.
    pub const O: usize = 13;
    /// The interval's regime and normalisation; addresses the second ROM.
    pub const P: usize = 14;
    /// The RTT multiplier takes RTT * R.
    pub const Q: usize = 15;
    /// Beside the multiplier.
    pub const R: usize = 16;
    /// Beside the multiplier.
    pub const S: usize = 17;
    /// The product is in; the outputs are registered from here.
    pub const T: usize = 18;
    /// Stages in all.
    pub const LANES: usize = T + 1;
}
use stage::*;

/// The shift the engine acts on: the port's bits, clamped to gamma's range
/// (0 acts as the smallest shift, a value above the largest as the largest).
fn gamma_clamped(shift: u8) -> u32 {
    (u32::from(shift) & ((1 << GAMMA_SHIFT_BITS) - 1))
        .clamp(u32::from(GAMMA_SHIFT_MIN), u32::from(GAMMA_SHIFT_MAX))
}

/// Stages of the arithmetic pipeline, B ..= O.
const ARITH: usize = O + 1;
/// Stages of the interval pipeline, P ..= T.
const INTERVAL: usize = T - P + 1;

/// The RTL's registers, mirrored.
#[derive(Clone, Debug)]
pub struct WindowEngineModel {
    flow_mask: u32,
    mem: Vec<u32>,
    raw: WindowParams,
    cfg: Cfg,
    i: Slot,
    i_ece: bool,
    i_n: u32,
    slots: [Slot; WINDOW],
    x: Slot,
    ram_q: u32,
    arith: [Lane; ARITH],
    ival: [Lane; INTERVAL],
    mul_na: [u32; 3],
    mul_nb: [u32; 3],
    mul_p: [u32; 3],
    mul_i: [u32; 3],
    rom_q: u32,
    rom2_q: u32,
    out: WeOutputs,
    stats: WeStats,
}

/// Cycles from an event on the inputs to its update on the outputs (when it
/// is not merged into an earlier event of its flow).
pub const LATENCY_CYCLES: usize = 38;
// the register map reports it in CAPS.LATENCY and the driver waits on it:
// one value, checked here (the map's crate cannot depend on this one)
const _: () = assert!(ldcp_regmap::ENGINE_LATENCY as usize == LATENCY_CYCLES);

impl WindowEngineModel {
    /// A table of 2^flow_bits flows at power-up: every cw is 1.0.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} must be in [1, 16]"
        );
        WindowEngineModel {
            flow_mask: (1 << flow_bits) - 1,
            mem: vec![CW_ONE; 1 << flow_bits],
            raw: WindowParams {
                alpha_raw: 0,
                beta_raw: 0,
                gamma_shift: 0,
                cw_max_raw: 0,
                rtt_ticks: 0,
            },
            cfg: Cfg::default(),
            i: Slot::default(),
            i_ece: false,
            i_n: 0,
            slots: [Slot::default(); WINDOW],
            x: Slot::default(),
            ram_q: 0,
            arith: [Lane::default(); ARITH],
            ival: [Lane::default(); INTERVAL],
            mul_na: [0; 3],
            mul_nb: [0; 3],
            mul_p: [0; 3],
            mul_i: [0; 3],
            rom_q: 0,
            rom2_q: 0,
            out: WeOutputs::default(),
            stats: WeStats::default(),
        }
    }

    /// What the engine did so far.
    pub fn stats(&self) -> WeStats {
        self.stats
    }

    /// Events in flight, by place: the input register, the merge window,
    /// its exit register, the arithmetic and the interval pipelines.
    pub fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let count = |it: &mut dyn Iterator<Item = bool>| it.filter(|&v| v).count() as u64;
        [
            ("input register", self.i.v as u64),
            ("merge window", count(&mut self.slots.iter().map(|s| s.v))),
            ("window exit X", self.x.v as u64),
            (
                "arithmetic pipeline",
                count(&mut self.arith.iter().map(|l| l.v)),
            ),
            (
                "interval pipeline",
                count(&mut self.ival.iter().map(|l| l.v)),
            ),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }

    /// A flow's cw in the table (updates still in the pipeline not included).
    pub fn table(&self, flow: usize) -> Option<u32> {
        self.mem.get(flow).copied()
    }

    /// The registered outputs.
    pub fn outputs(&self) -> WeOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, inp: &WeInputs) {
        let rst = inp.reset;
        let cfg = self.cfg;
        let one = CW_ONE as u64;

        // ---- outputs (t20), from T
        let t = self.ival[T - P];
        let p2 = self.mul_i[2];
        let interval = if !t.sub {
            0
        } else if t.tiny {
            (1 << INTERVAL_BITS) - 1
        } else {
            (p2 >> (15 - t.k)) & ((1 << INTERVAL_BITS) - 1)
        };
        let out = WeOutputs {
            out_valid: t.v && !rst,
            out_flow: t.flow,
            out_cw: t.c,
            out_interval_ticks: interval,
            out_n_u_pkts: t.nu,
            out_n_m_pkts: t.nm,
        };

        // ---- interval pipeline P..T
        let o = self.arith[O]; // the final cw
        let mut ival = self.ival;
        for k in (1..INTERVAL).rev() {
            ival[k] = Lane {
                v: self.ival[k - 1].v && !rst,
                ..self.ival[k - 1]
            };
        }
        // P (t15): regime and normalisation shift of the final cw
        let frac_hi = (o.c >> 12) & 0xff; // bits 19..12
                                          // P
        ival[0] = Lane {
            v: o.v && !rst,
            sub: o.c < CW_ONE,
            tiny: o.c < CW_ONE && frac_hi == 0,
            k: if frac_hi == 0 {
                0
            } else {
                7 - (31 - frac_hi.leading_zeros())
            },
            ..o
        };
        // P's cycle presents the ROM2 address (R2 arrives with Q);
        // Q's cycle feeds the interval multiplier (product with T).
        let pl = self.ival[0];
        let rom2_q = RECIP_TABLE[(((pl.c << pl.k) >> 11) & 0xff) as usize] as u32;
        let mul_i = [cfg.rtt * self.rom2_q, self.mul_i[0], self.mul_i[1]];

        // ---- the table write (t15), from O
        let write = o.v.then_some((o.flow, o.c));

        // ---- arithmetic pipeline B..O
        let mut ar = self.arith;
        let prev = |k: usize| Lane {
            v: self.arith[k].v && !rst,
            ..self.arith[k]
        };
        // O (t14) from N: the decrease chosen
        {
            let n = prev(N);
            let c = if n.nm == 0 {
                n.c
            } else if n.big {
                n.x as u32
            } else if n.ltg {
                cfg.gamma
            } else {
                n.y as u32
            };
            ar[O] = Lane { c, ..n };
        }
        // N (t13) from M: finish the halving; clamp the linear decrease at 1
        {
            let m = prev(M);
            let dec_big = if m.lt { one } else { m.x };
            ar[N] = Lane {
                x: dec_big,
                y: m.y >> (m.hs & 12),
                ltg: m.y < m.gthr as u64,
                ..m
            };
        }
        // M (t12) from L: both decreases
        {
            let l = prev(L);
            let diff = (l.c as u64).wrapping_sub((l.nb as u64) << 12) & ((1 << 33) - 1);
            let lt = (l.c as u64) < ((l.nb as u64) << 12) + one;
            ar[M] = Lane {
                big: l.c > CW_ONE,
                lt,
                x: diff,
                y: (l.c >> (l.hs & 3)) as u64,
                gthr: cfg.gamma << (l.hs & 12),
                ..l
            };
        }
        // L (t11) from K: the increase chosen and capped
        {
            let k = prev(K);
            let c = if k.nu == 0 {
                k.c
            } else if k.sub {
                if k.yover {
                    CW_ONE
                } else {
                    k.y as u32
                }
            } else if k.over {
                cfg.cw_max
            } else {
                k.x as u32
            };
            ar[L] = Lane { c, ..k };
        }
        // K (t10) from J: both sums
        {
            let j = prev(J);
            ar[K] = Lane {
                x: j.c as u64 + j.t as u64,
                y: j.c as u64 + j.gstep as u64,
                over: j.h < 0 || j.t as i64 > j.h,
                yover: j.hg < 0 || j.gstep as i64 > j.hg,
                ..j
            };
        }
        // J (t9) from I: inc = u >> (e & 3)
        {
            let i = prev(I);
            ar[J] = Lane {
                t: i.t >> (i.e & 3),
                gstep: i.nu << cfg.gsh,
                h: cfg.cw_max as i64 - i.c as i64,
                hg: CW_ONE as i64 - i.c as i64,
                ..i
            };
        }
        // I (t8) from H: u = p >> (4 + (e & 12))
        {
            let h = prev(H);
            ar[I] = Lane {
                t: self.mul_p[2] >> (4 + (h.e & 12)),
                ..h
            };
        }
        // F, G, H (t5..t7): beside the multiplier
        ar[H] = prev(G);
        ar[G] = prev(F);
        // F (t5) from E: the multiplier takes na and R this cycle
        ar[F] = prev(E);
        let mul_p = [self.arith[E].na * self.rom_q, self.mul_p[0], self.mul_p[1]];
        // E (t4) from D: the ROM takes the index this cycle; na, nb arrive
        {
            let d = prev(D);
            ar[E] = Lane {
                na: self.mul_na[2],
                nb: self.mul_nb[2],
                ..d
            };
        }
        let dl = self.arith[D];
        let rom_q = RECIP_TABLE[((dl.t >> (12 + (dl.e & 3))) & 0xff) as usize] as u32;
        // D (t3) from C: t = c >> (e & 12)
        {
            let c = prev(C);
            ar[D] = Lane {
                t: c.c >> (c.e & 12),
                ..c
            };
        }
        // C (t2) from B: regime and exponent
        {
            let b = prev(B);
            let int = b.c >> CW_FRAC_BITS;
            ar[C] = Lane {
                sub: int == 0,
                e: if int == 0 {
                    0
                } else {
                    31 - int.leading_zeros()
                },
                ..b
            };
        }
        // B (t1) from X and the table's read data: the starting cw
        {
            let x = self.x;
            let c = if !x.set {
                self.ram_q
            } else if x.lo {
                cfg.gamma
            } else if x.hi {
                cfg.cw_max
            } else {
                x.value
            };
            ar[B] = Lane {
                v: x.v && !rst,
                flow: x.flow,
                nu: x.nu,
                nm: x.nm,
                hs: x.nm.min(8),
                c,
                ..Lane::default()
            };
        }
        let mul_na = [self.x.nu * cfg.alpha, self.mul_na[0], self.mul_na[1]];
        let mul_nb = [self.x.nm * cfg.beta, self.mul_nb[0], self.mul_nb[1]];

        // ---- the window
        let iv = self.i.v;
        let mut slots = self.slots;
        let mut any = false;
        for j in (0..WINDOW - 1).rev() {
            let mut s = self.slots[j];
            if iv && s.v && s.flow == self.i.flow {
                any = true;
                if self.i.set {
                    s = Slot {
                        nu: 0,
                        nm: 0,
                        acks: 0,
                        ..self.i
                    };
                } else {
                    if self.i_ece {
                        s.nm += self.i_n;
                    } else {
                        s.nu += self.i_n;
                    }
                    s.acks += 1;
                    self.stats.merged_events += 1;
                }
            }
            s.v &= !rst;
            slots[j + 1] = s;
        }
        slots[0] = Slot {
            v: iv && !any && !rst,
            ..self.i
        };
        // the SET value against the limits in force as it leaves the window
        let x_next = Slot {
            v: self.slots[WINDOW - 1].v && !rst,
            lo: self.slots[WINDOW - 1].value < cfg.gamma,
            hi: self.slots[WINDOW - 1].value > cfg.cw_max,
            ..self.slots[WINDOW - 1]
        };
        if x_next.v {
            self.stats.updates += 1;
            if x_next.acks > 1 {
                self.stats.merged_updates += 1;
                self.stats.mixed_updates += (x_next.nu > 0 && x_next.nm > 0) as u64;
            }
        }
        let ram_q = self.mem[self.slots[WINDOW - 1].flow as usize];

        // ---- the input register (its value compared with the config registers)
        let flow = inp.in_flow & self.flow_mask;
        let value = inp.in_cw;
        let n = inp.in_n_pkts & N_MAX;
        let i_next = Slot {
            v: inp.in_valid && !rst,
            flow,
            set: inp.in_set,
            value,
            lo: false,
            hi: false,
            nu: if !inp.in_set && !inp.in_ece { n } else { 0 },
            nm: if !inp.in_set && inp.in_ece { n } else { 0 },
            acks: !inp.in_set as u32,
        };
        self.stats.events += i_next.v as u64;

        // ---- config: the raw registers, then the clamped ones
        let pr = &self.raw;
        let cfg_next = Cfg {
            alpha: (pr.alpha_raw as u32 & 0x1ff).clamp(1, 256),
            beta: (pr.beta_raw as u32 & 0x1ff).clamp(1, 256),
            g: gamma_clamped(pr.gamma_shift),
            gsh: CW_FRAC_BITS - gamma_clamped(pr.gamma_shift),
            cw_max: pr.cw_max_raw.max(CW_ONE),
            rtt: pr.rtt_ticks & 0xffff,
            // ONE >> g: the power-up g = 0 gives 1.0 for a cycle, as in the RTL
            gamma: CW_ONE >> cfg.g,
        };

        // ---- commit
        self.out = out;
        self.ival = ival;
        self.rom2_q = rom2_q;
        self.mul_i = mul_i;
        if let Some((f, c)) = write {
            self.mem[f as usize] = c;
        }
        self.arith = ar;
        self.mul_p = mul_p;
        self.rom_q = rom_q;
        self.mul_na = mul_na;
        self.mul_nb = mul_nb;
        self.slots = slots;
        self.x = x_next;
        self.ram_q = ram_q;
        self.i = i_next;
        self.i_ece = inp.in_ece;
        self.i_n = n;
        self.cfg = cfg_next;
        self.raw = WindowParams {
            alpha_raw: inp.cfg_alpha & 0x1ff,
            beta_raw: inp.cfg_beta & 0x1ff,
            gamma_shift: inp.cfg_gamma_shift & ((1 << GAMMA_SHIFT_BITS) - 1) as u8,
            cw_max_raw: inp.cfg_cw_max,
            rtt_ticks: inp.cfg_rtt_ticks & 0xffff,
        };
    }
}

impl crate::cosim::CosimModel for WindowEngineModel {
    type Input = WeInputs;
    type Output = WeOutputs;

    fn tick(&mut self, i: &WeInputs) {
        WindowEngineModel::tick(self, i)
    }

    fn outputs(&self) -> WeOutputs {
        self.out
    }

    /// [`LATENCY_CYCLES`] + 1 idle cycles, the last parameters kept: the
    /// last event's update is out, and nothing is left in the window or the
    /// pipelines.
    fn drain(&self, last: Option<&WeInputs>) -> Vec<WeInputs> {
        let p = last.map(|i| i.params()).unwrap_or_default();
        vec![WeInputs::idle(&p); LATENCY_CYCLES + 1]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        WindowEngineModel::in_flight(self)
    }
}
