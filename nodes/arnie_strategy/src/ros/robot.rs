//! [`RosRobot`]: the library's [`Robot`] over ROS clients.
//!
//! - `move_to`: one `MoveTo` goal on `/trajectory/move_to`. r2r's goal-request future
//!   is not `Send`, so goals run on a small thread of their own (a current-thread tokio
//!   runtime with a `LocalSet`); `move_to` talks to it over channels. Dropping the
//!   `move_to` future closes its reply channel, and the worker then cancels the goal
//!   (waiting for it to be accepted first if needed, so no goal escapes a stop).
//! - `plan_path`: one `PlanPath` call on `/planner/plan_path` (`simplify` always set, so
//!   a path is a few turning points, each one `MoveTo` goal). No server within
//!   `planner_wait` → [`Error::PlannerUnavailable`] (the library then uses straight
//!   lines).
//! - `send_packet`: one `SendPacket` call on `/comms/send` (not a bare publish on
//!   `/comms/tx`: the service says whether the packet went out and waits for its reply).
//! - `wait_for`: the first message, from the step's start on, of one of the topics
//!   subscribed at start (`wait_topics`) that matches; see [`super::WaitKind`].
//! - `position`: the last finite `/arm/position` (`PointStamped`, metres, sensor QoS).
//! - With [`Motion::NavigateTo`]: `move_to` is one `NavigateTo` goal on
//!   `base/navigate_to` (same thread, same cancel-on-drop), the library sends one goal
//!   per approach ([`Robot::plans_itself`]), and `position` is the last finite
//!   `base/pose` (`PoseStamped`, reliable).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, Stream, StreamExt};
use node_glue::ratelimit::RateLimit;
use node_glue::tracker::Tracker;
use node_glue::{qos, topics};
use r2r::arnie_interfaces::action::{MoveTo, NavigateTo};
use r2r::arnie_interfaces::msg::{Coordinates, Packet};
use r2r::arnie_interfaces::srv::{PlanPath, SendPacket};
use r2r::geometry_msgs::msg::{PointStamped, PoseStamped};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::convert::{
    coordinates_json, from_ros, move_result, packet_json, packet_msg, plan_from_response, to_ros,
};
use super::navigate::{nav_goal, nav_result, Motion, BASE_POSE, NAVIGATE_TO};
use super::{Counters, Settings, WaitKind, WaitTopic};
use crate::condition::WaitFor;
use crate::error::{Error, MoveOutcome};
use crate::robot::{PlannedPath, Robot};
use crate::task::{PacketSpec, Point};

/// Messages kept per watched topic for `wait_for` steps that lag behind.
const WAIT_BUFFER: usize = 64;

/// One `move_to` call handed to the goal thread.
struct MoveJob {
    target: Point,
    /// How long to wait for the server to appear, and for the goal to be accepted or
    /// cancelled.
    wait: Duration,
    accept_timeout: Duration,
    /// Closed by the caller dropping its receiver: cancel the goal.
    reply: oneshot::Sender<Result<Point, Error>>,
}

/// The strategy's robot: ROS clients and subscriptions.
pub struct RosRobot {
    moves: mpsc::UnboundedSender<MoveJob>,
    motion: Motion,
    planner: r2r::Client<PlanPath::Service>,
    comms: r2r::Client<SendPacket::Service>,
    /// The last finite position and its arrival time (`node_glue::tracker`).
    position: Tracker<Point>,
    /// Keyed by resolved (absolute) name, so `comms/rx` and `/comms/rx` are one topic.
    watched: HashMap<String, broadcast::Sender<Arc<Value>>>,
    /// The node's namespace, to resolve the names strategy files use.
    namespace: String,
    settings: Mutex<Settings>,
    counters: Arc<Counters>,
    log: String,
    /// `wait_for` steps that lag behind a busy topic: one line per topic per period.
    lag_log: RateLimit,
}

fn robot_err(message: String) -> Error {
    Error::Robot { message }
}

/// Resolves `true` when the client's server is there within `wait`.
async fn available(
    check: r2r::Result<impl std::future::Future<Output = r2r::Result<()>>>,
    wait: Duration,
) -> bool {
    match check {
        Ok(f) => matches!(tokio::time::timeout(wait, f).await, Ok(Ok(()))),
        Err(_) => false,
    }
}

