//! Search: [`Planner`] owns a padded copy of the map and per-cell search buffers that
//! are reused across queries (a generation counter marks which entries are current, so
//! no query clears or allocates anything proportional to the map). A* and Dijkstra are
//! here, Jump Point Search in [`jps`].

mod bits;
mod heap;
mod jps;

use self::bits::BitRows;
use self::heap::{Entry, OpenList};
use crate::error::PlanError;
use crate::grid::{Cell, Grid};

/// √2, the cost of a diagonal step.
pub const SQRT2: f64 = std::f64::consts::SQRT_2;

/// Which search to run. All three return paths of the same (optimal) length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Jump Point Search (no corner cutting). Only with
    /// [`DiagonalMode::OnlyWhenNoObstacles`]; other modes give `InvalidRequest`.
    #[default]
    Jps,
    /// A* with a binary heap and the octile (Manhattan when 4-connected) heuristic.
    AStar,
    /// Plain Dijkstra (A* with a zero heuristic), for cross-checking.
    Dijkstra,
}

/// When a diagonal step is allowed (PathFinding.js `DiagonalMovement` names). The
/// target cell must always be free; the modes differ in the two orthogonal cells the
/// diagonal passes between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DiagonalMode {
    /// Always (may squeeze between two obstacles touching at a corner).
    Always,
    /// When at least one of the two orthogonal cells is free.
    IfAtMostOneObstacle,
    /// Only when both orthogonal cells are free: no corner cutting (Moving AI rule).
    #[default]
    OnlyWhenNoObstacles,
    /// Never: 4-connected.
    Never,
}

impl DiagonalMode {
    /// Whether a diagonal step is allowed given whether its two orthogonal cells are free.
    #[inline]
    pub fn allows(self, free_a: bool, free_b: bool) -> bool {
        match self {
            DiagonalMode::Always => true,
            DiagonalMode::IfAtMostOneObstacle => free_a || free_b,
            DiagonalMode::OnlyWhenNoObstacles => free_a && free_b,
            DiagonalMode::Never => false,
        }
    }
}

