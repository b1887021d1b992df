//! Writes a small, deterministic bag with the library (no ROS needed): the Python
//! cross-checks in `test/bags/test_bag_files.py` read it with `rosbags` and `mcap`.
//!
//! `write_sample OUT_DIR [--compression none|zstd|lz4] [--max-bag-size BYTES]
//! [--messages N] [--flush-every N] [--hang-after N]`
//!
//! Topics: `/pose` (geometry_msgs/msg/PoseStamped), `/chatter` (std_msgs/msg/String),
//! `/brain/state` (arnie_interfaces/msg/BrainState, when the install has it) and the
//! latched `/map_info` (std_msgs/msg/String, transient-local). Schemas come from
//! `AMENT_PREFIX_PATH` as rosbag2 builds them. Message i is received at
//! 1_700_000_000 s + i * 10 ms. `--hang-after N`: after N loop steps (flushing every
//! `--flush-every`), print `written N` and sleep, for the test to `kill -9` it.

use std::process::ExitCode;

use arnie_bag::qos::{Durability, Qos, Reliability};
use arnie_bag::{Compression, DefinitionSource, Recorder, RecorderOptions, TopicSpec};

const T0: u64 = 1_700_000_000_000_000_000;

/// CDR (little endian, with the 4-byte encapsulation header) helpers.
struct Cdr(Vec<u8>);
impl Cdr {
    fn new() -> Self {
        Cdr(vec![0, 1, 0, 0])
    }
    fn align(&mut self, n: usize) {
        while !(self.0.len() - 4).is_multiple_of(n) {
            self.0.push(0);
        }
    }
    fn u32(&mut self, v: u32) {
        self.align(4);
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.u32(v as u32);
    }
    fn u64(&mut self, v: u64) {
        self.align(8);
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn string(&mut self, s: &str) {
        self.u32(s.len() as u32 + 1);
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn bool(&mut self, b: bool) {
        self.u8(u8::from(b));
    }
    fn header(&mut self, t_ns: u64, frame: &str) {
        self.i32((t_ns / 1_000_000_000) as i32);
        self.u32((t_ns % 1_000_000_000) as u32);
        self.string(frame);
    }
}

fn pose(i: u64, t: u64) -> Vec<u8> {
    let mut c = Cdr::new();
    c.header(t, "world");
    for v in [i as f64 * 0.001, 0.5, -0.25, 0.0, 0.0, 0.0, 1.0] {
        c.f64(v);
    }
    c.0
}

fn string(s: &str) -> Vec<u8> {
    let mut c = Cdr::new();
    c.string(s);
    c.0
}

fn brain_state(i: u64, t: u64) -> Vec<u8> {
    let mut c = Cdr::new();
    c.header(t, "world");
    c.string("flame_passing");
    c.u64(i);
    c.u32(0); // active[]
    c.u32(0); // variables[]
    c.string("");
    c.u32(1); // events[]: one BrainEvent, kind IDLE (9), text "tick i"
    c.u8(9); // kind: IDLE
    c.u8(0); // cause
    c.string(""); // action
    c.u32(0); // index
    c.string(""); // next
    c.u64(0); // delay (int64)
    c.u64(0); // count
    c.bool(false); // retry
    c.bool(false); // has_target
    for _ in 0..3 {
        c.f64(0.0);
    }
    c.bool(false); // has_arm
    for _ in 0..3 {
        c.f64(0.0);
    }
    c.string(""); // detail
    c.string(&format!("tick {i}")); // text
    c.bool(true);
    c.f64(0.1);
    c.f64(0.2);
    c.f64(0.3);
    c.bool(false);
    c.0
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("write_sample: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args
        .first()
        .ok_or("usage: write_sample OUT_DIR [options]")?;
    let mut opts = RecorderOptions::new(out);
    opts.ros_distro = "jazzy".into();
    opts.sync = false;
    let (mut n, mut flush_every, mut hang_after) = (200u64, 0u64, None);
    let mut i = 1;
    while i < args.len() {
        let v = args.get(i + 1).ok_or("option without value")?;
        match args[i].as_str() {
            "--compression" => opts.compression = v.parse::<Compression>()?,
            "--max-bag-size" => opts.max_bag_size = v.parse()?,
            "--messages" => n = v.parse()?,
            "--flush-every" => flush_every = v.parse()?,
            "--hang-after" => hang_after = Some(v.parse::<u64>()?),
            o => return Err(format!("unknown option {o}").into()),
        }
        i += 2;
    }
    let mut defs = DefinitionSource::from_env();
    let sensor = Qos {
        reliability: Reliability::BestEffort,
        depth: 5,
        ..Qos::default()
    };
    let latched = Qos {
        durability: Durability::TransientLocal,
        depth: 1,
        ..Qos::default()
    };
    let mut rec = Recorder::create(opts)?;
    let mut add = |rec: &mut Recorder,
                   name: &str,
                   ty: &str,
                   qos: Qos|
     -> Result<_, Box<dyn std::error::Error>> {
        let (spec, err) = TopicSpec::resolve(name, ty, vec![qos], &mut defs);
        match err {
            Some(e) => Err(e.into()),
            None => Ok(rec.add_topic(spec)?),
        }
    };
    let map = add(&mut rec, "/map_info", "std_msgs/msg/String", latched)?;
    let pose_id = add(&mut rec, "/pose", "geometry_msgs/msg/PoseStamped", sensor)?;
    let chatter = add(&mut rec, "/chatter", "std_msgs/msg/String", Qos::default())?;
    let brain = add(
        &mut rec,
        "/brain/state",
        "arnie_interfaces/msg/BrainState",
        Qos::default(),
    )
    .ok();
    rec.write(map, T0, T0, &string("map v1"))?;
    for k in 0..n {
        let t = T0 + k * 10_000_000;
        rec.write(pose_id, t, t - 1_000, &pose(k, t))?;
        if k % 2 == 0 {
            rec.write(chatter, t + 1, 0, &string(&format!("hello {k}")))?;
        }
        if let Some(b) = brain.filter(|_| k % 10 == 0) {
            rec.write(b, t + 2, 0, &brain_state(k, t))?;
        }
        if flush_every > 0 && (k + 1) % flush_every == 0 {
            rec.flush()?;
        }
        if hang_after == Some(k + 1) {
            use std::io::Write;
            println!("written {}", k + 1);
            std::io::stdout().flush()?;
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
    }
    println!("{}", rec.finish()?);
    Ok(())
}
