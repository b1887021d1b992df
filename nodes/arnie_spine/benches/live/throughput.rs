//! (b): the highest packet rate one input sustains with no uncounted loss.
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::collect::{delta, settled, udp_rcvbuf_errors, Counters, Sample};
use crate::{simulink, take, RATES, STEP_S};

#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) offered: Option<u64>,
    pub(crate) sent: u64,
    pub(crate) achieved: f64,
    pub(crate) received: u64,
    pub(crate) routed: u64,
    pub(crate) stale: u64,
    pub(crate) malformed: u64,
    pub(crate) published_seen: u64,
    pub(crate) kernel_drops: Option<u64>,
}

impl Step {
    pub(crate) fn uncounted_loss(&self) -> u64 {
        self.sent.saturating_sub(self.received)
    }
}

pub(crate) fn measure_throughput(
    sender: &UdpSocket,
    to: SocketAddr,
    counters: &Mutex<Counters>,
    published: &AtomicU64,
    samples: &Mutex<Vec<Sample>>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut seq: u64 = 10_000_000; // distinct from the latency runs: never a duplicate
    for offered in RATES.iter().copied().map(Some).chain([None]) {
        let before = settled(counters, "input.arm", Duration::from_secs(3));
        let kernel_before = udp_rcvbuf_errors();
        let published_before = published.load(Ordering::Relaxed);
        let start = Instant::now();
        let length = Duration::from_secs_f64(STEP_S);
        let mut sent: u64 = 0;
        loop {
            let elapsed = start.elapsed();
            if elapsed >= length {
                break;
            }
            let due = match offered {
                Some(rate) => (elapsed.as_secs_f64() * rate as f64) as u64,
                None => sent + 64,
            };
            while sent < due {
                let bytes = simulink(&[seq as f64, 1.0, 2.0]);
                seq += 1;
                if sender.send_to(&bytes, to).is_ok() {
                    sent += 1;
                }
            }
            if offered.is_some() {
                thread::sleep(Duration::from_micros(200));
            }
        }
        let achieved = sent as f64 / start.elapsed().as_secs_f64();
        let after = settled(counters, "input.arm", Duration::from_secs(3));
        let delta = |k: &str| delta(&before, &after, k);
        let malformed = after
            .iter()
            .filter(|(k, _)| k.starts_with("malformed."))
            .map(|(k, v)| v.saturating_sub(before.get(k).copied().unwrap_or(0)))
            .sum();
        let step = Step {
            offered,
            sent,
            achieved,
            received: delta("received"),
            routed: delta("forwarded") + delta("deduplicated"),
            stale: delta("stale_dropped"),
            malformed,
            published_seen: published.load(Ordering::Relaxed) - published_before,
            kernel_drops: kernel_before
                .zip(udp_rcvbuf_errors())
                .map(|(b, a)| a.saturating_sub(b)),
        };
        eprintln!("spine_bench:     {step:?}");
        take(samples); // not used here: only counted
        steps.push(step);
    }
    steps
}
