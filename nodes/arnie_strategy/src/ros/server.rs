//! The `/strategy/run` action server (`RunStrategy`).
//!
//! A goal names a strategy file (empty: the `strategy_file` parameter) and a match time
//! (0: the `match_time_s` parameter). The file is read and checked before the goal is
//! accepted; a goal is **rejected** when the file cannot be read or fails its check,
//! when a `wait_for` step watches a topic the node does not subscribe to, when the
//! match time is not a finite number ≥ 0. Goal policy (one for every node,
//! `node_glue::action`): a bad goal is accepted and at once aborted with outcome
//! `REJECTED` and the reason in `message`; the reason is also logged (rate-limited),
//! counted, and published on `/strategy/events` as an `ERROR` event with an empty task.
//! A good goal while a run is in progress **preempts** it: the running run is stopped
//! (its step in flight cancelled) and its goal ends `ABORTED` with outcome
//! [`PREEMPTED`] and a message naming the new goal; then the new run starts.
//!
//! An accepted goal runs the [`Runner`]; each of its events is published on
//! `/strategy/events` and updates the feedback (current task and step, elapsed time,
//! last score table), which is also re-sent every `feedback_period`. A cancel request
//! stops the run (the step in flight is cancelled, the `MoveTo` goal with it) and the
//! goal ends `CANCELED`; a run that ends by itself (all tasks done or dropped, or the
//! match timer) `SUCCEEDED`; node shutdown stops the run and `ABORTED`s the goal.

use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use node_glue::action::{self, Accepted, End};
use node_glue::ratelimit::RateLimit;
use r2r::arnie_interfaces::action::RunStrategy;
use r2r::arnie_interfaces::msg::StrategyEvent;
use r2r::{ActionServerGoal, ActionServerGoalRequest};
use tokio::time::Instant;

use super::convert::{event_msg, rejection_msg, score_msg};
use super::match_state::MatchClockNode;
use super::{Counters, MatchStart, RosRobot, Settings, SettingsFn};
use crate::event::{Event, EventSink};
use crate::progress::Progress;
use crate::robot::Robot;
use crate::runner::{EndReason, Report, Runner};
use crate::stop::{StopSource, StopToken};
use crate::task::{StepSpec, Strategy};

type Goal = ActionServerGoal<RunStrategy::Action>;

/// The outcome of a run ended by a newer goal (`RunStrategy` result `PREEMPTED`).
pub const PREEMPTED: u8 = RunStrategy::Result::PREEMPTED as u8;

/// The run in progress, as the goal loop sees it.
struct Current {
    stop: Arc<StopSource>,
    /// Set (to the new goal's id) when a newer goal preempts this run.
    preempted_by: Arc<Mutex<Option<r2r::uuid::Uuid>>>,
    done: tokio::task::JoinHandle<()>,
}

/// Serves `/strategy/run`.
pub struct StrategyServer {
    robot: Arc<RosRobot>,
    /// r2r publishers are `Send` but not `Sync`; the mutex makes the server shareable.
    events: Mutex<LifecyclePublisher<StrategyEvent>>,
    settings: SettingsFn,
    counters: Arc<Counters>,
    shutdown: node_glue::Shutdown,
    /// The node's lifecycle: goals only while active.
    lc: Lifecycle,
    /// The stop of the run in progress (deactivation stops it).
    current_stop: Mutex<Option<Arc<StopSource>>>,
    /// The file of the run in progress; at most one run at a time.
    running: Mutex<Option<String>>,
    /// Input-driven warnings (rejected goals), rate-limited.
    logs: RateLimit,
    /// The match clock (`match/state`).
    clock: Arc<MatchClockNode>,
    /// The last `MatchReady` seq sent.
    ready_seq: std::sync::atomic::AtomicU16,
}

