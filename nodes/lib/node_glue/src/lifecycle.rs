//! Managed (lifecycle) nodes on r2r: the `lifecycle_msgs` services and
//! `~/transition_event` that rclcpp's and rclpy's `LifecycleNode` serve, the callbacks a
//! node implements ([`Managed`]), and publishers that stay silent unless the node is
//! active ([`LifecyclePublisher`]). The state machine itself (states, transitions, the
//! rules) is `glue_core::lifecycle`, without ROS; this module serves it.
//!
//! # What a node gets
//! - `~/change_state` (`lifecycle_msgs/srv/ChangeState`), `~/get_state`,
//!   `~/get_available_states`, `~/get_available_transitions`, `~/get_transition_graph`
//!   and `~/transition_event` (`lifecycle_msgs/msg/TransitionEvent`): the names, types,
//!   ids and labels of rcl, the answers of rclpy's `LifecycleNode` (a transition not
//!   available from the current state: `success: false`, nothing changes; a request
//!   with a label is resolved by its label, else by its id), so `ros2 lifecycle`,
//!   launch_ros and Nav2's lifecycle manager drive it as they drive any managed node.
//! - One `TransitionEvent` per transition taken (rcl's: the primary transition, its
//!   result, and on_error's result after `transition_error`). rcl leaves the event's
//!   `transition` and `timestamp` empty; here they carry the transition's id and label
//!   and the node's time, and a failed or erroring callback's reason follows its label
//!   (`transition_failure: cannot bind 127.0.0.1:5005: address in use`).
//! - A log line per change (`lifecycle: configure: unconfigured -> inactive`; a failure
//!   as an error with the reason) and a `lifecycle` status in the node's `/diagnostics`
//!   ([`Lifecycle::status`]: the state, the last transition, the last failure, the
//!   messages held back while inactive).
//!
//! # What a node does
//! ```ignore
//! pub fn run() -> ! { node_glue::lifecycle::main_with(NODE, setup) }
//!
//! fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
//!     let params = app.parameters(...)?;                       // as before
//!     let data = lc.publisher::<PointStamped>(&mut app.node, "arm/position", qos::sensor())?;
//!     // ... every ROS entity is made here, before the node spins (r2r's rule) ...
//!     Ok(Box::new(Spine { data, socket: None, ... }))
//! }
//!
//! impl Managed for Spine {
//!     fn on_configure(&mut self, _: State) -> Outcome {
//!         self.socket = Some(bind(&self.addr)?);   // a failure: back to unconfigured, with why
//!         Ok(())
//!     }
//!     fn on_cleanup(&mut self, _: State) -> Outcome { self.socket = None; Ok(()) }
//! }
//! ```
//! - **ROS entities** (publishers, subscriptions, services, action servers) are made in
//!   set-up, before the node spins: r2r's node cannot take new entities while it spins.
//!   What the node owns outside ROS (sockets, devices, files, tasks that drive them) is
//!   acquired in [`Managed::on_configure`] and released in [`Managed::on_cleanup`] and
//!   [`Managed::on_shutdown`].
//! - **Data topics** are [`LifecyclePublisher`]s ([`Lifecycle::publisher`],
//!   [`Lifecycle::latched_publisher`]): they publish only while the node is active; what
//!   is given them otherwise is counted (`suppressed_while_inactive`) and logged once per
//!   inactive spell. The check is one relaxed atomic load. A latched publisher keeps the
//!   last message it was given while inactive and publishes it on activation, so a late
//!   map or description still reaches its subscribers.
//! - **Goals and requests** that would make the node work are refused while it is not
//!   active, with [`Lifecycle::inactive_reason`] as the reason.
//! - `/diagnostics`, `/rosout`, parameters and these services keep working in every state.
//!
//! Publishers open **after** `on_activate` succeeded and close **after** `on_deactivate`
//! succeeded, so a node's last word on deactivation (the base's `Stop`) still goes out,
//! and nothing goes out before activation is complete.
//!
//! Callbacks run on a blocking thread of the node's runtime (inside it: they may bind
//! tokio sockets and spawn tasks), one change at a time: a request arriving during a
//! change waits its turn, as with rclpy's executor, while `~/get_state` answers at once
//! (the intermediate state). A callback that panics counts as `transition_error`, as an
//! exception does in rclpy.
//!
//! # Managed or not: the `managed` parameter
//! Every managed node declares `managed` (bool, default `false`, read at start):
//! - `false` (a node started on its own, `ros2 run`): the node configures and activates
//!   itself at start and behaves as before managed nodes existed; a configure that fails
//!   stops it (exit 2, `cannot start: <reason>`), as a set-up error always did. Its
//!   lifecycle services are there all the same (`ros2 lifecycle set /spine_bridge
//!   deactivate` pauses it).
//! - `true` (the launch files, under `lifecycle_manager`): the node starts
//!   `unconfigured` and waits for `~/change_state`; a failed configure leaves it
//!   unconfigured with the reason, and a second configure may succeed.
//!
//! SIGINT/SIGTERM stop a node as they always did, in whatever state it is (its tasks'
//! own shutdown branches run: the trajectory server holds the arm, the base sends
//! `Stop`); no lifecycle transition is taken then, so nothing is silenced on the way out.
//! A node shut down through `~/change_state` stays up in `finalized` (answering
//! `get_state`) until it is stopped, as rclcpp's and rclpy's do.
//!
//! # Upstream
//! Written to be offered to r2r: `glue_core::lifecycle` (no dependency) would become
//! `r2r::lifecycle`'s state machine, and this module's [`serve`] a
//! `r2r::Node::create_lifecycle_interface` beside `create_service` (it only uses public
//! r2r API: services, a publisher, `lifecycle_msgs`); [`LifecyclePublisher`] would wrap
//! `r2r::Publisher` there. Once r2r has it, this module keeps only [`main_with`] and the
//! `managed` parameter, on top of r2r's.
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use r2r::lifecycle_msgs::msg::{
    State as StateMsg, Transition as TransitionMsg, TransitionDescription, TransitionEvent,
};
use r2r::lifecycle_msgs::srv::{
    ChangeState, GetAvailableStates, GetAvailableTransitions, GetState,
};
use tokio::sync::watch;

