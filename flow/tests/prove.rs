//! `ldcp prove`: every property of every harness is proved by k-induction
//! on the block's generated Verilog, and a broken copy of the block fails
//! its proof with a counterexample (the harness can fail). Needs yosys,
//! yosys-smtbmc, z3 and Yices (scripts/bootstrap.sh); fails without them.

use ldcp_flow::prove::{self, HARNESSES};

fn dir(name: &str) -> std::path::PathBuf {
    ldcp_sim::work_dir().join("test-prove").join(name)
}

/// Every property of `block`'s harness reaches its expected status:
/// proved by k-induction, or bounded where the harness declares it and
/// says why. One test per block, so that the harnesses' solvers run side
/// by side.
fn proves(block: &str) {
    let r = prove::prove(block, None, &[], &dir("ok"), &mut |m| eprintln!("{m}")).unwrap();
    for p in &r.properties {
        println!(
            "{} {}: {} ({:.2} s; {}, {})",
            r.block, p.name, p.status, p.seconds, r.build, r.solver
        );
        // proved, or bounded where the harness says why
        assert_eq!(p.status, p.expected, "{} {}: {p:?}", r.block, p.name);
    }
    assert!(r.ok());
    assert!(r.properties.len() >= 3);
}

/// The blocks the tests below prove: every harness, each once.
const PROVED: &[&str] = &[
    "coord_decision",
    "tunnel_ingress",
    "tunnel_egress",
    "wred_ecn",
    "fast_start_marker",
    "fast_start_marker_seq",
    "window_engine",
    "window_engine_seq",
    "pacing_timer",
    "pacing_timer_seq",
    "ack_generator",
    "ack_generator_seq",
    "end_con",
    "fast_cnp",
    "nic_core",
    "nic_core_seq",
    "uart_bridge",
];

#[test]
fn every_harness_has_its_test() {
    let mut h: Vec<&str> = HARNESSES.iter().map(|h| h.block).collect();
    let mut t = PROVED.to_vec();
    h.sort_unstable();
    t.sort_unstable();
    assert_eq!(
        h, t,
        "a harness without its test below, or a test without a harness"
    );
}

#[test]
fn coord_decision_is_proved() {
    proves("coord_decision");
}

#[test]
fn window_engine_seq_is_proved() {
    proves("window_engine_seq");
}

#[test]
fn fast_start_marker_seq_is_proved() {
    proves("fast_start_marker_seq");
}

#[test]
fn nic_core_seq_is_proved() {
    proves("nic_core_seq");
}

#[test]
fn ack_generator_seq_is_proved() {
    proves("ack_generator_seq");
}

#[test]
fn tunnel_ingress_is_proved() {
    proves("tunnel_ingress");
}

#[test]
fn tunnel_egress_is_proved() {
    proves("tunnel_egress");
}

#[test]
fn wred_ecn_is_proved() {
    proves("wred_ecn");
}

#[test]
fn fast_start_marker_is_proved() {
    proves("fast_start_marker");
}

#[test]
fn window_engine_is_proved() {
    proves("window_engine");
}

#[test]
fn pacing_timer_is_proved() {
    proves("pacing_timer");
}

#[test]
fn pacing_timer_seq_is_proved() {
    proves("pacing_timer_seq");
}

/// The mutation: the sequential pacing timer starts a visit while an
/// update waits (no turn for the update), so an update can wait longer
/// than its 5 cycles: the handshake fails from reset (depth 12).
#[test]
fn a_pacing_timer_seq_that_starves_updates_fails_handshake() {
    let r = mutant_at(
        "pacing_timer_seq",
        "start_vis = free & ~want_upd;",
        "start_vis = free;",
        &["handshake"],
        Some(12),
    );
    fails_with_trace(&r, "handshake");
}

/// The mutation: the sequential pacing timer writes a leave (interval 0)
/// with the member bit set, so a flow that only ever left is granted:
/// joined_only fails from reset (depth 12).
#[test]
fn a_pacing_timer_seq_whose_leave_joins_fails_joined_only() {
    let r = mutant_at(
        "pacing_timer_seq",
        "t_iv$write_data = 25'(32'h0);\n        if (iv_nz) begin",
        "t_iv$write_data = act_bit;\n        if (iv_nz) begin",
        &["joined_only"],
        Some(12),
    );
    fails_with_trace(&r, "joined_only");
}

