//! Bags on disk: written by the Recorder, read back by Bag, split, cut off and
//! reindexed, and every kind of bad input turned into one error naming the file.
//! (Cross-checks with independent readers and writers, Python `rosbags` and `mcap`, are
//! in the project's `test/bags/test_bag_files.py`.)

use std::path::Path;

use arnie_bag::mcap::records::op;
use arnie_bag::metadata::BagMetadata;
use arnie_bag::player::{BagSource, PlayOptions, Player, Step};
use arnie_bag::qos::{Durability, Qos};
use arnie_bag::reindex::{reindex, FileRepair};
use arnie_bag::{
    Bag, BagError, BagInfo, Compression, MessageDefinition, Recorder, RecorderOptions, TopicSpec,
};

const T0: u64 = 1_700_000_000_000_000_000;
const MS: u64 = 1_000_000;

fn spec(name: &str, ty: &str, qos: Qos) -> TopicSpec {
    TopicSpec {
        name: name.into(),
        type_name: ty.into(),
        serialization_format: "cdr".into(),
        offered_qos_profiles: vec![qos],
        type_description_hash: "RIHS01_00".into(),
        definition: MessageDefinition {
            type_name: ty.into(),
            encoding: "ros2msg".into(),
            text: "string data\n".into(),
        },
    }
}

fn payload(i: u64) -> Vec<u8> {
    let mut v = vec![0, 1, 0, 0];
    v.extend_from_slice(&(i as u32).to_le_bytes());
    v.extend((0..(i % 50) as u8).map(|b| b.wrapping_mul(7)));
    v
}

/// Writes `n` messages alternating over /a and /b (10 ms apart) and a latched /map.
fn write_bag(
    dir: &Path,
    n: u64,
    opts: impl FnOnce(&mut RecorderOptions),
) -> Vec<(String, u64, Vec<u8>)> {
    let mut o = RecorderOptions::new(dir);
    o.ros_distro = "jazzy".into();
    o.sync = false;
    opts(&mut o);
    let mut rec = Recorder::create(o).unwrap();
    let map = rec
        .add_topic(spec(
            "/map",
            "std_msgs/msg/String",
            Qos {
                durability: Durability::TransientLocal,
                depth: 1,
                ..Qos::default()
            },
        ))
        .unwrap();
    let a = rec
        .add_topic(spec("/a", "std_msgs/msg/String", Qos::default()))
        .unwrap();
    let b = rec
        .add_topic(spec("/b", "geometry_msgs/msg/PointStamped", Qos::default()))
        .unwrap();
    let mut written = vec![("/map".to_string(), T0, payload(999))];
    rec.write(map, T0, 0, &payload(999)).unwrap();
    for i in 0..n {
        let (id, name) = if i % 2 == 0 { (a, "/a") } else { (b, "/b") };
        let t = T0 + i * 10 * MS;
        rec.write(id, t, t - 5, &payload(i)).unwrap();
        written.push((name.to_string(), t, payload(i)));
    }
    let report = rec.finish().unwrap();
    assert_eq!(report.total_recorded(), n + 1);
    written
}

fn read_all(path: &Path) -> Vec<(String, u64, Vec<u8>)> {
    let bag = Bag::open(path).unwrap();
    bag.messages()
        .map(|m| m.unwrap())
        .map(|m| (m.topic.to_string(), m.log_time, m.data))
        .collect()
}

#[test]
fn recorded_bag_reads_back_exactly() {
    for c in [Compression::Zstd, Compression::Lz4, Compression::None] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let written = write_bag(&dir, 500, |o| o.compression = c);
        assert_eq!(read_all(&dir), written, "{c:?}");
        let bag = Bag::open(&dir).unwrap();
        let m = bag.metadata();
        assert_eq!(
            (m.version, m.message_count, m.starting_time_ns),
            (9, 501, T0)
        );
        assert_eq!(m.duration_ns, 499 * 10 * MS);
        assert_eq!(m.relative_file_paths, ["run_0.mcap"]);
        assert_eq!(m.ros_distro, "jazzy");
        let map = bag.topic("/map").unwrap();
        assert_eq!(map.message_count, 1);
        assert_eq!(
            map.metadata.offered_qos_profiles[0].durability,
            Durability::TransientLocal
        );
        assert_eq!(map.definition.as_ref().unwrap().text, "string data\n");
        // The rosbag2 record in the file says the same as metadata.yaml.
        let rec = bag.files()[0].metadata_records("rosbag2").unwrap();
        assert_eq!(rec.len(), 2, "one at open, one at close");
        let inner = BagMetadata::from_yaml(&rec[1].metadata["serialized_metadata"], Path::new("x"))
            .unwrap();
        assert_eq!(&inner, m);
        assert_eq!(bag.files()[0].header().profile, "ros2");
    }
}

