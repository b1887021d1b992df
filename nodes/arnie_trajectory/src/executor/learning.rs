//! What a stop teaches and what a free step clears: the executor's learning half (the
//! contact's region, the detour after a confirmed stop, the way back). See the parent
//! module's doc for the protocol.

use nalgebra::Point3;

use super::{
    finite, max_axis_error_mm, Action, Executor, Leg, Stage, Stop, MAX_RESUMES, SPEED_HISTORY,
    SPEED_SPAN,
};
use crate::detour::{self, PlanOptions};
use crate::error::TrajectoryError;
use crate::minjerk;
use crate::obstructions::{Contact, KnownObstruction, PassEffect};
use crate::outcome::{Approached, End, Obstruction};

impl Executor {
    /// After a step with a fresh position: the approach speed, and the way the arm went
    /// without being stopped (clears what it passed through in the scene).
    pub(super) fn evidence(
        &mut self,
        previous: Option<Point3<f64>>,
        measured: Option<Point3<f64>>,
    ) {
        let Some(m) = measured.filter(finite) else {
            return;
        };
        self.recent.push_back(m);
        while self.recent.len() > SPEED_HISTORY {
            self.recent.pop_front();
        }
        let (Some(a), true) = (previous, self.free_step()) else {
            return;
        };
        if a == m {
            return;
        }
        self.just_passed = Some((a, m));
        let Some(p) = self.planning.as_mut() else {
            return;
        };
        let (rho, min) = (p.contact.tool_radius_mm(), p.contact.min_size_mm());
        let mut k = 0;
        while k < p.scene.obstructions.len() {
            if p.scene.obstructions[k].free_pass(a, m, rho, min) == PassEffect::Cleared {
                p.scene.obstructions.remove(k);
                self.unnamed = self.unnamed.and_then(|u| match u.cmp(&k) {
                    std::cmp::Ordering::Less => Some(u),
                    std::cmp::Ordering::Equal => None,
                    std::cmp::Ordering::Greater => Some(u - 1),
                });
            } else {
                k += 1;
            }
        }
    }

    /// This step's check passed (the arm is following its path, not held or stopped).
    pub(super) fn free_step(&self) -> bool {
        self.just_stopped.is_none()
            && self.stale_periods == 0
            && matches!(
                self.stage,
                Stage::Running { .. }
                    | Stage::Settling { .. }
                    | Stage::Finished(
                        End::Reached | End::ReachedByDetour { .. } | End::ReversedToStart { .. }
                    )
            )
    }

    /// The node remembered the region learned at the last stop under `id` (a new id, or
    /// the region it merged into): the executor's scene names it so (messages name
    /// regions by the node's ids).
    pub fn name_learned(&mut self, id: u64) {
        if let (Some(k), Some(p)) = (self.unnamed.take(), self.planning.as_mut()) {
            if let Some(o) = p.scene.obstructions.get_mut(k) {
                o.id = id;
            }
        }
    }

    /// The path being run reaches a target inside learned regions from another side.
    pub fn approach(&self) -> Option<&Approached> {
        self.approach.as_ref()
    }

    /// The learned regions the path being run goes through (a probe: no way around them).
    pub fn probed(&self) -> &[u64] {
        &self.probed
    }

    /// Why the last stop taught nothing (a stop while the set-points were not moving, a
    /// NaN, the arm outside the workspace).
    pub fn contact_refused(&self) -> Option<&TrajectoryError> {
        self.contact_refused.as_ref()
    }

    /// The arm's speed before it stopped: the fastest it moved over [`SPEED_SPAN`]
    /// periods among the last [`SPEED_HISTORY`] fresh positions [mm/s].
    pub fn approach_speed_mm_s(&self) -> f64 {
        let span = SPEED_SPAN.min(self.recent.len().saturating_sub(1)).max(1);
        let seconds = span as f64 * self.period_ms as f64 / 1000.0;
        (span..self.recent.len())
            .map(|k| (self.recent[k] - self.recent[k - span]).norm() / seconds)
            .fold(0.0, f64::max)
    }

