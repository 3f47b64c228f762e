//! `FastCnp`: the Fast CNP trigger of a congested WAN node (draft 001
//! §4.2.2, COMPANION.md F9, G6-G9), one packet per clock beside WRED/ECN:
//! a packet WRED/ECN forwards marked CE emits a notification descriptor
//! for its flow, at most one per flow (hashed slot) per configured
//! interval; suppressed and unparsable candidates are counted.
//!
//! The rule, the hash and the reset behaviour are in
//! `ldcp_sim::fast_cnp` (its module doc); `FastCnpModel` mirrors every
//! output and cosimulation compares them every cycle.
//!
//! # Timing (design constants)
//! - One packet per clock, no back-pressure; a packet presented in cycle t
//!   (its slot's key on `in_*`) has its decision on the output registers
//!   in cycle t + 5 (`FAST_CNP_LATENCY_CYCLES`), with the descriptor the
//!   `dsc_*` inputs held in cycle t + 4; its count one cycle later.
//! - After a reset the table is swept for 256 cycles (`stat_table_ready`
//!   low); candidates whose read falls in the sweep are suppressed.
//!
//! # Pipeline
//! ```text
//! s0  the slot from the inputs: each address folded to 32 bits, each
//!     field's hash (eight XOR trees: its bytes times GF(2^8) elements),
//!     their XOR; registered with the control bits (the XOR trees into the
//!     RAM's read address in one cycle closed the switch-port bitstream at
//!     85.6-93.8 MHz over eight seeds)
//! s1  the RAM reads the registered slot at this edge; the control bits
//! s2  the RAM's word (sent bit, 31-bit stamp), registered, and the
//!     slot's age at s3 (now + 1 - stamp), registered
//! s3  age >= interval (the age's top 7 bits, or its low 24 against the
//!     interval: one 24-bit chain); registered with now (the stamp a send
//!     writes)
//!     with, registered a cycle ahead of the decision, whether the packet
//!     deciding now (its write is the next cycle's age-1 bypass) and the
//!     last two edges' writes (ages 2 and 3) are to this slot, and whether
//!     the interval is <= 1, <= 2 or <= 3
//! o   decision: the slot's state is, newest first, the write of the last
//!     edge (age 1), of the two before (ages 2 and 3: the RAM read at the
//!     third edge back saw the old word), or the RAM's word; sent iff never sent or
//!     age >= interval (from s3); the RAM written (sent bit, stamp); the
//!     outputs
//! c   the four saturating counters count what the outputs show
//! ```
//! The descriptor's fields do not travel through this pipeline: the
//! switch's packet pipeline carries the packet's fields anyway and
//! presents them on the `dsc_*` inputs at the decision's edge, 4 cycles
//! after the packet's `in_*` (`ldcp_sim::fast_cnp::DESCRIPTOR_DELAY_CYCLES`),
//! into the output registers. Three stages of the 441 bits inside the
//! block were most of its first design's 2,597 cells.

use ldcp_sim::fast_cnp::{
    DECISION_MARKED, FAST_CNP_COUNTER_BITS, FAST_CNP_COUNTER_LATENCY_CYCLES,
    FAST_CNP_LATENCY_CYCLES, INTERVAL_BITS, SLOT_MASKS, TABLE_BITS, TIME_BITS,
};
use rust_hdl::prelude::*;

const _: () = assert!(FAST_CNP_LATENCY_CYCLES == 5 && FAST_CNP_COUNTER_LATENCY_CYCLES == 1);
const _: () = assert!(ldcp_sim::fast_cnp::DESCRIPTOR_DELAY_CYCLES == 4);
// literals in the update below: the marked decision is 1, the table 256
// slots of 32-bit words (sent bit 31, stamp 30..0), the interval 24 bits
const _: () = assert!(DECISION_MARKED == 1 && TABLE_BITS == 8 && TIME_BITS == 31);
const _: () = assert!(INTERVAL_BITS == 24 && SLOT_MASKS.len() == 3 && SLOT_MASKS[0].len() == 8);
const CB: usize = FAST_CNP_COUNTER_BITS;

/// The module.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "fast_cnp",
    doc: "the Fast CNP trigger of a congested node (draft-hu-rtgwg-rocev2-fcn-00 §4.2.2, COMPANION.md G6-G9): a descriptor for each packet WRED/ECN marks CE, at most one per hashed flow slot per interval, one packet per clock",
    open: &[],
    subs: &[],
};

