//! The `arnie_bag` command line, parsed in two stages: the words as typed, then checked
//! options ([`RecorderOptions`], [`TopicFilter`], [`PlayOptions`]) so the binary has no
//! string left to interpret. Flags follow `ros2 bag` (Jazzy) where it has them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::error::{BagError, Result};
use crate::filter::TopicFilter;
use crate::mcap::Compression;
use crate::player::{PlayOptions, TopicRegex};
use crate::recorder::RecorderOptions;

/// The usage text.
pub const USAGE: &str = "usage: arnie_bag <record|play|info|reindex|rewrite> ...

  record [TOPIC ...] [--topics T ...] [-a|--all] [-e|--regex RE] [-x|--exclude-regex RE]
         [--exclude-topics T ...] [--include-hidden-topics] [-o|--output DIR]
         [-b|--max-bag-size BYTES] [-d|--max-bag-duration SECONDS]
         [--compression none|zstd|lz4] [--start-paused] [-p|--polling-interval MS]
         [--custom-data KEY=VALUE ...] [--no-fsync]
  play BAG [-r|--rate R] [-l|--loop] [--topics T ...] [-e|--regex RE]
         [-x|--exclude-regex RE] [--exclude-topics T ...]
         [-m|--remap OLD:=NEW ...] [--start-offset S] [--playback-duration S] [-d|--delay S]
         [-p|--start-paused] [--clock [HZ]] [--disable-keyboard-controls]
         [--wait-for-subscribers]
  info BAG [--json] [-t|--topic-name]
  reindex BAG
  rewrite BAG OUTPUT [--compression none|zstd|lz4] [-b BYTES] [-d SECONDS]
         [--topics T ...] [-e|--regex RE] [-x|--exclude-regex RE] [--exclude-topics T ...]

BAG is a bag folder (metadata.yaml + MCAP files) or a single .mcap file.
record's regexes search the name (as ros2 bag record); play's and rewrite's must match
the whole name (as ros2 bag play: -e '/arm/.*').
While playing: SPACE pause/resume, RIGHT next message, UP/DOWN rate +/- 0.1, q quit.";

/// `record`, checked.
#[derive(Debug, Clone)]
pub struct RecordArgs {
    /// Where and how to write the bag.
    pub recorder: RecorderOptions,
    /// Which topics to record (`--all`, names, `-e` regex, `-x` exclude).
    pub filter: TopicFilter,
    /// Start paused (`--start-paused`): nothing is written until resumed.
    pub start_paused: bool,
    /// How often to look for new topics (rosbag2's `--polling-interval`, 100 ms).
    pub polling_interval_ms: u64,
}

/// `play`, checked.
#[derive(Debug, Clone)]
pub struct PlayArgs {
    /// The bag folder (or bare `.mcap` file) to play.
    pub bag: PathBuf,
    /// Rate, loop, clock, topics, remaps, start offset, delay.
    pub options: PlayOptions,
    /// Read keys from the terminal (SPACE, arrows, q) while playing.
    pub keyboard: bool,
    /// Before playing, wait until every publisher has at least one subscription
    /// (`--wait-for-subscribers`, our addition: nothing is published into the void).
    pub wait_for_subscribers: bool,
}

/// `rewrite`, checked.
#[derive(Debug, Clone)]
pub struct RewriteArgs {
    /// The bag to read.
    pub bag: PathBuf,
    /// Where and how to write the new bag.
    pub output: RecorderOptions,
    /// Which messages to copy (topics, start offset).
    pub play: PlayOptions,
}

/// A command to run.
#[derive(Debug, Clone)]
pub enum Command {
    /// `record`: subscribe and write a bag.
    Record(RecordArgs),
    /// `play`: publish a bag's messages on their topics.
    Play(PlayArgs),
    /// `info`: print what a bag holds.
    Info {
        /// The bag folder or file.
        bag: PathBuf,
        /// Print JSON instead of rosbag2's text (`--json`).
        json: bool,
        /// Print only the topic names (`--topic-name`).
        topic_names: bool,
    },
    /// `reindex`: rebuild `metadata.yaml` (and repair cut-off files) from the MCAP files.
    Reindex {
        /// The bag folder.
        bag: PathBuf,
    },
    /// `rewrite`: copy a bag, filtered, into a new one.
    Rewrite(RewriteArgs),
    /// `help` / `-h`: print the usage.
    Help,
}

struct Args {
    words: Vec<String>,
    pos: usize,
}

