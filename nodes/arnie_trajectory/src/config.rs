//! Parameters in two stages: [`RawTrajectoryConfig`] as written (serde, ROS params) and
//! the checked [`TrajectoryConfig`] the rest of the crate uses.
//!
//! Defaults are the original PYT values (35 ms period, 1 sample/mm, ±25 mm per axis,
//! 10 periods of wait before reversing) plus the new, documented ones.

use serde::{Deserialize, Serialize};

use crate::error::TrajectoryError;

/// Parameters as written. Every field has a default ([`Default`] = original values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawTrajectoryConfig {
    /// Time between two set-points [ms]. Original: 35.
    pub period_ms: u64,
    /// Samples per millimetre of distance. Original: 1.
    pub sample_factor: u32,
    /// Allowed error on EVERY axis against the previous set-point [mm]. Original: 25.
    pub tracking_tolerance_mm: f64,
    /// Periods to hold still after an obstacle before reversing. Original: 10.
    pub reverse_wait_periods: u32,
    /// Extra periods allowed, after the last set-point was sent, for the arm to come
    /// within tolerance of it before that counts as an obstacle. New; default 10.
    pub settle_periods: u32,
    /// Lower corner of the allowed target box, world frame [mm].
    pub workspace_min_mm: [f64; 3],
    /// Upper corner of the allowed target box, world frame [mm].
    pub workspace_max_mm: [f64; 3],
    /// An arm position older than this is stale: goals are rejected, and a running move
    /// holds (then aborts after `stale_abort_periods`) instead of checking set-points
    /// against a position that no longer updates [ms]. New; 100: a few lost encoder
    /// packets are tolerated, yet even at a 10 ms period the set-points cannot run more
    /// than the 25 mm tolerance ahead of a frozen position before it counts as stale.
    pub position_timeout_ms: u64,
    /// Consecutive periods without a fresh arm position after which a running move is
    /// aborted (help needed). New; default 20 (0.7 s at 35 ms).
    pub stale_abort_periods: u32,
}

impl Default for RawTrajectoryConfig {
    fn default() -> Self {
        Self {
            period_ms: 35,
            sample_factor: 1,
            tracking_tolerance_mm: 25.0,
            reverse_wait_periods: 10,
            settle_periods: 10,
            workspace_min_mm: [-1000.0; 3],
            workspace_max_mm: [1000.0; 3],
            position_timeout_ms: 100,
            stale_abort_periods: 20,
        }
    }
}

/// Largest accepted `period_ms` (one minute).
pub const MAX_PERIOD_MS: u64 = 60_000;
/// Largest accepted `sample_factor`.
pub const MAX_SAMPLE_FACTOR: u32 = 1000;

/// Checked parameters: built only by [`TryFrom<RawTrajectoryConfig>`] or [`Default`]
/// (the original values, which pass the checks), so every value is in range.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrajectoryConfig {
    raw: RawTrajectoryConfig,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> TrajectoryError {
    TrajectoryError::InvalidConfig {
        field,
        reason: reason.into(),
    }
}

impl TryFrom<RawTrajectoryConfig> for TrajectoryConfig {
    type Error = TrajectoryError;

    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] naming the first bad field.
    fn try_from(raw: RawTrajectoryConfig) -> Result<Self, Self::Error> {
        if raw.period_ms == 0 || raw.period_ms > MAX_PERIOD_MS {
            return Err(invalid(
                "period_ms",
                format!("{} is not in 1..={MAX_PERIOD_MS}", raw.period_ms),
            ));
        }
        if raw.sample_factor == 0 || raw.sample_factor > MAX_SAMPLE_FACTOR {
            return Err(invalid(
                "sample_factor",
                format!("{} is not in 1..={MAX_SAMPLE_FACTOR}", raw.sample_factor),
            ));
        }
        let tol = raw.tracking_tolerance_mm;
        if !tol.is_finite() || tol <= 0.0 {
            return Err(invalid(
                "tracking_tolerance_mm",
                format!("{tol} is not a finite number above 0"),
            ));
        }
        for (axis, (lo, hi)) in raw
            .workspace_min_mm
            .iter()
            .zip(&raw.workspace_max_mm)
            .enumerate()
        {
            if !lo.is_finite() {
                return Err(invalid(
                    "workspace_min_mm",
                    format!("axis {axis}: {lo} is not finite"),
                ));
            }
            if !hi.is_finite() {
                return Err(invalid(
                    "workspace_max_mm",
                    format!("axis {axis}: {hi} is not finite"),
                ));
            }
            if lo > hi {
                return Err(invalid(
                    "workspace_max_mm",
                    format!("axis {axis}: max {hi} is below workspace_min_mm {lo}"),
                ));
            }
        }
        if raw.position_timeout_ms == 0 {
            return Err(invalid("position_timeout_ms", "must be at least 1"));
        }
        if raw.stale_abort_periods == 0 {
            return Err(invalid("stale_abort_periods", "must be at least 1"));
        }
        Ok(Self { raw })
    }
}

