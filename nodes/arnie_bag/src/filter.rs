//! Which topics to record: rosbag2's `TopicFilter::take_topic` for topics.
//!
//! A topic is taken when it has one type and: `--all`, or it is named, or `--regex`
//! finds a match in its name (a search, not a whole-name match); and it is not in
//! `--exclude-topics`, `--exclude-regex` finds no match, and it is not hidden (a name
//! part starting with `_`) unless hidden topics are included.

use regex::Regex;

use crate::error::{BagError, Result};

/// The recorder's topic selection, checked.
#[derive(Debug, Clone, Default)]
pub struct TopicFilter {
    all: bool,
    topics: Vec<String>,
    regex: Option<Regex>,
    exclude_regex: Option<Regex>,
    exclude_topics: Vec<String>,
    include_hidden: bool,
}

/// Why a topic was not taken (the glue logs it once per topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Not selected by name, `--all` or `--regex`.
    NotSelected,
    /// Selected, then excluded by `--exclude-topics` or `--exclude-regex`.
    Excluded,
    /// A hidden topic (`/_x`, `/a/_b`).
    Hidden,
    /// Several types on one topic (rosbag2 records only single-type topics).
    SeveralTypes(Vec<String>),
    /// No type yet.
    NoType,
}

impl TopicFilter {
    /// Builds the filter; topic names should already be fully qualified (`/a/b`).
    ///
    /// # Errors
    /// [`BagError::BadOption`] for a regex that does not compile.
    pub fn new(
        all: bool,
        topics: Vec<String>,
        regex: Option<&str>,
        exclude_regex: Option<&str>,
        exclude_topics: Vec<String>,
        include_hidden: bool,
    ) -> Result<Self> {
        let compile = |opt: &str, r: Option<&str>| -> Result<Option<Regex>> {
            match r {
                None | Some("") => Ok(None),
                Some(r) => Regex::new(r)
                    .map(Some)
                    .map_err(|e| BagError::option(opt, format!("bad regex: {e}"))),
            }
        };
        Ok(TopicFilter {
            all,
            topics,
            regex: compile("--regex", regex)?,
            exclude_regex: compile("--exclude-regex", exclude_regex)?,
            exclude_topics,
            include_hidden,
        })
    }

    /// True when nothing at all is selected (rosbag2 then refuses to start).
    pub fn selects_nothing(&self) -> bool {
        !self.all && self.topics.is_empty() && self.regex.is_none()
    }

    /// Whether to record `topic` with these types; `Ok(type)` when taken.
    pub fn take(&self, topic: &str, types: &[String]) -> std::result::Result<String, Skip> {
        let Some(first) = types.first() else {
            return Err(Skip::NoType);
        };
        if types.iter().any(|t| t != first) {
            return Err(Skip::SeveralTypes(types.to_vec()));
        }
        if !self.all && !self.topics.iter().any(|t| t == topic) {
            match &self.regex {
                Some(r) if r.is_match(topic) => {}
                _ => return Err(Skip::NotSelected),
            }
        }
        if self.exclude_topics.iter().any(|t| t == topic) {
            return Err(Skip::Excluded);
        }
        if self
            .exclude_regex
            .as_ref()
            .is_some_and(|r| r.is_match(topic))
        {
            return Err(Skip::Excluded);
        }
        if !self.include_hidden && is_hidden(topic) {
            return Err(Skip::Hidden);
        }
        Ok(first.clone())
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

    #[test]
    fn selection_like_rosbag2() {
        let f = TopicFilter::new(
            false,
            vec!["/a".into()],
            Some("^/arm/"),
            Some("command$"),
            vec!["/arm/x".into()],
            false,
        )
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
        let f = TopicFilter::new(false, vec![], Some("pos"), None, vec![], false).unwrap();
        assert!(f.take("/arm/position", &t("T")).is_ok());
        let all = TopicFilter::new(true, vec![], None, None, vec![], false).unwrap();
        assert_eq!(all.take("/x/_hidden", &t("T")), Err(Skip::Hidden));
        assert!(matches!(
            all.take("/x", &["A".into(), "B".into()]),
            Err(Skip::SeveralTypes(_))
        ));
        assert!(TopicFilter::new(false, vec![], Some("("), None, vec![], false).is_err());
        assert!(TopicFilter::new(false, vec![], None, None, vec![], false)
            .unwrap()
            .selects_nothing());
    }
}
