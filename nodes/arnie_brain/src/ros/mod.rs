//! The ROS 2 side of the brain node (feature `ros`): the only module that uses r2r.
//!
//! Layout:
//! - [`inputs`]: the latest `/arm/position` and `/eyes/observations`, with the instant
//!   each arrived (stale ones are not handed to the brain).
//! - [`mover`]: [`Mover`], where targets go: `MoveTo` goals on `/trajectory/move_to`
//!   (default) or the legacy `/arm/target` topic.
//! - [`server`]: [`BrainServer`], the `/brain/run_task` action server and the tick loop of
//!   a run; publishes `/brain/state` every tick.
//! - [`state`]: [`crate::Snapshot`] → `arnie_interfaces/BrainState`.
//! - [`counters`]: the node's `/diagnostics` counters.
//! - [`markers`]: `brain/markers`, what the brain sees and wants, for rviz.
//!
//! Units: the library works in the units of instructions.json (mm, legacy frame); topics
//! are in metres, frame `world`. [`Scale`] converts, once, at this edge.

pub mod counters;
pub mod inputs;
pub mod markers;
pub mod mover;
pub mod server;
pub mod state;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use nalgebra::Point3;

pub use counters::Counters;
pub use inputs::Inputs;
pub use mover::Mover;
pub use server::BrainServer;

/// Metres per instructions unit (`m_per_unit`; 0.001 for the millimetres of
/// instructions.json).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    m_per_unit: f64,
}

impl Scale {
    /// `None` unless `m_per_unit` is finite and > 0.
    pub fn new(m_per_unit: f64) -> Option<Self> {
        (m_per_unit.is_finite() && m_per_unit > 0.0).then_some(Scale { m_per_unit })
    }

    /// Metres per instructions unit.
    pub fn m_per_unit(&self) -> f64 {
        self.m_per_unit
    }

    /// Metres → instructions units.
    pub fn to_units(&self, p_m: Point3<f64>) -> Point3<f64> {
        p_m / self.m_per_unit
    }

    /// Instructions units → metres.
    pub fn to_m(&self, p_units: Point3<f64>) -> Point3<f64> {
        p_units * self.m_per_unit
    }
}

/// How targets reach the arm (parameter `command_mode`, read at start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandMode {
    /// `"move_to"`: one `MoveTo` goal per new target on `/trajectory/move_to`.
    MoveTo,
    /// `"topic"`: `geometry_msgs/PointStamped` on the legacy `/arm/target`.
    Topic,
}

impl std::str::FromStr for CommandMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "move_to" => Ok(CommandMode::MoveTo),
            "topic" => Ok(CommandMode::Topic),
            other => Err(format!(
                "command_mode must be \"move_to\" or \"topic\", got {other:?}"
            )),
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

/// The node's settings for one run, checked (the binary converts its parameters).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Run by goals that name no task, and by `autostart`; may be empty.
    pub instructions_file: String,
    /// Time between two ticks.
    pub tick_period: Duration,
    /// Tick limit for goals that give `max_ticks = 0` (0 = none).
    pub max_ticks: u64,
    /// An arm position older than this is stale (the brain pauses).
    pub position_timeout: Duration,
    /// Observations older than this are dropped.
    pub observation_timeout: Duration,
    /// Trajectory verification tolerance per axis, instructions units.
    pub verify_tolerance_mm: f64,
    /// Metres per instructions unit.
    pub scale: Scale,
    /// Where task files may be read from and how large they (and inline tasks) may be
    /// (`allowed_dirs`, `max_file_bytes`).
    pub files: node_glue::files::FileRules,
}

/// Reads the current settings (the binary reads its live parameters), so `ros2 param
/// set` applies to the next run.
pub type SettingsFn = Arc<dyn Fn() -> Result<Settings, String> + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_round_trips_and_refuses_nonsense() {
        let s = Scale::new(0.001).unwrap();
        assert_eq!(
            s.to_m(Point3::new(-95.0, 30.0, 45.0)),
            Point3::new(-0.095, 0.03, 0.045)
        );
        let p = Point3::new(0.08, 0.06, 0.04);
        assert!((s.to_units(p) - Point3::new(80.0, 60.0, 40.0)).norm() < 1e-9);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Scale::new(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn command_modes_parse() {
        assert_eq!("move_to".parse(), Ok(CommandMode::MoveTo));
        assert_eq!("topic".parse(), Ok(CommandMode::Topic));
        assert!("MoveTo".parse::<CommandMode>().is_err());
    }
}
