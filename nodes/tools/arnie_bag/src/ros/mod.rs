//! The ROS 2 side of `arnie_bag record` and `arnie_bag play` (feature `ros`): the only
//! module that uses r2r. The binary calls [`record`] or [`play`] with the checked
//! command line and exits with the code they return.
//!
//! - `record` ([`record::run`]): polls the graph for topics the [`crate::TopicFilter`]
//!   takes, subscribes each raw (r2r `subscribe_raw`) with rosbag2's QoS choice
//!   ([`crate::Qos::adapt_request_to_offers`]) and stores the offered profiles; the spin
//!   thread drains every subscription after each `spin_once` (so r2r's own 10-deep
//!   channel never fills and drops) and hands messages to a writer thread (file I/O
//!   off the spin thread) over a bounded channel whose drops are counted as lost.
//! - `play` ([`play::run`]): one untyped publisher per played topic with the recorded
//!   QoS ([`crate::player::play_topics`]), timing from [`crate::Player`] over a monotonic
//!   clock, keys from a terminal, `/clock`.
//! - `services`: the player's services (rosbag2's `~/pause`, `~/seek` ...).
//! - `term`: raw mode for the keyboard (restored at exit), SIGINT/SIGTERM.
//! - `convert`: QoS profiles between r2r and the library.

mod convert;
mod play;
mod record;
mod requests;
mod services;
mod term;

pub use play::run as play;
pub use record::run as record;

/// The recorder's node name (rosbag2's, so scripts find its services and topics).
pub const RECORDER_NODE: &str = "rosbag2_recorder";
/// The player's node name (rosbag2's: `/rosbag2_player/pause` ...).
pub const PLAYER_NODE: &str = "rosbag2_player";

/// The node of `record` or `play`: named `--node-name` (else `default_name`), its logger
/// at `--log-level`, on `/clock` time with `sim_time`. `None` when it cannot start (the reason is printed).
fn start(
    node: &crate::cli::NodeArgs,
    default_name: &str,
    sim_time: bool,
) -> Option<node_glue::App> {
    let name = node.name.as_deref().unwrap_or(default_name);
    let app = match node_glue::App::with_sim_time(name, sim_time) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arnie_bag: cannot start: {e}");
            return None;
        }
    };
    // The values are clap's possible values: always a level.
    if let Some(level) = node_glue::log::Level::from_name(&node.log_level) {
        if let Err(e) = node_glue::log::set_level(level) {
            eprintln!("arnie_bag: --log-level: {e}");
        }
    }
    Some(app)
}
