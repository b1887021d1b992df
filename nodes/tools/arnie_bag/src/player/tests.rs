//! Tests of the player's state machine (clock, rate, pause, step, loop, filters).
use super::*;

const S: u64 = 1_000_000_000;

fn msg(topic: &str, t: u64) -> BagMessage {
    BagMessage {
        topic: Arc::from(topic),
        log_time: t,
        publish_time: t,
        sequence: 0,
        data: vec![t as u8],
    }
}

fn src() -> MemorySource {
    MemorySource::new(vec![
        msg("/a", 100 * S),
        msg("/b", 101 * S),
        msg("/a", 103 * S),
    ])
}

/// Runs the player with a simulated clock that jumps to each wait; returns
/// (monotonic time, topic, log time) of every publish.
fn run(p: &mut Player<MemorySource>, mut now: u64) -> Vec<(u64, String, u64)> {
    let mut out = Vec::new();
    for _ in 0..1000 {
        match p.poll(now).unwrap() {
            Step::Publish(m) => out.push((now, m.topic.to_string(), m.log_time)),
            Step::Wait { until_ns } => now = until_ns,
            Step::Paused | Step::Finished => break,
        }
    }
    out
}

#[test]
fn due_times_follow_log_time_and_rate() {
    let mut p = Player::new(
        src(),
        100 * S,
        PlayOptions {
            rate: 2.0,
            ..Default::default()
        },
        10 * S,
    )
    .unwrap();
    let got = run(&mut p, 10 * S);
    assert_eq!(
        got,
        vec![
            (10 * S, "/a".into(), 100 * S),
            (10 * S + S / 2, "/b".into(), 101 * S),
            (11 * S + S / 2, "/a".into(), 103 * S)
        ]
    );
    assert_eq!(p.poll(20 * S).unwrap(), Step::Finished);
}

#[test]
fn late_poll_publishes_at_once_without_drift() {
    let mut p = Player::new(src(), 100 * S, PlayOptions::default(), 0).unwrap();
    assert!(matches!(p.poll(0).unwrap(), Step::Publish(_)));
    // The glue woke late (2.5 s): /b is overdue, then /a is still due at 3 s.
    assert!(matches!(p.poll(2 * S + S / 2).unwrap(), Step::Publish(_)));
    assert_eq!(
        p.poll(2 * S + S / 2).unwrap(),
        Step::Wait { until_ns: 3 * S }
    );
}

#[test]
fn offset_duration_filter_remap_delay() {
    let opts = PlayOptions {
        start_offset_ns: S,
        playback_duration_ns: Some(S),
        remap: vec![("/b".into(), "/bb".into())],
        delay_ns: 5 * S,
        ..Default::default()
    };
    let mut p = Player::new(src(), 100 * S, opts, 0).unwrap();
    assert_eq!(run(&mut p, 0), vec![(5 * S, "/bb".into(), 101 * S)]);
    let opts = PlayOptions {
        exclude_topics: vec!["/a".into()],
        ..Default::default()
    };
    let mut p = Player::new(src(), 100 * S, opts, 0).unwrap();
    // The clock starts at the bag's start: /b waits its second.
    assert_eq!(run(&mut p, 0), vec![(S, "/b".into(), 101 * S)]);
    let mut p = Player::new(
        src(),
        100 * S,
        PlayOptions {
            playback_duration_ns: Some(0),
            ..Default::default()
        },
        0,
    )
    .unwrap();
    assert_eq!(run(&mut p, 0), vec![]);
}

#[test]
fn playback_until_stops_at_a_bag_time_and_the_earlier_end_wins() {
    let until = |until: u64, duration: Option<u64>| {
        let opts = PlayOptions {
            playback_until_ns: Some(until),
            playback_duration_ns: duration,
            ..Default::default()
        };
        let mut p = Player::new(src(), 100 * S, opts, 0).unwrap();
        run(&mut p, 0)
            .into_iter()
            .map(|(_, _, t)| t / S)
            .collect::<Vec<_>>()
    };
    assert_eq!(until(101 * S, None), [100, 101]);
    assert_eq!(until(101 * S - 1, None), [100]);
    assert_eq!(until(103 * S, Some(S)), [100, 101]);
    assert_eq!(until(100 * S, Some(10 * S)), [100]);
    assert_eq!(until(99 * S, None), Vec::<u64>::new());
}

