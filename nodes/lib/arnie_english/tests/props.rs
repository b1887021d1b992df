//! Property tests: any instructions the loader accepts survive explain → compile (models
//! generated with proptest, through the brain's own validator); compiling never panics on
//! random text, random bytes, mutated sample lines or sentences shuffled from the sample.
mod common;

use arnie_english::{compile_with, Options, Severity};
use arnie_instructions::loader::{
    RawAction, RawCheck, RawDecision, RawInstructions, RawNext, RawObject, RawReset, RawValue,
};
use proptest::prelude::*;

// ----- generated instruction models -----

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z_][a-zA-Z0-9_]{0,7}",
        2 => prop::sample::select(arnie_english::words::KEYWORDS).prop_map(str::to_owned),
        1 => "\\PC{0,6}",
        1 => "[a-z ,\"\\\\'.#()\u{201c}\u{201d}\u{2019}-]{0,5}",
    ]
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (-1000i32..1000).prop_map(f64::from),
        2 => -100.0..100.0f64,
        1 => any::<f64>().prop_filter("finite", |v| v.is_finite()),
    ]
}

/// Per action: steps (1..=4) and per decision its number of objects (0..=2).
fn shape() -> impl Strategy<Value = Vec<(usize, Vec<usize>)>> {
    prop::collection::vec(
        (1usize..=4, prop::collection::vec(0usize..=2, 0..=2)),
        1..=4,
    )
}

struct Gen<'a> {
    choices: &'a [u32],
    nums: &'a [f64],
    i: usize,
    j: usize,
}

impl Gen<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let c = self.choices[self.i % self.choices.len()] as usize;
        self.i += 1;
        if n == 0 {
            0
        } else {
            c % n
        }
    }

    fn num(&mut self) -> f64 {
        let v = self.nums[self.j % self.nums.len()];
        self.j += 1;
        v
    }
}

fn build(
    names: &[String],
    shape: &[(usize, Vec<usize>)],
    choices: &[u32],
    nums: &[f64],
) -> RawInstructions {
    let mut g = Gen {
        choices,
        nums,
        i: 0,
        j: 0,
    };
    let n = names.len().min(shape.len());
    // Every (action, decision, objects) a variable may name.
    let decisions: Vec<(usize, usize, usize)> = (0..n)
        .flat_map(|a| shape[a].1.iter().enumerate().map(move |(d, &o)| (a, d, o)))
        .collect();
    let value = |g: &mut Gen<'_>| -> RawValue {
        if !decisions.is_empty() && g.pick(3) == 0 {
            let (a, d, objects) = decisions[g.pick(decisions.len())];
            let slot = if objects == 0 || g.pick(2) == 0 {
                "arm".to_owned()
            } else {
                g.pick(objects).to_string()
            };
            RawValue::Text(format!("{},{d},{slot}", names[a]))
        } else {
            RawValue::Num(g.num())
        }
    };
    let check = |g: &mut Gen<'_>| -> RawCheck {
        if g.pick(3) == 0 {
            RawCheck::Any
        } else {
            let v = value(g);
            RawCheck::Within(v, g.num().abs())
        }
    };
    let next = |g: &mut Gen<'_>| -> RawNext {
        let action = names[g.pick(n)].clone();
        let delay = if g.pick(11) == 0 {
            i64::MAX
        } else {
            g.pick(5) as i64 - 1
        };
        RawNext { action, delay }
    };
    let mut actions = Vec::new();
    for a in 0..n {
        let (steps, objects) = &shape[a];
        let trajectory = (0..*steps)
            .map(|_| [value(&mut g), value(&mut g), value(&mut g)])
            .collect();
        let decisions = objects
            .iter()
            .map(|&o| RawDecision {
                execute_after: g.pick(*steps) as u64,
                arm: [check(&mut g), check(&mut g), check(&mut g)],
                objects: (0..o)
                    .map(|_| RawObject {
                        axes: [check(&mut g), check(&mut g), check(&mut g)],
                        certainty: (g.pick(2) == 0).then(|| (g.num(), g.num().abs())),
                    })
                    .collect(),
                success: next(&mut g),
                fail: next(&mut g),
            })
            .collect();
        let reset = (g.pick(4) != 0).then(|| RawReset {
            timeout: match g.pick(8) {
                0 => i64::from(u32::MAX) + 5, // beyond u32: unlimited, as -1
                k => k as i64 - 2,
            },
            next: next(&mut g),
        });
        actions.push((
            names[a].clone(),
            RawAction {
                trajectory,
                verify: g.pick(2) == 0,
                decisions,
                reset,
            },
        ));
    }
    RawInstructions {
        initial_action: names[g.pick(n)].clone(),
        actions,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_loadable_model_survives_explain_then_compile(
        names in prop::collection::btree_set(name(), 1..=4),
        shape in shape(),
        choices in prop::collection::vec(any::<u32>(), 1..64),
        nums in prop::collection::vec(number(), 1..16),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let raw = build(&names, &shape, &choices, &nums);
        // Only what the loader accepts (it rejects, e.g., a variable of an action named "").
        let loaded = arnie_instructions::validate::validate(&raw);
        prop_assume!(loaded.is_ok());
        let i = loaded.unwrap_or_else(|_| unreachable!());
        common::assert_round_trip(&i, "generated");
    }
}