pub use glue_core::lifecycle::{
    ids, labels, requested, Callback, CallbackReturn, Change, Machine, Refusal, Request, State,
    Transition, GRAPH,
};

use crate::diagnostics::{Counter, Level, Status};
use crate::{App, Error};

/// The parameter that makes a node wait for a lifecycle manager (see the module doc).
pub const MANAGED: &str = "managed";

/// Why a callback did not succeed: its reason, and which result transition it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failed {
    /// `transition_failure`: back to the state the change started from (a configure
    /// that cannot bind its port: back to `unconfigured`).
    Failure(String),
    /// `transition_error`: to `errorprocessing`, where `on_error` decides
    /// (`unconfigured` when it succeeds, else `finalized`).
    Error(String),
}

impl Failed {
    /// A `transition_failure` with `reason`.
    pub fn failure(reason: impl std::fmt::Display) -> Failed {
        Failed::Failure(reason.to_string())
    }
    /// A `transition_error` with `reason`.
    pub fn error(reason: impl std::fmt::Display) -> Failed {
        Failed::Error(reason.to_string())
    }
    /// The reason.
    pub fn reason(&self) -> &str {
        match self {
            Failed::Failure(r) | Failed::Error(r) => r,
        }
    }
    fn ret(&self) -> CallbackReturn {
        match self {
            Failed::Failure(_) => CallbackReturn::Failure,
            Failed::Error(_) => CallbackReturn::Error,
        }
    }
}

/// Any error is a `transition_failure` with its text (`?` in a callback).
impl<E: std::error::Error> From<E> for Failed {
    fn from(e: E) -> Failed {
        Failed::Failure(e.to_string())
    }
}

/// What a callback returns: `Ok(())` is `transition_success`.
pub type Outcome = Result<(), Failed>;

