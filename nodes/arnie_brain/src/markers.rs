//! What the brain draws on `brain/markers` (metres, frame `world`), as plain
//! [`arnie_markers::Marker`]s; the glue stamps and publishes them.
//!
//! | namespace | id | shape | what |
//! | --- | --- | --- | --- |
//! | `observations` | i | sphere | observation i as the brain gets it; opacity = confidence / 100 (in [0.15, 1]; 1 without one) |
//! | `target` | 0 | sphere | the target the last tick commanded |
//! | `variables` | k | sphere | captured variable k (`start,0,0`, …) at its point |
//! | `variable_labels` | k | text | its name above it |
//! | `actions` | 0 | text | the running actions (`name step s/n`), the status, the last decision |
//!
//! Everything lives `lifetime_s`, so the picture vanishes soon after the node stops.

use arnie_markers::{Marker, Rgba};
use nalgebra::Point3;

use crate::decide::Observation;
use crate::snapshot::Snapshot;
use crate::status::Status;

/// Colour of an observation (its opacity is the confidence).
pub const OBSERVATION: Rgba = Rgba::rgb(1.0, 0.85, 0.1);
/// Colour of the commanded target.
pub const TARGET: Rgba = Rgba::rgb(0.1, 0.9, 0.3);
/// Colour of a captured variable.
pub const VARIABLE: Rgba = Rgba::rgb(0.75, 0.3, 0.95);
/// Where the actions text is [m]: above the scene.
pub const ACTIONS_AT_M: [f64; 3] = [0.0, 0.0, 0.15];

const TEXT_M: f64 = 0.01;

/// Opacity for a confidence on the eyes' 0..100 scale.
pub fn alpha(confidence: Option<f64>) -> f32 {
    match confidence {
        Some(c) if c.is_finite() => (c / 100.0).clamp(0.15, 1.0) as f32,
        Some(_) => 0.15,
        None => 1.0,
    }
}

/// The brain's markers: the last run's `snapshot` (none before the first run), the
/// observations `seen` now (instructions units), `m_per_unit` metres per unit.
pub fn brain_markers(
    snapshot: Option<&Snapshot>,
    seen: &[Observation],
    m_per_unit: f64,
    lifetime_s: f64,
) -> Vec<Marker> {
    let m = |p: Point3<f64>| [p.x * m_per_unit, p.y * m_per_unit, p.z * m_per_unit];
    let finite = |p: &[f64; 3]| p.iter().all(|v| v.is_finite());
    let mut out = Vec::new();
    for (i, o) in seen.iter().enumerate() {
        let p = m(o.position_mm);
        if finite(&p) {
            let id = i32::try_from(i).unwrap_or(i32::MAX);
            out.push(Marker::sphere(
                "observations",
                id,
                p,
                0.014,
                OBSERVATION.with_alpha(alpha(o.confidence)),
            ));
        }
    }
    if let Some(s) = snapshot {
        if let Some(t) = s.target_mm.map(m).filter(finite) {
            out.push(Marker::sphere("target", 0, t, 0.01, TARGET));
        }
        for (k, v) in s.variables.iter().enumerate() {
            let [x, y, z, ..] = v.values[..] else {
                continue;
            };
            let p = m(Point3::new(x, y, z));
            if !finite(&p) {
                continue;
            }
            let id = i32::try_from(k).unwrap_or(i32::MAX);
            out.push(Marker::sphere(
                "variables",
                id,
                p,
                0.01,
                VARIABLE.with_alpha(0.8),
            ));
            let above = [p[0], p[1], p[2] + 0.012];
            out.push(Marker::text(
                "variable_labels",
                id,
                above,
                TEXT_M,
                v.name.clone(),
                VARIABLE,
            ));
        }
        out.push(Marker::text(
            "actions",
            0,
            ACTIONS_AT_M,
            TEXT_M,
            actions_text(s),
            Rgba::rgb(1.0, 1.0, 1.0),
        ));
    }
    for marker in &mut out {
        marker.lifetime_s = lifetime_s;
    }
    out
}

