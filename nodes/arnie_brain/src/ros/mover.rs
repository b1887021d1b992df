//! [`Mover`]: where the brain's targets go (metres, frame `world`).
//!
//! **`move_to`** (default): a `MoveTo` goal on `/trajectory/move_to` for each tick whose
//! target differs from the goal still running, through `node_glue::action_client` (the
//! goal loop every node shares: its own goal thread, the waits, feedback, cancel). The
//! trajectory server preempts its running goal when a new one arrives, so the newest
//! target wins without a cancel: the old goal is superseded (not sent if it still waits
//! for the server). A target equal to the goal still running is not re-sent (that would
//! restart the trajectory); equal to a goal that has ended (reached, reversed, aborted,
//! rejected) it is sent again: that is the brain re-trying a step. [`Mover::stop`]
//! cancels the running goal (a goal not yet accepted is cancelled as soon as it is).
//! Every goal's end is counted (`goals_*`) in one place, and a failure logged
//! (rate-limited).
//!
//! **`topic`** (legacy): a `geometry_msgs/PointStamped` on `/arm/target` when the target
//! changes (the legacy trajectory server ignores a repeat anyway). There is nothing to
//! cancel on a topic: [`Mover::stop`] commands the last measured arm position instead.

use std::sync::Arc;

use nalgebra::Point3;
use node_glue::action_client::{
    move_to_goal, move_to_outcome_name, Goal, GoalError, GoalResult, MoveToClient, Waits,
};
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::ratelimit::RateLimit;
use node_glue::{time, topics};
use r2r::arnie_interfaces::action::MoveTo;
use r2r::geometry_msgs::msg::{Point, PointStamped};

use super::Counters;

/// Where targets go; see the module doc.
pub struct Mover {
    way: Way,
    counters: Arc<Counters>,
}

/// The two ways of [`Mover`].
enum Way {
    /// `MoveTo` goals (the shared client; its goal thread counts every goal's end), with
    /// the target (metres) and handle of the last goal sent (`None` after a stop).
    MoveTo {
        client: MoveToClient,
        current: Option<(Point3<f64>, Goal<MoveTo::Action>)>,
    },
    /// The legacy topic, with the last target published on it (metres).
    Topic {
        publisher: LifecyclePublisher<PointStamped>,
        last: Option<Point3<f64>>,
    },
}

