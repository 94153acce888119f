// Prints, per character, what pdf-extract's OutputDev receives (page, x, y,
// font size, char), or ERROR and why. Used by scripts/pdf_crates.sh.
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
struct Dev { page: u32, out: String }
impl OutputDev for Dev {
    fn begin_page(&mut self, n: u32, _m: &MediaBox, _a: Option<(f64, f64, f64, f64)>) -> Result<(), OutputError> { self.page = n; Ok(()) }
    fn end_page(&mut self) -> Result<(), OutputError> { Ok(()) }
    fn output_character(&mut self, t: &Transform, w: f64, _s: f64, fs: f64, c: &str) -> Result<(), OutputError> {
        let (vx, vy) = (fs * t.m11 + fs * t.m21, fs * t.m12 + fs * t.m22);
        let size = (vx * vy).abs().sqrt();
        self.out.push_str(&format!("{}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{}\n", self.page, t.m31, t.m32, size, w * size, c));
        Ok(())
    }
    fn begin_word(&mut self) -> Result<(), OutputError> { Ok(()) }
    fn end_word(&mut self) -> Result<(), OutputError> { Ok(()) }
    fn end_line(&mut self) -> Result<(), OutputError> { Ok(()) }
}
fn main() {
    let path = std::env::args().nth(1).expect("a PDF");
    let bytes = std::fs::read(&path).expect("read");
    let r = std::panic::catch_unwind(|| {
        let doc = lopdf::Document::load_mem(&bytes).map_err(|e| format!("{e}"))?;
        let mut dev = Dev { page: 0, out: String::new() };
        pdf_extract::output_doc(&doc, &mut dev).map_err(|e| format!("{e}"))?;
        Ok::<String, String>(dev.out)
    });
    match r {
        Ok(Ok(s)) => print!("{s}"),
        Ok(Err(e)) => println!("ERROR\t{e}"),
        Err(_) => println!("ERROR\tpanic"),
    }
}
