//! Nav2's behaviour servers on the base: `spin`, `backup`, `drive_on_heading`
//! (`nav2_msgs/action/{Spin,BackUp,DriveOnHeading}`, the library's [`crate::Behavior`])
//! and `wait` (`nav2_msgs/action/Wait`, [`crate::Wait`]).
//!
//! One motion owner at a time: a behaviour takes the base from a running navigation goal
//! (which ends PREEMPTED) and from manual driving; a navigation goal, a manual command or
//! a newer behaviour ends it ABORTED with its `UNKNOWN` code and "preempted by ..." (as
//! Nav2's behaviour server aborts on preemption). It steps with every odometry packet
//! (one DriveSpeed each), feedback at most every `feedback_period_s`; cancel stops the
//! base and ends it CANCELED. `wait` commands nothing and runs beside the rest (a newer
//! wait aborts the older one).
use node_glue::action::{self, Accepted, End};
use node_glue::r2r::{
    nav2_msgs::action::{BackUp, DriveOnHeading, Spin, Wait as WaitAction},
    ActionServerCancelRequest, ActionServerGoalRequest,
};

use super::doors::duration;
use super::Control;
use crate::{Behavior, BehaviorKind, BehaviorStep, Ended, Output, Wait};

/// A behaviour goal not yet accepted.
pub(super) enum BehaviorPending {
    Spin(ActionServerGoalRequest<Spin::Action>),
    BackUp(ActionServerGoalRequest<BackUp::Action>),
    Drive(ActionServerGoalRequest<DriveOnHeading::Action>),
}

/// The running behaviour's action handle.
pub(super) enum BehaviorDoor {
    Spin(Accepted<Spin::Action>),
    BackUp(Accepted<BackUp::Action>),
    Drive(Accepted<DriveOnHeading::Action>),
}

/// The running behaviour.
pub(super) struct RunningBehavior {
    b: Behavior,
    door: BehaviorDoor,
    last_feedback: Option<f64>,
}

/// The running wait.
pub(super) struct RunningWait {
    wait: Wait,
    run: Accepted<WaitAction::Action>,
    last_feedback: Option<f64>,
}

fn secs(d: &node_glue::r2r::builtin_interfaces::msg::Duration) -> f64 {
    f64::from(d.sec) + f64::from(d.nanosec) * 1e-9
}

impl BehaviorPending {
    fn name(&self) -> &'static str {
        match self {
            BehaviorPending::Spin(_) => "Spin",
            BehaviorPending::BackUp(_) => "BackUp",
            BehaviorPending::Drive(_) => "DriveOnHeading",
        }
    }

    /// The behaviour, or its end at once (refused).
    fn make(&self, pose: Option<crate::Pose2>, now: f64) -> Result<Behavior, Ended> {
        match self {
            BehaviorPending::Spin(r) => Behavior::spin(
                f64::from(r.goal.target_yaw),
                secs(&r.goal.time_allowance),
                pose,
                now,
            ),
            BehaviorPending::BackUp(r) => Behavior::back_up(
                (r.goal.target.x, r.goal.target.y, r.goal.target.z),
                f64::from(r.goal.speed),
                secs(&r.goal.time_allowance),
                pose,
                now,
            ),
            BehaviorPending::Drive(r) => Behavior::drive_on_heading(
                (r.goal.target.x, r.goal.target.y, r.goal.target.z),
                f64::from(r.goal.speed),
                secs(&r.goal.time_allowance),
                pose,
                now,
            ),
        }
    }

    fn kind(&self) -> BehaviorKind {
        match self {
            BehaviorPending::Spin(_) => BehaviorKind::Spin,
            BehaviorPending::BackUp(_) => BehaviorKind::BackUp,
            BehaviorPending::Drive(_) => BehaviorKind::DriveOnHeading,
        }
    }

    /// Accepted and at once aborted with the reason (node_glue's bad-goal policy).
    fn reject(self, e: &Ended) {
        let code = e.failure.map_or(0, |f| f.code(self.kind()));
        let total_elapsed_time = duration(0.0);
        match self {
            BehaviorPending::Spin(r) => {
                action::reject(
                    r,
                    Spin::Result {
                        total_elapsed_time,
                        error_code: code,
                        error_msg: e.message.clone(),
                    },
                );
            }
            BehaviorPending::BackUp(r) => {
                action::reject(
                    r,
                    BackUp::Result {
                        total_elapsed_time,
                        error_code: code,
                        error_msg: e.message.clone(),
                    },
                );
            }
            BehaviorPending::Drive(r) => {
                action::reject(
                    r,
                    DriveOnHeading::Result {
                        total_elapsed_time,
                        error_code: code,
                        error_msg: e.message.clone(),
                    },
                );
            }
        }
    }

    fn accept(self) -> Option<BehaviorDoor> {
        match self {
            BehaviorPending::Spin(r) => action::accept(r).map(BehaviorDoor::Spin),
            BehaviorPending::BackUp(r) => action::accept(r).map(BehaviorDoor::BackUp),
            BehaviorPending::Drive(r) => action::accept(r).map(BehaviorDoor::Drive),
        }
    }
}

