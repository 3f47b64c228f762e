//! The RustHDL blocks of the LDCP SmartNIC and switch port, and the
//! generation of their Verilog.
//!
//! Each block lives in its own file with its doc header (what it
//! implements, latency, reset, fixed point); its golden model lives in the
//! file of the same stem in `ldcp-sim`. The flow (`ldcp-flow`'s registry) lists them.

/// `Self { <the fields given>, <every field listed>: Default::default() }`:
/// a block's constructor that gives its constants, ROMs and tables and
/// starts every register, signal and sub-block at its default.
macro_rules! with_defaults {
    ($($f:ident: $v:expr,)* ; $($d:ident),* $(,)?) => {
        Self { $($f: $v,)* $($d: Default::default(),)* }
    };
}

/// A board core: [`crate::board_shell::BoardShell`] (power-on sequencer, UART bridge, LEDs)
/// around a NIC `$sys` (with `new(BuildId)` and the register bus), its
/// bus observed; `$name` with the doc `$doc`. The ULX3S's
/// ([`crate::system_board`]) and the Alchitry Cu NIC's
/// ([`crate::cu_board`]) are this one block around their systems.
macro_rules! shell_board_core {
    ($(#[$doc:meta])* $name:ident, $sys:ty) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            /// The core clock.
            pub clock: Signal<In, Clock>,
            /// The UART line from the host, asynchronous.
            pub uart_rx: Signal<In, Bit>,
            /// Clocks per UART bit (the board's top ties it).
            pub cfg_bit_cycles: Signal<In, Bits<10>>,
            /// Cycles the activity LED stays lit after bridge traffic (the board ties it).
            pub cfg_led_hold_cycles: Signal<In, Bits<HB>>,
            /// Power-on hold (a reset button, a PLL not locked); asynchronous.
            pub reset_hold: Signal<In, Bit>,
            /// The UART line to the host.
            pub uart_tx: Signal<Out, Bit>,
            /// LED: the power-on sequence is over.
            pub led_ready: Signal<Out, Bit>,
            /// LED: bridge traffic within the hold.
            pub led_activity: Signal<Out, Bit>,
            /// LED: a frame was refused since the last CORE_RESET.
            pub led_error: Signal<Out, Bit>,
            /// Observation: the bus address.
            pub obs_bus_addr: Signal<Out, Bits<12>>,
            /// Observation: the bus write data.
            pub obs_bus_wdata: Signal<Out, Bits<32>>,
            /// Observation: the bus write strobe.
            pub obs_bus_we: Signal<Out, Bit>,
            /// Observation: the bus read strobe.
            pub obs_bus_re: Signal<Out, Bit>,
            /// Observation: the NIC's read data.
            pub obs_bus_rdata: Signal<Out, Bits<32>>,
            /// Observation: the NIC's read-valid.
            pub obs_bus_rvalid: Signal<Out, Bit>,
            shell: BoardShell,
            sys: $sys,
        }

        impl $name {
            /// The board core with its system stamped with `build`.
            pub fn new(build: BuildId) -> Self {
                $name {
                    clock: Default::default(),
                    uart_rx: Default::default(),
                    cfg_bit_cycles: Default::default(),
                    cfg_led_hold_cycles: Default::default(),
                    reset_hold: Default::default(),
                    uart_tx: Default::default(),
                    led_ready: Default::default(),
                    led_activity: Default::default(),
                    led_error: Default::default(),
                    obs_bus_addr: Default::default(),
                    obs_bus_wdata: Default::default(),
                    obs_bus_we: Default::default(),
                    obs_bus_re: Default::default(),
                    obs_bus_rdata: Default::default(),
                    obs_bus_rvalid: Default::default(),
                    shell: Default::default(),
                    sys: <$sys>::new(build),
                }
            }
        }

        impl Default for $name {
            /// GIT_HASH 0, CAPS.DIRTY set (tests, the flow's block).
            fn default() -> Self {
                $name::new(BuildId::UNSTAMPED)
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                self.shell.clock.next = self.clock.val();
                self.sys.clock.next = self.clock.val();
                self.shell.uart_rx.next = self.uart_rx.val();
                self.shell.cfg_bit_cycles.next = self.cfg_bit_cycles.val();
                self.shell.cfg_led_hold_cycles.next = self.cfg_led_hold_cycles.val();
                self.shell.reset_hold.next = self.reset_hold.val();
                self.shell.bus_rdata.next = self.sys.bus_rdata.val();
                self.shell.bus_rvalid.next = self.sys.bus_rvalid.val();
                self.sys.bus_addr.next = self.shell.bus_addr.val();
                self.sys.bus_wdata.next = self.shell.bus_wdata.val();
                self.sys.bus_we.next = self.shell.bus_we.val();
                self.sys.bus_re.next = self.shell.bus_re.val();
                self.uart_tx.next = self.shell.uart_tx.val();
                self.led_ready.next = self.shell.led_ready.val();
                self.led_activity.next = self.shell.led_activity.val();
                self.led_error.next = self.shell.led_error.val();
                self.obs_bus_addr.next = self.shell.bus_addr.val();
                self.obs_bus_wdata.next = self.shell.bus_wdata.val();
                self.obs_bus_we.next = self.shell.bus_we.val();
                self.obs_bus_re.next = self.shell.bus_re.val();
                self.obs_bus_rdata.next = self.sys.bus_rdata.val();
                self.obs_bus_rvalid.next = self.sys.bus_rvalid.val();
            }
        }
    };
}

pub mod ack_generator;
pub mod ack_generator_seq;
pub mod board;
pub mod board_shell;
pub mod coord_decision;
pub mod counter_bank;
pub mod cu_board;
pub mod end_con;
pub mod fast_cnp;
pub mod fast_start_marker;
pub mod fast_start_marker_seq;
pub mod generate;
pub mod mul;
pub mod nic_core;
pub mod nic_cu;
pub mod nic_system;
pub mod pacing_timer;
pub mod pacing_timer_seq;
#[rustfmt::skip]
pub mod ext_regfile;
pub mod ext_regfile_cu;
#[rustfmt::skip]
pub mod regfile;
pub mod stepper;
pub mod switch_board;
#[rustfmt::skip]
pub mod switch_regfile;
pub mod system_board;
pub mod table_sweep;
pub mod tunnel_egress;
pub mod tunnel_ingress;
pub mod uart_bridge;
pub mod verilog;
pub mod window_engine;
pub mod window_engine_seq;
pub mod wred_ecn;
