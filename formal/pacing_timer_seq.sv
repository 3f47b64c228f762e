// Property harness of `pacing_timer_seq` (the gamma floor's timer in the
// fewest cells: one table, one op at a time,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2;
// `hdl/src/pacing_timer_seq.rs`, cycle model
// `ldcp_sim::pacing_timer::PacingTimerSeqModel`), proved with `ldcp prove --block
// pacing_timer_seq` on the formal-size build (`hdl::generate::FB_FORMAL` =
// 2 flow bits, N = 4 flows). Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// The harness mirrors what the ports fix: `swc` counts the sweep's cycles
// left after a reset (N, then down), `tn` the block's time T (0 at a
// reset, + 1 a cycle), `r1`/`r2` a refused id taken one and two cycles
// back, `k` the cycles an update taken waits (in_ready low since its
// take), and for the watched flow `watch` (anyconst: any flow, held) `wj`:
// an update with a non-zero interval (a join, or a member's update) of it
// was taken since the last reset.
//
// Strengthening invariants (every one an assert, so proved in the base case
// and by the induction too; they hold from power-up and from every reset)
// on the block's registers and its member table, carried out to the
// harness by `// connect` lines from sections (keep wires, reading only)
// inside pacing_timer_seq (its control and op registers) and its member
// table t_iv (its four words and its read register):
// - core (every property): the sweep (sw_active) exactly while swc != 0,
//   at entry N - swc, with no op in flight, no update waiting and no
//   output; T == tn; the op stages exclusive as the module doc times them
//   (no two visits read in consecutive cycles: v1 never with v2, v2 never
//   with v3; an update's write cycle with no visit in flight); the input
//   register full exactly while k counts (and in_ready low then), and
//   while it is full an update starts within k's bound (a visit in flight
//   ends first; the `fair` flag lets one visit go between two updates);
//   the error pipeline q_e1/q_e2 is r1/r2;
// - WS_JOIN (joined_only): while `wj` is clear, the watched flow's member
//   bit is 0 in the table once the sweep has passed it (and at power-up),
//   in the RAM's read register when a visit of it reads, in the visit's
//   copy (q_act) and its due flag (d_due) in the stages that hold its
//   visit, and the input register holds no join of it.
// Sound: the sections only read (keep wires, no RTL signal driven, no state
// added), the connections drive only the harness's undriven x_* wires, and
// every invariant is an assertion (no assume anywhere: every input is free
// every cycle).
//
// What is not claimed here: the schedule (a member's due times, its
// lateness bound). The cosimulation against `PacingTimerSeqModel` and the model's
// test against the functional `PacedFlow`
// (`seq_pacing_timer_due_times_are_paced_flows`) cover it; a harness
// property for it needs the next-due table (t_nx) tied to a model of the
// watched flow, not written yet.
//
// depth 2: every property is 1-inductive with the invariants; 2 for margin
// flatten: one SMT2 state (the connections need it)
// solver yices: as the other sequential blocks' harnesses
// inside pacing_timer_seq: the control and op registers, for the strengthening invariants (connected to the harness's x_* wires)
  // sw_active 20, sw_ptr 19:18, u_v 17, u_flow 16:15, u_join 14 (a non-zero interval), fair 13, v1 12, v2 11, v3 10, up 9,
  // v_idx 8:7, w_idx 6:5, q_act 4, d_due 3, q_e1 2, q_e2 1, q_v 0
  (* keep *) wire [20:0] h_ctl = {sw_active$q, sw_ptr$q, u_v$q, u_flow$q, |u_iv$q, fair$q, v1$q, v2$q, v3$q, up$q,
                                   v_idx$q, w_idx$q, q_act$q, d_due$q, q_e1$q, q_e2$q, q_v$q};
  (* keep *) wire [24:0] h_tn = t_now$q;
  (* keep *) wire [1:0] h_qflow = q_flow$q;
// end inside
// inside pacing_timer_seq$t_iv: the four words of the member table (member 24 | interval 23..0) and its read register
  (* keep *) wire [99:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
  (* keep *) wire [24:0] h_rd = read_data;
// end inside
// connect x_ctl = dut.h_ctl: the sweep, the input register, the op stages and the outputs' registers
// connect x_tn = dut.h_tn: the block's time T
// connect x_qflow = dut.h_qflow: the grant's flow register
// connect x_m = dut.t_iv.h_all: the four words of the member table
// connect x_rd = dut.t_iv.h_rd: its read register
module pacing_timer_seq_props (
    input clock,
    input reset,
    input in_valid,
    input in_restart,
    input [15:0] in_flow,
    input [23:0] in_interval_cycles
);
  localparam FB = 2;  // hdl::generate::FB_FORMAL: the formal-size build's flow bits
  localparam N = 4;  // flows, 2^FB
  localparam WAIT = 5;  // cycles an update waits at most (in_ready low): the module doc's "written at most 5 cycles after its take"

  wire in_ready, out_valid, err;
  wire [15:0] out_flow, out_late;
  pacing_timer_seq dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_restart(in_restart),
      .in_flow(in_flow), .in_interval_cycles(in_interval_cycles), .in_ready(in_ready),
      .out_valid(out_valid), .out_flow(out_flow), .out_late_cycles(out_late),
      .stat_err_flow_strobe(err));

  // the watched flow
  (* anyconst *) reg [FB-1:0] watch;

  // ---- the block's internals, carried here by the `// connect` lines
  (* keep *) wire [20:0] x_ctl;
  (* keep *) wire [24:0] x_tn;
  (* keep *) wire [1:0] x_qflow;
  (* keep *) wire [99:0] x_m;
  (* keep *) wire [24:0] x_rd;
