//! `arnie_bag record`: discovery, raw subscriptions, and a writer thread.
//!
//! Any message type installed on `AMENT_PREFIX_PATH` is recorded: its type support is
//! loaded at run time (`node_glue::typesupport`), not taken from r2r's compiled set.
//! The spin thread owns the node: it spins, drains every raw subscription right after
//! each `spin_once`, and sends each message with the middleware's receive time (rosbag2's
//! `log_time`) and the publisher's send time to the writer thread over a bounded channel.
//! Each subscription's own queue holds `READER_DEPTH` messages and counts what overflows
//! it; a message that finds the writer's channel full is counted too. Both are lost
//! messages of their topic (printed at exit and stored in the bag's metadata). Messages
//! lost before rcl hands them over (DDS history overflow) are invisible here, as they are
//! to rosbag2.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::{FutureExt, Stream, StreamExt};
use node_glue::App;

use super::convert;
use super::services::RecorderServices;
use super::term::Keyboard;
use super::RECORDER_NODE;
use crate::cli::RecordArgs;
use crate::filter::Skip;
use crate::keys::Key;
use crate::snapshot::{Cached, Pushed, SnapshotCache};
use crate::{DefinitionSource, Qos, RecordReport, Recorder, TopicSpec};
use r2r::rosbag2_interfaces::msg::WriteSplitEvent;

/// Keep-last depth of each recording subscription (1 s of a 1 kHz topic).
const READER_DEPTH: u64 = 1000;
/// Messages waiting for the writer thread before new ones are counted lost.
const WRITER_QUEUE: usize = 20_000;

enum ToWriter {
    /// A new topic; its index is the number of topics sent before it.
    Topic(Box<TopicSpec>),
    Message {
        topic: usize,
        recv_ns: u64,
        send_ns: u64,
        data: Vec<u8>,
    },
    Lost {
        topic: usize,
        n: u64,
    },
    /// `~/split_bagfile`: close the file, open the next.
    Split,
    /// `~/snapshot`: write what the snapshot cache holds.
    Snapshot,
}

/// A split done by the writer (on request, or by size or duration): closed, opened.
type SplitEvent = (String, String);

type RawStream = Box<dyn Stream<Item = r2r::RawMessage> + Unpin + Send>;

struct Subscribed {
    index: usize,
    name: String,
    stream: RawStream,
    received: u64,
    lost: u64,
    /// Overflows of the subscription's own queue (counted by r2r, read here).
    overflowed: Arc<AtomicU64>,
    overflow_seen: u64,
    /// Messages received before the first /clock with --use-sim-time (not written).
    before_clock: u64,
}

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Records until SIGINT/SIGTERM; returns the exit code (0, 1 when the bag could not be
/// created or written).
pub fn run(args: RecordArgs) -> u8 {
    let mut app = match super::start(&args.node, RECORDER_NODE, args.use_sim_time) {
        Some(a) => a,
        None => return 1,
    };
    let recorder = match Recorder::create(args.recorder.clone()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("arnie_bag: {e}");
            return 1;
        }
    };
    // record and play run their own loop on the node.
    app.shutdown_on_signals();
    let (tx, rx) = sync_channel(WRITER_QUEUE);
    let (split_tx, split_rx) = std::sync::mpsc::channel::<SplitEvent>();
    let writer = std::thread::Builder::new()
        .name("arnie_bag-writer".into())
        .spawn({
            let cache = args.snapshot_cache;
            move || write_loop(recorder, rx, split_tx, cache)
        });
    let writer = match writer {
        Ok(w) => w,
        Err(e) => {
            eprintln!("arnie_bag: cannot start the writer thread: {e}");
            return 1;
        }
    };
    let subs = spin_loop(&mut app, &args, &tx, &split_rx);
    // The last counts go with a blocking send: the writer is draining.
    for s in &subs {
        if s.lost > 0 {
            let _ = tx.send(ToWriter::Lost {
                topic: s.index,
                n: s.lost,
            });
        }
    }
    drop(tx);
    let received: u64 = subs.iter().map(|s| s.received).sum();
    let code = match writer.join() {
        Ok(Ok(report)) => {
            println!("{report}");
            println!("  ({received} received from the graph; lost = a subscription queue or the writer queue full)");
            0
        }
        Ok(Err(e)) => {
            eprintln!("arnie_bag: {e}");
            1
        }
        Err(_) => {
            eprintln!("arnie_bag: the writer thread failed");
            1
        }
    };
    // The bag is written: the node's teardown is bounded from here (node_glue::exit).
    app.close(i32::from(code));
    code
}

