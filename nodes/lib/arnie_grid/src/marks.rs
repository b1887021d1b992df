//! [`MarkedMap`]: the planner's map plus temporary obstacles marked at run time (the
//! `UpdateMap` service: discs with an optional time to live, e.g. the base marking an
//! opponent it ran into).
//!
//! The map keeps two grids: the map as loaded (`raw`, drawn on `/map`) and the same
//! inflated by the robot radius (`base`, searched). A mark is a disc; the searched grid is
//! `base` plus every cell whose centre lies within `radius + robot_radius` of a live
//! mark's centre (marks are inflated like walls), the drawn map is `raw` plus every cell
//! within `radius`. Clearing removes marks only (never the map's own obstacles). Expiry is
//! checked by the caller with [`MarkedMap::expire`] (the node does it before each plan);
//! time is passed in, seconds on any monotonic clock.

use crate::grid::{Cell, Grid};

/// One marked disc.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Centre, map frame [m].
    pub center_m: (f64, f64),
    /// Radius [m].
    pub radius_m: f64,
    /// Forgotten at this time [s]; `None` = kept until cleared.
    pub expires_at: Option<f64>,
}

/// A refused `UpdateMap` request (`INVALID_REQUEST`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MarkError(pub String);

/// `/map` value of the map's own obstacles.
pub const OCCUPIED: i8 = 100;
/// `/map` value of marked cells.
pub const MARKED: i8 = 99;

/// Most marks kept at once (a request that would exceed it is refused).
pub const MAX_MARKS: usize = 10_000;
/// Most centres in one request.
pub const MAX_CENTERS: usize = 64;
/// Largest disc radius when marking [m] (a mark's cost grows with its area; clearing
/// takes any finite radius).
pub const MAX_RADIUS_M: f64 = 2.0;
/// Longest time to live [s] (longer: give 0, kept until cleared).
pub const MAX_TTL_S: f64 = 3600.0;

/// The map with its marks (see the module doc).
#[derive(Clone, Debug)]
pub struct MarkedMap {
    raw: Grid,
    base: Grid,
    robot_radius_m: f64,
    marks: Vec<Mark>,
}

impl MarkedMap {
    /// `raw` as loaded and `base` (= `raw` inflated by `robot_radius_m`; same size and frame).
    pub fn new(raw: Grid, base: Grid, robot_radius_m: f64) -> Self {
        MarkedMap {
            raw,
            base,
            robot_radius_m,
            marks: Vec::new(),
        }
    }

    /// The live marks.
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The map as loaded (no inflation, no marks).
    pub fn raw(&self) -> &Grid {
        &self.raw
    }

    /// The grid to search: inflated map plus inflated marks.
    pub fn grid(&self) -> Grid {
        let mut g = self.base.clone();
        for m in &self.marks {
            stamp(&mut g, m.center_m, m.radius_m + self.robot_radius_m);
        }
        g
    }

    /// `nav_msgs/OccupancyGrid` `data` for the map as drawn: [`OCCUPIED`] for the map's
    /// obstacles, [`MARKED`] for the marks' discs (not inflated), 0 elsewhere; rows bottom
    /// first. Both are "occupied" for any reader (> 50); the base tells a sensor hit on
    /// the map's own obstacles (100) from one on a marked opponent (99).
    pub fn occupancy_data(&self) -> Vec<i8> {
        let mut marked = Grid::free(self.raw.width(), self.raw.height())
            .unwrap_or_else(|_| self.raw.clone())
            .with_frame(self.raw.frame());
        for m in &self.marks {
            stamp(&mut marked, m.center_m, m.radius_m);
        }
        let w = self.raw.width();
        let rows = self
            .raw
            .blocked_cells()
            .chunks(w)
            .zip(marked.blocked_cells().chunks(w))
            .rev();
        rows.flat_map(|(r, m)| {
            r.iter().zip(m).map(|(&r, &m)| {
                if r {
                    OCCUPIED
                } else if m {
                    MARKED
                } else {
                    0
                }
            })
        })
        .collect()
    }

