//! The managed-node (lifecycle) state machine of ROS 2, without ROS: the states, the
//! transitions and the rules of `rcl_lifecycle`'s default state machine
//! (`rcl_lifecycle/src/default_state_machine.c`, Jazzy), and the order in which
//! `rclpy`'s and `rclcpp`'s `LifecycleNode` run a change of state and its callbacks.
//! `node_glue::lifecycle` serves it on a node (the `lifecycle_msgs` services and
//! `~/transition_event`); a library or a test drives it directly.
//!
//! ```text
//!                 configure              activate
//!  unconfigured ─────────────▶ inactive ──────────▶ active
//!       ▲  ◀──────────────────   │  ◀──────────────   │
//!       │        cleanup         │     deactivate     │
//!       │ shutdown        shutdown│                   │ shutdown
//!       └──────────────▶ finalized ◀──────────────────┘
//! ```
//!
//! A change runs in three steps ([`Machine::change`] does them all; a node that runs its
//! callbacks elsewhere, as `node_glue` does, calls them one by one):
//! 1. [`Machine::begin`]: the requested transition (by id, or by label when the
//!    request has one, as rclpy and rclcpp take a `ChangeState` request) must start at
//!    the current state, else it is refused ([`Refusal`]) and nothing changes. The
//!    machine enters the transition's intermediate state (`configuring`, ...).
//! 2. The intermediate state's callback ([`Callback`]) runs with the primary state the
//!    change started from and returns [`CallbackReturn`]; [`Machine::finish`] takes the
//!    result transition of that return (`transition_success`, `transition_failure`,
//!    `transition_error`).
//! 3. After `transition_error` the machine is in `errorprocessing`: the `on_error`
//!    callback runs (with the same start state) and [`Machine::finish`] again takes
//!    `unconfigured` (success) or `finalized` (failure, error).
//!
//! The answer of a `ChangeState` call is `success = true` only when the first callback
//! returned [`CallbackReturn::Success`] (rclpy and rclcpp alike); every transition taken is
//! one `TransitionEvent` (rcl publishes one per step).
//!
//! Upstream: this module has no dependency and could sit in r2r as `r2r::lifecycle`
//! beside the glue that serves it (see `node_glue::lifecycle`).
use std::fmt;

/// A lifecycle state (`lifecycle_msgs/msg/State`): its id and label are rcl's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum State {
    /// `PRIMARY_STATE_UNKNOWN` (0), "unknown": never entered by the default machine.
    Unknown = 0,
    /// `PRIMARY_STATE_UNCONFIGURED` (1), "unconfigured": where a node starts.
    Unconfigured = 1,
    /// `PRIMARY_STATE_INACTIVE` (2), "inactive": configured, not working.
    Inactive = 2,
    /// `PRIMARY_STATE_ACTIVE` (3), "active": working.
    Active = 3,
    /// `PRIMARY_STATE_FINALIZED` (4), "finalized": shut down, for good.
    Finalized = 4,
    /// `TRANSITION_STATE_CONFIGURING` (10), "configuring".
    Configuring = 10,
    /// `TRANSITION_STATE_CLEANINGUP` (11), "cleaningup".
    CleaningUp = 11,
    /// `TRANSITION_STATE_SHUTTINGDOWN` (12), "shuttingdown".
    ShuttingDown = 12,
    /// `TRANSITION_STATE_ACTIVATING` (13), "activating".
    Activating = 13,
    /// `TRANSITION_STATE_DEACTIVATING` (14), "deactivating".
    Deactivating = 14,
    /// `TRANSITION_STATE_ERRORPROCESSING` (15), "errorprocessing".
    ErrorProcessing = 15,
}

impl State {
    /// Every state, in the order rcl registers them (`~/get_available_states` lists them so).
    pub const ALL: [State; 11] = [
        State::Unknown,
        State::Unconfigured,
        State::Inactive,
        State::Active,
        State::Finalized,
        State::Configuring,
        State::CleaningUp,
        State::ShuttingDown,
        State::Activating,
        State::Deactivating,
        State::ErrorProcessing,
    ];

