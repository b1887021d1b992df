//! The selection rule (pure) and the bookkeeping of a match (a pure state machine).
//!
//! Rule: each candidate scores `points / max(cost_m, min_cost_m)`. A candidate with
//! no cost (`None`), a NaN, infinite or negative cost is unreachable: it scores 0 and
//! is never selected. The best score wins; equal scores (exactly equal `f64`s) go to
//! the candidate listed first, and candidates are always listed in default order, so
//! ties follow the default order. No reachable candidate → `None`.
//!
//! When to score: tasks run in default order until something goes wrong (a failed
//! task, a blocked path, a replan request, a task's deadline). The next pick is then
//! scored; after a task succeeds, picking returns to the default order. A task that
//! just failed or was interrupted is not a candidate for the scored pick right after,
//! unless it is the only task left. A task that failed `max_failures` times, or whose
//! deadline passed, is dropped.

use crate::event::TaskScore;
use crate::task::{Strategy, Task};

/// Scores one candidate.
pub fn score(
    task: &str,
    points: f64,
    cost_m: Option<f64>,
    failures: u32,
    min_cost_m: f64,
) -> TaskScore {
    match cost_m.filter(|c| c.is_finite() && *c >= 0.0) {
        Some(cost) => TaskScore {
            task: task.to_owned(),
            points,
            cost_m: cost,
            score: points / cost.max(min_cost_m),
            failures,
            reachable: true,
        },
        None => TaskScore {
            task: task.to_owned(),
            points,
            cost_m: f64::INFINITY,
            score: 0.0,
            failures,
            reachable: false,
        },
    }
}

/// The index of the best reachable score; ties go to the lowest index.
pub fn select(scores: &[TaskScore]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores.iter().enumerate() {
        if !s.reachable || s.score.is_nan() {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, b)) => s.score > b,
        };
        if better {
            best = Some((i, s.score));
        }
    }
    best.map(|(i, _)| i)
}

/// Where a task stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Not done yet (may be picked).
    Pending,
    /// Done; its points counted.
    Done,
    /// Failed `max_failures` times, or its deadline passed.
    Dropped(String),
}

/// What to run next.
#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    /// Run this task (default order).
    Task(usize),
    /// Score these tasks (indices, default order) and run the best.
    Score(Vec<usize>),
    /// Nothing is left.
    AllDone,
}

/// The bookkeeping of one match: one entry per task, in default order.
#[derive(Debug, Clone)]
pub struct MatchState {
    status: Vec<Status>,
    failures: Vec<u32>,
    max_failures: u32,
    disrupted: bool,
    last_trouble: Option<usize>,
    points: f64,
}

impl MatchState {
    /// Every task of `strategy` pending, no failure yet.
    pub fn new(strategy: &Strategy) -> Self {
        let n = strategy.tasks.len();
        Self {
            status: vec![Status::Pending; n],
            failures: vec![0; n],
            max_failures: strategy.max_failures,
            disrupted: false,
            last_trouble: None,
            points: 0.0,
        }
    }

    /// Drops pending tasks whose deadline is at or before `elapsed_s`; returns them.
    pub fn expire(&mut self, tasks: &[Task], elapsed_s: f64) -> Vec<usize> {
        let mut gone = Vec::new();
        for (i, t) in tasks.iter().enumerate() {
            if let (Status::Pending, Some(d)) = (&self.status[i], t.deadline_s) {
                if elapsed_s >= d {
                    self.status[i] = Status::Dropped(format!("deadline {d} s passed"));
                    gone.push(i);
                }
            }
        }
        gone
    }

    /// What to run next (see the module doc).
    pub fn pick(&self) -> Pick {
        let pending: Vec<usize> = (0..self.status.len())
            .filter(|i| self.status[*i] == Status::Pending)
            .collect();
        match pending.first() {
            None => Pick::AllDone,
            Some(first) if !self.disrupted => Pick::Task(*first),
            Some(_) => {
                let others: Vec<usize> = pending
                    .iter()
                    .copied()
                    .filter(|i| Some(*i) != self.last_trouble)
                    .collect();
                Pick::Score(if others.is_empty() { pending } else { others })
            }
        }
    }

    /// Task `i` finished: its points count; picking returns to the default order.
    pub fn succeeded(&mut self, i: usize, points: f64) {
        self.status[i] = Status::Done;
        self.points += points;
        self.disrupted = false;
        self.last_trouble = None;
    }

    /// Task `i` failed; returns true when that dropped it.
    pub fn failed(&mut self, i: usize) -> bool {
        self.failures[i] += 1;
        self.trouble(i);
        if self.failures[i] >= self.max_failures {
            self.status[i] = Status::Dropped(format!("failed {} times", self.failures[i]));
            return true;
        }
        false
    }

    /// Task `i` was stopped by a replan request (not a failure).
    pub fn interrupted(&mut self, i: usize) {
        self.trouble(i);
    }

    /// A replan request while no task ran.
    pub fn replan(&mut self) {
        self.disrupted = true;
    }

    /// Task `i` ran past its deadline: dropped.
    pub fn missed_deadline(&mut self, i: usize, deadline_s: f64) {
        self.failures[i] += 1;
        self.trouble(i);
        self.status[i] = Status::Dropped(format!("deadline {deadline_s} s passed"));
    }

    fn trouble(&mut self, i: usize) {
        self.disrupted = true;
        self.last_trouble = Some(i);
    }

    /// Task `i`'s status (panics on an index outside the strategy's tasks).
    pub fn status(&self, i: usize) -> &Status {
        &self.status[i]
    }

    /// Task `i`'s failures so far (panics on an index outside the strategy's tasks).
    pub fn failures(&self, i: usize) -> u32 {
        self.failures[i]
    }

    /// Points of the tasks done so far.
    pub fn points(&self) -> f64 {
        self.points
    }

    /// Indices with this status kind, default order.
    pub fn done(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|i| self.status[*i] == Status::Done)
            .collect()
    }

    /// Indices of the dropped tasks, default order.
    pub fn dropped(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|i| matches!(self.status[*i], Status::Dropped(_)))
            .collect()
    }

    /// Indices of the pending tasks, default order.
    pub fn pending(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|i| self.status[*i] == Status::Pending)
            .collect()
    }
}

#[cfg(test)]
mod tests;
