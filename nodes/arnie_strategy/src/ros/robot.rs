//! [`RosRobot`]: the library's [`Robot`] over ROS clients.
//!
//! - `move_to`: one `MoveTo` goal on `/trajectory/move_to`, through
//!   `node_glue::action_client` (the goal loop every node shares: its own goal thread,
//!   the waits, feedback, cancel). Dropping the `move_to` future drops the goal's
//!   handle, and the goal is cancelled (once it is accepted, if it is not yet: no goal
//!   escapes a stop). Every goal's end is counted in one place ([`MoveAction`]).
//! - `plan_path`: one `PlanPath` call on `/planner/plan_path` (`simplify` always set, so
//!   a path is a few turning points, each one `MoveTo` goal). No server within
//!   `planner_wait` → [`Error::PlannerUnavailable`] (the library then uses straight
//!   lines).
//! - `send_packet`: one `SendPacket` call on `/comms/send` (not a bare publish on
//!   `/comms/tx`: the service says whether the packet went out and waits for its reply).
//! - `wait_for`: the first matching message of one of the topics subscribed at start
//!   (`wait_topics`, see [`super::WaitKind`]) that arrived since the previous move or
//!   send step began and that no earlier `wait_for` matched. Each topic keeps its last
//!   [`WAIT_BUFFER`] messages in a [`Backlog`] for that: a board's reply can arrive
//!   while the `send` step still waits for its acknowledgement.
//! - `position`: the last finite `/arm/position` (`PointStamped`, metres, sensor QoS).
//! - With [`Motion::NavigateTo`]: `move_to` is one `NavigateTo` goal on
//!   `base/navigate_to` (the same goal loop, same cancel-on-drop), the library sends one goal
//!   per approach ([`Robot::plans_itself`]), and `position` is the last finite
//!   `base/pose` (`PoseStamped`, reliable).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, Stream, StreamExt};
use node_glue::action_client::{GoalClient, GoalError, GoalResult, Waits};
use node_glue::ratelimit::RateLimit;
use node_glue::tracker::Tracker;
use node_glue::{qos, topics};
use r2r::arnie_interfaces::action::{MoveTo, NavigateTo};
use r2r::arnie_interfaces::msg::{Coordinates, Packet};
use r2r::arnie_interfaces::srv::{PlanPath, SendPacket};
use r2r::geometry_msgs::msg::{PointStamped, PoseStamped};
use r2r::nav2_msgs::action::NavigateToPose;
use r2r::GoalStatus;
use serde_json::Value;
use tokio::sync::broadcast;

use super::convert::{
    coordinates_json, from_ros, move_result, packet_json, packet_msg, plan_from_response, to_ros,
};
use super::navigate::{nav_goal, nav_result, Motion, BASE_POSE, NAVIGATE_TO};
use super::{Counters, Settings, SetupError, WaitKind, WaitTopic};
use crate::condition::{Backlog, WaitFor};
use crate::error::{Error, MoveOutcome};
use crate::robot::{PlannedPath, Robot};
use crate::task::{PacketSpec, Point};

/// Messages kept per watched topic, for `wait_for` steps that start after their reply
/// came, or lag behind a busy topic.
pub const WAIT_BUFFER: usize = 64;

/// A watched topic: its recent messages and the live feed of new ones (numbered).
#[derive(Clone)]
struct Watched {
    backlog: Arc<Mutex<Backlog>>,
    tx: broadcast::Sender<(u64, Arc<Value>)>,
}

impl Watched {
    fn new() -> Self {
        Self {
            backlog: Arc::new(Mutex::new(Backlog::new(WAIT_BUFFER))),
            tx: broadcast::channel(WAIT_BUFFER).0,
        }
    }

