//! Which topics and services to record: rosbag2's `TopicFilter::take_topic` (Jazzy).
//!
//! A plain topic is taken when it has one type and: `--all`/`--all-topics`, or it is
//! named, or its type is in `--topic-types`, or `--regex` finds a match in its name (a
//! search, not a whole-name match); and it is not in `--exclude-topics`, its type not in
//! `--exclude-topic-types`, `--exclude-regex` finds no match, and it is not hidden (a
//! name part starting with `_`) unless hidden topics are included.
//!
//! A service is recorded through its service-introspection topic
//! (`/<service>/_service_event`, type `<pkg>/srv/<Name>_Event`): taken on
//! `--all`/`--all-services`, when named in `--services`, or when `--regex` finds a match
//! in the service's name; then left out by `--exclude-services` or `--exclude-regex`
//! (again on the service's name). Event topics are never "hidden" for this purpose.

use regex::Regex;

use crate::error::{BagError, Result};

/// The tail rcl gives a service's introspection topic.
pub const SERVICE_EVENT_SUFFIX: &str = "/_service_event";

/// Whether `topic` of type `type_name` carries a service's events (rosbag2's
/// `is_service_event_topic`: the name ends in `/_service_event`, the type is
/// `<pkg>/srv/<Name>_Event`).
pub fn is_service_event(topic: &str, type_name: &str) -> bool {
    topic.len() > SERVICE_EVENT_SUFFIX.len()
        && topic.ends_with(SERVICE_EVENT_SUFFIX)
        && type_name.len() > "_Event".len()
        && type_name.contains("/srv/")
        && type_name.ends_with("_Event")
}

/// The service whose events `topic` carries (`/add/_service_event` → `/add`).
pub fn service_of_event_topic(topic: &str) -> &str {
    topic.strip_suffix(SERVICE_EVENT_SUFFIX).unwrap_or(topic)
}

/// The service type of an event type (`pkg/srv/Add_Event` → `pkg/srv/Add`).
pub fn service_of_event_type(type_name: &str) -> &str {
    type_name.strip_suffix("_Event").unwrap_or(type_name)
}

/// A service's event topic (`/add` → `/add/_service_event`; a name that already is one
/// stays as it is).
pub fn event_topic_of_service(service: &str) -> String {
    if service.len() > SERVICE_EVENT_SUFFIX.len() && service.ends_with(SERVICE_EVENT_SUFFIX) {
        service.to_string()
    } else {
        format!("{service}{SERVICE_EVENT_SUFFIX}")
    }
}

/// `service_msgs/msg/ServiceEventInfo`'s `event_type`s.
pub mod event_type {
    /// A client sent a request (client-side introspection).
    pub const REQUEST_SENT: u8 = 0;
    /// A service received a request (service-side introspection).
    pub const REQUEST_RECEIVED: u8 = 1;
    /// A service sent a response.
    pub const RESPONSE_SENT: u8 = 2;
    /// A client received a response.
    pub const RESPONSE_RECEIVED: u8 = 3;

    /// The `event_type` of a service event in CDR, read without decoding the event: the
    /// first field of its first member (`info: ServiceEventInfo`), a `uint8` right after
    /// the 4-byte encapsulation header. `None` when the bytes are too short to hold it.
    pub fn of_cdr(cdr: &[u8]) -> Option<u8> {
        cdr.get(4).copied()
    }
}

/// Which recorded requests `play --publish-service-requests` sends again (rosbag2's
/// `--service-requests-source`): the ones a service received (its introspection), or the
/// ones a client sent (the client's). Each request is recorded once on each side that
/// has introspection on, so one side is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestSource {
    /// `service_introspection` (rosbag2's default): `REQUEST_RECEIVED` events.
    #[default]
    Service,
    /// `client_introspection`: `REQUEST_SENT` events.
    Client,
}

impl RequestSource {
    /// The names `--service-requests-source` takes.
    pub const NAMES: [&'static str; 2] = ["service_introspection", "client_introspection"];

    /// From its command-line name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "service_introspection" => Some(RequestSource::Service),
            "client_introspection" => Some(RequestSource::Client),
            _ => None,
        }
    }

    /// Whether an event of `event_type` is a request this source sends (responses never
    /// are; rosbag2 skips them the same way).
    pub fn sends(self, event_type: u8) -> bool {
        match self {
            RequestSource::Service => event_type == event_type::REQUEST_RECEIVED,
            RequestSource::Client => event_type == event_type::REQUEST_SENT,
        }
    }
}

