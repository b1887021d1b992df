//! Seeded random scenes for the arm's flame task (issue 46): the flame scenario of
//! `params/scenario_flame.json` with **one box resting on the table across one of the
//! task's straight moves**, of random size and place, that the eyes do not see and no
//! parameter names. `cargo xtask demo detour seed:=N` runs scene N; the graph test runs a
//! fixed set of seeds; the trajectory server's benchmark runs 100.
//!
//! # The family ([`generate`])
//! The task (`params/tasks/flame_passing.json` with the source where the scenario puts it)
//! visits [`waypoints`]; its straight moves long enough to put a box across are the
//! 60 mm one to the source (x 0 → 60 at y 40, z 30) and the 95 mm one towards the candle
//! (x 0 → −95 at y 30, z 0). Scene `seed` picks one of them, then the box:
//! - on the table (`z` from [`TABLE_TOP_MM`]) up to a random height above the move;
//! - across the move: its extent along the move is random within the stretch that keeps
//!   [`WAYPOINT_CLEARANCE_MM`] from the move's ends; across it, it covers the move's line
//!   with at least [`LINE_COVER_MM`] on each side, to a random width;
//! - never within [`WAYPOINT_CLEARANCE_MM`] of a waypoint, the source or the candle, and
//!   inside the workspace with its top at most [`MAX_TOP_MM`].
//!
//! **A way around always exists**: the box is convex and rests on the table, every
//! waypoint is outside it by [`WAYPOINT_CLEARANCE_MM`], so every move can go straight up
//! from its start to [`MAX_TOP_MM`] + [`WAYPOINT_CLEARANCE_MM`] (below the workspace's
//! top), across, and straight down ([`way_over`], checked for every move of every scene
//! by the tests).
//!
//! [`arm::FollowingArm`] is a point arm that follows set-points late and that boxes
//! stop on their face: the simulated contacts of library tests and benchmarks.
#![deny(missing_docs)]

pub mod arm;

use arnie_math::Rng;
use nalgebra::{Point3, Vector3};

/// Where the arm starts and the task's `start` action goes [mm, world].
pub const START_MM: [f64; 3] = [0.0, 0.0, 0.0];
/// The source flame (`params/scenario_flame.json`, `eyes.source_mm`) [mm].
pub const SOURCE_MM: [f64; 3] = [60.0, 40.0, 30.0];
/// The second candle (`eyes.candle_mm`) [mm].
pub const CANDLE_MM: [f64; 3] = [-95.0, 30.0, 45.0];
/// The table's top (the scenario's `table` box ends at z = −20 mm) [mm].
pub const TABLE_TOP_MM: f64 = -20.0;
/// The table as the scenario has it: min and max corners [mm].
pub const TABLE_MM: ([f64; 3], [f64; 3]) = ([-500.0, -500.0, -100.0], [500.0, 500.0, -20.0]);
/// The scenario's workspace box (`arm.workspace`): min and max corners [mm].
pub const WORKSPACE_MM: ([f64; 3], [f64; 3]) = ([-200.0, -100.0, -20.0], [200.0, 200.0, 200.0]);
/// Least distance from the box to every waypoint, the source and the candle [mm].
pub const WAYPOINT_CLEARANCE_MM: f64 = 20.0;
/// The box covers the move's line by at least this on each side, across it [mm].
pub const LINE_COVER_MM: f64 = 10.0;
/// The box's highest top [mm].
pub const MAX_TOP_MM: f64 = 140.0;
/// The box's least extent along the move [mm].
pub const MIN_THICKNESS_MM: f64 = 8.0;
/// The box's largest width across the move [mm].
pub const MAX_WIDTH_MM: f64 = 160.0;

/// A box, world frame [mm].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxSpec {
    /// Lower corner.
    pub min_mm: [f64; 3],
    /// Upper corner.
    pub max_mm: [f64; 3],
}

