//! The [`Panel`]: fitted ranges, margins, ticks, and its SVG.

use super::draw::{bbox_centre, render_area, render_line, render_marker, render_rule};
use super::{Axis, Corner, Frame, Item, Rect};
use crate::svg::{self, num, Anchor};
use crate::ticks;
use std::fmt::Write;

/// Margins of a panel around its plot area [px]: room for the title, tick labels and axis titles.
const MARGIN_TOP: f64 = 26.0;
const MARGIN_LEFT: f64 = 62.0;
const MARGIN_BOTTOM: f64 = 44.0;
const MARGIN_RIGHT: f64 = 14.0;
const TICK_FONT: f64 = 12.0;
const LABEL_FONT: f64 = 13.0;
const TITLE_FONT: f64 = 15.0;

/// A 2-D plot panel: a title, two axes and the items drawn in data units. Placed in a
/// [`crate::Figure`] at a pixel rectangle (which includes its margins).
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Printed above the plot area, left-aligned.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis (grows upwards).
    pub y: Axis,
    /// One data unit is as long on both axes (maps, top views): the shorter range grows.
    pub equal_aspect: bool,
    /// What is drawn, in this order within each layer (spans, areas/lines/rules, then markers and text on top).
    pub items: Vec<Item>,
    /// Extra points the fitted ranges must contain.
    pub include: Vec<[f64; 2]>,
    /// A legend inside the plot area.
    pub legend: Option<(Corner, Vec<crate::LegendEntry>)>,
}

