//! The open list: a min-heap of 16-byte entries with integer keys (cheaper to compare
//! than floats). Its storage is kept across queries.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An open-list entry: `key` = bits of `f` (monotone for `f >= 0`), `tie` orders equal
/// keys (smaller first; the planner stores the inverted bits of `g` so the deepest
/// entry wins ties), `idx` the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub key: u64,
    pub tie: u32,
    pub idx: u32,
}

impl Entry {
    /// An entry for cell `idx` with total estimate `f >= 0` and cost so far `g >= 0`.
    #[inline]
    pub fn new(f: f64, g: f64, idx: usize) -> Self {
        Entry {
            key: f.to_bits(),
            tie: !(g as f32).to_bits(),
            idx: idx as u32,
        }
    }

    #[cfg(test)]
    fn less(&self, other: &Entry) -> bool {
        (self.key, self.tie) < (other.key, other.tie)
    }
}

/// Min-heap over `(key, tie, idx)` packed into one `u128` (`key << 64 | tie << 32 |
/// idx`: one integer compare orders by key, then tie) on top of the standard binary
/// heap (whose pop sifts the hole to the bottom first: fewer comparisons than a
/// textbook sift-down).
#[derive(Default)]
pub(super) struct OpenList {
    items: BinaryHeap<Reverse<u128>>,
}

impl OpenList {
    pub fn clear(&mut self) {
        self.items.clear();
    }

    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.items.capacity()
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        self.items.push(Reverse(
            (u128::from(e.key) << 64) | (u128::from(e.tie) << 32) | u128::from(e.idx),
        ));
    }

    /// The cell of the entry [`OpenList::pop`] would return next.
    #[inline]
    pub fn peek_idx(&self) -> Option<usize> {
        self.items.peek().map(|Reverse(k)| *k as u32 as usize)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        self.items.pop().map(|Reverse(k)| Entry {
            key: (k >> 64) as u64,
            tie: (k >> 32) as u32,
            idx: k as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_then_tie_order() {
        let mut h = OpenList::default();
        let mut seed = 3u64;
        let mut all = Vec::new();
        for round in 0..5 {
            for i in 0..(50 * round + 7) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let f = ((seed >> 40) % 50) as f64 * 0.5;
                let g = ((seed >> 20) % 7) as f64;
                let e = Entry::new(f, g, i);
                all.push(e);
                h.push(e);
            }
            // Pop half, keep the rest for the next round.
            all.sort_by_key(|e| (e.key, e.tie));
            for _ in 0..all.len() / 2 {
                let got = h.pop().unwrap();
                let want = all.remove(0);
                assert_eq!((got.key, got.tie), (want.key, want.tie));
            }
        }
        while let Some(got) = h.pop() {
            let want = all.remove(0);
            assert_eq!((got.key, got.tie), (want.key, want.tie));
        }
        assert!(all.is_empty());
        assert!(
            Entry::new(1.0, 5.0, 0).less(&Entry::new(1.0, 2.0, 0)),
            "deeper first on ties"
        );
        assert!(Entry::new(1.0, 0.0, 0).less(&Entry::new(1.5, 9.0, 0)));
    }
}
