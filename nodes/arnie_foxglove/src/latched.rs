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

#[cfg(test)]
mod tests {
    use super::*;

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
