//! Nice axis ticks (steps of 1, 2 or 5 × 10ⁿ) and their labels.

/// The smallest "nice" step (1, 2 or 5 × 10ⁿ) that cuts `span` into at most `max_ticks`
/// intervals. A span that is zero, negative or not finite gives 1.0; `max_ticks` 0 counts as 1.
pub fn nice_step(span: f64, max_ticks: usize) -> f64 {
    if !span.is_finite() || span <= 0.0 {
        return 1.0;
    }
    let raw = span / max_ticks.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * mag >= raw * (1.0 - 1e-9) {
            return m * mag;
        }
    }
    10.0 * mag
}

/// Tick values: every multiple of `nice_step(hi - lo, max_ticks)` inside `[lo, hi]`
/// (ends included with a small tolerance). Empty when the range is not finite or empty.
pub fn ticks(lo: f64, hi: f64, max_ticks: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let step = nice_step(hi - lo, max_ticks);
    let eps = step * 1e-6;
    let first = (lo / step - 1e-6).ceil() as i64;
    let last = (hi / step + 1e-6).floor() as i64;
    (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            // Exact zero (never "-0"), and values like 0.30000000000000004 rounded to the step.
            if v.abs() < eps {
                0.0
            } else {
                v
            }
        })
        .collect()
}

/// Decimals needed to print multiples of `step` exactly (0 for steps of 1 and up).
pub fn decimals(step: f64) -> usize {
    if !step.is_finite() || step <= 0.0 || step >= 1.0 {
        return 0;
    }
    let mut d = 0;
    let mut s = step;
    while d < 10 && (s - s.round()).abs() > 1e-6 * s.max(1.0) {
        s *= 10.0;
        d += 1;
    }
    d
}

/// A tick label: `value` with the decimals its step needs ("0.5", "20", "-1.25"), never "-0".
pub fn format_tick(value: f64, step: f64) -> String {
    let d = decimals(step);
    let s = format!("{value:.d$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(100.0, 10), 10.0);
        assert_eq!(nice_step(100.0, 5), 20.0);
        assert_eq!(nice_step(100.0, 3), 50.0);
        assert_eq!(nice_step(3000.0, 6), 500.0);
        assert_eq!(nice_step(0.7, 7), 0.1);
        assert_eq!(nice_step(0.7, 4), 0.2);
        assert_eq!(nice_step(37.0, 5), 10.0);
        for span in [0.013, 1.0, 7.3, 99.0, 123456.0] {
            for n in 1..12 {
                let s = nice_step(span, n);
                assert!(span / s <= n as f64 + 1e-9, "span {span} n {n} step {s}");
                let m = s / 10f64.powf(s.log10().floor());
                assert!([1.0, 2.0, 5.0].iter().any(|x| (x - m).abs() < 1e-9), "{s}");
                // The next smaller nice step would give too many ticks.
                // (1 -> 0.5, 2 -> 1: half; 5 -> 2: 0.4 of it)
                let smaller = if (m - 5.0).abs() > 1e-9 {
                    s / 2.0
                } else {
                    s * 0.4
                };
                assert!(
                    span / smaller > n as f64 - 1e-9,
                    "span {span} n {n} step {s} not the smallest"
                );
            }
        }
    }

    #[test]
    fn bad_spans_give_a_unit_step() {
        assert_eq!(nice_step(0.0, 5), 1.0);
        assert_eq!(nice_step(-3.0, 5), 1.0);
        assert_eq!(nice_step(f64::NAN, 5), 1.0);
        assert_eq!(nice_step(f64::INFINITY, 5), 1.0);
        assert_eq!(nice_step(10.0, 0), 10.0);
    }

    #[test]
    fn ticks_are_the_multiples_inside_the_range() {
        assert_eq!(
            ticks(-95.0, 62.0, 8),
            vec![-80.0, -60.0, -40.0, -20.0, 0.0, 20.0, 40.0, 60.0]
        );
        assert_eq!(
            ticks(0.0, 3000.0, 6),
            vec![0.0, 500.0, 1000.0, 1500.0, 2000.0, 2500.0, 3000.0]
        );
        assert_eq!(ticks(0.1, 0.4, 3), vec![0.1, 0.2, 0.30000000000000004, 0.4]);
        assert!(ticks(1.0, 1.0, 5).is_empty());
        assert!(ticks(2.0, 1.0, 5).is_empty());
        assert!(ticks(f64::NAN, 1.0, 5).is_empty());
        for t in ticks(-1.0, 1.0, 4) {
            assert!(t.is_sign_positive() || t != 0.0);
        }
    }

    #[test]
    fn labels_have_the_decimals_of_the_step() {
        assert_eq!(format_tick(20.0, 10.0), "20");
        assert_eq!(format_tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(format_tick(-1.25, 0.25), "-1.25");
        assert_eq!(format_tick(-0.0, 0.5), "0.0");
        assert_eq!(format_tick(-1e-12, 1.0), "0");
        assert_eq!(format_tick(2500.0, 500.0), "2500");
        assert_eq!(decimals(0.05), 2);
        assert_eq!(decimals(2.0), 0);
    }
}