/// The block's Verilog (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, FastCnp::default())
}

/// See the module doc.
#[derive(LogicBlock)]
pub struct FastCnp {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A packet.
    pub in_valid: Signal<In, Bit>,
    /// Its WRED/ECN decision.
    pub in_decision: Signal<In, Bits<2>>,
    /// A Fast CNP can be built from it.
    pub in_parsed: Signal<In, Bit>,
    /// Inner source, high half (the slot's key).
    pub in_src_hi: Signal<In, Bits<64>>,
    /// Inner source, low half.
    pub in_src_lo: Signal<In, Bits<64>>,
    /// Inner destination, high half (the slot's key).
    pub in_dst_hi: Signal<In, Bits<64>>,
    /// Inner destination, low half.
    pub in_dst_lo: Signal<In, Bits<64>>,
    /// DestQP (the slot's key).
    pub in_dest_qp: Signal<In, Bits<24>>,
    /// The descriptor of the packet 4 cycles back: its inner packet is IPv6.
    pub dsc_ipv6: Signal<In, Bit>,
    /// Its inner source, high half.
    pub dsc_src_hi: Signal<In, Bits<64>>,
    /// Its inner source, low half.
    pub dsc_src_lo: Signal<In, Bits<64>>,
    /// Its inner destination, high half.
    pub dsc_dst_hi: Signal<In, Bits<64>>,
    /// Its inner destination, low half.
    pub dsc_dst_lo: Signal<In, Bits<64>>,
    /// Its END.CON, high half.
    pub dsc_end_con_hi: Signal<In, Bits<64>>,
    /// Its END.CON, low half.
    pub dsc_end_con_lo: Signal<In, Bits<64>>,
    /// Its DestQP.
    pub dsc_dest_qp: Signal<In, Bits<24>>,
    /// Its P_Key.
    pub dsc_pkey: Signal<In, Bits<16>>,
    /// Its UDP source port.
    pub dsc_udp_src: Signal<In, Bits<16>>,
    /// The interval, cycles.
    pub cfg_interval_cycles: Signal<In, Bits<24>>,
    /// A decision.
    pub out_valid: Signal<Out, Bit>,
    /// Emit a Fast CNP.
    pub out_emit: Signal<Out, Bit>,
    /// A candidate suppressed.
    pub out_suppressed: Signal<Out, Bit>,
    /// A candidate unparsed.
    pub out_unparsed: Signal<Out, Bit>,
    /// The CNP is IPv6.
    pub out_ipv6: Signal<Out, Bit>,
    /// CNP source, high half.
    pub out_cnp_src_hi: Signal<Out, Bits<64>>,
    /// CNP source, low half.
    pub out_cnp_src_lo: Signal<Out, Bits<64>>,
    /// CNP destination, high half.
    pub out_cnp_dst_hi: Signal<Out, Bits<64>>,
    /// CNP destination, low half.
    pub out_cnp_dst_lo: Signal<Out, Bits<64>>,
    /// END.CON, high half.
    pub out_end_con_hi: Signal<Out, Bits<64>>,
    /// END.CON, low half.
    pub out_end_con_lo: Signal<Out, Bits<64>>,
    /// DestQP.
    pub out_dest_qp: Signal<Out, Bits<24>>,
    /// P_Key.
    pub out_pkey: Signal<Out, Bits<16>>,
    /// UDP source port.
    pub out_udp_src: Signal<Out, Bits<16>>,
    /// Candidates.
    pub stat_marked_pkts: Signal<Out, Bits<CB>>,
    /// Sent.
    pub stat_sent_pkts: Signal<Out, Bits<CB>>,
    /// Suppressed.
    pub stat_suppressed_pkts: Signal<Out, Bits<CB>>,
    /// Unparsed.
    pub stat_unparsed_pkts: Signal<Out, Bits<CB>>,
    /// The sweep is over.
    pub stat_table_ready: Signal<Out, Bit>,
    last_sent: RAM<Bits<32>, 8>,
    now: DFF<Bits<31>>,
    nowp1: DFFWithInit<Bits<31>>,
    // the slot's age (now - stamp, modulo 2^31) in s3, from s2's RAM word
    age: DFF<Bits<31>>,
    one_t: Constant<Bits<31>>,
    sent_bit: Constant<Bits<32>>,
    ivl: DFF<Bits<24>>,
    sw_active: DFF<Bit>,
    sw_ptr: DFF<Bits<8>>,
    // the hash
    ws: Signal<Local, Bits<32>>,
    wd: Signal<Local, Bits<32>>,
    wq: Signal<Local, Bits<32>>,
    hs: Signal<Local, Bits<8>>,
    hd: Signal<Local, Bits<8>>,
    hq: Signal<Local, Bits<8>>,
    hs0: Constant<Bits<32>>,
    hs1: Constant<Bits<32>>,
    hs2: Constant<Bits<32>>,
    hs3: Constant<Bits<32>>,
    hs4: Constant<Bits<32>>,
    hs5: Constant<Bits<32>>,
    hs6: Constant<Bits<32>>,
    hs7: Constant<Bits<32>>,
    hd0: Constant<Bits<32>>,
    hd1: Constant<Bits<32>>,
    hd2: Constant<Bits<32>>,
    hd3: Constant<Bits<32>>,
    hd4: Constant<Bits<32>>,
    hd5: Constant<Bits<32>>,
    hd6: Constant<Bits<32>>,
    hd7: Constant<Bits<32>>,
    hq0: Constant<Bits<32>>,
    hq1: Constant<Bits<32>>,
    hq2: Constant<Bits<32>>,
    hq3: Constant<Bits<32>>,
    hq4: Constant<Bits<32>>,
    hq5: Constant<Bits<32>>,
    hq6: Constant<Bits<32>>,
    hq7: Constant<Bits<32>>,
    hslot: Signal<Local, Bits<8>>,
    // control, stages 0-3
    h_v: DFF<Bit>,
    h_cand: DFF<Bit>,
    h_parsed: DFF<Bit>,
    h_slot: DFF<Bits<8>>,
    p_v: DFF<Bit>,
    p_cand: DFF<Bit>,
    p_parsed: DFF<Bit>,
    p_slot: DFF<Bits<8>>,
    p_nr: DFF<Bit>,
    q_v: DFF<Bit>,
    q_cand: DFF<Bit>,
    q_parsed: DFF<Bit>,
    q_slot: DFF<Bits<8>>,
    q_nr: DFF<Bit>,
    q_rd: DFF<Bits<32>>,
    r_v: DFF<Bit>,
    r_cand: DFF<Bit>,
    r_parsed: DFF<Bit>,
    r_slot: DFF<Bits<8>>,
    r_nr: DFF<Bit>,
    r_sent: DFF<Bit>,
    r_old: DFF<Bit>,
    r_stamp: DFF<Bits<31>>,
    r_ok: DFF<Bit>,
    r_h1: DFF<Bit>,
    r_h2: DFF<Bit>,
    r_h3: DFF<Bit>,
    le3a: DFF<Bit>,
    le3: DFF<Bit>,
    le1a: DFF<Bit>,
    le2a: DFF<Bit>,
    le1: DFF<Bit>,
    le2: DFF<Bit>,
    // the bypasses: the slots written at the last two edges
    z1_v: DFF<Bit>,
    z1_slot: DFF<Bits<8>>,
    z2_v: DFF<Bit>,
    z2_slot: DFF<Bits<8>>,
    // the decision
    cand_ok: Signal<Local, Bit>,
    old_enough: Signal<Local, Bit>,
    send_ok: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    ov: DFF<Bit>,
    oemit: DFF<Bit>,
    osupp: DFF<Bit>,
    ounp: DFF<Bit>,
    // the descriptor's output registers
    o_ipv6: DFF<Bit>,
    o_src_hi: DFF<Bits<64>>,
    o_src_lo: DFF<Bits<64>>,
    o_dst_hi: DFF<Bits<64>>,
    o_dst_lo: DFF<Bits<64>>,
    o_ec_hi: DFF<Bits<64>>,
    o_ec_lo: DFF<Bits<64>>,
    o_qp: DFF<Bits<24>>,
    o_pkey: DFF<Bits<16>>,
    o_udp: DFF<Bits<16>>,
    // the counters
    one_cb: Constant<Bits<CB>>,
    n_marked: DFF<Bits<CB>>,
    n_sent: DFF<Bits<CB>>,
    n_supp: DFF<Bits<CB>>,
    n_unp: DFF<Bits<CB>>,
}

