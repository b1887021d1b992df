//! The player's services, with rosbag2's names and `rosbag2_interfaces` types, so a script
//! or GUI that drives `ros2 bag play` drives `arnie_bag play` the same way:
//! `~/pause`, `~/resume`, `~/toggle_paused`, `~/is_paused`, `~/get_rate`, `~/set_rate`,
//! `~/play`, `~/play_next`, `~/burst`, `~/seek`, `~/stop` under the player's node
//! (`/rosbag2_player/pause` by default).
//!
//! Answers as rosbag2 (Jazzy) gives them: `set_rate` fails for a rate that is not above
//! zero; `play_next` and `burst` work only while paused; `seek` always succeeds (a time
//! before the start goes to the start); `play` answers false, as rosbag2 does while a
//! playback runs (the command line's playback is the one); `stop` ends playback.

use futures::{FutureExt, Stream, StreamExt};
use r2r::rosbag2_interfaces::srv::{
    Burst, GetRate, IsPaused, Pause, Play, PlayNext, Resume, Seek, SetRate, Stop, TogglePaused,
};
use r2r::{QosProfile, ServiceRequest};

use crate::player::{MessageSource, PlayMessage};
use crate::Player;

type Requests<T> = Box<dyn Stream<Item = ServiceRequest<T>> + Unpin + Send>;

/// The eleven services of the player.
pub(super) struct PlayerServices {
    pause: Requests<Pause::Service>,
    resume: Requests<Resume::Service>,
    toggle_paused: Requests<TogglePaused::Service>,
    is_paused: Requests<IsPaused::Service>,
    get_rate: Requests<GetRate::Service>,
    set_rate: Requests<SetRate::Service>,
    play: Requests<Play::Service>,
    play_next: Requests<PlayNext::Service>,
    burst: Requests<Burst::Service>,
    seek: Requests<Seek::Service>,
    stop: Requests<Stop::Service>,
}

fn serve<T>(node: &mut r2r::Node, name: &str) -> r2r::Result<Requests<T>>
where
    T: r2r::WrappedServiceTypeSupport + 'static,
{
    Ok(Box::new(node.create_service::<T>(
        name,
        QosProfile::services_default(),
    )?))
}

/// Every request waiting on `s`, without blocking.
fn waiting<T>(s: &mut Requests<T>) -> Vec<ServiceRequest<T>>
where
    T: r2r::WrappedServiceTypeSupport + 'static,
{
    let mut out = Vec::new();
    while let Some(Some(r)) = s.next().now_or_never() {
        out.push(r);
    }
    out
}

fn answer<T: r2r::WrappedServiceTypeSupport + 'static>(
    r: ServiceRequest<T>,
    msg: T::Response,
    what: &str,
) {
    if let Err(e) = r.respond(msg) {
        node_glue::log_warn!("~/{what}: cannot answer: {e}");
    }
}

impl PlayerServices {
    /// Creates the services on the player's node.
    pub(super) fn create(node: &mut r2r::Node) -> r2r::Result<Self> {
        Ok(PlayerServices {
            pause: serve(node, "~/pause")?,
            resume: serve(node, "~/resume")?,
            toggle_paused: serve(node, "~/toggle_paused")?,
            is_paused: serve(node, "~/is_paused")?,
            get_rate: serve(node, "~/get_rate")?,
            set_rate: serve(node, "~/set_rate")?,
            play: serve(node, "~/play")?,
            play_next: serve(node, "~/play_next")?,
            burst: serve(node, "~/burst")?,
            seek: serve(node, "~/seek")?,
            stop: serve(node, "~/stop")?,
        })
    }

