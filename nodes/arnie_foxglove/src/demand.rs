//! Which topics clients want now, and who is storming.
//!
//! The SDK calls `on_subscribe`/`on_unsubscribe` once per client and channel (it drops
//! duplicates, and unsubscribes everything of a client that disconnects). [`Demand`]
//! counts them per topic; the ROS side reconciles its raw subscriptions with
//! [`Demand::wanted`] on its own loop, so a storm of thousands of subscribe/unsubscribe
//! pairs costs counter updates, not thousands of DDS readers.

use std::collections::{BTreeSet, HashMap};

use std::time::{Duration, Instant};

/// Client subscriptions per topic.
#[derive(Debug, Default)]
pub struct Demand {
    counts: HashMap<String, u32>,
}

/// What a subscription change did to a topic's demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The first client subscribed: the topic is wanted now.
    First,
    /// The last client unsubscribed: the topic is no longer wanted.
    Last,
    /// Some other client still (or already) subscribes.
    Same,
}

impl Demand {
    /// One more client subscription to `topic`.
    pub fn subscribe(&mut self, topic: &str) -> Change {
        let n = self.counts.entry(topic.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            Change::First
        } else {
            Change::Same
        }
    }

    /// One client subscription to `topic` less (an unknown one changes nothing).
    pub fn unsubscribe(&mut self, topic: &str) -> Change {
        match self.counts.get_mut(topic) {
            Some(n) if *n > 1 => {
                *n -= 1;
                Change::Same
            }
            Some(_) => {
                self.counts.remove(topic);
                Change::Last
            }
            None => Change::Same,
        }
    }

    /// Client subscriptions to `topic` now.
    pub fn count(&self, topic: &str) -> u32 {
        self.counts.get(topic).copied().unwrap_or(0)
    }

    /// The topics some client subscribes to now.
    pub fn wanted(&self) -> BTreeSet<String> {
        self.counts.keys().cloned().collect()
    }

    /// Forgets a topic that left the graph (its channel is closed, clients unsubscribed).
    pub fn forget(&mut self, topic: &str) {
        self.counts.remove(topic);
    }
}

/// Per-client subscribe/unsubscribe rate, in one-second windows.
#[derive(Debug)]
pub struct StormGuard<K> {
    limit: u32,
    clients: HashMap<K, (Instant, u32)>,
}

impl<K: std::hash::Hash + Eq> StormGuard<K> {
    /// At most `limit` operations per client and second are normal.
    pub fn new(limit: u32) -> Self {
        StormGuard {
            limit,
            clients: HashMap::new(),
        }
    }

    /// Records one operation of `client` at `now`; true when it is over the limit.
    pub fn op(&mut self, client: K, now: Instant) -> bool {
        let (start, n) = self.clients.entry(client).or_insert((now, 0));
        if now.duration_since(*start) >= Duration::from_secs(1) {
            *start = now;
            *n = 0;
        }
        *n = n.saturating_add(1);
        *n > self.limit
    }

    /// Forgets a client that left.
    pub fn forget(&mut self, client: &K) {
        self.clients.remove(client);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_last_subscription_of_a_topic() {
        let mut d = Demand::default();
        assert_eq!(d.subscribe("/a"), Change::First);
        assert_eq!(d.subscribe("/a"), Change::Same);
        assert_eq!(d.unsubscribe("/a"), Change::Same);
        assert_eq!(d.count("/a"), 1);
        assert_eq!(d.unsubscribe("/a"), Change::Last);
        assert_eq!(d.unsubscribe("/a"), Change::Same, "unknown: nothing");
        assert!(d.wanted().is_empty());
    }

    #[test]
    fn a_storm_nets_out_to_the_final_state() {
        let mut d = Demand::default();
        for _ in 0..5000 {
            d.subscribe("/a");
            d.unsubscribe("/a");
        }
        d.subscribe("/b");
        assert_eq!(
            d.wanted().into_iter().collect::<Vec<_>>(),
            vec!["/b".to_string()]
        );
    }

    #[test]
    fn storm_guard_counts_per_client_and_window() {
        let mut g = StormGuard::new(3);
        let t = Instant::now();
        let over: Vec<bool> = (0..5).map(|_| g.op(1, t)).collect();
        assert_eq!(over, [false, false, false, true, true]);
        assert!(!g.op(2, t), "another client has its own budget");
        assert!(!g.op(1, t + Duration::from_secs(1)), "a new window");
    }
}
