//! The command line's parsing, flag by flag.
use std::path::PathBuf;

use super::*;
use crate::mcap::Compression;

#[test]
fn default_output_is_rosbag2s_folder_name_in_local_time() {
    assert_eq!(
        default_output(1_795_433_420, 0),
        "rosbag2_2026_11_23-11_30_20"
    );
    assert_eq!(
        default_output(951_782_400, 7_200),
        "rosbag2_2000_02_29-02_00_00"
    );
    assert_eq!(default_output(0, -3_600), "rosbag2_1969_12_31-23_00_00");
}

fn p(s: &str) -> Result<Command, clap::Error> {
    let w: Vec<String> = s.split_whitespace().map(str::to_string).collect();
    parse(&w, 1_700_000_000, 0)
}

#[test]
fn record_flags() {
    let Command::Record(r) = p("record arm/position --topics /b /c -e ^/d -b 2048 -d 10 --compression lz4 -x cmd --custom-data a=1 b=2").unwrap() else { panic!() };
    assert_eq!(r.recorder.max_bag_size, 2048);
    assert_eq!(r.recorder.max_bag_duration_ns, 10_000_000_000);
    assert_eq!(r.recorder.compression, Compression::Lz4);
    assert_eq!(r.recorder.dir, PathBuf::from("rosbag2_2023_11_14-22_13_20"));
    assert_eq!(r.recorder.custom_data.len(), 2);
    assert!(r.filter.take("/arm/position", &["T".into()]).is_ok());
    assert!(r.filter.take("/c", &["T".into()]).is_ok());
    assert!(p("record").is_err());
    assert!(p("record -a -b 10").is_err());
    assert!(p("record -a --compression gzip").is_err());
    assert!(p("record -e (").is_err());
    // ros2 bag record's refusals: an exclusion needs something broad to exclude from.
    assert!(p("record /a -x cmd").is_err());
    assert!(p("record /a --exclude-topics /a").is_err());
    assert!(p("record --all-topics --exclude-services /s").is_err());
    let Command::Record(r) = p("record -a --snapshot-mode --max-cache-size 500").unwrap() else {
        panic!()
    };
    assert_eq!(r.snapshot_cache, Some(500));
    assert!(p("record -a --snapshot-mode --max-cache-size 0").is_err());
    assert!(matches!(p("record -a").unwrap(), Command::Record(r) if r.snapshot_cache.is_none()));
}

#[test]
fn storage_presets_and_config_files() {
    let Command::Record(r) = p("record -a --storage-preset-profile zstd_small").unwrap() else {
        panic!()
    };
    assert_eq!(
        (r.recorder.compression, r.recorder.zstd_level),
        (Compression::Zstd, 19)
    );
    let Command::Record(r) = p("record -a --storage-preset-profile none").unwrap() else {
        panic!()
    };
    assert_eq!(
        (r.recorder.compression, r.recorder.chunk_crc),
        (Compression::None, false)
    );
    let Command::Record(r) = p("record -a --storage-preset-profile fastwrite").unwrap() else {
        panic!()
    };
    assert!(!r.recorder.layout.chunked && !r.recorder.layout.summary_crc);
    assert!(p("record -a --storage-preset-profile zstd_fast --compression lz4").is_err());
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("w.yaml");
    std::fs::write(&f, "compression: Lz4\nchunkSize: 2048\n").unwrap();
    let Command::Record(r) = p(&format!(
        "record -a --storage-preset-profile zstd_fast --storage-config-file {}",
        f.display()
    ))
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        (r.recorder.compression, r.recorder.chunk_size),
        (Compression::Lz4, 2048)
    );
    std::fs::write(&f, "noSummary: yes please\n").unwrap();
    let e = p(&format!("record -a --storage-config-file {}", f.display()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("noSummary"), "{e}");
    assert!(p("record -a --storage-config-file /no/such/file.yaml").is_err());
}