#[test]
fn splits_by_size_and_duration() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let written = write_bag(&dir, 400, |o| {
        o.max_bag_size = 4096;
        o.chunk_size = 1024;
    });
    let bag = Bag::open(&dir).unwrap();
    let m = bag.metadata();
    assert!(m.files.len() > 2, "{:?}", m.relative_file_paths);
    assert_eq!(m.relative_file_paths[1], "s_1.mcap");
    assert_eq!(m.files.iter().map(|f| f.message_count).sum::<u64>(), 401);
    for f in bag.files() {
        // Each file is complete, with its own schemas and channels.
        assert_eq!(f.summary().channels.len(), 3);
    }
    assert_eq!(read_all(&dir), written);

    let dir = tmp.path().join("d");
    write_bag(&dir, 400, |o| o.max_bag_duration_ns = 1_000_000_000);
    let m = Bag::open(&dir).unwrap().metadata().clone();
    // 4 s of messages, a new file once a message is more than 1 s after the file's first.
    assert_eq!(m.files.len(), 4);
    assert_eq!(m.files[1].starting_time_ns, T0 + 1010 * MS);
}

#[test]
fn a_split_on_request_reports_the_files_closed_and_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let mut rec = Recorder::create(RecorderOptions::new(&dir)).unwrap();
    let id = rec
        .add_topic(spec("/a", "std_msgs/msg/String", Qos::default()))
        .unwrap();
    rec.write(id, T0, 0, &payload(0)).unwrap();
    assert!(rec.take_splits().is_empty());
    rec.split().unwrap();
    rec.write(id, T0 + MS, 0, &payload(1)).unwrap();
    rec.split().unwrap();
    assert_eq!(
        rec.take_splits(),
        vec![
            (dir.join("r_0.mcap"), dir.join("r_1.mcap")),
            (dir.join("r_1.mcap"), dir.join("r_2.mcap"))
        ]
    );
    assert!(rec.take_splits().is_empty());
    rec.finish().unwrap();
    assert_eq!(Bag::open(&dir).unwrap().metadata().files.len(), 3);
}

