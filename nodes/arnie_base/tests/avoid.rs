//! The LiDAR's gate in the navigator, to the tick, against a simulated robot, a moving
//! opponent, a simulated LiDAR (450 rays a revolution at 10 Hz, as the LD06) and the real
//! planner: no ROS, no clock.
//!
//! The opponent's behaviour is a scene: one hand-made crossing proves little, so the
//! main test runs a **seeded family** of crossings (where, when, how fast, whether it
//! stops in the way) and asserts rates: the robot never drives into the opponent, and it
//! reaches its goal in almost every scene (else it gives up BLOCKED, never hangs).
use arnie_base::{
    scan_points, BaseConfig, Goal, KnownObstacles, Navigator, Outcome, Output, PlanReply, Pose2,
    ScanRays,
};
use arnie_grid::{Grid, MapFrame};
use arnie_math::Rng;

mod common;
use common::TestPlanner;

const DT: f64 = 0.02;
/// The robot's true radius (the scenario's) and the opponent's.
const ROBOT_R: f64 = 0.15;
const OPP_R: f64 = 0.15;

/// A 3 m x 2 m table of 0.05 m cells, walls all round.
fn table() -> Grid {
    let (w, h) = (60, 40);
    let blocked = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            x == 0 || y == 0 || x == w - 1 || y == h - 1
        })
        .collect();
    Grid::from_blocked(w, h, blocked)
        .unwrap()
        .with_frame(MapFrame::new(0.05, 0.0, 0.0).unwrap())
}

/// The opponent: straight legs between waypoints at a speed, waiting at some.
#[derive(Clone, Debug)]
struct Opponent {
    /// (x, y, wait there [s]).
    points: Vec<(f64, f64, f64)>,
    speed: f64,
    start_s: f64,
}

impl Opponent {
    fn at(&self, t: f64) -> (f64, f64) {
        let mut t = t - self.start_s;
        let mut p = (self.points[0].0, self.points[0].1);
        if t <= 0.0 {
            return p;
        }
        for w in self.points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let dt = len / self.speed;
            if t < dt {
                let k = t / dt;
                return (a.0 + k * (b.0 - a.0), a.1 + k * (b.1 - a.1));
            }
            t -= dt;
            p = (b.0, b.1);
            if t < b.2 {
                return p;
            }
            t -= b.2;
        }
        p
    }
}

struct World {
    nav: Navigator,
    planner: TestPlanner,
    pose: Pose2,
    /// Commanded and actual linear speed, turn rate.
    cmd: (f64, f64),
    v: f64,
    w: f64,
    braking: bool,
    opponent: Opponent,
    /// The opponent's own clock: it waits while its next step would run into the robot
    /// (it has its avoidance too, and cannot drive through us).
    opp_t: f64,
    t: f64,
    n: u64,
    done: Option<(Outcome, String)>,
    /// Closest approach of the robot's centre to the opponent's while the robot was
    /// commanded forward and its own motion brought it nearer [m] (the gate let it drive
    /// into the opponent; being run into while braking or still is the opponent's doing).
    closest_driving: f64,
    stops: u32,
}

impl World {
    fn new(cfg: BaseConfig, start: Pose2, opponent: Opponent) -> World {
        let grid = table();
        let mut nav = Navigator::new(cfg.clone());
        nav.set_known_obstacles(Some(KnownObstacles {
            width: grid.width(),
            height: grid.height(),
            resolution_m: 0.05,
            origin_m: (0.0, 0.0),
            blocked: grid.blocked_cells().to_vec(),
        }));
        World {
            nav,
            planner: TestPlanner::of(grid, cfg.robot_radius_m),
            pose: start,
            cmd: (0.0, 0.0),
            v: 0.0,
            w: 0.0,
            braking: false,
            opponent,
            opp_t: 0.0,
            t: 0.0,
            n: 0,
            done: None,
            closest_driving: f64::INFINITY,
            stops: 0,
        }
    }