impl From<&TrajectoryConfig> for RawTrajectoryConfig {
    fn from(c: &TrajectoryConfig) -> Self {
        c.raw.clone()
    }
}

impl TrajectoryConfig {
    /// Time between two set-points [ms].
    pub fn period_ms(&self) -> u64 {
        self.raw.period_ms
    }
    /// Samples per millimetre.
    pub fn sample_factor(&self) -> u32 {
        self.raw.sample_factor
    }
    /// Allowed per-axis error [mm].
    pub fn tracking_tolerance_mm(&self) -> f64 {
        self.raw.tracking_tolerance_mm
    }
    /// Hold periods before reversing.
    pub fn reverse_wait_periods(&self) -> u32 {
        self.raw.reverse_wait_periods
    }
    /// Extra periods for the arm to reach the last set-point.
    pub fn settle_periods(&self) -> u32 {
        self.raw.settle_periods
    }
    /// Lower workspace corner [mm].
    pub fn workspace_min_mm(&self) -> [f64; 3] {
        self.raw.workspace_min_mm
    }
    /// Upper workspace corner [mm].
    pub fn workspace_max_mm(&self) -> [f64; 3] {
        self.raw.workspace_max_mm
    }
    /// Staleness limit of the arm position [ms].
    pub fn position_timeout_ms(&self) -> u64 {
        self.raw.position_timeout_ms
    }
    /// Stale periods before a running move aborts.
    pub fn stale_abort_periods(&self) -> u32 {
        self.raw.stale_abort_periods
    }

    /// This config with a goal's overrides applied (MoveTo `period_s` / `sample_factor`,
    /// where 0 means "use the server's"; pass `None` for those), re-checked.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] if an override is out of range.
    pub fn with_overrides(
        &self,
        period_ms: Option<u64>,
        sample_factor: Option<u32>,
    ) -> Result<Self, TrajectoryError> {
        let mut raw = self.raw.clone();
        if let Some(p) = period_ms {
            raw.period_ms = p;
        }
        if let Some(f) = sample_factor {
            raw.sample_factor = f;
        }
        Self::try_from(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(raw: RawTrajectoryConfig) -> &'static str {
        match TrajectoryConfig::try_from(raw) {
            Err(TrajectoryError::InvalidConfig { field, .. }) => field,
            other => panic!("expected InvalidConfig, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_the_original_values_and_valid() {
        let c = TrajectoryConfig::default();
        assert_eq!(c.period_ms(), 35);
        assert_eq!(c.sample_factor(), 1);
        assert_eq!(c.tracking_tolerance_mm(), 25.0);
        assert_eq!(c.reverse_wait_periods(), 10);
        assert_eq!(
            TrajectoryConfig::try_from(RawTrajectoryConfig::default()),
            Ok(c)
        );
    }

    #[test]
    fn errors_name_the_field() {
        let d = RawTrajectoryConfig::default;
        assert_eq!(
            field_of(RawTrajectoryConfig {
                period_ms: 0,
                ..d()
            }),
            "period_ms"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                sample_factor: 0,
                ..d()
            }),
            "sample_factor"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                tracking_tolerance_mm: f64::NAN,
                ..d()
            }),
            "tracking_tolerance_mm"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                tracking_tolerance_mm: -1.0,
                ..d()
            }),
            "tracking_tolerance_mm"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                workspace_min_mm: [0.0, 10.0, 0.0],
                workspace_max_mm: [1.0, 5.0, 1.0],
                ..d()
            }),
            "workspace_max_mm"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                workspace_min_mm: [f64::NEG_INFINITY, 0.0, 0.0],
                ..d()
            }),
            "workspace_min_mm"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                position_timeout_ms: 0,
                ..d()
            }),
            "position_timeout_ms"
        );
        assert_eq!(
            field_of(RawTrajectoryConfig {
                stale_abort_periods: 0,
                ..d()
            }),
            "stale_abort_periods"
        );
    }

    #[test]
    fn reads_partial_json_with_defaults_and_refuses_unknown_keys() {
        let raw: RawTrajectoryConfig =
            serde_json::from_str(r#"{"period_ms": 20, "tracking_tolerance_mm": 10.0}"#).unwrap();
        assert_eq!(raw.period_ms, 20);
        assert_eq!(raw.reverse_wait_periods, 10);
        assert!(serde_json::from_str::<RawTrajectoryConfig>(r#"{"period": 20}"#).is_err());
    }

    #[test]
    fn overrides_are_checked() {
        let c = TrajectoryConfig::default();
        let o = c.with_overrides(Some(10), Some(2)).unwrap();
        assert_eq!((o.period_ms(), o.sample_factor()), (10, 2));
        assert!(c.with_overrides(None, Some(0)).is_err());
    }
}
