use super::*;

/// A 3 m × 2 m table, robot at (0.5, 1.0) facing +x, one front sensor.
fn scenario(extra: &str) -> Scenario {
    let base = r#"{"table":{"width_m":3,"height_m":2},
        "robot":{"start":{"x_m":0.5,"y_m":1.0,"theta_rad":0},"radius_m":0.15,
                 "max_linear_m_s":0.5,"max_angular_rad_s":3,"max_linear_accel_m_s2":1.0,
                 "max_angular_accel_rad_s2":10,"emergency_decel_m_s2":4,"watchdog_ms":300},
        "sensors":[{"name":"front","bearing_rad":0,"range_m":0.3,"rate_hz":20}],
        "actuators":[{"name":"clamp","id":0,"take_ms":600,"release_ms":400,"home_ms":300}],
        "tasks":[{"name":"t","points":5,"x_m":0.5,"y_m":1.0,"element":4}]}"#;
    let mut v: serde_json::Value = serde_json::from_str(base).expect("json");
    if !extra.is_empty() {
        let p: serde_json::Value = serde_json::from_str(extra).expect("json");
        for (k, x) in p.as_object().expect("obj") {
            v[k] = x.clone();
        }
    }
    Scenario::from_json(&v.to_string()).expect("valid")
}

fn board(extra: &str) -> Board {
    Board::new(
        scenario(extra),
        Options {
            noise_scale: 0.0,
            ..Options::default()
        },
    )
}

fn actuator(seq: u16, actuator: u8, action: u8, element: u8) -> Input {
    Input::Actuator(Actuator {
        seq,
        actuator,
        action,
        element,
    })
}

fn ack(command: u8, seq: u16, status: u8) -> Output {
    Output::Ack(Ack {
        command,
        seq,
        status,
    })
}

fn drive(seq: u16, v: i16, w: i16) -> Input {
    Input::Drive(DriveSpeed {
        seq,
        linear_mm_s: v,
        angular_mrad_s: w,
        watchdog_ms: 0,
    })
}

/// Keeps sending the command every 100 ms until `until_ms`; returns all outputs.
fn hold(b: &mut Board, from_ms: u64, until_ms: u64, v: i16, w: i16) -> Vec<Output> {
    let mut out = Vec::new();
    let mut t = from_ms;
    let mut seq = 1;
    while t < until_ms {
        out.extend(b.input(t, drive(seq, v, w)));
        seq += 1;
        t += 100;
    }
    out.extend(b.advance(until_ms));
    out
}

#[test]
fn drives_straight_with_acceleration_limit() {
    let mut b = board("");
    hold(&mut b, 0, 200, 500, 0);
    // After 0.2 s at 1 m/s² from rest: v = 0.2 m/s, x moved 0.02 m.
    let (v, _) = b.speeds();
    assert!((v - 0.2).abs() < 1e-9, "v {v}");
    assert!((b.truth().x - 0.52).abs() < 1e-3, "x {}", b.truth().x);
    hold(&mut b, 200, 1500, 500, 0);
    assert!((b.speeds().0 - 0.5).abs() < 1e-9, "reaches the command");
    // Distance: 0.125 m while accelerating to 0.5 in 0.5 s, then 0.5 m/s for 1 s.
    assert!(
        (b.truth().x - (0.5 + 0.125 + 0.5)).abs() < 2e-3,
        "x {}",
        b.truth().x
    );
    assert!((b.truth().y - 1.0).abs() < 1e-9);
    assert_eq!(b.odometry(), b.truth(), "no noise: odometry is the truth");
}

#[test]
fn speeds_are_clamped_to_the_limits() {
    let mut b = board("");
    hold(&mut b, 0, 3000, 5000, 10000);
    let (v, w) = b.speeds();
    assert!((v - 0.5).abs() < 1e-9 && (w - 3.0).abs() < 1e-9, "{v} {w}");
}

#[test]
fn turns_in_place() {
    let mut b = board("");
    hold(&mut b, 0, 2000, 0, 1000);
    // 1 rad/s after 0.1 s at 10 rad/s²: 0.05 + 1.9 = 1.95 rad.
    assert!(
        (b.truth().theta - 1.95).abs() < 5e-3,
        "theta {}",
        b.truth().theta
    );
    assert!((b.truth().x - 0.5).abs() < 1e-12);
}