    /// After the hold: a detour to the target if one is allowed and found, else back.
    pub(super) fn after_hold(&mut self, obstacle: Obstruction, m: Point3<f64>) -> Action {
        if self.planning.is_none() {
            return self.start_reverse(obstacle, m);
        }
        // Confirmed: positions kept coming during the hold (or there was no hold).
        if self.reverse_wait_periods > 0 && self.samples <= self.hold_samples {
            self.no_detour = Some(TrajectoryError::PositionNotUpdated {
                periods: self.reverse_wait_periods,
            });
            return self.start_reverse(obstacle, m);
        }
        // Not blocked after all: during the hold the arm moved, or caught up with the
        // set-point it was sent last (it lagged: a slow link, a loaded machine). It goes on
        // along its path (the next check decides again); a few times per move at most.
        let moved = max_axis_error_mm(&m, &obstacle.measured_mm) > self.tolerance_mm / 2.0;
        let caught_up = max_axis_error_mm(&m, &self.last_sent) <= self.tolerance_mm;
        if self.reverse_wait_periods > 0 && (moved || caught_up) && self.resumes < MAX_RESUMES {
            self.resumes += 1;
            self.obstacle = self.obstacle_before_hold;
            self.stage = Stage::Running {
                next: self.last_index + 1,
            };
            return self.advance_running(m);
        }
        // What the stop teaches: a small region ahead of the arm (obstructions module).
        let moving = self.path.windows(2).any(|w| w[0] != w[1]);
        let contact = Contact {
            measured_mm: m,
            expected_mm: obstacle.expected_mm,
            moving,
            speed_mm_s: self.approach_speed_mm_s(),
            period_ms: self.period_ms,
        };
        let Some(p) = self.planning.as_mut() else {
            return self.start_reverse(obstacle, m);
        };
        let learned = contact.region(&p.contact, &p.scene.workspace);
        self.just_stopped = Some(Stop {
            obstruction: obstacle,
            learned: learned.clone(),
        });
        match learned {
            Ok(region) => {
                let id = p.scene.obstructions.iter().map(|o| o.id).max().unwrap_or(0) + 1;
                p.scene
                    .obstructions
                    .push(KnownObstruction::learned(id, &region, 0, u64::MAX));
                self.unnamed = Some(p.scene.obstructions.len() - 1);
                self.contact_refused = None;
            }
            Err(e) => {
                // Nothing learned: planning again would run into the same stop.
                self.contact_refused = Some(e.clone());
                self.no_detour = Some(e);
                return self.start_reverse(obstacle, m);
            }
        }
        let p = &*p;
        if self.replans >= p.max_replans {
            self.no_detour = Some(TrajectoryError::DetourReplansUsed {
                replans: self.replans,
            });
            return self.start_reverse(obstacle, m);
        }
        let planned = detour::plan_motion_with(
            &p.scene,
            &p.config,
            m,
            self.goal,
            self.sample_factor,
            PlanOptions { probe: false },
        );
        match planned {
            Ok(motion) => {
                self.replans += 1;
                self.via_points = motion.path.via_points().len();
                self.approach = motion.path.approach.map(|a| Approached {
                    side: a.side,
                    into: a.into,
                });
                self.probed = Vec::new();
                self.new_path(motion.samples, Leg::Detour);
                self.send(0)
            }
            Err(e) => {
                self.no_detour = Some(e);
                self.start_reverse(obstacle, m)
            }
        }
    }

    pub(super) fn start_reverse(&mut self, obstacle: Obstruction, m: Point3<f64>) -> Action {
        // Around the scene when there is one (an obstruction learned on a detour may lie
        // on the straight way back); the straight way back otherwise.
        let planned = self.planning.as_ref().and_then(|p| {
            detour::plan_motion(
                &p.scene,
                &p.config,
                m,
                self.original_start,
                self.sample_factor,
            )
            .ok()
        });
        let path = match planned {
            Some(motion) => Ok(motion.samples),
            None => minjerk::try_plan(m, self.original_start, self.sample_factor),
        };
        match path {
            Ok(path) => {
                self.new_path(path, Leg::Reverse);
                self.obstacle = Some(obstacle);
                self.send(0)
            }
            Err(error) => self.finish(End::ReversePlanFailed { obstacle, error }),
        }
    }
}
