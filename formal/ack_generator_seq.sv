// Property harness of `ack_generator_seq` (the receiver's ACK generator in
// the fewest cells: one op at a time, the rules of
// `ldcp_sim::ack_generator::AckFlow`,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.2, §3.1;
// `hdl/src/ack_generator_seq.rs`, cycle model
// `ldcp_sim::ack_generator::AckGeneratorSeqModel`), proved with `ldcp prove --block
// ack_generator_seq` on the formal-size build (`hdl::generate::FB_FORMAL`
// = 2 flow bits, N = 4 flows). Each property is a `P_<name>` block named
// by a `// property <name>: <text>` line.
//
// The harness follows the op port as the block's module doc times it. An
// op is an event taken (in_valid, in_ready, no reset) or a flush the
// scanner found taken (its hit waiting, no op in flight, no sweep, no
// reset; the hit is carried out of the block, x_ctl). `age` is 0 while no
// op is in flight and k in the k-th cycle after a take (1..3: the op's
// steps 0..2, step 2 the decide); `h_t4` marks the cycle 4 after a take
// with no reset since (the op's first ACK and error show), `h_t5` the
// cycle after it (a split's second ACK). `swc` counts the sweep's cycles
// left after a reset (N, then down), `tn` mirrors the block's time T
// (0 at a reset, + 1 a cycle). The op's fields are registered at the take
// (`t_*`, held to the next take) and copied at its decide (`s_*`, so they
// still describe the op in the cycles its ACKs show: the next op's decide
// is 7 cycles after this one's take at the earliest); its parameters are
// registered in its step 0 (t + 1), as the block registers them for its
// step 1 (`c_*`), with T of t + 1 (`c_t1`: the age's now).
//
// The watched flow `watch` (anyconst: any flow, held) is modelled by the
// golden rules (`AckFlow::packet`, `flush`, `open`): its state (expected,
// pending, gap NAKed, held since: `w_*`) is zeroed by a reset (the sweep
// zeroes the table) and updated at each of its ops' decide with the rules
// applied to the op's fields, the parameters of its step 0 (m clamped, 0
// acts as 1; the timeout), the age T(t + 1) - held since, and T(t + 3) as
// the stamp of a first held packet; the expected first and second ACK and
// error are registered then (`e_*`), to compare with the ports 4 and 5
// cycles after the take.
//
// Strengthening invariants (every one an assert, so proved in the base case
// and by the induction too; they hold from power-up and from every reset)
// on the block's registers and tables, carried out to the harness by
// `// connect` lines from sections (keep wires, reading only) inside
// ack_generator_seq (its control, op, datapath and scanner registers) and
// its two RAMs (their four words):
// - core (every property): busy exactly while age != 0, its step age - 1;
//   the sweep (sw_active) exactly while swc != 0, at entry N - swc, never
//   with an op in flight or a scanner stage valid; T == tn; the op
//   registers o_* == t_*; from step 1 on, m_st is the word of M at the op's
//   flow (M is written only at a decide or by the sweep), PSN + 1 and the
//   age registered from it; at the decide d0, gap, due, full and p1 are the
//   rules' tests on m_st with the step-0 parameters; the registered m - 1
//   and timeout are those of the previous cycle's ports; every word of C
//   is the pending and held-since fields of M's word (written together);
//   every word of M holds pending <= 14 (a packet is held only while
//   pending + 1 < m <= 15); and the outputs: an ACK only at h_t4 or h_t5,
//   an error only at h_t4, a split's second ACK pending (a2_v) only at
//   h_t4 after a first ACK of the same flow (not ECE, not NAK, n >= 1,
//   PSN = o_psn1 - 1); with no ACK every ACK field holds what it showed
//   a cycle back (0 after a reset, and at power-up); at h_t4 the op
//   fields t_* are still the shown op's s_*;
// - WS_MODEL (the watched flow): M's word of watch is the model's word
//   (but for the entries the sweep has not reached yet; the model is 0
//   during the sweep); at h_t4 of an op of watch, a2_v is the model's
//   split;
// - WS_PORT (nak_only_after_gap, ack_within_received): the port-level
//   expected PSN `hi` is the model's once the op in flight is decided, and
//   the NAK flag `ng` is the model's gap-NAKed flag but in the cycle its
//   NAK shows;
// - WS_RANGE (ack_within_received): while the flow is tracked (opened by
//   its first event since the last reset, fewer than 2^23 in-order
//   packets since), hi and the model's expected PSN stay below 2^23 past
//   the open's PSN;
// - WS_ZERO (quiet_after_reset): by the last reset's age, the sweep, the
//   scanner stages and the op port's state; until the first op after a
//   reset every word swept is 0;
// - WS_SNAP (refused): an op refused (flow id beyond the table) changes no
//   word of M or C from its step 0 to its output.
// Sound: the sections only read (keep wires, no RTL signal driven, no state
// added), the connections drive only the harness's undriven x_* wires, and
// every invariant is an assertion (no assume anywhere: every input, the
// parameters included, is free every cycle). The invariants are written
// without loops: a function of an x_* wire called in a `for` loop under an
// `if` in an always block left the function's shift undriven after the
// flow's elaboration (yosys: "used but has no driver"), and the induction
// failed on the free value.
// Mutations checked (not kept; listed with the harness's report):
// each fails its base case at the depth given there, most on a core
// invariant first (the step an RTL register deviates); with the invariants
// left out, the port-level claims alone fail them too (gap bound 4096 and
// a NAK not recorded: nak_only_after_gap at 8 and 12; PSN + 2, a full test
// off by one and a first held packet stamped T - 1: matches_rules at 8, 8
// and 14).
//
// depth 2: every property is 1-inductive with the invariants (each proves at depth 1 too); 2 for margin; every check is then under 10 s
// flatten: one SMT2 state (the connections need it)
// solver yices: z3 4.8.12 does not finish handshake's base case at depth 2 in 120 s (flattened); Yices proves every check in under 10 s
// inside ack_generator_seq: the control, op, datapath and scanner registers, for the strengthening invariants (connected to the harness's x_* wires)
  // busy 12, st 11:10, sw_active 9, sw_ptr 8:7, hit_v 6, hit_idx 5:4, a2_v 3, sc_v 2, h1_v 1, h2_v 0
  (* keep *) wire [12:0] h_ctl = {busy$q, st$q, sw_active$q, sw_ptr$q, hit_v$q, hit_idx$q, a2_v$q, sc_v$q, h1_v$q, h2_v$q};
  (* keep *) wire [19:0] h_tn = t_now$q;
  // o_flush 54, o_open 53, o_oor 52, o_ce 51, o_last 50, o_idx 49:48, o_psn 47:24, o_psn1 23:0
  (* keep *) wire [54:0] h_o = {o_flush$q, o_open$q, o_oor$q, o_ce$q, o_last$q, o_idx$q, o_psn$q, o_psn1$q};
  (* keep *) wire [48:0] h_mst = m_st$q;
  (* keep *) wire [48:0] h_rd = t_m$read_data;
  // d0 27, gap 26, due 25, full 24, p1 23:20, age 19:0
  (* keep *) wire [27:0] h_dec = {d0$q, gap$q, due$q, full$q, p1$q, age$q};
  // cf_mm1 19:16, cf_to 15:0
  (* keep *) wire [19:0] h_cf = {cf_mm1$q, cf_to$q};
  // the scanner's indices: sc_ptr 9:8, sc_idx 7:6, h1_idx 5:4, h2_idx 3:2, hit_idx 1:0
  (* keep *) wire [9:0] h_sc = {sc_ptr$q, sc_idx$q, h1_idx$q, h2_idx$q, hit_idx$q};
