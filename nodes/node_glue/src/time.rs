//! Stamps. Nodes use wall-clock ROS time (no `/clock` simulation in this project).
use r2r::builtin_interfaces::msg::Time;
use r2r::std_msgs::msg::Header;
use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as a `builtin_interfaces/Time`.
pub fn now() -> Time {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Time { sec: d.as_secs() as i32, nanosec: d.subsec_nanos() }
}

/// A header stamped now in `frame_id`.
pub fn header(frame_id: &str) -> Header {
    Header { stamp: now(), frame_id: frame_id.to_string() }
}

/// Seconds since the epoch of a stamp.
pub fn seconds(t: &Time) -> f64 {
    t.sec as f64 + t.nanosec as f64 * 1e-9
}