/// A found path.
#[derive(Clone, Debug, PartialEq)]
pub struct PathResult {
    /// Every cell from start to goal inclusive, each a legal step from the previous one.
    pub cells: Vec<Cell>,
    /// Length in cells (straight step 1, diagonal √2). Metres: × `resolution_m`.
    pub length_cells: f64,
    /// Cells expanded (taken off the open list) by the search.
    pub expansions: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Heuristic {
    Octile,
    Manhattan,
    Zero,
}

/// A path planner for one map. Build once per map; each [`Planner::plan`] reuses the
/// buffers (per cell: a generation stamp, `g` and a parent; the open list's capacity).
pub struct Planner {
    grid: Grid,
    /// Padded width (map width + 2); the padding ring is blocked, so neighbour reads
    /// never leave the array.
    pw: usize,
    free: Vec<bool>,
    /// Blocked bits by row and by column (the transpose), for 64-cell jumps.
    rows: BitRows,
    cols: BitRows,
    /// Per-cell stamp: `open_gen` = open in this query, `open_gen + 1` = closed, else
    /// unseen (so `g`/`parent` are stale). Kept small (2 bytes) and apart from `g` and
    /// `parent`: it is read for every successor, and a smaller array misses cache less.
    gens: Vec<u16>,
    /// Cost from the start, valid when the stamp is current.
    g: Vec<f64>,
    /// Previous cell (JPS: previous jump point), valid when the stamp is current.
    parent: Vec<u32>,
    heap: OpenList,
    /// Cells whose `f` equals the `f` being expanded: they are expanded next without
    /// touching the heap (any order among minimal-`f` cells keeps A* optimal; LIFO
    /// expands the deepest first). Kept across queries like the heap.
    stack: Vec<u32>,
    /// `f` of the cell being expanded.
    cur_f: f64,
    /// Even; cells with `gen == open_gen` are open, `open_gen + 1` closed, else unseen.
    open_gen: u16,
}

impl Planner {
    /// A planner for `grid` (copied). Allocates the per-cell buffers once.
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width(), grid.height());
        let pw = w + 2;
        let mut free = vec![false; pw * (h + 2)];
        for (y, row) in grid.blocked_cells().chunks(w).enumerate() {
            let base = (y + 1) * pw + 1;
            for (x, b) in row.iter().enumerate() {
                free[base + x] = !b;
            }
        }
        let n = free.len();
        let rows = BitRows::new(h + 2, pw, |r, i| !free[r * pw + i]);
        let cols = BitRows::new(pw, h + 2, |c, j| !free[j * pw + c]);
        Planner {
            grid: grid.clone(),
            pw,
            free,
            rows,
            cols,
            gens: vec![0; n],
            g: vec![0.0; n],
            parent: vec![0; n],
            heap: OpenList::default(),
            stack: Vec::new(),
            cur_f: 0.0,
            open_gen: 0,
        }
    }

    /// The map this planner searches.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Shortest path from `start` to `goal`, both inclusive, under `diag`.
    ///
    /// # Errors
    /// [`PlanError::StartOutside`], [`PlanError::GoalOutside`], [`PlanError::StartBlocked`],
    /// [`PlanError::GoalBlocked`] (checked in that order), [`PlanError::InvalidRequest`]
    /// for JPS with another mode than `OnlyWhenNoObstacles`, [`PlanError::NoPath`].
    pub fn plan(
        &mut self,
        start: Cell,
        goal: Cell,
        algo: Algorithm,
        diag: DiagonalMode,
    ) -> Result<PathResult, PlanError> {
        if self.grid.width() == 0 || self.grid.height() == 0 {
            return Err(PlanError::NoMap);
        }
        if !self.grid.contains(start) {
            return Err(PlanError::StartOutside(start));
        }
        if !self.grid.contains(goal) {
            return Err(PlanError::GoalOutside(goal));
        }
        if self.grid.is_blocked(start) {
            return Err(PlanError::StartBlocked(start));
        }
        if self.grid.is_blocked(goal) {
            return Err(PlanError::GoalBlocked(goal));
        }
        if algo == Algorithm::Jps && diag != DiagonalMode::OnlyWhenNoObstacles {
            return Err(PlanError::InvalidRequest(format!(
                "Jump Point Search supports only DiagonalMode::OnlyWhenNoObstacles, not {diag:?}"
            )));
        }
        self.next_generation();
        let (s, g) = (self.index(start), self.index(goal));
        let expansions = match algo {
            Algorithm::Jps => self.jps(s, g),
            Algorithm::AStar => {
                let h = if diag == DiagonalMode::Never {
                    Heuristic::Manhattan
                } else {
                    Heuristic::Octile
                };
                self.astar(s, g, diag, h)
            }
            Algorithm::Dijkstra => self.astar(s, g, diag, Heuristic::Zero),
        };
        if self.gens[g] != self.open_gen + 1 {
            return Err(PlanError::NoPath { expansions });
        }
        let cells = self.trace(s, g);
        let length_cells = crate::simplify::path_length(&cells);
        Ok(PathResult {
            cells,
            length_cells,
            expansions,
        })
    }

    fn next_generation(&mut self) {
        self.heap.clear();
        self.stack.clear();
        self.cur_f = 0.0;
        if self.open_gen >= u16::MAX - 3 {
            // Once every 32 767 queries: forget all stamps.
            self.gens.fill(0);
            self.open_gen = 0;
        }
        self.open_gen += 2;
    }

    #[inline]
    fn index(&self, c: Cell) -> usize {
        (c.y as usize + 1) * self.pw + c.x as usize + 1
    }

    #[inline]
    fn cell(&self, idx: usize) -> Cell {
        Cell::new((idx % self.pw) as i32 - 1, (idx / self.pw) as i32 - 1)
    }

    /// Opens `idx` with cost `g` from `parent` unless it is closed or already cheaper.
    #[inline(always)]
    fn relax(&mut self, idx: usize, parent: usize, g: f64, h: f64) {
        let open = self.open_gen;
        let stamp = self.gens[idx];
        if stamp == open + 1 || (stamp == open && self.g[idx] <= g) {
            return;
        }
        self.gens[idx] = open;
        self.g[idx] = g;
        self.parent[idx] = parent as u32;
        let f = g + h;
        // With a consistent heuristic f never drops below the expanded cell's f, so
        // `f <= cur_f` means equal (up to rounding): this cell is a minimum too.
        if f <= self.cur_f {
            self.stack.push(idx as u32);
        } else {
            self.heap.push(Entry::new(f, g, idx));
        }
    }

    /// Pops the next open cell to expand, marking it closed; `None` when the list is
    /// empty. An entry left behind when a cell's cost improved pops after the better
    /// one (same heuristic, higher `f`) and finds the cell closed.
    #[inline(always)]
    fn pop(&mut self) -> Option<(usize, f64)> {
        loop {
            let idx = match self.stack.pop() {
                Some(idx) => idx as usize,
                None => {
                    let e = self.heap.pop()?;
                    self.cur_f = f64::from_bits(e.key);
                    e.idx as usize
                }
            };
            if self.gens[idx] == self.open_gen {
                self.gens[idx] = self.open_gen + 1;
                // The next cell to expand is known now: start loading its state while
                // this one is expanded (on large maps these loads miss cache).
                if let Some(next) = self
                    .stack
                    .last()
                    .map(|&i| i as usize)
                    .or_else(|| self.heap.peek_idx())
                {
                    self.prefetch_state(next);
                }
                return Some((idx, self.g[idx]));
            }
        }
    }

    /// Asks the CPU to start loading cell `idx`'s stamp, `g` and parent (a hint: no
    /// effect on results).
    #[inline]
    fn prefetch_state(&self, idx: usize) {
        prefetch(&self.gens, idx);
        prefetch(&self.g, idx);
        prefetch(&self.parent, idx);
    }

    fn start_search(&mut self, s: usize) {
        self.gens[s] = self.open_gen;
        self.g[s] = 0.0;
        self.parent[s] = s as u32;
        self.heap.push(Entry::new(0.0, 0.0, s));
    }

    /// A* (Dijkstra with `Heuristic::Zero`); each cell expanded at most once (the
    /// heuristics are consistent). Returns the number of expansions.
    fn astar(&mut self, s: usize, goal: usize, diag: DiagonalMode, heur: Heuristic) -> u64 {
        let pw = self.pw as isize;
        let goal_c = self.cell(goal);
        let h = move |x: i32, y: i32| -> f64 {
            let dx = f64::from((x - goal_c.x).abs());
            let dy = f64::from((y - goal_c.y).abs());
            match heur {
                Heuristic::Octile => dx.max(dy) + (SQRT2 - 1.0) * dx.min(dy),
                Heuristic::Manhattan => dx + dy,
                Heuristic::Zero => 0.0,
            }
        };
        self.start_search(s);
        let mut expansions = 0;
        while let Some((idx, g)) = self.pop() {
            expansions += 1;
            if idx == goal {
                break;
            }
            let c = self.cell(idx);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = idx.wrapping_add_signed(dx + dy * pw);
                if self.free[n] {
                    self.relax(n, idx, g + 1.0, h(c.x + dx as i32, c.y + dy as i32));
                }
            }
            if diag == DiagonalMode::Never {
                continue;
            }
            for (dx, dy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                let n = idx.wrapping_add_signed(dx + dy * pw);
                if self.free[n]
                    && diag.allows(
                        self.free[idx.wrapping_add_signed(dx)],
                        self.free[idx.wrapping_add_signed(dy * pw)],
                    )
                {
                    self.relax(n, idx, g + SQRT2, h(c.x + dx as i32, c.y + dy as i32));
                }
            }
        }
        expansions
    }

    /// The cells from `s` to `goal` following parents; straight or diagonal runs
    /// between two recorded cells (JPS jump points) are filled in.
    fn trace(&self, s: usize, goal: usize) -> Vec<Cell> {
        let mut points = vec![self.cell(goal)];
        let mut idx = goal;
        while idx != s {
            idx = self.parent[idx] as usize;
            points.push(self.cell(idx));
        }
        points.reverse();
        let mut cells = Vec::with_capacity(points.len());
        cells.push(points[0]);
        for w in points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (sx, sy) = ((b.x - a.x).signum(), (b.y - a.y).signum());
            let mut c = a;
            while c != b {
                c = Cell::new(c.x + sx, c.y + sy);
                cells.push(c);
            }
        }
        cells
    }
}

