//! One managed node seen from the manager: its `~/get_state` and `~/change_state`
//! clients, every call bounded by a timeout, and its `~/transition_event`s (the reason
//! of a failed transition).
use std::time::Duration;

/// A request not answered within this long is sent again (see `NodeClient::state`).
const RESEND: Duration = Duration::from_secs(2);

use futures::StreamExt;
use glue_core::lifecycle::{State, GRAPH};
use node_glue::r2r::{
    self,
    lifecycle_msgs::msg::{Transition, TransitionEvent},
    lifecycle_msgs::srv::{ChangeState, GetState},
};
use tokio::sync::watch;

/// Why a call to a node did not get an answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    /// Its service did not appear.
    #[error("{service} did not appear within {:.1} s (is the node running, and managed?)", .wait.as_secs_f64())]
    NoService {
        /// The service.
        service: String,
        /// How long it was waited for.
        wait: Duration,
    },
    /// No answer in time.
    #[error("{service} did not answer within {:.1} s", .wait.as_secs_f64())]
    NoAnswer {
        /// The service.
        service: String,
        /// How long the answer was waited for.
        wait: Duration,
    },
    /// rcl refused the call.
    #[error("{service}: {error}")]
    Rcl {
        /// The service.
        service: String,
        /// rcl's error.
        error: r2r::Error,
    },
    /// An answer with a state id no lifecycle has.
    #[error("{service} answered the unknown state id {id}")]
    BadState {
        /// The service.
        service: String,
        /// The id.
        id: u8,
    },
}

/// The clients of one managed node.
pub(crate) struct NodeClient {
    name: String,
    get: r2r::Client<GetState::Service>,
    change: r2r::Client<ChangeState::Service>,
    /// (failure events seen, the last one's label).
    failures: watch::Receiver<(u64, String)>,
}

impl NodeClient {
    /// The clients of node `name` (relative to the manager's namespace, or absolute) and
    /// the task that follows its transition events (spawned on `handle`).
    pub(crate) fn new(
        node: &mut r2r::Node,
        name: &str,
        handle: &tokio::runtime::Handle,
    ) -> r2r::Result<NodeClient> {
        let qos = r2r::QosProfile::services_default();
        let get =
            node.create_client::<GetState::Service>(&format!("{name}/get_state"), qos.clone())?;
        let change =
            node.create_client::<ChangeState::Service>(&format!("{name}/change_state"), qos)?;
        let mut events = node.subscribe::<TransitionEvent>(
            &format!("{name}/transition_event"),
            r2r::QosProfile::default(),
        )?;
        let (tx, failures) = watch::channel((0, String::new()));
        handle.spawn(async move {
            while let Some(e) = events.next().await {
                let label = &e.transition.label;
                if label.starts_with("transition_failure") || label.starts_with("transition_error")
                {
                    tx.send_modify(|(n, last)| {
                        *n += 1;
                        *last = format!(
                            "{} -> {} ({label})",
                            e.start_state.label, e.goal_state.label
                        );
                    });
                }
            }
        });
        Ok(NodeClient {
            name: name.to_string(),
            get,
            change,
            failures,
        })
    }

    /// The node's name as given.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    async fn available<S>(
        &self,
        client: &r2r::Client<S>,
        service: &str,
        wait: Duration,
    ) -> Result<(), CallError>
    where
        S: r2r::WrappedServiceTypeSupport + 'static,
    {
        let rcl = |error| CallError::Rcl {
            service: service.to_string(),
            error,
        };
        let ready = r2r::Node::is_available(client).map_err(rcl)?;
        match tokio::time::timeout(wait, ready).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(rcl(e)),
            Err(_) => Err(CallError::NoService {
                service: service.to_string(),
                wait,
            }),
        }
    }

    /// `~/get_state`: waits at most `service_wait` for the service, `answer_wait` for the answer.
    pub(crate) async fn state(
        &self,
        service_wait: Duration,
        answer_wait: Duration,
    ) -> Result<State, CallError> {
        let service = format!("{}/get_state", self.name);
        self.available(&self.get, &service, service_wait).await?;
        let rcl = |error| CallError::Rcl {
            service: service.clone(),
            error,
        };
        // A service seen as available may not have matched our reply reader yet (DDS
        // discovery is not symmetric): a lost request is sent again, every RESEND.
        let deadline = tokio::time::Instant::now() + answer_wait;
        let resp = loop {
            let answer = self.get.request(&GetState::Request {}).map_err(rcl)?;
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left.min(RESEND), answer).await {
                Ok(r) => break r.map_err(rcl)?,
                Err(_) if tokio::time::Instant::now() < deadline => continue,
                Err(_) => {
                    return Err(CallError::NoAnswer {
                        service,
                        wait: answer_wait,
                    })
                }
            }
        };
        let id = resp.current_state.id;
        State::from_id(id).ok_or(CallError::BadState { service, id })
    }

    /// The heartbeat: `~/get_state` answered within `wait`, or `None`.
    pub(crate) async fn probe(&self, wait: Duration) -> Option<State> {
        let answer = self.get.request(&GetState::Request {}).ok()?;
        match tokio::time::timeout(wait, answer).await {
            Ok(Ok(resp)) => State::from_id(resp.current_state.id),
            _ => None,
        }
    }

    /// `~/change_state` by `label` (with the id of that transition, for clients that go
    /// by id): the answer's `success`.
    pub(crate) async fn change(
        &self,
        label: &str,
        service_wait: Duration,
        answer_wait: Duration,
    ) -> Result<bool, CallError> {
        let service = format!("{}/change_state", self.name);
        self.available(&self.change, &service, service_wait).await?;
        let rcl = |error| CallError::Rcl {
            service: service.clone(),
            error,
        };
        // The id matters only to a node that ignores the label; take the first of the graph.
        let id = GRAPH.iter().find(|t| t.label == label).map_or(0, |t| t.id);
        let req = ChangeState::Request {
            transition: Transition {
                id,
                label: label.to_string(),
            },
        };
        // As in `state`: a request lost before the node matched us is sent again, but only
        // while the node's state shows it was not taken (a transition runs once).
        let before = self.state(service_wait, answer_wait).await?;
        let deadline = tokio::time::Instant::now() + answer_wait;
        let mut answer = self.change.request(&req).map_err(rcl)?;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left.min(RESEND), &mut answer).await {
                Ok(r) => return Ok(r.map_err(rcl)?.success),
                Err(_) if tokio::time::Instant::now() >= deadline => {
                    return Err(CallError::NoAnswer {
                        service,
                        wait: answer_wait,
                    })
                }
                Err(_) => {
                    let now = self.state(service_wait, left).await?;
                    if now.is_primary() && now != before {
                        // Taken; its answer was lost on the way back.
                        return Ok(true);
                    }
                    if now == before {
                        answer = self.change.request(&req).map_err(rcl)?;
                    }
                }
            }
        }
    }

    /// The count of failure events so far (before a change).
    pub(crate) fn events_seen(&self) -> u64 {
        self.failures.borrow().0
    }

    /// The first failure event after `since`, waited for at most `wait` (it may arrive
    /// after the answer).
    pub(crate) async fn failure_since(&self, since: u64, wait: Duration) -> Option<String> {
        let mut rx = self.failures.clone();
        let got = tokio::time::timeout(wait, rx.wait_for(|(n, _)| *n > since)).await;
        match got {
            Ok(Ok(v)) => Some(v.1.clone()),
            _ => None,
        }
    }
}