#[test]
fn watchdog_stops_the_robot() {
    let mut b = board("");
    b.input(0, drive(1, 400, 0));
    b.advance(290);
    assert!(b.speeds().0 > 0.0);
    let out = b.advance(2000);
    assert_eq!(b.speeds().0, 0.0, "stopped after the watchdog");
    let events = b.take_events();
    let wd: Vec<_> = events.iter().filter(|e| e.kind == "watchdog").collect();
    assert_eq!(wd.len(), 1);
    assert!(wd[0].time_ms > 300 && wd[0].time_ms <= 305, "{:?}", wd[0]);
    let last_flags = out.iter().rev().find_map(|o| match o {
        Output::Odometry(Odometry { flags, .. }) => Some(*flags),
        _ => None,
    });
    assert_eq!(last_flags, Some(FLAG_WATCHDOG));
    // A per-command watchdog: 1000 ms.
    b.input(
        2000,
        Input::Drive(DriveSpeed {
            seq: 2,
            linear_mm_s: 100,
            angular_mrad_s: 0,
            watchdog_ms: 1000,
        }),
    );
    b.advance(2900);
    assert!(b.speeds().0 > 0.0, "still driving within its own watchdog");
    b.advance(3500);
    assert_eq!(b.speeds().0, 0.0);
}

#[test]
fn stop_brakes_acks_and_ignores_the_stale_seq() {
    let mut b = board("");
    hold(&mut b, 0, 1000, 500, 0);
    let out = b.input(1000, Input::Stop(Stop { seq: 9 }));
    assert!(out.contains(&ack(ID_STOP, 9, ACK_OK)));
    b.advance(1100);
    // 0.5 m/s at 4 m/s²: stopped within 125 ms.
    assert!(b.speeds().0 > 0.0);
    b.advance(1130);
    assert_eq!(b.speeds().0, 0.0);
    b.input(1130, drive(10, 500, 0)); // hold() last used seq 10
    b.advance(1300);
    assert_eq!(b.speeds().0, 0.0, "the same seq after Stop is stale");
    b.input(1300, drive(11, 500, 0));
    b.advance(1400);
    assert!(b.speeds().0 > 0.0, "a new seq drives again");
}

#[test]
fn odometry_at_its_rate_with_sequence() {
    let mut b = board("");
    let out = b.advance(1000);
    let odo: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Odometry(Odometry { seq, .. }) => Some(*seq),
            _ => None,
        })
        .collect();
    assert_eq!(odo.len(), 51, "t = 0, 20, ..., 1000 ms");
    assert!(odo.iter().enumerate().all(|(i, &s)| s as usize == i));
    assert_eq!(to_milli(1.2345), 1235);
    assert_eq!(to_milli(-40.0), i16::MIN, "saturated");
    assert_eq!(to_milli(f64::NAN), 0);
}

