use super::*;

const MIN: &str =
    r#"{"table":{"width_m":3,"height_m":2},"robot":{"start":{"x_m":0.3,"y_m":1},"radius_m":0.15}}"#;

fn with(patch: &str) -> Result<Scenario, ScenarioError> {
    let mut v: serde_json::Value = serde_json::from_str(MIN).expect("json");
    let p: serde_json::Value = serde_json::from_str(patch).expect("patch json");
    for (k, x) in p.as_object().expect("object") {
        v[k] = x.clone();
    }
    Scenario::from_json(&v.to_string())
}

#[test]
fn the_shipped_scenario_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../params/eurobot/table.json");
    let s = Scenario::load(&path).expect("params/eurobot/table.json loads");
    assert_eq!((s.table.width_m, s.table.height_m), (3.0, 2.0));
    assert!(s.opponent.is_some() && s.tasks.len() >= 3 && !s.sensors.is_empty());
    assert!(s.r#match.expected_points > 0);
}

#[test]
fn minimal_defaults() {
    let s = with("{}").expect("minimal");
    assert_eq!(s.frame_id, "map");
    assert_eq!(s.odometry.rate_hz, 50.0);
    assert_eq!(s.robot.watchdog_ms, 300);
}

#[test]
fn bad_scenarios_name_the_field() {
    let cases = [
        (r#"{"table":{"width_m":0,"height_m":2}}"#, "table.width_m"),
        (
            r#"{"table":{"width_m":3,"height_m":2,"depth":1}}"#,
            "unknown field",
        ),
        (
            r#"{"obstacles":[{"rect":{"x_min_m":1,"y_min_m":0,"x_max_m":3.5,"y_max_m":1}}]}"#,
            "obstacles[0].rect.x_max_m",
        ),
        (r#"{"obstacles":[{"name":"a"}]}"#, "exactly one"),
        (
            r#"{"obstacles":[{"disc":{"x_m":0.3,"y_m":1,"radius_m":0.1}}]}"#,
            "robot.start",
        ),
        (
            r#"{"robot":{"start":{"x_m":0.1,"y_m":1},"radius_m":0.15}}"#,
            "robot.start",
        ),
        (
            r#"{"robot":{"start":{"x_m":0.5,"y_m":1},"radius_m":-1}}"#,
            "robot.radius_m",
        ),
        (
            r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.3,"waypoints":[]}}"#,
            "opponent.waypoints",
        ),
        (
            r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.3,"waypoints":[{"x_m":4,"y_m":1}]}}"#,
            "opponent.waypoints[0]",
        ),
        (
            r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1,"steps":[{"actuator":"claw","action":"take"}]}]}"#,
            "no actuator",
        ),
        (
            r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1,"steps":[{"actuator":"claw","action":"eat"}]}]}"#,
            "unknown variant",
        ),
        (
            r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1},{"name":"a","points":1,"x_m":1,"y_m":1}]}"#,
            "used twice",
        ),
        (r#"{"match":{"duration_s":-1}}"#, "match.duration_s"),
    ];
    for (patch, want) in cases {
        let e = with(patch).expect_err(patch).to_string();
        assert!(e.contains(want), "{patch}: {e}");
    }
    let many: Vec<String> = (0..300)
        .map(|_| r#"{"disc":{"x_m":2,"y_m":1,"radius_m":0.1}}"#.to_string())
        .collect();
    let e = with(&format!(r#"{{"obstacles":[{}]}}"#, many.join(","))).expect_err("too many");
    assert!(e.reason.to_string().contains("at most 256"), "{e}");
    let e = Scenario::from_json(&MIN.replace("0.15}", "1e400}")).expect_err("inf");
    assert!(e.reason.to_string().contains("not a scenario"), "{e}");
    let e = Scenario::load(Path::new("/nonexistent/table.json")).expect_err("missing");
    assert!(e.to_string().contains("/nonexistent/table.json"), "{e}");
}

#[test]
fn pose_problems() {
    let s = with(r#"{"obstacles":[{"name":"rock","disc":{"x_m":1.5,"y_m":1,"radius_m":0.1}}]}"#)
        .expect("ok");
    assert!(s.pose_problem(1.0, 1.0, 0.15).is_none());
    assert!(s
        .pose_problem(f64::NAN, 1.0, 0.15)
        .expect("nan")
        .contains("finite"));
    assert!(s
        .pose_problem(3.5, 1.0, 0.15)
        .expect("off")
        .contains("outside"));
    assert!(s
        .pose_problem(1.6, 1.0, 0.15)
        .expect("rock")
        .contains("rock"));
}

#[test]
fn yellow_is_blue_mirrored_and_passes_the_same_checks() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../params/eurobot/table.json");
    let blue = Scenario::load(&path).expect("loads");
    let yellow = blue.for_colour(arnie_math::Colour::Yellow);
    yellow.validate().expect("the mirror is a valid scenario");
    assert_eq!(blue.for_colour(arnie_math::Colour::Blue), blue);
    let w = blue.table.width_m;
    assert!((yellow.robot.start.x - (w - blue.robot.start.x)).abs() < 1e-12);
    assert!((yellow.robot.start.theta - std::f64::consts::PI).abs() < 1e-12);
    for (b, y) in blue.tasks.iter().zip(&yellow.tasks) {
        assert!(
            (y.x_m - (w - b.x_m)).abs() < 1e-12 && y.y_m == b.y_m,
            "{}",
            b.name
        );
    }
    let (bo, yo) = (
        blue.opponent.as_ref().unwrap(),
        yellow.opponent.as_ref().unwrap(),
    );
    for (b, y) in bo.waypoints.iter().zip(&yo.waypoints) {
        assert!((y.x_m - (w - b.x_m)).abs() < 1e-12 && y.y_m == b.y_m);
    }
    // Every point blocked on one side is blocked at its mirror on the other.
    for i in 0..60 {
        for j in 0..40 {
            let (x, y) = (0.025 + i as f64 * 0.05, 0.025 + j as f64 * 0.05);
            assert_eq!(
                blue.blocked_at(x, y, 0.0),
                yellow.blocked_at(w - x, y, 0.0),
                "({x}, {y})"
            );
        }
    }
    // And back: yellow mirrored again is blue.
    let back = yellow.for_colour(arnie_math::Colour::Yellow);
    assert!((back.robot.start.x - blue.robot.start.x).abs() < 1e-12);
}

#[test]
fn the_lidar_section_is_checked() {
    let s = with(r#"{"lidar":{}}"#).expect("defaults");
    let l = s.lidar.unwrap();
    assert_eq!(
        (l.rate_hz, l.samples_per_s, l.range_max_m),
        (10.0, 4500.0, 12.0)
    );
    assert!(l.clockwise);
    for (patch, field) in [
        (r#"{"lidar":{"rate_hz":50}}"#, "lidar.rate_hz"),
        (r#"{"lidar":{"dropout":1.5}}"#, "lidar.dropout"),
        (r#"{"lidar":{"mount":{"x_m":0.5}}}"#, "lidar.mount"),
        (
            r#"{"lidar":{"range_min_m":0.5,"range_max_m":0.4}}"#,
            "lidar.range_max_m",
        ),
        (r#"{"lidar":{"spin":1}}"#, "unknown field"),
    ] {
        let e = with(patch).unwrap_err().to_string();
        assert!(e.contains(field), "{patch}: {e}");
    }
}

/// The URDF's `laser_joint` is where the scenario's LiDAR sits (x, y, yaw): the scans the
/// base places through TF are the simulated ones.
#[test]
fn the_urdf_laser_is_the_scenario_s_lidar() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let s = Scenario::load(&dir.join("params/eurobot/table.json")).expect("loads");
    let mount = s.lidar.expect("the shipped table has a LiDAR").mount;
    let urdf = std::fs::read_to_string(dir.join("nodes/arnie_bringup/urdf/eurobot_base.urdf"))
        .expect("urdf");
    let joint = &urdf[urdf
        .find("<joint name=\"laser_joint\"")
        .expect("laser_joint")..];
    let joint = &joint[..joint.find("</joint>").expect("end")];
    assert!(
        joint.contains("<child link=\"laser\"/>") && joint.contains("<parent link=\"base_link\"/>")
    );
    let attr = |name: &str| -> Vec<f64> {
        let at = joint.find(&format!("{name}=\"")).expect(name) + name.len() + 2;
        let end = joint[at..].find('"').expect("quote");
        joint[at..at + end]
            .split_whitespace()
            .map(|v| v.parse().expect("number"))
            .collect()
    };
    let (xyz, rpy) = (attr("xyz"), attr("rpy"));
    assert_eq!(
        (xyz[0], xyz[1], rpy[2]),
        (mount.x_m, mount.y_m, mount.yaw_rad)
    );
}
