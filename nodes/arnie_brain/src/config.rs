//! The node's settings as written (plain numbers and strings, [`RawConfig`]) and checked
//! ([`Config`]): every period, timeout and rate within a stated range, so a
//! `tick_period_s` of 1e-12 is refused with a reason instead of reaching the tick timer.
//! No ROS here: the node's parameters (`ros::params`) convert into [`RawConfig`] and are
//! refused, at start and on every `ros2 param set`, with [`ConfigError`]'s text.

use std::fmt;
use std::ops::RangeInclusive;
use std::time::Duration;

/// `tick_period_s` [s]: 10 ms (a tick publishes state and may send a goal) to one hour.
pub const TICK_PERIOD_S: RangeInclusive<f64> = 0.01..=3600.0;
/// `position_timeout_s` and `observation_timeout_s` [s].
pub const TIMEOUT_S: RangeInclusive<f64> = 0.01..=3600.0;
/// `markers_rate_hz` [Hz]; 0 = no markers.
pub const MARKERS_RATE_HZ: RangeInclusive<f64> = 0.0..=100.0;
/// `verify_tolerance_mm` [mm, instructions units].
pub const VERIFY_TOLERANCE_MM: RangeInclusive<f64> = 0.0..=10_000.0;
/// `m_per_unit` [m per instructions unit] (0.001 for millimetres).
pub const M_PER_UNIT: RangeInclusive<f64> = 1e-6..=1e3;

/// How targets reach the arm (`command_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandMode {
    /// `"move_to"`: one `MoveTo` goal per new target on `/trajectory/move_to`.
    MoveTo,
    /// `"topic"`: `geometry_msgs/PointStamped` on the legacy `/arm/target`.
    Topic,
}

/// A `command_mode` that is neither `move_to` nor `topic`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be \"move_to\" or \"topic\", got {0:?}")]
pub struct UnknownMode(pub String);

impl std::str::FromStr for CommandMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, UnknownMode> {
        match s {
            "move_to" => Ok(CommandMode::MoveTo),
            "topic" => Ok(CommandMode::Topic),
            other => Err(UnknownMode(other.to_string())),
        }
    }
}

impl fmt::Display for CommandMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CommandMode::MoveTo => "move_to",
            CommandMode::Topic => "topic",
        })
    }
}

/// A setting refused: its name and why (the one shape every node uses).
pub use glue_core::ConfigError;

/// The settings as written (the node's parameters, same names and units).
#[derive(Debug, Clone, PartialEq)]
pub struct RawConfig {
    /// Time between two ticks [s].
    pub tick_period_s: f64,
    /// Tick limit of a run whose goal gives 0 (0 = none).
    pub max_ticks: i64,
    /// An arm position older than this is stale [s].
    pub position_timeout_s: f64,
    /// Observations older than this are dropped [s].
    pub observation_timeout_s: f64,
    /// Trajectory verification tolerance on every axis [mm].
    pub verify_tolerance_mm: f64,
    /// Metres per instructions unit.
    pub m_per_unit: f64,
    /// `move_to` or `topic`.
    pub command_mode: String,
    /// `brain/markers` rate [Hz]; 0 = off.
    pub markers_rate_hz: f64,
}

impl Default for RawConfig {
    /// The node's defaults (the lab's 10 s tick; BrainJS's default was 2.5 s).
    fn default() -> Self {
        RawConfig {
            tick_period_s: 10.0,
            max_ticks: 0,
            position_timeout_s: 1.0,
            observation_timeout_s: 1.0,
            verify_tolerance_mm: crate::VERIFY_TOLERANCE_MM,
            m_per_unit: 0.001,
            command_mode: "move_to".into(),
            markers_rate_hz: 10.0,
        }
    }
}

/// The settings checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Time between two ticks, within [`TICK_PERIOD_S`].
    pub tick_period: Duration,
    /// Tick limit of a run whose goal gives 0 (0 = none).
    pub max_ticks: u64,
    /// An arm position older than this is stale.
    pub position_timeout: Duration,
    /// Observations older than this are dropped.
    pub observation_timeout: Duration,
    /// Trajectory verification tolerance on every axis [mm].
    pub verify_tolerance_mm: f64,
    /// Metres per instructions unit, within [`M_PER_UNIT`].
    pub m_per_unit: f64,
    /// Where targets go.
    pub command_mode: CommandMode,
    /// Time between two `brain/markers` arrays; `None` = off.
    pub markers_period: Option<Duration>,
}

