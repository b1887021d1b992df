//! The ROS 2 side of the strategy node (feature `ros`): the only module that uses r2r.
//! The binary only calls [`run`].
//!
//! - action server `/strategy/run` (`arnie_interfaces/action/RunStrategy`);
//! - publishes `/strategy/events` (`arnie_interfaces/StrategyEvent`, reliable) and
//!   `/diagnostics`;
//! - clients of `/trajectory/move_to` (MoveTo) or `base/navigate_to` (NavigateTo),
//!   `/planner/plan_path` (PlanPath), `/comms/send` (SendPacket); subscribes
//!   `/arm/position` (or `base/pose`) and the `wait_topics`.
//!
//! Layout:
//! - here: [`setup`] (the node's entities and tasks, created once before the node spins)
//!   and [`run`] (`node_glue::main_with(NODE, setup)`); `params`: the parameters,
//!   declared once, checked at start and on every `ros2 param set`.
//! - [`robot`]: [`RosRobot`], the library's [`crate::Robot`] over ROS: a `MoveTo` action
//!   client (on its own thread: r2r's goal futures are not `Send`), the `PlanPath` and
//!   `SendPacket` clients, `/arm/position`, and the topics `wait_for` steps may watch.
//! - [`server`]: the `/strategy/run` action server: loads the file, runs the
//!   [`crate::Runner`], publishes its events on `/strategy/events` and feedback, cancels.
//! - [`counters`]: the node's `/diagnostics` counters.
//! - [`convert`]: messages ⇄ library types (all in metres, frame `world`: no scaling).
//!
//! Settings are read per goal (so `ros2 param set` applies to the next run) through a
//! [`SettingsFn`]; the topics `wait_for` may watch are fixed at start (r2r subscriptions
//! must exist before the node spins).

pub mod convert;
pub mod counters;
pub mod match_state;
pub mod navigate;
mod params;
pub mod robot;
pub mod server;

use std::sync::Arc;
use std::time::Duration;

use node_glue::lifecycle::{Managed, Outcome, State};
use node_glue::params::SettingsError;
use node_glue::r2r::{arnie_interfaces::action::RunStrategy, arnie_interfaces::msg::StrategyEvent};
use node_glue::{qos, topics, App, Error};

pub use counters::Counters;
pub use navigate::Motion;
pub use robot::RosRobot;
pub use server::StrategyServer;

use params::{rules, StrategyParams};

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `motion` `navigate_to_pose` without the TF listener it needs.
    #[error("motion navigate_to_pose needs a TF listener")]
    NoTfListener,
    /// A `wait_topics` entry of a type that cannot be subscribed to.
    #[error("wait_topics: cannot subscribe to {topic} as {ty}: {source}")]
    WaitTopic {
        /// The topic.
        topic: String,
        /// Its message type.
        ty: String,
        /// Why.
        source: node_glue::r2r::Error,
    },
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "strategy";
/// History of the `/strategy/events` publisher.
const EVENT_HISTORY: usize = 100;

/// Runs the strategy node until shutdown, then exits the process (exit 2 on bad
/// parameters, naming the reason).
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The strategy as a managed node: it owns nothing outside ROS; while it is not active,
/// `RunStrategy` goals are refused (REJECTED, with the reason; counted
/// `inactive_refused`) and `/strategy/events` is silent; deactivation stops the run in
/// progress.
struct Lifecycle {
    server: Arc<StrategyServer>,
}

impl Managed for Lifecycle {
    fn on_deactivate(&mut self, _: State) -> Outcome {
        self.server.stop_run();
        Ok(())
    }
    fn on_shutdown(&mut self, _: State) -> Outcome {
        self.server.stop_run();
        Ok(())
    }
}