impl BoxSpec {
    /// Euclidean distance from `p` to the box (0 inside or on it) [mm].
    pub fn distance_mm(&self, p: [f64; 3]) -> f64 {
        (0..3)
            .map(|i| (self.min_mm[i] - p[i]).max(p[i] - self.max_mm[i]).max(0.0))
            .map(|d| d * d)
            .sum::<f64>()
            .sqrt()
    }
    /// `p` is strictly inside (faces do not count).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        (0..3).all(|i| self.min_mm[i] < p[i] && p[i] < self.max_mm[i])
    }
    /// Least distance from the segment `a → b` to the box [mm] (sampled every 0.5 mm,
    /// exact enough for the family's checks).
    pub fn segment_distance_mm(&self, a: [f64; 3], b: [f64; 3]) -> f64 {
        let (a, b) = (Point3::from(a), Point3::from(b));
        let n = ((b - a).norm() / 0.5).ceil().max(1.0) as usize;
        (0..=n)
            .map(|k| self.distance_mm((a + (b - a) * (k as f64 / n as f64)).into()))
            .fold(f64::INFINITY, f64::min)
    }
}

/// One move of the task: from, to [mm].
pub type Move = ([f64; 3], [f64; 3]);

/// The flame task's targets in order, one task loop (`start`, `lightSelf`, `lightOther`,
/// `start` of `params/tasks/flame_passing.json`, `start,0,0` being the source).
pub fn waypoints() -> Vec<[f64; 3]> {
    let [sx, sy, sz] = SOURCE_MM;
    let [cx, cy, cz] = CANDLE_MM;
    vec![
        START_MM,
        [0.0, sy, 0.0],
        [0.0, sy, sz],
        [sx, sy, sz],
        [0.0, sy, sz],
        [0.0, sy, 0.0],
        [0.0, cy, 0.0],
        [cx, cy, 0.0],
        [cx, cy, cz],
        [cx, cy, 0.0],
        [0.0, cy, 0.0],
        START_MM,
    ]
}

/// The task's moves, in order (from the start position through every waypoint).
pub fn moves() -> Vec<Move> {
    let w = waypoints();
    w.windows(2).map(|p| (p[0], p[1])).collect()
}

/// Every point the box must keep away from: the waypoints, the source and the candle.
pub fn keep_clear() -> Vec<[f64; 3]> {
    let mut v = waypoints();
    v.push(SOURCE_MM);
    v.push(CANDLE_MM);
    v
}

/// One generated scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlameScene {
    /// Its seed.
    pub seed: u64,
    /// The box.
    pub obstacle: BoxSpec,
    /// The straight move it stands across.
    pub across: Move,
}

/// The horizontal moves a box can stand across: along x at the given y and z, between
/// the two x values.
const ACROSS: [(f64, f64, f64, f64); 2] = [
    // To the source: x 0 → 60 at y 40, z 30.
    (0.0, 60.0, 40.0, 30.0),
    // Towards the candle: x 0 → −95 at y 30, z 0.
    (0.0, -95.0, 30.0, 0.0),
];

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.next_f64()
}

