//! Time passing and a goal's end: the link watchdog, the progress check, following,
//! settling, failing (Stop, mark, wait, re-plan), feedback and the result.
use super::*;

impl Navigator {
    /// Time passes: the link watchdog, the progress check, re-planning after a wait.
    pub fn tick(&mut self, now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.active.is_none() {
            return out;
        }
        if !self.odometry_fresh(now) {
            out.push(Output::Stop);
            let since = self
                .odom_at
                .map(|t| format!("{:.2} s", now - t))
                .unwrap_or_else(|| "ever".into());
            self.finish(&mut out, Outcome::LinkLost, format!("no odometry from the motor board for {since} (link_timeout_s {}): motors stopped", self.cfg.link_timeout_s));
            return out;
        }
        if self.cfg.scan_avoidance && !self.avoid.fresh(&self.cfg, now) {
            self.scan_lost(&mut out, now);
            return out;
        }
        let pose = self.pose.unwrap_or_default();
        let replan = match self.active.as_ref().map(|a| &a.state) {
            Some(State::Waiting {
                until, mark: None, ..
            }) => now >= *until,
            _ => false,
        };
        if replan {
            let request = self.request_id();
            let a = self.active.as_mut().expect("checked above");
            if let State::Waiting {
                resume: Some(points),
                ..
            } = &a.state
            {
                // A given path: drive on along what is left of it.
                let mut points = points.clone();
                if points.is_empty() {
                    points.push((a.goal.x, a.goal.y));
                }
                a.state = State::Following {
                    follower: Follower::new(points, a.goal.heading),
                    best_left_m: f64::INFINITY,
                    best_turn_rad: f64::INFINITY,
                    progress_at: now,
                };
                self.control(&mut out, now);
                return out;
            }
            a.state = State::Planning { request };
            a.plans += 1;
            self.counters.replans += 1;
            out.push(plan_output(
                request,
                (pose.x, pose.y),
                &a.via,
                (a.goal.x, a.goal.y),
            ));
        } else {
            self.check_progress(&mut out, now);
        }
        self.feedback(&mut out, now, false);
        out
    }

    pub(super) fn check_progress(&mut self, out: &mut Vec<Output>, now: f64) {
        let cfg = &self.cfg;
        let Some(pose) = self.pose else { return };
        let Some(Active {
            state:
                State::Following {
                    follower,
                    best_left_m,
                    best_turn_rad,
                    progress_at,
                },
            ..
        }) = self.active.as_mut()
        else {
            return;
        };
        let left = follower.remaining_m(&pose);
        let turn = follower.aim_error(&pose).abs();
        if left < *best_left_m - cfg.progress_min_m || turn < *best_turn_rad - 0.05 {
            *best_left_m = best_left_m.min(left);
            *best_turn_rad = best_turn_rad.min(turn);
            *progress_at = now;
            return;
        }
        if now - *progress_at > cfg.progress_timeout_s {
            let (t, r) = (
                progress_at.to_owned(),
                cfg.robot_radius_m + cfg.obstacle_radius_m + 0.05,
            );
            self.counters.no_progress += 1;
            let at = pose.ahead(r, 0.0);
            self.fail(
                out,
                now,
                format!(
                    "no progress for {:.2} s (at {:.2} m from the goal)",
                    now - t,
                    left
                ),
                Some(at),
            );
        }
    }

    /// The follower's step from the current pose, or the end of the goal.
    pub(super) fn control(&mut self, out: &mut Vec<Output>, now: f64) {
        if self.active.is_none() {
            return;
        }
        if !self.odometry_fresh(now) {
            self.tick_into(out, now);
            return;
        }
        let Some(pose) = self.pose else { return };
        let mut cfg = self.cfg.clone();
        if self.active.as_ref().is_some_and(|a| a.reapproaches > 0) {
            cfg.max_speed_mps = cfg.max_speed_mps.min(REAPPROACH_SPEED_MPS);
            cfg.min_speed_mps = cfg.min_speed_mps.min(cfg.max_speed_mps);
        }
        let step = match self.active.as_mut().map(|a| &mut a.state) {
            Some(State::Following { follower, .. }) => follower.step(&pose, &cfg),
            Some(State::Settling { since }) => {
                let since = *since;
                self.settle(out, now, since);
                return;
            }
            _ => {
                self.tick_into(out, now);
                return;
            }
        };
        match step {
            Step::Arrived => {
                if let Some(a) = self.active.as_mut() {
                    a.state = State::Settling { since: now };
                }
                self.settle(out, now, now);
                return;
            }
            Step::Turn { w, .. } => {
                self.commanded_v = 0.0;
                out.push(Output::Motion { v: 0.0, w });
            }
            Step::Drive { v, w } => {
                if self.drive_gated(out, &pose, (v, w), now) {
                    return;
                }
            }
        }
        self.check_progress(out, now);
        self.feedback(out, now, false);
    }

