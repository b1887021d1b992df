//! The two legacy UDP formats: bytes ⇄ `Vec<Item>` (pure, no sockets).
//!
//! One message per datagram, no framing. Every message is a list of items, each item a
//! list of numbers.
//! - `csv`: items split by `;`, values by `,` (`1,2,3,4;5,6,7,8` is two items of four).
//!   Whitespace around a value is ignored (so a trailing newline is fine); an empty
//!   value is rejected. Encoding writes each value with Rust's shortest round-trip
//!   `Display` of `f64` (plain decimal, never an exponent), so decoding gives back the
//!   exact same `f64`.
//! - `simulink`: little-endian `f64` values, grouped in threes (`i/3`; fix: the
//!   original crashed on more than three). A trailing group of one or two values is an
//!   item of that length.
//!
//! Bad input is a [`Rejected`] value, never a panic. Non-finite values (NaN, ±inf) are
//! rejected here, so nothing downstream ever sees them.

use std::fmt;
use std::str::FromStr;

use crate::Item;

/// Largest UDP payload over IPv4.
pub const MAX_UDP_PAYLOAD: usize = 65_507;

/// Longest piece of offending text kept in a [`Rejected::NonNumeric`].
const MAX_QUOTED: usize = 32;

/// A wire format of an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `x,y,z;x,y,z` text.
    Csv,
    /// Little-endian f64 values grouped in threes.
    Simulink,
}

impl FromStr for Format {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "csv" => Ok(Format::Csv),
            "simulink" => Ok(Format::Simulink),
            _ => Err(()),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Csv => "csv",
            Format::Simulink => "simulink",
        })
    }
}

/// Limits applied when decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest accepted datagram \[bytes\]; default [`MAX_UDP_PAYLOAD`].
    pub max_datagram: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_datagram: MAX_UDP_PAYLOAD,
        }
    }
}

/// Why a message was rejected. Normal flow, not an error: the caller counts it by
/// [`Rejected::kind`] and logs its `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// No bytes (or only whitespace in csv), or an empty list of items.
    Empty,
    /// Longer than [`Limits::max_datagram`].
    Oversized {
        /// Length received \[bytes\].
        len: usize,
    },
    /// A simulink message whose length is not a multiple of 8.
    NotMultipleOf8 {
        /// Length received \[bytes\].
        len: usize,
    },
    /// A csv value that is not a number (`item`, `value` count from 0).
    NonNumeric {
        /// Item index, from 0.
        item: usize,
        /// Value index within the item, from 0.
        value: usize,
        /// The offending text (cut to 32 characters).
        text: String,
    },
    /// A NaN or infinite value (`item`, `value` count from 0).
    NotFinite {
        /// Item index, from 0.
        item: usize,
        /// Value index within the item, from 0.
        value: usize,
    },
    /// A csv message that is not UTF-8.
    NotUtf8,
}

impl Rejected {
    /// Every kind, in order, as returned by [`Rejected::kind`].
    pub const KINDS: [&'static str; 6] = [
        "empty",
        "oversized",
        "not_multiple_of_8",
        "non_numeric",
        "not_finite",
        "not_utf8",
    ];

    /// A stable short name, used as a counter key.
    pub fn kind(&self) -> &'static str {
        match self {
            Rejected::Empty => "empty",
            Rejected::Oversized { .. } => "oversized",
            Rejected::NotMultipleOf8 { .. } => "not_multiple_of_8",
            Rejected::NonNumeric { .. } => "non_numeric",
            Rejected::NotFinite { .. } => "not_finite",
            Rejected::NotUtf8 => "not_utf8",
        }
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::Empty => f.write_str("empty message"),
            Rejected::Oversized { len } => write!(f, "oversized message ({len} bytes)"),
            Rejected::NotMultipleOf8 { len } => {
                write!(f, "simulink message of {len} bytes is not a multiple of 8")
            }
            Rejected::NonNumeric { item, value, text } => {
                write!(f, "item {item} value {value} {text:?} is not a number")
            }
            Rejected::NotFinite { item, value } => {
                write!(f, "item {item} value {value} is NaN or infinite")
            }
            Rejected::NotUtf8 => f.write_str("csv message is not UTF-8"),
        }
    }
}

/// Decodes one datagram with the default [`Limits`].
///
/// # Errors
/// A [`Rejected`] saying why the datagram is unusable.
pub fn decode(format: Format, bytes: &[u8]) -> Result<Vec<Item>, Rejected> {
    decode_with(format, bytes, Limits::default())
}

