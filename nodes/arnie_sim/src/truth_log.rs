//! The ground-truth log (`truth_log`): JSON Lines written by a thread of its own, so no
//! file write ever blocks the node's async runtime.
//!
//! The node's tasks hand lines to a [`TruthLog`] (cheap to clone) through a bounded
//! queue of [`QUEUE_LINES`]; a line that finds the queue full (the disk is slower than
//! the simulation) is dropped and counted ([`LogStats::dropped`]), never waited for and
//! never lost silently. The writer flushes whenever the queue is empty, so a reader of
//! the file sees every line soon after it was sent; it ends (flushing) once every
//! [`TruthLog`] is dropped.
//!
//! Lines: a [`truth_line`] (`{"kind":"truth", ...}`, [`Truth`]'s fields) per `/sim/truth`
//! publication and an [`event_line`] (`{"kind":"event","event":"lit"|"blocked"|"freed",
//! ...}`) per world event.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::{Event, SimError, Truth};

/// Lines waiting for the writer at most (about a minute of the default rates).
pub const QUEUE_LINES: usize = 1024;

/// What happened to the lines so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogStats {
    /// Lines written (handed to the file).
    pub written: u64,
    /// Lines dropped because the queue was full (or the writer had ended).
    pub dropped: u64,
    /// Write or flush failures.
    pub errors: u64,
    /// The first failure's message.
    pub first_error: Option<String>,
}

#[derive(Default)]
struct Shared {
    written: AtomicU64,
    dropped: AtomicU64,
    errors: AtomicU64,
    first_error: Mutex<Option<String>>,
}

/// The sending side of the log (clone it for every task that writes).
#[derive(Clone)]
pub struct TruthLog {
    tx: SyncSender<String>,
    shared: Arc<Shared>,
}

/// What [`TruthLog::send`] did with a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Queued for the writer.
    Queued,
    /// Dropped and counted; `first` is true for the first drop of the log (log it once).
    Dropped {
        /// The first dropped line of this log.
        first: bool,
    },
}

impl TruthLog {
    /// Creates (truncates) the file at `path` and starts its writer thread.
    ///
    /// # Errors
    /// [`SimError::Io`] if the file cannot be created.
    pub fn create(path: &Path) -> Result<(TruthLog, JoinHandle<()>), SimError> {
        let file = File::create(path).map_err(|e| SimError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::with_writer(BufWriter::new(file), QUEUE_LINES).map_err(|e| SimError::Io {
            path: path.display().to_string(),
            message: format!("cannot start the writer thread: {e}"),
        })
    }

    /// A log writing to `out` with a queue of `capacity` lines (at least 1).
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn with_writer<W: Write + Send + 'static>(
        out: W,
        capacity: usize,
    ) -> std::io::Result<(TruthLog, JoinHandle<()>)> {
        let (tx, rx) = sync_channel(capacity.max(1));
        let shared = Arc::new(Shared::default());
        let writer = shared.clone();
        let handle = std::thread::Builder::new()
            .name("truth_log".into())
            .spawn(move || write_lines(rx, out, &writer))?;
        Ok((TruthLog { tx, shared }, handle))
    }

    /// Queues `line` (without its newline) for the writer, or drops and counts it when
    /// the queue is full. Never blocks.
    pub fn send(&self, line: String) -> Sent {
        match self.tx.try_send(line) {
            Ok(()) => Sent::Queued,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                let before = self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                Sent::Dropped { first: before == 0 }
            }
        }
    }

    /// The counts so far.
    pub fn stats(&self) -> LogStats {
        self.counts().get()
    }

    /// A handle on the counts that does not keep the writer alive (for diagnostics).
    pub fn counts(&self) -> LogCounts {
        LogCounts(self.shared.clone())
    }
}

/// Reads a log's counts ([`TruthLog::counts`]).
#[derive(Clone)]
pub struct LogCounts(Arc<Shared>);

impl LogCounts {
    /// The counts so far.
    pub fn get(&self) -> LogStats {
        let s = &self.0;
        LogStats {
            written: s.written.load(Ordering::Relaxed),
            dropped: s.dropped.load(Ordering::Relaxed),
            errors: s.errors.load(Ordering::Relaxed),
            first_error: s
                .first_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        }
    }
}

/// The writer thread: lines until every sender is gone, a flush whenever the queue is
/// empty.
fn write_lines<W: Write>(rx: Receiver<String>, mut out: W, shared: &Shared) {
    let fail = |e: std::io::Error| {
        if shared.errors.fetch_add(1, Ordering::Relaxed) == 0 {
            *shared.first_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
        }
    };
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(line) = next {
            match writeln!(out, "{line}") {
                Ok(()) => {
                    shared.written.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => fail(e),
            }
            next = rx.try_recv().ok();
        }
        if let Err(e) = out.flush() {
            fail(e);
        }
    }
}

