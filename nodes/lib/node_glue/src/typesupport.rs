//! Any message type installed on `AMENT_PREFIX_PATH`, loaded at run time as rosbag2 and
//! foxglove_bridge load it, so the bag tool and the bridge are not limited to the
//! packages compiled into r2r.
//!
//! How a type `pkg/msg/Type` (or a service's or action's message, `pkg/srv/Get_Event`) is
//! found:
//! - the package's prefix comes from the ament index (the first prefix of
//!   `AMENT_PREFIX_PATH` holding `share/ament_index/resource_index/packages/<pkg>`, as
//!   the bag's message definitions are found);
//! - its C type support library is `<prefix>/lib/lib<pkg>__rosidl_typesupport_c.so`,
//!   opened once and kept loaded for the life of the process;
//! - the handle is what
//!   `rosidl_typesupport_c__get_message_type_support_handle__<pkg>__msg__<Type>()`
//!   returns. That handle dispatches to the middleware's own type support (Fast DDS's is
//!   loaded by it on first use), so serialized messages go through unchanged.
//!
//! Publishers and subscriptions are made with the two calls the carried r2r patch adds
//! (`third_party/r2r/PATCH.md`). Every failure is a [`TypeError`] naming the type and
//! what was looked for.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

use futures::Stream;
use r2r::{QosProfile, RawMessage, TypeSupport};

/// Why a type could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypeError {
    /// Not of the form `pkg/msg/Type` (or `pkg/Type`), or characters a ROS name cannot hold.
    #[error("'{0}' is not a message type name (pkg/msg/Type)")]
    BadName(String),
    /// No prefix of `AMENT_PREFIX_PATH` has the package.
    #[error(
        "message type {type_name} is not installed: no ament package '{}' under AMENT_PREFIX_PATH ({})",
        .type_name.split('/').next().unwrap_or_default(),
        .searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
    )]
    NotInstalled {
        /// The type asked for.
        type_name: String,
        /// The prefixes searched.
        searched: Vec<PathBuf>,
    },
    /// The package is there but its type support library did not load.
    #[error(
        "message type {type_name}: its type support library {} does not load: {reason}",
        .path.display()
    )]
    Library {
        /// The type asked for.
        type_name: String,
        /// The library tried.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// The library has no such message.
    #[error("message type {type_name} is not in {}", .path.display())]
    NoSymbol {
        /// The type asked for.
        type_name: String,
        /// The library searched.
        path: PathBuf,
    },
    /// rcl refused the publisher or subscription.
    #[error("{topic}: {reason}")]
    Rcl {
        /// The topic.
        topic: String,
        /// rcl's message.
        reason: String,
    },
}

/// A message type's parts: `("lifecycle_msgs", "msg", "TransitionEvent")`; the
/// interface part is `msg`, `srv` or `action` (`pkg/srv/Get_Event`).
pub fn split_type_name(type_name: &str) -> Result<(&str, &str, &str), TypeError> {
    let parts: Vec<&str> = type_name.split('/').collect();
    let (pkg, iface, name) = match parts.as_slice() {
        [pkg, iface, name] => (*pkg, *iface, *name),
        [pkg, name] => (*pkg, "msg", *name),
        _ => return Err(TypeError::BadName(type_name.to_string())),
    };
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    // Messages, and the messages services and actions are made of (a service's
    // `<Name>_Event` on its introspection topic, an action's `<Name>_FeedbackMessage`).
    if !ident(pkg) || !ident(name) || !matches!(iface, "msg" | "srv" | "action") {
        return Err(TypeError::BadName(type_name.to_string()));
    }
    Ok((pkg, iface, name))
}

pub use ros_model::ament::{package_prefix, prefixes_from_env};

/// The C type support library of `package` under `prefix`.
pub fn library_path(prefix: &Path, package: &str) -> PathBuf {
    library_path_of(prefix, package, C)
}

/// The library of one type support kind (`rosidl_typesupport_c`,
/// `rosidl_typesupport_introspection_c`) of `package` under `prefix`.
pub fn library_path_of(prefix: &Path, package: &str, kind: &str) -> PathBuf {
    prefix.join("lib").join(format!("lib{package}__{kind}.so"))
}

/// The dispatching C type support (what rcl takes).
const C: &str = "rosidl_typesupport_c";
/// The C introspection type support (a message's size, initialiser, finaliser).
const INTROSPECTION: &str = "rosidl_typesupport_introspection_c";

/// A service type's supports: what a raw service client needs.
#[derive(Debug, Clone, Copy)]
pub struct ServiceSupport {
    /// The service's own type support.
    pub service: r2r::ServiceTypeSupport,
    /// Its request message.
    pub request: r2r::RuntimeMessage,
    /// Its response message.
    pub response: r2r::RuntimeMessage,
}

/// Loads type supports and keeps their libraries loaded. One per process
/// ([`TypeSupports::global`]); lookups are cached.
pub struct TypeSupports {
    prefixes: Vec<PathBuf>,
    libraries: Mutex<HashMap<String, Result<Arc<libloading::Library>, TypeError>>>,
    handles: Mutex<HashMap<String, Result<TypeSupport, TypeError>>>,
}

