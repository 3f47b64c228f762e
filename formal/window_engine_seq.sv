// Property harness of `window_engine_seq` (the window engine in the fewest
// cells: PAWA and the gamma floor one event at a time,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2;
// `hdl/src/window_engine_seq.rs`, model
// `ldcp_sim::window_engine::WindowEngineSeqModel`), proved with `ldcp prove
// --block window_engine_seq` on the formal-size build (4 flows,
// `hdl::generate::FB_FORMAL` = 2). Each property is a `P_<name>` block
// named by a `// property <name>: <text>` line.
//
// The harness follows the handshake at the ports: `age` is 0 while no
// event is in flight and k in the k-th cycle after a take (an offer with
// `in_ready` and no reset); the update shows at age L = 27
// (SEQ_LATENCY_CYCLES), with age back at 0, or at age 7
// (SEQ_SHORT_LATENCY_CYCLES) when the block goes from its step 4 to its
// last step, 25 (no increase, and a new cw, c1, of one packet or more or
// below 2^12: no multiply): the harness's age then goes from 5 to 26. When
// to skip, the harness states in a section inside the block on its c1 and
// inc registers (`h_skip`, carried out to `hx_skip` by a connection): a
// block that skips otherwise leaves the tie of its step counter to the
// age. What c1 and inc mean the datapath properties pin down, and
// short_iff_no_multiply states the rule at the outputs (which updates take
// 7 cycles, as WindowEngineSeqModel times them). A
// section inside the block ties its step counter to `age` (connected in:
// `busy` exactly while an event is in flight, its step `age - 1`), which
// makes every property inductive at a small depth.
//
// The harness registers the taken event's fields and the raw
// configuration at the take (`t_*`, held until the next take, so they
// still describe the event in the cycle its update shows), and clamps the
// configuration as the block does. The same section ties the block's event
// registers (e_flow, e_set, e_ece, e_n) to them while busy: the block loads
// them at the take from the same ports and holds them to step 25. The
// datapath properties also tie (section, `WS_DATA`): e_g and e_cwmax (raw
// at step 0, clamped from step 1 on: the clamp acts at step 0 only); cw (a
// SET's in_cw from the take on, an ACK of the watched flow's table read,
// t_rd, from step 1 on: cw is loaded at the take and, for an ACK, at step 0
// from the RAM's read register, which the take loaded with mem[in_flow]);
// and from step 4 on what step 3 put in c1 and inc (c1 and inc change at
// step 3 only): a SET's c1 is its cw clamped to [gamma, cw_max] and inc is
// low; an unmarked ACK read at most cw_max reaches c1 >= cw, and with inc
// c1 = cw >= 1.0; a marked ACK read at least gamma reaches c1 <= cw
// without inc; an ACK read in [gamma, cw_max] reaches c1 in it; inc only at
// c1 >= 1.0. Each holds by the step-1..3 arithmetic from the step-1 values
// (gamma, its mask, n gamma, the tests, the halving, then the sums and the
// floors), which the induction's three transitions from a step-1 state
// recompute (depth 3). Steps 4..24 need no invariant: an update's out_cw
// is c1, or with inc c1 + p capped at cw_max (`over` and `sum` both read
// the step-24 p, and `room` the settled c1 and cw_max), whatever the
// multiply left in p, so every cw property rests on c1 alone; the last
// three transitions (step 23 to the output register) recompute the cap.
//
// The flow table is read (written_is_shown, the two monotonicity
// properties, cw_in_range) as in window_engine.sv: a section inside
// `window_engine_seq$cw_table` reads `mem[h_addr]` onto a kept wire
// `h_word`, and two connections drive h_addr with the watched flow f
// (anyconst) and the harness's undriven `h_word` with it. The table is
// written only at step 25 (the edge the outputs load at) at e_flow, with
// the value the outputs load, so flow f's entry is the last out_cw shown
// for f (1-inductive with the event ties), and an event of f reads at its
// take the value t_rd the harness captures then (mem[f] does not change
// while the event is in flight: the only write is its own, at step 25).
// In the properties that do not read the table `h_word` is 0, so t_rd is
// tied to the block's read only where the table is read (WS_TABLE).
//
// interval_iff_below_one: out_interval_ticks is 0 for an update at cw >=
// 1.0 (the register loads p only when inc is low and c1 < 1.0, and with
// inc the update shows at least c1 >= 1.0), 2^24-1 below 2^12 (`tiny`),
// and nonzero for cw < 1.0 when the take's RTT is nonzero: the multiply
// RTT R >> (15 - k) of `pace_interval()` is then at least 1 and below
// 2^24, by the invariants on p (WS_IVAL, below). With RTT = 0 the RTL
// (and `pace_interval()`) gives 0 for cw in [2^12, 1.0), so "exactly
// when cw < 1.0" holds for RTT != 0 only, which is the form proved; it
// needs no range assumption (below 2^12 the value is 2^24-1, not 0).
//
// depth 2: with the step counter tied to age, the handshake is 1-inductive
// depth taken_fields 2: the event registers, tied to the harness's copy, load at the take and hold; 1-inductive
// depth written_is_shown 2: the table entry of f against the last out_cw of f, with the event ties, is 1-inductive
// depth set_clamped 3: c1's invariant at step 4 is recomputed from step 1's tied values in three transitions (gmask at 1, lo/hi at 2, c1 at 3); the cap at the output from step 23's in three (room, sum and over, z_cw)
// depth unmarked_never_decreases 3: as set_clamped
// depth marked_never_increases 3: as set_clamped
// depth cw_in_range 3: as set_clamped
// depth short_iff_no_multiply 3: as set_clamped (inc's invariant from step 1's regime test, the skip record's from step 3's c1)
// depth interval_iff_below_one 3: as set_clamped; the multiply's invariants (WS_IVAL) are 1-inductive, their step-7 value from step 6's load
// (at depth 2 the inductions of set_clamped, unmarked_never_decreases, marked_never_increases, cw_in_range and interval_iff_below_one fail)
// flatten: one SMT2 state
// solver yices: as the other table blocks' harnesses
// memory_map: the reciprocal ROM (256 words, never written) then becomes constant logic, which interval_iff_below_one's invariant on R (bit 15 set) needs: as an SMT array its contents are free in the induction's first state and that induction fails; the 4-entry flow table becomes four registers (every check here under 1 s either way)
// inside window_engine_seq: the step counter and busy flag, tied to the harness's age; the event and datapath registers, tied to the harness's copy of the taken event
  (* keep *) wire [5:0] h_age;
  // whether the update in flight skipped the multiply, from the harness
  // (read by short_iff_no_multiply's invariant only)
  (* keep *) wire h_short;
  // when the block must skip the multiply (at step 4: no increase, and c1
  // of one packet or more or below 2^12), carried out to the harness's count
  (* keep *) wire h_skip = busy$q && st$q == 6'd4 && !inc$q
                           && (c1$q[31:20] != 12'd0 || c1$q[31:12] == 20'd0);
  (* keep *) wire [1:0] h_flow;
  (* keep *) wire h_set, h_ece, h_mine;
  (* keep *) wire [3:0] h_n, h_g;
  (* keep *) wire [31:0] h_cw, h_cwm, h_rd;
  (* keep *) wire [15:0] h_rtt;
  // (the connected wires are read through cells only, never as a bare or
  // nested condition: proc makes an alias wire of an `if`'s condition, and
  // `connect -set` unsets that alias's driver; each condition below is a
  // named wire, a cell's output)
  always @* begin
    assert (busy$q == (h_age != 6'd0));
    if (h_age != 6'd0) assert (st$q == h_age - 6'd1);
  end
`ifdef P_taken_fields
`define WS_EVENT
`endif
`ifdef P_written_is_shown
`define WS_EVENT
`endif
`ifdef P_set_clamped
`define WS_DATA
`endif
`ifdef P_unmarked_never_decreases
`define WS_DATA
`endif
`ifdef P_marked_never_increases
`define WS_DATA
`endif
`ifdef P_cw_in_range
`define WS_DATA
`endif
`ifdef P_interval_iff_below_one
`define WS_DATA
`define WS_IVAL
`endif
`ifdef P_short_iff_no_multiply
`define WS_DATA
`define WS_INC
`endif
`ifdef WS_DATA
`define WS_EVENT
`endif
// the properties that read the flow table (WS_TABLE: the section inside
// the RAM, below in the file, reads it too)
`ifdef P_short_iff_no_multiply
`define WS_TABLE
`endif
`ifdef P_written_is_shown
`define WS_TABLE
`endif
`ifdef P_unmarked_never_decreases
`define WS_TABLE
`endif
`ifdef P_marked_never_increases
`define WS_TABLE
`endif
`ifdef P_cw_in_range
`define WS_TABLE
`endif
`ifdef WS_EVENT
  // the event registers: loaded at the take from the ports the harness
  // registers, held to step 25
  always @* if (h_age != 6'd0) begin
    assert (e_flow$q == h_flow);
    assert (e_set$q == h_set);
    assert (e_ece$q == h_ece);
    assert (e_n$q == h_n);
  end
`endif
`ifdef WS_DATA
  // the configuration: raw at step 0, clamped there (gamma_shift to [1, 8],
  // cw_max below 1.0 to 1.0), held after
  wire [3:0] hv_g = h_g < 4'd1 ? 4'd1 : h_g > 4'd8 ? 4'd8 : h_g;
  wire [31:0] hv_cwm = h_cwm[31:20] == 12'd0 ? 32'h0010_0000 : h_cwm;
  // gamma and cw_max as the block holds them from step 1 on
  wire [31:0] hv_gamma = 32'h0010_0000 >> e_g$q;
  wire [31:0] hv_set = cw$q < hv_gamma ? hv_gamma : cw$q > e_cwmax$q ? e_cwmax$q : cw$q;
  // the conditions, each a cell's output (see above)
  wire hv_busy = h_age != 6'd0;
  wire hv_set_ev = hv_busy && h_set;
  wire hv_rd0 = h_age == 6'd1 && !h_set && h_mine;
  wire hv_rd = h_age > 6'd1 && !h_set && h_mine;
  wire hv_c1 = h_age >= 6'd5;
  wire hv_c1_set = hv_c1 && h_set;
  wire hv_c1_u = hv_c1 && !h_set && !h_ece && cw$q <= e_cwmax$q;
  wire hv_c1_m = hv_c1 && !h_set && h_ece && cw$q >= hv_gamma;
  wire hv_c1_r = hv_c1 && !h_set && hv_gamma <= cw$q && cw$q <= e_cwmax$q;
  always @* begin
    if (hv_busy) begin
      assert (e_g$q == (h_age == 6'd1 ? h_g : hv_g));
      assert (e_cwmax$q == (h_age == 6'd1 ? h_cwm : hv_cwm));
    end
    // the cw the update starts from: a SET's own from the take on, an
    // ACK's (of the watched flow) the RAM's read register at step 0 and cw
    // from step 1 on
    if (hv_set_ev) assert (cw$q == h_cw);
`ifdef WS_TABLE
    if (hv_rd0) assert (cw_table$read_data == h_rd);
    if (hv_rd) assert (cw$q == h_rd);
`endif
    // what step 3 put in c1 and inc (see the header)
    if (hv_c1) assert (!inc$q || c1$q[31:20] != 12'd0);
    if (hv_c1_set) assert (!inc$q && c1$q == hv_set);
    if (hv_c1_u) assert (c1$q >= cw$q && (!inc$q || c1$q == cw$q));
    if (hv_c1_m) assert (!inc$q && c1$q <= cw$q);
    if (hv_c1_r) assert (hv_gamma <= c1$q && c1$q <= e_cwmax$q);
  end
`endif
`ifdef WS_INC
  // short_iff_no_multiply: inc, set at step 3, is an unmarked ACK of n >= 1
  // that read cw >= 1.0 (the regime test of step 1 on the cw held from
  // step 0); and the harness's record of a skip (connected in) is the
  // skip's condition on c1 and inc from step 5 on (both held from step 3:
  // a short update skipped on it at step 4, a long one found it false)
  wire hv_inc = h_age >= 6'd5;
  wire hv_skipped = h_age >= 6'd6;
  wire hv_skip_cond = !inc$q && (c1$q[31:20] != 12'd0 || c1$q[31:12] == 20'd0);
  always @* begin
    if (hv_inc)
      assert (inc$q == (!e_set$q && e_n$q != 4'd0 && !e_ece$q && cw$q[31:20] != 12'd0));
    if (hv_skipped) assert (h_short == hv_skip_cond);
  end
`endif
`ifdef WS_IVAL
  // the interval's multiply (interval_iff_below_one): with RTT != 0 and
  // no increase (inc low: the multiply computes RTT R >> (8 + j)), p stays
  // nonzero and ends below 2^24 when c1 is in [2^12, 1.0) (j <= 7, by c1's
  // leading one at 12 + j; below 2^12 the block skips the multiply). R,
  // from the ROM at step 6, has bit 15 set (every entry is at least
  // 0x8020; the ROM is constant logic under memory_map), and m3 = 3 R from
  // step 8 on. Over the multiply's steps 8..15 (i = st - 8 done, two bits
  // of RTT each) p is {P << (16 - 2i), RTT >> 2i} with P = (RTT mod 2^2i)
  // R: either RTT's bits not yet used are nonzero (p's low 16 - 2i bits),
  // or a set bit was used, after which p >= R << 15 >> (2i - used) >=
  // 2^(31 - 2i); at step 16 so p >= 2^15. Steps 16..23 shift p right by
  // two while rem >= 2, then by one, from rem = 8 + j: with done = 8 + j -
  // rem, p >> rem stays nonzero (it starts >= 2^15 >> (8 + j) >= 1) and p
  // < 2^(32 - done) (it starts below 2^32), so at step 25 (rem 0) 0 < p <
  // 2^24.
  wire hv_jok = h_age >= 6'd6 && c1$q < 32'h0010_0000;
  wire hv_iv = h_age >= 6'd8 && !inc$q && h_rtt != 16'd0 && c1$q < 32'h0010_0000
               && c1$q >= 32'h0000_1000;
  wire hv_mul = hv_iv && st$q >= 6'd8 && st$q <= 6'd16;
  wire hv_shr = hv_iv && st$q >= 6'd16;
  wire hv_ld = h_age >= 6'd8 && h_age <= 6'd16 && !inc$q;
  wire hv_m3 = h_age >= 6'd9;
  wire [5:0] hv_i2 = (st$q - 6'd8) << 1;
  wire [5:0] hv_done = 6'd8 + j$q - rem$q;
  always @* begin
    if (hv_busy) assert (e_rtt$q == h_rtt);
    if (hv_jok) assert (j$q <= 5'd7);
    if (hv_ld) assert (rem$q == 4'd8 + j$q[3:0] && m$q[15]);
    if (hv_m3) assert (m3$q == {2'b00, m$q} + {1'b0, m$q, 1'b0});
    if (hv_mul)
      assert (p$q >= (32'h8000_0000 >> hv_i2)
              || (p$q & ((32'h0001_0000 >> hv_i2) - 32'd1)) != 32'd0);
    if (hv_shr) assert ((p$q >> rem$q) != 32'd0 && (p$q >> (6'd32 - hv_done)) == 32'd0
                        && (st$q < 6'd24 || rem$q == 4'd0)
                        && {2'b00, rem$q} <= (6'd24 - st$q) << 1);
  end
`endif
// end inside
// inside window_engine_seq$cw_table: the watched flow's table entry, the RAM's `mem[f]`; the connections carry f in and the entry out
  (* keep *) wire [1:0] h_addr;
`ifdef WS_TABLE
  (* keep *) wire [31:0] h_word = mem[h_addr];
`else
  // the other properties do not read it: a kept read of `mem` would keep
  // the table in their cones
  (* keep *) wire [31:0] h_word = 32'd0;
`endif
// end inside
// connect dut.h_age = age: the harness's count of the cycles since the take, into the block
// connect hx_skip = dut.h_skip: when the block must skip the multiply, out to the harness's count
// connect dut.h_short = h_short: whether the update in flight skipped the multiply, into the block (short_iff_no_multiply's invariant)
// connect dut.h_flow = t_flow: the taken event's flow, into the block
// connect dut.h_set = t_set: the taken event's SET flag, into the block
// connect dut.h_ece = t_ece: the taken event's ECE flag, into the block
// connect dut.h_n = t_n: the taken event's packet count, into the block
// connect dut.h_g = t_g: the take's raw gamma_shift, into the block
// connect dut.h_cwm = t_cwm: the take's raw cw_max, into the block
// connect dut.h_cw = t_cw: the taken event's in_cw, into the block
// connect dut.h_rtt = t_rtt: the take's RTT, into the block
// connect dut.h_rd = t_rd: the watched flow's table entry at the take, into the block
// connect dut.h_mine = t_mine: whether the taken event is of the watched flow, into the block
// connect dut.cw_table.h_addr = f: the RAM's view reads the watched flow's entry
// connect h_word = dut.cw_table.h_word: the watched flow's table entry, as the harness's h_word
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
  localparam [5:0] L = 6'd27;  // ldcp_sim::window_engine::SEQ_LATENCY_CYCLES
  localparam [5:0] SKIP_AT = 6'd5;  // the age of step 4, where the block may skip to its last step, 25 (age 26)
  localparam [31:0] ONE = 32'h0010_0000;  // 1.0 in UQ12.20: ldcp_sim::window_engine::CW_ONE
  localparam [3:0] G_MIN = 4'd1;  // ldcp_sim::window_engine::GAMMA_SHIFT_MIN
  localparam [3:0] G_MAX = 4'd8;  // ldcp_sim::window_engine::GAMMA_SHIFT_MAX

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

  // the watched flow
  (* anyconst *) reg [FB-1:0] f;

  // the block's skip of the multiply (undriven here; carried out of the
  // dut by the connection above)
  wire hx_skip;

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
    end else if (age == SKIP_AT && hx_skip) age <= L - 6'd1;
    else age <= age + 6'd1;
  end

  // the count's range (an invariant every property rests on)
  always @* assert (age < L);

  // whether the update in flight skipped the multiply (short_iff_no_multiply)
  reg h_short = 1'b0;
  always @(posedge clock)
    if (take) h_short <= 1'b0;
    else if (!reset && age == SKIP_AT && hx_skip) h_short <= 1'b1;

  // ---- the flow table's entry of f (the RAM's `mem[f]`, carried out of
  // the dut by the connections above; undriven here; 0 in the properties
  // that do not read the table). Read only through expressions (a plain
  // alias would lose its driver: `connect -set` unsets the net's drivers).
  wire [31:0] h_word;

  // ---- the taken event and the take's raw configuration, held to the
  // next take (so still the event's in the cycle its update shows)
  reg [FB-1:0] t_flow = 0;
  reg t_set = 1'b0, t_ece = 1'b0;
  reg [3:0] t_n = 4'd0, t_g = 4'd0;
  reg [31:0] t_cw = 32'd0, t_cwm = 32'd0, t_rd = 32'd0;
  reg [15:0] t_rtt = 16'd0;
  always @(posedge clock)
    if (take) begin
      t_flow <= in_flow;
      t_set <= in_set;
      t_ece <= in_ece;
      t_n <= in_n_pkts;
      t_g <= cfg_gamma_shift;
      t_cwm <= cfg_cw_max;
      t_cw <= in_cw;
      t_rtt <= cfg_rtt_ticks;
      t_rd <= h_word;  // the entry the block's RAM reads at this edge, if in_flow == f
    end
  wire t_mine = t_flow == f;  // the taken event is of the watched flow
  // the take's limits as the block clamps them (gamma_shift to [1, 8],
  // cw_max below 1.0 taken as 1.0), UQ12.20
  wire [3:0] t_gc = t_g < G_MIN ? G_MIN : t_g > G_MAX ? G_MAX : t_g;
  wire [31:0] t_gamma = ONE >> t_gc;
  wire [31:0] t_cw_max = t_cwm < ONE ? ONE : t_cwm;
  wire [31:0] t_clamped = t_cw < t_gamma ? t_gamma : t_cw > t_cw_max ? t_cw_max : t_cw;

  // an update shows exactly when the harness expects one (the handshake's
  // second half, an invariant of every property below)
  always @* assert (out_valid == h_out);

  // ---- the last out_cw shown for f (written_is_shown): none yet at
  // configuration; a reset forgets nothing (it drops the event in flight,
  // its write with its output)
  wire out_f = out_valid && out_flow == f;
  reg p_known = 1'b0;
  reg [31:0] p_cw = 32'd0;
  reg [31:0] w_prev = 32'd0;
  reg w_prev_v = 1'b0;
  always @(posedge clock) begin
    if (out_f) begin
      p_known <= 1'b1;
      p_cw <= out_cw;
    end
    w_prev <= h_word;
    w_prev_v <= 1'b1;
  end

  // ---- cw_in_range's assumption: gamma and cw_max held (any value: the
  // block clamps them, and the harness clamps them the same way). The
  // block keeps the cw its table holds when they change: after cw_max is
  // lowered a flow stays above it until its next SET or unmarked update,
  // and a marked update of it shows a cw above cw_max; after gamma is
  // raised likewise below. alpha, beta and the RTT are left free.
`ifdef P_cw_in_range
  (* anyconst *) reg [3:0] held_gamma_shift;
  (* anyconst *) reg [31:0] held_cw_max;
  always @(*) begin
    assume (cfg_gamma_shift == held_gamma_shift);
    assume (cfg_cw_max == held_cw_max);
  end
  wire [3:0] g = held_gamma_shift < G_MIN ? G_MIN : held_gamma_shift > G_MAX ? G_MAX
               : held_gamma_shift;
  wire [31:0] gamma = ONE >> g;
  wire [31:0] cw_max = held_cw_max < ONE ? ONE : held_cw_max;
`endif

  always @(*) begin
`ifdef P_handshake
    // property handshake: in_ready exactly while no event is in flight; an update shows exactly L = 27 cycles after each take with no reset between (7 when the block skips the multiply at its step 4), and at no other time
    assert (in_ready == (age == 6'd0));
    assert (out_valid == h_out);
`endif
`ifdef P_taken_fields
    // property taken_fields: each update's out_flow is its event's flow, and out_n_u_pkts / out_n_m_pkts are its n for an unmarked / marked ACK, else 0 (both 0 for a SET)
    if (out_valid) begin
      assert (out_flow == t_flow);
      assert (out_n_u_pkts == (!t_set && !t_ece ? {4'd0, t_n} : 8'd0));
      assert (out_n_m_pkts == (!t_set && t_ece ? {4'd0, t_n} : 8'd0));
    end
`endif
`ifdef P_set_clamped
    // property set_clamped: a SET's update shows in_cw of the take clamped to [gamma, cw_max] of the take's (clamped) parameters, and out_interval_ticks 0 when that cw is at least 1.0
    if (out_valid && t_set) begin
      assert (out_cw == t_clamped);
      if (t_clamped >= ONE) assert (out_interval_ticks == 24'd0);
    end
`endif
`ifdef P_written_is_shown
    // property written_is_shown: once an update of the watched flow f has shown, f's table entry equals the last out_cw shown for f, and it changes only in a cycle an update of f shows (the write-back agrees with the output; nothing else writes the table)
    if (out_f) assert (h_word == out_cw);
    else if (p_known) assert (h_word == p_cw);
    if (w_prev_v && h_word != w_prev) assert (out_f);
`endif
`ifdef P_unmarked_never_decreases
    // property unmarked_never_decreases: an unmarked ACK's update of the watched flow shows a cw at least the one its table entry held at the take, when that was at most the take's cw_max (above it the update caps it: a decrease)
    // (the entry read: the take's t_rd, the entry unchanged while the event is in flight)
    if (age != 6'd0 && t_mine) assert (h_word == t_rd);
    if (out_valid && t_mine && !t_set && !t_ece && t_rd <= t_cw_max) assert (out_cw >= t_rd);
`endif
`ifdef P_marked_never_increases
    // property marked_never_increases: a marked ACK's update of the watched flow shows a cw at most the one its table entry held at the take, when that was at least the take's gamma (below it the floor raises it)
    // (the entry read: the take's t_rd, the entry unchanged while the event is in flight)
    if (age != 6'd0 && t_mine) assert (h_word == t_rd);
    if (out_valid && t_mine && !t_set && t_ece && t_rd >= t_gamma) assert (out_cw <= t_rd);
`endif
`ifdef P_cw_in_range
    // property cw_in_range: with gamma_shift and cw_max held, every update (of any flow) shows a cw in [gamma, cw_max]
    // (f's updates, f any flow: every update)
    if (out_f) assert (gamma <= out_cw && out_cw <= cw_max);
    // its invariant: flow f's entry of the flow table holds a cw in [gamma, cw_max]
    assert (gamma <= h_word && h_word <= cw_max);
    // and the event in flight: taken with the held parameters; if of f, it
    // read the entry (unchanged while it is in flight)
    if (age != 6'd0) begin
      assert (t_g == held_gamma_shift && t_cwm == held_cw_max);
      if (t_mine) assert (h_word == t_rd);
    end
`endif
`ifdef P_short_iff_no_multiply
    // property short_iff_no_multiply: an update of the watched flow shows 7 cycles after its take (the multiply skipped) exactly when it is no increase (an unmarked ACK of n >= 1 whose flow held cw >= 1.0) and its cw is at least 1.0 or below 2^12 (no pacing interval to compute); else 27 (the rule WindowEngineSeqModel times updates by)
    // (the entry read: the take's t_rd, the entry unchanged while the event is in flight)
    if (age != 6'd0 && t_mine) assert (h_word == t_rd);
    if (age >= 6'd1 && age <= SKIP_AT) assert (!h_short);
    if (out_valid && t_mine)
      assert (h_short == (!(!t_set && !t_ece && t_n != 4'd0 && t_rd >= ONE)
                          && (out_cw >= ONE || out_cw < 32'h0000_1000)));
`endif
`ifdef P_interval_iff_below_one
    // property interval_iff_below_one: at every update whose take had RTT != 0, out_interval_ticks != 0 exactly when out_cw < 1.0 (with RTT = 0 it is 0 for cw in [2^12, 1.0), the exact RTT / cw; for out_cw < 2^12, below every gamma, it is 2^24-1)
    if (out_valid) begin
      if (out_cw >= ONE) assert (out_interval_ticks == 24'd0);
      if (out_cw < ONE && t_rtt != 16'd0) assert (out_interval_ticks != 24'd0);
      if (out_cw < 32'h0000_1000) assert (out_interval_ticks == 24'hff_ffff);
    end
`endif
  end
endmodule
