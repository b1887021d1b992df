//! The match clock on ROS ([`MatchClockNode`]): the library's [`MatchClock`] fed by the
//! start cord (`StartCord` on `comms/rx`) and published on `match/state`
//! (`arnie_interfaces/MatchState`, reliable, transient local, depth 1: a late subscriber
//! such as the base gets the latest) on every change and every second.
//!
//! The clock runs on the monotonic clock; stamps are the node's ROS clock (`start` is the
//! pull's time on it: now less how long ago the pull was). Every oddity of the cord (a
//! report that does not read, a second pull, the cord put back during a match, the cord
//! out when a match is armed) is counted (`/strategy: clock`) and logged.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use node_glue::r2r::{
    self,
    arnie_interfaces::msg::{MatchState, Packet},
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error};
use tokio::sync::Notify;

use super::Counters;
use crate::clock::{Cord, CordEvent, MatchClock, Phase};

/// The board's cord report's name (`nodes/lib/arnie_packets/packets/start_cord.json`).
pub const START_CORD: &str = "StartCord";
/// How often the clock is checked for the end [ms].
const TICK_MS: u64 = 50;

/// The clock, its inputs and its publisher (see the module doc).
pub struct MatchClockNode {
    clock: Mutex<MatchClock>,
    changed: Notify,
    t0: Instant,
    counters: Arc<Counters>,
    logs: RateLimit,
}

impl MatchClockNode {
    /// Subscribes `comms/rx`, creates the `match/state` publisher and their tasks.
    ///
    /// # Errors
    /// A ROS entity that could not be created.
    pub fn create(app: &mut App, counters: Arc<Counters>) -> Result<Arc<MatchClockNode>, Error> {
        let publisher = app
            .node
            .create_publisher::<MatchState>(topics::MATCH_STATE, qos::latched())?;
        let rx = app.subscribe::<Packet>(topics::COMMS_RX, qos::commands())?;
        let shutdown = app.shutdown();
        let node = Arc::new(MatchClockNode {
            clock: Mutex::new(MatchClock::default()),
            changed: Notify::new(),
            t0: Instant::now(),
            counters,
            logs: RateLimit::default(),
        });
        let _rt = app.handle().enter();
        let (cords, down) = (node.clone(), shutdown.clone());
        tokio::spawn(async move {
            let mut rx = rx;
            loop {
                tokio::select! {
                    _ = down.wait() => break,
                    p = rx.next() => match p {
                        Some(p) if p.name == START_CORD => cords.on_packet(&p),
                        Some(_) => {}
                        None => break,
                    },
                }
            }
        });
        tokio::spawn(node.clone().publish_loop(publisher, shutdown));
        Ok(node)
    }