#[test]
fn noise_is_seeded() {
    let run = |seed| {
        let mut b = Board::new(
            scenario(r#"{"odometry":{"linear_noise":0.02,"angular_noise":0.02,"seed":1}}"#),
            Options {
                seed: Some(seed),
                ..Options::default()
            },
        );
        hold(&mut b, 0, 3000, 300, 200);
        (b.odometry(), b.truth())
    };
    let (a, t) = run(5);
    assert_eq!(run(5).0, a, "same seed, same odometry");
    assert_ne!(run(6).0, a);
    assert_ne!(a, t, "noise moves the estimate off the truth");
    assert!(
        (a.x - t.x).hypot(a.y - t.y) < 0.1,
        "but not far: {a:?} vs {t:?}"
    );
}

#[test]
fn sensors_see_walls_obstacles_and_the_opponent() {
    // Facing the left wall from 0.3 m: the wall is 0.15 m from the edge.
    let mut b = board(
        r#"{"robot":{"start":{"x_m":0.3,"y_m":1.0,"theta_rad":3.14159265},"radius_m":0.15}}"#,
    );
    let out = b.advance(0);
    let rep = out.iter().find_map(|o| match o {
        Output::Obstacle(ObstacleReport {
            sensor: 0,
            distance_mm,
            x_mm,
            ..
        }) => Some((*distance_mm, *x_mm)),
        _ => None,
    });
    let (d, x) = rep.expect("the wall is seen");
    assert!(
        (d as i32 - 150).abs() <= 1 && x.abs() < 1.0,
        "{d} mm at x {x}"
    );
    // Facing an open table: nothing.
    let mut b = board("");
    assert!(!b
        .advance(0)
        .iter()
        .any(|o| matches!(o, Output::Obstacle(ObstacleReport { .. }))));
    // A rock 0.4 m ahead (0.25 m from the edge): seen.
    let mut b =
        board(r#"{"obstacles":[{"name":"rock","disc":{"x_m":1.0,"y_m":1.0,"radius_m":0.1}}]}"#);
    let out = b.advance(0);
    assert!(
        out.iter().any(|o| matches!(
            o,
            Output::Obstacle(ObstacleReport {
                distance_mm: 250,
                ..
            })
        )),
        "{out:?}"
    );
    // The opponent drives in front of us at t ≈ 2 s.
    let mut b = board(
        r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.5,"start_on":"board_start",
            "waypoints":[{"x_m":0.9,"y_m":0.2},{"x_m":0.9,"y_m":1.8}]}}"#,
    );
    let seen_at = |b: &mut Board, t: u64| {
        b.advance(t)
            .iter()
            .any(|o| matches!(o, Output::Obstacle(ObstacleReport { .. })))
    };
    assert!(!seen_at(&mut b, 0), "far away at first");
    assert!(seen_at(&mut b, 1600), "in front at t 1.6 s");
    assert!(b.take_events().iter().any(|e| e.kind == "sees_opponent"));
    b.advance(3400);
    assert!(!seen_at(&mut b, 3500), "gone past");
}

