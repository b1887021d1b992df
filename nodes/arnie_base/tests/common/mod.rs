//! What the navigator's tests share: the planner as the node runs it.
use arnie_base::{PlanFailure, PlanReply};
use arnie_grid::node::{answer, Query, Search};
use arnie_grid::{Grid, MapFrame, MarkedMap, Planner};

/// The planner as the node runs it: a marked map, expiry before each plan.
pub struct TestPlanner {
    /// The map with its marks.
    pub map: MarkedMap,
    /// Plans asked for.
    pub plans: u32,
}

impl TestPlanner {
    /// `rows` top first, 0.1 m cells, origin (0, 0), robot radius 0.1 m.
    #[allow(dead_code)]
    pub fn new(rows: &str) -> Self {
        let raw = Grid::from_ascii(rows)
            .unwrap()
            .with_frame(MapFrame::new(0.1, 0.0, 0.0).unwrap());
        TestPlanner::of(raw, 0.1)
    }

    /// A placed grid, inflated by `radius_m`.
    #[allow(dead_code)]
    pub fn of(raw: Grid, radius_m: f64) -> Self {
        let base = raw.inflated_m(radius_m).unwrap();
        TestPlanner {
            map: MarkedMap::new(raw, base, radius_m),
            plans: 0,
        }
    }

    pub fn plan(&mut self, start: (f64, f64), goal: (f64, f64), now: f64) -> PlanReply {
        self.plans += 1;
        self.map.expire(now);
        let mut planner = Planner::new(&self.map.grid());
        let search = Search::resolve("jps", "only_when_no_obstacles").unwrap();
        match answer(
            Some(&mut planner),
            &search,
            &Query {
                start_m: start,
                goal_m: goal,
                simplify: true,
                smooth: true,
            },
        ) {
            Ok(a) => PlanReply::Path(a.points_m),
            Err(e) => PlanReply::Failed(PlanFailure::from_code(e.code()).unwrap(), e.to_string()),
        }
    }
}