impl BehaviorDoor {
    fn feedback(&mut self, progress: f64) {
        let sent = match self {
            BehaviorDoor::Spin(run) => run.goal.publish_feedback(Spin::Feedback {
                angular_distance_traveled: progress as f32,
            }),
            BehaviorDoor::BackUp(run) => run.goal.publish_feedback(BackUp::Feedback {
                distance_traveled: progress as f32,
            }),
            BehaviorDoor::Drive(run) => run.goal.publish_feedback(DriveOnHeading::Feedback {
                distance_traveled: progress as f32,
            }),
        };
        if let Err(e) = sent {
            node_glue::log_debug!("could not publish feedback: {e}");
        }
    }

    /// Ends the goal: `cancelled`, else by `e.failure` (none: succeeded).
    fn end(self, kind: BehaviorKind, e: &Ended, cancelled: bool) {
        let how = match (cancelled, e.failure) {
            (true, _) => End::Cancelled,
            (false, None) => End::Succeeded,
            (false, Some(_)) => End::Aborted,
        };
        let error_code = e.failure.map_or(0, |f| f.code(kind));
        let total_elapsed_time = duration(e.elapsed_s);
        let error_msg = e.message.clone();
        match self {
            BehaviorDoor::Spin(mut run) => {
                action::end(
                    &mut run.goal,
                    how,
                    Spin::Result {
                        total_elapsed_time,
                        error_code,
                        error_msg,
                    },
                );
            }
            BehaviorDoor::BackUp(mut run) => {
                action::end(
                    &mut run.goal,
                    how,
                    BackUp::Result {
                        total_elapsed_time,
                        error_code,
                        error_msg,
                    },
                );
            }
            BehaviorDoor::Drive(mut run) => {
                action::end(
                    &mut run.goal,
                    how,
                    DriveOnHeading::Result {
                        total_elapsed_time,
                        error_code,
                        error_msg,
                    },
                );
            }
        }
    }

    /// The next cancel request of the running behaviour; pending forever without one.
    pub(super) async fn next_cancel(
        door: Option<&mut RunningBehavior>,
    ) -> ActionServerCancelRequest {
        match door.map(|r| &mut r.door) {
            Some(BehaviorDoor::Spin(run)) => action::next_cancel(Some(run)).await,
            Some(BehaviorDoor::BackUp(run)) => action::next_cancel(Some(run)).await,
            Some(BehaviorDoor::Drive(run)) => action::next_cancel(Some(run)).await,
            None => std::future::pending().await,
        }
    }
}

impl RunningWait {
    /// The next cancel request of the running wait; pending forever without one.
    pub(super) async fn next_cancel(w: Option<&mut RunningWait>) -> ActionServerCancelRequest {
        match w {
            Some(w) => action::next_cancel(Some(&mut w.run)).await,
            None => std::future::pending().await,
        }
    }

    fn end(mut self, how: End, now: f64, error_msg: String) {
        action::end(
            &mut self.run.goal,
            how,
            WaitAction::Result {
                total_elapsed_time: duration(self.wait.elapsed(now)),
                error_code: 0,
                error_msg,
            },
        );
    }
}

impl Control {
    /// A new spin / backup / drive-on-heading goal.
    pub(super) fn on_behavior_goal(&mut self, p: BehaviorPending) {
        let now = self.now();
        self.refresh_config();
        let pose = self.nav.pose().filter(|_| self.nav.fresh(now));
        let name = p.name();
        match p.make(pose, now) {
            Err(e) => {
                node_glue::warn_limited!(self.logs, "goal", "refusing {name}: {}", e.message);
                p.reject(&e);
            }
            Ok(b) => {
                let kind = p.kind();
                let Some(door) = p.accept() else { return };
                self.end_behavior(&format!("preempted by a newer {name} goal"));
                let mut outs = Vec::new();
                if let Some(a) = self.active.take() {
                    node_glue::log_warn!(
                        "{name} takes over: the running navigation goal is preempted"
                    );
                    a.door
                        .end(self.ended_here(format!("preempted by a {name} goal")));
                    outs.extend(
                        self.nav
                            .cancel(now)
                            .into_iter()
                            .filter(|o| !matches!(o, Output::Stop)),
                    );
                }
                if self.teleop.active() {
                    node_glue::log_info!("{name} takes over from manual driving");
                    self.teleop.release();
                }
                node_glue::log_info!("{name} ({kind:?}) started");
                self.apply(outs);
                self.behavior = Some(RunningBehavior {
                    b,
                    door,
                    last_feedback: None,
                });
            }
        }
    }

    /// Ends the running behaviour (if any) ABORTED with its `UNKNOWN` code and `why`; the
    /// caller commands the base next.
    pub(super) fn end_behavior(&mut self, why: &str) {
        if let Some(r) = self.behavior.take() {
            let now = self.now();
            node_glue::log_warn!("{:?} {why}", r.b.kind());
            let e = r.b.end(
                Some(crate::behavior::Failure::Unknown),
                why.to_string(),
                now,
            );
            r.door.end(r.b.kind(), &e, false);
        }
    }

