//! The cycle-accurate mirror of `PacingTimer`: its three tables, their read
//! registers, the scanner (a visit is decided from the entries read and the
//! T of the cycle after the read, then carried through the RTL's pipeline
//! stages X2..X4; Y writes S and the grant is shown from the Y registers),
//! the update path and the sweep.

use super::*;

crate::ports! {
    callback pacing_timer_ports;
    /// One cycle of inputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PtInputs {
        /// Synchronous reset (see the module doc).
        reset: bool = 1,
        /// An update this cycle (taken when `in_ready`).
        in_valid: bool = 1,
        /// 0: an update from the window engine; 1: a restart (a flow reset: interval 0 leaves, any other joins afresh, its first grant one interval from now).
        in_restart: bool = 1,
        /// Flow id (ids at or above the table size are refused, `stat_err_flow_strobe`).
        in_flow: u32 = FLOW_ID_BITS as u32,
        /// The flow's pacing interval, cycles, UQ24; 0 when cw >= 1 (the flow leaves).
        in_interval_cycles: u32 = INTERVAL_BITS as u32,
    }
    /// The registered outputs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PtOutputs {
        /// Updates are taken (low during the reset sweep).
        in_ready: bool = 1,
        /// A send credit for `out_flow`.
        out_valid: bool = 1,
        /// The granted flow.
        out_flow: u32 = FLOW_ID_BITS as u32,
        /// How late the grant is: `T - due` at the visit, cycles (low 16 bits).
        out_late_cycles: u32 = LATE_BITS as u32,
        /// The update taken two cycles ago named a flow beyond the table.
        stat_err_flow_strobe: bool = 1,
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct AEntry {
    active: bool,
    join: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct UEntry {
    active: bool,
    interval: u32,
    join: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SEntry {
    active: bool,
    join_seen: u32,
    next: u32,
}

/// Pipeline stages a decided visit passes before Y (the RTL's X2, X3, X4).
const SCAN_STAGES: usize = 3;

/// A decided visit: the S entry to write and the grant to show.
#[derive(Clone, Copy, Debug)]
struct ScanResult {
    idx: usize,
    write: SEntry,
    grant: Option<u32>,
}

/// The RTL's registers and tables, mirrored.
#[derive(Clone, Debug)]
pub struct PacingTimerModel {
    a: Vec<AEntry>,
    u: Vec<UEntry>,
    s: Vec<SEntry>,
    s1: Option<PtInputs>,
    sc_ptr: usize,
    sc_idx: usize,
    sc_v: bool,
    u_q: UEntry,
    s_q: SEntry,
    /// The visits decided and moving through X2, X3, X4.
    xs: [Option<ScanResult>; SCAN_STAGES],
    y: Option<ScanResult>,
    t: u32,
    sweep: crate::Sweep,
    out: PtOutputs,
}

/// The fewest flow bits a timer may have: the scanner writes a flow's S
/// entry five edges after reading it, which must come before its next visit
/// 2^flow_bits edges later (with 4 flows every visit would read the entry
/// of the visit before last: the formal harness's counterexample).
pub const MIN_FLOW_BITS: u32 = 3;

impl PacingTimerModel {
    /// A timer of 2^flow_bits flows at power-up: no member, T = 0.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (MIN_FLOW_BITS..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in {MIN_FLOW_BITS}..=16"
        );
        let n = 1usize << flow_bits;
        PacingTimerModel {
            a: vec![AEntry::default(); n],
            u: vec![UEntry::default(); n],
            s: vec![SEntry::default(); n],
            s1: None,
            sc_ptr: 0,
            sc_idx: 0,
            sc_v: false,
            u_q: UEntry::default(),
            s_q: SEntry::default(),
            xs: [None; SCAN_STAGES],
            y: None,
            t: 0,
            sweep: crate::Sweep::default(),
            out: PtOutputs {
                in_ready: true,
                ..Default::default()
            },
        }
    }

    /// Flows in the table.
    pub fn flows(&self) -> usize {
        self.a.len()
    }

    /// The time counter T.
    pub fn time(&self) -> u32 {
        self.t
    }

    /// Whether a flow is a member (as the update path sees it).
    pub fn is_member(&self, flow: usize) -> Option<bool> {
        self.a.get(flow).map(|e| e.active)
    }

    /// The registered outputs.
    pub fn outputs(&self) -> PtOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &PtInputs) {
        let t = self.t;
        let n = self.a.len();
        let mut out = PtOutputs::default();

        // ---- scanner stage Y: the S write of the result computed last cycle
        let y = self.y.take();

        // ---- scanner stage X: the flow read at the last edge
        let mut new_y = None;
        if self.sc_v {
            let (u, s) = (self.u_q, self.s_q);
            let idx = self.sc_idx;
            if !u.active {
                new_y = Some(ScanResult {
                    idx,
                    write: SEntry {
                        active: false,
                        join_seen: u.join,
                        next: s.next,
                    },
                    grant: None,
                });
            } else {
                let fresh = !s.active || u.join != s.join_seen;
                let mut nxt = if fresh {
                    (u.join + u.interval) & T_MASK
                } else {
                    s.next
                };
                let mut grant = None;
                if reached(t, nxt) {
                    grant = Some(t.wrapping_sub(nxt) & ((1 << LATE_BITS) - 1));
                    let n2 = (nxt + u.interval) & T_MASK;
                    nxt = if reached(t, n2) {
                        (t + u.interval) & T_MASK
                    } else {
                        n2
                    };
                }
                new_y = Some(ScanResult {
                    idx,
                    write: SEntry {
                        active: true,
                        join_seen: u.join,
                        next: nxt,
                    },
                    grant,
                });
            }
        }

        // ---- the update path
        let mut a_write = None;
        if let Some(op) = self.s1 {
            let f = (op.in_flow & 0xffff) as usize;
            if f >= n {
                out.stat_err_flow_strobe = true;
            } else {
                let a = self.a[f];
                let interval = op.in_interval_cycles & ((1 << INTERVAL_BITS) - 1);
                if interval == 0 {
                    a_write = Some((
                        f,
                        AEntry {
                            active: false,
                            join: a.join,
                        },
                        UEntry {
                            active: false,
                            interval: 0,
                            join: a.join,
                        },
                    ));
                } else {
                    // a restart (kind 1) joins afresh even if the flow is a member
                    let join = if a.active && !op.in_restart {
                        a.join
                    } else {
                        t
                    };
                    a_write = Some((
                        f,
                        AEntry { active: true, join },
                        UEntry {
                            active: true,
                            interval,
                            join,
                        },
                    ));
                }
            }
        }

        // ---- the scanner's reads (before this edge's writes), then the writes
        self.u_q = self.u[self.sc_ptr];
        self.s_q = self.s[self.sc_ptr];
        if !i.reset {
            if let Some(y) = y {
                self.s[y.idx] = y.write;
            }
            if let Some((f, a, u)) = a_write {
                self.a[f] = a;
                self.u[f] = u;
            }
            if self.sweep.active() {
                let p = self.sweep.ptr();
                self.a[p] = AEntry::default();
                self.u[p] = UEntry::default();
                self.s[p] = SEntry::default();
            }
        }

        // ---- registers
        let ready = self.out.in_ready;
        self.y = self.xs[SCAN_STAGES - 1].take();
        self.xs.rotate_right(1);
        self.xs[0] = new_y;
        if i.reset {
            self.y = None;
            self.xs = [None; SCAN_STAGES];
        }
        if let Some(ScanResult {
            idx,
            grant: Some(late),
            ..
        }) = self.y
        {
            out.out_valid = true;
            out.out_flow = idx as u32;
            out.out_late_cycles = late;
        }
        self.sc_idx = self.sc_ptr;
        self.sc_ptr = (self.sc_ptr + 1) % n;
        self.sc_v = !self.sweep.active() && !i.reset;
        self.t = (t + 1) & T_MASK;
        self.sweep.tick(i.reset, n);
        self.s1 = (i.in_valid && ready && !i.reset).then_some(*i);
        if i.reset {
            self.t = 0;
            self.sc_ptr = 0;
            out = PtOutputs::default();
        }
        out.in_ready = !self.sweep.active();
        self.out = out;
    }
}

