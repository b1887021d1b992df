//! Map loaders: Moving AI `.map` and `.scen`, PGM bitmaps (P2/P5, `map_server`
//! thresholds) and `nav_msgs/OccupancyGrid` data (as plain numbers, no ROS types).

use crate::error::MapError;
use crate::grid::{cell_char, Cell, Grid, MapFrame};

impl Grid {
    /// Reads a Moving AI `.map` (`type octile`, `height H`, `width W`, `map`, then H rows
    /// of W characters; `. G S` free, `@ O T W` blocked).
    ///
    /// # Errors
    /// [`MapError::BadHeader`], [`MapError::BadSize`] (a side 0 or over
    /// [`Grid::MAX_SIDE`], checked before any row is read), [`MapError::BadCell`],
    /// [`MapError::WrongCellCount`].
    pub fn from_movingai(text: &str) -> Result<Self, MapError> {
        let mut lines = text.lines();
        let (mut width, mut height) = (None, None);
        loop {
            let line = lines
                .next()
                .ok_or_else(|| bad_header("missing `map` line"))?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("type"), _) | (None, _) => {}
                (Some("height"), Some(v)) => height = Some(parse_side(v, "height")?),
                (Some("width"), Some(v)) => width = Some(parse_side(v, "width")?),
                (Some("map"), None) => break,
                _ => return Err(bad_header(&format!("unexpected line {line:?}"))),
            }
        }
        let width = width.ok_or_else(|| bad_header("missing width"))?;
        let height = height.ok_or_else(|| bad_header("missing height"))?;
        Grid::check_sides(width, height)?;
        let mut blocked = Vec::with_capacity((width * height).min(1 << 26));
        for (row, line) in lines
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            for (col, ch) in line.chars().enumerate() {
                let b = cell_char(ch).ok_or_else(|| MapError::BadCell {
                    row,
                    col,
                    value: ch.to_string(),
                })?;
                blocked.push(b);
            }
            if line.chars().count() != width {
                return Err(MapError::WrongCellCount {
                    expected: width * height,
                    got: blocked.len(),
                });
            }
        }
        Grid::from_blocked(width, height, blocked)
    }

    /// Reads a binary (P5) or plain (P2) PGM, thresholded like ROS `map_server`:
    /// occupancy `p = (maxval - v) / maxval` (`v / maxval` when `negate`), blocked when
    /// `p > occupied_thresh`, free when `p < free_thresh`, unknown otherwise. Row 0 of the
    /// image is row 0 of the grid (the top).
    ///
    /// # Errors
    /// [`MapError::BadOption`], [`MapError::BadHeader`], [`MapError::WrongCellCount`],
    /// [`MapError::BadCell`] (a value above maxval).
    pub fn from_pgm(bytes: &[u8], opts: &PgmOptions) -> Result<Self, MapError> {
        check_pgm_options(opts)?;
        let mut pos = 0;
        let magic = pgm_token(bytes, &mut pos).ok_or_else(|| bad_header("missing magic"))?;
        let binary = match magic {
            b"P5" => true,
            b"P2" => false,
            _ => return Err(bad_header("magic must be P2 or P5")),
        };
        let mut number = |what: &str| -> Result<usize, MapError> {
            let t =
                pgm_token(bytes, &mut pos).ok_or_else(|| bad_header(&format!("missing {what}")))?;
            std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| bad_header(&format!("bad {what}")))
        };
        let width = number("width")?;
        let height = number("height")?;
        let maxval = number("maxval")?;
        if maxval == 0 || maxval > 65535 {
            return Err(bad_header("maxval must be 1..=65535"));
        }
        Grid::check_sides(width, height)?;
        let n = width * height;
        let mut values = Vec::with_capacity(n);
        if binary {
            let data = bytes.get(pos + 1..).unwrap_or(&[]); // one whitespace after maxval
            let bpp = if maxval < 256 { 1 } else { 2 };
            if data.len() < n * bpp {
                return Err(MapError::WrongCellCount {
                    expected: n,
                    got: data.len() / bpp,
                });
            }
            if bpp == 1 {
                values.extend(data[..n].iter().map(|&b| usize::from(b)));
            } else {
                values.extend(
                    data[..2 * n]
                        .chunks_exact(2)
                        .map(|p| usize::from(p[0]) << 8 | usize::from(p[1])),
                );
            }
        } else {
            while let Some(t) = pgm_token(bytes, &mut pos) {
                let v = std::str::from_utf8(t)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok());
                let i = values.len();
                values.push(v.ok_or_else(|| MapError::BadCell {
                    row: i / width,
                    col: i % width,
                    value: String::from_utf8_lossy(t).into_owned(),
                })?);
            }
            if values.len() != n {
                return Err(MapError::WrongCellCount {
                    expected: n,
                    got: values.len(),
                });
            }
        }
        shades_to_grid(width, height, &values, maxval, opts)
    }

    /// Reads a PNG bitmap (what `map_server` also accepts) with the same thresholds as
    /// [`Grid::from_pgm`]: grey, grey + alpha, RGB or RGBA at any bit depth; a colour
    /// pixel's shade is the mean of its R, G, B (as `map_server` does); alpha is ignored.
    ///
    /// # Errors
    /// [`MapError::BadHeader`] for a file the PNG decoder refuses, [`MapError::BadSize`],
    /// [`MapError::BadOption`].
    pub fn from_png(bytes: &[u8], opts: &PgmOptions) -> Result<Self, MapError> {
        check_pgm_options(opts)?;
        let mut decoder = png::Decoder::new(bytes);
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder
            .read_info()
            .map_err(|e| bad_header(&format!("PNG: {e}")))?;
        // The png crate (0.17) panics while expanding a palette whose length is not
        // 3 × entries (≤ 256), or with more tRNS alphas than entries: refused here.
        if let Some(palette) = &reader.info().palette {
            let entries = palette.len() / 3;
            let alphas = reader.info().trns.as_ref().map_or(0, |t| t.len());
            if palette.len() % 3 != 0 || entries > 256 || alphas > entries {
                return Err(bad_header(&format!(
                    "PNG: a palette of {} bytes with {alphas} alpha values",
                    palette.len()
                )));
            }
        }
        let (width, height) = (reader.info().width as usize, reader.info().height as usize);
        Grid::check_sides(width, height)?;
        let mut buf = vec![0u8; reader.output_buffer_size()];
        let frame = reader
            .next_frame(&mut buf)
            .map_err(|e| bad_header(&format!("PNG: {e}")))?;
        let channels = frame.color_type.samples();
        let colour = if channels >= 3 { 3 } else { 1 };
        let mut values = Vec::with_capacity(width * height);
        for row in buf[..frame.buffer_size()]
            .chunks_exact(frame.line_size)
            .take(height)
        {
            for px in row.chunks_exact(channels).take(width) {
                let sum: usize = px[..colour].iter().map(|&v| usize::from(v)).sum();
                values.push(sum / colour);
            }
        }
        if values.len() != width * height {
            return Err(MapError::WrongCellCount {
                expected: width * height,
                got: values.len(),
            });
        }
        shades_to_grid(width, height, &values, 255, opts)
    }

    /// Builds a grid from `nav_msgs/OccupancyGrid` fields: `data` is row-major starting
    /// at the origin (bottom row first, as ROS stores it), values 0..=100 or -1 (unknown,
    /// as is any negative value). Rows are flipped so that grid row 0 is the top.
    /// The map's origin orientation must be identity (the glue checks it).
    ///
    /// # Errors
    /// [`MapError::BadSize`], [`MapError::WrongCellCount`], [`MapError::BadFrame`].
    pub fn from_occupancy(
        width: usize,
        height: usize,
        frame: MapFrame,
        data: &[i8],
        opts: &OccupancyOptions,
    ) -> Result<Self, MapError> {
        let frame = MapFrame::new(frame.resolution_m, frame.origin_x_m, frame.origin_y_m)?;
        Grid::check_size(width, height, data.len())?;
        let mut blocked = Vec::with_capacity(data.len());
        for row in data.chunks_exact(width).rev() {
            blocked.extend(row.iter().map(|&v| {
                if v < 0 {
                    opts.unknown_is_blocked
                } else {
                    v > opts.occupied_above
                }
            }));
        }
        Ok(Grid::from_blocked(width, height, blocked)?.with_frame(frame))
    }
}

