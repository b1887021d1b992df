//! Playback as a state machine over a clock the caller passes in.
//!
//! The glue asks [`Player::poll`] what to do at monotonic time `now` and gets
//! [`Step::Publish`] (a message is due), [`Step::Wait`] (sleep until then, or until a
//! key), [`Step::Paused`] or [`Step::Finished`]. Due times come from one anchor
//! (`anchor_mono` ↔ `anchor_bag`) and the rate, never from summed sleeps, so playback
//! does not drift. As in rosbag2 (`rosbag2_transport::Player`):
//! - the clock starts at the bag's start (plus `--start-offset`), so a topic whose
//!   first message comes later waits for it;
//! - `--delay` is wall time before each pass (also before each loop);
//! - `--playback-duration` ends the pass at start + offset + duration (0: nothing);
//! - pause freezes the clock; [`Player::step`] (→) publishes the next message while
//!   paused and moves the clock to it; ↑/↓ change the rate by 0.1 (it stays above 0);
//! - `/clock` shows [`Player::clock_time`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::bag::{Bag, BagMessage, BagMessages};
use crate::error::{BagError, Result};
use crate::keys::Key;
use crate::qos::{Durability, Qos};

/// How to play.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayOptions {
    /// `-r/--rate`: bag seconds per wall second (> 0).
    pub rate: f64,
    /// `-l/--loop`.
    pub loop_playback: bool,
    /// `--topics`: only these (empty: all).
    pub topics: Vec<String>,
    /// `--exclude-topics`.
    pub exclude_topics: Vec<String>,
    /// `--services`: only these services' event topics (`/s/_service_event`; empty:
    /// all). Service event topics are chosen by these two lists, other topics by the
    /// topic lists, as rosbag2's MCAP storage filter does.
    pub services: Vec<String>,
    /// `--exclude-services`, as event topics.
    pub exclude_services: Vec<String>,
    /// `-e/--regex`: also the topics whose whole name this matches.
    pub regex: Option<TopicRegex>,
    /// `-x/--exclude-regex`: never the topics whose whole name this matches.
    pub exclude_regex: Option<TopicRegex>,
    /// `--remap old:=new` (exact topic names).
    pub remap: Vec<(String, String)>,
    /// `--start-offset`: skip this much of the bag's start.
    pub start_offset_ns: u64,
    /// `--playback-duration`: play only this much bag time.
    pub playback_duration_ns: Option<u64>,
    /// `--playback-until-sec/-nsec`: play nothing logged after this bag time (the earlier
    /// of this and the duration's end wins, as in rosbag2).
    pub playback_until_ns: Option<u64>,
    /// `-d/--delay`: wall time before playing (each loop).
    pub delay_ns: u64,
    /// `--start-paused`.
    pub start_paused: bool,
    /// `--clock [Hz]`: publish `/clock` at this rate.
    pub clock_hz: Option<f64>,
    /// `--clock-topics T ...`: publish `/clock` at the log time of each message played on
    /// these topics (the names published, after `--remap`).
    pub clock_topics: Vec<String>,
    /// `--clock-topics-all`: publish `/clock` at the log time of every message played.
    pub clock_topics_all: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            rate: 1.0,
            loop_playback: false,
            topics: Vec::new(),
            exclude_topics: Vec::new(),
            services: Vec::new(),
            exclude_services: Vec::new(),
            regex: None,
            exclude_regex: None,
            remap: Vec::new(),
            start_offset_ns: 0,
            playback_duration_ns: None,
            playback_until_ns: None,
            delay_ns: 0,
            start_paused: false,
            clock_hz: None,
            clock_topics: Vec::new(),
            clock_topics_all: false,
        }
    }
}

impl PlayOptions {
    /// Whether `topic` (its name in the bag) is played: as rosbag2's MCAP storage
    /// filter, selected when no `--topics` and no `--regex` are given, or the topic is
    /// named, or `--regex` matches it; then not when it is in `--exclude-topics` or
    /// `--exclude-regex` matches it. A service's event topic (`/s/_service_event`) goes
    /// by `--services` and `--exclude-services` instead of the topic lists.
    pub fn plays(&self, topic: &str) -> bool {
        let service = topic.ends_with(crate::filter::SERVICE_EVENT_SUFFIX);
        let (include, exclude) = if service {
            (&self.services, &self.exclude_services)
        } else {
            (&self.topics, &self.exclude_topics)
        };
        let selected = (include.is_empty() && self.regex.is_none())
            || include.iter().any(|t| t == topic)
            || self.regex.as_ref().is_some_and(|r| r.matches(topic));
        let excluded = exclude.iter().any(|t| t == topic)
            || self
                .exclude_regex
                .as_ref()
                .is_some_and(|r| r.matches(topic));
        selected && !excluded
    }

