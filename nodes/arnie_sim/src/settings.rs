//! The node's numeric settings, checked (no ROS): the allowed range of each parameter
//! in one place, used by the `ros` glue's check of every value given at start and of
//! every `ros2 param set` (the glue declares each parameter with these ranges, which a
//! test of the glue holds to these constants).
//!
//! Every period comes from a bounded value: `step_ms` in [`STEP_MS`], the rates in
//! [`TRUTH_RATE_HZ`] and [`MARKERS_RATE_HZ`], so no timer is ever asked for a period of
//! zero, 1e-12 s or a thousand years.
use std::fmt;
use std::time::Duration;

use crate::SimError;

/// An inclusive range of allowed values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
}

impl Range {
    /// `v` if it is finite and within the range, else the error naming `field`.
    ///
    /// # Errors
    /// [`SimError::NotFinite`] or [`SimError::OutOfRange`].
    pub fn check(&self, field: &str, v: f64) -> Result<f64, SimError> {
        if !v.is_finite() {
            return Err(SimError::NotFinite {
                field: field.to_string(),
            });
        }
        if (self.min..=self.max).contains(&v) {
            Ok(v)
        } else {
            Err(SimError::OutOfRange {
                field: field.to_string(),
                value: v,
                min: self.min,
                max: self.max,
            })
        }
    }
}

impl fmt::Display for Range {
    /// `[min, max]`, as in the error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.min, self.max)
    }
}

/// `step_ms`, the physics step [ms].
pub const STEP_MS: Range = Range {
    min: 1.0,
    max: 1000.0,
};
/// `truth_rate_hz`, `/sim/truth` publications per second [Hz] (a period of 1 ms to 100 s).
pub const TRUTH_RATE_HZ: Range = Range {
    min: 0.01,
    max: 1000.0,
};
/// `markers_rate_hz` when not 0 (off), `sim/markers` publications per second [Hz].
pub const MARKERS_RATE_HZ: Range = Range {
    min: 0.01,
    max: 100.0,
};
/// `port_offset`, added to every port of the spine config.
pub const PORT_OFFSET: Range = Range {
    min: -65535.0,
    max: 65535.0,
};

/// The numeric parameters as given (ROS integers and doubles).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawSettings {
    /// Added to every port of the spine config.
    pub port_offset: i64,
    /// Physics step [ms].
    pub step_ms: i64,
    /// `/sim/truth` rate [Hz].
    pub truth_rate_hz: f64,
    /// `sim/markers` rate [Hz]; 0 = off.
    pub markers_rate_hz: f64,
}

impl Default for RawSettings {
    fn default() -> Self {
        RawSettings {
            port_offset: 0,
            step_ms: 5,
            truth_rate_hz: 10.0,
            markers_rate_hz: 10.0,
        }
    }
}

/// The checked settings: periods the node's timers can run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Added to every port of the spine config.
    pub port_offset: i32,
    /// The physics step.
    pub step: Duration,
    /// Between two `/sim/truth` publications.
    pub truth_period: Duration,
    /// Between two `sim/markers` publications; `None` = off.
    pub markers_period: Option<Duration>,
}

impl RawSettings {
    /// Checks every value against its range.
    ///
    /// # Errors
    /// The first value out of its range (or not finite), naming its parameter.
    pub fn check(&self) -> Result<Settings, SimError> {
        let port_offset = PORT_OFFSET.check("port_offset", self.port_offset as f64)? as i32;
        let step_ms = STEP_MS.check("step_ms", self.step_ms as f64)?;
        let truth_hz = TRUTH_RATE_HZ.check("truth_rate_hz", self.truth_rate_hz)?;
        let markers_period = match self.markers_rate_hz {
            0.0 => None,
            hz => Some(period(
                MARKERS_RATE_HZ.check("markers_rate_hz (or 0 = off)", hz)?,
            )),
        };
        Ok(Settings {
            port_offset,
            step: Duration::from_millis(step_ms as u64),
            truth_period: period(truth_hz),
            markers_period,
        })
    }
}

/// The period of a rate already checked to be within one of the ranges above.
fn period(hz: f64) -> Duration {
    Duration::from_secs_f64(1.0 / hz)
}

