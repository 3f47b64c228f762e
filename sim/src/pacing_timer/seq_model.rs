//! The cycle-accurate mirror of `PacingTimerSeq` (the pacing timer in the
//! fewest cells: one table, one op at a time; its timing is documented
//! with the RTL, `ldcp_hdl::pacing_timer_seq`). A flow's due time is the
//! functional [`PacedFlow`]'s: a join sets it to the update's take time
//! plus the interval, a grant adds the latest interval; only the visit
//! that finds it due comes later than in `PacedFlow` (at most one lap).

use super::*;

/// Cycles between two visits when no update waits (a design constant of
/// the RTL: a visit's entry is registered in the cycle after its read, and
/// that register is read until the visit's last cycle).
pub const SEQ_VISIT_CYCLES: u32 = 2;
/// Cycles an update adds to the gap between two visits, at most: it waits
/// for the visit in flight to write, reads its entry and writes it (a
/// design constant of the RTL).
pub const SEQ_UPDATE_CYCLES: u32 = 4;

/// The longest lap (cycles between two visits of one flow) of a timer of
/// `flows` flows: every visit behind an update.
pub fn seq_lap_max_cycles(flows: u32) -> u32 {
    flows * (SEQ_VISIT_CYCLES + SEQ_UPDATE_CYCLES)
}

/// The worst-case lateness, cycles, of a grant of a timer of `flows`
/// flows whose intervals are all at least `min_interval` (at least 1):
/// `lap - 1` (lap: [`seq_lap_max_cycles`]) for intervals of 3 cycles or
/// more. A due time the visit before did not find reached is at most a
/// lap old at the next visit; after a grant the next due time is later
/// than the grant's visit; and a join's first due time (the update's take
/// time plus the interval) is at most `lap + 2 - interval` cycles old at
/// the first visit that reads the joined entry (the update is written at
/// most 5 cycles after its take, and that visit decides at most
/// `lap - 3` cycles after the write).
pub fn seq_lateness_bound_cycles(flows: u32, min_interval: u32) -> u32 {
    let lap = seq_lap_max_cycles(flows);
    (lap - 1).max(lap + 2 - min_interval.clamp(1, 3))
}

/// One table entry: the member bit and interval (written by updates
/// only) and the next due time (written by a join and by a grant).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    active: bool,
    interval: u32,
    next: u32,
}

/// Counts of what the model did (for tests and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacingTimerSeqStats {
    /// Updates taken into the input register (ids in the table).
    pub updates: u64,
    /// Updates refused for their flow id.
    pub refused: u64,
    /// Visits started.
    pub visits: u64,
}

/// The RTL's registers and table, mirrored.
#[derive(Clone, Debug)]
pub struct PacingTimerSeqModel {
    table: Vec<Entry>,
    t: u32,
    sweep: crate::Sweep,
    /// The input register: (flow, interval, restart, T + interval at the take).
    upd: Option<(usize, u32, bool, u32)>,
    /// An update ran last: the next op is a visit.
    fair: bool,
    /// The visit in its first cycle after the read (its flow): the entry
    /// is registered.
    v1: Option<usize>,
    /// The visit in its second cycle: due? its lateness, next + interval.
    v2: Option<usize>,
    /// The visit in its last cycle: (flow, due, lateness, next + interval):
    /// the grant and its write.
    v3: Option<(usize, bool, u32, u32)>,
    /// The entry register (a visit's, loaded in its first cycle).
    q: Entry,
    /// The update in its write cycle.
    up: bool,
    sc_ptr: usize,
    /// The table's read register (the entry at the address of the last edge).
    rd: Entry,
    err: bool,
    stats: PacingTimerSeqStats,
    out: PtOutputs,
}

impl PacingTimerSeqModel {
    /// A timer of 2^flow_bits flows at power-up: no member, T = 0.
    pub fn new(flow_bits: u32) -> Self {
        assert!(
            (1..=16).contains(&flow_bits),
            "flow_bits {flow_bits} not in 1..=16"
        );
        PacingTimerSeqModel {
            table: vec![Entry::default(); 1 << flow_bits],
            t: 0,
            sweep: crate::Sweep::default(),
            upd: None,
            fair: false,
            v1: None,
            v2: None,
            v3: None,
            q: Entry::default(),
            up: false,
            sc_ptr: 0,
            rd: Entry::default(),
            err: false,
            stats: PacingTimerSeqStats::default(),
            out: PtOutputs {
                in_ready: true,
                ..Default::default()
            },
        }
    }

    /// What the model did so far.
    pub fn stats(&self) -> PacingTimerSeqStats {
        self.stats
    }

