//! A lab's keys for DDS between hosts over TLS, and the files that use them.
//!
//! One folder holds a lab: its certificate authority (`ca.pem`, `ca.key`), `lab.json`
//! (the hosts: name, LAN address, discovery server port) and one folder per host,
//! `hosts/NAME/`, with everything that host needs and nothing of the others' secrets:
//!
//! | file | what |
//! | --- | --- |
//! | `key.pem`, `cert.pem` | the host's ECDSA P-256 key and its certificate, signed by the CA (SAN: the name and the address; client and server use) |
//! | `ca.pem` | the CA certificate, the only one a peer's certificate is checked against |
//! | `fastdds.xml` | the Fast DDS profile of every ROS process of the host: the TCPv4 transport with TLS (1.2 or newer, peer verification, the host's key), shared memory for the host's own processes, no built-in UDP transports, and every host's discovery server |
//! | `discovery_server.xml` | the profile of the host's discovery server (`fast-discovery-server`) |
//! | `openssl.cnf` | makes the accepting side of every TLS connection require a client certificate (see below) |
//! | `env` | the environment of the host's ROS processes (`. hosts/NAME/env`) |
//!
//! Why a discovery server: Fast DDS's TCP transport finds peers only at addresses and
//! ports it is given, and every ROS process is one participant with its own port. Each
//! host runs one `fast-discovery-server` on a fixed port (TLS like everything else); every
//! process is a discovery super-client of all hosts' servers, listens on a port the system
//! picks, and connects to the other processes directly (TLS) once a server has told it
//! where they are. Processes of one host also talk over shared memory.
//!
//! Why `openssl.cnf`: Fast DDS 2.14 (Jazzy's) sets the verification mode of a TLS
//! connection only on the side that connects (`TCPChannelResourceSecure::set_tls_verify_mode`,
//! with an `else if` chain that keeps only `VERIFY_PEER` of `VERIFY_PEER |
//! VERIFY_FAIL_IF_NO_PEER_CERT`); the accepting side keeps OpenSSL's default, which asks
//! for no client certificate. So a client without any certificate completes the handshake.
//! OpenSSL reads `OPENSSL_CONF` when the library starts and applies its `system_default`
//! section to every TLS context; `VerifyMode = Peer,Require` there makes every accepting
//! socket demand a certificate signed by the CA. (`MinProtocol = TLSv1.2` as well.)
//!
//! No ROS, no OpenSSL: keys and certificates come from `rcgen` (ring).

use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use serde::{Deserialize, Serialize};

/// The port of each host's discovery server when none is given. Above Linux's default
/// ephemeral range (32768-60999) on purpose: Fast DDS's TCP transport connects from the
/// participant with the lower listening port to the one with the higher, and every ROS
/// process listens on an ephemeral port, so each connects to the servers itself.
pub const DEFAULT_SERVER_PORT: u16 = 61400;
/// The Fast DDS profile name of every ROS process (the default profile).
pub const CLIENT_PROFILE: &str = "arnie_secure";
/// The Fast DDS profile name of the discovery server.
pub const SERVER_PROFILE: &str = "arnie_discovery_server";

/// What went wrong, naming the file or the value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A key or certificate could not be made or read.
    #[error("certificate: {0}")]
    Cert(#[from] rcgen::Error),
    /// `lab.json` does not parse.
    #[error("{path}: {msg}")]
    Lab {
        /// The file.
        path: PathBuf,
        /// Why.
        msg: String,
    },
    /// A value given on the command line cannot be used (the text says why).
    #[error("{0}")]
    Invalid(String),
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, Error> {
    r.map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

/// How long a certificate is valid: from `backdate_days` ago for `days` days (a
/// negative end in the past makes an expired one, for tests).
#[derive(Debug, Clone, Copy)]
pub struct Validity {
    /// Days of validity from the start.
    pub days: i64,
    /// Days before now the validity starts.
    pub backdate_days: i64,
}

impl Default for Validity {
    fn default() -> Self {
        Validity {
            days: 3650,
            backdate_days: 1,
        }
    }
}

impl Validity {
    fn apply(&self, p: &mut CertificateParams) {
        let start = time::OffsetDateTime::now_utc() - time::Duration::days(self.backdate_days);
        p.not_before = start;
        p.not_after = start + time::Duration::days(self.days);
    }
}

/// One host of the lab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    /// Its name (letters, digits, `_`, `-`).
    pub name: String,
    /// Its LAN address: where its discovery server listens.
    pub address: Ipv4Addr,
    /// Its discovery server's TCP port.
    pub port: u16,
    /// Its discovery server's number (the GUID prefix's third byte).
    pub id: u8,
}

impl Host {
    /// The GUID prefix of the host's discovery server (Fast DDS's usual form).
    pub fn server_prefix(&self) -> String {
        format!("44.53.{:02x}.5f.45.50.52.4f.53.49.4d.41", self.id)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct LabFile {
    ca_name: String,
    hosts: Vec<Host>,
}

/// A lab: its folder, CA and hosts.
#[derive(Debug, Clone)]
pub struct Lab {
    dir: PathBuf,
    ca_name: String,
    hosts: Vec<Host>,
}

/// A role of a Foxglove bridge token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Reads topics and parameters; may not publish, set parameters or call services.
    Viewer,
    /// Everything the bridge allows.
    Operator,
}

impl Role {
    /// The name in the tokens file.
    pub fn name(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
        }
    }

    /// From its name.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "viewer" => Some(Role::Viewer),
            "operator" => Some(Role::Operator),
            _ => None,
        }
    }
}

