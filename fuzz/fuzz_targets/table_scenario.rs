//! The Eurobot table scenario file (nodes/tools/arnie_table `scenario`, `raster`, `opponent`,
//! `board`; read by the planner's map loader and by `board_sim`): any text is a checked
//! `Scenario` or an error naming the field, never a panic; parsing is deterministic. A
//! checked scenario rasterises (walls ring blocked, `width * height` cells), its
//! opponent's script gives finite poses on the table at any time, and the simulated
//! motor board built on it runs two seconds of driving with finite poses.
#![no_main]
use arnie_table::board::{Input, Options};
use arnie_table::opponent::Script;
use arnie_table::{Board, Scenario};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(s) = arnie_fuzz::parse_twice(text, Scenario::from_json) else {
        return;
    };
    let (w_m, h_m) = (s.table.width_m, s.table.height_m);
    assert!(w_m.is_finite() && w_m > 0.0 && h_m.is_finite() && h_m > 0.0);

    // At most ~40 000 cells (the planner's resolution is a parameter; the cost is
    // cells × obstacles).
    let res = (w_m * h_m / 40_000.0).sqrt().max(0.02);
    let r = s.rasterise(res, true).expect("a checked table rasterises");
    assert!(r.width > 0 && r.height > 0);
    assert_eq!(r.blocked.len(), r.width * r.height);
    assert!(r.is_blocked(0, 0) && r.is_blocked(r.width - 1, r.height - 1));
    assert_eq!(r.occupancy().len(), r.width * r.height);
    let _ = s.pose_problem(s.robot.start.x_m, s.robot.start.y_m, s.robot.radius_m);

    if let Some(op) = &s.opponent {
        let script = Script::new(op);
        for t in [0.0, 0.5, 3.0, 17.25, 100.0, 1e6, -1.0, f64::MAX] {
            let (x, y, th) = script.pose_at(t);
            assert!(
                x.is_finite() && y.is_finite() && th.is_finite(),
                "opponent at {t} s: {x} {y} {th}"
            );
        }
    }

    let mut board = Board::new(s, Options::default());
    let _ = board.advance(0);
    let _ = board.input(
        10,
        Input::Drive {
            seq: 1,
            linear_mm_s: 400,
            angular_mrad_s: 700,
            watchdog_ms: 500,
        },
    );
    for t in (100..=2000).step_by(100) {
        let _ = board.advance(t);
        let p = board.truth();
        assert!(p.x.is_finite() && p.y.is_finite() && p.theta.is_finite());
    }
    let _ = board.input(2000, Input::Stop { seq: 2 });
    let _ = board.advance(2500);
    let _ = board.take_events();
});
