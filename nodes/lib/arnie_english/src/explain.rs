//! Instructions → English: the reverse of the compiler. The text compiles back to the same
//! instructions (`tests/roundtrip.rs`).
//!
//! Decision names are not in the instructions, so decisions are called `decision1`,
//! `decision2` … in each action. A step of three numbers says all three (`move to 0, 50,
//! 0`); a step with a variable says only the axes that change from the step before (from
//! 0, 0, 0 for the first step), as the sample does; such a step equal to the one before
//! says all three. The initial action comes first, then the others by name. A name that is
//! not a plain word, or that is a word of the grammar, is written in double quotes.

use arnie_instructions::model::{Action, Check, Decision, Next, ObjectCheck, Step, Value};
use arnie_instructions::vars::{Slot, VarRef};
use arnie_instructions::Instructions;

use crate::words::{count_word, is_reserved, ordinal_word};

const AXES: [&str; 3] = ["x", "y", "z"];

/// The English text of an instructions value.
pub fn explain(i: &Instructions) -> String {
    let mut out = String::new();
    out.push_str(
        "You are called the arm.\nTargets are called objects.\nThe coordinate space is x, y, z.\n",
    );
    let initial = i.action(i.initial_action());
    out.push_str(&format!("The initial action is {}.\n", name(&initial.name)));
    let mut order: Vec<&Action> = vec![initial];
    order.extend(i.actions().iter().filter(|a| a.name != initial.name));
    for a in order {
        action(&mut out, i, a);
    }
    out
}

/// A name as the grammar reads it: plain when it is an ASCII identifier and no word of the
/// grammar, else in double quotes with `\"`, `\\` and control characters escaped.
pub fn name(n: &str) -> String {
    let plain = n
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_reserved(n);
    if plain {
        return n.to_owned();
    }
    let mut q = String::from("\"");
    for c in n.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            '\r' => q.push_str("\\r"),
            // Characters the lexer reads as quotes, and every control or invisible one.
            c if c.is_control()
                || matches!(
                    c,
                    '\u{201c}' | '\u{201d}' | '\u{2028}' | '\u{2029}' | '\u{85}'
                ) =>
            {
                q.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A number that reads back to the same `f64`: an integer when it is one, else Rust's
/// shortest round-trip form (`0.1`, `1e300`).
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    }
}

fn decision_name(d: usize) -> String {
    format!("decision{}", d + 1)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count_word(n), if n == 1 { one } else { many })
}

fn action(out: &mut String, i: &Instructions, a: &Action) {
    let n = name(&a.name);
    out.push_str(&format!("\nCreate an action called {n}.\n\n"));
    out.push_str(&format!(
        "The {n} trajectory has {}.\n",
        plural(a.trajectory.len(), "step", "steps")
    ));
    let mut prev: Option<&Step> = None;
    for (k, step) in a.trajectory.iter().enumerate() {
        out.push_str(&format!(
            "The {} step is to move {}.\n",
            ordinal_word(k + 1),
            step_text(i, prev, step)
        ));
        prev = Some(step);
    }
    out.push_str(if a.verify {
        "Enable trajectory verification.\n"
    } else {
        "Disable trajectory verification.\n"
    });
    if a.decisions.is_empty() {
        out.push_str(&format!("\n{n} has no decisions.\n"));
    } else {
        out.push_str(&format!(
            "\n{n} has {}.\n",
            plural(a.decisions.len(), "decision", "decisions")
        ));
    }
    for (k, d) in a.decisions.iter().enumerate() {
        decision(out, i, k, d);
    }
    out.push('\n');
    match &a.reset {
        None => out.push_str(&format!("{n} has no reset condition.\n")),
        Some(r) => {
            let timeout = r.max_retries.map_or(-1, i64::from);
            out.push_str(&format!(
                "{n}'s reset condition is action {}, timeout {timeout}, {}.\n",
                name(i.name(r.next.action)),
                delay(r.next.delay)
            ));
        }
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x == y,
        (Value::Var(x), Value::Var(y)) => {
            (x.action, x.decision, x.slot) == (y.action, y.decision, y.slot)
        }
        _ => false,
    }
}

