//! The launch-file reader of `cargo xtask launch` (xtask/launch_xml): the input is the
//! launch file; an `<include>`d file is the text after a `\n---\n` line in the input (or
//! a small fixed file), served from memory by the fuzz host with at most 64 file reads
//! per parse (a file including itself is cut by the reader's depth limit). Never a
//! panic; deterministic; every node's namespace is empty or absolute without a trailing
//! slash, and its command line (`argv`) has `--ros-args` exactly when it is a ROS node.
#![no_main]
use launch_xml::{parse_with, Host};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

const INCLUDED: &str = r#"<launch><arg name="rate" default="1"/><node pkg="p" exec="inner" name="in_$(var rate)"><param name="rate" value="$(var rate)"/></node></launch>"#;

struct Memory<'a> {
    main: &'a str,
    included: &'a str,
    reads: Cell<u32>,
}

impl Host for Memory<'_> {
    fn read(&self, path: &Path) -> Result<String, String> {
        self.reads.set(self.reads.get() + 1);
        if self.reads.get() > 64 {
            return Err("fuzz host: more than 64 file reads".into());
        }
        if path == Path::new("/fuzz/main.launch.xml") {
            Ok(self.main.to_string())
        } else {
            Ok(self.included.to_string())
        }
    }
    fn env(&self, name: &str) -> Option<String> {
        (name == "ARNIE_FUZZ").then(|| "1".to_string())
    }
    fn pkg_prefix(&self, pkg: &str) -> Option<String> {
        (pkg == "arnie_bringup").then(|| "/opt/arnie".to_string())
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (main, included) = text.split_once("\n---\n").unwrap_or((text, INCLUDED));
    let file = Path::new("/fuzz/main.launch.xml");
    let given: HashMap<String, String> = [("namespace", "robot1"), ("use_sim", "true")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for args in [HashMap::new(), given] {
        let run = || {
            let host = Memory {
                main,
                included,
                reads: Cell::new(0),
            };
            parse_with(&host, file, &args)
        };
        let first = run();
        assert_eq!(first, run(), "parsing is not deterministic");
        let Ok(specs) = first else { continue };
        for s in &specs {
            let ns = &s.namespace;
            assert!(
                ns.is_empty() || (ns.starts_with('/') && !ns.ends_with('/')),
                "namespace {ns:?}"
            );
            let argv = s.argv();
            assert_eq!(
                argv.iter().any(|a| a == "--ros-args"),
                s.ros || s.args.iter().any(|a| a == "--ros-args"),
                "{argv:?}"
            );
        }
    }
});
