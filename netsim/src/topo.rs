//! Topologies: hosts are nodes `0..hosts`, switches follow. Every link is
//! full duplex (two ports, one per direction) with a rate and a propagation
//! delay. Routes are shortest paths; among equal-cost next hops a switch
//! picks by a hash of the flow (ECMP), so a flow keeps one path.

/// One full-duplex link.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Link {
    /// One end (node).
    pub a: usize,
    /// The other end (node).
    pub b: usize,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// Propagation delay, picoseconds.
    pub delay_ps: u64,
}

/// A network.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Topology {
    /// What it is, for reports.
    pub name: String,
    /// Hosts (nodes `0..hosts`).
    pub hosts: usize,
    /// Switches (nodes `hosts..hosts + switches`).
    pub switches: usize,
    /// Links.
    pub links: Vec<Link>,
}

/// The nodes of [`Topology::wan`].
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct WanNodes {
    /// DC1's leaf (the senders').
    pub leaf1: usize,
    /// DC1's gateway.
    pub gw1: usize,
    /// The ingress PE (END.CON; encapsulates).
    pub pe_in: usize,
    /// P router R1.
    pub r1: usize,
    /// P router R5 (the congestion point: its port to R4).
    pub r5: usize,
    /// P router R4.
    pub r4: usize,
    /// The egress PE (decapsulates).
    pub pe_out: usize,
    /// DC2's gateway.
    pub gw2: usize,
    /// DC2's leaf (the receivers').
    pub leaf2: usize,
    /// The cross-traffic source (a host on R5).
    pub cross_src: usize,
    /// Its sink (a host on R4).
    pub cross_dst: usize,
}

/// The nodes of [`Topology::arn`].
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ArnNodes {
    /// Service A's sender.
    pub sa: usize,
    /// Service B's sender.
    pub sb: usize,
    /// A1's receiver (behind PE_A).
    pub ra: usize,
    /// B's receiver (behind PE_B).
    pub rb: usize,
    /// A2's receiver (behind PE_B).
    pub rc: usize,
    /// The DC gateway.
    pub gw: usize,
    /// The ingress PE.
    pub pe_in: usize,
    /// P router R1 (the WAN link's upstream end).
    pub r1: usize,
    /// P router R5 (the congested node).
    pub r5: usize,
    /// The egress PE toward A1's receiver.
    pub pe_a: usize,
    /// The egress PE toward B's and A2's.
    pub pe_b: usize,
}

const GBPS: u64 = 1_000_000_000;
const US: u64 = 1_000_000;

/// The nodes of [`Topology::c11`], named as in draft 002's example (§7;
/// COMPANION.md C11, H13).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct C11Nodes {
    /// H-1-1, flow F1's source.
    pub h_1_1: usize,
    /// H-n-1, its destination.
    pub h_n_1: usize,
    /// The incast's senders, on L1-n-1 beside H-n-1.
    pub incast: [usize; 16],
    /// Cross traffic into each layer-4 switch (the congestion at L4-1-1),
    /// and its sink on that switch's way down.
    pub cross_src: [usize; 2],
    /// The cross traffic's sinks.
    pub cross_dst: [usize; 2],
    /// L1-1-1 (two uplinks).
    pub l1_1_1: usize,
    /// L2-1-1 and L2-1-2 (each with two uplinks, to L3-1-1 and L3-m-1).
    pub l2: [usize; 2],
    /// L3-1-1 and L3-m-1 (each one uplink).
    pub l3: [usize; 2],
    /// L4-1-1 and L4-m-1 (each one way down toward rack n).
    pub l4: [usize; 2],
    /// The layer-3 switches under them toward rack n (L3-1-d, L3-m-d).
    pub down: [usize; 2],
    /// L2-n-1.
    pub l2_n_1: usize,
    /// L1-n-1 (the incast switch).
    pub l1_n_1: usize,
}

impl Topology {
    fn new(name: String, hosts: usize, switches: usize) -> Self {
        Topology {
            name,
            hosts,
            switches,
            links: Vec::new(),
        }
    }

    fn link(&mut self, a: usize, b: usize, gbps: u64, delay_ps: u64) {
        self.links.push(Link {
            a,
            b,
            rate_bps: gbps * GBPS,
            delay_ps,
        });
    }

    /// Nodes in all.
    pub fn nodes(&self) -> usize {
        self.hosts + self.switches
    }