    fn backlog(&self) -> std::sync::MutexGuard<'_, Backlog> {
        self.backlog.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The strategy's robot: ROS clients and subscriptions.
pub struct RosRobot {
    mover: Mover,
    motion: Motion,
    planner: r2r::Client<PlanPath::Service>,
    comms: r2r::Client<SendPacket::Service>,
    /// The last finite position and its arrival time (`node_glue::tracker`).
    position: Tracker<Point>,
    /// Keyed by resolved (absolute) name, so `comms/rx` and `/comms/rx` are one topic.
    watched: HashMap<String, Watched>,
    /// The node's namespace, to resolve the names strategy files use.
    namespace: String,
    settings: Mutex<Settings>,
    counters: Arc<Counters>,
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
    /// call inside the tokio runtime, before the node spins.
    ///
    /// # Errors
    /// rcl refusing an entity, an unknown message type in `wait_topics`, or the goal
    /// thread failing to start.
    pub fn new(
        node: &mut r2r::Node,
        motion: Motion,
        nav2: Option<Nav2Source>,
        wait_topics: &[WaitTopic],
        settings: Settings,
        counters: Arc<Counters>,
    ) -> Result<Arc<Self>, node_glue::Error> {
        let mover = match (motion, &nav2) {
            (Motion::MoveTo, _) => Mover::Arm(goal_client(
                node,
                <MoveTo::Action as MoveAction>::NAME,
                &counters,
            )?),
            (Motion::NavigateTo, _) => Mover::Base(goal_client(
                node,
                <NavigateTo::Action as MoveAction>::NAME,
                &counters,
            )?),
            (Motion::NavigateToPose, Some(n)) => {
                Mover::Nav2(goal_client(node, &n.action, &counters)?)
            }
            (Motion::NavigateToPose, None) => return Err(SetupError::NoTfListener.into()),
        };
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
                ));
            }
            Motion::NavigateToPose => {
                if let Some(n) = nav2 {
                    tokio::spawn(track_position(
                        "/tf",
                        n.positions(),
                        position.clone(),
                        counters.clone(),
                    ));
                }
            }
        }

        let namespace = node.namespace()?;
        let mut watched = HashMap::new();
        for w in wait_topics {
            let watch = Watched::new();
            let (c, t) = (counters.clone(), watch.clone());
            match &w.kind {
                WaitKind::Packet => {
                    let s = node.subscribe::<Packet>(&w.topic, w.kind.qos())?;
                    tokio::spawn(forward(w.topic.clone(), s.map(|p| packet_json(&p)), t, c));
                }
                WaitKind::Coordinates => {
                    let s = node.subscribe::<Coordinates>(&w.topic, w.kind.qos())?;
                    tokio::spawn(forward(
                        w.topic.clone(),
                        s.map(|m| Ok::<_, std::convert::Infallible>(coordinates_json(&m))),
                        t,
                        c,
                    ));
                }
                WaitKind::Other(ty) => {
                    let s =
                        node.subscribe_untyped(&w.topic, ty, w.kind.qos())
                            .map_err(|source| SetupError::WaitTopic {
                                topic: w.topic.clone(),
                                ty: ty.to_string(),
                                source,
                            })?;
                    tokio::spawn(forward(w.topic.clone(), s, t, c));
                }
            }
            watched.insert(topics::resolve(&namespace, &w.topic), watch);
        }
        Ok(Arc::new(Self {
            mover,
            motion,
            planner,
            comms,
            position,
            watched,
            namespace,
            settings: Mutex::new(settings),
            counters,
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
            node_glue::log_warn!("packet {:?} not sent: {e}", packet.name);
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
        let Some(watch) = self
            .watched
            .get(&topics::resolve(&self.namespace, &condition.topic))
        else {
            return Err(robot_err(format!(
                "wait_for: {} is not watched (parameter wait_topics: {})",
                condition.topic,
                self.watched_topics().join(", ")
            )));
        };
        // Subscribe first, then look back: a message is either in the backlog already
        // (number below `seen`) or comes through `rx` (number `seen` or above).
        let mut rx = watch.tx.subscribe();
        let seen = {
            let mut backlog = watch.backlog();
            if backlog.take(&condition).is_some() {
                self.counters.wait_matched_early.inc();
                node_glue::log_info!(
                    "wait_for {}: matched a message that came in while the step before ran",
                    condition.topic
                );
                return Ok(());
            }
            backlog.next_seq()
        };
        loop {
            match rx.recv().await {
                Ok((seq, v)) if seq >= seen && condition.matches(&v) => {
                    let mut backlog = watch.backlog();
                    if backlog.eligible(seq) {
                        backlog.consume(seq);
                        return Ok(());
                    }
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    // The skipped messages are still in the backlog, if not too old.
                    node_glue::warn_limited!(
                        self.lag_log,
                        &condition.topic,
                        "wait_for {}: skipped {n} messages (too many at once)",
                        condition.topic
                    );
                    if watch.backlog().take(&condition).is_some() {
                        return Ok(());
                    }
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
        let waits = Waits {
            server: s.server_wait,
            answer: s.call_timeout,
        };
        // Dropping this future drops the goal's handle: the goal is cancelled.
        match &self.mover {
            Mover::Arm(c) => go(c, &target, None, waits).await,
            Mover::Base(c) => go(c, &target, None, waits).await,
            Mover::Nav2(c) => go(c, &target, self.position.value(), waits).await,
        }
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
        matches!(self.motion, Motion::NavigateTo | Motion::NavigateToPose)
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

    fn step_begins(&self) {
        for watch in self.watched.values() {
            watch.backlog().mark();
        }
    }
}

async fn track_position(
    topic: &'static str,
    mut positions: impl Stream<Item = (f64, f64, f64)> + Unpin,
    into: Tracker<Point>,
    counters: Arc<Counters>,
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
                node_glue::warn_limited!(limit, topic, "{topic}: ignored a non-finite position");
            }
        }
    }
}

/// One watched topic: every message as JSON to the `wait_for` steps listening.
async fn forward(
    topic: String,
    mut messages: impl Stream<Item = Result<Value, impl std::fmt::Display>> + Unpin,
    watch: Watched,
    counters: Arc<Counters>,
) {
    let limit = RateLimit::default();
    while let Some(m) = messages.next().await {
        match m {
            Ok(v) => {
                counters.wait_messages.inc();
                let v = Arc::new(v);
                let (seq, unseen) = {
                    let mut backlog = watch.backlog();
                    let before = backlog.evicted_unseen();
                    (backlog.push(v.clone()), backlog.evicted_unseen() - before)
                };
                counters.wait_messages_unseen.add(unseen);
                // No step listening is not an error.
                let _ = watch.tx.send((seq, v));
            }
            Err(e) => {
                counters.wait_messages_rejected.inc();
                node_glue::warn_limited!(limit, &topic, "{topic}: ignored a message: {e}");
            }
        }
    }
}

// ------------------------------------------------------------------ moves

/// The action client `move_to` goals go to (`node_glue::action_client`).
enum Mover {
    Arm(GoalClient<MoveTo::Action>),
    Base(GoalClient<NavigateTo::Action>),
    Nav2(GoalClient<NavigateToPose::Action>),
}

/// `motion: navigate_to_pose`: the action's name, and the robot's position from TF
/// (`map` → `robot_frame`, sampled every 50 ms: the rate `base/pose` has).
pub struct Nav2Source {
    /// The NavigateToPose action's name.
    pub action: String,
    /// The robot's frame.
    pub robot_frame: String,
    /// The TF buffer.
    pub tf: node_glue::tf::Listener,
}

impl Nav2Source {
    /// The robot's position in `map` every 50 ms, when TF has it.
    fn positions(self) -> impl Stream<Item = (f64, f64, f64)> + Unpin + Send + 'static {
        let ticks = tokio::time::interval(Duration::from_millis(50));
        Box::pin(futures::stream::unfold(
            (ticks, self),
            |(mut ticks, n)| async move {
                loop {
                    ticks.tick().await;
                    if let Ok(t) =
                        n.tf.lookup(super::navigate::GLOBAL_FRAME, &n.robot_frame, None)
                    {
                        let v = t.translation.vector;
                        return Some(((v.x, v.y, v.z), (ticks, n)));
                    }
                }
            },
        ))
    }
}

/// What the strategy needs of a motion action: its goal for a point and its result as
/// the library's outcome. One goal loop serves both (`node_glue::action_client`).
pub trait MoveAction: r2r::WrappedActionTypeSupport + 'static
where
    Self::Goal: Send + Sync,
    Self::Result: Send + Sync,
    Self::Feedback: Send + Sync,
{
    /// The action's name on the graph (relative: resolves in the node's namespace).
    const NAME: &'static str;
    /// The action's type, in messages.
    const KIND: &'static str;
    /// The goal that moves to `target` (metres, frame `world`).
    /// (`from`: where the robot is, when known.)
    fn goal(target: &Point, from: Option<Point>) -> Self::Goal;
    /// The goal's target, for log lines.
    fn target(goal: &Self::Goal) -> Point;
    /// The server's result as where the robot stopped (`target`: where it was sent), or
    /// the library's error.
    fn outcome(status: GoalStatus, result: &Self::Result, target: &Point) -> Result<Point, Error>;
}

impl MoveAction for MoveTo::Action {
    const NAME: &'static str = topics::MOVE_TO;
    const KIND: &'static str = "MoveTo";
    fn goal(target: &Point, _: Option<Point>) -> MoveTo::Goal {
        node_glue::action_client::move_to_goal([target.x, target.y, target.z])
    }
    fn target(goal: &MoveTo::Goal) -> Point {
        Point::new(goal.target.x, goal.target.y, goal.target.z)
    }
    fn outcome(status: GoalStatus, result: &MoveTo::Result, _: &Point) -> Result<Point, Error> {
        move_result(status, result)
    }
}

impl MoveAction for NavigateTo::Action {
    const NAME: &'static str = NAVIGATE_TO;
    const KIND: &'static str = "NavigateTo";
    fn goal(target: &Point, _: Option<Point>) -> NavigateTo::Goal {
        nav_goal(target)
    }
    fn target(goal: &NavigateTo::Goal) -> Point {
        Point::new(goal.x, goal.y, 0.0)
    }
    fn outcome(status: GoalStatus, result: &NavigateTo::Result, _: &Point) -> Result<Point, Error> {
        nav_result(status, result)
    }
}

impl MoveAction for NavigateToPose::Action {
    const NAME: &'static str = "navigate_to_pose";
    const KIND: &'static str = "NavigateToPose";
    fn goal(target: &Point, from: Option<Point>) -> NavigateToPose::Goal {
        super::navigate::nav2_goal(target, from)
    }
    fn target(goal: &NavigateToPose::Goal) -> Point {
        let p = &goal.pose.pose.position;
        Point::new(p.x, p.y, 0.0)
    }
    fn outcome(
        status: GoalStatus,
        result: &NavigateToPose::Result,
        target: &Point,
    ) -> Result<Point, Error> {
        super::navigate::nav2_result(status, result, target)
    }
}

fn cancelled() -> Error {
    Error::Move {
        outcome: MoveOutcome::Cancelled,
        message: "the step was stopped".into(),
    }
}

/// A goal's end as the library sees it: the server's result through
/// [`MoveAction::outcome`]; a protocol rejection as `REJECTED`; a goal stopped before
/// it was sent, or cancelled without a result, as `CANCELLED`; anything else (no server,
/// no answer, no result) as [`Error::Robot`] naming the action.
fn move_end<A: MoveAction>(end: &GoalResult<A>, target: &Point) -> Result<Point, Error>
where
    A::Goal: Send + Sync,
    A::Result: Send + Sync,
    A::Feedback: Send + Sync,
{
    let label = || format!("{} on {}", A::KIND, A::NAME);
    match end {
        Ok((status, r)) => A::outcome(*status, r, target),
        Err(GoalError::Rejected) => Err(Error::Move {
            outcome: MoveOutcome::Rejected,
            message: format!("{}: {}", label(), GoalError::Rejected),
        }),
        Err(GoalError::NotSent | GoalError::Cancelled) => Err(cancelled()),
        Err(e) => Err(robot_err(format!("{}: {e}", label()))),
    }
}

/// The client of `A` whose every goal's end is counted (`moves_*`) and, failed, logged.
fn goal_client<A: MoveAction>(
    node: &mut r2r::Node,
    name: &str,
    counters: &Arc<Counters>,
) -> Result<GoalClient<A>, node_glue::Error>
where
    A::Goal: Send + Sync,
    A::Result: Send + Sync,
    A::Feedback: Send + Sync,
{
    let counters = counters.clone();
    GoalClient::new(node, name, A::KIND, move |goal, end| {
        if !matches!(end, Err(GoalError::NoServer(_) | GoalError::NotSent)) {
            counters.moves_sent.inc();
        }
        match move_end::<A>(end, &A::target(goal)) {
            Ok(_) => counters.moves_reached.inc(),
            Err(Error::Move {
                outcome: MoveOutcome::Cancelled,
                ..
            }) => counters.moves_cancelled.inc(),
            Err(e) => {
                counters.moves_failed.inc();
                let t = A::target(goal);
                node_glue::log_info!("move to ({:.3}, {:.3}, {:.3}) m failed: {e}", t.x, t.y, t.z);
            }
        }
    })
}

/// One move: the goal for `target`, its end as the library sees it ([`move_end`]).
async fn go<A: MoveAction>(
    client: &GoalClient<A>,
    target: &Point,
    from: Option<Point>,
    waits: Waits,
) -> Result<Point, Error>
where
    A::Goal: Send + Sync,
    A::Result: Send + Sync,
    A::Feedback: Send + Sync,
{
    move_end::<A>(
        &client.send(A::goal(target, from), waits).result().await,
        target,
    )
}
