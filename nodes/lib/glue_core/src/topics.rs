//! Names of the topics, services and actions shared between nodes (README "Nodes").
//! Node-private names (e.g. a node's own `~/...` outputs) stay in that node's crate.

/// Measured arm position, `geometry_msgs/PointStamped`, `world`, metres (spine → all).
pub const ARM_POSITION: &str = "arm/position";
/// Arm set-points, `geometry_msgs/PointStamped`, `world`, metres (trajectory → spine).
pub const ARM_COMMAND: &str = "arm/command";
/// Legacy target topic of the trajectory server, `geometry_msgs/PointStamped`, metres.
pub const ARM_TARGET: &str = "arm/target";
/// Everything the eyes see, `arnie_interfaces/Coordinates`, `world`, metres.
pub const EYES_OBSERVATIONS: &str = "eyes/observations";
/// `diagnostic_msgs/DiagnosticArray` from every node.
pub const DIAGNOSTICS: &str = "/diagnostics";
/// `arnie_interfaces/action/MoveTo`, served by the trajectory server.
pub const MOVE_TO: &str = "trajectory/move_to";
/// `nav_msgs/Path`, the path the trajectory server is running.
pub const TRAJECTORY_PLAN: &str = "trajectory/plan";
/// `arnie_interfaces/action/RunTask`, served by the brain.
pub const RUN_TASK: &str = "brain/run_task";
/// `arnie_interfaces/BrainState`.
pub const BRAIN_STATE: &str = "brain/state";
/// `arnie_interfaces/srv/PlanPath`, served by the planner.
pub const PLAN_PATH: &str = "planner/plan_path";
/// `nav_msgs/Path`, the planner's last path.
pub const PLANNER_PATH: &str = "planner/path";
/// `nav_msgs/OccupancyGrid` the planner plans on.
pub const MAP: &str = "map";
/// `arnie_interfaces/Packet` decoded from the comms link.
pub const COMMS_RX: &str = "comms/rx";
/// `arnie_interfaces/Packet` to send on the comms link.
pub const COMMS_TX: &str = "comms/tx";
/// `arnie_interfaces/srv/SendPacket`.
pub const COMMS_SEND: &str = "comms/send";
/// `arnie_interfaces/action/RunStrategy`.
pub const STRATEGY_RUN: &str = "strategy/run";
/// `arnie_interfaces/StrategyEvent`.
pub const STRATEGY_EVENTS: &str = "strategy/events";
/// `arnie_interfaces/action/NavigateTo`, served by the base (strategy, bench → base).
pub const NAVIGATE_TO: &str = "base/navigate_to";
/// `geometry_msgs/PoseStamped`, the base's pose, map frame, reliable (base → strategy).
pub const BASE_POSE: &str = "base/pose";
/// `arnie_interfaces/srv/UpdateMap`, served by the planner (base, bench → planner).
pub const UPDATE_MAP: &str = "planner/update_map";
/// `sensor_msgs/LaserScan`, one per LiDAR revolution, frame `laser` (lidar → base).
pub const SCAN: &str = "scan";
/// `arnie_interfaces/MatchState`, the Eurobot match's phase and clock, latched
/// (strategy → base, viewers).
pub const MATCH_STATE: &str = "match/state";
/// The frame of every topic above (REP 103).
pub const WORLD_FRAME: &str = "world";
/// `arnie_interfaces/SimTruth`, the simulator's ground truth.
pub const SIM_TRUTH: &str = "sim/truth";
/// `visualization_msgs/MarkerArray`, the simulator's scene for rviz (latched).
pub const SIM_MARKERS: &str = "sim/markers";
/// `visualization_msgs/MarkerArray`, what the brain sees and wants (latched).
pub const BRAIN_MARKERS: &str = "brain/markers";

/// The absolute name of `name` as rcl resolves it in `namespace` (no remapping): an
/// absolute name stays, a relative one goes under the namespace (`/` or empty = root).
/// Used where two spellings of one topic must compare equal (`comms/rx` = `/comms/rx`).
pub fn resolve(namespace: &str, name: &str) -> String {
    if name.starts_with('/') {
        return name.to_string();
    }
    let ns = namespace.trim_end_matches('/');
    if ns.is_empty() {
        format!("/{name}")
    } else if ns.starts_with('/') {
        format!("{ns}/{name}")
    } else {
        format!("/{ns}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn names_resolve_like_rcl() {
        assert_eq!(resolve("", "comms/rx"), "/comms/rx");
        assert_eq!(resolve("/", "comms/rx"), "/comms/rx");
        assert_eq!(resolve("/left", "comms/rx"), "/left/comms/rx");
        assert_eq!(resolve("/left/", "comms/rx"), "/left/comms/rx");
        assert_eq!(resolve("/left", "/comms/rx"), "/comms/rx");
    }
}
