//! The README's block and board tables, generated from the committed
//! reports (`flow/reports/`), never typed: [`block_table`] and
//! [`board_table`] render them, [`splice`] puts a table between its
//! markers, and the test `readme_tables_are_current` fails when the
//! README's copy differs from what the reports give (run it with
//! `LDCP_UPDATE_DOCS=1` to rewrite the README's tables).

use crate::board::BOARDS;
use crate::registry::BLOCKS;
use crate::synth::committed_report;

/// The block table's markers in the README.
pub const BLOCKS_BEGIN: &str =
    "<!-- blocks:begin (generated from flow/reports/ by flow/src/doc_tables.rs) -->";
/// The board table's markers in the README.
pub const BOARDS_BEGIN: &str =
    "<!-- boards:begin (generated from flow/reports/ by flow/src/doc_tables.rs) -->";
/// The end marker of either table.
pub const END: &str = "<!-- tables:end -->";

fn num(v: &serde_json::Value) -> String {
    match v.as_u64() {
        Some(n) if n >= 1000 => {
            let s = n.to_string();
            let (head, tail) = s.split_at(s.len() - 3);
            format!("{head},{tail}")
        }
        Some(n) => n.to_string(),
        None => v.as_f64().map_or("-".into(), |f| format!("{f:.2}")),
    }
}

/// One row per block of `ldcp blocks`: its one-line doc, and for a block
/// synthesized alone its committed iCE40-HX8K report (cells, block RAMs,
/// Fmax against its target, the seed); a board core names its board, a
/// simulation size says so.
pub fn block_table() -> String {
    let mut t = String::from(
        "| block | what it is | logic cells (of 7,680) | BRAM | Fmax MHz (target) | seed |\n|---|---|---|---|---|---|\n",
    );
    for b in BLOCKS {
        let (cells, bram, fmax, seed) = match (b.fpga, b.board) {
            (_, Some(board)) => (format!("in `{board}`"), "-".into(), "-".into(), "-".into()),
            (false, None) => (
                "not synthesized alone".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ),
            (true, None) => match committed_report(&format!("{}.ice40-hx8k", b.name())) {
                Some(r) => (
                    num(&r["logic_cells"]),
                    num(&r["bram"]),
                    format!("{} ({})", num(&r["fmax_mhz"]), num(&r["target_mhz"])),
                    num(&r["seed"]),
                ),
                None => ("no report".into(), "-".into(), "-".into(), "-".into()),
            },
        };
        t += &format!(
            "| `{}` | {} | {cells} | {bram} | {fmax} | {seed} |\n",
            b.name(),
            b.doc().trim_end_matches('.')
        );
    }
    t
}

/// One row per board: its device, core, flows, clock (and whether a PLL
/// makes it), and its committed report's figures.
pub fn board_table() -> String {
    let mut t = String::from(
        "| board | device | core | flows | clock MHz (achieved) | logic cells | flip-flops | BRAM | DSP | seed |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for b in BOARDS {
        let r = committed_report(b.name).unwrap_or_default();
        let clock = r["clocks"]
            .as_array()
            .and_then(|c| c.first())
            .map_or("-".into(), |c| {
                format!(
                    "{} ({})",
                    num(&c["constraint_mhz"]),
                    num(&c["achieved_mhz"])
                )
            });
        let pll = if b.clock_mhz == b.oscillator_mhz {
            ""
        } else {
            ", PLL"
        };
        t += &format!(
            "| `{}` | {} | `{}` | {} | {clock}{pll} | {} of {} | {} | {} | {} | {} |\n",
            b.name,
            b.device,
            b.core,
            b.flows,
            num(&r["logic_cells"]),
            num(&r["logic_cells_total"]),
            num(&r["flip_flops"]),
            num(&r["bram"]),
            num(&r["dsp"]),
            num(&r["seed"]),
        );
    }
    t
}

/// `doc` with the text between the line `begin` and the next [`END`]
/// replaced by `table`; `None` when the markers are missing.
pub fn splice(doc: &str, begin: &str, table: &str) -> Option<String> {
    let start = doc.find(begin)? + begin.len();
    let end = start + doc[start..].find(END)?;
    Some(format!("{}\n{table}{}", &doc[..start], &doc[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's block and board tables are what the committed reports
    /// give; `LDCP_UPDATE_DOCS=1` rewrites them.
    #[test]
    fn readme_tables_are_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let new = splice(&doc, BLOCKS_BEGIN, &block_table()).expect("the README's block markers");
        let new = splice(&new, BOARDS_BEGIN, &board_table()).expect("the README's board markers");
        if std::env::var_os("LDCP_UPDATE_DOCS").is_some() {
            std::fs::write(&path, &new).unwrap();
            return;
        }
        assert!(
            new == doc,
            "README.md's tables are stale: run `LDCP_UPDATE_DOCS=1 cargo test -p ldcp-flow --lib readme_tables`"
        );
    }

    /// Every synthesized block alone and every board has a committed
    /// report: no row says "no report".
    #[test]
    fn every_table_row_has_its_report() {
        assert!(!block_table().contains("no report"), "{}", block_table());
        assert!(!board_table().contains("| - of -"), "{}", board_table());
    }

    /// The splice replaces only between the markers, and refuses a
    /// document without them.
    #[test]
    fn splice_replaces_between_the_markers() {
        let doc = format!("a\n{BLOCKS_BEGIN}\nold\n{END}\nb\n");
        assert_eq!(
            splice(&doc, BLOCKS_BEGIN, "new\n").unwrap(),
            format!("a\n{BLOCKS_BEGIN}\nnew\n{END}\nb\n")
        );
        assert!(splice("no markers", BLOCKS_BEGIN, "x").is_none());
    }
}
