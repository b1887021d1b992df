//! The scenario file (our own JSON format): [`RawScenario`] (serde, as written, every
//! key optional with a default) → [`Scenario`] (checked, seconds and vectors), errors
//! naming the field. Millimetres and the global frame throughout.
//!
//! ```json
//! { "seed": 1,
//!   "arm":  { "start_mm": [0, 0, 0], "max_speed_mm_s": 200, "max_accel_mm_s2": 1000,
//!             "position_rate_hz": 50, "loss_probability": 0.0, "jitter_ms": 0,
//!             "obstacles": [ { "name": "table", "min_mm": [-500, -500, -100],
//!                              "max_mm": [500, 500, -20] } ],
//!             "workspace": { "min_mm": [-200, -100, -20], "max_mm": [200, 200, 200] } },
//!   "eyes": { "rate_hz": 20, "confidence": 90, "light_radius_mm": 10, "hold_s": 1.0,
//!             "taper_offset_mm": [0, 0, 0], "source_mm": [60, 40, 30],
//!             "source_lit_at_s": 0, "candle_mm": [-95, 30, 45] } }
//! ```
//! `loss_probability` and `jitter_ms` apply to both directions of the arm link (targets
//! in, encoder positions out); the eyes link is perfect. `workspace` (optional) is the
//! box the arm works in, drawn on `sim/markers`; the sim does not enforce it (the
//! trajectory server's `workspace_*` parameters check targets). Unknown keys are errors (a
//! misspelt `hold_s` must not silently keep the default).

use std::path::Path;

use serde::Deserialize;

use crate::arm::{Limits, Obstacle, Vec3};
use crate::error::SimError;

/// The file as written.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RawScenario {
    /// Seed of the packet loss and jitter generator.
    pub seed: u64,
    /// The arm and its link.
    pub arm: RawArm,
    /// The eyes and the flames.
    pub eyes: RawEyes,
}

/// `arm` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawArm {
    /// Where the arm is at start [mm, global].
    pub start_mm: [f64; 3],
    /// Largest speed [mm/s].
    pub max_speed_mm_s: f64,
    /// Largest acceleration [mm/s²].
    pub max_accel_mm_s2: f64,
    /// Encoder positions sent per second.
    pub position_rate_hz: f64,
    /// Probability that one arm datagram (either direction) is lost, in [0, 1].
    pub loss_probability: f64,
    /// Largest extra delay of one arm datagram [ms]; uniform in [0, jitter_ms].
    pub jitter_ms: f64,
    /// Boxes the arm cannot enter.
    pub obstacles: Vec<Obstacle>,
    /// The box the arm works in (drawn, not enforced); absent = none.
    pub workspace: Option<Workspace>,
}

/// The box the arm works in [mm, global] (`arm.workspace`): drawn on `sim/markers`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workspace {
    /// Lowest corner [mm].
    pub min_mm: [f64; 3],
    /// Highest corner [mm] (above `min_mm` on every axis).
    pub max_mm: [f64; 3],
}

impl Default for RawArm {
    fn default() -> Self {
        Self {
            start_mm: [0.0, 0.0, 0.0],
            max_speed_mm_s: 200.0,
            max_accel_mm_s2: 1000.0,
            position_rate_hz: 50.0,
            loss_probability: 0.0,
            jitter_ms: 0.0,
            obstacles: Vec::new(),
            workspace: None,
        }
    }
}

/// `eyes` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawEyes {
    /// Observation packets sent per second.
    pub rate_hz: f64,
    /// Confidence reported with every flame (the brain's certainty check, e.g. 50..100).
    pub confidence: f64,
    /// A flame lights another within this distance [mm].
    pub light_radius_mm: f64,
    /// How long it must stay within that distance [s].
    pub hold_s: f64,
    /// The taper's tip relative to the arm's encoder position [mm].
    pub taper_offset_mm: [f64; 3],
    /// The source flame [mm, global]: reported first, always.
    pub source_mm: [f64; 3],
    /// When the source flame is lit (and seen) [s after start].
    pub source_lit_at_s: f64,
    /// The second candle [mm, global]; reported once lit.
    pub candle_mm: [f64; 3],
}

impl Default for RawEyes {
    fn default() -> Self {
        Self {
            rate_hz: 20.0,
            confidence: 90.0,
            light_radius_mm: 10.0,
            hold_s: 1.0,
            taper_offset_mm: [0.0, 0.0, 0.0],
            source_mm: [60.0, 40.0, 30.0],
            source_lit_at_s: 0.0,
            candle_mm: [-95.0, 30.0, 45.0],
        }
    }
}

