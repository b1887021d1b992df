//! `cargo xtask bench foxglove`: the bridge's overhead on a real graph.
//!
//! Starts the release `foxglove_bridge` beside this binary (its own ROS domain, localhost
//! only, a free port), publishes `geometry_msgs/PointStamped` stamped with the wall
//! clock from an r2r node, and reads it back with WebSocket clients (foxglove.sdk.v1,
//! tokio-tungstenite) and, as the baseline, with an r2r subscription in this process.
//! Prints two markdown tables: latency publish → client (and publish → r2r subscriber)
//! at 1 kHz, through the public port (the front that accepts foxglove.websocket.v1 too)
//! and straight to the SDK's own loopback port, so the front's cost shows; and
//! messages/s delivered to 1 and 4 clients at rising publish rates (both ports). A second
//! bridge serves `wss://` with an access token (a lab made by the `arnie_secure` binary
//! beside this one): its row at 1 kHz against the plain `ws://` one shows what TLS and the
//! token check add. Nothing is asserted: a bench prints.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::{SinkExt, StreamExt};
use r2r::geometry_msgs::msg::{Point, PointStamped};
use r2r::QosProfile;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const TOPIC: &str = "/bench/ping";

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn stamp_ns(cdr: &[u8]) -> Option<u64> {
    // CDR: 4-byte encapsulation, then header.stamp (int32 sec, uint32 nanosec).
    let sec = i32::from_le_bytes(cdr.get(4..8)?.try_into().ok()?);
    let nsec = u32::from_le_bytes(cdr.get(8..12)?.try_into().ok()?);
    Some(sec as u64 * 1_000_000_000 + u64::from(nsec))
}

/// What one WebSocket client saw.
#[derive(Default)]
struct Seen {
    count: AtomicU64,
    latencies_us: Mutex<Vec<f64>>,
}

/// `wss://` with a token: the CA to trust and the token to present.
#[derive(Clone)]
struct Secure {
    connector: tokio_rustls::TlsConnector,
    token: String,
}

async fn client(
    url: String,
    secure: Option<Secure>,
    seen: Arc<Seen>,
    ready: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> Result<(), String> {
    let mut req = url
        .clone()
        .into_client_request()
        .map_err(|e| e.to_string())?;
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "foxglove.sdk.v1".parse().map_err(|_| "header")?,
    );
    let Some(secure) = secure else {
        let (ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .map_err(|e| e.to_string())?;
        return read(ws, seen, ready, stop).await;
    };
    req.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", secure.token)
            .parse()
            .map_err(|_| "header")?,
    );
    let addr = url.trim_start_matches("wss://").to_owned();
    let tcp = tokio::net::TcpStream::connect(&addr)
        .await
        .map_err(|e| e.to_string())?;
    let _ = tcp.set_nodelay(true);
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").map_err(|e| e.to_string())?;
    let tls = secure
        .connector
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())?;
    let (ws, _) = tokio_tungstenite::client_async(req, tls)
        .await
        .map_err(|e| e.to_string())?;
    read(ws, seen, ready, stop).await
}

