//! [`Scale`]: the one conversion between the wire's millimetres and the topics' metres,
//! shared with every node (`arnie_constants::units`).
//!
//! The legacy side (UDP packets, the config's thresholds) is in millimetres; ROS topics
//! are in metres (REP 103). The glue converts exactly once, at the topic edge, with one
//! [`Scale`]: `scale.to_m(item)`, `scale.from_m(item)`. Only the first three values of an
//! item (x, y, z) are scaled; extras such as an eyes' confidence are not lengths and pass
//! through unchanged.

pub use arnie_constants::units::Scale;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_only_xyz_of_every_item() {
        let s = Scale::default();
        let m: Vec<Vec<f64>> = [vec![1000.0, -250.0, 5.0, 0.75], vec![1.0]]
            .into_iter()
            .map(|i| s.to_m(i))
            .collect();
        assert_eq!(m, vec![vec![1.0, -0.25, 0.005, 0.75], vec![0.001]]);
        assert_eq!(s.from_m(m[0].clone()), vec![1000.0, -250.0, 5.0, 0.75]);
    }
}