/// The checked arm.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmSpec {
    /// Start [mm, global].
    pub start_mm: Vec3,
    /// Speed and acceleration limits.
    pub limits: Limits,
    /// Time between two encoder packets [s].
    pub position_period_s: f64,
    /// Obstacles.
    pub obstacles: Vec<Obstacle>,
    /// The box the arm works in (drawn, not enforced).
    pub workspace: Option<Workspace>,
}

/// The checked arm link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSpec {
    /// Loss probability per datagram, in [0, 1].
    pub loss_probability: f64,
    /// Largest extra delay [s].
    pub jitter_s: f64,
}

/// The checked eyes.
#[derive(Debug, Clone, PartialEq)]
pub struct EyesSpec {
    /// Time between two observation packets [s].
    pub period_s: f64,
    /// Reported confidence.
    pub confidence: f64,
    /// Lighting distance [mm].
    pub light_radius_mm: f64,
    /// Lighting hold time [s].
    pub hold_s: f64,
    /// Taper tip relative to the arm [mm].
    pub taper_offset_mm: Vec3,
    /// Source flame [mm, global].
    pub source_mm: Vec3,
    /// Source lighting time [s].
    pub source_lit_at_s: f64,
    /// Candle [mm, global].
    pub candle_mm: Vec3,
}

/// A checked scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Generator seed.
    pub seed: u64,
    /// The arm.
    pub arm: ArmSpec,
    /// The arm link.
    pub link: LinkSpec,
    /// The eyes.
    pub eyes: EyesSpec,
}

impl Default for Scenario {
    /// The flame-passing scenario: source at (60, 40, 30), candle at (−95, 30, 45).
    fn default() -> Self {
        // The defaults are valid by construction (a unit test checks it).
        match RawScenario::default().check() {
            Ok(s) => s,
            Err(e) => unreachable!("default scenario invalid: {e}"),
        }
    }
}

impl Scenario {
    /// Parses and checks JSON text.
    ///
    /// # Errors
    /// [`SimError::Json`] for syntax, types and unknown keys; the checks of
    /// [`RawScenario::check`].
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." || path == "?" {
                "(file)".to_string()
            } else {
                path
            };
            SimError::Json {
                field,
                message: e.into_inner().to_string(),
            }
        })?;
        raw.check()
    }

    /// Reads, parses and checks a file.
    ///
    /// # Errors
    /// [`SimError::Io`] if it cannot be read, else as [`Scenario::from_json`].
    pub fn load(path: &Path) -> Result<Self, SimError> {
        let text = std::fs::read_to_string(path).map_err(|e| SimError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_json(&text)
    }
}

impl RawScenario {
    /// Checks every value and converts rates to periods.
    ///
    /// # Errors
    /// The first problem found, naming its field: non-finite numbers, non-positive
    /// speeds, accelerations, radius or hold time, rates outside
    /// [[`RATE_MIN_HZ`], [`RATE_MAX_HZ`]], a loss probability outside
    /// [0, 1], negative jitter or lighting time, an empty obstacle box, a start inside
    /// an obstacle.
    pub fn check(&self) -> Result<Scenario, SimError> {
        let a = &self.arm;
        let e = &self.eyes;
        let start_mm = vector("arm.start_mm", a.start_mm)?;
        let limits = Limits {
            max_speed_mm_s: positive("arm.max_speed_mm_s", a.max_speed_mm_s)?,
            max_accel_mm_s2: positive("arm.max_accel_mm_s2", a.max_accel_mm_s2)?,
        };
        let position_period_s = 1.0
            / range(
                "arm.position_rate_hz",
                a.position_rate_hz,
                RATE_MIN_HZ,
                RATE_MAX_HZ,
            )?;
        let loss_probability = range("arm.loss_probability", a.loss_probability, 0.0, 1.0)?;
        let jitter_s = range("arm.jitter_ms", a.jitter_ms, 0.0, 10_000.0)? / 1000.0;
        for (k, o) in a.obstacles.iter().enumerate() {
            let field = format!("arm.obstacles[{k}]");
            let lo = vector(&format!("{field}.min_mm"), o.min_mm)?;
            let hi = vector(&format!("{field}.max_mm"), o.max_mm)?;
            if (0..3).any(|i| lo[i] >= hi[i]) {
                return Err(SimError::EmptyBox { field });
            }
            if o.contains(&start_mm) {
                return Err(SimError::StartInObstacle { field });
            }
        }
        if let Some(w) = &a.workspace {
            let lo = vector("arm.workspace.min_mm", w.min_mm)?;
            let hi = vector("arm.workspace.max_mm", w.max_mm)?;
            if (0..3).any(|i| lo[i] >= hi[i]) {
                return Err(SimError::EmptyBox {
                    field: "arm.workspace".into(),
                });
            }
        }
        Ok(Scenario {
            seed: self.seed,
            arm: ArmSpec {
                start_mm,
                limits,
                position_period_s,
                obstacles: a.obstacles.clone(),
                workspace: a.workspace,
            },
            link: LinkSpec {
                loss_probability,
                jitter_s,
            },
            eyes: EyesSpec {
                period_s: 1.0 / range("eyes.rate_hz", e.rate_hz, RATE_MIN_HZ, RATE_MAX_HZ)?,
                confidence: finite("eyes.confidence", e.confidence)?,
                light_radius_mm: positive("eyes.light_radius_mm", e.light_radius_mm)?,
                hold_s: range("eyes.hold_s", e.hold_s, 0.0, f64::MAX)?,
                taper_offset_mm: vector("eyes.taper_offset_mm", e.taper_offset_mm)?,
                source_mm: vector("eyes.source_mm", e.source_mm)?,
                source_lit_at_s: range("eyes.source_lit_at_s", e.source_lit_at_s, 0.0, f64::MAX)?,
                candle_mm: vector("eyes.candle_mm", e.candle_mm)?,
            },
        })
    }
}

