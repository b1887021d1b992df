//! The spine's two UDP formats (nodes/arnie_spine `wire`): any bytes decode to items or
//! a `Rejected`, never a panic; every decoded message is finite and encodes back to
//! bytes that decode to the same items (csv exactly; simulink after re-grouping in threes).
#![no_main]
use arnie_spine::wire::{decode, encode, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [Format::Csv, Format::Simulink] {
        let Ok(items) = decode(format, data) else {
            continue;
        };
        assert!(!items.is_empty());
        assert!(items.iter().flatten().all(|x| x.is_finite()));
        let bytes = encode(format, &items);
        let again = decode(format, &bytes).expect("an encoded message decodes");
        assert_eq!(again, items, "{format} round trip");
    }
});
