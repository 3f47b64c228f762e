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

    /// [`NicSystemModel::drain_bus`]: the loop stopped, the core's generator
    /// stopped, AG_TIMEOUT 0 (every held ACK flushed), then idle cycles.
    fn drain_bus(&self) -> Vec<BusIn> {
        NicSystemModel::drain_bus(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the Cu board's: the ULX3S system's loop, left running by a host,
    /// is stopped by the drain's writes (seed 2 of `ldcp cosim` kept 3 of
    /// its sender's ops visiting through 95,522 idle cycles).
    #[test]
    fn system_board_drain_stops_a_loop_left_running() {
        let left = crate::board_shell::loop_left_running_drains(NicSystemModel::new_4k(0, true));
        assert!(
            !left.is_empty(),
            "the loop keeps the core busy on idle line alone"
        );
    }
}
