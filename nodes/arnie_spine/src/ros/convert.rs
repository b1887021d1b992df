//! Global-frame items \[mm\] ⇄ ROS messages \[m\]. The one place the glue converts units,
//! always through a [`Scale`] (only x, y, z are scaled; extras pass through).

use r2r::arnie_interfaces::msg::{Coordinate, Coordinates};
use r2r::geometry_msgs::msg::{Point, PointStamped};

use crate::{Item, Scale};

/// A `PointStamped` \[m\] from the first item's x y z \[mm\]; `None` if the first item has
/// fewer than three values (or there is none).
pub fn point_msg(global_mm: &[Item], scale: Scale, frame_id: &str) -> Option<PointStamped> {
    let first = global_mm.first()?;
    let [x, y, z] = scale.to_m([*first.first()?, *first.get(1)?, *first.get(2)?]);
    Some(PointStamped {
        header: node_glue::time::header(frame_id),
        point: Point { x, y, z },
    })
}

/// A `Coordinates` \[m\] with every item (x y z scaled, extras unchanged).
pub fn coordinates_msg(global_mm: &[Item], scale: Scale, frame_id: &str) -> Coordinates {
    Coordinates {
        header: node_glue::time::header(frame_id),
        items: global_mm
            .iter()
            .map(|item| Coordinate {
                values: scale.to_m(item.clone()),
            })
            .collect(),
    }
}

/// One item \[mm\] from a `PointStamped` \[m\].
pub fn items_from_point(msg: &PointStamped, scale: Scale) -> Vec<Item> {
    let p = &msg.point;
    vec![scale.from_m([p.x, p.y, p.z]).to_vec()]
}

/// Every item \[mm\] of a `Coordinates` \[m\].
pub fn items_from_coordinates(msg: &Coordinates, scale: Scale) -> Vec<Item> {
    msg.items
        .iter()
        .map(|c| scale.from_m(c.values.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millimetres_to_metres_and_back() {
        let s = Scale::default();
        let p = point_msg(&[vec![-2.0, 1.0, 3.0, 0.9]], s, "world").expect("point");
        assert_eq!(p.header.frame_id, "world");
        assert!((p.point.x + 0.002).abs() < 1e-12 && (p.point.y - 0.001).abs() < 1e-12);
        assert!((p.point.z - 0.003).abs() < 1e-12);
        let back = items_from_point(&p, s);
        assert!((back[0][0] + 2.0).abs() < 1e-9 && back[0].len() == 3);
        assert!(point_msg(&[vec![1.0, 2.0]], s, "world").is_none());
        assert!(point_msg(&[], s, "world").is_none());

        let c = coordinates_msg(&[vec![1000.0, 0.0, -500.0, 0.75], vec![1.0]], s, "world");
        assert_eq!(c.items[0].values, vec![1.0, 0.0, -0.5, 0.75]);
        assert_eq!(c.items[1].values, vec![0.001]);
        let back = items_from_coordinates(&c, s);
        assert_eq!(back[0], vec![1000.0, 0.0, -500.0, 0.75]);
    }
}
