//! The public port: every client connects here, and its connection is relayed byte for
//! byte to the SDK's server listening on a loopback port of its own.
//!
//! With `tls_cert`/`tls_key` the front speaks TLS first (`wss://`; a handshake that
//! fails or does not finish within 10 s is counted as `tls_refused` and logged with its
//! reason). With `token_file` the upgrade request must carry a token ([`crate::auth`]):
//! none, an empty, huge or wrong one is answered HTTP 401 (`auth_refused`), an address
//! with too many recent failures HTTP 429 (`auth_rate_limited`). A `viewer` token's
//! connection goes to the read-only SDK server (no client publishing, no service calls,
//! parameter sets refused), an `operator`'s to the full one.
//!
//! Only the HTTP upgrade is looked at ([`crate::subprotocol`]): a client offering
//! `foxglove.sdk.v1`/`foxglove.sdk.v1.1` goes on unchanged; one offering only
//! `foxglove.websocket.v1` has its request offer `foxglove.sdk.v1` to the SDK and the
//! SDK's 101 name `foxglove.websocket.v1` back (the messages are the same); anything else
//! is refused with HTTP 400 saying why, counted (`handshakes_refused`) and logged at a
//! bounded rate. After the handshake the bytes are copied as they come, both ways: the
//! SDK parses every frame as before (the hostile-client accounting is unchanged), and a
//! slow client backs up into the SDK's own per-client outbox (counted as before), so the
//! relay holds no more than its two copy buffers and drops nothing.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{lock, Shared};
use crate::auth::{AuthRefusal, Role, Tokens};
use crate::subprotocol::{
    head_len, legacy_response, plan_request, switched, Plan, Refusal, MAX_HEAD,
};

/// How long a client (and the SDK, for a rewritten response) has to send a whole HTTP head.
const HANDSHAKE_TIME: Duration = Duration::from_secs(10);
/// How long a refused client has to take its 400 before the connection is closed.
const REFUSAL_WRITE_TIME: Duration = Duration::from_secs(1);

/// What the front checks before it relays, and where each role goes.
pub(super) struct Gate {
    /// `wss://`: the TLS acceptor.
    pub(super) tls: Option<tokio_rustls::TlsAcceptor>,
    /// The tokens a client must present (none: every client is an operator).
    pub(super) tokens: Option<Tokens>,
    /// The full SDK server.
    pub(super) operator: SocketAddr,
    /// The read-only SDK server (viewer tokens).
    pub(super) viewer: Option<SocketAddr>,
}

