// Property harness of the NIC core with the sequential window engine
// (`nic_core_seq`, hdl/src/nic_core.rs with `core_logic!(in_ready)`,
// engine hdl/src/window_engine_seq.rs), proved on the formal-size build
// (generate::FB_FORMAL = 2 flow bits, 4 flows; the event FIFO is still 256
// deep). RustHDL emits no assertions: this module instantiates the
// generated core with every input free (bus traffic, system pushes, the
// hand-over `sys_set_*`, the sweep hold) and states the invariants inside
// it. Each property is a `P_<name>` block named by a `// property <name>:
// <text>` line.
//
// "The engine takes an event" is, as the engine's doc defines it, a cycle
// with in_valid, in_ready and no reset (`h_take`). The core's sources of
// the engine's port are the reset sweep, a handed-over window (sys_set_*),
// a flow command's event, the generator and the FIFO's pop; with the
// sequential engine each waits for `in_ready` besides its turn.
//
// What is proved, for ever, from any input:
// - the FIFO (carried over from formal/nic_core.sv, the pipelined core's
//   harness): no push lost without its flag; no entry overwritten before it
//   is read, none read before its write has landed, in order (pointers);
//   every pop goes to the engine's port with the word read, and (new) is
//   taken by the engine: it waits for in_ready;
// - fifo_word (new): the event the engine takes from a FIFO slot is the
//   event last pushed into that slot: a section inside the RAM
//   (`nic_core_seq$fifo`) reads `mem[f]` for a watched slot f (anyconst in
//   the core's section), and two connections carry f in and the word out,
//   so the RAM's words are stated after all (formal/nic_core.sv takes the
//   RAM as storing what is written);
// - port_handshake: the engine takes an event exactly when one source is
//   consumed (its state advances: the FIFO's read pointer, the generator's
//   state, the sweep pointer, the command's `issued` flag; a hand-over is
//   consumed by its take), at most one source is consumed in a cycle, and
//   none while the engine is busy or the core resets; the taken event
//   carries its source's fields;
// - sweep_complete: after a CORE_RESET the sweep SETs every flow to
//   INIT_CW exactly once, in order 0..3, each SET taken by the engine;
//   STATUS.RESETTING is high from the reset to the cycle the last SET is
//   taken, and only then; no other source reaches the engine meanwhile;
// - sweep_bounded: the sweep ends within 82 cycles in which the system
//   does not hold it (4 SETs, each within 27 cycles of the one before);
// - command_result: FLOW_STATUS.DONE rises only in the cycle after the
//   engine shows the update of the command's own event, which it took
//   since the command was accepted, exactly 7 or 27 cycles before (the
//   first update after that take: the sequential engine has nothing else
//   in flight), and FLOW_STATUS.FLOW / FLOW_CW hold that update's flow and
//   cw (the CAPTURE_AGE_SEQ rule: no earlier update of the flow is taken
//   for the result).
//
// command_result, sweep_bounded and port_handshake need the engine's busy
// flag, step counter and event flow: a section inside the engine
// (`nic_core_seq$eng`) names them on kept wires (and states the engine's
// own handshake invariants: busy only up to step 25; an update shows with
// the engine idle), and three connections carry them into the core's
// section (hx_*). The connected wires are read through cells only, never
// as a bare `if` condition (proc would make an alias of the condition,
// whose driver `connect -set` unsets), as in formal/window_engine_seq.sv.
//
// Not claimed: a handed-over window (sys_set_*) taken in a core reset's
// cycle is consumed but not taken by the (resetting) engine, like every
// event in flight at a reset; port_handshake states its equivalence
// outside a core reset. A system learns of the take from `sys_set_ready`,
// which port_handshake ties to it.
//
// flatten: one SMT2 state for the core and its sub-modules (the connections need it)
// solver yices: as formal/nic_core.sv (z3 4.8.12 stalls on the core)
// depth 3: every invariant below is 1-inductive; 3 for margin at a few seconds each
module nic_core_seq_props (
    input clock,
    input [11:0] bus_addr,
    input [31:0] bus_wdata,
    input bus_we,
    input bus_re,
    input sys_sweep_hold,
    input sys_set_valid,
    input [1:0] sys_set_flow,
    input [31:0] sys_set_cw,
    input sys_push_valid,
    input [16:0] sys_push_event
);
  nic_core_seq dut (
      .clock(clock), .bus_addr(bus_addr), .bus_wdata(bus_wdata), .bus_we(bus_we), .bus_re(bus_re),
      .bus_rdata(), .bus_rvalid(), .sys_sweep_hold(sys_sweep_hold), .sys_set_valid(sys_set_valid),
      .sys_set_flow(sys_set_flow), .sys_set_cw(sys_set_cw), .sys_push_valid(sys_push_valid),
      .sys_push_event(sys_push_event), .sys_sweeping(), .sys_core_rst(), .sys_upd_valid(),
      .sys_upd_flow(), .sys_upd_interval_ticks(), .sys_upd_cw_pkts(), .sys_upd_restart(),
      .sys_flow_reset(), .sys_flow_reset_id(), .sys_cnt_clear(), .sys_set_ready(),
      .sys_fifo_level()
  );
