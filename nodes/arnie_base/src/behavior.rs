//! Nav2's behaviours on the base, without ROS: `spin`, `backup`, `drive_on_heading`
//! ([`Behavior`]) and `wait` ([`Wait`]). Time and odometry are passed in; what comes out
//! is a motion to command, the feedback value, or the end with Nav2's error code.
//!
//! They do what Nav2's behavior server does (Jazzy, `nav2_behaviors`), on the base's own
//! odometry instead of TF and with the proximity sensors instead of a costmap:
//!
//! - **Spin** `target_yaw` (signed, any size): turns in place until the heading turned
//!   (accumulated, unwrapped) reaches `|target_yaw|`, at `w = turn_gain · left` clamped
//!   to `min_turn_rps..=max_turn_rps`. Feedback `angular_distance_traveled` [rad,
//!   signed]. A round base turning in place sweeps nothing new: no collision check.
//! - **BackUp** `target.x` metres at `speed` m/s backwards (both signs ignored, as Nav2
//!   does: it always backs up); `target.y` or `target.z` not 0 → `INVALID_INPUT`.
//! - **DriveOnHeading** `target.x` metres at `speed` m/s along the current heading;
//!   `target.y`/`z` not 0, or `target.x` and `speed` of different signs → `INVALID_INPUT`.
//!
//!   Both drive straight: the heading at the start is held (`w = heading_gain · error`),
//!   the speed is `|speed|` clamped to `max_speed_mps`, slowed to `sqrt(2 · decel · left)`
//!   near the end (never below `min_speed_mps` unless `|speed|` is). Feedback
//!   `distance_traveled` [m] from the start pose. An obstacle report on the side the base
//!   moves to (within `obstacle_cone_rad` of the direction of travel, closer than
//!   `obstacle_stop_distance_m`) → stop, `COLLISION_AHEAD`; a wall counts as much as the
//!   opponent here (no planner stands between the base and the wall).
//! - A `time_allowance` above 0 is a limit: past it → stop, `TIMEOUT` (0: no limit, as in
//!   Nav2). No fresh odometry at the start or on the way → `TF_ERROR` (Nav2's code for
//!   "the robot's pose is not available"). A speed or target that is NaN or infinite, or a
//!   speed of 0 (it would never arrive), → `INVALID_INPUT` (Spin: `UNKNOWN`, it has no
//!   `INVALID_INPUT`).
//! - **Wait** `time`: feedback `time_left` until it is up; commands nothing.
use crate::config::BaseConfig;
use crate::geom::{wrap_angle, Pose2};
use crate::nav2::codes;

/// Which behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BehaviorKind {
    /// `nav2_msgs/action/Spin`.
    Spin,
    /// `nav2_msgs/action/BackUp`.
    BackUp,
    /// `nav2_msgs/action/DriveOnHeading`.
    DriveOnHeading,
}

/// Why a behaviour failed (its Nav2 code by [`Failure::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Past `time_allowance`.
    Timeout,
    /// An obstacle on the way.
    CollisionAhead,
    /// A bad target or speed.
    InvalidInput,
    /// No fresh odometry (Nav2: the robot's pose is not available).
    NoPose,
    /// Anything else: preempted by another motion, shutdown.
    Unknown,
}

impl Failure {
    /// The behaviour's own `error_code` for this failure.
    pub fn code(self, kind: BehaviorKind) -> u16 {
        use Failure::*;
        match kind {
            BehaviorKind::Spin => match self {
                Timeout => codes::spin::TIMEOUT,
                CollisionAhead => codes::spin::COLLISION_AHEAD,
                NoPose => codes::spin::TF_ERROR,
                InvalidInput | Unknown => codes::spin::UNKNOWN,
            },
            BehaviorKind::BackUp => match self {
                Timeout => codes::back_up::TIMEOUT,
                CollisionAhead => codes::back_up::COLLISION_AHEAD,
                NoPose => codes::back_up::TF_ERROR,
                InvalidInput => codes::back_up::INVALID_INPUT,
                Unknown => codes::back_up::UNKNOWN,
            },
            BehaviorKind::DriveOnHeading => match self {
                Timeout => codes::drive_on_heading::TIMEOUT,
                CollisionAhead => codes::drive_on_heading::COLLISION_AHEAD,
                NoPose => codes::drive_on_heading::TF_ERROR,
                InvalidInput => codes::drive_on_heading::INVALID_INPUT,
                Unknown => codes::drive_on_heading::UNKNOWN,
            },
        }
    }
}

