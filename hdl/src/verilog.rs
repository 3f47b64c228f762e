//! Turns RustHDL's Verilog into what a user drops into a design: a unique,
//! descriptive module name and width-exact expressions.
//!
//! RustHDL 0.46 names every top module `top` and writes every `bit_cast` as
//! a mask, `((x) & N'hFF..)`, whose width is the wider of `x` and `N`; that
//! mixes widths in one operator, which `verilator -Wall` rightly reports.
//! [`finalize`] rewrites exactly that idiom into the SystemVerilog size cast
//! `N'(x)` (same value: both keep the low N bits, then zero-extend) and
//! renames `top` / `top$child` to `<name>` / `<name>$child`. Nothing else
//! is touched, so the output stays line-for-line readable against RustHDL's.
//! yosys (`read_verilog -sv`), Verilator and Icarus (`-g2012`) read it.

use regex::Regex;
use std::sync::OnceLock;

/// Errors of Verilog post-processing.
#[derive(Debug, thiserror::Error)]
pub enum VerilogError {
    /// The text does not contain the RustHDL top module.
    #[error("generated Verilog has no `module top(` to rename")]
    NoTop,
    /// A cast idiom whose parentheses do not balance.
    #[error("unbalanced cast at byte {0} of the generated Verilog")]
    Unbalanced(usize),
    /// RustHDL's own checks failed.
    #[error("{0}")]
    RustHdl(String),
    /// A module name that is not a plain Verilog identifier.
    #[error("module name {0:?} is not a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*)")]
    BadName(String),
}

fn cast_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\) & (\d+)'h([0-9a-fA-F]+)\)").unwrap())
}

fn ident_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_$]*").unwrap())
}

/// Whether `hex` is the mask of the low `n` bits.
fn is_low_mask(n: usize, hex: &str) -> bool {
    let hex = hex.trim_start_matches('0');
    if n == 0 {
        return hex.is_empty();
    }
    let top_digit = match n % 4 {
        0 => 'f',
        1 => '1',
        2 => '3',
        _ => '7',
    };
    let digits = n.div_ceil(4);
    hex.len() == digits
        && hex.to_ascii_lowercase().starts_with(top_digit)
        && hex[1..].chars().all(|c| c == 'f' || c == 'F')
}

/// Rewrites every `((x) & N'h<low N bits>)` into `N'(x)`.
fn rewrite_casts(src: &str) -> Result<String, VerilogError> {
    let mut text = src.to_string();
    loop {
        // the last match first: its rewrite moves nothing before it... except
        // its own opening parentheses, so search again after each rewrite.
        let Some(m) = cast_re()
            .captures_iter(&text)
            .filter(|c| is_low_mask(c[1].parse().unwrap_or(usize::MAX), &c[2]))
            .last()
        else {
            return Ok(text);
        };
        let whole = m.get(0).unwrap();
        let width: usize = m[1].parse().unwrap();
        let close = whole.start(); // the ')' closing `(x`
        let bytes = text.as_bytes();
        let mut depth = 0i32;
        let mut open = None;
        for i in (0..=close).rev() {
            match bytes[i] {
                b')' => depth += 1,
                b'(' => {
                    depth -= 1;
                    if depth == 0 {
                        open = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let open = open.ok_or(VerilogError::Unbalanced(close))?;
        if open == 0 || bytes[open - 1] != b'(' {
            return Err(VerilogError::Unbalanced(open));
        }
        let inner = &text[open + 1..close];
        let replacement = format!("{width}'({inner})");
        text.replace_range(open - 1..whole.end(), &replacement);
    }
}

/// Renames RustHDL's `top` module (and its `top$...` children) to `name`.
fn rename_top(src: &str, name: &str) -> Result<String, VerilogError> {
    if !src.contains("module top(") {
        return Err(VerilogError::NoTop);
    }
    Ok(ident_re()
        .replace_all(src, |c: &regex::Captures| {
            let id = &c[0];
            if id == "top" {
                name.to_string()
            } else if let Some(rest) = id.strip_prefix("top$") {
                format!("{name}${rest}")
            } else {
                id.to_string()
            }
        })
        .into_owned())
}

fn sub_input_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?m)^(    reg  (?:\[\d+:0\] )?[A-Za-z_][A-Za-z0-9_]*\$[A-Za-z0-9_$]+);$")
            .unwrap()
    })
}

