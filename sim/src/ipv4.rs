//! IPv4 header checksums: the full computation (RFC 1071, the reference)
//! and the incremental update of RFC 1624 Eq. 3 (what the hardware does:
//! the fast-start marker when it writes the ECN field at the sender, the
//! tunnel egress when it writes the inner packet's).

/// One's complement sum of 16-bit words, folded.
pub fn ones_sum(words: impl IntoIterator<Item = u16>) -> u16 {
    let mut s: u32 = 0;
    for w in words {
        s += w as u32;
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// The checksum of a header given with its checksum word (index 5)
/// taken as zero: RFC 1071.
pub fn full_checksum(header: &[u16]) -> u16 {
    !ones_sum(
        header
            .iter()
            .enumerate()
            .map(|(i, &w)| if i == 5 { 0 } else { w }),
    )
}

/// True if the header's checksum verifies (sum of all words is 0xFFFF).
pub fn verifies(header: &[u16]) -> bool {
    ones_sum(header.iter().copied()) == 0xffff
}

/// RFC 1624 Eq. 3: `HC' = ~(~HC + ~m + m')`, with the bit growth of the
/// RTL: the three-term sum is UQ18 (< 3 * 2^16), one fold gives at most
/// 0xFFFF + 2 (UQ17), a second fold at most 0xFFFF.
pub fn incremental(hc: u16, m: u16, m_new: u16) -> u16 {
    let s = (!hc) as u32 + (!m) as u32 + m_new as u32;
    let s = (s & 0xffff) + (s >> 16);
    let s = (s & 0xffff) + (s >> 16);
    !(s as u16)
}

/// True for word 0 of an IPv4 header: version 4, IHL >= 5.
pub fn is_ipv4(word0: u16) -> bool {
    word0 >> 12 == 4 && (word0 >> 8) & 0xf >= 5
}

/// Word 0 with its ECN field replaced.
pub fn with_ecn(word0: u16, ecn: u8) -> u16 {
    (word0 & !3) | (ecn as u16 & 3)
}
