//! The crate's one error enum: everything a caller asked for that could not be done.
//!
//! Bad bytes coming *in* are not errors but [`Rejected`](crate::counters::Rejected)
//! values, counted in [`Counters`](crate::counters::Counters): a noisy line is normal flow.
use std::io;
use std::path::PathBuf;

/// Crate result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One variant per failure. Definition-loading variants name the file (and field).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // ---- loading definitions -------------------------------------------------------
    /// The definitions folder could not be listed.
    #[error("cannot read packet definitions folder {dir}: {source}")]
    ReadDir {
        /// The folder.
        dir: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A definition file could not be read.
    #[error("cannot read packet definition {file}: {source}")]
    ReadFile {
        /// The definition file.
        file: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// A definition file is not valid JSON or misses / misspells a key.
    #[error("{file}: invalid packet definition: {reason}")]
    Parse {
        /// The definition file.
        file: PathBuf,
        /// What is wrong, in words.
        reason: String,
    },
    /// `name` is empty.
    #[error("{file}: `name` is empty")]
    EmptyName {
        /// The definition file.
        file: PathBuf,
    },
    /// `id` is not in 0..=255.
    #[error("{file}: `id` {id} is out of range 0..=255")]
    IdOutOfRange {
        /// The definition file.
        file: PathBuf,
        /// The command id as written.
        id: i64,
    },
    /// Two definitions share one `id`.
    #[error("command id {id} is defined twice: {first} and {second}")]
    DuplicateId {
        /// The command id as written.
        id: u8,
        /// The file that defined it first.
        first: PathBuf,
        /// The file that defined it again.
        second: PathBuf,
    },
    /// Two definitions share one `name`.
    #[error("packet name {name:?} is defined twice: {first} and {second}")]
    DuplicateName {
        /// The packet name.
        name: String,
        /// The file that defined it first.
        first: PathBuf,
        /// The file that defined it again.
        second: PathBuf,
    },
    /// A field's `type` is not one of the known types.
    #[error("{file}: field {field:?}: unknown type {ty:?} (expected one of {known})")]
    UnknownType {
        /// The definition file.
        file: PathBuf,
        /// The field's name.
        field: String,
        /// The type as written (or the field's type).
        ty: String,
        /// The known type names.
        known: &'static str,
    },
    /// A field's `default` does not fit its type.
    #[error("{file}: field {field:?}: bad default: {reason}")]
    BadDefault {
        /// The definition file.
        file: PathBuf,
        /// The field's name.
        field: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// `reply` names a packet that no definition declares.
    #[error("{file}: `reply` names unknown packet {reply:?}")]
    UnknownReply {
        /// The definition file.
        file: PathBuf,
        /// The reply name as written.
        reply: String,
    },
    /// `reliable` cannot work as written (no reply, no unsigned `seq`, bad numbers).
    #[error("{file}: `reliable`: {reason}")]
    BadReliable {
        /// The definition file.
        file: PathBuf,
        /// What is wrong, in words.
        reason: String,
    },
    /// The payload is too long for a UART frame (15-bit size).
    #[error("{file}: payload of {bytes} bytes is longer than a UART frame allows ({max})")]
    DefinitionTooLarge {
        /// The definition file.
        file: PathBuf,
        /// Its length [bytes].
        bytes: usize,
        /// The largest allowed [bytes].
        max: usize,
    },

    // ---- building packets ----------------------------------------------------------
    /// No definition has this name.
    #[error("unknown packet name {0:?}")]
    UnknownName(String),
    /// No definition has this command id.
    #[error("unknown command id {0}")]
    UnknownId(u8),
    /// `fields_json` is not valid JSON.
    #[error("packet {packet}: fields are not valid JSON: {reason}")]
    FieldsJson {
        /// The packet's name.
        packet: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// `fields_json` is valid JSON but not an object.
    #[error("packet {packet}: fields must be a JSON object")]
    FieldsNotObject {
        /// The packet's name.
        packet: String,
    },
    /// A field that the definition does not declare.
    #[error("packet {packet}: unknown field {field:?}")]
    UnknownField {
        /// The packet's name.
        packet: String,
        /// The field's name.
        field: String,
    },
    /// A value of the wrong JSON kind (e.g. a string for an int8).
    #[error("packet {packet}: field {field:?}: expected {expected}, got {got}")]
    WrongType {
        /// The packet's name.
        packet: String,
        /// The field's name.
        field: String,
        /// The JSON kind the type needs.
        expected: &'static str,
        /// The JSON value given.
        got: String,
    },
    /// A number that does not fit the field's type: never clamped.
    #[error("packet {packet}: field {field:?}: {value} is out of range for {ty}")]
    OutOfRange {
        /// The packet's name.
        packet: String,
        /// The field's name.
        field: String,
        /// The type as written (or the field's type).
        ty: &'static str,
        /// The number given, as written.
        value: String,
    },

    // ---- framing -------------------------------------------------------------------
    /// The frame is longer than the UART size field (15 bits) or the configured maximum.
    #[error("frame of {bytes} bytes exceeds the maximum of {max}")]
    FrameTooLarge {
        /// Its length [bytes].
        bytes: usize,
        /// The largest allowed [bytes].
        max: usize,
    },
    /// CAN ids carry only 6 bits of command.
    #[error("command id {0} does not fit a CAN id (0..=63)")]
    CanCommandOutOfRange(u8),
    /// CAN ids carry only 5 bits of device.
    #[error("device {0} does not fit a CAN id (0..=31)")]
    CanDeviceOutOfRange(u8),
    /// More than 2^17 pages of 8 bytes.
    #[error("payload of {0} bytes needs more CAN pages than the 17-bit page number allows")]
    CanPayloadTooLong(usize),

    // ---- transports ----------------------------------------------------------------
    /// The serial device could not be opened or configured.
    #[error("serial port {path}: {source}")]
    Serial {
        /// The device path.
        path: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// The requested baud rate has no termios constant.
    #[error("unsupported baud rate {0}")]
    UnsupportedBaud(u32),
    /// `if_nametoindex` found no such network interface.
    #[error("CAN interface {0:?} does not exist (is it up? `ip link show {0}`)")]
    CanInterfaceNotFound(String),
    /// The SocketCAN socket could not be created or bound.
    #[error("SocketCAN on {iface}: {source}")]
    SocketCan {
        /// The interface name.
        iface: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// The CAN-over-UDP socket could not be bound.
    #[error("CAN-over-UDP socket {addr}: {source}")]
    Udp {
        /// The local address asked for.
        addr: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// CAN-over-UDP has no peer yet (nothing received and none configured).
    #[error("CAN-over-UDP has no peer address yet")]
    NoPeer,
    /// Reading or writing an open link failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done (read, write, ...).
        context: &'static str,
        /// The operating system's error.
        source: io::Error,
    },
}
