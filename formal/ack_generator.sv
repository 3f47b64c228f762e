// Property harness of `ack_generator` (the receiver's ACK generator,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1: per-packet or
// delayed ACKs with exact ECE counts, a NAK once per gap, the timeout
// flush), proved with `ldcp prove --block ack_generator` on the formal-size
// build (`ldcp_hdl::generate::FB_FORMAL` = 2 flow bits, N = 4 flows:
// `ack_generator::verilog_formal`, the same RTL with a 2-bit table index).
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// All six properties are claimed for ever (no window after a reset) and
// proved by k-induction at depth 4, with strengthening invariants on the
// block's internals, reached as in fast_cnp.sv: sections (pasted into the
// generated modules) expose internals as keep wires, and `// connect`
// lines (yosys `connect -set` after flatten) carry them to the harness's
// undriven x_* wires. Changed from the windowed harness (W = 13 cycles
// after a reset, depth 15): ece_covers_one_ce, nothing_before_event,
// ack_within_received and nak_only_after_gap lost their `r_age <= W`
// condition (r_age and W are gone); ack_within_received is claimed while
// fewer than 2^23 packets were taken in order since the open (o_wrap: past
// 2^24 the 24-bit hi wraps onto an ACK in flight and the claim is false as
// stated); nak_only_after_gap no longer fixes the open PSN (free).
// The invariants (each an assert, so checked in the base case and proved
// by the induction too; they hold from power-up and from every reset):
// - queue (ack_within_received, nak_only_after_gap): wp - rp == cnt (mod
//   8); busy == cnt > READY_MAX_QUEUED (2); cnt + r_a2v + the events in
//   s1..s3 <= 7 (an event enters only with cnt <= 2 and adds at most one
//   beyond the ACK that leaves per clock; a flush adds none): cnt <= 7, no
//   overflow, and the valid slots are the cnt from rp (stale slots are
//   named only through that window);
// - ece_covers_one_ce: every slot (stale or not) and the registered first
//   ACK (r_a1*) with ECE have n = 1 and no NAK (every word written does;
//   the split's second ACK is ECE, n = 1);
// - the sweep (watched-flow and quiet properties): it runs only in the N
//   cycles after a reset, at entry age - 1, with nothing in flight (no op
//   in s1..s3, scanner pipeline idle, no r ACK, queue empty, the watched
//   flow's record cleared); quiet_after_reset also states the pipeline's
//   fill after a reset by r_hist (s1 from N + 2, s2, s3, r at N + 5, the
//   queue after; the scanner from N + 2, its hit from N + 5);
// - nothing_before_event: before the first event since the reset is
//   through (e_age < 5, ..., < 1 per stage), queue, r, s1..s3 and the
//   scanner's pipeline hold nothing, and every flow of C swept so far has
//   pending 0 (nothing to flush);
// - the watched flow (ack_within_received, nak_only_after_gap): with no
//   event of it since the reset (!w_seen): no ACK of it in flight (r,
//   valid slots, out), no event of it in s1..s3, a flush of it in s3 finds
//   pending 0 (st3), and M's pending is 0 unless not yet swept; tracked
//   (o_have && o_first): the open is in s1/s2/s3 at o_age 1/2/3 (PSN lo),
//   older ops of the flow are flushes finding pending 0, newer are events;
//   hi's history hi_1..hi_3 follows the events in s1..s3 (in order: + 1);
//   from o_age 4 M's expected PSN (bits 48..25) == hi_3, the s3 op's state
//   (the table's st3) too, and its d == PSN - hi_3, d0 == (d == 0),
//   PSN + 1 registered; no ACK of it at r before o_age 5 nor queued before
//   6. nak_only_after_gap: an event in s1..s3 with 0 < PSN - hi_k <=
//   GAP_MAX has set o_gap, and every NAK of it at r or queued has o_gap;
//   ack_within_received: lo == OPEN_PSN, hi - lo < 2^23 (unless o_wrap),
//   and hi_3 and the PSN of every ACK of it at r or queued lie in [lo, hi].
// Connections (x_* in the harness, h_* in sections): inside ack_generator
// the queue (fq0..fq7, rp, wp, cnt, busy), r_a1v/ece/n/nak, r_a2v, r_idx,
// r_a1psn, r_a2psn, the ops' valid/flush/kind/idx/oor/PSN in s1..s3, s3's
// d, d0, psn1, the table's state (ts$state = st3), the scanner's valids and
// flags, sc's read of C (t_c$read_data), the sweep (ts$sweeping,
// ts$sweep_ptr); inside ack_generator$ts the s2 op's oor (oor2); inside
// ack_generator$t_c the four words of C; inside ack_generator$t_m an extra
// asynchronous read port mem[h_addr], h_addr driven by `watch`. The x_*
// are used only through macros in expressions: `connect -set` unsets every
// driver in the connected wire's alias group, so a plain alias wire of an
// x_* is left undriven.
// Sound: the sections only read (keep wires, no RTL signal driven, no
// state added), the connections drive only wires the harness leaves
// undriven (and the t_m read address, a wire of the section), and every
// invariant is itself an assertion, proved in the base case and by the
// induction, so it rules out no reachable state. Kept: the OPEN_PSN
// assumption of ack_within_received (not tried free: its induction
// already takes about 2 minutes with the constant, and a symbolic open PSN
// makes every range compare symbolic) and the o_first/w_seen condition of
// both PSN properties (dropping it would need invariants on the ACKs of
// events before the open, whose PSNs the harness does not know; not
// tried). The sweep-entry invariant names entries 0..3 (FB = 2).
// Mutations checked (not kept; each is not proved at depth 4, its
// induction failing, and a deeper base case shows a reachable failure):
// the in-order expected PSN + 2 instead of + 1 (s2_psn1): base at 12
// fails the s3 d/psn1 invariant (and the windowed harness's
// nak_only_after_gap and ack_within_received fail on it too); a NAK on a
// duplicate PSN (error 2 branch): base at 12 fails (a NAK at r without
// o_gap); out_ece taken from the word's bit 1: base at 8 fails
// ece_covers_one_ce itself; reset not clearing cnt: base at 14 fails
// quiet_after_reset and nothing_before_event; the x_fq connection
// removed: ece_covers_one_ce fails at once (the slots are free).
//
// depth 4: with the invariants, 3 steps already cover the table's forwarding (an op's state reaches s3 from M's read 2 cycles before; at 2 the induction fails: a flush of the watched flow in s2 with a stale forwarded state) and all six prove at 3; 4 because ack_within_received's induction, the slow one (the PSN-range compares), is faster there: 121 s at 4, 112 s at 5, 156-214 s at 3 on the shared 2-core machine; the others take 1-3 s
// flatten: z3 4.8.12 stalls reading the hierarchical SMT2 (and the flattened one: see the solver line)
// solver yices: z3 4.8.12 stalls at step 0, flattened or not (it does not get through the SMT2's transition function)
module ack_generator_props (
    input clock,
    input reset,
    input in_valid,
    input in_open,
    input [15:0] in_flow,
    input [23:0] in_psn,
    input in_ce,
    input in_last,
    input [3:0] cfg_m_pkts,
    input [15:0] cfg_timeout_cycles,
    // the flow the per-flow properties track: any, held
    input [FB-1:0] watch
);
  localparam FB = 2;  // ldcp_hdl::generate::FB_FORMAL: the formal-size build's flow bits
  localparam N = 4;  // flows, 2^FB
  localparam LAT = 5;  // an ACK leaves 5 cycles after its packet is taken (hdl/src/ack_generator.rs, Timing)
  // the reset sweep: N cycles with in_ready low (the table swept, the queue
  // and the ops in flight dropped); an event taken after it shows its ACK
  // LAT cycles later at the earliest: no ACK in the N + LAT cycles after a reset
  localparam QUIET = N + LAT;
  localparam [23:0] GAP_MAX = 24'd4095;  // ldcp_sim::ack_generator::GAP_MAX: a larger jump is out of window
  // the open PSN of the watched flow in ack_within_received: 8 below the
  // wrap of the 24-bit PSN, so that in-order packets cross it soon. A fixed
  // value, because the PSN-range invariants' modular compares against a
  // symbolic open PSN are too slow for Yices (the fixed one already takes
  // minutes); it loses no generality as far as the RTL uses a PSN only
  // through d = PSN - expected (mod 2^24) and PSN + 1
  // (ldcp_sim::ack_generator, the rules), which its structure shows but
  // this harness does not prove. nak_only_after_gap takes any open PSN
  localparam [23:0] OPEN_PSN = 24'hfffff8;

  wire in_ready, out_valid, out_ece, out_nak;
  wire [15:0] out_flow;
  wire [23:0] out_psn;
  wire [3:0] out_n;
  wire [1:0] err;
  ack_generator dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_open(in_open), .in_flow(in_flow),
      .in_psn(in_psn), .in_ce(in_ce), .in_last(in_last), .cfg_m_pkts(cfg_m_pkts),
      .cfg_timeout_cycles(cfg_timeout_cycles), .in_ready(in_ready), .out_valid(out_valid),
      .out_flow(out_flow), .out_psn(out_psn), .out_ece(out_ece), .out_n_pkts(out_n),
      .out_nak(out_nak), .stat_err(err));

  reg past = 1'b0;
  reg [FB-1:0] p_watch;
  reg [QUIET-1:0] r_hist = 0;  // resets in the last QUIET cycles (bit 0: the cycle before)
  // cycles since the first event taken after the last reset (saturating; 0: none yet)
  reg [5:0] e_age = 6'd0;
  // the watched flow since its last open (taken, no reset since): the
  // open's PSN, the next expected PSN as the harness counts it, a packet
  // of a gap taken since, the age
  reg o_have = 1'b0, o_gap = 1'b0;
  // no event of the watched flow was taken between the last reset and its
  // open: every ACK of it since the reset is then an ACK of an event after
  // the open (the queue was emptied and the table swept by the reset, so no
  // ACK or flush of an earlier event is left)
  reg w_seen = 1'b0, o_first = 1'b0;
  reg [23:0] lo = 0, hi = 0;
  reg [5:0] o_age = 6'h3f;
  // hi of 1, 2 and 3 cycles back: the expected PSN the op in s1, s2, s3
  // found (an op taken in cycle t is in s3 in t + 3)
  reg [23:0] hi_1 = 0, hi_2 = 0, hi_3 = 0;
  // the in-order packets since the open reached 2^23 (hi - lo >= 2^23):
  // beyond, hi may wrap past an ACK's PSN in flight (after 2^24 packets),
  // and ack_within_received is not claimed
  reg o_wrap = 1'b0;
  wire taken = in_valid && in_ready && !reset;
  wire mine = taken && in_flow == {{(16 - FB) {1'b0}}, watch};
  wire [23:0] d = in_psn - hi;  // the packet's distance from the expected PSN, mod 2^24
  wire w_ack = out_valid && out_flow == {{(16 - FB) {1'b0}}, watch};
  // the watched flow is tracked: opened by its first event since the last reset
  wire trk = o_have && o_first;
  always @(posedge clock) begin
    past <= 1'b1;
    p_watch <= watch;
    r_hist <= {r_hist[QUIET-2:0], reset};
    if (e_age != 6'h3f && e_age != 6'd0) e_age <= e_age + 1;
    if (taken && e_age == 6'd0) e_age <= 6'd1;
    if (o_age != 6'h3f) o_age <= o_age + 1;
    if (mine) w_seen <= 1'b1;
    {hi_3, hi_2, hi_1} <= {hi_2, hi_1, hi};
    if (mine && !in_open && d == 24'd0 && in_psn + 24'd1 - lo >= 24'h800000) o_wrap <= 1'b1;
    if (mine && in_open) begin
      o_wrap <= 1'b0;
      o_have <= 1'b1;
      o_first <= !w_seen;
      o_gap <= 1'b0;
      lo <= in_psn;
      hi <= in_psn;
      o_age <= 6'd1;
    end else if (mine) begin
      if (d == 24'd0) hi <= in_psn + 24'd1;  // in order (in_psn == hi)
      else if (d <= GAP_MAX) o_gap <= 1'b1;  // a gap: 0 < d <= 4095
    end
    if (reset) begin
      e_age <= 6'd0;
      o_have <= 1'b0;
      w_seen <= 1'b0;
    end
  end
  // ---- the RTL's internals, carried here by the `// connect` lines below
  // (sections inside ack_generator, ack_generator$t_c and ack_generator$t_m
  // expose them as keep wires; nothing is driven in the RTL)
  // connect x_fq = dut.h_fq: the 8 queue slots fq7..fq0 (32 bits each: idx | PSN | ECE | n | NAK), from the section inside ack_generator
  // connect x_rp = dut.h_rp: the queue's read pointer
  // connect x_wp = dut.h_wp: the queue's write pointer
  // connect x_cnt = dut.h_cnt: the queue's count
  // connect x_busy = dut.h_busy: the queue's busy flag (in_ready's third term)
  // connect x_r = dut.h_r: the registered ACKs of the s3 op (r_a1v, r_a1ece, r_a1n, r_a1nak, r_a2v)
  // connect x_sv = dut.h_sv: the op valid bits s1_v, s2_v, s3_v
  // connect x_scan = dut.h_scan: the scanner's valids and flags (sc_v, h1_v, h1_nz, h2_v, h2_nz, hit_v)
  // connect x_sweep = dut.h_sweep: the table sweep runs (ts.active)
  // connect x_swptr = dut.h_swptr: the entry the sweep writes (ts.ptr)
  // connect x_crd = dut.h_crd: the scanner's registered read of C (t_c's read_data)
  // connect x_c = dut.t_c.h_c: the four words of C (pending | held since), from the section inside ack_generator$t_c
  // connect x_s1 = dut.h_s1: the op in s1 {v, flush, kind, idx, out of table}
  // connect x_s2 = dut.h_s2: the op in s2 {v, flush, kind, idx}
  // connect x_oor2 = dut.ts.h_oor2: the op in s2 is out of the table, from the section inside ack_generator$ts
  // connect x_s3 = dut.h_s3: the op in s3 {v, flush, kind, idx, out of table}
  // connect x_spsn = dut.h_spsn: the PSNs of the ops in s1, s2, s3
  // connect x_s3x = dut.h_s3x: the s3 op's d0, d and PSN + 1
  // connect x_st = dut.h_st: the s3 op's state (the table's st3: expected 48..25 | pending 24..21 | gap NAKed 20 | held since 19..0)
  // connect x_ri = dut.h_ri: the s3 op's registered first ACK's NAK flag and flow index
  // connect x_rpsn = dut.h_rpsn: the PSNs of the s3 op's registered ACKs (first, second)
  // connect dut.t_m.h_addr = watch: M's extra read port reads the watched flow
  // connect x_m = dut.t_m.h_word: the watched flow's word of M, from the section inside ack_generator$t_m
  (* keep *) wire [FB+3:0] x_s1, x_s3;
  (* keep *) wire [FB+2:0] x_s2;
  (* keep *) wire x_oor2;
  (* keep *) wire [71:0] x_spsn;
  (* keep *) wire [48:0] x_s3x, x_st, x_m;
  (* keep *) wire [FB:0] x_ri;
  (* keep *) wire [47:0] x_rpsn;
  (* keep *) wire [255:0] x_fq;
  (* keep *) wire [2:0] x_rp, x_wp;
  (* keep *) wire [3:0] x_cnt;
  (* keep *) wire x_busy;
  (* keep *) wire [7:0] x_r;
  (* keep *) wire [2:0] x_sv;
  (* keep *) wire [5:0] x_scan;
  (* keep *) wire x_sweep;
  (* keep *) wire [FB-1:0] x_swptr;
  (* keep *) wire [23:0] x_crd;
  (* keep *) wire [95:0] x_c;
  // (named by macros, not by alias wires: `connect -set` unsets every
  // driver in the connected wire's alias group, so an alias of x_* would be
  // left undriven)
`define r_a1v x_r[7]
`define r_a1ece x_r[6]
`define r_a1n x_r[5:2]
`define r_a1nak x_r[1]
`define r_a2v x_r[0]
`define sc_v x_scan[5]
`define h1_v x_scan[4]
`define h1_nz x_scan[3]
`define h2_v x_scan[2]
`define h2_nz x_scan[1]
`define hit_v x_scan[0]
`define s1_v x_s1[5]
`define s1_fl x_s1[4]
`define s1_kd x_s1[3]
`define s1_idx x_s1[2:1]
`define s1_oor x_s1[0]
`define s2_v x_s2[4]
`define s2_fl x_s2[3]
`define s2_kd x_s2[2]
`define s2_idx x_s2[1:0]
`define s3_v x_s3[5]
`define s3_fl x_s3[4]
`define s3_kd x_s3[3]
`define s3_idx x_s3[2:1]
`define s3_oor x_s3[0]
`define s1_psn x_spsn[71:48]
`define s2_psn x_spsn[47:24]
`define s3_psn x_spsn[23:0]
`define s3_d0 x_s3x[48]
`define s3_d x_s3x[47:24]
`define s3_psn1 x_s3x[23:0]
`define st_e x_st[48:25]
`define st_pend x_st[24:21]
`define m_e x_m[48:25]
`define m_pend x_m[24:21]
`define r_nak x_ri[2]
`define r_idx x_ri[1:0]
`define r_a1psn x_rpsn[47:24]
`define r_a2psn x_rpsn[23:0]
  // a queued word's flags: ECE (bit 5), n (4..1), NAK (0)
  function ece_ok(input [31:0] w);
    ece_ok = !w[5] || (w[4:1] == 4'd1 && !w[0]);
  endfunction

  // `watch` is unconstrained but stable: one arbitrary flow stands for all
  always @(*) if (past) assume (watch == p_watch);

`ifdef P_ack_within_received
`define WATCH_INV
`endif
`ifdef P_nak_only_after_gap
`define WATCH_INV
`endif
`ifdef WATCH_INV
  // an op of the watched flow in s1, s2, s3 (a flush or an event; one with
  // an id beyond the table is no op of it: it writes nothing, ACKs nothing)
  wire w1 = `s1_v && `s1_idx == watch && !`s1_oor;
  wire w2 = `s2_v && `s2_idx == watch && !x_oor2;
  wire w3 = `s3_v && `s3_idx == watch && !`s3_oor;
  wire r1w = `r_a1v && `r_idx == watch;  // the s3 op's registered ACKs are the watched flow's
  wire r2w = `r_a2v && `r_idx == watch;
  // a valid queue slot (one of the cnt from rp) holds an ACK of the watched flow
  function slot_w(input integer i);
    slot_w = ((i[2:0] - x_rp) & 3'd7) < x_cnt && x_fq[32 * i + 30 +: FB] == watch;
  endfunction
  // open PSN <= p <= hi (mod 2^24); lo == OPEN_PSN while tracked (an
  // invariant below), so the constant stands for it (cheaper arithmetic)
  function in_rng(input [23:0] p);
    in_rng = p - OPEN_PSN <= hi - OPEN_PSN;
  endfunction
`endif
  integer qi;
  always @(*) begin
`ifdef WATCH_INV
    // ---- the strengthening invariants of the watched flow
    // the queue: the pointers agree with the count; busy is the count
    // above READY_MAX_QUEUED; and the count plus what the ops in flight
    // add beyond the one ACK that leaves per clock (the split's second ACK
    // at r, one per event in s1..s3; a flush adds none) stays <= 7: an
    // event enters only with the count <= 2 (then at most 2 + 1 + 3, and
    // it adds one), else the sum does not grow. So the count stays <= 7
    // and never overflows the 8 slots (ldcp_sim::ack_generator's argument)
    assert (x_wp - x_rp == x_cnt[2:0] && x_busy == (x_cnt > 4'd2));
    assert ({1'b0, x_cnt} + `r_a2v + (`s3_v && !`s3_fl) + (`s2_v && !`s2_fl) + (`s1_v && !`s1_fl) <= 5'd7);
    // the sweep runs only after a reset, which dropped everything in
    // flight and the watched flow's record; nothing enters while it runs
    assert (!x_sweep || x_sv == 3'd0);
    assert (!x_sweep || (!`sc_v && !`h1_v && !`h2_v && !`hit_v && !`r_a1v && !`r_a2v));
    assert (!x_sweep || x_cnt == 4'd0);
    assert (!x_sweep || (!o_have && !w_seen));
    // no event of it since the last reset: no ACK of it in flight, no
    // event of it in s1..s3, a flush of it finds no packet held (in s3's
    // state and in M, unless the sweep has not reached it yet)
    if (!w_seen) begin
      assert (!r1w && !w_ack && !(w1 && !`s1_fl) && !(w2 && !`s2_fl) && !(w3 && !`s3_fl));
      for (qi = 0; qi < 8; qi = qi + 1) assert (!slot_w(qi));
      if (w3) assert (`st_pend == 4'd0);
      assert (`m_pend == 4'd0 || (x_sweep && watch >= x_swptr));
    end
    if (trk) begin
      assert (w_seen && o_age != 6'd0);
      // the open in flight: in s1, s2, s3 at o_age 1, 2, 3; older ops of
      // the flow are flushes finding nothing held; newer ones are events
      if (o_age == 6'd1) assert (w1 && !`s1_fl && `s1_kd && `s1_psn == lo);
      if (o_age == 6'd2) assert (w2 && !`s2_fl && `s2_kd && `s2_psn == lo);
      if (o_age == 6'd3) assert (w3 && !`s3_fl && `s3_kd && `s3_psn == lo);
      if (o_age < 6'd2) assert (!(w2 && !`s2_fl));
      if (o_age < 6'd3) assert (!(w3 && !`s3_fl));
      if (o_age != 6'd1 && w1 && !`s1_fl) assert (!`s1_kd);
      if (o_age != 6'd2 && w2 && !`s2_fl) assert (!`s2_kd);
      if (o_age != 6'd3 && w3 && !`s3_fl) assert (!`s3_kd);
      if (o_age < 6'd3 && w3) assert (`st_pend == 4'd0);
      if (o_age <= 6'd3) assert (`m_pend == 4'd0);
      // hi's history as the events in s1, s2, s3 (taken 1, 2, 3 cycles
      // back) moved it: an in-order one by one; a gap among them set o_gap
      if (o_age == 6'd1) assert (hi == lo && !o_gap);
      if (o_age == 6'd2) assert (hi_1 == lo);
      if (o_age == 6'd3) assert (hi_2 == lo);
      if (o_age >= 6'd2) assert (hi == ((w1 && !`s1_fl && `s1_psn == hi_1) ? hi_1 + 24'd1 : hi_1));
      if (o_age >= 6'd3) assert (hi_1 == ((w2 && !`s2_fl && `s2_psn == hi_2) ? hi_2 + 24'd1 : hi_2));
      if (o_age >= 6'd4) assert (hi_2 == ((w3 && !`s3_fl && `s3_psn == hi_3) ? hi_3 + 24'd1 : hi_3));
`ifdef P_nak_only_after_gap
      if (o_age >= 6'd2 && w1 && !`s1_fl && `s1_psn - hi_1 <= GAP_MAX && `s1_psn != hi_1) assert (o_gap);
      if (o_age >= 6'd3 && w2 && !`s2_fl && `s2_psn - hi_2 <= GAP_MAX && `s2_psn != hi_2) assert (o_gap);
      if (o_age >= 6'd4 && w3 && !`s3_fl && `s3_psn - hi_3 <= GAP_MAX && `s3_psn != hi_3) assert (o_gap);
`endif
      // from the open's write on: M's expected PSN is hi of 3 cycles back;
      // the s3 op (after the open) found it, and its d is from it
      if (o_age >= 6'd4) begin
        assert (`m_e == hi_3);
        if (w3) assert (`st_e == hi_3);
        if (w3 && !`s3_fl) assert (`s3_d == `s3_psn - hi_3 && `s3_d0 == (`s3_psn == hi_3) && `s3_psn1 == `s3_psn + 24'd1);
      end
      // its ACKs in flight: none before the open's first event is through s3; a NAK only after a gap
      if (o_age <= 6'd4) assert (!r1w && !r2w);
      if (o_age <= 6'd5) for (qi = 0; qi < 8; qi = qi + 1) assert (!slot_w(qi));
`ifdef P_nak_only_after_gap
      if (r1w && `r_nak) assert (o_gap);
      for (qi = 0; qi < 8; qi = qi + 1) if (slot_w(qi) && x_fq[32 * qi]) assert (o_gap);
`endif
`ifdef P_ack_within_received
      // and their PSNs between the open's and hi (no wrap: hi - lo < 2^23)
      assert (lo == OPEN_PSN);  // the open's PSN, as assumed
      if (!o_wrap) begin
        assert (hi - OPEN_PSN < 24'h800000);
        if (o_age >= 6'd4) assert (in_rng(hi_3));
        if (r1w) assert (in_rng(`r_a1psn));
        if (r2w) assert (in_rng(`r_a2psn));
        for (qi = 0; qi < 8; qi = qi + 1) if (slot_w(qi)) assert (in_rng(x_fq[32 * qi + 6 +: 24]));
      end
`endif
    end
`endif
`ifdef P_nothing_before_event
    // invariants: before the first event taken since the last reset is
    // through (e_age 0: none yet; e_age 1..: in s1 at 1, s2 at 2, s3 at 3,
    // its ACKs at r at 4, shown at 5 = LAT), nothing else is in flight
    // (queue, r, the ops, the scanner's pipeline) and every flow of C
    // swept so far holds no packet (nothing to flush); the event's own
    // write of C is at the end of e_age 3
    if (e_age < 6'd5) assert (x_cnt == 4'd0 && !`hit_v && !(`h1_v && `h1_nz) && !(`h2_v && `h2_nz) && !(`sc_v && x_crd[23:20] != 4'd0));
    if (e_age < 6'd4) assert (!`r_a1v && !`r_a2v);
    if (e_age < 6'd3) assert (!x_sv[0]);
    if (e_age < 6'd2) assert (!x_sv[1]);
    if (e_age < 6'd1) assert (!x_sv[2]);
    if (e_age < 6'd4)
      for (qi = 0; qi < N; qi = qi + 1)
        assert (x_c[24 * qi + 20 +: 4] == 4'd0 || (x_sweep && qi >= x_swptr));
`endif
`ifdef P_quiet_after_reset
    // invariants, by the last reset's age (r_hist[j]: a reset j + 1 cycles
    // back; power-up is no reset here: no sweep): the sweep runs exactly in
    // the N cycles after a reset, at entry age - 1; then the first event
    // can be taken N + 1 cycles after it, so it is in s1 at N + 2, s2, s3,
    // at r at N + 5, shown at N + 6 = QUIET + 1; the scanner restarts at
    // N + 2 (sc_v), its first hit at N + 5
    if (r_hist[N-1:0] == 0) assert (!x_sweep);
    else assert (x_sweep && x_swptr == (r_hist[0] ? 2'd0 : r_hist[1] ? 2'd1 : r_hist[2] ? 2'd2 : 2'd3));
    if (r_hist[N:0] != 0) assert (!x_sv[2] && !`sc_v);
    if (r_hist[N+1:0] != 0) assert (!x_sv[1] && !`h1_v);
    if (r_hist[N+2:0] != 0) assert (!x_sv[0] && !`h2_v);
    if (r_hist[N+3:0] != 0) assert (!`r_a1v && !`r_a2v && !`hit_v);
    if (r_hist[N+4:0] != 0) assert (x_cnt == 4'd0);
`endif
`ifdef P_ack_in_table
    // property ack_in_table: an ACK names a flow of the table (< N); with no ACK out, every ACK field is 0
    if (out_valid) assert (out_flow < N);
    else assert (out_flow == 16'd0 && out_psn == 24'd0 && !out_ece && out_n == 4'd0 && !out_nak);
`endif
`ifdef P_ece_covers_one_ce
    // property ece_covers_one_ce: an ACK with ECE covers exactly one packet and is no NAK, so the ECE count never exceeds the CE packets
    if (out_valid && out_ece) assert (out_n == 4'd1 && !out_nak);
    // invariants: every queue slot (stale or not) and the s3 op's registered first ACK keep that shape (every word written does: the split's second ACK is ECE with n = 1)
    for (qi = 0; qi < 8; qi = qi + 1) assert (ece_ok(x_fq[32 * qi +: 32]));
    assert (!`r_a1ece || (`r_a1n == 4'd1 && !`r_a1nak));
`endif
`ifdef P_ack_within_received
    // property ack_within_received: an ACK of a flow opened by its first event since the reset acknowledges no PSN it did not receive in order: open PSN <= ACK PSN <= next expected (mod 2^24), while fewer than 2^23 packets were taken in order since the open
    if (mine && in_open) assume (in_psn == OPEN_PSN);
    if (w_ack && trk && !o_wrap) assert (out_psn - lo <= hi - lo);
`endif
`ifdef P_nak_only_after_gap
    // property nak_only_after_gap: a NAK of a flow opened by its first event since the reset comes only after a packet of a gap (0 < PSN - expected <= GAP_MAX) was taken since the open
    if (w_ack && out_nak && trk) assert (o_gap);
`endif
    if (past) begin
`ifdef P_quiet_after_reset
      // property quiet_after_reset: no ACK in the N + LAT cycles after a reset (the queue and the ops in flight dropped, the sweep); in_ready low in the N sweep cycles after it
      if (r_hist != 0) assert (!out_valid);
      if (r_hist[N-1:0] != 0) assert (!in_ready);
`endif
`ifdef P_nothing_before_event
      // property nothing_before_event: no ACK until LAT cycles after the first event taken since the last reset (or power-up) (no flow holds packets, so no flush)
      assert (!out_valid || e_age >= LAT);
`endif
    end
  end
endmodule

// inside ack_generator: the queue, the ops' valids, the s3 op's registered ACKs, the scanner and the sweep, for the strengthening invariants (connected to the harness's x_* wires)
  (* keep *) wire [255:0] h_fq = {fq7$q, fq6$q, fq5$q, fq4$q, fq3$q, fq2$q, fq1$q, fq0$q};
  (* keep *) wire [2:0] h_rp = rp$q;
  (* keep *) wire [2:0] h_wp = wp$q;
  (* keep *) wire [3:0] h_cnt = cnt$q;
  (* keep *) wire h_busy = busy$q;
  (* keep *) wire [7:0] h_r = {r_a1v$q, r_a1ece$q, r_a1n$q, r_a1nak$q, r_a2v$q};
  (* keep *) wire [2:0] h_sv = {s1_v$q, s2_v$q, s3_v$q};
  (* keep *) wire [5:0] h_scan = {sc_v$q, h1_v$q, h1_nz$q, h2_v$q, h2_nz$q, hit_v$q};
  (* keep *) wire h_sweep = ts$sweeping;
  (* keep *) wire [1:0] h_swptr = ts$sweep_ptr;
  (* keep *) wire [23:0] h_crd = t_c$read_data;
  // the ops in s1, s2, s3: {v, flush, kind, idx, oor (s1, s3)} and PSNs; s3's d, d0, PSN + 1 and its state (the table's st3)
  (* keep *) wire [5:0] h_s1 = {s1_v$q, s1_flush$q, s1_kind$q, ts$s1_idx, ts$s1_oor};
  (* keep *) wire [4:0] h_s2 = {s2_v$q, s2_flush$q, s2_kind$q, s2_idx$q};  // its oor flag: h_oor2 inside ack_generator$ts
  (* keep *) wire [5:0] h_s3 = {s3_v$q, s3_flush$q, s3_kind$q, s3_idx$q, ts$upd_oor};
  (* keep *) wire [71:0] h_spsn = {s1_psn$q, s2_psn$q, s3_psn$q};
  (* keep *) wire [48:0] h_s3x = {s3_d0$q, s3_d$q, s3_psn1$q};
  (* keep *) wire [48:0] h_st = ts$state;
  // the s3 op's registered ACKs: {r_a1nak, r_idx}, r_a1psn, r_a2psn
  (* keep *) wire [2:0] h_ri = {r_a1nak$q, r_idx$q};
  (* keep *) wire [47:0] h_rpsn = {r_a1psn$q, r_a2psn$q};
// end inside
// inside ack_generator$ts: s2's out-of-table flag (oor2), for the watched flow's invariants
  (* keep *) wire h_oor2 = oor2$q;
// end inside
// inside ack_generator$t_m: a read port at the watched flow for its invariants (h_addr connected to the harness's watch, h_word to its x_m)
  (* keep *) wire [1:0] h_addr;
  (* keep *) wire [48:0] h_word = mem[h_addr];
// end inside
// inside ack_generator$t_c: the four words of C (pending 23..20 | held since 19..0), for nothing_before_event's invariant
  (* keep *) wire [95:0] h_c = {mem[3], mem[2], mem[1], mem[0]};
// end inside
