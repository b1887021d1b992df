//! Action clients: one goal loop for every action a node calls (`MoveTo` on the
//! trajectory server, `NavigateTo` on the base), and the `MoveTo` client built on it.
//!
//! [`GoalClient<A>`] owns an `r2r::ActionClient<A>` and a small thread of its own (a
//! current-thread tokio runtime with a `LocalSet`: r2r's goal-request future is not
//! `Send`). [`GoalClient::send`] hands it a goal and returns a [`Goal`] handle at once;
//! each goal then goes through the same steps:
//!
//! 1. wait for the server to appear, at most [`Waits::server`] (a goal stopped meanwhile
//!    is never sent: [`GoalError::NotSent`]);
//! 2. send the goal and wait for the server's answer, at most [`Waits::answer`] (not
//!    raced against a stop: a goal can only be cancelled once the server knows it);
//! 3. wait for the result; feedback is kept (the latest, [`Goal::feedback`]) so r2r's
//!    queue never fills; a cancel ([`Goal::cancel`], or dropping the handle) sends a
//!    cancel request, waits at most [`Waits::answer`] for its answer and then as long
//!    again for the result (whose outcome says whether the goal was cancelled or had
//!    already ended), else ends [`GoalError::Cancelled`].
//!
//! One policy for a goal replaced by a newer one: [`Goal::supersede`] lets it go
//! without a cancel (a server that preempts its running goal on a new one, like the
//! trajectory server, ends it itself with `PREEMPTED`); a superseded goal still waiting
//! for the server is not sent. Dropping a [`Goal`] cancels it: no goal escapes a stop.
//!
//! Every goal's end, whether or not its handle is still held, is handed to the
//! client's `on_end` hook (on the goal thread), where a node counts and logs outcomes
//! in one place.
//!
//! ```ignore
//! let client: MoveToClient = GoalClient::new(&mut node, topics::MOVE_TO, "MoveTo",
//!     move |goal, end| count(goal, end))?;
//! let goal = client.send(move_to_goal([0.1, 0.0, 0.2]), Waits::default());
//! match goal.result().await {
//!     Ok((status, r)) => ..., // the server's result (its outcome constant)
//!     Err(e) => log!("{}", client.describe(&e)),
//! }
//! ```
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use r2r::arnie_interfaces::action::MoveTo;
use r2r::{ActionClient, GoalStatus, WrappedActionTypeSupport};
use tokio::sync::{mpsc, oneshot, watch};

/// How long a goal waits (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waits {
    /// For the server to appear on the graph before the goal is sent.
    pub server: Duration,
    /// For the server's answer to the goal request, and to a cancel request.
    pub answer: Duration,
}

impl Default for Waits {
    /// 2 s for the server, 5 s for an answer.
    fn default() -> Self {
        Waits {
            server: Duration::from_secs(2),
            answer: Duration::from_secs(5),
        }
    }
}

/// Why a goal ended without a result from the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    /// No server appeared within this wait; the goal was not sent.
    #[error("no server within {} ms", .0.as_millis())]
    NoServer(Duration),
    /// Cancelled or superseded while waiting for the server; the goal was not sent.
    #[error("stopped before it was sent")]
    NotSent,
    /// rcl refused to send the request (the reason).
    #[error("could not send the goal: {0}")]
    Send(String),
    /// The server rejected the goal at the protocol level (no reason is carried).
    #[error("the server rejected the goal")]
    Rejected,
    /// No answer to the goal request within this wait.
    #[error("no answer to the goal within {} ms", .0.as_millis())]
    NoAnswer(Duration),
    /// Cancelled after it was accepted, and no result came within the answer wait.
    #[error("cancelled")]
    Cancelled,
    /// The result never came (the reason, e.g. the server went away).
    #[error("no result: {0}")]
    NoResult(String),
}

/// A goal's end: the server's status and result, or why there is none.
pub type GoalResult<A> = Result<(GoalStatus, <A as WrappedActionTypeSupport>::Result), GoalError>;

/// What the holder of a [`Goal`] asks of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    Run,
    Cancel,
    Supersede,
}

