//! The network simulator with the RTL in the loop: the Verilated window
//! engine and WRED/ECN ports give the same closed-loop run as the golden
//! models (every packet's fate, every cw).

use ldcp_flow::netsim_rtl::Rtl;
use ldcp_netsim::config::Cc;
use ldcp_netsim::engine::{Hardware, Models};
use ldcp_netsim::scenario::{self, Options};
use ldcp_sim::wred_ecn::WredParams;
use ldcp_sim::SplitMix64;

/// One WRED/ECN port, stepped with random packets and drains: the RTL
/// backend's decisions and occupancy are the golden model's.
#[test]
fn wred_steps_match() {
    let mut rtl = Rtl::new().expect("verilator builds the blocks");
    let p = WredParams {
        k_min_bytes: 5_000,
        k_max_bytes: 50_000,
        k_bytes: 20_000,
        buf_max_bytes: 100_000,
        p_max_raw: 0x4000,
        seed: 77,
    };
    let mut a = rtl.wred(p).unwrap();
    let mut b = Models.wred(p).unwrap();
    let seed = 11;
    println!("seed {seed}");
    let mut r = SplitMix64::new(seed);
    for i in 0..20_000 {
        let x = r.next_u64();
        let pkt = if x % 3 != 0 {
            Some((64 + (x >> 8) as u32 % 1500, ((x >> 4) % 4) as u8))
        } else {
            None
        };
        let drain = if x % 5 == 0 {
            (x >> 20) as u32 % 3000
        } else {
            0
        };
        let (da, db) = (a.step(pkt, drain), b.step(pkt, drain));
        assert_eq!(da, db, "step {i}: {pkt:?} drain {drain}");
        // the occupancy port is OCCUPANCY_LATENCY_CYCLES late: settled
        // after a packet's step (the backend ticks until its decision)
        if pkt.is_some() {
            assert_eq!(a.occupancy_bytes(), b.occupancy_bytes(), "step {i}");
        }
    }
}

/// The closed loop with the RTL in it: the `mini` scenario (long flows and
/// an incast, marks, fast-start drops, merges) gives every packet's fate and
/// every cw the golden models give; the report of both runs is identical
/// but for the engine's name, the wall time and the merge figures (the RTL's
/// ports show updates, not the ACKs each merged).
#[test]
fn rtl_in_the_loop_equals_the_models() {
    let mut rtl = Rtl::new().expect("verilator builds the blocks");
    for seed in [1u64, 2] {
        println!("seed {seed}");
        let mut o = Options::new("mini", Cc::Ldcp, seed);
        o.log_engine = true;
        let t = std::time::Instant::now();
        let m = scenario::run(&o, &mut Models, &mut |_| {}).unwrap();
        let tm = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let r = scenario::run(&o, &mut rtl, &mut |_| {}).unwrap();
        let tr = t.elapsed().as_secs_f64();
        println!("model {tm:.3} s, rtl {tr:.3} s: {:.1}x slower", tr / tm);
        // every packet's fate and every cw: the engines' outputs, in order
        let outs = |s: &ldcp_netsim::sim::Sim| -> Vec<String> {
            s.engine_log
                .as_ref()
                .unwrap()
                .iter()
                .filter_map(|e| match e {
                    ldcp_netsim::sim::EngineLog::Out(h, u) => Some(format!("{h} {u:?}")),
                    _ => None,
                })
                .collect()
        };
        let (a, b) = (outs(&m.sim), outs(&r.sim));
        assert!(
            a.len() > 1000,
            "the run exercised the engine: {} updates",
            a.len()
        );
        assert_eq!(a, b, "every cw update");
        for k in ["packets", "fct", "watched", "events", "flows_completed"] {
            assert_eq!(m.json[k], r.json[k], "{k}");
        }
        let fates = |s: &ldcp_netsim::sim::Sim| -> Vec<(u64, u64, u64, u32)> {
            s.flows
                .iter()
                .map(|f| (f.sent_pkts, f.retx_pkts, f.finish_ps.unwrap(), f.min_cw_raw))
                .collect()
        };
        assert_eq!(
            fates(&m.sim),
            fates(&r.sim),
            "per flow: sent, resent, finish time, smallest cw"
        );
        assert_eq!(r.json["ldcp"]["engine_in_flight_after_drain"], 0);
    }
}
