//! `regmap-gen`: writes (`--write`) or checks (`--check`, the default) every
//! file generated from the register map.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let write = match args.as_slice() {
        [] => false,
        [a] if a == "--check" => false,
        [a] if a == "--write" => true,
        _ => {
            eprintln!("usage: regmap-gen [--check | --write]\n  --check  exit 1 if a committed generated file is out of date (default)\n  --write  regenerate them");
            return ExitCode::from(2);
        }
    };
    let errs = ldcp_regmap::check(ldcp_regmap::REGISTERS);
    if !errs.is_empty() {
        for e in errs {
            eprintln!("regmap-gen: {e}");
        }
        return ExitCode::FAILURE;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stale = 0;
    for (path, text) in ldcp_regmap::gen::files() {
        let p = root.join(path);
        let old = std::fs::read_to_string(&p).unwrap_or_default();
        if old == text {
            continue;
        }
        if write {
            if let Err(e) = std::fs::write(&p, &text) {
                eprintln!("regmap-gen: cannot write {}: {e}", p.display());
                return ExitCode::FAILURE;
            }
            println!("wrote {path}");
        } else {
            eprintln!("regmap-gen: {path} is out of date");
            stale += 1;
        }
    }
    if stale > 0 {
        eprintln!("regmap-gen: run `cargo run -p ldcp-regmap --bin regmap-gen -- --write`");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
