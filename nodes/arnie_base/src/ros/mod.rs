//! The ROS 2 side of the `arnie_base` node (feature `ros`): the only module that uses
//! r2r. The binary only calls [`setup`].
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
//! - calls `planner/plan_path` and `planner/update_map`.
//!
//! One task owns the [`Navigator`] and selects over: goals, the running goal's cancel
//! requests, board packets, maps, planner answers (from helper tasks), the watchdog tick
//! and shutdown. Time for the navigator is the monotonic clock since start (the link
//! watchdog is about real time, also under `use_sim_time`).
mod doors;
mod frames;
mod params;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use doors::{BaseRequest, Door, Nav2Request, Pending, Refusal};
use futures::{Stream, StreamExt};
use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};
use node_glue::r2r::{
    self,
    arnie_interfaces::{action::NavigateTo, msg::Packet, srv::PlanPath, srv::UpdateMap},
    geometry_msgs::msg::{Point, PoseStamped, PoseWithCovarianceStamped, Twist, TwistStamped},
    nav2_msgs::action::NavigateToPose,
    nav_msgs::msg::OccupancyGrid,
    ActionServerCancelRequest,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, time, topics, App, Error, Shutdown};
use tokio::sync::mpsc;

use crate::board::{self, FromBoard};
use crate::{
    KnownObstacles, Navigator, Outcome, Output, PlanFailure, PlanReply, Pose2, Teleop,
    TeleopRefused,
};
use params::BaseParams;

/// The node's default name.
pub const NODE: &str = "arnie_base";
/// The action.
pub const NAVIGATE_TO: &str = "base/navigate_to";
/// The planner's map update service.
pub const UPDATE_MAP: &str = "planner/update_map";
pub use frames::{BASE_POSE, BASE_RANGE, ODOM};
/// Pose estimates in (rviz's "2D Pose Estimate" tool).
pub const INITIAL_POSE: &str = "initialpose";
/// Nav2's action (relative, as Nav2's bt_navigator serves it).
pub const NAVIGATE_TO_POSE: &str = "navigate_to_pose";
/// Goal poses in (rviz's "2D Goal Pose" tool, Foxglove's publish panel).
pub const GOAL_POSE: &str = "goal_pose";
/// Velocity commands in (teleop, joystick, twist_mux, a Nav2 controller).
pub const CMD_VEL: &str = "cmd_vel";
use frames::{Frames, RangeDropped};

node_glue::counters! {
    /// The glue's counters (declared once; the navigator's own, [`crate::NavCounters`],
    /// are copied in after each event and listed by [`crate::NavCounters::pairs`]).
    struct Counters {
        navigate_to {
            drive_sent,
            stops_sent,
            publish_errors,
            bad_packets,
            obstacle_reports,
            ranges_unknown_sensor,
            cmd_vel,
            cmd_vel_not_finite,
            cmd_vel_wrong_frame,
            cmd_vel_clamped,
            cmd_vel_timeouts,
            manual_takeovers,
            goal_poses,
            goals_tf_refused,
            acks,
            acks_not_ok,
            maps,
            pose_estimates,
            pose_estimates_refused,
            plan_requests,
            mark_requests,
        }
        ;
        nav: Mutex<crate::NavCounters>,
        /// Navigating (else idle).
        busy: std::sync::atomic::AtomicBool,
    }
}

impl Counters {
    fn status(&self) -> Status {
        let nav = self.nav.lock().map(|n| n.clone()).unwrap_or_default();
        let busy = self.busy.load(std::sync::atomic::Ordering::Relaxed);
        let mut s = Status::ok("navigate_to", if busy { "navigating" } else { "idle" });
        if nav.odometry == 0 {
            s.level = Level::Warn;
            s.message = "no odometry from the motor board yet".into();
        }
        let glue = self.groups().into_iter().flat_map(|(_, v)| v);
        s.with_counters(nav.pairs()).with_counters(glue)
    }
}

