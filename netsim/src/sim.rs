//! The discrete-event core: integer picoseconds, one heap of events ordered
//! by (time, insertion number), so ties are broken by insertion order and a
//! run is a pure function of its seed and options.
//!
//! Structure (htsim's speed tricks, `NETSIM.md` §2): a link direction is a
//! [`Port`] with a priority control queue (ACK, NAK), a data queue, one
//! packet in serialization and a pipe of packets in propagation, and it
//! keeps **one pending event for its pipe's head**, so the event set grows
//! with links and timers, not with packets in flight. Every flow carries
//! its route, computed once (ECMP by flow hash); packets are small `Copy`
//! values moved between queues.
//!
//! A switch egress port's data queue is admitted by its WRED/ECN block
//! ([`crate::engine::WredBackend`]): every arriving data packet is one step
//! of the block, after a step carrying the bytes of data packets whose
//! serialization ended since the last one (the block's drain), so the
//! block's occupancy is exactly the bytes admitted and not yet sent, and
//! the packet joins the queue (or is dropped) at its arrival. Arrivals are
//! presented one by one in time order, however many arrive in one clock of
//! the block (a switch has a pipeline per ingress port; the one-per-clock
//! limit of a single block would otherwise hold packets outside the
//! buffer).
//! Control packets bypass the block (a strict-priority queue of their own,
//! as the HPCC simulator gives ACKs high priority).

use crate::cc::{self, FlowCc};
use crate::config::{Cc, NetConfig};
use crate::engine::{EngineBackend, EngineEvent, EngineUpdate, Hardware, WredBackend};
use crate::stats::{Stats, Watch};
use crate::topo::Topology;
use ldcp_sim::ack_generator::{self as ag, AckFlow};
use ldcp_sim::fast_start_marker::{self as fs, FsFlow, Stage};
use ldcp_sim::pacing_timer::PacedFlow;
use ldcp_sim::window_engine::CW_ONE;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A packet's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Data.
    Data,
    /// A cumulative ACK (carrying ECN-Echo and n).
    Ack,
    /// A NAK (go back to `psn`).
    Nak,
    /// DCQCN's congestion notification for a CE packet the receiver
    /// discarded (an in-order one is echoed on its ACK).
    Cnp,
    /// A Fast CNP from a congested P node (draft 001, [`crate::wan`]).
    FastCnp,
    /// A PFC frame to the upstream neighbour (`psn` 1: pause, 0: resume).
    Pause,
    /// An ARN to the upstream neighbour (`psn`: its bytes' index in
    /// [`crate::flowctl::FlowControl::arn_wire`]).
    Arn,
    /// Draft 002's notification (`n`: its type, `psn`: its target node),
    /// back along the path `path` of the data packet that caused it.
    Notify,
}

/// A packet.
#[derive(Clone, Copy, Debug)]
pub struct Pkt {
    /// Flow index.
    pub flow: u32,
    /// Kind.
    pub kind: Kind,
    /// Data: its PSN; ACK/NAK: the next expected PSN.
    pub psn: u32,
    /// Bytes on the wire.
    pub bytes: u32,
    /// ECN codepoint (data).
    pub ecn: u8,
    /// Last packet of the message (data).
    pub last: bool,
    /// ECN-Echo (ACK).
    pub ece: bool,
    /// Packets acknowledged (ACK/NAK).
    pub n: u8,
    /// Next hop index on the flow's route.
    pub hop: u8,
    /// Data inside the WAN tunnel: the outer header's ECN field (the
    /// switches mark and drop by it); `None` outside.
    pub outer: Option<u8>,
    /// Data: a P node sent a Fast CNP for this packet.
    pub fcnp: bool,
    /// Data: the faulty node set its outer field to CE.
    pub faulted: bool,
    /// Data inside a switch: the port it arrived on (flow control's
    /// ingress accounting; `u32::MAX` elsewhere).
    pub from_port: u32,
    /// Data: when its sender put it on the wire, ps.
    pub t_sent: u64,
    /// Its flow's path (0: the flow's ECMP route; others are re-routes,
    /// [`crate::coord`]); control packets go back along it.
    pub path: u16,
    /// Data: draft 002's tag, the CC indicator.
    pub cc: bool,
    /// Data: draft 002's tag, the AR point's node ([`crate::coord::AR_NONE`]:
    /// none).
    pub ar: u32,
    /// Data: CE-marked while a light path existed ([`crate::coord`]).
    pub light_mark: bool,
}