#[test]
fn cut_off_files_are_recovered_to_the_last_flush() {
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("full");
    let mut o = RecorderOptions::new(&full);
    o.sync = false;
    let mut rec = Recorder::create(o).unwrap();
    let a = rec
        .add_topic(spec("/a", "std_msgs/msg/String", Qos::default()))
        .unwrap();
    for i in 0..300u64 {
        rec.write(a, T0 + i * MS, 0, &payload(i)).unwrap();
        if (i + 1) % 50 == 0 {
            rec.flush().unwrap();
        }
    }
    drop(rec);
    let bytes = std::fs::read(full.join("full_0.mcap")).unwrap();
    // Where each flushed chunk (50 messages) ends.
    let chunk_ends: Vec<usize> = arnie_bag::mcap::records::iter_records(&bytes[8..bytes.len() - 8])
        .map(|r| r.unwrap())
        .filter(|(_, opcode, _)| *opcode == op::CHUNK)
        .map(|(off, _, body)| 8 + off + 9 + body.len())
        .collect();
    assert_eq!(chunk_ends.len(), 6);
    // Cut the file at many points: what comes back is exactly the messages flushed
    // before the cut.
    for cut in (40..bytes.len())
        .step_by(997)
        .chain([bytes.len() - 1, bytes.len() - 30])
    {
        let dir = tmp.path().join(format!("cut{cut}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("cut_0.mcap"), &bytes[..cut]).unwrap();
        let err = Bag::open(&dir).err().expect("no metadata.yaml yet");
        assert!(err.is_recoverable(), "{err}");
        let report = reindex(&dir).unwrap();
        let expected = 50 * chunk_ends.iter().filter(|end| **end <= cut).count();
        let got = read_all(&dir);
        if cut < bytes.len() - 400 {
            assert!(matches!(report.files[0].1, FileRepair::Recovered { .. }));
            assert_eq!(got.len(), expected, "cut at {cut}");
        } else {
            // Cut inside the summary: every message is in complete chunks.
            assert_eq!(got.len(), 300, "cut at {cut}");
        }
        for (i, (_, t, d)) in got.iter().enumerate() {
            assert_eq!((*t, d), (T0 + i as u64 * MS, &payload(i as u64)));
        }
    }
}

#[test]
fn reindex_rebuilds_a_lost_metadata_yaml_and_keeps_complete_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    let written = write_bag(&dir, 300, |o| {
        o.max_bag_size = 4096;
        o.chunk_size = 1024;
    });
    let before = BagMetadata::read_dir(&dir).unwrap();
    std::fs::remove_file(dir.join("metadata.yaml")).unwrap();
    assert!(matches!(
        Bag::open(&dir),
        Err(BagError::MissingMetadata { .. })
    ));
    let report = reindex(&dir).unwrap();
    assert!(report.files.iter().all(|(_, r)| *r == FileRepair::Intact));
    let after = BagMetadata::read_dir(&dir).unwrap();
    assert_eq!(after.relative_file_paths, before.relative_file_paths);
    assert_eq!(after.message_count, before.message_count);
    assert_eq!(after.files, before.files);
    assert_eq!(
        after.topics_with_message_count,
        before.topics_with_message_count
    );
    assert_eq!(read_all(&dir), written);
}

fn expect_err(path: &Path, what: impl Fn(&BagError) -> bool) -> String {
    let e = match Bag::open(path) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => e,
    };
    assert!(what(&e), "{e:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "one line: {text}");
    text
}

#[test]
fn bad_input_is_one_clear_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    write_bag(&good, 20, |_| {});
    let copy = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir(&d).unwrap();
        for f in ["metadata.yaml", "good_0.mcap"] {
            std::fs::copy(good.join(f), d.join(f)).unwrap();
        }
        d
    };
    // Missing bag.
    let t = expect_err(&tmp.path().join("nope"), |e| {
        matches!(e, BagError::NotFound { .. })
    });
    assert!(t.contains("nope"));
    // Unreadable metadata.yaml.
    let d = copy("badyaml");
    std::fs::write(
        d.join("metadata.yaml"),
        "rosbag2_bagfile_information: [unclosed",
    )
    .unwrap();
    assert!(
        expect_err(&d, |e| matches!(e, BagError::BadMetadata { .. }))
            .contains("badyaml/metadata.yaml")
    );
    // Unknown storage id.
    let d = copy("sqlite");
    let text = std::fs::read_to_string(d.join("metadata.yaml"))
        .unwrap()
        .replace("storage_identifier: mcap", "storage_identifier: sqlite3");
    std::fs::write(d.join("metadata.yaml"), text).unwrap();
    assert!(
        expect_err(&d, |e| matches!(e, BagError::UnsupportedStorage { .. })).contains("sqlite3")
    );
    // Truncated MCAP.
    let d = copy("trunc");
    let b = std::fs::read(d.join("good_0.mcap")).unwrap();
    std::fs::write(d.join("good_0.mcap"), &b[..b.len() / 2]).unwrap();
    assert!(
        expect_err(&d, |e| matches!(e, BagError::Truncated { .. })).contains("trunc/good_0.mcap")
    );
    // Not MCAP at all.
    let d = copy("garbage");
    std::fs::write(d.join("good_0.mcap"), b"PK\x03\x04 this is a zip").unwrap();
    expect_err(&d, |e| matches!(e, BagError::NotMcap { .. }));
    // A schema that does not match its topic's type.
    let d = copy("mismatch");
    let text = std::fs::read_to_string(d.join("metadata.yaml"))
        .unwrap()
        .replace(
            "type: geometry_msgs/msg/PointStamped",
            "type: nav_msgs/msg/Path",
        );
    std::fs::write(d.join("metadata.yaml"), text).unwrap();
    let t = expect_err(&d, |e| matches!(e, BagError::SchemaMismatch { .. }));
    assert!(
        t.contains("/b")
            && t.contains("nav_msgs/msg/Path")
            && t.contains("geometry_msgs/msg/PointStamped"),
        "{t}"
    );
    // A flipped byte inside a chunk: CRC.
    let d = copy("flip");
    let mut b = std::fs::read(d.join("good_0.mcap")).unwrap();
    let chunk = b.iter().position(|&x| x == op::CHUNK).unwrap();
    let at = chunk + 9 + 8 * 3 + 4 + 4 + 4 + 8 + 20;
    b[at] ^= 0xff;
    std::fs::write(d.join("good_0.mcap"), &b).unwrap();
    let bag = Bag::open(&d).unwrap();
    let first_err = bag
        .messages()
        .find_map(|m| m.err())
        .expect("damage is reported");
    assert!(
        first_err.to_string().contains("flip/good_0.mcap"),
        "{first_err}"
    );
    // Recording over an existing folder.
    assert!(matches!(
        Recorder::create(RecorderOptions::new(&good)),
        Err(BagError::AlreadyExists { .. })
    ));
}

