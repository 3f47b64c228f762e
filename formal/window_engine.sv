// Property harness of `window_engine` (the NIC's per-ACK window
// adjustment, PAWA and the gamma floor, draft-dai-tsvwg-pfc-free-
// congestion-control-01 §2.2; `hdl/src/window_engine.rs`, model
// `ldcp_sim::window_engine`), proved with `ldcp prove --block
// window_engine` on the formal-size build (4 flows,
// `hdl::generate::FB_FORMAL` = 2: the same RTL with a 2-bit flow index).
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// The harness watches one flow, `f`, chosen by the solver and held
// (anyconst): a property of flow f is a property of every flow. Apart from
// cw_in_range's view of the flow table (below), it sees the block at its
// ports only (yosys 0.23 has no hierarchical references into the dut), so
// the cw an update read from the flow table is known to it as the cw the
// flow's previous update put out: the block writes an update at stage O
// and shows it six cycles later, and the next update of the flow reads the
// table at least 16 cycles after the previous one did, after that write
// (WRITE_LATENCY = 15 < WINDOW = 16). The table's contents in the
// induction's first state are arbitrary, so an update is compared with the
// previous one only when that one came out at most `A` cycles before it
// (both in the induction's trace); the bound is on the harness's
// knowledge, not on the block.
//
// Whether an update is a SET's, and the packets it must carry, the harness
// knows from the events it saw go in: an update comes out L = 38 cycles
// after the event that opened its slot was at the ports, so every property
// needs an induction whose trace holds that event: yosys-smtbmc's
// induction to depth N checks step N with steps 0..N-1 as its hypotheses,
// so the update it checks at step L = 38 is of an event at the ports in
// step 0, which the harness registers as the block does (depth L = 38; at
// 37 the inductions of updates_come_out, both counts and set_clamped fail,
// as the event can lie before the trace). No invariant on the block's
// internals is needed beyond that (but cw_in_range's on the table, below):
// every slot and stage register of the first state has left the block by
// step 38, and the assertions of those 38 steps (hypotheses of the
// induction) rule out the rest.
//
// "Every cw written is in [gamma, cw_max]" is proved in three parts:
// set_in_range (a SET's update; no read), ack_in_range (an ACK update that
// read a cw in range) and the power-up value (1.0, in range as gamma <=
// 1/2 and cw_max >= 1). The one-piece statement, cw_in_range, is proved
// too, by k-induction with the watched flow's table entry as its
// invariant: "flow f's entry of the flow table holds a cw in [gamma,
// cw_max]" (tbl_ok, asserted with it at every step). This is the one place
// the harness looks inside the dut: a section inside
// `window_engine$cw_table` (the RAM module, where `mem` is in scope) reads
// `mem[h_addr]` onto a kept wire, `h_word` (an asynchronous read port of
// the harness's: it drives nothing of the dut's and changes no driver of
// it; in cw_in_range's check only, the other properties' `h_word` is 0,
// which keeps the table and the datapath out of their cones), and two
// connections, made after flattening (yosys 0.23 has no hierarchical
// reference or bind), drive `h_addr` with f and the harness's undriven
// `h_word` with it. Why it is inductive: every update of f reads f's entry
// (stage X) and starts from that cw or a clamped SET value (B); the cw it
// writes to f's entry (O) is then in range (the arithmetic set_in_range
// and ack_in_range check), and it shows that very value six cycles later
// (P..T and the output register carry it unchanged), so the entry stays in
// range and so does every update of f shown. The entry is written nowhere
// else. A write whose flow's previous write is not yet in the table (two
// slots of one flow closer than WINDOW, possible only in the induction's
// arbitrary first state) still writes a cw in range, so no invariant on
// the window or the stages is needed: the first 21 steps of the
// induction's trace (X..T and the output register, after the configuration
// registers settle in 3) flush them, and the hypotheses of those steps
// (tbl_ok, in_range) rule the rest out. The assertion reads `out_f`, f's
// updates: as f is any flow, that is every update shown (checked with
// `out_valid` and all four entries as the invariant, the same proof took
// 229 s for its base case at depth 40 on two shared cores: the watched
// flow keeps each check small). The power-up contents, for the base case,
// are the RAM's `initial` block, 1.0 in every entry (RustHDL's `RAM::from`
// of CW_ONE; with memory_map they are the entries' register init values),
// in range as above; the table's read register has no init, and its
// power-up value reaches no valid update.
//
// depth 38: an event shows its update L = 38 cycles after it is at the ports, and the induction's last step (38) is then that of an event at step 0, which the harness sees go in: L (37 fails: updates_come_out, unmarked_counted, marked_counted, set_clamped); the write an update read (A + 6 = 36 cycles before it) lies inside the trace too
// flatten: yosys then drops, per property, the logic no assertion reads (the interval's RTT multiplier for all; every multiplier for the counting properties)
// solver yices: z3 4.8 finishes none of the 40-cycle checks tried here in 120 s (unmarked_counted both, ack_in_range induction; the 256-flow draft none in 300 s); Yices proves each check in under 40 s
// memory_map: with the 4-entry flow table as registers the inductions of set_in_range, ack_in_range, unmarked_never_decreases and marked_never_increases take 15-37 s; with the table as an SMT array Yices does not finish them in 200 s
// inside window_engine$cw_table: cw_in_range's invariant is on the watched flow's table entry, the RAM's `mem[f]`; the connections carry f in and the entry out
  (* keep *) wire [1:0] h_addr;
