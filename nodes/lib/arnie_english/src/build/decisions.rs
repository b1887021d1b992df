//! Pass 4, the sentences about an action's decisions: how many, their names, when they
//! execute, what they want of the arm and the objects seen, and what follows them.
use super::*;

impl Cx<'_> {
    /// The number of decisions of the current action; the missing ones are made.
    pub(super) fn decision_count(&mut self, s: usize, current: Option<usize>, count: Num) {
        let at = self.first_pos(s);
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

    /// A decision of the current action named (`The first decision is called testLit.`).
    pub(super) fn decision_named(
        &mut self,
        s: usize,
        current: Option<usize>,
        which: Option<OrdinalAt>,
        name: Name,
    ) {
        let at = self.first_pos(s);
        let Some(a) = self.current_action(s, current) else {
            return;
        };
        let before = self.diags.len();
        self.name_decision(s, at, a, which, name.clone());
        if self.diags.len() > before {
            self.actions[a].poisoned.push(name.text);
        }
    }

    /// After which step a decision executes.
    pub(super) fn execute(
        &mut self,
        s: usize,
        current: Option<usize>,
        decision: DecSel,
        step: OrdinalAt,
    ) {
        let at = self.first_pos(s);
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

    /// Where a decision wants the arm, axis by axis.
    pub(super) fn arm(
        &mut self,
        s: usize,
        current: Option<usize>,
        axes: Vec<(usize, Option<CheckSpec>)>,
        decision: Option<DecSel>,
    ) {
        let at = self.first_pos(s);
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

    /// Objects a decision wants seen (how many, where, how certain).
    pub(super) fn object(
        &mut self,
        s: usize,
        current: Option<usize>,
        count: Num,
        props: Vec<(ObjProp, Pos)>,
        decision: Option<DecSel>,
    ) {
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
                            what: format!("the {} position of this object", ["x", "y", "z"][axis]),
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

    /// A decision's success or failure action.
    pub(super) fn next_action(
        &mut self,
        s: usize,
        current: Option<usize>,
        success: bool,
        decision: Option<DecSel>,
        target: Name,
        delay: DelaySpec,
    ) {
        let at = self.first_pos(s);
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
}