fn point(p: Point3<f64>) -> Point {
    Point {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Counts one `MoveTo` goal's end: the result's outcome (`REACHED`, `REACHED_BY_DETOUR`
/// (reached, and a `DETOUR` event), `PREEMPTED`, `CANCELLED`; any other outcome fails), a cancel without a result, or a failure (no
/// server, rejected, unanswered), each failure logged (rate-limited). A goal superseded
/// before it was sent counts nothing.
fn count_end(
    goal: &MoveTo::Goal,
    end: &GoalResult<MoveTo::Action>,
    counters: &Counters,
    limit: &RateLimit,
) {
    use MoveTo::Result as R;
    if !matches!(end, Err(GoalError::NoServer(_) | GoalError::NotSent)) {
        counters.goals_sent.inc();
    }
    let why = match end {
        Ok((_, r)) if r.outcome == R::REACHED as u8 => return counters.goals_reached.inc(),
        Ok((_, r)) if r.outcome == R::REACHED_BY_DETOUR as u8 => {
            counters.goals_reached.inc();
            counters.goals_reached_by_detour.inc();
            return counters.detour_taken(goal.target.clone(), &r.message);
        }
        Ok((_, r)) if r.outcome == R::PREEMPTED as u8 => return counters.goals_preempted.inc(),
        Ok((_, r)) if r.outcome == R::CANCELLED as u8 => return counters.goals_cancelled.inc(),
        Err(GoalError::Cancelled) => return counters.goals_cancelled.inc(),
        Err(GoalError::NotSent) => return,
        Ok((_, r)) => format!("{}: {}", move_to_outcome_name(r.outcome), r.message),
        Err(GoalError::NoServer(w)) => format!(
            "no server on {} within {} s",
            topics::MOVE_TO,
            w.as_secs_f64()
        ),
        Err(e) => e.to_string(),
    };
    counters.goals_failed.inc();
    let t = &goal.target;
    node_glue::warn_limited!(
        limit,
        "move_to",
        "MoveTo to ({:.3}, {:.3}, {:.3}) m: {why}",
        t.x,
        t.y,
        t.z
    );
}

impl Mover {
    /// A `MoveTo` client on `/trajectory/move_to` (`node_glue::action_client`).
    ///
    /// # Errors
    /// rcl refusing the client, or its goal thread failing to start.
    pub fn move_to(
        node: &mut r2r::Node,
        counters: Arc<Counters>,
    ) -> Result<Self, node_glue::Error> {
        let (c, limit) = (counters.clone(), RateLimit::default());
        let client = MoveToClient::new(node, topics::MOVE_TO, "MoveTo", move |goal, end| {
            count_end(goal, end, &c, &limit)
        })?;
        let way = Way::MoveTo {
            client,
            current: None,
        };
        Ok(Mover { way, counters })
    }

    /// A publisher on the legacy `/arm/target`.
    ///
    /// # Errors
    /// rcl refusing the publisher.
    pub fn topic(
        node: &mut r2r::Node,
        lc: &Lifecycle,
        counters: Arc<Counters>,
    ) -> Result<Self, node_glue::Error> {
        let publisher =
            lc.publisher::<PointStamped>(node, topics::ARM_TARGET, node_glue::qos::commands())?;
        let way = Way::Topic {
            publisher,
            last: None,
        };
        Ok(Mover { way, counters })
    }

    /// Command `target_m` (see the module doc for when it is actually sent).
    pub fn go(&mut self, target_m: Point3<f64>) {
        let unchanged = match &self.way {
            Way::MoveTo { current, .. } => current
                .as_ref()
                .is_some_and(|(t, goal)| *t == target_m && !goal.is_finished()),
            Way::Topic { last, .. } => *last == Some(target_m),
        };
        if unchanged {
            self.counters.targets_unchanged.inc();
            return;
        }
        match &mut self.way {
            Way::MoveTo { client, current } => {
                if let Some((_, old)) = current.take() {
                    old.supersede();
                }
                let p = [target_m.x, target_m.y, target_m.z];
                let goal = client.send(move_to_goal(p), Waits::default());
                *current = Some((target_m, goal));
            }
            Way::Topic { publisher, last } => {
                publish(publisher, target_m, &self.counters);
                *last = Some(target_m);
            }
        }
    }

    /// The `MoveTo` goal sent last is still running and working around an obstacle: its
    /// latest feedback phase is `WAITING` (holding after a stop, before a detour or the
    /// way back is planned) or `DETOUR` (driving a detour or an approach). Always false on
    /// the legacy topic (no feedback).
    pub fn working_around(&self) -> bool {
        match &self.way {
            Way::MoveTo {
                current: Some((_, goal)),
                ..
            } => {
                !goal.is_finished()
                    && goal.feedback().is_some_and(|f| {
                        f.phase == MoveTo::Feedback::WAITING as u8
                            || f.phase == MoveTo::Feedback::DETOUR as u8
                    })
            }
            _ => false,
        }
    }

    /// Stop the running move: cancel the `MoveTo` goal, or (topic) command `arm_m`, the
    /// last measured position, when there is a fresh one.
    pub fn stop(&mut self, arm_m: Option<Point3<f64>>) {
        match &mut self.way {
            Way::MoveTo { current, .. } => {
                let Some((t, goal)) = current.take() else {
                    return;
                };
                if !goal.is_finished() {
                    node_glue::log_info!(
                        "cancelling the MoveTo goal to ({:.3}, {:.3}, {:.3}) m",
                        t.x,
                        t.y,
                        t.z
                    );
                }
                goal.cancel();
            }
            Way::Topic { publisher, last } => {
                if let Some(p) = arm_m {
                    publish(publisher, p, &self.counters);
                    self.counters.goals_cancelled.inc();
                }
                *last = arm_m;
            }
        }
    }
}

fn publish(publisher: &LifecyclePublisher<PointStamped>, p: Point3<f64>, counters: &Counters) {
    let msg = PointStamped {
        header: time::header(topics::WORLD_FRAME),
        point: point(p),
    };
    match publisher.publish(&msg) {
        Ok(()) => counters.goals_sent.inc(),
        Err(e) => {
            counters.publish_errors.inc();
            node_glue::log_warn!("could not publish {}: {e}", topics::ARM_TARGET);
        }
    }
}
