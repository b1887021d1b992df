//! What goes in and out of the board: the decoded commands ([`Input`]), the packets
//! to send ([`Output`]), truth-log [`Event`]s and the packets' constants.
use arnie_packets::typed::{
    Ack, Actuator, ActuatorDone, DriveSpeed, MatchReady, ObstacleReport, Odometry, SetPose,
    StartCord, Stop,
};
use arnie_packets::TypedPacket;

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

/// Packet id of `Stop` (as in `nodes/lib/arnie_packets/packets`), for `Ack.command`.
pub const ID_STOP: u8 = Stop::ID;
/// Packet id of `SetPose`, for `Ack.command`.
pub const ID_SET_POSE: u8 = SetPose::ID;
/// Packet id of `Actuator`, for `Ack.command`.
pub const ID_ACTUATOR: u8 = Actuator::ID;
/// Packet id of `MatchReady`, for `Ack.command`.
pub const ID_MATCH_READY: u8 = MatchReady::ID;

/// A command received from the base: one of the packets generated from
/// `nodes/lib/arnie_packets/packets` (fields as on the wire: mm, mrad, ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    /// `DriveSpeed`: the speeds to reach (clamped to the robot's limits); `seq` is echoed
    /// as odometry's `cmd_seq`, `watchdog_ms` 0 = the scenario's.
    Drive(DriveSpeed),
    /// `Stop`: brake at the emergency deceleration (answered with an `Ack`).
    Stop(Stop),
    /// `SetPose`: the odometry's estimate is reset to this pose (answered with an `Ack`).
    SetPose(SetPose),
    /// `Actuator`: start an action (answered with an `Ack`, then `ActuatorDone`):
    /// `actuator` is the scenario's `actuators[].id`, `action` the
    /// [`crate::scenario::Action::code`], `element` the scenario's `tasks[].element`.
    Actuator(Actuator),
    /// `MatchReady`: the host armed a match (its colour and length; answered with an
    /// `Ack`). With [`crate::board::Options::cord_pull_after_ready_ms`] the simulated
    /// operator puts the cord back if it is out and pulls it that long after.
    MatchReady(MatchReady),
}

/// A packet for the base: one of the packets generated from `nodes/lib/arnie_packets/packets`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Output {
    /// Integer millimetres / milliradians (rounded, saturated to i16: the table is
    /// 3 m × 2 m, θ is wrapped to (−π, π]); the board's clock is `seq` × the period;
    /// `cmd_seq` the `seq` of the last `DriveSpeed` received, `flags` the `FLAG_*` bits.
    Odometry(Odometry),
    /// `ObstacleReport`: a proximity sensor's ray hit something within its range
    /// (`sensor` = its index in the scenario's `sensors`, the hit in the map frame).
    Obstacle(ObstacleReport),
    /// `Ack`: the answer to `Stop`, `SetPose` and `Actuator` (`command` = `ID_*`,
    /// `status` = `ACK_*`).
    Ack(Ack),
    /// `ActuatorDone`: an actuator's action has ended (`status` = `DONE_*`).
    ActuatorDone(ActuatorDone),
    /// `StartCord`: the start cord's state, 10 times a second and on every change.
    StartCord(StartCord),
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
