//! [`LoadError`]: the crate's one error type, "the config file could not be loaded".
//! Every variant names the field it is about. (Not `glue_core::ConfigError`, the shape of
//! one refused setting: a file has more ways to be wrong, each kept as its own variant.)
//!
//! (Bad datagrams are not errors but normal flow: see [`crate::wire::Rejected`].)

use std::fmt;

use crate::transform::MatrixError;

/// Why the config file could not be loaded. `Display` starts with the field, e.g.
/// `interfaces.output.arm.port: expected integer 0..65535, got 70000`.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    /// The file could not be read.
    Io {
        /// The path.
        path: String,
        /// The OS error.
        message: String,
    },
    /// Invalid JSON, a missing key, an unknown key or a value of the wrong type.
    Json {
        /// Dotted path of the field (`(file)` for syntax errors).
        field: String,
        /// serde's message (with line and column).
        message: String,
    },
    /// A port outside 0..65535 (after the loopback offset, if any).
    PortOutOfRange {
        /// Field.
        field: String,
        /// Port after the offset.
        value: i64,
        /// Loopback offset applied.
        offset: i32,
    },
    /// A host that is not an IP address (or `localhost`).
    BadHost {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// A format other than `csv` / `simulink`.
    UnknownFormat {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// A kind other than `point` / `coordinates`.
    UnknownKind {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// A `qos` other than `sensor` / `command` / `reliable` / `latched`.
    UnknownQos {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// A `resendIntervalMs` that is neither 0 (off) nor within the accepted range.
    BadResendInterval {
        /// Field.
        field: String,
        /// As written.
        value: i64,
    },
    /// An empty topic name, or one containing whitespace.
    BadTopic {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// A threshold that is negative or not finite.
    BadThreshold {
        /// Field.
        field: String,
        /// As written.
        value: f64,
    },
    /// A `checkElementsCount` below 1.
    BadCheckElements {
        /// Field.
        field: String,
        /// As written.
        value: i64,
    },
    /// An allowed source that is neither `ip` nor `ip:port`.
    BadSource {
        /// Field.
        field: String,
        /// As written.
        value: String,
    },
    /// `transforms.default` is missing.
    MissingDefaultTransform,
    /// A matrix string that does not parse.
    Matrix {
        /// Field (`transforms.<name>`).
        field: String,
        /// What is wrong with it.
        problem: MatrixError,
    },
    /// An output's matrix has no inverse.
    Singular {
        /// Field (`transforms.<name>` or `transforms.default`).
        field: String,
        /// The output that needs the inverse.
        output: String,
    },
    /// Two inputs bind the same address.
    DuplicatePort {
        /// Field of the second one.
        field: String,
        /// The port.
        port: u16,
        /// The first input using it.
        other: String,
    },
    /// A connection names an input that does not exist.
    UnknownInput {
        /// Field (`connections[i].input`).
        field: String,
        /// As written.
        name: String,
    },
    /// A connection names an output that does not exist.
    UnknownOutput {
        /// Field (`connections[i].output`).
        field: String,
        /// As written.
        name: String,
    },
    /// The same connection twice (it would send every value twice).
    DuplicateConnection {
        /// Field (`connections[i]`).
        field: String,
        /// Index of the first one.
        first: usize,
    },
}

impl LoadError {
    /// The field the error is about (the path for [`LoadError::Io`]).
    pub fn field(&self) -> &str {
        match self {
            LoadError::Io { path, .. } => path,
            LoadError::MissingDefaultTransform => "transforms.default",
            LoadError::Json { field, .. }
            | LoadError::PortOutOfRange { field, .. }
            | LoadError::BadHost { field, .. }
            | LoadError::UnknownFormat { field, .. }
            | LoadError::UnknownKind { field, .. }
            | LoadError::UnknownQos { field, .. }
            | LoadError::BadResendInterval { field, .. }
            | LoadError::BadTopic { field, .. }
            | LoadError::BadThreshold { field, .. }
            | LoadError::BadCheckElements { field, .. }
            | LoadError::BadSource { field, .. }
            | LoadError::Matrix { field, .. }
            | LoadError::Singular { field, .. }
            | LoadError::DuplicatePort { field, .. }
            | LoadError::UnknownInput { field, .. }
            | LoadError::UnknownOutput { field, .. }
            | LoadError::DuplicateConnection { field, .. } => field,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field();
        match self {
            LoadError::Io { message, .. } => write!(f, "{field}: cannot read: {message}"),
            LoadError::Json { message, .. } => write!(f, "{field}: {message}"),
            LoadError::PortOutOfRange { value, offset: 0, .. } => {
                write!(f, "{field}: expected integer 0..65535, got {value}")
            }
            LoadError::PortOutOfRange { value, offset, .. } => write!(
                f,
                "{field}: expected integer 0..65535, got {value} after the loopback port offset {offset}"
            ),
            LoadError::BadHost { value, .. } => {
                write!(f, "{field}: expected an IP address, got {value:?}")
            }
            LoadError::UnknownFormat { value, .. } => {
                write!(f, "{field}: unknown format {value:?}, expected \"csv\" or \"simulink\"")
            }
            LoadError::UnknownKind { value, .. } => write!(
                f,
                "{field}: unknown kind {value:?}, expected \"point\" or \"coordinates\""
            ),
            LoadError::UnknownQos { value, .. } => write!(
                f,
                "{field}: unknown qos {value:?}, expected \"sensor\", \"command\" (or \"reliable\") or \"latched\""
            ),
            LoadError::BadResendInterval { value, .. } => write!(
                f,
                "{field}: expected 0 (off) or an integer {}..{} [ms], got {value}",
                crate::config::MIN_RESEND_INTERVAL_MS,
                crate::config::MAX_RESEND_INTERVAL_MS
            ),
            LoadError::BadTopic { value, .. } => {
                write!(f, "{field}: {value:?} is not a topic name")
            }
            LoadError::BadThreshold { value, .. } => {
                write!(f, "{field}: expected a finite number >= 0 [mm], got {value}")
            }
            LoadError::BadCheckElements { value, .. } => {
                write!(f, "{field}: expected an integer >= 1, got {value}")
            }
            LoadError::BadSource { value, .. } => {
                write!(f, "{field}: expected \"ip\" or \"ip:port\", got {value:?}")
            }
            LoadError::MissingDefaultTransform => write!(f, "{field}: missing (it is required)"),
            LoadError::Matrix { problem, .. } => write!(f, "{field}: {problem}"),
            LoadError::Singular { output, .. } => write!(
                f,
                "{field}: singular (non-invertible) matrix, but output {output:?} needs its inverse"
            ),
            LoadError::DuplicatePort { port, other, .. } => {
                write!(f, "{field}: port {port} is already bound by input {other:?}")
            }
            LoadError::UnknownInput { name, .. } => write!(f, "{field}: unknown input {name:?}"),
            LoadError::UnknownOutput { name, .. } => {
                write!(f, "{field}: unknown output {name:?}")
            }
            LoadError::DuplicateConnection { first, .. } => {
                write!(f, "{field}: duplicate of connections[{first}]")
            }
        }
    }
}

impl std::error::Error for LoadError {}