    /// The registered outputs.
    pub fn outputs(&self) -> PtOutputs {
        self.out
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &PtInputs) {
        let t = self.t;
        let n = self.table.len();
        let mut out = PtOutputs::default();
        let sweeping = self.sweep.active();
        let rd = self.rd;

        // ---- the op in its last cycle: a visit's grant or an update's write
        let q = self.q;
        let mut write: Option<(usize, Entry)> = None;
        if let Some((f, due, late, n2)) = self.v3 {
            if due {
                let next = if reached(t, n2) {
                    (t + q.interval) & T_MASK
                } else {
                    n2
                };
                write = Some((f, Entry { next, ..q }));
                out.out_valid = true;
                out.out_flow = f as u32;
                out.out_late_cycles = late;
            }
        }
        if self.up {
            let (f, iv, restart, due) = self.upd.expect("an update in its write cycle");
            let e = if iv == 0 {
                Entry {
                    active: false,
                    interval: 0,
                    next: rd.next,
                }
            } else {
                let join = restart || !rd.active;
                Entry {
                    active: true,
                    interval: iv,
                    next: if join { due } else { rd.next },
                }
            };
            write = Some((f, e));
        }
        // ---- the visit in its second cycle: due? lateness, next + interval
        let v3 = self.v2.map(|f| {
            let due = q.active && reached(t, q.next);
            let late = t.wrapping_sub(q.next) & ((1 << LATE_BITS) - 1);
            (f, due, late, (q.next + q.interval) & T_MASK)
        });
        // ---- the visit in its first cycle: its entry registered
        if self.v1.is_some() {
            self.q = rd;
        }

        // ---- the port: an op starts when the read port is free; an update
        // only with no visit in flight
        let want_upd = self.upd.is_some() && !self.fair;
        let free = !sweeping && !i.reset && self.v1.is_none() && !self.up;
        let start_upd = free && want_upd && self.v2.is_none() && self.v3.is_none();
        let start_vis = free && !want_upd;
        let addr = match self.upd {
            Some((f, ..)) if want_upd => f,
            _ => self.sc_ptr,
        };
        // the read at this edge sees the table before this edge's write
        self.rd = self.table[addr];
        if !i.reset {
            if let Some((f, e)) = write {
                self.table[f] = e;
            }
            if sweeping {
                self.table[self.sweep.ptr()] = Entry::default();
            }
        }

        // ---- the input register
        let take = i.in_valid && self.out.in_ready && !i.reset;
        let mut err = false;
        if self.up {
            self.upd = None;
        }
        if take {
            let f = (i.in_flow & 0xffff) as usize;
            if f >= n {
                err = true;
                self.stats.refused += 1;
            } else {
                let iv = i.in_interval_cycles & ((1 << INTERVAL_BITS) - 1);
                self.upd = Some((f, iv, i.in_restart, (t + iv) & T_MASK));
                self.stats.updates += 1;
            }
        }

        // ---- op registers
        self.v3 = v3;
        self.v2 = self.v1;
        self.up = start_upd;
        self.v1 = None;
        if start_upd {
            self.fair = true;
        }
        if start_vis {
            self.v1 = Some(self.sc_ptr);
            self.sc_ptr = (self.sc_ptr + 1) % n;
            self.fair = false;
            self.stats.visits += 1;
        }
        out.stat_err_flow_strobe = self.err;
        self.err = err;
        self.t = (t + 1) & T_MASK;
        if i.reset {
            self.t = 0;
            self.sc_ptr = 0;
            self.upd = None;
            self.fair = false;
            self.v1 = None;
            self.v2 = None;
            self.v3 = None;
            self.up = false;
            self.err = false;
            out = PtOutputs::default();
        }
        self.sweep.tick(i.reset, n);
        out.in_ready = !self.sweep.active() && self.upd.is_none();
        self.out = out;
    }
}

impl crate::cosim::CosimModel for PacingTimerSeqModel {
    type Input = PtInputs;
    type Output = PtOutputs;

    fn tick(&mut self, i: &PtInputs) {
        PacingTimerSeqModel::tick(self, i)
    }

    fn outputs(&self) -> PtOutputs {
        self.out
    }

    /// Idle cycles for a reset sweep (one per flow) to finish and an
    /// update in the input register to be written (the visit before it
    /// and its own cycles): the scanner keeps granting (grants are the
    /// block's output, not something in flight).
    fn drain(&self, _last: Option<&PtInputs>) -> Vec<PtInputs> {
        vec![PtInputs::default(); self.table.len() + 8]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        [
            ("an update in the input register", self.upd.is_some() as u64),
            (
                "reset sweep entries left",
                self.sweep.left(self.table.len()),
            ),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }
}
