//! placeholder
pub use r2r;
