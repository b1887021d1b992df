//! The arm as a Cartesian stage: from a measured tool position to the joints' positions
//! and every link's transform ([`RobotState`]).
//!
//! The controller reports where the tool is, not its joints. The chain from the URDF's
//! root link to the tool link must hold exactly three prismatic joints (the others
//! fixed) with independent axes; then the tool's origin is affine in the joint
//! positions, `tool(q) = c + A·q` (`c` the tool at `q = 0`, column `i` of `A` joint `i`'s
//! axis in the root frame), and `q = A⁻¹·(p − c)` is exact, whatever the origins and
//! axes of the file. A position arrives in some frame: the root link's itself, or the
//! parent of the root in the static tree (the spine's `world` → `arm`, learnt from
//! `/tf_static` with [`RobotState::set_mount`]).

use nalgebra::{Isometry3, Matrix3, Point3, Vector3};

use crate::urdf::{JointKind, Urdf};

/// One transform, parent → child (tf2: the child frame's pose in the parent frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The parent frame.
    pub parent: String,
    /// The child frame.
    pub child: String,
    /// The child's origin in the parent frame \[m\].
    pub translation: [f64; 3],
    /// The child's orientation in the parent frame, unit quaternion `[x, y, z, w]`.
    pub rotation: [f64; 4],
}

impl Frame {
    /// `iso` as a transform from `parent` to `child`.
    pub fn new(parent: &str, child: &str, iso: &Isometry3<f64>) -> Frame {
        let t = iso.translation.vector;
        let q = iso.rotation.coords; // x, y, z, w
        Frame {
            parent: parent.to_string(),
            child: child.to_string(),
            translation: [t.x, t.y, t.z],
            rotation: [q.x, q.y, q.z, q.w],
        }
    }
}

/// Why the URDF cannot serve as the arm's stage.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StageError {
    /// The tool link is not one of the URDF's links.
    #[error("tool link '{0}' is not a link of the URDF")]
    NoToolLink(String),
    /// A joint on the way to the tool neither slides nor is fixed.
    #[error(
        "joint '{joint}' on the way to the tool is neither prismatic nor fixed (the controller exposes a Cartesian stage)"
    )]
    NotPrismatic {
        /// The joint.
        joint: String,
    },
    /// Not three prismatic joints on the way to the tool.
    #[error(
        "the way to the tool has {} prismatic joint(s) ({}), not three",
        .found.len(),
        .found.join(", ")
    )]
    NotThreeAxes {
        /// The prismatic joints found.
        found: Vec<String>,
    },
    /// The three axes do not span space (two are parallel, or all in one plane).
    #[error("the three prismatic axes do not span space")]
    DependentAxes,
}

/// Why a position was not turned into a state.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Rejected {
    /// A coordinate is NaN or infinite.
    #[error("a coordinate is not finite")]
    NotFinite,
    /// The position's frame is neither the root link nor its parent in the static tree
    /// (not known yet, or another frame).
    #[error("frame '{frame}' is neither the root link nor (yet) its parent on /tf_static")]
    UnknownFrame {
        /// The position's frame.
        frame: String,
    },
}

/// Every fixed joint's transform of `urdf`, parent link → child link.
pub fn fixed_frames(urdf: &Urdf) -> Vec<Frame> {
    urdf.joints
        .iter()
        .filter(|j| j.kind == JointKind::Fixed)
        .map(|j| Frame::new(&j.parent, &j.child, &j.origin))
        .collect()
}

/// One measured state: the stage joints' positions and their links' transforms.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The stage joints' positions \[m\], in [`RobotState::joint_names`] order.
    pub positions: [f64; 3],
    /// Each stage joint's transform, parent link → child link, in the same order.
    pub transforms: Vec<Frame>,
}

/// The robot's state publisher logic: the URDF, its stage, and the mount of its root.
#[derive(Debug, Clone)]
pub struct RobotState {
    urdf: Urdf,
    /// Indices (into `urdf.joints`) of the three stage joints, root first.
    stage: [usize; 3],
    /// The tool's origin in the root frame at `q = 0`.
    offset: Vector3<f64>,
    /// `A⁻¹`: root-frame displacement → joint positions.
    inverse: Matrix3<f64>,
    /// The root's parent frame and the root's pose in it (from `/tf_static`).
    mount: Option<(String, Isometry3<f64>)>,
}

