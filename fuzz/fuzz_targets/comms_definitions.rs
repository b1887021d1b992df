//! Packet definition files (nodes/lib/arnie_packets `definition`): any text is a checked
//! definition or an error, never a panic; a packet of every accepted definition, at its
//! defaults, encodes to a payload of the declared length that decodes back to itself.
#![no_main]
use arnie_packets::{Definitions, Packet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(defs) = Definitions::from_texts([("fuzz.json", text)]) else {
        return;
    };
    for def in defs.iter() {
        let p = Packet::new(def.clone());
        let payload = p.encode_payload();
        assert_eq!(
            payload.len(),
            def.payload_len,
            "{}: payload length",
            def.name
        );
        let back = Packet::decode(def.clone(), &payload).expect("defaults decode");
        assert_eq!(back.encode_payload(), payload);
        arnie_fuzz::comms_json_round_trip(&p);
    }
});
