//! The register map is consistent and every committed generated file is
//! what the map generates today.

use ldcp_regmap::{check, gen, Access, Field, Format, Register, Source, REGISTERS};
use std::path::PathBuf;

#[test]
fn the_map_has_no_structural_error() {
    assert_eq!(check(REGISTERS), Vec::<String>::new());
    assert_eq!(REGISTERS[0].name, "MAGIC");
    assert_eq!(REGISTERS[0].offset, 0);
    assert_eq!(REGISTERS[0].reset(), ldcp_regmap::MAGIC);
}

/// The generated positions index the list their module names: a model
/// that reads `ext_regs::XSTATUS` reads XSTATUS in the extension decoder.
#[test]
fn positions_index_their_decoders_lists() {
    use ldcp_regmap::position::{core_regs, ext_regs, offset, switch_regs};
    use ldcp_regmap::{core_registers, ext_registers, switch_registers};
    assert_eq!(core_registers()[core_regs::GAMMA].name, "GAMMA");
    assert_eq!(core_registers()[core_regs::CNT_CLEAR].name, "CNT_CLEAR");
    assert_eq!(ext_registers()[ext_regs::XSTATUS].name, "XSTATUS");
    assert_eq!(ext_registers()[ext_regs::LOOP_LOST].name, "LOOP_LOST");
    assert_eq!(switch_registers()[switch_regs::WRED_K].name, "WRED_K");
    assert_eq!(switch_registers()[switch_regs::CD_INCAST].name, "CD_INCAST");
    // the switch port's list is not a slice of the map: GIT_HASH is at
    // the same offset, in another position
    assert_eq!(switch_registers()[switch_regs::GIT_HASH].name, "GIT_HASH");
    assert_eq!(offset::GAMMA, ldcp_regmap::model::offset("GAMMA"));
    assert_eq!(offset::WRED_K, ldcp_regmap::model::offset("WRED_K"));
}

#[test]
fn committed_generated_files_are_up_to_date() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    for (path, text) in gen::files() {
        let committed = std::fs::read_to_string(root.join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}; run regmap-gen --write"));
        assert!(
            committed == text,
            "{path} is out of date: run `cargo run -p ldcp-regmap --bin regmap-gen -- --write`"
        );
    }
}

const F8: Field = Field {
    name: "X",
    lsb: 0,
    width: 8,
    format: Format::Uint,
    min: 0,
    max: 255,
    reset: 0,
    doc: "",
};

fn reg(name: &'static str, offset: u32, fields: &'static [Field]) -> Register {
    Register {
        block: "t",
        name,
        offset,
        access: Access::Rw,
        source: Source::NotRo,
        read_strobe: false,
        fields,
        doc: "",
        param: None,
    }
}

#[test]
fn overlapping_registers_are_found() {
    let errs = check(&[reg("A", 0x10, &[F8]), reg("B", 0x10, &[F8])]);
    assert!(
        errs.iter().any(|e| e.contains("A and B overlap at 0x10")),
        "{errs:?}"
    );
    let errs = check(&[reg("A", 0x12, &[F8])]);
    assert!(
        errs.iter().any(|e| e.contains("not 4-byte aligned")),
        "{errs:?}"
    );
}

#[test]
fn a_field_that_does_not_fit_is_found() {
    static WIDE: [Field; 1] = [Field { lsb: 28, ..F8 }];
    let errs = check(&[reg("A", 0, &WIDE)]);
    assert!(
        errs.iter()
            .any(|e| e.contains("A.X (bits 35..28) does not fit")),
        "{errs:?}"
    );
    static OVER: [Field; 2] = [
        F8,
        Field {
            name: "Y",
            lsb: 4,
            ..F8
        },
    ];
    let errs = check(&[reg("A", 0, &OVER)]);
    assert!(errs.iter().any(|e| e.contains("A.Y overlaps")), "{errs:?}");
    static RANGE: [Field; 1] = [Field { max: 256, ..F8 }];
    let errs = check(&[reg("A", 0, &RANGE)]);
    assert!(
        errs.iter().any(|e| e.contains("does not fit 8 bits")),
        "{errs:?}"
    );
}

