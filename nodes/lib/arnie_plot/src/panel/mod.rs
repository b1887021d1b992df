//! A 2-D plot panel: two axes in data units, and the things drawn in them.
//!
//! - this file: the items a panel draws ([`Line`], [`Area`], [`Marker`], [`Span`], [`Rule`],
//!   [`Text`]), its [`Axis`]es, pixel [`Rect`]s, the data-to-pixel [`Frame`];
//! - `layout`: the [`Panel`] (fitting ranges, margins, ticks, drawing it);
//! - `draw`: the SVG of each item in a frame.

use crate::colour::Colour;
use crate::svg::Anchor;

mod draw;
mod layout;
#[cfg(test)]
mod tests;

pub(crate) use draw::shape_svg;
pub use layout::Panel;

/// A rectangle in pixels (x right, y down, origin at the figure's top-left corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge [px].
    pub x: f64,
    /// Top edge [px].
    pub y: f64,
    /// Width [px].
    pub w: f64,
    /// Height [px].
    pub h: f64,
}

impl Rect {
    /// The rectangle at `(x, y)` (top-left corner) of size `w` × `h` [px].
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
    /// What the axis measures ("time", "x").
    pub label: String,
    /// Its unit as printed in brackets ("s", "mm"); empty: none.
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
    /// A disc.
    Circle,
    /// An axis-aligned square.
    Square,
    /// A square turned 45°.
    Diamond,
    /// A triangle pointing up.
    TriangleUp,
    /// A triangle pointing down.
    TriangleDown,
    /// An ×, stroked (no fill).
    Cross,
    /// A +, stroked (no fill).
    Plus,
    /// A five-pointed star.
    Star,
}

/// Where a marker's label goes, relative to the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Right of the marker, left-aligned.
    Right,
    /// Left of the marker, right-aligned.
    Left,
    /// Above the marker, centred.
    Above,
    /// Below the marker, centred.
    Below,
}

/// A polyline in data units. Each segment (point i to i + 1) has its own colour when
/// built with [`Line::per_segment`]; runs of one colour become one SVG `<polyline>`.
/// A non-finite point breaks the line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The points in data units (x, y); a non-finite one breaks the line.
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

    /// Sets the stroke width [px] (default 2).
    pub fn width(mut self, px: f64) -> Line {
        self.width = px;
        self
    }

    /// Dashed: `dash_px` drawn, `gap_px` left out, repeating [px].
    pub fn dash(mut self, dash_px: f64, gap_px: f64) -> Line {
        self.dash = Some([dash_px, gap_px]);
        self
    }

    /// Also draws a dot at every point.
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
    /// The polygon's corners in data units (closed automatically).
    pub points: Vec<[f64; 2]>,
    /// Fill colour; `None`: not filled.
    pub fill: Option<Colour>,
    /// Fill opacity, 0 (clear) to 1 (opaque).
    pub fill_opacity: f64,
    /// Outline colour; `None`: no outline.
    pub stroke: Option<Colour>,
    /// Outline width [px].
    pub stroke_width: f64,
    /// Outline dash and gap lengths [px]; `None`: solid.
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

    /// Fills with `colour` at `opacity` (0 clear to 1 opaque).
    pub fn fill(mut self, colour: Colour, opacity: f64) -> Area {
        self.fill = Some(colour);
        self.fill_opacity = opacity;
        self
    }

    /// No fill (outline only, if any).
    pub fn no_fill(mut self) -> Area {
        self.fill = None;
        self
    }

    /// Outlines with `colour`, `width_px` wide [px].
    pub fn stroke(mut self, colour: Colour, width_px: f64) -> Area {
        self.stroke = Some(colour);
        self.stroke_width = width_px;
        self
    }

    /// Dashes the outline: `dash_px` drawn, `gap_px` left out [px].
    pub fn dash(mut self, dash_px: f64, gap_px: f64) -> Area {
        self.dash = Some([dash_px, gap_px]);
        self
    }

    /// Prints `text` at the centre of the bounding box.
    pub fn label(mut self, text: impl Into<String>) -> Area {
        self.label = Some(text.into());
        self
    }
}