/// The callbacks of a managed node (rclcpp's `on_configure` ... `on_error`). Each gets the
/// primary state the change started from and defaults to success. They run one at a
/// time on a blocking thread of the node's runtime (see the module doc).
pub trait Managed: Send + 'static {
    /// `configuring`: acquire what the node owns (bind, open, load). A failure leaves the
    /// node `unconfigured`.
    fn on_configure(&mut self, _from: State) -> Outcome {
        Ok(())
    }
    /// `activating`: start working. Data publishers open once it succeeded.
    fn on_activate(&mut self, _from: State) -> Outcome {
        Ok(())
    }
    /// `deactivating`: stop working (the base's `Stop`); publishers still open until it
    /// succeeded.
    fn on_deactivate(&mut self, _from: State) -> Outcome {
        Ok(())
    }
    /// `cleaningup`: release what configure acquired.
    fn on_cleanup(&mut self, _from: State) -> Outcome {
        Ok(())
    }
    /// `shuttingdown`, from `unconfigured`, `inactive` or `active` (`from`): release
    /// everything; the node ends `finalized` whatever this returns, unless it errors.
    fn on_shutdown(&mut self, _from: State) -> Outcome {
        Ok(())
    }
    /// `errorprocessing`, after a callback erred: clean up; success goes back to
    /// `unconfigured`, anything else to `finalized`.
    fn on_error(&mut self, _from: State) -> Outcome {
        Ok(())
    }
}

/// A node with nothing of its own to acquire: every callback succeeds. Its lifecycle
/// publishers still follow the state.
pub struct Plain;
impl Managed for Plain {}

type Hook = Box<dyn Fn() + Send + Sync>;

struct Shared {
    machine: Mutex<Machine>,
    /// True exactly while the node is active (the publishers' gate).
    active: AtomicBool,
    state: AtomicU8,
    tx: watch::Sender<State>,
    managed: bool,
    node: String,
    transitions: Counter,
    refused: Counter,
    failed: Counter,
    suppressed: Counter,
    /// One log line per inactive spell about held-back messages.
    warned: AtomicBool,
    last: Mutex<Last>,
    /// Run after each activation (latched publishers publish what they hold).
    on_activated: Mutex<Vec<Hook>>,
}

#[derive(Default)]
struct Last {
    transition: String,
    failure: String,
}

/// A node's lifecycle state, shared by its tasks (cheap to clone). Made by
/// [`main_with`] (or [`Lifecycle::new`] for a node with its own main); served by [`serve`].
#[derive(Clone)]
pub struct Lifecycle(Arc<Shared>);

impl Lifecycle {
    /// A lifecycle in `unconfigured` for node `node` (its fully qualified name, for log
    /// lines); `managed`: whether it waits for a manager ([`MANAGED`]).
    pub fn new(node: &str, managed: bool) -> Lifecycle {
        let (tx, _) = watch::channel(State::Unconfigured);
        Lifecycle(Arc::new(Shared {
            machine: Mutex::new(Machine::new()),
            active: AtomicBool::new(false),
            state: AtomicU8::new(State::Unconfigured.id()),
            tx,
            managed,
            node: node.to_string(),
            transitions: Counter::default(),
            refused: Counter::default(),
            failed: Counter::default(),
            suppressed: Counter::default(),
            warned: AtomicBool::new(false),
            last: Mutex::default(),
            on_activated: Mutex::default(),
        }))
    }

    /// True while the node is active (one atomic load).
    #[inline]
    pub fn is_active(&self) -> bool {
        self.0.active.load(Ordering::Relaxed)
    }

    /// The current state (an intermediate one while a callback runs).
    pub fn state(&self) -> State {
        State::from_id(self.0.state.load(Ordering::Relaxed)).unwrap_or(State::Unknown)
    }

    /// Whether the node waits for a manager (`managed:=true`).
    pub fn managed(&self) -> bool {
        self.0.managed
    }

    /// A receiver of every state change.
    pub fn watch(&self) -> watch::Receiver<State> {
        self.0.tx.subscribe()
    }

    /// Resolves once the node is active (at once if it is).
    pub async fn wait_active(&self) {
        let mut rx = self.watch();
        let _ = rx.wait_for(|s| *s == State::Active).await;
    }

    /// The reason a goal or request is refused while the node is not active
    /// (`"<node> is not active (lifecycle state inactive)"`).
    pub fn inactive_reason(&self) -> String {
        format!(
            "{} is not active (lifecycle state {}): activate it first (ros2 lifecycle set {} activate)",
            self.0.node,
            self.state(),
            self.0.node
        )
    }

