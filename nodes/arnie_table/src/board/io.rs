//! What goes in and out of the board: the decoded commands ([`Input`]), the packets
//! to send ([`Output`]), truth-log [`Event`]s, [`Pose`]s, and the packets' constants.

/// Odometry flag bit: the robot's true speed is not zero.
pub const FLAG_MOVING: u8 = 1;
/// Odometry flag bit: the watchdog fired (no `DriveSpeed` in time); braking to 0.
pub const FLAG_WATCHDOG: u8 = 2;
/// Odometry flag bit: braking after a `Stop`, until a `DriveSpeed` with a new seq.
pub const FLAG_STOPPED: u8 = 4;
/// Odometry flag bit: an actuator command is running.
pub const FLAG_ACTUATOR_BUSY: u8 = 8;
/// Odometry flag bit: a proximity sensor sees something within its range.
pub const FLAG_OBSTACLE: u8 = 16;

/// `Ack.status`: the command was taken.
pub const ACK_OK: u8 = 0;
/// `Ack.status`: refused, the actuator is still running a command.
pub const ACK_BUSY: u8 = 1;
/// `Ack.status`: refused, an unknown actuator, action or element, or a bad pose.
pub const ACK_INVALID: u8 = 2;
/// `ActuatorDone.status`: the action succeeded.
pub const DONE_OK: u8 = 0;
/// `ActuatorDone.status`: the action failed (e.g. nothing to take there).
pub const DONE_FAILED: u8 = 1;

/// Packet id of `Stop` (as in `nodes/arnie_comms/packets`), for `Ack.command`.
pub const ID_STOP: u8 = 31;
/// Packet id of `SetPose`, for `Ack.command`.
pub const ID_SET_POSE: u8 = 32;
/// Packet id of `Actuator`, for `Ack.command`.
pub const ID_ACTUATOR: u8 = 35;

/// A command received from the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    /// `DriveSpeed`: the speeds to reach (clamped to the robot's limits).
    Drive {
        /// The command's sequence number (echoed as odometry's `cmd_seq`).
        seq: u16,
        /// Forward speed [mm/s].
        linear_mm_s: i16,
        /// Turn rate, counter-clockwise [mrad/s].
        angular_mrad_s: i16,
        /// Stop if no `DriveSpeed` follows within this time [ms]; 0 = the scenario's.
        watchdog_ms: u16,
    },
    /// `Stop`: brake at the emergency deceleration (answered with an `Ack`).
    Stop {
        /// The command's sequence number.
        seq: u16,
    },
    /// `SetPose`: the odometry's estimate is reset to this pose (answered with an `Ack`).
    SetPose {
        /// The command's sequence number.
        seq: u16,
        /// x in the map frame [mm].
        x_mm: f32,
        /// y in the map frame [mm].
        y_mm: f32,
        /// Heading [mrad].
        theta_mrad: f32,
    },
    /// `Actuator`: start an action (answered with an `Ack`, then `ActuatorDone`).
    Actuator {
        /// The command's sequence number.
        seq: u16,
        /// The actuator's wire id (the scenario's `actuators[].id`).
        actuator: u8,
        /// The action's code ([`crate::scenario::Action::code`]).
        action: u8,
        /// The game element acted on (the scenario's `tasks[].element`).
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
        /// The report's sequence number (one per odometry period).
        seq: u16,
        /// Estimated x in the map frame [mm].
        x_mm: i16,
        /// Estimated y in the map frame [mm].
        y_mm: i16,
        /// Estimated heading [mrad].
        theta_mrad: i16,
        /// Measured forward speed [mm/s].
        linear_mm_s: i16,
        /// Measured turn rate [mrad/s].
        angular_mrad_s: i16,
        /// The `seq` of the last `DriveSpeed` received.
        cmd_seq: u16,
        /// `FLAG_*` bits.
        flags: u8,
    },
    /// `ObstacleReport`: a proximity sensor's ray hit something within its range.
    Obstacle {
        /// The report's sequence number.
        seq: u16,
        /// The sensor's index in the scenario's `sensors`.
        sensor: u8,
        /// From the robot's edge to the hit [mm].
        distance_mm: u16,
        /// The sensor's bearing from the robot's heading [mrad].
        bearing_mrad: i16,
        /// The hit's x in the map frame [mm].
        x_mm: f32,
        /// The hit's y in the map frame [mm].
        y_mm: f32,
    },
    /// `Ack`: the answer to `Stop`, `SetPose` and `Actuator`.
    Ack {
        /// The id of the packet answered (`ID_*`).
        command: u8,
        /// The `seq` of the packet answered.
        seq: u16,
        /// `ACK_*`.
        status: u8,
    },
    /// `ActuatorDone`: an actuator's action has ended.
    ActuatorDone {
        /// The `seq` of the `Actuator` command.
        seq: u16,
        /// The actuator's wire id.
        actuator: u8,
        /// The action's code.
        action: u8,
        /// The game element acted on.
        element: u8,
        /// `DONE_*`.
        status: u8,
        /// How long the action took [ms].
        duration_ms: u16,
    },
}

/// Something worth a line in the truth log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When, on the board's clock [ms since start].
    pub time_ms: u64,
    /// What kind (`collision`, `watchdog`, ...).
    pub kind: &'static str,
    /// One human-readable line.
    pub detail: String,
}

/// A pose [m, m, rad].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pose {
    /// x in the map frame [m].
    pub x: f64,
    /// y in the map frame [m].
    pub y: f64,
    /// Heading, counter-clockwise from +x [rad].
    pub theta: f64,
}
