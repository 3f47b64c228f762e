//! RustHDL's own simulator, stepped by hand: each block's second opinion on
//! its RTL (a test per block against its golden model) and the `rusthdl`
//! engine of `ldcp bench`. A block says how its ports take one cycle of its
//! model's inputs and give back its model's outputs ([`HandStepped`]); the
//! clocking is here, once.

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
        let mut uut = T::default();
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