impl RosRobot {
    /// Creates the clients and subscriptions on `node` and spawns one task per stream;
    /// call inside the tokio runtime, before the node spins. `log` is the logger name.
    ///
    /// # Errors
    /// rcl refusing an entity, an unknown message type in `wait_topics`, or the goal
    /// thread failing to start.
    pub fn new(
        node: &mut r2r::Node,
        motion: Motion,
        wait_topics: &[WaitTopic],
        settings: Settings,
        counters: Arc<Counters>,
        log: &str,
    ) -> Result<Arc<Self>, node_glue::Error> {
        let mover = match motion {
            Motion::MoveTo => {
                Mover::Arm(node.create_action_client::<MoveTo::Action>(topics::MOVE_TO)?)
            }
            Motion::NavigateTo => {
                Mover::Base(node.create_action_client::<NavigateTo::Action>(NAVIGATE_TO)?)
            }
        };
        let moves = spawn_goal_thread(mover, counters.clone(), log.to_owned())?;
        let planner =
            node.create_client::<PlanPath::Service>(topics::PLAN_PATH, qos::commands())?;
        let comms =
            node.create_client::<SendPacket::Service>(topics::COMMS_SEND, qos::commands())?;

        let position = Tracker::new();
        match motion {
            Motion::MoveTo => {
                let positions =
                    node.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
                let points = positions.map(|m| (m.point.x, m.point.y, m.point.z));
                tokio::spawn(track_position(
                    topics::ARM_POSITION,
                    points,
                    position.clone(),
                    counters.clone(),
                    log.to_owned(),
                ));
            }
            Motion::NavigateTo => {
                let poses = node.subscribe::<PoseStamped>(BASE_POSE, qos::commands())?;
                let points =
                    poses.map(|m| (m.pose.position.x, m.pose.position.y, m.pose.position.z));
                tokio::spawn(track_position(
                    BASE_POSE,
                    points,
                    position.clone(),
                    counters.clone(),
                    log.to_owned(),
                ));
            }
        }

        let namespace = node.namespace()?;
        let mut watched = HashMap::new();
        for w in wait_topics {
            let (tx, _) = broadcast::channel(WAIT_BUFFER);
            let (c, l, t) = (counters.clone(), log.to_owned(), tx.clone());
            match &w.kind {
                WaitKind::Packet => {
                    let s = node.subscribe::<Packet>(&w.topic, w.kind.qos())?;
                    tokio::spawn(forward(
                        w.topic.clone(),
                        s.map(|p| packet_json(&p)),
                        t,
                        c,
                        l,
                    ));
                }
                WaitKind::Coordinates => {
                    let s = node.subscribe::<Coordinates>(&w.topic, w.kind.qos())?;
                    tokio::spawn(forward(
                        w.topic.clone(),
                        s.map(|m| Ok(coordinates_json(&m))),
                        t,
                        c,
                        l,
                    ));
                }
                WaitKind::Other(ty) => {
                    let s = node
                        .subscribe_untyped(&w.topic, ty, w.kind.qos())
                        .map_err(|e| {
                            node_glue::Error::Setup(format!(
                                "wait_topics: cannot subscribe to {} as {ty}: {e}",
                                w.topic
                            ))
                        })?;
                    tokio::spawn(forward(
                        w.topic.clone(),
                        s.map(|m| m.map_err(|e| e.to_string())),
                        t,
                        c,
                        l,
                    ));
                }
            }
            watched.insert(topics::resolve(&namespace, &w.topic), tx);
        }
        Ok(Arc::new(Self {
            moves,
            motion,
            planner,
            comms,
            position,
            watched,
            namespace,
            settings: Mutex::new(settings),
            counters,
            log: log.to_owned(),
            lag_log: RateLimit::default(),
        }))
    }

    /// Sets the timeouts for the next run.
    pub fn configure(&self, settings: Settings) {
        *self.settings.lock().unwrap_or_else(|e| e.into_inner()) = settings;
    }