/// Creates the node's action server, clients, subscriptions, publishers and tasks.
///
/// # Errors
/// Invalid parameters (the reason names the parameter, its range and the value), or a
/// ROS entity that could not be created.
pub fn setup(
    app: &mut App,
    lc: &node_glue::lifecycle::Lifecycle,
) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(StrategyParams::default(), rules())?;
    let (settings, start) = {
        let p = params.lock()?;
        (p.settings()?, p.start()?)
    };
    let counters = Arc::new(Counters::default());
    // Reliable, with a deeper history than the commands preset: a run emits events in
    // bursts and a slow subscriber must not lose any.
    let events = lc.publisher::<StrategyEvent>(
        &mut app.node,
        topics::STRATEGY_EVENTS,
        qos::commands().keep_last(EVENT_HISTORY),
    )?;
    let goals = app
        .node
        .create_action_server::<RunStrategy::Action>(topics::STRATEGY_RUN)?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let nav2 = match start.motion {
        Motion::NavigateToPose => Some(robot::Nav2Source {
            action: start.navigate_to_pose_action.clone(),
            robot_frame: start.robot_frame.clone(),
            tf: node_glue::tf::Listener::new(app, std::time::Duration::from_secs(10))?,
        }),
        _ => None,
    };
    let robot = RosRobot::new(
        &mut app.node,
        start.motion,
        nav2,
        &start.wait_topics,
        settings,
        counters.clone(),
    )?;
    // RosRobot subscribes on the node itself: its subscriptions join the QoS check here.
    match start.motion {
        Motion::MoveTo => app.watch_subscription(topics::ARM_POSITION, &qos::sensor()),
        Motion::NavigateTo => app.watch_subscription(navigate::BASE_POSE, &qos::commands()),
        // Its position comes from node_glue::tf's listener (tf2's QoS).
        Motion::NavigateToPose => {}
    }
    for w in &start.wait_topics {
        app.watch_subscription(&w.topic, &w.kind.qos());
    }
    // Parameters are read again for every goal: `ros2 param set` applies to the next run.
    let live = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| SettingsError::Poisoned)?;
        Ok(p.settings()?)
    });
    // The match clock: started by the cord (StartCord on comms/rx), published on
    // match/state.
    let clock = match_state::MatchClockNode::create(app, counters.clone())?;
    let server = StrategyServer::new(
        robot,
        events,
        settings_fn,
        counters.clone(),
        shutdown.clone(),
        clock,
        lc.clone(),
    );
    tokio::spawn(server.clone().serve(goals));

    let s = server.clone();
    diagnostics.spawn_periodic(start.diagnostics_period, shutdown, move || {
        counters.statuses(s.running())
    });
    Ok(Box::new(Lifecycle { server }))
}

/// The node's settings, checked (`params` converts the parameters into this).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Used when a goal names no file; may be empty (then such goals are rejected).
    pub strategy_file: String,
    /// Used when a goal gives `match_time_s = 0`.
    pub match_time: Duration,
    /// How long a step waits for the `MoveTo` server or the comms service to appear.
    pub server_wait: Duration,
    /// How long to wait for the planner before scoring and moving by straight lines.
    pub planner_wait: Duration,
    /// Longest wait for a `PlanPath` / `SendPacket` answer (plus the packet's own reply
    /// timeout), and for a `MoveTo` goal to be accepted or cancelled.
    pub call_timeout: Duration,
    /// Feedback is published on every event and at least this often.
    pub feedback_period: Duration,
    /// Where strategy files may be read from and how large they may be (`allowed_dirs`,
    /// `max_file_bytes`).
    pub files: node_glue::files::FileRules,
    /// The team colour (yellow: the file mirrored).
    pub colour: arnie_math::Colour,
    /// The table's length along x [m] (the mirror's axis is its middle).
    pub table_width_m: f64,
    /// What starts the match clock.
    pub match_start: MatchStart,
}

/// What starts the match clock (`match_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchStart {
    /// The RunStrategy goal.
    Goal,
    /// The first start cord pull after the goal armed the match.
    Cord,
}

impl MatchStart {
    /// `goal` / `cord`.
    pub fn name(self) -> &'static str {
        match self {
            MatchStart::Goal => "goal",
            MatchStart::Cord => "cord",
        }
    }

    /// From its name.
    ///
    /// # Errors
    /// Any other text (naming the parameter).
    pub fn parse(v: &str) -> Result<MatchStart, node_glue::ConfigError> {
        match v {
            "goal" => Ok(MatchStart::Goal),
            "cord" => Ok(MatchStart::Cord),
            other => Err(node_glue::ConfigError::new(
                "match_start",
                format!("{other:?} is neither \"goal\" nor \"cord\""),
            )),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            strategy_file: String::new(),
            match_time: Duration::from_secs(100),
            server_wait: Duration::from_millis(2000),
            planner_wait: Duration::from_millis(300),
            call_timeout: Duration::from_millis(5000),
            feedback_period: Duration::from_millis(500),
            files: node_glue::files::FileRules::any_folder(
                node_glue::files::DEFAULT_MAX_FILE_BYTES as u64,
            ),
            colour: arnie_math::Colour::Blue,
            table_width_m: 3.0,
            match_start: MatchStart::Goal,
        }
    }
}

/// Reads the current settings (from the live parameters).
pub type SettingsFn = Arc<dyn Fn() -> Result<Settings, SettingsError> + Send + Sync>;

/// The message type of a topic `wait_for` may watch, and how it becomes JSON for
/// [`crate::condition::WaitFor::matches`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitKind {
    /// `arnie_interfaces/msg/Packet`: `{"name", "id", "device", "fields": {..}}` with
    /// `fields` parsed from `fields_json`. Reliable QoS.
    Packet,
    /// `arnie_interfaces/msg/Coordinates`: `{"frame_id", "count", "items": [[..], ..]}`
    /// (`count` = number of items). Sensor QoS.
    Coordinates,
    /// Any other type r2r knows (`std_msgs/msg/String` …): the message as r2r's JSON
    /// (field names as in the `.msg`). Reliable QoS.
    Other(String),
}

