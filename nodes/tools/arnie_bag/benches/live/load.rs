//! The published load: the demo's topics at their rates, and the sweep's 100-byte messages.
use super::*;

/// One published topic: name, type, QoS, rate, and its message for a stamp.
pub(crate) struct TopicLoad {
    pub(crate) name: &'static str,
    pub(crate) type_name: &'static str,
    pub(crate) qos: QosProfile,
    pub(crate) rate_hz: f64,
    pub(crate) make: fn(u64, Time) -> Vec<u8>,
}

pub(crate) fn stamp(ns: u64) -> Time {
    Time {
        sec: (ns / 1_000_000_000) as i32,
        nanosec: (ns % 1_000_000_000) as u32,
    }
}

pub(crate) fn header(t: Time) -> r2r::std_msgs::msg::Header {
    r2r::std_msgs::msg::Header {
        stamp: t,
        frame_id: "world".into(),
    }
}

pub(crate) fn cdr<T: WrappedTypesupport>(m: &T) -> Vec<u8> {
    m.to_serialized_bytes()
        .expect("a generated message serializes")
}

pub(crate) fn point(i: u64) -> Point {
    let f = i as f64 * 1e-3;
    Point {
        x: 0.3 + 0.1 * f.sin(),
        y: 0.1 * f.cos(),
        z: 0.25,
    }
}

/// The demo's topics (README of each node) with `/arm/position` at `arm_hz`.
pub(crate) fn loads(arm_hz: f64) -> Vec<TopicLoad> {
    use node_glue::qos::{commands, latched, sensor};
    vec![
        TopicLoad {
            name: "/arm/position",
            type_name: "geometry_msgs/msg/PointStamped",
            qos: sensor(),
            rate_hz: arm_hz,
            make: |i, t| {
                cdr(&PointStamped {
                    header: header(t),
                    point: point(i),
                })
            },
        },
        TopicLoad {
            name: "/arm/command",
            type_name: "geometry_msgs/msg/PointStamped",
            qos: commands(),
            rate_hz: 1000.0 / 35.0,
            make: |i, t| {
                cdr(&PointStamped {
                    header: header(t),
                    point: point(i + 7),
                })
            },
        },
        TopicLoad {
            name: "/eyes/observations",
            type_name: "arnie_interfaces/msg/Coordinates",
            qos: sensor(),
            rate_hz: 20.0,
            make: |i, t| {
                let c = |k: u64| Coordinate {
                    values: vec![(i + k) as f64 * 1e-3, -0.05, 0.05, 90.0],
                };
                cdr(&Coordinates {
                    header: header(t),
                    items: vec![c(0), c(1)],
                })
            },
        },
        TopicLoad {
            name: "/sim/truth",
            type_name: "arnie_interfaces/msg/SimTruth",
            qos: latched(),
            rate_hz: 10.0,
            make: |i, t| {
                cdr(&SimTruth {
                    header: header(t),
                    arm: point(i),
                    has_target: true,
                    target: point(i + 100),
                    blocked: false,
                    lit: vec!["source".into()],
                    commands_received: i,
                    commands_dropped: 0,
                })
            },
        },
        TopicLoad {
            name: "/diagnostics",
            type_name: "diagnostic_msgs/msg/DiagnosticArray",
            qos: commands(),
            rate_hz: 6.0,
            make: |i, t| {
                let kv = |k: &str, v: u64| KeyValue {
                    key: k.into(),
                    value: v.to_string(),
                };
                cdr(&DiagnosticArray {
                    header: header(t),
                    status: vec![DiagnosticStatus {
                        level: 0,
                        name: "spine_bridge: arm".into(),
                        message: "ok".into(),
                        hardware_id: "xpc-arm".into(),
                        values: vec![
                            kv("received", i * 50),
                            kv("sent", i * 28),
                            kv("dropped", 0),
                            kv("rejected", 0),
                            kv("stale_dropped", 0),
                        ],
                    }],
                })
            },
        },
        TopicLoad {
            name: "/brain/state",
            type_name: "arnie_interfaces/msg/BrainState",
            qos: latched(),
            rate_hz: 0.5,
            make: |i, t| {
                cdr(&BrainState {
                    header: header(t),
                    task: "flame_passing".into(),
                    tick: i,
                    last_decision: format!("tick {i}: move to the flame"),
                    events: vec![BrainEvent {
                        kind: BrainEvent::IDLE as u8,
                        text: format!("tick {i}"),
                        ..BrainEvent::default()
                    }],
                    has_target: true,
                    target: point(i),
                    ..BrainState::default()
                })
            },
        },
        TopicLoad {
            name: "/trajectory/plan",
            type_name: "nav_msgs/msg/Path",
            qos: latched(),
            rate_hz: 0.5,
            make: |i, t| {
                let pose = |k: u64| {
                    let mut p = PoseStamped {
                        header: header(t.clone()),
                        ..PoseStamped::default()
                    };
                    p.pose.position = point(i * 20 + k);
                    p.pose.orientation.w = 1.0;
                    p
                };
                cdr(&NavPath {
                    header: header(t.clone()),
                    poses: (0..20).map(pose).collect(),
                })
            },
        },
    ]
}

/// Topic names of the sweep (static, as [`TopicLoad`] holds them).
pub(crate) const SWEEP_TOPICS: [&str; 20] = [
    "/sweep/t00",
    "/sweep/t01",
    "/sweep/t02",
    "/sweep/t03",
    "/sweep/t04",
    "/sweep/t05",
    "/sweep/t06",
    "/sweep/t07",
    "/sweep/t08",
    "/sweep/t09",
    "/sweep/t10",
    "/sweep/t11",
    "/sweep/t12",
    "/sweep/t13",
    "/sweep/t14",
    "/sweep/t15",
    "/sweep/t16",
    "/sweep/t17",
    "/sweep/t18",
    "/sweep/t19",
];

/// `total_hz` messages per second of exactly 100 CDR bytes (a `PointStamped` whose frame
/// id is 59 characters), over `topics` topics.
pub(crate) fn sweep_loads(topics: usize, total_hz: f64) -> Vec<TopicLoad> {
    let qos = QosProfile::default().keep_last(1000).reliable();
    SWEEP_TOPICS[..topics]
        .iter()
        .map(|name| TopicLoad {
            name,
            type_name: "geometry_msgs/msg/PointStamped",
            qos: qos.clone(),
            rate_hz: total_hz / topics as f64,
            make: |i, t| {
                cdr(&PointStamped {
                    header: r2r::std_msgs::msg::Header {
                        stamp: t,
                        frame_id: "f".repeat(59),
                    },
                    point: point(i),
                })
            },
        })
        .collect()
}
