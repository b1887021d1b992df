//! Tests of [`World`] against the shipped spine config (params/spine_sim.json).
use super::*;
use crate::eyes::Flame;
use crate::wiring::InterfaceNames;
use arnie_xpc::{Config, Format, Transform};

const DT: f64 = 0.005;
const SPINE_SIM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../params/spine_sim.json");
const ARM_T: &str = "0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1";

fn wiring() -> Wiring {
    let config = Config::load(std::path::Path::new(SPINE_SIM), None).unwrap();
    Wiring::from_config(&config, &InterfaceNames::default()).unwrap()
}

fn world(scenario: Scenario) -> World {
    World::new(scenario, &wiring())
}

/// The target datagram the spine sends for a global target: `T_arm⁻¹ · global`.
fn target_packet(global: [f64; 3]) -> Vec<u8> {
    let to_device = Transform::parse(ARM_T).unwrap().inverse().unwrap();
    wire::encode(Format::Simulink, &[to_device.apply(&global)])
}

fn run(w: &mut World, seconds: f64) -> Vec<StepOut> {
    (0..(seconds / DT).round() as usize)
        .map(|_| w.step(DT))
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

#[test]
fn shipped_config_is_the_original_arm_frame_and_loopback_only() {
    let text = std::fs::read_to_string(SPINE_SIM).unwrap();
    assert!(!text.contains("192.168."));
    let raw = arnie_xpc::RawConfig::from_json(&text).unwrap();
    assert_eq!(raw.transforms["arm"], ARM_T);
    let w = wiring();
    assert!(w.arm_targets.addr.ip().is_loopback() && w.arm_positions.addr.ip().is_loopback());
}

#[test]
fn arm_packets_are_in_the_device_frame() {
    let mut s = Scenario::default();
    s.arm.start_mm = Vec3::new(10.0, 20.0, 30.0);
    let mut w = world(s);
    let out = w.step(DT);
    let arm: Vec<_> = out
        .datagrams
        .iter()
        .filter(|d| d.dest == Dest::ArmInput)
        .collect();
    assert_eq!(arm.len(), 1);
    let items = wire::decode(Format::Simulink, &arm[0].bytes).unwrap();
    // T_arm⁻¹ · (10, 20, 30): the arm frame is rotated +90° about z.
    assert!(close(&items[0], &[20.0, -10.0, 30.0]), "{items:?}");
    // And the spine's input transform brings it back.
    let back = Transform::parse(ARM_T).unwrap().apply(&items[0]);
    assert!(close(&back, &[10.0, 20.0, 30.0]));
}

#[test]
fn a_target_in_the_device_frame_moves_the_arm_there_in_global() {
    let mut w = world(Scenario::default());
    let arrival = w
        .on_arm_datagram(&target_packet([60.0, 40.0, 30.0]))
        .unwrap();
    assert!(matches!(arrival, Arrival::Accepted { delay_s, .. } if delay_s == 0.0));
    run(&mut w, 2.0);
    assert!(
        close(&w.truth().arm_mm, &[60.0, 40.0, 30.0]),
        "{:?}",
        w.truth()
    );
    assert_eq!(w.truth().target_mm, Some([60.0, 40.0, 30.0]));
    assert_eq!(w.counters().commands_received, 1);
}

#[test]
fn observations_are_in_the_eyes_frame_source_first() {
    let mut w = world(Scenario::default());
    let out = w.step(DT);
    let eyes: Vec<_> = out
        .datagrams
        .iter()
        .filter(|d| d.dest == Dest::EyesInput)
        .collect();
    assert_eq!(eyes.len(), 1);
    let items = wire::decode(Format::Csv, &eyes[0].bytes).unwrap();
    assert_eq!(items.len(), 1);
    let to_global = Transform::parse("0 1 0 100;-1 0 0 200;0 0 1 -50;0 0 0 1").unwrap();
    let g = to_global.apply(&items[0]);
    assert!(close(&g, &[60.0, 40.0, 30.0, 90.0]), "{g:?}");
    assert!(
        !close(&items[0][..3], &[60.0, 40.0, 30.0]),
        "the eyes frame must differ from the global one"
    );
}

#[test]
fn stream_rates_follow_the_scenario() {
    let mut w = world(Scenario::default());
    let outs = run(&mut w, 1.0);
    let count = |d: Dest| {
        outs.iter()
            .flat_map(|o| &o.datagrams)
            .filter(|g| g.dest == d)
            .count()
    };
    assert!(
        (49..=51).contains(&count(Dest::ArmInput)),
        "{}",
        count(Dest::ArmInput)
    );
    assert!(
        (19..=21).contains(&count(Dest::EyesInput)),
        "{}",
        count(Dest::EyesInput)
    );
}

#[test]
fn bad_datagrams_are_counted_not_used() {
    let mut w = world(Scenario::default());
    assert!(matches!(
        w.on_arm_datagram(&[1, 2, 3]),
        Err(TargetRejected::Wire(Rejected::NotMultipleOf8 { .. }))
    ));
    let two = wire::encode(Format::Simulink, &[vec![1.0, 2.0]]);
    assert_eq!(
        w.on_arm_datagram(&two),
        Err(TargetRejected::TooShort { values: 2 })
    );
    let nan: Vec<u8> = [f64::NAN, 0.0, 0.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert!(w.on_arm_datagram(&nan).is_err());
    assert_eq!(w.counters().commands_received, 0);
    assert_eq!(w.counters().commands_rejected.values().sum::<u64>(), 3);
    assert_eq!(w.counters().commands_rejected.get("too_short"), Some(&1));
    run(&mut w, 0.1);
    assert_eq!(w.truth().target_mm, None);
}

#[test]
fn total_loss_drops_everything_and_is_counted() {
    let mut s = Scenario::default();
    s.link.loss_probability = 1.0;
    let mut w = world(s);
    assert!(matches!(
        w.on_arm_datagram(&target_packet([0.0, 40.0, 0.0])),
        Ok(Arrival::Dropped { .. })
    ));
    let outs = run(&mut w, 1.0);
    assert!(outs
        .iter()
        .flat_map(|o| &o.datagrams)
        .all(|d| d.dest == Dest::EyesInput));
    let t = w.truth();
    assert_eq!((t.commands_received, t.commands_dropped), (1, 1));
    assert_eq!(t.target_mm, None);
    assert!(w.counters().positions_dropped >= 49);
}

#[test]
fn partial_loss_is_seeded_and_plausible() {
    let lossy = |seed| {
        let mut s = Scenario {
            seed,
            ..Scenario::default()
        };
        s.link.loss_probability = 0.3;
        let mut w = world(s);
        for k in 0..1000 {
            let _ = w.on_arm_datagram(&target_packet([k as f64, 0.0, 0.0]));
        }
        w.counters().commands_dropped
    };
    let a = lossy(5);
    assert_eq!(a, lossy(5));
    assert!((230..=370).contains(&a), "dropped {a} of 1000");
}

#[test]
fn jitter_delays_within_its_bound() {
    let mut s = Scenario::default();
    s.link.jitter_s = 0.05;
    let mut w = world(s);
    let mut delays = Vec::new();
    for _ in 0..50 {
        if let Ok(Arrival::Accepted { delay_s, .. }) =
            w.on_arm_datagram(&target_packet([0.0, 40.0, 0.0]))
        {
            delays.push(delay_s);
        }
    }
    assert!(delays.iter().all(|d| (0.0..0.05).contains(d)));
    assert!(
        delays.iter().any(|d| *d > 0.01),
        "no jitter at all: {delays:?}"
    );
    // Delivered no later than the bound (plus one step).
    run(&mut w, 0.06);
    assert_eq!(w.truth().target_mm, Some([0.0, 40.0, 0.0]));
}

#[test]
fn blocked_and_freed_events() {
    let mut s = Scenario::default();
    s.arm.obstacles.push(crate::arm::Obstacle {
        name: "wall".into(),
        min_mm: [30.0, -100.0, -100.0],
        max_mm: [40.0, 100.0, 100.0],
    });
    let mut w = world(s);
    w.on_arm_datagram(&target_packet([60.0, 40.0, 30.0]))
        .unwrap();
    let events: Vec<Event> = run(&mut w, 2.0)
        .into_iter()
        .flat_map(|o| o.events)
        .collect();
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Blocked { obstacle, .. } if obstacle == "wall")));
    assert_eq!(w.truth().blocked_by.as_deref(), Some("wall"));
    assert_eq!(w.truth().arm_mm[0], 30.0);
    assert!(!w.eyes().is_lit(Flame::Taper));
    w.on_arm_datagram(&target_packet([0.0, 0.0, 0.0])).unwrap();
    let events: Vec<Event> = run(&mut w, 2.0)
        .into_iter()
        .flat_map(|o| o.events)
        .collect();
    assert!(events.contains(&Event::Freed));
    assert_eq!(w.truth().blocked_by, None);
}