    /// The state's id (`lifecycle_msgs/msg/State.id`).
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The state's label, as rcl names it ("unconfigured", "errorprocessing", ...).
    pub fn label(self) -> &'static str {
        match self {
            State::Unknown => "unknown",
            State::Unconfigured => "unconfigured",
            State::Inactive => "inactive",
            State::Active => "active",
            State::Finalized => "finalized",
            State::Configuring => "configuring",
            State::CleaningUp => "cleaningup",
            State::ShuttingDown => "shuttingdown",
            State::Activating => "activating",
            State::Deactivating => "deactivating",
            State::ErrorProcessing => "errorprocessing",
        }
    }

    /// The state of id `id`, if there is one.
    pub fn from_id(id: u8) -> Option<State> {
        State::ALL.into_iter().find(|s| s.id() == id)
    }

    /// True for the four primary states a node rests in (and `unknown`).
    pub fn is_primary(self) -> bool {
        self.id() < 10
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The transition ids of `lifecycle_msgs/msg/Transition` (the same names without
/// `TRANSITION_`).
pub mod ids {
    #![allow(missing_docs)]
    pub const CREATE: u8 = 0;
    pub const CONFIGURE: u8 = 1;
    pub const CLEANUP: u8 = 2;
    pub const ACTIVATE: u8 = 3;
    pub const DEACTIVATE: u8 = 4;
    pub const UNCONFIGURED_SHUTDOWN: u8 = 5;
    pub const INACTIVE_SHUTDOWN: u8 = 6;
    pub const ACTIVE_SHUTDOWN: u8 = 7;
    pub const DESTROY: u8 = 8;
    pub const ON_CONFIGURE_SUCCESS: u8 = 10;
    pub const ON_CONFIGURE_FAILURE: u8 = 11;
    pub const ON_CONFIGURE_ERROR: u8 = 12;
    pub const ON_CLEANUP_SUCCESS: u8 = 20;
    pub const ON_CLEANUP_FAILURE: u8 = 21;
    pub const ON_CLEANUP_ERROR: u8 = 22;
    pub const ON_ACTIVATE_SUCCESS: u8 = 30;
    pub const ON_ACTIVATE_FAILURE: u8 = 31;
    pub const ON_ACTIVATE_ERROR: u8 = 32;
    pub const ON_DEACTIVATE_SUCCESS: u8 = 40;
    pub const ON_DEACTIVATE_FAILURE: u8 = 41;
    pub const ON_DEACTIVATE_ERROR: u8 = 42;
    pub const ON_SHUTDOWN_SUCCESS: u8 = 50;
    pub const ON_SHUTDOWN_FAILURE: u8 = 51;
    pub const ON_SHUTDOWN_ERROR: u8 = 52;
    pub const ON_ERROR_SUCCESS: u8 = 60;
    pub const ON_ERROR_FAILURE: u8 = 61;
    pub const ON_ERROR_ERROR: u8 = 62;
}

/// The labels rcl gives transitions (the three shutdowns share one; the result
/// transitions of every intermediate state share the last three).
pub mod labels {
    #![allow(missing_docs)]
    pub const CONFIGURE: &str = "configure";
    pub const CLEANUP: &str = "cleanup";
    pub const ACTIVATE: &str = "activate";
    pub const DEACTIVATE: &str = "deactivate";
    pub const SHUTDOWN: &str = "shutdown";
    pub const SUCCESS: &str = "transition_success";
    pub const FAILURE: &str = "transition_failure";
    pub const ERROR: &str = "transition_error";
}

/// One transition of the graph (`lifecycle_msgs/msg/TransitionDescription`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Its id ([`ids`]).
    pub id: u8,
    /// Its label ([`labels`]).
    pub label: &'static str,
    /// The state it starts from.
    pub start: State,
    /// The state it leads to.
    pub goal: State,
}

const fn t(id: u8, label: &'static str, start: State, goal: State) -> Transition {
    Transition {
        id,
        label,
        start,
        goal,
    }
}

/// The whole graph, in the order rcl registers it (`~/get_transition_graph` lists it so;
/// `~/get_available_transitions` is the part that starts at the current state, in the
/// same order).
pub const GRAPH: [Transition; 25] = {
    use labels::*;
    use State::*;
    [
        t(ids::CONFIGURE, CONFIGURE, Unconfigured, Configuring),
        t(ids::ON_CONFIGURE_SUCCESS, SUCCESS, Configuring, Inactive),
        t(
            ids::ON_CONFIGURE_FAILURE,
            FAILURE,
            Configuring,
            Unconfigured,
        ),
        t(ids::ON_CONFIGURE_ERROR, ERROR, Configuring, ErrorProcessing),
        t(ids::CLEANUP, CLEANUP, Inactive, CleaningUp),
        t(ids::ON_CLEANUP_SUCCESS, SUCCESS, CleaningUp, Unconfigured),
        t(ids::ON_CLEANUP_FAILURE, FAILURE, CleaningUp, Inactive),
        t(ids::ON_CLEANUP_ERROR, ERROR, CleaningUp, ErrorProcessing),
        t(ids::ACTIVATE, ACTIVATE, Inactive, Activating),
        t(ids::ON_ACTIVATE_SUCCESS, SUCCESS, Activating, Active),
        t(ids::ON_ACTIVATE_FAILURE, FAILURE, Activating, Inactive),
        t(ids::ON_ACTIVATE_ERROR, ERROR, Activating, ErrorProcessing),
        t(ids::DEACTIVATE, DEACTIVATE, Active, Deactivating),
        t(ids::ON_DEACTIVATE_SUCCESS, SUCCESS, Deactivating, Inactive),
        t(ids::ON_DEACTIVATE_FAILURE, FAILURE, Deactivating, Active),
        t(
            ids::ON_DEACTIVATE_ERROR,
            ERROR,
            Deactivating,
            ErrorProcessing,
        ),
        t(
            ids::UNCONFIGURED_SHUTDOWN,
            SHUTDOWN,
            Unconfigured,
            ShuttingDown,
        ),
        t(ids::INACTIVE_SHUTDOWN, SHUTDOWN, Inactive, ShuttingDown),
        t(ids::ACTIVE_SHUTDOWN, SHUTDOWN, Active, ShuttingDown),
        t(ids::ON_SHUTDOWN_SUCCESS, SUCCESS, ShuttingDown, Finalized),
        t(ids::ON_SHUTDOWN_FAILURE, FAILURE, ShuttingDown, Finalized),
        t(ids::ON_SHUTDOWN_ERROR, ERROR, ShuttingDown, ErrorProcessing),
        t(
            ids::ON_ERROR_SUCCESS,
            SUCCESS,
            ErrorProcessing,
            Unconfigured,
        ),
        t(ids::ON_ERROR_FAILURE, FAILURE, ErrorProcessing, Finalized),
        t(ids::ON_ERROR_ERROR, ERROR, ErrorProcessing, Finalized),
    ]
};

/// What a callback returns (rclpy's `TransitionCallbackReturn`, rclcpp's
/// `CallbackReturn`): which result transition is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallbackReturn {
    /// `transition_success`: on to the goal state.
    Success,
    /// `transition_failure`: back to the state the change started from (configure,
    /// cleanup, activate, deactivate), or to `finalized` (shutdown, error).
    Failure,
    /// `transition_error`: to `errorprocessing`, where `on_error` decides.
    Error,
}

