//! `flame_scene`: prints scene N of the flame task's family as a simulator scenario
//! (the base scenario with the box added), or just the box.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Scene N of the flame task's family (one box on the table across one of the task's
/// straight moves): the simulator scenario on stdout (or --out FILE).
#[derive(Parser)]
#[command(name = "flame_scene", version)]
struct Cli {
    /// The scene's seed (any unsigned 64-bit number).
    #[arg(long)]
    seed: u64,
    /// The scenario to add the box to.
    #[arg(long, default_value = "params/scenario_flame.json")]
    base: PathBuf,
    /// Write the scenario here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print only the box and the move it stands across (JSON).
    #[arg(long)]
    box_only: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let scene = arnie_scenes::generate(cli.seed);
    let text = if cli.box_only {
        let b = scene.obstacle_rounded();
        serde_json::json!({
            "seed": cli.seed,
            "min_mm": b.min_mm,
            "max_mm": b.max_mm,
            "across": [scene.across.0, scene.across.1],
        })
        .to_string()
    } else {
        let base = match std::fs::read_to_string(&cli.base)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).map_err(|e| e.to_string()))
        {
            Ok(b) => b,
            Err(e) => {
                eprintln!("flame_scene: {}: {e}", cli.base.display());
                return ExitCode::from(2);
            }
        };
        match serde_json::to_string_pretty(&scene.scenario(&base)) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("flame_scene: {e}");
                return ExitCode::from(1);
            }
        }
    };
    match cli.out {
        Some(path) => {
            if let Err(e) = std::fs::write(&path, text + "\n") {
                eprintln!("flame_scene: {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
        None => println!("{text}"),
    }
    ExitCode::SUCCESS
}
