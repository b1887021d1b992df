//! Text → tokens with their line and column, grouped into sentences.
//!
//! A sentence ends at a full stop (one that is not a decimal point), at a blank line, or at
//! the end of the text. Whitespace, including line breaks inside a sentence, only separates
//! tokens. `#` starts a comment that runs to the end of its line. Curly quotes and
//! apostrophes, and the minus sign `−`, are read as their ASCII forms.

use crate::diagnostic::{Diagnostic, Kind, Severity};

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// Letters, digits, `_` and inner `-`, starting with a letter or `_`.
    Word(String),
    /// A number as written (`-50`, `2.5`, `1e3`), minus signs normalised to `-`.
    Number(String),
    /// Digits with an ordinal suffix, as written (`4th`, `21st`).
    Ordinal(String),
    /// A name in double quotes, escapes decoded.
    Quoted(String),
    /// `'s` (or a lone `'`) after a word: a possessive.
    Possessive,
    /// `,`, `(`, `)`, `;`, `:`, `=`.
    Punct(char),
    /// Any other character.
    Other(char),
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Width in characters (on its line).
    pub width: usize,
    /// True for the first token on its line.
    pub line_start: bool,
}

/// The tokens of one sentence (without its full stop) and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// Tokens, never empty.
    pub tokens: Vec<Token>,
    /// The sentence as written, whitespace runs collapsed to one space.
    pub text: String,
    /// Line of the first token.
    pub line: usize,
    /// Column of the first token.
    pub column: usize,
}

struct Cursor<'a> {
    chars: Vec<(usize, char)>,
    text: &'a str,
    i: usize,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).map(|&(_, c)| normal(c))
    }

    /// The character as written (inside quotes nothing is normalised).
    fn peek_raw(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.i).map_or(self.text.len(), |&(o, _)| o)
    }

    /// Advance one character; returns it as written.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek_raw(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }
}

/// Curly quotes, apostrophes and dashes as ASCII.
fn normal(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{02bc}' => '\'',
        '\u{201c}' | '\u{201d}' => '"',
        '\u{2212}' | '\u{2013}' => '-',
        _ => c,
    }
}

