//! The config's interface transforms as TF frames (no ROS here; the glue publishes them
//! on `/tf_static`).
//!
//! A config matrix `T` maps device coordinates into the global frame,
//! `p_world = T · p_device`: read as a pose, it is the device frame's origin and axes
//! expressed in `world`. That is exactly what a TF transform from parent `world` to child
//! `<interface>` holds (tf2: the transform *of* the child frame *in* the parent frame), so
//! `T` is published as it is, not inverted: translation = `T`'s last column (scaled to
//! metres), rotation = `T`'s upper-left 3×3 as a unit quaternion.
//!
//! Only a rigid motion can be a TF transform. [`rigid`] refuses, with a [`NotRigid`]
//! reason, a matrix with a non-finite value, a last row other than `0 0 0 1`, a singular
//! rotation part, one that is not orthonormal within [`TOLERANCE`] (a scale: the
//! original's `kinect` matrix turns pixels and depth units into millimetres), or one
//! with determinant −1 (a reflection: a left-handed frame, which REP 103 rules out).

use nalgebra::{Matrix3, Rotation3, UnitQuaternion};

use crate::transform::Transform;
use crate::{Config, Scale};

/// How far the rotation part may be from orthonormal, `max |Rᵀ·R − I|` (and
/// `|det R − 1|`): about four decimals written in the config (`0.7071`). Within it, the
/// nearest rotation is published.
pub const TOLERANCE: f64 = 1e-4;

/// Why a config matrix is not a rigid motion (and so cannot be a TF transform).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum NotRigid {
    /// A value is NaN or infinite.
    #[error("a value is not finite")]
    NotFinite,
    /// The last row is not `0 0 0 1` (a projective matrix).
    #[error(
        "the last row is {} {} {} {}, not 0 0 0 1 (projective)",
        .last_row[0], .last_row[1], .last_row[2], .last_row[3]
    )]
    NotAffine {
        /// The last row as written.
        last_row: [f64; 4],
    },
    /// The rotation part is singular (determinant 0).
    #[error("the rotation part is singular")]
    Singular,
    /// The rotation part scales or shears: `max |Rᵀ·R − I|` is over [`TOLERANCE`].
    #[error(
        "the rotation part is not orthonormal (it scales or shears: max |R'R - I| = {error:.3e} > {TOLERANCE:e})"
    )]
    NotOrthonormal {
        /// `max |Rᵀ·R − I|`.
        error: f64,
    },
    /// The rotation part mirrors (determinant −1): a left-handed frame.
    #[error("the rotation part is a reflection (determinant -1)")]
    Reflection,
}

/// A rigid motion in the config's units: `p_world = rotation · p_device + translation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rigid {
    /// The device frame's origin in the global frame, in the config's units (mm).
    pub translation: [f64; 3],
    /// The device frame's orientation in the global frame: unit quaternion
    /// `[x, y, z, w]` (ROS's order), with `w >= 0`.
    pub rotation: [f64; 4],
}

/// `t` as a rigid motion, or why it is not one.
///
/// # Errors
/// [`NotRigid`], see the module documentation.
pub fn rigid(t: &Transform) -> Result<Rigid, NotRigid> {
    let m = t.matrix();
    if m.iter().any(|x| !x.is_finite()) {
        return Err(NotRigid::NotFinite);
    }
    let last_row = [m[(3, 0)], m[(3, 1)], m[(3, 2)], m[(3, 3)]];
    if last_row != [0.0, 0.0, 0.0, 1.0] {
        return Err(NotRigid::NotAffine { last_row });
    }
    let r: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
    let det = r.determinant();
    if det.abs() < 1e-12 {
        return Err(NotRigid::Singular);
    }
    let error = (r.transpose() * r - Matrix3::identity()).amax();
    if error.is_nan() || error > TOLERANCE {
        return Err(NotRigid::NotOrthonormal { error });
    }
    if det < 0.0 {
        return Err(NotRigid::Reflection);
    }
    // Shepperd's method on the (nearly) orthonormal matrix, then normalised: within the
    // tolerance this is the nearest rotation to first order.
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    let q = UnitQuaternion::new_normalize(q.into_inner());
    let c = q.coords; // x, y, z, w
    let sign = if c.w < 0.0 { -1.0 } else { 1.0 };
    Ok(Rigid {
        translation: [m[(0, 3)], m[(1, 3)], m[(2, 3)]],
        rotation: [sign * c.x, sign * c.y, sign * c.z, sign * c.w],
    })
}

/// One static frame: parent = the global frame, child = an interface's device frame.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticFrame {
    /// The child frame id: the interface's name.
    pub child: String,
    /// The child's origin in the parent frame \[m\].
    pub translation_m: [f64; 3],
    /// The child's orientation in the parent frame, unit quaternion `[x, y, z, w]`.
    pub rotation: [f64; 4],
}

