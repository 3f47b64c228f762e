// Property harness of `fast_start_marker_seq` (the sender's fast-start ECN
// marker in the fewest cells: one event at a time, 7 cycles, the rules of
// `ldcp_sim::fast_start_marker::FsFlow`,
// draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3, §3.1; RFC 1624
// Eq. 3 for the checksum; `hdl/src/fast_start_marker_seq.rs`, cycle model
// `ldcp_sim::fast_start_marker::FastStartMarkerSeqModel`), proved with `ldcp prove
// --block fast_start_marker_seq` on the formal-size build
// (`hdl::generate::FB_FORMAL` = 2 flow bits, N = 4 flows). Each property
// is a `P_<name>` block named by a `// property <name>: <text>` line.
//
// The harness follows the event port as the block's module doc times it.
// An event is taken in a cycle with in_valid, in_ready and no reset. `age`
// is 0 while no event is in flight and k in the k-th cycle after a take
// (1..6: the block's steps st = 0..5; the rules step, which writes the
// entry, is age 4), `h_t7` marks the cycle 7 after a take with no reset
// since (its result shows). `swc` counts the sweep's cycles left after a
// reset (N, then down). The event's fields are registered at the take
// (`t_*`, held to the next take: the next take is 7 cycles after this one
// at the earliest, so they still describe the event whose result shows at
// h_t7). IW as the rules use it is cfg_iw_pkts in the cycle before the
// rules step (`c_cfg`, registered at age 3; the block registers it,
// cf_iw), clamped (0 acts as 1).
//
// The golden rules (`FsFlow::tx`, `FsFlow::ack`, the flow reset, and
// `rtl_model::result`'s conventions for a refused id, a flow reset and a
// non-transmit) are applied, combinationally, at the rules step (age 4)
// to the entry `rin` the event finds: for the watched flow `watch`
// (anyconst: any flow, held) the harness's own model of it, `w_*` (stage,
// base, next, fs_len - 1: idle is all 0), zeroed by a reset (the sweep
// zeroes the table) and updated with the rules' new state at each of its
// events' rules step (a reset in that cycle drops it, as the block's write
// is); for any other flow the entry as the block read it (`g`, the
// table's word at the take, registered at age 1). Their results (every output field) are
// registered then (`e_*`), to compare with the ports at h_t7. The model
// keeps fs_len as fs_len - 1 (as the table does; the golden default's
// fs_len 0 of an idle flow is never read: a transmit that starts the fast
// start sets it) and holds no `acked` (the model's own record, which
// decides nothing).
//
// Strengthening invariants (every one an assert, so proved in the base
// case and by the induction too; they hold from power-up and from every
// reset) on the block's registers and tables, carried out to the harness
// by `// connect` lines from sections (keep wires, reading only) inside
// fast_start_marker_seq (its control, event, datapath and decision
// registers) and its three RAMs (their four words each):
// - core (every property): busy exactly while age != 0, its step age - 1;
//   the sweep (sw_active) exactly while swc != 0, at entry N - swc, never
//   with an event in flight; the event registers e_* == t_* (e_oor: the
//   flow id >= N); the registered IW and IW - 1 are the previous cycle's
//   port, clamped; out_valid exactly at h_t7; with no result, every
//   output holds what it showed a cycle back (0 after a reset, and at
//   power-up);
// - WS_DP (the rules; with it WS_MODEL and WS_CSUM): the table's words hold a stage
//   0..2 and fs_len - 1 <= 4094; the read registers at age 1 are the
//   event's entry; from age 2 to the rules step s_* are the rules' entry
//   rin, PSN + 1 and IPv4? registered from the event; from age 3 off,
//   sent and in order, at the rules step the compares, all the golden
//   rules' terms on rin; after it (ages 5, 6) the decisions r_* are the
//   rules' (registered e_*; r_ect for a transmit rewritten), the window
//   the result stage will select is e_cw, and the expected word 0 and
//   checksum are Eq. 3's for the expected codepoint;
// - WS_CSUM (checksum): IPv4? from age 2 on, the rewrite flag from age 5
//   on, and at age 6 the checksum's sum (RFC 1624 Eq. 3's three terms
//   for the codepoint r_ect decided);
// - WS_MODEL: the watched flow's word of the three RAMs is the model's
//   (but for the entries the sweep has not reached yet; the model is 0
//   during the sweep), and the entry read for an event of it (g) is the
//   model's;
// - WS_SNAP (refused, not_ipv4): the three RAMs are as the event found
//   them at its age 1 up to its rules step, and after it for a refused id
//   or a transmit that is not IPv4 (the entry written is the one read);
// - WS_ZERO (quiet_after_reset): the sweep and the event port by the last
//   reset's age; until the first event after a reset every word swept is 0.
// Sound: the sections only read (keep wires, no RTL signal driven, no
// state added), the connections drive only the harness's undriven x_*
// wires, and every invariant is an assertion (no assume anywhere: every
// input, IW included, is free every cycle). No loops (see
// ack_generator_seq.sv: a function of an x_* wire called in a loop lost
// its driver), no function of an x_* wire called in an always block and
// no x_* bit as an `if` condition (each left a wire undriven after the
// flow's `connect -set`, free in the SMT2: yosys warned "used but has no
// driver", and the induction failed on the free value; an `if` on an x_*
// bit aliases it to a `$procmux` select); the functions are called in
// continuous assignments, and x_* wires are read only in expressions and
// through cells.
// Mutations checked (not kept): listed with the harness's report.
//
// depth 3: refused, not_ipv4 and set_only_on_transition claim at h_t7 what the rules registered (e_*) at the rules step, 3 cycles before: an induction over 3 cycles sees them registered (no invariant on e_* then needed); the other properties prove at depth 2 too; every check is then under 7 s
// flatten: one SMT2 state (the connections need it)
// solver yices: as for ack_generator_seq (the sibling harness): Yices proves every check here in under 7 s
// inside fast_start_marker_seq: the control, event, datapath and decision registers, for the strengthening invariants (connected to the harness's x_* wires)
  // busy 6, st 5:3, sw_active 2, sw_ptr 1:0
  (* keep *) wire [6:0] h_ctl = {busy$q, st$q, sw_active$q, sw_ptr$q};
  // cf_iw 23:12, cf_iwm1 11:0
  (* keep *) wire [23:0] h_cf = {cf_iw$q, cf_iwm1$q};
  // e_kind 75:74, e_flow 73:58, e_oor 57, e_psn 56:33, e_last 32, e_word0 31:16, e_csum 15:0
  (* keep *) wire [75:0] h_e = {e_kind$q, e_flow$q, e_oor$q, e_psn$q, e_last$q, e_word0$q, e_csum$q};
  // the RAMs' read registers: base 61:38, next 37:14, misc 13:0
  (* keep *) wire [61:0] h_rd = {t_base$read_data, t_next$read_data, t_misc$read_data};
  // s_base 86:63, s_next 62:39, s_stage 38:37, s_fm1 36:25, e_psn1 24:1, e_ipv4 0
  (* keep *) wire [86:0] h_s = {s_base$q, s_next$q, s_stage$q, s_fm1$q, e_psn1$q, e_ipv4$q};
  // x_off 51:28, x_sent 27:4, x_inord 3, y_lt 2, y_ale 1, y_ge 0
  (* keep *) wire [51:0] h_x = {x_off$q, x_sent$q, x_inord$q, y_lt$q, y_ale$q, y_ge$q};
  // r_ect 38, r_err 37:36, r_stage 35:34, r_set 33, r_gbn 32, r_cw_iw 31, r_iw 30:19, r_rewrite 18, k_sum 17:0
  (* keep *) wire [38:0] h_r = {r_ect$q, r_err$q, r_stage$q, r_set$q, r_gbn$q, r_cw_iw$q, r_iw$q, r_rewrite$q, k_sum$q};
