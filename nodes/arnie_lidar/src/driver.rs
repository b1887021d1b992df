//! [`Driver`]: the LD06's bytes in, scans out, with the link's health. Pure: the glue
//! passes the bytes it read and the time [s, a monotonic clock], and tells it when the
//! port opened or closed.
//!
//! - Bytes go through the [`ld06::Decoder`] (garbage, bad CRCs and cut packets counted,
//!   the stream resynchronised) and the [`ld06::Assembler`] (one scan per revolution).
//! - **Health**: not open (the port would not open, or closed: a USB adapter unplugged,
//!   the simulator's pty gone), waiting (open, no byte yet), streaming, or **silent**
//!   (no byte for `silence_timeout_ms`: a stalled motor, a cut wire). A silence or a
//!   close also ends what was pending (a partial packet is truncated, the revolution in
//!   progress dropped), so a scan never joins data from before and after a gap.
use ld06::{Assembler, Decoder, Rejected, Scan};

use crate::LidarConfig;

/// How the link is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Health {
    /// The port is not open.
    NotOpen,
    /// Open, no byte yet.
    Waiting {
        /// Since the port opened [s].
        for_s: f64,
    },
    /// Bytes arrive.
    Streaming,
    /// No byte for `silence_timeout_ms` or more.
    Silent {
        /// Since the last byte [s].
        for_s: f64,
    },
}

/// The link's own counts (the decoder's and the assembler's are beside them in
/// [`Driver::pairs`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverCounters {
    /// Times the port opened.
    pub opens: u64,
    /// Times the port closed under the driver (an error or end of file on read).
    pub closes: u64,
    /// Times the LiDAR fell silent (`silence_timeout_ms` without a byte).
    pub silences: u64,
    /// Scans made.
    pub scans: u64,
}

/// The driver (see the module doc).
#[derive(Clone, Debug)]
pub struct Driver {
    decoder: Decoder,
    assembler: Assembler,
    silence_s: f64,
    opened_at: Option<f64>,
    last_byte: Option<f64>,
    silent: bool,
    counters: DriverCounters,
}

impl Driver {
    /// A driver with `cfg` (checked by the caller with [`LidarConfig::check`]); the port
    /// is not open yet.
    pub fn new(cfg: &LidarConfig) -> Driver {
        let scan = cfg.scan();
        Driver {
            decoder: Decoder::new(scan.gap_s),
            assembler: Assembler::new(scan),
            silence_s: f64::from(cfg.silence_timeout_ms) / 1000.0,
            opened_at: None,
            last_byte: None,
            silent: false,
            counters: DriverCounters::default(),
        }
    }

    /// The port opened at `now`.
    pub fn opened(&mut self, now: f64) {
        self.counters.opens += 1;
        self.opened_at = Some(now);
        self.last_byte = None;
        self.silent = false;
    }

    /// The port closed at `now` (a read error or end of file): what was pending ends
    /// (returned: a partial packet is truncated).
    pub fn closed(&mut self, _now: f64) -> Vec<Rejected> {
        if self.opened_at.take().is_some() {
            self.counters.closes += 1;
        }
        self.end_stream()
    }

    /// Bytes read at `now`: the revolutions they completed, and the rejections among
    /// them (already counted; for the log).
    pub fn on_bytes(&mut self, bytes: &[u8], now: f64) -> (Vec<Scan>, Vec<Rejected>) {
        let (mut scans, mut rejected) = (Vec::new(), Vec::new());
        if bytes.is_empty() {
            return (scans, rejected);
        }
        self.last_byte = Some(now);
        self.silent = false;
        self.decoder.push(bytes, now);
        while let Some(r) = self.decoder.next_packet() {
            match r {
                Ok(p) => {
                    if let Some(s) = self.assembler.push(&p, now) {
                        self.counters.scans += 1;
                        scans.push(s);
                    }
                }
                Err(e) => rejected.push(e),
            }
        }
        (scans, rejected)
    }

    /// Time passes: `Some(seconds since the last byte)` once, when the LiDAR has just
    /// fallen silent (counted; what was pending ends).
    pub fn tick(&mut self, now: f64) -> Option<f64> {
        let since = self.last_byte.or(self.opened_at)?;
        let quiet = now - since;
        if quiet >= self.silence_s && !self.silent {
            self.silent = true;
            self.counters.silences += 1;
            self.end_stream();
            return Some(quiet);
        }
        None
    }

    fn end_stream(&mut self) -> Vec<Rejected> {
        self.decoder.finish();
        let rejected = std::iter::from_fn(|| self.decoder.next_packet())
            .filter_map(Result::err)
            .collect();
        self.assembler.drop_partial();
        rejected
    }

    /// The link's health at `now`.
    pub fn health(&self, now: f64) -> Health {
        let Some(opened) = self.opened_at else {
            return Health::NotOpen;
        };
        match self.last_byte {
            None if now - opened >= self.silence_s => Health::Silent {
                for_s: now - opened,
            },
            None => Health::Waiting {
                for_s: now - opened,
            },
            Some(t) if now - t >= self.silence_s => Health::Silent { for_s: now - t },
            Some(_) => Health::Streaming,
        }
    }

