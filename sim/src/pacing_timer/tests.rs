use super::*;

fn update(flow: u32, interval: u32) -> PtInputs {
    PtInputs {
        in_valid: true,
        in_flow: flow,
        in_interval_cycles: interval,
        ..Default::default()
    }
}

/// Runs `cycles` idle cycles; returns the grants as (cycle, flow, late).
fn run_idle(m: &mut PacingTimerModel, cycles: u64, from: u64) -> Vec<(u64, u32, u32)> {
    let mut g = vec![];
    for c in 0..cycles {
        m.tick(&PtInputs::default());
        let o = m.outputs();
        if o.out_valid {
            g.push((from + c, o.out_flow, o.out_late_cycles));
        }
    }
    g
}

#[test]
fn pacing_timer_lateness_is_at_most_n_minus_1_for_any_number_due_at_once() {
    let fb = 5; // 32 flows
    let n = 1u32 << fb;
    let mut max_late = 0;
    for k in [1u32, 2, 7, 31, 32] {
        for (interval, reverse) in [(n, false), (n, true), (3 * n + 1, true), (1000, false)] {
            let mut m = PacingTimerModel::new(fb);
            // k flows join in consecutive cycles: all come due within k cycles
            for j in 0..k {
                m.tick(&update(if reverse { k - 1 - j } else { j }, interval));
            }
            let grants = run_idle(&mut m, 20 * interval as u64, k as u64);
            let mut per_flow = vec![0u32; n as usize];
            for &(_, f, late) in &grants {
                assert!(f < k, "only members are granted");
                assert!(
                    late <= lateness_bound_cycles(n, interval),
                    "k {k}: late {late}"
                );
                max_late = max_late.max(late);
                per_flow[f as usize] += 1;
            }
            // no flow starved, and the rate is one grant per interval
            for (f, &c) in per_flow.iter().take(k as usize).enumerate() {
                assert!(
                    (18..=20).contains(&c),
                    "k {k} interval {interval}: flow {f} got {c}"
                );
            }
        }
    }
    assert_eq!(max_late, n - 1, "the bound is tight");
}

#[test]
fn pacing_timer_grants_follow_the_ideal_schedule_within_the_bound() {
    // the functional model grants at the exact due times; the RTL grants
    // the same number per flow, give or take one per membership change
    // (a grant due within N cycles of a change may fall on either side)
    let fb = 4;
    let n = 1u32 << fb;
    let mut m = PacingTimerModel::new(fb);
    let mut ideal = vec![PacedFlow::default(); n as usize];
    let (mut rtl_g, mut ideal_g, mut changes) = (vec![0i64; 16], vec![0i64; 16], vec![1i64; 16]);
    let mut rng = crate::SplitMix64::new(11);
    for now in 0..300_000u64 {
        let i = if rng.next_u64().is_multiple_of(200) {
            let f = (rng.next_u64() % n as u64) as u32;
            let iv = [0u32, 40, 300, 1234][(rng.next_u64() % 4) as usize];
            update(f, iv)
        } else {
            PtInputs::default()
        };
        m.tick(&i);
        if i.in_valid {
            // the RTL stamps a join in the cycle after the update is taken
            ideal[i.in_flow as usize].update(now + 1, i.in_interval_cycles);
            changes[i.in_flow as usize] += 1;
        }
        for (f, p) in ideal.iter_mut().enumerate() {
            ideal_g[f] += p.grant(now) as i64;
        }
        let o = m.outputs();
        if o.out_valid {
            assert!(
                o.out_late_cycles < n,
                "cycle {now}: late {}",
                o.out_late_cycles
            );
            rtl_g[o.out_flow as usize] += 1;
        }
    }
    for f in 0..n as usize {
        assert!(
            (rtl_g[f] - ideal_g[f]).abs() <= changes[f],
            "flow {f}: {} RTL grants, {} ideal, {} changes",
            rtl_g[f],
            ideal_g[f],
            changes[f]
        );
    }
    assert!(rtl_g.iter().sum::<i64>() > 5_000);
}

