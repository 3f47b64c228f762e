// Property harness of `fast_cnp` (the Fast CNP trigger of a congested WAN
// node, draft 001 §4.2.2, COMPANION.md F9, G6-G9: a packet WRED/ECN
// forwards marked CE, whose Fast CNP can be built, emits a descriptor for
// its flow, at most one per hashed slot per interval; suppressed and
// unparsable candidates are counted). RustHDL emits no assertions: this
// module instantiates the generated one and states its invariants on its
// ports. Each property is a `P_<name>` block named by a `// property
// <name>: <text>` line.
//
// Port-only harness: the slot table (256 words, RAM), the time `now` and
// the slot hash are internal, so the once-per-interval rule is not stated
// here (it rests on the RAM's stamps and on `now`, `nowp1` agreeing, none
// of which a port shows). What is proved, for ever: which packets decide
// (one decision each, at the documented latency), which can emit (a
// parsed candidate marked CE, never during the table sweep), the outcome
// classes, the descriptor's pass-through and the counters.
//
// depth 7: the decision pipeline is 5 registers deep (FAST_CNP_LATENCY_CYCLES) and the counters one more
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

  always @(*) begin
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