#[test]
fn ack_generator_is_proved() {
    proves("ack_generator");
}

#[test]
fn end_con_is_proved() {
    proves("end_con");
}

#[test]
fn fast_cnp_is_proved() {
    proves("fast_cnp");
}

#[test]
fn nic_core_is_proved() {
    proves("nic_core");
}

#[test]
fn uart_bridge_is_proved() {
    proves("uart_bridge");
}

/// `block`'s harness on its Verilog with `from` (exactly once in it)
/// replaced by `to`: the properties named in `only` (all when empty), each
/// printed.
fn mutant(block: &str, from: &str, to: &str, only: &[&str]) -> prove::ProveReport {
    mutant_at(block, from, to, only, None)
}

/// [`mutant`] at an induction depth of the test's (the base case then
/// checks that many cycles from reset), or the harness's.
fn mutant_at(
    block: &str,
    from: &str,
    to: &str,
    only: &[&str],
    depth: Option<u32>,
) -> prove::ProveReport {
    let h = prove::harness(block).unwrap();
    let good = prove::build_verilog(h).unwrap();
    assert_eq!(
        good.matches(from).count(),
        1,
        "{block}: the mutation's text is not (once) in the generated Verilog: update the test"
    );
    let bad = good.replace(from, to);
    let only: Vec<String> = only.iter().map(|n| n.to_string()).collect();
    // one folder per mutant test: two tests of one block run side by side
    let dir = dir(&format!("{block}-mutant-{}", only.join("-")));
    let r = prove::prove_verilog(&bad, h, depth, &only, &dir, &mut |_| {}).unwrap();
    for p in &r.properties {
        println!(
            "{block} mutant: {} {} ({:?}, {:.1} s)",
            p.name, p.status, p.failed_assert, p.seconds
        );
    }
    r
}

/// The status `r` gives property `name`.
fn status<'a>(r: &'a prove::ProveReport, name: &str) -> &'a str {
    r.properties
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.status.as_str())
        .unwrap_or_else(|| panic!("{name} not checked: {r:?}"))
}

/// `name` failed in `r`, with a counterexample VCD.
fn fails_with_trace(r: &prove::ProveReport, name: &str) {
    assert_eq!(status(r, name), "failed", "{r:?}");
    let p = r.properties.iter().find(|p| p.name == name).unwrap();
    let vcd = p.vcd.as_ref().expect("a counterexample");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(
        text.contains("$enddefinitions"),
        "{} is a VCD",
        vcd.display()
    );
}

/// The mutation: marking allowed with the AR indicator valid instead of
/// absent (C9's last row inverted), a one-character change of the
/// generated Verilog.
#[test]
fn a_mutated_coord_decision_fails_its_proof() {
    let r = mutant(
        "coord_decision",
        "(none_light & ~in_arv)",
        "(none_light & in_arv)",
        &[],
    );
    fails_with_trace(&r, "c9_rule");
    fails_with_trace(&r, "one_action");
    assert!(!r.ok());
}

/// The bug `formal/wred_ecn.sv` found, put back: the Not-ECT bound's K
/// two cycles fresher than the headroom `buf_max + 1 - K` it was chosen by
/// (`c_k` for `c_k3`, one word of the generated Verilog). The occupancy
/// bound is then not proved at the harness's depth (8: the overflow
/// needs more cycles from reset than the base case sees, and the
/// induction fails), and fails with its counterexample at 16; the `ldcp
/// prove` command line refuses a property the harness does not state.
#[test]
fn the_wred_ecn_k_change_bug_fails_the_occupancy_bound() {
    let (from, to) = ("s1_bound$d = 26'(c_k3$q);", "s1_bound$d = 26'(c_k$q);");
    let r = mutant("wred_ecn", from, to, &["occupancy_bound"]);
    assert_eq!(r.properties.len(), 1);
    assert_eq!(status(&r, "occupancy_bound"), "bounded", "{r:?}");
    let r = mutant_at("wred_ecn", from, to, &["occupancy_bound"], Some(16));
    fails_with_trace(&r, "occupancy_bound");
    let e = prove::prove(
        "wred_ecn",
        None,
        &["no_such".to_string()],
        &dir("wred_ecn-mutant"),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("no_such") && e.contains("occupancy_bound"),
        "{e}"
    );
}

