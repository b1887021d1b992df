//! The navigator driven to the tick against a simulated differential drive and the real
//! planner library (`arnie_planner`: JPS, inflation, marks), at 50 Hz like the board's
//! odometry. No ROS, no clock: the test owns time.
use arnie_base::{
    BaseConfig, Goal, KnownObstacles, Navigator, Outcome, Output, Phase, PlanReply, Pose2,
};
use arnie_grid::Grid;

mod common;
use common::TestPlanner;

const DT: f64 = 0.02;

/// A differential drive that follows (v, w) at once; an optional disc it cannot enter
/// (the opponent), seen by a proximity sensor up to `sensor_range` ahead.
struct Robot {
    pose: Pose2,
    cmd: (f64, f64),
    opponent: Option<((f64, f64), f64)>,
    sensor_range: f64,
    /// Wheels spin, the robot does not move.
    stuck: bool,
    radius: f64,
}

impl Robot {
    fn new(pose: Pose2) -> Self {
        Robot {
            pose,
            cmd: (0.0, 0.0),
            opponent: None,
            sensor_range: 0.3,
            stuck: false,
            radius: 0.1,
        }
    }

    fn step(&mut self) {
        if self.stuck {
            return;
        }
        let (v, w) = self.cmd;
        let mut next = self.pose;
        next.theta += w * DT;
        next.x += v * DT * next.theta.cos();
        next.y += v * DT * next.theta.sin();
        if let Some((c, r)) = self.opponent {
            if (next.x - c.0).hypot(next.y - c.1) < r + self.radius {
                next.x = self.pose.x;
                next.y = self.pose.y;
            }
        }
        self.pose = next;
    }

    /// (distance from the robot's edge to the opponent's surface, bearing, hit point)
    /// when it is ahead, as board_sim reports it.
    fn sense(&self) -> Option<(f64, f64, (f64, f64))> {
        let (c, r) = self.opponent?;
        let d = self.pose.distance_to(c) - r - self.radius;
        let ray = self.pose.bearing_to(c);
        let bearing = arnie_base::geom::wrap_angle(ray - self.pose.theta);
        let hit = (c.0 - r * ray.cos(), c.1 - r * ray.sin());
        (d <= self.sensor_range && bearing.abs() < 0.5).then_some((d, bearing, hit))
    }
}

/// What a run saw.
#[derive(Default, Debug)]
struct Log {
    done: Option<(u64, arnie_base::Finish, f64)>,
    stops: u32,
    marks: Vec<(f64, f64)>,
    phases: Vec<Phase>,
    motions_after_done: u32,
    last_motion: Option<(f64, f64)>,
    /// Every feedback's `poses_left`, when it changed.
    poses_left: Vec<usize>,
    /// The closest the robot came to each point of `watch`.
    closest: Vec<f64>,
    watch: Vec<(f64, f64)>,
}

struct World {
    nav: Navigator,
    planner: TestPlanner,
    robot: Robot,
    t: f64,
    /// Steps taken: t = n · DT exactly as the test computes it.
    n: u64,
    log: Log,
    /// Odometry stops after this time (the link dies).
    odometry_until: f64,
}

impl World {
    fn new(rows: &str, start: Pose2, cfg: BaseConfig) -> Self {
        cfg.check().unwrap();
        let mut nav = Navigator::new(cfg);
        let raw = Grid::from_ascii(rows).unwrap();
        nav.set_known_obstacles(Some(KnownObstacles {
            width: raw.width(),
            height: raw.height(),
            resolution_m: 0.1,
            origin_m: (0.0, 0.0),
            blocked: raw.blocked_cells().to_vec(),
        }));
        World {
            nav,
            planner: TestPlanner::new(rows),
            robot: Robot::new(start),
            t: 0.0,
            n: 0,
            log: Log::default(),
            odometry_until: f64::INFINITY,
        }
    }

