//! Properties of the decoder over generated streams (`PROPTEST_CASES=20000` for a soak):
//! packets with garbage between them all come out, in order; any bytes at all never
//! panic and every byte is accounted for; a corrupted byte costs at most the packets it
//! touched.
use ld06::{Assembler, Decoder, Packet, Point, Rejected, ScanConfig, HEADER, PACKET_LEN};
use proptest::prelude::*;

fn packet() -> impl Strategy<Value = Packet> {
    (
        any::<u16>(),
        0u16..36_000,
        0u16..36_000,
        any::<u16>(),
        proptest::collection::vec((any::<u16>(), any::<u8>()), 12),
    )
        .prop_map(|(speed, start, end, ts, pts)| {
            let mut p = Packet {
                speed_deg_s: speed,
                start_angle_cdeg: start,
                end_angle_cdeg: end,
                timestamp_ms: ts,
                ..Packet::default()
            };
            for (pt, (d, i)) in p.points.iter_mut().zip(pts) {
                *pt = Point {
                    distance_mm: d,
                    intensity: i,
                };
            }
            p
        })
}

/// Garbage that holds no header byte (so it can never start a packet).
fn garbage() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        any::<u8>().prop_filter("no header", |b| *b != HEADER),
        0..60,
    )
}

fn decode_all(stream: &[u8], chunk: usize) -> (Vec<Result<Packet, Rejected>>, Decoder) {
    let mut d = Decoder::new(0.05);
    let mut out = Vec::new();
    for c in stream.chunks(chunk.max(1)) {
        d.push(c, 0.0);
        out.extend(std::iter::from_fn(|| d.next_packet()));
    }
    d.finish();
    out.extend(std::iter::from_fn(|| d.next_packet()));
    (out, d)
}

fn accounted(d: &Decoder) -> bool {
    let c = d.counters();
    c.bytes
        == PACKET_LEN as u64 * (c.packets + c.bad_angle)
            + c.garbage_bytes
            + c.rejected_bytes
            + d.pending() as u64
}

proptest! {
    #[test]
    fn encode_then_decode_is_the_identity(p in packet()) {
        prop_assert_eq!(Packet::decode(&p.encode()), Ok(p));
    }

    #[test]
    fn packets_between_garbage_all_come_out_in_order(
        items in proptest::collection::vec((garbage(), packet()), 1..12),
        tail in garbage(),
        chunk in 1usize..120,
    ) {
        let mut stream = Vec::new();
        for (g, p) in &items {
            stream.extend(g);
            stream.extend(p.encode());
        }
        stream.extend(&tail);
        let (out, d) = decode_all(&stream, chunk);
        let got: Vec<Packet> = out.iter().filter_map(|r| r.as_ref().ok().copied()).collect();
        let want: Vec<Packet> = items.iter().map(|(_, p)| *p).collect();
        prop_assert_eq!(got, want);
        prop_assert!(accounted(&d));
        prop_assert_eq!(d.pending(), 0);
    }

    #[test]
    fn any_bytes_never_panic_and_every_byte_is_accounted_for(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        chunk in 1usize..64,
    ) {
        let (out, d) = decode_all(&bytes, chunk);
        prop_assert!(accounted(&d));
        prop_assert_eq!(d.pending(), 0);
        let c = d.counters();
        prop_assert_eq!(out.len() as u64, c.packets + c.bad_crc + c.truncated + c.bad_angle);
        // And the assembler takes whatever came out.
        let mut a = Assembler::new(ScanConfig::default());
        for (i, p) in out.iter().filter_map(|r| r.as_ref().ok()).enumerate() {
            if let Some(s) = a.push(p, i as f64 * 0.003) {
                prop_assert_eq!(s.ranges.len(), s.intensities.len());
                prop_assert!(s.stamp_s.is_finite() && s.angle_increment.is_finite());
            }
        }
    }

    #[test]
    fn one_corrupted_byte_costs_at_most_two_packets(
        ps in proptest::collection::vec(packet(), 3..8),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let mut stream: Vec<u8> = ps.iter().flat_map(|p| p.encode()).collect();
        let i = at.index(stream.len());
        stream[i] ^= flip;
        let (out, d) = decode_all(&stream, 7);
        let got = out.iter().filter(|r| r.is_ok()).count();
        // The hit packet is lost (or survives when the flip kept a valid CRC, impossible
        // for one byte); a hit header may also make the packet before it look cut short.
        prop_assert!(got + 2 >= ps.len(), "{} of {}", got, ps.len());
        prop_assert!(d.counters().bad_crc + d.counters().truncated + d.counters().bad_angle >= 1
            || d.counters().garbage_bytes > 0);
        prop_assert!(accounted(&d));
    }
}