impl TypeSupports {
    /// A loader over these install prefixes.
    pub fn new(prefixes: Vec<PathBuf>) -> Self {
        TypeSupports {
            prefixes,
            libraries: Mutex::new(HashMap::new()),
            handles: Mutex::new(HashMap::new()),
        }
    }

    /// The process's loader, over `AMENT_PREFIX_PATH` as it was at the first call.
    pub fn global() -> &'static TypeSupports {
        static GLOBAL: OnceLock<TypeSupports> = OnceLock::new();
        GLOBAL.get_or_init(|| TypeSupports::new(prefixes_from_env()))
    }

    /// The type support of `type_name` (`pkg/msg/Type`), loading its library if needed.
    pub fn message(&self, type_name: &str) -> Result<TypeSupport, TypeError> {
        if let Some(found) = self
            .handles
            .lock()
            .expect("type support cache")
            .get(type_name)
        {
            return found.clone();
        }
        let found = self.load(type_name);
        self.handles
            .lock()
            .expect("type support cache")
            .insert(type_name.to_string(), found.clone());
        found
    }

    fn library(
        &self,
        type_name: &str,
        package: &str,
        kind: &str,
    ) -> Result<(Arc<libloading::Library>, PathBuf), TypeError> {
        let prefix =
            package_prefix(&self.prefixes, package).ok_or_else(|| TypeError::NotInstalled {
                type_name: type_name.to_string(),
                searched: self.prefixes.clone(),
            })?;
        let path = library_path_of(&prefix, package, kind);
        let mut libraries = self.libraries.lock().expect("type support libraries");
        let lib = libraries
            .entry(format!("{package}/{kind}"))
            .or_insert_with(|| {
                // SAFETY: a rosidl type support library; its initialisers only register
                // static type data.
                unsafe { libloading::Library::new(&path) }
                    .map(Arc::new)
                    .map_err(|e| TypeError::Library {
                        type_name: type_name.to_string(),
                        path: path.clone(),
                        reason: e.to_string(),
                    })
            })
            .clone()
            .map_err(|e| match e {
                // The cached error names the first type that failed; name this one.
                TypeError::Library { path, reason, .. } => TypeError::Library {
                    type_name: type_name.to_string(),
                    path,
                    reason,
                },
                other => other,
            })?;
        Ok((lib, path))
    }

    /// Calls `symbol()` in `package`'s `kind` library: a type support handle getter.
    fn handle(
        &self,
        type_name: &str,
        package: &str,
        kind: &str,
        symbol: &str,
    ) -> Result<*const std::ffi::c_void, TypeError> {
        let (lib, path) = self.library(type_name, package, kind)?;
        let symbol = format!("{symbol}\0");
        type GetHandle = unsafe extern "C" fn() -> *const std::ffi::c_void;
        // SAFETY: rosidl generates these getters with exactly this signature.
        let get = unsafe { lib.get::<GetHandle>(symbol.as_bytes()) }.map_err(|_| {
            TypeError::NoSymbol {
                type_name: type_name.to_string(),
                path: path.clone(),
            }
        })?;
        // SAFETY: as above; the function returns a pointer to static data of the library,
        // which stays loaded (the Arc is kept in `libraries` for the life of `self`).
        let handle = unsafe { get() };
        if handle.is_null() {
            return Err(TypeError::NoSymbol {
                type_name: type_name.to_string(),
                path,
            });
        }
        Ok(handle)
    }

    fn load(&self, type_name: &str) -> Result<TypeSupport, TypeError> {
        let (package, iface, name) = split_type_name(type_name)?;
        let handle = self.handle(
            type_name,
            package,
            C,
            &format!(
                "rosidl_typesupport_c__get_message_type_support_handle__{package}__{iface}__{name}"
            ),
        )?;
        // SAFETY: non-null, from rosidl, and its library is never unloaded.
        Ok(unsafe { TypeSupport::from_raw(handle) })
    }

    /// What a raw client of service type `pkg/srv/Name` needs: the service's C type
    /// support, and its request's and response's C and introspection type supports.
    pub fn service(&self, service_type: &str) -> Result<ServiceSupport, TypeError> {
        let (package, iface, name) = split_type_name(service_type)?;
        if iface != "srv" {
            return Err(TypeError::BadName(service_type.to_string()));
        }
        let service = self.handle(
            service_type,
            package,
            C,
            &format!(
                "rosidl_typesupport_c__get_service_type_support_handle__{package}__srv__{name}"
            ),
        )?;
        let part = |suffix: &str| self.runtime_message(&format!("{package}/srv/{name}_{suffix}"));
        Ok(ServiceSupport {
            // SAFETY: non-null, from rosidl, and its library is never unloaded.
            service: unsafe { r2r::ServiceTypeSupport::from_raw(service) },
            request: part("Request")?,
            response: part("Response")?,
        })
    }

    /// Message type `type_name` in its C form: its C and introspection type supports (a
    /// message that can be allocated, read from and written to CDR).
    pub fn runtime_message(&self, type_name: &str) -> Result<r2r::RuntimeMessage, TypeError> {
        let (package, iface, name) = split_type_name(type_name)?;
        let ts = self.message(type_name)?;
        let introspection = self.handle(
            type_name,
            package,
            INTROSPECTION,
            &format!("rosidl_typesupport_introspection_c__get_message_type_support_handle__{package}__{iface}__{name}"),
        )?;
        // SAFETY: the same type's introspection handle; both libraries stay loaded.
        Ok(unsafe { r2r::RuntimeMessage::from_raw(ts, introspection) })
    }
}

