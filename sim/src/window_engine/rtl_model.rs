//! The cycle-accurate mirror of the RTL `WindowEngine`: the merge window,
//! the arithmetic pipeline and the pacing-interval pipeline, register for
//! register. The arithmetic is [`super::update`] split at the RTL's
//! register boundaries, so a test can check that the two agree.

use super::*;

/// Slots of the merge window: an event waits here [`WINDOW`] cycles, and a
/// later event of the same flow merges into it (Eq. 2). The arithmetic
/// pipeline reads a flow's cw [`WINDOW`] cycles after its previous update
/// was read, and writes that update back within [`WRITE_LATENCY`] <
/// [`WINDOW`] cycles: no read ever sees a stale cw.
pub const WINDOW: usize = 16;
/// Edges from the read of a flow's cw to the write of its update.
pub const WRITE_LATENCY: usize = 15;
const _: () = assert!(WRITE_LATENCY < WINDOW && WINDOW * (N_MAX as usize) <= 255);

/// One cycle of inputs, port for port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WeInputs {
    /// Synchronous reset: empties the window and the pipelines (the events in
    /// them are dropped); the flow table keeps its values.
    pub reset: bool,
    /// An event arrives.
    pub ev_valid: bool,
    /// Its flow.
    pub ev_flow: u32,
    /// SET (true): cw := ev_value (clamped to [gamma, cw_max]); ACK (false).
    pub ev_set: bool,
    /// ACK: ECN-Echo.
    pub ev_ece: bool,
    /// ACK: packets acknowledged, 0..=15 (0: no change, the update still
    /// reports the flow's cw: a read).
    pub ev_n: u32,
    /// SET: the new cw, UQ12.20.
    pub ev_value: u32,
    /// The parameters on the ports.
    pub params: WindowParams,
}

/// The registered outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WeOutputs {
    /// An update completed.
    pub out_valid: bool,
    /// Its flow.
    pub out_flow: u32,
    /// The flow's new cw, UQ12.20.
    pub out_cw: u32,
    /// RTT / cw in ticks if cw < 1, else 0.
    pub out_interval: u32,
    /// Unmarked packets this update applied.
    pub out_n_u: u32,
    /// Marked packets this update applied.
    pub out_n_m: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    v: bool,
    flow: u32,
    set: bool,
    value: u32,
    lo: bool,
    hi: bool,
    nu: u32,
    nm: u32,
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

/// Stages of the arithmetic pipeline after the window's exit register X:
/// B (t1) ... O (t14); O's value is written to the table at t15.
const ARITH: usize = 14;
/// Stages of the interval pipeline: P (t15) ... T (t19); outputs at t20.
const INTERVAL: usize = 5;

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
}

