//! Bit rows for block-based jumps (Harabor & Grastien 2014, "JPS+ / block-based"):
//! one bit per cell, set = blocked, so a straight jump tests 64 cells per step. The
//! planner keeps one `BitRows` for the rows and one for the columns (the transpose), so
//! vertical jumps are horizontal scans of the transpose.

/// Blocked bits of a padded grid, row by row, with 64 blocked bits of margin on each
/// side of every row so that a 64-bit window never leaves the array.
pub(super) struct BitRows {
    words_per_row: usize,
    data: Vec<u64>,
    /// Per cell, set where a forward scan stops: blocked, or a forced neighbour in an
    /// adjacent row (that cell free, the one behind it blocked). Precomputed from
    /// `data` so a scan reads 2 windows per 64 cells, not 6.
    stop_fwd: Vec<u64>,
    /// As `stop_fwd`, for backward scans ("behind" = the next higher index).
    stop_bwd: Vec<u64>,
}

/// Bit offset of padded column 0 within a row.
const MARGIN: usize = 64;

impl BitRows {
    /// `rows` rows of `len` cells; `blocked(r, i)` for each (padding rows/columns included).
    pub(super) fn new(rows: usize, len: usize, blocked: impl Fn(usize, usize) -> bool) -> Self {
        let words_per_row = (len + 2 * MARGIN) / 64 + 2;
        let mut data = vec![u64::MAX; rows * words_per_row];
        for r in 0..rows {
            for i in 0..len {
                if !blocked(r, i) {
                    let bit = i + MARGIN;
                    data[r * words_per_row + bit / 64] &= !(1u64 << (bit % 64));
                }
            }
        }
        let mut bits = BitRows {
            words_per_row,
            data,
            stop_fwd: Vec::new(),
            stop_bwd: Vec::new(),
        };
        let (mut fwd, mut bwd) = (
            vec![u64::MAX; rows * words_per_row],
            vec![u64::MAX; rows * words_per_row],
        );
        for r in 1..rows.saturating_sub(1) {
            for w in 1..words_per_row - 1 {
                let p = 64 * w;
                let here = bits.window(r, p);
                let (up, down) = (bits.window(r - 1, p), bits.window(r + 1, p));
                fwd[r * words_per_row + w] =
                    here | (!up & bits.window(r - 1, p - 1)) | (!down & bits.window(r + 1, p - 1));
                bwd[r * words_per_row + w] =
                    here | (!up & bits.window(r - 1, p + 1)) | (!down & bits.window(r + 1, p + 1));
            }
        }
        (bits.stop_fwd, bits.stop_bwd) = (fwd, bwd);
        bits
    }

    /// Whether cell `i` of row `r` is blocked (one bit: the bit rows are 8× smaller
    /// than a byte-per-cell map, so these reads stay in cache).
    #[inline]
    pub(super) fn blocked(&self, r: usize, i: usize) -> bool {
        let bit = i + MARGIN;
        (self.data[r * self.words_per_row + bit / 64] >> (bit % 64)) & 1 == 1
    }

    /// Bits `pos .. pos + 64` of row `r` (bit positions include the margin).
    #[inline]
    fn window(&self, r: usize, pos: usize) -> u64 {
        Self::window_in(&self.data, self.words_per_row, r, pos)
    }

    /// Bits `pos .. pos + 64` of row `r` of `data` (laid out as `BitRows::data`).
    #[inline]
    fn window_in(data: &[u64], words_per_row: usize, r: usize, pos: usize) -> u64 {
        let base = r * words_per_row + pos / 64;
        let s = pos % 64;
        let lo = data[base] >> s;
        if s == 0 {
            lo
        } else {
            lo | (data[base + 1] << (64 - s))
        }
    }

