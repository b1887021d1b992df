//! The `arnie_english` binary: compile, check, explain, their exit codes and messages.
mod common;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_arnie_english");

/// A fresh directory for one test, removed at its end.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Dir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

fn dir() -> Dir {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "arnie_english_cli_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).expect("temp dir");
    Dir(d)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn compile_writes_instructions_the_brain_loads() {
    let d = dir();
    let sample = common::reference().join("decypher/sample.txt");
    let out = d.join("instructions.json");
    let o = run(&[
        "compile",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    // The two documented readings, as warnings.
    assert_eq!(
        text(&o.stderr)
            .lines()
            .filter(|l| l.contains(": warning: "))
            .count(),
        2,
        "{}",
        text(&o.stderr)
    );
    let json = std::fs::read_to_string(&out).expect("written");
    let golden = arnie_instructions::load(include_str!("golden/sample.json")).expect("golden");
    assert_eq!(arnie_instructions::load(&json), Ok(golden));
    // Without -o: standard output.
    let o = run(&["compile", sample.to_str().unwrap()]);
    assert_eq!(text(&o.stdout), json);
}

#[test]
fn check_reports_and_fails_on_errors() {
    let d = dir();
    let task = d.join("task.txt");
    std::fs::write(
        &task,
        "Create an action called a.\nMove to 1, 2.\na has no reset condition.\n",
    )
    .unwrap();
    let o = run(&["check", task.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let path = task.display();
    // The action's missing step is not reported: the broken sentence may have given it.
    assert_eq!(
        err,
        format!(
            "{path}: line 2, column 13: unknown sentence: unexpected end of sentence in \"Move to 1, 2.\"; expected `,`\n\
             {path}: 1 error\n"
        )
    );
    assert!(o.stdout.is_empty());
    std::fs::write(
        &task,
        "Create an action called a.\nMove to 1, 2, 3.\na has no reset condition.\n",
    )
    .unwrap();
    let o = run(&["check", task.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stderr),
        format!("{path}: ok, 1 action, 0 warnings\n")
    );
}

#[test]
fn strict_turns_readings_into_errors() {
    let sample = common::reference().join("decypher/sample.txt");
    let o = run(&["check", "--strict", sample.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("unknown word `posision`"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn explain_gives_english_that_compiles_back() {
    let d = dir();
    let reference = common::reference().join("instructions.json");
    let english = d.join("task.txt");
    let o = run(&[
        "explain",
        reference.to_str().unwrap(),
        "-o",
        english.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let json = d.join("back.json");
    let o = run(&[
        "compile",
        english.to_str().unwrap(),
        "-o",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "no warnings: {}", text(&o.stderr));
    let want = arnie_instructions::load(&common::read(&reference)).unwrap();
    assert_eq!(
        arnie_instructions::load(&std::fs::read_to_string(json).unwrap()),
        Ok(want)
    );
}

#[test]
fn explain_of_a_bad_file_names_the_problem() {
    let d = dir();
    let bad = d.join("bad.json");
    std::fs::write(&bad, r#"{"initialAction": "a", "actions": {}}"#).unwrap();
    let o = run(&["explain", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!("{}: actions: the action set is empty\n", bad.display())
    );
}

#[test]
fn standard_input_and_usage_errors() {
    let mut child = Command::new(BIN)
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Create an action called a. Move to 1, 2, 3. a has no reset condition.")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stderr), "<stdin>: ok, 1 action, 0 warnings\n");

    for args in [
        &[][..],
        &["frobnicate", "x"],
        &["compile"],
        &["check", "a", "b"],
        &["check", "-o", "x", "a"],
        &["explain", "--strict", "a"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("Usage:"), "{args:?}");
    }
    let o = run(&["check", "/nonexistent/task.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).starts_with("arnie_english: /nonexistent/task.txt: cannot read: "),
        "{}",
        text(&o.stderr)
    );
}
