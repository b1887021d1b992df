//! `table_map`: writes the scenario's table as a PGM map for the planner (`map_file`),
//! the same grid `Scenario::rasterise` gives (no inflation: the planner's
//! `robot_radius_m` does that).
//!
//! ```text
//! table_map --scenario params/eurobot/table.json --resolution 0.02 [--no-walls] --pgm OUT.pgm
//! ```
//! Prints `table_map: W x H cells at R m, origin (0, 0)`. Exit 2 on bad arguments or a
//! bad scenario, 1 when the file cannot be written.
use arnie_table::Scenario;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: table_map --scenario FILE --resolution M [--no-walls] --pgm OUT";

fn main() -> ExitCode {
    let mut scenario = None;
    let mut resolution = None;
    let mut pgm = None;
    let mut walls = true;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let v = match a.as_str() {
            "--no-walls" => {
                walls = false;
                continue;
            }
            "--scenario" | "--resolution" | "--pgm" => it.next(),
            other => {
                eprintln!("table_map: unexpected argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(v) = v else {
            eprintln!("table_map: {a} needs a value\n{USAGE}");
            return ExitCode::from(2);
        };
        match a.as_str() {
            "--scenario" => scenario = Some(PathBuf::from(v)),
            "--pgm" => pgm = Some(PathBuf::from(v)),
            _ => match v.parse::<f64>() {
                Ok(r) => resolution = Some(r),
                Err(_) => {
                    eprintln!("table_map: --resolution {v:?} is not a number");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let (Some(scenario), Some(resolution), Some(pgm)) = (scenario, resolution, pgm) else {
        eprintln!("table_map: --scenario, --resolution and --pgm are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let s = match Scenario::load(&scenario) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("table_map: {e}");
            return ExitCode::from(2);
        }
    };
    let r = match s.rasterise(resolution, walls) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("table_map: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::write(&pgm, r.to_pgm()) {
        eprintln!("table_map: cannot write {}: {e}", pgm.display());
        return ExitCode::from(1);
    }
    println!(
        "table_map: {} x {} cells at {} m, origin (0, 0): {}",
        r.width,
        r.height,
        r.resolution_m,
        pgm.display()
    );
    ExitCode::SUCCESS
}
