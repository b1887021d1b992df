//! A managed node's lifecycle served: `~/change_state`, `~/get_state` and the other
//! `lifecycle_msgs` services, `~/transition_event`, and the runner that takes one change
//! at a time through the callbacks ([`serve`], [`Server`]).
use super::*;

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