`ifdef P_cw_in_range
  (* keep *) wire [31:0] h_word = mem[h_addr];
`else
  // the other properties do not read it: a kept read of `mem` would keep the
  // table and the whole update datapath in their cones (the counting
  // properties' checks took 50-58 s each with it at depth 40, 1-8 s without)
  (* keep *) wire [31:0] h_word = 32'd0;
`endif
// end inside
// connect dut.cw_table.h_addr = f: the RAM's view reads the watched flow's entry
// connect h_word = dut.cw_table.h_word: the watched flow's table entry, as the harness's h_word
module window_engine_props (
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
  localparam FB = 2;  // flow bits of the formal build: hdl::generate::FB_FORMAL (N = 4 = 2^FB flows)
  localparam L = 38;  // ldcp_sim::window_engine::LATENCY_CYCLES
  localparam W = 16;  // ldcp_sim::window_engine::WINDOW
  // a slot sits in the window's last slot L - D cycles after its first
  // event arrived (1 in the input register, W in the window) and shows its
  // update D = 21 cycles later (X, the 19 stages B..T, the output register)
  localparam D = L - W - 1;
  // how long ago the previous update of f may have come out for the harness
  // to compare the next with it (its table write, 6 cycles before it came
  // out, must lie in the induction's trace: A + 6 < depth)
  localparam A = 30;
  localparam [31:0] ONE = 32'h0010_0000;  // 1.0 in UQ12.20: ldcp_sim::window_engine::CW_ONE
  localparam [3:0] G_MIN = 4'd1;  // ldcp_sim::window_engine::GAMMA_SHIFT_MIN
  localparam [3:0] G_MAX = 4'd8;  // ldcp_sim::window_engine::GAMMA_SHIFT_MAX

  wire out_valid;
  wire [FB-1:0] out_flow;
  wire [7:0] out_n_u_pkts, out_n_m_pkts;
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
  (* anyconst *) reg [FB-1:0] f;

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
`ifdef P_set_clamped
  // every event of f is a SET, so that each update of f is SETs alone: the
  // clamp exactly, apart from the arithmetic (a slot with ACKs merged after
  // its SET is set_in_range's). Stated for any slot, with the exactness of
  // an update with no packet, this check takes 180 s; assumed, 15 s.
  always @(*) if (in_valid && in_flow == f) assume (in_set);