    /// The name `topic` is published under.
    pub fn remapped<'a>(&'a self, topic: &'a str) -> &'a str {
        self.remap
            .iter()
            .find(|(old, _)| old == topic)
            .map_or(topic, |(_, new)| new.as_str())
    }
}

/// A topic regex of `play` (`-e`, `-x`). rosbag2's player filters in the storage
/// plugin with `std::regex_match`: the regex must match the **whole** name (`/arm/.*`,
/// not `arm`), unlike `record`'s search.
#[derive(Debug, Clone)]
pub struct TopicRegex(regex::Regex);

impl TopicRegex {
    /// Compiles `re` as a whole-name match.
    ///
    /// # Errors
    /// [`BagError::BadOption`] naming `flag` for a regex that does not compile.
    pub fn new(flag: &str, re: &str) -> Result<Self> {
        regex::Regex::new(&format!("^(?:{re})$"))
            .map(TopicRegex)
            .map_err(|e| BagError::option(flag, format!("bad regex: {e}")))
    }

    /// Whether the regex matches all of `topic`.
    pub fn matches(&self, topic: &str) -> bool {
        self.0.is_match(topic)
    }
}

impl PartialEq for TopicRegex {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

/// Messages to play; rewound for each loop.
pub trait MessageSource {
    /// Back to the first message.
    fn rewind(&mut self) -> Result<()>;
    /// The next message in log-time order, `None` at the end.
    fn next_message(&mut self) -> Option<Result<BagMessage>>;
}

/// A bag's messages.
pub struct BagSource<'a> {
    bag: &'a Bag,
    it: BagMessages<'a>,
}

impl<'a> BagSource<'a> {
    /// Plays the messages of `bag` in log-time order.
    pub fn new(bag: &'a Bag) -> Self {
        BagSource {
            bag,
            it: bag.messages(),
        }
    }
}

impl MessageSource for BagSource<'_> {
    fn rewind(&mut self) -> Result<()> {
        self.it = self.bag.messages();
        Ok(())
    }
    fn next_message(&mut self) -> Option<Result<BagMessage>> {
        self.it.next()
    }
}

/// Messages held in memory (tests, small bags).
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    /// The messages, in the order they are played (log time).
    pub messages: Vec<BagMessage>,
    pos: usize,
}

impl MemorySource {
    /// A source of `messages` (played in the given order).
    pub fn new(messages: Vec<BagMessage>) -> Self {
        MemorySource { messages, pos: 0 }
    }
}

impl MessageSource for MemorySource {
    fn rewind(&mut self) -> Result<()> {
        self.pos = 0;
        Ok(())
    }
    fn next_message(&mut self) -> Option<Result<BagMessage>> {
        let m = self.messages.get(self.pos).cloned()?;
        self.pos += 1;
        Some(Ok(m))
    }
}

/// A message to publish now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayMessage {
    /// The topic to publish on (after `--remap`).
    pub topic: Arc<str>,
    /// Its recorded receive time (bag time).
    pub log_time: u64,
    /// Serialized CDR.
    pub data: Vec<u8>,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Publish this message now.
    Publish(PlayMessage),
    /// Nothing is due before this monotonic time (a key may come earlier).
    Wait {
        /// The monotonic time [ns] when the next message is due.
        until_ns: u64,
    },
    /// Paused: wait for a key.
    Paused,
    /// Played to the end (not looping).
    Finished,
}

/// A publisher the glue creates before playing.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayTopic {
    /// Name in the bag.
    pub bag_name: String,
    /// Name to publish on (after `--remap`).
    pub name: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// What to offer: the recorded profiles' common one (rosbag2's
    /// `adapt_offer_to_recorded_offers`), so a latched topic stays latched.
    pub qos: Qos,
    /// False when the recorded profiles disagreed and the default is offered.
    pub qos_from_recording: bool,
}

impl PlayTopic {
    /// Transient-local: a subscriber that joins late still gets the last message.
    pub fn latched(&self) -> bool {
        self.qos.durability == Durability::TransientLocal
    }
}

/// The publishers to create for playing `bag` with `opts`.
pub fn play_topics(bag: &Bag, opts: &PlayOptions) -> Vec<PlayTopic> {
    bag.topics()
        .iter()
        .filter(|t| opts.plays(&t.metadata.name))
        .map(|t| {
            let (qos, same) = Qos::adapt_offer_to_recorded_offers(&t.metadata.offered_qos_profiles);
            PlayTopic {
                bag_name: t.metadata.name.clone(),
                name: opts.remapped(&t.metadata.name).to_string(),
                type_name: t.metadata.type_name.clone(),
                qos,
                qos_from_recording: same,
            }
        })
        .collect()
}