impl Args {
    fn next(&mut self) -> Option<String> {
        let w = self.words.get(self.pos).cloned();
        self.pos += 1;
        w
    }
    fn value(&mut self, flag: &str) -> Result<String> {
        match self.words.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.clone())
            }
            None => Err(BagError::option(flag, "needs a value")),
        }
    }
    /// Values up to the next word that starts with `-` (argparse's `nargs='+'`).
    fn values(&mut self, flag: &str, at_least_one: bool) -> Result<Vec<String>> {
        let mut out = Vec::new();
        while let Some(w) = self.words.get(self.pos) {
            if w.starts_with('-') && w.len() > 1 {
                break;
            }
            out.push(w.clone());
            self.pos += 1;
        }
        if at_least_one && out.is_empty() {
            return Err(BagError::option(flag, "needs at least one value"));
        }
        Ok(out)
    }
    fn optional_value(&mut self) -> Option<String> {
        match self.words.get(self.pos) {
            Some(w) if !w.starts_with('-') => {
                self.pos += 1;
                Some(w.clone())
            }
            _ => None,
        }
    }
}

fn seconds(flag: &str, v: &str, allow_zero: bool) -> Result<u64> {
    let s: f64 = v
        .parse()
        .map_err(|_| BagError::option(flag, format!("{v:?} is not a number of seconds")))?;
    if !s.is_finite() || s < 0.0 || (!allow_zero && s == 0.0) {
        return Err(BagError::option(
            flag,
            format!(
                "{v} must be {}",
                if allow_zero { "0 or more" } else { "positive" }
            ),
        ));
    }
    Ok((s * 1e9).round() as u64)
}

fn integer(flag: &str, v: &str) -> Result<u64> {
    v.parse()
        .map_err(|_| BagError::option(flag, format!("{v:?} is not a non-negative integer")))
}

/// `-s` / `--storage`: rosbag2's storage id. arnie_bag reads and writes MCAP (Jazzy's
/// default storage); any other id is refused with that reason.
fn storage(flag: &str, v: &str) -> Result<()> {
    if v == "mcap" {
        Ok(())
    } else {
        Err(BagError::option(
            flag,
            format!("storage {v:?} is not supported: arnie_bag reads and writes MCAP (\"mcap\", rosbag2's default in Jazzy) only"),
        ))
    }
}

fn compression(v: &str) -> Result<Compression> {
    v.parse()
        .map_err(|e: String| BagError::option("--compression", e))
}

/// A topic name as a node in `/` resolves it (`a/b` -> `/a/b`).
pub fn absolute(topic: &str) -> String {
    if topic.starts_with('/') {
        topic.to_string()
    } else {
        format!("/{topic}")
    }
}

/// rosbag2's default output folder: `rosbag2_YYYY_MM_DD-HH_MM_SS`, local time.
pub fn default_output(now_epoch_s: i64, utc_offset_s: i64) -> String {
    let local = now_epoch_s + utc_offset_s;
    let (y, m, d) = crate::info::civil_from_days(local.div_euclid(86_400));
    let sod = local.rem_euclid(86_400);
    format!(
        "rosbag2_{y:04}_{m:02}_{d:02}-{:02}_{:02}_{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    )
}

/// Parses the words after the program name. `now_epoch_s` and `utc_offset_s` name the
/// default output folder of `record`.
///
/// # Errors
/// [`BagError::BadOption`] naming the flag and what is wrong with it.
pub fn parse(words: &[String], now_epoch_s: i64, utc_offset_s: i64) -> Result<Command> {
    let mut a = Args {
        words: words.to_vec(),
        pos: 0,
    };
    let Some(cmd) = a.next() else {
        return Ok(Command::Help);
    };
    match cmd.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "record" => parse_record(&mut a, now_epoch_s, utc_offset_s),
        "play" => parse_play(&mut a),
        "info" => {
            let (mut bag, mut json, mut topic_names) = (None, false, false);
            while let Some(w) = a.next() {
                match w.as_str() {
                    "--json" => json = true,
                    "-t" | "--topic-name" => topic_names = true,
                    f if f.starts_with('-') => {
                        return Err(BagError::option(f, "unknown option of info"))
                    }
                    _ if bag.is_none() => bag = Some(PathBuf::from(w)),
                    _ => return Err(BagError::option(w, "info takes one bag")),
                }
            }
            let bag = bag.ok_or_else(|| BagError::option("info", "needs a bag path"))?;
            Ok(Command::Info {
                bag,
                json,
                topic_names,
            })
        }
        "reindex" => {
            let bag = a
                .next()
                .ok_or_else(|| BagError::option("reindex", "needs a bag folder"))?;
            if let Some(extra) = a.next() {
                return Err(BagError::option(extra, "reindex takes one bag folder"));
            }
            Ok(Command::Reindex { bag: bag.into() })
        }
        "rewrite" => parse_rewrite(&mut a),
        other => Err(BagError::option(
            other,
            "unknown command (record, play, info, reindex, rewrite)",
        )),
    }
}