/// What the command line selected, before checking (names fully qualified: `/a/b`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--all-topics` (or `-a/--all`).
    pub all_topics: bool,
    /// `--all-services` (or `-a/--all`).
    pub all_services: bool,
    /// Topics named (positional words and `--topics`).
    pub topics: Vec<String>,
    /// `--topic-types`.
    pub topic_types: Vec<String>,
    /// `--services`, as service names (`/add`) or event topics.
    pub services: Vec<String>,
    /// `-e/--regex`.
    pub regex: Option<String>,
    /// `-x/--exclude-regex`.
    pub exclude_regex: Option<String>,
    /// `--exclude-topics`.
    pub exclude_topics: Vec<String>,
    /// `--exclude-topic-types`.
    pub exclude_topic_types: Vec<String>,
    /// `--exclude-services`.
    pub exclude_services: Vec<String>,
    /// `--include-hidden-topics`.
    pub include_hidden: bool,
}

/// The recorder's topic and service selection, checked.
#[derive(Debug, Clone, Default)]
pub struct TopicFilter {
    all_topics: bool,
    all_services: bool,
    topics: Vec<String>,
    topic_types: Vec<String>,
    services: Vec<String>,
    regex: Option<Regex>,
    exclude_regex: Option<Regex>,
    exclude_topics: Vec<String>,
    exclude_topic_types: Vec<String>,
    exclude_services: Vec<String>,
    include_hidden: bool,
}

/// Why a topic was not taken (the glue logs it once per topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Not selected by name, type, `--all*` or `--regex`.
    NotSelected,
    /// Selected, then excluded by `--exclude-*`.
    Excluded,
    /// A hidden topic (`/_x`, `/a/_b`).
    Hidden,
    /// Several types on one topic (rosbag2 records only single-type topics).
    SeveralTypes(Vec<String>),
    /// No type yet.
    NoType,
}

impl TopicFilter {
    /// Builds the filter; names should already be fully qualified (`/a/b`).
    ///
    /// # Errors
    /// [`BagError::BadOption`] for a regex that does not compile, and for the
    /// combinations `ros2 bag record` refuses (an exclusion with nothing broad to
    /// exclude from).
    pub fn new(s: Selection) -> Result<Self> {
        let compile = |opt: &str, r: Option<&str>| -> Result<Option<Regex>> {
            match r {
                None | Some("") => Ok(None),
                Some(r) => Regex::new(r)
                    .map(Some)
                    .map_err(|e| BagError::option(opt, format!("bad regex: {e}"))),
            }
        };
        let regex = compile("--regex", s.regex.as_deref())?;
        let exclude_regex = compile("--exclude-regex", s.exclude_regex.as_deref())?;
        let broad_topics = s.all_topics || !s.topic_types.is_empty() || regex.is_some();
        // (given, allowed, flag, what it needs): ros2 bag record's refusals.
        let checks = [
            (
                exclude_regex.is_some(),
                broad_topics || s.all_services,
                "--exclude-regex",
                "--all, --all-topics, --topic-types, --all-services or --regex",
            ),
            (
                !s.exclude_topics.is_empty(),
                broad_topics,
                "--exclude-topics",
                "--all, --all-topics, --topic-types or --regex",
            ),
            (
                !s.exclude_topic_types.is_empty(),
                broad_topics,
                "--exclude-topic-types",
                "--all, --all-topics, --topic-types or --regex",
            ),
            (
                !s.exclude_services.is_empty(),
                s.all_services || regex.is_some(),
                "--exclude-services",
                "--all, --all-services or --regex",
            ),
        ];
        if let Some((_, _, flag, needs)) = checks.iter().find(|(given, ok, ..)| *given && !*ok) {
            return Err(BagError::option(*flag, format!("needs {needs}")));
        }
        Ok(TopicFilter {
            all_topics: s.all_topics,
            all_services: s.all_services,
            topics: s.topics,
            topic_types: s.topic_types,
            services: s
                .services
                .iter()
                .map(|v| event_topic_of_service(v))
                .collect(),
            regex,
            exclude_regex,
            exclude_topics: s.exclude_topics,
            exclude_topic_types: s.exclude_topic_types,
            exclude_services: s
                .exclude_services
                .iter()
                .map(|v| event_topic_of_service(v))
                .collect(),
            include_hidden: s.include_hidden,
        })
    }

