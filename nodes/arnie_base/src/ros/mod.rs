//! The ROS 2 side of the `arnie_base` node (feature `ros`): the only module that uses
//! r2r. The binary only calls [`run`].
//!
//! - serves `arnie_interfaces/action/NavigateTo` on `base/navigate_to`;
//! - subscribes `comms/rx` (`arnie_interfaces/Packet`: Odometry, ObstacleReport, Ack from
//!   the motor board through `comms_bridge`) and `map` (`nav_msgs/OccupancyGrid`,
//!   latched: the planner's map; cells of value 100 are the map's own obstacles, whose
//!   sensor hits are ignored; 99 = the planner's temporary marks);
//! - publishes `comms/tx` (DriveSpeed at the odometry rate while following a path, Stop);
//!   for every odometry packet `odom` (REP 105: `odom` → `base_link`, with covariances),
//!   `/tf` and `base/pose` (in `map`), and for every obstacle report `base/range`
//!   (`sensor_msgs/Range` in the sensor's frame): see [`frames`]; counters on
//!   `/diagnostics`;
//! - calls `planner/plan_path` and `planner/update_map`;
//! - subscribes `scan` (`sensor_msgs/LaserScan`, sensor QoS) and `match/state`
//!   (`arnie_interfaces/MatchState`, latched), publishes `base/avoid_markers`
//!   (`visualization_msgs/MarkerArray`): see `scan`.
//!
//! One task owns the [`Navigator`] and selects over: goals, the running goal's cancel
//! requests, board packets, maps, planner answers (from helper tasks), the watchdog tick
//! and shutdown. Time for the navigator is the monotonic clock since start (the link
//! watchdog is about real time, also under `use_sim_time`).
//!
//! Layout:
//! - here: [`run`], [`setup`] (every entity and task) and the control task's state;
//! - `params`: the parameters, declared once; `counters`: the counters and the status;
//! - `control`: the control task's loop and what it sends (drive, stop, planner calls);
//! - `doors`: the three goal doors (`base/navigate_to`, `navigate_to_pose`, `goal_pose`);
//! - `teleop`: `cmd_vel`; `inputs`: board packets, pose estimates, the map;
//! - `planner`: the `plan_path` and `update_map` calls; `frames`: odometry, TF, ranges
//!   and the pose out;
//! - `scan`: the LiDAR's scans into the gate, the match's end, the zone and marks drawn.
mod control;
mod counters;
mod doors;
mod frames;
mod inputs;
mod params;
mod planner;
mod scan;
mod teleop;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use counters::Counters;
use doors::{Door, Pending};
use futures::{Stream, StreamExt};
use node_glue::r2r::{
    self,
    arnie_interfaces::{
        action::NavigateTo, msg::MatchState, msg::Packet, srv::PlanPath, srv::UpdateMap,
    },
    geometry_msgs::msg::{PoseStamped, PoseWithCovarianceStamped, Twist, TwistStamped},
    nav2_msgs::action::NavigateToPose,
    nav_msgs::msg::OccupancyGrid,
    sensor_msgs::msg::LaserScan,
    visualization_msgs::msg::MarkerArray,
    ActionServerCancelRequest,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error, ParameterError};
use tokio::sync::mpsc;

use crate::{Navigator, PlanReply, Teleop};
use params::BaseParams;

