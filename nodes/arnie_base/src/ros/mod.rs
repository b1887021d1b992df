//! The ROS 2 side of the `arnie_base` node (feature `ros`): the only module that uses
//! r2r. The binary only calls [`run`].
//!
//! - serves `arnie_interfaces/action/NavigateTo` on `base/navigate_to`, and Nav2's
//!   actions where the base can do the job: `navigate_to_pose`, `navigate_through_poses`,
//!   `follow_waypoints`, `follow_path`, `spin`, `backup`, `drive_on_heading`, `wait`;
//! - publishes the localizer's pose as AMCL does (`amcl_pose`) and takes pose estimates
//!   on `initialpose` (one before the first odometry is kept and applied with it;
//!   `set_initial_pose` sets one at start);
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
//! - `doors`: the goal doors of the navigator (`base/navigate_to`, `navigate_to_pose`,
//!   `goal_pose`, and the Nav2 ones below);
//! - `through_poses`, `follow_path`, `waypoints`: Nav2's `navigate_through_poses`,
//!   `follow_path`, `follow_waypoints`; `behaviors`: `spin`, `backup`,
//!   `drive_on_heading`, `wait`;
//! - `teleop`: `cmd_vel`; `inputs`: board packets, pose estimates, the map;
//! - `planner`: the `plan_path` and `update_map` calls; `frames`: odometry, TF, ranges
//!   and the pose out;
//! - `scan`: the LiDAR's scans into the gate, the match's end, the zone and marks drawn.
mod behaviors;
mod control;
mod counters;
mod doors;
mod follow_path;
mod frames;
mod inputs;
mod params;
mod planner;
mod scan;
mod teleop;
mod through_poses;
mod waypoints;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use behaviors::{BehaviorPending, RunningBehavior, RunningWait};
use counters::Counters;
use doors::{Door, Pending};
use futures::{Stream, StreamExt};
use node_glue::lifecycle::{Failed, LifecyclePublisher, Managed, Outcome, State};
use node_glue::r2r::{
    self,
    arnie_interfaces::{
        action::NavigateTo, msg::MatchState, msg::Packet, srv::PlanPath, srv::UpdateMap,
    },
    geometry_msgs::msg::{PoseStamped, PoseWithCovarianceStamped, Twist, TwistStamped},
    nav2_msgs::action::{
        BackUp, DriveOnHeading, FollowPath, FollowWaypoints, NavigateThroughPoses, NavigateToPose,
        Spin, Wait as WaitAction,
    },
    nav_msgs::msg::OccupancyGrid,
    sensor_msgs::msg::LaserScan,
    visualization_msgs::msg::MarkerArray,
    ActionServerCancelRequest, ActionServerGoalRequest,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error, ParameterError};
use tokio::sync::mpsc;

use crate::{Navigator, PlanReply, Teleop};
use params::BaseParams;

/// The node's default name.
pub const NODE: &str = "base";
pub use frames::{AMCL_POSE, BASE_POSE, BASE_RANGE, ODOM};
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
/// Nav2's action and service names the base serves (relative, as Nav2's servers).
pub mod nav2_names {
    /// `nav2_msgs/action/NavigateThroughPoses`.
    pub const NAVIGATE_THROUGH_POSES: &str = "navigate_through_poses";
    /// `nav2_msgs/action/FollowWaypoints`.
    pub const FOLLOW_WAYPOINTS: &str = "follow_waypoints";
    /// `nav2_msgs/action/FollowPath`.
    pub const FOLLOW_PATH: &str = "follow_path";
    /// `nav2_msgs/action/Spin`.
    pub const SPIN: &str = "spin";
    /// `nav2_msgs/action/BackUp`.
    pub const BACKUP: &str = "backup";
    /// `nav2_msgs/action/DriveOnHeading`.
    pub const DRIVE_ON_HEADING: &str = "drive_on_heading";
    /// `nav2_msgs/action/Wait`.
    pub const WAIT: &str = "wait";
}
use frames::Frames;

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls. A managed node (`node_glue::lifecycle`):
/// see [`Lifecycle`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The base as a managed node. It owns no device (`comms_bridge` owns the link), so
/// configure and cleanup have nothing to acquire; while it is not active it sends no
/// drive command (`comms/tx` is a lifecycle publisher), publishes nothing on `odom`,
/// `/tf`, `base/pose`, `base/range`, refuses goals with the reason and ignores
/// `cmd_vel` and `goal_pose` (counted `inactive_refused`), but keeps tracking the
/// board's odometry. Deactivation ends the running goal (PREEMPTED, "deactivated"),
/// ends a manual drive and sends `Stop`, before `comms/tx` closes.
struct Lifecycle {
    control: mpsc::UnboundedSender<Step>,
}

