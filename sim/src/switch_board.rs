//! The golden model of the switch port's board cores
//! (`hdl/src/switch_board.rs`: the `alchitry-cu-switch` bitstream, a P
//! node's port, and `alchitry-cu-pe`, a PE's): the board shell
//! ([`crate::board_shell`]: power-on sequencer, UART bridge, LEDs) around
//! [`SwitchCoreModel`], the port core at its bus: the switch port's
//! register decoder (the map's [`ldcp_regmap::switch_registers`]), the
//! WRED/ECN port ([`crate::wred_ecn::WredEcnModel`]) and the draft-001
//! blocks of its [`SwitchRole`].
//!
//! The WRED/ECN registers behave as in the NIC system
//! ([`crate::nic_system`]): WRED_PKT presents one packet straight off the
//! bus, the egress drains WRED_DRAIN bytes per cycle, WRED_LAST holds the
//! last decision and its codepoint, WRED_OCC and the port's saturating
//! counters are the block's own. CORE_RESET (registered, as in the NIC
//! core: it acts one cycle after its write) resets the port and the
//! draft-001 blocks, loading the WRED_SEED held when it was written, and
//! returns every RW register to its reset value and every staging word to
//! 0. At power-up the blocks are reset for one cycle (the port's generator
//! state is 0 until a reset loads a seed; the Fast CNP table is swept).
//! CAPS reads KIND = SWITCH_PORT, DIRTY from the build, and 0 in the NIC's
//! fields; SW_BLOCKS the role's blocks.
//!
//! # The draft-001 blocks behind the registers
//! - The staging (PKT_*): each word a register of the board, written by
//!   its own WO strobe, held until written again: the header fields a
//!   packet command takes (the switch pipeline's fields, in hardware).
//! - Tunnel ECN ingress: TI_MODE writes a tunnel's mode, TI_PKT presents a
//!   packet (inner word 0 and IPV6 from the staging); TI_LAST holds the
//!   last outer ECN field, mode and tunnel.
//! - Tunnel ECN egress: TE_PKT presents a packet with its outer ECN
//!   (inner word 0, checksum, IPV6 from the staging); TE_LAST and TE_WORDS
//!   hold the last decision; TE_* counters are the block's.
//! - END.CON: EC_SIDn write the SID's words; EC_PKT presents a packet
//!   (outer destination and next headers from the staging); EC_LAST holds
//!   the last action and strip; EC_* counters are the block's.
//! - Fast CNP: every decision of the WRED/ECN port is a packet for the
//!   trigger (FC_INTERVAL its interval), its descriptor the staging; the
//!   slot's key comes from the trigger's own descriptor registers (the
//!   staging of the cycle before: the board's wiring, for timing). An
//!   emitted descriptor is pushed into a 256-entry queue in block RAM
//!   (the staging at the emission), unless it is full (FC_LOST counts it);
//!   FC_DSC_* read the oldest, FC_POP drops it. The RAMs read at the
//!   read pointer after each edge (a pop's next word at once), before the
//!   write of the same edge; at a read's request the half of every RAM's
//!   read register that address bit 2 selects is registered, and the
//!   FC_DSC_* register the address names reads it the next cycle: no RAM
//!   output reaches the decoder's read mux, and a read's timing is every
//!   register's. FC_STATUS.LEVEL shows the level a cycle late, so a
//!   descriptor it shows was written at least two edges before any later
//!   read of its words. FC_LAST holds the trigger's last decision.
//!
//! A role without a block ties its inputs off, as the hardware does: its
//! registers read 0 and its commands do nothing.

use crate::board_shell::{BusCore, ShellBoard};
use crate::end_con::{EndConInputs, EndConModel};
use crate::fast_cnp::{FastCnpInputs, FastCnpModel};
use crate::tunnel_ecn::{EgressInputs, IngressInputs, TunnelEgressModel, TunnelIngressModel};
use crate::wred_ecn::{WredEcnModel, WredInputs};
use ldcp_regmap::model::{BusIn, BusOut, RegFileModel};
use ldcp_regmap::position::switch_regs;
use ldcp_regmap::{
    BLOCK_COORD, BLOCK_END_CON, BLOCK_FAST_CNP, BLOCK_TUNNEL_EGRESS, BLOCK_TUNNEL_INGRESS,
};

/// What a switch-port build holds beside the WRED/ECN port: the draft-001
/// roles. One Alchitry Cu cannot hold every block (all of them with the
/// port, the bridge and the staging measured 9,201 logic cells of 7,680),
/// and the draft puts them on different nodes anyway: the congested P
/// node marks and sends Fast CNPs, the PEs encapsulate, decapsulate and
/// terminate END.CON. SW_BLOCKS reports the role's blocks; the others'
/// registers read 0 and ignore writes (their inputs are tied off, so the
/// synthesis removes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SwitchRole {
    /// A P node's port (`alchitry-cu-switch`): WRED/ECN, the Fast CNP
    /// trigger behind it with its descriptor queue, the staging.
    #[default]
    P,
    /// A PE's port (`alchitry-cu-pe`): WRED/ECN, tunnel ECN ingress and
    /// egress, END.CON, the staging.
    Pe,
    /// Every block, draft 002's decision included (`ulx3s-switch`, on the
    /// ECP5: more than one HX8K holds).
    Full,
}

impl SwitchRole {
    /// The block set beside BLOCKS (`ldcp_regmap::BLOCK_*` bits from
    /// `SW_BLOCKS_SHIFT`).
    pub const fn blocks(self) -> u32 {
        use ldcp_regmap::*;
        let pkt = 1 << BLOCK_PKT;
        match self {
            SwitchRole::P => pkt | 1 << BLOCK_FAST_CNP,
            SwitchRole::Pe => {
                pkt | 1 << BLOCK_TUNNEL_INGRESS | 1 << BLOCK_TUNNEL_EGRESS | 1 << BLOCK_END_CON
            }
            SwitchRole::Full => BLOCKS_SWITCH_PORT_ALL & !BLOCKS_SWITCH_PORT,
        }
    }

    /// SW_BLOCKS as the role reports it.
    pub const fn sw_blocks(self) -> u32 {
        self.blocks() >> ldcp_regmap::SW_BLOCKS_SHIFT
    }

    /// Whether it holds the block of bit `bit` (`ldcp_regmap::BLOCK_*`).
    pub const fn has(self, bit: u32) -> bool {
        self.blocks() >> bit & 1 != 0
    }
}

