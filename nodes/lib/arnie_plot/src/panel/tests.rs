//! Tests of panels: ranges, frames, ticks and item drawing.

use super::draw::{render_line, render_marker};
use super::*;
use crate::colour::Colour;

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
        &Marker::new(190.0, 50.0, Shape::Circle, Colour::RED).label("a long label", Place::Right),
    );
    assert!(
        out.contains(r#"text-anchor="end""#),
        "flipped to the left: {out}"
    );
    out.clear();
    render_marker(
        &mut out,
        &f,
        &Marker::new(100.0, 50.0, Shape::Circle, Colour::RED).label("a long label", Place::Right),
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
        &Marker::new(195.0, 50.0, Shape::Circle, Colour::RED).label("a long label", Place::Below),
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
