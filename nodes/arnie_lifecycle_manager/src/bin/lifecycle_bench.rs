//! `lifecycle_bench` (`cargo xtask bench lifecycle`): what managed nodes cost.
//!
//! 1. The lifecycle check per published message, on the spine's 1 kHz message
//!    (`geometry_msgs/PointStamped` on a real publisher, no subscriber): `publish` of an
//!    `r2r::Publisher` against the same through a `LifecyclePublisher` (active), rounds
//!    interleaved, the difference per message; and the check alone (`is_active`) and the
//!    inactive path (held back, counted). Goal: the check under 1 µs.
//! 2. Launch to all active, for both stacks: the launch file started (`ros2 launch` where
//!    installed, else the project's launcher), until `lifecycle_manager/is_active`
//!    answers true; median of `--runs` runs.
//!
//! Options: `--messages N` (per round, default 200000), `--rounds N` (default 5),
//! `--runs N` (launches per stack, default 3), `--no-launch`.
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use node_glue::lifecycle::{serve, Lifecycle, Plain};
use node_glue::r2r::{self, geometry_msgs::msg::PointStamped, std_srvs::srv::Trigger};
use node_glue::{qos, time, App};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    // A domain of its own, apart from the tests' (1..=100).
    let domain = 200 + std::process::id() % 30;
    std::env::set_var("ROS_DOMAIN_ID", domain.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    let mut app = match App::new("lifecycle_bench") {
        Ok(a) => a,
        Err(e) => {
            eprintln!("lifecycle_bench: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = per_message(&mut app) {
        eprintln!("lifecycle_bench: {e}");
        std::process::exit(2);
    }
    if !std::env::args().any(|a| a == "--no-launch") {
        launches(&mut app, domain);
    }
}

fn per_message(app: &mut App) -> Result<(), node_glue::Error> {
    let n = arg("--messages", 200_000);
    let rounds = arg("--rounds", 5);
    let lc = Lifecycle::new("/lifecycle_bench", false);
    let raw = app
        .node
        .create_publisher::<PointStamped>("bench/raw", qos::sensor())?;
    let gated = lc.publisher::<PointStamped>(&mut app.node, "bench/gated", qos::sensor())?;
    let idle = Lifecycle::new("/lifecycle_bench_idle", false);
    let held = idle.publisher::<PointStamped>(&mut app.node, "bench/held", qos::sensor())?;
    let server = serve(app, &lc, Box::new(Plain))?;
    server.self_start(app)?;
    assert!(lc.is_active());
    let msg = PointStamped {
        header: time::header("world"),
        ..Default::default()
    };
    let mut raw_ns = Vec::new();
    let mut gated_ns = Vec::new();
    let mut held_ns = Vec::new();
    let mut check_ns = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..n {
            let _ = raw.publish(&msg);
        }
        raw_ns.push(t.elapsed().as_nanos() as f64 / n as f64);
        let t = Instant::now();
        for _ in 0..n {
            let _ = gated.publish(&msg);
        }
        gated_ns.push(t.elapsed().as_nanos() as f64 / n as f64);
        let t = Instant::now();
        for _ in 0..n {
            let _ = held.publish(&msg);
        }
        held_ns.push(t.elapsed().as_nanos() as f64 / n as f64);
        let t = Instant::now();
        let mut k = 0u64;
        for _ in 0..n * 10 {
            k += u64::from(std::hint::black_box(&lc).is_active());
        }
        std::hint::black_box(k);
        check_ns.push(t.elapsed().as_nanos() as f64 / (n * 10) as f64);
    }
    let (r, g, h, c) = (
        median(raw_ns),
        median(gated_ns),
        median(held_ns),
        median(check_ns),
    );
    println!("| the spine's message (PointStamped), {n} per round, median of {rounds} rounds | ns per message |");
    println!("| --- | ---: |");
    println!("| `r2r::Publisher::publish` | {r:.0} |");
    println!("| `LifecyclePublisher::publish`, active | {g:.0} |");
    println!(
        "| added by the lifecycle check (difference) | {:.1} |",
        g - r
    );
    println!("| the check alone (`Lifecycle::is_active`) | {c:.2} |");
    println!("| `LifecyclePublisher::publish`, inactive (held back, counted) | {h:.1} |");
    println!();
    println!(
        "goal: the check under 1 µs per message: {}",
        if (g - r).max(c) < 1000.0 {
            "met"
        } else {
            "NOT met"
        }
    );
    println!();
    Ok(())
}

fn launches(app: &mut App, domain: u32) {
    let runs = arg("--runs", 3);
    let client = match app.node.create_client::<Trigger::Service>(
        "/lifecycle_manager/is_active",
        r2r::QosProfile::services_default(),
    ) {
        Ok(c) => c,
        Err(e) => return eprintln!("lifecycle_bench: {e}"),
    };
    let eurobot = match app.node.create_client::<Trigger::Service>(
        "/bench/lifecycle_manager/is_active",
        r2r::QosProfile::services_default(),
    ) {
        Ok(c) => c,
        Err(e) => return eprintln!("lifecycle_bench: {e}"),
    };
    let ros2 = which("ros2");
    let launcher = if ros2.is_some() {
        "ros2 launch"
    } else {
        "cargo xtask launch"
    };
    println!("| stack ({launcher}, {runs} runs) | launch to all active, median [s] | min [s] | max [s] |");
    println!("| --- | ---: | ---: | ---: |");
    for (file, extra, client) in [
        ("arnie.launch.xml", vec![], &client),
        (
            "eurobot.launch.xml",
            vec![
                "namespace:=bench".to_string(),
                "link_port:=36140".into(),
                "board_port:=36141".into(),
            ],
            &eurobot,
        ),
    ] {
        let mut times = Vec::new();
        for _ in 0..runs {
            let mut cmd = match &ros2 {
                Some(ros2) => {
                    let mut c = Command::new(ros2);
                    c.args(["launch", "arnie_bringup", file]);
                    c
                }
                None => {
                    let mut c = Command::new(xtask_binary());
                    c.args(["launch", "arnie_bringup", file]);
                    c
                }
            };
            cmd.args(&extra)
                .env("ROS_DOMAIN_ID", domain.to_string())
                .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0);
            let t0 = Instant::now();
            let Ok(child) = cmd.spawn() else {
                eprintln!("lifecycle_bench: cannot start the launcher");
                return;
            };
            let active = wait_active(app, client, Duration::from_secs(120));
            let elapsed = t0.elapsed().as_secs_f64();
            stop(child);
            match active {
                true => times.push(elapsed),
                false => eprintln!("lifecycle_bench: {file}: not all active within 120 s"),
            }
            // Let the nodes go before the next run.
            spin_for(app, Duration::from_secs(3));
        }
        if times.is_empty() {
            println!("| `{file}` | - | - | - |");
            continue;
        }
        let (min, max) = (
            times.iter().copied().fold(f64::INFINITY, f64::min),
            times.iter().copied().fold(0.0, f64::max),
        );
        println!("| `{file}` | {:.2} | {min:.2} | {max:.2} |", median(times));
    }
}

