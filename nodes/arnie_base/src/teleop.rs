//! Manual driving (`cmd_vel`), without ROS: time is passed in.
//!
//! - A command `(v, ω)` (m/s, rad/s in the robot's frame, REP 103) that is not finite is
//!   refused ([`TeleopRefused::NotFinite`]); a finite one is clamped to the limits and
//!   becomes the target.
//! - [`Teleop::step`], once per control period, moves the commanded speeds towards the
//!   target by at most the acceleration limits times the time since the last step, and
//!   returns the [`Output::Motion`] to send (one per period while driving, as the board's
//!   own watchdog wants).
//! - **Watchdog**: no command for `timeout_s` → one [`Output::Stop`] (the board brakes at
//!   its emergency deceleration) and manual driving ends; the next command starts it
//!   again from standstill.
use crate::navigator::Output;

/// The limits of manual driving (checked by [`TeleopLimits::check`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TeleopLimits {
    /// Top linear speed [m/s].
    pub max_linear_mps: f64,
    /// Top turn rate [rad/s].
    pub max_angular_rps: f64,
    /// Linear acceleration limit [m/s²].
    pub max_linear_accel_mps2: f64,
    /// Angular acceleration limit [rad/s²].
    pub max_angular_accel_rps2: f64,
    /// No command for this long stops the base [s].
    pub timeout_s: f64,
}

impl Default for TeleopLimits {
    fn default() -> Self {
        TeleopLimits {
            max_linear_mps: 0.5,
            max_angular_rps: 2.0,
            max_linear_accel_mps2: 0.8,
            max_angular_accel_rps2: 6.0,
            timeout_s: 0.5,
        }
    }
}

/// A manual-driving limit that is not finite and above zero ([`TeleopLimits::check`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name}: {value} must be finite and above 0")]
pub struct TeleopLimitsError {
    /// The limit's parameter name.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
}

impl TeleopLimits {
    /// Every limit finite and above zero.
    ///
    /// # Errors
    /// The first one that is not, by its parameter name.
    pub fn check(&self) -> Result<(), TeleopLimitsError> {
        for (name, v) in [
            ("cmd_vel_max_linear_mps", self.max_linear_mps),
            ("cmd_vel_max_angular_rps", self.max_angular_rps),
            ("cmd_vel_max_linear_accel_mps2", self.max_linear_accel_mps2),
            (
                "cmd_vel_max_angular_accel_rps2",
                self.max_angular_accel_rps2,
            ),
            ("cmd_vel_timeout_s", self.timeout_s),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(TeleopLimitsError { name, value: v });
            }
        }
        Ok(())
    }
}

/// Why a command was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeleopRefused {
    /// A NaN or infinite speed.
    NotFinite,
}

/// Manual driving's state (see the module doc).
#[derive(Clone, Debug)]
pub struct Teleop {
    limits: TeleopLimits,
    /// The clamped target and when it came; `None`: not driving manually.
    target: Option<((f64, f64), f64)>,
    /// The speeds last commanded and when.
    commanded: (f64, f64),
    last_step: Option<f64>,
    /// Commands clamped to the limits so far.
    clamped: u64,
}

impl Teleop {
    /// Manual driving with these limits, idle.
    pub fn new(limits: TeleopLimits) -> Self {
        Teleop {
            limits,
            target: None,
            commanded: (0.0, 0.0),
            last_step: None,
            clamped: 0,
        }
    }

    /// New limits (the next step uses them).
    pub fn set_limits(&mut self, limits: TeleopLimits) {
        self.limits = limits;
    }

    /// Whether the base is being driven by hand (a command within the timeout).
    pub fn active(&self) -> bool {
        self.target.is_some()
    }

    /// Commands clamped to the limits so far.
    pub fn clamped(&self) -> u64 {
        self.clamped
    }

    /// A command at `now` [s]. Returns whether manual driving starts with it.
    ///
    /// # Errors
    /// [`TeleopRefused::NotFinite`]: nothing changes.
    pub fn command(&mut self, v: f64, w: f64, now: f64) -> Result<bool, TeleopRefused> {
        if !(v.is_finite() && w.is_finite()) {
            return Err(TeleopRefused::NotFinite);
        }
        let l = &self.limits;
        let cv = v.clamp(-l.max_linear_mps, l.max_linear_mps);
        let cw = w.clamp(-l.max_angular_rps, l.max_angular_rps);
        if cv != v || cw != w {
            self.clamped += 1;
        }
        let starts = self.target.is_none();
        if starts {
            self.commanded = (0.0, 0.0);
            self.last_step = Some(now);
        }
        self.target = Some(((cv, cw), now));
        Ok(starts)
    }

