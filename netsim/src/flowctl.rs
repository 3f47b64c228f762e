//! Hop-by-hop flow control for scenario 001-C (draft 001 §4.1, COMPANION.md
//! G12-G18): PFC (pause a link's priority) against ARN (ask the upstream
//! neighbour to halt only the matching traffic: a service, a flow or a
//! priority).
//!
//! The rules, as COMPANION.md chooses them:
//! - Trigger (G17): ingress-port accounting. A switch counts the data bytes
//!   that arrived on each of its ports and are still inside it (in an
//!   egress queue, in a side queue, not yet serialized). Above `xoff` it
//!   asserts flow control toward the upstream neighbour on that port;
//!   below `xon` it releases.
//! - PFC: a PAUSE (on) at XOFF, a PAUSE (off) at XON; the upstream port
//!   stops sending data (control packets, ACKs, go on: a higher priority).
//!   Every node obeys it, hosts included.
//! - ARN (G12-G16): the congested node names the key with the largest
//!   backlog from that port (service: the flow's SRv6 service; flow: the
//!   flow; priority: the traffic class, so every data packet) and a Time
//!   (us); it re-sends at Time/2 while above XOFF (a key that has become
//!   the largest is named too) and sends Time = 0 for every named key
//!   below XON. The upstream node halts the key on its port toward the
//!   congested node until Time expires or a Time = 0 arrives: the key's
//!   packets wait in a per-(port, key) side queue (G18), the rest of the
//!   port's traffic goes on. Each ARN travels as its bytes
//!   (`ldcp_sim::wire::arn`), parsed at the receiver; the key is read back
//!   from the parsed message.
//! - Simplifications: a halt applies to the key's packets that arrive
//!   after it (they go to the side queue); those already in the port's
//!   FIFO leave in turn (hardware would skip them by an eligible bit,
//!   G18). Side-queued packets stay in the port's buffer, so the WRED/ECN
//!   block counts them; the watched queue series counts the FIFO only.
//!   A released side queue joins the FIFO whole.
//! - Propagation (G17): a node's halted backlog counts in its own ingress
//!   accounting, so it crosses that node's XOFF and is passed one more hop,
//!   by ARN if the upstream node speaks ARN (the WAN's nodes) and by PFC if
//!   not (the ingress PE toward the DC gateway, the gateway toward hosts).

use ldcp_sim::wire::arn::{Arn, ArnMode};
use ldcp_sim::wire::FlowKey;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The flow control a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FcMode {
    /// None: a full buffer drops (the lossy baseline).
    None,
    /// PFC on every link (port + priority).
    Pfc,
    /// ARN in the WAN, in one of its modes; PFC where the upstream node
    /// does not speak ARN.
    Arn(#[serde(serialize_with = "mode_name")] ArnMode),
}

fn mode_name<S: serde::Serializer>(m: &ArnMode, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match m {
        ArnMode::Service => "service",
        ArnMode::Flow => "flow",
        ArnMode::Priority => "priority",
    })
}

/// The traffic class every data packet of the scenario uses (one priority
/// for both services, as 001-C sets it up).
pub const DATA_PRIORITY: u32 = 3;

/// The UDP source port of flow `f` in an ARN's flow key (RoCEv2 entropy):
/// the flow is read back from it.
pub const FLOW_PORT_BASE: u16 = 0xc000;

/// Flow control's parameters.
#[derive(Clone, Debug)]
pub struct FcConfig {
    /// The mode.
    pub mode: FcMode,
    /// Assert above this many bytes from one ingress port.
    pub xoff_bytes: u64,
    /// Release below this many.
    pub xon_bytes: u64,
    /// ARN's Time, us (G15).
    pub time_us: u32,
    /// Per node: it speaks ARN (the WAN's nodes).
    pub arn_nodes: Vec<bool>,
}