    /// The link's counts.
    pub fn counters(&self) -> &DriverCounters {
        &self.counters
    }

    /// Every count as `(name, value)` for `/diagnostics`: the decoder's, the assembler's,
    /// the link's.
    pub fn pairs(&self) -> Vec<(&'static str, u64)> {
        let mut out: Vec<(&'static str, u64)> = self.decoder.counters().pairs().to_vec();
        let a = self.assembler.counters();
        out.extend([
            ("revolutions", a.revolutions),
            ("partial_revolutions", a.partial_revolutions),
            ("zero_speed_packets", a.zero_speed_packets),
            ("opens", self.counters.opens),
            ("closes", self.counters.closes),
            ("silences", self.counters.silences),
            ("scans", self.counters.scans),
        ]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ld06::{Packet, Point};

    /// 10 Hz of LD06 packets from device angle 0, 1 m everywhere, each with the time
    /// its last byte is read.
    fn stream(packets: usize, t0: f64) -> Vec<(Vec<u8>, f64)> {
        (0..packets)
            .map(|j| {
                let a0 = (j * 12) as f64 * 0.8;
                let mut p = Packet {
                    speed_deg_s: 3600,
                    start_angle_cdeg: ((a0 * 100.0).round() as u64 % 36_000) as u16,
                    end_angle_cdeg: (((a0 + 8.8) * 100.0).round() as u64 % 36_000) as u16,
                    ..Packet::default()
                };
                p.points = [Point {
                    distance_mm: 1000,
                    intensity: 200,
                }; 12];
                (p.encode().to_vec(), t0 + (j + 1) as f64 * 12.0 / 4500.0)
            })
            .collect()
    }

    #[test]
    fn bytes_become_scans_and_garbage_is_counted() {
        let mut d = Driver::new(&LidarConfig::default());
        assert_eq!(d.health(0.0), Health::NotOpen);
        d.opened(0.0);
        assert!(matches!(d.health(0.1), Health::Waiting { .. }));
        let mut scans = Vec::new();
        for (i, (bytes, t)) in stream(150, 0.0).into_iter().enumerate() {
            if i == 40 {
                let (s, r) = d.on_bytes(&[0xde, 0xad, 0x54, 0x2c, 0x01], t);
                assert!(s.is_empty() && r.is_empty());
            }
            scans.extend(d.on_bytes(&bytes, t).0);
        }
        assert_eq!(d.health(0.41), Health::Streaming);
        // 150 packets = 4 revolutions from 0°: the cut at 180° is crossed 4 times.
        assert_eq!(scans.len(), 3);
        let pairs: std::collections::HashMap<_, _> = d.pairs().into_iter().collect();
        assert_eq!(
            pairs["truncated"], 1,
            "the 3 bytes after the garbage looked like a packet"
        );
        assert_eq!(pairs["garbage_bytes"], 2);
        assert_eq!(pairs["packets"], 150);
        assert_eq!(pairs["scans"], 3);
        assert!(scans.iter().all(|s| s.finite_rays() == 450));
    }

    #[test]
    fn a_silence_is_reported_once_and_ends_the_revolution() {
        let mut d = Driver::new(&LidarConfig::default());
        d.opened(0.0);
        for (bytes, t) in stream(60, 0.0) {
            d.on_bytes(&bytes, t);
        }
        let last = 60.0 * 12.0 / 4500.0;
        assert_eq!(d.tick(last + 0.1), None);
        let quiet = d.tick(last + 0.6).expect("silent after 0.5 s");
        assert!((quiet - 0.6).abs() < 1e-9);
        assert_eq!(d.tick(last + 0.7), None, "reported once");
        assert!(matches!(d.health(last + 0.7), Health::Silent { .. }));
        assert_eq!(d.counters().silences, 1);
        // The stream comes back: streaming again, a new revolution needed.
        for (bytes, t) in stream(10, last + 1.0) {
            d.on_bytes(&bytes, t);
        }
        assert_eq!(d.health(last + 1.05), Health::Streaming);
        // The port closes mid-packet: truncated.
        d.on_bytes(&stream(1, 2.0)[0].0[..20], 2.0);
        let r = d.closed(2.01);
        assert_eq!(r, vec![ld06::Rejected::Truncated { len: 20 }]);
        assert_eq!(d.health(2.02), Health::NotOpen);
        assert_eq!(d.counters().closes, 1);
    }

    #[test]
    fn a_port_that_opens_and_stays_silent_is_silent() {
        let mut d = Driver::new(&LidarConfig::default());
        d.opened(1.0);
        assert!(d.tick(1.2).is_none());
        assert!(d.tick(1.6).is_some());
        assert!(matches!(d.health(1.6), Health::Silent { .. }));
    }
}
