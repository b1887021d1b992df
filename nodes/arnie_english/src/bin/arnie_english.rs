//! `arnie_english compile TASK.txt [-o instructions.json] [--strict]`,
//! `arnie_english check TASK.txt [--strict]`, `arnie_english explain instructions.json
//! [-o TASK.txt]`. A file `-` is standard input. Exit status: 0 done, 1 the input does not
//! compile (or load), 2 usage or I/O error.

use std::io::{Read, Write};
use std::process::ExitCode;

const USAGE: &str = "usage:
  arnie_english compile TASK.txt [-o instructions.json] [--strict]
      English task -> instructions.json (stdout without -o); warnings and errors on stderr
  arnie_english check TASK.txt [--strict]
      report the errors and warnings only
  arnie_english explain instructions.json [-o TASK.txt]
      instructions.json -> the English text that compiles back to it
A file `-` is standard input. --strict: the documented readings (a keyword typo, a
parenthesis left open) are errors instead of warnings.";

struct Args {
    command: String,
    input: String,
    output: Option<String>,
    strict: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut it = args.iter();
    let command = it.next().ok_or("no command")?.clone();
    if !matches!(command.as_str(), "compile" | "check" | "explain") {
        return Err(format!("unknown command `{command}`"));
    }
    let (mut input, mut output, mut strict) = (None, None, false);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" if command != "check" => {
                output = Some(it.next().ok_or("-o needs a file")?.clone());
            }
            "--strict" if command != "explain" => strict = true,
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') && s != "-" => return Err(format!("unknown option `{s}`")),
            s if input.is_none() => input = Some(s.to_owned()),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    Ok(Args {
        command,
        input: input.ok_or("no input file")?,
        output,
        strict,
    })
}

fn read(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("standard input: {e}"))?;
        return Ok(s);
    }
    std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))
}

fn write(path: Option<&str>, text: &str) -> Result<(), String> {
    match path {
        None | Some("-") => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("standard output: {e}")),
        Some(p) => std::fs::write(p, text).map_err(|e| format!("{p}: cannot write: {e}")),
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let text = read(&args.input)?;
    let name = if args.input == "-" {
        "<stdin>"
    } else {
        &args.input
    };
    if args.command == "explain" {
        return match arnie_instructions::load(&text) {
            Ok(i) => write(args.output.as_deref(), &arnie_english::explain(&i)).map(|()| true),
            Err(e) => {
                eprintln!("{name}: {e}");
                Ok(false)
            }
        };
    }
    let compiled = arnie_english::compile_with(
        &text,
        arnie_english::Options {
            strict: args.strict,
        },
    );
    for d in &compiled.diagnostics {
        eprintln!("{name}: {d}");
    }
    let Some(instructions) = compiled.instructions else {
        let errors = compiled
            .diagnostics
            .iter()
            .filter(|d| d.severity == arnie_english::Severity::Error)
            .count();
        eprintln!(
            "{name}: {errors} error{}",
            if errors == 1 { "" } else { "s" }
        );
        return Ok(false);
    };
    if args.command == "check" {
        let warnings = compiled.diagnostics.len();
        eprintln!(
            "{name}: ok, {} action{}, {warnings} warning{}",
            instructions.actions().len(),
            if instructions.actions().len() == 1 {
                ""
            } else {
                "s"
            },
            if warnings == 1 { "" } else { "s" }
        );
        return Ok(true);
    }
    write(
        args.output.as_deref(),
        &arnie_english::to_json(&instructions),
    )
    .map(|()| true)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&args) {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("arnie_english: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("arnie_english: {e}");
            ExitCode::from(2)
        }
    }
}