/// Decodes one datagram.
///
/// # Errors
/// A [`Rejected`] saying why the datagram is unusable.
pub fn decode_with(format: Format, bytes: &[u8], limits: Limits) -> Result<Vec<Item>, Rejected> {
    if bytes.is_empty() {
        return Err(Rejected::Empty);
    }
    if bytes.len() > limits.max_datagram {
        return Err(Rejected::Oversized { len: bytes.len() });
    }
    match format {
        Format::Csv => decode_csv(bytes),
        Format::Simulink => decode_simulink(bytes),
    }
}

fn decode_csv(bytes: &[u8]) -> Result<Vec<Item>, Rejected> {
    let text = std::str::from_utf8(bytes).map_err(|_| Rejected::NotUtf8)?;
    let text = text.trim();
    if text.is_empty() {
        return Err(Rejected::Empty);
    }
    let mut items = Vec::new();
    for (i, item_text) in text.split(';').enumerate() {
        let mut item = Vec::new();
        for (v, value_text) in item_text.split(',').enumerate() {
            let t = value_text.trim();
            let x: f64 = t.parse().map_err(|_| Rejected::NonNumeric {
                item: i,
                value: v,
                text: t.chars().take(MAX_QUOTED).collect(),
            })?;
            if !x.is_finite() {
                return Err(Rejected::NotFinite { item: i, value: v });
            }
            item.push(x);
        }
        items.push(item);
    }
    Ok(items)
}

fn decode_simulink(bytes: &[u8]) -> Result<Vec<Item>, Rejected> {
    if !bytes.chunks_exact(8).remainder().is_empty() {
        return Err(Rejected::NotMultipleOf8 { len: bytes.len() });
    }
    let n = bytes.len() / 8;
    let mut items = Vec::with_capacity(n.div_ceil(3));
    for (g, group) in bytes.chunks(24).enumerate() {
        let mut item = Vec::with_capacity(3);
        for (v, chunk) in group.chunks_exact(8).enumerate() {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(chunk);
            let x = f64::from_le_bytes(raw);
            if !x.is_finite() {
                return Err(Rejected::NotFinite { item: g, value: v });
            }
            item.push(x);
        }
        items.push(item);
    }
    Ok(items)
}

/// Encodes items. Simulink loses the item boundaries (values are re-grouped in threes on
/// decoding); an empty list encodes to an empty message (which decoding rejects).
pub fn encode(format: Format, items: &[Item]) -> Vec<u8> {
    match format {
        Format::Csv => encode_csv(items).into_bytes(),
        Format::Simulink => items
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect(),
    }
}

