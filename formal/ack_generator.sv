// Property harness of `ack_generator` (the receiver's ACK generator,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1: per-packet or
// delayed ACKs with exact ECE counts, a NAK once per gap, the timeout
// flush), proved with `ldcp prove --block ack_generator` on the formal-size
// build (`ldcp_hdl::generate::FB_FORMAL` = 2 flow bits, N = 4 flows:
// `ack_generator::verilog_formal`, the same RTL with a 2-bit table index).
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// Port-only harness (yosys 0.23: no hierarchical references, no `bind`):
// the per-flow state (expected PSN, pending, gap NAKed, held since) is RAM
// and the ACK queue is internal. Two facts no port shows decide what can
// be proved by k-induction here:
// - the ACK queue (8 registers fq0..fq7, pointers rp, wp and a count cnt)
//   keeps wp - rp == cnt (mod 8) from a reset on, and every transition but
//   a reset preserves the difference: from a state where it is off, the
//   queue shows stale words in place of queued ACKs, for ever, and no
//   finite trace of the ports rules that state out. Every property of an
//   ACK's contents is therefore claimed in a window of W cycles after a
//   reset (or power-up), which the induction trace then holds: the queue
//   is empty and coherent from there, and the table swept;
// - the per-flow state is RAM: a per-flow property tracks one flow,
//   `watch` (unconstrained but held), from an *open* of it (an open sets
//   the flow's whole state from the event alone, so the harness knows the
//   expected PSN exactly from there on).
// Properties about the control (valid, flow id, the quiet cycles after a
// reset) need neither and are proved for ever.
//
// depth 15: the windows (W = 13 cycles after a reset) fit in the induction trace, which then holds the reset; the base case of ack_within_received grows about 3x a step from there (44-58 s at 15 on the shared 2-core machine)
// flatten: z3 4.8.12 stalls reading the hierarchical SMT2 (and the flattened one: see the solver line)
// solver yices: z3 4.8.12 stalls at step 0, flattened or not (it does not get through the SMT2's transition function)
// The windows: ece_covers_one_ce, nothing_before_event, ack_within_received
// and nak_only_after_gap are claimed for W cycles after a reset (or
// power-up); beyond, they rest on the queue's pointers agreeing with its
// count, on every flow's pending count staying 0 before its first event,
// and on the table's expected PSN, none of which a port shows.
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
    // the flow the per-flow properties track: any, held
    input [FB-1:0] watch
);
  localparam FB = 2;  // ldcp_hdl::generate::FB_FORMAL: the formal-size build's flow bits
  localparam N = 4;  // flows, 2^FB
  localparam LAT = 5;  // an ACK leaves 5 cycles after its packet is taken (hdl/src/ack_generator.rs, Timing)
  // the reset sweep: N cycles with in_ready low (the table swept, the queue
  // and the ops in flight dropped); an event taken after it shows its ACK
  // LAT cycles later at the earliest: no ACK in the N + LAT cycles after a reset
  localparam QUIET = N + LAT;
  localparam W = 13;  // the windows after a reset (the depth line)
  localparam [23:0] GAP_MAX = 24'd4095;  // ldcp_sim::ack_generator::GAP_MAX: a larger jump is out of window
  // the open PSN of the watched flow in the two PSN properties: 8 below the
  // wrap of the 24-bit PSN, so that the window's in-order packets cross it.
  // A fixed value, because with a free one neither z3 nor Yices gets past
  // step 10 of the base case (the modular compare against a symbolic open
  // PSN); it loses no generality as far as the RTL uses a PSN only through
  // d = PSN - expected (mod 2^24) and PSN + 1 (ldcp_sim::ack_generator, the
  // rules), which its structure shows but this harness does not prove
  localparam [23:0] OPEN_PSN = 24'hfffff8;

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
  reg [FB-1:0] p_watch;
  reg [QUIET-1:0] r_hist = 0;  // resets in the last QUIET cycles (bit 0: the cycle before)
  // cycles since the last reset (saturating); power-up counts as one (the
  // table initialised to 0, the queue empty)
  reg [5:0] r_age = 6'd0;
  // cycles since the first event taken after the last reset (saturating; 0: none yet)
  reg [5:0] e_age = 6'd0;
  // the watched flow since its last open (taken, no reset since): the
  // open's PSN, the next expected PSN as the harness counts it, a packet
  // of a gap taken since, the age
  reg o_have = 1'b0, o_gap = 1'b0;
  // no event of the watched flow was taken between the last reset and its
  // open: every ACK of it since the reset is then an ACK of an event after
  // the open (the queue was emptied and the table swept by the reset, so no
  // ACK or flush of an earlier event is left)
  reg w_seen = 1'b0, o_first = 1'b0;
  reg [23:0] lo = 0, hi = 0;
  reg [5:0] o_age = 6'h3f;
  wire taken = in_valid && in_ready && !reset;
  wire mine = taken && in_flow == {{(16 - FB) {1'b0}}, watch};
  wire [23:0] d = in_psn - hi;  // the packet's distance from the expected PSN, mod 2^24
  wire w_ack = out_valid && out_flow == {{(16 - FB) {1'b0}}, watch};
  always @(posedge clock) begin
    past <= 1'b1;
    p_watch <= watch;
    r_hist <= {r_hist[QUIET-2:0], reset};
    if (r_age != 6'h3f) r_age <= r_age + 1;
    if (e_age != 6'h3f && e_age != 6'd0) e_age <= e_age + 1;
    if (taken && e_age == 6'd0) e_age <= 6'd1;
    if (o_age != 6'h3f) o_age <= o_age + 1;
    if (mine) w_seen <= 1'b1;
    if (mine && in_open) begin
      o_have <= 1'b1;
      o_first <= !w_seen;
      o_gap <= 1'b0;
      lo <= in_psn;
      hi <= in_psn;
      o_age <= 6'd1;
    end else if (mine) begin
      if (d == 24'd0) hi <= in_psn + 24'd1;  // in order (in_psn == hi)
      else if (d <= GAP_MAX) o_gap <= 1'b1;  // a gap: 0 < d <= 4095
    end
    if (reset) begin
      r_age <= 6'd1;
      e_age <= 6'd0;
      o_have <= 1'b0;
      w_seen <= 1'b0;
    end
  end
  // `watch` is unconstrained but stable: one arbitrary flow stands for all
  always @(*) if (past) assume (watch == p_watch);

  always @(*) begin
`ifdef P_ack_in_table
    // property ack_in_table: an ACK names a flow of the table (< N); with no ACK out, every ACK field is 0
    if (out_valid) assert (out_flow < N);
    else assert (out_flow == 16'd0 && out_psn == 24'd0 && !out_ece && out_n == 4'd0 && !out_nak);
`endif
`ifdef P_ece_covers_one_ce
    // property ece_covers_one_ce: for W cycles after a reset, an ACK with ECE covers exactly one packet and is no NAK, so the ECE count never exceeds the CE packets
    if (out_valid && out_ece && r_age <= W) assert (out_n == 4'd1 && !out_nak);
`endif
`ifdef P_ack_within_received
    // property ack_within_received: for W cycles after a reset, an ACK of a flow opened by its first event since the reset acknowledges no PSN it did not receive in order: open PSN <= ACK PSN <= next expected (mod 2^24)
    if (mine && in_open) assume (in_psn == OPEN_PSN);
    if (w_ack && o_have && o_first && r_age <= W) assert (out_psn - lo <= hi - lo);
`endif
`ifdef P_nak_only_after_gap
    // property nak_only_after_gap: for W cycles after a reset, a NAK of a flow opened by its first event since the reset comes only after a packet of a gap (0 < PSN - expected <= GAP_MAX) was taken since the open
    if (mine && in_open) assume (in_psn == OPEN_PSN);
    if (w_ack && out_nak && o_have && o_first && r_age <= W) assert (o_gap);
`endif
    if (past) begin
`ifdef P_quiet_after_reset
      // property quiet_after_reset: no ACK in the N + LAT cycles after a reset (the queue and the ops in flight dropped, the sweep); in_ready low in the N sweep cycles after it
      if (r_hist != 0) assert (!out_valid);
      if (r_hist[N-1:0] != 0) assert (!in_ready);
`endif
`ifdef P_nothing_before_event
      // property nothing_before_event: for W cycles after a reset, no ACK until LAT cycles after the first event taken since (no flow holds packets, so no flush)
      if (r_age <= W) assert (!out_valid || e_age >= LAT);
`endif
    end
  end
endmodule