    fn apply(&mut self, outs: Vec<Output>) {
        let mut queue: std::collections::VecDeque<Output> = outs.into();
        while let Some(o) = queue.pop_front() {
            match o {
                Output::Motion { v, w } => {
                    self.cmd = (v, w);
                    self.braking = false;
                }
                Output::Stop => {
                    self.cmd = (0.0, 0.0);
                    self.braking = true;
                    self.stops += 1;
                }
                Output::Plan { id, start, goal } => {
                    let reply = self.planner.plan(start, goal, self.t);
                    queue.extend(self.nav.on_plan(id, reply, self.t));
                }
                Output::PlanRoute { id, ref points } => {
                    // Leg by leg, as the glue asks the planner (routes: Nav2's doors).
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
                    let ok = self
                        .planner
                        .map
                        .update(centers, radius_m, false, ttl_s, self.t)
                        .is_ok();
                    queue.extend(self.nav.on_marked(id, ok, self.t));
                }
                Output::Feedback { .. } => {}
                Output::Done { finish, .. } => self.done = Some((finish.outcome, finish.message)),
            }
        }
    }

    /// The board: accelerations 0.8 m/s² (2 m/s² braking after Stop), 6 rad/s².
    fn drive(&mut self) {
        let acc = if self.braking { 2.0 } else { 0.8 };
        let step = |v: f64, target: f64, a: f64| v + (target - v).clamp(-a * DT, a * DT);
        self.v = step(self.v, self.cmd.0, acc);
        self.w = step(self.w, self.cmd.1, 6.0);
        self.pose.theta += self.w * DT;
        let next = (
            self.pose.x + self.v * DT * self.pose.theta.cos(),
            self.pose.y + self.v * DT * self.pose.theta.sin(),
        );
        let opp = self.opponent.at(self.opp_t);
        let (d_now, d_next) = (
            self.pose.distance_to(opp),
            (next.0 - opp.0).hypot(next.1 - opp.1),
        );
        if d_next < d_now && self.v.abs() > 0.02 && self.cmd.0 > 0.0 {
            self.closest_driving = self.closest_driving.min(d_next);
        }
        if d_next < ROBOT_R + OPP_R && d_next < d_now {
            self.v = 0.0; // a collision: the robot is held there
        } else {
            self.pose.x = next.0;
            self.pose.y = next.1;
        }
        // The opponent moves on unless that would run into the robot.
        let ahead = self.opponent.at(self.opp_t + DT);
        if self.pose.distance_to(ahead) >= ROBOT_R + OPP_R
            || self.pose.distance_to(ahead) > self.pose.distance_to(opp)
        {
            self.opp_t += DT;
        }
    }

    /// One LiDAR revolution at the robot's centre: the opponent's disc (walls are on the
    /// map and filtered by the gate anyway).
    fn scan(&self) -> Vec<f32> {
        let opp = self.opponent.at(self.opp_t);
        (0..450)
            .map(|i| {
                // Clockwise from the cut behind, as the driver publishes.
                let a = self.pose.theta + std::f64::consts::PI - i as f64 * 0.8f64.to_radians();
                let (dx, dy) = (a.cos(), a.sin());
                let (ox, oy) = (self.pose.x - opp.0, self.pose.y - opp.1);
                let b = ox * dx + oy * dy;
                let c = ox * ox + oy * oy - OPP_R * OPP_R;
                let disc = b * b - c;
                if b < 0.0 && disc >= 0.0 {
                    (-b - disc.sqrt()) as f32
                } else {
                    f32::INFINITY
                }
            })
            .collect()
    }

    fn step(&mut self) {
        self.n += 1;
        self.t = self.n as f64 * DT;
        self.drive();
        let outs = self.nav.on_odometry(self.pose, self.v, self.w, self.t);
        self.apply(outs);
        if self.n.is_multiple_of(5) {
            let ranges = self.scan();
            let rays = ScanRays {
                angle_min: std::f64::consts::PI,
                angle_increment: -0.8f64.to_radians(),
                range_min: 0.02,
                range_max: 12.0,
                ranges: &ranges,
            };
            let p = scan_points(&rays, Pose2::default(), self.pose);
            let outs = self.nav.on_scan(&p.points, self.t);
            self.apply(outs);
        }
        let outs = self.nav.tick(self.t);
        self.apply(outs);
    }

    /// Scans and odometry for a moment, then the goal, then steps until it ends.
    fn run(&mut self, goal: (f64, f64), max_s: f64) -> (Outcome, String) {
        for _ in 0..10 {
            self.step();
        }
        let outs = self
            .nav
            .start(
                1,
                Goal {
                    x: goal.0,
                    y: goal.1,
                    heading: None,
                },
                self.t,
            )
            .expect("accepted");
        self.apply(outs);
        while self.done.is_none() && self.t < max_s {
            self.step();
        }
        self.done
            .clone()
            .unwrap_or((Outcome::Cancelled, format!("still running after {max_s} s")))
    }
}

