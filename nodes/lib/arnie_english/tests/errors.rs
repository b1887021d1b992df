//! One case per kind of diagnostic, with its exact text; several errors at once.
use arnie_english::{compile, compile_with, Kind, Options, Severity};

/// A correct two-action task; the cases below break one thing each.
const BASE: &str = "\
Create an action called start.
The start trajectory has one step.
The first step is to move to 0, 0, 0.
start has one decision.
The first decision is called testLit.
The success action for testLit is lightSelf with no delay.
The failure action for testLit is start with no delay.
start's reset condition is action start, timeout -1, no delay.
Create an action called lightSelf.
Move to 1, 2, 3.
lightSelf has no reset condition.
";

fn errors(text: &str) -> Vec<String> {
    match compile(text) {
        Ok(_) => panic!("compiles:\n{text}"),
        Err(d) => d.iter().map(ToString::to_string).collect(),
    }
}

/// `BASE` with `from` replaced by `to` (which must occur).
fn base_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

#[test]
fn the_base_compiles() {
    assert!(compile(BASE).is_ok());
}

#[test]
fn unknown_sentence() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move to 1, 2.")),
        ["line 10, column 13: unknown sentence: unexpected end of sentence in \"Move to 1, 2.\"; expected `,`"]
    );
    assert_eq!(
        errors(&format!("Frobnicate the arm.\n{BASE}")),
        ["line 1, column 1: unknown sentence: unexpected word `Frobnicate` in \"Frobnicate the arm.\"; \
          expected one of `create`, `disable`, `enable`, `evaluate`, `execute`, `move`, `targets`, \
          `the`, `there`, `this`, `trajectory`, `you` or an action name"]
    );
}

#[test]
fn unknown_sentence_with_a_keyword_suggestion() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move y posission to 3.")),
        ["line 10, column 8: unknown sentence: unexpected word `posission` in \"Move y posission to 3.\"; \
          expected one of `,`, `and`, `position`, `positions` or `to`; did you mean `position`?"]
    );
}

#[test]
fn unknown_sentence_after_a_missing_full_stop() {
    assert_eq!(
        errors(&base_with("with no delay.\nThe failure", "with no delay\nThe failure")),
        ["line 7, column 1: unknown sentence: unexpected word `The` in \"The success action for testLit \
          is lightSelf with no delay The failure action for testLit is start with no delay.\"; expected \
          the end of the sentence; is a full stop missing at the end of the line before?"]
    );
}

#[test]
fn keyword_typo_is_a_reading_and_strictly_an_error() {
    let text = base_with(
        "The start trajectory has one step.\nThe first",
        "The start trajectroy has one step.\nThe frist",
    );
    let c = compile_with(&text, Options::default());
    assert!(c.instructions.is_some());
    let shown: Vec<String> = c.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "line 2, column 11: warning: read `trajectroy` as `trajectory` in \"The start trajectroy has one step.\"",
            "line 3, column 5: warning: read `frist` as `first` in \"The frist step is to move to 0, 0, 0.\"",
        ]
    );
    let strict = compile_with(&text, Options { strict: true });
    assert!(strict.instructions.is_none());
    assert_eq!(
        strict.diagnostics[1].to_string(),
        "line 3, column 5: unknown word `frist` in \"The frist step is to move to 0, 0, 0.\"; did you mean `first`?"
    );
}

#[test]
fn unclosed_parenthesis_is_a_reading_and_strictly_an_error() {
    let text = base_with(
        "The success action",
        "The arm's x position must be 1 (threshold 2 for testLit.\nThe success action",
    );
    let c = compile_with(&text, Options::default());
    assert!(c.instructions.is_some());
    assert_eq!(
        c.diagnostics[0].to_string(),
        "line 6, column 32: warning: missing `)`: read as closed after the threshold in \
         \"The arm's x position must be 1 (threshold 2 for testLit.\""
    );
    let strict = compile_with(&text, Options { strict: true });
    assert_eq!(
        strict.diagnostics[0].to_string(),
        "line 6, column 32: missing `)` in \"The arm's x position must be 1 (threshold 2 for testLit.\"; \
         close the parenthesis"
    );
}

#[test]
fn unterminated_quote() {
    assert_eq!(
        errors(&format!("Create an action called \"home.\n{BASE}")),
        [
            "line 1, column 25: unterminated quoted name in \"Create an action called \"home.\"; \
          close it with `\"` on the same line"
        ]
    );
}

