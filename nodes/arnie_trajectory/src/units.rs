//! The scale between ROS topics (metres, REP 103) and the library (millimetres): the
//! shared [`Scale::MILLIMETRES`] (`arnie_constants::units`, the one conversion every node
//! uses: `SCALE.to_m(p_mm)`, `SCALE.from_m(p_m)` for lengths and `nalgebra` points).
//!
//! The library works in millimetres only; the node converts exactly once, at the topic
//! edge.

use arnie_constants::units::Scale;

/// The library's lengths are millimetres.
pub const SCALE: Scale = Scale::MILLIMETRES;

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    #[test]
    fn round_trip_is_exact_for_whole_millimetres() {
        let p = Point3::new(0.123, -0.5, 1.0);
        let mm = SCALE.from_m(p);
        assert_eq!(mm, Point3::new(123.0, -500.0, 1000.0));
        assert_eq!(SCALE.to_m(mm), p);
        assert_eq!(SCALE.to_m(25.0), 0.025);
    }
}
