//! A URDF reader for what a robot state publisher needs: the links, and each joint's
//! type, parent, child, origin, axis and limits. Visuals, collisions, inertias,
//! materials and anything else are left to the viewers, which read the same text from
//! `robot_description`.
//!
//! Checked as `urdfdom` checks it, so a file rviz refuses is refused here too: one
//! `<robot name>` root; unique, non-empty link and joint names; every joint naming a
//! parent and a child link that exist; a link the child of at most one joint; one root
//! link (no parent) from which every link is reached (no cycle, no second tree); origins
//! `xyz`/`rpy` of three finite numbers; a non-zero axis; a prismatic or revolute joint
//! with a `<limit>`. Joint types `fixed`, `prismatic`, `revolute` and `continuous` are
//! supported; `floating` and `planar` (whose pose a single position cannot give) are
//! refused. Every error names the line and column ([`UrdfError`]).
use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{Isometry3, Translation3, Unit, UnitQuaternion, Vector3};

/// Why a URDF cannot be used, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct UrdfError {
    /// 1-based line of the element (or of the XML error).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// A joint's type (URDF `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    /// Rigid: its transform never changes (published on `/tf_static`).
    Fixed,
    /// Slides along its axis by its position \[m\].
    Prismatic,
    /// Turns about its axis by its position \[rad\], within limits.
    Revolute,
    /// Turns about its axis, without limits.
    Continuous,
}

impl JointKind {
    /// Whether the joint has a position (everything but `fixed`).
    pub fn moves(self) -> bool {
        self != JointKind::Fixed
    }
}

/// A joint's `<limit>` (SI units: m or rad, m/s or rad/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// Lowest position.
    pub lower: f64,
    /// Highest position.
    pub upper: f64,
    /// Largest speed.
    pub velocity: f64,
}

/// One `<joint>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Its name (the `JointState` name).
    pub name: String,
    /// Its type.
    pub kind: JointKind,
    /// The parent link.
    pub parent: String,
    /// The child link.
    pub child: String,
    /// The child's frame in the parent's at position 0 (`<origin xyz rpy>`).
    pub origin: Isometry3<f64>,
    /// The motion's axis in the child frame at position 0 (`<axis xyz>`, normalised).
    pub axis: Unit<Vector3<f64>>,
    /// The `<limit>`, when given.
    pub limit: Option<Limit>,
}

impl Joint {
    /// The child's frame in the parent's at `position` (m or rad): the origin, then the
    /// motion along or about the axis (as urdfdom and robot_state_publisher compose it).
    pub fn transform(&self, position: f64) -> Isometry3<f64> {
        let motion = match self.kind {
            JointKind::Fixed => Isometry3::identity(),
            JointKind::Prismatic => Isometry3::from_parts(
                Translation3::from(self.axis.into_inner() * position),
                UnitQuaternion::identity(),
            ),
            JointKind::Revolute | JointKind::Continuous => Isometry3::from_parts(
                Translation3::identity(),
                UnitQuaternion::from_axis_angle(&self.axis, position),
            ),
        };
        self.origin * motion
    }
}

/// A parsed and checked robot description.
#[derive(Debug, Clone, PartialEq)]
pub struct Urdf {
    /// `<robot name>`.
    pub name: String,
    /// Every link's name, in file order.
    pub links: Vec<String>,
    /// Every joint, in file order.
    pub joints: Vec<Joint>,
    /// The link no joint has as child.
    pub root: String,
}

impl Urdf {
    /// Reads and checks a URDF (see the module documentation).
    ///
    /// # Errors
    /// [`UrdfError`]: the XML does not parse, or the robot breaks one of the rules,
    /// with the line and column of the element at fault.
    pub fn parse(text: &str) -> Result<Urdf, UrdfError> {
        let doc = roxmltree::Document::parse(text).map_err(|e| {
            let p = e.pos();
            UrdfError {
                line: p.row,
                column: p.col,
                message: format!("not well-formed XML: {e}"),
            }
        })?;
        let at = |node: roxmltree::Node, message: String| error_at(&doc, node, message);
        let robot = doc.root_element();
        if !robot.has_tag_name("robot") {
            return Err(at(
                robot,
                format!(
                    "the root element is <{}>, not <robot>",
                    robot.tag_name().name()
                ),
            ));
        }
        let name = match robot.attribute("name") {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => return Err(at(robot, "<robot> has no name".into())),
        };
        let links = read_links(&doc, robot)?;
        let link_names: BTreeSet<&str> = links.iter().map(String::as_str).collect();
        let mut joints: Vec<Joint> = Vec::new();
        let mut parent_of: BTreeMap<String, String> = BTreeMap::new();
        for j in robot.children().filter(|n| n.has_tag_name("joint")) {
            let joint = read_joint(&doc, j, &link_names, &joints, &mut parent_of)?;
            joints.push(joint);
        }
        let root = find_root(&doc, robot, &links, &joints, &parent_of)?;
        Ok(Urdf {
            name,
            links,
            joints,
            root,
        })
    }

