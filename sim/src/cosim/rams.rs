//! RustHDL's block RAMs and their read during a write.
//!
//! RustHDL writes each `RAM` as a module of its own: one read port
//! (`read_data <= mem[read_address];`, a register) and one write port, both
//! on the block's clock. In Verilog (and so in RustHDL's and Verilator's
//! simulation) a read of the address written at the same edge returns the
//! old word. yosys (0.16 and later) keeps that by emulating it around the
//! iCE40's block RAM, which does not promise it: a register of the written
//! word and address and a multiplexer per bit (about 480 logic cells for
//! the Cu NIC's eleven tables). A RAM whose block never uses what such a
//! read returns needs none of it: its declaration carries
//! [`NO_RW_CHECK`], and yosys leaves the read undefined.
//!
//! The cosimulation holds a block to that claim: [`poison_unchecked_reads`]
//! makes every such RAM return the complement of the old word when the read
//! meets a write of its address, so a block that used it would mismatch
//! its model.

/// The yosys attribute on a RAM's declaration: its read during a write of
/// the same address is undefined.
pub const NO_RW_CHECK: &str = "(* no_rw_check *) ";

/// RustHDL's RAM read, as it writes it.
pub const RAM_READ: &str = "read_data <= mem[read_address];";

/// The poisoned read of a [`NO_RW_CHECK`] RAM in cosimulation.
const RAM_READ_POISONED: &str = "read_data <= (write_enable && write_address == read_address) ? ~mem[read_address] : mem[read_address];";

/// Applies `f` to each module of `v` (`module` .. `endmodule`), keeping the
/// text between modules.
pub fn map_modules(v: &str, mut f: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(v.len() + 1024);
    let mut rest = v;
    while let Some(start) = find_module(rest) {
        let Some(len) = rest[start..].find("endmodule") else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&f(&rest[start..start + len]));
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// The name of `module` (text from `module ` on, as [`map_modules`] gives).
pub fn module_name(module: &str) -> &str {
    let rest = module.strip_prefix("module ").unwrap_or(module);
    rest.split(['(', ';', ' ', '\n']).next().unwrap_or("")
}

/// The start of the next `module ` at the start of a line.
fn find_module(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find("module ") {
        let at = from + i;
        if at == 0 || s.as_bytes()[at - 1] == b'\n' {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Whether `module` is one of RustHDL's RAMs: a `mem` array, its read and a
/// write port.
pub fn is_ram(module: &str) -> bool {
    module.contains(RAM_READ) && module.contains("mem[write_address] <= write_data;")
}

/// `v` with every [`NO_RW_CHECK`] RAM's read poisoned (see the module doc);
/// the other modules unchanged.
pub fn poison_unchecked_reads(v: &str) -> String {
    map_modules(v, |m| {
        if is_ram(m) && m.contains(NO_RW_CHECK) {
            m.replace(RAM_READ, RAM_READ_POISONED)
        } else {
            m.to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAM: &str = "module t$ram(read_address,read_clock,read_data,write_address,write_clock,write_data,write_enable);\n    reg[7:0] mem[3:0];\n    always @(posedge read_clock) begin\n       read_data <= mem[read_address];\n    end\n    always @(posedge write_clock) begin\n       if (write_enable) begin\n          mem[write_address] <= write_data;\n       end\n    end\nendmodule // t$ram\n";

    #[test]
    fn only_marked_rams_are_poisoned() {
        let plain = format!("// head\n{RAM}\nmodule t(x);\nendmodule\n");
        assert_eq!(poison_unchecked_reads(&plain), plain);
        let marked = plain.replace(
            "    reg[7:0] mem",
            &format!("    {NO_RW_CHECK}reg[7:0] mem"),
        );
        let p = poison_unchecked_reads(&marked);
        assert!(
            p.contains(RAM_READ_POISONED) && !p.contains(RAM_READ),
            "{p}"
        );
        assert!(p.starts_with("// head\n") && p.ends_with("module t(x);\nendmodule\n"));
        assert!(is_ram(RAM) && !is_ram("module t(x);\nendmodule"));
        assert_eq!(module_name(RAM), "t$ram");
    }
}
