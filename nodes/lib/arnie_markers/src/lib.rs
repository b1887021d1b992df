//! rviz markers as plain values: what the simulator and the brain draw, built by their
//! libraries without ROS, and turned into `visualization_msgs/MarkerArray` at the edge.
//!
//! # Layout
//! - [`Marker`], [`Kind`], [`Rgba`]: one marker (metres, frame `world`, no rotation).
//! - [`Entry`]: what one `MarkerArray` carries: markers to add or replace, markers to
//!   delete, or "delete all".
//! - [`Tracker`]: turns "the markers that exist now" into the entries to send, so a
//!   marker that is no longer produced is deleted (rviz would otherwise keep it forever).
//! - [`Trail`]: the last positions of a moving point, drawn as a line that fades out.
//! - [`lifetime_s`]: how long the moving markers of a periodic publisher live.
//! - `ros` (feature `ros`): [`Entry`] → `visualization_msgs/Marker`, and the one
//!   publishing loop of the nodes' marker topics (latched publisher, [`Tracker`],
//!   one warning per run of failures).
//!
//! Every marker has a namespace (`ns`) and an id; rviz lists the namespaces of a
//! MarkerArray display and a user toggles each one.
#![deny(missing_docs)]

#[cfg(feature = "ros")]
pub mod ros;

use std::collections::BTreeSet;

/// The shapes used here (a subset of `visualization_msgs/Marker`'s types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A sphere of diameters `scale` at `position`.
    Sphere,
    /// A box of sides `scale` centred at `position`.
    Cube,
    /// A line through `points` (`scale.x` = line width); per-point `colours` if given.
    LineStrip,
    /// Pairs of `points`, one segment each (`scale.x` = line width).
    LineList,
    /// `text` at `position`, facing the viewer (`scale.z` = letter height).
    Text,
}

/// A colour, each channel in [0, 1]; `a` = opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Opacity.
    pub a: f32,
}

impl Rgba {
    /// An opaque colour.
    pub const fn rgb(r: f32, g: f32, b: f32) -> Self {
        Rgba { r, g, b, a: 1.0 }
    }

    /// The same colour with opacity `a`, clamped to [0, 1] (NaN → 0).
    pub fn with_alpha(self, a: f32) -> Self {
        let a = if a.is_nan() { 0.0 } else { a.clamp(0.0, 1.0) };
        Rgba { a, ..self }
    }
}

/// One marker. Positions in metres in the frame `world`; no rotation.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Namespace (toggled in rviz), e.g. `candle`.
    pub ns: &'static str,
    /// Id within the namespace.
    pub id: i32,
    /// Shape.
    pub kind: Kind,
    /// Centre [m] (ignored by lines, whose `points` are absolute).
    pub position: [f64; 3],
    /// Size [m] (see [`Kind`] for what each shape reads).
    pub scale: [f64; 3],
    /// Colour of the whole marker.
    pub colour: Rgba,
    /// Per-point colours of a line (empty: `colour` everywhere).
    pub colours: Vec<Rgba>,
    /// Points of a line [m].
    pub points: Vec<[f64; 3]>,
    /// Text of a [`Kind::Text`].
    pub text: String,
    /// rviz drops the marker this long after receiving it [s]; 0 = never.
    pub lifetime_s: f64,
}

impl Marker {
    /// A marker of `kind` at the origin, unit scale, white, no lifetime.
    pub fn new(ns: &'static str, id: i32, kind: Kind) -> Self {
        Marker {
            ns,
            id,
            kind,
            position: [0.0; 3],
            scale: [1.0; 3],
            colour: Rgba::rgb(1.0, 1.0, 1.0),
            colours: Vec::new(),
            points: Vec::new(),
            text: String::new(),
            lifetime_s: 0.0,
        }
    }

    /// A sphere of diameter `d` [m] at `p` [m].
    pub fn sphere(ns: &'static str, id: i32, p: [f64; 3], d: f64, colour: Rgba) -> Self {
        Marker {
            position: p,
            scale: [d; 3],
            colour,
            ..Marker::new(ns, id, Kind::Sphere)
        }
    }

    /// A box from `min` to `max` [m].
    pub fn cube(ns: &'static str, id: i32, min: [f64; 3], max: [f64; 3], colour: Rgba) -> Self {
        let c = |i: usize| 0.5 * (min[i] + max[i]);
        let s = |i: usize| (max[i] - min[i]).abs();
        Marker {
            position: [c(0), c(1), c(2)],
            scale: [s(0), s(1), s(2)],
            colour,
            ..Marker::new(ns, id, Kind::Cube)
        }
    }