    fn settings(&self) -> Settings {
        self.settings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// True when `wait_for` steps may watch `topic`.
    pub fn watches(&self, topic: &str) -> bool {
        self.watched
            .contains_key(&topics::resolve(&self.namespace, topic))
    }

    /// The watched topics, sorted (for error messages).
    pub fn watched_topics(&self) -> Vec<String> {
        let mut v: Vec<String> = self.watched.keys().cloned().collect();
        v.sort();
        v
    }

    async fn plan(&self, from: Point, to: Point, smooth: bool) -> Result<PlannedPath, Error> {
        let s = self.settings();
        self.counters.plans_requested.inc();
        if !available(r2r::Node::is_available(&self.planner), s.planner_wait).await {
            self.counters.planner_unavailable.inc();
            return Err(Error::PlannerUnavailable);
        }
        let req = PlanPath::Request {
            start: to_ros(&from),
            goal: to_ros(&to),
            simplify: true,
            smooth,
        };
        let call = self
            .planner
            .request(&req)
            .map_err(|e| robot_err(format!("PlanPath: {e}")))?;
        let r = match tokio::time::timeout(s.call_timeout, call).await {
            Ok(Ok(resp)) => plan_from_response(&resp),
            Ok(Err(e)) => Err(robot_err(format!("PlanPath: {e}"))),
            Err(_) => Err(robot_err(format!(
                "PlanPath: no answer within {} ms",
                s.call_timeout.as_millis()
            ))),
        };
        if r.is_err() {
            self.counters.plan_errors.inc();
        }
        r
    }

    async fn send(&self, packet: PacketSpec) -> Result<(), Error> {
        let s = self.settings();
        self.counters.packets_sent.inc();
        let r = self.send_inner(&packet, &s).await;
        if let Err(e) = &r {
            self.counters.packets_failed.inc();
            r2r::log_warn!(&self.log, "packet {:?} not sent: {e}", packet.name);
        }
        r
    }

    async fn send_inner(&self, packet: &PacketSpec, s: &Settings) -> Result<(), Error> {
        if !available(r2r::Node::is_available(&self.comms), s.server_wait).await {
            return Err(Error::Packet {
                message: format!(
                    "no comms bridge on {} within {} ms",
                    topics::COMMS_SEND,
                    s.server_wait.as_millis()
                ),
            });
        }
        let req = SendPacket::Request {
            packet: packet_msg(packet),
            timeout_s: packet.reply_timeout_s,
        };
        let call = self.comms.request(&req).map_err(|e| Error::Packet {
            message: e.to_string(),
        })?;
        let limit = s.call_timeout
            + Duration::try_from_secs_f64(packet.reply_timeout_s).unwrap_or_default();
        match tokio::time::timeout(limit, call).await {
            Ok(Ok(r)) if r.success => Ok(()),
            Ok(Ok(r)) => Err(Error::Packet { message: r.message }),
            Ok(Err(e)) => Err(Error::Packet {
                message: e.to_string(),
            }),
            Err(_) => Err(Error::Packet {
                message: format!("no answer within {} ms", limit.as_millis()),
            }),
        }
    }

    async fn wait(&self, condition: WaitFor) -> Result<(), Error> {
        let Some(tx) = self
            .watched
            .get(&topics::resolve(&self.namespace, &condition.topic))
        else {
            return Err(robot_err(format!(
                "wait_for: {} is not watched (parameter wait_topics: {})",
                condition.topic,
                self.watched_topics().join(", ")
            )));
        };
        let mut rx = tx.subscribe();
        loop {
            match rx.recv().await {
                Ok(v) if condition.matches(&v) => return Ok(()),
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    node_glue::warn_limited!(
                        self.lag_log,
                        &condition.topic,
                        &self.log,
                        "wait_for {}: skipped {n} messages (too many at once)",
                        condition.topic
                    );
                }
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(robot_err(format!(
                        "wait_for: the subscription to {} ended",
                        condition.topic
                    )))
                }
            }
        }
    }

    async fn move_once(&self, target: Point) -> Result<Point, Error> {
        let s = self.settings();
        let (reply, result) = oneshot::channel();
        let job = MoveJob {
            target,
            wait: s.server_wait,
            accept_timeout: s.call_timeout,
            reply,
        };
        if self.moves.send(job).is_err() {
            return Err(robot_err("the MoveTo goal thread is gone".into()));
        }
        // Dropping `result` (this future) tells the goal thread to cancel the goal.
        result
            .await
            .unwrap_or_else(|_| Err(robot_err("the MoveTo goal thread dropped the goal".into())))
    }
}

impl Robot for RosRobot {
    fn position(&self) -> Option<Point> {
        self.position.value()
    }