impl CallbackReturn {
    /// The label of the result transition it takes.
    pub fn label(self) -> &'static str {
        match self {
            CallbackReturn::Success => labels::SUCCESS,
            CallbackReturn::Failure => labels::FAILURE,
            CallbackReturn::Error => labels::ERROR,
        }
    }
}

/// The callback an intermediate state runs (rclpy and rclcpp register them by state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callback {
    /// `on_configure`, in `configuring`.
    Configure,
    /// `on_cleanup`, in `cleaningup`.
    Cleanup,
    /// `on_shutdown`, in `shuttingdown`.
    Shutdown,
    /// `on_activate`, in `activating`.
    Activate,
    /// `on_deactivate`, in `deactivating`.
    Deactivate,
    /// `on_error`, in `errorprocessing`.
    Error,
}

impl Callback {
    /// The callback of intermediate state `state` (none for a primary state).
    pub fn of(state: State) -> Option<Callback> {
        match state {
            State::Configuring => Some(Callback::Configure),
            State::CleaningUp => Some(Callback::Cleanup),
            State::ShuttingDown => Some(Callback::Shutdown),
            State::Activating => Some(Callback::Activate),
            State::Deactivating => Some(Callback::Deactivate),
            State::ErrorProcessing => Some(Callback::Error),
            _ => None,
        }
    }

