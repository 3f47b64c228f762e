//! Tunnel ECN ingress: the generated Verilog against `TunnelIngressModel`,
//! every output every cycle, over proptest streams of per-cycle choices
//! (packets most cycles on a few tunnels, mode writes, some in a packet's
//! own cycle, resets); each case drained and checked empty. And the RTL in
//! every cell of RFC 6040's Figure 3 (draft 001 Figure 5): four inner
//! codepoints, both modes, IPv4 and IPv6 inners, normal mode the default
//! (the block has no output that could change the inner header).

use ldcp_sim::tunnel_ecn::*;
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<IngressInputs>> {
    ldcp_tests::choices(2_000..8_000).prop_map(|c| ldcp_sim::from_choices(IngressStimulus, &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    decisions: u64,
    compat: u64,
    writes: u64,
    resets: u64,
}

#[test]
fn tunnel_ingress_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "tunnel_ingress",
        "cosim_tunnel_ingress",
        0x5EED_0013,
        50,
        stream(),
        TunnelIngressModel::new,
        |i: &IngressInputs, o: &IngressOutputs, c: &mut Reached| {
            c.resets += i.reset as u64;
            c.writes += i.cfg_we as u64;
            c.decisions += o.out_valid as u64;
            c.compat += (o.out_valid && o.out_compat) as u64;
        },
        |_, _| {},
    );
    eprintln!(
        "tunnel_ingress cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?}",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(
        c.decisions > 150_000 && c.compat > 20_000 && c.writes > 20_000 && c.resets > 50,
        "{c:?}"
    );
}

/// Every row of Figure 5 in both modes and both inner header kinds, on the
/// RTL: first with the tunnel as reset left it (normal), then written to
/// compatibility mode, then back to normal.
#[test]
fn tunnel_ingress_rtl_gives_figure_5() {
    let cosim = ldcp_tests::cosim::<TunnelIngressModel>("tunnel_ingress");
    let t = 37u8;
    let pkt = |inner: u8, ipv6: bool| IngressInputs {
        in_valid: true,
        in_tunnel: t,
        in_ipv6: ipv6,
        in_word0: word_with_ecn(if ipv6 { 0x6b40 } else { 0x45bc }, ipv6, inner),
        ..Default::default()
    };
    let write = |compat: bool| IngressInputs {
        cfg_we: true,
        cfg_tunnel: t,
        cfg_compat: compat,
        ..Default::default()
    };
    let mut stim = vec![];
    let mut want = vec![];
    for mode in [Mode::Normal, Mode::Compatibility, Mode::Normal] {
        if mode == Mode::Compatibility {
            stim.push(write(true));
        } else if !stim.is_empty() {
            stim.push(write(false));
        }
        for ipv6 in [false, true] {
            for (inner, compat, normal) in FIGURE_5 {
                stim.push(pkt(inner, ipv6));
                want.push((mode, if mode == Mode::Normal { normal } else { compat }));
            }
        }
    }
    let mut got = vec![];
    cosim
        .run_observed(
            TunnelIngressModel::new(),
            || stim.iter().cloned(),
            "figure-5",
            &mut |_, o: &IngressOutputs| {
                if o.out_valid {
                    got.push(*o);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.len(), want.len());
    for (o, (mode, outer)) in got.iter().zip(&want) {
        assert_eq!(o.out_tunnel, t);
        assert_eq!(o.out_compat, *mode == Mode::Compatibility, "{o:?}");
        assert_eq!(o.out_outer_ecn, *outer, "{mode:?}: {o:?}");
    }
    eprintln!(
        "tunnel_ingress, Figure 5 on the RTL: {} packets (4 codepoints x IPv4/IPv6 x normal, \
         compatibility, normal again), each as the table says",
        got.len()
    );
}