fn write_file(path: &Path, text: &str, secret: bool) -> Result<(), Error> {
    if let Some(parent) = path.parent() {
        io(parent, fs::create_dir_all(parent))?;
    }
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(if secret { 0o600 } else { 0o644 });
    }
    let mut f = io(path, opts.open(path))?;
    io(path, f.write_all(text.as_bytes()))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Text safe in an XML element (paths with markup characters are refused).
fn xml_text(s: &str) -> Result<&str, Error> {
    if s.contains(['<', '>', '&', '"', '\'']) || s.contains("${") {
        return Err(Error::Invalid(format!(
            "{s}: a path with <, >, &, quotes or ${{ cannot go in a Fast DDS profile"
        )));
    }
    Ok(s)
}

fn ca_params(name: &str) -> CertificateParams {
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    dn.push(DnType::OrganizationName, "arnie");
    p.distinguished_name = dn;
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p
}

impl Lab {
    /// Makes a new lab in `dir` (created if needed): a CA named `ca_name`. Refuses a
    /// folder that already has a CA key (so a lab's keys are never overwritten).
    ///
    /// # Errors
    /// An existing CA, a file that cannot be written, a certificate error.
    pub fn init(dir: &Path, ca_name: &str, validity: Validity) -> Result<Lab, Error> {
        let key_path = dir.join("ca.key");
        if key_path.exists() {
            return Err(Error::Invalid(format!(
                "{}: a lab is already there (its CA key would be lost); pick another --dir",
                key_path.display()
            )));
        }
        if ca_name.trim().is_empty() {
            return Err(Error::Invalid("the CA name is empty".into()));
        }
        io(dir, fs::create_dir_all(dir))?;
        let dir = io(dir, fs::canonicalize(dir))?;
        let key = KeyPair::generate()?;
        let mut params = ca_params(ca_name);
        validity.apply(&mut params);
        let cert = params.self_signed(&key)?;
        write_file(&dir.join("ca.key"), &key.serialize_pem(), true)?;
        write_file(&dir.join("ca.pem"), &cert.pem(), false)?;
        let lab = Lab {
            dir,
            ca_name: ca_name.to_owned(),
            hosts: Vec::new(),
        };
        lab.save()?;
        Ok(lab)
    }

    /// Opens the lab in `dir`.
    ///
    /// # Errors
    /// No lab there, or a `lab.json` that does not parse.
    pub fn open(dir: &Path) -> Result<Lab, Error> {
        let path = dir.join("lab.json");
        let text = io(&path, fs::read_to_string(&path))?;
        let f: LabFile = serde_json::from_str(&text).map_err(|e| Error::Lab {
            path: path.clone(),
            msg: e.to_string(),
        })?;
        Ok(Lab {
            dir: io(dir, fs::canonicalize(dir))?,
            ca_name: f.ca_name,
            hosts: f.hosts,
        })
    }

    fn save(&self) -> Result<(), Error> {
        let f = LabFile {
            ca_name: self.ca_name.clone(),
            hosts: self.hosts.clone(),
        };
        let text = serde_json::to_string_pretty(&f).map_err(|e| Error::Invalid(e.to_string()))?;
        write_file(&self.dir.join("lab.json"), &(text + "\n"), false)
    }

