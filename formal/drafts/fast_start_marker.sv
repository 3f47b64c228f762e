// Property harness of `fast_start_marker` (the sender's fast-start ECN
// marker, draft-dai-tsvwg-pfc-free-congestion-control-01 §2.3 and §3.1:
// the fast-start burst leaves Not-ECT but for its IW-th packet, everything
// after it ECT(0); the IPv4 ECN field rewritten and the header checksum
// updated by RFC 1624 Eq. 3), proved with `ldcp prove --block
// fast_start_marker`. Each property is a `P_<name>` block named by a
// `// property <name>: <text>` line.
//
// The block sees two words of an IPv4 header: word 0 (version, IHL, DSCP,
// ECN) and the checksum. The harness adds the rest: `in_rest`, the one's
// complement sum of the header's other eight words, a free input sampled
// with the packet. The checksum that comes in is assumed to be the full
// recomputation over that header (RFC 1071: ~(word 0 + rest), one's
// complement); the one that goes out must be the full recomputation over
// the header with the new word 0. The per-flow state (RAM) decides only
// which codepoint is written; every property here relates what leaves to
// what came in L cycles before, so none needs the table as an invariant.
//
// Depth: the default 8 (the L = 5 stage pipeline and the state registers
// behind it). NOTE: z3 does not finish even one induction step on the
// hierarchical SMT2 of this block in a minute; with `prep -flatten` every
// property is proved (see the report of issue 17).
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
  localparam N = 256;  // flows in the table: 2^ldcp_sim::FPGA_FLOW_BITS
  localparam [1:0] TX = 2'd0;  // ldcp_sim::fast_start_marker::kind::TX
  localparam [1:0] NOT_ECT = 2'b00;  // ECN_NOT_ECT
  localparam [1:0] ECT0 = 2'b10;  // ECN_ECT0
  localparam [1:0] FAST_START = 2'd1;  // Stage::FastStart
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

  // A header as it is on the wire: its checksum is the full recomputation.
  // (Not a restriction of the block: a header with a wrong checksum stays
  // wrong by the same amount under Eq. 3, which is what RFC 1624 wants.)
  always @(*) assume (in_csum == ~oc_add(in_rest, in_word0));

  // the events in flight, as the harness sees them: a reset drops them all
  reg [L-1:0] v = 0;
  reg [1:0] kind_h[0:L-1];
  reg [15:0] w0_h[0:L-1];
  reg [15:0] ck_h[0:L-1];
  reg [15:0] rest_h[0:L-1];
  reg [15:0] flow_h[0:L-1];
  reg [3:0] seen = 0;  // cycles since the start, saturating
  integer k;
  always @(posedge clock) begin
    if (seen != 4'hf) seen <= seen + 1;
    v <= reset ? {L{1'b0}} : {v[L-2:0], in_valid && in_ready};
    kind_h[0] <= in_kind;
    w0_h[0] <= in_word0;
    ck_h[0] <= in_csum;
    rest_h[0] <= in_rest;
    flow_h[0] <= in_flow;
    for (k = 1; k < L; k = k + 1) begin
      kind_h[k] <= kind_h[k-1];
      w0_h[k] <= w0_h[k-1];
      ck_h[k] <= ck_h[k-1];
      rest_h[k] <= rest_h[k-1];
      flow_h[k] <= flow_h[k-1];
    end
  end

  // the event on the outputs now: the one taken L cycles ago
  wire ev = v[L-1];
  wire tx = ev && kind_h[L-1] == TX;
  wire [15:0] w0 = w0_h[L-1];
  wire [15:0] rest = rest_h[L-1];
  // rewritten: an IPv4 packet of a flow in the table
  wire rewritten = tx && is_ipv4(w0) && flow_h[L-1] < N;

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
      if (tx && flow_h[L-1] >= N) assert (out_err == 2'd1);
      else if (tx && !is_ipv4(w0)) assert (out_err == 2'd3);
`endif
    end
  end
endmodule
