//! A block's ports, declared once.
//!
//! Every block's inputs and outputs are one [`ports!`](crate::ports!)
//! declaration in its model's file: a struct per direction whose fields are
//! the Verilog ports, in port order, with their widths and one-line docs.
//! From it come
//! - the golden model's input and output structs (the declaration *is*
//!   them);
//! - the cosimulation encoding ([`Ports::to_ports`], [`Ports::from_ports`])
//!   and the port lists the harness checks against the generated Verilog,
//!   name, direction and width, every time it verilates a block;
//! - RustHDL's hand stepper (`ldcp_hdl::stepper`), through the callback
//!   macro the declaration exports: the stepper drives and reads the
//!   RustHDL signals of the same names;
//! - typed observers: a cosimulation test reads `o.out_valid`, never
//!   `o[0]`.
//!
//! The RustHDL module declares its signals itself (that is RustHDL); the
//! harness refuses a module whose ports differ from the declaration, and
//! `ldcp-flow`'s registry test checks every block.
//!
//! # Naming
//! One convention for every block:
//! - `clock`, `reset` (synchronous, active high);
//! - an event stream into the block: `in_valid`, `in_<field>`, and the
//!   block's `in_ready` where it can refuse an event;
//! - its result stream: `out_valid`, `out_<field>`;
//! - parameters (levels the block registers): `cfg_<name>`;
//! - status levels, saturating counters and error pulses that are not a
//!   result stream: `stat_<name>` (`_strobe` for a one-cycle pulse);
//! - the register bus `bus_*`, the NIC core's system interface `sys_*`,
//!   observation ports of a top `obs_<block>_<port>`;
//! - units as suffixes: `_bytes`, `_pkts`, `_cycles`, `_ticks`; windows
//!   (`cw`) are in packets, UQ12.20, and say so in their doc.

/// One port: its Verilog name, width and doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Port {
    /// The Verilog port name (and the field name).
    pub name: &'static str,
    /// Width in bits, or [`FLOW_WIDTH`] for a flow id whose width is the
    /// block's build parameter (the window engine's 256- and 4,096-flow
    /// builds).
    pub width: u32,
    /// One line, with unit and format.
    pub doc: &'static str,
}

/// The width of a flow-id port sized by the block's build parameter: all
/// such ports of one module must have the same width.
pub const FLOW_WIDTH: u32 = 0;

/// A value that crosses a port: the model's field type.
pub trait PortValue: Copy {
    /// The type's bits: a port declared with this type is at most this
    /// wide ([`ports!`](crate::ports!) checks it at compile time).
    const BITS: u32;
    /// The port's bits (the harness checks they fit the port).
    fn to_port(self) -> u64;
    /// From the port's bits (the port is never wider than the type).
    fn from_port(bits: u64) -> Self;
}

impl PortValue for bool {
    const BITS: u32 = 1;
    fn to_port(self) -> u64 {
        self as u64
    }
    fn from_port(bits: u64) -> Self {
        bits & 1 != 0
    }
}

