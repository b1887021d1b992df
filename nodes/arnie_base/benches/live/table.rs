//! The bench's table: the logged instants turned into latencies and counts, printed as
//! one Markdown table (p50, p99, max, samples) after the run.

use super::*;

/// p50, p99, max of `v` (nearest rank), or None when empty.
fn quantiles(v: &mut [f64]) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((at(0.50), at(0.99), v[v.len() - 1]))
}

fn row(what: &str, unit: &str, mut v: Vec<f64>, note: &str) {
    let scale = if unit == "ms" { 1e3 } else { 1e6 };
    match quantiles(&mut v) {
        Some((p50, p99, max)) => {
            let f = |x: f64| {
                if unit == "ms" {
                    format!("{:.2}", x * scale)
                } else {
                    format!("{:.0}", x * scale)
                }
            };
            println!(
                "| {what} | {unit} | {} | {} | {} | {}{note} |",
                f(p50),
                f(p99),
                f(max),
                v.len()
            );
        }
        None => println!("| {what} | {unit} | | | | 0{note} |"),
    }
}

pub(crate) fn report(log: &Log) {
    let in_goal = |t: Instant| log.goals.iter().any(|(a, b, _)| t >= *a && t <= *b);
    // (1) odometry in -> the first DriveSpeed before the next odometry.
    let mut loop_s = Vec::new();
    let (mut odo, mut unanswered, mut after_plan) = (0u64, 0u64, 0u64);
    for (i, (t, e)) in log.wire.iter().enumerate() {
        if *e != Wire::Odometry || !in_goal(*t) {
            continue;
        }
        odo += 1;
        let reply = log.wire[i + 1..]
            .iter()
            .take_while(|(_, e)| *e != Wire::Odometry)
            .find(|(_, e)| matches!(e, Wire::Drive(..)));
        match reply {
            // A path answered in between: that DriveSpeed may be the base's answer to
            // the plan, not to this odometry.
            Some((r, _)) if log.paths.iter().any(|p| p >= t && p <= r) => after_plan += 1,
            Some((r, _)) => loop_s.push(r.duration_since(*t).as_secs_f64()),
            None => unanswered += 1,
        }
    }
    // (2)-(5) the re-plan trials.
    let (mut mark, mut own, mut stop, mut replan, mut moving) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut own_failed, mut no_replan) = (0, 0);
    for tr in &log.trials {
        mark.push(tr.mark_answered.duration_since(tr.mark_sent).as_secs_f64());
        if tr.plan_code == 0 {
            own.push(tr.plan_answered.duration_since(tr.mark_sent).as_secs_f64());
        } else {
            own_failed += 1;
        }
        let Some(rep) = tr.reported else { continue };
        let end = log
            .goals
            .iter()
            .find(|(a, b, _)| rep >= *a && rep <= *b)
            .map(|g| g.1)
            .unwrap_or(rep);
        if let Some((t, _)) = log.wire.iter().find(|(t, e)| *t > rep && *e == Wire::Stop) {
            stop.push(t.duration_since(rep).as_secs_f64());
            eprintln!(
                "base_bench: trial at +{:.1} s: Stop {:.2} ms after the report",
                rep.duration_since(log.goals[0].0).as_secs_f64(),
                t.duration_since(rep).as_secs_f64() * 1e3
            );
        }
        // The first path after the bench's mark is its own PlanPath's (published with the
        // answer, possibly delivered after the report); the base's is the next one.
        let skip = usize::from(tr.plan_code == 0);
        let base_path = log
            .paths
            .iter()
            .filter(|t| **t > tr.mark_sent)
            .skip(skip)
            .find(|t| **t > rep && **t <= end);
        match base_path {
            Some(p) => {
                replan.push(p.duration_since(rep).as_secs_f64());
                if let Some((t, _)) = log.wire.iter().find(|(t, e)| {
                    *t > *p && matches!(e, Wire::Drive(v, w) if *v != 0.0 || *w != 0.0)
                }) {
                    moving.push(t.duration_since(*p).as_secs_f64());
                }
            }
            None => no_replan += 1,
        }
    }
    let mut outcomes = std::collections::BTreeMap::new();
    for g in &log.goals {
        *outcomes
            .entry(OUTCOMES.get(usize::from(g.2)).copied().unwrap_or("?"))
            .or_insert(0) += 1;
    }
    let outcomes: Vec<String> = outcomes.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!("| measure | unit | p50 | p99 | max | samples |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    row(
        "(1) control loop: Odometry written → first DriveSpeed read",
        "µs",
        loop_s,
        &format!(" of {odo} odometry packets during goals ({unanswered} with no DriveSpeed before the next: planning, stopped, arrived; {after_plan} left out: a new path came in between)"),
    );
    row(
        "(2) obstacle → stop: ObstacleReport written → Stop read",
        "ms",
        stop,
        "",
    );
    row(
        "(3) the base's re-plan: ObstacleReport written → its new path on planner/path",
        "ms",
        replan,
        &format!(" ({no_replan} trials with no new path before the goal ended)"),
    );
    row(
        "(4) moving again: new path on planner/path → next non-zero DriveSpeed read",
        "ms",
        moving,
        "",
    );
    row("(5) UpdateMap: mark request → answer", "ms", mark, "");
    row(
        "(6) the planner's live re-plan: mark request → PlanPath answer (here → goal, simplify + smooth)",
        "ms",
        own,
        &format!(" ({own_failed} not OK)"),
    );
    println!(
        "\nNavigateTo goals: {} ({}); {} bad frames from the bridge, {} packets not encodable.",
        log.goals.len(),
        outcomes.join(", "),
        log.rejected_frames,
        log.encode_errors
    );
}