/// The event FIFO with its overflow flag cut (the flag's register never
/// set, one literal of the generated Verilog): `drop_flagged` must fail,
/// with its counterexample (the harness's properties sit inside the core,
/// so this also runs a splice into mutated Verilog).
#[test]
fn a_fifo_that_drops_silently_fails_drop_flagged() {
    let r = mutant(
        "nic_core",
        "ovf_q$d = 1'(32'h1);",
        "ovf_q$d = 1'(32'h0);",
        &["drop_flagged", "pointers"],
    );
    fails_with_trace(&r, "drop_flagged");
    // the mutation leaves the pointers alone
    assert_eq!(status(&r, "pointers"), "proved", "{r:?}");
}

/// The bridge with its CRC check cut (a frame's CRC byte compared with
/// itself, one word of the generated Verilog): a frame with a bad CRC then
/// reaches the bus. `bad_crc_refused` and `crc_guards_the_bus` must not be
/// proved. (A frame takes some 360 clocks on the line, beyond the
/// harness's depth of 2, so the base case cannot reach the strobe: the
/// mutant shows as an induction that fails, `bounded`, where the harness
/// expects `proved`.)
#[test]
fn a_bridge_that_skips_its_crc_check_is_not_proved() {
    let r = mutant(
        "uart_bridge",
        "if (rx_shift$q != f_crc$q) begin",
        "if (rx_shift$q != rx_shift$q) begin",
        &["bad_crc_refused", "crc_guards_the_bus", "read_bus_stable"],
    );
    assert_ne!(status(&r, "bad_crc_refused"), "proved", "{r:?}");
    assert_ne!(status(&r, "crc_guards_the_bus"), "proved", "{r:?}");
    // the mutation leaves a read's bus hold alone
    assert_eq!(status(&r, "read_bus_stable"), "proved", "{r:?}");
}

/// The window engine with its gamma floor one below gamma (a halving that
/// lands below the floor writes gamma - 1: one expression of the
/// generated Verilog): `cw_in_range` (every cw of the watched flow in
/// [gamma, cw_max], its table word carried to the harness by `// connect`)
/// must fail with its counterexample.
#[test]
fn a_window_engine_below_its_gamma_floor_fails_cw_in_range() {
    let r = mutant(
        "window_engine",
        "ld_c$13$d = cf_gamma$q;",
        "ld_c$13$d = cf_gamma$q - 32'd1;",
        &["cw_in_range"],
    );
    fails_with_trace(&r, "cw_in_range");
}

/// The mutation: the sequential window engine's skip of the multiply lands
/// one step short of its last step, so an update without the multiply
/// shows a cycle late. The handshake then fails from reset (at depth 12:
/// a take, its skip at step 4, the step counter off the harness's count);
/// at the harness's depth 2 its induction fails (bounded).
#[test]
fn a_window_engine_seq_whose_skip_lands_short_fails_handshake() {
    let r = mutant_at(
        "window_engine_seq",
        "st$d = st_last;",
        "st$d = st_last - 6'd1;",
        &["handshake"],
        Some(12),
    );
    fails_with_trace(&r, "handshake");
}

