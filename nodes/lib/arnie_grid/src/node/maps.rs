//! Maps: files (PGM, PNG, Moving AI, table scenario) loaded, `nav_msgs/OccupancyGrid`
//! fields checked (yaw 0, size, cell count) and turned into a [`Grid`].

use std::path::Path;

use crate::error::MapError;
use crate::formats::PgmOptions;
use crate::grid::{Grid, MapFrame};

use super::MapOptions;

/// Why a map was not used. The node keeps the previous map (or none) and counts it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapRejected {
    /// The file could not be read.
    #[error("cannot read map file {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The map's origin is rotated (only yaw 0 maps are supported: the grid is
    /// axis-aligned with the world).
    #[error(
        "map origin is rotated (yaw {yaw_rad:.6} rad{}): only axis-aligned maps (yaw 0) are supported",
        if *.tilted { ", with roll/pitch" } else { "" }
    )]
    Rotated {
        /// Yaw of the origin [rad].
        yaw_rad: f64,
        /// Whether the quaternion also has roll or pitch.
        tilted: bool,
    },
    /// The contents are not a valid map.
    #[error("{0}")]
    Invalid(#[from] MapError),
}

/// Largest rotation accepted as "not rotated" [rad] (float noise of a yaw-0 quaternion).
pub const MAX_YAW_RAD: f64 = 1e-6;

/// Checks that the quaternion `(x, y, z, w)` of a map origin is the identity (up to
/// [`MAX_YAW_RAD`]). An all-zero quaternion (an unset message) counts as identity.
///
/// # Errors
/// [`MapRejected::Rotated`] with the yaw.
pub fn check_orientation(x: f64, y: f64, z: f64, w: f64) -> Result<(), MapRejected> {
    let yaw_rad = 2.0 * z.atan2(w);
    // Fold into (-pi, pi]: q and -q are the same rotation.
    let yaw_rad = (yaw_rad + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
        - std::f64::consts::PI;
    let norm = (x * x + y * y + z * z + w * w).sqrt();
    let tilted =
        norm > 0.0 && (x.abs() / norm > MAX_YAW_RAD / 2.0 || y.abs() / norm > MAX_YAW_RAD / 2.0);
    if tilted || yaw_rad.abs() > MAX_YAW_RAD || !(norm.is_finite()) {
        return Err(MapRejected::Rotated { yaw_rad, tilted });
    }
    Ok(())
}

/// The fields of a `nav_msgs/OccupancyGrid` the planner uses, as plain numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct OccupancyMap<'a> {
    /// `info.width` [cells].
    pub width: u32,
    /// `info.height` [cells].
    pub height: u32,
    /// `info.resolution` [m/cell] (see [`f32_as_decimal`]).
    pub resolution_m: f64,
    /// `info.origin.position.x` [m].
    pub origin_x_m: f64,
    /// `info.origin.position.y` [m].
    pub origin_y_m: f64,
    /// `info.origin.orientation` as `(x, y, z, w)`.
    pub orientation: (f64, f64, f64, f64),
    /// `data`: row-major from the origin, 0..=100 or -1.
    pub data: &'a [i8],
}

/// A `float32` message field (`OccupancyGrid.info.resolution`) as the decimal it was
/// written as: `0.1f32` becomes `0.1`, not `0.10000000149011612`, so cell centres in
/// metres come out as the publisher meant them (the shortest decimal that round-trips
/// the `f32`).
pub fn f32_as_decimal(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}

/// The grid (inflated) for an occupancy map message.
///
/// # Errors
/// [`MapRejected::Rotated`], or [`MapRejected::Invalid`] for a bad frame, size or
/// cell count.
pub fn grid_from_occupancy(map: &OccupancyMap<'_>, opts: &MapOptions) -> Result<Grid, MapRejected> {
    let (qx, qy, qz, qw) = map.orientation;
    check_orientation(qx, qy, qz, qw)?;
    let frame = MapFrame::new(map.resolution_m, map.origin_x_m, map.origin_y_m)?;
    let grid = Grid::from_occupancy(
        map.width as usize,
        map.height as usize,
        frame,
        map.data,
        &opts.occupancy,
    )?;
    Ok(opts.inflate(grid)?)
}