/// Creates the node's action server, subscriptions, publishers, clients and tasks
/// (`node_glue::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let rules = node_glue::params::Rules {
        check: |p: &BaseParams| p.config().map(|_| ()),
    };
    let params = app.parameters_checked(BaseParams::default(), rules)?;
    let p = params
        .lock()
        .map_err(|_| Error::Setup("parameter table poisoned".into()))?
        .clone();
    let config = p.config().map_err(Error::Parameter)?;
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
    };
    tokio::spawn(control.run(
        futures::stream::select(
            goals.map(|r| Step::Goal(Pending::Base(r))),
            nav2_goals.map(|r| Step::Goal(Pending::Nav2(r))),
        ),
        rx,
        // The map and pose estimates, one stream of steps (either order is fine).
        futures::stream::select(
            futures::stream::select(maps.map(Step::Map), estimates.map(Step::Estimate)),
            futures::stream::select(goal_poses.map(Step::GoalPose), commands),
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
    Event(Event),
    Cancel(ActionServerCancelRequest),
    Tick,
    Closed,
}

impl Control {
    fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    async fn run(
        mut self,
        mut goals: impl Stream<Item = Step> + Unpin,
        mut rx: impl Stream<Item = Packet> + Unpin,
        mut inputs: impl Stream<Item = Step> + Unpin,
        mut events: mpsc::UnboundedReceiver<Event>,
        tick: Duration,
        shutdown: Shutdown,
    ) {
        let mut ticker = tokio::time::interval(tick);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            let step = tokio::select! {
                _ = shutdown.wait() => Step::Shutdown,
                g = goals.next() => g.unwrap_or(Step::Closed),
                Some(p) = rx.next() => Step::Packet(p),
                Some(step) = inputs.next() => step,
                Some(e) = events.recv() => Step::Event(e),
                c = Door::next_cancel(self.active.as_mut().map(|a| &mut a.door)) => Step::Cancel(c),
                _ = ticker.tick() => Step::Tick,
            };
            let now = self.now();
            let outs = match step {
                Step::Shutdown | Step::Closed => break,
                Step::Goal(Pending::Base(req)) => {
                    self.on_base_goal(req);
                    Vec::new()
                }
                Step::Goal(Pending::Nav2(req)) => {
                    self.on_nav2_goal(req);
                    Vec::new()
                }
                Step::Goal(Pending::Topic) => Vec::new(),
                Step::GoalPose(p) => {
                    self.counters.goal_poses.inc();
                    match self.goal_in_map(&p) {
                        Ok(goal) => self.start(goal, Pending::Topic),
                        Err(r) => {
                            node_glue::warn_limited!(
                                self.logs,
                                "goal",
                                "{GOAL_POSE} refused: {}",
                                r.message
                            );
                        }
                    }
                    Vec::new()
                }
                Step::CmdVel(t, frame) => self.on_cmd_vel(&t, frame.as_deref(), now),
                Step::Packet(p) => self.on_packet(&p, now),
                Step::Estimate(e) => {
                    self.on_estimate(&e);
                    Vec::new()
                }
                Step::Map(m) => {
                    self.on_map(&m);
                    Vec::new()
                }
                Step::Event(Event::Plan(id, reply)) => self.nav.on_plan(id, reply, now),
                Step::Event(Event::Marked(id, ok)) => self.nav.on_marked(id, ok, now),
                Step::Cancel(request) => {
                    if self.active.is_some() {
                        request.accept();
                        node_glue::log_info!("goal cancelled");
                        self.nav.cancel(now)
                    } else {
                        request.reject();
                        Vec::new()
                    }
                }
                Step::Tick => {
                    let mut outs = self.nav.tick(now);
                    let manual = self.teleop.active();
                    outs.extend(self.teleop.step(now));
                    if manual && !self.teleop.active() {
                        self.counters.cmd_vel_timeouts.inc();
                        node_glue::log_info!(
                            "{CMD_VEL}: no command for cmd_vel_timeout_s: base stopped"
                        );
                    }
                    outs
                }
            };
            self.apply(outs);
            if let Ok(mut n) = self.counters.nav.lock() {
                *n = self.nav.counters().clone();
            }
            self.counters
                .busy
                .store(self.active.is_some(), std::sync::atomic::Ordering::Relaxed);
        }
        if self.teleop.active() {
            self.send_stop();
        }
        if let Some(a) = self.active.take() {
            self.send_stop();
            a.door
                .end(self.ended_here(format!("{NODE} is shutting down; motors stopped")));
        }
    }

    /// The end of a goal the glue stops itself (shutdown, a manual takeover): PREEMPTED
    /// where the robot is, with `message`.
    fn ended_here(&self, message: String) -> crate::Finish {
        crate::Finish {
            outcome: Outcome::Preempted,
            pose: self.nav.pose().unwrap_or_default(),
            replans: 0,
            driven_m: 0.0,
            message,
            plan_failure: None,
        }
    }

    /// Live parameters (checked by node_glue before they are stored) for the next goal:
    /// the navigator's, the board's watchdog and the planner's timeout.
    fn refresh_config(&mut self) {
        let fresh = self
            .params
            .lock()
            .map_err(|_| "poisoned".to_string())
            .and_then(|p| {
                Ok((
                    p.config()?,
                    p.watchdog_ms(),
                    p.planner_timeout(),
                    p.teleop_limits(),
                ))
            });
        match fresh {
            Ok((c, watchdog_ms, planner_timeout, teleop)) => {
                self.nav.set_config(c);
                self.teleop.set_limits(teleop);
                self.watchdog_ms = watchdog_ms;
                self.planner_timeout = planner_timeout;
            }
            Err(e) => {
                node_glue::log_warn!("parameters are invalid ({e}); keeping the last valid ones")
            }
        }
    }

    fn on_base_goal(&mut self, req: BaseRequest) {
        let g = req.goal.clone();
        let goal = crate::Goal {
            x: g.x,
            y: g.y,
            heading: g.use_heading.then_some(g.theta),
        };
        self.start(goal, Pending::Base(req));
    }

    fn on_nav2_goal(&mut self, req: Nav2Request) {
        match self.goal_in_map(&req.goal.pose) {
            Ok(goal) => self.start(goal, Pending::Nav2(req)),
            Err(r) => {
                node_glue::warn_limited!(
                    self.logs,
                    "goal",
                    "refusing NavigateToPose: {}",
                    r.message
                );
                let pose = self.nav.pose().unwrap_or_default();
                Pending::Nav2(req).reject(r, &pose);
            }
        }
    }

    /// A pose in any frame as a goal in the map frame (through TF; the latest transform).
    fn goal_in_map(&mut self, p: &PoseStamped) -> Result<crate::Goal, Refusal> {
        let map = self.frames.map_frame().to_string();
        let frame = if p.header.frame_id.is_empty() {
            map.clone()
        } else {
            p.header.frame_id.clone()
        };
        let (pos, q) = (&p.pose.position, &p.pose.orientation);
        let values = [pos.x, pos.y, pos.z, q.x, q.y, q.z, q.w];
        let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        if values.iter().any(|v| !v.is_finite()) || norm < 1e-9 {
            return Err(Refusal {
                outcome: Outcome::Rejected,
                code: crate::nav2::UNKNOWN,
                message: format!(
                    "goal pose ({}, {}, {}) orientation ({}, {}, {}, {}) in '{frame}' is not finite or has a zero quaternion",
                    pos.x, pos.y, pos.z, q.x, q.y, q.z, q.w
                ),
            });
        }
        let rotation = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            q.w, q.x, q.y, q.z,
        ));
        let pose = nalgebra::Isometry3::from_parts(
            nalgebra::Translation3::new(pos.x, pos.y, pos.z),
            rotation,
        );
        let in_map = if frame == map {
            pose
        } else {
            match self.tf.lookup(&map, &frame, None) {
                Ok(t) => t * pose,
                Err(e) => {
                    self.counters.goals_tf_refused.inc();
                    return Err(Refusal {
                        outcome: Outcome::Rejected,
                        code: crate::nav2::TF_ERROR,
                        message: format!("goal in '{frame}': no transform to '{map}': {e}"),
                    });
                }
            }
        };
        // The heading: the goal's x axis projected on the map's plane.
        let x_axis = in_map.rotation * nalgebra::Vector3::x();
        Ok(crate::Goal {
            x: in_map.translation.x,
            y: in_map.translation.y,
            heading: Some(x_axis.y.atan2(x_axis.x)),
        })
    }

    /// Starts a goal from any door: the navigator checks it (refused: answered through
    /// the door), a manual drive ends, a running goal is preempted.
    fn start(&mut self, goal: crate::Goal, pending: Pending) {
        self.refresh_config();
        let id = self.next_goal;
        self.next_goal += 1;
        let now = self.now();
        let door = pending.name();
        match self.nav.start(id, goal, now) {
            Err(refused) => {
                node_glue::warn_limited!(
                    self.logs,
                    "goal",
                    "refusing {door} ({}, {}): {}",
                    goal.x,
                    goal.y,
                    refused.message
                );
                let code = if refused.outcome == Outcome::LinkLost {
                    crate::nav2::NO_VALID_CONTROL
                } else {
                    crate::nav2::UNKNOWN
                };
                let pose = self.nav.pose().unwrap_or_default();
                pending.reject(
                    Refusal {
                        outcome: refused.outcome,
                        code,
                        message: refused.message,
                    },
                    &pose,
                );
            }
            Ok(outs) => {
                let Some(door_run) = pending.accept() else {
                    let outs = self.nav.cancel(now);
                    self.apply(outs);
                    return;
                };
                if self.teleop.active() {
                    node_glue::log_info!("{door} takes over from manual driving ({CMD_VEL})");
                    self.teleop.release();
                }
                node_glue::log_info!(
                    "{door} ({:.3}, {:.3}){}",
                    goal.x,
                    goal.y,
                    goal.heading
                        .map(|h| format!(" heading {h:.3}"))
                        .unwrap_or_default()
                );
                // Ends the previous goal (PREEMPTED) before the new one is the active one.
                self.apply(outs);
                self.active = Some(ActiveGoal { id, door: door_run });
            }
        }
    }

    /// A velocity command: manual driving. It takes over from a running goal (which ends
    /// PREEMPTED, as an operator grabbing the joystick expects).
    fn on_cmd_vel(&mut self, t: &Twist, frame: Option<&str>, now: f64) -> Vec<Output> {
        self.counters.cmd_vel.inc();
        if let Some(f) = frame {
            let base = self.frames.base_frame();
            if !(f.is_empty() || f == base || f == "base_footprint") {
                self.counters.cmd_vel_wrong_frame.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "cmd_vel",
                    "{CMD_VEL}: dropped a command in frame '{f}' (commands are in '{base}')"
                );
                return Vec::new();
            }
        }
        let clamped = self.teleop.clamped();
        match self.teleop.command(t.linear.x, t.angular.z, now) {
            Err(TeleopRefused::NotFinite) => {
                self.counters.cmd_vel_not_finite.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "cmd_vel",
                    "{CMD_VEL}: dropped a command that is not finite ({}, {})",
                    t.linear.x,
                    t.angular.z
                );
                Vec::new()
            }
            Ok(starts) => {
                if self.teleop.clamped() > clamped {
                    self.counters.cmd_vel_clamped.inc();
                }
                if starts {
                    node_glue::log_info!("{CMD_VEL}: manual driving");
                }
                let mut outs = Vec::new();
                if let Some(a) = self.active.take() {
                    self.counters.manual_takeovers.inc();
                    node_glue::log_warn!(
                        "{CMD_VEL}: a manual command takes over; the running goal is preempted"
                    );
                    a.door.end(
                        self.ended_here(format!("preempted by a manual command on {CMD_VEL}")),
                    );
                    // The navigator drops the goal (its Done finds no active goal).
                    outs.extend(
                        self.nav
                            .cancel(now)
                            .into_iter()
                            .filter(|o| !matches!(o, Output::Stop)),
                    );
                }
                outs
            }
        }
    }

    fn on_packet(&mut self, p: &Packet, now: f64) -> Vec<Output> {
        match board::parse(&p.name, &p.fields_json) {
            Ok(FromBoard::Odometry { pose, v, w, .. }) => {
                let in_map = self.frames.on_odometry(&pose, v, w).unwrap_or_else(|p| {
                    self.counters.publish_errors.inc();
                    p
                });
                self.nav.on_odometry(in_map, v, w, now)
            }
            Ok(FromBoard::Obstacle {
                sensor,
                distance_m,
                bearing_rad,
                hit,
            }) => {
                self.counters.obstacle_reports.inc();
                match self.frames.on_range(sensor, distance_m) {
                    Ok(()) => {}
                    Err(RangeDropped::UnknownSensor) => {
                        self.counters.ranges_unknown_sensor.inc();
                        node_glue::warn_limited!(
                            self.logs,
                            "range",
                            "{BASE_RANGE}: sensor {sensor} has no frame in range_frames; not published"
                        );
                    }
                    Err(RangeDropped::Publish(e)) => {
                        self.counters.publish_errors.inc();
                        node_glue::warn_limited!(self.logs, "publish", "{BASE_RANGE}: {e}");
                    }
                }
                let hit = self.frames.map_odom().point_to_map(hit);
                self.nav.on_obstacle(distance_m, bearing_rad, hit, now)
            }
            Ok(FromBoard::Ack {
                status,
                command,
                seq,
            }) => {
                self.counters.acks.inc();
                if status != 0 {
                    self.counters.acks_not_ok.inc();
                    node_glue::warn_limited!(
                        self.logs,
                        "ack",
                        "board answered command {command} seq {seq} with status {status}"
                    );
                }
                Vec::new()
            }
            Ok(FromBoard::Other) => Vec::new(),
            Err(e) => {
                self.counters.bad_packets.inc();
                node_glue::warn_limited!(self.logs, "packet", "bad board packet: {e}");
                Vec::new()
            }
        }
    }

    /// A pose estimate (rviz's "2D Pose Estimate"): the robot is there in `map` now;
    /// `map` → `odom` moves, odometry goes on. Another frame, a non-finite or non-planar
    /// pose, or no odometry yet: refused, counted and logged.
    fn on_estimate(&mut self, e: &PoseWithCovarianceStamped) {
        let map = self.frames.map_frame().to_string();
        let frame = if e.header.frame_id.is_empty() {
            map.as_str()
        } else {
            e.header.frame_id.as_str()
        };
        let p = &e.pose.pose;
        let q = &p.orientation;
        let theta = 2.0 * q.z.atan2(q.w);
        let pose = Pose2::new(p.position.x, p.position.y, theta);
        let refused = if frame != map {
            Some(format!("frame '{frame}' is not the map frame '{map}'"))
        } else if !(pose.is_finite() && q.x.is_finite() && q.y.is_finite()) {
            Some("a value is not finite".to_string())
        } else if !self.frames.relocate(&pose) {
            Some("no odometry from the board yet".to_string())
        } else {
            None
        };
        match refused {
            Some(why) => {
                self.counters.pose_estimates_refused.inc();
                node_glue::warn_limited!(self.logs, "estimate", "{INITIAL_POSE} refused: {why}");
            }
            None => {
                self.counters.pose_estimates.inc();
                let o = self.frames.map_odom().origin;
                node_glue::log_info!(
                    "{INITIAL_POSE}: the robot is at ({:.3}, {:.3}, {:.3} rad) in {map}; {map} -> odom is now ({:.3}, {:.3}, {:.3} rad)",
                    pose.x, pose.y, pose.theta, o.x, o.y, o.theta
                );
            }
        }
    }

    fn on_map(&mut self, m: &OccupancyGrid) {
        self.counters.maps.inc();
        let (w, h) = (m.info.width as usize, m.info.height as usize);
        let res = f64::from(m.info.resolution);
        if w == 0 || h == 0 || m.data.len() != w * h || !(res.is_finite() && res > 0.0) {
            node_glue::warn_limited!(
                self.logs,
                "map",
                "map ignored: {w}x{h} cells, {} values, resolution {res}",
                m.data.len()
            );
            return;
        }
        let blocked = m
            .data
            .chunks(w)
            .rev()
            .flatten()
            .map(|&v| v == 100)
            .collect();
        let res = res.to_string().parse().unwrap_or(res);
        self.nav.set_known_obstacles(Some(KnownObstacles {
            width: w,
            height: h,
            resolution_m: res,
            origin_m: (m.info.origin.position.x, m.info.origin.position.y),
            blocked,
        }));
    }

    fn apply(&mut self, outs: Vec<Output>) {
        for o in outs {
            match o {
                Output::Motion { v, w } => {
                    self.seq = self.seq.wrapping_add(1);
                    let fields = board::drive_speed(self.seq, v, w, self.watchdog_ms);
                    if self.send(board::DRIVE_SPEED, fields) {
                        self.counters.drive_sent.inc();
                    }
                }
                Output::Stop => self.send_stop(),
                Output::Plan { id, start, goal } => {
                    self.counters.plan_requests.inc();
                    let (client, tx, timeout) = (
                        self.planner.clone(),
                        self.events_tx.clone(),
                        self.planner_timeout,
                    );
                    tokio::spawn(async move {
                        let reply = plan(&client, start, goal, timeout).await;
                        let _ = tx.send(Event::Plan(id, reply));
                    });
                }
                Output::Mark {
                    id,
                    centers,
                    radius_m,
                    ttl_s,
                } => {
                    self.counters.mark_requests.inc();
                    node_glue::log_info!(
                        "marking {:?} (radius {radius_m} m, ttl {ttl_s} s) on the planner's map",
                        centers
                    );
                    let (client, tx, timeout) = (
                        self.marker.clone(),
                        self.events_tx.clone(),
                        self.planner_timeout,
                    );
                    tokio::spawn(async move {
                        let ok = mark(&client, centers, radius_m, ttl_s, timeout).await;
                        let _ = tx.send(Event::Marked(id, ok));
                    });
                }
                Output::Feedback { goal, feedback } => {
                    let speed = self.nav.config().max_speed_mps;
                    let map = self.frames.map_frame().to_string();
                    if let Some(a) = self.active.as_mut().filter(|a| a.id == goal) {
                        a.door.feedback(&feedback, &map, speed);
                    }
                }
                Output::Done { goal, finish } => {
                    let Some(a) = self.active.take_if(|a| a.id == goal) else {
                        continue;
                    };
                    let log = format!(
                        "goal: {} after {:.2} m, {} re-plans: {}",
                        finish.outcome.name(),
                        finish.driven_m,
                        finish.replans,
                        finish.message
                    );
                    match finish.outcome {
                        Outcome::Reached => node_glue::log_info!("{log}"),
                        _ => node_glue::log_warn!("{log}"),
                    }
                    a.door.end(finish);
                }
            }
        }
    }

    fn send_stop(&mut self) {
        self.seq = self.seq.wrapping_add(1);
        if self.send(board::STOP, board::stop(self.seq)) {
            self.counters.stops_sent.inc();
        }
    }

    fn send(&self, name: &str, fields_json: String) -> bool {
        let msg = Packet {
            stamp: time::now(),
            name: name.into(),
            fields_json,
            ..Default::default()
        };
        match self.tx.publish(&msg) {
            Ok(()) => true,
            Err(e) => {
                self.counters.publish_errors.inc();
                node_glue::log_warn!("could not publish {name} on {}: {e}", topics::COMMS_TX);
                false
            }
        }
    }
}

