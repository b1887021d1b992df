//! What goes in and out of the board: the decoded commands ([`Input`]), the packets
//! to send ([`Output`]), truth-log [`Event`]s, [`Pose`]s, and the packets' constants.

/// Odometry flag bits.
pub const FLAG_MOVING: u8 = 1;
pub const FLAG_WATCHDOG: u8 = 2;
pub const FLAG_STOPPED: u8 = 4;
pub const FLAG_ACTUATOR_BUSY: u8 = 8;
pub const FLAG_OBSTACLE: u8 = 16;

/// `Ack.status`.
pub const ACK_OK: u8 = 0;
pub const ACK_BUSY: u8 = 1;
pub const ACK_INVALID: u8 = 2;
/// `ActuatorDone.status`.
pub const DONE_OK: u8 = 0;
pub const DONE_FAILED: u8 = 1;

/// Packet ids (as in `nodes/arnie_comms/packets`), for `Ack.command`.
pub const ID_STOP: u8 = 31;
pub const ID_SET_POSE: u8 = 32;
pub const ID_ACTUATOR: u8 = 35;

/// A command received from the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    Drive {
        seq: u16,
        linear_mm_s: i16,
        angular_mrad_s: i16,
        watchdog_ms: u16,
    },
    Stop {
        seq: u16,
    },
    SetPose {
        seq: u16,
        x_mm: f32,
        y_mm: f32,
        theta_mrad: f32,
    },
    Actuator {
        seq: u16,
        actuator: u8,
        action: u8,
        element: u8,
    },
}

/// `v` × 1000, rounded and saturated to i16 (metres → mm, radians → mrad); NaN → 0.
pub(super) fn milli(v: f64) -> i16 {
    (v * 1000.0)
        .round()
        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// A packet for the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Output {
    /// Integer millimetres / milliradians (rounded, saturated to i16: the table is
    /// 3 m × 2 m, θ is wrapped to (−π, π]); the board's clock is `seq` × the period.
    Odometry {
        seq: u16,
        x_mm: i16,
        y_mm: i16,
        theta_mrad: i16,
        linear_mm_s: i16,
        angular_mrad_s: i16,
        cmd_seq: u16,
        flags: u8,
    },
    Obstacle {
        seq: u16,
        sensor: u8,
        distance_mm: u16,
        bearing_mrad: i16,
        x_mm: f32,
        y_mm: f32,
    },
    Ack {
        command: u8,
        seq: u16,
        status: u8,
    },
    ActuatorDone {
        seq: u16,
        actuator: u8,
        action: u8,
        element: u8,
        status: u8,
        duration_ms: u16,
    },
}

/// Something worth a line in the truth log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub time_ms: u64,
    pub kind: &'static str,
    pub detail: String,
}

/// A pose [m, m, rad].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pose {
    pub x: f64,
    pub y: f64,
    pub theta: f64,
}
