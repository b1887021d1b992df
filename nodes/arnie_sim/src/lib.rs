//! Simulated xPC Targets (arm with encoders, eyes seeing flames) speaking UDP like the
//! real hardware, so the flame-passing task (ARCHITECTURE.md §5) can really succeed or
//! fail. This library is the logic, without ROS (no sockets, no clock: time comes in
//! as `dt`); its `ros` module (feature `ros`) binds the sockets, runs [`World::step`] at
//! a fixed step and publishes the ground truth, and the `sim` binary only calls
//! `ros::run`.
//!
//! # Layout
//! - [`scenario`]: our scenario JSON (arm start, limits, rates, obstacles, flames,
//!   lighting radius and hold time, loss, jitter, seed): raw → checked [`Scenario`].
//! - [`arm`]: [`SimArm`], bounded speed and acceleration (vector norms) toward the last
//!   target; box obstacles stop it on their face.
//! - [`eyes`]: [`Eyes`], which flames are lit and where: source, taper (on the arm),
//!   candle.
//! - [`Rng`] (`arnie_math`'s, shared with `board_sim`): the seeded loss and jitter.
//! - [`wiring`]: [`Wiring`], the addresses, formats and transforms taken from the
//!   spine's own config (the sim is its mirror image).
//! - [`world`]: [`World`], all of the above plus the lossy arm link; datagrams in,
//!   datagrams and events out, and the ground truth ([`world::Truth`]).
//! - [`markers`]: [`markers::SceneMarkers`], the scene as rviz markers (plain values).
//! - [`settings`]: the node's numeric parameters, their ranges and checks
//!   ([`settings::RawSettings`] → [`settings::Settings`]), and the physics' fixed-step
//!   clock ([`settings::CatchUp`]).
//! - [`truth_log`]: [`truth_log::TruthLog`], the JSON Lines ground-truth log written by
//!   a thread of its own through a bounded queue (dropped lines counted).
//! - `ros` (feature `ros`): the node's ROS 2 glue (parameters, UDP tasks, `sim/truth`,
//!   `sim/markers`, `/diagnostics`).
//!
//! # Frames and units
//! Millimetres throughout. The models live in the global frame; the wire is in each
//! device's frame: targets arrive as `T⁻¹ · p_global` (the spine's output transform)
//! and are mapped back with `T`; encoder positions and observations leave as
//! `T⁻¹ · p_global` with the spine's input transforms, so the spine's `p = T · p_device`
//! recovers the truth. The codecs and transforms are `spine_bridge`'s own.
//!
//! # Errors
//! [`SimError`]: a scenario or spine config the sim cannot run with, naming the field.
//! A bad arm datagram is normal flow: a counted [`world::TargetRejected`].
//!
//! # Example
//! ```
//! use arnie_sim::{Scenario, Wiring, World, wiring::InterfaceNames};
//! use arnie_xpc::{wire, Config, Format};
//!
//! let config = Config::load(
//!     concat!(env!("CARGO_MANIFEST_DIR"), "/../../params/spine_sim.json").as_ref(), None)?;
//! let wiring = Wiring::from_config(&config, &InterfaceNames::default())?;
//! let mut world = World::new(Scenario::default(), &wiring);
//! // The spine sends the global target (0, 40, 0) in the arm's frame: (40, 0, 0).
//! world.on_arm_datagram(&wire::encode(Format::Simulink, &[vec![40.0, 0.0, 0.0]]))?;
//! for _ in 0..400 {
//!     for datagram in world.step(0.005).datagrams {
//!         // socket.send_to(&datagram.bytes, address of datagram.dest)
//!     }
//! }
//! assert_eq!(world.truth().arm_mm, [0.0, 40.0, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod arm;
mod error;
pub mod eyes;
pub mod markers;
#[cfg(feature = "ros")]
pub mod ros;
pub mod scenario;
pub mod settings;
pub mod truth_log;
pub mod wiring;
pub mod world;

pub use arm::{Obstacle, SimArm, Vec3};
pub use arnie_math::Rng;
pub use error::SimError;
pub use eyes::{Eyes, Flame};
pub use scenario::Scenario;
pub use wiring::Wiring;
pub use world::{Datagram, Dest, Event, Truth, World};
