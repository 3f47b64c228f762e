//! The synthesis harness: a top module that lets nextpnr place a block
//! whose ports far outnumber the package's pins, and time it register to
//! register as it would sit in a design.
//!
//! Every input bit of the block comes from its own flip-flop of one long
//! chain fed by a single pin (`sin`), so inputs arrive from registers, as
//! from upstream logic, and no two inputs are correlated for yosys to
//! exploit. Each chain bit takes its predecessor XOR itself rather than
//! only its predecessor: in a plain shift register a block's input
//! register (the next bit's copy) would be merged into the chain, and
//! counted as the harness's (blocks with wide input registers were
//! undercounted until 2026-11-26). The block's outputs feed `(* keep *)` wires so nothing
//! is optimised away. The harness costs exactly one logic cell per chain
//! flip-flop (an iCE40 flip-flop can only be fed through its cell's LUT),
//! which the report subtracts: `logic_cells = placed - harness_cells`.

use ldcp_sim::cosim::PortSpec;

/// The harness Verilog and the number of flip-flops it adds.
pub struct Harness {
    /// The harness module's name.
    pub top: String,
    /// Its Verilog.
    pub verilog: String,
    /// Flip-flops in the input chain.
    pub flip_flops: usize,
}

/// Wraps module `block` with ports `ports` (as read from its Verilog).
pub fn wrap(block: &str, ports: &[PortSpec]) -> Harness {
    let top = format!("ldcp_synth_{block}");
    let inputs: Vec<&PortSpec> = ports
        .iter()
        .filter(|p| p.input && p.name != "clock")
        .collect();
    let width: usize = inputs
        .iter()
        .map(|p| p.width as usize)
        .sum::<usize>()
        .max(2);
    let mut v = String::new();
    v += &format!(
        "// Synthesis harness of {block}: see ldcp-flow's harness.rs. Generated; do not edit.\n"
    );
    v += &format!(
        "module {top}(\n    input wire clk,\n    input wire sin,\n    output wire sout\n);\n"
    );
    v += &format!("    reg [{}:0] chain = {width}'d0;\n", width - 1);
    // each bit takes its predecessor XOR itself: no chain flip-flop is a
    // plain delayed copy of another, so a block's input register (a copy
    // of its chain bit) cannot be merged into the chain by yosys, and the
    // block's cells are all counted as its own
    v += &format!(
        "    always @(posedge clk) chain <= {{chain[{}:0], sin}} ^ chain;\n",
        width - 2
    );
    v += &format!("    assign sout = chain[{}];\n", width - 1);
    let mut conns = vec![".clock(clk)".to_string()];
    let mut at = 0usize;
    for p in &inputs {
        let w = p.width as usize;
        conns.push(format!(".{}(chain[{}:{}])", p.name, at + w - 1, at));
        at += w;
    }
    for p in ports.iter().filter(|p| !p.input) {
        v += &format!("    (* keep *) wire [{}:0] out_{};\n", p.width - 1, p.name);
        conns.push(format!(".{}(out_{})", p.name, p.name));
    }
    v += &format!(
        "    {block} dut(\n        {}\n    );\n",
        conns.join(",\n        ")
    );
    v += "endmodule\n";
    Harness {
        top,
        verilog: v,
        flip_flops: width,
    }
}
