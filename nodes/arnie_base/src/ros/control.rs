//! The control task: one task owns the [`crate::Navigator`] and selects over goals, the
//! running goal's cancel requests, board packets, maps, planner answers (from helper
//! tasks), the watchdog tick and shutdown; then applies what the navigator and the
//! teleop answer (drive and stop packets, planner calls, feedback, ends).
use std::time::Duration;

use futures::{Stream, StreamExt};
use node_glue::r2r::arnie_interfaces::msg::Packet;
use node_glue::{time, topics, Shutdown};
use tokio::sync::mpsc;

use super::behaviors::{BehaviorDoor, RunningWait};
use super::doors::{Door, Pending};
use super::planner::{mark, plan_route};
use super::{Control, Event, Step, CMD_VEL, GOAL_POSE, NODE};
use crate::board;
use crate::{Outcome, Output};

impl Control {
    pub(super) fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    pub(super) async fn run(
        mut self,
        mut goals: impl Stream<Item = Step> + Unpin,
        mut rx: impl Stream<Item = Packet> + Unpin,
        mut inputs: impl Stream<Item = Step> + Unpin,
        mut events: mpsc::UnboundedReceiver<Event>,
        tick: Duration,
        shutdown: Shutdown,
    ) {
        let mut ticker = tokio::time::interval(tick);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            let step = tokio::select! {
                _ = shutdown.wait() => Step::Shutdown,
                g = goals.next() => g.unwrap_or(Step::Closed),
                Some(p) = rx.next() => Step::Packet(p),
                Some(step) = inputs.next() => step,
                Some(e) = events.recv() => Step::Event(e),
                c = Door::next_cancel(self.active.as_mut().map(|a| &mut a.door)) => Step::Cancel(c),
                c = BehaviorDoor::next_cancel(self.behavior.as_mut()) => Step::BehaviorCancel(c),
                c = RunningWait::next_cancel(self.wait.as_mut()) => Step::WaitCancel(c),
                _ = ticker.tick() => Step::Tick,
            };
            let now = self.now();
            let step = match step {
                Step::Goal(_) | Step::GoalPose(_) | Step::CmdVel(..) if !self.lc.is_active() => {
                    self.refuse_inactive(step);
                    continue;
                }
                step => step,
            };
            let outs = match step {
                Step::Shutdown | Step::Closed => break,
                Step::Deactivate(why, done) => {
                    self.stop_all(why);
                    let _ = done.send(());
                    Vec::new()
                }
                Step::Goal(Pending::Base(req)) => {
                    self.on_base_goal(req);
                    Vec::new()
                }
                Step::Goal(Pending::Nav2(req)) => {
                    self.on_nav2_goal(req);
                    Vec::new()
                }
                Step::Goal(Pending::Topic) | Step::Goal(Pending::Waypoint(_)) => Vec::new(),
                Step::Goal(Pending::Through(req)) => {
                    self.on_through_goal(req);
                    Vec::new()
                }
                Step::Goal(Pending::Path(req)) => {
                    self.on_path_goal(req);
                    Vec::new()
                }
                Step::Waypoints(req) => {
                    self.on_waypoints_goal(req);
                    Vec::new()
                }
                Step::Behavior(p) => {
                    self.on_behavior_goal(p);
                    Vec::new()
                }
                Step::Wait(req) => {
                    self.on_wait_goal(req);
                    Vec::new()
                }
                Step::BehaviorCancel(req) => {
                    self.on_behavior_cancel(req);
                    Vec::new()
                }
                Step::WaitCancel(req) => {
                    self.on_wait_cancel(req);
                    Vec::new()
                }
                Step::GoalPose(p) => {
                    self.counters.goal_poses.inc();
                    match self.goal_in_map(&p) {
                        Ok(goal) => self.start(goal, Pending::Topic),
                        Err(r) => {
                            node_glue::warn_limited!(
                                self.logs,
                                "goal",
                                "{GOAL_POSE} refused: {}",
                                r.message
                            );
                        }
                    }
                    Vec::new()
                }
                Step::CmdVel(t, frame) => self.on_cmd_vel(&t, frame.as_deref(), now),
                Step::Packet(p) => self.on_packet(&p, now),
                Step::Estimate(e) => {
                    self.on_estimate(&e);
                    Vec::new()
                }
                Step::Map(m) => {
                    self.on_map(&m);
                    Vec::new()
                }
                Step::Scan(s) => self.on_scan(&s, now),
                Step::Match(m) => self.on_match(&m, now),
                Step::Event(Event::Plan(id, reply)) => self.nav.on_plan(id, reply, now),
                Step::Event(Event::Marked(id, ok)) => self.nav.on_marked(id, ok, now),
                Step::Cancel(request) => {
                    if self.active.is_some() {
                        request.accept();
                        node_glue::log_info!("goal cancelled");
                        self.nav.cancel(now)
                    } else {
                        request.reject();
                        Vec::new()
                    }
                }
                Step::Tick => {
                    self.behavior_tick(now);
                    let mut outs = self.match_tick(now);
                    outs.extend(self.nav.tick(now));
                    let manual = self.teleop.active();
                    outs.extend(self.teleop.step(now));
                    if manual && !self.teleop.active() {
                        self.counters.cmd_vel_timeouts.inc();
                        node_glue::log_info!(
                            "{CMD_VEL}: no command for cmd_vel_timeout_s: base stopped"
                        );
                    }
                    outs
                }
            };
            self.apply(outs);
            if let Ok(mut n) = self.counters.nav.lock() {
                *n = self.nav.counters().clone();
            }
            self.counters
                .busy
                .store(self.active.is_some(), std::sync::atomic::Ordering::Relaxed);
        }
        if self.teleop.active() {
            self.send_stop();
        }
        self.end_behaviors_at_shutdown();
        if let Some(a) = self.active.take() {
            self.send_stop();
            a.door
                .end(self.ended_here(format!("{NODE} is shutting down; motors stopped")));
        }
    }

    /// A goal or a command while the node is not active: refused with the reason
    /// (goals), counted and ignored (`goal_pose`, `cmd_vel`).
    fn refuse_inactive(&mut self, step: Step) {
        self.counters.inactive_refused.inc();
        let reason = self.lc.inactive_reason();
        match step {
            Step::Goal(pending) => {
                node_glue::warn_limited!(
                    self.logs,
                    "inactive",
                    "refusing {}: {reason}",
                    pending.name()
                );
                let pose = self.nav.pose().unwrap_or_default();
                pending.reject(
                    super::doors::Refusal {
                        outcome: Outcome::Rejected,
                        code: crate::nav2::UNKNOWN,
                        message: reason,
                    },
                    &pose,
                );
            }
            _ => node_glue::warn_limited!(
                self.logs,
                "inactive",
                "{GOAL_POSE}/{CMD_VEL} ignored: {reason}"
            ),
        }
    }

    /// Deactivation (or shutdown): the running goal ends PREEMPTED, a manual drive ends,
    /// and `Stop` goes out (comms/tx is still open).
    fn stop_all(&mut self, why: &str) {
        let now = self.now();
        if let Some(a) = self.active.take() {
            let outs = self.nav.cancel(now);
            // The navigator's own end of the cancelled goal is not the client's answer.
            drop(outs);
            a.door
                .end(self.ended_here(format!("{NODE} {why}: motors stopped")));
        }
        if self.teleop.active() {
            self.teleop.release();
        }
        self.send_stop();
        node_glue::log_info!("{why}: base stopped (Stop sent)");
    }

    /// The end of a goal the glue stops itself (shutdown, a manual takeover): PREEMPTED
    /// where the robot is, with `message`.
    pub(super) fn ended_here(&self, message: String) -> crate::Finish {
        crate::Finish {
            outcome: Outcome::Preempted,
            pose: self.nav.pose().unwrap_or_default(),
            replans: 0,
            driven_m: 0.0,
            message,
            plan_failure: None,
        }
    }

    /// Live parameters (checked by node_glue before they are stored) for the next goal:
    /// the navigator's, the board's watchdog and the planner's timeout.
    pub(super) fn refresh_config(&mut self) {
        let fresh = self
            .params
            .lock()
            .map_err(|_| super::params::ParamsError::Poisoned)
            .and_then(|p| {
                Ok((
                    p.config()?,
                    p.watchdog_ms(),
                    p.planner_timeout(),
                    p.teleop_limits(),
                ))
            });
        match fresh {
            Ok((c, watchdog_ms, planner_timeout, teleop)) => {
                self.nav.set_config(c);
                self.teleop.set_limits(teleop);
                self.watchdog_ms = watchdog_ms;
                self.planner_timeout = planner_timeout;
            }
            Err(e) => {
                node_glue::log_warn!("parameters are invalid ({e}); keeping the last valid ones")
            }
        }
    }

    pub(super) fn apply(&mut self, outs: Vec<Output>) {
        for o in outs {
            match o {
                Output::Motion { v, w } => {
                    self.seq = self.seq.wrapping_add(1);
                    let fields = board::drive_speed(self.seq, v, w, self.watchdog_ms);
                    if self.send(board::DRIVE_SPEED, fields) {
                        self.counters.drive_sent.inc();
                    }
                }
                Output::Stop => self.send_stop(),
                // One leg or a route: the planner is asked leg by leg either way.
                Output::Plan { id, start, goal } => self.spawn_plan(id, vec![start, goal]),
                Output::PlanRoute { id, points } => self.spawn_plan(id, points),
                Output::Mark {
                    id,
                    centers,
                    radius_m,
                    ttl_s,
                } => {
                    self.counters.mark_requests.inc();
                    node_glue::log_info!(
                        "marking {:?} (radius {radius_m} m, ttl {ttl_s} s) on the planner's map",
                        centers
                    );
                    self.mark_marker(&centers, radius_m, ttl_s);
                    let (client, tx, timeout) = (
                        self.marker.clone(),
                        self.events_tx.clone(),
                        self.planner_timeout,
                    );
                    tokio::spawn(async move {
                        let ok = mark(&client, centers, radius_m, ttl_s, timeout).await;
                        let _ = tx.send(Event::Marked(id, ok));
                    });
                }
                Output::Feedback { goal, feedback } => {
                    let speed = self.nav.config().max_speed_mps;
                    let now_speed = self.nav.speed().0;
                    let map = self.frames.map_frame().to_string();
                    if let Some(a) = self.active.as_mut().filter(|a| a.id == goal) {
                        a.door.feedback(&feedback, &map, speed, now_speed);
                    }
                }
                Output::Done { goal, finish } => {
                    let Some(a) = self.active.take_if(|a| a.id == goal) else {
                        continue;
                    };
                    let log = format!(
                        "goal: {} after {:.2} m, {} re-plans: {}",
                        finish.outcome.name(),
                        finish.driven_m,
                        finish.replans,
                        finish.message
                    );
                    match finish.outcome {
                        Outcome::Reached => node_glue::log_info!("{log}"),
                        _ => node_glue::log_warn!("{log}"),
                    }
                    match a.door {
                        // A waypoint's goal ended: the run goes on (or ends) by itself.
                        Door::Waypoints(w)
                            if !matches!(
                                finish.outcome,
                                Outcome::Cancelled | Outcome::Preempted
                            ) =>
                        {
                            let result = if finish.outcome == Outcome::Reached {
                                Ok(())
                            } else {
                                Err((crate::nav2::error_code(&finish), finish.message))
                            };
                            self.waypoint_done(w, result, false);
                        }
                        door => door.end(finish),
                    }
                }
            }
        }
    }

    /// Asks the planner for the path through `points` in a helper task; the answer comes
    /// back as an [`Event::Plan`].
    fn spawn_plan(&self, id: u64, points: Vec<(f64, f64)>) {
        self.counters.plan_requests.inc();
        let (client, tx, timeout) = (
            self.planner.clone(),
            self.events_tx.clone(),
            self.planner_timeout,
        );
        tokio::spawn(async move {
            let reply = plan_route(&client, &points, timeout).await;
            let _ = tx.send(Event::Plan(id, reply));
        });
    }

    fn send_stop(&mut self) {
        self.seq = self.seq.wrapping_add(1);
        if self.send(board::STOP, board::stop(self.seq)) {
            self.counters.stops_sent.inc();
        }
    }

    fn send(&self, name: &str, fields_json: String) -> bool {
        let msg = Packet {
            stamp: time::now(),
            name: name.into(),
            fields_json,
            ..Default::default()
        };
        match self.tx.publish(&msg) {
            Ok(()) => true,
            Err(e) => {
                self.counters.publish_errors.inc();
                node_glue::log_warn!("could not publish {name} on {}: {e}", topics::COMMS_TX);
                false
            }
        }
    }
}
