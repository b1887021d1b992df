//! [`Diagnostic`]: one problem found in a task's text, with its line, column and sentence;
//! [`Kind`]: the one enum of failure kinds, one variant each.
//!
//! `Display` gives the line a person acts on, e.g.
//! `line 12, column 5: unknown action `lightSelff` in "..."; did you mean `lightSelf`?`.

use std::fmt;

/// Whether a diagnostic stops the compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The text does not compile.
    Error,
    /// The text compiles with a documented reading (a corrected keyword typo, a parenthesis
    /// closed at the next comma). An error instead with [`crate::Options::strict`].
    Warning,
}

/// One problem, where it is, and the sentence it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The sentence as written (whitespace collapsed); empty when there is none.
    pub sentence: String,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub kind: Kind,
}

/// Every kind of problem, one variant each.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Kind {
    /// The grammar knows no sentence like this: parsing stopped at a word it did not expect.
    UnknownSentence {
        /// The token where parsing stopped (`` word `foo` ``, `end of sentence`).
        found: String,
        /// What could have come there, each already quoted (`` `position` ``, `a number`).
        expected: Vec<String>,
        /// A keyword the found word nearly spells.
        suggestion: Option<String>,
        /// A hint on a likely cause (a missing full stop).
        hint: Option<String>,
    },
    /// A word read as the keyword it nearly spells (`posision` → `position`).
    KeywordTypo {
        /// The word as written.
        found: String,
        /// The keyword it was read as.
        keyword: String,
    },
    /// A `(threshold t` whose `)` is missing: read as closed after `t` (when `,`, `for`,
    /// `with` or the end of the sentence follows).
    UnclosedParenthesis,
    /// A `"` with no closing `"` on its line.
    UnterminatedQuote,
    /// A name that is no action's.
    UnknownAction {
        /// The name as written.
        name: String,
        /// The closest action name, if close.
        suggestion: Option<String>,
        /// All action names (for the message when nothing is close).
        known: Vec<String>,
    },
    /// A name (or ordinal) that is none of an action's decisions.
    UnknownDecision {
        /// The action searched.
        action: String,
        /// The decision as written.
        name: String,
        /// The closest decision name, if close.
        suggestion: Option<String>,
        /// The action's decision names.
        known: Vec<String>,
    },
    /// Two `Create an action called …` with the same name.
    DuplicateAction {
        /// The name.
        name: String,
        /// Line of the first.
        first_line: usize,
    },
    /// Two decisions of one action with the same name.
    DuplicateDecision {
        /// The action.
        action: String,
        /// The name.
        name: String,
        /// Line of the first.
        first_line: usize,
    },
    /// A sentence about "the current action" before any `Create an action called …`.
    NoCurrentAction,
    /// A decision sentence without `for NAME` when no decision was named before it.
    NoCurrentDecision {
        /// The action.
        action: String,
    },
    /// The steps given leave gaps: the count said (or the highest step given) has steps that
    /// no sentence gives.
    StepCountMismatch {
        /// The action.
        action: String,
        /// The count said, if any.
        declared: Option<usize>,
        /// The steps not given (1-based).
        missing: Vec<usize>,
    },
    /// An ordinal beyond the count: the fifth step of a 4-step trajectory, the second
    /// decision of an action said to have one, the second object of a one-object decision.
    OrdinalBeyondCount {
        /// `step`, `decision` or `object`.
        what: &'static str,
        /// Whose (`` `lightSelf` ``, `` decision `testLit` of `start` ``).
        of: String,
        /// The ordinal as written (`fifth`, `penultimate`).
        ordinal: String,
        /// How many there are.
        count: usize,
    },
    /// `last`, `final`, `penultimate` … of steps whose count is not said.
    NeedsStepCount {
        /// The action.
        action: String,
        /// The ordinal as written.
        ordinal: String,
    },
    /// An action with no steps.
    EmptyTrajectory {
        /// The action.
        action: String,
    },
    /// A decision executes after a step the trajectory does not have.
    ExecuteAfterBeyondSteps {
        /// The action.
        action: String,
        /// The decision, in words (`` decision `testLit` ``, `the second decision`).
        decision: String,
        /// The step (1-based).
        step: usize,
        /// Steps in the trajectory.
        steps: usize,
    },
    /// An action with neither a reset condition nor `NAME has no reset condition.`
    MissingReset {
        /// The action.
        action: String,
    },
    /// A decision without a success (or failure) action.
    MissingNext {
        /// The action.
        action: String,
        /// The decision, in words (`` decision `testLit` ``, `the second decision`).
        decision: String,
        /// How a sentence names it after `for` (`testLit`, `the second decision`).
        refer: String,
        /// `success` or `failure`.
        which: &'static str,
    },
    /// A coordinate given a variable's other axis (the instructions read a variable's point
    /// on the axis of the slot it is in).
    AxisMismatch {
        /// The slot's axis.
        axis: String,
        /// The variable's axis.
        variable_axis: String,
    },
    /// Something said twice.
    Redefined {
        /// What (`the reset condition of `start``).
        what: String,
        /// Line where it was first said.
        first_line: usize,
    },
    /// A number outside what its place allows.
    NumberOutOfRange {
        /// What it is (`a delay`).
        what: &'static str,
        /// As written.
        found: String,
        /// The allowed range in words.
        expected: &'static str,
    },
    /// A label or axis name that cannot be used.
    BadLabel {
        /// The word.
        word: String,
        /// Why.
        reason: &'static str,
    },
    /// A text with no action at all.
    NoActions,
    /// The brain's validator refused the compiled instructions: what English can say but
    /// instructions cannot (a variable of an action whose name is empty). Every other rule
    /// of the validator is checked first, with a position.
    Rejected {
        /// The validator's message.
        message: String,
    },
}