fn point(p: (f64, f64)) -> Point {
    Point {
        x: p.0,
        y: p.1,
        z: 0.0,
    }
}

/// One `plan_path` call (waits for the service, then for the answer, within `timeout`).
async fn plan(
    client: &r2r::Client<PlanPath::Service>,
    start: (f64, f64),
    goal: (f64, f64),
    timeout: Duration,
) -> PlanReply {
    let call = async {
        r2r::Node::is_available(client)?.await?;
        let req = PlanPath::Request {
            start: point(start),
            goal: point(goal),
            simplify: true,
            smooth: true,
        };
        client.request(&req)?.await
    };
    match tokio::time::timeout(timeout, call).await {
        Err(_) => PlanReply::Failed(
            PlanFailure::Unavailable,
            format!(
                "the planner ({}) did not answer within {:.1} s",
                topics::PLAN_PATH,
                timeout.as_secs_f64()
            ),
        ),
        Ok(Err(e)) => PlanReply::Failed(
            PlanFailure::Unavailable,
            format!("the planner ({}): {e}", topics::PLAN_PATH),
        ),
        Ok(Ok(resp)) => match PlanFailure::from_code(resp.error_code) {
            None => PlanReply::Path(
                resp.path
                    .poses
                    .iter()
                    .map(|p| (p.pose.position.x, p.pose.position.y))
                    .collect(),
            ),
            Some(why) => PlanReply::Failed(why, resp.error_msg),
        },
    }
}

/// One `update_map` call; true when the planner answered OK.
async fn mark(
    client: &r2r::Client<UpdateMap::Service>,
    centers: Vec<(f64, f64)>,
    radius_m: f64,
    ttl_s: f64,
    timeout: Duration,
) -> bool {
    let call = async {
        r2r::Node::is_available(client)?.await?;
        let req = UpdateMap::Request {
            centers: centers.into_iter().map(point).collect(),
            radius_m,
            clear: false,
            ttl_s,
        };
        client.request(&req)?.await
    };
    match tokio::time::timeout(timeout, call).await {
        Ok(Ok(resp)) if resp.outcome == arnie_constants::srv::update_map::response::OK => true,
        Ok(Ok(resp)) => {
            node_glue::log_warn!("{UPDATE_MAP} refused the mark: {}", resp.message);
            false
        }
        Ok(Err(e)) => {
            node_glue::log_warn!("{UPDATE_MAP}: {e}");
            false
        }
        Err(_) => {
            node_glue::log_warn!(
                "{UPDATE_MAP} did not answer within {:.1} s",
                timeout.as_secs_f64()
            );
            false
        }
    }
}
