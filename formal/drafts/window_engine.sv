// Property harness of `window_engine` (the NIC's per-ACK window
// adjustment, PAWA and the gamma floor, draft-dai-tsvwg-pfc-free-
// congestion-control-01 §2.2; `hdl/src/window_engine.rs`, model
// `ldcp_sim::window_engine`), proved with `ldcp prove --block
// window_engine`. Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// The harness watches one flow, `f`, chosen by the solver and held
// (anyconst): a property of flow f is a property of every flow. It sees
// the block at its ports only (yosys 0.23 has no hierarchical references
// into the dut), so the cw an update read from the flow table is known to
// it as the cw the flow's previous update put out: the block writes an
// update at stage O and shows it six cycles later, and the next update of
// the flow reads the table at least 16 cycles after the previous one did,
// after that write (WRITE_LATENCY = 15 < WINDOW = 16). The table's
// contents in the induction's first state are arbitrary, so an update is
// compared with the previous one only when that one came out at most `A`
// cycles before it (both in the induction's trace); the bound is on the
// harness's knowledge, not on the block.
//
// depth 40: an event shows its update L = 38 cycles after it arrives; the induction must see the whole update (and the write it reads, within A + 6 cycles) inside its trace
module window_engine_props (
    input clock,
    input reset,
    input in_valid,
    input [7:0] in_flow,
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
  localparam L = 38;  // ldcp_sim::window_engine::LATENCY_CYCLES
  localparam W = 16;  // ldcp_sim::window_engine::WINDOW
  // a slot sits in the window's last slot L - D cycles after its first
  // event arrived (1 in the input register, W in the window) and shows its
  // update D = 21 cycles later (X, the 19 stages B..T, the output register)
  localparam D = L - W - 1;
  // an event arriving E_FIRST..E_LAST cycles before an update of its flow
  // is one of that update's events (it opened the slot, or met the slot in
  // slots 0..14 of the window)
  localparam E_FIRST = L;
  localparam E_LAST = D + 2;
  // how long ago the previous update of f may have come out for the harness
  // to compare the next with it (its table write, 6 cycles before it came
  // out, must lie in the induction's trace: A + 6 < depth)
  localparam A = 30;
  localparam [31:0] ONE = 32'h0010_0000;  // 1.0 in UQ12.20: ldcp_sim::window_engine::CW_ONE
  localparam [3:0] G_MIN = 4'd1;  // ldcp_sim::window_engine::GAMMA_SHIFT_MIN
  localparam [3:0] G_MAX = 4'd8;  // ldcp_sim::window_engine::GAMMA_SHIFT_MAX

  wire out_valid;
  wire [7:0] out_flow, out_n_u_pkts, out_n_m_pkts;
  wire [31:0] out_cw;
  wire [23:0] out_interval_ticks;
  window_engine dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_flow(in_flow), .in_set(in_set),
      .in_ece(in_ece), .in_n_pkts(in_n_pkts), .in_cw(in_cw), .cfg_alpha(cfg_alpha),
      .cfg_beta(cfg_beta), .cfg_gamma_shift(cfg_gamma_shift), .cfg_cw_max(cfg_cw_max),
      .cfg_rtt_ticks(cfg_rtt_ticks), .out_valid(out_valid), .out_flow(out_flow),
      .out_cw(out_cw), .out_interval_ticks(out_interval_ticks),
      .out_n_u_pkts(out_n_u_pkts), .out_n_m_pkts(out_n_m_pkts));

  // the watched flow
  (* anyconst *) reg [7:0] f;

  // Assumption: gamma and cw_max are held (any value: the block clamps
  // them, and the harness clamps them the same way below). The block reads
  // them at several stages of one update and keeps the cw its table holds
  // when they change: after cw_max is lowered, a flow above it stays above
  // until its next SET or unmarked update (which caps it: a decrease), and
  // a marked update of it writes a cw above cw_max; after gamma is raised
  // likewise below. alpha, beta and the RTT are left free.
  (* anyconst *) reg [3:0] held_gamma_shift;
  (* anyconst *) reg [31:0] held_cw_max;
  always @(*) begin
    assume (cfg_gamma_shift == held_gamma_shift);
    assume (cfg_cw_max == held_cw_max);
  end
  // the limits as the block holds them (its doc: gamma_shift clamped to
  // [1, 8], cw_max below 1.0 taken as 1.0), UQ12.20
  wire [3:0] g = held_gamma_shift < G_MIN ? G_MIN : held_gamma_shift > G_MAX ? G_MAX
               : held_gamma_shift;
  wire [31:0] gamma = ONE >> g;
  wire [31:0] cw_max = held_cw_max < ONE ? ONE : held_cw_max;

  // ---- flow f's events, as the harness sees them: the input register,
  // f's slot in the window (at most one: later events of f merge into it),
  // and the updates between the window and the outputs. A reset drops them
  // all (the block's reset drops every event in flight but the one it
  // writes, whose output it drops too).
  wire ev = in_valid && !reset && in_flow == f;
  reg hi_v = 1'b0, hi_set = 1'b0;
  reg [7:0] hi_nu = 8'd0, hi_nm = 8'd0;
  reg w_v = 1'b0, w_set = 1'b0;
  reg [3:0] w_pos = 4'd0;
  reg [7:0] w_nu = 8'd0, w_nm = 8'd0;
  reg [D-1:0] q_v = 0;
  reg [7:0] q_nu[0:D-1];
  reg [7:0] q_nm[0:D-1];
  integer i;
  initial
    for (i = 0; i < D; i = i + 1) begin
      q_nu[i] = 8'd0;
      q_nm[i] = 8'd0;
    end
  wire merge = hi_v && w_v && w_pos != 4'd15;  // slots 0..14 take an event of their flow
  wire leave = w_v && w_pos == 4'd15;
  always @(posedge clock) begin
    hi_v <= ev;
    hi_set <= in_set;
    hi_nu <= !in_set && !in_ece ? {4'd0, in_n_pkts} : 8'd0;
    hi_nm <= !in_set && in_ece ? {4'd0, in_n_pkts} : 8'd0;
    if (merge) begin
      w_pos <= w_pos + 4'd1;
      if (hi_set) begin
        // a SET replaces what the slot gathered; ACKs after it add up
        w_set <= 1'b1;
        w_nu <= hi_nu;
        w_nm <= hi_nm;
      end else begin
        w_nu <= w_nu + hi_nu;
        w_nm <= w_nm + hi_nm;
      end
    end else if (hi_v) begin
      w_v <= 1'b1;
      w_pos <= 4'd0;
      w_set <= hi_set;
      w_nu <= hi_nu;
      w_nm <= hi_nm;
    end else if (leave) begin
      w_v <= 1'b0;
    end else begin
      w_pos <= w_pos + 4'd1;
    end
    if (reset) w_v <= 1'b0;
    q_v <= reset ? {D{1'b0}} : {q_v[D-2:0], leave};
    q_nu[0] <= w_nu;
    q_nm[0] <= w_nm;
    for (i = 1; i < D; i = i + 1) begin
      q_nu[i] <= q_nu[i-1];
      q_nm[i] <= q_nm[i-1];
    end
  end

  // ---- SETs of f by arrival: sets[j] = a SET of f arrived j + 1 cycles
  // ago. An update of f is a SET's if one arrived E_LAST..E_FIRST cycles
  // before it came out.
  reg [E_FIRST-1:0] sets = 0;
  always @(posedge clock) sets <= {sets[E_FIRST-2:0], ev && in_set};
  wire out_f = out_valid && out_flow == f;
  wire out_set = |sets[E_FIRST-1:E_LAST-1];

  // ---- the previous update of f: its cw, how long ago it came out. At
  // configuration every flow holds 1.0; a reset forgets (the outputs of the
  // updates it drops after their write are lost).
  reg p_known = 1'b1;
  reg [31:0] p_cw = ONE;
  reg [5:0] p_age = 6'd0;
  always @(posedge clock) begin
    if (p_age != 6'h3f) p_age <= p_age + 6'd1;
    if (out_f) begin
      p_known <= 1'b1;
      p_cw <= out_cw;
      p_age <= 6'd1;
    end
    if (reset) p_known <= 1'b0;
  end
  // the cw this update of f read, known and within the limits
  wire read_ok = p_known && p_age <= A && gamma <= p_cw && p_cw <= cw_max;
  wire ack_f = out_f && !out_set;

  always @(*) begin
`ifdef P_events_come_out
    // property events_come_out: every event of a flow comes out, once, in the update of its flow's merge slot L cycles after the slot opened, with its packets counted (unmarked and marked apart, after the slot's last SET); no other update of the flow comes out
    assert (out_f == q_v[D-1]);
    if (out_f) assert (out_n_u_pkts == q_nu[D-1] && out_n_m_pkts == q_nm[D-1]);
`endif
`ifdef P_cw_in_range
    // property cw_in_range: every cw an update writes (and shows) is in [gamma, cw_max], UQ12.20: always after a SET or unmarked packets, and after marked packets or none when the cw it read was
    if (out_f && (out_set || out_n_u_pkts != 8'd0 || read_ok))
      assert (gamma <= out_cw && out_cw <= cw_max);
`endif
`ifdef P_unmarked_never_decreases
    // property unmarked_never_decreases: an update with no marked packet (and no SET) never decreases the cw it read from its flow's entry
    if (ack_f && read_ok && out_n_m_pkts == 8'd0) assert (out_cw >= p_cw);
`endif
`ifdef P_marked_never_increases
    // property marked_never_increases: an update with no unmarked packet (and no SET) never increases the cw it read from its flow's entry
    if (ack_f && read_ok && out_n_u_pkts == 8'd0) assert (out_cw <= p_cw);
`endif
  end
endmodule
