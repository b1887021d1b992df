//! [`Grid`]: a rectangle of free/blocked cells, plus the [`MapFrame`] that places it in
//! the world (resolution and origin, metres).
//!
//! Coordinates: a [`Cell`] is `(x, y)`, x = column, y = row, `(0, 0)` = top-left, as the
//! map is drawn (first row of an image or `.map` file). World frame (REP 103, y up): the
//! origin is the world position of the lower-left corner of the bottom row's first cell,
//! as in `nav_msgs/OccupancyGrid` and ROS `map_server`, so row `height - 1` is at the
//! origin and row 0 is the farthest along +y.

use std::fmt;

use crate::error::{MapError, PlanError};

/// A grid cell, x = column, y = row, (0, 0) = top-left. Signed so that a cell computed
/// from world coordinates off the map can still be named in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column.
    pub x: i32,
    /// Row (0 = top).
    pub y: i32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    pub const fn new(x: i32, y: i32) -> Self {
        Cell { x, y }
    }
}

impl From<(i32, i32)> for Cell {
    fn from((x, y): (i32, i32)) -> Self {
        Cell { x, y }
    }
}

/// Where the grid lies in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapFrame {
    /// Edge length of one cell [m].
    pub resolution_m: f64,
    /// World x of the lower-left corner of the map [m].
    pub origin_x_m: f64,
    /// World y of the lower-left corner of the map [m].
    pub origin_y_m: f64,
}

impl Default for MapFrame {
    /// One metre per cell, origin at (0, 0).
    fn default() -> Self {
        MapFrame {
            resolution_m: 1.0,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
        }
    }
}

impl MapFrame {
    /// Checks that the resolution is finite and positive and the origin finite.
    ///
    /// # Errors
    /// [`MapError::BadFrame`] naming the first bad field.
    pub fn new(resolution_m: f64, origin_x_m: f64, origin_y_m: f64) -> Result<Self, MapError> {
        if !(resolution_m.is_finite() && resolution_m > 0.0) {
            return Err(MapError::BadFrame {
                field: "resolution_m",
            });
        }
        if !origin_x_m.is_finite() {
            return Err(MapError::BadFrame {
                field: "origin_x_m",
            });
        }
        if !origin_y_m.is_finite() {
            return Err(MapError::BadFrame {
                field: "origin_y_m",
            });
        }
        Ok(MapFrame {
            resolution_m,
            origin_x_m,
            origin_y_m,
        })
    }
}

/// A map of free and blocked cells. `Debug` draws it as rows of `#` (blocked) and `.`
/// (free), so a failing assertion shows a picture; [`Grid::from_ascii`] reads it back.
#[derive(Clone, PartialEq)]
pub struct Grid {
    width: usize,
    height: usize,
    /// Row-major, `blocked[y * width + x]`.
    blocked: Vec<bool>,
    frame: MapFrame,
}

impl Grid {
    /// Largest width or height accepted (cell indices must fit an `i32` and a `u32` with padding).
    pub const MAX_SIDE: usize = 1 << 15;

    /// Checks a map's sides as soon as a loader has read them, before anything is sized
    /// from them: both in `1..=MAX_SIDE` (so `width * height` cannot overflow).
    ///
    /// # Errors
    /// [`MapError::BadSize`].
    pub(crate) fn check_sides(width: usize, height: usize) -> Result<(), MapError> {
        if width == 0 || height == 0 || width > Self::MAX_SIDE || height > Self::MAX_SIDE {
            return Err(MapError::BadSize {
                width: width as u64,
                height: height as u64,
            });
        }
        Ok(())
    }

    /// Checks a map's size before it becomes a grid: both sides in `1..=MAX_SIDE` and
    /// `cells` (the data's length) equal to `width * height`.
    ///
    /// # Errors
    /// [`MapError::BadSize`] for a zero or too large side, [`MapError::WrongCellCount`].
    pub(crate) fn check_size(width: usize, height: usize, cells: usize) -> Result<(), MapError> {
        Self::check_sides(width, height)?;
        if cells != width * height {
            return Err(MapError::WrongCellCount {
                expected: width * height,
                got: cells,
            });
        }
        Ok(())
    }

