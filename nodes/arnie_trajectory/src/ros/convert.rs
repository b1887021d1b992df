//! Conversions at the topic edge: points (metres ↔ millimetres, with [`crate::units`])
//! and feedback. The `MoveTo` outcome and phase constants are the library's own
//! ([`crate::Outcome::code`], [`crate::Phase::code`]: generated from the action file, and
//! checked against r2r's by `arnie_constants`).
use nalgebra::Point3;
use node_glue::r2r::{arnie_interfaces::action::MoveTo, geometry_msgs::msg::Point};

use crate::units::SCALE;
use crate::Feedback;

pub(crate) fn to_point(p_mm: Point3<f64>) -> Point {
    let m = SCALE.to_m(p_mm);
    Point {
        x: m.x,
        y: m.y,
        z: m.z,
    }
}

/// A point already in metres as a message point.
pub(crate) fn to_point_m(p_m: Point3<f64>) -> Point {
    Point {
        x: p_m.x,
        y: p_m.y,
        z: p_m.z,
    }
}

pub(crate) fn from_point(p: &Point) -> Point3<f64> {
    SCALE.from_m(Point3::new(p.x, p.y, p.z))
}

pub(crate) fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
}

pub(crate) fn feedback(f: &Feedback) -> MoveTo::Feedback {
    MoveTo::Feedback {
        phase: f.phase.code(),
        setpoint: to_point(f.setpoint_mm),
        measured: to_point(f.measured_mm),
        progress: f.progress,
        index: f.index,
        count: f.count,
        tracking_error: SCALE.to_m(f.tracking_error_mm),
    }
}
