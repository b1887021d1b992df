//! `--snapshot-mode`: rosbag2's circular message cache.
//!
//! Messages are kept in memory, newest last, up to `--max-cache-size` bytes of message
//! data; the oldest leave to make room. Nothing is written until `~/snapshot` is called,
//! which hands the whole buffer over to be written and starts an empty one. At exit, a
//! buffer no snapshot asked for is not written (as rosbag2: "we should not dump buffer on
//! exit if snapshot has not been triggered"). A message larger than the whole cache is
//! refused. Every message that leaves without being written is counted here.

use std::collections::VecDeque;

/// One cached message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached<T> {
    /// The caller's topic handle.
    pub topic: T,
    /// Receive time (the bag's log time) [ns].
    pub recv_ns: u64,
    /// Publisher's send time [ns] (0: unknown).
    pub send_ns: u64,
    /// The serialized message.
    pub data: Vec<u8>,
}

/// What became of a pushed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// Kept; this many older messages left to make room.
    Kept {
        /// Older messages pushed out.
        evicted: usize,
    },
    /// Larger than the whole cache: not kept (the caller counts it lost).
    TooLarge,
}

/// The circular cache of snapshot mode.
#[derive(Debug)]
pub struct SnapshotCache<T> {
    max_bytes: usize,
    bytes: usize,
    buffer: VecDeque<Cached<T>>,
    /// Messages pushed out by newer ones, over the cache's life.
    pub evicted: u64,
    /// Messages refused for being larger than the cache.
    pub too_large: u64,
}

impl<T> SnapshotCache<T> {
    /// A cache of `max_bytes` bytes of message data (> 0).
    pub fn new(max_bytes: usize) -> Self {
        SnapshotCache {
            max_bytes,
            bytes: 0,
            buffer: VecDeque::new(),
            evicted: 0,
            too_large: 0,
        }
    }

    /// Adds a message, pushing out the oldest ones until it fits.
    pub fn push(&mut self, m: Cached<T>) -> Pushed {
        let size = m.data.len();
        if size > self.max_bytes {
            self.too_large += 1;
            return Pushed::TooLarge;
        }
        let mut evicted = 0;
        while self.bytes > self.max_bytes - size {
            match self.buffer.pop_front() {
                Some(old) => {
                    self.bytes -= old.data.len();
                    evicted += 1;
                }
                None => break,
            }
        }
        self.evicted += evicted as u64;
        self.bytes += size;
        self.buffer.push_back(m);
        Pushed::Kept { evicted }
    }

    /// `~/snapshot`: every cached message, oldest first; the cache starts empty.
    pub fn take(&mut self) -> Vec<Cached<T>> {
        self.bytes = 0;
        self.buffer.drain(..).collect()
    }

    /// Messages now cached.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Bytes of message data now cached.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: u64, n: usize) -> Cached<u8> {
        Cached {
            topic: 0,
            recv_ns: t,
            send_ns: t,
            data: vec![0; n],
        }
    }

    #[test]
    fn keeps_the_newest_bytes_and_counts_what_leaves() {
        let mut c = SnapshotCache::new(100);
        for t in 0..10 {
            assert_eq!(
                c.push(m(t, 30)),
                Pushed::Kept {
                    evicted: usize::from(t >= 3)
                }
            );
        }
        // 3 x 30 bytes fit in 100; the 7 oldest left.
        assert_eq!((c.len(), c.bytes(), c.evicted), (3, 90, 7));
        let snap = c.take();
        assert_eq!(
            snap.iter().map(|m| m.recv_ns).collect::<Vec<_>>(),
            [7, 8, 9]
        );
        assert!(c.is_empty() && c.bytes() == 0);
        // Exactly the cache's size fits; one byte more is refused and counted.
        assert_eq!(c.push(m(20, 100)), Pushed::Kept { evicted: 0 });
        assert_eq!(c.push(m(21, 101)), Pushed::TooLarge);
        assert_eq!(c.too_large, 1);
        assert_eq!(c.push(m(22, 1)), Pushed::Kept { evicted: 1 });
        assert_eq!(c.take().len(), 1);
    }
}
