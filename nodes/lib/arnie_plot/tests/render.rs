//! Whole figures: the SVG is well-formed and parses in usvg, the PNG decodes with the
//! figure's size, bad input becomes an error value.

use arnie_plot::*;

/// A figure with one of everything, in the shape of the Eurobot table picture.
fn table_figure() -> Figure {
    let mut table = Panel::new(
        "table (top view)",
        Axis::new("x", "mm").range(0.0, 3000.0),
        Axis::new("y", "mm").range(0.0, 2000.0),
    )
    .equal_aspect();
    table.add(
        Area::rect(0.0, 0.0, 3000.0, 2000.0)
            .fill(Colour::hex("#e8f0e0").unwrap_or(Colour::WHITE), 1.0)
            .stroke(Colour::BLACK, 1.0),
    );
    table.add(
        Area::rect(1200.0, 800.0, 1800.0, 1000.0)
            .fill(Colour::GREY, 0.8)
            .label("obstacle <A&B>"),
    );
    table.add(
        Area::circle(2500.0, 500.0, 150.0)
            .no_fill()
            .stroke(Colour::RED, 1.5)
            .dash(4.0, 3.0),
    );
    let path = vec![
        [250.0, 250.0],
        [1000.0, 400.0],
        [f64::NAN, 0.0],
        [1000.0, 1500.0],
        [2700.0, 1700.0],
    ];
    table.add(
        Line::per_segment(
            path,
            vec![
                Colour::palette(0),
                Colour::palette(0),
                Colour::palette(1),
                Colour::palette(1),
            ],
        )
        .dots(),
    );
    table.add(Marker::new(1000.0, 400.0, Shape::Cross, Colour::RED).label("blocked", Place::Right));
    table.add(
        Marker::new(9999.0, 400.0, Shape::Star, Colour::RED).label("off the table", Place::Right),
    );
    table.add(Text::new(100.0, 1900.0, "start zone"));
    table.legend(
        Corner::TopRight,
        vec![
            LegendEntry::line(Colour::palette(0), "task 1"),
            LegendEntry::marker(Shape::Cross, Colour::RED, "blocked"),
        ],
    );

    let mut score = Panel::time_series("score", Axis::new("points", ""));
    score.add(Span::new(0.0, 40.0, Colour::pastel(0)).label("collect"));
    score.add(Span::new(40.0, 100.0, Colour::pastel(1)).label("build"));
    score.add(Line::new(
        vec![[0.0, 0.0], [30.0, 10.0], [70.0, 25.0], [100.0, 40.0]],
        Colour::BLACK,
    ));
    score.add(Rule::vertical(70.0, Colour::RED).label("tower done"));
    score.add(Rule::horizontal(30.0, Colour::GREY).label("target"));

    let mut fig = Figure::new(900.0, 900.0)
        .title("Eurobot-like table")
        .subtitle("a test figure: \"quotes\" & <angles>");
    let rows = Rect::new(0.0, 60.0, 900.0, 800.0).rows(2, 10.0);
    fig.panel(rows[0], table);
    fig.panel(rows[1], score);
    fig.legend(
        Rect::new(16.0, 870.0, 860.0, 30.0),
        vec![
            LegendEntry::area(Colour::pastel(0), 0.6, "collect"),
            LegendEntry::dashed(Colour::RED, "events"),
        ],
    );
    fig
}

#[test]
fn the_svg_is_well_formed_and_parses_in_usvg() {
    let svg = table_figure().to_svg();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("900"));
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    for want in [
        "x [mm]",
        "y [mm]",
        "time [s]",
        "points",
        "3000",
        "2000",
        "obstacle <A&B>",
        "blocked",
        "collect",
        "build",
        "tower done",
        "task 1",
    ] {
        assert!(
            texts.iter().any(|t| t == want),
            "no text {want:?} in {texts:?}"
        );
    }
    // The marker outside the fixed range is not drawn.
    assert!(!texts.iter().any(|t| t == "off the table"));
    // Two panels, two clip paths with distinct ids.
    let clips: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("clipPath"))
        .filter_map(|n| n.attribute("id"))
        .collect();
    assert_eq!(clips.len(), 2);
    assert_ne!(clips[0], clips[1]);
    // The path: one polyline per colour run, broken at the NaN.
    let polylines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .count();
    assert_eq!(polylines, 3, "blue run, orange run, the score line");
    let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default())
        .expect("usvg parses it");
    assert_eq!(tree.size().width(), 900.0);
}