#[test]
fn all_means_topics_and_services() {
    let take = |cmd: &str, topic: &str, ty: &str| match p(cmd).unwrap() {
        Command::Record(r) => r.filter.take(topic, &[ty.into()]).is_ok(),
        _ => panic!(),
    };
    let ev = "lifecycle_msgs/srv/GetState_Event";
    assert!(take("record -a", "/get/_service_event", ev));
    assert!(take("record -a", "/t", "T"));
    assert!(!take("record --all-topics", "/get/_service_event", ev));
    assert!(take("record --all-services", "/get/_service_event", ev));
    assert!(!take("record --all-services", "/t", "T"));
    assert!(take("record --services get", "/get/_service_event", ev));
    assert!(!take(
        "record -a --exclude-services /get",
        "/get/_service_event",
        ev
    ));
    assert!(take("record --topic-types T", "/t", "T"));
    assert!(!take("record -a --exclude-topic-types T", "/t", "T"));
}

#[test]
fn storage_mcap_is_taken_and_any_other_refused_with_the_reason() {
    assert!(matches!(p("record -a -s mcap"), Ok(Command::Record(_))));
    assert!(matches!(
        p("record -a --storage mcap"),
        Ok(Command::Record(_))
    ));
    assert!(matches!(p("play bag -s mcap"), Ok(Command::Play(_))));
    let e = p("record -a -s sqlite3").unwrap_err().to_string();
    assert!(e.contains("sqlite3") && e.contains("MCAP"), "{e}");
}

#[test]
fn play_flags() {
    let Command::Play(pl) =
        p("play bag -r 2 -l --remap a:=b /c:=/d --clock --start-offset 1.5 -d 0.25 -p").unwrap()
    else {
        panic!()
    };
    let o = pl.options;
    assert_eq!(
        (
            o.rate,
            o.loop_playback,
            o.clock_hz,
            o.start_offset_ns,
            o.delay_ns,
            o.start_paused
        ),
        (2.0, true, Some(40.0), 1_500_000_000, 250_000_000, true)
    );
    assert_eq!(
        o.remap,
        vec![("/a".into(), "/b".into()), ("/c".into(), "/d".into())]
    );
    let Command::Play(pl) = p("play bag -e /arm/.* -x .*command --exclude-topics y").unwrap()
    else {
        panic!()
    };
    let o = pl.options;
    assert!(o.plays("/arm/position") && !o.plays("/arm/command") && !o.plays("/y"));
    assert!(!o.plays("/eyes/observations"));
    // Service events go by --services / --exclude-services, as in rosbag2's storage.
    let Command::Play(pl) = p("play bag --topics /t --exclude-services s").unwrap() else {
        panic!()
    };
    let o = pl.options;
    assert!(o.plays("/t") && !o.plays("/u"));
    assert!(o.plays("/g/_service_event") && !o.plays("/s/_service_event"));
    let Command::Play(pl) = p("play bag --services /g").unwrap() else {
        panic!()
    };
    let o = pl.options;
    assert!(o.plays("/t") && o.plays("/g/_service_event") && !o.plays("/h/_service_event"));
    assert_eq!(pl.service_requests, None);
    let Command::Play(pl) = p("play bag --publish-service-requests").unwrap() else {
        panic!()
    };
    assert_eq!(pl.service_requests, Some(RequestSource::Service));
    let Command::Play(pl) =
        p("play bag --publish-service-requests --service-requests-source client_introspection")
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(pl.service_requests, Some(RequestSource::Client));
    let e = p("play bag --service-requests-source both")
        .unwrap_err()
        .to_string();
    assert!(e.contains("client_introspection"), "{e}");
    let Command::Play(pl) = p("play bag --clock 100 --topics x").unwrap() else {
        panic!()
    };
    assert_eq!(
        (pl.options.clock_hz, pl.options.topics),
        (Some(100.0), vec!["/x".to_string()])
    );
    for bad in [
        "play",
        "play bag -r 0",
        "play bag -r x",
        "play bag --remap a",
        "play bag --clock -1",
        "play a b",
        "play bag --start-offset -1",
        "play bag -e (",
        "play bag --exclude-regex",
    ] {
        assert!(p(bad).is_err(), "{bad}");
    }
}

#[test]
fn other_commands() {
    assert!(matches!(
        p("info b --json").unwrap(),
        Command::Info { json: true, .. }
    ));
    assert!(matches!(p("reindex b").unwrap(), Command::Reindex { .. }));
    assert!(matches!(
        p("rewrite a b --compression none").unwrap(),
        Command::Rewrite(_)
    ));
    assert!(p("rewrite a").is_err());
    assert!(p("frobnicate").is_err());
    assert!(matches!(p("").unwrap(), Command::Help));
}
