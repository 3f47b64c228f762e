// Property harness of the UART bridge (`uart_bridge`: the framed, CRC-8
// UART-to-register bridge every board core embeds as `bridge`; the host
// side is ldcp_sim::uart_bridge). RustHDL emits no assertions: this module
// instantiates the generated one and states its invariants on its ports.
// Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// The issue's demand, "a frame that fails its CRC never reaches the bus",
// is proved by k-induction (for ever, from power-up, with every input free:
// the `rx` line, `baud_div` changing on any clock, `clear`, the bus's
// answers). The frame a bus strobe belongs to is read from the receiver's
// byte stream, apart from the parser: the section inside `uart_bridge`
// keeps the last 8 bytes the receiver delivered (`sh_hist`: every
// `rx_done$q` with its `rx_shift$q`, whatever the parser does with them)
// and, when the parser takes a frame's 9th byte (in state s1 with 7 bytes
// buffered, without `clear`), the 9 bytes then last delivered
// (`sh_win`). The rule, written here apart from the RTL
// (ldcp_sim::uart_bridge::crc8 and FrameParser): those 9 bytes are
// A5 op a0 a1 d0 d1 d2 d3 crc; the frame is good when crc = CRC-8 (poly
// 0x07, init 0, bytewise) of op..d3, op is 'R' or 'W' and a1 < 0x10; a
// bad CRC is answered status 1, a bad op or address status 2. The
// functions `ub_step`, `ub_crc7`, `ub_cls` compute that bytewise; the RTL
// computes the CRC bit-serially, one bit a clock, while the next byte is
// on the line.
//
// What is proved (the bytes are those the bridge's receiver delivered;
// how it decodes the line, start bit, mid-bit sampling, stop bit, is not
// stated here):
// - crc_guards_the_bus: a strobe shows exactly a good frame's bytes: the
//   frame was sync A5, then the strobe's op, bus_addr, bus_wdata as
//   bytes, then a CRC byte equal to their CRC-8.
// - bad_crc_refused: every outcome (bus_we, bus_re, refused) is the
//   outcome of the last frame taken, each frame has at most one, no frame
//   is taken while one's outcome is pending; a frame whose CRC byte does
//   not match never strobes the bus and its outcome is `refused` with the
//   response (already started) carrying status 1.
// - outcome_by_class: the outcome is the one the frame's bytes ask for:
//   a good 'W' strobes bus_we (response status 0, data 0, started), a
//   good 'R' strobes bus_re, a bad op or address (good CRC) is refused
//   with status 2; so `refused` strobes only for a bad frame.
// - read_bus_stable: bus_addr and bus_wdata hold from a read's bus_re
//   until the clock the bridge takes bus_rvalid.
// - read_answered: while a read is outstanding the transmitter is idle;
//   the clock after bus_rvalid the response is going out with status 0
//   and that clock's bus_rdata.
// - response_crc: every response is loaded into the transmitter's shift
//   register (which drives `tx`) as 5A, the status and data it started
//   with, then their CRC-8, each byte framed 0 b 1 (the bit timing on the
//   line is not stated).
// Not stated (liveness, outside k-induction): that a taken frame's
// outcome does come (the parser waits in s2 for the transmitter, which
// always finishes, and a read waits for bus_rvalid for ever); a frame cut
// by `clear` or by the idle timeout has no outcome (bad_crc_refused: none
// is pending after a clear).
//
// The strengthening invariants (asserted, with the frame properties, in
// the section inside `uart_bridge`, each explained there):
// - rx_gap: a byte (`rx_done$q`) cannot arrive while the bit-serial CRC
//   runs: a lower bound `ub_rx_left` on the clocks until the receiver can
//   next deliver, from rx_state/rx_cnt/rx_bit (counters reload with
//   div - 1 >= 3, half_m1 >= 1 whatever `baud_div` does), is at least
//   f_crc_n$q; and rx_done$q only in rx_state 0, f_crc_n$q <= 8.
// - crc_so_far: in s1, f_crc$q advanced by its remaining f_crc_n$q bit
//   steps is the CRC-8 of the f_len$q bytes buffered (the top bytes of
//   f_buf$q).
// - bytes_so_far: in s1, the f_len$q bytes buffered are the last f_len$q
//   bytes delivered, and the one before them is the sync A5.
// - frame_taken: in s2 and s3 (and the clock of a strobe or refusal,
//   parser back in s0 or in s3) sh_win is A5, the buffer's 7 bytes and a
//   CRC byte; f_st$q is the frame's class and f_write$q its op is 'W'; s3
//   (a read outstanding) only for a good 'R'; each strobe/refusal register
//   with its state, and `sh_pend` (outcome pending) exactly while one is.
// - read_bus_stable, read_answered: a read outstanding only in s3, the
//   transmitter idle there, the address/data shadow the buffer's.
// - response_crc, the transmitter's own: while busy, tx_idx/tx_nbits/
//   tx_crc_n in range; the bit-serial CRC done before the next byte loads
//   (tx_cnt + 4 tx_nbits >= tx_crc_n$q); tx_resp$q the bytes still to
//   send; tx_crc$q, finished, the CRC-8 of the bytes loaded so far.
// They make every property 1-inductive (the depth line). The frame
// properties were also run from power-up on real frames (a good 'W', a
// bad CRC, a good 'R', at baud_div 4): each shadow matched and the
// outcome came, so none is vacuous.
//
// depth 2: every property but clear_quiets is 1-inductive with the invariants (each proves at depth 1 too); clear_quiets needs 2 (its `tx` clause looks 2 clocks back); each check is then under 6 s
// flatten: the bridge's registers are each a RustHDL sub-module; flattened they are one SMT2 state
// solver yices: z3 4.8.12 does not finish even the 8-step base case of one_outcome in 300 s (flattened); Yices proves it in 0.1 s
module uart_bridge_props (
    input clock,
    input rx,
    input [9:0] baud_div,
    input clear,
    input [31:0] bus_rdata,
    input bus_rvalid
);
  wire tx, bus_we, bus_re, refused;
  wire [11:0] bus_addr;
  wire [31:0] bus_wdata;
  uart_bridge dut (
      .clock(clock), .rx(rx), .baud_div(baud_div), .clear(clear), .bus_rdata(bus_rdata),
      .bus_rvalid(bus_rvalid), .tx(tx), .bus_addr(bus_addr), .bus_wdata(bus_wdata),
      .bus_we(bus_we), .bus_re(bus_re), .refused(refused)
  );

  reg past_valid = 0;
  reg past_clear = 0;
  reg past2_clear = 0;
  always @(posedge clock) begin
    past_valid <= 1;
    past_clear <= clear;
    past2_clear <= past_clear;
  end

  // property one_outcome: a frame's outcome is one of a write, a read or a refusal, never two in one clock
