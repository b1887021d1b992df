//! The runner against a fake robot: default order, re-scoring after trouble, drops,
//! deadlines, replan requests, the match timer and the end-of-match task.
//! Time is paused: a 90 s match takes no time and every instant is exact.

mod common;

use std::sync::Arc;
use std::time::Duration;

use arnie_strategy::event::{EventKind, EventSink};
use arnie_strategy::runner::{EndReason, Report, Runner};
use arnie_strategy::stop::{StopSource, StopToken};
use arnie_strategy::task::{Point, Strategy};
use common::{drain, fmt, Fake};
use serde_json::{json, Value};
use tokio::time::Instant;

fn task(name: &str, points: f64, at: [f64; 2], steps: Value) -> Value {
    json!({"name": name, "points": points, "approach_m": at, "steps": steps})
}

fn strategy(tasks: Vec<Value>, extra: Value) -> Strategy {
    let mut v = json!({"tasks": tasks});
    if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
        v.extend(extra.clone());
    }
    Strategy::from_json(&v.to_string()).unwrap()
}

async fn run(
    s: Strategy,
    robot: Arc<Fake>,
) -> (Report, Vec<String>, Vec<arnie_strategy::event::Event>) {
    let (sink, mut rx) = EventSink::channel();
    let report = Runner::new(s, robot, sink).run(StopToken::never()).await;
    let events = drain(&mut rx);
    (report, events.iter().map(fmt).collect(), events)
}