    /// Seconds on the clock's monotonic time base.
    pub fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MatchClock> {
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn on_packet(&self, p: &Packet) {
        self.counters.cord_reports.inc();
        let cord = serde_json::from_str::<serde_json::Value>(&p.fields_json)
            .ok()
            .and_then(|v| {
                Some(Cord {
                    pulled: v.get("pulled")?.as_bool()?,
                    pulls: u8::try_from(v.get("pulls")?.as_u64()?).ok()?,
                    since_pull_ms: u32::try_from(v.get("since_pull_ms")?.as_u64()?).ok()?,
                })
            });
        let Some(cord) = cord else {
            self.counters.cord_reports_bad.inc();
            node_glue::warn_limited!(
                self.logs,
                "cord",
                "{START_CORD} with unreadable fields ignored: {}",
                p.fields_json
            );
            return;
        };
        let now = self.now();
        let event = self.lock().on_cord(cord, now);
        match event {
            CordEvent::Nothing => return,
            CordEvent::Started(at) => {
                self.counters.matches_started.inc();
                node_glue::log_info!(
                    "the start cord is pulled (pull {}, {:.0} ms ago): the match starts",
                    cord.pulls,
                    (now - at) * 1000.0
                );
            }
            CordEvent::OutBeforeArming => {
                self.counters.cord_out_before_arming.inc();
                node_glue::log_warn!(
                    "the start cord was out before the match was armed: put it back and pull it to start"
                );
            }
            CordEvent::PulledAgain => {
                self.counters.cord_pulled_again.inc();
                node_glue::log_warn!(
                    "the start cord was pulled again (pull {}) during the match: ignored",
                    cord.pulls
                );
            }
            CordEvent::PutBack => {
                self.counters.cord_put_back.inc();
                node_glue::log_warn!("the start cord was put back during the match: ignored");
            }
        }
        self.changed.notify_waiters();
    }

    /// Arms a match (see [`MatchClock::arm`]).
    pub fn arm(&self, colour: arnie_math::Colour, duration_s: f64, cord: bool) {
        let now = self.now();
        self.lock().arm(colour, duration_s, cord, now);
        self.counters.matches_armed.inc();
        if !cord {
            self.counters.matches_started.inc();
        }
        self.changed.notify_waiters();
    }

    /// No match any more.
    pub fn disarm(&self, why: &str) {
        let mut c = self.lock();
        if c.phase() != Phase::Ended {
            c.disarm(why);
        }
        drop(c);
        self.changed.notify_waiters();
    }

    /// Adds a task's points.
    pub fn add_points(&self, points: f64) {
        self.lock().add_points(points);
        self.changed.notify_waiters();
    }

    /// The run's final score (the match over, or the run over before the end).
    pub fn final_score(&self, points: f64, colour: arnie_math::Colour) {
        let mut c = self.lock();
        c.set_points(points);
        if c.phase() == Phase::Ended {
            c.set_message(format!("match over: {points} points ({colour})"));
        }
        drop(c);
        self.changed.notify_waiters();
    }

    /// Time left [s].
    pub fn remaining_s(&self) -> f64 {
        let now = self.now();
        self.lock().remaining_s(now)
    }

    /// Resolves once the match runs (or has ended); returns the time left then [s].
    pub async fn started(&self) -> f64 {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if matches!(self.lock().phase(), Phase::Running | Phase::Ended) {
                return self.remaining_s();
            }
            notified.await;
        }
    }

    fn message(&self, now: f64) -> MatchState {
        let s = self.lock().snapshot(now);
        let ros_now = node_glue::time::now_duration();
        let start = s.start.map_or_else(Default::default, |t| {
            let ago = Duration::try_from_secs_f64((now - t).max(0.0)).unwrap_or_default();
            node_glue::time::stamp(ros_now.saturating_sub(ago))
        });
        MatchState {
            stamp: node_glue::time::stamp(ros_now),
            phase: s.phase as u8,
            colour: s.colour.name().into(),
            start,
            duration_s: s.duration_s,
            elapsed_s: s.elapsed_s,
            remaining_s: s.remaining_s,
            points: s.points,
            cord_pulls: s.cord_pulls,
            message: s.message,
        }
    }

    async fn publish_loop(
        self: Arc<Self>,
        publisher: r2r::Publisher<MatchState>,
        shutdown: node_glue::Shutdown,
    ) {
        let mut tick = tokio::time::interval(Duration::from_millis(TICK_MS));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut last_sent: Option<(f64, MatchState)> = None;
        loop {
            let changed = tokio::select! {
                _ = shutdown.wait() => break,
                _ = self.changed.notified() => true,
                _ = tick.tick() => false,
            };
            let now = self.now();
            let ended = self.lock().tick(now);
            if ended {
                self.counters.matches_ended.inc();
                let s = self.lock().snapshot(now);
                node_glue::log_info!(
                    "match over after {:.1} s: {} points ({})",
                    s.duration_s,
                    s.points,
                    s.colour
                );
            }
            let msg = self.message(now);
            let due = match &last_sent {
                None => true,
                Some((t, last)) => {
                    changed
                        || ended
                        || now - t >= 1.0
                        || last.phase != msg.phase
                        || last.points != msg.points
                        || last.message != msg.message
                }
            };
            if !due {
                continue;
            }
            match publisher.publish(&msg) {
                Ok(()) => self.counters.match_states_published.inc(),
                Err(e) => {
                    self.counters.publish_errors.inc();
                    node_glue::warn_limited!(self.logs, "publish", "{}: {e}", topics::MATCH_STATE);
                }
            }
            last_sent = Some((now, msg));
        }
    }
}
