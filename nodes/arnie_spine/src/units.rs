//! [`Scale`]: the one conversion between the wire's millimetres and the topics' metres.
//!
//! The legacy side (UDP packets, the config's thresholds) is in millimetres; ROS topics
//! are in metres (REP 103). The glue converts exactly once, at the topic edge, with one
//! [`Scale`]. Only the first three values of an item (x, y, z) are scaled; extras such as
//! an eyes' confidence are not lengths and pass through unchanged.

use crate::Item;

/// Metres per wire unit. The default (and the only value the original files need) is
/// `0.001`: the wire is in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// Metres per unit of the wire and the config file.
    pub m_per_unit: f64,
}

impl Default for Scale {
    fn default() -> Self {
        Self::MILLIMETRES
    }
}

impl Scale {
    /// The wire is in millimetres.
    pub const MILLIMETRES: Scale = Scale { m_per_unit: 0.001 };

    /// A scale, if `m_per_unit` is finite and positive (the glue's parameter check).
    pub fn new(m_per_unit: f64) -> Option<Self> {
        (m_per_unit.is_finite() && m_per_unit > 0.0).then_some(Self { m_per_unit })
    }

    /// Wire units → metres (first three values of every item).
    pub fn to_m(&self, items: &[Item]) -> Vec<Item> {
        items
            .iter()
            .map(|i| self.scale_xyz(i, self.m_per_unit, false))
            .collect()
    }

    /// Metres → wire units (first three values of every item).
    pub fn from_m(&self, items: &[Item]) -> Vec<Item> {
        items
            .iter()
            .map(|i| self.scale_xyz(i, self.m_per_unit, true))
            .collect()
    }

    /// One point, wire units → metres.
    pub fn point_to_m(&self, p: [f64; 3]) -> [f64; 3] {
        p.map(|v| v * self.m_per_unit)
    }

    /// One point, metres → wire units.
    pub fn point_from_m(&self, p: [f64; 3]) -> [f64; 3] {
        p.map(|v| v / self.m_per_unit)
    }

    fn scale_xyz(&self, item: &[f64], k: f64, divide: bool) -> Item {
        item.iter()
            .enumerate()
            .map(|(j, v)| match (j < 3, divide) {
                (false, _) => *v,
                (true, false) => v * k,
                (true, true) => v / k,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_only_xyz() {
        let s = Scale::default();
        let close = |a: &[f64], b: &[f64]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() < 1e-12 * (1.0 + y.abs()))
        };
        let m = s.to_m(&[vec![1000.0, -250.0, 5.0, 0.75], vec![1.0]]);
        assert!(close(&m[0], &[1.0, -0.25, 0.005, 0.75]) && close(&m[1], &[0.001]));
        let back = s.from_m(&m);
        assert_eq!(back[0][3], 0.75);
        assert!(close(&back[0], &[1000.0, -250.0, 5.0, 0.75]));
        assert!(close(
            &s.point_to_m([2000.0, 0.0, -1.0]),
            &[2.0, 0.0, -0.001]
        ));
        assert!(close(
            &s.point_from_m([2.0, 0.0, -0.001]),
            &[2000.0, 0.0, -1.0]
        ));
        assert!(Scale::new(0.0).is_none() && Scale::new(f64::NAN).is_none());
        assert_eq!(Scale::new(0.001), Some(Scale::MILLIMETRES));
    }
}
