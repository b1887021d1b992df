//! The exit watchdog in a real process: this test binary runs itself again as the child,
//! which arms the watchdog, "stops" and then hangs as a stuck middleware teardown would.
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use node_glue::exit::{spawn_watchdog, ExitCode};

const CHILD: &str = "NODE_GLUE_EXIT_WATCHDOG_CHILD";
const TEST: &str = "a_stuck_teardown_still_ends_the_process_with_its_exit_code";

fn child() -> ! {
    let stopping = Arc::new(AtomicBool::new(false));
    let code = ExitCode::default();
    let flag = stopping.clone();
    spawn_watchdog(
        "child",
        move || flag.load(Ordering::SeqCst),
        code.clone(),
        Duration::from_millis(300),
    )
    .expect("watchdog thread");
    // Running: the watchdog must not fire before the stop, however long that takes.
    std::thread::sleep(Duration::from_millis(800));
    code.set(7);
    stopping.store(true, Ordering::SeqCst);
    // The stuck teardown: never returns by itself.
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

#[test]
fn a_stuck_teardown_still_ends_the_process_with_its_exit_code() {
    if std::env::var_os(CHILD).is_some() {
        child();
    }
    let mut proc = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A guard against a hang of this test, not a speed check.
    let guard = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = proc.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > guard {
            let _ = proc.kill();
            panic!("the child never ended: the watchdog did not fire");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(proc.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(7), "{stderr}");
    assert!(
        stderr.contains("child: the teardown did not finish within 0.3 s of the stop")
            && stderr.contains("exit code 7"),
        "{stderr}"
    );
}
