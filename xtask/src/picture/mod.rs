//! The demo's picture (`out/demo.svg`, `out/demo.png`), drawn with `arnie_plot` from the
//! run record `xtask/scripts/demo_monitor.py` writes (`out/demo_run.json`) and the
//! simulator's scenario file (where the source flame, the candle and the obstacles are).
//!
//! The record (JSON; times in seconds from the moment the task was sent, from the
//! messages' header stamps):
//! ```text
//! { "task_file": "...", "outcome": "success" | "failed", "reason": "...",
//!   "truth": [ {"t_s": 0.1, "arm_mm": [x, y, z], "lit": ["source", "taper"], "blocked": false}, ... ],   // /sim/truth
//!   "brain": [ {"t_s": 0.0, "tick": 1, "active": ["lightSelf"], "paused": false}, ... ],           // RunTask feedback
//!   "obstructions": [ {"id": 1, "centre_mm": [x, y, z], "radius_mm": 60.0}, ... ],                  // /trajectory/obstructions
//!   "detours": [ [[x, y, z], ...], ... ] }                                                          // curved /trajectory/plan paths
//! ```
//! `obstructions` and `detours` are optional (every obstruction the trajectory server
//! remembered during the run; every planned path that is not a straight line).
//! `cargo xtask picture [RUN_JSON] [SCENARIO]` redraws the picture of the last run.

use crate::env::Layout;
use crate::run::Failure;
use arnie_plot::{
    Area, Axis, Colour, Figure, LegendEntry, Line, Marker, Panel, Place, Rect, Rule, Shape, Span,
};
use serde_json::Value;
use std::path::Path;

/// One /sim/truth sample.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthSample {
    pub t_s: f64,
    pub arm_mm: [f64; 3],
    pub lit: Vec<String>,
    pub blocked: bool,
}

/// One brain state (RunTask feedback).
#[derive(Debug, Clone, PartialEq)]
pub struct BrainSample {
    pub t_s: f64,
    pub active: Vec<String>,
}

/// A demo run as recorded by the monitor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub task_file: String,
    pub outcome: String,
    pub reason: String,
    pub truth: Vec<TruthSample>,
    pub brain: Vec<BrainSample>,
    /// Remembered obstructions: centre [mm], clearance radius [mm].
    pub obstructions: Vec<([f64; 3], f64)>,
    /// Detour paths the trajectory server ran [mm].
    pub detours: Vec<Vec<[f64; 3]>>,
}

/// What the scenario file says about the scene (mm, world frame).
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub source_mm: [f64; 3],
    pub candle_mm: [f64; 3],
    pub light_radius_mm: f64,
    /// Axis-aligned boxes: name, min corner, max corner.
    pub obstacles: Vec<(String, [f64; 3], [f64; 3])>,
}

fn f64_of(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

fn xyz(v: &Value) -> Option<[f64; 3]> {
    let a = v.as_array()?;
    if a.len() < 3 {
        return None;
    }
    Some([f64_of(&a[0])?, f64_of(&a[1])?, f64_of(&a[2])?])
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

impl Run {
    /// Parses a run record. Samples without a finite time or position are skipped (and
    /// counted in the returned number); a file that is not a JSON object is an error.
    pub fn parse(text: &str) -> Result<(Run, usize), String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let obj = v.as_object().ok_or("not a JSON object")?;
        let s = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let mut skipped = 0;
        let mut truth = Vec::new();
        for t in obj
            .get("truth")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match (t.get("t_s").and_then(f64_of), t.get("arm_mm").and_then(xyz)) {
                (Some(t_s), Some(arm_mm)) => truth.push(TruthSample {
                    t_s,
                    arm_mm,
                    lit: t.get("lit").map(strings).unwrap_or_default(),
                    blocked: t.get("blocked").and_then(Value::as_bool).unwrap_or(false),
                }),
                _ => skipped += 1,
            }
        }
        let mut brain = Vec::new();
        for b in obj
            .get("brain")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match b.get("t_s").and_then(f64_of) {
                Some(t_s) => brain.push(BrainSample {
                    t_s,
                    active: b.get("active").map(strings).unwrap_or_default(),
                }),
                None => skipped += 1,
            }
        }
        truth.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
        brain.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
        let mut obstructions = Vec::new();
        for o in obj
            .get("obstructions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match (
                o.get("centre_mm").and_then(xyz),
                o.get("radius_mm").and_then(f64_of),
            ) {
                (Some(c), Some(r)) if r > 0.0 => obstructions.push((c, r)),
                _ => skipped += 1,
            }
        }
        let mut detours = Vec::new();
        for d in obj
            .get("detours")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let points: Option<Vec<[f64; 3]>> = d
                .as_array()
                .map(|a| a.iter().map(xyz).collect())
                .unwrap_or(None);
            match points {
                Some(p) if p.len() >= 2 => detours.push(p),
                _ => skipped += 1,
            }
        }
        Ok((
            Run {
                task_file: s("task_file"),
                outcome: s("outcome"),
                reason: s("reason"),
                truth,
                brain,
                obstructions,
                detours,
            },
            skipped,
        ))
    }

    /// The first time `flame` is reported lit, and the index of that sample.
    pub fn first_lit(&self, flame: &str) -> Option<(usize, f64)> {
        self.truth
            .iter()
            .enumerate()
            .find(|(_, s)| s.lit.iter().any(|l| l == flame))
            .map(|(i, s)| (i, s.t_s))
    }
}