endmodule

// connect dut.hx_busy = dut.eng.h_busy: the engine's busy flag, into the core's section
// connect dut.hx_st = dut.eng.h_st: the engine's step counter, into the core's section
// connect dut.hx_eflow = dut.eng.h_eflow: the flow of the engine's event in flight, into the core's section
// connect dut.fifo.h_addr = dut.h_f: the FIFO RAM's view reads the watched slot
// connect dut.hx_mem = dut.fifo.h_mem: the FIFO RAM's word at the watched slot, into the core's section

// inside nic_core_seq: the FIFO's pointers, the sources' registers and the engine's port are the core's own
  // ---------------------------------------------------------------- common
  // the engine's state, connected in from its section (kept, undriven here;
  // read through cells only: see the connections)
  (* keep *) wire hx_busy;
  (* keep *) wire [5:0] hx_st;
  (* keep *) wire [1:0] hx_eflow;
  wire hv_idle = ~hx_busy;
  wire hv_sweep_busy = sweeping$q & hx_busy;
  wire hv_sweep_idle = sweeping$q & ~hx_busy;
  // the engine takes an event (its own definition: in_valid, in_ready, no reset)
  wire h_take = eng$in_valid & eng$in_ready & ~eng$reset;
  // the tries of this cycle: an EV_PUSH write, a system push
  wire [1:0] h_tries = {1'b0, regs$ev_push_wr} + {1'b0, sys_push_valid};
  reg [31:0] h_tries_n = 0;
  always @(posedge clock)
    if (core_reset) h_tries_n <= 0;
    else if (regs$cnt_clear_wr && |regs$cnt_clear_go) h_tries_n <= {30'd0, h_tries};
    else h_tries_n <= h_tries_n + {30'd0, h_tries};
  reg h_past = 0;
  reg [8:0] h_wr_past = 0;
  reg h_reset_past = 0;
  always @(posedge clock) begin
    h_past <= 1;
    h_wr_past <= wr_ptr$q;
    h_reset_past <= core_reset;
  end
  // the pointer invariant (as formal/nic_core.sv)
  wire h_pointers = level$q == wr_ptr$q - rd_ptr$q && level$q <= 9'd256
      && nonempty$q == (level$q != 0)
      && wr_ptr_d$q - rd_ptr$q <= level$q
      && (!h_past || (h_reset_past ? wr_ptr_d$q == 0 : wr_ptr_d$q == h_wr_past));

  // ------------------------------------------- the FIFO (carried over)
  // property pointers: the level is the pointers' gap and at most 256; the delayed write pointer trails the write pointer by one cycle
`ifdef P_pointers
  always @(*) assert (h_pointers);
`endif

  // property every_try_accounted: every try (an EV_PUSH write, a system push) is either taken into the FIFO or counted in CNT_DROPPED: tries since the counters' clear = CNT_PUSHED + CNT_DROPPED + those still being counted
`ifdef P_every_try_accounted
  always @(*) assert (h_tries_n == cnt_pushed$q + cnt_dropped$q + {31'd0, push_q$q} + {30'd0, lost_q$q});
  always @(*) assert (push_ok + lost_n == h_tries);
`endif

  // property drop_flagged: a drop sets the overflow flag, counted in the same cycle (and, in the register file's section, the flag stays set until cleared)
`ifdef P_drop_flagged
  always @(*) if (lost_q$q != 0) assert (ovf_q$q);
  always @(*) if (ovf_q$q) assert (regs$errors_fifo_overflow_set);
`endif

  // property no_overwrite: an entry is written only into a free slot (the FIFO not full), at the write pointer, and a taken push is always written (the core reset aside)
`ifdef P_no_overwrite
  always @(*) assert (h_pointers);  // the pointer invariant, strengthening
  always @(*) if (fifo$write_enable) assert (level$q < 9'd256 && fifo$write_address == wr_ptr$q[7:0]);
  always @(*) if (push_ok && !core_reset) assert (fifo$write_enable);
  always @(*) if (fifo$write_enable) assert (push_ok);
`endif

  // property read_after_write: the engine's port pops an entry only when one is there, written two or more cycles before (its RAM write has landed and been read), from the read pointer (in the order they came), and only while the engine is ready; the read pointer moves only with a pop (or the core reset)
`ifdef P_read_after_write
  always @(*) assert (h_pointers);  // the pointer invariant, strengthening
  always @(*) if (take_fifo) assert (level$q != 0 && wr_ptr_d$q != rd_ptr$q && eng$in_ready);
  always @(*) if (!core_reset) assert (rd_ptr$d == (take_fifo ? rd_ptr$q + 9'd1 : rd_ptr$q));
  always @(*) assert (fifo$read_address == rd_ptr$d[7:0] || core_reset);
`endif

  // property pop_feeds_engine: a pop is an event at the engine's port carrying the word read (flow, n, ECE, an ACK), taken by the engine unless the core resets, and nothing else takes the port in that cycle
`ifdef P_pop_feeds_engine
  always @(*) assert (h_pointers);  // the pointer invariant, strengthening
  always @(*) if (take_fifo) assert (eng$in_valid && !eng$in_set
      && eng$in_n_pkts == fifo$read_data[3:0] && eng$in_ece == fifo$read_data[4]
      && eng$in_flow == fifo$read_data[6:5]);
  always @(*) if (take_fifo && !core_reset) assert (h_take);
  always @(*) if (take_fifo) assert (!take_sweep && !take_set && !take_fc && !take_gen);
`endif

  // the FIFO's words: a watched slot f (any, fixed), the event last pushed
  // into it (the system's push ahead of an EV_PUSH, as the core writes it),
  // and the RAM's word at f, connected in from the RAM's section
  (* anyconst *) reg [7:0] h_f;
  (* keep *) wire [6:0] hx_mem;
  reg [6:0] h_word = 0;
  wire [6:0] h_pushed = sys_push_valid ? {sys_push_event[1:0], sys_push_event[16], sys_push_event[15:12]}
                                       : {regs$ev_push_flow[1:0], regs$ev_push_ece, regs$ev_push_n};
  always @(posedge clock)
    if (push_ok && !core_reset && wr_ptr$q[7:0] == h_f) h_word <= h_pushed;
  reg [7:0] h_ra_past = 0;
  always @(posedge clock) h_ra_past <= fifo$read_address;
  // slot f holds an entry not yet popped (between the pointers)
  wire [7:0] h_f_off = h_f - rd_ptr$q[7:0];
  wire h_f_held = {1'b0, h_f_off} < level$q;
  wire hv_mem_ok = hx_mem == h_word;

  // property fifo_word: the event the engine takes from a FIFO slot is the event last pushed into that slot (flow, n, ECE; the system's push when both push in a cycle): the RAM holds every unread entry as pushed, and its registered read shows the read pointer's entry once its write is two cycles old
`ifdef P_fifo_word
  always @(*) begin
    assert (h_pointers);  // the pointer invariant, strengthening
    // the claim
    if (take_fifo && rd_ptr$q[7:0] == h_f) assert (eng$in_flow == h_word[6:5] && eng$in_ece == h_word[4]
        && eng$in_n_pkts == h_word[3:0] && !eng$in_set);
    // the strengthening: an unread entry is in the RAM as pushed; the RAM's
    // read register read the read pointer's slot in the cycle before
    if (h_f_held) assert (hv_mem_ok);
    if (h_past && !h_reset_past) assert (h_ra_past == rd_ptr$q[7:0]);
    if (h_past && !h_reset_past && fifo_avail && rd_ptr$q[7:0] == h_f) assert (fifo$read_data == h_word);
  end
`endif

  // ---------------------------------------------- the engine's port
  // a source is consumed when its state advances (the core reset aside,
  // which restarts every source): the FIFO's read pointer, the generator's
  // remaining count (its state x with it), the sweep pointer, the command's
  // `issued` flag; a handed-over window has no state here: its take is
  // its consumption (the system holds it until then)
  wire h_c_fifo = rd_ptr$d != rd_ptr$q;
  wire h_c_gen = gen_busy$q & (gen_rem$d != gen_rem$q);
  wire h_c_sweep = sweep_ptr$d != sweep_ptr$q;
  wire h_c_fc = ~fc_issued$q & fc_issued$d;
  wire h_c_set = take_set;
  wire [2:0] h_nc = {2'd0, h_c_fifo} + {2'd0, h_c_gen} + {2'd0, h_c_sweep} + {2'd0, h_c_fc} + {2'd0, h_c_set};

  // property port_handshake: outside a core reset, the engine takes an event (in_valid, in_ready, no reset) exactly when one source is consumed (a FIFO pop, a generator event, a flow command's event, a sweep step, a handed-over window), never two in a cycle, none while the engine is busy; the taken event carries its source's fields (FIFO word; generator state; the command's flow and op, FLOW_WDATA for WRITE, INIT_CW for RESET; the sweep's flow and INIT_CW; the hand-over's flow and cw); a handed-over window is consumed exactly in a cycle of sys_set_valid and sys_set_ready
`ifdef P_port_handshake
  always @(*) assert (h_pointers);  // strengthening: a poppable entry means a nonempty FIFO (the FIFO and a command are exclusive)
  // the engine's ready is its own idle state (so h_take is its take)
  always @(*) assert (eng$in_ready == hv_idle);
  always @(*) if (!core_reset) begin
    assert (h_take == (h_nc != 3'd0));
    assert (h_nc <= 3'd1);
    if (!eng$in_ready) assert (h_nc == 3'd0);
    assert (h_c_fifo == take_fifo && h_c_gen == take_gen && h_c_sweep == take_sweep
            && h_c_fc == take_fc);
  end
  always @(*) if (take_gen) assert (eng$in_flow == gen_x$q[1:0] && eng$in_n_pkts == gen_x$q[5:2]
      && eng$in_ece == (gen_x$q[9:7] == 3'd0) && !eng$in_set && (core_reset || gen_x$d == gen_x3));
  always @(*) if (take_fc) assert (eng$in_flow == fc_flow$q && eng$in_n_pkts == 4'd0 && !eng$in_ece
      && eng$in_set == (fc_op$q != 2'd1)
      && (fc_op$q != 2'd2 || eng$in_cw == regs$flow_wdata_cw)
      && (fc_op$q != 2'd3 || eng$in_cw == regs$init_cw_cw) && fc_op$q != 2'd0);
  always @(*) if (take_sweep) assert (eng$in_flow == sweep_ptr$q && eng$in_set
      && eng$in_cw == regs$init_cw_cw);
  always @(*) if (take_set) assert (eng$in_flow == sys_set_flow && eng$in_set && eng$in_cw == sys_set_cw);
  // the hand-over's ready: offered in a cycle of sys_set_ready, it is
  // consumed (and, outside a core reset, taken by the engine); offered in
  // any other, it is not
  always @(*) assert (h_c_set == (sys_set_valid && sys_set_ready));
  always @(*) if (sys_set_ready && !core_reset) assert (eng$in_ready);
  // a command in the core has an op (READ, WRITE or RESET)
  always @(*) if (fc_busy$q) assert (fc_op$q != 2'd0);
`endif

  // ------------------------------------------------- the reset sweep
  reg h_reset_seen = 0;      // a core reset has happened
  reg [3:0] h_swept = 0;     // flows SET by a sweep take since the last core reset
  reg [2:0] h_nswept = 0;    // sweep takes since the last core reset
  always @(posedge clock)
    if (core_reset) begin
      h_reset_seen <= 1; h_swept <= 0; h_nswept <= 0;
    end else if (h_take && take_sweep) begin
      h_swept <= h_swept | (4'd1 << eng$in_flow);
      h_nswept <= h_nswept + 3'd1;
    end
  wire [3:0] h_below = (4'd1 << sweep_ptr$q) - 4'd1;   // the flows below the sweep pointer
  wire h_sweep_ends = sweeping$q & ~sweeping$d & ~core_reset;

  // property sweep_complete: after a core reset the sweep issues exactly one SET per flow (4), to INIT_CW, in flow order, each taken by the engine, before it ends (the last taken in the cycle it ends); STATUS.RESETTING is high exactly while it runs; while it runs no other source reaches the engine; it waits only for the engine (in_ready) and the system's hold
`ifdef P_sweep_complete
  always @(*) begin
    assert (regs$status_resetting == sweeping$q);
    assert (h_nswept <= 3'd4);
    if (sweeping$q) assert (h_reset_seen && h_swept == h_below && h_nswept == {1'b0, sweep_ptr$q});
    if (!sweeping$q && h_reset_seen && !h_reset_past) assert (h_swept == 4'hf && h_nswept == 3'd4);
    if (!h_reset_seen) assert (!sweeping$q && h_nswept == 3'd0);
    if (take_sweep && h_take) assert (!h_swept[eng$in_flow] && eng$in_set && eng$in_cw == regs$init_cw_cw
        && eng$in_flow == sweep_ptr$q);
    if (h_sweep_ends) assert (h_take && take_sweep && eng$in_flow == 2'd3 && h_swept == 4'h7);
    if (sweeping$q) assert (!take_set && !take_fc && !take_gen && !take_fifo);
    if (sweeping$q && !sys_sweep_hold && eng$in_ready && !core_reset) assert (h_take && take_sweep);
  end
`endif

  // the sweep's unheld cycles: sweeping, the hold low, no core reset, counted
  // from the reset (before the current cycle); saturating (it stays far below)
  reg [7:0] h_unheld = 0;
  always @(posedge clock)
    if (core_reset) h_unheld <= 0;
    else if (sweeping$q && !sys_sweep_hold && h_unheld != 8'hff) h_unheld <= h_unheld + 8'd1;

  // property sweep_bounded: the sweep ends within 82 cycles in which the system does not hold it (sys_sweep_hold low), counted from the core reset: each of its 4 SETs is taken in the first unheld cycle the engine is ready, and the engine is busy at most 26 cycles (its steps 0..25) per SET, so at most 3 x 27 unheld cycles pass before the last SET's take, which ends it
`ifdef P_sweep_bounded
  always @(*) begin
    // the claim: while it runs, at most 81 unheld cycles have passed
    if (sweeping$q) assert (h_unheld <= 8'd81);
    // the strengthening: each SET costs at most 27 unheld cycles (its take
    // and the engine's steps 0..25); a busy engine at step s has used s + 1
    // of its event's; a ready one while sweeping takes the next SET unheld
    if (sweeping$q) assert (h_reset_seen && h_nswept == {1'b0, sweep_ptr$q});
    assert (!hv_sweep_busy || ({2'd0, h_unheld} + 10'd26 <= 10'd27 * {7'd0, h_nswept} + {4'd0, hx_st}));
    assert (!hv_sweep_idle || ({2'd0, h_unheld} <= 10'd27 * {7'd0, h_nswept}));
  end
`endif

  // ----------------------------------------------- flow commands
  // the command's event is in the engine: taken (since the command was
  // accepted), its update not yet shown; and the cycles since that take
  reg h_cmd_wait = 0;
  reg [5:0] h_cmd_age = 0;
  always @(posedge clock) begin
    if (core_reset) h_cmd_wait <= 0;
    else if (h_take && take_fc) h_cmd_wait <= 1;
    else if (eng$out_valid) h_cmd_wait <= 0;
    if (h_take && take_fc) h_cmd_age <= 6'd1;
    else if (h_cmd_age != 6'd63) h_cmd_age <= h_cmd_age + 6'd1;
  end
  // the engine shows the command's own update: the first after its take
  wire h_own = h_cmd_wait & eng$out_valid;
  reg h_own_q = 0, h_done_q = 0;
  reg [1:0] h_own_flow_q = 0;
  reg [31:0] h_own_cw_q = 0;
  reg [5:0] h_own_age_q = 0;
  always @(posedge clock) begin
    h_own_q <= h_own & ~core_reset;
    h_own_flow_q <= eng$out_flow;
    h_own_cw_q <= eng$out_cw;
    h_own_age_q <= h_cmd_age;
    h_done_q <= fc_done$q;
  end
  wire h_done_rises = h_past & fc_done$q & ~h_done_q;
  // conditions as cell outputs (the connected wires are never a bare condition)
  wire hv_wait_busy = h_cmd_wait & hx_busy;
  wire hv_wait_idle = h_cmd_wait & ~hx_busy;

  // property command_result: FLOW_STATUS.DONE rises only the cycle after the engine shows the update of the command's own event (the first update after the engine took it, 7 or 27 cycles after the take, which came after the command was accepted), and FLOW_STATUS.FLOW and FLOW_CW then hold that update's flow (the command's) and cw; no update shown before it completes the command; and the command's event is taken only with the FIFO empty (every event pushed before it entered the engine first)
`ifdef P_command_result
  always @(*) assert (h_pointers);  // strengthening: the FIFO and a command are exclusive at the port
  always @(*) begin
    if (h_done_rises) assert (h_own_q && regs$flow_status_done && regs$flow_status_flow == {10'd0, h_own_flow_q}
        && res_flow$q == h_own_flow_q && res_cw$q == h_own_cw_q
        && (h_own_age_q == 6'd7 || h_own_age_q == 6'd27));
    if (capture) assert (h_own && (h_cmd_age == 6'd7 || h_cmd_age == 6'd27) && eng$out_flow == fc_flow$q);
    // the strengthening: `issued` is exactly "its event in the engine"
    assert (fc_issued$q == h_cmd_wait);
    if (fc_issued$q) assert (fc_busy$q && fc_aged$q == (fc_age$q >= 6'd2) && h_cmd_age == fc_age$q + 6'd1);
    assert (!hv_wait_busy || (hx_eflow == fc_flow$q && !eng$out_valid
        && (hx_st == fc_age$q || (hx_st == 6'd25 && fc_age$q == 6'd5))));
    // out of the engine: the update is shown, the command's, at age 6 or 26
    assert (!hv_wait_idle || (eng$out_valid && eng$out_flow == fc_flow$q
        && (fc_age$q == 6'd6 || fc_age$q == 6'd26)));
    if (!fc_issued$q && fc_busy$q) assert (!capture);
    // the command's event is taken only with the FIFO empty: every event pushed before it entered the engine first
    if (take_fc) assert (level$q == 9'd0);
  end
`endif
// end inside

// inside nic_core_seq$eng: the engine's busy flag, step counter and event flow, named for the core's section; its own handshake invariants
  (* keep *) wire h_busy = busy$q;
  (* keep *) wire [5:0] h_st = st$q;
  (* keep *) wire [1:0] h_eflow = e_flow$q;
`ifdef P_command_result
`define NCS_ENG
`endif
`ifdef P_sweep_bounded
`define NCS_ENG
`endif
`ifdef NCS_ENG
  // a busy engine is at a step up to the last (25), where it leaves busy;
  // an update shows the cycle after the last step, with the engine idle
  // (in_ready) and its flow the event's
  always @(*) begin
    if (busy$q) assert (st$q <= 6'd25);
    if (z_valid$q) assert (!busy$q);
  end
`endif
// end inside

// inside nic_core_seq$fifo: the RAM's word at the watched slot, `mem[f]`; the connections carry f in and the word out
  (* keep *) wire [7:0] h_addr;
  (* keep *) wire [6:0] h_mem = mem[h_addr];
// end inside

// inside nic_core_seq$regs: the sticky flag is the register file's
  // drop_flagged, continued: the flag set stays set until the host clears it (write-1-to-clear of ERRORS) or the core resets
`ifdef P_drop_flagged
  reg h_past = 0;
  reg h_set_past = 0;
  reg h_reset_past = 0;
  always @(posedge clock) begin
    h_past <= 1;
    h_set_past <= errors_fifo_overflow_set;
    h_reset_past <= reset;
  end
  always @(*) if (h_past && h_set_past && !h_reset_past) assert (r_errors_fifo_overflow$q);
`endif
// end inside
