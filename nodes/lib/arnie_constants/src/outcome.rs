//! Outcome codes as enums, 1:1 with their constants: `MoveTo.action`'s result `outcome`
//! ([`MoveOutcome`]: the trajectory server ends its moves with it and the strategy reads
//! it back, so both use this one type: `arnie_trajectory::outcome::Outcome`,
//! `arnie_strategy::MoveOutcome`) and `PlanPath.srv`'s `error_code` ([`PlanCode`]).
//! Their users' tests check them against every constant of the interface files
//! (`arnie_trajectory`'s `interface_constants`, `arnie_strategy`'s `codes_round_trip`).
use crate::action::move_to::result;
use crate::srv::plan_path::response;

/// MoveTo result `outcome`; [`code`](Self::code) is the constant of the same name in the
/// action file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveOutcome {
    /// `REACHED`: the arm arrived at the target.
    Reached,
    /// `REVERSED_TO_START`: an obstacle stopped the move; the arm went back to the start
    /// (for the strategy: a blocked path).
    ReversedToStart,
    /// `ABORTED_HELP_NEEDED`: the way back was blocked too (or the arm position was
    /// lost); the arm stays where it is and a human must help.
    AbortedHelpNeeded,
    /// `CANCELLED`: the client cancelled; the arm holds its measured position.
    Cancelled,
    /// `REJECTED`: the goal was refused before moving.
    Rejected,
    /// `PREEMPTED`: a newer goal replaced this one.
    Preempted,
    /// `REACHED_BY_DETOUR`: the arm arrived at the target along a detour around a
    /// remembered obstruction.
    ReachedByDetour,
}

impl MoveOutcome {
    /// Every outcome, in code order.
    pub const ALL: [MoveOutcome; 7] = [
        Self::Reached,
        Self::ReversedToStart,
        Self::AbortedHelpNeeded,
        Self::Cancelled,
        Self::Rejected,
        Self::Preempted,
        Self::ReachedByDetour,
    ];

    /// The MoveTo constant's value.
    pub const fn code(self) -> u8 {
        match self {
            Self::Reached => result::REACHED,
            Self::ReversedToStart => result::REVERSED_TO_START,
            Self::AbortedHelpNeeded => result::ABORTED_HELP_NEEDED,
            Self::Cancelled => result::CANCELLED,
            Self::Rejected => result::REJECTED,
            Self::Preempted => result::PREEMPTED,
            Self::ReachedByDetour => result::REACHED_BY_DETOUR,
        }
    }

    /// From the action's constant; `None` for an unknown code (e.g. from a newer peer).
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.code() == code)
    }

    /// The MoveTo constant's name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Reached => "REACHED",
            Self::ReversedToStart => "REVERSED_TO_START",
            Self::AbortedHelpNeeded => "ABORTED_HELP_NEEDED",
            Self::Cancelled => "CANCELLED",
            Self::Rejected => "REJECTED",
            Self::Preempted => "PREEMPTED",
            Self::ReachedByDetour => "REACHED_BY_DETOUR",
        }
    }
}

/// `PlanPath.srv` error codes other than `OK`, 1:1 with its `uint16` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanCode {
    /// `NO_MAP`: the planner runs but has no map (the strategy treats it like "no
    /// planner").
    NoMap,
    /// `START_OUTSIDE`
    StartOutside,
    /// `GOAL_OUTSIDE`
    GoalOutside,
    /// `START_BLOCKED`
    StartBlocked,
    /// `GOAL_BLOCKED`
    GoalBlocked,
    /// `NO_PATH`
    NoPath,
    /// `INVALID_REQUEST`
    InvalidRequest,
}

impl PlanCode {
    /// The service's constant.
    pub fn code(self) -> u16 {
        match self {
            Self::NoMap => response::NO_MAP,
            Self::StartOutside => response::START_OUTSIDE,
            Self::GoalOutside => response::GOAL_OUTSIDE,
            Self::StartBlocked => response::START_BLOCKED,
            Self::GoalBlocked => response::GOAL_BLOCKED,
            Self::NoPath => response::NO_PATH,
            Self::InvalidRequest => response::INVALID_REQUEST,
        }
    }

    /// From the service's constant; `None` for `OK` and unknown codes.
    pub fn from_code(code: u16) -> Option<Self> {
        Some(match code {
            response::NO_MAP => Self::NoMap,
            response::START_OUTSIDE => Self::StartOutside,
            response::GOAL_OUTSIDE => Self::GoalOutside,
            response::START_BLOCKED => Self::StartBlocked,
            response::GOAL_BLOCKED => Self::GoalBlocked,
            response::NO_PATH => Self::NoPath,
            response::INVALID_REQUEST => Self::InvalidRequest,
            _ => return None,
        })
    }
}
