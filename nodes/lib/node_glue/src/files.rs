//! Reading a file named by outside input (a goal's `task_file` or `strategy_file`, a
//! file parameter) the way a node must, so no file can hurt the node.
//!
//! [`read_to_string`] reads on tokio's blocking pool (never on the executor), under a
//! wall-clock [`READ_TIMEOUT`], and only a file that passes every rule of its
//! [`FileRules`]:
//!
//! 1. the path resolves (`..` and symlinks resolved: the *real* path is what is checked);
//! 2. the real path lies in one of the allowed folders (parameter `allowed_dirs`, a string
//!    array; `[]`, the default, allows every folder);
//! 3. it is a regular file: a FIFO, a character or block device (`/dev/zero`), a
//!    directory or a socket is refused by its metadata, before anything opens it;
//! 4. its size is at most the cap (parameter `max_file_bytes`, default
//!    [`DEFAULT_MAX_FILE_BYTES`]): a 1 GB sparse file is refused by its size, unread;
//! 5. the file opened (`O_NONBLOCK`, so a FIFO swapped in after the check cannot block
//!    the open) is the file checked: same device and inode, still regular, still under
//!    the cap, and (Linux) its real path is still in an allowed folder; the read itself
//!    stops one byte past the cap;
//! 6. it is UTF-8 text.
//!
//! Every refusal is a [`FileError`] whose text names the file and the rule, e.g.
//! `/tmp/fifo: refused: not a regular file but a FIFO (only regular files are read)`,
//! `/tmp/big.json: refused: 1073741824 bytes, over the cap of 1048576 bytes
//! (max_file_bytes)`, `/etc/passwd: refused: outside the allowed folders (allowed_dirs:
//! /opt/arnie/params); the path resolves to /etc/passwd`, and a missing file
//! `/tmp/x.json: cannot read: No such file or directory (os error 2)`.
//!
//! The same cap applies to a task given inline in a goal ([`FileRules::check_len`]).
//!
//! A node declares the two parameters beside its own (flat names, in its
//! `#[derive(RosParams)]` struct) and builds its rules from them:
//!
//! ```ignore
//! /// Folders goal files may be read from; [] = any folder
//! allowed_dirs: node_glue::files::Dirs,
//! /// Largest goal file read [bytes]
//! max_file_bytes: i64,
//! // ...
//! let rules = FileRules::new(&p.allowed_dirs, p.max_file_bytes)?;
//! let text = node_glue::files::read_to_string(path, rules).await?;
//! ```
use glue_core::ConfigError;
use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use r2r::indexmap::IndexMap;
use r2r::{Parameter, ParameterValue, RosParams};

/// Default cap of a file read (and of an inline task): 1 MiB. The shipped task and
/// strategy files are a few KiB.
pub const DEFAULT_MAX_FILE_BYTES: i64 = 1 << 20;
/// The largest cap `max_file_bytes` may be set to: 64 MiB (the cap cannot be turned off).
pub const MAX_FILE_BYTES_LIMIT: i64 = 64 << 20;
/// A read that takes longer than this (a hung network file system) is given up; the
/// blocked thread is left behind, the node goes on.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The folders files may be read from: a ROS string-array parameter
/// (`allowed_dirs: ["/opt/arnie/params", "/tmp/tasks"]` in a params file,
/// `-p 'allowed_dirs:=[/a, /b]'`). A plain string is taken as one folder ("" = none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirs(pub Vec<String>);

impl std::ops::Deref for Dirs {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl Dirs {
    fn from_value(v: &ParameterValue) -> r2r::Result<Self> {
        match v {
            ParameterValue::StringArray(a) => Ok(Dirs(a.clone())),
            ParameterValue::String(s) if s.trim().is_empty() => Ok(Dirs(Vec::new())),
            ParameterValue::String(s) => Ok(Dirs(vec![s.clone()])),
            _ => Err(r2r::Error::InvalidParameterType {
                name: String::new(),
                ty: "string array",
            }),
        }
    }
}

impl RosParams for Dirs {
    fn register_parameters(
        &mut self,
        prefix: &str,
        param: Option<Parameter>,
        params: &mut IndexMap<String, Parameter>,
    ) -> r2r::Result<()> {
        if let Some(given) = params.get(prefix) {
            *self = Dirs::from_value(&given.value).map_err(|e| e.update_param_name(prefix))?;
            params.shift_remove(prefix);
        }
        let mut param = param.unwrap_or_else(|| Parameter::new(ParameterValue::NotSet));
        param.value = ParameterValue::StringArray(self.0.clone());
        params.insert(prefix.to_owned(), param);
        Ok(())
    }