impl crate::cosim::CosimModel for PacingTimerModel {
    type Input = PtInputs;
    type Output = PtOutputs;

    fn tick(&mut self, i: &PtInputs) {
        PacingTimerModel::tick(self, i)
    }

    fn outputs(&self) -> PtOutputs {
        self.out
    }

    /// Idle cycles for a reset sweep (one per flow) to finish, plus the
    /// update path's two: the scanner keeps granting (grants are the
    /// block's output, not something in flight).
    fn drain(&self, _last: Option<&PtInputs>) -> Vec<PtInputs> {
        vec![PtInputs::default(); self.a.len() + 2]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![];
        if self.s1.is_some() {
            v.push(("update in the input register", 1));
        }
        if self.sweep.active() {
            v.push(("reset sweep entries left", self.sweep.left(self.a.len())));
        }
        v
    }
}

/// The seeded, endless update stream of the CLI's cosimulation and the
/// benchmarks: [`PtStimulus`] from a seed.
pub fn stimulus(seed: u64, flow_bits: u32) -> impl Iterator<Item = PtInputs> + Clone {
    crate::seeded(PtStimulus::new(flow_bits), seed ^ 0xbb67_ae85_84ca_a73b)
}

/// The update stream generator: phases with one, a few or all flows,
/// intervals short (below a sweep), typical, long and the 24-bit maximum,
/// leaves (interval 0), flow resets, ids beyond the table, bursts of joins
/// in one cycle range (many flows due at once), idle stretches and a rare
/// block reset.
#[derive(Clone, Debug)]
pub struct PtStimulus {
    n: u64,
    left: u32,
    phase: (u64, u64, u64, u64),
}

