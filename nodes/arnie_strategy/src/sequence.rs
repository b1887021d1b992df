//! Sequences of asynchronous steps (the RobotikUTT scheduler, redone on tokio).
//!
//! A [`Sequence`] is a named list of [`Step`]s run one after the other. A step is a
//! *factory* of futures, so a step can be retried and a sequence restarted. Kinds:
//! a future (`next`), a `delay`, a nested sequence (`nest`), a parallel group
//! (`parallel`). Each step may carry a timeout and an [`ErrorPolicy`].
//!
//! Events of one run, in order (`done`/`total` count this sequence's steps):
//! - `Started(0, n)` first, always.
//! - per step: zero or more `Error(step)` (one per failed attempt), then
//!   `Next(i + 1, n, step)` when it succeeded or was skipped (message `"skipped"`).
//! - exactly one terminal event: `Finished(n, n)`, or `Stopped(i, n, step)` (the step
//!   in flight, whose future is dropped: stopping *cancels* it), or, for a step whose
//!   policy gives up, its last `Error` is the terminal event.
//!
//! A nested sequence and each member of a group emit their own events under their own
//! name, between the parent's events. Stopping the parent stops them first (they emit
//! their own `Stopped`), then the parent emits its `Stopped`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};
use tokio::task::JoinHandle;

use crate::error::Error;
use crate::event::{EventKind, EventSink};
use crate::stop::{StopSource, StopToken};

/// What a step's factory returns.
pub type StepFuture = BoxFuture<'static, Result<(), Error>>;
type StepFn = Arc<dyn Fn() -> StepFuture + Send + Sync>;

/// What to do when a step fails (its future errs or its timeout expires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// The sequence fails at this step.
    #[default]
    Abort,
    /// Run the step again, up to this many extra times, then abort.
    Retry(u32),
    /// Count the step as passed (`Next` with message `"skipped"`) and go on.
    Skip,
}

#[derive(Clone)]
enum Action {
    Run(StepFn),
    Delay(Duration),
    Nested(Sequence),
    Parallel {
        members: Vec<Sequence>,
        min_success: usize,
    },
}

/// One step of a sequence.
#[derive(Clone)]
pub struct Step {
    name: String,
    action: Action,
    timeout: Option<Duration>,
    on_error: ErrorPolicy,
}

impl Step {
    /// A step that runs `make()` each time it runs.
    pub fn new<F, Fut>(name: impl Into<String>, make: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), Error>> + Send + 'static,
    {
        let make: StepFn = Arc::new(move || make().boxed());
        Self::with(name.into(), Action::Run(make))
    }

    /// A pause; named `delay <ms> ms`.
    pub fn delay(duration: Duration) -> Self {
        Self::with(
            format!("delay {} ms", duration.as_millis()),
            Action::Delay(duration),
        )
    }

    /// A whole sequence as one step, named after it.
    pub fn nested(sequence: Sequence) -> Self {
        Self::with(sequence.name.clone(), Action::Nested(sequence))
    }

    /// Members run concurrently. The step succeeds when at least `min_success` members
    /// finished (capped to the member count; a skipped step inside a member still counts
    /// as that member finishing). As soon as too many failed for that to happen, the
    /// others are stopped and the step fails with [`Error::Group`], naming the failed
    /// members and the stopped ones (`"<name> (stopped)"`). On success `Next`'s message
    /// says how many succeeded and which failed.
    pub fn parallel(name: impl Into<String>, members: Vec<Sequence>, min_success: usize) -> Self {
        let min_success = min_success.min(members.len());
        Self::with(
            name.into(),
            Action::Parallel {
                members,
                min_success,
            },
        )
    }

    fn with(name: String, action: Action) -> Self {
        Self {
            name,
            action,
            timeout: None,
            on_error: ErrorPolicy::Abort,
        }
    }

    /// Fails the attempt with [`Error::Timeout`] after `timeout` (nested sequences and
    /// groups are stopped first, so they emit their `Stopped`).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the error policy (default [`ErrorPolicy::Abort`]).
    pub fn on_error(mut self, policy: ErrorPolicy) -> Self {
        self.on_error = policy;
        self
    }

    /// Renames the step (events show this name).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The step's name, as events show it.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every step is behind; `skipped` of them were skipped after an error.
    Finished {
        /// Steps skipped after an error (`ErrorPolicy::Skip`).
        skipped: u32,
    },
    /// A step gave up.
    Failed {
        /// The step's name.
        step: String,
        /// Its last error.
        error: Error,
    },
    /// Stopped after `done` steps while `step` ran (empty: before any step ran).
    Stopped {
        /// Steps behind.
        done: u32,
        /// The step that ran ("" before any).
        step: String,
    },
}

