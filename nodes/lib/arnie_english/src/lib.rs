//! Tasks in plain English: compiles the controlled English of ARNIE's Decypher (the
//! flame-passing task of `decypher/sample.txt`) into the instructions the brain loads,
//! and explains instructions back in that English. No ROS.
//!
//! # Layout
//! - [`lexer`]: text → tokens with line and column, grouped into sentences.
//! - [`words`]: keywords, number words and ordinals, the edit distance of "did you mean".
//! - [`parse`]: one sentence → a [`parse::Sentence`] (the grammar; README.md lists it).
//! - [`build`]: sentences → the brain's raw instructions → its validator (the meaning,
//!   the defaults, the checks that need the whole text).
//! - [`diagnostic`]: [`Diagnostic`] and [`Kind`], one variant per failure kind.
//! - [`explain`]: instructions → English that compiles back to them.
//! - [`json`]: instructions → the text of an instructions.json file.
//!
//! # Use
//! ```
//! let text = "Create an action called home.
//!     The first step is to move to 0, 0, 0.
//!     home has no decisions.
//!     home has no reset condition.";
//! let instructions = arnie_english::compile(text).expect("compiles");
//! assert_eq!(instructions.actions()[0].name, "home");
//! let english = arnie_english::explain(&instructions);
//! assert_eq!(arnie_english::compile(&english), Ok(instructions));
//!
//! let errors = arnie_english::compile("Create an action called home.\nMove to 1, 2.")
//!     .unwrap_err();
//! assert_eq!(
//!     errors[0].to_string(),
//!     "line 2, column 13: unknown sentence: unexpected end of sentence in \"Move to 1, 2.\"; \
//!      expected `,`"
//! );
//! ```
//!
//! Compiling never panics, whatever the text (property tests feed it random text and
//! mutated sample lines), and reports every problem it finds, not just the first.
#![deny(missing_docs)]

pub mod build;
pub mod diagnostic;
pub mod explain;
pub mod json;
pub mod lexer;
pub mod parse;
pub mod words;

pub use arnie_instructions::Instructions;
pub use build::Options;
pub use diagnostic::{Diagnostic, Kind, Severity};
pub use json::to_json;

/// The outcome of [`compile_with`]: the instructions when there is no error, and every
/// diagnostic, errors and warnings, in the order of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// `Some` when no diagnostic is an error.
    pub instructions: Option<Instructions>,
    /// Errors and warnings (the documented readings), by line and column.
    pub diagnostics: Vec<Diagnostic>,
}

/// Compile a task in English. `Err` holds every diagnostic (errors, and the warnings
/// found with them) in the order of the text; on success the warnings are dropped (use
/// [`compile_with`] to see them).
///
/// # Errors
/// One [`Diagnostic`] per problem; see [`Kind`].
pub fn compile(text: &str) -> Result<Instructions, Vec<Diagnostic>> {
    let c = compile_with(text, Options::default());
    c.instructions.ok_or(c.diagnostics)
}

/// Compile with options, keeping the warnings.
pub fn compile_with(text: &str, options: Options) -> Compiled {
    let (instructions, diagnostics) = build::compile(text, options);
    Compiled {
        instructions,
        diagnostics,
    }
}

/// The English text of instructions; it compiles back to the same instructions.
pub fn explain(instructions: &Instructions) -> String {
    explain::explain(instructions)
}
