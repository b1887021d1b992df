//! Incompatible QoS never fails silently: every node checks, on the live graph, the
//! publishers of each topic it subscribes to, and logs and counts a publisher whose
//! offered QoS its subscription cannot match (DDS then delivers nothing, with no error on
//! either side).
//!
//! - [`mismatches`]: the pure DDS rule, requested (subscription) against offered
//!   (publisher), as `rmw_qos_profile_check_compatible` applies it: reliability,
//!   durability, deadline, liveliness and its lease duration.
//! - [`QosWatch`]: the node's subscriptions (registered with
//!   [`crate::App::watch_subscription`]), checked every [`CHECK_PERIOD`] on the spin
//!   thread with `get_publishers_info_by_topic`. Each incompatible publisher is logged
//!   once (per topic and publisher gid) at WARN with both profiles, and counted in
//!   `incompatible_qos_peers` of the node's `/diagnostics` status `<node>: qos`.
//!
//! - A subscription can also name the message type it takes ([`QosWatch::watch_type`]):
//!   a publisher of another type on the same topic (DDS never matches them: nothing
//!   arrives, and nothing says so) is logged once per publisher gid at WARN, naming it,
//!   its type and the subscriber's hint (what to change), and counted in
//!   `wrong_type_peers` of the same status.
//!
//! Only the subscriber side can be checked: r2r 0.9.7 has no subscriptions-info query and
//! no QoS events, and its rcl node handle is private. A publisher of ours is therefore
//! checked by its subscribers: our nodes by this module, rclpy/rclcpp nodes by their own
//! default incompatible-QoS warning. Topic names are resolved against the node's
//! namespace (`~/` against the node); remapping rules are not applied.
use crate::diagnostics::{Counter, Level, Status};
use r2r::qos::{DurabilityPolicy, HistoryPolicy, LivelinessPolicy, QosProfile, ReliabilityPolicy};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the graph is queried.
pub const CHECK_PERIOD: Duration = Duration::from_secs(1);

/// A QoS policy that can make a publisher and a subscription incompatible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// A reliable subscription never matches a best-effort publisher.
    Reliability,
    /// A transient-local subscription never matches a volatile publisher.
    Durability,
    /// The publisher must promise a deadline at most the subscription's.
    Deadline,
    /// The publisher's liveliness kind must be at least the subscription's.
    Liveliness,
    /// The publisher's lease must be at most the subscription's.
    LivelinessLeaseDuration,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Reliability => "reliability",
            Policy::Durability => "durability",
            Policy::Deadline => "deadline",
            Policy::Liveliness => "liveliness",
            Policy::LivelinessLeaseDuration => "liveliness lease duration",
        })
    }
}

/// One reason a publisher and a subscription do not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The policy.
    pub policy: Policy,
    /// What the publisher offers (readable).
    pub offered: String,
    /// What the subscription requests (readable).
    pub requested: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: offered {}, requested {}",
            self.policy, self.offered, self.requested
        )
    }
}

/// Why `offered` (a publisher's QoS) cannot serve `requested` (a subscription's); empty
/// if they match. The DDS request-vs-offered rules:
/// - reliability: best effort offered, reliable requested;
/// - durability: volatile offered, transient local requested;
/// - deadline / liveliness lease: the subscription sets one and the publisher offers
///   none or a longer one (0 and "infinite" both mean none);
/// - liveliness: the publisher's kind is weaker (automatic < manual by node < manual by
///   topic).
///
/// "System default", "best available" and "unknown" values are not judged (DDS resolves
/// them; our presets never use them, except liveliness "system default" = automatic).
pub fn mismatches(offered: &QosProfile, requested: &QosProfile) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut push = |policy, offered: String, requested: String| {
        out.push(Mismatch {
            policy,
            offered,
            requested,
        })
    };
    if offered.reliability == ReliabilityPolicy::BestEffort
        && requested.reliability == ReliabilityPolicy::Reliable
    {
        push(
            Policy::Reliability,
            reliability(offered),
            reliability(requested),
        );
    }
    if offered.durability == DurabilityPolicy::Volatile
        && requested.durability == DurabilityPolicy::TransientLocal
    {
        push(
            Policy::Durability,
            durability(offered),
            durability(requested),
        );
    }
    if let Some(wanted) = finite(requested.deadline) {
        if finite(offered.deadline).is_none_or(|d| d > wanted) {
            push(
                Policy::Deadline,
                duration(offered.deadline),
                duration(requested.deadline),
            );
        }
    }
    if let (Some(o), Some(r)) = (
        liveliness_rank(&offered.liveliness),
        liveliness_rank(&requested.liveliness),
    ) {
        if o < r {
            push(
                Policy::Liveliness,
                liveliness(offered),
                liveliness(requested),
            );
        }
    }
    if let Some(wanted) = finite(requested.liveliness_lease_duration) {
        if finite(offered.liveliness_lease_duration).is_none_or(|d| d > wanted) {
            push(
                Policy::LivelinessLeaseDuration,
                duration(offered.liveliness_lease_duration),
                duration(requested.liveliness_lease_duration),
            );
        }
    }
    out
}