fn cfg() -> BaseConfig {
    BaseConfig {
        scan_avoidance: true,
        robot_radius_m: 0.2,
        known_obstacle_margin_m: 0.08,
        max_failures: 6,
        ..BaseConfig::default()
    }
}

/// A crossing opponent that parks on the robot's line for `wait` seconds.
fn crossing(x: f64, from_below: bool, speed: f64, start_s: f64, wait: f64) -> Opponent {
    let (y0, y1) = if from_below {
        (0.25, 1.75)
    } else {
        (1.75, 0.25)
    };
    Opponent {
        points: vec![(x, y0, 0.0), (x, 1.0, wait), (x, y1, 0.0)],
        speed,
        start_s,
    }
}

#[test]
fn an_opponent_crossing_ahead_stops_the_robot_which_then_goes_on() {
    let mut w = World::new(
        cfg(),
        Pose2::new(0.4, 1.0, 0.0),
        crossing(1.4, true, 0.4, 0.5, 3.0),
    );
    let (outcome, why) = w.run((2.6, 1.0), 60.0);
    assert_eq!(outcome, Outcome::Reached, "{why}");
    assert!(
        w.closest_driving > ROBOT_R + OPP_R,
        "drove into it: {}",
        w.closest_driving
    );
    let c = w.nav.counters();
    assert!(c.avoid.scan_stops >= 1, "{c:?}");
    assert!(c.avoid.scan_holds > 0);
    assert!(c.avoid.scans > 100);
}

#[test]
fn scans_that_stop_end_the_goal_link_lost() {
    let mut w = World::new(
        cfg(),
        Pose2::new(0.4, 1.0, 0.0),
        crossing(2.8, true, 0.1, 1000.0, 0.0),
    );
    for _ in 0..10 {
        w.step();
    }
    let outs = w
        .nav
        .start(
            1,
            Goal {
                x: 2.6,
                y: 1.0,
                heading: None,
            },
            w.t,
        )
        .unwrap();
    w.apply(outs);
    // Odometry goes on, scans stop.
    let mut since_scan = 0.0;
    while w.done.is_none() && since_scan < 2.0 {
        w.n += 1;
        w.t = w.n as f64 * DT;
        since_scan += DT;
        w.drive();
        let outs = w.nav.on_odometry(w.pose, w.v, w.w, w.t);
        w.apply(outs);
        let outs = w.nav.tick(w.t);
        w.apply(outs);
    }
    let (outcome, why) = w.done.clone().expect("ended");
    assert_eq!(outcome, Outcome::LinkLost, "{why}");
    assert!(why.contains("no scan from the LiDAR"), "{why}");
    assert!(since_scan <= cfg().scan_timeout_s + 0.05, "{since_scan}");
    assert_eq!(w.cmd, (0.0, 0.0));
    // And a new goal is refused until scans come again.
    let e = w
        .nav
        .start(
            2,
            Goal {
                x: 1.0,
                y: 1.0,
                heading: None,
            },
            w.t,
        )
        .unwrap_err();
    assert_eq!(e.outcome, Outcome::LinkLost);
}

#[test]
fn the_match_s_end_stops_the_robot_and_refuses_goals() {
    let mut w = World::new(
        cfg(),
        Pose2::new(0.4, 1.0, 0.0),
        crossing(2.8, true, 0.1, 1000.0, 0.0),
    );
    for _ in 0..10 {
        w.step();
    }
    let outs = w
        .nav
        .start(
            1,
            Goal {
                x: 2.6,
                y: 1.0,
                heading: None,
            },
            w.t,
        )
        .unwrap();
    w.apply(outs);
    for _ in 0..100 {
        w.step();
    }
    assert!(w.v > 0.1, "driving");
    let outs = w.nav.set_match_over(Some("time".into()), w.t);
    w.apply(outs);
    assert_eq!(w.cmd, (0.0, 0.0));
    let (outcome, why) = w.done.clone().expect("ended");
    assert_eq!(outcome, Outcome::Preempted);
    assert!(why.contains("match is over"), "{why}");
    let e = w
        .nav
        .start(
            2,
            Goal {
                x: 1.0,
                y: 1.0,
                heading: None,
            },
            w.t,
        )
        .unwrap_err();
    assert_eq!(e.outcome, Outcome::Rejected);
    assert!(e.message.contains("match is over"));
    // A new match: goals again.
    w.nav.set_match_over(None, w.t);
    assert!(w
        .nav
        .start(
            3,
            Goal {
                x: 1.0,
                y: 1.0,
                heading: None
            },
            w.t
        )
        .is_ok());
}

