//! The Fast CNP trigger of a congested WAN node (draft 001 §4.2.2,
//! COMPANION.md F9, G6-G9), one packet per clock beside the WRED/ECN
//! block: when WRED/ECN marks an ECT RoCEv2 packet CE, the trigger emits a
//! notification descriptor for its flow (the inner addresses swapped, the
//! queue pair, P_Key, UDP source port, and the END.CON SID to return to),
//! at most one per flow per configured interval.
//!
//! # The rule (G9)
//! - Only a packet WRED/ECN forwarded **marked** (its decision 1) is a
//!   candidate. A dropped packet never is: LDCP's fast start relies on the
//!   drops of Not-ECT packets, so a drop must stay silent.
//! - A candidate the parser could not take a Fast CNP from (G8: an SRH
//!   deeper than 8 segments, an inner packet that is not RoCEv2, a CNP) is
//!   counted as *unparsed*; it keeps its CE mark.
//! - Otherwise its flow (inner source, inner destination, DestQP) hashes
//!   to one of [`TABLE_ENTRIES`] slots holding the cycle the slot last sent
//!   a descriptor. The candidate is **sent** if the slot has not sent since
//!   the table was cleared or at least `cfg_interval_cycles` cycles ago
//!   (interval 0: every candidate is sent), and the slot records it;
//!   otherwise it is **suppressed**. Flows that hash to one slot share its
//!   limit (the table is hashed, as G9 chooses).
//! - Candidates are decided one after another in arrival order: two marked
//!   packets of one flow in consecutive cycles are decided as if apart.
//!
//! # Time
//! `now` counts cycles from the reset in 31 bits; ages are taken modulo
//! 2^31 (21.5 s at 100 MHz). A slot not written for a multiple of 2^31
//! cycles looks young again for one interval: one notification of such a
//! flow may be suppressed (it keeps its CE mark). Documented, not fixed: a
//! wider stamp would take a third block RAM.
//!
//! # Reset (the documented safe state)
//! A reset clears the counters and the packets in flight; then the table
//! is swept, one slot per clock ([`TABLE_ENTRIES`] cycles). A candidate
//! whose slot is read while the sweep runs (the read is at the edge after
//! the one that registers it) is not sent and is counted suppressed: after a reset the node never floods
//! descriptors.
//!
//! The hash ([`slot`]) folds each address to 32 bits, applies a fixed
//! binary matrix per field ([`SLOT_MASKS`]: each byte multiplied by its
//! own GF(2^8) element) and XORs the three 8-bit results: XOR trees in
//! hardware, no multiplier, no adder.

/// Address bits of the last-sent table.
pub const TABLE_BITS: u32 = 8;
/// Its slots.
pub const TABLE_ENTRIES: usize = 1 << TABLE_BITS;
/// Bits of a time stamp and of `now`.
pub const TIME_BITS: u32 = 31;
/// Bits of `cfg_interval_cycles` (up to 167 ms at 100 MHz).
pub const INTERVAL_BITS: u32 = 24;
/// The default interval at 100 MHz: 50 µs, the DCQCN paper's CNP interval
/// (G9). The register map holds the default (FC_INTERVAL's reset value);
/// the block takes a level.
pub const DEFAULT_INTERVAL_CYCLES: u32 = ldcp_regmap::FC_INTERVAL_RESET;
/// The WRED/ECN decision of a packet forwarded marked CE
/// (`wred_ecn::Decision::ForwardMarked`).
pub const DECISION_MARKED: u8 = crate::wred_ecn::Decision::ForwardMarked as u8;
/// Cycles from a packet on the inputs to its decision on the output
/// registers of `FastCnp` (`hdl/src/fast_cnp.rs`): the input registers
/// with the slot; the table's read; its word; the slot's age; the decision
/// (a design constant).
pub const FAST_CNP_LATENCY_CYCLES: usize = 5;
/// Cycles from a decision on the outputs to its count (a design constant).
pub const FAST_CNP_COUNTER_LATENCY_CYCLES: usize = 1;
/// Bits of each counter (they saturate at 2^32 - 1).
pub const FAST_CNP_COUNTER_BITS: usize = 32;

const TIME_MASK: u32 = (1 << TIME_BITS) - 1;

/// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1 (0x11D, in
/// which x, 2, is primitive).
pub const fn gf256_mul(a: u8, b: u8) -> u8 {
    let (mut a, mut b, mut r) = (a as u16, b, 0u16);
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a <<= 1;
        if a & 0x100 != 0 {
            a ^= 0x11d;
        }
        b >>= 1;
    }
    r as u8
}

