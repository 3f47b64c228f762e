// Property harness of `ack_generator` (the receiver's ACK generator,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1: per-packet or
// delayed ACKs with exact ECE counts, a NAK once per gap, the timeout
// flush; 256 flows), proved with `ldcp prove --block ack_generator`. Each
// property is a `P_<name>` block named by a `// property <name>: <text>`
// line.
//
// The per-flow state (expected PSN, pending, gap NAKed, held since) is
// block RAM and the ACK queue is internal, neither visible to a port-only
// harness (yosys 0.23 has no hierarchical references). The per-flow
// property tracks one flow, `watch` (unconstrained but held), from an
// *open* of it: an open sets the flow's whole state from the event alone,
// so after it the harness knows the expected PSN exactly, without the RAM
// as an invariant.
//
// depth 20: ack_within_received looks at ACKs up to W = 16 cycles after an open, and the queue must drain inside the window
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
    // the flow ack_within_received tracks: any, held
    input [7:0] watch
);
  localparam LAT = 5;  // an ACK leaves 5 cycles after its packet (hdl/src/ack_generator.rs, Timing)
  localparam QUEUE = 8;  // ldcp_sim::ack_generator::ACK_QUEUE
  // the ACKs of events taken before an open have left LAT + QUEUE cycles
  // after it at the latest (at most QUEUE ACKs queued ahead, one leaves a clock)
  localparam X = LAT + QUEUE;
  localparam W = 16;  // the last age ack_within_received looks at (the depth line)
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
  reg [7:0] p_watch;
  reg [LAT-1:0] r_hist = 0;  // resets in the last LAT cycles (bit 0: the cycle before)
  // the watched flow since its last open (taken, no reset since): the
  // open's PSN, the next expected PSN as the harness counts it, the age
  reg o_have = 1'b0;
  reg [23:0] lo = 0, hi = 0;
  reg [7:0] o_age = 0;
  wire taken = in_valid && in_ready && !reset;
  wire mine = taken && in_flow == {8'd0, watch};
  always @(posedge clock) begin
    past <= 1'b1;
    p_watch <= watch;
    r_hist <= {r_hist[LAT-2:0], reset};
    if (o_age != 8'hff) o_age <= o_age + 1;
    if (mine && in_open) begin
      o_have <= 1'b1;
      lo <= in_psn;
      hi <= in_psn;
      o_age <= 8'd1;
    end else if (mine && in_psn == hi) hi <= hi + 24'd1;  // in order
    if (reset) o_have <= 1'b0;
  end
  // `watch` is unconstrained but stable: one arbitrary flow stands for all
  always @(*) if (past) assume (watch == p_watch);

  always @(*) begin
    if (past) begin
`ifdef P_quiet_after_reset
      // property quiet_after_reset: no ACK for LAT cycles after a reset (the queue and the ops in flight dropped), and no event taken the cycle after
      if (r_hist != 0) assert (!out_valid);
      if (r_hist[0]) assert (!in_ready);
`endif
`ifdef P_ece_covers_one_ce
      // property ece_covers_one_ce: an ACK with ECE covers exactly one packet and is no NAK, so the ECE count never exceeds the CE packets
      if (out_valid && out_ece) assert (out_n == 4'd1 && !out_nak);
`endif
`ifdef P_ack_within_received
      // property ack_within_received: an ACK of the watched flow after its open acknowledges no PSN it did not receive in order: open PSN <= ACK PSN <= next expected
      if (out_valid && out_flow == {8'd0, watch} && o_have && o_age >= X && o_age <= W)
        assert (out_psn - lo <= hi - lo);
`endif
`ifdef P_idle_outputs_zero
      // property idle_outputs_zero: with no ACK out, every ACK field is 0
      if (!out_valid) assert (out_flow == 16'd0 && out_psn == 24'd0 && !out_ece && out_n == 4'd0 && !out_nak);
`endif
    end
  end
endmodule
