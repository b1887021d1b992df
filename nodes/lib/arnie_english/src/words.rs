//! Words: the grammar's keywords, number words and ordinals (both ways), and the edit
//! distance behind "did you mean".

/// Every keyword of the grammar (lower case), including the number words, the ordinals
/// and the default labels. A name equal to one of these (in any case) is written in
/// quotes by `explain`; a word that nearly spells one of these is never corrected to
/// another (see [`crate::parse`]).
pub const KEYWORDS: &[&str] = &[
    "a",
    "action",
    "actions",
    "after",
    "an",
    "and",
    "any",
    "anything",
    "anywhere",
    "are",
    "arm",
    "at",
    "be",
    "called",
    "can",
    "certainty",
    "condition",
    "coordinate",
    "create",
    "decision",
    "decisions",
    "delay",
    "disable",
    "disabled",
    "enable",
    "enabled",
    "equal",
    "evaluate",
    "execute",
    "fail",
    "failure",
    "final",
    "for",
    "found",
    "from",
    "has",
    "have",
    "immediately",
    "in",
    "initial",
    "is",
    "last",
    "minus",
    "move",
    "must",
    "named",
    "negative",
    "next",
    "no",
    "none",
    "object",
    "objects",
    "of",
    "off",
    "on",
    "penultimate",
    "antepenultimate",
    "position",
    "positions",
    "reset",
    "same",
    "seen",
    "should",
    "space",
    "step",
    "steps",
    "success",
    "target",
    "targets",
    "the",
    "there",
    "this",
    "threshold",
    "tick",
    "ticks",
    "timeout",
    "to",
    "tolerance",
    "trajectory",
    "unlimited",
    "verification",
    "with",
    "x",
    "y",
    "you",
    "z",
    "hundred",
    "thousand",
];

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

const TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

const UNIT_ORDINALS: [&str; 20] = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
];

const TENS_ORDINALS: [&str; 10] = [
    "",
    "",
    "twentieth",
    "thirtieth",
    "fortieth",
    "fiftieth",
    "sixtieth",
    "seventieth",
    "eightieth",
    "ninetieth",
];

/// True for a keyword, a number word or an ordinal word (any case, hyphenated compounds
/// included).
pub fn is_reserved(word: &str) -> bool {
    let w = word.to_lowercase();
    KEYWORDS.contains(&w.as_str())
        || w.split('-').all(|p| {
            UNITS.contains(&p)
                || TENS.contains(&p) && !p.is_empty()
                || UNIT_ORDINALS.contains(&p)
                || TENS_ORDINALS.contains(&p) && !p.is_empty()
                || p == "hundredth"
        })
}

fn unit(w: &str) -> Option<u64> {
    UNITS.iter().position(|u| *u == w).map(|i| i as u64)
}

fn tens(w: &str) -> Option<u64> {
    TENS.iter()
        .position(|t| !t.is_empty() && *t == w)
        .map(|i| i as u64 * 10)
}

/// Below one hundred: `seven`, `seventeen`, `forty`, `forty two`.
fn below_hundred(parts: &[String]) -> Option<(u64, usize)> {
    let first = parts.first()?;
    if let Some(u) = unit(first) {
        return Some((u, 1));
    }
    let t = tens(first)?;
    match parts.get(1).and_then(|p| unit(p)) {
        Some(u) if (1..10).contains(&u) => Some((t + u, 2)),
        _ => Some((t, 1)),
    }
}

/// Below one thousand: `three hundred twelve`.
fn below_thousand(parts: &[String]) -> Option<(u64, usize)> {
    let (v, n) = below_hundred(parts)?;
    if (1..10).contains(&v) && n == 1 && parts.get(1).is_some_and(|p| p == "hundred") {
        let v = v * 100;
        return match below_hundred(&parts[2..]) {
            Some((r, m)) if r > 0 => Some((v + r, 2 + m)),
            _ => Some((v, 2)),
        };
    }
    Some((v, n))
}

/// A cardinal number in words at the start of `parts` (lower case, hyphenated words
/// already split): its value and how many parts it used. Up to 999 999.
pub fn number_words(parts: &[String]) -> Option<(u64, usize)> {
    let (v, n) = below_thousand(parts)?;
    if v > 0 && parts.get(n).is_some_and(|p| p == "thousand") {
        let v = v * 1000;
        return match below_thousand(&parts[n + 1..]) {
            Some((r, m)) if r > 0 => Some((v + r, n + 1 + m)),
            _ => Some((v, n + 1)),
        };
    }
    Some((v, n))
}