#[test]
fn regex_selection_is_rosbag2s_storage_filter() {
    let re = |r: &str| Some(TopicRegex::new("-e", r).unwrap());
    let o = |topics: &[&str], regex, exclude_regex, exclude: &[&str]| PlayOptions {
        topics: topics.iter().map(|t| t.to_string()).collect(),
        regex,
        exclude_regex,
        exclude_topics: exclude.iter().map(|t| t.to_string()).collect(),
        ..PlayOptions::default()
    };
    let played = |o: &PlayOptions| {
        [
            "/arm/position",
            "/arm/command",
            "/eyes/observations",
            "/rosout",
        ]
        .into_iter()
        .filter(|t| o.plays(t))
        .collect::<Vec<_>>()
    };
    assert_eq!(played(&o(&[], None, None, &[])).len(), 4);
    // Whole-name match: `arm` alone matches nothing, `/arm/.*` both arm topics.
    assert!(played(&o(&[], re("arm"), None, &[])).is_empty());
    assert_eq!(
        played(&o(&[], re("/arm/.*"), None, &[])),
        ["/arm/position", "/arm/command"]
    );
    // Named topics and the regex add up; exclusions win over both.
    assert_eq!(
        played(&o(&["/rosout"], re("/arm/.*"), re(".*command"), &[])),
        ["/arm/position", "/rosout"]
    );
    assert_eq!(
        played(&o(&[], None, re("/(rosout|eyes/.*)"), &["/arm/command"])),
        ["/arm/position"]
    );
    assert!(TopicRegex::new("-e", "(").is_err());
    // The player skips what the regex leaves out.
    let mut p = Player::new(src(), 100 * S, o(&[], re("/b"), None, &[]), 0).unwrap();
    assert_eq!(run(&mut p, 0), vec![(S, "/b".to_string(), 101 * S)]);
}

#[test]
fn pause_step_resume_and_rate_keys() {
    let mut p = Player::new(
        src(),
        100 * S,
        PlayOptions {
            start_paused: true,
            ..Default::default()
        },
        0,
    )
    .unwrap();
    assert_eq!(p.poll(0).unwrap(), Step::Paused);
    assert_eq!(p.clock_time(7 * S), 100 * S);
    let m = p.on_key(Key::Right, 7 * S).unwrap().unwrap();
    assert_eq!(m.log_time, 100 * S);
    let m = p.on_key(Key::Right, 7 * S).unwrap().unwrap();
    assert_eq!((m.topic.as_ref(), m.log_time), ("/b", 101 * S));
    assert_eq!(p.clock_time(8 * S), 101 * S);
    p.on_key(Key::Space, 10 * S).unwrap();
    p.on_key(Key::Up, 10 * S).unwrap();
    assert!((p.rate() - 1.1).abs() < 1e-9);
    // 2 s of bag time at rate 1.1.
    assert_eq!(
        p.poll(10 * S).unwrap(),
        Step::Wait {
            until_ns: 10 * S + (2e9 / 1.1f64).ceil() as u64
        }
    );
    for _ in 0..20 {
        p.on_key(Key::Down, 10 * S).unwrap();
    }
    assert!(p.rate() > 0.0);
    assert!(p.set_rate(0, 0.0).is_err());
    assert!(Player::new(
        src(),
        0,
        PlayOptions {
            rate: f64::NAN,
            ..Default::default()
        },
        0
    )
    .is_err());
}

#[test]
fn loops_restart_with_delay() {
    let opts = PlayOptions {
        loop_playback: true,
        delay_ns: S,
        ..Default::default()
    };
    let mut p = Player::new(src(), 100 * S, opts, 0).unwrap();
    let mut now = 0;
    let mut times = Vec::new();
    while times.len() < 6 {
        match p.poll(now).unwrap() {
            Step::Publish(m) => times.push((now, m.log_time)),
            Step::Wait { until_ns } => now = until_ns,
            _ => unreachable!(),
        }
    }
    assert_eq!(times[3], (5 * S, 100 * S)); // 1 s delay + 3 s bag + 1 s delay
    assert_eq!(p.status(now).loops, 1);
}

#[test]
fn seek_jumps_the_clock_and_skips_what_is_before() {
    let mut p = Player::new(src(), 100 * S, PlayOptions::default(), 0).unwrap();
    // Forward, from the start: /a at 100 is skipped, /b at 101 plays at once.
    p.seek(0, 101 * S).unwrap();
    assert_eq!(p.clock_time(0), 101 * S);
    assert_eq!(
        run(&mut p, 0),
        vec![(0, "/b".into(), 101 * S), (2 * S, "/a".into(), 103 * S)]
    );
    // Back, after the first message: everything again from the start (a seek below it
    // clamps to it).
    let mut p = Player::new(src(), 100 * S, PlayOptions::default(), 0).unwrap();
    assert!(matches!(p.poll(0).unwrap(), Step::Publish(_)));
    p.seek(10 * S, 0).unwrap();
    assert_eq!(run(&mut p, 10 * S).len(), 3);
    // A finished player stays finished.
    assert!(p.is_finished());
    // Paused: stays paused at the new time; → plays the message after it.
    let mut p = Player::new(
        src(),
        100 * S,
        PlayOptions {
            start_paused: true,
            ..Default::default()
        },
        0,
    )
    .unwrap();
    p.seek(0, 102 * S).unwrap();
    assert!(p.is_paused());
    assert_eq!(p.clock_time(5 * S), 102 * S);
    assert_eq!(p.step(0).unwrap().map(|m| m.log_time), Some(103 * S));
}