/// A named list of steps. Cheap to clone; immutable once built; can run any number
/// of times.
#[derive(Clone)]
pub struct Sequence {
    name: String,
    steps: Vec<Step>,
}

enum StepResult {
    Ok(String),
    Err(Error),
    Stopped,
}

impl Sequence {
    /// An empty sequence (it finishes at once).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            steps: Vec::new(),
        }
    }

    /// Appends a step.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Appends a future step (the original's `next(step)`).
    pub fn next<F, Fut>(self, name: impl Into<String>, make: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), Error>> + Send + 'static,
    {
        self.step(Step::new(name, make))
    }

    /// Appends a pause.
    pub fn delay(self, duration: Duration) -> Self {
        self.step(Step::delay(duration))
    }

    /// Appends another sequence as one step.
    pub fn nest(self, sequence: Sequence) -> Self {
        self.step(Step::nested(sequence))
    }

    /// Appends a parallel group (see [`Step::parallel`]).
    pub fn parallel(
        self,
        name: impl Into<String>,
        members: Vec<Sequence>,
        min_success: usize,
    ) -> Self {
        self.step(Step::parallel(name, members, min_success))
    }

    /// The name events carry as `task`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of steps (the events' `total`).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True when there is no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Runs the steps in place until the end, a failure, or `stop`.
    pub fn run<'a>(&'a self, events: &'a EventSink, stop: &'a StopToken) -> BoxFuture<'a, Outcome> {
        self.run_inner(events, stop).boxed()
    }

    /// Spawns a run on the current tokio runtime (the original's `start`). Call again,
    /// after or even during a run, to start a fresh run from the first step.
    pub fn start(&self, events: EventSink) -> Running {
        let seq = self.clone();
        let (stop, token) = StopSource::new();
        let join = tokio::spawn(async move { seq.run(&events, &token).await });
        Running { stop, join }
    }

    async fn run_inner(&self, events: &EventSink, stop: &StopToken) -> Outcome {
        let total = self.steps.len() as u32;
        let emit = |kind, step: &str, done, message: String| {
            events.simple(kind, &self.name, step, done, total, message)
        };
        emit(EventKind::Started, "", 0, String::new());
        let mut skipped = 0;
        for (i, step) in self.steps.iter().enumerate() {
            let done = i as u32;
            if stop.is_stopped() {
                emit(EventKind::Stopped, "", done, String::new());
                return Outcome::Stopped {
                    done,
                    step: String::new(),
                };
            }
            let mut attempt = 0u32;
            loop {
                match run_step(step, events, stop).await {
                    StepResult::Ok(message) => {
                        emit(EventKind::Next, &step.name, done + 1, message);
                        break;
                    }
                    StepResult::Stopped => {
                        emit(EventKind::Stopped, &step.name, done, String::new());
                        return Outcome::Stopped {
                            done,
                            step: step.name.clone(),
                        };
                    }
                    StepResult::Err(error) => {
                        attempt += 1;
                        match step.on_error {
                            ErrorPolicy::Retry(extra) => {
                                emit(
                                    EventKind::Error,
                                    &step.name,
                                    done,
                                    format!("attempt {attempt}/{}: {error}", extra + 1),
                                );
                                if attempt <= extra {
                                    continue;
                                }
                                return Outcome::Failed {
                                    step: step.name.clone(),
                                    error,
                                };
                            }
                            ErrorPolicy::Skip => {
                                emit(EventKind::Error, &step.name, done, error.to_string());
                                skipped += 1;
                                emit(EventKind::Next, &step.name, done + 1, "skipped".to_owned());
                                break;
                            }
                            ErrorPolicy::Abort => {
                                emit(EventKind::Error, &step.name, done, error.to_string());
                                return Outcome::Failed {
                                    step: step.name.clone(),
                                    error,
                                };
                            }
                        }
                    }
                }
            }
        }
        let message = if skipped > 0 {
            format!("{skipped} skipped")
        } else {
            String::new()
        };
        emit(EventKind::Finished, "", total, message);
        Outcome::Finished { skipped }
    }
}

/// A spawned run.
pub struct Running {
    stop: StopSource,
    join: JoinHandle<Outcome>,
}

impl Running {
    /// Stops the run: the step in flight is cancelled (its future dropped).
    pub fn stop(&self) {
        self.stop.stop();
    }

    /// True once the run is over.
    pub fn is_finished(&self) -> bool {
        self.join.is_finished()
    }

    /// Waits for the end of the run.
    pub async fn wait(self) -> Outcome {
        match self.join.await {
            Ok(outcome) => outcome,
            Err(e) => Outcome::Failed {
                step: String::new(),
                error: Error::Robot {
                    message: format!("sequence task ended abnormally: {e}"),
                },
            },
        }
    }
}