/// How a behaviour ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Ended {
    /// `None`: succeeded (or cancelled, when the glue cancelled it).
    pub failure: Option<Failure>,
    /// Time since the start [s] (`total_elapsed_time`).
    pub elapsed_s: f64,
    /// The last feedback value (rad turned, m driven).
    pub progress: f64,
    /// Why, for a person (empty on success).
    pub message: String,
}

/// One step of a running behaviour.
#[derive(Clone, Debug, PartialEq)]
pub enum BehaviorStep {
    /// Command this motion; `progress` is the feedback value.
    Motion {
        /// [m/s]
        v: f64,
        /// [rad/s]
        w: f64,
        /// Feedback: rad turned (Spin, signed) or m driven.
        progress: f64,
    },
    /// Over: stop the base.
    Done(Ended),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Motion {
    Spin { target: f64 },
    Drive { distance: f64, speed: f64 },
}

/// A running spin, back-up or drive-on-heading (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Behavior {
    kind: BehaviorKind,
    motion: Motion,
    allowance_s: f64,
    started: f64,
    start: Pose2,
    prev_yaw: f64,
    turned: f64,
    progress: f64,
}

fn refuse(failure: Failure, message: String) -> Ended {
    Ended {
        failure: Some(failure),
        elapsed_s: 0.0,
        progress: 0.0,
        message,
    }
}

impl Behavior {
    /// Spin by `target_yaw` [rad]; `pose` is the last odometry if it is fresh.
    ///
    /// # Errors
    /// The end at once: no pose, or a target that is not finite.
    pub fn spin(
        target_yaw: f64,
        time_allowance_s: f64,
        pose: Option<Pose2>,
        now: f64,
    ) -> Result<Behavior, Ended> {
        if !(target_yaw.is_finite() && time_allowance_s.is_finite()) {
            return Err(refuse(
                Failure::InvalidInput,
                format!(
                    "target_yaw {target_yaw} or time_allowance {time_allowance_s} s is not finite"
                ),
            ));
        }
        Self::begin(
            BehaviorKind::Spin,
            Motion::Spin { target: target_yaw },
            time_allowance_s,
            pose,
            now,
        )
    }

    /// Back up `target` = (x, y, z) [m] at `speed` [m/s] (signs ignored: backwards).
    ///
    /// # Errors
    /// The end at once: `INVALID_INPUT` (y or z not 0, not finite, speed 0), no pose.
    pub fn back_up(
        target: (f64, f64, f64),
        speed: f64,
        time_allowance_s: f64,
        pose: Option<Pose2>,
        now: f64,
    ) -> Result<Behavior, Ended> {
        Self::check_drive(target, speed, time_allowance_s, "Backing up")?;
        Self::begin(
            BehaviorKind::BackUp,
            Motion::Drive {
                distance: target.0.abs(),
                speed: -speed.abs(),
            },
            time_allowance_s,
            pose,
            now,
        )
    }

    /// Drive `target.0` metres on the current heading at `speed` [m/s] (same sign).
    ///
    /// # Errors
    /// The end at once: `INVALID_INPUT` (y or z not 0, signs differ, not finite, speed
    /// 0), no pose.
    pub fn drive_on_heading(
        target: (f64, f64, f64),
        speed: f64,
        time_allowance_s: f64,
        pose: Option<Pose2>,
        now: f64,
    ) -> Result<Behavior, Ended> {
        Self::check_drive(target, speed, time_allowance_s, "DrivingOnHeading")?;
        if (target.0 > 0.0) != (speed > 0.0) {
            return Err(refuse(
                Failure::InvalidInput,
                format!(
                    "Speed and command sign did not match: target.x {} m, speed {speed} m/s",
                    target.0
                ),
            ));
        }
        Self::begin(
            BehaviorKind::DriveOnHeading,
            Motion::Drive {
                distance: target.0.abs(),
                speed,
            },
            time_allowance_s,
            pose,
            now,
        )
    }