impl Panel {
    /// An empty panel titled `title` with axes `x` and `y`, ranges fitted to its items.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Panel {
        Panel {
            title: title.into(),
            x,
            y,
            equal_aspect: false,
            items: Vec::new(),
            include: Vec::new(),
            legend: None,
        }
    }

    /// A time-series panel: x is `time [s]`.
    pub fn time_series(title: impl Into<String>, y: Axis) -> Panel {
        Panel::new(title, Axis::new("time", "s"), y)
    }

    /// One data unit as long on both axes (maps, top views).
    pub fn equal_aspect(mut self) -> Panel {
        self.equal_aspect = true;
        self
    }

    /// Adds an item (a [`Line`], [`Area`], [`Marker`], [`Span`], [`Rule`] or [`Text`]).
    pub fn add(&mut self, item: impl Into<Item>) -> &mut Panel {
        self.items.push(item.into());
        self
    }

    /// Makes the fitted ranges contain `(x, y)`.
    pub fn include(&mut self, x: f64, y: f64) -> &mut Panel {
        self.include.push([x, y]);
        self
    }

    /// A legend inside the plot area.
    pub fn legend(&mut self, corner: Corner, entries: Vec<crate::LegendEntry>) -> &mut Panel {
        self.legend = Some((corner, entries));
        self
    }

    /// The data ranges and plot area this panel gets in `rect`. Fitted ranges cover the
    /// finite points of lines and markers and the `include`d points (areas, spans, rules
    /// and texts do not widen them), padded by 5 %; with no data, 0..1.
    pub fn frame(&self, rect: Rect) -> Frame {
        let area = Rect::new(
            rect.x + MARGIN_LEFT,
            rect.y + MARGIN_TOP,
            (rect.w - MARGIN_LEFT - MARGIN_RIGHT).max(1.0),
            (rect.h - MARGIN_TOP - MARGIN_BOTTOM).max(1.0),
        );
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut push = |p: &[f64; 2]| {
            if p[0].is_finite() && p[1].is_finite() {
                xs.push(p[0]);
                ys.push(p[1]);
            }
        };
        for item in &self.items {
            match item {
                Item::Line(l) => l.points.iter().for_each(&mut push),
                Item::Marker(m) => push(&m.at),
                _ => {}
            }
        }
        self.include.iter().for_each(&mut push);
        let mut x = fit(self.x.range, &xs);
        let mut y = fit(self.y.range, &ys);
        if self.equal_aspect {
            let ux = (x.1 - x.0) / area.w;
            let uy = (y.1 - y.0) / area.h;
            if ux > uy {
                let half = ux * area.h / 2.0;
                let c = (y.0 + y.1) / 2.0;
                y = (c - half, c + half);
            } else {
                let half = uy * area.w / 2.0;
                let c = (x.0 + x.1) / 2.0;
                x = (c - half, c + half);
            }
        }
        Frame { area, x, y }
    }

    /// Draws the panel into `out` at `rect`; `id` makes its clip path unique in the figure.
    pub(crate) fn render(&self, rect: Rect, id: usize, out: &mut String) {
        let f = self.frame(rect);
        let a = f.area;
        let clip = format!("arnie-plot-clip-{id}");
        let _ = writeln!(out, r#"<g class="panel">"#);
        let _ = writeln!(
            out,
            r#"<defs><clipPath id="{clip}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>"#,
            num(a.x),
            num(a.y),
            num(a.w),
            num(a.h)
        );
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff"/>"##,
            num(a.x),
            num(a.y),
            num(a.w),
            num(a.h)
        );
        svg::text(
            out,
            a.x,
            rect.y + TITLE_FONT + 2.0,
            svg::Style::plain(TITLE_FONT, Anchor::Start, "#000000"),
            &self.title,
        );

        // Background: spans, then the grid.
        let _ = writeln!(out, r#"<g clip-path="url(#{clip})">"#);
        for item in &self.items {
            if let Item::Span(s) = item {
                if s.x0.is_finite() && s.x1.is_finite() {
                    let (p0, _) = f.to_px(s.x0.min(s.x1), 0.0);
                    let (p1, _) = f.to_px(s.x0.max(s.x1), 0.0);
                    let _ = writeln!(
                        out,
                        r#"<rect class="span" x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="{}"/>"#,
                        num(p0),
                        num(a.y),
                        num((p1 - p0).max(0.0)),
                        num(a.h),
                        s.fill,
                        num(s.opacity.clamp(0.0, 1.0))
                    );
                }
            }
        }
        let xt = ticks::ticks(f.x.0, f.x.1, ((a.w / 75.0) as usize).max(2));
        let yt = ticks::ticks(f.y.0, f.y.1, ((a.h / 45.0) as usize).max(2));
        for &t in &xt {
            let (px, _) = f.to_px(t, 0.0);
            svg::line(out, (px, a.y), (px, a.y + a.h), "#e4e4e4", 1.0, "");
        }
        for &t in &yt {
            let (_, py) = f.to_px(0.0, t);
            svg::line(out, (a.x, py), (a.x + a.w, py), "#e4e4e4", 1.0, "");
        }
        // Data: areas, lines, rules (clipped to the plot area).
        for item in &self.items {
            match item {
                Item::Area(ar) => render_area(out, &f, ar),
                Item::Line(l) => render_line(out, &f, l),
                Item::Rule(r) => render_rule(out, &f, r),
                _ => {}
            }
        }
        let _ = writeln!(out, "</g>");

        // Frame, ticks and axis titles.
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333333" stroke-width="1"/>"##,
            num(a.x),
            num(a.y),
            num(a.w),
            num(a.h)
        );
        let xstep = ticks::nice_step(f.x.1 - f.x.0, ((a.w / 75.0) as usize).max(2));
        let ystep = ticks::nice_step(f.y.1 - f.y.0, ((a.h / 45.0) as usize).max(2));
        for &t in &xt {
            let (px, _) = f.to_px(t, 0.0);
            let yb = a.y + a.h;
            svg::line(out, (px, yb), (px, yb + 5.0), "#333333", 1.0, "");
            svg::text(
                out,
                px,
                yb + 7.0 + TICK_FONT,
                svg::Style::plain(TICK_FONT, Anchor::Middle, "#333333"),
                &ticks::format_tick(t, xstep),
            );
        }
        for &t in &yt {
            let (_, py) = f.to_px(0.0, t);
            svg::line(out, (a.x - 5.0, py), (a.x, py), "#333333", 1.0, "");
            svg::text(
                out,
                a.x - 8.0,
                py + TICK_FONT * 0.35,
                svg::Style::plain(TICK_FONT, Anchor::End, "#333333"),
                &ticks::format_tick(t, ystep),
            );
        }
        svg::text(
            out,
            a.x + a.w / 2.0,
            a.y + a.h + 22.0 + LABEL_FONT,
            svg::Style::plain(LABEL_FONT, Anchor::Middle, "#000000"),
            &self.x.title(),
        );
        let (yx, yy) = (rect.x + LABEL_FONT + 2.0, a.y + a.h / 2.0);
        let _ = writeln!(
            out,
            r#"<text x="{0}" y="{1}" font-size="{2}" text-anchor="middle" transform="rotate(-90 {0} {1})">{3}</text>"#,
            num(yx),
            num(yy),
            num(LABEL_FONT),
            svg::esc(&self.y.title())
        );

        // Span labels along the top, markers and texts (not clipped: labels may overhang).
        for item in &self.items {
            if let Item::Span(s) = item {
                if let Some(label) = &s.label {
                    let (p0, _) = f.to_px(s.x0.min(s.x1).max(f.x.0), 0.0);
                    let (p1, _) = f.to_px(s.x0.max(s.x1).min(f.x.1), 0.0);
                    if p1 - p0 >= svg::text_width(label, 11.0) + 4.0 {
                        svg::text(
                            out,
                            (p0 + p1) / 2.0,
                            a.y + 13.0,
                            svg::Style::halo(11.0, Anchor::Middle, "#222222"),
                            label,
                        );
                    }
                }
            }
        }
        for item in &self.items {
            match item {
                Item::Marker(m) => render_marker(out, &f, m),
                Item::Text(t) if f.contains(t.at[0], t.at[1]) => {
                    let (px, py) = f.to_px(t.at[0], t.at[1]);
                    let colour = t.colour.to_string();
                    svg::text(
                        out,
                        px,
                        py,
                        svg::Style::halo(t.size, t.anchor, &colour),
                        &t.text,
                    );
                }
                Item::Area(ar) => {
                    if let Some(label) = &ar.label {
                        if let Some((cx, cy)) = bbox_centre(&ar.points) {
                            if f.contains(cx, cy) {
                                let (px, py) = f.to_px(cx, cy);
                                svg::text(
                                    out,
                                    px,
                                    py + 4.0,
                                    svg::Style::halo(11.0, Anchor::Middle, "#222222"),
                                    label,
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some((corner, entries)) = &self.legend {
            let (w, h) = crate::figure::legend_box(entries);
            let (x, y) = match corner {
                Corner::TopLeft => (a.x + 6.0, a.y + 6.0),
                Corner::TopRight => (a.x + a.w - w - 6.0, a.y + 6.0),
                Corner::BottomLeft => (a.x + 6.0, a.y + a.h - h - 6.0),
                Corner::BottomRight => (a.x + a.w - w - 6.0, a.y + a.h - h - 6.0),
            };
            crate::figure::render_legend_column(out, x, y, entries);
        }
        let _ = writeln!(out, "</g>");
    }
}

/// A fixed range if valid, else the padded extent of `values` (0..1 with none; ±1 around a
/// single value).
fn fit(fixed: Option<(f64, f64)>, values: &[f64]) -> (f64, f64) {
    if let Some((lo, hi)) = fixed {
        if lo.is_finite() && hi.is_finite() && lo < hi {
            return (lo, hi);
        }
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    if span <= f64::EPSILON * lo.abs().max(1.0) {
        let d = (lo.abs() * 0.1).max(1.0);
        return (lo - d, hi + d);
    }
    (lo - 0.05 * span, hi + 0.05 * span)
}
