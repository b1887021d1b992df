//! The node's ROS parameters ([`FoxgloveParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows), and their conversion into the library's [`Config`]. The whole set is checked
//! at start ([`rules`]): a bad value stops the node with the reason (exit 2).
//!
//! When a change takes effect (also in the crate's README.md): **start only**, every
//! parameter. The server is bound and the allowlists compiled once; a `ros2 param set` is
//! refused as read only.
use std::time::Duration;

use node_glue::params::Rules;

use crate::auth::{bind_rule, Tokens};
use crate::config::{Config, ConfigError, Settings};

/// The front's protection, from the parameters.
pub(crate) struct Security {
    /// `wss://`.
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
    /// The access tokens.
    pub(crate) tokens: Option<Tokens>,
    /// `insecure:=true` on an exposed address: logged as a warning at every start.
    pub(crate) warning: Option<String>,
}

/// The graph polling period's range [ms].
const DISCOVERY_MS: std::ops::RangeInclusive<i64> = 10..=60_000;

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units; defaults = the library's
    /// [`Settings::default`]. All read only at start.
    pub(crate) struct FoxgloveParams(s = Settings::default()) {
        /// Address to bind: 127.0.0.1 = this machine only; 0.0.0.0 = every interface (anyone on the network sees every topic and may set parameters)
        address: String = s.address, any(), "start only";
        /// TCP port of the WebSocket server (0 = any free port)
        port: i64 = s.port, int(0, 65_535), "start only";
        /// Regex of the topics advertised (whole name; empty = all)
        topic_allow: String = s.topic_allow, any(), "start only";
        /// Regex of the topics never advertised (whole name; empty = none)
        topic_deny: String = s.topic_deny, any(), "start only";
        /// Regex of the topics a client may publish on (whole name; empty = none)
        publish_allow: String = s.publish_allow, any(), "start only";
        /// Regex of the services advertised to clients and callable by them (whole name; empty = none)
        service_allow: String = s.service_allow, any(), "start only";
        /// Messages kept per latched topic for clients that subscribe late
        latched_depth: i64 = s.latched_depth, int(1, 1000), "start only";
        /// Messages each ROS subscription holds for the bridge before it drops and counts them (subscription_overflow); raised to the publishers' summed depths
        subscription_queue: i64 = s.subscription_queue, int(1, 100_000), "start only";
        /// Subscribe/unsubscribe operations per client and second counted as a storm above this
        storm_ops_per_s: i64 = s.storm_ops_per_s, int(1, i64::from(u32::MAX)), "start only";
        /// Regex of the asset URIs clients may fetch (whole URI; package:// files only, inside their package)
        asset_uri_allowlist: String = crate::assets::DEFAULT_ALLOWLIST.to_string(), any(), "start only";
        /// Graph polling period for new and gone topics [ms]
        discovery_ms: i64 = 500, int(*DISCOVERY_MS.start(), *DISCOVERY_MS.end()), "start only";
        /// PEM certificate chain of wss:// (with tls_key; empty = plain ws://)
        tls_cert: String = String::new(), any(), "start only";
        /// PEM private key of tls_cert
        tls_key: String = String::new(), any(), "start only";
        /// File of access tokens, one `NAME ROLE TOKEN` a line (role viewer: read only; operator); empty = no token asked
        token_file: String = String::new(), any(), "start only";
        /// Serve an address other than loopback without TLS and tokens (logged as a warning at every start)
        insecure: bool = false, any(), "start only";
    }
}