/// Accepts clients on `listener` until `shutdown`, relaying each to the SDK server of
/// its role.
pub(super) async fn run(
    listener: TcpListener,
    gate: Arc<Gate>,
    shared: Arc<Shared>,
    shutdown: node_glue::Shutdown,
) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = shutdown.wait() => return,
        };
        match accepted {
            Ok((client, peer)) => {
                tokio::spawn(serve(client, peer, gate.clone(), shared.clone()));
            }
            Err(e) => {
                // Out of file descriptors and the like: the listener itself stays good.
                shared.refuse_log(&format!("accepting a client failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Reads an HTTP head: (bytes read, head length). The bytes after the head (if any)
/// belong to the WebSocket stream.
async fn read_head<S: AsyncRead + Unpin>(s: &mut S) -> Result<(Vec<u8>, usize), Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(n) = head_len(&buf) {
            return if n > MAX_HEAD {
                Err(Refusal::TooLarge)
            } else {
                Ok((buf, n))
            };
        }
        if buf.len() >= MAX_HEAD {
            return Err(Refusal::TooLarge);
        }
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return Err(Refusal::Incomplete),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

async fn read_head_in_time<S: AsyncRead + Unpin>(s: &mut S) -> Result<(Vec<u8>, usize), Refusal> {
    tokio::time::timeout(HANDSHAKE_TIME, read_head(s))
        .await
        .unwrap_or(Err(Refusal::Timeout))
}

/// One accepted connection: TLS first when configured, then [`relay`].
async fn serve(client: TcpStream, peer: SocketAddr, gate: Arc<Gate>, s: Arc<Shared>) {
    // Frames go on as they come: no Nagle delay on either hop.
    let _ = client.set_nodelay(true);
    let Some(tls) = &gate.tls else {
        return relay(client, peer, gate, s).await;
    };
    match tokio::time::timeout(HANDSHAKE_TIME, tls.accept(client)).await {
        Ok(Ok(stream)) => relay(stream, peer, gate.clone(), s).await,
        Ok(Err(e)) => {
            s.counters.tls_refused.inc();
            s.refuse_log(&format!(
                "client {peer}: TLS handshake failed: {e} (counted as tls_refused)"
            ));
        }
        Err(_) => {
            s.counters.tls_refused.inc();
            s.refuse_log(&format!(
                "client {peer}: no TLS handshake within {} s: closed (counted as tls_refused)",
                HANDSHAKE_TIME.as_secs()
            ));
        }
    }
}

/// Writes `response` (when there is one) and closes, reading what the client still sends.
async fn answer_and_close<S: AsyncRead + AsyncWrite + Unpin>(
    client: &mut S,
    response: Option<Vec<u8>>,
) {
    if let Some(response) = response {
        let _ = tokio::time::timeout(REFUSAL_WRITE_TIME, async {
            client.write_all(&response).await?;
            client.shutdown().await?;
            // Lingering close: what the client sent beyond the head is read and dropped
            // until it closes, so the kernel does not answer it with a reset that could
            // discard the 400 before the client reads it.
            let mut sink = [0u8; 4096];
            while client.read(&mut sink).await? > 0 {}
            std::io::Result::Ok(())
        })
        .await;
    }
}

/// Counts and logs a refused handshake and tells the client why (when it still listens).
async fn refuse<S: AsyncRead + AsyncWrite + Unpin>(
    mut client: S,
    peer: SocketAddr,
    why: &Refusal,
    s: &Shared,
) {
    s.counters.handshakes_refused.inc();
    s.refuse_log(&format!(
        "client {peer}: WebSocket handshake refused: {why} (counted as handshakes_refused)"
    ));
    answer_and_close(&mut client, why.response()).await;
}

/// The role of the request's token, or the refusal already answered.
async fn authorize<S: AsyncRead + AsyncWrite + Unpin>(
    client: &mut S,
    peer: SocketAddr,
    head: &[u8],
    tokens: Option<&Tokens>,
    s: &Shared,
) -> Option<Role> {
    let Some(tokens) = tokens else {
        return Some(Role::Operator);
    };
    let now = std::time::Instant::now();
    let ip = peer.ip();
    let verdict = match lock(&s.guesses).allowed(ip, now) {
        Err(wait) => Err(AuthRefusal::RateLimited(wait)),
        Ok(()) => tokens
            .check(head)
            .map(|(name, role)| (name.to_owned(), role)),
    };
    match verdict {
        Ok((name, role)) => {
            node_glue::log_info!("client {peer}: token `{name}` ({})", role.name());
            Some(role)
        }
        Err(why) => {
            if matches!(why, AuthRefusal::RateLimited(_)) {
                s.counters.auth_rate_limited.inc();
                s.refuse_log(&format!(
                    "client {peer}: refused (HTTP 429): {why} (counted as auth_rate_limited)"
                ));
            } else {
                lock(&s.guesses).failed(ip, now);
                s.counters.auth_refused.inc();
                s.refuse_log(&format!(
                    "client {peer}: refused (HTTP 401): {why} (counted as auth_refused)"
                ));
            }
            answer_and_close(client, Some(why.response())).await;
            None
        }
    }
}

/// One client: its token and handshake judged (the handshake rewritten when needed),
/// then relayed both ways to the SDK server of its role until either side closes.
async fn relay<S: AsyncRead + AsyncWrite + Unpin>(
    mut client: S,
    peer: SocketAddr,
    gate: Arc<Gate>,
    s: Arc<Shared>,
) {
    let (buf, n) = match read_head_in_time(&mut client).await {
        Ok(x) => x,
        Err(why) => return refuse(client, peer, &why, &s).await,
    };
    let Some(role) = authorize(&mut client, peer, &buf[..n], gate.tokens.as_ref(), &s).await else {
        return;
    };
    let plan = match plan_request(&buf[..n]) {
        Ok(plan) => plan,
        Err(why) => return refuse(client, peer, &why, &s).await,
    };
    let sdk = match (role, gate.viewer) {
        (Role::Operator, _) => gate.operator,
        (Role::Viewer, Some(viewer)) => viewer,
        (Role::Viewer, None) => {
            let why = Refusal::Server("no read-only server for viewer tokens".into());
            return refuse(client, peer, &why, &s).await;
        }
    };
    if role == Role::Viewer {
        s.counters.viewer_clients.inc();
    }
    let mut server = match TcpStream::connect(sdk).await {
        Ok(server) => server,
        Err(e) => {
            let why = Refusal::Server(format!("its WebSocket server at {sdk} is unreachable: {e}"));
            return refuse(client, peer, &why, &s).await;
        }
    };
    let _ = server.set_nodelay(true);
    let request: &[u8] = match &plan {
        Plan::Native => &buf[..n],
        Plan::Legacy(rewritten) => rewritten,
    };
    if server.write_all(request).await.is_err() || server.write_all(&buf[n..]).await.is_err() {
        return;
    }
    // The SDK's answer: put back for a legacy client, and seen, so only a switch counts.
    let (answer, m) = match read_head_in_time(&mut server).await {
        Ok(x) => x,
        Err(why) => {
            let why = Refusal::Server(format!("no answer to the upgrade: {why}"));
            return refuse(client, peer, &why, &s).await;
        }
    };
    let head = match &plan {
        Plan::Native => answer[..m].to_vec(),
        Plan::Legacy(_) => legacy_response(&answer[..m]),
    };
    if client.write_all(&head).await.is_err() || client.write_all(&answer[m..]).await.is_err() {
        return;
    }
    if !switched(&head) {
        s.counters.handshakes_refused.inc();
        let status =
            String::from_utf8_lossy(head.split(|b| *b == b'\r').next().unwrap_or_default())
                .into_owned();
        s.refuse_log(&format!(
            "client {peer}: WebSocket handshake refused by the SDK: {status} (counted as handshakes_refused)"
        ));
        return;
    }
    match plan {
        Plan::Native => s.counters.sdk_v1_clients.inc(),
        Plan::Legacy(_) => s.counters.websocket_v1_clients.inc(),
    };
    let relayed_as = server
        .local_addr()
        .map_or_else(|_| "?".into(), |a| a.to_string());
    node_glue::log_info!(
        "client {peer}: subprotocol {} accepted (the SDK sees it as {relayed_as})",
        plan.name()
    );
    let outcome = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    match outcome {
        Ok((up, down)) => {
            node_glue::log_info!("client {peer}: closed ({up} bytes from it, {down} bytes to it)")
        }
        Err(e) => node_glue::log_info!("client {peer}: connection ended: {e}"),
    }
}
