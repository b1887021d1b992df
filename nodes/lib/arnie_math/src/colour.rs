//! [`Colour`]: the Eurobot team colour, and the one mirror that turns one side's
//! description into the other's.
//!
//! Every description (the table scenario, the planner's map, the strategy file) is
//! written once, for **blue**; **yellow** plays the same match mirrored about the table's
//! middle across its length: `x → width − x`, a heading `θ → π − θ` (y and everything
//! in the robot's own frame unchanged). So both colours score the same points against the
//! same opponent behaviour mirrored, and there is no second hand-written copy to drift.
use std::fmt;

use crate::wrap_angle;

/// The team colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Colour {
    /// The side the descriptions are written for (as is).
    #[default]
    Blue,
    /// The mirrored side.
    Yellow,
}

/// A colour name that is neither `blue` nor `yellow`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownColour(pub String);

impl std::error::Error for UnknownColour {}

impl fmt::Display for UnknownColour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "colour {:?} is neither \"blue\" nor \"yellow\"", self.0)
    }
}

impl Colour {
    /// Both, blue first.
    pub const ALL: [Colour; 2] = [Colour::Blue, Colour::Yellow];
    /// Their names, as parameters and launch arguments take them.
    pub const NAMES: [&'static str; 2] = ["blue", "yellow"];

    /// From `blue` / `yellow` (exactly; a launch argument or parameter value).
    ///
    /// # Errors
    /// Any other text.
    pub fn parse(name: &str) -> Result<Colour, UnknownColour> {
        match name {
            "blue" => Ok(Colour::Blue),
            "yellow" => Ok(Colour::Yellow),
            other => Err(UnknownColour(other.to_string())),
        }
    }

    /// `blue` / `yellow`.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Blue => "blue",
            Colour::Yellow => "yellow",
        }
    }

    /// The wire code (the `MatchReady` packet): blue 0, yellow 1.
    pub fn code(self) -> u8 {
        match self {
            Colour::Blue => 0,
            Colour::Yellow => 1,
        }
    }

    /// Whether this side is the mirror of the description.
    pub fn mirrored(self) -> bool {
        self == Colour::Yellow
    }

    /// A world x on this side [m]: `width − x` for yellow, as is for blue.
    pub fn x(self, x: f64, width_m: f64) -> f64 {
        if self.mirrored() {
            width_m - x
        } else {
            x
        }
    }

    /// A world heading on this side [rad]: `π − θ` (wrapped) for yellow, as is for blue.
    pub fn heading(self, theta: f64) -> f64 {
        if self.mirrored() {
            wrap_angle(std::f64::consts::PI - theta)
        } else {
            theta
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    #[test]
    fn names_round_trip_and_others_are_refused() {
        for c in Colour::ALL {
            assert_eq!(Colour::parse(c.name()), Ok(c));
        }
        for bad in ["", "Blue", "green", "yellow ", "bleu"] {
            let e = Colour::parse(bad).unwrap_err();
            assert!(e.to_string().contains("neither"), "{e}");
        }
    }

    #[test]
    fn yellow_mirrors_about_the_middle_and_twice_is_nothing() {
        let y = Colour::Yellow;
        assert_eq!(y.x(0.3, 3.0), 2.7);
        assert_eq!(y.x(1.5, 3.0), 1.5);
        assert!((y.x(y.x(0.42, 3.0), 3.0) - 0.42).abs() < 1e-12);
        assert!(
            (y.heading(0.0) - PI).abs() < 1e-12,
            "facing +x becomes facing -x"
        );
        assert!(
            (y.heading(FRAC_PI_2) - FRAC_PI_2).abs() < 1e-12,
            "facing +y stays"
        );
        assert!((y.heading(y.heading(0.7)) - 0.7).abs() < 1e-12);
        assert_eq!(Colour::Blue.x(0.3, 3.0), 0.3);
        assert_eq!(Colour::Blue.heading(0.7), 0.7);
    }
}
