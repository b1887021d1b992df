//! Conversions at the topic edge: points (metres ↔ millimetres, with [`crate::units`]),
//! feedback, and the `MoveTo` outcome and phase constants.
use nalgebra::Point3;
use node_glue::r2r::{arnie_interfaces::action::MoveTo, geometry_msgs::msg::Point};

use crate::units::{m_to_mm, mm_to_m, scalar_mm_to_m};
use crate::{Feedback, Outcome};

/// The MoveTo `outcome` constant of each library outcome (the one place they meet).
pub(crate) fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::Reached => MoveTo::Result::REACHED as u8,
        Outcome::ReversedToStart => MoveTo::Result::REVERSED_TO_START as u8,
        Outcome::AbortedHelpNeeded => MoveTo::Result::ABORTED_HELP_NEEDED as u8,
        Outcome::Cancelled => MoveTo::Result::CANCELLED as u8,
        Outcome::Rejected => MoveTo::Result::REJECTED as u8,
        Outcome::Preempted => MoveTo::Result::PREEMPTED as u8,
        Outcome::ReachedByDetour => MoveTo::Result::REACHED_BY_DETOUR as u8,
    }
}

pub(crate) fn phase_code(p: crate::Phase) -> u8 {
    use crate::Phase;
    match p {
        Phase::Forward => MoveTo::Feedback::FORWARD as u8,
        Phase::Reversing => MoveTo::Feedback::REVERSING as u8,
        Phase::Waiting => MoveTo::Feedback::WAITING as u8,
        Phase::Detour => MoveTo::Feedback::DETOUR as u8,
    }
}

pub(crate) fn to_point(p_mm: Point3<f64>) -> Point {
    let m = mm_to_m(p_mm);
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
    m_to_mm(Point3::new(p.x, p.y, p.z))
}

pub(crate) fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
}

pub(crate) fn feedback(f: &Feedback) -> MoveTo::Feedback {
    MoveTo::Feedback {
        phase: phase_code(f.phase),
        setpoint: to_point(f.setpoint_mm),
        measured: to_point(f.measured_mm),
        progress: f.progress,
        index: f.index,
        count: f.count,
        tracking_error: scalar_mm_to_m(f.tracking_error_mm),
    }
}
