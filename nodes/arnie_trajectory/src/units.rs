//! The one scale between ROS topics (metres, REP 103) and the library (millimetres).
//!
//! The library works in millimetres only; the node converts with these helpers exactly
//! once, at the topic edge.

use nalgebra::Point3;

/// Millimetres per metre: the only scale used between topics and the library.
pub const MM_PER_M: f64 = 1000.0;

/// Metres (topic) → millimetres (library).
pub fn m_to_mm(p_m: Point3<f64>) -> Point3<f64> {
    p_m * MM_PER_M
}

/// Millimetres (library) → metres (topic).
pub fn mm_to_m(p_mm: Point3<f64>) -> Point3<f64> {
    p_mm / MM_PER_M
}

/// A millimetre scalar (e.g. a tracking error) → metres.
pub fn scalar_mm_to_m(v_mm: f64) -> f64 {
    v_mm / MM_PER_M
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