#[test]
fn pacing_timer_join_leave_and_flow_reset() {
    let mut m = PacingTimerModel::new(3);
    m.tick(&update(2, 100));
    m.tick(&PtInputs::default());
    assert_eq!(m.is_member(2), Some(true));
    let g = run_idle(&mut m, 450, 2);
    assert_eq!(g.len(), 4, "{g:?}");
    assert!(g.iter().all(|&(_, f, l)| f == 2 && l < 8));
    // the window rises to 1: the flow leaves
    m.tick(&update(2, 0));
    let g = run_idle(&mut m, 500, 0);
    assert!(g.is_empty());
    assert_eq!(m.is_member(2), Some(false));
    // rejoin, then a restart with interval 0 (a flow reset to cw >= 1): it leaves
    m.tick(&update(2, 50));
    let g = run_idle(&mut m, 120, 0);
    assert_eq!(g.len(), 2);
    let restart = |interval| PtInputs {
        in_valid: true,
        in_restart: true,
        in_flow: 2,
        in_interval_cycles: interval,
        ..Default::default()
    };
    m.tick(&restart(0));
    assert!(run_idle(&mut m, 300, 0).is_empty());
    // a member restarted with a new interval forgets its schedule: an update
    // keeps the old due time (a grant within 40 cycles of it), a restart
    // grants first a whole interval later
    m.tick(&update(2, 40));
    let g = run_idle(&mut m, 100, 0);
    assert!(!g.is_empty(), "{g:?}");
    m.tick(&update(2, 200));
    let kept = run_idle(&mut m, 60, 0);
    assert!(!kept.is_empty(), "an update keeps the due time");
    m.tick(&restart(200));
    let fresh = run_idle(&mut m, 190, 0);
    assert!(
        fresh.is_empty(),
        "a restart's first grant is a whole interval away: {fresh:?}"
    );
    let g = run_idle(&mut m, 40, 0);
    assert_eq!(
        g.len(),
        1,
        "then it is granted: {g:?} (kept schedule: {kept:?})"
    );
    m.tick(&update(2, 0));
    // a flow id beyond the table is refused, visibly
    m.tick(&update(8, 50));
    m.tick(&PtInputs::default());
    assert!(m.outputs().stat_err_flow_strobe);
    assert!(run_idle(&mut m, 300, 0).is_empty());
}

#[test]
fn pacing_timer_reset_sweeps_then_takes_updates() {
    let mut m = PacingTimerModel::new(3);
    m.tick(&update(1, 10));
    run_idle(&mut m, 5, 0);
    m.tick(&PtInputs {
        reset: true,
        ..Default::default()
    });
    for _ in 0..8 {
        assert!(!m.outputs().in_ready);
        m.tick(&update(3, 10)); // ignored
    }
    assert!(m.outputs().in_ready);
    assert!(
        run_idle(&mut m, 100, 0).is_empty(),
        "reset leaves no member"
    );
    assert_eq!(m.is_member(1), Some(false));
}

#[test]
fn pacing_timer_short_intervals_do_not_burst() {
    // interval 3 with 8 flows: one grant per visit, never a catch-up burst
    let mut m = PacingTimerModel::new(3);
    m.tick(&update(0, 3));
    let g = run_idle(&mut m, 800, 1);
    assert!((99..=101).contains(&g.len()), "{}", g.len());
    for w in g.windows(2) {
        assert_eq!(w[1].0 - w[0].0, 8, "one grant per sweep");
    }
}

#[test]
fn paced_flow_functional_model() {
    let mut p = PacedFlow::default();
    p.update(10, 100);
    assert!(!p.grant(109));
    assert!(p.grant(110));
    assert!(!p.grant(110), "one grant per due time");
    assert!(p.grant(215), "late by 5");
    assert_eq!(p.due, 310, "lateness does not accumulate");
    p.update(220, 0);
    assert!(!p.grant(10_000));
}