    /// The lab's folder (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The hosts, in the order they were added.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// A host by name.
    pub fn host(&self, name: &str) -> Option<&Host> {
        self.hosts.iter().find(|h| h.name == name)
    }

    /// The folder of host `name`.
    pub fn host_dir(&self, name: &str) -> PathBuf {
        self.dir.join("hosts").join(name)
    }

    /// Adds host `name` at `address` (its discovery server on `port`): its key and
    /// certificate, then every host's profiles again (each names every host's server).
    ///
    /// # Errors
    /// A bad or taken name, address or port; a file that cannot be written.
    pub fn add_host(
        &mut self,
        name: &str,
        address: Ipv4Addr,
        port: u16,
        validity: Validity,
    ) -> Result<&Host, Error> {
        if !valid_name(name) {
            return Err(Error::Invalid(format!(
                "host name `{name}`: letters, digits, `_` and `-` only (1 to 64)"
            )));
        }
        if let Some(h) = self
            .hosts
            .iter()
            .find(|h| h.name == name || (h.address == address && h.port == port))
        {
            return Err(Error::Invalid(format!(
                "host `{}` ({}:{}) is already in the lab",
                h.name, h.address, h.port
            )));
        }
        if address.is_unspecified() || address.is_multicast() || address.is_broadcast() {
            return Err(Error::Invalid(format!(
                "{address}: a host needs its own unicast address"
            )));
        }
        if port == 0 {
            return Err(Error::Invalid(
                "the discovery server port cannot be 0".into(),
            ));
        }
        let id = (0..=u8::MAX)
            .find(|i| self.hosts.iter().all(|h| h.id != *i))
            .ok_or_else(|| Error::Invalid("a lab has at most 256 hosts".into()))?;
        let ca_key_path = self.dir.join("ca.key");
        let ca_key = KeyPair::from_pem(&io(&ca_key_path, fs::read_to_string(&ca_key_path))?)?;
        let issuer = Issuer::new(ca_params(&self.ca_name), ca_key);
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(vec![name.to_owned()])?;
        params
            .subject_alt_names
            .push(SanType::IpAddress(std::net::IpAddr::V4(address)));
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, name);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "arnie");
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyAgreement,
        ];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        validity.apply(&mut params);
        let cert = params.signed_by(&key, &issuer)?;
        let hdir = self.host_dir(name);
        xml_text(&hdir.to_string_lossy())?;
        write_file(&hdir.join("key.pem"), &key.serialize_pem(), true)?;
        write_file(&hdir.join("cert.pem"), &cert.pem(), false)?;
        let ca_pem = io(
            &self.dir.join("ca.pem"),
            fs::read_to_string(self.dir.join("ca.pem")),
        )?;
        write_file(&hdir.join("ca.pem"), &ca_pem, false)?;
        self.hosts.push(Host {
            name: name.to_owned(),
            address,
            port,
            id,
        });
        self.save()?;
        self.render_all()?;
        Ok(self.hosts.last().expect("just pushed"))
    }

    /// Writes every host's profiles, `openssl.cnf` and `env` again.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn render_all(&self) -> Result<(), Error> {
        for h in &self.hosts {
            let d = self.host_dir(&h.name);
            write_file(&d.join("fastdds.xml"), &self.client_profile(h)?, false)?;
            write_file(
                &d.join("discovery_server.xml"),
                &self.server_profile(h)?,
                false,
            )?;
            write_file(&d.join("openssl.cnf"), OPENSSL_CNF, false)?;
            write_file(&d.join("env"), &self.env_file(h), false)?;
        }
        Ok(())
    }

    fn tls_block(&self, h: &Host) -> Result<String, Error> {
        let d = self.host_dir(&h.name);
        let d = xml_text(&d.to_string_lossy())?.to_owned();
        Ok(format!(
            r"        <tls>
          <private_key_file>{d}/key.pem</private_key_file>
          <cert_chain_file>{d}/cert.pem</cert_chain_file>
          <verify_file>{d}/ca.pem</verify_file>
          <verify_mode>
            <verify>VERIFY_PEER</verify>
            <verify>VERIFY_FAIL_IF_NO_PEER_CERT</verify>
          </verify_mode>
          <options>
            <option>DEFAULT_WORKAROUNDS</option>
            <option>NO_COMPRESSION</option>
            <option>NO_SSLV2</option>
            <option>NO_SSLV3</option>
            <option>NO_TLSV1</option>
            <option>NO_TLSV1_1</option>
          </options>
        </tls>
"
        ))
    }

    fn servers_list(&self) -> String {
        let mut s = String::new();
        for h in &self.hosts {
            let _ = write!(
                s,
                r#"              <RemoteServer prefix="{prefix}">
                <metatrafficUnicastLocatorList>
                  <locator><tcpv4><address>{a}</address><physical_port>{p}</physical_port><port>{p}</port></tcpv4></locator>
                </metatrafficUnicastLocatorList>
              </RemoteServer>
"#,
                prefix = h.server_prefix(),
                a = h.address,
                p = h.port
            );
        }
        s
    }

    /// The Fast DDS profile of host `h`'s ROS processes (`hosts/NAME/fastdds.xml`).
    ///
    /// # Errors
    /// A lab folder whose path cannot go in XML.
    pub fn client_profile(&self, h: &Host) -> Result<String, Error> {
        Ok(format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by arnie_secure for host `{name}` ({addr}) of the lab in {lab}. Do not edit:
     `cargo xtask secure add-host` writes it again. Every ROS process of the host:
     FASTDDS_DEFAULT_PROFILES_FILE (see ./env). -->
<dds xmlns="http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles">
  <profiles>
    <transport_descriptors>
      <!-- Between hosts: TCP with TLS 1.2+, the lab's CA, this host's key. Port 0: the
           system picks one per process (announced through the discovery servers). -->
      <transport_descriptor>
        <transport_id>arnie_tls</transport_id>
        <type>TCPv4</type>
        <listening_ports><port>0</port></listening_ports>
        <enable_tcp_nodelay>true</enable_tcp_nodelay>
{tls}      </transport_descriptor>
      <!-- Between the processes of this host. -->
      <transport_descriptor>
        <transport_id>arnie_shm</transport_id>
        <type>SHM</type>
      </transport_descriptor>
    </transport_descriptors>
    <participant profile_name="{CLIENT_PROFILE}" is_default_profile="true">
      <rtps>
        <!-- No built-in UDP transports: nothing is sent or received over UDP. -->
        <useBuiltinTransports>false</useBuiltinTransports>
        <userTransports>
          <transport_id>arnie_tls</transport_id>
          <transport_id>arnie_shm</transport_id>
        </userTransports>
        <builtin>
          <discovery_config>
            <discoveryProtocol>SUPER_CLIENT</discoveryProtocol>
            <discoveryServersList>
{servers}            </discoveryServersList>
          </discovery_config>
        </builtin>
      </rtps>
    </participant>
  </profiles>
</dds>
"#,
            name = h.name,
            addr = h.address,
            lab = xml_text(&self.dir.to_string_lossy())?,
            tls = self.tls_block(h)?,
            servers = self.servers_list(),
        ))
    }

    /// The profile of host `h`'s discovery server (`hosts/NAME/discovery_server.xml`;
    /// `fast-discovery-server -x arnie_discovery_server@FILE`).
    ///
    /// # Errors
    /// A lab folder whose path cannot go in XML.
    pub fn server_profile(&self, h: &Host) -> Result<String, Error> {
        Ok(format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by arnie_secure: the discovery server of host `{name}`, TLS on
     {addr}:{port}. Run: fast-discovery-server -x {SERVER_PROFILE}@THIS_FILE (with the
     host's env). -->
<dds xmlns="http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles">
  <profiles>
    <transport_descriptors>
      <transport_descriptor>
        <transport_id>arnie_tls_server</transport_id>
        <type>TCPv4</type>
        <listening_ports><port>{port}</port></listening_ports>
        <enable_tcp_nodelay>true</enable_tcp_nodelay>
{tls}      </transport_descriptor>
    </transport_descriptors>
    <participant profile_name="{SERVER_PROFILE}" is_default_profile="true">
      <rtps>
        <prefix>{prefix}</prefix>
        <useBuiltinTransports>false</useBuiltinTransports>
        <userTransports><transport_id>arnie_tls_server</transport_id></userTransports>
        <builtin>
          <discovery_config>
            <discoveryProtocol>SERVER</discoveryProtocol>
          </discovery_config>
          <metatrafficUnicastLocatorList>
            <locator><tcpv4><address>{addr}</address><physical_port>{port}</physical_port><port>{port}</port></tcpv4></locator>
          </metatrafficUnicastLocatorList>
        </builtin>
      </rtps>
    </participant>
  </profiles>
</dds>
"#,
            name = h.name,
            addr = h.address,
            port = h.port,
            prefix = h.server_prefix(),
            tls = self.tls_block(h)?,
        ))
    }

    /// The environment of host `h`'s ROS processes, as `export` lines.
    pub fn env_file(&self, h: &Host) -> String {
        let d = self.host_dir(&h.name);
        let d = d.display();
        format!(
            "# The environment of every ROS process (and the discovery server) of host `{name}`:\n\
             # . {d}/env\n\
             export ARNIE_DDS_SECURE={d}\n\
             export FASTDDS_DEFAULT_PROFILES_FILE={d}/fastdds.xml\n\
             export FASTRTPS_DEFAULT_PROFILES_FILE={d}/fastdds.xml\n\
             export OPENSSL_CONF={d}/openssl.cnf\n\
             # rmw_fastrtps keeps the profile's transports only with these two.\n\
             export ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT\n\
             export ROS_STATIC_PEERS=\n",
            name = h.name
        )
    }

    /// The path of the Foxglove bridge's tokens file.
    pub fn tokens_path(&self) -> PathBuf {
        self.dir.join("foxglove_tokens")
    }

    /// Adds a token named `name` with `role` to the tokens file (made readable by its
    /// owner only) and returns it.
    ///
    /// # Errors
    /// A bad name or a file that cannot be written.
    pub fn add_token(&self, name: &str, role: Role) -> Result<String, Error> {
        if !valid_name(name) {
            return Err(Error::Invalid(format!(
                "token name `{name}`: letters, digits, `_` and `-` only (1 to 64)"
            )));
        }
        let path = self.tokens_path();
        let mut text = if path.exists() {
            io(&path, fs::read_to_string(&path))?
        } else {
            "# Foxglove bridge tokens: NAME ROLE TOKEN (role: viewer = read only, operator)\n"
                .to_owned()
        };
        if text
            .lines()
            .any(|l| l.split_whitespace().next() == Some(name))
        {
            return Err(Error::Invalid(format!(
                "a token named `{name}` is already in {}",
                path.display()
            )));
        }
        let token = random_token()?;
        let _ = writeln!(text, "{name} {} {token}", role.name());
        write_file(&path, &text, true)?;
        Ok(token)
    }
}

