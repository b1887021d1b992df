use super::*;

/// A run like the demo's, made up here: the arm goes to the source, holds, carries the
/// taper to the candle, holds, comes back. Samples at 10 Hz; the brain ticks every 2 s.
fn recorded_run(scene: &Scene) -> String {
    let legs: [([f64; 3], f64); 6] = [
        ([0.0, 0.0, 0.0], 1.0),
        (scene.source_mm, 3.0), // to the source, then hold there until lit
        (scene.source_mm, 1.5),
        ([0.0, 30.0, 0.0], 2.0),
        (scene.candle_mm, 3.0),
        (scene.candle_mm, 1.5),
    ];
    let mut truth = Vec::new();
    let (mut t, mut from) = (-0.5, [0.0, 0.0, 0.0]);
    let (mut taper_lit, mut candle_lit) = (false, false);
    for (to, dur) in legs {
        let n = (dur * 10.0) as usize;
        for k in 0..n {
            let s = (k + 1) as f64 / n as f64;
            let e = s * s * (3.0 - 2.0 * s); // smooth start and stop
            let p: Vec<f64> = (0..3).map(|i| from[i] + (to[i] - from[i]) * e).collect();
            let near = |c: [f64; 3]| {
                (0..3).map(|i| (p[i] - c[i]).powi(2)).sum::<f64>().sqrt() < scene.light_radius_mm
            };
            taper_lit |= near(scene.source_mm) && k + 1 == n && to == scene.source_mm;
            candle_lit |= taper_lit && near(scene.candle_mm) && k + 1 == n && to == scene.candle_mm;
            let mut lit = vec!["source"];
            if taper_lit {
                lit.push("taper");
            }
            if candle_lit {
                lit.push("candle");
            }
            t += 0.1;
            truth.push(serde_json::json!({"t_s": t, "arm_mm": p, "lit": lit, "blocked": false}));
        }
        from = to;
    }
    truth.push(serde_json::json!({"t_s": "bad", "arm_mm": [0, 0]}));
    let brain: Vec<Value> = (0..6)
        .map(|k| {
            let active = match k {
                0 => vec!["start"],
                1 | 2 => vec!["lightSelf"],
                _ => vec!["lightOther"],
            };
            serde_json::json!({"t_s": k as f64 * 2.0, "tick": k + 1, "active": active, "paused": false})
        })
        .collect();
    serde_json::json!({"task_file": "/x/params/tasks/flame_passing.json", "outcome": "success", "reason": "", "truth": truth, "brain": brain}).to_string()
}

const SCENARIO: &str = r#"{"arm": {"obstacles": [{"name": "table", "min_mm": [-500, -500, -100], "max_mm": [500, 500, -20]}]},
    "eyes": {"light_radius_mm": 10, "source_mm": [60, 40, 30], "candle_mm": [-95, 30, 45]}}"#;

#[test]
fn records_parse_with_bad_samples_skipped() {
    let scene = Scene::parse(SCENARIO).unwrap();
    assert_eq!(scene.obstacles.len(), 1);
    let (run, skipped) = Run::parse(&recorded_run(&scene)).unwrap();
    assert_eq!(skipped, 1);
    assert_eq!(run.brain.len(), 6);
    let (_, taper) = run
        .first_lit("taper")
        .expect("taper lit in the made-up run");
    let (_, candle) = run.first_lit("candle").expect("candle lit");
    assert!(taper < candle);
    assert!(Run::parse("[1, 2]").is_err());
    assert!(Run::parse("{").is_err());
    assert_eq!(Run::parse("{}").unwrap().0, Run::default());
    // Missing scenario keys: the simulator's defaults.
    assert_eq!(Scene::parse("{}").unwrap().candle_mm, [-95.0, 30.0, 45.0]);
}

#[test]
fn actions_become_merged_spans() {
    let run = Run {
        brain: vec![
            BrainSample {
                t_s: 0.0,
                active: vec!["start".into()],
            },
            BrainSample {
                t_s: 2.0,
                active: vec!["lightSelf".into()],
            },
            BrainSample {
                t_s: 4.0,
                active: vec!["lightSelf".into()],
            },
            BrainSample {
                t_s: 6.0,
                active: vec![],
            },
        ],
        ..Run::default()
    };
    assert_eq!(
        action_spans(&run, 7.0),
        vec![
            (0.0, 2.0, "start".to_string()),
            (2.0, 6.0, "lightSelf".to_string()),
            (6.0, 7.0, "idle".to_string())
        ]
    );
}

#[test]
fn the_demo_picture_is_written_as_svg_and_png() {
    let dir = std::env::temp_dir().join(format!("xtask_picture_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = Scene::parse(SCENARIO).unwrap();
    let (run_json, scenario) = (dir.join("demo_run.json"), dir.join("scenario.json"));
    std::fs::write(&run_json, recorded_run(&scene)).unwrap();
    std::fs::write(&scenario, SCENARIO).unwrap();
    let (svg, png) = (dir.join("demo.svg"), dir.join("demo.png"));
    draw(&run_json, Some(&scenario), &svg, &png)
        .map_err(|f| f.message)
        .unwrap();
    if std::env::var_os("ARNIE_PLOT_KEEP").is_some() {
        // To look at the picture of the made-up run.
        let _ = std::fs::copy(&png, std::env::temp_dir().join("xtask_picture_test.png"));
    }

    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    let (_, taper) = Run::parse(&recorded_run(&scene))
        .unwrap()
        .0
        .first_lit("taper")
        .unwrap();
    for want in [
        "x [mm]",
        "y [mm]",
        "z [mm]",
        "time [s]",
        "speed [mm/s]",
        "source flame",
        "candle",
        "start",
        "lightSelf",
        "brain action: lightOther",
    ] {
        assert!(texts.contains(&want), "no {want:?} in {texts:?}");
    }
    assert!(
        texts.contains(&format!("taper lit at {taper:.1} s").as_str()),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.starts_with("candle lit at ")),
        "{texts:?}"
    );
    // The path is drawn in the three phase colours.
    for c in PHASE_COLOURS {
        assert!(
            text.contains(&format!(r#"stroke="{c}""#)),
            "no path segment in {c}"
        );
    }

    let bytes = std::fs::read(&png).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&bytes[..]));
    let reader = decoder.read_info().expect("a PNG");
    assert_eq!((reader.info().width, reader.info().height), (1280, 960));

    // Without a readable scenario: still both files.
    draw(&run_json, Some(&dir.join("missing.json")), &svg, &png)
        .map_err(|f| f.message)
        .unwrap();
    // A broken record is an error naming the file, not a panic.
    std::fs::write(&run_json, "{ nope").unwrap();
    let err = draw(&run_json, None, &svg, &png).unwrap_err();
    assert!(err.message.contains("demo_run.json"), "{}", err.message);
    std::fs::remove_dir_all(&dir).ok();
}