    /// Adds one disc per centre (`ttl_s` 0 = no expiry), or with `clear` removes every
    /// mark whose centre lies within `radius_m` of one of the centres. Returns how many
    /// cells of the searched grid changed state.
    ///
    /// # Errors
    /// [`MarkError`] for no centres or more than [`MAX_CENTERS`], a radius not in
    /// (0, [`MAX_RADIUS_M`]] (any finite radius > 0 to clear), a ttl not in 0..=[`MAX_TTL_S`], a non-finite value, or
    /// more than [`MAX_MARKS`] marks; nothing is changed then.
    pub fn update(
        &mut self,
        centers: &[(f64, f64)],
        radius_m: f64,
        clear: bool,
        ttl_s: f64,
        now: f64,
    ) -> Result<u32, MarkError> {
        if centers.is_empty() {
            return Err(MarkError("no centers given".into()));
        }
        if centers.len() > MAX_CENTERS {
            return Err(MarkError(format!(
                "{} centers in one request, at most {MAX_CENTERS}",
                centers.len()
            )));
        }
        // A mark's cost grows with its area; clearing only compares distances.
        let max_radius_m = if clear { f64::MAX } else { MAX_RADIUS_M };
        if !(radius_m.is_finite() && radius_m > 0.0 && radius_m <= max_radius_m) {
            let range = if clear {
                "a finite number > 0".to_string()
            } else {
                format!("in (0, {MAX_RADIUS_M}] [m]")
            };
            return Err(MarkError(format!("radius_m {radius_m} is not {range}")));
        }
        if !(ttl_s.is_finite() && (0.0..=MAX_TTL_S).contains(&ttl_s)) {
            return Err(MarkError(format!(
                "ttl_s {ttl_s} is not in 0..={MAX_TTL_S} [s] (0 = until cleared)"
            )));
        }
        if let Some(c) = centers
            .iter()
            .find(|c| !(c.0.is_finite() && c.1.is_finite()))
        {
            return Err(MarkError(format!(
                "center ({}, {}) is not finite",
                c.0, c.1
            )));
        }
        if !clear && self.marks.len() + centers.len() > MAX_MARKS {
            return Err(MarkError(format!("more than {MAX_MARKS} marks")));
        }
        let before = self.grid();
        if clear {
            self.marks.retain(|m| {
                !centers
                    .iter()
                    .any(|c| (m.center_m.0 - c.0).hypot(m.center_m.1 - c.1) <= radius_m)
            });
        } else {
            let expires_at = (ttl_s > 0.0).then_some(now + ttl_s);
            self.marks.extend(centers.iter().map(|&center_m| Mark {
                center_m,
                radius_m,
                expires_at,
            }));
        }
        Ok(changed(&before, &self.grid()))
    }

    /// Forgets every mark (Nav2's `clear_entirely_*_costmap`); returns how many there were.
    pub fn clear_all(&mut self) -> usize {
        std::mem::take(&mut self.marks).len()
    }

    /// Forgets the marks whose time is up. Returns whether any was removed.
    pub fn expire(&mut self, now: f64) -> bool {
        let n = self.marks.len();
        self.marks.retain(|m| m.expires_at.is_none_or(|t| now < t));
        self.marks.len() != n
    }
}

/// Blocks every cell of `g` whose centre is within `radius_m` of `center_m`.
fn stamp(g: &mut Grid, center_m: (f64, f64), radius_m: f64) {
    let f = g.frame();
    let Ok(c) = g.world_to_cell(center_m.0, center_m.1) else {
        return;
    };
    let r = (radius_m / f.resolution_m).ceil() as i32 + 1;
    // Only the cells on the grid: a disc much larger than the map costs no more than it.
    let (w, h) = (
        i32::try_from(g.width()).unwrap_or(i32::MAX),
        i32::try_from(g.height()).unwrap_or(i32::MAX),
    );
    let ys = c.y.saturating_sub(r).max(0)..=c.y.saturating_add(r).min(h - 1);
    for y in ys {
        for x in c.x.saturating_sub(r).max(0)..=c.x.saturating_add(r).min(w - 1) {
            let cell = Cell::new(x, y);
            if !g.contains(cell) {
                continue;
            }
            let (wx, wy) = g.cell_to_world(cell);
            if (wx - center_m.0).hypot(wy - center_m.1) <= radius_m + 1e-9 {
                g.set_blocked(cell, true);
            }
        }
    }
}

