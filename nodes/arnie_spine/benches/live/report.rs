//! The markdown report.
use std::thread;

use crate::stats::Stats;
use crate::throughput::Step;
use crate::{Options, TARGET_ADDED_P99_US, TARGET_RATE, WARMUP_S};

#[allow(clippy::too_many_arguments)]
pub(crate) fn print_report(
    o: &Options,
    domain: u32,
    baseline: &Stats,
    spine: &Stats,
    internal: &Stats,
    legacy: &Stats,
    direct: &Stats,
    steps: &[Step],
) {
    let cores = thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    println!("## spine_bridge benchmark\n");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "Load average at the end: {}.",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "One machine ({cores} cores), ROS domain {domain}, LOCALHOST discovery, {}; spine io_thread_rt_priority {}; {} Hz for {} s after {WARMUP_S} s of warm-up; the two paths of (a), and of (c), run at the same time, half a period apart. Latencies in µs.\n",
        std::env::var("RMW_IMPLEMENTATION").unwrap_or_else(|_| "default RMW".into()),
        o.rt_priority,
        o.rate,
        o.seconds
    );
    println!("### (a) latency to a ROS subscriber, and (c) legacy UDP route\n");
    println!(
        "| path | received | not received (counted stale, incl. warm-up) | p50 | p90 | p99 | max |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let row = |name: &str, s: &Stats| {
        let stale = s.stale.map(|n| format!(" ({n})")).unwrap_or_default();
        println!(
            "| {name} | {} | {}{stale} | {:.0} | {:.0} | {:.0} | {:.0} |",
            s.n, s.lost, s.p50, s.p90, s.p99, s.max
        );
    };
    row(
        "(a) baseline: r2r publisher → subscriber (DDS, 2 processes)",
        baseline,
    );
    row("(a) UDP → spine → topic → subscriber", spine);
    row(
        "(a) of which UDP → spine's publish (header stamp)",
        internal,
    );
    println!(
        "| **(a) added by the spine (difference)** | | | **{:+.0}** | {:+.0} | **{:+.0}** | {:+.0} |",
        spine.p50 - baseline.p50,
        spine.p90 - baseline.p90,
        spine.p99 - baseline.p99,
        spine.max - baseline.max
    );
    row("(c) UDP → spine → UDP (legacy route)", legacy);
    row("(c) reference: UDP → UDP, no spine", direct);
    println!();
    println!("### (b) throughput of one input (`simulink`, newest value wins)\n");
    println!("| offered [pkt/s] | sent | achieved [pkt/s] | counted by spine | routed | stale dropped (counted) | uncounted loss | kernel rcvbuf drops | published, seen here |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for s in steps {
        let offered = s
            .offered
            .map(|r| r.to_string())
            .unwrap_or_else(|| "flat out".into());
        let kernel = s
            .kernel_drops
            .map(|k| k.to_string())
            .unwrap_or_else(|| "n/a".into());
        println!(
            "| {offered} | {} | {:.0} | {} | {} | {} | {} | {kernel} | {} |",
            s.sent,
            s.achieved,
            s.received,
            s.routed,
            s.stale,
            s.uncounted_loss() + s.malformed,
            s.published_seen
        );
    }
    // The highest offered rate that was really sent (within 2 %) with no uncounted loss.
    let sustained = steps
        .iter()
        .filter(|s| s.uncounted_loss() == 0 && s.malformed == 0)
        .map(|s| match s.offered {
            Some(rate) if s.achieved >= 0.98 * rate as f64 => rate as f64,
            _ => s.achieved,
        })
        .fold(0.0, f64::max);
    let added = spine.p99 - baseline.p99;
    println!();
    println!("### Against the targets\n");
    println!("| target | result | |");
    println!("| --- | ---: | --- |");
    println!(
        "| added latency p99 < {TARGET_ADDED_P99_US} µs over the DDS baseline | {added:+.0} µs | {} |",
        if added < TARGET_ADDED_P99_US { "met" } else { "NOT met" }
    );
    println!(
        "| the same, measured directly: UDP send → the spine's publish stamp, p99 | {:.0} µs | {} |",
        internal.p99,
        if internal.p99 < TARGET_ADDED_P99_US { "met" } else { "NOT met" }
    );
    println!(
        "| ≥ {TARGET_RATE} pkt/s on one input, no uncounted loss | {sustained:.0} pkt/s | {} |",
        if sustained >= TARGET_RATE as f64 {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "| legacy UDP → UDP route | p50 {:.0} µs, p99 {:.0} µs | |",
        legacy.p50, legacy.p99
    );
}
