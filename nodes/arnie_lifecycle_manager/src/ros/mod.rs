//! The ROS 2 side of `lifecycle_manager` (feature `ros`): Nav2's lifecycle manager
//! interface on r2r, bond-free.
//!
//! - serves `~/manage_nodes` (`nav2_msgs/srv/ManageLifecycleNodes`: STARTUP, PAUSE,
//!   RESUME, RESET, SHUTDOWN, CONFIGURE, CLEANUP) and `~/is_active`
//!   (`std_srvs/srv/Trigger`: true while every managed node is active);
//! - calls each node's `~/get_state` and `~/change_state` (`lifecycle_msgs`), one node
//!   at a time in the order of the crate's rules, every call bounded by a timeout (a
//!   node that does not answer fails the command, naming it: never a hang);
//! - listens to each node's `~/transition_event`, so a refused transition is reported
//!   with the node's own reason;
//! - the heartbeat: while the nodes are active, `~/get_state` of every node each
//!   `heartbeat_period_s`; a node that does not answer within `bond_timeout` is down
//!   (reported, and, as Nav2 does with a broken bond, the others are deactivated and
//!   cleaned up, then brought up again once every node answers, within
//!   `bond_respawn_max_duration`); a node that answers in another state than `active`
//!   is reported (and `~/is_active` answers false until it is active again);
//! - `/diagnostics`: the managed nodes' state (Nav2's messages), each node's last seen
//!   state, the last failure.
mod client;
mod counters;
mod params;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use node_glue::diagnostics::Level;
use node_glue::r2r::{self, nav2_msgs::srv::ManageLifecycleNodes, std_srvs::srv::Trigger};
use node_glue::{App, Error, ParameterError};
use tokio::sync::mpsc;

use crate::{Action, Beat, Command, Failure, Managed, Step, Verdict};
use client::NodeClient;
use counters::Counters;
use node_glue::counters::CounterSet;
use params::ManagerParams;

/// The node's name.
pub const NODE: &str = "lifecycle_manager";

/// Runs the node until shutdown (exit 2 when it cannot start, naming the reason).
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Why the manager cannot start.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A name of `node_names` that is not a node name.
    #[error("node_names: {0:?} is not a node name (letters, digits, _ and /)")]
    BadName(String),
    /// The same node twice.
    #[error("node_names: {0:?} is given twice")]
    Twice(String),
}

/// What the manager knows, shared by its tasks.
struct Shared {
    managed: Managed,
    /// The nodes' last seen states, in `node_names` order.
    seen: Vec<(String, String)>,
    last_failure: String,
    /// A node that left `active` (heartbeat), if any.
    left_active: Option<String>,
    /// A command is running: the heartbeat waits.
    busy: bool,
}

/// Everything the command task needs.
#[derive(Clone)]
struct Manager {
    nodes: Arc<Vec<NodeClient>>,
    shared: Arc<Mutex<Shared>>,
    counters: Arc<Counters>,
    service_timeout: Duration,
    transition_timeout: Duration,
}