fn parse_record(a: &mut Args, now: i64, offset: i64) -> Result<Command> {
    let mut topics = Vec::new();
    let (mut all, mut regex, mut exclude_regex, mut exclude, mut hidden) =
        (false, None, None, Vec::new(), false);
    let mut output = None;
    let mut opts = RecorderOptions::new(PathBuf::new());
    let (mut start_paused, mut polling) = (false, 100);
    let mut custom = BTreeMap::new();
    while let Some(w) = a.next() {
        match w.as_str() {
            "--topics" => topics.extend(a.values(&w, true)?),
            "-a" | "--all" | "--all-topics" => all = true,
            "-e" | "--regex" => regex = Some(a.value(&w)?),
            "-x" | "--exclude-regex" => exclude_regex = Some(a.value(&w)?),
            "--exclude-topics" => exclude.extend(a.values(&w, true)?),
            "--include-hidden-topics" => hidden = true,
            "-o" | "--output" => output = Some(a.value(&w)?),
            "-b" | "--max-bag-size" => {
                let v = integer(&w, &a.value(&w)?)?;
                if v != 0 && v < 1024 {
                    return Err(BagError::option(
                        w,
                        format!("{v} is below the minimum split size 1024 bytes"),
                    ));
                }
                opts.max_bag_size = v;
            }
            "-d" | "--max-bag-duration" => {
                opts.max_bag_duration_ns = integer(&w, &a.value(&w)?)? * 1_000_000_000
            }
            "--compression" => opts.compression = compression(&a.value(&w)?)?,
            "--start-paused" => start_paused = true,
            "-p" | "--polling-interval" => {
                polling = integer(&w, &a.value(&w)?)?;
                if polling == 0 {
                    return Err(BagError::option(w, "must be positive"));
                }
            }
            "--custom-data" => {
                for kv in a.values(&w, false)? {
                    let (k, v) = kv.split_once('=').ok_or_else(|| {
                        BagError::option("--custom-data", format!("{kv:?} is not KEY=VALUE"))
                    })?;
                    custom.insert(k.to_string(), v.to_string());
                }
            }
            "--no-fsync" => opts.sync = false,
            "-s" | "--storage" => storage(&w, &a.value(&w)?)?,
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(BagError::option(f, "unknown option of record"))
            }
            _ => topics.push(w),
        }
    }
    let topics: Vec<String> = topics.iter().map(|t| absolute(t)).collect();
    let exclude: Vec<String> = exclude.iter().map(|t| absolute(t)).collect();
    let filter = TopicFilter::new(
        all,
        topics,
        regex.as_deref(),
        exclude_regex.as_deref(),
        exclude,
        hidden,
    )?;
    if filter.selects_nothing() {
        return Err(BagError::option(
            "record",
            "no topics selected: name topics, or use --all or --regex",
        ));
    }
    opts.dir = PathBuf::from(output.unwrap_or_else(|| default_output(now, offset)));
    opts.custom_data = custom;
    Ok(Command::Record(RecordArgs {
        recorder: opts,
        filter,
        start_paused,
        polling_interval_ms: polling,
    }))
}

