//! `sim`: the simulated xPC Targets of the ARNIE arm (arm with encoders, eyes seeing
//! flames) speaking UDP like the real hardware (see README.md). The glue lives in
//! [`arnie_sim::ros`].

fn main() {
    arnie_sim::ros::run()
}
