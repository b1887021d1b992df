//! (c): the legacy UDP → spine → UDP route, against plain UDP → UDP.
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::latency::{send_paced, Stream};
use crate::stats::{stats, Stats};
use crate::{measured_seqs, now_ns, Options};

/// Receives on the echo socket and timestamps every datagram (seq = first value).
pub(crate) struct Echo {
    pub(crate) samples: Arc<Mutex<Vec<(u64, i128)>>>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) thread: thread::JoinHandle<()>,
}

impl Echo {
    pub(crate) fn start(socket: UdpSocket) -> Echo {
        let samples = Arc::new(Mutex::new(Vec::with_capacity(32_768)));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (samples.clone(), stop.clone());
        let _ = socket.set_read_timeout(Some(Duration::from_millis(50)));
        let thread = thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !st.load(Ordering::Relaxed) {
                if let Ok(n) = socket.recv(&mut buf) {
                    let t = now_ns();
                    if n >= 8 {
                        let mut first = [0u8; 8];
                        first.copy_from_slice(&buf[..8]);
                        if let Ok(mut v) = s.lock() {
                            v.push((f64::from_le_bytes(first).round() as u64, t));
                        }
                    }
                }
            }
        });
        Echo {
            samples,
            stop,
            thread,
        }
    }

    pub(crate) fn take(&self) -> Vec<(u64, i128)> {
        self.samples
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }

    pub(crate) fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// (c): UDP → spine → UDP and plain UDP → UDP at once, half a period apart.
pub(crate) fn measure_udp(
    o: &Options,
    sender: &UdpSocket,
    legacy: SocketAddr,
    echo_addr: SocketAddr,
    echo: &Echo,
) -> (Stats, Stats) {
    pub(crate) const DIRECT: u64 = 1_000_000;
    echo.take();
    let streams = [
        Stream {
            to: legacy,
            seq_base: 0,
            phase: 0.0,
        },
        Stream {
            to: echo_addr,
            seq_base: DIRECT,
            phase: 0.5,
        },
    ];
    let sent = send_paced(
        o,
        o.seconds,
        sender,
        Instant::now() + Duration::from_millis(10),
        &streams,
    );
    let (first, end) = measured_seqs(o, o.seconds);
    let got = echo.take();
    let latencies = |base: u64, times: &[i128]| -> Vec<f64> {
        got.iter()
            .filter(|(seq, _)| (base + first..base + end).contains(seq))
            .filter_map(|(seq, t)| Some((t - times.get((seq - base) as usize)?) as f64 / 1000.0))
            .collect()
    };
    let expected = (end - first) as usize;
    let none = Vec::new();
    (
        stats(latencies(0, sent.first().unwrap_or(&none)), expected),
        stats(latencies(DIRECT, sent.get(1).unwrap_or(&none)), expected),
    )
}