    /// A grid from row-major blocked flags (`blocked[y * width + x]`), default frame.
    ///
    /// # Errors
    /// [`MapError::BadSize`] for a zero or too large side, [`MapError::WrongCellCount`].
    pub fn from_blocked(width: usize, height: usize, blocked: Vec<bool>) -> Result<Self, MapError> {
        Self::check_size(width, height, blocked.len())?;
        Ok(Grid {
            width,
            height,
            blocked,
            frame: MapFrame::default(),
        })
    }

    /// An all-free grid.
    ///
    /// # Errors
    /// [`MapError::BadSize`] for a zero or too large side.
    pub fn free(width: usize, height: usize) -> Result<Self, MapError> {
        Self::from_blocked(width, height, vec![false; width.saturating_mul(height)])
    }

    /// Reads rows of `#` (blocked) and `.` (free); also accepts the Moving AI letters
    /// (`@ O T W` blocked, `G S` free). Blank lines and surrounding whitespace are ignored.
    ///
    /// # Errors
    /// [`MapError::BadCell`] for another character, [`MapError::WrongCellCount`] for
    /// ragged rows, [`MapError::BadSize`] for no rows.
    pub fn from_ascii(text: &str) -> Result<Self, MapError> {
        let rows: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let width = rows.first().map_or(0, |r| r.chars().count());
        let mut blocked = Vec::with_capacity(width * rows.len());
        for (row, line) in rows.iter().enumerate() {
            let before = blocked.len();
            for (col, ch) in line.chars().enumerate() {
                blocked.push(cell_char(ch).ok_or_else(|| MapError::BadCell {
                    row,
                    col,
                    value: ch.to_string(),
                })?);
            }
            if blocked.len() - before != width {
                return Err(MapError::WrongCellCount {
                    expected: width * rows.len(),
                    got: blocked.len(),
                });
            }
        }
        Self::from_blocked(width, rows.len(), blocked)
    }

    /// The grid mirrored left-right about its middle (column `x` → `width − 1 − x`), in
    /// the same frame: the other team's side of a symmetric field (Eurobot's yellow, from
    /// the map drawn for blue: `x → table length − x` when the map spans the table).
    pub fn mirrored_x(&self) -> Grid {
        let mut blocked = Vec::with_capacity(self.blocked.len());
        for row in self.blocked.chunks(self.width) {
            blocked.extend(row.iter().rev());
        }
        Grid {
            blocked,
            ..self.clone()
        }
    }

    /// The same grid placed in the world by `frame`.
    pub fn with_frame(mut self, frame: MapFrame) -> Self {
        self.frame = frame;
        self
    }

    /// Width in cells.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Where the grid lies in the world.
    pub fn frame(&self) -> MapFrame {
        self.frame
    }

    /// Row-major blocked flags, `[y * width + x]`.
    pub fn blocked_cells(&self) -> &[bool] {
        &self.blocked
    }

    /// Whether `c` is on the map.
    pub fn contains(&self, c: Cell) -> bool {
        c.x >= 0 && c.y >= 0 && (c.x as usize) < self.width && (c.y as usize) < self.height
    }

    /// Whether `c` is an obstacle; cells off the map count as blocked.
    pub fn is_blocked(&self, c: Cell) -> bool {
        !self.contains(c) || self.blocked[c.y as usize * self.width + c.x as usize]
    }

    /// Whether `c` is on the map and free.
    pub fn is_free(&self, c: Cell) -> bool {
        !self.is_blocked(c)
    }

    /// Marks `c` blocked or free; cells off the map are ignored (returns false).
    pub fn set_blocked(&mut self, c: Cell, blocked: bool) -> bool {
        if !self.contains(c) {
            return false;
        }
        self.blocked[c.y as usize * self.width + c.x as usize] = blocked;
        true
    }

    /// Number of blocked cells.
    pub fn blocked_count(&self) -> usize {
        self.blocked.iter().filter(|b| **b).count()
    }

    /// The cell containing world point `(x_m, y_m)`. The cell may be off the map (the
    /// planner then reports `StartOutside`/`GoalOutside`); far-off points saturate.
    ///
    /// # Errors
    /// [`PlanError::InvalidRequest`] for a non-finite coordinate.
    pub fn world_to_cell(&self, x_m: f64, y_m: f64) -> Result<Cell, PlanError> {
        if !x_m.is_finite() || !y_m.is_finite() {
            return Err(PlanError::InvalidRequest(format!(
                "non-finite point ({x_m}, {y_m})"
            )));
        }
        let f = &self.frame;
        let col = ((x_m - f.origin_x_m) / f.resolution_m).floor();
        let row_up = ((y_m - f.origin_y_m) / f.resolution_m).floor();
        let row = self.height as f64 - 1.0 - row_up;
        // `as` saturates at the i32 range, which is off the map anyway.
        Ok(Cell::new(col as i32, row as i32))
    }