/// The GF(2^8) element that byte `byte` of field `field` (source,
/// destination, DestQP) is multiplied by: x^(1 + 4 field + byte), twelve
/// distinct nonzero elements no three of which sum to zero (a test
/// checks it).
pub const fn slot_coefficient(field: usize, byte: usize) -> u8 {
    let mut c = 1u8;
    let mut e = 0;
    while e < 1 + 4 * field + byte {
        c = gf256_mul(c, 2);
        e += 1;
    }
    c
}

/// The matrices of the slot hash, one per field (source, destination,
/// DestQP): bit k of a field's hash is the parity of its 32-bit fold ANDed
/// with row k (a fixed binary matrix; a linear map is XOR trees in
/// hardware, the H3 family's shape). Each byte's 8x8 block is the matrix
/// of multiplying by that field-byte's own element of GF(2^8)
/// ([`slot_coefficient`]), so the hash is the sum of coefficient x byte
/// over the twelve bytes: one byte varying alone is a bijection (a
/// nonzero element), and so are two or three bytes stepping together, in
/// any fields and positions (their coefficients' sum is nonzero): host i
/// with QP 0x100 + i, or source and destination hosts stepping together,
/// take all 256 slots. (The first matrices were random rows with
/// unit-upper-triangular byte blocks: each byte alone was a bijection,
/// but two of them stepping together summed to a singular block, and
/// "host i, QP 0x100 + i" filled 64 slots.)
pub const SLOT_MASKS: [[u32; TABLE_BITS as usize]; 3] = {
    let mut m = [[0u32; TABLE_BITS as usize]; 3];
    let mut f = 0;
    while f < 3 {
        let mut byte = 0;
        while byte < 4 {
            let c = slot_coefficient(f, byte);
            let mut j = 0;
            while j < 8 {
                // the image of the byte's bit j
                let col = gf256_mul(c, 1 << j);
                let mut k = 0;
                while k < TABLE_BITS as usize {
                    if col >> k & 1 != 0 {
                        m[f][k] |= 1 << (8 * byte + j);
                    }
                    k += 1;
                }
                j += 1;
            }
            byte += 1;
        }
        f += 1;
    }
    m
};

/// An address's 32-bit fold: the XOR of its four words (an IPv4 address
/// is its low word).
pub fn fold(a: u128) -> u32 {
    (0..4).fold(0u32, |f, k| f ^ (a >> (32 * k)) as u32)
}

/// One field's hash: bit k is the parity of `x` ANDed with row k.
pub fn h3(x: u32, rows: &[u32; TABLE_BITS as usize]) -> u8 {
    rows.iter()
        .enumerate()
        .fold(0, |h, (k, r)| h | (((x & r).count_ones() & 1) as u8) << k)
}

/// A flow's slot (inner source, inner destination, DestQP; IPv4
/// addresses in their low 32 bits): the XOR of the three fields'
/// hashes. A first design XORed the folds before one H3: a source and a
/// QPN that step together (host i with QP 0x100 + i) cancelled and all
/// fell into one slot; hashing each field on its own keeps each field's
/// byte-bijection. (A sum instead of the XOR spread them better but put
/// two adders between the inputs and the RAM's address: 77 MHz.)
pub fn slot(src: u128, dst: u128, dest_qp: u32) -> usize {
    let [ms, md, mq] = &SLOT_MASKS;
    (h3(fold(src), ms) ^ h3(fold(dst), md) ^ h3(dest_qp & 0xff_ffff, mq)) as usize
}

