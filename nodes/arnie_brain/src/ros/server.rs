//! [`BrainServer`]: the `/brain/run_task` action server (`RunTask`) and the tick loop.
//!
//! A goal names its task: `task_file`, else inline `task_json`, else inline
//! `task_english`, else the node's `instructions_file` parameter. A file whose name ends
//! in `.txt` is a task in plain English, compiled with `arnie_english` (as is
//! `task_english`); any other file is instructions JSON. The goal policy is
//! `node_glue::action`'s, the same in every node: a goal whose task cannot be read, does
//! not load or does not compile (or names an unknown `initial_action`) is accepted and
//! aborted at once with outcome `REJECTED` and the loader's error in `message` (a task
//! file is read by `node_glue::files`: off the runtime, a regular file in `allowed_dirs`
//! of at most `max_file_bytes`, each refusal naming the file and the rule; an inline
//! task over `max_file_bytes` is refused too), e.g.
//! `task_json: actions.start.decisions[0].success.action: unknown action "nope"`, or
//! every diagnostic of the English, one per line, e.g.
//! `task_english: line 2, column 13: unknown sentence: …` (a plain rejection would tell
//! the client nothing). Warnings of English that compiles are logged; both, and the
//! goal's ignored fields, rate-limited (`node_glue::warn_limited!`). Such a goal does not
//! disturb the run in progress.
//!
//! A goal that loads **preempts** the run in progress: that run's goal ends `ABORTED`
//! with outcome `PREEMPTED` and a message naming the new goal
//! (`node_glue::action::preempted_message`), its `MoveTo` goal is cancelled,
//! then the new run starts.
//!
//! A run ticks every `tick_period` of the node's ROS clock (the first tick at once; with
//! `use_sim_time`, ticks follow `/clock`, the first at the first `/clock`): arm position and
//! observations that are fresh enough go into [`Brain::tick`], the target goes to the
//! [`Mover`], `/brain/state` and the goal's feedback carry the new state, every event is
//! logged (a pause on a stale arm position and a failed verification, which follow the
//! inputs, as rate-limited warnings). It ends:
//! - by itself (nothing active or scheduled) or at its tick limit: `FINISHED` (goal
//!   succeeded); the last move is left to complete;
//! - on a cancel request: the brain is cancelled, the running move too: `CANCELLED`;
//! - on preemption or node shutdown: the move is cancelled: `PREEMPTED`, or `ABORTED`
//!   on shutdown (goal aborted either way).
//!
//! The autostart run (`autostart`, the `instructions_file`) is a run without a goal.

use std::sync::{Arc, Mutex};

use futures::{Stream, StreamExt};
use node_glue::action::{self, Accepted, CancelStream, End};
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::ratelimit::RateLimit;
use r2r::arnie_interfaces::action::RunTask;
use r2r::arnie_interfaces::msg::BrainState;
use r2r::{ActionServerGoal, ActionServerGoalRequest};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::inputs::Seen;
use super::state::{aborted_msg, event_msg, outcome_code, state_msg};
use super::{Counters, Inputs, Mover, Scale, Settings, SettingsFn};
use crate::{Brain, Event, Observation, Outcome, Snapshot, Status};
use node_glue::params::SettingsError;

type Goal = ActionServerGoal<RunTask::Action>;

/// Why a goal's task (or `instructions_file`) cannot run: its `Display` is the
/// `REJECTED` message the client gets (it names the source and the problem).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The live parameters cannot give the run's settings.
    #[error("{0}")]
    Settings(#[from] SettingsError),
    /// The task file, or an inline task, refused by the file rules or unreadable.
    #[error("{0}")]
    File(node_glue::files::FileError),
    /// No task given and no `instructions_file`.
    #[error(
        "no task: the goal's task_file, task_json and task_english and the \
                        instructions_file parameter are all empty"
    )]
    NoTask,
    /// A task in English that does not compile: every diagnostic, one per line, each
    /// prefixed with the source (`task_english: line 2, column 13: unknown sentence: …`).
    #[error("{}", english_lines(.name, .diagnostics))]
    English {
        /// The source (file or `task_english`).
        name: String,
        /// The compiler's diagnostics.
        diagnostics: Vec<arnie_english::Diagnostic>,
    },
    /// The instructions do not load, or the initial action is not one of them.
    #[error("{name}: {source}")]
    Task {
        /// The source (file, `task_json` or `task_english`).
        name: String,
        /// Why.
        source: crate::BrainError,
    },
}

