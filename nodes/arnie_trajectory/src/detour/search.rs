//! A* on the grid graph (module doc of [`super`], "Method", step 3).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::SQRT_2;
use std::hash::{BuildHasherDefault, Hasher};

use nalgebra::Point3;

use super::geometry::Checker;
use super::{invalid, Workspace, MAX_GRID_CELLS};
use crate::error::TrajectoryError;

/// A multiplicative hash for the packed cell keys (no new dependency for FxHash).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type KeyMap = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

const SQRT_3: f64 = 1.732_050_807_568_877_2;
const NO_PARENT: u32 = u32::MAX;
const NO_NODE: u32 = u32::MAX;
/// Grids up to this many cells index their nodes in a dense array, larger ones in a map.
const DENSE_CELLS: u64 = 1 << 18;

/// Cell key → node.
enum NodeIndex {
    Dense(Vec<u32>),
    Sparse(KeyMap),
}

impl NodeIndex {
    fn new(cells: u64) -> Self {
        if cells <= DENSE_CELLS {
            Self::Dense(vec![NO_NODE; cells as usize])
        } else {
            Self::Sparse(KeyMap::default())
        }
    }
    fn get(&self, key: u64) -> Option<u32> {
        match self {
            Self::Dense(v) => Some(v[key as usize]).filter(|&i| i != NO_NODE),
            Self::Sparse(m) => m.get(&key).copied(),
        }
    }
    fn insert(&mut self, key: u64, node: u32) {
        match self {
            Self::Dense(v) => v[key as usize] = node,
            Self::Sparse(m) => {
                m.insert(key, node);
            }
        }
    }
}

struct Node {
    point: Point3<f64>,
    cell: Option<[i64; 3]>,
    g: f64,
    parent: u32,
    closed: bool,
    /// `Checker::slack` of `point`, computed when the node is expanded.
    slack: f64,
}

#[derive(PartialEq)]
struct Open {
    f: f64,
    g: f64,
    node: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Smallest f first; among equal f, the deeper (larger g) first.
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub(super) struct Grid {
    origin: Point3<f64>,
    pub(super) resolution: f64,
    dims: [i64; 3],
    cells: u64,
}

impl Grid {
    /// The lattice `min + inset + resolution · (i, j, k)` inside the workspace, where
    /// `inset = min(inset_mm, half the workspace's size)` per axis.
    pub(super) fn new(
        workspace: &Workspace,
        resolution: f64,
        inset_mm: f64,
    ) -> Result<Self, TrajectoryError> {
        let mut dims = [0i64; 3];
        let mut cells = 1u64;
        let mut origin = workspace.min_mm;
        for (i, dim) in dims.iter_mut().enumerate() {
            let size = workspace.max_mm[i] - workspace.min_mm[i];
            let inset = inset_mm.min(size / 2.0);
            origin[i] += inset;
            let n = ((size - 2.0 * inset) / resolution).floor() + 1.0;
            if !n.is_finite() || n > MAX_GRID_CELLS as f64 {
                cells = u64::MAX;
                break;
            }
            *dim = n as i64;
            cells = cells.saturating_mul(n as u64);
        }
        if cells > MAX_GRID_CELLS {
            return Err(invalid(
                "detour_resolution_mm",
                format!("{resolution} mm makes more than {MAX_GRID_CELLS} cells in the workspace"),
            ));
        }
        Ok(Self {
            origin,
            resolution,
            dims,
            cells,
        })
    }

    fn point(&self, c: [i64; 3]) -> Point3<f64> {
        Point3::new(
            self.origin.x + self.resolution * c[0] as f64,
            self.origin.y + self.resolution * c[1] as f64,
            self.origin.z + self.resolution * c[2] as f64,
        )
    }

    pub(super) fn nearest(&self, p: Point3<f64>) -> [i64; 3] {
        let mut c = [0i64; 3];
        for (i, v) in c.iter_mut().enumerate() {
            let k = ((p[i] - self.origin[i]) / self.resolution).round();
            *v = (k.max(0.0) as i64).min(self.dims[i] - 1);
        }
        c
    }

    fn inside(&self, c: [i64; 3]) -> bool {
        (0..3).all(|i| c[i] >= 0 && c[i] < self.dims[i])
    }

    fn key(&self, c: [i64; 3]) -> u64 {
        (c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])) as u64
    }
}

const OFFSETS: [[i64; 3]; 27] = {
    let mut o = [[0i64; 3]; 27];
    let mut n = 0;
    let mut z = -1;
    while z <= 1 {
        let mut y = -1;
        while y <= 1 {
            let mut x = -1;
            while x <= 1 {
                o[n] = [x, y, z];
                n += 1;
                x += 1;
            }
            y += 1;
        }
        z += 1;
    }
    o
};

fn near(a: [i64; 3], b: [i64; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= 1)
}

/// How one search ended.
pub(super) enum Searched {
    /// The target's node, and the cells expanded.
    Found(u32, usize),
    /// Every reachable cell was expanded (this many): no path in this graph.
    Exhausted(usize),
    /// The budget ran out.
    OutOfBudget,
}

pub(super) struct Search<'a> {
    checker: &'a Checker,
    /// Extra clearance asked of every edge but those into the target.
    extra: f64,
    grid: &'a Grid,
    target: Point3<f64>,
    target_cell: [i64; 3],
    /// The ways in when the target lies inside learned regions: staging points from which
    /// the last, straight edge into the target was checked by the caller. Empty: the
    /// target is linked from the cells around it.
    approaches: &'a [Point3<f64>],
    /// Node of each staging point, and its nearest cell.
    approach_nodes: Vec<(u32, [i64; 3])>,
    nodes: Vec<Node>,
    index: NodeIndex,
    open: BinaryHeap<Open>,
}

