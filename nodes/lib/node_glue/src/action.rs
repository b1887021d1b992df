//! Action servers: one policy for every node (see also the README's layout section).
//!
//! - **A bad goal** (its checks fail: bad file, bad number, unreachable target ...) is
//!   *accepted and at once aborted* with the action's `REJECTED` outcome and the reason in
//!   the result's `message` ([`reject`]): a protocol-level rejection carries no text, so
//!   the client could not say why. A bad goal never disturbs a running one.
//! - **A new good goal while one runs preempts it**: the running goal ends (aborted) with
//!   the action's `PREEMPTED` outcome and a message naming the new goal
//!   ([`preempted_message`]), then the new one starts. No queue: the newest goal is what
//!   the client wants now.
//! - A cancel request is accepted and the goal ends `CANCELED` with its `CANCELLED`
//!   outcome; node shutdown aborts the running goal.
//!
//! ```ignore
//! match check(&req.goal) {
//!     Err(reason) => node_glue::action::reject(req, Result { outcome: REJECTED, message: reason, ..Default::default() }, NODE),
//!     Ok(plan) => {
//!         let Some(next) = node_glue::action::accept(req, NODE) else { return };
//!         if let Some(mut old) = running.replace(next) {
//!             let msg = node_glue::action::preempted_message(running.as_ref().unwrap().uuid());
//!             node_glue::action::end(&mut old.goal, End::Aborted, Result { outcome: PREEMPTED, message: msg, .. }, NODE);
//!         }
//!     }
//! }
//! ```
use futures::stream::BoxStream;
use futures::StreamExt;
use r2r::{ActionServerCancelRequest, ActionServerGoal, ActionServerGoalRequest};

/// A goal's cancel requests.
pub type CancelStream = BoxStream<'static, ActionServerCancelRequest>;

/// An accepted goal and its cancel requests.
pub struct Accepted<T: r2r::WrappedActionTypeSupport> {
    /// The goal (feedback, result).
    pub goal: ActionServerGoal<T>,
    /// Its cancel requests.
    pub cancel: CancelStream,
}

impl<T: r2r::WrappedActionTypeSupport + 'static> Accepted<T> {
    /// The goal's id.
    pub fn uuid(&self) -> r2r::uuid::Uuid {
        self.goal.uuid
    }
}

/// How a goal ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// `SUCCEEDED`.
    Succeeded,
    /// `ABORTED` (also for rejected and preempted goals: the outcome says which).
    Aborted,
    /// `CANCELED` (after an accepted cancel request).
    Cancelled,
}

/// Accepts a goal; `None` (logged) if rcl refused.
pub fn accept<T>(req: ActionServerGoalRequest<T>) -> Option<Accepted<T>>
where
    T: r2r::WrappedActionTypeSupport + 'static,
{
    let uuid = req.uuid;
    match req.accept() {
        Ok((goal, cancel)) => Some(Accepted {
            goal,
            cancel: cancel.boxed(),
        }),
        Err(e) => {
            crate::log_warn!("could not accept goal {uuid}: {e}");
            None
        }
    }
}

/// The bad-goal policy: accepts `req` and at once aborts it with `result` (which carries
/// the action's `REJECTED` outcome and the reason), so the client reads the reason.
/// Returns false (logged) if the answer could not be sent.
pub fn reject<T>(req: ActionServerGoalRequest<T>, result: T::Result) -> bool
where
    T: r2r::WrappedActionTypeSupport + 'static,
{
    match accept(req) {
        Some(mut a) => end(&mut a.goal, End::Aborted, result),
        None => false,
    }
}

/// Ends `goal` as `how` with `result`; false (logged) if the result could not be sent.
pub fn end<T>(goal: &mut ActionServerGoal<T>, how: End, result: T::Result) -> bool
where
    T: r2r::WrappedActionTypeSupport + 'static,
{
    let sent = match how {
        End::Succeeded => goal.succeed(result),
        End::Aborted => goal.abort(result),
        End::Cancelled => goal.cancel(result),
    };
    match sent {
        Ok(()) => true,
        Err(e) => {
            crate::log_warn!("could not send the result of goal {}: {e}", goal.uuid);
            false
        }
    }
}

/// The message of a goal ended by the preemption policy.
pub fn preempted_message(by: r2r::uuid::Uuid) -> String {
    format!("preempted by a newer goal ({by})")
}

/// The next cancel request of the running goal; pending forever when there is none
/// (for a `tokio::select!` branch): `next_cancel(self.running.as_mut())`.
pub async fn next_cancel<T>(running: Option<&mut Accepted<T>>) -> ActionServerCancelRequest
where
    T: r2r::WrappedActionTypeSupport + 'static,
{
    match running {
        Some(a) => match a.cancel.next().await {
            Some(req) => req,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}