#[test]
fn fields_check_their_legal_range_and_name_it() {
    let r = ldcp_regmap::register("alpha").unwrap();
    let f = r.field("raw").unwrap();
    assert_eq!(f.check_raw(256), Ok(256));
    let e = f.check_raw(257).unwrap_err();
    assert!(e.contains("raw 257 is out of range"), "{e}");
    assert!(
        e.contains("[1, 256] (raw), [0.00390625, 1] in its unit"),
        "{e}"
    );
    assert_eq!(f.set(0xffff_ffff, 3), 0xffff_fe03);
    assert_eq!(f.get(0xffff_fe03), 3);
}

#[test]
fn parameters_are_rw_registers_of_one_field_with_unique_names() {
    let p = |name: &'static str, r: Register| Register {
        param: Some(name),
        ..r
    };
    static TWO: [Field; 2] = [
        F8,
        Field {
            name: "Y",
            lsb: 8,
            ..F8
        },
    ];
    let errs = check(&[p("a", reg("A", 0, &[F8])), p("a", reg("B", 4, &[F8]))]);
    assert!(
        errs.iter()
            .any(|e| e.contains("two registers are parameter a")),
        "{errs:?}"
    );
    let errs = check(&[p("a", reg("A", 0, &TWO))]);
    assert!(
        errs.iter()
            .any(|e| e.contains("must be an RW register of one field")),
        "{errs:?}"
    );
    let errs = check(&[p("Alpha", reg("A", 0, &[F8]))]);
    assert!(
        errs.iter().any(|e| e.contains("not lower_snake_case")),
        "{errs:?}"
    );
    // the real map: every parameter is one, with its name
    let names: Vec<&str> = ldcp_regmap::params().filter_map(|r| r.param).collect();
    assert!(
        names.contains(&"alpha") && names.contains(&"wred_p_max"),
        "{names:?}"
    );
}

#[test]
fn parameter_values_convert_in_the_field_unit_and_name_the_range() {
    let f = ldcp_regmap::register("ALPHA").unwrap().fields[0];
    assert_eq!(f.from_value(0.5), Ok(128));
    assert_eq!(f.to_value(128), 0.5);
    let e = f.from_value(1.5).unwrap_err();
    assert!(
        e.contains("1.5 is out of range: it must be in [0.00390625, 1]"),
        "{e}"
    );
    let e = f.from_value(0.3).unwrap_err();
    assert!(
        e.contains("not a whole number of steps of 2^-8 (nearest: 0.30078125)"),
        "{e}"
    );
    assert!(f.from_value(f64::NAN).is_err());
    assert!(f.check_raw(0).unwrap_err().contains("[1, 256] (raw)"));
    let bytes = ldcp_regmap::register("WRED_K_MIN").unwrap().fields[0];
    assert_eq!(bytes.from_value(30000.0), Ok(30000));
    assert!(bytes.from_value(30000.5).is_err());
}

