//! The driver over every backend: the Verilated core against the golden
//! model bit for bit, resets that leave no stale state, the generator's one
//! event per cycle, the PCIe mapping on a file-backed BAR, the UART backend
//! over a pseudo-terminal with the bridge's model on the other end, and the
//! bridge protocol under random and corrupted frames.

use ldcp_host::backend::pcie::{parse_bdf, PcieBar};
use ldcp_host::backend::sim::SimBus;
use ldcp_host::backend::uart::UartBridge;
use ldcp_host::{regs, Device, DriverError, Param, RegAccess};
use ldcp_sim::uart_bridge::{self as br, Action, FrameParser};
use proptest::prelude::*;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};

/// The script both backends run: configure, push ACK events, read flows;
/// returns the windows and the counters (the cycle counter aside: it
/// differs with the backends' bus timing only if they disagree, which
/// the test checks apart).
fn script<A: RegAccess>(dev: &mut Device<A>) -> (Vec<u32>, ldcp_host::Stats) {
    dev.set_param(Param::Alpha, 0.5).unwrap();
    dev.set_param(Param::Beta, 0.25).unwrap();
    dev.set_param(Param::GammaShift, 4.0).unwrap();
    dev.set_param(Param::InitCw, 4.0).unwrap();
    dev.set_param(Param::CwMax, 64.0).unwrap();
    for f in 0..16 {
        dev.flow_reset(f).unwrap();
    }
    dev.flow_set(3, 0.75).unwrap();
    let mut x = 7u32;
    let mut evs = std::iter::from_fn(|| {
        x = ldcp_sim::xorshift::step(x);
        Some((x & 15, (x >> 8) & 15, (x >> 13) & 3 == 0))
    });
    let r = dev.push_events(&mut evs, 3_000, &mut |_, _| {}).unwrap();
    assert_eq!(
        r.events, 3_000,
        "the device counted every push (CNT_PUSHED)"
    );
    assert_eq!(r.dropped, 0);
    let cws = (0..16).map(|f| dev.flow_show(f).unwrap().cw_raw).collect();
    let mut st = dev.stats().unwrap();
    st.cycles = 0;
    (cws, st)
}

#[test]
fn sim_backend_matches_model_backend_bit_for_bit() {
    let mut sim = Device::open(ldcpctl::verilated::bus().expect("verilating nic_core")).unwrap();
    let mut model = Device::open(SimBus::model()).unwrap();
    assert_eq!(sim.info().git_hash, model.info().git_hash);
    let (a, sa) = script(&mut sim);
    let (b, sb) = script(&mut model);
    eprintln!("per-flow cw after 3,000 events (sim): {a:x?}");
    eprintln!("counters (sim): {sa:?}");
    assert_eq!(a, b, "per-flow cw, sim vs model");
    assert_eq!(sa, sb, "counters, sim vs model");
    assert_eq!(
        sim.io().cycles(),
        model.io().cycles(),
        "the same bus cycles"
    );
    // the events did something: windows moved away from where they started
    assert!(a.iter().filter(|&&c| c != 4 << 20).count() >= 12, "{a:x?}");
    assert_eq!(sa.core.cnt_events, 3_000);
}

/// One step's outcome in the extension blocks' script.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Fs(ldcp_host::FsOutcome),
    Ag(ldcp_host::AgOutcome),
    Wred(ldcp_host::WredOutcome),
    Pacing(ldcp_host::PacingState),
    Stats(ldcp_host::Stats),
}

/// The extension blocks through the driver: every outcome, typed.
fn ext_script<A: RegAccess>(dev: &mut Device<A>) -> Vec<Outcome> {
    use ldcp_host::FsKind;
    let mut out = Vec::new();
    dev.set_param(Param::AgM, 3.0).unwrap();
    dev.set_param(Param::FsIw, 4.0).unwrap();
    dev.set_param(Param::WredKMin, 30000.0).unwrap();
    dev.set_param(Param::WredKMax, 90000.0).unwrap();
    dev.set_param(Param::WredPMax, 0.5).unwrap();
    let mut x = 99u32;
    let (mut tx, mut rx) = ([0u32; 8], [0u32; 8]);
    for _ in 0..200 {
        x = ldcp_sim::xorshift::step(x);
        let f = (x & 7) as usize;
        let r = match x >> 29 {
            0..=2 => {
                tx[f] += 1;
                let hdr = 0x4500 | (x >> 8) as u16 & 3;
                Outcome::Fs(
                    dev.fs_event(
                        FsKind::Tx,
                        f as u32,
                        tx[f] - 1,
                        x & 0x100 != 0,
                        hdr,
                        (x >> 12) as u16,
                    )
                    .unwrap(),
                )
            }
            3 => Outcome::Fs(
                dev.fs_event(
                    FsKind::Ack,
                    f as u32,
                    tx[f].saturating_sub((x >> 9) % 3),
                    false,
                    0,
                    0,
                )
                .unwrap(),
            ),
            4 | 5 => {
                // in order, now and then one lost (a gap, then NAKs)
                let psn = rx[f] + u32::from((x >> 10).is_multiple_of(8));
                let r = dev
                    .ag_packet(false, f as u32, psn, x & 0x400 != 0, x & 0x800 != 0)
                    .unwrap();
                if r.err == 0 && !r.last_ack.is_some_and(|a| a.nak) {
                    rx[f] = psn + 1;
                }
                Outcome::Ag(r)
            }
            _ => Outcome::Wred(
                dev.wred_packets(64 + (x >> 4) % 9000, (x >> 20) & 3, 1 + (x >> 8) % 20)
                    .unwrap(),
            ),
        };
        out.push(r);
    }
    dev.flow_set(3, 0.25).unwrap();
    dev.io().idle(20_000).unwrap();
    out.push(Outcome::Pacing(dev.pacing().unwrap()));
    let mut st = dev.stats().unwrap();
    st.cycles = 0;
    out.push(Outcome::Stats(st));
    out
}

#[test]
fn extension_blocks_sim_backend_matches_model_backend() {
    let mut sim = Device::open(ldcpctl::verilated::bus().expect("verilating nic_system")).unwrap();
    let mut model = Device::open(SimBus::model()).unwrap();
    assert!(sim.info().ext && model.info().ext);
    assert_eq!(sim.info().blocks, model.info().blocks);
    assert_eq!(
        sim.info().blocks,
        [
            "WINDOW_ENGINE",
            "PACING_TIMER",
            "FAST_START",
            "ACK_GEN",
            "WRED_ECN",
            "LOOP",
            "GENERATOR"
        ]
    );
    let a = ext_script(&mut sim);
    let b = ext_script(&mut model);
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "step {i}, sim vs model");
    }
    eprintln!("last outcomes (sim): {:?}", &a[a.len() - 2..]);
    // the script reached every block
    let ecn = |e: u32| {
        a.iter()
            .any(|o| matches!(o, Outcome::Fs(f) if f.kind == 0 && f.err == 0 && f.ecn == e))
    };
    assert!(ecn(2) && ecn(0), "ECT and Not-ECT transmits");
    assert!(
        a.iter()
            .any(|o| matches!(o, Outcome::Ag(r) if r.last_ack.is_some())),
        "ACKs"
    );
    let marks: u64 = a
        .iter()
        .map(|o| match o {
            Outcome::Wred(w) => w.marked,
            _ => 0,
        })
        .sum();
    assert!(marks > 0, "the port marked packets");
    assert!(
        matches!(&a[a.len() - 2], Outcome::Pacing(p) if p.grants > 0),
        "flow 3 below one packet was granted"
    );
}

