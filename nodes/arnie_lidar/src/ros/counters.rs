//! The glue's counters (declared once: `node_glue::counters!`) and the node's one status
//! on `/diagnostics` (`lidar`: the driver's counts, then the glue's; ERROR while the
//! port is not open or the LiDAR is silent).
use std::sync::Mutex;

use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};

use crate::Health;

node_glue::counters! {
    /// The glue's counters; the driver's own ([`crate::Driver::pairs`]) are copied in
    /// after each read.
    pub(super) struct Counters {
        lidar {
            /// Scans published on `scan`.
            scans_published,
            /// Publications that failed.
            publish_errors,
            /// Reads that failed (the port closed under the node).
            read_errors,
            /// Opens of the port that failed.
            open_failures,
        }
        ;
        /// The driver's counts, by name.
        pub(super) driver: Mutex<Vec<(&'static str, u64)>>,
        /// The link's health and why it is not open, if it is not.
        pub(super) health: Mutex<(Option<Health>, String)>,
    }
}

impl Counters {
    pub(super) fn status(&self, port: &str) -> Status {
        let driver = self.driver.lock().map(|d| d.clone()).unwrap_or_default();
        let (health, why) = self
            .health
            .lock()
            .map(|h| h.clone())
            .unwrap_or((None, String::new()));
        let (level, message) = match health {
            Some(Health::Streaming) => (Level::Ok, "streaming".to_string()),
            Some(Health::Waiting { for_s }) => (
                Level::Warn,
                format!("{port} open, no byte yet ({for_s:.1} s)"),
            ),
            Some(Health::Silent { for_s }) => (
                Level::Error,
                format!("no data from the LiDAR on {port} for {for_s:.1} s"),
            ),
            Some(Health::NotOpen) | None => (Level::Error, format!("{port} not open: {why}")),
        };
        let glue = self.groups().into_iter().flat_map(|(_, v)| v);
        Status::ok("lidar", message)
            .level(level)
            .with_counters(driver)
            .with_counters(glue)
    }
}