/// Why a goal is rejected: its `Display` is the reason (after `goal rejected: ` in the
/// result message, the event and the log).
#[derive(Debug, thiserror::Error)]
enum GoalError {
    /// The live parameters cannot give the run's settings.
    #[error("{0}")]
    Settings(#[from] node_glue::params::SettingsError),
    /// Neither the goal nor the parameter names a file.
    #[error(
        "no strategy file: the goal's strategy_file and the strategy_file parameter are both empty"
    )]
    NoFile,
    /// `match_time_s` too large for a duration.
    #[error("match_time_s {t}: {source}")]
    MatchTime {
        /// The goal's value.
        t: f64,
        /// Why.
        source: std::time::TryFromFloatSecsError,
    },
    /// `match_time_s` negative or not finite.
    #[error("match_time_s must be a finite number >= 0 (0: the parameter), got {0}")]
    MatchTimeRange(f64),
    /// The file refused by the file rules or unreadable.
    #[error("{0}")]
    File(node_glue::files::FileError),
    /// The file is not a strategy.
    #[error("{file}: {source}")]
    Strategy {
        /// The file.
        file: String,
        /// Why.
        source: crate::error::Error,
    },
    /// The node is not active (lifecycle): the reason.
    #[error("{0}")]
    Inactive(String),
    /// A `wait_for` watches a topic the node does not subscribe.
    #[error("{file}: {source}")]
    Topic {
        /// The file.
        file: String,
        /// Which.
        source: Unwatched,
    },
}

/// A `wait_for` on a topic this node does not watch (they are fixed at start).
#[derive(Debug, thiserror::Error)]
#[error(
    "{field}: {topic} is not watched by this node (parameter wait_topics: {})",
    .watched.join(", ")
)]
struct Unwatched {
    /// Where, e.g. `tasks[0].steps[2].wait_for.topic`.
    field: String,
    /// The topic.
    topic: String,
    /// The topics the node watches.
    watched: Vec<String>,
}

/// A goal checked and ready to run.
struct Checked {
    file: String,
    strategy: Strategy,
    match_time: Duration,
    settings: Settings,
}

impl StrategyServer {
    /// The server over `robot`, publishing events on `events`; `settings` is read per goal.
    /// Serve it with [`StrategyServer::serve`].
    pub fn new(
        robot: Arc<RosRobot>,
        events: LifecyclePublisher<StrategyEvent>,
        settings: SettingsFn,
        counters: Arc<Counters>,
        shutdown: node_glue::Shutdown,
        clock: Arc<MatchClockNode>,
        lc: Lifecycle,
    ) -> Arc<Self> {
        Arc::new(Self {
            robot,
            events: Mutex::new(events),
            settings,
            counters,
            shutdown,
            lc,
            current_stop: Mutex::new(None),
            running: Mutex::new(None),
            logs: RateLimit::default(),
            clock,
            ready_seq: std::sync::atomic::AtomicU16::new(0),
        })
    }

    /// Deactivation: stops the run in progress, if any (it ends as a stopped run does).
    pub fn stop_run(&self) {
        let stop = self
            .current_stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(stop) = stop {
            node_glue::log_info!("deactivated: stopping the run in progress");
            stop.stop();
        }
    }

    /// The file of the run in progress (for `/diagnostics`).
    pub fn running(&self) -> Option<String> {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Serves goal requests until shutdown.
    pub async fn serve(
        self: Arc<Self>,
        mut goals: impl Stream<Item = ActionServerGoalRequest<RunStrategy::Action>> + Unpin,
    ) {
        let mut current: Option<Current> = None;
        loop {
            let req = tokio::select! {
                _ = self.shutdown.wait() => break,
                r = goals.next() => match r {
                    Some(r) => r,
                    None => break,
                },
            };
            let checked = if self.lc.is_active() {
                self.check(&req.goal).await
            } else {
                self.counters.inactive_refused.inc();
                Err(GoalError::Inactive(self.lc.inactive_reason()))
            };
            let c = match checked {
                Err(reason) => {
                    let reason = reason.to_string();
                    self.reject(&reason);
                    let result = RunStrategy::Result {
                        outcome: RunStrategy::Result::REJECTED as u8,
                        points: 0.0,
                        done: Vec::new(),
                        failed: Vec::new(),
                        message: format!("goal rejected: {reason}"),
                    };
                    action::reject(req, result);
                    continue;
                }
                Ok(c) => c,
            };
            let Some(accepted) = action::accept(req) else {
                continue;
            };
            if let Some(old) = current.take() {
                if !old.done.is_finished() {
                    node_glue::log_info!(
                        "{}: preempted by a newer goal ({})",
                        self.running().unwrap_or_default(),
                        c.file
                    );
                    *old.preempted_by.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(accepted.uuid());
                    old.stop.stop();
                }
                // The old run ends (its result sent) before the new one starts.
                let _ = old.done.await;
            }
            self.counters.goals_accepted.inc();
            node_glue::log_info!(
                "running {} ({} tasks, match {:.1} s)",
                c.file,
                c.strategy.tasks.len(),
                c.match_time.as_secs_f64()
            );
            *self.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.file.clone());
            let (stop, token) = StopSource::new();
            let stop = Arc::new(stop);
            *self.current_stop.lock().unwrap_or_else(|e| e.into_inner()) = Some(stop.clone());
            let preempted_by = Arc::new(Mutex::new(None));
            let done = tokio::spawn(self.clone().run(
                accepted,
                c,
                stop.clone(),
                token,
                preempted_by.clone(),
            ));
            current = Some(Current {
                stop,
                preempted_by,
                done,
            });
        }
    }

