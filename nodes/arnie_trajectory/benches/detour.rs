//! Detour planning time (issue 33: p99 under 5 ms) for the demo scene (a wall between
//! the source flame and the candle of `params/scenario_flame.json`, the arm stopped at
//! it) and for a cluttered scene of 20 obstructions. Prints p50 / p99 over 1000 plans and
//! the detour's length against the straight line before criterion's own runs; checked
//! as it runs (a plan that is not a detour fails the bench).

use std::time::Instant;

use arnie_trajectory::{
    plan_motion, plan_path, DetourConfig, FixedBox, KnownObstruction, Scene, Smoothing, Workspace,
};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nalgebra::Point3;

fn p(x: f64, y: f64, z: f64) -> Point3<f64> {
    Point3::new(x, y, z)
}

fn sphere(id: u64, c: Point3<f64>, r: f64) -> KnownObstruction {
    KnownObstruction::permanent(id, c, r)
}

/// The flame scenario's workspace and table, a wall between source and candle, and the
/// obstruction recorded 25 mm ahead of where the arm met the wall; from there to the
/// candle.
fn demo() -> (Scene, Point3<f64>, Point3<f64>) {
    let (source, candle) = (p(60.0, 40.0, 30.0), p(-95.0, 30.0, 45.0));
    let mut scene =
        Scene::new(Workspace::new(p(-200.0, -100.0, -20.0), p(200.0, 200.0, 200.0)).unwrap());
    scene
        .boxes
        .push(FixedBox::new("table", p(-500.0, -500.0, -100.0), p(500.0, 500.0, -20.0)).unwrap());
    scene
        .boxes
        .push(FixedBox::new("wall", p(-30.0, -60.0, -20.0), p(-10.0, 140.0, 120.0)).unwrap());
    let stop = source + (candle - source) * ((-10.0 - source.x) / (candle.x - source.x));
    let ahead = stop + (candle - source).normalize() * 25.0;
    scene.obstructions.push(sphere(1, ahead, 50.0));
    (scene, stop, candle)
}

/// 20 obstructions (radius 40–70 mm) between two points 700 mm apart.
fn cluttered() -> (Scene, Point3<f64>, Point3<f64>) {
    let mut scene =
        Scene::new(Workspace::new(p(-400.0, -400.0, 0.0), p(400.0, 400.0, 600.0)).unwrap());
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for id in 1..=20 {
        let c = p(
            -200.0 + 400.0 * next(),
            -150.0 + 300.0 * next(),
            150.0 + 300.0 * next(),
        );
        scene.obstructions.push(sphere(id, c, 40.0 + 30.0 * next()));
    }
    scene.obstructions[0].centre_mm = p(0.0, 0.0, 300.0);
    (scene, p(-350.0, 0.0, 300.0), p(350.0, 0.0, 300.0))
}

fn percentiles(name: &str, mut run: impl FnMut()) {
    let mut us: Vec<f64> = (0..1000)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    us.sort_by(f64::total_cmp);
    println!(
        "{name}: p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs (1000 plans)",
        us[500], us[990], us[999]
    );
}

fn bench(c: &mut Criterion) {
    let config = DetourConfig::default();
    for (name, (scene, start, target)) in [("demo", demo()), ("cluttered 20", cluttered())] {
        let m = plan_motion(&scene, &config, start, target, 1).unwrap();
        assert!(
            !m.path.is_straight(),
            "{name}: fast but wrong fails the bench"
        );
        assert!(matches!(m.smoothing, Smoothing::Spline { .. }));
        println!(
            "{name}: detour {:.1} mm vs straight {:.1} mm ({:.2}×), {} via-points, {} cells expanded, {} set-points",
            m.path.length_mm(),
            m.path.straight_length_mm(),
            m.path.length_mm() / m.path.straight_length_mm(),
            m.path.via_points().len(),
            m.path.expanded,
            m.samples.len()
        );
        percentiles(&format!("{name} plan_path"), || {
            black_box(plan_path(&scene, &config, start, target).unwrap());
        });
        percentiles(&format!("{name} plan_motion"), || {
            black_box(plan_motion(&scene, &config, start, target, 1).unwrap());
        });
        c.bench_function(&format!("detour {name}: plan_path"), |b| {
            b.iter(|| plan_path(black_box(&scene), &config, black_box(start), target))
        });
        c.bench_function(&format!("detour {name}: plan_motion"), |b| {
            b.iter(|| plan_motion(black_box(&scene), &config, black_box(start), target, 1))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