`endif
  // the limits as the block holds them (its doc: gamma_shift clamped to
  // [1, 8], cw_max below 1.0 taken as 1.0), UQ12.20
  wire [3:0] g = held_gamma_shift < G_MIN ? G_MIN : held_gamma_shift > G_MAX ? G_MAX
               : held_gamma_shift;
  wire [31:0] gamma = ONE >> g;
  wire [31:0] cw_max = held_cw_max < ONE ? ONE : held_cw_max;

  // ---- flow f's events, as the harness sees them: the input register,
  // f's slot in the window (at most one open to merges: later events of f
  // merge into it), and the updates between the window and the outputs. A
  // reset drops them all (the block's reset drops every event in flight
  // but the one it writes, whose output it drops too).
  wire ev = in_valid && !reset && in_flow == f;
  reg hi_v = 1'b0, hi_set = 1'b0;
  reg [7:0] hi_nu = 8'd0, hi_nm = 8'd0;
  reg [31:0] hi_val = 32'd0, w_val = 32'd0;
  reg w_v = 1'b0, w_set = 1'b0;
  reg [3:0] w_pos = 4'd0;
  reg [7:0] w_nu = 8'd0, w_nm = 8'd0;
  reg [D-1:0] q_v = 0;
  reg q_set[0:D-1];
  reg [31:0] q_val[0:D-1];
  reg [7:0] q_nu[0:D-1];
  reg [7:0] q_nm[0:D-1];
  integer i;
  initial
    for (i = 0; i < D; i = i + 1) begin
      q_set[i] = 1'b0;
      q_val[i] = 32'd0;
      q_nu[i] = 8'd0;
      q_nm[i] = 8'd0;
    end
  wire merge = hi_v && w_v && w_pos != 4'd15;  // slots 0..14 take an event of their flow
  wire leave = w_v && w_pos == 4'd15;
  always @(posedge clock) begin
    hi_v <= ev;
    hi_set <= in_set;
    hi_val <= in_cw;
    hi_nu <= !in_set && !in_ece ? {4'd0, in_n_pkts} : 8'd0;
    hi_nm <= !in_set && in_ece ? {4'd0, in_n_pkts} : 8'd0;
    if (merge) begin
      w_pos <= w_pos + 4'd1;
      if (hi_set) begin
        // a SET replaces what the slot gathered; ACKs after it add up
        w_set <= 1'b1;
        w_val <= hi_val;
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
      w_val <= hi_val;
      w_nu <= hi_nu;
      w_nm <= hi_nm;
    end else if (leave) begin
      w_v <= 1'b0;
    end else begin
      w_pos <= w_pos + 4'd1;
    end
    if (reset) begin
      w_v <= 1'b0;
      hi_v <= 1'b0;
    end
    q_v <= reset ? {D{1'b0}} : {q_v[D-2:0], leave};
    q_set[0] <= w_set;
    q_val[0] <= w_val;
    q_nu[0] <= w_nu;
    q_nm[0] <= w_nm;
    for (i = 1; i < D; i = i + 1) begin
      q_set[i] <= q_set[i-1];
      q_val[i] <= q_val[i-1];
      q_nu[i] <= q_nu[i-1];
      q_nm[i] <= q_nm[i-1];
    end
  end

  // the update on the outputs now, if it is f's: the harness's expectation
  wire out_f = out_valid && out_flow == f;
  wire exp_v = q_v[D-1];
  wire exp_set = q_set[D-1];
  wire in_range = gamma <= out_cw && out_cw <= cw_max;

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
  // ---- flow f's table entry (the RAM's `mem[f]`, carried out of the dut
  // by the connections above; undriven here). For cw_in_range only; read
  // only through expressions (a plain alias `wire x = h_word` would lose
  // its driver: `connect -set` unsets the net's drivers, the alias's too).
  wire [31:0] h_word;
  wire tbl_ok = gamma <= h_word && h_word <= cw_max;

  // the cw this update of f read, known and within the limits
  wire read_ok = p_known && p_age <= A && gamma <= p_cw && p_cw <= cw_max;
  // an ACK update of f (no SET in its slot) that read a known cw in range
  wire ack_ok = out_f && exp_v && !exp_set && read_ok;
  wire [31:0] exp_clamped = q_val[D-1] < gamma ? gamma : q_val[D-1] > cw_max ? cw_max : q_val[D-1];

  always @(*) begin
`ifdef P_updates_come_out
    // property updates_come_out: every event of f is taken into an update of f: one update per merge slot, L cycles after the event that opened the slot, and no other update of f
    assert (out_f == exp_v);
`endif
`ifdef P_unmarked_counted
    // property unmarked_counted: an update of f carries the unmarked packets of every event of its slot (those after the slot's last SET): none lost or counted twice in the merge window
    if (out_f && exp_v) assert (out_n_u_pkts == q_nu[D-1]);
`endif
`ifdef P_marked_counted
    // property marked_counted: an update of f carries the marked packets of every event of its slot (those after the slot's last SET): none lost or counted twice in the merge window
    if (out_f && exp_v) assert (out_n_m_pkts == q_nm[D-1]);
`endif
`ifdef P_set_clamped
    // property set_clamped: when f's events are all SETs, each update of f writes the value of its slot's last SET clamped to [gamma, cw_max]
    if (out_f && exp_v) assert (exp_set && out_cw == exp_clamped);
`endif
`ifdef P_set_in_range
    // property set_in_range: an update whose slot holds a SET writes a cw in [gamma, cw_max] (the SET's value clamped, then the ACKs merged after it applied)
    if (out_f && exp_v && exp_set) assert (in_range);
`endif
`ifdef P_ack_in_range
    // property ack_in_range: an ACK update (no SET in its slot) that read a cw in [gamma, cw_max] writes a cw in [gamma, cw_max]
    if (ack_ok) assert (in_range);
`endif
`ifdef P_unmarked_never_decreases
    // property unmarked_never_decreases: an ACK update with no marked packet never decreases the cw it read (in range) from its flow's entry
    if (ack_ok && out_n_m_pkts == 8'd0) assert (out_cw >= p_cw);
`endif
`ifdef P_marked_never_increases
    // property marked_never_increases: an ACK update with no unmarked packet never increases the cw it read (in range) from its flow's entry
    if (ack_ok && out_n_u_pkts == 8'd0) assert (out_cw <= p_cw);
`endif
`ifdef P_cw_in_range
    // property cw_in_range: every cw the block shows (of any flow, whatever it read) is in [gamma, cw_max]
    // (f's updates, f any flow: every update)
    if (out_f) assert (in_range);
    // its invariant: flow f's entry of the flow table holds a cw in [gamma, cw_max]
    assert (tbl_ok);
`endif
  end
endmodule