/// log2 of the Fast CNP descriptor queue's depth (a design constant: one
/// block RAM deep).
pub const DSC_QUEUE_BITS: u32 = 8;
/// The Fast CNP descriptor queue's depth, descriptors (FC_STATUS.LEVEL's
/// largest value).
pub const DSC_QUEUE_DEPTH: usize = 1 << DSC_QUEUE_BITS;

// Which queue RAM a head-word read takes, by address bits 5..3 (the
// register layout: FC_DSC_QP and FC_DSC_UDP at 0x2D0-0x2D4 in the RAM of
// the rest, each address's hi and lo RAMs 8 bytes apart, bit 2 the word;
// `the_head_word_groups_are_the_register_layout` checks it against the map)
const DSC_GROUP_END_CON_HI: u64 = 0;
const DSC_GROUP_END_CON_LO: u64 = 1;
const DSC_GROUP_SRC_HI: u64 = 4;
const DSC_GROUP_SRC_LO: u64 = 5;
const DSC_GROUP_DST_HI: u64 = 6;
const DSC_GROUP_DST_LO: u64 = 7;

/// The head word a bus address selects, from the queue RAMs' read
/// registers: what the FC_DSC_* register at that address reads the next
/// cycle. (The RTL registers every RAM's half that address bit 2
/// selects, and the decoder reads the one the address names: the same
/// word, for every address a read can name; other cycles' words are not
/// read.)
fn dsc_word_of(addr: u32, q: &QueueWord) -> u32 {
    let pick = match u64::from(addr >> 3 & 7) {
        DSC_GROUP_END_CON_HI => q[4],
        DSC_GROUP_END_CON_LO => q[5],
        DSC_GROUP_SRC_HI => q[0],
        DSC_GROUP_SRC_LO => q[1],
        DSC_GROUP_DST_HI => q[2],
        DSC_GROUP_DST_LO => q[3],
        _ => (q[6] & 0x1ff_ffff) << 32 | (q[6] >> 25 & 0xffff_ffff),
    };
    if addr & 4 != 0 {
        pick as u32
    } else {
        (pick >> 32) as u32
    }
}

/// The switch port's board core.
pub type SwitchBoardModel = ShellBoard<SwitchCoreModel>;

/// The switch port's registers that come in groups (four words of an
/// address, a block's counters), by their positions in its decoder.
const PKT_OUTER_SRC: [usize; 4] = [
    switch_regs::PKT_OUTER_SRC0,
    switch_regs::PKT_OUTER_SRC1,
    switch_regs::PKT_OUTER_SRC2,
    switch_regs::PKT_OUTER_SRC3,
];
const PKT_OUTER_DST: [usize; 4] = [
    switch_regs::PKT_OUTER_DST0,
    switch_regs::PKT_OUTER_DST1,
    switch_regs::PKT_OUTER_DST2,
    switch_regs::PKT_OUTER_DST3,
];
const PKT_INNER_SRC: [usize; 4] = [
    switch_regs::PKT_INNER_SRC0,
    switch_regs::PKT_INNER_SRC1,
    switch_regs::PKT_INNER_SRC2,
    switch_regs::PKT_INNER_SRC3,
];
const PKT_INNER_DST: [usize; 4] = [
    switch_regs::PKT_INNER_DST0,
    switch_regs::PKT_INNER_DST1,
    switch_regs::PKT_INNER_DST2,
    switch_regs::PKT_INNER_DST3,
];
const TE_COUNTS: [usize; 4] = [
    switch_regs::TE_FORWARDED,
    switch_regs::TE_DROPPED,
    switch_regs::TE_DANGEROUS,
    switch_regs::TE_UNUSED,
];
const EC_SID: [usize; 4] = [
    switch_regs::EC_SID0,
    switch_regs::EC_SID1,
    switch_regs::EC_SID2,
    switch_regs::EC_SID3,
];
const EC_COUNTS: [usize; 4] = [
    switch_regs::EC_FORWARDED,
    switch_regs::EC_DECAP,
    switch_regs::EC_PUNTED,
    switch_regs::EC_DROPPED,
];
const FC_DSC_SRC: [usize; 4] = [
    switch_regs::FC_DSC_SRC0,
    switch_regs::FC_DSC_SRC1,
    switch_regs::FC_DSC_SRC2,
    switch_regs::FC_DSC_SRC3,
];
const FC_DSC_DST: [usize; 4] = [
    switch_regs::FC_DSC_DST0,
    switch_regs::FC_DSC_DST1,
    switch_regs::FC_DSC_DST2,
    switch_regs::FC_DSC_DST3,
];
const FC_DSC_END_CON: [usize; 4] = [
    switch_regs::FC_DSC_END_CON0,
    switch_regs::FC_DSC_END_CON1,
    switch_regs::FC_DSC_END_CON2,
    switch_regs::FC_DSC_END_CON3,
];
const FC_COUNTS: [usize; 5] = [
    switch_regs::FC_MARKED,
    switch_regs::FC_SENT,
    switch_regs::FC_SUPPRESSED,
    switch_regs::FC_UNPARSED,
    switch_regs::FC_LOST,
];
const CD_COUNTS: [usize; 4] = [
    switch_regs::CD_REROUTES,
    switch_regs::CD_TYPE3,
    switch_regs::CD_MARKS,
    switch_regs::CD_INCAST,
];

/// A 128-bit value's words as the map writes them (word 0: bits 127..96).
fn words_hi(w: [u32; 4]) -> u64 {
    (w[0] as u64) << 32 | w[1] as u64
}

fn words_lo(w: [u32; 4]) -> u64 {
    (w[2] as u64) << 32 | w[3] as u64
}

/// The packet staging (PKT_*), as the board holds it.
#[derive(Clone, Copy, Debug, Default)]
struct Staging {
    osrc: [u32; 4],
    odst: [u32; 4],
    isrc: [u32; 4],
    idst: [u32; 4],
    /// DEST_QP 23..0, PARSED 24, IPV6 25.
    bth: u32,
    udp: u32,
    srh: u32,
    inner: u32,
}

impl Staging {
    fn ipv6(&self) -> bool {
        self.bth >> 25 & 1 != 0
    }
}

/// One queued Fast CNP descriptor, as the block RAMs hold it: the CNP's
/// source, destination and END.CON (hi, lo each), and DEST_QP 23..0,
/// IPV6 24, P_Key 40..25, UDP source 56..41.
type QueueWord = [u64; 7];