/// Counts and clock state, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerStatus {
    /// Where playback is in the bag, ns since the epoch (log time).
    pub bag_time_ns: u64,
    /// Playback rate (1.0 = as recorded).
    pub rate: f64,
    /// Whether playback is paused.
    pub paused: bool,
    /// Times the bag has been played to its end and restarted (`--loop`).
    pub loops: u64,
    /// Messages published, per topic (the bag's names).
    pub published: BTreeMap<String, u64>,
}

/// Plays a [`MessageSource`]; see the module doc.
pub struct Player<S: MessageSource> {
    src: S,
    opts: PlayOptions,
    start_bag: u64,
    /// Messages logged before this are skipped (the start, or where a seek went).
    floor: u64,
    until_bag: Option<u64>,
    anchor_mono: u64,
    anchor_bag: u64,
    rate: f64,
    paused_at: Option<u64>,
    peeked: Option<BagMessage>,
    exhausted: bool,
    finished: bool,
    loops: u64,
    published: HashMap<Arc<str>, u64>,
}

impl<S: MessageSource> Player<S> {
    /// A player over `src`, whose bag starts at `bag_start_ns`, started at monotonic
    /// time `now_ns`.
    ///
    /// # Errors
    /// [`BagError::BadOption`] for a rate that is not a positive number or a clock rate
    /// that is not positive.
    pub fn new(src: S, bag_start_ns: u64, opts: PlayOptions, now_ns: u64) -> Result<Self> {
        check_rate(opts.rate)?;
        if let Some(hz) = opts.clock_hz {
            if !(hz.is_finite() && hz > 0.0) {
                return Err(BagError::option(
                    "--clock",
                    format!("{hz} is not a positive rate"),
                ));
            }
        }
        let start_bag = bag_start_ns.saturating_add(opts.start_offset_ns);
        let until_bag = match (
            opts.playback_duration_ns
                .map(|d| start_bag.saturating_add(d)),
            opts.playback_until_ns,
        ) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut p = Player {
            src,
            start_bag,
            floor: start_bag,
            until_bag,
            anchor_mono: now_ns.saturating_add(opts.delay_ns),
            anchor_bag: start_bag,
            rate: opts.rate,
            paused_at: None,
            peeked: None,
            exhausted: false,
            finished: false,
            loops: 0,
            published: HashMap::new(),
            opts,
        };
        if p.opts.start_paused {
            p.paused_at = Some(start_bag);
        }
        if p.opts.playback_duration_ns == Some(0) {
            p.exhausted = true;
        }
        Ok(p)
    }

    /// The options played with.
    pub fn options(&self) -> &PlayOptions {
        &self.opts
    }

    /// The bag time at `now_ns` (what `/clock` publishes).
    pub fn clock_time(&self, now_ns: u64) -> u64 {
        if let Some(t) = self.paused_at {
            return t;
        }
        if now_ns <= self.anchor_mono {
            return self.anchor_bag;
        }
        let dt = (now_ns - self.anchor_mono) as f64 * self.rate;
        self.anchor_bag.saturating_add(dt as u64)
    }

    /// The `/clock` period, when `--clock` was given.
    pub fn clock_period_ns(&self) -> Option<u64> {
        self.opts
            .clock_hz
            .map(|hz| (1e9 / hz).round().max(1.0) as u64)
    }

    /// Monotonic time at which bag time `t` is due.
    fn due(&self, t: u64) -> u64 {
        if t <= self.anchor_bag {
            return self.anchor_mono;
        }
        self.anchor_mono
            .saturating_add(((t - self.anchor_bag) as f64 / self.rate).ceil() as u64)
    }

    /// The next message to play, filtered, without consuming it.
    fn peek(&mut self) -> Result<Option<&BagMessage>> {
        while self.peeked.is_none() && !self.exhausted {
            match self.src.next_message() {
                None => self.exhausted = true,
                Some(Err(e)) => {
                    self.exhausted = true;
                    self.finished = true;
                    return Err(e);
                }
                Some(Ok(m)) => {
                    if self.until_bag.is_some_and(|u| m.log_time > u) {
                        self.exhausted = true;
                    } else if m.log_time >= self.floor && self.opts.plays(&m.topic) {
                        self.peeked = Some(m);
                    }
                }
            }
        }
        Ok(self.peeked.as_ref())
    }

    fn take(&mut self) -> Option<PlayMessage> {
        let m = self.peeked.take()?;
        let topic: Arc<str> = match self.opts.remap.iter().find(|(old, _)| **old == *m.topic) {
            Some((_, new)) => Arc::from(new.as_str()),
            None => m.topic,
        };
        *self.published.entry(topic.clone()).or_default() += 1;
        Some(PlayMessage {
            topic,
            log_time: m.log_time,
            data: m.data,
        })
    }