    /// True when nothing at all is selected (rosbag2 then refuses to start).
    pub fn selects_nothing(&self) -> bool {
        !self.all_topics
            && !self.all_services
            && self.topics.is_empty()
            && self.topic_types.is_empty()
            && self.services.is_empty()
            && self.regex.is_none()
    }

    /// Whether to record `topic` with these types; `Ok(type)` when taken.
    pub fn take(&self, topic: &str, types: &[String]) -> std::result::Result<String, Skip> {
        let Some(first) = types.first() else {
            return Err(Skip::NoType);
        };
        if types.iter().any(|t| t != first) {
            return Err(Skip::SeveralTypes(types.to_vec()));
        }
        if is_service_event(topic, first) {
            self.take_service(topic)?;
        } else {
            self.take_topic(topic, first)?;
        }
        Ok(first.clone())
    }

    fn take_topic(&self, topic: &str, type_name: &str) -> std::result::Result<(), Skip> {
        let named = self.topics.iter().any(|t| t == topic)
            || self.topic_types.iter().any(|t| t == type_name);
        if !self.all_topics && !named {
            match &self.regex {
                Some(r) if r.is_match(topic) => {}
                _ => return Err(Skip::NotSelected),
            }
        }
        if self.exclude_topic_types.iter().any(|t| t == type_name)
            || self.exclude_topics.iter().any(|t| t == topic)
            || self
                .exclude_regex
                .as_ref()
                .is_some_and(|r| r.is_match(topic))
        {
            return Err(Skip::Excluded);
        }
        if !self.include_hidden && is_hidden(topic) {
            return Err(Skip::Hidden);
        }
        Ok(())
    }

    fn take_service(&self, topic: &str) -> std::result::Result<(), Skip> {
        let service = service_of_event_topic(topic);
        if !self.all_services && !self.services.iter().any(|t| t == topic) {
            match &self.regex {
                Some(r) if r.is_match(service) => {}
                _ => return Err(Skip::NotSelected),
            }
        }
        if self.exclude_services.iter().any(|t| t == topic)
            || self
                .exclude_regex
                .as_ref()
                .is_some_and(|r| r.is_match(service))
        {
            return Err(Skip::Excluded);
        }
        Ok(())
    }
}