impl RobotState {
    /// The state publisher of `urdf` whose tool link is `tool`.
    ///
    /// # Errors
    /// [`StageError`]: the tool is not a link, or the way to it is not a
    /// three-axis Cartesian stage.
    pub fn new(urdf: Urdf, tool: &str) -> Result<RobotState, StageError> {
        let chain = urdf
            .chain(tool)
            .ok_or_else(|| StageError::NoToolLink(tool.to_string()))?;
        let mut prismatic = Vec::new();
        for j in &chain {
            match j.kind {
                JointKind::Fixed => {}
                JointKind::Prismatic => prismatic.push(j.name.clone()),
                _ => {
                    return Err(StageError::NotPrismatic {
                        joint: j.name.clone(),
                    })
                }
            }
        }
        if prismatic.len() != 3 {
            return Err(StageError::NotThreeAxes { found: prismatic });
        }
        let index = |name: &str| urdf.joints.iter().position(|j| j.name == name);
        let stage = [
            index(&prismatic[0]).unwrap_or_default(),
            index(&prismatic[1]).unwrap_or_default(),
            index(&prismatic[2]).unwrap_or_default(),
        ];
        let tool_at = |q: [f64; 3]| -> Vector3<f64> {
            let mut t = Isometry3::identity();
            for j in &chain {
                let position = prismatic
                    .iter()
                    .position(|n| *n == j.name)
                    .map_or(0.0, |k| q[k]);
                t *= j.transform(position);
            }
            t.translation.vector
        };
        let offset = tool_at([0.0; 3]);
        let a = Matrix3::from_columns(&[
            tool_at([1.0, 0.0, 0.0]) - offset,
            tool_at([0.0, 1.0, 0.0]) - offset,
            tool_at([0.0, 0.0, 1.0]) - offset,
        ]);
        if a.determinant().abs() < 1e-9 {
            return Err(StageError::DependentAxes);
        }
        let inverse = a.try_inverse().ok_or(StageError::DependentAxes)?;
        Ok(RobotState {
            urdf,
            stage,
            offset,
            inverse,
            mount: None,
        })
    }

    /// The robot description.
    pub fn urdf(&self) -> &Urdf {
        &self.urdf
    }

    /// The stage joints' names, root first (the `JointState` names).
    pub fn joint_names(&self) -> [&str; 3] {
        self.stage.map(|i| self.urdf.joints[i].name.as_str())
    }

    /// Every fixed joint's transform (published once, on `/tf_static`).
    pub fn static_frames(&self) -> Vec<Frame> {
        fixed_frames(&self.urdf)
    }

    /// Learns a static transform: when `child` is the root link, its parent becomes the
    /// frame positions may come in. Returns whether it was the root's (and changed it).
    pub fn set_mount(&mut self, parent: &str, child: &str, pose: Isometry3<f64>) -> bool {
        if child != self.urdf.root || parent == child {
            return false;
        }
        let new = Some((parent.to_string(), pose));
        if self.mount == new {
            return false;
        }
        self.mount = new;
        true
    }

    /// The root's parent frame, once known.
    pub fn mount_frame(&self) -> Option<&str> {
        self.mount.as_ref().map(|(f, _)| f.as_str())
    }

