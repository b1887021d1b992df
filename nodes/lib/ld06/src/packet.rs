//! [`Packet`]: one 47-byte LD06 packet, decoded and checked, and its encoding.
use crate::{crc8, FULL_TURN_CDEG, HEADER, PACKET_LEN, POINTS_PER_PACKET, VER_LEN};

/// One measurement of a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Point {
    /// Distance [mm]; 0 = no measurement (no return, or too weak).
    pub distance_mm: u16,
    /// Signal strength (0-255; the datasheet: about 200 for a white surface at 6 m).
    pub intensity: u8,
}

/// One packet: the spin speed, 12 measurements evenly spread from `start_angle_cdeg` to
/// `end_angle_cdeg` (clockwise, hundredths of a degree, `0 ..= 35999`), and the device's
/// millisecond clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// Rotation speed [degrees per second] (3 600 = 10 revolutions per second).
    pub speed_deg_s: u16,
    /// Angle of the first point [0.01°], `< 36000`.
    pub start_angle_cdeg: u16,
    /// The 12 measurements, in the order they were made.
    pub points: [Point; POINTS_PER_PACKET],
    /// Angle of the last point [0.01°], `< 36000` (below the start when the packet
    /// crosses 0°).
    pub end_angle_cdeg: u16,
    /// The device's clock [ms], wrapping at [`crate::TIMESTAMP_WRAP_MS`].
    pub timestamp_ms: u16,
}

/// Why bytes are not a packet (counted by the [`crate::Decoder`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    /// The first two bytes are not `0x54 0x2C`.
    #[error("bad header {0:#04x} {1:#04x} (want 0x54 0x2c)")]
    Header(u8, u8),
    /// The CRC byte does not match the other 46.
    #[error("CRC {got:#04x}, computed {want:#04x}")]
    Crc {
        /// The packet's CRC byte.
        got: u8,
        /// The CRC of its first 46 bytes.
        want: u8,
    },
    /// A packet cut short: the next header (or the end of the stream, or a silence)
    /// came before its 47th byte; `len` bytes of it arrived.
    #[error("truncated after {len} of 47 bytes")]
    Truncated {
        /// Bytes of the packet that arrived.
        len: usize,
    },
    /// A CRC-valid packet with an angle of 360° or more (not a measurement: counted,
    /// dropped).
    #[error("angle {0} (0.01°) is not below 36000")]
    Angle(u16),
}

