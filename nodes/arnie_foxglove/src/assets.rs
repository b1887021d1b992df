//! The `assets` capability: a client fetches `package://<pkg>/<path>` files (a robot
//! description's meshes and textures), as foxglove_bridge serves them.
//!
//! What is served: only URIs the allowlist matches whole (by default foxglove_bridge's:
//! `package://` files with a mesh, texture or description extension), resolved under the
//! package's share folder found through the ament index of `AMENT_PREFIX_PATH`
//! (`ament_index_cpp::get_package_share_directory`, as `package://` means in ROS), with no
//! `..`, no empty or `.` part, no link leading out of that folder, a regular file of at
//! most [`MAX_ASSET_BYTES`]. Everything else is an [`AssetError`] the client gets as its
//! fetch's error message.

use std::path::{Component, Path, PathBuf};

use glue_core::ConfigError;
use regex::Regex;
use ros_model::msgdef::DefinitionSource;

/// foxglove_bridge's default `asset_uri_allowlist`.
pub const DEFAULT_ALLOWLIST: &str = r"package://(?:[-\w%]+/)*[-\w%.]+\.(?:dae|fbx|glb|gltf|jpeg|jpg|mtl|obj|png|stl|tif|tiff|urdf|webp|xacro)";

/// The largest file served [bytes].
pub const MAX_ASSET_BYTES: u64 = 64 * 1024 * 1024;

/// Why an asset is not served (the text the client gets).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssetError {
    /// The URI is not in `asset_uri_allowlist`.
    #[error("{0}: not allowed by asset_uri_allowlist")]
    NotAllowed(String),
    /// Not `package://<pkg>/<path>`, or a path part that could leave the package.
    #[error("{0}: not a package://<package>/<path> URI inside its package")]
    BadUri(String),
    /// No such package on `AMENT_PREFIX_PATH`.
    #[error("no package {0:?} on AMENT_PREFIX_PATH")]
    NoPackage(String),
    /// No such file in the package (or not a regular file, or a link out of it).
    #[error("{0}: no such file")]
    NotFound(String),
    /// Larger than [`MAX_ASSET_BYTES`].
    #[error("{0}: {1} bytes, more than {MAX_ASSET_BYTES}")]
    TooLarge(String, u64),
    /// The file could not be read.
    #[error("{0}: {1}")]
    Read(String, String),
}

/// Resolves and reads assets.
pub struct Assets {
    allow: Regex,
    source: DefinitionSource,
}

impl Assets {
    /// Serves the URIs `allowlist` matches whole, from these install prefixes.
    ///
    /// # Errors
    /// The allowlist is not a regex (`asset_uri_allowlist`).
    pub fn new(allowlist: &str, prefixes: Vec<PathBuf>) -> Result<Self, ConfigError> {
        let allow = Regex::new(&format!("^(?:{allowlist})$"))
            .map_err(|e| ConfigError::new("asset_uri_allowlist", format!("not a regex: {e}")))?;
        Ok(Assets {
            allow,
            source: DefinitionSource::new(prefixes),
        })
    }

    /// The file `uri` names, checked.
    pub fn resolve(&self, uri: &str) -> Result<PathBuf, AssetError> {
        if !self.allow.is_match(uri) {
            return Err(AssetError::NotAllowed(uri.to_string()));
        }
        let rest = uri
            .strip_prefix("package://")
            .ok_or_else(|| AssetError::BadUri(uri.to_string()))?;
        let (package, rel) = rest
            .split_once('/')
            .ok_or_else(|| AssetError::BadUri(uri.to_string()))?;
        let rel = Path::new(rel);
        let clean = !package.is_empty()
            && !rel.as_os_str().is_empty()
            && !rest.contains("//")
            && rel.components().all(|c| matches!(c, Component::Normal(_)));
        if !clean {
            return Err(AssetError::BadUri(uri.to_string()));
        }
        let share = self
            .source
            .share_dir(package)
            .ok_or_else(|| AssetError::NoPackage(package.to_string()))?;
        let not_found = || AssetError::NotFound(uri.to_string());
        let share = share.canonicalize().map_err(|_| not_found())?;
        let file = share.join(rel).canonicalize().map_err(|_| not_found())?;
        // A link inside the package may not lead out of it.
        if !file.starts_with(&share) || !file.is_file() {
            return Err(not_found());
        }
        Ok(file)
    }

    /// The bytes of the file `uri` names.
    pub fn fetch(&self, uri: &str) -> Result<Vec<u8>, AssetError> {
        let path = self.resolve(uri)?;
        let read = |e: std::io::Error| AssetError::Read(uri.to_string(), e.to_string());
        let len = std::fs::metadata(&path).map_err(read)?.len();
        if len > MAX_ASSET_BYTES {
            return Err(AssetError::TooLarge(uri.to_string(), len));
        }
        std::fs::read(&path).map_err(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arnie_assets_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("share/ament_index/resource_index/packages")).unwrap();
        std::fs::write(
            dir.join("share/ament_index/resource_index/packages/robot_description"),
            "",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("share/robot_description/meshes")).unwrap();
        std::fs::write(
            dir.join("share/robot_description/meshes/base.stl"),
            b"solid base",
        )
        .unwrap();
        std::fs::write(dir.join("share/robot_description/secret.txt"), b"no").unwrap();
        std::fs::write(dir.join("outside.stl"), b"outside").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            dir.join("outside.stl"),
            dir.join("share/robot_description/meshes/link.stl"),
        )
        .unwrap();
        dir
    }

    #[test]
    fn serves_package_files_and_nothing_else() {
        let dir = prefix();
        let a = Assets::new(DEFAULT_ALLOWLIST, vec![dir.clone()]).unwrap();
        assert_eq!(
            a.fetch("package://robot_description/meshes/base.stl")
                .unwrap(),
            b"solid base"
        );
        let err = |u: &str| a.fetch(u).unwrap_err();
        assert!(matches!(
            err("package://robot_description/secret.txt"),
            AssetError::NotAllowed(_)
        ));
        assert!(matches!(
            err("file:///etc/passwd"),
            AssetError::NotAllowed(_)
        ));
        assert!(matches!(
            err("package://robot_description/../../outside.stl"),
            AssetError::NotAllowed(_) | AssetError::BadUri(_)
        ));
        assert!(matches!(
            err("package://nobody/meshes/base.stl"),
            AssetError::NoPackage(_)
        ));
        assert!(matches!(
            err("package://robot_description/meshes/none.stl"),
            AssetError::NotFound(_)
        ));
        #[cfg(unix)]
        assert!(matches!(
            err("package://robot_description/meshes/link.stl"),
            AssetError::NotFound(_)
        ));
        // A wider allowlist still never leaves the package.
        let wide = Assets::new(".*", vec![dir.clone()]).unwrap();
        assert!(matches!(
            wide.fetch("package://robot_description/../../outside.stl")
                .unwrap_err(),
            AssetError::BadUri(_)
        ));
        assert!(matches!(
            wide.fetch("package://robot_description//etc/passwd")
                .unwrap_err(),
            AssetError::BadUri(_)
        ));
        assert!(matches!(
            wide.fetch("package://robot_description").unwrap_err(),
            AssetError::BadUri(_)
        ));
        assert!(wide.fetch("package://robot_description/secret.txt").is_ok());
        assert!(Assets::new("(", vec![]).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
