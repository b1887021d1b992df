//! The node's ROS parameters ([`BaseParams`]): the library's [`BaseConfig`] (declared
//! there once: its fields are the navigator's parameters, same names, units, defaults
//! and descriptions) and the glue's own few ([`GlueParams`]), all at the top level.
//!
//! Checked by [`BaseParams::config`] at start and on every `ros2 param set` (node_glue's
//! checked parameters: a refused value gets the reason and changes nothing).
//! When a change takes effect: the navigator's parameters at the next goal; `frame_id`,
//! `child_frame_id`, `tick_ms`, `diagnostics_period_ms` are start only ([`START_ONLY`]);
//! `watchdog_ms` and `planner_timeout_s` are read at start.
use node_glue::r2r::indexmap::IndexMap;
use node_glue::r2r::{self, Error, Parameter, ParameterValue, RosParams};

use crate::BaseConfig;

/// Parameters read only at start: `ros2 param set` refuses them, saying so.
pub(crate) const START_ONLY: &[&str] = &[
    "frame_id",
    "child_frame_id",
    "tick_ms",
    "diagnostics_period_ms",
];

/// The glue's own parameters (the library knows nothing of frames, periods, timeouts).
#[derive(RosParams, Clone, Debug)]
pub(crate) struct GlueParams {
    /// Frame of odom, base/pose and of goals (the planner's and the map's frame)
    pub frame_id: String,
    /// child_frame_id of odom
    pub child_frame_id: String,
    /// Watchdog asked of the board in each DriveSpeed, 0 = the board's default [ms]
    pub watchdog_ms: i64,
    /// Period of the watchdog / re-plan check [ms]
    pub tick_ms: i64,
    /// Wait this long for the planner's answer (plan_path, update_map) [s]
    pub planner_timeout_s: f64,
    /// Period of /diagnostics [ms]
    pub diagnostics_period_ms: i64,
}

impl Default for GlueParams {
    fn default() -> Self {
        GlueParams {
            frame_id: "map".into(),
            child_frame_id: "base_link".into(),
            watchdog_ms: 0,
            tick_ms: 20,
            planner_timeout_s: 5.0,
            diagnostics_period_ms: 1000,
        }
    }
}

/// ROS parameters: [`BaseConfig`]'s and [`GlueParams`]' fields side by side, flat names
/// with units; defaults = [`BaseConfig::default`] and [`GlueParams::default`].
#[derive(Clone, Debug, Default)]
pub(crate) struct BaseParams {
    /// The navigator's settings (unchecked until [`BaseParams::config`]).
    pub nav: BaseConfig,
    /// The glue's own.
    pub glue: GlueParams,
}

/// `name` is not one of `nav`'s: ask `glue`.
fn unknown(r: &r2r::Result<()>) -> bool {
    matches!(r, Err(Error::InvalidParameterName { .. }))
}

/// Both structs' parameters at the top level (no `nav.` / `glue.` prefix): each call goes
/// to the struct that has the name.
impl RosParams for BaseParams {
    fn register_parameters(
        &mut self,
        prefix: &str,
        _desc: Option<Parameter>,
        params: &mut IndexMap<String, Parameter>,
    ) -> r2r::Result<()> {
        self.nav.register_parameters(prefix, None, params)?;
        self.glue.register_parameters(prefix, None, params)
    }

    fn get_parameter(&mut self, name: &str) -> r2r::Result<ParameterValue> {
        match self.nav.get_parameter(name) {
            Err(Error::InvalidParameterName { .. }) => self.glue.get_parameter(name),
            r => r,
        }
    }

    fn set_parameter(&mut self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        let r = self.nav.set_parameter(name, value);
        if unknown(&r) {
            return self.glue.set_parameter(name, value);
        }
        r
    }

    fn check_parameter(&self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        let r = self.nav.check_parameter(name, value);
        if unknown(&r) {
            return self.glue.check_parameter(name, value);
        }
        r
    }
}

impl BaseParams {
    /// The library's config, checked, and the glue's own values checked.
    pub(crate) fn config(&self) -> Result<BaseConfig, String> {
        self.nav.check().map_err(|e| e.to_string())?;
        let g = &self.glue;
        let ranged = |name: &str, v: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}: {v} is not in {lo}..={hi}"))
            }
        };
        ranged("watchdog_ms", g.watchdog_ms, 0, 65_535)?;
        ranged("tick_ms", g.tick_ms, 1, 1000)?;
        ranged("diagnostics_period_ms", g.diagnostics_period_ms, 1, 60_000)?;
        if !(g.planner_timeout_s.is_finite()
            && g.planner_timeout_s > 0.0
            && g.planner_timeout_s <= 600.0)
        {
            return Err(format!(
                "planner_timeout_s: {} is not in (0, 600]",
                g.planner_timeout_s
            ));
        }
        if g.frame_id.is_empty() {
            return Err("frame_id: must not be empty".into());
        }
        Ok(self.nav.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registered() -> IndexMap<String, Parameter> {
        let mut params = IndexMap::new();
        BaseParams::default()
            .register_parameters("", None, &mut params)
            .unwrap();
        params
    }

    #[test]
    fn every_parameter_is_at_the_top_level_with_its_description() {
        let params = registered();
        for name in [
            "max_speed_mps",
            "max_failures",
            "settle_timeout_s",
            "frame_id",
            "tick_ms",
        ] {
            let p = params.get(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(!p.description.is_empty(), "{name}");
        }
        assert_eq!(params.len(), 30);
        assert!(
            params.keys().all(|k| !k.contains('.')),
            "{:?}",
            params.keys()
        );
        assert_eq!(
            params["link_timeout_s"].description,
            "No odometry for this long: motors stopped, goal LINK_LOST [s]"
        );
        assert!(matches!(
            params["max_failures"].value,
            ParameterValue::Integer(3)
        ));
    }

    #[test]
    fn set_and_check_reach_either_struct() {
        let mut p = BaseParams::default();
        p.set_parameter("max_failures", &ParameterValue::Integer(7))
            .unwrap();
        p.set_parameter("tick_ms", &ParameterValue::Integer(40))
            .unwrap();
        assert_eq!((p.nav.max_failures, p.glue.tick_ms), (7, 40));
        assert!(matches!(
            p.get_parameter("frame_id"),
            Ok(ParameterValue::String(s)) if s == "map"
        ));
        // A negative count does not fit the library's u32: refused by the type.
        assert!(p
            .check_parameter("max_failures", &ParameterValue::Integer(-1))
            .is_err());
        assert!(matches!(
            p.set_parameter("nope", &ParameterValue::Integer(1)),
            Err(Error::InvalidParameterName { .. })
        ));
    }

    #[test]
    fn config_checks_both_parts() {
        assert!(BaseParams::default().config().is_ok());
        let mut p = BaseParams::default();
        p.nav.link_timeout_s = f64::NAN;
        assert!(p.config().unwrap_err().starts_with("link_timeout_s"));
        let mut p = BaseParams::default();
        p.glue.tick_ms = 0;
        assert_eq!(p.config().unwrap_err(), "tick_ms: 0 is not in 1..=1000");
    }
}