/// The mutation: the sequential window engine skips the multiply only from
/// cw >= 2.0 instead of 1.0 (its step-4 test one bit higher), so an update
/// ending in [1.0, 2.0) takes 27 cycles instead of 7: short_iff_no_multiply
/// fails from reset (depth 12: a read of a flow at its power-up 1.0; the
/// first assertion to fail is the step counter's tie to the harness's
/// count, which follows the rule).
#[test]
fn a_window_engine_seq_that_skips_too_rarely_fails_short_iff_no_multiply() {
    let r = mutant_at(
        "window_engine_seq",
        "(|c1$q[(32'h14)+:(12)] | ~|c1$q[(32'hc)+:(20)])",
        "(|c1$q[(32'h15)+:(11)] | ~|c1$q[(32'hc)+:(20)])",
        &["short_iff_no_multiply"],
        Some(12),
    );
    fails_with_trace(&r, "short_iff_no_multiply");
}

/// The mutation: the sequential ACK generator applies its rules a step
/// early (its decide at step 1, before the compares are registered), so
/// an op's ACK and error show a cycle early: the handshake fails from
/// reset (depth 12).
#[test]
fn an_ack_generator_seq_that_decides_early_fails_handshake() {
    let r = mutant_at(
        "ack_generator_seq",
        "decide = busy$q & (st$q == 2'(32'h2));",
        "decide = busy$q & (st$q == 2'(32'h1));",
        &["handshake"],
        Some(12),
    );
    fails_with_trace(&r, "handshake");
}

/// The mutation: the sequential ACK generator writes the entry of an event
/// whose flow id is beyond the table (its low bits' entry): `refused`
/// (no word of either table changes) fails from reset (depth 12).
#[test]
fn an_ack_generator_seq_that_writes_a_refused_id_fails_refused() {
    let r = mutant_at(
        "ack_generator_seq",
        "w_en = decide & ~o_oor$q & ~reset;",
        "w_en = decide & ~reset;",
        &["refused"],
        Some(12),
    );
    fails_with_trace(&r, "refused");
}

/// The mutation: the sequential-engine core pops its FIFO without waiting
/// for the engine's `in_ready`, so a popped event is lost while the engine
/// is busy: port_handshake fails from reset (the harness's depth, 3).
#[test]
fn a_nic_core_seq_whose_fifo_ignores_the_engine_fails_port_handshake() {
    let r = mutant_at(
        "nic_core_seq",
        "take_fifo = ~sweeping$q & ~sys_set_valid & ~gen_busy$q & fifo_avail & eng$in_ready;",
        "take_fifo = ~sweeping$q & ~sys_set_valid & ~gen_busy$q & fifo_avail;",
        &["port_handshake"],
        None,
    );
    fails_with_trace(&r, "port_handshake");
}

/// The mutation: the sequential-engine core's reset sweep does not wait
/// for the engine, so a flow's SET is lost while the engine is busy with
/// the one before: sweep_complete fails from reset (depth 8).
#[test]
fn a_nic_core_seq_whose_sweep_ignores_the_engine_fails_sweep_complete() {
    let r = mutant_at(
        "nic_core_seq",
        "take_sweep = sweeping$q & ~sys_sweep_hold & eng$in_ready;",
        "take_sweep = sweeping$q & ~sys_sweep_hold;",
        &["sweep_complete"],
        Some(8),
    );
    fails_with_trace(&r, "sweep_complete");
}

/// The mutation: the sequential fast-start marker's `in_ready` ignores its
/// busy flag, so an event offered while one is in flight is taken over it:
/// the handshake fails from reset (depth 12).
#[test]
fn a_fast_start_marker_seq_ready_while_busy_fails_handshake() {
    let r = mutant_at(
        "fast_start_marker_seq",
        "in_ready = ~sw_active$q & ~busy$q;",
        "in_ready = ~sw_active$q;",
        &["handshake"],
        Some(12),
    );
    fails_with_trace(&r, "handshake");
}

/// The mutation: the sequential fast-start marker writes the entry of an
/// event whose flow id is beyond the table (its low bits' entry): `refused`
/// fails from reset (depth 12).
#[test]
fn a_fast_start_marker_seq_that_writes_a_refused_id_fails_refused() {
    let r = mutant_at(
        "fast_start_marker_seq",
        "w_en = at3 & ~e_oor$q & ~reset;",
        "w_en = at3 & ~reset;",
        &["refused"],
        Some(12),
    );
    fails_with_trace(&r, "refused");
}
