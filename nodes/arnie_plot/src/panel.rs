//! A 2-D plot panel: two axes in data units, and the things drawn in them.

use crate::colour::Colour;
use crate::svg::{self, num, Anchor};
use crate::ticks;
use std::fmt::Write;

/// A rectangle in pixels (x right, y down, origin at the figure's top-left corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    /// `n` side-by-side rectangles of equal width with `gap` pixels between them.
    pub fn columns(&self, n: usize, gap: f64) -> Vec<Rect> {
        let n = n.max(1);
        let w = ((self.w - gap * (n - 1) as f64) / n as f64).max(0.0);
        (0..n)
            .map(|i| Rect::new(self.x + i as f64 * (w + gap), self.y, w, self.h))
            .collect()
    }

    /// `n` stacked rectangles of equal height with `gap` pixels between them.
    pub fn rows(&self, n: usize, gap: f64) -> Vec<Rect> {
        let n = n.max(1);
        let h = ((self.h - gap * (n - 1) as f64) / n as f64).max(0.0);
        (0..n)
            .map(|i| Rect::new(self.x, self.y + i as f64 * (h + gap), self.w, h))
            .collect()
    }
}

/// One axis: what it measures, its unit, and optionally a fixed range.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub label: String,
    pub unit: String,
    /// Fixed `(low, high)`; `None`: fitted to the data (lines, markers, `include`d points)
    /// with 5 % padding.
    pub range: Option<(f64, f64)>,
}

impl Axis {
    /// An axis titled `label [unit]` (just `label` when `unit` is empty).
    pub fn new(label: impl Into<String>, unit: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            unit: unit.into(),
            range: None,
        }
    }

    /// A fixed range (ignored unless both ends are finite and `low < high`).
    pub fn range(mut self, low: f64, high: f64) -> Axis {
        self.range = Some((low, high));
        self
    }

    /// The axis title as printed.
    pub fn title(&self) -> String {
        if self.unit.is_empty() {
            self.label.clone()
        } else {
            format!("{} [{}]", self.label, self.unit)
        }
    }
}

/// Marker shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Circle,
    Square,
    Diamond,
    TriangleUp,
    TriangleDown,
    Cross,
    Plus,
    Star,
}

/// Where a marker's label goes, relative to the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Right,
    Left,
    Above,
    Below,
}

/// A polyline in data units. Each segment (point i to i + 1) has its own colour when
/// built with [`Line::per_segment`]; runs of one colour become one SVG `<polyline>`.
/// A non-finite point breaks the line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub points: Vec<[f64; 2]>,
    /// One colour per segment; shorter than the segments: the last colour repeats; empty: grey.
    pub colours: Vec<Colour>,
    /// Stroke width [px].
    pub width: f64,
    /// Dash and gap lengths [px]; `None`: solid.
    pub dash: Option<[f64; 2]>,
    /// Also draw a small dot at every point.
    pub dots: bool,
}

impl Line {
    /// A line of one colour.
    pub fn new(points: Vec<[f64; 2]>, colour: Colour) -> Line {
        Line {
            points,
            colours: vec![colour],
            width: 2.0,
            dash: None,
            dots: false,
        }
    }

    /// A line with one colour per segment (`colours[i]` colours point i to point i + 1).
    pub fn per_segment(points: Vec<[f64; 2]>, colours: Vec<Colour>) -> Line {
        Line {
            points,
            colours,
            width: 2.0,
            dash: None,
            dots: false,
        }
    }

    pub fn width(mut self, px: f64) -> Line {
        self.width = px;
        self
    }

    pub fn dash(mut self, dash_px: f64, gap_px: f64) -> Line {
        self.dash = Some([dash_px, gap_px]);
        self
    }

    pub fn dots(mut self) -> Line {
        self.dots = true;
        self
    }

    fn colour(&self, segment: usize) -> Colour {
        match self.colours.get(segment).or(self.colours.last()) {
            Some(c) => *c,
            None => Colour::GREY,
        }
    }
}

/// A filled and/or outlined polygon in data units (rectangles, circles, obstacles, areas).
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    pub points: Vec<[f64; 2]>,
    pub fill: Option<Colour>,
    pub fill_opacity: f64,
    pub stroke: Option<Colour>,
    pub stroke_width: f64,
    pub dash: Option<[f64; 2]>,
    /// Printed at the centre of the polygon's bounding box.
    pub label: Option<String>,
}

