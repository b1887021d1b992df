//! The project's Markdown stays navigable: every relative link (`[text](path)`,
//! `![alt](path)`, `[text](path#anchor)`, `[text](#anchor)`) of every `.md` file names a
//! file or folder that exists and, with an anchor into a Markdown file, one of its
//! headings (GitHub's anchors: lower case, punctuation dropped, spaces to `-`, `-1`,
//! `-2` ... for repeats). Links in code blocks and code spans are not links; web links
//! (`https:`, `mailto:` ...) are not checked.
//!
//! And the paths a document names in code spans (`nodes/...`, `docs/...`, `src/...` of a
//! crate's README ...) exist, so a moved file cannot leave its old path in the docs.
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).expect("the repository")
}

/// Every Markdown file of the project: not in builds or dependencies (`target/`,
/// `node_modules/`, hidden folders), nor in what colcon and the demo write at the top.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                let generated = ["target", "node_modules"].contains(&name.as_str())
                    || (dir == root && ["out", "install", "build", "log"].contains(&name.as_str()));
                if !name.starts_with('.') && !generated {
                    stack.push(p);
                }
            } else if name.ends_with(".md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of a Markdown text with fenced code blocks blanked (line numbers kept).
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                String::new()
            } else if fenced {
                String::new()
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// A line without its code spans (`...`).
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The code spans of a line.
fn code_spans(line: &str) -> Vec<String> {
    line.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// The targets of the inline links of a line (`](target)`), code spans left out.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].trim();
        // `[text](url "title")`: the url only.
        let target = target.split_whitespace().next().unwrap_or_default();
        if !target.is_empty() {
            out.push(target.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    // A link in a heading counts by its text.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: Vec<String> = Vec::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let s = slug(line[hashes..].trim());
        let n = seen.iter().filter(|x| **x == s).count();
        seen.push(s.clone());
        out.insert(if n == 0 { s } else { format!("{s}-{n}") });
    }
    out
}

/// What is wrong with the links of one document (empty: nothing).
fn broken_links(root: &Path, doc: &Path) -> Vec<String> {
    let text = fs::read_to_string(doc).unwrap_or_default();
    let dir = doc.parent().unwrap_or(root);
    let shown = doc.strip_prefix(root).unwrap_or(doc).display().to_string();
    let mut bad = Vec::new();
    for (n, line) in prose_lines(&text).iter().enumerate() {
        for target in link_targets(line) {
            let is_web = target
                .split_once(':')
                .is_some_and(|(scheme, _)| scheme.chars().all(|c| c.is_ascii_alphabetic()));
            if is_web {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                doc.to_path_buf()
            } else {
                dir.join(path)
            };
            if !file.exists() {
                bad.push(format!("{shown}:{}: `{target}`: no such file", n + 1));
                continue;
            }
            if !anchor.is_empty() && file.extension().is_some_and(|e| e == "md") {
                let theirs = anchors(&fs::read_to_string(&file).unwrap_or_default());
                if !theirs.contains(anchor) {
                    bad.push(format!(
                        "{shown}:{}: `{target}`: no heading with the anchor #{anchor}",
                        n + 1
                    ));
                }
            }
        }
    }
    bad
}

/// The top folders of the repository a path in a code span may start with.
const TOP: &[&str] = &[
    "nodes/",
    "docs/",
    "msg/",
    "launch/",
    "params/",
    "xtask/",
    "test/",
    "fuzz/",
    "third_party/",
];
/// The folders of a crate a crate's README names paths in.
const CRATE: &[&str] = &["src/", "tests/", "benches/", "examples/"];

/// The file paths named in code spans that do not exist: a span that is one word
/// starting with a top folder (from the root) or, in a README under `nodes/`, a crate
/// folder (from the README's folder), and ending in a file name with an extension.
/// Patterns (`<pkg>`, `*`, `{a,b}`, `$VAR`, `…`) are not paths.
fn missing_paths(root: &Path, doc: &Path) -> Vec<String> {
    let text = fs::read_to_string(doc).unwrap_or_default();
    let dir = doc.parent().unwrap_or(root);
    let shown = doc.strip_prefix(root).unwrap_or(doc);
    let in_crate = shown.starts_with("nodes") && dir.join("Cargo.toml").is_file();
    let mut bad = Vec::new();
    for (n, line) in prose_lines(&text).iter().enumerate() {
        for span in code_spans(line) {
            let path = span.trim_end_matches(['.', ',', ':', ';', ')']);
            if path.contains(char::is_whitespace)
                || path.contains(['<', '>', '*', '{', '}', '$', '…', '|'])
            {
                continue;
            }
            let file_name = path.rsplit('/').next().unwrap_or_default();
            let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && !ext.is_empty()
            });
            if !has_extension {
                continue;
            }
            let base = if TOP.iter().any(|t| path.starts_with(t)) {
                root
            } else if in_crate && CRATE.iter().any(|t| path.starts_with(t)) {
                dir
            } else {
                continue;
            };
            if !base.join(path).exists() {
                bad.push(format!(
                    "{}:{}: `{path}`: no such file",
                    shown.display(),
                    n + 1
                ));
            }
        }
    }
    bad
}

#[test]
fn every_relative_link_resolves() {
    let root = root();
    let docs = documents(&root);
    for known in [
        "README.md",
        "docs/ARCHITECTURE.md",
        "nodes/arnie_base/README.md",
    ] {
        assert!(
            docs.contains(&root.join(known)),
            "{known} not among the documents found"
        );
    }
    let bad: Vec<String> = docs.iter().flat_map(|d| broken_links(&root, d)).collect();
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn every_named_path_exists() {
    let root = root();
    let bad: Vec<String> = documents(&root)
        .iter()
        .flat_map(|d| missing_paths(&root, d))
        .collect();
    assert!(
        bad.is_empty(),
        "paths named in the docs that do not exist:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checks_see_what_is_wrong() {
    assert_eq!(
        slug("The shape of a node (copy `nodes/arnie_trajectory`)"),
        "the-shape-of-a-node-copy-nodesarnie_trajectory"
    );
    assert_eq!(
        slug("Detour benchmark (`cargo bench -p arnie_trajectory --no-default-features --bench detour`)"),
        "detour-benchmark-cargo-bench--p-arnie_trajectory---no-default-features---bench-detour"
    );
    assert_eq!(
        slug("See [the tour](README.md#x): A, b"),
        "see-the-tour-a-b"
    );
    let text = "# A\n\n```sh\n# not a heading\n[x](nowhere.md)\n```\n## A\n";
    assert_eq!(
        anchors(text),
        BTreeSet::from(["a".to_string(), "a-1".to_string()])
    );
    assert_eq!(
        link_targets("see [a](b.md#c), `[no](code.md)` and ![p](d.png \"t\")"),
        vec!["b.md#c", "d.png"]
    );
    let dir = std::env::temp_dir().join(format!("arnie-docs-check-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let doc = dir.join("x.md");
    fs::write(
        &doc,
        "# Here\n\n[ok](#here) [gone](#there) [missing](y.md) `nodes/no_such.rs`\n",
    )
    .unwrap();
    let links = broken_links(&dir, &doc);
    assert_eq!(links.len(), 2, "{links:?}");
    assert!(links[0].contains("#there") && links[1].contains("y.md"));
    let root = root();
    assert!(missing_paths(&root, &doc)
        .iter()
        .any(|p| p.contains("nodes/no_such.rs")));
    fs::remove_dir_all(&dir).unwrap();
}