/// Creates the services, the clients of every managed node and the tasks.
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters_checked(
        ManagerParams::default(),
        node_glue::params::Rules {
            check: |p: &ManagerParams| p.check().map_err(Into::into),
        },
    )?;
    let p = params.lock()?.clone();
    let names = p.names().map_err(ParameterError::node)?;
    let handle = app.handle();
    let mut nodes = Vec::new();
    for name in &names {
        nodes.push(NodeClient::new(&mut app.node, name, &handle)?);
    }
    let manage = app.node.create_service::<ManageLifecycleNodes::Service>(
        &format!("{}/manage_nodes", app.name()),
        r2r::QosProfile::services_default(),
    )?;
    let is_active = app.node.create_service::<Trigger::Service>(
        &format!("{}/is_active", app.name()),
        r2r::QosProfile::services_default(),
    )?;
    let diagnostics = app.diagnostics()?;
    let shared = Arc::new(Mutex::new(Shared {
        managed: Managed::Unconfigured,
        seen: names
            .iter()
            .map(|n| (n.clone(), "unknown".into()))
            .collect(),
        last_failure: String::new(),
        left_active: None,
        busy: false,
    }));
    let counters = Arc::new(Counters::default());
    let manager = Manager {
        nodes: Arc::new(nodes),
        shared: shared.clone(),
        counters: counters.clone(),
        service_timeout: Duration::from_secs_f64(p.service_timeout_s),
        transition_timeout: Duration::from_secs_f64(p.transition_timeout_s),
    };
    node_glue::log_info!(
        "managing {} node(s), in this order: {}{}",
        names.len(),
        names.join(", "),
        if p.autostart { "; autostart" } else { "" }
    );
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    // Heartbeat verdicts that need a command (a node down) go to the command task.
    let (down_tx, down_rx) = mpsc::channel::<String>(4);
    tokio::spawn(commands(
        manager.clone(),
        manage,
        p.autostart,
        down_rx,
        p.clone(),
        shutdown.clone(),
    ));
    if p.bond_timeout > 0.0 {
        tokio::spawn(heartbeat(
            manager.clone(),
            Duration::from_secs_f64(p.heartbeat_period_s),
            Duration::from_secs_f64(p.bond_timeout),
            down_tx,
            shutdown.clone(),
        ));
    }
    {
        let shared = shared.clone();
        let shutdown = shutdown.clone();
        let mut is_active = is_active;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.wait() => break,
                    req = is_active.next() => {
                        let Some(req) = req else { break };
                        let s = shared.lock().unwrap_or_else(|e| e.into_inner());
                        let active = s.managed == Managed::Active;
                        let resp = Trigger::Response {
                            success: active,
                            message: if active { String::new() } else { s.managed.message().to_string() },
                        };
                        drop(s);
                        let _ = req.respond(resp);
                    }
                }
            }
        });
    }
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        let s = shared.lock().unwrap_or_else(|e| e.into_inner());
        let level = match s.managed {
            Managed::Active | Managed::Inactive | Managed::Unconfigured => Level::Ok,
            Managed::Finalized => Level::Warn,
            Managed::Unknown => Level::Error,
        };
        let mut status = counters
            .status("managed_nodes")
            .message(s.managed.message())
            .level(level)
            .with("state", format!("{:?}", s.managed).to_lowercase())
            .with("last_failure", &s.last_failure);
        for (name, state) in &s.seen {
            status = status.with(format!("node {name}"), state);
        }
        vec![status]
    });
    Ok(())
}

impl Manager {
    fn set(&self, f: impl FnOnce(&mut Shared)) {
        f(&mut self.shared.lock().unwrap_or_else(|e| e.into_inner()));
    }

    fn seen(&self, index: usize, state: &str) {
        self.set(|s| {
            if let Some(e) = s.seen.get_mut(index) {
                e.1 = state.to_string();
            }
        });
    }

    /// One step on one node: its state first, then the transition if the rules say so,
    /// then its state again.
    async fn step_node(&self, index: usize, step: Step) -> Result<(), String> {
        let node = &self.nodes[index];
        let state = node
            .state(self.service_timeout, self.transition_timeout)
            .await
            .map_err(|e| e.to_string())?;
        self.seen(index, state.label());
        let label = match step.action(state) {
            Action::Skip => return Ok(()),
            Action::Fail(reason) => return Err(reason),
            Action::Take(label) => label,
        };
        node_glue::log_info!("{} {}", crate::ing(step), node.name());
        let since = node.events_seen();
        let ok = node
            .change(label, self.service_timeout, self.transition_timeout)
            .await
            .map_err(|e| e.to_string())?;
        if !ok {
            let why = node.failure_since(since, Duration::from_millis(500)).await;
            if let Ok(s) = node
                .state(self.service_timeout, self.transition_timeout)
                .await
            {
                self.seen(index, s.label());
            }
            return Err(match why {
                Some(w) => format!("the node refused or failed: {w}"),
                None => "the node refused or failed (success: false)".into(),
            });
        }
        let after = node
            .state(self.service_timeout, self.transition_timeout)
            .await
            .map_err(|e| e.to_string())?;
        self.seen(index, after.label());
        if after != step.goal() {
            return Err(format!(
                "{label} answered success but the node is {after}, not {}",
                step.goal()
            ));
        }
        Ok(())
    }