use std::os::unix::process::CommandExt;

fn which(exe: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(exe))
            .find(|p| p.is_file())
    })
}

fn xtask_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    ["xtask", "../debug/xtask", "../release/xtask"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
        .unwrap_or_else(|| "xtask".into())
}

fn spin_for(app: &mut App, d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        app.node.spin_once(Duration::from_millis(10));
    }
}

/// Spins `app` until `fut` resolves (its output) or `limit` passes (`None`).
fn spin_until<F: std::future::Future + Unpin>(
    app: &mut App,
    fut: &mut F,
    limit: Duration,
) -> Option<F::Output> {
    let t = Instant::now();
    let mut cx = std::task::Context::from_waker(futures::task::noop_waker_ref());
    while t.elapsed() < limit {
        app.node.spin_once(Duration::from_millis(5));
        if let std::task::Poll::Ready(v) = std::pin::Pin::new(&mut *fut).poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

fn wait_active(app: &mut App, client: &r2r::Client<Trigger::Service>, limit: Duration) -> bool {
    let t0 = Instant::now();
    let Ok(available) = r2r::Node::is_available(client) else {
        return false;
    };
    let mut available = Box::pin(available);
    if spin_until(app, &mut available, limit).is_none() {
        return false;
    }
    while t0.elapsed() < limit {
        let Ok(answer) = client.request(&Trigger::Request {}) else {
            spin_for(app, Duration::from_millis(50));
            continue;
        };
        let mut answer = Box::pin(answer);
        if let Some(Ok(r)) = spin_until(app, &mut answer, Duration::from_secs(2)) {
            if r.success {
                return true;
            }
        }
        spin_for(app, Duration::from_millis(50));
    }
    false
}

fn stop(mut child: std::process::Child) {
    let pid = child.id() as i32;
    // SAFETY: signals the launcher's own process group (made with process_group(0)).
    unsafe {
        libc::kill(-pid, libc::SIGINT);
    }
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let _ = child.wait();
}