fn within(
    name: &'static str,
    v: f64,
    range: &RangeInclusive<f64>,
    unit: &str,
) -> Result<f64, ConfigError> {
    if v.is_finite() && range.contains(&v) {
        Ok(v)
    } else {
        Err(ConfigError::new(
            name,
            format!(
                "must be in {}..={} [{unit}], got {v}",
                range.start(),
                range.end()
            ),
        ))
    }
}

fn seconds(
    name: &'static str,
    v: f64,
    range: &RangeInclusive<f64>,
) -> Result<Duration, ConfigError> {
    within(name, v, range, "s").map(Duration::from_secs_f64)
}

impl RawConfig {
    /// Checks every value against its range.
    ///
    /// # Errors
    /// The first setting out of range, named, with its range and value.
    pub fn check(&self) -> Result<Config, ConfigError> {
        let rate = within(
            "markers_rate_hz",
            self.markers_rate_hz,
            &MARKERS_RATE_HZ,
            "Hz",
        )?;
        Ok(Config {
            tick_period: seconds("tick_period_s", self.tick_period_s, &TICK_PERIOD_S)?,
            max_ticks: u64::try_from(self.max_ticks).map_err(|_| {
                ConfigError::new("max_ticks", format!("must be >= 0, got {}", self.max_ticks))
            })?,
            position_timeout: seconds("position_timeout_s", self.position_timeout_s, &TIMEOUT_S)?,
            observation_timeout: seconds(
                "observation_timeout_s",
                self.observation_timeout_s,
                &TIMEOUT_S,
            )?,
            verify_tolerance_mm: within(
                "verify_tolerance_mm",
                self.verify_tolerance_mm,
                &VERIFY_TOLERANCE_MM,
                "mm",
            )?,
            m_per_unit: within("m_per_unit", self.m_per_unit, &M_PER_UNIT, "m/unit")?,
            command_mode: self
                .command_mode
                .parse()
                .map_err(|e: UnknownMode| ConfigError::new("command_mode", e.to_string()))?,
            markers_period: (rate > 0.0).then(|| Duration::from_secs_f64(1.0 / rate)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass() {
        let c = RawConfig::default().check().unwrap();
        assert_eq!(c.tick_period, Duration::from_secs(10));
        assert_eq!(c.command_mode, CommandMode::MoveTo);
        assert_eq!(c.markers_period, Some(Duration::from_millis(100)));
    }

    #[test]
    fn a_tiny_tick_period_is_refused_with_a_reason() {
        let raw = RawConfig {
            tick_period_s: 1e-12,
            ..RawConfig::default()
        };
        let e = raw.check().unwrap_err();
        assert_eq!(e.name, "tick_period_s");
        assert_eq!(
            e.to_string(),
            "tick_period_s must be in 0.01..=3600 [s], got 0.000000000001"
        );
    }

    #[test]
    fn every_period_timeout_and_rate_is_bounded() {
        type Set = fn(&mut RawConfig, f64);
        let fields: [(&str, Set); 6] = [
            ("tick_period_s", |r, v| r.tick_period_s = v),
            ("position_timeout_s", |r, v| r.position_timeout_s = v),
            ("observation_timeout_s", |r, v| r.observation_timeout_s = v),
            ("markers_rate_hz", |r, v| r.markers_rate_hz = v),
            ("verify_tolerance_mm", |r, v| r.verify_tolerance_mm = v),
            ("m_per_unit", |r, v| r.m_per_unit = v),
        ];
        for (name, set) in fields {
            for bad in [-1.0, 1e12, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut raw = RawConfig::default();
                set(&mut raw, bad);
                assert_eq!(raw.check().unwrap_err().name, name, "{name} = {bad}");
            }
        }
        let raw = RawConfig {
            position_timeout_s: 0.0,
            ..RawConfig::default()
        };
        assert_eq!(raw.check().unwrap_err().name, "position_timeout_s");
        let raw = RawConfig {
            markers_rate_hz: 0.0,
            ..RawConfig::default()
        };
        assert_eq!(raw.check().unwrap().markers_period, None);
    }

    #[test]
    fn counts_and_modes_are_checked() {
        let raw = RawConfig {
            max_ticks: -1,
            ..RawConfig::default()
        };
        assert_eq!(raw.check().unwrap_err().name, "max_ticks");
        let raw = RawConfig {
            command_mode: "MoveTo".into(),
            ..RawConfig::default()
        };
        let e = raw.check().unwrap_err();
        assert_eq!(e.name, "command_mode");
        assert!(e.reason.contains("\"move_to\" or \"topic\""), "{e}");
        assert_eq!("topic".parse(), Ok(CommandMode::Topic));
    }
}