/// The node's default name.
pub const NODE: &str = "arnie_base";
pub use frames::{BASE_POSE, BASE_RANGE, ODOM};
/// The action, and the planner's map update service (names shared with the strategy
/// and the planner: one place).
pub use node_glue::topics::{NAVIGATE_TO, UPDATE_MAP};
/// Pose estimates in (rviz's "2D Pose Estimate" tool).
pub const INITIAL_POSE: &str = "initialpose";
/// Nav2's action (relative, as Nav2's bt_navigator serves it).
pub const NAVIGATE_TO_POSE: &str = "navigate_to_pose";
/// Goal poses in (rviz's "2D Goal Pose" tool, Foxglove's publish panel).
pub const GOAL_POSE: &str = "goal_pose";
/// Velocity commands in (teleop, joystick, twist_mux, a Nav2 controller).
pub const CMD_VEL: &str = "cmd_vel";
use frames::Frames;

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls.
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Creates the node's action server, subscriptions, publishers, clients and tasks
/// (`node_glue::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let rules = node_glue::params::Rules {
        check: |p: &BaseParams| p.config().map(|_| ()).map_err(Into::into),
    };
    let params = app.parameters_checked(BaseParams::default(), rules)?;
    let p = params.lock()?.clone();
    let config = p.config().map_err(ParameterError::node)?;
    let goals = app
        .node
        .create_action_server::<NavigateTo::Action>(NAVIGATE_TO)?;
    let nav2_goals = app
        .node
        .create_action_server::<NavigateToPose::Action>(NAVIGATE_TO_POSE)?;
    // rviz's tools publish reliable, volatile; Nav2's controller and teleop nodes too.
    let goal_poses = app.subscribe::<PoseStamped>(GOAL_POSE, qos::commands())?;
    let commands: std::pin::Pin<Box<dyn Stream<Item = Step> + Send>> = if p.cmd_vel_stamped {
        Box::pin(
            app.subscribe::<TwistStamped>(CMD_VEL, qos::legacy_commands())?
                .map(|t| Step::CmdVel(t.twist, Some(t.header.frame_id))),
        )
    } else {
        Box::pin(
            app.subscribe::<Twist>(CMD_VEL, qos::legacy_commands())?
                .map(|t| Step::CmdVel(t, None)),
        )
    };
    let tf = node_glue::tf::Listener::new(app, Duration::from_secs(10))?;
    let rx = app.subscribe::<Packet>(topics::COMMS_RX, qos::commands())?;
    let maps = app.subscribe::<OccupancyGrid>(topics::MAP, qos::latched())?;
    // rviz's "2D Pose Estimate" publishes here (reliable, volatile, depth 10).
    let estimates = app.subscribe::<PoseWithCovarianceStamped>(INITIAL_POSE, qos::commands())?;
    // The LiDAR's scans (sensor data: any publisher matches) and the match's phase (latched).
    let scans = app.subscribe::<LaserScan>(topics::SCAN, qos::sensor())?;
    let matches = app.subscribe::<MatchState>(topics::MATCH_STATE, qos::latched())?;
    let avoid_markers = app
        .node
        .create_publisher::<MarkerArray>(scan::AVOID_MARKERS, qos::commands())?;
    let tx = app
        .node
        .create_publisher::<Packet>(topics::COMMS_TX, qos::commands())?;
    let frames = Frames::new(app, &p)?;
    let planner = Arc::new(
        app.node
            .create_client::<PlanPath::Service>(topics::PLAN_PATH, qos::commands())?,
    );
    let marker = Arc::new(
        app.node
            .create_client::<UpdateMap::Service>(UPDATE_MAP, qos::commands())?,
    );
    // The device behind the node: the motor board, reached through the comms topics
    // (`comms_bridge` owns the serial port or CAN link).
    let namespace = app.node.namespace().unwrap_or_default();
    let comms = node_glue::qos_check::resolve(&namespace, app.name(), topics::COMMS_RX);
    let comms = comms.strip_suffix("/rx").unwrap_or(&comms);
    let diagnostics = app
        .diagnostics()?
        .with_hardware_id(format!("motor board via {comms}"));
    let shutdown = app.shutdown();
    let counters = Arc::new(Counters::default());
    let _rt = app.handle().enter();
    let (events_tx, events) = mpsc::unbounded_channel();
    let control = Control {
        nav: Navigator::new(config),
        teleop: Teleop::new(p.teleop_limits()),
        tf,
        params,
        t0: Instant::now(),
        tx,
        frames,
        planner,
        marker,
        events_tx,
        counters: counters.clone(),
        logs: RateLimit::default(),
        active: None,
        next_goal: 1,
        seq: 0,
        watchdog_ms: p.watchdog_ms(),
        planner_timeout: p.planner_timeout(),
        match_end: None,
        avoid_markers,
        next_mark: 0,
    };
    tokio::spawn(control.run(
        futures::stream::select(
            goals.map(|r| Step::Goal(Pending::Base(r))),
            nav2_goals.map(|r| Step::Goal(Pending::Nav2(r))),
        ),
        rx,
        // The map and pose estimates, one stream of steps (either order is fine).
        futures::stream::select(
            futures::stream::select(
                futures::stream::select(maps.map(Step::Map), estimates.map(Step::Estimate)),
                futures::stream::select(goal_poses.map(Step::GoalPose), commands),
            ),
            futures::stream::select(scans.map(Step::Scan), matches.map(Step::Match)),
        ),
        events,
        Duration::from_millis(p.tick_ms as u64),
        shutdown.clone(),
    ));
    diagnostics.spawn_periodic(
        Duration::from_millis(p.diagnostics_period_ms as u64),
        shutdown,
        move || vec![counters.status()],
    );
    Ok(())
}

/// Answers from the helper tasks that call the planner.
enum Event {
    Plan(u64, PlanReply),
    Marked(u64, bool),
}

struct ActiveGoal {
    id: u64,
    door: Door,
}

struct Control {
    nav: Navigator,
    /// Manual driving from `cmd_vel`.
    teleop: Teleop,
    /// Goals in any frame are brought into `map` through it.
    tf: node_glue::tf::Listener,
    params: Arc<Mutex<BaseParams>>,
    t0: Instant,
    tx: r2r::Publisher<Packet>,
    frames: Frames,
    planner: Arc<r2r::Client<PlanPath::Service>>,
    marker: Arc<r2r::Client<UpdateMap::Service>>,
    events_tx: mpsc::UnboundedSender<Event>,
    counters: Arc<Counters>,
    /// Input-driven warnings, at most one line per key per period.
    logs: RateLimit,
    active: Option<ActiveGoal>,
    next_goal: u64,
    /// The seq of the last DriveSpeed / Stop sent (one counter for both: Stop wants a new
    /// DriveSpeed seq after it).
    seq: u16,
    watchdog_ms: u16,
    planner_timeout: Duration,
    /// When the running match ends [s, the control clock], from `match/state`.
    match_end: Option<f64>,
    /// The zone and the opponent's marks (`base/avoid_markers`).
    avoid_markers: r2r::Publisher<MarkerArray>,
    /// The last mark marker's id.
    next_mark: i32,
}

enum Step {
    Shutdown,
    Goal(Pending),
    /// A NavigateToPose-like goal without a client (`goal_pose`).
    GoalPose(PoseStamped),
    /// A velocity command and its frame (`None`: plain Twist).
    CmdVel(Twist, Option<String>),
    Packet(Packet),
    Map(OccupancyGrid),
    Estimate(PoseWithCovarianceStamped),
    Scan(LaserScan),
    Match(MatchState),
    Event(Event),
    Cancel(ActionServerCancelRequest),
    Tick,
    Closed,
}
