//! The `/strategy/run` action server (`RunStrategy`).
//!
//! A goal names a strategy file (empty: the `strategy_file` parameter) and a match time
//! (0: the `match_time_s` parameter). The file is read and checked before the goal is
//! accepted; a goal is **rejected** when the file cannot be read or fails its check,
//! when a `wait_for` step watches a topic the node does not subscribe to, when the
//! match time is not a finite number ≥ 0, or while another run is in progress. The
//! reason is logged, counted, and published on `/strategy/events` as an `ERROR` event
//! with an empty task, so the client can read it.
//!
//! An accepted goal runs the [`Runner`]; each of its events is published on
//! `/strategy/events` and updates the feedback (current task and step, elapsed time,
//! last score table), which is also re-sent every `feedback_period`. A cancel request
//! stops the run (the step in flight is cancelled, the `MoveTo` goal with it) and the
//! goal ends `CANCELED`; a run that ends by itself (all tasks done or dropped, or the
//! match timer) `SUCCEEDED`; node shutdown stops the run and `ABORTED`s the goal.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use r2r::arnie_interfaces::action::RunStrategy;
use r2r::arnie_interfaces::msg::StrategyEvent;
use r2r::{ActionServerCancelRequest, ActionServerGoal, ActionServerGoalRequest};
use tokio::time::Instant;

use super::convert::{event_msg, rejection_msg, score_msg};
use super::{Counters, RosRobot, Settings, SettingsFn};
use crate::event::{Event, EventSink};
use crate::progress::Progress;
use crate::robot::Robot;
use crate::runner::{EndReason, Report, Runner};
use crate::stop::StopSource;
use crate::task::{StepSpec, Strategy};

type Goal = ActionServerGoal<RunStrategy::Action>;

/// Serves `/strategy/run`.
pub struct StrategyServer {
    robot: Arc<RosRobot>,
    /// r2r publishers are `Send` but not `Sync`; the mutex makes the server shareable.
    events: Mutex<r2r::Publisher<StrategyEvent>>,
    settings: SettingsFn,
    counters: Arc<Counters>,
    shutdown: node_glue::Shutdown,
    /// The file of the run in progress; at most one run at a time.
    running: Mutex<Option<String>>,
    busy: AtomicBool,
    log: String,
}

/// A goal checked and ready to run.
struct Checked {
    file: String,
    strategy: Strategy,
    match_time: Duration,
    settings: Settings,
}

impl StrategyServer {
    pub fn new(
        robot: Arc<RosRobot>,
        events: r2r::Publisher<StrategyEvent>,
        settings: SettingsFn,
        counters: Arc<Counters>,
        shutdown: node_glue::Shutdown,
        log: &str,
    ) -> Arc<Self> {
        Arc::new(Self {
            robot,
            events: Mutex::new(events),
            settings,
            counters,
            shutdown,
            running: Mutex::new(None),
            busy: AtomicBool::new(false),
            log: log.to_owned(),
        })
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
        loop {
            let req = tokio::select! {
                _ = self.shutdown.wait() => break,
                r = goals.next() => match r {
                    Some(r) => r,
                    None => break,
                },
            };
            let checked = self.check(&req.goal);
            let checked = match checked {
                Ok(c) if self.busy.swap(true, Ordering::AcqRel) => Err(format!(
                    "{}: a strategy is already running ({})",
                    c.file,
                    self.running().unwrap_or_default()
                )),
                other => other,
            };
            match checked {
                Err(reason) => {
                    self.reject(&reason);
                    if let Err(e) = req.reject() {
                        r2r::log_warn!(&self.log, "could not send the rejection: {e}");
                    }
                }
                Ok(c) => match req.accept() {
                    Ok((goal, cancel)) => {
                        self.counters.goals_accepted.inc();
                        r2r::log_info!(
                            &self.log,
                            "running {} ({} tasks, match {:.1} s)",
                            c.file,
                            c.strategy.tasks.len(),
                            c.match_time.as_secs_f64()
                        );
                        *self.running.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(c.file.clone());
                        tokio::spawn(self.clone().run(goal, cancel, c));
                    }
                    Err(e) => {
                        self.busy.store(false, Ordering::Release);
                        r2r::log_error!(&self.log, "could not accept the goal: {e}");
                    }
                },
            }
        }
    }

