//! The public port: every client connects here, and its connection is relayed byte for
//! byte to the SDK's server listening on a loopback port of its own.
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

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::Shared;
use crate::subprotocol::{
    head_len, legacy_response, plan_request, switched, Plan, Refusal, MAX_HEAD,
};

/// How long a client (and the SDK, for a rewritten response) has to send a whole HTTP head.
const HANDSHAKE_TIME: Duration = Duration::from_secs(10);
/// How long a refused client has to take its 400 before the connection is closed.
const REFUSAL_WRITE_TIME: Duration = Duration::from_secs(1);

/// Accepts clients on `listener` until `shutdown`, relaying each to the SDK at `sdk`.
pub(super) async fn run(
    listener: TcpListener,
    sdk: SocketAddr,
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
                tokio::spawn(relay(client, peer, sdk, shared.clone()));
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

/// Counts and logs a refused handshake and tells the client why (when it still listens).
async fn refuse(mut client: TcpStream, peer: SocketAddr, why: &Refusal, s: &Shared) {
    s.counters.handshakes_refused.inc();
    s.refuse_log(&format!(
        "client {peer}: WebSocket handshake refused: {why} (counted as handshakes_refused)"
    ));
    if let Some(response) = why.response() {
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

/// One client: its handshake judged (and rewritten when needed), then relayed both ways
/// until either side closes.
async fn relay(mut client: TcpStream, peer: SocketAddr, sdk: SocketAddr, s: Arc<Shared>) {
    // Frames go on as they come: no Nagle delay on either hop.
    let _ = client.set_nodelay(true);
    let (buf, n, plan) = match read_head_in_time(&mut client)
        .await
        .and_then(|(buf, n)| plan_request(&buf[..n]).map(|plan| (buf, n, plan)))
    {
        Ok(x) => x,
        Err(why) => return refuse(client, peer, &why, &s).await,
    };
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