    fn reject(&self, reason: &str) {
        node_glue::warn_limited!(self.logs, "goal", "goal rejected: {reason}");
        self.counters.goals_rejected.inc();
        self.counters.set_last(format!("rejected: {reason}"));
        self.publish(&rejection_msg(format!("goal rejected: {reason}")));
    }

    /// Reads and checks the goal's file; every error names the file. The file is read by
    /// `node_glue::files` (off the runtime; `allowed_dirs`, regular files only,
    /// `max_file_bytes`).
    async fn check(&self, goal: &RunStrategy::Goal) -> Result<Checked, GoalError> {
        let settings = (self.settings)()?;
        let file = if goal.strategy_file.trim().is_empty() {
            settings.strategy_file.clone()
        } else {
            goal.strategy_file.clone()
        };
        if file.trim().is_empty() {
            return Err(GoalError::NoFile);
        }
        let t = goal.match_time_s;
        let match_time = if t == 0.0 {
            settings.match_time
        } else if t.is_finite() && t > 0.0 {
            Duration::try_from_secs_f64(t).map_err(|source| GoalError::MatchTime { t, source })?
        } else {
            return Err(GoalError::MatchTimeRange(t));
        };
        let text = node_glue::files::read_to_string(&file, &settings.files)
            .await
            .map_err(|e| {
                if !matches!(e.refusal, node_glue::files::Refusal::Unreadable(_)) {
                    self.counters.files_refused.inc();
                }
                GoalError::File(e)
            })?;
        let strategy = Strategy::from_json(&text)
            .map_err(|source| GoalError::Strategy {
                file: file.clone(),
                source,
            })?
            .for_colour(settings.colour, settings.table_width_m);
        self.check_topics(&strategy)
            .map_err(|source| GoalError::Topic {
                file: file.clone(),
                source,
            })?;
        Ok(Checked {
            file,
            strategy,
            match_time,
            settings,
        })
    }

