//! QoS profiles between r2r's [`QosProfile`] and the library's [`Qos`].

use std::time::Duration;

use r2r::qos::{DurabilityPolicy, HistoryPolicy, LivelinessPolicy, ReliabilityPolicy};
use r2r::QosProfile;

use crate::qos::{Durability, History, Liveliness, Qos, Reliability, RmwTime};

fn time_from(d: Duration) -> RmwTime {
    RmwTime {
        sec: d.as_secs(),
        nsec: u64::from(d.subsec_nanos()),
    }
}

fn time_to(t: RmwTime) -> Duration {
    // Duration::new carries nanoseconds over; saturate instead of overflowing.
    Duration::from_secs(t.sec).saturating_add(Duration::from_nanos(t.nsec))
}

/// A profile the graph reports (a publisher's offer) as the library stores it.
pub fn from_r2r(q: &QosProfile) -> Qos {
    Qos {
        history: match q.history {
            HistoryPolicy::KeepAll => History::KeepAll,
            HistoryPolicy::KeepLast => History::KeepLast,
            HistoryPolicy::SystemDefault => History::SystemDefault,
            HistoryPolicy::Unknown => History::Unknown,
        },
        depth: q.depth as u64,
        reliability: match q.reliability {
            ReliabilityPolicy::BestEffort => Reliability::BestEffort,
            ReliabilityPolicy::Reliable => Reliability::Reliable,
            ReliabilityPolicy::SystemDefault => Reliability::SystemDefault,
            ReliabilityPolicy::BestAvailable => Reliability::BestAvailable,
            ReliabilityPolicy::Unknown => Reliability::Unknown,
        },
        durability: match q.durability {
            DurabilityPolicy::TransientLocal => Durability::TransientLocal,
            DurabilityPolicy::Volatile => Durability::Volatile,
            DurabilityPolicy::SystemDefault => Durability::SystemDefault,
            DurabilityPolicy::BestAvailable => Durability::BestAvailable,
            DurabilityPolicy::Unknown => Durability::Unknown,
        },
        deadline: time_from(q.deadline),
        lifespan: time_from(q.lifespan),
        liveliness: match q.liveliness {
            LivelinessPolicy::Automatic => Liveliness::Automatic,
            LivelinessPolicy::ManualByNode => Liveliness::ManualByNode,
            LivelinessPolicy::ManualByTopic => Liveliness::ManualByTopic,
            LivelinessPolicy::SystemDefault => Liveliness::SystemDefault,
            LivelinessPolicy::BestAvailable => Liveliness::BestAvailable,
            LivelinessPolicy::Unknown => Liveliness::Unknown,
        },
        liveliness_lease_duration: time_from(q.liveliness_lease_duration),
        avoid_ros_namespace_conventions: q.avoid_ros_namespace_conventions,
    }
}

/// A library profile (a subscription request or a playing offer) for r2r. An `Unknown`
/// policy (only in bags) becomes the system default.
pub fn to_r2r(q: &Qos) -> QosProfile {
    QosProfile {
        history: match q.history {
            History::KeepAll => HistoryPolicy::KeepAll,
            History::KeepLast => HistoryPolicy::KeepLast,
            History::SystemDefault | History::Unknown => HistoryPolicy::SystemDefault,
        },
        depth: usize::try_from(q.depth).unwrap_or(usize::MAX),
        reliability: match q.reliability {
            Reliability::BestEffort => ReliabilityPolicy::BestEffort,
            Reliability::Reliable => ReliabilityPolicy::Reliable,
            Reliability::BestAvailable => ReliabilityPolicy::BestAvailable,
            Reliability::SystemDefault | Reliability::Unknown => ReliabilityPolicy::SystemDefault,
        },
        durability: match q.durability {
            Durability::TransientLocal => DurabilityPolicy::TransientLocal,
            Durability::Volatile => DurabilityPolicy::Volatile,
            Durability::BestAvailable => DurabilityPolicy::BestAvailable,
            Durability::SystemDefault | Durability::Unknown => DurabilityPolicy::SystemDefault,
        },
        deadline: time_to(q.deadline),
        lifespan: time_to(q.lifespan),
        liveliness: match q.liveliness {
            Liveliness::Automatic => LivelinessPolicy::Automatic,
            Liveliness::ManualByNode => LivelinessPolicy::ManualByNode,
            Liveliness::ManualByTopic => LivelinessPolicy::ManualByTopic,
            Liveliness::BestAvailable => LivelinessPolicy::BestAvailable,
            Liveliness::SystemDefault | Liveliness::Unknown => LivelinessPolicy::SystemDefault,
        },
        liveliness_lease_duration: time_to(q.liveliness_lease_duration),
        avoid_ros_namespace_conventions: q.avoid_ros_namespace_conventions,
    }
}
