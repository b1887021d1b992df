//! The detour planner end to end: clearance of the sampled motion (checked here with
//! distance functions of the test's own, every ≤ 1 mm along every step), continuity at
//! the via-points, the straight golden, no path, budget, and the demo scene.

use arnie_trajectory::{
    minjerk, plan_motion, plan_motion_with, plan_path, Contact, ContactModel, DetourConfig,
    DetourMotion, FixedBox, ObstructionConfig, ObstructionMemory, PlanOptions, RawDetourConfig,
    Scene, Smoothing, TrajectoryError, Workspace,
};
use nalgebra::{Point3, Vector3};
use proptest::prelude::*;

mod scenes;
use scenes::{cluttered, demo_scene, p, sphere, CANDLE, SOURCE};

/// Signed distance to a box, written independently of the library.
fn box_distance(b: &FixedBox, q: Point3<f64>) -> f64 {
    let mut outside = 0.0f64;
    let mut deepest = f64::NEG_INFINITY;
    for i in 0..3 {
        let below = b.min_mm[i] - q[i];
        let above = q[i] - b.max_mm[i];
        let e = below.max(above);
        outside += e.max(0.0).powi(2);
        deepest = deepest.max(e);
    }
    if deepest > 0.0 {
        outside.sqrt()
    } else {
        deepest
    }
}

/// Every obstacle of the scene as (distance function value at q, clearance).
fn distances(scene: &Scene, config: &DetourConfig, q: Point3<f64>) -> Vec<(f64, f64)> {
    scene
        .boxes
        .iter()
        .map(|b| (box_distance(b, q), config.box_clearance_mm()))
        .chain(
            scene
                .obstructions
                .iter()
                .map(|o| ((q - o.centre_mm).norm(), o.radius_mm)),
        )
        .collect()
}

/// The points of `path`, with every step between two consecutive points cut into
/// pieces of at most 1 mm.
fn dense(path: &[Point3<f64>]) -> Vec<Point3<f64>> {
    let mut out = vec![path[0]];
    for w in path.windows(2) {
        let n = ((w[1] - w[0]).norm().ceil() as usize).max(1);
        for k in 1..=n {
            out.push(w[0] + (w[1] - w[0]) * (k as f64 / n as f64));
        }
    }
    out
}

/// The path stays in the workspace and out of every clearance; for an obstacle whose
/// clearance holds the start, the distance never decreases while inside and, once out,
/// the path stays out.
fn assert_clear(scene: &Scene, config: &DetourConfig, path: &[Point3<f64>]) {
    const EPS: f64 = 1e-6;
    let pts = dense(path);
    let lo = scene.workspace.min_mm();
    let hi = scene.workspace.max_mm();
    let mut prev = distances(scene, config, pts[0]);
    let mut escaping: Vec<bool> = prev.iter().map(|(f, c)| f < c).collect();
    for (k, q) in pts.iter().enumerate() {
        for i in 0..3 {
            assert!(
                lo[i] - EPS <= q[i] && q[i] <= hi[i] + EPS,
                "point {k} {q} outside the workspace"
            );
        }
        let now = distances(scene, config, *q);
        for (j, ((f, c), (f0, _))) in now.iter().zip(&prev).enumerate() {
            if escaping[j] {
                assert!(
                    *f >= f0 - EPS,
                    "point {k} {q}: moved towards obstacle {j} ({f0} → {f}) inside its clearance"
                );
                if f >= c {
                    escaping[j] = false;
                }
            } else {
                assert!(
                    *f >= c - EPS,
                    "point {k} {q}: inside the clearance of obstacle {j} ({f} < {c})"
                );
            }
        }
        prev = now;
    }
}

/// Position, velocity and acceleration agree from both sides of every via-point.
fn assert_c2(m: &DetourMotion) {
    let Some(spline) = &m.spline else { return };
    let n = spline.points().len();
    let scale = spline.polyline_length_mm().max(1.0);
    for i in 1..n - 1 {
        let s = spline.via_time(i);
        let (l, r) = (
            spline.state_on_segment(i - 1, s),
            spline.state_on_segment(i, s),
        );
        assert!((l.position - r.position).norm() <= 1e-9 * scale, "p at {i}");
        assert!((l.velocity - r.velocity).norm() <= 1e-8 * scale, "v at {i}");
        assert!(
            (l.acceleration - r.acceleration).norm() <= 1e-7 * scale,
            "a at {i}"
        );
        // Not stop-and-go: the arm passes the via-point moving.
        assert!(l.velocity.norm() > 0.0, "stops at {i}");
    }
    let (a, b) = (spline.state(0.0), spline.state(1.0));
    assert_eq!(a.velocity, Vector3::zeros());
    assert_eq!(b.acceleration, Vector3::zeros());
}

