//! A topic's Foxglove schema: the bag recorder's definition text, unchanged.
//!
//! [`ros_model::msgdef::DefinitionSource`] finds the `.msg` files on
//! `AMENT_PREFIX_PATH` exactly as rosbag2 does and concatenates the dependencies; a bag
//! recorded by `arnie_bag` and the live bridge thus carry byte-identical schemas.

use foxglove::websocket::service::ServiceSchema;
use foxglove::Schema;
use ros_model::msgdef::{DefinitionSource, MessageDefinition};

/// Why a type has no schema.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The type's package or `.msg`/`.idl`/`.srv` file (or a dependency) is not found.
    #[error("{0}")]
    Definition(#[from] ros_model::DefinitionError),
    /// The definition found is empty.
    #[error("{0}: no definition found")]
    Empty(String),
}

/// Builds and caches schemas.
pub struct Schemas {
    source: DefinitionSource,
}

impl Schemas {
    /// Definitions from the install on `AMENT_PREFIX_PATH`.
    pub fn from_env() -> Self {
        Schemas {
            source: DefinitionSource::from_env(),
        }
    }

    /// Definitions from these install prefixes.
    pub fn new(prefixes: Vec<std::path::PathBuf>) -> Self {
        Schemas {
            source: DefinitionSource::new(prefixes),
        }
    }

    /// The definition of `type_name` (`pkg/msg/Type`), as the recorder stores it.
    ///
    /// # Errors
    /// The type's package or `.msg`/`.idl` file is not found (the message names it).
    pub fn definition(&mut self, type_name: &str) -> Result<MessageDefinition, SchemaError> {
        Ok(self.source.full_text(type_name)?)
    }

    /// The Foxglove schema of `type_name`: name `pkg/msg/Type`, encoding `ros2msg` (or
    /// `ros2idl`), data the full definition text.
    ///
    /// # Errors
    /// As [`Schemas::definition`]; an empty definition is an error too.
    pub fn schema(&mut self, type_name: &str) -> Result<Schema, SchemaError> {
        let def = self.definition(type_name)?;
        if def.encoding.is_empty() {
            return Err(SchemaError::Empty(type_name.to_string()));
        }
        Ok(Schema::new(
            def.type_name,
            def.encoding,
            def.text.into_bytes(),
        ))
    }
}

impl Schemas {
    /// The Foxglove schema of service type `pkg/srv/Name`: request and response as
    /// `ros2msg` schemas `pkg/srv/Name_Request` / `_Response` (each half of the `.srv` and
    /// the dependencies), messages encoded `cdr`.
    ///
    /// # Errors
    /// The service's `.srv` (or a dependency) is not found.
    pub fn service(&mut self, service_type: &str) -> Result<ServiceSchema, SchemaError> {
        let (req, resp) = self.source.service_parts(service_type)?;
        let schema =
            |d: MessageDefinition| Schema::new(d.type_name, d.encoding, d.text.into_bytes());
        Ok(ServiceSchema::new(service_type)
            .with_request(crate::MESSAGE_ENCODING, schema(req))
            .with_response(crate::MESSAGE_ENCODING, schema(resp)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny install tree with two packages, as ament lays them out.
    fn install(dir: &std::path::Path) {
        for (pkg, ty, text) in [
            ("geo", "Point", "float64 x\nfloat64 y\n"),
            (
                "geo",
                "Stamped",
                "# a point\ngeo/Point point\nstring frame\n",
            ),
        ] {
            let idx = dir.join("share/ament_index/resource_index/packages");
            std::fs::create_dir_all(&idx).unwrap();
            std::fs::write(idx.join(pkg), "").unwrap();
            let msg = dir.join(format!("share/{pkg}/msg"));
            std::fs::create_dir_all(&msg).unwrap();
            std::fs::write(msg.join(format!("{ty}.msg")), text).unwrap();
        }
    }

    #[test]
    fn the_schema_is_the_recorders_definition() {
        let dir =
            std::env::temp_dir().join(format!("arnie_foxglove_schema_{}", std::process::id()));
        install(&dir);
        let mut s = Schemas::new(vec![dir.clone()]);
        let schema = s.schema("geo/msg/Stamped").unwrap();
        assert_eq!(schema.name, "geo/msg/Stamped");
        assert_eq!(schema.encoding, "ros2msg");
        let mut recorder = DefinitionSource::new(vec![dir.clone()]);
        let def = recorder.full_text("geo/msg/Stamped").unwrap();
        assert_eq!(schema.data.as_ref(), def.text.as_bytes());
        let text = String::from_utf8(schema.data.to_vec()).unwrap();
        assert!(text.contains("MSG: geo/Point\nfloat64 x"), "{text}");
        assert!(s.schema("geo/msg/Missing").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