/// A name with a part that starts with `_` (rclpy's `topic_or_service_is_hidden`).
pub fn is_hidden(topic: &str) -> bool {
    topic.split('/').any(|p| p.starts_with('_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Vec<String> {
        vec![s.to_string()]
    }

    fn sel() -> Selection {
        Selection::default()
    }

    #[test]
    fn selection_like_rosbag2() {
        let f = TopicFilter::new(Selection {
            topics: vec!["/a".into()],
            regex: Some("^/arm/".into()),
            exclude_regex: Some("command$".into()),
            exclude_topics: vec!["/arm/x".into()],
            ..sel()
        })
        .unwrap();
        assert_eq!(
            f.take("/a", &t("std_msgs/msg/String")),
            Ok("std_msgs/msg/String".into())
        );
        assert_eq!(f.take("/arm/position", &t("T")), Ok("T".into()));
        assert_eq!(f.take("/arm/command", &t("T")), Err(Skip::Excluded));
        assert_eq!(f.take("/arm/x", &t("T")), Err(Skip::Excluded));
        assert_eq!(f.take("/b", &t("T")), Err(Skip::NotSelected));
        // regex_search: anywhere in the name.
        let f = TopicFilter::new(Selection {
            regex: Some("pos".into()),
            ..sel()
        })
        .unwrap();
        assert!(f.take("/arm/position", &t("T")).is_ok());
        let all = TopicFilter::new(Selection {
            all_topics: true,
            ..sel()
        })
        .unwrap();
        assert_eq!(all.take("/x/_hidden", &t("T")), Err(Skip::Hidden));
        assert!(matches!(
            all.take("/x", &["A".into(), "B".into()]),
            Err(Skip::SeveralTypes(_))
        ));
        assert!(TopicFilter::new(Selection {
            regex: Some("(".into()),
            ..sel()
        })
        .is_err());
        assert!(TopicFilter::new(sel()).unwrap().selects_nothing());
    }

    const EV: &str = "lifecycle_msgs/srv/GetState_Event";

    #[test]
    fn services_are_their_event_topics() {
        assert!(is_service_event("/a/_service_event", EV));
        assert!(!is_service_event(
            "/a/_service_event",
            "std_msgs/msg/String"
        ));
        assert!(!is_service_event("/_service_event", EV));
        assert!(!is_service_event("/a/service_event", EV));
        assert_eq!(service_of_event_topic("/a/b/_service_event"), "/a/b");
        assert_eq!(service_of_event_type(EV), "lifecycle_msgs/srv/GetState");
        assert_eq!(event_topic_of_service("/a"), "/a/_service_event");
        assert_eq!(
            event_topic_of_service("/a/_service_event"),
            "/a/_service_event"
        );
        // --all-topics takes no service; --all-services no topic.
        let topics = TopicFilter::new(Selection {
            all_topics: true,
            ..sel()
        })
        .unwrap();
        assert_eq!(
            topics.take("/get/_service_event", &t(EV)),
            Err(Skip::NotSelected)
        );
        let services = TopicFilter::new(Selection {
            all_services: true,
            exclude_services: vec!["/other".into()],
            ..sel()
        })
        .unwrap();
        assert!(services.take("/get/_service_event", &t(EV)).is_ok());
        assert_eq!(
            services.take("/other/_service_event", &t(EV)),
            Err(Skip::Excluded)
        );
        assert_eq!(services.take("/chatter", &t("T")), Err(Skip::NotSelected));
        // Named services; the regex searches the service's name, not the event topic's.
        let named = TopicFilter::new(Selection {
            services: vec!["/get".into()],
            ..sel()
        })
        .unwrap();
        assert!(named.take("/get/_service_event", &t(EV)).is_ok());
        assert_eq!(
            named.take("/put/_service_event", &t(EV)),
            Err(Skip::NotSelected)
        );
        let re = TopicFilter::new(Selection {
            regex: Some("event$".into()),
            ..sel()
        })
        .unwrap();
        assert_eq!(
            re.take("/get/_service_event", &t(EV)),
            Err(Skip::NotSelected)
        );
    }

    #[test]
    fn types_and_exclusions_like_ros2_bag_record() {
        let f = TopicFilter::new(Selection {
            topic_types: vec!["std_msgs/msg/String".into()],
            exclude_topics: vec!["/b".into()],
            ..sel()
        })
        .unwrap();
        assert!(f.take("/a", &t("std_msgs/msg/String")).is_ok());
        assert_eq!(f.take("/b", &t("std_msgs/msg/String")), Err(Skip::Excluded));
        assert_eq!(
            f.take("/c", &t("std_msgs/msg/Int32")),
            Err(Skip::NotSelected)
        );
        let f = TopicFilter::new(Selection {
            all_topics: true,
            exclude_topic_types: vec!["std_msgs/msg/Int32".into()],
            ..sel()
        })
        .unwrap();
        assert_eq!(f.take("/c", &t("std_msgs/msg/Int32")), Err(Skip::Excluded));
        // Exclusions with nothing broad to exclude from are refused, as by ros2 bag.
        for bad in [
            Selection {
                topics: vec!["/a".into()],
                exclude_topics: vec!["/a".into()],
                ..sel()
            },
            Selection {
                topics: vec!["/a".into()],
                exclude_regex: Some("a".into()),
                ..sel()
            },
            Selection {
                all_topics: true,
                exclude_services: vec!["/s".into()],
                ..sel()
            },
        ] {
            assert!(TopicFilter::new(bad).is_err());
        }
    }

    #[test]
    fn a_request_source_sends_its_side_only() {
        use super::event_type::*;
        let service = RequestSource::parse("service_introspection").unwrap();
        let client = RequestSource::parse("client_introspection").unwrap();
        assert_eq!(service, RequestSource::default());
        assert!(RequestSource::parse("both").is_none());
        for (source, yes) in [(service, REQUEST_RECEIVED), (client, REQUEST_SENT)] {
            for t in [
                REQUEST_SENT,
                REQUEST_RECEIVED,
                RESPONSE_SENT,
                RESPONSE_RECEIVED,
                9,
            ] {
                assert_eq!(source.sends(t), t == yes, "{source:?} {t}");
            }
        }
    }

    #[test]
    fn the_event_type_is_the_byte_after_the_encapsulation_header() {
        use super::event_type::{of_cdr, RESPONSE_SENT};
        // CDR little endian, then info.event_type, then padding and info.stamp.sec.
        let event = [0, 1, 0, 0, RESPONSE_SENT, 0, 0, 0, 7, 0, 0, 0];
        assert_eq!(of_cdr(&event), Some(RESPONSE_SENT));
        assert_eq!(of_cdr(&event[..4]), None);
        assert_eq!(of_cdr(&[]), None);
    }
}