    fn apply(&mut self, outs: Vec<Output>) {
        let mut queue: std::collections::VecDeque<Output> = outs.into();
        while let Some(o) = queue.pop_front() {
            match o {
                Output::Motion { v, w } => {
                    if self.log.done.is_some() {
                        self.log.motions_after_done += 1;
                    }
                    self.robot.cmd = (v, w);
                    self.log.last_motion = Some((v, w));
                }
                Output::Stop => {
                    self.robot.cmd = (0.0, 0.0);
                    self.log.stops += 1;
                }
                Output::Plan { id, start, goal } => {
                    let reply = self.planner.plan(start, goal, self.t);
                    queue.extend(self.nav.on_plan(id, reply, self.t));
                }
                Output::PlanRoute { id, ref points } => {
                    // Leg by leg, as the glue asks the planner.
                    let mut legs = Vec::new();
                    let mut failed = None;
                    for leg in points.windows(2) {
                        match self.planner.plan(leg[0], leg[1], self.t) {
                            PlanReply::Path(p) => legs.push(p),
                            other => {
                                failed = Some(other);
                                break;
                            }
                        }
                    }
                    let reply = failed.unwrap_or(PlanReply::Legs(legs));
                    queue.extend(self.nav.on_plan(id, reply, self.t));
                }
                Output::Mark {
                    id,
                    ref centers,
                    radius_m,
                    ttl_s,
                } => {
                    // Marked on the planner's map as the planner's update_map does.
                    let map = &mut self.planner.map;
                    let ok = map.update(centers, radius_m, false, ttl_s, self.t).is_ok();
                    self.log.marks.extend_from_slice(centers);
                    queue.extend(self.nav.on_marked(id, ok, self.t));
                }
                Output::Feedback { feedback, .. } => {
                    if self.log.phases.last() != Some(&feedback.phase) {
                        self.log.phases.push(feedback.phase);
                    }
                    if self.log.poses_left.last() != Some(&feedback.poses_left) {
                        self.log.poses_left.push(feedback.poses_left);
                    }
                }
                Output::Done { goal, finish } => self.log.done = Some((goal, finish, self.t)),
            }
        }
    }

    fn step(&mut self) {
        self.n += 1;
        self.t = self.n as f64 * DT;
        self.robot.step();
        let pose = self.robot.pose;
        for (i, p) in self.log.watch.iter().enumerate() {
            let d = pose.distance_to(*p);
            if self.log.closest.len() <= i {
                self.log.closest.push(d);
            }
            self.log.closest[i] = self.log.closest[i].min(d);
        }
        if self.t <= self.odometry_until {
            let outs =
                self.nav
                    .on_odometry(self.robot.pose, self.robot.cmd.0, self.robot.cmd.1, self.t);
            self.apply(outs);
            if let Some((d, b, hit)) = self.robot.sense() {
                let outs = self.nav.on_obstacle(d, b, hit, self.t);
                self.apply(outs);
            }
        }
        let outs = self.nav.tick(self.t);
        self.apply(outs);
    }

    /// `n` steps.
    fn steps(&mut self, n: u32) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Goal `id` started now and its first outputs applied.
    fn begin(&mut self, id: u64, goal: Goal) {
        let outs = self.nav.start(id, goal, self.t).expect("accepted");
        self.apply(outs);
    }

    /// Odometry for a few ticks (the link is up), then the goal, then steps until done.
    fn run(&mut self, goal: Goal, max_s: f64) -> (arnie_base::Finish, f64) {
        self.steps(3);
        self.begin(7, goal);
        while self.log.done.is_none() && self.t < max_s {
            self.step();
        }
        let (id, finish, t) = self.log.done.clone().expect("finished in time");
        assert_eq!(id, 7);
        (finish, t)
    }
}

/// The corridor with the opponent in its middle, the robot at its left end.
fn corridor_with_opponent(cfg: BaseConfig) -> World {
    let mut w = World::new(&corridor(), Pose2::new(0.3, 1.1, 0.0), cfg);
    w.robot.opponent = Some(((1.5, 1.1), 0.2));
    w
}

