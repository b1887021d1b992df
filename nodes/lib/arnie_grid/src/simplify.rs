//! Path post-processing: [`simplify`] keeps only turning points (same segments, so it
//! never cuts through anything); [`smooth`] pulls the string between points that see
//! each other ([`has_line_of_sight`], exact on the grid); [`path_length`] in cells.

use crate::grid::{Cell, Grid};

/// Euclidean length of the polyline through the cells' centres, in cells (a grid path
/// gives 1 per straight and √2 per diagonal step). Metres: × `resolution_m`.
pub fn path_length(points: &[Cell]) -> f64 {
    points
        .windows(2)
        .map(|w| f64::from(w[1].x - w[0].x).hypot(f64::from(w[1].y - w[0].y)))
        .sum()
}

/// Keeps the first and last cell and every cell where the direction changes.
pub fn simplify(cells: &[Cell]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::new();
    for (i, &c) in cells.iter().enumerate() {
        if i == 0 || i + 1 == cells.len() {
            out.push(c);
            continue;
        }
        let (p, n) = (cells[i - 1], cells[i + 1]);
        let d_in = ((c.x - p.x).signum(), (c.y - p.y).signum());
        let d_out = ((n.x - c.x).signum(), (n.y - c.y).signum());
        if d_in != d_out {
            out.push(c);
        }
    }
    out
}

/// Whether the segment between the centres of `a` and `b` touches only free cells.
/// Exact: every cell whose interior the segment crosses is checked, and where it passes
/// exactly through a cell corner the two cells beside that corner must be free too
/// (the no-corner-cutting rule). Cells off the map are blocked.
pub fn has_line_of_sight(grid: &Grid, a: Cell, b: Cell) -> bool {
    let (dx, dy) = (i64::from((b.x - a.x).abs()), i64::from((b.y - a.y).abs()));
    let (sx, sy) = ((b.x - a.x).signum(), (b.y - a.y).signum());
    let (mut x, mut y) = (a.x, a.y);
    // error = (distance to the next vertical line) - (to the next horizontal line), scaled.
    let mut error = dx - dy;
    // At most dx + dy steps; the bound only guards against a logic error.
    for _ in 0..=dx + dy {
        if grid.is_blocked(Cell::new(x, y)) {
            return false;
        }
        if (x, y) == (b.x, b.y) {
            return true;
        }
        if error > 0 {
            x += sx;
            error -= 2 * dy;
        } else if error < 0 {
            y += sy;
            error += 2 * dx;
        } else {
            // Exactly through a corner: the two cells beside it must be free.
            if grid.is_blocked(Cell::new(x + sx, y)) || grid.is_blocked(Cell::new(x, y + sy)) {
                return false;
            }
            x += sx;
            y += sy;
            error += 2 * dx - 2 * dy;
        }
    }
    false
}

/// Any-angle smoothing: from each kept point, jumps to the farthest later cell of
/// `cells` it still sees (greedy string pulling). Never longer than the input, and
/// every segment passes [`has_line_of_sight`].
pub fn smooth(grid: &Grid, cells: &[Cell]) -> Vec<Cell> {
    let Some(&first) = cells.first() else {
        return Vec::new();
    };
    let mut out = vec![first];
    let mut anchor = 0;
    let mut i = 1;
    while i < cells.len() {
        // Extend while visible; `cells[i]` is adjacent to `cells[i - 1]`.
        if i > anchor + 1 && !has_line_of_sight(grid, cells[anchor], cells[i]) {
            anchor = i - 1;
            out.push(cells[anchor]);
        }
        i += 1;
    }
    if let Some(&last) = cells.last() {
        if out.last() != Some(&last) {
            out.push(last);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(v: &[(i32, i32)]) -> Vec<Cell> {
        v.iter().map(|&c| c.into()).collect()
    }

    #[test]
    fn simplify_keeps_turning_points() {
        let path = cells(&[(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (4, 3), (4, 4)]);
        assert_eq!(simplify(&path), cells(&[(0, 0), (2, 0), (4, 2), (4, 4)]));
        assert_eq!(path_length(&simplify(&path)), path_length(&path));
        assert_eq!(simplify(&cells(&[(1, 1)])), cells(&[(1, 1)]));
        assert!(simplify(&[]).is_empty());
    }

    #[test]
    fn line_of_sight_is_exact() {
        let g = Grid::from_ascii("....\n.#..\n....\n....").unwrap();
        assert!(has_line_of_sight(&g, Cell::new(0, 0), Cell::new(3, 0)));
        assert!(
            !has_line_of_sight(&g, Cell::new(0, 0), Cell::new(2, 2)),
            "through (1,1)"
        );
        assert!(
            !has_line_of_sight(&g, Cell::new(0, 2), Cell::new(2, 0)),
            "through (1,1)"
        );
        // Through the corner (3,2): the cells beside it, (3,1) and (2,2), are free.
        assert!(has_line_of_sight(&g, Cell::new(2, 1), Cell::new(3, 2)));
        // Through the corner (2,2), beside the blocked (1,1): a corner cut.
        assert!(!has_line_of_sight(&g, Cell::new(2, 1), Cell::new(1, 2)));
        // (0,0)->(3,1) passes exactly through the corner (2,1) of the blocked (1,1).
        assert!(!has_line_of_sight(&g, Cell::new(0, 0), Cell::new(3, 1)));
        // (2,0)->(3,3) passes the corner (3,2) between free cells.
        assert!(has_line_of_sight(&g, Cell::new(2, 0), Cell::new(3, 3)));
        // (0,0)->(2,3) crosses (1,1).
        assert!(!has_line_of_sight(&g, Cell::new(0, 0), Cell::new(2, 3)));
        assert!(
            !has_line_of_sight(&g, Cell::new(0, 0), Cell::new(4, 0)),
            "off the map"
        );
    }

    #[test]
    fn smoothing_shortens_and_stays_visible() {
        let open = Grid::from_ascii("....\n....\n....").unwrap();
        let l_shape = cells(&[(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2)]);
        assert_eq!(smooth(&open, &l_shape), cells(&[(0, 0), (3, 2)]));
        let g = Grid::from_ascii("......\n.####.\n......\n......").unwrap();
        let path = cells(&[
            (0, 0),
            (0, 1),
            (0, 2),
            (1, 3),
            (2, 3),
            (3, 3),
            (4, 3),
            (5, 3),
        ]);
        let s = smooth(&g, &path);
        assert_eq!(s.first(), path.first());
        assert_eq!(s.last(), path.last());
        assert!(path_length(&s) < path_length(&path));
        assert!(
            s.windows(2).all(|w| has_line_of_sight(&g, w[0], w[1])),
            "{s:?}"
        );
        assert_eq!(smooth(&g, &path[..1]), path[..1].to_vec());
        assert!(smooth(&g, &[]).is_empty());
    }
}