    /// Its name (`configure`, ..., `error`), for log lines.
    pub fn name(self) -> &'static str {
        match self {
            Callback::Configure => "configure",
            Callback::Cleanup => "cleanup",
            Callback::Shutdown => "shutdown",
            Callback::Activate => "activate",
            Callback::Deactivate => "deactivate",
            Callback::Error => "error",
        }
    }
}

/// Why a requested transition is not taken: the state machine is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No transition of that id starts at the current state.
    Id {
        /// The id asked for.
        id: u8,
        /// The state the node is in.
        state: State,
    },
    /// No transition of that label starts at the current state.
    Label {
        /// The label asked for.
        label: String,
        /// The state the node is in.
        state: State,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, state) = match self {
            Refusal::Id { id, state } => (format!("transition id {id}"), state),
            Refusal::Label { label, state } => (format!("transition {label:?}"), state),
        };
        let available: Vec<String> = GRAPH
            .iter()
            .filter(|t| t.start == *state)
            .map(|t| format!("{} ({})", t.label, t.id))
            .collect();
        write!(
            f,
            "{what} is not available from state {state}; available: {}",
            if available.is_empty() {
                "none".to_string()
            } else {
                available.join(", ")
            }
        )
    }
}

impl std::error::Error for Refusal {}

/// The transition a `ChangeState` request asks for: by `label` when it has one (then the
/// id is not looked at), else by `id` (rclpy's and rclcpp's rule).
pub fn requested(id: u8, label: &str) -> Request<'_> {
    if label.is_empty() {
        Request::Id(id)
    } else {
        Request::Label(label)
    }
}

/// A transition asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request<'a> {
    /// By id ([`ids`]).
    Id(u8),
    /// By label ([`labels`]), resolved at the current state.
    Label(&'a str),
}

/// The result of a whole change ([`Machine::change`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The primary state the change started from.
    pub from: State,
    /// What the transition's callback returned (the answer's `success` is `== Success`).
    pub outcome: CallbackReturn,
    /// What `on_error` returned, when the callback returned [`CallbackReturn::Error`].
    pub on_error: Option<CallbackReturn>,
    /// The state the node is in now.
    pub to: State,
}

impl Change {
    /// The `ChangeState` answer: true when the transition's callback succeeded.
    pub fn success(&self) -> bool {
        self.outcome == CallbackReturn::Success
    }
}

/// The state machine of one node: the current state and the rules. Starts
/// `unconfigured`, as rcl's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    state: State,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

