//! The flame task on a generated scene (`arnie_scenes`), library only: the executor with
//! detours and the obstruction memory as the node runs them, against a simulated arm
//! ([`arnie_scenes::arm::FollowingArm`]: two periods late, 200 mm/s, stopped on a box's
//! face), each move retried like the brain retries a step (a move that ends anywhere but
//! at its target is sent again from where the arm is). Shared by `tests/flame_family.rs`
//! and `benches/detour_scenes.rs`.
#![allow(dead_code)]

use std::time::Instant;

use arnie_scenes::{arm::FollowingArm, BoxSpec, FlameScene};
use arnie_trajectory::{
    Action, ContactModel, DetourConfig, DetourPlanning, End, Executor, FixedBox, ObstructionConfig,
    ObstructionMemory, Outcome, RawTrajectoryConfig, Scene, TrajectoryConfig, Workspace,
};
use nalgebra::Point3;

/// Period of the demo and the tests [ms].
pub const PERIOD_MS: u64 = 10;
/// Goals sent for one move at most (the brain re-sends a failed step, and after its
/// retries starts the task over: here the same move is simply sent again).
pub const MAX_GOALS_PER_MOVE: usize = 6;

/// What one scene did.
#[derive(Debug, Clone, Default)]
pub struct SceneRun {
    /// Every move of the task reached.
    pub reached: bool,
    /// Why not.
    pub failure: Option<String>,
    /// Stops on the box (contacts).
    pub contacts: usize,
    /// The arm was ever strictly inside the box.
    pub entered_box: bool,
    /// The set-points ever left the workspace.
    pub left_workspace: bool,
    /// A set-point came within the table's clearance (a fixed obstacle).
    pub entered_fixed: bool,
    /// Path the arm travelled over the move the box stands across (all its goals) [mm].
    pub across_travelled_mm: f64,
    /// That move's straight length [mm].
    pub across_straight_mm: f64,
    /// Goals sent (all moves).
    pub goals: usize,
    /// Periods the whole task took.
    pub periods: u64,
    /// Time of every planning call (a goal's plan, a re-plan after a stop) [µs].
    pub plan_us: Vec<f64>,
    /// Of those, the plans that had to search (a detour, an approach, a probe) [µs].
    pub search_us: Vec<f64>,
}

/// The trajectory server's config as the demo runs it (`params/trajectory_server.yaml`,
/// `period_ms` 10).
pub fn server_config() -> TrajectoryConfig {
    TrajectoryConfig::try_from(RawTrajectoryConfig {
        period_ms: PERIOD_MS,
        ..RawTrajectoryConfig::default()
    })
    .unwrap()
}

fn boxes() -> Vec<FixedBox> {
    let (lo, hi) = arnie_scenes::TABLE_MM;
    vec![FixedBox::new("table", Point3::from(lo), Point3::from(hi)).unwrap()]
}

/// Runs the task once on `obstacle` (`None`: no box).
pub fn run_box(obstacle: Option<BoxSpec>, across: Option<arnie_scenes::Move>) -> SceneRun {
    let config = server_config();
    let workspace = Workspace::from(&config);
    let mut memory = ObstructionMemory::new(ObstructionConfig::default());
    let (tmin, tmax) = arnie_scenes::TABLE_MM;
    let table = BoxSpec {
        min_mm: tmin,
        max_mm: tmax,
    };
    let mut arm_boxes = vec![table];
    arm_boxes.extend(obstacle);
    let mut arm = FollowingArm::new(Point3::from(arnie_scenes::START_MM), 2, 2.0, arm_boxes);
    let mut run = SceneRun::default();
    let mut now_ms = 0u64;
    for (k, (_, to)) in arnie_scenes::moves().into_iter().enumerate() {
        let target = Point3::from(to);
        // The move the box stands across (either way along it).
        let here = arnie_scenes::moves()[k];
        let is_across = across.is_some_and(|a| here == a || (here.0 == a.1 && here.1 == a.0));
        if is_across {
            run.across_straight_mm += (target - arm.position()).norm();
        }
        let mut reached = false;
        for _ in 0..MAX_GOALS_PER_MOVE {
            run.goals += 1;
            memory.expire(now_ms);
            let mut scene = Scene::new(workspace);
            scene.boxes = boxes();
            scene.obstructions = memory.iter().copied().collect();
            let planning = DetourPlanning {
                scene,
                config: DetourConfig::default(),
                contact: ContactModel::default(),
                max_replans: 8,
                probe: true,
            };
            let t = Instant::now();
            let planned = Executor::with_detours(arm.position(), target, &config, planning);
            let us = t.elapsed().as_secs_f64() * 1e6;
            run.plan_us.push(us);
            if planned.as_ref().is_ok_and(|e| e.is_detour()) {
                run.search_us.push(us);
            }
            let mut exec = match planned {
                Ok(e) => e,
                Err(e) => {
                    // Refused: the brain sends the step again at its next tick (2 s).
                    run.failure = Some(format!("move {k}: {e}"));
                    now_ms += 2000;
                    for _ in 0..200 {
                        arm.step(None);
                    }
                    continue;
                }
            };
            let end = loop {
                let before = arm.position();
                let generation = exec.generation();
                let t = Instant::now();
                let step = exec.step(Some(before));
                if exec.generation() != generation {
                    let us = t.elapsed().as_secs_f64() * 1e6;
                    run.plan_us.push(us);
                    if exec.is_detour() {
                        run.search_us.push(us);
                    }
                }
                now_ms += PERIOD_MS;
                run.periods += 1;
                if let Some(stop) = &step.stopped {
                    run.contacts += 1;
                    if let Ok(region) = &stop.learned {
                        if let Ok(r) = memory.learn(region, now_ms) {
                            exec.name_learned(r.obstruction.id);
                        }
                    }
                }
                if let Some((a, b)) = step.passed {
                    memory.free_pass(a, b);
                }
                if now_ms.is_multiple_of(200) {
                    memory.expire(now_ms);
                }
                let sent = match &step.action {
                    Action::Send(p) => {
                        if !workspace.contains(*p) {
                            run.left_workspace = true;
                        }
                        // The table's top is z = −20 mm, its clearance 10 mm.
                        if p.z
                            < arnie_scenes::TABLE_TOP_MM
                                + DetourConfig::default().box_clearance_mm()
                                - 1e-6
                        {
                            run.entered_fixed = true;
                        }
                        Some(*p)
                    }
                    Action::Wait => None,
                    Action::Done(end) => break end.clone(),
                };
                let after = arm.step(sent);
                if is_across {
                    run.across_travelled_mm += (after - before).norm();
                }
                if arm.inside_a_box() {
                    run.entered_box = true;
                }
                if run.periods > 2_000_000 {
                    break End::Cancelled;
                }
            };
            if matches!(end.outcome(), Outcome::Reached | Outcome::ReachedByDetour) {
                reached = true;
                break;
            }
            run.failure = Some(format!("move {k}: {end}"));
        }
        if !reached {
            return run;
        }
    }
    run.reached = true;
    run.failure = None;
    run
}

/// Runs the task once on generated scene `seed`.
pub fn run_scene(scene: &FlameScene) -> SceneRun {
    run_box(Some(scene.obstacle), Some(scene.across))
}
