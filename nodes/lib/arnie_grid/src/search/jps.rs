//! Jump Point Search (Harabor & Grastien 2011) in its no-corner-cutting form (a
//! diagonal step needs both orthogonal neighbours free, as PathFinding.js's
//! `JPFMoveDiagonallyIfNoObstacles`). Diagonal moves have no forced neighbours; a
//! straight move has one where a side cell is free but the cell behind it is blocked.
//! Straight jumps scan 64 cells at a time on bit rows ([`super::bits`]); all
//! coordinates here are padded (the map's cell (0, 0) is (1, 1)).

use super::{Planner, SQRT2};

impl Planner {
    #[inline]
    fn free_xy(&self, x: usize, y: usize) -> bool {
        !self.rows.blocked(y, x)
    }

    /// Horizontal jump from (x, y) by `dx`: the jump point's x.
    #[inline]
    fn jump_h(&self, x: usize, y: usize, dx: isize, goal: (usize, usize)) -> Option<usize> {
        let g = (goal.1 == y).then_some(goal.0);
        if dx > 0 {
            self.rows.scan_forward(y, x, g)
        } else {
            self.rows.scan_backward(y, x, g)
        }
    }

    /// Vertical jump from (x, y) by `dy`: the jump point's y.
    #[inline]
    fn jump_v(&self, x: usize, y: usize, dy: isize, goal: (usize, usize)) -> Option<usize> {
        let g = (goal.0 == x).then_some(goal.1);
        if dy > 0 {
            self.cols.scan_forward(x, y, g)
        } else {
            self.cols.scan_backward(x, y, g)
        }
    }

    /// Diagonal jump; stops where a straight jump along either component finds a jump
    /// point. Returns the jump point and the number of steps.
    #[inline]
    fn jump_d(
        &self,
        mut x: usize,
        mut y: usize,
        dx: isize,
        dy: isize,
        goal: (usize, usize),
    ) -> Option<(usize, usize, usize)> {
        let mut steps = 0;
        loop {
            let (nx, ny) = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
            if !(self.free_xy(nx, y) && self.free_xy(x, ny) && self.free_xy(nx, ny)) {
                return None;
            }
            (x, y) = (nx, ny);
            steps += 1;
            if (x, y) == goal
                || self.jump_h(x, y, dx, goal).is_some()
                || self.jump_v(x, y, dy, goal).is_some()
            {
                return Some((x, y, steps));
            }
        }
    }

    /// JPS from `s` to `goal` (padded indices); returns the number of expansions.
    /// Parents of jump points are jump points; `trace` fills in the runs between.
    pub(super) fn jps(&mut self, s: usize, goal: usize) -> u64 {
        let pw = self.pw;
        let gxy = (goal % pw, goal / pw);
        let octile = |x: usize, y: usize| -> f64 {
            let dx = x.abs_diff(gxy.0) as f64;
            let dy = y.abs_diff(gxy.1) as f64;
            dx.max(dy) + (SQRT2 - 1.0) * dx.min(dy)
        };
        // Division by `pw` as a multiply (Lemire, Kaser & Kurz 2019: exact for 32-bit
        // dividends, and indices fit in 32 bits): a hardware divide costs ~25 cycles
        // and each expansion needs two.
        let magic = u64::MAX / pw as u64 + 1;
        let xy = move |i: usize| -> (usize, usize) {
            let y = ((u128::from(i as u32) * u128::from(magic)) >> 64) as usize;
            (i - y * pw, y)
        };
        self.start_search(s);
        let mut expansions = 0;
        let mut dirs = [(0isize, 0isize); 8];
        let mut jumps = [(0usize, 0.0f64, 0.0f64); 8];
        while let Some((idx, g)) = self.pop() {
            expansions += 1;
            if idx == goal {
                break;
            }
            let (x, y) = xy(idx);
            let parent = self.parent[idx] as usize;
            let mut nd = 0;
            let mut push = |d: (isize, isize)| {
                dirs[nd] = d;
                nd += 1;
            };
            if parent == idx {
                for d in [
                    (1, 0),
                    (-1, 0),
                    (0, 1),
                    (0, -1),
                    (1, 1),
                    (-1, 1),
                    (1, -1),
                    (-1, -1),
                ] {
                    push(d);
                }
            } else {
                let (px, py) = xy(parent);
                let dx = (x as isize - px as isize).signum();
                let dy = (y as isize - py as isize).signum();
                if dx != 0 && dy != 0 {
                    push((dx, 0));
                    push((0, dy));
                    push((dx, dy));
                } else if dy == 0 {
                    push((dx, 0));
                    let behind = x.wrapping_add_signed(-dx);
                    for s in [-1, 1] {
                        let side = y.wrapping_add_signed(s);
                        if self.free_xy(x, side) && !self.free_xy(behind, side) {
                            push((0, s));
                            push((dx, s));
                        }
                    }
                } else {
                    push((0, dy));
                    let behind = y.wrapping_add_signed(-dy);
                    for s in [-1, 1] {
                        let side = x.wrapping_add_signed(s);
                        if self.free_xy(side, y) && !self.free_xy(side, behind) {
                            push((s, 0));
                            push((s, dy));
                        }
                    }
                }
            }
            // All jumps first, then all relaxations: each found jump point's state is
            // prefetched while the remaining jumps scan (bit rows only, in cache).
            let mut nj = 0;
            for &(dx, dy) in &dirs[..nd] {
                let found = match (dx, dy) {
                    (_, 0) => self
                        .jump_h(x, y, dx, gxy)
                        .map(|jx| (jx, y, jx.abs_diff(x), 1.0)),
                    (0, _) => self
                        .jump_v(x, y, dy, gxy)
                        .map(|jy| (x, jy, jy.abs_diff(y), 1.0)),
                    _ => self
                        .jump_d(x, y, dx, dy, gxy)
                        .map(|(jx, jy, n)| (jx, jy, n, SQRT2)),
                };
                if let Some((jx, jy, steps, step_cost)) = found {
                    let j = jy * pw + jx;
                    super::prefetch(&self.gens, j);
                    super::prefetch(&self.g, j);
                    jumps[nj] = (j, g + step_cost * steps as f64, octile(jx, jy));
                    nj += 1;
                }
            }
            for &(j, gj, h) in &jumps[..nj] {
                self.relax(j, idx, gj, h);
            }
        }
        expansions
    }
}
