//! Stage two of loading: raw instructions → checked [`Instructions`].
//!
//! Resolves every action name to an [`ActionId`] and every variable to a [`VarRef`] that
//! points at an existing action, decision and object check; rejects an empty action set,
//! empty trajectories and an `executeAfter` past the last step. Errors name the path.

use crate::error::BrainError;
use crate::loader::{RawAction, RawCheck, RawDecision, RawInstructions, RawNext, RawValue};
use crate::model::{
    Action, ActionId, Check, Decision, Instructions, Next, ObjectCheck, Reset, Step, Value,
};
use crate::vars::{parse_name, Slot, VarRef};

/// Names and shapes of all actions, for resolving names and variables.
struct Index<'a> {
    /// Sorted action names; the position is the [`ActionId`].
    names: Vec<&'a str>,
    /// Per action, per decision: number of object checks.
    objects: Vec<Vec<usize>>,
}

impl Index<'_> {
    fn id(&self, name: &str) -> Option<ActionId> {
        self.names.binary_search(&name).ok().map(ActionId)
    }

    fn next(&self, raw: &RawNext, path: &str) -> Result<Next, BrainError> {
        let action = self
            .id(&raw.action)
            .ok_or_else(|| BrainError::UnknownAction {
                path: format!("{path}.action"),
                name: raw.action.clone(),
            })?;
        Ok(Next {
            action,
            delay: raw.delay,
        })
    }

    fn var(&self, text: &str, path: &str) -> Result<VarRef, BrainError> {
        let (action_name, decision, slot) =
            parse_name(text).ok_or_else(|| BrainError::BadVariable {
                path: path.to_owned(),
                text: text.to_owned(),
            })?;
        let action = self
            .id(action_name)
            .ok_or_else(|| BrainError::VariableUnknownAction {
                path: path.to_owned(),
                var: text.to_owned(),
                action: action_name.to_owned(),
            })?;
        let decisions = self
            .objects
            .get(action.0)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let Some(&objects) = decisions.get(decision) else {
            return Err(BrainError::VariableUnknownDecision {
                path: path.to_owned(),
                var: text.to_owned(),
                decisions: decisions.len(),
            });
        };
        if let Slot::Object(i) = slot {
            if i >= objects {
                return Err(BrainError::VariableUnknownObject {
                    path: path.to_owned(),
                    var: text.to_owned(),
                    objects,
                });
            }
        }
        Ok(VarRef {
            action,
            decision,
            slot,
            text: text.to_owned(),
        })
    }

    fn value(&self, raw: &RawValue, path: &str) -> Result<Value, BrainError> {
        match raw {
            RawValue::Num(n) => Ok(Value::Num(*n)),
            RawValue::Text(t) => Ok(Value::Var(self.var(t, path)?)),
        }
    }

    fn checks(&self, raw: &[RawCheck; 3], path: &str) -> Result<[Check; 3], BrainError> {
        let one = |c: &RawCheck, axis: &str| -> Result<Check, BrainError> {
            match c {
                RawCheck::Any => Ok(Check::Any),
                RawCheck::Within(v, t) => Ok(Check::Within {
                    value: self.value(v, &format!("{path}.{axis}"))?,
                    tolerance: *t,
                }),
            }
        };
        Ok([one(&raw[0], "x")?, one(&raw[1], "y")?, one(&raw[2], "z")?])
    }
}

/// Check and resolve a parsed file.
pub fn validate(raw: &RawInstructions) -> Result<Instructions, BrainError> {
    if raw.actions.is_empty() {
        return Err(BrainError::NoActions {
            path: "actions".into(),
        });
    }
    // Sort here: the JSON map's order depends on serde_json features.
    let mut sorted: Vec<&(String, RawAction)> = raw.actions.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let index = Index {
        names: sorted.iter().map(|(n, _)| n.as_str()).collect(),
        objects: sorted
            .iter()
            .map(|(_, a)| a.decisions.iter().map(|d| d.objects.len()).collect())
            .collect(),
    };
    let mut actions = Vec::with_capacity(sorted.len());
    for (name, action) in &sorted {
        actions.push(validate_action(&index, name, action)?);
    }
    let initial_action =
        index
            .id(&raw.initial_action)
            .ok_or_else(|| BrainError::UnknownAction {
                path: "initialAction".into(),
                name: raw.initial_action.clone(),
            })?;
    Ok(Instructions {
        initial_action,
        actions,
    })
}

fn validate_action(index: &Index<'_>, name: &str, raw: &RawAction) -> Result<Action, BrainError> {
    let path = format!("actions.{name}");
    if raw.trajectory.is_empty() {
        return Err(BrainError::EmptyTrajectory {
            path: format!("{path}.trajectory"),
        });
    }
    let mut trajectory = Vec::with_capacity(raw.trajectory.len());
    for (i, step) in raw.trajectory.iter().enumerate() {
        let spath = format!("{path}.trajectory[{i}]");
        trajectory.push(Step {
            axes: [
                index.value(&step[0], &format!("{spath}.x"))?,
                index.value(&step[1], &format!("{spath}.y"))?,
                index.value(&step[2], &format!("{spath}.z"))?,
            ],
        });
    }
    let mut decisions = Vec::with_capacity(raw.decisions.len());
    for (i, d) in raw.decisions.iter().enumerate() {
        decisions.push(validate_decision(
            index,
            d,
            &format!("{path}.decisions[{i}]"),
            trajectory.len(),
        )?);
    }
    let reset = match &raw.reset {
        None => None,
        Some(r) => Some(Reset {
            max_retries: u32::try_from(r.timeout).ok(),
            next: index.next(&r.next, &format!("{path}.reset"))?,
        }),
    };
    Ok(Action {
        name: name.to_owned(),
        trajectory,
        verify: raw.verify,
        decisions,
        reset,
    })
}

fn validate_decision(
    index: &Index<'_>,
    raw: &RawDecision,
    path: &str,
    steps: usize,
) -> Result<Decision, BrainError> {
    let execute_after = match usize::try_from(raw.execute_after) {
        Ok(k) if k < steps => k,
        _ => {
            return Err(BrainError::ExecuteAfterOutOfRange {
                path: format!("{path}.executeAfter"),
                execute_after: raw.execute_after,
                steps,
            })
        }
    };
    let arm = index.checks(&raw.arm, &format!("{path}.state.arm"))?;
    let mut objects = Vec::with_capacity(raw.objects.len());
    for (i, o) in raw.objects.iter().enumerate() {
        objects.push(ObjectCheck {
            axes: index.checks(&o.axes, &format!("{path}.state.objects[{i}]"))?,
            certainty: o.certainty,
        });
    }
    Ok(Decision {
        execute_after,
        arm,
        objects,
        success: index.next(&raw.success, &format!("{path}.success"))?,
        fail: index.next(&raw.fail, &format!("{path}.fail"))?,
    })
}
