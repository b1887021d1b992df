//! One sentence's tokens → a [`Sentence`]: the grammar.
//!
//! A recursive-descent parser with ordered choice: each sentence pattern is tried in turn
//! and the first that matches the whole sentence wins. When none does, the error is at
//! the farthest token any pattern reached, with everything that could have come there.
//!
//! Keywords match in any case. A sentence is parsed twice at most: strictly, then (only if
//! that fails) leniently, where a word one edit away from a keyword of five letters or more
//! (and itself no keyword) is read as that keyword, and a `(` left open is closed before the
//! next `,`, `for`, `with` or the end of the sentence. Each such reading is returned as a [`Fix`] and
//! reported as a warning.

use crate::lexer::{Tok, Token};
use crate::words;

/// Where a token starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A name (action or decision), as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    /// The name (quotes removed).
    pub text: String,
    /// Where it is.
    pub at: Pos,
}

/// An ordinal word and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordinal {
    /// `first`, `2nd` … (1-based).
    Nth(u64),
    /// `last`, `final`.
    Last,
    /// `penultimate`: one before the last.
    Penultimate,
    /// `antepenultimate`: two before the last.
    Antepenultimate,
    /// `next`: after the highest step given so far.
    Next,
}

/// An ordinal as written.
#[derive(Debug, Clone, PartialEq)]
pub struct OrdinalAt {
    /// Its meaning.
    pub ord: Ordinal,
    /// The words as written (`penultimate`, `4th`).
    pub word: String,
    /// Where it is.
    pub at: Pos,
}

/// A number as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Num {
    /// Its value (may be infinite when written too large: checked by the builder).
    pub value: f64,
    /// As written (`-50`, `four`).
    pub text: String,
    /// Where it is.
    pub at: Pos,
}

/// Which decision a sentence is about.
#[derive(Debug, Clone, PartialEq)]
pub enum DecSel {
    /// By name: `testLit`.
    Name(Name),
    /// By ordinal: `the first decision`.
    Nth(OrdinalAt),
}

/// What a variable captures.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotSpec {
    /// `the arm`.
    Arm,
    /// `the object`, `the second object` (`None`: the first).
    Object(Option<OrdinalAt>),
}

/// A variable: one axis of a point captured by a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct VarSpec {
    /// The action owning the decision.
    pub action: Name,
    /// The decision.
    pub decision: DecSel,
    /// Arm or object.
    pub slot: SlotSpec,
    /// The axis named (0, 1, 2).
    pub axis: usize,
    /// Where the variable starts.
    pub at: Pos,
}

/// A coordinate or check centre.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueSpec {
    /// A number (mm).
    Num(Num),
    /// A variable.
    Var(VarSpec),
}

/// `value (threshold t)`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckSpec {
    /// Centre.
    pub value: ValueSpec,
    /// Threshold.
    pub tolerance: Num,
}

/// One axis of a step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepPart {
    /// The axis set.
    pub axis: usize,
    /// Its value.
    pub value: ValueSpec,
    /// True when the axis was named by its slot (`x to …`, `to 1, 2, 3`), false when it
    /// comes from the variable (`to the y position of …`).
    pub slot_named: bool,
    /// Where the value is.
    pub at: Pos,
}

/// One property of an expected object.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjProp {
    /// An axis: `None` = any position.
    Axis(usize, Option<CheckSpec>),
    /// `with a certainty of v (threshold t)`.
    Certainty(Num, Num),
}

/// How long before the next action starts.
#[derive(Debug, Clone, PartialEq)]
pub enum DelaySpec {
    /// `no delay`, or nothing said: 0.
    None,
    /// `in the same tick`, `immediately`: −1.
    SameTick,
    /// `with a delay of N ticks`.
    Ticks(Num),
}

/// A reset timeout.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeoutSpec {
    /// `timeout N`.
    Retries(Num),
    /// `timeout unlimited`, `no timeout`.
    Unlimited,
}

