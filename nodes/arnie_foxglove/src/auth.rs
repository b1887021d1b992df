//! Who may open the bridge: access tokens, the HTTP answers to a client without one, the
//! limit on guesses, and the rule that keeps an unprotected bridge on loopback.
//!
//! A client presents its token in the upgrade request, as browsers can (`?token=...` in
//! the URL: the WebSocket API cannot set headers) or as other clients do
//! (`Authorization: Bearer ...`). The tokens file (parameter `token_file`, never a
//! command-line value) has one line per token, `NAME ROLE TOKEN`: `viewer` tokens read
//! topics and parameters only; `operator` tokens may also publish (on `publish_allow`),
//! set parameters and call services. No token, a wrong one, an empty or a huge one gets
//! HTTP 401; an address that failed too often gets HTTP 429 without its token being
//! looked at (see [`Guesses`]). Pure functions and state, no ROS, no I/O but reading the
//! file.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::config::ConfigError;

/// Longest token read from a request [bytes]; longer ones are refused unread.
pub const MAX_TOKEN: usize = 1024;
/// Failed attempts from one address within [`GUESS_WINDOW`] before it is refused (429)
/// without a look at its token.
pub const MAX_FAILURES: u32 = 10;
/// The window of [`MAX_FAILURES`].
pub const GUESS_WINDOW: Duration = Duration::from_secs(60);
/// Addresses remembered by [`Guesses`] (the oldest forgotten first beyond it).
const MAX_ADDRESSES: usize = 4096;
/// Shortest token accepted in the file [characters].
const MIN_TOKEN: usize = 16;

/// What a token allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Subscribe to topics, read parameters and the graph.
    Viewer,
    /// Also publish on `publish_allow`, set parameters, call services.
    Operator,
}

impl Role {
    /// Its name in the tokens file and the logs.
    pub fn name(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    role: Role,
    token: Vec<u8>,
}

/// The tokens of the tokens file.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    entries: Vec<Entry>,
}

/// Equal bytes, in a time that depends on the lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

impl Tokens {
    /// Parses a tokens file's text (`#` comments and blank lines allowed).
    ///
    /// # Errors
    /// The line number and what is wrong with it: not three fields, an unknown role, a
    /// token shorter than 16 characters or with characters other than `A-Za-z0-9-._~`, a
    /// name or token given twice; or no token at all.
    pub fn parse(text: &str) -> Result<Tokens, String> {
        let mut entries: Vec<Entry> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, role, token] = fields.as_slice() else {
                return Err(format!(
                    "line {n}: expected `NAME ROLE TOKEN`, got {} fields",
                    fields.len()
                ));
            };
            let role = match *role {
                "viewer" => Role::Viewer,
                "operator" => Role::Operator,
                other => return Err(format!("line {n}: role `{other}`: viewer or operator")),
            };
            let ok = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
            if token.len() < MIN_TOKEN || token.len() > MAX_TOKEN || !token.chars().all(ok) {
                return Err(format!(
                    "line {n}: the token of `{name}` must be {MIN_TOKEN} to {MAX_TOKEN} characters of A-Z a-z 0-9 - . _ ~"
                ));
            }
            if entries
                .iter()
                .any(|e| e.name == *name || same(&e.token, token.as_bytes()))
            {
                return Err(format!("line {n}: `{name}` or its token is given twice"));
            }
            entries.push(Entry {
                name: (*name).to_owned(),
                role,
                token: token.as_bytes().to_vec(),
            });
        }
        if entries.is_empty() {
            return Err("no token in it".into());
        }
        Ok(Tokens { entries })
    }

    /// Reads and parses the tokens file at `path`.
    ///
    /// # Errors
    /// A [`ConfigError`] of `token_file` naming the file and why.
    pub fn load(path: &Path) -> Result<Tokens, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new("token_file", format!("{}: {e}", path.display())))?;
        Tokens::parse(&text)
            .map_err(|e| ConfigError::new("token_file", format!("{}: {e}", path.display())))
    }

    /// How many tokens of `role` there are.
    pub fn count(&self, role: Role) -> usize {
        self.entries.iter().filter(|e| e.role == role).count()
    }

    /// The name and role of `presented`, compared with every token in constant time.
    pub fn find(&self, presented: &[u8]) -> Option<(&str, Role)> {
        let mut found = None;
        for e in &self.entries {
            if same(&e.token, presented) && found.is_none() {
                found = Some((e.name.as_str(), e.role));
            }
        }
        found
    }

    /// Judges a request head: the token's name and role, or why it is refused.
    ///
    /// # Errors
    /// [`AuthRefusal`]: no token, an empty, huge or unknown one.
    pub fn check(&self, head: &[u8]) -> Result<(&str, Role), AuthRefusal> {
        match presented_token(head) {
            Presented::None => Err(AuthRefusal::Missing),
            Presented::Empty => Err(AuthRefusal::Empty),
            Presented::TooLong => Err(AuthRefusal::TooLong),
            Presented::Token(t) => self.find(&t).ok_or(AuthRefusal::Wrong),
        }
    }
}

