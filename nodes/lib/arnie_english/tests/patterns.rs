//! Every sentence pattern of the original `decypher/tokenised_sample.txt`, each optional
//! part with and without, and the other patterns of `sample.txt`: each compiles to the
//! instructions it says (checked on the JSON the compiler writes).
use serde_json::{json, Value};

/// A one-action task around `body` (sentences about action `a`).
fn task(body: &str) -> String {
    format!(
        "Create an action called a.\n{body}\na has no reset condition.\n\
         Create an action called b.\nMove to 9, 9, 9.\nb has no reset condition.\n"
    )
}

fn compiled(text: &str) -> Value {
    match arnie_english::compile(text) {
        Ok(i) => serde_json::from_str(&arnie_english::to_json(&i)).expect("json"),
        Err(e) => panic!(
            "{text}\n---\n{}",
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn action(text: &str) -> Value {
    compiled(text)["actions"]["a"].clone()
}

fn steps(text: &str) -> Value {
    action(text)["trajectory"].clone()
}

/// A decision `d` of `a` with the given sentences (all `for d`), success/failure given.
fn decision(sentences: &str) -> Value {
    let mut body = format!(
        "The first step is to move to 1, 2, 3.\na has one decision.\nThe first decision is called d.\n{sentences}"
    );
    if !sentences.contains("success action") {
        body.push_str("\nThe success action for d is b with no delay.");
    }
    if !sentences.contains("fail") {
        body.push_str("\nThe failure action for d is a with no delay.");
    }
    action(&task(&body))["decisions"][0].clone()
}

// ----- Labelling: (The)? <object> (are|is) (called|named) (the)? <name> -----

#[test]
fn labelling() {
    for label in [
        "You are called the robot.",
        "The you are named robot.",
        "you is called robot.",
        "YOU  ARE  CALLED  THE  ROBOT.",
    ] {
        let d = decision(&format!(
            "{label}\nThe robot's x position must be 4 (threshold 1) for d."
        ));
        assert_eq!(d["state"]["arm"]["x"], json!([4, 1]), "{label}");
    }
    for label in [
        "Targets are called flames.",
        "The targets are named the flames.",
        "Targets is called flame.",
    ] {
        let d = decision(&format!(
            "{label}\nThere must be two flames, at any position for d.\nThere must be a flame at x position 3 (threshold 1) for d."
        ));
        assert_eq!(
            d["state"]["objects"],
            json!([{"x": -1, "y": -1, "z": -1}, {"x": -1, "y": -1, "z": -1}, {"x": [3, 1], "y": -1, "z": -1}]),
            "{label}"
        );
    }
    // The labels set the words wherever they are written.
    let text = task("Move to 1, 2, 3.") + "You are called the hand.";
    assert!(arnie_english::compile(&text).is_ok());
}

// ----- Variables: (The)? <object> is <value> -----

#[test]
fn variables() {
    let text = task("The first step is to move to 1, 2, 3.");
    assert_eq!(
        compiled(&text)["initialAction"],
        "a",
        "the first action created by default"
    );
    for s in [
        "The initial action is b.",
        "initial action is b.",
        "The initial action is B.",
    ] {
        assert_eq!(compiled(&format!("{text}{s}"))["initialAction"], "b", "{s}");
    }
    let axes = task(
        "The coordinate space is east, north and up.\nThe first step is to move to 1, 2, 3.\n\
         The second step is to move east and up positions to 5.",
    );
    assert_eq!(steps(&axes)[1], json!({"x": 5, "y": 2, "z": 5}));
}

// ----- Create things: Create a(n)? <object> called <name> -----

#[test]
fn create_things() {
    for create in [
        "Create an action called c.",
        "Create a action called c.",
        "create action named c.",
    ] {
        let text = format!("{create}\nMove to 1, 2, 3.\nc has no reset condition.\n");
        let v = compiled(&text);
        assert_eq!(v["initialAction"], "c", "{create}");
        assert_eq!(
            v["actions"]["c"]["trajectory"],
            json!([{"x": 1, "y": 2, "z": 3}])
        );
    }
    // Quoted names hold anything.
    let v = compiled("Create an action called \"the arm, twice\".\nMove to 1, 2, 3.\n\"the arm, twice\" has no reset condition.");
    assert_eq!(v["initialAction"], "the arm, twice");
}

// ----- Set trajectory step count: (The)? <trajectory name> (trajectory)? has <number> step(s)? -----

#[test]
fn set_trajectory_step_count() {
    for count in [
        "The a trajectory has two steps.",
        "a has 2 steps.",
        "a trajectory has two step.",
        "The a action has two steps.",
    ] {
        let t = steps(&task(&format!(
            "{count}\nThe first step is to move to 1, 2, 3.\nThe last step is to move to 4, 5, 6."
        )));
        assert_eq!(
            t,
            json!([{"x": 1, "y": 2, "z": 3}, {"x": 4, "y": 5, "z": 6}]),
            "{count}"
        );
    }
}

// ----- Set trajectory step: ((The)? (<ordinal>|last|penultimate|final|next) step is (to)?)?
//       move to (<coordinate>|(<coordinate dimension>){1,}) -----

#[test]
fn set_trajectory_step() {
    let t = steps(&task(
        "a has five steps.\n\
         The first step is to move to 1, 1, 1.\n\
         second step is move to 2, 2, 2.\n\
         The next step is to move to 3, 3, 3.\n\
         The penultimate step is move to 4, 4, 4.\n\
         The final step is to move to 5, 5, 5.",
    ));
    let want: Vec<Value> = (1..=5).map(|v| json!({"x": v, "y": v, "z": v})).collect();
    assert_eq!(t, Value::Array(want));
    // Without an ordinal: the next step. `last` = `final`, `4th` = `fourth`.
    let t = steps(&task("a has 4 steps.\nMove to 1, 1, 1.\nMove to 2, 2, 2.\nThe 3rd step is to move to 3, 3, 3.\nThe last step is to move to 4, 4, 4."));
    assert_eq!(t[3], json!({"x": 4, "y": 4, "z": 4}));
    // Steps in any order.
    let t = steps(&task(
        "The second step is to move to 2, 2, 2.\nThe first step is to move to 1, 1, 1.",
    ));
    assert_eq!(
        t,
        json!([{"x": 1, "y": 1, "z": 1}, {"x": 2, "y": 2, "z": 2}])
    );
}

#[test]
fn steps_change_some_axes_and_keep_the_others() {
    let t = steps(&task(
        "The first step is to move y position to 7.\n\
         The second step is to move x and z positions to zero.\n\
         The third step is to move x to 3, z to 4.\n\
         The fourth step is to move the x, y and z positions to minus five.",
    ));
    assert_eq!(
        t,
        json!([
            {"x": 0, "y": 7, "z": 0},
            {"x": 0, "y": 7, "z": 0},
            {"x": 3, "y": 7, "z": 4},
            {"x": -5, "y": -5, "z": -5}
        ])
    );
}

// ----- Coordinate: <number>, <number>, <number> -----

#[test]
fn coordinate() {
    let t = steps(&task("Move to -50, 2.5, twenty-five.\nMove to minus 3, 1e2, one hundred twenty.\nMove to \u{2212}4 , 0.125,zero."));
    assert_eq!(
        t,
        json!([
            {"x": -50, "y": 2.5, "z": 25},
            {"x": -3, "y": 100, "z": 120},
            {"x": -4, "y": 0.125, "z": 0}
        ])
    );
}

// ----- Coordinate dimension: <dimension> position of (the)? <object name> (found in|from)
//       <object reference>; Object reference: <action name> action <decision name> decision -----

#[test]
fn coordinate_dimension_and_object_reference() {
    let body = "b has one decision.\nThe first decision is called seen.\n\
                There must be two objects, at any position for seen.\n\
                The success action for seen is a with no delay.\nThe failure action for seen is b with no delay.";
    let text = format!(
        "Create an action called a.\n\
         Move to the y position of object from b action seen decision.\n\
         Move to the x position of the object found in the b action seen decision and the z position of the second object found in b action seen decision.\n\
         Move to y position of the arm at b first decision.\n\
         Move to the z position of the object seen in B action SEEN decision, x to 1.\n\
         a has no reset condition.\n\
         Create an action called b.\nMove to 9, 9, 9.\n{body}\nb has no reset condition."
    );
    let t = &compiled(&text)["actions"]["a"]["trajectory"];
    assert_eq!(
        *t,
        json!([
            {"x": 0, "y": "b,0,0", "z": 0},
            {"x": "b,0,0", "y": "b,0,0", "z": "b,0,1"},
            {"x": "b,0,0", "y": "b,0,arm", "z": "b,0,1"},
            {"x": 1, "y": "b,0,arm", "z": "b,0,0"}
        ])
    );
}

// ----- Decision definition count: (The)? <action name> (action)? has <number> decision(s)?
//       Decision name definition: (The)? <object> (are|is) called (the)? <name> -----

#[test]
fn decision_count_and_names() {
    let common = "The success action for X is b with no delay.\nThe failure action for X is a with no delay.";
    for (count, naming) in [
        (
            "The a action has 2 decisions.",
            [
                "The first decision is called p.",
                "The second decision is called the q.",
            ],
        ),
        (
            "a has two decisions.",
            ["This is called p.", "This decision is named q."],
        ),
        (
            "",
            [
                "The first decision is called p.",
                "The 2nd decision is called q.",
            ],
        ),
    ] {
        let body = format!(
            "Move to 1, 2, 3.\n{count}\n{}\n{}\n{}\n{}",
            naming[0],
            common.replace('X', "p"),
            naming[1],
            common.replace('X', "q")
        );
        let a = action(&task(&body));
        assert_eq!(
            a["decisions"].as_array().map(Vec::len),
            Some(2),
            "{count} {naming:?}"
        );
    }
    assert_eq!(
        action(&task("Move to 1, 2, 3.\na has no decisions."))["decisions"],
        json!([])
    );
}

// ----- The rest of sample.txt's sentences -----

#[test]
fn trajectory_verification() {
    for (s, on) in [
        ("Enable trajectory verification.", true),
        ("Trajectory verification is enabled.", true),
        ("Disable the trajectory verification.", false),
        ("Trajectory verification is off.", false),
        ("", false),
    ] {
        let a = action(&task(&format!("Move to 1, 2, 3.\n{s}")));
        assert_eq!(a["trajectoryVerification"], on, "{s}");
    }
}

#[test]
fn when_a_decision_executes() {
    let steps = "a has three steps.\nMove to 1, 1, 1.\nMove to 2, 2, 2.\nMove to 3, 3, 3.\n";
    for (s, after) in [
        ("Execute d after the first trajectory step.", 0),
        ("Execute d after the second step.", 1),
        ("Evaluate d after step 2.", 1),
        (
            "Execute the first decision after the penultimate trajectory step.",
            1,
        ),
        ("", 2),
    ] {
        let body = format!(
            "{steps}a has one decision.\nThe first decision is called d.\n{s}\n\
             The success action for d is b.\nThe failure action for d is a."
        );
        assert_eq!(
            action(&task(&body))["decisions"][0]["executeAfter"],
            after,
            "{s}"
        );
    }
}

#[test]
fn arm_conditions() {
    let d = decision("The arm can be in any position for d.");
    assert_eq!(d["state"]["arm"], json!({"x": -1, "y": -1, "z": -1}));
    let d = decision("The arm's x position must be 0 (threshold 10) for d.\nthe ARM's z position is 5 (tolerance 2.5) for d.");
    assert_eq!(
        d["state"]["arm"],
        json!({"x": [0, 10], "y": -1, "z": [5, 2.5]})
    );
    let d = decision("The arm must be at 0, 50, 0 (threshold 10) for d.");
    assert_eq!(
        d["state"]["arm"],
        json!({"x": [0, 10], "y": [50, 10], "z": [0, 10]})
    );
    let d = decision("The arm's y position must be equal to the y position of the arm at a action d decision (threshold 3) for the first decision.");
    assert_eq!(d["state"]["arm"]["y"], json!(["a,0,arm", 3]));
    // Without `for`: the decision named last.
    let d = decision("The arm's x position should be 1 (threshold 2).");
    assert_eq!(d["state"]["arm"]["x"], json!([1, 2]));
}

#[test]
fn object_conditions() {
    let d = decision(
        "There must be one object, at any position, with a certainty of 75 (threshold 25) for d.\n\
         There must be one object, at position -50, 50, 50 (threshold 10), with certainty 75 (threshold 25) for d.\n\
         There is an object at x position 0 (threshold 10), y position equal to the first object found in a action d decision y position (threshold 10), any z position for d.\n\
         There must be one object anywhere for d.\n\
         There must be no objects for d.",
    );
    assert_eq!(
        d["state"]["objects"],
        json!([
            {"x": -1, "y": -1, "z": -1, "certainty": [75, 25]},
            {"x": [-50, 10], "y": [50, 10], "z": [50, 10], "certainty": [75, 25]},
            {"x": [0, 10], "y": ["a,0,0", 10], "z": -1},
            {"x": -1, "y": -1, "z": -1}
        ])
    );
}

#[test]
fn success_and_failure_actions_with_delays() {
    for (s, delay) in [
        ("with no delay", 0),
        (", no delay", 0),
        ("", 0),
        ("in the same tick", -1),
        ("immediately", -1),
        ("with a delay of 2 ticks", 2),
        ("with a delay of one tick", 1),
        ("after 3 ticks", 3),
        ("with delay -1", -1),
    ] {
        let d = decision(&format!("The success action for d is b {s}.").replace(" .", "."));
        assert_eq!(d["success"], json!({"action": "b", "delay": delay}), "{s}");
    }
    let d = decision("The fail action for d is b.");
    assert_eq!(d["fail"]["action"], "b");
}

#[test]
fn reset_conditions() {
    for (s, reset) in [
        (
            "a's reset condition is action b, timeout -1, no delay.",
            json!({"timeout": -1, "action": "b", "delay": 0}),
        ),
        (
            "A's reset condition is action b, timeout 3, with no delay.",
            json!({"timeout": 3, "action": "b", "delay": 0}),
        ),
        (
            "The a's reset condition is b, timeout unlimited, in the same tick.",
            json!({"timeout": -1, "action": "b", "delay": -1}),
        ),
        (
            "a's reset condition is action b, no timeout, with a delay of 2 ticks.",
            json!({"timeout": -1, "action": "b", "delay": 2}),
        ),
        (
            "a\u{2019}s reset condition is action b, timeout zero.",
            json!({"timeout": 0, "action": "b", "delay": 0}),
        ),
    ] {
        let text = format!("Create an action called a.\nMove to 1, 2, 3.\n{s}\nCreate an action called b.\nMove to 1, 1, 1.\nb has no reset condition.");
        assert_eq!(compiled(&text)["actions"]["a"]["reset"], reset, "{s}");
    }
}

#[test]
fn case_spaces_lines_and_comments_as_a_person_writes_them() {
    let text = "  CREATE an   Action called a.   # the only action\n\
                The FIRST step is\n   to move to 1,\n 2, 3.\n\n\
                a has no reset condition";
    assert_eq!(steps(text), json!([{"x": 1, "y": 2, "z": 3}]));
}
