//! The glyphs of each page with their positions and sizes, as the
//! `pdf-extract` crate's content-stream interpreter shows them (one call per
//! character, with its text rendering matrix and advance).

use std::time::Instant;

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

/// One character as printed: baseline origin in PDF units (y grows upwards),
/// the effective font size, and the advance width.
#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub adv: f32,
    pub text: String,
}

/// One page's glyphs in content-stream order, upright text only; text set
/// at an angle (the arXiv stamp in the margin, rotated table headers) is
/// kept apart in `rotated`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Page {
    pub number: u32,
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    pub glyphs: Vec<Glyph>,
    pub rotated: String,
}

/// The most glyphs one file may yield (a content stream that repeats text
/// for ever is cut here, with [`Stop::Glyphs`]).
pub(crate) const MAX_GLYPHS: usize = 20_000_000;

/// Why the collector asked the interpreter to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Deadline,
    Glyphs,
}

pub(crate) struct Collector {
    pub pages: Vec<Page>,
    pub deadline: Instant,
    pub total: usize,
    pub stop: Option<Stop>,
    /// The next page's `/Rotate`: how far a viewer turns it clockwise (0,
    /// 90, 180 or 270), set before the page is read.
    pub rotate: u32,
    /// The page as shown: the rotation applied to its media box.
    shown: Rotation,
}

/// A page's rotation as a viewer shows it: each point's coordinates on the
/// page turned by `rotate` degrees clockwise about the media box, so that
/// the box lands with its lower left corner at its own (x0, y0) again.
#[derive(Debug, Clone, Copy, Default)]
struct Rotation {
    rotate: u32,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rotation {
    /// A direction (a vector, no translation) as shown.
    fn vector(&self, dx: f64, dy: f64) -> (f64, f64) {
        match self.rotate {
            90 => (dy, -dx),
            180 => (-dx, -dy),
            270 => (-dy, dx),
            _ => (dx, dy),
        }
    }

    /// A point as shown.
    fn point(&self, x: f64, y: f64) -> (f64, f64) {
        let Rotation { x0, y0, x1, y1, .. } = *self;
        match self.rotate {
            90 => (x0 + (y - y0), y0 + (x1 - x)),
            180 => (x0 + (x1 - x), y0 + (y1 - y)),
            270 => (x0 + (y1 - y), y0 + (x - x0)),
            _ => (x, y),
        }
    }

    /// The text rendering matrix as shown.
    fn matrix(&self, m: &Transform) -> Transform {
        let (m11, m12) = self.vector(m.m11, m.m12);
        let (m21, m22) = self.vector(m.m21, m.m22);
        let (m31, m32) = self.point(m.m31, m.m32);
        Transform::row_major(m11, m12, m21, m22, m31, m32)
    }
}

/// A page's `/Rotate` as 0, 90, 180 or 270 (a value that is not a multiple
/// of 90 is read as 0, as viewers do).
pub(crate) fn quarter_turns(rotate: i64) -> u32 {
    match rotate.rem_euclid(360) {
        r @ (90 | 180 | 270) => r as u32,
        _ => 0,
    }
}

impl Collector {
    pub fn new(deadline: Instant) -> Collector {
        Collector { pages: Vec::new(), deadline, total: 0, stop: None, rotate: 0, shown: Rotation::default() }
    }

    fn halt(&mut self, why: Stop) -> OutputError {
        self.stop = Some(why);
        OutputError::IoError(std::io::Error::other("stopped"))
    }
}

impl OutputDev for Collector {
    fn begin_page(
        &mut self,
        number: u32,
        media: &MediaBox,
        _art: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        if Instant::now() > self.deadline {
            return Err(self.halt(Stop::Deadline));
        }
        let (x0, y0) = (media.llx.min(media.urx), media.lly.min(media.ury));
        let (x1, y1) = (media.llx.max(media.urx), media.lly.max(media.ury));
        self.shown = Rotation { rotate: self.rotate, x0, y0, x1, y1 };
        // A quarter turn shows the box on its side: its width is the height.
        let (w, h) = if self.rotate % 180 == 90 { (y1 - y0, x1 - x0) } else { (x1 - x0, y1 - y0) };
        self.pages.push(Page {
            number,
            x0: x0 as f32,
            y0: y0 as f32,
            x1: (x0 + w) as f32,
            y1: (y0 + h) as f32,
            ..Page::default()
        });
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        text: &str,
    ) -> Result<(), OutputError> {
        self.total += 1;
        if self.total % 4096 == 0 && Instant::now() > self.deadline {
            return Err(self.halt(Stop::Deadline));
        }
        if self.total > MAX_GLYPHS {
            return Err(self.halt(Stop::Glyphs));
        }
        let Some(page) = self.pages.last_mut() else { return Ok(()) };
        let trm = &self.shown.matrix(trm);
        let (vx, vy) = (font_size * (trm.m11 + trm.m21), font_size * (trm.m12 + trm.m22));
        let size = (vx * vy).abs().sqrt();
        if !size.is_finite() || !trm.m31.is_finite() || !trm.m32.is_finite() || !width.is_finite() {
            return Ok(());
        }
        // Upright: the x axis of the text runs along the page's x axis. A
        // glyph's own y axis may point down: `pdf-extract` leaves a Type 3
        // font's matrix out, and dvips' fonts flip it (`type3`).
        let upright = trm.m11 > 0.0 && trm.m12.abs() <= trm.m11 * 0.2 && trm.m22 != 0.0;
        if !upright {
            if page.rotated.len() < 4096 {
                page.rotated.push_str(text);
            }
            return Ok(());
        }
        if !(0.5..=500.0).contains(&size) {
            return Ok(());
        }
        page.glyphs.push(Glyph {
            x: trm.m31 as f32,
            y: trm.m32 as f32,
            size: size as f32,
            adv: (width * size) as f32,
            text: text.to_string(),
        });
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