/// An ordinal in words at the start of `parts`: `first`, `twenty-first` (as `twenty`,
/// `first`), `fortieth`, `hundredth`. Its value (1-based) and the parts used.
pub fn ordinal_words(parts: &[String]) -> Option<(u64, usize)> {
    let first = parts.first()?;
    if let Some(i) = UNIT_ORDINALS.iter().position(|o| o == first) {
        return (i > 0).then_some((i as u64, 1));
    }
    if let Some(i) = TENS_ORDINALS
        .iter()
        .position(|o| !o.is_empty() && o == first)
    {
        return Some((i as u64 * 10, 1));
    }
    if first == "hundredth" {
        return Some((100, 1));
    }
    let t = tens(first)?;
    let i = UNIT_ORDINALS
        .iter()
        .position(|o| parts.get(1).is_some_and(|p| p == o))?;
    (1..10).contains(&i).then_some((t + i as u64, 2))
}

/// A count in words for `explain`: `one` … `twelve`, digits above.
pub fn count_word(n: usize) -> String {
    match UNITS.get(n) {
        Some(w) if n <= 12 => (*w).to_owned(),
        _ => n.to_string(),
    }
}

/// An ordinal for `explain` (1-based): words up to 99 (`twenty-first`), then `123rd`.
pub fn ordinal_word(n: usize) -> String {
    if let Some(w) = UNIT_ORDINALS.get(n).filter(|_| n > 0) {
        return (*w).to_owned();
    }
    if (20..100).contains(&n) {
        return if n.is_multiple_of(10) {
            TENS_ORDINALS[n / 10].to_owned()
        } else {
            format!("{}-{}", TENS[n / 10], UNIT_ORDINALS[n % 10])
        };
    }
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), on
/// characters, case-insensitive.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `found`, if close enough to be a likely typo: at most a third
/// of its length away (at least 1, at most 3 edits). Ties go to the first candidate.
pub fn suggest<'a>(found: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let len = found.chars().count();
    if len > 64 {
        return None;
    }
    let limit = (len / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c.chars().count() > 64 {
            continue;
        }
        let d = distance(found, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<String> {
        s.split([' ', '-']).map(str::to_owned).collect()
    }

    #[test]
    fn number_words_read_as_written() {
        for (text, v, n) in [
            ("zero", 0, 1),
            ("four steps", 4, 1),
            ("twenty-five", 25, 2),
            ("twenty five", 25, 2),
            ("forty", 40, 1),
            ("three hundred twelve", 312, 3),
            ("two thousand five hundred", 2500, 4),
            ("nineteen", 19, 1),
        ] {
            assert_eq!(number_words(&parts(text)), Some((v, n)), "{text}");
        }
        assert_eq!(number_words(&parts("first")), None);
    }

    #[test]
    fn ordinals_both_ways() {
        for n in 1..=150 {
            let w = ordinal_word(n);
            if n < 100 {
                assert_eq!(
                    ordinal_words(&parts(&w)),
                    Some((n as u64, w.split('-').count())),
                    "{w}"
                );
            } else {
                assert!(
                    w.ends_with("th")
                        || w.ends_with("st")
                        || w.ends_with("nd")
                        || w.ends_with("rd")
                );
            }
        }
        assert_eq!(ordinal_word(111), "111th");
        assert_eq!(ordinal_word(122), "122nd");
        assert_eq!(ordinal_words(&parts("zeroth")), None);
    }

    #[test]
    fn distance_counts_transpositions_once() {
        assert_eq!(distance("posision", "position"), 1);
        assert_eq!(distance("trajectroy", "trajectory"), 1);
        assert_eq!(distance("lightSelff", "lightSelf"), 1);
        assert_eq!(distance("Start", "start"), 0);
        assert_eq!(
            suggest("lightSelff", ["start", "lightSelf", "lightOther"]),
            Some("lightSelf".into())
        );
        assert_eq!(suggest("zzz", ["start"]), None);
    }

    #[test]
    fn reserved_words() {
        assert!(is_reserved("The"));
        assert!(is_reserved("twenty-first"));
        assert!(is_reserved("penultimate"));
        assert!(!is_reserved("start"));
        assert!(!is_reserved("lightSelf"));
    }
}
