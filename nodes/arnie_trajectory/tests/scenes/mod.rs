//! Scenes shared by the detour tests (`tests/detour.rs`) and the detour bench
//! (`benches/detour.rs`), so the bench measures the scene the tests check.
use arnie_trajectory::{FixedBox, KnownObstruction, Scene, Workspace};
use nalgebra::Point3;

/// A point [mm].
pub fn p(x: f64, y: f64, z: f64) -> Point3<f64> {
    Point3::new(x, y, z)
}

/// A permanent spherical obstruction `id` at `c`, radius `r` [mm].
pub fn sphere(id: u64, c: Point3<f64>, r: f64) -> KnownObstruction {
    KnownObstruction::permanent(id, c, r)
}

/// The flame scenario's source flame [mm].
pub const SOURCE: [f64; 3] = [60.0, 40.0, 30.0];
/// The flame scenario's candle [mm].
pub const CANDLE: [f64; 3] = [-95.0, 30.0, 45.0];

/// The flame scenario's workspace and table, and a wall between source and candle.
pub fn demo_scene() -> Scene {
    let mut scene =
        Scene::new(Workspace::new(p(-200.0, -100.0, -20.0), p(200.0, 200.0, 200.0)).unwrap());
    scene
        .boxes
        .push(FixedBox::new("table", p(-500.0, -500.0, -100.0), p(500.0, 500.0, -20.0)).unwrap());
    scene
        .boxes
        .push(FixedBox::new("wall", p(-30.0, -60.0, -20.0), p(-10.0, 140.0, 120.0)).unwrap());
    scene
}

/// 20 obstructions (radius 40–70 mm, from a fixed seed) between two points 700 mm
/// apart, one of them on the straight line for sure: (scene, start, target).
pub fn cluttered() -> (Scene, Point3<f64>, Point3<f64>) {
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
    // One on the straight line for sure.
    scene.obstructions[0].centre_mm = p(0.0, 0.0, 300.0);
    (scene, p(-350.0, 0.0, 300.0), p(350.0, 0.0, 300.0))
}
