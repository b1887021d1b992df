//! The node's ROS parameters ([`StrategyParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows, and the README's table), and their conversion into the node's [`Settings`].
//! Ranges are checked at start and on every `ros2 param set`, then the whole set
//! ([`rules`]): a refused value gets the reason and leaves nothing changed; a start-only
//! parameter (`wait_topics`, `diagnostics_period_ms`, `motion`) is read only after start.
//! The others apply to the next run (the next `RunStrategy` goal): a run keeps the
//! settings it started with.
use std::time::Duration;

use node_glue::files::{DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_LIMIT};
use node_glue::params::Rules;
use node_glue::ConfigError;

use super::{parse_wait_topics, Motion, Settings, WaitTopic};

/// The longest wait or period a parameter may give [ms] (10 min).
const MAX_MS: i64 = 600_000;
/// The longest match a parameter may give [s] (1 h; a Eurobot match is 90 s).
const MAX_MATCH_S: f64 = 3600.0;

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units, each declared once (type, default, range,
    /// when a change takes effect); defaults = [`Settings::default`].
    pub(crate) struct StrategyParams(d = Settings::default()) {
        /// Strategy file (JSON) run when a RunStrategy goal names none; "" = goals must name one
        pub(crate) strategy_file: String = d.strategy_file, any(), "next run";
        /// Match time when a goal gives 0 [s], more than 0
        match_time_s: f64 = d.match_time.as_secs_f64(), float(0.0, MAX_MATCH_S), "next run";
        /// How long a step waits for the MoveTo/NavigateTo server or the comms service to appear [ms]
        server_wait_ms: i64 = millis_of(d.server_wait), int(0, MAX_MS), "next run";
        /// How long to wait for the planner before scoring and moving by straight lines [ms]
        planner_wait_ms: i64 = millis_of(d.planner_wait), int(0, MAX_MS), "next run";
        /// Longest wait for a PlanPath or SendPacket answer (plus the packet's reply timeout) and for a motion goal to be accepted or cancelled [ms]
        call_timeout_ms: i64 = millis_of(d.call_timeout), int(1, MAX_MS), "next run";
        /// RunStrategy feedback is sent on every event and at least this often [ms]
        feedback_period_ms: i64 = millis_of(d.feedback_period), int(10, MAX_MS), "next run";
        /// Folders strategy files may be read from, real paths (.. and symlinks resolved); [] = any folder
        allowed_dirs: node_glue::files::Dirs = node_glue::files::Dirs::default(), any(), "next run";
        /// Largest strategy file [bytes] (64 MiB at most)
        max_file_bytes: i64 = DEFAULT_MAX_FILE_BYTES, int(1, MAX_FILE_BYTES_LIMIT), "next run";
        /// Topics wait_for steps may watch: "topic=pkg/msg/Type;..."
        wait_topics: String = "comms/rx=arnie_interfaces/msg/Packet;eyes/observations=arnie_interfaces/msg/Coordinates".into(), any(), "start only";
        /// Period of /diagnostics [ms]
        diagnostics_period_ms: i64 = 1000, int(10, MAX_MS), "start only";
        /// How moves are made: "move_to" (the arm's MoveTo, position from arm/position), "navigate_to" (the base's NavigateTo on base/navigate_to, position from base/pose) or "navigate_to_pose" (Nav2's NavigateToPose on navigate_to_pose_action, goals in map, position from TF map -> robot_frame)
        motion: String = "move_to".into(), one_of(&["move_to", "navigate_to", "navigate_to_pose"]), "start only";
        /// motion navigate_to_pose: the NavigateToPose action (this base's or a real Nav2's bt_navigator)
        navigate_to_pose_action: String = "navigate_to_pose".into(), any(), "start only";
        /// motion navigate_to_pose: the robot's frame, looked up in map on /tf for the position
        robot_frame: String = "base_link".into(), any(), "start only";
        /// The team colour: the strategy file is written for blue; yellow plays it mirrored about the table's middle (x -> table_width_m - x)
        colour: String = d.colour.name().into(), one_of(&arnie_math::Colour::NAMES), "next run";
        /// The table's length along x, for yellow's mirror [m]
        table_width_m: f64 = d.table_width_m, float(0.1, 100.0), "next run";
        /// What starts the match clock: "goal" (the RunStrategy goal) or "cord" (arm the match with MatchReady on comms/send, then the first start cord pull after it, StartCord on comms/rx)
        match_start: String = d.match_start.name().into(), one_of(&["goal", "cord"]), "next run";
    }
}