fn changed(a: &Grid, b: &Grid) -> u32 {
    let n = a
        .blocked_cells()
        .iter()
        .zip(b.blocked_cells())
        .filter(|(x, y)| x != y)
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::MapFrame;

    fn map() -> MarkedMap {
        let raw = Grid::free(20, 10)
            .unwrap()
            .with_frame(MapFrame::new(0.1, 0.0, 0.0).unwrap());
        MarkedMap::new(raw.clone(), raw, 0.1)
    }

    #[test]
    fn marks_block_inflated_and_expire() {
        let mut m = map();
        let n = m.update(&[(1.0, 0.5)], 0.1, false, 2.0, 10.0).unwrap();
        // Cells within 0.2 m of (1.0, 0.5): centres at ±0.05, ±0.15 → 4 x 4 minus corners.
        assert_eq!(n, 12);
        assert!(m
            .grid()
            .is_blocked(m.grid().world_to_cell(1.0, 0.5).unwrap()));
        // Drawn: only the 0.1 m disc.
        assert_eq!(
            m.occupancy_data().iter().filter(|&&v| v == MARKED).count(),
            4
        );
        assert!(!m.expire(11.9));
        assert!(m.expire(12.0));
        assert_eq!(m.grid().blocked_count(), 0);
    }

    #[test]
    fn clear_removes_only_marks_and_bad_requests_change_nothing() {
        let raw = Grid::from_ascii("#...\n....")
            .unwrap()
            .with_frame(MapFrame::new(1.0, 0.0, 0.0).unwrap());
        let mut m = MarkedMap::new(raw.clone(), raw, 0.0);
        m.update(&[(2.5, 0.5)], 0.4, false, 0.0, 0.0).unwrap();
        assert_eq!(m.grid().blocked_count(), 2);
        assert!(m.update(&[(f64::NAN, 0.0)], 0.4, false, 0.0, 0.0).is_err());
        assert!(m.update(&[(1.0, 0.0)], 0.0, false, 0.0, 0.0).is_err());
        assert!(m.update(&[], 0.4, false, 0.0, 0.0).is_err());
        assert!(m.update(&[(1.0, 0.0)], 0.4, false, -1.0, 0.0).is_err());
        // Per-request bounds: centres, radius, ttl; the reason names the field.
        let many = vec![(1.0, 0.5); MAX_CENTERS + 1];
        let e = m.update(&many, 0.1, false, 0.0, 0.0).unwrap_err();
        assert!(e.0.contains("centers"), "{e}");
        assert!(m.update(&many[..MAX_CENTERS], 0.1, true, 0.0, 0.0).is_ok());
        let e = m.update(&[(1.0, 0.5)], 1e9, false, 0.0, 0.0).unwrap_err();
        assert!(e.0.contains("radius_m"), "{e}");
        let e = m.update(&[(1.0, 0.5)], 0.1, false, 1e12, 0.0).unwrap_err();
        assert!(e.0.contains("ttl_s"), "{e}");
        assert!(m
            .update(&[(1.0, 0.5)], 0.1, false, f64::INFINITY, 0.0)
            .is_err());
        assert_eq!(m.update(&[(0.5, 1.5)], 5.0, true, 0.0, 0.0).unwrap(), 1);
        assert_eq!(m.grid().blocked_count(), 1, "the map's own wall stays");
        assert!(!m.expire(1e9), "no ttl: never expires");
        assert_eq!(
            m.occupancy_data(),
            vec![0, 0, 0, 0, 100, 0, 0, 0],
            "bottom row first"
        );
        m.update(&[(3.5, 0.5)], 0.4, false, 0.0, 0.0).unwrap();
        assert_eq!(
            m.occupancy_data(),
            vec![0, 0, 0, 99, 100, 0, 0, 0],
            "marks are 99"
        );
    }
}
