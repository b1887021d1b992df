//! explain → compile gives back the same instructions, for the project's task files
//! (`params/tasks/*.json`), the reference instructions files the loader accepts
//! (`instructions.json`, `brainjs/*instructions*.json`), and the compiled sample.
mod common;

use std::path::Path;

fn json_files(dir: &Path, filter: impl Fn(&str) -> bool) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name().and_then(|n| n.to_str()).is_some_and(&filter)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn project_task_files() {
    let files = json_files(&common::root().join("params/tasks"), |_| true);
    assert!(!files.is_empty(), "no task files");
    for f in files {
        let i = arnie_instructions::load(&common::read(&f))
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        common::assert_round_trip(&i, &f.display().to_string());
    }
}

/// The project's English tasks (`params/tasks/*.txt`) compile, with no warning, to the
/// instructions of the JSON file of the same name (`flame_passing.txt` → `.json`).
#[test]
fn project_english_tasks_match_their_json() {
    let dir = common::root().join("params/tasks");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no English task in {}", dir.display());
    for txt in files {
        let c = arnie_english::compile_with(&common::read(&txt), arnie_english::Options::default());
        let shown: Vec<String> = c.diagnostics.iter().map(|d| d.to_string()).collect();
        assert!(shown.is_empty(), "{}: {shown:#?}", txt.display());
        let json = txt.with_extension("json");
        let want = arnie_instructions::load(&common::read(&json))
            .unwrap_or_else(|e| panic!("{}: {e}", json.display()));
        assert_eq!(
            c.instructions,
            Some(want),
            "{} vs {}",
            txt.display(),
            json.display()
        );
    }
}

#[test]
fn reference_instructions_files() {
    let mut files = vec![common::reference().join("instructions.json")];
    files.extend(json_files(&common::reference().join("brainjs"), |n| {
        n.contains("instructions")
    }));
    let mut loaded = 0;
    for f in &files {
        // Only the files the loader accepts (all of them today).
        if let Ok(i) = arnie_instructions::load(&common::read(f)) {
            common::assert_round_trip(&i, &f.display().to_string());
            loaded += 1;
        }
    }
    assert_eq!(loaded, 5, "{files:?}");
}

#[test]
fn the_compiled_sample() {
    let i = arnie_english::compile(&common::sample()).expect("compiles");
    common::assert_round_trip(&i, "sample.txt");
}

#[test]
fn explain_of_the_reference_reads_like_the_sample() {
    let i = arnie_instructions::load(&common::read(
        &common::reference().join("instructions.json"),
    ))
    .expect("loads");
    let text = arnie_english::explain(&i);
    for line in [
        "The initial action is start.",
        "The first step is to move to 0, 0, 0.",
        "There must be one object, at any position, with a certainty of 75 (threshold 25) for decision1.",
        "The first step is to move to the y position of the object found in start action decision1 decision.",
        "The fourth step is to move x and z positions to 0.",
        "The arm's y position must be the y position of the object found in start action decision1 decision (threshold 15) for decision1.",
        "The success action for decision1 is lightOther in the same tick.",
        "lightSelf's reset condition is action start, timeout 3, no delay.",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
    }
}

/// The loader accepts a variable written `start, 0 ,00`; the compiler writes it `start,0,0`:
/// the same variable (same action, decision and object), so the same JSON.
#[test]
fn a_variable_spelt_differently_means_the_same() {
    let text = common::read(&common::reference().join("instructions.json"))
        .replace("\"start,0,0\"", "\"start, 0 ,00\"");
    let i = arnie_instructions::load(&text).expect("the loader accepts it");
    let back = arnie_english::compile(&arnie_english::explain(&i)).expect("compiles");
    assert_ne!(back, i, "the spelling is kept in VarRef::text");
    assert_eq!(arnie_english::to_json(&back), arnie_english::to_json(&i));
}

/// Names that are no plain word, or are words of the grammar, are quoted and read back.
#[test]
fn any_name_survives() {
    let names = [
        "the",
        "x",
        "Arm",
        "first",
        "a,b",
        "with \"quotes\" and \\",
        "",
        "tab\there",
        "café",
        "1",
        "new\nline",
        "decision",
        "b",
        "B",
        "\u{201c}curly\u{201d}",
        "#hash",
        "it's",
        "a.b",
    ];
    for (k, n) in names.iter().enumerate() {
        let other = if k == 0 { "zz" } else { names[k - 1] };
        let doc = serde_json::json!({
            "initialAction": n,
            "actions": {
                *n: {
                    "trajectory": [{"x": 1, "y": 2, "z": 3}],
                    "decisions": [{
                        "executeAfter": 0,
                        "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": []},
                        "success": {"action": other},
                        "fail": {"action": n, "delay": -1}
                    }],
                    "reset": {"timeout": 2, "action": other}
                },
                other: {"trajectory": [{"x": 0, "y": 0, "z": 0}]}
            }
        });
        let i = arnie_instructions::load(&doc.to_string()).unwrap_or_else(|e| panic!("{n:?}: {e}"));
        common::assert_round_trip(&i, n);
    }
}