impl Area {
    /// A polygon (closed automatically), grey fill, no outline.
    pub fn polygon(points: Vec<[f64; 2]>) -> Area {
        Area {
            points,
            fill: Some(Colour::LIGHT_GREY),
            fill_opacity: 1.0,
            stroke: None,
            stroke_width: 1.0,
            dash: None,
            label: None,
        }
    }

    /// The axis-aligned rectangle with corners `(x0, y0)` and `(x1, y1)`.
    pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Area {
        Area::polygon(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    }

    /// A circle of radius `r` (data units) around `(cx, cy)`, as a 72-gon (round on screen
    /// only when the panel has an equal aspect ratio).
    pub fn circle(cx: f64, cy: f64, r: f64) -> Area {
        let n = 72;
        Area::polygon(
            (0..n)
                .map(|i| {
                    let a = i as f64 / n as f64 * std::f64::consts::TAU;
                    [cx + r * a.cos(), cy + r * a.sin()]
                })
                .collect(),
        )
    }

    pub fn fill(mut self, colour: Colour, opacity: f64) -> Area {
        self.fill = Some(colour);
        self.fill_opacity = opacity;
        self
    }

    pub fn no_fill(mut self) -> Area {
        self.fill = None;
        self
    }

    pub fn stroke(mut self, colour: Colour, width_px: f64) -> Area {
        self.stroke = Some(colour);
        self.stroke_width = width_px;
        self
    }

    pub fn dash(mut self, dash_px: f64, gap_px: f64) -> Area {
        self.dash = Some([dash_px, gap_px]);
        self
    }

    pub fn label(mut self, text: impl Into<String>) -> Area {
        self.label = Some(text.into());
        self
    }
}

/// A point drawn as a shape, with an optional label beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub at: [f64; 2],
    pub shape: Shape,
    /// Size [px] (the diameter of a circle).
    pub size: f64,
    pub fill: Colour,
    pub stroke: Colour,
    pub label: Option<(String, Place)>,
}

impl Marker {
    /// A 10 px circle, filled `colour`, black outline.
    pub fn new(x: f64, y: f64, shape: Shape, colour: Colour) -> Marker {
        Marker {
            at: [x, y],
            shape,
            size: 10.0,
            fill: colour,
            stroke: Colour::BLACK,
            label: None,
        }
    }

    pub fn size(mut self, px: f64) -> Marker {
        self.size = px;
        self
    }

    pub fn stroke(mut self, colour: Colour) -> Marker {
        self.stroke = colour;
        self
    }

    pub fn label(mut self, text: impl Into<String>, place: Place) -> Marker {
        self.label = Some((text.into(), place));
        self
    }
}

/// A shaded band across the whole panel between `x0` and `x1` (data units of the x axis),
/// labelled at its top when the label fits: e.g. the phases of a run on a time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub x0: f64,
    pub x1: f64,
    pub fill: Colour,
    pub opacity: f64,
    pub label: Option<String>,
}

impl Span {
    pub fn new(x0: f64, x1: f64, fill: Colour) -> Span {
        Span {
            x0,
            x1,
            fill,
            opacity: 0.6,
            label: None,
        }
    }

    pub fn label(mut self, text: impl Into<String>) -> Span {
        self.label = Some(text.into());
        self
    }

    pub fn opacity(mut self, opacity: f64) -> Span {
        self.opacity = opacity;
        self
    }
}

/// A vertical (`x = at`) or horizontal (`y = at`) rule across the panel, optionally labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub vertical: bool,
    pub at: f64,
    pub colour: Colour,
    pub width: f64,
    pub dash: Option<[f64; 2]>,
    pub label: Option<String>,
}

impl Rule {
    /// The vertical line `x = at` (dashed).
    pub fn vertical(at: f64, colour: Colour) -> Rule {
        Rule {
            vertical: true,
            at,
            colour,
            width: 1.5,
            dash: Some([5.0, 3.0]),
            label: None,
        }
    }

    /// The horizontal line `y = at` (dashed).
    pub fn horizontal(at: f64, colour: Colour) -> Rule {
        Rule {
            vertical: false,
            at,
            colour,
            width: 1.5,
            dash: Some([5.0, 3.0]),
            label: None,
        }
    }

    pub fn label(mut self, text: impl Into<String>) -> Rule {
        self.label = Some(text.into());
        self
    }