fn is_word_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Split a text into sentences. Lexical problems (an unterminated quote) come back as
/// diagnostics; the sentence holding one is dropped.
pub fn sentences(text: &str) -> (Vec<Sentence>, Vec<Diagnostic>) {
    let mut cur = Cursor {
        chars: text.char_indices().collect(),
        text,
        i: 0,
        line: 1,
        column: 1,
    };
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let mut tokens: Vec<Token> = Vec::new();
    // Byte range of the current sentence, and whether it holds a lexical error.
    let mut first: Option<usize> = None;
    let mut broken = false;
    let mut last_line = 0usize;
    let mut newlines_since_token = 0usize;
    let mut last_end = 0usize;

    let flush = |tokens: &mut Vec<Token>,
                 first: &mut Option<usize>,
                 broken: &mut bool,
                 end: usize,
                 out: &mut Vec<Sentence>| {
        if let Some(start) = first.take() {
            if !tokens.is_empty() && !*broken {
                let raw = text.get(start..end).unwrap_or_default();
                let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
                out.push(Sentence {
                    line: tokens[0].line,
                    column: tokens[0].column,
                    tokens: std::mem::take(tokens),
                    text,
                });
            }
        }
        tokens.clear();
        *broken = false;
    };

    while let Some(c) = cur.peek(0) {
        let (line, column, start) = (cur.line, cur.column, cur.offset());
        if c == '\n' {
            newlines_since_token += 1;
            if newlines_since_token == 2 {
                // A blank line ends a sentence left without a full stop.
                flush(&mut tokens, &mut first, &mut broken, last_end, &mut out);
            }
            cur.bump();
            continue;
        }
        if c.is_whitespace() {
            cur.bump();
            continue;
        }
        if c == '#' {
            while let Some(c) = cur.peek(0) {
                if c == '\n' {
                    break;
                }
                cur.bump();
            }
            continue;
        }
        if c == '.' && !cur.peek(1).is_some_and(|d| d.is_ascii_digit()) {
            cur.bump();
            let end = cur.offset();
            flush(&mut tokens, &mut first, &mut broken, end, &mut out);
            newlines_since_token = 0;
            continue;
        }
        let line_start = line != last_line;
        let tok = if is_word_start(c) {
            let mut w = String::new();
            while let Some(c) = cur.peek(0) {
                let inner_dash = c == '-' && cur.peek(1).is_some_and(is_word_char);
                if !is_word_char(c) && !inner_dash {
                    break;
                }
                w.push(c);
                cur.bump();
            }
            Tok::Word(w)
        } else if c.is_ascii_digit()
            || ((c == '-' || c == '+')
                && cur.peek(1).is_some_and(|d| d.is_ascii_digit())
                && !matches!(tokens.last(), Some(Token { tok: Tok::Word(_) | Tok::Number(_), .. }) if last_end == start))
        {
            number(&mut cur)
        } else if c == '"' {
            cur.bump();
            let mut s = String::new();
            let mut closed = false;
            while let Some(c) = cur.peek_raw(0) {
                if c == '\n' {
                    break;
                }
                cur.bump();
                match c {
                    '"' | '\u{201d}' => {
                        closed = true;
                        break;
                    }
                    '\\' => match cur.bump() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some('u') if cur.peek(0) == Some('{') => {
                            cur.bump();
                            let mut hex = String::new();
                            while let Some(h) = cur.peek(0) {
                                if h == '}' || !h.is_ascii_hexdigit() || hex.len() > 6 {
                                    break;
                                }
                                hex.push(h);
                                cur.bump();
                            }
                            if cur.peek(0) == Some('}') {
                                cur.bump();
                            }
                            let code = u32::from_str_radix(&hex, 16).ok();
                            s.push(code.and_then(char::from_u32).unwrap_or('\u{fffd}'));
                        }
                        Some(other) => s.push(other),
                        None => {}
                    },
                    _ => s.push(c),
                }
            }
            if !closed {
                broken = true;
                diags.push(Diagnostic {
                    line,
                    column,
                    sentence: String::new(),
                    severity: Severity::Error,
                    kind: Kind::UnterminatedQuote,
                });
            }
            Tok::Quoted(s)
        } else if c == '\'' {
            cur.bump();
            let after_name = matches!(
                tokens.last(),
                Some(Token {
                    tok: Tok::Word(_) | Tok::Quoted(_),
                    ..
                })
            ) && last_end == start;
            if after_name
                && matches!(cur.peek(0), Some('s' | 'S'))
                && !cur.peek(1).is_some_and(is_word_char)
            {
                cur.bump();
                Tok::Possessive
            } else if after_name && !cur.peek(0).is_some_and(is_word_char) {
                Tok::Possessive
            } else {
                Tok::Other('\'')
            }
        } else if matches!(c, ',' | '(' | ')' | ';' | ':' | '=') {
            cur.bump();
            Tok::Punct(c)
        } else {
            cur.bump();
            Tok::Other(c)
        };
        if first.is_none() {
            first = Some(start);
        }
        last_line = line;
        newlines_since_token = 0;
        last_end = cur.offset();
        let width = if cur.line == line {
            cur.column - column
        } else {
            1
        };
        tokens.push(Token {
            tok,
            line,
            column,
            width,
            line_start,
        });
        if broken {
            // Drop the sentence holding an unterminated quote; go on after its line.
            flush(&mut tokens, &mut first, &mut broken, last_end, &mut out);
        }
    }
    flush(&mut tokens, &mut first, &mut broken, last_end, &mut out);
    // Give each lexical error the text of its line, for the message.
    for d in &mut diags {
        d.sentence = text
            .lines()
            .nth(d.line.saturating_sub(1))
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    }
    (out, diags)
}

