//! The control task: [`Server`] owns the running move and handles new `MoveTo` goals and
//! legacy targets; [`control`] selects over the period tick, goals, targets, the running
//! goal's cancel requests and shutdown. Stepping and ending a move: `running`.
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use nalgebra::Point3;
use node_glue::action::{self, Accepted, CancelStream};
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::r2r::{
    arnie_interfaces::action::MoveTo, arnie_interfaces::srv::ClearObstructions,
    geometry_msgs::msg::PointStamped, nav_msgs::msg::Path, ActionServerCancelRequest,
    ActionServerGoal, ActionServerGoalRequest, ServiceRequest,
};
use node_glue::ratelimit::RateLimit;
use node_glue::time::Interval;
use node_glue::{topics, Shutdown};
use tokio::time::MissedTickBehavior;

use super::convert::{finite, from_point, to_point, to_point_m};
use super::counters::Counters;
use super::obstructions::Memory;
use super::params::{DetourSettings, TrajectoryParams};
use super::position::Latest;
use crate::config::MAX_PERIOD_MS;
use crate::{
    validate_goal, Action, ArmSample, DetourPlanning, Executor, LegacyTargets, LegacyVerdict,
    Outcome, Scene, TrajectoryConfig, TrajectoryError, Workspace,
};
use node_glue::r2r::geometry_msgs::msg::Point;

type Goal = ActionServerGoal<MoveTo::Action>;
type GoalRequest = ActionServerGoalRequest<MoveTo::Action>;
type ClearRequest = ServiceRequest<ClearObstructions::Service>;

/// Why a `MoveTo` goal (or a clicked point) is refused: its `Display` is the result's
/// message (and the log line's reason).
#[derive(Debug, thiserror::Error)]
pub(super) enum GoalError {
    /// The goal's `period_s` outside the allowed periods.
    #[error(
        "goal period_s = {0} s is not in 0.001..={max} s (0 = the server's)",
        max = MAX_PERIOD_MS / 1000
    )]
    Period(f64),
    /// A goal override the config refuses.
    #[error("goal {field}: {reason} (0 = the server's)")]
    Override {
        /// The override, e.g. `sample_factor`.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// The target cannot be planned to.
    #[error("{0}")]
    Plan(TrajectoryError),
    /// The node is not active (lifecycle): the reason.
    #[error("{0}")]
    Inactive(String),
    /// The target's frame cannot be transformed into the command frame.
    #[error(
        "target frame \"{frame}\" cannot be transformed into \"{world}\": {source}",
        world = topics::WORLD_FRAME
    )]
    Frame {
        /// The goal's frame.
        frame: String,
        /// The TF buffer's reason.
        source: node_glue::tf::TfError,
    },
}

/// Who asked for the running move.
pub(super) enum Source {
    Action {
        goal: Goal,
        cancel: CancelStream,
    },
    Legacy,
    /// A point published on `clicked_point` (rviz's Publish Point tool).
    Clicked,
}

/// The running move.
pub(super) struct Active {
    pub(super) exec: Executor,
    pub(super) source: Source,
    pub(super) ticker: Interval,
    pub(super) position_timeout: Duration,
    /// The executor's path generation last published on /trajectory/plan.
    pub(super) plan_generation: u32,
}

/// Everything the control task owns.
pub(crate) struct Server {
    pub(super) params: Arc<Mutex<TrajectoryParams>>,
    /// The last valid parameter set (a later invalid `ros2 param set` is not applied).
    pub(super) config: TrajectoryConfig,
    /// The detour half of the last valid parameter set (`None`: detours off).
    pub(super) detour: Option<DetourSettings>,
    /// The remembered obstructions.
    pub(super) obstructions: Memory,
    /// The TF tree (`/tf`, `/tf_static`): targets given in other frames.
    pub(super) tf: node_glue::tf::Listener,
    pub(super) arm: Latest,
    pub(super) command: LifecyclePublisher<PointStamped>,
    pub(super) plan: LifecyclePublisher<Path>,
    /// The node's lifecycle: goals and targets only while active.
    pub(super) lc: Lifecycle,
    /// Deactivations (the lifecycle callback waits on the sender it gives).
    pub(super) deactivations: tokio::sync::mpsc::UnboundedReceiver<std::sync::mpsc::Sender<()>>,
    pub(super) counters: Arc<Counters>,
    /// Input-driven warnings (rejected goals and targets), rate-limited.
    pub(super) logs: RateLimit,
    pub(super) legacy: LegacyTargets,
    pub(super) active: Option<Active>,
}