    /// World position of the centre of `c` [m].
    pub fn cell_to_world(&self, c: Cell) -> (f64, f64) {
        let f = &self.frame;
        let x = f.origin_x_m + (f64::from(c.x) + 0.5) * f.resolution_m;
        let y = f.origin_y_m + (self.height as f64 - 1.0 - f64::from(c.y) + 0.5) * f.resolution_m;
        (x, y)
    }
}

/// `Some(blocked)` for a known map character.
pub(crate) fn cell_char(ch: char) -> Option<bool> {
    match ch {
        '.' | 'G' | 'S' => Some(false),
        '#' | '@' | 'O' | 'T' | 'W' => Some(true),
        _ => None,
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Grid {}x{} {:?}", self.width, self.height, self.frame)?;
        for row in self.blocked.chunks(self.width) {
            let line: String = row.iter().map(|b| if *b { '#' } else { '.' }).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_round_trips_through_debug() {
        let g = Grid::from_ascii(".#.\n.#.\n...").unwrap();
        assert_eq!((g.width(), g.height()), (3, 3));
        assert!(g.is_blocked(Cell::new(1, 0)));
        assert!(g.is_free(Cell::new(1, 2)));
        assert!(g.is_blocked(Cell::new(-1, 0)) && g.is_blocked(Cell::new(3, 0)));
        let drawn = format!("{g:?}");
        let body: String = drawn.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(body, ".#.\n.#.\n...");
        assert_eq!(Grid::from_ascii(&body).unwrap(), g);
    }

    #[test]
    fn ascii_rejects_bad_input() {
        assert!(matches!(
            Grid::from_ascii(".x."),
            Err(MapError::BadCell { row: 0, col: 1, .. })
        ));
        assert!(matches!(
            Grid::from_ascii("..\n..."),
            Err(MapError::WrongCellCount { .. })
        ));
        assert!(matches!(
            Grid::from_ascii(""),
            Err(MapError::BadSize { .. })
        ));
    }

    #[test]
    fn world_cell_conversion_uses_lower_left_origin() {
        let frame = MapFrame::new(0.5, -1.0, 2.0).unwrap();
        let g = Grid::free(4, 3).unwrap().with_frame(frame);
        // Bottom-left cell is row 2.
        assert_eq!(g.world_to_cell(-0.9, 2.1).unwrap(), Cell::new(0, 2));
        assert_eq!(g.world_to_cell(0.9, 3.4).unwrap(), Cell::new(3, 0));
        assert_eq!(g.world_to_cell(-1.1, 2.1).unwrap(), Cell::new(-1, 2));
        assert!(!g.contains(g.world_to_cell(1e300, 0.0).unwrap()));
        assert!(g.world_to_cell(f64::NAN, 0.0).is_err());
        for c in [Cell::new(0, 0), Cell::new(3, 2), Cell::new(1, 1)] {
            let (x, y) = g.cell_to_world(c);
            assert_eq!(g.world_to_cell(x, y).unwrap(), c);
        }
        assert_eq!(g.cell_to_world(Cell::new(0, 2)), (-0.75, 2.25));
    }

    #[test]
    fn mirrored_x_flips_columns_and_keeps_the_frame() {
        let g = Grid::from_ascii("#..\n.#.\n..#")
            .unwrap()
            .with_frame(MapFrame::new(0.5, 1.0, 2.0).unwrap());
        let m = g.mirrored_x();
        assert_eq!(
            m.blocked_cells(),
            Grid::from_ascii("..#\n.#.\n#..").unwrap().blocked_cells()
        );
        assert_eq!(m.frame(), g.frame());
        assert_eq!(m.mirrored_x().blocked_cells(), g.blocked_cells());
    }

    #[test]
    fn frame_rejects_bad_values() {
        assert!(MapFrame::new(0.0, 0.0, 0.0).is_err());
        assert!(MapFrame::new(f64::NAN, 0.0, 0.0).is_err());
        assert_eq!(
            MapFrame::new(1.0, f64::INFINITY, 0.0),
            Err(MapError::BadFrame {
                field: "origin_x_m"
            })
        );
    }
}
