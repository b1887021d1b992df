//! The two inputs that ask for packets, both through the library's [`Front`] (one send
//! path, one set of caps): `/comms/tx` (fire and forget) and `/comms/send` (a request
//! answered with its outcome). A refusal is counted, logged (rate-limited) and, for a
//! request, answered at once with its outcome code and reason.
use std::sync::{Arc, Mutex};

use futures::{Stream, StreamExt};
use node_glue::lifecycle::Lifecycle;
use node_glue::r2r::{
    self, arnie_interfaces::msg::Packet as PacketMsg, arnie_interfaces::srv::SendPacket,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{topics, warn_limited};

use super::convert::{response, spec};
use super::counters::Counters;
use super::params::CommsParams;
use crate::front::{Answer, Front, Limits, PacketSpec, Refused};

/// What both inputs share.
#[derive(Clone)]
pub(crate) struct Inputs {
    pub(crate) front: Front,
    /// The node's lifecycle: packets go to the link only while active.
    pub(crate) lc: Lifecycle,
    pub(crate) params: Arc<Mutex<CommsParams>>,
    pub(crate) counters: Arc<Counters>,
    pub(crate) logs: Arc<RateLimit>,
}

impl Inputs {
    /// The live caps (checked: a refused `ros2 param set` never reaches the table).
    fn limits(&self) -> Limits {
        let p = self.params.lock().unwrap_or_else(|e| e.into_inner());
        p.raw().limits().unwrap_or_default()
    }

    /// Counts a refusal by kind and logs it (rate-limited per input).
    fn refused(&self, topic: &str, spec: &PacketSpec<'_>, refused: &Refused) {
        self.counters.count_refusal(refused.kind);
        warn_limited!(
            self.logs,
            topic,
            "{topic}: packet {} refused, not sent: {refused}",
            spec.label()
        );
    }
}

/// `/comms/tx` → the link loop. Refused packets are counted and logged, never sent.
pub(crate) async fn forward_tx(mut sub: impl Stream<Item = PacketMsg> + Unpin, inputs: Inputs) {
    while let Some(msg) = sub.next().await {
        if !inputs.lc.is_active() {
            inputs.counters.inactive_refused.inc();
            warn_limited!(
                inputs.logs,
                "inactive",
                "{}: packet {} not sent: {}",
                topics::COMMS_TX,
                spec(&msg).label(),
                inputs.lc.inactive_reason()
            );
            continue;
        }
        match inputs.front.send(&spec(&msg), &inputs.limits()).await {
            Ok(true) => {}
            Ok(false) => return, // the link loop has stopped: shutting down
            Err(refused) => {
                inputs.counters.tx_rejected.inc();
                inputs.refused(topics::COMMS_TX, &spec(&msg), &refused);
            }
        }
    }
}

/// `/comms/send`: each admitted request waits for its outcome in its own task (at most
/// `max_requests_in_flight` at once); a refused one is answered at once.
pub(crate) async fn serve_send(
    mut requests: impl Stream<Item = r2r::ServiceRequest<SendPacket::Service>> + Unpin,
    inputs: Inputs,
) {
    while let Some(req) = requests.next().await {
        if !inputs.lc.is_active() {
            inputs.counters.inactive_refused.inc();
            let answer = Answer {
                code: crate::front::Code::LinkDown,
                message: inputs.lc.inactive_reason(),
                reply: None,
            };
            respond(req, answer, &inputs);
            continue;
        }
        let admitted = inputs.front.admit(
            &spec(&req.message.packet),
            req.message.timeout_s,
            &inputs.limits(),
        );
        match admitted {
            Err(refused) => {
                inputs.counters.send_rejected.inc();
                inputs.refused(topics::COMMS_SEND, &spec(&req.message.packet), &refused);
                respond(req, Answer::refused(&refused), &inputs);
            }
            Ok(admitted) => {
                let inputs = inputs.clone();
                tokio::spawn(async move {
                    let answer = inputs.front.request(admitted).await;
                    respond(req, answer, &inputs);
                });
            }
        }
    }
}

fn respond(req: r2r::ServiceRequest<SendPacket::Service>, answer: Answer, inputs: &Inputs) {
    if let Err(e) = req.respond(response(answer)) {
        inputs.counters.respond_errors.inc();
        warn_limited!(
            inputs.logs,
            "respond",
            "cannot answer a {} request: {e}",
            topics::COMMS_SEND
        );
    }
}