impl PtStimulus {
    /// A generator for a table of 2^flow_bits flows.
    pub fn new(flow_bits: u32) -> Self {
        PtStimulus {
            n: 1 << flow_bits,
            left: 0,
            phase: (1, 0, 0, 0),
        }
    }
}

impl crate::Stimulus for PtStimulus {
    type Input = PtInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> PtInputs {
        let n = self.n;
        let mut r = || d.next_u64();
        let a = r();
        let b = r();
        if self.left == 0 {
            let flows = [1u64, 4, 32, n][(r() % 4) as usize];
            let first = r() % n;
            let ikind = r() % 5;
            let busy = [2u64, 10, 50, 100][(r() % 4) as usize]; // percent of cycles with an update
            self.phase = (flows, first, ikind, busy);
            self.left = 300 + (r() % 5000) as u32;
        }
        self.left -= 1;
        let (flows, first, ikind, busy) = self.phase;
        let interval = match ikind {
            0 => 1 + (b % 200) as u32,
            1 => 200 + (b % 3000) as u32,
            2 => 1 + (b % 40_000) as u32,
            3 => [1u32, 255, 256, 257, (1 << 24) - 1][(b % 5) as usize],
            _ => 50 + (b % 800) as u32,
        };
        let mut i = PtInputs {
            reset: a % 40_000 == 0,
            in_valid: a % 100 < busy,
            in_restart: (a >> 8) % 50 == 0,
            in_flow: ((first + (a >> 16) % flows) % n) as u32,
            in_interval_cycles: if (a >> 32) % 8 == 0 { 0 } else { interval },
        };
        if (a >> 40) % 200 == 0 {
            i.in_flow = (n + (b >> 32) % (0x1_0000 - n).max(1)) as u32 & 0xffff;
        }
        i
    }
}
