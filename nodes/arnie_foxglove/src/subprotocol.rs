//! The WebSocket subprotocols the bridge accepts, and the handshake rewrite that lets a
//! `foxglove.websocket.v1` client talk to the SDK.
//!
//! The `foxglove` SDK (0.30) negotiates only `foxglove.sdk.v1` and `foxglove.sdk.v1.1`
//! and answers anything else with HTTP 400. Lichtblick, the ROS `foxglove_bridge`
//! ecosystem before 3.x and `@foxglove/ws-protocol` clients offer only
//! `foxglove.websocket.v1`. The messages on the wire are the same for everything this
//! node sends and takes (checked against the ws-protocol spec and the SDK's codecs:
//! `serverInfo`, `advertise` with inline `schema`/`schemaEncoding`, `unadvertise`,
//! `status`, `parameterValues`, binary message data `0x01 | u32 subscription | u64 time |
//! payload`; client `subscribe`, `unsubscribe`, client `advertise` with optional
//! `schema`/`schemaEncoding`, client message data `0x01 | u32 channel | payload`,
//! `getParameters`, `setParameters`); `foxglove.sdk.v1` is the same protocol under a new
//! name. So only the handshake differs: the request offers the SDK `foxglove.sdk.v1`
//! instead, and the 101 response names `foxglove.websocket.v1` back to the client.
//!
//! Pure functions on bytes; the TCP front that uses them is `ros::front`.

/// The SDK's subprotocol (inline schemas).
pub const SDK_V1: &str = "foxglove.sdk.v1";
/// The SDK's newer subprotocol (connection-scoped schema table).
pub const SDK_V1_1: &str = "foxglove.sdk.v1.1";
/// The ws-protocol name of the same protocol as [`SDK_V1`].
pub const WEBSOCKET_V1: &str = "foxglove.websocket.v1";
/// Every subprotocol a client may offer, as named in refusals.
pub const ACCEPTED: [&str; 3] = [SDK_V1_1, SDK_V1, WEBSOCKET_V1];

/// Largest HTTP head (request or response) read before it is refused [bytes].
pub const MAX_HEAD: usize = 16 * 1024;
/// Most header lines in one head.
const MAX_HEADERS: usize = 64;

/// What to do with a client's upgrade request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// The client offers a subprotocol the SDK negotiates: the request goes on unchanged.
    Native,
    /// The client offers only `foxglove.websocket.v1`: the request goes on with this head
    /// (offering `foxglove.sdk.v1`), and the SDK's response is put back with
    /// [`legacy_response`].
    Legacy(Vec<u8>),
}

impl Plan {
    /// The subprotocol the client speaks, for the logs (`Native`: the SDK picks).
    pub fn name(&self) -> &'static str {
        match self {
            Plan::Native => "foxglove.sdk.v1*",
            Plan::Legacy(_) => WEBSOCKET_V1,
        }
    }
}

/// Why a handshake was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No `Sec-WebSocket-Protocol` header.
    #[error(
        "no Sec-WebSocket-Protocol offered; this server speaks {}",
        ACCEPTED.join(", ")
    )]
    NoSubprotocol,
    /// Only subprotocols this server does not speak were offered.
    #[error(
        "subprotocol {} not supported; this server speaks {}",
        .0.join(", "),
        ACCEPTED.join(", ")
    )]
    Unknown(Vec<String>),
    /// Not an HTTP/1.1 GET asking for a WebSocket upgrade (the text says what).
    #[error("not a WebSocket upgrade request: {0}")]
    NotWebSocket(String),
    /// The head does not parse as HTTP.
    #[error("malformed HTTP request: {0}")]
    Malformed(String),
    /// The head is longer than [`MAX_HEAD`].
    #[error("HTTP head longer than {MAX_HEAD} bytes")]
    TooLarge,
    /// The connection ended before a whole head arrived.
    #[error("connection closed before a whole HTTP head")]
    Incomplete,
    /// No whole head within the handshake time.
    #[error("no whole HTTP head within the handshake time")]
    Timeout,
    /// The SDK's server behind the front could not take it (the text says why).
    #[error("the bridge could not serve it: {0}")]
    Server(String),
}