crate::ports! {
    callback fast_cnp_ports;
    /// One cycle of the trigger's inputs: a packet's WRED/ECN decision,
    /// whether the parser found a RoCEv2 data packet (G8), and the fields
    /// of its descriptor; the interval.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct FastCnpInputs {
        /// Synchronous reset: the packets in flight dropped, the counters zeroed, the table swept.
        reset: bool = 1,
        /// A packet this cycle (one per clock, no back-pressure).
        in_valid: bool = 1,
        /// Its WRED/ECN decision (0 forward, 1 forward marked CE, 2 and 3 drops): only 1 is a candidate.
        in_decision: u8 = 2,
        /// The parser found an inner RoCEv2 data packet within G8's depth (a Fast CNP can be built).
        in_parsed: bool = 1,
        /// Inner source address, bits 127..64 (IPv4: 0; the slot's key).
        in_src_hi: u64 = 64,
        /// Inner source address, bits 63..0.
        in_src_lo: u64 = 64,
        /// Inner destination address, bits 127..64 (the slot's key).
        in_dst_hi: u64 = 64,
        /// Inner destination address, bits 63..0.
        in_dst_lo: u64 = 64,
        /// The BTH's DestQP (the slot's key).
        in_dest_qp: u32 = 24,
        /// The descriptor of the packet presented DESCRIPTOR_DELAY_CYCLES (4) cycles ago, as the switch's pipeline carries it to the decision: its inner packet is IPv6 (else IPv4, addresses in their low 32 bits).
        dsc_ipv6: bool = 1,
        /// That packet's inner source address, bits 127..64.
        dsc_src_hi: u64 = 64,
        /// Its inner source address, bits 63..0.
        dsc_src_lo: u64 = 64,
        /// Its inner destination address, bits 127..64.
        dsc_dst_hi: u64 = 64,
        /// Its inner destination address, bits 63..0.
        dsc_dst_lo: u64 = 64,
        /// Its outer source (the ingress PE's END.CON SID), bits 127..64.
        dsc_end_con_hi: u64 = 64,
        /// Its outer source, bits 63..0.
        dsc_end_con_lo: u64 = 64,
        /// Its BTH's DestQP.
        dsc_dest_qp: u32 = 24,
        /// Its BTH's P_Key.
        dsc_pkey: u16 = 16,
        /// Its inner UDP source port.
        dsc_udp_src: u16 = 16,
        /// The per-flow minimum interval between descriptors, cycles (a level; 0 = no limit).
        cfg_interval_cycles: u32 = INTERVAL_BITS,
    }
    /// The registered outputs: a decision per packet, the descriptor's
    /// fields (the `dsc_*` inputs at the decision's edge, swapped;
    /// meaningful when `out_emit`), the counters.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct FastCnpOutputs {
        /// A packet's decision.
        out_valid: bool = 1,
        /// Send a Fast CNP with the descriptor below.
        out_emit: bool = 1,
        /// A candidate not sent: rate-limited, or decided during the reset sweep.
        out_suppressed: bool = 1,
        /// A candidate without a parsable RoCEv2 inner packet (G8): no Fast CNP, its CE mark only.
        out_unparsed: bool = 1,
        /// The CNP is IPv6.
        out_ipv6: bool = 1,
        /// The CNP's source (the data packet's inner destination), bits 127..64.
        out_cnp_src_hi: u64 = 64,
        /// The CNP's source, bits 63..0.
        out_cnp_src_lo: u64 = 64,
        /// The CNP's destination (the data packet's inner source), bits 127..64.
        out_cnp_dst_hi: u64 = 64,
        /// The CNP's destination, bits 63..0.
        out_cnp_dst_lo: u64 = 64,
        /// The END.CON SID the Fast CNP is sent to, bits 127..64.
        out_end_con_hi: u64 = 64,
        /// The END.CON SID, bits 63..0.
        out_end_con_lo: u64 = 64,
        /// DestQP (the data packet's: G7).
        out_dest_qp: u32 = 24,
        /// P_Key.
        out_pkey: u16 = 16,
        /// UDP source port.
        out_udp_src: u16 = 16,
        /// Candidates: packets forwarded marked CE (saturating).
        stat_marked_pkts: u32 = FAST_CNP_COUNTER_BITS as u32,
        /// Descriptors emitted (saturating).
        stat_sent_pkts: u32 = FAST_CNP_COUNTER_BITS as u32,
        /// Candidates suppressed (saturating).
        stat_suppressed_pkts: u32 = FAST_CNP_COUNTER_BITS as u32,
        /// Candidates without a parsable RoCEv2 inner packet (saturating).
        stat_unparsed_pkts: u32 = FAST_CNP_COUNTER_BITS as u32,
        /// The table's reset sweep is over: candidates can be sent.
        stat_table_ready: bool = 1,
    }
}

/// A packet's control bits on their way through the pipeline.
#[derive(Clone, Copy, Debug, Default)]
struct Stage {
    cand: bool,
    parsed: bool,
    slot: usize,
    /// It arrived (its slot was read) while the table was being swept.
    not_ready: bool,
    /// `now` in the cycle its age is taken (stage 3).
    stamp: u32,
}

/// Cycles from a packet on the `in_*` inputs to its descriptor on the
/// `dsc_*` inputs: the edge its decision is registered at (a design
/// constant). The trigger keeps only the slot's key and control bits in
/// its pipeline; the descriptor's 441 bits travel in the switch's own
/// packet pipeline, which carries the packet's fields anyway, and meet
/// the decision there (three copies of them inside the block were most of
/// its cells).
pub const DESCRIPTOR_DELAY_CYCLES: usize = FAST_CNP_LATENCY_CYCLES - 1;