/// Scene `seed` (module doc, "The family"). Deterministic: the same seed gives the same
/// scene on every machine.
pub fn generate(seed: u64) -> FlameScene {
    // Different streams for neighbouring seeds.
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED_F1A3);
    for _ in 0..10_000 {
        let (xa, xb, y, z) = ACROSS[(rng.next_u64() % ACROSS.len() as u64) as usize];
        let (lo, hi) = (xa.min(xb), xa.max(xb));
        // Along the move: inside the stretch WAYPOINT_CLEARANCE_MM from both ends.
        let (free_lo, free_hi) = (lo + WAYPOINT_CLEARANCE_MM, hi - WAYPOINT_CLEARANCE_MM);
        let thickness = uniform(
            &mut rng,
            MIN_THICKNESS_MM,
            (free_hi - free_lo).max(MIN_THICKNESS_MM),
        );
        let x0 = uniform(&mut rng, free_lo, free_hi - thickness);
        // Across: covers y by LINE_COVER_MM on each side, to a random width.
        let width = uniform(&mut rng, 2.0 * LINE_COVER_MM, MAX_WIDTH_MM);
        let y0 = uniform(&mut rng, y + LINE_COVER_MM - width, y - LINE_COVER_MM);
        // Height: from the table to above the move.
        let top = uniform(&mut rng, z + LINE_COVER_MM, MAX_TOP_MM);
        let obstacle = BoxSpec {
            min_mm: [x0, y0, TABLE_TOP_MM],
            max_mm: [x0 + thickness, y0 + width, top],
        };
        let inside_ws = (0..3).all(|i| {
            WORKSPACE_MM.0[i] <= obstacle.min_mm[i] && obstacle.max_mm[i] <= WORKSPACE_MM.1[i]
        });
        let clear = keep_clear()
            .iter()
            .all(|p| obstacle.distance_mm(*p) >= WAYPOINT_CLEARANCE_MM);
        if inside_ws && clear && x0 >= free_lo && x0 + thickness <= free_hi {
            return FlameScene {
                seed,
                obstacle,
                across: ([xa, y, z], [xb, y, z]),
            };
        }
    }
    unreachable!("the family's constraints always leave room (tested for the first 10 000 seeds)")
}

/// The way over the box from `a` to `b` ([`FlameScene`]'s guarantee): straight up to
/// above the box, across, straight down. Returns its corners.
pub fn way_over(a: [f64; 3], b: [f64; 3]) -> Vec<[f64; 3]> {
    let z = MAX_TOP_MM + WAYPOINT_CLEARANCE_MM;
    vec![a, [a[0], a[1], z], [b[0], b[1], z], b]
}

impl FlameScene {
    /// The simulator's scenario: `base` (the flame scenario, parsed) with the box added to
    /// `arm.obstacles` as `"box"`.
    pub fn scenario(&self, base: &serde_json::Value) -> serde_json::Value {
        let mut s = base.clone();
        let entry = serde_json::json!({
            "name": "box",
            "min_mm": self.obstacle.min_mm.map(round_um),
            "max_mm": self.obstacle.max_mm.map(round_um),
        });
        if let Some(arm) = s.get_mut("arm").and_then(|a| a.as_object_mut()) {
            let obstacles = arm
                .entry("obstacles")
                .or_insert_with(|| serde_json::Value::Array(Vec::new()));
            if let Some(list) = obstacles.as_array_mut() {
                list.push(entry);
            }
        }
        s
    }

    /// The box with its corners rounded as [`scenario`](Self::scenario) writes them.
    pub fn obstacle_rounded(&self) -> BoxSpec {
        BoxSpec {
            min_mm: self.obstacle.min_mm.map(round_um),
            max_mm: self.obstacle.max_mm.map(round_um),
        }
    }

    /// The straight length of the move the box stands across [mm].
    pub fn across_length_mm(&self) -> f64 {
        (Point3::from(self.across.1) - Point3::from(self.across.0)).norm()
    }

    /// Direction of the move the box stands across (unit).
    pub fn across_direction(&self) -> Vector3<f64> {
        (Point3::from(self.across.1) - Point3::from(self.across.0)).normalize()
    }
}

