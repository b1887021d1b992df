//! The README's example: a table with an obstacle, a path coloured by task, a blocked
//! point, and a score over time. `cargo run -p arnie_plot --example table [OUT_DIR]`
//! writes table.svg and table.png (default: the system's temp folder).
use arnie_plot::*;

fn main() -> Result<(), PlotError> {
    let mut table = Panel::new(
        "table",
        Axis::new("x", "mm").range(0.0, 3000.0),
        Axis::new("y", "mm").range(0.0, 2000.0),
    )
    .equal_aspect();
    table.add(
        Area::rect(1200.0, 800.0, 1800.0, 1000.0)
            .fill(Colour::GREY, 0.8)
            .label("obstacle"),
    );
    table.add(Line::per_segment(
        vec![[250.0, 250.0], [1000.0, 400.0], [1000.0, 1500.0]],
        vec![Colour::palette(0), Colour::palette(1)], // task 1, then task 2
    ));
    table.add(
        Marker::new(1000.0, 400.0, Shape::Cross, Colour::RED).label("blocked 12.5 s", Place::Right),
    );

    let mut score = Panel::time_series("score", Axis::new("points", ""));
    score.add(Span::new(0.0, 40.0, Colour::pastel(0)).label("collect"));
    score.add(Line::new(
        vec![[0.0, 0.0], [40.0, 12.0], [100.0, 40.0]],
        Colour::BLACK,
    ));

    let mut fig = Figure::new(900.0, 900.0).title("Eurobot run");
    let rows = Rect::new(0.0, 40.0, 900.0, 820.0).rows(2, 10.0);
    fig.panel(rows[0], table);
    fig.panel(rows[1], score);
    fig.legend(
        Rect::new(16.0, 870.0, 860.0, 30.0),
        vec![LegendEntry::line(Colour::palette(0), "task 1")],
    );

    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let (svg, png) = (dir.join("table.svg"), dir.join("table.png"));
    write_both(&fig, &svg, &png, 1.0)?;
    println!("{}\n{}", svg.display(), png.display());
    Ok(())
}