impl Logic for FastCnp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, now, ivl, sw_active, sw_ptr, h_v, h_cand, h_parsed, h_slot, p_v, p_cand,
            p_parsed, p_slot, p_nr, q_v, q_cand, q_parsed, q_slot, q_nr, q_rd, r_v, r_cand,
            r_parsed, r_slot, r_nr, r_sent, r_old, r_stamp, r_ok, r_h1, r_h2, r_h3, le3a, le3,
            le1a, le2a, le1, le2, nowp1, age, z1_v, z1_slot, z2_v, z2_slot, ov, oemit, osupp, ounp,
            n_marked, n_sent, n_supp, n_unp, o_ipv6, o_src_hi, o_src_lo, o_dst_hi, o_dst_lo,
            o_ec_hi, o_ec_lo, o_qp, o_pkey, o_udp
        );
        self.last_sent.read_clock.next = self.clock.val();
        self.last_sent.write_clock.next = self.clock.val();
        self.now.d.next = self.now.q.val() + self.one_t.val();
        self.ivl.d.next = self.cfg_interval_cycles.val();
        // now one cycle ahead: s2's age is the age s3 sees
        self.nowp1.d.next = self.nowp1.q.val() + self.one_t.val();
        // the interval's small cases, for the bypasses: the same interval
        // as s3's test (the level of two cycles before the decision)
        self.le1a.d.next = self.cfg_interval_cycles.val() <= bits::<24>(1);
        self.le2a.d.next = self.cfg_interval_cycles.val() <= bits::<24>(2);
        self.le3a.d.next = self.cfg_interval_cycles.val() <= bits::<24>(3);
        self.le1.d.next = self.le1a.q.val();
        self.le2.d.next = self.le2a.q.val();
        self.le3.d.next = self.le3a.q.val();

        // ---- s0: the key's fold, the slot, the input registers
        self.ws.next = self.in_src_hi.val().get_bits::<32>(32)
            ^ self.in_src_hi.val().get_bits::<32>(0)
            ^ self.in_src_lo.val().get_bits::<32>(32)
            ^ self.in_src_lo.val().get_bits::<32>(0);
        self.wd.next = self.in_dst_hi.val().get_bits::<32>(32)
            ^ self.in_dst_hi.val().get_bits::<32>(0)
            ^ self.in_dst_lo.val().get_bits::<32>(32)
            ^ self.in_dst_lo.val().get_bits::<32>(0);
        self.wq.next = bit_cast::<32, 24>(self.in_dest_qp.val());
        // each field's hash, bit by bit under an `if` (RustHDL's
        // replace_bit shifts a 1-bit value, which Verilator's width lint
        // refuses); then their XOR
        self.hs.next = bits::<8>(0);
        if (self.ws.val() & self.hs0.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(1);
        }
        if (self.ws.val() & self.hs1.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(2);
        }
        if (self.ws.val() & self.hs2.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(4);
        }
        if (self.ws.val() & self.hs3.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(8);
        }
        if (self.ws.val() & self.hs4.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(16);
        }
        if (self.ws.val() & self.hs5.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(32);
        }
        if (self.ws.val() & self.hs6.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(64);
        }
        if (self.ws.val() & self.hs7.val()).xor() {
            self.hs.next = self.hs.val() | bits::<8>(128);
        }
        self.hd.next = bits::<8>(0);
        if (self.wd.val() & self.hd0.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(1);
        }
        if (self.wd.val() & self.hd1.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(2);
        }
        if (self.wd.val() & self.hd2.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(4);
        }
        if (self.wd.val() & self.hd3.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(8);
        }
        if (self.wd.val() & self.hd4.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(16);
        }
        if (self.wd.val() & self.hd5.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(32);
        }
        if (self.wd.val() & self.hd6.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(64);
        }
        if (self.wd.val() & self.hd7.val()).xor() {
            self.hd.next = self.hd.val() | bits::<8>(128);
        }
        self.hq.next = bits::<8>(0);
        if (self.wq.val() & self.hq0.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(1);
        }
        if (self.wq.val() & self.hq1.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(2);
        }
        if (self.wq.val() & self.hq2.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(4);
        }
        if (self.wq.val() & self.hq3.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(8);
        }
        if (self.wq.val() & self.hq4.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(16);
        }
        if (self.wq.val() & self.hq5.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(32);
        }
        if (self.wq.val() & self.hq6.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(64);
        }
        if (self.wq.val() & self.hq7.val()).xor() {
            self.hq.next = self.hq.val() | bits::<8>(128);
        }
        self.hslot.next = self.hs.val() ^ self.hd.val() ^ self.hq.val();
        self.h_v.d.next = self.in_valid.val();
        self.h_cand.d.next = self.in_decision.val() == bits::<2>(1);
        self.h_parsed.d.next = self.in_parsed.val();
        self.h_slot.d.next = self.hslot.val();

        // ---- s1: the RAM reads the registered slot at this cycle's edge;
        // a read while the sweep runs is not ready
        self.p_v.d.next = self.h_v.q.val();
        self.p_cand.d.next = self.h_cand.q.val();
        self.p_parsed.d.next = self.h_parsed.q.val();
        self.p_slot.d.next = self.h_slot.q.val();
        self.last_sent.read_address.next = self.h_slot.q.val();
        self.p_nr.d.next = self.sw_active.q.val();

        // ---- s2: the RAM's word, registered, and the slot's age as s3
        // sees it (now + 1 - stamp: one 31-bit chain from the RAM's read
        // register, which leaves most of this cycle free)
        self.q_rd.d.next = self.last_sent.read_data.val();
        self.age.d.next = self.nowp1.q.val() - self.last_sent.read_data.val().get_bits::<31>(0);
        self.q_v.d.next = self.p_v.q.val();
        self.q_cand.d.next = self.p_cand.q.val();
        self.q_parsed.d.next = self.p_parsed.q.val();
        self.q_slot.d.next = self.p_slot.q.val();
        self.q_nr.d.next = self.p_nr.q.val();

        // ---- s3: the slot's age
        self.r_v.d.next = self.q_v.q.val();
        self.r_cand.d.next = self.q_cand.q.val();
        self.r_parsed.d.next = self.q_parsed.q.val();
        self.r_slot.d.next = self.q_slot.q.val();
        self.r_nr.d.next = self.q_nr.q.val();
        self.r_sent.d.next = self.q_rd.q.val().get_bit(31);
        // age >= interval (interval < 2^24): the age's top 7 bits or its
        // low 24 against the interval (the level of two cycles before the
        // decision, as the bypasses' small cases)
        self.r_old.d.next = self.age.q.val().get_bits::<7>(24).any()
            | (self.age.q.val().get_bits::<24>(0) >= self.ivl.q.val());
        self.r_stamp.d.next = self.now.q.val();

        // the bypass matches, a cycle ahead of the decision: the packet
        // deciding now (r) writes at this edge, if it sends (age 1 then);
        // z1 is the last edge's write (age 2), z2 the one before (age 3:
        // the RAM read this packet's word at that edge, so it saw the old
        // one); the matches are registered, the writes' valid bits taken
        // at the decision for age 1 and here for ages 2 and 3
        self.r_ok.d.next =
            self.q_v.q.val() & self.q_cand.q.val() & self.q_parsed.q.val() & !self.q_nr.q.val();
        self.r_h1.d.next = self.r_v.q.val() & (self.r_slot.q.val() == self.q_slot.q.val());
        self.r_h2.d.next = self.z1_v.q.val() & (self.z1_slot.q.val() == self.q_slot.q.val());
        self.r_h3.d.next = self.z2_v.q.val() & (self.z2_slot.q.val() == self.q_slot.q.val());

        // ---- o: the decision, newest state first
        self.cand_ok.next = self.r_v.q.val() & self.r_cand.q.val() & self.r_parsed.q.val();
        self.old_enough.next = self.r_old.q.val();
        self.send_ok.next = !self.r_sent.q.val() | self.old_enough.val();
        if self.r_h3.q.val() {
            // age 3: sent iff interval <= 3
            self.send_ok.next = self.le3.q.val();
        }
        if self.r_h2.q.val() {
            // age 2: sent iff interval <= 2
            self.send_ok.next = self.le2.q.val();
        }
        if self.r_h1.q.val() & self.z1_v.q.val() {
            // age 1: sent iff interval <= 1
            self.send_ok.next = self.le1.q.val();
        }
        self.send.next = self.r_ok.q.val() & self.send_ok.val();
        self.ov.d.next = self.r_v.q.val();
        self.oemit.d.next = self.send.val();
        self.osupp.d.next = self.cand_ok.val() & !self.send.val();
        self.ounp.d.next = self.r_v.q.val() & self.r_cand.q.val() & !self.r_parsed.q.val();
        self.z1_v.d.next = self.send.val();
        self.z1_slot.d.next = self.r_slot.q.val();
        self.z2_v.d.next = self.z1_v.q.val();
        self.z2_slot.d.next = self.z1_slot.q.val();
        self.last_sent.write_address.next = self.r_slot.q.val();
        self.last_sent.write_data.next =
            bit_cast::<32, 31>(self.r_stamp.q.val()) | self.sent_bit.val();
        self.last_sent.write_enable.next = self.send.val();
        // the sweep: one slot cleared per clock
        if self.sw_active.q.val() {
            self.last_sent.write_address.next = self.sw_ptr.q.val();
            self.last_sent.write_data.next = bits::<32>(0);
            self.last_sent.write_enable.next = true;
            self.sw_ptr.d.next = self.sw_ptr.q.val() + bits::<8>(1);
            if self.sw_ptr.q.val() == bits::<8>(255) {
                self.sw_active.d.next = false;
            }
        }
        self.out_valid.next = self.ov.q.val();
        self.out_emit.next = self.oemit.q.val();
        self.out_suppressed.next = self.osupp.q.val();
        self.out_unparsed.next = self.ounp.q.val();
        self.stat_table_ready.next = !self.sw_active.q.val();

        // ---- the descriptor: the switch pipeline's fields at the decision's
        // edge (the packet of 4 cycles back), swapped into the CNP's
        self.o_ipv6.d.next = self.dsc_ipv6.val();
        self.out_ipv6.next = self.o_ipv6.q.val();
        self.o_src_hi.d.next = self.dsc_src_hi.val();
        self.out_cnp_dst_hi.next = self.o_src_hi.q.val();
        self.o_src_lo.d.next = self.dsc_src_lo.val();
        self.out_cnp_dst_lo.next = self.o_src_lo.q.val();
        self.o_dst_hi.d.next = self.dsc_dst_hi.val();
        self.out_cnp_src_hi.next = self.o_dst_hi.q.val();
        self.o_dst_lo.d.next = self.dsc_dst_lo.val();
        self.out_cnp_src_lo.next = self.o_dst_lo.q.val();
        self.o_ec_hi.d.next = self.dsc_end_con_hi.val();
        self.out_end_con_hi.next = self.o_ec_hi.q.val();
        self.o_ec_lo.d.next = self.dsc_end_con_lo.val();
        self.out_end_con_lo.next = self.o_ec_lo.q.val();
        self.o_qp.d.next = self.dsc_dest_qp.val();
        self.out_dest_qp.next = self.o_qp.q.val();
        self.o_pkey.d.next = self.dsc_pkey.val();
        self.out_pkey.next = self.o_pkey.q.val();
        self.o_udp.d.next = self.dsc_udp_src.val();
        self.out_udp_src.next = self.o_udp.q.val();

        // ---- c: the counters, saturating
        if self.ov.q.val()
            & (self.oemit.q.val() | self.osupp.q.val() | self.ounp.q.val())
            & !self.n_marked.q.val().all()
        {
            self.n_marked.d.next = self.n_marked.q.val() + self.one_cb.val();
        }
        if self.oemit.q.val() & !self.n_sent.q.val().all() {
            self.n_sent.d.next = self.n_sent.q.val() + self.one_cb.val();
        }
        if self.osupp.q.val() & !self.n_supp.q.val().all() {
            self.n_supp.d.next = self.n_supp.q.val() + self.one_cb.val();
        }
        if self.ounp.q.val() & !self.n_unp.q.val().all() {
            self.n_unp.d.next = self.n_unp.q.val() + self.one_cb.val();
        }
        self.stat_marked_pkts.next = self.n_marked.q.val();
        self.stat_sent_pkts.next = self.n_sent.q.val();
        self.stat_suppressed_pkts.next = self.n_supp.q.val();
        self.stat_unparsed_pkts.next = self.n_unp.q.val();

        // ---- reset: nothing in flight, nothing written, the sweep restarts
        if self.reset.val() {
            self.now.d.next = bits::<31>(0);
            self.nowp1.d.next = bits::<31>(1);
            self.sw_active.d.next = true;
            self.sw_ptr.d.next = bits::<8>(0);
            self.last_sent.write_enable.next = false;
            self.h_v.d.next = false;
            self.p_v.d.next = false;
            self.q_v.d.next = false;
            self.r_v.d.next = false;
            self.r_ok.d.next = false;
            self.z1_v.d.next = false;
            self.z2_v.d.next = false;
            self.ov.d.next = false;
            self.oemit.d.next = false;
            self.osupp.d.next = false;
            self.ounp.d.next = false;
            self.o_ipv6.d.next = false;
            self.o_src_hi.d.next = bits::<64>(0);
            self.o_src_lo.d.next = bits::<64>(0);
            self.o_dst_hi.d.next = bits::<64>(0);
            self.o_dst_lo.d.next = bits::<64>(0);
            self.o_ec_hi.d.next = bits::<64>(0);
            self.o_ec_lo.d.next = bits::<64>(0);
            self.o_qp.d.next = bits::<24>(0);
            self.o_pkey.d.next = bits::<16>(0);
            self.o_udp.d.next = bits::<16>(0);
            self.n_marked.d.next = bits::<CB>(0);
            self.n_sent.d.next = bits::<CB>(0);
            self.n_supp.d.next = bits::<CB>(0);
            self.n_unp.d.next = bits::<CB>(0);
        }
    }
}