    /// `n` senders (hosts `0..n`) on switch L, `n` receivers (hosts
    /// `n..2n`) on switch R, and the L-R bottleneck; every link at
    /// `gbps`, `delay_ps` each.
    pub fn dumbbell(n: usize, gbps: u64, delay_ps: u64) -> Self {
        let mut t = Topology::new(format!("dumbbell {n}x{n}, {gbps} Gb/s"), 2 * n, 2);
        let (l, r) = (2 * n, 2 * n + 1);
        for h in 0..n {
            t.link(h, l, gbps, delay_ps);
            t.link(n + h, r, gbps, delay_ps);
        }
        t.link(l, r, gbps, delay_ps);
        t
    }

    /// `n` senders (hosts `0..n`) and one receiver (host `n`) on one switch.
    pub fn star(n: usize, gbps: u64, delay_ps: u64) -> Self {
        let mut t = Topology::new(format!("{n}-to-1 star, {gbps} Gb/s"), n + 1, 1);
        let s = n + 1;
        for h in 0..=n {
            t.link(h, s, gbps, delay_ps);
        }
        t
    }

    /// A two-tier leaf-spine: `leaves` x `per_leaf` hosts at `host_gbps`,
    /// every leaf linked to every spine at `up_gbps`.
    pub fn leaf_spine(
        leaves: usize,
        per_leaf: usize,
        spines: usize,
        host_gbps: u64,
        up_gbps: u64,
        delay_ps: u64,
    ) -> Self {
        let hosts = leaves * per_leaf;
        let mut t = Topology::new(
            format!(
                "leaf-spine: {leaves} leaves x {per_leaf} hosts at {host_gbps} Gb/s, {spines} spines at {up_gbps} Gb/s"
            ),
            hosts,
            leaves + spines,
        );
        for h in 0..hosts {
            t.link(h, hosts + h / per_leaf, host_gbps, delay_ps);
        }
        for l in 0..leaves {
            for s in 0..spines {
                t.link(hosts + l, hosts + leaves + s, up_gbps, delay_ps);
            }
        }
        t
    }

    /// Draft 002's example network (§7), cut to the switches its walk-through
    /// names: H-1-1 on L1-1-1, which reaches L2-1-1 and L2-1-2; each of
    /// them reaches L3-1-1 and L3-m-1; each layer-3 switch has one uplink,
    /// to L4-1-1 and L4-m-1; each layer-4 switch one way down toward rack
    /// n (through its own layer-3 switch) to L2-n-1, L1-n-1 and H-n-1. So
    /// L1-1-1 and L2-1-1 have two equal-cost next hops, L3-1-1 and L4-1-1
    /// one. Sixteen hosts beside H-n-1 make the incast; one cross-traffic
    /// host on each layer-4 switch sends to a host on the layer-3 switch
    /// below it. Every link 100 Gb/s, 1 us.
    pub fn c11() -> (Self, C11Nodes) {
        let hosts = 2 + 16 + 4;
        let sw = |i: usize| hosts + i;
        let n = C11Nodes {
            h_1_1: 0,
            h_n_1: 1,
            incast: std::array::from_fn(|i| 2 + i),
            cross_src: [18, 19],
            cross_dst: [20, 21],
            l1_1_1: sw(0),
            l2: [sw(1), sw(2)],
            l3: [sw(3), sw(4)],
            l4: [sw(5), sw(6)],
            down: [sw(7), sw(8)],
            l2_n_1: sw(9),
            l1_n_1: sw(10),
        };
        let mut t = Topology::new(
            "draft 002's example (section 7): 11 switches, 100 Gb/s, 1 us".into(),
            hosts,
            11,
        );
        let g = 100;
        t.link(n.h_1_1, n.l1_1_1, g, US);
        for k in 0..2 {
            t.link(n.l1_1_1, n.l2[k], g, US);
            for j in 0..2 {
                t.link(n.l2[k], n.l3[j], g, US);
            }
            t.link(n.l3[k], n.l4[k], g, US);
            t.link(n.l4[k], n.down[k], g, US);
            t.link(n.down[k], n.l2_n_1, g, US);
            t.link(n.cross_src[k], n.l4[k], g, US);
            t.link(n.cross_dst[k], n.down[k], g, US);
        }
        t.link(n.l2_n_1, n.l1_n_1, g, US);
        t.link(n.h_n_1, n.l1_n_1, g, US);
        for &h in &n.incast {
            t.link(h, n.l1_n_1, g, US);
        }
        (t, n)
    }