async fn read<S>(
    mut ws: tokio_tungstenite::WebSocketStream<S>,
    seen: Arc<Seen>,
    ready: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> Result<(), String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut subscribed = false;
    while !stop.load(Ordering::Relaxed) {
        let next = tokio::time::timeout(Duration::from_millis(200), ws.next()).await;
        let msg = match next {
            Err(_) => continue,
            Ok(None) => break,
            Ok(Some(m)) => m.map_err(|e| e.to_string())?,
        };
        match msg {
            Message::Text(t) if !subscribed => {
                let v: serde_json::Value = serde_json::from_str(&t).map_err(|e| e.to_string())?;
                if v["op"] == "advertise" {
                    for ch in v["channels"].as_array().into_iter().flatten() {
                        if ch["topic"] == TOPIC {
                            let sub = serde_json::json!({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": ch["id"]}]});
                            ws.send(Message::Text(sub.to_string().into()))
                                .await
                                .map_err(|e| e.to_string())?;
                            subscribed = true;
                            ready.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }
            }
            Message::Binary(b) if b.first() == Some(&1) && b.len() > 13 => {
                let now = wall_ns();
                seen.count.fetch_add(1, Ordering::Relaxed);
                if let Some(t) = stamp_ns(&b[13..]) {
                    seen.latencies_us
                        .lock()
                        .unwrap()
                        .push(now.saturating_sub(t) as f64 / 1000.0);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Publishes at `rate` Hz for `secs`; returns the number published.
fn publish(publisher: &r2r::Publisher<PointStamped>, rate: f64, secs: f64) -> u64 {
    let start = Instant::now();
    let period = Duration::from_secs_f64(1.0 / rate);
    let mut n = 0u64;
    let total = (rate * secs) as u64;
    while n < total {
        let due = start + period.mul_f64(n as f64);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let t = wall_ns();
        let mut m = PointStamped::default();
        m.header.stamp.sec = (t / 1_000_000_000) as i32;
        m.header.stamp.nanosec = (t % 1_000_000_000) as u32;
        m.header.frame_id = "world".into();
        m.point = Point {
            x: n as f64,
            y: 0.0,
            z: 0.0,
        };
        if publisher.publish(&m).is_ok() {
            n += 1;
        }
    }
    n
}

/// The port in the bridge's "the SDK's own server: ws://127.0.0.1:PORT" log line.
fn sdk_port(line: &str) -> Option<u16> {
    let rest = line.split("the SDK's own server: ws://127.0.0.1:").nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

struct Bridge(Child);

/// Starts the release bridge beside this binary on `port` with `extra` parameters; returns
/// it and the SDK's own port (from its log).
fn start_bridge(port: u16, extra: &[String]) -> (Bridge, u16) {
    let exe = std::env::current_exe()
        .expect("current exe")
        .with_file_name("foxglove_bridge");
    let mut args: Vec<String> = vec![
        "--ros-args".into(),
        "-p".into(),
        format!("port:={port}"),
        "-p".into(),
        "topic_allow:=/bench/.*".into(),
        "-p".into(),
        "discovery_ms:=100".into(),
    ];
    for e in extra {
        args.push("-p".into());
        args.push(e.clone());
    }
    args.extend(["--log-level".into(), "info".into()]);
    let mut child = Command::new(&exe)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e} (build it: cargo build --release -p arnie_foxglove)",
                exe.display()
            )
        });
    // The bridge's log names the SDK's own port behind the front: the bench measures both.
    let log = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut tx = Some(tx);
        for line in std::io::BufReader::new(log).lines().map_while(Result::ok) {
            if let Some(p) = sdk_port(&line) {
                if let Some(tx) = tx.take() {
                    let _ = tx.send(p);
                }
            }
        }
    });
    let bridge = Bridge(child);
    let sdk = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the bridge never logged its SDK port");
    (bridge, sdk)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18765)
}

/// A lab on loopback (`arnie_secure` beside this binary) and an operator token: the
/// `wss://` bridge's parameters and the client's side.
fn lab() -> (Vec<String>, Secure) {
    let dir = std::env::temp_dir().join(format!("foxglove_bench_lab_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sec = std::env::current_exe()
        .expect("current exe")
        .with_file_name("arnie_secure");
    let run = |args: &[&str]| -> String {
        let out = Command::new(&sec)
            .arg("--dir")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run {}: {e} (cargo build --release -p arnie_secure)",
                    sec.display()
                )
            });
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    run(&["init"]);
    run(&["add-host", "bench", "--address", "127.0.0.1"]);
    let token = run(&["token", "bench", "--role", "operator"]);
    let host = dir.join("hosts/bench");
    let params = vec![
        format!("tls_cert:={}", host.join("cert.pem").display()),
        format!("tls_key:={}", host.join("key.pem").display()),
        format!("token_file:={}", dir.join("foxglove_tokens").display()),
    ];
    let connector = arnie_foxglove::ros::tls_connector(&dir.join("ca.pem")).expect("the lab's CA");
    (params, Secure { connector, token })
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // SIGINT for a clean stop, then reap.
        let _ = Command::new("kill")
            .args(["-INT", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

fn main() {
    let domain = (std::process::id() % 80 + 110).to_string();
    std::env::set_var("ROS_DOMAIN_ID", &domain);
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    let port = free_port();
    let (_bridge, sdk) = start_bridge(port, &[]);
    let (secure_params, secure) = lab();
    let tls_port = free_port();
    let (_tls_bridge, _) = start_bridge(tls_port, &secure_params);
    // node_glue's App: the rcl context and node (and libpython kept linked for the wheels).
    let mut app = node_glue::App::new("foxglove_bench").expect("node");
    let node = &mut app.node;
    let qos = QosProfile::default().keep_last(1000);
    let publisher = node
        .create_publisher::<PointStamped>(TOPIC, qos.clone())
        .expect("publisher");
    let mut direct = node
        .subscribe_raw(TOPIC, "geometry_msgs/msg/PointStamped", qos)
        .expect("subscription");
    let direct_lat: Arc<Mutex<Vec<f64>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let spin = {
        let (done, lat) = (done.clone(), direct_lat.clone());
        std::thread::spawn(move || {
            use futures::FutureExt;
            while !done.load(Ordering::Relaxed) {
                app.node.spin_once(Duration::from_millis(2));
                while let Some(Some(b)) = direct.next().now_or_never() {
                    if let Some(t) = stamp_ns(&b) {
                        lat.lock()
                            .unwrap()
                            .push(wall_ns().saturating_sub(t) as f64 / 1000.0);
                    }
                }
            }
        })
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let url = format!("ws://127.0.0.1:{port}");
    let sdk_url = format!("ws://127.0.0.1:{sdk}");
    let tls_url = format!("wss://127.0.0.1:{tls_port}");
    // Warm-up: the bridge discovers the topic while we publish slowly.
    let run = |url: &str, clients: usize, rate: f64, secs: f64| -> (u64, Vec<Arc<Seen>>, f64) {
        let secure = url.starts_with("wss://").then(|| secure.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let ready = Arc::new(AtomicU64::new(0));
        let seen: Vec<Arc<Seen>> = (0..clients).map(|_| Arc::default()).collect();
        let tasks: Vec<_> = seen
            .iter()
            .map(|s| {
                let (url, s, ready, stop) =
                    (url.to_owned(), s.clone(), ready.clone(), stop.clone());
                let secure = secure.clone();
                rt.spawn(async move {
                    loop {
                        match client(
                            url.clone(),
                            secure.clone(),
                            s.clone(),
                            ready.clone(),
                            stop.clone(),
                        )
                        .await
                        {
                            Err(_)
                                if !stop.load(Ordering::Relaxed)
                                    && ready.load(Ordering::SeqCst) == 0 =>
                            {
                                tokio::time::sleep(Duration::from_millis(100)).await
                            }
                            _ => break,
                        }
                    }
                })
            })
            .collect();
        let t0 = Instant::now();
        while ready.load(Ordering::SeqCst) < clients as u64 {
            publish(&publisher, 50.0, 0.1);
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "clients never subscribed"
            );
        }
        // Until every client receives (the bridge's subscription matched our publisher).
        while seen.iter().any(|s| s.count.load(Ordering::Relaxed) == 0) {
            publish(&publisher, 100.0, 0.05);
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "clients never received"
            );
        }
        std::thread::sleep(Duration::from_millis(300));
        for s in &seen {
            s.count.store(0, Ordering::Relaxed);
            s.latencies_us.lock().unwrap().clear();
        }
        direct_lat.lock().unwrap().clear();
        let start = Instant::now();
        let n = publish(&publisher, rate, secs);
        std::thread::sleep(Duration::from_millis(500));
        let elapsed = start.elapsed().as_secs_f64() - 0.5;
        stop.store(true, Ordering::Relaxed);
        for t in tasks {
            let _ = rt.block_on(t);
        }
        (n, seen, elapsed)
    };

    println!("| path (1 kHz, 5 s, 1 client) | messages | p50 [µs] | p99 [µs] |");
    println!("|---|---:|---:|---:|");
    let mut rows = Vec::new();
    for (what, u) in [
        ("foxglove_bridge (front → SDK)", &url),
        ("the SDK's own port (no front)", &sdk_url),
        ("arnie_foxglove wss:// + token (front → SDK)", &tls_url),
    ] {
        let (n, seen, _) = run(u, 1, 1000.0, 5.0);
        let mut ws_lat = seen[0].latencies_us.lock().unwrap().clone();
        let mut ros_lat = direct_lat.lock().unwrap().clone();
        let (wp50, wp99) = (percentile(&mut ws_lat, 0.5), percentile(&mut ws_lat, 0.99));
        let (rp50, rp99) = (
            percentile(&mut ros_lat, 0.5),
            percentile(&mut ros_lat, 0.99),
        );
        println!(
            "| publish → r2r subscriber (baseline) | {}/{n} | {rp50:.0} | {rp99:.0} |",
            ros_lat.len()
        );
        println!(
            "| publish → {what} → WebSocket client | {}/{n} | {wp50:.0} | {wp99:.0} |",
            ws_lat.len()
        );
        println!(
            "| added by the bridge | | {:.0} | {:.0} |",
            wp50 - rp50,
            wp99 - rp99
        );
        rows.push((wp50, wp99));
    }
    println!(
        "| added by the front (front row − no-front row) | | {:.0} | {:.0} |",
        rows[0].0 - rows[1].0,
        rows[0].1 - rows[1].1
    );
    println!(
        "| added by wss:// + token (wss row − ws row) | | {:.0} | {:.0} |",
        rows[2].0 - rows[0].0,
        rows[2].1 - rows[0].1
    );
    println!();
    println!("| port | publish rate [msg/s] | clients | published | received per client (min) | delivered [msg/s per client] | kept up (≥ 99 %) |");
    println!("|---|---:|---:|---:|---:|---:|:---:|");
    for (via, u) in [("public (front)", &url), ("SDK's own (no front)", &sdk_url)] {
        for clients in [1usize, 4] {
            for rate in [1000.0, 2000.0, 5000.0, 10000.0, 20000.0] {
                let (n, seen, elapsed) = run(u, clients, rate, 3.0);
                let min = seen
                    .iter()
                    .map(|s| s.count.load(Ordering::Relaxed))
                    .min()
                    .unwrap_or(0);
                let kept = min as f64 >= 0.99 * n as f64;
                println!(
                    "| {via} | {rate:.0} | {clients} | {n} | {min} | {:.0} | {} |",
                    min as f64 / elapsed.max(1e-9),
                    if kept { "yes" } else { "no" }
                );
                if !kept {
                    break;
                }
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    let _ = spin.join();
}