/// The streams' rates (`arm.position_rate_hz`, `eyes.rate_hz`) are within these [Hz]:
/// a period of 1 ms to 100 s (the physics step sends at most one datagram per stream).
pub const RATE_MIN_HZ: f64 = 0.01;
/// See [`RATE_MIN_HZ`].
pub const RATE_MAX_HZ: f64 = 1000.0;

fn finite(field: &str, v: f64) -> Result<f64, SimError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(SimError::NotFinite {
            field: field.to_string(),
        })
    }
}

fn positive(field: &str, v: f64) -> Result<f64, SimError> {
    if finite(field, v)? > 0.0 {
        Ok(v)
    } else {
        Err(SimError::NotPositive {
            field: field.to_string(),
            value: v,
        })
    }
}

fn range(field: &str, v: f64, min: f64, max: f64) -> Result<f64, SimError> {
    if (min..=max).contains(&finite(field, v)?) {
        Ok(v)
    } else {
        Err(SimError::OutOfRange {
            field: field.to_string(),
            value: v,
            min,
            max,
        })
    }
}

fn vector(field: &str, v: [f64; 3]) -> Result<Vec3, SimError> {
    for (i, x) in v.iter().enumerate() {
        finite(&format!("{field}[{i}]"), *x)?;
    }
    Ok(Vec3::from(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_object_gives_the_flame_passing_defaults() {
        let s = Scenario::from_json("{}").unwrap();
        assert_eq!(s, Scenario::default());
        assert_eq!(s.eyes.source_mm, Vec3::new(60.0, 40.0, 30.0));
        assert_eq!(s.eyes.candle_mm, Vec3::new(-95.0, 30.0, 45.0));
        assert!((s.arm.position_period_s - 0.02).abs() < 1e-12);
    }

    #[test]
    fn shipped_scenario_loads() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../params/scenario_flame.json"
        );
        let s = Scenario::load(Path::new(path)).unwrap();
        // The source must be far from x = 0 and x = −100 (the task's checks on the
        // taper and the candle would otherwise match the source flame).
        assert!(s.eyes.source_mm.x.abs() > 30.0 && (s.eyes.source_mm.x + 100.0).abs() > 30.0);
    }

    #[test]
    fn errors_name_the_field() {
        let e = Scenario::from_json(r#"{"arm": {"max_speed_mm_s": 0}}"#).unwrap_err();
        assert_eq!(
            e,
            SimError::NotPositive {
                field: "arm.max_speed_mm_s".into(),
                value: 0.0
            }
        );
        let e = Scenario::from_json(r#"{"arm": {"loss_probability": 1.5}}"#).unwrap_err();
        assert!(
            matches!(e, SimError::OutOfRange { ref field, .. } if field == "arm.loss_probability")
        );
        let e = Scenario::from_json(r#"{"eyes": {"hold": 2}}"#).unwrap_err();
        assert!(
            matches!(e, SimError::Json { ref field, .. } if field == "eyes.hold"),
            "{e}"
        );
        let e = Scenario::from_json(r#"{"eyes": {"source_mm": [1, 2]}}"#).unwrap_err();
        assert!(
            matches!(e, SimError::Json { ref field, .. } if field.starts_with("eyes.source_mm")),
            "{e}"
        );
        let e = Scenario::from_json(
            r#"{"arm": {"obstacles": [{"name": "a", "min_mm": [0,0,0], "max_mm": [1,1,1]},
                                      {"name": "b", "min_mm": [0,0,0], "max_mm": [1,0,1]}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            SimError::EmptyBox {
                field: "arm.obstacles[1]".into()
            }
        );
        let e = Scenario::from_json(
            r#"{"arm": {"obstacles": [{"name": "a", "min_mm": [-1,-1,-1], "max_mm": [1,1,1]}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            SimError::StartInObstacle {
                field: "arm.obstacles[0]".into()
            }
        );
        assert!(e.to_string().contains("arm.start_mm"));
    }

    #[test]
    fn stream_rates_are_bounded() {
        for (json, field) in [
            (
                r#"{"arm": {"position_rate_hz": 1e12}}"#,
                "arm.position_rate_hz",
            ),
            (
                r#"{"arm": {"position_rate_hz": 0}}"#,
                "arm.position_rate_hz",
            ),
            (r#"{"eyes": {"rate_hz": 1e-12}}"#, "eyes.rate_hz"),
        ] {
            let e = Scenario::from_json(json).unwrap_err();
            assert!(
                matches!(e, SimError::OutOfRange { field: ref f, .. } if f == field),
                "{json}: {e}"
            );
            assert!(e.to_string().starts_with(field), "{e}");
        }
        let ok = Scenario::from_json(
            r#"{"arm": {"position_rate_hz": 1000}, "eyes": {"rate_hz": 0.01}}"#,
        );
        assert!(ok.is_ok());
    }

    #[test]
    fn workspace_is_optional_and_checked() {
        assert_eq!(Scenario::default().arm.workspace, None);
        let shipped = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../params/scenario_flame.json"
        );
        let w = Scenario::load(Path::new(shipped))
            .unwrap()
            .arm
            .workspace
            .unwrap();
        assert!((0..3).all(|i| w.min_mm[i] < w.max_mm[i]));
        let e = Scenario::from_json(
            r#"{"arm": {"workspace": {"min_mm": [0,0,0], "max_mm": [1,1,0]}}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            SimError::EmptyBox {
                field: "arm.workspace".into()
            }
        );
        let e = Scenario::from_json(r#"{"arm": {"workspace": {"min_mm": [0,0,0]}}}"#).unwrap_err();
        assert!(
            matches!(e, SimError::Json { ref field, .. } if field.starts_with("arm.workspace")),
            "{e}"
        );
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let e = Scenario::load(Path::new("/nonexistent/scenario.json")).unwrap_err();
        assert!(matches!(e, SimError::Io { .. }));
    }
}

/// A frame of the simulated world: its name and its origin in `world` \[m\] (axes
/// parallel to `world`'s).
#[derive(Debug, Clone, PartialEq)]
pub struct WorldFrame {
    /// `source_flame`, `candle`, or `obstacle_<name>` (the box's centre).
    pub name: String,
    /// Origin in `world` \[m\].
    pub origin_m: [f64; 3],
}

impl Scenario {
    /// The world's objects as frames of their own (published on `/tf_static` by the
    /// node): the source flame, the candle, each obstacle box's centre. Millimetres of
    /// the scenario become metres (REP 103).
    pub fn world_frames(&self) -> Vec<WorldFrame> {
        let m = |v: [f64; 3]| v.map(|c| c / 1000.0);
        let mut out = vec![
            WorldFrame {
                name: "source_flame".into(),
                origin_m: m(self.eyes.source_mm.into()),
            },
            WorldFrame {
                name: "candle".into(),
                origin_m: m(self.eyes.candle_mm.into()),
            },
        ];
        for o in &self.arm.obstacles {
            let centre = [0, 1, 2].map(|i| (o.min_mm[i] + o.max_mm[i]) / 2.0);
            out.push(WorldFrame {
                name: format!("obstacle_{}", o.name),
                origin_m: m(centre),
            });
        }
        out
    }
}

#[cfg(test)]
mod world_frame_tests {
    use super::*;

    #[test]
    fn the_flames_and_boxes_are_frames_in_metres() {
        let f = Scenario::default().world_frames();
        assert_eq!(f[0].name, "source_flame");
        assert_eq!(f[0].origin_m, [0.06, 0.04, 0.03]);
        assert_eq!(f[1].name, "candle");
        assert_eq!(f[1].origin_m, [-0.095, 0.03, 0.045]);
        let shipped = Scenario::from_json(include_str!("../../../params/scenario_flame.json"))
            .expect("the shipped scenario");
        let f = shipped.world_frames();
        let table = f
            .iter()
            .find(|w| w.name == "obstacle_table")
            .expect("the table");
        assert_eq!(table.origin_m, [0.0, 0.0, -0.06]);
    }
}