/// The draft-001 blocks' decisions since power-up
/// ([`SwitchCoreModel::draft001_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draft001Counts {
    /// Packets the tunnel ingress encapsulated, in compatibility mode.
    pub ti_packets: u64,
    /// Of them, in compatibility mode.
    pub ti_compat: u64,
    /// Packets the tunnel egress forwarded.
    pub te_forwarded: u64,
    /// Packets it dropped.
    pub te_dropped: u64,
    /// Packets of a `(!!!)` or `(!)` cell.
    pub te_flagged: u64,
    /// END.CON's decisions: forward, decapsulate, punt, drop.
    pub ec_actions: [u64; 4],
    /// Fast CNP descriptors emitted.
    pub fc_sent: u64,
    /// Candidates suppressed.
    pub fc_suppressed: u64,
    /// Candidates unparsed.
    pub fc_unparsed: u64,
    /// Descriptors lost to a full queue.
    pub fc_lost: u64,
    /// Descriptors popped.
    pub fc_popped: u64,
    /// Draft 002's decisions (the `Full` role's `coord_decision`; the
    /// draft-001 tally carries it so the roles' tests see one count).
    pub cd_decisions: u64,
}

impl std::ops::AddAssign for Draft001Counts {
    fn add_assign(&mut self, o: Self) {
        self.ti_packets += o.ti_packets;
        self.ti_compat += o.ti_compat;
        self.te_forwarded += o.te_forwarded;
        self.te_dropped += o.te_dropped;
        self.te_flagged += o.te_flagged;
        for (a, b) in self.ec_actions.iter_mut().zip(o.ec_actions) {
            *a += b;
        }
        self.fc_sent += o.fc_sent;
        self.fc_suppressed += o.fc_suppressed;
        self.fc_unparsed += o.fc_unparsed;
        self.fc_lost += o.fc_lost;
        self.fc_popped += o.fc_popped;
        self.cd_decisions += o.cd_decisions;
    }
}

/// CAPS as a switch port reports it.
pub fn caps(dirty: bool) -> u32 {
    let f = |n: &str| crate::nic_core::caps_field(n);
    f("KIND").put(ldcp_regmap::KIND_SWITCH_PORT) | f("DIRTY").put(dirty as u32)
}

/// The switch port's registers and WRED/ECN port, mirrored.
#[derive(Clone, Debug)]
pub struct SwitchCoreModel {
    regs: RegFileModel,
    wred: WredEcnModel,
    hash: u32,
    dirty: bool,
    reset_q: bool,
    por_done: bool,
    decision: u32,
    ecn: u32,
    ti: TunnelIngressModel,
    te: TunnelEgressModel,
    ec: EndConModel,
    fc: FastCnpModel,
    cd: crate::coord::CoordDecisionModel,
    /// CD_LAST.
    cd_last: u32,
    stage: Staging,
    /// TI_LAST's value.
    ti_last: u32,
    /// TE_LAST's and TE_WORDS' values.
    te_last: u32,
    te_words: u32,
    /// EC_LAST's and FC_LAST's values.
    ec_last: u32,
    fc_last: u32,
    queue: Vec<QueueWord>,
    q_wr: usize,
    q_rd: usize,
    q_level: u32,
    q_lost: u32,
    /// The RAMs' read registers: the word at the read pointer after the
    /// last edge (a pop's next word at once), read before that edge's
    /// write.
    q_read: QueueWord,
    /// The head's word the bus addressed last cycle.
    dsc_word: u32,
    /// FC_STATUS.LEVEL: the level a cycle late.
    q_level_seen: u32,
    role: SwitchRole,
    tally: Draft001Counts,
    /// The decoder's read-only inputs, one per register (reused).
    ro: Vec<u32>,
    /// Its sticky-flag sets: none in a switch port.
    no_sets: Vec<u32>,
}

impl SwitchCoreModel {
    /// The P node's core ([`SwitchRole::P`], the `alchitry-cu-switch`
    /// bitstream's) at power-up, reporting `hash` and `dirty` as its build.
    pub fn new(hash: u32, dirty: bool) -> Self {
        Self::of_role(hash, dirty, SwitchRole::P)
    }

    /// The core of `role` at power-up.
    pub fn of_role(hash: u32, dirty: bool, role: SwitchRole) -> Self {
        SwitchCoreModel {
            role,
            tally: Draft001Counts::default(),
            ro: vec![0; ldcp_regmap::switch_registers().len()],
            no_sets: vec![0; ldcp_regmap::switch_registers().len()],
            regs: RegFileModel::switch(),
            wred: WredEcnModel::new(),
            hash,
            dirty,
            reset_q: false,
            por_done: false,
            decision: 0,
            ecn: 0,
            ti: TunnelIngressModel::new(),
            te: TunnelEgressModel::new(),
            ec: EndConModel::new(),
            fc: FastCnpModel::new(),
            cd: crate::coord::CoordDecisionModel::new(),
            cd_last: 0,
            stage: Staging::default(),
            ti_last: 0,
            te_last: 0,
            te_words: 0,
            ec_last: 0,
            fc_last: 0,
            queue: vec![[0; 7]; DSC_QUEUE_DEPTH],
            q_wr: 0,
            q_rd: 0,
            q_level: 0,
            q_lost: 0,
            q_read: [0; 7],
            dsc_word: 0,
            q_level_seen: 0,
        }
    }

    /// Its role.
    pub fn role(&self) -> SwitchRole {
        self.role
    }

    /// What the draft-001 blocks have decided since power-up (CORE_RESET
    /// does not clear it: the model's own tally of their outputs), for
    /// tests that must show a stream reached them.
    pub fn draft001_counts(&self) -> Draft001Counts {
        self.tally
    }

    /// The WRED/ECN port inside.
    pub fn wred(&self) -> &WredEcnModel {
        &self.wred
    }

    /// The port's outputs after the last edge.
    pub fn wred_outputs(&self) -> crate::wred_ecn::WredOutputs {
        self.wred.outputs()
    }

