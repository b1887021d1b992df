//! Sentences → instructions: what the sentences mean, the defaults, and every check that
//! needs the whole text (names, counts, variables).
//!
//! Passes: (1) the labels (they set the words the rest uses); (2) every other sentence,
//! parsed; (3) the actions created (so any sentence may name any action); (4) each sentence
//! applied in order, with a *current action* (the last one created or named as a subject)
//! and per action a *current decision* (the last one named or referred to); (5) each action
//! finished: steps resolved, defaults filled, variables resolved. Then the brain's own
//! validator checks the result.
//!
//! When a sentence of an action does not parse, what that action lacks (a reset condition,
//! steps, a success action) is not reported: the broken sentence may have said it.

use std::collections::BTreeMap;

use arnie_instructions::loader::{
    RawAction, RawCheck, RawDecision, RawInstructions, RawNext, RawObject, RawReset, RawValue,
};
use arnie_instructions::Instructions;

use crate::diagnostic::{Diagnostic, Kind, Severity};
use crate::lexer::{self, Sentence as Text};
use crate::parse::{
    self, CheckSpec, DecSel, DelaySpec, Fix, Name, Num, ObjProp, Ordinal, OrdinalAt, Pos, Sentence,
    SlotSpec, StepPart, TimeoutSpec, ValueSpec, VarSpec, Vocab,
};
use crate::words;

/// The largest count or ordinal accepted (steps, decisions, objects): a text cannot make
/// the compiler allocate without bound.
pub const LIMIT: usize = 10_000;

/// How to compile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Treat the documented readings (a keyword typo read as the keyword, a parenthesis
    /// closed at the next comma) as errors instead of warnings.
    pub strict: bool,
}

/// Something said, and where.
#[derive(Debug, Clone)]
struct Said<T> {
    value: T,
    /// Sentence index.
    s: usize,
    at: Pos,
}

#[derive(Debug, Clone)]
struct StepB {
    parts: Vec<StepPart>,
    /// The ordinal as written (`third`, `next`).
    word: String,
}

#[derive(Debug, Clone)]
struct NextB {
    target: usize,
    delay: i64,
}

#[derive(Debug, Clone)]
struct ResetB {
    target: usize,
    timeout: i64,
    delay: i64,
}

#[derive(Debug, Clone)]
struct ObjB {
    axes: [Option<CheckSpec>; 3],
    certainty: Option<(f64, f64)>,
    s: usize,
}

#[derive(Debug, Clone, Default)]
struct DecisionB {
    name: Option<Said<String>>,
    /// The sentence that first mentioned it.
    introduced: Option<(usize, Pos)>,
    execute: Option<Said<OrdinalAt>>,
    arm: [Option<Said<Option<CheckSpec>>>; 3],
    objects: Vec<ObjB>,
    success: Option<Said<NextB>>,
    fail: Option<Said<NextB>>,
}

#[derive(Debug, Clone)]
struct ActionB {
    name: String,
    create: (usize, Pos),
    step_count: Option<Said<usize>>,
    steps: BTreeMap<usize, Said<StepB>>,
    verify: Option<Said<bool>>,
    decision_count: Option<Said<usize>>,
    decisions: Vec<DecisionB>,
    current: Option<usize>,
    reset: Option<Said<Option<ResetB>>>,
    broken: bool,
    /// Decision names whose naming sentence was wrong: referring to them is not reported
    /// again.
    poisoned: Vec<String>,
}

struct Cx<'a> {
    texts: &'a [Text],
    diags: Vec<Diagnostic>,
    strict: bool,
    actions: Vec<ActionB>,
}

/// Compile a text: the instructions when there is no error, and every diagnostic
/// (errors and warnings, in text order).
pub fn compile(text: &str, options: Options) -> (Option<Instructions>, Vec<Diagnostic>) {
    let (texts, lex_diags) = lexer::sentences(text);
    let mut cx = Cx {
        texts: &texts,
        diags: lex_diags,
        strict: options.strict,
        actions: Vec::new(),
    };
    let result = cx.run();
    let mut diags = cx.diags;
    diags.sort_by_key(|d| (d.line, d.column));
    let failed = diags.iter().any(|d| d.severity == Severity::Error);
    (if failed { None } else { result }, diags)
}

