//! The bag reader on MCAP bytes (nodes/tools/arnie_bag `mcap::read`, `bag`): the input is
//! written to a scratch `.mcap` file and opened three ways, the indexed reader
//! (`McapFile`: summary, messages, metadata records), the linear scan of `reindex`
//! (`LinearReader`) and `Bag::open` of a bare MCAP file; each gives data or a `BagError`,
//! never a panic. Then the round trip: the input's bytes as messages, written by
//! `McapWriter` (compression and chunk size from the input), read back identical.
#![no_main]
use std::collections::BTreeMap;

use arnie_bag::mcap::{LinearReader, McapFile, McapWriter, OwnedMessage, WriterOptions};
use arnie_bag::{Bag, Compression};
use libfuzzer_sys::fuzz_target;

/// Enough to walk any input of the fuzzer's size; a loop that never ends is a bug.
const MAX_ITEMS: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let dir = arnie_fuzz::scratch_dir("bag_mcap");
    let path = dir.join("in.mcap");
    std::fs::write(&path, data).expect("scratch file");

    if let Ok(f) = McapFile::open(&path) {
        let _ = f.header();
        let _ = f.metadata_records("rosbag2");
        for m in f.messages().take(MAX_ITEMS) {
            if m.is_err() {
                break;
            }
        }
    }
    if let Ok(mut r) = LinearReader::open(&path) {
        let mut n = 0;
        while let Ok(Some(_)) = r.next_item() {
            n += 1;
            assert!(n < MAX_ITEMS, "linear scan does not end");
        }
        assert!(r.good_until <= data.len() as u64);
    }
    if let Ok(bag) = Bag::open(&path) {
        let _ = bag.topics();
        for m in bag.messages().take(MAX_ITEMS) {
            if m.is_err() {
                break;
            }
        }
    }

    // Round trip through the writer.
    let Some((&ctl, body)) = data.split_first() else {
        return;
    };
    let out = dir.join("out.mcap");
    let _ = std::fs::remove_file(&out);
    let compression =
        [Compression::None, Compression::Zstd, Compression::Lz4][usize::from(ctl % 3)];
    let opts = WriterOptions {
        compression,
        chunk_size: 16 + usize::from(ctl) * 8,
        ..WriterOptions::default()
    };
    let mut w = McapWriter::create(&out, opts).expect("writer");
    let schema = w
        .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
        .expect("schema");
    let a = w
        .add_channel(schema, "/a", "cdr", BTreeMap::new())
        .expect("channel");
    let b = w
        .add_channel(schema, "/b", "cdr", BTreeMap::new())
        .expect("channel");
    let mut written = Vec::new();
    for (i, chunk) in body.chunks(1 + usize::from(ctl >> 4)).enumerate() {
        let m = OwnedMessage {
            channel_id: if chunk[0] & 1 == 0 { a } else { b },
            sequence: i as u32,
            log_time: 1_000 + i as u64 * 10,
            publish_time: i as u64,
            data: chunk.to_vec(),
        };
        w.write_message(
            m.channel_id,
            m.sequence,
            m.log_time,
            m.publish_time,
            &m.data,
        )
        .expect("write");
        written.push(m);
    }
    w.finish().expect("finish");
    let f = McapFile::open(&out).expect("our file opens");
    let read: Vec<OwnedMessage> = f
        .messages()
        .collect::<Result<_, _>>()
        .expect("our messages read");
    assert_eq!(read, written, "MCAP write -> read");
});