/// A profile in words, e.g. `reliable, volatile, keep last 10`. History and depth are
/// left out when unknown (the graph does not report a remote publisher's); deadline,
/// liveliness and lease only when they are not the defaults.
pub fn describe(q: &QosProfile) -> String {
    let mut parts = vec![reliability(q), durability(q)];
    match q.history {
        HistoryPolicy::KeepLast if q.depth > 0 => parts.push(format!("keep last {}", q.depth)),
        HistoryPolicy::KeepAll => parts.push("keep all".into()),
        _ => {}
    }
    if finite(q.deadline).is_some() {
        parts.push(format!("deadline {}", duration(q.deadline)));
    }
    if !matches!(
        q.liveliness,
        LivelinessPolicy::Automatic | LivelinessPolicy::SystemDefault
    ) {
        parts.push(format!("liveliness {}", liveliness(q)));
    }
    if finite(q.liveliness_lease_duration).is_some() {
        parts.push(format!("lease {}", duration(q.liveliness_lease_duration)));
    }
    parts.join(", ")
}

fn reliability(q: &QosProfile) -> String {
    match q.reliability {
        ReliabilityPolicy::Reliable => "reliable",
        ReliabilityPolicy::BestEffort => "best effort",
        ReliabilityPolicy::SystemDefault => "system-default reliability",
        _ => "unknown reliability",
    }
    .to_string()
}

fn durability(q: &QosProfile) -> String {
    match q.durability {
        DurabilityPolicy::Volatile => "volatile",
        DurabilityPolicy::TransientLocal => "transient local",
        DurabilityPolicy::SystemDefault => "system-default durability",
        _ => "unknown durability",
    }
    .to_string()
}

fn liveliness(q: &QosProfile) -> String {
    match q.liveliness {
        LivelinessPolicy::Automatic | LivelinessPolicy::SystemDefault => "automatic",
        LivelinessPolicy::ManualByNode => "manual by node",
        LivelinessPolicy::ManualByTopic => "manual by topic",
        _ => "unknown",
    }
    .to_string()
}

/// Automatic (and the system default, which is automatic) < manual by node < manual by
/// topic; `None` for values DDS resolves itself (best available, unknown).
fn liveliness_rank(p: &LivelinessPolicy) -> Option<u8> {
    match p {
        LivelinessPolicy::Automatic | LivelinessPolicy::SystemDefault => Some(0),
        LivelinessPolicy::ManualByNode => Some(1),
        LivelinessPolicy::ManualByTopic => Some(2),
        _ => None,
    }
}

/// `None` for 0 (rmw's "default") and for "infinite" (rmw's RMW_DURATION_INFINITE and
/// the older 0x7FFFFFFF-second spelling): no deadline / lease.
fn finite(d: Duration) -> Option<Duration> {
    (!d.is_zero() && d.as_secs() < 0x7FFF_FFFF).then_some(d)
}

fn duration(d: Duration) -> String {
    match finite(d) {
        None => "none".to_string(),
        Some(d) => format!("{} ms", d.as_secs_f64() * 1000.0),
    }
}