impl Machine {
    /// A machine in `unconfigured`.
    pub fn new() -> Machine {
        Machine {
            state: State::Unconfigured,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The transitions that start at the current state (`~/get_available_transitions`).
    pub fn available(&self) -> impl Iterator<Item = &'static Transition> {
        let state = self.state;
        GRAPH.iter().filter(move |t| t.start == state)
    }

    /// The transition `request` names from the current state.
    ///
    /// # Errors
    /// [`Refusal`] when none starts here (nothing changes).
    pub fn resolve(&self, request: Request<'_>) -> Result<&'static Transition, Refusal> {
        match request {
            Request::Id(id) => self.available().find(|t| t.id == id).ok_or(Refusal::Id {
                id,
                state: self.state,
            }),
            Request::Label(label) => {
                self.available()
                    .find(|t| t.label == label)
                    .ok_or_else(|| Refusal::Label {
                        label: label.to_string(),
                        state: self.state,
                    })
            }
        }
    }

    /// Step 1: takes the requested primary transition (into its intermediate state) and
    /// returns it. Only a transition from a primary state is taken this way: a result
    /// transition (`transition_success`, ...) is the callback's to choose ([`Machine::finish`]).
    ///
    /// # Errors
    /// [`Refusal`] when the transition does not start at the current state, or the
    /// machine is in an intermediate state (a change is running); nothing changes.
    pub fn begin(&mut self, request: Request<'_>) -> Result<&'static Transition, Refusal> {
        let t = self.resolve(request)?;
        if !self.state.is_primary() {
            // A result transition asked for from outside while a callback runs.
            return Err(match request {
                Request::Id(id) => Refusal::Id {
                    id,
                    state: self.state,
                },
                Request::Label(label) => Refusal::Label {
                    label: label.to_string(),
                    state: self.state,
                },
            });
        }
        self.state = t.goal;
        Ok(t)
    }

    /// The callback the current (intermediate) state runs.
    pub fn callback(&self) -> Option<Callback> {
        Callback::of(self.state)
    }

    /// Steps 2 and 3: takes the result transition of `ret` from the current intermediate
    /// state and returns it; `None` (nothing changes) in a primary state.
    pub fn finish(&mut self, ret: CallbackReturn) -> Option<&'static Transition> {
        if self.state.is_primary() {
            return None;
        }
        let t = self.available().find(|t| t.label == ret.label())?;
        self.state = t.goal;
        Some(t)
    }

    /// A whole change, as rclpy's `LifecycleNode` runs it: takes `request`, runs the
    /// intermediate state's callback (`callback(which, from)`, `from` being the primary
    /// state the change started from), takes its result transition, and after
    /// `transition_error` runs `on_error` the same way. `event` sees every transition
    /// taken, in order (one `TransitionEvent` each).
    ///
    /// # Errors
    /// [`Refusal`] when the transition does not start at the current state: no callback
    /// runs, no event, nothing changes.
    pub fn change(
        &mut self,
        request: Request<'_>,
        mut callback: impl FnMut(Callback, State) -> CallbackReturn,
        mut event: impl FnMut(&Transition),
    ) -> Result<Change, Refusal> {
        let from = self.state;
        let t = self.begin(request)?;
        event(t);
        let mut run = |m: &mut Machine| {
            let ret = m
                .callback()
                .map_or(CallbackReturn::Success, |c| callback(c, from));
            if let Some(t) = m.finish(ret) {
                event(t);
            }
            ret
        };
        let outcome = run(self);
        let on_error = (outcome == CallbackReturn::Error).then(|| run(self));
        Ok(Change {
            from,
            outcome,
            on_error,
            to: self.state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CallbackReturn::*;

    #[test]
    fn every_state_and_label_is_rcls() {
        let labels: Vec<_> = State::ALL.iter().map(|s| (s.id(), s.label())).collect();
        assert_eq!(
            labels,
            [
                (0, "unknown"),
                (1, "unconfigured"),
                (2, "inactive"),
                (3, "active"),
                (4, "finalized"),
                (10, "configuring"),
                (11, "cleaningup"),
                (12, "shuttingdown"),
                (13, "activating"),
                (14, "deactivating"),
                (15, "errorprocessing"),
            ]
        );
        for s in State::ALL {
            assert_eq!(State::from_id(s.id()), Some(s));
        }
        assert_eq!(State::from_id(5), None);
    }

    #[test]
    fn every_intermediate_state_has_three_results_and_one_callback() {
        for s in State::ALL.into_iter().filter(|s| !s.is_primary()) {
            let out: Vec<_> = GRAPH
                .iter()
                .filter(|t| t.start == s)
                .map(|t| t.label)
                .collect();
            assert_eq!(
                out,
                [labels::SUCCESS, labels::FAILURE, labels::ERROR],
                "{s}"
            );
            assert!(Callback::of(s).is_some());
        }
        // Transition ids are unique.
        let mut ids: Vec<u8> = GRAPH.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), GRAPH.len());
    }

    fn primary_available(m: &Machine) -> Vec<(u8, &'static str)> {
        m.available().map(|t| (t.id, t.label)).collect()
    }

    #[test]
    fn available_transitions_from_each_primary_state() {
        let at = |state| primary_available(&Machine { state });
        assert_eq!(at(State::Unconfigured), [(1, "configure"), (5, "shutdown")]);
        assert_eq!(
            at(State::Inactive),
            [(2, "cleanup"), (3, "activate"), (6, "shutdown")]
        );
        assert_eq!(at(State::Active), [(4, "deactivate"), (7, "shutdown")]);
        assert!(at(State::Finalized).is_empty());
        assert!(at(State::Unknown).is_empty());
    }

    /// What [`run`] saw: the answer, the end state, the events and the callbacks.
    type Ran = (
        Result<bool, Refusal>,
        State,
        Vec<(State, State)>,
        Vec<Callback>,
    );

    /// Runs `request` from `state` with the callback returning `ret` and on_error
    /// returning `err`: the answer, the end state, the events' (start, goal) and the
    /// callbacks that ran.
    fn run(state: State, request: Request<'_>, ret: CallbackReturn, err: CallbackReturn) -> Ran {
        let mut m = Machine { state };
        let mut events = vec![];
        let mut calls = vec![];
        let r = m.change(
            request,
            |c, from| {
                assert_eq!(from, state);
                calls.push(c);
                if c == Callback::Error {
                    err
                } else {
                    ret
                }
            },
            |t| events.push((t.start, t.goal)),
        );
        (r.map(|c| c.success()), m.state(), events, calls)
    }

    #[test]
    fn the_table_of_every_transition_from_every_primary_state() {
        use State::*;
        // (from, transition id, callback result, on_error result) -> (answer, end state)
        let cases: &[(State, u8, CallbackReturn, CallbackReturn, bool, State)] = &[
            (
                Unconfigured,
                ids::CONFIGURE,
                Success,
                Success,
                true,
                Inactive,
            ),
            (
                Unconfigured,
                ids::CONFIGURE,
                Failure,
                Success,
                false,
                Unconfigured,
            ),
            (
                Unconfigured,
                ids::CONFIGURE,
                Error,
                Success,
                false,
                Unconfigured,
            ),
            (
                Unconfigured,
                ids::CONFIGURE,
                Error,
                Failure,
                false,
                Finalized,
            ),
            (Unconfigured, ids::CONFIGURE, Error, Error, false, Finalized),
            (Inactive, ids::CLEANUP, Success, Success, true, Unconfigured),
            (Inactive, ids::CLEANUP, Failure, Success, false, Inactive),
            (Inactive, ids::CLEANUP, Error, Success, false, Unconfigured),
            (Inactive, ids::ACTIVATE, Success, Success, true, Active),
            (Inactive, ids::ACTIVATE, Failure, Success, false, Inactive),
            (Inactive, ids::ACTIVATE, Error, Failure, false, Finalized),
            (Active, ids::DEACTIVATE, Success, Success, true, Inactive),
            (Active, ids::DEACTIVATE, Failure, Success, false, Active),
            (Active, ids::DEACTIVATE, Error, Success, false, Unconfigured),
            (
                Unconfigured,
                ids::UNCONFIGURED_SHUTDOWN,
                Success,
                Success,
                true,
                Finalized,
            ),
            (
                Inactive,
                ids::INACTIVE_SHUTDOWN,
                Failure,
                Success,
                false,
                Finalized,
            ),
            (
                Active,
                ids::ACTIVE_SHUTDOWN,
                Error,
                Success,
                false,
                Unconfigured,
            ),
            (Active, ids::ACTIVE_SHUTDOWN, Error, Error, false, Finalized),
        ];
        for &(from, id, ret, err, success, to) in cases {
            let (answer, end, events, calls) = run(from, Request::Id(id), ret, err);
            assert_eq!(answer, Ok(success), "{from} {id} {ret:?}/{err:?}");
            assert_eq!(end, to, "{from} {id} {ret:?}/{err:?}");
            // One event per transition: the primary one, its result, and on_error's.
            let expected_events = if ret == Error { 3 } else { 2 };
            assert_eq!(events.len(), expected_events);
            assert_eq!(events[0].0, from);
            assert_eq!(events.last().unwrap().1, to);
            assert_eq!(calls.len(), expected_events - 1);
            assert_eq!(calls.last() == Some(&Callback::Error), ret == Error);
        }
    }

    #[test]
    fn refusals_change_nothing_and_run_no_callback() {
        for state in State::ALL {
            for id in 0..=u8::MAX {
                let valid = GRAPH
                    .iter()
                    .any(|t| t.start == state && t.id == id && state.is_primary());
                if valid {
                    continue;
                }
                let (answer, end, events, calls) = run(state, Request::Id(id), Success, Success);
                assert_eq!(answer, Err(Refusal::Id { id, state }));
                assert_eq!(end, state);
                assert!(events.is_empty() && calls.is_empty());
            }
        }
        let (answer, end, ..) = run(State::Active, Request::Label("configure"), Success, Success);
        assert!(answer.is_err());
        assert_eq!(end, State::Active);
        let (answer, ..) = run(
            State::Inactive,
            Request::Label("transition_success"),
            Success,
            Success,
        );
        assert!(answer.is_err());
    }

    #[test]
    fn a_label_names_the_transition_of_the_current_state() {
        for (state, id) in [
            (State::Unconfigured, ids::UNCONFIGURED_SHUTDOWN),
            (State::Inactive, ids::INACTIVE_SHUTDOWN),
            (State::Active, ids::ACTIVE_SHUTDOWN),
        ] {
            let m = Machine { state };
            assert_eq!(m.resolve(Request::Label("shutdown")).unwrap().id, id);
        }
        // A label wins over the id (rclpy, rclcpp).
        assert_eq!(requested(3, "configure"), Request::Label("configure"));
        assert_eq!(requested(3, ""), Request::Id(3));
        let e = Machine::new()
            .resolve(Request::Id(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not available from state unconfigured"), "{e}");
        assert!(e.contains("configure (1), shutdown (5)"), "{e}");
    }

    #[test]
    fn a_change_is_refused_while_another_runs() {
        let mut m = Machine::new();
        let t = m.begin(Request::Id(ids::CONFIGURE)).unwrap();
        assert_eq!(t.goal, State::Configuring);
        assert_eq!(m.callback(), Some(Callback::Configure));
        assert!(m.begin(Request::Id(ids::CONFIGURE)).is_err());
        assert!(m.begin(Request::Label(labels::SUCCESS)).is_err());
        assert_eq!(m.state(), State::Configuring);
        assert_eq!(m.finish(Success).unwrap().id, ids::ON_CONFIGURE_SUCCESS);
        assert_eq!(m.state(), State::Inactive);
        assert!(m.finish(Success).is_none());
    }
}