    /// Stops the base and ends the running behaviour with `e`.
    fn finish_behavior(&mut self, e: Ended, cancelled: bool) {
        let Some(r) = self.behavior.take() else {
            return;
        };
        self.apply(vec![Output::Stop]);
        let kind = r.b.kind();
        match (&e.failure, cancelled) {
            (_, true) => node_glue::log_info!("{kind:?} cancelled"),
            (None, false) => {
                node_glue::log_info!("{kind:?} done: {:.3} in {:.2} s", e.progress, e.elapsed_s)
            }
            (Some(_), false) => node_glue::log_warn!("{kind:?} failed: {}", e.message),
        }
        r.door.end(kind, &e, cancelled);
    }

    /// After each odometry packet (the pose already given to the navigator).
    pub(super) fn behavior_odometry(&mut self, now: f64) {
        let Some(pose) = self.nav.pose() else { return };
        let cfg = self.nav.config().clone();
        let period = cfg.feedback_period_s;
        let Some(r) = self.behavior.as_mut() else {
            return;
        };
        match r.b.on_odometry(pose, now, &cfg) {
            BehaviorStep::Motion { v, w, progress } => {
                if !matches!(r.last_feedback, Some(t) if now - t < period) {
                    r.last_feedback = Some(now);
                    r.door.feedback(progress);
                }
                self.apply(vec![Output::Motion { v, w }]);
            }
            BehaviorStep::Done(e) => {
                r.door.feedback(e.progress);
                self.finish_behavior(e, false);
            }
        }
    }

    /// An obstacle report while a behaviour runs.
    pub(super) fn behavior_obstacle(&mut self, distance_m: f64, bearing_rad: f64, now: f64) {
        let cfg = self.nav.config().clone();
        let ended = self
            .behavior
            .as_ref()
            .and_then(|r| r.b.on_obstacle(distance_m, bearing_rad, now, &cfg));
        if let Some(e) = ended {
            self.finish_behavior(e, false);
        }
    }

    /// The control tick: the behaviour's time allowance and link, the wait's clock.
    pub(super) fn behavior_tick(&mut self, now: f64) {
        let fresh = self.nav.fresh(now);
        if let Some(e) = self.behavior.as_ref().and_then(|r| r.b.tick(fresh, now)) {
            self.finish_behavior(e, false);
        }
        let period = self.nav.config().feedback_period_s;
        if let Some(w) = self.wait.as_mut() {
            if w.wait.done(now) {
                if let Some(w) = self.wait.take() {
                    w.end(End::Succeeded, now, String::new());
                }
            } else if !matches!(w.last_feedback, Some(t) if now - t < period) {
                w.last_feedback = Some(now);
                let fb = WaitAction::Feedback {
                    time_left: duration(w.wait.time_left(now)),
                };
                if let Err(e) = w.run.goal.publish_feedback(fb) {
                    node_glue::log_debug!("could not publish feedback: {e}");
                }
            }
        }
    }

    /// A cancel request for the running behaviour.
    pub(super) fn on_behavior_cancel(&mut self, req: ActionServerCancelRequest) {
        let now = self.now();
        match self.behavior.as_ref() {
            Some(r) => {
                req.accept();
                let e = r.b.end(None, "cancelled".into(), now);
                self.finish_behavior(e, true);
            }
            None => req.reject(),
        }
    }

    /// A new `wait` goal (a newer one aborts the older).
    pub(super) fn on_wait_goal(&mut self, req: ActionServerGoalRequest<WaitAction::Action>) {
        let now = self.now();
        let seconds = secs(&req.goal.time);
        let Some(run) = action::accept(req) else {
            return;
        };
        if let Some(old) = self.wait.take() {
            old.end(End::Aborted, now, "preempted by a newer Wait goal".into());
        }
        node_glue::log_info!("Wait {seconds:.3} s");
        self.wait = Some(RunningWait {
            wait: Wait::new(seconds, now),
            run,
            last_feedback: None,
        });
        self.behavior_tick(now);
    }

    /// A cancel request for the running wait.
    pub(super) fn on_wait_cancel(&mut self, req: ActionServerCancelRequest) {
        let now = self.now();
        match self.wait.take() {
            Some(w) => {
                req.accept();
                w.end(End::Cancelled, now, String::new());
            }
            None => req.reject(),
        }
    }

    /// At shutdown: the behaviour and the wait end ABORTED.
    pub(super) fn end_behaviors_at_shutdown(&mut self) {
        if self.behavior.is_some() {
            self.apply(vec![Output::Stop]);
        }
        self.end_behavior("ended: the base is shutting down; motors stopped");
        let now = self.now();
        if let Some(w) = self.wait.take() {
            w.end(End::Aborted, now, "the base is shutting down".into());
        }
    }
}
