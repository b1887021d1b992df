//! A reply that overtakes its acknowledgement: over a lossy link the board's
//! `ActuatorDone` can come in while the `send` step still waits for the `Ack` (the
//! `Actuator` frame is repeated until acked). The `wait_for` step after it must still
//! see that reply, and a retry must not see the reply of the try before.
//! Time is paused: the 3 s step timeout and the ack delay are exact.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arnie_strategy::condition::{Backlog, WaitFor};
use arnie_strategy::error::Error;
use arnie_strategy::event::EventSink;
use arnie_strategy::robot::{Driver, PlannedPath, Robot};
use arnie_strategy::sequence::Outcome;
use arnie_strategy::stop::StopSource;
use arnie_strategy::task::{PacketSpec, Point, Strategy};
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use tokio::sync::Notify;

/// A board on a bad link: each `Actuator` is done `done_after` after it is sent, and
/// acked only `ack_after` after it is sent. The `done` reply goes into `comms/rx`'s
/// backlog the way the node's subscription puts it there.
struct Board {
    rx: Mutex<Backlog>,
    arrived: Notify,
    done_after: Duration,
    ack_after: Duration,
    /// `false`: the element is gone, a take fails (status 1).
    element: Mutex<bool>,
    log: Mutex<Vec<String>>,
}

impl Board {
    fn new(done_after_ms: u64, ack_after_ms: u64) -> Arc<Self> {
        Arc::new(Self {
            rx: Mutex::new(Backlog::new(64)),
            arrived: Notify::new(),
            done_after: Duration::from_millis(done_after_ms),
            ack_after: Duration::from_millis(ack_after_ms),
            element: Mutex::new(true),
            log: Mutex::new(Vec::new()),
        })
    }

    fn deliver(&self, message: Value) {
        self.rx.lock().unwrap().push(Arc::new(message));
        self.arrived.notify_waiters();
    }
}

impl Robot for Board {
    fn position(&self) -> Option<Point> {
        Some(Point::new(0.0, 0.0, 0.0))
    }
    fn move_to(&self, target: Point) -> BoxFuture<'_, Result<Point, Error>> {
        async move { Ok(target) }.boxed()
    }
    fn plan_path(&self, _: Point, _: Point, _: bool) -> BoxFuture<'_, Result<PlannedPath, Error>> {
        async { Err(Error::PlannerUnavailable) }.boxed()
    }
    fn send_packet(&self, packet: PacketSpec) -> BoxFuture<'_, Result<(), Error>> {
        async move {
            self.log
                .lock()
                .unwrap()
                .push(format!("send {}", packet.name));
            let seq = packet.fields.get("seq").cloned().unwrap_or(Value::Null);
            tokio::time::sleep(self.done_after).await;
            let status = {
                let mut e = self.element.lock().unwrap();
                let s = if *e { 0 } else { 1 };
                *e = false;
                s
            };
            self.deliver(json!({"name": "ActuatorDone", "fields": {"seq": seq, "status": status}}));
            tokio::time::sleep(self.ack_after.saturating_sub(self.done_after)).await;
            Ok(())
        }
        .boxed()
    }
    fn wait_for(&self, condition: WaitFor) -> BoxFuture<'_, Result<(), Error>> {
        async move {
            loop {
                let arrived = self.arrived.notified();
                if self.rx.lock().unwrap().take(&condition).is_some() {
                    self.log.lock().unwrap().push("matched".into());
                    return Ok(());
                }
                arrived.await;
            }
        }
        .boxed()
    }
    fn step_begins(&self) {
        self.log.lock().unwrap().push("step".into());
        self.rx.lock().unwrap().mark();
    }
}

fn take_task() -> Strategy {
    Strategy::from_json(
        &json!({
            "tasks": [{
                "name": "crate_mid", "points": 8, "approach_m": [1.5, 0.6, 0.0],
                "steps": [
                    {"name": "clamp takes", "send": {"name": "Actuator", "fields": {"seq": 201, "actuator": 0, "action": 1, "element": 2}, "reply_timeout_s": 2.0}},
                    {"name": "clamp done", "wait_for": {"topic": "comms/rx", "equals": {"name": "ActuatorDone", "fields.seq": 201, "fields.status": 0}}, "timeout_ms": 3000}
                ]
            }]
        })
        .to_string(),
    )
    .unwrap()
}

async fn run_once(board: &Arc<Board>, strategy: &Strategy) -> Outcome {
    let driver = Arc::new(Driver::new(board.clone(), Point::new(0.0, 0.0, 0.0)));
    let task = &strategy.tasks[0];
    let seq = driver.sequence(&task.name, None, &task.steps);
    let (_stop, token) = StopSource::new();
    seq.run(&EventSink::none(), &token).await
}

#[tokio::test(start_paused = true)]
async fn a_done_that_overtakes_the_ack_still_ends_the_wait() {
    // Done after 600 ms (the take), ack only after 1500 ms (lost acks, resends).
    let board = Board::new(600, 1500);
    let outcome = run_once(&board, &take_task()).await;
    assert!(
        matches!(outcome, Outcome::Finished { skipped: 0 }),
        "{outcome:?}"
    );
    assert_eq!(
        *board.log.lock().unwrap(),
        ["step", "send Actuator", "matched"],
        "the mark is set when the send step begins, before its reply can come"
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_does_not_match_the_reply_of_the_try_before() {
    let board = Board::new(600, 1500);
    let strategy = take_task();
    assert!(matches!(
        run_once(&board, &strategy).await,
        Outcome::Finished { .. }
    ));
    // The element is gone now: the second take's done says status 1, and the ok done
    // of the first try (same seq 201) is before the mark.
    let second = run_once(&board, &strategy).await;
    match second {
        Outcome::Failed { step, .. } => assert_eq!(step, "clamp done"),
        other => panic!("expected the wait to time out, got {other:?}"),
    }
}
