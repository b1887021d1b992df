//! What the simulator draws on `sim/markers` (metres, frame `world`), as plain
//! [`arnie_markers::Marker`]s; the glue stamps and publishes them.
//!
//! | namespace | id | shape | what |
//! | --- | --- | --- | --- |
//! | `source` | 0 | sphere | the source flame; diameter = the lighting distance × 2; orange when lit, grey when not |
//! | `candle` | 0 | sphere | the second candle, the same way |
//! | `taper` | 0 | sphere | the taper on the arm's tip, orange when lit |
//! | `arm` | 0 | sphere | the arm's tip (encoders), blue; red while an obstacle stops it |
//! | `trail` | 0 | line strip | the tip's last positions, fading out with age |
//! | `labels` | 0, 1, 2; 10 + k | text | `source`, `candle`, `taper` (with `lit`), obstacle k's name |
//! | `workspace` | 0 | line list | the scenario's `arm.workspace` box (static) |
//! | `obstacles` | k | cube | obstacle k of the scenario, translucent (static) |
//!
//! Static markers (workspace, obstacles) have no lifetime; the others live
//! `lifetime_s`, so they vanish when the simulator stops publishing.

use arnie_markers::{Marker, Rgba, Trail};
use arnie_xpc::Scale;

use crate::arm::Vec3;
use crate::eyes::Flame;
use crate::scenario::Scenario;
use crate::world::World;

/// Colour of a lit flame.
pub const LIT: Rgba = Rgba::rgb(1.0, 0.55, 0.0);
/// Colour of an unlit flame (or candle).
pub const UNLIT: Rgba = Rgba::rgb(0.45, 0.45, 0.45);
/// Colour of the arm's tip.
pub const ARM: Rgba = Rgba::rgb(0.2, 0.5, 1.0);
/// Colour of the arm's tip while blocked.
pub const BLOCKED: Rgba = Rgba::rgb(0.9, 0.1, 0.1);

/// Points kept in the trail.
const TRAIL_POINTS: usize = 300;
/// The trail records the tip when it moved at least this far [m].
const TRAIL_STEP_M: f64 = 0.001;
/// Text height [m].
const TEXT_M: f64 = 0.012;

fn m(p: Vec3) -> [f64; 3] {
    Scale::MILLIMETRES.to_m([p.x, p.y, p.z])
}

fn flame_colour(lit: bool) -> Rgba {
    if lit {
        LIT
    } else {
        UNLIT
    }
}

/// The scene's markers: the scenario (fixed) and the trail (grows as the arm moves).
#[derive(Debug, Clone)]
pub struct SceneMarkers {
    scenario: Scenario,
    trail: Trail,
    lifetime_s: f64,
}

impl SceneMarkers {
    /// Markers of `scenario`; the moving ones live `lifetime_s` [s] (0 = until deleted).
    pub fn new(scenario: Scenario, lifetime_s: f64) -> Self {
        SceneMarkers {
            scenario,
            trail: Trail::new(TRAIL_POINTS, TRAIL_STEP_M),
            lifetime_s,
        }
    }

    /// The same markers with the moving ones living `lifetime_s` [s].
    pub fn with_lifetime_s(mut self, lifetime_s: f64) -> Self {
        self.lifetime_s = lifetime_s;
        self
    }

    /// The markers of `world` now (records the arm in the trail).
    pub fn of_world(&mut self, world: &World) -> Vec<Marker> {
        let lit = world.eyes().lit();
        self.scene(world.arm().read(), &lit, world.arm().blocked().is_some())
    }

    /// The markers with the arm's tip at `arm_mm` [mm, global], the flames `lit`, and
    /// the arm `blocked` or not (records the arm in the trail).
    pub fn scene(&mut self, arm_mm: Vec3, lit: &[Flame], blocked: bool) -> Vec<Marker> {
        let e = &self.scenario.eyes;
        let is_lit = |f: Flame| lit.contains(&f);
        let life = self.lifetime_s;
        let flame_d = 2.0 * e.light_radius_mm * 1e-3;
        let taper = arm_mm + e.taper_offset_mm;
        let above = |p: Vec3| m(p + Vec3::new(0.0, 0.0, 2.0 * e.light_radius_mm + 5.0));
        let label = |f: Flame| {
            if is_lit(f) {
                format!("{} (lit)", f.name())
            } else {
                f.name().to_owned()
            }
        };
        let white = Rgba::rgb(1.0, 1.0, 1.0);
        self.trail.push(m(arm_mm));

        let mut out = vec![
            Marker::sphere(
                "source",
                0,
                m(e.source_mm),
                flame_d,
                flame_colour(is_lit(Flame::Source)),
            ),
            Marker::sphere(
                "candle",
                0,
                m(e.candle_mm),
                flame_d,
                flame_colour(is_lit(Flame::Candle)),
            ),
            Marker::sphere(
                "taper",
                0,
                m(taper),
                0.6 * flame_d,
                flame_colour(is_lit(Flame::Taper)),
            ),
            Marker::sphere(
                "arm",
                0,
                m(arm_mm),
                0.008,
                if blocked { BLOCKED } else { ARM },
            ),
            Marker::text(
                "labels",
                0,
                above(e.source_mm),
                TEXT_M,
                label(Flame::Source),
                white,
            ),
            Marker::text(
                "labels",
                1,
                above(e.candle_mm),
                TEXT_M,
                label(Flame::Candle),
                white,
            ),
            Marker::text(
                "labels",
                2,
                above(taper),
                TEXT_M,
                label(Flame::Taper),
                white,
            ),
        ];
        out.extend(self.trail.line("trail", 0, 0.002, ARM.with_alpha(0.8)));
        for marker in &mut out {
            marker.lifetime_s = life;
        }
        if let Some(w) = &self.scenario.arm.workspace {
            let (lo, hi) = (m(Vec3::from(w.min_mm)), m(Vec3::from(w.max_mm)));
            out.push(Marker::box_edges(
                "workspace",
                0,
                lo,
                hi,
                0.001,
                Rgba::rgb(0.6, 0.6, 0.6),
            ));
        }
        for (k, o) in self.scenario.arm.obstacles.iter().enumerate() {
            let (lo, hi) = (m(Vec3::from(o.min_mm)), m(Vec3::from(o.max_mm)));
            let id = i32::try_from(k).unwrap_or(i32::MAX - 10);
            out.push(Marker::cube(
                "obstacles",
                id,
                lo,
                hi,
                Rgba::rgb(0.6, 0.3, 0.2).with_alpha(0.35),
            ));
            let top = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), hi[2] + TEXT_M];
            out.push(Marker::text(
                "labels",
                10 + id,
                top,
                TEXT_M,
                o.name.clone(),
                white,
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wiring::{InterfaceNames, Wiring};
    use arnie_xpc::{wire, Config, Format};

    fn find<'a>(ms: &'a [Marker], ns: &str, id: i32) -> &'a Marker {
        ms.iter()
            .find(|x| x.ns == ns && x.id == id)
            .unwrap_or_else(|| panic!("no {ns}/{id}"))
    }