#[test]
fn the_opponent_starts_with_our_first_motion() {
    let op = r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.5,"start_delay_s":1.0,
        "waypoints":[{"x_m":2.5,"y_m":0.3},{"x_m":2.5,"y_m":1.7}]}}"#;
    let mut b = board(op);
    // Standing at its first waypoint however long the stack takes to come up; a
    // command to stand still is no start either.
    b.advance(20_000);
    b.input(20_000, drive(1, 0, 0));
    b.advance(30_000);
    assert_eq!(b.opponent(), Some((2.5, 0.3, 0.0)));
    assert!(!b.take_events().iter().any(|e| e.kind == "opponent_starts"));
    // Our robot moves at 30 s: its script runs from there (1 s delay, then 0.5 m/s).
    b.input(30_000, drive(2, 100, 0));
    let started: Vec<Event> = b
        .take_events()
        .into_iter()
        .filter(|e| e.kind == "opponent_starts")
        .collect();
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(started[0].time_ms, 30_000);
    b.advance(31_000);
    assert_eq!(b.opponent().map(|(x, y, _)| (x, y)), Some((2.5, 0.3)));
    b.input(31_000, drive(3, 100, 0));
    b.advance(33_000);
    let (x, y, heading) = b.opponent().expect("an opponent");
    assert!(
        (x - 2.5).abs() < 1e-9 && (y - 1.3).abs() < 1e-9,
        "({x}, {y})"
    );
    assert!((heading - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    // Later motion commands do not restart it.
    b.input(33_000, drive(4, 0, 500));
    assert!(!b.take_events().iter().any(|e| e.kind == "opponent_starts"));

    // "board_start": the script runs from board time 0 without any command.
    let mut b = board(&op.replace(
        "\"start_delay_s\"",
        "\"start_on\":\"board_start\",\"start_delay_s\"",
    ));
    b.advance(3_000);
    let (_, y, _) = b.opponent().expect("an opponent");
    assert!((y - 1.3).abs() < 1e-9, "{y}");
}

#[test]
fn walls_stop_the_robot() {
    let mut b = board(r#"{"robot":{"start":{"x_m":2.5,"y_m":1.0,"theta_rad":0},"radius_m":0.15}}"#);
    hold(&mut b, 0, 3000, 500, 0);
    assert!(
        b.truth().x <= 2.85 + 1e-9 && b.truth().x > 2.8,
        "x {}",
        b.truth().x
    );
    assert!(b.take_events().iter().any(|e| e.kind == "collision"));
    // Backing away works.
    hold(&mut b, 3000, 4000, -200, 0);
    assert!(b.truth().x < 2.8);
}

#[test]
fn actuators_take_their_time() {
    let mut b = board("");
    let out = b.input(100, actuator(3, 0, 1, 4));
    let acks: Vec<_> = out
        .into_iter()
        .filter(|o| matches!(o, Output::Ack(Ack { .. })))
        .collect();
    assert_eq!(acks, vec![ack(ID_ACTUATOR, 3, ACK_OK)]);
    let busy = b.input(200, actuator(4, 0, 0, 0));
    assert!(busy.contains(&ack(ID_ACTUATOR, 4, ACK_BUSY)));
    let bad = b.input(200, actuator(5, 7, 0, 0));
    assert!(bad.contains(&ack(ID_ACTUATOR, 5, ACK_INVALID)));
    let bad = b.input(200, actuator(6, 0, 9, 0));
    assert!(bad.contains(&ack(ID_ACTUATOR, 6, ACK_INVALID)));
    let done = |out: &[Output]| {
        out.iter().find_map(|o| match o {
            Output::ActuatorDone(ActuatorDone {
                seq,
                status,
                duration_ms,
                ..
            }) => Some((*seq, *status, *duration_ms)),
            _ => None,
        })
    };
    assert_eq!(done(&b.advance(699)), None, "not before 600 ms");
    assert_eq!(
        done(&b.advance(700)),
        Some((3, DONE_OK, 600)),
        "the robot stands at task t"
    );
    // Element 4 is gone now: a second take fails.
    b.input(800, actuator(7, 0, 1, 4));
    assert_eq!(done(&b.advance(1400)), Some((7, DONE_FAILED, 600)));
    assert!(b.taken().contains(&4));
    // Release needs no element.
    b.input(1500, actuator(8, 0, 0, 0));
    assert_eq!(done(&b.advance(1900)), Some((8, DONE_OK, 400)));
}

#[test]
fn set_pose_moves_the_odometry_only() {
    let mut b = board("");
    let out = b.input(
        0,
        Input::SetPose(SetPose {
            seq: 2,
            x_mm: 1000.0,
            y_mm: 500.0,
            theta_mrad: 0.0,
        }),
    );
    assert!(out.contains(&ack(ID_SET_POSE, 2, ACK_OK)));
    assert_eq!((b.odometry().x, b.truth().x), (1.0, 0.5));
    let out = b.input(
        0,
        Input::SetPose(SetPose {
            seq: 3,
            x_mm: f32::NAN,
            y_mm: 0.0,
            theta_mrad: 0.0,
        }),
    );
    assert!(out.contains(&ack(ID_SET_POSE, 3, ACK_INVALID)));
}

fn cords(out: &[Output]) -> Vec<StartCord> {
    out.iter()
        .filter_map(|o| match o {
            Output::StartCord(c) => Some(*c),
            _ => None,
        })
        .collect()
}

#[test]
fn the_start_cord_is_reported_every_100_ms_and_on_each_change() {
    let mut b = board("");
    let out = b.advance(1000);
    let c = cords(&out);
    assert_eq!(c.len(), 11, "at 0, 100, ... 1000 ms");
    assert!(c
        .iter()
        .all(|c| !c.pulled && c.pulls == 0 && c.since_pull_ms == 0));
    let out = b.pull_cord(1234);
    let c = cords(&out);
    assert_eq!(
        c.last().map(|c| (c.pulled, c.pulls, c.since_pull_ms)),
        Some((true, 1, 0))
    );
    let out = b.advance(1534);
    let last = *cords(&out).last().unwrap();
    assert!(last.pulled && last.since_pull_ms >= 200, "{last:?}");
    // A second pull: put back, then pulled again; both changes reported.
    let out = b.pull_cord(2000);
    let c = cords(&out);
    assert_eq!(
        c[c.len() - 2..]
            .iter()
            .map(|c| (c.pulled, c.pulls))
            .collect::<Vec<_>>(),
        vec![(false, 1), (true, 2)]
    );
    let kinds: Vec<&str> = b.take_events().iter().map(|e| e.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "cord_pulled").count(), 2);
    b.insert_cord(2100);
    assert!(!b.cord_out());
}

#[test]
fn match_ready_is_acked_and_the_operator_pulls_the_cord_after_the_delay() {
    let mut b = Board::new(
        scenario(""),
        Options {
            noise_scale: 0.0,
            cord_pull_after_ready_ms: Some(500),
            ..Options::default()
        },
    );
    let ready = |seq, colour| {
        Input::MatchReady(MatchReady {
            seq,
            colour,
            duration_s: 100,
        })
    };
    let out = b.input(100, ready(7, 1));
    assert!(out.contains(&ack(ID_MATCH_READY, 7, ACK_OK)));
    assert!(!b.cord_out());
    b.advance(599);
    assert!(!b.cord_out());
    let out = b.advance(600);
    assert!(b.cord_out());
    assert!(cords(&out).iter().any(|c| c.pulled && c.pulls == 1));
    // Armed again with the cord out: put back at once, pulled 500 ms later.
    b.input(1000, ready(8, 0));
    assert!(!b.cord_out());
    b.advance(1500);
    assert!(b.cord_out());
    // An unknown colour is refused and arms nothing.
    let out = b.input(2000, ready(9, 7));
    assert!(out.contains(&ack(ID_MATCH_READY, 9, ACK_INVALID)));
    assert!(b.cord_out(), "nothing put back");
}

#[test]
fn an_opponent_that_starts_on_the_cord_waits_for_it() {
    let mut b = board(
        r#"{"opponent":{"radius_m":0.1,"speed_m_s":1.0,"start_on":"cord",
            "waypoints":[{"x_m":2.5,"y_m":0.5},{"x_m":2.5,"y_m":1.5}]}}"#,
    );
    b.input(0, drive(1, 200, 0));
    b.advance(1000);
    assert_eq!(
        b.opponent().map(|o| o.1),
        Some(0.5),
        "our motion does not start it"
    );
    b.pull_cord(1000);
    b.advance(1500);
    let y = b.opponent().unwrap().1;
    assert!((y - 1.0).abs() < 1e-6, "{y}");
}