fn selected(ev: &[String]) -> Vec<String> {
    ev.iter()
        .filter(|e| e.contains(":selected"))
        .map(|e| e.split(':').next().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn default_order_when_all_goes_well() {
    let s = strategy(
        vec![
            task("a", 3.0, [1.0, 0.0], json!([{"send": {"name": "Grab"}}])),
            task(
                "b",
                100.0,
                [1.0, 1.0],
                json!([{"wait_for": {"topic": "/comms/rx", "equals": {"name": "Ok"}}}]),
            ),
        ],
        json!({}),
    );
    let robot = Arc::new(Fake::new());
    let t0 = Instant::now();
    let (report, ev, raw) = run(s, robot.clone()).await;
    assert_eq!(report.end, EndReason::AllDone);
    assert_eq!(report.points, 103.0);
    assert_eq!(report.done, ["a", "b"]);
    assert!(report.failed.is_empty() && report.remaining.is_empty());
    assert_eq!(
        robot.log(),
        [
            "plan 1.00,0.00,0.00",
            "move 1.00,0.00,0.00",
            "send Grab",
            "plan 1.00,1.00,0.00",
            "move 1.00,1.00,0.00",
            "wait /comms/rx"
        ]
    );
    // 1 m, then 1 m, then a 2 s wait.
    assert_eq!(t0.elapsed(), Duration::from_secs(4));
    assert_eq!(
        ev,
        [
            ":started 0/2",
            "a:selected 0/2 default order",
            "a:started 0/2",
            "a:next 1/2 [approach]",
            "a:next 2/2 [0 send Grab]",
            "a:finished 2/2",
            "b:selected 1/2 default order",
            "b:started 0/2",
            "b:next 1/2 [approach]",
            "b:next 2/2 [0 wait /comms/rx]",
            "b:finished 2/2",
            ":finished 2/2"
        ]
    );
    assert!(
        raw.iter().all(|e| e.scores.is_empty()),
        "default picks carry no scores"
    );
}

#[tokio::test(start_paused = true)]
async fn a_failure_rescores_then_default_order_resumes_and_n_failures_drop() {
    // a fails (packet), then c (10 pts at 1 m) beats b (10 pts at 5 m); after c the
    // default order resumes with a, which fails again and is dropped; b last.
    let s = strategy(
        vec![
            task("a", 50.0, [0.0, 1.0], json!([{"send": {"name": "Jam"}}])),
            task("b", 10.0, [5.0, 1.0], json!([])),
            task("c", 10.0, [1.0, 1.0], json!([])),
        ],
        json!({"max_failures": 2}),
    );
    let robot = Arc::new(Fake::new());
    robot.failing_packets.lock().unwrap().push("Jam".into());
    let (report, ev, raw) = run(s, robot).await;
    assert_eq!(selected(&ev), ["a", "c", "a", "b"]);
    assert_eq!(report.done, ["c", "b"]);
    assert_eq!(report.failed, ["a"]);
    assert_eq!(report.points, 20.0);
    assert!(ev.contains(&"a:error 0/3 failure 1/2: packet not sent: no reply".to_owned()));
    assert!(ev.contains(
        &"a:error 1/3 dropped: failed 2/2 times; last: packet not sent: no reply".to_owned()
    ));
    // The scored pick carries the scores: straight line from (0, 1) (no planner).
    let pick = raw
        .iter()
        .find(|e| e.kind == EventKind::TaskSelected && e.task == "c")
        .unwrap();
    assert_eq!(pick.message, "best points/cost");
    let costs: Vec<(String, f64, f64)> = pick
        .scores
        .iter()
        .map(|s| (s.task.clone(), s.cost_m, s.score))
        .collect();
    assert_eq!(
        costs,
        [("b".to_owned(), 5.0, 2.0), ("c".to_owned(), 1.0, 10.0)]
    );
    // a's second try comes from the default order; b after a's drop is scored alone.
    let last = raw
        .iter()
        .rfind(|e| e.kind == EventKind::TaskSelected)
        .unwrap();
    assert_eq!((last.task.as_str(), last.scores.len()), ("b", 1));
}

#[tokio::test(start_paused = true)]
async fn a_blocked_path_rescores_with_planned_lengths_and_ties_follow_default_order() {
    // a's move is blocked. From a's approach (0, 0): b and c score the same by the
    // planner (b: 4 pts / 2 m, c: 2 pts / 1 m) → b (default order) wins the tie, even
    // though d is nearer in a straight line: its planned path is 40 m.
    let s = strategy(
        vec![
            task("a", 9.0, [0.0, 0.0], json!([{"move_m": [0.5, 0.5]}])),
            task("b", 4.0, [2.0, 0.0], json!([])),
            task("c", 2.0, [0.0, 1.0], json!([])),
            task("d", 3.0, [0.5, 0.0], json!([])),
        ],
        json!({"max_failures": 1}),
    );
    let robot = Arc::new(Fake::with_planner(1.0));
    robot.block(Point::new(0.5, 0.5, 0.0));
    robot
        .plan_override
        .lock()
        .unwrap()
        .insert(common::key(&Point::new(0.5, 0.0, 0.0)), Some(40.0));
    let (report, ev, raw) = run(s, robot).await;
    assert!(
        ev.contains(&"a:error 1/2 [0 move] move ended ReversedToStart: obstacle".to_owned()),
        "{ev:#?}"
    );
    let pick = raw
        .iter()
        .find(|e| e.kind == EventKind::TaskSelected && !e.scores.is_empty())
        .unwrap();
    assert_eq!(pick.task, "b");
    let scores: Vec<f64> = pick.scores.iter().map(|s| s.score).collect();
    assert_eq!(scores, [2.0, 2.0, 0.075]);
    assert_eq!(report.failed, ["a"]);
    assert_eq!(report.done, ["b", "c", "d"]);
}

#[tokio::test(start_paused = true)]
async fn no_reachable_task_waits_and_the_timer_ends_the_match() {
    let s = strategy(
        vec![
            task("a", 5.0, [1.0, 0.0], json!([{"send": {"name": "Jam"}}])),
            task("b", 5.0, [2.0, 0.0], json!([])),
        ],
        json!({"match_time_s": 10, "max_failures": 5, "unreachable_retry_ms": 1000,
               "end_of_match": {"name": "flag", "points": 7, "steps": [{"send": {"name": "Flag"}}]}}),
    );
    let robot = Arc::new(Fake::with_planner(1.0));
    robot.failing_packets.lock().unwrap().push("Jam".into());
    // b can never be reached; a's approach is reachable but a always fails.
    robot
        .plan_override
        .lock()
        .unwrap()
        .insert(common::key(&Point::new(2.0, 0.0, 0.0)), None);
    let t0 = Instant::now();
    let (report, ev, raw) = run(s, robot.clone()).await;
    assert_eq!(t0.elapsed(), Duration::from_secs(10), "the timer is exact");
    assert_eq!(report.end, EndReason::MatchTimer);
    assert_eq!(report.done, ["flag"]);
    assert_eq!(report.points, 7.0);
    assert_eq!(report.remaining, ["a", "b"]);
    // After a fails, only b is a candidate (a just failed) and b is unreachable.
    let unreachable = raw
        .iter()
        .find(|e| e.message == "no reachable task")
        .unwrap();
    assert_eq!(unreachable.scores.len(), 1);
    assert!(!unreachable.scores[0].reachable);
    assert!(
        ev.iter()
            .filter(|e| e.ends_with("no reachable task"))
            .count()
            >= 1
    );
    let tail: Vec<&str> = ev.iter().rev().take(4).rev().map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            ":stopped 0/2 match timer",
            "flag:started 0/1",
            "flag:next 1/1 [0 send Flag]",
            "flag:finished 1/1"
        ]
    );
    assert_eq!(robot.log().last().map(String::as_str), Some("send Flag"));
}

