use super::*;
use crate::minjerk;
use nalgebra::Vector3;

fn ws() -> Workspace {
    Workspace::new(
        Point3::new(-400.0, -400.0, 0.0),
        Point3::new(400.0, 400.0, 600.0),
    )
    .unwrap()
}

fn sphere(id: u64, c: Point3<f64>, r: f64) -> KnownObstruction {
    KnownObstruction::permanent(id, c, r)
}

#[test]
fn box_signed_distance() {
    let b = FixedBox::new(
        "b",
        Point3::new(0.0, 0.0, 0.0),
        Point3::new(10.0, 10.0, 10.0),
    )
    .unwrap();
    assert_eq!(b.signed_distance(Point3::new(5.0, 5.0, 5.0)), -5.0);
    assert_eq!(b.signed_distance(Point3::new(5.0, 5.0, 13.0)), 3.0);
    assert_eq!(b.signed_distance(Point3::new(13.0, 14.0, 5.0)), 5.0);
    assert_eq!(b.signed_distance(Point3::new(10.0, 5.0, 5.0)), 0.0);
    assert!(FixedBox::new("bad", Point3::new(1.0, 0.0, 0.0), Point3::origin()).is_err());
}

#[test]
fn box_segment_check_is_tight_and_never_optimistic() {
    let s = Shape::Box {
        min: Point3::new(0.0, 0.0, 0.0),
        max: Point3::new(10.0, 10.0, 10.0),
    };
    // Passes 3 mm above the top face.
    let (a, b) = (Point3::new(-50.0, 5.0, 13.0), Point3::new(60.0, 5.0, 13.0));
    assert!(s.segment_keeps(a, b, 3.0 - 1e-9));
    assert!(!s.segment_keeps(a, b, 3.0 + 1e-9));
    // Diagonal past an edge, against a fine sampling of the exact minimum.
    let (a, b) = (Point3::new(-10.0, 20.0, 5.0), Point3::new(20.0, -10.0, 5.0));
    let exact = (0..=100_000)
        .map(|k| s.f(a + (b - a) * (f64::from(k) / 100_000.0)))
        .fold(f64::INFINITY, f64::min);
    assert!(s.segment_keeps(a, b, exact - 1e-6));
    assert!(!s.segment_keeps(a, b, exact + 1e-9));
    // Through the box.
    let (a, b) = (Point3::new(-5.0, 5.0, 5.0), Point3::new(15.0, 5.0, 5.0));
    assert!(!s.segment_keeps(a, b, 0.0));
}

#[test]
fn derivative_signs() {
    let s = Shape::Sphere {
        centre: Point3::origin(),
    };
    let p = Point3::new(10.0, 0.0, 0.0);
    assert!(s.derivative(p, Vector3::new(1.0, 0.0, 0.0)) > 0.0);
    assert!(s.derivative(p, Vector3::new(-1.0, 0.0, 0.0)) < 0.0);
    assert_eq!(s.derivative(p, Vector3::new(0.0, 1.0, 0.0)), 0.0);
    assert!(s.derivative(Point3::origin(), Vector3::new(0.0, 1.0, 0.0)) > 0.0);
    let b = Shape::Box {
        min: Point3::new(0.0, 0.0, 0.0),
        max: Point3::new(10.0, 10.0, 10.0),
    };
    // Inside, nearest the top face: up is out, down is in.
    let p = Point3::new(5.0, 5.0, 9.0);
    assert!(b.derivative(p, Vector3::new(0.0, 0.0, 1.0)) > 0.0);
    assert!(b.derivative(p, Vector3::new(0.0, 0.0, -1.0)) < 0.0);
    // Outside above: up is away.
    let p = Point3::new(5.0, 5.0, 12.0);
    assert!(b.derivative(p, Vector3::new(0.0, 0.0, 1.0)) > 0.0);
    assert!(b.derivative(p, Vector3::new(1.0, 0.0, -1.0)) < 0.0);
}