// end inside
// inside fast_start_marker_seq$t_base: the four words of base
  (* keep *) wire [95:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
// end inside
// inside fast_start_marker_seq$t_next: the four words of next
  (* keep *) wire [95:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
// end inside
// inside fast_start_marker_seq$t_misc: the four words of misc (stage 13:12 | fs_len - 1 11:0)
  (* keep *) wire [55:0] h_all = {mem[3], mem[2], mem[1], mem[0]};
// end inside
// connect x_ctl = dut.h_ctl: busy, st, the sweep
// connect x_cf = dut.h_cf: the registered IW and IW - 1
// connect x_e = dut.h_e: the event's registers
// connect x_rd = dut.h_rd: the three RAMs' read registers
// connect x_s = dut.h_s: the entry, PSN + 1 and IPv4?, registered at step 0
// connect x_x = dut.h_x: off, sent, in order (step 1) and the compares (step 2)
// connect x_r = dut.h_r: the decisions (step 3) and the checksum's sum (step 4)
// connect x_mb = dut.t_base.h_all: the four words of base
// connect x_mn = dut.t_next.h_all: the four words of next
// connect x_mm = dut.t_misc.h_all: the four words of misc
module fast_start_marker_seq_props (
    input clock,
    input reset,
    input in_valid,
    input [1:0] in_kind,
    input [15:0] in_flow,
    input [23:0] in_psn,
    input in_last,
    input [15:0] in_word0,
    input [15:0] in_csum,
    input [11:0] cfg_iw_pkts
);
  localparam FB = 2;  // hdl::generate::FB_FORMAL: the formal-size build's flow bits
  localparam N = 4;  // flows, 2^FB
  localparam [1:0] TX = 2'd0;  // ldcp_sim::fast_start_marker::kind::TX
  localparam [1:0] ACK = 2'd1;  // kind::ACK
  localparam [1:0] NAK = 2'd2;  // kind::NAK
  localparam [1:0] RESET_FLOW = 2'd3;  // kind::RESET_FLOW
  localparam [1:0] NOT_ECT = 2'b00;  // ECN_NOT_ECT
  localparam [1:0] ECT0 = 2'b10;  // ECN_ECT0
  localparam [1:0] IDLE = 2'd0;  // Stage::Idle
  localparam [1:0] FAST_START = 2'd1;  // Stage::FastStart
  localparam [1:0] STABLE = 2'd2;  // Stage::Stable

  wire in_ready, out_valid, out_set, out_gbn;
  wire [1:0] out_kind, out_err, out_ecn, out_stage;
  wire [15:0] out_flow, out_word0, out_csum;
  wire [11:0] out_cw_pkts;
  wire [23:0] out_psn;
  fast_start_marker_seq dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_kind(in_kind), .in_flow(in_flow),
      .in_psn(in_psn), .in_last(in_last), .in_word0(in_word0), .in_csum(in_csum),
      .cfg_iw_pkts(cfg_iw_pkts), .in_ready(in_ready), .out_valid(out_valid),
      .out_kind(out_kind), .out_flow(out_flow), .out_err(out_err), .out_ecn(out_ecn),
      .out_word0(out_word0), .out_csum(out_csum), .out_set(out_set),
      .out_cw_pkts(out_cw_pkts), .out_gbn(out_gbn), .out_psn(out_psn), .out_stage(out_stage));

  // the watched flow
  (* anyconst *) reg [FB-1:0] watch;

  // ---- the block's internals, carried here by the `// connect` lines
  // (undriven here; named only through macros in expressions: `connect
  // -set` unsets every driver in the connected wire's alias group)
  (* keep *) wire [6:0] x_ctl;
  (* keep *) wire [23:0] x_cf;
  (* keep *) wire [75:0] x_e;
  (* keep *) wire [61:0] x_rd;
  (* keep *) wire [86:0] x_s;
  (* keep *) wire [51:0] x_x;
  (* keep *) wire [38:0] x_r;
  (* keep *) wire [95:0] x_mb, x_mn;
  (* keep *) wire [55:0] x_mm;
`define X_busy x_ctl[6]
`define X_st x_ctl[5:3]
`define X_sw x_ctl[2]
`define X_swp x_ctl[1:0]
`define X_cfiw x_cf[23:12]
`define X_cfiwm1 x_cf[11:0]
`define X_ekind x_e[75:74]
`define X_eflow x_e[73:58]
`define X_eoor x_e[57]
`define X_epsn x_e[56:33]
`define X_elast x_e[32]
`define X_eword0 x_e[31:16]
`define X_ecsum x_e[15:0]
`define X_rdb x_rd[61:38]
`define X_rdn x_rd[37:14]
`define X_rdst x_rd[13:12]
`define X_rdf x_rd[11:0]
`define X_sbase x_s[86:63]
`define X_snext x_s[62:39]
`define X_sstage x_s[38:37]
`define X_sfm1 x_s[36:25]
`define X_epsn1 x_s[24:1]
`define X_eipv4 x_s[0]
`define X_off x_x[51:28]
`define X_off12 x_x[39:28]
`define X_sent x_x[27:4]
`define X_inord x_x[3]
`define X_ylt x_x[2]
`define X_yale x_x[1]
`define X_yge x_x[0]
`define X_rect x_r[38]
`define X_rerr x_r[37:36]
`define X_rstage x_r[35:34]
`define X_rset x_r[33]
`define X_rgbn x_r[32]
`define X_rcwiw x_r[31]
`define X_riw x_r[30:19]
`define X_rrw x_r[18]
`define X_ksum x_r[17:0]
  // an entry: stage 61:60 | base 59:36 | next 35:12 | fs_len - 1 11:0
`define W_S(w) w[61:60]
`define W_B(w) w[59:36]
`define W_N(w) w[35:12]
`define W_F(w) w[11:0]
  // entry i of the three RAMs, as one word
  function [23:0] mbase(input [1:0] i);
    mbase = x_mb >> (24 * i);
  endfunction
  function [23:0] mnext(input [1:0] i);
    mnext = x_mn >> (24 * i);
  endfunction
  function [13:0] mmisc(input [1:0] i);
    mmisc = x_mm >> (14 * i);
  endfunction
  function [61:0] mword(input [1:0] i);
    reg [13:0] m;
    begin
      m = mmisc(i);
      mword = {m[13:12], mbase(i), mnext(i), m[11:0]};
    end
  endfunction
  // RFC 1624 Eq. 3, HC' = ~(~HC + ~m + m'), as ldcp_sim::ipv4::incremental
  // computes it: the three terms summed, the sum folded twice (end-around
  // carry), complemented
  function [15:0] incremental(input [15:0] hc, input [15:0] m, input [15:0] m_new);
    reg [17:0] s;
    reg [16:0] s1;
    reg [15:0] s2;
    begin
      s = {2'b00, ~hc} + {2'b00, ~m} + {2'b00, m_new};
      s1 = {1'b0, s[15:0]} + {15'd0, s[17:16]};
      s2 = s1[15:0] + {15'd0, s1[16]};
      incremental = ~s2;
    end
  endfunction
  function is_ipv4(input [15:0] w);  // ldcp_sim::ipv4::is_ipv4
    is_ipv4 = w[15:12] == 4'd4 && w[11:8] >= 4'd5;
  endfunction
  function [11:0] clamp_iw(input [11:0] iw);  // fast_start_marker::clamp_iw: 0 acts as 1
    clamp_iw = iw == 12'd0 ? 12'd1 : iw;
  endfunction

  // ---- the event port as the ports show it
  reg [2:0] age = 3'd0;  // 0: no event in flight; k: the k-th cycle after the take
  reg h_t7 = 1'b0;  // 7 cycles after a take, no reset since
  reg [2:0] swc = 3'd0;  // sweep cycles left (the table powers up idle: none)
  reg past = 1'b0;  // not the first cycle
  wire take = in_valid && in_ready && !reset;
  // the event in flight (held to the next take)
  reg [1:0] t_kind = 2'd0;
  reg [15:0] t_flow = 16'd0;
  reg [23:0] t_psn = 24'd0;
  reg t_last = 1'b0;
  reg [15:0] t_word0 = 16'd0, t_csum = 16'd0;
  wire t_oor = t_flow >= N;  // beyond the table
  wire [FB-1:0] t_idx = t_flow[FB-1:0];
  wire t_mine = t_idx == watch && !t_oor;  // of the watched flow
  // IW: the port a cycle back (what the block registered), and in the
  // cycle before the rules step (what the rules use)
  reg [11:0] p_cfg = 12'd0, c_cfg = 12'd0;
  // cycles since the last reset (1: the cycle after it; saturating at 15; 0: none yet)
  reg [3:0] ra = 4'd0;
  // every result field a cycle back, and a reset a cycle back
  reg [93:0] p_res = 94'd0;
  reg p_rst = 1'b0;
  wire [93:0] res = {out_kind, out_flow, out_err, out_ecn, out_word0, out_csum, out_set,
                      out_cw_pkts, out_gbn, out_psn, out_stage};
  always @(posedge clock) begin
    past <= 1'b1;
    p_res <= res;
    p_rst <= reset;
    p_cfg <= cfg_iw_pkts;
    h_t7 <= age == 3'd6 && !reset;
    if (swc != 3'd0) swc <= swc - 3'd1;
    if (age == 3'd6) age <= 3'd0;
    else if (age != 3'd0) age <= age + 3'd1;
    if (ra != 4'd0 && ra != 4'd15) ra <= ra + 4'd1;
    if (take) begin
      age <= 3'd1;
      t_kind <= in_kind;
      t_flow <= in_flow;
      t_psn <= in_psn;
      t_last <= in_last;
      t_word0 <= in_word0;
      t_csum <= in_csum;
    end
    if (age == 3'd3) c_cfg <= cfg_iw_pkts;
    if (reset) begin
      age <= 3'd0;
      swc <= N;
      ra <= 4'd1;
    end
  end
  // (every function is called in a continuous assignment, none in an
  // always block; see the header)
  wire [11:0] c_iw = clamp_iw(c_cfg);  // IW of the rules step
  wire [11:0] p_iw = clamp_iw(p_cfg);  // IW as the block registered it
  wire t_v4 = is_ipv4(t_word0);  // the event's word 0 is IPv4

  // ---- the entry the event found: the table's word at its take
  // (registered at age 1, when the read register holds it), and the
  // watched flow's model
  reg [61:0] g = 62'd0;
  reg [1:0] w_s = 2'd0;
  reg [23:0] w_b = 24'd0, w_n = 24'd0;
  reg [11:0] w_f = 12'd0;
  wire [61:0] w_word = {w_s, w_b, w_n, w_f};
  // (the table's words at the event's index and at the watched flow's, as
  // continuous wires: a function of an x_* wire called under an `if` in an
  // always block lost its driver in the flow's elaboration)
  wire [61:0] m_t = mword(t_idx);
  wire [61:0] m_w = mword(watch);
  always @(posedge clock) if (age == 3'd1) g <= m_t;
  // the rules' entry
  wire [61:0] rin = t_mine ? w_word : g;
  wire [1:0] R_S = `W_S(rin);
  wire [23:0] R_B = `W_B(rin);
  wire [23:0] R_N = `W_N(rin);
  wire [11:0] R_F = `W_F(rin);

  // ---- the golden rules (FsFlow::tx, FsFlow::ack, the flow reset;
  // rtl_model::result for a refused id, a flow reset, a non-transmit),
  // applied to rin with IW c_iw: the new entry n_*, and the result
  wire [23:0] u_off = t_psn - R_B;  // off (transmit) or a (ACK/NAK), mod 2^24
  wire [23:0] u_sent = R_N - R_B;
  wire [12:0] u_fs = {1'b0, R_F} + 13'd1;  // fs_len
  wire [24:0] u_k = {1'b0, u_off} + 25'd1;  // the 1-based index
  wire u_rw = t_kind == TX && t_v4 && !t_oor;  // a transmit rewritten
  // its codepoint, word 0 and checksum by the rules' ECT decision u_ect
  reg u_ect;
  wire [1:0] u_ecnrw = u_ect ? ECT0 : NOT_ECT;
  wire [15:0] u_w0rw = {t_word0[15:2], u_ecnrw};
  wire [15:0] u_ckrw = incremental(t_csum, t_word0, u_w0rw);
  reg [1:0] n_s;
  reg [23:0] n_b, n_n;
  reg [11:0] n_f;
  reg [12:0] u_fsn;
  reg u_set, u_gbn;
  reg [1:0] u_err, u_stage, u_ecn;
  reg [11:0] u_cw;
  reg [15:0] u_w0, u_ck;
  reg [23:0] u_psn;
  always @(*) begin
    n_s = R_S;
    n_b = R_B;
    n_n = R_N;
    n_f = R_F;
    u_fsn = 13'd0;
    u_ect = 1'b1;
    u_err = 2'd0;
    u_set = 1'b0;
    u_gbn = 1'b0;
    u_cw = 12'd0;
    if (t_oor) u_err = 2'd1;  // a flow id beyond the table: ignored
    else if (t_kind == TX) begin
      if (!t_v4) u_err = 2'd3;  // passed unchanged
      else if (R_S == IDLE) begin  // the fast start begins
        u_fsn = t_last ? 13'd1 : {1'b0, c_iw};
        n_s = FAST_START;
        n_b = t_psn;
        n_n = t_psn + 24'd1;
        n_f = u_fsn[11:0] - 12'd1;
        u_ect = u_fsn == 13'd1;
      end else if (R_S == FAST_START) begin
        if (t_psn == R_N) begin  // a new packet
          n_n = R_N + 24'd1;
          if (u_k < {12'd0, u_fs} && t_last) n_f = u_off[11:0];  // fs_len = k
          else u_ect = u_k >= {12'd0, u_fs};
        end else if (u_off >= u_sent) u_err = 2'd2;  // out of window
      end
    end else if (t_kind == ACK || t_kind == NAK) begin
      if (R_S == IDLE) u_err = 2'd2;
      else if (R_S == FAST_START) begin
        if (u_off > u_sent) u_err = 2'd2;
        else if (t_kind == NAK) begin  // transition 1
          n_s = STABLE;
          u_set = 1'b1;
          u_cw = u_off < {11'd0, u_fs} ? u_off[11:0] : u_fs[11:0];
          u_gbn = 1'b1;
        end else if (u_off >= {11'd0, u_fs}) begin  // transition 2
          n_s = STABLE;
          u_set = 1'b1;
          u_cw = c_iw;
        end
      end
    end else begin  // a flow reset
      n_s = IDLE;
      n_b = 24'd0;
      n_n = 24'd0;
      n_f = 12'd0;
    end
    u_stage = t_oor ? IDLE : n_s;
    u_psn = t_kind == RESET_FLOW ? 24'd0 : t_psn;
    u_ecn = 2'd0;
    u_w0 = 16'd0;
    u_ck = 16'd0;
    if (u_rw) begin
      u_ecn = u_ecnrw;
      u_w0 = u_w0rw;
      u_ck = u_ckrw;
    end else if (t_kind == TX) begin
      u_ecn = t_word0[1:0];
      u_w0 = t_word0;
      u_ck = t_csum;
    end
  end

  // the result the rules gave, registered at the rules step (age 4), and
  // the model's update
  reg e_ect = 1'b0, e_set = 1'b0, e_gbn = 1'b0;
  reg [1:0] e_err = 2'd0, e_stage = 2'd0, e_ecn = 2'd0;
  reg [11:0] e_cw = 12'd0;
  reg [15:0] e_w0 = 16'd0, e_ck = 16'd0;
  reg [23:0] e_psn = 24'd0;
  always @(posedge clock) begin
    if (age == 3'd4) begin
      {e_ect, e_set, e_gbn, e_err, e_stage, e_ecn, e_cw, e_w0, e_ck, e_psn}
          <= {u_ect, u_set, u_gbn, u_err, u_stage, u_ecn, u_cw, u_w0, u_ck, u_psn};
      if (t_mine && !reset) {w_s, w_b, w_n, w_f} <= {n_s, n_b, n_n, n_f};
    end
    if (reset) {w_s, w_b, w_n, w_f} <= 62'd0;
  end

  // the checksums Eq. 3 gives for the expected and the shown word 0
  wire [15:0] e_ckx = incremental(t_csum, t_word0, e_w0);
  wire [15:0] o_ck = incremental(t_csum, t_word0, out_word0);

  // ---- refused, not_ipv4: the three RAMs as the event found them
  reg [95:0] snap_b = 96'd0, snap_n = 96'd0;
  reg [55:0] snap_m = 56'd0;
  always @(posedge clock)
    if (age == 3'd1) begin
      snap_b <= x_mb;
      snap_n <= x_mn;
      snap_m <= x_mm;
    end

  // ---- quiet_after_reset: no event taken since the last reset (the
  // table then holds what the sweep wrote)
  reg zt = 1'b0;
  always @(posedge clock) begin
    if (take) zt <= 1'b0;
    if (reset) zt <= 1'b1;
  end

`ifdef P_matches_rules
`define WS_DP
`endif
`ifdef P_set_only_on_transition
`define WS_DP
`endif
`ifdef P_refused
`define WS_DP
`define WS_SNAP
`endif
`ifdef P_not_ipv4
`define WS_DP
`define WS_SNAP
`endif
`ifdef P_checksum
`define WS_CSUM
`endif
`ifdef P_quiet_after_reset
`define WS_ZERO
`endif
`ifdef WS_DP
`define WS_CSUM
`define WS_MODEL
`endif

  always @(*) begin
    // ---- core invariants (every property)
    // the event port: busy exactly while an event is in flight, at step
    // age - 1; the sweep exactly in the N cycles after a reset, at entry
    // N - swc, never with an event in flight
    assert (`X_busy == (age != 3'd0));
    assert (age <= 3'd6);
    if (age != 3'd0) assert (`X_st == age - 3'd1);
    assert (`X_sw == (swc != 3'd0));
    if (swc != 3'd0) assert (`X_swp == 2'(3'd4 - swc) && age == 3'd0);
    assert (swc <= N);
    if (!past) assert (age == 3'd0 && !h_t7 && swc == 3'd0);
    assert (!(h_t7 && age != 3'd0));
    // the event's registers, loaded at the take as the harness's
    assert (`X_ekind == t_kind && `X_eflow == t_flow && `X_eoor == t_oor && `X_epsn == t_psn
            && `X_elast == t_last && `X_eword0 == t_word0 && `X_ecsum == t_csum);
    // the registered IW (clamped) and IW - 1
    if (past) assert (`X_cfiw == p_iw && `X_cfiwm1 == p_iw - 12'd1);
    if (age == 3'd4) assert (p_cfg == c_cfg);
    // the outputs: a result exactly at h_t7; with none, every field held
    // (0 after a reset)
    assert (out_valid == h_t7);
    if (!out_valid) assert (res == (p_rst ? 94'd0 : p_res));
`ifdef WS_CSUM
    // ---- IPv4? (from step 0 on), the rewrite flag, and at age 6 the checksum's sum: RFC 1624
    // Eq. 3's ~HC + ~m + m' for the codepoint decided (r_ect)
    if (age >= 3'd2) assert (`X_eipv4 == t_v4);
    if (age >= 3'd5) assert (`X_rrw == (t_v4 && !t_oor));
    if (age == 3'd6)
      assert (`X_ksum == {2'b00, ~t_csum} + {2'b00, ~t_word0} + {2'b00, t_word0[15:2], `X_rect ? ECT0 : NOT_ECT});
`endif
`ifdef WS_MODEL
    // ---- the watched flow: its word of the three RAMs is the model's (but
    // for the entries the sweep has not reached: the model is 0 from the
    // reset on); the entry read for an event of it is the model's
    if (swc != 3'd0) assert (w_word == 62'd0);
    if (swc == 3'd0 || {1'b0, watch} < 3'd4 - swc) assert (m_w == w_word);
    if (age >= 3'd2 && age <= 3'd4 && t_mine) assert (g == w_word);
`endif
`ifdef WS_DP
    // ---- the table's words: a stage 0..2, fs_len - 1 <= 4094 (unrolled by hand)
    assert (x_mm[13:12] != 2'd3 && x_mm[11:0] != 12'hfff);
    assert (x_mm[27:26] != 2'd3 && x_mm[25:14] != 12'hfff);
    assert (x_mm[41:40] != 2'd3 && x_mm[39:28] != 12'hfff);
    assert (x_mm[55:54] != 2'd3 && x_mm[53:42] != 12'hfff);
    // the read registers at age 1 (the table is not written from the take
    // to the rules step)
    if (age == 3'd1) assert ({`X_rdst, `X_rdb, `X_rdn, `X_rdf} == m_t);
    if (age >= 3'd2 && age <= 3'd4) begin
      assert (g == m_t);
      assert (`X_sbase == R_B && `X_snext == R_N && `X_sstage == R_S && `X_sfm1 == R_F);
      assert (`X_epsn1 == t_psn + 24'd1 && `X_eipv4 == t_v4);
    end
    if (age == 3'd3 || age == 3'd4)
      assert (`X_off == u_off && `X_sent == u_sent && `X_inord == (t_psn == R_N));
    if (age == 3'd4)
      assert (`X_ylt == (u_k < {12'd0, u_fs}) && `X_yale == (u_off < {11'd0, u_fs})
              && `X_yge == (u_off >= u_sent));
    // after the rules step: the decisions are the rules' result, and the
    // window the result stage selects (IW, a or fs_len) is the rules'
    if (age >= 3'd5) begin
      assert (`X_rerr == e_err && `X_rstage == e_stage && `X_rset == e_set && `X_rgbn == e_gbn
              && `X_rcwiw == (e_set && t_kind == ACK) && `X_riw == c_iw);
      if (t_v4 && !t_oor && t_kind == TX) assert (`X_rect == e_ect);
      // (no x_* bit as an `if` condition: proc aliases it to its mux's
      // select, and `connect -set` leaves that select undriven)
      assert (!`X_rset || (`X_rcwiw ? `X_riw : `X_yale ? `X_off12 : `X_sfm1 + 12'd1) == e_cw);
      assert (`X_rset || e_cw == 12'd0);
      assert (e_psn == u_psn);
      if (t_kind == TX && !u_rw) assert (e_ecn == t_word0[1:0] && e_w0 == t_word0 && e_ck == t_csum);
      if (t_kind != TX) assert (e_ecn == 2'd0 && e_w0 == 16'd0 && e_ck == 16'd0);
      if (u_rw) assert (e_ecn == (e_ect ? ECT0 : NOT_ECT) && e_w0 == {t_word0[15:2], e_ecn}
                        && e_ck == e_ckx);
    end
`endif
`ifdef WS_SNAP
    // ---- the three RAMs are as the event found them, to its rules step
    if (age >= 3'd2 && age <= 3'd4) assert (x_mb == snap_b && x_mn == snap_n && x_mm == snap_m);
    // (and after it for a refused id or a transmit that is not IPv4: the
    // entry written is the one read)
    if ((age >= 3'd5 || h_t7) && (t_oor || (t_kind == TX && !t_v4)))
      assert (x_mb == snap_b && x_mn == snap_n && x_mm == snap_m);
`endif
`ifdef WS_ZERO
    // ---- after a reset: the sweep and the event port by the reset's
    // age; until the first event after it the swept words are 0
    if (ra >= 4'd1 && ra <= 4'd4) assert (swc == 3'd5 - ra);
    else assert (swc == 3'd0);
    if (ra >= 4'd1 && ra <= 4'd5) assert (age == 3'd0 && zt);
    if (ra >= 4'd1 && ra <= 4'd11) assert (!h_t7 && (ra <= 4'd5 ? age == 3'd0 : {1'b0, age} <= ra - 4'd5));
    if (ra == 4'd0) assert (!zt);
    if (zt) assert (age == 3'd0 && !h_t7);
    // (entry k is swept once the sweep's pointer N - swc is past it)
    if (zt && (swc == 3'd0 || swc <= 3'd3)) assert (x_mb[23:0] == 24'd0 && x_mn[23:0] == 24'd0 && x_mm[13:0] == 14'd0);
    if (zt && (swc == 3'd0 || swc <= 3'd2)) assert (x_mb[47:24] == 24'd0 && x_mn[47:24] == 24'd0 && x_mm[27:14] == 14'd0);
    if (zt && (swc == 3'd0 || swc <= 3'd1)) assert (x_mb[71:48] == 24'd0 && x_mn[71:48] == 24'd0 && x_mm[41:28] == 14'd0);
    if (zt && swc == 3'd0) assert (x_mb[95:72] == 24'd0 && x_mn[95:72] == 24'd0 && x_mm[55:42] == 14'd0);
`endif
`ifdef P_handshake
    // property handshake: in_ready exactly while no event is in flight (the 6 cycles after a take) and no sweep runs (the N cycles after a reset); an event's result (out_valid) shows exactly 7 cycles after its take (no reset between), one cycle long, and at no other time
    assert (in_ready == (age == 3'd0 && swc == 3'd0));
    assert (out_valid == h_t7);
`endif
`ifdef P_taken_fields
    // property taken_fields: a result carries its event's kind, flow id (all 16 bits) and PSN (0 for a flow reset); with no result every output holds what it showed a cycle back (the last result), and is 0 in the cycle after a reset
    if (out_valid)
      assert (out_kind == t_kind && out_flow == t_flow && out_psn == (t_kind == RESET_FLOW ? 24'd0 : t_psn));
    else
      assert (res == (p_rst ? 94'd0 : p_res));
`endif
`ifdef P_matches_rules
    // property matches_rules: every result of the watched flow (any flow of the table, held) is the golden rules' (FsFlow::tx / ack / flow reset, in order on the flow's state since power-up or the last reset, with IW as registered in the rules' step, the cycle-before value of cfg_iw_pkts clamped): ecn, word0, csum, err, set, cw_pkts, gbn, stage and PSN, every field
    if (h_t7 && t_mine)
      assert (out_ecn == e_ecn && out_word0 == e_w0 && out_csum == e_ck && out_err == e_err
              && out_set == e_set && out_cw_pkts == e_cw && out_gbn == e_gbn && out_stage == e_stage
              && out_psn == e_psn);
`endif
`ifdef P_checksum
    // property checksum: a transmit's result leaves word 0 but its ECN field as it came and reports the ECN field written; rewritten (IPv4, flow in the table) it writes Not-ECT or ECT(0) and out_csum is RFC 1624 Eq. 3 of in_csum, in_word0 and out_word0 (one's complement, end-around carry); not rewritten, word 0 and the checksum pass unchanged
    if (out_valid && t_kind == TX) begin
      assert (out_word0[15:2] == t_word0[15:2] && out_word0[1:0] == out_ecn);
      if (t_v4 && !t_oor)
        assert ((out_ecn == NOT_ECT || out_ecn == ECT0) && out_csum == o_ck);
      else assert (out_word0 == t_word0 && out_csum == t_csum);
    end
`endif
`ifdef P_refused
    // property refused: an event whose in_flow >= N (beyond the table) shows error 1, stage 0, no set, no go-back-N, window 0 (a transmit: its word 0, checksum and ECN field unchanged) 7 cycles after its take, and writes no entry (the three RAMs are then as at its take)
    if (h_t7 && t_oor) begin
      assert (out_err == 2'd1 && out_stage == IDLE && !out_set && !out_gbn && out_cw_pkts == 12'd0);
      if (t_kind == TX) assert (out_word0 == t_word0 && out_csum == t_csum && out_ecn == t_word0[1:0]);
      assert (x_mb == snap_b && x_mn == snap_n && x_mm == snap_m);
    end
`endif
`ifdef P_not_ipv4
    // property not_ipv4: a transmit of a flow of the table whose word 0 is not IPv4 (version != 4 or IHL < 5) shows error 3, its word 0, checksum and ECN field unchanged, no set, no go-back-N, the stage the flow had, and changes no entry (the three RAMs are then as at its take)
    if (h_t7 && t_kind == TX && !t_oor && !t_v4)
      assert (out_err == 2'd3 && out_word0 == t_word0 && out_csum == t_csum && out_ecn == t_word0[1:0]
              && !out_set && !out_gbn && out_stage == `W_S(g)
              && x_mb == snap_b && x_mn == snap_n && x_mm == snap_m);
`endif
`ifdef P_set_only_on_transition
    // property set_only_on_transition: a result with set only for an ACK or NAK, without error, of a flow of the table that was in fast start (its entry at the take), and the stage after is stable; go-back-N only with a NAK's set (from its PSN); an ACK's set hands IW as registered in the rules' step (clamped, 1..4095), a NAK's min(a, fs_len) (a = PSN - base, fs_len <= 4095); no set, window 0 (between results the fields hold the last: taken_fields)
    if (out_valid && out_set)
      assert ((out_kind == ACK || out_kind == NAK) && !t_oor && `W_S(g) == FAST_START
              && out_stage == STABLE && out_err == 2'd0 && out_cw_pkts <= 12'd4095);
    if (out_valid && !out_set) assert (out_cw_pkts == 12'd0);
    if (out_valid && out_gbn) assert (out_set && out_kind == NAK && out_psn == t_psn);
    if (out_valid && out_set && out_kind == ACK) assert (out_cw_pkts == c_iw && out_cw_pkts != 12'd0);
    if (out_valid && out_set && out_kind == NAK)
      assert ({1'b0, out_cw_pkts} <= `W_F(g) + 13'd1 && {12'd0, out_cw_pkts} <= t_psn - `W_B(g)
              && ({1'b0, out_cw_pkts} == `W_F(g) + 13'd1 || {12'd0, out_cw_pkts} == t_psn - `W_B(g)));
`endif
`ifdef P_quiet_after_reset
    // property quiet_after_reset: after a reset, in_ready is low for exactly the N cycles of the sweep (high the cycle after, with no reset since), no result shows in the N + 7 cycles after it, and once the sweep is done every entry is idle (base, next, stage, fs_len all 0) until the first event after the reset
    if (ra >= 4'd1 && ra <= 4'd4) assert (!in_ready);
    if (ra == 4'd5) assert (in_ready);
    if (ra >= 4'd1 && ra <= 4'd11) assert (!out_valid);
    if (zt && swc == 3'd0) assert (x_mb == 96'd0 && x_mn == 96'd0 && x_mm == 56'd0);
`endif
  end

endmodule