#[test]
fn the_lidar_streams_packets_from_the_true_pose_and_can_be_switched_off() {
    let mut b = Board::new(
        scenario(r#"{"lidar":{"seed":1}}"#),
        Options {
            noise_scale: 0.0,
            lidar: true,
            ..Options::default()
        },
    );
    assert_eq!(b.lidar_on(), Some(true));
    b.advance(1000);
    let bytes = b.take_lidar_bytes();
    assert_eq!(bytes.len(), 375 * ld06::PACKET_LEN);
    let mut d = ld06::Decoder::new(0.05);
    d.push(&bytes, 1.0);
    let packets: Vec<_> = std::iter::from_fn(|| d.next_packet()).collect();
    assert!(packets.iter().all(Result::is_ok));
    // The robot at (0.5, 1.0): the wall behind at 0.5 m (device 180° = laser 180°).
    let behind = packets
        .iter()
        .flatten()
        .flat_map(|p| (0..12).map(move |i| (p.angle_deg(i), p.points[i].distance_mm)))
        .find(|(a, _)| (a - 180.0).abs() < 0.5)
        .unwrap();
    assert!((i32::from(behind.1) - 500).abs() <= 1, "{behind:?}");
    assert!(b.set_lidar_power(false, 1000));
    b.advance(2000);
    assert!(b.take_lidar_bytes().is_empty());
    // Without the option, or without a scenario lidar, there is none.
    let mut quiet = board(r#"{"lidar":{}}"#);
    quiet.advance(500);
    assert!(quiet.take_lidar_bytes().is_empty());
    assert_eq!(board("").lidar_on(), None);
}
