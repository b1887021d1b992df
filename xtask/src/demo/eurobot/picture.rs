//! The picture of a Eurobot match: the table, the paths, the score over time.
use crate::run::Failure;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

fn read_json(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

/// One pose line of the truth log: time [s], the robot's x and y [m], and the opponent's
/// (x, y) [m] when the line has one.
type Pose = (f64, f64, f64, Option<(f64, f64)>);

const PALETTE: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
];

/// The inputs of the picture, read once: the scenario, the truth log's lines and poses,
/// the monitor's record, and which task ran when.
struct Match {
    /// The scenario file.
    s: Value,
    /// The monitor's record (`Value::Null` without one).
    run: Value,
    /// The truth log's lines (start, poses, events).
    lines: Vec<Value>,
    /// The truth log's pose lines.
    poses: Vec<Pose>,
    /// Board time [s] when each task was selected, in order.
    spans: Vec<(f64, String)>,
    /// The tasks, in the order first selected (their colours).
    names: Vec<String>,
    /// The board's start and the monitor's start [unix s] (0: unknown).
    board_unix: f64,
    t0: f64,
    /// The table [m].
    w_m: f64,
    h_m: f64,
    /// The side played: the scenario is blue's, its x mirrored for yellow (the truth log
    /// is already on the side played).
    colour: arnie_math::Colour,
}