    /// Every `wait_for` must watch a subscribed topic (they are fixed at start).
    fn check_topics(&self, s: &Strategy) -> Result<(), Unwatched> {
        let tasks = s
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("tasks[{i}]"), &t.steps));
        let end = s
            .end_of_match
            .iter()
            .map(|e| ("end_of_match".to_owned(), &e.steps));
        for (field, steps) in tasks.chain(end) {
            for (j, step) in steps.iter().enumerate() {
                if let StepSpec::WaitFor(w) = &step.spec {
                    if !self.robot.watches(&w.topic) {
                        return Err(Unwatched {
                            field: format!("{field}.steps[{j}].wait_for.topic"),
                            topic: w.topic.clone(),
                            watched: self.robot.watched_topics(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn publish(&self, msg: &StrategyEvent) {
        let r = self
            .events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .publish(msg);
        match r {
            Ok(()) => self.counters.events_published.inc(),
            Err(e) => {
                self.counters.publish_errors.inc();
                node_glue::log_warn!("could not publish an event: {e}");
            }
        }
    }

    fn feedback(&self, goal: &Goal, p: &Progress, t0: Instant) {
        let fb = RunStrategy::Feedback {
            task: p.task.clone(),
            step: p.step.clone(),
            elapsed_s: t0.elapsed().as_secs_f64(),
            scores: p.scores.iter().map(score_msg).collect(),
        };
        if let Err(e) = goal.publish_feedback(fb) {
            node_glue::log_warn!("could not publish feedback: {e}");
        }
    }

    fn on_event(&self, ev: &Event) {
        self.publish(&event_msg(ev));
        if ev.kind == crate::event::EventKind::Error {
            node_glue::log_info!(
                "{}{}{}: {}",
                ev.task,
                if ev.step.is_empty() { "" } else { " / " },
                ev.step,
                ev.message
            );
        }
    }

    /// One accepted goal, from start to result.
    async fn run(
        self: Arc<Self>,
        accepted: Accepted<RunStrategy::Action>,
        c: Checked,
        stop_source: Arc<StopSource>,
        stop: StopToken,
        preempted_by: Arc<Mutex<Option<r2r::uuid::Uuid>>>,
    ) {
        let Accepted {
            mut goal,
            mut cancel,
        } = accepted;
        self.robot.configure(c.settings.clone());
        let mut progress = Progress::new(&c.strategy);
        let points: std::collections::HashMap<String, f64> = c
            .strategy
            .tasks
            .iter()
            .map(|t| (t.name.clone(), t.points))
            .chain(
                c.strategy
                    .end_of_match
                    .iter()
                    .map(|e| (e.name.clone(), e.points)),
            )
            .collect();
        let colour = c.settings.colour;
        let cord = c.settings.match_start == MatchStart::Cord;
        self.clock.arm(colour, c.match_time.as_secs_f64(), cord);
        let t0 = Instant::now();
        let match_time = if cord {
            progress.step = "waiting for the start cord".into();
            self.feedback(&goal, &progress, t0);
            self.match_ready(colour, c.match_time).await;
            let waited = tokio::select! {
                left = self.clock.started() => Some(left),
                req = cancel.next() => {
                    if let Some(req) = req {
                        req.accept();
                    }
                    None
                }
                _ = self.shutdown.wait() => None,
                _ = stop.stopped() => None,
            };
            match waited {
                Some(left) => {
                    progress.step.clear();
                    Duration::try_from_secs_f64(left).unwrap_or_default()
                }
                None => {
                    let preempted = *preempted_by.lock().unwrap_or_else(|e| e.into_inner());
                    self.clock.disarm("cancelled before the start");
                    let report = Report {
                        points: 0.0,
                        done: Vec::new(),
                        failed: Vec::new(),
                        remaining: c.strategy.tasks.iter().map(|t| t.name.clone()).collect(),
                        end: EndReason::Stopped,
                        message: "stopped while waiting for the start cord".into(),
                    };
                    let cancelled = preempted.is_none() && !self.shutdown.is_set();
                    self.finish(&mut goal, report, cancelled, preempted, &c.file);
                    return;
                }
            }
        } else {
            c.match_time
        };
        let (sink, mut events) = EventSink::channel();
        let robot: Arc<dyn Robot> = self.robot.clone();
        let runner = Runner::new(c.strategy, robot, sink).with_match_time(match_time);
        let run = tokio::spawn(runner.run(stop));
        let mut tick = tokio::time::interval(c.settings.feedback_period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let (mut cancelled, mut cancel_open, mut shutting_down) = (false, true, false);
        // Until the runner is done and its sink dropped: every event is out first.
        loop {
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(ev) => {
                        self.on_event(&ev);
                        if ev.kind == crate::event::EventKind::Finished {
                            if let Some(p) = points.get(&ev.task) {
                                self.clock.add_points(*p);
                            }
                        }
                        progress.apply(&ev);
                        self.feedback(&goal, &progress, t0);
                    }
                    None => break,
                },
                req = cancel.next(), if cancel_open => match req {
                    Some(req) => {
                        req.accept();
                        if !cancelled {
                            node_glue::log_info!("cancel requested: stopping {}", c.file);
                        }
                        cancelled = true;
                        stop_source.stop();
                    }
                    None => cancel_open = false,
                },
                _ = self.shutdown.wait(), if !shutting_down => {
                    shutting_down = true;
                    stop_source.stop();
                },
                _ = tick.tick() => self.feedback(&goal, &progress, t0),
            }
        }
        let report = match run.await {
            Ok(r) => r,
            Err(e) => Report {
                points: 0.0,
                done: Vec::new(),
                failed: Vec::new(),
                remaining: Vec::new(),
                end: EndReason::Stopped,
                message: format!("the run ended abnormally: {e}"),
            },
        };
        let preempted_by = *preempted_by.lock().unwrap_or_else(|e| e.into_inner());
        if cancelled || preempted_by.is_some() {
            self.clock.disarm("the run was stopped");
        } else {
            self.clock.final_score(report.points, colour);
        }
        self.finish(&mut goal, report, cancelled, preempted_by, &c.file);
    }

    /// Tells the board a match is armed (`MatchReady`: colour, length), through
    /// `comms/send`; a board that does not answer is logged and counted, and the match
    /// still waits for its cord.
    async fn match_ready(&self, colour: arnie_math::Colour, match_time: Duration) {
        use std::sync::atomic::Ordering;
        let seq = self
            .ready_seq
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_add(1);
        let mut fields = serde_json::Map::new();
        fields.insert("seq".into(), seq.into());
        fields.insert("colour".into(), colour.code().into());
        let secs = match_time.as_secs_f64().round().min(f64::from(u16::MAX));
        fields.insert("duration_s".into(), (secs as u16).into());
        let packet = crate::task::PacketSpec {
            name: "MatchReady".into(),
            id: None,
            device: 0,
            fields,
            // Reliable: the bridge repeats it (15 x 100 ms) until the board's Ack.
            reply_timeout_s: 2.0,
        };
        match self.robot.send_packet(packet).await {
            Ok(()) => {
                self.counters.match_ready_sent.inc();
                node_glue::log_info!(
                    "match armed ({colour}, {secs} s): waiting for the start cord"
                );
            }
            Err(e) => {
                self.counters.match_ready_failed.inc();
                node_glue::log_warn!(
                    "MatchReady not acknowledged ({e}); waiting for the start cord anyway"
                );
            }
        }
    }

    fn finish(
        &self,
        goal: &mut Goal,
        report: Report,
        cancelled: bool,
        preempted_by: Option<r2r::uuid::Uuid>,
        file: &str,
    ) {
        let message = match preempted_by {
            Some(by) => format!(
                "{}: {file}: {}",
                action::preempted_message(by),
                report.message
            ),
            None => format!("{file}: {}", report.message),
        };
        node_glue::log_info!(
            "{message}; done: [{}]; failed: [{}]",
            report.done.join(", "),
            report.failed.join(", ")
        );
        self.counters.set_last(message.clone());
        let outcome = match (report.end, cancelled) {
            _ if preempted_by.is_some() => PREEMPTED,
            (_, true) => RunStrategy::Result::CANCELLED as u8,
            (EndReason::AllDone, false) => RunStrategy::Result::FINISHED as u8,
            (EndReason::MatchTimer, false) => RunStrategy::Result::MATCH_OVER as u8,
            (EndReason::Stopped, false) => RunStrategy::Result::FAILED as u8,
        };
        let result = RunStrategy::Result {
            outcome,
            points: report.points,
            done: report.done,
            failed: report.failed,
            message,
        };
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let how = match (report.end, cancelled) {
            _ if preempted_by.is_some() => {
                self.counters.runs_preempted.inc();
                End::Aborted
            }
            (_, true) => {
                self.counters.runs_cancelled.inc();
                End::Cancelled
            }
            (EndReason::AllDone | EndReason::MatchTimer, false) => {
                self.counters.runs_succeeded.inc();
                End::Succeeded
            }
            (EndReason::Stopped, false) => {
                self.counters.runs_aborted.inc();
                End::Aborted
            }
        };
        action::end(goal, how, result);
    }
}