/// What flow control did in a run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FcStats {
    /// PAUSE (on) frames sent.
    pub pause_sent: u64,
    /// PAUSE (off) frames sent.
    pub resume_sent: u64,
    /// ARNs with a Time > 0 sent (first ones and refreshes).
    pub arn_halt_sent: u64,
    /// ARNs with Time = 0 sent.
    pub arn_resume_sent: u64,
    /// Time ports spent paused by PFC, summed over ports, ps.
    pub paused_ps: u64,
    /// Of it, host ports (the senders' NICs), ps.
    pub host_paused_ps: u64,
    /// Time keys spent halted by ARN, summed over (port, key), ps.
    pub halted_ps: u64,
    /// Packets that waited in a side queue.
    pub side_queued_pkts: u64,
    /// The most bytes one switch held at once, per node (hosts 0).
    pub peak_node_bytes: Vec<u64>,
}

/// One halted key on a port.
pub struct Halt {
    /// The key.
    pub key: u64,
    /// Halted until, ps.
    pub until: u64,
    /// Since, ps.
    pub since: u64,
    /// Its packets, in arrival order.
    pub queue: std::collections::VecDeque<crate::packet::Pkt>,
}

/// What a congested node has asserted on one ingress port.
#[derive(Clone, Debug, Default)]
pub struct Asserted {
    /// PFC: a PAUSE (on) is out.
    pub pfc: bool,
    /// ARN: the keys named (and not yet released by a Time = 0).
    pub keys: Vec<u64>,
    /// A refresh is scheduled.
    pub refresh_pending: bool,
}

/// The state of flow control in a run.
pub struct FlowControl {
    /// Parameters.
    pub cfg: FcConfig,
    /// Counters.
    pub stats: FcStats,
    /// Per arrival port: data bytes it brought that are still in its node.
    pub ing: Vec<u64>,
    /// Per (arrival port, key): the same, by key.
    pub ing_key: HashMap<(u32, u64), u64>,
    /// Per arrival port: what its node asserted upstream.
    pub asserted: Vec<Asserted>,
    /// Per node: bytes held.
    pub node_bytes: Vec<u64>,
    /// ARN messages in flight, by the index a control packet carries.
    pub arn_wire: Vec<Vec<u8>>,
}

impl FlowControl {
    /// Flow control on a network of `ports` ports and `nodes` nodes.
    pub fn new(cfg: FcConfig, ports: usize, nodes: usize) -> Result<Self, String> {
        if cfg.xon_bytes > cfg.xoff_bytes {
            return Err(format!(
                "XON = {} bytes is above XOFF = {} bytes: it must be at most XOFF",
                cfg.xon_bytes, cfg.xoff_bytes
            ));
        }
        if cfg.time_us == 0 {
            return Err("ARN Time = 0 us would resume at once: it must be at least 1".into());
        }
        if cfg.arn_nodes.len() != nodes {
            return Err(format!(
                "ARN capability given for {} nodes; the network has {nodes}",
                cfg.arn_nodes.len()
            ));
        }
        Ok(FlowControl {
            cfg,
            stats: FcStats {
                peak_node_bytes: vec![0; nodes],
                ..FcStats::default()
            },
            ing: vec![0; ports],
            ing_key: HashMap::new(),
            asserted: vec![Asserted::default(); ports],
            node_bytes: vec![0; nodes],
            arn_wire: Vec::new(),
        })
    }

    /// The key of a packet of flow `flow` in service `service` under the
    /// run's mode (PFC and none: the priority).
    pub fn key(&self, flow: u32, service: u32) -> u64 {
        match self.cfg.mode {
            FcMode::Arn(ArnMode::Flow) => flow as u64,
            FcMode::Arn(ArnMode::Service) => service as u64,
            _ => DATA_PRIORITY as u64,
        }
    }

    /// The key with the most bytes from arrival port `p` (ties: the
    /// smallest key, so that a run is a function of its seed).
    pub fn largest_key(&self, p: u32) -> Option<u64> {
        self.ing_key
            .iter()
            .filter(|((q, _), &b)| *q == p && b > 0)
            .max_by_key(|((_, k), &b)| (b, std::cmp::Reverse(*k)))
            .map(|((_, k), _)| *k)
    }

