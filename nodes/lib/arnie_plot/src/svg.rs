//! Low-level SVG text: escaping, numbers, text width estimate. Internal.

use std::fmt::{self, Write};

/// The font stack of every text: DejaVu Sans where it is installed (the PNG renderer loads
/// it), the usual sans-serif fonts of a viewer otherwise.
pub const FONT_FAMILY: &str = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif";

/// Escapes text for XML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate for an attribute: two decimals, no "-0.00".
pub fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// An estimate of the width of `text` at `size` px in DejaVu Sans (its average advance is
/// ~0.6 em): enough to lay out legends and decide whether a label fits.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// A `<line>` from `a` to `b` (pixels), `stroke` of `width` px, then `extra` attributes
/// as written (e.g. a dash), on a line of its own.
pub fn line(
    out: &mut String,
    a: (f64, f64),
    b: (f64, f64),
    stroke: impl fmt::Display,
    width: f64,
    extra: &str,
) {
    let _ = writeln!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="{}"{extra}/>"#,
        num(a.0),
        num(a.1),
        num(b.0),
        num(b.1),
        num(width)
    );
}

/// `points="x,y x,y ..."` of pixel points.
pub fn points(px: &[(f64, f64)]) -> String {
    let mut s = String::new();
    for (i, (x, y)) in px.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{},{}", num(*x), num(*y));
    }
    s
}

/// Where a text is anchored horizontally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point (left-aligned).
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point (right-aligned).
    End,
}

impl Anchor {
    /// The SVG `text-anchor` value.
    pub fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// How a [`text`] element looks: font size in px, anchor, fill colour (`#rrggbb`) and
/// whether it has a white halo (readable over lines and shading).
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    /// Font size [px].
    pub size: f64,
    /// Horizontal alignment.
    pub anchor: Anchor,
    /// Fill colour, `#rrggbb`.
    pub colour: &'a str,
    /// A white halo behind the glyphs.
    pub halo: bool,
}

impl<'a> Style<'a> {
    /// Text without a halo.
    pub fn plain(size: f64, anchor: Anchor, colour: &'a str) -> Self {
        Style {
            size,
            anchor,
            colour,
            halo: false,
        }
    }

    /// Text with a white halo.
    pub fn halo(size: f64, anchor: Anchor, colour: &'a str) -> Self {
        Style {
            size,
            anchor,
            colour,
            halo: true,
        }
    }
}

/// A `<text>` element at pixel position (`x`, `y`) drawn in `style`; `body` is escaped.
pub fn text(out: &mut String, x: f64, y: f64, style: Style<'_>, body: &str) {
    let halo = if style.halo {
        r##" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke""##
    } else {
        ""
    };
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{halo}>{}</text>"#,
        num(x),
        num(y),
        num(style.size),
        style.anchor.attr(),
        style.colour,
        esc(body)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            esc(r#"a<b & "c" 'd'>"#),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(esc("x\u{1}y"), "x y");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.256), "1.26");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(120.5), "120.5");
    }
}