/// A goal at `(x, y)`, any heading.
fn goal(x: f64, y: f64) -> Goal {
    Goal {
        x,
        y,
        heading: None,
    }
}

/// The time of the first step n > `from` with n · DT − from · DT > `timeout`.
fn first_step_after(from: u64, timeout: f64) -> f64 {
    let t0 = from as f64 * DT;
    (from..)
        .map(|n| n as f64 * DT)
        .find(|t| t - t0 > timeout)
        .unwrap()
}

/// A 3 m x 2 m map of 0.1 m cells, top row first: `(rows, row)` bands.
fn map(bands: &[(usize, &str)]) -> String {
    let mut m = String::from("\n");
    for (n, row) in bands {
        assert_eq!(row.len(), 30, "{row}");
        for _ in 0..*n {
            m.push_str(row);
            m.push('\n');
        }
    }
    m
}

const FREE: &str = "..............................";
const FULL: &str = "##############################";

/// 3 m x 2 m, a wall from the bottom up to y = 1.2 m at x = 1.5 m.
fn table() -> String {
    map(&[(8, FREE), (12, "...............#..............")])
}

/// A corridor 0.5 m wide (the only way from left to right).
fn corridor() -> String {
    map(&[(6, FULL), (5, FREE), (9, FULL)])
}

#[test]
fn reaches_a_goal_around_the_wall_with_its_heading() {
    let mut w = World::new(&table(), Pose2::new(0.3, 0.3, 0.0), BaseConfig::default());
    let (f, _) = w.run(
        Goal {
            x: 2.6,
            y: 0.4,
            heading: Some(-1.5),
        },
        60.0,
    );
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
    assert!(
        w.robot.pose.distance_to((2.6, 0.4)) <= BaseConfig::default().goal_tolerance_m + 0.01,
        "{:?}",
        w.robot.pose
    );
    assert!(
        (w.robot.pose.theta - -1.5).abs() <= 0.06,
        "{:?}",
        w.robot.pose
    );
    assert_eq!(f.replans, 0);
    assert!(f.driven_m > 3.0, "around the wall: {}", f.driven_m);
    // It went over the wall's top (y > 1.2 m) and never through it.
    assert_eq!(w.log.phases.first(), Some(&Phase::Planning));
    assert!(w.log.phases.contains(&Phase::Driving) && w.log.phases.contains(&Phase::Turning));
    assert_eq!(w.robot.cmd, (0.0, 0.0), "stopped at the end");
    assert_eq!(w.nav.counters().outcomes[0], 1);
}

#[test]
fn an_opponent_in_the_way_is_marked_and_driven_around() {
    let cfg = BaseConfig {
        obstacle_stop_distance_m: 0.15,
        obstacle_radius_m: 0.15,
        ..BaseConfig::default()
    };
    let mut w = World::new(&table(), Pose2::new(0.3, 1.6, 0.0), cfg);
    // Straight on the way to (2.6, 1.6), above the wall.
    w.robot.opponent = Some(((1.5, 1.6), 0.12));
    let (f, _) = w.run(goal(2.6, 1.6), 60.0);
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
    assert!(f.replans >= 1, "{f:?}");
    assert!(!w.log.marks.is_empty());
    let m = w.log.marks[0];
    assert!(
        (m.0 - 1.5).abs() < 0.2 && (m.1 - 1.6).abs() < 0.1,
        "mark on the opponent: {m:?}"
    );
    assert!(w.log.phases.contains(&Phase::Stopped));
    assert!(w.nav.counters().obstacle_stops >= 1);
}

