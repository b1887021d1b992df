//! `trajectory_server`: the ROS 2 node around the [`trajectory_server`] library.
//!
//! - serves `arnie_interfaces/action/MoveTo` on `/trajectory/move_to`;
//! - subscribes `/arm/position` (`geometry_msgs/PointStamped`, sensor QoS) and
//!   `/arm/target` (legacy target topic, `geometry_msgs/PointStamped`, command QoS);
//! - publishes one set-point per period on `/arm/command` (`PointStamped`, command QoS),
//!   the path being run on `/trajectory/plan` (`nav_msgs/Path`, latched), counters on
//!   `/diagnostics`.
//!
//! One task owns the running move (the library's [`Executor`]) and selects over: the
//! period tick, new goals, legacy targets, the running goal's cancel requests, shutdown.
//! A second task stores the latest arm position with its receive time. Topics are in
//! metres; the library works in millimetres: the conversion happens here, once, with
//! [`trajectory_server::units`].
//!
//! Goal handling (see README.md):
//! - a bad goal is accepted and at once aborted with outcome `REJECTED` and the reason in
//!   `message` (a plain rejection cannot carry a reason); it does not disturb a running move;
//! - a good goal preempts the running move (outcome `PREEMPTED`) and starts from the
//!   latest measured position;
//! - cancel ends the move at once and publishes the measured position once on
//!   `/arm/command`, so the arm holds where it is (outcome `CANCELLED`).
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arnie_ros::diagnostics::{Level, Status};
use arnie_ros::r2r::{
    self,
    arnie_interfaces::action::MoveTo,
    geometry_msgs::msg::{Point, PointStamped},
    nav_msgs::msg::Path,
    ActionServerCancelRequest, ActionServerGoal, ActionServerGoalRequest, RosParams,
};
use arnie_ros::{main_with, qos, time, topics, App, Error, Shutdown};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use nalgebra::Point3;
use tokio::time::{Interval, MissedTickBehavior};
use trajectory_server::config::MAX_PERIOD_MS;
use trajectory_server::units::{m_to_mm, mm_to_m, scalar_mm_to_m};
use trajectory_server::{
    validate_goal, Action, ArmSample, End, Executor, Feedback, LegacyTargets, LegacyVerdict,
    Outcome, RawTrajectoryConfig, TrajectoryConfig, TrajectoryError,
};

const NODE: &str = "trajectory_server";

/// ROS parameters: flat names with units. Defaults are the library's
/// [`RawTrajectoryConfig::default`] (the original values), see `impl Default`.
#[derive(RosParams, Debug)]
struct TrajectoryParams {
    /// Time between two set-points on /arm/command [ms] (original: 35)
    period_ms: i64,
    /// Set-points per millimetre of path length (original: 1)
    sample_factor: i64,
    /// Allowed error on every axis against the previous set-point before it is an obstacle [mm] (original: 25)
    tracking_tolerance_mm: f64,
    /// Periods to hold still after an obstacle before reversing to the start (original: 10)
    reverse_wait_periods: i64,
    /// Extra periods after the last set-point for the arm to arrive [periods]
    settle_periods: i64,
    /// Workspace box, lower x bound for targets, world frame [mm]
    workspace_min_x_mm: f64,
    /// Workspace box, lower y bound for targets, world frame [mm]
    workspace_min_y_mm: f64,
    /// Workspace box, lower z bound for targets, world frame [mm]
    workspace_min_z_mm: f64,
    /// Workspace box, upper x bound for targets, world frame [mm]
    workspace_max_x_mm: f64,
    /// Workspace box, upper y bound for targets, world frame [mm]
    workspace_max_y_mm: f64,
    /// Workspace box, upper z bound for targets, world frame [mm]
    workspace_max_z_mm: f64,
    /// An arm position older than this is stale: goals are rejected, a move waits [ms]
    position_timeout_ms: i64,
    /// Consecutive periods without a fresh arm position before a move aborts (help needed)
    stale_abort_periods: i64,
}