    fn check_drive(
        target: (f64, f64, f64),
        speed: f64,
        allowance: f64,
        what: &str,
    ) -> Result<(), Ended> {
        if target.1 != 0.0 || target.2 != 0.0 {
            return Err(refuse(
                Failure::InvalidInput,
                format!(
                    "{what} in Y and Z not supported, will only move in X (target ({}, {}, {}))",
                    target.0, target.1, target.2
                ),
            ));
        }
        if !(target.0.is_finite() && speed.is_finite() && allowance.is_finite()) {
            return Err(refuse(
                Failure::InvalidInput,
                format!("target.x {} m, speed {speed} m/s or time_allowance {allowance} s is not finite", target.0),
            ));
        }
        if speed == 0.0 && target.0 != 0.0 {
            return Err(refuse(
                Failure::InvalidInput,
                format!("speed 0 m/s would never drive target.x {} m", target.0),
            ));
        }
        Ok(())
    }

    fn begin(
        kind: BehaviorKind,
        motion: Motion,
        allowance_s: f64,
        pose: Option<Pose2>,
        now: f64,
    ) -> Result<Behavior, Ended> {
        let Some(start) = pose else {
            return Err(refuse(
                Failure::NoPose,
                "Initial robot pose is not available: no fresh odometry from the motor board"
                    .into(),
            ));
        };
        Ok(Behavior {
            kind,
            motion,
            allowance_s,
            started: now,
            start,
            prev_yaw: start.theta,
            turned: 0.0,
            progress: 0.0,
        })
    }

    /// Which behaviour this is.
    pub fn kind(&self) -> BehaviorKind {
        self.kind
    }

    /// The last feedback value (rad turned, signed, or m driven).
    pub fn progress(&self) -> f64 {
        self.progress
    }

    /// The end now with `failure` (`None`: cancelled) and `message`.
    pub fn end(&self, failure: Option<Failure>, message: String, now: f64) -> Ended {
        Ended {
            failure,
            elapsed_s: (now - self.started).max(0.0),
            progress: self.progress,
            message,
        }
    }

    /// Time passes (the control tick): the time allowance, and the link (`fresh`: the
    /// last odometry is within `link_timeout_s`).
    pub fn tick(&self, fresh: bool, now: f64) -> Option<Ended> {
        if !fresh {
            return Some(self.end(
                Some(Failure::NoPose),
                "Current robot pose is not available: no fresh odometry from the motor board; motors stopped".into(),
                now,
            ));
        }
        if self.allowance_s > 0.0 && now - self.started > self.allowance_s {
            return Some(self.end(
                Some(Failure::Timeout),
                format!(
                    "Exceeded time allowance ({} s) before reaching the goal: {:.3} of {:.3} done",
                    self.allowance_s,
                    self.progress.abs(),
                    self.target()
                ),
                now,
            ));
        }
        None
    }

    fn target(&self) -> f64 {
        match self.motion {
            Motion::Spin { target } => target.abs(),
            Motion::Drive { distance, .. } => distance,
        }
    }

    /// An odometry sample: the next motion, or the end.
    pub fn on_odometry(&mut self, pose: Pose2, now: f64, cfg: &BaseConfig) -> BehaviorStep {
        if let Some(end) = self.tick(true, now) {
            return BehaviorStep::Done(end);
        }
        match self.motion {
            Motion::Spin { target } => {
                self.turned += wrap_angle(pose.theta - self.prev_yaw);
                self.prev_yaw = pose.theta;
                self.progress = self.turned;
                let left = target.abs() - self.turned.abs();
                if left < 1e-6 {
                    return BehaviorStep::Done(self.end(None, String::new(), now));
                }
                let w = (cfg.turn_gain * left).clamp(cfg.min_turn_rps, cfg.max_turn_rps);
                BehaviorStep::Motion {
                    v: 0.0,
                    w: w.copysign(target),
                    progress: self.progress,
                }
            }
            Motion::Drive { distance, speed } => {
                self.progress = self.start.distance_to((pose.x, pose.y));
                let left = distance - self.progress;
                if left <= 0.0 {
                    return BehaviorStep::Done(self.end(None, String::new(), now));
                }
                let top = speed.abs().min(cfg.max_speed_mps);
                let floor = cfg.min_speed_mps.min(top);
                let v = (2.0 * cfg.decel_mps2 * left).sqrt().clamp(floor, top);
                let error = wrap_angle(self.start.theta - pose.theta);
                let w = (cfg.heading_gain * error).clamp(-cfg.max_turn_rps, cfg.max_turn_rps);
                BehaviorStep::Motion {
                    v: v.copysign(speed),
                    w,
                    progress: self.progress,
                }
            }
        }
    }

