//! The trajectory server's inputs (nodes/arnie_trajectory `config`, `legacy`, `goal`,
//! `executor`): text lines. An optional first line `{...}` is the settings as JSON (the
//! checked `TrajectoryConfig`, else the defaults); then the target as the legacy topic
//! carries it (`x,y,z[,...]` mm), the arm's position, and one measured position per
//! line (an unreadable line is a missing sample) for the executor's periods. Never a
//! panic; a planned path is finite and ends at the target; the executor's feedback
//! stays finite; at most 2 000 periods.
#![no_main]
use arnie_trajectory::legacy::parse_target;
use arnie_trajectory::{
    validate_goal, Action, ArmSample, RawTrajectoryConfig, Step, TrajectoryConfig,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines().peekable();
    let mut config =
        TrajectoryConfig::try_from(RawTrajectoryConfig::default()).expect("the defaults are valid");
    if let Some(first) = lines.peek().filter(|l| l.trim_start().starts_with('{')) {
        if let Ok(raw) = serde_json::from_str::<RawTrajectoryConfig>(first) {
            if let Ok(c) = TrajectoryConfig::try_from(raw) {
                config = c;
            }
        }
        lines.next();
    }
    let Some(Ok(target)) = lines.next().map(parse_target) else {
        return;
    };
    let arm = lines.next().and_then(|l| parse_target(l).ok());
    let sample = arm.map(|p| ArmSample {
        position_mm: p,
        age_ms: 0,
    });
    let Ok(goal) = validate_goal(target, sample, &config) else {
        return;
    };
    let Ok(mut ex) = goal.into_executor(&config) else {
        return;
    };
    let path = ex.path();
    assert!(path.iter().all(|p| p.iter().all(|v| v.is_finite())));
    if let Some(last) = path.last() {
        assert!(
            (last - target).norm() < 1e-6,
            "path ends at {last} not {target}"
        );
    }
    let mut measured = lines.map(|l| parse_target(l).ok());
    for _ in 0..2000 {
        let m = measured.next().flatten();
        let step: Step = ex.step(m);
        if let Action::Send(p) = step.action {
            assert!(p.iter().all(|v| v.is_finite()), "sends {p}");
        }
        assert!(step.feedback.progress.is_finite());
        if let Action::Done(end) = step.action {
            let _ = end.outcome();
            break;
        }
    }
});
