// Property harness of `pacing_timer` (the gamma floor's timer, draft-dai-
// tsvwg-pfc-free-congestion-control-01 §2.2: a flow with cw < 1 gets one
// send credit every RTT/cw; one grant per clock), proved with `ldcp prove
// --block pacing_timer` on the formal-size build (`ldcp_hdl::pacing_timer::
// FB_FORMAL` = 3 flow bits, N = 8 flows: `pacing_timer::verilog_formal`,
// the same RTL with a 3-bit table index; 8 is the fewest flows the
// scanner allows, `ldcp_sim::pacing_timer::MIN_FLOW_BITS`). Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// The first five properties are port-only (yosys 0.23: no hierarchical references, no `bind`):
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
// The schedule properties (due_flow_granted, paced_by_due_time,
// one_grant_per_interval) are stated inside the block (the `// inside
// pacing_timer` section below): a port-only harness cannot state the flow's
// S entry (its next due time), which their induction needs (the draft's
// attempt, a 4-flow draft removed once these closed, did not). They watch one flow f_w (an
// anyconst: any flow, fixed) and track its schedule from a grant whose visit
// saw the flow's current U entry and was late by at most N - 1 (every
// scheduled grant is, ldcp_sim::pacing_timer), until any write of its U entry
// (an update, a leave, the sweep) or a reset. While tracked, the harness
// keeps the contract's next due time f_d (PacedFlow::grant: previous due +
// interval, or visit + interval when a whole interval behind) in the RTL's
// time base T (t_now, 25 bits, modular: due times stay within 2^24 of T), and
// the T of the last grant's visit. Due: T - f_d >= 0 (the scanner's `due`).
// N + 3 = 11: a flow due at T = d is visited at a T in [d, d + N - 1] (one
// visit per lap) and that visit's grant shows 4 cycles later (the visit's T
// is that of the cycle after its read, the grant shows after read + 4).
// What these properties do not claim: a join's first grant (the tracking
// starts at a grant; see the RTL finding), the grants after an update of
// the flow until its next grant with the new entry, and grants late by N
// (only a join's first, with an interval below N).
// Strengthening invariants (asserted in every P_ block of the three, each
// explained where it is stated): the grant that starts or continues the
// tracking writes S = {active, join, contract's next due}; while tracked: no
// sweep and every scanner stage valid; a scanner read of the flow returns
// U = the tracked entry and S = {active, join, f_d} (read each lap, this
// ties the RAM words to the harness's values); f_d within [T - (N + 3),
// T + interval]; f_d - (last grant's visit) within [interval - (N - 1),
// interval]; the scanner stages hold consecutive flows and a stage holding
// the flow's visit holds its entries, the visit's T and X3/X4's results;
// T - (last grant's visit) = the scanner's distance from the flow mod N.
// No input is restricted. Start-of-tracking conditions that exclude only
// unreachable states: the visit's interval is non-zero (an update with
// interval 0 leaves).
//
// RTL finding (not covered here, reported): a restart of a member (or a
// leave and a re-join within one lap, before the scanner saw the leave)
// taken when T equals the flow's join time modulo 2^25 is not seen as a
// fresh join: the scanner's "fresh" test is U.join != S.join_seen, and the
// new join (= T) equals the old one, so the old schedule (S.next) goes on
// and the restart's "first grant one interval from now" is not honoured (a
// verilator run of this file's pacing_timer.v: flow 3 joined at T = 21 with
// interval 100, restarted with interval 1000 exactly 2^25 cycles later, is
// granted 76 cycles after the restart, and a restart 5 cycles later is
// granted after 1007). This is why the properties above start at a grant.
//
// The schedule properties prove at depth 12 (their own depth lines): the
// invariants reach the RAM words through a read of the flow once a lap (8
// edges) and the scanner's 4 stages after it. At the harness's 44 their
// base case from reset is slow (due_flow_granted's did not finish in 600 s
// on the shared machine; the induction at 44 takes 10-40 s).
// depth due_flow_granted 12: a read of the flow once a lap (8 edges) and the scanner's 4 stages after it close the induction; the base case at 44 did not finish in 600 s
// depth paced_by_due_time 12: as due_flow_granted
// depth one_grant_per_interval 12: as due_flow_granted
// inside pacing_timer: the schedule properties need the watched flow's table entries (U: interval and join; S: its next due time) and the scanner's stages as invariants, which only the block's own wires can state
`ifdef P_due_flow_granted
`define PT_TRACK
`endif
`ifdef P_paced_by_due_time
`define PT_TRACK
`endif
`ifdef P_one_grant_per_interval
`define PT_TRACK
`endif
`ifdef PT_TRACK
  // the watched flow: any, fixed for the whole trace (one flow stands for all)
  (* anyconst *) reg [2:0] f_w;
  // edges since the last write of U[f_w] (an update of the flow, a leave,
  // the sweep; saturating): a visit read at edge r saw that write iff it was
  // at edge r - 1 or before, i.e. iff f_uage >= 5 when the visit's grant
  // shows (after edge r + 4)
  reg [3:0] f_uage = 4'hf;
  // the visit now in Y (its grant on out_*): its U interval and join and its
  // full T - due (25 bits; out_late_cycles has the low 16), copied from X3
  reg [23:0] f_yiv = 24'd0;
  reg [24:0] f_yj = 25'd0;
  reg [24:0] f_vd = 25'd0;
  // the tracked schedule: started at a grant of f_w whose visit saw the
  // flow's current U entry (f_uage >= 5) and was late by at most N - 1, the
  // documented bound once a flow is scheduled (ldcp_sim::pacing_timer: only
  // a join's first grant, when its interval is below N, may be late by N;
  // tracking then starts at the next); ended by any write of U[f_w] (an
  // update, a leave, the sweep) or a reset. f_iv, f_j: the U entry (interval,
  // join) of that visit, which then stays in U; f_d: the flow's next due
  // time by the contract (previous due + interval, or visit + interval when a
  // whole interval behind: PacedFlow::grant), in the RTL's time base T
  // (t_now, 25 bits, modular); f_tg: T of the visit of the last grant (T of
  // the cycle after its table read)
  reg f_trk = 1'b0;
  reg [23:0] f_civ = 24'd0;
  reg [24:0] f_cj = 25'd0;
  reg [24:0] f_d = 25'd0;
  reg [24:0] f_tg = 25'd0;
  wire [23:0] f_iv = f_trk ? f_civ : f_yiv;
  wire [24:0] f_j = f_trk ? f_cj : f_yj;
  wire f_g = out_valid && out_flow == {13'd0, f_w};
  // the visit of a grant shown now read its entries 4 edges ago: its T is now - 4
  wire [24:0] f_tv = t_now$q - 25'd4;
  wire [24:0] f_dg = f_trk ? f_d : f_tv - f_vd;
  // PacedFlow::grant: due += interval, and due = visit + interval when that
  // is still not after the visit, i.e. when the visit was late (T - due, below
  // 2^24 at a grant) by a whole interval or more
  wire [24:0] f_vg = f_tv - f_dg;
  wire [24:0] f_dn = f_vg[23:0] >= f_iv ? f_tv + {1'b0, f_iv} : f_dg + {1'b0, f_iv};
  // (a member's interval is never 0: an update with interval 0 leaves)
  wire f_start = f_g && !f_trk && f_uage >= 4'd5 && f_yiv != 24'd0 && !f_vd[24] && f_vd <= 25'd7;
  wire f_uw = t_u$write_enable && t_u$write_address == f_w;
  always @(posedge clock) begin
    f_yiv <= x3_iv$q;
    f_yj <= x3_ujoin$q;
    f_vd <= x3_diff$q;
    if (f_uw) f_uage <= 4'd0;
    else if (f_uage != 4'hf) f_uage <= f_uage + 4'd1;
    if (f_g && (f_trk || f_start)) begin
      f_trk <= 1'b1;
      f_civ <= f_iv;
      f_cj <= f_j;
      // the due time the RTL writes to S at this edge, which the invariant
      // (grant) below checks is the contract's f_dn (so f_d follows the
      // contract from grant to grant; taking the RTL's word rather than f_dn
      // lets the solver share the two adders' terms)
      f_d <= y_s$q[24:0];
      f_tg <= f_tv;
    end
    if (reset || f_uw) f_trk <= 1'b0;
  end
  // T - due (25 bits, read as signed): how long the due time has passed
  wire [24:0] f_late = t_now$q - f_d;
  wire [24:0] f_ahead = f_d - t_now$q;
  // at a grant: the visit's T - due
  wire [24:0] f_vl = f_tv - f_d;
  // T of this visit minus the last grant's visit; due minus the last grant's visit
  wire [25:0] f_gap = {1'b0, f_tv - f_tg};
  wire [25:0] f_dtg = {1'b0, f_d - f_tg};
  always @(*) begin
    // invariant (grant): a grant that starts or continues the tracking
    // writes S = active, U's join, and the next due time by the contract
    if (f_g && (f_trk || f_start)) assert (y_s$q == {1'b1, f_j, f_dn});
    if (f_trk) begin
      // invariant (scanner running): a tracked flow started at a grant and
      // no reset came since, so no sweep and every scanner stage is valid
      assert (!ts$sweeping && sc_v$q && x1_v$q && x2_v$q && x3_v$q && y_v$q);
      // invariant (tables): a scanner read of the flow (at the last edge)
      // returned U = the tracked entry (no write of U[f_w] since, or the
      // tracking would have ended) and S = active, that join, next due f_d;
      // the flow is read every lap, so this ties the RAM words to f_civ,
      // f_cj, f_d in any trace longer than a lap
      if (sc_idx$q == f_w)
        assert (t_u$read_data == {1'b1, f_civ, f_cj} && t_s$read_data == {1'b1, f_cj, f_d});
      // invariant (due window): the due time is at most one interval ahead
      // of T, or passed by at most N + 3 cycles (the liveness bound)
      assert ((!f_late[24] && f_late <= 25'd11) || f_ahead <= {1'b0, f_iv});
      // invariant (last grant): the due time is the last grant's visit plus
      // between interval - (N - 1) and interval cycles (that visit was late
      // by at most N - 1, or the catch-up put it exactly one interval on)
      assert (f_dtg >= 26'd1 && f_dtg <= {2'b0, f_iv} && f_dtg + 26'd7 >= {2'b0, f_iv});
      // invariants (pipeline): the scanner stages hold consecutive flows,
      // and a stage holding the tracked flow's visit holds its entries, the
      // visit's T (T of the cycle after the read: now minus the stage's
      // distance) and what X3 and X4 computed from them
      assert (sc_ptr$q == sc_idx$q + 3'd1 && x1_idx$q == sc_idx$q - 3'd1 && x2_idx$q == sc_idx$q - 3'd2
              && x3_idx$q == sc_idx$q - 3'd3 && y_idx$q == sc_idx$q - 3'd4);
      if (x1_idx$q == f_w)
        assert (x1_uact$q && x1_iv$q == f_iv && x1_ujoin$q == f_j && x1_snext$q == f_d && !x1_fresh$q
                && x1_t$q == t_now$q - 25'd1);
      if (x2_idx$q == f_w)
        assert (x2_uact$q && x2_iv$q == f_iv && x2_ujoin$q == f_j && x2_snext$q == f_d && x2_nxt$q == f_d
                && x2_t$q == t_now$q - 25'd2);
      if (x3_idx$q == f_w)
        assert (x3_uact$q && x3_iv$q == f_iv && x3_ujoin$q == f_j && x3_snext$q == f_d && x3_nxt$q == f_d
                && x3_diff$q == t_now$q - 25'd3 - f_d && x3_n2$q == f_d + {1'b0, f_iv}
                && x3_tn$q == t_now$q - 25'd3 + {1'b0, f_iv});
      if (y_idx$q == f_w) begin
        assert (y_grant$q == !f_vl[24] && y_late$q == f_vl[15:0] && f_vd == f_vl && f_yiv == f_iv && f_yj == f_j);
        if (!y_grant$q) assert (y_s$q == {1'b1, f_j, f_d});
      end
      // invariant (phase): T - the last grant's visit is (mod N) the
      // scanner's distance from the flow (sc_idx is the address read at the
      // last edge, the visit's T is that of the cycle after its read)
      assert (f_tv[2:0] + 3'd4 - f_tg[2:0] == sc_idx$q - f_w);
    end
`ifdef P_due_flow_granted
    // property due_flow_granted: a member flow whose schedule is tracked (from a grant whose visit saw its current entry, no update, leave or reset since) is granted within N + 3 cycles of its due time: its visit comes within N - 1 cycles (one lap) and the grant shows LAT - 1 = 4 cycles after the visit's T
    if (f_trk) assert (f_late[24] || f_late <= 25'd11);
`endif
`ifdef P_paced_by_due_time
    // property paced_by_due_time: a grant of a tracked flow is at its first visit at or after its due time (previous due + interval, or visit + interval when a whole interval behind): the visit's T - due is in [0, N - 1] and out_late_cycles reports it exactly
    if (f_trk && f_g) assert (!f_vl[24] && f_vl <= 25'd7 && out_late_cycles == f_vl[15:0]);
`endif
`ifdef P_one_grant_per_interval
    // property one_grant_per_interval: two consecutive grants of a tracked flow are at least one lap and interval - (N - 1) cycles apart, and at most interval + N - 1 cycles apart
    if (f_trk && f_g) assert (f_gap >= 26'd8 && f_gap + 26'd7 >= {2'b0, f_iv} && f_gap <= {2'b0, f_iv} + 26'd7);
`endif
  end
`endif
// end inside
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