impl Default for FastCnp {
    fn default() -> Self {
        FastCnp {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_decision: Default::default(),
            in_parsed: Default::default(),
            in_src_hi: Default::default(),
            in_src_lo: Default::default(),
            in_dst_hi: Default::default(),
            in_dst_lo: Default::default(),
            in_dest_qp: Default::default(),
            dsc_ipv6: Default::default(),
            dsc_src_hi: Default::default(),
            dsc_src_lo: Default::default(),
            dsc_dst_hi: Default::default(),
            dsc_dst_lo: Default::default(),
            dsc_end_con_hi: Default::default(),
            dsc_end_con_lo: Default::default(),
            dsc_dest_qp: Default::default(),
            dsc_pkey: Default::default(),
            dsc_udp_src: Default::default(),
            cfg_interval_cycles: Default::default(),
            out_valid: Default::default(),
            out_emit: Default::default(),
            out_suppressed: Default::default(),
            out_unparsed: Default::default(),
            out_ipv6: Default::default(),
            out_cnp_src_hi: Default::default(),
            out_cnp_src_lo: Default::default(),
            out_cnp_dst_hi: Default::default(),
            out_cnp_dst_lo: Default::default(),
            out_end_con_hi: Default::default(),
            out_end_con_lo: Default::default(),
            out_dest_qp: Default::default(),
            out_pkey: Default::default(),
            out_udp_src: Default::default(),
            stat_marked_pkts: Default::default(),
            stat_sent_pkts: Default::default(),
            stat_suppressed_pkts: Default::default(),
            stat_unparsed_pkts: Default::default(),
            stat_table_ready: Default::default(),
            last_sent: Default::default(),
            now: Default::default(),
            nowp1: DFFWithInit::new(bits::<31>(1)),
            age: Default::default(),
            one_t: Constant::new(bits::<31>(1)),
            sent_bit: Constant::new(bits::<32>(1 << 31)),
            ivl: Default::default(),
            sw_active: Default::default(),
            sw_ptr: Default::default(),
            ws: Default::default(),
            wd: Default::default(),
            wq: Default::default(),
            hs: Default::default(),
            hd: Default::default(),
            hq: Default::default(),
            hs0: Constant::new(bits::<32>(SLOT_MASKS[0][0] as u64)),
            hs1: Constant::new(bits::<32>(SLOT_MASKS[0][1] as u64)),
            hs2: Constant::new(bits::<32>(SLOT_MASKS[0][2] as u64)),
            hs3: Constant::new(bits::<32>(SLOT_MASKS[0][3] as u64)),
            hs4: Constant::new(bits::<32>(SLOT_MASKS[0][4] as u64)),
            hs5: Constant::new(bits::<32>(SLOT_MASKS[0][5] as u64)),
            hs6: Constant::new(bits::<32>(SLOT_MASKS[0][6] as u64)),
            hs7: Constant::new(bits::<32>(SLOT_MASKS[0][7] as u64)),
            hd0: Constant::new(bits::<32>(SLOT_MASKS[1][0] as u64)),
            hd1: Constant::new(bits::<32>(SLOT_MASKS[1][1] as u64)),
            hd2: Constant::new(bits::<32>(SLOT_MASKS[1][2] as u64)),
            hd3: Constant::new(bits::<32>(SLOT_MASKS[1][3] as u64)),
            hd4: Constant::new(bits::<32>(SLOT_MASKS[1][4] as u64)),
            hd5: Constant::new(bits::<32>(SLOT_MASKS[1][5] as u64)),
            hd6: Constant::new(bits::<32>(SLOT_MASKS[1][6] as u64)),
            hd7: Constant::new(bits::<32>(SLOT_MASKS[1][7] as u64)),
            hq0: Constant::new(bits::<32>(SLOT_MASKS[2][0] as u64)),
            hq1: Constant::new(bits::<32>(SLOT_MASKS[2][1] as u64)),
            hq2: Constant::new(bits::<32>(SLOT_MASKS[2][2] as u64)),
            hq3: Constant::new(bits::<32>(SLOT_MASKS[2][3] as u64)),
            hq4: Constant::new(bits::<32>(SLOT_MASKS[2][4] as u64)),
            hq5: Constant::new(bits::<32>(SLOT_MASKS[2][5] as u64)),
            hq6: Constant::new(bits::<32>(SLOT_MASKS[2][6] as u64)),
            hq7: Constant::new(bits::<32>(SLOT_MASKS[2][7] as u64)),
            hslot: Default::default(),
            h_v: Default::default(),
            h_cand: Default::default(),
            h_parsed: Default::default(),
            h_slot: Default::default(),
            p_v: Default::default(),
            p_cand: Default::default(),
            p_parsed: Default::default(),
            p_slot: Default::default(),
            p_nr: Default::default(),
            q_v: Default::default(),
            q_cand: Default::default(),
            q_parsed: Default::default(),
            q_slot: Default::default(),
            q_nr: Default::default(),
            q_rd: Default::default(),
            r_v: Default::default(),
            r_cand: Default::default(),
            r_parsed: Default::default(),
            r_slot: Default::default(),
            r_nr: Default::default(),
            r_sent: Default::default(),
            r_old: Default::default(),
            r_stamp: Default::default(),
            r_ok: Default::default(),
            r_h1: Default::default(),
            r_h2: Default::default(),
            r_h3: Default::default(),
            le3a: Default::default(),
            le3: Default::default(),
            le1a: Default::default(),
            le2a: Default::default(),
            le1: Default::default(),
            le2: Default::default(),
            z1_v: Default::default(),
            z1_slot: Default::default(),
            z2_v: Default::default(),
            z2_slot: Default::default(),
            cand_ok: Default::default(),
            old_enough: Default::default(),
            send_ok: Default::default(),
            send: Default::default(),
            ov: Default::default(),
            oemit: Default::default(),
            osupp: Default::default(),
            ounp: Default::default(),
            o_ipv6: Default::default(),
            o_src_hi: Default::default(),
            o_src_lo: Default::default(),
            o_dst_hi: Default::default(),
            o_dst_lo: Default::default(),
            o_ec_hi: Default::default(),
            o_ec_lo: Default::default(),
            o_qp: Default::default(),
            o_pkey: Default::default(),
            o_udp: Default::default(),
            one_cb: Constant::new(bits::<CB>(1)),
            n_marked: Default::default(),
            n_sent: Default::default(),
            n_supp: Default::default(),
            n_unp: Default::default(),
        }
    }
}

ldcp_sim::fast_cnp_ports!(crate::hand_stepped {
    FastCnp [],
    ldcp_sim::fast_cnp::FastCnpInputs,
    ldcp_sim::fast_cnp::FastCnpOutputs
});

/// The block in RustHDL's own simulator, stepped by hand.
pub type FastCnpRustHdl = crate::stepper::RustHdlSim<FastCnp>;

#[cfg(test)]
mod tests {
    use super::*;
    use ldcp_sim::fast_cnp::{fast_cnp_stimulus, FastCnpModel};

    #[test]
    fn fast_cnp_rusthdl_simulation_matches_model() {
        let mut sim = FastCnpRustHdl::new();
        let mut m = FastCnpModel::new();
        let (mut sent, mut supp) = (0, 0);
        for (c, i) in fast_cnp_stimulus(5).take(20_000).enumerate() {
            let o = sim.step(&i).expect("RustHDL settles");
            m.tick(&i);
            assert_eq!(o, m.outputs(), "cycle {c}, inputs {i:?}");
            sent += o.out_emit as u32;
            supp += o.out_suppressed as u32;
        }
        assert!(sent > 100 && supp > 100, "{sent} sent, {supp} suppressed");
    }
}
