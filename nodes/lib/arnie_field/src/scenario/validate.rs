//! [`Scenario::validate`]: every field of a parsed scenario checked, the first problem
//! named by its field.

use super::*;

impl Scenario {
    /// Checks every number (finite, in range), every position (on the table; the robot's
    /// start, tasks and opponent waypoints at least a radius from the walls), names and
    /// ids (unique, referenced ones existing) and list lengths.
    ///
    /// # Errors
    /// The first problem, naming the field.
    pub fn validate(&self) -> Result<(), Invalid> {
        let t = self.table;
        positive("table.width_m", t.width_m, MAX_TABLE_SIDE_M)?;
        positive("table.height_m", t.height_m, MAX_TABLE_SIDE_M)?;
        let on_table_x = |f: &str, v: f64| in_range(f, v, 0.0, t.width_m, "outside the table");
        let on_table_y = |f: &str, v: f64| in_range(f, v, 0.0, t.height_m, "outside the table");
        cap("obstacles", self.obstacles.len(), MAX_OBSTACLES)?;
        for (i, o) in self.obstacles.iter().enumerate() {
            let p = format!("obstacles[{i}]");
            match (o.rect, o.disc) {
                (Some(r), None) => {
                    on_table_x(&format!("{p}.rect.x_min_m"), r.x_min_m)?;
                    on_table_x(&format!("{p}.rect.x_max_m"), r.x_max_m)?;
                    on_table_y(&format!("{p}.rect.y_min_m"), r.y_min_m)?;
                    on_table_y(&format!("{p}.rect.y_max_m"), r.y_max_m)?;
                    if r.x_min_m >= r.x_max_m || r.y_min_m >= r.y_max_m {
                        return Err(Invalid::RectOrder(p));
                    }
                }
                (None, Some(d)) => {
                    on_table_x(&format!("{p}.disc.x_m"), d.x_m)?;
                    on_table_y(&format!("{p}.disc.y_m"), d.y_m)?;
                    positive(&format!("{p}.disc.radius_m"), d.radius_m, MAX_TABLE_SIDE_M)?;
                }
                _ => return Err(Invalid::Shape(p)),
            }
        }
        let r = &self.robot;
        positive(
            "robot.radius_m",
            r.radius_m,
            t.width_m.min(t.height_m) / 2.0,
        )?;
        self.check_pose("robot.start", r.start.x, r.start.y, r.radius_m)?;
        finite("robot.start.theta_rad", r.start.theta)?;
        positive("robot.max_linear_m_s", r.max_linear_m_s, 10.0)?;
        positive("robot.max_angular_rad_s", r.max_angular_rad_s, 100.0)?;
        positive(
            "robot.max_linear_accel_m_s2",
            r.max_linear_accel_m_s2,
            100.0,
        )?;
        positive(
            "robot.max_angular_accel_rad_s2",
            r.max_angular_accel_rad_s2,
            1000.0,
        )?;
        positive("robot.emergency_decel_m_s2", r.emergency_decel_m_s2, 100.0)?;
        in_range(
            "robot.watchdog_ms",
            f64::from(r.watchdog_ms),
            1.0,
            65_535.0,
            "out of range",
        )?;
        if self.blocked_at(r.start.x, r.start.y, r.radius_m) {
            return Err(Invalid::StartBlocked);
        }
        let o = &self.odometry;
        positive("odometry.rate_hz", o.rate_hz, 1000.0)?;
        in_range(
            "odometry.linear_noise",
            o.linear_noise,
            0.0,
            1.0,
            "out of range",
        )?;
        in_range(
            "odometry.angular_noise",
            o.angular_noise,
            0.0,
            1.0,
            "out of range",
        )?;
        cap("sensors", self.sensors.len(), MAX_SENSORS)?;
        if self.sensors.len() > 256 {
            return Err(Invalid::Over256Sensors);
        }
        for (i, s) in self.sensors.iter().enumerate() {
            finite(&format!("sensors[{i}].bearing_rad"), s.bearing_rad)?;
            positive(&format!("sensors[{i}].range_m"), s.range_m, 10.0)?;
            positive(&format!("sensors[{i}].rate_hz"), s.rate_hz, 1000.0)?;
        }
        if let Some(l) = &self.lidar {
            finite("lidar.mount.x_m", l.mount.x_m)?;
            finite("lidar.mount.y_m", l.mount.y_m)?;
            finite("lidar.mount.yaw_rad", l.mount.yaw_rad)?;
            if l.mount.x_m.hypot(l.mount.y_m) > r.radius_m {
                return Err(Invalid::LidarOffRobot {
                    x: l.mount.x_m,
                    y: l.mount.y_m,
                    radius: r.radius_m,
                });
            }
            finite("lidar.angle_offset_rad", l.angle_offset_rad)?;
            in_range("lidar.rate_hz", l.rate_hz, 5.0, 15.0, "out of range")?;
            in_range(
                "lidar.samples_per_s",
                l.samples_per_s,
                100.0,
                20_000.0,
                "out of range",
            )?;
            in_range("lidar.range_min_m", l.range_min_m, 0.0, 1.0, "out of range")?;
            in_range(
                "lidar.range_max_m",
                l.range_max_m,
                l.range_min_m + 0.01,
                65.0,
                "out of range",
            )?;
            in_range("lidar.noise_m", l.noise_m, 0.0, 1.0, "out of range")?;
            in_range("lidar.dropout", l.dropout, 0.0, 1.0, "out of range")?;
        }
        cap("actuators", self.actuators.len(), MAX_ACTUATORS)?;
        for (i, a) in self.actuators.iter().enumerate() {
            if self.actuators[..i]
                .iter()
                .any(|b| b.name == a.name || b.id == a.id)
            {
                return Err(Invalid::ActuatorTwice {
                    index: i,
                    name: a.name.clone(),
                    id: a.id,
                });
            }
            for (f, v) in [
                ("take_ms", a.take_ms),
                ("release_ms", a.release_ms),
                ("home_ms", a.home_ms),
            ] {
                if v > 65_535 {
                    return Err(Invalid::ActuatorTime {
                        index: i,
                        field: f,
                        value: v,
                    });
                }
            }
        }
        if let Some(op) = &self.opponent {
            positive(
                "opponent.radius_m",
                op.radius_m,
                t.width_m.min(t.height_m) / 2.0,
            )?;
            positive("opponent.speed_m_s", op.speed_m_s, 10.0)?;
            in_range(
                "opponent.start_delay_s",
                op.start_delay_s,
                0.0,
                3600.0,
                "out of range",
            )?;
            if op.waypoints.is_empty() {
                return Err(Invalid::NoWaypoints);
            }
            cap("opponent.waypoints", op.waypoints.len(), MAX_WAYPOINTS)?;
            for (i, w) in op.waypoints.iter().enumerate() {
                self.check_pose(
                    &format!("opponent.waypoints[{i}]"),
                    w.x_m,
                    w.y_m,
                    op.radius_m,
                )?;
                in_range(
                    &format!("opponent.waypoints[{i}].wait_s"),
                    w.wait_s,
                    0.0,
                    3600.0,
                    "out of range",
                )?;
            }
        }
        cap("tasks", self.tasks.len(), MAX_TASKS)?;
        for (i, task) in self.tasks.iter().enumerate() {
            let p = format!("tasks[{i}]");
            if task.name.is_empty() || self.tasks[..i].iter().any(|u| u.name == task.name) {
                return Err(Invalid::TaskName {
                    task: p,
                    name: task.name.clone(),
                });
            }
            self.check_pose(&p, task.x_m, task.y_m, r.radius_m)?;
            if let Some(th) = task.theta_rad {
                finite(&format!("{p}.theta_rad"), th)?;
            }
            positive(&format!("{p}.reach_m"), task.reach_m, 10.0)?;
            if self.blocked_at(task.x_m, task.y_m, r.radius_m) {
                return Err(Invalid::TaskBlocked {
                    task: p,
                    x: task.x_m,
                    y: task.y_m,
                });
            }
            cap(&format!("{p}.steps"), task.steps.len(), MAX_STEPS)?;
            for (j, st) in task.steps.iter().enumerate() {
                if self.actuator(&st.actuator).is_none() {
                    return Err(Invalid::NoActuator {
                        field: format!("{p}.steps[{j}].actuator"),
                        name: st.actuator.clone(),
                    });
                }
            }
        }
        positive("match.duration_s", self.r#match.duration_s, 3600.0)?;
        Ok(())
    }

    fn check_pose(&self, field: &str, x: f64, y: f64, radius: f64) -> Result<(), Invalid> {
        finite(&format!("{field}.x_m"), x)?;
        finite(&format!("{field}.y_m"), y)?;
        if !self.inside_table(x, y, radius) {
            return Err(Invalid::OffTable {
                field: field.to_string(),
                x,
                y,
                radius,
                width: self.table.width_m,
                height: self.table.height_m,
            });
        }
        Ok(())
    }
}

fn finite(field: &str, value: f64) -> Result<(), Invalid> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Invalid::NotFinite {
            field: field.to_string(),
            value,
        })
    }
}