/// One packet's descriptor fields (the `dsc_*` inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// The inner packet is IPv6.
    pub ipv6: bool,
    /// Inner source address (IPv4 in the low 32 bits).
    pub src: u128,
    /// Inner destination address.
    pub dst: u128,
    /// The outer source, the ingress PE's END.CON SID.
    pub end_con: u128,
    /// DestQP.
    pub dest_qp: u32,
    /// P_Key.
    pub pkey: u16,
    /// Inner UDP source port.
    pub udp_src: u16,
}

impl FastCnpInputs {
    /// These inputs with `d` on the `dsc_*` ports.
    pub fn with_descriptor(self, d: &Descriptor) -> Self {
        FastCnpInputs {
            dsc_ipv6: d.ipv6,
            dsc_src_hi: (d.src >> 64) as u64,
            dsc_src_lo: d.src as u64,
            dsc_dst_hi: (d.dst >> 64) as u64,
            dsc_dst_lo: d.dst as u64,
            dsc_end_con_hi: (d.end_con >> 64) as u64,
            dsc_end_con_lo: d.end_con as u64,
            dsc_dest_qp: d.dest_qp,
            dsc_pkey: d.pkey,
            dsc_udp_src: d.udp_src,
            ..self
        }
    }

    /// The slot's key fields of `d` on the `in_*` ports.
    pub fn with_key(self, d: &Descriptor) -> Self {
        FastCnpInputs {
            in_src_hi: (d.src >> 64) as u64,
            in_src_lo: d.src as u64,
            in_dst_hi: (d.dst >> 64) as u64,
            in_dst_lo: d.dst as u64,
            in_dest_qp: d.dest_qp,
            ..self
        }
    }
}

/// A stream of packets as the switch presents them: each cycle's inputs
/// carry its packet's key (`in_*`) and the descriptor of the packet
/// [`DESCRIPTOR_DELAY_CYCLES`] cycles earlier (`dsc_*`; zero before).
pub fn aligned(packets: &[(FastCnpInputs, Descriptor)]) -> Vec<FastCnpInputs> {
    (0..packets.len())
        .map(|t| {
            let d = t
                .checked_sub(DESCRIPTOR_DELAY_CYCLES)
                .map_or(Descriptor::default(), |k| packets[k].1);
            packets[t].0.with_key(&packets[t].1).with_descriptor(&d)
        })
        .collect()
}

/// The last-sent table and its rule, decisions applied one after another
/// in arrival order: the one statement of it, which the cycle model below
/// and the network simulator (`ldcp-netsim`'s P nodes) both use.
#[derive(Clone, Debug)]
pub struct LastSent {
    /// Per slot: the stamp of its last descriptor, `None` if none since
    /// the last sweep.
    table: Vec<Option<u32>>,
}

impl Default for LastSent {
    fn default() -> Self {
        LastSent {
            table: vec![None; TABLE_ENTRIES],
        }
    }
}

impl LastSent {
    /// An empty table (block RAM powers up zero).
    pub fn new() -> Self {
        Self::default()
    }

    /// A candidate of `slot` at `stamp` (cycles modulo 2^31) under
    /// `interval` cycles: sent (`true`, the slot records `stamp`) if the
    /// slot has not sent since it was cleared or sent at least `interval`
    /// cycles ago, else suppressed (`false`).
    pub fn offer(&mut self, slot: usize, stamp: u32, interval: u32) -> bool {
        let send = match self.table[slot] {
            None => true,
            Some(t) => (stamp.wrapping_sub(t) & TIME_MASK) >= interval,
        };
        if send {
            self.table[slot] = Some(stamp & TIME_MASK);
        }
        send
    }

    /// Clears one slot (the sweep's step).
    pub fn clear(&mut self, slot: usize) {
        self.table[slot] = None;
    }
}

/// The four counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FastCnpCounters {
    /// Candidates.
    pub marked: u32,
    /// Sent.
    pub sent: u32,
    /// Suppressed.
    pub suppressed: u32,
    /// Unparsed.
    pub unparsed: u32,
}

/// The cycle model of `FastCnp`: the table as decisions applied one after
/// another in arrival order (the RTL's three write bypasses make its
/// pipelined reads equal to that), the sweep, the four stages before the
/// decision, the field registers, the registered interval, the counters.
#[derive(Clone, Debug)]
pub struct FastCnpModel {
    now: u32,
    table: LastSent,
    sweep: crate::Sweep,
    /// Stages 0-3: the input registers with the slot, the slot read (at
    /// their edge), the RAM's word, the age taken.
    stages: [Option<Stage>; FAST_CNP_LATENCY_CYCLES - 1],
    /// The interval of the last two cycles' inputs, the newest first
    /// (the decision takes the older: the RTL tests the age a cycle
    /// before it decides).
    interval: [u32; 2],
    out: FastCnpOutputs,
    counts: FastCnpCounters,
}

