//! The node's counters: [`Counters`], everything `/diagnostics` reports about clients (the
//! `clients` status, built in [`super::setup`]). They are the library's
//! ([`crate::hostile::Counters`]) because the SDK's reports reach them through the
//! library's `log` backend ([`crate::hostile::SdkLog`]), which has no ROS.
pub use crate::hostile::Counters;
