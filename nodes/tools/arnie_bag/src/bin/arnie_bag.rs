//! `arnie_bag`: record, play, inspect and repair rosbag2 bags (MCAP storage).
//! `info`, `reindex` and `rewrite` need no ROS; `record` and `play` go through r2r.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use arnie_bag::cli::{self, Command};
use arnie_bag::{Bag, BagInfo};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let cmd = match cli::parse(&args, now, arnie_bag::info::local_utc_offset(now)) {
        Ok(c) => c,
        // A usage error (stderr, status 2) or the help asked for (stdout, status 0).
        Err(e) => e.exit(),
    };
    let result = match cmd {
        Command::Help => {
            println!("{}", cli::help());
            Ok(())
        }
        Command::Info {
            bag,
            json,
            topic_names,
        } => BagInfo::read(&bag).map(|info| {
            if json {
                println!("{:#}", info.to_json());
            } else if topic_names {
                for t in &info.metadata.topics_with_message_count {
                    println!("{}", t.topic_metadata.name);
                }
            } else {
                println!("{}", info.render());
            }
        }),
        Command::Reindex { bag } => arnie_bag::reindex::reindex(&bag).map(|r| println!("{r}")),
        Command::Rewrite(r) => Bag::open(&r.bag)
            .and_then(|bag| arnie_bag::recorder::rewrite(&bag, r.output, &r.play))
            .map(|report| println!("{report}")),
        #[cfg(feature = "ros")]
        Command::Record(r) => return ExitCode::from(arnie_bag::ros::record(r)),
        #[cfg(feature = "ros")]
        Command::Play(p) => return ExitCode::from(arnie_bag::ros::play(p)),
        #[cfg(not(feature = "ros"))]
        Command::Record(_) | Command::Play(_) => {
            eprintln!("arnie_bag: record and play need the ROS 2 glue: build with feature `ros`");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arnie_bag: {e}");
            ExitCode::FAILURE
        }
    }
}
