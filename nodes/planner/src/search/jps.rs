//! Jump Point Search (Harabor & Grastien 2011) in its no-corner-cutting form (a
//! diagonal step needs both orthogonal neighbours free, as PathFinding.js's
//! `JPFMoveDiagonallyIfNoObstacles`). Diagonal moves have no forced neighbours; a
//! straight move has one where a side cell is free but the cell behind it is blocked.
//! Jumps run on the padded free-array, so they need no bounds checks.

use super::{Planner, SQRT2};

impl Planner {
    #[inline]
    fn free_at(&self, idx: usize, d: isize) -> bool {
        self.free[idx.wrapping_add_signed(d)]
    }

    /// Jumps along a straight line with step `d` (±1 horizontal, ±pw vertical) and
    /// side offset `side` (the perpendicular step). Returns the jump point and the
    /// number of steps.
    #[inline]
    fn jump_straight(&self, mut cur: usize, d: isize, side: isize, goal: usize) -> Option<(usize, u32)> {
        let mut steps = 0;
        loop {
            let n = cur.wrapping_add_signed(d);
            if !self.free[n] {
                return None;
            }
            steps += 1;
            if n == goal {
                return Some((n, steps));
            }
            if (self.free_at(n, side) && !self.free_at(n, side - d)) || (self.free_at(n, -side) && !self.free_at(n, -side - d)) {
                return Some((n, steps));
            }
            cur = n;
        }
    }

    /// Jumps diagonally by `dx` (±1) and `dy` (±pw); stops where a straight jump from
    /// the new cell along either component finds a jump point.
    #[inline]
    fn jump_diagonal(&self, mut cur: usize, dx: isize, dy: isize, goal: usize) -> Option<(usize, u32)> {
        let mut steps = 0;
        loop {
            if !(self.free_at(cur, dx) && self.free_at(cur, dy)) {
                return None;
            }
            let n = cur.wrapping_add_signed(dx + dy);
            if !self.free[n] {
                return None;
            }
            steps += 1;
            if n == goal
                || self.jump_straight(n, dx, dy, goal).is_some()
                || self.jump_straight(n, dy, dx, goal).is_some()
            {
                return Some((n, steps));
            }
            cur = n;
        }
    }

    /// JPS from `s` to `goal`; returns the number of expansions. Parents of jump
    /// points are jump points; `trace` fills in the straight/diagonal runs between.
    pub(super) fn jps(&mut self, s: usize, goal: usize) -> u64 {
        let pw = self.pw as isize;
        let goal_c = self.cell(goal);
        let octile = |x: i32, y: i32| -> f64 {
            let dx = f64::from((x - goal_c.x).abs());
            let dy = f64::from((y - goal_c.y).abs());
            dx.max(dy) + (SQRT2 - 1.0) * dx.min(dy)
        };
        self.start_search(s);
        let mut expansions = 0;
        // Directions as (dx, dy) in cells; at most 8 per expansion.
        let mut dirs: [(i32, i32); 8] = [(0, 0); 8];
        while let Some((idx, g)) = self.pop() {
            expansions += 1;
            if idx == goal {
                break;
            }
            let c = self.cell(idx);
            let parent = self.nodes[idx].parent as usize;
            let mut nd = 0;
            let mut push = |d: (i32, i32)| {
                dirs[nd] = d;
                nd += 1;
            };
            if parent == idx {
                for d in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)] {
                    push(d);
                }
            } else {
                let p = self.cell(parent);
                let (dx, dy) = ((c.x - p.x).signum(), (c.y - p.y).signum());
                let (sx, sy) = (dx as isize, dy as isize * pw);
                if dx != 0 && dy != 0 {
                    push((dx, 0));
                    push((0, dy));
                    push((dx, dy));
                } else if dy == 0 {
                    push((dx, 0));
                    for s in [-1, 1] {
                        if self.free_at(idx, s * pw) && !self.free_at(idx, s * pw - sx) {
                            push((0, s as i32));
                            push((dx, s as i32));
                        }
                    }
                } else {
                    push((0, dy));
                    for s in [-1, 1] {
                        if self.free_at(idx, s) && !self.free_at(idx, s - sy) {
                            push((s as i32, 0));
                            push((s as i32, dy));
                        }
                    }
                }
            }
            for &(dx, dy) in &dirs[..nd] {
                let (sx, sy) = (dx as isize, dy as isize * pw);
                let found = match (dx, dy) {
                    (_, 0) => self.jump_straight(idx, sx, pw, goal),
                    (0, _) => self.jump_straight(idx, sy, 1, goal),
                    _ => self.jump_diagonal(idx, sx, sy, goal),
                };
                if let Some((j, steps)) = found {
                    let step_cost = if dx != 0 && dy != 0 { SQRT2 } else { 1.0 };
                    let k = steps as i32;
                    let h = octile(c.x + dx * k, c.y + dy * k);
                    self.relax(j, idx, g + step_cost * f64::from(steps), h);
                }
            }
        }
        expansions
    }
}