    fn move_to(&self, target: Point) -> BoxFuture<'_, Result<Point, Error>> {
        self.move_once(target).boxed()
    }

    fn plans_itself(&self) -> bool {
        self.motion == Motion::NavigateTo
    }

    fn plan_path(
        &self,
        from: Point,
        to: Point,
        smooth: bool,
    ) -> BoxFuture<'_, Result<PlannedPath, Error>> {
        self.plan(from, to, smooth).boxed()
    }

    fn send_packet(&self, packet: PacketSpec) -> BoxFuture<'_, Result<(), Error>> {
        self.send(packet).boxed()
    }

    fn wait_for(&self, condition: WaitFor) -> BoxFuture<'_, Result<(), Error>> {
        self.wait(condition).boxed()
    }
}

async fn track_position(
    topic: &'static str,
    mut positions: impl Stream<Item = (f64, f64, f64)> + Unpin,
    into: Tracker<Point>,
    counters: Arc<Counters>,
    log: String,
) {
    let limit = RateLimit::default();
    while let Some((x, y, z)) = positions.next().await {
        match from_ros(&r2r::geometry_msgs::msg::Point { x, y, z }) {
            Some(p) => {
                counters.positions.inc();
                into.set(p);
            }
            None => {
                counters.positions_rejected.inc();
                node_glue::warn_limited!(
                    limit,
                    topic,
                    &log,
                    "{topic}: ignored a non-finite position"
                );
            }
        }
    }
}

/// One watched topic: every message as JSON to the `wait_for` steps listening.
async fn forward(
    topic: String,
    mut messages: impl Stream<Item = Result<Value, String>> + Unpin,
    tx: broadcast::Sender<Arc<Value>>,
    counters: Arc<Counters>,
    log: String,
) {
    let limit = RateLimit::default();
    while let Some(m) = messages.next().await {
        match m {
            Ok(v) => {
                counters.wait_messages.inc();
                // No step listening is not an error.
                let _ = tx.send(Arc::new(v));
            }
            Err(e) => {
                counters.wait_messages_rejected.inc();
                node_glue::warn_limited!(limit, &topic, &log, "{topic}: ignored a message: {e}");
            }
        }
    }
}

// ------------------------------------------------------------------ the goal thread

/// The action client `move_to` goals go to.
#[derive(Clone)]
enum Mover {
    Arm(r2r::ActionClient<MoveTo::Action>),
    Base(r2r::ActionClient<NavigateTo::Action>),
}

fn spawn_goal_thread(
    client: Mover,
    counters: Arc<Counters>,
    log: String,
) -> Result<mpsc::UnboundedSender<MoveJob>, node_glue::Error> {
    let (tx, mut rx) = mpsc::unbounded_channel::<MoveJob>();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("strategy-move_to".into())
        .spawn(move || {
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, async move {
                // Ends when the robot (the only sender) is dropped.
                while let Some(job) = rx.recv().await {
                    tokio::task::spawn_local(run_goal(
                        client.clone(),
                        job,
                        counters.clone(),
                        log.clone(),
                    ));
                }
            });
        })?;
    Ok(tx)
}

async fn run_goal(client: Mover, mut job: MoveJob, counters: Arc<Counters>, log: String) {
    let r = match &client {
        Mover::Arm(c) => drive_goal(c, &mut job, &counters, &log).await,
        Mover::Base(c) => drive_nav_goal(c, &mut job, &counters, &log).await,
    };
    match &r {
        Ok(_) => counters.moves_reached.inc(),
        Err(Error::Move {
            outcome: MoveOutcome::Cancelled,
            ..
        }) => counters.moves_cancelled.inc(),
        Err(e) => {
            counters.moves_failed.inc();
            r2r::log_info!(
                &log,
                "move to ({:.3}, {:.3}, {:.3}) m failed: {e}",
                job.target.x,
                job.target.y,
                job.target.z
            );
        }
    }
    // The caller may be gone (stopped): nothing to tell then.
    let _ = job.reply.send(r);
}

fn cancelled() -> Error {
    Error::Move {
        outcome: MoveOutcome::Cancelled,
        message: "the step was stopped".into(),
    }
}