    /// The HPCC paper's fat tree (`simulation/mix/fat.txt`): 320 hosts, 16
    /// per ToR at 100 Gb/s; 20 ToRs, 20 Aggs and 16 Cores at 400 Gb/s, in
    /// 5 pods of 4 ToRs and 4 Aggs (each ToR to the 4 Aggs of its pod);
    /// each Agg to 4 Cores (Agg `i` of a pod to cores `4i..4i+4`); 1 us links.
    pub fn hpcc_fat_tree() -> Self {
        let hosts = 320;
        let (tor0, agg0, core0) = (hosts, hosts + 20, hosts + 40);
        let mut t = Topology::new(
            "HPCC fat tree: 320 hosts, 20 ToR, 20 Agg, 16 Core (100/400 Gb/s, 1 us)".into(),
            hosts,
            56,
        );
        for h in 0..hosts {
            t.link(h, tor0 + h / 16, 100, US);
        }
        for pod in 0..5 {
            for i in 0..4 {
                for j in 0..4 {
                    t.link(tor0 + pod * 4 + i, agg0 + pod * 4 + j, 400, US);
                }
            }
            for j in 0..4 {
                for c in 0..4 {
                    t.link(agg0 + pod * 4 + j, core0 + j * 4 + c, 400, US);
                }
            }
        }
        t
    }

    /// Draft 001's WAN (COMPANION.md §5; Figure 1 with G19's R5): `n`
    /// senders (hosts `0..n`) on DC1's leaf, `n` receivers (hosts `n..2n`)
    /// on DC2's, a cross-traffic source (host `2n`) on R5 and its sink
    /// (host `2n + 1`) on R4; the chain leaf1 - gateway1 - ingress PE -
    /// R1 - R5 - R4 - egress PE - gateway2 - leaf2. Host links run at
    /// `host_gbps`, the cross source's at `wan_gbps`, the DC and WAN links
    /// at `wan_gbps` except R5 -> R4 at `bottleneck_gbps`. Every DC-side
    /// link takes 1 us; the WAN links split the rest of the one-way delay
    /// `d_ps` so that R5's egress, the congestion point, is `x d_ps` from
    /// a sender (COMPANION.md's fraction x of the path).
    pub fn wan(
        n: usize,
        host_gbps: u64,
        wan_gbps: u64,
        bottleneck_gbps: u64,
        d_ps: u64,
        x: f64,
    ) -> Result<(Self, WanNodes), String> {
        // three 1 us links on each side of the WAN
        let dc = 3 * US;
        let before = (x * d_ps as f64).round() as u64;
        if !(0.0..=1.0).contains(&x) || before < dc + 2 || d_ps < before + dc + 2 {
            return Err(format!(
                "a WAN of one-way delay {} us with the congestion point at x = {x}: each side of it needs more \
                 than its 3 us of data-centre links (x in (0, 1), delay at least 10 us)",
                d_ps / US
            ));
        }
        let hosts = 2 * n + 2;
        let s0 = hosts;
        let nodes = WanNodes {
            leaf1: s0,
            gw1: s0 + 1,
            pe_in: s0 + 2,
            r1: s0 + 3,
            r5: s0 + 4,
            r4: s0 + 5,
            pe_out: s0 + 6,
            gw2: s0 + 7,
            leaf2: s0 + 8,
            cross_src: 2 * n,
            cross_dst: 2 * n + 1,
        };
        let mut t = Topology::new(
            format!(
                "WAN (draft 001): {n} senders at {host_gbps} Gb/s, DC1 leaf - gateway - PE - R1 - R5 - R4 - PE - \
                 gateway - DC2 leaf, {wan_gbps} Gb/s, R5 -> R4 {bottleneck_gbps} Gb/s, one-way {} us, R5 at x = {x}",
                d_ps as f64 / US as f64
            ),
            hosts,
            9,
        );
        let w = nodes;
        for h in 0..n {
            t.link(h, w.leaf1, host_gbps, US);
            t.link(n + h, w.leaf2, host_gbps, US);
        }
        let (a, c) = ((before - dc) / 2, (d_ps - before - dc) / 2);
        t.link(w.leaf1, w.gw1, wan_gbps, US);
        t.link(w.gw1, w.pe_in, wan_gbps, US);
        t.link(w.pe_in, w.r1, wan_gbps, a);
        t.link(w.r1, w.r5, wan_gbps, before - dc - a);
        t.link(w.r5, w.r4, bottleneck_gbps, c);
        t.link(w.r4, w.pe_out, wan_gbps, d_ps - before - dc - c);
        t.link(w.pe_out, w.gw2, wan_gbps, US);
        t.link(w.gw2, w.leaf2, wan_gbps, US);
        t.link(w.cross_src, w.r5, wan_gbps, US);
        t.link(w.cross_dst, w.r4, wan_gbps, US);
        Ok((t, nodes))
    }

