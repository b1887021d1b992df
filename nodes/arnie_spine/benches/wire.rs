//! Decode + route of a simulink arm packet on the reference config (ns per packet).
//! The bench also checks the result: every packet must reach the arm's four outputs.

use std::hint::black_box;
use std::net::SocketAddr;
use std::path::Path;

use arnie_spine::{wire, Config, Format, Limits, Router};
use criterion::{criterion_group, criterion_main, Criterion};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/spine-config.json"
);

fn bench(c: &mut Criterion) {
    let config = match Config::load(Path::new(REFERENCE), None) {
        Ok(c) => c,
        Err(e) => panic!("reference config: {e}"),
    };
    let mut router = Router::new(config, Limits::default());
    let Some(arm) = router.input_id("arm") else {
        panic!("no arm input")
    };
    let from: SocketAddr = "192.0.2.1:25000".parse().unwrap_or_else(|e| panic!("{e}"));
    // Distinct consecutive packets, so nothing is de-duplicated.
    let packets: Vec<Vec<u8>> = (0..1024)
        .map(|k| {
            let x = f64::from(k) * 0.25;
            wire::encode(Format::Simulink, &[vec![x, 200.0 - x, 300.0]])
        })
        .collect();
    let mut k = 0usize;
    c.bench_function("decode+route simulink arm packet", |b| {
        b.iter(|| {
            k = (k + 1) % packets.len();
            let routed = router.on_datagram(arm, from, black_box(&packets[k]));
            assert_eq!(
                routed.emits.len(),
                4,
                "arm fans out to pyt, brain, nn-brain, arm-logger"
            );
            black_box(routed)
        })
    });
    c.bench_function("decode simulink 3 doubles", |b| {
        b.iter(|| wire::decode(Format::Simulink, black_box(&packets[7])))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