    /// A publisher of `topic` that publishes only while the node is active.
    ///
    /// # Errors
    /// rcl's, when the publisher cannot be made.
    pub fn publisher<T>(
        &self,
        node: &mut r2r::Node,
        topic: &str,
        qos: r2r::QosProfile,
    ) -> r2r::Result<LifecyclePublisher<T>>
    where
        T: r2r::WrappedTypesupport,
    {
        Ok(self.wrap(node.create_publisher::<T>(topic, qos)?))
    }

    /// Gates an existing publisher on the node's state.
    pub fn wrap<T>(&self, inner: r2r::Publisher<T>) -> LifecyclePublisher<T>
    where
        T: r2r::WrappedTypesupport,
    {
        LifecyclePublisher {
            inner,
            gate: self.clone(),
            held: None,
        }
    }

    /// A latched publisher (`qos`: transient local) that publishes only while the node is
    /// active and, on each activation, publishes the last message it was given while
    /// inactive (a map, a description: what a late subscriber must get).
    ///
    /// # Errors
    /// rcl's, when the publisher cannot be made.
    pub fn latched_publisher<T>(
        &self,
        node: &mut r2r::Node,
        topic: &str,
        qos: r2r::QosProfile,
    ) -> r2r::Result<LifecyclePublisher<T>>
    where
        T: r2r::WrappedTypesupport + Clone + Send + 'static,
    {
        let inner = node.create_publisher::<T>(topic, qos)?;
        let held: Arc<Mutex<Option<T>>> = Arc::default();
        {
            // r2r's publishers are Send, not Sync: the hook holds it behind a mutex.
            let (inner, held) = (Mutex::new(inner.clone()), held.clone());
            let topic = topic.to_string();
            self.on_activated(move || {
                let msg = held.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(msg) = msg {
                    let publisher = inner.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = publisher.publish(&msg) {
                        crate::log_warn!("could not publish the held message on {topic}: {e}");
                    }
                }
            });
        }
        Ok(LifecyclePublisher {
            inner,
            gate: self.clone(),
            held: Some(held),
        })
    }

    /// Runs `hook` after every activation (once publishers are open).
    pub fn on_activated(&self, hook: impl Fn() + Send + Sync + 'static) {
        self.0
            .on_activated
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Box::new(hook));
    }

    #[cold]
    fn held_back(&self) {
        self.0.suppressed.inc();
        if !self.0.warned.swap(true, Ordering::Relaxed) {
            crate::log_info!(
                "lifecycle: {}: data topics are silent until it is active (held back messages \
                 are counted in /diagnostics, suppressed_while_inactive)",
                self.state()
            );
        }
    }

    /// Messages held back while inactive, so far.
    pub fn suppressed(&self) -> u64 {
        self.0.suppressed.get()
    }

    /// The `lifecycle` status of `/diagnostics`: OK while active, WARN in any other
    /// state (the node is not working), ERROR after a failed transition until the next
    /// success; the message names the state; the values: state, id, last transition,
    /// last failure, counts.
    pub fn status(&self) -> Status {
        let state = self.state();
        let last = self.0.last.lock().unwrap_or_else(|e| e.into_inner());
        let level = if !last.failure.is_empty() && state != State::Active {
            Level::Error
        } else if state == State::Active {
            Level::Ok
        } else {
            Level::Warn
        };
        let mut message = format!("lifecycle state {state}");
        if !last.failure.is_empty() {
            message.push_str(&format!("; last failure: {}", last.failure));
        }
        Status::ok("lifecycle", message)
            .level(level)
            .with("state", state.label())
            .with("state_id", state.id())
            .with("managed", self.0.managed)
            .with("last_transition", &last.transition)
            .with("last_failure", &last.failure)
            .with("transitions", self.0.transitions.get())
            .with("transitions_refused", self.0.refused.get())
            .with("transitions_failed", self.0.failed.get())
            .with("suppressed_while_inactive", self.0.suppressed.get())
    }

    fn set_state(&self, s: State) {
        self.0.state.store(s.id(), Ordering::Relaxed);
        self.0.tx.send_replace(s);
    }

    fn open(&self, open: bool) {
        let was = self.0.active.swap(open, Ordering::Release);
        if open && !was {
            self.0.warned.store(false, Ordering::Relaxed);
            let hooks = self
                .0
                .on_activated
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            for h in hooks.iter() {
                h();
            }
        }
    }
}

