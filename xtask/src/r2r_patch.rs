//! `cargo xtask r2r-patch [check|refresh]`: the carried r2r patch kept honest
//! (`third_party/r2r/PATCH.md`).
//!
//! - `check` (the first step of `cargo xtask test`, a few seconds): takes r2r 0.9.7 as
//!   crates.io ships it (the registry's copy, fetched by cargo when it is not there yet),
//!   applies `third_party/r2r/arnie.patch` to a scratch copy of its `src/` and fails,
//!   saying which, when a hunk does not apply or when the result is not
//!   `third_party/r2r/src` (the patch is then not the whole difference). It also fails when
//!   a source file of the workspace uses the patched API (the names the patch adds) and
//!   `PATCH.md` does not name that file in its drop guide.
//! - `refresh`: writes `arnie.patch` anew as the difference between the registry's
//!   `src/` and `third_party/r2r/src` (after a change to the vendored source).
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::env::Layout;
use crate::run::Failure;

/// The r2r release the patch is made against.
pub const VERSION: &str = "0.9.7";

/// Names the patch adds that are not words of ordinary code: a file that uses one uses
/// the patched API. Types are matched as `r2r::Name` (or in a `use r2r::{...}`), methods
/// as `.name(`.
fn patched_names(patch: &str) -> Vec<(String, bool)> {
    let mut names = BTreeSet::new();
    for line in patch.lines().filter(|l| l.starts_with('+')) {
        let words: Vec<&str> = line[1..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for w in words.windows(3) {
            if w[0] == "pub" && matches!(w[1], "fn" | "struct" | "enum" | "type" | "trait") {
                let name = w[2];
                let is_type = w[1] != "fn";
                // Plain words (`request`, `new`) name nothing the patch alone has.
                if is_type || name.contains('_') {
                    names.insert((name.to_string(), is_type));
                }
            }
        }
    }
    names.into_iter().collect()
}

/// Does `text` use `name` (a type as `r2r::Name` or imported from r2r, a method as
/// `.name(`)?
fn uses(text: &str, name: &str, is_type: bool) -> bool {
    if !is_type {
        return text.contains(&format!(".{name}("));
    }
    let word = |s: &str, at: usize| {
        let end = at + name.len();
        let before = s[..at].chars().next_back();
        let after = s[end..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    if text.contains(&format!("r2r::{name}")) {
        return text
            .match_indices(&format!("r2r::{name}"))
            .any(|(i, _)| word(text, i + 5));
    }
    // `use r2r::{A, B}` / `use node_glue::r2r::{...}`.
    text.lines()
        .filter(|l| l.trim_start().starts_with("use ") && l.contains("r2r::"))
        .any(|l| l.match_indices(name).any(|(i, _)| word(l, i)))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The workspace's files (relative paths) that use the patched API.
fn users(layout: &Layout, patch: &str) -> Vec<String> {
    let names = patched_names(patch);
    let mut files = Vec::new();
    for top in ["nodes", "xtask", "fuzz"] {
        rust_files(&layout.root.join(top), &mut files);
    }
    let mut out: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f).is_ok_and(|t| names.iter().any(|(n, ty)| uses(&t, n, *ty)))
        })
        .filter_map(|f| f.strip_prefix(&layout.root).ok())
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo")
        })
}

/// The registry's unpacked `r2r-<VERSION>` (any registry folder), if there.
fn find_unpacked() -> Option<PathBuf> {
    let src = cargo_home().join("registry").join("src");
    std::fs::read_dir(src)
        .ok()?
        .flatten()
        .map(|d| d.path().join(format!("r2r-{VERSION}")))
        .find(|p| p.join("src").join("lib.rs").is_file())
}

/// The registry's downloaded `r2r-<VERSION>.crate`, if there.
fn find_crate() -> Option<PathBuf> {
    let cache = cargo_home().join("registry").join("cache");
    std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .map(|d| d.path().join(format!("r2r-{VERSION}.crate")))
        .find(|p| p.is_file())
}