impl Scene {
    /// The scene of an arnie_sim scenario file (`eyes.source_mm`, `eyes.candle_mm`,
    /// `eyes.light_radius_mm`, `arm.obstacles`); missing keys take the simulator's defaults.
    pub fn parse(text: &str) -> Result<Scene, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let eyes = &v["eyes"];
        let obstacles = v["arm"]["obstacles"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| {
                Some((
                    o["name"].as_str().unwrap_or("obstacle").to_string(),
                    xyz(&o["min_mm"])?,
                    xyz(&o["max_mm"])?,
                ))
            })
            .collect();
        Ok(Scene {
            source_mm: xyz(&eyes["source_mm"]).unwrap_or([60.0, 40.0, 30.0]),
            candle_mm: xyz(&eyes["candle_mm"]).unwrap_or([-95.0, 30.0, 45.0]),
            light_radius_mm: f64_of(&eyes["light_radius_mm"]).unwrap_or(10.0),
            obstacles,
        })
    }
}

/// The phase a truth sample is in: 0 taper unlit, 1 carrying the flame, 2 candle lit.
fn phase(s: &TruthSample) -> usize {
    if s.lit.iter().any(|l| l == "candle") {
        2
    } else if s.lit.iter().any(|l| l == "taper") {
        1
    } else {
        0
    }
}

const PHASE_COLOURS: [Colour; 3] = [Colour::BLUE, Colour::RED, Colour::GREEN];
const PHASE_NAMES: [&str; 3] = ["taper unlit", "taper carrying the flame", "candle lit"];
const FLAME: Colour = Colour::ORANGE;
/// Remembered obstructions and the detours around them.
const DETOUR: Colour = Colour::PURPLE;
/// An obstacle smaller than this on both axes of a view is drawn in it (the table is
/// only drawn seen from the side) [mm].
const SMALL_OBSTACLE_MM: f64 = 400.0;
/// Background colours of the brain's actions (none close to the phase colours).
const ACTION_COLOURS: [Colour; 5] = [
    Colour(197, 176, 213),
    Colour(219, 219, 141),
    Colour(158, 218, 229),
    Colour(196, 156, 148),
    Colour(247, 182, 210),
];

/// The brain's actions as spans: (from, to, label), consecutive equal states merged.
pub fn action_spans(run: &Run, end_s: f64) -> Vec<(f64, f64, String)> {
    let mut spans: Vec<(f64, f64, String)> = Vec::new();
    for (i, b) in run.brain.iter().enumerate() {
        let to = run
            .brain
            .get(i + 1)
            .map(|n| n.t_s)
            .unwrap_or(end_s)
            .max(b.t_s);
        let label = if b.active.is_empty() {
            "idle".to_string()
        } else {
            b.active.join(" + ")
        };
        match spans.last_mut() {
            Some(last) if last.2 == label => last.1 = to,
            _ => spans.push((b.t_s, to, label)),
        }
    }
    spans
}

