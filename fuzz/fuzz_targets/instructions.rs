//! The brain's instructions loader and validator (nodes/lib/arnie_instructions): any text is
//! checked instructions or a `BrainError`, never a panic; and instructions that load,
//! written back as instructions.json by arnie_english's `to_json`, load again and write
//! the same text (encode∘decode is the identity on the written form; loaded values keep
//! a variable's spelling as written, `"start, 0,0"`, which `to_json` normalises).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let first = arnie_instructions::load(text);
    let Ok(instructions) = first else { return };
    let json = arnie_english::to_json(&instructions);
    let again = arnie_instructions::load(&json)
        .unwrap_or_else(|e| panic!("to_json output does not load: {e}\n{json}"));
    assert_eq!(again.actions().len(), instructions.actions().len());
    assert_eq!(
        arnie_english::to_json(&again),
        json,
        "instructions -> json -> instructions -> json"
    );
});
