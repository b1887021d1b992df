//! The constants of `msg/arnie_interfaces`, as plain Rust consts: one source for the
//! outcome, phase and error codes that libraries without ROS need.
//!
//! `build.rs` reads every `.msg`, `.srv` and `.action` file of `msg/arnie_interfaces`
//! and writes each constant line (`uint8 REACHED=0`) as a const of the same name, type
//! and value (`pub const REACHED: u8 = 0;`), its doc from the comment lines above it. The
//! path mirrors the interface: `msg::brain_event::ABORTED`, `srv::plan_path::response::NO_PATH`,
//! `action::move_to::result::REACHED`, `action::move_to::feedback::FORWARD`. Every section
//! whose constants share a type also has `ALL`, `(name, value)` in file order (see
//! [`name_of`]). Only interfaces and sections that define constants appear.
//!
//! Editing a constant in `msg/` changes these consts at the next build; the crate's
//! `ros` feature test checks them against r2r's generated constants (which come from the
//! same files through rosidl), so a stale copy cannot go unnoticed. No ROS is needed
//! to build or use the crate.
//!
//! [`outcome::MoveOutcome`] is `MoveTo`'s outcome code as an enum, for the server and
//! its clients alike.
//!
//! [`units::Scale`] is the interfaces' other convention in one place: topics are in
//! metres (REP 103), and every node converts its own length unit with it.
#![deny(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/constants.rs"));

pub mod outcome;
pub mod units;

/// The name of `value` in a section's `ALL` table, `None` when no constant has it (e.g.
/// an outcome code from a newer peer). The first match when two constants share a value.
///
/// ```
/// use arnie_constants::{action::move_to::result, name_of};
/// assert_eq!(name_of(result::ALL, result::PREEMPTED), Some("PREEMPTED"));
/// assert_eq!(name_of(result::ALL, 200), None);
/// ```
pub fn name_of<T: PartialEq + Copy>(all: &[(&'static str, T)], value: T) -> Option<&'static str> {
    all.iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_types_come_from_the_files() {
        // A few values read by hand from msg/arnie_interfaces (a changed file fails here
        // only if the parser broke, not the consts' users: they use the names).
        let reached: u8 = action::move_to::result::REACHED;
        assert_eq!(reached, 0);
        let invalid: u16 = srv::plan_path::response::INVALID_REQUEST;
        assert_eq!(invalid, 7);
        assert_eq!(action::navigate_to::feedback::PLANNING, 0);
        assert_eq!(msg::strategy_event::ALL.len(), 6);
    }

    #[test]
    fn every_table_is_in_file_order_with_distinct_names() {
        let names: Vec<&str> = action::move_to::result::ALL
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(
            names,
            [
                "REACHED",
                "REVERSED_TO_START",
                "ABORTED_HELP_NEEDED",
                "CANCELLED",
                "REJECTED",
                "PREEMPTED",
                "REACHED_BY_DETOUR"
            ]
        );
        for (i, (n, v)) in action::move_to::result::ALL.iter().enumerate() {
            assert_eq!(usize::from(*v), i, "{n}");
        }
    }

    #[test]
    fn name_of_finds_each_constant_and_nothing_else() {
        for (n, v) in srv::plan_path::response::ALL {
            assert_eq!(name_of(srv::plan_path::response::ALL, *v), Some(*n));
        }
        assert_eq!(name_of(action::run_task::result::ALL, 99), None);
    }
}