/// Speeds between consecutive samples [mm/s], at the middle of each interval.
fn speeds(truth: &[TruthSample]) -> Vec<(f64, f64, usize)> {
    truth
        .windows(2)
        .filter_map(|w| {
            let dt = w[1].t_s - w[0].t_s;
            let d = ((w[1].arm_mm[0] - w[0].arm_mm[0]).powi(2)
                + (w[1].arm_mm[1] - w[0].arm_mm[1]).powi(2)
                + (w[1].arm_mm[2] - w[0].arm_mm[2]).powi(2))
            .sqrt();
            (dt > 1e-6).then(|| ((w[0].t_s + w[1].t_s) / 2.0, d / dt, phase(&w[0])))
        })
        .collect()
}

/// Length of the `world` frame's axes drawn in both views [mm].
const WORLD_AXIS_MM: f64 = 20.0;

/// One view of the scene: axes `a` and `b` of the positions (0 = x, 1 = y, 2 = z).
fn view(run: &Run, scene: Option<&Scene>, title: &str, a: usize, b: usize) -> Panel {
    let names = ["x", "y", "z"];
    let mut p =
        Panel::new(title, Axis::new(names[a], "mm"), Axis::new(names[b], "mm")).equal_aspect();
    if let Some(sc) = scene {
        draw_obstacles_and_flames(&mut p, sc, a, b);
    }
    draw_detours(&mut p, run, a, b);
    draw_path(&mut p, run, a, b);
    draw_world_axes(&mut p, a, b);
    if let Some(sc) = scene {
        draw_source_and_candle(&mut p, sc, run.first_lit("candle").is_some(), a, b);
    }
    draw_events(&mut p, run, a, b);
    p
}

/// The obstacles seen from this side and the flames' lighting circles.
fn draw_obstacles_and_flames(p: &mut Panel, sc: &Scene, a: usize, b: usize) {
    // Obstacles seen from this side (the table under the arm shows in the side view;
    // a small box, e.g. the detour demo's, in both).
    for (_, lo, hi) in &sc.obstacles {
        let small = hi[a] - lo[a] < SMALL_OBSTACLE_MM && hi[b] - lo[b] < SMALL_OBSTACLE_MM;
        if b == 2 || small {
            p.add(
                Area::rect(lo[a], lo[b], hi[a], hi[b])
                    .fill(Colour::LIGHT_GREY, 0.8)
                    .stroke(Colour::GREY, 1.0),
            );
            // Show a strip of the obstacle's top surface under the scene.
            if !small {
                p.include(sc.source_mm[a], hi[b] - 15.0);
            }
        }
    }
    for at in [sc.source_mm, sc.candle_mm] {
        p.add(
            Area::circle(at[a], at[b], sc.light_radius_mm)
                .fill(FLAME, 0.12)
                .stroke(FLAME, 1.0)
                .dash(3.0, 2.0),
        );
    }
}

/// What the trajectory server remembered, and the detours it planned around it.
fn draw_detours(p: &mut Panel, run: &Run, a: usize, b: usize) {
    let pick = |m: &[f64; 3]| [m[a], m[b]];
    // What the trajectory server remembered, and the detours it planned around it.
    for (c, r) in &run.obstructions {
        p.add(
            Area::circle(c[a], c[b], *r)
                .fill(DETOUR, 0.10)
                .stroke(DETOUR, 1.2)
                .dash(4.0, 3.0),
        );
    }
    for d in &run.detours {
        p.add(
            Line::new(d.iter().map(pick).collect(), DETOUR)
                .width(1.5)
                .dash(5.0, 3.0),
        );
    }
}

