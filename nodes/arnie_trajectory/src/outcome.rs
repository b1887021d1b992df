//! How a move ends and what phase it is in, mapped 1:1 onto the constants of
//! `arnie_interfaces/action/MoveTo.action` (`outcome` and feedback `phase`).

use std::fmt;

use arnie_constants::action::move_to::feedback;
use nalgebra::{Point3, Vector3};

use crate::error::TrajectoryError;

/// MoveTo result `outcome` (one type with the strategy, which reads it back).
pub use arnie_constants::outcome::MoveOutcome as Outcome;

/// MoveTo feedback `phase`; `code()` is the constant of the same name in the action file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// `FORWARD`: on the way to the target.
    Forward,
    /// `REVERSING`: on the way back to the start after an obstacle.
    Reversing,
    /// `WAITING`: holding still (after an obstacle, or while the arm position is stale).
    Waiting,
    /// `DETOUR`: on a detour around remembered obstructions to the target.
    Detour,
}

impl Phase {
    /// Every phase, in code order.
    pub const ALL: [Phase; 4] = [Self::Forward, Self::Reversing, Self::Waiting, Self::Detour];

    /// The MoveTo constant's value.
    pub const fn code(self) -> u8 {
        match self {
            Self::Forward => feedback::FORWARD,
            Self::Reversing => feedback::REVERSING,
            Self::Waiting => feedback::WAITING,
            Self::Detour => feedback::DETOUR,
        }
    }

    /// The MoveTo constant's name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Forward => "FORWARD",
            Self::Reversing => "REVERSING",
            Self::Waiting => "WAITING",
            Self::Detour => "DETOUR",
        }
    }
}

/// Where the arm failed the ±tolerance check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obstruction {
    /// Index of the set-point the arm should have been near (point k−1, or the last).
    pub index: usize,
    /// That set-point [mm].
    pub expected_mm: Point3<f64>,
    /// The measured position [mm].
    pub measured_mm: Point3<f64>,
    /// Largest per-axis error [mm].
    pub error_mm: f64,
}

/// How a move reached a target that lay inside learned regions: from another side than
/// the one the arm was stopped from.
#[derive(Debug, Clone, PartialEq)]
pub struct Approached {
    /// The side of the target the way in came from (unit; (0, 0, 1): from above).
    pub side: Vector3<f64>,
    /// The learned regions it entered (ids).
    pub into: Vec<u64>,
}

impl fmt::Display for Approached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "approached from {} into learned obstruction(s) {:?}",
            crate::detour::side_name(self.side),
            self.into
        )
    }
}

/// Why a move ended: the outcome plus the detail for the result's `message`.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The arm is within tolerance of the target after the last set-point.
    Reached,
    /// The arm is within tolerance of the target at the end of a detour.
    ReachedByDetour {
        /// The obstruction that made the last detour necessary; `None` when the move was
        /// planned around remembered obstructions from the start and never stopped.
        obstacle: Option<Obstruction>,
        /// Detours planned after a stop (0: planned around known ones from the start).
        replans: u32,
        /// Via-points of the detour run last (start and target excluded).
        via_points: usize,
        /// The target lay inside learned regions: how it was approached.
        approach: Option<Approached>,
        /// Learned regions the move passed through as a probe (no way around them).
        probed: Vec<u64>,
    },
    /// The forward path was obstructed; the arm went back to the start.
    ReversedToStart {
        /// The forward obstruction.
        obstacle: Obstruction,
        /// Why no detour was followed instead (`None`: detours are off).
        no_detour: Option<TrajectoryError>,
    },
    /// The forward path and then the way back were obstructed.
    ReverseBlocked {
        /// The forward obstruction.
        obstacle: Obstruction,
        /// The obstruction on the way back.
        reverse: Obstruction,
    },
    /// The way back could not even be planned (e.g. absurd measured position).
    ReversePlanFailed {
        /// The forward obstruction.
        obstacle: Obstruction,
        /// Why planning failed.
        error: TrajectoryError,
    },
    /// No fresh arm position for `stale_abort_periods` periods in a row.
    PositionStale {
        /// Consecutive periods without a position.
        periods: u32,
    },
    /// The client cancelled.
    Cancelled,
    /// A newer goal replaced this one.
    Preempted,
}

impl End {
    /// The MoveTo outcome of this ending.
    pub fn outcome(&self) -> Outcome {
        match self {
            Self::Reached => Outcome::Reached,
            Self::ReachedByDetour { .. } => Outcome::ReachedByDetour,
            Self::ReversedToStart { .. } => Outcome::ReversedToStart,
            Self::ReverseBlocked { .. }
            | Self::ReversePlanFailed { .. }
            | Self::PositionStale { .. } => Outcome::AbortedHelpNeeded,
            Self::Cancelled => Outcome::Cancelled,
            Self::Preempted => Outcome::Preempted,
        }
    }
}

fn fmt_point(p: &Point3<f64>) -> String {
    format!("({:.1}, {:.1}, {:.1})", p.x, p.y, p.z)
}

impl fmt::Display for Obstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "arm at {} mm is {:.1} mm off set-point {} {} mm",
            fmt_point(&self.measured_mm),
            self.error_mm,
            self.index,
            fmt_point(&self.expected_mm)
        )
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reached => write!(f, "target reached"),
            Self::ReachedByDetour {
                obstacle,
                replans,
                via_points,
                approach,
                probed,
            } => {
                write!(f, "target reached by a detour ({via_points} via-points")?;
                match obstacle {
                    Some(o) => write!(f, ", {replans} planned after a stop; last obstacle: {o}")?,
                    None => write!(f, ", planned around remembered obstructions")?,
                }
                if let Some(a) = approach {
                    write!(f, "; {a}")?;
                }
                if !probed.is_empty() {
                    write!(
                        f,
                        "; through learned obstruction(s) {probed:?}, no way around them: not stopped there"
                    )?;
                }
                write!(f, ")")
            }
            Self::ReversedToStart {
                obstacle,
                no_detour,
            } => {
                write!(f, "obstacle ({obstacle}); reversed to the start")?;
                match no_detour {
                    Some(why) => write!(f, " (no detour: {why})"),
                    None => Ok(()),
                }
            }
            Self::ReverseBlocked { obstacle, reverse } => write!(
                f,
                "obstacle ({obstacle}); the way back is blocked too ({reverse}); arm stopped, help needed"
            ),
            Self::ReversePlanFailed { obstacle, error } => write!(
                f,
                "obstacle ({obstacle}); cannot plan the way back ({error}); arm stopped, help needed"
            ),
            Self::PositionStale { periods } => write!(
                f,
                "no arm position for {periods} periods; arm stopped, help needed"
            ),
            Self::Cancelled => write!(f, "cancelled; arm holds its position"),
            Self::Preempted => write!(f, "preempted by a newer goal"),
        }
    }
}

#[cfg(test)]
mod interface_constants {
    use super::*;
    use arnie_constants::action::move_to::result;
    use arnie_constants::name_of;

    #[test]
    fn every_constant_of_the_action_has_its_variant_of_the_same_name() {
        assert_eq!(Outcome::ALL.len(), result::ALL.len());
        for o in Outcome::ALL {
            assert_eq!(name_of(result::ALL, o.code()), Some(o.name()), "{o:?}");
        }
        assert_eq!(Phase::ALL.len(), feedback::ALL.len());
        for p in Phase::ALL {
            assert_eq!(name_of(feedback::ALL, p.code()), Some(p.name()), "{p:?}");
        }
    }
}