/// Marks every sub-block input the RustHDL top module drives (its
/// `reg <child>$<port>;` declarations) with Verilator's
/// `/*verilator isolate_assignments*/`.
///
/// RustHDL writes a module's logic as one `always @(*)` block that drives
/// its sub-blocks' inputs and reads their outputs. Verilator orders whole
/// blocks, so when a sub-block's output is computed in the same block as
/// some of its inputs are read (a decoder's strobes and its reset, a
/// block's `in_ready` and its event inputs), it sees a combinational loop
/// that no signal closes and reports UNOPTFLAT. The metacomment (Verilator
/// manual: "assignments to this signal in any blocks should be isolated
/// into new blocks ... may clear up the problem" of a false loop) moves
/// each input's assignments into a block of their own. Other tools read a
/// comment; the logic is unchanged. Used for `nic_system`, whose top is the
/// first to hit this.
pub fn isolate_sub_inputs(raw: &str) -> String {
    isolate_sub_inputs_in(raw, "top")
}

/// [`isolate_sub_inputs`] for the module `name` of a raw RustHDL text (its
/// `module name(` to its `endmodule // name`; `top` is the top module): a
/// system nested in a board core has the same false loops as when it is
/// the top. Text without that module is returned unchanged.
pub fn isolate_sub_inputs_in(raw: &str, name: &str) -> String {
    let head = format!("module {name}(");
    let tail = format!("endmodule // {name}\n");
    let Some(start) = raw.find(&head) else {
        return raw.to_string();
    };
    let Some(len) = raw[start..].find(&tail) else {
        return raw.to_string();
    };
    let end = start + len;
    format!(
        "{}{}{}",
        &raw[..start],
        sub_input_re().replace_all(&raw[start..end], "$1 /*verilator isolate_assignments*/;"),
        &raw[end..]
    )
}

/// `raw` with every RustHDL RAM declared [`ldcp_sim::cosim::rams::NO_RW_CHECK`]
/// but those whose module name ends with one of `keep`: yosys leaves a read
/// of the address written at the same edge undefined instead of building
/// Verilog's old word around the block RAM (see [`ldcp_sim::cosim::rams`]).
/// For the RAMs of a block that never uses such a read (the cosimulation
/// poisons it); `keep` names those whose block does. Returns the text and
/// the number of RAMs marked.
pub fn no_rw_check(raw: &str, keep: &[&str]) -> (String, usize) {
    use ldcp_sim::cosim::rams::{is_ram, map_modules, module_name, NO_RW_CHECK};
    static DECL: OnceLock<Regex> = OnceLock::new();
    let decl =
        DECL.get_or_init(|| Regex::new(r"(?m)^(    )(reg\[\d+:0\] mem\[\d+:0\];)$").unwrap());
    let mut n = 0;
    let v = map_modules(raw, |m| {
        if is_ram(m) && decl.is_match(m) && !keep.iter().any(|k| module_name(m).ends_with(k)) {
            n += 1;
            decl.replace(m, format!("${{1}}{NO_RW_CHECK}${{2}}").as_str())
                .into_owned()
        } else {
            m.to_string()
        }
    });
    (v, n)
}

