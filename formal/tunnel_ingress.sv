// Property harness of `tunnel_ingress` (RFC 6040's encapsulation, draft
// 001 Figure 5, F2-F4), proved with `ldcp prove --block tunnel_ingress`.
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
module tunnel_ingress_props (
    input clock,
    input reset,
    input in_valid,
    input [5:0] in_tunnel,
    input in_ipv6,
    input [15:0] in_word0,
    input cfg_we,
    input [5:0] cfg_tunnel,
    input cfg_compat
);
  localparam L = 2;  // ldcp_sim::tunnel_ecn::INGRESS_LATENCY_CYCLES
  wire out_valid, out_compat;
  wire [5:0] out_tunnel;
  wire [1:0] out_outer_ecn;
  tunnel_ingress dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_tunnel(in_tunnel),
      .in_ipv6(in_ipv6), .in_word0(in_word0), .cfg_we(cfg_we), .cfg_tunnel(cfg_tunnel),
      .cfg_compat(cfg_compat), .out_valid(out_valid), .out_tunnel(out_tunnel),
      .out_outer_ecn(out_outer_ecn), .out_compat(out_compat));

  // the modes as written since the last reset (F4: unwritten = normal)
  reg [63:0] written = 0;
  reg [63:0] compat = 0;
  // the packets in flight: valid, tunnel, inner ECN, the mode it met
  reg [L-1:0] v = 0;
  reg [5:0] t[0:L-1];
  reg [1:0] inner[0:L-1];
  reg mode[0:L-1];
  reg [3:0] seen = 0;
  always @(posedge clock) begin
    if (seen != 4'hf) seen <= seen + 1;
    v <= reset ? 0 : {v[L-2:0], in_valid};
    t[0] <= in_tunnel;
    inner[0] <= in_ipv6 ? in_word0[5:4] : in_word0[1:0];
    mode[0] <= written[in_tunnel] && compat[in_tunnel];
    t[1] <= t[0];
    inner[1] <= inner[0];
    mode[1] <= mode[0];
    if (reset) begin
      written <= 0;
    end else if (cfg_we) begin
      written[cfg_tunnel] <= 1'b1;
      compat[cfg_tunnel] <= cfg_compat;
    end
  end

  always @(*) begin
    if (seen >= L) begin
`ifdef P_outer_follows_mode
      // property outer_follows_mode: the outer ECN is the inner one in normal mode and Not-ECT in compatibility mode (F2, F3), for the packet presented L cycles before, in its tunnel
      assert (out_valid == v[L-1]);
      if (out_valid) begin
        assert (out_tunnel == t[L-1]);
        assert (out_outer_ecn == (out_compat ? 2'b00 : inner[L-1]));
      end
`endif
`ifdef P_quiet_without_packet
      // property quiet_without_packet: no packet presented L cycles before (or a reset since), no outer header decided
      if (!v[L-1]) assert (!out_valid);
`endif
`ifdef P_mode_as_written
      // property mode_as_written: a packet meets its tunnel's mode as last written before it arrived, normal when not written since the reset (F4)
      // bounded mode_as_written: induction would need the block's 64-bit mode table (and its registered write) equal to the harness's modes, an invariant on internal registers that yosys 0.23 cannot name from a harness (no hierarchical references); the bounded check from reset covers every tunnel written and read within the depth
      if (out_valid) assert (out_compat == mode[L-1]);
`endif
    end
  end
endmodule
