//! [`Wiring`]: where and how the simulated devices talk, read from the Spine's own
//! config so the sim is the mirror image of the spine:
//! - the arm LISTENS for targets where the spine's arm *output* sends (`host:port` of
//!   `interfaces.output.<arm_output>`), decodes them in that output's format and maps
//!   them to the global frame with its transform (`p_global = T · p_device`: the spine
//!   sent `T⁻¹ · p_global`);
//! - the arm SENDS encoder positions to the spine's arm *input* (the config's `host` and
//!   `interfaces.input.<arm_input>.port`) in that input's format and frame
//!   (`p_device = T⁻¹ · p_global`);
//! - the eyes SEND to `interfaces.input.<eyes_input>` the same way.
//!
//! A bind host of `0.0.0.0` (or `::`) is sent to on loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use arnie_xpc::{Config, Format, Transform};

use crate::error::SimError;

/// One direction of one simulated device.
#[derive(Debug, Clone, PartialEq)]
pub struct Port {
    /// Where the device listens (arm targets) or sends to (positions, observations).
    pub addr: SocketAddr,
    /// Wire format.
    pub format: Format,
    /// Device → global for what the device receives; global → device for what it sends.
    pub transform: Transform,
}

/// The three links of the simulated hardware.
#[derive(Debug, Clone, PartialEq)]
pub struct Wiring {
    /// Arm targets: listen address, format, device → global.
    pub arm_targets: Port,
    /// Encoder positions: destination, format, global → device.
    pub arm_positions: Port,
    /// Eye observations: destination, format, global → device.
    pub eyes: Port,
}

/// The interface names to use (the usual ones are `arm`, `arm`, `eyes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceNames {
    /// `interfaces.output.<name>` that sends arm targets.
    pub arm_output: String,
    /// `interfaces.input.<name>` that receives encoder positions.
    pub arm_input: String,
    /// `interfaces.input.<name>` that receives eye observations.
    pub eyes_input: String,
}

impl Default for InterfaceNames {
    fn default() -> Self {
        Self {
            arm_output: "arm".into(),
            arm_input: "arm".into(),
            eyes_input: "eyes".into(),
        }
    }
}

impl Wiring {
    /// Picks the three interfaces out of a resolved spine config.
    ///
    /// # Errors
    /// [`SimError::MissingInterface`] naming the missing interface;
    /// [`SimError::Singular`] if an input's transform cannot be inverted.
    pub fn from_config(config: &Config, names: &InterfaceNames) -> Result<Self, SimError> {
        let out = config
            .output_index(&names.arm_output)
            .and_then(|i| config.outputs.get(i))
            .ok_or_else(|| SimError::MissingInterface {
                field: format!("interfaces.output.{}", names.arm_output),
            })?;
        let arm_targets = Port {
            addr: out.addr,
            format: out.format,
            transform: out.to_global,
        };
        Ok(Self {
            arm_targets,
            arm_positions: sender(config, &names.arm_input)?,
            eyes: sender(config, &names.eyes_input)?,
        })
    }
}

fn sender(config: &Config, name: &str) -> Result<Port, SimError> {
    let field = format!("interfaces.input.{name}");
    let input = config
        .input_index(name)
        .and_then(|i| config.inputs.get(i))
        .ok_or_else(|| SimError::MissingInterface {
            field: field.clone(),
        })?;
    let to_device = input
        .to_global
        .inverse()
        .ok_or_else(|| SimError::Singular {
            field: field.clone(),
        })?;
    let ip = match input.bind.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    Ok(Port {
        addr: SocketAddr::new(ip, input.bind.port()),
        format: input.format,
        transform: to_device,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arnie_xpc::LoopbackMap;

    const CONFIG: &str = r#"{
        "host": "0.0.0.0",
        "transforms": { "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1",
                        "arm": "0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1",
                        "eyes": "1 0 0 10;0 1 0 20;0 0 1 30;0 0 0 1" },
        "interfaces": {
            "input":  { "arm":  { "port": 35001, "streamed": true, "format": "simulink" },
                        "eyes": { "port": 35002, "streamed": true, "format": "csv" } },
            "output": { "arm":  { "host": "127.0.0.1", "port": 35010, "format": "simulink", "threshold": 50 } }
        },
        "connections": []
    }"#;

    #[test]
    fn picks_addresses_formats_and_frames() {
        let config = Config::from_json(CONFIG, None).unwrap();
        let w = Wiring::from_config(&config, &InterfaceNames::default()).unwrap();
        assert_eq!(w.arm_targets.addr, "127.0.0.1:35010".parse().unwrap());
        assert_eq!(w.arm_positions.addr, "127.0.0.1:35001".parse().unwrap());
        assert_eq!(w.eyes.addr, "127.0.0.1:35002".parse().unwrap());
        assert_eq!(w.eyes.format, Format::Csv);
        // Targets: device → global; positions: global → device.
        assert_eq!(
            w.arm_targets.transform.apply(&[1.0, 2.0, 3.0]),
            vec![-2.0, 1.0, 3.0]
        );
        assert_eq!(
            w.arm_positions.transform.apply(&[-2.0, 1.0, 3.0]),
            vec![1.0, 2.0, 3.0]
        );
        assert_eq!(
            w.eyes.transform.apply(&[10.0, 20.0, 30.0, 90.0]),
            vec![0.0, 0.0, 0.0, 90.0]
        );
    }

    #[test]
    fn port_offset_moves_every_port() {
        let config = Config::from_json(CONFIG, Some(LoopbackMap { port_offset: 100 })).unwrap();
        let w = Wiring::from_config(&config, &InterfaceNames::default()).unwrap();
        assert_eq!(w.arm_targets.addr.port(), 35110);
        assert_eq!(w.arm_positions.addr.port(), 35101);
    }

    #[test]
    fn missing_interface_is_named() {
        let config = Config::from_json(CONFIG, None).unwrap();
        let names = InterfaceNames {
            eyes_input: "kinect".into(),
            ..InterfaceNames::default()
        };
        assert_eq!(
            Wiring::from_config(&config, &names),
            Err(SimError::MissingInterface {
                field: "interfaces.input.kinect".into()
            })
        );
    }
}