/// A topic name as rcl resolves it for a node in `namespace` called `node` (no remapping):
/// absolute names stay, `~` / `~/x` go under the node, relative names under the namespace.
pub fn resolve(namespace: &str, node: &str, name: &str) -> String {
    let ns = namespace.trim_end_matches('/');
    let ns = if ns.is_empty() || ns.starts_with('/') {
        ns.to_string()
    } else {
        format!("/{ns}")
    };
    if name.starts_with('/') {
        name.to_string()
    } else if name == "~" {
        format!("{ns}/{node}")
    } else if let Some(rest) = name.strip_prefix("~/") {
        format!("{ns}/{node}/{rest}")
    } else {
        format!("{ns}/{name}")
    }
}

/// A publisher seen on the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    /// `/namespace/name` of its node.
    pub node: String,
    /// Its endpoint gid (identifies it across queries).
    pub gid: Vec<u8>,
    /// What it offers.
    pub qos: QosProfile,
}

/// The counters a node's [`QosWatch`] shares with its `/diagnostics`.
#[derive(Debug, Default)]
pub struct QosCounters {
    /// Incompatible publishers found (each topic + publisher gid counted once).
    pub incompatible_qos_peers: Counter,
    /// Publishers of another type on a topic watched with [`QosWatch::watch_type`]
    /// (each topic + publisher gid counted once).
    pub wrong_type_peers: Counter,
    /// Subscriptions checked.
    pub watched_subscriptions: Counter,
    /// Graph queries that failed (logged once).
    pub graph_query_errors: Counter,
}

impl QosCounters {
    /// The `<node>: qos` status: WARN once an incompatible publisher was found.
    pub fn status(&self) -> Status {
        let n = self.incompatible_qos_peers.get();
        let wrong = self.wrong_type_peers.get();
        let (level, message) = if n > 0 {
            (
                Level::Warn,
                format!("{n} incompatible QoS publisher(s) found (see the log)"),
            )
        } else if wrong > 0 {
            (
                Level::Warn,
                format!("{wrong} publisher(s) of another message type found (see the log)"),
            )
        } else {
            (Level::Ok, "no incompatible QoS publisher".to_string())
        };
        Status {
            name: "qos".into(),
            level,
            message,
            values: vec![],
        }
        .with("incompatible_qos_peers", n)
        .with("wrong_type_peers", wrong)
        .with("watched_subscriptions", self.watched_subscriptions.get())
        .with("graph_query_errors", self.graph_query_errors.get())
    }
}

struct Watched {
    topic: String,
    qos: QosProfile,
}

struct TypeWatched {
    topic: String,
    type_name: String,
    hint: String,
}

/// The subscriptions of one node, checked against the publishers on the graph (see the
/// module doc). [`crate::App`] owns one and polls it from its spin loop.
pub struct QosWatch {
    watched: Vec<Watched>,
    typed: Vec<TypeWatched>,
    reported: HashSet<(String, Vec<u8>)>,
    reported_types: HashSet<(String, Vec<u8>)>,
    counters: Arc<QosCounters>,
    next: Option<Instant>,
    query_error_logged: bool,
    disabled: bool,
}

impl QosWatch {
    /// Nothing watched yet (mismatches are logged under the node's logger).
    pub fn new() -> Self {
        Self::default()
    }
}

impl Default for QosWatch {
    fn default() -> Self {
        QosWatch {
            watched: Vec::new(),
            typed: Vec::new(),
            reported: HashSet::new(),
            reported_types: HashSet::new(),
            counters: Arc::new(QosCounters::default()),
            next: None,
            query_error_logged: false,
            disabled: false,
        }
    }
}

impl QosWatch {
    /// The counters (for `/diagnostics`).
    pub fn counters(&self) -> Arc<QosCounters> {
        self.counters.clone()
    }

    /// Checks the publishers of `topic` (a resolved, absolute name) against `qos`, the
    /// QoS of this node's subscription to it.
    pub fn watch(&mut self, topic: String, qos: QosProfile) {
        self.counters.watched_subscriptions.inc();
        self.watched.push(Watched { topic, qos });
    }