#[test]
fn config_checks() {
    let d = RawDetourConfig::default;
    let field = |raw| match DetourConfig::try_from(raw) {
        Err(TrajectoryError::InvalidConfig { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        field(RawDetourConfig {
            resolution_mm: f64::NAN,
            ..d()
        }),
        "detour_resolution_mm"
    );
    assert_eq!(
        field(RawDetourConfig {
            resolution_mm: 0.0,
            ..d()
        }),
        "detour_resolution_mm"
    );
    assert_eq!(
        field(RawDetourConfig {
            max_expansions: 0,
            ..d()
        }),
        "detour_max_expansions"
    );
    assert_eq!(
        field(RawDetourConfig {
            box_clearance_mm: -1.0,
            ..d()
        }),
        "detour_box_clearance_mm"
    );
    assert_eq!(
        field(RawDetourConfig {
            smoothing_margin_mm: f64::INFINITY,
            ..d()
        }),
        "detour_smoothing_margin_mm"
    );
    assert!(DetourConfig::try_from(d()).is_ok());
    let raw: RawDetourConfig = serde_json::from_str(r#"{"resolution_mm": 10.0}"#).unwrap();
    assert_eq!(raw.max_expansions, 20_000);
    assert!(serde_json::from_str::<RawDetourConfig>(r#"{"resolution": 1}"#).is_err());
}

#[test]
fn free_line_is_straight_and_golden() {
    let mut scene = Scene::new(ws());
    scene
        .obstructions
        .push(sphere(1, Point3::new(0.0, 200.0, 300.0), 50.0));
    let (s, t) = (
        Point3::new(-200.0, 0.0, 300.0),
        Point3::new(200.0, 0.0, 300.0),
    );
    let m = plan_motion(&scene, &DetourConfig::default(), s, t, 2).unwrap();
    assert_eq!(m.path.points, vec![s, t]);
    assert_eq!(m.smoothing, Smoothing::Straight);
    assert_eq!(m.samples, minjerk::plan(s, t, 2));
}

#[test]
fn refusals() {
    let mut scene = Scene::new(ws());
    scene.obstructions.push(sphere(
        7,
        Point3::origin() + Vector3::new(0.0, 0.0, 300.0),
        50.0,
    ));
    scene.boxes.push(
        FixedBox::new(
            "crate",
            Point3::new(100.0, 100.0, 0.0),
            Point3::new(200.0, 200.0, 100.0),
        )
        .unwrap(),
    );
    let c = DetourConfig::default();
    let s = Point3::new(-300.0, 0.0, 300.0);
    // Inside a learned region: not refused, approached from another side.
    let p = plan_path(&scene, &c, s, Point3::new(10.0, 0.0, 300.0)).unwrap();
    let a = p.approach.expect("an approach");
    assert_eq!(a.into, vec![7]);
    assert_eq!(p.points[p.points.len() - 2], a.from_mm);
    let e = plan_path(&scene, &c, s, Point3::new(150.0, 150.0, 105.0)).unwrap_err();
    assert!(matches!(e, TrajectoryError::TargetBlocked { .. }), "{e}");
    assert!(e.to_string().contains("box \"crate\""), "{e}");
    let e = plan_path(&scene, &c, s, Point3::new(0.0, 500.0, 300.0)).unwrap_err();
    assert!(
        matches!(
            e,
            TrajectoryError::DetourPointOutsideWorkspace {
                which: "target",
                axis: 'y',
                ..
            }
        ),
        "{e}"
    );
    let e = plan_path(&scene, &c, Point3::new(0.0, 0.0, -1.0), s).unwrap_err();
    assert!(
        matches!(
            e,
            TrajectoryError::DetourPointOutsideWorkspace {
                which: "start",
                axis: 'z',
                ..
            }
        ),
        "{e}"
    );
    let e = plan_path(&scene, &c, Point3::new(f64::NAN, 0.0, 0.0), s).unwrap_err();
    assert!(matches!(
        e,
        TrajectoryError::DetourPointNotFinite { which: "start", .. }
    ));
}
