//! `ldcpctl serve-sim`: the simulated Alchitry Cu on a pty, driven by
//! separate `ldcpctl --backend uart` sessions whose state must persist from
//! one to the next, as on the board; clients that misbehave (leave mid-frame,
//! leave without reading, talk at the wrong rate) and a bad port.

use ldcp_host::backend::uart::{make_raw, UartBridge};
use ldcp_host::{regs, Device, Param, RegAccess};
use ldcp_sim::uart_bridge as br;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The seed of the generator run (printed, fixed).
const SEED: u32 = 0x5EED_0014;
/// Events of the generator run.
const GEN_EVENTS: u32 = 20_000;
/// The flow the sessions set and read back.
const FLOW: u32 = 7;

/// A running `ldcpctl serve-sim --json`: killed when dropped, so a failing
/// test leaves no server behind.
struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    stderr: std::thread::JoinHandle<String>,
    port: PathBuf,
    ready: serde_json::Value,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
            .args(["serve-sim", "--json"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting ldcpctl serve-sim");
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        if line.is_empty() {
            let status = child.wait().unwrap();
            panic!(
                "serve-sim printed no port ({status}): {}",
                stderr.join().unwrap()
            );
        }
        let ready: serde_json::Value = serde_json::from_str(line.trim()).expect(&line);
        let port = PathBuf::from(ready["port"].as_str().expect("port"));
        eprintln!("serve-sim {args:?}: {ready}");
        Server {
            child,
            stdout,
            stderr,
            port,
            ready,
        }
    }

    /// Sends `sig` (or waits for an exit on its own, `None`); the exit code,
    /// the summary line and stderr.
    fn stop(mut self, sig: Option<i32>) -> (Option<i32>, serde_json::Value, String) {
        if let Some(sig) = sig {
            // SAFETY: a signal to our own child, which has not been reaped.
            assert_eq!(unsafe { libc::kill(self.child.id() as i32, sig) }, 0);
        }
        let t0 = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "serve-sim did not exit within 20 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        let summary = serde_json::from_str(rest.trim()).unwrap_or(serde_json::Value::Null);
        let stderr = std::mem::replace(&mut self.stderr, std::thread::spawn(String::new));
        (status.code(), summary, stderr.join().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One `ldcpctl` session against `port`: exit code, stdout, stderr.
fn ldcpctl(port: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args(["--backend", "uart", "--port"])
        .arg(port)
        .args(args)
        .output()
        .expect("running ldcpctl");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// A session that must succeed, its JSON.
fn session(port: &Path, args: &[&str]) -> serde_json::Value {
    let t0 = Instant::now();
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = ldcpctl(port, &a);
    assert_eq!(code, 0, "ldcpctl {args:?}: {err}");
    eprintln!(
        "  ldcpctl {args:?}: {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    serde_json::from_str(out.trim()).expect(&out)
}

/// The port opened as a client would, raw at the bitstream's rate.
fn raw_client(port: &Path) -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(port)
        .unwrap();
    make_raw(&f, br::DEFAULT_BAUD).unwrap();
    f
}

/// What flow FLOW's window must be after the sessions' steps: the same
/// steps on the golden model of the NIC (its core is the board's).
fn expected_cw_raw() -> u32 {
    let mut dev = Device::open(ldcp_host::backend::sim::SimBus::model()).unwrap();
    dev.set_param(Param::Alpha, 0.125).unwrap();
    dev.flow_set(FLOW, 2.0).unwrap();
    dev.run_generator(GEN_EVENTS, SEED, &mut |_, _| {}).unwrap();
    dev.flow_show(FLOW).unwrap().cw_raw
}

#[test]
fn serve_sim_keeps_the_board_state_across_sessions() {
    eprintln!("generator seed {SEED:#x}, {GEN_EVENTS} events");
    let srv = Server::start(&[]);
    let port = srv.port.clone();
    assert!(port.starts_with("/dev/pts/"), "{port:?}");
    assert!(
        srv.ready["engine"]
            .as_str()
            .unwrap()
            .contains("Verilated board_core"),
        "{}",
        srv.ready
    );

    // 1. configure; 2. read it back in another session: a fresh device
    // would read the reset value
    let alpha_reset = regs::alpha::RESET;
    assert_ne!(alpha_reset, 32);
    let v = session(&port, &["config", "set", "alpha", "0.125"]);
    assert_eq!(v["alpha"]["raw"], 32, "{v}");
    let v = session(&port, &["config", "get", "alpha"]);
    assert_eq!(v["alpha"]["raw"], 32, "{v}");
    // the board is the bitstream's: no extension blocks
    let v = session(&port, &["probe"]);
    assert_eq!(v["ext"], false, "{v}");
    assert_eq!(v["flows"], 256, "{v}");
    assert!(
        v["backend"]
            .as_str()
            .unwrap()
            .contains(port.to_str().unwrap()),
        "{v}"
    );

    // 3. a flow's window; 4. the on-chip generator; 5. the counters and the
    // window after it, each in its own session
    let v = session(&port, &["flow", "set", &FLOW.to_string(), "2.0"]);
    assert_eq!(v["cw_raw"], 2 << 20, "{v}");
    let gen = session(
        &port,
        &[
            "bench",
            "--mode",
            "generator",
            "--events",
            &GEN_EVENTS.to_string(),
            "--seed",
            &SEED.to_string(),
        ],
    );
    assert_eq!(gen["generator"]["events_counted"], GEN_EVENTS, "{gen}");
    assert_eq!(gen["generator"]["events_per_cycle"], 1.0, "{gen}");
    let stats = session(&port, &["stats"]);
    assert_eq!(stats["CNT_EVENTS"], GEN_EVENTS, "{stats}");
    assert_eq!(stats["GEN_CYCLES"], GEN_EVENTS, "{stats}");
    assert_eq!(stats["CNT_PUSHED"], 0, "{stats}");
    assert!(
        stats["CNT_UPDATES"].as_u64().unwrap() > 0
            && stats["CNT_UPDATES"].as_u64().unwrap() <= GEN_EVENTS as u64,
        "{stats}"
    );
    assert!(
        stats["CYCLES"].as_u64().unwrap() > GEN_EVENTS as u64,
        "{stats}"
    );
    let want = expected_cw_raw();
    assert_ne!(want, 2 << 20, "the generator's events reach flow {FLOW}");
    let v = session(&port, &["flow", "show", &FLOW.to_string()]);
    assert_eq!(v["cw_raw"], want, "{v}");
    // and the configuration of session 1 is still there
    let v = session(&port, &["config", "get", "alpha"]);
    assert_eq!(v["alpha"]["raw"], 32, "{v}");

    // a client that leaves mid-frame: the half frame (a write of alpha) is
    // dropped by the bridge's frame timeout, never executed. The server
    // dates bytes when its reader thread gets them from the pty: the next
    // client comes 100 ms later, a margin for a server starved of CPU (one
    // that read both clients' bytes at once would take them for one frame)
    let w = br::request(true, regs::alpha::OFFSET, 64);
    {
        let mut c = raw_client(&port);
        c.write_all(&w[..4]).unwrap();
    }
    std::thread::sleep(Duration::from_millis(100));
    let v = session(&port, &["config", "get", "alpha"]);
    assert_eq!(v["alpha"]["raw"], 32, "half a frame was executed: {v}");
    // a client that sends a whole frame and leaves without reading the
    // answer: the board executes it (the bytes were on the line), and the
    // answer nobody read is flushed when the next session opens the port
    {
        let mut c = raw_client(&port);
        c.write_all(&w).unwrap();
    }
    // on the board the answer is out 110 us after the frame; here in a few ms
    std::thread::sleep(Duration::from_millis(300));
    let v = session(&port, &["config", "get", "alpha"]);
    assert_eq!(v["alpha"]["raw"], 64, "{v}");

    // a client at the wrong line rate gets no answer, as from the board...
    let (code, _, err) = ldcpctl(&port, &["--baud", "115200", "probe"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("UART bridge"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // ...and the next session at the right one works
    let v = session(&port, &["config", "get", "alpha"]);
    assert_eq!(v["alpha"]["raw"], 64, "{v}");

    // register reads per second through the pty, one client
    let mut bus = UartBridge::open(&port, br::DEFAULT_BAUD).unwrap();
    let n = 200;
    let t0 = Instant::now();
    for _ in 0..n {
        assert_eq!(bus.read32(regs::magic::OFFSET).unwrap(), regs::MAGIC);
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "{n} register reads through the pty in {secs:.3} s: {:.0} reads/s",
        n as f64 / secs
    );

    // board time: a host pause is replayed up to the cap, then the board's
    // clock stops, so pauses of 50 ms and 300 ms leave the same CYCLES
    // difference between two reads: the line's bits (the first read's
    // answer, the second's request) and QUIET_MAX_CYCLES
    let cap = srv.ready["quiet_max_cycles"].as_u64().unwrap();
    assert_eq!(cap, ldcpctl::sim_board::QUIET_MAX_CYCLES);
    let mut paused = |ms: u64| {
        let c0 = bus.read32(regs::cycles_lo::OFFSET).unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        let c1 = bus.read32(regs::cycles_lo::OFFSET).unwrap();
        c1.wrapping_sub(c0) as u64
    };
    let (d50, d300) = (paused(50), paused(300));
    eprintln!("CYCLES between two reads 50 ms / 300 ms apart: {d50} / {d300}");
    assert_eq!(d50, d300);
    assert!(d50 > cap, "the pause was not replayed: {d50}");
    let line = d50 - cap;
    // a 70-bit answer and a 90-bit request at the board's clocks per bit,
    // less the parts of bits before the strobe and after the answer
    let bit = u64::from(ldcpctl::sim_board::BIT_CYCLES);
    assert!((150 * bit..=160 * bit).contains(&line), "{line}");
    drop(bus);

    // SIGTERM: a clean exit, the summary, and the port gone
    let (code, summary, err) = srv.stop(Some(libc::SIGTERM));
    eprintln!("{err}");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(summary["stopped_by"], "SIGTERM", "{summary}");
    assert!(
        summary["host_bytes"].as_u64().unwrap() > 200 * 9,
        "{summary}"
    );
    assert!(
        summary["board_bytes"].as_u64().unwrap() > 200 * 7,
        "{summary}"
    );
    assert_eq!(summary["board_bytes_dropped"], 0, "{summary}");
    assert!(
        summary["cycles"].as_u64().unwrap() > stats["CYCLES"].as_u64().unwrap(),
        "{summary}"
    );
    // the pts number may be reused by another process's pty at once; if
    // not, the old port is gone and the driver says so
    let (code, _, err) = ldcpctl(&port, &["probe"]);
    assert_eq!(code, 1, "{err}");
    if !port.exists() {
        assert!(err.contains("does not exist"), "{err}");
    }
}

#[test]
fn serve_sim_refuses_a_bad_port_and_bad_options() {
    // not a serial port
    let (code, _, err) = ldcpctl(Path::new("/dev/null"), &["probe"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("configuring /dev/null (is it a serial port?)"),
        "{err}"
    );
    // no such port
    let (code, _, err) = ldcpctl(Path::new("/dev/pts/ldcp-none"), &["probe"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("serial port /dev/pts/ldcp-none does not exist"),
        "{err}"
    );
    // the backend options are a client's: refused, not ignored
    for args in [
        &["--port", "/dev/null", "serve-sim"][..],
        &["serve-sim", "--baud", "115200"][..],
        &["--backend", "pcie", "serve-sim"][..],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot be used with serve-sim"),
            "{args:?}: {err}"
        );
    }
    // a bad idle limit is refused before anything is built, exit 2 (1e300
    // seconds panicked converting to a Duration, exit 101)
    for (arg, shown) in [("-1", "-1"), ("1e300", "1000000000000000"), ("NaN", "NaN")] {
        let o = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
            .args(["serve-sim", &format!("--exit-after-idle={arg}")])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{arg}: {err}");
        assert!(
            err.contains(&format!("--exit-after-idle {shown}"))
                && err.contains("out of range: it must be seconds in (0, 1e9]"),
            "{err}"
        );
    }
}

#[test]
fn serve_sim_exits_when_idle_and_on_sigint() {
    // the golden-model board: quick to start, the same line and time rule
    let srv = Server::start(&["--engine", "model", "--exit-after-idle", "0.5"]);
    let v = session(&srv.port, &["config", "set", "beta", "0.25"]);
    assert_eq!(v["beta"]["raw"], 64, "{v}");
    let t0 = Instant::now();
    let (code, summary, err) = srv.stop(None);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(summary["stopped_by"], "idle", "{summary}");
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());

    let srv = Server::start(&["--engine", "model"]);
    let v = session(&srv.port, &["config", "get", "beta"]);
    assert_ne!(v["beta"]["raw"], 64, "a new server is a new board: {v}");
    let (code, summary, err) = srv.stop(Some(libc::SIGINT));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(summary["stopped_by"], "SIGINT", "{summary}");
}
