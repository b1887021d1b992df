//! Golden schema texts: what rosbag2 Jazzy stores as the MCAP schema of a nested type
//! (`local_message_definition_source.cpp`: the `.msg` text, then each dependency once,
//! depth-first in sorted order, after a line of 80 `=` and `MSG: pkg/Type`).
//!
//! `golden/geometry_msgs__msg__PoseStamped.ros2msg` is the text `ros2 bag record` writes
//! for PoseStamped on Jazzy (geometry_msgs 5.3, std_msgs 5.3, builtin_interfaces 2.0);
//! the BrainState one adds our own package's nested types. The definitions are read from
//! the install on `AMENT_PREFIX_PATH` (`eval "$(cargo xtask env)"`); without one the
//! test says so and checks nothing.

use std::path::PathBuf;

use arnie_bag::DefinitionSource;

fn golden(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn source() -> Option<DefinitionSource> {
    let src = DefinitionSource::from_env();
    if src.share_dir("geometry_msgs").is_none() {
        eprintln!("no ROS install on AMENT_PREFIX_PATH: golden schema texts not checked");
        return None;
    }
    Some(src)
}

#[test]
fn pose_stamped_schema_is_rosbag2s() {
    let Some(mut src) = source() else { return };
    let def = src.full_text("geometry_msgs/msg/PoseStamped").unwrap();
    assert_eq!(def.encoding, "ros2msg");
    assert_eq!(def.text, golden("geometry_msgs__msg__PoseStamped.ros2msg"));
    assert_eq!(
        src.type_hash("geometry_msgs/msg/PoseStamped").as_deref(),
        Some("RIHS01_10f3786d7d40fd2b54367835614bff85d4ad3b5dab62bf8bca0cc232d73b4cd8")
    );
}

#[test]
fn brain_state_schema_is_rosbag2s() {
    let Some(mut src) = source() else { return };
    if src.share_dir("arnie_interfaces").is_none() {
        eprintln!("arnie_interfaces is not built: BrainState golden not checked");
        return;
    }
    let def = src.full_text("arnie_interfaces/msg/BrainState").unwrap();
    assert_eq!(
        def.text,
        golden("arnie_interfaces__msg__BrainState.ros2msg")
    );
    let sep =
        "\n================================================================================\nMSG: ";
    let order: Vec<&str> = def
        .text
        .split(sep)
        .skip(1)
        .map(|s| s.lines().next().unwrap_or(""))
        .collect();
    assert_eq!(
        order,
        [
            "arnie_interfaces/ActiveAction",
            "arnie_interfaces/BrainEvent",
            "geometry_msgs/Point",
            "arnie_interfaces/Variable",
            "std_msgs/Header",
            "builtin_interfaces/Time"
        ]
    );
}
