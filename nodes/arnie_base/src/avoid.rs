//! [`Avoid`]: the LiDAR's gate on the drive path. The opponent is seen in the scan; the
//! base stops when it is in the **zone ahead**, marks it on the planner's map, re-plans
//! around it, and drives again once the zone has been clear for a while.
//!
//! - **Points.** Each scan's rays become points on the map ([`scan_points`]): rays that
//!   are NaN, ±∞, 0 (a driver's "no return") or outside the scan's `[range_min,
//!   range_max]` are counted and skipped. Points on the map's own obstacles (walls, fixed
//!   obstacles: within `known_obstacle_margin_m` of a blocked cell of `map`) are not the
//!   opponent and are dropped ([`Avoid::on_scan`]), as are points far beyond any zone.
//! - **Zone.** A corridor in the direction of travel (ahead when driving forward, behind
//!   when backing up), as wide as the robot plus `scan_zone_margin_m` on each side, from
//!   the robot's edge out to `scan_zone_base_m + |v| · scan_reaction_s + v² / (2 ·
//!   scan_stop_decel_mps2)` (the distance covered while the next scan comes and the
//!   board brakes), no farther than the path left: speed-dependent, so a slow robot near
//!   its goal is not stopped by an opponent beside the goal. The zone starts at the
//!   robot's centre: an opponent pressed against its front (inside the planning radius's
//!   margin) is in it. The robot's own parts are never seen: the LD06 sits above the body,
//!   and what is nearer than the driver's `range_min_m` (a mast) is not a point.
//! - **Rule** (RobotikUTT's 2025 robot, as the default): the zone is blocked when it holds
//!   at least `scan_min_points` points, and clear again once no scan has blocked it for
//!   `scan_clear_hold_s` (1 s). Turning in place is never gated (a disc robot turning
//!   hits nothing).
//! - **Episodes.** The first blocked step after a clear one starts an episode
//!   ([`Gate::Blocked`] with `new`): the navigator stops, counts a failure, marks the
//!   points' centre (pushed back by the mark's radius) with a short time to live
//!   (`scan_mark_ttl_s`) and re-plans. While the episode lasts it only holds (a `Stop`
//!   while the board still moves); the no-progress check still runs, so an opponent that
//!   never leaves ends the goal BLOCKED and the strategy picks another task.
//! - **Freshness.** With `scan_avoidance` on, a goal needs scans: none for
//!   `scan_timeout_s` (the LiDAR unplugged or stalled) stops the base and ends the goal
//!   LINK_LOST, and goals are refused until scans come again.
use crate::config::BaseConfig;
use crate::geom::Pose2;
use crate::navigator::KnownObstacles;

/// What one scan's rays gave ([`scan_points`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanPoints {
    /// Map-frame points of the finite rays within the scan's limits.
    pub points: Vec<(f64, f64)>,
    /// Rays that were NaN.
    pub nan: u32,
    /// Rays that were +∞ or −∞.
    pub infinite: u32,
    /// Rays of exactly 0 (a driver's "no return").
    pub zero: u32,
    /// Finite rays outside `[range_min, range_max]`.
    pub out_of_range: u32,
}

/// A `sensor_msgs/LaserScan`'s geometry and rays, as [`scan_points`] reads them.
#[derive(Clone, Copy, Debug)]
pub struct ScanRays<'a> {
    /// First ray's angle [rad, laser frame].
    pub angle_min: f64,
    /// Between rays [rad] (negative: clockwise order).
    pub angle_increment: f64,
    /// [m]
    pub range_min: f64,
    /// [m]
    pub range_max: f64,
    /// One per ray [m].
    pub ranges: &'a [f32],
}

/// The rays as map points: `laser` is the laser frame in `base_link`, `robot` the robot
/// in `map`. Bad rays are counted, never used; a non-finite geometry gives no points.
pub fn scan_points(scan: &ScanRays<'_>, laser: Pose2, robot: Pose2) -> ScanPoints {
    let mut out = ScanPoints::default();
    let geometry_ok = scan.angle_min.is_finite()
        && scan.angle_increment.is_finite()
        && laser.is_finite()
        && robot.is_finite();
    let (lo, hi) = (
        if scan.range_min.is_finite() {
            scan.range_min
        } else {
            0.0
        },
        if scan.range_max.is_finite() {
            scan.range_max
        } else {
            f64::INFINITY
        },
    );
    let at = Pose2::compose(&robot, &laser);
    for (i, &r) in scan.ranges.iter().enumerate() {
        let r = f64::from(r);
        if r.is_nan() {
            out.nan += 1;
        } else if r.is_infinite() {
            out.infinite += 1;
        } else if r == 0.0 {
            out.zero += 1;
        } else if r < lo || r > hi || r < 0.0 {
            out.out_of_range += 1;
        } else if geometry_ok {
            let a = scan.angle_min + scan.angle_increment * i as f64;
            out.points.push(at.ahead(r, a));
        }
    }
    out
}

