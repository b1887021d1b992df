//! The node's ROS parameters ([`StrategyParams`]), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows: r2r 0.9.7 has no
//! range fields, so the range is written in the description), and their conversion into
//! the node's [`Settings`]. The whole set is checked at start and on every
//! `ros2 param set` ([`rules`]): a refused value gets the reason and leaves nothing
//! changed; a start-only parameter says so.
//!
//! When a change takes effect (also in the crate's README.md):
//! - start only: `wait_topics`, `motion`, `diagnostics_period_ms` ([`START_ONLY`]);
//! - the next run (the next `RunStrategy` goal): every other parameter (a run keeps the
//!   settings it started with).
use std::time::Duration;

use node_glue::params::Rules;
use node_glue::r2r::RosParams;

use super::{parse_wait_topics, Motion, Settings, WaitTopic};

/// Parameters read only at start: `ros2 param set` refuses them, saying so.
pub(crate) const START_ONLY: &[&str] = &["wait_topics", "motion", "diagnostics_period_ms"];

/// The longest wait or period a parameter may give [ms] (10 min).
const MAX_MS: i64 = 600_000;
/// The longest match a parameter may give [s] (1 h; a Eurobot match is 90 s).
const MAX_MATCH_S: f64 = 3600.0;

/// ROS parameters: flat names with units.
#[derive(RosParams, Clone, Debug)]
pub(crate) struct StrategyParams {
    /// Strategy file (JSON) run when a RunStrategy goal names none; "" = goals must name one. Next run
    pub(crate) strategy_file: String,
    /// Match time when a goal gives 0 [s], (0, 3600]. Next run
    match_time_s: f64,
    /// How long a step waits for the MoveTo/NavigateTo server or the comms service to appear [ms], 0..=600000. Next run
    server_wait_ms: i64,
    /// How long to wait for the planner before scoring and moving by straight lines [ms], 0..=600000. Next run
    planner_wait_ms: i64,
    /// Longest wait for a PlanPath or SendPacket answer (plus the packet's reply timeout) and for a motion goal to be accepted [ms], 1..=600000. Next run
    call_timeout_ms: i64,
    /// RunStrategy feedback is sent on every event and at least this often [ms], 10..=600000. Next run
    feedback_period_ms: i64,
    /// Folders strategy files may be read from, symlinks and .. resolved; [] = any folder. Next run
    allowed_dirs: node_glue::files::Dirs,
    /// Largest strategy file [bytes], 1..=67108864 (64 MiB). Next run
    max_file_bytes: i64,
    /// Topics wait_for steps may watch: "topic=pkg/msg/Type;...". Start only
    wait_topics: String,
    /// Period of /diagnostics [ms], 10..=600000. Start only
    diagnostics_period_ms: i64,
    /// How moves are made: "move_to" (the arm's MoveTo, position from arm/position) or "navigate_to" (the base's NavigateTo on base/navigate_to, position from base/pose). Start only
    motion: String,
}

impl Default for StrategyParams {
    fn default() -> Self {
        let s = Settings::default();
        StrategyParams {
            strategy_file: s.strategy_file,
            match_time_s: s.match_time.as_secs_f64(),
            server_wait_ms: millis_of(s.server_wait),
            planner_wait_ms: millis_of(s.planner_wait),
            call_timeout_ms: millis_of(s.call_timeout),
            feedback_period_ms: millis_of(s.feedback_period),
            allowed_dirs: node_glue::files::Dirs::default(),
            max_file_bytes: node_glue::files::DEFAULT_MAX_FILE_BYTES,
            wait_topics: "comms/rx=arnie_interfaces/msg/Packet;eyes/observations=arnie_interfaces/msg/Coordinates".into(),
            diagnostics_period_ms: 1000,
            motion: "move_to".into(),
        }
    }
}

