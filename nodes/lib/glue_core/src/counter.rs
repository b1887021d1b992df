//! One monotonic counter, shared between a node's tasks (`Arc<...>` of a struct of them).
//! `node_glue`'s `counters!` declares structs of them; a library without ROS uses the
//! same type, and a node publishes it on `/diagnostics` unchanged.
use std::sync::atomic::{AtomicU64, Ordering};

/// One monotonic counter (see the module doc).
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    /// The count so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::Counter;
    use std::sync::Arc;

    #[test]
    fn counts_from_every_thread() {
        let c = Arc::new(Counter::default());
        assert_eq!(c.get(), 0);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        c.inc();
                    }
                    c.add(5);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(c.get(), 4 * 1005);
    }
}