fn millis_of(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// `v` as a duration when it is in `min..=MAX_MS`; the error names the parameter, the
/// range and the value.
fn millis(name: &'static str, v: i64, min: i64) -> Result<Duration, ConfigError> {
    if !(min..=MAX_MS).contains(&v) {
        return Err(ConfigError::new(
            name,
            format!("must be in {min}..={MAX_MS} [ms], got {v}"),
        ));
    }
    Ok(Duration::from_millis(v.unsigned_abs()))
}

fn non_empty(name: &'static str, v: &str) -> Result<String, ConfigError> {
    if v.trim().is_empty() {
        Err(ConfigError::new(name, "must not be empty"))
    } else {
        Ok(v.trim().to_string())
    }
}

/// What only the start reads, checked.
#[derive(Debug)]
pub(crate) struct Start {
    /// The topics `wait_for` steps may watch.
    pub(crate) wait_topics: Vec<WaitTopic>,
    /// How moves are made.
    pub(crate) motion: Motion,
    /// `navigate_to_pose`: the action's name.
    pub(crate) navigate_to_pose_action: String,
    /// `navigate_to_pose`: the robot's frame (position by TF).
    pub(crate) robot_frame: String,
    /// Period of `/diagnostics`.
    pub(crate) diagnostics_period: Duration,
}

impl StrategyParams {
    /// The settings of the next run (checked).
    pub(crate) fn settings(&self) -> Result<Settings, ConfigError> {
        let m = self.match_time_s;
        if !(m.is_finite() && m > 0.0 && m <= MAX_MATCH_S) {
            return Err(ConfigError::new(
                "match_time_s",
                format!("must be in (0, {MAX_MATCH_S}] [s], got {m}"),
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
            colour: arnie_math::Colour::parse(&self.colour)
                .map_err(|e| ConfigError::new("colour", e.to_string()))?,
            table_width_m: if self.table_width_m.is_finite() && self.table_width_m > 0.0 {
                self.table_width_m
            } else {
                return Err(ConfigError::new(
                    "table_width_m",
                    format!("must be a length above 0, got {}", self.table_width_m),
                ));
            },
            match_start: super::MatchStart::parse(&self.match_start)?,
        })
    }

    /// The start-only values (checked).
    pub(crate) fn start(&self) -> Result<Start, ConfigError> {
        Ok(Start {
            wait_topics: parse_wait_topics(&self.wait_topics).map_err(|e| {
                ConfigError::new("wait_topics", format!("{:?} {}", e.entry, e.reason))
            })?,
            motion: Motion::parse(&self.motion)?,
            navigate_to_pose_action: non_empty(
                "navigate_to_pose_action",
                &self.navigate_to_pose_action,
            )?,
            robot_frame: non_empty("robot_frame", &self.robot_frame)?,
            diagnostics_period: millis("diagnostics_period_ms", self.diagnostics_period_ms, 10)?,
        })
    }
}

/// The whole-set check run at start and on every `ros2 param set` (after the ranges).
pub(crate) fn rules() -> Rules<StrategyParams> {
    Rules {
        check: |p: &StrategyParams| p.settings().and(p.start()).map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<StrategyParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn the_start_only_parameters_are_read_only() {
        let read_only: Vec<_> = StrategyParams::declarations()
            .into_iter()
            .filter(|d| d.read_only())
            .map(|d| d.name)
            .collect();
        assert_eq!(
            read_only,
            [
                "wait_topics",
                "diagnostics_period_ms",
                "motion",
                "navigate_to_pose_action",
                "robot_frame"
            ]
        );
    }

    fn check(p: StrategyParams) -> Result<(), node_glue::params::RuleError> {
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
            (
                StrategyParams {
                    colour: "green".into(),
                    ..d()
                },
                "colour: colour \"green\" is neither \"blue\" nor \"yellow\"",
            ),
            (
                StrategyParams {
                    match_start: "whistle".into(),
                    ..d()
                },
                "match_start",
            ),
        ];
        for (p, reason) in cases {
            let e = check(p).unwrap_err().to_string();
            assert!(e.starts_with(reason), "{e} / {reason}");
        }
    }
}