#[test]
fn an_opponent_in_the_only_corridor_gives_blocked_after_max_failures() {
    let mut w = corridor_with_opponent(BaseConfig {
        max_failures: 2,
        mark_ttl_s: 30.0,
        ..BaseConfig::default()
    });
    let (f, _) = w.run(goal(2.7, 1.1), 60.0);
    assert_eq!(f.outcome, Outcome::Blocked, "{f:?}");
    // Failures: the obstacle report, then two re-plans that find no path (the mark
    // closes the corridor): the third failure is one more than max_failures.
    assert_eq!(w.nav.counters().obstacle_stops, 1);
    assert_eq!(f.replans, 2, "{f:?}");
    assert_eq!(w.planner.plans, 3);
    assert!(
        f.message.contains("blocked 3 times") && f.message.contains("re-plan failed"),
        "{}",
        f.message
    );
    assert_eq!(w.robot.cmd, (0.0, 0.0));
    assert!(w.robot.pose.x < 1.5 - 0.2 - 0.1);
}

#[test]
fn a_passing_opponent_is_forgotten_after_the_ttl() {
    // The same corridor, the opponent leaves; the mark expires before the failures run out.
    let mut w = corridor_with_opponent(BaseConfig {
        max_failures: 10,
        mark_ttl_s: 1.0,
        replan_delay_s: 0.5,
        ..BaseConfig::default()
    });
    w.steps(3);
    w.begin(7, goal(2.7, 1.1));
    while w.log.marks.is_empty() && w.t < 30.0 {
        w.step();
    }
    w.robot.opponent = None;
    while w.log.done.is_none() && w.t < 60.0 {
        w.step();
    }
    let (_, f, _) = w.log.done.clone().unwrap();
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
    assert!(f.replans >= 2, "no path while marked, then a path: {f:?}");
}

#[test]
fn no_progress_counts_as_blocked_to_the_tick() {
    let cfg = BaseConfig {
        max_failures: 0,
        ..BaseConfig::default()
    };
    let mut w = World::new(&table(), Pose2::new(0.3, 1.6, 0.0), cfg.clone());
    w.robot.stuck = true;
    let (f, t) = w.run(goal(1.0, 1.6), 60.0);
    assert_eq!(f.outcome, Outcome::Blocked, "{f:?}");
    assert!(f.message.contains("no progress"), "{}", f.message);
    // Progress was last seen when the path came (the goal's step, n = 3); blocked at the
    // first step more than progress_timeout_s later.
    let expected = first_step_after(3, cfg.progress_timeout_s);
    assert_eq!(t, expected, "blocked at {t}, expected {expected}");
    assert_eq!(w.nav.counters().no_progress, 1);
}

#[test]
fn link_loss_stops_the_motors_and_ends_link_lost_to_the_tick() {
    let cfg = BaseConfig::default();
    let mut w = World::new(&table(), Pose2::new(0.3, 0.3, 0.0), cfg.clone());
    w.odometry_until = 1.0;
    let (f, t) = w.run(goal(2.6, 0.4), 60.0);
    assert_eq!(f.outcome, Outcome::LinkLost, "{f:?}");
    // The last odometry came at the last step <= 1.0 s; LINK_LOST at the first tick more
    // than link_timeout_s later.
    let last = (1..).take_while(|&n| n as f64 * DT <= 1.0).last().unwrap();
    let expected = first_step_after(last, cfg.link_timeout_s);
    assert_eq!(t, expected, "link lost at {t}, expected {expected}");
    assert_eq!(w.robot.cmd, (0.0, 0.0), "motors stopped");
    assert!(w.log.stops >= 1);
    assert!(f.message.contains("no odometry"), "{}", f.message);
    // A goal without fresh odometry is refused as LINK_LOST; the next one after odometry
    // is back is accepted.
    let refused = w.nav.start(8, goal(1.0, 1.0), w.t).unwrap_err();
    assert_eq!(refused.outcome, Outcome::LinkLost);
    w.odometry_until = f64::INFINITY;
    w.log.done = None;
    let (f, _) = w.run(goal(0.8, 0.3), 120.0);
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
}

