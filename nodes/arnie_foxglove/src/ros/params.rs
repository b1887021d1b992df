//! The node's ROS parameters ([`FoxgloveParams`]), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows: r2r 0.9.7 has no
//! range fields, so the range is written in the description), and their conversion into
//! the library's [`Config`]. The whole set is checked at start ([`rules`]): a bad value
//! stops the node with the reason (exit 2).
//!
//! When a change takes effect (also in the crate's README.md): **start only**, every
//! parameter ([`START_ONLY`]). The server is bound and the allowlists compiled once; a
//! `ros2 param set` is refused, saying so.
use std::time::Duration;

use node_glue::params::Rules;
use node_glue::r2r::RosParams;

use crate::config::{Config, Settings};

/// Every parameter is read only at start.
pub(crate) const START_ONLY: &[&str] = &[
    "address",
    "port",
    "topic_allow",
    "topic_deny",
    "publish_allow",
    "latched_depth",
    "storm_ops_per_s",
    "discovery_ms",
];

/// The graph polling period's range [ms].
const DISCOVERY_MS: std::ops::RangeInclusive<i64> = 10..=60_000;

/// ROS parameters: flat names with units.
#[derive(RosParams, Debug, Clone)]
pub(crate) struct FoxgloveParams {
    /// Address to bind: 127.0.0.1 = this machine only; 0.0.0.0 = every interface (anyone on the network sees every topic and may set parameters). Start only
    address: String,
    /// TCP port of the WebSocket server, 0..=65535 (0 = any free port). Start only
    port: i64,
    /// Regex of the topics advertised (whole name; empty = all). Start only
    topic_allow: String,
    /// Regex of the topics never advertised (whole name; empty = none). Start only
    topic_deny: String,
    /// Regex of the topics a client may publish on (whole name; empty = none). Start only
    publish_allow: String,
    /// Messages kept per latched topic for clients that subscribe late, 1..=1000. Start only
    latched_depth: i64,
    /// Subscribe/unsubscribe operations per client and second counted as a storm above this, >= 1. Start only
    storm_ops_per_s: i64,
    /// Graph polling period for new and gone topics [ms], 10..=60000. Start only
    discovery_ms: i64,
}

impl Default for FoxgloveParams {
    fn default() -> Self {
        let s = Settings::default();
        FoxgloveParams {
            address: s.address,
            port: s.port,
            topic_allow: s.topic_allow,
            topic_deny: s.topic_deny,
            publish_allow: s.publish_allow,
            latched_depth: s.latched_depth,
            storm_ops_per_s: s.storm_ops_per_s,
            discovery_ms: 500,
        }
    }
}

impl FoxgloveParams {
    /// The library's raw settings.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            address: self.address.clone(),
            port: self.port,
            topic_allow: self.topic_allow.clone(),
            topic_deny: self.topic_deny.clone(),
            publish_allow: self.publish_allow.clone(),
            latched_depth: self.latched_depth,
            storm_ops_per_s: self.storm_ops_per_s,
        }
    }

    /// The checked config.
    pub(crate) fn config(&self) -> Result<Config, String> {
        Config::new(&self.settings()).map_err(|e| e.to_string())
    }

    /// The graph polling period (checked).
    pub(crate) fn discovery(&self) -> Result<Duration, String> {
        let v = self.discovery_ms;
        if !DISCOVERY_MS.contains(&v) {
            return Err(format!(
                "discovery_ms must be in {}..={} [ms], got {v}",
                DISCOVERY_MS.start(),
                DISCOVERY_MS.end()
            ));
        }
        Ok(Duration::from_millis(v.unsigned_abs()))
    }
}

/// The check run at start (and on a `ros2 param set`, which start-only refuses first).
pub(crate) fn rules() -> Rules<FoxgloveParams> {
    Rules {
        check: |p: &FoxgloveParams| p.config().and(p.discovery()).map(|_| ()),
        start_only: START_ONLY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(p: FoxgloveParams) -> Result<(), String> {
        (rules().check)(&p)
    }

    #[test]
    fn defaults_pass_and_match_the_library_settings() {
        let p = FoxgloveParams::default();
        assert!(check(p.clone()).is_ok());
        assert_eq!(p.settings(), Settings::default());
        assert_eq!(p.discovery(), Ok(Duration::from_millis(500)));
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let d = FoxgloveParams::default;
        let cases = [
            (
                FoxgloveParams {
                    discovery_ms: 0,
                    ..d()
                },
                "discovery_ms must be in 10..=60000 [ms], got 0",
            ),
            (
                FoxgloveParams {
                    discovery_ms: i64::MAX,
                    ..d()
                },
                "discovery_ms must be in 10..=60000 [ms]",
            ),
            (
                FoxgloveParams {
                    port: 70_000,
                    ..d()
                },
                "port",
            ),
            (
                FoxgloveParams {
                    topic_deny: "(".into(),
                    ..d()
                },
                "topic_deny",
            ),
        ];
        for (p, want) in cases {
            let err = check(p).unwrap_err();
            assert!(err.contains(want), "{err} does not contain {want}");
        }
    }

    #[test]
    fn every_parameter_is_start_only() {
        let mut listed = START_ONLY.to_vec();
        listed.sort_unstable();
        assert_eq!(
            node_glue::params::declared_names(FoxgloveParams::default()),
            listed
        );
    }
}
