//! The run: the spine started on a generated config, then (a), (c) and (b) in turn.
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use node_glue::r2r::{diagnostic_msgs::msg::DiagnosticArray, geometry_msgs::msg::PointStamped};
use node_glue::{qos, App};

use crate::collect::{collect_diagnostics, collect_points, delta, settled};
use crate::latency::measure_topic_latency;
use crate::report::print_report;
use crate::route::{measure_udp, Echo};
use crate::throughput::measure_throughput;
use crate::{free_port, BoxError, Options, ARM_TOPIC, BASELINE_TOPIC};

pub(crate) struct Spine {
    pub(crate) child: Child,
    pub(crate) dir: PathBuf,
}

impl Spine {
    pub(crate) fn stop(mut self) {
        let _ = Command::new("kill")
            .arg("-INT")
            .arg(self.child.id().to_string())
            .status();
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_dir_all(&self.dir);
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) struct Ports {
    pub(crate) arm: u16,
    pub(crate) legacy: u16,
    pub(crate) echo: UdpSocket,
}

pub(crate) fn write_config(dir: &Path, ports: &Ports) -> Result<PathBuf, BoxError> {
    let echo = ports.echo.local_addr()?.port();
    let config = format!(
        r#"{{
  "host": "127.0.0.1",
  "transforms": {{ "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1" }},
  "interfaces": {{
    "input": {{
      "arm":    {{ "port": {arm}, "streamed": true, "format": "simulink", "topic": "{ARM_TOPIC}", "kind": "point" }},
      "legacy": {{ "port": {legacy}, "streamed": true, "format": "simulink" }}
    }},
    "output": {{
      "echo": {{ "host": "127.0.0.1", "port": {echo}, "format": "simulink" }}
    }}
  }},
  "connections": [ {{ "input": "legacy", "output": "echo" }} ]
}}"#,
        arm = ports.arm,
        legacy = ports.legacy,
    );
    let path = dir.join("bench.json");
    std::fs::write(&path, config)?;
    Ok(path)
}

pub(crate) fn run(o: Options) -> Result<(), BoxError> {
    let domain = std::env::var("SPINE_BENCH_DOMAIN")
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .unwrap_or(102 + std::process::id() % 100);
    // Before any ROS call, and inherited by the spine and the baseline publisher.
    std::env::set_var("ROS_DOMAIN_ID", domain.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");

    let dir = std::env::temp_dir().join(format!("spine_bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let ports = Ports {
        arm: free_port()?,
        legacy: free_port()?,
        echo: UdpSocket::bind("127.0.0.1:0")?,
    };
    let config = write_config(&dir, &ports)?;

    let mut app = App::new("spine_bench")?;
    let arm_sub = app
        .node
        .subscribe::<PointStamped>(ARM_TOPIC, qos::sensor())?;
    let base_sub = app
        .node
        .subscribe::<PointStamped>(BASELINE_TOPIC, qos::sensor())?;
    let diag_sub = app
        .node
        .subscribe::<DiagnosticArray>("/diagnostics", qos::commands())?;
    // The spine publishes x = seq mm = seq / 1000 m; the baseline publishes x = seq.
    let (arm_samples, arm_count) = collect_points(arm_sub, |m| (m.point.x * 1000.0).round() as u64);
    let (base_samples, _) = collect_points(base_sub, |m| m.point.x.round() as u64);
    let counters = collect_diagnostics(diag_sub);

    eprintln!(
        "spine_bench: ROS domain {domain}, config {}, spine {}",
        config.display(),
        o.spine.display()
    );
    let log = std::fs::File::create(dir.join("spine_bridge.log"))?;
    let child = Command::new(&o.spine)
        .args(["--ros-args", "--log-level", "warn", "-p"])
        .arg(format!("config_file:={}", config.display()))
        .args(["-p", "diagnostics_period_ms:=100", "-p"])
        .arg(format!("io_thread_rt_priority:={}", o.rt_priority))
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log))
        .spawn()?;
    let spine = Spine {
        child,
        dir: dir.clone(),
    };

    // Wait for the spine's publisher on the graph (its sockets are bound by then).
    let end = Instant::now() + Duration::from_secs(30);
    while app
        .node
        .get_publishers_info_by_topic(ARM_TOPIC, false)
        .map(|v| v.is_empty())
        .unwrap_or(true)
    {
        if Instant::now() > end {
            spine.stop();
            return Err("the spine did not start (see its log in the temp dir)".into());
        }
        thread::sleep(Duration::from_millis(20));
    }
    let trigger = app.shutdown_trigger();
    let spinner = thread::spawn(move || app.spin());

    let sender = UdpSocket::bind("127.0.0.1:0")?;
    let arm_addr: SocketAddr = ([127, 0, 0, 1], ports.arm).into();
    let legacy_addr: SocketAddr = ([127, 0, 0, 1], ports.legacy).into();
    let echo_addr = ports.echo.local_addr()?;

    // (a) both paths at once, interleaved half a period apart, so both see the same
    // machine: a plain r2r publisher (child process) → this subscriber, and UDP → spine
    // → topic → this subscriber.
    eprintln!("spine_bench: (a) {} Hz for {} s: r2r publisher -> subscriber, and UDP -> spine -> {ARM_TOPIC} -> subscriber", o.rate, o.seconds);
    let before = settled(&counters, "input.arm", Duration::from_secs(3));
    let (baseline, mut through_spine, spine_internal) =
        measure_topic_latency(&o, &sender, arm_addr, &base_samples, &arm_samples)?;
    through_spine.stale = Some(delta(
        &before,
        &settled(&counters, "input.arm", Duration::from_secs(3)),
        "stale_dropped",
    ));
    // (c) legacy route and plain UDP, interleaved the same way.
    eprintln!("spine_bench: (c) UDP -> spine -> UDP, and plain UDP -> UDP");
    let echo = Echo::start(ports.echo.try_clone()?);
    let before = settled(&counters, "input.legacy", Duration::from_secs(3));
    let (mut legacy, direct) = measure_udp(&o, &sender, legacy_addr, echo_addr, &echo);
    legacy.stale = Some(delta(
        &before,
        &settled(&counters, "input.legacy", Duration::from_secs(3)),
        "stale_dropped",
    ));
    echo.stop();
    // (b) throughput of one input.
    eprintln!("spine_bench: (b) throughput of one input");
    let steps = measure_throughput(&sender, arm_addr, &counters, &arm_count, &arm_samples);

    spine.stop();
    trigger();
    let _ = spinner.join();

    print_report(
        &o,
        domain,
        &baseline,
        &through_spine,
        &spine_internal,
        &legacy,
        &direct,
        &steps,
    );
    Ok(())
}
