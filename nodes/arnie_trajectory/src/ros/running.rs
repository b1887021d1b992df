//! The running move: one step per period, cancel, its end (the `MoveTo` result) and
//! shutdown; publishing set-points on `/arm/command` and paths on `/trajectory/plan`.
use nalgebra::Point3;
use node_glue::action::End as GoalEnd;
use node_glue::r2r::{
    arnie_interfaces::action::MoveTo, geometry_msgs::msg::PointStamped, ActionServerCancelRequest,
};
use node_glue::{time, topics};

use super::convert::{feedback, to_point};
use super::server::{Server, Source};
use super::NODE;
use crate::{Action, End, Feedback, Outcome};

impl Server {
    pub(super) fn on_cancel(&mut self, request: ActionServerCancelRequest) {
        let Some(mut a) = self.active.take() else {
            request.reject();
            return;
        };
        request.accept();
        let step = a.exec.cancel();
        match self.fresh_position(a.position_timeout) {
            Some(hold) => {
                self.send_command(hold);
                node_glue::log_info!("goal cancelled; holding at {:?} mm", hold.coords.as_slice());
            }
            None => self.hold_skipped("goal cancelled", a.position_timeout),
        }
        if let Action::Done(end) = step.action {
            self.finish(a.source, end, step.feedback);
        }
    }

    pub(super) fn on_tick(&mut self) {
        let Some(timeout) = self.active.as_ref().map(|a| a.position_timeout) else {
            return;
        };
        let measured = self.fresh_position(timeout);
        let Some(a) = self.active.as_mut() else {
            return;
        };
        let resumes = a.exec.resumes();
        let step = a.exec.step_counted(measured, self.counters.positions.get());
        let resumed = a.exec.resumes() > resumes;
        let new_plan = (a.exec.generation() != a.plan_generation).then(|| {
            a.plan_generation = a.exec.generation();
            a.exec.path().to_vec()
        });
        let (detour, why_not) = (
            a.exec.is_detour(),
            a.exec.no_detour().map(ToString::to_string),
        );
        if let Source::Action { goal, .. } = &a.source {
            if let Err(e) = goal.publish_feedback(feedback(&step.feedback)) {
                node_glue::log_debug!("could not publish feedback: {e}");
            }
        }
        if resumed {
            self.counters.late_not_blocked.inc();
            node_glue::log_info!(
                "the arm moved or caught up during the hold: late, not blocked; going on along the path"
            );
        }
        if let Some(stop) = &step.stopped {
            node_glue::log_warn!("obstacle: {}; holding", stop.obstruction);
            match &stop.learned {
                Ok(region) => {
                    if let Some(id) = self.obstructions.learn(region, &self.counters) {
                        if let Some(a) = self.active.as_mut() {
                            a.exec.name_learned(id);
                        }
                    }
                }
                Err(why) => {
                    self.counters.contacts_refused.inc();
                    node_glue::log_warn!("the stop teaches nothing: {why}");
                }
            }
        }
        if let Some((a, b)) = step.passed {
            self.obstructions.free_pass(a, b, &self.counters);
        }
        if let Some(path) = new_plan {
            if detour {
                self.counters.detours_after_stop.inc();
                node_glue::log_warn!("obstacle: taking a detour ({} set-points)", path.len());
            } else {
                match why_not {
                    Some(why) => {
                        self.counters.detours_not_found.inc();
                        node_glue::log_warn!(
                            "obstacle: no detour ({why}); reversing to the start ({} set-points)",
                            path.len()
                        )
                    }
                    None => node_glue::log_warn!(
                        "obstacle: reversing to the start ({} set-points)",
                        path.len()
                    ),
                }
            }
            self.publish_plan(&path);
        }
        match step.action {
            Action::Send(p) => self.send_command(p),
            Action::Wait => {}
            Action::Done(end) => {
                if let Some(a) = self.active.take() {
                    self.finish(a.source, end, step.feedback);
                }
            }
        }
    }

