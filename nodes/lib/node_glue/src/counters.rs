//! The counter registry: a node declares its counters once, with [`counters!`](crate::counters!),
//! and its `/diagnostics` statuses are built from that declaration ([`CounterSet`]).
//!
//! A counter's name is the field's name, written once: the macro makes the struct (one
//! [`Counter`] per name, grouped by the status it is published in) and the list of
//! `(status, [(name, value)])` that [`CounterSet::statuses`] turns into
//! [`Status`]es. There is no second list of names to keep in step.
//!
//! ```
//! node_glue::counters! {
//!     /// The node's counters.
//!     pub struct Counters {
//!         /// Published as the status "run".
//!         run {
//!             /// Goals accepted.
//!             goals_accepted,
//!             goals_rejected,
//!         }
//!         inputs {
//!             positions,
//!         }
//!         ;
//!         // Other shared state may follow the `;` (each type must be `Default`).
//!         /// The last run's summary.
//!         pub last: std::sync::Mutex<String>,
//!     }
//! }
//! use node_glue::counters::CounterSet;
//! let c = Counters::default();
//! c.goals_accepted.inc();
//! let statuses = c.statuses(); // [run {goals_accepted: 1, goals_rejected: 0}, inputs {...}]
//! assert_eq!(statuses[0].name, "run");
//! assert_eq!(statuses[0].values[0], ("goals_accepted".to_string(), "1".to_string()));
//! // A status with its own message and level, and extra values:
//! let run = c.status("run").message("idle").with("last", "none");
//! # assert_eq!(run.values.len(), 3);
//! ```
pub use crate::diagnostics::{Counter, Status};

/// A struct of counters made by [`counters!`](crate::counters!): its counters by status.
pub trait CounterSet {
    /// Every status's name and its counters `(name, value now)`, in declaration order.
    fn groups(&self) -> Vec<(&'static str, Vec<(&'static str, u64)>)>;

    /// The counters of status `group` as an OK [`Status`] with an empty message (no
    /// values for a name that is not declared).
    fn status(&self, group: &str) -> Status {
        let values = self
            .groups()
            .into_iter()
            .find(|(g, _)| *g == group)
            .map(|(_, v)| v)
            .unwrap_or_default();
        Status::ok(group, "").with_counters(values)
    }

    /// One OK [`Status`] per declared status, with every counter.
    fn statuses(&self) -> Vec<Status> {
        self.groups()
            .into_iter()
            .map(|(g, v)| Status::ok(g, "").with_counters(v))
            .collect()
    }

    /// The sum of the named counters now (unknown names count 0): e.g. a status turns
    /// WARN while `total(&["positions_rejected"]) > 0`.
    fn total(&self, names: &[&str]) -> u64 {
        self.groups()
            .into_iter()
            .flat_map(|(_, v)| v)
            .filter(|(n, _)| names.contains(n))
            .map(|(_, v)| v)
            .sum()
    }
}

/// Declares a struct of [`Counter`]s grouped by `/diagnostics` status and implements
/// [`CounterSet`] for it; see the [module doc](crate::counters) for an example.
///
/// Syntax: `[attrs] vis struct Name { [attrs] status { [attrs] counter, ... } ... [; [attrs]
/// vis field: Type, ...] }`. Every counter is a `pub` field of type [`Counter`]; the
/// fields after `;` are plain (their types must implement `Default`).
#[macro_export]
macro_rules! counters {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$gmeta:meta])*
                $group:ident {
                    $( $(#[$fmeta:meta])* $field:ident ),* $(,)?
                }
            )*
            $(
                ;
                $( $(#[$xmeta:meta])* $xvis:vis $xfield:ident : $xty:ty ),* $(,)?
            )?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        $vis struct $name {
            $( $( $(#[$fmeta])* pub $field: $crate::diagnostics::Counter, )* )*
            $( $( $(#[$xmeta])* $xvis $xfield: $xty, )* )?
        }

        impl $crate::counters::CounterSet for $name {
            fn groups(&self) -> ::std::vec::Vec<(&'static str, ::std::vec::Vec<(&'static str, u64)>)> {
                ::std::vec![
                    $(
                        (
                            stringify!($group),
                            ::std::vec![ $( (stringify!($field), self.$field.get()), )* ],
                        ),
                    )*
                ]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Level;

    crate::counters! {
        /// Test counters.
        struct Two {
            first { a, b, }
            second {
                /// Doc on a counter.
                c
            }
            ;
            note: std::sync::Mutex<String>,
        }
    }

    crate::counters! {
        struct Plain { only { x } }
    }

    #[test]
    fn statuses_follow_the_declaration() {
        let t = Two::default();
        t.a.inc();
        t.c.add(3);
        *t.note.lock().unwrap() = "n".into();
        let s = t.statuses();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "first");
        assert_eq!(
            s[0].values,
            vec![("a".into(), "1".into()), ("b".into(), "0".into())]
        );
        assert_eq!(s[1].values, vec![("c".into(), "3".into())]);
        assert_eq!(t.status("second").values, s[1].values);
        assert!(t.status("none").values.is_empty());
        assert_eq!(t.total(&["a", "c", "zz"]), 4);
        let w = t.status("first").message("m").level(Level::Warn);
        assert_eq!((w.message.as_str(), w.level), ("m", Level::Warn));
        let p = Plain::default();
        p.x.inc();
        assert_eq!(p.statuses()[0].values, vec![("x".into(), "1".into())]);
    }
}