#[test]
fn bare_mcap_file_and_v8_metadata_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    let written = write_bag(&dir, 30, |_| {});
    // A bare .mcap: metadata from its summary and rosbag2 record.
    let info = BagInfo::read(dir.join("v_0.mcap")).unwrap();
    assert_eq!(info.metadata.message_count, 31);
    assert_eq!(info.metadata.ros_distro, "jazzy");
    assert_eq!(info.metadata.topics_with_message_count.len(), 3);
    assert_eq!(read_all(&dir.join("v_0.mcap")), written);
    // metadata.yaml v8 (QoS as YAML text with integers) reads the same.
    let mut m = BagMetadata::read_dir(&dir).unwrap();
    m.version = 8;
    m.write_dir(&dir).unwrap();
    let bag = Bag::open(&dir).unwrap();
    assert_eq!(bag.metadata().version, 8);
    assert_eq!(
        bag.topic("/map").unwrap().metadata.offered_qos_profiles[0].durability,
        Durability::TransientLocal
    );
    // info's text is the ros2 bag info layout.
    let text = BagInfo::read(&dir).unwrap().render_with(|_| 0);
    assert!(text.contains("Messages:          31\n"), "{text}");
    assert!(text.contains("Topic information: Topic: /map | Type: std_msgs/msg/String | Count: 1 | Serialization Format: cdr\n"));
}

#[test]
fn player_plays_a_bag_in_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let written = write_bag(&dir, 50, |_| {});
    let bag = Bag::open(&dir).unwrap();
    let opts = PlayOptions {
        rate: 10.0,
        remap: vec![("/a".into(), "/aa".into())],
        ..Default::default()
    };
    let mut p = Player::new(
        BagSource::new(&bag),
        bag.metadata().starting_time_ns,
        opts,
        0,
    )
    .unwrap();
    let mut now = 0;
    let mut got = Vec::new();
    loop {
        match p.poll(now).unwrap() {
            Step::Publish(m) => got.push((now, m.topic.to_string(), m.log_time)),
            Step::Wait { until_ns } => now = until_ns,
            Step::Finished => break,
            Step::Paused => unreachable!(),
        }
    }
    assert_eq!(got.len(), written.len());
    for ((now, topic, t), (wt, wtime, _)) in got.iter().zip(&written) {
        assert_eq!(*t, *wtime);
        assert_eq!(*now, (t - T0) / 10, "due at bag time / rate");
        assert_eq!(topic, if wt == "/a" { "/aa" } else { wt });
    }
}

#[test]
fn tick_flushes_each_second_and_rewrites_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    let mut o = RecorderOptions::new(&dir);
    o.sync = false;
    let mut rec = Recorder::create(o).unwrap();
    let a = rec
        .add_topic(spec("/a", "std_msgs/msg/String", Qos::default()))
        .unwrap();
    let size = || std::fs::metadata(dir.join("t_0.mcap")).unwrap().len();
    rec.tick(0).unwrap();
    rec.write(a, T0, 0, &payload(1)).unwrap();
    let before = size();
    rec.tick(999 * MS).unwrap();
    assert_eq!(size(), before, "nothing due before a second");
    rec.tick(1000 * MS).unwrap();
    assert!(size() > before, "the chunk was written at 1 s");
    assert_eq!(BagMetadata::read_dir(&dir).unwrap().message_count, 0);
    rec.tick(5000 * MS).unwrap();
    assert_eq!(
        BagMetadata::read_dir(&dir).unwrap().message_count,
        1,
        "metadata.yaml at 5 s"
    );
    rec.finish().unwrap();
}

