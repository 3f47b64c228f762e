//! Run parameters: packet sizes, the hardware's clock, each algorithm's
//! settings, the switch's thresholds per link rate. Every value has its
//! unit in its name; [`NetConfig::validate`] refuses illegal ones, naming
//! the value and the legal range.

use ldcp_sim::window_engine::{WindowParams, CW_FRAC_BITS};
use ldcp_sim::wred_ecn::{WredParams, Q_MAX, UQ1_15};

/// The congestion control every host runs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Cc {
    /// LDCP: fast start, PAWA with the gamma floor, pacing (the golden models).
    Ldcp,
    /// DCTCP (RFC 8257), window-based, switch marking on one threshold K.
    Dctcp,
    /// DCQCN, rate-based (the HPCC simulator's 100 Gb/s parameters).
    Dcqcn,
}

impl Cc {
    /// Every algorithm, in report order.
    pub const ALL: [Cc; 3] = [Cc::Ldcp, Cc::Dctcp, Cc::Dcqcn];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Cc::Ldcp => "ldcp",
            Cc::Dctcp => "dctcp",
            Cc::Dcqcn => "dcqcn",
        }
    }
}

/// LDCP's switch thresholds on a 100 Gb/s port (scaled with the rate).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct LdcpSwitch {
    /// Start of the marking ramp, bytes.
    pub k_min_bytes: u32,
    /// End of the ramp, bytes.
    pub k_max_bytes: u32,
    /// P_max.
    pub p_max: f64,
    /// Eq. 3's K: fast-start (Not-ECT) packets are dropped from here, bytes.
    pub k_bytes: u32,
}

/// DCQCN's parameters (the HPCC simulator's `run.py` for `dcqcn` at 100 Gb/s).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct DcqcnParams {
    /// Switch: K_min at 100 Gb/s, bytes (x4 at 400 Gb/s).
    pub k_min_bytes: u32,
    /// Switch: K_max at 100 Gb/s, bytes.
    pub k_max_bytes: u32,
    /// Switch: P_max.
    pub p_max: f64,
    /// alpha's EWMA gain g.
    pub g: f64,
    /// alpha decays once per this interval without a CNP, ps.
    pub alpha_interval_ps: u64,
    /// The rate is cut at most once per this interval, ps.
    pub decrease_interval_ps: u64,
    /// The rate-increase timer, ps.
    pub rp_timer_ps: u64,
    /// Fast-recovery stages before additive increase.
    pub fast_recovery: u32,
    /// Additive increase, bits/s.
    pub rai_bps: f64,
    /// Hyper increase, bits/s.
    pub rhai_bps: f64,
    /// Minimum rate, bits/s.
    pub min_rate_bps: f64,
}

/// Everything a run is configured with.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NetConfig {
    /// The algorithm.
    pub cc: Cc,
    /// Payload per data packet, bytes.
    pub payload_bytes: u32,
    /// Headers per data packet on the wire (RoCEv2 over IPv4), bytes.
    pub header_bytes: u32,
    /// An ACK, NAK or CNP on the wire, bytes.
    pub ack_bytes: u32,
    /// The NIC's and the switch port's hardware clock, MHz.
    pub clock_mhz: u32,
    /// Per-port buffer on a 100 Gb/s port (scaled with the rate, capped at
    /// the block's 24-bit occupancy), bytes.
    pub buf_bytes_100g: u32,
    /// LDCP's window engine parameters (alpha, beta, gamma, cw_max, rtt_ticks).
    pub window: WindowParams,
    /// LDCP's initial window (fast start's IW), packets.
    pub iw_pkts: u32,
    /// LDCP's switch thresholds.
    pub ldcp_switch: LdcpSwitch,
    /// DCTCP's K on a 100 Gb/s port, bytes.
    pub dctcp_k_bytes_100g: u32,
    /// DCTCP's g.
    pub dctcp_g: f64,
    /// DCTCP's initial window, packets.
    pub dctcp_iw_pkts: u32,
    /// DCQCN (the HPCC simulator's `run.py` for `dcqcn`: t_alpha 1 us,
    /// t_dec 4 us, t_inc 300 us, g 1/256, FAST_RECOVERY_TIMES 1, RAI
    /// 5 bw/25 = 20 Mb/s, RHAI 50 bw/25 = 200 Mb/s, MIN_RATE 1 Gb/s; the
    /// switch at K_min 100 bw/25 = 400 KB, K_max 400 bw/25 = 1,600 KB,
    /// P_max 0.2 on 100 Gb/s, x4 on 400 Gb/s).
    pub dcqcn: DcqcnParams,
    /// The receiver's delayed-ACK count m (1: an ACK per packet).
    pub ack_m: u32,
    /// The ACK generator's timeout for held ACKs, cycles.
    pub ack_timeout_cycles: u32,
    /// Flows per NIC table: the window engine's size (256, the iCE40
    /// build's); a flow that finds the table full waits for a free entry.
    pub nic_flows: usize,
    /// Retransmission timeout (tail loss), ps; LDCP adds its pacing interval.
    pub rto_ps: u64,
    /// Queue sampling interval of the watched ports, ps.
    pub sample_ps: u64,
    /// The base RTT the parameters were derived from, ps (set by the scenario).
    pub base_rtt_ps: u64,
    /// The host link rate the parameters were derived from, bits/s.
    pub host_rate_bps: u64,
}