    /// Scenario 001-C's network (COMPANION.md §5): two services share one
    /// WAN link (R1 -> R5, `wan_delay_ps`, 100 Gb/s) and one priority.
    /// Service A's sender (host 0, 100 Gb/s) sends flow A1 to host 2 behind
    /// the egress PE_A, whose link from R5 is 10 Gb/s (A1's bottleneck),
    /// and flow A2 to host 4 behind PE_B; service B's sender (host 1) sends
    /// to host 3 behind PE_B. Sender side: both hosts on the DC gateway,
    /// then the ingress PE, R1. Every other link 100 Gb/s, 1 us.
    pub fn arn(wan_delay_ps: u64) -> (Self, ArnNodes) {
        let n = ArnNodes {
            sa: 0,
            sb: 1,
            ra: 2,
            rb: 3,
            rc: 4,
            gw: 5,
            pe_in: 6,
            r1: 7,
            r5: 8,
            pe_a: 9,
            pe_b: 10,
        };
        let mut t = Topology::new(
            format!(
                "001-C: services A and B on one priority across R1 -> R5 (100 Gb/s, {} us); A1's egress R5 -> PE_A 10 Gb/s",
                wan_delay_ps as f64 / US as f64
            ),
            5,
            6,
        );
        t.link(n.sa, n.gw, 100, US);
        t.link(n.sb, n.gw, 100, US);
        t.link(n.gw, n.pe_in, 100, US);
        t.link(n.pe_in, n.r1, 100, US);
        t.link(n.r1, n.r5, 100, wan_delay_ps);
        t.link(n.r5, n.pe_a, 10, US);
        t.link(n.r5, n.pe_b, 100, US);
        t.link(n.pe_a, n.ra, 100, US);
        t.link(n.pe_b, n.rb, 100, US);
        t.link(n.pe_b, n.rc, 100, US);
        (t, n)
    }

    /// The links, as (rate bits/s, delay ps), of a shortest route from host
    /// `from` to the host farthest from it (the lowest-numbered one among
    /// equals): the route a base RTT is taken on. Hosts do not forward.
    pub fn farthest_route(&self, from: usize) -> Vec<(u64, u64)> {
        let mut adj = vec![Vec::new(); self.nodes()];
        for (i, l) in self.links.iter().enumerate() {
            adj[l.a].push((l.b, i));
            adj[l.b].push((l.a, i));
        }
        let d = self.distances_to(from, &adj);
        let far = (0..self.hosts)
            .filter(|&h| d[h] != u16::MAX)
            .max_by_key(|&h| (d[h], std::cmp::Reverse(h)))
            .unwrap_or(from);
        // walk back toward `from`, one hop nearer each step, through switches
        let mut route = Vec::new();
        let mut x = far;
        while x != from {
            let &(y, l) = adj[x]
                .iter()
                .find(|&&(y, _)| d[y] + 1 == d[x] && (y >= self.hosts || y == from))
                .expect("a node at distance k > 0 has a neighbour at k - 1");
            route.push((self.links[l].rate_bps, self.links[l].delay_ps));
            x = y;
        }
        route.reverse();
        route
    }

    /// Shortest-path hop counts from every node to `dst` (BFS).
    pub fn distances_to(&self, dst: usize, adj: &[Vec<(usize, usize)>]) -> Vec<u16> {
        let mut d = vec![u16::MAX; self.nodes()];
        d[dst] = 0;
        let mut q = std::collections::VecDeque::from([dst]);
        while let Some(x) = q.pop_front() {
            for &(y, _) in &adj[x] {
                // hosts do not forward: only a path's ends may be hosts
                if d[y] == u16::MAX {
                    d[y] = d[x] + 1;
                    if y >= self.hosts {
                        q.push_back(y);
                    }
                }
            }
        }
        d
    }
}
