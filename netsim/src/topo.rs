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

const GBPS: u64 = 1_000_000_000;
const US: u64 = 1_000_000;

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
