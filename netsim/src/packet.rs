//! What moves through the network: packets ([`Pkt`], of a [`Kind`]) and
//! why one is dropped ([`DropReason`]). The simulator's core (`sim`), its
//! statistics, flow control and draft 002's scheme all speak of them, and
//! this module depends on none of those.

/// No AR point in a data packet's draft-002 tag ([`Pkt::ar`]).
pub const AR_NONE: u32 = u32::MAX;

/// A packet's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Data.
    Data,
    /// A cumulative ACK (carrying ECN-Echo and n).
    Ack,
    /// A NAK (go back to `psn`).
    Nak,
    /// DCQCN's congestion notification for a CE packet the receiver
    /// discarded (an in-order one is echoed on its ACK).
    Cnp,
    /// A Fast CNP from a congested P node (draft 001, [`crate::wan`]).
    FastCnp,
    /// A PFC frame to the upstream neighbour (`psn` 1: pause, 0: resume).
    Pause,
    /// An ARN to the upstream neighbour (`psn`: its bytes' index in
    /// [`crate::flowctl::FlowControl::arn_wire`]).
    Arn,
    /// Draft 002's notification (`n`: its type, `psn`: its target node),
    /// back along the path `path` of the data packet that caused it.
    Notify,
}

/// A packet.
#[derive(Clone, Copy, Debug)]
pub struct Pkt {
    /// Flow index.
    pub flow: u32,
    /// Kind.
    pub kind: Kind,
    /// Data: its PSN; ACK/NAK: the next expected PSN.
    pub psn: u32,
    /// Bytes on the wire.
    pub bytes: u32,
    /// ECN codepoint (data).
    pub ecn: u8,
    /// Last packet of the message (data).
    pub last: bool,
    /// ECN-Echo (ACK).
    pub ece: bool,
    /// Packets acknowledged (ACK/NAK).
    pub n: u8,
    /// Next hop index on the flow's route.
    pub hop: u8,
    /// Data inside the WAN tunnel: the outer header's ECN field (the
    /// switches mark and drop by it); `None` outside.
    pub outer: Option<u8>,
    /// Data: a P node sent a Fast CNP for this packet.
    pub fcnp: bool,
    /// Data: the faulty node set its outer field to CE.
    pub faulted: bool,
    /// Data inside a switch: the port it arrived on (flow control's
    /// ingress accounting; `u32::MAX` elsewhere).
    pub from_port: u32,
    /// Data: when its sender put it on the wire, ps.
    pub t_sent: u64,
    /// Its flow's path (0: the flow's ECMP route; others are re-routes,
    /// [`crate::coord`]); control packets go back along it.
    pub path: u16,
    /// Data: draft 002's tag, the CC indicator.
    pub cc: bool,
    /// Data: draft 002's tag, the AR point's node ([`AR_NONE`]:
    /// none).
    pub ar: u32,
    /// Data: CE-marked while a light path existed ([`crate::coord`]).
    pub light_mark: bool,
}

impl Pkt {
    /// A control packet (ACK, NAK, CNP, Fast CNP, PFC, ARN) of `flow`
    /// (`u32::MAX`: a link's own) on its route's hop `hop`.
    pub(crate) fn control(flow: u32, kind: Kind, psn: u32, bytes: u32, hop: u8) -> Pkt {
        Pkt {
            flow,
            kind,
            psn,
            bytes,
            ecn: 0,
            last: false,
            ece: false,
            n: 0,
            hop,
            outer: None,
            fcnp: false,
            faulted: false,
            from_port: u32::MAX,
            t_sent: 0,
            path: 0,
            cc: false,
            ar: AR_NONE,
            light_mark: false,
        }
    }
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Eq. 3: Not-ECT at q >= K.
    Wred,
    /// Did not fit the buffer.
    Overflow,
    /// At the receiver: out of order (go-back-N) or a duplicate.
    Receiver,
    /// At a tunnel's egress PE (RFC 6040: a Not-ECT inner under a CE outer).
    TunnelEgress,
}