/// A publisher that publishes only while its node is active (rclcpp's
/// `LifecyclePublisher`): [`LifecyclePublisher::publish`] checks one atomic flag; a
/// message given while inactive is counted, not sent (see the module doc).
pub struct LifecyclePublisher<T: r2r::WrappedTypesupport> {
    inner: r2r::Publisher<T>,
    gate: Lifecycle,
    held: Option<Arc<Mutex<Option<T>>>>,
}

impl<T: r2r::WrappedTypesupport> Clone for LifecyclePublisher<T> {
    fn clone(&self) -> Self {
        LifecyclePublisher {
            inner: self.inner.clone(),
            gate: self.gate.clone(),
            held: self.held.clone(),
        }
    }
}

impl<T: r2r::WrappedTypesupport + 'static> LifecyclePublisher<T> {
    /// Publishes `msg` if the node is active; otherwise counts it (and a latched
    /// publisher keeps it for the activation). Never an error for being inactive.
    ///
    /// # Errors
    /// rcl's, when an active publish fails.
    #[inline]
    pub fn publish(&self, msg: &T) -> r2r::Result<()>
    where
        T: Clone,
    {
        if self.gate.is_active() {
            return self.inner.publish(msg);
        }
        if let Some(held) = &self.held {
            *held.lock().unwrap_or_else(|e| e.into_inner()) = Some(msg.clone());
        }
        self.gate.held_back();
        Ok(())
    }

    /// True while messages go out.
    pub fn is_activated(&self) -> bool {
        self.gate.is_active()
    }

    /// The r2r publisher underneath (publishes whatever the state: for what a node must
    /// say in any state, which is rarely data).
    pub fn inner(&self) -> &r2r::Publisher<T> {
        &self.inner
    }
}

/// Runs a managed node's `main`: the app (with the [`MANAGED`] parameter), `setup` (which
/// makes every ROS entity and returns the callbacks), the lifecycle services, then
/// either waits for a manager (`managed:=true`) or configures and activates the node
/// itself (a failure stops it: exit 2 with the reason, as any set-up error), and spins.
pub fn main_with(
    name: &str,
    setup: impl FnOnce(&mut App, &Lifecycle) -> Result<Box<dyn Managed>, Error>,
) -> ! {
    crate::main_with(name, |app| {
        let lc = app.lifecycle()?;
        let callbacks = setup(app, &lc)?;
        let server = serve(app, &lc, callbacks)?;
        if !lc.managed() {
            server.self_start(app)?;
        } else {
            crate::log_info!(
                "managed:=true: unconfigured, waiting for a lifecycle manager (or ros2 lifecycle set)"
            );
        }
        Ok(())
    })
}

/// Why the self-start of a node that is not managed failed (shown after `cannot start:`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StartError(String);

/// The served lifecycle of a node ([`serve`]).
pub struct Server {
    lc: Lifecycle,
    runner: Runner,
}

impl Server {
    /// Configures and activates the node now (before it spins): the start of a node that
    /// is not managed.
    ///
    /// # Errors
    /// The reason of the first transition that did not succeed.
    pub fn self_start(&self, app: &App) -> Result<(), Error> {
        for id in [ids::CONFIGURE, ids::ACTIVATE] {
            let change = app
                .block_on(self.runner.change(Request::Id(id)))
                .map_err(|e| Error::node(StartError(e.to_string())))?;
            if !change.success() {
                let last = self.lc.0.last.lock().unwrap_or_else(|e| e.into_inner());
                return Err(Error::node(StartError(last.failure.clone())));
            }
        }
        Ok(())
    }

    /// The node's lifecycle.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.lc
    }
}

/// Runs changes: the machine, the callbacks and the event publisher.
#[derive(Clone)]
struct Runner {
    lc: Lifecycle,
    callbacks: Arc<Mutex<Box<dyn Managed>>>,
    /// r2r's publishers are Send, not Sync: behind a mutex, the runner is shared.
    events: Arc<Mutex<r2r::Publisher<TransitionEvent>>>,
}

fn state_msg(s: State) -> StateMsg {
    StateMsg {
        id: s.id(),
        label: s.label().to_string(),
    }
}

fn description(t: &Transition) -> TransitionDescription {
    TransitionDescription {
        transition: TransitionMsg {
            id: t.id,
            label: t.label.to_string(),
        },
        start_state: state_msg(t.start),
        goal_state: state_msg(t.goal),
    }
}

