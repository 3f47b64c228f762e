// Property harness of the NIC core's event FIFO (`nic_core`, hdl/src/nic_core.rs:
// 256 words in a RAM, a write pointer, a read pointer and a level register;
// the bus's EV_PUSH writes and the system's loopback pushes go in, the
// window engine's port takes them out; a push the FIFO cannot take is
// counted in CNT_DROPPED and raises ERRORS.FIFO_OVERFLOW). RustHDL emits no
// assertions: this module instantiates the generated core with every input
// free, and states the FIFO's invariants inside it.
//
// The FIFO is a part of the core, not a block with ports of its own, so
// every property sits in an inside section (the flow pastes it into the
// generated module, where its registers are in scope). What is proved, for
// ever, from any bus traffic and any system pushes:
// - no push is lost without its flag: every try (an EV_PUSH write, a
//   system push) is either written into the FIFO or counted dropped, and
//   every drop sets ERRORS.FIFO_OVERFLOW;
// - no entry is overwritten before it is read, none is read before its
//   write has landed, and they leave in the order they came (the pointers);
// - every pop goes to the engine's port with the word read.
// The RAM itself (a Verilog array written and read by address) is taken as
// storing what is written at an address: the harness cannot state its
// words (they are in a sub-module, and a section inside it cannot see the
// core's pointers).
//
// A core reset (CORE_RESET) empties the FIFO and zeroes its counters, by
// design: a try in the reset's own cycle is discarded with the rest.
//
// flatten: one SMT2 state for the core and its sub-modules
// solver yices: z3 4.8.12 stalls on the core
module nic_core_props (
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
  nic_core dut (
      .clock(clock), .bus_addr(bus_addr), .bus_wdata(bus_wdata), .bus_we(bus_we), .bus_re(bus_re),
      .bus_rdata(), .bus_rvalid(), .sys_sweep_hold(sys_sweep_hold), .sys_set_valid(sys_set_valid),
      .sys_set_flow(sys_set_flow), .sys_set_cw(sys_set_cw), .sys_push_valid(sys_push_valid),
      .sys_push_event(sys_push_event), .sys_sweeping(), .sys_core_rst(), .sys_upd_valid(),
      .sys_upd_flow(), .sys_upd_interval_ticks(), .sys_upd_cw_pkts(), .sys_upd_restart(),
      .sys_flow_reset(), .sys_flow_reset_id(), .sys_cnt_clear(), .sys_set_ready(),
      .sys_fifo_level()
  );
endmodule

// inside nic_core: the FIFO's pointers, level, counters and flags are the core's own registers
  // the tries of this cycle: an EV_PUSH write, a system push
  wire [1:0] h_tries = {1'b0, regs$ev_push_wr} + {1'b0, sys_push_valid};
  // tries since the counters were last cleared (or the core reset), mod 2^32
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

  // the pointer invariant every property below rests on: the level is the
  // write pointer's lead over the read pointer, at most the depth; the
  // delayed write pointer is the write pointer of the cycle before (0 after
  // a reset), no further ahead of the read pointer than the write pointer
  wire h_pointers = level$q == wr_ptr$q - rd_ptr$q && level$q <= 9'd256
      && nonempty$q == (level$q != 0)
      && wr_ptr_d$q - rd_ptr$q <= level$q
      && (!h_past || (h_reset_past ? wr_ptr_d$q == 0 : wr_ptr_d$q == h_wr_past));

  // property pointers: the level is the pointers' gap and at most 256; the delayed write pointer trails the write pointer by one cycle
`ifdef P_pointers
  always @(*) assert (h_pointers);
`endif

  // property every_try_accounted: every try (an EV_PUSH write, a system push) is either taken into the FIFO or counted in CNT_DROPPED: tries since the counters' clear = CNT_PUSHED + CNT_DROPPED + those still being counted
`ifdef P_every_try_accounted
  always @(*) assert (h_tries_n == cnt_pushed$q + cnt_dropped$q + {31'd0, push_q$q} + {30'd0, lost_q$q});
  always @(*) assert (push_ok + lost_n == h_tries);
`endif

  // property drop_flagged: a drop sets the overflow flag, counted in the same cycle
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

  // property read_after_write: the engine takes an entry only when one is there, written two or more cycles before (its RAM write has landed and been read), and from the read pointer: in the order they came
`ifdef P_read_after_write
  always @(*) assert (h_pointers);  // the pointer invariant, strengthening
  always @(*) if (take_fifo) assert (level$q != 0 && wr_ptr_d$q != rd_ptr$q);
`endif

  // property pop_feeds_engine: a pop is an event at the engine's port carrying the word read (flow, n, ECE), and nothing else takes the port in that cycle
`ifdef P_pop_feeds_engine
  always @(*) assert (h_pointers);  // the pointer invariant, strengthening
  always @(*) if (take_fifo) assert (eng$in_valid && !eng$in_set
      && eng$in_n_pkts == fifo$read_data[3:0] && eng$in_ece == fifo$read_data[4]
      && eng$in_flow == fifo$read_data[6:5]);
  always @(*) if (take_fifo) assert (!take_sweep && !take_set && !take_fc && !take_gen);
`endif
// end inside

// inside nic_core$regs: the sticky flag is the register file's
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
