//! Time to plan a 300 mm minimum-jerk move (target < 20 µs), checked as it runs.

use arnie_trajectory::minjerk;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use nalgebra::Point3;

fn bench(c: &mut Criterion) {
    let start = Point3::new(-100.0, 50.0, 200.0);
    let goal = Point3::new(140.0, 230.0, 200.0); // 300 mm away
    let pts = minjerk::plan(start, goal, 1);
    assert_eq!(pts.len(), 301, "fast but wrong fails the bench");
    assert_eq!(pts[300], goal);

    c.bench_function("plan 300 mm, factor 1", |b| {
        b.iter(|| minjerk::plan(black_box(start), black_box(goal), black_box(1)))
    });
    let mut buf = Vec::with_capacity(301);
    c.bench_function("plan_n_into 300 mm (reused buffer)", |b| {
        b.iter(|| {
            minjerk::plan_n_into(black_box(start), black_box(goal), 300, &mut buf);
            black_box(buf.len())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
