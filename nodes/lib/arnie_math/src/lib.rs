//! Small maths shared by the libraries, with no ROS and no dependencies, so that each
//! fact is written once:
//!
//! - [`Pose2`] and [`wrap_angle`]: a planar pose in metres and radians (REP 103), used by
//!   the Eurobot base (`arnie_base`) and the table and its simulated board
//!   (`arnie_table`);
//! - [`Rng`]: the seeded noise generator of the simulators (`arnie_sim`, `board_sim`), the
//!   same stream from the same seed on every run;
//! - [`Colour`]: the Eurobot team colour and its mirror (`x → width − x`, `θ → π − θ`),
//!   the one place the yellow side is made from the blue description (table, map,
//!   strategy).

#![deny(missing_docs)]

pub mod colour;
pub mod pose;
pub mod rng;

pub use colour::{Colour, UnknownColour};
pub use pose::{wrap_angle, Pose2};
pub use rng::Rng;