/// The scene without the learned regions `ids` (what the way in of an approach, or a
/// probe, is allowed to enter).
fn without(scene: &Scene, ids: &[u64]) -> Scene {
    let mut s = scene.clone();
    s.obstructions.retain(|o| !ids.contains(&o.id));
    s
}

fn check_motion(scene: &Scene, config: &DetourConfig, m: &DetourMotion, factor: u32) {
    let start = m.path.points[0];
    let target = *m.path.points.last().unwrap();
    assert_eq!(m.samples[0], start);
    assert_eq!(*m.samples.last().unwrap(), target);
    // A probe keeps the fixed boxes and the workspace only.
    let probed: Vec<u64> = m.path.probe.clone();
    let scene = &if probed.is_empty() {
        scene.clone()
    } else {
        let all: Vec<u64> = scene.obstructions.iter().map(|o| o.id).collect();
        without(scene, &all)
    };
    match &m.path.approach {
        None => {
            assert_clear(scene, config, &m.path.points);
            assert_clear(scene, config, &m.samples);
            assert_c2(m);
            if let Smoothing::Spline { .. } = m.smoothing {
                // N = ceil(polyline length) · factor, as a straight move of that length.
                let n = (m.path.length_mm().ceil() as usize) * factor as usize;
                assert_eq!(m.samples.len(), n + 1);
            }
        }
        Some(a) => {
            // Up to the staging point: everything; the way in: everything but the regions
            // it enters; and never along the way the arm was stopped there.
            let n = m.path.points.len();
            assert_eq!(m.path.points[n - 2], a.from_mm);
            assert_clear(scene, config, &m.path.points[..n - 1]);
            let k = m.samples.iter().rposition(|p| *p == a.from_mm).unwrap();
            assert_clear(scene, config, &m.samples[..=k]);
            let rest = without(scene, &a.into);
            assert_clear(&rest, config, &m.samples[k..]);
            let way_in = -a.side;
            for o in scene.obstructions.iter().filter(|o| a.into.contains(&o.id)) {
                assert!(
                    way_in.dot(&o.direction) < 0.5,
                    "{a:?} along {:?}",
                    o.direction
                );
                assert!(o.contains(target));
                assert!(!o.contains(a.from_mm));
            }
        }
    }
}

// ----- The demo scene (params/scenario_flame.json, with a wall between source and candle)

/// Prints the detour against the straight line (`cargo test -- --nocapture`).
fn report(scene: &str, cells: &str, m: &DetourMotion) {
    println!(
        "{scene}: detour {:.1} mm vs straight {:.1} mm, {} via-points, {} {cells}, {:?}",
        m.path.length_mm(),
        m.path.straight_length_mm(),
        m.path.via_points().len(),
        m.path.expanded,
        m.smoothing
    );
}

/// Where the arm moving from the source to the candle meets the wall's face, and the
/// set-point 25 mm ahead of it (where the obstruction is recorded).
fn demo_stop() -> (Point3<f64>, Point3<f64>) {
    let (s, c) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let dir = (c - s).normalize();
    let t = (-10.0 - s.x) / (c.x - s.x);
    let stop = s + (c - s) * t;
    (stop, stop + dir * 25.0)
}

#[test]
fn demo_from_the_stop_point_around_the_wall() {
    let mut scene = demo_scene();
    let (stop, ahead) = demo_stop();
    scene.obstructions.push(sphere(1, ahead, 50.0));
    let config = DetourConfig::default();
    let target = Point3::from(CANDLE);
    let m = plan_motion(&scene, &config, stop, target, 1).unwrap();
    check_motion(&scene, &config, &m, 1);
    assert!(!m.path.is_straight());
    report("demo", "cells expanded", &m);
    // And from the source, with the wall known: no need to be stopped first.
    let m = plan_motion(&demo_scene(), &config, Point3::from(SOURCE), target, 1).unwrap();
    check_motion(&demo_scene(), &config, &m, 1);
    println!(
        "demo from the source: detour {:.1} mm vs straight {:.1} mm ({} via-points)",
        m.path.length_mm(),
        m.path.straight_length_mm(),
        m.path.via_points().len()
    );
}

