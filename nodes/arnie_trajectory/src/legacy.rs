//! The original automatic mode for a plain target topic (no action client): a repeat of
//! the last accepted target is ignored, and a new target preempts the running move.
//!
//! "Repeat" means every axis within [`REPEAT_EPSILON_MM`] (1 nm) of the last accepted
//! target: exact repeats, and repeats that went through a metres↔millimetres round trip
//! (relative error ~1e-16, far below 1 nm in a ±1 m workspace), are both caught, while
//! any target a user could mean differently (≥ 1 µm) is new. The last accepted target is
//! remembered after its move ends, so a target streamed over and over starts one move.
//! Targets must pass [`crate::goal::validate_goal`] first; a rejected target is not
//! remembered (call [`LegacyTargets::offer`] only for accepted ones).

use nalgebra::Point3;

use crate::error::TrajectoryError;

/// Per-axis distance under which two targets are the same [mm].
pub const REPEAT_EPSILON_MM: f64 = 1e-6;

/// What to do with a target from the legacy topic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LegacyVerdict {
    /// Same as the last accepted target: ignore it (count it).
    Repeat,
    /// Nothing running: start a move to it.
    Start,
    /// A move is running: preempt it (outcome `PREEMPTED`) and start a move to this one.
    Preempt,
}

/// Remembers the last accepted legacy target.
#[derive(Debug, Clone, Default)]
pub struct LegacyTargets {
    last_mm: Option<Point3<f64>>,
    repeats: u64,
}

impl LegacyTargets {
    /// No target seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decides on a (validated) target; `move_running` says whether a move is in progress.
    /// A non-repeat becomes the new last target.
    pub fn offer(&mut self, target_mm: Point3<f64>, move_running: bool) -> LegacyVerdict {
        if let Some(last) = self.last_mm {
            if (target_mm - last).abs().max() <= REPEAT_EPSILON_MM {
                self.repeats += 1;
                return LegacyVerdict::Repeat;
            }
        }
        self.last_mm = Some(target_mm);
        if move_running {
            LegacyVerdict::Preempt
        } else {
            LegacyVerdict::Start
        }
    }

    /// The last accepted target [mm].
    pub fn last_mm(&self) -> Option<Point3<f64>> {
        self.last_mm
    }

    /// Repeats ignored so far.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// Forgets the last target, so the same target starts a move again (e.g. after the
    /// operator cleared an `ABORTED_HELP_NEEDED`).
    pub fn forget(&mut self) {
        self.last_mm = None;
    }
}

/// Reads a legacy target text `x,y,z[,...]` [mm]: the first three fields, extra fields
/// ignored (as the original); surrounding spaces allowed.
///
/// # Errors
/// [`TrajectoryError::LegacyParse`] for fewer than three fields or a non-number.
/// (NaN/∞ parse; [`crate::goal::validate_goal`] rejects them.)
pub fn parse_target(text: &str) -> Result<Point3<f64>, TrajectoryError> {
    let err = |reason| TrajectoryError::LegacyParse {
        text: text.to_owned(),
        reason,
    };
    let mut fields = text.split(',').map(str::trim);
    let mut v = [0.0; 3];
    for slot in &mut v {
        let f = fields
            .next()
            .ok_or_else(|| err("fewer than three fields"))?;
        *slot = f
            .parse::<f64>()
            .map_err(|_| err("a field is not a number"))?;
    }
    Ok(Point3::new(v[0], v[1], v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_is_ignored_and_newest_wins() {
        let mut l = LegacyTargets::new();
        let a = Point3::new(100.0, 0.0, 50.0);
        let b = Point3::new(100.0, 0.001, 50.0);
        assert_eq!(l.offer(a, false), LegacyVerdict::Start);
        assert_eq!(l.offer(a, true), LegacyVerdict::Repeat);
        // A metre round trip still counts as a repeat.
        let a_rt = crate::units::SCALE.from_m(crate::units::SCALE.to_m(a));
        assert_eq!(l.offer(a_rt, true), LegacyVerdict::Repeat);
        // Still a repeat after the move ended.
        assert_eq!(l.offer(a, false), LegacyVerdict::Repeat);
        assert_eq!(l.repeats(), 3);
        // 1 µm away is a new target and preempts.
        assert_eq!(l.offer(b, true), LegacyVerdict::Preempt);
        assert_eq!(l.last_mm(), Some(b));
        // Going back to the old one is new again.
        assert_eq!(l.offer(a, true), LegacyVerdict::Preempt);
        l.forget();
        assert_eq!(l.offer(a, false), LegacyVerdict::Start);
    }

    #[test]
    fn parses_first_three_fields() {
        assert_eq!(parse_target("1, 2.5,-3"), Ok(Point3::new(1.0, 2.5, -3.0)));
        assert_eq!(parse_target("1,2,3,0.9"), Ok(Point3::new(1.0, 2.0, 3.0)));
        assert!(matches!(
            parse_target("1,2"),
            Err(TrajectoryError::LegacyParse { .. })
        ));
        assert!(matches!(
            parse_target("1,x,3"),
            Err(TrajectoryError::LegacyParse { .. })
        ));
        assert!(matches!(
            parse_target(""),
            Err(TrajectoryError::LegacyParse { .. })
        ));
    }
}