impl Kind {
    /// Warnings by default: the documented readings.
    pub fn is_reading(&self) -> bool {
        matches!(self, Kind::KeywordTypo { .. } | Kind::UnclosedParenthesis)
    }
}

fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn list_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn quoted(items: &[String]) -> Vec<String> {
    items.iter().map(|s| format!("`{s}`")).collect()
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Kind::*;
        let warn = self.severity == Severity::Warning;
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        if warn {
            f.write_str("warning: ")?;
        }
        // The message, then ` in "sentence"`, then what to do.
        let (message, advice): (String, String) = match &self.kind {
            UnknownSentence {
                found,
                expected,
                suggestion,
                hint,
            } => {
                let mut advice = String::new();
                if !expected.is_empty() {
                    let shown: Vec<String> = expected.iter().take(14).cloned().collect();
                    let more = if expected.len() > shown.len() { ", …" } else { "" };
                    if shown.len() == 1 {
                        advice = format!("; expected {}", shown[0]);
                    } else {
                        advice = format!("; expected one of {}{more}", list(&shown));
                    }
                }
                if let Some(s) = suggestion {
                    advice.push_str(&format!("; did you mean `{s}`?"));
                }
                if let Some(h) = hint {
                    advice.push_str(&format!("; {h}"));
                }
                (format!("unknown sentence: unexpected {found}"), advice)
            }
            KeywordTypo { found, keyword } if warn => {
                (format!("read `{found}` as `{keyword}`"), String::new())
            }
            KeywordTypo { found, keyword } => (
                format!("unknown word `{found}`"),
                format!("; did you mean `{keyword}`?"),
            ),
            UnclosedParenthesis if warn => (
                "missing `)`: read as closed after the threshold".into(),
                String::new(),
            ),
            UnclosedParenthesis => ("missing `)`".into(), "; close the parenthesis".into()),
            UnterminatedQuote => (
                "unterminated quoted name".into(),
                "; close it with `\"` on the same line".into(),
            ),
            UnknownAction {
                name,
                suggestion,
                known,
            } => (
                format!("unknown action `{name}`"),
                match suggestion {
                    Some(s) => format!("; did you mean `{s}`?"),
                    None if known.is_empty() => {
                        format!("; create it with `Create an action called {name}.`")
                    }
                    None => format!("; the actions are {}", list_and(&quoted(known))),
                },
            ),
            UnknownDecision {
                action,
                name,
                suggestion,
                known,
            } => (
                format!("action `{action}` has no decision `{name}`"),
                match suggestion {
                    Some(s) => format!("; did you mean `{s}`?"),
                    None if known.is_empty() => format!(
                        "; name it first: `The first decision is called {name}.`"
                    ),
                    None => format!("; its decisions are {}", list_and(&quoted(known))),
                },
            ),
            DuplicateAction { name, first_line } => (
                format!("action `{name}` is created twice (first on line {first_line})"),
                "; give one of them another name".into(),
            ),
            DuplicateDecision {
                action,
                name,
                first_line,
            } => (
                format!(
                    "action `{action}` has two decisions called `{name}` (first on line {first_line})"
                ),
                "; give one of them another name".into(),
            ),
            NoCurrentAction => (
                "this sentence belongs to an action, and no action is created before it".into(),
                "; add `Create an action called NAME.` before it".into(),
            ),
            NoCurrentDecision { action } => (
                format!("which decision of `{action}`? none is named before this sentence"),
                "; end the sentence with `for NAME` or name the decision first".into(),
            ),
            StepCountMismatch {
                action,
                declared,
                missing,
            } => {
                let shown: Vec<String> = missing.iter().take(10).map(|n| n.to_string()).collect();
                let more = if missing.len() > shown.len() { ", …" } else { "" };
                let steps = if missing.len() == 1 {
                    format!("step {} is", shown[0])
                } else if more.is_empty() {
                    format!("steps {} are", list_and(&shown))
                } else {
                    format!("steps {}{more} are", shown.join(", "))
                };
                let first = missing.first().copied().unwrap_or(1);
                (
                    match declared {
                        Some(n) => format!(
                            "the `{action}` trajectory has {n} step{} but {steps} not given",
                            if *n == 1 { "" } else { "s" }
                        ),
                        None => format!("the `{action}` trajectory has a gap: {steps} not given"),
                    },
                    format!(
                        "; add `The {} step is to move to X, Y, Z.` or change the step count",
                        crate::words::ordinal_word(first)
                    ),
                )
            }
            OrdinalBeyondCount {
                what,
                of,
                ordinal,
                count,
            } => (
                format!(
                    "the {ordinal} {what} of {of} is beyond its {count} {what}{}",
                    if *count == 1 { "" } else { "s" }
                ),
                match *what {
                    "step" => "; change the step count or this step's ordinal".to_owned(),
                    "decision" => "; change the decision count or this ordinal".to_owned(),
                    _ => "; refer to an object the decision has".to_owned(),
                },
            ),
            NeedsStepCount { action, ordinal } => (
                format!("the {ordinal} step of `{action}` needs the step count"),
                format!("; say it first: `The {action} trajectory has N steps.`"),
            ),
            EmptyTrajectory { action } => (
                format!("action `{action}` has no trajectory step"),
                "; add `The first step is to move to X, Y, Z.`".into(),
            ),
            ExecuteAfterBeyondSteps {
                action,
                decision,
                step,
                steps,
            } => (
                format!(
                    "{decision} of `{action}` executes after step {step}, but the trajectory has {steps} step{}",
                    if *steps == 1 { "" } else { "s" }
                ),
                "; execute it after a step the trajectory has".into(),
            ),
            MissingReset { action } => (
                format!("action `{action}` has no reset condition"),
                format!(
                    "; add `{action}'s reset condition is action ACTION, timeout -1, no delay.` \
                     or `{action} has no reset condition.`"
                ),
            ),
            MissingNext {
                action,
                decision,
                refer,
                which,
            } => (
                format!("{decision} of `{action}` has no {which} action"),
                format!("; add `The {which} action for {refer} is ACTION with no delay.`"),
            ),
            AxisMismatch {
                axis,
                variable_axis,
            } => (
                format!("the {axis} coordinate is given the {variable_axis} position of a variable"),
                format!(
                    "; a variable gives the axis of the slot it is in: use the {axis} position"
                ),
            ),
            Redefined { what, first_line } => (
                format!("{what} is already given on line {first_line}"),
                "; say it once".into(),
            ),
            NumberOutOfRange {
                what,
                found,
                expected,
            } => (
                format!("{what} must be {expected}, not `{found}`"),
                String::new(),
            ),
            BadLabel { word, reason } => (format!("`{word}` cannot be a label: {reason}"), String::new()),
            NoActions => (
                "no action: a task needs at least one".into(),
                "; add `Create an action called NAME.`".into(),
            ),
            Rejected { message } => (
                format!("the brain's validator rejected the compiled instructions: {message}"),
                String::new(),
            ),
        };
        f.write_str(&message)?;
        if !self.sentence.is_empty() {
            write!(f, " in \"{}\"", self.sentence)?;
        }
        f.write_str(&advice)
    }
}

impl std::error::Error for Diagnostic {}
