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

mod ast;
mod flow;
mod sentences;
pub use ast::*;

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
