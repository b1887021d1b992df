//! The scale between ROS topics (metres, REP 103) and the library (millimetres): the
//! shared [`Scale::MILLIMETRES`] (`arnie_constants::units`, the one conversion every node
//! uses), for `nalgebra` points.
//!
//! The library works in millimetres only; the node converts with these helpers exactly
//! once, at the topic edge.

use arnie_constants::units::Scale;
use nalgebra::Point3;

/// The library's lengths are millimetres.
pub const SCALE: Scale = Scale::MILLIMETRES;

/// Metres (topic) → millimetres (library).
pub fn m_to_mm(p_m: Point3<f64>) -> Point3<f64> {
    Point3::from(SCALE.point_from_m(p_m.into()))
}

/// Millimetres (library) → metres (topic).
pub fn mm_to_m(p_mm: Point3<f64>) -> Point3<f64> {
    Point3::from(SCALE.point_to_m(p_mm.into()))
}

/// A millimetre scalar (e.g. a tracking error) → metres.
pub fn scalar_mm_to_m(v_mm: f64) -> f64 {
    SCALE.to_m(v_mm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_exact_for_whole_millimetres() {
        let p = Point3::new(0.123, -0.5, 1.0);
        let mm = m_to_mm(p);
        assert_eq!(mm, Point3::new(123.0, -500.0, 1000.0));
        assert_eq!(mm_to_m(mm), p);
        assert_eq!(scalar_mm_to_m(25.0), 0.025);
    }
}