#[test]
fn the_switch_port_decodes_id_core_reset_wred_and_its_own() {
    use ldcp_regmap::{
        decoded_by, switch_registers, BLOCKS_NIC_CORE, BLOCKS_NIC_SYSTEM, BLOCKS_SWITCH_PORT,
        KIND_NIC, KIND_SWITCH_PORT, REGISTERS,
    };
    let names: Vec<&str> = switch_registers().iter().map(|r| r.name).collect();
    assert_eq!(
        &names[..6],
        [
            "MAGIC",
            "VERSION",
            "GIT_HASH",
            "CAPS",
            "CORE_RESET",
            "BLOCKS"
        ]
    );
    // then the WRED/ECN port's, then the switch port's own (draft 001)
    let wred = names[6..]
        .iter()
        .take_while(|n| n.starts_with("WRED_"))
        .count();
    assert_eq!(wred, REGISTERS.iter().filter(|r| r.block == "wred").count());
    for n in &names[6 + wred..] {
        let r = ldcp_regmap::register(n).unwrap();
        assert!(
            r.is_switch_only() && r.offset >= ldcp_regmap::SWITCH_BASE,
            "{n}"
        );
    }
    assert!(ldcp_regmap::check(switch_registers()).is_empty());
    // every WRED/ECN register is there, at the NIC system's offset
    for r in REGISTERS.iter().filter(|r| r.block == "wred") {
        assert!(
            decoded_by(r, KIND_SWITCH_PORT, false, BLOCKS_SWITCH_PORT),
            "{}",
            r.name
        );
        assert!(
            decoded_by(r, KIND_NIC, true, BLOCKS_NIC_SYSTEM)
                && !decoded_by(r, KIND_NIC, false, BLOCKS_NIC_CORE)
        );
        // the block's bit decides, not CAPS.EXT alone
        assert!(!decoded_by(r, KIND_NIC, true, BLOCKS_NIC_CORE));
        assert!(!decoded_by(r, KIND_SWITCH_PORT, false, 0));
    }
    // each extension block's registers follow its own bit
    for (block, bit) in [
        ("pacing", ldcp_regmap::BLOCK_PACING_TIMER),
        ("fast_start", ldcp_regmap::BLOCK_FAST_START),
        ("ack_gen", ldcp_regmap::BLOCK_ACK_GEN),
    ] {
        for r in REGISTERS.iter().filter(|r| r.block == block) {
            assert!(decoded_by(r, KIND_NIC, true, 1 << bit), "{}", r.name);
            assert!(
                !decoded_by(r, KIND_NIC, true, BLOCKS_NIC_SYSTEM & !(1 << bit)),
                "{}",
                r.name
            );
        }
    }
    for name in [
        "ALPHA",
        "FLOW_CMD",
        "EV_PUSH",
        "STATUS",
        "FS_EV",
        "PT_GRANTS",
    ] {
        let r = ldcp_regmap::register(name).unwrap();
        assert!(
            !decoded_by(r, KIND_SWITCH_PORT, false, BLOCKS_NIC_SYSTEM),
            "{name}"
        );
    }
    // the switch port's own registers: no NIC decodes them; a switch port
    // by its SW_BLOCKS bits (and SW_BLOCKS itself, always)
    use ldcp_regmap::{BLOCKS_SWITCH_PORT_ALL, SW_BLOCKS_SHIFT};
    for r in REGISTERS.iter().filter(|r| r.is_switch_only()) {
        assert!(!r.is_ext(), "{}", r.name);
        assert!(!decoded_by(r, KIND_NIC, true, u32::MAX), "{}", r.name);
        assert!(
            decoded_by(r, KIND_SWITCH_PORT, false, BLOCKS_SWITCH_PORT_ALL),
            "{}",
            r.name
        );
        match ldcp_regmap::block_bit(r) {
            Some(b) => {
                assert!(b >= SW_BLOCKS_SHIFT, "{}", r.name);
                assert!(
                    !decoded_by(
                        r,
                        KIND_SWITCH_PORT,
                        false,
                        BLOCKS_SWITCH_PORT_ALL & !(1 << b)
                    ),
                    "{}",
                    r.name
                );
            }
            None => assert_eq!(r.name, "SW_BLOCKS"),
        }
    }
    // the NIC decoders are unchanged by them
    assert!(ldcp_regmap::ext_registers()
        .iter()
        .all(|r| r.offset < ldcp_regmap::SWITCH_BASE));
    let caps = ldcp_regmap::register("CAPS").unwrap();
    let kind = caps.field("KIND").unwrap();
    assert_eq!(kind.get(kind.put(KIND_SWITCH_PORT)), KIND_SWITCH_PORT);
    assert_eq!(caps.reset() & kind.mask(), 0, "a NIC by default");
}