/// The gate's verdict for one drive step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gate {
    /// Drive.
    Clear,
    /// The zone holds `points` (≥ `scan_min_points`) around `centre` (map frame).
    Blocked {
        /// Points in the zone.
        points: u32,
        /// Their mean [m, map].
        centre: (f64, f64),
        /// The first blocked step after a clear one.
        new: bool,
    },
    /// Clear now, but blocked less than `scan_clear_hold_s` ago: wait.
    Holding {
        /// Since the last blocked step [s].
        clear_for_s: f64,
    },
}

/// The avoidance's counters (in the navigator's, on `/diagnostics`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AvoidCounters {
    /// Scans taken.
    pub scans: u64,
    /// Their points on the map's own obstacles (dropped).
    pub scan_points_known: u64,
    /// Their points kept (near the robot, not on the map's obstacles).
    pub scan_points_kept: u64,
    /// Episodes: the zone blocked after being clear (a stop, a mark, a re-plan).
    pub scan_stops: u64,
    /// Drive steps held (the zone blocked, or clear for less than the hold).
    pub scan_holds: u64,
    /// Goals ended because scans stopped coming.
    pub scan_lost: u64,
}

/// The gate's state (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Avoid {
    /// The last scan's points that may be the opponent [m, map].
    points: Vec<(f64, f64)>,
    scan_at: Option<f64>,
    last_blocked: Option<f64>,
    episode: bool,
    counters: AvoidCounters,
}

/// The zone's length beyond the robot's edge at speed `v` [m] (before the path clip).
pub fn zone_length(cfg: &BaseConfig, v: f64) -> f64 {
    let v = v.abs();
    cfg.scan_zone_base_m + v * cfg.scan_reaction_s + v * v / (2.0 * cfg.scan_stop_decel_mps2)
}

impl Avoid {
    /// The counters.
    pub fn counters(&self) -> &AvoidCounters {
        &self.counters
    }

    /// Counts a goal ended for want of scans.
    pub fn lost(&mut self) {
        self.counters.scan_lost += 1;
    }

    /// When the last scan came [s].
    pub fn scan_at(&self) -> Option<f64> {
        self.scan_at
    }

    /// Whether a scan came within `scan_timeout_s` of `now`.
    pub fn fresh(&self, cfg: &BaseConfig, now: f64) -> bool {
        self.scan_at.is_some_and(|t| now - t <= cfg.scan_timeout_s)
    }

    /// The points the gate looks at [m, map].
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// A scan's map points at `now`, the robot at `robot`: the points near enough to
    /// matter and not on the map's own obstacles are kept for the next steps.
    pub fn on_scan(
        &mut self,
        points: &[(f64, f64)],
        robot: Pose2,
        known: Option<&KnownObstacles>,
        cfg: &BaseConfig,
        now: f64,
    ) {
        self.counters.scans += 1;
        self.scan_at = Some(now);
        self.points.clear();
        let reach =
            cfg.robot_radius_m + cfg.scan_zone_margin_m + zone_length(cfg, cfg.max_speed_mps) + 0.1;
        for &p in points {
            if robot.distance_to(p) > reach {
                continue;
            }
            if known.is_some_and(|k| k.near(p, cfg.known_obstacle_margin_m)) {
                self.counters.scan_points_known += 1;
                continue;
            }
            self.points.push(p);
        }
        self.counters.scan_points_kept += self.points.len() as u64;
    }

    /// The zone at `pose`, driving at `v` with `left_m` of path left: its points.
    pub fn zone(&self, cfg: &BaseConfig, pose: &Pose2, v: f64, left_m: f64) -> (u32, (f64, f64)) {
        let r = cfg.robot_radius_m;
        let len = zone_length(cfg, v).min(left_m.max(0.0));
        let half = r + cfg.scan_zone_margin_m;
        let dir = if v < 0.0 { -1.0 } else { 1.0 };
        let (s, c) = pose.theta.sin_cos();
        let (mut n, mut sx, mut sy) = (0u32, 0.0, 0.0);
        for &(px, py) in &self.points {
            let (dx, dy) = (px - pose.x, py - pose.y);
            let (x, y) = (dir * (c * dx + s * dy), -s * dx + c * dy);
            if x > 0.0 && x <= r + len && y.abs() <= half {
                n += 1;
                sx += px;
                sy += py;
            }
        }
        let centre = if n > 0 {
            (sx / f64::from(n), sy / f64::from(n))
        } else {
            (pose.x, pose.y)
        };
        (n, centre)
    }

