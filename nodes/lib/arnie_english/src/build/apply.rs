//! Pass 4: each sentence applied to the current action and decision, and the names,
//! checks, variables and values it brings (a pure move out of `build.rs`).
use super::*;

impl Cx<'_> {
    pub(super) fn apply(
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
                objects.extend(std::iter::repeat_n(obj, n));
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

    pub(super) fn name_decision(
        &mut self,
        s: usize,
        at: Pos,
        a: usize,
        which: Option<OrdinalAt>,
        name: Name,
    ) {
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
    pub(super) fn check_ok(&mut self, s: usize, c: &CheckSpec) -> bool {
        let mut ok = self
            .real(s, &c.tolerance, "a threshold", Some(0.0))
            .is_some();
        if let ValueSpec::Num(n) = &c.value {
            ok &= self.real(s, n, "a coordinate", None).is_some();
        }
        ok
    }

    pub(super) fn decision_label(&self, a: usize, d: usize) -> String {
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
    pub(super) fn decision_words(&self, a: usize, d: usize) -> String {
        match self.actions[a]
            .decisions
            .get(d)
            .and_then(|x| x.name.as_ref())
        {
            Some(n) => format!("decision `{}`", n.value),
            None => format!("the {} decision", words::ordinal_word(d + 1)),
        }
    }

    pub(super) fn decision_name(&self, a: usize, d: usize) -> String {
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
