//! The ROS 2 side of the brain node (feature `ros`): the only module that uses r2r. The
//! binary only calls [`run`].
//!
//! Layout:
//! - [`node`]: [`setup`] (every entity and task, created before the node spins) and
//!   [`run`]; `params`: the node's ROS parameters, declared once, checked at start and on
//!   every `ros2 param set` (with [`crate::config`]), and when a change takes effect.
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
pub mod node;
mod params;
pub mod server;
pub mod state;

use std::sync::Arc;
use std::time::Duration;

use nalgebra::Point3;

pub use crate::config::CommandMode;
pub use counters::Counters;
pub use inputs::Inputs;
pub use mover::Mover;
pub use node::{run, setup, NODE};
pub use server::BrainServer;

/// Metres per instructions unit (`m_per_unit`; 0.001 for the millimetres of
/// instructions.json): the one length scale every node shares.
pub use arnie_constants::units::Scale;

/// Instructions units → metres.
pub(crate) fn to_m(scale: Scale, p_units: Point3<f64>) -> Point3<f64> {
    Point3::from(scale.point_to_m(p_units.into()))
}

/// Metres → instructions units.
pub(crate) fn to_units(scale: Scale, p_m: Point3<f64>) -> Point3<f64> {
    Point3::from(scale.point_from_m(p_m.into()))
}

/// The node's settings for one run, checked (`params` converts the parameters).
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

/// Reads the current settings (the live parameters), so `ros2 param set` applies to
/// the next run.
pub type SettingsFn = Arc<dyn Fn() -> Result<Settings, String> + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_round_trips_and_refuses_nonsense() {
        let s = Scale::new(0.001).unwrap();
        assert_eq!(
            to_m(s, Point3::new(-95.0, 30.0, 45.0)),
            Point3::new(-0.095, 0.03, 0.045)
        );
        let p = Point3::new(0.08, 0.06, 0.04);
        assert!((to_units(s, p) - Point3::new(80.0, 60.0, 40.0)).norm() < 1e-9);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Scale::new(bad).is_none(), "{bad}");
        }
    }
}
