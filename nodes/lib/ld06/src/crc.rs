//! The LD06's CRC-8: polynomial x⁸ + x⁶ + x³ + x² + 1 (0x4D), initial value 0, no
//! reflection, no final XOR, over every byte before the CRC. The table is computed at
//! compile time from the polynomial (its first entries are the datasheet's `0x00, 0x4d,
//! 0x9a, 0xd7`; a test checks more of them).

/// The CRC's polynomial (without its x⁸ term).
pub const POLYNOMIAL: u8 = 0x4D;

/// `CRC_TABLE[b]`: the CRC register after shifting the byte `b` through it.
pub const CRC_TABLE: [u8; 256] = table(POLYNOMIAL);

const fn table(poly: u8) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u8;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 0x80 != 0 {
                (c << 1) ^ poly
            } else {
                c << 1
            };
            bit += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// The CRC-8 of `bytes` (for a packet: its first 46 bytes).
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes
        .iter()
        .fold(0u8, |crc, &b| CRC_TABLE[usize::from(crc ^ b)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries of the table as the LD06's datasheet and vendor driver print it.
    #[test]
    fn the_table_is_the_datasheet_s() {
        assert_eq!(
            &CRC_TABLE[..8],
            &[0x00, 0x4d, 0x9a, 0xd7, 0x79, 0x34, 0xe3, 0xae]
        );
        assert_eq!(&CRC_TABLE[16..20], &[0xa9, 0xe4, 0x33, 0x7e]);
        assert_eq!(&CRC_TABLE[120..124], &[0x7a, 0x37, 0xe0, 0xad]);
        assert_eq!(&CRC_TABLE[252..], &[0x7f, 0x32, 0xe5, 0xa8]);
    }

    #[test]
    fn the_crc_of_a_message_and_its_crc_is_zero() {
        // A CRC without final XOR: appending it makes the register zero.
        let msg = b"LD06 123456789";
        let c = crc8(msg);
        let mut with = msg.to_vec();
        with.push(c);
        assert_eq!(crc8(&with), 0);
        assert_eq!(crc8(&[]), 0);
        // Any one flipped bit changes it.
        for i in 0..msg.len() * 8 {
            let mut m = msg.to_vec();
            m[i / 8] ^= 1 << (i % 8);
            assert_ne!(crc8(&m), c, "bit {i}");
        }
    }
}
