//! placeholder
pub mod regs;
/// A field of a register, as the generated accessors describe it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldDef {
    pub reg: &'static str,
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub min: u32,
    pub max: u32,
}
