//! The comms UART deframer and packet decoder (nodes/lib/arnie_packets `uart`, `packet`).
//!
//! The first byte picks the decoder's settings (maximum frame length, chunk size, with or
//! without the project's packet definitions); the rest is the byte stream, pushed in
//! chunks at advancing times. Asserts: never a panic; every frame XORs to 0 and is
//! exactly the stream's bytes at its offset; every frame the definitions know decodes to
//! a packet whose payload encodes back to the same bytes and whose frame
//! (`encode_packet`) is the frame received; nothing left pending at the end.
#![no_main]
use arnie_packets::uart::{encode_frame, encode_packet, xor, Decoder, DecoderConfig};
use arnie_packets::{Definitions, Packet};
use arnie_fuzz::comms_definitions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, bytes)) = data.split_first() else {
        return;
    };
    let defs: &Definitions = comms_definitions();
    let mut d = Decoder::new(DecoderConfig {
        max_frame_len: 8 + usize::from(ctl) * 4,
        frame_timeout_ms: 3,
    });
    if ctl & 1 == 1 {
        d = d.with_lengths(defs.payload_lengths());
    }
    let step = usize::from(ctl >> 4) + 1;
    let mut now = 0u64;
    for chunk in bytes.chunks(step) {
        now += u64::from(chunk[0] & 3);
        d.push(chunk, now);
        while let Some(r) = d.next(now) {
            let Ok(f) = r else { continue };
            assert_eq!(xor(&f.raw), 0, "a frame with a bad checksum");
            let at = f.offset as usize;
            assert_eq!(
                &bytes[at..at + f.raw.len()],
                &f.raw[..],
                "frame bytes differ from the stream's"
            );
            // The decoder also accepts a two-byte size below 128 (never written by the
            // encoder): compare the bytes only for canonical frames.
            let canonical = f.raw[0] & 0x80 == 0 || f.payload().len() + 1 >= 0x80;
            let encoded =
                encode_frame(f.command, f.payload()).expect("a received frame re-encodes");
            if canonical {
                assert_eq!(encoded, f.raw, "frame re-encodes differently");
            }
            if let Some(def) = defs.get(f.command) {
                if let Ok(p) = Packet::decode(def.clone(), f.payload()) {
                    assert_eq!(p.encode_payload(), f.payload(), "payload round trip");
                    assert_eq!(
                        encode_packet(&p).ok(),
                        Some(encoded.clone()),
                        "packet frame round trip"
                    );
                    arnie_fuzz::comms_json_round_trip(&p);
                }
            }
        }
    }
    while d.next(u64::MAX).is_some() {}
    assert!(
        d.deadline_ms().is_none(),
        "bytes still pending after the final timeout"
    );
});
