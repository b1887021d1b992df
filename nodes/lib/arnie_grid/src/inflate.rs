//! Obstacle inflation by a robot radius: a cell becomes blocked when its centre lies
//! within the radius of a blocked cell's centre (a disc, not a square).

use crate::error::MapError;
use crate::grid::Grid;

/// A copy of `grid` where every cell whose centre is within `radius_cells` (centre to
/// centre, inclusive) of a blocked cell is blocked too. Cells off the map are not
/// obstacles. Only obstacle cells with a free 8-neighbour are stamped: the nearest
/// obstacle to any free cell is always such a cell, so the result is exact.
///
/// # Errors
/// [`MapError::BadOption`] (`radius_cells`) for a negative or non-finite radius.
pub fn inflate(grid: &Grid, radius_cells: f64) -> Result<Grid, MapError> {
    if !(radius_cells.is_finite() && radius_cells >= 0.0) {
        return Err(MapError::BadOption {
            field: "radius_cells",
        });
    }
    let (w, h) = (grid.width(), grid.height());
    let max_r = ((w * w + h * h) as f64).sqrt() + 1.0;
    let r = radius_cells.min(max_r);
    let ri = r.floor() as isize;
    // Half-width of the disc's span in each row offset dy (1e-9: exact radii like 1.0
    // include the cell at exactly that distance despite rounding).
    let spans: Vec<isize> = (-ri..=ri)
        .map(|dy| ((r * r - (dy * dy) as f64).max(0.0) + 1e-9).sqrt().floor() as isize)
        .collect();
    let src = grid.blocked_cells();
    let mut out = src.to_vec();
    let (wi, hi) = (w as isize, h as isize);
    let blocked =
        |x: isize, y: isize| x < 0 || y < 0 || x >= wi || y >= hi || src[(y * wi + x) as usize];
    for y in 0..hi {
        for x in 0..wi {
            if !src[(y * wi + x) as usize] {
                continue;
            }
            let boundary = (-1..=1).any(|dy| (-1..=1).any(|dx| !blocked(x + dx, y + dy)));
            if !boundary {
                continue;
            }
            for (k, &half) in spans.iter().enumerate() {
                let yy = y + k as isize - ri;
                if yy < 0 || yy >= hi {
                    continue;
                }
                let lo = (x - half).max(0) as usize;
                let hi_x = (x + half).min(wi - 1) as usize;
                let row = yy as usize * w;
                out[row + lo..=row + hi_x]
                    .iter_mut()
                    .for_each(|c| *c = true);
            }
        }
    }
    Ok(Grid::from_blocked(w, h, out)?.with_frame(grid.frame()))
}

impl Grid {
    /// [`inflate`] by a radius in metres (divided by the frame's resolution).
    ///
    /// # Errors
    /// As [`inflate`].
    pub fn inflated_m(&self, radius_m: f64) -> Result<Grid, MapError> {
        inflate(self, radius_m / self.frame().resolution_m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Cell;

    fn body(g: &Grid) -> Vec<String> {
        format!("{g:?}")
            .lines()
            .skip(1)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn inflation_is_a_disc() {
        let g = Grid::from_ascii(".......\n.......\n.......\n...#...\n.......\n.......\n.......")
            .unwrap();
        assert_eq!(inflate(&g, 0.0).unwrap(), g);
        assert_eq!(
            body(&inflate(&g, 1.0).unwrap()),
            [".......", ".......", "...#...", "..###..", "...#...", ".......", "......."]
        );
        assert_eq!(
            body(&inflate(&g, 2.0).unwrap()),
            [".......", "...#...", "..###..", ".#####.", "..###..", "...#...", "......."]
        );
        // √5 ≈ 2.236 reaches (±1, ±2) but not (±2, ±2) — a square would.
        let g3 = inflate(&g, 2.3).unwrap();
        assert!(g3.is_blocked(Cell::new(4, 1)) && g3.is_free(Cell::new(1, 1)));
        assert!(inflate(&g, -1.0).is_err() && inflate(&g, f64::NAN).is_err());
    }

    #[test]
    fn inflation_matches_brute_force() {
        let g = Grid::from_ascii("#....#..\n..##....\n..##...#\n........\n.#......").unwrap();
        for r in [0.5, 1.0, 1.5, 2.9, 3.0, 20.0] {
            let fast = inflate(&g, r).unwrap();
            for y in 0..g.height() as i32 {
                for x in 0..g.width() as i32 {
                    let near = (0..g.height() as i32).any(|by| {
                        (0..g.width() as i32).any(|bx| {
                            g.is_blocked(Cell::new(bx, by))
                                && f64::from((bx - x).pow(2) + (by - y).pow(2)) <= r * r + 1e-9
                        })
                    });
                    assert_eq!(
                        fast.is_blocked(Cell::new(x, y)),
                        near,
                        "r={r} at ({x},{y})\n{fast:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn inflated_m_uses_resolution() {
        let g = Grid::from_ascii("...\n.#.\n...")
            .unwrap()
            .with_frame(crate::MapFrame::new(0.5, 0.0, 0.0).unwrap());
        assert_eq!(g.inflated_m(0.5).unwrap().blocked_count(), 5);
        assert_eq!(g.inflated_m(0.75).unwrap().blocked_count(), 9);
    }
}