    /// Answers the goal (or logs a legacy move's end).
    pub(super) fn finish(&self, source: Source, end: End, fb: Feedback) {
        let outcome = end.outcome();
        let message = end.to_string();
        self.counters.count_end(outcome);
        let final_mm = self.best_position(fb.measured_mm);
        let what = match source {
            Source::Action { .. } => "MoveTo goal",
            Source::Legacy => "legacy move",
            Source::Clicked => "clicked point move",
        };
        match outcome {
            Outcome::AbortedHelpNeeded => {
                node_glue::log_error!("{what}: {} ({message})", outcome.name())
            }
            Outcome::ReversedToStart => {
                node_glue::log_warn!("{what}: {} ({message})", outcome.name())
            }
            _ => node_glue::log_info!("{what}: {} ({message})", outcome.name()),
        }
        if let Source::Action { mut goal, .. } = source {
            let result = MoveTo::Result {
                outcome: outcome.code(),
                final_position: to_point(final_mm),
                message,
            };
            let how = match outcome {
                Outcome::Reached | Outcome::ReachedByDetour => GoalEnd::Succeeded,
                Outcome::Cancelled => GoalEnd::Cancelled,
                _ => GoalEnd::Aborted,
            };
            node_glue::action::end(&mut goal, how, result);
        }
    }

    /// Shutdown: stop the running move where the arm is.
    pub(super) fn on_shutdown(&mut self) {
        self.stop_move("is shutting down");
    }

    /// Stops the running move where the arm is (holds it: one set-point, the measured
    /// position) and aborts its goal (outcome CANCELLED) with "<node> <why>; ...".
    pub(super) fn stop_move(&mut self, why: &str) {
        let Some(mut a) = self.active.take() else {
            return;
        };
        let step = a.exec.cancel();
        let hold = self.fresh_position(a.position_timeout);
        match hold {
            Some(hold) => {
                self.send_command(hold);
                node_glue::log_warn!(
                    "{NODE} {why} during a move; arm holds at {:?} mm",
                    hold.coords.as_slice()
                );
            }
            None => self.hold_skipped(&format!("{NODE} {why} during a move"), a.position_timeout),
        }
        if let Source::Action { mut goal, .. } = a.source {
            let message = match hold {
                Some(_) => format!("{NODE} {why}; arm holds its position"),
                None => format!(
                    "{NODE} {why}; no fresh arm position: nothing commanded, \
                     the arm keeps its last set-point"
                ),
            };
            let final_mm = hold.unwrap_or_else(|| self.best_position(step.feedback.measured_mm));
            let _ = goal.abort(MoveTo::Result {
                outcome: Outcome::Cancelled.code(),
                final_position: to_point(final_mm),
                message,
            });
        }
    }

    /// A hold with no fresh arm position: nothing is commanded (a stale sample never is);
    /// the arm keeps its last set-point. Counted (`holds_skipped`) and logged.
    fn hold_skipped(&self, what: &str, timeout: std::time::Duration) {
        self.counters.holds_skipped.inc();
        node_glue::log_warn!(
            "{what}; no arm position in the last {} ms: nothing commanded (a stale sample is \
             never commanded), the arm keeps its last set-point",
            timeout.as_millis()
        );
    }

    fn send_command(&self, p_mm: Point3<f64>) {
        let msg = PointStamped {
            header: time::header(topics::WORLD_FRAME),
            point: to_point(p_mm),
        };
        match self.command.publish(&msg) {
            Ok(()) => self.counters.setpoints_sent.inc(),
            Err(e) => {
                self.counters.publish_errors.inc();
                node_glue::log_warn!("could not publish {}: {e}", topics::ARM_COMMAND);
            }
        }
    }

    pub(super) fn publish_plan(&self, path_mm: &[Point3<f64>]) {
        let path = node_glue::msgs::path(
            time::header(topics::WORLD_FRAME),
            path_mm.iter().map(|p| to_point(*p)),
        );
        if let Err(e) = self.plan.publish(&path) {
            self.counters.publish_errors.inc();
            node_glue::log_warn!("could not publish {}: {e}", topics::TRAJECTORY_PLAN);
        }
    }
}