/// The text of the `actions` marker: one line per running action, then the status.
pub fn actions_text(s: &Snapshot) -> String {
    let mut lines: Vec<String> = s
        .active
        .iter()
        .map(|a| {
            let retries = a.counted();
            let mut line = format!("{} step {}/{}", a.name, a.step + 1, a.steps);
            if retries > 0 {
                line += &format!(" (retries {retries})");
            }
            line
        })
        .collect();
    let status = match s.status {
        Status::Running if s.paused => "paused: the arm position is stale",
        Status::Running => "running",
        Status::Finished => "finished",
        Status::TickLimit => "tick limit reached",
        Status::Cancelled => "cancelled",
    };
    lines.push(format!("tick {}: {status}", s.tick));
    if !s.last_decision.is_empty() {
        lines.push(s.last_decision.clone());
    }
    lines.join("\n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::Brain;

    /// One action `a`: a fixed step then a step to variable `a,0,0`, and one decision
    /// that always passes and captures it (shared with `ros::state`'s tests).
    pub(crate) const TASK: &str = r#"{"initialAction": "a", "actions": {"a": {
        "trajectory": [{"x": 10, "y": 20, "z": 30}, {"x": "a,0,0", "y": 0, "z": 0}],
        "decisions": [{"executeAfter": 0,
            "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": [{"x": -1, "y": -1, "z": -1}]},
            "success": {"action": "a", "delay": 5}, "fail": {"action": "a", "delay": 5}}]}}}"#;

    fn find<'a>(ms: &'a [Marker], ns: &str, id: i32) -> Option<&'a Marker> {
        ms.iter().find(|x| x.ns == ns && x.id == id)
    }

    #[test]
    fn observations_only_before_a_run_with_confidence_as_alpha() {
        let seen = [
            Observation::at(80.0, 60.0, 40.0).with_confidence(90.0),
            Observation::at(0.0, 0.0, 0.0),
        ];
        let ms = brain_markers(None, &seen, 0.001, 1.0);
        assert_eq!(ms.len(), 2);
        let o = find(&ms, "observations", 0).unwrap();
        assert!((o.position[0] - 0.08).abs() < 1e-12);
        assert!((o.colour.a - 0.9).abs() < 1e-6);
        assert_eq!(find(&ms, "observations", 1).unwrap().colour.a, 1.0);
        assert_eq!(alpha(Some(1.0)), 0.15);
        assert_eq!(alpha(Some(f64::NAN)), 0.15);
        assert!(ms.iter().all(|x| x.lifetime_s == 1.0));
    }

    #[test]
    fn target_variables_and_actions_follow_the_run() {
        let mut b = Brain::from_json(TASK).unwrap();
        b.tick(Some(Point3::origin()), &[]);
        let ms = brain_markers(Some(&b.state()), &[], 0.001, 0.5);
        let t = find(&ms, "target", 0).unwrap();
        assert!((t.position[2] - 0.03).abs() < 1e-12);
        assert!(find(&ms, "variables", 0).is_none());
        assert_eq!(
            find(&ms, "actions", 0).unwrap().text,
            "a step 1/2\ntick 1: running"
        );

        let seen = [Observation::at(5.0, 6.0, 7.0).with_confidence(80.0)];
        b.tick(Some(Point3::new(10.0, 20.0, 30.0)), &seen);
        let ms = brain_markers(Some(&b.state()), &seen, 0.001, 0.5);
        let names: Vec<&str> = ms
            .iter()
            .filter(|x| x.ns == "variable_labels")
            .map(|x| x.text.as_str())
            .collect();
        assert!(names.contains(&"a,0,0"), "{names:?}");
        let k = ms
            .iter()
            .find(|x| x.ns == "variable_labels" && x.text == "a,0,0")
            .unwrap()
            .id;
        let v = find(&ms, "variables", k).unwrap();
        assert!((v.position[0] - 0.005).abs() < 1e-12 && (v.position[2] - 0.007).abs() < 1e-12);
        assert!(find(&ms, "actions", 0)
            .unwrap()
            .text
            .contains("a.decisions[0]: success"));
    }
}