#[tokio::test(start_paused = true)]
async fn the_match_timer_cancels_the_task_in_flight() {
    // Default 90 s; the task's 100 s delay is cut at 90 s.
    let s = strategy(
        vec![
            task("slow", 5.0, [0.0, 0.0], json!([{"delay_ms": 100000}])),
            task("next", 1.0, [0.0, 0.0], json!([])),
        ],
        json!({"end_of_match": {"name": "end", "steps": []}}),
    );
    let t0 = Instant::now();
    let (report, ev, _) = run(s, Arc::new(Fake::new())).await;
    assert_eq!(t0.elapsed(), Duration::from_secs(90));
    assert_eq!((report.end, report.points), (EndReason::MatchTimer, 0.0));
    assert_eq!(report.remaining, ["slow", "next"]);
    assert_eq!(
        ev,
        [
            ":started 0/2",
            "slow:selected 0/2 default order",
            "slow:started 0/2",
            "slow:next 1/2 [approach]",
            "slow:stopped 1/2 [0 delay 100000 ms]",
            ":stopped 0/2 match timer",
            "end:started 0/0",
            "end:finished 0/0"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn match_time_override_and_external_stop_skip_the_end_task() {
    let s = strategy(
        vec![task("slow", 5.0, [0.0, 0.0], json!([{"delay_ms": 100000}]))],
        json!({"end_of_match": {"name": "end", "points": 3, "steps": []}}),
    );
    let (sink, mut rx) = EventSink::channel();
    let (src, token) = StopSource::new();
    let runner =
        Runner::new(s, Arc::new(Fake::new()), sink).with_match_time(Duration::from_secs(30));
    let handle = tokio::spawn(runner.run(token));
    tokio::time::sleep(Duration::from_secs(12)).await;
    src.stop();
    let report = handle.await.unwrap();
    assert_eq!(report.end, EndReason::Stopped);
    assert!(report.done.is_empty());
    let ev: Vec<String> = drain(&mut rx).iter().map(fmt).collect();
    assert_eq!(ev.last().map(String::as_str), Some(":stopped 0/1 stopped"));
    assert!(!ev.iter().any(|e| e.starts_with("end:")));
}

#[tokio::test(start_paused = true)]
async fn a_replan_request_interrupts_without_counting_a_failure() {
    let s = strategy(
        vec![
            task("a", 1.0, [0.0, 0.0], json!([{"delay_ms": 10000}])),
            task("b", 1.0, [3.0, 0.0], json!([])),
            task("c", 1.0, [1.0, 0.0], json!([])),
        ],
        json!({"max_failures": 1}),
    );
    let (sink, mut rx) = EventSink::channel();
    let runner = Runner::new(s, Arc::new(Fake::new()), sink);
    let replan = runner.replan_handle();
    let handle = tokio::spawn(runner.run(StopToken::never()));
    tokio::time::sleep(Duration::from_secs(1)).await;
    replan.request();
    let report = handle.await.unwrap();
    let ev: Vec<String> = drain(&mut rx).iter().map(fmt).collect();
    // a interrupted (not dropped even with max_failures 1); c is nearer than b.
    assert_eq!(selected(&ev), ["a", "c", "a", "b"]);
    assert!(ev.contains(&"a:stopped 1/2 [0 delay 10000 ms]".to_owned()));
    assert_eq!(report.done, ["c", "a", "b"]);
    assert!(report.failed.is_empty());
}

#[tokio::test(start_paused = true)]
async fn deadlines_drop_tasks_in_flight_and_not_yet_started() {
    let s = strategy(
        vec![
            json!({"name": "a", "points": 1, "approach_m": [0, 0], "deadline_s": 5, "steps": [{"delay_ms": 10000}]}),
            json!({"name": "b", "points": 1, "approach_m": [0, 0], "deadline_s": 4, "steps": []}),
            json!({"name": "c", "points": 2, "approach_m": [0, 0], "steps": []}),
        ],
        json!({}),
    );
    let t0 = Instant::now();
    let (report, ev, _) = run(s, Arc::new(Fake::new())).await;
    assert_eq!(t0.elapsed(), Duration::from_secs(5));
    assert_eq!(report.failed, ["a", "b"]);
    assert_eq!(report.done, ["c"]);
    assert!(ev.contains(&"a:error 0/3 dropped: deadline 5 s passed".to_owned()));
    assert!(ev.contains(&"b:error 0/3 dropped: deadline passed".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn follow_moves_through_the_planned_path_or_straight_without_planner() {
    let steps = json!([{"follow_m": [2.0, 2.0]}]);
    let robot = Arc::new(Fake::with_planner(1.0));
    *robot.via.lock().unwrap() = Some(Point::new(2.0, 0.0, 0.0));
    let (report, _, _) = run(
        strategy(vec![task("f", 1.0, [0.0, 0.0], steps.clone())], json!({})),
        robot.clone(),
    )
    .await;
    assert_eq!(report.done, ["f"]);
    // The approach is where the robot stands: planned, no move.
    assert_eq!(
        robot.log(),
        [
            "plan 0.00,0.00,0.00",
            "plan 2.00,2.00,0.00",
            "move 2.00,0.00,0.00",
            "move 2.00,2.00,0.00"
        ]
    );

    let robot = Arc::new(Fake::new());
    let (report, _, _) = run(
        strategy(vec![task("f", 1.0, [0.0, 0.0], steps)], json!({})),
        robot.clone(),
    )
    .await;
    assert_eq!(report.done, ["f"]);
    assert_eq!(
        robot.log(),
        [
            "plan 0.00,0.00,0.00",
            "plan 2.00,2.00,0.00",
            "move 2.00,2.00,0.00"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_demo_strategy_runs_to_the_end() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/demo_strategy.json"
    ))
    .unwrap();
    let s = Strategy::from_json(&text).unwrap();
    let (report, _, _) = run(s, Arc::new(Fake::new())).await;
    assert_eq!(report.end, EndReason::AllDone);
    assert_eq!(report.done, ["light_candle", "open_clamp", "park_corner"]);
    assert_eq!(report.points, 30.0);
}