impl Runner {
    fn publish(&self, t: &Transition, reason: Option<&str>) {
        let now = crate::time::now_duration();
        let label = match reason {
            Some(r) => format!("{}: {r}", t.label),
            None => t.label.to_string(),
        };
        let event = TransitionEvent {
            timestamp: u64::try_from(now.as_nanos()).unwrap_or(u64::MAX),
            transition: TransitionMsg { id: t.id, label },
            start_state: state_msg(t.start),
            goal_state: state_msg(t.goal),
        };
        let sent = self
            .events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .publish(&event);
        if let Err(e) = sent {
            crate::log_warn!("lifecycle: could not publish the transition event: {e}");
        }
    }

    /// Takes a transition from the machine and publishes it.
    fn take(
        &self,
        step: impl FnOnce(&mut Machine) -> Option<&'static Transition>,
        reason: Option<&str>,
    ) -> Option<&'static Transition> {
        let t = {
            let mut m = self.lc.0.machine.lock().unwrap_or_else(|e| e.into_inner());
            let t = step(&mut m)?;
            self.lc.set_state(m.state());
            t
        };
        self.lc.0.transitions.inc();
        self.publish(t, reason);
        Some(t)
    }

    /// Runs the callback of the current intermediate state on a blocking thread.
    async fn call(&self, which: Callback, from: State) -> Outcome {
        let callbacks = self.callbacks.clone();
        let run = move || {
            let mut cb = callbacks.lock().unwrap_or_else(|e| e.into_inner());
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| match which {
                Callback::Configure => cb.on_configure(from),
                Callback::Cleanup => cb.on_cleanup(from),
                Callback::Shutdown => cb.on_shutdown(from),
                Callback::Activate => cb.on_activate(from),
                Callback::Deactivate => cb.on_deactivate(from),
                Callback::Error => cb.on_error(from),
            }));
            result.unwrap_or_else(|p| {
                let what = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                Err(Failed::Error(format!(
                    "on_{} panicked: {what}",
                    which.name()
                )))
            })
        };
        match tokio::task::spawn_blocking(run).await {
            Ok(outcome) => outcome,
            Err(e) => Err(Failed::Error(format!(
                "on_{} did not finish: {e}",
                which.name()
            ))),
        }
    }

    /// One whole change (see `glue_core::lifecycle`), with events, logs and the gate.
    async fn change(&self, request: Request<'_>) -> Result<Change, Refusal> {
        let from = self.lc.state();
        let begun = {
            let mut m = self.lc.0.machine.lock().unwrap_or_else(|e| e.into_inner());
            let t = m.begin(request);
            if t.is_ok() {
                self.lc.set_state(m.state());
            }
            t
        };
        let first = match begun {
            Ok(t) => t,
            Err(refusal) => {
                self.lc.0.refused.inc();
                crate::log_warn!("lifecycle: refused: {refusal}");
                return Err(refusal);
            }
        };
        self.lc.0.transitions.inc();
        self.publish(first, None);
        crate::log_info!(
            "lifecycle: {} ({}): {} -> {}",
            first.label,
            first.id,
            first.start,
            first.goal
        );
        let mut outcome = CallbackReturn::Success;
        let mut on_error = None;
        let mut failure = None;
        for round in 0..2 {
            let Some(which) = Callback::of(self.lc.state()) else {
                break;
            };
            let result = self.call(which, from).await;
            let ret = result
                .as_ref()
                .err()
                .map_or(CallbackReturn::Success, Failed::ret);
            if round == 0 {
                outcome = ret;
            } else {
                on_error = Some(ret);
            }
            if ret == CallbackReturn::Success && self.lc.state() == State::Deactivating {
                // Close the publishers once deactivation succeeded (before the event).
                self.lc.open(false);
            }
            let reason = result.err().map(|f| f.reason().to_string());
            let before = self.lc.state();
            let Some(t) = self.take(|m| m.finish(ret), reason.as_deref()) else {
                break;
            };
            match &reason {
                Some(r) => {
                    self.lc.0.failed.inc();
                    crate::log_error!(
                        "lifecycle: on_{} failed ({}): {r}; {} -> {}",
                        which.name(),
                        t.label,
                        before,
                        t.goal
                    );
                    failure = Some(format!("{}: {r}", which.name()));
                }
                None => crate::log_info!(
                    "lifecycle: on_{} succeeded: {} -> {}",
                    which.name(),
                    before,
                    t.goal
                ),
            }
            if ret != CallbackReturn::Error {
                break;
            }
        }
        let to = self.lc.state();
        // The gate follows the state: open exactly in `active`.
        self.lc.open(to == State::Active);
        {
            let mut last = self.lc.0.last.lock().unwrap_or_else(|e| e.into_inner());
            last.transition = format!("{}: {} -> {}", first.label, from, to);
            match failure {
                Some(f) => last.failure = f,
                None if to == State::Active || outcome == CallbackReturn::Success => {
                    last.failure.clear()
                }
                None => {}
            }
        }
        Ok(Change {
            from,
            outcome,
            on_error,
            to,
        })
    }
}