#[test]
fn unknown_action_with_and_without_a_close_name() {
    assert_eq!(
        errors(&base_with("is lightSelf with", "is lightSelff with")),
        ["line 6, column 35: unknown action `lightSelff` in \"The success action for testLit is \
          lightSelff with no delay.\"; did you mean `lightSelf`?"]
    );
    assert_eq!(
        errors(&base_with("action start, timeout", "action home, timeout")),
        ["line 8, column 35: unknown action `home` in \"start's reset condition is action home, \
          timeout -1, no delay.\"; the actions are `start` and `lightSelf`"]
    );
}

#[test]
fn unknown_decision() {
    assert_eq!(
        errors(&base_with("for testLit is start", "for testLti is start")),
        ["line 7, column 24: action `start` has no decision `testLti` in \"The failure action for \
          testLti is start with no delay.\"; did you mean `testLit`?"]
    );
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move to the y position of the object found in start action seen decision.")),
        ["line 10, column 60: action `start` has no decision `seen` in \"Move to the y position of the \
          object found in start action seen decision.\"; its decisions are `testLit`"]
    );
}

#[test]
fn duplicate_action_and_decision() {
    assert_eq!(
        errors(&format!("{BASE}Create an action called start.")),
        ["line 12, column 25: action `start` is created twice (first on line 1) in \"Create an action \
          called start.\"; give one of them another name"]
    );
    assert_eq!(
        errors(&base_with("start has one decision.", "start has two decisions.\nThe second decision is called testLit.")),
        ["line 6, column 30: action `start` has two decisions called `testLit` (first on line 5) in \
          \"The first decision is called testLit.\"; give one of them another name"]
    );
}

#[test]
fn no_current_action_or_decision() {
    assert_eq!(
        errors(&format!("Move to 1, 2, 3.\n{BASE}")),
        ["line 1, column 1: this sentence belongs to an action, and no action is created before it in \
          \"Move to 1, 2, 3.\"; add `Create an action called NAME.` before it"]
    );
    assert_eq!(
        errors(&base_with(
            "lightSelf has no reset condition.",
            "lightSelf has no reset condition.\nlightSelf has two decisions.\nThe success action is start."
        )),
        ["line 13, column 1: which decision of `lightSelf`? none is named before this sentence in \"The \
          success action is start.\"; end the sentence with `for NAME` or name the decision first"]
    );
}

#[test]
fn step_count_disagrees_with_the_steps_given() {
    assert_eq!(
        errors(&base_with("has one step.", "has three steps.")),
        ["line 2, column 1: the `start` trajectory has 3 steps but steps 2 and 3 are not given in \"The \
          start trajectory has three steps.\"; add `The second step is to move to X, Y, Z.` or change the \
          step count"]
    );
    assert_eq!(
        errors(&base_with("The first step is", "The fifth step is")),
        [
            "line 2, column 1: the `start` trajectory has 1 step but step 1 is not given in \"The start \
             trajectory has one step.\"; add `The first step is to move to X, Y, Z.` or change the step count",
            "line 3, column 1: the fifth step of `start` is beyond its 1 step in \"The fifth step is to \
             move to 0, 0, 0.\"; change the step count or this step's ordinal",
        ]
    );
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "The third step is to move to 1, 2, 3.")),
        ["line 9, column 25: the `lightSelf` trajectory has a gap: steps 1 and 2 are not given in \"Create \
          an action called lightSelf.\"; add `The first step is to move to X, Y, Z.` or change the step count"]
    );
}

#[test]
fn ordinals_beyond_their_count() {
    assert_eq!(
        errors(&base_with("The first decision is called", "The second decision is called")),
        ["line 5, column 5: the second decision of `start` is beyond its 1 decision in \"The second \
          decision is called testLit.\"; change the decision count or this ordinal"]
    );
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move to the x position of the second object found in start action testLit decision.")),
        ["line 10, column 31: the second object of decision `testLit` of `start` is beyond its 0 objects \
          in \"Move to the x position of the second object found in start action testLit decision.\"; \
          refer to an object the decision has"]
    );
}

#[test]
fn needs_step_count() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "The final step is to move to 1, 2, 3.")),
        ["line 10, column 5: the final step of `lightSelf` needs the step count in \"The final step is to \
          move to 1, 2, 3.\"; say it first: `The lightSelf trajectory has N steps.`"]
    );
}

#[test]
fn empty_trajectory() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.\n", "")),
        ["line 9, column 25: action `lightSelf` has no trajectory step in \"Create an action called \
          lightSelf.\"; add `The first step is to move to X, Y, Z.`"]
    );
}

