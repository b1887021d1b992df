//! The node's ROS parameters ([`StateParams`]), each declared once here with its type,
//! default, description and when a change takes effect (what `ros2 param describe`
//! shows, and the README's table). All are read only at start: the robot description
//! and its tool shape everything the node publishes.
use node_glue::params::Rules;

node_glue::declare_parameters! {
    /// ROS parameters, each declared once; all read only at start.
    pub(crate) struct StateParams(d = ()) {
        /// The URDF itself (XML text), as robot_state_publisher takes it; when empty, robot_description_file is read
        pub robot_description: String = String::new(), any(), "start only";
        /// A URDF file, read when robot_description is empty (the launch file gives the installed share/arnie_bringup/urdf/arnie_arm.urdf); errors name the file and line
        pub robot_description_file: String = String::new(), any(), "start only";
        /// The link whose origin /arm/position reports (the way to it from the root: three prismatic joints, the others fixed); empty: a robot without a stage (only its description and fixed joints, e.g. the Eurobot base)
        pub tool_link: String = "taper_holder".into(), any(), "start only";
    }
}

/// The whole-set check given to [`node_glue::App::parameters_checked`].
pub(crate) const RULES: Rules<StateParams> = Rules {
    check: |p: &StateParams| p.check().map_err(Into::into),
};

/// Neither `robot_description` nor `robot_description_file` given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("robot_description (the URDF text) or robot_description_file (a URDF file) must be given")]
pub(crate) struct NoDescription;

impl StateParams {
    /// One description source.
    pub(crate) fn check(&self) -> Result<(), NoDescription> {
        if self.robot_description.is_empty() && self.robot_description_file.is_empty() {
            return Err(NoDescription);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<StateParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn a_description_is_required_and_every_parameter_is_start_only() {
        let e = (RULES.check)(&StateParams::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("robot_description"), "{e}");
        let p = StateParams {
            robot_description_file: "x.urdf".into(),
            ..StateParams::default()
        };
        assert!((RULES.check)(&p).is_ok());
        for d in StateParams::declarations() {
            assert!(d.read_only(), "{}", d.name);
        }
    }
}