/// The diagnostics of [`LoadError::English`], one per line, each after the source.
fn english_lines(name: &str, diagnostics: &[arnie_english::Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| format!("{name}: {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A task loaded and ready to run.
pub struct Task {
    /// The file's path, or `task_json` / `task_english` for an inline task
    /// (`BrainState.task`).
    pub name: String,
    /// The loaded task, at its first tick, with the goal's tick limit.
    pub brain: Brain,
    /// The node's settings when the goal came (they hold for the whole run).
    pub settings: Settings,
}

/// The run in progress.
struct Running {
    /// Tells the run to stop, with the outcome (`ABORTED` or `PREEMPTED`) and message
    /// of its result.
    stop: oneshot::Sender<(Outcome, String)>,
    done: JoinHandle<()>,
}

/// How a run ended.
enum RunEnd {
    Finished(String),
    Cancelled,
    /// Stopped by the node: `Outcome::Aborted` or `Outcome::Preempted`, and why.
    Stopped(Outcome, String),
}

/// Serves `/brain/run_task`; see the module doc.
pub struct BrainServer {
    inputs: Arc<Inputs>,
    /// r2r publishers are `Send` but not `Sync`; the mutexes make the server shareable.
    mover: Mutex<Mover>,
    state: Mutex<LifecyclePublisher<BrainState>>,
    settings: SettingsFn,
    /// The node's lifecycle: goals only while active; a run ticks only while active.
    lc: Lifecycle,
    counters: Arc<Counters>,
    shutdown: node_glue::Shutdown,
    running: tokio::sync::Mutex<Option<Running>>,
    /// The state after the last tick of the last run, with its scale (`brain/markers`).
    last: Mutex<Option<(Snapshot, Scale)>>,
    /// Input-driven log lines (rejected goals, English warnings, pauses): rate-limited.
    limit: RateLimit,
}

impl BrainServer {
    /// The server, shared by its goal loop and the markers task.
    pub fn new(
        inputs: Arc<Inputs>,
        mover: Mover,
        state: LifecyclePublisher<BrainState>,
        settings: SettingsFn,
        counters: Arc<Counters>,
        shutdown: node_glue::Shutdown,
        lc: Lifecycle,
    ) -> Arc<Self> {
        Arc::new(BrainServer {
            inputs,
            mover: Mutex::new(mover),
            state: Mutex::new(state),
            settings,
            lc,
            counters,
            shutdown,
            running: tokio::sync::Mutex::new(None),
            last: Mutex::new(None),
            limit: RateLimit::default(),
        })
    }

    /// The live settings (the parameters, read again for every run).
    pub fn settings_fn(&self) -> SettingsFn {
        self.settings.clone()
    }

    /// The state after the last tick of the last run (kept after it ends), with that
    /// run's scale; `None` before the first run.
    pub fn last_state(&self) -> Option<(Snapshot, Scale)> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn remember(&self, snap: &Snapshot, scale: Scale) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some((snap.clone(), scale));
    }

    /// Loads the task a goal names (see the module doc). The error is the `REJECTED`
    /// message: it names the source and the problem. A file is read by
    /// `node_glue::files` (off the runtime; `allowed_dirs`, regular files only,
    /// `max_file_bytes`); an inline task is capped at `max_file_bytes` too.
    pub async fn load(&self, goal: &RunTask::Goal) -> Result<Task, LoadError> {
        let settings = (self.settings)()?;
        let read = |path: String| {
            let rules = settings.files.clone();
            async move {
                node_glue::files::read_to_string(&path, &rules)
                    .await
                    .map_err(|e| self.refused(e))
            }
        };
        for (name, text) in [
            ("task_json", &goal.task_json),
            ("task_english", &goal.task_english),
        ] {
            settings
                .files
                .check_len(name, text.len())
                .map_err(|e| self.refused(e))?;
        }
        let inline = [
            ("task_json", &goal.task_json),
            ("task_english", &goal.task_english),
        ];
        let given: Vec<&str> = inline
            .iter()
            .filter(|(_, t)| !t.trim().is_empty())
            .map(|(n, _)| *n)
            .collect();
        let (name, text, english) = if !goal.task_file.trim().is_empty() {
            if !given.is_empty() {
                node_glue::warn_limited!(
                    self.limit,
                    "ignored",
                    "goal has task_file and {}: ignored",
                    given.join(" and ")
                );
            }
            let path = goal.task_file.trim().to_owned();
            let text = read(path.clone()).await?;
            let english = is_english_file(&path);
            (path, text, english)
        } else if !goal.task_json.trim().is_empty() {
            if !goal.task_english.trim().is_empty() {
                node_glue::warn_limited!(
                    self.limit,
                    "ignored",
                    "goal has task_json and task_english: task_english ignored"
                );
            }
            ("task_json".to_owned(), goal.task_json.clone(), false)
        } else if !goal.task_english.trim().is_empty() {
            ("task_english".to_owned(), goal.task_english.clone(), true)
        } else if !settings.instructions_file.trim().is_empty() {
            let path = settings.instructions_file.trim().to_owned();
            let text = read(path.clone()).await?;
            let english = is_english_file(&path);
            (path, text, english)
        } else {
            return Err(LoadError::NoTask);
        };
        let instructions = if english {
            self.compile_english(&name, &text)?
        } else {
            crate::load(&text).map_err(|source| LoadError::Task {
                name: name.clone(),
                source,
            })?
        };
        let initial = goal.initial_action.trim();
        let brain = if initial.is_empty() {
            Brain::new(instructions)
        } else {
            Brain::starting_at(instructions, initial).map_err(|source| LoadError::Task {
                name: name.clone(),
                source,
            })?
        };
        let max_ticks = if goal.max_ticks > 0 {
            goal.max_ticks
        } else {
            settings.max_ticks
        };
        let brain = brain
            .with_max_ticks(max_ticks)
            .with_verify_tolerance_mm(settings.verify_tolerance_mm);
        Ok(Task {
            name,
            brain,
            settings,
        })
    }

    /// A task file or inline task refused by the file rules: counted, the reason kept.
    fn refused(&self, e: node_glue::files::FileError) -> LoadError {
        if !matches!(e.refusal, node_glue::files::Refusal::Unreadable(_)) {
            self.counters.tasks_refused.inc();
        }
        LoadError::File(e)
    }

    /// Compiles a task in English (arnie_english). Warnings are logged; errors make the
    /// `REJECTED` message: every diagnostic, one per line, each prefixed with the source
    /// (`task_english: line 2, column 13: unknown sentence: …`).
    fn compile_english(&self, name: &str, text: &str) -> Result<crate::Instructions, LoadError> {
        let compiled = arnie_english::compile_with(text, arnie_english::Options::default());
        match compiled.instructions {
            Some(instructions) => {
                for d in &compiled.diagnostics {
                    node_glue::warn_limited!(self.limit, "english", "{name}: {d}");
                }
                Ok(instructions)
            }
            None => Err(LoadError::English {
                name: name.to_owned(),
                diagnostics: compiled.diagnostics,
            }),
        }
    }

    /// Starts `task` as the autostart run (a run without a goal; the node's activation).
    pub async fn autostart(self: Arc<Self>, task: Task) {
        self.start(None, task).await;
    }

    /// Deactivation: the run in progress, if any, stops ticking (it is paused, not ended)
    /// and its move stops (the `MoveTo` goal is cancelled; `topic`: the last measured
    /// position is commanded, while `/arm/target` is still open). Activation resumes it:
    /// the next tick sends its target again.
    pub fn hold(&self) {
        let s = (self.settings)().ok();
        let arm = s.and_then(|s| {
            self.inputs
                .arm_m(node_glue::time::now_duration(), s.position_timeout)
        });
        self.mover
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stop(arm);
    }

    /// Serves goal requests until shutdown (refused with the reason while the node is not
    /// active), then stops the run in progress.
    pub async fn serve(
        self: Arc<Self>,
        mut goals: impl Stream<Item = ActionServerGoalRequest<RunTask::Action>> + Unpin,
    ) {
        loop {
            let req = tokio::select! {
                _ = self.shutdown.wait() => break,
                r = goals.next() => match r {
                    Some(r) => r,
                    None => break,
                },
            };
            if !self.lc.is_active() {
                self.counters.inactive_refused.inc();
                self.reject(req, self.lc.inactive_reason());
                continue;
            }
            match self.load(&req.goal).await {
                Ok(task) => {
                    if let Some(accepted) = action::accept(req) {
                        self.start(Some(accepted), task).await;
                    }
                }
                Err(e) => self.reject(req, e.to_string()),
            }
        }
        self.preempt(Outcome::Aborted, "node shutting down").await;
    }

    /// The bad-goal policy (`node_glue::action::reject`): accepted and aborted at once
    /// with `REJECTED` and the reason; counted, logged (rate-limited).
    fn reject(&self, req: ActionServerGoalRequest<RunTask::Action>, message: String) {
        node_glue::warn_limited!(self.limit, "rejected", "task rejected: {message}");
        self.counters.runs_rejected.inc();
        self.counters.set_last(format!("rejected: {message}"));
        let result = RunTask::Result {
            outcome: outcome_code(Outcome::Rejected),
            ticks: 0,
            message,
        };
        action::reject(req, result);
    }

    /// Stops the run in progress (its result: `outcome`, `why`) and waits for its end.
    async fn preempt(&self, outcome: Outcome, why: &str) {
        let previous = self.running.lock().await.take();
        if let Some(r) = previous {
            // Err: the run already ended by itself.
            let _ = r.stop.send((outcome, why.to_owned()));
            if let Err(e) = r.done.await {
                node_glue::log_error!("a run ended abnormally: {e}");
            }
        }
    }

    /// Starts `task` (for `goal`, or the autostart run without one), once the run in
    /// progress, if any, has ended `PREEMPTED`.
    async fn start(self: &Arc<Self>, goal: Option<Accepted<RunTask::Action>>, task: Task) {
        if let Some(g) = &goal {
            self.preempt(Outcome::Preempted, &action::preempted_message(g.uuid()))
                .await;
        }
        let mut running = self.running.lock().await;
        node_glue::log_info!(
            "running {} (tick {:.3} s{})",
            task.name,
            task.settings.tick_period.as_secs_f64(),
            if goal.is_none() { ", autostart" } else { "" }
        );
        self.counters.runs_started.inc();
        let (stop, stopped) = oneshot::channel();
        let done = tokio::spawn(self.clone().run(goal, task, stopped));
        *running = Some(Running { stop, done });
    }

    /// One run, from its first tick to its result.
    async fn run(
        self: Arc<Self>,
        goal: Option<Accepted<RunTask::Action>>,
        mut task: Task,
        mut stopped: oneshot::Receiver<(Outcome, String)>,
    ) {
        let (mut goal, mut cancel): (Option<Goal>, CancelStream) = match goal {
            Some(a) => (Some(a.goal), a.cancel),
            None => (None, futures::stream::pending().boxed()),
        };
        // The node's ROS clock: with use_sim_time the run ticks on /clock (a replayed bag).
        let mut interval = node_glue::time::interval(task.settings.tick_period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut cancel_open = true;
        let end = loop {
            tokio::select! {
                biased;
                why = &mut stopped => {
                    let (outcome, why) = why.unwrap_or_else(|_| (Outcome::Aborted, "stopped".into()));
                    break RunEnd::Stopped(outcome, why);
                }
                req = cancel.next(), if cancel_open => match req {
                    Some(req) => {
                        req.accept();
                        break RunEnd::Cancelled;
                    }
                    None => cancel_open = false,
                },
                _ = interval.tick() => {
                    // Not active (paused by a lifecycle manager): the run waits, untouched.
                    if !self.lc.is_active() {
                        continue;
                    }
                    let state = self.tick(&mut task);
                    if let Some(g) = &goal {
                        if let Err(e) = g.publish_feedback(RunTask::Feedback { state }) {
                            node_glue::log_warn!("could not publish feedback: {e}");
                        }
                    }
                    if task.brain.status() != Status::Running {
                        break RunEnd::Finished(finish_text(&task.brain));
                    }
                }
            }
        };
        self.finish(&mut goal, &mut task, end);
    }

    /// One tick of `task`: inputs → brain → mover, state published. Returns the state.
    fn tick(&self, task: &mut Task) -> BrainState {
        let s = &task.settings;
        let now = node_glue::time::now_duration();
        let arm = self
            .inputs
            .arm_m(now, s.position_timeout)
            .map(|p| s.scale.from_m(p));
        let seen: Vec<Observation> = self
            .inputs
            .seen(now, s.observation_timeout)
            .iter()
            .map(|o: &Seen| Observation {
                position_mm: s.scale.from_m(o.position_m),
                confidence: o.confidence,
            })
            .collect();
        // The move the last target started may still be working around an obstacle: its
        // step then waits for the result instead of failing now.
        let moving_around = self
            .mover
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .working_around();
        let out = task.brain.tick_with(arm, &seen, moving_around);
        self.counters.ticks.inc();
        for ev in &out.events {
            let key = match ev {
                Event::Paused { .. } => "paused",
                Event::VerificationFailed { .. } => "verification",
                Event::WaitingForMove { .. } => {
                    self.counters.verification_waits.inc();
                    "waiting"
                }
                _ => {
                    node_glue::log_info!("tick {}: {ev}", out.tick);
                    continue;
                }
            };
            node_glue::warn_limited!(self.limit, key, "tick {}: {ev}", out.tick);
        }
        if let Some(t) = out.target_mm {
            self.counters.targets.inc();
            self.mover
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .go(s.scale.to_m(t));
        }
        let snap = task.brain.state();
        self.remember(&snap, s.scale);
        if snap.paused {
            self.counters.paused_ticks.inc();
        }
        self.counters
            .paused
            .store(snap.paused, std::sync::atomic::Ordering::Relaxed);
        self.counters
            .set_running(format!("{} (tick {})", task.name, snap.tick));
        let mut msg = state_msg(&task.name, &snap, &out.events, s.scale);
        msg.events.extend(self.counters.take_detours());
        self.publish(&msg);
        msg
    }

    fn publish(&self, msg: &BrainState) {
        let r = self
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .publish(msg);
        if let Err(e) = r {
            self.counters.publish_errors.inc();
            node_glue::log_warn!("could not publish /brain/state: {e}");
        }
    }

    /// Stops what must stop, publishes the last state and sends the result.
    fn finish(&self, goal: &mut Option<Goal>, task: &mut Task, end: RunEnd) {
        let ticks = task.brain.state().tick;
        let (outcome, message) = match end {
            RunEnd::Finished(m) => (Outcome::Finished, m),
            RunEnd::Cancelled => (Outcome::Cancelled, format!("cancelled after {ticks} ticks")),
            RunEnd::Stopped(o, m) => (o, m),
        };
        if outcome != Outcome::Finished {
            let cancelled = task.brain.cancel();
            let s = &task.settings;
            let arm = self
                .inputs
                .arm_m(node_glue::time::now_duration(), s.position_timeout);
            self.mover
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .stop(arm);
            let mut msg = state_msg(&task.name, &task.brain.state(), &[], s.scale);
            msg.events = match (outcome, cancelled) {
                (Outcome::Cancelled, Some(ev)) => vec![event_msg(&ev, s.scale)],
                (Outcome::Cancelled, None) => vec![event_msg(&Event::Cancelled, s.scale)],
                _ => vec![aborted_msg(&message)],
            };
            self.publish(&msg);
        }
        self.remember(&task.brain.state(), task.settings.scale);
        node_glue::log_info!("{}: {message}", task.name);
        self.counters.set_last(format!("{}: {message}", task.name));
        self.counters.set_running(String::new());
        self.counters
            .paused
            .store(false, std::sync::atomic::Ordering::Relaxed);
        let (how, counter) = match outcome {
            Outcome::Finished => (End::Succeeded, &self.counters.runs_finished),
            Outcome::Cancelled => (End::Cancelled, &self.counters.runs_cancelled),
            Outcome::Preempted => (End::Aborted, &self.counters.runs_preempted),
            Outcome::Aborted | Outcome::Rejected => (End::Aborted, &self.counters.runs_aborted),
        };
        counter.inc();
        let Some(g) = goal.as_mut() else {
            return;
        };
        let result = RunTask::Result {
            outcome: outcome_code(outcome),
            ticks,
            message,
        };
        action::end(g, how, result);
    }
}

/// The result message of a run that ended by itself.
fn finish_text(brain: &Brain) -> String {
    let ticks = brain.state().tick;
    match brain.status() {
        Status::TickLimit => format!("tick limit reached after {ticks} ticks"),
        Status::Finished => format!("finished after {ticks} ticks: nothing active or scheduled"),
        Status::Cancelled => format!("cancelled after {ticks} ticks"),
        Status::Running => format!("running ({ticks} ticks)"),
    }
}

/// A task file in English: its name ends in `.txt` (any case); anything else is JSON.
fn is_english_file(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"))
}