    fn reject(&self, reason: &str) {
        r2r::log_error!(&self.log, "goal rejected: {reason}");
        self.counters.goals_rejected.inc();
        self.counters.set_last(format!("rejected: {reason}"));
        self.publish(&rejection_msg(format!("goal rejected: {reason}")));
    }

    /// Reads and checks the goal's file; every error names the file.
    fn check(&self, goal: &RunStrategy::Goal) -> Result<Checked, String> {
        let settings = (self.settings)()?;
        let file = if goal.strategy_file.trim().is_empty() {
            settings.strategy_file.clone()
        } else {
            goal.strategy_file.clone()
        };
        if file.trim().is_empty() {
            return Err("no strategy file: the goal's strategy_file and the strategy_file parameter are both empty".into());
        }
        let t = goal.match_time_s;
        let match_time = if t == 0.0 {
            settings.match_time
        } else if t.is_finite() && t > 0.0 {
            Duration::try_from_secs_f64(t).map_err(|e| format!("match_time_s {t}: {e}"))?
        } else {
            return Err(format!(
                "match_time_s must be a finite number >= 0 (0: the parameter), got {t}"
            ));
        };
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{file}: cannot read: {e}"))?;
        let strategy = Strategy::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
        self.check_topics(&strategy)
            .map_err(|e| format!("{file}: {e}"))?;
        Ok(Checked {
            file,
            strategy,
            match_time,
            settings,
        })
    }

    /// Every `wait_for` must watch a subscribed topic (they are fixed at start).
    fn check_topics(&self, s: &Strategy) -> Result<(), String> {
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
                        return Err(format!(
                            "{field}.steps[{j}].wait_for.topic: {} is not watched by this node (parameter wait_topics: {})",
                            w.topic,
                            self.robot.watched_topics().join(", ")
                        ));
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
                r2r::log_warn!(&self.log, "could not publish an event: {e}");
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
            r2r::log_warn!(&self.log, "could not publish feedback: {e}");
        }
    }

    fn on_event(&self, ev: &Event) {
        self.publish(&event_msg(ev));
        if ev.kind == crate::event::EventKind::Error {
            r2r::log_info!(
                &self.log,
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
        mut goal: Goal,
        mut cancel: impl Stream<Item = ActionServerCancelRequest> + Unpin,
        c: Checked,
    ) {
        self.robot.configure(c.settings.clone());
        let mut progress = Progress::new(&c.strategy);
        let (stop_source, stop) = StopSource::new();
        let (sink, mut events) = EventSink::channel();
        let robot: Arc<dyn Robot> = self.robot.clone();
        let runner = Runner::new(c.strategy, robot, sink).with_match_time(c.match_time);
        let run = tokio::spawn(runner.run(stop));
        let t0 = Instant::now();
        let mut tick = tokio::time::interval(c.settings.feedback_period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let (mut cancelled, mut cancel_open, mut shutting_down) = (false, true, false);
        // Until the runner is done and its sink dropped: every event is out first.
        loop {
            tokio::select! {
                ev = events.recv() => match ev {
                    Some(ev) => {
                        self.on_event(&ev);
                        progress.apply(&ev);
                        self.feedback(&goal, &progress, t0);
                    }
                    None => break,
                },
                req = cancel.next(), if cancel_open => match req {
                    Some(req) => {
                        req.accept();
                        if !cancelled {
                            r2r::log_info!(&self.log, "cancel requested: stopping {}", c.file);
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
        self.finish(&mut goal, report, cancelled, &c.file);
    }

    fn finish(&self, goal: &mut Goal, report: Report, cancelled: bool, file: &str) {
        let message = format!("{file}: {}", report.message);
        r2r::log_info!(
            &self.log,
            "{message}; done: [{}]; failed: [{}]",
            report.done.join(", "),
            report.failed.join(", ")
        );
        self.counters.set_last(message.clone());
        let outcome = match (report.end, cancelled) {
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
        // Free before the result goes out: a client may send its next goal at once.
        self.busy.store(false, Ordering::Release);
        let sent = match (report.end, cancelled) {
            (_, true) => {
                self.counters.runs_cancelled.inc();
                goal.cancel(result)
            }
            (EndReason::AllDone | EndReason::MatchTimer, false) => {
                self.counters.runs_succeeded.inc();
                goal.succeed(result)
            }
            (EndReason::Stopped, false) => {
                self.counters.runs_aborted.inc();
                goal.abort(result)
            }
        };
        if let Err(e) = sent {
            r2r::log_warn!(&self.log, "could not send the result: {e}");
        }
    }
}
