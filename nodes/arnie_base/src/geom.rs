//! Planar poses in the map frame: metres, radians counter-clockwise from +x (REP 103).
//! The pose and the angle wrap are `arnie_math`'s, shared with the table and its board.

pub use arnie_math::{wrap_angle, Pose2};

/// Length of the polyline through `points` [m].
pub fn polyline_length(points: &[(f64, f64)]) -> f64 {
    points
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polylines_add_up() {
        assert_eq!(polyline_length(&[(0.0, 0.0), (3.0, 4.0), (3.0, 5.0)]), 6.0);
        assert_eq!(polyline_length(&[(1.0, 1.0)]), 0.0);
    }
}
