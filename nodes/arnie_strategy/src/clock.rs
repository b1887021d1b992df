//! [`MatchClock`]: the match's phase and clock, started by the start cord.
//!
//! ```text
//!  IDLE ──arm(cord)──► WAITING ──a pull after arming──► RUNNING ──duration──► ENDED
//!    └──arm(goal)─────────────────────────────────────────►┘
//!  any phase ──disarm (a cancel)──► IDLE;   ENDED ──arm──► a new match
//! ```
//!
//! The board reports the cord (`StartCord`: `pulled`, `pulls`, `since_pull_ms`, ten times
//! a second and on every change). A pull starts the match when it happened **after** the
//! match was armed: its time is the report's arrival less `since_pull_ms`, so the clock's
//! zero is the pull itself, whatever the link's delay or a lost report. The cord out
//! before arming does not start anything (a WARN once: put it back and pull it). Once
//! running, another pull (the cord put back and pulled again) or the cord put back is
//! counted, logged and ignored: the match has one start. The clock ends the match at
//! `start + duration` ([`MatchClock::tick`]), whatever the strategy's run is doing.
//!
//! Pure: time [s, any monotonic clock] is passed in.
use arnie_math::Colour;

/// The match's phase (`MatchState.msg`'s constants, same values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// No match armed.
    #[default]
    Idle = arnie_constants::msg::match_state::IDLE,
    /// Armed, waiting for the start cord.
    Waiting = arnie_constants::msg::match_state::WAITING,
    /// The clock runs.
    Running = arnie_constants::msg::match_state::RUNNING,
    /// Time is up.
    Ended = arnie_constants::msg::match_state::ENDED,
}

/// One `StartCord` report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cord {
    /// The cord is out.
    pub pulled: bool,
    /// Pulls since the board started (wraps).
    pub pulls: u8,
    /// Since the last pull, on the board's clock (0 while in) [ms].
    pub since_pull_ms: u32,
}

/// What a report meant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CordEvent {
    /// Nothing new.
    Nothing,
    /// The match starts: the pull's time [s].
    Started(f64),
    /// The cord was out before the match was armed: it must go back in and be pulled
    /// (reported once per arming).
    OutBeforeArming,
    /// A pull after the start (counted, ignored).
    PulledAgain,
    /// The cord put back during the match (counted, ignored).
    PutBack,
}

/// Counts of the cord's oddities, for `/diagnostics`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CordCounters {
    /// `StartCord` reports taken.
    pub reports: u64,
    /// Pulls after the match had started (ignored).
    pub pulled_again: u64,
    /// Times the cord went back in during a match (ignored).
    pub put_back: u64,
    /// Armings that found the cord already out.
    pub out_before_arming: u64,
}

/// The clock (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct MatchClock {
    phase: Phase,
    colour: Colour,
    duration_s: f64,
    armed_at: f64,
    start: Option<f64>,
    /// `pulls` of the pull that started the match.
    start_pulls: Option<u8>,
    /// The last report's `pulled`.
    last_pulled: Option<bool>,
    warned_out: bool,
    pulls_seen: u32,
    points: f64,
    message: String,
    counters: CordCounters,
}

/// The clock at one moment (what `match/state` carries).
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The phase.
    pub phase: Phase,
    /// The colour played.
    pub colour: Colour,
    /// The clock's zero [s] (the pull), once running.
    pub start: Option<f64>,
    /// The match's length [s].
    pub duration_s: f64,
    /// Since the start [s] (0 before; the duration once ended).
    pub elapsed_s: f64,
    /// Until the end [s] (the duration before; 0 once ended).
    pub remaining_s: f64,
    /// Points so far.
    pub points: f64,
    /// Pulls seen since armed.
    pub cord_pulls: u32,
    /// The last thing that happened.
    pub message: String,
}

impl MatchClock {
    /// Arms a match of `duration_s` for `colour` at `now`: WAITING for the cord, or
    /// RUNNING at once (`cord` false: the match starts with the goal).
    pub fn arm(&mut self, colour: Colour, duration_s: f64, cord: bool, now: f64) {
        *self = MatchClock {
            colour,
            duration_s: if duration_s.is_finite() {
                duration_s.max(0.0)
            } else {
                0.0
            },
            armed_at: now,
            counters: std::mem::take(&mut self.counters),
            ..MatchClock::default()
        };
        if cord {
            self.phase = Phase::Waiting;
            self.message = "waiting for the start cord".into();
        } else {
            self.phase = Phase::Running;
            self.start = Some(now);
            self.message = "started with the goal".into();
        }
    }

