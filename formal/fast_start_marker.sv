// Property harness of `fast_start_marker` (the sender's fast-start ECN
// marker, draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3 and §3.1:
// the fast-start burst leaves Not-ECT but for its IW-th packet, everything
// after it ECT(0); the IPv4 ECN field rewritten and the header checksum
// updated by RFC 1624 Eq. 3), proved with `ldcp prove --block
// fast_start_marker` on the formal-size build (4 flows,
// `hdl::generate::FB_FORMAL` = 2: the RTL is the same, the table index
// 2 bits wide). Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// The block sees two words of an IPv4 header: word 0 (version, IHL, DSCP,
// ECN) and the checksum. The harness adds the rest: `in_rest`, the one's
// complement sum of the header's other eight words, a free input sampled
// with the packet. The checksum that comes in is assumed to be the full
// recomputation over that header (RFC 1071: ~(word 0 + rest), one's
// complement); the one that goes out must be the full recomputation over
// the header with the new word 0.
//
// The table (RAM) is not visible to the harness (yosys 0.23: no
// hierarchical references), so no property may need its content as an
// invariant. All but `fast_start_burst` relate what leaves to what came
// in L cycles before (the per-flow state decides only which codepoint is
// written, and every codepoint is checked). `fast_start_burst` checks the
// codepoints the table decides, but only for a flow whose state the
// harness knows because it saw the flow reset (which overwrites the entry
// whatever it held) at most W cycles before: the claim expires, so the
// induction, which starts anywhere, always sees that flow reset (depth
// >= W + L + 2) and needs no invariant on the RAM.
//
// flatten: Yices and z3 both need it (z3 does not finish even the base case in 60 s on the hierarchical SMT2, one module per register)
// solver yices: with z3, fast_start_burst (24-bit PSN arithmetic through the table's forwarding, 13 cycles) does not finish either check in 120 s; Yices proves every property in under 20 s per check
// depth 13: fast_start_burst's claims expire W = 6 cycles after the flow reset they rest on, and are checked L = 5 cycles after the packet: an induction over W + L + 2 = 13 cycles always contains that flow reset (the other properties need L + 1 = 6, reset_sweep N + 2 = 6)
//
// (yosys `memory_map` after `prep` would make the Yices checks 2-5 times
// faster still, the 4-entry RAMs becoming registers; the flow has no
// directive for it and does not need it.)
module fast_start_marker_props (
    input clock,
    input reset,
    input in_valid,
    input [1:0] in_kind,
    input [15:0] in_flow,
    input [23:0] in_psn,
    input in_last,
    input [15:0] in_word0,
    input [15:0] in_csum,
    input [11:0] cfg_iw_pkts,
    // the one's complement sum of the other eight header words
    input [15:0] in_rest
);
  localparam L = 5;  // ldcp_sim::fast_start_marker::LATENCY_CYCLES
  localparam N = 4;  // flows in the table: 2^FB_FORMAL (hdl::generate::FB_FORMAL = 2)
  localparam LI = 3;  // the output's IW was on cfg_iw_pkts 3 cycles before (registered at edge t+2, used by edge t+3; module doc)
  localparam W = 6;  // fast_start_burst: cycles a flow reset keeps the flow's state known to the harness
  localparam [1:0] TX = 2'd0;  // ldcp_sim::fast_start_marker::kind::TX
  localparam [1:0] ACK = 2'd1;  // kind::ACK
  localparam [1:0] NAK = 2'd2;  // kind::NAK
  localparam [1:0] RESET_FLOW = 2'd3;  // kind::RESET_FLOW
  localparam [1:0] NOT_ECT = 2'b00;  // ECN_NOT_ECT
  localparam [1:0] ECT0 = 2'b10;  // ECN_ECT0
  localparam [1:0] FAST_START = 2'd1;  // Stage::FastStart
  localparam [1:0] STABLE = 2'd2;  // Stage::Stable
  wire in_ready, out_valid, out_set, out_gbn;
  wire [1:0] out_kind, out_err, out_ecn, out_stage;
  wire [15:0] out_flow, out_word0, out_csum;
  wire [11:0] out_cw_pkts;
  wire [23:0] out_psn;
  fast_start_marker dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_kind(in_kind), .in_flow(in_flow),
      .in_psn(in_psn), .in_last(in_last), .in_word0(in_word0), .in_csum(in_csum),
      .cfg_iw_pkts(cfg_iw_pkts), .in_ready(in_ready), .out_valid(out_valid),
      .out_kind(out_kind), .out_flow(out_flow), .out_err(out_err), .out_ecn(out_ecn),
      .out_word0(out_word0), .out_csum(out_csum), .out_set(out_set),
      .out_cw_pkts(out_cw_pkts), .out_gbn(out_gbn), .out_psn(out_psn), .out_stage(out_stage));

  // one's complement addition (end-around carry), RFC 1071
  function [15:0] oc_add(input [15:0] a, input [15:0] b);
    reg [16:0] s;
    begin
      s = a + b;
      oc_add = s[15:0] + {15'd0, s[16]};
    end
  endfunction
  function is_ipv4(input [15:0] w);  // ldcp_sim::ipv4::is_ipv4
    is_ipv4 = w[15:12] == 4'd4 && w[11:8] >= 4'd5;
  endfunction
  function [11:0] clamp_iw(input [11:0] iw);  // fast_start_marker::clamp_iw: 0 acts as 1
    clamp_iw = iw == 12'd0 ? 12'd1 : iw;
  endfunction

  // A header as it is on the wire: its checksum is the full recomputation.
  // (Not a restriction of the block: a header with a wrong checksum stays
  // wrong by the same amount under Eq. 3, which is what RFC 1624 wants.)
  always @(*) assume (in_csum == ~oc_add(in_rest, in_word0));

  // the events in flight, as the harness sees them: a reset drops them all
  wire take = in_valid && in_ready && !reset;
  reg [L-1:0] v = 0;
  reg [1:0] kind_h[0:L-1];
  reg [15:0] w0_h[0:L-1];
  reg [15:0] ck_h[0:L-1];
  reg [15:0] rest_h[0:L-1];
  reg [15:0] flow_h[0:L-1];
  reg [23:0] psn_h[0:L-1];
  reg [1:0] exp_h[0:L-1];  // fast_start_burst: 0 no claim, 1 Not-ECT, 2 ECT(0)
  reg [11:0] iw_h[0:LI-1];  // cfg_iw_pkts of the last LI cycles
  reg [3:0] seen = 0;  // cycles since the start, saturating
  reg [3:0] since = 4'hf;  // cycles since the last reset, saturating (none yet: 15)
  integer k;
  always @(posedge clock) begin
    if (seen != 4'hf) seen <= seen + 1;
    since <= reset ? 4'd1 : since == 4'hf ? since : since + 1;
    v <= reset ? {L{1'b0}} : {v[L-2:0], take};
    kind_h[0] <= in_kind;
    w0_h[0] <= in_word0;
    ck_h[0] <= in_csum;
    rest_h[0] <= in_rest;
    flow_h[0] <= in_flow;
    psn_h[0] <= in_psn;
    for (k = 1; k < L; k = k + 1) begin
      kind_h[k] <= kind_h[k-1];
      w0_h[k] <= w0_h[k-1];
      ck_h[k] <= ck_h[k-1];
      rest_h[k] <= rest_h[k-1];
      flow_h[k] <= flow_h[k-1];
      psn_h[k] <= psn_h[k-1];
    end
    iw_h[0] <= cfg_iw_pkts;
    for (k = 1; k < LI; k = k + 1) iw_h[k] <= iw_h[k-1];
  end

  // ---- fast_start_burst: the harness's knowledge of one flow F (any one)
  // Known: a flow reset of F was taken at most W cycles ago, and since it
  // only transmits of F, IPv4, each with the next PSN (the first sets the
  // base): the flow is in fast start with fs_len = IW (or ended by a last
  // packet) and `j` packets sent. The rule (ldcp_sim::fast_start_marker,
  // "Transmit"): packet j + 1 is Not-ECT iff j + 1 < IW and it does not end
  // its message and no packet before it ended one; else ECT(0).
  (* anyconst *) reg [1:0] F;
  reg known = 1'b0;
  reg ended;  // a packet with `last` was sent: every later one is ECT(0)
  reg [3:0] age;  // cycles since F's flow reset (<= W while known)
  reg [3:0] j;  // packets sent since it (<= W)
  reg [23:0] nxt;  // the PSN of packet j + 1 (j > 0)
  reg [11:0] p_cfg;
  reg past = 1'b0;
  wire ev_f = take && in_flow == {14'd0, F};
  wire tx_in_order = in_kind == TX && is_ipv4(in_word0) && (j == 0 || in_psn == nxt);
  always @(posedge clock) begin
    past <= 1'b1;
    p_cfg <= cfg_iw_pkts;
    exp_h[0] <= 2'd0;
    for (k = 1; k < L; k = k + 1) exp_h[k] <= exp_h[k-1];
    if (known) age <= age + 1;
    if (reset || (known && age >= W)) known <= 1'b0;
    else if (ev_f) begin
      if (in_kind == RESET_FLOW) begin
        known <= 1'b1;
        ended <= 1'b0;
        age <= 4'd0;
        j <= 4'd0;
      end else if (known && tx_in_order) begin
        exp_h[0] <= (!ended && !in_last && {8'd0, j} + 12'd1 < clamp_iw(cfg_iw_pkts)) ? 2'd1 : 2'd2;
        j <= j + 1;
        nxt <= in_psn + 24'd1;
        if (in_last) ended <= 1'b1;
      end else known <= 1'b0;
    end
  end
`ifdef P_fast_start_burst
  // IW is configuration: stable (the block registers it; a change in the
  // middle of a burst is outside this rule)
  always @(*) if (past) assume (cfg_iw_pkts == p_cfg);
`endif

  // the event on the outputs now: the one taken L cycles ago
  wire ev = v[L-1];
  wire tx = ev && kind_h[L-1] == TX;
  wire [15:0] w0 = w0_h[L-1];
  wire [15:0] rest = rest_h[L-1];
  wire in_table = flow_h[L-1] < N;
  // rewritten: an IPv4 packet of a flow in the table
  wire rewritten = tx && is_ipv4(w0) && in_table;

  always @(*) begin
    if (seen >= L) begin
`ifdef P_checksum_verifies
      // property checksum_verifies: a transmitted header's checksum out is the full recomputation (RFC 1071) over the header with its new word 0
      if (tx) assert (out_csum == ~oc_add(rest, out_word0));
`endif
`ifdef P_only_ecn_rewritten
      // property only_ecn_rewritten: a transmit leaves word 0 but its ECN field as it came, writes Not-ECT or ECT(0) in it and reports that codepoint; a packet not rewritten (not IPv4, flow beyond the table) leaves untouched
      assert (out_valid == ev);
      if (tx) begin
        assert (out_word0[15:2] == w0[15:2]);
        assert (out_word0[1:0] == out_ecn);
        if (rewritten) assert (out_ecn == NOT_ECT || out_ecn == ECT0);
        else assert (out_word0 == w0 && out_csum == ck_h[L-1]);
      end else assert (out_word0 == 16'd0 && out_csum == 16'd0 && out_ecn == NOT_ECT);
`endif
`ifdef P_not_ect_only_in_fast_start
      // property not_ect_only_in_fast_start: the fast-start mark (a rewrite to Not-ECT) is written only for a flow in fast start after the packet
      if (rewritten && out_ecn == NOT_ECT) assert (out_stage == FAST_START && out_err == 2'd0);
`endif
`ifdef P_error_codes
      // property error_codes: a transmit that is not IPv4 is error 3, one beyond the table error 1, and neither is rewritten
      if (tx && !in_table) assert (out_err == 2'd1);
      else if (tx && !is_ipv4(w0)) assert (out_err == 2'd3);
      if (ev && !in_table) assert (out_err == 2'd1 && out_stage == 2'd0 && !out_set && !out_gbn);
`endif
`ifdef P_event_fields
      // property event_fields: a result carries its event's kind, flow id and PSN (0 for a flow reset), L cycles later; no event, every output 0
      if (ev) begin
        assert (out_valid && out_kind == kind_h[L-1] && out_flow == flow_h[L-1]);
        assert (out_psn == (kind_h[L-1] == RESET_FLOW ? 24'd0 : psn_h[L-1]));
      end else
        assert (!out_valid && out_kind == 2'd0 && out_flow == 16'd0 && out_err == 2'd0
                && out_ecn == 2'd0 && out_word0 == 16'd0 && out_csum == 16'd0 && !out_set
                && out_cw_pkts == 12'd0 && !out_gbn && out_psn == 24'd0 && out_stage == 2'd0);
`endif
`ifdef P_window_handoff
      // property window_handoff: a window is handed to the engine only by an ACK or NAK without error that moves its flow to stable; go-back-N only by such a NAK; an ACK hands IW (0 acts as 1)
      if (out_set)
        assert (ev && (out_kind == ACK || out_kind == NAK) && in_table && out_err == 2'd0
                && out_stage == STABLE);
      else assert (out_cw_pkts == 12'd0);
      if (out_gbn) assert (out_set && out_kind == NAK);
      if (out_set && out_kind == ACK) assert (out_cw_pkts == clamp_iw(iw_h[LI-1]));
`endif
`ifdef P_fast_start_burst
      // property fast_start_burst: after a flow reset, the flow's in-order IPv4 packets j = 1, 2, ... are Not-ECT while j < IW and no packet has ended its message, ECT(0) from then on, all in fast start without error (checked for W = 6 cycles after the flow reset)
      if (tx && exp_h[L-1] != 2'd0) begin
        assert (out_ecn == (exp_h[L-1] == 2'd1 ? NOT_ECT : ECT0));
        assert (out_stage == FAST_START && out_err == 2'd0);
      end
`endif
    end
`ifdef P_reset_sweep
    // property reset_sweep: after a reset in_ready is low for exactly N cycles (the table's sweep), then high until the next reset; at power-up it is high
    assert (in_ready == !(since >= 4'd1 && since <= N));
`endif
  end
endmodule