/// The sequential timer's due times are the functional `PacedFlow`'s: a
/// join at the update's take plus the interval, each grant the latest
/// interval later (intervals of at least a lap, so the catch-up rule never
/// applies). Every grant comes at most a lap less one cycle after its due
/// time, none is missed, and no flow is granted twice for one due time.
/// Joins, leaves, restarts and member updates (the same interval) of 16
/// flows, at least 6 cycles apart (so `in_ready` is never low for them).
/// An update takes effect when written, up to 5 cycles after its take: a
/// visit that read the entry before may still grant on the old schedule.
#[test]
fn seq_pacing_timer_due_times_are_paced_flows() {
    let fb = 4;
    let n = 1u32 << fb;
    let lap = seq_lap_max_cycles(n);
    let mut m = PacingTimerSeqModel::new(fb);
    let mut f = vec![PacedFlow::default(); n as usize];
    let mut x = crate::xorshift::seed_state(0x5EED_002B);
    let mut rnd = || {
        x = crate::xorshift::step(x);
        x
    };
    let ivs: Vec<u32> = (0..n).map(|k| lap + 1 + k * 37).collect();
    let (mut grants, mut joins, mut gap, mut late_max) = (0u64, 0u64, 0u32, 0u32);
    let (mut stale, mut last_upd) = (0u64, vec![0u64; n as usize]);
    let cycles = 400_000u64;
    for c in 0..cycles {
        let mut i = PtInputs::default();
        if gap == 0 && rnd() % 4 == 0 {
            let fl = rnd() % n;
            let r = rnd() % 10;
            i = PtInputs {
                in_valid: true,
                in_flow: fl,
                in_restart: r == 0,
                in_interval_cycles: if r == 1 { 0 } else { ivs[fl as usize] },
                ..Default::default()
            };
            gap = 6;
        }
        gap = gap.saturating_sub(1);
        if i.in_valid {
            assert!(
                m.outputs().in_ready,
                "cycle {c}: an update 6 cycles after the last"
            );
            last_upd[i.in_flow as usize] = c;
            let p = &mut f[i.in_flow as usize];
            joins += (!p.active || i.in_restart) as u64 * (i.in_interval_cycles != 0) as u64;
            if i.in_restart {
                p.update(c, 0);
            }
            p.update(c, i.in_interval_cycles);
        }
        m.tick(&i);
        let o = m.outputs();
        if o.out_valid {
            // shown in cycle c + 1, decided with T of cycle c - 1
            let due = c - 1 - o.out_late_cycles as u64;
            let k = o.out_flow as usize;
            let p = &mut f[k];
            if p.active && p.due == due {
                assert!(p.grant(due), "the functional flow is due then");
            } else {
                // a visit that read the entry before a leave or a restart
                // was written (at most 5 cycles after its take; the visit
                // shows its grant 3 cycles after its read)
                assert!(
                    c - last_upd[k] <= 8,
                    "cycle {c}: flow {k} granted for due time {due}; functional: {p:?}"
                );
                stale += 1;
            }
            late_max = late_max.max(o.out_late_cycles);
            grants += 1;
        }
    }
    // none missed: every member's next due time is less than a lap (and the
    // pipeline) old
    for (k, p) in f.iter().enumerate() {
        assert!(
            !p.active || p.due + lap as u64 + 4 > cycles,
            "flow {k}: due at {} not granted by {cycles}",
            p.due
        );
    }
    eprintln!(
        "{grants} grants ({stale} of a schedule an update was replacing), {joins} joins, latest \
         {late_max} cycles (lap {lap})"
    );
    assert!(
        grants > 2_000 && joins > 500 && stale < grants / 100,
        "{grants} {joins} {stale}"
    );
    assert!(
        late_max < lap && late_max > lap / 3,
        "{late_max} of a lap of {lap}"
    );
}