    /// One rising edge with `bus` on the inputs.
    pub fn tick(&mut self, bus: &BusIn) {
        let wo = self.wred.outputs();
        let held = |i: usize| self.regs.held(i);
        let rst = self.reset_q;
        let block_reset = rst || !self.por_done;
        let wd = self.regs.wdata_q();
        let cmd = |i: usize| self.regs.command(i).is_some();
        let role = self.role;
        let has = |b: u32| role.has(b);
        let w_in = WredInputs {
            reset: block_reset,
            in_valid: cmd(switch_regs::WRED_PKT),
            in_len_bytes: wd & 0x3fff,
            in_ecn: ((wd >> 16) & 3) as u8,
            egress_drain_bytes: held(switch_regs::WRED_DRAIN),
            cfg_k_min_bytes: held(switch_regs::WRED_K_MIN),
            cfg_k_max_bytes: held(switch_regs::WRED_K_MAX),
            cfg_k_bytes: held(switch_regs::WRED_K),
            cfg_buf_max_bytes: held(switch_regs::WRED_BUF_MAX),
            cfg_p_max: held(switch_regs::WRED_P_MAX) as u16,
            cfg_seed: held(switch_regs::WRED_SEED),
        };
        let st = self.stage;
        let word0 = (st.inner & 0xffff) as u16;
        let ti_in = IngressInputs {
            reset: block_reset,
            in_valid: cmd(switch_regs::TI_PKT) && has(BLOCK_TUNNEL_INGRESS),
            in_tunnel: (wd & 0x3f) as u8,
            in_ipv6: st.ipv6(),
            in_word0: word0,
            cfg_we: cmd(switch_regs::TI_MODE) && has(BLOCK_TUNNEL_INGRESS),
            cfg_tunnel: (wd & 0x3f) as u8,
            cfg_compat: wd >> 8 & 1 != 0,
        };
        let te_in = EgressInputs {
            reset: block_reset,
            in_valid: cmd(switch_regs::TE_PKT) && has(BLOCK_TUNNEL_EGRESS),
            in_ipv6: st.ipv6(),
            in_word0: word0,
            in_csum: (st.inner >> 16) as u16,
            in_outer_ecn: (wd & 3) as u8,
        };
        let sid_word = EC_SID.iter().rposition(|&i| cmd(i));
        let ec_in = EndConInputs {
            reset: block_reset,
            in_valid: cmd(switch_regs::EC_PKT) && wd & 1 != 0 && has(BLOCK_END_CON),
            in_dst_hi: words_hi(st.odst),
            in_dst_lo: words_lo(st.odst),
            in_next_header: st.srh as u8,
            in_srh_next_header: (st.srh >> 8) as u8,
            in_srh_segments_left: (st.srh >> 16) as u8,
            in_srh_ext_len: (st.srh >> 24) as u8,
            cfg_we: sid_word.is_some() && has(BLOCK_END_CON),
            cfg_word: sid_word.unwrap_or(0) as u8,
            cfg_data: wd,
        };
        // the key from the trigger's descriptor registers (the staging of
        // the cycle before), as the board wires it
        let fco = self.fc.outputs();
        let fc_in = FastCnpInputs {
            reset: block_reset,
            in_valid: wo.out_valid && has(BLOCK_FAST_CNP),
            in_decision: wo.out_decision,
            in_parsed: st.bth >> 24 & 1 != 0,
            in_src_hi: fco.out_cnp_dst_hi,
            in_src_lo: fco.out_cnp_dst_lo,
            in_dst_hi: fco.out_cnp_src_hi,
            in_dst_lo: fco.out_cnp_src_lo,
            in_dest_qp: fco.out_dest_qp,
            dsc_ipv6: st.ipv6(),
            dsc_src_hi: words_hi(st.isrc),
            dsc_src_lo: words_lo(st.isrc),
            dsc_dst_hi: words_hi(st.idst),
            dsc_dst_lo: words_lo(st.idst),
            dsc_end_con_hi: words_hi(st.osrc),
            dsc_end_con_lo: words_lo(st.osrc),
            dsc_dest_qp: st.bth & 0xff_ffff,
            dsc_pkey: st.udp as u16,
            dsc_udp_src: (st.udp >> 16) as u16,
            cfg_interval_cycles: held(switch_regs::FC_INTERVAL),
        };
        let cd_in = crate::coord::CoordInputs {
            reset: block_reset,
            in_valid: cmd(switch_regs::CD_PKT) && has(BLOCK_COORD),
            in_congested: wd & 1 != 0,
            in_cc: wd >> 1 & 1 != 0,
            in_light: (wd >> 2 & 3) as u8,
            in_arv: wd >> 4 & 1 != 0,
            in_last_hop: wd >> 5 & 1 != 0,
        };
        let tio = self.ti.outputs();
        let teo = self.te.outputs();
        let eco = self.ec.outputs();
        let cdo = self.cd.outputs();

        // what the decoder samples this cycle
        // the decoder's read-only inputs: a buffer of the model's, every slot
        // this model drives rewritten each cycle (no allocation per cycle)
        let mut ro = std::mem::take(&mut self.ro);
        ro[switch_regs::GIT_HASH] = self.hash;
        ro[switch_regs::CAPS] = caps(self.dirty);
        ro[switch_regs::BLOCKS] = ldcp_regmap::BLOCKS_SWITCH_PORT;
        ro[switch_regs::SW_BLOCKS] = role.sw_blocks();
        ro[switch_regs::WRED_LAST] = self.decision | self.ecn << 2;
        ro[switch_regs::WRED_OCC] = wo.stat_occupancy_bytes;
        ro[switch_regs::WRED_FORWARDED] = wo.stat_forwarded_pkts;
        ro[switch_regs::WRED_MARKED] = wo.stat_marked_pkts;
        ro[switch_regs::WRED_DROPPED_WRED] = wo.stat_dropped_wred_pkts;
        ro[switch_regs::WRED_DROPPED_FULL] = wo.stat_dropped_overflow_pkts;
        ro[switch_regs::TI_LAST] = self.ti_last;
        ro[switch_regs::TE_LAST] = self.te_last;
        ro[switch_regs::TE_WORDS] = self.te_words;
        let tec = [
            teo.stat_forwarded_pkts,
            teo.stat_dropped_pkts,
            teo.stat_dangerous_pkts,
            teo.stat_unused_pkts,
        ];
        let ecc = [
            eco.stat_forwarded_pkts,
            eco.stat_decap_pkts,
            eco.stat_punted_pkts,
            eco.stat_dropped_pkts,
        ];
        let fcc = [
            fco.stat_marked_pkts,
            fco.stat_sent_pkts,
            fco.stat_suppressed_pkts,
            fco.stat_unparsed_pkts,
            self.q_lost,
        ];
        for (k, v) in TE_COUNTS.iter().zip(tec) {
            ro[*k] = v;
        }
        for (k, v) in EC_COUNTS.iter().zip(ecc) {
            ro[*k] = v;
        }
        for (k, v) in FC_COUNTS.iter().zip(fcc) {
            ro[*k] = v;
        }
        let cdc = [
            cdo.stat_reroutes,
            cdo.stat_type3,
            cdo.stat_marks_allowed,
            cdo.stat_incast,
        ];
        for (k, v) in CD_COUNTS.iter().zip(cdc) {
            ro[*k] = v;
        }
        ro[switch_regs::CD_LAST] = self.cd_last;
        ro[switch_regs::EC_LAST] = self.ec_last;
        ro[switch_regs::FC_LAST] = self.fc_last;
        ro[switch_regs::FC_STATUS] = fco.stat_table_ready as u32 | self.q_level_seen << 8;
        // every FC_DSC_* register reads the word the bus addressed last cycle
        ro[switch_regs::FC_DSC_QP] = self.dsc_word & 0x1ff_ffff;
        ro[switch_regs::FC_DSC_UDP] = self.dsc_word;
        for r in [FC_DSC_SRC, FC_DSC_DST, FC_DSC_END_CON].iter().flatten() {
            ro[*r] = self.dsc_word;
        }

        // ---- the board's registers at the edge
        if wo.out_valid {
            self.decision = wo.out_decision as u32;
            self.ecn = wo.out_ecn as u32;
        }
        let mut stage = st;
        for (w, regs) in [
            (&mut stage.osrc, PKT_OUTER_SRC),
            (&mut stage.odst, PKT_OUTER_DST),
            (&mut stage.isrc, PKT_INNER_SRC),
            (&mut stage.idst, PKT_INNER_DST),
        ] {
            for (k, &r) in regs.iter().enumerate() {
                if cmd(r) {
                    w[k] = wd;
                }
            }
        }
        if cmd(switch_regs::PKT_BTH) {
            stage.bth = wd & 0x3ff_ffff;
        }
        if cmd(switch_regs::PKT_UDP) {
            stage.udp = wd;
        }
        if cmd(switch_regs::PKT_SRH) {
            stage.srh = wd;
        }
        if cmd(switch_regs::PKT_INNER) {
            stage.inner = wd;
        }
        if tio.out_valid {
            self.ti_last = tio.out_outer_ecn as u32
                | (tio.out_compat as u32) << 2
                | (tio.out_tunnel as u32) << 8;
        }
        if teo.out_valid {
            self.te_last =
                teo.out_drop as u32 | (teo.out_flag as u32) << 1 | (teo.out_ecn as u32) << 4;
            self.te_words = teo.out_word0 as u32 | (teo.out_csum as u32) << 16;
        }
        if eco.out_valid {
            self.ec_last = eco.out_action as u32 | (eco.out_strip_bytes as u32) << 8;
        }
        if cdo.out_valid {
            self.cd_last = cdo.out_reroute as u32
                | (cdo.out_write_indicator as u32) << 1
                | (cdo.out_type3 as u32) << 2
                | (cdo.out_mark_allowed as u32) << 3
                | (cdo.out_incast as u32) << 4;
        }
        if fco.out_valid {
            self.fc_last = fco.out_emit as u32
                | (fco.out_suppressed as u32) << 1
                | (fco.out_unparsed as u32) << 2;
        }
        // the descriptor queue: the head word the bus addresses, from the
        // RAMs' read registers; the RAMs read at the next read pointer
        // before the write
        self.dsc_word = dsc_word_of(bus.addr, &self.q_read);
        self.q_level_seen = self.q_level;
        let push = fco.out_emit && (self.q_level as usize) < DSC_QUEUE_DEPTH;
        let pop = self
            .regs
            .command(switch_regs::FC_POP)
            .is_some_and(|v| v & 1 != 0)
            && self.q_level > 0;
        let q_rd_next = if rst {
            0
        } else {
            (self.q_rd + pop as usize) % DSC_QUEUE_DEPTH
        };
        self.q_read = self.queue[q_rd_next];
        if fco.out_emit && !push {
            self.q_lost = self.q_lost.saturating_add(1);
        }
        if push {
            // the staging at the emission, swapped as the trigger swaps it
            self.queue[self.q_wr] = [
                words_hi(st.idst),
                words_lo(st.idst),
                words_hi(st.isrc),
                words_lo(st.isrc),
                words_hi(st.osrc),
                words_lo(st.osrc),
                (st.bth & 0xff_ffff) as u64 | (st.ipv6() as u64) << 24 | (st.udp as u64) << 25,
            ];
            self.q_wr = (self.q_wr + 1) % DSC_QUEUE_DEPTH;
        }
        self.q_rd = q_rd_next;
        let t = &mut self.tally;
        t.ti_packets += tio.out_valid as u64;
        t.ti_compat += (tio.out_valid && tio.out_compat) as u64;
        t.te_forwarded += (teo.out_valid && !teo.out_drop) as u64;
        t.te_dropped += (teo.out_valid && teo.out_drop) as u64;
        t.te_flagged += (teo.out_valid && teo.out_flag != 0) as u64;
        if eco.out_valid {
            t.ec_actions[eco.out_action as usize & 3] += 1;
        }
        t.fc_sent += fco.out_emit as u64;
        t.fc_suppressed += fco.out_suppressed as u64;
        t.fc_unparsed += fco.out_unparsed as u64;
        t.fc_lost += (fco.out_emit && !push) as u64;
        t.fc_popped += pop as u64;
        t.cd_decisions += cdo.out_valid as u64;
        self.q_level = self.q_level + push as u32 - pop as u32;
        if rst {
            self.decision = 0;
            self.ecn = 0;
            stage = Staging::default();
            self.ti_last = 0;
            self.te_last = 0;
            self.te_words = 0;
            self.ec_last = 0;
            self.fc_last = 0;
            self.cd_last = 0;
            self.q_wr = 0;
            self.q_level = 0;
            self.q_lost = 0;
        }
        self.stage = stage;
        self.reset_q = self
            .regs
            .command(switch_regs::CORE_RESET)
            .is_some_and(|v| v & 1 != 0);
        self.por_done = true;
        self.wred.tick(&w_in);
        self.ti.tick(&ti_in);
        self.te.tick(&te_in);
        self.ec.tick(&ec_in);
        self.fc.tick(&fc_in);
        self.cd.tick(&cd_in);
        self.regs.tick(bus, rst, &ro, &self.no_sets);
        self.ro = ro;
    }