impl Default for TrajectoryParams {
    fn default() -> Self {
        let d = RawTrajectoryConfig::default();
        TrajectoryParams {
            period_ms: d.period_ms as i64,
            sample_factor: i64::from(d.sample_factor),
            tracking_tolerance_mm: d.tracking_tolerance_mm,
            reverse_wait_periods: i64::from(d.reverse_wait_periods),
            settle_periods: i64::from(d.settle_periods),
            workspace_min_x_mm: d.workspace_min_mm[0],
            workspace_min_y_mm: d.workspace_min_mm[1],
            workspace_min_z_mm: d.workspace_min_mm[2],
            workspace_max_x_mm: d.workspace_max_mm[0],
            workspace_max_y_mm: d.workspace_max_mm[1],
            workspace_max_z_mm: d.workspace_max_mm[2],
            position_timeout_ms: d.position_timeout_ms as i64,
            stale_abort_periods: i64::from(d.stale_abort_periods),
        }
    }
}

fn invalid(field: &'static str, value: i64) -> TrajectoryError {
    TrajectoryError::InvalidConfig {
        field,
        reason: format!("{value} is negative or too large"),
    }
}

impl TrajectoryParams {
    /// The checked library config; the error names the parameter.
    fn config(&self) -> Result<TrajectoryConfig, TrajectoryError> {
        let u64_of = |field, v: i64| u64::try_from(v).map_err(|_| invalid(field, v));
        let u32_of = |field, v: i64| u32::try_from(v).map_err(|_| invalid(field, v));
        let raw = RawTrajectoryConfig {
            period_ms: u64_of("period_ms", self.period_ms)?,
            sample_factor: u32_of("sample_factor", self.sample_factor)?,
            tracking_tolerance_mm: self.tracking_tolerance_mm,
            reverse_wait_periods: u32_of("reverse_wait_periods", self.reverse_wait_periods)?,
            settle_periods: u32_of("settle_periods", self.settle_periods)?,
            workspace_min_mm: [
                self.workspace_min_x_mm,
                self.workspace_min_y_mm,
                self.workspace_min_z_mm,
            ],
            workspace_max_mm: [
                self.workspace_max_x_mm,
                self.workspace_max_y_mm,
                self.workspace_max_z_mm,
            ],
            position_timeout_ms: u64_of("position_timeout_ms", self.position_timeout_ms)?,
            stale_abort_periods: u32_of("stale_abort_periods", self.stale_abort_periods)?,
        };
        TrajectoryConfig::try_from(raw)
    }
}

/// Counters published on /diagnostics.
#[derive(Default)]
struct Counters {
    positions: AtomicU64,
    positions_not_finite: AtomicU64,
    goals_accepted: AtomicU64,
    goals_rejected: AtomicU64,
    legacy_targets: AtomicU64,
    legacy_repeats: AtomicU64,
    legacy_rejected: AtomicU64,
    setpoints_sent: AtomicU64,
    reached: AtomicU64,
    reversed_to_start: AtomicU64,
    aborted_help_needed: AtomicU64,
    cancelled: AtomicU64,
    preempted: AtomicU64,
    publish_errors: AtomicU64,
    /// 0 idle, 1 moving, 2 the last move needed help.
    state: AtomicU8,
}

fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    fn status(&self) -> Status {
        let (level, message) = match self.state.load(Ordering::Relaxed) {
            1 => (Level::Ok, "moving"),
            2 => (Level::Warn, "last move aborted: help needed"),
            _ => (Level::Ok, "idle"),
        };
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut s = Status::ok("move_to", message);
        s.level = level;
        s.with("positions", get(&self.positions))
            .with("positions_not_finite", get(&self.positions_not_finite))
            .with("goals_accepted", get(&self.goals_accepted))
            .with("goals_rejected", get(&self.goals_rejected))
            .with("legacy_targets", get(&self.legacy_targets))
            .with("legacy_repeats", get(&self.legacy_repeats))
            .with("legacy_rejected", get(&self.legacy_rejected))
            .with("setpoints_sent", get(&self.setpoints_sent))
            .with("reached", get(&self.reached))
            .with("reversed_to_start", get(&self.reversed_to_start))
            .with("aborted_help_needed", get(&self.aborted_help_needed))
            .with("cancelled", get(&self.cancelled))
            .with("preempted", get(&self.preempted))
            .with("publish_errors", get(&self.publish_errors))
    }

    fn count_end(&self, outcome: Outcome) {
        match outcome {
            Outcome::Reached => inc(&self.reached),
            Outcome::ReversedToStart => inc(&self.reversed_to_start),
            Outcome::AbortedHelpNeeded => inc(&self.aborted_help_needed),
            Outcome::Cancelled => inc(&self.cancelled),
            Outcome::Rejected => inc(&self.goals_rejected),
            Outcome::Preempted => inc(&self.preempted),
        }
        let state = if outcome == Outcome::AbortedHelpNeeded {
            2
        } else {
            0
        };
        self.state.store(state, Ordering::Relaxed);
    }
}

