//! The planner's PNG map loader (nodes/arnie_planner `Grid::from_png`, what `map_file`
//! takes for a `.png`, as `map_server` does): PNG bytes, both `unknown_is_blocked`
//! settings. Never a panic; a grid that loads has `width * height` cells within the
//! size limit, and written back as an 8-bit grey PNG it loads to the same cells.
#![no_main]
use arnie_grid::{Grid, PgmOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for unknown_is_blocked in [false, true] {
        let opts = PgmOptions {
            unknown_is_blocked,
            ..PgmOptions::default()
        };
        let Ok(g) = Grid::from_png(data, &opts) else {
            continue;
        };
        let (w, h) = (g.width(), g.height());
        assert!(
            w > 0 && h > 0 && w <= Grid::MAX_SIDE && h <= Grid::MAX_SIDE,
            "{w}x{h}"
        );
        assert_eq!(g.blocked_cells().len(), w * h);
        let grey: Vec<u8> = g
            .blocked_cells()
            .iter()
            .map(|&b| if b { 0 } else { 255 })
            .collect();
        let mut png = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut png, w as u32, h as u32);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Eight);
            let mut wr = enc.write_header().expect("PNG header");
            wr.write_image_data(&grey).expect("PNG data");
        }
        let back = Grid::from_png(&png, &opts).expect("our PNG loads");
        assert_eq!(back.blocked_cells(), g.blocked_cells(), "PNG round trip");
    }
});
