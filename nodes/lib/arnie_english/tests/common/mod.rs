//! Shared by the integration tests: paths of the reference files, and a list of the
//! differences between two instructions files.
#![allow(dead_code)]

use serde_json::Value;

/// `../shared/reference/arnie` from the repository root (the crate is `nodes/lib/arnie_english`
/// in the project; while developed in scratch it is found through `ARNIE_REFERENCE`).
pub fn reference() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("ARNIE_REFERENCE") {
        return p.into();
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/reference/arnie")
}

pub fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn sample() -> String {
    read(&reference().join("decypher/sample.txt"))
}

/// Leaf differences between two JSON documents, one Markdown table row each:
/// `` | `path` | `left` | `right` | ``. An array of plain values (a check, a certainty) is
/// one leaf.
pub fn differences(left: &Value, right: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("", left, right, &mut out);
    out
}

fn is_leaf(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.iter().all(|i| !i.is_array() && !i.is_object()),
        Value::Object(_) => false,
        _ => true,
    }
}

fn compact(v: Option<&Value>) -> String {
    v.map_or("(absent)".into(), |v| v.to_string())
}

fn walk(path: &str, l: &Value, r: &Value, out: &mut Vec<String>) {
    match (l, r) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => walk(&p, x, y, out),
                    (x, y) => out.push(format!("| `{p}` | `{}` | `{}` |", compact(x), compact(y))),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if !(is_leaf(l) && is_leaf(r)) && a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                walk(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ => {
            if l != r {
                out.push(format!("| `{path}` | `{l}` | `{r}` |"));
            }
        }
    }
}

/// The repository root (`ARNIE_ROOT` while the crate is developed outside it).
pub fn root() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("ARNIE_ROOT") {
        return p.into();
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// explain → compile gives the same instructions; the JSON written loads to them too.
pub fn assert_round_trip(i: &arnie_instructions::Instructions, what: &str) {
    let english = arnie_english::explain(i);
    match arnie_english::compile(&english) {
        Ok(back) => assert_eq!(&back, i, "{what}: explain → compile differs\n{english}"),
        Err(e) => panic!(
            "{what}: the explanation does not compile:\n{}\n---\n{english}",
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
    let json = arnie_english::to_json(i);
    let loaded = arnie_instructions::load(&json);
    assert!(
        loaded.is_ok(),
        "{what}: to_json does not load: {loaded:?}\n{json}"
    );
    // serde_json (without its `float_roundtrip` feature, as the brain builds it) reads some
    // 16-17 digit numbers one unit in the last place off; the text written is exact.
    let exact = |v: &f64| serde_json::from_str::<f64>(&format!("{v:?}")).ok() == Some(*v);
    if numbers(i).iter().all(exact) {
        assert_eq!(
            loaded.as_ref(),
            Ok(i),
            "{what}: to_json → load differs\n{json}"
        );
    }
}

/// Every number of an instructions value.
pub fn numbers(i: &arnie_instructions::Instructions) -> Vec<f64> {
    use arnie_instructions::model::{Check, Value};
    fn value(v: &Value, out: &mut Vec<f64>) {
        if let Value::Num(n) = v {
            out.push(*n);
        }
    }
    fn check(c: &Check, out: &mut Vec<f64>) {
        if let Check::Within {
            value: v,
            tolerance,
        } = c
        {
            value(v, out);
            out.push(*tolerance);
        }
    }
    let mut out = Vec::new();
    for a in i.actions() {
        for s in &a.trajectory {
            s.axes.iter().for_each(|v| value(v, &mut out));
        }
        for d in &a.decisions {
            d.arm.iter().for_each(|c| check(c, &mut out));
            for o in &d.objects {
                o.axes.iter().for_each(|c| check(c, &mut out));
                if let Some((v, t)) = o.certainty {
                    out.extend([v, t]);
                }
            }
        }
    }
    out
}
