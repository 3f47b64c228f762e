//! Tunnel ECN egress: the generated Verilog against `TunnelEgressModel`,
//! every output every cycle, over proptest streams of per-cycle choices
//! (packets most cycles, every (inner, outer) pair, IPv4 and IPv6 inners,
//! resets); each case drained and checked empty. And the RTL's answers in
//! all 16 cells, for an IPv4 and an IPv6 inner, checked against RFC 6040's
//! table and against COMPANION.md's closed form (a second oracle written
//! apart from the table), with the IPv4 checksum verified.

use ldcp_sim::tunnel_ecn::*;
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<EgressInputs>> {
    ldcp_tests::choices(2_000..8_000).prop_map(|c| ldcp_sim::from_choices(EgressStimulus, &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    decisions: u64,
    drops: u64,
    dangerous: u64,
    unused: u64,
    resets: u64,
}

#[test]
fn tunnel_egress_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "tunnel_egress",
        "cosim_tunnel_egress",
        0x5EED_0012,
        50,
        stream(),
        TunnelEgressModel::new,
        |i: &EgressInputs, o: &EgressOutputs, c: &mut Reached| {
            c.resets += i.reset as u64;
            if o.out_valid {
                c.decisions += 1;
                c.drops += o.out_drop as u64;
                c.dangerous += (o.out_flag == 2) as u64;
                c.unused += (o.out_flag == 1) as u64;
            }
        },
        |_, _| {},
    );
    eprintln!(
        "tunnel_egress cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(
        c.decisions > 150_000 && c.drops > 5_000 && c.dangerous > 20_000 && c.unused > 5_000,
        "{c:?}"
    );
    assert!(c.resets > 50, "{c:?}");
}

/// The RTL in all 16 cells, both inner header kinds: the action and flag
/// of RFC 6040's table, the closed form's action, the ECN field written
/// into word 0 (and nothing else changed), and an IPv4 checksum that
/// still verifies.
#[test]
fn tunnel_egress_rtl_gives_the_table_in_all_16_cells() {
    let cosim = ldcp_tests::cosim::<TunnelEgressModel>("tunnel_egress");
    let mut stim = vec![];
    let mut want = vec![];
    for ipv6 in [false, true] {
        for inner in 0..4u8 {
            for outer in 0..4u8 {
                // a header whose other words sum to 0x1234
                let w = if ipv6 {
                    0x6a80 | (inner as u16) << 4
                } else {
                    0x45b8 | inner as u16
                };
                let csum = !ldcp_sim::ipv4::ones_sum([w, 0x1234]);
                stim.push(EgressInputs {
                    in_valid: true,
                    in_ipv6: ipv6,
                    in_word0: w,
                    in_csum: csum,
                    in_outer_ecn: outer,
                    ..Default::default()
                });
                want.push((ipv6, inner, outer, w, csum));
            }
        }
    }
    let mut got = vec![];
    let mut fin = EgressOutputs::default();
    let (st, _) = cosim
        .run_observed(
            TunnelEgressModel::new(),
            || stim.iter().cloned(),
            "all-16-cells",
            &mut |_, o: &EgressOutputs| {
                if o.out_valid {
                    got.push(*o);
                }
                fin = *o;
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.len(), 32);
    for (o, &(ipv6, inner, outer, w, csum)) in got.iter().zip(&want) {
        let cell = egress(inner, outer);
        let what = format!(
            "{} inner {}, outer {}: {o:?}",
            if ipv6 { "IPv6" } else { "IPv4" },
            ecn::NAMES[inner as usize],
            ecn::NAMES[outer as usize]
        );
        let action = if o.out_drop {
            Action::Drop
        } else {
            Action::Forward(o.out_ecn)
        };
        assert_eq!(action, cell.action, "table: {what}");
        assert_eq!(
            action,
            egress_closed_form(inner, outer),
            "closed form: {what}"
        );
        assert_eq!(o.out_flag, cell.flag.code(), "flag: {what}");
        let e = if o.out_drop { inner } else { o.out_ecn };
        assert_eq!(o.out_word0, word_with_ecn(w, ipv6, e), "word 0: {what}");
        if ipv6 || o.out_drop {
            assert_eq!(o.out_csum, csum, "checksum passed through: {what}");
        } else {
            assert!(
                ldcp_sim::ipv4::verifies(&[o.out_word0, 0x1234, o.out_csum]),
                "checksum: {what}"
            );
        }
    }
    // after the drain: each kind of inner met the table once
    let counts = (
        fin.stat_forwarded_pkts,
        fin.stat_dropped_pkts,
        fin.stat_dangerous_pkts,
        fin.stat_unused_pkts,
    );
    assert_eq!(counts, (30, 2, 8, 2), "forwarded, dropped, (!!!), (!)");
    eprintln!(
        "tunnel_egress, all 16 cells x (IPv4, IPv6): {} cycles, 32 decisions as the table and \
         the closed form say; counters (forwarded, dropped, (!!!), (!)) = {counts:?}",
        st.cycles
    );
}