/// Serves the lifecycle of `app`'s node: the five services and `~/transition_event`,
/// answered by tasks on the app's runtime; changes run `callbacks`. Call once, in
/// set-up (before the node spins). [`main_with`] does it for a node.
///
/// # Errors
/// rcl's, when a service or the publisher cannot be made.
pub fn serve(app: &mut App, lc: &Lifecycle, callbacks: Box<dyn Managed>) -> Result<Server, Error> {
    let name = app.node.name()?;
    let qos = r2r::QosProfile::services_default();
    let node = &mut app.node;
    let change =
        node.create_service::<ChangeState::Service>(&format!("{name}/change_state"), qos.clone())?;
    let get =
        node.create_service::<GetState::Service>(&format!("{name}/get_state"), qos.clone())?;
    let states = node.create_service::<GetAvailableStates::Service>(
        &format!("{name}/get_available_states"),
        qos.clone(),
    )?;
    let available = node.create_service::<GetAvailableTransitions::Service>(
        &format!("{name}/get_available_transitions"),
        qos.clone(),
    )?;
    let graph = node.create_service::<GetAvailableTransitions::Service>(
        &format!("{name}/get_transition_graph"),
        qos,
    )?;
    // rcl's transition event publisher: default options (reliable, volatile, depth 10).
    let events = node.create_publisher::<TransitionEvent>(
        &format!("{name}/transition_event"),
        r2r::QosProfile::default(),
    )?;
    let runner = Runner {
        lc: lc.clone(),
        callbacks: Arc::new(Mutex::new(callbacks)),
        events: Arc::new(Mutex::new(events)),
    };
    let handle = app.handle();
    let shutdown = app.shutdown();
    {
        let runner = runner.clone();
        let shutdown = shutdown.clone();
        let mut change = change;
        handle.spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    _ = shutdown.wait() => break,
                    req = change.next() => {
                        let Some(req) = req else { break };
                        let t = &req.message.transition;
                        let success = match runner.change(requested(t.id, &t.label)).await {
                            Ok(c) => c.success(),
                            Err(_) => false,
                        };
                        let resp = ChangeState::Response { success };
                        if let Err(e) = req.respond(resp) {
                            crate::log_warn!("lifecycle: could not answer change_state: {e}");
                        }
                    }
                }
            }
        });
    }
    {
        let lc = lc.clone();
        let (mut get, mut states, mut available, mut graph) = (get, states, available, graph);
        handle.spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.wait() => break,
                    Some(req) = get.next() => {
                        let resp = GetState::Response { current_state: state_msg(lc.state()) };
                        let _ = req.respond(resp);
                    }
                    Some(req) = states.next() => {
                        let resp = GetAvailableStates::Response {
                            available_states: State::ALL.iter().map(|s| state_msg(*s)).collect(),
                        };
                        let _ = req.respond(resp);
                    }
                    Some(req) = available.next() => {
                        let m = lc.0.machine.lock().unwrap_or_else(|e| e.into_inner()).clone();
                        let resp = GetAvailableTransitions::Response {
                            available_transitions: m.available().map(description).collect(),
                        };
                        let _ = req.respond(resp);
                    }
                    Some(req) = graph.next() => {
                        let resp = GetAvailableTransitions::Response {
                            available_transitions: GRAPH.iter().map(description).collect(),
                        };
                        let _ = req.respond(resp);
                    }
                    else => break,
                }
            }
        });
    }
    Ok(Server {
        lc: lc.clone(),
        runner,
    })
}
