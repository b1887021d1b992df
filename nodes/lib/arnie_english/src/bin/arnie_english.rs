//! `arnie_english compile TASK.txt [-o instructions.json] [--strict]`,
//! `arnie_english check TASK.txt [--strict]`, `arnie_english explain instructions.json
//! [-o TASK.txt]`. A file `-` is standard input. Exit status: 0 done, 1 the input does not
//! compile (or load), 2 usage or I/O error.

use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Tasks in plain English (the Decypher language) to the brain's instructions.json, and
/// back.
#[derive(Parser)]
#[command(
    name = "arnie_english",
    after_help = "A file `-` is standard input.\n\
                  Exit status: 0 done, 1 the input does not compile (or load), 2 usage or I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// English task -> instructions.json (stdout without -o); warnings and errors on stderr
    Compile {
        /// The English task (`-`: standard input)
        #[arg(value_name = "TASK.txt")]
        input: String,
        /// Write the instructions here instead of standard output
        #[arg(short, long, value_name = "instructions.json")]
        output: Option<String>,
        /// The documented readings (a keyword typo, an open parenthesis) are errors, not
        /// warnings
        #[arg(long)]
        strict: bool,
    },
    /// Report the errors and warnings only
    Check {
        /// The English task (`-`: standard input)
        #[arg(value_name = "TASK.txt")]
        input: String,
        /// The documented readings (a keyword typo, an open parenthesis) are errors, not
        /// warnings
        #[arg(long)]
        strict: bool,
    },
    /// instructions.json -> the English text that compiles back to it
    Explain {
        /// The instructions (`-`: standard input)
        #[arg(value_name = "instructions.json")]
        input: String,
        /// Write the English here instead of standard output
        #[arg(short, long, value_name = "TASK.txt")]
        output: Option<String>,
    },
}

/// The three commands' arguments in one shape, for [`run`].
struct Args {
    /// `explain` (JSON to English) rather than `compile` / `check`.
    explain: bool,
    /// `check`: report only.
    check: bool,
    input: String,
    output: Option<String>,
    strict: bool,
}

impl From<Command> for Args {
    fn from(c: Command) -> Args {
        let (explain, check, input, output, strict) = match c {
            Command::Compile {
                input,
                output,
                strict,
            } => (false, false, input, output, strict),
            Command::Check { input, strict } => (false, true, input, None, strict),
            Command::Explain { input, output } => (true, false, input, output, false),
        };
        Args {
            explain,
            check,
            input,
            output,
            strict,
        }
    }
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
    if args.explain {
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
    if args.check {
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
    // Usage errors: clap's message and usage on stderr, exit status 2.
    let args = Args::from(Cli::parse().command);
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("arnie_english: {e}");
            ExitCode::from(2)
        }
    }
}
