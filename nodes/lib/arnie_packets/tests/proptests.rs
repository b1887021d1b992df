//! Property tests: round trips for random definitions and values; a UART stream cut into
//! random chunks and corrupted at random never panics, never yields a frame whose
//! checksum failed, and loses only the frames the corruption touched; CAN reassembly never
//! delivers a wrong message under a dropped, repeated or reordered page.
use arnie_packets::can::{self, CanMessage, Reassembler, ReassemblerConfig};
use arnie_packets::uart::{encode_frame, xor, Decoder, DecoderConfig, Frame};
use arnie_packets::{Definitions, FieldType, Packet, Rejected, Value};
use proptest::prelude::*;

/// 256 cases unless `PROPTEST_CASES` says otherwise (e.g. a long soak run).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

fn value_of(ty: FieldType) -> BoxedStrategy<Value> {
    match ty {
        FieldType::Int8 => any::<i8>().prop_map(Value::I8).boxed(),
        FieldType::UInt8 => any::<u8>().prop_map(Value::U8).boxed(),
        FieldType::Int16 => any::<i16>().prop_map(Value::I16).boxed(),
        FieldType::UInt16 => any::<u16>().prop_map(Value::U16).boxed(),
        FieldType::Int32 => any::<i32>().prop_map(Value::I32).boxed(),
        FieldType::UInt32 => any::<u32>().prop_map(Value::U32).boxed(),
        FieldType::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        FieldType::Float => any::<f32>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::F32)
            .boxed(),
        FieldType::Float64 => any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::F64)
            .boxed(),
    }
}

/// A random definition (as JSON text, id 0..=63) and values for its fields.
fn definition_and_values() -> impl Strategy<Value = (String, Vec<Value>)> {
    (
        0u8..=63,
        prop::collection::vec(prop::sample::select(FieldType::ALL.to_vec()), 0..12),
    )
        .prop_flat_map(|(id, types)| {
            let data: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(i, t)| format!(r#""f{i}":{{"type":"{}"}}"#, t.name()))
                .collect();
            let text = format!(r#"{{"name":"R","id":{id},"data":{{{}}}}}"#, data.join(","));
            let values: Vec<BoxedStrategy<Value>> = types.into_iter().map(value_of).collect();
            (Just(text), values)
        })
}

fn drain(d: &mut Decoder, now_ms: u64) -> Vec<Result<Frame, Rejected>> {
    std::iter::from_fn(|| d.next(now_ms)).collect()
}

/// Commands with known payload lengths (one needs a two-byte size).
const LENGTHS: [(u8, usize); 5] = [(0, 11), (1, 0), (5, 3), (7, 130), (200, 8)];

fn table() -> Box<[Option<u16>; 256]> {
    let mut t = Box::new([None; 256]);
    for (c, n) in LENGTHS {
        t[usize::from(c)] = Some(n as u16);
    }
    t
}

fn frames() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let one = prop::sample::select(LENGTHS.to_vec()).prop_flat_map(|(c, n)| {
        prop::collection::vec(any::<u8>(), n).prop_map(move |p| encode_frame(c, &p).expect("fits"))
    });
    prop::collection::vec(one, 0..12)
}

/// Splits `bytes` at the given (unsorted, possibly out-of-range) cut points.
fn chunks<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for c in cuts.into_iter().chain([bytes.len()]) {
        out.push(&bytes[at..c]);
        at = c;
    }
    out
}

#[derive(Clone, Debug)]
enum Fault {
    None,
    Flip { at: usize, mask: u8 },
    Cut { keep: usize },
    GarbageBefore(Vec<u8>),
    ZerosBefore(usize),
}

