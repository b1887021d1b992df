//! The ament index, as `ament_index_cpp` reads it: which prefix of `AMENT_PREFIX_PATH`
//! holds a package. The bag's message definitions and the glue's run-time type support
//! find packages through these two functions.

use std::path::PathBuf;

/// The prefixes of `AMENT_PREFIX_PATH`, in order (empty when unset).
pub fn prefixes_from_env() -> Vec<PathBuf> {
    std::env::var_os("AMENT_PREFIX_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The first of `prefixes` whose ament index lists `package`.
pub fn package_prefix(prefixes: &[PathBuf], package: &str) -> Option<PathBuf> {
    prefixes
        .iter()
        .find(|p| {
            p.join("share/ament_index/resource_index/packages")
                .join(package)
                .is_file()
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_prefix_listing_the_package_wins() {
        let d = std::env::temp_dir().join(format!("ament-{}", std::process::id()));
        let (a, b) = (d.join("a"), d.join("b"));
        for p in [&a, &b] {
            let index = p.join("share/ament_index/resource_index/packages");
            std::fs::create_dir_all(&index).unwrap();
            std::fs::write(index.join("pkg"), "").unwrap();
        }
        let none = d.join("none");
        assert_eq!(
            package_prefix(&[none.clone(), b.clone(), a], "pkg"),
            Some(b)
        );
        assert_eq!(package_prefix(&[none], "pkg"), None);
        let _ = std::fs::remove_dir_all(d);
    }
}