    /// Checks the publishers of `topic` (resolved, absolute) for their message type: one
    /// of another type than `type_name` (`geometry_msgs/msg/Twist`) is logged once with
    /// `hint` (what the user can change) and counted in `wrong_type_peers`.
    pub fn watch_type(&mut self, topic: String, type_name: String, hint: String) {
        self.typed.push(TypeWatched {
            topic,
            type_name,
            hint,
        });
    }

    /// Judges the type of one publisher of typed watch `index`: `Some(log line)` the
    /// first time a publisher (topic + gid) of another type is seen, which is counted.
    pub fn judge_type(
        &mut self,
        index: usize,
        node: &str,
        gid: &[u8],
        type_name: &str,
    ) -> Option<String> {
        let w = self.typed.get(index)?;
        if type_name == w.type_name || !self.reported_types.insert((w.topic.clone(), gid.to_vec()))
        {
            return None;
        }
        self.counters.wrong_type_peers.inc();
        Some(format!(
            "{}: publisher {node} (gid {}) publishes {type_name}, but this node subscribes {}: nothing it publishes reaches this node; {}",
            w.topic,
            hex(gid),
            w.type_name,
            w.hint
        ))
    }

    /// Judges one publisher of watched subscription `index`: `Some(log line)` the first
    /// time an incompatible publisher (topic + gid) is seen, which is then counted.
    fn judge(&mut self, index: usize, peer: &Peer) -> Option<String> {
        let w = self.watched.get(index)?;
        let found = mismatches(&peer.qos, &w.qos);
        if found.is_empty() || !self.reported.insert((w.topic.clone(), peer.gid.clone())) {
            return None;
        }
        self.counters.incompatible_qos_peers.inc();
        let why: Vec<String> = found.iter().map(Mismatch::to_string).collect();
        Some(format!(
            "incompatible QoS on {}: publisher {} (gid {}) offers [{}], this node's subscription requests [{}]; {}. Nothing it publishes reaches this node.",
            w.topic,
            peer.node,
            hex(&peer.gid),
            describe(&peer.qos),
            describe(&w.qos),
            why.join("; ")
        ))
    }