    /// The verdict for a drive step at `v` from `pose` with `left_m` of path left, at
    /// `now` (see the module doc).
    pub fn gate(&mut self, cfg: &BaseConfig, pose: &Pose2, v: f64, left_m: f64, now: f64) -> Gate {
        let (n, centre) = self.zone(cfg, pose, v, left_m);
        if n >= cfg.scan_min_points.max(1) {
            let new = !self.episode;
            self.episode = true;
            self.last_blocked = Some(now);
            self.counters.scan_holds += 1;
            if new {
                self.counters.scan_stops += 1;
            }
            return Gate::Blocked {
                points: n,
                centre,
                new,
            };
        }
        if let Some(t) = self.last_blocked {
            if now - t < cfg.scan_clear_hold_s {
                self.counters.scan_holds += 1;
                return Gate::Holding {
                    clear_for_s: now - t,
                };
            }
        }
        self.episode = false;
        Gate::Clear
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BaseConfig {
        BaseConfig {
            scan_avoidance: true,
            robot_radius_m: 0.15,
            ..BaseConfig::default()
        }
    }

    /// An opponent of radius 0.15 at (x, y): 20 points on its near half.
    fn opponent(x: f64, y: f64, from: (f64, f64)) -> Vec<(f64, f64)> {
        let toward = (from.1 - y).atan2(from.0 - x);
        (0..30)
            .map(|i| {
                let a = toward + (i as f64 / 29.0 - 0.5) * 2.0;
                (x + 0.15 * a.cos(), y + 0.15 * a.sin())
            })
            .collect()
    }

    #[test]
    fn the_zone_grows_with_speed() {
        let c = cfg();
        let still = zone_length(&c, 0.0);
        let fast = zone_length(&c, 0.5);
        assert_eq!(still, c.scan_zone_base_m);
        assert!(
            (fast - (0.15 + 0.5 * c.scan_reaction_s + 0.25 / (2.0 * c.scan_stop_decel_mps2))).abs()
                < 1e-12
        );
        assert_eq!(zone_length(&c, -0.5), fast, "backing up: the same, behind");
    }

    #[test]
    fn an_opponent_ahead_blocks_one_beside_or_behind_does_not() {
        let c = cfg();
        let pose = Pose2::new(1.0, 1.0, 0.0);
        let mut a = Avoid::default();
        // 0.45 m ahead (its near edge 0.15 m from ours): blocked at 0.5 m/s.
        a.on_scan(&opponent(1.6, 1.0, (1.0, 1.0)), pose, None, &c, 0.0);
        assert!(matches!(
            a.gate(&c, &pose, 0.5, 5.0, 0.0),
            Gate::Blocked { new: true, .. }
        ));
        // Same scan, driving backwards: the zone is behind, clear... but held.
        assert!(matches!(
            a.gate(&c, &pose, -0.5, 5.0, 0.1),
            Gate::Holding { .. }
        ));
        assert!(matches!(a.gate(&c, &pose, -0.5, 5.0, 1.2), Gate::Clear));
        // Beside the robot: never in the corridor.
        let mut a = Avoid::default();
        a.on_scan(&opponent(1.0, 1.5, (1.0, 1.0)), pose, None, &c, 0.0);
        assert_eq!(a.gate(&c, &pose, 0.5, 5.0, 0.0), Gate::Clear);
        // Far ahead but slow: outside the short zone (fast: inside).
        let c = BaseConfig {
            max_speed_mps: 2.0,
            ..c
        };
        let mut a = Avoid::default();
        a.on_scan(&opponent(2.0, 1.0, (1.0, 1.0)), pose, None, &c, 0.0);
        assert_eq!(a.gate(&c, &pose, 0.05, 5.0, 0.0), Gate::Clear);
        assert!(matches!(
            a.gate(&c, &pose, 2.0, 5.0, 0.0),
            Gate::Blocked { .. }
        ));
        // ... and not when the goal is before it (0.3 m of path left).
        let mut a = Avoid::default();
        a.on_scan(&opponent(1.8, 1.0, (1.0, 1.0)), pose, None, &c, 0.0);
        assert_eq!(a.gate(&c, &pose, 1.0, 0.3, 0.0), Gate::Clear);
    }

    #[test]
    fn the_rule_needs_n_points_and_a_clear_hold() {
        let c = BaseConfig {
            scan_min_points: 20,
            ..cfg()
        };
        let pose = Pose2::new(1.0, 1.0, 0.0);
        let mut a = Avoid::default();
        // 19 points: not enough.
        let few: Vec<_> = (0..19).map(|i| (1.35, 0.95 + i as f64 * 0.005)).collect();
        a.on_scan(&few, pose, None, &c, 0.0);
        assert_eq!(a.gate(&c, &pose, 0.3, 5.0, 0.0), Gate::Clear);
        let many: Vec<_> = (0..20).map(|i| (1.35, 0.95 + i as f64 * 0.005)).collect();
        a.on_scan(&many, pose, None, &c, 0.1);
        let Gate::Blocked {
            points,
            centre,
            new,
        } = a.gate(&c, &pose, 0.3, 5.0, 0.1)
        else {
            panic!("blocked")
        };
        assert_eq!((points, new), (20, true));
        assert!((centre.0 - 1.35).abs() < 1e-9);
        // Blocked again in the same episode: not new.
        assert!(matches!(
            a.gate(&c, &pose, 0.3, 5.0, 0.15),
            Gate::Blocked { new: false, .. }
        ));
        // It leaves: held for 1 s after the last blocked step, then clear.
        a.on_scan(&[], pose, None, &c, 0.2);
        assert!(matches!(
            a.gate(&c, &pose, 0.3, 5.0, 0.2),
            Gate::Holding { .. }
        ));
        assert!(matches!(
            a.gate(&c, &pose, 0.3, 5.0, 1.1),
            Gate::Holding { .. }
        ));
        assert_eq!(a.gate(&c, &pose, 0.3, 5.0, 1.16), Gate::Clear);
        // The next blocking is a new episode.
        a.on_scan(&many, pose, None, &c, 2.0);
        assert!(matches!(
            a.gate(&c, &pose, 0.3, 5.0, 2.0),
            Gate::Blocked { new: true, .. }
        ));
        assert_eq!(a.counters().scan_stops, 2);
    }

    #[test]
    fn walls_and_far_points_are_not_the_opponent_one_pressed_against_us_is() {
        let c = BaseConfig {
            scan_min_points: 5,
            known_obstacle_margin_m: 0.05,
            ..cfg()
        };
        let pose = Pose2::new(1.0, 1.0, 0.0);
        // Inside the planning radius, front-left: an opponent pressed against the robot.
        let close: Vec<_> = (0..30).map(|i| (1.08, 1.05 + i as f64 * 0.005)).collect();
        let mut a = Avoid::default();
        a.on_scan(&close, pose, None, &c, 0.0);
        assert!(matches!(
            a.gate(&c, &pose, 0.5, 5.0, 0.0),
            Gate::Blocked { .. }
        ));
        // A wall cell right ahead on the known map.
        let known = KnownObstacles {
            width: 30,
            height: 20,
            resolution_m: 0.1,
            origin_m: (0.0, 0.0),
            blocked: (0..600).map(|i| i % 30 == 14).collect(),
        };
        let wall: Vec<_> = (0..30).map(|i| (1.45, 0.9 + i as f64 * 0.007)).collect();
        let mut a = Avoid::default();
        a.on_scan(&wall, pose, Some(&known), &c, 0.0);
        assert_eq!(a.gate(&c, &pose, 0.5, 5.0, 0.0), Gate::Clear);
        assert_eq!(a.counters().scan_points_known, 30);
        // Far away: dropped at once.
        let mut a = Avoid::default();
        a.on_scan(&[(2.9, 1.9)], pose, None, &c, 0.0);
        assert!(a.points().is_empty());
    }

    #[test]
    fn bad_rays_are_counted_never_used() {
        let ranges = [
            f32::NAN,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.01,
            30.0,
            1.0,
        ];
        let rays = ScanRays {
            angle_min: 0.0,
            angle_increment: -0.1,
            range_min: 0.02,
            range_max: 12.0,
            ranges: &ranges,
        };
        let p = scan_points(
            &rays,
            Pose2::new(0.1, 0.0, 0.0),
            Pose2::new(1.0, 1.0, std::f64::consts::FRAC_PI_2),
        );
        assert_eq!((p.nan, p.zero, p.infinite, p.out_of_range), (1, 1, 2, 2));
        assert_eq!(p.points.len(), 1);
        // Ray 6 at -0.6 rad in the laser frame, 1 m; the laser 0.1 m ahead of a robot
        // facing +y at (1, 1).
        let a = std::f64::consts::FRAC_PI_2 - 0.6;
        let want = (1.0 + a.cos(), 1.1 + a.sin());
        assert!((p.points[0].0 - want.0).abs() < 1e-6 && (p.points[0].1 - want.1).abs() < 1e-6);
        // A NaN geometry gives no points and no panic.
        let bad = ScanRays {
            angle_min: f64::NAN,
            ..rays
        };
        assert!(scan_points(&bad, Pose2::default(), Pose2::default())
            .points
            .is_empty());
    }
}
