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

mod apply;
mod finish;
mod values;

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
            let at = self.first_pos(s);
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
            let at = self.first_pos(s);
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