/// The arm's path, one line per phase, and where it started and ended.
fn draw_path(p: &mut Panel, run: &Run, a: usize, b: usize) {
    let pick = |m: &[f64; 3]| [m[a], m[b]];
    // One line per phase, earlier phases wider: where the arm comes back along its way
    // (out to the source and back, unlit then lit) both colours stay visible.
    for (ph, width) in [(0, 6.0), (1, 3.0), (2, 1.8)] {
        let mut points: Vec<[f64; 2]> = Vec::new();
        for w in run.truth.windows(2) {
            if phase(&w[0]) == ph {
                if points.last() != Some(&pick(&w[0].arm_mm)) {
                    points.push([f64::NAN, f64::NAN]);
                    points.push(pick(&w[0].arm_mm));
                }
                points.push(pick(&w[1].arm_mm));
            }
        }
        p.add(Line::new(points, PHASE_COLOURS[ph]).width(width));
    }
    if let (Some(first), Some(last)) = (run.truth.first(), run.truth.last()) {
        p.add(
            Marker::new(
                first.arm_mm[a],
                first.arm_mm[b],
                Shape::TriangleUp,
                Colour::WHITE,
            )
            .size(11.0)
            .label("start", Place::Below),
        );
        if run.truth.len() > 1 {
            p.add(
                Marker::new(last.arm_mm[a], last.arm_mm[b], Shape::Square, Colour::WHITE).size(9.0),
            );
        }
    }
}

/// The TF frame `world` in this view.
fn draw_world_axes(p: &mut Panel, a: usize, b: usize) {
    let pick = |m: &[f64; 3]| [m[a], m[b]];
    // The TF frame `world` (the spine's and the sim's): its two axes in this view, 20 mm
    // long, named at their tips; the scene's objects are frames of their own
    // (`source_flame`, `candle`, `obstacle_*`), named in the legend.
    for axis in [a, b] {
        let mut tip = [0.0; 3];
        tip[axis] = WORLD_AXIS_MM;
        p.add(Line::new(vec![[0.0, 0.0], pick(&tip)], Colour::BLACK).width(1.2));
        let place = if axis == a {
            Place::Right
        } else {
            Place::Above
        };
        p.add(
            Marker::new(
                pick(&tip)[0],
                pick(&tip)[1],
                Shape::TriangleUp,
                Colour::BLACK,
            )
            .size(4.0)
            .label(["x", "y", "z"][axis], place),
        );
    }
    p.add(
        Marker::new(0.0, 0.0, Shape::Circle, Colour::BLACK)
            .size(3.0)
            .label("world", Place::Left),
    );
}

/// The source flame and the candle (filled once lit), labelled apart.
fn draw_source_and_candle(p: &mut Panel, sc: &Scene, candle_lit: bool, a: usize, b: usize) {
    let pick = |m: &[f64; 3]| [m[a], m[b]];
    let s = pick(&sc.source_mm);
    let c = pick(&sc.candle_mm);
    // Labels away from each other: the one further left goes left.
    let cp = if s[0] >= c[0] {
        Place::Left
    } else {
        Place::Right
    };
    p.add(
        Marker::new(s[0], s[1], Shape::Star, FLAME)
            .size(14.0)
            .label("source flame", Place::Above),
    );
    let fill = if candle_lit {
        FLAME
    } else {
        Colour::LIGHT_GREY
    };
    p.add(
        Marker::new(c[0], c[1], Shape::Circle, fill)
            .size(12.0)
            .label("candle", cp),
    );
}

/// Where and when the taper and the candle lit, and where the arm was blocked.
fn draw_events(p: &mut Panel, run: &Run, a: usize, b: usize) {
    let pick = |m: &[f64; 3]| [m[a], m[b]];
    // Where and when the taper and the candle lit (where the arm was at that moment).
    for (flame, shape, colour, place) in [
        ("taper", Shape::Diamond, Colour::RED, Place::Below),
        ("candle", Shape::Diamond, Colour::GREEN, Place::Above),
    ] {
        if let Some((i, t)) = run.first_lit(flame) {
            let at = pick(&run.truth[i].arm_mm);
            p.add(
                Marker::new(at[0], at[1], shape, colour)
                    .size(8.0)
                    .label(format!("{flame} lit at {t:.1} s"), place),
            );
        }
    }
    // Blocked by an obstacle: a cross where each blocked stretch began.
    let mut was_blocked = false;
    for s in &run.truth {
        if s.blocked && !was_blocked {
            let at = pick(&s.arm_mm);
            p.add(
                Marker::new(at[0], at[1], Shape::Cross, Colour::BLACK)
                    .label(format!("blocked {:.1} s", s.t_s), Place::Right),
            );
        }
        was_blocked = s.blocked;
    }
}