    /// The bus cycles of a test that bring the port to rest: the WRED/ECN
    /// port's pipeline ([`crate::wred_ecn::COUNTER_LATENCY_CYCLES`]), then
    /// the Fast CNP trigger's behind it and the queue's push; the other
    /// blocks are shorter.
    pub fn drain_cycles() -> usize {
        crate::wred_ecn::COUNTER_LATENCY_CYCLES
            + crate::fast_cnp::FAST_CNP_LATENCY_CYCLES
            + crate::fast_cnp::FAST_CNP_COUNTER_LATENCY_CYCLES
            + 3
    }
}

crate::ports! {
    callback switch_core_ports;
    /// One cycle of a switch port core's inputs: the register bus.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SwitchCoreIn {
        /// Byte address of the access (12 bits are decoded).
        bus_addr: u32 = ldcp_regmap::ADDR_BITS,
        /// Write data.
        bus_wdata: u32 = 32,
        /// Write strobe.
        bus_we: bool = 1,
        /// Read strobe (`bus_rdata` is valid with `bus_rvalid` `READ_LATENCY_CYCLES` later).
        bus_re: bool = 1,
    }
    /// The registered outputs: the read data.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct SwitchCoreOut {
        /// Read data (0 unless `bus_rvalid`).
        bus_rdata: u32 = 32,
        /// A read's data is on `bus_rdata`.
        bus_rvalid: bool = 1,
    }
}

