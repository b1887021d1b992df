//! The sentence patterns, tried in order by `any_sentence`: labels, the coordinate space,
//! actions, steps and moves, decisions, verification, execute, the arm's state, checks,
//! values and variables (a pure move out of `parse.rs`).
use super::*;

impl<'a> Parser<'a> {
    pub(super) fn any_sentence(&mut self) -> Option<Sentence> {
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

    pub(super) fn self_label(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.kw("you") || self.kw_any(&["are", "is"]).is_none() {
            return None;
        }
        self.kw_any(&["called", "named"])?;
        self.opt("the");
        self.name("a noun").map(Sentence::SelfLabel)
    }

    pub(super) fn target_label(&mut self) -> Option<Sentence> {
        self.opt("the");
        self.kw_any(&["targets", "target"])?;
        self.kw_any(&["are", "is"])?;
        self.kw_any(&["called", "named"])?;
        self.opt("the");
        self.name("a noun").map(Sentence::TargetLabel)
    }

    pub(super) fn coordinate_space(&mut self) -> Option<Sentence> {
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

    pub(super) fn initial(&mut self) -> Option<Sentence> {
        self.opt("the");
        if !self.kw("initial") || !self.kw("action") || !self.kw("is") {
            return None;
        }
        self.name("an action name").map(Sentence::InitialAction)
    }

    pub(super) fn create(&mut self) -> Option<Sentence> {
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

    pub(super) fn step(&mut self) -> Option<Sentence> {
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
    pub(super) fn move_part(&mut self) -> Option<Vec<StepPart>> {
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
    pub(super) fn coord3(&mut self) -> Option<Vec<(ValueSpec, Pos)>> {
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

    pub(super) fn step_count(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.kw_any(&["trajectory", "action"]);
        self.kw_any(&["has", "have"])?;
        let count = self.count()?;
        self.kw_any(&["steps", "step"])?;
        Some(Sentence::StepCount { action, count })
    }

    pub(super) fn decision_count(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.opt("action");
        self.kw_any(&["has", "have"])?;
        let count = self.count()?;
        self.kw_any(&["decisions", "decision"])?;
        Some(Sentence::DecisionCount { action, count })
    }

    pub(super) fn verify(&mut self) -> Option<Sentence> {
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

    pub(super) fn decision_name(&mut self) -> Option<Sentence> {
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
    pub(super) fn decision_ref(&mut self) -> Option<DecSel> {
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
    pub(super) fn for_decision(&mut self) -> Option<Option<DecSel>> {
        if self.pos == self.toks.len() {
            self.expect("`for`");
            return Some(None);
        }
        if !self.kw("for") {
            return None;
        }
        self.decision_ref().map(Some)
    }

    pub(super) fn execute(&mut self) -> Option<Sentence> {
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
    pub(super) fn must_be(&mut self) -> bool {
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

    pub(super) fn me(&mut self) -> bool {
        let me = self.vocab.me.clone();
        self.kw(&me)
    }

    pub(super) fn arm(&mut self) -> Option<Sentence> {
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
    pub(super) fn check(&mut self) -> Option<CheckSpec> {
        let value = self.value()?;
        let tolerance = self.threshold()?;
        Some(CheckSpec { value, tolerance })
    }

    /// `(threshold t)`, `(tolerance t)`. Lenient: `)` missing before `,`, `for`, `with` or
    /// the end of the sentence.
    pub(super) fn threshold(&mut self) -> Option<Num> {
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
    pub(super) fn value(&mut self) -> Option<ValueSpec> {
        if let Some(n) = self.alt(|p| p.number()) {
            return Some(ValueSpec::Num(n));
        }
        self.variable().map(ValueSpec::Var)
    }

    /// `the object`, `the second object`, `the arm`.
    pub(super) fn entity(&mut self) -> Option<SlotSpec> {
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
    pub(super) fn found_in(&mut self) -> bool {
        if self.kw_any(&["found", "seen"]).is_some() {
            return self.kw("in");
        }
        self.kw_any(&["from", "at", "in"]).is_some()
    }

    /// `start action testLit decision`, `the start action first decision`.
    pub(super) fn reference(&mut self) -> Option<(Name, DecSel)> {
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
    pub(super) fn variable(&mut self) -> Option<VarSpec> {
        let at = self.here();
        let axis_first = self.alt(|p| {
            p.opt("the");
            let axis = p.axis()?;
            if !p.kw("position") || !p.kw("of") {
                return None;
            }
            p.found_object(at, axis)
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
            // The axis comes last: read it first with a placeholder, then set it.
            let mut spec = p.found_object(at, 0)?;
            spec.axis = p.axis()?;
            p.kw("position").then_some(spec)
        })
    }

    /// `the object found in start action testLit decision` (or `the arm ...`): the
    /// variable of that axis, starting at `at`.
    fn found_object(&mut self, at: Pos, axis: usize) -> Option<VarSpec> {
        let slot = self.entity()?;
        if !self.found_in() {
            return None;
        }
        let (action, decision) = self.reference()?;
        Some(VarSpec {
            action,
            decision,
            slot,
            axis,
            at,
        })
    }
}