fn write_loop(
    mut rec: Recorder,
    rx: Receiver<ToWriter>,
    splits: std::sync::mpsc::Sender<SplitEvent>,
    snapshot_cache: Option<usize>,
) -> crate::Result<RecordReport> {
    let start = Instant::now();
    let mut cache = snapshot_cache.map(SnapshotCache::<crate::TopicId>::new);
    if let Some(bytes) = snapshot_cache {
        node_glue::log_info!(
            "snapshot mode: keeping the last {bytes} bytes of messages; ~/snapshot writes them"
        );
    }
    let mut ids = Vec::new();
    let mut failed: Option<crate::BagError> = None;
    loop {
        let got = rx.recv_timeout(Duration::from_millis(100));
        let msg = match got {
            Ok(m) => Some(m),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match msg {
            Some(ToWriter::Topic(spec)) => {
                let name = spec.name.clone();
                match rec.add_topic(*spec) {
                    Ok(id) => ids.push(Some(id)),
                    Err(e) => {
                        node_glue::log_warn!("not recording {name}: {e}");
                        ids.push(None);
                    }
                }
            }
            Some(ToWriter::Message {
                topic,
                recv_ns,
                send_ns,
                data,
            }) => {
                if let Some(Some(id)) = ids.get(topic) {
                    if let Some(c) = cache.as_mut() {
                        let m = Cached {
                            topic: *id,
                            recv_ns,
                            send_ns,
                            data,
                        };
                        if c.push(m) == Pushed::TooLarge {
                            rec.count_lost(*id, 1);
                            node_glue::log_warn!(
                                "a message larger than the snapshot cache was dropped ({} so far)",
                                c.too_large
                            );
                        }
                    } else {
                        write_one(&mut rec, &mut failed, *id, recv_ns, send_ns, &data);
                    }
                }
            }
            Some(ToWriter::Lost { topic, n }) => {
                if let Some(Some(id)) = ids.get(topic) {
                    rec.count_lost(*id, n);
                }
            }
            Some(ToWriter::Split) if failed.is_none() => {
                if let Err(e) = rec.split() {
                    node_glue::log_error!("writing stopped: {e}");
                    failed = Some(e);
                }
            }
            Some(ToWriter::Split) => {}
            Some(ToWriter::Snapshot) => {
                if let Some(c) = cache.as_mut() {
                    let snap = c.take();
                    node_glue::log_info!("snapshot: writing {} message(s)", snap.len());
                    for m in snap {
                        write_one(
                            &mut rec,
                            &mut failed,
                            m.topic,
                            m.recv_ns,
                            m.send_ns,
                            &m.data,
                        );
                    }
                }
            }
            None => {}
        }
        for (closed, opened) in rec.take_splits() {
            let _ = splits.send((closed.display().to_string(), opened.display().to_string()));
        }
        if failed.is_none() {
            let now = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            if let Err(e) = rec.tick(now) {
                node_glue::log_error!("writing stopped: {e}");
                failed = Some(e);
            }
        }
    }
    if let Some(c) = &cache {
        node_glue::log_info!(
            "snapshot mode: {} message(s) pushed out of the cache by newer ones; {} left in it \
             at exit, not written (no ~/snapshot since), as rosbag2 does",
            c.evicted,
            c.len()
        );
    }
    let report = rec.finish()?;
    match failed {
        Some(e) => {
            eprintln!("{report}");
            Err(e)
        }
        None => Ok(report),
    }
}

/// Writes one message; the first failure stops writing (later messages are counted lost).
fn write_one(
    rec: &mut Recorder,
    failed: &mut Option<crate::BagError>,
    id: crate::TopicId,
    recv_ns: u64,
    send_ns: u64,
    data: &[u8],
) {
    if failed.is_some() {
        rec.count_lost(id, 1);
    } else if let Err(e) = rec.write(id, recv_ns, send_ns, data) {
        node_glue::log_error!("writing stopped: {e}");
        rec.count_lost(id, 1);
        *failed = Some(e);
    }
}

/// Spins, discovers, drains; returns the subscriptions with their counts at shutdown.
fn spin_loop(
    app: &mut App,
    args: &RecordArgs,
    tx: &SyncSender<ToWriter>,
    splits: &Receiver<SplitEvent>,
) -> Vec<Subscribed> {
    let down = app.shutdown();
    let mut defs = DefinitionSource::from_env();
    let mut subs: Vec<Subscribed> = Vec::new();
    // Topics decided on (subscribed, skipped for good, or refused): never looked at again.
    let mut done: HashSet<String> = HashSet::new();
    let mut warned: HashSet<String> = HashSet::new();
    let mut paused = args.start_paused;
    let mut keyboard = Keyboard::open();
    if paused {
        node_glue::log_info!("recording paused: press SPACE to start");
    }
    let sim_clock = if args.use_sim_time {
        node_glue::log_info!(
            "--use-sim-time: log times from /clock; nothing is written before the first"
        );
        app.clock()
    } else {
        None
    };
    // rosbag2's recorder services and its events/write_split topic.
    let mut services = match RecorderServices::create(&mut app.node) {
        Ok(s) => Some(s),
        Err(e) => {
            node_glue::log_error!("cannot create the recorder's services: {e}");
            None
        }
    };
    let split_events = app
        .node
        .create_publisher::<WriteSplitEvent>("events/write_split", r2r::QosProfile::default())
        .map_err(|e| node_glue::log_error!("cannot publish events/write_split: {e}"))
        .ok();
    let node_name = app.fqn().to_string();
    let poll_every = Duration::from_millis(args.polling_interval_ms.max(10));
    let mut next_poll = Instant::now();
    node_glue::log_info!("recording to {}", args.recorder.dir.display());
    while !down.is_set() {
        if Instant::now() >= next_poll {
            discover(app, args, &mut defs, &mut subs, &mut done, &mut warned, tx);
            next_poll = Instant::now() + poll_every;
        }
        app.node.spin_once(Duration::from_millis(10));
        for s in subs.iter_mut() {
            let overflowed = s.overflowed.load(Ordering::Relaxed);
            if overflowed > s.overflow_seen {
                let n = overflowed - s.overflow_seen;
                s.overflow_seen = overflowed;
                s.lost += n;
                node_glue::log_warn!(
                    "{}: {n} lost (subscription queue of {READER_DEPTH} full)",
                    s.name
                );
            }
            while let Some(Some(msg)) = s.stream.next().now_or_never() {
                s.received += 1;
                if paused {
                    continue;
                }
                let stamp = |ns: i64| u64::try_from(ns).ok().filter(|&n| n > 0);
                let recv_ns = match &sim_clock {
                    // --use-sim-time: /clock time; nothing before the first /clock.
                    Some(c) => match u64::try_from(c.now().as_nanos()).ok().filter(|&n| n > 0) {
                        Some(t) => t,
                        None => {
                            s.before_clock += 1;
                            continue;
                        }
                    },
                    None => stamp(msg.received_timestamp).unwrap_or_else(wall_ns),
                };
                let m = ToWriter::Message {
                    topic: s.index,
                    recv_ns,
                    send_ns: stamp(msg.source_timestamp).unwrap_or(0),
                    data: msg.data,
                };
                if let Err(TrySendError::Full(_)) = tx.try_send(m) {
                    s.lost += 1;
                    if s.lost.is_power_of_two() {
                        node_glue::log_warn!("{}: {} lost (writer behind)", s.name, s.lost);
                    }
                }
            }
        }
        if let Some(s) = services.as_mut() {
            let (splits, snapshots) = s.handle(&mut paused, args.snapshot_cache.is_some());
            for _ in 0..splits {
                let _ = tx.send(ToWriter::Split);
            }
            for _ in 0..snapshots {
                let _ = tx.send(ToWriter::Snapshot);
            }
        }
        while let Ok((closed_file, opened_file)) = splits.try_recv() {
            node_glue::log_info!("split: {closed_file} closed, {opened_file} opened");
            if let Some(p) = &split_events {
                let _ = p.publish(&WriteSplitEvent {
                    closed_file,
                    opened_file,
                    node_name: node_name.clone(),
                });
            }
        }
        if let Some(kb) = keyboard.as_mut() {
            for k in kb.keys() {
                if k == Key::Space {
                    paused = !paused;
                    node_glue::log_info!("recording {}", if paused { "paused" } else { "resumed" });
                }
            }
        }
    }
    drop(keyboard);
    let before_clock: u64 = subs.iter().map(|s| s.before_clock).sum();
    if before_clock > 0 {
        node_glue::log_info!("{before_clock} message(s) received before the first /clock were not written (--use-sim-time)");
    }
    node_glue::log_info!("stopping: finishing the bag");
    subs
}

fn discover(
    app: &mut App,
    args: &RecordArgs,
    defs: &mut DefinitionSource,
    subs: &mut Vec<Subscribed>,
    done: &mut HashSet<String>,
    warned: &mut HashSet<String>,
    tx: &SyncSender<ToWriter>,
) {
    let topics: HashMap<String, Vec<String>> = match app.node.get_topic_names_and_types() {
        Ok(t) => t,
        Err(e) => {
            node_glue::log_warn!("cannot list topics: {e}");
            return;
        }
    };
    let mut names: Vec<&String> = topics.keys().collect();
    names.sort();
    for name in names {
        if done.contains(name) {
            continue;
        }
        let type_name = match args.filter.take(name, &topics[name]) {
            Ok(t) => t,
            Err(Skip::SeveralTypes(types)) => {
                if warned.insert(name.clone()) {
                    node_glue::log_warn!("not recording {name}: several types {types:?}");
                }
                continue;
            }
            Err(Skip::NoType) => continue,
            Err(_) => {
                done.insert(name.clone());
                continue;
            }
        };
        // Subscribe once a publisher is there, so its QoS chooses ours (rosbag2 does the same
        // when it sees the offers; a topic with only subscribers so far waits).
        let offers: Vec<Qos> = match app.node.get_publishers_info_by_topic(name, false) {
            Ok(infos) => infos
                .iter()
                .map(|i| convert::from_r2r(&i.qos_profile))
                .collect(),
            Err(e) => {
                node_glue::log_warn!("cannot read publishers of {name}: {e}");
                continue;
            }
        };
        if offers.is_empty() {
            continue;
        }
        done.insert(name.clone());
        let (spec, missing) = TopicSpec::resolve(name, &type_name, offers.clone(), defs);
        if let Some(e) = missing {
            node_glue::log_warn!(
                "not recording {name} ({type_name}): no definition on AMENT_PREFIX_PATH: {e}"
            );
            continue;
        }
        let (mut request, compromises) = Qos::adapt_request_to_offers(&offers);
        // rosbag2's choice of reliability and durability, but a deep reader history: a
        // spin loop held up by a busy CPU then finds a 1 kHz stream's messages still
        // waiting instead of overwritten (history depth is not part of QoS matching).
        request.depth = request.depth.max(READER_DEPTH);
        for c in &compromises {
            node_glue::log_warn!(
                "{name}: {c:?}: subscribing {:?}/{:?}",
                request.reliability,
                request.durability
            );
        }
        // --qos-profile-overrides-path: the user's profile for this topic, as written.
        let request = args.qos_overrides.apply(name, request);
        let overflowed = Arc::new(AtomicU64::new(0));
        let stream = match node_glue::typesupport::subscribe(
            &mut app.node,
            name,
            &type_name,
            convert::to_r2r(&request),
            READER_DEPTH as usize,
            overflowed.clone(),
        ) {
            Ok(s) => s,
            Err(e) => {
                node_glue::log_warn!("not recording {name}: {e}");
                continue;
            }
        };
        let index = subs.len();
        if tx.send(ToWriter::Topic(Box::new(spec))).is_err() {
            return;
        }
        node_glue::log_info!(
            "recording {name} ({type_name}, {:?}/{:?})",
            request.reliability,
            request.durability
        );
        subs.push(Subscribed {
            index,
            name: name.clone(),
            stream: Box::new(stream),
            received: 0,
            lost: 0,
            overflowed,
            overflow_seen: 0,
            before_clock: 0,
        });
    }
}
