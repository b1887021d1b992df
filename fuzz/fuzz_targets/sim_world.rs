//! The arm simulator's inputs (nodes/arnie_sim `scenario`, `world`): a scenario file
//! (params/scenario_*.json) and the arm's target datagrams off UDP. The input is the
//! scenario text, then a `\n---\n` line, then the datagrams (one per line); without the
//! separator the scenario is params/scenario_sample.json and the whole input is
//! datagrams. The world is wired by params/spine_sim.json and stepped 5 ms at a time
//! between datagrams. Never a panic; parsing is deterministic; the arm's position and
//! the truth stay finite.
#![no_main]
use arnie_sim::wiring::InterfaceNames;
use arnie_sim::{Scenario, Wiring, World};
use arnie_spine::Config;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const SAMPLE: &str = include_str!("../../params/scenario_sample.json");

fn wiring() -> &'static Wiring {
    static W: OnceLock<Wiring> = OnceLock::new();
    W.get_or_init(|| {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../params/spine_sim.json");
        let config = Config::load(std::path::Path::new(file), None).expect("spine_sim.json");
        Wiring::from_config(&config, &InterfaceNames::default()).expect("the sim's wiring")
    })
}

fuzz_target!(|data: &[u8]| {
    let (scenario, datagrams): (&[u8], &[u8]) = match find(data, b"\n---\n") {
        Some(at) => (&data[..at], &data[at + 5..]),
        None => (SAMPLE.as_bytes(), data),
    };
    let Ok(text) = std::str::from_utf8(scenario) else {
        return;
    };
    let first = Scenario::from_json(text);
    match (&first, &Scenario::from_json(text)) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("parsing is not deterministic"),
    }
    let Ok(s) = first else { return };
    let mut world = World::new(s, wiring());
    for d in datagrams.split(|&b| b == b'\n').take(64) {
        let _ = world.on_arm_datagram(d);
        for _ in 0..20 {
            let _ = world.step(0.005);
        }
        let _ = world.position_bytes();
        let _ = world.observation_bytes();
        let t = world.truth();
        let _ = format!("{t:?}");
        assert!(world.now_s().is_finite());
        assert!(
            world.arm().read().iter().all(|v| v.is_finite()),
            "arm position"
        );
    }
});

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
