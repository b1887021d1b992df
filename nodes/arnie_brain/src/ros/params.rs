//! The node's ROS parameters ([`BrainParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows, and the README's table), and their conversion into the node's [`Settings`].
//! Ranges are checked at start and on every `ros2 param set`, then the whole set by
//! [`crate::config::RawConfig::check`] (and the file rules) ([`rules`]): a refused value
//! gets the reason and leaves nothing changed; a start-only parameter (`command_mode`,
//! `markers_rate_hz`, `autostart`) is read only after start.
//!
//! A run keeps the settings it started with: a change of the other parameters applies to
//! the next run (the next `RunTask` goal); `brain/markers` follows the live
//! `observation_timeout_s` and `m_per_unit`.
use node_glue::files::{DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_LIMIT};
use node_glue::params::Rules;

use super::{Scale, Settings};
use crate::config::{
    Config, ConfigError, RawConfig, MARKERS_RATE_HZ, M_PER_UNIT, TICK_PERIOD_S, TIMEOUT_S,
    VERIFY_TOLERANCE_MM,
};

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units, each declared once (type, default, range,
    /// when a change takes effect); defaults = [`RawConfig::default`].
    pub(crate) struct BrainParams(d = RawConfig::default()) {
        /// instructions.json (or English .txt) run by RunTask goals that name no task, and by autostart; "" = goals must bring their task; checked at start (a bad file stops the node, exit 2, with the loader's error)
        pub(crate) instructions_file: String = String::new(), any(), "next run";
        /// Time between two ticks [s] (10 s in the original lab set-up; BrainJS's default was 2.5)
        tick_period_s: f64 = d.tick_period_s, float(*TICK_PERIOD_S.start(), *TICK_PERIOD_S.end()), "next run";
        /// Run instructions_file at start, without a RunTask goal
        pub(crate) autostart: bool = false, any(), "start only";
        /// Tick limit of a run whose goal gives 0, and of the autostart run (0 = none)
        max_ticks: i64 = d.max_ticks, int(0, i64::MAX), "next run";
        /// An arm position older than this is stale: actions needing the arm pause [s]
        position_timeout_s: f64 = d.position_timeout_s, float(*TIMEOUT_S.start(), *TIMEOUT_S.end()), "next run";
        /// Observations older than this are dropped [s]
        observation_timeout_s: f64 = d.observation_timeout_s, float(*TIMEOUT_S.start(), *TIMEOUT_S.end()), "next run (brain/markers: at once)";
        /// Trajectory verification tolerance on every axis [mm, instructions units]
        verify_tolerance_mm: f64 = d.verify_tolerance_mm, float(*VERIFY_TOLERANCE_MM.start(), *VERIFY_TOLERANCE_MM.end()), "next run";
        /// Metres per instructions unit (instructions.json is in mm: 0.001)
        m_per_unit: f64 = d.m_per_unit, float(*M_PER_UNIT.start(), *M_PER_UNIT.end()), "next run (brain/markers: at once)";
        /// Where targets go: "move_to" (MoveTo goals on /trajectory/move_to) or "topic" (legacy /arm/target)
        command_mode: String = d.command_mode, one_of(&["move_to", "topic"]), "start only";
        /// brain/markers (observations, target, variables, actions for rviz) publications per second [Hz]; 0 = off
        markers_rate_hz: f64 = d.markers_rate_hz, float(*MARKERS_RATE_HZ.start(), *MARKERS_RATE_HZ.end()), "start only";
        /// Folders task files (a goal's task_file, instructions_file) may be read from, real paths (.. and symlinks resolved); [] = any folder
        allowed_dirs: node_glue::files::Dirs = node_glue::files::Dirs::default(), any(), "next run";
        /// Largest task file, and largest inline task_json / task_english [bytes] (64 MiB at most)
        max_file_bytes: i64 = DEFAULT_MAX_FILE_BYTES, int(1, MAX_FILE_BYTES_LIMIT), "next run";
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
    pub(crate) fn config(&self) -> Result<Config, ConfigError> {
        self.raw().check()
    }

    /// The settings of the next run (checked).
    pub(crate) fn settings(&self) -> Result<Settings, ConfigError> {
        let c = self.config()?;
        Ok(Settings {
            instructions_file: self.instructions_file.clone(),
            tick_period: c.tick_period,
            max_ticks: c.max_ticks,
            position_timeout: c.position_timeout,
            observation_timeout: c.observation_timeout,
            verify_tolerance_mm: c.verify_tolerance_mm,
            scale: Scale::new(c.m_per_unit).ok_or_else(|| {
                ConfigError::new("m_per_unit", format!("must be > 0, got {}", c.m_per_unit))
            })?,
            files: node_glue::files::FileRules::new(&self.allowed_dirs, self.max_file_bytes)?,
        })
    }
}

/// The whole-set check run at start and on every `ros2 param set` (after the ranges).
pub(crate) fn rules() -> Rules<BrainParams> {
    Rules {
        check: |p: &BrainParams| p.settings().map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<BrainParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn the_start_only_parameters_are_read_only() {
        let read_only: Vec<_> = BrainParams::declarations()
            .into_iter()
            .filter(|d| d.read_only())
            .map(|d| d.name)
            .collect();
        assert_eq!(read_only, ["autostart", "command_mode", "markers_rate_hz"]);
    }

    #[test]
    fn defaults_pass_and_bad_periods_are_refused() {
        assert!((rules().check)(&BrainParams::default()).is_ok());
        let p = BrainParams {
            tick_period_s: 1e-12,
            ..BrainParams::default()
        };
        let e = (rules().check)(&p).unwrap_err().to_string();
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
            .to_string()
            .starts_with("observation_timeout_s"));
    }
}