#[test]
fn nothing_in_the_way_is_todays_straight_move() {
    let config = DetourConfig::default();
    let (s, t) = (Point3::from(SOURCE), p(150.0, 150.0, 150.0));
    for factor in [1, 3] {
        let m = plan_motion(&demo_scene(), &config, s, t, factor).unwrap();
        assert_eq!(m.smoothing, Smoothing::Straight);
        assert_eq!(m.path.points, vec![s, t]);
        assert_eq!(m.path.expanded, 0);
        assert_eq!(m.samples, minjerk::plan(s, t, factor));
    }
}

#[test]
fn a_box_closing_the_workspace_is_no_detour() {
    let mut scene = demo_scene();
    scene
        .boxes
        .push(FixedBox::new("closing", p(-40.0, -150.0, -50.0), p(-30.0, 250.0, 250.0)).unwrap());
    let config = DetourConfig::default();
    let e = plan_path(&scene, &config, Point3::from(SOURCE), Point3::from(CANDLE)).unwrap_err();
    let TrajectoryError::NoDetour { expanded, .. } = e else {
        panic!("{e:?}")
    };
    assert!(expanded > 100, "{expanded}");
    assert!(e.to_string().contains("no detour exists"), "{e}");
}

#[test]
fn the_budget_is_its_own_error() {
    let config = DetourConfig::try_from(RawDetourConfig {
        max_expansions: 5,
        ..RawDetourConfig::default()
    })
    .unwrap();
    let e = plan_path(
        &demo_scene(),
        &config,
        Point3::from(SOURCE),
        Point3::from(CANDLE),
    )
    .unwrap_err();
    assert_eq!(e, TrajectoryError::DetourBudgetExceeded { budget: 5 });
    assert!(e.to_string().contains("budget of 5"), "{e}");
}

/// A learned region around the candle, touched moving from the source towards it: the
/// candle is approached from another side, never refused.
#[test]
fn a_target_inside_a_learned_region_is_approached_from_another_side() {
    let mut scene = demo_scene();
    scene.boxes.truncate(1); // the table only
    let (source, candle) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let d = (candle - source).normalize();
    let mut o = sphere(4, candle + d * 5.0, 30.0);
    o.direction = d;
    o.size_mm = 20.0;
    scene.obstructions.push(o);
    let config = DetourConfig::default();
    let m = plan_motion(&scene, &config, source, candle, 1).unwrap();
    let a = m.path.approach.clone().expect("approached");
    assert!((-a.side).dot(&d) < 0.5, "{a:?}");
    check_motion(&scene, &config, &m, 1);
    println!(
        "approach: from side {:?}, {} via-points, {:.1} mm",
        a.side,
        m.path.via_points().len(),
        m.path.length_mm()
    );
}

