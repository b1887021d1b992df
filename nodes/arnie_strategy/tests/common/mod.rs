//! A fake robot: moves take 1 s per metre (paused tokio time makes that instant),
//! targets can be blocked, the planner can be absent or say "no path" for some goals
//! and makes every path `detour` times the straight line.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use arnie_strategy::condition::WaitFor;
use arnie_strategy::error::{Error, MoveOutcome, PlanCode};
use arnie_strategy::event::{Event, EventKind};
use arnie_strategy::robot::{PlannedPath, Robot};
use arnie_strategy::task::{PacketSpec, Point};
use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::mpsc::UnboundedReceiver;

pub fn key(p: &Point) -> (i64, i64, i64) {
    (
        (p.x * 1000.0).round() as i64,
        (p.y * 1000.0).round() as i64,
        (p.z * 1000.0).round() as i64,
    )
}

#[derive(Default)]
pub struct Fake {
    pub pos: Mutex<Option<Point>>,
    /// Moves to these targets (mm keys) reverse to start.
    pub blocked: Mutex<Vec<(i64, i64, i64)>>,
    /// None: no planner. Some(detour): path length = detour × straight line.
    pub planner: Mutex<Option<f64>>,
    /// Per goal (mm key): planner length override or `None` = NO_PATH.
    pub plan_override: Mutex<HashMap<(i64, i64, i64), Option<f64>>>,
    /// Extra waypoint the planner puts in the middle of each non-empty path.
    pub via: Mutex<Option<Point>>,
    pub failing_packets: Mutex<Vec<String>>,
    /// Every call, in order.
    pub log: Mutex<Vec<String>>,
}

impl Fake {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_planner(detour: f64) -> Self {
        let f = Self::default();
        *f.planner.lock().unwrap() = Some(detour);
        f
    }
    pub fn block(&self, p: Point) {
        self.blocked.lock().unwrap().push(key(&p));
    }
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
    fn note(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }
}

fn fmt_p(p: &Point) -> String {
    format!("{:.2},{:.2},{:.2}", p.x, p.y, p.z)
}

impl Robot for Fake {
    fn position(&self) -> Option<Point> {
        *self.pos.lock().unwrap()
    }

    fn move_to(&self, target: Point) -> BoxFuture<'_, Result<Point, Error>> {
        async move {
            let from = self.position().unwrap_or_default();
            self.note(format!("move {}", fmt_p(&target)));
            tokio::time::sleep(Duration::from_secs_f64(from.distance_m(&target))).await;
            if self.blocked.lock().unwrap().contains(&key(&target)) {
                return Err(Error::Move {
                    outcome: MoveOutcome::ReversedToStart,
                    message: "obstacle".into(),
                });
            }
            *self.pos.lock().unwrap() = Some(target);
            Ok(target)
        }
        .boxed()
    }

    fn plan_path(
        &self,
        from: Point,
        to: Point,
        _smooth: bool,
    ) -> BoxFuture<'_, Result<PlannedPath, Error>> {
        async move {
            self.note(format!("plan {}", fmt_p(&to)));
            let Some(detour) = *self.planner.lock().unwrap() else {
                return Err(Error::PlannerUnavailable);
            };
            let length = match self.plan_override.lock().unwrap().get(&key(&to)) {
                Some(None) => {
                    return Err(Error::Plan {
                        code: PlanCode::NoPath,
                        message: "walls".into(),
                    })
                }
                Some(Some(l)) => *l,
                None => detour * from.distance_m(&to),
            };
            let mut points = vec![from];
            match *self.via.lock().unwrap() {
                Some(v) if from.distance_m(&to) > 0.0 => points.push(v),
                _ => {}
            }
            points.push(to);
            Ok(PlannedPath {
                points,
                length_m: length,
            })
        }
        .boxed()
    }

    fn send_packet(&self, packet: PacketSpec) -> BoxFuture<'_, Result<(), Error>> {
        async move {
            self.note(format!("send {}", packet.name));
            if self.failing_packets.lock().unwrap().contains(&packet.name) {
                return Err(Error::Packet {
                    message: "no reply".into(),
                });
            }
            Ok(())
        }
        .boxed()
    }

    fn wait_for(&self, condition: WaitFor) -> BoxFuture<'_, Result<(), Error>> {
        async move {
            self.note(format!("wait {}", condition.topic));
            // The fake's topic delivers a matching message after 2 s.
            tokio::time::sleep(Duration::from_secs(2)).await;
            Ok(())
        }
        .boxed()
    }
}

pub fn fmt(e: &Event) -> String {
    let kind = match e.kind {
        EventKind::Started => "started",
        EventKind::Next => "next",
        EventKind::Error => "error",
        EventKind::Stopped => "stopped",
        EventKind::Finished => "finished",
        EventKind::TaskSelected => "selected",
    };
    let mut s = format!("{}:{kind} {}/{}", e.task, e.done, e.total);
    if !e.step.is_empty() {
        s.push_str(&format!(" [{}]", e.step));
    }
    if !e.message.is_empty() {
        s.push_str(&format!(" {}", e.message));
    }
    s
}

pub fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e);
    }
    out
}
