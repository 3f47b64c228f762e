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
//!
//! This module holds the types, the event loop and the run's accounting;
//! the simulator's steps are split by concern into `port` (links and
//! the switches' egress admission), `host` (hosts, flows, ACKs and the
//! congestion control) and `flow_control` (hop-by-hop pauses and ARN).

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

mod coordination;
mod flow_control;
mod host;
mod port;

pub use crate::packet::{DropReason, Kind, Pkt};

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
