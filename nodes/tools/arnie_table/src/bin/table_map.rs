//! `table_map`: writes the scenario's table as a PGM map for the planner (`map_file`),
//! the same grid `Scenario::rasterise` gives (no inflation: the planner's
//! `robot_radius_m` does that).
//!
//! `table_map --help` lists the options (the [`Cli`] struct below).
use arnie_table::Scenario;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Writes the scenario's table as a PGM map for the planner's map_file.
#[derive(Parser)]
#[command(
    name = "table_map",
    after_help = "The grid Scenario::rasterise gives, not inflated (the planner's robot_radius_m does that).\n\
                  Prints `table_map: W x H cells at R m, origin (0, 0): OUT`.\n\
                  Exit status: 0 written, 1 the file cannot be written, 2 bad arguments or a bad scenario."
)]
struct Cli {
    /// The table scenario (e.g. params/eurobot/table.json)
    #[arg(long, value_name = "FILE")]
    scenario: PathBuf,
    /// Cell size [m] (e.g. 0.02)
    #[arg(long, value_name = "M")]
    resolution: f64,
    /// Leave out the ring of blocked cells around the table's edge
    #[arg(long)]
    no_walls: bool,
    /// The PGM file to write
    #[arg(long, value_name = "OUT")]
    pgm: PathBuf,
}

fn main() -> ExitCode {
    // Bad arguments: clap's message and usage on stderr, exit status 2.
    let Cli {
        scenario,
        resolution,
        no_walls,
        pgm,
    } = Cli::parse();
    let walls = !no_walls;
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