`ifdef P_one_outcome
  always @(*) assert (bus_we + bus_re + refused <= 1);
`endif

  // property clear_quiets: the clock after `clear` strobes nothing and refuses nothing, and the line is idle high the clock after that
`ifdef P_clear_quiets
  always @(*) if (past_valid && past_clear) assert (!bus_we && !bus_re && !refused);
  always @(*) if (past_valid && past2_clear) assert (tx);
`endif

  // The frame properties (crc_guards_the_bus, bad_crc_refused,
  // outcome_by_class, read_bus_stable, read_answered, response_crc) name the bridge's
  // internal registers and the shadows beside them: they are in the
  // section after this module.
endmodule

// inside uart_bridge: the frame properties need the receiver's byte stream (rx_done$q, rx_shift$q) and their strengthening invariants the parser's registers, which no port shows
  // ---- the rule, apart from the RTL: CRC-8, poly 0x07, init 0, bytewise
  function [7:0] ub_step;  // one byte into the CRC (ldcp_sim::uart_bridge::crc8_step)
    input [7:0] c;
    input [7:0] b;
    integer k;
    reg [7:0] x;
    begin
      x = c ^ b;
      for (k = 0; k < 8; k = k + 1) x = x[7] ? ((x << 1) ^ 8'h07) : (x << 1);
      ub_step = x;
    end
  endfunction
  function [7:0] ub_crc7;  // CRC-8 of 7 bytes, the first in [55:48]
    input [55:0] s;
    integer i;
    reg [7:0] c;
    begin
      c = 8'h00;
      for (i = 6; i >= 0; i = i - 1) c = ub_step(c, s[8*i+:8]);
      ub_crc7 = c;
    end
  endfunction
  // c advanced by n more bit steps of the CRC (the RTL's remaining ones, for the invariants)
  function [7:0] ub_bits;
    input [7:0] c0;
    input [3:0] n;
    integer k;
    reg [7:0] c;
    begin
      c = c0;
      for (k = 0; k < 8; k = k + 1) if (k < n) c = c[7] ? ((c << 1) ^ 8'h07) : (c << 1);
      ub_bits = c;
    end
  endfunction
  // a 9-byte window A5 op a0 a1 d0 d1 d2 d3 crc ([71:64] .. [7:0]): its
  // class, the response status it asks for: 1 bad CRC, else 0 for a good
  // 'R'/'W' with a1 < 0x10, else 2
  function [1:0] ub_cls;
    input [71:0] w;
    begin
      if (w[7:0] != ub_crc7(w[63:8])) ub_cls = 2'd1;
      else if ((w[63:56] == 8'h52 || w[63:56] == 8'h57) && w[47:44] == 4'h0) ub_cls = 2'd0;
      else ub_cls = 2'd2;
    end
  endfunction

  // ---- shadows (no effect on the bridge)
  // the last 8 bytes the receiver delivered, newest in [7:0]
  reg [63:0] sh_hist = 64'h0;
  // the parser takes a frame's 9th byte (its CRC byte): the frame goes to s2
  wire sh_take = f_state$q == 2'd1 && f_len$q == 3'd7 && rx_done$q && !clear;
  // the 9 bytes last delivered when the last frame was taken, its sync in [71:64]
  reg [71:0] sh_win = 72'h0;
  // that frame's outcome (bus_we, bus_re or refused) is not yet on the ports
  reg sh_pend = 1'b0;
  always @(posedge clock) begin
    if (rx_done$q) sh_hist <= {sh_hist[55:0], rx_shift$q};
    if (sh_take) sh_win <= {sh_hist, rx_shift$q};
    if (bus_we || bus_re || refused || clear) sh_pend <= 1'b0;
    if (sh_take) sh_pend <= 1'b1;
  end
  wire [1:0] sh_cls = ub_cls(sh_win);

  // the invariants the three frame properties share: asserted when any of them is checked
`ifdef P_crc_guards_the_bus
`define UB_FRAME_INV
`endif
`ifdef P_bad_crc_refused
`define UB_FRAME_INV
`endif
`ifdef P_outcome_by_class
`define UB_FRAME_INV
`endif

`ifdef UB_FRAME_INV
  // ---- strengthening invariants (the frame properties')
  // the frame buffer's 7 bytes in arrival order, op first in [55:48]
  wire [55:0] ub_seq = {f_buf$q[7:0], f_buf$q[15:8], f_buf$q[23:16], f_buf$q[31:24],
                        f_buf$q[39:32], f_buf$q[47:40], f_buf$q[55:48]};
  // rx_gap: a lower bound on the clocks until rx_done$q can next be 1: in
  // rx_state 3 (stop bit) rx_cnt + 1; in 2 (data bit rx_bit) rx_cnt + 1,
  // then each later data bit and the stop bit at least 4 (a reload is
  // div - 1 >= 3); in 1 (start bit) rx_cnt + 1 + 36; idle, a start bit
  // first (half_m1 >= 1): 39. It falls by at most 1 a clock.
  wire [11:0] ub_rx_left =
      rx_state$q == 2'd3 ? {2'b0, rx_cnt$q} + 12'd1 :
      rx_state$q == 2'd2 ? {2'b0, rx_cnt$q} + 12'd5 + {7'b0, 3'd7 - rx_bit$q, 2'b0} :
      rx_state$q == 2'd1 ? {2'b0, rx_cnt$q} + 12'd37 : 12'd39;
  // CRC-8 of the n bytes last shifted into f_buf (byte j back at [48-8j +: 8]), oldest first
  function [7:0] ub_crc_top;
    input [55:0] fb;
    input [2:0] n;
    integer j;
    reg [7:0] c;
    begin
      c = 8'h00;
      for (j = 6; j >= 0; j = j - 1) if (j < n) c = ub_step(c, fb[48-8*j+:8]);
      ub_crc_top = c;
    end
  endfunction
  // the last n bytes delivered are the n last shifted into f_buf, and the one before is A5
  function ub_hist_ok;
    input [63:0] h;
    input [55:0] fb;
    input [2:0] n;
    integer j;
    begin
      ub_hist_ok = 1'b1;
      for (j = 0; j < 7; j = j + 1) if (j < n && h[8*j+:8] != fb[48-8*j+:8]) ub_hist_ok = 1'b0;
      for (j = 0; j < 8; j = j + 1) if (j == n && h[8*j+:8] != 8'ha5) ub_hist_ok = 1'b0;
    end
  endfunction
  // the taken frame is the buffer's: A5, its 7 bytes, a CRC byte
  wire ub_win_buf = sh_win[71:64] == 8'ha5 && sh_win[63:8] == ub_seq;
  always @(*) begin
    // rx_gap (see ub_rx_left): the byte after one the parser shifts in
    // comes after its 8 CRC steps; rx_done$q only as the receiver goes idle
    assert (f_crc_n$q <= 4'd8);
    if (rx_done$q) assert (rx_state$q == 2'd0);
    if (f_crc_n$q != 4'd0) assert (!rx_done$q && ub_rx_left >= {8'b0, f_crc_n$q});
    if (f_state$q == 2'd1) begin
      // crc_so_far: the bit-serial CRC, finished, is the CRC of the bytes so far
      assert (ub_bits(f_crc$q, f_crc_n$q) == ub_crc_top(f_buf$q, f_len$q));
      // bytes_so_far: they are the last bytes delivered, after an A5
      assert (ub_hist_ok(sh_hist, f_buf$q, f_len$q));
    end
    // frame_taken: the taken frame is the buffer's, classified as the rule says
    if (f_state$q == 2'd2)
      assert (ub_win_buf && f_st$q == sh_cls && f_write$q == (sh_win[63:56] == 8'h57));
    if (f_state$q == 2'd3)
      assert (ub_win_buf && sh_cls == 2'd0 && sh_win[63:56] == 8'h52 && f_st$q == 2'd0 && !f_write$q);
    if (we_q$q)
      assert (f_state$q == 2'd0 && ub_win_buf && sh_cls == 2'd0 && sh_win[63:56] == 8'h57);
    if (re_q$q) assert (f_state$q == 2'd3);
    if (refused_q$q) assert (f_state$q == 2'd0 && ub_win_buf && sh_cls != 2'd0);
    assert (sh_pend == (f_state$q == 2'd2 || we_q$q || re_q$q || refused_q$q));
  end
`endif

  // property crc_guards_the_bus: a bus_we or bus_re strobe shows a good frame: the bytes the receiver delivered were A5, the op ('W' for bus_we, 'R' for bus_re), bus_addr as a0 a1 (a1 < 0x10), bus_wdata as d0..d3, then a CRC byte equal to their CRC-8 (poly 0x07, init 0)
`ifdef P_crc_guards_the_bus
  always @(*) begin
    if (bus_we)
      assert (sh_win == {8'ha5, 8'h57, bus_addr[7:0], 4'h0, bus_addr[11:8], bus_wdata[7:0],
                         bus_wdata[15:8], bus_wdata[23:16], bus_wdata[31:24],
                         ub_crc7({8'h57, bus_addr[7:0], 4'h0, bus_addr[11:8], bus_wdata[7:0],
                                  bus_wdata[15:8], bus_wdata[23:16], bus_wdata[31:24]})});
    if (bus_re)
      assert (sh_win == {8'ha5, 8'h52, bus_addr[7:0], 4'h0, bus_addr[11:8], bus_wdata[7:0],
                         bus_wdata[15:8], bus_wdata[23:16], bus_wdata[31:24],
                         ub_crc7({8'h52, bus_addr[7:0], 4'h0, bus_addr[11:8], bus_wdata[7:0],
                                  bus_wdata[15:8], bus_wdata[23:16], bus_wdata[31:24]})});
  end
`endif

  // property bad_crc_refused: each outcome (bus_we, bus_re, refused) is the one of the last frame taken (its 9th byte after A5), at most one per frame, none pending when the next is taken; a frame whose CRC byte differs from the CRC-8 of its 7 bytes never strobes the bus: its outcome is `refused`, the response already started with status 1
`ifdef P_bad_crc_refused
  always @(*) begin
    // an outcome only for a frame taken, one each
    if (bus_we || bus_re || refused) assert (sh_pend);
    // no frame taken while the last one's outcome is pending
    if (sh_take) assert (!sh_pend);
    // a bad CRC never reaches the bus; its outcome is a refusal, status 1
    if (sh_pend && sh_win[7:0] != ub_crc7(sh_win[63:8])) begin
      assert (!bus_we && !bus_re);
      if (refused) assert (tx_busy$q && tx_resp$q[7:0] == 8'd1);
    end
  end
`endif

  // property outcome_by_class: the outcome is the one the frame's bytes ask for: a good 'W' strobes bus_we (its response started: status 0, data 0), a good 'R' bus_re, a good-CRC frame with another op or a1 >= 0x10 is refused (response status 2, data 0), a bad CRC refused (status 1); `refused` only for a bad frame
`ifdef P_outcome_by_class
  always @(*) begin
    if (bus_we || bus_re || refused) begin
      assert (sh_pend);
      assert (bus_we == (sh_cls == 2'd0 && sh_win[63:56] == 8'h57));
      assert (bus_re == (sh_cls == 2'd0 && sh_win[63:56] == 8'h52));
      assert (refused == (sh_cls != 2'd0));
    end
    if (bus_we || refused) assert (tx_busy$q && tx_resp$q == {32'h0, 6'b0, sh_cls});
  end
`endif

  // a read outstanding: bus_re seen, bus_rvalid not since (its clock
  // included), no clear; the bus address and data at its bus_re
  reg sh_rd = 1'b0;
  reg [11:0] sh_ra = 12'h0;
  reg [31:0] sh_rw = 32'h0;
  always @(posedge clock) begin
    if (bus_re) begin
      sh_ra <= bus_addr;
      sh_rw <= bus_wdata;
    end
    sh_rd <= (bus_re || sh_rd) && !bus_rvalid && !clear;
  end

  // property read_bus_stable: bus_addr and bus_wdata hold from a read's bus_re until the clock the bridge takes bus_rvalid (unless `clear`)
`ifdef P_read_bus_stable
  always @(*) begin
    if (sh_rd) assert (bus_addr == sh_ra && bus_wdata == sh_rw);
    // invariants: a read strobe only in s3; outstanding, the parser is in
    // s3 (the buffer shifts only in s1) and the shadow is the buffer's
    if (re_q$q) assert (f_state$q == 2'd3);
    if (sh_rd) assert (f_state$q == 2'd3 && sh_ra == f_buf$q[19:8] && sh_rw == f_buf$q[55:24]);
  end
`endif

  // property read_answered: while a read is outstanding the transmitter is idle, and the clock after the bridge takes bus_rvalid (unless `clear`) the read's response is going out: the sync 0x5A framed in the shift register, then status 0 and that clock's bus_rdata
`ifdef P_read_answered
  reg sh_ans = 1'b0;
  reg [31:0] sh_rdata = 32'h0;
  always @(posedge clock) begin
    sh_ans <= (bus_re || sh_rd) && bus_rvalid && !clear;
    sh_rdata <= bus_rdata;
  end
  always @(*) begin
    if (bus_re || sh_rd) assert (!tx_busy$q);
    if (sh_ans)
      assert (tx_busy$q && tx_idx$q == 3'd1 && tx_nbits$q == 4'd9 && tx_shift$q == {1'b1, 8'h5a, 1'b0}
              && tx_resp$q == {sh_rdata, 8'h00});
    // invariants: a read strobe only in s3, outstanding only in s3, and
    // s3 is entered only with the transmitter idle, which nothing starts there
    if (re_q$q) assert (f_state$q == 2'd3);
    if (sh_rd) assert (f_state$q == 2'd3);
    if (f_state$q == 2'd3) assert (!tx_busy$q);
  end
`endif

  // property response_crc: every response goes out as 0x5A, the status and four data bytes it started with (as outcome_by_class and read_answered state them), then their CRC-8 (poly 0x07, init 0); each byte as it is loaded, framed (start 0, stop 1), into the shift register that drives tx
`ifdef P_response_crc
  // the response a start loads: while the transmitter is idle it holds
  // the start value (the parser's candidate), frozen from the start on
  reg [39:0] sh_resp = 40'h0;
  always @(posedge clock) if (!tx_busy$q) sh_resp <= tx_resp$d;
  // CRC-8 of the first n bytes of a response word (status in [7:0])
  function [7:0] ub_crc_resp;
    input [39:0] r;
    input [2:0] n;
    integer i;
    reg [7:0] c;
    begin
      c = 8'h00;
      for (i = 0; i < 5; i = i + 1) if (i < n) c = ub_step(c, r[8*i+:8]);
      ub_crc_resp = c;
    end
  endfunction
  // the bytes loaded after the sync: tx_idx 1 sends the sync, k in 2..6
  // the (k-2)th byte (loaded as tx_idx became k), 7 the CRC
  wire [2:0] ub_tx_n = tx_idx$q <= 3'd1 ? 3'd0 : tx_idx$q >= 3'd6 ? 3'd5 : tx_idx$q - 3'd1;
  wire [7:0] ub_tx_byte = tx_idx$q == 3'd1 ? 8'h5a :
                          tx_idx$q == 3'd7 ? ub_crc_resp(sh_resp, 3'd5) :
                          sh_resp[8*(tx_idx$q-3'd2)+:8];
  always @(*) begin
    // the property: a byte just loaded (all 9 of its bit times ahead, the
    // start bit on the line) is the next one of the response
    if (tx_busy$q && tx_nbits$q == 4'd9) assert (tx_shift$q == {1'b1, ub_tx_byte, 1'b0});
    // invariants: while busy, the counters are in range; the bit-serial
    // CRC is done before the next byte loads (tx_cnt + 4 tx_nbits, a lower
    // bound on the clocks to the next load, falls by at most 1 a clock and
    // a load sets it to at least 3 + 36); the word still to send is the
    // response's remaining bytes; the CRC, finished, is that of the bytes
    // loaded
    if (tx_busy$q) begin
      assert (tx_idx$q != 3'd0 && tx_nbits$q <= 4'd9 && tx_crc_n$q <= 4'd8);
      assert ({2'b0, tx_cnt$q} + {6'b0, tx_nbits$q, 2'b0} >= {8'b0, tx_crc_n$q});
      assert (tx_resp$q == sh_resp >> {ub_tx_n, 3'b0});
      assert (ub_bits(tx_crc$q, tx_crc_n$q) == ub_crc_resp(sh_resp, ub_tx_n));
    end
  end
`endif
// end inside
