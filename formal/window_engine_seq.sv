// Property harness of `window_engine_seq` (the window engine in the fewest
// cells: PAWA and the gamma floor one event at a time,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2;
// `hdl/src/window_engine_seq.rs`, model
// `ldcp_sim::window_engine::SeqEngineModel`), proved with `ldcp prove
// --block window_engine_seq` on the formal-size build (4 flows,
// `hdl::generate::FB_FORMAL` = 2). Each property is a `P_<name>` block
// named by a `// property <name>: <text>` line.
//
// The harness follows the handshake at the ports: `age` is 0 while no
// event is in flight and k in the k-th cycle after a take (an offer with
// `in_ready` and no reset); the update shows at age L = 41
// (SEQ_LATENCY_CYCLES), with age back at 0. A section inside the block
// ties its step counter to `age` (connected in: `busy` exactly while an
// event is in flight, its step `age - 1`), which makes every property
// inductive at a small depth.
//
// depth 2: with the step counter tied to age, the handshake is 1-inductive
// flatten: one SMT2 state
// solver yices: as the other table blocks' harnesses
// inside window_engine_seq: the step counter and busy flag, tied to the harness's age
  (* keep *) wire [5:0] h_age;
  always @* begin
    assert (busy$q == (h_age != 6'd0));
    if (h_age != 6'd0) assert (st$q == h_age - 6'd1);
  end
// end inside
// connect dut.h_age = age: the harness's count of the cycles since the take, into the block
module window_engine_seq_props (
    input clock,
    input reset,
    input in_valid,
    input [1:0] in_flow,
    input in_set,
    input in_ece,
    input [3:0] in_n_pkts,
    input [31:0] in_cw,
    input [8:0] cfg_alpha,
    input [8:0] cfg_beta,
    input [3:0] cfg_gamma_shift,
    input [31:0] cfg_cw_max,
    input [15:0] cfg_rtt_ticks
);
  localparam FB = 2;  // flow bits of the formal build: hdl::generate::FB_FORMAL
  localparam [5:0] L = 6'd41;  // ldcp_sim::window_engine::SEQ_LATENCY_CYCLES

  wire in_ready, out_valid;
  wire [FB-1:0] out_flow;
  wire [7:0] out_n_u_pkts, out_n_m_pkts;
  wire [31:0] out_cw;
  wire [23:0] out_interval_ticks;
  window_engine_seq dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_flow(in_flow), .in_set(in_set),
      .in_ece(in_ece), .in_n_pkts(in_n_pkts), .in_cw(in_cw), .cfg_alpha(cfg_alpha),
      .cfg_beta(cfg_beta), .cfg_gamma_shift(cfg_gamma_shift), .cfg_cw_max(cfg_cw_max),
      .cfg_rtt_ticks(cfg_rtt_ticks), .in_ready(in_ready), .out_valid(out_valid),
      .out_flow(out_flow), .out_cw(out_cw), .out_interval_ticks(out_interval_ticks),
      .out_n_u_pkts(out_n_u_pkts), .out_n_m_pkts(out_n_m_pkts));

  // the handshake as the ports show it
  reg [5:0] age = 6'd0;
  reg h_out = 1'b0;
  wire take = in_valid & in_ready & !reset;
  always @(posedge clock) begin
    h_out <= 1'b0;
    if (reset) age <= 6'd0;
    else if (age == 6'd0) begin
      if (take) age <= 6'd1;
    end else if (age == L - 6'd1) begin
      age <= 6'd0;
      h_out <= 1'b1;
    end else age <= age + 6'd1;
  end

  // the count's range (an invariant every property rests on)
  always @* assert (age < L);

`ifdef P_handshake
  // property handshake: in_ready exactly while no event is in flight; an update shows exactly L = 41 cycles after each take with no reset between, and at no other time
  always @* begin
    assert (in_ready == (age == 6'd0));
    assert (out_valid == h_out);
  end
`endif
endmodule
