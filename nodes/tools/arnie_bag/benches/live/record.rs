//! Recording: publishing a load into `arnie_bag record`, stopping it, and counting what
//! the bag holds.
use super::*;

pub(crate) fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// utime + stime of a process, in seconds.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Some(ticks as f64 / if hz > 0 { hz as f64 } else { 100.0 })
}

pub(crate) fn stop(child: &mut Child) -> Result<(), BoxError> {
    // SAFETY: kill sends SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end {
        if let Some(status) = child.try_wait()? {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("arnie_bag exited with {status}").into())
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("arnie_bag did not stop within 30 s of SIGINT".into())
}

pub(crate) struct Recording {
    pub(crate) label: String,
    pub(crate) seconds: f64,
    /// (topic, rate, published, recorded)
    pub(crate) topics: Vec<(&'static str, f64, u64, u64)>,
    pub(crate) cpu_percent: f64,
    pub(crate) bag: PathBuf,
}

/// Publishes `loads` for `seconds` into `arnie_bag record`; counts what the bag holds.
pub(crate) fn record(
    o: &Options,
    node: &mut r2r::Node,
    label: &str,
    loads: &[TopicLoad],
    seconds: f64,
    bag: &Path,
    log: &Path,
) -> Result<Recording, BoxError> {
    let pubs = loads
        .iter()
        .map(|l| node.create_publisher_untyped(l.name, l.type_name, l.qos.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let out = std::fs::File::create(log)?;
    let mut child = Command::new(&o.arnie_bag)
        .arg("record")
        .args(loads.iter().map(|l| l.name))
        .arg("-o")
        .arg(bag)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    // Discovery: every publisher matched, then a second for the recorder's side.
    let deadline = Instant::now() + Duration::from_secs(60);
    while pubs
        .iter()
        .any(|p| p.get_inter_process_subscription_count().unwrap_or(0) == 0)
    {
        if Instant::now() > deadline {
            let _ = stop(&mut child);
            return Err(format!("the recorder did not subscribe (log: {})", log.display()).into());
        }
        node.spin_once(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(1));

    let start = Instant::now();
    // Messages of this run (a latched publisher of an earlier run may still deliver its
    // last message to this recorder): header stamps from here on.
    let first_stamp = wall_ns();
    let cpu0 = cpu_seconds(child.id()).unwrap_or(0.0);
    let mut next: Vec<Instant> = vec![start; loads.len()];
    let mut published = vec![0u64; loads.len()];
    let mut last_stamp = vec![0u64; loads.len()];
    let end = start + Duration::from_secs_f64(seconds);
    loop {
        let (i, due) = next
            .iter()
            .enumerate()
            .min_by_key(|(_, t)| **t)
            .map(|(i, t)| (i, *t))
            .expect("topics");
        if due >= end {
            break;
        }
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        // Each message of a topic gets its own stamp (playback matches on it).
        let ns = wall_ns().max(last_stamp[i] + 1);
        last_stamp[i] = ns;
        let data = (loads[i].make)(published[i], stamp(ns));
        if pubs[i].publish_raw(&data).is_ok() {
            published[i] += 1;
        }
        // Drift-free schedule; a late sender catches up at once (no loss from us).
        next[i] = start + Duration::from_secs_f64((published[i] as f64 + 1.0) / loads[i].rate_hz);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds(child.id()).unwrap_or(0.0) - cpu0;
    // Reliable topics: give the recorder a moment for the last messages, then SIGINT.
    let linger = Instant::now() + Duration::from_secs(1);
    while Instant::now() < linger {
        node.spin_once(Duration::from_millis(10));
    }
    stop(&mut child)?;
    drop(pubs);
    let counts = count_messages(bag, first_stamp)?;
    Ok(Recording {
        label: label.to_string(),
        seconds: elapsed,
        topics: loads
            .iter()
            .zip(&published)
            .map(|(l, p)| {
                (
                    l.name,
                    l.rate_hz,
                    *p,
                    counts.get(l.name).copied().unwrap_or(0),
                )
            })
            .collect(),
        cpu_percent: 100.0 * cpu / elapsed,
        bag: bag.to_path_buf(),
    })
}

/// The sweep's table: per topic count and asked rate, what was published and recorded,
/// and the recorder's CPU.
pub(crate) fn print_sweep(runs: &[(usize, f64, Recording)]) {
    println!(
        "### Recorder loss-free rate (100-byte messages, reliable keep-last 1000, {} build)\n",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!("| topics | asked [msg/s] | published [msg/s] | published | recorded | lost | recorder CPU [% of a core] | CPU per 1 000 msg/s [%] |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (topics, asked, r) in runs {
        let p: u64 = r.topics.iter().map(|t| t.2).sum();
        let rec: u64 = r.topics.iter().map(|t| t.3).sum();
        let rate = p as f64 / r.seconds;
        println!(
            "| {topics} | {asked:.0} | {rate:.0} | {p} | {rec} | {} | {:.1} | {:.2} |",
            p.saturating_sub(rec),
            r.cpu_percent,
            r.cpu_percent / (rate / 1000.0)
        );
    }
    for topics in [1usize, 20] {
        let best = runs
            .iter()
            .filter(|(t, _, r)| *t == topics && r.topics.iter().all(|x| x.2 == x.3))
            .map(|(_, _, r)| r.topics.iter().map(|t| t.2).sum::<u64>() as f64 / r.seconds)
            .fold(0.0f64, f64::max);
        println!("\nHighest rate with nothing lost, {topics} topic(s): {best:.0} msg/s");
    }
    println!();
}

/// Messages per topic whose header stamp is `from_ns` or later.
pub(crate) fn count_messages(bag: &Path, from_ns: u64) -> Result<HashMap<String, u64>, BoxError> {
    let b = Bag::open(bag)?;
    let mut n = HashMap::new();
    for m in b.messages() {
        let m = m?;
        if stamp_key(&m.data).is_some_and(|k| stamp_ns(k) >= from_ns) {
            *n.entry(m.topic.to_string()).or_insert(0) += 1;
        }
    }
    Ok(n)
}

/// The stamp bytes (little-endian CDR `int32 sec`, `uint32 nanosec`) in ns.
pub(crate) fn stamp_ns(k: [u8; 8]) -> u64 {
    let sec = i32::from_le_bytes([k[0], k[1], k[2], k[3]]).max(0) as u64;
    let nsec = u32::from_le_bytes([k[4], k[5], k[6], k[7]]) as u64;
    sec * 1_000_000_000 + nsec
}

/// The recording and recorder-CPU tables of the runs at the demo's topics.
pub(crate) fn print_recordings(runs: &[&Recording]) {
    println!(
        "### Recording (`arnie_bag record`, {} build; publishers in bag_bench, one process)\n",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!("| load | topic | rate [Hz] | published | recorded | lost |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for r in runs {
        let (mut p, mut rec) = (0, 0);
        for (name, rate, published, recorded) in &r.topics {
            println!(
                "| {} | `{name}` | {rate:.1} | {published} | {recorded} | {} |",
                r.label,
                published.saturating_sub(*recorded)
            );
            p += published;
            rec += recorded;
        }
        println!(
            "| **{}** | **all, {:.1} s** | {:.0} msg/s | {p} | {rec} | **{}** |",
            r.label,
            r.seconds,
            p as f64 / r.seconds,
            p.saturating_sub(rec)
        );
    }
    println!("\n### Recorder CPU (utime + stime from /proc/<pid>/stat over the publishing time)\n");
    println!("| load | messages/s | recorder CPU [% of one core] |");
    println!("| --- | ---: | ---: |");
    for r in runs {
        let n: u64 = r.topics.iter().map(|t| t.2).sum();
        println!(
            "| {} | {:.0} | {:.1} |",
            r.label,
            n as f64 / r.seconds,
            r.cpu_percent
        );
    }
}