macro_rules! port_value_uint {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            const BITS: u32 = <$t>::BITS;
            fn to_port(self) -> u64 {
                self as u64
            }
            fn from_port(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}
port_value_uint!(u8, u16, u32, u64);

/// A struct whose fields are a block's ports in one direction, in port
/// order (made by [`ports!`](crate::ports!)).
pub trait Ports: Sized {
    /// The ports, in field order.
    const PORTS: &'static [Port];
    /// The fields as port bits, in [`Ports::PORTS`] order.
    fn to_ports(&self, bits: &mut [u64]);
    /// The fields from port bits, in [`Ports::PORTS`] order.
    fn from_ports(bits: &[u64]) -> Self;
}

/// Declares a block's ports once: its input struct and its output struct,
/// each field a Verilog port (`name: type = width`, with a doc line), and
/// the callback macro `$cb!` through which the HDL crate's hand stepper
/// gets the field lists.
///
/// ```
/// use ldcp_sim::ports::{Ports, FLOW_WIDTH};
/// ldcp_sim::ports! {
///     callback demo_ports;
///     /// One cycle of inputs.
///     #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
///     pub struct DemoIn {
///         /// Synchronous reset.
///         reset: bool = 1,
///         /// The flow, the build's flow bits.
///         in_flow: u32 = FLOW_WIDTH,
///     }
///     /// The registered outputs.
///     #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
///     pub struct DemoOut {
///         /// An update completed.
///         out_valid: bool = 1,
///     }
/// }
/// let names: Vec<&str> = DemoIn::PORTS.iter().map(|p| p.name).collect();
/// assert_eq!(names, ["reset", "in_flow"]);
/// assert_eq!(DemoOut::PORTS[0].width, 1);
/// ```
/// `demo_ports!(m { args })` expands to
/// `m! { args ; inputs [reset in_flow] outputs [out_valid] }`.
#[macro_export]
macro_rules! ports {
    (
        callback $cb:ident;
        $(#[$imeta:meta])*
        $ivis:vis struct $iname:ident {
            $( $(#[doc = $idoc:literal])* $ifield:ident : $ity:ty = $iwidth:expr ),* $(,)?
        }
        $(#[$ometa:meta])*
        $ovis:vis struct $oname:ident {
            $( $(#[doc = $odoc:literal])* $ofield:ident : $oty:ty = $owidth:expr ),* $(,)?
        }
    ) => {
        $crate::ports!(@one $(#[$imeta])* $ivis struct $iname { $( $(#[doc = $idoc])* $ifield : $ity = $iwidth ),* });
        $crate::ports!(@one $(#[$ometa])* $ovis struct $oname { $( $(#[doc = $odoc])* $ofield : $oty = $owidth ),* });
        $crate::ports!(@callback ($) $cb [$($ifield)*] [$($ofield)*]);
    };
    (@one
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[doc = $doc:literal])* $field:ident : $ty:ty = $width:expr ),*
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }
        // every port fits its field's type
        const _: () = {
            $( assert!(
                ($width) <= <$ty as $crate::ports::PortValue>::BITS,
                concat!("port `", stringify!($field), "` is wider than its type")
            ); )*
        };
        impl $crate::ports::Ports for $name {
            const PORTS: &'static [$crate::ports::Port] = &[
                $( $crate::ports::Port {
                    name: stringify!($field),
                    width: $width,
                    doc: concat!($($doc),*),
                }, )*
            ];
            #[allow(unused_assignments)]
            fn to_ports(&self, bits: &mut [u64]) {
                let mut i = 0;
                $(
                    bits[i] = $crate::ports::PortValue::to_port(self.$field);
                    i += 1;
                )*
            }
            #[allow(unused_assignments, unused_mut, unused_variables)]
            fn from_ports(bits: &[u64]) -> Self {
                let mut i = 0;
                $(
                    let $field = $crate::ports::PortValue::from_port(bits[i]);
                    i += 1;
                )*
                $name { $($field,)* }
            }
        }
    };
    // a block whose inputs are another's (declared there, with its
    // callback `$icb`): only its outputs are declared here, and its
    // callback takes the inputs' names from `$icb`
    (
        callback $cb:ident;
        inputs of $icb:ident;
        $(#[$ometa:meta])*
        $ovis:vis struct $oname:ident {
            $( $(#[doc = $odoc:literal])* $ofield:ident : $oty:ty = $owidth:expr ),* $(,)?
        }
    ) => {
        $crate::ports!(@one $(#[$ometa])* $ovis struct $oname { $( $(#[doc = $odoc])* $ofield : $oty = $owidth ),* });
        $crate::ports!(@callback_of ($) $cb $icb [$($ofield)*]);
    };
    (@callback_of ($d:tt) $cb:ident $icb:ident [$($ofield:ident)*]) => {
        /// Calls `m! { args ; inputs [..] outputs [..] }` with this
        /// block's port names (its inputs are another block's).
        #[macro_export]
        macro_rules! $cb {
            ($d m:path { $d ($d args:tt)* }) => {
                $crate::$icb! { $crate::ports_outputs_replaced { $d m [$($ofield)*] { $d ($d args)* } } }
            };
        }
    };
    (@callback ($d:tt) $cb:ident [$($ifield:ident)*] [$($ofield:ident)*]) => {
        /// Calls `m! { args ; inputs [..] outputs [..] }` with this
        /// block's port names (see `ldcp_sim::ports`).
        #[macro_export]
        macro_rules! $cb {
            ($d m:path { $d ($d args:tt)* }) => {
                $d m! { $d ($d args)* ; inputs [$($ifield)*] outputs [$($ofield)*] }
            };
        }
    };
}

/// What a callback of `ports!`'s `inputs of` form expands to: the names
/// another block's callback gave, its outputs replaced by `[$o]`.
#[macro_export]
macro_rules! ports_outputs_replaced {
    ($m:path [$($o:ident)*] { $($args:tt)* } ; inputs [$($i:ident)*] outputs [$($x:ident)*]) => {
        $m! { $($args)* ; inputs [$($i)*] outputs [$($o)*] }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::ports! {
        callback test_block_ports;
        /// Inputs.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct TIn {
            /// Reset.
            reset: bool = 1,
            /// A flow.
            in_flow: u32 = FLOW_WIDTH,
            /// Bytes.
            in_len_bytes: u16 = 14,
        }
        /// Outputs.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct TOut {
            /// Valid.
            out_valid: bool = 1,
            /// A count, " two lines" of doc.
            out_n_pkts: u8 = 4,
        }
    }

    macro_rules! names_of {
        (; inputs [$($i:ident)*] outputs [$($o:ident)*]) => {
            fn callback_names() -> (Vec<&'static str>, Vec<&'static str>) {
                (vec![$(stringify!($i)),*], vec![$(stringify!($o)),*])
            }
        };
    }
    test_block_ports!(names_of {});

    fn names<P: Ports>() -> Vec<&'static str> {
        P::PORTS.iter().map(|p| p.name).collect()
    }

    #[test]
    fn ports_round_trip_and_name_every_field_once() {
        assert_eq!(names::<TIn>(), ["reset", "in_flow", "in_len_bytes"]);
        assert_eq!(TIn::PORTS[2].width, 14);
        assert_eq!(TIn::PORTS[1].width, FLOW_WIDTH);
        assert_eq!(TIn::PORTS[2].doc, " Bytes.");
        assert_eq!(names::<TOut>()[1], "out_n_pkts");
        let i = TIn {
            reset: true,
            in_flow: 77,
            in_len_bytes: 1500,
        };
        let mut b = [0u64; 3];
        i.to_ports(&mut b);
        assert_eq!(b, [1, 77, 1500]);
        assert_eq!(TIn::from_ports(&b), i);
        let (ins, outs) = callback_names();
        assert_eq!(ins, names::<TIn>());
        assert_eq!(outs, names::<TOut>());
    }
}
