//! [`SimError`]: the crate's one error type: a scenario or a spine config the simulator
//! cannot run with, naming the field. Bad datagrams are not errors (see
//! [`crate::world::TargetRejected`]).

/// Why the simulator cannot start. Every variant names the field it is about, e.g.
/// `arm.max_speed_mm_s`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// The scenario JSON is malformed or has a wrong type, an unknown key, ...
    #[error("{field}: {message}")]
    Json {
        /// Path of the field (`arm.obstacles[0].min_mm`), or `(file)`.
        field: String,
        /// serde's message.
        message: String,
    },
    /// A number is NaN or infinite.
    #[error("{field}: must be a finite number")]
    NotFinite {
        /// The field.
        field: String,
    },
    /// A number that must be strictly positive is not.
    #[error("{field}: must be > 0, got {value}")]
    NotPositive {
        /// The field.
        field: String,
        /// The value found.
        value: f64,
    },
    /// A number is outside its allowed range.
    #[error("{field}: must be in [{min}, {max}], got {value}")]
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
    #[error("{field}: min_mm must be below max_mm on every axis")]
    EmptyBox {
        /// The obstacle's field (`arm.obstacles[2]`).
        field: String,
    },
    /// The arm starts inside an obstacle.
    #[error("arm.start_mm: the arm starts inside the obstacle {field}")]
    StartInObstacle {
        /// The obstacle's field.
        field: String,
    },
    /// The spine config does not load.
    #[error("spine config: {0}")]
    Spine(#[from] arnie_xpc::LoadError),
    /// The transform of this spine input cannot be inverted (the sim sends `T⁻¹ · p`).
    #[error("spine config: {field}: its transform is singular")]
    Singular {
        /// `interfaces.input.<name>`.
        field: String,
    },
    /// The spine config has no interface of that name.
    #[error("spine config: {field}: no such interface")]
    MissingInterface {
        /// `interfaces.input.<name>` or `interfaces.output.<name>`.
        field: String,
    },
}