/// One scene of the family from `seed`: where the opponent crosses, from which side, how
/// fast, when (around the robot's own arrival there), and how long it stays in the way.
fn scene(seed: u64) -> Opponent {
    let mut r = Rng::new(seed);
    let x = 1.0 + 1.2 * r.next_f64();
    let speed = 0.2 + 0.5 * r.next_f64();
    // The robot reaches x after about (x - 0.4) / 0.45 s; the opponent's crossing is timed
    // within ±1.5 s of that.
    let arrive = (x - 0.4) / 0.45 + 3.0 * (r.next_f64() - 0.5);
    let start_s = (arrive - 0.75 / speed).max(0.0);
    let wait = if r.chance(0.3) {
        2.0 * r.next_f64()
    } else {
        0.0
    };
    crossing(x, r.chance(0.5), speed, start_s, wait)
}

#[test]
fn a_seeded_family_of_crossing_opponents_is_never_driven_into() {
    let n = 60;
    let (mut reached, mut hit, mut stopped) = (0, Vec::new(), 0);
    let mut other = Vec::new();
    for seed in 0..n {
        let opp = scene(1000 + seed);
        let mut w = World::new(cfg(), Pose2::new(0.4, 1.0, 0.0), opp.clone());
        let (outcome, why) = w.run((2.6, 1.0), 60.0);
        if w.closest_driving < ROBOT_R + OPP_R {
            hit.push((seed, w.closest_driving, opp));
        }
        if w.nav.counters().avoid.scan_stops > 0 {
            stopped += 1;
        }
        match outcome {
            Outcome::Reached => reached += 1,
            Outcome::Blocked => {}
            _ => other.push((seed, outcome, why)),
        }
    }
    println!(
        "{n} scenes: {reached} reached, {stopped} with a stop for the opponent, {} collisions",
        hit.len()
    );
    assert!(hit.is_empty(), "drove into the opponent: {hit:?}");
    assert!(other.is_empty(), "neither reached nor blocked: {other:?}");
    assert!(reached * 100 >= n * 90, "{reached}/{n} reached");
    assert!(
        stopped * 100 >= n * 30,
        "the family must make the robot stop: {stopped}/{n}"
    );
}

/// Not a test of its own: `cargo test -p arnie_base --no-default-features --test avoid
/// -- --ignored --nocapture rules` prints the family's figures for a few rules.
#[test]
#[ignore]
fn rules() {
    for (name, n_points, hold, margin) in [
        ("RobotikUTT 20 pts, 1 s, 0.05", 20, 1.0, 0.05),
        ("20 pts, 1 s, 0.10", 20, 1.0, 0.10),
        ("8 pts, 1 s, 0.05", 8, 1.0, 0.05),
        ("8 pts, 1 s, 0.10", 8, 1.0, 0.10),
        ("8 pts, 0.5 s, 0.10", 8, 0.5, 0.10),
        ("5 pts, 0.5 s, 0.10", 5, 0.5, 0.10),
    ] {
        let c = BaseConfig {
            scan_min_points: n_points,
            scan_clear_hold_s: hold,
            scan_zone_margin_m: margin,
            ..cfg()
        };
        let (mut reached, mut hits, mut t_sum, mut closest) = (0, 0, 0.0, f64::INFINITY);
        let n = 200;
        for seed in 0..n {
            let mut w = World::new(c.clone(), Pose2::new(0.4, 1.0, 0.0), scene(5000 + seed));
            let (outcome, _) = w.run((2.6, 1.0), 60.0);
            if outcome == Outcome::Reached {
                reached += 1;
                t_sum += w.t;
            }
            if w.closest_driving < ROBOT_R + OPP_R {
                hits += 1;
            }
            closest = closest.min(w.closest_driving);
        }
        println!(
            "{name:30}: {reached}/{n} reached, mean {:.1} s, {hits} hits, closest {closest:.3} m",
            t_sum / f64::from(reached.max(1))
        );
    }
}