/// The whole picture of a run.
pub fn figure(run: &Run, scene: Option<&Scene>) -> Figure {
    let (w, h) = (1280.0, 960.0);
    let task = Path::new(&run.task_file)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let when = |flame: &str| match run.first_lit(flame) {
        Some((_, t)) => format!("{flame} lit at {t:.1} s"),
        None => format!("{flame} never lit"),
    };
    let outcome = match (run.outcome.as_str(), run.reason.as_str()) {
        ("", _) => "outcome unknown".to_string(),
        (o, "") => o.to_string(),
        (o, r) => format!("{o}: {r}"),
    };
    let mut fig = Figure::new(w, h)
        .title("arnie demo: the arm passes the flame from the source to the candle")
        .subtitle(format!(
            "task {} · {} · {} · {}   (simulated arm, ground truth; t = 0 when the task was sent)",
            if task.is_empty() { "?" } else { &task },
            when("taper"),
            when("candle"),
            outcome
        ));
    let top = Rect::new(8.0, 58.0, w - 16.0, 440.0).columns(2, 24.0);
    fig.panel(top[0], view(run, scene, "top view (looking down)", 0, 1));
    fig.panel(
        top[1],
        view(run, scene, "side view (looking along y)", 0, 2),
    );

    let mut legend = vec![
        LegendEntry::line(PHASE_COLOURS[0], "path: taper unlit"),
        LegendEntry::line(PHASE_COLOURS[1], "path: carrying the flame"),
        LegendEntry::line(PHASE_COLOURS[2], "path: after the candle lit"),
        LegendEntry::marker(Shape::Star, FLAME, "source flame (TF frame source_flame)"),
        LegendEntry::marker(
            Shape::Circle,
            FLAME,
            "candle (orange once lit; TF frame candle)",
        ),
        LegendEntry::marker(Shape::Diamond, Colour::RED, "where the taper lit"),
        LegendEntry::marker(Shape::Diamond, Colour::GREEN, "where the candle lit"),
        LegendEntry::area(FLAME, 0.25, "lighting radius"),
        LegendEntry::marker(Shape::TriangleUp, Colour::WHITE, "start"),
        LegendEntry::marker(Shape::Square, Colour::WHITE, "end"),
    ];
    if let Some(sc) = scene.filter(|s| !s.obstacles.is_empty()) {
        let names: Vec<&str> = sc.obstacles.iter().map(|(n, _, _)| n.as_str()).collect();
        legend.push(LegendEntry::area(
            Colour::LIGHT_GREY,
            0.8,
            format!("obstacle ({})", names.join(", ")),
        ));
    }
    if !run.obstructions.is_empty() {
        legend.push(LegendEntry::area(
            DETOUR,
            0.25,
            "obstruction the arm remembered",
        ));
    }
    if !run.detours.is_empty() {
        legend.push(LegendEntry::dashed(DETOUR, "detour planned around it"));
    }

    // The speed profile with the brain's actions along it.
    let end_s = run
        .truth
        .last()
        .map(|s| s.t_s)
        .into_iter()
        .chain(run.brain.last().map(|b| b.t_s))
        .fold(f64::NAN, f64::max);
    let start_s = run
        .truth
        .first()
        .map(|s| s.t_s)
        .into_iter()
        .chain(run.brain.first().map(|b| b.t_s))
        .fold(f64::NAN, f64::min);
    let time_axis = if start_s.is_finite() && end_s > start_s {
        Axis::new("time", "s").range(start_s, end_s)
    } else {
        Axis::new("time", "s")
    };
    let mut speed = Panel::new(
        "arm speed, with the brain's running action shaded",
        time_axis,
        Axis::new("speed", "mm/s"),
    );
    let spans = action_spans(run, if end_s.is_finite() { end_s } else { 0.0 });
    let mut action_colours: Vec<(String, Colour)> = Vec::new();
    for (from, to, label) in &spans {
        let colour = match action_colours.iter().find(|(l, _)| l == label) {
            Some((_, c)) => *c,
            None => {
                let c = if label == "idle" {
                    Colour::LIGHT_GREY
                } else {
                    ACTION_COLOURS[action_colours.len() % ACTION_COLOURS.len()]
                };
                action_colours.push((label.clone(), c));
                c
            }
        };
        speed.add(
            Span::new(*from, *to, colour)
                .opacity(0.55)
                .label(label.clone()),
        );
    }
    let v = speeds(&run.truth);
    let points: Vec<[f64; 2]> = v.iter().map(|(t, s, _)| [*t, *s]).collect();
    let colours: Vec<Colour> = v.iter().map(|(_, _, ph)| PHASE_COLOURS[*ph]).collect();
    speed.include(start_s, 0.0);
    speed.add(Line::per_segment(points, colours).width(2.0).dots());
    for (flame, colour) in [("taper", Colour::RED), ("candle", Colour::GREEN)] {
        if let Some((_, t)) = run.first_lit(flame) {
            speed.add(Rule::vertical(t, colour).label(format!("{flame} lit {t:.1} s")));
        }
    }
    legend.extend(
        action_colours
            .iter()
            .map(|(l, c)| LegendEntry::area(*c, 0.55, format!("brain action: {l}"))),
    );
    if action_colours.is_empty() {
        legend.push(LegendEntry::area(
            Colour::WHITE,
            0.0,
            "(no brain states recorded)",
        ));
    }
    fig.legend(Rect::new(24.0, 504.0, w - 48.0, 56.0), legend);
    fig.panel(Rect::new(8.0, 562.0, w - 16.0, 370.0), speed);
    fig.note(
        16.0,
        h - 10.0,
        11.0,
        format!(
            "Path and speed: /sim/truth ({} samples; speed from consecutive positions). Actions: the brain's RunTask feedback ({} states). Phases: {}.",
            run.truth.len(),
            run.brain.len(),
            PHASE_NAMES.join(" → ")
        ),
    );
    fig
}

