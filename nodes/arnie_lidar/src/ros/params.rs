//! The node's ROS parameters ([`LidarParams`]): [`LidarConfig`]'s fields (same names,
//! units and defaults) and the glue's own period, each declared once; all read only at
//! start (the port, its framing and the frame shape everything published).
use std::f64::consts::TAU;

use crate::LidarConfig;

node_glue::declare_parameters! {
    /// ROS parameters; defaults = [`LidarConfig::default`]; all read only at start.
    pub(crate) struct LidarParams(d = LidarConfig::default()) {
        /// The serial device of the LD06 (a USB adapter's /dev/ttyUSB0; the simulated LiDAR's pty or its symlink)
        pub port: String = d.port, any(), "start only";
        /// Serial speed [baud] (the LD06's: 230400)
        pub baud: i64 = i64::from(d.baud), int(1200, 2_000_000), "start only";
        /// Frame of the scans: the URDF link the LiDAR is mounted on (nodes/arnie_bringup/urdf/eurobot_base.urdf: laser); not empty
        pub frame_id: String = d.frame_id, any(), "start only";
        /// Where the device's 0° mark points in frame_id, counter-clockwise from its x axis [rad]
        pub angle_offset_rad: f64 = d.angle_offset_rad, float(-TAU, TAU), "start only";
        /// The device turns clockwise in frame_id (an LD06 mounted upright); false when mounted upside down
        pub clockwise: bool = d.clockwise, any(), "start only";
        /// Where one revolution ends and the next begins, in frame_id (each scan starts there) [rad]
        pub cut_angle_rad: f64 = d.cut_angle_rad, float(-TAU, TAU), "start only";
        /// Closer readings are -inf (REP 117) [m]
        pub range_min_m: f64 = d.range_min_m, float(0.0, 100.0), "start only";
        /// Farther readings are +inf (REP 117); more than range_min_m [m]
        pub range_max_m: f64 = d.range_max_m, float(0.0, 100.0), "start only";
        /// Readings weaker than this are NaN; 0 keeps all
        pub min_intensity: i64 = i64::from(d.min_intensity), int(0, 255), "start only";
        /// A silence this long ends a partial packet (counted truncated) and drops the revolution in progress [ms]
        pub gap_ms: i64 = i64::from(d.gap_ms), int(1, 10_000), "start only";
        /// No byte for this long: the LiDAR is silent (status ERROR, logged; subscribers see no scan) [ms]
        pub silence_timeout_ms: i64 = i64::from(d.silence_timeout_ms), int(10, 60_000), "start only";
        /// While the port does not open, or after it closed (unplugged), try again this often [ms]
        pub reopen_ms: i64 = i64::from(d.reopen_ms), int(10, 60_000), "start only";
        /// Period of /diagnostics [ms]
        pub diagnostics_period_ms: i64 = 1000, int(10, 60_000), "start only";
    }
}

impl LidarParams {
    /// The library's config, checked (the declared ranges are checked before).
    pub(crate) fn config(&self) -> Result<LidarConfig, glue_core::ConfigError> {
        let int = |name: &'static str, v: i64| {
            u32::try_from(v)
                .map_err(|_| glue_core::ConfigError::new(name, format!("{v} is negative")))
        };
        let cfg = LidarConfig {
            port: self.port.clone(),
            baud: int("baud", self.baud)?,
            frame_id: self.frame_id.clone(),
            angle_offset_rad: self.angle_offset_rad,
            clockwise: self.clockwise,
            cut_angle_rad: self.cut_angle_rad,
            range_min_m: self.range_min_m,
            range_max_m: self.range_max_m,
            min_intensity: u8::try_from(self.min_intensity).map_err(|_| {
                glue_core::ConfigError::new(
                    "min_intensity",
                    format!("{} is not in 0..=255", self.min_intensity),
                )
            })?,
            gap_ms: int("gap_ms", self.gap_ms)?,
            silence_timeout_ms: int("silence_timeout_ms", self.silence_timeout_ms)?,
            reopen_ms: int("reopen_ms", self.reopen_ms)?,
        };
        cfg.check()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<LidarParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn the_defaults_are_the_library_s_and_all_are_start_only() {
        assert_eq!(
            LidarParams::default().config().unwrap(),
            LidarConfig::default()
        );
        for d in LidarParams::declarations() {
            assert!(d.read_only(), "{}", d.name);
        }
        let p = LidarParams {
            baud: 230_401,
            ..LidarParams::default()
        };
        assert_eq!(p.config().unwrap_err().name, "baud");
    }
}
