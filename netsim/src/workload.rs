//! Workloads: flow sizes from the HPCC simulator's CDFs (`traffic_gen/`,
//! "size_bytes cdf_percent", sampled with linear interpolation between
//! points, as its `custom_rand.py` does) and Poisson arrivals per host at a
//! load relative to the host's NIC rate (its `traffic_gen.py`: mean gap
//! `1 / (rate * load / 8 / mean_size)`, destination uniform among the other
//! hosts).

use crate::rng::Stream;

/// A flow-size distribution: (bytes, cdf in [0, 1]) points.
#[derive(Clone, Debug)]
pub struct Cdf {
    /// Its name.
    pub name: &'static str,
    points: Vec<(f64, f64)>,
}

/// WebSearch (`WebSearch_distribution.txt`).
pub fn websearch() -> Cdf {
    Cdf::new(
        "WebSearch",
        &[
            (0.0, 0.0),
            (10e3, 15.0),
            (20e3, 20.0),
            (30e3, 30.0),
            (50e3, 40.0),
            (80e3, 53.0),
            (200e3, 60.0),
            (1e6, 70.0),
            (2e6, 80.0),
            (5e6, 90.0),
            (10e6, 97.0),
            (30e6, 100.0),
        ],
    )
}

/// FB_Hadoop (`FbHdp_distribution.txt`).
pub fn fb_hadoop() -> Cdf {
    Cdf::new(
        "FB_Hadoop",
        &[
            (0.0, 0.0),
            (100.0, 1.0),
            (200.0, 2.0),
            (300.0, 5.0),
            (350.0, 15.0),
            (400.0, 20.0),
            (500.0, 30.0),
            (600.0, 40.0),
            (700.0, 50.0),
            (1000.0, 60.0),
            (2000.0, 67.0),
            (7000.0, 70.0),
            (30000.0, 72.0),
            (50000.0, 82.0),
            (80000.0, 87.0),
            (120000.0, 90.0),
            (300000.0, 95.0),
            (1e6, 97.5),
            (2e6, 99.0),
            (10e6, 100.0),
        ],
    )
}

impl Cdf {
    fn new(name: &'static str, pct: &[(f64, f64)]) -> Self {
        Cdf {
            name,
            points: pct.iter().map(|&(b, p)| (b, p / 100.0)).collect(),
        }
    }

    /// A size drawn by inverse transform with linear interpolation, bytes (at least 1).
    pub fn sample(&self, u: f64) -> u64 {
        for w in self.points.windows(2) {
            let ((b0, c0), (b1, c1)) = (w[0], w[1]);
            if u <= c1 && c1 > c0 {
                let x = b0 + (b1 - b0) * (u - c0).max(0.0) / (c1 - c0);
                return (x.round() as u64).max(1);
            }
        }
        self.points.last().map_or(1, |p| p.0 as u64)
    }

    /// The mean, by the trapezoid rule (the HPCC generator's `getAvg`).
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1))
            .sum()
    }
}

/// One flow to start.
#[derive(Clone, Copy, Debug)]
pub struct FlowSpec {
    /// Sender host.
    pub src: usize,
    /// Receiver host.
    pub dst: usize,
    /// Payload bytes.
    pub bytes: u64,
    /// Start, ps.
    pub start_ps: u64,
}

/// Poisson arrivals at every host for `duration_ps`, sizes from `cdf`, at
/// `load` of `host_bps`.
pub fn poisson(
    hosts: usize,
    host_bps: f64,
    load: f64,
    cdf: &Cdf,
    duration_ps: u64,
    seed: u64,
) -> Vec<FlowSpec> {
    let mut arr = Stream::new(seed, "arrivals");
    let mut sizes = Stream::new(seed, "sizes");
    let mut dsts = Stream::new(seed, "destinations");
    let mean_gap_ps = 1e12 / (host_bps * load / 8.0 / cdf.mean());
    let mut out = Vec::new();
    for src in 0..hosts {
        let mut t = arr.exp(mean_gap_ps);
        while (t as u64) < duration_ps {
            let mut dst = dsts.below(hosts as u64 - 1) as usize;
            if dst >= src {
                dst += 1;
            }
            out.push(FlowSpec {
                src,
                dst,
                bytes: cdf.sample(sizes.uniform()),
                start_ps: t as u64,
            });
            t += arr.exp(mean_gap_ps);
        }
    }
    out.sort_by_key(|f| (f.start_ps, f.src));
    out
}
