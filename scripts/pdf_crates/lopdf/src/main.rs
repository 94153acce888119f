// Prints lopdf's own text extraction (Document::extract_text, no positions),
// one page a line group (page, 0, 0, 0, text), or ERROR and why.
fn main() {
    let path = std::env::args().nth(1).expect("a PDF");
    let bytes = std::fs::read(&path).expect("read");
    let r = std::panic::catch_unwind(|| {
        let doc = lopdf::Document::load_mem(&bytes).map_err(|e| format!("{e}"))?;
        let mut out = String::new();
        for (n, _) in doc.get_pages() {
            let t = doc.extract_text(&[n]).map_err(|e| format!("page {n}: {e}"))?;
            for line in t.lines() {
                out.push_str(&format!("{n}\t0\t0\t0\t{line}\n"));
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
