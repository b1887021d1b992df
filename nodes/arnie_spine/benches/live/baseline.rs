//! The baseline publisher, a child process of the benchmark (`--baseline-publisher`).
use std::path::PathBuf;
use std::thread;
use std::time::{Duration, Instant};

use node_glue::r2r::geometry_msgs::msg::PointStamped;
use node_glue::{qos, App};

use crate::{instant_at, measured_seqs, wait_until, BoxError, Options, BASELINE_TOPIC};

/// `--baseline-publisher --seconds S --rate HZ [--start-ns T]`: publishes PointStamped
/// (x = seq, stamped now) on the baseline topic for warm-up + S seconds, from wall-clock
/// time T (once a subscriber is matched).
pub(crate) fn baseline_publisher(args: &[String]) -> Result<(), BoxError> {
    let mut o = Options {
        seconds: 10.0,
        rate: 1000,
        spine: PathBuf::new(),
        rt_priority: 0,
    };
    let mut start_ns = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--seconds", Some(v)) => o.seconds = v.parse()?,
            ("--rate", Some(v)) => o.rate = v.parse()?,
            ("--start-ns", Some(v)) => start_ns = Some(v.parse::<i128>()?),
            _ => return Err(format!("baseline publisher: bad option {a:?}").into()),
        }
    }
    let mut app = App::new("spine_bench_baseline")?;
    let publisher = app
        .node
        .create_publisher::<PointStamped>(BASELINE_TOPIC, qos::sensor())?;
    let trigger = app.shutdown_trigger();
    let spinner = thread::spawn(move || app.spin());
    let end = Instant::now() + Duration::from_secs(30);
    while publisher
        .get_inter_process_subscription_count()
        .unwrap_or(0)
        == 0
    {
        if Instant::now() > end {
            trigger();
            return Err("baseline publisher: no subscriber matched".into());
        }
        thread::sleep(Duration::from_millis(10));
    }
    let (_, count) = measured_seqs(&o, o.seconds);
    let period = 1.0 / o.rate as f64;
    let start = start_ns.map(instant_at).unwrap_or_else(Instant::now);
    for seq in 0..count {
        wait_until(start + Duration::from_secs_f64(period * seq as f64));
        // Built like the spine builds its messages (same size, same work).
        let mut msg = PointStamped {
            header: node_glue::time::header("world"),
            ..Default::default()
        };
        msg.point.x = seq as f64;
        if let Err(e) = publisher.publish(&msg) {
            eprintln!("baseline publisher: {e}");
        }
    }
    thread::sleep(Duration::from_millis(100));
    trigger();
    let _ = spinner.join();
    Ok(())
}