    /// One step on every node, in the step's order; `hard`: go on past failures (the
    /// first is still returned); `skip`: a node known to be down.
    async fn step_all(
        &self,
        command: Command,
        step: Step,
        hard: bool,
        skip: Option<&str>,
    ) -> Result<(), Failure> {
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        if !step.in_order() {
            order.reverse();
        }
        let mut first = None;
        for i in order {
            if Some(self.nodes[i].name()) == skip {
                continue;
            }
            if let Err(reason) = self.step_node(i, step).await {
                let f = Failure {
                    command,
                    node: self.nodes[i].name().to_string(),
                    step: step.label(),
                    reason,
                };
                node_glue::log_error!("{f}");
                if !hard {
                    return Err(f);
                }
                first.get_or_insert(f);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Runs `command` on the managed nodes (Nav2's manager's steps).
    async fn run(&self, command: Command, hard: bool) -> bool {
        self.run_skipping(command, hard, None).await
    }

    /// [`Manager::run`]; `hard`: a reset after a node went down, which goes on past
    /// failures and leaves out that node (`skip`).
    async fn run_skipping(&self, command: Command, hard: bool, skip: Option<&str>) -> bool {
        node_glue::log_info!("{command}: {}", crate::describe(command));
        self.counters.commands.inc();
        self.set(|s| s.busy = true);
        let mut failure = None;
        for &step in command.steps() {
            if let Err(f) = self.step_all(command, step, hard, skip).await {
                failure.get_or_insert(f);
                if !hard {
                    break;
                }
            }
        }
        match failure {
            None => {
                let reached = command.reaches();
                node_glue::log_info!("{}", reached.message());
                self.set(|s| {
                    s.managed = reached;
                    s.left_active = None;
                    s.busy = false;
                });
                true
            }
            Some(f) => {
                node_glue::log_error!("{command} aborted: {f}");
                self.counters.commands_failed.inc();
                self.set(|s| {
                    s.managed = if hard {
                        command.reaches()
                    } else {
                        Managed::Unknown
                    };
                    s.last_failure = f.to_string();
                    s.busy = false;
                });
                hard
            }
        }
    }
}

/// The command task: `~/manage_nodes` requests, autostart, and the reset after a node
/// went down, one at a time.
async fn commands(
    manager: Manager,
    mut manage: impl futures::Stream<Item = r2r::ServiceRequest<ManageLifecycleNodes::Service>> + Unpin,
    autostart: bool,
    mut down: mpsc::Receiver<String>,
    p: ManagerParams,
    shutdown: node_glue::Shutdown,
) {
    if autostart {
        manager.run(Command::Startup, false).await;
    }
    loop {
        tokio::select! {
            biased;
            _ = shutdown.wait() => break,
            Some(node) = down.recv() => {
                // Nav2: "if one is down, bring them all down", then wait for a respawn.
                manager.run_skipping(Command::Reset, true, Some(&node)).await;
                manager.set(|s| {
                    s.managed = Managed::Unknown;
                    s.last_failure = format!("{node} is down (no heartbeat within {} s)", p.bond_timeout);
                });
                if p.attempt_respawn_reconnection {
                    respawn(&manager, &p, &shutdown).await;
                }
            }
            req = manage.next() => {
                let Some(req) = req else { break };
                let c = req.message.command;
                let success = match Command::from_u8(c) {
                    Some(command) => manager.run(command, false).await,
                    None => {
                        node_glue::log_warn!("manage_nodes: unknown command {c} (0..=6: STARTUP, PAUSE, RESUME, RESET, SHUTDOWN, CONFIGURE, CLEANUP)");
                        false
                    }
                };
                if let Err(e) = req.respond(ManageLifecycleNodes::Response { success }) {
                    node_glue::log_warn!("could not answer manage_nodes: {e}");
                }
            }
        }
    }
}

/// After a node went down: every second, asks every node for its state; once all
/// answer, STARTUP again; gives up after `bond_respawn_max_duration`.
async fn respawn(manager: &Manager, p: &ManagerParams, shutdown: &node_glue::Shutdown) {
    let limit = Duration::from_secs_f64(p.bond_respawn_max_duration);
    let started = tokio::time::Instant::now();
    node_glue::log_info!(
        "waiting up to {:.1} s for every managed node to answer again",
        limit.as_secs_f64()
    );
    while started.elapsed() < limit && !shutdown.is_set() {
        let answers = futures::future::join_all(
            manager
                .nodes
                .iter()
                .map(|n| n.probe(Duration::from_secs(1))),
        )
        .await;
        if answers.iter().all(Option::is_some) {
            node_glue::log_info!("every managed node answers again: starting them up");
            manager.run(Command::Startup, false).await;
            return;
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
    node_glue::log_error!(
        "a managed node did not come back within {:.1} s: the nodes stay down",
        limit.as_secs_f64()
    );
}

/// The heartbeat: while the managed nodes are active (and no command runs), every
/// node's `~/get_state` each `period`, answered within `timeout`.
async fn heartbeat(
    manager: Manager,
    period: Duration,
    timeout: Duration,
    down: mpsc::Sender<String>,
    shutdown: node_glue::Shutdown,
) {
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.wait() => break,
            _ = tick.tick() => {}
        }
        let watching = {
            let s = manager.shared.lock().unwrap_or_else(|e| e.into_inner());
            !s.busy && (s.managed == Managed::Active || s.left_active.is_some())
        };
        if !watching {
            continue;
        }
        let beats = futures::future::join_all(manager.nodes.iter().map(|n| n.probe(timeout))).await;
        // A command may have run meanwhile (PAUSE): judge only what is still watched.
        let still = {
            let s = manager.shared.lock().unwrap_or_else(|e| e.into_inner());
            !s.busy && (s.managed == Managed::Active || s.left_active.is_some())
        };
        if !still {
            continue;
        }
        let mut left = None;
        let mut gone = None;
        for (i, beat) in beats.into_iter().enumerate() {
            let beat = beat.map_or(Beat::Silent, Beat::State);
            let name = manager.nodes[i].name().to_string();
            match &beat {
                Beat::State(s) => manager.seen(i, s.label()),
                Beat::Silent => manager.seen(i, "no answer"),
            }
            match beat.verdict() {
                Verdict::Fine => {}
                Verdict::LeftActive(s) => {
                    left.get_or_insert((name, s));
                }
                Verdict::Down => {
                    gone.get_or_insert(name);
                }
            }
        }
        if let Some(name) = gone {
            manager.counters.nodes_down.inc();
            node_glue::log_error!(
                "CRITICAL FAILURE: {name} is down: no answer to get_state within {:.1} s; \
                 bringing the other managed nodes down",
                timeout.as_secs_f64()
            );
            manager.set(|s| {
                s.managed = Managed::Unknown;
                s.left_active = None;
                s.last_failure = format!(
                    "{name} is down (no heartbeat within {:.1} s)",
                    timeout.as_secs_f64()
                );
            });
            let _ = down.send(name).await;
            continue;
        }
        let report = manager
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .left_active
            .clone();
        match (left, report) {
            (Some((name, state)), None) => {
                manager.counters.nodes_left_active.inc();
                node_glue::log_error!("{name} left active: it is {state}; is_active is false until it is active again");
                manager.set(|s| {
                    s.managed = Managed::Unknown;
                    s.left_active = Some(name.clone());
                    s.last_failure = format!("{name} left active (now {state})");
                });
            }
            (None, Some(name)) => {
                node_glue::log_info!("{name} is active again: every managed node is active");
                manager.set(|s| {
                    s.managed = Managed::Active;
                    s.left_active = None;
                });
            }
            _ => {}
        }
    }
}
