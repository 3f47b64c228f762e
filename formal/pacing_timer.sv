// Property harness of `pacing_timer` (the gamma floor's timer, draft-dai-
// tsvwg-pfc-free-congestion-control-01 §2.2: a flow with cw < 1 gets one
// send credit every RTT/cw; one grant per clock), proved with `ldcp prove
// --block pacing_timer` on the formal-size build (`ldcp_hdl::pacing_timer::
// FB_FORMAL` = 3 flow bits, N = 8 flows: `pacing_timer::verilog_formal`,
// the same RTL with a 3-bit table index; 8 is the fewest flows the
// scanner allows, `ldcp_sim::pacing_timer::MIN_FLOW_BITS`). Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// Port-only harness (yosys 0.23: no hierarchical references, no `bind`):
// the tables U and S are RAM the harness cannot see, so a property about a
// flow's schedule is stated inside a window that starts at an event that
// rewrites what the property depends on (a reset: T = 0 and the sweep
// zeroes every table; an update of the flow: its U entry is rewritten
// whole; a grant of the flow: its S entry's next due time is then within
// one interval of T) and is at most W cycles long, W < the depth. The
// k-induction then starts from a state where every entry the property
// reads is determined by events inside the trace, and needs no invariant
// on the RAM. Outside its window such a property is not claimed (see the
// window notes below).
//
// depth 44: the windows (W = 40 cycles after a reset or an update) fit in the induction trace, which then holds the event
// flatten: so that memory_map can turn the three 8-entry tables into registers
// solver yices: z3 4.8.12 stalls at step 0, flattened or not (it does not get through the SMT2's transition function)
// memory_map: with the three tables as SMT arrays, Yices' base case at depth 24 took 49 s for one_grant_per_lap and over 120 s for the per-flow properties (4-flow build); as registers every check at depth 44 takes under 30 s
// The windows: no_grant_until_joined is claimed for W cycles after a
// reset, leave_stops_grants from LEAVE_CYCLES to W cycles after the leave;
// beyond them both rest on the flow's U entry staying inactive, which no
// port shows.
//
// Not here: "a due flow is granted at the first visit at or after its due
// time" and "no flow granted at two visits in a row when its interval is
// above 2N" (formal/drafts/pacing_timer.sv). At 8 flows their base cases
// hold at depth 30 but their inductions do not close (one fails, one ran
// past 150 s): they need the flow's S entry (its next due time) as an
// invariant, which a port-only harness cannot state. On a 4-flow build
// they fail for a real reason: the scanner writes a flow's S entry five
// edges after reading it, and with 4 flows visits it again after four,
// so every visit read the entry of the visit before last (a flow granted
// at three visits in a row; a grant late by 5 where the rule gives 3).
// The RTL then accepted 4 flows (the model did not); it now refuses fewer
// than 8 (MIN_FLOW_BITS), and this harness proves the 8-flow build.
module pacing_timer_props (
    input clock,
    input reset,
    input in_valid,
    input in_restart,
    input [15:0] in_flow,
    input [23:0] in_interval_cycles,
    // the flow the per-flow properties track: any, held
    input [FB-1:0] watch
);
  localparam FB = 3;  // ldcp_hdl::pacing_timer::FB_FORMAL: the formal-size build's flow bits
  localparam N = 8;  // flows, 2^FB; the scanner visits each flow once every N cycles (one lap)
  // a visit whose table read is at edge r shows its grant on out_* in the
  // cycle after edge r + 4 (hdl/src/pacing_timer.rs, Timing): 5 cycles of
  // scanner pipeline (sc_v, X1, X2, X3, Y)
  localparam LAT = 5;
  // an update taken in cycle t writes U at edge t + 1; the first table read
  // that sees it is at edge t + 2 (ldcp_sim::pacing_timer, RTL timing), so
  // the first grant that reflects it is in cycle t + 2 + LAT = t + 7, when
  // the harness's age counter of the update reads 7
  localparam LEAVE_CYCLES = 2 + LAT;
  // the reset sweep: N cycles with in_ready low (pacing_timer.rs, Timing),
  // then sc_v rises one cycle later and the first grant can show LAT - 1
  // cycles after that: no grant in the N + LAT cycles after a reset
  localparam QUIET = N + LAT;
  localparam W = 40;  // the windows, 5 laps (the depth line)

  wire in_ready, out_valid, err;
  wire [15:0] out_flow, out_late;
  pacing_timer dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_restart(in_restart),
      .in_flow(in_flow), .in_interval_cycles(in_interval_cycles), .in_ready(in_ready),
      .out_valid(out_valid), .out_flow(out_flow), .out_late_cycles(out_late),
      .stat_err_flow_strobe(err));

  reg past = 1'b0;
  reg [FB-1:0] p_watch;
  // resets in the last QUIET cycles (bit 0: the cycle before)
  reg [QUIET-1:0] r_hist = 0;
  // cycles since the last reset (saturating); power-up counts as one (T = 0,
  // the tables initialised to 0, no member)
  reg [5:0] r_age = 6'd0;
  // the last grant: its flow, cycles since (saturating), no reset since
  reg have = 1'b0;
  reg [FB-1:0] last_flow = 0;
  reg [5:0] gap = 0;
  // the watched flow: an update of it taken since the last reset (an
  // update taken the cycle before a reset is dropped by the RTL and
  // forgotten here too), whether that last update left (interval 0), the
  // cycles since it (saturating)
  wire taken = in_valid && in_ready && !reset;
  wire w_upd = taken && in_flow == {{(16 - FB) {1'b0}}, watch};
  wire w_grant = out_valid && out_flow == {{(16 - FB) {1'b0}}, watch};
  reg w_have = 1'b0, w_left = 1'b0, w_joined = 1'b0;
  reg [23:0] w_iv = 0;
  reg [5:0] w_age = 6'h3f;
  always @(posedge clock) begin
    past <= 1'b1;
    p_watch <= watch;
    r_hist <= {r_hist[QUIET-2:0], reset};
    if (r_age != 6'h3f) r_age <= r_age + 1;
    if (reset) r_age <= 6'd1;
    if (gap != 6'h3f) gap <= gap + 1;
    if (out_valid) begin
      have <= 1'b1;
      last_flow <= out_flow[FB-1:0];
      gap <= 6'd1;
    end
    if (reset) have <= 1'b0;
    if (w_age != 6'h3f) w_age <= w_age + 1;
    if (w_upd) begin
      w_have <= 1'b1;
      w_left <= in_interval_cycles == 24'd0;
      w_iv <= in_interval_cycles;
      w_age <= 6'd1;
      if (in_interval_cycles != 24'd0) w_joined <= 1'b1;
    end
    if (reset) begin
      w_have <= 1'b0;
      w_joined <= 1'b0;
    end
  end
  // `watch` is unconstrained but stable: one arbitrary flow stands for all
  always @(*) if (past) assume (watch == p_watch);


  always @(*) begin
`ifdef P_grant_in_table
    // property grant_in_table: a grant names a flow of the table (< N), and no grant leaves flow and lateness 0
    if (out_valid) assert (out_flow < N);
    else assert (out_flow == 16'd0 && out_late == 16'd0);
`endif
    if (past) begin
`ifdef P_quiet_after_reset
      // property quiet_after_reset: no grant in the N + LAT cycles after a reset (the sweep and the refill of the scanner); in_ready low exactly in the N sweep cycles after it
      if (r_hist != 0) assert (!out_valid);
      if (r_hist[N-1:0] != 0) assert (!in_ready);
      else assert (in_ready);
`endif
`ifdef P_one_grant_per_lap
      // property one_grant_per_lap: two grants g <= N cycles apart, no reset between, name flows g apart (mod N): the scanner's pointer, so no flow is granted twice in one lap
      if (out_valid && have && gap <= N) begin
        assert (out_flow[FB-1:0] == last_flow + gap[FB-1:0]);
        if (gap < N) assert (out_flow[FB-1:0] != last_flow);
      end
`endif
`ifdef P_no_grant_until_joined
      // property no_grant_until_joined: for W cycles after a reset, a flow is not granted unless an update with a non-zero interval of it was taken since the reset
      if (r_age <= W && !w_joined) assert (!w_grant);
`endif
`ifdef P_leave_stops_grants
      // property leave_stops_grants: a flow whose last update left (interval 0) is not granted from LEAVE_CYCLES to W cycles after it
      if (w_have && w_left && w_age >= LEAVE_CYCLES && w_age <= W) assert (!w_grant);
`endif
    end
  end
endmodule
