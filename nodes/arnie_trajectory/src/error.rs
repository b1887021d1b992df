//! The crate's one error enum: every way a config, a goal, a plan or a detour can be
//! refused.

use nalgebra::Point3;

/// Every failure of the library, one variant per failure.
///
/// Goal rejections ([`TargetNotFinite`](Self::TargetNotFinite) …
/// [`ArmPositionStale`](Self::ArmPositionStale)) are normal flow: the node answers the
/// MoveTo goal with outcome `REJECTED` and this error's `Display` text as `message`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TrajectoryError {
    /// A configuration value is out of range; `field` is the parameter name as written.
    #[error("invalid parameter `{field}`: {reason}")]
    InvalidConfig {
        /// The parameter, e.g. `"tracking_tolerance_mm"`.
        field: &'static str,
        /// What is wrong with it, readable by a user.
        reason: String,
    },
    /// The target has a NaN or infinite coordinate.
    #[error(
        "target ({}, {}, {}) mm has a NaN or infinite coordinate",
        .target_mm.x, .target_mm.y, .target_mm.z
    )]
    TargetNotFinite {
        /// The target as received [mm].
        target_mm: Point3<f64>,
    },
    /// The target lies outside the configured workspace box on some axis.
    #[error("target {axis} = {value_mm} mm is outside the workspace [{min_mm}, {max_mm}] mm")]
    TargetOutsideWorkspace {
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// The target's value on that axis [mm].
        value_mm: f64,
        /// Allowed minimum on that axis [mm].
        min_mm: f64,
        /// Allowed maximum on that axis [mm].
        max_mm: f64,
    },
    /// No arm position has been received yet, so there is no start point.
    #[error("no arm position received yet, so the move has no start point")]
    NoArmPosition,
    /// The last arm position has a NaN or infinite coordinate.
    #[error(
        "last arm position ({}, {}, {}) mm has a NaN or infinite coordinate",
        .position_mm.x, .position_mm.y, .position_mm.z
    )]
    ArmPositionNotFinite {
        /// The position as received [mm].
        position_mm: Point3<f64>,
    },
    /// The last arm position is older than `position_timeout_ms`.
    #[error("last arm position is {age_ms} ms old (limit {timeout_ms} ms); is the arm streaming?")]
    ArmPositionStale {
        /// Age of the last arm position [ms].
        age_ms: u64,
        /// The configured limit [ms].
        timeout_ms: u64,
    },
    /// A path would need more samples than [`crate::minjerk::MAX_SAMPLES`]
    /// (or its length is not a finite number).
    #[error("a path of {distance_mm} mm at {factor} samples/mm needs too many set-points")]
    TooManySamples {
        /// Distance between start and goal [mm].
        distance_mm: f64,
        /// Samples per millimetre.
        factor: u32,
    },
    /// A legacy `x,y,z` target text could not be read.
    #[error("legacy target {text:?} rejected: {reason}")]
    LegacyParse {
        /// The text as received.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An obstruction to remember has a NaN or infinite coordinate.
    #[error(
        "obstruction at ({}, {}, {}) mm has a NaN or infinite coordinate",
        .centre_mm.x, .centre_mm.y, .centre_mm.z
    )]
    ObstructionNotFinite {
        /// The centre as passed [mm].
        centre_mm: Point3<f64>,
    },
    /// A detour's start or target has a NaN or infinite coordinate.
    #[error(
        "detour {which} ({}, {}, {}) mm has a NaN or infinite coordinate",
        .point_mm.x, .point_mm.y, .point_mm.z
    )]
    DetourPointNotFinite {
        /// `"start"` or `"target"`.
        which: &'static str,
        /// The point as passed [mm].
        point_mm: Point3<f64>,
    },
    /// A detour's start or target lies outside the workspace box on some axis.
    #[error(
        "detour {which} {axis} = {value_mm} mm is outside the workspace [{min_mm}, {max_mm}] mm"
    )]
    DetourPointOutsideWorkspace {
        /// `"start"` or `"target"`.
        which: &'static str,
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// The point's value on that axis [mm].
        value_mm: f64,
        /// Allowed minimum on that axis [mm].
        min_mm: f64,
        /// Allowed maximum on that axis [mm].
        max_mm: f64,
    },
    /// The detour's target lies inside the clearance of a fixed box (a fixed obstacle from
    /// the parameters: the table). A learned obstruction never refuses a target by itself.
    #[error(
        "target ({:.1}, {:.1}, {:.1}) mm is inside the clearance of {by}",
        .target_mm.x, .target_mm.y, .target_mm.z
    )]
    TargetBlocked {
        /// The target [mm].
        target_mm: Point3<f64>,
        /// What it is inside, readable by a user (e.g. `obstruction 3 …`, `box "table"`).
        by: String,
    },
    /// The target lies inside learned obstructions and no way in from another side was
    /// found: names them and every side tried, with why it failed.
    #[error(
        "no approach to the target ({:.1}, {:.1}, {:.1}) mm inside {inside}: tried {tried}",
        .target_mm.x, .target_mm.y, .target_mm.z
    )]
    NoApproach {
        /// The target [mm].
        target_mm: Point3<f64>,
        /// The learned obstructions it lies in, readable (id, centre, radius, how touched).
        inside: String,
        /// The sides tried and why each failed, readable.
        tried: String,
    },
    /// A stop's evidence has a NaN or infinite value: nothing learned.
    #[error(
        "contact at ({}, {}, {}) mm (set-point ({}, {}, {}) mm) has a NaN or infinite value; \
         nothing learned",
        .measured_mm.x, .measured_mm.y, .measured_mm.z,
        .expected_mm.x, .expected_mm.y, .expected_mm.z
    )]
    ContactNotFinite {
        /// The arm's measured position [mm].
        measured_mm: Point3<f64>,
        /// The set-point it could not follow [mm].
        expected_mm: Point3<f64>,
    },
    /// A stop while the set-points were not moving (or with the arm on its set-point): no
    /// direction, no "ahead"; nothing learned.
    #[error(
        "contact at ({:.1}, {:.1}, {:.1}) mm while the set-points were not moving: no \
         direction to learn from; nothing learned",
        .measured_mm.x, .measured_mm.y, .measured_mm.z
    )]
    ContactNotMoving {
        /// The arm's measured position [mm].
        measured_mm: Point3<f64>,
    },
    /// A stop with the arm outside the workspace: nothing learned.
    #[error(
        "contact with the arm at {axis} = {value_mm} mm, outside the workspace [{min_mm}, \
         {max_mm}] mm; nothing learned"
    )]
    ContactOutsideWorkspace {
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// The arm's value on that axis [mm].
        value_mm: f64,
        /// Allowed minimum on that axis [mm].
        min_mm: f64,
        /// Allowed maximum on that axis [mm].
        max_mm: f64,
    },
    /// The detour search visited every reachable cell of its grid: at this resolution no
    /// path from the start to the target keeps the clearances (e.g. a wall closes the
    /// workspace).
    #[error(
        "no detour exists on a {resolution_mm} mm grid (all {expanded} reachable cells searched)"
    )]
    NoDetour {
        /// The grid's resolution [mm].
        resolution_mm: f64,
        /// Cells expanded before the search ran out of cells.
        expanded: usize,
    },
    /// The detour search stopped at its node-expansion budget without reaching the
    /// target; a path may exist (a larger budget or a coarser grid may find it).
    #[error("no detour found within the planning budget of {budget} cells")]
    DetourBudgetExceeded {
        /// The budget: largest number of expanded cells.
        budget: usize,
    },
    /// No way to the target around the remembered obstructions and fixed obstacles: the
    /// goal is refused before moving (clear the obstructions once the way is free).
    #[error(
        "no way to the target around the fixed obstacles and {remembered} remembered \
         obstruction(s) ({reason}); call trajectory/clear_obstructions once the way is free"
    )]
    NoWayAround {
        /// Obstructions remembered when the goal came.
        remembered: usize,
        /// What the planner found.
        reason: Box<TrajectoryError>,
    },
    /// No new arm position arrived while the move held after an obstacle: the stream may
    /// be lost rather than the arm blocked, so nothing is remembered and no detour taken.
    #[error(
        "no new arm position during the {periods}-period hold: the position stream \
         may be lost rather than the arm blocked; nothing remembered"
    )]
    PositionNotUpdated {
        /// The hold [periods].
        periods: u32,
    },
    /// The move already planned its allowed number of detours after stops
    /// (`max_detour_replans`).
    #[error("this move already re-planned {replans} detour(s) after stops, its limit")]
    DetourReplansUsed {
        /// Detours planned after stops in this move.
        replans: u32,
    },
    /// No smooth motion along the found path passed the final clearance check, not even
    /// the stop-at-every-via-point fallback (not expected: a numerical corner case).
    #[error("the detour's smooth motion failed its clearance check: {reason}")]
    DetourMotionBlocked {
        /// What the check found.
        reason: MotionBlocked,
    },
}