/// Every sentence of the grammar.
#[derive(Debug, Clone, PartialEq)]
pub enum Sentence {
    /// `You are called the arm.`
    SelfLabel(Name),
    /// `Targets are called objects.`
    TargetLabel(Name),
    /// `The coordinate space is x, y, z.`
    CoordinateSpace([Name; 3]),
    /// `The initial action is start.`
    InitialAction(Name),
    /// `Create an action called start.`
    Create(Name),
    /// `The start trajectory has one step.`
    StepCount {
        /// The action.
        action: Name,
        /// The count.
        count: Num,
    },
    /// `The first step is to move to 0, 0, 0.`, `Move to …`
    Step {
        /// Which step (`None`: the next).
        which: Option<OrdinalAt>,
        /// The axes set.
        parts: Vec<StepPart>,
    },
    /// `Enable trajectory verification.`
    Verify(bool),
    /// `Start has one decision.`
    DecisionCount {
        /// The action.
        action: Name,
        /// The count.
        count: Num,
    },
    /// `The first decision is called testLit.`, `This is called testLit.`
    DecisionName {
        /// Which decision (`None`: "this": the first not yet named).
        which: Option<OrdinalAt>,
        /// The name.
        name: Name,
    },
    /// `Execute testLit after the first trajectory step.`
    Execute {
        /// The decision.
        decision: DecSel,
        /// The step.
        step: OrdinalAt,
    },
    /// `The arm can be in any position for testLit.`, `The arm's x position must be 0
    /// (threshold 10) for testLit.`, `The arm must be at 0, 50, 0 (threshold 10) …`
    Arm {
        /// Per axis given: `None` = any.
        axes: Vec<(usize, Option<CheckSpec>)>,
        /// The decision (`None`: the current one).
        decision: Option<DecSel>,
    },
    /// `There must be one object, at any position, with a certainty of 75 (threshold 25)
    /// for testLit.`
    Object {
        /// How many such objects.
        count: Num,
        /// Its properties, in order.
        props: Vec<(ObjProp, Pos)>,
        /// The decision.
        decision: Option<DecSel>,
    },
    /// `The success action for testLit is lightSelf with no delay.`
    Next {
        /// Success (true) or failure.
        success: bool,
        /// The decision.
        decision: Option<DecSel>,
        /// The action to start.
        target: Name,
        /// When.
        delay: DelaySpec,
    },
    /// `Start's reset condition is action start, timeout -1, no delay.`
    Reset {
        /// Whose.
        action: Name,
        /// The action to start.
        target: Name,
        /// Retries allowed.
        timeout: TimeoutSpec,
        /// When.
        delay: DelaySpec,
    },
    /// `Start has no reset condition.`
    NoReset(Name),
}

impl Sentence {
    /// The action a sentence names as its subject (it becomes the current action).
    pub fn subject(&self) -> Option<&Name> {
        match self {
            Sentence::Create(n)
            | Sentence::StepCount { action: n, .. }
            | Sentence::DecisionCount { action: n, .. }
            | Sentence::Reset { action: n, .. }
            | Sentence::NoReset(n) => Some(n),
            _ => None,
        }
    }
}

/// The words a text chose for the arm, the targets and the axes (labels).
#[derive(Debug, Clone, PartialEq)]
pub struct Vocab {
    /// `You are called the arm.`: `arm`.
    pub me: String,
    /// `Targets are called objects.`: `object`.
    pub target: String,
    /// … and `objects`.
    pub targets: String,
    /// `The coordinate space is x, y, z.`
    pub axes: [String; 3],
}

impl Default for Vocab {
    fn default() -> Self {
        Vocab {
            me: "arm".into(),
            target: "object".into(),
            targets: "objects".into(),
            axes: ["x".into(), "y".into(), "z".into()],
        }
    }
}

/// A reading applied by the lenient pass.
#[derive(Debug, Clone, PartialEq)]
pub enum Fix {
    /// A word read as a keyword.
    Keyword {
        /// Where the word is.
        at: Pos,
        /// As written.
        found: String,
        /// Read as.
        keyword: String,
    },
    /// A `)` assumed.
    Paren {
        /// Where the `(` is.
        at: Pos,
    },
}

/// Why a sentence did not parse: the farthest point reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Where.
    pub at: Pos,
    /// The token there, in words.
    pub found: String,
    /// The found word, when it is one (for suggestions).
    pub found_word: Option<String>,
    /// Whether the token is the first on its line (a missing full stop?).
    pub line_start: bool,
    /// Index of the token in the sentence.
    pub index: usize,
    /// What could have come there.
    pub expected: Vec<String>,
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    vocab: &'a Vocab,
    lenient: bool,
    fixes: Vec<Fix>,
    far: usize,
    expected: Vec<String>,
}

/// Parse a sentence that may be a label (`You are called …`, `Targets are called …`,
/// `The coordinate space is …`): those are read before all others, as they set the words
/// the others use. `None` when it is not one.
pub fn label(toks: &[Token]) -> Option<(Sentence, Vec<Fix>)> {
    let vocab = Vocab::default();
    for lenient in [false, true] {
        let mut p = Parser::new(toks, &vocab, lenient);
        if let Some(s) = p.whole(|p| {
            p.alt(|p| p.self_label())
                .or_else(|| p.alt(|p| p.target_label()))
                .or_else(|| p.alt(|p| p.coordinate_space()))
        }) {
            return Some((s, p.fixes));
        }
    }
    None
}

/// Parse a sentence. `Err` gives the farthest failure of the strict pass.
pub fn sentence(toks: &[Token], vocab: &Vocab) -> Result<(Sentence, Vec<Fix>), Failure> {
    let mut strict = Parser::new(toks, vocab, false);
    if let Some(s) = strict.whole(Parser::any_sentence) {
        return Ok((s, Vec::new()));
    }
    let mut lenient = Parser::new(toks, vocab, true);
    if let Some(s) = lenient.whole(Parser::any_sentence) {
        return Ok((s, lenient.fixes));
    }
    Err(strict.failure())
}

impl<'a> Parser<'a> {
    fn new(toks: &'a [Token], vocab: &'a Vocab, lenient: bool) -> Self {
        Parser {
            toks,
            pos: 0,
            vocab,
            lenient,
            fixes: Vec::new(),
            far: 0,
            expected: Vec::new(),
        }
    }

