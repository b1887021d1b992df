//! The board's start cord and its simulated LiDAR (see the module's documentation).
use super::*;

impl Board {
    /// Whether the start cord is out.
    pub fn cord_out(&self) -> bool {
        self.cord.out
    }

    /// Pulls the start cord at `now_ms` (the board first runs up to then); if it was out
    /// it is put back first, so this is a second pull. Returns what fell due.
    pub fn pull_cord(&mut self, now_ms: u64) -> Vec<Output> {
        self.run_to(now_ms);
        self.pull(now_ms);
        std::mem::take(&mut self.outputs)
    }

    /// Puts the start cord back at `now_ms` (nothing when it is in).
    pub fn insert_cord(&mut self, now_ms: u64) -> Vec<Output> {
        self.run_to(now_ms);
        if self.cord.out {
            self.cord.out = false;
            self.event("cord_inserted", format!("after {} pulls", self.cord.pulls));
            self.cord_packet();
        }
        std::mem::take(&mut self.outputs)
    }

    pub(super) fn pull(&mut self, now_ms: u64) {
        if self.cord.out {
            self.cord.out = false;
            self.event("cord_inserted", "to be pulled again".into());
            self.cord_packet();
        }
        self.cord.out = true;
        self.cord.pulls = self.cord.pulls.wrapping_add(1);
        self.cord.pulled_at_ms = now_ms;
        self.cord.pull_at_ms = None;
        self.event("cord_pulled", format!("pull {}", self.cord.pulls));
        let starts_on_cord = self
            .s
            .opponent
            .as_ref()
            .is_some_and(|o| o.start_on == OpponentStart::Cord);
        if starts_on_cord && self.opponent_t0_ms.is_none() {
            self.opponent_t0_ms = Some(now_ms);
            self.event("opponent_starts", "with the start cord".into());
        }
        self.cord_packet();
    }

    pub(super) fn cord_packet(&mut self) {
        let since = if self.cord.out {
            u32::try_from(self.now_ms.saturating_sub(self.cord.pulled_at_ms)).unwrap_or(u32::MAX)
        } else {
            0
        };
        self.outputs.push(Output::StartCord(StartCord {
            seq: self.cord.seq,
            pulled: self.cord.out,
            pulls: self.cord.pulls,
            since_pull_ms: since,
        }));
        self.cord.seq = self.cord.seq.wrapping_add(1);
        self.cord.next_ms = self.now_ms + CORD_PERIOD_MS;
    }

    /// Whether the LiDAR streams (`None`: the board has none).
    pub fn lidar_on(&self) -> Option<bool> {
        self.lidar.as_ref().map(SimLidar::is_on)
    }

    /// Switches the LiDAR off (silent, as a stalled motor or a cut wire) or on, at
    /// `now_ms`. Returns whether there is one.
    pub fn set_lidar_power(&mut self, on: bool, now_ms: u64) -> bool {
        self.run_to(now_ms);
        let now = self.now_ms;
        let Some(l) = self.lidar.as_mut() else {
            return false;
        };
        if l.is_on() != on {
            l.set_on(on, now);
            self.event("lidar", if on { "on".into() } else { "off".into() });
        }
        true
    }

    /// The LiDAR's bytes made since the last call (LD06 packets).
    pub fn take_lidar_bytes(&mut self) -> Vec<u8> {
        self.lidar
            .as_mut()
            .map(SimLidar::take_bytes)
            .unwrap_or_default()
    }
}