/// Pixels per metre on the table, and the table's top-left corner [px].
const K: f64 = 250.0;
const OX: f64 = 30.0;
const OY: f64 = 60.0;

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// Draws the match as SVG (plain text): the table on the left (1 m = 250 px), the score
/// over time on the right; and the same as PNG beside it (`svg` with extension `png`,
/// rendered by arnie_plot).
pub fn draw(
    scenario: &Path,
    colour: arnie_math::Colour,
    truth: &Path,
    record: &Path,
    svg: &Path,
) -> Result<(), Failure> {
    let mut m = Match::read(scenario, truth, record)?;
    m.colour = colour;
    let (fig_w, fig_h) = (OX + m.w_m * K + 420.0, OY + m.h_m * K + 60.0);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{fig_w:.0}" height="{fig_h:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="white"/>"##);
    let verdict = m.run["verdict"]["reason"]
        .as_str()
        .unwrap_or("no result recorded");
    let _ = writeln!(
        o,
        r#"<text x="{OX}" y="24" font-size="16" font-weight="bold">Eurobot match on the simulated table: {} ({})</text>"#,
        esc(m.s["name"].as_str().unwrap_or("")),
        m.colour
    );
    let _ = writeln!(o, r#"<text x="{OX}" y="44">{}</text>"#, esc(verdict));
    m.table(&mut o);
    m.robot_path(&mut o);
    m.marks(&mut o);
    let lx = OX + m.w_m * K + 30.0;
    let ly = m.legend(&mut o, lx);
    m.score(&mut o, lx + 30.0, ly + 50.0);
    let _ = writeln!(o, "</svg>");
    std::fs::write(svg, &o).map_err(|e| Failure::new(format!("{}: {e}", svg.display())))?;
    // The same picture as PNG beside it (arnie_plot's rasteriser, as the arm's demo.png).
    let png = svg.with_extension("png");
    let image = arnie_plot::render_png(&o, 1.0)
        .map_err(|e| Failure::new(format!("{}: {e}", png.display())))?;
    std::fs::write(&png, &image.data).map_err(|e| Failure::new(format!("{}: {e}", png.display())))
}

impl Match {
    fn read(scenario: &Path, truth: &Path, record: &Path) -> Result<Match, Failure> {
        let s = read_json(scenario)?;
        let (w_m, h_m) = (num(&s["table"]["width_m"]), num(&s["table"]["height_m"]));
        if !(w_m > 0.0 && h_m > 0.0 && w_m <= 20.0 && h_m <= 20.0) {
            return Err(Failure::new(format!(
                "{}: no table size",
                scenario.display()
            )));
        }
        // The truth log: start line (unix_s), poses, events.
        let text = std::fs::read_to_string(truth)
            .map_err(|e| Failure::new(format!("{}: {e}", truth.display())))?;
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let board_unix = lines
            .iter()
            .find(|l| l["type"] == "start")
            .map_or(0.0, |l| num(&l["unix_s"]));
        let run = read_json(record).unwrap_or(Value::Null);
        let t0 = num(&run["t0_unix"]);
        let poses: Vec<Pose> = lines
            .iter()
            .filter(|l| l["type"] == "pose")
            .map(|l| {
                let opp = l["opponent"]
                    .is_object()
                    .then(|| (num(&l["opponent"]["x"]), num(&l["opponent"]["y"])));
                (
                    num(&l["t_ms"]) / 1000.0,
                    num(&l["robot"]["x"]),
                    num(&l["robot"]["y"]),
                    opp,
                )
            })
            .collect();
        let mut m = Match {
            s,
            run,
            lines,
            poses,
            spans: Vec::new(),
            names: Vec::new(),
            board_unix,
            t0,
            w_m,
            colour: arnie_math::Colour::Blue,
            h_m,
        };
        // Which task is running when (board time): TASK_SELECTED / STARTED events.
        let mut spans: Vec<(f64, String)> = Vec::new();
        for e in m.run["events"].as_array().into_iter().flatten() {
            let task = e["task"].as_str().unwrap_or("");
            let selected = e["kind"] == "TASK_SELECTED" || e["kind"] == "STARTED";
            if !task.is_empty() && selected && !matches!(spans.last(), Some((_, t)) if t == task) {
                spans.push((m.board_t(num(&e["t"])), task.to_string()));
            }
        }
        for (_, n) in &spans {
            if !m.names.contains(n) {
                m.names.push(n.clone());
            }
        }
        m.spans = spans;
        Ok(m)
    }

    fn px(&self, x: f64) -> f64 {
        OX + x * K
    }

    fn py(&self, y: f64) -> f64 {
        OY + (self.h_m - y) * K
    }

    /// Board time [s] of a monitor time t.
    fn board_t(&self, t: f64) -> f64 {
        if self.t0 > 0.0 && self.board_unix > 0.0 {
            t + self.t0 - self.board_unix
        } else {
            t
        }
    }

    fn colour_of(&self, task: Option<&String>) -> &'static str {
        match task {
            Some(t) => PALETTE[self.names.iter().position(|n| n == t).unwrap_or(0) % PALETTE.len()],
            None => "#555555",
        }
    }

    fn task_at(&self, t: f64) -> Option<&String> {
        self.spans
            .iter()
            .rev()
            .find(|(s, _)| *s <= t)
            .map(|(_, n)| n)
    }

    /// The robot's pose (x, y) [m] nearest board time `t`.
    fn pose_at(&self, t: f64) -> Option<(f64, f64)> {
        self.poses
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .map(|p| (p.1, p.2))
    }

    /// A scenario x [m] on the side played.
    fn side(&self, x: f64) -> f64 {
        self.colour.x(x, self.w_m)
    }

    /// The table, its obstacles, the tasks and the opponent's scripted path (dashed).
    fn table(&self, o: &mut String) {
        let (s, f) = (&self.s, num);
        let _ = writeln!(
            o,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#f4f1e8" stroke="black" stroke-width="2"/>"##,
            self.px(0.0),
            self.py(self.h_m),
            self.w_m * K,
            self.h_m * K
        );
        for ob in s["obstacles"].as_array().into_iter().flatten() {
            if let Some(r) = ob.get("rect") {
                let (a, b) = (self.side(f(&r["x_min_m"])), self.side(f(&r["x_max_m"])));
                let (x0, y0, x1, y1) = (a.min(b), f(&r["y_min_m"]), a.max(b), f(&r["y_max_m"]));
                let _ = writeln!(
                    o,
                    r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#777"/>"##,
                    self.px(x0),
                    self.py(y1),
                    (x1 - x0) * K,
                    (y1 - y0) * K
                );
            } else if let Some(d) = ob.get("disc") {
                let _ = writeln!(
                    o,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#777"/>"##,
                    self.px(self.side(f(&d["x_m"]))),
                    self.py(f(&d["y_m"])),
                    f(&d["radius_m"]) * K
                );
            }
        }
        for t in s["tasks"].as_array().into_iter().flatten() {
            let (x, y) = (self.px(self.side(f(&t["x_m"]))), self.py(f(&t["y_m"])));
            let _ = writeln!(
                o,
                r##"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="none" stroke="#2a2" stroke-width="2"/>"##,
                x - 6.0,
                y - 6.0
            );
            let _ = writeln!(
                o,
                r#"<text x="{:.1}" y="{:.1}">{} ({} pts)</text>"#,
                x + 9.0,
                y - 8.0,
                esc(t["name"].as_str().unwrap_or("")),
                t["points"]
            );
        }
        // The opponent's scripted path (dashed) and its driven trace.
        let wps: Vec<String> = s["opponent"]["waypoints"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| {
                let x = self.px(self.side(f(&w["x_m"])));
                format!("{x:.1},{:.1}", self.py(f(&w["y_m"])))
            })
            .collect();
        if !wps.is_empty() {
            let _ = writeln!(
                o,
                r##"<polyline points="{}" fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="6,4"/>"##,
                wps.join(" ")
            );
        }
    }

    /// The robot's path, one segment per pose line, coloured by the task then running;
    /// its first and last footprint, and the opponent's last place.
    fn robot_path(&self, o: &mut String) {
        let (s, f) = (&self.s, num);
        // Each task's line is shifted sideways by its own few pixels (as lines on a transit
        // map), so a later task driving the same corridor does not hide an earlier one.
        let lanes = self.names.len().max(1) as f64;
        for w in self.poses.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if (a.1 - b.1).abs() + (a.2 - b.2).abs() < 1e-6 {
                continue;
            }
            let task = self.task_at(b.0);
            let lane = task
                .and_then(|t| self.names.iter().position(|n| n == t))
                .map_or(0.0, |i| i as f64 - (lanes - 1.0) / 2.0);
            let (dx, dy) = (self.px(b.1) - self.px(a.1), self.py(b.2) - self.py(a.2));
            let len = dx.hypot(dy).max(1e-9);
            let (nx, ny) = (-dy / len * 5.0 * lane, dx / len * 5.0 * lane);
            let _ = writeln!(
                o,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="3" stroke-linecap="round"/>"#,
                self.px(a.1) + nx,
                self.py(a.2) + ny,
                self.px(b.1) + nx,
                self.py(b.2) + ny,
                self.colour_of(task)
            );
        }
        if let (Some(first), Some(last)) = (self.poses.first(), self.poses.last()) {
            let r = f(&s["robot"]["radius_m"]) * K;
            let _ = writeln!(
                o,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="none" stroke="#000" stroke-dasharray="3,3"/>"##,
                self.px(first.1),
                self.py(first.2)
            );
            let _ = writeln!(
                o,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="none" stroke="#000"/>"##,
                self.px(last.1),
                self.py(last.2)
            );
            if let Some((x, y)) = last.3 {
                let rr = f(&s["opponent"]["radius_m"]) * K;
                let _ = writeln!(
                    o,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="{rr:.1}" fill="#d62728" fill-opacity="0.25" stroke="#d62728"/>"##,
                    self.px(x),
                    self.py(y)
                );
            }
        }
    }

    /// Where the robot was when the opponent was seen (first of each streak) and when
    /// the strategy reported trouble (ERROR events): crosses.
    fn marks(&self, o: &mut String) {
        let f = num;
        let mut last_seen = -10.0;
        for l in self.lines.iter().filter(|l| l["type"] == "event") {
            let t = f(&l["t_ms"]) / 1000.0;
            if l["event"] == "sees_opponent" {
                if t - last_seen > 2.0 {
                    if let Some((x, y)) = self.pose_at(t) {
                        let _ = writeln!(
                            o,
                            r##"<circle cx="{:.1}" cy="{:.1}" r="6" fill="#ff0" stroke="#000"/>"##,
                            self.px(x),
                            self.py(y)
                        );
                    }
                }
                last_seen = t;
            }
        }
        for e in self.run["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["kind"] == "ERROR")
        {
            if let Some((x, y)) = self.pose_at(self.board_t(f(&e["t"]))) {
                let (x, y) = (self.px(x), self.py(y));
                let _ = writeln!(
                    o,
                    r#"<path d="M{:.1},{:.1} l12,12 m0,-12 l-12,12" stroke="black" stroke-width="3"/>"#,
                    x - 6.0,
                    y - 6.0
                );
            }
        }
    }

    /// The legend at `lx`, from the table's top; returns where it ends (y).
    fn legend(&self, o: &mut String, lx: f64) -> f64 {
        let mut ly = OY;
        for (i, n) in self.names.iter().enumerate() {
            let _ = writeln!(
                o,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
                lx + 24.0,
                PALETTE[i % PALETTE.len()],
                lx + 30.0,
                ly + 4.0,
                esc(n)
            );
            ly += 18.0;
        }
        for (mark, label) in [
            (
                r##"<line x1="LX" y1="LY" x2="LX2" y2="LY" stroke="#d62728" stroke-width="2" stroke-dasharray="6,4"/>"##,
                "opponent's scripted path",
            ),
            (
                r##"<circle cx="LXC" cy="LY" r="6" fill="#ff0" stroke="#000"/>"##,
                "opponent seen by a sensor",
            ),
            (
                r#"<path d="MLXM l12,12 m0,-12 l-12,12" stroke="black" stroke-width="3"/>"#,
                "blocked / task failed (re-selection)",
            ),
        ] {
            let m = mark
                .replace("LXM", &format!("{},{}", lx + 6.0, ly - 6.0))
                .replace("LXC", &format!("{}", lx + 12.0))
                .replace("LX2", &format!("{}", lx + 24.0))
                .replace("LX", &format!("{lx}"))
                .replace("LY", &format!("{ly}"));
            let _ = writeln!(
                o,
                r#"{m}<text x="{}" y="{}">{label}</text>"#,
                lx + 30.0,
                ly + 4.0
            );
            ly += 18.0;
        }
        ly
    }

    /// Score over time at (`gx`, `gy`): axes with ticks (seconds, points), the title
    /// above the frame, the expected points, the score as steps.
    fn score(&self, o: &mut String, gx: f64, gy: f64) {
        let (run, f) = (&self.run, num);
        let (gw, gh) = (330.0, 200.0);
        let match_s = f(&run["match_s"]).max(1.0);
        let score: Vec<(f64, f64)> = run["score"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| (f(&p[0]), f(&p[1])))
            .collect();
        // Headroom above the highest of the score and the expected points, in whole ticks.
        let highest = score
            .iter()
            .map(|p| p.1)
            .fold(f(&run["expected_points"]), f64::max)
            .max(1.0);
        let step_p = arnie_plot::ticks::nice_step(highest, 4);
        let top = ((highest * 1.1) / step_p).ceil() * step_p;
        let step_t = arnie_plot::ticks::nice_step(match_s, 9);
        let sx = |t: f64| gx + t.clamp(0.0, match_s) / match_s * gw;
        let sy = |p: f64| gy + gh - p / top * gh;
        let _ = writeln!(
            o,
            r##"<rect x="{gx}" y="{gy}" width="{gw}" height="{gh}" fill="none" stroke="#000"/>"##
        );
        let _ = writeln!(
            o,
            r#"<text x="{gx}" y="{}" font-weight="bold">Score over the match</text>"#,
            gy - 12.0
        );
        let mut t = 0.0;
        while t <= match_s + 1e-9 {
            let x = sx(t);
            let _ = writeln!(
                o,
                r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#000"/><text x="{x:.1}" y="{}" text-anchor="middle">{t:.0}</text>"##,
                gy + gh,
                gy + gh + 5.0,
                gy + gh + 18.0
            );
            t += step_t;
        }
        let mut p = 0.0;
        while p <= top + 1e-9 {
            let y = sy(p);
            let _ = writeln!(
                o,
                r##"<line x1="{}" y1="{y:.1}" x2="{gx}" y2="{y:.1}" stroke="#000"/><text x="{}" y="{:.1}" text-anchor="end">{p:.0}</text>"##,
                gx - 5.0,
                gx - 8.0,
                y + 4.0
            );
            p += step_p;
        }
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">match time [s]</text>"#,
            gx + gw / 2.0,
            gy + gh + 34.0
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{:.1}" text-anchor="middle" transform="rotate(-90 {} {:.1})">points</text>"#,
            gx - 34.0,
            gy + gh / 2.0,
            gx - 34.0,
            gy + gh / 2.0
        );
        let exp = f(&run["expected_points"]);
        let _ = writeln!(
            o,
            r##"<line x1="{gx}" y1="{:.1}" x2="{}" y2="{:.1}" stroke="#2a2" stroke-dasharray="4,3"/><text x="{}" y="{:.1}" text-anchor="end" fill="#2a2">expected {exp:.0}</text>"##,
            sy(exp),
            gx + gw,
            sy(exp),
            gx + gw - 4.0,
            sy(exp) - 4.0
        );
        let mut pts = String::new();
        let mut prev = 0.0;
        for &(t, p) in &score {
            let _ = write!(
                pts,
                "{:.1},{:.1} {:.1},{:.1} ",
                sx(t),
                sy(prev),
                sx(t),
                sy(p)
            );
            prev = p;
        }
        let _ = write!(
            pts,
            "{:.1},{:.1}",
            sx(score.last().map_or(0.0, |p| p.0)),
            sy(prev)
        );
        let _ = writeln!(
            o,
            r##"<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="2"/>"##
        );
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_the_table_the_path_by_task_and_the_score() {
        let dir = std::env::temp_dir().join(format!("eurobot_draw_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/eurobot/table.json");
        let truth = dir.join("truth.jsonl");
        let mut log = String::from("{\"type\":\"start\",\"unix_s\":1000.0}\n");
        for i in 0..50 {
            let x = 0.3 + i as f64 * 0.02;
            log += &format!("{{\"type\":\"pose\",\"t_ms\":{},\"robot\":{{\"x\":{x},\"y\":1.0,\"theta\":0}},\"opponent\":{{\"x\":2.0,\"y\":1.8,\"theta\":0}}}}\n", i * 100);
        }
        log += "{\"type\":\"event\",\"t_ms\":2000,\"event\":\"sees_opponent\",\"detail\":\"\"}\n";
        std::fs::write(&truth, log).expect("write");
        let record = dir.join("run.json");
        let run = r#"{"t0_unix": 1001.0, "match_s": 90, "expected_points": 34,
            "events": [{"t": 0.0, "kind": "TASK_SELECTED", "task": "tower_far"}, {"t": 1.5, "kind": "ERROR", "task": "tower_far"},
                       {"t": 2.0, "kind": "TASK_SELECTED", "task": "crate_mid"}],
            "score": [[0, 0], [3.0, 8]], "verdict": {"ok": false, "reason": "8 points, the scenario expects 34"}}"#;
        std::fs::write(&record, run).expect("write");
        let svg = dir.join("e.svg");
        draw(&scenario, arnie_math::Colour::Blue, &truth, &record, &svg).expect("draws");
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
        assert!(
            text.contains("tower_far")
                && text.contains("crate_mid")
                && text.contains("expected 34")
        );
        // Path segments in both tasks' colours (task 1 until board time 3 s, then task 2).
        assert!(text.contains(&format!(
            "stroke=\"{}\" stroke-width=\"3\" stroke-linecap",
            PALETTE[0]
        )));
        assert!(text.contains(&format!(
            "stroke=\"{}\" stroke-width=\"3\" stroke-linecap",
            PALETTE[1]
        )));
        // The score plot has ticks: 0 .. 90 s every 10 s, 0 .. 40 points every 10.
        for tick in [">0<", ">30<", ">90<", ">40<"] {
            assert!(text.contains(tick), "tick {tick}");
        }
        assert!(text.contains("match time [s]") && text.contains(">points<"));
        assert!(text.contains("fill=\"#ff0\""), "opponent seen");
        // The PNG beside it decodes to the SVG's size.
        let png = png::Decoder::new(std::fs::File::open(dir.join("e.png")).expect("png"));
        let info = png.read_info().expect("decodes").info().clone();
        let size = |attr: &str| {
            let at = text.find(&format!(" {attr}=\"")).expect(attr) + attr.len() + 3;
            text[at..]
                .split('"')
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .expect(attr)
        };
        assert_eq!(
            (info.width, info.height),
            (size("width").round() as u32, size("height").round() as u32)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
