use super::*;
use serde_json::json;

fn base() -> Value {
    json!({
        "tasks": [
            {"name": "a", "points": 10, "approach_m": [0.5, 0.0],
             "steps": [{"move_m": [0.5, 0.1, 0.2], "timeout_ms": 3000}]},
            {"name": "b", "points": 4, "approach_m": [0.0, 0.5, 0.1], "deadline_s": 40,
             "steps": [
                {"follow_m": [0.1, 0.1], "smooth": true, "on_error": {"retry": 2}},
                {"send": {"name": "ClampGoTo", "device": 3, "fields": {"pos": 1}}, "on_error": "skip"},
                {"wait_for": {"topic": "/comms/rx", "equals": {"name": "ClampDone"}, "at_least": {"fields.pos": 1}}},
                {"delay_ms": 250, "name": "settle"}
             ]}
        ],
        "end_of_match": {"name": "funny", "points": 5, "steps": [{"send": {"id": 7}}]}
    })
}

fn load(v: &Value) -> Result<Strategy, Error> {
    Strategy::from_json(&v.to_string())
}

fn with(path: &[&str], value: Value) -> Value {
    let mut v = base();
    let mut cur = &mut v;
    for (i, key) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let next = match key.parse::<usize>() {
            Ok(n) => &mut cur[n],
            Err(_) => &mut cur[*key],
        };
        if last {
            *next = value.clone();
            break;
        }
        cur = next;
    }
    v
}

