fn main() {
    let name = std::env::args().nth(1).unwrap_or("wred_ecn".into());
    print!(
        "{}",
        ldcp_hdl::blocks::find(&name).unwrap().verilog().unwrap()
    );
}