    /// Text of height `h` [m] at `p` [m].
    pub fn text(
        ns: &'static str,
        id: i32,
        p: [f64; 3],
        h: f64,
        text: impl Into<String>,
        colour: Rgba,
    ) -> Self {
        Marker {
            position: p,
            scale: [h; 3],
            colour,
            text: text.into(),
            ..Marker::new(ns, id, Kind::Text)
        }
    }

    /// The twelve edges of the box `min`..`max` [m] as a line list of width `w` [m].
    pub fn box_edges(
        ns: &'static str,
        id: i32,
        min: [f64; 3],
        max: [f64; 3],
        w: f64,
        colour: Rgba,
    ) -> Self {
        let corner = |k: usize| {
            [
                if k & 1 == 0 { min[0] } else { max[0] },
                if k & 2 == 0 { min[1] } else { max[1] },
                if k & 4 == 0 { min[2] } else { max[2] },
            ]
        };
        let mut points = Vec::with_capacity(24);
        for a in 0..8usize {
            for bit in [1usize, 2, 4] {
                if a & bit == 0 {
                    points.push(corner(a));
                    points.push(corner(a | bit));
                }
            }
        }
        Marker {
            scale: [w, 0.0, 0.0],
            colour,
            points,
            ..Marker::new(ns, id, Kind::LineList)
        }
    }

    /// The same marker with a lifetime [s].
    pub fn with_lifetime(mut self, lifetime_s: f64) -> Self {
        self.lifetime_s = lifetime_s;
        self
    }

    /// (namespace, id): what rviz identifies a marker by.
    pub fn key(&self) -> (&'static str, i32) {
        (self.ns, self.id)
    }
}

/// One element of a `MarkerArray`.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Add, or replace the marker with the same namespace and id (`ADD`).
    Add(Marker),
    /// Remove one marker (`DELETE`).
    Delete {
        /// Namespace.
        ns: &'static str,
        /// Id.
        id: i32,
    },
    /// Remove every marker of this display (`DELETEALL`), e.g. left by an earlier run.
    DeleteAll,
}

/// Turns the markers that exist now into the entries of one `MarkerArray`: every
/// current marker is (re)sent, and a marker sent before but not produced now is deleted.
/// The first array starts with [`Entry::DeleteAll`], which clears what an earlier run of
/// the node left in the viewer. Each array is complete, so a late subscriber of a latched
/// topic (transient-local, depth 1) sees the whole scene from the last one.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    shown: BTreeSet<(&'static str, i32)>,
    started: bool,
}

impl Tracker {
    /// A tracker that has sent nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The entries that make the viewer show exactly `now`. Markers with the same key
    /// as an earlier one in `now` replace it (the last wins, as in rviz).
    pub fn update(&mut self, now: Vec<Marker>) -> Vec<Entry> {
        let keys: BTreeSet<_> = now.iter().map(Marker::key).collect();
        let mut out = Vec::with_capacity(now.len() + 1);
        if !self.started {
            out.push(Entry::DeleteAll);
            self.started = true;
        }
        out.extend(
            self.shown
                .difference(&keys)
                .map(|&(ns, id)| Entry::Delete { ns, id }),
        );
        out.extend(now.into_iter().map(Entry::Add));
        self.shown = keys;
        out
    }
}

/// How long the moving markers of a node publishing every `period` live in a viewer [s]:
/// five periods, at least 1 s, so they vanish soon after the node stops publishing.
pub fn lifetime_s(period: std::time::Duration) -> f64 {
    (5.0 * period.as_secs_f64()).max(1.0)
}

/// The last positions of a moving point [m], oldest first: a new point is kept only when
/// it is at least `min_step` from the last one, and at most `capacity` are kept.
#[derive(Debug, Clone)]
pub struct Trail {
    points: std::collections::VecDeque<[f64; 3]>,
    capacity: usize,
    min_step: f64,
}

impl Trail {
    /// An empty trail.
    pub fn new(capacity: usize, min_step: f64) -> Self {
        Trail {
            points: Default::default(),
            capacity: capacity.max(2),
            min_step,
        }
    }

    /// Records `p` (non-finite points are ignored).
    pub fn push(&mut self, p: [f64; 3]) {
        if !p.iter().all(|v| v.is_finite()) {
            return;
        }
        if let Some(last) = self.points.back() {
            let d2: f64 = (0..3).map(|i| (p[i] - last[i]).powi(2)).sum();
            if d2 < self.min_step * self.min_step {
                return;
            }
        }
        if self.points.len() == self.capacity {
            self.points.pop_front();
        }
        self.points.push_back(p);
    }