impl Pkt {
    /// A control packet (ACK, NAK, CNP, Fast CNP, PFC, ARN) of `flow`
    /// (`u32::MAX`: a link's own) on its route's hop `hop`.
    pub(crate) fn control(flow: u32, kind: Kind, psn: u32, bytes: u32, hop: u8) -> Pkt {
        Pkt {
            flow,
            kind,
            psn,
            bytes,
            ecn: 0,
            last: false,
            ece: false,
            n: 0,
            hop,
            outer: None,
            fcnp: false,
            faulted: false,
            from_port: u32::MAX,
            t_sent: 0,
            path: 0,
            cc: false,
            ar: crate::coord::AR_NONE,
            light_mark: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ev {
    Arrive(u32),
    TxDone(u32),
    EngineOut(u32),
    Grant(u32),
    Rto(u32),
    FlowStart(u32),
    Wake(u32),
    RateTimer(u32),
    DecreaseCheck(u32),
    AckTimer(u32),
    FreeSlot(u32, u32),
    Sample,
    HaltExpire(u32),
    ArnRefresh(u32),
    NotifyCheck(u32),
}

/// One direction of a link.
pub struct Port {
    /// The node it leaves from.
    pub from: u32,
    /// The node it reaches.
    pub to: u32,
    /// The opposite direction's port.
    pub peer: u32,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// Propagation delay, ps.
    pub delay_ps: u64,
    ps_per_byte_x1000: u64,
    ctrl: VecDeque<Pkt>,
    data: VecDeque<Pkt>,
    /// Data bytes queued (not yet in serialization).
    pub data_bytes: u64,
    pub(crate) sending: Option<Pkt>,
    pipe: VecDeque<(u64, Pkt)>,
    wred: Option<WredPort>,
    /// Data bytes sent.
    pub tx_data_bytes: u64,
    /// Largest data occupancy seen (queued + in the WRED block), bytes.
    pub max_queue_bytes: u64,
    /// Data packets its WRED/ECN block dropped (Eq. 3 or overflow).
    pub dropped: u64,
    /// Of those, packets whose inner header was ECN-capable (a tunnel in
    /// compatibility mode hid it under a Not-ECT outer).
    pub dropped_inner_ect: u64,
    /// Data packets it marked CE.
    pub marked: u64,
    /// PFC: data paused by the downstream neighbour, since this time (ps).
    pub paused_since: Option<u64>,
    /// ARN: keys halted by the downstream neighbour, each with its side
    /// queue (G18).
    pub halts: Vec<crate::flowctl::Halt>,
}

struct WredPort {
    hw: Box<dyn WredBackend>,
    /// Bytes sent since the last step.
    drain: u64,
}

/// A host's NIC.
pub struct Host {
    port: u32,
    active: VecDeque<u32>,
    engine: Option<Box<dyn EngineBackend>>,
    slot_flow: Vec<u32>,
    /// Free table entries, oldest freed first (an entry is freed only when
    /// its last flow has nothing left in the engine).
    free_slots: VecDeque<u32>,
    waiting: VecDeque<u32>,
    engine_next_cycle: u64,
    wake_at: u64,
    updates: Vec<EngineUpdate>,
}

/// A flow.
pub struct Flow {
    /// Sender host.
    pub src: u32,
    /// Receiver host.
    pub dst: u32,
    /// Packets in the message (`u64::MAX`: long-lived).
    pub size_pkts: u64,
    /// Bytes in the message (payload).
    pub size_bytes: u64,
    /// Completion (last packet acknowledged), ps.
    pub finish_ps: Option<u64>,
    pub(crate) fwd: Vec<u32>,
    pub(crate) rev: Vec<u32>,
    /// Its ECMP hash (path 0's).
    pub(crate) hash: u64,
    /// Paths 1.. (draft 002's re-routes): forward and reverse routes and
    /// the ECMP hash of their continuation.
    pub(crate) alt: Vec<(Vec<u32>, Vec<u32>, u64)>,
    /// The path its host sends on.
    pub(crate) cur_path: u16,
    slot: u32,
    started: bool,
    /// Next packet index to send.
    pub nxt: u64,
    /// Packets acknowledged in order.
    pub una: u64,
    /// Highest index sent + 1.
    pub max_sent: u64,
    fs: FsFlow,
    ack: AckFlow,
    /// LDCP: the cw the engine last reported (UQ12.20); the only window the
    /// sender uses in its stable stage.
    pub cw_raw: u32,
    /// LDCP: the fast-start SET is in the engine; no stable-stage send
    /// until its update comes out.
    awaiting_set: bool,
    /// When the flow arrived (FCT is measured from here), ps.
    pub arrival_ps: u64,
    /// LDCP: the smallest cw reported.
    pub min_cw_raw: u32,
    pace: PacedFlow,
    credit: bool,
    grant_pending: bool,
    /// DCTCP / DCQCN state.
    pub cc: FlowCc,
    rto_at: u64,
    rto_pending: bool,
    ack_timer_pending: bool,
    /// Data packets sent (retransmissions included).
    pub sent_pkts: u64,
    last_cnp_ps: Option<u64>,
    /// Retransmitted packets.
    pub retx_pkts: u64,
    /// Timeouts.
    pub timeouts: u32,
    /// Cross traffic: a constant bit rate, one packet every this many ps
    /// (0: the run's congestion control).
    pub cbr_gap_ps: u64,
    /// The service (SRv6 policy) it belongs to: ARN's service-mode key.
    pub service: u32,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Eq. 3: Not-ECT at q >= K.
    Wred,
    /// Did not fit the buffer.
    Overflow,
    /// At the receiver: out of order (go-back-N) or a duplicate.
    Receiver,
    /// At a tunnel's egress PE (RFC 6040: a Not-ECT inner under a CE outer).
    TunnelEgress,
}

/// The simulator.
pub struct Sim {
    now: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    /// Parameters.
    pub cfg: NetConfig,
    /// The network.
    pub topo: Topology,
    /// Ports.
    pub ports: Vec<Port>,
    pub(crate) node_ports: Vec<Vec<u32>>,
    hosts: Vec<Host>,
    /// Flows.
    pub flows: Vec<Flow>,
    pub(crate) dist: Vec<Option<Vec<u16>>>,
    /// What the run measured.
    pub stats: Stats,
    /// Events processed.
    pub events: u64,
    /// The run's seed.
    pub seed: u64,
    cycle_ps: u64,
    hw_name: &'static str,
    /// When set, every engine input and output per host is logged (tests).
    pub engine_log: Option<Vec<EngineLog>>,
    /// When set, every switch decision is logged: (time ps, port, flow,
    /// PSN, decision, outgoing ECN) (tests).
    pub wred_log: Option<Vec<WredLog>>,
    /// Watched ports are sampled up to this time, ps.
    pub sample_until: u64,
    /// Draft 001's tunnel and P nodes, if the network has a WAN.
    pub wan: Option<crate::wan::Wan>,
    /// First reactions after a time (scenario 001-B).
    pub probe: Probe,
    /// Hop-by-hop flow control (scenario 001-C), if any.
    pub fc: Option<crate::flowctl::FlowControl>,
    /// Per flow: (time on the wire, one-way delay) of each data packet its
    /// receiver accepted, ps (when set; time held at a paused NIC is not
    /// in it).
    pub latency: Option<Vec<Vec<(u64, u64)>>>,
    /// Draft 002's coordinated congestion management, if the run has it.
    pub coord: Option<crate::coord::Coord>,
}

/// The first congestion signals and window cut after `from_ps` (scenario
/// 001-B): the first CE mark at port `port` on a packet of a responsive
/// flow (not cross traffic), the first Fast CNP and the
/// first ECN-Echo to reach a sender, the first cw an LDCP engine lowered.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Probe {
    /// Watch from this time, ps (`u64::MAX`: off).
    pub from_ps: u64,
    /// The port whose marks count.
    pub port: u32,
    /// First CE mark there, ps.
    pub first_mark_ps: Option<u64>,
    /// The port's occupancy when it made that mark, bytes (the marked
    /// packet waits behind it on its way to the receiver).
    pub mark_queue_bytes: u64,
    /// First Fast CNP at a sender, ps.
    pub first_fast_cnp_ps: Option<u64>,
    /// First ECN-Echo at a sender, ps.
    pub first_ece_ps: Option<u64>,
    /// First cw decrease out of an engine, ps.
    pub first_cut_ps: Option<u64>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            from_ps: u64::MAX,
            port: u32::MAX,
            first_mark_ps: None,
            mark_queue_bytes: 0,
            first_fast_cnp_ps: None,
            first_ece_ps: None,
            first_cut_ps: None,
        }
    }
}

fn first(slot: &mut Option<u64>, now: u64, from: u64) {
    if now >= from && slot.is_none() {
        *slot = Some(now);
    }
}

/// One switch decision: (time ps, port, flow, PSN, decision, outgoing ECN).
pub type WredLog = (u64, u32, u32, u32, u8, u8);

/// One engine input or output of a host, for tests that replay them.
#[derive(Clone, Copy, Debug)]
pub enum EngineLog {
    /// An event presented at a cycle.
    In(u32, u64, EngineEvent),
    /// An update out.
    Out(u32, EngineUpdate),
}

/// DCQCN's notification point sends at most one CNP per flow per this
/// interval (the DCQCN paper's N = 50 us).
pub const CNP_INTERVAL_PS: u64 = 50_000_000;

fn ser_ps(p: &Port, bytes: u32) -> u64 {
    (bytes as u64 * p.ps_per_byte_x1000).div_ceil(1000)
}