impl Refusal {
    /// The HTTP response telling the client why (none when it can no longer be told).
    pub fn response(&self) -> Option<Vec<u8>> {
        if *self == Refusal::Incomplete {
            return None;
        }
        let status = match self {
            Refusal::Server(_) => "503 Service Unavailable",
            _ => "400 Bad Request",
        };
        let body = format!("arnie_foxglove: {self}\n");
        Some(
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes(),
        )
    }
}

/// The length of the HTTP head at the start of `buf` (up to and including the blank
/// line), or `None` while it is incomplete.
pub fn head_len(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn is_protocol_header(name: &str) -> bool {
    name.eq_ignore_ascii_case("sec-websocket-protocol")
}

fn header_has_token(value: &[u8], token: &str) -> bool {
    value
        .split(|b| *b == b',')
        .any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
}

/// Decides what to do with a client's request head (`head` = [`head_len`] bytes).
///
/// # Errors
/// A [`Refusal`] naming why: not a WebSocket upgrade, no or only unknown subprotocols,
/// a head that does not parse.
pub fn plan_request(head: &[u8]) -> Result<Plan, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(Refusal::Incomplete),
        Err(e) => return Err(Refusal::Malformed(e.to_string())),
    }
    if req.method != Some("GET") {
        return Err(Refusal::NotWebSocket(format!(
            "method {}",
            req.method.unwrap_or("?")
        )));
    }
    let upgrade = req
        .headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("upgrade") && header_has_token(h.value, "websocket"));
    if !upgrade {
        return Err(Refusal::NotWebSocket(
            "no `Upgrade: websocket` header".into(),
        ));
    }
    let offered: Vec<String> = req
        .headers
        .iter()
        .filter(|h| is_protocol_header(h.name))
        .flat_map(|h| h.value.split(|b| *b == b','))
        .map(|t| String::from_utf8_lossy(t.trim_ascii()).into_owned())
        .filter(|t| !t.is_empty())
        .collect();
    if offered.is_empty() {
        return Err(Refusal::NoSubprotocol);
    }
    // Exact tokens, as the SDK matches them (`foxglove.sdk.v1.10` is not `v1.1`).
    if offered.iter().any(|t| t == SDK_V1 || t == SDK_V1_1) {
        return Ok(Plan::Native);
    }
    if offered.iter().any(|t| t == WEBSOCKET_V1) {
        return Ok(Plan::Legacy(with_protocol(head, SDK_V1)));
    }
    Err(Refusal::Unknown(offered))
}