/// Prefetch hint for `v[i]` (nothing when out of range or not on x86-64).
#[inline(always)]
fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(r) = v.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch only hints the cache; `r` is a valid reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(
        map: &str,
        s: (i32, i32),
        g: (i32, i32),
        algo: Algorithm,
        diag: DiagonalMode,
    ) -> Result<PathResult, PlanError> {
        Planner::new(&Grid::from_ascii(map).unwrap()).plan(s.into(), g.into(), algo, diag)
    }

    #[test]
    fn goes_around_a_wall() {
        let map = ".#.\n.#.\n...";
        for algo in [Algorithm::Jps, Algorithm::AStar, Algorithm::Dijkstra] {
            let r = plan(map, (0, 0), (2, 0), algo, DiagonalMode::OnlyWhenNoObstacles).unwrap();
            // Down, across, up: no corner cutting around (1, 1).
            assert_eq!(r.cells.len(), 7, "{algo:?}: {:?}", r.cells);
            assert_eq!(r.length_cells, 6.0);
            assert_eq!(r.cells.first(), Some(&Cell::new(0, 0)));
            assert_eq!(r.cells.last(), Some(&Cell::new(2, 0)));
        }
        let r = plan(map, (0, 0), (2, 0), Algorithm::AStar, DiagonalMode::Always).unwrap();
        assert!((r.length_cells - (2.0 + 2.0 * SQRT2)).abs() < 1e-12);
        assert!(
            (r.length_cells
                - plan(
                    map,
                    (0, 0),
                    (2, 0),
                    Algorithm::AStar,
                    DiagonalMode::IfAtMostOneObstacle
                )
                .unwrap()
                .length_cells)
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn diagonal_modes_differ_on_a_squeeze() {
        // Two obstacles touching at a corner between (0,0) and (1,1).
        let map = ".#.\n#..\n...";
        let len = |diag| plan(map, (0, 0), (1, 1), Algorithm::AStar, diag).map(|r| r.length_cells);
        assert_eq!(len(DiagonalMode::Always), Ok(SQRT2));
        assert!(matches!(
            len(DiagonalMode::IfAtMostOneObstacle),
            Err(PlanError::NoPath { .. })
        ));
        assert!(matches!(
            len(DiagonalMode::Never),
            Err(PlanError::NoPath { .. })
        ));
        let map = ".#.\n...\n...";
        let len =
            |diag| plan(map, (0, 0), (1, 1), Algorithm::Dijkstra, diag).map(|r| r.length_cells);
        assert_eq!(len(DiagonalMode::IfAtMostOneObstacle), Ok(SQRT2));
        assert_eq!(len(DiagonalMode::OnlyWhenNoObstacles), Ok(2.0));
        assert_eq!(len(DiagonalMode::Never), Ok(2.0));
    }

    #[test]
    fn errors_are_values() {
        let map = ".#.\n.#.\n.#.";
        let d = DiagonalMode::default();
        let a = Algorithm::default();
        assert_eq!(
            plan(map, (-1, 0), (0, 0), a, d),
            Err(PlanError::StartOutside(Cell::new(-1, 0)))
        );
        assert_eq!(
            plan(map, (0, 0), (0, 3), a, d),
            Err(PlanError::GoalOutside(Cell::new(0, 3)))
        );
        assert_eq!(
            plan(map, (1, 0), (0, 0), a, d),
            Err(PlanError::StartBlocked(Cell::new(1, 0)))
        );
        assert_eq!(
            plan(map, (0, 0), (1, 2), a, d),
            Err(PlanError::GoalBlocked(Cell::new(1, 2)))
        );
        for algo in [Algorithm::Jps, Algorithm::AStar, Algorithm::Dijkstra] {
            assert!(matches!(
                plan(map, (0, 0), (2, 2), algo, d),
                Err(PlanError::NoPath { .. })
            ));
        }
        assert!(matches!(
            plan(map, (0, 0), (0, 2), a, DiagonalMode::Always),
            Err(PlanError::InvalidRequest(_))
        ));
        let r = plan(map, (0, 1), (0, 1), a, d).unwrap();
        assert_eq!((r.cells, r.length_cells), (vec![Cell::new(0, 1)], 0.0));
    }

    #[test]
    fn buffers_are_reused_across_queries() {
        let grid = Grid::from_ascii("....\n.##.\n....").unwrap();
        let mut p = Planner::new(&grid);
        let query = |p: &mut Planner| {
            p.plan(
                Cell::new(0, 0),
                Cell::new(3, 2),
                Algorithm::Jps,
                DiagonalMode::default(),
            )
            .unwrap()
        };
        let first = query(&mut p);
        let cap = p.heap.capacity();
        for _ in 0..100 {
            assert_eq!(query(&mut p), first);
        }
        assert_eq!(p.heap.capacity(), cap);
        // Generation wrap-around clears once and keeps working.
        p.open_gen = u16::MAX - 4;
        for _ in 0..3 {
            assert_eq!(
                p.plan(
                    Cell::new(0, 0),
                    Cell::new(3, 2),
                    Algorithm::AStar,
                    DiagonalMode::default()
                )
                .unwrap()
                .length_cells,
                first.length_cells
            );
        }
    }
}
