//! The golden model of the Alchitry Cu NIC board core
//! (`hdl/src/cu_board.rs`): the board shell ([`crate::board_shell`]:
//! power-on sequencer, UART bridge, LEDs) around the Cu NIC
//! ([`crate::nic_cu::NicCuModel`]).

use crate::board_shell::{BusCore, ShellBoard};
use crate::nic_cu::NicCuModel;
use ldcp_regmap::model::{BusIn, BusOut};

/// The Cu NIC board core.
pub type CuBoardModel = ShellBoard<NicCuModel>;

impl BusCore for NicCuModel {
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
        NicCuModel::in_flight(self)
    }

    /// Idle cycles only (the bridge cannot stop a generator run or shorten
    /// the ACK generator's timeout the way [`NicCuModel::drain_bus`]
    /// does): its idle cycles, plus the longest timeout (AG_TIMEOUT is 16
    /// bits) and eight passes of the ACK generator's scanner.
    fn drain_cycles(&self) -> usize {
        self.drain_bus().len() + (1 << 16) + 8 * (1 << crate::nic_core::FLOW_BITS)
    }
}
