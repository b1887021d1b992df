//! Decision variables: their names (`start,0,0`, `start,0,arm`), the store of captured
//! points, and how a [`Value`] or a [`Check`] is read against them.
//!
//! A variable is captured each time its decision passes (the newest capture wins) and is
//! read afresh every time a step or a check uses it. BrainJS wrote the first resolved value
//! back into the instructions, so a variable froze at its first capture; here the
//! instructions are never modified.

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::Point3;

use crate::model::{ActionId, Axis, Check, Value};

/// What a variable captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// `<action>,<decision>,arm`: the arm position when the decision passed.
    Arm,
    /// `<action>,<decision>,<i>`: the observation that matched object check `i`.
    Object(usize),
}

/// A parsed, checked variable name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarRef {
    /// The action owning the decision.
    pub action: ActionId,
    /// Decision index within that action.
    pub decision: usize,
    /// What is captured.
    pub slot: Slot,
    /// The name as written (`start,0,0`), for events and snapshots.
    pub text: String,
}

impl fmt::Display for VarRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Split `<action>,<decision>,<slot>` from the right, so an action name may itself hold
/// commas. `None` when the text is not of that shape.
pub fn parse_name(text: &str) -> Option<(&str, usize, Slot)> {
    let mut parts = text.rsplitn(3, ',');
    let slot = parts.next()?.trim();
    let decision = parts.next()?.trim();
    let action = parts.next()?;
    if action.is_empty() {
        return None;
    }
    let decision = parse_index(decision)?;
    let slot = if slot == "arm" {
        Slot::Arm
    } else {
        Slot::Object(parse_index(slot)?)
    };
    Some((action, decision, slot))
}

/// A plain decimal index (no sign, no spaces inside).
fn parse_index(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// One captured value: a point, and for an observation its confidence when it had one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Captured {
    /// Position, mm.
    pub point_mm: Point3<f64>,
    /// The observation's confidence (4th value), if any.
    pub confidence: Option<f64>,
}

/// The variables captured so far, keyed by (action, decision, slot).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Variables {
    map: BTreeMap<(ActionId, usize, Slot), (String, Captured)>,
}

impl Variables {
    /// Store (or overwrite) a capture.
    pub fn set(
        &mut self,
        action: ActionId,
        decision: usize,
        slot: Slot,
        name: String,
        value: Captured,
    ) {
        self.map.insert((action, decision, slot), (name, value));
    }

    /// The current value of a variable.
    pub fn get(&self, var: &VarRef) -> Option<&Captured> {
        self.map
            .get(&(var.action, var.decision, var.slot))
            .map(|(_, c)| c)
    }

    /// Every variable with its name, in a stable order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Captured)> {
        self.map.values().map(|(n, c)| (n.as_str(), c))
    }

    /// How many variables are held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing was captured yet.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value of one axis of a coordinate. `Err` names the variable not captured yet.
    pub fn resolve(&self, value: &Value, axis: Axis) -> Result<f64, VarRef> {
        match value {
            Value::Num(n) => Ok(*n),
            Value::Var(v) => match self.get(v) {
                Some(c) => Ok(c.point_mm[axis.index()]),
                None => Err(v.clone()),
            },
        }
    }

    /// A whole step target.
    pub fn resolve_point(&self, axes: &[Value; 3]) -> Result<Point3<f64>, VarRef> {
        Ok(Point3::new(
            self.resolve(&axes[0], Axis::X)?,
            self.resolve(&axes[1], Axis::Y)?,
            self.resolve(&axes[2], Axis::Z)?,
        ))
    }

    /// The inclusive window `[lo, hi]` of a check on one axis; `Ok(None)` for `-1`.
    pub fn window(&self, check: &Check, axis: Axis) -> Result<Option<(f64, f64)>, VarRef> {
        match check {
            Check::Any => Ok(None),
            Check::Within { value, tolerance } => {
                let v = self.resolve(value, axis)?;
                Ok(Some((v - tolerance, v + tolerance)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_from_the_right() {
        assert_eq!(parse_name("start,0,0"), Some(("start", 0, Slot::Object(0))));
        assert_eq!(parse_name("start,2,arm"), Some(("start", 2, Slot::Arm)));
        assert_eq!(parse_name("a,b,1,3"), Some(("a,b", 1, Slot::Object(3))));
        for bad in [
            "",
            "start",
            "start,0",
            ",0,0",
            "start,-1,0",
            "start,0,-2",
            "start,x,0",
            "start,0,hand",
            "start,0,+1",
        ] {
            assert_eq!(parse_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn recapture_overwrites_and_resolves_fresh() {
        let var = VarRef {
            action: ActionId(0),
            decision: 0,
            slot: Slot::Object(0),
            text: "s,0,0".into(),
        };
        let mut vars = Variables::default();
        assert_eq!(
            vars.resolve(&Value::Var(var.clone()), Axis::Y),
            Err(var.clone())
        );
        for y in [10.0, 20.0] {
            let c = Captured {
                point_mm: Point3::new(1.0, y, 3.0),
                confidence: None,
            };
            vars.set(ActionId(0), 0, Slot::Object(0), "s,0,0".into(), c);
            assert_eq!(vars.resolve(&Value::Var(var.clone()), Axis::Y), Ok(y));
        }
        let check = Check::Within {
            value: Value::Var(var),
            tolerance: 15.0,
        };
        assert_eq!(vars.window(&check, Axis::Z), Ok(Some((-12.0, 18.0))));
        assert_eq!(vars.window(&Check::Any, Axis::Z), Ok(None));
    }
}