// end inside
// inside ack_generator_seq$t_m: the four words of M (expected 48..25 | pending 24..21 | gap NAKed 20 | held since 19..0)
  (* keep *) wire [195:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
// end inside
// inside ack_generator_seq$t_c: the four words of C (pending 23..20 | held since 19..0)
  (* keep *) wire [95:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
// end inside
// connect x_ctl = dut.h_ctl: busy, st, the sweep, the waiting hit, a2_v and the scanner's valids
// connect x_tn = dut.h_tn: the block's time T
// connect x_o = dut.h_o: the op's registers
// connect x_mst = dut.h_mst: the op's entry, registered in its step 0
// connect x_rd = dut.h_rd: M's read register
// connect x_dec = dut.h_dec: the op's step-1 tests and its age
// connect x_cf = dut.h_cf: the registered m - 1 and timeout
// connect x_sc = dut.h_sc: the scanner's indices
// connect x_m = dut.t_m.h_all: the four words of M
// connect x_c = dut.t_c.h_all: the four words of C
module ack_generator_seq_props (
    input clock,
    input reset,
    input in_valid,
    input in_open,
    input [15:0] in_flow,
    input [23:0] in_psn,
    input in_ce,
    input in_last,
    input [3:0] cfg_m_pkts,
    input [15:0] cfg_timeout_cycles
);
  localparam FB = 2;  // hdl::generate::FB_FORMAL: the formal-size build's flow bits
  localparam N = 4;  // flows, 2^FB
  localparam [23:0] GAP_MAX = 24'd4095;  // ldcp_sim::ack_generator::GAP_MAX

  wire in_ready, out_valid, out_ece, out_nak;
  wire [15:0] out_flow;
  wire [23:0] out_psn;
  wire [3:0] out_n;
  wire [1:0] err;
  ack_generator_seq dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_open(in_open), .in_flow(in_flow),
      .in_psn(in_psn), .in_ce(in_ce), .in_last(in_last), .cfg_m_pkts(cfg_m_pkts),
      .cfg_timeout_cycles(cfg_timeout_cycles), .in_ready(in_ready), .out_valid(out_valid),
      .out_flow(out_flow), .out_psn(out_psn), .out_ece(out_ece), .out_n_pkts(out_n),
      .out_nak(out_nak), .stat_err(err));

  // the watched flow
  (* anyconst *) reg [FB-1:0] watch;

  // ---- the block's internals, carried here by the `// connect` lines
  // (undriven here; named only through macros in expressions: `connect
  // -set` unsets every driver in the connected wire's alias group)
  (* keep *) wire [12:0] x_ctl;
  (* keep *) wire [19:0] x_tn;
  (* keep *) wire [54:0] x_o;
  (* keep *) wire [48:0] x_mst, x_rd;
  (* keep *) wire [27:0] x_dec;
  (* keep *) wire [19:0] x_cf;
  (* keep *) wire [9:0] x_sc;
  (* keep *) wire [195:0] x_m;
  (* keep *) wire [95:0] x_c;
`define X_busy x_ctl[12]
`define X_st x_ctl[11:10]
`define X_sw x_ctl[9]
`define X_swp x_ctl[8:7]
`define X_hit x_ctl[6]
`define X_hidx x_ctl[5:4]
`define X_a2 x_ctl[3]
`define X_scv x_ctl[2]
`define X_h1v x_ctl[1]
`define X_h2v x_ctl[0]
`define X_oflush x_o[54]
`define X_oopen x_o[53]
`define X_ooor x_o[52]
`define X_oce x_o[51]
`define X_olast x_o[50]
`define X_oidx x_o[49:48]
`define X_opsn x_o[47:24]
`define X_opsn1 x_o[23:0]
`define X_d0 x_dec[27]
`define X_gap x_dec[26]
`define X_due x_dec[25]
`define X_full x_dec[24]
`define X_p1 x_dec[23:20]
`define X_age x_dec[19:0]
`define X_mm1 x_cf[19:16]
`define X_to x_cf[15:0]
`define X_scptr x_sc[9:8]
`define X_scidx x_sc[7:6]
`define X_h1idx x_sc[5:4]
`define X_h2idx x_sc[3:2]
`define X_hitidx x_sc[1:0]
  // a word's fields: M (expected | pending | gap NAKed | held since), C (pending | held since)
`define W_E(w) w[48:25]
`define W_P(w) w[24:21]
`define W_N(w) w[20]
`define W_S(w) w[19:0]
  // word i of M and of C
  function [48:0] mw(input [1:0] i);
    mw = x_m >> (49 * i);
  endfunction
  function [23:0] cw(input [1:0] i);
    cw = x_c >> (24 * i);
  endfunction
  // word i of M's pending and held-since fields
  function [3:0] mpend(input [1:0] i);
    mpend = x_m >> (49 * i + 21);
  endfunction
  function [19:0] msince(input [1:0] i);
    msince = x_m >> (49 * i);
  endfunction
  // m as the block takes it: 0 acts as 1 (ldcp_sim::ack_generator::clamp_m)
  function [3:0] clamp_m(input [3:0] m);
    clamp_m = m == 4'd0 ? 4'd1 : m;
  endfunction

  // ---- the op port as the ports (and the waiting hit) show it
  reg [1:0] age = 2'd0;  // 0: no op in flight; k: the k-th cycle after the take
  reg h_t4 = 1'b0, h_t5 = 1'b0;  // 4 (5) cycles after a take, no reset since
  reg [2:0] swc = 3'd0;  // sweep cycles left (the tables power up idle: none)
  reg [19:0] tn = 20'd0;  // T as the block counts it
  wire ev_take = in_valid && in_ready && !reset;
  wire fl_take = `X_hit && age == 2'd0 && swc == 3'd0 && !reset;  // the waiting hit goes ahead of the input
  wire take = ev_take || fl_take;
  // the op in flight (held to the next take): a flush, an open, out of the
  // table (an event with in_flow >= N), CE, last, its flow, its PSN
  reg t_flush = 1'b0, t_open = 1'b0, t_oor = 1'b0, t_ce = 1'b0, t_last = 1'b0;
  reg [FB-1:0] t_idx = 0;
  reg [23:0] t_psn = 24'd0;
  // its parameters (the ports in its step 0) and T then
  reg [3:0] c_m = 4'd0;
  reg [15:0] c_to = 16'd0;
  reg [19:0] c_t1 = 20'd0;
  // the ports' parameters a cycle back (what the block registered)
  reg [3:0] p_m = 4'd0;
  reg [15:0] p_to = 16'd0;
  // the op whose outputs show (copied at its decide)
  reg s_flush = 1'b0, s_oor = 1'b0, s_mine = 1'b0;
  reg [FB-1:0] s_idx = 0;
  // cycles since the last reset (1: the cycle after it; saturating at 15; 0: none yet)
  reg [3:0] ra = 4'd0;
  always @(posedge clock) begin
    tn <= tn + 20'd1;
    p_m <= cfg_m_pkts;
    p_to <= cfg_timeout_cycles;
    h_t4 <= age == 2'd3 && !reset;
    h_t5 <= h_t4 && !reset;
    if (swc != 3'd0) swc <= swc - 3'd1;
    if (age != 2'd0) age <= age + 2'd1;
    if (ra != 4'd0 && ra != 4'd15) ra <= ra + 4'd1;
    if (take) begin
      age <= 2'd1;
      t_flush <= fl_take;
      t_open <= in_open;
      t_oor <= !fl_take && in_flow >= N;
      t_ce <= in_ce;
      t_last <= in_last;
      t_idx <= fl_take ? `X_hidx : in_flow[FB-1:0];
      t_psn <= in_psn;
    end
    if (age == 2'd1) begin
      c_m <= cfg_m_pkts;
      c_to <= cfg_timeout_cycles;
      c_t1 <= tn;
    end
    if (age == 2'd3) begin
      s_flush <= t_flush;
      s_oor <= t_oor;
      s_idx <= t_idx;
      s_mine <= t_idx == watch && !t_oor;
    end
    if (reset) begin
      age <= 2'd0;
      swc <= N;
      tn <= 20'd0;
      ra <= 4'd1;
    end
  end
  wire [3:0] c_mm1 = clamp_m(c_m) - 4'd1;  // m - 1 as the block compares pending with it

  // ---- the watched flow, by the golden rules (AckFlow): its state, and
  // the rules applied at its op's decide (age 3) to the op in flight
  reg [23:0] w_e = 24'd0;
  reg [3:0] w_pend = 4'd0;
  reg w_nak = 1'b0;
  reg [19:0] w_since = 20'd0;
  wire [48:0] w_word = {w_e, w_pend, w_nak, w_since};
  wire [23:0] md = t_psn - w_e;  // the packet's distance from the expected PSN, mod 2^24
  wire [4:0] mp = {1'b0, w_pend} + 5'd1;
  wire [19:0] m_age = c_t1 - w_since;  // the held ACK's age, T(t + 1) - held since, mod 2^20
  wire m_due = w_pend != 4'd0 && m_age >= {4'd0, c_to};
  reg [23:0] ne, npsn1;
  reg [3:0] npend, nn1;
  reg nnak, nv1, nece1, nnak1, nv2;
  reg [19:0] nsince;
  reg [1:0] nerr;
  always @(*) begin
    ne = w_e;
    npend = w_pend;
    nnak = w_nak;
    nsince = w_since;
    nv1 = 1'b0;
    npsn1 = 24'd0;
    nece1 = 1'b0;
    nn1 = 4'd0;
    nnak1 = 1'b0;
    nv2 = 1'b0;
    nerr = 2'd0;
    if (t_oor) nerr = 2'd1;  // a flow id beyond the table: ignored
    else if (t_flush) begin  // the timeout
      if (m_due) begin
        nv1 = 1'b1;
        npsn1 = w_e;
        nn1 = w_pend;
        npend = 4'd0;
      end
    end else if (t_open) begin  // open: expect t_psn next, held packets discarded
      ne = t_psn;
      npend = 4'd0;
      nnak = 1'b0;
      nsince = 20'd0;
    end else if (md == 24'd0) begin  // in order
      ne = w_e + 24'd1;
      nnak = 1'b0;
      if (t_ce) begin
        npend = 4'd0;
        nv1 = 1'b1;
        if (w_pend != 4'd0) begin  // the held packets first, then the CE one
          npsn1 = w_e;
          nn1 = w_pend;
          nv2 = 1'b1;
        end else begin
          npsn1 = w_e + 24'd1;
          nece1 = 1'b1;
          nn1 = 4'd1;
        end
      end else if (mp >= {1'b0, clamp_m(c_m)} || t_last) begin
        nv1 = 1'b1;
        npsn1 = w_e + 24'd1;
        nn1 = mp[3:0];
        npend = 4'd0;
      end else begin
        if (w_pend == 4'd0) nsince = tn;  // the first held packet: T of the decide
        npend = mp[3:0];
      end
    end else if (md <= GAP_MAX) begin  // a gap: NAK once
      if (w_nak) nerr = 2'd3;
      else begin
        nv1 = 1'b1;
        nnak1 = 1'b1;
        npsn1 = w_e;
        nn1 = w_pend;
        npend = 4'd0;
        nnak = 1'b1;
      end
    end else nerr = 2'd2;  // a duplicate or out of window
  end
  wire t_mine = t_idx == watch && !t_oor;  // the op in flight is of the watched flow
  // the expected outputs of the shown op of the watched flow, and what the
  // model held then
  reg e_v1 = 1'b0, e_ece1 = 1'b0, e_nak1 = 1'b0, e_v2 = 1'b0;
  reg [23:0] e_psn1 = 24'd0, s_e = 24'd0;
  reg [3:0] e_n1 = 4'd0, s_pend = 4'd0;
  reg [1:0] e_err = 2'd0;
  reg [19:0] s_age = 20'd0;
  reg [15:0] s_to = 16'd0;
  always @(posedge clock) begin
    if (age == 2'd3) begin
      {e_v1, e_psn1, e_ece1, e_n1, e_nak1, e_v2, e_err} <= {nv1, npsn1, nece1, nn1, nnak1, nv2, nerr};
      s_e <= w_e;
      s_pend <= w_pend;
      s_age <= m_age;
      s_to <= c_to;
      if (t_mine) begin
        w_e <= ne;
        w_pend <= npend;
        w_nak <= nnak;
        w_since <= nsince;
      end
    end
    if (reset) begin
      w_e <= 24'd0;
      w_pend <= 4'd0;
      w_nak <= 1'b0;
      w_since <= 20'd0;
    end
  end

  // ---- port-level view of the watched flow (nak_only_after_gap): the
  // expected PSN as its events taken move it (an open sets it, an
  // in-order packet adds one; 0 after a reset), whether the op in flight /
  // shown was a packet of a gap (1..4095 past it), and whether a NAK of it
  // has shown since its last in-order packet or open was decided (or the
  // last reset)
  reg [23:0] hi = 24'd0;
  reg t_gp = 1'b0, s_gp = 1'b0, t_io = 1'b0, ng = 1'b0;
  wire ev_w = ev_take && in_flow == {{(16 - FB) {1'b0}}, watch};
  wire [23:0] hd = in_psn - hi;
  wire w_out = out_valid && out_flow == {{(16 - FB) {1'b0}}, watch};
  always @(posedge clock) begin
    if (take) begin
      t_gp <= ev_w && !in_open && hd != 24'd0 && hd <= GAP_MAX;
      t_io <= ev_w && (in_open || hd == 24'd0);
    end
    if (ev_w && in_open) hi <= in_psn;
    else if (ev_w && hd == 24'd0) hi <= in_psn + 24'd1;
    if (age == 2'd3) s_gp <= t_gp;
    if (w_out && out_nak) ng <= 1'b1;
    if (age == 2'd3 && t_io) ng <= 1'b0;
    if (reset) begin
      hi <= 24'd0;
      ng <= 1'b0;
    end
  end

  // ---- ack_within_received: the watched flow's open since the last
  // reset, if it was the flow's first event since then (so every op of it
  // decided later follows the open), its PSN, and whether 2^23 or more
  // packets were taken in order since (hi - lo reached 2^23: beyond, the
  // 24-bit range wraps and the claim is not made); copied at each decide
  reg w_seen = 1'b0, o_have = 1'b0, o_first = 1'b0, o_wrap = 1'b0;
  reg [23:0] lo = 24'd0, s_lo = 24'd0, s_hi = 24'd0;
  reg s_rng = 1'b0;
  wire trk = o_have && o_first;
  always @(posedge clock) begin
    if (ev_w) w_seen <= 1'b1;
    if (ev_w && in_open) begin
      o_have <= 1'b1;
      o_first <= !w_seen;
      o_wrap <= 1'b0;
      lo <= in_psn;
    end else if (ev_w && hd == 24'd0 && in_psn + 24'd1 - lo >= 24'h800000) o_wrap <= 1'b1;
    if (age == 2'd3) begin
      s_rng <= trk && !o_wrap;
      s_lo <= lo;
      s_hi <= hi;
    end
    if (reset) begin
      w_seen <= 1'b0;
      o_have <= 1'b0;
    end
  end

  // ---- refused: M and C as the op in flight found them in its step 0
  reg [195:0] snap_m = 196'd0;
  reg [95:0] snap_c = 96'd0;
  always @(posedge clock)
    if (age == 2'd1) begin
      snap_m <= x_m;
      snap_c <= x_c;
    end

  // ---- quiet_after_reset: no op taken since the last reset (the tables
  // then hold what the sweep wrote)
  reg zt = 1'b0;
  always @(posedge clock) begin
    if (take) zt <= 1'b0;
    if (reset) zt <= 1'b1;
  end

  // ---- no_skip: the waiting hit a cycle back, and whether it was taken
  reg p_hit = 1'b0, p_go = 1'b0;
  reg [FB-1:0] p_hidx = 0;
  always @(posedge clock) begin
    // (x_* only through cells: a plain copy would be an alias, unset by `connect -set`)
    p_hit <= `X_hit && !reset;
    p_hidx <= reset ? {FB{1'b0}} : `X_hidx;
    p_go <= fl_take || reset;
  end

  // the previous cycle's ACK (handshake: the split's second ACK)
  reg p_ov = 1'b0, p_ece = 1'b0, p_nak = 1'b0;
  reg [15:0] p_flow = 16'd0;
  reg [23:0] p_psn = 24'd0;
  always @(posedge clock) {p_ov, p_ece, p_nak, p_flow, p_psn} <= {out_valid, out_ece, out_nak, out_flow, out_psn};
  // the ACK's n and a reset, a cycle back (with the fields above: what an
  // ACK-less cycle holds)
  reg [3:0] p_n = 4'd0;
  reg p_rst = 1'b0;
  always @(posedge clock) {p_n, p_rst} <= {out_n, reset};

`ifdef P_matches_rules
`define WS_MODEL
`endif
`ifdef P_flush_only_when_due
`define WS_MODEL
`endif
`ifdef P_nak_only_after_gap
`define WS_MODEL
`define WS_PORT
`endif
`ifdef P_ack_within_received
`define WS_MODEL
`define WS_PORT
`define WS_RANGE
`endif
`ifdef P_quiet_after_reset
`define WS_ZERO
`endif
`ifdef P_refused
`define WS_SNAP
`endif

  always @(*) begin
    // ---- core invariants (every property)
    // the op port: busy exactly while an op is in flight, at step age - 1;
    // the sweep exactly in the N cycles after a reset, at entry N - swc,
    // never with an op in flight, a scanner stage valid or a hit waiting
    assert (`X_busy == (age != 2'd0));
    if (age != 2'd0) assert (`X_st == age - 2'd1);
    assert (`X_sw == (swc != 3'd0));
    if (swc != 3'd0) assert (`X_swp == 2'(3'd4 - swc) && age == 2'd0 && !`X_scv && !`X_h1v && !`X_h2v && !`X_hit);
    assert (swc <= N);
    assert (x_tn == tn);
    // the op's registers, loaded at the take as the harness's
    assert (`X_oflush == t_flush && `X_oopen == t_open && `X_ooor == t_oor && `X_oce == t_ce
            && `X_olast == t_last && `X_oidx == t_idx && `X_opsn == t_psn);
    assert (!(t_flush && t_oor));  // a flush is of a flow of the table
    // the registered parameters
    assert (`X_mm1 == clamp_m(p_m) - 4'd1 && `X_to == p_to);
    // M's read register at step 0, m_st from step 1 (M is not written
    // while the op is in flight before its decide), its step-0 products,
    // and the step-1 tests at the decide
    if (age == 2'd1) assert (x_rd == mw(t_idx));
    if (age == 2'd2) assert (p_m == c_m && p_to == c_to && c_t1 == tn - 20'd1);  // step 0's parameters are the block's registered ones in step 1
    if (age >= 2'd2) assert (x_mst == mw(t_idx) && `X_age == c_t1 - `W_S(x_mst));
    if (age >= 2'd2 || h_t4) assert (`X_opsn1 == t_psn + 24'd1);
    if (age == 2'd3)
      assert (`X_d0 == (t_psn == `W_E(x_mst))
              && `X_gap == (t_psn - `W_E(x_mst) != 24'd0 && t_psn - `W_E(x_mst) <= GAP_MAX)
              && `X_due == (`W_P(x_mst) != 4'd0 && `X_age >= {4'd0, c_to})
              && `X_full == (`W_P(x_mst) >= c_mm1)
              && `X_p1 == `W_P(x_mst) + 4'd1);
    // the tables: C is M's pending and held-since (written together); a
    // word holds at most 14 packets
    // (unrolled by hand: yosys's proc gave a loop's asserts in an always
    // block the wrong index, seen on the zeroed-table invariant below)
    assert (cw(2'd0) == {mpend(2'd0), msince(2'd0)} && mpend(2'd0) <= 4'd14);
    assert (cw(2'd1) == {mpend(2'd1), msince(2'd1)} && mpend(2'd1) <= 4'd14);
    assert (cw(2'd2) == {mpend(2'd2), msince(2'd2)} && mpend(2'd2) <= 4'd14);
    assert (cw(2'd3) == {mpend(2'd3), msince(2'd3)} && mpend(2'd3) <= 4'd14);
    // the outputs: ACKs at h_t4 or h_t5, errors at h_t4; a split's second
    // ACK pending only at h_t4, behind a first ACK of the op's flow; no
    // ACK, no field
    assert (!h_t4 || age == 2'd0);
    assert (!h_t5 || age <= 2'd1);
    assert (!(h_t4 && h_t5));
    if (h_t4) assert (t_flush == s_flush && t_oor == s_oor && t_idx == s_idx);
    if (out_valid) assert (h_t4 || h_t5);
    if (err != 2'd0) assert (h_t4);
    if (out_valid && out_nak) assert (h_t4);  // a second ACK is never a NAK
    if (out_valid) assert (out_flow == {{(16 - FB) {1'b0}}, s_idx});
    assert (!`X_a2 || (h_t4 && out_valid && !out_ece && !out_nak && out_n != 4'd0
              && out_psn + 24'd1 == `X_opsn1 && !s_flush && !s_oor));
    if (!out_valid) assert ({out_flow, out_psn, out_ece, out_n, out_nak} == (p_rst ? 46'd0 : {p_flow, p_psn, p_ece, p_n, p_nak}));
    if (h_t4 && s_oor) assert (!out_valid && err == 2'd1);
    if (out_valid && out_ece) assert (out_n == 4'd1 && !out_nak);
    if (out_valid && !out_nak) assert (out_n != 4'd0);
    if (h_t4 && s_flush) assert (err == 2'd0 && (!out_valid || !out_ece && !out_nak));
`ifdef WS_MODEL
    // ---- the watched flow: M's word of it is the model's (but for the
    // entries the sweep has not reached: the model is 0 from the reset on)
    if (swc != 3'd0) assert (w_word == 49'd0);
    if (swc == 3'd0 || {1'b0, watch} < 3'd4 - swc) assert (mw(watch) == w_word);
    if (h_t4 && s_mine) assert (`X_a2 == e_v2 && (!e_v2 || s_e == t_psn));
`endif
`ifdef WS_PORT
    // the port-level expected PSN and NAK flag against the model: hi is
    // the model's expected PSN once the op in flight is decided; ng is its
    // gap NAKed flag but in the cycle its NAK shows
    if (age == 2'd0 || !t_mine || t_flush) assert (hi == w_e);
    else assert (hi == (t_open ? t_psn : t_psn == w_e ? w_e + 24'd1 : w_e));
    if (age != 2'd0 && t_mine && !t_flush)
      assert (t_gp == (!t_open && md != 24'd0 && md <= GAP_MAX) && t_io == (t_open || md == 24'd0));
    if (age != 2'd0 && !t_mine) assert (!t_gp && !t_io);
    if (age != 2'd0 && t_flush) assert (!t_gp && !t_io);
    assert (w_nak == (ng || (h_t4 && w_out && out_nak)));
    if (h_t4 && w_out && out_nak) assert (!ng);
    if (h_t4 && s_mine && w_out && out_nak) assert (s_gp);
`endif
`ifdef WS_RANGE
    // the tracked flow's expected PSN, in the model and as its events set
    // it, stays below 2^23 past the open's PSN (but for an open in flight:
    // the model's is then the old one's until its decide)
    if (trk && !o_wrap) begin
      assert (hi - lo < 24'h800000);
      if (!(age != 2'd0 && t_mine && !t_flush && t_open)) assert (w_e - lo < 24'h800000);
    end
    // a split's second ACK, pending at h_t4, acknowledges the expected PSN its op left
    if (h_t4 && s_mine && `X_a2) assert (s_hi == t_psn + 24'd1);
`endif
`ifdef WS_ZERO
    // ---- after a reset: the sweep, the scanner's stages and the op port
    // by the reset's age; until the first op after it the swept words are 0
    if (ra >= 4'd1 && ra <= 4'd4) assert (swc == 3'd5 - ra);
    else assert (swc == 3'd0);
    if (ra >= 4'd1 && ra <= 4'd5) assert (!`X_scv && !`X_h1v && !`X_h2v && !`X_hit && age == 2'd0 && zt);
    if (ra == 4'd6) assert (!`X_h1v && !`X_h2v && !`X_hit);
    if (ra == 4'd7) assert (!`X_h2v && !`X_hit);
    if (ra == 4'd8) assert (!`X_hit);
    if (ra >= 4'd1 && ra <= 4'd8) assert (!h_t4 && !h_t5 && (ra <= 4'd5 ? age == 2'd0 : {2'd0, age} <= ra - 4'd5));
    if (ra == 4'd0) assert (!zt);
    if (zt) assert (age == 2'd0 && !h_t4 && !h_t5);
    // (entry k is swept once the sweep's pointer N - swc is past it)
    if (zt && (swc == 3'd0 || swc <= 3'd3)) assert (x_m[48:0] == 49'd0);
    if (zt && (swc == 3'd0 || swc <= 3'd2)) assert (x_m[97:49] == 49'd0);
    if (zt && (swc == 3'd0 || swc <= 3'd1)) assert (x_m[146:98] == 49'd0);
    if (zt && swc == 3'd0) assert (x_m[195:147] == 49'd0);
`endif
`ifdef WS_SNAP
    // ---- a refused op writes nothing from its step 0 on
    if ((age >= 2'd2 || h_t4) && t_oor) assert (x_m == snap_m && x_c == snap_c);
`endif
`ifdef P_handshake
    // property handshake: in_ready exactly while no op is in flight (the 3 cycles after a take), no sweep runs (the N cycles after a reset) and no flush the scanner found waits; an op's ACK and error show exactly 4 cycles after its take (no reset between), a split's second ACK exactly the cycle after its first (same flow, ECE, n 1, no NAK, PSN one more, after a first ACK with neither ECE nor NAK), and out_valid and stat_err at no other time
    assert (in_ready == (age == 2'd0 && swc == 3'd0 && !`X_hit));
    if (out_valid && !h_t4)
      assert (h_t5 && p_ov && !p_ece && !p_nak && out_flow == p_flow && out_ece && out_n == 4'd1
              && !out_nak && out_psn == p_psn + 24'd1 && err == 2'd0);
    if (err != 2'd0) assert (h_t4 && !out_valid);
`endif
`ifdef P_taken_fields
    // property taken_fields: an ACK's flow is its op's flow (the event's in_flow, whose low bits the block keeps, or the index of the flush the scanner found), a flush shows no error, and a flush's ACK is neither ECE nor NAK
    if (out_valid) assert (out_flow == {{(16 - FB) {1'b0}}, s_idx});
    if (h_t4 && s_flush) assert (err == 2'd0 && !(out_valid && (out_ece || out_nak)));
`endif
`ifdef P_ece_is_one
    // property ece_is_one: every ACK with ECE covers exactly one packet and is no NAK (the ECE count never exceeds the CE packets), and every ACK that is not a NAK covers at least one packet
    if (out_valid && out_ece) assert (out_n == 4'd1 && !out_nak);
    if (out_valid && !out_nak) assert (out_n != 4'd0);
`endif
`ifdef P_refused
    // property refused: an event taken with in_flow >= N (beyond the table) shows error 1 and no ACK exactly 4 cycles later (no reset between) and no ACK the cycle after, and it changes no word of M or C (the table and its copy) from its take to then
    if (h_t4 && s_oor) assert (err == 2'd1 && !out_valid && x_m == snap_m && x_c == snap_c);
    if (h_t5 && s_oor) assert (!out_valid);
`endif
`ifdef P_matches_rules
    // property matches_rules: the outputs of every op of the watched flow (any flow, held) are the golden rules' (AckFlow::packet / open / flush on the flow's state since the last reset, with m and the timeout of the op's step 0, the age T(t+1) - held since, a first held packet stamped with T(t+3)): its first ACK (or none) and error 4 cycles after its take, its second ACK (or none) the cycle after, every field
    if (h_t4 && s_mine) begin
      assert (out_valid == e_v1 && err == e_err);
      if (e_v1) assert (out_psn == e_psn1 && out_ece == e_ece1 && out_n == e_n1 && out_nak == e_nak1);
    end
    if (h_t5 && s_mine) begin
      assert (out_valid == e_v2);
      if (e_v2) assert (out_psn == s_e + 24'd1 && out_ece && out_n == 4'd1 && !out_nak && err == 2'd0);
    end
`endif
`ifdef P_flush_only_when_due
    // property flush_only_when_due: a flush's ACK of the watched flow shows only when the harness's model of it held packets (n = that count, >= 1, PSN its expected PSN, no ECE, no NAK) for at least the timeout (T(t+1) - held since >= the timeout of the flush's step 0); and such a due flush does show its ACK
    if (h_t4 && s_flush && s_mine) begin
      if (out_valid) assert (s_pend != 4'd0 && s_age >= {4'd0, s_to} && out_n == s_pend
                             && out_psn == s_e && !out_ece && !out_nak);
      if (s_pend != 4'd0 && s_age >= {4'd0, s_to}) assert (out_valid);
    end
`endif
`ifdef P_nak_only_after_gap
    // property nak_only_after_gap: a NAK of the watched flow shows only 4 cycles after the take of a data packet of it whose PSN was 1..4095 past the expected PSN its events set since the last reset (the open's PSN, + 1 per in-order packet), and at most once between two of its in-order packets or opens
    if (w_out && out_nak) assert (h_t4 && s_mine && s_gp && !ng);
`endif
`ifdef P_ack_within_received
    // property ack_within_received: an ACK of the watched flow, for an op decided after the flow's open that was its first event since the last reset, acknowledges only PSNs received in order: open PSN <= ACK PSN <= the next expected PSN its events set (mod 2^24; the open's PSN + 1 per in-order packet), while fewer than 2^23 packets were taken in order since the open
    if ((h_t4 || h_t5) && w_out && s_mine && s_rng) assert (out_psn - s_lo <= s_hi - s_lo);
`endif
`ifdef P_quiet_after_reset
    // property quiet_after_reset: after a reset, in_ready is low for exactly the N cycles of the sweep (high the cycle after, with no reset since), no ACK and no error shows in the N + 4 cycles after it, and once the sweep is done every word of M and C is 0 until the first op after the reset
    if (ra >= 4'd1 && ra <= 4'd4) assert (!in_ready);
    if (ra == 4'd5) assert (in_ready);
    if (ra >= 4'd1 && ra <= 4'd8) assert (!out_valid && err == 2'd0);
    if (zt && swc == 3'd0) assert (x_m == 196'd0 && x_c == 96'd0);
`endif
`ifdef P_no_skip
    // property no_skip: the timeout scanner never skips a flow: its read pointer is one past its first stage's index, and each valid stage holds the flow one past the next stage's (C re-read at the first stage's index while it stalls), and a waiting flush stays (same flow) until it is taken or a reset drops it
    assert (!`X_scv || `X_scptr == `X_scidx + 2'd1);
    assert (!`X_h1v || `X_scidx == `X_h1idx + 2'd1);
    assert (!`X_h2v || `X_h1idx == `X_h2idx + 2'd1);
    assert (!`X_hit || `X_h2idx == `X_hitidx + 2'd1);
    if (p_hit && !p_go) assert (`X_hit && `X_hidx == p_hidx);
`endif
  end

endmodule
