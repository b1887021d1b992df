//! A figure: a title, panels at pixel rectangles, legends; written as SVG (and PNG).

use crate::colour::Colour;
use crate::panel::{shape_svg, Panel, Rect, Shape};
use crate::svg::{self, num, Anchor};
use crate::PlotError;
use std::fmt::Write;
use std::path::Path;

/// The key drawn before a legend label.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// A line sample (colour, width [px], dashed).
    Line(Colour, f64, bool),
    /// A marker sample.
    Marker(Shape, Colour),
    /// A filled square (colour, opacity): spans and areas.
    Area(Colour, f64),
}

/// One legend entry: a key and its label.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// The sample drawn before the label.
    pub key: Key,
    /// The text.
    pub label: String,
}

impl LegendEntry {
    /// A solid line sample (2.5 px) in `colour`.
    pub fn line(colour: Colour, label: impl Into<String>) -> LegendEntry {
        LegendEntry {
            key: Key::Line(colour, 2.5, false),
            label: label.into(),
        }
    }

    /// A dashed line sample (1.5 px) in `colour`.
    pub fn dashed(colour: Colour, label: impl Into<String>) -> LegendEntry {
        LegendEntry {
            key: Key::Line(colour, 1.5, true),
            label: label.into(),
        }
    }

    /// A marker sample of `shape` filled `colour`.
    pub fn marker(shape: Shape, colour: Colour, label: impl Into<String>) -> LegendEntry {
        LegendEntry {
            key: Key::Marker(shape, colour),
            label: label.into(),
        }
    }

    /// A filled square in `colour` at `opacity` (0 clear to 1 opaque).
    pub fn area(colour: Colour, opacity: f64, label: impl Into<String>) -> LegendEntry {
        LegendEntry {
            key: Key::Area(colour, opacity),
            label: label.into(),
        }
    }
}

const LEGEND_FONT: f64 = 12.0;
const KEY_W: f64 = 26.0;
const ROW_H: f64 = 18.0;

fn entry_width(e: &LegendEntry) -> f64 {
    KEY_W + 6.0 + svg::text_width(&e.label, LEGEND_FONT)
}

fn render_key(out: &mut String, key: &Key, x: f64, yc: f64) {
    match key {
        Key::Line(c, w, dashed) => {
            let dash = if *dashed {
                r#" stroke-dasharray="5 3""#
            } else {
                ""
            };
            svg::line(out, (x, yc), (x + KEY_W, yc), c, *w, dash);
        }
        Key::Marker(shape, c) => {
            shape_svg(out, *shape, x + KEY_W / 2.0, yc, 10.0, *c, Colour::BLACK)
        }
        Key::Area(c, o) => {
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{}" height="12" fill="{c}" fill-opacity="{}" stroke="#999999" stroke-width="0.5"/>"##,
                num(x + 3.0),
                num(yc - 6.0),
                num(KEY_W - 6.0),
                num(o.clamp(0.0, 1.0))
            );
        }
    }
}

/// Size of a one-column legend box [px].
pub(crate) fn legend_box(entries: &[LegendEntry]) -> (f64, f64) {
    let w = entries.iter().map(entry_width).fold(0.0, f64::max) + 16.0;
    (w, entries.len() as f64 * ROW_H + 10.0)
}

/// A one-column legend with a white box, top-left corner at `(x, y)`.
pub(crate) fn render_legend_column(out: &mut String, x: f64, y: f64, entries: &[LegendEntry]) {
    if entries.is_empty() {
        return;
    }
    let (w, h) = legend_box(entries);
    let _ = writeln!(
        out,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" fill-opacity="0.9" stroke="#999999" stroke-width="0.8"/>"##,
        num(x),
        num(y),
        num(w),
        num(h)
    );
    for (i, e) in entries.iter().enumerate() {
        let yc = y + 5.0 + ROW_H * (i as f64 + 0.5);
        render_key(out, &e.key, x + 8.0, yc);
        svg::text(
            out,
            x + 8.0 + KEY_W + 6.0,
            yc + LEGEND_FONT * 0.35,
            svg::Style::plain(LEGEND_FONT, Anchor::Start, "#111111"),
            &e.label,
        );
    }
}

/// A legend that flows left to right and wraps inside `rect`; entries that do not fit are
/// dropped (and counted in a last "+N more" label).
fn render_legend_flow(out: &mut String, rect: Rect, entries: &[LegendEntry]) {
    let (mut x, mut y) = (rect.x, rect.y + ROW_H / 2.0);
    for (i, e) in entries.iter().enumerate() {
        let w = entry_width(e) + 18.0;
        if x + w > rect.x + rect.w && x > rect.x {
            x = rect.x;
            y += ROW_H;
        }
        if y + ROW_H / 2.0 > rect.y + rect.h + 0.5 {
            let more = format!("+{} more", entries.len() - i);
            svg::text(
                out,
                rect.x + rect.w,
                rect.y + rect.h,
                svg::Style::plain(LEGEND_FONT, Anchor::End, "#555555"),
                &more,
            );
            return;
        }
        render_key(out, &e.key, x, y);
        svg::text(
            out,
            x + KEY_W + 6.0,
            y + LEGEND_FONT * 0.35,
            svg::Style::plain(LEGEND_FONT, Anchor::Start, "#111111"),
            &e.label,
        );
        x += w;
    }
}