    /// The state for a tool position `p` \[m\] in `frame` (see the module doc).
    ///
    /// # Errors
    /// [`Rejected`]: a coordinate is not finite, or the frame is unknown.
    pub fn on_position(&self, frame: &str, p: [f64; 3]) -> Result<Sample, Rejected> {
        if p.iter().any(|v| !v.is_finite()) {
            return Err(Rejected::NotFinite);
        }
        let point = Point3::new(p[0], p[1], p[2]);
        let in_root = if frame == self.urdf.root {
            point
        } else {
            match &self.mount {
                Some((parent, pose)) if parent == frame => pose.inverse_transform_point(&point),
                _ => {
                    return Err(Rejected::UnknownFrame {
                        frame: frame.to_string(),
                    })
                }
            }
        };
        let q = self.inverse * (in_root.coords - self.offset);
        let positions = [q.x, q.y, q.z];
        let transforms = self
            .stage
            .iter()
            .zip(positions)
            .map(|(&i, q)| {
                let j = &self.urdf.joints[i];
                Frame::new(&j.parent, &j.child, &j.transform(q))
            })
            .collect();
        Ok(Sample {
            positions,
            transforms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};
    use proptest::prelude::*;

    const STAGE: &str = include_str!("../../arnie_bringup/urdf/arnie_arm.urdf");

    /// The tool's origin in `frame` composed from the published transforms (what a tf2
    /// consumer does): mount, then each moving joint, then the static ones.
    fn tool_in_parent(state: &RobotState, s: &Sample) -> Vector3<f64> {
        let iso = |f: &Frame| {
            let [x, y, z, w] = f.rotation;
            Isometry3::from_parts(
                Translation3::new(f.translation[0], f.translation[1], f.translation[2]),
                UnitQuaternion::new_normalize(nalgebra::Quaternion::new(w, x, y, z)),
            )
        };
        let mut all = s.transforms.clone();
        all.extend(state.static_frames());
        let mut t = state.mount.as_ref().map(|(_, p)| *p).unwrap_or_default();
        let mut at = state.urdf.root.clone();
        while let Some(f) = all.iter().find(|f| f.parent == at) {
            t *= iso(f);
            at = f.child.clone();
        }
        assert_eq!(at, "taper_holder");
        t.translation.vector
    }

    fn arm() -> RobotState {
        RobotState::new(Urdf::parse(STAGE).unwrap(), "taper_holder").unwrap()
    }

    #[test]
    fn the_shipped_stage_maps_the_tool_position_to_its_joints() {
        let mut s = arm();
        assert_eq!(s.joint_names(), ["arm_x", "arm_y", "arm_z"]);
        let statics = s.static_frames();
        assert_eq!(statics.len(), 1);
        assert_eq!(statics[0].child, "taper_holder");
        let sample = s.on_position("arm", [0.1, -0.2, 0.3]).unwrap();
        assert_eq!(sample.positions, [0.1, -0.2, 0.3]);
        assert_eq!(
            s.on_position("world", [0.0; 3]),
            Err(Rejected::UnknownFrame {
                frame: "world".into()
            })
        );
        // The spine's world -> arm: +90° about z.
        let pose = Isometry3::from_parts(
            Translation3::new(0.01, 0.02, 0.03),
            UnitQuaternion::from_euler_angles(0.0, 0.0, std::f64::consts::FRAC_PI_2),
        );
        assert!(s.set_mount("world", "arm", pose));
        assert!(!s.set_mount("world", "arm", pose));
        assert!(!s.set_mount("world", "eyes", pose));
        let sample = s.on_position("world", [0.11, 0.52, 0.33]).unwrap();
        // world x = -arm y, world y = arm x.
        let q = sample.positions;
        assert!(
            (q[0] - 0.5).abs() < 1e-12 && (q[1] + 0.1).abs() < 1e-12,
            "{q:?}"
        );
        assert!((q[2] - 0.3).abs() < 1e-12, "{q:?}");
        let tool = tool_in_parent(&s, &sample);
        assert!((tool - Vector3::new(0.11, 0.52, 0.33)).norm() < 1e-12);
        assert_eq!(
            s.on_position("world", [f64::NAN, 0.0, 0.0]),
            Err(Rejected::NotFinite)
        );
    }

    #[test]
    fn stages_that_are_not_three_axes_are_refused() {
        let u = Urdf::parse(STAGE).unwrap();
        assert_eq!(
            RobotState::new(u.clone(), "nope").unwrap_err(),
            StageError::NoToolLink("nope".into())
        );
        assert!(matches!(
            RobotState::new(u, "arm_y_carriage").unwrap_err(),
            StageError::NotThreeAxes { found } if found.len() == 2
        ));
        let parallel = STAGE.replace("<axis xyz=\"0 1 0\"/>", "<axis xyz=\"1 0 0\"/>");
        assert_eq!(
            RobotState::new(Urdf::parse(&parallel).unwrap(), "taper_holder").unwrap_err(),
            StageError::DependentAxes
        );
        let turning = STAGE.replace(
            "name=\"arm_z\" type=\"prismatic\"",
            "name=\"arm_z\" type=\"revolute\"",
        );
        assert!(matches!(
            RobotState::new(Urdf::parse(&turning).unwrap(), "taper_holder").unwrap_err(),
            StageError::NotPrismatic { joint } if joint == "arm_z"
        ));
    }

    proptest! {
        /// Any stage with turned origins and slanted (independent) axes: composing the
        /// published transforms gives the measured position back.
        #[test]
        fn composing_the_transforms_gives_the_position_back(
            rpy in proptest::array::uniform3(-3.0f64..3.0),
            xyz in proptest::array::uniform3(-0.5f64..0.5),
            slant in -0.5f64..0.5,
            p in proptest::array::uniform3(-1.0f64..1.0),
            mount in proptest::array::uniform3(-3.0f64..3.0),
        ) {
            let text = STAGE
                .replace(
                    "<child link=\"arm_x_carriage\"/>",
                    &format!(
                        "<child link=\"arm_x_carriage\"/><origin xyz=\"{} {} {}\" rpy=\"{} {} {}\"/>",
                        xyz[0], xyz[1], xyz[2], rpy[0], rpy[1], rpy[2]
                    ),
                )
                .replace("<axis xyz=\"0 0 1\"/>", &format!("<axis xyz=\"{slant} 0 1\"/>"));
            let mut s = RobotState::new(Urdf::parse(&text).unwrap(), "taper_holder").unwrap();
            let pose = Isometry3::from_parts(
                Translation3::new(0.1, -0.2, 0.3),
                UnitQuaternion::from_euler_angles(mount[0], mount[1], mount[2]),
            );
            s.set_mount("world", "arm", pose);
            let sample = s.on_position("world", p).unwrap();
            let tool = tool_in_parent(&s, &sample);
            prop_assert!((tool - Vector3::new(p[0], p[1], p[2])).norm() < 1e-9, "{tool} vs {p:?}");
        }
    }
}