impl<'a> Search<'a> {
    /// A search towards `target` (in `target_cell`) keeping the clearances grown by
    /// `extra` on every edge but those into the target.
    pub(super) fn new(
        checker: &'a Checker,
        extra: f64,
        grid: &'a Grid,
        target: Point3<f64>,
        target_cell: [i64; 3],
        approaches: &'a [Point3<f64>],
    ) -> Self {
        Search {
            checker,
            extra,
            grid,
            target,
            target_cell,
            approaches,
            approach_nodes: Vec::new(),
            nodes: Vec::new(),
            index: NodeIndex::new(grid.cells),
            open: BinaryHeap::new(),
        }
    }

    fn add_node(&mut self, point: Point3<f64>, cell: Option<[i64; 3]>) -> u32 {
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            point,
            cell,
            g: f64::INFINITY,
            parent: NO_PARENT,
            closed: false,
            slack: f64::NAN,
        });
        i
    }

    fn cell_node(&mut self, cell: [i64; 3]) -> u32 {
        let key = self.grid.key(cell);
        if let Some(i) = self.index.get(key) {
            return i;
        }
        let i = self.add_node(self.grid.point(cell), Some(cell));
        self.index.insert(key, i);
        i
    }

    /// A lower bound of the cost to the target: the larger of the Euclidean distance
    /// and the lattice distance (26 directions) to the target's cell less one diagonal
    /// step (the last edge, from a cell around it to the target, is a straight segment).
    /// Consistent on every edge but those out of the start, which is expanded first.
    fn heuristic(&self, p: Point3<f64>) -> f64 {
        let euclid = (self.target - p).norm();
        if !self.approaches.is_empty() {
            // The last edge may start far from the target's cell: only the Euclidean
            // bound holds (triangle inequality).
            return euclid;
        }
        let tc = self.grid.point(self.target_cell);
        let (x, y, z) = ((p.x - tc.x).abs(), (p.y - tc.y).abs(), (p.z - tc.z).abs());
        let hi = x.max(y).max(z);
        let lo = x.min(y).min(z);
        let mid = x + y + z - hi - lo;
        let lattice = (hi - mid) + SQRT_2 * (mid - lo) + SQRT_3 * lo;
        euclid.max(lattice - SQRT_3 * self.grid.resolution)
    }

    /// The edge `from → to` if it is shorter and free (`extra`: the clearance grown by
    /// it; `None`: checked by the caller already, the way into the target).
    fn relax(&mut self, from: u32, to: u32, extra: Option<f64>) {
        let (a, b) = (&self.nodes[from as usize], &self.nodes[to as usize]);
        if b.closed {
            return;
        }
        let cost = (b.point - a.point).norm();
        let g = a.g + cost;
        if g >= b.g {
            return;
        }
        if let Some(extra) = extra {
            if !self.checker.segment_ok(a.point, b.point, extra, a.slack) {
                return;
            }
        }
        let h = self.heuristic(b.point);
        let b = &mut self.nodes[to as usize];
        b.g = g;
        b.parent = from;
        self.open.push(Open {
            f: g + h,
            g,
            node: to,
        });
    }

    /// Expands until the target is closed, the graph is exhausted or `budget` cells are
    /// expanded.
    pub(super) fn run(&mut self, start: Point3<f64>, budget: usize) -> Searched {
        let s = self.add_node(start, None);
        let t = self.add_node(self.target, None);
        for &q in self.approaches {
            let node = self.add_node(q, None);
            self.approach_nodes.push((node, self.grid.nearest(q)));
        }
        self.nodes[s as usize].g = 0.0;
        self.open.push(Open {
            f: self.heuristic(start),
            g: 0.0,
            node: s,
        });
        let mut expanded = 0usize;
        while let Some(Open { node, .. }) = self.open.pop() {
            if self.nodes[node as usize].closed {
                continue;
            }
            if node == t {
                return Searched::Found(t, expanded);
            }
            if expanded == budget {
                return Searched::OutOfBudget;
            }
            let here = &mut self.nodes[node as usize];
            here.closed = true;
            here.slack = self.checker.slack(here.point);
            expanded += 1;
            if self.approach_nodes.iter().any(|(a, _)| *a == node) {
                // A staging point: its one way on is the straight way in.
                self.relax(node, t, None);
                continue;
            }
            let (centre, is_start) = match self.nodes[node as usize].cell {
                Some(c) => (c, false),
                None => (self.grid.nearest(start), true),
            };
            for off in OFFSETS {
                if off == [0, 0, 0] && !is_start {
                    continue;
                }
                let c = [centre[0] + off[0], centre[1] + off[1], centre[2] + off[2]];
                if !self.grid.inside(c) {
                    continue;
                }
                let next = self.cell_node(c);
                self.relax(node, next, Some(self.extra));
            }
            if self.approaches.is_empty() {
                if !is_start && near(centre, self.target_cell) {
                    self.relax(node, t, Some(0.0));
                }
            } else {
                for k in 0..self.approach_nodes.len() {
                    let (a, cell) = self.approach_nodes[k];
                    if is_start || near(centre, cell) {
                        self.relax(node, a, Some(0.0));
                    }
                }
            }
        }
        Searched::Exhausted(expanded)
    }

    pub(super) fn path_to(&self, t: u32) -> Vec<Point3<f64>> {
        let mut out = Vec::new();
        let mut i = t;
        while i != NO_PARENT {
            out.push(self.nodes[i as usize].point);
            i = self.nodes[i as usize].parent;
        }
        out.reverse();
        out
    }
}