/// A whole picture: title, subtitle, panels and legends at pixel positions.
///
/// ```
/// use arnie_plot::{Axis, Colour, Figure, Line, Panel, Rect};
/// let mut panel = Panel::new("speed", Axis::new("time", "s"), Axis::new("speed", "mm/s"));
/// panel.add(Line::new(vec![[0.0, 0.0], [1.0, 120.0], [2.0, 0.0]], Colour::BLUE));
/// let mut fig = Figure::new(640.0, 400.0).title("one move");
/// fig.panel(Rect::new(0.0, 40.0, 640.0, 360.0), panel);
/// let svg = fig.to_svg();
/// assert!(svg.starts_with("<svg") && svg.contains("speed [mm/s]"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Width [px].
    pub width: f64,
    /// Height [px].
    pub height: f64,
    /// Bold title at the top left; empty: none.
    pub title: String,
    /// Smaller line under the title; empty: none.
    pub subtitle: String,
    /// The panels and the pixel rectangles they fill (margins included).
    pub panels: Vec<(Rect, Panel)>,
    /// Free-standing legends and their pixel rectangles (entries flow in rows).
    pub legends: Vec<(Rect, Vec<LegendEntry>)>,
    /// Free text in pixels: (x, y, size, text), left-anchored.
    pub notes: Vec<(f64, f64, f64, String)>,
}

impl Figure {
    /// An empty white figure of `width` × `height` pixels (non-finite or < 1 sizes become 1).
    pub fn new(width: f64, height: f64) -> Figure {
        let ok = |v: f64| if v.is_finite() && v >= 1.0 { v } else { 1.0 };
        Figure {
            width: ok(width),
            height: ok(height),
            title: String::new(),
            subtitle: String::new(),
            panels: Vec::new(),
            legends: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The title, in bold at the top left (about 30 px high).
    pub fn title(mut self, title: impl Into<String>) -> Figure {
        self.title = title.into();
        self
    }

    /// A smaller line under the title (about 20 px high).
    pub fn subtitle(mut self, subtitle: impl Into<String>) -> Figure {
        self.subtitle = subtitle.into();
        self
    }

    /// Places `panel` in `rect` (margins for title, ticks and axis titles included).
    pub fn panel(&mut self, rect: Rect, panel: Panel) -> &mut Figure {
        self.panels.push((rect, panel));
        self
    }

    /// A legend laid out left to right, wrapping inside `rect`.
    pub fn legend(&mut self, rect: Rect, entries: Vec<LegendEntry>) -> &mut Figure {
        self.legends.push((rect, entries));
        self
    }

    /// Free text at pixel `(x, y)` (baseline), `size` px.
    pub fn note(&mut self, x: f64, y: f64, size: f64, text: impl Into<String>) -> &mut Figure {
        self.notes.push((x, y, size, text.into()));
        self
    }

    /// The SVG document.
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="{2}" font-size="12">"#,
            num(self.width),
            num(self.height),
            svg::FONT_FAMILY
        );
        let _ = writeln!(
            out,
            r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
        );
        if !self.title.is_empty() {
            let _ = writeln!(
                out,
                r#"<text x="16" y="26" font-size="20" font-weight="bold">{}</text>"#,
                svg::esc(&self.title)
            );
        }
        if !self.subtitle.is_empty() {
            let y = if self.title.is_empty() { 22.0 } else { 46.0 };
            svg::text(
                &mut out,
                16.0,
                y,
                svg::Style::plain(13.0, Anchor::Start, "#333333"),
                &self.subtitle,
            );
        }
        for (i, (rect, panel)) in self.panels.iter().enumerate() {
            panel.render(*rect, i, &mut out);
        }
        for (rect, entries) in &self.legends {
            render_legend_flow(&mut out, *rect, entries);
        }
        for (x, y, size, text) in &self.notes {
            svg::text(
                &mut out,
                *x,
                *y,
                svg::Style::plain(*size, Anchor::Start, "#333333"),
                text,
            );
        }
        out.push_str("</svg>\n");
        out
    }

    /// Writes the SVG to `path`.
    ///
    /// # Errors
    /// [`PlotError::Io`] when the file cannot be written.
    pub fn write_svg(&self, path: &Path) -> Result<(), PlotError> {
        std::fs::write(path, self.to_svg()).map_err(|e| PlotError::io(path, e))
    }

    /// Renders the figure (`scale` × its size in pixels) and writes a PNG to `path`.
    ///
    /// # Errors
    /// See [`crate::render_png`]; [`PlotError::Io`] when the file cannot be written.
    pub fn write_png(&self, path: &Path, scale: f32) -> Result<crate::Png, PlotError> {
        let png = crate::render_png(&self.to_svg(), scale)?;
        std::fs::write(path, &png.data).map_err(|e| PlotError::io(path, e))?;
        Ok(png)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_legend_wraps_and_counts_what_does_not_fit() {
        let entries: Vec<_> = (0..20)
            .map(|i| LegendEntry::line(Colour::palette(i), format!("entry number {i}")))
            .collect();
        let mut out = String::new();
        render_legend_flow(&mut out, Rect::new(0.0, 0.0, 400.0, 40.0), &entries);
        // Two rows of two (each entry ~170 px), then "+16 more".
        assert_eq!(out.matches("<line").count(), 4, "{out}");
        assert!(out.contains("+16 more"));
    }

    #[test]
    fn bad_sizes_are_clamped() {
        let f = Figure::new(f64::NAN, -3.0);
        assert_eq!((f.width, f.height), (1.0, 1.0));
    }
}