    fn get_parameter(&mut self, name: &str) -> r2r::Result<ParameterValue> {
        match name {
            "" => Ok(ParameterValue::StringArray(self.0.clone())),
            _ => Err(r2r::Error::InvalidParameterName {
                name: name.to_owned(),
            }),
        }
    }

    fn set_parameter(&mut self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        self.check_parameter(name, value)?;
        *self = Dirs::from_value(value)?;
        Ok(())
    }

    fn check_parameter(&self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        if !name.is_empty() {
            return Err(r2r::Error::InvalidParameterName {
                name: name.to_owned(),
            });
        }
        Dirs::from_value(value).map(|_| ())
    }
}

/// Where a node may read files from, and how much (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRules {
    /// Real paths of the allowed folders; empty = any folder.
    allowed: Vec<PathBuf>,
    max_bytes: u64,
}

impl FileRules {
    /// Rules from the parameters: every folder of `allowed_dirs` must exist (it is
    /// resolved to its real path now, relative ones against the working directory);
    /// `max_file_bytes` must be in `1..=`[`MAX_FILE_BYTES_LIMIT`].
    ///
    /// # Errors
    /// The text names the parameter and the value: `allowed_dirs: /nope: No such file or
    /// directory (os error 2)`, `max_file_bytes must be in 1..=67108864, got 0`.
    pub fn new(allowed_dirs: &[String], max_file_bytes: i64) -> Result<Self, ConfigError> {
        if !(1..=MAX_FILE_BYTES_LIMIT).contains(&max_file_bytes) {
            return Err(ConfigError::new(
                "max_file_bytes",
                format!("must be in 1..={MAX_FILE_BYTES_LIMIT}, got {max_file_bytes}"),
            ));
        }
        let mut allowed = Vec::new();
        for d in allowed_dirs
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
        {
            let refused =
                |why: &dyn fmt::Display| ConfigError::new("allowed_dirs", format!("{d}: {why}"));
            let real = std::fs::canonicalize(d).map_err(|e| refused(&e))?;
            if !real.is_dir() {
                return Err(refused(&"not a folder"));
            }
            allowed.push(real);
        }
        Ok(FileRules {
            allowed,
            max_bytes: max_file_bytes as u64,
        })
    }

    /// Any folder, at most `max_bytes` (tests and tools).
    pub fn any_folder(max_bytes: u64) -> Self {
        FileRules {
            allowed: Vec::new(),
            max_bytes,
        }
    }

    /// The cap [bytes].
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The allowed folders (real paths); empty = any folder.
    pub fn allowed_dirs(&self) -> &[PathBuf] {
        &self.allowed
    }

    /// The cap applied to text that arrived inline (a goal's `task_json`): `what` names
    /// it in the error, as a path would.
    ///
    /// # Errors
    /// [`Refusal::TooLarge`] when `len` is over the cap.
    pub fn check_len(&self, what: &str, len: usize) -> Result<(), FileError> {
        let bytes = len as u64;
        if bytes > self.max_bytes {
            return Err(FileError::new(
                what,
                Refusal::TooLarge {
                    bytes,
                    max: self.max_bytes,
                },
            ));
        }
        Ok(())
    }

    fn allows(&self, real: &Path) -> bool {
        self.allowed.is_empty() || self.allowed.iter().any(|d| real.starts_with(d))
    }