    /// Answers every waiting request at monotonic time `now`; messages that `play_next`
    /// and `burst` take go to `publish`.
    pub(super) fn handle<S: MessageSource>(
        &mut self,
        player: &mut Player<S>,
        now: u64,
        publish: &dyn Fn(&PlayMessage),
    ) {
        for r in waiting(&mut self.pause) {
            player.pause(now);
            node_glue::log_info!("paused (~/pause)");
            answer(r, Pause::Response::default(), "pause");
        }
        for r in waiting(&mut self.resume) {
            player.resume(now);
            node_glue::log_info!("resumed (~/resume)");
            answer(r, Resume::Response::default(), "resume");
        }
        for r in waiting(&mut self.toggle_paused) {
            player.toggle_pause(now);
            answer(r, TogglePaused::Response::default(), "toggle_paused");
        }
        for r in waiting(&mut self.is_paused) {
            let paused = player.is_paused();
            answer(r, IsPaused::Response { paused }, "is_paused");
        }
        for r in waiting(&mut self.get_rate) {
            let rate = player.rate();
            answer(r, GetRate::Response { rate }, "get_rate");
        }
        for r in waiting(&mut self.set_rate) {
            let success = match player.set_rate(now, r.message.rate) {
                Ok(()) => true,
                Err(e) => {
                    node_glue::log_warn!("~/set_rate refused: {e}");
                    false
                }
            };
            answer(r, SetRate::Response { success }, "set_rate");
        }
        for r in waiting(&mut self.play) {
            node_glue::log_warn!("~/play refused: a playback is already running");
            answer(r, Play::Response { success: false }, "play");
        }
        for r in waiting(&mut self.play_next) {
            let success = match player.step(now) {
                Ok(Some(m)) => {
                    publish(&m);
                    true
                }
                Ok(None) => false,
                Err(e) => {
                    node_glue::log_warn!("~/play_next: {e}");
                    false
                }
            };
            answer(r, PlayNext::Response { success }, "play_next");
        }
        for r in waiting(&mut self.burst) {
            let want = r.message.num_messages;
            let mut actually_burst = 0u64;
            while player.is_paused() && (want == 0 || actually_burst < want) {
                match player.step(now) {
                    Ok(Some(m)) => {
                        publish(&m);
                        actually_burst += 1;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        node_glue::log_warn!("~/burst: {e}");
                        break;
                    }
                }
            }
            answer(r, Burst::Response { actually_burst }, "burst");
        }
        for r in waiting(&mut self.seek) {
            let t = &r.message.time;
            let ns = u64::try_from(t.sec).unwrap_or(0) * 1_000_000_000 + u64::from(t.nanosec);
            if let Err(e) = player.seek(now, ns) {
                node_glue::log_warn!("~/seek: {e}");
            }
            answer(r, Seek::Response { success: true }, "seek");
        }
        for r in waiting(&mut self.stop) {
            player.stop();
            node_glue::log_info!("stopped (~/stop)");
            answer(r, Stop::Response::default(), "stop");
        }
    }
}

/// The recorder's services (rosbag2's, under the recorder's node): `~/pause`, `~/resume`,
/// `~/is_paused`, `~/split_bagfile`, `~/snapshot`.
pub(super) struct RecorderServices {
    pause: Requests<Pause::Service>,
    resume: Requests<Resume::Service>,
    is_paused: Requests<IsPaused::Service>,
    split_bagfile: Requests<r2r::rosbag2_interfaces::srv::SplitBagfile::Service>,
    snapshot: Requests<r2r::rosbag2_interfaces::srv::Snapshot::Service>,
}

impl RecorderServices {
    /// Creates the services on the recorder's node.
    pub(super) fn create(node: &mut r2r::Node) -> r2r::Result<Self> {
        Ok(RecorderServices {
            pause: serve(node, "~/pause")?,
            resume: serve(node, "~/resume")?,
            is_paused: serve(node, "~/is_paused")?,
            split_bagfile: serve(node, "~/split_bagfile")?,
            snapshot: serve(node, "~/snapshot")?,
        })
    }

    /// Answers every waiting request; returns how many splits and snapshots were asked
    /// for (the writer does them; the answer goes at once, as rosbag2's does). A snapshot
    /// succeeds in snapshot mode only.
    pub(super) fn handle(&mut self, paused: &mut bool, snapshot_mode: bool) -> (usize, usize) {
        use r2r::rosbag2_interfaces::srv::{Snapshot, SplitBagfile};
        for r in waiting(&mut self.pause) {
            if !*paused {
                node_glue::log_info!("recording paused (~/pause)");
            }
            *paused = true;
            answer(r, Pause::Response::default(), "pause");
        }
        for r in waiting(&mut self.resume) {
            if *paused {
                node_glue::log_info!("recording resumed (~/resume)");
            }
            *paused = false;
            answer(r, Resume::Response::default(), "resume");
        }
        for r in waiting(&mut self.is_paused) {
            answer(r, IsPaused::Response { paused: *paused }, "is_paused");
        }
        let mut splits = 0;
        for r in waiting(&mut self.split_bagfile) {
            splits += 1;
            answer(r, SplitBagfile::Response::default(), "split_bagfile");
        }
        let mut snapshots = 0;
        for r in waiting(&mut self.snapshot) {
            if snapshot_mode {
                snapshots += 1;
            } else {
                node_glue::log_warn!(
                    "~/snapshot refused: not recording in snapshot mode (--snapshot-mode)"
                );
            }
            answer(
                r,
                Snapshot::Response {
                    success: snapshot_mode,
                },
                "snapshot",
            );
        }
        (splits, snapshots)
    }
}
