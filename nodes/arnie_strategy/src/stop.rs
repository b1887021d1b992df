//! A small cancellation token: a [`StopSource`] stops every [`StopToken`] made from it
//! and every child token made from those. (tokio-util's `CancellationToken` would do;
//! this keeps the dependency list to the workspace's.)

use futures::future::{select_all, FutureExt};
use tokio::sync::watch;

/// The stopping side.
#[derive(Debug)]
pub struct StopSource {
    tx: watch::Sender<bool>,
}

/// The observing side: stopped when any of its sources (its own or a parent's) is.
#[derive(Debug, Clone)]
pub struct StopToken {
    rxs: Vec<watch::Receiver<bool>>,
}

impl StopSource {
    /// A fresh source and its token.
    pub fn new() -> (Self, StopToken) {
        let (tx, rx) = watch::channel(false);
        (Self { tx }, StopToken { rxs: vec![rx] })
    }

    /// Stops every token of this source. Idempotent.
    pub fn stop(&self) {
        self.tx.send_replace(true);
    }
}

impl StopToken {
    /// A token that never stops.
    pub fn never() -> Self {
        Self { rxs: Vec::new() }
    }

    /// A child: stopped by its own new source or by anything that stops `self`.
    pub fn child(&self) -> (StopSource, StopToken) {
        let (src, own) = StopSource::new();
        let mut rxs = self.rxs.clone();
        rxs.extend(own.rxs);
        (src, StopToken { rxs })
    }

    /// True once stopped.
    pub fn is_stopped(&self) -> bool {
        self.rxs.iter().any(|rx| *rx.borrow())
    }

    /// Resolves once stopped; never resolves when every source is gone unstopped.
    pub async fn stopped(&self) {
        if self.rxs.is_empty() {
            return futures::future::pending().await;
        }
        let waits = self.rxs.iter().cloned().map(|mut rx| {
            async move {
                // `wait_for` errs only when the source is dropped unstopped: never resolve then.
                if rx.wait_for(|s| *s).await.is_err() {
                    futures::future::pending::<()>().await;
                }
            }
            .boxed()
        });
        select_all(waits).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn child_stops_with_parent_not_the_reverse() {
        let (parent, token) = StopSource::new();
        let (child_src, child) = token.child();
        child_src.stop();
        assert!(child.is_stopped());
        assert!(!token.is_stopped());
        let (_c2, child2) = token.child();
        parent.stop();
        assert!(child2.is_stopped());
        child2.stopped().await;
    }

    #[tokio::test(start_paused = true)]
    async fn dropped_source_never_stops() {
        let (src, token) = StopSource::new();
        drop(src);
        let r = tokio::time::timeout(std::time::Duration::from_secs(5), token.stopped()).await;
        assert!(r.is_err());
        assert!(!StopToken::never().is_stopped());
    }
}