async fn drive_goal(
    client: &r2r::ActionClient<MoveTo::Action>,
    job: &mut MoveJob,
    counters: &Counters,
    log: &str,
) -> Result<Point, Error> {
    let wait = job.wait;
    tokio::select! {
        up = available(r2r::Node::is_available(client), wait) => if !up {
            return Err(robot_err(format!("no MoveTo server on {} within {} ms", topics::MOVE_TO, wait.as_millis())));
        },
        _ = job.reply.closed() => return Err(cancelled()),
    }
    let goal = MoveTo::Goal {
        target: to_ros(&job.target),
        period_s: 0.0,
        sample_factor: 0,
    };
    counters.moves_sent.inc();
    let request = client
        .send_goal_request(goal)
        .map_err(|e| robot_err(format!("MoveTo: {e}")))?;
    // Not raced against a stop: a goal can only be cancelled once it is known.
    let (handle, result, mut feedback) =
        match tokio::time::timeout(job.accept_timeout, request).await {
            Ok(Ok(accepted)) => accepted,
            Ok(Err(r2r::Error::RCL_RET_ACTION_GOAL_REJECTED)) => {
                return Err(Error::Move {
                    outcome: MoveOutcome::Rejected,
                    message: "the trajectory server rejected the goal".into(),
                })
            }
            Ok(Err(e)) => return Err(robot_err(format!("MoveTo: {e}"))),
            Err(_) => {
                return Err(robot_err(format!(
                    "MoveTo: no answer to the goal within {} ms",
                    job.accept_timeout.as_millis()
                )))
            }
        };
    tokio::pin!(result);
    let mut feedback_open = true;
    loop {
        tokio::select! {
            r = &mut result => return match r {
                Ok((status, r)) => move_result(status, &r),
                Err(e) => Err(robot_err(format!("MoveTo: no result: {e}"))),
            },
            // Feedback is not used; drained so r2r's queue never fills.
            f = feedback.next(), if feedback_open => feedback_open = f.is_some(),
            _ = job.reply.closed() => {
                match handle.cancel() {
                    Ok(c) => match tokio::time::timeout(job.accept_timeout, c).await {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => r2r::log_warn!(log, "MoveTo goal cancel refused: {e}"),
                        Err(_) => r2r::log_warn!(log, "MoveTo goal cancel: no answer"),
                    },
                    Err(e) => r2r::log_warn!(log, "MoveTo goal cancel failed: {e}"),
                }
                return Err(cancelled());
            }
        }
    }
}

/// [`drive_goal`] for the base's `NavigateTo`: same waits, same cancel on a stop.
async fn drive_nav_goal(
    client: &r2r::ActionClient<NavigateTo::Action>,
    job: &mut MoveJob,
    counters: &Counters,
    log: &str,
) -> Result<Point, Error> {
    let wait = job.wait;
    tokio::select! {
        up = available(r2r::Node::is_available(client), wait) => if !up {
            return Err(robot_err(format!("no NavigateTo server on {NAVIGATE_TO} within {} ms", wait.as_millis())));
        },
        _ = job.reply.closed() => return Err(cancelled()),
    }
    counters.moves_sent.inc();
    let request = client
        .send_goal_request(nav_goal(&job.target))
        .map_err(|e| robot_err(format!("NavigateTo: {e}")))?;
    let (handle, result, mut feedback) =
        match tokio::time::timeout(job.accept_timeout, request).await {
            Ok(Ok(accepted)) => accepted,
            Ok(Err(r2r::Error::RCL_RET_ACTION_GOAL_REJECTED)) => {
                return Err(Error::Move {
                    outcome: MoveOutcome::Rejected,
                    message: "the base rejected the goal".into(),
                })
            }
            Ok(Err(e)) => return Err(robot_err(format!("NavigateTo: {e}"))),
            Err(_) => {
                return Err(robot_err(format!(
                    "NavigateTo: no answer to the goal within {} ms",
                    job.accept_timeout.as_millis()
                )))
            }
        };
    tokio::pin!(result);
    let mut feedback_open = true;
    loop {
        tokio::select! {
            r = &mut result => return match r {
                Ok((status, r)) => nav_result(status, &r),
                Err(e) => Err(robot_err(format!("NavigateTo: no result: {e}"))),
            },
            f = feedback.next(), if feedback_open => feedback_open = f.is_some(),
            _ = job.reply.closed() => {
                match handle.cancel() {
                    Ok(c) => match tokio::time::timeout(job.accept_timeout, c).await {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => r2r::log_warn!(log, "NavigateTo goal cancel refused: {e}"),
                        Err(_) => r2r::log_warn!(log, "NavigateTo goal cancel: no answer"),
                    },
                    Err(e) => r2r::log_warn!(log, "NavigateTo goal cancel failed: {e}"),
                }
                return Err(cancelled());
            }
        }
    }
}
