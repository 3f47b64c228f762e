// Property harness of `end_con` (the END.CON match at a PE, draft 001
// §4.2.2, COMPANION.md F10, G11: the outer destination against the
// configured 128-bit SID, then the upper layer, giving forward (0),
// decapsulate (1), punt (2) or drop (3), and the bytes a decapsulation
// strips). RustHDL emits no assertions: this module instantiates the
// generated one and states its invariants on its ports. Each property is a
// `P_<name>` block named by a `// property <name>: <text>` line.
//
// The SID (four 32-bit registers) is internal: the harness keeps its own
// copy `sid` of it from the writes it sees (ldcp_sim::end_con::with_sid_word),
// but no port shows the RTL's, so from a state where the two differ (which
// no finite trace of the ports rules out: the SID holds without writes)
// the match would differ for ever. The property that needs the SID,
// rule_after_reset, is therefore claimed for W cycles after a reset (or
// power-up: every register starts at 0, the SID `::`), which the induction
// trace then holds. Everything else is proved for ever, the match bit
// aside: a decision is forward or the rule's row for a matching packet.
//
// depth 11: the window (W = 10 cycles after a reset: 4 SID word writes, then 4 packets' decisions) fits in the induction trace (W + 1), which then holds the reset; rule_after_reset's base case grows about 1.6x a step from there (20 s at 11 with z3 flattened, 45 s at 12 with Yices)
// flatten: rule_after_reset proves in 20 + 9 s flattened against 27 + 17 s hierarchical (z3); the other properties take under a second either way
// The window: rule_after_reset is claimed for W cycles after a reset (or power-up); beyond, it rests on the harness's SID agreeing with the RTL's, which no port shows.
module end_con_props (
    input clock,
    input reset,
    input in_valid,
    input [63:0] in_dst_hi,
    input [63:0] in_dst_lo,
    input [7:0] in_next_header,
    input [7:0] in_srh_next_header,
    input [7:0] in_srh_segments_left,
    input [7:0] in_srh_ext_len,
    input cfg_we,
    input [1:0] cfg_word,
    input [31:0] cfg_data
);
  localparam LAT = 3;  // END_CON_LATENCY_CYCLES: a packet in cycle t has its decision in cycle t + 3 (hdl/src/end_con.rs, Timing)
  localparam W = 10;  // the window after a reset (the depth line): a reset, 4 word writes, packets from the 5th cycle on, decisions 3 cycles later
  localparam [31:0] MAXC = 32'hffffffff;  // END_CON_COUNTER_BITS = 32, saturating

  wire out_valid;
  wire [1:0] out_action;
  wire [11:0] out_strip;  // STRIP_BITS = 12
  wire [31:0] n_fwd, n_decap, n_punt, n_drop;
  end_con dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_dst_hi(in_dst_hi),
      .in_dst_lo(in_dst_lo), .in_next_header(in_next_header),
      .in_srh_next_header(in_srh_next_header), .in_srh_segments_left(in_srh_segments_left),
      .in_srh_ext_len(in_srh_ext_len), .cfg_we(cfg_we), .cfg_word(cfg_word), .cfg_data(cfg_data),
      .out_valid(out_valid), .out_action(out_action), .out_strip_bytes(out_strip),
      .stat_forwarded_pkts(n_fwd), .stat_decap_pkts(n_decap), .stat_punted_pkts(n_punt),
      .stat_dropped_pkts(n_drop));

  // ---- the rule, written here apart from the RTL (ldcp_sim::end_con::decide,
  // strip_bytes, decision): codes 0 forward, 1 decapsulate, 2 punt, 3 drop
  wire [127:0] dst = {in_dst_hi, in_dst_lo};
  wire srh = in_next_header == 8'd43;  // NH_ROUTING: the SRH's Next Header is the upper layer
  wire [7:0] upper = srh ? in_srh_next_header : in_next_header;
  wire sl_ok = !srh || in_srh_segments_left == 8'd0;  // Segments Left 0 when there is an SRH
  // the decision for a packet that matches END.CON
  wire [1:0] hit_act = !sl_ok ? 2'd3                               // SL > 0: drop
                     : (upper == 8'd4 || upper == 8'd41) ? 2'd1     // IPv4 / IPv6: decapsulate
                     : (upper == 8'd58) ? 2'd2                      // ICMPv6: punt
                     : 2'd3;                                        // anything else: drop
  // 40 (outer header), plus 8 (Hdr Ext Len + 1) for the SRH
  wire [11:0] hit_strip = srh ? 12'd48 + {1'b0, in_srh_ext_len, 3'b000} : 12'd40;
  // the SID as the writes set it: a write applies to packets from the next cycle on
  reg [127:0] sid = 128'd0;
  wire match = sid != 128'd0 && dst == sid;  // `::` is not configured: nothing matches
  wire [1:0] exp_act = match ? hit_act : 2'd0;
  wire [11:0] exp_strip = exp_act == 2'd1 ? hit_strip : 12'd0;

  // ---- the harness's pipeline: a packet's rule LAT cycles on; a reset drops
  // the packets in flight (those of its cycle and the two before)
  reg [LAT-1:0] v = 0;  // v[i]: a packet i + 1 cycles ago, not dropped
  reg [1:0] a0, a1, a2, h0, h1, h2;  // the rule's action; the action were it to match
  reg [11:0] s0, s1, s2, t0, t1, t2;  // the rule's strip; the strip were it to match
  reg z0, z1, z2;  // its destination is `::`
  reg past = 1'b0, p_reset = 1'b0, p_ov = 1'b0;
  reg [1:0] p_act = 2'd0;
  reg [31:0] p_fwd = 0, p_decap = 0, p_punt = 0, p_drop = 0;
  // cycles since the last reset, saturating; power-up counts as one (every register 0)
  reg [5:0] r_age = 6'd0;
  always @(posedge clock) begin
    past <= 1'b1;
    p_reset <= reset;
    p_ov <= out_valid;
    p_act <= out_action;
    {p_fwd, p_decap, p_punt, p_drop} <= {n_fwd, n_decap, n_punt, n_drop};
    if (r_age != 6'h3f) r_age <= r_age + 6'd1;
    v <= {v[LAT-2:0], in_valid};
    {a0, a1, a2} <= {exp_act, a0, a1};
    {h0, h1, h2} <= {hit_act, h0, h1};
    {s0, s1, s2} <= {exp_strip, s0, s1};
    {t0, t1, t2} <= {hit_strip, t0, t1};
    {z0, z1, z2} <= {dst == 128'd0, z0, z1};
    if (cfg_we)
      case (cfg_word)  // word 0 is bits 127..96 (ldcp_sim::end_con::with_sid_word)
        2'd0: sid[127:96] <= cfg_data;
        2'd1: sid[95:64] <= cfg_data;
        2'd2: sid[63:32] <= cfg_data;
        2'd3: sid[31:0] <= cfg_data;
      endcase
    if (reset) begin
      sid <= 128'd0;  // reset: the SID back to `::`, the write of this cycle dropped
      v <= 0;
      r_age <= 6'd0;
    end
  end

  always @(*) begin
`ifdef P_one_decision_per_packet
    // property one_decision_per_packet: a decision is out exactly LAT = 3 cycles after each packet, unless a reset came in the cycle of the packet or one of the two after
    assert (out_valid == v[LAT-1]);
`endif
`ifdef P_quiet_without_packet
    // property quiet_without_packet: with no decision out, the action is 0 and the strip 0
    if (!out_valid) assert (out_action == 2'd0 && out_strip == 12'd0);
`endif
`ifdef P_rule_given_match
    // property rule_given_match: every decision is forward (no strip) or the rule's row for a packet to END.CON (decide(true, ...)) with the rule's strip when it decapsulates: the fields decide everything but the match
    if (out_valid)
      assert ((out_action == 2'd0 && out_strip == 12'd0)
              || (out_action == h2 && out_strip == (h2 == 2'd1 ? t2 : 12'd0)));
`endif
`ifdef P_unspecified_forwarded
    // property unspecified_forwarded: a packet to `::` is always forwarded (`::` is never an SID: it means not configured)
    if (out_valid && z2) assert (out_action == 2'd0 && out_strip == 12'd0);
`endif
`ifdef P_rule_after_reset
    // property rule_after_reset: for W cycles after a reset (or power-up), every decision is the rule's for its packet against the SID its writes set (match = SID != :: and destination == SID): action and strip
    if (r_age <= W && out_valid) assert (out_action == a2 && out_strip == s2);
`endif
    if (past) begin
`ifdef P_counters_never_decrease
      // property counters_never_decrease: the four counters only grow, but for a reset
      if (!p_reset) assert (n_fwd >= p_fwd && n_decap >= p_decap && n_punt >= p_punt && n_drop >= p_drop);
`endif
`ifdef P_counters_count
      // property counters_count: a counter grows by one exactly when its decision was out the cycle before, until it saturates; a reset zeroes them
      if (p_reset) assert (n_fwd == 0 && n_decap == 0 && n_punt == 0 && n_drop == 0);
      else begin
        assert (n_fwd == p_fwd + (p_ov && p_act == 2'd0 && p_fwd != MAXC));
        assert (n_decap == p_decap + (p_ov && p_act == 2'd1 && p_decap != MAXC));
        assert (n_punt == p_punt + (p_ov && p_act == 2'd2 && p_punt != MAXC));
        assert (n_drop == p_drop + (p_ov && p_act == 2'd3 && p_drop != MAXC));
      end
`endif
    end
  end
endmodule
