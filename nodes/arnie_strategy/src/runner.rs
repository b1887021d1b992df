//! Runs a strategy for one match: picks tasks ([`mod@crate::select`]), runs each as a
//! sequence, re-scores after trouble, stops everything when the match timer fires and
//! then runs the end-of-match task.
//!
//! Events (task `""` means the strategy itself): `Started(0, n tasks)` first; per task
//! `TaskSelected` (with the scores when the pick was scored) then the task's sequence
//! events; a strategy-level `Error` for a task failure (`"failure k/N: …"`, or
//! `"dropped: …"`), a missed deadline and "no reachable task"; at the end
//! `Finished(done, n)` when no task is left, or `Stopped(done, n)` with message
//! `"match timer"` / `"stopped"`, followed by the end-of-match task's events after the
//! timer.
//!
//! Stops: the match timer and an external stop cancel the task in flight (its step's
//! future is dropped). Only the timer runs the end-of-match task; an external stop (an
//! action cancel) ends at once. The end-of-match task is bounded only by its steps'
//! timeouts and by an external stop. A replan request stops the task in flight without
//! counting a failure, and the next pick is scored.

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::event::{Event, EventKind, EventSink, TaskScore};
use crate::robot::{Driver, Robot};
use crate::select::{score, select, MatchState, Pick};
use crate::sequence::Outcome;
use crate::stop::StopToken;
use crate::task::Strategy;

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// No task left (all done or dropped).
    AllDone,
    /// The match timer fired (the end-of-match task ran after it).
    MatchTimer,
    /// Stopped from outside.
    Stopped,
}

/// The `RunStrategy` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Points of the tasks done, the end-of-match task's included if it finished.
    pub points: f64,
    /// Names, in the order they were done (the end-of-match task last).
    pub done: Vec<String>,
    /// Dropped tasks (too many failures, or their deadline passed), default order.
    pub failed: Vec<String>,
    /// Tasks neither done nor dropped, default order.
    pub remaining: Vec<String>,
    /// Why the run ended.
    pub end: EndReason,
    /// One line for the result: points, tasks done and failed, and why it ended.
    pub message: String,
}

/// Asks a running [`Runner`] to stop its task and re-score. Requests made while no task
/// runs make the next pick a scored one.
#[derive(Debug, Clone, Default)]
pub struct ReplanHandle(Arc<Notify>);

impl ReplanHandle {
    /// Asks for a re-score now (see the type's doc).
    pub fn request(&self) {
        self.0.notify_one();
    }
}

/// Runs one strategy.
pub struct Runner {
    strategy: Strategy,
    driver: Arc<Driver>,
    events: EventSink,
    replan: ReplanHandle,
}

enum Ended {
    Outcome(Outcome),
    Timer,
    Replan,
    Deadline(f64),
}

impl Runner {
    /// A runner of `strategy` on `robot`, its events sent to `events`; the match time is the
    /// strategy's unless [`Runner::with_match_time`] says otherwise.
    pub fn new(strategy: Strategy, robot: Arc<dyn Robot>, events: EventSink) -> Self {
        let driver = Arc::new(Driver::new(robot, strategy.start));
        Self {
            strategy,
            driver,
            events,
            replan: ReplanHandle::default(),
        }
    }

    /// Overrides the file's match time (`RunStrategy.match_time_s` when not 0).
    pub fn with_match_time(mut self, match_time: Duration) -> Self {
        self.strategy.match_time = match_time;
        self
    }

    /// A handle for replan requests (e.g. from a topic or an obstacle alarm).
    pub fn replan_handle(&self) -> ReplanHandle {
        self.replan.clone()
    }

    fn emit(
        &self,
        kind: EventKind,
        task: &str,
        done: u32,
        message: String,
        scores: Vec<TaskScore>,
    ) {
        let total = self.strategy.tasks.len() as u32;
        self.events.emit(Event {
            kind,
            task: task.to_owned(),
            step: String::new(),
            done,
            total,
            message,
            scores,
        });
    }

