//! The English compiler (nodes/lib/arnie_english): any text compiles to instructions or to
//! diagnostics (at least one error), never a panic; compiled instructions explained back
//! in English compile to the same instructions, and written as instructions.json load to
//! the same instructions with the brain's loader.
#![no_main]
use arnie_english::{compile, compile_with, explain, to_json, Options, Severity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let compiled = compile_with(text, Options::default());
    let has_error = compiled
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    assert_eq!(
        compiled.instructions.is_some(),
        !has_error,
        "instructions iff no error"
    );
    for d in &compiled.diagnostics {
        let _ = d.to_string();
    }
    let Some(instructions) = compiled.instructions else {
        return;
    };
    let english = explain(&instructions);
    match compile(&english) {
        Ok(back) => assert_eq!(back, instructions, "explain round trip\n{english}"),
        Err(e) => panic!("explained text does not compile: {e:?}\n{english}"),
    }
    let json = to_json(&instructions);
    let loaded = arnie_instructions::load(&json)
        .unwrap_or_else(|e| panic!("to_json does not load: {e}\n{json}"));
    assert_eq!(loaded, instructions, "json round trip");
});