/// Every layout the MCAP writer options choose (rosbag2's `fastwrite` preset and each
/// `no…` option alone, then all together) reads back exactly, in log-time order.
#[test]
fn every_writer_layout_reads_back_exactly() {
    use arnie_bag::mcap::Layout;
    let full = Layout::default();
    let fastwrite = Layout {
        chunked: false,
        summary_crc: false,
        ..full
    };
    let mut layouts = vec![("fastwrite", fastwrite)];
    type Leave = fn(&mut Layout);
    let flags: [(&str, Leave); 11] = [
        ("noChunking", |l| l.chunked = false),
        ("noMessageIndex", |l| l.message_indexes = false),
        ("noSummary", |l| l.summary = false),
        ("noRepeatedSchemas", |l| l.repeated_schemas = false),
        ("noRepeatedChannels", |l| l.repeated_channels = false),
        ("noStatistics", |l| l.statistics = false),
        ("noChunkIndex", |l| l.chunk_indexes = false),
        ("noMetadataIndex", |l| l.metadata_indexes = false),
        ("noSummaryOffsets", |l| l.summary_offsets = false),
        ("noSummaryCRC", |l| l.summary_crc = false),
        ("enableDataCRC", |l| l.data_crc = true),
    ];
    let mut nothing = full;
    for (name, set) in flags {
        let mut l = full;
        set(&mut l);
        set(&mut nothing);
        layouts.push((name, l));
    }
    layouts.push(("all", nothing));
    for (name, layout) in layouts {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let written = write_bag(&dir, 300, |o| {
            o.layout = layout;
            o.chunk_size = 2048;
        });
        assert_eq!(read_all(&dir), written, "{name}");
        let bag = Bag::open(&dir).unwrap();
        assert_eq!(bag.topic("/a").unwrap().message_count, 150, "{name}");
        let bytes = std::fs::read(dir.join("run_0.mcap")).unwrap();
        let records: Vec<(usize, u8, &[u8])> =
            arnie_bag::mcap::records::iter_records(&bytes[8..bytes.len() - 8])
                .map(|r| r.unwrap())
                .collect();
        let count = |opcode| records.iter().filter(|r| r.1 == opcode).count();
        assert_eq!(count(op::CHUNK) > 0, layout.chunked, "{name}");
        assert_eq!(
            count(op::MESSAGE_INDEX) > 0,
            layout.chunked && layout.message_indexes,
            "{name}"
        );
        assert_eq!(
            count(op::STATISTICS) > 0,
            layout.summary && layout.statistics,
            "{name}"
        );
        // The DataEnd CRC covers every byte before it, the magic included.
        let (at, _, body) = records.iter().find(|r| r.1 == op::DATA_END).unwrap();
        let crc = u32::from_le_bytes(body[..4].try_into().unwrap());
        let want = if layout.data_crc {
            crc32fast::hash(&bytes[..8 + at])
        } else {
            0
        };
        assert_eq!(crc, want, "{name}");
    }
}

/// An unchunked file whose messages are not in log-time order (two clocks, as a
/// recorder may see them) is read in log-time order, ties in file order, and a cut-off
/// unchunked file is recovered up to its last complete message.
#[test]
fn unchunked_files_read_in_time_order_and_recover_when_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("late");
    let mut o = RecorderOptions::new(&dir);
    o.sync = false;
    o.layout.chunked = false;
    let mut rec = Recorder::create(o).unwrap();
    let a = rec
        .add_topic(spec("/a", "std_msgs/msg/String", Qos::default()))
        .unwrap();
    // Log times 50, 30, 80, 60, 110, 90, ... ms: each odd message 35 ms behind its turn.
    let times: Vec<u64> = (0..200u64)
        .map(|i| if i % 2 == 0 { 50 + i * 15 } else { 15 + i * 15 })
        .map(|ms| T0 + ms * MS)
        .collect();
    for (i, t) in times.iter().enumerate() {
        rec.write(a, *t, 0, &payload(i as u64)).unwrap();
    }
    rec.finish().unwrap();
    let got: Vec<u64> = read_all(&dir).iter().map(|m| m.1).collect();
    let mut want = times.clone();
    want.sort();
    assert_eq!(got, want);

    let bytes = std::fs::read(dir.join("late_0.mcap")).unwrap();
    let cut = tmp.path().join("cut");
    std::fs::create_dir(&cut).unwrap();
    std::fs::write(cut.join("cut_0.mcap"), &bytes[..bytes.len() / 2]).unwrap();
    reindex(&cut).unwrap();
    let got = read_all(&cut);
    assert!(got.len() > 50 && got.len() < 200, "{}", got.len());
    let mut prefix: Vec<u64> = times[..got.len()].to_vec();
    prefix.sort();
    assert_eq!(got.iter().map(|m| m.1).collect::<Vec<_>>(), prefix);
}
