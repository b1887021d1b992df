//! The lifecycle manager's rules, without ROS: which transitions a `ManageLifecycleNodes`
//! command takes on which nodes in which order, what to do with a node already where a
//! step leads, and how the managed nodes as a whole are doing. The node (`ros`, feature
//! `ros`) calls the nodes' `~/get_state` and `~/change_state` as these rules say.
//!
//! The commands are Nav2's (`nav2_msgs/srv/ManageLifecycleNodes`, Jazzy), with Nav2's
//! order: bring-up transitions (configure, activate) go through `node_names` in order,
//! the others (deactivate, cleanup, shutdown) in reverse order, one node at a time, and
//! a step stops at its first failure.
//!
//! | command | steps | managed nodes after |
//! | --- | --- | --- |
//! | `STARTUP` (0) | configure all, then activate all | active |
//! | `PAUSE` (1) | deactivate all | inactive |
//! | `RESUME` (2) | activate all | active |
//! | `RESET` (3) | deactivate all, then clean up all | unconfigured |
//! | `SHUTDOWN` (4) | deactivate all, clean up all, shut down all | finalized |
//! | `CONFIGURE` (5) | configure all | inactive |
//! | `CLEANUP` (6) | clean up all | unconfigured |
//!
//! One difference with Nav2's manager, on purpose: a node already where a step leads is
//! left as it is ([`Step::action`]: a `STARTUP` of a stack of which one node is already
//! active activates the others), where Nav2's would fail on the refused transition; a
//! node in a state a step cannot leave (finalized, before configure; a transition
//! running) fails the step, naming the node and its state.
#![deny(missing_docs)]

#[cfg(feature = "ros")]
pub mod ros;

use glue_core::lifecycle::{labels, State};
use std::fmt;

/// A `ManageLifecycleNodes` command (its constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `STARTUP` (0): configure, then activate.
    Startup,
    /// `PAUSE` (1): deactivate.
    Pause,
    /// `RESUME` (2): activate.
    Resume,
    /// `RESET` (3): deactivate, then clean up.
    Reset,
    /// `SHUTDOWN` (4): deactivate, clean up, shut down.
    Shutdown,
    /// `CONFIGURE` (5): configure.
    Configure,
    /// `CLEANUP` (6): clean up.
    Cleanup,
}

impl Command {
    /// The command of constant `c`, if there is one.
    pub fn from_u8(c: u8) -> Option<Command> {
        Some(match c {
            0 => Command::Startup,
            1 => Command::Pause,
            2 => Command::Resume,
            3 => Command::Reset,
            4 => Command::Shutdown,
            5 => Command::Configure,
            6 => Command::Cleanup,
            _ => return None,
        })
    }

