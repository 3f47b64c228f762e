//! `UartBridge`: the UART-to-register bridge of the Alchitry Cu board top.
//! The host speaks the framed protocol of [`ldcp_sim::uart_bridge`] (9-byte
//! requests with CRC-8, 7-byte responses); the bridge is the master of the
//! NIC core's register bus. `ldcp_sim::uart_bridge::BridgeModel` is its
//! cycle-accurate model, register for register.
//!
//! # Line
//! 8N1, LSB first, idle high, `baud_div` clocks per bit (4 ..= 1023; a
//! smaller value acts as 4). The receive line passes a two-flop
//! synchroniser; the start bit is checked at mid-bit (a glitch shorter
//! than half a bit is ignored), each data bit sampled at mid-bit, and a
//! byte whose stop bit is 0 is discarded (the frame it belonged to then
//! fails its CRC or times out). The transmit line is a register.
//!
//! # Frames
//! Bytes before a sync byte (0xA5) are skipped. After it, seven bytes
//! (op, a0, a1, d0..d3) are shifted into a 56-bit buffer while their CRC is
//! computed bit-serially, eight clocks per byte (a byte takes at least 40
//! clocks on the line, so the CRC is always done before the next byte). The
//! ninth byte is compared with the CRC: a mismatch answers status 1, an
//! unknown op or an address above 12 bits status 2, and neither touches the
//! bus. A frame is dropped without an answer when 64 bit times pass
//! between the stop-bit samples of two of its bytes (a pause of 54 bit
//! times on the line, as a byte takes 10). The idle count is compared
//! for equality with the limit: lowering `baud_div` while a frame is open,
//! past the count already reached, stretches that frame's timeout to the
//! count's wrap, at most 2^16 clocks (found by the property harness
//! `formal/uart_bridge.sv`; harmless with the static divider the boards
//! use).
//!
//! # Bus
//! A good write strobes `bus_we` for one clock with the frame's address and
//! data and answers status 0 at once. A good read strobes `bus_re` and
//! answers with `bus_rdata` the clock after `bus_rvalid`; it waits for
//! `bus_rvalid` without a timeout (the register files answer every read
//! a clock later), and bytes that arrive while a frame waits for its
//! read, or for the transmitter, are dropped. `bus_addr` and
//! `bus_wdata` are the frame buffer's bits, stable from the frame's last
//! data byte until the next frame's first byte after its sync byte.
//!
//! # Back-to-back frames
//! A response takes 70 bit times, a request 90, so at equal line rates the
//! response to a frame is always sent before the next frame completes: a
//! host may send frames back to back, and every one is answered in order.
//!
//! # Clear
//! `clear` holds the receiver, the parser and the transmitter idle (a frame
//! in progress is dropped, the line goes idle high).

use ldcp_sim::uart_bridge as p;
use rust_hdl::prelude::*;

/// The bridge's module alone (the board cores embed it as `bridge`), for
/// its property harness in `formal/`.
pub const MODULE: crate::generate::Module = crate::generate::Module {
    name: "uart_bridge",
    doc: "the UART-to-register bridge of the board cores, alone (framed, CRC-8)",
    open: &[],
    subs: &[],
};

/// The bridge's Verilog alone (module [`MODULE`]).
pub fn verilog() -> Result<String, crate::verilog::VerilogError> {
    crate::generate::finalized(&MODULE, UartBridge::default())
}