impl Cx<'_> {
    fn diag(&mut self, s: Option<usize>, at: Pos, severity: Severity, kind: Kind) {
        let sentence = s
            .and_then(|s| self.texts.get(s))
            .map(|t| t.text.clone())
            .unwrap_or_default();
        self.diags.push(Diagnostic {
            line: at.line.max(1),
            column: at.column.max(1),
            sentence,
            severity,
            kind,
        });
    }

    fn err(&mut self, s: usize, at: Pos, kind: Kind) {
        self.diag(Some(s), at, Severity::Error, kind);
    }

    fn reading(&mut self, s: usize, at: Pos, kind: Kind) {
        let sev = if self.strict {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.diag(Some(s), at, sev, kind);
    }

    fn line(&self, s: usize) -> usize {
        self.texts.get(s).map_or(0, |t| t.line)
    }

    fn fixes(&mut self, s: usize, fixes: Vec<Fix>) {
        for f in fixes {
            match f {
                Fix::Keyword { at, found, keyword } => {
                    self.reading(s, at, Kind::KeywordTypo { found, keyword })
                }
                Fix::Paren { at } => self.reading(s, at, Kind::UnclosedParenthesis),
            }
        }
    }

    fn run(&mut self) -> Option<Instructions> {
        // (1) labels.
        let mut vocab = Vocab::default();
        let mut label_lines: [Option<usize>; 3] = [None; 3];
        let mut parsed: Vec<Option<Sentence>> = vec![None; self.texts.len()];
        let mut failed = vec![false; self.texts.len()];
        for (s, slot) in parsed.iter_mut().enumerate() {
            let Some((sentence, fixes)) = parse::label(&self.texts[s].tokens) else {
                continue;
            };
            self.fixes(s, fixes);
            self.label(s, &sentence, &mut vocab, &mut label_lines);
            *slot = Some(sentence);
        }
        // (2) everything else.
        let mut failures = Vec::new();
        for s in 0..self.texts.len() {
            if parsed[s].is_some() {
                continue;
            }
            match parse::sentence(&self.texts[s].tokens, &vocab) {
                Ok((sentence, fixes)) => {
                    self.fixes(s, fixes);
                    parsed[s] = Some(sentence);
                }
                Err(f) => {
                    failed[s] = true;
                    failures.push((s, f));
                }
            }
        }
        // (3) the actions.
        for (s, p) in parsed.iter().enumerate() {
            if let Some(Sentence::Create(name)) = p {
                if let Some(first) = self.actions.iter().find(|a| a.name == name.text) {
                    let first_line = self.line(first.create.0);
                    self.err(
                        s,
                        name.at,
                        Kind::DuplicateAction {
                            name: name.text.clone(),
                            first_line,
                        },
                    );
                    continue;
                }
                self.actions.push(ActionB {
                    name: name.text.clone(),
                    create: (s, name.at),
                    step_count: None,
                    steps: BTreeMap::new(),
                    verify: None,
                    decision_count: None,
                    decisions: Vec::new(),
                    current: None,
                    reset: None,
                    broken: false,
                    poisoned: Vec::new(),
                });
            }
        }
        for (s, mut f) in failures {
            self.first_word_failure(s, &mut f);
            let suggestion = f.found_word.as_deref().and_then(|w| {
                let keywords: Vec<&str> = f
                    .expected
                    .iter()
                    .filter_map(|e| e.strip_prefix('`')?.strip_suffix('`'))
                    .filter(|k| k.chars().all(char::is_alphabetic))
                    .collect();
                words::suggest(w, keywords)
            });
            let hint = f
                .line_start
                .then(|| "is a full stop missing at the end of the line before?".to_owned());
            self.err(
                s,
                f.at,
                Kind::UnknownSentence {
                    found: f.found,
                    expected: f.expected,
                    suggestion,
                    hint,
                },
            );
        }
        // (4) apply, in order.
        let mut current: Option<usize> = None;
        let mut initial: Option<Said<usize>> = None;
        for s in 0..parsed.len() {
            if failed[s] {
                if let Some(a) = current {
                    self.actions[a].broken = true;
                }
                // An action named in the broken sentence may have been its subject.
                for t in &self.texts[s].tokens {
                    if let lexer::Tok::Word(w) | lexer::Tok::Quoted(w) = &t.tok {
                        for a in &mut self.actions {
                            if a.name.eq_ignore_ascii_case(w) {
                                a.broken = true;
                            }
                        }
                    }
                }
                continue;
            }
            let Some(sentence) = parsed[s].take() else {
                continue;
            };
            if let Some(subject) = sentence.subject() {
                match self.find_action(s, subject) {
                    Some(a) => current = Some(a),
                    None => continue,
                }
            }
            let before = self.diags.len();
            self.apply(s, sentence, current, &mut initial);
            if self.diags[before..]
                .iter()
                .any(|d| d.severity == Severity::Error)
            {
                // Said, though wrongly: what this action lacks is not reported.
                if let Some(a) = current {
                    self.actions[a].broken = true;
                }
            }
        }
        // (5) finish.
        if self.actions.is_empty() {
            let at = self
                .texts
                .first()
                .map_or(Pos { line: 1, column: 1 }, |t| Pos {
                    line: t.line,
                    column: t.column,
                });
            self.diag(None, at, Severity::Error, Kind::NoActions);
            return None;
        }
        let mut raw = Vec::with_capacity(self.actions.len());
        for a in 0..self.actions.len() {
            raw.push((self.actions[a].name.clone(), self.finish(a)));
        }
        let initial_action = self.actions[initial.map_or(0, |i| i.value)].name.clone();
        let raw = RawInstructions {
            initial_action,
            actions: raw,
        };
        if self.diags.iter().any(|d| d.severity == Severity::Error) {
            return None;
        }
        match arnie_instructions::validate::validate(&raw) {
            Ok(i) => Some(i),
            Err(e) => {
                self.diag(
                    None,
                    Pos { line: 1, column: 1 },
                    Severity::Error,
                    Kind::Rejected {
                        message: e.to_string(),
                    },
                );
                None
            }
        }
    }

    /// A sentence stopped at its second token after a first word that is neither a keyword
    /// nor an action: the first word is what the grammar does not know.
    fn first_word_failure(&self, s: usize, f: &mut parse::Failure) {
        const STARTS: [&str; 12] = [
            "create",
            "disable",
            "enable",
            "evaluate",
            "execute",
            "move",
            "targets",
            "the",
            "there",
            "this",
            "trajectory",
            "you",
        ];
        let Some(first) = self.texts[s].tokens.first() else {
            return;
        };
        let lexer::Tok::Word(w) = &first.tok else {
            return;
        };
        let is_action = self.actions.iter().any(|a| a.name.eq_ignore_ascii_case(w));
        if f.index != 1 || words::is_reserved(w) || is_action {
            return;
        }
        f.at = Pos {
            line: first.line,
            column: first.column,
        };
        f.found = format!("word `{w}`");
        f.found_word = Some(w.clone());
        f.line_start = false;
        f.expected = STARTS.iter().map(|k| format!("`{k}`")).collect();
        f.expected.push("an action name".into());
    }

    fn label(
        &mut self,
        s: usize,
        sentence: &Sentence,
        vocab: &mut Vocab,
        lines: &mut [Option<usize>; 3],
    ) {
        let slot = match sentence {
            Sentence::SelfLabel(_) => 0,
            Sentence::TargetLabel(_) => 1,
            _ => 2,
        };
        if let Some(first_line) = lines[slot] {
            let what = [
                "what you are called",
                "what targets are called",
                "the coordinate space",
            ][slot];
            let at = self.texts[s]
                .tokens
                .first()
                .map_or(Pos::default(), |t| Pos {
                    line: t.line,
                    column: t.column,
                });
            self.err(
                s,
                at,
                Kind::Redefined {
                    what: what.into(),
                    first_line,
                },
            );
            return;
        }
        lines[slot] = Some(self.line(s));
        let defaults = Vocab::default();
        let usable = |cx: &mut Self, n: &Name, default: &[&str]| -> Option<String> {
            let w = n.text.to_lowercase();
            let is_word = !w.is_empty()
                && w.chars().all(|c| c.is_alphanumeric() || c == '_')
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_');
            let reason = if !is_word {
                Some("a label is one plain word")
            } else if words::is_reserved(&w) && !default.contains(&w.as_str()) {
                Some("it is a word of the grammar")
            } else {
                None
            };
            match reason {
                Some(reason) => {
                    cx.err(
                        s,
                        n.at,
                        Kind::BadLabel {
                            word: n.text.clone(),
                            reason,
                        },
                    );
                    None
                }
                None => Some(w),
            }
        };
        match sentence {
            Sentence::SelfLabel(n) => {
                if let Some(w) = usable(self, n, &["arm"]) {
                    vocab.me = w;
                }
            }
            Sentence::TargetLabel(n) => {
                if let Some(w) = usable(self, n, &["object", "objects"]) {
                    if let Some(stem) = w.strip_suffix('s').filter(|s| !s.is_empty()) {
                        vocab.target = stem.to_owned();
                        vocab.targets = w;
                    } else {
                        vocab.targets = format!("{w}s");
                        vocab.target = w;
                    }
                }
            }
            Sentence::CoordinateSpace(names) => {
                let mut axes = Vec::new();
                for n in names {
                    if let Some(w) = usable(self, n, &["x", "y", "z"]) {
                        if axes.contains(&w) {
                            self.err(
                                s,
                                n.at,
                                Kind::BadLabel {
                                    word: n.text.clone(),
                                    reason: "the three axes need three different names",
                                },
                            );
                        } else {
                            axes.push(w);
                        }
                    }
                }
                if let [a, b, c] = &axes[..] {
                    vocab.axes = [a.clone(), b.clone(), c.clone()];
                }
            }
            _ => {}
        }
        // The words must stay apart from each other.
        let mut all = vec![
            vocab.me.clone(),
            vocab.target.clone(),
            vocab.targets.clone(),
        ];
        all.extend(vocab.axes.iter().cloned());
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() < all.len() {
            let at = self.texts[s]
                .tokens
                .first()
                .map_or(Pos::default(), |t| Pos {
                    line: t.line,
                    column: t.column,
                });
            self.err(
                s,
                at,
                Kind::BadLabel {
                    word: self.texts[s].text.clone(),
                    reason: "the arm, the targets and the axes need different words",
                },
            );
            *vocab = defaults;
        }
    }

    fn find_action(&mut self, s: usize, name: &Name) -> Option<usize> {
        if let Some(i) = self.actions.iter().position(|a| a.name == name.text) {
            return Some(i);
        }
        let folded: Vec<usize> = (0..self.actions.len())
            .filter(|&i| self.actions[i].name.to_lowercase() == name.text.to_lowercase())
            .collect();
        if let [one] = folded[..] {
            return Some(one);
        }
        let known: Vec<String> = self.actions.iter().map(|a| a.name.clone()).collect();
        let suggestion = words::suggest(&name.text, known.iter().map(String::as_str));
        self.err(
            s,
            name.at,
            Kind::UnknownAction {
                name: name.text.clone(),
                suggestion,
                known,
            },
        );
        None
    }

    fn first_pos(&self, s: usize) -> Pos {
        self.texts[s]
            .tokens
            .first()
            .map_or(Pos::default(), |t| Pos {
                line: t.line,
                column: t.column,
            })
    }

    /// A whole number in `min..=max`.
    fn int(
        &mut self,
        s: usize,
        n: &Num,
        what: &'static str,
        min: i64,
        max: i64,
        expected: &'static str,
    ) -> Option<i64> {
        let v = n.text.parse::<i64>().ok().or_else(|| {
            (n.value.is_finite() && n.value.fract() == 0.0 && n.value.abs() < 9.0e15)
                .then_some(n.value as i64)
        });
        match v {
            Some(v) if (min..=max).contains(&v) => Some(v),
            _ => {
                self.err(
                    s,
                    n.at,
                    Kind::NumberOutOfRange {
                        what,
                        found: n.text.clone(),
                        expected,
                    },
                );
                None
            }
        }
    }

    fn count(&mut self, s: usize, n: &Num, what: &'static str) -> Option<usize> {
        self.int(
            s,
            n,
            what,
            0,
            LIMIT as i64,
            "a whole number from 0 to 10000",
        )
        .and_then(|v| usize::try_from(v).ok())
    }

    fn real(&mut self, s: usize, n: &Num, what: &'static str, min: Option<f64>) -> Option<f64> {
        let ok = n.value.is_finite() && min.map_or(true, |m| n.value >= m);
        if ok {
            return Some(n.value);
        }
        self.err(
            s,
            n.at,
            Kind::NumberOutOfRange {
                what,
                found: n.text.clone(),
                expected: if min.is_some() {
                    "a number, 0 or more"
                } else {
                    "a finite number"
                },
            },
        );
        None
    }

    fn delay(&mut self, s: usize, d: &DelaySpec) -> Option<i64> {
        match d {
            DelaySpec::None => Some(0),
            DelaySpec::SameTick => Some(-1),
            DelaySpec::Ticks(n) => self.int(
                s,
                n,
                "a delay",
                -1,
                i64::MAX,
                "a whole number of ticks, -1 (the same tick) or more",
            ),
        }
    }

    /// A 0-based index from an ordinal and a count (`None`: not known).
    fn index(ord: Ordinal, count: Option<usize>) -> Result<usize, ()> {
        match ord {
            Ordinal::Nth(n) if n >= 1 && n <= LIMIT as u64 => Ok(n as usize - 1),
            Ordinal::Nth(_) => Err(()),
            Ordinal::Last => count.and_then(|c| c.checked_sub(1)).ok_or(()),
            Ordinal::Penultimate => count.and_then(|c| c.checked_sub(2)).ok_or(()),
            Ordinal::Antepenultimate => count.and_then(|c| c.checked_sub(3)).ok_or(()),
            Ordinal::Next => Err(()),
        }
    }

    fn current_action(&mut self, s: usize, current: Option<usize>) -> Option<usize> {
        if current.is_none() {
            let at = self.first_pos(s);
            self.err(s, at, Kind::NoCurrentAction);
        }
        current
    }

    /// The decision a sentence is about, in action `a`.
    fn decision(&mut self, s: usize, a: usize, sel: Option<&DecSel>) -> Option<usize> {
        let act = &self.actions[a];
        let found = match sel {
            None => match (act.current, act.decisions.len()) {
                (Some(d), _) => Ok(d),
                (None, 1) => Ok(0),
                _ => Err(Kind::NoCurrentDecision {
                    action: act.name.clone(),
                }),
            },
            Some(sel) => find_decision(act, sel),
        };
        match found {
            Ok(d) => {
                let act = &mut self.actions[a];
                act.current = Some(d);
                let at = self.first_pos(s);
                let dec = &mut self.actions[a].decisions[d];
                dec.introduced.get_or_insert((s, at));
                Some(d)
            }
            Err(kind) => {
                let at = match sel {
                    Some(DecSel::Name(n)) => n.at,
                    Some(DecSel::Nth(o)) => o.at,
                    None => self.first_pos(s),
                };
                let poisoned = matches!(sel, Some(DecSel::Name(n)) if self.actions[a].poisoned.contains(&n.text));
                if !poisoned {
                    self.err(s, at, kind);
                }
                None
            }
        }
    }

    fn redefined<T>(
        &mut self,
        s: usize,
        at: Pos,
        slot: &Option<Said<T>>,
        what: impl FnOnce() -> String,
    ) -> bool {
        if let Some(first) = slot {
            let first_line = self.line(first.s);
            self.err(
                s,
                at,
                Kind::Redefined {
                    what: what(),
                    first_line,
                },
            );
            return true;
        }
        false
    }

    fn apply(
        &mut self,
        s: usize,
        sentence: Sentence,
        current: Option<usize>,
        initial: &mut Option<Said<usize>>,
    ) {
        let at = self.first_pos(s);
        match sentence {
            Sentence::SelfLabel(_) | Sentence::TargetLabel(_) | Sentence::CoordinateSpace(_) => {}
            Sentence::Create(_) => {}
            Sentence::InitialAction(name) => {
                if self.redefined(s, at, initial, || "the initial action".into()) {
                    return;
                }
                if let Some(a) = self.find_action(s, &name) {
                    *initial = Some(Said { value: a, s, at });
                }
            }
            Sentence::StepCount { count, .. } => {
                let Some(a) = current else { return };
                let name = self.actions[a].name.clone();
                if self.redefined(s, at, &self.actions[a].step_count.clone(), || {
                    format!("the step count of `{name}`")
                }) {
                    return;
                }
                if let Some(n) = self.count(s, &count, "a step count") {
                    self.actions[a].step_count = Some(Said { value: n, s, at });
                }
            }
            Sentence::Step { which, parts } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let act = &self.actions[a];
                let next = act.steps.keys().next_back().map_or(0, |k| k + 1);
                let (idx, word) = match &which {
                    None => (Ok(next), "next".to_owned()),
                    Some(o) if o.ord == Ordinal::Next => (Ok(next), o.word.clone()),
                    Some(o) => {
                        let count = act.step_count.as_ref().map(|c| c.value);
                        if count.is_none() && !matches!(o.ord, Ordinal::Nth(_)) {
                            let kind = Kind::NeedsStepCount {
                                action: act.name.clone(),
                                ordinal: o.word.clone(),
                            };
                            self.err(s, o.at, kind);
                            return;
                        }
                        (Self::index(o.ord, count), o.word.clone())
                    }
                };
                let idx = match idx {
                    Ok(i) if i < LIMIT => i,
                    _ => {
                        let o = which.as_ref().map_or(at, |o| o.at);
                        let kind = Kind::OrdinalBeyondCount {
                            what: "step",
                            of: format!("`{}`", self.actions[a].name),
                            ordinal: word,
                            count: self.actions[a]
                                .step_count
                                .as_ref()
                                .map_or(LIMIT, |c| c.value),
                        };
                        self.err(s, o, kind);
                        return;
                    }
                };
                let name = self.actions[a].name.clone();
                let existing = self.actions[a].steps.get(&idx).cloned();
                if self.redefined(s, at, &existing, || {
                    format!("the {} step of `{name}`", words::ordinal_word(idx + 1))
                }) {
                    return;
                }
                self.actions[a].steps.insert(
                    idx,
                    Said {
                        value: StepB { parts, word },
                        s,
                        at,
                    },
                );
            }
            Sentence::Verify(on) => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let name = self.actions[a].name.clone();
                if self.redefined(s, at, &self.actions[a].verify.clone(), || {
                    format!("the trajectory verification of `{name}`")
                }) {
                    return;
                }
                self.actions[a].verify = Some(Said { value: on, s, at });
            }
            Sentence::DecisionCount { count, .. } => {
                let Some(a) = current else { return };
                let name = self.actions[a].name.clone();
                if self.redefined(s, at, &self.actions[a].decision_count.clone(), || {
                    format!("the decision count of `{name}`")
                }) {
                    return;
                }
                let Some(n) = self.count(s, &count, "a decision count") else {
                    return;
                };
                let have = self.actions[a].decisions.len();
                if have > n {
                    self.err(
                        s,
                        count.at,
                        Kind::OrdinalBeyondCount {
                            what: "decision",
                            of: format!("`{name}`"),
                            ordinal: words::ordinal_word(have),
                            count: n,
                        },
                    );
                    return;
                }
                let act = &mut self.actions[a];
                act.decision_count = Some(Said { value: n, s, at });
                while act.decisions.len() < n {
                    act.decisions.push(DecisionB {
                        introduced: Some((s, at)),
                        ..DecisionB::default()
                    });
                }
            }
            Sentence::DecisionName { which, name } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let before = self.diags.len();
                self.name_decision(s, at, a, which, name.clone());
                if self.diags.len() > before {
                    self.actions[a].poisoned.push(name.text);
                }
            }
            Sentence::Execute { decision, step } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let Some(d) = self.decision(s, a, Some(&decision)) else {
                    return;
                };
                let label = self.decision_label(a, d);
                let existing = self.actions[a].decisions[d].execute.clone();
                if self.redefined(s, at, &existing, || format!("when {label} executes")) {
                    return;
                }
                self.actions[a].decisions[d].execute = Some(Said { value: step, s, at });
            }
            Sentence::Arm { axes, decision } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let Some(d) = self.decision(s, a, decision.as_ref()) else {
                    return;
                };
                for (axis, check) in axes {
                    if let Some(c) = &check {
                        if !self.check_ok(s, c) {
                            continue;
                        }
                    }
                    let existing = self.actions[a].decisions[d].arm[axis].clone();
                    let label = self.decision_label(a, d);
                    if self.redefined(s, at, &existing, || {
                        format!("the arm's {} position for {label}", ["x", "y", "z"][axis])
                    }) {
                        continue;
                    }
                    self.actions[a].decisions[d].arm[axis] = Some(Said {
                        value: check,
                        s,
                        at,
                    });
                }
            }
            Sentence::Object {
                count,
                props,
                decision,
            } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let Some(d) = self.decision(s, a, decision.as_ref()) else {
                    return;
                };
                let Some(n) = self.count(s, &count, "a number of objects") else {
                    return;
                };
                let mut axes: [Option<Option<CheckSpec>>; 3] = [None, None, None];
                let mut certainty: Option<Option<(f64, f64)>> = None;
                for (prop, pat) in props {
                    match prop {
                        ObjProp::Axis(axis, check) => {
                            if axes[axis].is_some() {
                                let kind = Kind::Redefined {
                                    what: format!(
                                        "the {} position of this object",
                                        ["x", "y", "z"][axis]
                                    ),
                                    first_line: pat.line,
                                };
                                self.err(s, pat, kind);
                                continue;
                            }
                            if let Some(c) = &check {
                                if !self.check_ok(s, c) {
                                    axes[axis] = Some(None);
                                    continue;
                                }
                            }
                            axes[axis] = Some(check);
                        }
                        ObjProp::Certainty(v, t) => {
                            if certainty.is_some() {
                                let kind = Kind::Redefined {
                                    what: "the certainty of this object".into(),
                                    first_line: pat.line,
                                };
                                self.err(s, pat, kind);
                                continue;
                            }
                            let v = self.real(s, &v, "a certainty", None);
                            let t = self.real(s, &t, "a threshold", Some(0.0));
                            certainty = Some(v.zip(t));
                        }
                    }
                }
                let obj = ObjB {
                    axes: axes.map(Option::flatten),
                    certainty: certainty.flatten(),
                    s,
                };
                let objects = &mut self.actions[a].decisions[d].objects;
                if objects.len() + n > LIMIT {
                    let kind = Kind::NumberOutOfRange {
                        what: "the number of objects of a decision",
                        found: (objects.len() + n).to_string(),
                        expected: "at most 10000",
                    };
                    self.err(s, count.at, kind);
                    return;
                }
                objects.extend(std::iter::repeat(obj).take(n));
            }
            Sentence::Next {
                success,
                decision,
                target,
                delay,
            } => {
                let Some(a) = self.current_action(s, current) else {
                    return;
                };
                let Some(d) = self.decision(s, a, decision.as_ref()) else {
                    return;
                };
                let t = self.find_action(s, &target);
                let delay = self.delay(s, &delay);
                let label = self.decision_label(a, d);
                let dec = &self.actions[a].decisions[d];
                let existing = if success {
                    dec.success.clone()
                } else {
                    dec.fail.clone()
                };
                let which = if success { "success" } else { "failure" };
                if self.redefined(s, at, &existing, || {
                    format!("the {which} action for {label}")
                }) {
                    return;
                }
                if t.is_none() || delay.is_none() {
                    // Said, though wrongly: do not also report it missing.
                    self.actions[a].broken = true;
                }
                if let (Some(target), Some(delay)) = (t, delay) {
                    let said = Some(Said {
                        value: NextB { target, delay },
                        s,
                        at,
                    });
                    let dec = &mut self.actions[a].decisions[d];
                    if success {
                        dec.success = said;
                    } else {
                        dec.fail = said;
                    }
                }
            }
            Sentence::Reset {
                target,
                timeout,
                delay,
                ..
            } => {
                let Some(a) = current else { return };
                let name = self.actions[a].name.clone();
                if self.redefined(s, at, &self.actions[a].reset.clone(), || {
                    format!("the reset condition of `{name}`")
                }) {
                    return;
                }
                let t = self.find_action(s, &target);
                let timeout = match &timeout {
                    TimeoutSpec::Unlimited => Some(-1),
                    TimeoutSpec::Retries(n) => self.int(
                        s,
                        n,
                        "a timeout",
                        -1,
                        i64::MAX,
                        "a whole number of retries, or -1 (unlimited)",
                    ),
                };
                let delay = self.delay(s, &delay);
                if let (Some(target), Some(timeout), Some(delay)) = (t, timeout, delay) {
                    self.actions[a].reset = Some(Said {
                        value: Some(ResetB {
                            target,
                            timeout,
                            delay,
                        }),
                        s,
                        at,
                    });
                } else {
                    // Said, though wrongly: do not also report it missing.
                    self.actions[a].broken = true;
                }
            }
            Sentence::NoReset(_) => {
                let Some(a) = current else { return };
                let name = self.actions[a].name.clone();
                if self.redefined(s, at, &self.actions[a].reset.clone(), || {
                    format!("the reset condition of `{name}`")
                }) {
                    return;
                }
                self.actions[a].reset = Some(Said { value: None, s, at });
            }
        }
    }

    fn name_decision(&mut self, s: usize, at: Pos, a: usize, which: Option<OrdinalAt>, name: Name) {
        let act = &self.actions[a];
        let declared = act.decision_count.as_ref().map(|c| c.value);
        let count = declared.unwrap_or(act.decisions.len());
        let idx = match &which {
            None => act
                .decisions
                .iter()
                .position(|d| d.name.is_none())
                .map_or_else(
                    || {
                        if declared.is_some() {
                            Err(count)
                        } else {
                            Ok(count)
                        }
                    },
                    Ok,
                ),
            Some(o) => match Self::index(o.ord, Some(count)) {
                Ok(i) if declared.is_none() || i < count => Ok(i),
                _ => Err(count),
            },
        };
        let idx = match idx {
            Ok(i) => i,
            Err(count) => {
                let (o, word) = match &which {
                    Some(o) => (o.at, o.word.clone()),
                    None => (at, words::ordinal_word(count + 1)),
                };
                let kind = Kind::OrdinalBeyondCount {
                    what: "decision",
                    of: format!("`{}`", act.name),
                    ordinal: word,
                    count,
                };
                self.err(s, o, kind);
                return;
            }
        };
        if let Some(d) = act
            .decisions
            .iter()
            .find(|d| d.name.as_ref().is_some_and(|n| n.value == name.text))
        {
            let first_line = d.name.as_ref().map_or(0, |n| self.line(n.s));
            let kind = Kind::DuplicateDecision {
                action: act.name.clone(),
                name: name.text.clone(),
                first_line,
            };
            self.err(s, name.at, kind);
            return;
        }
        let act = &mut self.actions[a];
        while act.decisions.len() <= idx {
            act.decisions.push(DecisionB::default());
        }
        let existing = act.decisions[idx].name.clone();
        let aname = act.name.clone();
        if self.redefined(s, at, &existing, || {
            format!(
                "the name of the {} decision of `{aname}`",
                words::ordinal_word(idx + 1)
            )
        }) {
            return;
        }
        let act = &mut self.actions[a];
        let d = &mut act.decisions[idx];
        d.name = Some(Said {
            value: name.text,
            s,
            at,
        });
        d.introduced.get_or_insert((s, at));
        act.current = Some(idx);
    }

    /// Numbers of a check in range.
    fn check_ok(&mut self, s: usize, c: &CheckSpec) -> bool {
        let mut ok = self
            .real(s, &c.tolerance, "a threshold", Some(0.0))
            .is_some();
        if let ValueSpec::Num(n) = &c.value {
            ok &= self.real(s, n, "a coordinate", None).is_some();
        }
        ok
    }

    fn decision_label(&self, a: usize, d: usize) -> String {
        match self.actions[a]
            .decisions
            .get(d)
            .and_then(|x| x.name.as_ref())
        {
            Some(n) => format!("`{}`", n.value),
            None => format!("the {} decision", words::ordinal_word(d + 1)),
        }
    }

    /// A decision in words: `` decision `testLit` `` or `the second decision`.
    fn decision_words(&self, a: usize, d: usize) -> String {
        match self.actions[a]
            .decisions
            .get(d)
            .and_then(|x| x.name.as_ref())
        {
            Some(n) => format!("decision `{}`", n.value),
            None => format!("the {} decision", words::ordinal_word(d + 1)),
        }
    }

    fn decision_name(&self, a: usize, d: usize) -> String {
        match self.actions[a]
            .decisions
            .get(d)
            .and_then(|x| x.name.as_ref())
        {
            Some(n) => n.value.clone(),
            None => format!("the {} decision", words::ordinal_word(d + 1)),
        }
    }

    /// A variable → its name in the instructions (`start,0,0`).
    fn variable(&mut self, s: usize, v: &VarSpec) -> Option<String> {
        let a = self.find_action(s, &v.action)?;
        let d = match find_decision(&self.actions[a], &v.decision) {
            Ok(d) => d,
            Err(kind) => {
                let at = match &v.decision {
                    DecSel::Name(n) => n.at,
                    DecSel::Nth(o) => o.at,
                };
                self.err(s, at, kind);
                return None;
            }
        };
        let slot = match &v.slot {
            SlotSpec::Arm => "arm".to_owned(),
            SlotSpec::Object(nth) => {
                let objects = self.actions[a].decisions[d].objects.len();
                let (i, word, at) = match nth {
                    None => (Ok(0), "first".to_owned(), v.at),
                    Some(o) => (Self::index(o.ord, Some(objects)), o.word.clone(), o.at),
                };
                match i {
                    Ok(i) if i < objects => i.to_string(),
                    _ => {
                        let kind = Kind::OrdinalBeyondCount {
                            what: "object",
                            of: format!(
                                "decision `{}` of `{}`",
                                self.decision_name(a, d),
                                self.actions[a].name
                            ),
                            ordinal: word,
                            count: objects,
                        };
                        self.err(s, at, kind);
                        return None;
                    }
                }
            }
        };
        Some(format!("{},{d},{slot}", self.actions[a].name))
    }

    fn value(&mut self, s: usize, v: &ValueSpec) -> RawValue {
        match v {
            ValueSpec::Num(n) => RawValue::Num(if n.value.is_finite() { n.value } else { 0.0 }),
            ValueSpec::Var(var) => match self.variable(s, var) {
                Some(t) => RawValue::Text(t),
                None => RawValue::Num(0.0),
            },
        }
    }

    fn raw_check(&mut self, s: usize, c: &Option<CheckSpec>) -> RawCheck {
        match c {
            None => RawCheck::Any,
            Some(c) => {
                let v = self.value(s, &c.value);
                let t = c.tolerance.value;
                RawCheck::Within(v, if t.is_finite() && t >= 0.0 { t } else { 0.0 })
            }
        }
    }

    /// Resolve one action into its raw form (errors go to the diagnostics).
    fn finish(&mut self, a: usize) -> RawAction {
        let act = self.actions[a].clone();
        let name = act.name.clone();
        // Steps.
        let declared = act.step_count.as_ref().map(|c| c.value);
        let given = act.steps.keys().next_back().map_or(0, |k| k + 1);
        let n = declared.unwrap_or(given);
        if let Some(d) = declared {
            for (idx, st) in act.steps.range(d..) {
                let kind = Kind::OrdinalBeyondCount {
                    what: "step",
                    of: format!("`{name}`"),
                    ordinal: if st.value.word == "next" {
                        words::ordinal_word(idx + 1)
                    } else {
                        st.value.word.clone()
                    },
                    count: d,
                };
                self.err(st.s, st.at, kind);
            }
        }
        let missing: Vec<usize> = (0..n)
            .filter(|i| !act.steps.contains_key(i))
            .map(|i| i + 1)
            .collect();
        if !act.broken && !missing.is_empty() && n > 0 {
            let (s, at) = act.step_count.as_ref().map_or(act.create, |c| (c.s, c.at));
            self.err(
                s,
                at,
                Kind::StepCountMismatch {
                    action: name.clone(),
                    declared,
                    missing,
                },
            );
        }
        if n == 0 && !act.broken {
            let (s, at) = act.step_count.as_ref().map_or(act.create, |c| (c.s, c.at));
            self.err(
                s,
                at,
                Kind::EmptyTrajectory {
                    action: name.clone(),
                },
            );
        }
        let mut trajectory = Vec::with_capacity(n);
        let mut prev = [RawValue::Num(0.0), RawValue::Num(0.0), RawValue::Num(0.0)];
        for i in 0..n {
            let mut cur = prev.clone();
            if let Some(st) = act.steps.get(&i) {
                let mut set = [false; 3];
                for part in &st.value.parts {
                    if set[part.axis] {
                        let kind = Kind::Redefined {
                            what: format!(
                                "the {} coordinate of the {} step of `{name}`",
                                ["x", "y", "z"][part.axis],
                                words::ordinal_word(i + 1)
                            ),
                            first_line: part.at.line,
                        };
                        self.err(st.s, part.at, kind);
                        continue;
                    }
                    set[part.axis] = true;
                    if let ValueSpec::Var(v) = &part.value {
                        if part.slot_named && v.axis != part.axis {
                            let kind = Kind::AxisMismatch {
                                axis: ["x", "y", "z"][part.axis].into(),
                                variable_axis: ["x", "y", "z"][v.axis].into(),
                            };
                            self.err(st.s, v.at, kind);
                            continue;
                        }
                    }
                    if let ValueSpec::Num(num) = &part.value {
                        if self.real(st.s, num, "a coordinate", None).is_none() {
                            continue;
                        }
                    }
                    cur[part.axis] = self.value(st.s, &part.value);
                }
            }
            trajectory.push(cur.clone());
            prev = cur;
        }
        // Decisions.
        let count = act.decisions.len();
        let mut decisions = Vec::with_capacity(count);
        for d in 0..count {
            let dec = act.decisions[d].clone();
            let label = self.decision_name(a, d);
            let words = self.decision_words(a, d);
            let intro = match &dec.name {
                Some(n) => (n.s, n.at),
                None => dec.introduced.unwrap_or(act.create),
            };
            let execute_after = match &dec.execute {
                None => n.saturating_sub(1),
                Some(e) => match Self::index(e.value.ord, Some(n)) {
                    Ok(i) if i < n => i,
                    r => {
                        let step = match (r, e.value.ord) {
                            (_, Ordinal::Nth(k)) => usize::try_from(k).unwrap_or(usize::MAX),
                            (Ok(i), _) => i + 1,
                            (Err(()), _) => 0,
                        };
                        let kind = Kind::ExecuteAfterBeyondSteps {
                            action: name.clone(),
                            decision: words.clone(),
                            step,
                            steps: n,
                        };
                        self.err(e.s, e.value.at, kind);
                        0
                    }
                },
            };
            let mut arm = [RawCheck::Any, RawCheck::Any, RawCheck::Any];
            for (axis, slot) in dec.arm.iter().enumerate() {
                if let Some(said) = slot {
                    if let Some(ValueSpec::Var(v)) = said.value.as_ref().map(|c| &c.value) {
                        if v.axis != axis {
                            let kind = Kind::AxisMismatch {
                                axis: ["x", "y", "z"][axis].into(),
                                variable_axis: ["x", "y", "z"][v.axis].into(),
                            };
                            self.err(said.s, v.at, kind);
                            continue;
                        }
                    }
                    arm[axis] = self.raw_check(said.s, &said.value);
                }
            }
            let mut objects = Vec::with_capacity(dec.objects.len());
            for o in &dec.objects {
                let mut axes = [RawCheck::Any, RawCheck::Any, RawCheck::Any];
                for (axis, c) in o.axes.iter().enumerate() {
                    if let Some(CheckSpec {
                        value: ValueSpec::Var(v),
                        ..
                    }) = c
                    {
                        if v.axis != axis {
                            let kind = Kind::AxisMismatch {
                                axis: ["x", "y", "z"][axis].into(),
                                variable_axis: ["x", "y", "z"][v.axis].into(),
                            };
                            self.err(o.s, v.at, kind);
                            continue;
                        }
                    }
                    axes[axis] = self.raw_check(o.s, c);
                }
                objects.push(RawObject {
                    axes,
                    certainty: o.certainty,
                });
            }
            let next = |cx: &mut Self, n: &Option<Said<NextB>>, which: &'static str| match n {
                Some(n) => RawNext {
                    action: cx.actions[n.value.target].name.clone(),
                    delay: n.value.delay,
                },
                None => {
                    if !act.broken {
                        let kind = Kind::MissingNext {
                            action: name.clone(),
                            decision: words.clone(),
                            refer: label.clone(),
                            which,
                        };
                        cx.err(intro.0, intro.1, kind);
                    }
                    RawNext {
                        action: name.clone(),
                        delay: 0,
                    }
                }
            };
            let success = next(self, &dec.success, "success");
            let fail = next(self, &dec.fail, "failure");
            decisions.push(RawDecision {
                execute_after: execute_after as u64,
                arm,
                objects,
                success,
                fail,
            });
        }
        let reset = match &act.reset {
            Some(Said { value: Some(r), .. }) => Some(RawReset {
                timeout: r.timeout,
                next: RawNext {
                    action: self.actions[r.target].name.clone(),
                    delay: r.delay,
                },
            }),
            Some(Said { value: None, .. }) => None,
            None => {
                if !act.broken {
                    self.err(
                        act.create.0,
                        act.create.1,
                        Kind::MissingReset {
                            action: name.clone(),
                        },
                    );
                }
                None
            }
        };
        RawAction {
            trajectory,
            verify: act.verify.as_ref().is_some_and(|v| v.value),
            decisions,
            reset,
        }
    }
}

