//! The spine's config loader (nodes/arnie_spine `config`, `resolve`): any text is a
//! checked config or a `LoadError`, never a panic, with and without the loopback map;
//! a config that loads builds a router that takes a datagram on every input, in both
//! formats, and a topic value on every output without panicking.
#![no_main]
use arnie_spine::config::LoopbackMap;
use arnie_spine::{wire, Config, Format, Limits, Router};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let offset = i32::from(data.len() as u16) * 7 - 30_000;
    for loopback in [
        None,
        Some(LoopbackMap {
            port_offset: offset,
        }),
    ] {
        let Ok(config) = Config::from_json(text, loopback) else {
            continue;
        };
        let _ = config.address_clashes();
        let mut router = Router::new(config, Limits::default());
        let inputs: Vec<_> = router.input_ids().collect();
        let outputs: Vec<_> = router.output_ids().collect();
        let items = vec![vec![1.0, -2.5, 3.0], vec![4.0, 5.0, 6.0]];
        for id in inputs {
            for format in [Format::Csv, Format::Simulink] {
                let bytes = wire::encode(format, &items);
                let _ = router.on_datagram(id, "127.0.0.1:40000".parse().unwrap(), &bytes);
            }
        }
        for id in outputs {
            let _ = router.on_topic(id, &items);
        }
    }
});
