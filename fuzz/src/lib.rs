//! Helpers shared by the fuzz targets (`fuzz_targets/*.rs`): the project's comms packet
//! definitions, the comms JSON round trip, a parse checked deterministic, and
//! per-process scratch folders for the targets that read files (the bag reader).
use std::path::PathBuf;
use std::sync::OnceLock;

use arnie_packets::{Definitions, Packet, Value};

/// The packet definitions shipped in nodes/lib/arnie_packets/packets (compiled in).
pub fn comms_definitions() -> &'static Definitions {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(|| {
        Definitions::from_texts([
            (
                "arm_status.json",
                include_str!("../../nodes/lib/arnie_packets/packets/arm_status.json"),
            ),
            (
                "motor_target.json",
                include_str!("../../nodes/lib/arnie_packets/packets/motor_target.json"),
            ),
            (
                "ping.json",
                include_str!("../../nodes/lib/arnie_packets/packets/ping.json"),
            ),
            (
                "pong.json",
                include_str!("../../nodes/lib/arnie_packets/packets/pong.json"),
            ),
            (
                "set_led.json",
                include_str!("../../nodes/lib/arnie_packets/packets/set_led.json"),
            ),
        ])
        .expect("the project's packet definitions load")
    })
}

/// `parse(text)` twice: the two results are equal (parsing is deterministic), and an
/// error displays without a panic. The value, or `None` for an error.
pub fn parse_twice<T, E>(text: &str, parse: impl Fn(&str) -> Result<T, E>) -> Option<T>
where
    T: PartialEq + std::fmt::Debug,
    E: PartialEq + std::fmt::Debug + std::fmt::Display,
{
    let first = parse(text);
    assert_eq!(first, parse(text), "parsing is not deterministic");
    first.map_err(|e| e.to_string()).ok()
}

/// A packet whose floats are all finite goes to JSON and back to the same payload bytes
/// (NaN and infinities have no JSON form: `to_json` writes them as null).
pub fn comms_json_round_trip(p: &Packet) {
    let finite = p.fields().all(|(_, v)| match v {
        Value::F32(x) => x.is_finite(),
        Value::F64(x) => x.is_finite(),
        _ => true,
    });
    if !finite {
        return;
    }
    let json = p.to_json();
    let back = Packet::from_json(p.definition().clone(), &json)
        .unwrap_or_else(|e| panic!("{}: JSON {json} does not load back: {e}", p.name()));
    assert_eq!(
        back.encode_payload(),
        p.encode_payload(),
        "{}: JSON round trip via {json}",
        p.name()
    );
}

/// A scratch folder for this process and target (`$ARNIE_FUZZ_TMP`, else /dev/shm,
/// else the temp dir), created once and reused by every run of the target.
pub fn scratch_dir(target: &str) -> PathBuf {
    let base = std::env::var_os("ARNIE_FUZZ_TMP")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let shm = PathBuf::from("/dev/shm");
            if shm.is_dir() {
                shm
            } else {
                std::env::temp_dir()
            }
        });
    let dir = base.join(format!("arnie_fuzz_{}_{}", target, std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