    fn failure(&self) -> Failure {
        let tok = self.toks.get(self.far);
        let mut expected = self.expected.clone();
        expected.sort();
        expected.dedup();
        Failure {
            at: self.pos_of(self.far),
            found: match tok.map(|t| &t.tok) {
                None => "end of sentence".into(),
                Some(Tok::Word(w)) => format!("word `{w}`"),
                Some(Tok::Number(n)) => format!("number `{n}`"),
                Some(Tok::Ordinal(n)) => format!("ordinal `{n}`"),
                Some(Tok::Quoted(q)) => format!("name \"{q}\""),
                Some(Tok::Possessive) => "`'s`".into(),
                Some(Tok::Punct(c)) | Some(Tok::Other(c)) => format!("`{c}`"),
            },
            found_word: match tok.map(|t| &t.tok) {
                Some(Tok::Word(w)) => Some(w.clone()),
                _ => None,
            },
            line_start: tok.is_some_and(|t| t.line_start) && self.far > 0,
            index: self.far,
            expected,
        }
    }

    fn pos_of(&self, i: usize) -> Pos {
        match self.toks.get(i) {
            Some(t) => Pos {
                line: t.line,
                column: t.column,
            },
            None => self
                .toks
                .last()
                .map(|t| Pos {
                    line: t.line,
                    column: t.column + t.width,
                })
                .unwrap_or_default(),
        }
    }

    fn here(&self) -> Pos {
        self.pos_of(self.pos)
    }

    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn expect(&mut self, what: impl Into<String>) {
        if self.pos > self.far {
            self.far = self.pos;
            self.expected.clear();
        }
        if self.pos == self.far {
            self.expected.push(what.into());
        }
    }

