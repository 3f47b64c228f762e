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

    /// [`NicCuModel::drain_bus`]: the loop stopped, the core's generator
    /// stopped, AG_TIMEOUT 0 (every held ACK flushed), then idle cycles.
    fn drain_bus(&self) -> Vec<BusIn> {
        NicCuModel::drain_bus(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop a host left running is stopped by the drain's writes (it was
    /// the "not drained" of `ldcp run` at seed 1: FIFO events, a flow
    /// command and an update kept busy by the loop through 91,404 idle
    /// cycles); idle line alone leaves it running.
    #[test]
    fn cu_board_drain_stops_a_loop_left_running() {
        let left = crate::board_shell::loop_left_running_drains(NicCuModel::new(0, true));
        assert!(
            !left.is_empty(),
            "the loop keeps the core busy on idle line alone"
        );
    }
}