    pub fn solid(mut self) -> Rule {
        self.dash = None;
        self
    }
}

/// Free text at a data point.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub at: [f64; 2],
    pub text: String,
    pub size: f64,
    pub colour: Colour,
    pub anchor: Anchor,
}

impl Text {
    pub fn new(x: f64, y: f64, text: impl Into<String>) -> Text {
        Text {
            at: [x, y],
            text: text.into(),
            size: 12.0,
            colour: Colour::BLACK,
            anchor: Anchor::Start,
        }
    }

    pub fn size(mut self, px: f64) -> Text {
        self.size = px;
        self
    }

    pub fn colour(mut self, colour: Colour) -> Text {
        self.colour = colour;
        self
    }

    pub fn anchor(mut self, anchor: Anchor) -> Text {
        self.anchor = anchor;
        self
    }
}

/// Anything a panel draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Line(Line),
    Area(Area),
    Marker(Marker),
    Span(Span),
    Rule(Rule),
    Text(Text),
}

impl From<Line> for Item {
    fn from(v: Line) -> Item {
        Item::Line(v)
    }
}
impl From<Area> for Item {
    fn from(v: Area) -> Item {
        Item::Area(v)
    }
}
impl From<Marker> for Item {
    fn from(v: Marker) -> Item {
        Item::Marker(v)
    }
}
impl From<Span> for Item {
    fn from(v: Span) -> Item {
        Item::Span(v)
    }
}
impl From<Rule> for Item {
    fn from(v: Rule) -> Item {
        Item::Rule(v)
    }
}
impl From<Text> for Item {
    fn from(v: Text) -> Item {
        Item::Text(v)
    }
}

/// The mapping of a panel's data ranges onto its plot area (y grows upwards in data,
/// downwards in pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The plot area inside the panel's margins [px].
    pub area: Rect,
    /// Data range shown on the x axis (left to right).
    pub x: (f64, f64),
    /// Data range shown on the y axis (bottom to top).
    pub y: (f64, f64),
}

impl Frame {
    /// Data `(x, y)` to pixels.
    pub fn to_px(&self, x: f64, y: f64) -> (f64, f64) {
        let a = &self.area;
        (
            a.x + (x - self.x.0) / (self.x.1 - self.x.0) * a.w,
            a.y + a.h - (y - self.y.0) / (self.y.1 - self.y.0) * a.h,
        )
    }

    /// Pixels back to data `(x, y)`.
    pub fn to_data(&self, px: f64, py: f64) -> (f64, f64) {
        let a = &self.area;
        (
            self.x.0 + (px - a.x) / a.w * (self.x.1 - self.x.0),
            self.y.0 + (a.y + a.h - py) / a.h * (self.y.1 - self.y.0),
        )
    }

    /// Whether the data point is inside the shown ranges.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x.0 && x <= self.x.1 && y >= self.y.0 && y <= self.y.1
    }
}

/// Where a panel's own legend goes (inside the plot area).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

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
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    /// One data unit is as long on both axes (maps, top views): the shorter range grows.
    pub equal_aspect: bool,
    pub items: Vec<Item>,
    /// Extra points the fitted ranges must contain.
    pub include: Vec<[f64; 2]>,
    /// A legend inside the plot area.
    pub legend: Option<(Corner, Vec<crate::LegendEntry>)>,
}