/// A number starting at the cursor (a sign, digits, a fraction, an exponent), or an
/// ordinal (`21st`).
fn number(cur: &mut Cursor<'_>) -> Tok {
    let mut s = String::new();
    if let Some(c @ ('-' | '+')) = cur.peek(0) {
        if c == '-' {
            s.push('-');
        }
        cur.bump();
    }
    let digits = |cur: &mut Cursor<'_>, s: &mut String| {
        while let Some(c) = cur.peek(0) {
            if c.is_ascii_digit() {
                s.push(c);
                cur.bump();
            } else {
                break;
            }
        }
    };
    digits(cur, &mut s);
    let mut plain = !s.starts_with('-');
    if cur.peek(0) == Some('.') && cur.peek(1).is_some_and(|d| d.is_ascii_digit()) {
        plain = false;
        s.push('.');
        cur.bump();
        digits(cur, &mut s);
    }
    if matches!(cur.peek(0), Some('e' | 'E')) {
        let signed = matches!(cur.peek(1), Some('-' | '+'));
        let d = if signed { cur.peek(2) } else { cur.peek(1) };
        if d.is_some_and(|d| d.is_ascii_digit()) {
            plain = false;
            s.push('e');
            cur.bump();
            if signed {
                if cur.peek(0) == Some('-') {
                    s.push('-');
                }
                cur.bump();
            }
            digits(cur, &mut s);
        }
    }
    if plain {
        let a = cur.peek(0).map(|c| c.to_ascii_lowercase());
        let b = cur.peek(1).map(|c| c.to_ascii_lowercase());
        let after = cur.peek(2);
        let suffix = matches!(
            (a, b),
            (Some('s'), Some('t'))
                | (Some('n'), Some('d'))
                | (Some('r'), Some('d'))
                | (Some('t'), Some('h'))
        );
        if suffix && !after.is_some_and(is_word_char) {
            for _ in 0..2 {
                if let Some(c) = cur.bump() {
                    s.push(c);
                }
            }
            return Tok::Ordinal(s);
        }
    }
    Tok::Number(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Vec<Tok>> {
        let (s, d) = sentences(text);
        assert!(d.is_empty(), "{d:?}");
        s.into_iter()
            .map(|s| s.tokens.into_iter().map(|t| t.tok).collect())
            .collect()
    }

    fn w(s: &str) -> Tok {
        Tok::Word(s.into())
    }

    #[test]
    fn sentences_end_at_full_stops_blank_lines_and_the_end() {
        let t = toks("Move to 1.5, -2, 3.\nEnable trajectory\n\nStart's reset");
        assert_eq!(t.len(), 3);
        assert_eq!(
            t[0],
            vec![
                w("Move"),
                w("to"),
                Tok::Number("1.5".into()),
                Tok::Punct(','),
                Tok::Number("-2".into()),
                Tok::Punct(','),
                Tok::Number("3".into())
            ]
        );
        assert_eq!(t[1], vec![w("Enable"), w("trajectory")]);
        assert_eq!(t[2], vec![w("Start"), Tok::Possessive, w("reset")]);
    }

    #[test]
    fn ordinals_quotes_comments_and_curly_forms() {
        let t = toks("the 4th step # note\n\u{201c}my \\\"act\\u{e9}\u{201d}\u{2019}s \u{2212}5 twenty-five 2e3.");
        assert_eq!(
            t[0],
            vec![
                w("the"),
                Tok::Ordinal("4th".into()),
                w("step"),
                Tok::Quoted("my \"act\u{e9}".into()),
                Tok::Possessive,
                Tok::Number("-5".into()),
                w("twenty-five"),
                Tok::Number("2e3".into())
            ]
        );
    }

    #[test]
    fn positions_are_one_based_characters() {
        let (s, _) = sentences("  é b.\n  c");
        assert_eq!((s[0].tokens[1].line, s[0].tokens[1].column), (1, 5));
        assert_eq!((s[1].line, s[1].column), (2, 3));
        assert_eq!(s[0].text, "é b.");
    }

    #[test]
    fn an_unterminated_quote_is_reported_and_its_sentence_dropped() {
        let (s, d) = sentences("Create an action called \"start.\nMove to 1, 2, 3.");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind, Kind::UnterminatedQuote);
        assert_eq!((d[0].line, d[0].column), (1, 25));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].line, 2);
    }
}
