//! Arbitrary CAN-over-UDP datagrams through the reassembler: never a panic, and every
//! message is no longer than the configured maximum.
#![no_main]
use arnie_comms::can::{Reassembler, ReassemblerConfig};
use arnie_comms::transport::udp::decode_datagram;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reassembler::new(ReassemblerConfig { max_payload_len: 32, page_timeout_ms: 5 });
    let mut rest = data;
    let mut now = 0u64;
    while let Some((&len, tail)) = rest.split_first() {
        let n = usize::from(len % 14).min(tail.len());
        let (dgram, tail) = tail.split_at(n);
        rest = tail;
        now += u64::from(len >> 6);
        if let Some(frame) = decode_datagram(dgram) {
            r.push(&frame, now);
        }
        while let Some(m) = r.pop() {
            if let Ok(m) = m {
                assert!(m.payload.len() <= 32);
            }
        }
    }
});
