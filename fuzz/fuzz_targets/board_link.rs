//! The Eurobot robot's motor-board link, both ends (nodes/tools/arnie_table `wire` + `board`,
//! the simulated board's command decoder; nodes/arnie_base `board`, the base's report
//! parser), over the comms UART framing with every packet definition of
//! nodes/lib/arnie_packets/packets. The first byte picks the frame-length limit and the chunk
//! size; the rest is the byte stream. Every frame that decodes to a packet goes to the
//! board (as a command, at advancing times) and to the base (as `comms/rx` text, the
//! packet's fields JSON). Never a panic; the board's pose stays finite; a report the
//! base reads has finite numbers.
#![no_main]
use arnie_base::board::{parse, FromBoard};
use arnie_packets::uart::{Decoder, DecoderConfig};
use arnie_packets::{Definitions, Packet};
use arnie_table::board::Options;
use arnie_table::{Board, Scenario};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn defs() -> &'static Definitions {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../nodes/lib/arnie_packets/packets");
        let d = Definitions::load_dir(std::path::Path::new(dir)).expect("the packets load");
        arnie_table::wire::check(&d).expect("the board's packets are defined");
        d
    })
}

fn scenario() -> &'static Scenario {
    static S: OnceLock<Scenario> = OnceLock::new();
    S.get_or_init(|| {
        Scenario::from_json(include_str!("../../params/eurobot/table.json"))
            .expect("params/eurobot/table.json loads")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, bytes)) = data.split_first() else {
        return;
    };
    let defs = defs();
    let mut d = Decoder::new(DecoderConfig {
        max_frame_len: 8 + usize::from(ctl) * 4,
        frame_timeout_ms: 3,
    })
    .with_lengths(defs.payload_lengths());
    let mut board = Board::new(scenario().clone(), Options::default());
    let step = usize::from(ctl >> 4) + 1;
    let mut now = 0u64;
    for chunk in bytes.chunks(step) {
        now += u64::from(chunk[0] & 7) * 5;
        d.push(chunk, now);
        while let Some(r) = d.next(now) {
            let Ok(f) = r else { continue };
            let Some(def) = defs.get(f.command) else {
                continue;
            };
            let Ok(p) = Packet::decode(def.clone(), f.payload()) else {
                continue;
            };
            board_side(&mut board, &p, now);
            base_side(&p);
        }
        let _ = board.advance(now);
    }
});

fn board_side(board: &mut Board, p: &Packet, now: u64) {
    if let Some(input) = arnie_table::wire::decode(p) {
        for out in board.input(now, input) {
            arnie_table::wire::encode(defs(), &out).expect("a board output encodes");
        }
    }
    let t = board.truth();
    assert!(t.x.is_finite() && t.y.is_finite() && t.theta.is_finite());
}

fn base_side(p: &Packet) {
    let json = p.to_json().to_string();
    match parse(p.name(), &json) {
        Ok(FromBoard::Odometry { pose, v, w, .. }) => {
            assert!(pose.x.is_finite() && pose.y.is_finite() && pose.theta.is_finite());
            assert!(v.is_finite() && w.is_finite());
        }
        Ok(FromBoard::Obstacle {
            distance_m,
            bearing_rad,
            hit,
            ..
        }) => assert!(
            distance_m.is_finite()
                && bearing_rad.is_finite()
                && hit.0.is_finite()
                && hit.1.is_finite()
        ),
        Ok(_) | Err(_) => {}
    }
}