/// 32 random bytes from the system, hex: a token nobody guesses.
///
/// # Errors
/// No `/dev/urandom`.
pub fn random_token() -> Result<String, Error> {
    let path = Path::new("/dev/urandom");
    let mut bytes = [0u8; 32];
    let mut f = io(path, fs::File::open(path))?;
    io(path, f.read_exact(&mut bytes))?;
    Ok(bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    }))
}

/// See the crate documentation: OpenSSL's `system_default` for every TLS context of the
/// process (Fast DDS's included).
pub const OPENSSL_CNF: &str =
    "# Generated by arnie_secure. OPENSSL_CONF of every ROS process of the host: every TLS\n\
# context (Fast DDS's) requires TLS 1.2+ and, when it accepts a connection, a client\n\
# certificate (Fast DDS 2.14 asks for none on the accepting side otherwise).\n\
openssl_conf = arnie_openssl\n\
\n\
[arnie_openssl]\n\
ssl_conf = arnie_ssl\n\
\n\
[arnie_ssl]\n\
system_default = arnie_tls\n\
\n\
[arnie_tls]\n\
MinProtocol = TLSv1.2\n\
VerifyMode = Peer,Require\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("arnie_secure_{name}_{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn lab(name: &str) -> Lab {
        let d = tmp(name);
        let mut lab = Lab::init(&d, "test lab", Validity::default()).unwrap();
        lab.add_host(
            "rt",
            "10.77.0.1".parse().unwrap(),
            DEFAULT_SERVER_PORT,
            Validity::default(),
        )
        .unwrap();
        lab.add_host(
            "station",
            "10.77.0.2".parse().unwrap(),
            DEFAULT_SERVER_PORT,
            Validity::default(),
        )
        .unwrap();
        lab
    }

    fn text<'a>(doc: &'a roxmltree::Document, tag: &str) -> Vec<&'a str> {
        doc.descendants()
            .filter(|n| n.has_tag_name(tag))
            .filter_map(|n| n.text())
            .collect()
    }

    #[test]
    fn every_host_profile_names_every_server_and_only_its_own_key() {
        let lab = lab("profiles");
        for h in lab.hosts() {
            let xml = fs::read_to_string(lab.host_dir(&h.name).join("fastdds.xml")).unwrap();
            let doc = roxmltree::Document::parse(&xml).unwrap();
            assert_eq!(text(&doc, "useBuiltinTransports"), ["false"]);
            assert_eq!(text(&doc, "type"), ["TCPv4", "SHM"]);
            assert_eq!(text(&doc, "discoveryProtocol"), ["SUPER_CLIENT"]);
            assert_eq!(text(&doc, "address"), ["10.77.0.1", "10.77.0.2"]);
            assert_eq!(
                text(&doc, "verify"),
                ["VERIFY_PEER", "VERIFY_FAIL_IF_NO_PEER_CERT"]
            );
            let key = text(&doc, "private_key_file");
            assert_eq!(key.len(), 1);
            assert!(
                key[0].ends_with(&format!("hosts/{}/key.pem", h.name)),
                "{key:?}"
            );
            let opts = text(&doc, "option");
            for o in ["NO_SSLV2", "NO_SSLV3", "NO_TLSV1", "NO_TLSV1_1"] {
                assert!(opts.contains(&o), "{o} missing: {opts:?}");
            }
            let server =
                fs::read_to_string(lab.host_dir(&h.name).join("discovery_server.xml")).unwrap();
            let doc = roxmltree::Document::parse(&server).unwrap();
            assert_eq!(text(&doc, "discoveryProtocol"), ["SERVER"]);
            assert_eq!(text(&doc, "prefix"), [h.server_prefix().as_str()]);
            assert_eq!(text(&doc, "address"), [h.address.to_string().as_str()]);
            let env = fs::read_to_string(lab.host_dir(&h.name).join("env")).unwrap();
            assert!(
                env.contains("ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT"),
                "{env}"
            );
            assert!(env.contains("OPENSSL_CONF="), "{env}");
        }
        assert_ne!(
            lab.hosts()[0].server_prefix(),
            lab.hosts()[1].server_prefix()
        );
        // Reopened from lab.json: the same hosts.
        assert_eq!(Lab::open(lab.dir()).unwrap().hosts(), lab.hosts());
    }

    #[test]
    fn keys_are_private_and_certificates_pem() {
        use std::os::unix::fs::PermissionsExt;
        let lab = lab("keys");
        for f in ["ca.key", "hosts/rt/key.pem"] {
            let mode = fs::metadata(lab.dir().join(f))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{f} readable by others: {mode:o}");
        }
        let cert = fs::read_to_string(lab.dir().join("hosts/rt/cert.pem")).unwrap();
        assert!(cert.starts_with("-----BEGIN CERTIFICATE-----"), "{cert}");
        let key = fs::read_to_string(lab.dir().join("hosts/rt/key.pem")).unwrap();
        assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"), "{key}");
    }

    #[test]
    fn bad_names_addresses_and_a_second_init_are_refused() {
        let mut lab = lab("bad");
        let v = Validity::default();
        for (name, addr) in [
            ("rt", "10.77.0.9"),
            ("a b", "10.77.0.9"),
            ("", "10.77.0.9"),
            ("x", "0.0.0.0"),
            ("y", "10.77.0.1"),
        ] {
            assert!(
                lab.add_host(name, addr.parse().unwrap(), DEFAULT_SERVER_PORT, v)
                    .is_err(),
                "{name} {addr}"
            );
        }
        assert!(Lab::init(lab.dir(), "again", v).is_err());
        assert_eq!(lab.hosts().len(), 2);
    }

    #[test]
    fn tokens_are_random_named_once_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let lab = lab("tokens");
        let a = lab.add_token("viewer1", Role::Viewer).unwrap();
        let b = lab.add_token("op", Role::Operator).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(lab.add_token("op", Role::Viewer).is_err());
        let text = fs::read_to_string(lab.tokens_path()).unwrap();
        assert!(text.contains(&format!("viewer1 viewer {a}")), "{text}");
        assert!(text.contains(&format!("op operator {b}")), "{text}");
        let mode = fs::metadata(lab.tokens_path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0);
    }
}