/// An interface transform that cannot be a TF frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The interface's name.
    pub interface: String,
    /// Why.
    pub reason: NotRigid,
}

/// The static frames of a config: every interface with its own transform
/// ([`Config::interface_transforms`]) that is rigid, translation scaled to metres with
/// `scale`; the others with the reason they are skipped. Both sorted by name.
pub fn static_frames(config: &Config, scale: Scale) -> (Vec<StaticFrame>, Vec<Skipped>) {
    let mut frames = Vec::new();
    let mut skipped = Vec::new();
    for (name, t) in &config.interface_transforms {
        match rigid(t) {
            Ok(r) => frames.push(StaticFrame {
                child: name.clone(),
                translation_m: r.translation.map(|v| v * scale.m_per_unit()),
                rotation: r.rotation,
            }),
            Err(reason) => skipped.push(Skipped {
                interface: name.clone(),
                reason,
            }),
        }
    }
    (frames, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix4, Vector3};

    fn parse(text: &str) -> Transform {
        Transform::parse(text).unwrap()
    }

    fn close(a: &[f64], b: &[f64], eps: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= eps)
    }

    /// Rotates `p` by the quaternion (x, y, z, w) and adds `t`: what a TF consumer does.
    fn apply(r: &Rigid, p: [f64; 3]) -> [f64; 3] {
        let [x, y, z, w] = r.rotation;
        let q = UnitQuaternion::new_normalize(nalgebra::Quaternion::new(w, x, y, z));
        let v = q * Vector3::new(p[0], p[1], p[2]);
        [
            v.x + r.translation[0],
            v.y + r.translation[1],
            v.z + r.translation[2],
        ]
    }

    #[test]
    fn identity_is_the_unit_quaternion() {
        let r = rigid(&Transform::identity()).unwrap();
        assert_eq!(r.translation, [0.0; 3]);
        assert_eq!(r.rotation, [0.0, 0.0, 0.0, 1.0]);
    }

    /// The config's `arm`: x_world = -y_device, y_world = x_device: +90° about z.
    #[test]
    fn arm_is_90_degrees_about_z() {
        let r = rigid(&parse("0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1")).unwrap();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!(close(&r.rotation, &[0.0, 0.0, h, h], 1e-15), "{r:?}");
        assert!(close(&apply(&r, [1.0, 2.0, 3.0]), &[-2.0, 1.0, 3.0], 1e-12));
    }

    #[test]
    fn translation_only_and_180_degrees() {
        let r = rigid(&parse("1 0 0 197; 0 1 0 369; 0 0 1 -328; 0 0 0 1")).unwrap();
        assert_eq!(r.translation, [197.0, 369.0, -328.0]);
        assert_eq!(r.rotation, [0.0, 0.0, 0.0, 1.0]);
        // The original's eyes-old: 180° about z (w = 0, the sign of z is free).
        let r = rigid(&parse("-1 0 0 320;0 -1 0 240;0 0 1 0;0 0 0 1")).unwrap();
        assert!(
            close(&r.rotation[..3], &[0.0, 0.0, 1.0], 1e-15)
                || close(&r.rotation[..3], &[0.0, 0.0, -1.0], 1e-15)
        );
        assert!(close(
            &apply(&r, [1.0, 2.0, 3.0]),
            &[319.0, 238.0, 3.0],
            1e-12
        ));
    }

    /// Any rotation: the matrix → quaternion → matrix round trip gives `T · p` back.
    #[test]
    fn arbitrary_rotation_round_trips() {
        let q = UnitQuaternion::from_euler_angles(0.3, -1.1, 2.5);
        let mut m = Matrix4::identity();
        m.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(q.to_rotation_matrix().matrix());
        m[(0, 3)] = 12.5;
        m[(1, 3)] = -40.0;
        m[(2, 3)] = 7.25;
        let t = Transform::from_matrix(m);
        let r = rigid(&t).unwrap();
        assert!(r.rotation[3] >= 0.0);
        let n: f64 = r.rotation.iter().map(|v| v * v).sum();
        assert!((n - 1.0).abs() < 1e-15);
        for p in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [3.0, -4.0, 5.0]] {
            let expect = t.apply(&p);
            assert!(close(&apply(&r, p), &expect, 1e-12), "{p:?}");
        }
        // w >= 0: the same rotation as the input quaternion, up to the sign.
        let c = q.coords;
        let same = close(&r.rotation, &[c.x, c.y, c.z, c.w], 1e-12)
            || close(&r.rotation, &[-c.x, -c.y, -c.z, -c.w], 1e-12);
        assert!(same, "{r:?} vs {q:?}");
    }

    /// Four decimals (0.7071) are within the tolerance; the result is a unit quaternion.
    #[test]
    fn rounded_rotation_is_accepted_and_normalised() {
        let r = rigid(&parse(
            "0.7071 -0.7071 0 0;0.7071 0.7071 0 0;0 0 1 0;0 0 0 1",
        ))
        .unwrap();
        let n: f64 = r.rotation.iter().map(|v| v * v).sum();
        assert!((n - 1.0).abs() < 1e-15);
        let angle = 2.0 * r.rotation[2].atan2(r.rotation[3]);
        assert!((angle - std::f64::consts::FRAC_PI_4).abs() < 1e-4);
    }

    #[test]
    fn kinect_scaling_is_refused() {
        let t = parse("-0.5 0 0 160;0 -0.5 0 240; 0 0 -0.333333 233.31313131;0 0 0 1");
        let e = rigid(&t).unwrap_err();
        assert!(
            matches!(e, NotRigid::NotOrthonormal { error } if error > 0.5),
            "{e:?}"
        );
        assert!(e.to_string().contains("not orthonormal"));
        // The original's `eyes` scales x by 0.714.
        let e = rigid(&parse("-0.714 0 0 225;0 -1 0 240;0 0 1 0;0 0 0 1")).unwrap_err();
        assert!(matches!(e, NotRigid::NotOrthonormal { .. }), "{e:?}");
    }

    #[test]
    fn reflection_is_refused() {
        let e = rigid(&parse("1 0 0 0;0 1 0 0;0 0 -1 0;0 0 0 1")).unwrap_err();
        assert_eq!(e, NotRigid::Reflection);
        let e = rigid(&parse("0 1 0 5;1 0 0 0;0 0 1 0;0 0 0 1")).unwrap_err();
        assert_eq!(e, NotRigid::Reflection);
    }

    #[test]
    fn nan_singular_and_projective_are_refused() {
        let mut m = Matrix4::identity();
        m[(1, 2)] = f64::NAN;
        assert_eq!(rigid(&Transform::from_matrix(m)), Err(NotRigid::NotFinite));
        m[(1, 2)] = f64::INFINITY;
        assert_eq!(rigid(&Transform::from_matrix(m)), Err(NotRigid::NotFinite));
        assert_eq!(
            rigid(&parse("1 0 0 0;0 1 0 0;0 0 0 0;0 0 0 1")),
            Err(NotRigid::Singular)
        );
        assert_eq!(
            rigid(&parse("0 0 0 0;0 0 0 0;0 0 0 0;0 0 0 1")),
            Err(NotRigid::Singular)
        );
        let e = rigid(&parse("1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 2")).unwrap_err();
        assert_eq!(
            e,
            NotRigid::NotAffine {
                last_row: [0.0, 0.0, 0.0, 2.0]
            }
        );
        assert!(e.to_string().contains("0 0 0 2"));
    }

    /// The original config: arm, head and arm-logger are rigid; kinect, kinect-logger
    /// and eyes scale; kinect-derp and eyes-old name no interface.
    #[test]
    fn the_original_configs_frames() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../../shared/reference/arnie/spine-config.json"
        ));
        let Ok(text) = text else {
            eprintln!("no ../shared/reference: skipped");
            return;
        };
        let config = Config::from_json(&text, None).unwrap();
        assert_eq!(config.unused_transforms, ["eyes-old", "kinect-derp"]);
        let (frames, skipped) = static_frames(&config, Scale::default());
        let names: Vec<&str> = frames.iter().map(|f| f.child.as_str()).collect();
        assert_eq!(names, ["arm", "arm-logger", "head"]);
        let head = &frames[2];
        assert!(close(&head.translation_m, &[0.197, 0.369, -0.328], 1e-12));
        assert_eq!(head.rotation, [0.0, 0.0, 0.0, 1.0]);
        let skipped: Vec<&str> = skipped.iter().map(|s| s.interface.as_str()).collect();
        assert_eq!(skipped, ["eyes", "kinect", "kinect-logger"]);
    }

    /// The project's configs: arm and eyes, both rigid.
    #[test]
    fn the_projects_configs_frames() {
        for file in ["spine_sim.json", "spine_brainjs.json"] {
            let path = format!("{}/../../../params/{file}", env!("CARGO_MANIFEST_DIR"));
            let config = Config::load(std::path::Path::new(&path), None).unwrap();
            let (frames, skipped) = static_frames(&config, Scale::default());
            assert!(skipped.is_empty(), "{file}: {skipped:?}");
            let names: Vec<&str> = frames.iter().map(|f| f.child.as_str()).collect();
            assert_eq!(names, ["arm", "eyes"], "{file}");
            // eyes: "0 1 0 100;-1 0 0 200;0 0 1 -50": -90° about z, (0.1, 0.2, -0.05) m.
            let h = std::f64::consts::FRAC_1_SQRT_2;
            assert!(close(&frames[1].translation_m, &[0.1, 0.2, -0.05], 1e-12));
            assert!(close(&frames[1].rotation, &[0.0, 0.0, -h, h], 1e-15));
        }
    }
}
