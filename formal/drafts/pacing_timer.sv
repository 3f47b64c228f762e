// Property harness of `pacing_timer` (the gamma floor's timer, draft-dai-
// tsvwg-pfc-free-congestion-control-01 §2.2: a flow with cw < 1 gets one
// send credit every RTT/cw; 256 flows, one grant per clock), proved with
// `ldcp prove --block pacing_timer`. Each property is a `P_<name>` block
// named by a `// property <name>: <text>` line.
//
// What a port-only harness can and cannot prove here. The scanner visits
// flow p at the clock its pointer reads p, so a flow's slot comes back
// every N = 256 cycles (N = 2^FPGA_FLOW_BITS, `ldcp_sim::FPGA_FLOW_BITS`):
// the design's bound is that a due flow is granted at its next visit, so
// within N - 1 cycles of its due time (N when its interval is below N,
// `ldcp_sim::pacing_timer::lateness_bound_cycles`), plus the 5-cycle
// scanner pipeline to the port. The pointer, T and the three tables are
// internal (yosys 0.23's read_verilog has neither hierarchical references
// nor `bind`), and a run may go any number of cycles without a grant, so a
// statement about grants N cycles apart is inductive only at a depth above
// N + 5, beyond `ldcp prove`'s cap of 100; and a bounded check from the
// power-up state, where the tables are RAM initialised to 0, does not
// reach 15 cycles in a minute (z3 on the arrays), nor would it see a flow
// visited twice in 100. So:
// - `one_grant_per_visit` is proved for grants up to D cycles apart; that
//   grants D..N-1 apart are of different flows rests on the same fact, the
//   pointer advancing by one a clock, seen only through grants;
// - "a due flow is granted within N cycles" is not stated: it needs the
//   watched flow's entries of U and S (RAM) as an invariant, and a window
//   longer than N either way;
// - `leave_stops_grants` is its safety half for one flow, inductive because
//   the update it looks at is inside the window and rewrites the flow's U
//   entry whole.
//
// depth 15: one_grant_per_visit looks D = 8 cycles back and needs the six scanner registers (sc_v, X1..Y) refilled inside the window
module pacing_timer_props (
    input clock,
    input reset,
    input in_valid,
    input in_restart,
    input [15:0] in_flow,
    input [23:0] in_interval_cycles,
    // the flow `member_only` and `due_granted_at_visit` track: any, held
    input [7:0] watch
);
  localparam N = 256;  // flows: 2^ldcp_sim::FPGA_FLOW_BITS
  localparam LAT = 5;  // table read at edge r -> grant on out_* after edge r + 4 (hdl/src/pacing_timer.rs, Timing)
  localparam D = 8;  // one_grant_per_visit's window, cycles (the depth line)
  // An update taken in cycle t writes U at edge t + 1; the first read that
  // sees it is at edge t + 2 (ldcp_sim::pacing_timer, RTL timing), its grant
  // on the port in the cycle after edge t + 2 + LAT - 1, when the harness's
  // age counter reads 7 (a read at edge t + 1 still grants at age 6).
  localparam LEAVE_CYCLES = 2 + LAT;
  // the window leave_stops_grants looks at: the update inside the induction
  // window (see the depth line); later, nothing but another update of the
  // flow writes its U entry, which the harness cannot see
  localparam W = 8;
  wire in_ready, out_valid, err;
  wire [15:0] out_flow, out_late;
  pacing_timer dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_restart(in_restart),
      .in_flow(in_flow), .in_interval_cycles(in_interval_cycles), .in_ready(in_ready),
      .out_valid(out_valid), .out_flow(out_flow), .out_late_cycles(out_late),
      .stat_err_flow_strobe(err));

  reg past = 1'b0;
  reg [7:0] p_watch;
  // resets and cycles with in_ready low in the last LAT cycles (bit 0: the cycle before)
  reg [LAT-1:0] r_hist = 0, nr_hist = 0;
  // the last grant: its flow, cycles since (saturating), no reset since
  reg have = 1'b0;
  reg [7:0] last_flow = 0;
  reg [8:0] gap = 0;
  // the watched flow's last update taken, no reset since: cycles since
  // (saturating) and whether it left (interval 0)
  reg w_have = 1'b0, w_left = 1'b0;
  reg [8:0] w_age = 0;
  wire w_taken = in_valid && in_ready && !reset && in_flow == {8'd0, watch};
  always @(posedge clock) begin
    past <= 1'b1;
    if (w_age != 9'h1ff) w_age <= w_age + 1;
    if (w_taken) begin
      w_have <= 1'b1;
      w_left <= in_interval_cycles == 24'd0;
      w_age <= 9'd1;
    end
    if (reset) w_have <= 1'b0;
    p_watch <= watch;
    r_hist <= {r_hist[LAT-2:0], reset};
    nr_hist <= {nr_hist[LAT-2:0], !in_ready};
    if (gap != 9'h1ff) gap <= gap + 1;
    if (out_valid) begin
      have <= 1'b1;
      last_flow <= out_flow[7:0];
      gap <= 9'd1;
    end
    if (reset) have <= 1'b0;
  end
  // the harness input `watch` is unconstrained but stable: the standard
  // way to prove a per-flow property for every flow at once
  always @(*) if (past) assume (watch == p_watch);

  always @(*) begin
`ifdef P_grant_in_table
    // property grant_in_table: a grant names a flow of the table (< 256), and no grant leaves flow and lateness 0
    if (out_valid) assert (out_flow < N);
    else assert (out_flow == 16'd0 && out_late == 16'd0);
`endif
    if (past) begin
`ifdef P_quiet_after_reset
      // property quiet_after_reset: no grant for LAT cycles after a reset or a cycle of the sweep (in_ready low)
      if (r_hist != 0 || nr_hist[LAT-1]) assert (!out_valid);
      // and the sweep starts the cycle after a reset
      if (r_hist[0]) assert (!in_ready);
`endif
`ifdef P_one_grant_per_visit
      // property one_grant_per_visit: two grants g <= D cycles apart, no reset between, name flows g apart (mod 256): the scanner's pointer, so no flow twice
      if (out_valid && have && gap <= D) begin
        assert (out_flow[7:0] == last_flow + gap[7:0]);
        assert (out_flow[7:0] != last_flow);
      end
`endif
`ifdef P_leave_stops_grants
      // property leave_stops_grants: a flow whose last update left (interval 0) gets no grant from LEAVE_CYCLES cycles after it on
      if (w_have && w_left && w_age >= LEAVE_CYCLES && w_age <= W)
        assert (!(out_valid && out_flow == {8'd0, watch}));
`endif
    end
  end
endmodule
