//! END.CON match: the generated Verilog against `EndConModel`, every
//! output every cycle, over proptest streams of per-cycle choices (packets
//! to the SID as last written, to the SID with one bit flipped, to
//! anything; every next header of G11's rule; SID word writes, some in a
//! packet's own cycle; resets); each case drained and checked empty. And
//! the RTL over every next-header value, against `decide` and against the
//! cases of G11 written out.

use ldcp_sim::end_con::*;
use proptest::prelude::*;

fn stream() -> impl Strategy<Value = Vec<EndConInputs>> {
    ldcp_tests::choices(2_000..8_000)
        .prop_map(|c| ldcp_sim::from_choices(EndConStimulus::default(), &c))
}

/// What the compared cases reached, from the RTL's outputs.
#[derive(Default, Debug)]
struct Reached {
    decisions: u64,
    by_action: [u64; 4],
    writes: u64,
    resets: u64,
}

#[test]
fn end_con_matches_model() {
    let (t, c) = ldcp_tests::cosim_cases(
        "end_con",
        "cosim_end_con",
        0x5EED_0014,
        50,
        stream(),
        EndConModel::new,
        |i: &EndConInputs, o: &EndConOutputs, c: &mut Reached| {
            c.resets += i.reset as u64;
            c.writes += i.cfg_we as u64;
            if o.out_valid {
                c.decisions += 1;
                c.by_action[o.out_action as usize & 3] += 1;
            }
        },
        |_, _| {},
    );
    eprintln!(
        "end_con cosim: {} cases, {} cycles ({} of drain), 0 mismatches, nothing left in \
         flight; {c:?} (forward, decapsulate, punt, drop)",
        t.cases, t.cycles, t.drain_cycles
    );
    assert!(t.cycles >= 200_000, "only {} cycles compared", t.cycles);
    assert!(
        c.decisions > 150_000 && c.writes > 10_000 && c.resets > 40,
        "{c:?}"
    );
    assert!(
        c.by_action.iter().all(|&n| n > 2_000),
        "every action reached: {c:?}"
    );
}

/// On the RTL: the SID written word by word, then every outer Next Header
/// (0-255) to END.CON and to a destination one bit away, and every SRH
/// Next Header with Segments Left 0 and 1; each decision as `decide` says
/// and as G11's cases say, the strip length of each decapsulation right.
#[test]
fn end_con_rtl_decides_every_next_header() {
    let cosim = ldcp_tests::cosim::<EndConModel>("end_con");
    let sid: u128 = 0x2001_0db8_0000_0000_0000_0000_00c0_0001;
    let mut stim = sid_writes(sid).to_vec();
    let pkt = |dst: u128, nh: u8, snh: u8, sl: u8, ext: u8| EndConInputs {
        in_valid: true,
        in_dst_hi: (dst >> 64) as u64,
        in_dst_lo: dst as u64,
        in_next_header: nh,
        in_srh_next_header: snh,
        in_srh_segments_left: sl,
        in_srh_ext_len: ext,
        ..Default::default()
    };
    let mut want = vec![];
    for nh in 0..=255u8 {
        for (dst, m) in [(sid, true), (sid ^ 1 << (nh as u32 % 128), false)] {
            stim.push(pkt(dst, nh, 4, 0, 2));
            want.push((m, nh, 4u8, 0u8, 2u8));
        }
    }
    for snh in 0..=255u8 {
        for sl in [0u8, 1] {
            stim.push(pkt(sid, 43, snh, sl, snh));
            want.push((true, 43, snh, sl, snh));
        }
    }
    let mut got = vec![];
    cosim
        .run_observed(
            EndConModel::new(),
            || stim.iter().cloned(),
            "every-next-header",
            &mut |_, o: &EndConOutputs| {
                if o.out_valid {
                    got.push(*o);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.len(), want.len());
    let mut counts = [0u32; 4];
    for (o, &(m, nh, snh, sl, ext)) in got.iter().zip(&want) {
        let a = decide(m, nh, snh, sl);
        let g11 = match (m, nh, snh, sl) {
            (false, ..) => Action::Forward,
            (true, 43, 4 | 41, 0) | (true, 4 | 41, ..) => Action::Decapsulate,
            (true, 43, 58, 0) | (true, 58, ..) => Action::Punt,
            _ => Action::Drop,
        };
        assert_eq!(a, g11, "{m} {nh} {snh} {sl}");
        assert_eq!(
            Action::from_code(o.out_action),
            a,
            "{m} {nh} {snh} {sl}: {o:?}"
        );
        let strip = match (a, nh) {
            (Action::Decapsulate, 43) => 48 + 8 * ext as u16,
            (Action::Decapsulate, _) => 40,
            _ => 0,
        };
        assert_eq!(o.out_strip_bytes, strip);
        counts[a.code() as usize] += 1;
    }
    eprintln!(
        "end_con, every next header on the RTL: {} packets, {counts:?} (forward, decapsulate, \
         punt, drop), each as G11 says",
        got.len()
    );
    assert_eq!(counts, [256, 5, 2, 761]);
}
