//! Pass 4: each sentence applied to the current action and decision, and the names,
//! checks, variables and values it brings (a pure move out of `build.rs`). The sentences
//! about an action's steps and reset are here, those about its decisions in
//! `decisions.rs`.
use super::*;

impl Cx<'_> {
    /// One sentence applied: the current action (and decision) it speaks of gets what
    /// it says; anything said twice, or about something that does not exist, is a
    /// diagnostic.
    pub(super) fn apply(
        &mut self,
        s: usize,
        sentence: Sentence,
        current: Option<usize>,
        initial: &mut Option<Said<usize>>,
    ) {
        match sentence {
            Sentence::SelfLabel(_) | Sentence::TargetLabel(_) | Sentence::CoordinateSpace(_) => {}
            Sentence::Create(_) => {}
            Sentence::InitialAction(name) => {
                let at = self.first_pos(s);
                if self.redefined(s, at, initial, || "the initial action".into()) {
                    return;
                }
                if let Some(a) = self.find_action(s, &name) {
                    *initial = Some(Said { value: a, s, at });
                }
            }
            Sentence::StepCount { count, .. } => self.step_count(s, current, count),
            Sentence::Step { which, parts } => self.step(s, current, which, parts),
            Sentence::Verify(on) => self.verify(s, current, on),
            Sentence::DecisionCount { count, .. } => self.decision_count(s, current, count),
            Sentence::DecisionName { which, name } => self.decision_named(s, current, which, name),
            Sentence::Execute { decision, step } => self.execute(s, current, decision, step),
            Sentence::Arm { axes, decision } => self.arm(s, current, axes, decision),
            Sentence::Object {
                count,
                props,
                decision,
            } => self.object(s, current, count, props, decision),
            Sentence::Next {
                success,
                decision,
                target,
                delay,
            } => self.next_action(s, current, success, decision, target, delay),
            Sentence::Reset {
                target,
                timeout,
                delay,
                ..
            } => self.reset(s, current, target, timeout, delay),
            Sentence::NoReset(_) => self.no_reset(s, current),
        }
    }

    /// The step count of the current action (`The start trajectory has two steps.`).
    fn step_count(&mut self, s: usize, current: Option<usize>, count: Num) {
        let at = self.first_pos(s);
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

    /// A step of the current action (`The first step is to move to 0, 0, 0.`).
    fn step(
        &mut self,
        s: usize,
        current: Option<usize>,
        which: Option<OrdinalAt>,
        parts: Vec<StepPart>,
    ) {
        let at = self.first_pos(s);
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

    /// Trajectory verification on or off for the current action.
    fn verify(&mut self, s: usize, current: Option<usize>, on: bool) {
        let at = self.first_pos(s);
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

    /// The current action's reset condition.
    fn reset(
        &mut self,
        s: usize,
        current: Option<usize>,
        target: Name,
        timeout: TimeoutSpec,
        delay: DelaySpec,
    ) {
        let at = self.first_pos(s);
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

    /// The current action has no reset condition.
    fn no_reset(&mut self, s: usize, current: Option<usize>) {
        let at = self.first_pos(s);
        let Some(a) = current else { return };
        let name = self.actions[a].name.clone();
        if self.redefined(s, at, &self.actions[a].reset.clone(), || {
            format!("the reset condition of `{name}`")
        }) {
            return;
        }
        self.actions[a].reset = Some(Said { value: None, s, at });
    }

    /// A variable → its name in the instructions (`start,0,0`).
    pub(super) fn variable(&mut self, s: usize, v: &VarSpec) -> Option<String> {
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

    pub(super) fn value(&mut self, s: usize, v: &ValueSpec) -> RawValue {
        match v {
            ValueSpec::Num(n) => RawValue::Num(if n.value.is_finite() { n.value } else { 0.0 }),
            ValueSpec::Var(var) => match self.variable(s, var) {
                Some(t) => RawValue::Text(t),
                None => RawValue::Num(0.0),
            },
        }
    }

    pub(super) fn raw_check(&mut self, s: usize, c: &Option<CheckSpec>) -> RawCheck {
        match c {
            None => RawCheck::Any,
            Some(c) => {
                let v = self.value(s, &c.value);
                let t = c.tolerance.value;
                RawCheck::Within(v, if t.is_finite() && t >= 0.0 { t } else { 0.0 })
            }
        }
    }
}
