//! Colours as `#rrggbb` and a palette that prints and reads well.

use std::fmt;

/// An sRGB colour; `Display` writes `#rrggbb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Colour(pub u8, pub u8, pub u8);

impl Colour {
    /// Black, text and outlines.
    pub const BLACK: Colour = Colour(0, 0, 0);
    /// White, backgrounds.
    pub const WHITE: Colour = Colour(255, 255, 255);
    /// Mid grey, the colour of a line without one.
    pub const GREY: Colour = Colour(127, 127, 127);
    /// Light grey, the default fill of an area.
    pub const LIGHT_GREY: Colour = Colour(210, 210, 210);
    /// Blue (tab10's first).
    pub const BLUE: Colour = Colour(31, 119, 180);
    /// Orange (tab10's second).
    pub const ORANGE: Colour = Colour(255, 127, 14);
    /// Green (tab10's third).
    pub const GREEN: Colour = Colour(44, 160, 44);
    /// Red (tab10's fourth).
    pub const RED: Colour = Colour(214, 39, 40);
    /// Purple (tab10's fifth).
    pub const PURPLE: Colour = Colour(148, 103, 189);
    /// Brown (tab10's sixth).
    pub const BROWN: Colour = Colour(140, 86, 75);

    /// The i-th colour of [`PALETTE`] (wraps around).
    pub fn palette(i: usize) -> Colour {
        PALETTE[i % PALETTE.len()]
    }

    /// The i-th colour of [`PASTELS`] (wraps around): backgrounds such as shaded spans.
    pub fn pastel(i: usize) -> Colour {
        PASTELS[i % PASTELS.len()]
    }

    /// Parses `#rrggbb` or `rrggbb`; `None` otherwise.
    pub fn hex(s: &str) -> Option<Colour> {
        let h = s.strip_prefix('#').unwrap_or(s);
        if h.len() != 6 || !h.is_ascii() {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
        Some(Colour(byte(0)?, byte(2)?, byte(4)?))
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Colours from `0xrrggbb` numbers (the palettes are written as matplotlib writes them).
const fn from_hex<const N: usize>(rgb: [u32; N]) -> [Colour; N] {
    let mut out = [Colour::BLACK; N];
    let mut i = 0;
    while i < N {
        let v = rgb[i];
        out[i] = Colour((v >> 16) as u8, (v >> 8) as u8, v as u8);
        i += 1;
    }
    out
}

/// Ten distinct line colours (matplotlib's "tab10").
pub const PALETTE: [Colour; 10] = from_hex([
    0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22,
    0x17becf,
]);

/// Light background colours (for spans and areas under text).
pub const PASTELS: [Colour; 8] = from_hex([
    0xaec7e8, 0xffbb78, 0x98df8a, 0xff9896, 0xc5b0d5, 0xc49c94, 0xf7b6d2, 0xdbdb8d,
]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(Colour::hex("#1f77b4"), Some(Colour::BLUE));
        assert_eq!(Colour::hex("d62728"), Some(Colour::RED));
        assert_eq!(Colour::BLUE.to_string(), "#1f77b4");
        assert_eq!(Colour::hex("#12345"), None);
        assert_eq!(Colour::hex("#gg0000"), None);
        assert_eq!(Colour::hex("#ééé"), None);
        assert_eq!(Colour::palette(10), Colour::palette(0));
    }
}