    fn allowed_text(&self) -> String {
        self.allowed
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a file was not read: one variant per rule of the module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The path is empty.
    EmptyPath,
    /// The path does not resolve, or the file cannot be opened or read (the OS error).
    Unreadable(String),
    /// The real path is in none of the allowed folders.
    OutsideAllowed {
        /// The real path.
        resolved: PathBuf,
        /// The allowed folders, as listed in the message.
        allowed: String,
    },
    /// Not a regular file: what it is ("a FIFO", "a character device", ...).
    NotRegular(&'static str),
    /// Over the cap.
    TooLarge {
        /// The size (or, for a file that grew while read, more than the cap).
        bytes: u64,
        /// The cap.
        max: u64,
    },
    /// The file opened is not the file checked (replaced in between).
    Replaced,
    /// Not UTF-8 text.
    NotText,
    /// The read took longer than [`READ_TIMEOUT`].
    TimedOut,
}

/// A file not read, and why: `"{path}: {reason}"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// The path as given (or the name of the inline text).
    pub path: String,
    /// The rule it broke.
    pub refusal: Refusal,
}

impl FileError {
    fn new(path: &str, refusal: Refusal) -> Self {
        FileError {
            path: path.to_owned(),
            refusal,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(empty path)"
        } else {
            &self.path
        };
        match &self.refusal {
            Refusal::EmptyPath => write!(f, "{path}: refused: empty path"),
            Refusal::Unreadable(e) => write!(f, "{path}: cannot read: {e}"),
            Refusal::OutsideAllowed { resolved, allowed } => write!(
                f,
                "{path}: refused: outside the allowed folders (allowed_dirs: {allowed}); \
                 the path resolves to {}",
                resolved.display()
            ),
            Refusal::NotRegular(kind) => write!(
                f,
                "{path}: refused: not a regular file but {kind} (only regular files are read)"
            ),
            Refusal::TooLarge { bytes, max } => write!(
                f,
                "{path}: refused: {bytes} bytes, over the cap of {max} bytes (max_file_bytes)"
            ),
            Refusal::Replaced => write!(
                f,
                "{path}: refused: the file was replaced while being opened (not the file checked)"
            ),
            Refusal::NotText => write!(f, "{path}: refused: not UTF-8 text"),
            Refusal::TimedOut => write!(
                f,
                "{path}: refused: not read within {} s",
                READ_TIMEOUT.as_secs()
            ),
        }
    }
}

impl std::error::Error for FileError {}

impl From<FileError> for String {
    fn from(e: FileError) -> String {
        e.to_string()
    }
}

/// Reads `path` under `rules` on tokio's blocking pool (see the module doc); call it from
/// a task of the node's runtime. Gives up after [`READ_TIMEOUT`].
///
/// # Errors
/// Every refusal of the module doc, as a [`FileError`] naming the file and the rule.
pub async fn read_to_string(path: &str, rules: &FileRules) -> Result<String, FileError> {
    let (owned, rules_owned) = (path.to_owned(), rules.clone());
    let job = tokio::task::spawn_blocking(move || read_to_string_blocking(&owned, &rules_owned));
    match tokio::time::timeout(READ_TIMEOUT, job).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Err(FileError::new(
            path,
            Refusal::Unreadable(format!("the reading thread failed: {e}")),
        )),
        Err(_) => Err(FileError::new(path, Refusal::TimedOut)),
    }
}