/// The same mark on both sides of every [`crate::table_sweep::TableSweep`]:
/// the inputs its parent drives (`reg ts$<port>;`) and, inside the table's
/// own module (`module <parent>$ts`), its outputs. In the deep form the
/// table's registered outputs (state, forwarding select) and the parent's
/// write data meet in the two modules' single blocks, a loop to Verilator
/// that no signal closes; with each assignment in a block of its own the
/// order is plain.
pub fn isolate_table_inputs(raw: &str) -> String {
    static INPUTS: OnceLock<Regex> = OnceLock::new();
    static OUTPUTS: OnceLock<Regex> = OnceLock::new();
    let inputs = INPUTS
        .get_or_init(|| Regex::new(r"(?m)^(    reg  (?:\[\d+:0\] )?ts\$[A-Za-z0-9_]+);$").unwrap());
    let outputs = OUTPUTS.get_or_init(|| {
        Regex::new(r"(?m)^(    output reg  (?:\[\d+:0\] )?[A-Za-z0-9_]+);$").unwrap()
    });
    let marked = inputs.replace_all(raw, "$1 /*verilator isolate_assignments*/;");
    ldcp_sim::cosim::rams::map_modules(&marked, |m| {
        if ldcp_sim::cosim::rams::module_name(m).ends_with("$ts") {
            outputs
                .replace_all(m, "$1 /*verilator isolate_assignments*/;")
                .into_owned()
        } else {
            m.to_string()
        }
    })
}

/// The Verilog a user gets: `raw` (RustHDL's output) with module `name` and
/// width-exact casts, under a header saying where it came from.
pub fn finalize(raw: &str, name: &str, doc: &str) -> Result<String, VerilogError> {
    finalize_open(raw, name, doc, &[])
}

/// [`finalize`], and the signals the block leaves unused on purpose
/// (`open`, by their wire names: outputs of shared sub-blocks such as
/// `ts$sweep_ptr`, or an input or decoded field whose bits above the
/// build's flows it ignores) are waived from Verilator's UNUSEDSIGNAL,
/// each by name and only it: their declarations are wrapped in
/// `lint_off`/`lint_on`. A name that is not a wire (or input wire) of the
/// module is an error (the waiver would be stale).
pub fn finalize_open(
    raw: &str,
    name: &str,
    doc: &str,
    open: &[&str],
) -> Result<String, VerilogError> {
    let mut raw = raw.to_string();
    for w in open {
        let re = Regex::new(&format!(
            r"(?m)^(\s*(input\s+)?wire\s+(\[[0-9:]+\]\s*)?{};\n)",
            regex::escape(w)
        ))
        .expect("a valid pattern");
        if !re.is_match(&raw) {
            // a local signal of which only some bits are read (the top bits
            // of a difference): RustHDL declares locals `reg`
            let re_reg = Regex::new(&format!(
                r"(?m)^(\s*reg\s+(\[[0-9:]+\]\s*)?{};\n)",
                regex::escape(w)
            ))
            .expect("a valid pattern");
            if !re_reg.is_match(&raw) {
                return Err(VerilogError::RustHdl(format!(
                    "`{w}` is listed as left open, but the module has no such wire or reg"
                )));
            }
            raw = re_reg
                .replace_all(&raw, |c: &regex::Captures| {
                    format!(
                        "    // left unused on purpose: only some bits of this local are read\n    /* verilator lint_off UNUSEDSIGNAL */\n{}    /* verilator lint_on UNUSEDSIGNAL */\n",
                        &c[1]
                    )
                })
                .into_owned();
            continue;
        }
        // every module of the file that declares it (a block embedded in a
        // system keeps its own name for the wire)
        raw = re
            .replace_all(&raw, |c: &regex::Captures| {
                format!(
                    "    // left unused on purpose: a shared sub-block's output this module does not need, or bits above the build's flows\n    /* verilator lint_off UNUSEDSIGNAL */\n{}    /* verilator lint_on UNUSEDSIGNAL */\n",
                    &c[1]
                )
            })
            .into_owned();
    }
    finalize_named(&raw, name, doc)
}