impl Default for FastCnpModel {
    fn default() -> Self {
        FastCnpModel {
            now: 0,
            table: LastSent::new(),
            sweep: crate::Sweep::default(),
            stages: [None; FAST_CNP_LATENCY_CYCLES - 1],
            interval: [0; 2],
            out: FastCnpOutputs::default(),
            counts: FastCnpCounters::default(),
        }
    }
}

impl FastCnpModel {
    /// The block at power-up: the table empty (block RAM powers up zero),
    /// no sweep to run.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs after the last edge.
    pub fn outputs(&self) -> FastCnpOutputs {
        let c = self.counts;
        FastCnpOutputs {
            stat_marked_pkts: c.marked,
            stat_sent_pkts: c.sent,
            stat_suppressed_pkts: c.suppressed,
            stat_unparsed_pkts: c.unparsed,
            stat_table_ready: !self.sweep.active(),
            ..self.out
        }
    }

    /// Loads the counters (a test reaches saturation without 2^32 packets).
    pub fn preset_counters(&mut self, c: FastCnpCounters) {
        self.counts = c;
    }

    /// The decision of the packet in stage 3: (emit, suppressed, unparsed),
    /// the table written when it emits.
    fn decide(&mut self, s: Option<Stage>) -> (bool, bool, bool) {
        let Some(s) = s.filter(|s| s.cand) else {
            return (false, false, false);
        };
        if !s.parsed {
            return (false, false, true);
        }
        if s.not_ready {
            return (false, true, false);
        }
        let send = self.table.offer(s.slot, s.stamp, self.interval[1]);
        (send, !send, false)
    }

    /// One rising edge.
    pub fn tick(&mut self, i: &FastCnpInputs) {
        let sat = |x: &mut u32, on: bool| *x = x.saturating_add(on as u32);
        if i.reset {
            self.counts = FastCnpCounters::default();
            self.out = FastCnpOutputs::default();
            self.stages = [None; FAST_CNP_LATENCY_CYCLES - 1];
        } else {
            // the counters count what the outputs show
            let o = self.out;
            let c = &mut self.counts;
            sat(
                &mut c.marked,
                o.out_emit || o.out_suppressed || o.out_unparsed,
            );
            sat(&mut c.sent, o.out_emit);
            sat(&mut c.suppressed, o.out_suppressed);
            sat(&mut c.unparsed, o.out_unparsed);
            // stage 3's decision onto the output registers
            let last = self.stages[FAST_CNP_LATENCY_CYCLES - 2];
            let (emit, suppressed, unparsed) = self.decide(last);
            // the descriptor: the pipeline's fields at this edge, swapped
            let f = i;
            self.out = FastCnpOutputs {
                out_valid: last.is_some(),
                out_emit: emit,
                out_suppressed: suppressed,
                out_unparsed: unparsed,
                out_ipv6: f.dsc_ipv6,
                out_cnp_src_hi: f.dsc_dst_hi,
                out_cnp_src_lo: f.dsc_dst_lo,
                out_cnp_dst_hi: f.dsc_src_hi,
                out_cnp_dst_lo: f.dsc_src_lo,
                out_end_con_hi: f.dsc_end_con_hi,
                out_end_con_lo: f.dsc_end_con_lo,
                out_dest_qp: f.dsc_dest_qp,
                out_pkey: f.dsc_pkey,
                out_udp_src: f.dsc_udp_src,
                ..Default::default()
            };
            // stage 2 -> 3: the age is taken in this cycle's `now`
            let now = self.now;
            let s3 = self.stages[2].map(|s| Stage { stamp: now, ..s });
            let s2 = self.stages[1];
            // the read is issued at this edge: not ready while sweeping
            let sweeping = self.sweep.active();
            let s1 = self.stages[0].map(|s| Stage {
                not_ready: sweeping,
                ..s
            });
            let s0 = i.in_valid.then(|| Stage {
                cand: i.in_decision == DECISION_MARKED,
                parsed: i.in_parsed,
                slot: slot(
                    (i.in_src_hi as u128) << 64 | i.in_src_lo as u128,
                    (i.in_dst_hi as u128) << 64 | i.in_dst_lo as u128,
                    i.in_dest_qp,
                ),
                ..Stage::default()
            });
            self.stages = [s0, s1, s2, s3];
        }
        // the sweep: a reset (re)starts it; each other edge clears one slot
        if !i.reset && self.sweep.active() {
            self.table.clear(self.sweep.ptr());
        }
        self.sweep.tick(i.reset, TABLE_ENTRIES);
        self.interval = [
            i.cfg_interval_cycles & ((1 << INTERVAL_BITS) - 1),
            self.interval[0],
        ];
        self.now = if i.reset {
            0
        } else {
            (self.now + 1) & TIME_MASK
        };
    }
}