/// What the running move waits for: its next period, or a cancel request of its goal.
enum MoveEvent {
    Tick,
    Cancel(ActionServerCancelRequest),
}

/// How often remembered obstructions are checked for expiry.
const EXPIRY_CHECK: Duration = Duration::from_millis(200);

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
        Source::Legacy | Source::Clicked => {
            a.ticker.tick().await;
            MoveEvent::Tick
        }
    }
}

impl Server {
    /// The server config from the live parameters (or the last valid one, with a warning).
    fn refresh_config(&mut self) -> TrajectoryConfig {
        let fresh = match self.params.lock() {
            Ok(p) => p
                .config()
                .and_then(|c| Ok((c, p.detour()?, p.obstructions()?))),
            Err(_) => return self.config.clone(),
        };
        match fresh {
            Ok((config, detour, obstructions)) => {
                self.config = config;
                self.detour = detour;
                self.obstructions.reconfigure(obstructions, &self.counters);
            }
            Err(e) => {
                node_glue::log_warn!("parameters are invalid ({e}); keeping the last valid ones")
            }
        }
        self.config.clone()
    }

    /// The executor of an accepted target: planned around the fixed obstacles and the
    /// remembered obstructions when detours are on (straight when nothing is in the way).
    fn executor(
        &mut self,
        target_mm: Point3<f64>,
        config: &TrajectoryConfig,
    ) -> Result<Executor, TrajectoryError> {
        let accepted = validate_goal(target_mm, self.arm_sample(), config)?;
        let Some(d) = self.detour.clone() else {
            return accepted.into_executor(config);
        };
        let mut scene = Scene::new(Workspace::from(config));
        scene.boxes = d.boxes;
        scene.obstructions = self.obstructions.current(&self.counters);
        let planning = DetourPlanning {
            scene,
            config: d.config,
            contact: *self.obstructions.config().contact(),
            max_replans: d.max_replans,
            probe: true,
        };
        let remembered = planning.scene.obstructions.len();
        let exec = Executor::with_detours(accepted.start_mm, target_mm, config, planning).map_err(
            |e| match e {
                TrajectoryError::NoDetour { .. }
                | TrajectoryError::DetourBudgetExceeded { .. }
                | TrajectoryError::DetourMotionBlocked { .. } => TrajectoryError::NoWayAround {
                    remembered,
                    reason: Box::new(e),
                },
                e => e,
            },
        )?;
        if let Some(a) = exec.approach() {
            self.counters.approaches.inc();
            node_glue::log_info!(
                "target {:?} mm lies inside learned obstruction(s) {:?}: {a}",
                target_mm.coords.as_slice(),
                a.into
            );
        }
        if !exec.probed().is_empty() {
            self.counters.probes.inc();
            node_glue::log_warn!(
                "target {:?} mm: no way around learned obstruction(s) {:?}; going through them \
                 (they are guesses: a stop there learns them again, a pass clears them)",
                target_mm.coords.as_slice(),
                exec.probed()
            );
        } else if exec.is_detour() {
            self.counters.detours_from_start.inc();
            node_glue::log_info!(
                "target {:?} mm: planned around {remembered} remembered obstruction(s) \
                 and the fixed obstacles",
                target_mm.coords.as_slice()
            );
        }
        Ok(exec)
    }

    fn arm_sample(&self) -> Option<ArmSample> {
        self.arm.latest().map(|r| ArmSample {
            position_mm: r.value,
            age_ms: u64::try_from(r.age().as_millis()).unwrap_or(u64::MAX),
        })
    }

    /// The latest arm position if it is fresh (no older than `timeout`) and finite: the
    /// only position the server may command as a hold (cancel, shutdown). `None` when the
    /// stream stopped: then nothing is commanded and the arm keeps its last set-point.
    pub(super) fn fresh_position(&self, timeout: Duration) -> Option<Point3<f64>> {
        self.arm.fresh(timeout).filter(finite)
    }

    /// The best known arm position for a result (never commanded): the latest finite
    /// sample, else what the move saw last.
    pub(super) fn best_position(&self, fallback_mm: Point3<f64>) -> Point3<f64> {
        self.arm.value().filter(finite).unwrap_or(fallback_mm)
    }

