//! Playback: `arnie_bag play` of a recorded bag into raw subscriptions here, and the
//! timing error of each message.
use super::*;

pub(crate) struct Playback {
    pub(crate) rate: f64,
    pub(crate) in_bag: usize,
    pub(crate) received: usize,
    /// |error| in ms, sorted, of when the player published each message (the
    /// middleware's source timestamp): the player's own timing.
    pub(crate) errors_ms: Vec<f64>,
    /// The same of when the bench's reader received it (the middleware's received
    /// timestamp): the player's timing plus DDS delivery.
    pub(crate) delivered_ms: Vec<f64>,
}

pub(crate) type RawStream = Box<dyn Stream<Item = r2r::RawMessage> + Unpin>;

/// Header stamp bytes of a CDR message whose first field is a `std_msgs/Header`.
pub(crate) fn stamp_key(data: &[u8]) -> Option<[u8; 8]> {
    data.get(4..12)?.try_into().ok()
}

pub(crate) fn play(
    o: &Options,
    node: &mut r2r::Node,
    bag: &Path,
    rate: f64,
    log: &Path,
) -> Result<Playback, BoxError> {
    let b = Bag::open(bag)?;
    // (topic, stamp) -> log_time
    let mut log_times: HashMap<(String, [u8; 8]), u64> = HashMap::new();
    for m in b.messages() {
        let m = m?;
        if let Some(k) = stamp_key(&m.data) {
            log_times.insert((m.topic.to_string(), k), m.log_time);
        }
    }
    let best_effort = QosProfile::default().best_effort().keep_last(1000);
    let mut subs: Vec<(String, RawStream)> = Vec::new();
    // The counted raw subscription: every waiting message per spin, each with the
    // middleware's source and received timestamps (so the bench's own loop is not
    // measured), overflows counted.
    let dropped = Arc::new(AtomicU64::new(0));
    for t in b.topics() {
        let s = node_glue::typesupport::subscribe(
            node,
            &t.metadata.name,
            &t.metadata.type_name,
            best_effort.clone(),
            10_000,
            dropped.clone(),
        )?;
        subs.push((t.metadata.name.clone(), Box::new(s)));
    }
    let out = std::fs::File::create(log)?;
    let mut child = Command::new(&o.arnie_bag)
        .arg("play")
        .arg(bag)
        .args([
            "-r",
            &rate.to_string(),
            "--wait-for-subscribers",
            "-d",
            "1",
            "--disable-keyboard-controls",
        ])
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    // (source timestamp, received timestamp, log time) of each message that came back.
    let mut got: Vec<(i64, i64, u64)> = Vec::new();
    let mut take = |subs: &mut Vec<(String, RawStream)>| {
        for (topic, s) in subs.iter_mut() {
            while let Some(Some(m)) = s.next().now_or_never() {
                if let Some(t) = stamp_key(&m.data).and_then(|k| log_times.get(&(topic.clone(), k)))
                {
                    got.push((m.source_timestamp, m.received_timestamp, *t));
                }
            }
        }
    };
    let deadline = Instant::now()
        + Duration::from_secs_f64(b.metadata().duration_ns as f64 / 1e9 / rate + 60.0);
    loop {
        node.spin_once(Duration::from_millis(2));
        take(&mut subs);
        if let Some(status) = child.try_wait()? {
            if !status.success() {
                return Err(format!(
                    "arnie_bag play exited with {status} (log: {})",
                    log.display()
                )
                .into());
            }
            // Its publishers linger a second after the last message: drain, then stop.
            let end = Instant::now() + Duration::from_millis(300);
            while Instant::now() < end {
                node.spin_once(Duration::from_millis(5));
                take(&mut subs);
            }
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("arnie_bag play did not finish".into());
        }
    }
    drop(subs);
    if dropped.load(Ordering::Relaxed) > 0 {
        eprintln!(
            "bag_bench: {} messages overflowed the bench's queues",
            dropped.load(Ordering::Relaxed)
        );
    }
    got.sort_by_key(|m| m.2);
    // |(stamp − first stamp) − (log time − first log time) / rate|, in ms, sorted.
    let errors = |stamp: fn(&(i64, i64, u64)) -> i64| -> Vec<f64> {
        let Some(first) = got.first() else {
            return Vec::new();
        };
        let (s0, t0) = (stamp(first), first.2);
        let mut e: Vec<f64> = got
            .iter()
            .map(|m| {
                let wall = (stamp(m) - s0) as f64 / 1e9;
                let due = (m.2 - t0) as f64 / 1e9 / rate;
                (wall - due).abs() * 1e3
            })
            .collect();
        e.sort_by(f64::total_cmp);
        e
    };
    Ok(Playback {
        rate,
        in_bag: log_times.len(),
        received: got.len(),
        errors_ms: errors(|m| m.0),
        delivered_ms: errors(|m| m.1),
    })
}

pub(crate) fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The playback-timing table.
pub(crate) fn print_playback(plays: &[Playback]) {
    println!("\n### Playback timing (`arnie_bag play` of the demo-rate bag; error = time since the first message vs log_time since the first / rate; published = the middleware's source timestamp, delivered = the bench reader's received timestamp)\n");
    println!("| rate | messages in bag | received | published: error p50 [ms] | p99 [ms] | max [ms] | delivered: error p50 [ms] | p99 [ms] | max [ms] |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for p in plays {
        println!(
            "| `-r {}` | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            p.rate,
            p.in_bag,
            p.received,
            pct(&p.errors_ms, 0.5),
            pct(&p.errors_ms, 0.99),
            p.errors_ms.last().copied().unwrap_or(f64::NAN),
            pct(&p.delivered_ms, 0.5),
            pct(&p.delivered_ms, 0.99),
            p.delivered_ms.last().copied().unwrap_or(f64::NAN)
        );
    }
}