/// Thresholds for [`Grid::from_pgm`] (the `map_server` YAML keys and defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct PgmOptions {
    /// Occupancy above which a pixel is blocked (0..=1).
    pub occupied_thresh: f64,
    /// Occupancy below which a pixel is free (0..=1, at most `occupied_thresh`).
    pub free_thresh: f64,
    /// Dark means free instead of blocked.
    pub negate: bool,
    /// Whether pixels between the thresholds are blocked.
    pub unknown_is_blocked: bool,
}

impl Default for PgmOptions {
    fn default() -> Self {
        PgmOptions {
            occupied_thresh: 0.65,
            free_thresh: 0.196,
            negate: false,
            unknown_is_blocked: true,
        }
    }
}

/// How [`Grid::from_occupancy`] reads cell values.
#[derive(Clone, Debug, PartialEq)]
pub struct OccupancyOptions {
    /// A cell is blocked when its value is above this (0..=100 scale).
    pub occupied_above: i8,
    /// Whether unknown (negative) cells are blocked.
    pub unknown_is_blocked: bool,
}

impl Default for OccupancyOptions {
    fn default() -> Self {
        OccupancyOptions {
            occupied_above: 50,
            unknown_is_blocked: true,
        }
    }
}

/// One line of a Moving AI `.scen` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Difficulty bucket.
    pub bucket: u32,
    /// The map path as written (e.g. `maps/dao/arena.map`).
    pub map: String,
    /// Map width.
    pub width: usize,
    /// Map height.
    pub height: usize,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// Published optimal length (8-connected, √2 diagonals, no corner cutting).
    pub optimal_length: f64,
}