/// How long deactivation waits for the control task to stop the base.
const STOP_WAIT: Duration = Duration::from_secs(3);

impl Lifecycle {
    /// Asks the control task to stop the base and waits until it has.
    fn stop(&self, why: &'static str) -> Outcome {
        let (done, wait) = std::sync::mpsc::channel();
        if self.control.send(Step::Deactivate(why, done)).is_err() {
            // The control task has ended (the node is stopping): it stopped the base.
            return Ok(());
        }
        match wait.recv_timeout(STOP_WAIT) {
            Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Ok(()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Failed::failure(format!(
                "the base did not stop within {} s",
                STOP_WAIT.as_secs()
            ))),
        }
    }
}

impl Managed for Lifecycle {
    fn on_deactivate(&mut self, _: State) -> Outcome {
        self.stop("deactivated")
    }
    fn on_shutdown(&mut self, from: State) -> Outcome {
        if from == State::Active {
            self.stop("shutting down")?;
        }
        Ok(())
    }
    fn on_error(&mut self, _: State) -> Outcome {
        // Whatever erred: no motion. Stop goes out only while comms/tx is open.
        let _ = self.stop("a transition failed");
        Ok(())
    }
}

/// Creates the node's action server, subscriptions, publishers, clients and tasks
/// (`node_glue::lifecycle::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(
    app: &mut App,
    lc: &node_glue::lifecycle::Lifecycle,
) -> Result<Box<dyn Managed>, Error> {
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
    let nav2_more = nav2_servers(&mut app.node)?;
    // rviz's tools publish reliable, volatile; Nav2's controller and teleop nodes too.
    let goal_poses = app.subscribe::<PoseStamped>(GOAL_POSE, qos::commands())?;
    // A publisher of the other Twist type never matches: say so, once per publisher.
    app.watch_subscription_type(
        CMD_VEL,
        crate::cmd_vel::expected_type(p.cmd_vel_stamped),
        &crate::cmd_vel::hint(p.cmd_vel_stamped),
    );
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
    // rviz's "2D Pose Estimate" publishes here (reliable, volatile, depth 10), and so does
    // Nav2's BasicNavigator.setInitialPose.
    let estimates = app.subscribe::<PoseWithCovarianceStamped>(INITIAL_POSE, qos::commands())?;
    // The LiDAR's scans (sensor data: any publisher matches) and the match's phase (latched).
    let scans = app.subscribe::<LaserScan>(topics::SCAN, qos::sensor())?;
    let matches = app.subscribe::<MatchState>(topics::MATCH_STATE, qos::latched())?;
    let avoid_markers =
        lc.publisher::<MarkerArray>(&mut app.node, scan::AVOID_MARKERS, qos::commands())?;
    let tx = lc.publisher::<Packet>(&mut app.node, topics::COMMS_TX, qos::commands())?;
    let mut frames = Frames::new(app, lc, &p)?;
    if p.set_initial_pose {
        let pose = crate::Pose2::new(p.initial_pose_x, p.initial_pose_y, p.initial_pose_yaw);
        node_glue::log_info!(
            "set_initial_pose: the robot is at ({:.3}, {:.3}, {:.3} rad) in {} (applied with the first odometry)",
            pose.x, pose.y, pose.theta, p.frame_id
        );
        frames.relocate(&pose);
    }
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
    let (lifecycle_tx, lifecycle_rx) = mpsc::unbounded_channel();
    let control = Control {
        lc: lc.clone(),
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
        behavior: None,
        wait: None,
        last_estimate: None,
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
            futures::stream::select(
                goals.map(|r| Step::Goal(Pending::Base(r))),
                nav2_goals.map(|r| Step::Goal(Pending::Nav2(r))),
            ),
            futures::stream::select_all(nav2_more),
        ),
        rx,
        // The map and pose estimates, one stream of steps (either order is fine).
        futures::stream::select(
            futures::stream::select(maps.map(Step::Map), estimates.map(Step::Estimate)),
            futures::stream::select(
                futures::stream::select(goal_poses.map(Step::GoalPose), commands),
                futures::stream::select(
                    tokio_stream(lifecycle_rx),
                    futures::stream::select(scans.map(Step::Scan), matches.map(Step::Match)),
                ),
            ),
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
    Ok(Box::new(Lifecycle {
        control: lifecycle_tx,
    }))
}

/// A source of the control task's steps.
type Steps = std::pin::Pin<Box<dyn Stream<Item = Step> + Send>>;

/// Nav2's action servers beside NavigateToPose (through poses, follow path, waypoints and
/// the behaviours), each a stream of the control task's steps.
fn nav2_servers(node: &mut r2r::Node) -> Result<Vec<Steps>, Error> {
    Ok(vec![
        Box::pin(
            node.create_action_server::<NavigateThroughPoses::Action>(
                nav2_names::NAVIGATE_THROUGH_POSES,
            )?
            .map(|r| Step::Goal(Pending::Through(r))),
        ),
        Box::pin(
            node.create_action_server::<FollowPath::Action>(nav2_names::FOLLOW_PATH)?
                .map(|r| Step::Goal(Pending::Path(r))),
        ),
        Box::pin(
            node.create_action_server::<FollowWaypoints::Action>(nav2_names::FOLLOW_WAYPOINTS)?
                .map(Step::Waypoints),
        ),
        Box::pin(
            node.create_action_server::<Spin::Action>(nav2_names::SPIN)?
                .map(|r| Step::Behavior(BehaviorPending::Spin(r))),
        ),
        Box::pin(
            node.create_action_server::<BackUp::Action>(nav2_names::BACKUP)?
                .map(|r| Step::Behavior(BehaviorPending::BackUp(r))),
        ),
        Box::pin(
            node.create_action_server::<DriveOnHeading::Action>(nav2_names::DRIVE_ON_HEADING)?
                .map(|r| Step::Behavior(BehaviorPending::Drive(r))),
        ),
        Box::pin(
            node.create_action_server::<WaitAction::Action>(nav2_names::WAIT)?
                .map(Step::Wait),
        ),
    ])
}

/// The steps of an unbounded channel as a stream.
fn tokio_stream(mut rx: mpsc::UnboundedReceiver<Step>) -> impl Stream<Item = Step> + Send + Unpin {
    Box::pin(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)))
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
    /// The node's lifecycle: goals and commands only while active.
    lc: node_glue::lifecycle::Lifecycle,
    nav: Navigator,
    /// Manual driving from `cmd_vel`.
    teleop: Teleop,
    /// Goals in any frame are brought into `map` through it.
    tf: node_glue::tf::Listener,
    params: Arc<Mutex<BaseParams>>,
    t0: Instant,
    tx: LifecyclePublisher<Packet>,
    frames: Frames,
    planner: Arc<r2r::Client<PlanPath::Service>>,
    marker: Arc<r2r::Client<UpdateMap::Service>>,
    events_tx: mpsc::UnboundedSender<Event>,
    counters: Arc<Counters>,
    /// Input-driven warnings, at most one line per key per period.
    logs: RateLimit,
    active: Option<ActiveGoal>,
    /// The running spin / backup / drive-on-heading (owns the motion like `active`).
    behavior: Option<RunningBehavior>,
    /// The running wait (a timer beside the rest).
    wait: Option<RunningWait>,
    /// The last pose estimate taken (the same message twice moves nothing twice).
    last_estimate: Option<String>,
    next_goal: u64,
    /// The seq of the last DriveSpeed / Stop sent (one counter for both: Stop wants a new
    /// DriveSpeed seq after it).
    seq: u16,
    watchdog_ms: u16,
    planner_timeout: Duration,
    /// When the running match ends [s, the control clock], from `match/state`.
    match_end: Option<f64>,
    /// The zone and the opponent's marks (`base/avoid_markers`).
    avoid_markers: LifecyclePublisher<MarkerArray>,
    /// The last mark marker's id.
    next_mark: i32,
}

enum Step {
    Shutdown,
    Goal(Pending),
    Waypoints(ActionServerGoalRequest<FollowWaypoints::Action>),
    Behavior(BehaviorPending),
    Wait(ActionServerGoalRequest<WaitAction::Action>),
    BehaviorCancel(ActionServerCancelRequest),
    WaitCancel(ActionServerCancelRequest),
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
    /// Deactivation: stop the base (why), then say so.
    Deactivate(&'static str, std::sync::mpsc::Sender<()>),
}
