//! Evaluating one decision against the arm position and the observations (pure).
//!
//! Matching of objects: the object checks are taken in file order; check `i` is matched by
//! the first observation, in the order given, that no earlier check has taken and that
//! passes every axis window (and the `certainty` window when the observation carries a
//! confidence). Variable `<action>,<decision>,<i>` is the observation that matched check
//! `i`. (BrainJS named it by the observation's index in a list it spliced while matching,
//! so the name depended on sensor order; see the README.)

use nalgebra::Point3;

use crate::event::Mismatch;
use crate::model::{Axis, Check, Decision, ObjectCheck};
use crate::vars::{Captured, Slot, Variables};

/// An observed object, in mm (legacy frame), with its confidence when the eyes sent one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// Position, mm.
    pub position_mm: Point3<f64>,
    /// The 4th value of the observation, if present.
    pub confidence: Option<f64>,
}

impl Observation {
    /// An observation without confidence.
    pub fn at(x: f64, y: f64, z: f64) -> Self {
        Observation {
            position_mm: Point3::new(x, y, z),
            confidence: None,
        }
    }

    /// The same observation with a confidence.
    pub fn with_confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }

    /// All values finite (non-finite observations are ignored by the brain).
    pub fn is_finite(&self) -> bool {
        self.position_mm.iter().all(|v| v.is_finite())
            && !matches!(self.confidence, Some(c) if !c.is_finite())
    }
}

/// The windows of three checks, resolved now.
type Windows = [Option<(f64, f64)>; 3];

fn windows(checks: &[Check; 3], vars: &Variables) -> Result<Windows, Mismatch> {
    let mut out = [None; 3];
    for axis in Axis::ALL {
        out[axis.index()] = vars
            .window(&checks[axis.index()], axis)
            .map_err(|v| Mismatch::MissingVariable { name: v.text })?;
    }
    Ok(out)
}

fn inside(w: Option<(f64, f64)>, v: f64) -> bool {
    match w {
        Some((lo, hi)) => lo <= v && v <= hi,
        None => true,
    }
}

fn matches(check: &ObjectCheck, w: &Windows, o: &Observation) -> bool {
    let axes_ok = Axis::ALL
        .iter()
        .all(|a| inside(w[a.index()], o.position_mm[a.index()]));
    let certainty_ok = match (check.certainty, o.confidence) {
        (Some((v, t)), Some(c)) => v - t <= c && c <= v + t,
        _ => true,
    };
    axes_ok && certainty_ok
}

/// Evaluate `decision`. On success, the captures to store: the arm, then one per object
/// check. On failure, the first check that failed.
pub fn evaluate(
    decision: &Decision,
    arm_mm: Point3<f64>,
    seen: &[Observation],
    vars: &Variables,
) -> Result<Vec<(Slot, Captured)>, Mismatch> {
    let arm_w = windows(&decision.arm, vars)?;
    for axis in Axis::ALL {
        let actual = arm_mm[axis.index()];
        if let Some((lo, hi)) = arm_w[axis.index()] {
            if !(lo <= actual && actual <= hi) {
                return Err(Mismatch::Arm {
                    axis,
                    actual_mm: actual,
                    lo_mm: lo,
                    hi_mm: hi,
                });
            }
        }
    }
    let mut captures = Vec::with_capacity(1 + decision.objects.len());
    captures.push((
        Slot::Arm,
        Captured {
            point_mm: arm_mm,
            confidence: None,
        },
    ));
    let mut used = vec![false; seen.len()];
    for (i, check) in decision.objects.iter().enumerate() {
        let w = windows(&check.axes, vars)?;
        let found = seen
            .iter()
            .enumerate()
            .find(|(j, o)| !used.get(*j).copied().unwrap_or(true) && matches(check, &w, o));
        let Some((j, o)) = found else {
            return Err(Mismatch::NoObject {
                index: i,
                seen: seen.len(),
            });
        };
        if let Some(u) = used.get_mut(j) {
            *u = true;
        }
        captures.push((
            Slot::Object(i),
            Captured {
                point_mm: o.position_mm,
                confidence: o.confidence,
            },
        ));
    }
    Ok(captures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ActionId, Next, Value};

    fn within(v: f64, t: f64) -> Check {
        Check::Within {
            value: Value::Num(v),
            tolerance: t,
        }
    }

    fn decision(arm: [Check; 3], objects: Vec<ObjectCheck>) -> Decision {
        let next = Next {
            action: ActionId(0),
            delay: 0,
        };
        Decision {
            execute_after: 0,
            arm,
            objects,
            success: next,
            fail: next,
        }
    }

    #[test]
    fn arm_windows_are_inclusive() {
        let d = decision([within(0.0, 15.0), Check::Any, Check::Any], vec![]);
        let vars = Variables::default();
        assert!(evaluate(&d, Point3::new(15.0, 999.0, -999.0), &[], &vars).is_ok());
        assert!(evaluate(&d, Point3::new(-15.0, 0.0, 0.0), &[], &vars).is_ok());
        let err = evaluate(&d, Point3::new(15.5, 0.0, 0.0), &[], &vars).unwrap_err();
        assert_eq!(
            err,
            Mismatch::Arm {
                axis: Axis::X,
                actual_mm: 15.5,
                lo_mm: -15.0,
                hi_mm: 15.0
            }
        );
    }

    #[test]
    fn each_observation_matches_one_check_and_certainty_needs_a_confidence() {
        let any = ObjectCheck {
            axes: [Check::Any, Check::Any, Check::Any],
            certainty: Some((75.0, 25.0)),
        };
        let d = decision([Check::Any, Check::Any, Check::Any], vec![any.clone(), any]);
        let vars = Variables::default();
        let arm = Point3::origin();
        let low = Observation::at(1.0, 1.0, 1.0).with_confidence(10.0);
        let good = Observation::at(2.0, 2.0, 2.0).with_confidence(80.0);
        let bare = Observation::at(3.0, 3.0, 3.0);
        // One usable observation cannot satisfy two checks.
        assert_eq!(
            evaluate(&d, arm, &[low, good], &vars).unwrap_err(),
            Mismatch::NoObject { index: 1, seen: 2 }
        );
        let caps = evaluate(&d, arm, &[low, good, bare], &vars).unwrap();
        assert_eq!(
            caps[1],
            (
                Slot::Object(0),
                Captured {
                    point_mm: good.position_mm,
                    confidence: Some(80.0)
                }
            )
        );
        assert_eq!(
            caps[2],
            (
                Slot::Object(1),
                Captured {
                    point_mm: bare.position_mm,
                    confidence: None
                }
            )
        );
    }
}