    /// The ARN for `key` with `time_us`, as bytes (G12-G15): service mode,
    /// the outer key (IPv6, protocol 41, END.CON to the service's final
    /// segment, ports 0: G5); flow mode, the inner five-tuple with the
    /// flow's entropy port; priority mode, the traffic class.
    pub fn encode(&self, key: u64, time_us: u32, metric: u8) -> Vec<u8> {
        let arn = match self.cfg.mode {
            FcMode::Arn(ArnMode::Service) => Arn::for_flow(
                FlowKey {
                    protocol: 41,
                    src_port: 0,
                    dst_port: 0,
                    src: IpAddr::V6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 1)),
                    dst: IpAddr::V6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0x5e, key as u16)),
                },
                metric,
                time_us,
            ),
            FcMode::Arn(ArnMode::Flow) => Arn::for_flow(
                FlowKey {
                    protocol: 17,
                    src_port: u16::try_from(key)
                        .ok()
                        .and_then(|k| FLOW_PORT_BASE.checked_add(k))
                        .expect("a flow key of at most 0x3fff: the entropy port's room (001-C has three flows)"),
                    dst_port: 4791,
                    src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                    dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
                },
                metric,
                time_us,
            ),
            _ => Arn::for_priority(key as u32, metric, time_us).expect("a class of 0..=7"),
        };
        arn.encode().expect("the simulator's ARNs are well formed")
    }

    /// An ARN's key and Time, parsed from its bytes.
    pub fn decode(&self, bytes: &[u8]) -> Result<(u64, u32), String> {
        let a = Arn::parse(bytes).map_err(|e| format!("an ARN in the simulator: {e}"))?;
        let time = a.time_us.ok_or("an ARN without Time")?;
        let key = match (self.cfg.mode, a.flow, a.priority) {
            (FcMode::Arn(ArnMode::Service), Some(k), _) => match k.dst {
                IpAddr::V6(d) => d.segments()[7] as u64,
                IpAddr::V4(_) => return Err("a service key of the wrong family".into()),
            },
            (FcMode::Arn(ArnMode::Flow), Some(k), _) => {
                k.src_port
                    .checked_sub(FLOW_PORT_BASE)
                    .ok_or("a flow port below the base")? as u64
            }
            (_, _, Some(p)) => p as u64,
            _ => return Err("an ARN without the parameters of its mode".into()),
        };
        Ok((key, time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fc(mode: FcMode) -> FlowControl {
        FlowControl::new(
            FcConfig {
                mode,
                xoff_bytes: 1000,
                xon_bytes: 500,
                time_us: 100,
                arn_nodes: vec![false; 3],
            },
            4,
            3,
        )
        .unwrap()
    }

    #[test]
    fn arns_round_trip_through_their_bytes_in_every_mode() {
        for (mode, key) in [
            (ArnMode::Service, 7u64),
            (ArnMode::Flow, 1234),
            (ArnMode::Priority, 3),
        ] {
            let f = fc(FcMode::Arn(mode));
            for time in [0, 1, 500] {
                let b = f.encode(key, time, 200);
                assert_eq!(f.decode(&b).unwrap(), (key, time), "{mode:?}");
            }
        }
        // keys by mode
        assert_eq!(fc(FcMode::Arn(ArnMode::Flow)).key(9, 2), 9);
        assert_eq!(fc(FcMode::Arn(ArnMode::Service)).key(9, 2), 2);
        assert_eq!(fc(FcMode::Pfc).key(9, 2), DATA_PRIORITY as u64);
    }

    #[test]
    fn the_largest_key_of_a_port_is_named() {
        let mut f = fc(FcMode::Arn(ArnMode::Flow));
        f.ing_key.insert((1, 5), 300);
        f.ing_key.insert((1, 6), 900);
        f.ing_key.insert((2, 7), 5000);
        assert_eq!(f.largest_key(1), Some(6));
        f.ing_key.insert((1, 4), 900);
        assert_eq!(f.largest_key(1), Some(4), "ties go to the smallest key");
        assert_eq!(f.largest_key(3), None);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let e = FlowControl::new(
            FcConfig {
                mode: FcMode::Pfc,
                xoff_bytes: 10,
                xon_bytes: 20,
                time_us: 1,
                arn_nodes: vec![],
            },
            1,
            0,
        )
        .err()
        .unwrap();
        assert!(e.contains("XON = 20") && e.contains("XOFF = 10"), "{e}");
    }
}
