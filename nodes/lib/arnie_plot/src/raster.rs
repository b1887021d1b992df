//! PNG by rasterising the SVG with resvg (pure Rust). Fonts: the system's (fontconfig
//! folders) plus /usr/share/fonts/truetype/dejavu; with no font at all the PNG is still
//! made, without its text (the SVG keeps it).

use crate::PlotError;
use resvg::{tiny_skia, usvg};
use std::sync::{Arc, OnceLock};

/// Where DejaVu lives on Debian/Ubuntu; loaded in case fontconfig's folders miss it.
const DEJAVU_DIR: &str = "/usr/share/fonts/truetype/dejavu";
/// Preferred sans-serif families, best first.
const SANS: [&str; 5] = [
    "DejaVu Sans",
    "Verdana",
    "Liberation Sans",
    "Arial",
    "Helvetica",
];
/// The largest side of a PNG we make [px].
const MAX_SIDE: u32 = 16_384;

/// A rendered PNG.
#[derive(Debug, Clone)]
pub struct Png {
    /// The encoded file.
    pub data: Vec<u8>,
    /// Width [px].
    pub width: u32,
    /// Height [px].
    pub height: u32,
    /// The family used for `sans-serif` text; `None`: no font was found and the PNG has no text.
    pub font: Option<String>,
}

struct Fonts {
    db: Arc<usvg::fontdb::Database>,
    family: Option<String>,
}

/// The font database, loaded once per process (scanning the system's fonts takes a moment).
fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        if std::path::Path::new(DEJAVU_DIR).is_dir() && !has_family(&db, "DejaVu Sans") {
            db.load_fonts_dir(DEJAVU_DIR);
        }
        let family = SANS
            .iter()
            .find(|f| has_family(&db, f))
            .map(|f| f.to_string())
            .or_else(|| {
                db.faces()
                    .next()
                    .and_then(|face| face.families.first().map(|(name, _)| name.clone()))
            });
        if let Some(f) = &family {
            // Generic families (and usvg's last resort, serif) resolve to a font that exists.
            db.set_sans_serif_family(f.clone());
            db.set_serif_family(f.clone());
        }
        Fonts {
            db: Arc::new(db),
            family,
        }
    })
}

fn has_family(db: &usvg::fontdb::Database, name: &str) -> bool {
    db.faces().any(|face| {
        face.families
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    })
}

/// Parses `svg` and renders it at `scale` × its size to a PNG (white where the SVG is
/// transparent is the SVG's business: figures paint a white background).
///
/// # Errors
/// [`PlotError::Svg`] when the SVG does not parse, [`PlotError::Size`] when the image would
/// be empty or larger than 16384 px on a side, [`PlotError::Png`] when encoding fails.
pub fn render_png(svg: &str, scale: f32) -> Result<Png, PlotError> {
    let fonts = fonts();
    let mut opt = usvg::Options {
        fontdb: fonts.db.clone(),
        ..Default::default()
    };
    if let Some(f) = &fonts.family {
        opt.font_family = f.clone();
    }
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| PlotError::Svg(e.to_string()))?;
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil(),
        (size.height() * scale).ceil(),
    );
    let (width, height) = (w as u32, h as u32);
    if !(w >= 1.0 && h >= 1.0) || width > MAX_SIDE || height > MAX_SIDE {
        return Err(PlotError::Size { width, height });
    }
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).ok_or(PlotError::Size { width, height })?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let data = pixmap
        .encode_png()
        .map_err(|e| PlotError::Png(e.to_string()))?;
    Ok(Png {
        data,
        width,
        height,
        font: fonts.family.clone(),
    })
}