    /// At the goal: REACHED once the board reports it is still (or after
    /// `settle_timeout_s`), else `Stop` again.
    pub(super) fn settle(&mut self, out: &mut Vec<Output>, now: f64, since: f64) {
        let (v, w) = self.speed;
        let pose = self.pose.unwrap_or_default();
        let off = self
            .active
            .as_ref()
            .map_or(0.0, |a| pose.distance_to((a.goal.x, a.goal.y)));
        if v.abs() <= SETTLED_SPEED_MPS && w.abs() <= SETTLED_TURN_RPS {
            let tolerance = self.cfg.goal_tolerance_m;
            let again = self
                .active
                .as_ref()
                .is_some_and(|a| off > tolerance && a.reapproaches < MAX_REAPPROACHES);
            if let (true, Some(a)) = (again, self.active.as_mut()) {
                a.reapproaches += 1;
                a.via.clear();
                a.leg_ends.clear();
                a.state = State::Following {
                    follower: Follower::new(vec![(a.goal.x, a.goal.y)], a.goal.heading),
                    best_left_m: f64::INFINITY,
                    best_turn_rad: f64::INFINITY,
                    progress_at: now,
                };
                self.counters.reapproaches += 1;
                self.feedback(out, now, true);
                return;
            }
            let tries = self.active.as_ref().map_or(0, |a| a.reapproaches);
            out.push(Output::Stop);
            self.finish(
                out,
                Outcome::Reached,
                if off <= tolerance {
                    format!("reached: stopped {off:.3} m from the goal")
                } else {
                    format!("reached: stopped {off:.3} m from the goal, outside goal_tolerance_m {tolerance} after {tries} re-approaches")
                },
            );
        } else if now - since >= self.cfg.settle_timeout_s {
            self.counters.settle_timeouts += 1;
            out.push(Output::Stop);
            self.finish(
                out,
                Outcome::Reached,
                format!(
                    "reached, but the board still reports {v:.3} m/s, {w:.3} rad/s {:.2} s after Stop (settle_timeout_s {}); {off:.3} m from the goal",
                    now - since,
                    self.cfg.settle_timeout_s
                ),
            );
        } else {
            out.push(Output::Stop);
            self.feedback(out, now, false);
        }
    }

    pub(super) fn tick_into(&mut self, out: &mut Vec<Output>, now: f64) {
        let more = self.tick(now);
        out.extend(more);
    }

    /// One more failure: stop, mark `mark_at` (if any), wait and re-plan; BLOCKED after
    /// `max_failures`.
    pub(super) fn fail(
        &mut self,
        out: &mut Vec<Output>,
        now: f64,
        why: String,
        mark_at: Option<(f64, f64)>,
    ) {
        let ttl = self.cfg.mark_ttl_s;
        self.fail_with_ttl(out, now, why, mark_at, ttl);
    }

    /// [`Navigator::fail`] with the mark's time to live.
    pub(super) fn fail_with_ttl(
        &mut self,
        out: &mut Vec<Output>,
        now: f64,
        why: String,
        mark_at: Option<(f64, f64)>,
        ttl_s: f64,
    ) {
        self.commanded_v = 0.0;
        let Some(a) = self.active.as_mut() else {
            return;
        };
        a.failures += 1;
        out.push(Output::Stop);
        if a.failures > self.cfg.max_failures {
            let n = a.failures;
            self.finish(
                out,
                Outcome::Blocked,
                format!(
                    "blocked {n} times (max_failures {}); last: {why}",
                    self.cfg.max_failures
                ),
            );
            return;
        }
        let resume = a.passed_on();
        let mark = mark_at.map(|c| {
            let id = self.next_request;
            self.next_request += 1;
            out.push(Output::Mark {
                id,
                centers: vec![c],
                radius_m: self.cfg.obstacle_radius_m,
                ttl_s,
            });
            id
        });
        if let Some(a) = self.active.as_mut() {
            a.state = State::Waiting {
                until: now + self.cfg.replan_delay_s,
                mark,
                last_failure: why,
                resume,
            };
        }
        self.feedback(out, now, true);
    }

    pub(super) fn feedback(&mut self, out: &mut Vec<Output>, now: f64, force: bool) {
        let pose = self.pose.unwrap_or_default();
        let period = self.cfg.feedback_period_s;
        let Some(a) = self.active.as_mut() else {
            return;
        };
        if !force && matches!(a.last_feedback, Some(t) if now - t < period) {
            return;
        }
        a.last_feedback = Some(now);
        let (phase, left) = match &a.state {
            State::Planning { .. } => (Phase::Planning, pose.distance_to((a.goal.x, a.goal.y))),
            State::Waiting { .. } => (Phase::Stopped, pose.distance_to((a.goal.x, a.goal.y))),
            State::Settling { .. } => (Phase::Driving, pose.distance_to((a.goal.x, a.goal.y))),
            State::Following { follower, .. } => {
                let phase = if follower_turning(follower, &pose, &self.cfg) {
                    Phase::Turning
                } else {
                    Phase::Driving
                };
                (phase, follower.remaining_m(&pose))
            }
        };
        let poses_left = a.via.len() - a.passed() + 1;
        out.push(Output::Feedback {
            goal: a.id,
            feedback: Feedback {
                phase,
                pose,
                distance_left_m: left,
                replans: a.plans.saturating_sub(1),
                poses_left,
            },
        });
    }

    pub(super) fn finish(&mut self, out: &mut Vec<Output>, outcome: Outcome, message: String) {
        self.finish_planned(out, outcome, message, None);
    }

    pub(super) fn finish_planned(
        &mut self,
        out: &mut Vec<Output>,
        outcome: Outcome,
        message: String,
        plan_failure: Option<PlanFailure>,
    ) {
        let Some(a) = self.active.take() else { return };
        self.commanded_v = 0.0;
        self.counters.outcomes[outcome.code() as usize] += 1;
        let message = match (&a.state, outcome) {
            (
                State::Waiting { last_failure, .. },
                Outcome::LinkLost | Outcome::Cancelled | Outcome::Preempted,
            ) => format!("{message} (while waiting after: {last_failure})"),
            _ => message,
        };
        out.push(Output::Done {
            goal: a.id,
            finish: Finish {
                outcome,
                pose: self.pose.unwrap_or_default(),
                replans: a.plans.saturating_sub(1),
                driven_m: a.driven_m,
                message,
                plan_failure,
            },
        });
    }
}