    /// The joints from the root to `link`, root first.
    pub fn chain(&self, link: &str) -> Option<Vec<&Joint>> {
        if !self.links.iter().any(|l| l == link) {
            return None;
        }
        let mut chain = Vec::new();
        let mut at = link;
        while let Some(j) = self.joints.iter().find(|j| j.child == at) {
            chain.push(j);
            at = &j.parent;
        }
        chain.reverse();
        Some(chain)
    }
}

/// An attribute that is not three finite numbers ([`triple`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TripleError {
    /// A word that is not a number.
    #[error("{key}=\"{text}\" is not three numbers")]
    NotNumbers {
        /// The attribute.
        key: String,
        /// Its text.
        text: String,
    },
    /// Not three of them, or one not finite.
    #[error("{key}=\"{text}\" is not three finite numbers")]
    NotThreeFinite {
        /// The attribute.
        key: String,
        /// Its text.
        text: String,
    },
}

/// The error at `node` of `doc`: its line and column.
fn error_at(doc: &roxmltree::Document, node: roxmltree::Node, message: String) -> UrdfError {
    let p = doc.text_pos_at(node.range().start);
    UrdfError {
        line: p.row,
        column: p.col,
        message,
    }
}

/// The robot's links, in file order: each named, no name twice, at least one.
fn read_links(doc: &roxmltree::Document, robot: roxmltree::Node) -> Result<Vec<String>, UrdfError> {
    let at = |node: roxmltree::Node, message: String| error_at(doc, node, message);
    let mut links = Vec::new();
    let mut link_names = BTreeSet::new();
    for link in robot.children().filter(|n| n.has_tag_name("link")) {
        let n = match link.attribute("name") {
            Some(n) if !n.is_empty() => n,
            _ => return Err(at(link, "a <link> has no name".into())),
        };
        if !link_names.insert(n.to_string()) {
            return Err(at(link, format!("link '{n}' is defined twice")));
        }
        links.push(n.to_string());
    }
    if links.is_empty() {
        return Err(at(robot, "the robot has no <link>".into()));
    }
    Ok(links)
}

/// One `<joint>`: named once (`before`: the joints read so far), a supported type,
/// parent and child among `links`, a child no other joint has (`parent_of`: child →
/// joint, so far; this one added), its origin, axis and limit.
fn read_joint(
    doc: &roxmltree::Document,
    j: roxmltree::Node,
    links: &BTreeSet<&str>,
    before: &[Joint],
    parent_of: &mut BTreeMap<String, String>,
) -> Result<Joint, UrdfError> {
    let at = |node: roxmltree::Node, message: String| error_at(doc, node, message);
    let jname = match j.attribute("name") {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => return Err(at(j, "a <joint> has no name".into())),
    };
    if before.iter().any(|o| o.name == jname) {
        return Err(at(j, format!("joint '{jname}' is defined twice")));
    }
    let kind = match j.attribute("type") {
        Some("fixed") => JointKind::Fixed,
        Some("prismatic") => JointKind::Prismatic,
        Some("revolute") => JointKind::Revolute,
        Some("continuous") => JointKind::Continuous,
        Some(t @ ("floating" | "planar")) => {
            return Err(at(
                j,
                format!("joint '{jname}': type '{t}' is not supported (fixed, prismatic, revolute, continuous)"),
            ))
        }
        Some(t) => return Err(at(j, format!("joint '{jname}': unknown type '{t}'"))),
        None => return Err(at(j, format!("joint '{jname}' has no type"))),
    };
    let link_of = |tag: &str| -> Result<String, UrdfError> {
        let e = j
            .children()
            .find(|n| n.has_tag_name(tag))
            .ok_or_else(|| at(j, format!("joint '{jname}' has no <{tag}>")))?;
        let l = e.attribute("link").unwrap_or_default();
        if !links.contains(l) {
            return Err(at(
                e,
                format!("joint '{jname}': {tag} link '{l}' is not defined"),
            ));
        }
        Ok(l.to_string())
    };
    let parent = link_of("parent")?;
    let child = link_of("child")?;
    if parent == child {
        return Err(at(
            j,
            format!("joint '{jname}': link '{child}' is its own parent"),
        ));
    }
    if let Some(other) = parent_of.insert(child.clone(), jname.clone()) {
        return Err(at(
            j,
            format!("link '{child}' is the child of two joints ('{other}' and '{jname}')"),
        ));
    }
    let origin = match j.children().find(|n| n.has_tag_name("origin")) {
        None => Isometry3::identity(),
        Some(o) => {
            let xyz = triple(o, "xyz", [0.0; 3]).map_err(|e| at(o, e.to_string()))?;
            let rpy = triple(o, "rpy", [0.0; 3]).map_err(|e| at(o, e.to_string()))?;
            Isometry3::from_parts(
                Translation3::new(xyz[0], xyz[1], xyz[2]),
                UnitQuaternion::from_euler_angles(rpy[0], rpy[1], rpy[2]),
            )
        }
    };
    let axis = match j.children().find(|n| n.has_tag_name("axis")) {
        None => Vector3::x(),
        Some(a) => {
            let v = triple(a, "xyz", [1.0, 0.0, 0.0]).map_err(|e| at(a, e.to_string()))?;
            Vector3::new(v[0], v[1], v[2])
        }
    };
    let axis = match Unit::try_new(axis, 1e-12) {
        Some(a) => a,
        None => return Err(at(j, format!("joint '{jname}': the axis is zero"))),
    };
    let limit = read_limit(doc, j, &jname, kind)?;
    Ok(Joint {
        name: jname,
        kind,
        parent,
        child,
        origin,
        axis,
        limit,
    })
}