/// The UART bridge. Ports mirror `ldcp_sim::uart_bridge::{BridgeIn, BridgeOut}`.
#[derive(LogicBlock)]
pub struct UartBridge {
    /// The clock.
    pub clock: Signal<In, Clock>,
    /// The UART receive line, asynchronous.
    pub rx: Signal<In, Bit>,
    /// Clocks per bit.
    pub baud_div: Signal<In, Bits<10>>,
    /// Hold everything idle.
    pub clear: Signal<In, Bit>,
    /// The bus's read data.
    pub bus_rdata: Signal<In, Bits<32>>,
    /// The bus's read-valid.
    pub bus_rvalid: Signal<In, Bit>,
    /// The UART transmit line.
    pub tx: Signal<Out, Bit>,
    /// Bus byte address.
    pub bus_addr: Signal<Out, Bits<12>>,
    /// Bus write data.
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// Bus write strobe.
    pub bus_we: Signal<Out, Bit>,
    /// Bus read strobe.
    pub bus_re: Signal<Out, Bit>,
    /// A frame was refused (bad CRC, bad op or address): one clock, as its
    /// refusal starts to go out.
    pub refused: Signal<Out, Bit>,
    // constants
    s0: Constant<Bits<2>>,
    s1: Constant<Bits<2>>,
    s2: Constant<Bits<2>>,
    min_div: Constant<Bits<10>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one10: Constant<Bits<10>>,
    one16: Constant<Bits<16>>,
    eight: Constant<Bits<4>>,
    nine: Constant<Bits<4>>,
    len7: Constant<Bits<3>>,
    idx6: Constant<Bits<3>>,
    idx7: Constant<Bits<3>>,
    msb8: Constant<Bits<8>>,
    poly: Constant<Bits<8>>,
    sync: Constant<Bits<8>>,
    op_r: Constant<Bits<8>>,
    op_w: Constant<Bits<8>>,
    st_ok: Constant<Bits<2>>,
    st_crc: Constant<Bits<2>>,
    st_frame: Constant<Bits<2>>,
    stop10: Constant<Bits<10>>,
    resp_sync10: Constant<Bits<10>>,
    // locals
    div: Signal<Local, Bits<10>>,
    div_m1: Signal<Local, Bits<10>>,
    half_m1: Signal<Local, Bits<10>>,
    timeout_m1: Signal<Local, Bits<16>>,
    op: Signal<Local, Bits<8>>,
    start_tx: Signal<Local, Bit>,
    tx_st: Signal<Local, Bits<2>>,
    tx_data: Signal<Local, Bits<32>>,
    tx_byte: Signal<Local, Bits<8>>,
    // receiver
    rx_s1: DFFWithInit<Bit>,
    rx_s2: DFFWithInit<Bit>,
    rx_state: DFF<Bits<2>>,
    rx_cnt: DFF<Bits<10>>,
    rx_bit: DFF<Bits<3>>,
    rx_shift: DFF<Bits<8>>,
    rx_done: DFF<Bit>,
    // frame parser and bus master
    f_state: DFF<Bits<2>>,
    f_len: DFF<Bits<3>>,
    f_buf: DFF<Bits<56>>,
    f_crc: DFF<Bits<8>>,
    f_crc_n: DFF<Bits<4>>,
    f_idle: DFF<Bits<16>>,
    f_st: DFF<Bits<2>>,
    f_write: DFF<Bit>,
    we_q: DFF<Bit>,
    re_q: DFF<Bit>,
    refused_q: DFF<Bit>,
    // transmitter
    tx_busy: DFF<Bit>,
    tx_shift: DFF<Bits<10>>,
    tx_cnt: DFF<Bits<10>>,
    tx_nbits: DFF<Bits<4>>,
    tx_idx: DFF<Bits<3>>,
    tx_resp: DFF<Bits<40>>,
    tx_crc: DFF<Bits<8>>,
    tx_crc_n: DFF<Bits<4>>,
    tx_line: DFFWithInit<Bit>,
}