/// Subscribe to `topic` of any installed type, raw (CDR bytes with their timestamps).
/// The queue holds `queue` messages; overflows are counted in `dropped`.
pub fn subscribe(
    node: &mut r2r::Node,
    topic: &str,
    type_name: &str,
    qos: QosProfile,
    queue: usize,
    dropped: Arc<AtomicU64>,
) -> Result<impl Stream<Item = RawMessage> + Unpin, TypeError> {
    let ts = TypeSupports::global().message(type_name)?;
    node.subscribe_raw_with_type_support(topic, &ts, qos, queue.max(1), dropped)
        .map_err(|e| TypeError::Rcl {
            topic: topic.to_string(),
            reason: e.to_string(),
        })
}

/// A publisher of serialized messages (`publish_raw`) on `topic` of any installed type.
pub fn publisher(
    node: &mut r2r::Node,
    topic: &str,
    type_name: &str,
    qos: QosProfile,
) -> Result<r2r::PublisherUntyped, TypeError> {
    let ts = TypeSupports::global().message(type_name)?;
    node.create_publisher_with_type_support(topic, type_name, &ts, qos)
        .map_err(|e| TypeError::Rcl {
            topic: topic.to_string(),
            reason: e.to_string(),
        })
}

/// A client of `service` (type `pkg/srv/Name`, any installed type) that sends CDR
/// requests and returns CDR responses.
pub fn client(
    node: &mut r2r::Node,
    service: &str,
    service_type: &str,
    qos: QosProfile,
) -> Result<r2r::ClientRaw, TypeError> {
    let s = TypeSupports::global().service(service_type)?;
    node.create_client_with_type_support(service, s.service, s.request, s.response, qos)
        .map_err(|e| TypeError::Rcl {
            topic: service.to_string(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(
            split_type_name("std_msgs/msg/String").unwrap(),
            ("std_msgs", "msg", "String")
        );
        assert_eq!(
            split_type_name("std_msgs/String").unwrap(),
            ("std_msgs", "msg", "String")
        );
        assert_eq!(
            split_type_name("lifecycle_msgs/srv/GetState_Event").unwrap(),
            ("lifecycle_msgs", "srv", "GetState_Event")
        );
        for bad in [
            "",
            "String",
            "std_msgs/idl/SetBool",
            "a/b/c/d",
            "std msgs/msg/X",
            "p/msg/X;rm",
            "p/msg/",
        ] {
            assert!(
                matches!(split_type_name(bad), Err(TypeError::BadName(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn loads_an_installed_type_not_compiled_into_r2r() {
        let loader = TypeSupports::new(prefixes_from_env());
        if loader.prefixes.is_empty() {
            return; // no ROS environment: the ROS tests cover it
        }
        // lifecycle_msgs is installed with ROS but not in r2r's IDL filter.
        assert!(loader.message("lifecycle_msgs/msg/TransitionEvent").is_ok());
        // Cached: the second lookup gives the same handle.
        assert!(loader.message("lifecycle_msgs/msg/TransitionEvent").is_ok());
        // A service's introspection events: the message rosbag2 records for a service.
        assert!(loader.message("lifecycle_msgs/srv/GetState_Event").is_ok());
        // A service: its own support and its request's and response's.
        assert!(loader.service("lifecycle_msgs/srv/GetState").is_ok());
        assert!(matches!(
            loader.service("lifecycle_msgs/msg/State"),
            Err(TypeError::BadName(_))
        ));
        assert!(matches!(
            loader.service("lifecycle_msgs/srv/NoSuchService"),
            Err(TypeError::NoSymbol { .. })
        ));
        match loader.message("no_such_pkg/msg/Nothing") {
            Err(TypeError::NotInstalled { type_name, .. }) => {
                assert_eq!(type_name, "no_such_pkg/msg/Nothing")
            }
            other => panic!("{other:?}"),
        }
        match loader.message("lifecycle_msgs/msg/NoSuchType") {
            Err(e @ TypeError::NoSymbol { .. }) => assert!(e.to_string().contains("NoSuchType")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_broken_library_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("arnie_ts_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("share/ament_index/resource_index/packages")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(
            dir.join("share/ament_index/resource_index/packages/broken_msgs"),
            "",
        )
        .unwrap();
        std::fs::write(library_path(&dir, "broken_msgs"), b"not an ELF file").unwrap();
        let loader = TypeSupports::new(vec![dir.clone()]);
        let err = loader.message("broken_msgs/msg/Thing").unwrap_err();
        assert!(matches!(err, TypeError::Library { .. }), "{err:?}");
        assert!(err.to_string().contains("broken_msgs/msg/Thing"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