/// The MoveTo `outcome` constant of each library outcome (the one place they meet).
fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::Reached => MoveTo::Result::REACHED as u8,
        Outcome::ReversedToStart => MoveTo::Result::REVERSED_TO_START as u8,
        Outcome::AbortedHelpNeeded => MoveTo::Result::ABORTED_HELP_NEEDED as u8,
        Outcome::Cancelled => MoveTo::Result::CANCELLED as u8,
        Outcome::Rejected => MoveTo::Result::REJECTED as u8,
        Outcome::Preempted => MoveTo::Result::PREEMPTED as u8,
    }
}

fn phase_code(p: trajectory_server::Phase) -> u8 {
    use trajectory_server::Phase;
    match p {
        Phase::Forward => MoveTo::Feedback::FORWARD as u8,
        Phase::Reversing => MoveTo::Feedback::REVERSING as u8,
        Phase::Waiting => MoveTo::Feedback::WAITING as u8,
    }
}

fn to_point(p_mm: Point3<f64>) -> Point {
    let m = mm_to_m(p_mm);
    Point {
        x: m.x,
        y: m.y,
        z: m.z,
    }
}

fn from_point(p: &Point) -> Point3<f64> {
    m_to_mm(Point3::new(p.x, p.y, p.z))
}

fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
}

/// The latest arm position and when it arrived.
#[derive(Clone, Copy)]
struct Received {
    position_mm: Point3<f64>,
    at: Instant,
}

type Latest = Arc<Mutex<Option<Received>>>;

fn latest(arm: &Latest) -> Option<Received> {
    arm.lock().map(|g| *g).unwrap_or(None)
}

/// Stores every arm position (also non-finite ones: a goal is then rejected with that
/// reason, and a running move treats it as stale).
async fn track_position(
    mut positions: impl Stream<Item = PointStamped> + Unpin,
    arm: Latest,
    counters: Arc<Counters>,
) {
    while let Some(msg) = positions.next().await {
        let position_mm = from_point(&msg.point);
        inc(&counters.positions);
        if !finite(&position_mm) {
            inc(&counters.positions_not_finite);
        }
        if let Ok(mut slot) = arm.lock() {
            *slot = Some(Received {
                position_mm,
                at: Instant::now(),
            });
        }
    }
}

type Goal = ActionServerGoal<MoveTo::Action>;
type GoalRequest = ActionServerGoalRequest<MoveTo::Action>;
type CancelStream = BoxStream<'static, ActionServerCancelRequest>;

/// Who asked for the running move.
enum Source {
    Action { goal: Goal, cancel: CancelStream },
    Legacy,
}

/// The running move.
struct Active {
    exec: Executor,
    source: Source,
    ticker: Interval,
    position_timeout: Duration,
    /// The way back was published on /trajectory/plan.
    reverse_published: bool,
}

/// Everything the control task owns.
struct Server {
    params: Arc<Mutex<TrajectoryParams>>,
    /// The last valid parameter set (a later invalid `ros2 param set` is not applied).
    config: TrajectoryConfig,
    arm: Latest,
    command: r2r::Publisher<PointStamped>,
    plan: r2r::Publisher<Path>,
    counters: Arc<Counters>,
    legacy: LegacyTargets,
    active: Option<Active>,
}

/// What the running move waits for: its next period, or a cancel request of its goal.
enum MoveEvent {
    Tick,
    Cancel(ActionServerCancelRequest),
}

/// The running move's next event; pending forever when idle.
async fn next_move_event(active: &mut Option<Active>) -> MoveEvent {
    let Some(a) = active else {
        return std::future::pending().await;
    };
    match &mut a.source {
        Source::Action { cancel, .. } => tokio::select! {
            _ = a.ticker.tick() => MoveEvent::Tick,
            Some(request) = cancel.next() => MoveEvent::Cancel(request),
        },
        Source::Legacy => {
            a.ticker.tick().await;
            MoveEvent::Tick
        }
    }
}

