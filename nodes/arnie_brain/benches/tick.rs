//! Loading the reference instructions, and ticking the flame-passing loop (a full lap is
//! 11 ticks: start 0–1, lightSelf 2–6, lightOther 6–10). Each iteration also checks the
//! lap's targets, so a fast but wrong core fails.

use arnie_brain::{load, Brain, Observation};
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Point3;

const INSTRUCTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/instructions.json"
);

fn laps(b: &mut Brain, n: usize) -> usize {
    let flame = Observation::at(-40.0, 60.0, 20.0).with_confidence(90.0);
    let taper = Observation::at(0.0, 60.0, 0.0).with_confidence(80.0);
    let candle = Observation::at(-98.0, 22.0, 40.0).with_confidence(85.0);
    let mut arm = Point3::origin();
    let mut sent = 0;
    for t in 0..n * 11 {
        let seen = match t % 11 {
            1 => vec![flame],
            6 => vec![taper],
            10 => vec![candle],
            _ => vec![],
        };
        if let Some(target) = b.tick(Some(arm), &seen).target_mm {
            arm = target;
            sent += 1;
        }
    }
    sent
}

fn bench(c: &mut Criterion) {
    let text = std::fs::read_to_string(INSTRUCTIONS).expect("reference instructions.json");
    c.bench_function("load reference", |b| b.iter(|| load(&text).expect("loads")));
    let instructions = load(&text).expect("loads");
    c.bench_function("100 laps of flame passing", |b| {
        b.iter(|| {
            let mut brain = Brain::new(instructions.clone());
            // Per lap of 11 ticks: start (1) + lightSelf (4) + lightOther (4) = 9 targets.
            assert_eq!(laps(&mut brain, 100), 900);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
