//! `cargo xtask bench base`: the base's control step and the planner's re-plan after a
//! mark, as library calls (no ROS: the glue's publish/subscribe costs are not in these
//! numbers). Prints a markdown table; nothing is asserted.
//!
//! - control step: an `Odometry` packet's JSON parsed → `Navigator::on_odometry` →
//!   the `DriveSpeed` JSON built (what arnie_base does between `comms/rx` and `comms/tx`);
//! - re-plan: on the table scenario at 0.02 m (150 × 100 cells, inflated by the robot
//!   radius), a 0.2 m disc marked on the way, the search grid rebuilt and a smoothed path
//!   planned from the start to the far task.
use std::time::Instant;

use arnie_base::{board, BaseConfig, Goal, Navigator, Output, PlanReply};
use arnie_grid::node::{answer, load_map_file, load_map_file_raw, MapOptions, Query, Search};
use arnie_grid::{MapFrame, MarkedMap, Planner};
use arnie_packets::typed::Odometry;
use arnie_packets::TypedPacket;

fn percentiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), v[v.len() - 1])
}

fn main() {
    println!("| measure | runs | p50 | p99 | max |\n|---|---:|---:|---:|---:|");
    // Control step.
    let mut nav = Navigator::new(BaseConfig {
        progress_timeout_s: 600.0,
        ..BaseConfig::default()
    });
    // As comms_bridge writes it: integer millimetres.
    let odo = |x: f64, t: u32| {
        Odometry {
            seq: t as u16,
            x_mm: x.round() as i16,
            y_mm: 1000,
            ..Odometry::default()
        }
        .fields_json()
    };
    let pose = |s: &str| match board::parse(board::ODOMETRY, s) {
        Ok(board::FromBoard::Odometry { pose, .. }) => pose,
        other => panic!("{other:?}"),
    };
    nav.on_odometry(pose(&odo(300.0, 0)), 0.0, 0.0, 0.0);
    let outs = nav
        .start(
            1,
            Goal {
                x: 2.9,
                y: 1.0,
                heading: None,
            },
            0.0,
        )
        .unwrap();
    let id = outs
        .iter()
        .find_map(|o| {
            if let Output::Plan { id, .. } = o {
                Some(*id)
            } else {
                None
            }
        })
        .unwrap();
    nav.on_plan(id, PlanReply::Path(vec![(0.3, 1.0), (2.9, 1.0)]), 0.0);
    let mut times = Vec::new();
    for i in 1..20_000u32 {
        let text = odo(300.0 + f64::from(i) * 0.1, i);
        let t0 = Instant::now();
        let outs = nav.on_odometry(pose(&text), 0.5, 0.0, f64::from(i) * 0.02);
        let mut sent = 0;
        for o in outs {
            if let Output::Motion { v, w } = o {
                sent += board::drive_speed(i as u16, v, w, 0).len();
            }
        }
        times.push(t0.elapsed().as_secs_f64() * 1e6);
        assert!(sent > 0, "a DriveSpeed per odometry");
    }
    let (p50, p99, max) = percentiles(times);
    println!("| control step: Odometry JSON → on_odometry → DriveSpeed JSON [µs] | 19999 | {p50:.2} | {p99:.2} | {max:.2} |");
    // Re-plan after a mark.
    let table =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../params/eurobot/table.json");
    let frame = MapFrame::new(0.02, 0.0, 0.0).unwrap();
    let opts = MapOptions::new(50, true, 0.15).unwrap();
    let raw = load_map_file_raw(&table, frame, &opts).unwrap();
    let base = load_map_file(&table, frame, &opts).unwrap();
    let search = Search::resolve("jps", "only_when_no_obstacles").unwrap();
    let q = Query {
        start_m: (0.3, 1.0),
        goal_m: (2.5, 1.65),
        simplify: true,
        smooth: true,
    };
    let mut times = Vec::new();
    for i in 0..300 {
        let mut map = MarkedMap::new(raw.clone(), base.clone(), 0.15);
        let t0 = Instant::now();
        map.update(
            &[(1.2 + 0.001 * f64::from(i % 10), 1.4)],
            0.2,
            false,
            5.0,
            0.0,
        )
        .unwrap();
        let mut planner = Planner::new(&map.grid());
        let a = answer(Some(&mut planner), &search, &q).unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        assert!(a.length_m > 2.0);
    }
    let (p50, p99, max) = percentiles(times);
    println!("| re-plan: mark + rebuild + JPS smoothed, table 150×100 [ms] | 300 | {p50:.3} | {p99:.3} | {max:.3} |");
}
