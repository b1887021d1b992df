//! The `services` capability: every ROS service the graph serves (allowed by
//! `service_allow`, one type) is advertised with its request and response schemas, and a
//! client's call goes to the ROS service through a raw client made at run time
//! (`node_glue::typesupport::client`, the r2r patch's generic client): the client's CDR
//! request is sent as it is, the service's CDR response comes back as it is.
//!
//! The SDK runs the handler on its tokio task; the handler asks the spin thread (which
//! owns the node) to call, and waits at most [`CALL_TIMEOUT`] for the answer. A call that
//! fails (bad request bytes, no server, no answer in time) is an error to that client,
//! counted (`service_failures`) and logged at a bounded rate.

use std::collections::BTreeMap;

use foxglove::websocket::service::{Request, Service, ServiceSchema};
use futures::channel::oneshot;

use super::*;

/// How long a client's call waits for the ROS service (its server found, then answering).
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A call for the spin thread: the service, its type, the CDR request, where to answer.
pub(super) struct Call {
    pub(super) service: String,
    pub(super) type_name: String,
    pub(super) request: Vec<u8>,
    pub(super) reply: oneshot::Sender<Result<Vec<u8>, CallError>>,
}

/// The services the spin thread advertises and the clients it made.
#[derive(Default)]
pub(super) struct Services {
    /// Advertised: name -> type.
    advertised: BTreeMap<String, String>,
    /// Not advertised (several types, no definition): warned once.
    skipped: HashSet<String>,
    /// Raw clients by service name, made at the first call and kept while the bridge
    /// runs, also when the service leaves: r2r cannot destroy a client before its node,
    /// so one per name is made and reused when the service comes back.
    clients: HashMap<String, Arc<r2r::ClientRaw>>,
}

/// Every service in the graph with its types, from each node's list.
fn graph_services(node: &r2r::Node) -> r2r::Result<BTreeMap<String, Vec<String>>> {
    let mut all: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, services) in super::graph::node_services(node)? {
        for (service, types) in services {
            let known = all.entry(service).or_default();
            for t in types {
                if !known.contains(&t) {
                    known.push(t);
                }
            }
        }
    }
    Ok(all)
}

impl Services {
    /// Advertises new services, removes gone ones.
    pub(super) fn discover(
        &mut self,
        node: &r2r::Node,
        shared: &Arc<Shared>,
        schemas: &mut Schemas,
        server: &foxglove::WebSocketServerHandle,
    ) {
        let graph = match graph_services(node) {
            Ok(g) => g,
            Err(e) => {
                node_glue::log_warn!("cannot list services: {e}");
                return;
            }
        };
        let mut new = Vec::new();
        for (name, types) in &graph {
            if self.advertised.contains_key(name)
                || self.skipped.contains(name)
                || !shared.config.may_call(name)
            {
                continue;
            }
            if types.len() != 1 {
                self.skipped.insert(name.clone());
                node_glue::log_warn!("not advertising service {name}: several types {types:?}");
                continue;
            }
            let type_name = types[0].clone();
            let schema = match schemas.service(&type_name) {
                Ok(s) => s,
                Err(e) => {
                    self.skipped.insert(name.clone());
                    node_glue::log_warn!("not advertising service {name} ({type_name}): {e}");
                    continue;
                }
            };
            new.push(handler(
                name.clone(),
                type_name.clone(),
                schema,
                shared.clone(),
            ));
            self.advertised.insert(name.clone(), type_name);
        }
        if !new.is_empty() {
            let names: Vec<String> = new.iter().map(|s| s.name().to_string()).collect();
            match server.add_services(new) {
                Ok(()) => node_glue::log_info!("advertising services {names:?}"),
                Err(e) => {
                    node_glue::log_warn!("cannot advertise services {names:?}: {e}");
                    for n in &names {
                        self.advertised.remove(n);
                    }
                }
            }
        }
        let gone: Vec<String> = self
            .advertised
            .keys()
            .filter(|n| !graph.contains_key(*n))
            .cloned()
            .collect();
        if !gone.is_empty() {
            server.remove_services(&gone);
            for n in &gone {
                self.advertised.remove(n);
            }
            node_glue::log_info!("services left the graph: {gone:?}");
        }
        self.skipped.retain(|n| graph.contains_key(n));
    }

