//! Event order of sequences: every kind of step, every error policy, stops mid-step.
//! Time is paused: delays and timeouts are instant and deterministic.

mod common;
use common::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arnie_strategy::error::Error;
use arnie_strategy::event::{Event, EventKind, EventSink};
use arnie_strategy::sequence::{ErrorPolicy, Outcome, Sequence, Step};
use arnie_strategy::stop::{StopSource, StopToken};
use tokio::sync::mpsc::UnboundedReceiver;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(fmt(&e));
    }
    out
}

fn ok_after(
    d: Duration,
) -> impl Fn() -> futures::future::BoxFuture<'static, Result<(), Error>> + Send + Sync {
    move || {
        Box::pin(async move {
            tokio::time::sleep(d).await;
            Ok(())
        })
    }
}

fn robot_err(msg: &str) -> Error {
    Error::Robot {
        message: msg.to_owned(),
    }
}

/// Fails the first `n` runs, then succeeds; counts the runs.
fn flaky(n: u32, runs: Arc<AtomicU32>) -> Step {
    Step::new("flaky", move || {
        let k = runs.fetch_add(1, Ordering::SeqCst);
        async move {
            if k < n {
                Err(Error::Robot {
                    message: format!("fail {k}"),
                })
            } else {
                Ok(())
            }
        }
    })
}

async fn run(seq: &Sequence) -> (Outcome, Vec<String>) {
    let (sink, mut rx) = EventSink::channel();
    let outcome = seq.run(&sink, &StopToken::never()).await;
    (outcome, drain(&mut rx))
}

#[tokio::test(start_paused = true)]
async fn plain_sequence_emits_started_next_finished() {
    let seq = Sequence::new("s")
        .next("a", ok_after(ms(10)))
        .delay(ms(500))
        .next("b", ok_after(ms(0)));
    let t0 = tokio::time::Instant::now();
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(
        ev,
        [
            "s:started 0/3",
            "s:next 1/3 [a]",
            "s:next 2/3 [delay 500 ms]",
            "s:next 3/3 [b]",
            "s:finished 3/3"
        ]
    );
    assert_eq!(t0.elapsed(), ms(510));
}

#[tokio::test(start_paused = true)]
async fn empty_sequence_finishes_at_once() {
    let (outcome, ev) = run(&Sequence::new("e")).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(ev, ["e:started 0/0", "e:finished 0/0"]);
}