/// Parses a Moving AI `.scen` (`version 1` then 9 tab-separated fields per line).
///
/// # Errors
/// [`MapError::BadHeader`] naming the line and field that does not parse.
pub fn parse_scen(text: &str) -> Result<Vec<Scenario>, MapError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with("version") {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 9 {
            return Err(bad_header(&format!(
                "scen line {}: {} fields, expected 9",
                i + 1,
                f.len()
            )));
        }
        let num = |k: usize, name: &str| -> Result<i64, MapError> {
            f[k].trim()
                .parse::<i64>()
                .map_err(|_| bad_header(&format!("scen line {}: bad {name}", i + 1)))
        };
        let coord = |k: usize, name: &str| -> Result<i32, MapError> {
            i32::try_from(num(k, name)?)
                .map_err(|_| bad_header(&format!("scen line {}: {name} out of range", i + 1)))
        };
        let optimal_length = f[8]
            .trim()
            .parse::<f64>()
            .map_err(|_| bad_header(&format!("scen line {}: bad optimal length", i + 1)))?;
        out.push(Scenario {
            bucket: u32::try_from(num(0, "bucket")?).unwrap_or(u32::MAX),
            map: f[1].to_string(),
            width: usize::try_from(num(2, "width")?).unwrap_or(0),
            height: usize::try_from(num(3, "height")?).unwrap_or(0),
            start: Cell::new(coord(4, "start x")?, coord(5, "start y")?),
            goal: Cell::new(coord(6, "goal x")?, coord(7, "goal y")?),
            optimal_length,
        });
    }
    Ok(out)
}

fn check_pgm_options(opts: &PgmOptions) -> Result<(), MapError> {
    if !(0.0..=1.0).contains(&opts.occupied_thresh) {
        return Err(MapError::BadOption {
            field: "occupied_thresh",
        });
    }
    if !(0.0..=1.0).contains(&opts.free_thresh) || opts.free_thresh > opts.occupied_thresh {
        return Err(MapError::BadOption {
            field: "free_thresh",
        });
    }
    Ok(())
}

