//! The one error type of the library: everything that makes an instructions file unusable.
//!
//! Every variant names the JSON path of the offending value (`actions.lightSelf.decisions[0]
//! .success.action`) and the problem, so a rejected file can be fixed from the log line
//! alone. The glue maps any of them onto `RunTask` outcome `REJECTED`.

use std::fmt;

/// Why an instructions file (or a run request) was rejected.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BrainError {
    /// The text is not JSON at all (serde_json's message, with its position).
    Json {
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
        /// What serde_json reported.
        message: String,
    },
    /// A value has the wrong JSON type (e.g. a string where an object is needed).
    WrongType {
        /// Path of the value.
        path: String,
        /// What the schema wants there.
        expected: &'static str,
        /// What the file has there.
        found: &'static str,
    },
    /// A required key is absent.
    MissingField {
        /// Path of the object that lacks the key.
        path: String,
        /// The key.
        field: &'static str,
    },
    /// A key the schema does not know (usually a typo such as `trajectoryVerfication`).
    UnknownField {
        /// Path of the object holding the key.
        path: String,
        /// The key.
        field: String,
    },
    /// `actions` is an empty object: nothing could ever run.
    NoActions {
        /// Always `actions`.
        path: String,
    },
    /// An action's trajectory has no steps (it would never send nor decide anything).
    EmptyTrajectory {
        /// Path of the trajectory.
        path: String,
    },
    /// A trajectory step lacks one of `x`, `y`, `z`.
    MissingAxis {
        /// Path of the step.
        path: String,
        /// The missing axis.
        axis: char,
    },
    /// A check that is neither `-1` nor `[value, tolerance]`.
    BadCheck {
        /// Path of the check.
        path: String,
    },
    /// A tolerance below zero (no value could ever match).
    NegativeTolerance {
        /// Path of the tolerance.
        path: String,
        /// The tolerance as written.
        tolerance: f64,
    },
    /// A string where a coordinate goes that is not `<action>,<decision>,arm|<object>`.
    BadVariable {
        /// Path of the string.
        path: String,
        /// The string.
        text: String,
    },
    /// A variable names an action that does not exist.
    VariableUnknownAction {
        /// Path of the variable.
        path: String,
        /// The variable as written.
        var: String,
        /// The action it names.
        action: String,
    },
    /// A variable names a decision the action does not have.
    VariableUnknownDecision {
        /// Path of the variable.
        path: String,
        /// The variable as written.
        var: String,
        /// How many decisions the named action has.
        decisions: usize,
    },
    /// A variable names an object check the decision does not have.
    VariableUnknownObject {
        /// Path of the variable.
        path: String,
        /// The variable as written.
        var: String,
        /// How many object checks the named decision has.
        objects: usize,
    },
    /// `success.action`, `fail.action`, `reset.action` or `initialAction` names no action.
    UnknownAction {
        /// Path of the name.
        path: String,
        /// The name.
        name: String,
    },
    /// `executeAfter` points past the last step: the decision could never run.
    ExecuteAfterOutOfRange {
        /// Path of `executeAfter`.
        path: String,
        /// Its value.
        execute_after: u64,
        /// Steps in the action's trajectory.
        steps: usize,
    },
    /// An integer field out of its range (`delay` < −1, `timeout` < −1, `executeAfter` < 0)
    /// or not an integer at all (`delay: 0.5`).
    BadInteger {
        /// Path of the field.
        path: String,
        /// The value as written.
        found: String,
        /// The allowed range in words.
        expected: &'static str,
    },
    /// The run request names an initial action the instructions do not have.
    UnknownInitialAction {
        /// The requested name.
        name: String,
    },
}

impl fmt::Display for BrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BrainError::*;
        match self {
            Json {
                line,
                column,
                message,
            } => {
                write!(f, "invalid JSON at line {line}, column {column}: {message}")
            }
            WrongType {
                path,
                expected,
                found,
            } => {
                write!(f, "{path}: expected {expected}, found {found}")
            }
            MissingField { path, field } => write!(f, "{path}: missing field \"{field}\""),
            UnknownField { path, field } => write!(f, "{path}: unknown field \"{field}\""),
            NoActions { path } => write!(f, "{path}: the action set is empty"),
            EmptyTrajectory { path } => write!(f, "{path}: the trajectory has no steps"),
            MissingAxis { path, axis } => write!(f, "{path}: missing axis \"{axis}\""),
            BadCheck { path } => {
                write!(f, "{path}: a check must be -1 or [value, tolerance]")
            }
            NegativeTolerance { path, tolerance } => {
                write!(f, "{path}: tolerance {tolerance} is negative")
            }
            BadVariable { path, text } => write!(
                f,
                "{path}: \"{text}\" is not a variable \
                 (expected \"<action>,<decision>,arm\" or \"<action>,<decision>,<object>\")"
            ),
            VariableUnknownAction { path, var, action } => {
                write!(
                    f,
                    "{path}: variable \"{var}\" names unknown action \"{action}\""
                )
            }
            VariableUnknownDecision {
                path,
                var,
                decisions,
            } => write!(
                f,
                "{path}: variable \"{var}\" names a missing decision \
                 (the action has {decisions})"
            ),
            VariableUnknownObject { path, var, objects } => write!(
                f,
                "{path}: variable \"{var}\" names a missing object check \
                 (the decision has {objects})"
            ),
            UnknownAction { path, name } => write!(f, "{path}: unknown action \"{name}\""),
            ExecuteAfterOutOfRange {
                path,
                execute_after,
                steps,
            } => write!(
                f,
                "{path}: executeAfter {execute_after} is past the last step \
                 (the trajectory has {steps})"
            ),
            BadInteger {
                path,
                found,
                expected,
            } => {
                write!(f, "{path}: expected {expected}, found {found}")
            }
            UnknownInitialAction { name } => {
                write!(f, "initial action \"{name}\" is not in the instructions")
            }
        }
    }
}

impl std::error::Error for BrainError {}
