//! The sentence patterns about objects and what happens next: objects and their
//! properties, `next`, delays, resets and "no reset" (a pure move out of `parse.rs`).
use super::*;

impl<'a> Parser<'a> {
    pub(super) fn object(&mut self) -> Option<Sentence> {
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
    pub(super) fn object_prop(&mut self) -> Option<Vec<ObjProp>> {
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

    pub(super) fn next(&mut self) -> Option<Sentence> {
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
    pub(super) fn delay(&mut self) -> Option<DelaySpec> {
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

    pub(super) fn reset(&mut self) -> Option<Sentence> {
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

    pub(super) fn no_reset(&mut self) -> Option<Sentence> {
        self.opt("the");
        let action = self.name("an action name")?;
        self.kw_any(&["has", "have"])?;
        if !self.kw("no") || !self.kw("reset") || !self.kw("condition") {
            return None;
        }
        Some(Sentence::NoReset(action))
    }
}