fn positive(field: &str, value: f64, max: f64) -> Result<(), Invalid> {
    finite(field, value)?;
    if value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(Invalid::NotPositive {
            field: field.to_string(),
            value,
            max,
        })
    }
}

fn in_range(field: &str, value: f64, lo: f64, hi: f64, what: &'static str) -> Result<(), Invalid> {
    finite(field, value)?;
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(Invalid::OutOfRange {
            field: field.to_string(),
            value,
            lo,
            hi,
            what,
        })
    }
}

fn cap(field: &str, n: usize, max: usize) -> Result<(), Invalid> {
    if n <= max {
        Ok(())
    } else {
        Err(Invalid::TooMany {
            field: field.to_string(),
            n,
            max,
        })
    }
}

/// The first problem [`Scenario::validate`] finds, naming the field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Invalid {
    /// A number that is NaN or infinite.
    #[error("{field}: {value} is not a finite number")]
    NotFinite {
        /// The field, e.g. `robot.start.theta_rad`.
        field: String,
        /// Its value.
        value: f64,
    },
    /// A number not in `(0, max]`.
    #[error("{field}: {value} must be > 0 and <= {max}")]
    NotPositive {
        /// The field.
        field: String,
        /// Its value.
        value: f64,
        /// The largest allowed.
        max: f64,
    },
    /// A number outside `lo..=hi`.
    #[error("{field}: {value} is {what} ({lo} ..= {hi})")]
    OutOfRange {
        /// The field.
        field: String,
        /// Its value.
        value: f64,
        /// The lowest allowed.
        lo: f64,
        /// The highest allowed.
        hi: f64,
        /// What being outside means (`outside the table`, `out of range`).
        what: &'static str,
    },
    /// A list longer than its cap.
    #[error("{field}: {n} entries, at most {max}")]
    TooMany {
        /// The list.
        field: String,
        /// Its length.
        n: usize,
        /// The cap.
        max: usize,
    },
    /// A rectangle whose minimum is not below its maximum (`obstacles[i]`).
    #[error("{0}.rect: min must be below max on both axes")]
    RectOrder(String),
    /// An obstacle with both or neither of `rect` and `disc` (`obstacles[i]`).
    #[error("{0}: give exactly one of \"rect\" and \"disc\"")]
    Shape(String),
    /// The robot starts inside a fixed obstacle.
    #[error("robot.start: the robot overlaps a fixed obstacle there")]
    StartBlocked,
    /// More than 256 sensors.
    #[error("sensors: at most 256")]
    Over256Sensors,
    /// Two actuators with one name or id.
    #[error("actuators[{index}]: name {name:?} or id {id} used twice")]
    ActuatorTwice {
        /// The second one's index.
        index: usize,
        /// Its name.
        name: String,
        /// Its wire id.
        id: u8,
    },
    /// An actuator time over the wire's 16 bits.
    #[error("actuators[{index}].{field}: {value} is over 65535")]
    ActuatorTime {
        /// The actuator's index.
        index: usize,
        /// `take_ms`, `release_ms` or `home_ms`.
        field: &'static str,
        /// Its value [ms].
        value: u32,
    },
    /// An opponent without waypoints.
    #[error("opponent.waypoints: at least one")]
    NoWaypoints,
    /// A task name empty or used twice.
    #[error("{task}.name: {name:?} is empty or used twice")]
    TaskName {
        /// The task, `tasks[i]`.
        task: String,
        /// Its name.
        name: String,
    },
    /// A task where the robot would overlap a fixed obstacle.
    #[error("{task}: the robot would overlap a fixed obstacle at ({x}, {y})")]
    TaskBlocked {
        /// The task, `tasks[i]`.
        task: String,
        /// Its x [m].
        x: f64,
        /// Its y [m].
        y: f64,
    },
    /// A step naming an actuator that does not exist.
    #[error("{field}: no actuator named {name:?}")]
    NoActuator {
        /// The step's field, `tasks[i].steps[j].actuator`.
        field: String,
        /// The name given.
        name: String,
    },
    /// The LiDAR mounted outside the robot's disc.
    #[error("lidar.mount: ({x}, {y}) is outside the robot's {radius} m disc")]
    LidarOffRobot {
        /// Its x [m].
        x: f64,
        /// Its y [m].
        y: f64,
        /// The robot's radius [m].
        radius: f64,
    },
    /// A position off the table, or closer than the radius to a wall.
    #[error(
        "{field}: ({x}, {y}) is outside the table or closer than the radius {radius} m to a wall (table {width} × {height} m)"
    )]
    OffTable {
        /// The position's field.
        field: String,
        /// Its x [m].
        x: f64,
        /// Its y [m].
        y: f64,
        /// The radius kept from the walls [m].
        radius: f64,
        /// The table's width [m].
        width: f64,
        /// The table's height [m].
        height: f64,
    },
}