/// The part after `move`: only the axes that change from the step before.
fn step_text(i: &Instructions, prev: Option<&Step>, step: &Step) -> String {
    // A step of three numbers says all three, as the sample does.
    if let [Value::Num(x), Value::Num(y), Value::Num(z)] = &step.axes {
        return format!("to {}, {}, {}", number(*x), number(*y), number(*z));
    }
    let origin = Step {
        axes: [Value::Num(0.0), Value::Num(0.0), Value::Num(0.0)],
    };
    let prev = prev.unwrap_or(&origin);
    let mut changed: Vec<usize> = (0..3)
        .filter(|&k| !same(&prev.axes[k], &step.axes[k]))
        .collect();
    if changed.is_empty() {
        changed = vec![0, 1, 2];
    }
    let mut parts = Vec::new();
    for &k in &changed {
        if let Value::Var(v) = &step.axes[k] {
            parts.push(format!("to {}", variable(i, v, k)));
        }
    }
    // Numbers: one part per value, its axes together (`x and z positions to 0`).
    let mut done = [false; 3];
    for &k in &changed {
        let Value::Num(v) = step.axes[k] else {
            continue;
        };
        if done[k] {
            continue;
        }
        let axes: Vec<usize> = changed
            .iter()
            .copied()
            .filter(|&j| matches!(step.axes[j], Value::Num(w) if w == v) && !done[j])
            .collect();
        for &j in &axes {
            done[j] = true;
        }
        let names: Vec<&str> = axes.iter().map(|&j| AXES[j]).collect();
        let list = match &names[..] {
            [one] => format!("{one} position"),
            [a, b] => format!("{a} and {b} positions"),
            _ => format!("{}, {} and {} positions", names[0], names[1], names[2]),
        };
        parts.push(format!("{list} to {}", number(v)));
    }
    parts.join(", ")
}

/// `the y position of the object found in start action decision1 decision`.
fn variable(i: &Instructions, v: &VarRef, axis: usize) -> String {
    let owner = name(i.name(v.action));
    let dec = decision_name(v.decision);
    match v.slot {
        Slot::Arm => format!(
            "the {} position of the arm at {owner} action {dec} decision",
            AXES[axis]
        ),
        Slot::Object(0) => format!(
            "the {} position of the object found in {owner} action {dec} decision",
            AXES[axis]
        ),
        Slot::Object(k) => format!(
            "the {} position of the {} object found in {owner} action {dec} decision",
            AXES[axis],
            ordinal_word(k + 1)
        ),
    }
}

fn value(i: &Instructions, v: &Value, axis: usize) -> String {
    match v {
        Value::Num(n) => number(*n),
        Value::Var(r) => variable(i, r, axis),
    }
}

fn delay(d: i64) -> String {
    match d {
        -1 => "in the same tick".into(),
        0 => "no delay".into(),
        1 => "with a delay of 1 tick".into(),
        d => format!("with a delay of {d} ticks"),
    }
}

fn next(i: &Instructions, which: &str, dn: &str, n: &Next) -> String {
    let d = match n.delay {
        0 => "with no delay".to_owned(),
        d => delay(d),
    };
    format!(
        "The {which} action for {dn} is {} {d}.\n",
        name(i.name(n.action))
    )
}

fn decision(out: &mut String, i: &Instructions, k: usize, d: &Decision) {
    let dn = decision_name(k);
    out.push_str(&format!(
        "The {} decision is called {dn}.\n",
        ordinal_word(k + 1)
    ));
    out.push_str(&format!(
        "Execute {dn} after the {} trajectory step.\n",
        ordinal_word(d.execute_after + 1)
    ));
    if d.arm.iter().all(|c| *c == Check::Any) {
        out.push_str(&format!("The arm can be in any position for {dn}.\n"));
    }
    for (axis, c) in d.arm.iter().enumerate() {
        if let Check::Within {
            value: v,
            tolerance,
        } = c
        {
            out.push_str(&format!(
                "The arm's {} position must be {} (threshold {}) for {dn}.\n",
                AXES[axis],
                value(i, v, axis),
                number(*tolerance)
            ));
        }
    }
    for o in &d.objects {
        out.push_str(&format!(
            "There must be one object, {} for {dn}.\n",
            object(i, o)
        ));
    }
    out.push_str(&next(i, "success", &dn, &d.success));
    out.push_str(&next(i, "failure", &dn, &d.fail));
}

fn object(i: &Instructions, o: &ObjectCheck) -> String {
    let mut props = Vec::new();
    if o.axes.iter().all(|c| *c == Check::Any) {
        props.push("at any position".to_owned());
    }
    for (axis, c) in o.axes.iter().enumerate() {
        if let Check::Within {
            value: v,
            tolerance,
        } = c
        {
            let at = if props.is_empty() { "at " } else { "" };
            let connector = if matches!(v, Value::Var(_)) {
                "equal to "
            } else {
                ""
            };
            props.push(format!(
                "{at}{} position {connector}{} (threshold {})",
                AXES[axis],
                value(i, v, axis),
                number(*tolerance)
            ));
        }
    }
    if let Some((v, t)) = o.certainty {
        props.push(format!(
            "with a certainty of {} (threshold {})",
            number(v),
            number(t)
        ));
    }
    props.join(", ")
}
