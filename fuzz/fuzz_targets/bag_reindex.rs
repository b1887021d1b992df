//! `arnie_bag reindex` (nodes/tools/arnie_bag `reindex`): the input becomes the one `.mcap`
//! file of a scratch bag folder (cut-off bags are the intended input), then `reindex`
//! repairs it. Asserts: never a panic; a reindex that succeeds leaves a bag that opens;
//! when it rewrote the file (`Recovered`), every message reads, as many as the rebuilt
//! `metadata.yaml` says, and a second reindex finds it complete. (A file with its footer
//! and summary intact is left as it is, `Intact`, without checking its chunks' CRCs: a
//! corrupt chunk there is then a clean read error, not a repair.)
#![no_main]
use arnie_bag::reindex::{reindex, FileRepair};
use arnie_bag::Bag;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = arnie_fuzz::scratch_dir("bag_reindex").join("bag");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("bag_0.mcap"), data).expect("scratch file");
    let Ok(report) = reindex(&dir) else { return };
    let _ = report.to_string();
    let bag = Bag::open(&dir).unwrap_or_else(|e| panic!("a reindexed bag does not open: {e}"));
    if report.files.iter().all(|(_, r)| *r == FileRepair::Intact) {
        for m in bag.messages() {
            if m.is_err() {
                break;
            }
        }
        return;
    }
    let mut n = 0u64;
    for m in bag.messages() {
        m.unwrap_or_else(|e| panic!("a reindexed bag's message does not read: {e}"));
        n += 1;
    }
    assert_eq!(
        n, report.metadata.message_count,
        "messages vs metadata.yaml"
    );
    let again = reindex(&dir).unwrap_or_else(|e| panic!("second reindex: {e}"));
    for (name, r) in &again.files {
        assert_eq!(
            *r,
            FileRepair::Intact,
            "{name} not complete after a reindex"
        );
    }
});