/// No side leads in: the answer names the learned region and every side tried.
#[test]
fn no_approach_names_the_region_and_the_ways_tried() {
    let t = p(0.0, 0.0, 100.0);
    // A workspace hardly larger than the region: every staging point is outside it.
    let mut scene =
        Scene::new(Workspace::new(p(-25.0, -25.0, 75.0), p(25.0, 25.0, 125.0)).unwrap());
    let mut o = sphere(9, t + Vector3::new(-5.0, 0.0, 0.0), 30.0);
    o.direction = Vector3::new(-1.0, 0.0, 0.0);
    scene.obstructions.push(o);
    let e = plan_path(&scene, &DetourConfig::default(), p(20.0, 0.0, 100.0), t).unwrap_err();
    let TrajectoryError::NoApproach { inside, tried, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(inside.contains("learned obstruction 9"), "{inside}");
    assert!(tried.contains("outside the workspace"), "{tried}");
    assert!(tried.contains("the way the arm was stopped"), "{tried}");
    assert!(e.to_string().contains("no approach to the target"), "{e}");
    println!("{e}");
    // With a probe, the goal is not refused either.
    let m = plan_motion_with(
        &scene,
        &DetourConfig::default(),
        p(20.0, 0.0, 100.0),
        t,
        1,
        PlanOptions { probe: true },
    )
    .unwrap();
    assert_eq!(m.path.probe, vec![9]);
}

#[test]
fn memory_feeds_the_scene_and_expired_ones_no_longer_block() {
    let mut memory =
        ObstructionMemory::new(ObstructionConfig::new(1000, 4, ContactModel::default()).unwrap());
    let (stop, ahead) = demo_stop();
    let contact = Contact {
        measured_mm: stop,
        expected_mm: ahead,
        moving: true,
        speed_mm_s: 100.0,
        period_ms: 10,
    };
    let ws = demo_scene().workspace;
    memory
        .learn(&contact.region(&ContactModel::default(), &ws).unwrap(), 0)
        .unwrap();
    let mut scene = Scene::new(ws);
    scene.obstructions = memory.iter().copied().collect();
    let config = DetourConfig::default();
    let target = p(-120.0, 30.0, 45.0);
    let m = plan_path(&scene, &config, stop, target).unwrap();
    assert!(
        !m.is_straight(),
        "the remembered obstruction is on the line"
    );
    assert_eq!(memory.expire(1000).len(), 1);
    scene.obstructions = memory.iter().copied().collect();
    assert!(plan_path(&scene, &config, stop, target)
        .unwrap()
        .is_straight());
}

/// The cluttered scene of the bench: 20 obstructions between the two points.
#[test]
fn cluttered_scene() {
    let (scene, s, t) = cluttered();
    let config = DetourConfig::default();
    let m = plan_motion(&scene, &config, s, t, 1).unwrap();
    check_motion(&scene, &config, &m, 1);
    report("cluttered", "cells", &m);
}

// ----- Properties

fn coord(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    lo..hi
}

fn point() -> impl Strategy<Value = Point3<f64>> {
    (
        coord(-300.0, 300.0),
        coord(-300.0, 300.0),
        coord(0.0, 400.0),
    )
        .prop_map(|(x, y, z)| Point3::new(x, y, z))
}

fn random_box() -> impl Strategy<Value = FixedBox> {
    (
        point(),
        coord(10.0, 150.0),
        coord(10.0, 150.0),
        coord(10.0, 150.0),
    )
        .prop_map(|(c, sx, sy, sz)| {
            let half = Vector3::new(sx, sy, sz) / 2.0;
            FixedBox::new("random", c - half, c + half).unwrap()
        })
}

/// A scene, a start and a target, with obstacles placed on and around the straight line
/// (so that most cases need a detour) and a few anywhere.
fn random_case() -> impl Strategy<Value = (Scene, Point3<f64>, Point3<f64>)> {
    (point(), point()).prop_flat_map(|(start, target)| {
        let on_line = (
            coord(0.1, 0.9),
            point(),
            coord(0.0, 60.0),
            coord(20.0, 90.0),
        )
            .prop_map(move |(t, dir, off, r)| {
                let c = start + (target - start) * t + dir.coords.normalize() * off;
                (c, r)
            });
        let box_on_line = (coord(0.2, 0.8), random_box()).prop_map(move |(t, b)| {
            let shift = start + (target - start) * t - nalgebra::center(&b.min_mm, &b.max_mm);
            FixedBox::new("on the line", b.min_mm + shift, b.max_mm + shift).unwrap()
        });
        (
            proptest::collection::vec(on_line, 0..6),
            proptest::collection::vec((point(), coord(20.0, 90.0)), 0..5),
            proptest::collection::vec(box_on_line, 0..2),
            proptest::collection::vec(random_box(), 0..2),
        )
            .prop_map(move |(line, anywhere, line_boxes, boxes)| {
                let mut scene = Scene::new(
                    Workspace::new(p(-300.0, -300.0, 0.0), p(300.0, 300.0, 400.0)).unwrap(),
                );
                scene.boxes = line_boxes.into_iter().chain(boxes).collect();
                scene.obstructions = line
                    .into_iter()
                    .chain(anywhere)
                    .enumerate()
                    .map(|(i, (c, r))| sphere(i as u64 + 1, c, r))
                    .collect();
                (scene, start, target)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Whatever the scene, a planned motion (samples and every step between them) and
    /// its polyline keep every clearance and the workspace, are C² at the via-points, and
    /// a refusal or failure is one of the documented errors. The start may be inside a
    /// clearance (it must then leave it).
    #[test]
    fn planned_motions_keep_every_clearance(
        (scene, start, target) in random_case(),
        factor in 1u32..3,
    ) {
        let config = DetourConfig::try_from(RawDetourConfig {
            resolution_mm: 25.0,
            ..RawDetourConfig::default()
        })
        .unwrap();
        match plan_motion(&scene, &config, start, target, factor) {
            Ok(m) => {
                check_motion(&scene, &config, &m, factor);
                if m.path.is_straight() {
                    prop_assert_eq!(&m.samples, &minjerk::plan(start, target, factor));
                }
            }
            Err(TrajectoryError::TargetBlocked { .. }) => {
                // Only a fixed box refuses a target.
                let boxes = without(&scene, &scene.obstructions.iter().map(|o| o.id).collect::<Vec<_>>());
                let blocked = distances(&boxes, &config, target).iter().any(|(f, c)| f < c);
                prop_assert!(blocked);
            }
            Err(
                TrajectoryError::NoDetour { .. }
                | TrajectoryError::DetourBudgetExceeded { .. }
                | TrajectoryError::NoApproach { .. },
            ) => {}
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    /// With no obstacle at all, the motion is exactly today's straight move.
    #[test]
    fn empty_scene_is_the_golden_straight_move(start in point(), target in point(), factor in 1u32..4) {
        let scene = Scene::new(Workspace::new(p(-300.0, -300.0, 0.0), p(300.0, 300.0, 400.0)).unwrap());
        let m = plan_motion(&scene, &DetourConfig::default(), start, target, factor).unwrap();
        prop_assert_eq!(m.smoothing, Smoothing::Straight);
        prop_assert_eq!(m.samples, minjerk::plan(start, target, factor));
    }

    /// Complete at the grid's resolution: whenever a path exists on the planner's grid
    /// graph (its lattice, 26 neighbours, the start linked to the cells around its
    /// nearest cell and the cells around the target's to the target), here found by a
    /// breadth-first search of the test's own that asks 0.5 mm more of every edge
    /// (checked every 0.25 mm), the planner finds one.
    #[test]
    fn a_path_is_found_whenever_the_grid_has_one(
        (scene, start, target) in random_case(),
    ) {
        let config = DetourConfig::try_from(RawDetourConfig {
            resolution_mm: 40.0,
            max_expansions: 1_000_000,
            ..RawDetourConfig::default()
        })
        .unwrap();
        let clear = |q: Point3<f64>, extra: f64| {
            distances(&scene, &config, q).iter().all(|(f, c)| *f >= c + extra)
        };
        prop_assume!(clear(start, 1.0) && clear(target, 1.0));
        let exists = grid_path_exists(&scene, &config, start, target, &|q| clear(q, 0.5));
        match plan_path(&scene, &config, start, target) {
            Ok(path) => check_motion_free(&scene, &config, &path.points),
            Err(e) => prop_assert!(!exists, "the grid has a path, the planner said {e}"),
        }
    }
}

fn check_motion_free(scene: &Scene, config: &DetourConfig, points: &[Point3<f64>]) {
    assert_clear(scene, config, points);
}

/// Breadth-first search on the planner's grid graph (module doc of the planner, step 3),
/// written again: `free(q)` must hold every 0.25 mm along each edge.
fn grid_path_exists(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    free: &dyn Fn(Point3<f64>) -> bool,
) -> bool {
    let (lo, hi) = (scene.workspace.min_mm(), scene.workspace.max_mm());
    let res = config.resolution_mm();
    let mut origin = lo;
    let mut dims = [0i64; 3];
    for i in 0..3 {
        let size = hi[i] - lo[i];
        let inset = config.smoothing_margin_mm().min(size / 2.0);
        origin[i] += inset;
        dims[i] = ((size - 2.0 * inset) / res).floor() as i64 + 1;
    }
    let point = |c: [i64; 3]| {
        Point3::new(
            origin.x + res * c[0] as f64,
            origin.y + res * c[1] as f64,
            origin.z + res * c[2] as f64,
        )
    };
    let nearest = |p: Point3<f64>| {
        let mut c = [0i64; 3];
        for i in 0..3 {
            c[i] = (((p[i] - origin[i]) / res).round().max(0.0) as i64).min(dims[i] - 1);
        }
        c
    };
    let edge = |a: Point3<f64>, b: Point3<f64>| {
        let n = ((b - a).norm() / 0.25).ceil().max(1.0) as usize;
        (0..=n).all(|k| free(a + (b - a) * (k as f64 / n as f64)))
    };
    let around = |c: [i64; 3]| {
        let mut v = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let n = [c[0] + dx, c[1] + dy, c[2] + dz];
                    if (0..3).all(|i| n[i] >= 0 && n[i] < dims[i]) {
                        v.push(n);
                    }
                }
            }
        }
        v
    };
    let goal = nearest(target);
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::new();
    for c in around(nearest(start)) {
        if edge(start, point(c)) && seen.insert(c) {
            queue.push_back(c);
        }
    }
    while let Some(c) = queue.pop_front() {
        let here = point(c);
        if (0..3).all(|i| (c[i] - goal[i]).abs() <= 1) && edge(here, target) {
            return true;
        }
        for n in around(c) {
            if n != c && !seen.contains(&n) && edge(here, point(n)) {
                seen.insert(n);
                queue.push_back(n);
            }
        }
    }
    false
}
