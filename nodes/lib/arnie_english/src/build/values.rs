//! Pass 4's helpers: finding actions and decisions, numbers, counts, delays and ordinals
//! checked against their limits (a pure move out of `build.rs`).
use super::*;

impl Cx<'_> {
    pub(super) fn find_action(&mut self, s: usize, name: &Name) -> Option<usize> {
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

    pub(super) fn first_pos(&self, s: usize) -> Pos {
        self.texts[s]
            .tokens
            .first()
            .map_or(Pos::default(), |t| Pos {
                line: t.line,
                column: t.column,
            })
    }

    /// A whole number in `min..=max`.
    pub(super) fn int(
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

    pub(super) fn count(&mut self, s: usize, n: &Num, what: &'static str) -> Option<usize> {
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

    pub(super) fn real(
        &mut self,
        s: usize,
        n: &Num,
        what: &'static str,
        min: Option<f64>,
    ) -> Option<f64> {
        let ok = n.value.is_finite() && min.is_none_or(|m| n.value >= m);
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

    pub(super) fn delay(&mut self, s: usize, d: &DelaySpec) -> Option<i64> {
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
    pub(super) fn index(ord: Ordinal, count: Option<usize>) -> Result<usize, ()> {
        match ord {
            Ordinal::Nth(n) if n >= 1 && n <= LIMIT as u64 => Ok(n as usize - 1),
            Ordinal::Nth(_) => Err(()),
            Ordinal::Last => count.and_then(|c| c.checked_sub(1)).ok_or(()),
            Ordinal::Penultimate => count.and_then(|c| c.checked_sub(2)).ok_or(()),
            Ordinal::Antepenultimate => count.and_then(|c| c.checked_sub(3)).ok_or(()),
            Ordinal::Next => Err(()),
        }
    }

    pub(super) fn current_action(&mut self, s: usize, current: Option<usize>) -> Option<usize> {
        if current.is_none() {
            let at = self.first_pos(s);
            self.err(s, at, Kind::NoCurrentAction);
        }
        current
    }

    /// The decision a sentence is about, in action `a`.
    pub(super) fn decision(&mut self, s: usize, a: usize, sel: Option<&DecSel>) -> Option<usize> {
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

    pub(super) fn redefined<T>(
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
}