    /// An obstacle report: `distance_m` from the robot's edge at `bearing_rad` from its
    /// heading. Driving toward it and closer than `obstacle_stop_distance_m` ends the
    /// behaviour `COLLISION_AHEAD`.
    pub fn on_obstacle(
        &self,
        distance_m: f64,
        bearing_rad: f64,
        now: f64,
        cfg: &BaseConfig,
    ) -> Option<Ended> {
        let Motion::Drive { speed, .. } = self.motion else {
            return None;
        };
        if !(distance_m.is_finite() && bearing_rad.is_finite()) {
            return None;
        }
        let travel = if speed >= 0.0 {
            0.0
        } else {
            std::f64::consts::PI
        };
        let ahead = wrap_angle(bearing_rad - travel).abs() <= cfg.obstacle_cone_rad;
        (ahead && distance_m <= cfg.obstacle_stop_distance_m).then(|| {
            self.end(
                Some(Failure::CollisionAhead),
                format!(
                    "Collision Ahead: an obstacle {distance_m:.2} m {} after {:.3} m",
                    if speed >= 0.0 { "ahead" } else { "behind" },
                    self.progress
                ),
                now,
            )
        })
    }
}

/// A running `wait`: a timer, no motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wait {
    started: f64,
    end: f64,
}

impl Wait {
    /// Waits `seconds` from `now` (a negative or non-finite time is no wait).
    pub fn new(seconds: f64, now: f64) -> Wait {
        let seconds = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        Wait {
            started: now,
            end: now + seconds,
        }
    }

    /// Time left [s] (0 when it is up).
    pub fn time_left(&self, now: f64) -> f64 {
        (self.end - now).max(0.0)
    }

    /// Whether the time is up.
    pub fn done(&self, now: f64) -> bool {
        now >= self.end
    }

