//! Prints the MCAP schema text rosbag2 would store for a type, from `AMENT_PREFIX_PATH`:
//! `print_definition geometry_msgs/msg/PoseStamped`.

fn main() -> std::process::ExitCode {
    let Some(t) = std::env::args().nth(1) else {
        eprintln!("usage: print_definition pkg/msg/Type");
        return std::process::ExitCode::from(2);
    };
    let mut src = arnie_bag::DefinitionSource::from_env();
    match src.full_text(&t) {
        Ok(d) => {
            print!("{}", d.text);
            eprintln!(
                "encoding {}, hash {}",
                d.encoding,
                src.type_hash(&t).unwrap_or_default()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("print_definition: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