/// Has cargo download r2r `VERSION` from crates.io (the workspace uses the vendored copy,
/// so cargo never fetches the release by itself): `cargo fetch` of a scratch package that
/// depends on it, with the workspace's lock file so its dependencies stay the ones the
/// workspace has.
fn fetch(layout: &Layout, scratch: &Path) -> Result<(), Failure> {
    let pkg = scratch.join("fetch");
    std::fs::create_dir_all(pkg.join("src"))?;
    std::fs::write(
        pkg.join("Cargo.toml"),
        format!(
            "[package]\nname = \"r2r-patch-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\nr2r = \"={VERSION}\"\n\n[workspace]\n"
        ),
    )?;
    std::fs::write(pkg.join("src").join("lib.rs"), "")?;
    std::fs::copy(layout.root.join("Cargo.lock"), pkg.join("Cargo.lock"))?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["fetch", "--manifest-path"])
        .arg(pkg.join("Cargo.toml"))
        .output()
        .map_err(|e| Failure::new(format!("r2r-patch: cargo fetch: {e}")))?;
    if !out.status.success() {
        return Err(Failure::new(format!(
            "r2r-patch: cannot fetch r2r {VERSION} from crates.io to check \
             third_party/r2r/arnie.patch against it:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// The release's `src/` folder: the registry's unpacked copy, else its `.crate` unpacked
/// into `scratch`, after fetching it when needed.
fn release_src(layout: &Layout, scratch: &Path) -> Result<PathBuf, Failure> {
    if find_unpacked().is_none() && find_crate().is_none() {
        fetch(layout, scratch)?;
    }
    if let Some(dir) = find_unpacked() {
        return Ok(dir.join("src"));
    }
    let Some(krate) = find_crate() else {
        return Err(Failure::new(format!(
            "r2r-patch: cargo fetched r2r {VERSION}, yet {} holds neither \
             r2r-{VERSION}/ nor r2r-{VERSION}.crate",
            cargo_home().join("registry").display()
        )));
    };
    let into = scratch.join("crate");
    std::fs::create_dir_all(&into)?;
    let st = Command::new("tar")
        .arg("xzf")
        .arg(&krate)
        .arg("-C")
        .arg(&into)
        .status()?;
    if !st.success() {
        return Err(Failure::new(format!(
            "r2r-patch: cannot unpack {}",
            krate.display()
        )));
    }
    Ok(into.join(format!("r2r-{VERSION}")).join("src"))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Every file below `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if let Ok(rel) = p.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The files that differ between two folders (or are in one only).
fn differing(a: &Path, b: &Path) -> Vec<String> {
    let (la, lb) = (listing(a), listing(b));
    let all: BTreeSet<&PathBuf> = la.iter().chain(&lb).collect();
    all.into_iter()
        .filter(|f| std::fs::read(a.join(f)).ok() != std::fs::read(b.join(f)).ok())
        .map(|f| f.to_string_lossy().into_owned())
        .collect()
}

fn scratch(layout: &Layout) -> Result<PathBuf, Failure> {
    let dir = layout.target.join("r2r-patch");
    if dir.join("r2r").exists() {
        std::fs::remove_dir_all(dir.join("r2r"))?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// `check` (see the module doc).
///
/// # Errors
/// The patch does not apply, is not the whole difference, or PATCH.md misses a user.
pub fn check(layout: &Layout) -> Result<(), Failure> {
    let vendored = layout.root.join("third_party/r2r");
    let patch_file = vendored.join("arnie.patch");
    let patch = std::fs::read_to_string(&patch_file)?;
    let scratch = scratch(layout)?;
    let release = release_src(layout, &scratch)?;
    let work = scratch.join("r2r");
    copy_dir(&release, &work.join("src"))?;
    let out = Command::new("patch")
        // --fuzz=0: every context line must match, as the patch was made.
        .args([
            "-p1",
            "--forward",
            "--batch",
            "--fuzz=0",
            "--no-backup-if-mismatch",
            "-d",
        ])
        .arg(&work)
        .arg("-i")
        .arg(&patch_file)
        .output()
        .map_err(|e| Failure::new(format!("r2r-patch: cannot run patch(1): {e}")))?;
    if !out.status.success() {
        return Err(Failure::new(format!(
            "third_party/r2r/arnie.patch does not apply to r2r {VERSION} as crates.io ships \
             it ({}):\n{}{}\nMove the patch (third_party/r2r/PATCH.md, \"Refreshing the \
             patch\").",
            release.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let differ = differing(&work.join("src"), &vendored.join("src"));
    if !differ.is_empty() {
        return Err(Failure::new(format!(
            "third_party/r2r/src is not r2r {VERSION} + arnie.patch: {} differ{}. After a \
             change to the vendored source, write the patch anew: cargo xtask r2r-patch \
             refresh",
            differ.join(", "),
            if differ.len() == 1 { "s" } else { "" }
        )));
    }
    let guide = std::fs::read_to_string(vendored.join("PATCH.md"))?;
    let missing: Vec<String> = users(layout, &patch)
        .into_iter()
        .filter(|f| !guide.contains(f.as_str()))
        .collect();
    if !missing.is_empty() {
        return Err(Failure::new(format!(
            "third_party/r2r/PATCH.md's drop guide does not name every user of the patched \
             API; add: {}",
            missing.join(", ")
        )));
    }
    eprintln!("xtask: r2r-patch: arnie.patch applies to r2r {VERSION} and is the whole difference; PATCH.md names every user");
    Ok(())
}

/// `refresh` (see the module doc).
///
/// # Errors
/// The release cannot be had, or `diff` fails.
pub fn refresh(layout: &Layout) -> Result<(), Failure> {
    let scratch = scratch(layout)?;
    let release = release_src(layout, &scratch)?;
    // `diff -ruN a/src b/src`, run where both are named so (the patch's paths).
    let base = scratch.join("diff");
    if base.exists() {
        std::fs::remove_dir_all(&base)?;
    }
    copy_dir(&release, &base.join("a").join("src"))?;
    copy_dir(
        &layout.root.join("third_party/r2r/src"),
        &base.join("b").join("src"),
    )?;
    let out = Command::new("diff")
        .args(["-ruN", "a/src", "b/src"])
        .current_dir(&base)
        .output()?;
    // diff: 0 = same, 1 = different, 2 = trouble.
    if out.status.code() == Some(2) {
        return Err(Failure::new(format!(
            "r2r-patch: diff failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    // Without the files' times in the headers: a refresh changes only what changed.
    let text: String = String::from_utf8_lossy(&out.stdout)
        .split_inclusive('\n')
        .map(|l| match l.split_once('\t') {
            Some((head, _)) if l.starts_with("--- ") || l.starts_with("+++ ") => {
                format!("{head}\n")
            }
            _ => l.to_string(),
        })
        .collect();
    let file = layout.root.join("third_party/r2r/arnie.patch");
    std::fs::write(&file, text)?;
    eprintln!(
        "xtask: r2r-patch: wrote {} ({} lines)",
        file.display(),
        std::fs::read_to_string(&file)?.lines().count()
    );
    Ok(())
}

/// `cargo xtask r2r-patch [check|refresh]`.
///
/// # Errors
/// As [`check`] and [`refresh`]; an unknown word.
pub fn cmd(layout: &Layout, args: &[String]) -> Result<(), Failure> {
    match args.first().map(String::as_str) {
        None | Some("check") => check(layout),
        Some("refresh") => refresh(layout),
        Some(other) => Err(Failure::new(format!(
            "r2r-patch: {other:?} is not check or refresh"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_the_patch_adds_are_found_and_their_users_told_apart() {
        let patch = "+pub struct ClientRaw {\n+    pub fn request(&self) {}\n\
                     +    pub fn get_node_names(&self) {}\n fn old() {}\n";
        let names = patched_names(patch);
        assert_eq!(
            names,
            [
                ("ClientRaw".to_string(), true),
                ("get_node_names".to_string(), false)
            ]
        );
        assert!(uses("let c: r2r::ClientRaw = x;", "ClientRaw", true));
        assert!(uses(
            "use node_glue::r2r::{ClientRaw, Node};",
            "ClientRaw",
            true
        ));
        assert!(!uses("let c: r2r::ClientRawer = x;", "ClientRaw", true));
        assert!(uses("node.get_node_names()?", "get_node_names", false));
        assert!(!uses(
            "x.get_node_names_and_namespaces()",
            "get_node_names",
            false
        ));
        assert!(!uses(
            "wait_for_all_acked: Option<u64>,",
            "wait_for_all_acked",
            false
        ));
    }
}
