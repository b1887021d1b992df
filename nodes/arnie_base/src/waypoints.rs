//! `follow_waypoints` without ROS: which waypoint comes next, which were missed.
//!
//! As Nav2's waypoint follower (Jazzy): the waypoints are driven to one after the other,
//! each as a `navigate_to_pose` goal of the base's navigator, from `goal_index`, the whole
//! list `number_of_loops` more times after the first pass. A waypoint whose goal fails
//! (refused, no path, blocked, link lost...) is recorded in `missed_waypoints` with its
//! index, pose and the goal's error code; with `stop_on_failure` the run ends there
//! (ABORTED), else it goes on with the next one and SUCCEEDS at the end with the misses
//! listed (Nav2's bringup configuration; `stop_on_failure` is the base's parameter).
//! No task is run at a waypoint (Nav2's default executor waits 0 s there).

/// A waypoint that was not reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    /// Its index in the goal's `poses`.
    pub index: usize,
    /// The failed goal's error code (`NavigateToPose`'s: 206 in an obstacle ...).
    pub error_code: u16,
}

/// What to do after a waypoint's goal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Drive to waypoint `index`.
    Go(usize),
    /// Every waypoint was tried: SUCCEEDED (misses in [`WaypointRun::missed`]).
    Finished,
    /// A waypoint failed and `stop_on_failure` is set: ABORTED.
    Stopped,
}

/// Why a `follow_waypoints` goal cannot start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WaypointsRefused {
    /// No poses.
    #[error("Empty vector of waypoints passed to waypoint following action")]
    Empty,
    /// `goal_index` past the last pose.
    #[error("goal_index {index} is past the last of {len} waypoints")]
    BadIndex {
        /// The index asked for.
        index: u32,
        /// How many poses there are.
        len: usize,
    },
}

/// One `follow_waypoints` run (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaypointRun {
    len: usize,
    current: usize,
    loops: u32,
    loop_no: u32,
    stop_on_failure: bool,
    missed: Vec<Missed>,
}

impl WaypointRun {
    /// A run over `len` waypoints from `goal_index`, `number_of_loops` extra passes.
    ///
    /// # Errors
    /// No waypoints, or `goal_index` out of range.
    pub fn new(
        len: usize,
        goal_index: u32,
        number_of_loops: u32,
        stop_on_failure: bool,
    ) -> Result<WaypointRun, WaypointsRefused> {
        if len == 0 {
            return Err(WaypointsRefused::Empty);
        }
        let current = goal_index as usize;
        if current >= len {
            return Err(WaypointsRefused::BadIndex {
                index: goal_index,
                len,
            });
        }
        Ok(WaypointRun {
            len,
            current,
            loops: number_of_loops,
            loop_no: 0,
            stop_on_failure,
            missed: Vec::new(),
        })
    }

    /// The waypoint being driven to (feedback `current_waypoint`).
    pub fn current(&self) -> usize {
        self.current
    }

    /// The waypoints missed so far, in order.
    pub fn missed(&self) -> &[Missed] {
        &self.missed
    }

    /// The current waypoint's goal ended: `Ok` reached, `Err(code)` failed with `code`.
    pub fn on_done(&mut self, result: Result<(), u16>) -> Next {
        if let Err(error_code) = result {
            self.missed.push(Missed {
                index: self.current,
                error_code,
            });
            if self.stop_on_failure {
                return Next::Stopped;
            }
        }
        self.current += 1;
        if self.current >= self.len {
            if self.loop_no >= self.loops {
                return Next::Finished;
            }
            self.loop_no += 1;
            self.current = 0;
        }
        Next::Go(self.current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_waypoint_is_missed_and_the_run_goes_on() {
        let mut run = WaypointRun::new(3, 0, 0, false).unwrap();
        assert_eq!(run.current(), 0);
        assert_eq!(run.on_done(Ok(())), Next::Go(1));
        assert_eq!(run.on_done(Err(206)), Next::Go(2));
        assert_eq!(run.on_done(Ok(())), Next::Finished);
        assert_eq!(
            run.missed(),
            [Missed {
                index: 1,
                error_code: 206
            }]
        );
    }

    #[test]
    fn stop_on_failure_loops_and_goal_index() {
        let mut run = WaypointRun::new(3, 1, 0, true).unwrap();
        assert_eq!(run.on_done(Err(105)), Next::Stopped);
        assert_eq!(run.missed().len(), 1);
        let mut run = WaypointRun::new(2, 1, 1, false).unwrap();
        assert_eq!(run.on_done(Ok(())), Next::Go(0));
        assert_eq!(run.on_done(Ok(())), Next::Go(1));
        assert_eq!(run.on_done(Ok(())), Next::Finished);
        assert_eq!(
            WaypointRun::new(0, 0, 0, false),
            Err(WaypointsRefused::Empty)
        );
        assert!(matches!(
            WaypointRun::new(2, 2, 0, false),
            Err(WaypointsRefused::BadIndex { .. })
        ));
    }
}
