//! CAN end to end over CAN-over-UDP on 127.0.0.1: bridge link ⇄ simulator, and a raw
//! socket injecting malformed / out-of-order pages.
use arnie_packets::can::{self, CanFrame, CanId};
use arnie_packets::link::{Link, LinkConfig, LinkEvent};
use arnie_packets::transport::udp::encode_datagram;
use arnie_packets::transport::{CanBus, UdpCan};
use arnie_packets::{sim, Definitions, RejectKind};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::UdpSocket;
use tokio::time::timeout;

const PACKETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packets");

fn defs() -> Arc<Definitions> {
    Arc::new(Definitions::load_dir(Path::new(PACKETS)).expect("shipped definitions"))
}

fn local() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

async fn recv(link: &mut Link) -> LinkEvent {
    timeout(Duration::from_secs(5), link.recv())
        .await
        .expect("no timeout")
        .expect("link ok")
}

#[tokio::test]
async fn ping_pong_and_paged_echo_through_the_simulator() {
    let defs = defs();
    let sim_bus = UdpCan::bind(local(), None).await.expect("bind sim");
    let sim_addr = sim_bus.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let peer = tokio::spawn(sim::run(
        Link::can(CanBus::Udp(sim_bus), defs.clone(), &LinkConfig::default()),
        stopped,
    ));
    let bus = UdpCan::bind(local(), Some(sim_addr))
        .await
        .expect("bind bridge");
    let mut bridge = Link::can(CanBus::Udp(bus), defs.clone(), &LinkConfig::default());

    // Ping: 6 bytes → one standard frame, id = 1 << 5 | device 4.
    let ping = defs
        .packet_from_json("Ping", 0, 4, r#"{"seq": 65535}"#)
        .expect("valid");
    let raw = bridge.send(&ping).await.expect("send");
    assert_eq!(raw[..5], [(1 << 5 | 4) as u8, 0, 0, 0, 6]);
    match recv(&mut bridge).await {
        LinkEvent::Packet(r) => {
            assert_eq!((r.packet.name(), r.packet.device), ("Pong", 4));
            assert_eq!(r.packet.fields_json(), r#"{"seq":65535,"sent_ms":0}"#);
        }
        other => panic!("{other:?}"),
    }

    // ArmStatus: 15 bytes → two extended pages; MotorTarget: 14 bytes, float64 and int32.
    for (name, fields) in [
        (
            "ArmStatus",
            r#"{"x_mm": 412.5, "y_mm": -3.25, "z_mm": 1e-3, "moving": true, "error_code": -42}"#,
        ),
        (
            "MotorTarget",
            r#"{"motor": 2, "position_rad": -1.5707963267948966, "speed_limit_mrad_s": -2000000}"#,
        ),
    ] {
        let p = defs.packet_from_json(name, 0, 31, fields).expect("valid");
        let raw = bridge.send(&p).await.expect("send");
        assert_eq!(
            raw.len(),
            2 * 5 + p.definition().payload_len,
            "two datagrams"
        );
        match recv(&mut bridge).await {
            LinkEvent::Packet(r) => {
                assert_eq!(r.packet, p, "echoed unchanged");
                assert_eq!(r.raw, raw);
            }
            other => panic!("{other:?}"),
        }
    }
    stop.send(()).expect("simulator running");
    let c = peer.await.expect("joined").expect("sim ok");
    assert_eq!((c.rx_packets, c.tx_packets, c.total_rejected()), (3, 3, 0));
}

#[tokio::test]
async fn bad_datagrams_and_broken_pages_are_counted_never_delivered() {
    let defs = defs();
    let bus = UdpCan::bind(local(), None).await.expect("bind");
    let addr = bus.local_addr().expect("addr");
    let cfg = LinkConfig {
        reassembler: can::ReassemblerConfig {
            max_payload_len: 64,
            page_timeout_ms: 30,
        },
        ..LinkConfig::default()
    };
    let mut bridge = Link::can(CanBus::Udp(bus), defs.clone(), &cfg);
    let raw = UdpSocket::bind(local()).await.expect("bind raw");

    let arm = defs
        .packet_from_json("ArmStatus", 0, 1, r#"{"x_mm": 1}"#)
        .expect("valid");
    let pages = can::encode_packet(&arm).expect("encode");
    assert_eq!(pages.len(), 2);
    let send = |frame: CanFrame| {
        let raw = &raw;
        async move {
            raw.send_to(&encode_datagram(&frame), addr)
                .await
                .expect("send")
        }
    };

    raw.send_to(&[1, 2, 3], addr).await.expect("send"); // not the datagram format
    send(pages[1]).await; // last page first: out of order
    send(pages[0]).await; // first page, then nothing: times out as a missing page
    let mut kinds = Vec::new();
    while kinds.len() < 3 {
        match recv(&mut bridge).await {
            LinkEvent::Rejected(r) => kinds.push(r.kind),
            LinkEvent::Packet(p) => panic!("no packet may come out of this: {p:?}"),
        }
    }
    assert_eq!(
        kinds,
        [
            RejectKind::BadCanFrame,
            RejectKind::CanOutOfOrder,
            RejectKind::CanMissingPage
        ]
    );

    // A 3-byte standard frame for ArmStatus (15 bytes): wrong length, rejected.
    send(CanFrame::new(CanId::Standard(20 << 5 | 1), &[1, 2, 3]).expect("fits")).await;
    assert!(
        matches!(recv(&mut bridge).await, LinkEvent::Rejected(r) if r.kind == RejectKind::LengthMismatch)
    );

    // And the link still works.
    for f in &pages {
        send(*f).await;
    }
    match recv(&mut bridge).await {
        LinkEvent::Packet(r) => assert_eq!(r.packet, arm),
        other => panic!("{other:?}"),
    }
    let c = bridge.counters();
    assert_eq!((c.rx_packets, c.total_rejected()), (1, 4));
}

#[tokio::test]
async fn sending_without_a_peer_or_with_a_big_command_fails_cleanly() {
    let defs = Arc::new(
        Definitions::from_texts([("big", r#"{"name":"Big","id":200,"data":{}}"#)]).expect("valid"),
    );
    let bus = UdpCan::bind(local(), None).await.expect("bind");
    let mut link = Link::can(CanBus::Udp(bus), defs.clone(), &LinkConfig::default());
    let big = defs.packet_from_json("Big", 0, 0, "").expect("valid");
    assert!(matches!(
        link.send(&big).await,
        Err(arnie_packets::Error::CanCommandOutOfRange(200))
    ));
    let bus = UdpCan::bind(local(), None).await.expect("bind");
    let defs = self::defs();
    let mut link = Link::can(CanBus::Udp(bus), defs.clone(), &LinkConfig::default());
    let ping = defs.packet_from_json("Ping", 0, 0, "").expect("valid");
    assert!(matches!(
        link.send(&ping).await,
        Err(arnie_packets::Error::NoPeer)
    ));
}