impl crate::cosim::CosimModel for FastCnpModel {
    type Input = FastCnpInputs;
    type Output = FastCnpOutputs;

    fn tick(&mut self, i: &FastCnpInputs) {
        FastCnpModel::tick(self, i)
    }

    fn outputs(&self) -> FastCnpOutputs {
        FastCnpModel::outputs(self)
    }

    /// Idle cycles until every decision is out and counted, the interval
    /// held at its last level (it is a register's level, not an event).
    fn drain(&self, last: Option<&FastCnpInputs>) -> Vec<FastCnpInputs> {
        let idle = FastCnpInputs {
            cfg_interval_cycles: last.map_or(0, |i| i.cfg_interval_cycles),
            ..FastCnpInputs::default()
        };
        vec![idle; FAST_CNP_LATENCY_CYCLES + FAST_CNP_COUNTER_LATENCY_CYCLES]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        let n =
            self.stages.iter().filter(|s| s.is_some()).count() as u64 + self.out.out_valid as u64;
        if n == 0 {
            vec![]
        } else {
            vec![("packets in the Fast CNP trigger", n)]
        }
    }
}

/// A handful of flows, so that slots are revisited within an interval.
const STIM_FLOWS: u64 = 24;

/// The stimulus: packets most cycles from a few flows (IPv4 and IPv6),
/// every WRED decision with marks common, a few unparsed; intervals from
/// 0 (no limit) through 1 and 2 (the bypass cases) to longer than the
/// case; resets now and then (some while the sweep runs).
#[derive(Clone, Debug, Default)]
pub struct FastCnpStimulus {
    interval: u32,
    /// The descriptors of the last packets, newest first (the switch's
    /// pipeline: the oldest is on `dsc_*`).
    pipe: [Descriptor; DESCRIPTOR_DELAY_CYCLES],
}

impl crate::Stimulus for FastCnpStimulus {
    type Input = FastCnpInputs;

    fn cycle(&mut self, d: &mut crate::Draws) -> FastCnpInputs {
        let x = d.next_u64();
        let y = d.next_u64();
        if x.is_multiple_of(512) {
            self.interval = [0, 1, 2, 3, 7, 40, 300, 5_000, 0xff_ffff][(y % 9) as usize];
        }
        let flow = (y >> 8) % STIM_FLOWS;
        let ipv6 = flow.is_multiple_of(3);
        let a = |salt: u64| -> u128 {
            let v = (flow.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt).rotate_left(17);
            if ipv6 {
                ((0x2001_0db8_0000_0000 | v >> 40) as u128) << 64 | v as u128
            } else {
                (0x0a00_0000 | (v & 0xff_ffff)) as u128
            }
        };
        let desc = Descriptor {
            ipv6,
            src: a(1),
            dst: a(2),
            end_con: ((0x2001_0db8_00c0_0000 | (flow & 3)) as u128) << 64 | 0xc001,
            dest_qp: (flow as u32 * 0x1_0101) & 0xff_ffff,
            pkey: 0xffff,
            udp_src: 0xc000 | flow as u16,
        };
        let late = self.pipe[DESCRIPTOR_DELAY_CYCLES - 1];
        self.pipe.rotate_right(1);
        self.pipe[0] = desc;
        FastCnpInputs {
            reset: x % 4_000 == 1,
            in_valid: !(x >> 12).is_multiple_of(6),
            in_decision: [1u8, 1, 1, 0, 2, 3, 1, 0][((x >> 16) & 7) as usize],
            in_parsed: !(x >> 20).is_multiple_of(10),
            cfg_interval_cycles: self.interval,
            ..Default::default()
        }
        .with_key(&desc)
        .with_descriptor(&late)
    }
}

