//! `arnie_bag play`: untyped publishers, the library's [`Player`] over a monotonic clock,
//! keys, `/clock`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use r2r::qos::{DurabilityPolicy, HistoryPolicy, ReliabilityPolicy};
use r2r::{PublisherUntyped, QosProfile};

use super::convert;
use super::requests::Requests;
use super::services::PlayerServices;
use super::term::Keyboard;
use super::PLAYER_NODE;
use crate::cli::PlayArgs;
use crate::filter::is_service_event;
use crate::player::{play_topics, BagSource, PlayMessage};
use crate::{Bag, Player, Step};

/// The longest the loop sleeps in one go (keys, signals and `/clock` stay responsive).
const MAX_SLEEP: Duration = Duration::from_millis(20);
/// How long the publishers stay after the last message (not after `q` or a signal).
const END_LINGER: Duration = Duration::from_secs(1);

/// `rosgraph_msgs/msg/Clock` as CDR (little endian): header, `int32 sec`, `uint32 nanosec`.
fn clock_cdr(t_ns: u64) -> [u8; 12] {
    let sec = i32::try_from(t_ns / 1_000_000_000).unwrap_or(i32::MAX);
    let nsec = (t_ns % 1_000_000_000) as u32;
    let mut b = [0u8; 12];
    b[1] = 1;
    b[4..8].copy_from_slice(&sec.to_le_bytes());
    b[8..12].copy_from_slice(&nsec.to_le_bytes());
    b
}

