//! `wss://`: the front's TLS acceptor from the `tls_cert` and `tls_key` files (PEM), and
//! the client side the bench uses. rustls with ring; TLS 1.2 and 1.3 only.

use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::config::ConfigError;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificate chain in `path` (parameter `param`), at least one certificate.
fn certs(param: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, ConfigError> {
    let bad = |e: String| ConfigError::new(param, format!("{}: {e}", path.display()));
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not a PEM certificate chain: {e}")))?;
    if certs.is_empty() {
        return Err(bad("no PEM certificate in it".into()));
    }
    Ok(certs)
}

/// The acceptor of `wss://` clients: the chain in `cert` and its key in `key`.
///
/// # Errors
/// A [`ConfigError`] naming `tls_cert` or `tls_key`: unreadable, not PEM, or a key that
/// does not match the certificate.
pub(crate) fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, ConfigError> {
    let chain = certs("tls_cert", cert)?;
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        ConfigError::new(
            "tls_key",
            format!("{}: not a PEM private key: {e}", key.display()),
        )
    })?;
    let config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::new("tls_cert", e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .map_err(|e| {
            ConfigError::new(
                "tls_key",
                format!("{} does not go with {}: {e}", key.display(), cert.display()),
            )
        })?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A `wss://` client that trusts the certificates in `ca` only (the bench's).
///
/// # Errors
/// A [`ConfigError`] naming `ca`.
pub fn connector(ca: &Path) -> Result<TlsConnector, ConfigError> {
    let mut roots = rustls::RootCertStore::empty();
    for c in certs("ca", ca)? {
        roots
            .add(c)
            .map_err(|e| ConfigError::new("ca", format!("{}: {e}", ca.display())))?;
    }
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::new("ca", e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}