    /// Time since the start [s].
    pub fn elapsed(&self, now: f64) -> f64 {
        (now - self.started).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn drive(b: &mut Behavior, mut pose: Pose2, cfg: &BaseConfig, dt: f64) -> (Ended, f64) {
        let mut t = 0.0;
        let mut max_v: f64 = 0.0;
        for _ in 0..20_000 {
            t += dt;
            match b.on_odometry(pose, t, cfg) {
                BehaviorStep::Motion { v, w, .. } => {
                    max_v = max_v.max(v.abs());
                    pose.theta = wrap_angle(pose.theta + w * dt);
                    pose.x += v * dt * pose.theta.cos();
                    pose.y += v * dt * pose.theta.sin();
                }
                BehaviorStep::Done(e) => return (e, max_v),
            }
        }
        panic!("never ended")
    }

    #[test]
    fn spin_turns_the_signed_angle_through_the_wrap() {
        let cfg = BaseConfig::default();
        let start = Pose2::new(1.0, 1.0, 3.0);
        let mut b = Behavior::spin(-4.0, 0.0, Some(start), 0.0).unwrap();
        let (end, _) = drive(&mut b, start, &cfg, 0.02);
        assert_eq!(end.failure, None);
        assert!(
            end.progress <= -4.0 && end.progress > -4.05,
            "{}",
            end.progress
        );
        // One turn and a half, the other way.
        let mut b = Behavior::spin(3.0 * PI, 0.0, Some(start), 0.0).unwrap();
        let (end, _) = drive(&mut b, start, &cfg, 0.02);
        assert!(end.progress >= 3.0 * PI - 1e-6 && end.progress < 3.0 * PI + 0.05);
    }

    #[test]
    fn back_up_drives_backwards_straight_and_stops_at_the_distance() {
        let cfg = BaseConfig::default();
        let start = Pose2::new(1.0, 1.0, 0.5);
        // Nav2's BasicNavigator.backup(0.15, 0.025): signs ignored.
        let mut b = Behavior::back_up((0.15, 0.0, 0.0), 0.025, 10.0, Some(start), 0.0).unwrap();
        let (end, max_v) = drive(&mut b, start, &cfg, 0.02);
        assert_eq!(end.failure, None, "{}", end.message);
        assert!(end.progress >= 0.15 && end.progress < 0.16);
        assert!(max_v <= 0.025 + 1e-12, "{max_v}");
        assert!((end.elapsed_s - 6.0).abs() < 0.1, "{}", end.elapsed_s);
        let mut b = Behavior::back_up((-0.2, 0.0, 0.0), -2.0, 0.0, Some(start), 0.0).unwrap();
        assert!(
            matches!(b.on_odometry(start, 0.02, &cfg), BehaviorStep::Motion { v, .. } if v < 0.0 && v >= -cfg.max_speed_mps)
        );
    }

    #[test]
    fn bad_inputs_and_no_pose_end_at_once_with_nav2_codes() {
        let p = Some(Pose2::default());
        let e = Behavior::back_up((0.1, 0.1, 0.0), 0.1, 0.0, p, 0.0).unwrap_err();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::BackUp), 713);
        let e = Behavior::drive_on_heading((0.3, 0.0, 0.0), -0.1, 0.0, p, 0.0).unwrap_err();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::DriveOnHeading), 724);
        assert!(e
            .message
            .starts_with("Speed and command sign did not match"));
        let e = Behavior::drive_on_heading((f64::NAN, 0.0, 0.0), 0.1, 0.0, p, 0.0).unwrap_err();
        assert_eq!(e.failure, Some(Failure::InvalidInput));
        let e = Behavior::spin(1.0, 0.0, None, 0.0).unwrap_err();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::Spin), 702);
        let e = Behavior::spin(f64::INFINITY, 0.0, p, 0.0).unwrap_err();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::Spin), 700);
    }

    #[test]
    fn time_allowance_obstacles_and_the_link_end_it() {
        let cfg = BaseConfig::default();
        let start = Pose2::default();
        let b = Behavior::drive_on_heading((1.0, 0.0, 0.0), 0.2, 2.0, Some(start), 10.0).unwrap();
        assert_eq!(b.tick(true, 11.9), None);
        let e = b.tick(true, 12.1).unwrap();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::DriveOnHeading), 721);
        let e = b.tick(false, 10.5).unwrap();
        assert_eq!(e.failure, Some(Failure::NoPose));
        // Ahead: driving forward, a hit ahead stops it; one behind does not.
        assert!(b.on_obstacle(0.1, 0.1, 10.5, &cfg).is_some());
        assert!(b.on_obstacle(0.1, PI, 10.5, &cfg).is_none());
        assert!(b.on_obstacle(0.5, 0.0, 10.5, &cfg).is_none());
        let back = Behavior::back_up((0.3, 0.0, 0.0), 0.1, 0.0, Some(start), 0.0).unwrap();
        let e = back.on_obstacle(0.05, -PI + 0.1, 1.0, &cfg).unwrap();
        assert_eq!(e.failure.unwrap().code(BehaviorKind::BackUp), 714);
        assert!(back.on_obstacle(0.05, 0.0, 1.0, &cfg).is_none());
        let spin = Behavior::spin(1.0, 0.0, Some(start), 0.0).unwrap();
        assert!(spin.on_obstacle(0.01, 0.0, 1.0, &cfg).is_none());
    }

    #[test]
    fn wait_counts_down() {
        let w = Wait::new(2.0, 5.0);
        assert_eq!(w.time_left(6.5), 0.5);
        assert!(!w.done(6.9));
        assert!(w.done(7.0));
        assert_eq!(w.time_left(9.0), 0.0);
        assert!(Wait::new(f64::NAN, 1.0).done(1.0));
    }
}
