//! [`Mover`]: where the brain's targets go (metres, frame `world`).
//!
//! **`move_to`** (default): a `MoveTo` goal on `/trajectory/move_to` for each tick whose
//! target differs from the goal still running. The trajectory server preempts its
//! running goal when a new one arrives, so the newest target wins without a cancel. A
//! target equal to the goal still running is not re-sent (that would restart the
//! trajectory); equal to a goal that has ended (reached, reversed, aborted, rejected) it
//! is sent again: that is the brain re-trying a step. [`Mover::stop`] cancels the running
//! goal (a goal not yet accepted is cancelled as soon as it is).
//!
//! r2r's goal-request future is not `Send`, so the goals live on a small thread of their
//! own (a current-thread tokio runtime with a `LocalSet`); the mover talks to it over a
//! channel.
//!
//! **`topic`** (legacy): a `geometry_msgs/PointStamped` on `/arm/target` when the target
//! changes (the legacy trajectory server ignores a repeat anyway). There is nothing to
//! cancel on a topic: [`Mover::stop`] commands the last measured arm position instead.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use nalgebra::Point3;
use node_glue::{time, topics};
use r2r::arnie_interfaces::action::MoveTo;
use r2r::geometry_msgs::msg::{Point, PointStamped};
use r2r::ActionClientGoal;
use tokio::sync::mpsc;

use super::Counters;

/// How long a goal waits for the `MoveTo` server to appear before it is given up.
pub const SERVER_WAIT: Duration = Duration::from_secs(2);
/// How long a goal request (or a cancel request) waits for the server's answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// What the goal thread is told.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Order {
    /// Command this target (metres).
    Go(Point3<f64>),
    /// Cancel the running goal.
    Stop,
}

/// Where targets go; see the module doc.
pub enum Mover {
    /// Orders for the `MoveTo` goal thread.
    MoveTo(mpsc::UnboundedSender<Order>),
    /// The legacy topic, with the last target published on it.
    Topic {
        publisher: r2r::Publisher<PointStamped>,
        last: Option<Point3<f64>>,
        counters: Arc<Counters>,
        log: String,
    },
}

