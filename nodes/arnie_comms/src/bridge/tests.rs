use super::*;
use crate::definition::Definitions;
use crate::error::Error;
use crate::link::LinkConfig;
use crate::sim;
use crate::transport::{open_pty, CanBus, SerialPort, UdpCan};
use crate::value::Value;
use std::net::SocketAddr;

/// A reliable command `Cmd` (5) and report `Done` (6), both answered by `Ack` (7).
fn reliable_defs(attempts: u32, interval_ms: u32) -> Arc<Definitions> {
    let rel = format!(
        r#""reply":"Ack","reliable":{{"attempts":{attempts},"interval_ms":{interval_ms}}}"#
    );
    let cmd = format!(r#"{{"name":"Cmd","id":5,{rel},"data":{{"seq":{{"type":"uint16"}}}}}}"#);
    let done = format!(
        r#"{{"name":"Done","id":6,{rel},"data":{{"seq":{{"type":"uint16"}},"status":{{"type":"uint8"}}}}}}"#
    );
    let ack = r#"{"name":"Ack","id":7,"data":{"command":{"type":"uint8"},"seq":{"type":"uint16"},"status":{"type":"uint8"}}}"#;
    Arc::new(
        Definitions::from_texts([("cmd", cmd.as_str()), ("done", done.as_str()), ("ack", ack)])
            .expect("valid"),
    )
}

fn defs() -> Arc<Definitions> {
    Arc::new(
        Definitions::from_texts([
            (
                "ping",
                r#"{"name":"Ping","id":1,"reply":"Pong","data":{"seq":{"type":"uint16"}}}"#,
            ),
            (
                "pong",
                r#"{"name":"Pong","id":2,"data":{"seq":{"type":"uint16"}}}"#,
            ),
            (
                "led",
                r#"{"name":"Led","id":3,"data":{"on":{"type":"bool"}}}"#,
            ),
        ])
        .expect("valid"),
    )
}

/// The loop under test, with its event lines, command sender and stop switch.
struct Harness {
    commands: mpsc::Sender<Command>,
    events: mpsc::UnboundedReceiver<String>,
    stats: Arc<Mutex<Stats>>,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Stats>,
}

fn start(link: Link) -> Harness {
    let (commands, rx) = mpsc::channel(8);
    let (stop, stopped) = oneshot::channel::<()>();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let (events_tx, events) = mpsc::unbounded_channel::<String>();
    let on_event = move |e: Event<'_>| {
        let line = match e {
            Event::Received(r) => format!(
                "rx {} {} {}",
                r.packet.name(),
                r.packet.device,
                r.packet.fields_json()
            ),
            Event::Sent { packet, .. } => format!("tx {}", packet.name()),
            Event::SendFailed { packet, error } => {
                format!("send failed {}: {error}", packet.name())
            }
            Event::LinkFailed(e) => format!("link failed: {e}"),
            other => format!("{other:?}"),
        };
        let _ = events_tx.send(line);
    };
    let settings = Settings {
        retry_after: Duration::from_millis(20),
    };
    let task = tokio::spawn(run(link, rx, settings, on_event, stats.clone(), stopped));
    Harness {
        commands,
        events,
        stats,
        stop,
        task,
    }
}

impl Harness {
    /// Sends a request; its outcome arrives on the returned receiver.
    async fn submit(&self, packet: Packet, timeout: Duration) -> oneshot::Receiver<Outcome> {
        let (done, outcome) = oneshot::channel();
        self.commands
            .send(Command::Request {
                packet,
                timeout,
                done,
            })
            .await
            .expect("loop alive");
        outcome
    }
    async fn request(&self, packet: Packet, timeout: Duration) -> Outcome {
        let outcome = self.submit(packet, timeout).await;
        tokio::time::timeout(Duration::from_secs(5), outcome)
            .await
            .expect("answered in time")
            .expect("answered")
    }
    async fn next_event(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(5), self.events.recv())
            .await
            .expect("an event")
            .expect("open")
    }
    async fn finish(self) -> Stats {
        self.stop.send(()).expect("loop alive");
        let end = self.task.await.expect("joined");
        assert_eq!(
            *self.stats.lock().expect("not poisoned"),
            end,
            "published counts are the final ones"
        );
        end
    }
}

/// (bridge link on the pty slave, the master as a serial port, the slave fd that
/// `open_pty` returned). While that fd lives, the master never reads EIO when the
/// bridge closes its side; drop it at once to let the device see the hang-up.
async fn pty(defs: &Arc<Definitions>) -> (Link, SerialPort, std::os::fd::OwnedFd) {
    let (master, slave, path) = open_pty().expect("pty");
    let link = Transport::Uart { path, baud: 115200 }
        .open(defs.clone(), &LinkConfig::default())
        .await
        .expect("open");
    (
        link,
        SerialPort::from_fd(master, "master").expect("master"),
        slave,
    )
}