fn finalize_named(raw: &str, name: &str, doc: &str) -> Result<String, VerilogError> {
    let ok_name = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok_name {
        return Err(VerilogError::BadName(name.to_string()));
    }
    let mut body = rewrite_casts(&rename_top(raw, name)?)?;
    // RustHDL writes every register and sub-block as a module of its own
    // (`<name>$<field>`) after the top module, in the same file. Only the
    // top module is meant to match the file name: waive DECLFILENAME for
    // those children, and only for them.
    let end_top = format!("endmodule // {name}\n");
    if let Some(pos) = body.find(&end_top) {
        let at = pos + end_top.len();
        if body[at..].contains("module ") {
            body.insert_str(
                at,
                "\n// The modules below are the registers and sub-blocks of the module above.\n/* verilator lint_off DECLFILENAME */\n",
            );
        }
    }
    let mut out = String::new();
    out.push_str(&format!(
        "// {name}: {doc}\n// Generated by ldcp-hdl {} from RustHDL 0.46; do not edit.\n// Read with `read_verilog -sv` (yosys) or `-g2012` (Icarus): it uses size casts N'(x).\n",
        env!("CARGO_PKG_VERSION")
    ));
    out.push_str(body.trim_start());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verilog_rewrites_mask_casts_including_nested_ones() {
        let src = "x = ((a) & 25'h1ffffff) + ((((b) & 16'hffff) + c) & 24'hffffff);";
        assert_eq!(rewrite_casts(src).unwrap(), "x = 25'(a) + 24'(16'(b) + c);");
        // a mask that is not the low N bits is a real AND: left alone
        let and = "y = ((a) & 8'h0f);";
        assert_eq!(rewrite_casts(and).unwrap(), and);
        assert!(
            is_low_mask(1, "1")
                && is_low_mask(4, "f")
                && is_low_mask(6, "3f")
                && !is_low_mask(6, "7f")
        );
    }

    #[test]
    fn verilog_renames_top_and_children_only() {
        let src = "module top(clock);\n top$acc acc(.q(top_q), .d(stop$x));\nendmodule // top\nmodule top$acc(q);";
        let out = rename_top(src, "wred_ecn").unwrap();
        assert_eq!(out, "module wred_ecn(clock);\n wred_ecn$acc acc(.q(top_q), .d(stop$x));\nendmodule // wred_ecn\nmodule wred_ecn$acc(q);");
        assert!(finalize(src, "bad name", "").is_err());
        assert!(matches!(
            rename_top("module x();", "y"),
            Err(VerilogError::NoTop)
        ));
    }

    /// A waiver names the wire it waives; a stale one is an error.
    #[test]
    fn verilog_waives_open_outputs_by_name_only() {
        let raw = "module top(clock);\n    input wire  clock;\n    wire  [7:0] ts$sweep_ptr;\n    wire  ts$used;\nendmodule // top\n";
        let v = finalize_open(raw, "blk", "a block", &["ts$sweep_ptr"]).unwrap();
        let at = v.find("wire  [7:0] ts$sweep_ptr;").unwrap();
        assert!(
            v[..at].ends_with("/* verilator lint_off UNUSEDSIGNAL */\n    "),
            "{v}"
        );
        assert!(v[at..].contains("lint_on UNUSEDSIGNAL"));
        assert_eq!(
            v.matches("lint_off UNUSEDSIGNAL").count(),
            1,
            "only that wire: {v}"
        );
        let e = finalize_open(raw, "blk", "a block", &["ts$gone"]).unwrap_err();
        assert!(e.to_string().contains("ts$gone"), "{e}");
        // an input whose bits a build ignores, waived the same way
        let raw = "module top(clock, ev);\n    input wire  clock;\n    input wire  [16:0] ev;\nendmodule // top\n";
        let v = finalize_open(raw, "blk", "a block", &["ev"]).unwrap();
        let at = v.find("input wire  [16:0] ev;").unwrap();
        assert!(
            v[..at].ends_with("/* verilator lint_off UNUSEDSIGNAL */\n    "),
            "{v}"
        );
        assert_eq!(v.matches("lint_off UNUSEDSIGNAL").count(), 1, "{v}");
    }
}
