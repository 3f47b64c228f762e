//! `ldcp netsim sweep | merge`: a spec's runs split into shards (one per
//! machine or batch task), and the shards' outputs merged back in spec
//! order.

use super::common::{go, keep, output_file, Error};
use crate::cli::{MergeArgs, SweepArgs};
use crate::config::Cc;
use crate::scenario::{self, Options};
use serde_json::{json, Value};
use std::path::Path;

/// Parses `I/N`.
fn shard(s: &str) -> Result<(usize, usize), Error> {
    let bad = || {
        Error::BadArg(format!(
            "--shard {s}: it must be I/N with 1 <= I <= N (for example 2/8)"
        ))
    };
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

fn read_spec(path: &Path) -> Result<Vec<(usize, Value, Options)>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::BadArg(format!("{}: {e}", path.display())))?;
    parse_spec(&text, path)
}

/// A sweep spec's runs: (line number, the line's JSON, its options), each
/// checked as a run's options are (`scenario::check`); `path` names the
/// file in errors. Blank lines and `#` comments are skipped.
pub fn parse_spec(text: &str, path: &Path) -> Result<Vec<(usize, Value, Options)>, Error> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let v: Value = serde_json::from_str(t).map_err(|e| {
            // a number JSON cannot hold (1e999): name the key it is under
            let key = key_before(t, e.column());
            let what = match key {
                Some(key) if e.to_string().starts_with("number out of range") => format!(
                    "\"{key}\": the number is out of range ({e}); `ldcp netsim --help` gives each field's range"
                ),
                _ => e.to_string(),
            };
            Error::BadArg(format!("{}:{}: {what}", path.display(), k + 1))
        })?;
        // a line is the run's scenario, cc and seed, and its tuning
        // (`scenario::Tuning`, which refuses a key it does not know)
        let mut rest = v.as_object().cloned().ok_or_else(|| {
            Error::BadArg(format!(
                "{}:{}: a spec line is a JSON object",
                path.display(),
                k + 1
            ))
        })?;
        let scenario = rest
            .remove("scenario")
            .and_then(|x| x.as_str().map(String::from))
            .ok_or_else(|| {
                Error::BadArg(format!("{}:{}: no \"scenario\"", path.display(), k + 1))
            })?;
        let cc: Cc = match rest.remove("cc") {
            Some(c) => serde_json::from_value(c)
                .map_err(|e| Error::BadArg(format!("{}:{}: cc: {e}", path.display(), k + 1)))?,
            None => Cc::Ldcp,
        };
        let seed = match rest.remove("seed") {
            Some(x) => x.as_u64().ok_or_else(|| {
                Error::BadArg(format!(
                    "{}:{}: seed {x} is not an integer in [0, 2^64)",
                    path.display(),
                    k + 1
                ))
            })?,
            None => 1,
        };
        let mut o = Options::new(&scenario, cc, seed);
        o.tuning = serde_json::from_value(Value::Object(rest.clone())).map_err(|e| {
            Error::BadArg(format!(
                "{}:{}: {}",
                path.display(),
                k + 1,
                tuning_error(&rest, e)
            ))
        })?;
        scenario::check(&o)
            .map_err(|e| Error::BadArg(format!("{}:{}: {e}", path.display(), k + 1)))?;
        out.push((k + 1, v, o));
    }
    if out.is_empty() {
        return Err(Error::BadArg(format!(
            "{}: no runs in the spec",
            path.display()
        )));
    }
    Ok(out)
}

/// The JSON key whose value runs up to column `col` (1-based) of `line`.
fn key_before(line: &str, col: usize) -> Option<&str> {
    let head = line.get(..col.min(line.len()))?;
    let colon = head.rfind(':')?;
    let key = head[..colon].trim_end().strip_suffix('"')?;
    key.rfind('"').map(|q| &key[q + 1..])
}

/// Why a spec line's tuning does not parse, naming the field: the first
/// key whose value alone does not parse, with the field's legal range (its
/// `ldcp netsim --help` line); serde's own words for anything else (an
/// unknown key names itself).
fn tuning_error(rest: &serde_json::Map<String, Value>, e: serde_json::Error) -> String {
    use clap::Args;
    let cmd = scenario::Tuning::augment_args(clap::Command::new("tuning"));
    for (key, val) in rest {
        let one = Value::Object([(key.clone(), val.clone())].into_iter().collect());
        if serde_json::from_value::<scenario::Tuning>(one).is_ok() {
            continue;
        }
        let Some(arg) = cmd.get_arguments().find(|a| a.get_id() == key.as_str()) else {
            continue;
        };
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        return format!("\"{key}\": {val} is not a legal value: {help}");
    }
    e.to_string()
}

/// `ldcp netsim sweep`.
pub fn sweep(a: &SweepArgs) -> Result<bool, Error> {
    let (i, n) = shard(&a.shard)?;
    let spec = read_spec(&a.spec)?;
    if let Some(p) = &a.out {
        output_file("--out", p)?;
    }
    let mine: Vec<_> = spec
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % n == i - 1)
        .map(|(_, x)| x)
        .collect();
    eprintln!("shard {i}/{n}: {} runs", mine.len());
    let mut out = String::new();
    let mut ok = true;
    for (line, v, o) in mine {
        let r = go(&o)?;
        ok &= r.json["packets"]["conserved"] == true;
        out += &serde_json::to_string(&json!({"line": line, "spec": v, "result": keep(&r)}))
            .expect("json");
        out.push('\n');
    }
    match &a.out {
        Some(p) => {
            std::fs::write(p, out).map_err(|e| Error::Io(format!("{}: {e}", p.display())))?
        }
        None => print!("{out}"),
    }
    Ok(ok)
}

/// `ldcp netsim merge`.
pub fn merge(a: &MergeArgs) -> Result<bool, Error> {
    if a.files.is_empty() {
        return Err(Error::BadArg(
            "merge: give the shards' JSON-lines files".into(),
        ));
    }
    let mut rows: Vec<(u64, Value)> = Vec::new();
    for p in &a.files {
        let text = std::fs::read_to_string(p)
            .map_err(|e| Error::BadArg(format!("{}: {e}", p.display())))?;
        for (k, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value = serde_json::from_str(line)
                .map_err(|e| Error::BadArg(format!("{}:{}: {e}", p.display(), k + 1)))?;
            let n = v["line"].as_u64().ok_or_else(|| {
                Error::BadArg(format!(
                    "{}:{}: no `line` field: not a sweep shard's output",
                    p.display(),
                    k + 1
                ))
            })?;
            rows.push((n, v));
        }
    }
    rows.sort_by_key(|r| r.0);
    for w in rows.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(Error::BadArg(format!(
                "spec line {} appears in two shards' outputs",
                w[0].0
            )));
        }
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&Value::Array(rows.into_iter().map(|r| r.1).collect()))
            .expect("json")
    );
    Ok(true)
}