#[test]
fn bad_goals_are_refused_with_a_reason() {
    let mut w = World::new(&table(), Pose2::new(0.3, 0.3, 0.0), BaseConfig::default());
    // No odometry yet.
    let r = w.nav.start(1, goal(1.0, 1.0), 0.0).unwrap_err();
    assert_eq!(r.outcome, Outcome::LinkLost);
    assert!(r.message.contains("no odometry"), "{}", r.message);
    w.steps(3);
    for g in [
        goal(f64::NAN, 1.0),
        goal(1.0, f64::INFINITY),
        Goal {
            x: 1.0,
            y: 1.0,
            heading: Some(f64::NAN),
        },
    ] {
        let r = w.nav.start(2, g, w.t).unwrap_err();
        assert_eq!(r.outcome, Outcome::Rejected);
        assert!(r.message.contains("not finite"), "{}", r.message);
    }
    // Outside the table and inside the wall: the planner's reason.
    for (g, why) in [((3.5, 1.0), "outside the map"), ((1.55, 0.5), "blocked")] {
        w.log.done = None;
        w.begin(3, goal(g.0, g.1));
        let (_, f, _) = w.log.done.clone().unwrap();
        assert_eq!(f.outcome, Outcome::Rejected, "{g:?}: {f:?}");
        assert!(f.message.contains(why), "{g:?}: {}", f.message);
    }
    assert_eq!(w.robot.cmd, (0.0, 0.0), "never moved");
    assert_eq!(w.nav.counters().refused, 4);
}

#[test]
fn cancel_and_preempt_stop_the_running_goal() {
    let mut w = World::new(&table(), Pose2::new(0.3, 0.3, 0.0), BaseConfig::default());
    w.steps(3);
    w.begin(1, goal(2.6, 0.4));
    w.steps(50);
    let outs = w.nav.start(2, goal(0.3, 1.5), w.t).unwrap();
    assert!(
        matches!(&outs[0], Output::Done { goal: 1, finish } if finish.outcome == Outcome::Preempted)
    );
    w.apply(outs);
    w.steps(20);
    w.log.done = None;
    let outs = w.nav.cancel(w.t);
    assert_eq!(outs[0], Output::Stop);
    w.apply(outs);
    let (id, f, _) = w.log.done.clone().unwrap();
    assert_eq!((id, f.outcome), (2, Outcome::Cancelled));
    w.log.motions_after_done = 0;
    w.steps(10);
    assert_eq!(w.log.motions_after_done, 0, "no motion after the end");
    assert_eq!(w.nav.active_goal(), None);
}

#[test]
fn hits_on_the_known_map_are_ignored() {
    let mut w = World::new(&table(), Pose2::new(1.2, 0.5, 0.0), BaseConfig::default());
    w.steps(3);
    w.begin(1, goal(1.2, 1.0));
    // Facing the wall at x = 1.5 m (cells 1.5..1.6) while the path is planned.
    w.robot.pose.theta = std::f64::consts::FRAC_PI_2;
    w.steps(10);
    let before = w.nav.counters().obstacle_stops;
    let outs = w.nav.on_obstacle(0.1, 0.0, (1.5, 0.5), w.t);
    assert!(outs.is_empty(), "{outs:?}");
    assert_eq!(w.nav.counters().obstacles_known, 1);
    let outs = w.nav.on_obstacle(0.1, 0.0, (1.2, 0.8), w.t);
    assert!(
        outs.iter().any(|o| matches!(o, Output::Mark { .. })),
        "an unknown obstacle ahead: {outs:?}"
    );
    assert_eq!(w.nav.counters().obstacle_stops, before + 1);
    let outs = w.nav.on_obstacle(f64::NAN, 0.0, (1.2, 0.8), w.t);
    assert!(outs.is_empty());
    assert_eq!(w.nav.counters().obstacles_rejected, 1);
}

