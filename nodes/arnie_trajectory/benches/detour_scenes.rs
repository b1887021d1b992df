//! The flame task on 100 generated scenes (`arnie_scenes`: one box on the table across
//! one of the task's straight moves), library only: the executor with detours and the
//! obstruction memory as the node runs them, contacts simulated by
//! `arnie_scenes::arm::FollowingArm` (two periods late, 200 mm/s, stopped on a box's
//! face), a failed move sent again as the brain does (`tests/flame/mod.rs`, the harness
//! `tests/flame_family.rs` checks). Prints one markdown table (issue 46's goals: success
//! ≥ 99 %, planning p99 < 5 ms). Release build: `cargo bench -p arnie_trajectory
//! --no-default-features --bench detour_scenes` (or `cargo xtask bench detour-scenes`).

#[path = "../tests/flame/mod.rs"]
mod flame;

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (a filter) is ignored.
    const SCENES: u64 = 100;
    let baseline = flame::run_box(None, None);
    assert!(baseline.reached, "the task without a box: {baseline:?}");
    let (mut ok, mut contacts, mut goals) = (0usize, Vec::new(), 0usize);
    let (mut ratios, mut plans, mut periods) = (Vec::new(), Vec::new(), Vec::new());
    let mut searches = Vec::new();
    let mut failures = Vec::new();
    let started = std::time::Instant::now();
    for seed in 0..SCENES {
        let scene = arnie_scenes::generate(seed);
        let r = flame::run_scene(&scene);
        assert!(!r.entered_box, "seed {seed}: the arm entered the box");
        assert!(
            !r.left_workspace,
            "seed {seed}: a set-point left the workspace"
        );
        if r.reached {
            ok += 1;
            periods.push(r.periods as f64);
        } else {
            failures.push((seed, r.failure.clone()));
        }
        contacts.push(r.contacts as f64);
        goals += r.goals;
        if r.across_straight_mm > 0.0 {
            ratios.push(r.across_travelled_mm / r.across_straight_mm);
        }
        plans.extend(r.plan_us);
        searches.extend(r.search_us);
    }
    let wall = started.elapsed().as_secs_f64();
    for v in [
        &mut contacts,
        &mut ratios,
        &mut plans,
        &mut searches,
        &mut periods,
    ] {
        v.sort_by(f64::total_cmp);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let base = baseline.periods as f64;
    println!("\n### detour scenes: the flame task on {SCENES} generated scenes (library, simulated contacts)\n");
    println!("| figure | value | goal |");
    println!("| --- | ---: | --- |");
    println!(
        "| success (every move of the task reached, ≤ {} goals a move) | {ok} / {SCENES} ({:.0} %) | ≥ 99 % |",
        flame::MAX_GOALS_PER_MOVE,
        100.0 * ok as f64 / SCENES as f64
    );
    println!(
        "| contacts per scene (stops on the box) | mean {:.1}, p50 {:.0}, max {:.0} | |",
        mean(&contacts),
        pct(&contacts, 0.5),
        pct(&contacts, 1.0)
    );
    println!(
        "| goals per scene (11 moves; more: re-sent after going back) | mean {:.1} | |",
        goals as f64 / SCENES as f64
    );
    println!(
        "| path travelled over the box's move / its straight length | p50 {:.2}×, p90 {:.2}×, max {:.2}× | |",
        pct(&ratios, 0.5),
        pct(&ratios, 0.9),
        pct(&ratios, 1.0)
    );
    println!(
        "| planning (a goal's plan or a re-plan after a stop, {} calls) | p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs | p99 < 5 ms |",
        plans.len(),
        pct(&plans, 0.5),
        pct(&plans, 0.99),
        pct(&plans, 1.0)
    );
    println!(
        "| of those, plans that searched (a detour, an approach, a probe: {}) | p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs | p99 < 5 ms |",
        searches.len(),
        pct(&searches, 0.5),
        pct(&searches, 0.99),
        pct(&searches, 1.0)
    );
    println!(
        "| task time (simulated, 10 ms periods) vs without a box ({:.1} s) | p50 {:.2}×, p90 {:.2}×, max {:.2}× | |",
        base / 100.0,
        pct(&periods, 0.5) / base,
        pct(&periods, 0.9) / base,
        pct(&periods, 1.0) / base
    );
    println!("\n({SCENES} scenes simulated in {wall:.1} s; failed: {failures:?})");
}
