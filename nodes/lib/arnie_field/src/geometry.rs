//! Plane geometry for the table: distances to shapes and ray casts (the proximity
//! sensors). Metres and radians; nothing here allocates.
use crate::scenario::{Disc, Rect, Scenario, Shape};

/// Distance from a point to a shape (0 inside).
pub fn shape_distance(shape: &Shape, x: f64, y: f64) -> f64 {
    match shape {
        Shape::Rect(r) => {
            let dx = (r.x_min_m - x).max(0.0).max(x - r.x_max_m);
            let dy = (r.y_min_m - y).max(0.0).max(y - r.y_max_m);
            dx.hypot(dy)
        }
        Shape::Disc(d) => ((x - d.x_m).hypot(y - d.y_m) - d.radius_m).max(0.0),
    }
}

/// Distance along the ray `(x, y) + t (dx, dy)` (unit direction) to a rectangle, when it
/// hits within `max`; a ray starting inside hits at 0.
pub fn ray_rect(x: f64, y: f64, dx: f64, dy: f64, r: &Rect, max: f64) -> Option<f64> {
    let mut t0 = 0.0f64;
    let mut t1 = max;
    for (o, d, lo, hi) in [(x, dx, r.x_min_m, r.x_max_m), (y, dy, r.y_min_m, r.y_max_m)] {
        if d.abs() < 1e-12 {
            if o < lo || o > hi {
                return None;
            }
        } else {
            let (a, b) = ((lo - o) / d, (hi - o) / d);
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            t0 = t0.max(a);
            t1 = t1.min(b);
            if t0 > t1 {
                return None;
            }
        }
    }
    Some(t0)
}

/// Distance along the ray to a disc, when it hits within `max` (0 from inside).
pub fn ray_disc(x: f64, y: f64, dx: f64, dy: f64, d: &Disc, max: f64) -> Option<f64> {
    let (ox, oy) = (x - d.x_m, y - d.y_m);
    let c = ox * ox + oy * oy - d.radius_m * d.radius_m;
    if c <= 0.0 {
        return Some(0.0);
    }
    let b = ox * dx + oy * dy;
    let disc = b * b - c;
    if b >= 0.0 || disc < 0.0 {
        return None;
    }
    let t = -b - disc.sqrt();
    (t <= max).then_some(t)
}

/// Distance along the ray from a point on the table to its walls (the table's edge).
pub fn ray_walls(x: f64, y: f64, dx: f64, dy: f64, width: f64, height: f64) -> f64 {
    let mut t = f64::INFINITY;
    if dx > 1e-12 {
        t = t.min((width - x) / dx);
    } else if dx < -1e-12 {
        t = t.min(-x / dx);
    }
    if dy > 1e-12 {
        t = t.min((height - y) / dy);
    } else if dy < -1e-12 {
        t = t.min(-y / dy);
    }
    t.max(0.0)
}

/// What a ray hit first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hit {
    /// The table's edge.
    Wall,
    /// A fixed obstacle, by index in the scenario.
    Obstacle(usize),
    /// A moving disc passed to [`cast`] (the opponent).
    Mover,
}

/// Casts a ray over the table: walls, fixed obstacles and the optional moving disc.
/// Returns the nearest hit within `max` metres of the start.
pub fn cast(
    s: &Scenario,
    x: f64,
    y: f64,
    angle: f64,
    max: f64,
    mover: Option<&Disc>,
) -> Option<(f64, Hit)> {
    let (dy, dx) = angle.sin_cos();
    let mut best: Option<(f64, Hit)> = None;
    let mut take = |t: f64, h: Hit| {
        if t <= max && best.is_none_or(|(b, _)| t < b) {
            best = Some((t, h));
        }
    };
    take(
        ray_walls(x, y, dx, dy, s.table.width_m, s.table.height_m),
        Hit::Wall,
    );
    for (i, o) in s.obstacles.iter().enumerate() {
        let t = match o.shape() {
            Shape::Rect(r) => ray_rect(x, y, dx, dy, &r, max),
            Shape::Disc(d) => ray_disc(x, y, dx, dy, &d, max),
        };
        if let Some(t) = t {
            take(t, Hit::Obstacle(i));
        }
    }
    if let Some(t) = mover.and_then(|d| ray_disc(x, y, dx, dy, d, max)) {
        take(t, Hit::Mover);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_rays() {
        let r = Rect {
            x_min_m: 1.0,
            y_min_m: 1.0,
            x_max_m: 2.0,
            y_max_m: 2.0,
        };
        assert_eq!(shape_distance(&Shape::Rect(r), 1.5, 1.5), 0.0);
        assert!((shape_distance(&Shape::Rect(r), 0.0, 1.5) - 1.0).abs() < 1e-12);
        assert!((shape_distance(&Shape::Rect(r), 3.0, 3.0) - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(ray_rect(0.0, 1.5, 1.0, 0.0, &r, 5.0), Some(1.0));
        assert_eq!(ray_rect(0.0, 1.5, -1.0, 0.0, &r, 5.0), None);
        assert_eq!(ray_rect(0.0, 1.5, 1.0, 0.0, &r, 0.5), None);
        assert_eq!(ray_rect(0.0, 2.5, 1.0, 0.0, &r, 5.0), None);
        let d = Disc {
            x_m: 2.0,
            y_m: 0.0,
            radius_m: 0.5,
        };
        assert!((ray_disc(0.0, 0.0, 1.0, 0.0, &d, 5.0).expect("hit") - 1.5).abs() < 1e-12);
        assert_eq!(ray_disc(0.0, 0.0, -1.0, 0.0, &d, 5.0), None);
        assert_eq!(ray_disc(0.0, 0.6, 1.0, 0.0, &d, 5.0), None);
        assert_eq!(ray_disc(2.0, 0.1, 1.0, 0.0, &d, 5.0), Some(0.0));
        assert!((ray_walls(1.0, 1.0, 0.0, 1.0, 3.0, 2.0) - 1.0).abs() < 1e-12);
        assert!((ray_walls(1.0, 1.0, -1.0, 0.0, 3.0, 2.0) - 1.0).abs() < 1e-12);
    }
}
