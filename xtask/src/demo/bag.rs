//! The demo records its run: `arnie_bag record --all -o out/demo_bag` beside the stack
//! (an earlier `out/demo_bag` is replaced), stopped with SIGINT after the stack so the bag
//! is finished cleanly; then `arnie_bag info` of it and the commands that replay it into a
//! lone brain on sim time.
use crate::env::{Layout, Ros};
use crate::run::{self, Failure};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// The recorder of a demo run.
pub struct Recorder {
    child: Child,
    bag: PathBuf,
    bin: PathBuf,
}

fn arnie_bag(layout: &Layout) -> PathBuf {
    layout.target.join("debug").join("arnie_bag")
}

/// Starts recording every topic of the demo's graph (`env`: its domain) into `out/demo_bag`.
pub fn start(
    layout: &Layout,
    ros: &Ros,
    out_dir: &Path,
    env: &[(String, String)],
) -> Result<Recorder, Failure> {
    let bag = out_dir.join("demo_bag");
    if bag.exists() {
        std::fs::remove_dir_all(&bag)
            .map_err(|e| Failure::new(format!("cannot replace {}: {e}", bag.display())))?;
    }
    let bin = arnie_bag(layout);
    let log = std::fs::File::create(out_dir.join("demo_bag.log"))?;
    let mut c = run::command(layout, ros, &bin.to_string_lossy());
    c.args(["record", "--all", "-o"])
        .arg(&bag)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(log.try_clone()?)
        .stderr(log);
    let child = c
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start {}: {e}", bin.display())))?;
    eprintln!("xtask: demo: recording the run to {}", bag.display());
    Ok(Recorder { child, bag, bin })
}

impl Recorder {
    /// Stops the recorder (SIGINT: it finishes the bag), prints `arnie_bag info` of the
    /// bag and how to replay it. `task`: the task file the demo ran. Never fails the demo:
    /// a problem is printed.
    pub fn finish(mut self, layout: &Layout, ros: &Ros, task: &str) {
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
            }
        };
        if !status.is_some_and(|s| s.success()) {
            eprintln!(
                "xtask: demo: the recorder did not stop cleanly ({status:?}); see out/demo_bag.log"
            );
        }
        let info = run::command(layout, ros, &self.bin.to_string_lossy())
            .arg("info")
            .arg(&self.bag)
            .output();
        match info {
            Ok(o) if o.status.success() => eprintln!(
                "xtask: demo: the run's bag:\n{}",
                String::from_utf8_lossy(&o.stdout).trim_end()
            ),
            Ok(o) => eprintln!(
                "xtask: demo: arnie_bag info failed: {}",
                String::from_utf8_lossy(&o.stderr).trim_end()
            ),
            Err(e) => eprintln!("xtask: demo: cannot run arnie_bag info: {e}"),
        }
        let brain = layout.target.join("debug").join("brain");
        let params = layout.root.join("params").join("brain.yaml");
        eprintln!(
            "xtask: demo: replay it into a lone brain on sim time, 4x faster (a `cargo xtask env` shell each):\n  \
             {} --ros-args --params-file {} -p use_sim_time:=true -p autostart:=true -p instructions_file:={task} \
             -p tick_period_s:=2.0 -p command_mode:=topic\n  \
             {} play {} --clock 100 -r 4 --topics /arm/position /eyes/observations",
            brain.display(),
            params.display(),
            self.bin.display(),
            self.bag.display(),
        );
    }
}