    /// Run `f`; on `None`, rewind (position and fixes).
    fn alt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let (pos, fixes) = (self.pos, self.fixes.len());
        let r = f(self);
        if r.is_none() {
            self.pos = pos;
            self.fixes.truncate(fixes);
        }
        r
    }

    /// `f` must use every token.
    fn whole<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let r = f(self)?;
        if self.pos == self.toks.len() {
            Some(r)
        } else {
            self.expect("the end of the sentence");
            None
        }
    }

    /// A keyword (any case). In the lenient pass, also a word one edit away from a keyword
    /// of five letters or more, when that word is no keyword itself.
    fn kw(&mut self, k: &str) -> bool {
        debug_assert!(
            words::is_reserved(k) || self.is_vocab(k),
            "keyword {k} missing from words::KEYWORDS"
        );
        if let Some(Tok::Word(w)) = self.peek() {
            if w.eq_ignore_ascii_case(k) || w.to_lowercase() == k {
                self.pos += 1;
                return true;
            }
            if self.lenient
                && k.chars().count() >= 5
                && !words::is_reserved(w)
                && !self.is_vocab(w)
                && words::distance(w, k) == 1
            {
                self.fixes.push(Fix::Keyword {
                    at: self.here(),
                    found: w.clone(),
                    keyword: k.to_owned(),
                });
                self.pos += 1;
                return true;
            }
        }
        self.expect(format!("`{k}`"));
        false
    }

    fn is_vocab(&self, w: &str) -> bool {
        let w = w.to_lowercase();
        w == self.vocab.me
            || w == self.vocab.target
            || w == self.vocab.targets
            || self.vocab.axes.contains(&w)
    }

    /// The first of `ks` that matches.
    fn kw_any(&mut self, ks: &[&str]) -> Option<usize> {
        ks.iter().position(|k| self.kw(k))
    }

    fn opt(&mut self, k: &str) {
        self.kw(k);
    }

    fn punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            return true;
        }
        self.expect(format!("`{c}`"));
        false
    }

    fn possessive(&mut self) -> bool {
        if self.peek() == Some(&Tok::Possessive) {
            self.pos += 1;
            return true;
        }
        self.expect("`'s`");
        false
    }

    /// `,` | `and` | `, and`
    fn sep(&mut self) -> bool {
        if self.punct(',') {
            self.opt("and");
            true
        } else {
            self.kw("and")
        }
    }

    /// An action or decision name: a word, or a quoted name.
    fn name(&mut self, what: &str) -> Option<Name> {
        let at = self.here();
        match self.peek() {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Some(Name {
                    text: w.clone(),
                    at,
                })
            }
            Some(Tok::Quoted(q)) => {
                self.pos += 1;
                Some(Name {
                    text: q.clone(),
                    at,
                })
            }
            _ => {
                self.expect(what.to_owned());
                None
            }
        }
    }

    /// Consecutive words from the cursor, lower case, hyphens split, with the token index
    /// after each part.
    fn word_parts(&self) -> Vec<(String, usize)> {
        let mut parts = Vec::new();
        for (i, t) in self.toks.iter().enumerate().skip(self.pos).take(8) {
            let Tok::Word(w) = &t.tok else { break };
            let pieces: Vec<&str> = w.split('-').collect();
            let n = pieces.len();
            for (k, p) in pieces.into_iter().enumerate() {
                // Only the last piece of a token ends at a token boundary.
                let end = if k + 1 == n { i + 1 } else { usize::MAX };
                parts.push((p.to_lowercase(), end));
            }
        }
        parts
    }

    /// A number: digits, or words (`four`, `minus fifty`, `twenty-five`).
    fn number(&mut self) -> Option<Num> {
        let at = self.here();
        if let Some(Tok::Number(n)) = self.peek() {
            self.pos += 1;
            return Some(Num {
                value: n.parse().unwrap_or(f64::INFINITY),
                text: n.clone(),
                at,
            });
        }
        let start = self.pos;
        let negative = matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case("minus") || w.eq_ignore_ascii_case("negative"));
        if negative {
            self.pos += 1;
            if let Some(Tok::Number(n)) = self.peek() {
                if !n.starts_with('-') {
                    self.pos += 1;
                    return Some(Num {
                        value: -n.parse().unwrap_or(f64::INFINITY),
                        text: format!("-{n}"),
                        at,
                    });
                }
            }
        }
        let parts = self.word_parts();
        let names: Vec<String> = parts.iter().map(|(p, _)| p.clone()).collect();
        if let Some((v, used)) = words::number_words(&names) {
            if let Some(&(_, end)) = parts.get(used - 1) {
                if end != usize::MAX {
                    let text = self.toks[start..end]
                        .iter()
                        .filter_map(|t| match &t.tok {
                            Tok::Word(w) => Some(w.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.pos = end;
                    let v = v as f64;
                    return Some(Num {
                        value: if negative { -v } else { v },
                        text,
                        at,
                    });
                }
            }
        }
        self.pos = start;
        self.expect("a number");
        None
    }

    /// A count: a number, `a`/`an` (1), `no` (0).
    fn count(&mut self) -> Option<Num> {
        let at = self.here();
        if let Some(Tok::Word(w)) = self.peek() {
            let v = match w.to_lowercase().as_str() {
                "a" | "an" => Some(1.0),
                "no" => Some(0.0),
                _ => None,
            };
            if let Some(value) = v {
                let text = w.clone();
                self.pos += 1;
                return Some(Num { value, text, at });
            }
        }
        self.number()
    }

    /// An ordinal: `first`, `4th`, `twenty-first`, `last`, `final`, `penultimate`,
    /// `antepenultimate`, and `next` when `next` is allowed.
    fn ordinal(&mut self, next: bool) -> Option<OrdinalAt> {
        let at = self.here();
        if let Some(Tok::Ordinal(n)) = self.peek() {
            self.pos += 1;
            let digits = n.trim_end_matches(|c: char| c.is_alphabetic());
            return Some(OrdinalAt {
                ord: Ordinal::Nth(digits.parse().unwrap_or(u64::MAX)),
                word: n.clone(),
                at,
            });
        }
        for (w, ord) in [
            ("last", Ordinal::Last),
            ("final", Ordinal::Last),
            ("penultimate", Ordinal::Penultimate),
            ("antepenultimate", Ordinal::Antepenultimate),
        ] {
            if self.kw(w) {
                return Some(OrdinalAt {
                    ord,
                    word: w.to_owned(),
                    at,
                });
            }
        }
        if next && self.kw("next") {
            return Some(OrdinalAt {
                ord: Ordinal::Next,
                word: "next".into(),
                at,
            });
        }
        let parts = self.word_parts();
        let names: Vec<String> = parts.iter().map(|(p, _)| p.clone()).collect();
        if let Some((v, used)) = words::ordinal_words(&names) {
            if let Some(&(_, end)) = parts.get(used - 1) {
                if end != usize::MAX {
                    let word = names[..used].join("-");
                    self.pos = end;
                    return Some(OrdinalAt {
                        ord: Ordinal::Nth(v),
                        word,
                        at,
                    });
                }
            }
        }
        if self.lenient {
            // A misspelt ordinal word (`frist`).
            if let Some(Tok::Word(w)) = self.peek() {
                let w = w.clone();
                if !words::is_reserved(&w) && !self.is_vocab(&w) {
                    for n in 1..=20usize {
                        let o = words::ordinal_word(n);
                        if o.len() >= 5 && words::distance(&w, &o) == 1 {
                            self.fixes.push(Fix::Keyword {
                                at,
                                found: w,
                                keyword: o.clone(),
                            });
                            self.pos += 1;
                            return Some(OrdinalAt {
                                ord: Ordinal::Nth(n as u64),
                                word: o,
                                at,
                            });
                        }
                    }
                }
            }
        }
        self.expect("an ordinal (`first`, `second`, …)");
        None
    }

    /// An axis name (`x`): its index.
    fn axis(&mut self) -> Option<usize> {
        let axes = self.vocab.axes.clone();
        for (i, a) in axes.iter().enumerate() {
            if self.kw(a) {
                return Some(i);
            }
        }
        None
    }

    /// `x`, `x and z`, `x, y and z`.
    fn axis_list(&mut self) -> Option<Vec<usize>> {
        let mut axes = vec![self.axis()?];
        loop {
            let more = self.alt(|p| {
                if !p.sep() {
                    return None;
                }
                p.axis()
            });
            match more {
                Some(a) => axes.push(a),
                None => return Some(axes),
            }
        }
    }

    // ----- sentences -----

    fn any_sentence(&mut self) -> Option<Sentence> {
        type Rule<'a> = fn(&mut Parser<'a>) -> Option<Sentence>;
        let rules: [Rule<'a>; 16] = [
            Parser::create,
            Parser::initial,
            Parser::self_label,
            Parser::target_label,
            Parser::coordinate_space,
            Parser::step,
            Parser::step_count,
            Parser::decision_count,
            Parser::verify,
            Parser::decision_name,
            Parser::execute,
            Parser::arm,
            Parser::object,
            Parser::next,
            Parser::reset,
            Parser::no_reset,
        ];
        for rule in rules {
            if let Some(s) = self.alt(|p| p.whole(rule)) {
                return Some(s);
            }
        }
        None
    }

    fn self_label(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.kw("you") || self.kw_any(&["are", "is"]).is_none() {
            return None;
        }
        self.kw_any(&["called", "named"])?;
        self.opt("the");
        self.name("a noun").map(Sentence::SelfLabel)
    }

    fn target_label(&mut self) -> Option<Sentence> {
        self.opt("the");
        self.kw_any(&["targets", "target"])?;
        self.kw_any(&["are", "is"])?;
        self.kw_any(&["called", "named"])?;
        self.opt("the");
        self.name("a noun").map(Sentence::TargetLabel)
    }

    fn coordinate_space(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.kw("coordinate") || !self.kw("space") {
            return None;
        }
        self.kw_any(&["is", "are"])?;
        let a = self.name("an axis name")?;
        if !self.sep() {
            return None;
        }
        let b = self.name("an axis name")?;
        if !self.sep() {
            return None;
        }
        let c = self.name("an axis name")?;
        Some(Sentence::CoordinateSpace([a, b, c]))
    }

    fn initial(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.kw("initial") || !self.kw("action") || !self.kw("is") {
            return None;
        }
        self.name("an action name").map(Sentence::InitialAction)
    }

    fn create(&mut self) -> Option<Sentence> {
        if !self.kw("create") {
            return None;
        }
        self.kw_any(&["an", "a"]);
        if !self.kw("action") {
            return None;
        }
        self.kw_any(&["called", "named"])?;
        self.name("an action name").map(Sentence::Create)
    }

    fn step(&mut self) -> Option<Sentence> {
        let which = self.alt(|p| {
            p.opt("the");
            let o = p.ordinal(true)?;
            if !p.kw("step") || !p.kw("is") {
                return None;
            }
            p.opt("to");
            Some(o)
        });
        if !self.kw("move") {
            return None;
        }
        let mut parts = self.move_part()?;
        while let Some(more) = self.alt(|p| {
            if !p.sep() {
                return None;
            }
            p.move_part()
        }) {
            parts.extend(more);
        }
        Some(Sentence::Step { which, parts })
    }

    /// `to 0, 0, 0` | `(to)? the y position of …` | `x and z positions to 0`.
    fn move_part(&mut self) -> Option<Vec<StepPart>> {
        if let Some(parts) = self.alt(|p| {
            if !p.kw("to") {
                return None;
            }
            let c = p.coord3()?;
            Some(
                c.into_iter()
                    .enumerate()
                    .map(|(axis, (value, at))| StepPart {
                        axis,
                        value,
                        slot_named: true,
                        at,
                    })
                    .collect(),
            )
        }) {
            return Some(parts);
        }
        if let Some(part) = self.alt(|p| {
            // `to` may be left out after the first dimension: `… decision and the z position of …`.
            p.opt("to");
            let at = p.here();
            let v = p.variable()?;
            Some(StepPart {
                axis: v.axis,
                value: ValueSpec::Var(v),
                slot_named: false,
                at,
            })
        }) {
            return Some(vec![part]);
        }
        self.alt(|p| {
            p.opt("the");
            let axes = p.axis_list()?;
            p.kw_any(&["position", "positions"]);
            if !p.kw("to") {
                return None;
            }
            let at = p.here();
            let value = p.value()?;
            Some(
                axes.into_iter()
                    .map(|axis| StepPart {
                        axis,
                        value: value.clone(),
                        slot_named: true,
                        at,
                    })
                    .collect(),
            )
        })
    }

    /// `a, b, c` (values).
    fn coord3(&mut self) -> Option<Vec<(ValueSpec, Pos)>> {
        let mut out = Vec::new();
        for i in 0..3 {
            if i > 0 && !self.punct(',') {
                return None;
            }
            let at = self.here();
            out.push((self.value()?, at));
        }
        Some(out)
    }

    fn step_count(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.kw_any(&["trajectory", "action"]);
        self.kw_any(&["has", "have"])?;
        let count = self.count()?;
        self.kw_any(&["steps", "step"])?;
        Some(Sentence::StepCount { action, count })
    }

    fn decision_count(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.opt("action");
        self.kw_any(&["has", "have"])?;
        let count = self.count()?;
        self.kw_any(&["decisions", "decision"])?;
        Some(Sentence::DecisionCount { action, count })
    }

    fn verify(&mut self) -> Option<Sentence> {
        if let Some(s) = self.alt(|p| {
            let on = p.kw_any(&["enable", "disable"])? == 0;
            p.opt("the");
            if !p.kw("trajectory") || !p.kw("verification") {
                return None;
            }
            Some(Sentence::Verify(on))
        }) {
            return Some(s);
        }
        self.opt("the");
        if !self.kw("trajectory") || !self.kw("verification") || !self.kw("is") {
            return None;
        }
        let i = self.kw_any(&["enabled", "on", "disabled", "off"])?;
        Some(Sentence::Verify(i < 2))
    }

    fn decision_name(&mut self) -> Option<Sentence> {
        let which = if self.kw("this") {
            self.opt("decision");
            None
        } else {
            self.opt("the");
            let o = self.ordinal(false)?;
            if !self.kw("decision") {
                return None;
            }
            Some(o)
        };
        if !self.kw("is") {
            return None;
        }
        self.kw_any(&["called", "named"])?;
        self.opt("the");
        let name = self.name("a decision name")?;
        Some(Sentence::DecisionName { which, name })
    }

    /// `testLit` | `the first decision`.
    fn decision_ref(&mut self) -> Option<DecSel> {
        if let Some(o) = self.alt(|p| {
            p.opt("the");
            let o = p.ordinal(false)?;
            p.kw("decision").then_some(o)
        }) {
            return Some(DecSel::Nth(o));
        }
        self.name("a decision name").map(DecSel::Name)
    }

    /// `for testLit` (optional at the end of a decision's sentence).
    fn for_decision(&mut self) -> Option<Option<DecSel>> {
        if self.pos == self.toks.len() {
            self.expect("`for`");
            return Some(None);
        }
        if !self.kw("for") {
            return None;
        }
        self.decision_ref().map(Some)
    }

    fn execute(&mut self) -> Option<Sentence> {
        self.kw_any(&["execute", "evaluate"])?;
        let decision = self.decision_ref()?;
        if !self.kw("after") {
            return None;
        }
        let step = if let Some(o) = self.alt(|p| {
            p.opt("the");
            let o = p.ordinal(false)?;
            p.opt("trajectory");
            p.kw("step").then_some(o)
        }) {
            o
        } else {
            if !self.kw("step") {
                return None;
            }
            let n = self.number()?;
            let v = if n.value >= 1.0 && n.value.fract() == 0.0 && n.value < 1e15 {
                n.value as u64
            } else {
                0
            };
            OrdinalAt {
                ord: Ordinal::Nth(v),
                word: format!("step {}", n.text),
                at: n.at,
            }
        };
        Some(Sentence::Execute { decision, step })
    }

    /// `must be`, `must be equal to`, `must equal`, `should be`, `is`.
    fn must_be(&mut self) -> bool {
        self.alt(|p| {
            let modal = p.kw_any(&["must", "should"]).is_some();
            if modal {
                if p.kw("equal") {
                    return Some(());
                }
                if !p.kw("be") {
                    return None;
                }
            } else if !p.kw("is") {
                return None;
            }
            if p.kw("equal") && !p.kw("to") {
                return None;
            }
            Some(())
        })
        .is_some()
    }

    fn me(&mut self) -> bool {
        let me = self.vocab.me.clone();
        self.kw(&me)
    }

    fn arm(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.me() {
            return None;
        }
        let axes = if self.possessive() {
            let axis = self.axis()?;
            if !self.kw("position") {
                return None;
            }
            let any = self.alt(|p| {
                if !p.kw("can") || !p.kw("be") {
                    return None;
                }
                if p.kw("anything") {
                    return Some(());
                }
                (p.kw("any") && p.kw("position")).then_some(())
            });
            if any.is_some() {
                vec![(axis, None)]
            } else {
                if !self.must_be() {
                    return None;
                }
                vec![(axis, Some(self.check()?))]
            }
        } else if let Some(()) = self.alt(|p| {
            if !p.kw("can") || !p.kw("be") {
                return None;
            }
            if p.kw("anywhere") {
                return Some(());
            }
            p.kw_any(&["in", "at"])?;
            (p.kw("any") && p.kw("position")).then_some(())
        }) {
            vec![(0, None), (1, None), (2, None)]
        } else {
            if !self.must_be() || !self.kw("at") {
                return None;
            }
            self.opt("position");
            let c = self.coord3()?;
            let tolerance = self.threshold()?;
            c.into_iter()
                .enumerate()
                .map(|(axis, (value, _))| {
                    (
                        axis,
                        Some(CheckSpec {
                            value,
                            tolerance: tolerance.clone(),
                        }),
                    )
                })
                .collect()
        };
        let decision = self.for_decision()?;
        Some(Sentence::Arm { axes, decision })
    }

    /// `value (threshold t)`.
    fn check(&mut self) -> Option<CheckSpec> {
        let value = self.value()?;
        let tolerance = self.threshold()?;
        Some(CheckSpec { value, tolerance })
    }

    /// `(threshold t)`, `(tolerance t)`. Lenient: `)` missing before `,`, `for`, `with` or
    /// the end of the sentence.
    fn threshold(&mut self) -> Option<Num> {
        let open = self.here();
        if !self.punct('(') {
            return None;
        }
        self.kw_any(&["threshold", "tolerance"])?;
        self.opt("of");
        let n = self.number()?;
        if self.punct(')') {
            return Some(n);
        }
        let closes_here = match self.peek() {
            None | Some(Tok::Punct(',')) => true,
            Some(Tok::Word(w)) => w.eq_ignore_ascii_case("for") || w.eq_ignore_ascii_case("with"),
            _ => false,
        };
        if self.lenient && closes_here {
            self.fixes.push(Fix::Paren { at: open });
            return Some(n);
        }
        None
    }

    /// A number or a variable.
    fn value(&mut self) -> Option<ValueSpec> {
        if let Some(n) = self.alt(|p| p.number()) {
            return Some(ValueSpec::Num(n));
        }
        self.variable().map(ValueSpec::Var)
    }

    /// `the object`, `the second object`, `the arm`.
    fn entity(&mut self) -> Option<SlotSpec> {
        self.opt("the");
        if self.me() {
            return Some(SlotSpec::Arm);
        }
        let nth = self.alt(|p| p.ordinal(false));
        let (t, ts) = (self.vocab.target.clone(), self.vocab.targets.clone());
        if self.kw(&t) || self.kw(&ts) {
            return Some(SlotSpec::Object(nth));
        }
        None
    }

    /// `found in` | `seen in` | `from` | `at` | `in`.
    fn found_in(&mut self) -> bool {
        if self.kw_any(&["found", "seen"]).is_some() {
            return self.kw("in");
        }
        self.kw_any(&["from", "at", "in"]).is_some()
    }

    /// `start action testLit decision`, `the start action first decision`.
    fn reference(&mut self) -> Option<(Name, DecSel)> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.opt("action");
        let decision = if let Some(o) = self.alt(|p| p.ordinal(false)) {
            DecSel::Nth(o)
        } else {
            DecSel::Name(self.name("a decision name")?)
        };
        if !self.kw("decision") {
            return None;
        }
        Some((action, decision))
    }

    /// The three ways to name a variable:
    /// `the y position of the object found in start action testLit decision`,
    /// `the position of the object found in start action testLit decision y position`,
    /// `the object found in start action testLit decision y position`.
    fn variable(&mut self) -> Option<VarSpec> {
        let at = self.here();
        let axis_first = self.alt(|p| {
            p.opt("the");
            let axis = p.axis()?;
            if !p.kw("position") || !p.kw("of") {
                return None;
            }
            let slot = p.entity()?;
            if !p.found_in() {
                return None;
            }
            let (action, decision) = p.reference()?;
            Some(VarSpec {
                action,
                decision,
                slot,
                axis,
                at,
            })
        });
        if axis_first.is_some() {
            return axis_first;
        }
        self.alt(|p| {
            // `the position of` may be left out: `the object found in … y position`.
            p.alt(|p| {
                p.opt("the");
                (p.kw("position") && p.kw("of")).then_some(())
            });
            let slot = p.entity()?;
            if !p.found_in() {
                return None;
            }
            let (action, decision) = p.reference()?;
            let axis = p.axis()?;
            if !p.kw("position") {
                return None;
            }
            Some(VarSpec {
                action,
                decision,
                slot,
                axis,
                at,
            })
        })
    }

    fn object(&mut self) -> Option<Sentence> {
        if !self.kw("there") {
            return None;
        }
        if self.kw_any(&["must", "should"]).is_some() {
            if !self.kw("be") {
                return None;
            }
        } else {
            self.kw_any(&["is", "are"])?;
        }
        let count = self.count()?;
        let (t, ts) = (self.vocab.target.clone(), self.vocab.targets.clone());
        if !self.kw(&t) && !self.kw(&ts) {
            return None;
        }
        let mut props = Vec::new();
        while let Some(p) = self.alt(|p| {
            // The first property may follow the noun without a comma.
            p.sep();
            let at = p.here();
            p.object_prop().map(|v| (v, at))
        }) {
            props.extend(p.0.into_iter().map(|v| (v, p.1)));
        }
        let decision = self.for_decision()?;
        Some(Sentence::Object {
            count,
            props,
            decision,
        })
    }

    /// `at any position` | `at position a, b, c (threshold t)` | `at x position v (threshold
    /// t)` | `y position equal to v (threshold t)` | `any z position` | `with a certainty of
    /// v (threshold t)`.
    fn object_prop(&mut self) -> Option<Vec<ObjProp>> {
        if self
            .alt(|p| {
                if p.kw("anywhere") {
                    return Some(());
                }
                p.opt("at");
                (p.kw("any") && p.kw("position")).then_some(())
            })
            .is_some()
        {
            return Some((0..3).map(|a| ObjProp::Axis(a, None)).collect());
        }
        if let Some(v) = self.alt(|p| {
            p.opt("at");
            if !p.kw("position") {
                return None;
            }
            let c = p.coord3()?;
            let t = p.threshold()?;
            Some(
                c.into_iter()
                    .enumerate()
                    .map(|(a, (value, _))| {
                        ObjProp::Axis(
                            a,
                            Some(CheckSpec {
                                value,
                                tolerance: t.clone(),
                            }),
                        )
                    })
                    .collect(),
            )
        }) {
            return Some(v);
        }
        if let Some(a) = self.alt(|p| {
            p.opt("at");
            if !p.kw("any") {
                return None;
            }
            let a = p.axis()?;
            p.kw("position").then_some(a)
        }) {
            return Some(vec![ObjProp::Axis(a, None)]);
        }
        if let Some(v) = self.alt(|p| {
            p.opt("at");
            p.opt("the");
            let a = p.axis()?;
            if !p.kw("position") {
                return None;
            }
            p.alt(|p| {
                if p.kw("equal") {
                    return p.kw("to").then_some(());
                }
                if p.kw_any(&["of", "at", "is"]).is_some() || p.punct('=') {
                    return Some(());
                }
                None
            });
            let c = p.check()?;
            Some(vec![ObjProp::Axis(a, Some(c))])
        }) {
            return Some(v);
        }
        self.alt(|p| {
            if !p.kw("with") {
                return None;
            }
            p.kw_any(&["a", "an"]);
            if !p.kw("certainty") {
                return None;
            }
            p.opt("of");
            let v = p.number()?;
            let t = p.threshold()?;
            Some(vec![ObjProp::Certainty(v, t)])
        })
    }

    fn next(&mut self) -> Option<Sentence> {
        self.opt("the");
        let which = self.kw_any(&["success", "failure", "fail"])?;
        if !self.kw("action") {
            return None;
        }
        let decision = if self.pos < self.toks.len() && self.kw("for") {
            Some(self.decision_ref()?)
        } else {
            None
        };
        if !self.kw("is") {
            return None;
        }
        let target = self.name("an action name")?;
        let delay = self.delay()?;
        Some(Sentence::Next {
            success: which == 0,
            decision,
            target,
            delay,
        })
    }

    /// An optional delay: `with no delay`, `, no delay`, `with a delay of 2 ticks`,
    /// `after 2 ticks`, `in the same tick`, `immediately`. Nothing: no delay.
    fn delay(&mut self) -> Option<DelaySpec> {
        if self.pos == self.toks.len() {
            self.expect("a delay (`with no delay`)");
            return Some(DelaySpec::None);
        }
        self.punct(',');
        self.opt("and");
        self.opt("with");
        if self.kw("no") {
            return self.kw("delay").then_some(DelaySpec::None);
        }
        if self.kw("immediately") {
            return Some(DelaySpec::SameTick);
        }
        if self.kw("in") {
            return (self.kw("the") && self.kw("same") && self.kw("tick"))
                .then_some(DelaySpec::SameTick);
        }
        if self.kw("after") {
            let n = self.number()?;
            self.kw_any(&["ticks", "tick"])?;
            return Some(DelaySpec::Ticks(n));
        }
        self.kw_any(&["a", "an"]);
        if !self.kw("delay") {
            return None;
        }
        self.opt("of");
        let n = self.number()?;
        self.kw_any(&["ticks", "tick"]);
        Some(DelaySpec::Ticks(n))
    }

    fn reset(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        if !self.possessive() || !self.kw("reset") || !self.kw("condition") || !self.kw("is") {
            return None;
        }
        self.opt("action");
        let target = self.name("an action name")?;
        if !self.sep() {
            return None;
        }
        let timeout = if self.kw("no") {
            if !self.kw("timeout") {
                return None;
            }
            TimeoutSpec::Unlimited
        } else {
            if !self.kw("timeout") {
                return None;
            }
            if self.kw_any(&["unlimited", "none"]).is_some() {
                TimeoutSpec::Unlimited
            } else {
                TimeoutSpec::Retries(self.number()?)
            }
        };
        let delay = if self.pos == self.toks.len() {
            self.expect("`,`");
            DelaySpec::None
        } else {
            self.delay()?
        };
        Some(Sentence::Reset {
            action,
            target,
            timeout,
            delay,
        })
    }

    fn no_reset(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.kw_any(&["has", "have"])?;
        if !self.kw("no") || !self.kw("reset") || !self.kw("condition") {
            return None;
        }
        Some(Sentence::NoReset(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::sentences;

    fn parse(text: &str) -> Result<(Sentence, Vec<Fix>), Failure> {
        let (s, d) = sentences(text);
        assert!(d.is_empty());
        sentence(&s[0].tokens, &Vocab::default())
    }

    #[test]
    fn steps_keep_the_axes_they_do_not_name() {
        let (s, _) = parse("The final step is to move x and z positions to zero.").unwrap();
        let Sentence::Step { which, parts } = s else {
            panic!("{s:?}")
        };
        assert_eq!(which.unwrap().ord, Ordinal::Last);
        assert_eq!(parts.iter().map(|p| p.axis).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn a_typo_is_read_leniently_with_a_fix() {
        let (_, fixes) = parse(
            "The arm's y position must be the position of the object found in start action \
             testLit decision y posision (threshold 10) for testLit.",
        )
        .unwrap();
        assert!(matches!(&fixes[..], [Fix::Keyword { keyword, .. }] if keyword == "position"));
    }

    #[test]
    fn the_farthest_failure_is_reported() {
        let f = parse("The start trajectory has four stepzz.").unwrap_err();
        assert_eq!(f.found, "word `stepzz`");
        assert!(f.expected.contains(&"`steps`".to_owned()), "{f:?}");
    }
}