/// A point drawn as a shape, with an optional label beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Where, in data units (x, y); not drawn when outside the shown ranges or non-finite.
    pub at: [f64; 2],
    /// Its shape.
    pub shape: Shape,
    /// Size [px] (the diameter of a circle).
    pub size: f64,
    /// Fill colour.
    pub fill: Colour,
    /// Outline colour.
    pub stroke: Colour,
    /// Text beside it, and on which side.
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

    /// Sets the size [px] (default 10).
    pub fn size(mut self, px: f64) -> Marker {
        self.size = px;
        self
    }

    /// Sets the outline colour (default black).
    pub fn stroke(mut self, colour: Colour) -> Marker {
        self.stroke = colour;
        self
    }

    /// Labels it with `text` at `place`.
    pub fn label(mut self, text: impl Into<String>, place: Place) -> Marker {
        self.label = Some((text.into(), place));
        self
    }
}

/// A shaded band across the whole panel between `x0` and `x1` (data units of the x axis),
/// labelled at its top when the label fits: e.g. the phases of a run on a time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Start on the x axis (data units).
    pub x0: f64,
    /// End on the x axis (data units).
    pub x1: f64,
    /// Band colour.
    pub fill: Colour,
    /// Band opacity, 0 (clear) to 1 (opaque).
    pub opacity: f64,
    /// Printed at the band's top when it fits in its width.
    pub label: Option<String>,
}

impl Span {
    /// The band `x0..x1` in `fill` at opacity 0.6, no label.
    pub fn new(x0: f64, x1: f64, fill: Colour) -> Span {
        Span {
            x0,
            x1,
            fill,
            opacity: 0.6,
            label: None,
        }
    }

    /// Labels the band with `text`.
    pub fn label(mut self, text: impl Into<String>) -> Span {
        self.label = Some(text.into());
        self
    }

    /// Sets the opacity (0 clear to 1 opaque).
    pub fn opacity(mut self, opacity: f64) -> Span {
        self.opacity = opacity;
        self
    }
}

/// A vertical (`x = at`) or horizontal (`y = at`) rule across the panel, optionally labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// `true`: the line `x = at`; `false`: `y = at`.
    pub vertical: bool,
    /// Position on its axis (data units).
    pub at: f64,
    /// Line colour.
    pub colour: Colour,
    /// Line width [px].
    pub width: f64,
    /// Dash and gap lengths [px]; `None`: solid.
    pub dash: Option<[f64; 2]>,
    /// Printed at the rule's end inside the plot area.
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

    /// Labels the rule with `text`.
    pub fn label(mut self, text: impl Into<String>) -> Rule {
        self.label = Some(text.into());
        self
    }

    /// A solid line instead of dashed.
    pub fn solid(mut self) -> Rule {
        self.dash = None;
        self
    }
}

/// Free text at a data point.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    /// Anchor point in data units (x, y); not drawn when outside the shown ranges.
    pub at: [f64; 2],
    /// The text (escaped in the SVG).
    pub text: String,
    /// Font size [px].
    pub size: f64,
    /// Fill colour.
    pub colour: Colour,
    /// Horizontal alignment at `at`.
    pub anchor: Anchor,
}

impl Text {
    /// `text` at data point `(x, y)`: 12 px, black, left-aligned.
    pub fn new(x: f64, y: f64, text: impl Into<String>) -> Text {
        Text {
            at: [x, y],
            text: text.into(),
            size: 12.0,
            colour: Colour::BLACK,
            anchor: Anchor::Start,
        }
    }

    /// Sets the font size [px].
    pub fn size(mut self, px: f64) -> Text {
        self.size = px;
        self
    }

    /// Sets the colour.
    pub fn colour(mut self, colour: Colour) -> Text {
        self.colour = colour;
        self
    }

    /// Sets the horizontal alignment.
    pub fn anchor(mut self, anchor: Anchor) -> Text {
        self.anchor = anchor;
        self
    }
}

/// Anything a panel draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A polyline.
    Line(Line),
    /// A polygon.
    Area(Area),
    /// A marker.
    Marker(Marker),
    /// A shaded band along x.
    Span(Span),
    /// A horizontal or vertical rule.
    Rule(Rule),
    /// Free text.
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
    /// Top-left corner of the plot area.
    TopLeft,
    /// Top-right corner of the plot area.
    TopRight,
    /// Bottom-left corner of the plot area.
    BottomLeft,
    /// Bottom-right corner of the plot area.
    BottomRight,
}