fn decode(data: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(data));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn the_png_decodes_with_the_figure_size_times_the_scale() {
    let fig = table_figure();
    let dir = std::env::temp_dir().join(format!("arnie_plot_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg_path, png_path) = (dir.join("t.svg"), dir.join("t.png"));
    let png = write_both(&fig, &svg_path, &png_path, 1.0).expect("both files");
    assert_eq!((png.width, png.height), (900, 900));
    let (w, h, pixels) = decode(&std::fs::read(&png_path).unwrap());
    assert_eq!((w, h), (900, 900));
    // Not blank: white background and dark ink both present.
    assert!(pixels
        .chunks(4)
        .any(|p| p[0] > 250 && p[1] > 250 && p[2] > 250));
    assert!(pixels
        .chunks(4)
        .any(|p| p[0] < 60 && p[1] < 60 && p[2] < 60));
    assert!(std::fs::read_to_string(&svg_path)
        .unwrap()
        .starts_with("<svg"));

    let big = render_png(&fig.to_svg(), 1.5).expect("scaled");
    assert_eq!((big.width, big.height), (1350, 1350));
    assert_eq!(decode(&big.data).0, 1350);
    if std::env::var_os("ARNIE_PLOT_KEEP").is_some() {
        eprintln!("kept {}", dir.display());
    } else {
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn text_is_rendered_when_a_font_exists() {
    // Render one word with and without its text element: with a font, the pixels differ.
    let with = r#"<svg xmlns="http://www.w3.org/2000/svg" width="80" height="30"><rect width="100%" height="100%" fill="white"/><text x="5" y="20" font-family="sans-serif" font-size="16">Ag</text></svg>"#;
    let without = r#"<svg xmlns="http://www.w3.org/2000/svg" width="80" height="30"><rect width="100%" height="100%" fill="white"/></svg>"#;
    let a = render_png(with, 1.0).unwrap();
    let b = render_png(without, 1.0).unwrap();
    match a.font {
        Some(_) => assert_ne!(
            decode(&a.data).2,
            decode(&b.data).2,
            "text drew nothing although a font was found"
        ),
        None => eprintln!("no font on this machine: the PNG has no text (the SVG does)"),
    }
}

#[test]
fn bad_input_is_an_error_value() {
    assert!(matches!(render_png("<svg", 1.0), Err(PlotError::Svg(_))));
    assert!(matches!(
        render_png("not xml at all", 1.0),
        Err(PlotError::Svg(_))
    ));
    let huge = Figure::new(100_000.0, 10.0).to_svg();
    assert!(matches!(
        render_png(&huge, 1.0),
        Err(PlotError::Size { .. })
    ));
    // A bad scale falls back to 1.
    let small = Figure::new(20.0, 10.0).to_svg();
    assert_eq!(render_png(&small, f32::NAN).unwrap().width, 20);
    // Writing into a folder that does not exist names the path.
    let err = Figure::new(10.0, 10.0)
        .write_svg(std::path::Path::new("/nonexistent/dir/x.svg"))
        .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/dir/x.svg"), "{err}");
}

#[test]
fn empty_and_degenerate_panels_still_draw() {
    let mut p = Panel::new("nothing", Axis::new("x", ""), Axis::new("y", ""));
    p.add(Line::new(vec![], Colour::BLUE));
    p.add(Line::per_segment(
        vec![[1.0, 1.0], [f64::INFINITY, 2.0]],
        vec![],
    ));
    p.add(Area::polygon(vec![[f64::NAN, 0.0]]));
    p.add(Span::new(f64::NAN, 1.0, Colour::pastel(0)));
    p.add(Rule::vertical(f64::NAN, Colour::RED));
    let mut fig = Figure::new(300.0, 200.0);
    fig.panel(Rect::new(0.0, 0.0, 300.0, 200.0), p);
    fig.panel(
        Rect::new(0.0, 0.0, 10.0, 10.0),
        Panel::new("tiny", Axis::new("x", ""), Axis::new("y", "")),
    );
    let svg = fig.to_svg();
    roxmltree::Document::parse(&svg).expect("well-formed");
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    render_png(&svg, 1.0).expect("renders");
}