/// What the clearance check of a detour's smooth motion found
/// ([`TrajectoryError::DetourMotionBlocked`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionBlocked {
    /// A set-point outside the workspace.
    #[error(
        "set-point {index} ({:.1}, {:.1}, {:.1}) mm is outside the workspace",
        .point_mm.x, .point_mm.y, .point_mm.z
    )]
    OutsideWorkspace {
        /// The set-point's index.
        index: usize,
        /// Where it is [mm].
        point_mm: Point3<f64>,
    },
    /// A step between two set-points that enters an obstacle's clearance.
    #[error("the step from set-point {index} enters a clearance")]
    EntersClearance {
        /// The first set-point's index.
        index: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_field_and_the_reason() {
        let e = TrajectoryError::InvalidConfig {
            field: "period_ms",
            reason: "must be at least 1".into(),
        };
        assert_eq!(
            e.to_string(),
            "invalid parameter `period_ms`: must be at least 1"
        );
        let e = TrajectoryError::TargetOutsideWorkspace {
            axis: 'y',
            value_mm: 1200.0,
            min_mm: -1000.0,
            max_mm: 1000.0,
        };
        assert!(e.to_string().contains("y = 1200 mm"), "{e}");
        let e = TrajectoryError::ArmPositionStale {
            age_ms: 900,
            timeout_ms: 500,
        };
        assert!(e.to_string().contains("900 ms old"), "{e}");
    }
}
