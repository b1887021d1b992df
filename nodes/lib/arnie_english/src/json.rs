//! Instructions → the text of an instructions.json file, laid out like the project's task
//! files (`params/tasks/*.json`): `initialAction` first, the initial action first, then the
//! others by name; keys in the order the brain's README lists them. Variables are written
//! in their canonical form (`start,0,0`). The brain's loader reads it back to the same
//! instructions (`tests/roundtrip.rs`).

use arnie_instructions::model::{Action, Check, Next, Value};
use arnie_instructions::vars::Slot;
use arnie_instructions::Instructions;

use crate::explain::number;

fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The canonical name of a variable: `<action>,<decision>,<object>|arm`.
pub fn variable_name(i: &Instructions, v: &arnie_instructions::vars::VarRef) -> String {
    let slot = match v.slot {
        Slot::Arm => "arm".to_owned(),
        Slot::Object(k) => k.to_string(),
    };
    format!("{},{},{slot}", i.name(v.action), v.decision)
}

fn value(i: &Instructions, v: &Value) -> String {
    match v {
        Value::Num(n) => number(*n),
        Value::Var(r) => string(&variable_name(i, r)),
    }
}

fn check(i: &Instructions, c: &Check) -> String {
    match c {
        Check::Any => "-1".into(),
        Check::Within {
            value: v,
            tolerance,
        } => {
            format!("[{}, {}]", value(i, v), number(*tolerance))
        }
    }
}

fn next(i: &Instructions, n: &Next) -> String {
    format!(
        "{{ \"action\": {}, \"delay\": {} }}",
        string(i.name(n.action)),
        n.delay
    )
}

/// The JSON text of an instructions value.
pub fn to_json(i: &Instructions) -> String {
    let initial = i.action(i.initial_action());
    let mut order: Vec<&Action> = vec![initial];
    order.extend(i.actions().iter().filter(|a| a.name != initial.name));
    let mut out = String::new();
    out.push_str("{\n");
    out.push_str(&format!(
        "  \"initialAction\": {},\n",
        string(&initial.name)
    ));
    out.push_str("  \"actions\": {\n");
    for (k, a) in order.iter().enumerate() {
        out.push_str(&format!("    {}: {{\n", string(&a.name)));
        out.push_str("      \"trajectory\": [\n");
        for (s, step) in a.trajectory.iter().enumerate() {
            out.push_str(&format!(
                "        {{ \"x\": {}, \"y\": {}, \"z\": {} }}{}\n",
                value(i, &step.axes[0]),
                value(i, &step.axes[1]),
                value(i, &step.axes[2]),
                if s + 1 < a.trajectory.len() { "," } else { "" }
            ));
        }
        out.push_str("      ],\n");
        out.push_str(&format!(
            "      \"trajectoryVerification\": {},\n",
            a.verify
        ));
        out.push_str("      \"decisions\": [");
        for (d, dec) in a.decisions.iter().enumerate() {
            out.push_str(if d == 0 { "\n" } else { ",\n" });
            out.push_str("        {\n");
            out.push_str(&format!(
                "          \"executeAfter\": {},\n",
                dec.execute_after
            ));
            out.push_str("          \"state\": {\n");
            out.push_str(&format!(
                "            \"arm\": {{ \"x\": {}, \"y\": {}, \"z\": {} }},\n",
                check(i, &dec.arm[0]),
                check(i, &dec.arm[1]),
                check(i, &dec.arm[2])
            ));
            out.push_str("            \"objects\": [");
            for (o, obj) in dec.objects.iter().enumerate() {
                out.push_str(if o == 0 { "\n" } else { ",\n" });
                let certainty = obj.certainty.map_or(String::new(), |(v, t)| {
                    format!(", \"certainty\": [{}, {}]", number(v), number(t))
                });
                out.push_str(&format!(
                    "              {{ \"x\": {}, \"y\": {}, \"z\": {}{certainty} }}",
                    check(i, &obj.axes[0]),
                    check(i, &obj.axes[1]),
                    check(i, &obj.axes[2])
                ));
            }
            out.push_str(if dec.objects.is_empty() {
                "]\n"
            } else {
                "\n            ]\n"
            });
            out.push_str("          },\n");
            out.push_str(&format!(
                "          \"success\": {},\n",
                next(i, &dec.success)
            ));
            out.push_str(&format!("          \"fail\": {}\n", next(i, &dec.fail)));
            out.push_str("        }");
        }
        out.push_str(if a.decisions.is_empty() {
            "]"
        } else {
            "\n      ]"
        });
        match &a.reset {
            None => out.push('\n'),
            Some(r) => out.push_str(&format!(
                ",\n      \"reset\": {{ \"timeout\": {}, \"action\": {}, \"delay\": {} }}\n",
                r.max_retries.map_or(-1, i64::from),
                string(i.name(r.next.action)),
                r.next.delay
            )),
        }
        out.push_str(if k + 1 < order.len() {
            "    },\n"
        } else {
            "    }\n"
        });
    }
    out.push_str("  }\n}\n");
    out
}
