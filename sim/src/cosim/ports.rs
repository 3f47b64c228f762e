//! The port list of a generated Verilog module, read from its declarations.

use super::CosimError;

/// One port of a Verilog module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSpec {
    /// Port name.
    pub name: String,
    /// Width in bits (1..=64 for the harness).
    pub width: u32,
    /// Input (true) or output.
    pub input: bool,
}

/// Reads the ports of `module` from RustHDL-style Verilog, where each port
/// is declared on its own line as `input wire [N:0] name;` or
/// `output reg [N:0] name;` inside the module body.
pub fn parse_ports(verilog: &str, module: &str) -> Result<Vec<PortSpec>, CosimError> {
    let header = format!("module {module}(");
    let start = verilog.find(&header).ok_or_else(|| CosimError::Ports {
        module: module.to_string(),
        detail: "no such module in the Verilog".into(),
    })?;
    let body = &verilog[start..];
    let end = body.find("endmodule").unwrap_or(body.len());
    let mut ports = Vec::new();
    for line in body[..end].lines().skip(1) {
        let line = line.trim();
        let (input, rest) = if let Some(r) = line.strip_prefix("input ") {
            (true, r)
        } else if let Some(r) = line.strip_prefix("output ") {
            (false, r)
        } else {
            continue;
        };
        let rest = rest
            .trim_start_matches("wire")
            .trim_start_matches("reg")
            .trim();
        let (width, name) = if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| bad(module, line))?;
            let msb: u32 = r[..close]
                .split(':')
                .next()
                .and_then(|m| m.trim().parse().ok())
                .ok_or_else(|| bad(module, line))?;
            (msb + 1, r[close + 1..].trim())
        } else {
            (1, rest)
        };
        let name = name.trim_end_matches(';').trim().to_string();
        if width > 64 {
            return Err(CosimError::Ports {
                module: module.to_string(),
                detail: format!(
                    "port {name} is {width} bits wide; the harness moves at most 64 bits per port"
                ),
            });
        }
        ports.push(PortSpec { name, width, input });
    }
    Ok(ports)
}

fn bad(module: &str, line: &str) -> CosimError {
    CosimError::Ports {
        module: module.to_string(),
        detail: format!("cannot read the declaration `{line}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosim_reads_rusthdl_port_declarations() {
        let v = "module m(clock,a,q);\n    input wire  clock;\n    input wire  [13:0] a;\n    output reg  [31:0] q;\n    reg  [3:0] x;\nendmodule\n";
        let p = parse_ports(v, "m").unwrap();
        assert_eq!(
            p,
            vec![
                PortSpec {
                    name: "clock".into(),
                    width: 1,
                    input: true
                },
                PortSpec {
                    name: "a".into(),
                    width: 14,
                    input: true
                },
                PortSpec {
                    name: "q".into(),
                    width: 32,
                    input: false
                },
            ]
        );
        assert!(parse_ports(v, "n").is_err());
    }
}
