//! The node's ROS parameters ([`BrainParams`]), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows: r2r 0.9.7 has no
//! range fields, so the range is written in the description), and their conversion into
//! the node's [`Settings`]. The whole set is checked by [`crate::config::RawConfig::check`]
//! (and the file rules) at start and on every `ros2 param set` ([`rules`]): a refused
//! value gets the reason and leaves nothing changed; a start-only parameter says so.
//!
//! When a change takes effect (also in README.md):
//! - start only: `command_mode`, `markers_rate_hz`, `autostart` ([`START_ONLY`]);
//! - the next run (the next `RunTask` goal): `instructions_file`, `tick_period_s`,
//!   `max_ticks`, `position_timeout_s`, `observation_timeout_s`, `verify_tolerance_mm`,
//!   `m_per_unit`, `allowed_dirs`, `max_file_bytes` (a run keeps the settings it started
//!   with; `brain/markers` follows the live `observation_timeout_s` and `m_per_unit`).
use node_glue::params::Rules;
use node_glue::r2r::RosParams;

use super::{Scale, Settings};
use crate::config::{Config, RawConfig};

/// Parameters read only at start: `ros2 param set` refuses them, saying so.
pub(crate) const START_ONLY: &[&str] = &["command_mode", "markers_rate_hz", "autostart"];

/// ROS parameters: flat names with units; defaults = [`RawConfig::default`].
#[derive(RosParams, Clone, Debug)]
pub(crate) struct BrainParams {
    /// instructions.json (or English .txt) run by RunTask goals that name no task, and by autostart; "" = goals must bring their task; loaded at start (a bad file stops the node). Next run
    pub(crate) instructions_file: String,
    /// Time between two ticks [s], 0.01..=3600 (10 s in the original lab set-up). Next run
    tick_period_s: f64,
    /// Run instructions_file at start, without a RunTask goal. Start only
    pub(crate) autostart: bool,
    /// Tick limit of a run whose goal gives 0, and of the autostart run, 0..=2^63-1 (0 = none). Next run
    max_ticks: i64,
    /// An arm position older than this is stale: actions needing the arm pause [s], 0.01..=3600. Next run
    position_timeout_s: f64,
    /// Observations older than this are dropped [s], 0.01..=3600. Next run (markers: at once)
    observation_timeout_s: f64,
    /// Trajectory verification tolerance on every axis [mm, instructions units], 0..=10000. Next run
    verify_tolerance_mm: f64,
    /// Metres per instructions unit, 1e-6..=1e3 (instructions.json is in mm: 0.001). Next run (markers: at once)
    m_per_unit: f64,
    /// Where targets go: "move_to" (MoveTo goals) or "topic" (legacy /arm/target). Start only
    command_mode: String,
    /// brain/markers (observations, target, variables, actions for rviz) publications per second [Hz], 0..=100; 0 = off. Start only
    markers_rate_hz: f64,
    /// Folders task files (a goal's task_file, instructions_file) may be read from, symlinks and .. resolved; [] = any folder. Next run
    allowed_dirs: node_glue::files::Dirs,
    /// Largest task file, and largest inline task_json / task_english [bytes], 1..=67108864 (64 MiB). Next run
    max_file_bytes: i64,
}

impl Default for BrainParams {
    fn default() -> Self {
        let d = RawConfig::default();
        BrainParams {
            instructions_file: String::new(),
            tick_period_s: d.tick_period_s,
            autostart: false,
            max_ticks: d.max_ticks,
            position_timeout_s: d.position_timeout_s,
            observation_timeout_s: d.observation_timeout_s,
            verify_tolerance_mm: d.verify_tolerance_mm,
            m_per_unit: d.m_per_unit,
            command_mode: d.command_mode,
            markers_rate_hz: d.markers_rate_hz,
            allowed_dirs: node_glue::files::Dirs::default(),
            max_file_bytes: node_glue::files::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

impl BrainParams {
    /// The values as the library's config, unchecked.
    fn raw(&self) -> RawConfig {
        RawConfig {
            tick_period_s: self.tick_period_s,
            max_ticks: self.max_ticks,
            position_timeout_s: self.position_timeout_s,
            observation_timeout_s: self.observation_timeout_s,
            verify_tolerance_mm: self.verify_tolerance_mm,
            m_per_unit: self.m_per_unit,
            command_mode: self.command_mode.clone(),
            markers_rate_hz: self.markers_rate_hz,
        }
    }

    /// The checked config; the error names the parameter, its range and the value.
    pub(crate) fn config(&self) -> Result<Config, String> {
        self.raw().check().map_err(|e| e.to_string())
    }

    /// The settings of the next run (checked).
    pub(crate) fn settings(&self) -> Result<Settings, String> {
        let c = self.config()?;
        Ok(Settings {
            instructions_file: self.instructions_file.clone(),
            tick_period: c.tick_period,
            max_ticks: c.max_ticks,
            position_timeout: c.position_timeout,
            observation_timeout: c.observation_timeout,
            verify_tolerance_mm: c.verify_tolerance_mm,
            scale: Scale::new(c.m_per_unit)
                .ok_or_else(|| format!("m_per_unit must be > 0, got {}", c.m_per_unit))?,
            files: node_glue::files::FileRules::new(&self.allowed_dirs, self.max_file_bytes)?,
        })
    }
}

/// The check run at start and on every `ros2 param set`, and the start-only list.
pub(crate) fn rules() -> Rules<BrainParams> {
    Rules {
        check: |p: &BrainParams| p.settings().map(|_| ()),
        start_only: START_ONLY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_bad_periods_are_refused() {
        assert!((rules().check)(&BrainParams::default()).is_ok());
        let p = BrainParams {
            tick_period_s: 1e-12,
            ..BrainParams::default()
        };
        let e = (rules().check)(&p).unwrap_err();
        assert!(
            e.starts_with("tick_period_s must be in 0.01..=3600 [s]"),
            "{e}"
        );
        let p = BrainParams {
            observation_timeout_s: f64::INFINITY,
            ..BrainParams::default()
        };
        assert!((rules().check)(&p)
            .unwrap_err()
            .starts_with("observation_timeout_s"));
    }
}
