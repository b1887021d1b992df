//! The scenario as the planner's grid: fixed obstacles and walls rasterised at a given
//! resolution. Robot-radius inflation is left to the planner (`robot_radius_m`).
//!
//! Layout as `arnie_planner::Grid::from_blocked`: row-major `blocked[row * width + col]`,
//! row 0 at the top (largest y), origin = the world position of the lower-left corner
//! (the table's corner, (0, 0)), as in `nav_msgs/OccupancyGrid` but with rows flipped.
use crate::geometry::shape_distance;
use crate::scenario::{Scenario, Shape};

/// Finest resolution accepted [m].
pub const MIN_RESOLUTION_M: f64 = 0.001;
/// Most cells in a raster.
pub const MAX_CELLS: usize = 1 << 24;

/// A rasterised table.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// Columns [cells].
    pub width: usize,
    /// Rows [cells].
    pub height: usize,
    /// A cell's side [m].
    pub resolution_m: f64,
    /// World x of the lower-left corner of the lower-left cell [m].
    pub origin_x_m: f64,
    /// World y of the lower-left corner of the lower-left cell [m].
    pub origin_y_m: f64,
    /// Row-major, row 0 = top.
    pub blocked: Vec<bool>,
}

impl Raster {
    /// Is cell (col, row-from-top) blocked? Off the raster counts as blocked.
    pub fn is_blocked(&self, col: usize, row: usize) -> bool {
        col >= self.width || row >= self.height || self.blocked[row * self.width + col]
    }

    /// The cell (col, row-from-top) holding a world point, if on the raster.
    pub fn cell_of(&self, x_m: f64, y_m: f64) -> Option<(usize, usize)> {
        let c = ((x_m - self.origin_x_m) / self.resolution_m).floor();
        let up = ((y_m - self.origin_y_m) / self.resolution_m).floor();
        if !(c >= 0.0 && up >= 0.0 && c < self.width as f64 && up < self.height as f64) {
            return None;
        }
        Some((c as usize, self.height - 1 - up as usize))
    }

    /// `nav_msgs/OccupancyGrid` data: row 0 at the *bottom*, 100 blocked, 0 free.
    pub fn occupancy(&self) -> Vec<i8> {
        let mut out = Vec::with_capacity(self.blocked.len());
        for row in (0..self.height).rev() {
            out.extend(
                self.blocked[row * self.width..(row + 1) * self.width]
                    .iter()
                    .map(|&b| if b { 100 } else { 0 }),
            );
        }
        out
    }

    /// A binary PGM (P5; black = blocked, white = free), row 0 at the top, for
    /// `map_server` or the planner's `map_file` with `resolution_m` and origin (0, 0).
    pub fn to_pgm(&self) -> Vec<u8> {
        let mut out = format!("P5\n{} {}\n255\n", self.width, self.height).into_bytes();
        out.extend(self.blocked.iter().map(|&b| if b { 0u8 } else { 255u8 }));
        out
    }

    /// Rows of `#` and `.`, top first (tests and logs).
    pub fn to_ascii(&self) -> String {
        let mut s = String::with_capacity((self.width + 1) * self.height);
        for row in 0..self.height {
            for col in 0..self.width {
                s.push(if self.blocked[row * self.width + col] {
                    '#'
                } else {
                    '.'
                });
            }
            s.push('\n');
        }
        s
    }
}

/// A resolution [`Scenario::rasterise`] refuses.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ResolutionError {
    /// Not finite, or under [`MIN_RESOLUTION_M`].
    #[error("resolution {0} m: must be finite and >= {MIN_RESOLUTION_M} m")]
    TooFine(f64),
    /// More than [`MAX_CELLS`] cells.
    #[error("resolution {resolution_m} m gives {width} × {height} cells, over {MAX_CELLS}")]
    TooManyCells {
        /// The resolution [m].
        resolution_m: f64,
        /// Columns.
        width: f64,
        /// Rows.
        height: f64,
    },
}

