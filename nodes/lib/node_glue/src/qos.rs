//! QoS presets (ARCHITECTURE.md §1).
use r2r::QosProfile;

/// Streams of measurements (`/arm/position`, `/eyes/observations`): best effort,
/// keep-last 5. A late sample is worth less than the next one.
pub fn sensor() -> QosProfile {
    QosProfile::sensor_data().keep_last(5)
}

/// Commands and events (`/arm/command`, `/comms/tx`, `/strategy/events`): reliable,
/// volatile, keep-last 10. Subscribers of commands must not miss one.
pub fn commands() -> QosProfile {
    QosProfile::default().keep_last(10).reliable()
}

/// Subscriptions to command topics that legacy or foreign clients publish on
/// (`/arm/target`): best effort, volatile, keep-last 10. A best-effort subscription
/// matches reliable and best-effort publishers alike (DDS), so whatever QoS a client
/// uses by default, its commands arrive; on loopback nothing is lost in practice.
pub fn legacy_commands() -> QosProfile {
    QosProfile::default().keep_last(10).best_effort()
}

/// Static things (maps, planned paths, state echoes): reliable, transient-local,
/// depth 1, so a late subscriber (rviz) still gets the last value.
pub fn latched() -> QosProfile {
    QosProfile::default()
        .keep_last(1)
        .reliable()
        .transient_local()
}
