//! The comms CAN reassembler (nodes/lib/arnie_packets `can`, CAN-over-UDP datagrams).
//!
//! Part one: the input cut into CAN-over-UDP datagrams (a length byte each) pushed at
//! advancing times: never a panic, no message longer than the maximum, nothing pending
//! after the page timeout. Part two, the round trip: the input as a payload, split into
//! frames by `can::encode`, sent through the datagram codec and reassembled, gives back
//! the same (command, device, payload).
#![no_main]
use arnie_packets::can::{encode, CanMessage, Reassembler, ReassemblerConfig};
use arnie_packets::transport::udp::{decode_datagram, encode_datagram};
use libfuzzer_sys::fuzz_target;

const MAX: usize = 64;

fuzz_target!(|data: &[u8]| {
    let mut r = Reassembler::new(ReassemblerConfig {
        max_payload_len: MAX,
        page_timeout_ms: 5,
    });
    let mut rest = data;
    let mut now = 0u64;
    while let Some((&len, tail)) = rest.split_first() {
        let n = usize::from(len % 14).min(tail.len());
        let (dgram, tail) = tail.split_at(n);
        rest = tail;
        now += u64::from(len >> 6);
        if let Some(frame) = decode_datagram(dgram) {
            assert!(frame.data().len() <= 8);
            assert_eq!(
                decode_datagram(&encode_datagram(&frame)),
                Some(frame.clone()),
                "datagram round trip"
            );
            r.push(&frame, now);
        }
        while let Some(m) = r.pop() {
            if let Ok(m) = m {
                assert!(m.payload.len() <= MAX, "a message over the maximum");
            }
        }
    }
    r.expire(now + 1_000);
    assert!(
        r.deadline_ms().is_none(),
        "a partial message survived its timeout"
    );

    // Round trip of a well-formed message.
    let Some((&head, payload)) = data.split_first() else {
        return;
    };
    let (command, device) = (head >> 3, head & 7);
    let payload = &payload[..payload.len().min(MAX)];
    let frames = encode(command, device, payload).expect("a payload within the limits encodes");
    let mut r = Reassembler::new(ReassemblerConfig {
        max_payload_len: MAX,
        page_timeout_ms: 5,
    });
    for f in &frames {
        let back = decode_datagram(&encode_datagram(f)).expect("an encoded datagram decodes");
        r.push(&back, 0);
    }
    let got = r.pop().expect("one message").expect("accepted");
    assert_eq!(
        got,
        CanMessage {
            command,
            device,
            payload: payload.to_vec()
        }
    );
    assert!(r.pop().is_none());
});