fn parse_play(a: &mut Args) -> Result<Command> {
    let mut bag = None;
    let mut o = PlayOptions::default();
    let mut keyboard = true;
    let mut wait_for_subscribers = false;
    while let Some(w) = a.next() {
        match w.as_str() {
            "-r" | "--rate" => {
                let v = a.value(&w)?;
                o.rate = v
                    .parse()
                    .ok()
                    .filter(|r: &f64| r.is_finite() && *r > 0.0)
                    .ok_or_else(|| {
                        BagError::option(&w, format!("{v:?} is not a positive number"))
                    })?;
            }
            "-l" | "--loop" => o.loop_playback = true,
            "-s" | "--storage" => storage(&w, &a.value(&w)?)?,
            "--topics" => o
                .topics
                .extend(a.values(&w, true)?.iter().map(|t| absolute(t))),
            "--exclude-topics" => o
                .exclude_topics
                .extend(a.values(&w, true)?.iter().map(|t| absolute(t))),
            "-e" | "--regex" => o.regex = Some(TopicRegex::new(&w, &a.value(&w)?)?),
            "-x" | "--exclude-regex" => o.exclude_regex = Some(TopicRegex::new(&w, &a.value(&w)?)?),
            "-m" | "--remap" => {
                for r in a.values(&w, true)? {
                    let (old, new) = r.split_once(":=").ok_or_else(|| {
                        BagError::option("--remap", format!("{r:?} is not OLD:=NEW"))
                    })?;
                    if old.is_empty() || new.is_empty() {
                        return Err(BagError::option(
                            "--remap",
                            format!("{r:?} is not OLD:=NEW"),
                        ));
                    }
                    o.remap.push((absolute(old), absolute(new)));
                }
            }
            "--start-offset" => o.start_offset_ns = seconds(&w, &a.value(&w)?, true)?,
            "--playback-duration" => {
                o.playback_duration_ns = Some(seconds(&w, &a.value(&w)?, true)?)
            }
            "-d" | "--delay" => o.delay_ns = seconds(&w, &a.value(&w)?, true)?,
            "-p" | "--start-paused" => o.start_paused = true,
            "--clock" => {
                let hz = match a.optional_value() {
                    Some(v) => v
                        .parse()
                        .ok()
                        .filter(|h: &f64| h.is_finite() && *h > 0.0)
                        .ok_or_else(|| {
                            BagError::option(
                                "--clock",
                                format!("{v:?} is not a positive rate in Hz"),
                            )
                        })?,
                    None => 40.0,
                };
                o.clock_hz = Some(hz);
            }
            "--disable-keyboard-controls" => keyboard = false,
            "--wait-for-subscribers" => wait_for_subscribers = true,
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(BagError::option(f, "unknown option of play"))
            }
            _ if bag.is_none() => bag = Some(PathBuf::from(w)),
            _ => return Err(BagError::option(w, "play takes one bag")),
        }
    }
    let bag = bag.ok_or_else(|| BagError::option("play", "needs a bag path"))?;
    Ok(Command::Play(PlayArgs {
        bag,
        options: o,
        keyboard,
        wait_for_subscribers,
    }))
}

fn parse_rewrite(a: &mut Args) -> Result<Command> {
    let mut paths = Vec::new();
    let mut out = RecorderOptions::new(PathBuf::new());
    let mut play = PlayOptions::default();
    while let Some(w) = a.next() {
        match w.as_str() {
            "--compression" => out.compression = compression(&a.value(&w)?)?,
            "-b" | "--max-bag-size" => out.max_bag_size = integer(&w, &a.value(&w)?)?,
            "-d" | "--max-bag-duration" => {
                out.max_bag_duration_ns = integer(&w, &a.value(&w)?)? * 1_000_000_000
            }
            "--topics" => play
                .topics
                .extend(a.values(&w, true)?.iter().map(|t| absolute(t))),
            "--exclude-topics" => play
                .exclude_topics
                .extend(a.values(&w, true)?.iter().map(|t| absolute(t))),
            "-e" | "--regex" => play.regex = Some(TopicRegex::new(&w, &a.value(&w)?)?),
            "-x" | "--exclude-regex" => {
                play.exclude_regex = Some(TopicRegex::new(&w, &a.value(&w)?)?)
            }
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(BagError::option(f, "unknown option of rewrite"))
            }
            _ => paths.push(PathBuf::from(w)),
        }
    }
    let [bag, output]: [PathBuf; 2] = paths
        .try_into()
        .map_err(|_| BagError::option("rewrite", "needs a bag and an output folder"))?;
    out.dir = output;
    Ok(Command::Rewrite(RewriteArgs {
        bag,
        output: out,
        play,
    }))
}

#[cfg(test)]
mod tests {

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

    use super::*;

    fn p(s: &str) -> Result<Command> {
        let w: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        parse(&w, 1_700_000_000, 0)
    }

    #[test]
    fn record_flags() {
        let Command::Record(r) = p("record arm/position --topics /b /c -b 2048 -d 10 --compression lz4 -x cmd --custom-data a=1 b=2").unwrap() else { panic!() };
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
            p("play bag -r 2 -l --remap a:=b /c:=/d --clock --start-offset 1.5 -d 0.25 -p")
                .unwrap()
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
}
