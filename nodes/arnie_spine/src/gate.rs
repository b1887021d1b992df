//! [`OutputGate`]: per-output de-duplication and radius check (pure state machine).

use crate::Item;

/// What the gate decided about an offered value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Send it; it is now the last value sent.
    Send,
    /// Identical to the last value sent: skip.
    Duplicate,
    /// Farther than the threshold from the last value sent: drop (never clamp).
    TooFar {
        /// Distance \[mm, global frame\] over the checked values of the first item.
        dist_mm: f64,
        /// The output's threshold \[mm\].
        threshold_mm: f64,
    },
    /// With a threshold set, the first item has fewer values than the check needs (or
    /// the list is empty): the distance cannot be measured, so the value is dropped.
    TooShort {
        /// Values in the first item.
        len: usize,
        /// Values the check needs (`checkElementsCount`).
        need: usize,
    },
    /// A value is NaN or infinite (callers should have rejected it earlier).
    NotFinite,
}

/// Guards one output: only values within `threshold_mm` of the last value actually sent
/// pass, and a value identical to the last one sent is skipped.
///
/// The distance is Euclidean over the first `check_elements` values of the FIRST item,
/// in the global frame. The first value is not distance-checked. On a drop the last
/// value sent is left unchanged, so a run of far values stays dropped until one comes
/// back within the radius of what the device last received.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputGate {
    threshold_mm: Option<f64>,
    check_elements: usize,
    last_sent: Option<Vec<Item>>,
}

impl OutputGate {
    /// A gate with no value sent yet. `threshold_mm: None` disables the radius check.
    pub fn new(threshold_mm: Option<f64>, check_elements: usize) -> Self {
        Self {
            threshold_mm,
            check_elements: check_elements.max(1),
            last_sent: None,
        }
    }

    /// The last value that passed, in the global frame.
    pub fn last_sent(&self) -> Option<&[Item]> {
        self.last_sent.as_deref()
    }

    /// Judges `global` (without changing anything).
    pub fn judge(&self, global: &[Item]) -> Verdict {
        if global.iter().flatten().any(|x| !x.is_finite()) {
            return Verdict::NotFinite;
        }
        let Some(last) = &self.last_sent else {
            return match self.threshold_mm {
                Some(_) => self.length_check(global).unwrap_or(Verdict::Send),
                None => Verdict::Send,
            };
        };
        if last.as_slice() == global {
            return Verdict::Duplicate;
        }
        let Some(threshold_mm) = self.threshold_mm else {
            return Verdict::Send;
        };
        if let Some(short) = self.length_check(global) {
            return short;
        }
        let (Some(new), Some(old)) = (global.first(), last.first()) else {
            return Verdict::TooShort {
                len: 0,
                need: self.check_elements,
            };
        };
        let dist_mm = distance(new, old, self.check_elements);
        // A NaN distance (possible only if `old` were corrupt) is dropped too.
        if dist_mm.is_nan() || dist_mm > threshold_mm {
            return Verdict::TooFar {
                dist_mm,
                threshold_mm,
            };
        }
        Verdict::Send
    }

    /// Judges `global` and, on [`Verdict::Send`], records it as the last value sent.
    pub fn offer(&mut self, global: &[Item]) -> Verdict {
        let v = self.judge(global);
        if v == Verdict::Send {
            self.last_sent = Some(global.to_vec());
        }
        v
    }

    fn length_check(&self, global: &[Item]) -> Option<Verdict> {
        let len = global.first().map_or(0, Vec::len);
        (len < self.check_elements).then_some(Verdict::TooShort {
            len,
            need: self.check_elements,
        })
    }
}

/// Euclidean distance over the first `n` values of two items (callers ensure both have
/// at least `n`; extra values are ignored).
pub fn distance(a: &[f64], b: &[f64], n: usize) -> f64 {
    a.iter()
        .zip(b)
        .take(n)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_is_not_checked_then_radius_applies() {
        let mut g = OutputGate::new(Some(50.0), 3);
        assert_eq!(g.offer(&[vec![1000.0, 0.0, 0.0]]), Verdict::Send);
        assert_eq!(g.offer(&[vec![1030.0, 40.0, 0.0]]), Verdict::Send); // exactly 50: passes
        let v = g.offer(&[vec![1030.0, 40.0, 60.0]]);
        assert!(matches!(v, Verdict::TooFar { dist_mm, .. } if (dist_mm - 60.0).abs() < 1e-9));
        // last sent unchanged on a drop
        assert_eq!(g.last_sent(), Some(&[vec![1030.0, 40.0, 0.0]][..]));
        assert_eq!(g.offer(&[vec![1030.0, 40.0, 0.0]]), Verdict::Duplicate);
    }

    #[test]
    fn only_first_item_and_first_n_values_count() {
        let mut g = OutputGate::new(Some(10.0), 2);
        assert_eq!(g.offer(&[vec![0.0, 0.0, 0.0], vec![0.0; 3]]), Verdict::Send);
        assert_eq!(
            g.offer(&[vec![0.0, 0.0, 500.0], vec![900.0; 3]]),
            Verdict::Send
        );
        assert!(matches!(
            g.offer(&[vec![0.0, 11.0, 500.0]]),
            Verdict::TooFar { .. }
        ));
    }

    #[test]
    fn too_short_or_non_finite_are_dropped() {
        let mut g = OutputGate::new(Some(10.0), 3);
        assert_eq!(
            g.offer(&[vec![0.0, 0.0]]),
            Verdict::TooShort { len: 2, need: 3 }
        );
        assert_eq!(g.offer(&[]), Verdict::TooShort { len: 0, need: 3 });
        assert_eq!(g.offer(&[vec![f64::NAN, 0.0, 0.0]]), Verdict::NotFinite);
        assert_eq!(g.last_sent(), None);
        let mut open = OutputGate::new(None, 3);
        assert_eq!(open.offer(&[vec![1.0]]), Verdict::Send);
        assert_eq!(open.offer(&[vec![1e9]]), Verdict::Send);
        assert_eq!(open.offer(&[vec![1e9]]), Verdict::Duplicate);
        assert_eq!(open.offer(&[vec![f64::INFINITY]]), Verdict::NotFinite);
    }
}
