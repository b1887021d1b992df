//! `comms_sim`: the simulated device at the other end of a comms link, for tests and
//! the demo (no ROS). Everything is in [`arnie_comms::sim`] (usage there and in README.md).
fn main() -> std::process::ExitCode {
    arnie_comms::sim::main()
}