/// A joint's `<limit>`: needed by prismatic and revolute joints; finite numbers,
/// `velocity` and `effort` given, `lower` not above `upper`.
fn read_limit(
    doc: &roxmltree::Document,
    j: roxmltree::Node,
    jname: &str,
    kind: JointKind,
) -> Result<Option<Limit>, UrdfError> {
    let at = |node: roxmltree::Node, message: String| error_at(doc, node, message);
    let Some(l) = j.children().find(|n| n.has_tag_name("limit")) else {
        if matches!(kind, JointKind::Prismatic | JointKind::Revolute) {
            return Err(at(
                j,
                format!(
                    "joint '{jname}': a {} joint needs a <limit>",
                    j.attribute("type").unwrap_or_default()
                ),
            ));
        }
        return Ok(None);
    };
    let num = |key: &str, default: Option<f64>| -> Result<f64, UrdfError> {
        match (l.attribute(key), default) {
            (None, Some(d)) => Ok(d),
            (None, None) => Err(at(l, format!("joint '{jname}': <limit> has no {key}"))),
            (Some(s), _) => match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(at(
                    l,
                    format!("joint '{jname}': <limit> {key}=\"{s}\" is not a finite number"),
                )),
            },
        }
    };
    let lower = num("lower", Some(0.0))?;
    let upper = num("upper", Some(0.0))?;
    let velocity = num("velocity", None)?;
    num("effort", None)?;
    if lower > upper {
        return Err(at(
            l,
            format!("joint '{jname}': lower {lower} is above upper {upper}"),
        ));
    }
    Ok(Some(Limit {
        lower,
        upper,
        velocity,
    }))
}

/// The one link no joint has as child, from which every link is reached.
fn find_root(
    doc: &roxmltree::Document,
    robot: roxmltree::Node,
    links: &[String],
    joints: &[Joint],
    parent_of: &BTreeMap<String, String>,
) -> Result<String, UrdfError> {
    let at = |node: roxmltree::Node, message: String| error_at(doc, node, message);
    let roots: Vec<&String> = links
        .iter()
        .filter(|l| !parent_of.contains_key(*l))
        .collect();
    let root = match roots.as_slice() {
        [r] => (*r).clone(),
        [] => return Err(at(robot, "no root link: the joints form a cycle".into())),
        many => {
            let names: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
            return Err(at(
                robot,
                format!(
                    "more than one root link ({}): every link but one must be a joint's child",
                    names.join(", ")
                ),
            ));
        }
    };
    // Every link reached from the root: otherwise a cycle hangs apart from the tree.
    let mut reached = BTreeSet::from([root.clone()]);
    let mut grew = true;
    while grew {
        grew = false;
        for j in joints {
            if reached.contains(&j.parent) && reached.insert(j.child.clone()) {
                grew = true;
            }
        }
    }
    if let Some(lost) = links.iter().find(|l| !reached.contains(*l)) {
        return Err(at(
            robot,
            format!("link '{lost}' is not reached from the root link '{root}' (a cycle)"),
        ));
    }
    Ok(root)
}

