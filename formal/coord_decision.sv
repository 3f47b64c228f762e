// Property harness of `coord_decision` (draft 002's per-packet decision,
// COMPANION.md C9), proved by k-induction with `ldcp prove --block
// coord_decision`. RustHDL emits no assertions: this module instantiates
// the generated one and states its invariants. Each property is a
// `P_<name>` block, enabled one at a time by `ldcp prove`; a line
// `// property <name>: <text>` names and explains it.
module coord_decision_props (
    input clock,
    input reset,
    input in_valid,
    input in_congested,
    input in_cc,
    input [1:0] in_light,
    input in_arv,
    input in_last_hop
);
  wire out_valid, out_reroute, out_write_indicator, out_type3, out_mark_allowed, out_incast;
  wire [31:0] stat_reroutes, stat_type3, stat_marks_allowed, stat_incast;
  coord_decision dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_congested(in_congested),
      .in_cc(in_cc), .in_light(in_light), .in_arv(in_arv), .in_last_hop(in_last_hop),
      .out_valid(out_valid), .out_reroute(out_reroute), .out_write_indicator(out_write_indicator),
      .out_type3(out_type3), .out_mark_allowed(out_mark_allowed), .out_incast(out_incast),
      .stat_reroutes(stat_reroutes), .stat_type3(stat_type3),
      .stat_marks_allowed(stat_marks_allowed), .stat_incast(stat_incast));

  // the cycle before: the inputs, the reset, the outputs and the counters
  reg past = 1'b0;
  reg p_reset, p_valid, p_cong, p_cc, p_arv, p_last;
  reg [1:0] p_light;
  reg p_re, p_t3, p_ma, p_inc;
  reg [31:0] p_n_re, p_n_t3, p_n_ma, p_n_inc;
  always @(posedge clock) begin
    past <= 1'b1;
    p_reset <= reset;
    p_valid <= in_valid;
    p_cong <= in_congested;
    p_cc <= in_cc;
    p_light <= in_light;
    p_arv <= in_arv;
    p_last <= in_last_hop;
    p_re <= out_reroute;
    p_t3 <= out_type3;
    p_ma <= out_mark_allowed;
    p_inc <= out_incast;
    p_n_re <= stat_reroutes;
    p_n_t3 <= stat_type3;
    p_n_ma <= stat_marks_allowed;
    p_n_inc <= stat_incast;
  end

  // C9 as COMPANION.md words it, written here apart from the RTL
  wire none = p_light == 2'd0;
  wire ar_possible = p_valid && p_cong && !p_cc && !p_last;

  always @(*) begin
    if (past) begin
`ifdef P_one_action
      // property one_action: a decision is at most one of re-route, type 3 and marking allowed
      assert (out_reroute + out_type3 + out_mark_allowed <= 2'd1);
`endif
`ifdef P_quiet_without_packet
      // property quiet_without_packet: no packet (or a reset) the cycle before, no decision out
      if (!p_valid || p_reset)
        assert (!out_valid && !out_reroute && !out_write_indicator && !out_type3
                && !out_mark_allowed && !out_incast);
`endif
`ifdef P_c9_rule
      // property c9_rule: every output is C9's row for the packet of the cycle before (latency 1)
      if (!p_reset) begin
        assert (out_valid == p_valid);
        assert (out_reroute == (ar_possible && !none));
        assert (out_type3 == (ar_possible && none && p_arv));
        assert (out_mark_allowed == (p_valid && p_cong && (p_cc || p_last || (none && !p_arv))));
        assert (out_write_indicator == (p_valid && !p_last && p_light >= 2'd2));
        assert (out_incast == (p_valid && p_cong && p_last));
      end
`endif
`ifdef P_counters_never_decrease
      // property counters_never_decrease: the four counters only grow, but for a reset
      if (!p_reset)
        assert (stat_reroutes >= p_n_re && stat_type3 >= p_n_t3
                && stat_marks_allowed >= p_n_ma && stat_incast >= p_n_inc);
`endif
`ifdef P_counters_count
      // property counters_count: a counter grows by one exactly when its decision was out, until it saturates
      if (!p_reset) begin
        assert (stat_reroutes == p_n_re + (p_re && p_n_re != 32'hffffffff));
        assert (stat_type3 == p_n_t3 + (p_t3 && p_n_t3 != 32'hffffffff));
        assert (stat_marks_allowed == p_n_ma + (p_ma && p_n_ma != 32'hffffffff));
        assert (stat_incast == p_n_inc + (p_inc && p_n_inc != 32'hffffffff));
      end
`endif
    end
  end
endmodule