impl Panel {
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
            TITLE_FONT,
            Anchor::Start,
            "#000000",
            false,
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
            let _ = writeln!(
                out,
                r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e4e4e4" stroke-width="1"/>"##,
                num(px),
                num(a.y),
                num(a.y + a.h)
            );
        }
        for &t in &yt {
            let (_, py) = f.to_px(0.0, t);
            let _ = writeln!(
                out,
                r##"<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#e4e4e4" stroke-width="1"/>"##,
                num(py),
                num(a.x),
                num(a.x + a.w)
            );
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
            let _ = writeln!(
                out,
                r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#333333" stroke-width="1"/>"##,
                num(px),
                num(yb),
                num(yb + 5.0)
            );
            svg::text(
                out,
                px,
                yb + 7.0 + TICK_FONT,
                TICK_FONT,
                Anchor::Middle,
                "#333333",
                false,
                &ticks::format_tick(t, xstep),
            );
        }
        for &t in &yt {
            let (_, py) = f.to_px(0.0, t);
            let _ = writeln!(
                out,
                r##"<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#333333" stroke-width="1"/>"##,
                num(py),
                num(a.x - 5.0),
                num(a.x)
            );
            svg::text(
                out,
                a.x - 8.0,
                py + TICK_FONT * 0.35,
                TICK_FONT,
                Anchor::End,
                "#333333",
                false,
                &ticks::format_tick(t, ystep),
            );
        }
        svg::text(
            out,
            a.x + a.w / 2.0,
            a.y + a.h + 22.0 + LABEL_FONT,
            LABEL_FONT,
            Anchor::Middle,
            "#000000",
            false,
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
                            11.0,
                            Anchor::Middle,
                            "#222222",
                            true,
                            label,
                        );
                    }
                }
            }
        }
        for item in &self.items {
            match item {
                Item::Marker(m) => render_marker(out, &f, m),
                Item::Text(t) => {
                    if f.contains(t.at[0], t.at[1]) {
                        let (px, py) = f.to_px(t.at[0], t.at[1]);
                        svg::text(
                            out,
                            px,
                            py,
                            t.size,
                            t.anchor,
                            &t.colour.to_string(),
                            true,
                            &t.text,
                        );
                    }
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
                                    11.0,
                                    Anchor::Middle,
                                    "#222222",
                                    true,
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

fn bbox_centre(points: &[[f64; 2]]) -> Option<(f64, f64)> {
    let finite: Vec<_> = points
        .iter()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .collect();
    if finite.is_empty() {
        return None;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    );
    for p in finite {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    Some(((x0 + x1) / 2.0, (y0 + y1) / 2.0))
}

fn dash_attr(dash: Option<[f64; 2]>) -> String {
    match dash {
        Some([d, g]) if d > 0.0 && g >= 0.0 => {
            format!(r#" stroke-dasharray="{} {}""#, num(d), num(g))
        }
        _ => String::new(),
    }
}

fn render_line(out: &mut String, f: &Frame, l: &Line) {
    let finite = |p: &[f64; 2]| p[0].is_finite() && p[1].is_finite();
    let dash = dash_attr(l.dash);
    let flush = |run: &mut Vec<(f64, f64)>, colour: Colour, out: &mut String| {
        if run.len() >= 2 {
            let _ = writeln!(
                out,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="{}" stroke-linejoin="round" stroke-linecap="round"{dash} points="{}"/>"#,
                num(l.width),
                svg::points(run)
            );
        }
        run.clear();
    };
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut run_colour = Colour::GREY;
    for i in 0..l.points.len().saturating_sub(1) {
        let (p, q) = (&l.points[i], &l.points[i + 1]);
        if !(finite(p) && finite(q)) {
            flush(&mut run, run_colour, out);
            continue;
        }
        let c = l.colour(i);
        if c != run_colour && !run.is_empty() {
            flush(&mut run, run_colour, out);
        }
        if run.is_empty() {
            run.push(f.to_px(p[0], p[1]));
            run_colour = c;
        }
        run.push(f.to_px(q[0], q[1]));
    }
    flush(&mut run, run_colour, out);
    if l.dots {
        for (i, p) in l.points.iter().enumerate() {
            if finite(p) {
                let (x, y) = f.to_px(p[0], p[1]);
                let c = l.colour(i.saturating_sub(1).min(l.points.len().saturating_sub(2)));
                let _ = writeln!(
                    out,
                    r#"<circle cx="{}" cy="{}" r="{}" fill="{c}"/>"#,
                    num(x),
                    num(y),
                    num(l.width * 0.9 + 0.6)
                );
            }
        }
    }
}

fn render_area(out: &mut String, f: &Frame, ar: &Area) {
    let px: Vec<(f64, f64)> = ar
        .points
        .iter()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .map(|p| f.to_px(p[0], p[1]))
        .collect();
    if px.len() < 2 {
        return;
    }
    let fill = match ar.fill {
        Some(c) => format!(
            r#"fill="{c}" fill-opacity="{}""#,
            num(ar.fill_opacity.clamp(0.0, 1.0))
        ),
        None => r#"fill="none""#.to_string(),
    };
    let stroke = match ar.stroke {
        Some(c) => format!(
            r#" stroke="{c}" stroke-width="{}"{}"#,
            num(ar.stroke_width),
            dash_attr(ar.dash)
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        r#"<polygon {fill}{stroke} points="{}"/>"#,
        svg::points(&px)
    );
}

fn render_rule(out: &mut String, f: &Frame, r: &Rule) {
    if !r.at.is_finite() {
        return;
    }
    let a = f.area;
    let dash = dash_attr(r.dash);
    if r.vertical {
        let (x, _) = f.to_px(r.at, 0.0);
        let _ = writeln!(
            out,
            r#"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-width="{4}"{dash}/>"#,
            num(x),
            num(a.y),
            num(a.y + a.h),
            r.colour,
            num(r.width)
        );
        if let Some(label) = &r.label {
            // Written upwards along the rule, near the bottom of the plot.
            let (tx, ty) = (x - 4.0, a.y + a.h - 6.0);
            let _ = writeln!(
                out,
                r##"<text x="{0}" y="{1}" font-size="11" fill="{2}" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke" transform="rotate(-90 {0} {1})">{3}</text>"##,
                num(tx),
                num(ty),
                r.colour,
                svg::esc(label)
            );
        }
    } else {
        let (_, y) = f.to_px(0.0, r.at);
        let _ = writeln!(
            out,
            r#"<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="{3}" stroke-width="{4}"{dash}/>"#,
            num(y),
            num(a.x),
            num(a.x + a.w),
            r.colour,
            num(r.width)
        );
        if let Some(label) = &r.label {
            svg::text(
                out,
                a.x + a.w - 4.0,
                y - 4.0,
                11.0,
                Anchor::End,
                &r.colour.to_string(),
                true,
                label,
            );
        }
    }
}

/// The SVG of a marker shape centred at pixel `(x, y)`.
pub(crate) fn shape_svg(
    out: &mut String,
    shape: Shape,
    x: f64,
    y: f64,
    size: f64,
    fill: Colour,
    stroke: Colour,
) {
    let r = size / 2.0;
    let style = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="1.2""#);
    let poly =
        |pts: Vec<(f64, f64)>| format!(r#"<polygon {style} points="{}"/>"#, svg::points(&pts));
    let s = match shape {
        Shape::Circle => format!(
            r#"<circle cx="{}" cy="{}" r="{}" {style}/>"#,
            num(x),
            num(y),
            num(r)
        ),
        Shape::Square => poly(vec![
            (x - r, y - r),
            (x + r, y - r),
            (x + r, y + r),
            (x - r, y + r),
        ]),
        Shape::Diamond => poly(vec![
            (x, y - r * 1.25),
            (x + r, y),
            (x, y + r * 1.25),
            (x - r, y),
        ]),
        Shape::TriangleUp => poly(vec![
            (x, y - r * 1.15),
            (x + r, y + r * 0.85),
            (x - r, y + r * 0.85),
        ]),
        Shape::TriangleDown => poly(vec![
            (x, y + r * 1.15),
            (x + r, y - r * 0.85),
            (x - r, y - r * 0.85),
        ]),
        Shape::Star => poly(
            (0..10)
                .map(|i| {
                    let a = -std::f64::consts::FRAC_PI_2 + i as f64 * std::f64::consts::PI / 5.0;
                    let rr = if i % 2 == 0 { r * 1.3 } else { r * 0.55 };
                    (x + rr * a.cos(), y + rr * a.sin())
                })
                .collect(),
        ),
        Shape::Cross | Shape::Plus => {
            let d = if shape == Shape::Cross {
                r * std::f64::consts::FRAC_1_SQRT_2
            } else {
                r
            };
            let (ax, ay, bx, by) = if shape == Shape::Cross {
                (d, d, d, -d)
            } else {
                (d, 0.0, 0.0, d)
            };
            format!(
                r#"<path d="M{} {} L{} {} M{} {} L{} {}" stroke="{fill}" stroke-width="2.5" stroke-linecap="round" fill="none"/>"#,
                num(x - ax),
                num(y - ay),
                num(x + ax),
                num(y + ay),
                num(x - bx),
                num(y - by),
                num(x + bx),
                num(y + by)
            )
        }
    };
    let _ = writeln!(out, "{s}");
}

fn render_marker(out: &mut String, f: &Frame, m: &Marker) {
    if !(m.at[0].is_finite() && m.at[1].is_finite()) || !f.contains(m.at[0], m.at[1]) {
        return;
    }
    let (x, y) = f.to_px(m.at[0], m.at[1]);
    shape_svg(out, m.shape, x, y, m.size, m.fill, m.stroke);
    if let Some((label, place)) = &m.label {
        let r = m.size / 2.0 + 4.0;
        let size = 12.0;
        // A label that would leave the plot area goes to the other side of the marker.
        let a = f.area;
        let w = svg::text_width(label, size);
        let place = match place {
            Place::Right if x + r + w > a.x + a.w => Place::Left,
            Place::Left if x - r - w < a.x => Place::Right,
            Place::Above if y - r - size < a.y => Place::Below,
            Place::Below if y + r + size > a.y + a.h => Place::Above,
            p => *p,
        };
        // Above or below: centred, unless that leaves the area on one side.
        let (cx, canchor) = if x + w / 2.0 > a.x + a.w {
            (x + r, Anchor::End)
        } else if x - w / 2.0 < a.x {
            (x - r, Anchor::Start)
        } else {
            (x, Anchor::Middle)
        };
        let (tx, ty, anchor) = match place {
            Place::Right => (x + r, y + size * 0.35, Anchor::Start),
            Place::Left => (x - r, y + size * 0.35, Anchor::End),
            Place::Above => (cx, y - r - 1.0, canchor),
            Place::Below => (cx, y + r + size * 0.8, canchor),
        };
        svg::text(out, tx, ty, size, anchor, "#111111", true, label);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel_with(points: Vec<[f64; 2]>) -> Panel {
        let mut p = Panel::new("t", Axis::new("x", "mm"), Axis::new("y", "mm"));
        p.add(Line::new(points, Colour::BLUE));
        p
    }

    #[test]
    fn data_maps_onto_the_plot_area_with_y_up() {
        let p = Panel::new(
            "t",
            Axis::new("x", "m").range(0.0, 3.0),
            Axis::new("y", "m").range(0.0, 2.0),
        );
        let f = p.frame(Rect::new(0.0, 0.0, 376.0, 270.0));
        assert_eq!(f.area, Rect::new(62.0, 26.0, 300.0, 200.0));
        assert_eq!(f.to_px(0.0, 0.0), (62.0, 226.0));
        assert_eq!(f.to_px(3.0, 2.0), (362.0, 26.0));
        assert_eq!(f.to_px(1.5, 1.0), (212.0, 126.0));
        let (x, y) = f.to_data(212.0, 126.0);
        assert!((x - 1.5).abs() < 1e-12 && (y - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fitted_ranges_cover_lines_and_markers_with_padding() {
        let mut p = panel_with(vec![[0.0, 10.0], [100.0, 30.0], [f64::NAN, 1e9]]);
        p.add(Marker::new(-20.0, 10.0, Shape::Circle, Colour::RED));
        p.add(Area::rect(-1e6, -1e6, 1e6, 1e6)); // context: does not widen the ranges
        let f = p.frame(Rect::new(0.0, 0.0, 500.0, 400.0));
        assert!(
            (f.x.0 - (-26.0)).abs() < 1e-9 && (f.x.1 - 106.0).abs() < 1e-9,
            "{:?}",
            f.x
        );
        assert!(
            (f.y.0 - 9.0).abs() < 1e-9 && (f.y.1 - 31.0).abs() < 1e-9,
            "{:?}",
            f.y
        );
    }

    #[test]
    fn no_data_and_single_points_still_give_a_range() {
        let p = Panel::new("empty", Axis::new("x", ""), Axis::new("y", ""));
        let f = p.frame(Rect::new(0.0, 0.0, 300.0, 200.0));
        assert_eq!((f.x, f.y), ((0.0, 1.0), (0.0, 1.0)));
        let p = panel_with(vec![[5.0, 5.0]]);
        let f = p.frame(Rect::new(0.0, 0.0, 300.0, 200.0));
        assert_eq!((f.x, f.y), ((4.0, 6.0), (4.0, 6.0)));
        // A fixed range that is not a range is ignored.
        let p = Panel::new(
            "bad",
            Axis::new("x", "").range(3.0, 3.0),
            Axis::new("y", "").range(f64::NAN, 1.0),
        );
        let f = p.frame(Rect::new(0.0, 0.0, 300.0, 200.0));
        assert_eq!((f.x, f.y), ((0.0, 1.0), (0.0, 1.0)));
    }

    #[test]
    fn equal_aspect_gives_both_axes_the_same_scale() {
        let p = panel_with(vec![[0.0, 0.0], [100.0, 10.0]]).equal_aspect();
        let f = p.frame(Rect::new(0.0, 0.0, 476.0, 470.0));
        let sx = f.area.w / (f.x.1 - f.x.0);
        let sy = f.area.h / (f.y.1 - f.y.0);
        assert!((sx - sy).abs() < 1e-9, "{sx} vs {sy}");
        // The data still fits, centred.
        assert!(f.contains(0.0, 0.0) && f.contains(100.0, 10.0));
        assert!(((f.y.0 + f.y.1) / 2.0 - 5.0).abs() < 1e-9);
    }

    #[test]
    fn labels_stay_inside_the_plot_area() {
        let f = Frame {
            area: Rect::new(0.0, 0.0, 200.0, 100.0),
            x: (0.0, 200.0),
            y: (0.0, 100.0),
        };
        let mut out = String::new();
        render_marker(
            &mut out,
            &f,
            &Marker::new(190.0, 50.0, Shape::Circle, Colour::RED)
                .label("a long label", Place::Right),
        );
        assert!(
            out.contains(r#"text-anchor="end""#),
            "flipped to the left: {out}"
        );
        out.clear();
        render_marker(
            &mut out,
            &f,
            &Marker::new(100.0, 50.0, Shape::Circle, Colour::RED)
                .label("a long label", Place::Right),
        );
        assert!(
            out.contains(r#"text-anchor="start""#),
            "room on the right: {out}"
        );
        out.clear();
        // Data y = 99 is 1 px below the top edge: "above" would leave the area.
        render_marker(
            &mut out,
            &f,
            &Marker::new(100.0, 99.0, Shape::Circle, Colour::RED).label("x", Place::Above),
        );
        assert!(out.contains(r#"y="19.6""#), "flipped below: {out}");
        out.clear();
        render_marker(
            &mut out,
            &f,
            &Marker::new(100.0, 1.0, Shape::Circle, Colour::RED).label("x", Place::Below),
        );
        assert!(out.contains(r#"y="89""#), "flipped above: {out}");
        out.clear();
        render_marker(
            &mut out,
            &f,
            &Marker::new(100.0, 50.0, Shape::Circle, Colour::RED).label("x", Place::Below),
        );
        assert!(
            out.contains(r#"y="68.6""#) && out.contains(r#"text-anchor="middle""#),
            "stays below, centred: {out}"
        );
        out.clear();
        render_marker(
            &mut out,
            &f,
            &Marker::new(195.0, 50.0, Shape::Circle, Colour::RED)
                .label("a long label", Place::Below),
        );
        assert!(
            out.contains(r#"text-anchor="end""#),
            "ends near the marker at the right edge: {out}"
        );
    }

    #[test]
    fn rect_splits() {
        let r = Rect::new(10.0, 20.0, 210.0, 100.0);
        assert_eq!(
            r.columns(2, 10.0),
            vec![
                Rect::new(10.0, 20.0, 100.0, 100.0),
                Rect::new(120.0, 20.0, 100.0, 100.0)
            ]
        );
        assert_eq!(r.rows(2, 0.0)[1], Rect::new(10.0, 70.0, 210.0, 50.0));
        assert_eq!(r.columns(0, 5.0).len(), 1);
    }

    #[test]
    fn one_polyline_per_run_of_one_colour_and_breaks_at_nan() {
        let f = Frame {
            area: Rect::new(0.0, 0.0, 100.0, 100.0),
            x: (0.0, 10.0),
            y: (0.0, 10.0),
        };
        let pts = vec![
            [0.0, 0.0],
            [1.0, 1.0],
            [2.0, 2.0],
            [3.0, 3.0],
            [f64::NAN, 0.0],
            [5.0, 5.0],
            [6.0, 6.0],
        ];
        let colours = vec![
            Colour::BLUE,
            Colour::BLUE,
            Colour::RED,
            Colour::RED,
            Colour::RED,
            Colour::RED,
        ];
        let mut out = String::new();
        render_line(&mut out, &f, &Line::per_segment(pts, colours));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(
            lines[0].contains("#1f77b4") && lines[0].contains(r#"points="0,100 10,90 20,80""#),
            "{}",
            lines[0]
        );
        // The red run starts where the blue one ended: no gap at a colour change.
        assert!(
            lines[1].contains("#d62728") && lines[1].contains(r#"points="20,80 30,70""#),
            "{}",
            lines[1]
        );
        assert!(lines[2].contains(r#"points="50,50 60,40""#), "{}", lines[2]);
    }
}
