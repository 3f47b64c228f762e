// Property harness of `end_con` (the END.CON match at a PE, draft 001
// §4.2.2, COMPANION.md F10, G11: the outer destination against the
// configured 128-bit SID, then the upper layer, giving forward (0),
// decapsulate (1), punt (2) or drop (3), and the bytes a decapsulation
// strips). RustHDL emits no assertions: this module instantiates the
// generated one and states its invariants on its ports. Each property is a
// `P_<name>` block named by a `// property <name>: <text>` line.
//
// The SID (four 32-bit registers) is internal, so the property that needs
// it, `rule`, sits in a section inside the block: it keeps its own copy of
// the SID from the writes at the block's ports
// (ldcp_sim::end_con::with_sid_word) and states, as its strengthening
// invariant, that the block's SID registers (with their registered write
// applied) equal it. Every property is proved for ever. (Until sections
// existed the rule was claimed only for 10 cycles after a reset, at depth
// 11.)
//
// depth 5: a packet's decision is 3 cycles on, the SID-set flag one cycle behind the SID, and the counters count a cycle after the decision (rule proves at 4 too)
// flatten: one SMT2 state; z3 proves each property in about a second flattened
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

  // ---- the harness's pipeline: a packet's rule LAT cycles on; a reset drops
  // the packets in flight (those of its cycle and the two before)
  reg [LAT-1:0] v = 0;  // v[i]: a packet i + 1 cycles ago, not dropped
  reg [1:0] h0, h1, h2;  // the action were it to match
  reg [11:0] t0, t1, t2;  // the strip were it to match
  reg z0, z1, z2;  // its destination is `::`
  reg past = 1'b0, p_reset = 1'b0, p_ov = 1'b0;
  reg [1:0] p_act = 2'd0;
  reg [31:0] p_fwd = 0, p_decap = 0, p_punt = 0, p_drop = 0;
  always @(posedge clock) begin
    past <= 1'b1;
    p_reset <= reset;
    p_ov <= out_valid;
    p_act <= out_action;
    {p_fwd, p_decap, p_punt, p_drop} <= {n_fwd, n_decap, n_punt, n_drop};
    v <= {v[LAT-2:0], in_valid};
    {h0, h1, h2} <= {hit_act, h0, h1};
    {t0, t1, t2} <= {hit_strip, t0, t1};
    {z0, z1, z2} <= {dst == 128'd0, z0, z1};
    if (reset) v <= 0;
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

// inside end_con: the SID (sid0..sid3) and its registered write (w_v, w_word, w_data) are the block's own registers
`ifdef P_rule
  // property rule: every decision is the rule's for its packet against the SID its writes set (match = SID != :: and destination == SID): action and strip, for ever
  // the rule again, written apart from the RTL, on the block's own ports
  // (the same as the harness module's, which cannot see the SID registers)
  wire h_srh = in_next_header == 8'd43;
  wire [7:0] h_upper = h_srh ? in_srh_next_header : in_next_header;
  wire h_sl_ok = !h_srh || in_srh_segments_left == 8'd0;
  wire [1:0] h_hit_act = !h_sl_ok ? 2'd3
                       : (h_upper == 8'd4 || h_upper == 8'd41) ? 2'd1
                       : (h_upper == 8'd58) ? 2'd2
                       : 2'd3;
  wire [11:0] h_hit_strip = h_srh ? 12'd48 + {1'b0, in_srh_ext_len, 3'b000} : 12'd40;
  // the SID as the writes at the ports set it: a write applies to packets from the next cycle on
  reg [127:0] h_sid = 128'd0;
  wire h_match = h_sid != 128'd0 && {in_dst_hi, in_dst_lo} == h_sid;
  wire [1:0] h_act = h_match ? h_hit_act : 2'd0;
  wire [11:0] h_strip = h_act == 2'd1 ? h_hit_strip : 12'd0;
  reg [1:0] h_a0 = 0, h_a1 = 0, h_a2 = 0;
  reg [11:0] h_s0 = 0, h_s1 = 0, h_s2 = 0;
  always @(posedge clock) begin
    {h_a0, h_a1, h_a2} <= {h_act, h_a0, h_a1};
    {h_s0, h_s1, h_s2} <= {h_strip, h_s0, h_s1};
    if (cfg_we)
      case (cfg_word)  // word 0 is bits 127..96 (ldcp_sim::end_con::with_sid_word)
        2'd0: h_sid[127:96] <= cfg_data;
        2'd1: h_sid[95:64] <= cfg_data;
        2'd2: h_sid[63:32] <= cfg_data;
        2'd3: h_sid[31:0] <= cfg_data;
      endcase
    if (reset) h_sid <= 128'd0;  // reset: `::`, the write of its cycle dropped
  end
  // the block's SID with its registered write applied
  wire [127:0] h_regs = {sid0$q, sid1$q, sid2$q, sid3$q};
  wire [127:0] h_applied = !w_v$q ? h_regs
                         : w_word$q == 2'd0 ? {w_data$q, h_regs[95:0]}
                         : w_word$q == 2'd1 ? {h_regs[127:96], w_data$q, h_regs[63:0]}
                         : w_word$q == 2'd2 ? {h_regs[127:64], w_data$q, h_regs[31:0]}
                         : {h_regs[127:32], w_data$q};
  always @(*) begin
    // strengthening: the block's SID, once its registered write lands, is the harness's
    assert (h_applied == h_sid);
    if (out_valid) assert (out_action == h_a2 && out_strip_bytes == h_s2);
  end
`endif
// end inside
