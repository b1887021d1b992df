//! Rate-limited log lines for input-driven warnings: the limiter is
//! [`glue_core::ratelimit`] (no ROS, so libraries use it too), re-exported here;
//! [`warn_limited!`](crate::warn_limited) logs what it allows through the node's logger.
//!
//! (Not run as a doc test: a line logged goes through rcl, which the doc-test binary
//! does not set up.)
//! ```no_run
//! use node_glue::ratelimit::RateLimit;
//! let limit = RateLimit::default(); // one line per key per DEFAULT_PERIOD
//! for x in [f64::NAN, f64::NAN] {
//!     // logs the first, counts the second; the next line after the period says "(1 more suppressed)"
//!     node_glue::warn_limited!(limit, "position", "position not finite: {x}");
//! }
//! ```
pub use glue_core::ratelimit::*;

/// `warn_limited!(limit, key, "format", args...)`: logs a warning through
/// [`crate::log_warn!`] (the node's logger, console and `/rosout`) if `limit`
/// ([`RateLimit`]) allows one for `key` now, with the
/// count of lines suppressed since the last one.
#[macro_export]
macro_rules! warn_limited {
    ($limit:expr, $key:expr, $($fmt:tt)+) => {{
        if let Some(n) = $limit.allow($key) {
            $crate::log_warn!(
                "{}{}",
                format!($($fmt)+),
                $crate::ratelimit::suffix(n)
            );
        }
    }};
}
