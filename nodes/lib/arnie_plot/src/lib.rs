//! Small plots as SVG, and PNG through resvg: no ROS, no system libraries.
//!
//! Made for the demo pictures (the arm's flame passing, the Eurobot table): a [`Figure`]
//! holds [`Panel`]s at pixel rectangles; a panel has two [`Axis`]es in data units (mm, m,
//! s ...) with nice ticks, and draws [`Line`]s (one colour per segment if wanted),
//! [`Area`]s (polygons, rectangles, circles), [`Marker`]s with labels, [`Span`]s (shaded
//! bands along x, e.g. phases over time), [`Rule`]s and [`Text`]. Legends go inside a panel
//! or anywhere in the figure. [`Figure::to_svg`] is pure; [`render_png`] rasterises any SVG.
//!
//! Layout:
//! - [`ticks`]: nice tick steps (1, 2, 5 × 10ⁿ) and their labels.
//! - [`panel`]: axes, the data-to-pixel [`Frame`], the items, drawing a panel.
//! - [`figure`]: the figure, legends, writing files.
//! - `raster`: PNG with resvg; fonts from the system, DejaVu preferred, none needed.
//! - [`colour`]: `#rrggbb` colours and palettes.
//!
//! Bad input never panics: non-finite points are skipped (they break a line), empty data
//! gives a 0..1 range, invalid fixed ranges are ignored. Errors are [`PlotError`].
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]

pub mod colour;
mod error;
pub mod figure;
pub mod panel;
mod raster;
mod svg;
pub mod ticks;

pub use colour::Colour;
pub use error::PlotError;
pub use figure::{Figure, Key, LegendEntry};
pub use panel::{
    Area, Axis, Corner, Frame, Item, Line, Marker, Panel, Place, Rect, Rule, Shape, Span, Text,
};
pub use raster::{render_png, Png};
pub use svg::Anchor;

use std::path::Path;

/// Writes `figure` as SVG to `svg` and as PNG (at `scale` × its pixel size) to `png`.
///
/// # Errors
/// The first [`PlotError`] of either file; the SVG is written first.
pub fn write_both(figure: &Figure, svg: &Path, png: &Path, scale: f32) -> Result<Png, PlotError> {
    figure.write_svg(svg)?;
    figure.write_png(png, scale)
}