    /// Goal overrides (`period_s`, `sample_factor`; 0 = the server's) applied and checked,
    /// then the target checked and the path planned from the measured position.
    /// The error is the reason given to the client.
    fn plan_goal(
        &mut self,
        config: &TrajectoryConfig,
        target_mm: Point3<f64>,
        period_s: f64,
        sample_factor: u32,
    ) -> Result<(Executor, TrajectoryConfig), GoalError> {
        let period_ms = if period_s == 0.0 {
            None
        } else {
            let ms = (period_s * 1000.0).round();
            if !ms.is_finite() || ms < 1.0 || ms > MAX_PERIOD_MS as f64 {
                return Err(GoalError::Period(period_s));
            }
            Some(ms as u64)
        };
        let factor = (sample_factor != 0).then_some(sample_factor);
        let config = config
            .with_overrides(period_ms, factor)
            .map_err(|e| match e {
                TrajectoryError::InvalidConfig { field, reason } => {
                    GoalError::Override { field, reason }
                }
                e => GoalError::Plan(e),
            })?;
        let plan = self.executor(target_mm, &config);
        plan.map(|exec| (exec, config)).map_err(GoalError::Plan)
    }

    /// `p` (metres, in `frame`; "" = world) in the command frame `world`, millimetres.
    fn to_world(&self, frame: &str, p: &Point) -> Result<Point3<f64>, GoalError> {
        if frame.is_empty() || frame == topics::WORLD_FRAME {
            return Ok(from_point(p));
        }
        let world_t_frame = self
            .tf
            .lookup(topics::WORLD_FRAME, frame, None)
            .map_err(|source| GoalError::Frame {
                frame: frame.to_owned(),
                source,
            })?;
        let w = world_t_frame * Point3::new(p.x, p.y, p.z);
        Ok(from_point(&to_point_m(w)))
    }

    fn on_goal_request(&mut self, req: GoalRequest) {
        let config = self.refresh_config();
        let g = req.goal.clone();
        let uuid = req.uuid;
        let planned = if self.lc.is_active() {
            self.to_world(&g.frame_id, &g.target).and_then(|target_mm| {
                self.plan_goal(&config, target_mm, g.period_s, g.sample_factor)
                    .map(|(exec, c)| (exec, c, target_mm))
            })
        } else {
            self.counters.inactive_refused.inc();
            Err(GoalError::Inactive(self.lc.inactive_reason()))
        };
        match planned {
            Err(reason) => {
                node_glue::warn_limited!(
                    self.logs,
                    "goal",
                    "rejecting MoveTo goal {uuid}: {reason}"
                );
                self.counters.goals_rejected.inc();
                let position = self.arm.value().map(to_point).unwrap_or_default();
                let result = MoveTo::Result {
                    outcome: Outcome::Rejected.code(),
                    final_position: position,
                    message: reason.to_string(),
                };
                action::reject(req, result);
            }
            Ok((exec, goal_config, target_mm)) => {
                let Some(Accepted { goal, cancel }) = action::accept(req) else {
                    return;
                };
                self.counters.goals_accepted.inc();
                node_glue::log_info!(
                    "MoveTo goal {uuid}: to {:?} mm, {} set-points every {} ms",
                    target_mm.coords.as_slice(),
                    exec.path().len(),
                    goal_config.period_ms()
                );
                self.preempt();
                self.start(exec, &goal_config, Source::Action { goal, cancel });
            }
        }
    }