fn fault() -> impl Strategy<Value = Fault> {
    prop_oneof![
        3 => Just(Fault::None),
        1 => (any::<usize>(), 1u8..=255).prop_map(|(at, mask)| Fault::Flip { at, mask }),
        1 => any::<usize>().prop_map(|keep| Fault::Cut { keep }),
        1 => prop::collection::vec(any::<u8>(), 1..24).prop_map(Fault::GarbageBefore),
        1 => (1usize..5).prop_map(Fault::ZerosBefore),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn packets_round_trip_through_uart_can_and_json((text, values) in definition_and_values(), device in 0u8..=31) {
        let defs = Definitions::from_texts([("r.json", text.as_str())]).expect("generated definition is valid");
        let def = defs.iter().next().expect("one").clone();
        let mut packet = Packet::new(def.clone());
        packet.device = device;
        for (f, v) in def.fields.iter().zip(&values) {
            packet.set(&f.name, *v).expect("value of the field's type");
        }
        let payload = packet.encode_payload();
        prop_assert_eq!(payload.len(), def.payload_len);

        // UART.
        let mut d = Decoder::new(DecoderConfig::default()).with_lengths(defs.payload_lengths());
        d.push(&arnie_packets::uart::encode_packet(&packet).expect("fits"), 0);
        let got = drain(&mut d, 0);
        prop_assert_eq!(got.len(), 1);
        let frame = got[0].as_ref().expect("good frame");
        let mut back = Packet::decode(def.clone(), frame.payload()).expect("decodes");
        back.device = device;
        prop_assert_eq!(&back, &packet);

        // CAN.
        let mut r = Reassembler::new(ReassemblerConfig::default());
        for f in can::encode_packet(&packet).expect("id and device fit") {
            r.push(&f, 0);
        }
        let msg = r.pop().expect("one message").expect("whole");
        prop_assert_eq!(&msg, &CanMessage { command: def.id, device, payload: payload.clone() });
        prop_assert!(r.pop().is_none());

        // JSON: text and back gives the same bytes.
        let json = packet.fields_json();
        let again = Packet::from_json_str(def.clone(), &json).expect("own JSON is valid");
        prop_assert_eq!(again.encode_payload(), payload);
    }

    #[test]
    fn random_chunking_loses_nothing(frames in frames(), cuts in prop::collection::vec(any::<usize>(), 0..20), with_table in any::<bool>()) {
        let stream: Vec<u8> = frames.concat();
        let mut d = Decoder::new(DecoderConfig { max_frame_len: 256, frame_timeout_ms: 10 });
        if with_table {
            d = d.with_lengths(table());
        }
        let mut got = Vec::new();
        for chunk in chunks(&stream, &cuts) {
            d.push(chunk, 0);
            got.extend(drain(&mut d, 0));
        }
        let raws: Vec<Vec<u8>> = got.into_iter().map(|r| r.expect("no rejection on a clean stream").raw).collect();
        prop_assert_eq!(raws, frames);
        prop_assert_eq!(d.counters().garbage_bytes, 0);
    }

    #[test]
    fn corruption_loses_only_the_frames_it_touched(
        items in prop::collection::vec((prop::sample::select(LENGTHS.to_vec()), fault()), 0..12)
            .prop_flat_map(|items| {
                let payloads: Vec<_> = items.iter().map(|((_, n), _)| prop::collection::vec(any::<u8>(), *n)).collect();
                (Just(items), payloads)
            }),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
        with_table in any::<bool>(),
    ) {
        let (items, payloads) = items;
        // Build the stream; remember where each untouched frame sits.
        let mut stream = Vec::new();
        let mut clean: Vec<(usize, Vec<u8>)> = Vec::new();
        for (((command, _), fault), payload) in items.iter().zip(&payloads) {
            let mut frame = encode_frame(*command, payload).expect("fits");
            match fault {
                Fault::None => {}
                Fault::Flip { at, mask } => { let i = at % frame.len(); frame[i] ^= mask; }
                Fault::Cut { keep } => frame.truncate(keep % frame.len()),
                Fault::GarbageBefore(g) => stream.extend_from_slice(g),
                Fault::ZerosBefore(n) => stream.extend(vec![0u8; *n]),
            }
            if matches!(fault, Fault::None | Fault::GarbageBefore(_) | Fault::ZerosBefore(_)) {
                clean.push((stream.len(), frame.clone()));
            }
            stream.extend_from_slice(&frame);
        }
        let untouched = items.iter().all(|(_, f)| matches!(f, Fault::None | Fault::ZerosBefore(_)));

        let mut d = Decoder::new(DecoderConfig { max_frame_len: 256, frame_timeout_ms: 10 });
        if with_table {
            d = d.with_lengths(table());
        }
        let mut got = Vec::new();
        for chunk in chunks(&stream, &cuts) {
            d.push(chunk, 0);
            got.extend(drain(&mut d, 0));
        }
        got.extend(drain(&mut d, u64::MAX)); // end of stream: anything partial times out
        prop_assert!(d.deadline_ms().is_none());

        let rejections = got.iter().filter(|r| r.is_err()).count();
        let frames: Vec<Frame> = got.into_iter().filter_map(Result::ok).collect();
        let is_exact = |f: &Frame| clean.iter().any(|(o, c)| *o == f.offset as usize && *c == f.raw);
        // Frames that are not one of the clean ones: corrupted bytes that happen to pass
        // the checksum (1 in 256 per candidate without a length table).
        let chance: Vec<&Frame> = frames.iter().filter(|f| !is_exact(f)).collect();
        let overlaps = |f: &Frame, o: usize, len: usize| {
            let s = f.offset as usize;
            s < o + len && o < s + f.raw.len()
        };
        for f in &frames {
            let at = f.offset as usize;
            prop_assert_eq!(xor(&f.raw), 0, "a yielded frame always has a good checksum");
            prop_assert_eq!(&stream[at..at + f.raw.len()], &f.raw[..]);
            if is_exact(f) {
                continue;
            }
            // A chance frame starts in corrupted bytes, or inside a clean frame that an
            // earlier chance frame already cut into (the decoder resumes where it ended).
            for (o, c) in clean.iter().filter(|(o, c)| at >= *o && at < o + c.len()) {
                let earlier = chance.iter().any(|g| g.offset < f.offset && overlaps(g, *o, c.len()));
                prop_assert!(earlier, "frame at {} cuts into the untouched frame at {}", at, o);
            }
        }
        for (o, c) in &clean {
            let found = frames.iter().any(|f| f.offset as usize == *o && f.raw == *c);
            let overlapped = chance.iter().any(|f| overlaps(f, *o, c.len()));
            prop_assert!(found || overlapped, "untouched frame at {} lost", o);
        }
        if untouched {
            prop_assert_eq!(rejections, 0);
            prop_assert_eq!(frames.len(), items.len());
        }
        prop_assert_eq!(d.counters().total_rejected(), rejections as u64);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), cuts in prop::collection::vec(any::<usize>(), 0..10), with_table in any::<bool>()) {
        let mut d = Decoder::new(DecoderConfig { max_frame_len: 300, frame_timeout_ms: 5 });
        if with_table {
            d = d.with_lengths(table());
        }
        for (i, chunk) in chunks(&bytes, &cuts).into_iter().enumerate() {
            d.push(chunk, i as u64);
            for f in drain(&mut d, i as u64).into_iter().flatten() {
                prop_assert_eq!(xor(&f.raw), 0);
            }
        }
        let _ = drain(&mut d, u64::MAX);
        prop_assert!(d.counters().garbage_bytes <= bytes.len() as u64);
    }

    #[test]
    fn can_pages_dropped_or_repeated_never_make_a_wrong_message(
        msgs in prop::collection::vec((0u8..3, 0u8..2, prop::collection::vec(any::<u8>(), 0..30)), 1..8),
        fault in (0usize..3, any::<usize>()),
    ) {
        let originals: Vec<CanMessage> =
            msgs.into_iter().map(|(command, device, payload)| CanMessage { command, device, payload }).collect();
        // (message index, frame)
        let mut frames: Vec<(usize, can::CanFrame)> = originals
            .iter()
            .enumerate()
            .flat_map(|(i, m)| can::encode(m.command, m.device, &m.payload).expect("fits").into_iter().map(move |f| (i, f)))
            .collect();
        let at = fault.1 % frames.len();
        match fault.0 {
            0 => { frames.remove(at); }
            1 => { let f = frames[at]; frames.insert(at, f); }
            _ => {
                // Reorder two pages of the same message (the bus may reorder those over UDP).
                if at + 1 < frames.len() && frames[at].0 == frames[at + 1].0 {
                    frames.swap(at, at + 1);
                }
            }
        }
        let mut r = Reassembler::new(ReassemblerConfig::default());
        let mut delivered = Vec::new();
        for (_, f) in &frames {
            r.push(f, 0);
            while let Some(x) = r.pop() {
                if let Ok(m) = x { delivered.push(m); }
            }
        }
        // A repeated single-frame message is delivered twice: a copy, not a wrong packet.
        for m in &delivered {
            prop_assert!(originals.contains(m), "wrong message delivered: {:?}", m);
        }
        // At most the one message whose page was hit is lost.
        let kept = originals.iter().filter(|o| delivered.contains(o)).count();
        prop_assert!(kept + 1 >= originals.len());
    }
}