    /// The points, oldest first.
    pub fn points(&self) -> impl Iterator<Item = &[f64; 3]> {
        self.points.iter()
    }

    /// A line strip through the trail, `colour` fading from transparent (oldest) to its
    /// own opacity (newest); `None` with fewer than two points.
    pub fn line(&self, ns: &'static str, id: i32, width: f64, colour: Rgba) -> Option<Marker> {
        let n = self.points.len();
        if n < 2 {
            return None;
        }
        let colours = (0..n)
            .map(|k| colour.with_alpha(colour.a * (k + 1) as f32 / n as f32))
            .collect();
        Some(Marker {
            scale: [width, 0.0, 0.0],
            colour,
            colours,
            points: self.points.iter().copied().collect(),
            ..Marker::new(ns, id, Kind::LineStrip)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgba = Rgba::rgb(1.0, 1.0, 1.0);

    #[test]
    fn moving_markers_live_five_periods_and_at_least_a_second() {
        use std::time::Duration;
        assert_eq!(lifetime_s(Duration::from_millis(100)), 1.0);
        assert_eq!(lifetime_s(Duration::from_secs(1)), 5.0);
        assert_eq!(lifetime_s(Duration::ZERO), 1.0);
    }

    #[test]
    fn tracker_clears_first_then_deletes_what_disappeared() {
        let mut t = Tracker::new();
        let a = Marker::sphere("flames", 0, [0.0; 3], 0.01, WHITE);
        let b = Marker::sphere("flames", 1, [0.0; 3], 0.01, WHITE);
        let first = t.update(vec![a.clone(), b.clone()]);
        assert_eq!(
            first,
            vec![
                Entry::DeleteAll,
                Entry::Add(a.clone()),
                Entry::Add(b.clone())
            ]
        );
        let second = t.update(vec![a.clone()]);
        assert_eq!(
            second,
            vec![
                Entry::Delete {
                    ns: "flames",
                    id: 1
                },
                Entry::Add(a.clone())
            ]
        );
        // Deleted once only.
        assert_eq!(t.update(vec![a.clone()]), vec![Entry::Add(a)]);
        assert_eq!(
            t.update(vec![]),
            vec![Entry::Delete {
                ns: "flames",
                id: 0
            }]
        );
        assert_eq!(t.update(vec![]), vec![]);
    }

    #[test]
    fn trail_keeps_the_newest_points_and_fades() {
        let mut trail = Trail::new(3, 0.001);
        assert!(trail.line("trail", 0, 0.002, WHITE).is_none());
        for x in [0.0, 0.0005, 0.01, 0.02, 0.03, f64::NAN] {
            trail.push([x, 0.0, 0.0]);
        }
        let xs: Vec<f64> = trail.points().map(|p| p[0]).collect();
        assert_eq!(xs, [0.01, 0.02, 0.03]);
        let line = trail.line("trail", 0, 0.002, WHITE).unwrap();
        assert_eq!(line.kind, Kind::LineStrip);
        let alphas: Vec<f32> = line.colours.iter().map(|c| c.a).collect();
        assert!(alphas.windows(2).all(|w| w[0] < w[1]), "{alphas:?}");
        assert_eq!(alphas.last().copied(), Some(1.0));
    }

    #[test]
    fn box_edges_are_twelve_segments_on_the_box() {
        let m = Marker::box_edges(
            "bounds",
            0,
            [-1.0, -2.0, -3.0],
            [1.0, 2.0, 3.0],
            0.01,
            WHITE,
        );
        assert_eq!(m.points.len(), 24);
        for seg in m.points.chunks(2) {
            let differing = (0..3).filter(|&i| seg[0][i] != seg[1][i]).count();
            assert_eq!(differing, 1, "{seg:?}");
        }
        let c = Marker::cube("obstacles", 0, [0.0, 0.0, 0.0], [0.2, 0.4, 0.6], WHITE);
        assert_eq!(c.position, [0.1, 0.2, 0.3]);
        assert_eq!(c.scale, [0.2, 0.4, 0.6]);
    }

    #[test]
    fn alpha_is_clamped() {
        assert_eq!(WHITE.with_alpha(2.0).a, 1.0);
        assert_eq!(WHITE.with_alpha(-1.0).a, 0.0);
        assert_eq!(WHITE.with_alpha(f32::NAN).a, 0.0);
    }
}