impl Default for UartBridge {
    fn default() -> Self {
        let c2 = |v: u64| Constant::new(bits::<2>(v));
        let c8 = |v: u64| Constant::new(bits::<8>(v));
        UartBridge {
            clock: Default::default(),
            rx: Default::default(),
            baud_div: Default::default(),
            clear: Default::default(),
            bus_rdata: Default::default(),
            bus_rvalid: Default::default(),
            tx: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_we: Default::default(),
            bus_re: Default::default(),
            refused: Default::default(),
            s0: c2(0),
            s1: c2(1),
            s2: c2(2),
            min_div: Constant::new(bits::<10>(p::MIN_BAUD_DIV as u64)),
            one3: Constant::new(bits::<3>(1)),
            one4: Constant::new(bits::<4>(1)),
            one10: Constant::new(bits::<10>(1)),
            one16: Constant::new(bits::<16>(1)),
            eight: Constant::new(bits::<4>(8)),
            nine: Constant::new(bits::<4>(9)),
            len7: Constant::new(bits::<3>(7)),
            idx6: Constant::new(bits::<3>(6)),
            idx7: Constant::new(bits::<3>(7)),
            msb8: c8(0x80),
            poly: c8(0x07),
            sync: c8(p::REQ_SYNC as u64),
            op_r: c8(p::OP_READ as u64),
            op_w: c8(p::OP_WRITE as u64),
            st_ok: c2(p::ST_OK as u64),
            st_crc: c2(p::ST_BAD_CRC as u64),
            st_frame: c2(p::ST_BAD_FRAME as u64),
            stop10: Constant::new(bits::<10>(0x200)),
            resp_sync10: Constant::new(bits::<10>(0x200 | (p::RESP_SYNC as u64) << 1)),
            div: Default::default(),
            div_m1: Default::default(),
            half_m1: Default::default(),
            timeout_m1: Default::default(),
            op: Default::default(),
            start_tx: Default::default(),
            tx_st: Default::default(),
            tx_data: Default::default(),
            tx_byte: Default::default(),
            rx_s1: DFFWithInit::new(true),
            rx_s2: DFFWithInit::new(true),
            rx_state: Default::default(),
            rx_cnt: Default::default(),
            rx_bit: Default::default(),
            rx_shift: Default::default(),
            rx_done: Default::default(),
            f_state: Default::default(),
            f_len: Default::default(),
            f_buf: Default::default(),
            f_crc: Default::default(),
            f_crc_n: Default::default(),
            f_idle: Default::default(),
            f_st: Default::default(),
            f_write: Default::default(),
            we_q: Default::default(),
            re_q: Default::default(),
            refused_q: Default::default(),
            tx_busy: Default::default(),
            tx_shift: Default::default(),
            tx_cnt: Default::default(),
            tx_nbits: Default::default(),
            tx_idx: Default::default(),
            tx_resp: Default::default(),
            tx_crc: Default::default(),
            tx_crc_n: Default::default(),
            tx_line: DFFWithInit::new(true),
        }
    }
}