/// A seeded stream of the block's inputs.
pub fn fast_cnp_stimulus(seed: u64) -> impl Iterator<Item = FastCnpInputs> + Clone {
    crate::seeded(FastCnpStimulus::default(), seed ^ 0xFA57_C000_0000_0001)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(src: u32, qp: u32) -> FastCnpInputs {
        FastCnpInputs {
            in_valid: true,
            in_decision: DECISION_MARKED,
            in_parsed: true,
            in_src_lo: src as u64,
            in_dst_lo: 0x0a00_0002,
            in_dest_qp: qp,
            cfg_interval_cycles: 10,
            ..Default::default()
        }
    }

    fn run(m: &mut FastCnpModel, stim: &[FastCnpInputs]) -> Vec<FastCnpOutputs> {
        let mut out = vec![];
        let idle = FastCnpInputs {
            cfg_interval_cycles: stim.last().map_or(10, |i| i.cfg_interval_cycles),
            ..Default::default()
        };
        for i in stim
            .iter()
            .chain(&[idle; FAST_CNP_LATENCY_CYCLES + FAST_CNP_COUNTER_LATENCY_CYCLES])
        {
            m.tick(i);
            if m.outputs().out_valid {
                out.push(m.outputs());
            }
        }
        out
    }

    /// One flow marked every cycle with interval 10: a descriptor every
    /// 10th packet, the rest suppressed; the descriptor's addresses
    /// swapped; every candidate counted once.
    #[test]
    fn one_flow_is_limited_to_one_descriptor_per_interval() {
        let mut m = FastCnpModel::new();
        // the switch's pipeline brings each packet's descriptor 4 cycles on
        let d = Descriptor {
            src: 0x0a00_0001,
            dst: 0x0a00_0002,
            dest_qp: 7,
            ..Descriptor::default()
        };
        let idle = FastCnpInputs {
            cfg_interval_cycles: 10,
            ..Default::default()
        };
        let mut pkts = vec![(marked(0x0a00_0001, 7), d); 35];
        pkts.extend([(idle, Descriptor::default()); DESCRIPTOR_DELAY_CYCLES]);
        let stim = aligned(&pkts);
        let out = run(&mut m, &stim);
        let sent: Vec<usize> = (0..out.len()).filter(|&k| out[k].out_emit).collect();
        assert_eq!(sent, vec![0, 10, 20, 30]);
        for k in &sent {
            assert_eq!(out[*k].out_cnp_src_lo, 0x0a00_0002);
            assert_eq!(out[*k].out_cnp_dst_lo, 0x0a00_0001);
            assert_eq!(out[*k].out_dest_qp, 7);
        }
        let o = m.outputs();
        assert_eq!(
            (o.stat_marked_pkts, o.stat_sent_pkts, o.stat_suppressed_pkts),
            (35, 4, 31)
        );
    }

    /// Drops and unmarked packets are never candidates; unparsed marks are
    /// counted apart; interval 0 sends every candidate.
    #[test]
    fn only_marked_parsed_packets_trigger() {
        let mut m = FastCnpModel::new();
        let mut stim = vec![];
        for d in 0..4u8 {
            stim.push(FastCnpInputs {
                in_decision: d,
                cfg_interval_cycles: 0,
                ..marked(1, 1)
            });
        }
        stim.push(FastCnpInputs {
            in_parsed: false,
            cfg_interval_cycles: 0,
            ..marked(1, 1)
        });
        stim.push(FastCnpInputs {
            cfg_interval_cycles: 0,
            ..marked(1, 1)
        });
        let out = run(&mut m, &stim);
        let flags: Vec<(bool, bool, bool)> = out
            .iter()
            .map(|o| (o.out_emit, o.out_suppressed, o.out_unparsed))
            .collect();
        let n = (false, false, false);
        assert_eq!(
            flags,
            vec![
                n,
                (true, false, false),
                n,
                n,
                (false, false, true),
                (true, false, false)
            ]
        );
        let o = m.outputs();
        assert_eq!(
            (o.stat_marked_pkts, o.stat_sent_pkts, o.stat_unparsed_pkts),
            (3, 2, 1)
        );
    }

    /// After a reset the sweep runs for TABLE_ENTRIES cycles: candidates
    /// whose read falls in it are suppressed, then the table is empty.
    #[test]
    fn reset_sweeps_then_the_table_is_empty() {
        let mut m = FastCnpModel::new();
        run(&mut m, &[marked(5, 5)]);
        let mut stim = vec![FastCnpInputs {
            reset: true,
            ..Default::default()
        }];
        stim.extend(vec![marked(5, 5); TABLE_ENTRIES + 3]);
        let out = run(&mut m, &stim);
        let first = out.iter().position(|o| o.out_emit).unwrap();
        assert!(out[..first].iter().all(|o| o.out_suppressed));
        // a packet's slot is read an edge after it arrives (its input
        // registers hold the slot): the first read after the sweep's
        // TABLE_ENTRIES edges is the packet before
        assert_eq!(
            first,
            TABLE_ENTRIES - 1,
            "the first packet read after the sweep"
        );
        assert!(m.outputs().stat_table_ready);
    }

    /// The counters saturate at 2^32 - 1 instead of wrapping.
    #[test]
    fn counters_saturate() {
        let mut m = FastCnpModel::new();
        let near = u32::MAX - 1;
        m.preset_counters(FastCnpCounters {
            marked: near,
            sent: near,
            suppressed: near,
            unparsed: near,
        });
        let mut stim = vec![marked(3, 3); 12];
        stim.push(FastCnpInputs {
            in_parsed: false,
            ..marked(3, 3)
        });
        stim.push(stim[12]);
        run(&mut m, &stim);
        let o = m.outputs();
        assert_eq!(
            (
                o.stat_marked_pkts,
                o.stat_sent_pkts,
                o.stat_suppressed_pkts,
                o.stat_unparsed_pkts
            ),
            (u32::MAX, u32::MAX, u32::MAX, u32::MAX)
        );
    }

    /// Stamps age modulo 2^31.
    #[test]
    fn ages_wrap_modulo_2_pow_31() {
        let mut m = FastCnpModel::new();
        m.now = TIME_MASK - 3;
        let out = run(&mut m, &[marked(9, 9)]);
        assert!(out[0].out_emit);
        // 6 cycles later (the first run's drain), across the wrap
        let out = run(&mut m, &[marked(9, 9)]);
        assert!(out[0].out_suppressed);
        assert!(m.now < 16, "now wrapped: {}", m.now);
    }

    /// Structured keys spread: keys differing in one byte (one host's 256
    /// QPs, 256 IPv6 hosts with one QP), and keys with two or three bytes
    /// stepping together (host i with QP 0x100 + i; source and
    /// destination hosts i; all three) take all 256 slots. (Random keys
    /// would fill 162 on average; the first matrices filled 64 with "host
    /// i, QP 0x100 + i", the first design, which XORed the folds, 1.)
    #[test]
    fn the_slot_hash_spreads_structured_flows() {
        type Key = (u128, u128, u32);
        type Family = (&'static str, fn(u32) -> Key);
        let families: [Family; 5] = [
            ("host i, QP 0x100 + i", |i| {
                (0x0a00_0001 | (i as u128) << 8, 0x0a63_0001, 0x100 + i)
            }),
            ("one host, QP i", |i| (0x0a00_0001, 0x0a63_0001, i)),
            ("IPv6 host i, one QP", |i| {
                (
                    0x2001_0db8u128 << 96 | i as u128,
                    0x2001_0db8u128 << 96 | 1 << 64,
                    7,
                )
            }),
            ("hosts i to i", |i| {
                (0x0a00_0000 | i as u128, 0x0a01_0000 | i as u128, 9)
            }),
            ("hosts i to i, QP i", |i| {
                (
                    0x0a00_0000 | i as u128,
                    0x0b00_0000 | (i as u128) << 16,
                    i << 8,
                )
            }),
        ];
        for (name, key) in families {
            let used: std::collections::HashSet<usize> = (0..256)
                .map(|i| {
                    let (s, d, q) = key(i);
                    slot(s, d, q)
                })
                .collect();
            assert_eq!(used.len(), 256, "{name}");
        }
    }

    /// The coefficients: twelve distinct nonzero elements, no three summing
    /// to zero (so any one, two or three bytes stepping together are a
    /// bijection), and each field-byte's block is its multiplication.
    #[test]
    fn the_slot_coefficients_keep_sums_invertible() {
        let c: Vec<u8> = (0..3)
            .flat_map(|f| (0..4).map(move |b| slot_coefficient(f, b)))
            .collect();
        let distinct: std::collections::HashSet<u8> = c.iter().copied().collect();
        assert!(distinct.len() == 12 && !distinct.contains(&0));
        for a in 0..12 {
            for b in a + 1..12 {
                for d in b + 1..12 {
                    assert_ne!(c[a] ^ c[b] ^ c[d], 0, "{a} {b} {d}");
                }
            }
        }
        // the matrix of one block applied to a byte is the product
        for v in [1u8, 2, 0x53, 0xff] {
            let x = (v as u32) << 16; // the source's byte 2
            assert_eq!(h3(x, &SLOT_MASKS[0]), gf256_mul(slot_coefficient(0, 2), v));
        }
        assert_eq!(gf256_mul(0x80, 2), 0x1d);
    }
}