/// The handle of one goal sent by [`GoalClient::send`]. Dropping it cancels the goal
/// (unless [`Goal::supersede`] let it go first).
pub struct Goal<A: WrappedActionTypeSupport> {
    signal: watch::Sender<Signal>,
    feedback: watch::Receiver<Option<A::Feedback>>,
    result: Option<oneshot::Receiver<GoalResult<A>>>,
}

impl<A: WrappedActionTypeSupport> Goal<A> {
    /// Cancels the goal: not sent if it is still waiting for the server, else a cancel
    /// request (the goal's end then goes to `on_end`, and to [`Goal::result`]).
    pub fn cancel(&self) {
        self.signal.send_if_modified(|s| {
            let run = *s == Signal::Run;
            if run {
                *s = Signal::Cancel;
            }
            run
        });
    }

    /// Lets the goal go without a cancel, because a newer goal replaces it: not sent if
    /// it is still waiting for the server, else left to the server (its end goes to
    /// `on_end`).
    pub fn supersede(self) {
        self.signal.send_if_modified(|s| {
            let run = *s == Signal::Run;
            if run {
                *s = Signal::Supersede;
            }
            run
        });
    }

    /// True once the goal has ended (result, error, or the goal thread gone).
    pub fn is_finished(&self) -> bool {
        self.signal.is_closed()
    }

    /// The latest feedback, if any came.
    pub fn feedback(&self) -> Option<A::Feedback> {
        self.feedback.borrow().clone()
    }

    /// Waits for the goal's end. Dropping this future drops the handle: the goal is
    /// cancelled.
    pub async fn result(mut self) -> GoalResult<A> {
        match self.result.take() {
            Some(rx) => rx
                .await
                .unwrap_or_else(|_| Err(GoalError::NoResult("the goal thread is gone".into()))),
            None => Err(GoalError::NoResult("already taken".into())),
        }
    }
}

