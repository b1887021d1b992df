//! Settling at the goal, to the tick: `Stop` repeated until the board reports itself
//! still, the settle timeout, non-finite odometry speeds, and the slow re-approach after
//! rolling past the goal. A straight goal with a one-segment path; no world needed.
use arnie_base::{BaseConfig, Goal, Navigator, Outcome, Output, PlanReply, Pose2};

/// A navigator at (0.3, 1.0) following a straight path to (1.0, 1.0).
fn straight_goal() -> Navigator {
    let mut nav = Navigator::new(BaseConfig::default());
    nav.on_odometry(Pose2::new(0.3, 1.0, 0.0), 0.0, 0.0, 0.0);
    let outs = nav
        .start(
            1,
            Goal {
                x: 1.0,
                y: 1.0,
                heading: None,
            },
            0.0,
        )
        .expect("accepted");
    let id = outs
        .iter()
        .find_map(|o| match o {
            Output::Plan { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a plan request");
    nav.on_plan(id, PlanReply::Path(vec![(0.3, 1.0), (1.0, 1.0)]), 0.0);
    nav
}

fn done(outs: &[Output]) -> Option<&arnie_base::Finish> {
    outs.iter().find_map(|o| match o {
        Output::Done { finish, .. } => Some(finish),
        _ => None,
    })
}

#[test]
fn at_the_goal_stop_is_repeated_until_the_board_is_still_then_reached() {
    let mut nav = straight_goal();
    // Still rolling at 0.2 m/s within the goal tolerance: Stop, not REACHED yet.
    let outs = nav.on_odometry(Pose2::new(0.99, 1.0, 0.0), 0.2, 0.0, 1.0);
    assert!(outs.contains(&Output::Stop), "{outs:?}");
    assert!(done(&outs).is_none(), "{outs:?}");
    // The Stop was lost (the board still rolls): Stop again, no motion commanded.
    let outs = nav.on_odometry(Pose2::new(1.0, 1.0, 0.0), 0.2, 0.0, 1.02);
    assert!(outs.contains(&Output::Stop), "{outs:?}");
    assert!(!outs.iter().any(|o| matches!(o, Output::Motion { .. })));
    assert!(done(&outs).is_none(), "{outs:?}");
    let outs = nav.on_odometry(Pose2::new(1.005, 1.0, 0.0), 0.04, 0.0, 1.04);
    assert!(done(&outs).is_none(), "{outs:?}");
    // Still: REACHED, where the robot stands.
    let outs = nav.on_odometry(Pose2::new(1.006, 1.0, 0.0), 0.0, 0.0, 1.06);
    let f = done(&outs).expect("REACHED once still");
    assert_eq!(f.outcome, Outcome::Reached);
    assert!((f.pose.x - 1.006).abs() < 1e-12, "{f:?}");
    assert!(
        f.message.contains("stopped 0.006 m from the goal"),
        "{}",
        f.message
    );
    assert_eq!(nav.counters().settle_timeouts, 0);
}

#[test]
fn a_board_that_never_reports_still_ends_reached_after_settle_timeout_counted() {
    let mut nav = straight_goal();
    let mut t = 1.0;
    let mut end = None;
    while end.is_none() && t < 3.0 {
        let outs = nav.on_odometry(Pose2::new(0.99, 1.0, 0.0), 0.0, 0.5, t);
        end = done(&outs).cloned();
        t += 0.02;
    }
    let f = end.expect("ended");
    assert_eq!(f.outcome, Outcome::Reached);
    assert!(t - 1.0 >= BaseConfig::default().settle_timeout_s, "{t}");
    assert!(f.message.contains("settle_timeout_s"), "{}", f.message);
    assert_eq!(nav.counters().settle_timeouts, 1);
}

#[test]
fn non_finite_speeds_in_odometry_are_rejected_and_counted() {
    let mut nav = straight_goal();
    let outs = nav.on_odometry(Pose2::new(0.5, 1.0, 0.0), f64::NAN, 0.0, 0.1);
    assert!(outs.is_empty());
    assert_eq!(nav.counters().odometry_rejected, 1);
}

#[test]
fn stopped_past_the_goal_the_base_drives_back_slowly_then_reached() {
    let mut nav = straight_goal();
    // Arrived at 0.2 m/s, the Stop lost twice: the robot stops 6 cm past the goal.
    assert!(done(&nav.on_odometry(Pose2::new(0.99, 1.0, 0.0), 0.2, 0.0, 1.0)).is_none());
    let outs = nav.on_odometry(Pose2::new(1.06, 1.0, 0.0), 0.0, 0.0, 1.3);
    assert!(done(&outs).is_none(), "{outs:?}");
    assert_eq!(nav.counters().reapproaches, 1);
    // Turns back toward the goal, then drives at the re-approach speed at most.
    let outs = nav.on_odometry(Pose2::new(1.06, 1.0, 0.0), 0.0, 0.0, 1.32);
    assert!(
        outs.iter()
            .any(|o| matches!(o, Output::Motion { v, w } if *v == 0.0 && *w != 0.0)),
        "{outs:?}"
    );
    let outs = nav.on_odometry(Pose2::new(1.06, 1.0, std::f64::consts::PI), 0.0, 0.0, 2.0);
    let v = outs
        .iter()
        .find_map(|o| match o {
            Output::Motion { v, .. } => Some(*v),
            _ => None,
        })
        .expect("drives");
    assert!(
        v > 0.0 && v <= arnie_base::navigator::REAPPROACH_SPEED_MPS,
        "{v}"
    );
    // Within the tolerance: Stop, then REACHED once still.
    let outs = nav.on_odometry(Pose2::new(1.01, 1.0, std::f64::consts::PI), 0.05, 0.0, 2.5);
    assert!(
        outs.contains(&Output::Stop) && done(&outs).is_none(),
        "{outs:?}"
    );
    let outs = nav.on_odometry(Pose2::new(1.008, 1.0, std::f64::consts::PI), 0.0, 0.0, 2.6);
    let f = done(&outs).expect("REACHED");
    assert_eq!(f.outcome, Outcome::Reached);
    assert!(f.message.contains("stopped 0.008 m"), "{}", f.message);
}

#[test]
fn after_the_last_re_approach_reached_says_how_far_it_is() {
    let mut nav = straight_goal();
    let mut t = 1.0;
    let mut end = None;
    // A board that always stops 6 cm past wherever the goal is approached from.
    for _ in 0..200 {
        let outs = nav.on_odometry(Pose2::new(1.06, 1.0, 0.0), 0.0, 0.0, t);
        t += 0.02;
        let outs2 = nav.on_odometry(Pose2::new(0.99, 1.0, 0.0), 0.2, 0.0, t);
        t += 0.02;
        if let Some(f) = done(&outs).or(done(&outs2)) {
            end = Some(f.clone());
            break;
        }
    }
    let f = end.expect("ended");
    assert_eq!(f.outcome, Outcome::Reached);
    assert!(
        f.message.contains("outside goal_tolerance_m"),
        "{}",
        f.message
    );
    assert_eq!(
        nav.counters().reapproaches,
        u64::from(arnie_base::navigator::MAX_REAPPROACHES)
    );
}