fn reset_proof<A: RegAccess>(dev: &mut Device<A>) {
    dev.set_param(Param::InitCw, 2.0).unwrap();
    // a flow reset wins over the ACKs queued ahead of it and in the engine
    for f in [5u32, 200] {
        dev.flow_set(f, 30.0).unwrap();
        let mut evs = std::iter::repeat((f, 15, false));
        dev.push_events(&mut evs, 40, &mut |_, _| {}).unwrap();
        let mut evs = std::iter::repeat((f, 15, true));
        // no wait: these are still in the FIFO and the engine when the reset comes
        for (fl, n, e) in evs.by_ref().take(20) {
            dev.io()
                .write32(regs::ev_push::OFFSET, fl | n << 8 | (e as u32) << 12)
                .unwrap();
        }
        let s = dev.flow_reset(f).unwrap();
        assert_eq!(s.cw_raw, 2 << 20, "flow {f} right after its reset");
        // the 20 marked ACKs that were queued before the reset came first:
        // they merged into, or preceded, the reset's SET, which replaced them
        assert_eq!(dev.flow_show(f).unwrap().cw_raw, 2 << 20, "flow {f} later");
    }
    // a core reset: every flow back to INIT_CW (its default 1.0), counters zero,
    // parameters at their defaults, even with events in flight
    dev.flow_set(9, 100.0).unwrap();
    for i in 0..100u32 {
        dev.io()
            .write32(regs::ev_push::OFFSET, (i % 7) | 15 << 8)
            .unwrap();
    }
    dev.io()
        .write32(regs::gen_count::OFFSET, 1_000_000)
        .unwrap();
    dev.io().write32(regs::gen_ctrl::OFFSET, 1).unwrap();
    dev.core_reset().unwrap();
    let raw = dev.param(Param::InitCw).unwrap().raw;
    assert_eq!(raw, 1 << 20);
    assert_eq!(dev.param(Param::Alpha).unwrap().raw, 256);
    for f in 0..256 {
        assert_eq!(
            dev.flow_show(f).unwrap().cw_raw,
            1 << 20,
            "flow {f} after a core reset"
        );
    }
    let st = dev.stats().unwrap();
    assert!(st.cycles > 0);
    for (n, v) in st.entries() {
        match n.as_str() {
            "CYCLES" => {}
            // the 256 SETs of the sweep and the 256 reads above are updates
            "CNT_UPDATES" => assert_eq!(v, 512, "{n}"),
            _ => assert_eq!(v, 0, "{n} after a core reset"),
        }
    }
}

/// The extension blocks: a flow reset leaves no state of the flow in the
/// fast-start marker, the ACK generator or the pacing timer; a core reset
/// leaves none anywhere.
fn ext_reset_proof<A: RegAccess>(dev: &mut Device<A>) {
    use ldcp_host::FsKind;
    let fresh_tx = |dev: &mut Device<A>, f: u32| {
        let mut r = dev
            .fs_event(FsKind::Tx, f, 0, false, 0x4500, 0x1234)
            .unwrap();
        r.flow = 0;
        r
    };
    let fresh_rx = |dev: &mut Device<A>, f: u32| {
        let mut r = dev.ag_packet(false, f, 0, false, false).unwrap();
        if let Some(a) = r.last_ack.as_mut() {
            a.flow = 0;
        }
        r
    };
    dev.set_param(Param::AgM, 4.0).unwrap();
    dev.set_param(Param::AgTimeout, 60000.0).unwrap();
    dev.set_param(Param::FsIw, 8.0).unwrap();
    // flow 6 was never used: the reference
    let want_tx = fresh_tx(dev, 6);
    let want_rx = fresh_rx(dev, 6);
    assert_eq!(
        (want_tx.err, want_tx.stage, want_tx.ecn),
        (0, 1, 0),
        "{want_tx:?}"
    );
    assert_eq!(
        (want_rx.acks, want_rx.err),
        (0, 0),
        "held for m = 4: {want_rx:?}"
    );
    // flow 5: deep into fast start, a held ACK, a gap NAKed
    for psn in 0..6 {
        dev.fs_event(FsKind::Tx, 5, psn, false, 0x4500, 0).unwrap();
    }
    dev.fs_event(FsKind::Ack, 5, 3, false, 0, 0).unwrap();
    for psn in [0, 1, 2, 3, 4, 9] {
        dev.ag_packet(false, 5, psn, psn == 2, false).unwrap();
    }
    let before = fresh_tx(dev, 5);
    assert_ne!(before, want_tx, "flow 5 carries state before its reset");
    dev.flow_reset(5).unwrap();
    assert_eq!(
        fresh_tx(dev, 5),
        want_tx,
        "fast start of flow 5 after its reset"
    );
    assert_eq!(
        fresh_rx(dev, 5),
        want_rx,
        "receiver of flow 5 after its reset"
    );
    // pacing: flow 7 below one packet is granted; reset to init_cw 2 it leaves
    dev.set_param(Param::RttTicks, 400.0).unwrap();
    dev.set_param(Param::InitCw, 2.0).unwrap();
    let s = dev.flow_set(7, 0.5).unwrap();
    // RTT / cw = 800, within the engine's own error bound of an interval
    let within = |got: u32, ideal: f64| {
        (got as f64 - ideal).abs() <= ldcp_sim::window_engine::interval_error_bound(ideal)
    };
    assert!(within(s.interval_ticks, 800.0), "RTT / cw: {s:?}");
    dev.clear_counters().unwrap();
    dev.io().idle(8_000).unwrap();
    // one grant per interval, each at most N - 1 = 255 cycles late
    let p = dev.pacing().unwrap();
    assert!(
        (9..=11).contains(&p.grants) && p.last_flow == 7 && p.max_late < 256,
        "{p:?}"
    );
    // reset to init_cw 0.25 it restarts: its first grant comes a whole new
    // interval (1,600 cycles) after the reset, not on the old schedule (800)
    dev.set_param(Param::InitCw, 0.25).unwrap();
    let s = dev.flow_reset(7).unwrap();
    assert!(within(s.interval_ticks, 1600.0), "{s:?}");
    dev.clear_counters().unwrap();
    dev.io().idle(1_300).unwrap();
    assert_eq!(
        dev.pacing().unwrap().grants,
        0,
        "no grant before the new interval"
    );
    dev.io().idle(600).unwrap();
    assert_eq!(dev.pacing().unwrap().grants, 1, "then one");
    // reset to init_cw 2 it leaves
    dev.set_param(Param::InitCw, 2.0).unwrap();
    dev.flow_reset(7).unwrap();
    dev.clear_counters().unwrap();
    dev.io().idle(8_000).unwrap();
    assert_eq!(dev.pacing().unwrap().grants, 0, "flow 7 left the timer");
    // WRED: fill the queue, then a core reset empties it
    let w = dev.wred_packets(9000, 2, 50).unwrap();
    assert!(w.occupancy_bytes > 100_000 && w.marked > 0, "{w:?}");
    dev.flow_set(7, 0.5).unwrap();
    dev.core_reset().unwrap();
    assert_eq!(dev.param(Param::FsIw).unwrap().raw, 64);
    assert_eq!(dev.param(Param::AgM).unwrap().raw, 1);
    dev.set_param(Param::AgM, 4.0).unwrap();
    dev.set_param(Param::FsIw, 8.0).unwrap();
    let x = dev.stats().unwrap().ext.expect("the extension blocks");
    assert_eq!(
        x,
        ldcp_host::ExtStats {
            counters: Default::default(),
            pt_max_late_cycles: 0,
            wred_occupancy_bytes: 0,
            err_fs_overrun: false,
            err_ag_overrun: false,
            err_wred_overrun: false,
            loop_in_pipe: 0,
        },
        "the extension blocks after a core reset"
    );
    dev.io().idle(8_000).unwrap();
    assert_eq!(
        dev.pacing().unwrap().grants,
        0,
        "no flow paced after a core reset"
    );
    assert_eq!(
        fresh_tx(dev, 5),
        want_tx,
        "fast start of flow 5 after a core reset"
    );
    assert_eq!(
        fresh_rx(dev, 5),
        want_rx,
        "receiver of flow 5 after a core reset"
    );
}

#[test]
fn extension_resets_leave_no_stale_state_model() {
    let mut dev = Device::open(SimBus::model()).unwrap();
    ext_reset_proof(&mut dev);
}

#[test]
fn extension_resets_leave_no_stale_state_sim() {
    let mut dev = Device::open(ldcpctl::verilated::bus().expect("verilating nic_system")).unwrap();
    ext_reset_proof(&mut dev);
}

#[test]
fn flow_and_core_resets_leave_no_stale_state_model() {
    let mut dev = Device::open(SimBus::model()).unwrap();
    reset_proof(&mut dev);
}

#[test]
fn flow_and_core_resets_leave_no_stale_state_sim() {
    let mut dev = Device::open(ldcpctl::verilated::bus().expect("verilating nic_core")).unwrap();
    reset_proof(&mut dev);
}

#[test]
fn generator_runs_one_event_per_device_cycle() {
    let mut dev = Device::open(ldcpctl::verilated::bus().expect("verilating nic_core")).unwrap();
    let r = dev.run_generator(200_000, 0, &mut |_, _| {}).unwrap();
    eprintln!("{r:?}");
    assert_eq!(r.events_counted, 200_000);
    assert_eq!(r.gen_cycles, 200_000);
    assert!(r.device_cycles >= 200_000);
    // the generator's own stream, replayed here
    let want = ldcp_sim::nic_core::gen_events(0, dev.info().flows.trailing_zeros())
        .take(200_000)
        .filter(|e| e.2)
        .count() as u32;
    assert_eq!(dev.stats().unwrap().core.cnt_marked, want);
}