impl<A: WrappedActionTypeSupport> Drop for Goal<A> {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Called on the goal thread with each goal and its end.
type OnEnd<A> =
    Arc<dyn Fn(&<A as WrappedActionTypeSupport>::Goal, &GoalResult<A>) + Send + Sync + 'static>;

/// One goal handed to the goal thread.
struct Job<A: WrappedActionTypeSupport> {
    goal: A::Goal,
    waits: Waits,
    signal: watch::Receiver<Signal>,
    feedback: watch::Sender<Option<A::Feedback>>,
    reply: oneshot::Sender<GoalResult<A>>,
}

/// An action client with its goal thread; see the module doc. Cheap to clone (the
/// thread ends when the last clone is dropped).
pub struct GoalClient<A: WrappedActionTypeSupport> {
    jobs: mpsc::UnboundedSender<Job<A>>,
    label: Arc<str>,
}

impl<A: WrappedActionTypeSupport> Clone for GoalClient<A> {
    fn clone(&self) -> Self {
        GoalClient {
            jobs: self.jobs.clone(),
            label: self.label.clone(),
        }
    }
}

impl<A> GoalClient<A>
where
    A: WrappedActionTypeSupport + 'static,
    A::Goal: Send + Sync,
    A::Result: Send + Sync,
    A::Feedback: Send + Sync,
{
    /// Creates the client of action `name` (e.g. `topics::MOVE_TO`) on `node` and its
    /// goal thread. `kind` names the action in messages (`"MoveTo"`); `on_end` sees every goal's end. Call before the node spins.
    ///
    /// # Errors
    /// rcl refusing the client, or the thread or its runtime failing to start.
    pub fn new(
        node: &mut r2r::Node,
        name: &str,
        kind: &str,
        on_end: impl Fn(&A::Goal, &GoalResult<A>) + Send + Sync + 'static,
    ) -> Result<Self, crate::Error> {
        let client = node.create_action_client::<A>(name)?;
        let (jobs, mut rx) = mpsc::unbounded_channel::<Job<A>>();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let label: Arc<str> = format!("{kind} on {name}").into();
        let on_end: OnEnd<A> = Arc::new(on_end);
        let thread_label = label.clone();
        std::thread::Builder::new()
            .name(format!("{kind}-goals"))
            .spawn(move || {
                let local = tokio::task::LocalSet::new();
                local.block_on(&rt, async move {
                    // Ends when the last GoalClient (the senders) is dropped.
                    while let Some(job) = rx.recv().await {
                        tokio::task::spawn_local(run(
                            client.clone(),
                            job,
                            on_end.clone(),
                            thread_label.clone(),
                        ));
                    }
                });
            })?;
        Ok(GoalClient { jobs, label })
    }

    /// Sends `goal` (see the module doc for its steps) and returns its handle at once.
    pub fn send(&self, goal: A::Goal, waits: Waits) -> Goal<A> {
        let (signal, signal_rx) = watch::channel(Signal::Run);
        let (feedback_tx, feedback) = watch::channel(None);
        let (reply, result) = oneshot::channel();
        let job = Job {
            goal,
            waits,
            signal: signal_rx,
            feedback: feedback_tx,
            reply,
        };
        // A closed channel means the goal thread is gone: the job (and its reply
        // sender) is dropped and `result` says so.
        let _ = self.jobs.send(job);
        Goal {
            signal,
            feedback,
            result: Some(result),
        }
    }

    /// `"<kind> on <name>: <error>"`, for messages.
    pub fn describe(&self, e: &GoalError) -> String {
        format!("{}: {e}", self.label)
    }
}

/// Resolves when the signal satisfies `stop`; pending forever if it never does.
async fn until(signal: &mut watch::Receiver<Signal>, stop: impl Fn(Signal) -> bool) {
    loop {
        if stop(*signal.borrow_and_update()) {
            return;
        }
        if signal.changed().await.is_err() {
            // The handle is gone; its Drop set the last value (checked once more).
            if stop(*signal.borrow()) {
                return;
            }
            return std::future::pending().await;
        }
    }
}

async fn run<A>(client: ActionClient<A>, mut job: Job<A>, on_end: OnEnd<A>, label: Arc<str>)
where
    A: WrappedActionTypeSupport + 'static,
{
    let end = drive(&client, &mut job, &label).await;
    on_end(&job.goal, &end);
    // The holder may be gone (dropped or superseded): nothing to tell then.
    let _ = job.reply.send(end);
}

/// The one goal loop (see the module doc).
async fn drive<A>(client: &ActionClient<A>, job: &mut Job<A>, label: &str) -> GoalResult<A>
where
    A: WrappedActionTypeSupport + 'static,
{
    let waits = job.waits;
    // 1. The server, raced against a stop.
    let up = async {
        match r2r::Node::is_available(client) {
            Ok(f) => matches!(tokio::time::timeout(waits.server, f).await, Ok(Ok(()))),
            Err(_) => false,
        }
    };
    tokio::select! {
        up = up => if !up {
            return Err(GoalError::NoServer(waits.server));
        },
        _ = until(&mut job.signal, |s| s != Signal::Run) => return Err(GoalError::NotSent),
    }
    if *job.signal.borrow() != Signal::Run {
        return Err(GoalError::NotSent);
    }
    // 2. The answer, not raced against a stop.
    let request = client
        .send_goal_request(job.goal.clone())
        .map_err(|e| GoalError::Send(e.to_string()))?;
    let (handle, result, mut feedback) = match tokio::time::timeout(waits.answer, request).await {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(r2r::Error::RCL_RET_ACTION_GOAL_REJECTED)) => return Err(GoalError::Rejected),
        Ok(Err(e)) => return Err(GoalError::Send(e.to_string())),
        Err(_) => return Err(GoalError::NoAnswer(waits.answer)),
    };
    // 3. The result, feedback kept, a cancel honoured.
    tokio::pin!(result);
    let mut feedback_open = true;
    loop {
        tokio::select! {
            r = &mut result => return r.map_err(|e| GoalError::NoResult(e.to_string())),
            f = feedback.next(), if feedback_open => match f {
                Some(f) => {
                    job.feedback.send_replace(Some(f));
                }
                None => feedback_open = false,
            },
            _ = until(&mut job.signal, |s| s == Signal::Cancel) => break,
        }
    }
    match handle.cancel() {
        Ok(answer) => match tokio::time::timeout(waits.answer, answer).await {
            Ok(Ok(())) => {}
            // Typically: the goal had already ended; its result says how.
            Ok(Err(e)) => crate::log_info!("{label}: cancel not done: {e}"),
            Err(_) => crate::log_warn!("{label}: no answer to the cancel request"),
        },
        Err(e) => crate::log_warn!("{label}: cancel failed: {e}"),
    }
    match tokio::time::timeout(waits.answer, result).await {
        Ok(r) => r.map_err(|e| GoalError::NoResult(e.to_string())),
        Err(_) => Err(GoalError::Cancelled),
    }
}