fn millis_of(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// `v` as a duration when it is in `min..=MAX_MS`; the error names the parameter, the
/// range and the value.
fn millis(name: &str, v: i64, min: i64) -> Result<Duration, String> {
    if !(min..=MAX_MS).contains(&v) {
        return Err(format!("{name} must be in {min}..={MAX_MS} [ms], got {v}"));
    }
    Ok(Duration::from_millis(v.unsigned_abs()))
}

/// What only the start reads, checked.
#[derive(Debug)]
pub(crate) struct Start {
    /// The topics `wait_for` steps may watch.
    pub(crate) wait_topics: Vec<WaitTopic>,
    /// How moves are made.
    pub(crate) motion: Motion,
    /// Period of `/diagnostics`.
    pub(crate) diagnostics_period: Duration,
}

impl StrategyParams {
    /// The settings of the next run (checked).
    pub(crate) fn settings(&self) -> Result<Settings, String> {
        let m = self.match_time_s;
        if !(m.is_finite() && m > 0.0 && m <= MAX_MATCH_S) {
            return Err(format!(
                "match_time_s must be in (0, {MAX_MATCH_S}] [s], got {m}"
            ));
        }
        Ok(Settings {
            strategy_file: self.strategy_file.clone(),
            match_time: Duration::from_secs_f64(m),
            server_wait: millis("server_wait_ms", self.server_wait_ms, 0)?,
            planner_wait: millis("planner_wait_ms", self.planner_wait_ms, 0)?,
            call_timeout: millis("call_timeout_ms", self.call_timeout_ms, 1)?,
            feedback_period: millis("feedback_period_ms", self.feedback_period_ms, 10)?,
            files: node_glue::files::FileRules::new(&self.allowed_dirs, self.max_file_bytes)?,
        })
    }

    /// The start-only values (checked).
    pub(crate) fn start(&self) -> Result<Start, String> {
        Ok(Start {
            wait_topics: parse_wait_topics(&self.wait_topics).map_err(|e| e.to_string())?,
            motion: Motion::parse(&self.motion)?,
            diagnostics_period: millis("diagnostics_period_ms", self.diagnostics_period_ms, 10)?,
        })
    }
}

/// The check run at start and on every `ros2 param set`, and the start-only list.
pub(crate) fn rules() -> Rules<StrategyParams> {
    Rules {
        check: |p: &StrategyParams| p.settings().and(p.start()).map(|_| ()),
        start_only: START_ONLY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(p: StrategyParams) -> Result<(), String> {
        (rules().check)(&p)
    }

    #[test]
    fn defaults_pass_and_match_the_library_settings() {
        let p = StrategyParams::default();
        assert!(check(p.clone()).is_ok());
        assert_eq!(p.settings().unwrap(), Settings::default());
        assert_eq!(p.start().unwrap().motion, Motion::MoveTo);
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_reason() {
        let d = StrategyParams::default;
        let cases = [
            (
                StrategyParams {
                    match_time_s: f64::NAN,
                    ..d()
                },
                "match_time_s must be in (0, 3600] [s], got NaN",
            ),
            (
                StrategyParams {
                    call_timeout_ms: 0,
                    ..d()
                },
                "call_timeout_ms must be in 1..=600000 [ms], got 0",
            ),
            (
                StrategyParams {
                    feedback_period_ms: 1,
                    ..d()
                },
                "feedback_period_ms must be in 10..=600000 [ms], got 1",
            ),
            (
                StrategyParams {
                    server_wait_ms: i64::MAX,
                    ..d()
                },
                "server_wait_ms must be in 0..=600000 [ms]",
            ),
            (
                StrategyParams {
                    diagnostics_period_ms: -5,
                    ..d()
                },
                "diagnostics_period_ms must be in 10..=600000 [ms], got -5",
            ),
            (
                StrategyParams {
                    motion: "fly".into(),
                    ..d()
                },
                "motion",
            ),
            (
                StrategyParams {
                    wait_topics: "/x".into(),
                    ..d()
                },
                "wait_topics: \"/x\" is not topic=type",
            ),
        ];
        for (p, reason) in cases {
            let e = check(p).unwrap_err();
            assert!(e.starts_with(reason), "{e} / {reason}");
        }
    }
}