impl Server {
    /// The server config from the live parameters (or the last valid one, with a warning).
    fn refresh_config(&mut self) -> TrajectoryConfig {
        let fresh = match self.params.lock() {
            Ok(p) => p.config(),
            Err(_) => return self.config.clone(),
        };
        match fresh {
            Ok(c) => self.config = c,
            Err(e) => r2r::log_warn!(
                NODE,
                "parameters are invalid ({e}); keeping the last valid ones"
            ),
        }
        self.config.clone()
    }

    fn arm_sample(&self) -> Option<ArmSample> {
        latest(&self.arm).map(|r| ArmSample {
            position_mm: r.position_mm,
            age_ms: u64::try_from(r.at.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }

    /// The best known arm position for a result or a hold: the latest finite sample,
    /// else what the move saw last.
    fn best_position(&self, fallback_mm: Point3<f64>) -> Point3<f64> {
        latest(&self.arm)
            .map(|r| r.position_mm)
            .filter(finite)
            .unwrap_or(fallback_mm)
    }

    /// Goal overrides (`period_s`, `sample_factor`; 0 = the server's) applied and checked,
    /// then the target checked and the path planned from the measured position.
    /// The error is the reason given to the client.
    fn plan_goal(
        &self,
        config: &TrajectoryConfig,
        target_mm: Point3<f64>,
        period_s: f64,
        sample_factor: u32,
    ) -> Result<(Executor, TrajectoryConfig), String> {
        let period_ms = if period_s == 0.0 {
            None
        } else {
            let ms = (period_s * 1000.0).round();
            if !ms.is_finite() || ms < 1.0 || ms > MAX_PERIOD_MS as f64 {
                return Err(format!(
                    "goal period_s = {period_s} s is not in 0.001..={} s (0 = the server's)",
                    MAX_PERIOD_MS / 1000
                ));
            }
            Some(ms as u64)
        };
        let factor = (sample_factor != 0).then_some(sample_factor);
        let config = config
            .with_overrides(period_ms, factor)
            .map_err(|e| match e {
                TrajectoryError::InvalidConfig { field, reason } => {
                    format!("goal {field}: {reason} (0 = the server's)")
                }
                e => e.to_string(),
            })?;
        let plan = validate_goal(target_mm, self.arm_sample(), &config)
            .and_then(|accepted| accepted.into_executor(&config));
        plan.map(|exec| (exec, config)).map_err(|e| e.to_string())
    }

    fn on_goal_request(&mut self, req: GoalRequest) {
        let config = self.refresh_config();
        let g = req.goal.clone();
        let target_mm = from_point(&g.target);
        let uuid = req.uuid;
        match self.plan_goal(&config, target_mm, g.period_s, g.sample_factor) {
            Err(reason) => {
                r2r::log_warn!(NODE, "rejecting MoveTo goal {uuid}: {reason}");
                inc(&self.counters.goals_rejected);
                let position = latest(&self.arm)
                    .map(|r| to_point(r.position_mm))
                    .unwrap_or_default();
                match req.accept() {
                    Ok((mut goal, _cancel)) => {
                        let result = MoveTo::Result {
                            outcome: outcome_code(Outcome::Rejected),
                            final_position: position,
                            message: reason,
                        };
                        if let Err(e) = goal.abort(result) {
                            r2r::log_warn!(NODE, "could not answer rejected goal {uuid}: {e}");
                        }
                    }
                    Err(e) => r2r::log_warn!(NODE, "could not answer rejected goal {uuid}: {e}"),
                }
            }
            Ok((exec, goal_config)) => {
                let (goal, cancel) = match req.accept() {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        r2r::log_warn!(NODE, "could not accept goal {uuid}: {e}");
                        return;
                    }
                };
                inc(&self.counters.goals_accepted);
                r2r::log_info!(
                    NODE,
                    "MoveTo goal {uuid}: to {:?} mm, {} set-points every {} ms",
                    target_mm.coords.as_slice(),
                    exec.path().len(),
                    goal_config.period_ms()
                );
                self.preempt();
                self.start(
                    exec,
                    &goal_config,
                    Source::Action {
                        goal,
                        cancel: cancel.boxed(),
                    },
                );
            }
        }
    }

    fn on_legacy_target(&mut self, msg: PointStamped) {
        inc(&self.counters.legacy_targets);
        let config = self.refresh_config();
        let target_mm = from_point(&msg.point);
        let exec = validate_goal(target_mm, self.arm_sample(), &config)
            .and_then(|accepted| accepted.into_executor(&config));
        let exec = match exec {
            Ok(exec) => exec,
            Err(reason) => {
                inc(&self.counters.legacy_rejected);
                r2r::log_warn!(
                    NODE,
                    "legacy target on {} rejected: {reason}",
                    topics::ARM_TARGET
                );
                return;
            }
        };
        match self.legacy.offer(target_mm, self.active.is_some()) {
            LegacyVerdict::Repeat => {
                inc(&self.counters.legacy_repeats);
                r2r::log_debug!(NODE, "legacy target repeated; ignored");
            }
            LegacyVerdict::Start | LegacyVerdict::Preempt => {
                r2r::log_info!(
                    NODE,
                    "legacy target {:?} mm: {} set-points",
                    target_mm.coords.as_slice(),
                    exec.path().len()
                );
                self.preempt();
                self.start(exec, &config, Source::Legacy);
            }
        }
    }

    fn start(&mut self, exec: Executor, config: &TrajectoryConfig, source: Source) {
        self.publish_plan(exec.path());
        let mut ticker = tokio::time::interval(Duration::from_millis(config.period_ms()));
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        self.counters.state.store(1, Ordering::Relaxed);
        self.active = Some(Active {
            exec,
            source,
            ticker,
            position_timeout: Duration::from_millis(config.position_timeout_ms()),
            reverse_published: false,
        });
    }

    /// Ends the running move, if any, with `PREEMPTED` (the next move starts at once).
    fn preempt(&mut self) {
        if let Some(mut a) = self.active.take() {
            let step = a.exec.preempt();
            if let Action::Done(end) = step.action {
                self.finish(a.source, end, step.feedback);
            }
        }
    }

    fn on_cancel(&mut self, request: ActionServerCancelRequest) {
        let Some(mut a) = self.active.take() else {
            request.reject();
            return;
        };
        request.accept();
        let step = a.exec.cancel();
        let hold = self.best_position(step.feedback.measured_mm);
        self.send_command(hold);
        r2r::log_info!(
            NODE,
            "goal cancelled; holding at {:?} mm",
            hold.coords.as_slice()
        );
        if let Action::Done(end) = step.action {
            self.finish(a.source, end, step.feedback);
        }
    }

    fn on_tick(&mut self) {
        let Some(a) = self.active.as_mut() else {
            return;
        };
        let measured = latest(&self.arm)
            .filter(|r| r.at.elapsed() <= a.position_timeout)
            .map(|r| r.position_mm);
        let step = a.exec.step(measured);
        let reverse_plan = (a.exec.is_reversing() && !a.reverse_published).then(|| {
            a.reverse_published = true;
            a.exec.path().to_vec()
        });
        if let Source::Action { goal, .. } = &a.source {
            if let Err(e) = goal.publish_feedback(feedback(&step.feedback)) {
                r2r::log_debug!(NODE, "could not publish feedback: {e}");
            }
        }
        if let Some(path) = reverse_plan {
            r2r::log_warn!(
                NODE,
                "obstacle: reversing to the start ({} set-points)",
                path.len()
            );
            self.publish_plan(&path);
        }
        match step.action {
            Action::Send(p) => self.send_command(p),
            Action::Wait => {}
            Action::Done(end) => {
                if let Some(a) = self.active.take() {
                    self.finish(a.source, end, step.feedback);
                }
            }
        }
    }

    /// Answers the goal (or logs a legacy move's end).
    fn finish(&self, source: Source, end: End, fb: Feedback) {
        let outcome = end.outcome();
        let message = end.to_string();
        self.counters.count_end(outcome);
        let final_mm = self.best_position(fb.measured_mm);
        let what = match source {
            Source::Action { .. } => "MoveTo goal",
            Source::Legacy => "legacy move",
        };
        match outcome {
            Outcome::AbortedHelpNeeded => {
                r2r::log_error!(NODE, "{what}: {} ({message})", outcome.name())
            }
            Outcome::ReversedToStart => {
                r2r::log_warn!(NODE, "{what}: {} ({message})", outcome.name())
            }
            _ => r2r::log_info!(NODE, "{what}: {} ({message})", outcome.name()),
        }
        if let Source::Action { mut goal, .. } = source {
            let result = MoveTo::Result {
                outcome: outcome_code(outcome),
                final_position: to_point(final_mm),
                message,
            };
            let sent = match outcome {
                Outcome::Reached => goal.succeed(result),
                Outcome::Cancelled => goal.cancel(result),
                _ => goal.abort(result),
            };
            if let Err(e) = sent {
                r2r::log_warn!(NODE, "could not send the MoveTo result: {e}");
            }
        }
    }

    /// Shutdown: stop the running move where the arm is.
    fn on_shutdown(&mut self) {
        let Some(mut a) = self.active.take() else {
            return;
        };
        let step = a.exec.cancel();
        let hold = self.best_position(step.feedback.measured_mm);
        self.send_command(hold);
        r2r::log_warn!(
            NODE,
            "shutting down during a move; arm holds at {:?} mm",
            hold.coords.as_slice()
        );
        if let Source::Action { mut goal, .. } = a.source {
            let _ = goal.abort(MoveTo::Result {
                outcome: outcome_code(Outcome::Cancelled),
                final_position: to_point(hold),
                message: format!("{NODE} is shutting down; arm holds its position"),
            });
        }
    }

    fn send_command(&self, p_mm: Point3<f64>) {
        let msg = PointStamped {
            header: time::header(topics::WORLD_FRAME),
            point: to_point(p_mm),
        };
        match self.command.publish(&msg) {
            Ok(()) => inc(&self.counters.setpoints_sent),
            Err(e) => {
                inc(&self.counters.publish_errors);
                r2r::log_warn!(NODE, "could not publish {}: {e}", topics::ARM_COMMAND);
            }
        }
    }

    fn publish_plan(&self, path_mm: &[Point3<f64>]) {
        let path = arnie_ros::msgs::path(time::header(topics::WORLD_FRAME), path_mm.iter().map(|p| to_point(*p)));
        if let Err(e) = self.plan.publish(&path) {
            inc(&self.counters.publish_errors);
            r2r::log_warn!(NODE, "could not publish {}: {e}", topics::TRAJECTORY_PLAN);
        }
    }
}

fn feedback(f: &Feedback) -> MoveTo::Feedback {
    MoveTo::Feedback {
        phase: phase_code(f.phase),
        setpoint: to_point(f.setpoint_mm),
        measured: to_point(f.measured_mm),
        progress: f.progress,
        index: f.index,
        count: f.count,
        tracking_error: scalar_mm_to_m(f.tracking_error_mm),
    }
}

/// The control task: one move at a time, stepped every period.
async fn control(
    mut server: Server,
    mut goals: impl Stream<Item = GoalRequest> + Unpin,
    mut targets: impl Stream<Item = PointStamped> + Unpin,
    shutdown: Shutdown,
) {
    loop {
        tokio::select! {
            _ = shutdown.wait() => {
                server.on_shutdown();
                break;
            }
            req = goals.next() => match req {
                Some(req) => server.on_goal_request(req),
                None => break,
            },
            Some(msg) = targets.next() => server.on_legacy_target(msg),
            event = next_move_event(&mut server.active) => match event {
                MoveEvent::Tick => server.on_tick(),
                MoveEvent::Cancel(request) => server.on_cancel(request),
            },
        }
    }
}

fn main() {
    main_with(NODE, setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(TrajectoryParams::default())?;
    let config = params
        .lock()
        .map_err(|_| Error::Setup("parameter table poisoned".into()))?
        .config()
        .map_err(|e| Error::Parameter(e.to_string()))?;
    let goals = app
        .node
        .create_action_server::<MoveTo::Action>(topics::MOVE_TO)?;
    let positions = app
        .node
        .subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    let targets = app
        .node
        .subscribe::<PointStamped>(topics::ARM_TARGET, qos::commands())?;
    let command = app
        .node
        .create_publisher::<PointStamped>(topics::ARM_COMMAND, qos::commands())?;
    let plan = app
        .node
        .create_publisher::<Path>(topics::TRAJECTORY_PLAN, qos::latched())?;
    let diagnostics = app.diagnostics()?;
    let counters = Arc::new(Counters::default());
    let arm: Latest = Arc::new(Mutex::new(None));
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    tokio::spawn(track_position(positions, arm.clone(), counters.clone()));
    let server = Server {
        params,
        config,
        arm,
        command,
        plan,
        counters: counters.clone(),
        legacy: LegacyTargets::new(),
        active: None,
    };
    tokio::spawn(control(server, goals, targets, shutdown.clone()));
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        vec![counters.status()]
    });
    Ok(())
}