/// Loads a PGM (P2/P5) or a PNG (both recognised by their magic number, `map_server`
/// thresholds) or a Moving AI `.map` (anything else), places it by `frame` and inflates it.
///
/// # Errors
/// [`MapRejected::Io`], [`MapRejected::Invalid`].
pub fn load_map_file(path: &Path, frame: MapFrame, opts: &MapOptions) -> Result<Grid, MapRejected> {
    Ok(opts.inflate(load_map_file_raw(path, frame, opts)?)?)
}

/// As [`load_map_file`], without the inflation (the map as drawn). A `.json` file is a
/// Eurobot table scenario (`arnie_field`, e.g. `params/eurobot/table.json`): rasterised
/// at `frame.resolution_m` with the table's edge ring blocked, origin at the table's
/// lower-left corner (the scenario's frame; `frame`'s origin is not used), so the
/// planner and the simulated board read the same obstacles.
///
/// # Errors
/// [`MapRejected::Io`], [`MapRejected::Invalid`].
pub fn load_map_file_raw(
    path: &Path,
    frame: MapFrame,
    opts: &MapOptions,
) -> Result<Grid, MapRejected> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        let scenario = arnie_field::Scenario::load(path).map_err(|e| MapRejected::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let r = scenario
            .rasterise(frame.resolution_m, true)
            .map_err(|e| MapError::BadHeader {
                what: e.to_string(),
            })?;
        let table = MapFrame::new(r.resolution_m, r.origin_x_m, r.origin_y_m)?;
        return Ok(Grid::from_blocked(r.width, r.height, r.blocked)?.with_frame(table));
    }
    let bytes = std::fs::read(path).map_err(|e| MapRejected::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let grid = if bytes.starts_with(b"P2") || bytes.starts_with(b"P5") {
        let pgm = PgmOptions {
            unknown_is_blocked: opts.unknown_is_blocked,
            ..PgmOptions::default()
        };
        Grid::from_pgm(&bytes, &pgm)?
    } else if bytes.starts_with(b"\x89PNG") {
        let png = PgmOptions {
            unknown_is_blocked: opts.unknown_is_blocked,
            ..PgmOptions::default()
        };
        Grid::from_png(&bytes, &png)?
    } else {
        let text = std::str::from_utf8(&bytes).map_err(|_| MapError::BadHeader {
            what: "neither a PGM (P2/P5), a PNG nor a Moving AI text map".into(),
        })?;
        Grid::from_movingai(text)?
    };
    Ok(grid.with_frame(frame))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::fixtures::{opts, wall_map, wall_occupancy};

    #[test]
    fn f32_resolution_keeps_its_decimal() {
        assert_eq!(f32_as_decimal(0.1), 0.1);
        assert_eq!(f32_as_decimal(0.05), 0.05);
        assert_eq!(f32_as_decimal(1.0), 1.0);
        assert!(f32_as_decimal(f32::NAN).is_nan());
        assert_eq!(f32_as_decimal(f32::INFINITY), f64::INFINITY);
    }

    #[test]
    fn orientation_must_be_identity() {
        assert!(check_orientation(0.0, 0.0, 0.0, 1.0).is_ok());
        assert!(check_orientation(0.0, 0.0, 0.0, -1.0).is_ok(), "-q is q");
        assert!(check_orientation(0.0, 0.0, 0.0, 0.0).is_ok(), "unset");
        let half = std::f64::consts::FRAC_PI_4;
        match check_orientation(0.0, 0.0, half.sin(), half.cos()) {
            Err(MapRejected::Rotated {
                yaw_rad,
                tilted: false,
            }) => assert!((yaw_rad - 2.0 * half).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            check_orientation(0.1, 0.0, 0.0, 0.995),
            Err(MapRejected::Rotated { tilted: true, .. })
        ));
        assert!(check_orientation(0.0, 0.0, f64::NAN, 1.0).is_err());
        let msg = check_orientation(0.0, 0.0, 1.0, 0.0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("rotated"), "{msg}");
    }

    #[test]
    fn rotated_or_bad_maps_are_rejected() {
        let data = wall_map();
        let good = wall_occupancy(&data);
        let rotated = OccupancyMap {
            orientation: (0.0, 0.0, 0.5f64.sin(), 0.5f64.cos()),
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&rotated, &opts()),
            Err(MapRejected::Rotated { .. })
        ));
        let short = OccupancyMap {
            data: &data[..5],
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&short, &opts()),
            Err(MapRejected::Invalid(MapError::WrongCellCount { .. }))
        ));
        let zero_res = OccupancyMap {
            resolution_m: 0.0,
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&zero_res, &opts()),
            Err(MapRejected::Invalid(MapError::BadFrame { .. }))
        ));
        let inflated =
            grid_from_occupancy(&good, &MapOptions::new(50, true, 1.0).unwrap()).unwrap();
        assert!(
            inflated.blocked_count() > grid_from_occupancy(&good, &opts()).unwrap().blocked_count()
        );
    }

    #[test]
    fn map_files_load_by_content() {
        let dir = std::env::temp_dir().join(format!("planner-node-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let frame = MapFrame::new(0.05, 1.0, 2.0).unwrap();
        let pgm = dir.join("m.pgm");
        std::fs::write(&pgm, "P2\n3 1\n255\n255 0 255\n").unwrap();
        let g = load_map_file(&pgm, frame, &opts()).unwrap();
        assert_eq!((g.width(), g.height(), g.blocked_count()), (3, 1, 1));
        assert_eq!(g.frame(), frame);
        let mai = dir.join("m.map");
        std::fs::write(&mai, "type octile\nheight 1\nwidth 3\nmap\n.@.\n").unwrap();
        assert_eq!(
            load_map_file(&mai, frame, &opts()).unwrap().blocked_count(),
            1
        );
        let bad = dir.join("bad.map");
        std::fs::write(&bad, "nonsense").unwrap();
        assert!(matches!(
            load_map_file(&bad, frame, &opts()),
            Err(MapRejected::Invalid(_))
        ));
        assert!(matches!(
            load_map_file(&dir.join("missing"), frame, &opts()),
            Err(MapRejected::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Yellow's map is blue's flipped: the same as the mirrored scenario rasterised
    /// (the PGM the launch file loads and the scenario agree on both sides).
    #[test]
    fn the_flipped_table_is_the_mirrored_scenario() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../params/eurobot");
        let frame = MapFrame::new(0.02, 0.0, 0.0).unwrap();
        let blue = load_map_file_raw(&root.join("table.pgm"), frame, &opts()).unwrap();
        let s = arnie_field::Scenario::load(&root.join("table.json")).unwrap();
        let r = s
            .for_colour(arnie_math::Colour::Yellow)
            .rasterise(0.02, true)
            .unwrap();
        assert_eq!(blue.mirrored_x().blocked_cells(), r.blocked.as_slice());
    }

    #[test]
    fn the_table_scenario_is_a_map_file() {
        let table =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../params/eurobot/table.json");
        let frame = MapFrame::new(0.02, 5.0, 5.0).unwrap();
        let g = load_map_file_raw(&table, frame, &opts()).unwrap();
        assert_eq!((g.width(), g.height()), (150, 100));
        assert_eq!(
            (g.frame().origin_x_m, g.frame().origin_y_m),
            (0.0, 0.0),
            "the table's own frame"
        );
        // The table's edge ring is blocked, its centre free, the alcove wall (x 2.0-2.1, y 1.2-1.55) blocked.
        assert!(g.is_blocked(g.world_to_cell(0.01, 1.0).unwrap()));
        assert!(g.is_free(g.world_to_cell(0.3, 1.0).unwrap()));
        assert!(g.is_blocked(g.world_to_cell(2.05, 1.4).unwrap()));
        let inflated =
            load_map_file(&table, frame, &MapOptions::new(50, true, 0.15).unwrap()).unwrap();
        assert!(inflated.blocked_count() > g.blocked_count());
        let bad =
            std::env::temp_dir().join(format!("planner-bad-table-{}.json", std::process::id()));
        std::fs::write(&bad, "{}").unwrap();
        assert!(load_map_file_raw(&bad, frame, &opts())
            .unwrap_err()
            .to_string()
            .contains("planner-bad-table"));
        std::fs::remove_file(&bad).unwrap();
    }
}