impl FoxgloveParams {
    /// The library's raw settings.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            address: self.address.clone(),
            port: self.port,
            topic_allow: self.topic_allow.clone(),
            topic_deny: self.topic_deny.clone(),
            publish_allow: self.publish_allow.clone(),
            service_allow: self.service_allow.clone(),
            latched_depth: self.latched_depth,
            subscription_queue: self.subscription_queue,
            storm_ops_per_s: self.storm_ops_per_s,
        }
    }

    /// The checked config.
    pub(crate) fn config(&self) -> Result<Config, ConfigError> {
        Config::new(&self.settings())
    }

    /// The asset URI allowlist (a regex, checked at start by [`rules`]).
    pub(crate) fn asset_uri_allowlist(&self) -> &str {
        &self.asset_uri_allowlist
    }

    /// TLS and tokens, read and checked, and the bind rule's warning (`insecure`).
    pub(crate) fn security(&self) -> Result<Security, ConfigError> {
        let tls = match (self.tls_cert.is_empty(), self.tls_key.is_empty()) {
            (true, true) => None,
            (false, false) => Some(super::tls::acceptor(
                std::path::Path::new(&self.tls_cert),
                std::path::Path::new(&self.tls_key),
            )?),
            (false, true) => {
                return Err(ConfigError::new(
                    "tls_key",
                    "tls_cert is set: tls_key must be too",
                ))
            }
            (true, false) => {
                return Err(ConfigError::new(
                    "tls_cert",
                    "tls_key is set: tls_cert must be too",
                ))
            }
        };
        let tokens = if self.token_file.is_empty() {
            None
        } else {
            Some(Tokens::load(std::path::Path::new(&self.token_file))?)
        };
        let address = self.config()?.address;
        let warning = bind_rule(address, tls.is_some(), tokens.is_some(), self.insecure)?;
        Ok(Security {
            tls,
            tokens,
            warning,
        })
    }

    /// The graph polling period (checked).
    pub(crate) fn discovery(&self) -> Result<Duration, ConfigError> {
        let v = self.discovery_ms;
        if !DISCOVERY_MS.contains(&v) {
            return Err(ConfigError::new(
                "discovery_ms",
                format!(
                    "must be in {}..={} [ms], got {v}",
                    DISCOVERY_MS.start(),
                    DISCOVERY_MS.end()
                ),
            ));
        }
        Ok(Duration::from_millis(v.unsigned_abs()))
    }
}

/// The whole-set check run at start (after the declared ranges; a `ros2 param set` is
/// refused as read only first).
pub(crate) fn rules() -> Rules<FoxgloveParams> {
    Rules {
        check: |p: &FoxgloveParams| check_all(p).map_err(Into::into),
    }
}

/// Every whole-set check: the config, the polling period, the asset allowlist.
fn check_all(p: &FoxgloveParams) -> Result<(), ConfigError> {
    p.config()?;
    p.discovery()?;
    p.security()?;
    crate::assets::Assets::new(&p.asset_uri_allowlist, Vec::new())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;

    fn check(p: FoxgloveParams) -> Result<(), node_glue::params::RuleError> {
        (rules().check)(&p)
    }

    #[test]
    fn defaults_pass_and_match_the_library_settings() {
        let p = FoxgloveParams::default();
        assert!(check(p.clone()).is_ok());
        assert_eq!(p.settings(), Settings::default());
        assert_eq!(p.discovery(), Ok(Duration::from_millis(500)));
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let d = FoxgloveParams::default;
        let cases = [
            (
                FoxgloveParams {
                    discovery_ms: 0,
                    ..d()
                },
                "discovery_ms must be in 10..=60000 [ms], got 0",
            ),
            (
                FoxgloveParams {
                    discovery_ms: i64::MAX,
                    ..d()
                },
                "discovery_ms must be in 10..=60000 [ms]",
            ),
            (
                FoxgloveParams {
                    port: 70_000,
                    ..d()
                },
                "port",
            ),
            (
                FoxgloveParams {
                    topic_deny: "(".into(),
                    ..d()
                },
                "topic_deny",
            ),
        ];
        for (p, want) in cases {
            let err = check(p).unwrap_err().to_string();
            assert!(err.contains(want), "{err} does not contain {want}");
        }
    }

    #[test]
    fn every_parameter_is_start_only() {
        let decls = FoxgloveParams::declarations();
        assert_eq!(decls.len(), 15);
        for d in decls {
            assert!(d.read_only(), "{} is not start only", d.name);
        }
    }

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<FoxgloveParams>(include_str!("../../README.md")).unwrap();
    }
}