impl WaitKind {
    /// The QoS its subscription uses (as documented on each variant).
    pub fn qos(&self) -> r2r::QosProfile {
        match self {
            WaitKind::Coordinates => node_glue::qos::sensor(),
            WaitKind::Packet | WaitKind::Other(_) => node_glue::qos::commands(),
        }
    }
}

/// One entry of the `wait_topics` parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitTopic {
    /// The topic, as written (relative names resolve in the node's namespace).
    pub topic: String,
    /// Its message type.
    pub kind: WaitKind,
}

/// A `wait_topics` entry that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("wait_topics: {entry:?} {reason}")]
pub struct WaitTopicError {
    /// The entry as written.
    pub entry: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// `pkg/Type` → `pkg/msg/Type`; `pkg/msg/Type` unchanged; anything else `None`.
fn full_type(t: &str) -> Option<String> {
    let parts: Vec<&str> = t.split('/').collect();
    let ok = |s: &&str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match parts.as_slice() {
        [pkg, ty] if ok(pkg) && ok(ty) => Some(format!("{pkg}/msg/{ty}")),
        [pkg, "msg", ty] if ok(pkg) && ok(ty) => Some(t.to_owned()),
        _ => None,
    }
}

/// A ROS topic name as a user writes it: relative (`comms/rx`) or absolute (`/comms/rx`),
/// tokens of letters, digits and `_` separated by single `/`, not starting with a digit.
fn valid_topic_name(topic: &str) -> bool {
    let body = topic.strip_prefix('/').unwrap_or(topic);
    !body.is_empty()
        && body.split('/').all(|t| {
            !t.is_empty()
                && !t.starts_with(|c: char| c.is_ascii_digit())
                && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Parses `wait_topics`: `;`-separated `topic=type` entries, e.g.
/// `comms/rx=arnie_interfaces/msg/Packet;/done=std_msgs/msg/String`. Blank entries are
/// ignored; a topic may appear once. Relative names resolve in the node's namespace.
///
/// # Errors
/// The first entry without `=`, with a malformed topic name, with a malformed
/// type, or naming a topic twice.
pub fn parse_wait_topics(spec: &str) -> Result<Vec<WaitTopic>, WaitTopicError> {
    let mut out: Vec<WaitTopic> = Vec::new();
    for entry in spec.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let err = |reason| WaitTopicError {
            entry: entry.to_owned(),
            reason,
        };
        let (topic, ty) = entry
            .split_once('=')
            .ok_or_else(|| err("is not topic=type"))?;
        let (topic, ty) = (topic.trim(), ty.trim());
        if !valid_topic_name(topic) {
            return Err(err(
                "needs a topic name (\"comms/rx\", or absolute \"/comms/rx\")",
            ));
        }
        let ty = full_type(ty).ok_or_else(|| err("needs a type pkg/msg/Type"))?;
        let kind = match ty.as_str() {
            "arnie_interfaces/msg/Packet" => WaitKind::Packet,
            "arnie_interfaces/msg/Coordinates" => WaitKind::Coordinates,
            _ => WaitKind::Other(ty),
        };
        if out.iter().any(|w| w.topic == topic) {
            return Err(err("names a topic already listed"));
        }
        out.push(WaitTopic {
            topic: topic.to_owned(),
            kind,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_topics_parse() {
        let w = parse_wait_topics(
            " comms/rx=arnie_interfaces/msg/Packet ; /eyes/observations = arnie_interfaces/Coordinates;;/d=std_msgs/String",
        )
        .unwrap();
        assert_eq!(
            w,
            [
                WaitTopic {
                    topic: "comms/rx".into(),
                    kind: WaitKind::Packet
                },
                WaitTopic {
                    topic: "/eyes/observations".into(),
                    kind: WaitKind::Coordinates
                },
                WaitTopic {
                    topic: "/d".into(),
                    kind: WaitKind::Other("std_msgs/msg/String".into())
                },
            ]
        );
        assert_eq!(parse_wait_topics("").unwrap(), []);
    }

    #[test]
    fn bad_wait_topics_name_the_entry() {
        for (spec, reason) in [
            ("/a", "is not topic=type"),
            (
                "a b=std_msgs/String",
                "needs a topic name (\"comms/rx\", or absolute \"/comms/rx\")",
            ),
            (
                "/a//b=std_msgs/String",
                "needs a topic name (\"comms/rx\", or absolute \"/comms/rx\")",
            ),
            ("/a=String", "needs a type pkg/msg/Type"),
            ("/a=std_msgs/srv/String", "needs a type pkg/msg/Type"),
            (
                "/a=std_msgs/String;/a=std_msgs/Bool",
                "names a topic already listed",
            ),
        ] {
            let e = parse_wait_topics(spec).unwrap_err();
            assert_eq!(e.reason, reason, "{spec}");
        }
        assert_eq!(
            parse_wait_topics("/x").unwrap_err().to_string(),
            "wait_topics: \"/x\" is not topic=type"
        );
    }
}
