//! The golden model of the whole-system board core
//! (`hdl/src/system_board.rs`, the ULX3S bitstream): the board shell
//! ([`crate::board_shell`]: power-on sequencer, UART bridge, LEDs) around
//! the NIC system ([`crate::nic_system::NicSystemModel`]: the NIC core, the
//! pacing timer, fast-start marker, ACK generator and WRED/ECN port).

use crate::board_shell::{BusCore, ShellBoard};
use crate::nic_system::NicSystemModel;
use ldcp_regmap::model::{BusIn, BusOut};

/// The ULX3S board core.
pub type SystemBoardModel = ShellBoard<NicSystemModel>;

impl BusCore for NicSystemModel {
    fn bus_out(&self) -> BusOut {
        let o = self.outputs();
        BusOut {
            rdata: o.bus_rdata,
            rvalid: o.bus_rvalid,
        }
    }

    fn bus_tick(&mut self, bus: &BusIn) {
        self.tick(bus);
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        NicSystemModel::in_flight(self)
    }

    /// Idle cycles only (the bridge cannot stop a generator run or shorten
    /// the ACK generator's timeout the way [`NicSystemModel::drain_bus`]
    /// does): its idle cycles, plus the longest timeout (AG_TIMEOUT is 16
    /// bits) and a pass of the ACK generator's scanner.
    fn drain_cycles(&self) -> usize {
        self.drain_bus().len() + (1 << 16) + (1 << self.flow_bits())
    }
}