#[tokio::test(start_paused = true)]
async fn abort_makes_the_error_the_last_event() {
    let seq = Sequence::new("s")
        .next("a", ok_after(ms(1)))
        .next("b", || async { Err(robot_err("boom")) })
        .next("c", ok_after(ms(1)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(
        outcome,
        Outcome::Failed {
            step: "b".into(),
            error: robot_err("boom")
        }
    );
    assert_eq!(
        ev,
        [
            "s:started 0/3",
            "s:next 1/3 [a]",
            "s:error 1/3 [b] robot: boom"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn retry_reruns_the_step_until_it_succeeds() {
    let runs = Arc::new(AtomicU32::new(0));
    let seq = Sequence::new("s").step(flaky(2, runs.clone()).on_error(ErrorPolicy::Retry(2)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(
        ev,
        [
            "s:started 0/1",
            "s:error 0/1 [flaky] attempt 1/3: robot: fail 0",
            "s:error 0/1 [flaky] attempt 2/3: robot: fail 1",
            "s:next 1/1 [flaky]",
            "s:finished 1/1"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn retry_gives_up_after_n_extra_attempts() {
    let runs = Arc::new(AtomicU32::new(0));
    let seq = Sequence::new("s").step(flaky(10, runs.clone()).on_error(ErrorPolicy::Retry(1)));
    let (outcome, ev) = run(&seq).await;
    assert!(matches!(outcome, Outcome::Failed { ref step, .. } if step == "flaky"));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[2], "s:error 0/1 [flaky] attempt 2/2: robot: fail 1");
}

#[tokio::test(start_paused = true)]
async fn skip_counts_the_step_and_goes_on() {
    let seq = Sequence::new("s")
        .step(Step::new("bad", || async { Err(robot_err("nope")) }).on_error(ErrorPolicy::Skip))
        .next("c", ok_after(ms(1)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 1 });
    assert_eq!(
        ev,
        [
            "s:started 0/2",
            "s:error 0/2 [bad] robot: nope",
            "s:next 1/2 [bad] skipped",
            "s:next 2/2 [c]",
            "s:finished 2/2 1 skipped"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn timeout_fails_a_hanging_step_and_retries_it() {
    let seq = Sequence::new("s").step(
        Step::new("hang", futures::future::pending::<Result<(), Error>>)
            .timeout(ms(200))
            .on_error(ErrorPolicy::Retry(1)),
    );
    let t0 = tokio::time::Instant::now();
    let (outcome, ev) = run(&seq).await;
    assert_eq!(
        outcome,
        Outcome::Failed {
            step: "hang".into(),
            error: Error::Timeout {
                step: "hang".into(),
                after_ms: 200
            }
        }
    );
    assert_eq!(t0.elapsed(), ms(400));
    assert_eq!(
        ev,
        [
            "s:started 0/1",
            "s:error 0/1 [hang] attempt 1/2: step \"hang\" timed out after 200 ms",
            "s:error 0/1 [hang] attempt 2/2: step \"hang\" timed out after 200 ms"
        ]
    );
}

/// Sets its flag when dropped: proves the step's future was cancelled.
struct DropFlag(Arc<AtomicBool>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(start_paused = true)]
async fn stop_cancels_the_step_in_flight() {
    let dropped = Arc::new(AtomicBool::new(false));
    let reached_end = Arc::new(AtomicBool::new(false));
    let (d, r) = (dropped.clone(), reached_end.clone());
    let seq = Sequence::new("s")
        .next("a", ok_after(ms(10)))
        .next("long", move || {
            let (d, r) = (d.clone(), r.clone());
            async move {
                let _guard = DropFlag(d);
                tokio::time::sleep(ms(10_000)).await;
                r.store(true, Ordering::SeqCst);
                Ok(())
            }
        });
    let (sink, mut rx) = EventSink::channel();
    let running = seq.start(sink);
    tokio::time::sleep(ms(100)).await;
    running.stop();
    let outcome = running.wait().await;
    assert_eq!(
        outcome,
        Outcome::Stopped {
            done: 1,
            step: "long".into()
        }
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the step's future must be dropped"
    );
    assert!(!reached_end.load(Ordering::SeqCst));
    assert_eq!(
        drain(&mut rx),
        ["s:started 0/2", "s:next 1/2 [a]", "s:stopped 1/2 [long]"]
    );
}

#[tokio::test(start_paused = true)]
async fn stop_during_a_delay_and_before_start() {
    let seq = Sequence::new("s")
        .delay(ms(1000))
        .next("b", ok_after(ms(1)));
    let (sink, mut rx) = EventSink::channel();
    let running = seq.start(sink.clone());
    tokio::time::sleep(ms(300)).await;
    running.stop();
    assert_eq!(
        running.wait().await,
        Outcome::Stopped {
            done: 0,
            step: "delay 1000 ms".into()
        }
    );
    assert_eq!(
        drain(&mut rx),
        ["s:started 0/2", "s:stopped 0/2 [delay 1000 ms]"]
    );

    let (src, token) = StopSource::new();
    src.stop();
    assert_eq!(
        seq.run(&sink, &token).await,
        Outcome::Stopped {
            done: 0,
            step: String::new()
        }
    );
    assert_eq!(drain(&mut rx), ["s:started 0/2", "s:stopped 0/2"]);
}

#[tokio::test(start_paused = true)]
async fn a_stopped_sequence_can_be_restarted_from_the_top() {
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let seq = Sequence::new("s")
        .next("count", move || {
            r.fetch_add(1, Ordering::SeqCst);
            async { Ok(()) }
        })
        .delay(ms(1000));
    let (sink, mut rx) = EventSink::channel();
    let first = seq.start(sink.clone());
    tokio::time::sleep(ms(10)).await;
    first.stop();
    assert!(matches!(
        first.wait().await,
        Outcome::Stopped { done: 1, .. }
    ));
    let second = seq.start(sink);
    assert_eq!(second.wait().await, Outcome::Finished { skipped: 0 });
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(
        drain(&mut rx),
        [
            "s:started 0/2",
            "s:next 1/2 [count]",
            "s:stopped 1/2 [delay 1000 ms]",
            "s:started 0/2",
            "s:next 1/2 [count]",
            "s:next 2/2 [delay 1000 ms]",
            "s:finished 2/2"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn nested_sequence_events_sit_between_the_parents() {
    let inner = Sequence::new("in")
        .next("x", ok_after(ms(1)))
        .next("y", ok_after(ms(1)));
    let seq = Sequence::new("out")
        .next("a", ok_after(ms(1)))
        .nest(inner)
        .next("b", ok_after(ms(1)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(
        ev,
        [
            "out:started 0/3",
            "out:next 1/3 [a]",
            "in:started 0/2",
            "in:next 1/2 [x]",
            "in:next 2/2 [y]",
            "in:finished 2/2",
            "out:next 2/3 [in]",
            "out:next 3/3 [b]",
            "out:finished 3/3"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn nested_failure_is_the_parents_step_error() {
    let inner = Sequence::new("in").next("x", || async { Err(robot_err("jam")) });
    let seq = Sequence::new("out")
        .step(Step::nested(inner).on_error(ErrorPolicy::Skip))
        .next("b", ok_after(ms(1)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 1 });
    assert_eq!(
        ev,
        [
            "out:started 0/2",
            "in:started 0/1",
            "in:error 0/1 [x] robot: jam",
            "out:error 0/2 [in] sequence \"in\" failed at \"x\": robot: jam",
            "out:next 1/2 [in] skipped",
            "out:next 2/2 [b]",
            "out:finished 2/2 1 skipped"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn stop_inside_a_nested_step_stops_inner_then_outer() {
    let inner = Sequence::new("in")
        .next("x", ok_after(ms(1)))
        .next("slow", ok_after(ms(5000)));
    let seq = Sequence::new("out").nest(inner).next("b", ok_after(ms(1)));
    let (sink, mut rx) = EventSink::channel();
    let running = seq.start(sink);
    tokio::time::sleep(ms(100)).await;
    running.stop();
    assert_eq!(
        running.wait().await,
        Outcome::Stopped {
            done: 0,
            step: "in".into()
        }
    );
    assert_eq!(
        drain(&mut rx),
        [
            "out:started 0/2",
            "in:started 0/2",
            "in:next 1/2 [x]",
            "in:stopped 1/2 [slow]",
            "out:stopped 0/2 [in]"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn nested_timeout_stops_the_inner_sequence_first() {
    let inner = Sequence::new("in").next("slow", ok_after(ms(5000)));
    let seq = Sequence::new("out").step(Step::nested(inner).timeout(ms(300)));
    let (outcome, ev) = run(&seq).await;
    assert_eq!(
        outcome,
        Outcome::Failed {
            step: "in".into(),
            error: Error::Timeout {
                step: "in".into(),
                after_ms: 300
            }
        }
    );
    assert_eq!(
        ev,
        [
            "out:started 0/1",
            "in:started 0/1",
            "in:stopped 0/1 [slow]",
            "out:error 0/1 [in] step \"in\" timed out after 300 ms"
        ]
    );
}

fn member(name: &str, d: u64, fail: bool) -> Sequence {
    Sequence::new(name).next("work", move || async move {
        tokio::time::sleep(ms(d)).await;
        if fail {
            Err(Error::Robot {
                message: "dropped it".into(),
            })
        } else {
            Ok(())
        }
    })
}

fn only(ev: &[String], prefix: &str) -> Vec<String> {
    ev.iter()
        .filter(|e| e.starts_with(prefix))
        .cloned()
        .collect()
}

#[tokio::test(start_paused = true)]
async fn parallel_group_runs_members_concurrently() {
    let seq = Sequence::new("p").parallel(
        "grp",
        vec![member("m1", 300, false), member("m2", 100, false)],
        2,
    );
    let t0 = tokio::time::Instant::now();
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(t0.elapsed(), ms(300), "members overlap");
    assert_eq!(
        only(&ev, "p:"),
        [
            "p:started 0/1",
            "p:next 1/1 [grp] 2/2 succeeded",
            "p:finished 1/1"
        ]
    );
    assert_eq!(
        only(&ev, "m1:"),
        ["m1:started 0/1", "m1:next 1/1 [work]", "m1:finished 1/1"]
    );
    // m2 ends first.
    let pos = |s: &str| ev.iter().position(|e| e == s);
    assert!(pos("m2:finished 1/1") < pos("m1:finished 1/1"));
}

#[tokio::test(start_paused = true)]
async fn parallel_group_tolerates_failures_up_to_its_quorum() {
    let members = vec![
        member("a", 100, false),
        member("b", 50, true),
        member("c", 200, false),
    ];
    let seq = Sequence::new("p").parallel("grp", members, 2);
    let (outcome, ev) = run(&seq).await;
    assert_eq!(outcome, Outcome::Finished { skipped: 0 });
    assert_eq!(
        only(&ev, "p:")[1],
        "p:next 1/1 [grp] 2/3 succeeded; failed: b"
    );
}

#[tokio::test(start_paused = true)]
async fn parallel_group_fails_fast_and_stops_the_others() {
    let members = vec![
        member("a", 1000, false),
        member("b", 50, true),
        member("c", 2000, false),
    ];
    let seq = Sequence::new("p").parallel("grp", members, 3);
    let t0 = tokio::time::Instant::now();
    let (outcome, ev) = run(&seq).await;
    assert_eq!(t0.elapsed(), ms(50), "no waiting for a lost cause");
    let expected = Error::Group {
        group: "grp".into(),
        succeeded: 0,
        required: 3,
        failed: vec!["b".into(), "a (stopped)".into(), "c (stopped)".into()],
    };
    assert_eq!(
        outcome,
        Outcome::Failed {
            step: "grp".into(),
            error: expected
        }
    );
    assert_eq!(only(&ev, "a:"), ["a:started 0/1", "a:stopped 0/1 [work]"]);
    assert_eq!(ev.last().map(String::as_str), Some("p:error 0/1 [grp] group \"grp\": 0 succeeded, 3 required; failed: b, a (stopped), c (stopped)"));
}

#[tokio::test(start_paused = true)]
async fn stopping_a_parallel_group_stops_every_member_then_the_parent() {
    let seq = Sequence::new("p").parallel(
        "grp",
        vec![member("a", 1000, false), member("b", 1000, false)],
        1,
    );
    let (sink, mut rx) = EventSink::channel();
    let running = seq.start(sink);
    tokio::time::sleep(ms(10)).await;
    running.stop();
    assert_eq!(
        running.wait().await,
        Outcome::Stopped {
            done: 0,
            step: "grp".into()
        }
    );
    let ev = drain(&mut rx);
    assert_eq!(only(&ev, "a:"), ["a:started 0/1", "a:stopped 0/1 [work]"]);
    assert_eq!(only(&ev, "b:"), ["b:started 0/1", "b:stopped 0/1 [work]"]);
    assert_eq!(ev.last().map(String::as_str), Some("p:stopped 0/1 [grp]"));
}

#[tokio::test(start_paused = true)]
async fn parallel_group_timeout_is_a_timeout() {
    let seq = Sequence::new("p")
        .step(Step::parallel("grp", vec![member("a", 1000, false)], 1).timeout(ms(100)));
    let (outcome, _) = run(&seq).await;
    assert_eq!(
        outcome,
        Outcome::Failed {
            step: "grp".into(),
            error: Error::Timeout {
                step: "grp".into(),
                after_ms: 100
            }
        }
    );
}

/// A step that fails its first `fails` runs (per sequence run, via a fresh counter).
fn scripted(i: usize, fails: u32, policy: ErrorPolicy) -> Step {
    let runs = Arc::new(AtomicU32::new(0));
    Step::new(format!("s{i}"), move || {
        let k = runs.fetch_add(1, Ordering::SeqCst);
        async move {
            tokio::time::sleep(ms(10)).await;
            if k < fails {
                Err(Error::Robot {
                    message: "x".into(),
                })
            } else {
                Ok(())
            }
        }
    })
    .on_error(policy)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// Any mix of failing steps and policies, stopped at any time or not: `Started`
    /// first, exactly one terminal event last, `Next` counts up by one, and the
    /// outcome agrees with the last event.
    #[test]
    fn every_run_is_well_formed(
        plan in proptest::collection::vec((0u32..3, 0u8..3), 0..6),
        stop_at_ms in proptest::option::of(0u64..80),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
        let (outcome, ev) = rt.block_on(async {
            let mut seq = Sequence::new("p");
            for (i, (fails, p)) in plan.iter().enumerate() {
                let policy = match p { 0 => ErrorPolicy::Abort, 1 => ErrorPolicy::Skip, _ => ErrorPolicy::Retry(1) };
                seq = seq.step(scripted(i, *fails, policy));
            }
            let (sink, mut rx) = EventSink::channel();
            let running = seq.start(sink);
            if let Some(t) = stop_at_ms {
                tokio::time::sleep(ms(t)).await;
                running.stop();
            }
            let outcome = running.wait().await;
            let mut ev = Vec::new();
            while let Ok(e) = rx.try_recv() { ev.push(e); }
            (outcome, ev)
        });
        proptest::prop_assert_eq!(ev[0].kind, EventKind::Started);
        let terminal = |e: &Event| matches!(e.kind, EventKind::Finished | EventKind::Stopped);
        proptest::prop_assert_eq!(ev.iter().filter(|e| terminal(e)).count() + usize::from(matches!(outcome, Outcome::Failed { .. })), 1);
        let mut done = 0;
        for e in &ev {
            proptest::prop_assert_eq!(e.total as usize, plan.len());
            if e.kind == EventKind::Next { done += 1; proptest::prop_assert_eq!(e.done, done); }
        }
        let last = ev.last().unwrap();
        match &outcome {
            Outcome::Finished { .. } => proptest::prop_assert_eq!(last.kind, EventKind::Finished),
            Outcome::Stopped { done: d, .. } => {
                proptest::prop_assert_eq!(last.kind, EventKind::Stopped);
                proptest::prop_assert_eq!(*d, done);
            }
            Outcome::Failed { step, .. } => {
                proptest::prop_assert_eq!(last.kind, EventKind::Error);
                proptest::prop_assert_eq!(&last.step, step);
            }
        }
    }
}
