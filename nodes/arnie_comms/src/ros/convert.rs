//! Messages ↔ library values: `arnie_interfaces/Packet` ↔ [`PacketSpec`] / [`Received`],
//! and an [`Answer`] as a `SendPacket` response (its outcome constants).
use node_glue::r2r::arnie_interfaces::{msg::Packet as PacketMsg, srv::SendPacket};
use node_glue::time;

use crate::front::{Answer, Code, PacketSpec};
use crate::link::Received;

/// What a `Packet` message asks for.
pub(crate) fn spec(msg: &PacketMsg) -> PacketSpec<'_> {
    PacketSpec {
        name: &msg.name,
        id: msg.id,
        device: msg.device,
        fields_json: &msg.fields_json,
    }
}

/// A received packet as a message stamped now.
pub(crate) fn to_msg(r: &Received) -> PacketMsg {
    PacketMsg {
        stamp: time::now(),
        name: r.packet.name().to_string(),
        id: r.packet.id(),
        device: r.packet.device,
        fields_json: r.packet.fields_json(),
        raw: r.raw.clone(),
    }
}

/// The interface's constant for `code`.
fn outcome(code: Code) -> u8 {
    use SendPacket::Response as R;
    match code {
        Code::Ok => R::OK as u8,
        Code::UnknownPacket => R::UNKNOWN_PACKET as u8,
        Code::InvalidFields => R::INVALID_FIELDS as u8,
        Code::LinkDown => R::LINK_DOWN as u8,
        Code::Timeout => R::TIMEOUT as u8,
        Code::Rejected => R::REJECTED as u8,
    }
}

/// The response: `success` = outcome OK; the reply when one came.
pub(crate) fn response(answer: Answer) -> SendPacket::Response {
    SendPacket::Response {
        outcome: outcome(answer.code),
        success: answer.success(),
        message: answer.message,
        has_reply: answer.reply.is_some(),
        reply: answer.reply.as_ref().map(to_msg).unwrap_or_default(),
    }
}
