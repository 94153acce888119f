//! What keeps a hostile file bounded: the decompressed size of its Flate
//! streams counted before the parser inflates them (a decompression bomb is
//! refused unread), and a panic in the PDF crates caught and kept quiet
//! (the library never prints).

use std::cell::Cell;
use std::io::Read;
use std::sync::Once;
use std::time::Instant;

use super::super::PdfError;

/// Adds up what every `/FlateDecode` stream of the file inflates to, each
/// read through a capped decoder, and refuses the file once the total passes
/// `max` or the deadline passes. Streams are found by their `stream`
/// keyword, so streams inside object streams are counted when their object
/// stream is (object streams are Flate streams too).
pub(crate) fn check_inflated_size(bytes: &[u8], max: u64, deadline: Instant) -> Result<(), PdfError> {
    let mut total: u64 = 0;
    let mut at = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    while let Some(k) = find(&bytes[at..], b"stream") {
        let start = at + k;
        at = start + 6;
        // "endstream" also contains "stream": skip it.
        if start >= 3 && &bytes[start - 3..start] == b"end" {
            continue;
        }
        let dict_from = start.saturating_sub(1024);
        let head = &bytes[dict_from..start];
        // The stream's own dictionary: from its "obj" keyword on.
        let open = rfind(head, b"obj").unwrap_or(0);
        if find(&head[open..], b"/Fl").is_none() {
            continue;
        }
        let mut data = at;
        if bytes.get(data) == Some(&b'\r') {
            data += 1;
        }
        if bytes.get(data) == Some(&b'\n') {
            data += 1;
        }
        if data >= bytes.len() {
            break;
        }
        let mut z = flate2::read::ZlibDecoder::new(&bytes[data..]);
        loop {
            if Instant::now() > deadline {
                return Err(PdfError::Limit("the time limit per file (while checking stream sizes)".into()));
            }
            match z.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n as u64;
                    if total > max {
                        return Err(PdfError::Limit(format!("its streams decompress to more than {max} bytes")));
                    }
                }
            }
        }
    }
    Ok(())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

thread_local! {
    static QUIET: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f`, turning a panic into `None`. While it runs, this thread's
/// panics print nothing (a process-wide hook, installed once, that defers to
/// the previous hook for every other panic).
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(q.get() + 1));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(q.get() - 1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    #[test]
    fn a_bomb_is_refused() {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![b'0'; 8 * 1024 * 1024]).unwrap();
        let packed = z.finish().unwrap();
        let mut pdf = b"%PDF-1.4\n1 0 obj << /Length 10 /Filter /FlateDecode >>\nstream\n".to_vec();
        pdf.extend_from_slice(&packed);
        pdf.extend_from_slice(b"\nendstream\nendobj\n");
        let later = Instant::now() + Duration::from_secs(30);
        assert!(matches!(check_inflated_size(&pdf, 1024 * 1024, later), Err(PdfError::Limit(_))));
        assert!(check_inflated_size(&pdf, 64 * 1024 * 1024, later).is_ok());
    }

    #[test]
    fn a_panic_is_caught() {
        assert_eq!(quietly(|| 2), Some(2));
        assert_eq!(quietly(|| -> u8 { panic!("boom") }), None);
    }
}
