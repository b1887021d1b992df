//! rosbag2 `metadata.yaml` (nodes/tools/arnie_bag `metadata`, `yaml`): any text is metadata or a
//! `BagError`, never a panic; metadata that loads, written back both ways
//! (`metadata.yaml` with its root key, and the `serialized_metadata` form without),
//! loads to the same metadata.
#![no_main]
use std::path::Path;

use arnie_bag::BagMetadata;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = Path::new("fuzz/metadata.yaml");
    let Ok(md) = BagMetadata::from_yaml(text, src) else {
        return;
    };
    let _ = md.end_time_ns();
    let yaml = md.to_metadata_yaml();
    let back = BagMetadata::from_yaml(&yaml, src)
        .unwrap_or_else(|e| panic!("our yaml does not load: {e}\n{yaml}"));
    assert_eq!(back, md, "metadata.yaml round trip\n{yaml}");
    let ser = md.to_serialized();
    let back = BagMetadata::from_yaml(&ser, src)
        .unwrap_or_else(|e| panic!("serialized form does not load: {e}\n{ser}"));
    assert_eq!(back, md, "serialized_metadata round trip\n{ser}");
});
