//! The last messages of latched (transient-local) topics, replayed to a client that
//! subscribes after they were published.

use std::collections::VecDeque;

/// The last `depth` messages of one topic, oldest first.
#[derive(Debug, Clone)]
pub struct LastMessages {
    depth: usize,
    messages: VecDeque<(u64, Vec<u8>)>,
}

impl LastMessages {
    /// Keeps at most `depth` (at least 1) messages.
    pub fn new(depth: usize) -> Self {
        LastMessages {
            depth: depth.max(1),
            messages: VecDeque::new(),
        }
    }

    /// Keeps `data` received at `log_time_ns`, dropping the oldest beyond the depth.
    pub fn push(&mut self, log_time_ns: u64, data: &[u8]) {
        if self.messages.len() == self.depth {
            self.messages.pop_front();
        }
        self.messages.push_back((log_time_ns, data.to_vec()));
    }

    /// The kept messages, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &(u64, Vec<u8>)> {
        self.messages.iter()
    }

    /// Number of kept messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

/// The most messages kept per topic, whatever the publishers offer.
pub const MAX_KEPT: usize = 100_000;

/// Messages to keep for a latched topic: the `latched_depth` parameter, raised to the sum
/// of the publishers' depths, so a client that subscribes late gets the last messages of
/// every publisher (foxglove_bridge kept one publisher's depth and lost the others').
/// A publisher offering depth 0 (keep all) counts as one message.
pub fn latched_keep(publisher_depths: &[u64], latched_depth: usize) -> usize {
    let sum = publisher_depths
        .iter()
        .fold(0u64, |acc, &d| acc.saturating_add(d.max(1)));
    usize::try_from(sum)
        .unwrap_or(MAX_KEPT)
        .max(latched_depth)
        .clamp(1, MAX_KEPT)
}

/// The bridge's own queue for one ROS subscription: the `subscription_queue` parameter,
/// raised so that a burst of every publisher's whole history fits.
pub fn queue_len(publisher_depths: &[u64], queue: usize) -> usize {
    latched_keep(publisher_depths, queue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_publisher_of_a_latched_topic_is_kept() {
        assert_eq!(latched_keep(&[1, 1, 1], 1), 3);
        assert_eq!(latched_keep(&[1, 1, 1], 10), 10);
        assert_eq!(latched_keep(&[5, 0], 1), 6);
        assert_eq!(latched_keep(&[u64::MAX, 2], 1), MAX_KEPT);
        assert_eq!(latched_keep(&[], 0), 1);
        assert_eq!(queue_len(&[10, 10], 1000), 1000);
        assert_eq!(queue_len(&[1000, 1000], 1000), 2000);
    }

    #[test]
    fn keeps_the_newest_depth_messages_in_order() {
        let mut l = LastMessages::new(2);
        assert!(l.is_empty());
        for i in 0..5u8 {
            l.push(u64::from(i), &[i]);
        }
        let kept: Vec<u8> = l.iter().map(|(_, d)| d[0]).collect();
        assert_eq!(kept, [3, 4]);
        assert_eq!(LastMessages::new(0).depth, 1);
    }
}
