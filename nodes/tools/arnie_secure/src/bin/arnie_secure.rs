//! `arnie_secure`: a lab's CA, its hosts' keys and Fast DDS profiles, the Foxglove
//! bridge's tokens. `cargo xtask secure ARGS` runs it. See docs/SECURITY.md.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;

use arnie_secure::{Lab, Role, Validity, DEFAULT_SERVER_PORT, SERVER_PROFILE};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "arnie_secure",
    about = "DDS between hosts over TLS: a lab's CA, one key and certificate per host, the Fast DDS profiles; the Foxglove bridge's tokens"
)]
struct Cli {
    /// The lab's folder
    #[arg(long, global = true, default_value = "secure")]
    dir: PathBuf,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Make a new lab: its certificate authority (refuses a folder that has one)
    Init {
        /// The CA's name (its certificate's common name)
        #[arg(long, default_value = "arnie lab CA")]
        name: String,
        /// Days the CA is valid
        #[arg(long, default_value_t = 3650)]
        days: i64,
    },
    /// Add a host: its key and certificate, then every host's profiles again
    AddHost {
        /// The host's name (letters, digits, _ and -)
        name: String,
        /// Its LAN address (where its discovery server listens)
        #[arg(long)]
        address: Ipv4Addr,
        /// Its discovery server's TCP port
        #[arg(long, default_value_t = DEFAULT_SERVER_PORT)]
        port: u16,
        /// Days the certificate is valid
        #[arg(long, default_value_t = 3650)]
        days: i64,
        /// Days before today its validity starts (with a small --days: an expired
        /// certificate, for tests)
        #[arg(long, default_value_t = 1)]
        backdate_days: i64,
    },
    /// Print the environment of a host's ROS processes (eval "$(arnie_secure env NAME)")
    Env {
        /// The host
        name: String,
    },
    /// Print the command that runs a host's discovery server
    Server {
        /// The host
        name: String,
    },
    /// Add a Foxglove bridge token to the lab's tokens file and print it
    Token {
        /// The token's name (who holds it)
        name: String,
        /// viewer (read only) or operator (may publish and set parameters)
        #[arg(long, default_value = "viewer")]
        role: String,
    },
    /// List the hosts
    Hosts,
}

fn run(cli: Cli) -> Result<(), String> {
    let e = |e: arnie_secure::Error| e.to_string();
    let host = |lab: &Lab, name: &str| {
        lab.host(name).cloned().ok_or_else(|| {
            let names: Vec<_> = lab.hosts().iter().map(|h| h.name.as_str()).collect();
            format!(
                "no host `{name}` in {} (hosts: {})",
                lab.dir().display(),
                names.join(", ")
            )
        })
    };
    match cli.cmd {
        Cmd::Init { name, days } => {
            let lab = Lab::init(
                &cli.dir,
                &name,
                Validity {
                    days,
                    backdate_days: 1,
                },
            )
            .map_err(e)?;
            println!(
                "lab CA `{name}` in {}; next: arnie_secure --dir {} add-host NAME --address IP",
                lab.dir().display(),
                cli.dir.display()
            );
        }
        Cmd::AddHost {
            name,
            address,
            port,
            days,
            backdate_days,
        } => {
            let mut lab = Lab::open(&cli.dir).map_err(e)?;
            let h = lab
                .add_host(
                    &name,
                    address,
                    port,
                    Validity {
                        days,
                        backdate_days,
                    },
                )
                .map_err(e)?
                .clone();
            println!(
                "host `{}` ({}, discovery server on port {}): {}\n\
                 every host's profiles written again: copy hosts/<name>/ to the same path on each host",
                h.name, h.address, h.port, lab.host_dir(&h.name).display()
            );
        }
        Cmd::Env { name } => {
            let lab = Lab::open(&cli.dir).map_err(e)?;
            let h = host(&lab, &name)?;
            print!("{}", lab.env_file(&h));
        }
        Cmd::Server { name } => {
            let lab = Lab::open(&cli.dir).map_err(e)?;
            let h = host(&lab, &name)?;
            println!(
                "fast-discovery-server -x {SERVER_PROFILE}@{}",
                lab.host_dir(&h.name).join("discovery_server.xml").display()
            );
        }
        Cmd::Token { name, role } => {
            let lab = Lab::open(&cli.dir).map_err(e)?;
            let role =
                Role::parse(&role).ok_or_else(|| format!("role `{role}`: viewer or operator"))?;
            let token = lab.add_token(&name, role).map_err(e)?;
            eprintln!(
                "token `{name}` ({}) added to {}",
                role.name(),
                lab.tokens_path().display()
            );
            println!("{token}");
        }
        Cmd::Hosts => {
            let lab = Lab::open(&cli.dir).map_err(e)?;
            for h in lab.hosts() {
                println!("{} {} {}", h.name, h.address, h.port);
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("arnie_secure: {msg}");
            ExitCode::from(2)
        }
    }
}