`define X_sw x_ctl[20]
`define X_swp x_ctl[19:18]
`define X_uv x_ctl[17]
`define X_uflow x_ctl[16:15]
`define X_ujoin x_ctl[14]
`define X_fair x_ctl[13]
`define X_v1 x_ctl[12]
`define X_v2 x_ctl[11]
`define X_v3 x_ctl[10]
`define X_up x_ctl[9]
`define X_vidx x_ctl[8:7]
`define X_widx x_ctl[6:5]
`define X_qact x_ctl[4]
`define X_ddue x_ctl[3]
`define X_e1 x_ctl[2]
`define X_e2 x_ctl[1]
`define X_qv x_ctl[0]
  // the member bit of word i of the table
  function mact(input [1:0] i);
    mact = x_m[25 * i + 24];
  endfunction

  // ---- what the ports fix
  reg [2:0] swc = 3'd0;  // sweep cycles left (the table powers up idle: none)
  reg [24:0] tn = 25'd0;  // T as the block counts it
  reg r1 = 1'b0, r2 = 1'b0;  // a refused id taken one, two cycles back
  reg [2:0] k = 3'd0;  // cycles an update taken has waited (0: none waits)
  reg wj = 1'b0;  // the watched flow was joined (or updated) since the last reset
  reg p_ov = 1'b0;  // out_valid a cycle back
  wire take = in_valid && in_ready && !reset;
  wire oor = in_flow >= N;
  always @(posedge clock) begin
    tn <= reset ? 25'd0 : tn + 25'd1;
    swc <= reset ? N : (swc != 3'd0 ? swc - 3'd1 : 3'd0);
    r1 <= take && oor;
    r2 <= r1 && !reset;
    // the input register fills at a take (an id in the table) and empties
    // at the edge of its update's write cycle (`up`: from the block, as the
    // write is not on a port)
    if (reset || `X_up) k <= 3'd0;
    else if (take && !oor) k <= 3'd1;
    else if (k != 3'd0) k <= k + 3'd1;
    if (reset) wj <= 1'b0;
    else if (take && !oor && in_flow[FB-1:0] == watch && in_interval_cycles != 24'd0) wj <= 1'b1;
    p_ov <= out_valid;
  end

  // ---- the core invariants (see the header)
  wire core_ok =
      (`X_sw == (swc != 3'd0))
      && (swc == 3'd0 || `X_swp == N - swc)
      && (!`X_sw || !(`X_v1 || `X_v2 || `X_v3 || `X_up || `X_uv || `X_qv || out_valid))
      && x_tn == tn
      && !(`X_v1 && `X_v2) && !(`X_v2 && `X_v3)
      && !(`X_up && (`X_v1 || `X_v2 || `X_v3))
      && (!(`X_up) || (`X_uv && `X_fair))
      && (`X_uv == (k != 3'd0)) && (k <= WAIT)
      && (in_ready == (!`X_sw && !`X_uv))
      // `fair` (a visit goes next) only in an update's write cycle and the
      // one after it, when the input register is empty
      && (!(`X_fair) || (!`X_v1 && !`X_v2 && !`X_v3 && (`X_up || !`X_uv)))
      // the waiting update's schedule: no visit starts once it waits, so
      // the visit in flight at its take drains by k = 4, and it starts
      // then at the latest and is written at k = 5
      && (!(k >= 3'd2) || (!`X_v1))
      && (!(k >= 3'd3) || (!`X_v2))
      && (!(k >= 3'd4) || (!`X_v3))
      && (!(k == 3'd5) || (`X_up))
      && `X_e1 == r1 && `X_e2 == r2
      && (!(`X_qv) || (!`X_v3))
      && (!(out_valid) || (!p_ov));

  // ---- WS_JOIN: the watched flow is no member while wj is clear
  wire swept = swc == 3'd0 || `X_swp > watch;
  wire join_ok = wj || (
      (!swept || !mact(watch))
      && !(`X_uv && `X_uflow == watch && `X_ujoin)
      && !(`X_v1 && `X_vidx == watch && x_rd[24])
      && !(`X_v2 && `X_vidx == watch && `X_qact)
      && !(`X_v3 && `X_widx == watch && `X_ddue)
      && !(`X_qv && x_qflow == watch));

`ifdef P_handshake
  // property handshake: in_ready is low exactly in the sweep (N cycles after a reset) and while an update waits, and an update waits at most 5 cycles: it is written by then, whatever the input does
  always @(*) begin
    assert (core_ok);
    assert (in_ready == (swc == 3'd0 && k == 3'd0));
  end
`endif

`ifdef P_visit_pace
  // property visit_pace: two grants are never shown in consecutive cycles (a visit every 2 cycles at most), and none during the sweep
  always @(*) begin
    assert (core_ok);
    assert (!(out_valid && p_ov));
    assert (swc == 3'd0 || !out_valid);
  end
`endif

`ifdef P_refused
  // property refused: stat_err_flow_strobe shows exactly the updates with a flow id beyond the table taken two cycles back (none through a reset), and such an update is not taken into the input register
  always @(*) begin
    assert (core_ok);
    assert (err == r2);
  end
`endif

`ifdef P_joined_only
  // property joined_only: the watched flow is granted only after an update with a non-zero interval of it was taken since the last reset (a leave or a refused id never makes a member)
  always @(*) begin
    assert (core_ok);
    assert (join_ok);
    assert (!(out_valid && out_flow == {{(16 - FB) {1'b0}}, watch}) || wj);
  end
`endif
endmodule