impl Scenario {
    /// Rasterises the table at `resolution_m`: a cell is blocked when a fixed obstacle
    /// overlaps its interior, and with `walls` the outermost ring of cells is blocked too
    /// (so the planner's inflation keeps the robot off the table's edge). The grid covers
    /// the table, the last column/row possibly overhanging it (that part is blocked).
    ///
    /// # Errors
    /// A resolution that is not finite, under [`MIN_RESOLUTION_M`], or gives more than
    /// [`MAX_CELLS`] cells.
    pub fn rasterise(&self, resolution_m: f64, walls: bool) -> Result<Raster, ResolutionError> {
        if !(resolution_m.is_finite() && resolution_m >= MIN_RESOLUTION_M) {
            return Err(ResolutionError::TooFine(resolution_m));
        }
        let cells = |side: f64| (side / resolution_m - 1e-9).ceil().max(1.0);
        let (w, h) = (cells(self.table.width_m), cells(self.table.height_m));
        if w * h > MAX_CELLS as f64 {
            return Err(ResolutionError::TooManyCells {
                resolution_m,
                width: w,
                height: h,
            });
        }
        let (width, height) = (w as usize, h as usize);
        let mut blocked = vec![false; width * height];
        let shapes: Vec<Shape> = self.obstacles.iter().map(|o| o.shape()).collect();
        for row in 0..height {
            let y0 = (height - 1 - row) as f64 * resolution_m;
            for col in 0..width {
                let x0 = col as f64 * resolution_m;
                let edge = col == 0 || row == 0 || col + 1 == width || row + 1 == height;
                let overhang = x0 + resolution_m > self.table.width_m + 1e-9
                    || y0 + resolution_m > self.table.height_m + 1e-9;
                let hit = shapes.iter().any(|s| overlaps(s, x0, y0, resolution_m));
                blocked[row * width + col] = hit || overhang || (walls && edge);
            }
        }
        Ok(Raster {
            width,
            height,
            resolution_m,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            blocked,
        })
    }
}

/// Does the shape overlap the open square `[x0, x0 + s] × [y0, y0 + s]`?
fn overlaps(shape: &Shape, x0: f64, y0: f64, s: f64) -> bool {
    const EPS: f64 = 1e-9;
    match shape {
        Shape::Rect(r) => {
            r.x_min_m < x0 + s - EPS
                && r.x_max_m > x0 + EPS
                && r.y_min_m < y0 + s - EPS
                && r.y_max_m > y0 + EPS
        }
        Shape::Disc(d) => {
            // Distance from the centre to the square (0 inside) below the radius.
            let sq = Shape::Rect(crate::scenario::Rect {
                x_min_m: x0,
                y_min_m: y0,
                x_max_m: x0 + s,
                y_max_m: y0 + s,
            });
            shape_distance(&sq, d.x_m, d.y_m) < d.radius_m - EPS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scen(obstacles: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"table":{{"width_m":1.0,"height_m":0.5}},"robot":{{"start":{{"x_m":0.1,"y_m":0.1}},"radius_m":0.05}},"obstacles":[{obstacles}]}}"#
        ))
        .expect("valid")
    }

    #[test]
    fn rect_disc_and_walls() {
        let s = scen(
            r#"{"rect":{"x_min_m":0.2,"y_min_m":0.0,"x_max_m":0.4,"y_max_m":0.2}},{"disc":{"x_m":0.75,"y_m":0.25,"radius_m":0.1}}"#,
        );
        let r = s.rasterise(0.1, false).expect("ok");
        assert_eq!((r.width, r.height), (10, 5));
        let want = "\
..........
......###.
......###.
..##..###.
..##......
";
        assert_eq!(r.to_ascii(), want, "\n{}", r.to_ascii());
        assert_eq!(r.cell_of(0.25, 0.05), Some((2, 4)));
        assert!(r.is_blocked(2, 4) && !r.is_blocked(0, 0) && r.is_blocked(10, 0));
        let walled = s.rasterise(0.1, true).expect("ok");
        assert!(
            walled.is_blocked(0, 2)
                && walled.is_blocked(5, 0)
                && walled.is_blocked(9, 2)
                && !walled.is_blocked(5, 2)
        );
        let occ = r.occupancy();
        assert_eq!(occ[2], 100, "bottom row first");
        assert_eq!(&r.to_pgm()[..13], b"P5\n10 5\n255\n\xff");
    }

    #[test]
    fn finer_grids_and_overhang() {
        let s = scen("");
        let r = s.rasterise(0.3, false).expect("ok");
        assert_eq!((r.width, r.height), (4, 2));
        assert!(r.is_blocked(3, 1), "overhanging column blocked");
        assert!(!r.is_blocked(2, 1));
        for bad in [0.0, -1.0, f64::NAN, 1e-6] {
            assert!(s.rasterise(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn shipped_table_at_planner_resolution() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../params/eurobot/table.json");
        let s = Scenario::load(&path).expect("loads");
        let r = s.rasterise(0.02, true).expect("ok");
        assert_eq!((r.width, r.height), (150, 100));
        let (c, row) = r
            .cell_of(s.robot.start.x, s.robot.start.y)
            .expect("on the table");
        assert!(!r.is_blocked(c, row));
        for t in &s.tasks {
            let (c, row) = r.cell_of(t.x_m, t.y_m).expect("on the table");
            assert!(!r.is_blocked(c, row), "{}", t.name);
        }
        // The planner's map file is this raster, byte for byte (regenerate with
        // `table_map --scenario params/eurobot/table.json --resolution 0.02 --pgm params/eurobot/table.pgm`).
        let pgm =
            std::fs::read(path.with_file_name("table.pgm")).expect("params/eurobot/table.pgm");
        assert!(
            pgm == r.to_pgm(),
            "params/eurobot/table.pgm is stale: regenerate it with table_map"
        );
    }
}