/// The log line of `truth`: its fields and `"kind": "truth"`.
pub fn truth_line(truth: &Truth) -> String {
    let mut v = serde_json::to_value(truth).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert("kind".into(), "truth".into());
    }
    v.to_string()
}

/// The log line of `event`, which happened at scenario time `t_s`.
pub fn event_line(t_s: f64, event: &Event) -> String {
    let v = match event {
        Event::Lit(lit) => serde_json::json!({
            "kind": "event", "t_s": t_s, "event": "lit", "flame": lit.flame.name()}),
        Event::Blocked { obstacle, at_mm } => serde_json::json!({
            "kind": "event", "t_s": t_s, "event": "blocked",
            "obstacle": obstacle, "at_mm": at_mm.as_slice()}),
        Event::Freed => serde_json::json!({"kind": "event", "t_s": t_s, "event": "freed"}),
    };
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Sender};

    /// A writer that blocks in its first write until released, telling when it got there.
    struct Gate {
        out: Arc<Mutex<Vec<u8>>>,
        entered: Option<Sender<()>>,
        release: Option<Receiver<()>>,
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let (Some(entered), Some(release)) = (self.entered.take(), self.release.take()) {
                entered.send(()).unwrap();
                release.recv().unwrap();
            }
            self.out.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_reach_the_file_in_order() {
        let dir = std::env::temp_dir().join(format!("arnie_sim_truth_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("truth.jsonl");
        let (log, writer) = TruthLog::create(&path).unwrap();
        for i in 0..100 {
            assert_eq!(log.send(format!("{{\"i\":{i}}}")), Sent::Queued);
        }
        let stats = log.counts();
        drop(log);
        writer.join().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 100);
        assert_eq!(lines[99], "{\"i\":99}");
        assert_eq!(stats.get().written, 100);
        assert_eq!(stats.get().dropped, 0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_slow_writer_drops_and_counts_lines_never_blocks_the_sender() {
        let out = Arc::new(Mutex::new(Vec::new()));
        let (entered_tx, entered_rx) = channel();
        let (release_tx, release_rx) = channel();
        let gate = Gate {
            out: out.clone(),
            entered: Some(entered_tx),
            release: Some(release_rx),
        };
        let (log, writer) = TruthLog::with_writer(gate, 4).unwrap();
        assert_eq!(log.send("a".into()), Sent::Queued);
        // The writer holds "a" and waits: the queue is empty and 4 lines fit.
        entered_rx.recv().unwrap();
        let sent: Vec<Sent> = (0..10).map(|i| log.send(format!("b{i}"))).collect();
        assert!(sent[..4].iter().all(|s| *s == Sent::Queued), "{sent:?}");
        assert_eq!(sent[4], Sent::Dropped { first: true });
        assert!(sent[5..]
            .iter()
            .all(|s| *s == Sent::Dropped { first: false }));
        release_tx.send(()).unwrap();
        let stats = log.counts();
        drop(log);
        writer.join().unwrap();
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "a\nb0\nb1\nb2\nb3\n");
        let s = stats.get();
        assert_eq!((s.written, s.dropped, s.errors), (5, 6, 0));
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_errors_are_counted_with_the_first_message() {
        let (log, writer) = TruthLog::with_writer(Broken, 8).unwrap();
        log.send("x".into());
        log.send("y".into());
        let stats = log.counts();
        drop(log);
        writer.join().unwrap();
        let s = stats.get();
        assert_eq!((s.written, s.errors), (0, 2));
        assert_eq!(s.first_error.as_deref(), Some("disk full"));
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_file() {
        let e = TruthLog::create(Path::new("/nonexistent/dir/truth.jsonl"))
            .err()
            .unwrap();
        assert!(
            e.to_string().starts_with("/nonexistent/dir/truth.jsonl: "),
            "{e}"
        );
    }

    #[test]
    fn lines_are_json_with_their_kind() {
        let world = crate::World::new(
            crate::Scenario::default(),
            &crate::Wiring::from_config(
                &arnie_xpc::Config::load(
                    concat!(env!("CARGO_MANIFEST_DIR"), "/../../params/spine_sim.json").as_ref(),
                    None,
                )
                .unwrap(),
                &crate::wiring::InterfaceNames::default(),
            )
            .unwrap(),
        );
        let v: serde_json::Value = serde_json::from_str(&truth_line(&world.truth())).unwrap();
        assert_eq!(v["kind"], "truth");
        assert_eq!(v["lit"], serde_json::json!(["source"]));
        let v: serde_json::Value = serde_json::from_str(&event_line(1.5, &Event::Freed)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "event", "t_s": 1.5, "event": "freed"})
        );
    }
}
