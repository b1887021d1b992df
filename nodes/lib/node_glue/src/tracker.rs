//! [`Tracker`]: the latest sample of a stream (an arm position, a robot pose) with the
//! time it arrived (the node's ROS clock, [`crate::time`]: with `use_sim_time`, `/clock`),
//! so every reader knows its age. One policy: the subscriber decides what is stored
//! (e.g. only finite values, counting the others); a reader asks for the latest sample
//! and its age, or only for a sample no older than a limit ([`Tracker::fresh`]).
//!
//! ```
//! use node_glue::tracker::Tracker;
//! use std::time::Duration;
//! let arm: Tracker<[f64; 3]> = Tracker::new();
//! assert!(arm.latest().is_none());
//! arm.set([0.1, 0.0, 0.2]);                      // in the subscription task
//! let s = arm.latest().unwrap();                 // value and arrival time
//! assert_eq!(s.value, [0.1, 0.0, 0.2]);
//! assert!(arm.fresh(Duration::from_secs(60)).is_some()); // only if no older than 60 s
//! ```
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One sample and when it arrived.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<T> {
    /// The value.
    pub value: T,
    /// Arrival, ROS time since the epoch ([`crate::time::now_duration`]).
    pub at: Duration,
}

impl<T> Sample<T> {
    /// The sample's age now (zero if the clock went back).
    pub fn age(&self) -> Duration {
        crate::time::now_duration().saturating_sub(self.at)
    }
}

/// The latest sample, shared between the subscription task and its readers (clone it).
#[derive(Debug)]
pub struct Tracker<T>(Arc<Mutex<Option<Sample<T>>>>);

impl<T> Clone for Tracker<T> {
    fn clone(&self) -> Self {
        Tracker(self.0.clone())
    }
}

impl<T: Copy> Default for Tracker<T> {
    fn default() -> Self {
        Tracker::new()
    }
}

impl<T: Copy> Tracker<T> {
    /// No sample yet.
    pub fn new() -> Self {
        Tracker(Arc::new(Mutex::new(None)))
    }

    /// Stores `value` as arrived now.
    pub fn set(&self, value: T) {
        self.set_at(value, crate::time::now_duration());
    }

    /// Stores `value` as arrived at `at` (ROS time since the epoch).
    pub fn set_at(&self, value: T, at: Duration) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Sample { value, at });
    }

    /// The latest sample, if any.
    pub fn latest(&self) -> Option<Sample<T>> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The latest value, if any (whatever its age).
    pub fn value(&self) -> Option<T> {
        self.latest().map(|s| s.value)
    }

    /// The latest value if it is no older than `max_age`.
    pub fn fresh(&self, max_age: Duration) -> Option<T> {
        self.latest()
            .filter(|s| s.age() <= max_age)
            .map(|s| s.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_freshness() {
        let t: Tracker<i32> = Tracker::new();
        assert_eq!(t.latest(), None);
        let now = crate::time::now_duration();
        t.clone()
            .set_at(7, now.saturating_sub(Duration::from_secs(10)));
        assert_eq!(t.value(), Some(7));
        assert!(t.latest().unwrap().age() >= Duration::from_secs(10));
        assert_eq!(t.fresh(Duration::from_secs(1)), None);
        assert_eq!(t.fresh(Duration::from_secs(3600)), Some(7));
        t.set(8);
        assert_eq!(t.fresh(Duration::from_secs(1)), Some(8));
    }
}
