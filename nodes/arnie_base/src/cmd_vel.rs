//! `cmd_vel` the Jazzy way, without ROS: which message type the base takes and what it
//! tells a user whose publisher sends the other one.
//!
//! Jazzy's teleop nodes and Nav2's controllers publish plain `geometry_msgs/Twist` by
//! default (`teleop_twist_keyboard` sends `TwistStamped` only with `stamped:=true`, Nav2's
//! `enable_stamped_cmd_vel` is false until Kilted), so plain `Twist` is the default;
//! `cmd_vel_stamped: true` (parameter and launch argument) takes `TwistStamped`. DDS never
//! matches a publisher and a subscription of different types: nothing arrives and nothing
//! says so, so the glue watches the publishers of `cmd_vel` on the graph and logs each one
//! of the other type once with [`hint`] (and counts it).

/// `geometry_msgs/msg/Twist`.
pub const TWIST: &str = "geometry_msgs/msg/Twist";
/// `geometry_msgs/msg/TwistStamped`.
pub const TWIST_STAMPED: &str = "geometry_msgs/msg/TwistStamped";

/// The type the base subscribes with `cmd_vel_stamped`.
pub fn expected_type(stamped: bool) -> &'static str {
    if stamped {
        TWIST_STAMPED
    } else {
        TWIST
    }
}

/// What to change when a publisher sends the other type (the end of the warning line).
pub fn hint(stamped: bool) -> String {
    let (other, want) = (expected_type(!stamped), !stamped);
    format!(
        "to drive the base with {other}, start it with the parameter cmd_vel_stamped:={want} (launch argument cmd_vel_stamped:={want}), or publish {}",
        expected_type(stamped)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_the_parameter_and_the_value_to_set() {
        assert_eq!(expected_type(false), TWIST);
        assert_eq!(hint(false), "to drive the base with geometry_msgs/msg/TwistStamped, start it with the parameter cmd_vel_stamped:=true (launch argument cmd_vel_stamped:=true), or publish geometry_msgs/msg/Twist");
        assert!(hint(true).contains("cmd_vel_stamped:=false"));
    }
}