/// A decision of an action by name (exact, then case-insensitive when unique) or ordinal.
fn find_decision(act: &ActionB, sel: &DecSel) -> Result<usize, Kind> {
    let known: Vec<String> = act
        .decisions
        .iter()
        .filter_map(|d| d.name.as_ref().map(|n| n.value.clone()))
        .collect();
    match sel {
        DecSel::Name(n) => {
            let names: Vec<Option<&str>> = act
                .decisions
                .iter()
                .map(|d| d.name.as_ref().map(|n| n.value.as_str()))
                .collect();
            if let Some(i) = names.iter().position(|x| *x == Some(n.text.as_str())) {
                return Ok(i);
            }
            let folded: Vec<usize> = (0..names.len())
                .filter(|&i| names[i].is_some_and(|x| x.to_lowercase() == n.text.to_lowercase()))
                .collect();
            if let [one] = folded[..] {
                return Ok(one);
            }
            Err(Kind::UnknownDecision {
                action: act.name.clone(),
                name: n.text.clone(),
                suggestion: words::suggest(&n.text, known.iter().map(String::as_str)),
                known,
            })
        }
        DecSel::Nth(o) => {
            let count = act.decisions.len();
            match Cx::index(o.ord, Some(count)) {
                Ok(i) if i < count => Ok(i),
                _ => Err(Kind::UnknownDecision {
                    action: act.name.clone(),
                    name: format!("the {} decision", o.word),
                    suggestion: None,
                    known,
                }),
            }
        }
    }
}
