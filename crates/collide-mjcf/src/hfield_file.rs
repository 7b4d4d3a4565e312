//! Height-field sources (`mjCHField::LoadPNG`, `LoadCustom`, `Compile` in MuJoCo 4.0.0).
//!
//! Row order (row 0 of the compiled field is at −y):
//!
//! - **PNG**: the image's top row is the field's last row (rows reversed on load);
//! - **custom binary** (`int32 nrow, int32 ncol, float32[nrow*ncol]`): rows kept as stored, i.e.
//!   the first stored row is at −y;
//! - **inline `elevation`**: MuJoCo's XML reader reverses the rows (the text is written top row
//!   first), so the caller must reverse them before calling [`build_hfield`].
//!
//! PNG pixels become grey the way lodepng converts to 8-bit `LCT_GREY`: the grey (or **red**, for
//! RGB, RGBA and palette images) channel, the high byte of 16-bit samples, alpha ignored; low
//! bit depths are scaled to 0–255.

use collide::math::EPS;
use collide::HField;

/// Largest decoded PNG buffer accepted (bytes), to keep hostile headers from exhausting memory.
const PNG_MAX_BYTES: usize = 1 << 28;

/// Decodes a PNG (8/16-bit, grey/RGB/RGBA/palette: converted to grey as MuJoCo does; rows
/// reversed so row 0 is at −y) into `(nrow, ncol, raw elevation values 0..=255)`.
pub fn decode_hfield_png(name: &str, bytes: &[u8]) -> Result<(usize, usize, Vec<f32>), String> {
    if bytes.is_empty() {
        return Err(format!("empty PNG file '{name}'"));
    }
    let err = |e: png::DecodingError| format!("error decoding PNG file '{name}': {e}");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(err)?;
    let (width, height) = reader.info().size();
    let (ncol, nrow) = (width as usize, height as usize);
    if ncol == 0 || nrow == 0 {
        return Err(format!(
            "error decoding PNG file '{name}': dimensions are invalid"
        ));
    }
    let (color, depth) = reader.output_color_type();
    let line = reader.output_line_size(width);
    let size = line
        .checked_mul(nrow)
        .filter(|&s| s <= PNG_MAX_BYTES)
        .ok_or_else(|| format!("PNG file '{name}' is too large ({width}x{height})"))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(err)?;
    let channels = match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(format!(
                "error decoding PNG file '{name}': palette was not expanded"
            ))
        }
    };
    let sample_bytes = match depth {
        png::BitDepth::Eight => 1,
        png::BitDepth::Sixteen => 2,
        _ => {
            return Err(format!(
                "error decoding PNG file '{name}': unexpected bit depth {depth:?} after expansion"
            ))
        }
    };
    let pixel = channels * sample_bytes;
    let line = info.line_size;
    let mut data = Vec::with_capacity(nrow * ncol);
    for r in 0..nrow {
        let src_row = nrow - 1 - r;
        for c in 0..ncol {
            // first byte of the first channel: grey or red, high byte for 16-bit samples
            let at = src_row
                .checked_mul(line)
                .and_then(|o| o.checked_add(c.checked_mul(pixel)?))
                .ok_or_else(|| format!("PNG file '{name}' is too large"))?;
            let v = *buf
                .get(at)
                .ok_or_else(|| format!("error decoding PNG file '{name}': short image data"))?;
            data.push(v as f32);
        }
    }
    Ok((nrow, ncol, data))
}

/// Decodes MuJoCo's custom binary height field: `int32 nrow, int32 ncol, float32[nrow*ncol]`
/// (little-endian), with an exact size check. Rows are returned as stored (MuJoCo does not
/// reverse them for this format): the first stored row is at −y.
pub fn decode_hfield_bin(name: &str, bytes: &[u8]) -> Result<(usize, usize, Vec<f32>), String> {
    if bytes.is_empty() {
        return Err(format!("empty hfield file '{name}'"));
    }
    if bytes.len() < 8 {
        return Err(format!(
            "hfield missing header '{name}': {} bytes, need at least 8",
            bytes.len()
        ));
    }
    let nrow = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let ncol = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if nrow < 1 || ncol < 1 {
        return Err(format!(
            "non-positive hfield dimensions in file '{name}': nrow {nrow}, ncol {ncol}"
        ));
    }
    let (nrow, ncol) = (nrow as usize, ncol as usize);
    let expect = (nrow as u64) * (ncol as u64) * 4 + 8; // < 2^64: both factors < 2^31
    if expect != bytes.len() as u64 {
        return Err(format!(
            "unexpected file size in file '{name}': expected 8+4*{nrow}*{ncol} = {expect} bytes, got {}",
            bytes.len()
        ));
    }
    let data = bytes[8..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((nrow, ncol, data))
}

/// Normalizes raw elevations to [0, 1] the way MuJoCo does (`(d − min)/(max − min)` in `f32`,
/// only the shift when `max − min ≤ mjEPS`) and builds the [`HField`]. Also used for the inline
/// `elevation` attribute, whose rows the caller must already have reversed (MuJoCo's order:
/// row 0 at −y). Validates `size` (4 positive finite numbers), `nrow`/`ncol` ≥ 2, the data
/// length and finiteness.
pub fn build_hfield(
    name: &str,
    size: [f64; 4],
    nrow: usize,
    ncol: usize,
    mut data: Vec<f32>,
) -> Result<HField, String> {
    if let Some(i) = size.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(format!(
            "hfield '{name}': size parameter {} ({}) is not positive and finite",
            i + 1,
            size[i]
        ));
    }
    if nrow < 2 || ncol < 2 {
        return Err(format!(
            "hfield '{name}': dimensions must be at least 2, got nrow {nrow}, ncol {ncol}"
        ));
    }
    let n = nrow
        .checked_mul(ncol)
        .ok_or_else(|| format!("hfield '{name}': nrow*ncol overflows"))?;
    if data.len() != n {
        return Err(format!(
            "hfield '{name}': elevation data length {} must match nrow*ncol = {n}",
            data.len()
        ));
    }
    if let Some(i) = data.iter().position(|d| !d.is_finite()) {
        return Err(format!(
            "hfield '{name}': elevation value {i} is not finite"
        ));
    }
    // MuJoCo starts the range at (1e10, -1e10) in float
    let (mut emin, mut emax) = (1e10f32, -1e10f32);
    for &d in &data {
        emin = emin.min(d);
        emax = emax.max(d);
    }
    let range = emax - emin;
    for d in data.iter_mut() {
        *d -= emin;
        if range as f64 > EPS {
            *d /= range;
        }
    }
    Ok(HField {
        name: name.to_string(),
        size,
        nrow,
        ncol,
        data,
    })
}
