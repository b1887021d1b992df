//! Arbitrary bytes, in arbitrary chunks and at arbitrary times, through the UART decoder
//! (with and without a length table): never a panic, never a frame whose XOR is not 0,
//! and each frame's bytes are exactly the stream's at its offset.
#![no_main]
use arnie_comms::uart::{xor, Decoder, DecoderConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, bytes)) = data.split_first() else { return };
    let mut d = Decoder::new(DecoderConfig { max_frame_len: 64 + usize::from(ctl), frame_timeout_ms: 3 });
    if ctl & 1 == 1 {
        let mut t = Box::new([None; 256]);
        for (i, slot) in t.iter_mut().enumerate().step_by(3) {
            *slot = Some((i % 40) as u16);
        }
        d = d.with_lengths(t);
    }
    let step = usize::from(ctl >> 4) + 1;
    let mut now = 0u64;
    for chunk in bytes.chunks(step) {
        now += u64::from(chunk[0] & 3);
        d.push(chunk, now);
        while let Some(r) = d.next(now) {
            if let Ok(f) = r {
                assert_eq!(xor(&f.raw), 0);
                let at = f.offset as usize;
                assert_eq!(&bytes[at..at + f.raw.len()], &f.raw[..]);
            }
        }
    }
    while d.next(u64::MAX).is_some() {}
    assert!(d.deadline_ms().is_none());
});
