//! Starting a goal: a pose, a route through poses, or a client's own path; the running
//! goal preempted.
use super::*;

impl Navigator {
    /// Starts goal `id`. A goal with a non-finite value is refused ([`Outcome::Rejected`]),
    /// and so is any goal while there is no fresh odometry ([`Outcome::LinkLost`]); the
    /// running goal then goes on. Otherwise the running goal ends PREEMPTED and a path is
    /// asked for. Goals off the map or in an obstacle are refused by the planner's
    /// answer (see [`Navigator::on_plan`]).
    ///
    /// # Errors
    /// [`Refused`] with the reason.
    pub fn start(&mut self, id: u64, goal: Goal, now: f64) -> Result<Vec<Output>, Refused> {
        self.start_route(id, Vec::new(), goal, now)
    }

    /// Starts goal `id` through the poses `via` (passed in order, headings ignored) to
    /// `goal` (NavigateThroughPoses); the same checks and answers as [`Navigator::start`],
    /// the path asked for leg by leg ([`Output::PlanRoute`]). After a failure the re-plan
    /// goes through the poses not yet passed.
    ///
    /// # Errors
    /// [`Refused`] with the reason.
    pub fn start_route(
        &mut self,
        id: u64,
        via: Vec<(f64, f64)>,
        goal: Goal,
        now: f64,
    ) -> Result<Vec<Output>, Refused> {
        let finite = goal.x.is_finite()
            && goal.y.is_finite()
            && goal.heading.is_none_or(f64::is_finite)
            && via.iter().all(|p| p.0.is_finite() && p.1.is_finite());
        if !finite {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!(
                    "goal ({}, {}{}) is not finite",
                    goal.x,
                    goal.y,
                    goal.heading
                        .map(|h| format!(", heading {h}"))
                        .unwrap_or_default()
                ) + &if via.is_empty() {
                    String::new()
                } else {
                    format!(" or a pose to pass {via:?} is not")
                },
            });
        }
        let pose = self.fresh_pose(now)?;
        let mut out = self.preempt();
        let request = self.request_id();
        self.counters.goals += 1;
        let plan = plan_output(request, (pose.x, pose.y), &via, (goal.x, goal.y));
        self.active = Some(Active {
            id,
            goal: Goal {
                heading: goal.heading.map(wrap_angle),
                ..goal
            },
            via,
            leg_ends: Vec::new(),
            given: false,
            state: State::Planning { request },
            failures: 0,
            plans: 1,
            driven_m: 0.0,
            last_feedback: None,
            reapproaches: 0,
        });
        out.push(plan);
        self.feedback(&mut out, now, true);
        Ok(out)
    }

    /// Starts goal `id` along a path the client gives (FollowPath): `points` in the map
    /// frame, driven as the planner's would be, ending at the last one with `heading` (if
    /// any). No plan is asked for; after a failure (obstacle, no progress) the base waits
    /// `replan_delay_s` and drives on along what is left of the same path, BLOCKED after
    /// `max_failures`.
    ///
    /// # Errors
    /// [`Refused`]: no points, a point or the heading not finite ([`Outcome::Rejected`]),
    /// no fresh odometry ([`Outcome::LinkLost`]).
    pub fn start_path(
        &mut self,
        id: u64,
        points: Vec<(f64, f64)>,
        heading: Option<f64>,
        now: f64,
    ) -> Result<Vec<Output>, Refused> {
        let Some(&last) = points.last() else {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: "the path has no poses".into(),
            });
        };
        if let Some(bad) = points
            .iter()
            .position(|p| !(p.0.is_finite() && p.1.is_finite()))
        {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!("pose {bad} of the path {:?} is not finite", points[bad]),
            });
        }
        if heading.is_some_and(|h| !h.is_finite()) {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: "the path's final heading is not finite".into(),
            });
        }
        self.fresh_pose(now)?;
        let mut out = self.preempt();
        self.counters.goals += 1;
        let heading = heading.map(wrap_angle);
        self.active = Some(Active {
            id,
            goal: Goal {
                x: last.0,
                y: last.1,
                heading,
            },
            via: Vec::new(),
            leg_ends: Vec::new(),
            given: true,
            state: State::Following {
                follower: Follower::new(points, heading),
                best_left_m: f64::INFINITY,
                best_turn_rad: f64::INFINITY,
                progress_at: now,
            },
            failures: 0,
            plans: 1,
            driven_m: 0.0,
            last_feedback: None,
            reapproaches: 0,
        });
        // The first step comes with the next odometry packet: a path already done ends
        // then, after the caller has made this goal the running one.
        self.feedback(&mut out, now, true);
        Ok(out)
    }

    /// The last odometry pose if it is fresh.
    pub(super) fn fresh_pose(&mut self, now: f64) -> Result<Pose2, Refused> {
        if let Some(why) = &self.match_over {
            self.counters.refused += 1;
            self.counters.refused_match_over += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!("the match is over ({why}): no more moves"),
            });
        }
        if self.cfg.scan_avoidance && !self.avoid.fresh(&self.cfg, now) {
            self.counters.refused += 1;
            let message = match self.avoid.scan_at() {
                None => "no scan from the LiDAR yet (scan_avoidance needs one)".to_string(),
                Some(t) => format!(
                    "no scan from the LiDAR for {:.2} s (scan_timeout_s {})",
                    now - t,
                    self.cfg.scan_timeout_s
                ),
            };
            return Err(Refused {
                outcome: Outcome::LinkLost,
                message,
            });
        }
        let Some(pose) = self.pose.filter(|_| self.odometry_fresh(now)) else {
            self.counters.refused += 1;
            let message = match self.odom_at {
                None => "no odometry from the motor board yet".to_string(),
                Some(t) => format!(
                    "no odometry from the motor board for {:.2} s (link_timeout_s {})",
                    now - t,
                    self.cfg.link_timeout_s
                ),
            };
            return Err(Refused {
                outcome: Outcome::LinkLost,
                message,
            });
        };
        Ok(pose)
    }

    /// Ends the running goal PREEMPTED (a newer one starts).
    pub(super) fn preempt(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        if self.active.is_some() {
            self.finish(
                &mut out,
                Outcome::Preempted,
                "replaced by a newer goal".into(),
            );
        }
        out
    }
}
