//! (a): latency to a ROS subscriber through the spine, against a plain r2r publisher;
//! the paced UDP sender shared with (c).
use std::net::{SocketAddr, UdpSocket};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::collect::Sample;
use crate::stats::{stats, Stats};
use crate::{instant_at, measured_seqs, now_ns, simulink, take, wait_until, BoxError, Options};

/// One paced stream of `simulink(seq_base + k, 0, 0)` datagrams.
pub(crate) struct Stream {
    pub(crate) to: SocketAddr,
    pub(crate) seq_base: u64,
    /// Offset within the period [fraction of a period].
    pub(crate) phase: f64,
}

/// Sends every stream at the rate from `start` for warm-up + `seconds`; returns the
/// send times per stream (index k).
pub(crate) fn send_paced(
    o: &Options,
    seconds: f64,
    sender: &UdpSocket,
    start: Instant,
    streams: &[Stream],
) -> Vec<Vec<i128>> {
    let (_, end) = measured_seqs(o, seconds);
    let period = 1.0 / o.rate as f64;
    let mut sent: Vec<Vec<i128>> = streams
        .iter()
        .map(|_| Vec::with_capacity(end as usize))
        .collect();
    for k in 0..end {
        for (stream, times) in streams.iter().zip(&mut sent) {
            wait_until(start + Duration::from_secs_f64(period * (k as f64 + stream.phase)));
            let bytes = simulink(&[(stream.seq_base + k) as f64, 0.0, 0.0]);
            times.push(now_ns());
            let _ = sender.send_to(&bytes, stream.to);
        }
    }
    thread::sleep(Duration::from_millis(300));
    sent
}

/// (a): the baseline publisher (a child process) and the UDP → spine path at once,
/// half a period apart. Returns (baseline, spine, UDP → spine's publish stamp).
pub(crate) fn measure_topic_latency(
    o: &Options,
    sender: &UdpSocket,
    arm: SocketAddr,
    base_samples: &Mutex<Vec<Sample>>,
    arm_samples: &Mutex<Vec<Sample>>,
) -> Result<(Stats, Stats, Stats), BoxError> {
    take(base_samples);
    take(arm_samples);
    // Far enough ahead for the child to start and match its subscriber.
    let start_ns = now_ns() + 5_000_000_000;
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "--baseline-publisher",
            "--seconds",
            &o.seconds.to_string(),
            "--rate",
            &o.rate.to_string(),
        ])
        .args(["--start-ns", &start_ns.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()?;
    let sent = send_paced(
        o,
        o.seconds,
        sender,
        instant_at(start_ns),
        &[Stream {
            to: arm,
            seq_base: 0,
            phase: 0.5,
        }],
    );
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("the baseline publisher failed: {status}").into());
    }
    let (first, end) = measured_seqs(o, o.seconds);
    let expected = (end - first) as usize;
    let measured = |(seq, _, _): &Sample| (first..end).contains(seq);
    let baseline = take(base_samples)
        .into_iter()
        .filter(measured)
        .map(|(_, t, stamp)| (t - stamp) as f64 / 1000.0)
        .collect();
    let sent = sent.into_iter().next().unwrap_or_default();
    let got: Vec<Sample> = take(arm_samples).into_iter().filter(measured).collect();
    let total = got
        .iter()
        .filter_map(|(seq, t, _)| Some((t - sent.get(*seq as usize)?) as f64 / 1000.0))
        .collect();
    let internal = got
        .iter()
        .filter_map(|(seq, _, st)| Some((st - sent.get(*seq as usize)?) as f64 / 1000.0))
        .collect();
    Ok((
        stats(baseline, expected),
        stats(total, expected),
        stats(internal, expected),
    ))
}