/// Bitmap shades (0 = black .. `maxval` = white) → blocked cells, `map_server` rules:
/// occupancy `p = 1 - shade` (or `shade` with `negate`), blocked above
/// `occupied_thresh`, free below `free_thresh`, else `unknown_is_blocked`.
fn shades_to_grid(
    width: usize,
    height: usize,
    values: &[usize],
    maxval: usize,
    opts: &PgmOptions,
) -> Result<Grid, MapError> {
    let mut blocked = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        if v > maxval {
            return Err(MapError::BadCell {
                row: i / width,
                col: i % width,
                value: v.to_string(),
            });
        }
        let shade = v as f64 / maxval as f64;
        let p = if opts.negate { shade } else { 1.0 - shade };
        blocked.push(if p > opts.occupied_thresh {
            true
        } else if p < opts.free_thresh {
            false
        } else {
            opts.unknown_is_blocked
        });
    }
    Grid::from_blocked(width, height, blocked)
}

fn bad_header(what: &str) -> MapError {
    MapError::BadHeader {
        what: what.to_string(),
    }
}

fn parse_side(v: &str, what: &str) -> Result<usize, MapError> {
    v.parse::<usize>()
        .map_err(|_| bad_header(&format!("bad {what} {v:?}")))
}

/// Next whitespace-separated PGM token, skipping `#` comments; `pos` ends on the byte
/// after the token.
fn pgm_token<'a>(bytes: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    loop {
        match bytes.get(*pos)? {
            b'#' => {
                while bytes.get(*pos).is_some_and(|&b| b != b'\n') {
                    *pos += 1;
                }
            }
            b if b.is_ascii_whitespace() => *pos += 1,
            _ => break,
        }
    }
    let start = *pos;
    while bytes.get(*pos).is_some_and(|b| !b.is_ascii_whitespace()) {
        *pos += 1;
    }
    Some(&bytes[start..*pos])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movingai_map_parses() {
        let g = Grid::from_movingai("type octile\nheight 2\nwidth 3\nmap\n.@T\nGSW\n").unwrap();
        assert_eq!(
            format!("{g:?}").lines().skip(1).collect::<Vec<_>>(),
            vec![".##", "..#"]
        );
        assert!(Grid::from_movingai("type octile\nheight 2\nwidth 3\nmap\n...\n").is_err());
        assert!(Grid::from_movingai("type octile\nwidth 3\nmap\n...\n").is_err());
        assert!(Grid::from_movingai("height 1\nwidth 3\nmap\n.x.\n").is_err());
    }

    #[test]
    #[allow(clippy::approx_constant)] // 1.41421356 is the file's text, not √2
    fn scen_parses_and_rejects() {
        let s = parse_scen("version 1\n3\tmaps/dao/arena.map\t49\t49\t1\t11\t1\t12\t1.41421356\n")
            .unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].start, s[0].goal, s[0].bucket),
            (Cell::new(1, 11), Cell::new(1, 12), 3)
        );
        assert!((s[0].optimal_length - 1.41421356).abs() < 1e-12);
        assert!(parse_scen("version 1\n3\tm\t49\n").is_err());
        assert!(parse_scen("version 1\n3\tm\t49\t49\tx\t11\t1\t12\t1\n").is_err());
    }

    #[test]
    fn pgm_p2_and_p5_use_map_server_thresholds() {
        let p2 = b"P2\n# comment\n3 2\n255\n255 0 128\n254 10 205\n";
        let g = Grid::from_pgm(p2, &PgmOptions::default()).unwrap();
        // 128 -> p = 0.498 (unknown -> blocked by default); 205 -> p = 0.196 (unknown).
        assert_eq!(
            format!("{g:?}").lines().skip(1).collect::<Vec<_>>(),
            vec![".##", ".##"]
        );
        let opts = PgmOptions {
            unknown_is_blocked: false,
            ..PgmOptions::default()
        };
        let g = Grid::from_pgm(p2, &opts).unwrap();
        assert_eq!(
            format!("{g:?}").lines().skip(1).collect::<Vec<_>>(),
            vec![".#.", ".#."]
        );
        let mut p5 = b"P5 3 2 255\n".to_vec();
        p5.extend([255, 0, 128, 254, 10, 205]);
        assert_eq!(
            Grid::from_pgm(&p5, &opts).unwrap(),
            Grid::from_pgm(p2, &opts).unwrap()
        );
        let negated = Grid::from_pgm(
            p2,
            &PgmOptions {
                negate: true,
                ..opts.clone()
            },
        )
        .unwrap();
        assert!(negated.is_blocked(Cell::new(0, 0)) && negated.is_free(Cell::new(1, 0)));
        let mut p5_16 = b"P5 2 1 65535\n".to_vec();
        p5_16.extend([0xff, 0xff, 0, 0]);
        let g = Grid::from_pgm(&p5_16, &opts).unwrap();
        assert!(g.is_free(Cell::new(0, 0)) && g.is_blocked(Cell::new(1, 0)));
    }

    fn png(
        width: u32,
        height: u32,
        colour: png::ColorType,
        depth: png::BitDepth,
        data: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(colour);
        enc.set_depth(depth);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    }

    #[test]
    fn png_reads_like_the_same_pgm() {
        let opts = PgmOptions {
            unknown_is_blocked: false,
            ..PgmOptions::default()
        };
        let pgm = Grid::from_pgm(b"P2\n3 2\n255\n255 0 128\n254 10 205\n", &opts).unwrap();
        let grey = png(
            3,
            2,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[255, 0, 128, 254, 10, 205],
        );
        assert_eq!(Grid::from_png(&grey, &opts).unwrap(), pgm);
        // Colour: the shade is the mean of R, G, B; alpha is ignored.
        let rgba: Vec<u8> = [255u8, 0, 128, 254, 10, 205]
            .iter()
            .flat_map(|&v| [v, v, v, 7])
            .collect();
        let colour = png(3, 2, png::ColorType::Rgba, png::BitDepth::Eight, &rgba);
        assert_eq!(Grid::from_png(&colour, &opts).unwrap(), pgm);
        let mixed = png(
            2,
            1,
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            &[255, 0, 0, 0, 0, 255],
        );
        // (255 + 0 + 0) / 3 = 85 -> p = 0.667 > 0.65: blocked, as is black-blue.
        let g = Grid::from_png(&mixed, &opts).unwrap();
        assert!(g.is_blocked(Cell::new(0, 0)) && g.is_blocked(Cell::new(1, 0)));
        // 16-bit grey and 1-bit grey are normalised to 8 bits.
        let g16 = png(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            &[0xff, 0xff, 0, 0],
        );
        let g = Grid::from_png(&g16, &opts).unwrap();
        assert!(g.is_free(Cell::new(0, 0)) && g.is_blocked(Cell::new(1, 0)));
        let g1 = png(
            8,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::One,
            &[0b1010_0000],
        );
        let g = Grid::from_png(&g1, &opts).unwrap();
        assert_eq!(format!("{g:?}").lines().nth(1), Some(".#.#####"));
    }

    #[test]
    fn png_rejects_bad_files() {
        let o = PgmOptions::default();
        assert!(matches!(
            Grid::from_png(b"not a png", &o),
            Err(MapError::BadHeader { .. })
        ));
        let good = png(
            2,
            2,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0, 255, 255, 0],
        );
        assert!(matches!(
            Grid::from_png(&good[..good.len() - 20], &o),
            Err(MapError::BadHeader { .. })
        ));
        let bad = PgmOptions {
            occupied_thresh: 1.5,
            ..o
        };
        assert_eq!(
            Grid::from_png(&good, &bad),
            Err(MapError::BadOption {
                field: "occupied_thresh"
            })
        );
    }

    /// Found by `cargo xtask fuzz planner_maps` (2026-11-26): a `height` of 3.2e18 and a
    /// row of the wrong width made the error's `width * height` overflow (a panic with
    /// overflow checks, a wrong count without). Sides are now checked before any row.
    #[test]
    fn movingai_with_a_side_too_large_is_refused_before_its_rows() {
        let fuzz = "type octile\nheight 3200000000000000000\nwidth 32\nmap\n\
                    .....@TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT\n........\n";
        assert!(matches!(
            Grid::from_movingai(fuzz),
            Err(MapError::BadSize {
                width: 32,
                height: 3_200_000_000_000_000_000
            })
        ));
        let zero = "type octile\nheight 0\nwidth 4\nmap\n";
        assert!(matches!(
            Grid::from_movingai(zero),
            Err(MapError::BadSize { .. })
        ));
        let wide = format!(
            "type octile\nheight 1\nwidth {}\nmap\n.\n",
            Grid::MAX_SIDE + 1
        );
        assert!(matches!(
            Grid::from_movingai(&wide),
            Err(MapError::BadSize { .. })
        ));
    }

    /// Found by `cargo xtask fuzz planner_png` (minimized): a PLTE chunk of 4 bytes made
    /// the png crate panic while decoding the rows.
    #[test]
    fn png_with_a_broken_palette_is_refused() {
        const FUZZ_PALETTE_4_BYTES: &[u8] = &[
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
            0x44, 0x52, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x1e, 0x02, 0x03, 0x00, 0x00,
            0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x50, 0x4c, 0x54, 0x45, 0x7f,
            0x62, 0xd1, 0x00, 0x00, 0x00, 0x26, 0x63, 0x60, 0x40, 0x03, 0x00, 0x49, 0x44, 0x41,
            0x54, 0x78, 0xda, 0x63, 0x40, 0x03,
        ];
        let o = PgmOptions::default();
        assert!(matches!(
            Grid::from_png(FUZZ_PALETTE_4_BYTES, &o),
            Err(MapError::BadHeader { .. })
        ));
    }

    #[test]
    fn pgm_rejects_bad_files() {
        let o = PgmOptions::default();
        assert!(matches!(
            Grid::from_pgm(b"P6 1 1 255\n\0", &o),
            Err(MapError::BadHeader { .. })
        ));
        assert!(matches!(
            Grid::from_pgm(b"P5 2 2 255\n\0", &o),
            Err(MapError::WrongCellCount { .. })
        ));
        assert!(matches!(
            Grid::from_pgm(b"P2 1 1 255\n300", &o),
            Err(MapError::BadCell { .. })
        ));
        assert!(matches!(
            Grid::from_pgm(b"P2 1 1", &o),
            Err(MapError::BadHeader { .. })
        ));
        assert!(matches!(
            Grid::from_pgm(b"P2 0 1 255\n", &o),
            Err(MapError::BadSize { .. })
        ));
        assert!(Grid::from_pgm(b"", &o).is_err());
        let bad = PgmOptions {
            free_thresh: 0.9,
            ..o
        };
        assert_eq!(
            Grid::from_pgm(b"P2 1 1 255\n0", &bad),
            Err(MapError::BadOption {
                field: "free_thresh"
            })
        );
    }

    #[test]
    fn occupancy_flips_rows_and_thresholds() {
        let frame = MapFrame::new(0.1, 1.0, 2.0).unwrap();
        // Bottom row first: [0, 100], top row: [-1, 51].
        let data = [0, 100, -1, 51];
        let g = Grid::from_occupancy(2, 2, frame, &data, &OccupancyOptions::default()).unwrap();
        assert_eq!(
            format!("{g:?}").lines().skip(1).collect::<Vec<_>>(),
            vec!["##", ".#"]
        );
        assert_eq!(g.world_to_cell(1.05, 2.05).unwrap(), Cell::new(0, 1));
        let opts = OccupancyOptions {
            occupied_above: 60,
            unknown_is_blocked: false,
        };
        let g = Grid::from_occupancy(2, 2, frame, &data, &opts).unwrap();
        assert_eq!(
            format!("{g:?}").lines().skip(1).collect::<Vec<_>>(),
            vec!["..", ".#"]
        );
        assert!(Grid::from_occupancy(2, 2, frame, &data[..3], &opts).is_err());
        assert!(Grid::from_occupancy(0, 2, frame, &[], &opts).is_err());
        let bad = MapFrame {
            resolution_m: -1.0,
            ..frame
        };
        assert!(Grid::from_occupancy(2, 2, bad, &data, &opts).is_err());
    }
}