    fn on_legacy_target(&mut self, msg: PointStamped) {
        self.counters.legacy_targets.inc();
        if self.refused_inactive("legacy target") {
            return;
        }
        let config = self.refresh_config();
        let target_mm = from_point(&msg.point);
        let exec = match self.executor(target_mm, &config) {
            Ok(exec) => exec,
            Err(reason) => {
                self.counters.legacy_rejected.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "legacy",
                    "legacy target on {} rejected: {reason}",
                    topics::ARM_TARGET
                );
                return;
            }
        };
        match self.legacy.offer(target_mm, self.active.is_some()) {
            LegacyVerdict::Repeat => {
                self.counters.legacy_repeats.inc();
                node_glue::log_debug!("legacy target repeated; ignored");
            }
            LegacyVerdict::Start | LegacyVerdict::Preempt => {
                node_glue::log_info!(
                    "legacy target {:?} mm: {} set-points",
                    target_mm.coords.as_slice(),
                    exec.path().len()
                );
                self.preempt();
                self.start(exec, &config, Source::Legacy);
            }
        }
    }

    /// A point on `clicked_point` (rviz's Publish Point, Foxglove's publish panel): in the
    /// workspace it becomes a move (newest wins, like a legacy target); anything else is
    /// refused with the reason, logged and counted, never sent.
    fn on_clicked_point(&mut self, msg: PointStamped) {
        self.counters.clicked_points.inc();
        if self.refused_inactive("clicked point") {
            return;
        }
        let config = self.refresh_config();
        let exec = self
            .to_world(&msg.header.frame_id, &msg.point)
            .and_then(|target_mm| {
                self.executor(target_mm, &config)
                    .map(|e| (e, target_mm))
                    .map_err(GoalError::Plan)
            });
        match exec {
            Ok((exec, target_mm)) => {
                node_glue::log_info!(
                    "clicked point {:?} mm (world): {} set-points",
                    target_mm.coords.as_slice(),
                    exec.path().len()
                );
                self.preempt();
                self.start(exec, &config, Source::Clicked);
            }
            Err(reason) => {
                self.counters.clicked_refused.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "clicked",
                    "clicked point ({:.3}, {:.3}, {:.3}) m in \"{}\" refused: {reason}",
                    msg.point.x,
                    msg.point.y,
                    msg.point.z,
                    msg.header.frame_id
                );
            }
        }
    }

    /// True (counted, logged) when the node is not active: a target is not taken.
    fn refused_inactive(&mut self, what: &str) -> bool {
        if self.lc.is_active() {
            return false;
        }
        self.counters.inactive_refused.inc();
        node_glue::warn_limited!(
            self.logs,
            "inactive",
            "{what} ignored: {}",
            self.lc.inactive_reason()
        );
        true
    }

    pub(super) fn start(&mut self, exec: Executor, config: &TrajectoryConfig, source: Source) {
        self.publish_plan(exec.path());
        // The node's ROS clock: with use_sim_time, set-points follow /clock.
        let mut ticker = node_glue::time::interval(Duration::from_millis(config.period_ms()));
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        self.counters.state.store(1, Ordering::Relaxed);
        self.active = Some(Active {
            exec,
            source,
            ticker,
            position_timeout: Duration::from_millis(config.position_timeout_ms()),
            plan_generation: 0,
        });
    }

    /// Ends the running move, if any, with `PREEMPTED` (the next move starts at once).
    pub(super) fn preempt(&mut self) {
        if let Some(mut a) = self.active.take() {
            let step = a.exec.preempt();
            if let Action::Done(end) = step.action {
                self.finish(a.source, end, step.feedback);
            }
        }
    }
}

/// The control task: one move at a time, stepped every period. At shutdown it stops the
/// running move where the arm is ([`Server::on_shutdown`]); `_finishing` keeps the node
/// spinning until it has.
pub(crate) async fn control(
    mut server: Server,
    mut goals: impl Stream<Item = GoalRequest> + Unpin,
    mut targets: impl Stream<Item = PointStamped> + Unpin,
    mut clears: impl Stream<Item = ClearRequest> + Unpin,
    mut clicked: impl Stream<Item = PointStamped> + Unpin,
    shutdown: Shutdown,
    _finishing: node_glue::Finishing,
) {
    server.obstructions.publish(&server.counters);
    let mut expiry = tokio::time::interval(EXPIRY_CHECK);
    expiry.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            // Shutdown first: a move running when the node stops is always held.
            biased;
            _ = shutdown.wait() => {
                server.on_shutdown();
                break;
            }
            req = goals.next() => match req {
                Some(req) => server.on_goal_request(req),
                None => {
                    server.on_shutdown();
                    break;
                }
            },
            Some(msg) = targets.next() => server.on_legacy_target(msg),
            Some(req) = clears.next() => server.obstructions.on_clear(req, &server.counters),
            Some(msg) = clicked.next() => server.on_clicked_point(msg),
            // Deactivation: the running move stops where the arm is, its goal ends.
            Some(done) = server.deactivations.recv() => {
                server.stop_move("was deactivated");
                let _ = done.send(());
            }
            _ = expiry.tick() => server.obstructions.expire(&server.counters),
            event = next_move_event(&mut server.active) => match event {
                MoveEvent::Tick => server.on_tick(),
                MoveEvent::Cancel(request) => server.on_cancel(request),
            },
        }
    }
}