    /// No match any more (a cancelled run): IDLE.
    pub fn disarm(&mut self, why: &str) {
        self.phase = Phase::Idle;
        self.message = why.to_string();
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The clock's zero, once running.
    pub fn start(&self) -> Option<f64> {
        self.start
    }

    /// Time left at `now` [s] (the whole duration before the start).
    pub fn remaining_s(&self, now: f64) -> f64 {
        match (self.phase, self.start) {
            (Phase::Ended, _) => 0.0,
            (_, Some(s)) => (s + self.duration_s - now).max(0.0),
            (_, None) => self.duration_s,
        }
    }

    /// The points so far.
    pub fn set_points(&mut self, points: f64) {
        if points.is_finite() {
            self.points = points;
        }
    }

    /// Adds points (a task done).
    pub fn add_points(&mut self, points: f64) {
        if points.is_finite() {
            self.points += points;
        }
    }

    /// The counters.
    pub fn counters(&self) -> &CordCounters {
        &self.counters
    }

    /// A `StartCord` report that arrived at `now`.
    pub fn on_cord(&mut self, cord: Cord, now: f64) -> CordEvent {
        self.counters.reports += 1;
        let was = self.last_pulled.replace(cord.pulled);
        match self.phase {
            Phase::Idle | Phase::Ended => CordEvent::Nothing,
            Phase::Waiting => {
                if !cord.pulled {
                    return CordEvent::Nothing;
                }
                let pulled_at = now - f64::from(cord.since_pull_ms) / 1000.0;
                if pulled_at >= self.armed_at {
                    self.phase = Phase::Running;
                    self.start = Some(pulled_at);
                    self.start_pulls = Some(cord.pulls);
                    self.pulls_seen += 1;
                    self.message = format!("started by the start cord (pull {})", cord.pulls);
                    CordEvent::Started(pulled_at)
                } else if !self.warned_out {
                    self.warned_out = true;
                    self.counters.out_before_arming += 1;
                    self.message =
                        "the start cord was out before the match was armed: put it back and pull it"
                            .into();
                    CordEvent::OutBeforeArming
                } else {
                    CordEvent::Nothing
                }
            }
            Phase::Running => {
                if cord.pulled && self.start_pulls.is_some_and(|p| p != cord.pulls) {
                    self.start_pulls = Some(cord.pulls);
                    self.pulls_seen += 1;
                    self.counters.pulled_again += 1;
                    self.message = format!(
                        "the start cord was pulled again (pull {}): ignored, the match runs on",
                        cord.pulls
                    );
                    CordEvent::PulledAgain
                } else if !cord.pulled && was == Some(true) && self.start_pulls.is_some() {
                    self.counters.put_back += 1;
                    self.message = "the start cord was put back: ignored, the match runs on".into();
                    CordEvent::PutBack
                } else {
                    CordEvent::Nothing
                }
            }
        }
    }

    /// Time passes: `true` once, when the match has just ended.
    pub fn tick(&mut self, now: f64) -> bool {
        if self.phase == Phase::Running && self.start.is_some_and(|s| now >= s + self.duration_s) {
            self.phase = Phase::Ended;
            self.message = format!("match over: {} points", self.points);
            return true;
        }
        false
    }

    /// A final word once ended (the run's score came in).
    pub fn set_message(&mut self, message: String) {
        self.message = message;
    }

    /// The clock at `now`.
    pub fn snapshot(&self, now: f64) -> Snapshot {
        let remaining = self.remaining_s(now);
        Snapshot {
            phase: self.phase,
            colour: self.colour,
            start: self.start,
            duration_s: self.duration_s,
            elapsed_s: (self.duration_s - remaining).max(0.0),
            remaining_s: remaining,
            points: self.points,
            cord_pulls: self.pulls_seen,
            message: self.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cord(pulled: bool, pulls: u8, since_pull_ms: u32) -> Cord {
        Cord {
            pulled,
            pulls,
            since_pull_ms,
        }
    }

    #[test]
    fn the_cord_starts_the_clock_at_the_pull_and_time_ends_it() {
        let mut c = MatchClock::default();
        assert_eq!(c.phase(), Phase::Idle);
        c.arm(Colour::Yellow, 100.0, true, 10.0);
        assert_eq!(c.phase(), Phase::Waiting);
        assert_eq!(c.on_cord(cord(false, 0, 0), 10.5), CordEvent::Nothing);
        assert_eq!(c.remaining_s(11.0), 100.0, "not started");
        // Pulled at 12.0, reported at 12.25.
        assert_eq!(
            c.on_cord(cord(true, 1, 250), 12.25),
            CordEvent::Started(12.0)
        );
        assert_eq!(c.phase(), Phase::Running);
        let s = c.snapshot(62.0);
        assert_eq!(
            (s.elapsed_s, s.remaining_s, s.colour),
            (50.0, 50.0, Colour::Yellow)
        );
        // Reports of the same pull change nothing.
        assert_eq!(c.on_cord(cord(true, 1, 300), 12.3), CordEvent::Nothing);
        assert!(!c.tick(111.9));
        c.add_points(34.0);
        assert!(c.tick(112.0));
        assert!(!c.tick(113.0), "once");
        let s = c.snapshot(113.0);
        assert_eq!(
            (s.phase, s.remaining_s, s.elapsed_s),
            (Phase::Ended, 0.0, 100.0)
        );
        assert_eq!(s.message, "match over: 34 points");
        assert_eq!(c.on_cord(cord(true, 2, 0), 114.0), CordEvent::Nothing);
    }

    #[test]
    fn a_cord_pulled_twice_is_counted_and_ignored() {
        let mut c = MatchClock::default();
        c.arm(Colour::Blue, 100.0, true, 0.0);
        assert_eq!(c.on_cord(cord(true, 3, 0), 1.0), CordEvent::Started(1.0));
        assert_eq!(c.on_cord(cord(false, 3, 0), 5.0), CordEvent::PutBack);
        assert_eq!(c.on_cord(cord(true, 4, 0), 6.0), CordEvent::PulledAgain);
        assert_eq!(c.start(), Some(1.0), "the match keeps its start");
        assert_eq!(c.counters().pulled_again, 1);
        assert_eq!(c.counters().put_back, 1);
        assert_eq!(c.snapshot(7.0).cord_pulls, 2);
    }

    #[test]
    fn a_cord_out_before_arming_does_not_start_the_match() {
        let mut c = MatchClock::default();
        c.arm(Colour::Blue, 100.0, true, 50.0);
        // Pulled 20 s ago (before the arming at 50).
        assert_eq!(
            c.on_cord(cord(true, 1, 20_000), 51.0),
            CordEvent::OutBeforeArming
        );
        assert_eq!(
            c.on_cord(cord(true, 1, 20_100), 51.1),
            CordEvent::Nothing,
            "said once"
        );
        assert_eq!(c.phase(), Phase::Waiting);
        assert_eq!(c.on_cord(cord(false, 1, 0), 52.0), CordEvent::Nothing);
        assert_eq!(c.on_cord(cord(true, 2, 0), 53.0), CordEvent::Started(53.0));
        // A report lost on the way: the first one seen is 400 ms after the pull, still
        // after the arming, so it starts the clock at the pull.
        c.arm(Colour::Blue, 100.0, true, 60.0);
        assert_eq!(
            c.on_cord(cord(true, 3, 400), 60.9),
            CordEvent::Started(60.5)
        );
    }

    #[test]
    fn without_the_cord_the_goal_starts_it_and_a_cancel_disarms() {
        let mut c = MatchClock::default();
        c.arm(Colour::Blue, 4.0, false, 3.0);
        assert_eq!((c.phase(), c.start()), (Phase::Running, Some(3.0)));
        c.disarm("cancelled");
        assert_eq!(c.phase(), Phase::Idle);
        assert!(!c.tick(100.0));
        // Arming again after an end: a new match.
        c.arm(Colour::Blue, 4.0, false, 200.0);
        assert!(c.tick(204.0));
        c.arm(Colour::Blue, 4.0, true, 300.0);
        assert_eq!(c.phase(), Phase::Waiting);
        assert_eq!(c.snapshot(301.0).points, 0.0);
    }
}
