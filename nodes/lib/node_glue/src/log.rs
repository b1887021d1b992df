//! Logging through ROS: every line goes to the console (rcutils, as before, with
//! `--log-level` honoured) **and** to `/rosout` as `rcl_interfaces/msg/Log`, under the
//! node's own logger name (`left.brain` for a brain in `/left`, `base` for a node renamed
//! `base`), so rqt_console, Foxglove's Log panel, `ros2 topic echo /rosout` and bags see it.
//!
//! Why here and not in r2r: since Iron, rcl no longer creates a node's rosout publisher in
//! `rcl_node_init`; the client library must call `rcl_logging_rosout_init_publisher_for_node`
//! (rclcpp's `NodeBase`, rclpy's `Node` do). r2r 0.9.7 does not (upstream pull requests
//! #127 and #132), and it keeps its `rcl_node_t` private, so the glue cannot call it for
//! r2r. The glue publishes the records itself, as rcl would: the same topic, type and
//! QoS (`rcl_qos_profile_rosout_default`: reliable, transient local, keep last 1000,
//! lifespan 10 s), `name` = the node's logger name, the stamp from the node's clock, the
//! level, file, function (the module path: Rust has no function name) and line.
//! `--disable-rosout-logs` turns it off, as in rcl. Once r2r creates the rosout publisher
//! itself, drop the publisher here and keep the macros (they still pick the logger name).
//!
//! Use the macros [`crate::log_debug!`], [`crate::log_info!`], [`crate::log_warn!`],
//! [`crate::log_error!`]: they take a format string only; the logger is the node's
//! ([`logger`]), set by [`crate::App::new`]. Before a node exists (an `App::new` that
//! failed) the logger is the name the program gave.
use r2r::rcl_interfaces::msg::Log;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// rcl's rosout depth (`rcl_qos_profile_rosout_default`).
pub const ROSOUT_DEPTH: usize = 1000;
/// rcl's rosout lifespan: a late subscriber gets the last 10 s of records.
pub const ROSOUT_LIFESPAN: Duration = Duration::from_secs(10);
/// The topic (absolute: every node writes the one `/rosout`).
pub const ROSOUT: &str = "/rosout";

static LOGGER: OnceLock<String> = OnceLock::new();
static FALLBACK: OnceLock<String> = OnceLock::new();
static PUBLISHER: Mutex<Option<r2r::Publisher<Log>>> = Mutex::new(None);
static PUBLISHED: AtomicU64 = AtomicU64::new(0);
static LOST: AtomicU64 = AtomicU64::new(0);

/// A log level (rcutils' severities, which are also `rcl_interfaces/msg/Log`'s levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// 10
    Debug,
    /// 20
    Info,
    /// 30
    Warn,
    /// 40
    Error,
    /// 50
    Fatal,
}

impl Level {
    /// The number rcutils and `rcl_interfaces/msg/Log` use.
    pub fn code(self) -> u8 {
        match self {
            Level::Debug => 10,
            Level::Info => 20,
            Level::Warn => 30,
            Level::Error => 40,
            Level::Fatal => 50,
        }
    }
    /// The level named `debug`, `info`, `warn`, `error` or `fatal` (any case), as rcl's
    /// `--log-level` names them.
    pub fn from_name(name: &str) -> Option<Level> {
        match name.to_ascii_lowercase().as_str() {
            "debug" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" => Some(Level::Warn),
            "error" => Some(Level::Error),
            "fatal" => Some(Level::Fatal),
            _ => None,
        }
    }
    fn r2r(self) -> r2r::LogSeverity {
        match self {
            Level::Debug => r2r::LogSeverity::Debug,
            Level::Info => r2r::LogSeverity::Info,
            Level::Warn => r2r::LogSeverity::Warn,
            Level::Error => r2r::LogSeverity::Error,
            Level::Fatal => r2r::LogSeverity::Fatal,
        }
    }
}

/// The logger name every line of this process goes under: the node's
/// (`rcl_node_get_logger_name`: namespace dots + name) once [`crate::App::new`] made it,
/// else the name the program started with ([`set_fallback`]), else the program's file name.
pub fn logger() -> &'static str {
    if let Some(l) = LOGGER.get() {
        return l;
    }
    FALLBACK.get_or_init(|| {
        std::env::args()
            .next()
            .and_then(|a| {
                std::path::Path::new(&a)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "arnie".into())
    })
}

/// The logger name used before the node exists (the node's default name).
pub fn set_fallback(name: &str) {
    let _ = FALLBACK.set(name.to_string());
}

/// Records published on `/rosout` and records that could not be (the `logging` status
/// of every node's `/diagnostics`).
pub fn counts() -> (u64, u64) {
    (
        PUBLISHED.load(Ordering::Relaxed),
        LOST.load(Ordering::Relaxed),
    )
}

/// rosout's QoS, as rcl makes it.
pub fn rosout_qos() -> r2r::QosProfile {
    let mut qos = r2r::QosProfile::default()
        .keep_last(ROSOUT_DEPTH)
        .reliable()
        .transient_local();
    qos.lifespan = ROSOUT_LIFESPAN;
    qos
}

