//! The node's ROS parameters ([`SimParams`]), checked at start and on every
//! `ros2 param set` ([`RULES`]) through the library's [`RawSettings::check`].
//!
//! Policy: `truth_rate_hz` is live (the next `/sim/truth` tick uses it); every other
//! parameter shapes the sockets, the world or the timers and is read only at start
//! (setting it later is refused, saying so). The range in each description is the
//! library's constant ([`crate::settings`]); a test holds them together.
use node_glue::params::Rules;
use node_glue::r2r::RosParams;

use crate::settings::{RawSettings, Settings};
use crate::SimError;

/// ROS parameters: flat names with units.
#[derive(RosParams, Debug, Clone)]
pub(crate) struct SimParams {
    /// Spine config JSON the sim mirrors (ports, formats, transforms; hosts become 127.0.0.1); start only
    pub spine_config: String,
    /// Spine output that sends arm targets: the sim arm listens at its host:port; start only
    pub arm_output: String,
    /// Spine input that receives encoder positions: the sim arm sends there; start only
    pub arm_input: String,
    /// Spine input that receives eye observations: the sim eyes send there; start only
    pub eyes_input: String,
    /// Scenario JSON (positions, limits, obstacles, timings); empty = built-in defaults; start only
    pub scenario_file: String,
    /// Ground-truth JSON Lines file (a line per truth publication and per event); empty = off; start only
    pub truth_log: String,
    /// Added to every port of the spine config, in [-65535, 65535]; start only
    pub port_offset: i64,
    /// Physics step [ms], in [1, 1000]; start only
    pub step_ms: i64,
    /// /sim/truth publications per second [Hz], in [0.01, 1000]; live
    pub truth_rate_hz: f64,
    /// sim/markers publications per second [Hz], in [0.01, 100], 0 = off; start only
    pub markers_rate_hz: f64,
}

impl Default for SimParams {
    fn default() -> Self {
        let d = RawSettings::default();
        SimParams {
            spine_config: "params/spine_sim.json".into(),
            arm_output: "arm".into(),
            arm_input: "arm".into(),
            eyes_input: "eyes".into(),
            scenario_file: "params/scenario_flame.json".into(),
            truth_log: String::new(),
            port_offset: d.port_offset,
            step_ms: d.step_ms,
            truth_rate_hz: d.truth_rate_hz,
            markers_rate_hz: d.markers_rate_hz,
        }
    }
}

/// Every parameter but `truth_rate_hz` is read only at start.
pub(crate) const START_ONLY: &[&str] = &[
    "spine_config",
    "arm_output",
    "arm_input",
    "eyes_input",
    "scenario_file",
    "truth_log",
    "port_offset",
    "step_ms",
    "markers_rate_hz",
];

/// The rules given to [`node_glue::App::parameters_checked`].
pub(crate) const RULES: Rules<SimParams> = Rules {
    check: |p: &SimParams| p.settings().map(|_| ()).map_err(|e| e.to_string()),
    start_only: START_ONLY,
};

impl SimParams {
    /// The checked numeric settings (and the names that must not be empty).
    pub(crate) fn settings(&self) -> Result<Settings, SimError> {
        for (field, v) in [
            ("spine_config", &self.spine_config),
            ("arm_output", &self.arm_output),
            ("arm_input", &self.arm_input),
            ("eyes_input", &self.eyes_input),
        ] {
            if v.is_empty() {
                return Err(SimError::Json {
                    field: field.into(),
                    message: "must not be empty".into(),
                });
            }
        }
        RawSettings {
            port_offset: self.port_offset,
            step_ms: self.step_ms,
            truth_rate_hz: self.truth_rate_hz,
            markers_rate_hz: self.markers_rate_hz,
        }
        .check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{MARKERS_RATE_HZ, PORT_OFFSET, STEP_MS, TRUTH_RATE_HZ};
    use node_glue::r2r::indexmap::IndexMap;

    #[test]
    fn the_defaults_pass_and_a_picosecond_period_is_refused() {
        assert!((RULES.check)(&SimParams::default()).is_ok());
        let bad = SimParams {
            truth_rate_hz: 1e12,
            ..SimParams::default()
        };
        let e = (RULES.check)(&bad).unwrap_err();
        assert!(e.contains("truth_rate_hz: must be in [0.01, 1000]"), "{e}");
        let empty = SimParams {
            spine_config: String::new(),
            ..SimParams::default()
        };
        assert!((RULES.check)(&empty)
            .unwrap_err()
            .starts_with("spine_config"));
    }

    #[test]
    fn every_description_gives_the_range_and_policy_of_the_library() {
        let mut params = IndexMap::new();
        SimParams::default()
            .register_parameters("", None, &mut params)
            .unwrap();
        assert_eq!(params.len(), 10);
        for (name, range) in [
            ("port_offset", PORT_OFFSET),
            ("step_ms", STEP_MS),
            ("truth_rate_hz", TRUTH_RATE_HZ),
            ("markers_rate_hz", MARKERS_RATE_HZ),
        ] {
            let d = params[name].description;
            assert!(d.contains(&format!("in {range}")), "{name}: {d}");
        }
        for (name, p) in &params {
            let start_only = START_ONLY.contains(&name.as_str());
            let says = if start_only { "; start only" } else { "; live" };
            assert!(p.description.ends_with(says), "{name}: {}", p.description);
        }
    }
}