    fn scenario() -> Scenario {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../params/scenario_flame.json"
        );
        Scenario::load(std::path::Path::new(path)).unwrap()
    }

    #[test]
    fn candle_colour_flips_when_lit() {
        let s = scenario();
        let mut scene = SceneMarkers::new(s.clone(), 1.0);
        let before = scene.scene(Vec3::zeros(), &[Flame::Source], false);
        assert_eq!(find(&before, "candle", 0).colour, UNLIT);
        assert_eq!(find(&before, "source", 0).colour, LIT);
        assert_eq!(find(&before, "taper", 0).colour, UNLIT);
        assert_eq!(find(&before, "labels", 1).text, "candle");
        let after = scene.scene(
            s.eyes.candle_mm,
            &[Flame::Source, Flame::Taper, Flame::Candle],
            false,
        );
        assert_eq!(find(&after, "candle", 0).colour, LIT);
        assert_eq!(find(&after, "taper", 0).colour, LIT);
        assert_eq!(find(&after, "labels", 1).text, "candle (lit)");
        // Metres: the candle at (−95, 30, 45) mm; the taper follows the arm.
        let c = find(&after, "candle", 0).position;
        assert!((c[0] + 0.095).abs() < 1e-12 && (c[2] - 0.045).abs() < 1e-12);
        assert_eq!(find(&after, "taper", 0).position, c);
    }

    #[test]
    fn every_namespace_is_drawn_and_static_markers_live_forever() {
        let mut scene = SceneMarkers::new(scenario(), 1.0);
        scene.scene(Vec3::zeros(), &[], false);
        let ms = scene.scene(Vec3::new(20.0, 0.0, 0.0), &[], true);
        for ns in [
            "source",
            "candle",
            "taper",
            "arm",
            "trail",
            "labels",
            "workspace",
            "obstacles",
        ] {
            assert!(ms.iter().any(|x| x.ns == ns), "{ns} missing");
        }
        assert_eq!(find(&ms, "arm", 0).colour, BLOCKED);
        assert_eq!(find(&ms, "trail", 0).points.len(), 2);
        assert_eq!(find(&ms, "labels", 10).text, "table");
        for x in &ms {
            let fixed =
                x.ns == "workspace" || x.ns == "obstacles" || (x.ns == "labels" && x.id >= 10);
            assert_eq!(
                x.lifetime_s,
                if fixed { 0.0 } else { 1.0 },
                "{}/{}",
                x.ns,
                x.id
            );
        }
        // Keys are unique (rviz would replace one by the other).
        let mut keys: Vec<_> = ms.iter().map(Marker::key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), ms.len());
    }

    #[test]
    fn the_world_drives_the_scene() {
        let config = Config::load(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../params/spine_sim.json").as_ref(),
            None,
        )
        .unwrap();
        let wiring = Wiring::from_config(&config, &InterfaceNames::default()).unwrap();
        let mut world = World::new(scenario(), &wiring);
        let mut scene = SceneMarkers::new(scenario(), 0.0);
        // The spine sends the global target (0, 40, 0) in the arm's frame: (40, 0, 0).
        world
            .on_arm_datagram(&wire::encode(Format::Simulink, &[vec![40.0, 0.0, 0.0]]))
            .unwrap();
        for _ in 0..400 {
            world.step(0.005);
            scene.of_world(&world);
        }
        let ms = scene.of_world(&world);
        let arm = find(&ms, "arm", 0).position;
        assert!((arm[1] - 0.04).abs() < 1e-9, "{arm:?}");
        let trail = &find(&ms, "trail", 0).points;
        // One point per millimetre moved: the newest is within 1 mm of the tip.
        let last = trail.last().unwrap();
        assert!(
            trail.len() > 10 && (last[1] - arm[1]).abs() <= 0.001,
            "{} {last:?}",
            trail.len()
        );
    }
}
