//! `play --publish-service-requests`: a recorded service's events become calls of the
//! service again, as rosbag2's player makes them (`PlayerServiceClient`). For each event
//! topic played, a client of the service, of its type loaded at run time. An event is
//! sent when it is a request of the chosen side ([`RequestSource`]) that carries its
//! request (introspection set to contents); responses and the other side's requests are
//! skipped. The answers are not waited for (rosbag2 does not either).
//!
//! Nothing is dropped unsaid: a request whose service is not available is not sent
//! (rosbag2 logs it as an error), an event without its request (introspection set to
//! metadata only) cannot be, and an event that does not decode is refused; each is
//! counted per service and logged (the first of each kind per service), and the counts
//! are printed at the end.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;

use futures::FutureExt;
use r2r::QosProfile;

use crate::filter::{event_type, service_of_event_topic, service_of_event_type, RequestSource};
use crate::player::PlayMessage;

type Available = Pin<Box<dyn Future<Output = r2r::Result<()>>>>;

/// One played service.
struct Service {
    name: String,
    client: r2r::ClientRaw,
    event: r2r::RuntimeMessage,
    request: r2r::RuntimeMessage,
    /// Resolves when the service is there (polled while `ready` is false).
    available: Option<Available>,
    /// The service was seen.
    ready: bool,
    counts: Counts,
}

/// What became of a service's events.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    sent: u64,
    skipped: u64,
    not_ready: u64,
    without_request: u64,
    undecodable: u64,
    failed: u64,
}

/// The played services, by event topic.
pub(super) struct Requests {
    source: RequestSource,
    services: RefCell<HashMap<String, Service>>,
}

impl Requests {
    /// No services yet; requests of `source` will be sent.
    pub(super) fn new(source: RequestSource) -> Self {
        Requests {
            source,
            services: RefCell::new(HashMap::new()),
        }
    }

    /// Makes a client for the service whose events `topic` (type `event_type`) carries.
    pub(super) fn add(
        &self,
        node: &mut r2r::Node,
        topic: &str,
        event_type: &str,
    ) -> Result<(), node_glue::typesupport::TypeError> {
        let name = service_of_event_topic(topic).to_string();
        let service_type = service_of_event_type(event_type);
        let supports = node_glue::typesupport::TypeSupports::global();
        let event = supports.runtime_message(event_type)?;
        let request = supports.service(service_type)?.request;
        let client = node_glue::typesupport::client(
            node,
            &name,
            service_type,
            QosProfile::services_default(),
        )?;
        let available = r2r::Node::is_available(&client)
            .ok()
            .map(|f| Box::pin(f) as Available);
        self.services.borrow_mut().insert(
            topic.to_string(),
            Service {
                name,
                client,
                event,
                request,
                available,
                ready: false,
                counts: Counts::default(),
            },
        );
        Ok(())
    }

    /// Whether `topic` is a played service's event topic.
    pub(super) fn handles(&self, topic: &str) -> bool {
        self.services.borrow().contains_key(topic)
    }

    /// Whether every service is available (call after a spin: availability is polled
    /// there).
    pub(super) fn all_available(&self) -> bool {
        self.services.borrow_mut().values_mut().all(is_available)
    }

    /// The services not available yet.
    pub(super) fn waiting(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .services
            .borrow_mut()
            .values_mut()
            .filter_map(|s| (!is_available(s)).then(|| s.name.clone()))
            .collect();
        v.sort();
        v
    }

    /// Sends the request `m` (an event of a played service's topic) carries, if it is one
    /// to send.
    pub(super) fn send(&self, m: &PlayMessage) {
        let mut services = self.services.borrow_mut();
        let Some(s) = services.get_mut(&*m.topic) else {
            return;
        };
        // Responses and the other side's requests are skipped before the event is decoded
        // (most events are not sent). An event too short to hold its type fails the
        // decode below.
        if event_type::of_cdr(&m.data).is_some_and(|t| !self.source.sends(t)) {
            s.counts.skipped += 1;
            return;
        }
        let (_, request) = match s.event.service_event_request(&m.data, &s.request) {
            Ok(r) => r,
            Err(e) => {
                s.counts.undecodable += 1;
                if s.counts.undecodable == 1 {
                    node_glue::log_error!(
                        "{}: a recorded event does not decode ({e}): not sent",
                        s.name
                    );
                }
                return;
            }
        };
        let Some(cdr) = request else {
            s.counts.without_request += 1;
            if s.counts.without_request == 1 {
                node_glue::log_warn!(
                    "{}: a recorded request has no contents (introspection was metadata only): \
                     cannot send it",
                    s.name
                );
            }
            return;
        };
        if !is_available(s) {
            s.counts.not_ready += 1;
            if s.counts.not_ready == 1 {
                node_glue::log_error!("{}: the service is not available: request not sent", s.name);
            }
            return;
        }
        match s.client.request(&cdr) {
            // The answer is not awaited; dropping the future drops it on arrival.
            Ok(_) => s.counts.sent += 1,
            Err(e) => {
                s.counts.failed += 1;
                node_glue::log_error!("{}: cannot send a request: {e}", s.name);
            }
        }
    }

    /// One line per service: what became of its events.
    pub(super) fn report(&self) -> Vec<String> {
        let services = self.services.borrow();
        let by_name: BTreeMap<&str, Counts> = services
            .values()
            .map(|s| (s.name.as_str(), s.counts))
            .collect();
        by_name
            .into_iter()
            .map(|(name, c)| {
                format!(
                    "  {name}: {} requests sent, {} events skipped (responses, the other side), \
                     {} not sent: {} service not available, {} without contents, {} undecodable, \
                     {} refused",
                    c.sent,
                    c.skipped,
                    c.not_ready + c.without_request + c.undecodable + c.failed,
                    c.not_ready,
                    c.without_request,
                    c.undecodable,
                    c.failed
                )
            })
            .collect()
    }
}

fn is_available(s: &mut Service) -> bool {
    if !s.ready {
        // No future (r2r refused to watch the client) or an error (the client is gone, the
        // node shutting down): never available.
        if let Some(Some(Ok(()))) = s.available.as_mut().map(|f| f.now_or_never()) {
            s.ready = true;
            s.available = None;
        }
    }
    s.ready
}