// ----- never a panic -----

/// Compile leniently and strictly; check what a caller relies on.
fn check(text: &str) {
    let lines = text.split('\n').count();
    for strict in [false, true] {
        let c = compile_with(text, Options { strict });
        let errors = c
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        assert_eq!(c.instructions.is_some(), errors == 0, "{text:?}");
        for d in &c.diagnostics {
            assert!(
                d.line >= 1 && d.line <= lines,
                "{d} ({lines} lines) in {text:?}"
            );
            assert!(d.column >= 1, "{d}");
            assert!(!d.to_string().is_empty());
            if strict {
                assert_eq!(d.severity, Severity::Error, "{d}");
            }
        }
        if let Some(i) = c.instructions {
            // Whatever compiles explains back to itself.
            common::assert_round_trip(&i, text);
        }
    }
}

fn sample_lines() -> Vec<String> {
    common::sample().lines().map(str::to_owned).collect()
}

fn sample_words() -> Vec<String> {
    let mut w: Vec<String> = common::sample()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    w.extend(
        [
            "(",
            ")",
            ",",
            ".",
            "'s",
            "\"",
            "-1",
            "1e400",
            "99999999999999999999",
            "next",
            "This",
            "#",
        ]
        .map(String::from),
    );
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn never_panics_on_random_text(text in "\\PC{0,300}") {
        check(&text);
    }

    #[test]
    fn never_panics_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    /// The sample with a few edits: characters deleted or inserted, lines dropped,
    /// doubled or swapped, words replaced by other words of the sample.
    #[test]
    fn never_panics_on_mutated_sample_lines(
        edits in prop::collection::vec((0usize..6, any::<prop::sample::Index>(), any::<prop::sample::Index>(), "\\PC{0,6}"), 1..6),
    ) {
        let mut lines = sample_lines();
        let words = sample_words();
        for (kind, a, b, s) in edits {
            let l = a.index(lines.len().max(1));
            match kind {
                0 => {
                    // Delete a range of characters of a line.
                    let chars: Vec<char> = lines[l].chars().collect();
                    let start = b.index(chars.len() + 1);
                    let end = (start + s.chars().count()).min(chars.len());
                    lines[l] = chars[..start].iter().chain(&chars[end..]).collect();
                }
                1 => {
                    // Insert text into a line.
                    let chars: Vec<char> = lines[l].chars().collect();
                    let at = b.index(chars.len() + 1);
                    lines[l] = chars[..at].iter().copied().chain(s.chars()).chain(chars[at..].iter().copied()).collect();
                }
                2 => {
                    lines.remove(l);
                }
                3 => {
                    let copy = lines[l].clone();
                    lines.insert(b.index(lines.len() + 1), copy);
                }
                4 => {
                    let m = b.index(lines.len());
                    lines.swap(l, m);
                }
                _ => {
                    // Replace a word by another word of the sample.
                    let mut ws: Vec<String> = lines[l].split(' ').map(str::to_owned).collect();
                    let k = b.index(ws.len());
                    ws[k] = words[(s.len() * 7 + k) % words.len()].clone();
                    lines[l] = ws.join(" ");
                }
            }
            if lines.is_empty() {
                lines.push(String::new());
            }
        }
        check(&lines.join("\n"));
    }

    /// Word salad from the sample's own words: deep into the grammar, wrong everywhere.
    #[test]
    fn never_panics_on_shuffled_sample_words(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..80),
    ) {
        let words = sample_words();
        let text: Vec<&str> = picks.iter().map(|i| words[i.index(words.len())].as_str()).collect();
        check(&text.join(" "));
    }

    /// Whole sentences of the sample in any order and number.
    #[test]
    fn never_panics_on_shuffled_sample_sentences(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let sentences: Vec<String> = common::sample().split('.').map(|s| format!("{}.", s.trim())).collect();
        let text: Vec<&str> = picks.iter().map(|i| sentences[i.index(sentences.len())].as_str()).collect();
        check(&text.join("\n"));
    }
}