/// A refused configuration value.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl NetConfig {
    /// The defaults for `cc` on a network whose hosts have `host_rate_bps`
    /// links and whose base RTT is `base_rtt_ps`: IW = one BDP, the
    /// engine's RTT in cycles, DCTCP's K from the paper's K > C RTT / 7.
    pub fn new(cc: Cc, host_rate_bps: u64, base_rtt_ps: u64) -> Self {
        let mut c = NetConfig {
            cc,
            payload_bytes: 1000,
            header_bytes: 48,
            ack_bytes: 64,
            clock_mhz: 100,
            buf_bytes_100g: 4 << 20,
            window: WindowParams {
                alpha_raw: 256,
                beta_raw: 128,
                gamma_shift: 4,
                cw_max_raw: 1 << CW_FRAC_BITS,
                rtt_ticks: 1,
            },
            iw_pkts: 1,
            ldcp_switch: LdcpSwitch {
                k_min_bytes: 5_000,
                k_max_bytes: 50_000,
                p_max: 1.0,
                k_bytes: 20_000,
            },
            dctcp_k_bytes_100g: 0,
            dctcp_g: 1.0 / 16.0,
            dctcp_iw_pkts: 1,
            dcqcn: DcqcnParams {
                k_min_bytes: 400_000,
                k_max_bytes: 1_600_000,
                p_max: 0.2,
                g: 1.0 / 256.0,
                alpha_interval_ps: 1_000_000,
                decrease_interval_ps: 4_000_000,
                rp_timer_ps: 300_000_000,
                fast_recovery: 1,
                rai_bps: 20e6,
                rhai_bps: 200e6,
                min_rate_bps: 1e9,
            },
            ack_m: 1,
            ack_timeout_cycles: 1000,
            nic_flows: 256,
            rto_ps: 1_000_000_000,
            sample_ps: 1_000_000,
            base_rtt_ps,
            host_rate_bps,
        };
        c.derive();
        c
    }

    /// Re-derives what depends on the rate and the RTT (IW, cw_max, the
    /// engine's RTT, DCTCP's K).
    pub fn derive(&mut self) {
        let bdp = self.bdp_pkts();
        self.iw_pkts = bdp.clamp(1, 4095) as u32;
        self.dctcp_iw_pkts = bdp.max(1) as u32;
        self.window.cw_max_raw = ((4 * bdp).clamp(1, 4095) as u32) << CW_FRAC_BITS;
        let ticks = self.base_rtt_ps.div_ceil(self.cycle_ps());
        self.window.rtt_ticks = ticks.clamp(1, 65535) as u32;
        // DCTCP paper: K > C RTT / 7; a quarter of a BDP at 100 Gb/s
        let bdp_bytes_100g = 100e9 / 8.0 * self.base_rtt_ps as f64 * 1e-12;
        self.dctcp_k_bytes_100g = (bdp_bytes_100g / 4.0).ceil() as u32;
    }

    /// [`NetConfig::derive`], keeping DCTCP's K when `keep_k`.
    pub fn derive_keep_k(&mut self, keep_k: bool) {
        let k = self.dctcp_k_bytes_100g;
        self.derive();
        if keep_k {
            self.dctcp_k_bytes_100g = k;
        }
    }

    /// Bytes of a data packet on the wire.
    pub fn packet_bytes(&self) -> u32 {
        self.payload_bytes + self.header_bytes
    }

    /// One BDP of the host link at the base RTT, in packets (rounded up).
    pub fn bdp_pkts(&self) -> u64 {
        let bytes = self.host_rate_bps as f64 / 8.0 * self.base_rtt_ps as f64 * 1e-12;
        (bytes / self.packet_bytes() as f64).ceil() as u64
    }

    /// The hardware clock period, ps.
    pub fn cycle_ps(&self) -> u64 {
        1_000_000 / self.clock_mhz as u64
    }

    /// The switch parameters of a port of `rate_bps` for this run's algorithm.
    pub fn wred_for(&self, rate_bps: u64, seed: u32) -> WredParams {
        let s = rate_bps as f64 / 100e9;
        let scale = |v: u32| ((v as f64 * s).round() as u64).min(Q_MAX as u64) as u32;
        let buf = scale(self.buf_bytes_100g);
        let p = |x: f64| UQ1_15::from_f64(x).expect("validated").raw();
        let (k_min, k_max, p_max, k) = match self.cc {
            Cc::Ldcp => (
                scale(self.ldcp_switch.k_min_bytes),
                scale(self.ldcp_switch.k_max_bytes),
                p(self.ldcp_switch.p_max),
                scale(self.ldcp_switch.k_bytes),
            ),
            // one threshold, step marking; every packet is ECT, so K is unused
            Cc::Dctcp => {
                let k = scale(self.dctcp_k_bytes_100g);
                (k, k, p(1.0), buf)
            }
            Cc::Dcqcn => (
                scale(self.dcqcn.k_min_bytes),
                scale(self.dcqcn.k_max_bytes),
                p(self.dcqcn.p_max),
                buf,
            ),
        };
        WredParams {
            k_min_bytes: k_min.min(buf),
            k_max_bytes: k_max.min(buf),
            k_bytes: k.min(buf),
            buf_max_bytes: buf,
            p_max_raw: p_max,
            seed: seed.max(1),
        }
    }

    /// Refuses an illegal configuration.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let e = |s: String| Err(ConfigError(s));
        if !(64..=9000).contains(&self.payload_bytes) {
            return e(format!(
                "payload = {} bytes is out of range: it must be in [64, 9000]",
                self.payload_bytes
            ));
        }
        if self.packet_bytes() > ldcp_sim::wred_ecn::LEN_MAX {
            return e(format!(
                "a packet of {} bytes does not fit the switch block's {}-bit length",
                self.packet_bytes(),
                ldcp_sim::wred_ecn::LEN_BITS
            ));
        }
        if !(1..=1000).contains(&self.clock_mhz) || 1_000_000 % self.clock_mhz != 0 {
            return e(format!(
                "clock = {} MHz is out of range: it must divide 10^6 ps and be in [1, 1000]",
                self.clock_mhz
            ));
        }
        self.window
            .validate()
            .map_err(|x| ConfigError(format!("window engine: {x}")))?;
        if !(1..=4095).contains(&self.iw_pkts) {
            return e(format!(
                "iw = {} packets is out of range: it must be in [1, 4095]",
                self.iw_pkts
            ));
        }
        if !(1..=15).contains(&self.ack_m) {
            return e(format!(
                "ack_m = {} is out of range: it must be in [1, 15]",
                self.ack_m
            ));
        }
        for (name, p) in [
            ("ldcp p_max", self.ldcp_switch.p_max),
            ("dcqcn p_max", self.dcqcn.p_max),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return e(format!(
                    "{name} = {p} is out of range: it must be in [0, 1]"
                ));
            }
        }
        if !(self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return e(format!(
                "dctcp g = {} is out of range: it must be in (0, 1]",
                self.dctcp_g
            ));
        }
        if self.nic_flows == 0 {
            return e("nic_flows = 0 is out of range: it must be at least 1".into());
        }
        // every port rate of the scenarios: 10..=400 Gb/s
        for gbps in [10u64, 25, 100, 400] {
            self.wred_for(gbps * 1_000_000_000, 1)
                .validate()
                .map_err(|x| ConfigError(format!("switch at {gbps} Gb/s: {x}")))?;
        }
        Ok(())
    }
}