fn le(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

impl Packet {
    /// The 47 bytes on the wire, CRC included.
    pub fn encode(&self) -> [u8; PACKET_LEN] {
        let mut b = [0u8; PACKET_LEN];
        b[0] = HEADER;
        b[1] = VER_LEN;
        b[2..4].copy_from_slice(&self.speed_deg_s.to_le_bytes());
        b[4..6].copy_from_slice(&self.start_angle_cdeg.to_le_bytes());
        for (i, p) in self.points.iter().enumerate() {
            let o = 6 + 3 * i;
            b[o..o + 2].copy_from_slice(&p.distance_mm.to_le_bytes());
            b[o + 2] = p.intensity;
        }
        b[42..44].copy_from_slice(&self.end_angle_cdeg.to_le_bytes());
        b[44..46].copy_from_slice(&self.timestamp_ms.to_le_bytes());
        b[46] = crc8(&b[..46]);
        b
    }

    /// Decodes and checks 47 bytes: the header, the CRC, then the angles.
    ///
    /// # Errors
    /// [`Rejected::Header`], [`Rejected::Crc`], [`Rejected::Angle`].
    pub fn decode(b: &[u8; PACKET_LEN]) -> Result<Packet, Rejected> {
        if b[0] != HEADER || b[1] != VER_LEN {
            return Err(Rejected::Header(b[0], b[1]));
        }
        let want = crc8(&b[..46]);
        if b[46] != want {
            return Err(Rejected::Crc { got: b[46], want });
        }
        let mut points = [Point::default(); POINTS_PER_PACKET];
        for (i, p) in points.iter_mut().enumerate() {
            let o = 6 + 3 * i;
            *p = Point {
                distance_mm: le(b, o),
                intensity: b[o + 2],
            };
        }
        let p = Packet {
            speed_deg_s: le(b, 2),
            start_angle_cdeg: le(b, 4),
            points,
            end_angle_cdeg: le(b, 42),
            timestamp_ms: le(b, 44),
        };
        for a in [p.start_angle_cdeg, p.end_angle_cdeg] {
            if a >= FULL_TURN_CDEG {
                return Err(Rejected::Angle(a));
            }
        }
        Ok(p)
    }

    /// The angle swept from the first to the last point, clockwise [0.01°]
    /// (`end − start`, across 0° when the end is below the start).
    pub fn span_cdeg(&self) -> u16 {
        let turn = u32::from(FULL_TURN_CDEG);
        let (s, e) = (
            u32::from(self.start_angle_cdeg) % turn,
            u32::from(self.end_angle_cdeg) % turn,
        );
        ((e + turn - s) % turn) as u16
    }

    /// Point `i`'s angle [degrees, `0 .. 360`]: evenly spaced from the start to the end.
    pub fn angle_deg(&self, i: usize) -> f64 {
        let step = f64::from(self.span_cdeg()) / (POINTS_PER_PACKET - 1) as f64;
        let a = (f64::from(self.start_angle_cdeg) + step * i as f64) / 100.0;
        if a >= 360.0 {
            a - 360.0
        } else {
            a
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet as the datasheet's example lays it out, byte by byte (the CRC computed).
    #[test]
    fn every_field_sits_where_the_datasheet_says() {
        let mut p = Packet {
            speed_deg_s: 0x0E10,      // 3600 °/s
            start_angle_cdeg: 0x1F40, // 80.00°
            end_angle_cdeg: 0x2260,   // 88.00°
            timestamp_ms: 0x7530 - 1, // 29999 ms
            ..Packet::default()
        };
        for (i, pt) in p.points.iter_mut().enumerate() {
            *pt = Point {
                distance_mm: 0x0100 + i as u16,
                intensity: 0xC0 + i as u8,
            };
        }
        let b = p.encode();
        assert_eq!(&b[..6], &[0x54, 0x2C, 0x10, 0x0E, 0x40, 0x1F]);
        assert_eq!(
            &b[6..9],
            &[0x00, 0x01, 0xC0],
            "point 0: distance LE, intensity"
        );
        assert_eq!(&b[39..42], &[0x0B, 0x01, 0xCB], "point 11");
        assert_eq!(&b[42..46], &[0x60, 0x22, 0x2F, 0x75]);
        assert_eq!(b[46], crc8(&b[..46]));
        assert_eq!(Packet::decode(&b), Ok(p));
        assert_eq!(p.span_cdeg(), 800);
        assert!((p.angle_deg(0) - 80.0).abs() < 1e-9);
        assert!((p.angle_deg(11) - 88.0).abs() < 1e-9);
        assert!((p.angle_deg(1) - (80.0 + 8.0 / 11.0)).abs() < 1e-9);
    }

    #[test]
    fn a_packet_across_zero_degrees() {
        let p = Packet {
            speed_deg_s: 3600,
            start_angle_cdeg: 35_600,
            end_angle_cdeg: 300,
            ..Packet::default()
        };
        assert_eq!(p.span_cdeg(), 700);
        assert!((p.angle_deg(0) - 356.0).abs() < 1e-9);
        assert!((p.angle_deg(11) - 3.0).abs() < 1e-9);
        assert!(p.angle_deg(6) < 360.0);
    }

    #[test]
    fn bad_bytes_are_rejected_by_kind() {
        let good = Packet {
            speed_deg_s: 3600,
            start_angle_cdeg: 100,
            end_angle_cdeg: 900,
            ..Packet::default()
        }
        .encode();
        let mut b = good;
        b[0] = 0x55;
        assert_eq!(Packet::decode(&b), Err(Rejected::Header(0x55, 0x2C)));
        let mut b = good;
        b[1] = 0x2D;
        assert!(matches!(Packet::decode(&b), Err(Rejected::Header(..))));
        let mut b = good;
        b[10] ^= 0x01;
        assert!(matches!(Packet::decode(&b), Err(Rejected::Crc { .. })));
        let mut b = good;
        b[46] ^= 0xFF;
        assert!(matches!(Packet::decode(&b), Err(Rejected::Crc { .. })));
        // A valid CRC over an impossible angle.
        let mut b = good;
        b[4..6].copy_from_slice(&36_000u16.to_le_bytes());
        b[46] = crc8(&b[..46]);
        assert_eq!(Packet::decode(&b), Err(Rejected::Angle(36_000)));
    }
}
