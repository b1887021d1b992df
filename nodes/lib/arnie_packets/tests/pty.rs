//! UART end to end over a real pseudo-terminal: the bridge side opens the pty slave by
//! path like a serial device; the simulator (or a raw writer) holds the master.
use arnie_packets::link::{Link, LinkConfig, LinkEvent};
use arnie_packets::transport::{open_pty, SerialPort};
use arnie_packets::uart::{encode_frame, DecoderConfig};
use arnie_packets::{sim, Definitions, RejectKind, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::timeout;

const PACKETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packets");

fn defs() -> Arc<Definitions> {
    Arc::new(Definitions::load_dir(Path::new(PACKETS)).expect("shipped definitions"))
}

fn config() -> LinkConfig {
    LinkConfig {
        decoder: DecoderConfig {
            max_frame_len: 256,
            frame_timeout_ms: 30,
        },
        ..LinkConfig::default()
    }
}

/// (bridge link on the slave path, master port)
fn pty_pair(defs: &Arc<Definitions>) -> (Link, SerialPort) {
    let (master, slave, path) = open_pty().expect("openpty");
    let port = SerialPort::open(&path, 115200).expect("open pty slave as a serial port");
    drop(slave);
    let master = SerialPort::from_fd(master, "pty master").expect("master");
    (Link::uart(port, defs.clone(), &config()), master)
}

async fn next_packet(link: &mut Link) -> arnie_packets::Received {
    match timeout(Duration::from_secs(5), link.recv())
        .await
        .expect("no timeout")
        .expect("link ok")
    {
        LinkEvent::Packet(r) => r,
        LinkEvent::Rejected(r) => panic!("unexpected {r}"),
    }
}

#[tokio::test]
async fn ping_pong_and_echo_through_the_simulator() {
    let defs = defs();
    let (mut bridge, master) = pty_pair(&defs);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let peer = tokio::spawn(sim::run(
        Link::uart(master, defs.clone(), &config()),
        stopped,
    ));

    let ping = defs
        .packet_from_json("Ping", 0, 0, r#"{"seq": 7, "sent_ms": 123456}"#)
        .expect("valid");
    let raw = bridge.send(&ping).await.expect("send");
    assert_eq!(raw[..2], [7, 1], "size 7 (command + 6 bytes), command 1");
    let pong = next_packet(&mut bridge).await;
    assert_eq!(pong.packet.name(), "Pong");
    assert_eq!(pong.packet.fields_json(), r#"{"seq":7,"sent_ms":123456}"#);
    assert_eq!(pong.raw[1], 2);

    for fields in [r#"{"led": 3, "on": false}"#, r#"{"brightness": 9}"#] {
        let led = defs
            .packet_from_json("SetLed", 0, 0, fields)
            .expect("valid");
        bridge.send(&led).await.expect("send");
        assert_eq!(
            next_packet(&mut bridge).await.packet,
            led,
            "echoed unchanged"
        );
    }
    let c = bridge.counters();
    assert_eq!((c.tx_packets, c.rx_packets, c.total_rejected()), (3, 3, 0));

    stop.send(()).expect("simulator still running");
    let sim_counters = peer.await.expect("joined").expect("simulator ok");
    assert_eq!((sim_counters.rx_packets, sim_counters.tx_packets), (3, 3));
}

#[tokio::test]
async fn garbage_and_bad_frames_are_counted_and_good_frames_survive() {
    let defs = defs();
    let (mut bridge, master) = pty_pair(&defs);
    let led = |n: u8| encode_frame(10, &[n, 1, 255]).expect("fits");
    let mut bad_checksum = led(1);
    bad_checksum[3] ^= 0x40;
    let mut stream = vec![0xde, 0xad]; // line noise
    stream.extend(led(2));
    stream.extend(bad_checksum);
    stream.extend(encode_frame(99, &[1, 2]).expect("fits")); // no definition 99
    stream.extend([0, 0, 0]);
    stream.extend(led(3));
    stream.extend(encode_frame(10, &[4, 2, 0]).expect("fits")); // bool byte 2
    stream.extend(led(5));
    master.write_all(&stream).await.expect("write");

    let mut leds = Vec::new();
    let mut rejected = Vec::new();
    while leds.len() < 3 {
        match timeout(Duration::from_secs(5), bridge.recv())
            .await
            .expect("no timeout")
            .expect("ok")
        {
            LinkEvent::Packet(r) => leds.push(r.packet.get("led")),
            LinkEvent::Rejected(r) => rejected.push(r.kind),
        }
    }
    assert_eq!(
        leds,
        [Some(Value::U8(2)), Some(Value::U8(3)), Some(Value::U8(5))]
    );
    assert!(rejected.contains(&RejectKind::Checksum), "{rejected:?}");
    assert!(rejected.contains(&RejectKind::BadValue), "{rejected:?}");
    let c = bridge.counters();
    assert_eq!(c.rx_packets, 3);
    assert_eq!(c.get(RejectKind::BadValue), 1);
    assert!(c.garbage_bytes >= 2, "{c:?}");
    assert_eq!(c.total_rejected(), rejected.len() as u64);
}

#[tokio::test]
async fn a_frame_cut_short_times_out_as_truncated() {
    let defs = defs();
    let (mut bridge, master) = pty_pair(&defs);
    let frame = encode_frame(10, &[1, 1, 1]).expect("fits");
    master.write_all(&frame[..3]).await.expect("write");
    let event = timeout(Duration::from_secs(5), bridge.recv())
        .await
        .expect("no timeout")
        .expect("ok");
    assert!(
        matches!(event, LinkEvent::Rejected(r) if r.kind == RejectKind::Truncated),
        "{event:?}"
    );
    master.write_all(&frame).await.expect("write");
    assert_eq!(next_packet(&mut bridge).await.raw, frame);
}

#[tokio::test]
async fn closed_peer_ends_recv_with_an_error() {
    let defs = defs();
    let (mut bridge, master) = pty_pair(&defs);
    drop(master);
    let got = timeout(Duration::from_secs(5), bridge.recv())
        .await
        .expect("no timeout");
    assert!(got.is_err(), "{got:?}");
    assert_eq!(bridge.counters().io_errors, 1);
}