#[tokio::test]
async fn requests_get_their_reply_or_are_answered_when_sent_and_sends_echo() {
    let defs = defs();
    // The slave fd is kept to the end: the bridge finishes (closing its side) before
    // the device is stopped, and the device must not read EIO meanwhile.
    let (link, master, slave_guard) = pty(&defs).await;
    let (stop_sim, sim_stopped) = oneshot::channel::<()>();
    let sim = tokio::spawn(sim::run(
        Link::uart(master, defs.clone(), &LinkConfig::default()),
        sim_stopped,
    ));
    let mut h = start(link);

    let ping = defs
        .packet_from_json("Ping", 0, 0, r#"{"seq": 9}"#)
        .expect("valid");
    match h.request(ping, Duration::from_secs(5)).await {
        Outcome::Reply { raw, reply } => {
            assert_eq!(raw[1], 1, "the Ping frame was written");
            assert_eq!(
                (reply.packet.name(), reply.packet.get("seq")),
                ("Pong", Some(Value::U16(9)))
            );
        }
        other => panic!("{other:?}"),
    }
    let led = defs
        .packet_from_json("Led", 0, 0, r#"{"on": true}"#)
        .expect("valid");
    assert!(
        matches!(
            h.request(led.clone(), Duration::from_secs(5)).await,
            Outcome::Sent { .. }
        ),
        "no reply named"
    );
    h.commands.send(Command::Send(led)).await.expect("alive");
    let mut seen = Vec::new();
    while seen
        .iter()
        .filter(|l: &&String| l.starts_with("rx Led"))
        .count()
        < 2
    {
        seen.push(h.next_event().await);
    }
    assert!(
        seen.contains(&r#"rx Pong 0 {"seq":9}"#.to_string()),
        "every packet is reported: {seen:?}"
    );
    assert_eq!(
        seen.iter().filter(|l| l.starts_with("tx ")).count(),
        3,
        "{seen:?}"
    );

    let end = h.finish().await;
    assert_eq!(
        (
            end.requests,
            end.replies,
            end.reply_timeouts,
            end.send_failures
        ),
        (2, 1, 0, 0)
    );
    assert_eq!(
        (end.link.tx_packets, end.link.rx_packets, end.link_up),
        (3, 3, true)
    );
    stop_sim.send(()).expect("sim alive");
    sim.await.expect("joined").expect("sim ok");
    drop(slave_guard);
}

/// The device side drops the first copy of a reliable command, acknowledges the
/// second; it sends a reliable report twice (its first acknowledgement "lost").
#[tokio::test]
async fn reliable_packets_are_repeated_until_acked_and_deduplicated() {
    let defs = reliable_defs(5, 40);
    let (link, master, _guard) = pty(&defs).await;
    let mut device = Link::uart(master, defs.clone(), &LinkConfig::default());
    let mut h = start(link);
    let cmd = defs
        .packet_from_json("Cmd", 0, 0, r#"{"seq":41}"#)
        .expect("valid");
    let outcome = h.submit(cmd, Duration::from_secs(5)).await;
    let mut copies = 0;
    while copies < 2 {
        if let Ok(LinkEvent::Packet(r)) = device.recv().await {
            assert_eq!(r.packet.fields_json(), r#"{"seq":41}"#);
            copies += 1;
        }
    }
    let ack = defs
        .packet_from_json("Ack", 0, 0, r#"{"command":5,"seq":41,"status":1}"#)
        .expect("valid");
    device.send(&ack).await.expect("written");
    match tokio::time::timeout(Duration::from_secs(5), outcome).await {
        Ok(Ok(Outcome::Reply { reply, .. })) => {
            assert_eq!(reply.packet.get("status"), Some(Value::U8(1)))
        }
        other => panic!("{other:?}"),
    }
    // The report, twice: delivered once, acknowledged twice.
    let report = defs
        .packet_from_json("Done", 0, 0, r#"{"seq":7,"status":0}"#)
        .expect("valid");
    device.send(&report).await.expect("written");
    device.send(&report).await.expect("written");
    let mut acks = 0;
    while acks < 2 {
        if let Ok(LinkEvent::Packet(r)) = device.recv().await {
            if r.packet.name() == "Ack" {
                assert_eq!(
                    r.packet.fields_json(),
                    r#"{"command":6,"seq":7,"status":0}"#
                );
                acks += 1;
            }
        }
    }
    let mut lines = Vec::new();
    while !lines.iter().any(|l: &String| l.starts_with("Duplicate")) {
        lines.push(h.next_event().await);
    }
    let end = h.finish().await;
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("rx Done")).count(),
        1,
        "{lines:?}"
    );
    assert!(
        end.repeats >= 1 && end.duplicates == 1 && end.acks_sent == 2,
        "{end:?}"
    );
    assert_eq!((end.replies, end.gave_up), (1, 0));
}

#[tokio::test]
async fn an_unacknowledged_reliable_packet_is_given_up_after_its_attempts() {
    let defs = reliable_defs(3, 20);
    let (link, _silent_master, _guard) = pty(&defs).await;
    let mut h = start(link);
    let cmd = defs.packet_from_json("Cmd", 0, 0, "").expect("valid");
    h.commands.send(Command::Send(cmd)).await.expect("alive");
    let mut lines = Vec::new();
    while !lines.iter().any(|l: &String| l.starts_with("GaveUp")) {
        lines.push(h.next_event().await);
    }
    let end = h.finish().await;
    assert_eq!(
        (end.repeats, end.gave_up, end.link.tx_packets),
        (2, 1, 3),
        "{lines:?}"
    );
}

#[tokio::test]
async fn a_missing_reply_times_out_and_the_loop_goes_on() {
    let defs = defs();
    let (link, _silent_master, _) = pty(&defs).await;
    let h = start(link);
    let ping = defs.packet_from_json("Ping", 0, 0, "").expect("valid");
    match h.request(ping, Duration::from_millis(30)).await {
        Outcome::NoReply {
            reply_id, timeout, ..
        } => {
            assert_eq!((reply_id, timeout), (2, Duration::from_millis(30)))
        }
        other => panic!("{other:?}"),
    }
    // A caller that gives up is forgotten (no outcome, no timeout counted).
    let ping = defs.packet_from_json("Ping", 0, 0, "").expect("valid");
    let outcome = h.submit(ping, Duration::from_secs(60)).await;
    drop(outcome);
    let led = defs.packet_from_json("Led", 0, 0, "").expect("valid");
    assert!(matches!(
        h.request(led, Duration::ZERO).await,
        Outcome::Sent { .. }
    ));
    let end = h.finish().await;
    assert_eq!((end.requests, end.replies, end.reply_timeouts), (3, 0, 1));
}

#[tokio::test]
async fn can_replies_match_the_device_and_unsendable_packets_are_answered_not_sent() {
    let defs = defs();
    let sim_bus = UdpCan::bind(SocketAddr::from(([127, 0, 0, 1], 0)), None)
        .await
        .expect("bind sim");
    let sim_addr = sim_bus.local_addr().expect("addr");
    let (stop_sim, sim_stopped) = oneshot::channel::<()>();
    let sim = tokio::spawn(sim::run(
        Link::can(CanBus::Udp(sim_bus), defs.clone(), &LinkConfig::default()),
        sim_stopped,
    ));
    let transport = Transport::CanUdp {
        bind: SocketAddr::from(([127, 0, 0, 1], 0)),
        peer: Some(sim_addr),
    };
    assert!(transport.is_can());
    let mut h = start(
        transport
            .open(defs.clone(), &LinkConfig::default())
            .await
            .expect("open"),
    );

    let ping = defs
        .packet_from_json("Ping", 0, 7, r#"{"seq": 3}"#)
        .expect("valid");
    match h.request(ping, Duration::from_secs(5)).await {
        Outcome::Reply { reply, .. } => {
            assert_eq!((reply.packet.name(), reply.packet.device), ("Pong", 7))
        }
        other => panic!("{other:?}"),
    }
    let far = defs
        .packet_from_json("Ping", 0, 32, "")
        .expect("valid JSON; the device is the wire's business");
    match h.request(far, Duration::from_secs(5)).await {
        Outcome::NotSent(Error::CanDeviceOutOfRange(32)) => {}
        other => panic!("{other:?}"),
    }
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.starts_with("send failed")) {
        seen.push(h.next_event().await);
    }
    let live = h.stats.lock().expect("not poisoned").clone();
    assert_eq!(
        (live.requests, live.send_failures),
        (2, 1),
        "published after every turn"
    );
    let end = h.finish().await;
    assert_eq!((end.requests, end.replies, end.send_failures), (2, 1, 1));
    assert!(
        end.last_error.as_deref().is_some_and(|e| e.contains("32")),
        "{:?}",
        end.last_error
    );
    stop_sim.send(()).expect("sim alive");
    sim.await.expect("joined").expect("sim ok");
}

#[tokio::test]
async fn a_failed_transport_is_reported_retried_and_does_not_end_the_loop() {
    let defs = defs();
    let (link, master, _) = pty(&defs).await;
    let mut h = start(link);
    drop(master); // the device goes away: the slave reads EIO
    let line = h.next_event().await;
    assert!(line.starts_with("link failed"), "{line}");
    let line = h.next_event().await;
    assert!(
        line.starts_with("link failed"),
        "retried after the pause: {line}"
    );
    let led = defs.packet_from_json("Led", 0, 0, "").expect("valid");
    assert!(
        matches!(h.request(led, Duration::ZERO).await, Outcome::NotSent(_)),
        "commands are still answered"
    );
    let end = h.finish().await;
    assert!(end.link_failures >= 2 && !end.link_up, "{end:?}");
    assert_eq!(end.send_failures, 1);
    assert!(end
        .key_values()
        .iter()
        .any(|(k, v)| k == "link_up" && v == "false"));
}