fn timeout_error(step: &Step, after: Duration) -> Error {
    Error::Timeout {
        step: step.name.clone(),
        after_ms: after.as_millis() as u64,
    }
}

async fn run_step(step: &Step, events: &EventSink, stop: &StopToken) -> StepResult {
    match &step.action {
        Action::Run(make) => leaf(step, make(), stop).await,
        Action::Delay(d) => leaf(step, tokio::time::sleep(*d).map(Ok).boxed(), stop).await,
        Action::Nested(seq) => {
            with_child(step, stop, |token| async move {
                match seq.run(events, &token).await {
                    Outcome::Finished { .. } => StepResult::Ok(String::new()),
                    Outcome::Stopped { .. } => StepResult::Stopped,
                    Outcome::Failed { step, error } => StepResult::Err(Error::Nested {
                        sequence: seq.name.clone(),
                        step,
                        message: error.to_string(),
                    }),
                }
            })
            .await
        }
        Action::Parallel {
            members,
            min_success,
        } => {
            let name = step.name.clone();
            let min_success = *min_success;
            with_child(step, stop, |token| {
                parallel(name, members, min_success, events, token)
            })
            .await
        }
    }
}

/// A plain future: raced against `stop` (biased: a stop wins a tie) and its timeout.
async fn leaf(step: &Step, fut: StepFuture, stop: &StopToken) -> StepResult {
    let fut = async {
        match step.timeout {
            Some(d) => match tokio::time::timeout(d, fut).await {
                Ok(r) => r,
                Err(_) => Err(timeout_error(step, d)),
            },
            None => fut.await,
        }
    };
    tokio::select! {
        biased;
        _ = stop.stopped() => StepResult::Stopped,
        r = fut => match r {
            Ok(()) => StepResult::Ok(String::new()),
            Err(e) => StepResult::Err(e),
        },
    }
}

/// A nested sequence or group: runs under a child token; on timeout the child is
/// stopped and awaited (so its members emit their `Stopped`) before the step errs.
async fn with_child<'a, F, Fut>(step: &Step, stop: &'a StopToken, make: F) -> StepResult
where
    F: FnOnce(StopToken) -> Fut,
    Fut: Future<Output = StepResult> + 'a,
{
    let (source, token) = stop.child();
    let fut = make(token);
    tokio::pin!(fut);
    let r = match step.timeout {
        None => fut.await,
        Some(d) => {
            tokio::select! {
                r = &mut fut => r,
                _ = tokio::time::sleep(d) => {
                    source.stop();
                    match fut.await {
                        StepResult::Stopped if !stop.is_stopped() => StepResult::Err(timeout_error(step, d)),
                        StepResult::Err(Error::Group { .. }) if !stop.is_stopped() => StepResult::Err(timeout_error(step, d)),
                        r => r,
                    }
                }
            }
        }
    };
    if stop.is_stopped() {
        StepResult::Stopped
    } else {
        r
    }
}

async fn parallel(
    name: String,
    members: &[Sequence],
    min_success: usize,
    events: &EventSink,
    token: StopToken,
) -> StepResult {
    // A second child: failing fast stops the members without stopping anyone else.
    let (fail_fast, member_token) = token.child();
    let member_token = &member_token;
    let mut running: FuturesUnordered<_> = members
        .iter()
        .enumerate()
        .map(|(i, m)| async move { (i, m.run(events, member_token).await) })
        .collect();
    let allowed_failures = members.len() - min_success;
    let (mut succeeded, mut failed, mut stopped) = (0usize, Vec::new(), Vec::new());
    while let Some((i, outcome)) = running.next().await {
        match outcome {
            Outcome::Finished { .. } => succeeded += 1,
            Outcome::Failed { .. } => {
                failed.push(members[i].name.clone());
                if failed.len() > allowed_failures {
                    fail_fast.stop();
                }
            }
            Outcome::Stopped { .. } => stopped.push(i),
        }
    }
    if token.is_stopped() && failed.len() <= allowed_failures {
        return StepResult::Stopped;
    }
    if succeeded >= min_success {
        let mut message = format!("{succeeded}/{} succeeded", members.len());
        if !failed.is_empty() {
            message.push_str("; failed: ");
            message.push_str(&failed.join(", "));
        }
        StepResult::Ok(message)
    } else {
        // Stopped members in declaration order: they end together, in no useful order.
        stopped.sort_unstable();
        failed.extend(
            stopped
                .into_iter()
                .map(|i| format!("{} (stopped)", members[i].name)),
        );
        StepResult::Err(Error::Group {
            group: name,
            succeeded,
            required: min_success,
            failed,
        })
    }
}