fn point(p: Point3<f64>) -> Point {
    Point {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

impl Mover {
    /// A `MoveTo` client on `/trajectory/move_to` and its goal thread.
    ///
    /// # Errors
    /// rcl refusing the client, or the thread failing to start.
    pub fn move_to(
        node: &mut r2r::Node,
        counters: Arc<Counters>,
        log: &str,
    ) -> Result<Self, node_glue::Error> {
        let client = node.create_action_client::<MoveTo::Action>(topics::MOVE_TO)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let log = log.to_owned();
        std::thread::Builder::new()
            .name("brain-move_to".into())
            .spawn(move || {
                let mut goals = Goals {
                    client,
                    current: None,
                    generation: Rc::new(Cell::new(0)),
                    counters,
                    log,
                };
                let local = tokio::task::LocalSet::new();
                local.block_on(&rt, async move {
                    let mut rx = rx;
                    // Ends when the mover (the only sender) is dropped.
                    while let Some(order) = rx.recv().await {
                        goals.order(order);
                    }
                });
            })?;
        Ok(Mover::MoveTo(tx))
    }

    /// A publisher on the legacy `/arm/target`.
    ///
    /// # Errors
    /// rcl refusing the publisher.
    pub fn topic(
        node: &mut r2r::Node,
        counters: Arc<Counters>,
        log: &str,
    ) -> Result<Self, node_glue::Error> {
        let publisher =
            node.create_publisher::<PointStamped>(topics::ARM_TARGET, node_glue::qos::commands())?;
        Ok(Mover::Topic {
            publisher,
            last: None,
            counters,
            log: log.to_owned(),
        })
    }

    /// Command `target_m` (see the module doc for when it is actually sent).
    pub fn go(&mut self, target_m: Point3<f64>) {
        match self {
            Mover::MoveTo(tx) => {
                // A closed channel means the goal thread is gone (shutdown).
                let _ = tx.send(Order::Go(target_m));
            }
            Mover::Topic {
                publisher,
                last,
                counters,
                log,
            } => {
                if *last == Some(target_m) {
                    counters.targets_unchanged.inc();
                    return;
                }
                publish(publisher, target_m, counters, log);
                *last = Some(target_m);
            }
        }
    }

    /// Stop the running move: cancel the `MoveTo` goal, or (topic) command `arm_m`, the
    /// last measured position, when there is a fresh one.
    pub fn stop(&mut self, arm_m: Option<Point3<f64>>) {
        match self {
            Mover::MoveTo(tx) => {
                let _ = tx.send(Order::Stop);
            }
            Mover::Topic {
                publisher,
                last,
                counters,
                log,
            } => {
                if let Some(p) = arm_m {
                    publish(publisher, p, counters, log);
                    counters.goals_cancelled.inc();
                }
                *last = arm_m;
            }
        }
    }
}

fn publish(
    publisher: &r2r::Publisher<PointStamped>,
    p: Point3<f64>,
    counters: &Counters,
    log: &str,
) {
    let msg = PointStamped {
        header: time::header(topics::WORLD_FRAME),
        point: point(p),
    };
    match publisher.publish(&msg) {
        Ok(()) => counters.goals_sent.inc(),
        Err(e) => {
            counters.publish_errors.inc();
            r2r::log_warn!(log, "could not publish {}: {e}", topics::ARM_TARGET);
        }
    }
}

// ------------------------------------------------------------------ the goal thread

/// Where one goal stands.
enum GoalState {
    /// Not accepted yet; `cancel`: cancel it as soon as it is.
    Pending {
        cancel: bool,
    },
    Active(ActionClientGoal<MoveTo::Action>),
    Done,
}

struct Current {
    target: Point3<f64>,
    state: Rc<RefCell<GoalState>>,
}

/// The goal thread's state (single-threaded: `Rc`/`RefCell`).
struct Goals {
    client: r2r::ActionClient<MoveTo::Action>,
    current: Option<Current>,
    /// Bumped by every order: a goal still waiting for the server gives up when it
    /// changed (a newer target, or a stop, came first).
    generation: Rc<Cell<u64>>,
    counters: Arc<Counters>,
    log: String,
}

impl Goals {
    fn order(&mut self, order: Order) {
        match order {
            Order::Go(target) => {
                if let Some(c) = &self.current {
                    if c.target == target && !matches!(*c.state.borrow(), GoalState::Done) {
                        self.counters.targets_unchanged.inc();
                        return;
                    }
                }
                let gen = self.generation.get().wrapping_add(1);
                self.generation.set(gen);
                let state = Rc::new(RefCell::new(GoalState::Pending { cancel: false }));
                self.current = Some(Current {
                    target,
                    state: state.clone(),
                });
                tokio::task::spawn_local(run_goal(
                    self.client.clone(),
                    target,
                    gen,
                    self.generation.clone(),
                    state,
                    self.counters.clone(),
                    self.log.clone(),
                ));
            }
            Order::Stop => {
                self.generation.set(self.generation.get().wrapping_add(1));
                let Some(c) = self.current.take() else {
                    return;
                };
                let mut state = c.state.borrow_mut();
                match &mut *state {
                    GoalState::Pending { cancel } => *cancel = true,
                    GoalState::Active(handle) => {
                        tokio::task::spawn_local(cancel_goal(
                            handle.clone(),
                            c.target,
                            self.log.clone(),
                        ));
                    }
                    GoalState::Done => {}
                }
            }
        }
    }
}

async fn cancel_goal(handle: ActionClientGoal<MoveTo::Action>, target: Point3<f64>, log: String) {
    r2r::log_info!(
        &log,
        "cancelling the MoveTo goal to ({:.3}, {:.3}, {:.3}) m",
        target.x,
        target.y,
        target.z
    );
    match handle.cancel() {
        Ok(answer) => match tokio::time::timeout(ANSWER_TIMEOUT, answer).await {
            Ok(Ok(())) => {}
            // Already finished (reached just before): nothing to stop.
            Ok(Err(e)) => r2r::log_info!(&log, "MoveTo cancel not done: {e}"),
            Err(_) => r2r::log_warn!(&log, "MoveTo cancel: no answer"),
        },
        Err(e) => r2r::log_warn!(&log, "MoveTo cancel failed: {e}"),
    }
}

async fn run_goal(
    client: r2r::ActionClient<MoveTo::Action>,
    target: Point3<f64>,
    gen: u64,
    generation: Rc<Cell<u64>>,
    state: Rc<RefCell<GoalState>>,
    counters: Arc<Counters>,
    log: String,
) {
    drive_goal(&client, target, gen, &generation, &state, &counters, &log).await;
    *state.borrow_mut() = GoalState::Done;
}

async fn drive_goal(
    client: &r2r::ActionClient<MoveTo::Action>,
    target: Point3<f64>,
    gen: u64,
    generation: &Cell<u64>,
    state: &RefCell<GoalState>,
    counters: &Counters,
    log: &str,
) {
    let fail = |why: String| {
        counters.goals_failed.inc();
        r2r::log_warn!(
            log,
            "MoveTo to ({:.3}, {:.3}, {:.3}) m: {why}",
            target.x,
            target.y,
            target.z
        );
    };
    let up = match r2r::Node::is_available(client) {
        Ok(f) => matches!(tokio::time::timeout(SERVER_WAIT, f).await, Ok(Ok(()))),
        Err(_) => false,
    };
    if generation.get() != gen {
        return; // superseded (or stopped) before it was sent
    }
    if !up {
        fail(format!(
            "no server on {} within {} s",
            topics::MOVE_TO,
            SERVER_WAIT.as_secs()
        ));
        return;
    }
    let goal = MoveTo::Goal {
        target: point(target),
        period_s: 0.0,
        sample_factor: 0,
    };
    let request = match client.send_goal_request(goal) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    counters.goals_sent.inc();
    let (handle, result, mut feedback) = match tokio::time::timeout(ANSWER_TIMEOUT, request).await {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(r2r::Error::RCL_RET_ACTION_GOAL_REJECTED)) => {
            return fail("rejected by the trajectory server".into())
        }
        Ok(Err(e)) => return fail(e.to_string()),
        Err(_) => {
            return fail(format!(
                "no answer to the goal within {} s",
                ANSWER_TIMEOUT.as_secs()
            ))
        }
    };
    let cancel_now = matches!(*state.borrow(), GoalState::Pending { cancel: true });
    *state.borrow_mut() = GoalState::Active(handle.clone());
    if cancel_now {
        tokio::task::spawn_local(cancel_goal(handle, target, log.to_owned()));
    }
    tokio::pin!(result);
    let mut feedback_open = true;
    let outcome = loop {
        tokio::select! {
            r = &mut result => break r,
            // Feedback is not used; drained so r2r's queue never fills.
            f = feedback.next(), if feedback_open => feedback_open = f.is_some(),
        }
    };
    match outcome {
        Ok((_, r)) => match r.outcome {
            o if o == MoveTo::Result::REACHED as u8 => counters.goals_reached.inc(),
            o if o == MoveTo::Result::PREEMPTED as u8 => counters.goals_preempted.inc(),
            o if o == MoveTo::Result::CANCELLED as u8 => counters.goals_cancelled.inc(),
            o => fail(format!("{}: {}", outcome_name(o), r.message)),
        },
        Err(e) => fail(format!("no result: {e}")),
    }
}

/// The name of a `MoveTo` result outcome, for logs.
fn outcome_name(o: u8) -> String {
    use MoveTo::Result as R;
    match o {
        _ if o == R::REACHED as u8 => "REACHED".into(),
        _ if o == R::REVERSED_TO_START as u8 => "REVERSED_TO_START".into(),
        _ if o == R::ABORTED_HELP_NEEDED as u8 => "ABORTED_HELP_NEEDED".into(),
        _ if o == R::CANCELLED as u8 => "CANCELLED".into(),
        _ if o == R::REJECTED as u8 => "REJECTED".into(),
        _ if o == R::PREEMPTED as u8 => "PREEMPTED".into(),
        _ => format!("outcome {o}"),
    }
}