impl Sim {
    /// A network running `cfg` on `topo`, its hardware made by `hw`.
    pub fn new(
        topo: Topology,
        cfg: NetConfig,
        seed: u64,
        hw: &mut dyn Hardware,
    ) -> Result<Self, String> {
        cfg.validate().map_err(|e| e.to_string())?;
        let n = topo.nodes();
        let mut ports = Vec::new();
        let mut node_ports = vec![Vec::new(); n];
        for l in &topo.links {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                let id = ports.len() as u32;
                let wred = if from >= topo.hosts {
                    let seed32 = (crate::rng::mix(&[seed, id as u64]) as u32).max(1);
                    Some(WredPort {
                        hw: hw.wred(cfg.wred_for(l.rate_bps, seed32))?,
                        drain: 0,
                    })
                } else {
                    None
                };
                ports.push(Port {
                    from: from as u32,
                    to: to as u32,
                    peer: id ^ 1,
                    rate_bps: l.rate_bps,
                    delay_ps: l.delay_ps,
                    ps_per_byte_x1000: 8_000_000_000_000_000 / l.rate_bps,
                    ctrl: VecDeque::new(),
                    data: VecDeque::new(),
                    data_bytes: 0,
                    sending: None,
                    pipe: VecDeque::new(),
                    wred,
                    tx_data_bytes: 0,
                    max_queue_bytes: 0,
                    dropped: 0,
                    dropped_inner_ect: 0,
                    marked: 0,
                    paused_since: None,
                    halts: Vec::new(),
                });
                node_ports[from].push(id);
            }
        }
        let mut hosts = Vec::new();
        for (h, np) in node_ports.iter().enumerate().take(topo.hosts) {
            if np.len() != 1 {
                return Err(format!(
                    "host {h} has {} links: a host must have exactly one",
                    np.len()
                ));
            }
            let engine = if cfg.cc == Cc::Ldcp {
                Some(hw.engine(cfg.nic_flows, cfg.window)?)
            } else {
                None
            };
            hosts.push(Host {
                port: np[0],
                active: VecDeque::new(),
                engine,
                slot_flow: vec![u32::MAX; cfg.nic_flows],
                free_slots: (0..cfg.nic_flows as u32).collect(),
                waiting: VecDeque::new(),
                engine_next_cycle: 0,
                wake_at: u64::MAX,
                updates: Vec::new(),
            });
        }
        let cycle_ps = cfg.cycle_ps();
        Ok(Sim {
            now: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            stats: Stats::new(cfg.cc),
            cfg,
            dist: vec![None; topo.hosts],
            topo,
            ports,
            node_ports,
            hosts,
            flows: Vec::new(),
            events: 0,
            seed,
            cycle_ps,
            hw_name: hw.name(),
            engine_log: None,
            wred_log: None,
            sample_until: u64::MAX,
            wan: None,
            probe: Probe::default(),
            fc: None,
            latency: None,
            coord: None,
        })
    }

    /// The current time, ps.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Which hardware the run uses (`model` or `rtl`).
    pub fn hardware(&self) -> &'static str {
        self.hw_name
    }

    pub(crate) fn at(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    /// Watches a port: its queue is sampled every `sample_ps` and kept as a
    /// time series. Returns the watch index.
    pub fn watch_port(&mut self, port: u32, label: &str) -> usize {
        self.stats.watches.push(Watch::new(port, label));
        if self.stats.watches.len() == 1 {
            self.at(0, Ev::Sample);
        }
        self.stats.watches.len() - 1
    }

    /// The port from node `from` to node `to`, if they are linked.
    pub fn port_between(&self, from: usize, to: usize) -> Option<u32> {
        self.node_ports[from]
            .iter()
            .copied()
            .find(|&p| self.ports[p as usize].to as usize == to)
    }

    /// Flow `f`'s route, port by port.
    pub fn flow_route(&self, f: usize) -> &[u32] {
        &self.flows[f].fwd
    }

    /// Adds a flow of `size_bytes` (u64::MAX: long-lived) from `src` to
    /// `dst` starting at `start_ps`; `salt` varies its ECMP path. Returns
    /// its index.
    pub fn add_flow(
        &mut self,
        src: usize,
        dst: usize,
        size_bytes: u64,
        start_ps: u64,
        salt: u64,
    ) -> Result<u32, String> {
        if src >= self.topo.hosts || dst >= self.topo.hosts || src == dst {
            return Err(format!(
                "flow {src} -> {dst}: hosts are 0..{} and must differ",
                self.topo.hosts
            ));
        }
        let id = self.flows.len() as u32;
        let hash = crate::rng::mix(&[self.seed, salt, id as u64]);
        let fwd = self.route(src, dst, hash)?;
        let rev: Vec<u32> = fwd
            .iter()
            .rev()
            .map(|&p| self.ports[p as usize].peer)
            .collect();
        let pay = self.cfg.payload_bytes as u64;
        let size_pkts = if size_bytes == u64::MAX {
            u64::MAX
        } else {
            size_bytes.div_ceil(pay).max(1)
        };
        let mut f = Flow {
            src: src as u32,
            dst: dst as u32,
            size_pkts,
            size_bytes,
            finish_ps: None,
            fwd,
            rev,
            hash,
            alt: Vec::new(),
            cur_path: 0,
            slot: u32::MAX,
            started: false,
            nxt: 0,
            una: 0,
            max_sent: 0,
            fs: FsFlow::default(),
            ack: AckFlow::default(),
            cw_raw: CW_ONE,
            awaiting_set: false,
            arrival_ps: start_ps,
            min_cw_raw: u32::MAX,
            pace: PacedFlow::default(),
            credit: false,
            grant_pending: false,
            cc: FlowCc::None,
            rto_at: u64::MAX,
            rto_pending: false,
            ack_timer_pending: false,
            sent_pkts: 0,
            last_cnp_ps: None,
            retx_pkts: 0,
            timeouts: 0,
            cbr_gap_ps: 0,
            service: 0,
        };
        f.ack.open(0);
        self.flows.push(f);
        self.at(start_ps, Ev::FlowStart(id));
        Ok(id)
    }

    /// Adds unresponsive traffic from `src` to `dst`: `size_bytes`
    /// (`u64::MAX`: long-lived) at `rate_bps` of ECT(0) data packets from
    /// `start_ps` on, deaf to congestion signals (it retransmits what is
    /// lost, go-back-N, at the same rate; a PFC pause of its NIC holds it).
    /// Returns its index.
    pub fn add_cbr(
        &mut self,
        src: usize,
        dst: usize,
        rate_bps: u64,
        size_bytes: u64,
        start_ps: u64,
        salt: u64,
    ) -> Result<u32, String> {
        if rate_bps == 0 {
            return Err("unresponsive traffic at 0 b/s".into());
        }
        let f = self.add_flow(src, dst, size_bytes, start_ps, salt)?;
        let bits = self.cfg.packet_bytes() as u64 * 8;
        self.flows[f as usize].cbr_gap_ps = (bits * 1_000_000_000_000).div_ceil(rate_bps);
        Ok(f)
    }

    pub(crate) fn route(&mut self, src: usize, dst: usize, h: u64) -> Result<Vec<u32>, String> {
        if self.dist[dst].is_none() {
            // links are full duplex: the ports out of a node are its neighbours
            let adj: Vec<Vec<(usize, usize)>> = self
                .node_ports
                .iter()
                .map(|ps| {
                    ps.iter()
                        .map(|&p| (self.ports[p as usize].to as usize, p as usize))
                        .collect()
                })
                .collect();
            self.dist[dst] = Some(self.topo.distances_to(dst, &adj));
        }
        let d = self.dist[dst].as_ref().expect("computed");
        if d[src] == u16::MAX {
            return Err(format!("host {dst} is unreachable from host {src}"));
        }
        let mut path = Vec::with_capacity(d[src] as usize);
        let mut x = src;
        while x != dst {
            let cands: Vec<u32> = self.node_ports[x]
                .iter()
                .copied()
                .filter(|&p| {
                    let y = self.ports[p as usize].to as usize;
                    d[y] != u16::MAX && d[y] + 1 == d[x] && (y >= self.topo.hosts || y == dst)
                })
                .collect();
            let p = cands[(crate::rng::mix(&[h, x as u64]) % cands.len() as u64) as usize];
            path.push(p);
            x = self.ports[p as usize].to as usize;
        }
        if path.len() > u8::MAX as usize {
            return Err("a route longer than 255 hops".into());
        }
        Ok(path)
    }

    /// Runs until `end_ps` or until nothing is left to do; `progress` is
    /// called now and then with the simulated time.
    pub fn run(&mut self, end_ps: u64, progress: &mut dyn FnMut(u64)) -> Result<(), String> {
        let mut k = 0u32;
        while let Some(&Reverse((t, _, _))) = self.heap.peek() {
            if t > end_ps {
                break;
            }
            let Reverse((t, _, ev)) = self.heap.pop().expect("peeked");
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            k += 1;
            if k == 1 << 16 {
                k = 0;
                progress(t);
            }
        }
        if !self.heap.is_empty() {
            // the clock stands at the end; with nothing left, at the last event
            self.now = self.now.max(end_ps);
        }
        Ok(())
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(p) => self.arrive(p),
            Ev::TxDone(p) => self.tx_done(p),
            Ev::EngineOut(h) => self.engine_out(h),
            Ev::Grant(f) => self.grant(f),
            Ev::Rto(f) => self.rto(f),
            Ev::FlowStart(f) => self.flow_start(f),
            Ev::Wake(h) => {
                let host = &mut self.hosts[h as usize];
                if host.wake_at == self.now {
                    host.wake_at = u64::MAX;
                }
                self.kick(h)
            }
            Ev::RateTimer(f) => self.rate_timer(f),
            Ev::DecreaseCheck(f) => {
                let now = self.now;
                let (mut timer, mut check) = (None, None);
                if let FlowCc::Dcqcn(d) = &mut self.flows[f as usize].cc {
                    let first_cut = d.timer_at == u64::MAX;
                    if cc::dcqcn_check(d, &self.cfg, now) && first_cut {
                        // the increase timer starts with the first cut
                        timer = Some(d.timer_at);
                    }
                    if d.decrease_cnp && !d.check_pending {
                        d.check_pending = true;
                        check = Some(d.next_check(now, &self.cfg.dcqcn));
                    }
                }
                if let Some(t) = timer {
                    self.at(t, Ev::RateTimer(f));
                }
                if let Some(t) = check {
                    self.at(t, Ev::DecreaseCheck(f));
                }
            }
            Ev::AckTimer(f) => self.ack_timer(f),
            Ev::FreeSlot(h, s) => self.free_slot(h, s),
            Ev::Sample => self.sample(),
            Ev::HaltExpire(p) => self.halt_expire(p),
            Ev::ArnRefresh(p) => self.arn_refresh(p),
            Ev::NotifyCheck(p) => self.notify_check(p),
        }
    }

    // ---------------------------------------------------------------- links

    fn start_tx(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.sending.is_some() {
            return;
        }
        let paused = port.paused_since.is_some();
        let mut dequeued = false;
        let pkt = if let Some(c) = port.ctrl.pop_front() {
            Some(c)
        } else if paused {
            None
        } else if let Some(d) = port.data.pop_front() {
            port.data_bytes -= d.bytes as u64;
            dequeued = true;
            Some(d)
        } else {
            None
        };
        if let Some(pkt) = pkt {
            let t = self.now + ser_ps(port, pkt.bytes);
            port.sending = Some(pkt);
            self.at(t, Ev::TxDone(p));
            if pkt.kind == Kind::Data && pkt.from_port != u32::MAX && self.fc.is_some() {
                self.fc_depart(&pkt);
            }
            if dequeued
                && self
                    .coord
                    .as_ref()
                    .is_some_and(|c| c.notifiers.contains_key(&p))
            {
                self.coord_dequeued(p);
            }
        } else if (port.from as usize) < self.topo.hosts && !paused {
            let h = port.from;
            self.host_pull(h);
        }
    }

    fn tx_done(&mut self, p: u32) {
        let pkt = self.ports[p as usize]
            .sending
            .take()
            .expect("a packet in serialization");
        self.stats.link_tx += 1;
        let port = &mut self.ports[p as usize];
        if pkt.kind == Kind::Data {
            port.tx_data_bytes += pkt.bytes as u64;
            if let Some(w) = port.wred.as_mut() {
                w.drain += pkt.bytes as u64;
            }
        }
        let arrive = self.now + port.delay_ps;
        port.pipe.push_back((arrive, pkt));
        let first = port.pipe.len() == 1;
        if first {
            self.at(arrive, Ev::Arrive(p));
        }
        self.start_tx(p);
    }

    fn arrive(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let (_, mut pkt) = port.pipe.pop_front().expect("a packet in the pipe");
        let next = port.pipe.front().map(|x| x.0);
        let node = port.to as usize;
        if let Some(t) = next {
            self.at(t, Ev::Arrive(p));
        }
        match pkt.kind {
            Kind::Pause => return self.receive_pause(p, pkt.psn == 1),
            Kind::Arn => return self.receive_arn(p, pkt.psn),
            Kind::Notify if pkt.psn as usize == node => {
                return self.receive_notify(node, pkt);
            }
            _ => {}
        }
        if node < self.topo.hosts {
            match pkt.kind {
                Kind::Data => self.receive_data(pkt),
                Kind::Ack | Kind::Nak => self.receive_ack(pkt),
                Kind::Cnp => self.receive_cnp(pkt.flow),
                Kind::FastCnp => self.receive_fast_cnp(pkt.flow),
                // taken above, at any node (a notification reaches only
                // the node it is for)
                Kind::Pause | Kind::Arn | Kind::Notify => {}
            }
            return;
        }
        // a switch: draft 002's decision (which may move the packet to
        // another path), then the next hop of the packet's path
        let mark_allowed = if pkt.kind == Kind::Data && self.coord.is_some() {
            self.coord_switch(node, &mut pkt)
        } else {
            true
        };
        let arrived_hop = pkt.hop;
        let out = if pkt.kind == Kind::Data {
            self.path_fwd(pkt.flow, pkt.path)[pkt.hop as usize]
        } else {
            self.path_rev(pkt.flow, pkt.path)[pkt.hop as usize]
        };
        pkt.hop += 1;
        if pkt.kind != Kind::Data {
            self.ports[out as usize].ctrl.push_back(pkt);
            self.start_tx(out);
            return;
        }
        if self.wan.is_some() && !self.tunnel(node, &mut pkt) {
            return;
        }
        let port = &mut self.ports[out as usize];
        let w = port
            .wred
            .as_mut()
            .expect("a switch port has its WRED block");
        while w.drain > 0 {
            let d = w.drain.min(ldcp_sim::wred_ecn::DRAIN_MAX as u64);
            w.drain -= d;
            w.hw.step(None, d as u32);
        }
        // a P node sees only the outer header
        let seen = pkt.outer.unwrap_or(pkt.ecn);
        let (decision, ecn) =
            w.hw.step(Some((pkt.bytes, seen)), 0)
                .expect("a packet step has a decision");
        let occ = w.hw.occupancy_bytes() as u64;
        port.max_queue_bytes = port.max_queue_bytes.max(occ);
        if let Some(l) = self.wred_log.as_mut() {
            l.push((self.now, out, pkt.flow, pkt.psn, decision as u8, ecn));
        }
        use ldcp_sim::wred_ecn::Decision::*;
        match decision {
            Forward | ForwardMarked => {
                let mut ecn = ecn;
                if decision == ForwardMarked && !mark_allowed {
                    // draft 002: someone can re-route this packet, so no
                    // congestion control (C9); the block's occupancy
                    // already counts it
                    ecn = seen;
                    if let Some(c) = self.coord.as_mut() {
                        c.stats.marks_withheld += 1;
                    }
                } else if decision == ForwardMarked {
                    self.stats.marked += 1;
                    port.marked += 1;
                    let cbr = matches!(self.flows[pkt.flow as usize].cc, FlowCc::Cbr { .. });
                    if out == self.probe.port && !cbr && self.probe.first_mark_ps.is_none() {
                        first(&mut self.probe.first_mark_ps, self.now, self.probe.from_ps);
                        self.probe.mark_queue_bytes = occ;
                    }
                    if self.fast_cnp(node, arrived_hop, &mut pkt) {
                        // G10's ablation: notified instead of marked
                        ecn = seen;
                    }
                    if self.coord.is_some() {
                        pkt.light_mark = self.light_path_exists(pkt.flow, out);
                    }
                }
                match pkt.outer.as_mut() {
                    Some(o) => *o = ecn,
                    None => pkt.ecn = ecn,
                }
                if self.fc.is_some() && self.fc_arrive(p, out, &mut pkt) {
                    return; // it waits in a side queue
                }
                let port = &mut self.ports[out as usize];
                port.data_bytes += pkt.bytes as u64;
                port.data.push_back(pkt);
                self.start_tx(out);
            }
            DropWred | DropOverflow => {
                port.dropped += 1;
                if pkt.ecn != ldcp_sim::wred_ecn::ecn::NOT_ECT {
                    port.dropped_inner_ect += 1;
                }
                let why = if decision == DropWred {
                    DropReason::Wred
                } else {
                    DropReason::Overflow
                };
                self.stats.drop(seen, why);
            }
        }
    }

    /// Draft 001's tunnel at node `node` for a data packet: encapsulation
    /// at the ingress PE, the faulty node's rewrite, decapsulation at the
    /// egress PE. Returns false when the packet is dropped (counted).
    fn tunnel(&mut self, node: usize, pkt: &mut Pkt) -> bool {
        use crate::wan::{Decap, SRV6_OVERHEAD_BYTES};
        let w = self.wan.as_mut().expect("a WAN");
        if node == w.cfg.ingress && pkt.outer.is_none() {
            pkt.outer = Some(w.encapsulate(pkt.ecn));
            pkt.bytes += SRV6_OVERHEAD_BYTES;
        }
        if let Some(o) = pkt.outer {
            let n = w.fault(node, o);
            pkt.faulted |= n != o;
            pkt.outer = Some(n);
        }
        if node == w.cfg.egress {
            if let Some(o) = pkt.outer.take() {
                pkt.bytes -= SRV6_OVERHEAD_BYTES;
                match w.decapsulate(pkt.ecn, o) {
                    Decap::Forward(e) => pkt.ecn = e,
                    Decap::Drop => {
                        self.stats.drop(pkt.ecn, DropReason::TunnelEgress);
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A data packet marked CE at node `node`, which it reached over its
    /// route's port `arrived_hop - 1`: a Fast CNP candidate if the node is
    /// a trigger. Returns true when the mark is to be undone (a Fast CNP
    /// was sent in the `Instead` policy).
    fn fast_cnp(&mut self, node: usize, arrived_hop: u8, pkt: &mut Pkt) -> bool {
        use crate::wan::{dest_qp, host_ipv4, FastCnpMode};
        let Some(w) = self.wan.as_mut() else {
            return false;
        };
        if !w.is_trigger(node) {
            return false;
        }
        let fl = &self.flows[pkt.flow as usize];
        debug_assert_eq!(pkt.path, 0, "a WAN run does not re-route");
        let roce = pkt.outer.is_some() && !matches!(fl.cc, FlowCc::Cbr { .. });
        let cycle = self.now / self.cycle_ps;
        if !w.offer(
            node,
            roce,
            host_ipv4(fl.src),
            host_ipv4(fl.dst),
            dest_qp(pkt.flow),
            cycle,
        ) {
            return false;
        }
        pkt.fcnp = true;
        let instead = w.cfg.fast_cnp == FastCnpMode::Instead;
        // back along the reverse route from this node (G6: to END.CON, whose
        // decapsulation forwards the inner CNP to the sender on that route)
        let r0 = fl.rev.len() - arrived_hop as usize;
        let p = fl.rev[r0];
        let cnp = Pkt {
            ece: true,
            ..Pkt::control(pkt.flow, Kind::FastCnp, 0, self.cfg.ack_bytes, r0 as u8 + 1)
        };
        self.push_ctrl(p, cnp);
        instead
    }

    fn sample(&mut self) {
        let t = self.now;
        for i in 0..self.stats.watches.len() {
            let p = self.stats.watches[i].port as usize;
            let port = &self.ports[p];
            let q = port.data_bytes
                + port
                    .sending
                    .filter(|s| s.kind == Kind::Data)
                    .map_or(0, |s| s.bytes as u64);
            let tx = port.tx_data_bytes;
            self.stats.watches[i].sample(t, q, tx);
        }
        if let Some(c) = self.coord.as_mut() {
            for (k, &f) in c.tracked.iter().enumerate() {
                c.progress[k].push((t, self.flows[f as usize].una));
            }
        }
        let nt = t + self.cfg.sample_ps;
        if nt <= self.sample_until && !self.all_done() {
            self.at(nt, Ev::Sample);
        }
    }

    fn all_done(&self) -> bool {
        self.stats.flows_done as usize == self.flows.len()
    }

    // ---------------------------------------------------------------- hosts

    fn flow_start(&mut self, f: u32) {
        let h = self.flows[f as usize].src as usize;
        match self.hosts[h].free_slots.pop_front() {
            Some(s) => self.activate(f, s),
            None => {
                self.stats.slot_waits += 1;
                self.hosts[h].waiting.push_back(f)
            }
        }
    }

    fn activate(&mut self, f: u32, slot: u32) {
        let cc_kind = self.cfg.cc;
        let rate =
            self.ports[self.hosts[self.flows[f as usize].src as usize].port as usize].rate_bps;
        let fl = &mut self.flows[f as usize];
        let h = fl.src as usize;
        fl.slot = slot;
        fl.started = true;
        fl.fs = FsFlow::default();
        fl.cc = if fl.cbr_gap_ps > 0 {
            FlowCc::Cbr {
                gap_ps: fl.cbr_gap_ps,
                next_send_ps: self.now,
            }
        } else {
            cc::init(cc_kind, &self.cfg, rate as f64)
        };
        self.hosts[h].slot_flow[slot as usize] = f;
        self.hosts[h].active.push_back(f);
        self.arm_rto(f);
        self.kick(h as u32);
    }

    fn kick(&mut self, h: u32) {
        let p = self.hosts[h as usize].port;
        if self.ports[p as usize].sending.is_none() {
            self.start_tx(p);
        }
    }

    /// The NIC's link is free and its control queue empty: the next data
    /// packet, round robin over the flows allowed to send.
    fn host_pull(&mut self, h: u32) {
        let hi = h as usize;
        let n = self.hosts[hi].active.len();
        let mut earliest = u64::MAX;
        for _ in 0..n {
            let f = self.hosts[hi].active.pop_front().expect("n entries");
            let fl = &self.flows[f as usize];
            if fl.finish_ps.is_some() {
                continue; // done: leaves the list
            }
            if fl.nxt >= fl.size_pkts {
                // everything sent once: stays out until a go-back-N
                continue;
            }
            match self.may_send(f) {
                Ok(()) => {
                    self.hosts[hi].active.push_back(f);
                    self.send_data(f);
                    return;
                }
                Err(t) => {
                    earliest = earliest.min(t);
                    self.hosts[hi].active.push_back(f);
                }
            }
        }
        if earliest != u64::MAX && earliest < self.hosts[hi].wake_at {
            self.hosts[hi].wake_at = earliest;
            self.at(earliest, Ev::Wake(h));
        }
    }

    /// Ok if flow `f` may send a packet now, else the time it may (u64::MAX:
    /// when an ACK or a grant comes).
    fn may_send(&mut self, f: u32) -> Result<(), u64> {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let inflight = fl.nxt - fl.una;
        match &fl.cc {
            FlowCc::None => match fl.fs.stage {
                Stage::Idle => Ok(()),
                Stage::FastStart => {
                    if inflight < fl.fs.fs_len as u64 {
                        Ok(())
                    } else {
                        Err(u64::MAX)
                    }
                }
                Stage::Stable => {
                    if fl.awaiting_set {
                        // the window is the engine's answer to the fast-start SET
                        Err(u64::MAX)
                    } else if fl.cw_raw >= CW_ONE {
                        if (inflight + 1) * CW_ONE as u64 <= fl.cw_raw as u64 {
                            Ok(())
                        } else {
                            Err(u64::MAX)
                        }
                    } else if fl.credit {
                        fl.credit = false;
                        Ok(())
                    } else {
                        Err(u64::MAX)
                    }
                }
            },
            FlowCc::Dctcp(d) => {
                if (inflight as f64) < d.cwnd.floor().max(1.0) {
                    Ok(())
                } else {
                    Err(u64::MAX)
                }
            }
            FlowCc::Dcqcn(d) => {
                if now >= d.next_send_ps {
                    Ok(())
                } else {
                    Err(d.next_send_ps)
                }
            }
            FlowCc::Cbr { next_send_ps, .. } => {
                if now >= *next_send_ps {
                    Ok(())
                } else {
                    Err(*next_send_ps)
                }
            }
        }
    }

    fn send_data(&mut self, f: u32) {
        let bytes = self.cfg.packet_bytes();
        let iw = self.cfg.iw_pkts;
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let idx = fl.nxt;
        let psn = (idx & fs::PSN_MASK as u64) as u32;
        let last = fl.size_pkts != u64::MAX && idx + 1 == fl.size_pkts;
        let ecn = match fl.cc {
            FlowCc::None => {
                // the fast-start marker rewrites an IPv4 header's ECN field
                fl.fs.tx(psn, last, 0x4500, 0, iw).ecn
            }
            _ => ldcp_sim::wred_ecn::ecn::ECT0,
        };
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            let gap = (bytes as f64 * 8.0 / d.rate_bps * 1e12) as u64;
            d.next_send_ps = now.max(d.next_send_ps) + gap;
        }
        if let FlowCc::Cbr {
            gap_ps,
            next_send_ps,
        } = &mut fl.cc
        {
            *next_send_ps = now.max(*next_send_ps) + *gap_ps;
        }
        if idx < fl.max_sent {
            fl.retx_pkts += 1;
        }
        fl.nxt += 1;
        fl.max_sent = fl.max_sent.max(fl.nxt);
        fl.sent_pkts += 1;
        self.stats.data_sent += 1;
        if ecn == ldcp_sim::wred_ecn::ecn::NOT_ECT {
            self.stats.not_ect_sent += 1;
        }
        let pkt = Pkt {
            flow: f,
            kind: Kind::Data,
            psn,
            bytes,
            ecn,
            last,
            ece: false,
            n: 0,
            hop: 1,
            outer: None,
            fcnp: false,
            faulted: false,
            from_port: u32::MAX,
            t_sent: now,
            path: 0,
            cc: false,
            ar: crate::coord::AR_NONE,
            light_mark: false,
        };
        let pkt = self.coord_tag(pkt);
        let p = self.flows[f as usize].fwd[0];
        let port = &mut self.ports[p as usize];
        port.sending = Some(pkt);
        let t = now + ser_ps(port, bytes);
        self.at(t, Ev::TxDone(p));
    }

    fn receive_data(&mut self, pkt: Pkt) {
        let f = pkt.flow as usize;
        let now_cycle = (self.now / self.cycle_ps) as u32 & ag::T_MASK;
        let m = self.cfg.ack_m;
        let fl = &mut self.flows[f];
        self.stats.data_delivered += 1;
        let ce = pkt.ecn == ldcp_sim::wred_ecn::ecn::CE;
        let held_before = fl.ack.pending;
        let out = fl.ack.packet(pkt.flow, pkt.psn, ce, pkt.last, m, now_cycle);
        // go-back-N: a packet behind a gap (NAKed or a repeat) or a duplicate
        let discarded = out.err != 0 || out.first.is_some_and(|a| a.nak);
        if discarded {
            self.stats.drop(pkt.ecn, DropReason::Receiver);
        } else {
            self.stats.goodput_pkts += 1;
        }
        if let Some(c) = self.coord.as_mut() {
            c.delivered(&pkt, ce && !discarded);
        }
        if let Some(l) = self.latency.as_mut().filter(|_| !discarded) {
            l[f].push((pkt.t_sent, self.now - pkt.t_sent));
        }
        let fl = &mut self.flows[f];
        let cbr = matches!(fl.cc, FlowCc::Cbr { .. });
        if let Some(w) = self.wan.as_mut() {
            let s = &mut w.stats;
            s.ce_delivered += (ce && !cbr) as u64;
            s.double_signal += (ce && pkt.fcnp && !discarded) as u64;
            s.faulted_not_ect_delivered +=
                (pkt.faulted && pkt.ecn == ldcp_sim::wred_ecn::ecn::NOT_ECT) as u64;
        }
        // DCQCN's notification point: a CE mark on a discarded packet is not
        // echoed by an ACK, so it becomes a CNP, at most one per flow per
        // 50 us (DCQCN's N)
        let now = self.now;
        if discarded
            && ce
            && self.cfg.cc == Cc::Dcqcn
            && fl.last_cnp_ps.is_none_or(|t| now >= t + CNP_INTERVAL_PS)
        {
            fl.last_cnp_ps = Some(now);
            let p = fl.rev[0];
            self.stats.cnps_sent += 1;
            let cnp = Pkt {
                ece: true,
                ..Pkt::control(pkt.flow, Kind::Cnp, 0, self.cfg.ack_bytes, 1)
            };
            self.push_ctrl(p, cnp);
        }
        let fl = &mut self.flows[f];
        let start_timer = held_before == 0 && fl.ack.pending > 0 && !fl.ack_timer_pending;
        for a in [out.first, out.second].into_iter().flatten() {
            self.send_ack(pkt.flow, a);
        }
        if start_timer {
            self.flows[f].ack_timer_pending = true;
            let t = self.now + self.cfg.ack_timeout_cycles as u64 * self.cycle_ps;
            self.at(t, Ev::AckTimer(pkt.flow));
        }
    }

    fn ack_timer(&mut self, f: u32) {
        let now_cycle = (self.now / self.cycle_ps) as u32 & ag::T_MASK;
        let timeout = self.cfg.ack_timeout_cycles;
        let fl = &mut self.flows[f as usize];
        fl.ack_timer_pending = false;
        if let Some(a) = fl.ack.flush(f, timeout, now_cycle) {
            self.send_ack(f, a);
        } else if fl.ack.pending > 0 {
            let left = timeout.saturating_sub(fl.ack.age(now_cycle)).max(1);
            fl.ack_timer_pending = true;
            let t = self.now + left as u64 * self.cycle_ps;
            self.at(t, Ev::AckTimer(f));
        }
    }

    fn send_ack(&mut self, f: u32, a: ag::Ack) {
        let kind = if a.nak { Kind::Nak } else { Kind::Ack };
        let pkt = Pkt {
            ece: a.ece,
            n: a.n as u8,
            ..Pkt::control(f, kind, a.psn, self.cfg.ack_bytes, 1)
        };
        self.stats.acks_sent += 1;
        let p = self.flows[f as usize].rev[0];
        self.push_ctrl(p, pkt);
    }

    /// A cumulative PSN (24 bits) as a packet index, relative to `una`.
    fn unwrap_psn(una: u64, psn: u32) -> u64 {
        let d = (psn.wrapping_sub(una as u32) & fs::PSN_MASK) as u64;
        una + d
    }

    /// A Fast CNP at its sender (G10: one CNP; LDCP, one ECN-Echo of one
    /// packet into the window engine, cw -= beta).
    fn receive_fast_cnp(&mut self, f: u32) {
        let now = self.now;
        let fi = f as usize;
        if matches!(self.flows[fi].cc, FlowCc::Cbr { .. }) {
            return;
        }
        if let Some(w) = self.wan.as_mut() {
            w.stats.fast_cnp_received += 1;
        }
        first(&mut self.probe.first_fast_cnp_ps, now, self.probe.from_ps);
        let fl = &self.flows[fi];
        if fl.finish_ps.is_some() || !fl.started {
            return;
        }
        match fl.cc {
            FlowCc::None => {
                // in fast start the marker reacts to drops; a SET in flight
                // would overwrite the cut
                if fl.fs.stage == Stage::Stable && !fl.awaiting_set {
                    let ev = EngineEvent::Ack {
                        flow: fl.slot,
                        ece: true,
                        n: 1,
                    };
                    let h = fl.src;
                    if let Some(w) = self.wan.as_mut() {
                        w.stats.fast_cnp_applied += 1;
                    }
                    self.engine_push(h, ev);
                }
            }
            _ => {
                if let Some(w) = self.wan.as_mut() {
                    w.stats.fast_cnp_applied += 1;
                }
                self.receive_cnp(f)
            }
        }
    }

    fn receive_cnp(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.finish_ps.is_some() {
            return;
        }
        let (una, nxt) = (fl.una, fl.nxt);
        cc::on_ack(&mut fl.cc, &self.cfg, now, true, 0, una, nxt, false);
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            if d.decrease_cnp && !d.check_pending {
                d.check_pending = true;
                let t = d.next_check(now, &self.cfg.dcqcn);
                self.at(t, Ev::DecreaseCheck(f));
            }
        }
    }

    fn receive_ack(&mut self, pkt: Pkt) {
        let f = pkt.flow;
        let fi = f as usize;
        if self.flows[fi].finish_ps.is_some() || !self.flows[fi].started {
            return;
        }
        let iw = self.cfg.iw_pkts;
        let now = self.now;
        let nak = pkt.kind == Kind::Nak;
        let cbr = matches!(self.flows[fi].cc, FlowCc::Cbr { .. });
        if pkt.ece && !cbr {
            first(&mut self.probe.first_ece_ps, now, self.probe.from_ps);
        }
        if !cbr && self.coord.is_some() && pkt.kind == Kind::Ack {
            self.coord_ack(f, pkt.ece);
        }
        let e = Self::unwrap_psn(self.flows[fi].una, pkt.psn).min(self.flows[fi].max_sent);
        let progressed = e > self.flows[fi].una;
        {
            let fl = &mut self.flows[fi];
            fl.una = fl.una.max(e);
            if fl.nxt < fl.una {
                fl.nxt = fl.una;
            }
        }
        if progressed {
            self.arm_rto(f);
        }
        let mut engine_ev = None;
        let mut go_back = if nak { Some(e) } else { None };
        match self.cfg.cc {
            _ if cbr => {}
            Cc::Ldcp => {
                let fl = &mut self.flows[fi];
                if fl.fs.stage == Stage::FastStart {
                    let r = fl.fs.ack(pkt.psn, nak, iw);
                    if let Some(w) = r.set_cw_pkts {
                        engine_ev = Some(EngineEvent::Set {
                            flow: fl.slot,
                            cw: w.min(4095) << ldcp_sim::window_engine::CW_FRAC_BITS,
                        });
                        // the stable stage starts from the engine's answer to the SET
                        fl.awaiting_set = true;
                    }
                    if let Some(g) = r.go_back_n {
                        go_back = Some(Self::unwrap_psn(fl.una, g));
                    }
                } else if pkt.n > 0 {
                    engine_ev = Some(EngineEvent::Ack {
                        flow: fl.slot,
                        ece: pkt.ece,
                        n: pkt.n as u32,
                    });
                }
            }
            Cc::Dctcp | Cc::Dcqcn => {
                let cfg = &self.cfg;
                let fl = &mut self.flows[fi];
                let nxt = fl.nxt;
                cc::on_ack(
                    &mut fl.cc,
                    cfg,
                    now,
                    pkt.ece,
                    pkt.n as u32,
                    fl.una,
                    nxt,
                    nak,
                );
                let mut check = None;
                if let FlowCc::Dcqcn(d) = &mut fl.cc {
                    if d.decrease_cnp && !d.check_pending {
                        d.check_pending = true;
                        check = Some(d.next_check(now, &cfg.dcqcn));
                    }
                }
                if let Some(t) = check {
                    self.at(t, Ev::DecreaseCheck(f));
                }
            }
        }
        if let FlowCc::Dctcp(d) = &self.flows[fi].cc {
            let c = (d.cwnd * ldcp_sim::window_engine::CW_ONE as f64) as u32;
            self.stats.cw_trace(f, now, c);
        }
        if let Some(g) = go_back {
            let fl = &mut self.flows[fi];
            if g < fl.nxt {
                fl.nxt = g.max(fl.una);
            }
            self.reactivate(f);
        }
        if let Some(ev) = engine_ev {
            self.engine_push(self.flows[fi].src, ev);
        }
        // completion
        let fl = &self.flows[fi];
        if fl.size_pkts != u64::MAX && fl.una >= fl.size_pkts {
            self.finish(f);
            return;
        }
        self.kick(self.flows[fi].src);
    }

    fn reactivate(&mut self, f: u32) {
        let h = self.flows[f as usize].src as usize;
        if !self.hosts[h].active.contains(&f) {
            self.hosts[h].active.push_back(f);
        }
    }

    fn finish(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.finish_ps = Some(now);
        fl.rto_at = u64::MAX;
        fl.pace.active = false;
        let h = fl.src as usize;
        let slot = fl.slot;
        self.stats.flows_done += 1;
        self.hosts[h].slot_flow[slot as usize] = u32::MAX;
        match self.hosts[h].engine {
            // the entry is free once every event of its last flow is out of
            // the engine: no update of it reaches the next flow, and no event
            // of the next flow merges into one of the last flow's
            Some(_) => {
                let c = (self.now / self.cycle_ps).max(self.hosts[h].engine_next_cycle);
                let t = (c + crate::engine::LATENCY_CYCLES as u64 + 1) * self.cycle_ps;
                self.at(t, Ev::FreeSlot(h as u32, slot));
            }
            None => self.free_slot(h as u32, slot),
        }
    }

    fn free_slot(&mut self, h: u32, slot: u32) {
        let host = &mut self.hosts[h as usize];
        host.free_slots.push_back(slot);
        if let Some(w) = host.waiting.pop_front() {
            let s = host.free_slots.pop_front().expect("just freed");
            self.activate(w, s);
        }
    }

    fn engine_push(&mut self, h: u32, ev: EngineEvent) {
        let cycle_now = self.now / self.cycle_ps;
        let host = &mut self.hosts[h as usize];
        let cycle = cycle_now.max(host.engine_next_cycle);
        host.engine_next_cycle = cycle + 1;
        host.engine
            .as_mut()
            .expect("LDCP hosts have an engine")
            .push(cycle, ev);
        if let Some(l) = self.engine_log.as_mut() {
            l.push(EngineLog::In(h, cycle, ev));
        }
        let t = (cycle + crate::engine::LATENCY_CYCLES as u64) * self.cycle_ps;
        self.at(t, Ev::EngineOut(h));
    }

    fn engine_out(&mut self, h: u32) {
        let cycle_now = self.now / self.cycle_ps;
        let mut ups = std::mem::take(&mut self.hosts[h as usize].updates);
        ups.clear();
        self.hosts[h as usize]
            .engine
            .as_mut()
            .expect("LDCP hosts have an engine")
            .advance(cycle_now, &mut ups);
        for u in &ups {
            if let Some(l) = self.engine_log.as_mut() {
                l.push(EngineLog::Out(h, *u));
            }
            let f = self.hosts[h as usize].slot_flow[u.flow as usize];
            if f == u32::MAX {
                continue; // the flow finished while its update was in flight
            }
            self.stats.engine_updates += 1;
            let fl = &mut self.flows[f as usize];
            if u.cw < fl.cw_raw && !fl.awaiting_set {
                first(&mut self.probe.first_cut_ps, self.now, self.probe.from_ps);
            }
            fl.cw_raw = u.cw;
            fl.awaiting_set = false;
            fl.min_cw_raw = fl.min_cw_raw.min(u.cw);
            let was = fl.pace.active;
            fl.pace.update(u.cycle, u.interval);
            if u.interval == 0 {
                fl.credit = false;
            }
            self.stats.cw_trace(f, self.now, u.cw);
            if fl.pace.active && !was && !fl.grant_pending {
                fl.grant_pending = true;
                let t = fl.pace.due * self.cycle_ps;
                self.at(t, Ev::Grant(f));
            }
        }
        self.hosts[h as usize].updates = ups;
        self.kick(h);
    }

    fn grant(&mut self, f: u32) {
        let cycle_now = self.now / self.cycle_ps;
        let fl = &mut self.flows[f as usize];
        fl.grant_pending = false;
        if !fl.pace.active || fl.finish_ps.is_some() {
            return;
        }
        if fl.pace.grant(cycle_now) {
            fl.credit = true;
            self.stats.grants += 1;
        }
        fl.grant_pending = true;
        let t = (fl.pace.due * self.cycle_ps).max(self.now + 1);
        let h = fl.src;
        self.at(t, Ev::Grant(f));
        self.reactivate(f);
        self.kick(h);
    }

    fn arm_rto(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let pace = if fl.pace.active {
            fl.pace.interval as u64 * self.cycle_ps
        } else {
            0
        };
        fl.rto_at = self.now + self.cfg.rto_ps + 2 * pace;
        if !fl.rto_pending {
            fl.rto_pending = true;
            let t = fl.rto_at;
            self.at(t, Ev::Rto(f));
        }
    }

    fn rto(&mut self, f: u32) {
        let now = self.now;
        let iw = self.cfg.iw_pkts;
        let fl = &mut self.flows[f as usize];
        fl.rto_pending = false;
        if fl.finish_ps.is_some() {
            return;
        }
        if fl.rto_at > now {
            fl.rto_pending = true;
            let t = fl.rto_at;
            self.at(t, Ev::Rto(f));
            return;
        }
        if fl.nxt == fl.una {
            // nothing outstanding: re-arm
            self.arm_rto(f);
            return;
        }
        fl.timeouts += 1;
        self.stats.timeouts += 1;
        fl.nxt = fl.una;
        let mut set = None;
        match &mut fl.cc {
            FlowCc::None => {
                if fl.fs.stage == Stage::FastStart {
                    // a timeout in fast start is the loss transition (a NAK at una)
                    let r = fl.fs.ack((fl.una & fs::PSN_MASK as u64) as u32, true, iw);
                    if let Some(w) = r.set_cw_pkts {
                        set = Some(EngineEvent::Set {
                            flow: fl.slot,
                            cw: w.min(4095) << ldcp_sim::window_engine::CW_FRAC_BITS,
                        });
                    }
                }
            }
            c => cc::on_timeout(c),
        }
        let h = fl.src;
        if let Some(ev) = set {
            self.engine_push(h, ev);
        }
        self.arm_rto(f);
        self.reactivate(f);
        self.kick(h);
    }

    fn rate_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.finish_ps.is_some() {
            return;
        }
        if let FlowCc::Dcqcn(d) = &mut fl.cc {
            if d.timer_at > now {
                let t = d.timer_at;
                self.at(t, Ev::RateTimer(f));
                return;
            }
            cc::dcqcn_increase(d, &self.cfg);
            d.timer_at = now + self.cfg.dcqcn.rp_timer_ps;
            let t = d.timer_at;
            self.at(t, Ev::RateTimer(f));
        }
    }

    // ---------------------------------------------------------------- flow control

    /// A data packet admitted at the switch that port `p` reaches, for its
    /// egress port `out`: counted against `p` (ingress accounting) and its
    /// key; into a side queue if `out` has its key halted (returns true).
    fn fc_arrive(&mut self, p: u32, out: u32, pkt: &mut Pkt) -> bool {
        let fc = self.fc.as_mut().expect("flow control");
        let service = self.flows[pkt.flow as usize].service;
        let key = fc.key(pkt.flow, service);
        let b = pkt.bytes as u64;
        let node = self.ports[p as usize].to as usize;
        pkt.from_port = p;
        fc.ing[p as usize] += b;
        *fc.ing_key.entry((p, key)).or_insert(0) += b;
        fc.node_bytes[node] += b;
        let peak = &mut fc.stats.peak_node_bytes[node];
        *peak = (*peak).max(fc.node_bytes[node]);
        let halted = self.ports[out as usize]
            .halts
            .iter_mut()
            .find(|h| h.key == key);
        let side = if let Some(h) = halted {
            h.queue.push_back(*pkt);
            fc.stats.side_queued_pkts += 1;
            true
        } else {
            false
        };
        self.fc_check(p);
        side
    }

    /// A data packet leaves its switch (its serialization starts).
    fn fc_depart(&mut self, pkt: &Pkt) {
        let fc = self.fc.as_mut().expect("flow control");
        let p = pkt.from_port;
        let key = fc.key(pkt.flow, self.flows[pkt.flow as usize].service);
        let b = pkt.bytes as u64;
        let node = self.ports[p as usize].to as usize;
        fc.ing[p as usize] -= b;
        if let Some(k) = fc.ing_key.get_mut(&(p, key)) {
            *k -= b;
        }
        fc.node_bytes[node] -= b;
        self.fc_check(p);
    }

    /// XOFF and XON on arrival port `p` of its node.
    fn fc_check(&mut self, p: u32) {
        use crate::flowctl::FcMode;
        let fc = self.fc.as_mut().expect("flow control");
        let up = self.ports[p as usize].from as usize;
        let ing = fc.ing[p as usize];
        let arn = matches!(fc.cfg.mode, FcMode::Arn(_)) && fc.cfg.arn_nodes[up];
        let time = fc.cfg.time_us;
        let mut send: Vec<(Kind, u32)> = Vec::new();
        let mut refresh = None;
        if ing > fc.cfg.xoff_bytes {
            if arn {
                let a = &mut fc.asserted[p as usize];
                if !a.refresh_pending {
                    // newly above XOFF: every key named before is named
                    // again (its halt may have expired upstream)
                    a.refresh_pending = true;
                    refresh = Some(self.now + time as u64 * 500_000);
                    let keys = a.keys.clone();
                    for k in keys {
                        send.push((Kind::Arn, Self::arn_bytes(fc, p, k, time)));
                    }
                }
                if let Some(k) = fc.largest_key(p) {
                    if !fc.asserted[p as usize].keys.contains(&k) {
                        fc.asserted[p as usize].keys.push(k);
                        send.push((Kind::Arn, Self::arn_bytes(fc, p, k, time)));
                    }
                }
            } else if !fc.asserted[p as usize].pfc {
                fc.asserted[p as usize].pfc = true;
                fc.stats.pause_sent += 1;
                send.push((Kind::Pause, 1));
            }
        } else if ing < fc.cfg.xon_bytes {
            let a = &mut fc.asserted[p as usize];
            if a.pfc {
                a.pfc = false;
                fc.stats.resume_sent += 1;
                send.push((Kind::Pause, 0));
            }
            let keys = std::mem::take(&mut fc.asserted[p as usize].keys);
            for k in keys {
                send.push((Kind::Arn, Self::arn_bytes(fc, p, k, 0)));
            }
        }
        if let Some(t) = refresh {
            self.at(t, Ev::ArnRefresh(p));
        }
        for (kind, psn) in send {
            self.send_upstream(p, kind, psn);
        }
    }

    /// An ARN for `key` with `time` from the node port `p` reaches, as
    /// bytes kept for its receiver; counted. Returns the bytes' index.
    fn arn_bytes(fc: &mut crate::flowctl::FlowControl, p: u32, key: u64, time: u32) -> u32 {
        let metric = ldcp_sim::wire::arn::metric(fc.ing[p as usize], 2 * fc.cfg.xoff_bytes);
        let b = fc.encode(key, time, metric);
        if time == 0 {
            fc.stats.arn_resume_sent += 1;
        } else {
            fc.stats.arn_halt_sent += 1;
        }
        fc.arn_wire.push(b);
        (fc.arn_wire.len() - 1) as u32
    }

    /// A control frame back over arrival port `p` to its upstream node.
    fn send_upstream(&mut self, p: u32, kind: Kind, psn: u32) {
        let back = self.ports[p as usize].peer;
        let pkt = Pkt::control(u32::MAX, kind, psn, self.cfg.ack_bytes, 0);
        self.push_ctrl(back, pkt);
    }

    /// A control packet into port `p`'s priority queue.
    pub(crate) fn push_ctrl(&mut self, p: u32, pkt: Pkt) {
        self.ports[p as usize].ctrl.push_back(pkt);
        self.start_tx(p);
    }

    /// A PFC frame that came over port `p`: its node's port back (`p`'s
    /// peer) stops or resumes data.
    fn receive_pause(&mut self, p: u32, on: bool) {
        let t = self.ports[p as usize].peer;
        let now = self.now;
        let host = (self.ports[t as usize].from as usize) < self.topo.hosts;
        let port = &mut self.ports[t as usize];
        match (on, port.paused_since) {
            (true, None) => port.paused_since = Some(now),
            (false, Some(since)) => {
                port.paused_since = None;
                if let Some(fc) = self.fc.as_mut() {
                    fc.stats.paused_ps += now - since;
                    if host {
                        fc.stats.host_paused_ps += now - since;
                    }
                }
                self.start_tx(t);
            }
            _ => {}
        }
    }

    /// An ARN that came over port `p` (its bytes at `idx`): halt or release
    /// its key on the port back.
    fn receive_arn(&mut self, p: u32, idx: u32) {
        let t = self.ports[p as usize].peer;
        let now = self.now;
        let fc = self.fc.as_ref().expect("flow control");
        let (key, time) = fc
            .decode(&fc.arn_wire[idx as usize])
            .expect("the simulator's ARNs parse");
        if time == 0 {
            self.release(t, key);
            return;
        }
        let until = now + time as u64 * 1_000_000;
        let port = &mut self.ports[t as usize];
        match port.halts.iter_mut().find(|h| h.key == key) {
            Some(h) => h.until = h.until.max(until),
            None => port.halts.push(crate::flowctl::Halt {
                key,
                until,
                since: now,
                queue: VecDeque::new(),
            }),
        }
        self.at(until, Ev::HaltExpire(t));
    }

    fn halt_expire(&mut self, t: u32) {
        let now = self.now;
        let due: Vec<u64> = self.ports[t as usize]
            .halts
            .iter()
            .filter(|h| h.until <= now)
            .map(|h| h.key)
            .collect();
        for k in due {
            self.release(t, k);
        }
    }

    /// Ends the halt of `key` on port `t`: its side queue joins the port's
    /// data queue, in order.
    fn release(&mut self, t: u32, key: u64) {
        let now = self.now;
        let port = &mut self.ports[t as usize];
        let Some(i) = port.halts.iter().position(|h| h.key == key) else {
            return;
        };
        let h = port.halts.swap_remove(i);
        for pkt in h.queue {
            port.data_bytes += pkt.bytes as u64;
            port.data.push_back(pkt);
        }
        if let Some(fc) = self.fc.as_mut() {
            fc.stats.halted_ps += now - h.since;
        }
        self.start_tx(t);
    }

    /// ARN's re-send at Time/2 while arrival port `p` is above XOFF.
    fn arn_refresh(&mut self, p: u32) {
        let fc = self.fc.as_mut().expect("flow control");
        fc.asserted[p as usize].refresh_pending = false;
        if fc.ing[p as usize] > fc.cfg.xoff_bytes {
            // above XOFF still: fc_check names every key again
            self.fc_check(p);
        }
    }

    /// Closes the pause and halt times still open at the end of a run.
    pub fn fc_finish(&mut self) {
        let now = self.now;
        let hosts = self.topo.hosts;
        let Some(fc) = self.fc.as_mut() else {
            return;
        };
        for port in &mut self.ports {
            if let Some(since) = port.paused_since {
                fc.stats.paused_ps += now - since;
                if (port.from as usize) < hosts {
                    fc.stats.host_paused_ps += now - since;
                }
                port.paused_since = Some(now);
            }
            for h in &mut port.halts {
                fc.stats.halted_ps += now - h.since;
                h.since = now;
            }
        }
    }

    /// Halts still open on any port (ARN).
    pub fn halts_open(&self) -> usize {
        self.ports.iter().map(|p| p.halts.len()).sum()
    }

    /// Data packets waiting in side queues.
    pub fn side_queued(&self) -> u64 {
        self.ports
            .iter()
            .flat_map(|p| p.halts.iter())
            .map(|h| h.queue.len() as u64)
            .sum()
    }

    // ---------------------------------------------------------------- end

    /// Conservation at the end: data packets sent = delivered + dropped in
    /// the network + in flight. Returns the packets in flight.
    pub fn in_flight_data(&self) -> u64 {
        let mut n = 0u64;
        for p in &self.ports {
            n += p.data.len() as u64;
            n += p.halts.iter().map(|h| h.queue.len() as u64).sum::<u64>();
            n += p.pipe.iter().filter(|x| x.1.kind == Kind::Data).count() as u64;
            n += p.sending.is_some_and(|s| s.kind == Kind::Data) as u64;
        }
        n
    }

    /// Control packets (ACK/NAK) still in the network.
    pub fn in_flight_ctrl(&self) -> u64 {
        let mut n = 0u64;
        for p in &self.ports {
            n += p.ctrl.len() as u64;
            n += p.pipe.iter().filter(|x| x.1.kind != Kind::Data).count() as u64;
            n += p.sending.is_some_and(|s| s.kind != Kind::Data) as u64;
        }
        n
    }

    /// The merge figures of every NIC's engine, summed.
    pub fn merge_stats(&self) -> crate::engine::MergeStats {
        let mut m = crate::engine::MergeStats::default();
        for h in &self.hosts {
            if let Some(e) = &h.engine {
                m.add(&e.merge_stats());
            }
        }
        m
    }

    /// Engine events still inside some NIC's engine.
    pub fn engine_in_flight(&self) -> u64 {
        self.hosts
            .iter()
            .filter_map(|h| h.engine.as_ref())
            .map(|e| e.in_flight())
            .sum()
    }

    /// Flows not finished.
    pub fn unfinished(&self) -> usize {
        self.flows.len() - self.stats.flows_done as usize
    }

    /// Stops every long-lived flow from sending more (for a drain).
    pub fn stop_long_flows(&mut self) {
        let mut done = Vec::new();
        for (i, fl) in self.flows.iter_mut().enumerate() {
            if fl.size_pkts == u64::MAX {
                fl.size_pkts = fl.max_sent.max(1);
                fl.nxt = fl.nxt.min(fl.size_pkts);
                if fl.started && fl.finish_ps.is_none() && fl.una >= fl.size_pkts {
                    done.push(i as u32);
                }
            }
        }
        for f in done {
            self.finish(f);
        }
    }
}