// ------------------------------------------------------------------ MoveTo

/// The `MoveTo` client (`topics::MOVE_TO`, served by the trajectory server).
pub type MoveToClient = GoalClient<MoveTo::Action>;

/// A `MoveTo` goal to `target_m` (x, y, z in metres, frame `world`), with the server's
/// default period and sampling (`period_s` 0, `sample_factor` 0).
pub fn move_to_goal(target_m: [f64; 3]) -> MoveTo::Goal {
    MoveTo::Goal {
        target: r2r::geometry_msgs::msg::Point {
            x: target_m[0],
            y: target_m[1],
            z: target_m[2],
        },
        frame_id: crate::topics::WORLD_FRAME.to_owned(),
        period_s: 0.0,
        sample_factor: 0,
    }
}

/// The name of a `MoveTo` result outcome constant (`"REACHED"` ...), for messages;
/// `"unknown"` for a code the action does not define.
pub fn move_to_outcome_name(code: u8) -> &'static str {
    use MoveTo::Result as R;
    match code {
        _ if code == R::REACHED as u8 => "REACHED",
        _ if code == R::REVERSED_TO_START as u8 => "REVERSED_TO_START",
        _ if code == R::ABORTED_HELP_NEEDED as u8 => "ABORTED_HELP_NEEDED",
        _ if code == R::CANCELLED as u8 => "CANCELLED",
        _ if code == R::REJECTED as u8 => "REJECTED",
        _ if code == R::PREEMPTED as u8 => "PREEMPTED",
        _ if code == R::REACHED_BY_DETOUR as u8 => "REACHED_BY_DETOUR",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn signals_stop_the_right_phase() {
        let (tx, mut rx) = watch::channel(Signal::Run);
        tx.send_replace(Signal::Supersede);
        // Waiting for the server: any signal stops.
        until(&mut rx, |s| s != Signal::Run).await;
        // Running: only a cancel stops; a dropped handle that superseded never does.
        drop(tx);
        let cancel = until(&mut rx, |s| s == Signal::Cancel);
        assert!(tokio::time::timeout(Duration::from_millis(20), cancel)
            .await
            .is_err());
        let (tx, mut rx) = watch::channel(Signal::Run);
        tx.send_replace(Signal::Cancel);
        drop(tx);
        until(&mut rx, |s| s == Signal::Cancel).await;
    }

    #[test]
    fn handles_cancel_on_drop_but_not_after_supersede() {
        let handle = |s: Signal| {
            let (signal, rx) = watch::channel(s);
            let (_fb, feedback) = watch::channel(None);
            let goal: Goal<MoveTo::Action> = Goal {
                signal,
                feedback,
                result: None,
            };
            (goal, rx)
        };
        let (g, rx) = handle(Signal::Run);
        drop(g);
        assert_eq!(*rx.borrow(), Signal::Cancel);
        let (g, rx) = handle(Signal::Run);
        g.supersede();
        assert_eq!(*rx.borrow(), Signal::Supersede);
        let (g, rx) = handle(Signal::Run);
        assert!(!g.is_finished());
        g.cancel();
        g.cancel();
        assert_eq!(*rx.borrow(), Signal::Cancel);
        drop(rx);
        assert!(g.is_finished());
    }

    #[test]
    fn move_to_names_and_goals() {
        assert_eq!(
            move_to_outcome_name(MoveTo::Result::PREEMPTED as u8),
            "PREEMPTED"
        );
        assert_eq!(move_to_outcome_name(200), "unknown");
        let g = move_to_goal([0.1, -0.2, 0.3]);
        assert_eq!((g.target.x, g.target.y, g.target.z), (0.1, -0.2, 0.3));
        assert_eq!((g.period_s, g.sample_factor), (0.0, 0));
        assert_eq!(
            GoalError::NoServer(Duration::from_millis(2000)).to_string(),
            "no server within 2000 ms"
        );
    }
}
