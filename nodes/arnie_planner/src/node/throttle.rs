//! Rate-limited log lines for events a peer can cause at any rate (refused requests,
//! rejected maps): at most one line per period per [`Throttle`], the next line saying how
//! many were left out. Time is passed in (seconds on any monotonic clock), so it is
//! tested without a clock.

/// One rate limit (one per kind of line).
#[derive(Clone, Debug, PartialEq)]
pub struct Throttle {
    period_s: f64,
    last_s: Option<f64>,
    suppressed: u64,
}

impl Throttle {
    /// At most one line per `period_s` seconds.
    pub fn new(period_s: f64) -> Self {
        Throttle {
            period_s,
            last_s: None,
            suppressed: 0,
        }
    }

    /// `Some(n)` when a line may be written at `now_s` (`n` lines were left out since
    /// the last one written), `None` when this one is left out (and counted).
    pub fn allow(&mut self, now_s: f64) -> Option<u64> {
        match self.last_s {
            Some(t) if now_s - t < self.period_s => {
                self.suppressed += 1;
                None
            }
            _ => {
                self.last_s = Some(now_s);
                Some(std::mem::take(&mut self.suppressed))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_period_then_the_count_left_out() {
        let mut t = Throttle::new(5.0);
        assert_eq!(t.allow(0.0), Some(0));
        for i in 1..=9 {
            assert_eq!(t.allow(f64::from(i) * 0.5), None);
        }
        assert_eq!(t.allow(5.0), Some(9));
        assert_eq!(t.allow(5.1), None);
        assert_eq!(t.allow(100.0), Some(1));
        assert_eq!(t.allow(200.0), Some(0));
    }
}