/// Cycles from an event on the inputs to its update on the outputs (when it
/// is not merged into an earlier event of its flow).
pub const LATENCY_CYCLES: usize = 38;

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
        }
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
        let t = self.ival[INTERVAL - 1];
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
            out_interval: interval,
            out_n_u: t.nu,
            out_n_m: t.nm,
        };

        // ---- interval pipeline P..T
        let o = self.arith[ARITH - 1]; // O: cfinal in c
        let mut ival = self.ival;
        for k in (1..INTERVAL).rev() {
            ival[k] = Lane {
                v: self.ival[k - 1].v && !rst,
                ..self.ival[k - 1]
            };
        }
        // P (t15): regime and normalisation shift of the final cw
        let frac_hi = (o.c >> 12) & 0xff; // bits 19..12
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
            let n = prev(12);
            let c = if n.nm == 0 {
                n.c
            } else if n.big {
                n.x as u32
            } else if n.ltg {
                cfg.gamma
            } else {
                n.y as u32
            };
            ar[13] = Lane { c, ..n };
        }
        // N (t13) from M: finish the halving; clamp the linear decrease at 1
        {
            let m = prev(11);
            let dec_big = if m.lt { one } else { m.x };
            ar[12] = Lane {
                x: dec_big,
                y: m.y >> (m.hs & 12),
                ltg: m.y < m.gthr as u64,
                ..m
            };
        }
        // M (t12) from L: both decreases
        {
            let l = prev(10);
            let diff = (l.c as u64).wrapping_sub((l.nb as u64) << 12) & ((1 << 33) - 1);
            let lt = (l.c as u64) < ((l.nb as u64) << 12) + one;
            ar[11] = Lane {
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
            let k = prev(9);
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
            ar[10] = Lane { c, ..k };
        }
        // K (t10) from J: both sums
        {
            let j = prev(8);
            ar[9] = Lane {
                x: j.c as u64 + j.t as u64,
                y: j.c as u64 + j.gstep as u64,
                over: j.h < 0 || j.t as i64 > j.h,
                yover: j.hg < 0 || j.gstep as i64 > j.hg,
                ..j
            };
        }
        // J (t9) from I: inc = u >> (e & 3)
        {
            let i = prev(7);
            ar[8] = Lane {
                t: i.t >> (i.e & 3),
                gstep: i.nu << cfg.gsh,
                h: cfg.cw_max as i64 - i.c as i64,
                hg: CW_ONE as i64 - i.c as i64,
                ..i
            };
        }
        // I (t8) from H: u = p >> (4 + (e & 12))
        {
            let h = prev(6);
            ar[7] = Lane {
                t: self.mul_p[2] >> (4 + (h.e & 12)),
                ..h
            };
        }
        // F, G, H (t5..t7): beside the multiplier
        ar[6] = prev(5);
        ar[5] = prev(4);
        // F (t5) from E: the multiplier takes na and R this cycle
        ar[4] = prev(3);
        let mul_p = [self.arith[3].na * self.rom_q, self.mul_p[0], self.mul_p[1]];
        // E (t4) from D: the ROM takes the index this cycle; na, nb arrive
        {
            let d = prev(2);
            ar[3] = Lane {
                na: self.mul_na[2],
                nb: self.mul_nb[2],
                ..d
            };
        }
        let dl = self.arith[2];
        let rom_q = RECIP_TABLE[((dl.t >> (12 + (dl.e & 3))) & 0xff) as usize] as u32;
        // D (t3) from C: t = c >> (e & 12)
        {
            let c = prev(1);
            ar[2] = Lane {
                t: c.c >> (c.e & 12),
                ..c
            };
        }
        // C (t2) from B: regime and exponent
        {
            let b = prev(0);
            let int = b.c >> CW_FRAC_BITS;
            ar[1] = Lane {
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
            ar[0] = Lane {
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
                        ..self.i
                    };
                } else if self.i_ece {
                    s.nm += self.i_n;
                } else {
                    s.nu += self.i_n;
                }
            }
            s.v &= !rst;
            slots[j + 1] = s;
        }
        slots[0] = Slot {
            v: iv && !any && !rst,
            ..self.i
        };
        let x_next = Slot {
            v: self.slots[WINDOW - 1].v && !rst,
            ..self.slots[WINDOW - 1]
        };
        let ram_q = self.mem[self.slots[WINDOW - 1].flow as usize];

        // ---- the input register (its value compared with the config registers)
        let flow = inp.ev_flow & self.flow_mask;
        let value = inp.ev_value;
        let n = inp.ev_n & N_MAX;
        let i_next = Slot {
            v: inp.ev_valid && !rst,
            flow,
            set: inp.ev_set,
            value,
            lo: false,
            hi: false,
            nu: if !inp.ev_set && !inp.ev_ece { n } else { 0 },
            nm: if !inp.ev_set && inp.ev_ece { n } else { 0 },
        };

        // ---- config: the raw registers, then the clamped ones
        let pr = &self.raw;
        let cfg_next = Cfg {
            alpha: (pr.alpha_raw as u32 & 0x1ff).clamp(1, 256),
            beta: (pr.beta_raw as u32 & 0x1ff).clamp(1, 256),
            g: (pr.gamma_shift as u32 & 0xf).clamp(1, 8),
            gsh: CW_FRAC_BITS - (pr.gamma_shift as u32 & 0xf).clamp(1, 8),
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
        // lo/hi of the registered input value, against this cycle's config
        self.i = Slot {
            lo: i_next.value < cfg.gamma,
            hi: i_next.value > cfg.cw_max,
            ..i_next
        };
        self.i_ece = inp.ev_ece;
        self.i_n = n;
        self.cfg = cfg_next;
        self.raw = WindowParams {
            alpha_raw: inp.params.alpha_raw & 0x1ff,
            beta_raw: inp.params.beta_raw & 0x1ff,
            gamma_shift: inp.params.gamma_shift & 0xf,
            cw_max_raw: inp.params.cw_max_raw,
            rtt_ticks: inp.params.rtt_ticks & 0xffff,
        };
    }
}

impl crate::cosim::CosimModel for WindowEngineModel {
    type Input = WeInputs;

    fn input_names() -> &'static [&'static str] {
        &[
            "reset",
            "ev_valid",
            "ev_flow",
            "ev_set",
            "ev_ece",
            "ev_n",
            "ev_value",
            "alpha_raw",
            "beta_raw",
            "gamma_shift",
            "cw_max",
            "rtt_ticks",
        ]
    }

    fn output_names() -> &'static [&'static str] {
        &[
            "out_valid",
            "out_flow",
            "out_cw",
            "out_interval",
            "out_n_u",
            "out_n_m",
        ]
    }

    fn encode(i: &WeInputs, p: &mut [u64]) {
        p[0] = i.reset as u64;
        p[1] = i.ev_valid as u64;
        p[2] = i.ev_flow as u64;
        p[3] = i.ev_set as u64;
        p[4] = i.ev_ece as u64;
        p[5] = i.ev_n as u64;
        p[6] = i.ev_value as u64;
        p[7] = i.params.alpha_raw as u64;
        p[8] = i.params.beta_raw as u64;
        p[9] = i.params.gamma_shift as u64;
        p[10] = i.params.cw_max_raw as u64;
        p[11] = i.params.rtt_ticks as u64;
    }

    fn tick(&mut self, i: &WeInputs) {
        WindowEngineModel::tick(self, i)
    }

    fn outputs(&self, p: &mut [u64]) {
        let o = self.out;
        p[0] = o.out_valid as u64;
        p[1] = o.out_flow as u64;
        p[2] = o.out_cw as u64;
        p[3] = o.out_interval as u64;
        p[4] = o.out_n_u as u64;
        p[5] = o.out_n_m as u64;
    }
}