impl Logic for UartBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rx_s1, rx_s2, rx_state, rx_cnt, rx_bit, rx_shift, rx_done, f_state, f_len,
            f_buf, f_crc, f_crc_n, f_idle, f_st, f_write, we_q, re_q, refused_q, tx_busy, tx_shift,
            tx_cnt, tx_nbits, tx_idx, tx_resp, tx_crc, tx_crc_n, tx_line
        );
        // ---- the divider: below 4 acts as 4
        self.div.next = self.baud_div.val();
        if self.baud_div.val() < self.min_div.val() {
            self.div.next = self.min_div.val();
        }
        self.div_m1.next = self.div.val() - self.one10.val();
        self.half_m1.next = (self.div.val() >> 1) - self.one10.val();
        self.timeout_m1.next = (bit_cast::<16, 10>(self.div.val()) << 6) - self.one16.val();

        // ---- receiver
        self.rx_s1.d.next = self.rx.val();
        self.rx_s2.d.next = self.rx_s1.q.val();
        self.rx_done.d.next = false;
        if self.rx_state.q.val() == self.s0.val() {
            if !self.rx_s2.q.val() {
                self.rx_state.d.next = self.s1.val();
                self.rx_cnt.d.next = self.half_m1.val();
            }
        } else if self.rx_state.q.val() == self.s1.val() {
            if !self.rx_cnt.q.val().any() {
                if !self.rx_s2.q.val() {
                    self.rx_state.d.next = self.s2.val();
                    self.rx_cnt.d.next = self.div_m1.val();
                    self.rx_bit.d.next = bits::<3>(0);
                } else {
                    self.rx_state.d.next = self.s0.val();
                }
            } else {
                self.rx_cnt.d.next = self.rx_cnt.q.val() - self.one10.val();
            }
        } else if self.rx_state.q.val() == self.s2.val() {
            if !self.rx_cnt.q.val().any() {
                self.rx_shift.d.next = self.rx_shift.q.val() >> 1;
                if self.rx_s2.q.val() {
                    self.rx_shift.d.next = (self.rx_shift.q.val() >> 1) | self.msb8.val();
                }
                self.rx_cnt.d.next = self.div_m1.val();
                if self.rx_bit.q.val().all() {
                    self.rx_state.d.next = bits::<2>(3);
                } else {
                    self.rx_bit.d.next = self.rx_bit.q.val() + self.one3.val();
                }
            } else {
                self.rx_cnt.d.next = self.rx_cnt.q.val() - self.one10.val();
            }
        } else if !self.rx_cnt.q.val().any() {
            self.rx_state.d.next = self.s0.val();
            self.rx_done.d.next = self.rx_s2.q.val();
        } else {
            self.rx_cnt.d.next = self.rx_cnt.q.val() - self.one10.val();
        }

        // ---- frame parser and bus master
        self.op.next = self.f_buf.q.val().get_bits::<8>(0);
        self.we_q.d.next = false;
        self.re_q.d.next = false;
        self.refused_q.d.next = false;
        if self.f_crc_n.q.val().any() {
            self.f_crc.d.next = self.f_crc.q.val() << 1;
            if self.f_crc.q.val().get_bit(7) {
                self.f_crc.d.next = (self.f_crc.q.val() << 1) ^ self.poly.val();
            }
            self.f_crc_n.d.next = self.f_crc_n.q.val() - self.one4.val();
        }
        self.start_tx.next = false;
        self.tx_st.next = self.f_st.q.val();
        self.tx_data.next = bits::<32>(0);
        if self.f_state.q.val() == self.s0.val() {
            if self.rx_done.q.val() & (self.rx_shift.q.val() == self.sync.val()) {
                self.f_state.d.next = self.s1.val();
                self.f_len.d.next = bits::<3>(0);
                self.f_crc.d.next = bits::<8>(0);
                self.f_crc_n.d.next = bits::<4>(0);
                self.f_idle.d.next = bits::<16>(0);
            }
        } else if self.f_state.q.val() == self.s1.val() {
            if self.rx_done.q.val() {
                self.f_idle.d.next = bits::<16>(0);
                if self.f_len.q.val() != self.len7.val() {
                    self.f_buf.d.next = (self.f_buf.q.val() >> 8)
                        | (bit_cast::<56, 8>(self.rx_shift.q.val()) << 48);
                    self.f_crc.d.next = self.f_crc.q.val() ^ self.rx_shift.q.val();
                    self.f_crc_n.d.next = self.eight.val();
                    self.f_len.d.next = self.f_len.q.val() + self.one3.val();
                } else {
                    self.f_write.d.next = self.op.val() == self.op_w.val();
                    self.f_st.d.next = self.st_frame.val();
                    if ((self.op.val() == self.op_r.val()) | (self.op.val() == self.op_w.val()))
                        & !self.f_buf.q.val().get_bits::<4>(20).any()
                    {
                        self.f_st.d.next = self.st_ok.val();
                    }
                    if self.rx_shift.q.val() != self.f_crc.q.val() {
                        self.f_st.d.next = self.st_crc.val();
                    }
                    self.f_state.d.next = self.s2.val();
                }
            } else if self.f_idle.q.val() == self.timeout_m1.val() {
                self.f_state.d.next = self.s0.val();
            } else {
                self.f_idle.d.next = self.f_idle.q.val() + self.one16.val();
            }
        } else if self.f_state.q.val() == self.s2.val() {
            if !self.tx_busy.q.val() {
                if (self.f_st.q.val() == self.st_ok.val()) & !self.f_write.q.val() {
                    self.re_q.d.next = true;
                    self.f_state.d.next = bits::<2>(3);
                } else {
                    self.we_q.d.next = self.f_st.q.val() == self.st_ok.val();
                    self.refused_q.d.next = self.f_st.q.val() != self.st_ok.val();
                    self.start_tx.next = true;
                    self.f_state.d.next = self.s0.val();
                }
            }
        } else if self.bus_rvalid.val() {
            self.start_tx.next = true;
            self.tx_st.next = self.st_ok.val();
            self.tx_data.next = self.bus_rdata.val();
            self.f_state.d.next = self.s0.val();
        }

        // ---- transmitter
        if self.tx_crc_n.q.val().any() {
            self.tx_crc.d.next = self.tx_crc.q.val() << 1;
            if self.tx_crc.q.val().get_bit(7) {
                self.tx_crc.d.next = (self.tx_crc.q.val() << 1) ^ self.poly.val();
            }
            self.tx_crc_n.d.next = self.tx_crc_n.q.val() - self.one4.val();
        }
        self.tx_byte.next = self.tx_resp.q.val().get_bits::<8>(0);
        if self.tx_idx.q.val() == self.idx6.val() {
            self.tx_byte.next = self.tx_crc.q.val();
        }
        if self.tx_busy.q.val() {
            if !self.tx_cnt.q.val().any() {
                if !self.tx_nbits.q.val().any() {
                    if self.tx_idx.q.val() == self.idx7.val() {
                        self.tx_busy.d.next = false;
                    } else {
                        if self.tx_idx.q.val() != self.idx6.val() {
                            self.tx_resp.d.next = self.tx_resp.q.val() >> 8;
                            self.tx_crc.d.next = self.tx_crc.q.val() ^ self.tx_byte.val();
                            self.tx_crc_n.d.next = self.eight.val();
                        }
                        self.tx_shift.d.next =
                            self.stop10.val() | (bit_cast::<10, 8>(self.tx_byte.val()) << 1);
                        self.tx_nbits.d.next = self.nine.val();
                        self.tx_cnt.d.next = self.div_m1.val();
                        self.tx_idx.d.next = self.tx_idx.q.val() + self.one3.val();
                    }
                } else {
                    self.tx_shift.d.next = self.stop10.val() | (self.tx_shift.q.val() >> 1);
                    self.tx_nbits.d.next = self.tx_nbits.q.val() - self.one4.val();
                    self.tx_cnt.d.next = self.div_m1.val();
                }
            } else {
                self.tx_cnt.d.next = self.tx_cnt.q.val() - self.one10.val();
            }
        }
        // idle, every transmitter register holds its start value (the
        // response word: the parser's candidate of this cycle), so a start
        // sets one bit; `start_tx` comes only while idle. (It used to load
        // the 40-bit word and the counters itself: the parser's decision
        // fanned out to them, the switch board's critical path at 100 MHz.)
        if !self.tx_busy.q.val() {
            self.tx_shift.d.next = self.resp_sync10.val();
            self.tx_nbits.d.next = self.nine.val();
            self.tx_cnt.d.next = self.div_m1.val();
            self.tx_idx.d.next = self.one3.val();
            self.tx_resp.d.next =
                (bit_cast::<40, 32>(self.tx_data.val()) << 8) | bit_cast::<40, 2>(self.tx_st.val());
            self.tx_crc.d.next = bits::<8>(0);
            self.tx_crc_n.d.next = bits::<4>(0);
        }
        if self.start_tx.val() {
            self.tx_busy.d.next = true;
        }
        self.tx_line.d.next = !self.tx_busy.q.val() | self.tx_shift.q.val().get_bit(0);

        // ---- clear
        if self.clear.val() {
            self.rx_state.d.next = self.s0.val();
            self.rx_done.d.next = false;
            self.f_state.d.next = self.s0.val();
            self.we_q.d.next = false;
            self.re_q.d.next = false;
            self.refused_q.d.next = false;
            self.tx_busy.d.next = false;
        }

        // ---- outputs
        self.tx.next = self.tx_line.q.val();
        self.bus_addr.next = self.f_buf.q.val().get_bits::<12>(8);
        self.bus_wdata.next = self.f_buf.q.val().get_bits::<32>(24);
        self.bus_we.next = self.we_q.q.val();
        self.bus_re.next = self.re_q.q.val();
        self.refused.next = self.refused_q.q.val();
    }
}