/// As [`read_to_string`], on the calling thread: only where blocking is allowed (a
/// node's start-up before it spins, a blocking-pool thread, a test).
///
/// # Errors
/// As [`read_to_string`] (no timeout).
pub fn read_to_string_blocking(path: &str, rules: &FileRules) -> Result<String, FileError> {
    let refuse = |r: Refusal| FileError::new(path, r);
    if path.trim().is_empty() {
        return Err(refuse(Refusal::EmptyPath));
    }
    let io = |e: std::io::Error| refuse(Refusal::Unreadable(e.to_string()));
    // 1, 2: the real path, in an allowed folder.
    let real = std::fs::canonicalize(path).map_err(io)?;
    if !rules.allows(&real) {
        return Err(refuse(Refusal::OutsideAllowed {
            resolved: real,
            allowed: rules.allowed_text(),
        }));
    }
    // 3, 4: by metadata, before opening.
    let checked = std::fs::metadata(&real).map_err(io)?;
    regular_under_cap(&checked, rules).map_err(refuse)?;
    // 5: the file opened is the file checked.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&real)
        .map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if (opened.dev(), opened.ino()) != (checked.dev(), checked.ino()) {
        return Err(refuse(Refusal::Replaced));
    }
    regular_under_cap(&opened, rules).map_err(refuse)?;
    if let Some(now) = opened_path(&file) {
        if !rules.allows(&now) {
            return Err(refuse(Refusal::OutsideAllowed {
                resolved: now,
                allowed: rules.allowed_text(),
            }));
        }
    }
    let mut bytes = Vec::with_capacity(opened.len() as usize);
    (&mut file)
        .take(rules.max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > rules.max_bytes {
        return Err(refuse(Refusal::TooLarge {
            bytes: bytes.len() as u64,
            max: rules.max_bytes,
        }));
    }
    // 6: text.
    String::from_utf8(bytes).map_err(|_| refuse(Refusal::NotText))
}

fn regular_under_cap(m: &Metadata, rules: &FileRules) -> Result<(), Refusal> {
    let t = m.file_type();
    if !t.is_file() {
        return Err(Refusal::NotRegular(if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_block_device() {
            "a block device"
        } else if t.is_dir() {
            "a directory"
        } else if t.is_socket() {
            "a socket"
        } else {
            "a special file"
        }));
    }
    if m.len() > rules.max_bytes {
        return Err(Refusal::TooLarge {
            bytes: m.len(),
            max: rules.max_bytes,
        });
    }
    Ok(())
}

/// The real path of an open file (Linux: `/proc/self/fd/N`); `None` elsewhere.
fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fresh folder under the system temp folder, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("node_glue_files_{name}_{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(std::fs::canonicalize(dir).unwrap())
        }
        fn path(&self, rel: &str) -> PathBuf {
            self.0.join(rel)
        }
        fn write(&self, rel: &str, text: &str) -> String {
            let p = self.path(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn rules_in(dir: &Path, max: i64) -> FileRules {
        FileRules::new(&[dir.display().to_string()], max).unwrap()
    }

    #[test]
    fn reads_a_regular_file_in_an_allowed_folder() {
        let s = Scratch::new("ok");
        let p = s.write("ok/task.json", "{\"a\": 1}");
        let rules = rules_in(&s.path("ok"), 100);
        assert_eq!(read_to_string_blocking(&p, &rules).unwrap(), "{\"a\": 1}");
        // Relative components that stay inside are fine.
        let dotted = format!("{}/ok/../ok/task.json", s.0.display());
        assert!(read_to_string_blocking(&dotted, &rules).is_ok());
    }

    #[test]
    fn special_files_are_refused_by_metadata() {
        let rules = FileRules::any_folder(1 << 20);
        let e = read_to_string_blocking("/dev/zero", &rules).unwrap_err();
        assert_eq!(e.refusal, Refusal::NotRegular("a character device"));
        assert_eq!(
            e.to_string(),
            "/dev/zero: refused: not a regular file but a character device (only regular files are read)"
        );
        let s = Scratch::new("special");
        let dir = s.path("");
        let e = read_to_string_blocking(dir.to_str().unwrap(), &rules).unwrap_err();
        assert_eq!(e.refusal, Refusal::NotRegular("a directory"));
        let fifo = s.path("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.map(|st| st.success()).unwrap_or(false) {
            // Would block forever if it were opened without O_NONBLOCK or read.
            let e = read_to_string_blocking(fifo.to_str().unwrap(), &rules).unwrap_err();
            assert_eq!(e.refusal, Refusal::NotRegular("a FIFO"));
        }
        let sock = s.path("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = read_to_string_blocking(sock.to_str().unwrap(), &rules).unwrap_err();
        assert_eq!(e.refusal, Refusal::NotRegular("a socket"));
    }

    #[test]
    fn a_large_sparse_file_is_refused_by_its_size_unread() {
        let s = Scratch::new("big");
        let p = s.path("big.json");
        let f = File::create(&p).unwrap();
        f.set_len(1 << 30).unwrap(); // 1 GiB, sparse: nothing written
        let rules = FileRules::any_folder(1 << 20);
        let e = read_to_string_blocking(p.to_str().unwrap(), &rules).unwrap_err();
        assert_eq!(
            e.refusal,
            Refusal::TooLarge {
                bytes: 1 << 30,
                max: 1 << 20
            }
        );
        assert!(e.to_string().ends_with(
            "refused: 1073741824 bytes, over the cap of 1048576 bytes (max_file_bytes)"
        ));
        // The cap is inclusive.
        let q = s.write("exact.txt", "12345");
        assert!(read_to_string_blocking(&q, &FileRules::any_folder(5)).is_ok());
        assert!(read_to_string_blocking(&q, &FileRules::any_folder(4)).is_err());
    }

    #[test]
    fn folders_are_checked_on_the_real_path() {
        let s = Scratch::new("dirs");
        s.write("allowed/in.json", "{}");
        let outside = s.write("secret/out.json", "{}");
        let rules = rules_in(&s.path("allowed"), 1000);
        // Plainly outside.
        let e = read_to_string_blocking(&outside, &rules).unwrap_err();
        assert!(matches!(e.refusal, Refusal::OutsideAllowed { .. }), "{e}");
        assert!(e.to_string().contains("outside the allowed folders"), "{e}");
        // A `..` escape.
        let escape = format!("{}/allowed/../secret/out.json", s.0.display());
        let e = read_to_string_blocking(&escape, &rules).unwrap_err();
        assert!(
            matches!(e.refusal, Refusal::OutsideAllowed { ref resolved, .. } if resolved == &s.path("secret/out.json")),
            "{e}"
        );
        // A symlink inside that points outside.
        symlink(s.path("secret/out.json"), s.path("allowed/link.json")).unwrap();
        let e = read_to_string_blocking(s.path("allowed/link.json").to_str().unwrap(), &rules)
            .unwrap_err();
        assert!(matches!(e.refusal, Refusal::OutsideAllowed { .. }), "{e}");
        // A folder whose name only starts like the allowed one.
        let sibling = s.write("allowed2/x.json", "{}");
        assert!(read_to_string_blocking(&sibling, &rules).is_err());
    }

    #[test]
    fn missing_binary_and_empty_are_refused_with_reasons() {
        let s = Scratch::new("misc");
        let rules = FileRules::any_folder(1000);
        let missing = s.path("missing.json").display().to_string();
        let e = read_to_string_blocking(&missing, &rules).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{missing}: cannot read: ")),
            "{e}"
        );
        let bin = s.path("bin.json");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        let e = read_to_string_blocking(bin.to_str().unwrap(), &rules).unwrap_err();
        assert_eq!(e.refusal, Refusal::NotText);
        assert_eq!(
            read_to_string_blocking(" ", &rules).unwrap_err().refusal,
            Refusal::EmptyPath
        );
    }

    #[test]
    fn rules_refuse_bad_parameters() {
        assert!(FileRules::new(&[], 0).is_err());
        assert!(FileRules::new(&[], MAX_FILE_BYTES_LIMIT + 1).is_err());
        assert!(FileRules::new(&[], -1).is_err());
        let e = FileRules::new(&["/no/such/folder".into()], 10)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("allowed_dirs: /no/such/folder: "), "{e}");
        assert!(FileRules::new(&["/dev/null".into()], 10).is_err());
        let r = FileRules::new(&["".into(), " ".into()], 10).unwrap();
        assert!(r.allowed_dirs().is_empty());
        let r = FileRules::any_folder(3);
        assert!(r.check_len("task_json", 3).is_ok());
        assert_eq!(
            r.check_len("task_json", 4).unwrap_err().to_string(),
            "task_json: refused: 4 bytes, over the cap of 3 bytes (max_file_bytes)"
        );
    }

    #[test]
    fn dirs_parameter_takes_arrays_and_strings() {
        let mut d = Dirs::default();
        d.set_parameter(
            "",
            &ParameterValue::StringArray(vec!["/a".into(), "/b".into()]),
        )
        .unwrap();
        assert_eq!(&*d, &["/a".to_owned(), "/b".to_owned()][..]);
        d.set_parameter("", &ParameterValue::String("/c".into()))
            .unwrap();
        assert_eq!(d.0, vec!["/c".to_owned()]);
        d.set_parameter("", &ParameterValue::String("".into()))
            .unwrap();
        assert!(d.0.is_empty());
        assert!(d.set_parameter("", &ParameterValue::Integer(3)).is_err());
        assert_eq!(
            d.get_parameter("").unwrap(),
            ParameterValue::StringArray(vec![])
        );
    }

    #[tokio::test]
    async fn the_async_read_runs_off_the_executor() {
        // A current-thread runtime: a read on it would still work, but only because it
        // moved to the blocking pool; the refusal comes back as a value.
        let rules = FileRules::any_folder(10);
        let e = read_to_string("/dev/zero", &rules).await.unwrap_err();
        assert_eq!(e.refusal, Refusal::NotRegular("a character device"));
    }
}
