//! A TF buffer: the frames of `/tf` and `/tf_static` as a tree, and the transform between
//! any two of them at a time, as tf2's `BufferCore` answers `lookupTransform`.
//!
//! This module is the buffer itself, without ROS (stamps are [`Duration`]s on the ROS
//! clock, transforms are nalgebra [`Isometry3`] in metres), so it is testable to the tick;
//! a node feeds it from its `/tf` and `/tf_static` subscriptions.
//!
//! - Each frame has one parent (the last message naming it as `child_frame_id` wins, as
//!   in tf2). A static transform holds at every time; a dynamic one is kept for
//!   `cache` ([`Buffer::new`]) behind the newest sample of its edge.
//! - [`Buffer::lookup`] returns `target_T_source`: a point in `source` times it is the
//!   same point in `target`. The path goes up from both frames to their first common
//!   ancestor. At `Some(time)`, each dynamic edge is interpolated between the samples
//!   around `time` (linear in translation, spherical in rotation); before its oldest kept
//!   sample or after its newest one is an error naming the edge and the times (tf2's
//!   extrapolation errors), as is a frame nobody published, two frames in different
//!   trees, or a transform with a NaN. `None` takes each edge's newest sample (tf2's
//!   "time 0").
//! - A transform whose parent chain would loop back to its child is refused.
//!
//! The ROS side (a listener on `/tf` and `/tf_static`, message conversions) is
//! `node_glue::tf`.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Duration;

use nalgebra::Isometry3;

/// Why a transform was not stored or not found.
#[derive(Debug, Clone, PartialEq)]
pub enum TfError {
    /// No transform names this frame (as parent or child).
    UnknownFrame {
        /// The frame.
        frame: String,
    },
    /// Both frames are known but not connected.
    NoPath {
        /// The frame asked for.
        target: String,
        /// The frame the data is in.
        source: String,
    },
    /// The edge `parent` → `child` has no sample that old.
    TooOld {
        /// The edge's parent frame.
        parent: String,
        /// The edge's child frame.
        child: String,
        /// The time asked for [s].
        time_s: f64,
        /// The oldest sample kept [s].
        oldest_s: f64,
    },
    /// The edge `parent` → `child` has no sample that new yet.
    InFuture {
        /// The edge's parent frame.
        parent: String,
        /// The edge's child frame.
        child: String,
        /// The time asked for [s].
        time_s: f64,
        /// The newest sample [s].
        newest_s: f64,
    },
    /// A transform with a NaN or infinite value, or an empty frame name.
    Invalid {
        /// What is wrong.
        reason: String,
    },
    /// The transform would make `child` its own ancestor.
    Loop {
        /// The parent frame given.
        parent: String,
        /// The child frame given.
        child: String,
    },
}

impl fmt::Display for TfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownFrame { frame } => {
                write!(f, "frame \"{frame}\" does not exist in the TF tree")
            }
            Self::NoPath { target, source } => write!(
                f,
                "no TF path from \"{source}\" to \"{target}\": they are in different trees"
            ),
            Self::TooOld {
                parent,
                child,
                time_s,
                oldest_s,
            } => write!(
                f,
                "\"{parent}\" -> \"{child}\" at {time_s:.3} s is older than the oldest transform kept ({oldest_s:.3} s)"
            ),
            Self::InFuture {
                parent,
                child,
                time_s,
                newest_s,
            } => write!(
                f,
                "\"{parent}\" -> \"{child}\" at {time_s:.3} s is newer than the newest transform ({newest_s:.3} s)"
            ),
            Self::Invalid { reason } => write!(f, "invalid transform: {reason}"),
            Self::Loop { parent, child } => write!(
                f,
                "\"{parent}\" -> \"{child}\" would make \"{child}\" its own ancestor"
            ),
        }
    }
}

impl std::error::Error for TfError {}

/// How a frame hangs from its parent.
#[derive(Debug, Clone)]
enum Edge {
    Static(Isometry3<f64>),
    /// Samples oldest first.
    Dynamic(VecDeque<(Duration, Isometry3<f64>)>),
}

#[derive(Debug, Clone)]
struct Frame {
    parent: String,
    edge: Edge,
}

/// The TF tree (see the module doc).
#[derive(Debug, Clone)]
pub struct Buffer {
    frames: HashMap<String, Frame>,
    cache: Duration,
}

