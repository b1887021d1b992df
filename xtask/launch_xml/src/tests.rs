use super::*;

fn given(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn parses_args_params_remaps_groups_and_includes() {
    let dir = std::env::temp_dir().join(format!("launch-xml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write(
        &dir,
        "inner.launch.xml",
        r#"<launch><arg name="rate"/><node pkg="p" exec="inner" name="in"><param name="rate" value="$(var rate)"/></node></launch>"#,
    );
    let main = write(
        &dir,
        "main.launch.xml",
        r#"<launch>
             <arg name="fast" default="false"/>
             <arg name="tick" default="10.0"/>
             <node pkg="brain" exec="brain" name="brain">
               <param from="$(dirname)/brain.yaml"/>
               <param name="tick_s" value="$(var tick)"/>
               <remap from="/a" to="/b"/>
             </node>
             <node pkg="x" exec="only_fast" if="$(var fast)"/>
             <group namespace="g"><node pkg="x" exec="grouped"/></group>
             <include file="inner.launch.xml"><arg name="rate" value="5"/></include>
           </launch>"#,
    );
    let args = given(&[("tick", "2.5")]);
    let specs = parse(&main, &args).unwrap();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["brain", "grouped", "in"]);
    assert_eq!(
        specs[0].params,
        vec![("tick_s".to_string(), "2.5".to_string())]
    );
    assert_eq!(specs[0].param_files, vec![dir.join("brain.yaml")]);
    assert_eq!(specs[0].remaps, vec![("/a".to_string(), "/b".to_string())]);
    assert_eq!(specs[1].namespace, "/g");
    assert_eq!(specs[0].pkg.as_deref(), Some("brain"));
    assert_eq!(specs[2].params, vec![("rate".to_string(), "5".to_string())]);
    let argv = specs[0].argv();
    assert!(
        argv.windows(2).any(|w| w == ["-p", "tick_s:=2.5"]),
        "{argv:?}"
    );
    assert!(
        argv.windows(2).any(|w| w == ["-r", "__node:=brain"]),
        "{argv:?}"
    );
    let fast = parse(&main, &given(&[("fast", "true")])).unwrap();
    assert_eq!(fast.len(), 4);
    // An empty value is an empty string, not a missing value.
    let mut empty = specs[0].clone();
    empty.params = vec![("file".to_string(), String::new())];
    assert!(
        empty.argv().windows(2).any(|w| w == ["-p", "file:=''"]),
        "{:?}",
        empty.argv()
    );
}

#[test]
fn namespaces_are_absolute_and_executables_get_no_ros_args() {
    assert_eq!(join_ns("", ""), "");
    assert_eq!(join_ns("", "arm1"), "/arm1");
    assert_eq!(join_ns("/arm1", "sub"), "/arm1/sub");
    assert_eq!(join_ns("/arm1", "/abs/"), "/abs");
    assert_eq!(join_ns("/arm1", ""), "/arm1");
    let dir = std::env::temp_dir().join(format!("launch-xml-exe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = write(
        &dir,
        "exe.launch.xml",
        r#"<launch><arg name="ns" default="left"/><group><push-ros-namespace namespace="$(var ns)"/>
           <node pkg="p" exec="n"/><executable cmd="ros2 bag record -a" name="rec"/></group></launch>"#,
    );
    let specs = parse(&f, &HashMap::new()).unwrap();
    assert_eq!(specs[0].namespace, "/left");
    assert!(specs[0]
        .argv()
        .windows(2)
        .any(|w| w == ["-r", "__ns:=/left"]));
    assert_eq!(
        (specs[1].exec.as_str(), specs[1].name.as_str(), specs[1].ros),
        ("ros2", "rec", false)
    );
    assert_eq!(specs[1].argv(), ["bag", "record", "-a"]);
}

#[test]
fn set_parameter_applies_to_the_nodes_after_it_in_its_scope() {
    let dir = std::env::temp_dir().join(format!("launch-xml-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = write(
        &dir,
        "set.launch.xml",
        r#"<launch><arg name="sim" default="true"/>
             <node pkg="p" exec="before"/>
             <set_parameter name="use_sim_time" value="$(var sim)"/>
             <group><set_parameter name="gain" value="2"/><node pkg="p" exec="inner"><param from="f.yaml"/></node></group>
             <node pkg="p" exec="after"/></launch>"#,
    );
    let specs = parse(&f, &HashMap::new()).unwrap();
    let sim = ("use_sim_time".to_string(), "true".to_string());
    assert!(specs[0].global_params.is_empty());
    assert_eq!(
        specs[1].global_params,
        vec![sim.clone(), ("gain".to_string(), "2".to_string())]
    );
    assert_eq!(specs[2].global_params, vec![sim]);
    // Before the node's own files and values, which take precedence.
    let argv = specs[1].argv();
    let at = |s: &str| argv.iter().position(|a| a == s).unwrap();
    assert!(at("use_sim_time:=true") < at("--params-file"), "{argv:?}");
}

#[test]
fn nested_substitutions_equals_and_choices() {
    let dir = std::env::temp_dir().join(format!("launch-xml-part-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = write(
        &dir,
        "part.launch.xml",
        r#"<launch>
             <arg name="part" default="all"><choice value="all"/><choice value="rt"/><choice value="station"/></arg>
             <group if="$(not-equals $(var part) station)"><node pkg="p" exec="rt"/></group>
             <group if="$(not-equals $(var part) rt)"><node pkg="p" exec="station"/></group>
             <node pkg="p" exec="only_all" if="$(equals $(var part) all)"/>
           </launch>"#,
    );
    let execs = |part: &str| -> Vec<String> {
        parse(&f, &given(&[("part", part)]))
            .unwrap()
            .into_iter()
            .map(|s| s.exec)
            .collect()
    };
    assert_eq!(execs("all"), ["rt", "station", "only_all"]);
    assert_eq!(execs("rt"), ["rt"]);
    assert_eq!(execs("station"), ["station"]);
    let bad = parse(&f, &given(&[("part", "sation")]))
        .unwrap_err()
        .message;
    assert!(
        bad.contains("argument `part` is \"sation\": valid choices are all, rt, station"),
        "{bad}"
    );
    assert_eq!(split_words("a $(var x) b"), ["a", "$(var x)", "b"]);
    assert_eq!(split_words(" x$(var a b)y  z "), ["x$(var a b)y", "z"]);
    assert!(same("True", "1") && same("2", "2.0") && !same("rt", "station"));
    assert_eq!(closing_paren("var $(x) y) z"), Some(10));
}

/// The project's arm launch file: `part` splits it over two hosts (docs/RUNNING.md "Across
/// machines"), `all` starts everything.
#[test]
fn the_arm_launch_file_splits_by_part() {
    struct Fake;
    impl Host for Fake {
        fn read(&self, path: &Path) -> Result<String, String> {
            std::fs::read_to_string(path).map_err(|e| e.to_string())
        }
        fn env(&self, _: &str) -> Option<String> {
            None
        }
        fn pkg_prefix(&self, _: &str) -> Option<String> {
            Some("/opt/arnie".into())
        }
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../launch/arnie.launch.xml");
    let names = |args: &[(&str, &str)]| -> Vec<String> {
        parse_with(&Fake, &file, &given(args))
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    // Each host's own lifecycle manager brings its managed nodes up (docs/LIFECYCLE.md).
    let station = [
        "trajectory_server",
        "brain",
        "state_publisher",
        "lifecycle_manager_station",
    ];
    assert_eq!(
        names(&[]),
        [
            "sim",
            "spine_bridge",
            "trajectory_server",
            "brain",
            "state_publisher",
            "lifecycle_manager"
        ]
    );
    let rt = ["sim", "spine_bridge", "lifecycle_manager_rt"];
    assert_eq!(names(&[("part", "rt")]), rt);
    assert_eq!(names(&[("part", "station")]), station);
    assert_eq!(
        names(&[("part", "rt"), ("record", "true"), ("foxglove", "true")]),
        rt
    );
    assert_eq!(
        names(&[
            ("part", "station"),
            ("record", "true"),
            ("foxglove", "true")
        ]),
        [
            "trajectory_server",
            "brain",
            "state_publisher",
            "lifecycle_manager_station",
            "record",
            "foxglove_bridge"
        ]
    );
    let specs = parse_with(
        &Fake,
        &file,
        &given(&[("part", "rt"), ("use_sim", "true"), ("loopback", "false")]),
    )
    .unwrap();
    for s in specs
        .iter()
        .filter(|s| !s.name.starts_with("lifecycle_manager"))
    {
        assert!(
            s.params.contains(&("loopback".into(), "false".into())),
            "{s:?}"
        );
    }
    assert!(parse_with(&Fake, &file, &given(&[("part", "both")]))
        .unwrap_err()
        .message
        .contains("valid choices are all, rt, station"));
}

#[test]
fn unknown_elements_and_undeclared_args_are_errors() {
    let dir = std::env::temp_dir().join(format!("launch-xml-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = write(
        &dir,
        "bad.launch.xml",
        r#"<launch><timer period="1"/></launch>"#,
    );
    assert!(parse(&f, &HashMap::new())
        .unwrap_err()
        .message
        .contains("unsupported element <timer>"));
    let f = write(
        &dir,
        "bad2.launch.xml",
        r#"<launch><node pkg="a" exec="b"><param name="x" value="$(var nope)"/></node></launch>"#,
    );
    assert!(parse(&f, &HashMap::new())
        .unwrap_err()
        .message
        .contains("`nope` is not declared"));
    let f = write(
        &dir,
        "bad3.launch.xml",
        r#"<launch><arg name="must"/></launch>"#,
    );
    assert!(parse(&f, &HashMap::new())
        .unwrap_err()
        .message
        .contains("pass must:=VALUE"));
}