    /// Queries the graph (at most every [`CHECK_PERIOD`]) and logs what is new. Never
    /// panics: a failing query is counted and logged once; a panic inside r2r's query
    /// (a value it cannot convert) turns the check off with one error line.
    pub fn poll(&mut self, node: &r2r::Node, now: Instant) {
        if self.disabled
            || (self.watched.is_empty() && self.typed.is_empty())
            || self.next.is_some_and(|t| now < t)
        {
            return;
        }
        self.next = Some(now + CHECK_PERIOD);
        for index in 0..self.typed.len() {
            let topic = self.typed[index].topic.clone();
            let query = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                node.get_publishers_info_by_topic(&topic, false)
            }));
            let Ok(Ok(infos)) = query else {
                self.counters.graph_query_errors.inc();
                continue;
            };
            for info in infos {
                let peer = resolve(&info.node_namespace, &info.node_name, "~");
                if let Some(line) =
                    self.judge_type(index, &peer, &info.endpoint_gid, &info.topic_type)
                {
                    crate::log_warn!("{line}");
                }
            }
        }
        for index in 0..self.watched.len() {
            let topic = self.watched[index].topic.clone();
            let query = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                node.get_publishers_info_by_topic(&topic, false)
            }));
            let infos = match query {
                Ok(Ok(infos)) => infos,
                Ok(Err(e)) => {
                    self.counters.graph_query_errors.inc();
                    if !std::mem::replace(&mut self.query_error_logged, true) {
                        crate::log_warn!("QoS check: cannot list the publishers of {topic}: {e}");
                    }
                    continue;
                }
                Err(_) => {
                    self.counters.graph_query_errors.inc();
                    self.disabled = true;
                    crate::log_error!("QoS check: the graph query for {topic} failed inside r2r; QoS checks are off"
                    );
                    return;
                }
            };
            for info in infos {
                let peer = Peer {
                    node: resolve(&info.node_namespace, &info.node_name, "~"),
                    gid: info.endpoint_gid.to_vec(),
                    qos: info.qos_profile,
                };
                if let Some(line) = self.judge(index, &peer) {
                    crate::log_warn!("{line}");
                }
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    bytes[..end].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos;

    fn policies(offered: &QosProfile, requested: &QosProfile) -> Vec<Policy> {
        mismatches(offered, requested)
            .iter()
            .map(|m| m.policy)
            .collect()
    }

    #[test]
    fn a_publisher_of_another_type_is_reported_once_with_the_hint() {
        let mut w = QosWatch::new();
        w.watch_type(
            "/cmd_vel".into(),
            "geometry_msgs/msg/Twist".into(),
            "set cmd_vel_stamped".into(),
        );
        assert_eq!(
            w.judge_type(0, "/teleop", &[1, 2], "geometry_msgs/msg/Twist"),
            None
        );
        let line = w
            .judge_type(0, "/nav", &[3, 0], "geometry_msgs/msg/TwistStamped")
            .unwrap();
        assert_eq!(line, "/cmd_vel: publisher /nav (gid 03) publishes geometry_msgs/msg/TwistStamped, but this node subscribes geometry_msgs/msg/Twist: nothing it publishes reaches this node; set cmd_vel_stamped");
        assert_eq!(
            w.judge_type(0, "/nav", &[3, 0], "geometry_msgs/msg/TwistStamped"),
            None
        );
        assert_eq!(w.counters().wrong_type_peers.get(), 1);
        assert_eq!(w.counters().status().level, Level::Warn);
    }

    #[test]
    fn best_effort_never_serves_a_reliable_subscription() {
        // The issue-18 case: the spine published best effort, /arm/target was reliable.
        assert_eq!(
            policies(&qos::sensor(), &qos::commands()),
            vec![Policy::Reliability]
        );
        let m = &mismatches(&qos::sensor(), &qos::commands())[0];
        assert_eq!(
            m.to_string(),
            "reliability: offered best effort, requested reliable"
        );
        // A best-effort subscription takes both.
        assert!(mismatches(&qos::sensor(), &qos::sensor()).is_empty());
        assert!(mismatches(&qos::commands(), &qos::sensor()).is_empty());
        assert!(mismatches(&qos::commands(), &qos::commands()).is_empty());
    }

    #[test]
    fn volatile_never_serves_a_transient_local_subscription() {
        assert_eq!(
            policies(&qos::commands(), &qos::latched()),
            vec![Policy::Durability]
        );
        assert_eq!(
            policies(&qos::sensor(), &qos::latched()),
            vec![Policy::Reliability, Policy::Durability]
        );
        assert!(mismatches(&qos::latched(), &qos::commands()).is_empty());
        assert!(mismatches(&qos::latched(), &qos::latched()).is_empty());
    }

    #[test]
    fn deadline_and_lease_must_be_promised_at_least_as_tight() {
        let ms = Duration::from_millis;
        let infinite = Duration::new(9_223_372_036, 854_775_807); // RMW_DURATION_INFINITE
        let sub = qos::commands().deadline(ms(100));
        assert_eq!(policies(&qos::commands(), &sub), vec![Policy::Deadline]); // none offered
        assert_eq!(
            policies(&qos::commands().deadline(infinite), &sub),
            vec![Policy::Deadline]
        );
        assert_eq!(
            policies(&qos::commands().deadline(ms(200)), &sub),
            vec![Policy::Deadline]
        );
        assert!(mismatches(&qos::commands().deadline(ms(100)), &sub).is_empty());
        assert!(mismatches(&qos::commands().deadline(ms(50)), &qos::commands()).is_empty());
        assert!(mismatches(
            &qos::commands().deadline(ms(50)),
            &qos::commands().deadline(infinite)
        )
        .is_empty());
        let sub = qos::commands().liveliness_lease_duration(ms(500));
        assert_eq!(
            policies(&qos::commands(), &sub),
            vec![Policy::LivelinessLeaseDuration]
        );
        assert!(mismatches(&qos::commands().liveliness_lease_duration(ms(400)), &sub).is_empty());
    }

    #[test]
    fn liveliness_kind_must_be_at_least_the_requested_one() {
        let manual = qos::commands().liveliness(LivelinessPolicy::ManualByTopic);
        let auto = qos::commands().liveliness(LivelinessPolicy::Automatic);
        assert_eq!(policies(&auto, &manual), vec![Policy::Liveliness]);
        assert_eq!(
            policies(&qos::commands(), &manual),
            vec![Policy::Liveliness]
        ); // system default = automatic
        assert!(mismatches(&manual, &auto).is_empty());
        let by_node = qos::commands().liveliness(LivelinessPolicy::ManualByNode);
        assert_eq!(policies(&by_node, &manual), vec![Policy::Liveliness]);
        assert!(mismatches(&by_node, &auto).is_empty());
    }

    #[test]
    fn undetermined_values_are_not_judged() {
        let sys = QosProfile::default()
            .reliability(ReliabilityPolicy::SystemDefault)
            .durability(DurabilityPolicy::SystemDefault);
        assert!(mismatches(&sys, &qos::latched()).is_empty());
        assert!(mismatches(&qos::sensor(), &sys).is_empty());
        let unknown = QosProfile::default().reliability(ReliabilityPolicy::Unknown);
        assert!(mismatches(&unknown, &qos::commands()).is_empty());
    }

    #[test]
    fn profiles_are_named_in_words() {
        assert_eq!(
            describe(&qos::sensor()),
            "best effort, volatile, keep last 5"
        );
        assert_eq!(
            describe(&qos::latched()),
            "reliable, transient local, keep last 1"
        );
        // As the graph reports a remote publisher: no history, infinite deadline.
        let mut remote = qos::commands().deadline(Duration::new(9_223_372_036, 854_775_807));
        remote.history = HistoryPolicy::Unknown;
        remote.depth = 0;
        assert_eq!(describe(&remote), "reliable, volatile");
        let strict = qos::commands()
            .deadline(Duration::from_millis(20))
            .liveliness(LivelinessPolicy::ManualByTopic);
        assert_eq!(
            describe(&strict),
            "reliable, volatile, keep last 10, deadline 20 ms, liveliness manual by topic"
        );
    }

    #[test]
    fn names_resolve_like_rcl() {
        assert_eq!(resolve("/", "brain", "arm/position"), "/arm/position");
        assert_eq!(resolve("", "brain", "arm/position"), "/arm/position");
        assert_eq!(
            resolve("/left", "brain", "arm/position"),
            "/left/arm/position"
        );
        assert_eq!(resolve("/left/", "brain", "/diagnostics"), "/diagnostics");
        assert_eq!(resolve("/left", "brain", "~/state"), "/left/brain/state");
        assert_eq!(resolve("/", "brain", "~"), "/brain");
    }

    #[test]
    fn each_incompatible_publisher_is_logged_and_counted_once() {
        let mut watch = QosWatch::new();
        watch.watch("/arm/target".into(), qos::commands());
        let spine = Peer {
            node: "/spine_bridge".into(),
            gid: vec![1, 2, 0, 0],
            qos: qos::sensor(),
        };
        let line = watch.judge(0, &spine).expect("logged");
        assert!(
            line.contains("/arm/target")
                && line.contains("/spine_bridge")
                && line.contains("gid 0102"),
            "{line}"
        );
        assert!(
            line.contains("offers [best effort, volatile, keep last 5]"),
            "{line}"
        );
        assert!(
            line.contains("requests [reliable, volatile, keep last 10]"),
            "{line}"
        );
        assert!(
            line.contains("reliability: offered best effort, requested reliable"),
            "{line}"
        );
        assert_eq!(watch.judge(0, &spine), None); // seen: not again
        let good = Peer {
            node: "/brain".into(),
            gid: vec![3],
            qos: qos::commands(),
        };
        assert_eq!(watch.judge(0, &good), None);
        let other = Peer {
            node: "/spine_bridge".into(),
            gid: vec![9],
            qos: qos::sensor(),
        };
        assert!(watch.judge(0, &other).is_some()); // a new publisher (restarted): a new peer
        assert_eq!(watch.judge(7, &other), None); // no such subscription
        let counters = watch.counters();
        assert_eq!(counters.incompatible_qos_peers.get(), 2);
        let status = counters.status();
        assert_eq!(status.level, Level::Warn);
        assert!(status
            .values
            .contains(&("incompatible_qos_peers".into(), "2".into())));
        assert!(status
            .values
            .contains(&("watched_subscriptions".into(), "1".into())));
    }
}