#[test]
fn execute_after_a_step_the_trajectory_lacks() {
    assert_eq!(
        errors(&base_with("The success", "Execute testLit after the third step.\nThe success")),
        ["line 6, column 27: decision `testLit` of `start` executes after step 3, but the trajectory has \
          1 step in \"Execute testLit after the third step.\"; execute it after a step the trajectory has"]
    );
}

#[test]
fn missing_reset_condition() {
    assert_eq!(
        errors(&base_with("lightSelf has no reset condition.\n", "")),
        ["line 9, column 25: action `lightSelf` has no reset condition in \"Create an action called \
          lightSelf.\"; add `lightSelf's reset condition is action ACTION, timeout -1, no delay.` or \
          `lightSelf has no reset condition.`"]
    );
}

#[test]
fn missing_success_action() {
    assert_eq!(
        errors(&base_with("The success action for testLit is lightSelf with no delay.\n", "")),
        ["line 5, column 1: decision `testLit` of `start` has no success action in \"The first decision is \
          called testLit.\"; add `The success action for testLit is ACTION with no delay.`"]
    );
}

#[test]
fn axis_mismatch() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move x to the y position of the object found in start action testLit decision.")),
        ["line 10, column 11: the x coordinate is given the y position of a variable in \"Move x to the y \
          position of the object found in start action testLit decision.\"; a variable gives the axis of \
          the slot it is in: use the x position"]
    );
}

#[test]
fn redefined() {
    assert_eq!(
        errors(&base_with("Move to 1, 2, 3.", "Move to 1, 2, 3.\nEnable trajectory verification.\nDisable trajectory verification.")),
        ["line 12, column 1: the trajectory verification of `lightSelf` is already given on line 11 in \
          \"Disable trajectory verification.\"; say it once"]
    );
}

#[test]
fn number_out_of_range() {
    assert_eq!(
        errors(&base_with("timeout -1", "timeout -3")),
        ["line 8, column 50: a timeout must be a whole number of retries, or -1 (unlimited), not `-3` in \
          \"start's reset condition is action start, timeout -3, no delay.\""]
    );
    assert_eq!(
        errors(&base_with("with no delay.\nThe failure", "with a delay of 1.5 ticks.\nThe failure")),
        ["line 6, column 61: a delay must be a whole number of ticks, -1 (the same tick) or more, not \
          `1.5` in \"The success action for testLit is lightSelf with a delay of 1.5 ticks.\""]
    );
}

#[test]
fn bad_label() {
    assert_eq!(
        errors(&format!("You are called the step.\n{BASE}")),
        ["line 1, column 20: `step` cannot be a label: it is a word of the grammar in \"You are called \
          the step.\""]
    );
}

#[test]
fn no_actions() {
    assert_eq!(
        errors("# nothing yet\n"),
        ["line 1, column 1: no action: a task needs at least one; add `Create an action called NAME.`"]
    );
}

#[test]
fn rejected_by_the_validator() {
    let text = "Create an action called \"\".\n\
                Move to the x position of the object found in \"\" action d decision.\n\
                \"\" has one decision. This is called d. There must be one object at any position.\n\
                The success action is \"\". The failure action is \"\". \"\" has no reset condition.";
    assert_eq!(
        errors(text),
        ["line 1, column 1: the brain's validator rejected the compiled instructions: \
          actions..trajectory[0].x: \",0,0\" is not a variable (expected \"<action>,<decision>,arm\" or \
          \"<action>,<decision>,<object>\")"]
    );
}

#[test]
fn several_errors_at_once_in_text_order() {
    let text = base_with("is lightSelf with", "is lightSelff with")
        .replace("Move to 1, 2, 3.", "Move to 1, 2.")
        .replace("lightSelf has no reset condition.\n", "")
        + "Create an action called start.\n";
    let d = compile(&text).unwrap_err();
    let kinds: Vec<(usize, &str)> = d
        .iter()
        .map(|d| {
            let k = match d.kind {
                Kind::UnknownAction { .. } => "unknown action",
                Kind::UnknownSentence { .. } => "unknown sentence",
                Kind::DuplicateAction { .. } => "duplicate action",
                _ => "other",
            };
            (d.line, k)
        })
        .collect();
    // The reset of lightSelf is not reported missing: its broken sentence may have said it.
    assert_eq!(
        kinds,
        [
            (6, "unknown action"),
            (10, "unknown sentence"),
            (11, "duplicate action")
        ]
    );
    assert!(d.iter().all(|d| d.severity == Severity::Error));
}
