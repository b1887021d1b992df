//! The SVG of each item of a panel, drawn in a [`Frame`].

use super::{Area, Frame, Line, Marker, Place, Rule, Shape};
use crate::colour::Colour;
use crate::svg::{self, num, Anchor};
use std::fmt::Write;

pub(super) fn bbox_centre(points: &[[f64; 2]]) -> Option<(f64, f64)> {
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

pub(super) fn render_line(out: &mut String, f: &Frame, l: &Line) {
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

pub(super) fn render_area(out: &mut String, f: &Frame, ar: &Area) {
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

pub(super) fn render_rule(out: &mut String, f: &Frame, r: &Rule) {
    if !r.at.is_finite() {
        return;
    }
    let a = f.area;
    let dash = dash_attr(r.dash);
    if r.vertical {
        let (x, _) = f.to_px(r.at, 0.0);
        svg::line(out, (x, a.y), (x, a.y + a.h), r.colour, r.width, &dash);
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
        svg::line(out, (a.x, y), (a.x + a.w, y), r.colour, r.width, &dash);
        if let Some(label) = &r.label {
            svg::text(
                out,
                a.x + a.w - 4.0,
                y - 4.0,
                svg::Style::halo(11.0, Anchor::End, &r.colour.to_string()),
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

pub(super) fn render_marker(out: &mut String, f: &Frame, m: &Marker) {
    if !(m.at[0].is_finite() && m.at[1].is_finite() && f.contains(m.at[0], m.at[1])) {
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
        svg::text(
            out,
            tx,
            ty,
            svg::Style::halo(size, anchor, "#111111"),
            label,
        );
    }
}
