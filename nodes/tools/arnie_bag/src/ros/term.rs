//! The keyboard (raw terminal mode, restored on drop).

use std::io::Read;
use std::sync::mpsc::{channel, Receiver};

use crate::keys::{Key, KeyReader};

/// Keys from stdin when it is a terminal: the terminal is put in raw mode (no echo, no
/// line buffering; Ctrl-C still signals) until this is dropped.
pub struct Keyboard {
    saved: libc::termios,
    keys: Receiver<Vec<u8>>,
    reader: KeyReader,
}

impl Keyboard {
    /// `None` when stdin is not a terminal (or its mode cannot be read).
    pub fn open() -> Option<Keyboard> {
        // SAFETY: isatty/tcgetattr/tcsetattr only read or write the termios struct we own.
        unsafe {
            if libc::isatty(libc::STDIN_FILENO) != 1 {
                return None;
            }
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &raw) != 0 {
                return None;
            }
            let (tx, keys) = channel();
            // A blocking reader; it ends with the process.
            std::thread::spawn(move || {
                let mut buf = [0u8; 16];
                let mut stdin = std::io::stdin();
                while let Ok(n) = stdin.read(&mut buf) {
                    if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            });
            Some(Keyboard {
                saved,
                keys,
                reader: KeyReader::default(),
            })
        }
    }

    /// The keys pressed since the last call.
    pub fn keys(&mut self) -> Vec<Key> {
        let mut out = Vec::new();
        while let Ok(bytes) = self.keys.try_recv() {
            out.extend(self.reader.feed(&bytes));
        }
        out
    }
}

impl Drop for Keyboard {
    fn drop(&mut self) {
        // SAFETY: restores the mode read in `open`.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.saved);
        }
    }
}
