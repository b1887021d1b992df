//! Detour planning time (issue 33: p99 under 5 ms) for the demo scene (a wall between
//! the source flame and the candle of `params/scenario_flame.json`, the arm stopped at
//! it) and for a cluttered scene of 20 obstructions. Prints p50 / p99 over 1000 plans and
//! the detour's length against the straight line before criterion's own runs; checked
//! as it runs (a plan that is not a detour fails the bench).

use std::time::Instant;

use arnie_trajectory::{plan_motion, plan_path, DetourConfig, Scene, Smoothing};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nalgebra::Point3;

// The tests' scenes (tests/detour.rs checks the plans on them).
#[path = "../tests/scenes/mod.rs"]
mod scenes;
use scenes::{cluttered, demo_scene, sphere, CANDLE, SOURCE};

/// The flame scenario's workspace and table, a wall between source and candle, and the
/// obstruction recorded 25 mm ahead of where the arm met the wall; from there to the
/// candle.
fn demo() -> (Scene, Point3<f64>, Point3<f64>) {
    let (source, candle) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut scene = demo_scene();
    let stop = source + (candle - source) * ((-10.0 - source.x) / (candle.x - source.x));
    let ahead = stop + (candle - source).normalize() * 25.0;
    scene.obstructions.push(sphere(1, ahead, 50.0));
    (scene, stop, candle)
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