    /// Its name, as Nav2 spells the constant.
    pub fn name(self) -> &'static str {
        match self {
            Command::Startup => "STARTUP",
            Command::Pause => "PAUSE",
            Command::Resume => "RESUME",
            Command::Reset => "RESET",
            Command::Shutdown => "SHUTDOWN",
            Command::Configure => "CONFIGURE",
            Command::Cleanup => "CLEANUP",
        }
    }

    /// Its steps, in order.
    pub fn steps(self) -> &'static [Step] {
        use Step::*;
        match self {
            Command::Startup => &[Configure, Activate],
            Command::Pause => &[Deactivate],
            Command::Resume => &[Activate],
            Command::Reset => &[Deactivate, Cleanup],
            Command::Shutdown => &[Deactivate, Cleanup, Shutdown],
            Command::Configure => &[Configure],
            Command::Cleanup => &[Cleanup],
        }
    }

    /// The managed nodes' state once the command succeeded.
    pub fn reaches(self) -> Managed {
        match self {
            Command::Startup | Command::Resume => Managed::Active,
            Command::Pause | Command::Configure => Managed::Inactive,
            Command::Reset | Command::Cleanup => Managed::Unconfigured,
            Command::Shutdown => Managed::Finalized,
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One transition taken on every node in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `configure`: unconfigured → inactive.
    Configure,
    /// `activate`: inactive → active.
    Activate,
    /// `deactivate`: active → inactive.
    Deactivate,
    /// `cleanup`: inactive → unconfigured.
    Cleanup,
    /// `shutdown`: any primary state → finalized.
    Shutdown,
}

/// What a step does with one node in state `state` ([`Step::action`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing: the node is where the step leads (or past it, for the way down).
    Skip,
    /// Ask for the transition of this label (`~/change_state`); then the node must be in
    /// [`Step::goal`].
    Take(&'static str),
    /// The step cannot be taken from there: why.
    Fail(String),
}

impl Step {
    /// The transition's label.
    pub fn label(self) -> &'static str {
        match self {
            Step::Configure => labels::CONFIGURE,
            Step::Activate => labels::ACTIVATE,
            Step::Deactivate => labels::DEACTIVATE,
            Step::Cleanup => labels::CLEANUP,
            Step::Shutdown => labels::SHUTDOWN,
        }
    }

    /// The state a node is in after the step.
    pub fn goal(self) -> State {
        match self {
            Step::Configure | Step::Deactivate => State::Inactive,
            Step::Activate => State::Active,
            Step::Cleanup => State::Unconfigured,
            Step::Shutdown => State::Finalized,
        }
    }

    /// True for the bring-up steps, taken in `node_names` order; the others go in
    /// reverse order.
    pub fn in_order(self) -> bool {
        matches!(self, Step::Configure | Step::Activate)
    }

    /// What the step does with a node in `state`.
    pub fn action(self, state: State) -> Action {
        use State::*;
        let take = Action::Take(self.label());
        let fail = || {
            Action::Fail(if state.is_primary() {
                format!("cannot {} from state {state}", self.label())
            } else {
                format!("a transition is running (state {state})")
            })
        };
        match (self, state) {
            (Step::Configure, Unconfigured) => take,
            (Step::Configure, Inactive | Active) => Action::Skip,
            (Step::Activate, Inactive) => take,
            (Step::Activate, Active) => Action::Skip,
            (Step::Deactivate, Active) => take,
            (Step::Deactivate, Inactive | Unconfigured | Finalized) => Action::Skip,
            (Step::Cleanup, Inactive) => take,
            (Step::Cleanup, Unconfigured | Finalized) => Action::Skip,
            (Step::Shutdown, Unconfigured | Inactive | Active) => take,
            (Step::Shutdown, Finalized) => Action::Skip,
            _ => fail(),
        }
    }

    /// The nodes of `names` in the order this step takes them.
    pub fn order(self, names: &[String]) -> Vec<&str> {
        let mut v: Vec<&str> = names.iter().map(String::as_str).collect();
        if !self.in_order() {
            v.reverse();
        }
        v
    }
}

/// The log line of a step on one node, as Nav2's manager words it (`Configuring`, ...).
pub fn ing(step: Step) -> &'static str {
    match step {
        Step::Configure => "Configuring",
        Step::Activate => "Activating",
        Step::Deactivate => "Deactivating",
        Step::Cleanup => "Cleaning up",
        Step::Shutdown => "Shutting down",
    }
}

/// The log line of a command, as Nav2's manager words it.
pub fn describe(command: Command) -> &'static str {
    match command {
        Command::Startup => "Starting managed nodes bringup...",
        Command::Pause => "Pausing managed nodes...",
        Command::Resume => "Resuming managed nodes...",
        Command::Reset => "Resetting managed nodes...",
        Command::Shutdown => "Shutting down managed nodes...",
        Command::Configure => "Configuring managed nodes...",
        Command::Cleanup => "Cleaning up managed nodes...",
    }
}

/// How the managed nodes are doing as a whole (Nav2's `NodeState`), which `~/is_active`
/// and `/diagnostics` report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Managed {
    /// Not configured (at start, after `RESET`).
    Unconfigured,
    /// Configured, paused.
    Inactive,
    /// All active: `~/is_active` answers true.
    Active,
    /// Shut down.
    Finalized,
    /// A command failed, a node died or left `active`: see the last failure.
    Unknown,
}

impl Managed {
    /// Nav2's `/diagnostics` message for this state.
    pub fn message(self) -> &'static str {
        match self {
            Managed::Active => "Managed nodes are active",
            Managed::Inactive => "Managed nodes are inactive",
            Managed::Unconfigured => "Managed nodes are unconfigured",
            Managed::Finalized => "Managed nodes have been shut down",
            Managed::Unknown => "An error has occurred during a node state transition",
        }
    }
}

/// Why a command failed: the first node and transition that did not go through.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{command} failed at {step} of {node}: {reason}")]
pub struct Failure {
    /// The command.
    pub command: Command,
    /// The node (as named in `node_names`).
    pub node: String,
    /// The transition's label.
    pub step: &'static str,
    /// Why (the node's refusal, a timeout, an unexpected state).
    pub reason: String,
}

