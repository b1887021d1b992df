//! The node's ROS parameters ([`SimParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows, and the README's table). Ranges are checked at start and on every
//! `ros2 param set`, then the whole set by the library's [`RawSettings::check`]
//! ([`RULES`]).
//!
//! Policy: `truth_rate_hz` is live (the next `/sim/truth` tick uses it); every other
//! parameter shapes the sockets, the world or the timers and is read only at start
//! (setting it later is refused, saying so). The declared ranges are the library's
//! constants ([`crate::settings`]); a test holds them together.
use node_glue::params::Rules;

use crate::settings::{RawSettings, Settings, PORT_OFFSET, STEP_MS, TRUTH_RATE_HZ};
use crate::SimError;

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units, each declared once (type, default, range,
    /// when a change takes effect); numeric defaults = [`RawSettings::default`].
    pub(crate) struct SimParams(d = RawSettings::default()) {
        /// Spine config JSON (original format) the sim mirrors: ports, formats, transforms; every host becomes 127.0.0.1 when loopback; must not be empty
        pub spine_config: String = "params/spine_sim.json".into(), any(), "start only";
        /// true: every host of the spine config becomes 127.0.0.1 (one machine); false: the config's own addresses (the sim on a host of a lab's network)
        pub loopback: bool = true, any(), "start only";
        /// Spine output that sends arm targets: the sim arm listens at its host:port; must not be empty
        pub arm_output: String = "arm".into(), any(), "start only";
        /// Spine input that receives encoder positions: the sim arm sends there (config host + port); must not be empty
        pub arm_input: String = "arm".into(), any(), "start only";
        /// Spine input that receives eye observations: the sim eyes send there; must not be empty
        pub eyes_input: String = "eyes".into(), any(), "start only";
        /// Scenario JSON (positions, limits, obstacles, timings); empty = built-in defaults (same flame layout)
        pub scenario_file: String = "params/scenario_flame.json".into(), any(), "start only";
        /// Ground-truth JSON Lines file (a line per truth publication and per event); empty = off; created at start (a bad path stops the node naming it)
        pub truth_log: String = String::new(), any(), "start only";
        /// Added to every port of the spine config (like the spine's loopback offset); must be 0 unless loopback
        pub port_offset: i64 = d.port_offset, int(PORT_OFFSET.min as i64, PORT_OFFSET.max as i64), "start only";
        /// Physics step [ms]
        pub step_ms: i64 = d.step_ms, int(STEP_MS.min as i64, STEP_MS.max as i64), "start only";
        /// /sim/truth publications per second [Hz] (a period of 1 ms to 100 s)
        pub truth_rate_hz: f64 = d.truth_rate_hz, float(TRUTH_RATE_HZ.min, TRUTH_RATE_HZ.max), "at once";
        /// sim/markers publications per second [Hz]; 0 = off, else at least 0.01
        pub markers_rate_hz: f64 = d.markers_rate_hz, float(0.0, crate::settings::MARKERS_RATE_HZ.max), "start only";
    }
}

/// The whole-set check given to [`node_glue::App::parameters_checked`] (after the ranges).
pub(crate) const RULES: Rules<SimParams> = Rules {
    check: |p: &SimParams| p.settings().map(|_| ()).map_err(Into::into),
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
        if !self.loopback && self.port_offset != 0 {
            return Err(SimError::Json {
                field: "port_offset".into(),
                message: format!("{} is only used with loopback:=true", self.port_offset),
            });
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
    use crate::settings::MARKERS_RATE_HZ;
    use node_glue::params::range::{float, int};
    use node_glue::params::Declared;

    #[test]
    fn the_defaults_pass_and_a_picosecond_period_is_refused() {
        assert!((RULES.check)(&SimParams::default()).is_ok());
        let bad = SimParams {
            truth_rate_hz: 1e12,
            ..SimParams::default()
        };
        let e = (RULES.check)(&bad).unwrap_err().to_string();
        assert!(e.contains("truth_rate_hz: must be in [0.01, 1000]"), "{e}");
        let empty = SimParams {
            spine_config: String::new(),
            ..SimParams::default()
        };
        assert!((RULES.check)(&empty)
            .unwrap_err()
            .to_string()
            .starts_with("spine_config"));
        let offset_off_loopback = SimParams {
            loopback: false,
            port_offset: 100,
            ..SimParams::default()
        };
        let e = (RULES.check)(&offset_off_loopback).unwrap_err().to_string();
        assert!(e.contains("only used with loopback:=true"), "{e}");
    }

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<SimParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn the_declared_ranges_and_policy_are_the_library_s() {
        let decls = SimParams::declarations();
        assert_eq!(decls.len(), 11);
        let range = |name: &str| {
            decls
                .iter()
                .find(|d| d.name == name)
                .map(|d| d.range.clone())
                .unwrap()
        };
        for (name, r) in [("port_offset", PORT_OFFSET), ("step_ms", STEP_MS)] {
            assert_eq!(range(name), int(r.min as i64, r.max as i64), "{name}");
        }
        assert_eq!(
            range("truth_rate_hz"),
            float(TRUTH_RATE_HZ.min, TRUTH_RATE_HZ.max)
        );
        // 0 (off) or MARKERS_RATE_HZ: the declaration covers both, the library the gap.
        assert_eq!(range("markers_rate_hz"), float(0.0, MARKERS_RATE_HZ.max));
        for d in &decls {
            assert_eq!(d.read_only(), d.name != "truth_rate_hz", "{}", d.name);
        }
    }
}
