//! The motor board's packets (`nodes/lib/arnie_packets/packets`, ids 30-37, table in its
//! README.md) ⇄ the navigator's units. Packets travel as `arnie_interfaces/Packet`
//! (`name` + `fields_json`) through `comms_bridge`; the packets' types, their JSON and
//! its checks are [`arnie_packets::typed`]'s (generated from the definitions); this module
//! converts units only: millimetres and milliradians on the wire, metres and radians here.
use arnie_packets::typed::{from_milli, to_milli, Ack, DriveSpeed, ObstacleReport, Odometry, Stop};
pub use arnie_packets::PacketError;
use arnie_packets::TypedPacket;

use crate::geom::{wrap_angle, Pose2};

/// `DriveSpeed` (id 30): speeds, no reply.
pub const DRIVE_SPEED: &str = DriveSpeed::NAME;
/// `Stop` (id 31): brake; the board answers `Ack`.
pub const STOP: &str = Stop::NAME;
/// `Odometry` (id 33), 50 Hz: integer mm, mrad, mm/s, mrad/s (15-byte payload, 18-byte
/// UART frame, so that more frames survive a noisy link).
pub const ODOMETRY: &str = Odometry::NAME;
/// `ObstacleReport` (id 34), per sensor while something is in range.
pub const OBSTACLE_REPORT: &str = ObstacleReport::NAME;
/// `Ack` (id 37).
pub const ACK: &str = Ack::NAME;

/// `DriveSpeed` fields: `v` [m/s], `w` [rad/s], rounded to mm/s and mrad/s and
/// saturated to the i16 range; `watchdog_ms` 0 = the board's default.
pub fn drive_speed(seq: u16, v: f64, w: f64, watchdog_ms: u16) -> String {
    DriveSpeed {
        seq,
        linear_mm_s: to_milli(v),
        angular_mrad_s: to_milli(w),
        watchdog_ms,
    }
    .fields_json()
}

/// `Stop` fields.
pub fn stop(seq: u16) -> String {
    Stop { seq }.fields_json()
}

/// A packet from the board, in navigator units.
#[derive(Clone, Debug, PartialEq)]
pub enum FromBoard {
    /// `Odometry`.
    Odometry {
        /// Board counter (50 Hz: the board's clock is seq × 20 ms).
        seq: u16,
        /// Pose (map frame).
        pose: Pose2,
        /// [m/s]
        v: f64,
        /// [rad/s]
        w: f64,
        /// Seq of the last `DriveSpeed` applied.
        cmd_seq: u16,
        /// Bit 0 moving, 1 watchdog stop, 2 stopped by Stop, 3 actuator busy, 4 obstacle.
        flags: u8,
    },
    /// `ObstacleReport`.
    Obstacle {
        /// Sensor index.
        sensor: u8,
        /// From the robot's edge [m].
        distance_m: f64,
        /// Relative to the heading [rad].
        bearing_rad: f64,
        /// The hit point, in the board's odometry frame (`odom`) [m].
        hit: (f64, f64),
    },
    /// `Ack`.
    Ack {
        /// The acknowledged packet's id.
        command: u8,
        /// Its seq.
        seq: u16,
        /// 0 ok, 1 busy, 2 invalid.
        status: u8,
    },
    /// Any other packet (not the base's business).
    Other,
}

/// Why a board packet could not be read (counted by the node).
pub type BadPacket = PacketError;

/// Reads a packet from `comms/rx` (`name`, `fields_json`).
///
/// # Errors
/// [`BadPacket`] when a board packet's fields are missing, not JSON numbers of their
/// type, or out of its range.
pub fn parse(name: &str, fields_json: &str) -> Result<FromBoard, BadPacket> {
    Ok(match name {
        Odometry::NAME => {
            let o = Odometry::from_fields_json(fields_json)?;
            FromBoard::Odometry {
                seq: o.seq,
                pose: Pose2::new(
                    from_milli(o.x_mm),
                    from_milli(o.y_mm),
                    wrap_angle(from_milli(o.theta_mrad)),
                ),
                v: from_milli(o.linear_mm_s),
                w: from_milli(o.angular_mrad_s),
                cmd_seq: o.cmd_seq,
                flags: o.flags,
            }
        }
        ObstacleReport::NAME => {
            let o = ObstacleReport::from_fields_json(fields_json)?;
            FromBoard::Obstacle {
                sensor: o.sensor,
                distance_m: from_milli(o.distance_mm),
                bearing_rad: from_milli(o.bearing_mrad),
                hit: (from_milli(o.x_mm), from_milli(o.y_mm)),
            }
        }
        Ack::NAME => {
            let a = Ack::from_fields_json(fields_json)?;
            FromBoard::Ack {
                command: a.command,
                seq: a.seq,
                status: a.status,
            }
        }
        _ => FromBoard::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn commands_are_in_mm_and_mrad() {
        let v: Value = serde_json::from_str(&drive_speed(7, 0.25, -1.5, 0)).unwrap();
        assert_eq!(
            v,
            json!({"seq": 7, "linear_mm_s": 250, "angular_mrad_s": -1500, "watchdog_ms": 0})
        );
        let v: Value = serde_json::from_str(&drive_speed(1, 100.0, f64::NAN, 300)).unwrap();
        assert_eq!(
            (v["linear_mm_s"].as_i64(), v["angular_mrad_s"].as_i64()),
            (Some(32767), Some(0))
        );
        assert_eq!(stop(3), r#"{"seq":3}"#);
    }

    #[test]
    fn board_packets_read_in_metres() {
        let odo = parse(ODOMETRY, r#"{"seq":1,"x_mm":300,"y_mm":1000,"theta_mrad":1570,"linear_mm_s":100,"angular_mrad_s":0,"cmd_seq":4,"flags":1}"#).unwrap();
        match odo {
            FromBoard::Odometry {
                pose, v, cmd_seq, ..
            } => {
                assert!(
                    (pose.x - 0.3).abs() < 1e-12
                        && (pose.y - 1.0).abs() < 1e-12
                        && (pose.theta - 1.57).abs() < 1e-12
                );
                assert_eq!((v, cmd_seq), (0.1, 4));
            }
            o => panic!("{o:?}"),
        }
        let obs = parse(OBSTACLE_REPORT, r#"{"seq":1,"sensor":0,"distance_mm":120,"bearing_mrad":-300,"x_mm":1500.0,"y_mm":900.0}"#).unwrap();
        assert_eq!(
            obs,
            FromBoard::Obstacle {
                sensor: 0,
                distance_m: 0.12,
                bearing_rad: -0.3,
                hit: (1.5, 0.9)
            }
        );
        assert_eq!(
            parse(ACK, r#"{"command":31,"seq":2,"status":0}"#).unwrap(),
            FromBoard::Ack {
                command: 31,
                seq: 2,
                status: 0
            }
        );
        assert_eq!(parse("Pong", "garbage").unwrap(), FromBoard::Other);
        assert!(parse(ODOMETRY, r#"{"seq":1}"#)
            .unwrap_err()
            .to_string()
            .contains("x_mm"));
        assert!(parse(ACK, "not json").is_err());
    }
}