/// `ldcpctl --backend uart --port <path> <args>`: its exit code, stdout and
/// stderr.
fn ldcpctl_uart(path: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args(["--backend", "uart", "--port", path.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bar_file(len: usize, magic: u32, version: u32) -> tempfile_lite::TempPath {
    let p = tempfile_lite::TempPath::new("bar");
    let mut b = vec![0u8; len];
    if len >= 8 {
        b[0..4].copy_from_slice(&magic.to_le_bytes());
        b[4..8].copy_from_slice(&version.to_le_bytes());
    }
    std::fs::write(&p.0, b).unwrap();
    p
}

mod tempfile_lite {
    /// A file removed on drop.
    pub struct TempPath(pub std::path::PathBuf);
    impl TempPath {
        pub fn new(tag: &str) -> Self {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            TempPath(std::env::temp_dir().join(format!(
                "ldcp-{tag}-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            )))
        }
    }
    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// A BAR file of a NIC core alone (the `alchitry-cu` build): CAPS 0,
/// BLOCKS = the window engine and the generator.
fn nic_core_bar() -> tempfile_lite::TempPath {
    bar_with_blocks(regs::MAP_VERSION, ldcp_regmap::BLOCKS_NIC_CORE)
}

/// A BAR file of map `version` whose BLOCKS reads `blocks` (CAPS 0).
fn bar_with_blocks(version: u32, blocks: u32) -> tempfile_lite::TempPath {
    let f = bar_file(4096, regs::MAGIC, version);
    let mut b = std::fs::read(&f.0).unwrap();
    let off = regs::blocks::OFFSET as usize;
    b[off..off + 4].copy_from_slice(&blocks.to_le_bytes());
    std::fs::write(&f.0, b).unwrap();
    f
}

/// A device without BLOCKS.GENERATOR (the Alchitry Cu NIC) refuses a
/// generator run by the block's name and writes nothing; a map 2.0 device
/// (which has no such bit) holds the generator with its window engine.
#[test]
fn the_generator_is_a_block_of_its_own() {
    let f = bar_with_blocks(regs::MAP_VERSION, 1 << ldcp_regmap::BLOCK_WINDOW_ENGINE);
    let mut dev = Device::open(PcieBar::open_file(&f.0).unwrap()).unwrap();
    assert_eq!(dev.info().blocks, ["WINDOW_ENGINE"]);
    let e = dev.run_generator(1000, 1, &mut |_, _| {}).unwrap_err();
    assert!(
        matches!(&e, DriverError::NoBlock { block, .. } if block == "GENERATOR"),
        "{e}"
    );
    let bytes = std::fs::read(&f.0).unwrap();
    let off = regs::gen_count::OFFSET as usize;
    assert_eq!(&bytes[off..off + 4], &[0; 4], "GEN_COUNT was written");
    let f = bar_with_blocks(0x0002_0000, 1 << ldcp_regmap::BLOCK_WINDOW_ENGINE);
    let dev = Device::open(PcieBar::open_file(&f.0).unwrap()).unwrap();
    assert_eq!(dev.info().blocks, ["WINDOW_ENGINE", "GENERATOR"]);
}

#[test]
fn a_device_without_a_block_refuses_it_by_name() {
    let f = nic_core_bar();
    let mut dev = Device::open(PcieBar::open_file(&f.0).unwrap()).unwrap();
    assert!(!dev.info().ext);
    assert_eq!(dev.info().blocks, ["WINDOW_ENGINE", "GENERATOR"]);
    let e = dev.set_param(Param::WredKMin, 1000.0).unwrap_err();
    assert!(matches!(e, DriverError::NoBlock { .. }), "{e}");
    assert!(
        e.to_string().contains("parameter wred_k_min")
            && e.to_string().contains("the WRED_ECN block")
            && e.to_string().contains("BLOCKS: WINDOW_ENGINE"),
        "{e}"
    );
    // nothing was written
    let bytes = std::fs::read(&f.0).unwrap();
    let off = regs::wred_k_min::OFFSET as usize;
    assert_eq!(&bytes[off..off + 4], &[0; 4]);
    for (e, block) in [
        (
            dev.fs_event(ldcp_host::FsKind::Tx, 1, 0, false, 0x4500, 0)
                .unwrap_err(),
            "FAST_START",
        ),
        (
            dev.ag_packet(false, 1, 0, false, false).unwrap_err(),
            "ACK_GEN",
        ),
        (dev.wred_packets(1500, 2, 1).unwrap_err(), "WRED_ECN"),
        (dev.pacing().unwrap_err(), "PACING_TIMER"),
    ] {
        assert!(
            matches!(&e, DriverError::NoBlock { block: b, .. } if b == block),
            "{block}: {e}"
        );
    }
    // the core's own parameters still work
    dev.set_param(Param::Alpha, 0.5).unwrap();
}

/// A device of map 1.x (8-bit flow fields, other fields right above them:
/// the layout 2.0 changed) is refused by name, not misread.
#[test]
fn a_map_1_device_is_refused() {
    for v in [0x0001_0002, 0x0001_0004] {
        let f = bar_file(4096, regs::MAGIC, v);
        let e = Device::open(PcieBar::open_file(&f.0).unwrap())
            .err()
            .unwrap();
        assert!(
            matches!(e, DriverError::VersionMismatch { found, .. } if found == v),
            "{e}"
        );
        assert!(
            e.to_string().contains(&format!(
                "register-map version 1.{} of the device is not supported by this driver (it knows {}.{})",
                v & 0xffff,
                regs::MAP_VERSION >> 16,
                regs::MAP_VERSION & 0xffff
            )),
            "{e}"
        );
    }
}

#[test]
fn pcie_backend_maps_a_file_backed_bar() {
    let f = bar_file(4096, regs::MAGIC, regs::MAP_VERSION);
    let mut bar = PcieBar::open_file(&f.0).unwrap();
    bar.write32(regs::alpha::OFFSET, 0x80).unwrap();
    assert_eq!(bar.read32(regs::alpha::OFFSET).unwrap(), 0x80);
    let dev = Device::open(bar).unwrap();
    assert_eq!(
        dev.info().map_version,
        format!("{}.{}", regs::MAP_VERSION >> 16, regs::MAP_VERSION & 0xffff)
    );
    drop(dev);
    // the write went through the mapping to the file
    let bytes = std::fs::read(&f.0).unwrap();
    let off = regs::alpha::OFFSET as usize;
    assert_eq!(&bytes[off..off + 4], &0x80u32.to_le_bytes());

    let small = bar_file(1024, regs::MAGIC, regs::MAP_VERSION);
    let e = PcieBar::open_file(&small.0).err().unwrap();
    assert!(
        matches!(
            e,
            DriverError::BarTooSmall {
                size: 1024,
                need: 4096,
                ..
            }
        ),
        "{e}"
    );
    let v3 = bar_file(4096, regs::MAGIC, 0x0003_0000);
    let e = Device::open(PcieBar::open_file(&v3.0).unwrap())
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("register-map version 3.0 of the device is not supported"),
        "{e}"
    );
    let newer = bar_file(4096, regs::MAGIC, regs::MAP_VERSION + 1);
    assert!(matches!(
        Device::open(PcieBar::open_file(&newer.0).unwrap())
            .err()
            .unwrap(),
        DriverError::VersionMismatch { .. }
    ));
    let junk = bar_file(4096, 0xffff_ffff, 0);
    assert!(matches!(
        Device::open(PcieBar::open_file(&junk.0).unwrap())
            .err()
            .unwrap(),
        DriverError::NotLdcp {
            found: 0xffff_ffff,
            ..
        }
    ));
    let e = PcieBar::open_bdf("0000:7f:1f.7").err().unwrap();
    assert!(matches!(e, DriverError::NoDevice { .. }), "{e}");
    assert!(
        e.to_string().contains("/sys/bus/pci/devices/0000:7f:1f.7"),
        "{e}"
    );
    assert!(parse_bdf("03:00.0").is_ok());
    let e = parse_bdf("3:0.0").err().unwrap();
    assert!(e.to_string().contains("DDDD:BB:DD.F"), "{e}");
    let e = PcieBar::open_file(std::path::Path::new("/proc/version"))
        .err()
        .unwrap();
    assert!(
        matches!(
            e,
            DriverError::Permission { .. }
                | DriverError::BarTooSmall { .. }
                | DriverError::Io { .. }
        ),
        "{e}"
    );
}

/// A pseudo-terminal: (master, slave, the slave's path).
fn open_pty() -> (std::fs::File, std::fs::File, std::path::PathBuf) {
    let (mut m, mut s) = (0, 0);
    // SAFETY: openpty fills two descriptors; the names are not requested.
    let rc = unsafe {
        libc::openpty(
            &mut m,
            &mut s,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    let path = std::fs::read_link(format!("/proc/self/fd/{s}")).unwrap();
    // SAFETY: both are open descriptors we own from here on.
    let (master, slave) = unsafe { (std::fs::File::from_raw_fd(m), std::fs::File::from_raw_fd(s)) };
    (master, slave, path)
}

/// A pseudo-terminal whose far end is "the board": the bridge's frame
/// parser in front of the NIC core's golden model. `mangle` may alter each
/// response before it goes back.
fn board_on_pty(
    mangle: fn(&mut [u8; br::RESP_LEN]),
    silent: bool,
) -> (std::path::PathBuf, std::thread::JoinHandle<()>) {
    // keep the slave open so the master sees no hang-up before the driver opens it
    let (mut master, slave, path) = open_pty();
    let h = std::thread::spawn(move || {
        let _slave = slave;
        let mut bus = SimBus::model();
        let mut p = FrameParser::default();
        let mut buf = [0u8; 64];
        loop {
            let n = match master.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                let Some(a) = p.feed(b) else { continue };
                let mut r = match a {
                    Action::Read(addr) => br::response(br::ST_OK, bus.read32(addr).unwrap()),
                    Action::Write(addr, d) => {
                        bus.write32(addr, d).unwrap();
                        br::response(br::ST_OK, 0)
                    }
                    Action::Refuse(st) => br::response(st, 0),
                };
                mangle(&mut r);
                if !silent && master.write_all(&r).is_err() {
                    return;
                }
            }
        }
    });
    (path, h)
}

#[test]
fn uart_backend_drives_the_bridge_over_a_pty() {
    let (path, _h) = board_on_pty(|_| {}, false);
    let mut dev = Device::open(UartBridge::open(&path, 1_000_000).unwrap()).unwrap();
    assert_eq!(dev.info().flows, 256);
    dev.set_param(Param::Alpha, 0.125).unwrap();
    assert_eq!(dev.param(Param::Alpha).unwrap().raw, 32);
    let s = dev.flow_set(42, 3.5).unwrap();
    assert_eq!(s.cw_raw, 7 << 19);
    assert!(dev.describe_contains("uart"));

    // a response corrupted on the line is an error, never a silent value
    let (path, _h) = board_on_pty(|r| r[3] ^= 0x10, false);
    let e = Device::open(UartBridge::open(&path, 1_000_000).unwrap())
        .err()
        .unwrap();
    assert!(e.to_string().contains("response CRC mismatch"), "{e}");
    // a board that never answers: a timeout naming the access
    let (path, _h) = board_on_pty(|_| {}, true);
    let e = Device::open(UartBridge::open(&path, 1_000_000).unwrap())
        .err()
        .unwrap();
    assert!(matches!(e, DriverError::BridgeTimeout { .. }), "{e}");
    assert!(e.to_string().contains("read of 0x0"), "{e}");
    // no such port; an unsupported rate
    let e = UartBridge::open(std::path::Path::new("/dev/ttyLDCP-none"), 1_000_000)
        .err()
        .unwrap();
    assert!(matches!(e, DriverError::SerialMissing { .. }), "{e}");
    let e = UartBridge::open(&path, 1234).err().unwrap();
    assert!(
        e.to_string().contains("--baud 1234 is not supported"),
        "{e}"
    );
}

trait DescribeContains {
    fn describe_contains(&mut self, s: &str) -> bool;
}
impl<A: RegAccess> DescribeContains for Device<A> {
    fn describe_contains(&mut self, s: &str) -> bool {
        self.io().describe().contains(s)
    }
}

/// Every RW register's value, read through the bus (the registers a frame
/// can change without side effects that depend on timing).
fn snapshot(bus: &mut SimBus) -> Vec<u32> {
    rw_offsets()
        .iter()
        .map(|&o| bus.read32(o).unwrap())
        .collect()
}

fn rw_offsets() -> Vec<u32> {
    ldcp_regmap::REGISTERS
        .iter()
        .filter(|r| r.access == ldcp_regmap::Access::Rw)
        .map(|r| r.offset)
        .collect()
}

/// Frame targets: every RW register, and unmapped offsets.
fn target() -> impl Strategy<Value = u32> {
    prop_oneof![
        proptest::sample::select(rw_offsets()),
        (0x100u32..0x400).prop_map(|w| w * 4),
    ]
}

/// A request frame for the property: write or read, offset, data, and the
/// (byte, bit) positions to flip.
type TestFrame = (bool, u32, u32, Vec<(usize, u8)>);

/// Frames (read or write, offset, data, bits to flip) after `garbage`:
/// a frame with a flipped bit is refused and changes nothing, an intact one
/// executes exactly as written; the registers end as a reference bus that
/// saw only the intact frames.
fn corrupted_frames_case(frames: Vec<TestFrame>, garbage: Vec<u8>) -> Result<(), TestCaseError> {
    let mut bus = SimBus::model();
    let mut reference = SimBus::model();
    let mut p = FrameParser::default();
    for &b in &garbage {
        prop_assert_eq!(p.feed(b), None);
    }
    for (write, addr, data, flips) in frames {
        let mut f = br::request(write, addr, data);
        let mut flipped = std::collections::HashSet::new();
        for (byte, bit) in flips {
            if flipped.insert((byte, bit)) {
                f[byte] ^= 1 << bit;
            }
        }
        let before = snapshot(&mut bus);
        let acts: Vec<Action> = f.iter().filter_map(|&b| p.feed(b)).collect();
        prop_assert_eq!(acts.len(), 1);
        match acts[0] {
            Action::Refuse(_) => {
                prop_assert!(!flipped.is_empty(), "an intact frame was refused");
                prop_assert_eq!(
                    snapshot(&mut bus),
                    before,
                    "a refused frame changed a register"
                );
            }
            Action::Write(a, d) => {
                prop_assert!(flipped.is_empty(), "a corrupted frame was executed");
                prop_assert_eq!((a, d), (addr, data));
                bus.write32(a, d).unwrap();
                reference.write32(addr, data).unwrap();
            }
            Action::Read(a) => {
                prop_assert!(flipped.is_empty(), "a corrupted frame was executed");
                prop_assert_eq!(a, addr);
                prop_assert_eq!(bus.read32(a).unwrap(), reference.read32(a).unwrap());
            }
        }
    }
    prop_assert_eq!(snapshot(&mut bus), snapshot(&mut reference));
    Ok(())
}

/// The two cases an earlier run of the property found (a lone read of
/// offset 0; a write of offset 24, then that read), replayed as they were
/// shrunk.
#[test]
fn corrupted_frames_recorded_cases() {
    corrupted_frames_case(vec![(false, 0, 0, vec![])], vec![]).unwrap();
    corrupted_frames_case(vec![(true, 24, 0, vec![]), (false, 0, 0, vec![])], vec![]).unwrap();
}

proptest! {
    #![proptest_config(ldcp_sim::testing::proptest_config(env!("CARGO_MANIFEST_DIR"), "driver_corrupted_frames", 0x5EED_2001, 300))]

    /// Frames with 1 to 3 flipped bits (anywhere after the sync byte) are
    /// refused and touch no register; intact frames around them execute.
    #[test]
    fn corrupted_frames_never_change_a_register(
        frames in proptest::collection::vec((any::<bool>(), target(), any::<u32>(), proptest::collection::vec((1usize..9, 0u8..8), 0..4)), 1..12),
        garbage in proptest::collection::vec(any::<u8>().prop_filter("no sync", |b| *b != br::REQ_SYNC), 0..20),
    ) {
        corrupted_frames_case(frames, garbage)?;
    }
}

proptest! {
    #![proptest_config(ldcp_sim::testing::proptest_config(env!("CARGO_MANIFEST_DIR"), "driver_random_bytes", 0x5EED_2002, 300))]

    /// Random bytes: whatever the parser executes came from 9 bytes that
    /// form a frame with a valid CRC, and it never panics.
    #[test]
    fn random_bytes_execute_only_valid_frames(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut p = FrameParser::default();
        let mut window: Vec<u8> = Vec::new();
        for &b in &bytes {
            if p.pending() == 0 && b != br::REQ_SYNC {
                prop_assert_eq!(p.feed(b), None);
                continue;
            }
            window.push(b);
            if let Some(a) = p.feed(b) {
                let f = &window[window.len() - br::REQ_LEN..];
                let valid = br::crc8(&f[1..8]) == f[8];
                match a {
                    Action::Read(_) | Action::Write(..) => prop_assert!(valid && f[3] >> 4 == 0),
                    Action::Refuse(st) => prop_assert!(st == br::ST_BAD_CRC || (valid && st == br::ST_BAD_FRAME)),
                }
                window.clear();
            }
        }
    }
}

/// A pseudo-terminal whose far end is the board's RTL: `ldcpctl serve-sim
/// --engine lockstep` in a thread (the Verilated `board_core`: power-on
/// sequencer, UART bridge, NIC core; its line at the bitstream's 100 clocks
/// per bit), with the golden model in lock step on the same line. Returns
/// the port, the flag that stops the server, and the server's thread, whose
/// summary counts the cycles simulated and those on which any output of the
/// RTL and the model differed.
fn rtl_board_on_pty() -> (
    std::path::PathBuf,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<ldcpctl::sim_board::ServeSummary>,
) {
    core_on_pty(ldcpctl::sim_board::Core::Nic)
}

/// [`rtl_board_on_pty`] for the board core `core`.
fn core_on_pty(
    core: ldcpctl::sim_board::Core,
) -> (
    std::path::PathBuf,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<ldcpctl::sim_board::ServeSummary>,
) {
    use ldcpctl::sim_board::{open_board, serve, Engine, Pty, ServeOptions, SimBoard};
    let rtl = open_board(
        core,
        Engine::Lockstep,
        ldcp_hdl::nic_core::BuildId::UNSTAMPED,
    )
    .unwrap();
    let mut board = SimBoard::power_on(rtl).unwrap();
    let pty = Pty::open().unwrap();
    let path = pty.path().to_path_buf();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opts = ServeOptions {
        exit_after_idle: None,
        stop: Some(stop.clone()),
    };
    let h = std::thread::spawn(move || serve(&mut board, &pty, &opts).unwrap());
    (path, stop, h)
}

/// The uart backend, and `ldcpctl --backend uart`, against the board's RTL
/// bit by bit: the same Verilog that goes into the bitstream (the top
/// module around it only ties its divider and names its pins).
#[test]
fn uart_backend_drives_the_board_rtl_bit_by_bit() {
    let (path, stop, server) = rtl_board_on_pty();
    let mut dev = Device::open(UartBridge::open(&path, 1_000_000).unwrap()).unwrap();
    assert_eq!(dev.info().flows, 256);
    // the power-on sequencer's CORE_RESET left every parameter at its reset value
    assert_eq!(dev.param(Param::Alpha).unwrap().raw, regs::alpha::RAW.reset);
    dev.set_param(Param::Alpha, 0.125).unwrap();
    assert_eq!(dev.param(Param::Alpha).unwrap().raw, 32);
    let s = dev.flow_set(42, 3.5).unwrap();
    assert_eq!(s.cw_raw, 7 << 19);
    // ACK events through the FIFO over the line, then the flow's window
    let events: Vec<(u32, u32, bool)> = (0..40).map(|k| (42, 1 + k % 3, k % 7 == 0)).collect();
    dev.push_events(&mut events.iter().copied(), 40, &mut |_, _| {})
        .unwrap();
    let after = dev.flow_show(42).unwrap();
    assert_ne!(after.cw_raw, 7 << 19, "the events moved the window");
    assert_eq!(dev.stats().unwrap().core.cnt_events, 40);
    drop(dev);

    // ldcpctl itself, over the same line: the board kept the session's state
    let run = |args: &[&str]| ldcpctl_uart(&path, args);
    let (code, out, err) = run(&["probe"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("LDCP NIC core") && out.contains("flows      256"),
        "{out}"
    );
    let (code, out, err) = run(&["flow", "show", "42"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("(raw {:#x})", after.cw_raw)), "{out}");
    let (code, _, err) = run(&["config", "set", "alpha", "1.5"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("alpha"), "{err}");

    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let s = server.join().unwrap();
    eprintln!(
        "uart backend over the board RTL: {} cycles simulated, {} cycles where RTL and model differ",
        s.cycles,
        s.mismatched_cycles.unwrap()
    );
    assert_eq!(s.stopped_by, "stop");
    assert!(s.host_bytes > 0 && s.board_bytes > 0, "{s:?}");
    // the golden model, in lock step on the same line, agreed every cycle
    assert_eq!(s.mismatched_cycles, Some(0), "{}", s.engine);
}

/// A pseudo-terminal whose far end is the switch port's board core RTL
/// (`switch_board_core`, Verilated) with its golden model in lock step, as
/// [`rtl_board_on_pty`] does for the NIC board: the port, the cycles
/// simulated, the cycles where the RTL and the model differed, the slave.
fn rtl_switch_on_pty() -> (
    std::path::PathBuf,
    std::sync::Arc<std::sync::atomic::AtomicU64>,
    std::sync::Arc<std::sync::atomic::AtomicU64>,
    std::fs::File,
) {
    use ldcp_sim::board_shell::{ShellIn, ShellOut};
    use ldcp_sim::cosim::{BuildSpec, VerilatedLib};
    use ldcp_sim::ports::Ports;
    use ldcp_sim::switch_board::{SwitchBoardModel, SwitchCoreModel};
    use std::sync::atomic::Ordering;
    const DIV: u32 = 4;
    let verilog =
        ldcp_hdl::switch_board::core_verilog(ldcp_hdl::nic_core::BuildId::UNSTAMPED).unwrap();
    let spec = BuildSpec::new(
        &verilog,
        ldcp_hdl::switch_board::MODULE.name,
        ShellIn::PORTS,
        ShellOut::PORTS,
        false,
    )
    .unwrap();
    let lib = VerilatedLib::build(&spec).unwrap();
    let (mut master, slave, path) = open_pty();
    let cycles = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let count = cycles.clone();
    let mismatches = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let bad = mismatches.clone();
    std::thread::spawn(move || {
        let mut inst = lib.instance();
        let mut model = SwitchBoardModel::new(SwitchCoreModel::new(0, true));
        let mut ports_in = vec![0u64; ShellIn::PORTS.len()];
        let mut ports_out = vec![0u64; ShellOut::PORTS.len()];
        let mut step = |inst: &mut ldcp_sim::cosim::Instance, i: &ShellIn| -> ShellOut {
            i.to_ports(&mut ports_in);
            inst.step(&ports_in, &mut ports_out);
            let got = ShellOut::from_ports(&ports_out);
            model.tick(i);
            if model.outputs() != got {
                bad.fetch_add(1, Ordering::Relaxed);
            }
            count.fetch_add(1, Ordering::Relaxed);
            got
        };
        let mut ins = ShellIn {
            uart_rx: true,
            cfg_bit_cycles: DIV,
            cfg_led_hold_cycles: 1000,
            reset_hold: false,
        };
        let mut dec = br::LineDecoder::new(DIV);
        let mut line: std::collections::VecDeque<bool> = Default::default();
        let mut buf = [0u8; 256];
        let mut out = Vec::new();
        for _ in 0..300 {
            step(&mut inst, &ins);
        }
        loop {
            let timeout = if line.is_empty() { 2 } else { 0 };
            let mut pfd = libc::pollfd {
                fd: master.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut pfd, 1, timeout) };
            if ready > 0 {
                if pfd.revents & (libc::POLLHUP | libc::POLLERR) != 0
                    && pfd.revents & libc::POLLIN == 0
                {
                    return;
                }
                match master.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        let mut bits = Vec::new();
                        br::serialize(&buf[..n], DIV, &mut bits);
                        line.extend(bits);
                    }
                }
            }
            let mut idle_after = 100 * DIV;
            while idle_after > 0 {
                let rx = line.pop_front();
                if rx.is_none() {
                    idle_after -= 1;
                }
                ins.uart_rx = rx.unwrap_or(true);
                let o = step(&mut inst, &ins);
                if let Some(b) = dec.push(o.uart_tx) {
                    out.push(b);
                }
            }
            if !out.is_empty() {
                if master.write_all(&out).is_err() {
                    return;
                }
                out.clear();
            }
        }
    });
    (path, cycles, mismatches, slave)
}

/// The uart backend, and `ldcpctl --backend uart`, against the switch
/// port's board RTL bit by bit: it identifies as a switch port, its WRED
/// parameters are set and read by name, packets get their decisions, its
/// counters read, the NIC's commands are refused by name, and the golden
/// model agrees every cycle.
#[test]
fn uart_backend_drives_the_switch_port_rtl() {
    use std::sync::atomic::Ordering;
    let (path, cycles, mismatches, slave) = rtl_switch_on_pty();
    let mut dev = Device::open(UartBridge::open(&path, 1_000_000).unwrap()).unwrap();
    assert!(dev.is_switch_port());
    assert_eq!(dev.info().kind, "SWITCH_PORT");
    assert_eq!((dev.info().flows, dev.info().ext), (0, false));
    assert_eq!(dev.info().blocks, ["WRED_ECN", "FAST_CNP", "PKT"]);
    assert_eq!(
        dev.param(Param::WredKMin).unwrap().raw,
        regs::wred_k_min::BYTES.reset
    );
    dev.set_param(Param::WredBufMax, 6_000.0).unwrap();
    dev.set_param(Param::WredDrain, 0.0).unwrap();
    assert_eq!(dev.param(Param::WredBufMax).unwrap().raw, 6_000);
    let r = dev.wred_packets(1_500, 2, 5).unwrap();
    assert_eq!((r.forwarded, r.dropped_full, r.last_decision), (4, 1, 3));
    assert_eq!(r.occupancy_bytes, 6_000);
    let s = dev.switch_stats().unwrap();
    assert_eq!(
        (s.forwarded, s.dropped_full, s.occupancy_bytes),
        (4, 1, 6_000)
    );
    // an illegal value is refused before it is written
    let e = dev.set_param(Param::WredPMax, 1.5).err().unwrap();
    assert!(e.to_string().contains("wred_p_max"), "{e}");
    // the NIC's registers are not there: refused by name
    let e = dev.flow_show(1).err().unwrap();
    assert!(matches!(e, DriverError::NotOnSwitchPort(_)), "{e}");
    let e = dev.param(Param::Alpha).err().unwrap();
    assert!(
        e.to_string().contains("parameter alpha") && e.to_string().contains("switch port"),
        "{e}"
    );
    dev.core_reset().unwrap();
    assert_eq!(dev.switch_stats().unwrap().forwarded, 0);
    assert_eq!(dev.param(Param::WredBufMax).unwrap().raw, 1 << 20);
    drop(dev);

    let run = |args: &[&str]| ldcpctl_uart(&path, args);
    let (code, out, err) = run(&["probe"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("LDCP switch port") && out.contains("FAST_CNP"),
        "{out}"
    );
    let (code, out, err) = run(&["--json", "probe"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["kind"], "SWITCH_PORT");
    let (code, out, err) = run(&["config", "get"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("wred_k_min") && !out.contains("alpha"),
        "{out}"
    );
    let (code, out, err) = run(&["config", "set", "wred_k", "30000"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("wred_k ") && out.contains("30000"), "{out}");
    let (code, out, err) = run(&["wred", "--len", "9000", "--ecn", "0", "--count", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("3 packets"), "{out}");
    let (code, out, err) = run(&["stats"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("WRED_FORWARDED"), "{out}");
    let (code, _, err) = run(&["flow", "show", "1"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("switch port"), "{err}");
    // Fast CNP through the bridge: a marking ramp, a flow's ECT packets,
    // one notification (the interval), read and removed from the queue
    for (k, v) in [
        ("wred_drain", "0"),
        ("wred_k_min", "0"),
        ("wred_k_max", "1"),
        ("fcnp_interval", "10000000"),
    ] {
        let (code, _, err) = run(&["config", "set", k, v]);
        assert_eq!(code, Some(0), "{k}: {err}");
    }
    let (code, out, err) = run(&[
        "fast-cnp",
        "send",
        "--src",
        "10.0.0.1",
        "--dst",
        "10.0.0.2",
        "--end-con",
        "2001:db8::7",
        "--dest-qp",
        "0x123",
        "--count",
        "4",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("1 sent, 2 suppressed") && out.contains("1 queued"),
        "{out}"
    );
    let (code, out, err) = run(&["--json", "fast-cnp", "queue"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v[0]["src"], "10.0.0.2");
    assert_eq!(v[0]["dst"], "10.0.0.1");
    assert_eq!(v[0]["end_con"], "2001:db8::7");
    assert_eq!(v[0]["dest_qp"], 0x123);
    let (code, out, _) = run(&["fast-cnp", "queue"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no Fast CNP queued"), "{out}");
    // the PE's blocks are not on this bitstream: refused by name
    let (code, _, err) = run(&["tunnel", "mode", "--tunnel", "1", "--mode", "compatibility"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("TUNNEL_INGRESS"), "{err}");
    eprintln!(
        "uart backend over the switch port RTL: {} cycles simulated, {} cycles where RTL and model differ",
        cycles.load(Ordering::Relaxed),
        mismatches.load(Ordering::Relaxed)
    );
    assert_eq!(mismatches.load(Ordering::Relaxed), 0);
    drop(slave);
}

/// The loopback bench: the Verilated NIC system and the golden model count
/// the same packets, ACKs and engine events at the blocks' ports; nothing is
/// left on chip (every packet sent was delivered or dropped by the port);
/// every returned ACK entered the engine; an illegal flow count is refused
/// naming its range, and LOOP_CTRL is left as it was.
#[test]
fn loopback_bench_counts_agree_and_drain() {
    let mut sim = Device::open(ldcpctl::verilated::bus().expect("verilating nic_system")).unwrap();
    let mut model = Device::open(SimBus::model()).unwrap();
    let a = sim.run_loop(8, 40_000, &mut |_, _| {}).unwrap();
    let b = model.run_loop(8, 40_000, &mut |_, _| {}).unwrap();
    let strip = |mut r: ldcp_host::LoopRun| {
        r.host_seconds = 0.0;
        r
    };
    assert_eq!(strip(a.clone()), strip(b));
    assert!(a.sent > 500 && a.marked > 0, "{a:?}");
    assert_eq!(a.sent, a.delivered + a.dropped, "{a:?}");
    assert_eq!(a.engine_events, a.acks, "{a:?}");
    for bad in [0, 257] {
        let e = sim
            .run_loop(bad, 1_000, &mut |_, _| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&bad.to_string()) && e.contains("[1, 256]"),
            "{e}"
        );
    }
    assert_eq!(
        sim.io().read32(regs::loop_ctrl::OFFSET).unwrap(),
        regs::loop_ctrl::RESET
    );
}

/// A loop run stopped early (a signal, in `ldcpctl`) stops the on-chip
/// sender before it returns: LOOP_CTRL is as it was, and LOOP_SENT no
/// longer grows (the sender kept running until a reset).
#[test]
fn loopback_bench_stopped_early_stops_the_sender() {
    let mut model = Device::open(SimBus::model()).unwrap();
    let calls = std::cell::Cell::new(0);
    let stop = || {
        calls.set(calls.get() + 1);
        calls.get() > 3
    };
    let e = model
        .run_loop_until(8, 100_000_000, &mut |_, _| {}, &stop)
        .unwrap_err();
    assert!(matches!(e, ldcp_host::DriverError::Interrupted(_)), "{e}");
    assert!(
        e.to_string().contains("the loop's sender is stopped"),
        "{e}"
    );
    let io = model.io();
    assert_eq!(
        io.read32(regs::loop_ctrl::OFFSET).unwrap(),
        regs::loop_ctrl::RESET
    );
    let sent = io.read32(regs::loop_sent::OFFSET).unwrap();
    assert!(sent > 0, "it ran");
    io.idle(50_000).unwrap();
    assert_eq!(
        io.read32(regs::loop_sent::OFFSET).unwrap(),
        sent,
        "nothing sent after"
    );
}

/// A WRED_PKT write in the cycle a loop packet reaches the port is dropped
/// and flagged: `stats` shows XERRORS.WRED_OVERRUN and the loop's packets
/// on chip, and clearing the counters clears the flag.
#[test]
fn a_wred_write_that_meets_a_loop_packet_is_flagged_and_cleared() {
    let mut dev = Device::open(SimBus::model()).unwrap();
    dev.set_param(Param::WredDrain, 4000.0).unwrap();
    let on = regs::loop_ctrl::LOOPBACK.put(1)
        | regs::loop_ctrl::SEND.put(1)
        | regs::loop_ctrl::FLOWS.put(16);
    dev.io().write32(regs::loop_ctrl::OFFSET, on).unwrap();
    dev.io().idle(2_000).unwrap();
    let before = dev.stats().unwrap().ext.unwrap();
    assert!(
        !before.err_wred_overrun && before.loop_in_pipe > 0,
        "{before:?}"
    );
    // the loop sends every other cycle: back-to-back writes meet its packets
    for _ in 0..20 {
        dev.io()
            .write32(regs::wred_pkt::OFFSET, regs::wred_pkt::LEN.put(100))
            .unwrap();
    }
    let x = dev.stats().unwrap().ext.unwrap();
    assert!(x.err_wred_overrun, "{x:?}");
    dev.clear_counters().unwrap();
    assert!(!dev.stats().unwrap().ext.unwrap().err_wred_overrun);
}

/// [`ldcpctl_uart`] that must succeed: its standard output.
fn ldcpctl_uart_ok(pty: &std::path::Path, args: &[&str]) -> String {
    let (code, out, err) = ldcpctl_uart(pty, args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// The whole NIC system served on a pty (`serve-sim --core system`), its
/// RTL and golden model in lock step: a multi-step session configures the
/// port in one `ldcpctl` invocation and runs the loopback in the next, and
/// the loop carries its half packet per cycle; not one cycle differs.
#[test]
fn serve_sim_system_core_keeps_state_across_ldcpctl_sessions() {
    let (path, stop, h) = core_on_pty(ldcpctl::sim_board::Core::System);
    let ctl = |args: &[&str]| ldcpctl_uart_ok(&path, args);
    let probe = ctl(&["probe"]);
    assert!(probe.contains("LOOP"), "{probe}");
    ctl(&["config", "set", "wred_drain", "4000"]);
    let out = ctl(&["--json", "bench", "--mode", "loop", "--cycles", "300000"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
    // the loop carries half a packet per cycle through the port set to
    // drain 4000 bytes a cycle: at least that over the 300,000 cycles asked
    // for, less a tenth for its start and stop. Over the line the window
    // also holds the control accesses' frames (about 16,000 cycles each at
    // 100 clocks per bit) and the host's pauses (replayed, up to 20,000
    // cycles each, longer on a loaded machine), so the rate over the whole
    // window is not a fixed figure: it was 0.399 in one CI run
    let sent = v["loop"]["sent"].as_u64().unwrap();
    let per_cycle = v["loop"]["sent_per_cycle"].as_f64().unwrap();
    assert!(
        sent >= 135_000 && per_cycle <= 0.5,
        "the port kept its setting: {v}"
    );
    assert_eq!(v["loop"]["dropped"], 0, "{v}");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let summary = h.join().unwrap();
    eprintln!("{summary:?}");
    assert_eq!(summary.mismatched_cycles, Some(0), "{summary:?}");
}

/// The Alchitry Cu's complete NIC served on a pty (`serve-sim --core cu`),
/// its RTL and golden model in lock step: one `ldcpctl` session sets AG_M
/// to 4 (an ACK per four packets), the next runs the on-chip loopback
/// (the Cu's sender, fast-start marker and ACK generator, the ACKs back
/// into the engine): every packet sent is delivered, about a quarter as
/// many ACKs come back (the setting held), nothing is dropped, and not
/// one cycle differs.
#[test]
fn serve_sim_cu_core_runs_the_loop_across_ldcpctl_sessions() {
    let (path, stop, h) = core_on_pty(ldcpctl::sim_board::Core::Cu);
    let ctl = |args: &[&str]| ldcpctl_uart_ok(&path, args);
    let probe = ctl(&["probe"]);
    assert!(probe.contains("LOOP"), "{probe}");
    ctl(&["config", "set", "ag_m", "4"]);
    let out = ctl(&[
        "--json",
        "bench",
        "--mode",
        "loop",
        "--loop-flows",
        "8",
        "--cycles",
        "100000",
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
    eprintln!("{v}");
    let n = |k: &str| v["loop"][k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));
    // the marker's pace is about 0.09 packets a cycle with AG_M 4 (the
    // nic_cu cosimulation's loop run): well over 2,000 in 100,000 cycles
    assert!(n("sent") > 2_000 && n("delivered") == n("sent"), "{v}");
    assert!(
        n("acks") > 0 && n("acks") * 3 < n("sent"),
        "AG_M 4 held: {v}"
    );
    assert_eq!(n("dropped"), 0, "{v}");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let summary = h.join().unwrap();
    eprintln!("{summary:?}");
    assert_eq!(summary.mismatched_cycles, Some(0), "{summary:?}");
}

/// A driver on the golden model of a switch port's core of `role`.
fn switch_model_device(role: ldcp_sim::switch_board::SwitchRole) -> Device<SimBus> {
    let bus = SimBus::new(Box::new(ldcp_host::backend::sim::switch_model(role)));
    Device::open(bus).unwrap()
}

/// A PE's switch port through the driver: SW_BLOCKS reported as its
/// blocks; every (inner, outer) cell of the egress table against
/// `ldcp_sim::tunnel_ecn::egress`, with the IPv4 checksum still valid after
/// the ECN field changed; both tunnel modes at the ingress against
/// `ingress`; END.CON's four actions; the P node's Fast CNP refused by
/// block name; illegal values refused before they are written.
#[test]
fn driver_drives_a_pe_switch_port() {
    use ldcp_sim::switch_board::SwitchRole;
    use ldcp_sim::tunnel_ecn::{egress, ingress, Action, Flag, Mode};
    let mut dev = switch_model_device(SwitchRole::Pe);
    assert!(dev.is_switch_port());
    assert_eq!(
        dev.info().blocks,
        [
            "WRED_ECN",
            "TUNNEL_INGRESS",
            "TUNNEL_EGRESS",
            "END_CON",
            "PKT"
        ]
    );
    // an IPv4 header whose checksum verifies, ECN field 0
    let hdr = |ecn: u8| -> [u16; 10] {
        let mut h = [
            0x4500 | ecn as u16,
            60,
            1,
            0,
            0x4006,
            0,
            0x0a00,
            1,
            0x0a00,
            2,
        ];
        let sum: u32 = h.iter().map(|&w| w as u32).sum();
        let sum = (sum & 0xffff) + (sum >> 16);
        h[5] = !((sum & 0xffff) + (sum >> 16)) as u16;
        h
    };
    let verifies = |h: &[u16; 10]| {
        let sum: u32 = h.iter().map(|&w| w as u32).sum();
        let sum = (sum & 0xffff) + (sum >> 16);
        ((sum & 0xffff) + (sum >> 16)) == 0xffff
    };
    for inner in 0..4u8 {
        for outer in 0..4u8 {
            let h = hdr(inner);
            dev.stage(&ldcp_host::SwitchPacket {
                word0: h[0],
                csum: h[5],
                ..Default::default()
            })
            .unwrap();
            let r = dev.tunnel_egress(outer as u32).unwrap();
            let cell = egress(inner, outer);
            assert_eq!(r.dropped, cell.action == Action::Drop, "{inner} {outer}");
            let flag = match cell.flag {
                Flag::None => 0,
                Flag::Unused => 1,
                Flag::Dangerous => 2,
            };
            assert_eq!(r.flag, flag, "{inner} {outer}");
            if let Action::Forward(e) = cell.action {
                assert_eq!(r.ecn, e as u32, "{inner} {outer}");
                let mut h2 = h;
                h2[0] = r.word0 as u16;
                h2[5] = r.csum as u16;
                assert_eq!(h2[0] & 3, e as u16);
                assert!(verifies(&h2), "{inner} {outer}: checksum {:#x}", r.csum);
            }
        }
    }
    for (tunnel, mode) in [(5, Mode::Normal), (63, Mode::Compatibility)] {
        dev.tunnel_mode(tunnel, mode == Mode::Compatibility)
            .unwrap();
        for inner in 0..4u8 {
            dev.stage(&ldcp_host::SwitchPacket {
                word0: 0x4500 | inner as u16,
                ..Default::default()
            })
            .unwrap();
            let r = dev.tunnel_ingress(tunnel).unwrap();
            assert_eq!(r.outer_ecn, ingress(mode, inner) as u32, "{tunnel} {inner}");
            assert_eq!(r.compat, mode == Mode::Compatibility);
        }
    }
    // END.CON: the SID, then a packet of each action
    let sid: u128 = 0x2001_0db8_0000_0000_0000_00c0_0000_0001;
    dev.end_con_sid(sid).unwrap();
    for (dst, nh, snh, sl, action, strip) in [
        (sid + 1, 43, 4, 0, 0, 0),
        (sid, 43, 4, 0, 1, 40 + 8 * 3),
        (sid, 41, 0, 0, 1, 40),
        (sid, 58, 0, 0, 2, 0),
        (sid, 43, 4, 1, 3, 0),
    ] {
        dev.stage(&ldcp_host::SwitchPacket {
            outer_dst: dst,
            next_header: nh,
            srh_next_header: snh,
            segments_left: sl,
            ext_len: 2,
            ..Default::default()
        })
        .unwrap();
        let r = dev.end_con_packet().unwrap();
        assert_eq!((r.action, r.strip_bytes), (action, strip), "{dst:#x} {nh}");
    }
    let stats = dev.draft001_stats().unwrap();
    let get = |n: &str| stats.iter().find(|e| e.0 == n).map(|e| e.1);
    assert_eq!(get("EC_DECAP"), Some(2));
    assert_eq!(get("TE_DROPPED"), Some(1));
    assert_eq!(get("FC_SENT"), None, "the PE holds no Fast CNP trigger");
    // refused: the P node's block, a tunnel out of range, a codepoint
    let e = dev.fast_cnp_descriptors(1).err().unwrap();
    assert!(e.to_string().contains("FAST_CNP"), "{e}");
    let e = dev.tunnel_mode(64, true).err().unwrap();
    assert!(e.to_string().contains("[0, 63]"), "{e}");
    let e = dev.tunnel_egress(4).err().unwrap();
    assert!(e.to_string().contains("out of range"), "{e}");
    // CORE_RESET: every tunnel back to normal, the SID cleared
    dev.core_reset().unwrap();
    dev.stage(&ldcp_host::SwitchPacket {
        word0: 0x4502,
        outer_dst: sid,
        next_header: 41,
        ..Default::default()
    })
    .unwrap();
    assert!(!dev.tunnel_ingress(63).unwrap().compat);
    assert_eq!(dev.end_con_packet().unwrap().action, 0);
}

/// A P node's switch port through the driver: a flow's marked packets
/// give one Fast CNP per interval, its descriptor the flow's addresses
/// swapped, its QP, P_Key, UDP source and END.CON; unparsed and Not-ECT
/// packets give none; the queue drains in order; the PE's blocks are
/// refused by name.
#[test]
fn driver_drives_a_p_node_switch_port() {
    use ldcp_sim::switch_board::SwitchRole;
    let mut dev = switch_model_device(SwitchRole::P);
    assert_eq!(dev.info().blocks, ["WRED_ECN", "FAST_CNP", "PKT"]);
    // every ECN-capable packet marked: no drain, a one-byte ramp
    dev.set_param(Param::WredDrain, 0.0).unwrap();
    dev.set_param(Param::WredKMin, 0.0).unwrap();
    dev.set_param(Param::WredKMax, 1.0).unwrap();
    dev.set_param(Param::FcnpInterval, 1_000_000.0).unwrap();
    // the trigger's table is swept for 256 cycles after power-up: candidates
    // decided in it are suppressed (over a UART the host never sees this)
    let mut polls = 0;
    while !dev.fast_cnp_status().unwrap().1 {
        polls += 1;
        assert!(polls < 1_000, "TABLE_READY never set");
    }
    let ec: u128 = 0x2001_0db8_0000_0000_0000_00c0_0000_0007;
    let flow = |src: u32, parsed: bool| ldcp_host::SwitchPacket {
        outer_src: ec,
        inner_src: 0x0a00_0000 | src as u128,
        inner_dst: 0x0a00_00fe,
        dest_qp: 0x100 + src,
        parsed,
        pkey: 0xffff,
        udp_src: 49_152 + src as u16,
        ..Default::default()
    };
    dev.stage(&flow(1, true)).unwrap();
    // the first packet finds the queue empty, below the ramp: not marked
    let w = dev.wred_packets(64, 2, 10).unwrap();
    assert_eq!(w.marked, 9);
    dev.stage(&flow(2, true)).unwrap();
    dev.wred_packets(64, 1, 3).unwrap();
    // Not-ECT: not marked, no candidate; unparsed: counted, not sent
    dev.stage(&flow(3, true)).unwrap();
    dev.wred_packets(64, 0, 2).unwrap();
    dev.stage(&flow(4, false)).unwrap();
    dev.wred_packets(64, 2, 2).unwrap();
    let stats = dev.draft001_stats().unwrap();
    let get = |n: &str| stats.iter().find(|e| e.0 == n).map(|e| e.1);
    assert_eq!(get("FC_SENT"), Some(2), "{stats:?}");
    assert_eq!(get("FC_SUPPRESSED"), Some(8 + 2));
    assert_eq!(get("FC_UNPARSED"), Some(2));
    assert_eq!(get("FC_MARKED"), Some(9 + 3 + 2));
    assert_eq!(get("FC_STATUS.LEVEL"), Some(2));
    let q = dev.fast_cnp_descriptors(10).unwrap();
    assert_eq!(q.len(), 2);
    for (d, src) in q.iter().zip([1u32, 2]) {
        assert_eq!(d.src, "10.0.0.254");
        assert_eq!(d.dst, format!("10.0.0.{src}"));
        assert_eq!(d.end_con, "2001:db8::c0:0:7");
        assert_eq!(
            (d.dest_qp, d.pkey, d.udp_src),
            (0x100 + src, 0xffff, 49_152 + src)
        );
        assert!(!d.ipv6);
    }
    assert_eq!(dev.fast_cnp_status().unwrap().0, 0);
    let e = dev.tunnel_mode(1, true).err().unwrap();
    assert!(e.to_string().contains("TUNNEL_INGRESS"), "{e}");
    let e = dev.end_con_packet().err().unwrap();
    assert!(e.to_string().contains("END_CON"), "{e}");
    let e = dev
        .stage(&ldcp_host::SwitchPacket {
            dest_qp: 1 << 24,
            ..Default::default()
        })
        .err()
        .unwrap();
    assert!(e.to_string().contains("DestQP"), "{e}");
}

/// The switch port with every block through the driver: SW_BLOCKS lists
/// draft 002's decision; all 64 inputs give `ldcp_sim::coord::decide`'s
/// decision and the counters count each congested packet's one action;
/// an illegal `light` is refused before a write; a P node's port refuses
/// the decision by block name.
#[test]
fn driver_drives_the_coordination_decision() {
    use ldcp_sim::coord::{decide, every_input, DecisionIn};
    use ldcp_sim::switch_board::SwitchRole;
    let mut dev = switch_model_device(SwitchRole::Full);
    assert!(
        dev.info().blocks.iter().any(|b| b == "COORD"),
        "{:?}",
        dev.info().blocks
    );
    let mut expect = [0u32; 4];
    let mut n = 0;
    for i in every_input() {
        let r = dev.coord_decide(&i).unwrap();
        let d = decide(&i);
        assert_eq!(
            (
                r.reroute,
                r.write_indicator,
                r.type3,
                r.mark_allowed,
                r.incast
            ),
            (
                d.reroute,
                d.write_indicator,
                d.type3,
                d.mark_allowed,
                d.incast
            ),
            "{i:?}"
        );
        expect[0] += d.reroute as u32;
        expect[1] += d.type3 as u32;
        expect[2] += d.mark_allowed as u32;
        expect[3] += d.incast as u32;
        assert_eq!(r.counts, expect, "{i:?}");
        n += 1;
    }
    assert_eq!(n, 64);
    let bad = DecisionIn {
        congested: true,
        cc: false,
        light: 4,
        arv: false,
        last_hop: false,
    };
    let e = dev.coord_decide(&bad).unwrap_err().to_string();
    assert!(e.contains("light = 4") && e.contains("[0, 3]"), "{e}");
    assert_eq!(
        dev.coord_decide(&DecisionIn { light: 0, ..bad })
            .unwrap()
            .counts[2],
        expect[2] + 1
    );
    let mut p = switch_model_device(SwitchRole::P);
    let e = p
        .coord_decide(&DecisionIn { light: 0, ..bad })
        .unwrap_err()
        .to_string();
    assert!(e.contains("COORD"), "{e}");
}
