//! rosbag2's playback keys, read from terminal bytes: space pauses/resumes, → plays the
//! next message, ↑/↓ change the rate by 0.1. Escape sequences may arrive split across
//! reads; [`KeyReader`] keeps the partial one.

/// A key the player reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// SPACE: pause or resume.
    Space,
    /// RIGHT arrow: publish the next message (while paused).
    Right,
    /// LEFT arrow: ignored (rosbag2 has no step back).
    Left,
    /// UP arrow: rate + 0.1.
    Up,
    /// DOWN arrow: rate - 0.1 (never below 0.1).
    Down,
    /// `q` (our addition: stop playback).
    Quit,
    /// Any other byte.
    Other(u8),
}

/// Turns a stream of terminal bytes into [`Key`]s.
#[derive(Debug, Default)]
pub struct KeyReader {
    pending: Vec<u8>,
}

impl KeyReader {
    /// Feeds bytes read from the terminal; returns the keys they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Key> {
        self.pending.extend_from_slice(bytes);
        let mut keys = Vec::new();
        let mut i = 0;
        let p = &self.pending;
        while i < p.len() {
            if p[i] == 0x1b {
                // ESC [ X or ESC O X (application cursor mode).
                if i + 1 >= p.len() {
                    break;
                }
                if p[i + 1] == b'[' || p[i + 1] == b'O' {
                    if i + 2 >= p.len() {
                        break;
                    }
                    keys.push(match p[i + 2] {
                        b'A' => Key::Up,
                        b'B' => Key::Down,
                        b'C' => Key::Right,
                        b'D' => Key::Left,
                        other => Key::Other(other),
                    });
                    i += 3;
                } else {
                    keys.push(Key::Other(0x1b));
                    i += 1;
                }
                continue;
            }
            keys.push(match p[i] {
                b' ' => Key::Space,
                b'q' | b'Q' => Key::Quit,
                other => Key::Other(other),
            });
            i += 1;
        }
        self.pending.drain(..i);
        keys
    }
}

/// The help lines the player prints at start (as rosbag2 logs them).
pub const HELP: &str = "Press SPACE for Pause/Resume\nPress CURSOR_RIGHT for Play Next Message\nPress CURSOR_UP for Increase Rate 10%\nPress CURSOR_DOWN for Decrease Rate 10%";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_split_escapes() {
        let mut r = KeyReader::default();
        assert_eq!(
            r.feed(b" \x1b[A\x1b[B"),
            vec![Key::Space, Key::Up, Key::Down]
        );
        assert_eq!(r.feed(b"\x1b"), vec![]);
        assert_eq!(r.feed(b"["), vec![]);
        assert_eq!(r.feed(b"Cq"), vec![Key::Right, Key::Quit]);
        assert_eq!(r.feed(b"\x1bOA"), vec![Key::Up]);
    }
}