impl From<BusIn> for SwitchCoreIn {
    fn from(b: BusIn) -> Self {
        SwitchCoreIn {
            bus_addr: b.addr & 0xfff,
            bus_wdata: b.wdata,
            bus_we: b.we,
            bus_re: b.re,
        }
    }
}

impl crate::cosim::CosimModel for SwitchCoreModel {
    type Input = SwitchCoreIn;
    type Output = SwitchCoreOut;

    fn tick(&mut self, i: &SwitchCoreIn) {
        SwitchCoreModel::tick(
            self,
            &BusIn {
                addr: i.bus_addr,
                wdata: i.bus_wdata,
                we: i.bus_we,
                re: i.bus_re,
            },
        );
    }

    fn outputs(&self) -> SwitchCoreOut {
        let o = self.regs.outputs();
        SwitchCoreOut {
            bus_rdata: o.rdata,
            bus_rvalid: o.rvalid,
        }
    }

    fn drain(&self, _last: Option<&SwitchCoreIn>) -> Vec<SwitchCoreIn> {
        vec![SwitchCoreIn::default(); SwitchCoreModel::drain_cycles()]
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        BusCore::in_flight(self)
    }
}

/// A seeded stream of a switch port core's bus cycles ([`SwitchStimulus`]).
pub fn core_stimulus(seed: u64) -> impl Iterator<Item = SwitchCoreIn> + Clone {
    stimulus(seed).map(SwitchCoreIn::from)
}

impl BusCore for SwitchCoreModel {
    fn bus_out(&self) -> BusOut {
        self.regs.outputs()
    }

    fn bus_tick(&mut self, bus: &BusIn) {
        self.tick(bus);
    }

    fn in_flight(&self) -> Vec<(&'static str, u64)> {
        use crate::cosim::CosimModel;
        let mut v = CosimModel::in_flight(&self.wred);
        v.extend(CosimModel::in_flight(&self.ti));
        v.extend(CosimModel::in_flight(&self.te));
        v.extend(CosimModel::in_flight(&self.ec));
        v.extend(CosimModel::in_flight(&self.fc));
        v.extend(CosimModel::in_flight(&self.cd));
        if self.reset_q {
            v.push(("CORE_RESET", 1));
        }
        v
    }

    /// Idle cycles only: nothing in a switch port runs on its own.
    fn drain_bus(&self) -> Vec<BusIn> {
        vec![BusIn::default(); SwitchCoreModel::drain_cycles()]
    }
}

/// The bus stimulus of the switch port: writes and reads of every
/// register of its decoder (and of offsets it does not decode), WRED
/// parameter changes (illegal ones included: K_min above K_max, P_max
/// above 1, thresholds above the buffer), bursts of packets of every
/// codepoint and length that fill and drain the queue, and CORE_RESET
/// writes with new seeds.
#[derive(Clone, Debug, Default)]
pub struct SwitchStimulus {
    queue: std::collections::VecDeque<BusIn>,
}

/// A seeded stream of the switch port's bus cycles.
pub fn stimulus(seed: u64) -> impl Iterator<Item = BusIn> + Clone {
    crate::seeded(SwitchStimulus::default(), seed ^ 0x5117_C4B0_A4D0_0001)
}

impl crate::Stimulus for SwitchStimulus {
    type Input = BusIn;

    fn cycle(&mut self, d: &mut crate::Draws) -> BusIn {
        let off = ldcp_regmap::model::offset;
        while self.queue.is_empty() {
            let r = d.next_u64();
            let q = &mut self.queue;
            match r % 100 {
                53..=99 => draft001(r, d, q),
                0..=14 => {
                    // a burst of packets (back to back on the bus; a frame each through the bridge)
                    let n = 1 + (r >> 8) % 8;
                    let len = match (r >> 16) % 4 {
                        0 => 64,
                        1 => 1500,
                        2 => (r >> 24) as u32 & 0x3fff,
                        _ => 9000,
                    };
                    let ecn = (r >> 40) as u32 & 3;
                    for _ in 0..n {
                        q.push_back(BusIn::write(off("WRED_PKT"), len | ecn << 16));
                    }
                }
                15..=24 => {
                    // a parameter, legal or not
                    let names = [
                        "WRED_K_MIN",
                        "WRED_K_MAX",
                        "WRED_K",
                        "WRED_BUF_MAX",
                        "WRED_P_MAX",
                        "WRED_DRAIN",
                        "WRED_SEED",
                    ];
                    let name = names[(r >> 8) as usize % names.len()];
                    let v = match (r >> 16) % 4 {
                        0 => (r >> 24) as u32 & 0xff_ffff,
                        1 => (r >> 24) as u32 & 0xffff,
                        2 => (r >> 24) as u32 & 0x3f,
                        _ => (r >> 24) as u32,
                    };
                    q.push_back(BusIn::write(off(name), v));
                }
                25..=44 => {
                    // a read: mostly of the port's registers, else of any register or
                    // offset (which the port may not decode)
                    let sw = ldcp_regmap::switch_registers();
                    let regs = ldcp_regmap::REGISTERS;
                    let a = match (r >> 8) % 4 {
                        0 => regs[(r >> 10) as usize % regs.len()].offset,
                        1 => (r >> 10) as u32 & 0xfff,
                        _ => sw[(r >> 10) as usize % sw.len()].offset,
                    };
                    q.push_back(BusIn::read(a));
                }
                45..=47 => {
                    // a write to a register the port does not decode, or a read-only one
                    let regs = ldcp_regmap::REGISTERS;
                    q.push_back(BusIn::write(
                        regs[(r >> 9) as usize % regs.len()].offset,
                        (r >> 32) as u32,
                    ));
                }
                48 => {
                    q.push_back(BusIn::write(off("CORE_RESET"), (r >> 8) as u32 & 3));
                }
                _ => {
                    let n = 1 + (r >> 8) % 64;
                    q.extend(std::iter::repeat_n(BusIn::default(), n as usize));
                }
            }
        }
        self.queue.pop_front().unwrap_or_default()
    }
}

