//! The LDROBOT LD06 LiDAR's serial protocol, without ROS (the driver node is
//! `arnie_lidar`; the simulated LiDAR in `arnie_table`'s `board_sim` writes with the
//! same encoder).
//!
//! The LD06 spins at about 10 Hz and streams, at 230 400 baud 8N1, one 47-byte packet
//! per 12 measurements (4 500 measurements per second, so about 375 packets per second):
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0 | header | `0x54` |
//! | 1 | version and length | `0x2C` (type 1, 12 points) |
//! | 2-3 | speed | degrees per second, little-endian |
//! | 4-5 | start angle | 0.01 degree, the first point's |
//! | 6-41 | 12 × (distance u16 mm, intensity u8) | distance 0 = no measurement |
//! | 42-43 | end angle | 0.01 degree, the last point's |
//! | 44-45 | timestamp | ms, the device's clock, wraps at 30 000 |
//! | 46 | CRC-8 | over bytes 0-45, polynomial 0x4D, init 0, no reflection |
//!
//! Angles grow **clockwise** seen from above, from the device's 0° mark; the points of a
//! packet are evenly spaced from the start to the end angle.
//!
//! # Layout
//! - [`mod@crc`]: the CRC-8 and its table ([`crc8`], [`CRC_TABLE`]).
//! - [`packet`]: [`Packet`] ⇄ its 47 bytes ([`Packet::encode`], [`Packet::decode`]); a
//!   bad packet is a [`Rejected`] value.
//! - [`decoder`]: [`Decoder`], the byte stream → packets, resynchronised after garbage,
//!   a bad CRC or a packet cut short, each counted ([`DecoderCounters`]).
//! - [`scan`]: [`Assembler`], packets → one [`Scan`] per revolution on a fixed angular
//!   grid in the `laser` frame (REP 103 angles, REP 117 special values), what the node
//!   publishes as `sensor_msgs/LaserScan`.
//!
//! Time is passed in (seconds of any monotonic clock); nothing here reads a clock or does
//! I/O.
#![deny(missing_docs)]

pub mod crc;
pub mod decoder;
pub mod packet;
pub mod scan;

pub use crc::{crc8, CRC_TABLE};
pub use decoder::{Decoder, DecoderCounters};
pub use packet::{Packet, Point, Rejected};
pub use scan::{Assembler, Mounting, Scan, ScanConfig, ScanConfigError, ScanCounters};

/// First byte of every packet.
pub const HEADER: u8 = 0x54;
/// Second byte: version 1, 12 points (`0x2C`; the only type the LD06 sends).
pub const VER_LEN: u8 = 0x2C;
/// Bytes in a packet, CRC included.
pub const PACKET_LEN: usize = 47;
/// Measurements in a packet.
pub const POINTS_PER_PACKET: usize = 12;
/// The LD06's serial speed [baud] (8N1).
pub const BAUD: u32 = 230_400;
/// Measurements per second the LD06 makes (its datasheet).
pub const SAMPLES_PER_S: f64 = 4_500.0;
/// The device clock in a packet's `timestamp` wraps at this many milliseconds.
pub const TIMESTAMP_WRAP_MS: u16 = 30_000;
/// Angles on the wire are in hundredths of a degree, below this.
pub const FULL_TURN_CDEG: u16 = 36_000;
