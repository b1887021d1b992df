//! Pass 5: each action finished: steps resolved, defaults filled, variables resolved
//! (a pure move out of `build.rs`).
use super::*;

impl Cx<'_> {
    /// Resolve one action into its raw form (errors go to the diagnostics).
    pub(super) fn finish(&mut self, a: usize) -> RawAction {
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
