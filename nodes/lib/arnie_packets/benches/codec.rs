//! Frames per second encoded and decoded: the reference TestPacket (read in place from
//! shared/reference/robotikutt) and a 200-byte frame, UART and CAN. Each iteration
//! also checks its result, so a fast but wrong codec fails the bench.
use arnie_packets::can::{self, Reassembler, ReassemblerConfig};
use arnie_packets::uart::{encode_frame, encode_packet, Decoder, DecoderConfig};
use arnie_packets::{Definitions, Packet};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../../shared/reference/robotikutt"
);
const FRAME: [u8; 14] = [
    0x0c, 0x00, 0x3c, 0x01, 0xff, 0xff, 0x01, 0x00, 0x00, 0x9a, 0x99, 0x19, 0x3f, 0x15,
];
const BATCH: usize = 1000;

fn uart(c: &mut Criterion) {
    let defs = Definitions::load_dir(Path::new(REFERENCE)).expect("reference definitions");
    let packet = defs
        .packet_from_json("TestPacket", 0, 0, r#"{"foo": 60}"#)
        .expect("valid");
    let def = packet.definition().clone();

    let mut g = c.benchmark_group("uart");
    g.throughput(Throughput::Elements(1));
    g.bench_function("encode TestPacket", |b| {
        b.iter(|| {
            let f = encode_packet(black_box(&packet)).expect("fits");
            assert_eq!(f, FRAME);
            f
        })
    });

    let stream: Vec<u8> = FRAME.repeat(BATCH);
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("decode TestPacket x1000 (frame + packet)", |b| {
        b.iter(|| {
            let mut d = Decoder::new(DecoderConfig::default()).with_lengths(defs.payload_lengths());
            d.push(black_box(&stream), 0);
            let mut n = 0;
            while let Some(r) = d.next(0) {
                let f = r.expect("good frame");
                let p = Packet::decode(def.clone(), f.payload()).expect("decodes");
                assert_eq!(p.id(), 0);
                n += 1;
            }
            assert_eq!(n, BATCH);
        })
    });

    let big = encode_frame(7, &[0xa5; 200]).expect("fits");
    let stream: Vec<u8> = big.repeat(BATCH);
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function("decode 200-byte frames x1000 (framing only)", |b| {
        b.iter(|| {
            let mut d = Decoder::new(DecoderConfig::default());
            d.push(black_box(&stream), 0);
            let n = std::iter::from_fn(|| d.next(0))
                .filter(|r| r.is_ok())
                .count();
            assert_eq!(n, BATCH);
        })
    });
    g.finish();
}

fn can(c: &mut Criterion) {
    let payload: Vec<u8> = (0..64).collect();
    let frames = can::encode(5, 3, &payload).expect("fits");
    let mut g = c.benchmark_group("can");
    g.throughput(Throughput::Elements(1));
    g.bench_function("encode 64-byte message (8 pages)", |b| {
        b.iter(|| can::encode(5, 3, black_box(&payload)).expect("fits"))
    });
    g.bench_function("reassemble 64-byte message (8 pages)", |b| {
        let mut r = Reassembler::new(ReassemblerConfig::default());
        b.iter(|| {
            for f in black_box(&frames) {
                r.push(f, 0);
            }
            let m = r.pop().expect("message").expect("whole");
            assert_eq!(m.payload.len(), 64);
        })
    });
    g.finish();
}

criterion_group!(benches, uart, can);
criterion_main!(benches);
