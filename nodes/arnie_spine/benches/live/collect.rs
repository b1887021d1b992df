//! Collectors: messages taken off r2r streams on their own threads, the spine's
//! `/diagnostics` counters, and the kernel's UDP drop count.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use futures::StreamExt;
use node_glue::r2r::{diagnostic_msgs::msg::DiagnosticArray, geometry_msgs::msg::PointStamped};

use crate::{now_ns, stamp_ns};

/// One received message: (sequence number, receive time, header stamp), in ns.
pub(crate) type Sample = (u64, i128, i128);

/// Takes messages off an r2r stream on its own thread and timestamps them on arrival.
pub(crate) fn collect_points(
    stream: impl futures::Stream<Item = PointStamped> + Unpin + Send + 'static,
    seq_of: fn(&PointStamped) -> u64,
) -> (Arc<Mutex<Vec<Sample>>>, Arc<AtomicU64>) {
    let samples = Arc::new(Mutex::new(Vec::with_capacity(32_768)));
    let count = Arc::new(AtomicU64::new(0));
    let (s, c) = (samples.clone(), count.clone());
    thread::spawn(move || {
        let mut stream = stream;
        while let Some(msg) = futures::executor::block_on(stream.next()) {
            let t = now_ns();
            c.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut v) = s.lock() {
                v.push((seq_of(&msg), t, stamp_ns(&msg)));
            }
        }
    });
    (samples, count)
}

/// The latest counters of every spine interface, from /diagnostics.
#[derive(Clone, Default)]
pub(crate) struct Counters {
    /// `input.arm` → counter → value.
    pub(crate) values: HashMap<String, HashMap<String, u64>>,
    pub(crate) updates: u64,
}

impl Counters {
    pub(crate) fn of(&self, interface: &str) -> HashMap<String, u64> {
        self.values.get(interface).cloned().unwrap_or_default()
    }
}

pub(crate) fn collect_diagnostics(
    stream: impl futures::Stream<Item = DiagnosticArray> + Unpin + Send + 'static,
) -> Arc<Mutex<Counters>> {
    let latest = Arc::new(Mutex::new(Counters::default()));
    let l = latest.clone();
    thread::spawn(move || {
        let mut stream = stream;
        while let Some(msg) = futures::executor::block_on(stream.next()) {
            let Ok(mut c) = l.lock() else { return };
            for s in &msg.status {
                if let Some(interface) = s.name.strip_prefix("/spine_bridge: ") {
                    let values = s
                        .values
                        .iter()
                        .filter_map(|kv| Some((kv.key.clone(), kv.value.parse().ok()?)))
                        .collect();
                    c.values.insert(interface.to_string(), values);
                }
            }
            c.updates += 1;
        }
    });
    latest
}

/// The counters of `interface` once they stop moving (two reports in a row with the
/// same `received`).
pub(crate) fn settled(
    counters: &Mutex<Counters>,
    interface: &str,
    timeout: Duration,
) -> HashMap<String, u64> {
    let end = Instant::now() + timeout;
    let mut last: Option<(u64, u64)> = None; // (updates, received)
    loop {
        let (updates, values) = counters
            .lock()
            .map(|c| (c.updates, c.of(interface)))
            .unwrap_or_default();
        let received = values.get("received").copied().unwrap_or(0);
        match last {
            Some((u, r)) if updates > u && received == r => return values,
            Some((u, _)) if updates == u => {}
            _ => last = Some((updates, received)),
        }
        if Instant::now() > end {
            return values;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// `after - before` of one counter.
pub(crate) fn delta(before: &HashMap<String, u64>, after: &HashMap<String, u64>, key: &str) -> u64 {
    after
        .get(key)
        .copied()
        .unwrap_or(0)
        .saturating_sub(before.get(key).copied().unwrap_or(0))
}

/// The kernel's count of UDP datagrams dropped for a full receive buffer (all sockets).
pub(crate) fn udp_rcvbuf_errors() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut lines = text.lines().filter(|l| l.starts_with("Udp:"));
    let header: Vec<&str> = lines.next()?.split_whitespace().collect();
    let values: Vec<&str> = lines.next()?.split_whitespace().collect();
    let k = header.iter().position(|h| *h == "RcvbufErrors")?;
    values.get(k)?.parse().ok()
}