/// Plays until the end (or `q`, SIGINT, SIGTERM); returns the exit code.
pub fn run(args: PlayArgs) -> u8 {
    let bag = match Bag::open(&args.bag) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("arnie_bag: {e}");
            return 1;
        }
    };
    let mut app = match super::start(&args.node, PLAYER_NODE, false) {
        Some(a) => a,
        None => return 1,
    };
    // record and play run their own loop on the node.
    app.shutdown_on_signals();
    let mut pubs: HashMap<String, PublisherUntyped> = HashMap::new();
    let requests = args.service_requests.map(Requests::new);
    for t in play_topics(&bag, &args.options) {
        if let Some(r) = requests
            .as_ref()
            .filter(|_| is_service_event(&t.name, &t.type_name))
        {
            // --publish-service-requests: the service is called, its events not published.
            if let Err(e) = r.add(&mut app.node, &t.name, &t.type_name) {
                node_glue::log_error!("not calling the service of {}: {e}", t.name);
            }
            continue;
        }
        if !t.qos_from_recording {
            node_glue::log_warn!(
                "{}: recorded publishers disagreed on QoS: offering the default",
                t.name
            );
        }
        match node_glue::typesupport::publisher(
            &mut app.node,
            &t.name,
            &t.type_name,
            convert::to_r2r(&args.qos_overrides.apply(&t.name, t.qos)),
        ) {
            Ok(p) => {
                pubs.insert(t.name.clone(), p);
            }
            // The other topics still play (rosbag2 ignores such a topic the same way).
            Err(e) => node_glue::log_error!("not playing {}: {e}", t.name),
        }
    }
    let o = &args.options;
    let clock_wanted = o.clock_hz.is_some() || o.clock_topics_all || !o.clock_topics.is_empty();
    let clock = match clock_wanted {
        false => None,
        true => {
            // rclcpp::ClockQoS: keep last 1, best effort.
            let qos = QosProfile {
                history: HistoryPolicy::KeepLast,
                depth: 1,
                reliability: ReliabilityPolicy::BestEffort,
                durability: DurabilityPolicy::Volatile,
                ..QosProfile::default()
            };
            match app
                .node
                .create_publisher_untyped("/clock", "rosgraph_msgs/msg/Clock", qos)
            {
                Ok(p) => Some(p),
                Err(e) => {
                    eprintln!("arnie_bag: cannot publish /clock: {e}");
                    return 1;
                }
            }
        }
    };
    let down = app.shutdown();
    if args.wait_for_subscribers {
        node_glue::log_info!("waiting for a subscriber on every played topic");
        if let Some(r) = &requests {
            let waiting = r.waiting();
            if !waiting.is_empty() {
                node_glue::log_info!("and for the services {}", waiting.join(", "));
            }
        }
        while !down.is_set()
            && (pubs
                .values()
                .any(|p| p.get_inter_process_subscription_count().unwrap_or(0) == 0)
                || requests.as_ref().is_some_and(|r| !r.all_available()))
        {
            app.node.spin_once(Duration::from_millis(20));
        }
    }
    // rosbag2's player services (~/pause, ~/seek ...), answered between messages.
    let mut services = match PlayerServices::create(&mut app.node) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("arnie_bag: cannot create the player's services: {e}");
            return 1;
        }
    };
    let mut keyboard = if args.keyboard {
        Keyboard::open()
    } else {
        None
    };
    if keyboard.is_some() {
        println!("{}", crate::keys::HELP);
    }
    // The schedule is anchored here, once everything is set up: set-up time (creating
    // eleven services takes a while) would otherwise make the first message late and
    // every later one early against it.
    let epoch = Instant::now();
    let mono = || u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let mut player = match Player::new(
        BagSource::new(&bag),
        bag.metadata().starting_time_ns,
        args.options.clone(),
        mono(),
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arnie_bag: {e}");
            return 1;
        }
    };
    let clock_topics_all = args.options.clock_topics_all;
    let clock_topics = &args.options.clock_topics;
    let publish = |m: &PlayMessage| {
        if let Some(r) = requests.as_ref().filter(|r| r.handles(&m.topic)) {
            r.send(m);
        } else if let Some(p) = pubs.get(&*m.topic) {
            if let Err(e) = p.publish_raw(&m.data) {
                node_glue::log_warn!("{}: publish failed: {e}", m.topic);
            }
        }
        // --clock-topics / --clock-topics-all: /clock jumps to this message's time.
        if clock_topics_all || clock_topics.iter().any(|t| **t == *m.topic) {
            if let Some(c) = &clock {
                let _ = c.publish_raw(&clock_cdr(m.log_time));
            }
        }
    };
    let clock_period = player.clock_period_ns();
    let mut next_clock = 0u64;
    let mut code = 0;
    while !down.is_set() {
        let now = mono();
        if let Some(kb) = keyboard.as_mut() {
            for k in kb.keys() {
                let (paused, rate) = (player.is_paused(), player.rate());
                match player.on_key(k, now) {
                    Ok(Some(m)) => publish(&m),
                    Ok(None) => {}
                    Err(e) => node_glue::log_warn!("{e}"),
                }
                // What the key did, on the terminal it came from (rosbag2's words).
                if player.is_paused() != paused {
                    println!(
                        "{}",
                        if paused {
                            "Resuming play."
                        } else {
                            "Pausing play."
                        }
                    );
                }
                if player.rate() != rate {
                    println!("rate {:.2}", player.rate());
                }
            }
        }
        if let (Some(p), Some(period)) = (&clock, clock_period) {
            if now >= next_clock {
                let _ = p.publish_raw(&clock_cdr(player.clock_time(now)));
                next_clock = now.saturating_add(period);
            }
        }
        let wait_until = match player.poll(now) {
            Ok(Step::Publish(m)) => {
                publish(&m);
                continue;
            }
            Ok(Step::Wait { until_ns }) => until_ns,
            Ok(Step::Paused) => now.saturating_add(MAX_SLEEP.as_nanos() as u64),
            Ok(Step::Finished) => break,
            Err(e) => {
                eprintln!("arnie_bag: {e}");
                code = 1;
                break;
            }
        };
        let mut until = wait_until.min(now.saturating_add(MAX_SLEEP.as_nanos() as u64));
        if clock.is_some() && clock_period.is_some() {
            until = until.min(next_clock.max(now));
        }
        // Spin while waiting (services such as parameters, graph events), then sleep
        // the rest exactly.
        app.node.spin_once(Duration::ZERO);
        services.handle(&mut player, mono(), &publish);
        let left = until.saturating_sub(mono());
        if left > 0 {
            std::thread::sleep(Duration::from_nanos(left));
        }
    }
    drop(keyboard);
    let status = player.status(mono());
    for (topic, n) in &status.published {
        println!("  {topic}: {n} published");
    }
    for line in requests.iter().flat_map(Requests::report) {
        println!("{line}");
    }
    let mut linger_for = if down.is_set() {
        Duration::ZERO
    } else {
        END_LINGER
    };
    if let Some(ms) = args.wait_for_all_acked_ms.filter(|_| !down.is_set()) {
        // rosbag2's --wait-for-all-acked: every reliable subscription acknowledged every
        // message (best-effort publishers answer at once), within one shared deadline.
        let deadline = (ms > 0).then(|| Instant::now() + Duration::from_millis(ms));
        let mut unacked = Vec::new();
        for (topic, p) in &pubs {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match p.wait_for_all_acked(left) {
                Ok(true) => {}
                Ok(false) => unacked.push(topic.as_str()),
                Err(e) => node_glue::log_warn!("{topic}: cannot wait for acknowledgements: {e}"),
            }
        }
        if unacked.is_empty() {
            node_glue::log_info!("every message acknowledged");
        } else {
            unacked.sort_unstable();
            node_glue::log_warn!("not acknowledged within {ms} ms on {}", unacked.join(", "));
        }
        linger_for = Duration::ZERO;
    }
    // Otherwise keep the publishers a moment: a reliable last message whose packet was
    // dropped is repaired only at the writer's next heartbeat.
    let linger = Instant::now() + linger_for;
    while Instant::now() < linger {
        app.node.spin_once(Duration::from_millis(10));
    }
    app.close(i32::from(code));
    code
}
