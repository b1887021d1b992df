//! The one error type of the crate.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a picture could not be made or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlotError {
    /// A file could not be written (or read).
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The SVG did not parse (usvg's message).
    Svg(String),
    /// The image size is zero or too large to allocate (`width` × `height` pixels).
    Size {
        /// Width that was asked for [px].
        width: u32,
        /// Height that was asked for [px].
        height: u32,
    },
    /// PNG encoding failed.
    Png(String),
}

impl PlotError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> PlotError {
        PlotError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PlotError::Svg(m) => write!(f, "the SVG does not parse: {m}"),
            PlotError::Size { width, height } => {
                write!(f, "cannot make a {width} x {height} pixel image")
            }
            PlotError::Png(m) => write!(f, "PNG encoding failed: {m}"),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