#[test]
fn through_poses_passes_each_pose_in_order_then_reaches_the_goal() {
    let mut w = World::new(&table(), Pose2::new(0.3, 0.3, 0.0), BaseConfig::default());
    // Up to (0.5, 1.6), across above the wall to (2.0, 1.6), down to the goal.
    let via = vec![(0.5, 1.6), (2.0, 1.6)];
    w.log.watch = via.clone();
    w.steps(3);
    let outs = w
        .nav
        .start_route(7, via, goal(2.6, 0.4), w.t)
        .expect("accepted");
    assert!(
        matches!(&outs[0], Output::PlanRoute { points, .. } if points.len() == 4),
        "{outs:?}"
    );
    w.apply(outs);
    while w.log.done.is_none() && w.t < 90.0 {
        w.step();
    }
    let (_, f, _) = w.log.done.clone().unwrap();
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
    assert!(w.robot.pose.distance_to((2.6, 0.4)) <= 0.05);
    // Each pose passed within the waypoint tolerance (and overshoot margin).
    for (i, d) in w.log.closest.iter().enumerate() {
        assert!(*d < 0.1, "pose {i} passed {d} m away");
    }
    assert_eq!(w.log.poses_left, [3, 2, 1], "{:?}", w.log.poses_left);
    assert_eq!(w.planner.plans, 3, "one plan per leg");
}

#[test]
fn a_given_path_is_driven_without_the_planner_and_resumed_after_an_obstacle() {
    let cfg = BaseConfig {
        max_failures: 10,
        replan_delay_s: 0.5,
        ..BaseConfig::default()
    };
    // The corridor, an opponent in it that leaves after 3 s.
    let mut w = corridor_with_opponent(cfg);
    w.steps(3);
    let path = vec![(0.6, 1.1), (1.2, 1.1), (2.6, 1.1)];
    let outs = w.nav.start_path(7, path, Some(0.0), w.t).expect("accepted");
    assert!(outs.iter().all(|o| !matches!(o, Output::Plan { .. })));
    w.apply(outs);
    while w.log.done.is_none() && w.t < 60.0 {
        w.step();
        if w.t > 3.0 {
            w.robot.opponent = None;
        }
    }
    let (_, f, _) = w.log.done.clone().unwrap();
    assert_eq!(f.outcome, Outcome::Reached, "{f:?}");
    assert_eq!(w.planner.plans, 0, "a given path is never planned");
    assert!(w.nav.counters().obstacle_stops >= 1);
    assert!(w.robot.pose.distance_to((2.6, 1.1)) <= 0.05);
}

#[test]
fn a_given_path_blocked_for_good_ends_blocked_and_bad_paths_are_refused() {
    let cfg = BaseConfig {
        max_failures: 1,
        ..BaseConfig::default()
    };
    let mut w = corridor_with_opponent(cfg);
    w.steps(3);
    let outs = w
        .nav
        .start_path(7, vec![(2.6, 1.1)], None, w.t)
        .expect("accepted");
    w.apply(outs);
    while w.log.done.is_none() && w.t < 60.0 {
        w.step();
    }
    let (_, f, _) = w.log.done.clone().unwrap();
    assert_eq!(f.outcome, Outcome::Blocked, "{f:?}");
    assert_eq!(w.planner.plans, 0);
    // A path whose end is where the robot stands: REACHED at the next step, never in
    // start_path's own answer (the glue makes the goal the running one first).
    let here = (w.robot.pose.x, w.robot.pose.y);
    w.log.done = None;
    let outs = w
        .nav
        .start_path(9, vec![here, here], Some(w.robot.pose.theta), w.t)
        .unwrap();
    assert!(
        outs.iter().all(|o| !matches!(o, Output::Done { .. })),
        "{outs:?}"
    );
    w.apply(outs);
    w.steps(60);
    let (id, f, _) = w.log.done.clone().unwrap();
    assert_eq!((id, f.outcome), (9, Outcome::Reached), "{f:?}");
    let r = w.nav.start_path(8, vec![], None, w.t).unwrap_err();
    assert_eq!(r.outcome, Outcome::Rejected);
    let r = w
        .nav
        .start_path(8, vec![(1.0, f64::NAN)], None, w.t)
        .unwrap_err();
    assert!(r.message.contains("not finite"), "{}", r.message);
}