    /// Scans row `r` from cell `i` (exclusive) towards higher indices. The first stop is
    /// a blocked cell (→ `None`), the goal, or a cell with a forced neighbour in row
    /// `r - 1` or `r + 1` (that cell free, the one behind it blocked) (→ `Some(index)`).
    /// Row `r` must have a blocked cell ahead (the padding guarantees it).
    #[inline]
    pub(super) fn scan_forward(&self, r: usize, i: usize, goal: Option<usize>) -> Option<usize> {
        let mut p = i + 1 + MARGIN;
        loop {
            let here = self.window(r, p);
            let mut stop = Self::window_in(&self.stop_fwd, self.words_per_row, r, p);
            if let Some(g) = goal.map(|g| g + MARGIN) {
                if g >= p && g < p + 64 {
                    stop |= 1 << (g - p);
                }
            }
            if stop != 0 {
                let k = stop.trailing_zeros() as usize;
                let n = p + k - MARGIN;
                return if Some(n) != goal && (here >> k) & 1 == 1 {
                    None
                } else {
                    Some(n)
                };
            }
            p += 64;
        }
    }

    /// As [`BitRows::scan_forward`], towards lower indices.
    #[inline]
    pub(super) fn scan_backward(&self, r: usize, i: usize, goal: Option<usize>) -> Option<usize> {
        // Window `q .. q + 64` ends at the cell just before `i`.
        let mut q = i + MARGIN - 64;
        loop {
            let here = self.window(r, q);
            let mut stop = Self::window_in(&self.stop_bwd, self.words_per_row, r, q);
            if let Some(g) = goal.map(|g| g + MARGIN) {
                if g >= q && g < q + 64 {
                    stop |= 1 << (g - q);
                }
            }
            if stop != 0 {
                let k = 63 - stop.leading_zeros() as usize;
                let n = q + k - MARGIN;
                return if Some(n) != goal && (here >> k) & 1 == 1 {
                    None
                } else {
                    Some(n)
                };
            }
            q -= 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cell-by-cell reference for the scans.
    fn slow(b: &[Vec<bool>], r: usize, i: usize, fwd: bool, goal: Option<usize>) -> Option<usize> {
        let mut n = i;
        loop {
            n = if fwd { n + 1 } else { n - 1 };
            let behind = if fwd { n - 1 } else { n + 1 };
            if b[r][n] {
                return None;
            }
            if Some(n) == goal
                || (!b[r - 1][n] && b[r - 1][behind])
                || (!b[r + 1][n] && b[r + 1][behind])
            {
                return Some(n);
            }
        }
    }

    #[test]
    fn scans_match_cell_by_cell() {
        let mut seed = 7u64;
        for len in [3usize, 10, 63, 64, 65, 130, 300] {
            for density in [0u64, 3, 10, 40] {
                let rows = 5;
                let b: Vec<Vec<bool>> = (0..rows)
                    .map(|r| {
                        (0..len)
                            .map(|i| {
                                seed = seed
                                    .wrapping_mul(6364136223846793005)
                                    .wrapping_add(1442695040888963407);
                                r == 0
                                    || r == rows - 1
                                    || i == 0
                                    || i == len - 1
                                    || (seed >> 33) % 100 < density
                            })
                            .collect()
                    })
                    .collect();
                let bits = BitRows::new(rows, len, |r, i| b[r][i]);
                for r in 1..rows - 1 {
                    for i in 1..len - 1 {
                        if b[r][i] {
                            continue;
                        }
                        for goal in [None, Some(1), Some(len / 2), Some(len - 2)] {
                            let goal = goal.filter(|&g| !b[r][g]);
                            assert_eq!(
                                bits.scan_forward(r, i, goal),
                                slow(&b, r, i, true, goal),
                                "fwd len {len} r {r} i {i}"
                            );
                            assert_eq!(
                                bits.scan_backward(r, i, goal),
                                slow(&b, r, i, false, goal),
                                "back len {len} r {r} i {i}"
                            );
                        }
                    }
                }
            }
        }
    }
}