/// The token a request presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// None.
    None,
    /// `token=` or `Authorization: Bearer` with nothing after it.
    Empty,
    /// Longer than [`MAX_TOKEN`].
    TooLong,
    /// This one (percent-decoded when it came in the URL).
    Token(Vec<u8>),
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn percent_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match (
            s[i],
            s.get(i + 1).and_then(|b| hex(*b)),
            s.get(i + 2).and_then(|b| hex(*b)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(h * 16 + l);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fn judge(raw: &[u8], decode: bool) -> Presented {
    if raw.len() > 3 * MAX_TOKEN {
        return Presented::TooLong;
    }
    let t = if decode {
        percent_decode(raw)
    } else {
        raw.to_vec()
    };
    let t = t.trim_ascii().to_vec();
    if t.is_empty() {
        Presented::Empty
    } else if t.len() > MAX_TOKEN {
        Presented::TooLong
    } else {
        Presented::Token(t)
    }
}

/// The token in a request head: the `Authorization: Bearer` header first, else the
/// URL's `token` query parameter.
pub fn presented_token(head: &[u8]) -> Presented {
    let mut lines = head.split(|b| *b == b'\n');
    let first = lines.next().unwrap_or_default();
    for line in lines {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        if !line[..colon]
            .trim_ascii()
            .eq_ignore_ascii_case(b"authorization")
        {
            continue;
        }
        let value = line[colon + 1..].trim_ascii();
        let scheme_end = value.iter().position(|b| *b == b' ').unwrap_or(value.len());
        if value[..scheme_end].eq_ignore_ascii_case(b"bearer") {
            return judge(&value[scheme_end..], false);
        }
    }
    // GET /path?a=b&token=X HTTP/1.1
    let target = first.split(|b| *b == b' ').nth(1).unwrap_or_default();
    let Some(q) = target.iter().position(|b| *b == b'?') else {
        return Presented::None;
    };
    let query = &target[q + 1..];
    let query = &query[..query.iter().position(|b| *b == b'#').unwrap_or(query.len())];
    for pair in query.split(|b| *b == b'&') {
        if let Some(v) = pair.strip_prefix(b"token=") {
            return judge(v, true);
        }
        if pair == b"token" {
            return Presented::Empty;
        }
    }
    Presented::None
}

/// Why a client is refused before the WebSocket opens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthRefusal {
    /// No token.
    #[error("no access token (?token=... or Authorization: Bearer ...)")]
    Missing,
    /// An empty token.
    #[error("an empty access token")]
    Empty,
    /// A token longer than [`MAX_TOKEN`].
    #[error("an access token longer than {MAX_TOKEN} bytes")]
    TooLong,
    /// A token not in the tokens file.
    #[error("a wrong access token")]
    Wrong,
    /// Too many failures from this address lately.
    #[error("too many failed attempts from this address: retry in {0} s")]
    RateLimited(u64),
}

impl AuthRefusal {
    /// The HTTP response: 401 (with `WWW-Authenticate: Bearer`) or 429 (with
    /// `Retry-After`).
    pub fn response(&self) -> Vec<u8> {
        let (status, extra) = match self {
            AuthRefusal::RateLimited(s) => {
                ("429 Too Many Requests", format!("Retry-After: {s}\r\n"))
            }
            _ => (
                "401 Unauthorized",
                "WWW-Authenticate: Bearer realm=\"arnie_foxglove\"\r\n".to_owned(),
            ),
        };
        let body = format!("arnie_foxglove: {self}\n");
        format!(
            "HTTP/1.1 {status}\r\n{extra}Content-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }
}

#[derive(Debug, Clone, Copy)]
struct Record {
    since: Instant,
    failures: u32,
}

/// Failed attempts per source address: after [`MAX_FAILURES`] within [`GUESS_WINDOW`],
/// the address is refused (429) until the window ends, without a look at its token, so
/// 10,000 guesses cost 10 looks. Bounded in memory.
#[derive(Debug, Default)]
pub struct Guesses {
    by_address: HashMap<IpAddr, Record>,
}

impl Guesses {
    /// `Err(seconds to wait)` when `ip` is locked out at `now`.
    pub fn allowed(&mut self, ip: IpAddr, now: Instant) -> Result<(), u64> {
        match self.by_address.get(&ip) {
            Some(r) if now.duration_since(r.since) >= GUESS_WINDOW => {
                self.by_address.remove(&ip);
                Ok(())
            }
            Some(r) if r.failures >= MAX_FAILURES => {
                let left = GUESS_WINDOW.saturating_sub(now.duration_since(r.since));
                Err(left.as_secs().max(1))
            }
            _ => Ok(()),
        }
    }

    /// Counts a failure of `ip` at `now`.
    pub fn failed(&mut self, ip: IpAddr, now: Instant) {
        if self.by_address.len() >= MAX_ADDRESSES && !self.by_address.contains_key(&ip) {
            // Forget the expired ones, then the oldest.
            self.by_address
                .retain(|_, r| now.duration_since(r.since) < GUESS_WINDOW);
            if self.by_address.len() >= MAX_ADDRESSES {
                if let Some(oldest) = self
                    .by_address
                    .iter()
                    .min_by_key(|(_, r)| r.since)
                    .map(|(ip, _)| *ip)
                {
                    self.by_address.remove(&oldest);
                }
            }
        }
        let r = self.by_address.entry(ip).or_insert(Record {
            since: now,
            failures: 0,
        });
        if now.duration_since(r.since) >= GUESS_WINDOW {
            *r = Record {
                since: now,
                failures: 0,
            };
        }
        r.failures += 1;
    }
}

/// The rule of the bind address: anything but loopback needs TLS and tokens, unless
/// `insecure` (then the returned warning is logged at every start).
///
/// # Errors
/// A [`ConfigError`] of `address` saying what is missing and how to allow it anyway.
pub fn bind_rule(
    address: IpAddr,
    tls: bool,
    tokens: bool,
    insecure: bool,
) -> Result<Option<String>, ConfigError> {
    if address.is_loopback() || (tls && tokens) {
        return Ok(None);
    }
    let missing = match (tls, tokens) {
        (false, false) => "TLS (tls_cert, tls_key) and access tokens (token_file)",
        (false, true) => "TLS (tls_cert, tls_key)",
        _ => "access tokens (token_file)",
    };
    if insecure {
        return Ok(Some(format!(
            "insecure:=true: serving on {address} without {missing}: anyone who reaches the port can read every topic{}",
            if tokens { "" } else { ", set parameters and publish on publish_allow" }
        )));
    }
    Err(ConfigError::new(
        "address",
        format!(
            "{address} is reachable from other machines: it needs {missing} (or insecure:=true to serve it unprotected anyway)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: &str = "0123456789abcdef0123456789abcdef";
    const T2: &str = "fedcba9876543210fedcba9876543210";

    fn tokens() -> Tokens {
        Tokens::parse(&format!("# c\n\nalice operator {T1}\nbob viewer {T2}\n")).unwrap()
    }

    fn req(target: &str, extra: &str) -> Vec<u8> {
        format!("GET {target} HTTP/1.1\r\nHost: h\r\n{extra}Upgrade: websocket\r\n\r\n")
            .into_bytes()
    }

    #[test]
    fn tokens_from_the_query_or_the_bearer_header() {
        let t = tokens();
        assert_eq!(
            t.check(&req(&format!("/?token={T1}"), "")),
            Ok(("alice", Role::Operator))
        );
        assert_eq!(
            t.check(&req(&format!("/x?a=1&token={T2}&b"), "")),
            Ok(("bob", Role::Viewer))
        );
        assert_eq!(
            t.check(&req("/", &format!("authorization: bearer {T2}\r\n"))),
            Ok(("bob", Role::Viewer))
        );
        // Percent-encoded in the URL.
        let enc: String = T1.bytes().map(|b| format!("%{b:02X}")).collect();
        assert_eq!(
            t.check(&req(&format!("/?token={enc}"), "")),
            Ok(("alice", Role::Operator))
        );
        assert_eq!(t.count(Role::Viewer), 1);
    }

    #[test]
    fn missing_empty_huge_and_wrong_tokens_get_401() {
        let t = tokens();
        assert_eq!(t.check(&req("/", "")), Err(AuthRefusal::Missing));
        assert_eq!(t.check(&req("/?tokenx=1", "")), Err(AuthRefusal::Missing));
        assert_eq!(t.check(&req("/?token=", "")), Err(AuthRefusal::Empty));
        assert_eq!(t.check(&req("/?token", "")), Err(AuthRefusal::Empty));
        assert_eq!(
            t.check(&req("/", "Authorization: Bearer \r\n")),
            Err(AuthRefusal::Empty)
        );
        let huge = "a".repeat(MAX_TOKEN + 1);
        assert_eq!(
            t.check(&req(&format!("/?token={huge}"), "")),
            Err(AuthRefusal::TooLong)
        );
        assert_eq!(
            t.check(&req(&format!("/?token={}", &T1[1..]), "")),
            Err(AuthRefusal::Wrong)
        );
        assert_eq!(
            t.check(&req(&format!("/?token={T1}0"), "")),
            Err(AuthRefusal::Wrong)
        );
        assert_eq!(
            t.check(&req("/", &format!("Authorization: Basic {T1}\r\n"))),
            Err(AuthRefusal::Missing)
        );
        let r = String::from_utf8(AuthRefusal::Wrong.response()).unwrap();
        assert!(r.starts_with("HTTP/1.1 401 Unauthorized\r\n"), "{r}");
        assert!(r.contains("WWW-Authenticate: Bearer"), "{r}");
        let r = String::from_utf8(AuthRefusal::RateLimited(7).response()).unwrap();
        assert!(
            r.starts_with("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n"),
            "{r}"
        );
    }

    #[test]
    fn bad_tokens_files_name_the_line() {
        for (text, want) in [
            ("a viewer", "line 1: expected"),
            (&format!("a admin {T1}") as &str, "line 1: role `admin`"),
            ("a viewer short", "line 1: the token of `a`"),
            (&format!("a viewer {T1}\nb viewer {T1}"), "line 2:"),
            (&format!("a viewer {T1}\na viewer {T2}"), "line 2:"),
            ("# nothing\n", "no token"),
            (&format!("a viewer {T1}<>"), "line 1"),
        ] {
            let e = Tokens::parse(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn ten_thousand_guesses_cost_ten_looks() {
        let mut g = Guesses::default();
        let ip: IpAddr = "10.77.0.3".parse().unwrap();
        let other: IpAddr = "10.77.0.2".parse().unwrap();
        let t0 = Instant::now();
        let mut looked = 0;
        for i in 0..10_000u64 {
            let now = t0 + Duration::from_micros(i);
            if g.allowed(ip, now).is_ok() {
                looked += 1;
                g.failed(ip, now);
            }
        }
        assert_eq!(looked, MAX_FAILURES);
        assert!(
            g.allowed(other, t0).is_ok(),
            "another address is not locked out"
        );
        assert_eq!(g.allowed(ip, t0 + Duration::from_secs(59)), Err(1));
        assert!(g.allowed(ip, t0 + GUESS_WINDOW).is_ok(), "the window ends");
        // Memory stays bounded.
        for i in 0..(MAX_ADDRESSES as u32 + 100) {
            g.failed(IpAddr::from(i.to_be_bytes()), t0);
        }
        assert!(g.by_address.len() <= MAX_ADDRESSES);
    }

    #[test]
    fn only_loopback_is_served_unprotected() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        assert_eq!(bind_rule(lo, false, false, false), Ok(None));
        assert_eq!(bind_rule(any, true, true, false), Ok(None));
        for (tls, tok) in [(false, false), (true, false), (false, true)] {
            let e = bind_rule(any, tls, tok, false).unwrap_err().to_string();
            assert!(
                e.starts_with("address") && e.contains("insecure:=true"),
                "{e}"
            );
            let w = bind_rule(any, tls, tok, true).unwrap().unwrap();
            assert!(w.starts_with("insecure:=true"), "{w}");
        }
    }
}