    /// Sends a client's call to the ROS service; the answer goes back on `call.reply`
    /// from a task (the response arrives through the node's spin).
    pub(super) fn call(&mut self, node: &mut r2r::Node, rt: &tokio::runtime::Handle, call: Call) {
        let client = match self.clients.get(&call.service) {
            Some(c) => c.clone(),
            None => match node_glue::typesupport::client(
                node,
                &call.service,
                &call.type_name,
                QosProfile::services_default(),
            ) {
                Ok(c) => {
                    let c = Arc::new(c);
                    self.clients.insert(call.service.clone(), c.clone());
                    c
                }
                Err(e) => {
                    let _ = call.reply.send(Err(CallError::Client(e)));
                    return;
                }
            },
        };
        let available = r2r::Node::is_available(client.as_ref());
        rt.spawn(async move {
            let ros = |source| CallError::Ros {
                service: call.service.clone(),
                source,
            };
            let answer = async {
                available.map_err(ros)?.await.map_err(ros)?;
                client
                    .request(&call.request)
                    .map_err(|source| CallError::Decode {
                        service: call.service.clone(),
                        type_name: call.type_name.clone(),
                        source,
                    })?
                    .await
                    .map_err(ros)
            };
            let _ = call.reply.send(answer.await);
        });
    }
}

/// Why a client's service call failed (its `Display` goes back to the client; each
/// names the service).
#[derive(Debug, thiserror::Error)]
pub(super) enum CallError {
    /// No client for the service's type.
    #[error("{0}")]
    Client(node_glue::typesupport::TypeError),
    /// rcl refused, or the service went away.
    #[error("{service}: {source}")]
    Ros {
        /// The service.
        service: String,
        /// rcl's reason.
        source: r2r::Error,
    },
    /// The request's bytes are not the service's request type.
    #[error("{service}: the request does not decode as {type_name}: {source}")]
    Decode {
        /// The service.
        service: String,
        /// Its type.
        type_name: String,
        /// The reason.
        source: r2r::Error,
    },
    /// The bridge stopped before the answer came.
    #[error("{0}: the bridge is shutting down")]
    ShuttingDown(String),
    /// No answer within [`CALL_TIMEOUT`].
    #[error("{0}: no answer within {secs} s", secs = CALL_TIMEOUT.as_secs())]
    Timeout(String),
}

/// The SDK's service: each request goes to the spin thread; the answer or the reason it
/// failed goes back to the client.
fn handler(name: String, type_name: String, schema: ServiceSchema, shared: Arc<Shared>) -> Service {
    Service::builder(name.as_str(), schema).async_handler_fn(move |req: Request| {
        let (shared, service, type_name) = (shared.clone(), name.clone(), type_name.clone());
        async move {
            let (reply, answer) = oneshot::channel();
            shared.send(Cmd::Call(Call {
                service: service.clone(),
                type_name,
                request: req.payload().to_vec(),
                reply,
            }));
            let result = match tokio::time::timeout(CALL_TIMEOUT, answer).await {
                Ok(Ok(r)) => r,
                Ok(Err(_)) => Err(CallError::ShuttingDown(service)),
                Err(_) => Err(CallError::Timeout(service)),
            };
            match &result {
                Ok(_) => {
                    shared.counters.service_calls.inc();
                }
                Err(e) => {
                    shared.counters.service_failures.inc();
                    shared.refuse_log(&format!("service call failed: {e}"));
                }
            }
            result
        }
    })
}