    /// Runs the match until no task is left, the timer fires, or `stop`.
    pub async fn run(self, stop: StopToken) -> Report {
        let t0 = Instant::now();
        let match_end = sleep_until(t0.checked_add(self.strategy.match_time));
        tokio::pin!(match_end);
        let tasks = &self.strategy.tasks;
        let mut state = MatchState::new(&self.strategy);
        let mut done_names = Vec::new();
        self.emit(EventKind::Started, "", 0, String::new(), Vec::new());

        let end = 'match_loop: loop {
            if stop.is_stopped() {
                break EndReason::Stopped;
            }
            if self.replan.0.notified().now_or_never().is_some() {
                state.replan();
            }
            for i in state.expire(tasks, t0.elapsed().as_secs_f64()) {
                self.emit(
                    EventKind::Error,
                    &tasks[i].name,
                    done_names.len() as u32,
                    "dropped: deadline passed".into(),
                    Vec::new(),
                );
            }
            let (i, scores) = match state.pick() {
                Pick::AllDone => break EndReason::AllDone,
                Pick::Task(i) => (i, Vec::new()),
                Pick::Score(cands) => {
                    let scoring = self.score(&state, &cands);
                    let scores = tokio::select! {
                        biased;
                        _ = stop.stopped() => break EndReason::Stopped,
                        _ = &mut match_end => break EndReason::MatchTimer,
                        s = scoring => s,
                    };
                    match select(&scores) {
                        Some(k) => (cands[k], scores),
                        None => {
                            self.emit(
                                EventKind::Error,
                                "",
                                done_names.len() as u32,
                                "no reachable task".into(),
                                scores,
                            );
                            tokio::select! {
                                biased;
                                _ = stop.stopped() => break EndReason::Stopped,
                                _ = &mut match_end => break EndReason::MatchTimer,
                                _ = tokio::time::sleep(self.strategy.unreachable_retry) => continue 'match_loop,
                            }
                        }
                    }
                }
            };
            let task = &tasks[i];
            let message = if scores.is_empty() {
                "default order".to_owned()
            } else {
                "best points/cost".to_owned()
            };
            self.emit(
                EventKind::TaskSelected,
                &task.name,
                done_names.len() as u32,
                message,
                scores,
            );

            let seq = self
                .driver
                .sequence(&task.name, Some(task.approach), &task.steps);
            let (task_stop, task_token) = stop.child();
            let run = seq.run(&self.events, &task_token);
            tokio::pin!(run);
            let deadline = async {
                let d = task.deadline_s.unwrap_or(f64::INFINITY);
                sleep_until(
                    Duration::try_from_secs_f64(d)
                        .ok()
                        .and_then(|d| t0.checked_add(d)),
                )
                .await;
                d
            };
            // Biased: a task that ends at the very instant of the timer still counts.
            let ended = tokio::select! {
                biased;
                o = &mut run => Ended::Outcome(o),
                _ = &mut match_end => Ended::Timer,
                _ = self.replan.0.notified() => Ended::Replan,
                d = deadline => Ended::Deadline(d),
            };
            if !matches!(ended, Ended::Outcome(_)) {
                task_stop.stop();
                run.await;
            }
            if let Some(end) = self.on_ended(&mut state, i, ended, &mut done_names) {
                break end;
            }
        };
        self.report(end, state, done_names, t0, &stop).await
    }

    /// What a task's end means: scored, a failure (dropped after too many), the match
    /// over (`Some`), put back for a replan, or its deadline missed.
    fn on_ended(
        &self,
        state: &mut MatchState,
        i: usize,
        ended: Ended,
        done_names: &mut Vec<String>,
    ) -> Option<EndReason> {
        let task = &self.strategy.tasks[i];
        let done = done_names.len() as u32;
        match ended {
            Ended::Outcome(Outcome::Finished { .. }) => {
                state.succeeded(i, task.points);
                done_names.push(task.name.clone());
            }
            Ended::Outcome(Outcome::Failed { error, .. }) => {
                let k = state.failures(i) + 1;
                let dropped = state.failed(i);
                let max = self.strategy.max_failures;
                let message = if dropped {
                    format!("dropped: failed {k}/{max} times; last: {error}")
                } else {
                    format!("failure {k}/{max}: {error}")
                };
                self.emit(EventKind::Error, &task.name, done, message, Vec::new());
            }
            Ended::Outcome(Outcome::Stopped { .. }) => return Some(EndReason::Stopped),
            Ended::Timer => return Some(EndReason::MatchTimer),
            Ended::Replan => state.interrupted(i),
            Ended::Deadline(d) => {
                state.missed_deadline(i, d);
                self.emit(
                    EventKind::Error,
                    &task.name,
                    done,
                    format!("dropped: deadline {d} s passed"),
                    Vec::new(),
                );
            }
        }
        None
    }

    /// The match's end: the last event, the end-of-match task after the timer, the report.
    async fn report(
        &self,
        end: EndReason,
        state: MatchState,
        mut done_names: Vec<String>,
        t0: Instant,
        stop: &StopToken,
    ) -> Report {
        let tasks = &self.strategy.tasks;
        let done = done_names.len() as u32;
        let mut points = state.points();
        match end {
            EndReason::AllDone => {
                self.emit(EventKind::Finished, "", done, String::new(), Vec::new())
            }
            EndReason::MatchTimer => self.emit(
                EventKind::Stopped,
                "",
                done,
                "match timer".into(),
                Vec::new(),
            ),
            EndReason::Stopped => {
                self.emit(EventKind::Stopped, "", done, "stopped".into(), Vec::new())
            }
        }
        if end == EndReason::MatchTimer {
            if let Some(last) = &self.strategy.end_of_match {
                let seq = self.driver.sequence(&last.name, None, &last.steps);
                if let Outcome::Finished { .. } = seq.run(&self.events, stop).await {
                    points += last.points;
                    done_names.push(last.name.clone());
                }
            }
        }
        let names = |v: Vec<usize>| {
            v.into_iter()
                .map(|i| tasks[i].name.clone())
                .collect::<Vec<_>>()
        };
        let (failed, remaining) = (names(state.dropped()), names(state.pending()));
        let message = format!(
            "{end:?} after {:.1} s: {} done, {} dropped, {} left, {points} points",
            t0.elapsed().as_secs_f64(),
            done_names.len(),
            failed.len(),
            remaining.len()
        );
        Report {
            points,
            done: done_names,
            failed,
            remaining,
            end,
            message,
        }
    }

    async fn score(&self, state: &MatchState, cands: &[usize]) -> Vec<TaskScore> {
        let mut out = Vec::with_capacity(cands.len());
        for &i in cands {
            let t = &self.strategy.tasks[i];
            let cost = self.driver.cost_m(t.approach).await;
            out.push(score(
                &t.name,
                t.points,
                cost,
                state.failures(i),
                self.strategy.min_cost_m,
            ));
        }
        out
    }
}

/// Sleeps until `at`; forever when `None` (a time too far away to represent).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => futures::future::pending().await,
    }
}