/// Rounded to the micrometre (short JSON, the same box everywhere).
fn round_um(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waypoints_are_the_task_file_s() {
        // params/tasks/flame_passing.json with "start,0,0" the source: every axis of every
        // step, in order.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let text = std::fs::read_to_string(root.join("params/tasks/flame_passing.json")).unwrap();
        let task: serde_json::Value = serde_json::from_str(&text).unwrap();
        let resolve = |v: &serde_json::Value, axis: usize| -> f64 {
            match v {
                serde_json::Value::String(s) if s == "start,0,0" => SOURCE_MM[axis],
                v => v.as_f64().unwrap(),
            }
        };
        let mut from_file = vec![];
        for action in ["start", "lightSelf", "lightOther", "start"] {
            for step in task["actions"][action]["trajectory"].as_array().unwrap() {
                from_file.push([
                    resolve(&step["x"], 0),
                    resolve(&step["y"], 1),
                    resolve(&step["z"], 2),
                ]);
            }
        }
        assert_eq!(from_file, waypoints());
        let scenario: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("params/scenario_flame.json")).unwrap(),
        )
        .unwrap();
        let v = |p: &serde_json::Value| -> [f64; 3] { [0, 1, 2].map(|i| p[i].as_f64().unwrap()) };
        assert_eq!(v(&scenario["eyes"]["source_mm"]), SOURCE_MM);
        assert_eq!(v(&scenario["eyes"]["candle_mm"]), CANDLE_MM);
        assert_eq!(v(&scenario["arm"]["start_mm"]), START_MM);
        assert_eq!(v(&scenario["arm"]["workspace"]["min_mm"]), WORKSPACE_MM.0);
        assert_eq!(v(&scenario["arm"]["workspace"]["max_mm"]), WORKSPACE_MM.1);
        assert_eq!(
            v(&scenario["arm"]["obstacles"][0]["max_mm"])[2],
            TABLE_TOP_MM
        );
    }

    #[test]
    fn every_scene_keeps_its_promises() {
        let mut across = [0usize; 2];
        for seed in 0..10_000 {
            let s = generate(seed);
            assert_eq!(s, generate(seed), "deterministic");
            let b = s.obstacle_rounded();
            assert_eq!(b.min_mm[2], TABLE_TOP_MM, "on the table");
            for p in keep_clear() {
                assert!(
                    b.distance_mm(p) >= WAYPOINT_CLEARANCE_MM - 0.01,
                    "{seed}: {p:?}"
                );
            }
            // Across its move: the move's line goes through the box.
            let (a, z) = (s.across.0, s.across.1);
            assert!(b.segment_distance_mm(a, z) == 0.0, "{seed} not across");
            across[usize::from(a[2] == 0.0)] += 1;
            // A way over exists for every move, keeping the clearance and the workspace.
            for (from, to) in moves() {
                let way = way_over(from, to);
                for w in way.windows(2) {
                    assert!(b.segment_distance_mm(w[0], w[1]) >= WAYPOINT_CLEARANCE_MM - 0.01);
                    assert!(w[1][2] <= WORKSPACE_MM.1[2]);
                }
            }
        }
        assert!(
            across.iter().all(|&n| n > 3000),
            "both moves used: {across:?}"
        );
    }

    #[test]
    fn the_issue_s_box_is_a_member_of_the_family() {
        // x −62..−38, y −5..70, z −20..22 across the move towards the candle.
        let b = BoxSpec {
            min_mm: [-62.0, -5.0, -20.0],
            max_mm: [-38.0, 70.0, 22.0],
        };
        assert!(keep_clear()
            .iter()
            .all(|p| b.distance_mm(*p) >= WAYPOINT_CLEARANCE_MM));
        assert_eq!(
            b.segment_distance_mm([0.0, 30.0, 0.0], [-95.0, 30.0, 0.0]),
            0.0
        );
    }

    #[test]
    fn the_scenario_gets_the_box() {
        let base = serde_json::json!({"arm": {"obstacles": [{"name": "table"}]}, "eyes": {}});
        let s = generate(3);
        let out = s.scenario(&base);
        let list = out["arm"]["obstacles"].as_array().unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1]["name"], "box");
        assert_eq!(list[1]["min_mm"][2], TABLE_TOP_MM);
        let empty = s.scenario(&serde_json::json!({"arm": {}}));
        assert_eq!(empty["arm"]["obstacles"].as_array().unwrap().len(), 1);
    }
}
