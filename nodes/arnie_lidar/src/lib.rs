//! The LD06 LiDAR driver (`lidar` node): the device's serial stream, decoded by the
//! [`ld06`] library, to one `sensor_msgs/LaserScan` per revolution on `scan`, in the
//! `laser` frame (a link of the robot's URDF). The library has no ROS: time and bytes are
//! passed in, so it is tested to the byte.
//!
//! Layout:
//! - [`config`]: [`LidarConfig`], the driver's settings, checked once.
//! - [`driver`]: [`Driver`], bytes in → scans out, with every rejection counted and the
//!   link's health ([`Health`]: streaming, silent, not open).
//! - `ros` (feature `ros`): the node: the port (opened again while it fails or after it
//!   closes), the publisher, `/diagnostics`.
#![deny(missing_docs)]

pub mod config;
pub mod driver;
#[cfg(feature = "ros")]
pub mod ros;

pub use config::LidarConfig;
pub use driver::{Driver, DriverCounters, Health};
