// Prints, per page, the text pdf_oxide finds with positions (one span a line:
// page, x, y, font size, text), or ERROR and why. Used by scripts/pdf_crates.sh.
fn main() {
    let path = std::env::args().nth(1).expect("a PDF");
    let bytes = std::fs::read(&path).expect("read");
    let r = std::panic::catch_unwind(|| {
        let doc = pdf_oxide::PdfDocument::from_bytes(bytes).map_err(|e| format!("{e}"))?;
        let n = doc.page_count().map_err(|e| format!("{e}"))?;
        let mut out = String::new();
        for p in 0..n {
            let spans = doc.extract_spans(p).map_err(|e| format!("page {p}: {e}"))?;
            for s in spans {
                out.push_str(&format!("{}\t{:.1}\t{:.1}\t{:.1}\t{}\n", p + 1, s.bbox.x, s.bbox.y, s.font_size, s.text));
            }
        }
        Ok::<String, String>(out)
    });
    match r {
        Ok(Ok(s)) => print!("{s}"),
        Ok(Err(e)) => println!("ERROR\t{e}"),
        Err(_) => println!("ERROR\tpanic"),
    }
}