#[test]
fn a_full_file_loads_with_defaults() {
    let s = load(&base()).unwrap();
    assert_eq!(s.match_time, Duration::from_secs(90));
    assert_eq!(s.max_failures, 2);
    assert_eq!(s.start, Point::default());
    assert_eq!(s.tasks[0].approach, Point::new(0.5, 0.0, 0.0));
    assert_eq!(s.tasks[0].steps[0].name, "0 move");
    assert_eq!(
        s.tasks[0].steps[0].timeout,
        Some(Duration::from_millis(3000))
    );
    let b = &s.tasks[1];
    assert_eq!(b.deadline_s, Some(40.0));
    assert_eq!(
        b.steps[0].spec,
        StepSpec::Follow {
            goal: Point::new(0.1, 0.1, 0.0),
            smooth: true
        }
    );
    assert_eq!(b.steps[0].on_error, ErrorPolicy::Retry(2));
    assert_eq!(b.steps[1].on_error, ErrorPolicy::Skip);
    assert_eq!(b.steps[1].name, "1 send ClampGoTo");
    match &b.steps[1].spec {
        StepSpec::Send(p) => {
            assert_eq!((p.device, p.id), (3, None));
            assert_eq!(p.fields_json(), r#"{"pos":1}"#);
        }
        other => panic!("not a send: {other:?}"),
    }
    match &b.steps[2].spec {
        StepSpec::WaitFor(w) => assert_eq!(w.at_least, vec![("fields.pos".to_string(), 1.0)]),
        other => panic!("not a wait: {other:?}"),
    }
    assert_eq!(b.steps[3].name, "settle");
    assert_eq!(b.steps[3].spec, StepSpec::Delay(Duration::from_millis(250)));
    let end = s.end_of_match.unwrap();
    assert_eq!(end.steps[0].name, "0 send #7");
}

#[test]
fn errors_name_the_field() {
    let cases: Vec<(Value, Error)> = vec![
        (
            with(&["tasks", "0", "points"], json!(-1)),
            Error::OutOfRange {
                field: "tasks[0].points".into(),
                value: -1.0,
                reason: "must be >= 0",
            },
        ),
        (
            with(&["tasks", "1", "approach_m"], json!([1.0])),
            Error::BadPosition {
                field: "tasks[1].approach_m".into(),
                len: 1,
            },
        ),
        (
            with(&["tasks", "1", "name"], json!("a")),
            Error::DuplicateTask {
                field: "tasks[1].name".into(),
                name: "a".into(),
            },
        ),
        (
            with(&["tasks", "0", "name"], json!("  ")),
            Error::EmptyName {
                field: "tasks[0].name".into(),
            },
        ),
        (
            with(
                &["tasks", "0", "steps", "0"],
                json!({"move_m": [0, 0], "delay_ms": 3}),
            ),
            Error::StepKind {
                field: "tasks[0].steps[0]".into(),
                found: 2,
            },
        ),
        (
            with(&["tasks", "0", "steps", "0"], json!({"timeout_ms": 3})),
            Error::StepKind {
                field: "tasks[0].steps[0]".into(),
                found: 0,
            },
        ),
        (
            with(&["tasks", "1", "steps", "1", "on_error"], json!("ignore")),
            Error::UnknownPolicy {
                field: "tasks[1].steps[1].on_error".into(),
                value: "ignore".into(),
            },
        ),
        (
            with(&["tasks", "1", "steps", "1", "send", "device"], json!(32)),
            Error::OutOfRange {
                field: "tasks[1].steps[1].send.device".into(),
                value: 32.0,
                reason: "must be 0..31",
            },
        ),
        (
            with(
                &["end_of_match", "steps", "0", "send"],
                json!({"device": 1}),
            ),
            Error::PacketUnnamed {
                field: "end_of_match.steps[0].send".into(),
            },
        ),
        (
            with(
                &["tasks", "1", "steps", "2", "wait_for"],
                json!({"topic": "/x"}),
            ),
            Error::EmptyCondition {
                field: "tasks[1].steps[2].wait_for".into(),
            },
        ),
        (
            with(
                &["tasks", "1", "steps", "2", "wait_for", "at_most"],
                json!({"d": "high"}),
            ),
            Error::NotFinite {
                field: "tasks[1].steps[2].wait_for.at_most.d".into(),
            },
        ),
        (
            with(&["tasks", "0", "steps", "0", "timeout_ms"], json!(0)),
            Error::OutOfRange {
                field: "tasks[0].steps[0].timeout_ms".into(),
                value: 0.0,
                reason: "must be > 0",
            },
        ),
        (
            with(&["tasks", "1", "deadline_s"], json!(0)),
            Error::OutOfRange {
                field: "tasks[1].deadline_s".into(),
                value: 0.0,
                reason: "must be > 0",
            },
        ),
        (
            with(&["match_time_s"], json!(-5)),
            Error::OutOfRange {
                field: "match_time_s".into(),
                value: -5.0,
                reason: "must be > 0",
            },
        ),
        (
            with(&["match_time_s"], json!(1e300)),
            Error::OutOfRange {
                field: "match_time_s".into(),
                value: 1e300,
                reason: "is too large",
            },
        ),
        (
            with(&["max_failures"], json!(0)),
            Error::OutOfRange {
                field: "max_failures".into(),
                value: 0.0,
                reason: "must be >= 1",
            },
        ),
        (with(&["tasks"], json!([])), Error::NoTasks),
    ];
    for (input, want) in cases {
        assert_eq!(load(&input), Err(want.clone()), "input {input}");
        assert!(!want.to_string().is_empty());
    }
}

#[test]
fn unknown_keys_and_bad_json_are_parse_errors() {
    let typo = with(&["tasks", "0", "steps", "0"], json!({"mvoe_m": [0, 0]}));
    match load(&typo) {
        Err(Error::Parse { message }) => assert!(message.contains("mvoe_m"), "{message}"),
        other => panic!("{other:?}"),
    }
    match Strategy::from_json("{\"tasks\": [") {
        Err(Error::Parse { message }) => assert!(message.contains("line 1"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn demo_strategy_file_loads() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo_strategy.json");
    let text = std::fs::read_to_string(path).unwrap();
    let s = Strategy::from_json(&text).unwrap();
    assert!(s.tasks.len() >= 3);
    assert!(s.end_of_match.is_some());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Any text at all: an error or a strategy, never a panic.
    #[test]
    fn never_panics_on_any_input(text in ".{0,200}") {
        let _ = Strategy::from_json(&text);
    }

    #[test]
    fn never_panics_on_any_numbers(x in proptest::num::f64::ANY, n in proptest::num::f64::ANY) {
        let mut v = base();
        v["match_time_s"] = json!(n);
        v["tasks"][0]["approach_m"] = json!([x, 1.0]);
        v["tasks"][0]["points"] = json!(x);
        let _ = load(&v);
    }
}

#[test]
fn yellow_mirrors_every_position_and_nothing_else() {
    let text = include_str!("../../../../params/eurobot/strategy.json");
    let blue = Strategy::from_json(text).unwrap();
    let yellow = blue.clone().for_colour(arnie_math::Colour::Yellow, 3.0);
    assert_eq!(blue.clone().for_colour(arnie_math::Colour::Blue, 3.0), blue);
    assert!((yellow.start.x - (3.0 - blue.start.x)).abs() < 1e-12);
    assert_eq!(yellow.start.y, blue.start.y);
    for (b, y) in blue.tasks.iter().zip(&yellow.tasks) {
        assert!(
            (y.approach.x - (3.0 - b.approach.x)).abs() < 1e-12,
            "{}",
            b.name
        );
        assert_eq!(
            (y.approach.y, y.points, &y.name),
            (b.approach.y, b.points, &b.name)
        );
        assert_eq!(y.steps.len(), b.steps.len());
    }
    let moves = Strategy::from_json(
        r#"{"tasks":[{"name":"a","points":1,"approach_m":[0.5,0.5],
             "steps":[{"move_m":[0.2,0.3,0.0]},{"follow_m":[1.0,0.4]},{"delay_ms":5}]}]}"#,
    )
    .unwrap()
    .for_colour(arnie_math::Colour::Yellow, 3.0);
    let xs: Vec<f64> = moves.tasks[0]
        .steps
        .iter()
        .filter_map(|s| match &s.spec {
            StepSpec::Move(p) => Some(p.x),
            StepSpec::Follow { goal, .. } => Some(goal.x),
            _ => None,
        })
        .collect();
    assert_eq!(xs, vec![2.8, 2.0]);
}
