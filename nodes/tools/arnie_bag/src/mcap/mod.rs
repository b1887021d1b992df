//! The MCAP container, written and read by hand: records ([`records`]), chunk
//! compression ([`compress`]), a chunked writer with rosbag2's layout ([`write`]) and a
//! reader ([`read`]) and a tolerant linear scan for repair ([`linear`]).
//!
//! Own code rather than the `mcap` crate: the writer must close a chunk on demand (flush
//! every second) and place records exactly as rosbag2's files do, and `reindex` needs a
//! record scanner that keeps everything before the point where a file was cut off.

pub mod compress;
pub mod linear;
pub mod read;
pub mod records;
pub mod write;

pub use compress::{Compression, UnknownCompression};
pub use linear::{Item, LinearReader};
pub use read::{McapFile, OwnedMessage, Summary};
pub use write::{Layout, McapWriter, WriterOptions, DEFAULT_CHUNK_SIZE};