    /// One control period at `now`: the motion to send, a stop after the timeout, or
    /// nothing when not driving by hand.
    pub fn step(&mut self, now: f64) -> Option<Output> {
        let ((tv, tw), at) = self.target?;
        if now - at >= self.limits.timeout_s {
            self.target = None;
            self.commanded = (0.0, 0.0);
            self.last_step = None;
            return Some(Output::Stop);
        }
        let dt = (now - self.last_step.unwrap_or(now)).max(0.0);
        self.last_step = Some(now);
        let towards = |from: f64, to: f64, rate: f64| {
            let d = (to - from).clamp(-rate * dt, rate * dt);
            from + d
        };
        let l = &self.limits;
        self.commanded = (
            towards(self.commanded.0, tv, l.max_linear_accel_mps2),
            towards(self.commanded.1, tw, l.max_angular_accel_rps2),
        );
        Some(Output::Motion {
            v: self.commanded.0,
            w: self.commanded.1,
        })
    }

    /// Ends manual driving at once (e.g. a navigation goal takes over); the caller stops
    /// or commands the base.
    pub fn release(&mut self) {
        self.target = None;
        self.commanded = (0.0, 0.0);
        self.last_step = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motion(o: Option<Output>) -> (f64, f64) {
        match o {
            Some(Output::Motion { v, w }) => (v, w),
            other => panic!("not a motion: {other:?}"),
        }
    }

    #[test]
    fn speeds_ramp_at_the_acceleration_limits_and_are_clamped() {
        let mut t = Teleop::new(TeleopLimits::default());
        assert_eq!(t.step(0.0), None, "idle: nothing to send");
        assert_eq!(t.command(2.0, -0.5, 0.0), Ok(true));
        assert_eq!(t.clamped(), 1, "2 m/s is above the 0.5 m/s limit");
        let (v, w) = motion(t.step(0.1));
        assert!((v - 0.08).abs() < 1e-12, "0.8 m/s² × 0.1 s: {v}");
        assert!(
            (w + 0.5).abs() < 1e-12,
            "6 rad/s² × 0.1 s reaches -0.5: {w}"
        );
        for k in 2..=10 {
            t.command(2.0, -0.5, 0.1 * f64::from(k) - 0.05).unwrap();
            t.step(0.1 * f64::from(k));
        }
        let (v, _) = motion(t.step(1.0));
        assert!((v - 0.5).abs() < 1e-12, "held at the limit: {v}");
    }

    #[test]
    fn silence_stops_the_base_once_after_the_timeout() {
        let mut t = Teleop::new(TeleopLimits::default());
        t.command(0.3, 0.0, 1.0).unwrap();
        assert!(matches!(t.step(1.2), Some(Output::Motion { .. })));
        assert!(matches!(t.step(1.49), Some(Output::Motion { .. })));
        assert_eq!(t.step(1.5), Some(Output::Stop), "0.5 s without a command");
        assert!(!t.active());
        assert_eq!(t.step(1.6), None, "one Stop, then idle");
        assert_eq!(
            t.command(0.3, 0.0, 2.0),
            Ok(true),
            "a new command starts again"
        );
        let (v, _) = motion(t.step(2.0));
        assert_eq!(v, 0.0, "from standstill");
    }

    #[test]
    fn non_finite_commands_change_nothing() {
        let mut t = Teleop::new(TeleopLimits::default());
        assert_eq!(t.command(f64::NAN, 0.0, 0.0), Err(TeleopRefused::NotFinite));
        assert_eq!(
            t.command(0.0, f64::INFINITY, 0.0),
            Err(TeleopRefused::NotFinite)
        );
        assert!(!t.active());
        assert!(TeleopLimits::default().check().is_ok());
        let bad = TeleopLimits {
            timeout_s: 0.0,
            ..TeleopLimits::default()
        };
        assert!(bad
            .check()
            .unwrap_err()
            .to_string()
            .contains("cmd_vel_timeout_s"));
    }
}
