//! RustHDL's own simulator, stepped by hand: each block's second opinion on
//! its RTL (a test per block against its golden model) and the `rusthdl`
//! engine of `ldcp bench`. A block says how its ports take one cycle of its
//! model's inputs and give back its model's outputs ([`HandStepped`]); the
//! clocking is here, once.

use ldcp_sim::ports::PortValue;
use rust_hdl::prelude::*;

/// A block whose ports mirror its golden model's inputs and outputs.
pub trait HandStepped: Block + Default {
    /// One cycle of the model's inputs.
    type Inputs;
    /// The model's outputs.
    type Outputs;
    /// Settle passes allowed per clock phase.
    const SETTLE_ITERS: usize = 200;
    /// Drives the clock port.
    fn set_clock(&mut self, high: bool);
    /// Drives every other input port.
    fn set_inputs(&mut self, i: &Self::Inputs);
    /// Reads the output ports.
    fn outputs(&self) -> Self::Outputs;
}

/// A block at power-up in RustHDL's simulator.
pub struct RustHdlSim<T> {
    pub(crate) uut: T,
}

impl<T: HandStepped> Default for RustHdlSim<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: HandStepped> RustHdlSim<T> {
    /// The block at power-up, connected.
    pub fn new() -> Self {
        Self::of(T::default())
    }

    /// `uut` (a block built with other parameters than its default's),
    /// ready to step.
    pub fn of(mut uut: T) -> Self {
        uut.connect_all();
        RustHdlSim { uut }
    }

    /// One clock cycle (inputs set and settled with the clock low, then the
    /// rising edge settled); the outputs after the edge, or `None` if
    /// RustHDL's simulation does not settle.
    pub fn step(&mut self, i: &T::Inputs) -> Option<T::Outputs> {
        self.uut.set_clock(false);
        self.uut.set_inputs(i);
        if !simulate(&mut self.uut, T::SETTLE_ITERS) {
            return None;
        }
        self.uut.set_clock(true);
        if !simulate(&mut self.uut, T::SETTLE_ITERS) {
            return None;
        }
        Some(self.uut.outputs())
    }
}

/// A model field driven onto a RustHDL input signal of the same name.
pub trait ToSignal<T> {
    /// The signal's value (truncated to its width, as a Verilog port is).
    fn to_signal(self) -> T;
}

/// A RustHDL output signal read into a model field of the same name.
pub trait FromSignal<T> {
    /// The field's value.
    fn from_signal(value: T) -> Self;
}

impl ToSignal<Bit> for bool {
    fn to_signal(self) -> Bit {
        self
    }
}

impl FromSignal<Bit> for bool {
    fn from_signal(value: Bit) -> Self {
        value
    }
}

// every other field type: its port bits (ldcp_sim::ports::PortValue),
// truncated to the signal's width as a Verilog port truncates
impl<V: PortValue, const N: usize> ToSignal<Bits<N>> for V {
    fn to_signal(self) -> Bits<N> {
        let mask = if N >= 64 { u64::MAX } else { (1u64 << N) - 1 };
        Bits::<N>::from(self.to_port() & mask)
    }
}

impl<V: PortValue, const N: usize> FromSignal<Bits<N>> for V {
    fn from_signal(value: Bits<N>) -> Self {
        V::from_port(value.to_u64())
    }
}

/// Implements [`HandStepped`] for a block from its model's port
/// declaration: `ldcp_sim::<block>_ports!(hand_stepped { Block<..> [generics],
/// Inputs, Outputs })` drives every declared input onto the RustHDL signal
/// of the same name and reads every declared output from its signal, so
/// the stepper never lists a port (see `ldcp_sim::ports`).
#[macro_export]
macro_rules! hand_stepped {
    (
        $block:ty [$($gen:tt)*], $inputs:ty, $outputs:ty $(, settle $settle:expr)? ;
        inputs [$($i:ident)*] outputs [$($o:ident)*]
    ) => {
        impl<$($gen)*> $crate::stepper::HandStepped for $block {
            type Inputs = $inputs;
            type Outputs = $outputs;
            $( const SETTLE_ITERS: usize = $settle; )?

            fn set_clock(&mut self, high: bool) {
                self.clock.next = rust_hdl::prelude::Clock::from(high);
            }

            fn set_inputs(&mut self, i: &Self::Inputs) {
                $( self.$i.next = $crate::stepper::ToSignal::to_signal(i.$i); )*
            }

            fn outputs(&self) -> Self::Outputs {
                Self::Outputs {
                    $( $o: $crate::stepper::FromSignal::from_signal(self.$o.val()), )*
                }
            }
        }
    };
}