/// The fixed-step clock of the physics: how many steps of `dt` are due when `elapsed`
/// time has passed since the first tick, at most `max_catch_up` at once (after a stall,
/// simulated time jumps instead of running a burst of steps).
#[derive(Debug, Clone)]
pub struct CatchUp {
    dt: Duration,
    done: u64,
    max_catch_up: u64,
}

impl CatchUp {
    /// A clock of steps `dt` (not zero: [`Settings::step`]).
    pub fn new(dt: Duration, max_catch_up: u64) -> Self {
        CatchUp {
            dt: dt.max(Duration::from_micros(1)),
            done: 0,
            max_catch_up,
        }
    }

    /// The step length [s].
    pub fn dt_s(&self) -> f64 {
        self.dt.as_secs_f64()
    }

    /// The steps to run now, `elapsed` after the first tick.
    pub fn due(&mut self, elapsed: Duration) -> u64 {
        // Whole steps in integer nanoseconds: no rounding drift over a long run.
        let due = u64::try_from(elapsed.as_nanos() / self.dt.as_nanos()).unwrap_or(u64::MAX);
        let n = due.saturating_sub(self.done).min(self.max_catch_up);
        self.done = self.done.max(due);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSettings {
        RawSettings::default()
    }

    #[test]
    fn the_defaults_pass() {
        let s = raw().check().unwrap();
        assert_eq!(s.step, Duration::from_millis(5));
        assert_eq!(s.truth_period, Duration::from_millis(100));
        assert_eq!(s.markers_period, Some(Duration::from_millis(100)));
    }

    #[test]
    fn a_period_of_a_picosecond_is_refused_naming_the_parameter() {
        let e = RawSettings {
            truth_rate_hz: 1e12,
            ..raw()
        }
        .check()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "truth_rate_hz: must be in [0.01, 1000], got 1000000000000"
        );
        for (bad, field) in [
            (
                RawSettings {
                    step_ms: 0,
                    ..raw()
                },
                "step_ms",
            ),
            (
                RawSettings {
                    step_ms: -5,
                    ..raw()
                },
                "step_ms",
            ),
            (
                RawSettings {
                    truth_rate_hz: 0.0,
                    ..raw()
                },
                "truth_rate_hz",
            ),
            (
                RawSettings {
                    truth_rate_hz: f64::NAN,
                    ..raw()
                },
                "truth_rate_hz",
            ),
            (
                RawSettings {
                    truth_rate_hz: 1e-12,
                    ..raw()
                },
                "truth_rate_hz",
            ),
            (
                RawSettings {
                    markers_rate_hz: 1e12,
                    ..raw()
                },
                "markers_rate_hz",
            ),
            (
                RawSettings {
                    markers_rate_hz: -1.0,
                    ..raw()
                },
                "markers_rate_hz",
            ),
            (
                RawSettings {
                    port_offset: 70_000,
                    ..raw()
                },
                "port_offset",
            ),
        ] {
            let e = bad.check().unwrap_err().to_string();
            assert!(e.starts_with(field), "{bad:?}: {e}");
        }
    }

    #[test]
    fn markers_zero_is_off_and_the_bounds_are_allowed() {
        let s = RawSettings {
            markers_rate_hz: 0.0,
            truth_rate_hz: TRUTH_RATE_HZ.max,
            step_ms: STEP_MS.max as i64,
            port_offset: PORT_OFFSET.min as i64,
        }
        .check()
        .unwrap();
        assert_eq!(s.markers_period, None);
        assert_eq!(s.truth_period, Duration::from_millis(1));
        assert_eq!(s.step, Duration::from_secs(1));
        assert_eq!(s.port_offset, -65535);
    }

    #[test]
    fn catch_up_runs_the_due_steps_and_jumps_after_a_stall() {
        let mut c = CatchUp::new(Duration::from_millis(5), 200);
        assert_eq!(c.due(Duration::ZERO), 0);
        assert_eq!(c.due(Duration::from_millis(5)), 1);
        assert_eq!(c.due(Duration::from_millis(7)), 0);
        assert_eq!(c.due(Duration::from_millis(20)), 3);
        // A 10 s stall: at most 200 steps, and the rest is skipped, not owed.
        assert_eq!(c.due(Duration::from_millis(10_020)), 200);
        assert_eq!(c.due(Duration::from_millis(10_025)), 1);
    }
}
