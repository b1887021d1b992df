//! What the parser returns: a [`Sentence`] and its parts (names, numbers, ordinals,
//! values, checks, step parts), the [`Vocab`] it reads with, the lenient [`Fix`]es and the
//! [`Failure`] of a sentence that does not parse (a pure move out of `parse.rs`).

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