/// The SIDs the draft-001 stimulus draws from: few, so END.CON matches.
const SIDS: [[u32; 4]; 2] = [
    [0x2001_0db8, 0, 0x00c0, 0x0001],
    [0xfc00_0000, 0x1234_5678, 0x9abc_def0, 0x0fed_cba9],
];

/// The draft-001 blocks' bus operations, each a few writes (the staging
/// persists, so a packet changes only some of its fields): a PE's packet
/// (an outer destination, mostly a SID, its next headers, an END.CON,
/// tunnel ingress or egress packet with every outer codepoint), the
/// END.CON SID written, tunnel modes, a P node's packet (inner addresses
/// from a small pool, IPv4 or IPv6, DestQP, parsed or not, P_Key, UDP
/// source, the END.CON to return to) marked by the WRED/ECN port (a short
/// ramp, no drain: candidates come often and the queue fills), the Fast
/// CNP interval (0, short, long, out of its field), descriptors popped
/// and read, and now and then a flood that fills the queue; with the pops,
/// draft 002's decision on a few packets.
fn draft001(r: u64, d: &mut crate::Draws, q: &mut std::collections::VecDeque<BusIn>) {
    let off = ldcp_regmap::model::offset;
    let w = |q: &mut std::collections::VecDeque<BusIn>, name: &str, v: u32| {
        q.push_back(BusIn::write(off(name), v))
    };
    let x = d.next_u64();
    match (r >> 8) % 8 {
        0..=2 => {
            // a PE's packet: now and then the END.CON SID (re)written, an
            // outer destination (mostly one of the SIDs, else one word
            // changed), its next headers, its inner word 0
            let sid = SIDS[(x >> 2) as usize & 1];
            if x & 3 == 0 {
                for (k, v) in sid.iter().enumerate() {
                    w(q, &format!("EC_SID{k}"), *v);
                }
            }
            if x >> 5 & 3 == 0 {
                w(
                    q,
                    &format!("PKT_OUTER_DST{}", (x >> 3) & 3),
                    (x >> 32) as u32,
                );
            } else {
                for (k, v) in sid.iter().enumerate() {
                    w(q, &format!("PKT_OUTER_DST{k}"), *v);
                }
            }
            let nh = [43u32, 43, 41, 4, 58, 17][(x >> 8) as usize % 6];
            let snh = [4u32, 41, 58, 17][(x >> 11) as usize % 4];
            let sl = [0u32, 0, 1, (x >> 48) as u32 & 0xff][(x >> 13) as usize % 4];
            let el = [0u32, 2, 4, (x >> 56) as u32 & 0xff][(x >> 15) as usize % 4];
            w(q, "PKT_SRH", nh | snh << 8 | sl << 16 | el << 24);
            let word0 = [0x4500u32, 0x6000, 0x4501, 0x6030, 0x4502, 0x4503][(x >> 17) as usize % 6];
            w(q, "PKT_INNER", word0 | ((x >> 20) as u32 & 0xffff) << 16);
            w(q, "PKT_BTH", (word0 >> 12 == 6) as u32 * 0x200_0000);
            let t = (x >> 42) as u32 & 1;
            match (x >> 36) % 3 {
                0 => w(q, "EC_PKT", !(x >> 38).is_multiple_of(8) as u32),
                1 => w(q, "TE_PKT", (x >> 40) as u32 & 3),
                _ => {
                    if x >> 43 & 1 != 0 {
                        let junk = (x >> 32) as u32 & 0xffff_fe00;
                        w(q, "TI_MODE", t | ((x >> 44) as u32 & 1) << 8 | junk);
                    }
                    w(q, "TI_PKT", t | (x >> 45) as u32 & !0x3f);
                }
            }
        }
        3..=5 => {
            // a P node's packet: inner addresses (IPv4 in word 3, or a word
            // of IPv6), DestQP, parsed or not, now and then the END.CON to
            // return to and the UDP fields, a marking setup (no drain, a
            // short ramp) half the time, then packets at the port
            let ipv6 = x & 7 == 0;
            let word = if ipv6 { (x >> 3) as usize & 3 } else { 3 };
            let host = |v: u64| {
                if ipv6 {
                    v as u32
                } else {
                    0x0a00_0000 | v as u32 & 3
                }
            };
            w(q, &format!("PKT_INNER_SRC{word}"), host(x >> 8));
            w(q, &format!("PKT_INNER_DST{word}"), host(x >> 12));
            if x >> 16 & 3 == 0 {
                w(q, "PKT_UDP", (x >> 32) as u32);
                w(
                    q,
                    &format!("PKT_OUTER_SRC{}", (x >> 18) & 3),
                    (x >> 20) as u32,
                );
            }
            let parsed = !(x >> 24).is_multiple_of(6) as u32;
            w(
                q,
                "PKT_BTH",
                (x >> 26) as u32 & 3 | parsed << 24 | (ipv6 as u32) << 25,
            );
            if x >> 28 & 1 == 0 {
                w(q, "WRED_DRAIN", (x >> 31) as u32 & 1);
                w(q, "WRED_K_MIN", 0);
                w(q, "WRED_K_MAX", 3_000);
                w(
                    q,
                    "WRED_BUF_MAX",
                    [1u32 << 20, 40_000][(x >> 32) as usize & 1],
                );
            }
            for k in 0..2 + (x >> 40) % 4 {
                let ecn = [2u32, 1, 2, 3, 0][(x >> (44 + 3 * k)) as usize % 5];
                w(q, "WRED_PKT", 1500 | ecn << 16);
            }
        }
        6 if x >> 40 & 7 == 0 => {
            // a flood: no limit, every packet marked and parsed, more
            // back-to-back packets than the descriptor queue holds
            w(q, "FC_INTERVAL", 0);
            w(q, "WRED_DRAIN", 0);
            w(q, "WRED_K_MIN", 0);
            w(q, "WRED_K_MAX", 1);
            w(q, "WRED_BUF_MAX", 1 << 20);
            w(q, "PKT_BTH", x as u32 & 0xff | 1 << 24);
            for _ in 0..DSC_QUEUE_DEPTH as u64 + 1 + (x >> 44) % 64 {
                w(q, "WRED_PKT", 64 | 2 << 16);
            }
        }
        6 => {
            let v = [0u32, 1, 3, 500, 5_000, (x >> 20) as u32][x as usize % 6];
            w(q, "FC_INTERVAL", v);
        }
        _ => {
            for _ in 0..1 + x % 3 {
                w(q, "FC_POP", !(x >> 4).is_multiple_of(6) as u32);
            }
            let regs = ldcp_regmap::switch_registers();
            let fc: Vec<u32> = regs
                .iter()
                .filter(|g| g.block == "fast_cnp")
                .map(|g| g.offset)
                .collect();
            for k in 0..2 {
                q.push_back(BusIn::read(fc[(x >> (20 + 5 * k)) as usize % fc.len()]));
            }
            // draft 002's decision: packets back to back (every input
            // combination; the bits above the fields now and then set),
            // then one of its registers read
            for k in 0..1 + (x >> 32) % 4 {
                let junk = if x >> 34 & 3 == 0 { 0xffff_ffc0 } else { 0 };
                w(q, "CD_PKT", (x >> (36 + 6 * k)) as u32 & 0x3f | junk);
            }
            let cd: Vec<u32> = regs
                .iter()
                .filter(|g| g.block == "coord")
                .map(|g| g.offset)
                .collect();
            q.push_back(BusIn::read(cd[(x >> 60) as usize % cd.len()]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_shell::ShellHost;
    use crate::uart_bridge::{ST_BAD_CRC, ST_OK};

    fn off(name: &str) -> u32 {
        ldcp_regmap::register(name).unwrap().offset
    }

    /// The head-word groups are the register layout: each FC_DSC_*
    /// register's address bits 5..3 name the RAM holding its word, bit 2
    /// the word, and no other register of the map shares those bits' use.
    #[test]
    fn the_head_word_groups_are_the_register_layout() {
        let mut q: QueueWord = [0; 7];
        for (k, w) in q.iter_mut().enumerate() {
            *w = (0x0101_0101_0101_0101 * (k as u64 + 1)) ^ (0x8000_0000_0000_0000 >> k);
        }
        q[6] &= (1 << 57) - 1;
        let want = |name: &str| -> u32 {
            let w = |hi: u64, lo: u64, i: usize| {
                [(hi >> 32) as u32, hi as u32, (lo >> 32) as u32, lo as u32][i]
            };
            let tail = name.as_bytes()[name.len() - 1] as usize;
            match name {
                "FC_DSC_QP" => (q[6] & 0x1ff_ffff) as u32,
                "FC_DSC_UDP" => (q[6] >> 25) as u32,
                _ if name.starts_with("FC_DSC_SRC") => w(q[0], q[1], tail - b'0' as usize),
                _ if name.starts_with("FC_DSC_DST") => w(q[2], q[3], tail - b'0' as usize),
                _ => w(q[4], q[5], tail - b'0' as usize),
            }
        };
        let names: Vec<&str> = ldcp_regmap::switch_registers()
            .iter()
            .map(|r| r.name)
            .filter(|n| n.starts_with("FC_DSC_"))
            .collect();
        assert_eq!(names.len(), 14, "{names:?}");
        for name in names {
            let a = off(name);
            assert_eq!(dsc_word_of(a, &q), want(name), "{name} at {a:#x}");
        }
    }

    #[test]
    fn switch_board_identifies_as_a_switch_port() {
        let mut h = ShellHost::new(SwitchCoreModel::new(0x1234_abcd, false), 5, 50);
        assert_eq!(h.read(off("MAGIC")), Some((ST_OK, ldcp_regmap::MAGIC)));
        assert_eq!(
            h.read(off("VERSION")),
            Some((ST_OK, ldcp_regmap::MAP_VERSION))
        );
        assert_eq!(h.read(off("GIT_HASH")), Some((ST_OK, 0x1234_abcd)));
        let (st, c) = h.read(off("CAPS")).unwrap();
        assert_eq!(st, ST_OK);
        let caps = ldcp_regmap::register("CAPS").unwrap();
        assert_eq!(
            caps.field("KIND").unwrap().get(c),
            ldcp_regmap::KIND_SWITCH_PORT
        );
        assert_eq!(caps.field("FLOW_BITS").unwrap().get(c), 0);
        assert_eq!(caps.field("EXT").unwrap().get(c), 0);
        // the NIC's registers are not there
        assert_eq!(h.write(off("INIT_CW"), 0x0003_0000), Some(ST_OK));
        assert_eq!(h.read(off("INIT_CW")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("FS_IW")), Some((ST_OK, 0)));
    }

    #[test]
    fn switch_board_runs_the_wred_port_through_the_bridge() {
        // the activity LED's hold outlasts a response (70 bits of 4 clocks)
        let mut h = ShellHost::new(SwitchCoreModel::new(0, true), 4, 500);
        // reset values from the map
        assert_eq!(h.read(off("WRED_K_MIN")), Some((ST_OK, 20_000)));
        // a small buffer, no drain: 1500-byte ECT packets fill it, then drop
        assert_eq!(h.write(off("WRED_DRAIN"), 0), Some(ST_OK));
        assert_eq!(h.write(off("WRED_BUF_MAX"), 10_000), Some(ST_OK));
        for _ in 0..8 {
            assert_eq!(h.write(off("WRED_PKT"), 1500 | 2 << 16), Some(ST_OK));
        }
        h.idle(40);
        assert_eq!(h.read(off("WRED_OCC")), Some((ST_OK, 6 * 1500)));
        assert_eq!(h.read(off("WRED_FORWARDED")), Some((ST_OK, 6)));
        assert_eq!(h.read(off("WRED_DROPPED_FULL")), Some((ST_OK, 2)));
        assert_eq!(h.read(off("WRED_LAST")), Some((ST_OK, 3 | 2 << 2)));
        // the LEDs: ready, lit by the traffic, no error yet
        let o = h.board.outputs();
        assert!(o.led_ready && o.led_activity && !o.led_error);
        h.idle(500);
        assert!(!h.board.outputs().led_activity, "the hold has run out");
        // a corrupted frame: refused, the error LED lights and stays
        let mut f = crate::uart_bridge::request(true, off("WRED_K"), 5);
        f[4] ^= 0x10;
        h.send(&f);
        let r = h.response(100).unwrap();
        assert_eq!(crate::uart_bridge::parse_response(&r), Ok((ST_BAD_CRC, 0)));
        h.idle(200);
        assert!(h.board.outputs().led_error);
        assert_eq!(h.read(off("WRED_K")), Some((ST_OK, 100_000)));
        // CORE_RESET clears it, empties the queue and restores the parameters
        assert_eq!(h.write(off("CORE_RESET"), 1), Some(ST_OK));
        h.idle(10);
        assert!(!h.board.outputs().led_error);
        assert_eq!(h.read(off("WRED_OCC")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("WRED_FORWARDED")), Some((ST_OK, 0)));
        assert_eq!(h.read(off("WRED_BUF_MAX")), Some((ST_OK, 1 << 20)));
    }
}
