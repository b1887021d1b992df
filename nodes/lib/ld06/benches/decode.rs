//! The driver's work per revolution without ROS: 10 Hz of LD06 bytes (about 37.5
//! packets, 1 760 bytes) decoded and assembled into one scan
//! (`cargo bench -p ld06`; the node's own cost per scan on a graph is not measured yet).
use criterion::{criterion_group, criterion_main, Criterion};
use ld06::{Assembler, Decoder, Packet, Point, ScanConfig};

fn stream(revolutions: usize) -> Vec<u8> {
    let packets = revolutions * 450 / 12;
    (0..packets)
        .flat_map(|j| {
            let a0 = (j * 12) as f64 * 0.8;
            let mut p = Packet {
                speed_deg_s: 3600,
                start_angle_cdeg: ((a0 * 100.0) as u64 % 36_000) as u16,
                end_angle_cdeg: (((a0 + 8.8) * 100.0) as u64 % 36_000) as u16,
                ..Packet::default()
            };
            for (i, pt) in p.points.iter_mut().enumerate() {
                *pt = Point {
                    distance_mm: 500 + (j * 12 + i) as u16 % 2000,
                    intensity: 200,
                };
            }
            p.encode()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let bytes = stream(20);
    let per_rev = bytes.len() / 20;
    c.bench_function("decode + assemble one revolution (10 Hz)", |b| {
        b.iter(|| {
            let mut d = Decoder::new(0.05);
            let mut a = Assembler::new(ScanConfig::default());
            let mut scans = 0;
            let mut t = 0.0;
            for chunk in bytes.chunks(per_rev) {
                t += 0.1;
                d.push(chunk, t);
                while let Some(r) = d.next_packet() {
                    if let Ok(p) = r {
                        scans += usize::from(a.push(&p, t).is_some());
                    }
                }
            }
            assert!(scans >= 18);
            scans
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
