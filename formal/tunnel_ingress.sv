// Property harness of `tunnel_ingress` (RFC 6040's encapsulation, draft
// 001 Figure 5, F2-F4), proved with `ldcp prove --block tunnel_ingress`.
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// mode_as_written sits in a section inside the block: its modes (64
// flip-flops) and their registered write are internal, and induction needs
// them equal to the modes the harness keeps from the writes it sees (the
// strengthening invariant, stated there). Until sections existed it was
// bounded to depth 8 from reset.
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

  // the packets in flight: valid, tunnel, inner ECN
  reg [L-1:0] v = 0;
  reg [5:0] t[0:L-1];
  reg [1:0] inner[0:L-1];
  reg [3:0] seen = 0;
  always @(posedge clock) begin
    if (seen != 4'hf) seen <= seen + 1;
    v <= reset ? 0 : {v[L-2:0], in_valid};
    t[0] <= in_tunnel;
    inner[0] <= in_ipv6 ? in_word0[5:4] : in_word0[1:0];
    t[1] <= t[0];
    inner[1] <= inner[0];
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
    end
  end
endmodule

// inside tunnel_ingress: the modes (modes$q) and the registered write (w_v$q, w_t$q, w_c$q) are the block's own registers
`ifdef P_mode_as_written
  // property mode_as_written: a packet meets its tunnel's mode as last written before it arrived, normal when not written since the reset (F4)
  // the modes as written since the last reset (F4: unwritten = normal),
  // from the block's own ports, and the packets in flight with the mode
  // each met
  reg [63:0] h_written = 0;
  reg [63:0] h_compat = 0;
  reg [1:0] h_v = 0;
  reg h_m0 = 0;
  reg h_m1 = 0;
  always @(posedge clock) begin
    h_v <= reset ? 2'b0 : {h_v[0], in_valid};
    h_m0 <= h_written[in_tunnel] && h_compat[in_tunnel];
    h_m1 <= h_m0;
    if (reset) h_written <= 0;
    else if (cfg_we) begin
      h_written[cfg_tunnel] <= 1'b1;
      h_compat[cfg_tunnel] <= cfg_compat;
    end
  end
  // the block's modes with its registered write applied
  wire [63:0] h_sel = 64'd1 << w_t$q;
  wire [63:0] h_applied = w_v$q ? (w_c$q ? (modes$q | h_sel) : (modes$q & ~h_sel)) : modes$q;
  always @(*) begin
    // strengthening: the block's modes, once its registered write lands, are the harness's
    assert (h_applied == (h_written & h_compat));
    // the packet registered meets the mode the harness gave it
    assert (p_v$q == h_v[0]);
    if (p_v$q) assert (modes$q[p_t$q] == h_m0);
    // the property, at the output
    assert (out_valid == h_v[1]);
    if (out_valid) assert (out_compat == h_m1);
  end
`endif
// end inside