/// The decoder's model reads in two stages, as the generated RTL does (the
/// cosimulations hold the two together): a read's data shows exactly
/// READ_LATENCY_CYCLES after its strobe, reads may follow each other every
/// cycle, a read strobed right after a write returns the written value, and
/// a write strobed right after a read acts after the read's sample.
#[test]
fn a_read_shows_its_data_read_latency_cycles_after_the_strobe() {
    use ldcp_regmap::model::{offset, BusIn, BusOut, RegFileModel};
    use ldcp_regmap::position::core_regs;
    assert_eq!(ldcp_regmap::READ_LATENCY_CYCLES, 2);
    let n = ldcp_regmap::core_registers().len();
    let (ro, set) = (vec![0u32; n], vec![0u32; n]);
    let mut m = RegFileModel::new();
    let mut step = |bus: BusIn| {
        m.tick(&bus, false, &ro, &set);
        m.outputs()
    };
    let (a, b) = (offset("ALPHA"), offset("BETA"));
    let beta_reset = RegFileModel::new().held(core_regs::BETA);
    let none = BusOut::default();
    let data = |rdata| BusOut {
        rdata,
        rvalid: true,
    };
    // `step` returns the outputs after its edge: what the bus shows in the
    // next cycle
    assert_eq!(step(BusIn::write(a, 5)), none);
    assert_eq!(step(BusIn::read(a)), none, "no data in the next cycle");
    // ALPHA's data two cycles after its strobe, BETA's in the next cycle
    assert_eq!(step(BusIn::read(b)), data(5));
    assert_eq!(step(BusIn::write(a, 7)), data(beta_reset));
    assert_eq!(step(BusIn::read(a)), none);
    // the read of ALPHA samples it before the write of 9 in its second cycle
    assert_eq!(step(BusIn::write(a, 9)), data(7));
    assert_eq!(step(BusIn::default()), none);
}

/// A write acts WRITE_LATENCY_CYCLES after its strobe: a command (a WO
/// register) reaches the core then, with its fields, for one cycle (the
/// fields are slices of the registered write word), and an RW register
/// takes its value at the end of that cycle.
#[test]
fn a_command_reaches_the_core_the_cycle_after_its_write() {
    use ldcp_regmap::model::{offset, BusIn, RegFileModel};
    use ldcp_regmap::position::core_regs;
    assert_eq!(ldcp_regmap::WRITE_LATENCY_CYCLES, 1);
    let n = ldcp_regmap::core_registers().len();
    let (ro, set) = (vec![0u32; n], vec![0u32; n]);
    let mut m = RegFileModel::new();
    let (push, cmd) = (core_regs::EV_PUSH, core_regs::FLOW_CMD);
    assert_eq!(m.command(push), None);
    m.tick(
        &BusIn::write(offset("EV_PUSH"), 0xffff_f3a5),
        false,
        &ro,
        &set,
    );
    // the written bits inside EV_PUSH's fields (flow 11..0, n 15..12, ECE 16)
    assert_eq!(m.command(push), Some(0x1_f3a5));
    assert_eq!(m.command(cmd), None);
    assert_eq!(m.wdata_q(), 0xffff_f3a5);
    m.tick(&BusIn::default(), false, &ro, &set);
    assert_eq!(m.command(push), None, "a one-cycle strobe");
    // an RW register takes its write at the end of the next cycle
    let alpha = core_regs::ALPHA;
    let before = m.held(alpha);
    assert_ne!(before, 3);
    m.tick(&BusIn::write(offset("ALPHA"), 3), false, &ro, &set);
    assert_eq!(m.held(alpha), before, "not at the write's own edge");
    m.tick(&BusIn::default(), false, &ro, &set);
    assert_eq!(m.held(alpha), 3);
    // a reset in the cycle a write acts wins
    m.tick(&BusIn::write(offset("ALPHA"), 5), false, &ro, &set);
    m.tick(&BusIn::default(), true, &ro, &set);
    assert_eq!(m.held(alpha), before);
}
