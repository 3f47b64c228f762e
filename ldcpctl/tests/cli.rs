//! `ldcpctl` as a user meets it: bad input gives a clear error and exit 2
//! (a device that is not there, exit 1); bench --json reports one event per
//! device cycle in generator mode.

use std::process::Command;

fn ldcpctl(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args(args)
        .output()
        .expect("running ldcpctl");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn bad_input_is_refused_with_the_legal_range() {
    for (args, want) in [
        (
            &["config", "set", "alpha", "1.5"][..],
            "alpha = 1.5 is out of range: it must be in [0.00390625, 1]",
        ),
        (
            &["config", "set", "beta", "0.3"][..],
            "beta = 0.3 is not a whole number of steps of 2^-8 (nearest: 0.30078125)",
        ),
        (
            &["config", "set", "wred_p_max", "1.5"][..],
            "wred_p_max = 1.5 is out of range: it must be in [0, 1]",
        ),
        (
            &["config", "set", "alpha", "raw:300"][..],
            "alpha = raw 300 is out of range: it must be in [1, 256] (raw)",
        ),
        (
            &["config", "set", "alpha", "half"][..],
            "alpha = \"half\" is not a number",
        ),
        // extremes are echoed in plain words, not 300 digits
        (
            &["config", "set", "alpha", "1e-300"][..],
            "alpha = 1e-300 is out of range: it must be in [0.00390625, 1]",
        ),
        (
            &["config", "set", "alpha", "18446744073709551616"][..],
            "alpha = 1.8446744073709552e19 is out of range",
        ),
        (
            &["config", "set", "gamma_shift", "2.5"][..],
            "gamma_shift = 2.5 is not a whole number (nearest: 3)",
        ),
        (
            &["config", "set", "rtt_ticks", "70000"][..],
            "rtt_ticks = 70000 is out of range: it must be in [1, 65535]",
        ),
        (
            &["flow", "show", "256"][..],
            "flow 256 is out of range: this device has flows 0..=255",
        ),
        (
            &["--backend", "pcie", "probe"][..],
            "--backend pcie needs --bdf",
        ),
        (
            &["--backend", "pcie", "--bdf", "0000:7e:1f.0", "probe"][..],
            "no PCI device at 0000:7e:1f.0",
        ),
        (
            &["--backend", "uart", "--port", "/dev/ttyLDCP-none", "probe"][..],
            "serial port /dev/ttyLDCP-none does not exist",
        ),
    ] {
        let (code, _, err) = ldcpctl(args);
        // a bad argument exits 2 (as clap's refusals); a device that is
        // not there exits 1
        let absent = want.starts_with("no PCI device") || want.starts_with("serial port");
        assert_eq!(code, if absent { 1 } else { 2 }, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // an unknown parameter is a usage error: clap lists the map's names
    let (code, _, err) = ldcpctl(&["config", "set", "nope", "1"]);
    assert_eq!(code, 2, "{err}");
    let names: Vec<&str> = ldcp_host::Param::ALL.iter().map(|p| p.name()).collect();
    assert!(
        err.contains("invalid value 'nope'") && err.contains(&names.join(", ")),
        "{err}"
    );
}

#[test]
fn bench_json_reports_one_event_per_device_cycle() {
    let (code, out, err) = ldcpctl(&["bench", "--json", "--events", "300000"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
    assert_eq!(v["generator"]["events_per_cycle"], 1.0, "{v}");
    assert_eq!(v["generator"]["events_counted"], 300000, "{v}");
    assert_eq!(v["fifo"]["events"], 30000, "{v}");
    assert_eq!(v["fifo"]["dropped"], 0, "{v}");
    assert!(
        v["fifo"]["events_per_second"].as_f64().unwrap() > 0.0,
        "{v}"
    );
}

/// `bench --mode loop` through a port faster than the loop: half a packet
/// per cycle sent, delivered, acknowledged back and taken by the engine
/// (the marker's one port carries a packet and its ACK), counted by the
/// device; bad `--set` and `--loop-flows` values are refused by name, with
/// the legal range, before anything runs.
#[test]
fn bench_loop_reports_packets_per_cycle_and_refuses_bad_settings() {
    let (code, out, err) = ldcpctl(&[
        "bench",
        "--json",
        "--mode",
        "loop",
        "--cycles",
        "100000",
        "--set",
        "wred_drain=4000",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
    let l = &v["loop"];
    let sent = l["sent_per_cycle"].as_f64().unwrap();
    assert!((0.49..=0.5).contains(&sent), "{v}");
    assert_eq!(l["sent"], l["delivered"], "{v}");
    assert_eq!(l["delivered"], l["engine_events"], "{v}");
    assert_eq!(l["dropped"], 0, "{v}");
    let names: Vec<&str> = ldcp_host::Param::ALL.iter().map(|p| p.name()).collect();
    for (args, want) in [
        (
            &["--set", "nope=1"][..],
            format!(
                "no parameter \"nope\"; the parameters are {}",
                names.join(", ")
            ),
        ),
        (
            &["--set", "wred_drain"][..],
            "expected NAME=VALUE".to_string(),
        ),
        (
            &["--set", "wred_drain=99999"][..],
            "wred_drain = 99999 is out of range: it must be in [0, 16383]".to_string(),
        ),
        (
            &["--loop-flows", "0"][..],
            "--loop-flows 0 is out of range: this device's loop takes [1, 256] (its flows)"
                .to_string(),
        ),
        (
            &["--loop-flows", "257"][..],
            "--loop-flows 257 is out of range: this device's loop takes [1, 256] (its flows)"
                .to_string(),
        ),
        (
            &["--cycles", "0"][..],
            "--cycles 0: a loop run needs at least one cycle".to_string(),
        ),
    ] {
        let mut a = vec!["bench", "--mode", "loop"];
        if !args.contains(&"--cycles") {
            a.extend_from_slice(&["--cycles", "1000"]);
        }
        a.extend_from_slice(args);
        let (code, _, err) = ldcpctl(&a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(&want), "{a:?}: {err}");
    }
}

/// A reader that closes its end early (`ldcpctl config get | head -1`)
/// ends ldcpctl by SIGPIPE, quietly, as any Unix filter: no panic message,
/// no exit 101 (it panicked in println! before).
#[test]
fn a_reader_that_goes_away_ends_ldcpctl_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args(["--backend", "model", "config", "get"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running ldcpctl");
    drop(child.stdout.take()); // the reader goes away before reading
    let out = child.wait_with_output().expect("waiting for ldcpctl");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

/// A value set on a simulated device is gone at the next command: the
/// command says so, and where a device that keeps its state is (it printed
/// "done" and the next command read the old value).
#[test]
fn config_set_on_a_simulated_device_says_it_does_not_last() {
    let (code, out, err) = ldcpctl(&["--backend", "model", "config", "set", "alpha", "0.5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("alpha"), "{out}");
    assert!(
        err.contains("lives only as long as this command") && err.contains("ldcpctl serve-sim"),
        "{err}"
    );
}

/// Ctrl-C during a loop bench stops the on-chip sender and says so, exit
/// 130 (the sender kept running after the command before).
#[test]
fn ctrl_c_during_a_loop_bench_stops_the_sender() {
    let child = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args([
            "--backend",
            "model",
            "bench",
            "--mode",
            "loop",
            "--cycles",
            "1000000000",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // long enough for the command to start its run (and its handler), even
    // beside two place-and-route runs; the run itself lasts minutes
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: a signal to our own child, not yet reaped
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted after") && err.contains("the loop's sender is stopped"),
        "{err}"
    );
}

/// `bench --help`'s example works as written (its `--set rtt=100` was
/// refused: the parameter is rtt_ticks).
#[test]
fn bench_help_example_is_accepted() {
    let (code, help, err) = ldcpctl(&["bench", "--help"]);
    assert_eq!(code, 0, "{err}");
    let example = help
        .split('`')
        .find(|s| s.starts_with("--set "))
        .expect("an example of --set");
    let mut args = vec![
        "--backend",
        "model",
        "bench",
        "--mode",
        "loop",
        "--cycles",
        "1000",
    ];
    args.extend(example.split_whitespace());
    let (code, _, err) = ldcpctl(&args);
    assert_eq!(code, 0, "{example}: {err}");
}

/// The first command on the simulated device verilates it (tens of
/// seconds, once): it says so on stderr, terminal or not (it was silent).
/// A fresh work folder makes the build cold. (A cached build loads in
/// well under the second after which the line is printed.)
#[test]
fn the_first_sim_build_says_it_is_building() {
    let work = std::env::temp_dir().join(format!("ldcpctl-cold-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_ldcpctl"))
        .args(["probe"])
        .env("LDCP_WORK_DIR", &work)
        .output()
        .expect("running ldcpctl");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("building the simulated device"), "{err}");
    std::fs::remove_dir_all(&work).unwrap();
}
