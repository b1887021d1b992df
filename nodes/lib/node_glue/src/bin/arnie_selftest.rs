//! `arnie_selftest`: proves the ROS plumbing (custom messages both ways, an action
//! round trip, parameters, /diagnostics, clean shutdown) without any robot logic.
//!
//! - subscribes `/selftest/in` (`arnie_interfaces/Coordinates`), publishes every item
//!   scaled by the `gain` parameter on `/selftest/out`;
//! - serves `arnie_interfaces/action/MoveTo` on `/selftest/move_to`: interpolates from
//!   the origin to the target in `steps` feedback messages, `step_ms` apart, then
//!   succeeds with REACHED; a non-finite target is rejected, cancel ends it CANCELLED.
use futures::{future, StreamExt};
use node_glue::diagnostics::Status;
use node_glue::r2r::{
    arnie_interfaces::action::MoveTo, arnie_interfaces::msg::Coordinates, geometry_msgs::msg::Point,
};
use node_glue::{main_with, qos, App, Error};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

node_glue::declare_parameters! {
    /// The self-test node's parameters.
    struct SelftestParams(_d = ()) {
        /// Factor applied to every relayed value
        gain: f64 = 2.0, float(-1000.0, 1000.0), "at once";
        /// Feedback messages per MoveTo goal
        steps: i64 = 5, int(1, 1000), "next goal";
        /// Time between two feedback messages [ms]
        step_ms: i64 = 20, int(0, 10_000), "next goal";
    }
}

fn main() {
    main_with("arnie_selftest", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(SelftestParams::default())?;
    let sub = app.subscribe::<Coordinates>("selftest/in", qos::commands())?;
    let publisher = app
        .node
        .create_publisher::<Coordinates>("selftest/out", qos::commands())?;
    let goals = app
        .node
        .create_action_server::<MoveTo::Action>("selftest/move_to")?;
    let diagnostics = app.diagnostics()?;
    let relayed = Arc::new(AtomicU64::new(0));
    let goals_done = Arc::new(AtomicU64::new(0));
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let (p, r) = (params.clone(), relayed.clone());
    tokio::spawn(sub.for_each(move |mut msg| {
        let gain = p.lock().map(|p| p.gain).unwrap_or(1.0);
        for item in &mut msg.items {
            item.values.iter_mut().for_each(|v| *v *= gain);
        }
        if let Err(e) = publisher.publish(&msg) {
            node_glue::log_warn!("relay failed: {e}");
        } else {
            r.fetch_add(1, Ordering::Relaxed);
        }
        future::ready(())
    }));

    let (p, done) = (params.clone(), goals_done.clone());
    tokio::spawn(async move {
        let mut goals = goals;
        while let Some(req) = goals.next().await {
            let t = req.goal.target.clone();
            if ![t.x, t.y, t.z].iter().all(|v| v.is_finite()) {
                node_glue::log_warn!("rejecting goal: target is not finite");
                let _ = req.reject();
                continue;
            }
            let Ok((mut goal, mut cancel)) = req.accept() else {
                continue;
            };
            let (steps, step_ms) = p
                .lock()
                .map(|p| (p.steps.max(1), p.step_ms.max(0)))
                .unwrap_or((5, 20));
            let done = done.clone();
            tokio::spawn(async move {
                // Goal handles are Send but not Sync: the feedback loop owns a clone.
                let feedback = goal.clone();
                let target = t.clone();
                let run = async move {
                    for i in 1..=steps {
                        let f = i as f64 / steps as f64;
                        let sp = Point {
                            x: target.x * f,
                            y: target.y * f,
                            z: target.z * f,
                        };
                        let _ = feedback.publish_feedback(MoveTo::Feedback {
                            phase: MoveTo::Feedback::FORWARD as u8,
                            setpoint: sp.clone(),
                            measured: sp,
                            progress: f as f32,
                            index: i as u32,
                            count: steps as u32,
                            tracking_error: 0.0,
                        });
                        tokio::time::sleep(Duration::from_millis(step_ms as u64)).await;
                    }
                };
                tokio::select! {
                    _ = run => {
                        let _ = goal.succeed(MoveTo::Result {
                            outcome: MoveTo::Result::REACHED as u8,
                            final_position: t,
                            message: "reached".into(),
                        });
                    }
                    Some(c) = cancel.next() => {
                        c.accept();
                        let _ = goal.cancel(MoveTo::Result {
                            outcome: MoveTo::Result::CANCELLED as u8,
                            final_position: Point::default(),
                            message: "cancelled".into(),
                        });
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
    });

    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown, move || {
        vec![Status::ok("selftest", "running")
            .with("relayed", relayed.load(Ordering::Relaxed))
            .with("goals_done", goals_done.load(Ordering::Relaxed))]
    });
    Ok(())
}