/// `head` with its `Sec-WebSocket-Protocol` header lines replaced by one naming only
/// `protocol` (in the first one's place); every other byte unchanged.
fn with_protocol(head: &[u8], protocol: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len() + 16);
    let mut done = false;
    // Lines end in "\r\n" ([`head_len`] found the blank one); the last piece is empty.
    for line in head.split_inclusive(|b| *b == b'\n') {
        let name = line
            .iter()
            .position(|b| *b == b':')
            .map(|i| String::from_utf8_lossy(&line[..i]).trim().to_owned());
        if name.as_deref().is_some_and(is_protocol_header) {
            if !done {
                out.extend_from_slice(format!("Sec-WebSocket-Protocol: {protocol}\r\n").as_bytes());
                done = true;
            }
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// True when the SDK's response head switches to WebSocket (`101`).
pub fn switched(head: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut res = httparse::Response::new(&mut headers);
    matches!(res.parse(head), Ok(httparse::Status::Complete(_)) if res.code == Some(101))
}

/// The SDK's response head to a [`Plan::Legacy`] request, as the client must see it:
/// a `101` names `foxglove.websocket.v1` (the subprotocol the client offered); any other
/// response (the SDK refused) goes back unchanged.
pub fn legacy_response(head: &[u8]) -> Vec<u8> {
    if switched(head) {
        with_protocol(head, WEBSOCKET_V1)
    } else {
        head.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(protocols: &[&str]) -> Vec<u8> {
        let mut r = String::from(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n",
        );
        for p in protocols {
            r.push_str(&format!("Sec-WebSocket-Protocol: {p}\r\n"));
        }
        r.push_str("User-Agent: test\r\n\r\n");
        r.into_bytes()
    }

    fn text(b: &[u8]) -> String {
        String::from_utf8(b.to_vec()).unwrap()
    }

    #[test]
    fn sdk_subprotocols_go_on_unchanged() {
        for offer in [
            &["foxglove.sdk.v1"][..],
            &["foxglove.sdk.v1.1, foxglove.sdk.v1"],
            &["foxglove.websocket.v1, foxglove.sdk.v1"],
            &["foxglove.websocket.v1", "foxglove.sdk.v1.1"],
        ] {
            assert_eq!(plan_request(&request(offer)), Ok(Plan::Native), "{offer:?}");
        }
    }

    #[test]
    fn websocket_v1_alone_is_offered_to_the_sdk_as_sdk_v1() {
        let head = request(&["foxglove.websocket.v1"]);
        let Ok(Plan::Legacy(rewritten)) = plan_request(&head) else {
            panic!("not legacy");
        };
        let expected = text(&head).replace(
            "Sec-WebSocket-Protocol: foxglove.websocket.v1",
            "Sec-WebSocket-Protocol: foxglove.sdk.v1",
        );
        assert_eq!(text(&rewritten), expected);
        // Several headers and odd spelling: one header left, in the first one's place.
        let head = b"GET /x HTTP/1.1\r\nupgrade: WebSocket\r\nsec-websocket-protocol: bogus\r\n\
                     Host: h\r\nSEC-WEBSOCKET-PROTOCOL:  foxglove.websocket.v1 \r\n\r\n";
        let Ok(Plan::Legacy(rewritten)) = plan_request(head) else {
            panic!("not legacy");
        };
        assert_eq!(
            text(&rewritten),
            "GET /x HTTP/1.1\r\nupgrade: WebSocket\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\
             Host: h\r\n\r\n"
        );
        assert_eq!(plan_request(&rewritten), Ok(Plan::Native));
    }

    #[test]
    fn no_or_unknown_subprotocols_are_refused_naming_them() {
        assert_eq!(plan_request(&request(&[])), Err(Refusal::NoSubprotocol));
        let refusal = plan_request(&request(&["foxglove.sdk.v1.10, chat"])).unwrap_err();
        assert_eq!(
            refusal,
            Refusal::Unknown(vec!["foxglove.sdk.v1.10".into(), "chat".into()])
        );
        let response = text(&refusal.response().unwrap());
        assert!(
            response.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{response}"
        );
        assert!(
            response.ends_with(
                "\r\n\r\narnie_foxglove: subprotocol foxglove.sdk.v1.10, chat not supported; \
                 this server speaks foxglove.sdk.v1.1, foxglove.sdk.v1, foxglove.websocket.v1\n"
            ),
            "{response}"
        );
        let body_len = response.split("\r\n\r\n").nth(1).unwrap().len();
        assert!(response.contains(&format!("Content-Length: {body_len}\r\n")));
    }

    #[test]
    fn non_websocket_and_garbage_are_refused() {
        let post = b"POST / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n";
        assert!(matches!(plan_request(post), Err(Refusal::NotWebSocket(_))));
        let plain = b"GET / HTTP/1.1\r\nHost: h\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n";
        assert!(matches!(plan_request(plain), Err(Refusal::NotWebSocket(_))));
        assert!(matches!(
            plan_request(b"\x16\x03\x01garbage\r\n\r\n"),
            Err(Refusal::Malformed(_))
        ));
        assert_eq!(Refusal::Incomplete.response(), None);
        assert!(Refusal::Timeout.response().is_some());
    }

    #[test]
    fn head_len_finds_the_blank_line() {
        assert_eq!(head_len(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
        assert_eq!(head_len(b"GET / HTTP/1.1\r\n\r\n\x81\x00"), Some(18));
    }

    #[test]
    fn the_sdk_response_names_the_clients_subprotocol() {
        let ok =
            b"HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\
                   sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\
                   sec-websocket-protocol: foxglove.sdk.v1\r\ndate: x\r\n\r\n";
        assert_eq!(
            text(&legacy_response(ok)),
            text(ok).replace(
                "sec-websocket-protocol: foxglove.sdk.v1",
                "Sec-WebSocket-Protocol: foxglove.websocket.v1"
            )
        );
        assert!(switched(ok));
        let refused = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        assert!(!switched(refused));
        assert_eq!(legacy_response(refused), refused.to_vec());
        let busy = Refusal::Server("x".into()).response().unwrap();
        assert!(text(&busy).starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
    }
}