/// The flame-passing task's moves (instructions.json, F = the source): lightSelf lights
/// the taper, lightOther the candle, and the reports match the task's checks.
#[test]
fn flame_passing_moves_light_taper_then_candle() {
    let mut w = world(Scenario::default());
    let f = [60.0, 40.0, 30.0];
    let go = |w: &mut World, p: [f64; 3], hold_s: f64| {
        w.on_arm_datagram(&target_packet(p)).unwrap();
        run(w, hold_s)
    };
    for p in [[0.0, f[1], 0.0], [0.0, f[1], f[2]]] {
        go(&mut w, p, 2.0);
    }
    assert_eq!(w.truth().lit, vec!["source"]);
    let lit: Vec<Event> = go(&mut w, f, 2.0)
        .into_iter()
        .flat_map(|o| o.events)
        .collect();
    assert!(lit
        .iter()
        .any(|e| matches!(e, Event::Lit(l) if l.flame == Flame::Taper)));
    go(&mut w, [0.0, f[1], 0.0], 2.0);
    // lightSelf's check: an object at x = 0 ± 15, y = F.y ± 15 (the taper at the arm).
    let seen = w.eyes().sightings();
    assert_eq!(seen[0].flame, Flame::Source);
    assert!(seen
        .iter()
        .any(|s| s.pos_mm.x.abs() <= 15.0 && (s.pos_mm.y - f[1]).abs() <= 15.0));
    for p in [
        [0.0, 30.0, 0.0],
        [-95.0, 30.0, 0.0],
        [-95.0, 30.0, 45.0],
        [0.0, 30.0, 0.0],
    ] {
        go(&mut w, p, 2.0);
    }
    assert_eq!(w.truth().lit, vec!["source", "taper", "candle"]);
    // lightOther's check: an object at x = −100 ± 15, y = 15 ± 15 (the candle).
    let seen = w.eyes().sightings();
    assert!(seen
        .iter()
        .any(|s| (s.pos_mm.x + 100.0).abs() <= 15.0 && (s.pos_mm.y - 15.0).abs() <= 15.0));
}

#[test]
fn the_candle_stays_dark_if_the_taper_skipped_the_source() {
    let mut w = world(Scenario::default());
    for p in [
        [0.0, 30.0, 0.0],
        [-95.0, 30.0, 0.0],
        [-95.0, 30.0, 45.0],
        [0.0, 30.0, 0.0],
    ] {
        w.on_arm_datagram(&target_packet(p)).unwrap();
        run(&mut w, 2.0);
    }
    assert_eq!(w.truth().lit, vec!["source"]);
}
