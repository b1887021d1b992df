//! [`SimError`]: the crate's one error type: a scenario or a spine config the simulator
//! cannot run with, naming the field. Bad datagrams are not errors (see
//! [`crate::world::TargetRejected`]).

use std::fmt;

/// Why the simulator cannot start. Every variant names the field it is about, e.g.
/// `arm.max_speed_mm_s`.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// A file could not be read.
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// The scenario JSON is malformed or has a wrong type, an unknown key, ...
    Json {
        /// Path of the field (`arm.obstacles[0].min_mm`), or `(file)`.
        field: String,
        /// serde's message.
        message: String,
    },
    /// A number is NaN or infinite.
    NotFinite {
        /// The field.
        field: String,
    },
    /// A number that must be strictly positive is not.
    NotPositive {
        /// The field.
        field: String,
        /// The value found.
        value: f64,
    },
    /// A number is outside its allowed range.
    OutOfRange {
        /// The field.
        field: String,
        /// The value found.
        value: f64,
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
    },
    /// An obstacle box whose `min_mm` is not below its `max_mm` on every axis.
    EmptyBox {
        /// The obstacle's field (`arm.obstacles[2]`).
        field: String,
    },
    /// The arm starts inside an obstacle.
    StartInObstacle {
        /// The obstacle's field.
        field: String,
    },
    /// The spine config does not load.
    Spine(arnie_spine::LoadError),
    /// The transform of this spine input cannot be inverted (the sim sends `T⁻¹ · p`).
    Singular {
        /// `interfaces.input.<name>`.
        field: String,
    },
    /// The spine config has no interface of that name.
    MissingInterface {
        /// `interfaces.input.<name>` or `interfaces.output.<name>`.
        field: String,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Io { path, message } => write!(f, "{path}: {message}"),
            SimError::Json { field, message } => write!(f, "{field}: {message}"),
            SimError::NotFinite { field } => write!(f, "{field}: must be a finite number"),
            SimError::NotPositive { field, value } => {
                write!(f, "{field}: must be > 0, got {value}")
            }
            SimError::OutOfRange {
                field,
                value,
                min,
                max,
            } => {
                write!(f, "{field}: must be in [{min}, {max}], got {value}")
            }
            SimError::EmptyBox { field } => {
                write!(f, "{field}: min_mm must be below max_mm on every axis")
            }
            SimError::StartInObstacle { field } => {
                write!(
                    f,
                    "arm.start_mm: the arm starts inside the obstacle {field}"
                )
            }
            SimError::Spine(e) => write!(f, "spine config: {e}"),
            SimError::Singular { field } => {
                write!(f, "spine config: {field}: its transform is singular")
            }
            SimError::MissingInterface { field } => {
                write!(f, "spine config: {field}: no such interface")
            }
        }
    }
}

impl std::error::Error for SimError {}

impl From<arnie_spine::LoadError> for SimError {
    fn from(e: arnie_spine::LoadError) -> Self {
        SimError::Spine(e)
    }
}