/// Most frames between a frame and its root that a lookup follows.
const MAX_DEPTH: usize = 1000;

fn finite(t: &Isometry3<f64>) -> bool {
    t.translation.vector.iter().all(|v| v.is_finite())
        && t.rotation.coords.iter().all(|v| v.is_finite())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

impl Buffer {
    /// An empty buffer keeping `cache` of every dynamic edge (tf2's default is 10 s).
    pub fn new(cache: Duration) -> Self {
        Self {
            frames: HashMap::new(),
            cache,
        }
    }

    fn check(&self, parent: &str, child: &str, t: &Isometry3<f64>) -> Result<(), TfError> {
        if parent.is_empty() || child.is_empty() {
            return Err(TfError::Invalid {
                reason: format!("empty frame name (\"{parent}\" -> \"{child}\")"),
            });
        }
        if !finite(t) {
            return Err(TfError::Invalid {
                reason: format!("\"{parent}\" -> \"{child}\" has a NaN or infinite value"),
            });
        }
        let mut at = parent;
        for _ in 0..MAX_DEPTH {
            if at == child {
                return Err(TfError::Loop {
                    parent: parent.into(),
                    child: child.into(),
                });
            }
            match self.frames.get(at) {
                Some(f) => at = &f.parent,
                None => return Ok(()),
            }
        }
        Err(TfError::Loop {
            parent: parent.into(),
            child: child.into(),
        })
    }

    /// Stores a static transform `parent_T_child` (from `/tf_static`).
    ///
    /// # Errors
    /// [`TfError::Invalid`] (NaN, empty name), [`TfError::Loop`]; nothing is stored.
    pub fn set_static(
        &mut self,
        parent: &str,
        child: &str,
        transform: Isometry3<f64>,
    ) -> Result<(), TfError> {
        self.check(parent, child, &transform)?;
        self.frames.insert(
            child.to_owned(),
            Frame {
                parent: parent.to_owned(),
                edge: Edge::Static(transform),
            },
        );
        Ok(())
    }

    /// Stores a dynamic transform `parent_T_child` at `stamp` (from `/tf`). A new parent
    /// replaces the edge; samples older than `cache` behind the newest are dropped.
    ///
    /// # Errors
    /// [`TfError::Invalid`] (NaN, empty name), [`TfError::Loop`]; nothing is stored.
    pub fn set(
        &mut self,
        parent: &str,
        child: &str,
        stamp: Duration,
        transform: Isometry3<f64>,
    ) -> Result<(), TfError> {
        self.check(parent, child, &transform)?;
        let cache = self.cache;
        let frame = self
            .frames
            .entry(child.to_owned())
            .or_insert_with(|| Frame {
                parent: parent.to_owned(),
                edge: Edge::Dynamic(VecDeque::new()),
            });
        if frame.parent != parent || matches!(frame.edge, Edge::Static(_)) {
            frame.parent = parent.to_owned();
            frame.edge = Edge::Dynamic(VecDeque::new());
        }
        let Edge::Dynamic(samples) = &mut frame.edge else {
            return Ok(());
        };
        let at = samples.partition_point(|(t, _)| *t <= stamp);
        if at > 0 && samples[at - 1].0 == stamp {
            samples[at - 1].1 = transform;
        } else {
            samples.insert(at, (stamp, transform));
        }
        if let Some(&(newest, _)) = samples.back() {
            while samples.front().is_some_and(|(t, _)| newest - *t > cache) {
                samples.pop_front();
            }
        }
        Ok(())
    }

    /// Every frame known (as a child), with its parent.
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.frames
            .iter()
            .map(|(c, f)| (f.parent.as_str(), c.as_str()))
    }

    /// True when `frame` appears in a transform (as child or parent).
    pub fn knows(&self, frame: &str) -> bool {
        self.frames.contains_key(frame) || self.frames.values().any(|f| f.parent == frame)
    }

    /// `parent_T_child` of one edge at `time` (`None`: its newest).
    fn edge_at(
        &self,
        child: &str,
        frame: &Frame,
        time: Option<Duration>,
    ) -> Result<Isometry3<f64>, TfError> {
        let samples = match &frame.edge {
            Edge::Static(t) => return Ok(*t),
            Edge::Dynamic(s) => s,
        };
        let (Some(&(oldest, first)), Some(&(newest, last))) = (samples.front(), samples.back())
        else {
            return Err(TfError::UnknownFrame {
                frame: child.to_owned(),
            });
        };
        let Some(t) = time else { return Ok(last) };
        if t < oldest {
            return Err(TfError::TooOld {
                parent: frame.parent.clone(),
                child: child.to_owned(),
                time_s: secs(t),
                oldest_s: secs(oldest),
            });
        }
        if t > newest {
            return Err(TfError::InFuture {
                parent: frame.parent.clone(),
                child: child.to_owned(),
                time_s: secs(t),
                newest_s: secs(newest),
            });
        }
        if samples.len() == 1 {
            return Ok(first);
        }
        let i = samples.partition_point(|(s, _)| *s <= t);
        if i == 0 {
            return Ok(first);
        }
        let (t0, a) = samples[i - 1];
        let Some(&(t1, b)) = samples.get(i) else {
            return Ok(a);
        };
        let span = secs(t1) - secs(t0);
        let k = if span > 0.0 {
            (secs(t) - secs(t0)) / span
        } else {
            0.0
        };
        Ok(a.lerp_slerp(&b, k))
    }

    /// `frame`'s chain to its root: (frame, root_T_frame), for each ancestor.
    fn chain(
        &self,
        frame: &str,
        time: Option<Duration>,
    ) -> Result<Vec<(String, Isometry3<f64>)>, TfError> {
        if !self.knows(frame) {
            return Err(TfError::UnknownFrame {
                frame: frame.to_owned(),
            });
        }
        // (ancestor, ancestor_T_frame), from the frame itself up to its root.
        let mut out = vec![(frame.to_owned(), Isometry3::identity())];
        let mut at = frame.to_owned();
        let mut acc = Isometry3::identity();
        for _ in 0..MAX_DEPTH {
            let Some(f) = self.frames.get(&at) else {
                return Ok(out);
            };
            acc = self.edge_at(&at, f, time)? * acc;
            at = f.parent.clone();
            out.push((at.clone(), acc));
        }
        Err(TfError::Loop {
            parent: at,
            child: frame.to_owned(),
        })
    }

    /// `target_T_source` at `time` (`None`: each edge's newest); see the module doc.
    ///
    /// # Errors
    /// [`TfError::UnknownFrame`], [`TfError::NoPath`], [`TfError::TooOld`],
    /// [`TfError::InFuture`].
    pub fn lookup(
        &self,
        target: &str,
        source: &str,
        time: Option<Duration>,
    ) -> Result<Isometry3<f64>, TfError> {
        if target == source {
            return Ok(Isometry3::identity());
        }
        let up_source = self.chain(source, time)?;
        let up_target = self.chain(target, time)?;
        for (ancestor, ancestor_t_source) in &up_source {
            if let Some((_, ancestor_t_target)) = up_target.iter().find(|(a, _)| a == ancestor) {
                return Ok(ancestor_t_target.inverse() * ancestor_t_source);
            }
        }
        Err(TfError::NoPath {
            target: target.to_owned(),
            source: source.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Point3, Translation3, UnitQuaternion, Vector3};
    use std::f64::consts::FRAC_PI_2;

    fn at(x: f64, y: f64, z: f64) -> Isometry3<f64> {
        Isometry3::from_parts(Translation3::new(x, y, z), UnitQuaternion::identity())
    }

    fn s(t: f64) -> Duration {
        Duration::from_secs_f64(t)
    }

    fn close(a: Point3<f64>, b: Point3<f64>) -> bool {
        (a - b).norm() < 1e-9
    }

    #[test]
    fn static_chains_compose_and_invert() {
        let mut b = Buffer::new(s(10.0));
        b.set_static("world", "arm", at(1.0, 0.0, 0.0)).unwrap();
        let turn = Isometry3::from_parts(
            Translation3::new(0.0, 2.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), FRAC_PI_2),
        );
        b.set_static("arm", "tool", turn).unwrap();
        b.set_static("world", "eyes", at(0.0, 0.0, 3.0)).unwrap();
        // A point 1 m along the tool's x is, in world: arm at x=1, tool 2 m along y, turned.
        let w = b.lookup("world", "tool", None).unwrap() * Point3::new(1.0, 0.0, 0.0);
        assert!(close(w, Point3::new(1.0, 3.0, 0.0)), "{w}");
        // Across branches: tool -> eyes.
        let e = b.lookup("eyes", "tool", None).unwrap() * Point3::origin();
        assert!(close(e, Point3::new(1.0, 2.0, -3.0)), "{e}");
        let back = b.lookup("tool", "eyes", None).unwrap() * e;
        assert!(close(back, Point3::origin()));
        assert_eq!(
            b.lookup("world", "world", None).unwrap(),
            Isometry3::identity()
        );
    }

    #[test]
    fn dynamic_edges_interpolate_and_refuse_extrapolation() {
        let mut b = Buffer::new(s(10.0));
        b.set("odom", "base_link", s(1.0), at(0.0, 0.0, 0.0))
            .unwrap();
        b.set("odom", "base_link", s(3.0), at(2.0, 0.0, 0.0))
            .unwrap();
        let p = b.lookup("odom", "base_link", Some(s(2.5))).unwrap() * Point3::origin();
        assert!(close(p, Point3::new(1.5, 0.0, 0.0)), "{p}");
        let newest = b.lookup("odom", "base_link", None).unwrap() * Point3::origin();
        assert!(close(newest, Point3::new(2.0, 0.0, 0.0)));
        let e = b.lookup("odom", "base_link", Some(s(0.5))).unwrap_err();
        assert!(matches!(e, TfError::TooOld { .. }), "{e}");
        assert!(e.to_string().contains("\"odom\" -> \"base_link\""), "{e}");
        let e = b.lookup("odom", "base_link", Some(s(3.5))).unwrap_err();
        assert!(matches!(e, TfError::InFuture { .. }), "{e}");
    }

    #[test]
    fn the_cache_keeps_only_its_length_behind_the_newest() {
        let mut b = Buffer::new(s(1.0));
        for k in 0..50 {
            b.set(
                "map",
                "odom",
                s(f64::from(k) * 0.1),
                at(f64::from(k), 0.0, 0.0),
            )
            .unwrap();
        }
        // Newest 4.9 s: 3.9..=4.9 s are kept.
        assert!(b.lookup("map", "odom", Some(s(4.0))).is_ok());
        assert!(matches!(
            b.lookup("map", "odom", Some(s(3.8))),
            Err(TfError::TooOld { .. })
        ));
    }

    #[test]
    fn unknown_frames_other_trees_nan_and_loops_are_errors_naming_the_frames() {
        let mut b = Buffer::new(s(10.0));
        b.set_static("world", "arm", at(1.0, 0.0, 0.0)).unwrap();
        b.set_static("map", "odom", at(0.0, 1.0, 0.0)).unwrap();
        let e = b.lookup("world", "kitchen", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "frame \"kitchen\" does not exist in the TF tree"
        );
        let e = b.lookup("world", "odom", None).unwrap_err();
        assert!(matches!(e, TfError::NoPath { .. }), "{e}");
        assert!(e.to_string().contains("\"odom\"") && e.to_string().contains("\"world\""));
        let e = b
            .set_static("world", "bad", at(f64::NAN, 0.0, 0.0))
            .unwrap_err();
        assert!(matches!(e, TfError::Invalid { .. }), "{e}");
        assert!(!b.knows("bad"));
        let e = b.set_static("arm", "world", at(0.0, 0.0, 0.0)).unwrap_err();
        assert!(matches!(e, TfError::Loop { .. }), "{e}");
        assert!(
            b.lookup("world", "arm", None).is_ok(),
            "the loop was not stored"
        );
        assert!(b.set_static("", "x", at(0.0, 0.0, 0.0)).is_err());
    }

    #[test]
    fn a_new_parent_or_a_static_edge_replaces_the_old_one() {
        let mut b = Buffer::new(s(10.0));
        b.set("a", "c", s(1.0), at(1.0, 0.0, 0.0)).unwrap();
        b.set_static("b", "c", at(0.0, 1.0, 0.0)).unwrap();
        // "a" named nothing but c's old parent: it is gone from the tree.
        assert!(matches!(
            b.lookup("a", "c", None),
            Err(TfError::UnknownFrame { .. })
        ));
        let p = b.lookup("b", "c", Some(s(99.0))).unwrap() * Point3::origin();
        assert!(
            close(p, Point3::new(0.0, 1.0, 0.0)),
            "static holds at any time"
        );
        assert_eq!(b.edges().count(), 1);
    }
}
