// Property harness of `tunnel_egress` (RFC 6040's decapsulation, draft
// 001 Figure 6; COMPANION.md 1.1), proved with `ldcp prove --block
// tunnel_egress`: an equivalence with the table on every input, through
// the block's pipeline. The table is COMPANION.md's closed form, written
// here apart from the RTL; the flags are the figure's marks. Each property
// is a `P_<name>` block named by a `// property <name>: <text>` line.
module tunnel_egress_props (
    input clock,
    input reset,
    input in_valid,
    input in_ipv6,
    input [15:0] in_word0,
    input [15:0] in_csum,
    input [1:0] in_outer_ecn
);
  localparam L = 5;  // ldcp_sim::tunnel_ecn::EGRESS_LATENCY_CYCLES
  wire out_valid, out_drop;
  wire [1:0] out_flag, out_ecn;
  wire [15:0] out_word0, out_csum;
  wire [31:0] s_fwd, s_drop, s_dang, s_unused;
  tunnel_egress dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_ipv6(in_ipv6),
      .in_word0(in_word0), .in_csum(in_csum), .in_outer_ecn(in_outer_ecn),
      .out_valid(out_valid), .out_drop(out_drop), .out_flag(out_flag), .out_ecn(out_ecn),
      .out_word0(out_word0), .out_csum(out_csum), .stat_forwarded_pkts(s_fwd),
      .stat_dropped_pkts(s_drop), .stat_dangerous_pkts(s_dang), .stat_unused_pkts(s_unused));

  // the packets in flight, as the harness sees them: a reset drops them all
  reg [L-1:0] v = 0;
  reg [1:0] inner[0:L-1];
  reg [1:0] outer[0:L-1];
  reg v6[0:L-1];
  reg [15:0] w0[0:L-1];
  reg [3:0] seen = 0;  // cycles since the start, saturating
  reg p_reset;
  reg [31:0] p_fwd, p_drop, p_dang, p_unused;
  integer k;
  always @(posedge clock) begin
    if (seen != 4'hf) seen <= seen + 1;
    p_reset <= reset;
    p_fwd <= s_fwd;
    p_drop <= s_drop;
    p_dang <= s_dang;
    p_unused <= s_unused;
    v <= reset ? 0 : {v[L-2:0], in_valid};
    inner[0] <= in_ipv6 ? in_word0[5:4] : in_word0[1:0];
    outer[0] <= in_outer_ecn;
    v6[0] <= in_ipv6;
    w0[0] <= in_word0;
    for (k = 1; k < L; k = k + 1) begin
      inner[k] <= inner[k-1];
      outer[k] <= outer[k-1];
      v6[k] <= v6[k-1];
      w0[k] <= w0[k-1];
    end
  end

  // the packet on the outputs now: the one presented L cycles ago
  wire [1:0] i = inner[L-1];
  wire [1:0] o = outer[L-1];
  wire drop = i == 2'b00 && o == 2'b11;
  wire [1:0] ecn = i == 2'b00 ? 2'b00 : (o == 2'b11 || i == 2'b11) ? 2'b11 : o == 2'b01 ? 2'b01 : i;
  // 2 (!!!): (00, ECT(0)), (00, ECT(1)), (00, CE), (CE, ECT(1)); 1 (!): (ECT(1), ECT(0))
  wire [1:0] flag = (i == 2'b00 && o != 2'b00) || (i == 2'b11 && o == 2'b01) ? 2'd2
                  : (i == 2'b01 && o == 2'b10) ? 2'd1 : 2'd0;
  wire [15:0] w = w0[L-1];
  wire [15:0] ecn_mask = v6[L-1] ? 16'h0030 : 16'h0003;
  wire [15:0] ecn_bits = v6[L-1] ? {10'b0, ecn, 4'b0} : {14'b0, ecn};

  always @(*) begin
    if (seen >= L) begin
`ifdef P_rfc6040_table
      // property rfc6040_table: every packet's drop, ECN and flag are Figure 6's cell for its (inner, outer), L cycles later
      assert (out_valid == v[L-1]);
      if (out_valid) begin
        assert (out_drop == drop);
        assert (out_flag == flag);
        if (!drop) assert (out_ecn == ecn);
      end
`endif
`ifdef P_word0_rewritten
      // property word0_rewritten: a forwarded packet's first word is the arriving one with only its ECN field replaced
      if (out_valid && !drop)
        assert (out_word0 == ((w & ~ecn_mask) | ecn_bits));
`endif
`ifdef P_quiet_without_packet
      // property quiet_without_packet: no packet in that slot (or a reset since), no decision out
      if (!v[L-1]) assert (!out_valid && !out_drop && out_flag == 2'd0);
`endif
    end
    if (seen >= 1) begin
`ifdef P_counters_never_decrease
      // property counters_never_decrease: the four counters only grow, but for a reset
      if (!p_reset)
        assert (s_fwd >= p_fwd && s_drop >= p_drop && s_dang >= p_dang && s_unused >= p_unused);
`endif
    end
  end
endmodule
