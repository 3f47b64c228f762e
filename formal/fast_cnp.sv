// Property harness of `fast_cnp` (the Fast CNP trigger of a congested WAN
// node, draft 001 §4.2.2, COMPANION.md F9, G6-G9: a packet WRED/ECN
// forwards marked CE, whose Fast CNP can be built, emits a descriptor for
// its flow, at most one per hashed slot per interval; suppressed and
// unparsable candidates are counted). RustHDL emits no assertions: this
// module instantiates the generated one and states its invariants on its
// ports (and, for the slot rule, on internals reached by sections and
// connections, below). Each property is a `P_<name>` block named by a `// property
// <name>: <text>` line.
//
// The ports, and slot h_S's state inside: once_per_interval and
// sent_when_due state the once-per-interval rule (COMPANION.md G9;
// ldcp_sim::fast_cnp, "The rule", "Time", "Reset") for any one slot h_S
// (anyconst). The harness recomputes the slot of each packet from its
// in_* fields by the spec's hash (ldcp_sim::fast_cnp::slot: each address
// folded to 32 bits, byte b of field f times x^(1 + 4f + b) in GF(2^8) mod
// 0x11d, XORed), not from the RTL's masks or slot registers, and keeps its
// own record of the slot: h_valid (an emission for h_S since the last
// reset), h_age (true cycles since it, saturating at 2^24, above any
// 24-bit interval), h_cleared (the sweep cleared h_S since the last
// reset). The interval is the level the decision takes, cfg_interval_cycles
// of 3 cycles before out_emit (i3), and may change from cycle to cycle.
// What is proved, for ever:
// - once_per_interval: two emissions for h_S with no reset between are at
//   least the interval apart in true cycles (the 31-bit stamps' wrap only
//   ever suppresses).
// - sent_when_due: exactly the rule for a parsed candidate of h_S read
//   after the sweep: emitted iff not emitted since the sweep cleared the
//   slot, or its last emission (< 2^24 cycles back) is >= the interval back.
//   Unstated: a last emission >= 2^24 cycles back (modulo 2^31 it may look
//   young: suppressed, as documented) and a slot not swept since power-up
//   (the RAM's power-up contents, free in the solver).
// Their invariants (CNP_SLOT_INV, asserted, so assumed in the induction's
// window): `nowp1 == now + 1`; h_age <= 2^24; an emission recorded ->
// no sweep running; with the record including this cycle's emission
// (rec_valid, rec_age), RAM word of h_S == {1, now - rec_age - 2} (the
// stamp is `now` in the decision's stage 3, 2 cycles before out_emit;
// only the sent bit once rec_age saturates); swept and no emission since
// -> sent bit 0; swept and sweep running -> sw_ptr > h_S.
// Internals reached by two sections (pasted into the generated modules)
// and five connections (yosys `connect -set` after flatten): inside
// fast_cnp, keep wires h_now, h_nowp1, h_sweep, h_swptr copy now$q,
// nowp1$q, sw_active$q, sw_ptr$q; inside fast_cnp$last_sent, h_word =
// mem[h_addr] (an extra asynchronous read of the slot RAM: no RTL port or
// state added). h_addr is driven by the harness's h_S; x_word, x_now,
// x_nowp1, x_sweep, x_swptr (undriven here) are driven by them. Sound: the
// sections only read (keep wires, no driver on any RTL signal), the
// connections drive only wires the harness leaves undriven, and every
// invariant is itself proved (base case and induction), so it constrains
// no reachable state. Checked by mutation (not kept): the assertion
// tightened by one cycle fails in the base case; a hash with the wrong
// coefficients, the x_word connection removed, the RTL's age-1 bypass
// forced to send, or its sweep writing the sent bit all fail; its age
// taken from now (one less) proves once_per_interval (it only
// over-suppresses) and fails sent_when_due's induction.
// depth 7: the decision pipeline is 5 registers deep (FAST_CNP_LATENCY_CYCLES) and the counters one more; the slot rule's decision reads the RAM 4 cycles before out_emit and its bypasses cover the 3 writes after (needs the invariants 4 steps back)
// flatten: z3 and Yices both under a second flattened for the properties that z3 can do at all; hierarchical z3 stalls at step 0
// solver yices: z3 4.8.12 stalls at step 0 (flattened) on every property whose cone reaches the slot RAM (outcome_classes, emit_only_marked_parsed, the counters); Yices proves each in under a second
module fast_cnp_props (
    input clock,
    input reset,
    input in_valid,
    input [1:0] in_decision,
    input in_parsed,
    input [63:0] in_src_hi,
    input [63:0] in_src_lo,
    input [63:0] in_dst_hi,
    input [63:0] in_dst_lo,
    input [23:0] in_dest_qp,
    input dsc_ipv6,
    input [63:0] dsc_src_hi,
    input [63:0] dsc_src_lo,
    input [63:0] dsc_dst_hi,
    input [63:0] dsc_dst_lo,
    input [63:0] dsc_end_con_hi,
    input [63:0] dsc_end_con_lo,
    input [23:0] dsc_dest_qp,
    input [15:0] dsc_pkey,
    input [15:0] dsc_udp_src,
    input [23:0] cfg_interval_cycles
);
  localparam LAT = 5;  // FAST_CNP_LATENCY_CYCLES: a packet in cycle t has its decision in cycle t + 5 (hdl/src/fast_cnp.rs, Timing)
  localparam [1:0] MARKED = 2'd1;  // DECISION_MARKED: WRED/ECN's forward-marked-CE decision
  localparam [31:0] MAXC = 32'hffffffff;  // FAST_CNP_COUNTER_BITS = 32, saturating

  wire out_valid, out_emit, out_supp, out_unp, out_ipv6, ready;
  wire [63:0] o_csh, o_csl, o_cdh, o_cdl, o_ech, o_ecl;
  wire [23:0] o_qp;
  wire [15:0] o_pkey, o_udp;
  wire [31:0] n_marked, n_sent, n_supp, n_unp;
  fast_cnp dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_decision(in_decision),
      .in_parsed(in_parsed), .in_src_hi(in_src_hi), .in_src_lo(in_src_lo), .in_dst_hi(in_dst_hi),
      .in_dst_lo(in_dst_lo), .in_dest_qp(in_dest_qp), .dsc_ipv6(dsc_ipv6),
      .dsc_src_hi(dsc_src_hi), .dsc_src_lo(dsc_src_lo), .dsc_dst_hi(dsc_dst_hi),
      .dsc_dst_lo(dsc_dst_lo), .dsc_end_con_hi(dsc_end_con_hi), .dsc_end_con_lo(dsc_end_con_lo),
      .dsc_dest_qp(dsc_dest_qp), .dsc_pkey(dsc_pkey), .dsc_udp_src(dsc_udp_src),
      .cfg_interval_cycles(cfg_interval_cycles), .out_valid(out_valid), .out_emit(out_emit),
      .out_suppressed(out_supp), .out_unparsed(out_unp), .out_ipv6(out_ipv6),
      .out_cnp_src_hi(o_csh), .out_cnp_src_lo(o_csl), .out_cnp_dst_hi(o_cdh),
      .out_cnp_dst_lo(o_cdl), .out_end_con_hi(o_ech), .out_end_con_lo(o_ecl),
      .out_dest_qp(o_qp), .out_pkey(o_pkey), .out_udp_src(o_udp),
      .stat_marked_pkts(n_marked), .stat_sent_pkts(n_sent), .stat_suppressed_pkts(n_supp),
      .stat_unparsed_pkts(n_unp), .stat_table_ready(ready));

  // the packet of LAT cycles back, as the harness saw it: valid (not dropped
  // by a reset in its cycle or the LAT - 1 after), a candidate (marked CE),
  // parsed; and whether the table was being swept in the cycle after it (its
  // slot's RAM read: stat_table_ready low then)
  reg [LAT-1:0] v = 0, c = 0, pa = 0, sw = 0;
  reg past = 1'b0, p_reset = 1'b0, p_ov = 1'b0, p_emit = 1'b0, p_supp = 1'b0, p_unp = 1'b0;
  reg [31:0] p_marked = 0, p_sent = 0, p_supp_n = 0, p_unp_n = 0;
  reg p_ipv6 = 1'b0;
  reg [63:0] p_sh = 0, p_sl = 0, p_dh = 0, p_dl = 0, p_eh = 0, p_el = 0;
  reg [23:0] p_qp = 0;
  reg [15:0] p_pkey = 0, p_udp = 0;
  always @(posedge clock) begin
    past <= 1'b1;
    p_reset <= reset;
    {p_ov, p_emit, p_supp, p_unp} <= {out_valid, out_emit, out_supp, out_unp};
    {p_marked, p_sent, p_supp_n, p_unp_n} <= {n_marked, n_sent, n_supp, n_unp};
    {p_ipv6, p_sh, p_sl, p_dh, p_dl, p_eh, p_el, p_qp, p_pkey, p_udp}
      <= {dsc_ipv6, dsc_src_hi, dsc_src_lo, dsc_dst_hi, dsc_dst_lo, dsc_end_con_hi,
          dsc_end_con_lo, dsc_dest_qp, dsc_pkey, dsc_udp_src};
    v <= {v[LAT-2:0], in_valid};
    c <= {c[LAT-2:0], in_decision == MARKED};
    pa <= {pa[LAT-2:0], in_parsed};
    sw <= {sw[LAT-2:0], !ready};  // sw[i]: the sweep ran in cycle t - i: sw[LAT-2] is the read of the packet of sw's v[LAT-1]
    if (reset) v <= 0;
  end

  wire cand = v[LAT-1] && c[LAT-1];  // the packet deciding now is a candidate

  // ---- once_per_interval: slot h_S's record, kept by the harness
  // the slot a packet hashes to, recomputed here from the spec
  // (ldcp_sim::fast_cnp::slot, not the RTL's masks): each address folded to
  // 32 bits (the XOR of its four words), DestQP zero-extended; byte b of
  // field f (source 0, destination 1, DestQP 2) times x^(1 + 4f + b) in
  // GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1 (0x11d); the twelve products XORed
  function [7:0] xt(input [7:0] a);  // times x
    xt = {a[6:0], 1'b0} ^ (a[7] ? 8'h1d : 8'h00);
  endfunction
  wire [95:0] key = {8'd0, in_dest_qp,
                     in_dst_hi[63:32] ^ in_dst_hi[31:0] ^ in_dst_lo[63:32] ^ in_dst_lo[31:0],
                     in_src_hi[63:32] ^ in_src_hi[31:0] ^ in_src_lo[63:32] ^ in_src_lo[31:0]};
  reg [7:0] in_slot, term;
  integer f, b, e;
  always @(*) begin
    in_slot = 8'd0;
    for (f = 0; f < 3; f = f + 1)
      for (b = 0; b < 4; b = b + 1) begin
        term = key[32 * f + 8 * b +: 8];
        for (e = 0; e < 13; e = e + 1)
          if (e < 1 + 4 * f + b) term = xt(term);
        in_slot = in_slot ^ term;
      end
  end
  (* keep, anyconst *) reg [7:0] h_S;  // the watched slot
  // the RTL's internals, carried here by the `// connect` lines below:
  // slot h_S's word in the RAM (sent bit 31, stamp 30..0), the time `now`
  // and `nowp1`, the sweep's flag (sections inside fast_cnp and
  // fast_cnp$last_sent expose them)
  // connect dut.last_sent.h_addr = h_S: the RAM's extra read port (in its section) reads the watched slot
  // connect x_word = dut.last_sent.h_word: slot h_S's word, from the section inside fast_cnp$last_sent
  // connect x_now = dut.h_now: the RTL's time `now`, from the section inside fast_cnp
  // connect x_nowp1 = dut.h_nowp1: the RTL's `nowp1` (now + 1, its second counter), from the section inside fast_cnp
  // connect x_sweep = dut.h_sweep: the sweep runs (sw_active), from the section inside fast_cnp
  // connect x_swptr = dut.h_swptr: the slot the sweep clears (sw_ptr), from the section inside fast_cnp
  (* keep *) wire [31:0] x_word;
  (* keep *) wire [30:0] x_now, x_nowp1;
  (* keep *) wire x_sweep;
  (* keep *) wire [7:0] x_swptr;
  localparam [24:0] SAT = 25'h1000000;  // 2^24 > any interval (24 bits): the harness's age saturates there
  reg [LAT-1:0] hs = 0;  // hs[i]: the packet of i + 1 cycles back hashes to h_S
  reg h_valid = 1'b0;  // slot h_S emitted since the last reset (before this cycle)
  reg [24:0] h_age = 0;  // cycles since that emission, saturating at SAT
  reg h_cleared = 1'b0;  // the sweep cleared slot h_S since the last reset
  reg [23:0] i1 = 0, i2 = 0, i3 = 0;  // cfg_interval_cycles 1, 2, 3 cycles back
  wire emit_s = out_emit && hs[LAT-1];  // a Fast CNP for slot h_S now
  wire rec_valid = emit_s || h_valid;  // the record including this cycle's emission
  wire [24:0] rec_age = emit_s ? 25'd0 : h_age;
  always @(posedge clock) begin
    hs <= {hs[LAT-2:0], in_slot == h_S};
    {i3, i2, i1} <= {i2, i1, cfg_interval_cycles};
    h_age <= emit_s ? 25'd1 : h_age < SAT ? h_age + 25'd1 : SAT;
    if (reset) h_valid <= 1'b0;
    else if (emit_s) h_valid <= 1'b1;
    if (reset) h_cleared <= 1'b0;
    else if (x_sweep && x_swptr == h_S) h_cleared <= 1'b1;
  end

  // once_per_interval and sent_when_due share the slot's invariants
`ifdef P_once_per_interval
`define CNP_SLOT_INV
`endif
`ifdef P_sent_when_due
`define CNP_SLOT_INV
`endif
  always @(*) begin
`ifdef P_once_per_interval
    // property once_per_interval: two Fast CNPs for packets hashing to one slot (any slot h_S), with no reset between, are at least the interval apart: at the second one, the cycles since the first (true cycles, not modulo 2^31; saturating at 2^24) are >= cfg_interval_cycles as the decision took it (its level 3 cycles before the emission's out_emit); the interval may change freely
    if (emit_s && h_valid) assert (h_age >= {1'b0, i3});
`endif
`ifdef P_sent_when_due
    // property sent_when_due: the converse, the rule exactly: a parsed candidate of slot h_S whose read fell after the sweep is emitted iff the slot has not emitted since the sweep cleared it, or its last emission (< 2^24 cycles back, no reset between) is >= the interval (as above) back; no claim when that emission is >= 2^24 cycles back (the 31-bit stamps wrap: such a candidate may be suppressed, documented) or the slot was not swept since power-up (the RAM's power-up contents)
    if (cand && pa[LAT-1] && !sw[LAT-2] && hs[LAT-1]) begin
      if (h_valid && h_age != SAT) assert (out_emit == (h_age >= {1'b0, i3}));
      if (!h_valid && h_cleared) assert (out_emit);
    end
`endif
`ifdef CNP_SLOT_INV
    // the invariants both rest on (strengthening for the induction)
    assert (x_nowp1 == x_now + 31'd1);  // the RTL's two time counters agree
    assert (h_age <= SAT);
    if (h_valid) assert (!x_sweep);  // no sweep since the slot's emission
    // the RAM's word of slot h_S is the last emission's: sent, stamped with `now` of 2 cycles before its out_emit (its stage 3)
    if (rec_valid) assert (x_word[31] && (rec_age == SAT || x_word[30:0] == x_now - {6'd0, rec_age} - 31'd2));
    // swept and not emitted since: the word's sent bit clear; the running sweep past the slot
    if (h_cleared && !rec_valid) assert (!x_word[31]);
    if (h_cleared && x_sweep) assert (x_swptr > h_S);
`endif
`ifdef P_one_decision_per_packet
    // property one_decision_per_packet: a decision is out exactly LAT = 5 cycles after each packet, unless a reset came in the cycle of the packet or one of the four after
    assert (out_valid == v[LAT-1]);
`endif
`ifdef P_outcome_classes
    // property outcome_classes: a decision is at most one of emit, suppressed and unparsed; unparsed exactly for a candidate not parsed; emit or suppressed exactly for a candidate parsed; none of them without a decision
    assert (out_emit + out_supp + out_unp <= 2'd1);
    assert (out_unp == (cand && !pa[LAT-1]));
    assert ((out_emit || out_supp) == (cand && pa[LAT-1]));
    if (!out_valid) assert (!out_emit && !out_supp && !out_unp);
`endif
`ifdef P_emit_only_marked_parsed
    // property emit_only_marked_parsed: a Fast CNP is emitted only for a packet WRED/ECN marked CE whose parse succeeded (COMPANION.md G6), never for one whose slot's read fell in the table sweep after a reset
    if (out_emit) assert (v[LAT-1] && c[LAT-1] && pa[LAT-1] && !sw[LAT-2]);
`endif
    if (past) begin
`ifdef P_descriptor_passthrough
      // property descriptor_passthrough: the descriptor out is the dsc_* inputs of the cycle before, source and destination swapped into the CNP's (the CNP goes back to the packet's source); zero after a reset
      if (p_reset)
        assert (!out_ipv6 && o_csh == 0 && o_csl == 0 && o_cdh == 0 && o_cdl == 0 && o_ech == 0
                && o_ecl == 0 && o_qp == 0 && o_pkey == 0 && o_udp == 0);
      else
        assert (out_ipv6 == p_ipv6 && o_cdh == p_sh && o_cdl == p_sl && o_csh == p_dh
                && o_csl == p_dl && o_ech == p_eh && o_ecl == p_el && o_qp == p_qp
                && o_pkey == p_pkey && o_udp == p_udp);
`endif
`ifdef P_counters_never_decrease
      // property counters_never_decrease: the four counters only grow, but for a reset
      if (!p_reset)
        assert (n_marked >= p_marked && n_sent >= p_sent && n_supp >= p_supp_n && n_unp >= p_unp_n);
`endif
`ifdef P_counters_count
      // property counters_count: a counter grows by one exactly when its outcome was out the cycle before (marked: any of the three), until it saturates; a reset zeroes them
      if (p_reset) assert (n_marked == 0 && n_sent == 0 && n_supp == 0 && n_unp == 0);
      else begin
        assert (n_marked == p_marked + (p_ov && (p_emit || p_supp || p_unp) && p_marked != MAXC));
        assert (n_sent == p_sent + (p_emit && p_sent != MAXC));
        assert (n_supp == p_supp_n + (p_supp && p_supp_n != MAXC));
        assert (n_unp == p_unp_n + (p_unp && p_unp_n != MAXC));
      end
`endif
    end
  end
endmodule

// inside fast_cnp: the time base and the sweep's flag for once_per_interval's invariants (connected to x_now, x_nowp1, x_sweep)
  (* keep *) wire [30:0] h_now = now$q;
  (* keep *) wire [30:0] h_nowp1 = nowp1$q;
  (* keep *) wire h_sweep = sw_active$q;
  (* keep *) wire [7:0] h_swptr = sw_ptr$q;
// end inside
// inside fast_cnp$last_sent: a read port at the watched slot for once_per_interval (h_addr connected to the harness's h_S, h_word to its x_word)
  (* keep *) wire [7:0] h_addr;
  (* keep *) wire [31:0] h_word = mem[h_addr];
// end inside

