//! What the strategy needs from the robot, and how task steps become sequence steps.
//!
//! The node implements [`Robot`] with real ROS clients (MoveTo action, PlanPath service,
//! SendPacket service, topic subscriptions); tests implement it with a fake. Futures are
//! boxed so the trait is object-safe without an async-trait dependency.
//!
//! [`Driver`] wraps a robot: it remembers the last position the robot reached (so a
//! robot that reports none still has a "current position"), plans and follows paths,
//! computes task costs, and builds a task's [`Sequence`].

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use crate::condition::WaitFor;
use crate::error::{Error, PlanCode};
use crate::sequence::{Sequence, Step};
use crate::task::{PacketSpec, Point, StepSpec, TaskStep};

/// Points closer than this are the same point (m).
const SAME_POINT_M: f64 = 1e-3;

/// A path from the planner (`PlanPath` response).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedPath {
    /// World, metres, start to goal.
    pub points: Vec<Point>,
    /// Its length along the points, m.
    pub length_m: f64,
}

/// The robot as the strategy sees it. Dropping any returned future must cancel what it
/// started (e.g. cancel the MoveTo goal): that is how a stop reaches the hardware.
pub trait Robot: Send + Sync {
    /// The last measured position (world, m); `None` before the first measurement.
    fn position(&self) -> Option<Point>;
    /// One MoveTo goal. `Ok(final position)` on `REACHED`, else [`Error::Move`]
    /// (or [`Error::Robot`] when the server is missing).
    fn move_to(&self, target: Point) -> BoxFuture<'_, Result<Point, Error>>;
    /// One PlanPath call. [`Error::PlannerUnavailable`] when no planner runs,
    /// [`Error::Plan`] for its error codes.
    fn plan_path(
        &self,
        from: Point,
        to: Point,
        smooth: bool,
    ) -> BoxFuture<'_, Result<PlannedPath, Error>>;
    /// One SendPacket call; [`Error::Packet`] when `success` is false.
    fn send_packet(&self, packet: PacketSpec) -> BoxFuture<'_, Result<(), Error>>;
    /// Resolves on the first message of `condition.topic` that [`WaitFor::matches`],
    /// counting messages from the last [`Robot::step_begins`] on (see
    /// [`crate::condition::Backlog`]); waits forever otherwise (steps carry timeouts).
    fn wait_for(&self, condition: WaitFor) -> BoxFuture<'_, Result<(), Error>>;
    /// A move, follow or send step begins: a later `wait_for` matches messages from now
    /// on, including those that arrive while this step still runs. Default: nothing.
    fn step_begins(&self) {}
    /// True when [`Robot::move_to`] plans and re-plans its own way (a mobile base's
    /// `NavigateTo`): [`Driver::follow`] then sends the goal alone instead of one move per
    /// turning point of a path planned here. Default `false` (the arm's `MoveTo`).
    fn plans_itself(&self) -> bool {
        false
    }
}

/// A robot plus the last position it reached.
pub struct Driver {
    robot: Arc<dyn Robot>,
    last: Mutex<Point>,
}

/// How a planner answer turns into a cost.
///
/// - a path → its `length_m` (unreachable if not finite or negative);
/// - no planner ([`Error::PlannerUnavailable`], `NO_MAP`, or the call failed with
///   [`Error::Robot`]) → the straight-line distance;
/// - any other planner code (no path, goal blocked, outside the map …) → unreachable.
pub fn cost_from_plan(plan: &Result<PlannedPath, Error>, from: &Point, to: &Point) -> Option<f64> {
    match plan {
        Ok(p) if p.length_m.is_finite() && p.length_m >= 0.0 => Some(p.length_m),
        Ok(_) => None,
        Err(
            Error::PlannerUnavailable
            | Error::Plan {
                code: PlanCode::NoMap,
                ..
            }
            | Error::Robot { .. },
        ) => Some(from.distance_m(to)),
        Err(_) => None,
    }
}

