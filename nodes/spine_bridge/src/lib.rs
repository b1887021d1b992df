//! Bridges the xPC Target UDP controllers (arm, eyes) to typed ROS 2 topics, compatible with the original Spine config.
