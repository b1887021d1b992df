//! [`LidarConfig`]: the driver's settings (the node's parameters of the same names),
//! checked once ([`LidarConfig::check`]).
use std::f64::consts::PI;

pub use glue_core::ConfigError;
use ld06::{Mounting, ScanConfig};

/// Everything the driver needs to know. Units are in the names.
#[derive(Clone, Debug, PartialEq)]
pub struct LidarConfig {
    /// The serial device (a USB adapter's `/dev/ttyUSB0`, a pty slave in tests).
    pub port: String,
    /// Its speed [baud] (the LD06's is 230 400).
    pub baud: u32,
    /// The frame of the scans: the URDF link the LiDAR sits on.
    pub frame_id: String,
    /// The laser-frame angle of the device's 0° mark [rad].
    pub angle_offset_rad: f64,
    /// The device turns clockwise in the laser frame (upright); false: upside down.
    pub clockwise: bool,
    /// Where one revolution ends and the next begins [rad, laser frame].
    pub cut_angle_rad: f64,
    /// Nearer is −∞ [m].
    pub range_min_m: f64,
    /// Farther is +∞ [m].
    pub range_max_m: f64,
    /// Points weaker than this are NaN (0 keeps all).
    pub min_intensity: u8,
    /// A silence this long ends a partial packet (truncated) and drops the revolution
    /// in progress [ms].
    pub gap_ms: u32,
    /// No byte for this long: the LiDAR is silent (status ERROR, logged) [ms].
    pub silence_timeout_ms: u32,
    /// While the port does not open (or after it closed), try again this often [ms].
    pub reopen_ms: u32,
}

impl Default for LidarConfig {
    fn default() -> Self {
        LidarConfig {
            port: "/dev/ttyUSB0".into(),
            baud: ld06::BAUD,
            frame_id: "laser".into(),
            angle_offset_rad: 0.0,
            clockwise: true,
            cut_angle_rad: PI,
            range_min_m: 0.02,
            range_max_m: 12.0,
            min_intensity: 0,
            gap_ms: 100,
            silence_timeout_ms: 500,
            reopen_ms: 500,
        }
    }
}

impl LidarConfig {
    /// The assembler's part.
    pub fn scan(&self) -> ScanConfig {
        ScanConfig {
            mounting: Mounting {
                angle_offset_rad: self.angle_offset_rad,
                clockwise: self.clockwise,
            },
            cut_angle_rad: self.cut_angle_rad,
            range_min_m: self.range_min_m,
            range_max_m: self.range_max_m,
            min_intensity: self.min_intensity,
            gap_s: f64::from(self.gap_ms) / 1000.0,
        }
    }

    /// Checks every setting.
    ///
    /// # Errors
    /// The first bad one, named as its parameter.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.port.is_empty() {
            return Err(ConfigError::new("port", "must not be empty"));
        }
        if self.frame_id.is_empty() {
            return Err(ConfigError::new("frame_id", "must not be empty"));
        }
        if arnie_packets::transport::serial::baud_constant(self.baud).is_none() {
            return Err(ConfigError::new(
                "baud",
                format!(
                    "{} is not a rate the serial port can be set to (the LD06: 230400)",
                    self.baud
                ),
            ));
        }
        for (name, v) in [
            ("angle_offset_rad", self.angle_offset_rad),
            ("cut_angle_rad", self.cut_angle_rad),
        ] {
            if !(v.is_finite() && v.abs() <= 2.0 * PI) {
                return Err(ConfigError::new(name, format!("{v} is not in -2π..=2π")));
            }
        }
        self.scan().check().map_err(|e| {
            let name = match e {
                ld06::ScanConfigError::Gap(_) => "gap_ms",
                ld06::ScanConfigError::NotFinite(n, _) => n,
                ld06::ScanConfigError::Ranges { .. } => "range_min_m",
            };
            ConfigError::new(name, e.to_string())
        })?;
        for (name, v, lo, hi) in [
            ("gap_ms", self.gap_ms, 1, 10_000),
            ("silence_timeout_ms", self.silence_timeout_ms, 10, 60_000),
            ("reopen_ms", self.reopen_ms, 10, 60_000),
        ] {
            if !(lo..=hi).contains(&v) {
                return Err(ConfigError::new(name, format!("{v} is not in {lo}..={hi}")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_bad_values_name_their_parameter() {
        LidarConfig::default().check().unwrap();
        for (bad, name) in [
            (
                LidarConfig {
                    baud: 230_401,
                    ..LidarConfig::default()
                },
                "baud",
            ),
            (
                LidarConfig {
                    range_min_m: 20.0,
                    ..LidarConfig::default()
                },
                "range_min_m",
            ),
            (
                LidarConfig {
                    cut_angle_rad: f64::NAN,
                    ..LidarConfig::default()
                },
                "cut_angle_rad",
            ),
            (
                LidarConfig {
                    port: String::new(),
                    ..LidarConfig::default()
                },
                "port",
            ),
            (
                LidarConfig {
                    silence_timeout_ms: 0,
                    ..LidarConfig::default()
                },
                "silence_timeout_ms",
            ),
        ] {
            assert_eq!(bad.check().unwrap_err().name, name);
        }
    }
}