    /// What to do at `now_ns`.
    ///
    /// # Errors
    /// A read error of the bag (the player is then finished).
    pub fn poll(&mut self, now_ns: u64) -> Result<Step> {
        loop {
            if self.finished {
                return Ok(Step::Finished);
            }
            if self.paused_at.is_some() {
                return Ok(Step::Paused);
            }
            let next = self.peek()?.map(|m| m.log_time);
            match next {
                Some(t) => {
                    let due = self.due(t);
                    if now_ns >= due {
                        return Ok(self.take().map_or(Step::Finished, Step::Publish));
                    }
                    return Ok(Step::Wait { until_ns: due });
                }
                None if self.opts.loop_playback
                    && self.loops < u64::MAX
                    && self.opts.playback_duration_ns != Some(0) =>
                {
                    self.src.rewind()?;
                    self.exhausted = false;
                    self.loops += 1;
                    self.anchor_mono = now_ns.saturating_add(self.opts.delay_ns);
                    self.anchor_bag = self.start_bag;
                    self.floor = self.start_bag;
                }
                None => {
                    self.finished = true;
                }
            }
        }
    }

    /// Pauses (the clock stops at `now`).
    pub fn pause(&mut self, now_ns: u64) {
        if self.paused_at.is_none() {
            self.paused_at = Some(self.clock_time(now_ns));
        }
    }

    /// Resumes from where the clock stopped.
    pub fn resume(&mut self, now_ns: u64) {
        if let Some(t) = self.paused_at.take() {
            self.anchor_bag = t;
            // Still inside --delay: start when it ends.
            self.anchor_mono = self.anchor_mono.max(now_ns);
        }
    }

    /// Space: pause or resume.
    pub fn toggle_pause(&mut self, now_ns: u64) {
        if self.paused_at.is_some() {
            self.resume(now_ns)
        } else {
            self.pause(now_ns)
        }
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// →: while paused, the next message now (the clock moves to it); `None` when not
    /// paused or at the end.
    pub fn step(&mut self, _now_ns: u64) -> Result<Option<PlayMessage>> {
        if self.paused_at.is_none() {
            return Ok(None);
        }
        let Some(t) = self.peek()?.map(|m| m.log_time) else {
            return Ok(None);
        };
        self.paused_at = Some(t);
        Ok(self.take())
    }

    /// The rate now.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Changes the rate at `now` (bag time keeps going from where it is).
    ///
    /// # Errors
    /// [`BagError::BadOption`] for a rate that is not a positive number (rate unchanged).
    pub fn set_rate(&mut self, now_ns: u64, rate: f64) -> Result<()> {
        check_rate(rate)?;
        if self.paused_at.is_none() && now_ns > self.anchor_mono {
            self.anchor_bag = self.clock_time(now_ns);
            self.anchor_mono = now_ns;
        }
        self.rate = rate;
        Ok(())
    }

    /// rosbag2's keys. Returns a message to publish for →; [`Key::Quit`] ends playback.
    pub fn on_key(&mut self, key: Key, now_ns: u64) -> Result<Option<PlayMessage>> {
        match key {
            Key::Space => self.toggle_pause(now_ns),
            Key::Right => return self.step(now_ns),
            Key::Up => {
                let _ = self.set_rate(now_ns, self.rate + 0.1);
            }
            Key::Down => {
                // rosbag2 refuses a rate that would not be positive.
                let _ = self.set_rate(now_ns, self.rate - 0.1);
            }
            Key::Quit => self.finished = true,
            Key::Left | Key::Other(_) => {}
        }
        Ok(None)
    }

    /// rosbag2's `~/seek`: continue from bag time `t` (not before the start), the clock
    /// jumps there; a paused player stays paused at `t`.
    ///
    /// # Errors
    /// The bag cannot be read from its start again.
    pub fn seek(&mut self, now_ns: u64, t: u64) -> Result<()> {
        let t = t.max(self.start_bag);
        self.src.rewind()?;
        self.peeked = None;
        self.exhausted = false;
        self.floor = t;
        self.anchor_bag = t;
        self.anchor_mono = now_ns;
        if self.paused_at.is_some() {
            self.paused_at = Some(t);
        }
        Ok(())
    }

    /// True once playback ended (the end of the bag without `--loop`, a stop, `q`).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Stops playback (the next poll says Finished).
    pub fn stop(&mut self) {
        self.finished = true;
    }

    /// Counts and clock.
    pub fn status(&self, now_ns: u64) -> PlayerStatus {
        PlayerStatus {
            bag_time_ns: self.clock_time(now_ns),
            rate: self.rate,
            paused: self.paused_at.is_some(),
            loops: self.loops,
            published: self
                .published
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
        }
    }
}

fn check_rate(rate: f64) -> Result<()> {
    if rate.is_finite() && rate > 1e-9 {
        Ok(())
    } else {
        Err(BagError::option(
            "--rate",
            format!("{rate} is not a positive number"),
        ))
    }
}

#[cfg(test)]
mod tests;