/// Reads the run record and the scenario, writes `svg` and `png`. A missing or unreadable
/// scenario only loses the scene markers (said on stderr); fonts are arnie_plot's business
/// (no font: a PNG without text, said on stderr).
pub fn draw(
    run_json: &Path,
    scenario: Option<&Path>,
    svg: &Path,
    png: &Path,
) -> Result<(), Failure> {
    let text = std::fs::read_to_string(run_json)
        .map_err(|e| Failure::new(format!("{}: {e}", run_json.display())))?;
    let (run, skipped) =
        Run::parse(&text).map_err(|e| Failure::new(format!("{}: {e}", run_json.display())))?;
    if skipped > 0 {
        eprintln!(
            "xtask: picture: {skipped} samples of {} had no time or position (skipped)",
            run_json.display()
        );
    }
    let scene = scenario.and_then(|p| {
        match std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| Scene::parse(&t))
        {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!(
                    "xtask: picture: scenario {}: {e} (drawn without the scene)",
                    p.display()
                );
                None
            }
        }
    });
    let fig = figure(&run, scene.as_ref());
    let rendered = arnie_plot::write_both(&fig, svg, png, 1.0)
        .map_err(|e| Failure::new(format!("picture: {e}")))?;
    if rendered.font.is_none() {
        eprintln!(
            "xtask: picture: no font found: {} has no text ({} has)",
            png.display(),
            svg.display()
        );
    }
    Ok(())
}

/// `cargo xtask picture [RUN_JSON] [SCENARIO]`: draws `out/demo.svg` and `out/demo.png`.
pub fn cmd(layout: &Layout, rest: &[String]) -> Result<(), Failure> {
    let out = layout.root.join("out");
    let record = rest
        .first()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| out.join("demo_run.json"));
    let scenario = rest
        .get(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| layout.root.join("params/scenario_flame.json"));
    let (svg, png) = (out.join("demo.svg"), out.join("demo.png"));
    std::fs::create_dir_all(&out)?;
    draw(&record, Some(&scenario), &svg, &png)?;
    eprintln!("xtask: picture: {} and {}", svg.display(), png.display());
    Ok(())
}

#[cfg(test)]
mod tests;
