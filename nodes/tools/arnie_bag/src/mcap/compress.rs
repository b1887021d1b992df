//! Chunk compression: none, zstd, lz4 (LZ4 frame format, as the MCAP spec requires).

use std::io::{Read, Write};
use std::str::FromStr;

/// How chunks are compressed. The MCAP chunk's `compression` field spells it
/// `""`, `"zstd"` or `"lz4"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Uncompressed chunks (rosbag2's own default).
    None,
    /// zstd (our default: `--compression zstd`).
    #[default]
    Zstd,
    /// LZ4 frames.
    Lz4,
}

impl Compression {
    /// The chunk record's spelling.
    pub fn mcap_name(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
        }
    }

    /// From the chunk record's spelling; `None` for an unknown one.
    pub fn from_mcap_name(name: &str) -> Option<Self> {
        match name {
            "" => Some(Compression::None),
            "zstd" => Some(Compression::Zstd),
            "lz4" => Some(Compression::Lz4),
            _ => None,
        }
    }
}

/// A compression name that is not one of the CLI's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not one of none, zstd, lz4")]
pub struct UnknownCompression(pub String);

impl FromStr for Compression {
    type Err = UnknownCompression;
    /// The CLI spelling: `none`, `zstd`, `lz4`.
    fn from_str(s: &str) -> Result<Self, UnknownCompression> {
        match s {
            "none" => Ok(Compression::None),
            "zstd" => Ok(Compression::Zstd),
            "lz4" => Ok(Compression::Lz4),
            _ => Err(UnknownCompression(s.to_string())),
        }
    }
}

/// Compresses a chunk's records.
/// `zstd_level` is zstd's level (1 unless the storage flags choose another); LZ4 frames
/// have one level here.
pub(crate) fn compress(c: Compression, zstd_level: i32, data: &[u8]) -> std::io::Result<Vec<u8>> {
    match c {
        Compression::None => Ok(data.to_vec()),
        Compression::Zstd => zstd::bulk::compress(data, zstd_level),
        Compression::Lz4 => {
            let mut enc =
                lz4_flex::frame::FrameEncoder::new(Vec::with_capacity(data.len() / 2 + 64));
            enc.write_all(data)?;
            enc.finish().map_err(std::io::Error::other)
        }
    }
}

/// Decompresses a chunk's records; `size` is the chunk's `uncompressed_size`.
pub(crate) fn decompress(c: Compression, data: &[u8], size: usize) -> std::io::Result<Vec<u8>> {
    match c {
        Compression::None => Ok(data.to_vec()),
        Compression::Zstd => {
            let out = zstd::bulk::decompress(data, size)?;
            Ok(out)
        }
        Compression::Lz4 => {
            let mut out = Vec::with_capacity(size);
            lz4_flex::frame::FrameDecoder::new(data).read_to_end(&mut out)?;
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_each() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for c in [Compression::None, Compression::Zstd, Compression::Lz4] {
            let z = compress(c, 1, &data).unwrap();
            assert_eq!(decompress(c, &z, data.len()).unwrap(), data, "{c:?}");
        }
        for level in [-5, 19] {
            let z = compress(Compression::Zstd, level, &data).unwrap();
            assert_eq!(decompress(Compression::Zstd, &z, data.len()).unwrap(), data);
        }
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decompress(Compression::Zstd, b"not zstd", 100).is_err());
        assert!(decompress(Compression::Lz4, b"not lz4", 100).is_err());
    }
}