/// Encodes items as csv text.
pub fn encode_csv(items: &[Item]) -> String {
    use fmt::Write;
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        for (v, x) in item.iter().enumerate() {
            if v > 0 {
                out.push(',');
            }
            // Writing to a String cannot fail.
            let _ = write!(out, "{x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn le(values: &[f64]) -> Vec<u8> {
        values.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn csv_two_items_of_four() {
        assert_eq!(
            decode(Format::Csv, b"1,2,3,4;5,6,7,8").unwrap(),
            vec![vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0, 7.0, 8.0]]
        );
        assert_eq!(
            decode(Format::Csv, b" 1.5, -2 ,3e2\n").unwrap(),
            vec![vec![1.5, -2.0, 300.0]]
        );
    }

    #[test]
    fn csv_output_is_plain_decimal() {
        assert_eq!(
            encode_csv(&[vec![1.0, -2.5, 0.1], vec![1e21]]),
            "1,-2.5,0.1;1000000000000000000000"
        );
    }

    #[test]
    fn simulink_groups_in_threes_with_tail() {
        let got = decode(
            Format::Simulink,
            &le(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
        )
        .unwrap();
        assert_eq!(
            got,
            vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0], vec![7.0, 8.0]]
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(decode(Format::Csv, b""), Err(Rejected::Empty));
        assert_eq!(decode(Format::Simulink, b""), Err(Rejected::Empty));
        assert_eq!(decode(Format::Csv, b"  \n"), Err(Rejected::Empty));
        assert_eq!(
            decode(Format::Simulink, &le(&[1.0, 2.0])[..13]),
            Err(Rejected::NotMultipleOf8 { len: 13 })
        );
        let big = vec![b'1'; MAX_UDP_PAYLOAD + 1];
        assert_eq!(
            decode(Format::Csv, &big),
            Err(Rejected::Oversized {
                len: MAX_UDP_PAYLOAD + 1
            })
        );
        let small = Limits { max_datagram: 16 };
        assert_eq!(
            decode_with(Format::Simulink, &le(&[1.0, 2.0, 3.0]), small),
            Err(Rejected::Oversized { len: 24 })
        );
        assert_eq!(
            decode(Format::Csv, b"1,2,x;4"),
            Err(Rejected::NonNumeric {
                item: 0,
                value: 2,
                text: "x".into()
            })
        );
        assert!(matches!(
            decode(Format::Csv, b"1,2,3;"),
            Err(Rejected::NonNumeric { item: 1, .. })
        ));
        assert_eq!(
            decode(Format::Csv, b"1,NaN,3"),
            Err(Rejected::NotFinite { item: 0, value: 1 })
        );
        assert_eq!(
            decode(Format::Csv, b"1,2;inf"),
            Err(Rejected::NotFinite { item: 1, value: 0 })
        );
        assert_eq!(
            decode(Format::Csv, b"1e400"),
            Err(Rejected::NotFinite { item: 0, value: 0 })
        );
        assert_eq!(
            decode(Format::Simulink, &le(&[1.0, 2.0, 3.0, f64::NEG_INFINITY])),
            Err(Rejected::NotFinite { item: 1, value: 0 })
        );
        assert_eq!(
            decode(Format::Simulink, &le(&[f64::NAN])),
            Err(Rejected::NotFinite { item: 0, value: 0 })
        );
        assert_eq!(
            decode(Format::Csv, &[0x31, 0xff, 0xfe]),
            Err(Rejected::NotUtf8)
        );
    }

    #[test]
    fn kinds_are_listed() {
        let all = [
            Rejected::Empty,
            Rejected::Oversized { len: 1 },
            Rejected::NotMultipleOf8 { len: 1 },
            Rejected::NonNumeric {
                item: 0,
                value: 0,
                text: String::new(),
            },
            Rejected::NotFinite { item: 0, value: 0 },
            Rejected::NotUtf8,
        ];
        let kinds: Vec<&str> = all.iter().map(Rejected::kind).collect();
        assert_eq!(kinds, Rejected::KINDS);
    }

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |x| x.is_finite()),
            (-1e6..1e6f64),
            Just(1.0),
            Just(-0.0),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn csv_round_trips(items in prop::collection::vec(prop::collection::vec(finite(), 1..6), 1..6)) {
            let bytes = encode(Format::Csv, &items);
            let back = decode(Format::Csv, &bytes).unwrap();
            prop_assert_eq!(back.len(), items.len());
            for (a, b) in back.iter().zip(&items) {
                let a: Vec<u64> = a.iter().map(|x| x.to_bits()).collect();
                let b: Vec<u64> = b.iter().map(|x| x.to_bits()).collect();
                prop_assert_eq!(a, b);
            }
        }

        #[test]
        fn simulink_round_trips(
            triples in prop::collection::vec(prop::collection::vec(finite(), 3), 0..6),
            tail in prop::collection::vec(finite(), 0..3),
        ) {
            let mut items = triples;
            if !tail.is_empty() { items.push(tail); }
            prop_assume!(!items.is_empty());
            let back = decode(Format::Simulink, &encode(Format::Simulink, &items)).unwrap();
            prop_assert_eq!(back, items);
        }

        #[test]
        fn simulink_regroups_any_items(items in prop::collection::vec(prop::collection::vec(finite(), 0..5), 0..5)) {
            let flat: Vec<f64> = items.iter().flatten().copied().collect();
            let bytes = encode(Format::Simulink, &items);
            prop_assert_eq!(bytes.len(), flat.len() * 8);
            match decode(Format::Simulink, &bytes) {
                Ok(back) => {
                    let expect: Vec<Item> = flat.chunks(3).map(<[f64]>::to_vec).collect();
                    prop_assert_eq!(back, expect);
                }
                Err(e) => prop_assert!(flat.is_empty() && e == Rejected::Empty),
            }
        }

        #[test]
        fn decode_never_panics(format in prop_oneof![Just(Format::Csv), Just(Format::Simulink)],
                               bytes in prop::collection::vec(any::<u8>(), 0..80)) {
            if let Ok(items) = decode(format, &bytes) {
                prop_assert!(items.iter().flatten().all(|x| x.is_finite()));
                prop_assert!(!items.is_empty());
            }
        }
    }
}
