//! Goal validation: a MoveTo target is accepted only if it is finite, inside the
//! workspace box, and a fresh arm position exists to start from.

use nalgebra::Point3;

use crate::config::TrajectoryConfig;
use crate::error::TrajectoryError;
use crate::executor::Executor;

/// The latest arm position known to the node and how old it is (the node owns the clock).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmSample {
    /// Measured position, world frame [mm].
    pub position_mm: Point3<f64>,
    /// Time since it was received [ms].
    pub age_ms: u64,
}

/// A goal that passed [`validate_goal`]: where the move starts and where it ends [mm].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcceptedGoal {
    /// The measured arm position the path starts from [mm].
    pub start_mm: Point3<f64>,
    /// The target [mm].
    pub target_mm: Point3<f64>,
}

impl AcceptedGoal {
    /// Plans the path and builds the executor for this goal.
    ///
    /// # Errors
    /// As [`Executor::new`].
    pub fn into_executor(self, config: &TrajectoryConfig) -> Result<Executor, TrajectoryError> {
        Executor::new(self.start_mm, self.target_mm, config)
    }
}

const AXES: [char; 3] = ['x', 'y', 'z'];

/// Checks a target against the workspace and the arm's latest position.
///
/// Checks, in order: the target is finite; inside `workspace_min_mm ..= workspace_max_mm`
/// on every axis (bounds inclusive); an arm position exists, is finite and is at most
/// `position_timeout_ms` old (an age equal to the limit is still fresh).
///
/// # Errors
/// [`TrajectoryError::TargetNotFinite`], [`TrajectoryError::TargetOutsideWorkspace`],
/// [`TrajectoryError::NoArmPosition`], [`TrajectoryError::ArmPositionNotFinite`],
/// [`TrajectoryError::ArmPositionStale`].
pub fn validate_goal(
    target_mm: Point3<f64>,
    arm: Option<ArmSample>,
    config: &TrajectoryConfig,
) -> Result<AcceptedGoal, TrajectoryError> {
    if !target_mm.iter().all(|v| v.is_finite()) {
        return Err(TrajectoryError::TargetNotFinite { target_mm });
    }
    let (min, max) = (config.workspace_min_mm(), config.workspace_max_mm());
    for (i, axis) in AXES.iter().enumerate() {
        let v = target_mm[i];
        if v < min[i] || v > max[i] {
            return Err(TrajectoryError::TargetOutsideWorkspace {
                axis: *axis,
                value_mm: v,
                min_mm: min[i],
                max_mm: max[i],
            });
        }
    }
    let arm = arm.ok_or(TrajectoryError::NoArmPosition)?;
    if !arm.position_mm.iter().all(|v| v.is_finite()) {
        return Err(TrajectoryError::ArmPositionNotFinite {
            position_mm: arm.position_mm,
        });
    }
    if arm.age_ms > config.position_timeout_ms() {
        return Err(TrajectoryError::ArmPositionStale {
            age_ms: arm.age_ms,
            timeout_ms: config.position_timeout_ms(),
        });
    }
    Ok(AcceptedGoal {
        start_mm: arm.position_mm,
        target_mm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(p: Point3<f64>) -> Option<ArmSample> {
        Some(ArmSample {
            position_mm: p,
            age_ms: 10,
        })
    }

    #[test]
    fn accepts_a_good_goal() {
        let c = TrajectoryConfig::default();
        let g = validate_goal(Point3::new(100.0, 0.0, 1000.0), fresh(Point3::origin()), &c);
        assert_eq!(
            g,
            Ok(AcceptedGoal {
                start_mm: Point3::origin(),
                target_mm: Point3::new(100.0, 0.0, 1000.0)
            })
        );
    }

    #[test]
    fn rejects_each_bad_input_with_its_own_variant() {
        let c = TrajectoryConfig::default();
        let arm = fresh(Point3::origin());
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(matches!(
                validate_goal(Point3::new(0.0, bad, 0.0), arm, &c),
                Err(TrajectoryError::TargetNotFinite { .. })
            ));
        }
        assert_eq!(
            validate_goal(Point3::new(0.0, 0.0, -1000.5), arm, &c),
            Err(TrajectoryError::TargetOutsideWorkspace {
                axis: 'z',
                value_mm: -1000.5,
                min_mm: -1000.0,
                max_mm: 1000.0
            })
        );
        assert_eq!(
            validate_goal(Point3::origin(), None, &c),
            Err(TrajectoryError::NoArmPosition)
        );
        assert_eq!(
            validate_goal(
                Point3::origin(),
                Some(ArmSample {
                    position_mm: Point3::origin(),
                    age_ms: c.position_timeout_ms() + 1
                }),
                &c
            ),
            Err(TrajectoryError::ArmPositionStale {
                age_ms: c.position_timeout_ms() + 1,
                timeout_ms: c.position_timeout_ms()
            })
        );
        assert!(validate_goal(
            Point3::origin(),
            Some(ArmSample {
                position_mm: Point3::origin(),
                age_ms: c.position_timeout_ms()
            }),
            &c
        )
        .is_ok());
        assert!(matches!(
            validate_goal(Point3::origin(), fresh(Point3::new(f64::NAN, 0.0, 0.0)), &c),
            Err(TrajectoryError::ArmPositionNotFinite { .. })
        ));
    }

    #[test]
    fn target_checks_come_before_arm_checks() {
        // A bad target is reported as such even when there is no arm position.
        let c = TrajectoryConfig::default();
        assert!(matches!(
            validate_goal(Point3::new(5000.0, 0.0, 0.0), None, &c),
            Err(TrajectoryError::TargetOutsideWorkspace { axis: 'x', .. })
        ));
    }
}