/// Called by [`crate::App::new`] once the node exists: the logger name becomes the node's,
/// and, unless `--disable-rosout-logs` was given, `/rosout` gets a publisher on `node`.
pub(crate) fn attach(node: &mut r2r::Node) -> r2r::Result<()> {
    let _ = LOGGER.set(node.logger().to_string());
    // SAFETY: a plain query of rcl's global logging state (set by r2r's Context::create).
    let enabled = unsafe { r2r_rcl::rcl_logging_rosout_enabled() };
    if enabled {
        let publisher = node.create_publisher::<Log>(ROSOUT, rosout_qos())?;
        *PUBLISHER.lock().unwrap_or_else(|e| e.into_inner()) = Some(publisher);
    }
    Ok(())
}

/// Stops publishing on `/rosout` (the node is going away).
pub(crate) fn detach() {
    PUBLISHER.lock().unwrap_or_else(|e| e.into_inner()).take();
}

/// Why [`set_level`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LevelError {
    /// The logger name holds a NUL byte.
    #[error("{0}")]
    Name(#[from] std::ffi::NulError),
    /// rcutils refused the level.
    #[error("cannot set the logger level of {logger} (rcutils error {code})")]
    Refused {
        /// The logger.
        logger: &'static str,
        /// rcutils' return code.
        code: i32,
    },
}

/// Sets this process's logger level (what `--ros-args --log-level` sets at start), for
/// tools whose own command line has a `--log-level` (`arnie_bag`, as `ros2 bag`).
pub fn set_level(level: Level) -> Result<(), LevelError> {
    let name = std::ffi::CString::new(logger())?;
    // SAFETY: `name` is a valid C string for the call's duration.
    let ret =
        unsafe { r2r_rcl::rcutils_logging_set_logger_level(name.as_ptr(), level.code().into()) };
    if ret == 0 {
        Ok(())
    } else {
        Err(LevelError::Refused {
            logger: logger(),
            code: ret,
        })
    }
}

/// True when `level` passes the logger's effective level (`--log-level`).
pub fn enabled(level: Level) -> bool {
    let Ok(name) = std::ffi::CString::new(logger()) else {
        return true;
    };
    // SAFETY: `name` is a valid C string for the call's duration; rcutils initialises
    // its logging state itself when needed.
    unsafe { r2r_rcl::rcutils_logging_logger_is_enabled_for(name.as_ptr(), level.code().into()) }
}

/// Writes one line: console (rcutils) and `/rosout`. Use the macros.
pub fn write(level: Level, file: &str, module: &str, line: u32, msg: &str) {
    if !enabled(level) {
        return;
    }
    let name = logger();
    r2r::log(msg, name, file, line, level.r2r());
    let guard = PUBLISHER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(publisher) = guard.as_ref() else {
        return;
    };
    let record = Log {
        stamp: crate::time::now(),
        level: level.code(),
        name: name.to_string(),
        msg: msg.to_string(),
        file: file.to_string(),
        function: module.to_string(),
        line,
    };
    // A failed publish is counted, never logged (that would log again).
    match publisher.publish(&record) {
        Ok(()) => PUBLISHED.fetch_add(1, Ordering::Relaxed),
        Err(_) => LOST.fetch_add(1, Ordering::Relaxed),
    };
}

/// The `logging` status of every node's `/diagnostics`.
pub fn status() -> crate::diagnostics::Status {
    let (published, lost) = counts();
    let s = crate::diagnostics::Status::ok(
        "logging",
        format!("logger {}; {published} record(s) on /rosout", logger()),
    )
    .with("rosout_published", published)
    .with("rosout_lost", lost);
    if lost > 0 {
        s.level(crate::diagnostics::Level::Warn)
    } else {
        s
    }
}

/// Logs at DEBUG under the node's logger (console and `/rosout`).
#[macro_export]
macro_rules! log_debug {
    ($($arg:tt)+) => {
        $crate::log::write($crate::log::Level::Debug, file!(), module_path!(), line!(), &format!($($arg)+))
    };
}

/// Logs at INFO under the node's logger (console and `/rosout`).
#[macro_export]
macro_rules! log_info {
    ($($arg:tt)+) => {
        $crate::log::write($crate::log::Level::Info, file!(), module_path!(), line!(), &format!($($arg)+))
    };
}

/// Logs at WARN under the node's logger (console and `/rosout`).
#[macro_export]
macro_rules! log_warn {
    ($($arg:tt)+) => {
        $crate::log::write($crate::log::Level::Warn, file!(), module_path!(), line!(), &format!($($arg)+))
    };
}

/// Logs at ERROR under the node's logger (console and `/rosout`).
#[macro_export]
macro_rules! log_error {
    ($($arg:tt)+) => {
        $crate::log::write($crate::log::Level::Error, file!(), module_path!(), line!(), &format!($($arg)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_rcl_interfaces_log_levels() {
        assert_eq!(Level::Debug.code() as u32, Log::DEBUG as u32);
        assert_eq!(Level::Info.code() as u32, Log::INFO as u32);
        assert_eq!(Level::Warn.code() as u32, Log::WARN as u32);
        assert_eq!(Level::Error.code() as u32, Log::ERROR as u32);
        assert_eq!(Level::Fatal.code() as u32, Log::FATAL as u32);
    }

    #[test]
    fn rosout_qos_is_rcl_s() {
        let q = rosout_qos();
        assert_eq!(q.depth, 1000);
        assert_eq!(q.lifespan, Duration::from_secs(10));
    }
}