/// What the heartbeat learnt about one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Beat {
    /// It answered `~/get_state` with this state.
    State(State),
    /// No answer within the heartbeat timeout (or its services are gone).
    Silent,
}

/// The heartbeat's verdict on one node while the managed nodes are active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Active, as it should be.
    Fine,
    /// Alive but no longer active (someone deactivated it; it failed): reported.
    LeftActive(State),
    /// Gone (died, or hangs): reported, and the others are brought down (Nav2).
    Down,
}

impl Beat {
    /// The verdict of this beat.
    pub fn verdict(&self) -> Verdict {
        match self {
            Beat::State(State::Active) => Verdict::Fine,
            Beat::State(s) => Verdict::LeftActive(*s),
            Beat::Silent => Verdict::Down,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["sim", "spine_bridge", "trajectory_server"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn commands_are_navs_constants_and_steps() {
        for c in 0..=6 {
            let cmd = Command::from_u8(c).unwrap();
            assert!(!cmd.steps().is_empty());
        }
        assert_eq!(Command::from_u8(7), None);
        assert_eq!(Command::Startup.steps(), &[Step::Configure, Step::Activate]);
        assert_eq!(
            Command::Shutdown.steps(),
            &[Step::Deactivate, Step::Cleanup, Step::Shutdown]
        );
        assert_eq!(Command::Reset.reaches(), Managed::Unconfigured);
    }

    #[test]
    fn bring_up_goes_in_order_and_the_rest_in_reverse() {
        let n = names();
        assert_eq!(
            Step::Configure.order(&n),
            ["sim", "spine_bridge", "trajectory_server"]
        );
        assert_eq!(
            Step::Deactivate.order(&n),
            ["trajectory_server", "spine_bridge", "sim"]
        );
        assert_eq!(Step::Shutdown.order(&n)[0], "trajectory_server");
    }

    #[test]
    fn a_node_already_there_is_skipped_and_an_impossible_step_fails() {
        use State::*;
        assert_eq!(
            Step::Configure.action(Unconfigured),
            Action::Take("configure")
        );
        assert_eq!(Step::Configure.action(Active), Action::Skip);
        assert_eq!(Step::Activate.action(Inactive), Action::Take("activate"));
        assert!(matches!(
            Step::Activate.action(Unconfigured),
            Action::Fail(_)
        ));
        assert_eq!(Step::Deactivate.action(Unconfigured), Action::Skip);
        assert_eq!(Step::Cleanup.action(Inactive), Action::Take("cleanup"));
        assert!(matches!(Step::Cleanup.action(Active), Action::Fail(_)));
        assert_eq!(Step::Shutdown.action(Active), Action::Take("shutdown"));
        assert_eq!(Step::Shutdown.action(Finalized), Action::Skip);
        match Step::Configure.action(Configuring) {
            Action::Fail(r) => assert!(r.contains("transition is running"), "{r}"),
            a => panic!("{a:?}"),
        }
        match Step::Configure.action(Finalized) {
            Action::Fail(r) => assert_eq!(r, "cannot configure from state finalized"),
            a => panic!("{a:?}"),
        }
        for step in [
            Step::Configure,
            Step::Activate,
            Step::Deactivate,
            Step::Cleanup,
            Step::Shutdown,
        ] {
            // Where a step takes its transition, the goal is where the machine leads.
            for s in State::ALL {
                if let Action::Take(label) = step.action(s) {
                    let t = glue_core::lifecycle::GRAPH
                        .iter()
                        .find(|t| t.start == s && t.label == label)
                        .unwrap();
                    let end = glue_core::lifecycle::GRAPH
                        .iter()
                        .find(|r| r.start == t.goal && r.label == labels::SUCCESS)
                        .unwrap();
                    assert_eq!(end.goal, step.goal(), "{step:?} from {s}");
                }
            }
        }
    }

    #[test]
    fn the_heartbeat_reports_silence_and_leaving_active() {
        assert_eq!(Beat::State(State::Active).verdict(), Verdict::Fine);
        assert_eq!(
            Beat::State(State::Inactive).verdict(),
            Verdict::LeftActive(State::Inactive)
        );
        assert_eq!(Beat::Silent.verdict(), Verdict::Down);
        let f = Failure {
            command: Command::Startup,
            node: "spine_bridge".into(),
            step: "configure",
            reason: "transition refused".into(),
        };
        assert_eq!(
            f.to_string(),
            "STARTUP failed at configure of spine_bridge: transition refused"
        );
    }
}