impl Driver {
    /// `start` is the position assumed until the robot reports or reaches one.
    pub fn new(robot: Arc<dyn Robot>, start: Point) -> Self {
        Self {
            robot,
            last: Mutex::new(start),
        }
    }

    /// The robot's position, else the last one reached, else the start.
    pub fn position(&self) -> Point {
        match self.robot.position() {
            Some(p) => p,
            None => *self.last.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    fn remember(&self, p: Point) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = p;
    }

    /// One move; remembers where it ended.
    pub async fn move_to(&self, target: Point) -> Result<(), Error> {
        let reached = self.robot.move_to(target).await?;
        self.remember(reached);
        Ok(())
    }

    /// Plans from the current position and moves through every point of the path
    /// (the start point skipped, the goal always last). Without a planner (see
    /// [`cost_from_plan`]) it moves straight to the goal; a planner error fails the step.
    /// A robot that [`Robot::plans_itself`] gets the goal alone.
    pub async fn follow(&self, goal: Point, smooth: bool) -> Result<(), Error> {
        if self.robot.plans_itself() {
            return self.move_to(goal).await;
        }
        let from = self.position();
        let plan = self.robot.plan_path(from, goal, smooth).await;
        let points = match plan {
            Ok(p) => p.points,
            Err(
                Error::PlannerUnavailable
                | Error::Plan {
                    code: PlanCode::NoMap,
                    ..
                }
                | Error::Robot { .. },
            ) => Vec::new(),
            Err(e) => return Err(e),
        };
        let mut here = from;
        for p in points.into_iter().chain(std::iter::once(goal)) {
            if p.distance_m(&here) < SAME_POINT_M {
                continue;
            }
            self.move_to(p).await?;
            here = p;
        }
        Ok(())
    }

    /// The cost of going from the current position to `to` (see [`cost_from_plan`]).
    pub async fn cost_m(&self, to: Point) -> Option<f64> {
        let from = self.position();
        let plan = self.robot.plan_path(from, to, false).await;
        cost_from_plan(&plan, &from, &to)
    }

    /// A task's sequence: with an `approach`, first a step `"approach"` that plans and
    /// follows there; then each step with its timeout and error policy.
    pub fn sequence(
        self: &Arc<Self>,
        name: &str,
        approach: Option<Point>,
        steps: &[TaskStep],
    ) -> Sequence {
        let mut seq = Sequence::new(name);
        if let Some(goal) = approach {
            let d = self.clone();
            seq = seq.next("approach", move || {
                let d = d.clone();
                async move {
                    d.robot.step_begins();
                    d.follow(goal, false).await
                }
            });
        }
        for s in steps {
            let d = self.clone();
            let step = match &s.spec {
                StepSpec::Delay(t) => Step::delay(*t),
                spec => {
                    let spec = spec.clone();
                    Step::new(s.name.clone(), move || {
                        let (d, spec) = (d.clone(), spec.clone());
                        async move { d.run(spec).await }
                    })
                }
            };
            let step = step.named(s.name.clone());
            let step = match s.timeout {
                Some(t) => step.timeout(t),
                None => step,
            };
            seq = seq.step(step.on_error(s.on_error));
        }
        seq
    }

    async fn run(&self, spec: StepSpec) -> Result<(), Error> {
        if !matches!(spec, StepSpec::WaitFor(_) | StepSpec::Delay(_)) {
            self.robot.step_begins();
        }
        match spec {
            StepSpec::Move(p) => self.move_to(p).await,
            StepSpec::Follow { goal, smooth } => self.follow(goal, smooth).await,
            StepSpec::Send(p) => self.robot.send_packet(p).await,
            StepSpec::WaitFor(w) => self.robot.wait_for(w).await,
            StepSpec::Delay(t) => {
                tokio::time::sleep(t).await;
                Ok(())
            }
        }
    }
}