/// Three finite numbers of attribute `key` (`"0 0.1 -2"`), or `default` when absent.
fn triple(node: roxmltree::Node, key: &str, default: [f64; 3]) -> Result<[f64; 3], TripleError> {
    let Some(text) = node.attribute(key) else {
        return Ok(default);
    };
    let values: Vec<f64> = text
        .split_whitespace()
        .map(|s| s.parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| TripleError::NotNumbers {
            key: key.to_string(),
            text: text.to_string(),
        })?;
    match values.as_slice() {
        [a, b, c] if values.iter().all(|v| v.is_finite()) => Ok([*a, *b, *c]),
        _ => Err(TripleError::NotThreeFinite {
            key: key.to_string(),
            text: text.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAGE: &str = include_str!("../../arnie_bringup/urdf/arnie_arm.urdf");

    fn err(text: &str) -> UrdfError {
        Urdf::parse(text).unwrap_err()
    }

    #[test]
    fn the_shipped_arm_parses() {
        let u = Urdf::parse(STAGE).unwrap();
        assert_eq!(u.root, "arm");
        let moving: Vec<&str> = u
            .joints
            .iter()
            .filter(|j| j.kind.moves())
            .map(|j| j.name.as_str())
            .collect();
        assert_eq!(moving, ["arm_x", "arm_y", "arm_z"]);
        let chain = u.chain("taper_holder").unwrap();
        assert_eq!(chain.len(), 4);
    }

    #[test]
    fn a_prismatic_joint_slides_along_its_axis_after_its_origin() {
        let u = Urdf::parse(
            r#"<robot name="r"><link name="a"/><link name="b"/>
            <joint name="j" type="prismatic"><parent link="a"/><child link="b"/>
              <origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/><axis xyz="2 0 0"/>
              <limit lower="-1" upper="1" effort="0" velocity="1"/></joint></robot>"#,
        )
        .unwrap();
        let t = u.joints[0].transform(0.5);
        // The axis is x of the child frame, turned 90° about z: world y.
        let p = t.translation.vector;
        assert!((p - Vector3::new(1.0, 2.5, 3.0)).norm() < 1e-12, "{p}");
    }

    #[test]
    fn a_revolute_joint_turns_about_its_axis() {
        let u = Urdf::parse(
            r#"<robot name="r"><link name="a"/><link name="b"/>
            <joint name="j" type="continuous"><parent link="a"/><child link="b"/>
              <axis xyz="0 0 1"/></joint></robot>"#,
        )
        .unwrap();
        let t = u.joints[0].transform(std::f64::consts::FRAC_PI_2);
        let v = t * nalgebra::Point3::new(1.0, 0.0, 0.0);
        assert!((v.coords - Vector3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
    }

    #[test]
    fn errors_name_the_line() {
        let e = err("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\">\n</robot>");
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("not well-formed"), "{e}");
        let e = err(
            "<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\">\n<parent link=\"a\"/>\n<child link=\"nope\"/></joint></robot>",
        );
        assert_eq!((e.line, e.column), (5, 1), "{e}");
        assert!(
            e.message.contains("child link 'nope' is not defined"),
            "{e}"
        );
        let e = err("<robot name=\"r\"><link name=\"a\"/>\n<joint name=\"j\" type=\"prismatic\"><parent link=\"a\"/><child link=\"a\"/></joint></robot>");
        assert!(e.message.contains("its own parent"), "{e}");
    }

    #[test]
    fn bad_robots_are_refused() {
        for (text, words) in [
            ("<robot/>", "no name"),
            ("<urdf name=\"x\"/>", "not <robot>"),
            ("<robot name=\"r\"/>", "no <link>"),
            ("<robot name=\"r\"><link name=\"a\"/><link name=\"a\"/></robot>", "defined twice"),
            ("<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/></robot>", "more than one root"),
            (
                "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/><link name=\"c\"/>\
                 <joint name=\"j\" type=\"fixed\"><parent link=\"b\"/><child link=\"c\"/></joint>\
                 <joint name=\"k\" type=\"fixed\"><parent link=\"c\"/><child link=\"b\"/></joint></robot>",
                "not reached from the root",
            ),
            (
                "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\
                 <joint name=\"j\" type=\"floating\"><parent link=\"a\"/><child link=\"b\"/></joint></robot>",
                "not supported",
            ),
            (
                "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\
                 <joint name=\"j\" type=\"prismatic\"><parent link=\"a\"/><child link=\"b\"/></joint></robot>",
                "needs a <limit>",
            ),
            (
                "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\
                 <joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/>\
                 <origin xyz=\"0 nan 0\"/></joint></robot>",
                "three finite numbers",
            ),
            (
                "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\
                 <joint name=\"j\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/>\
                 <axis xyz=\"0 0 0\"/></joint></robot>",
                "axis is zero",
            ),
        ] {
            let e = err(text);
            assert!(e.message.contains(words), "{text}: {e}");
        }
    }
}
