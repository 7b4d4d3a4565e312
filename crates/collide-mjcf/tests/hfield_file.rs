//! Height-field decoding and normalization. Expected values were recorded from MuJoCo 4.0.0
//! (`m.hfield_data`) with this Python (run in `tests/data/mesh/`):
//!
//! ```python
//! import mujoco, numpy as np, struct, zlib
//! def png(w, h, ctype, depth, rows, plte=None):
//!     def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
//!     raw = b"".join(b"\0" + r for r in rows)
//!     out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
//!     if plte: out += chunk(b"PLTE", plte)
//!     return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
//! def hfield(name, data):
//!     xml = f'<mujoco><asset><hfield name="h" file="{name}" size="1 1 1 0.1"/></asset></mujoco>'
//!     m = mujoco.MjModel.from_xml_string(xml, {name: data})
//!     return m.hfield_nrow[0], m.hfield_ncol[0], [float(x) for x in m.hfield_data]
//! for name in ["hfield_grey.png", "hfield_rgb.png", "hfield_grey16.png", "hfield.bin"]:
//!     print(name, hfield(name, open(name, "rb").read()))
//! print("palette", hfield("p.png", png(3, 2, 3, 8, [bytes([0, 1, 2]), bytes([2, 1, 0])],
//!                                        plte=bytes([10,200,30, 90,0,0, 255,1,2]))))
//! print("grey+alpha", hfield("ga.png", png(3, 2, 4, 8, [bytes([10,0,20,255,30,7]), bytes([40,1,50,2,60,3])])))
//! m = mujoco.MjModel.from_xml_string('<mujoco><asset><hfield name="h" nrow="2" ncol="3" '
//!     'elevation="0.1 0.2 0.3 0.7 0.9 1.3" size="1 1 1 0.1"/></asset></mujoco>')
//! print("inline", [float(x) for x in m.hfield_data])
//! m = mujoco.MjModel.from_xml_string('<mujoco><asset><hfield name="h" nrow="2" ncol="2" '
//!     'elevation="2e10 3e10 4e10 2e10" size="1 1 1 0.1"/></asset></mujoco>')
//! print("inline big", [float(x) for x in m.hfield_data])
//! ```
//!
//! The data files were written by the `gen_data.py` quoted in `tests/mesh_oracle.rs`.

use collide_mjcf::hfield_file::{build_hfield, decode_hfield_bin, decode_hfield_png};

const SIZE: [f64; 4] = [1.0, 1.0, 1.0, 0.1];

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/mesh/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn encode(
    w: u32,
    h: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    palette: Option<&[u8]>,
    pixels: &[u8],
) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(color);
        e.set_depth(depth);
        if let Some(p) = palette {
            e.set_palette(p.to_vec());
        }
        let mut writer = e.write_header().unwrap();
        writer.write_image_data(pixels).unwrap();
    }
    out
}

/// Decodes and normalizes, checking against MuJoCo's `hfield_data` exactly.
fn check(decoded: (usize, usize, Vec<f32>), raw: &[f32], mujoco: &[f64]) {
    let (nrow, ncol, d) = decoded;
    assert_eq!((nrow, ncol), (2, 3));
    assert_eq!(d, raw);
    let h = build_hfield("h", SIZE, nrow, ncol, d).unwrap();
    let got: Vec<f64> = h.data.iter().map(|&x| x as f64).collect();
    assert_eq!(got, mujoco);
}

#[test]
fn grey_png_rows_reversed() {
    let d = decode_hfield_png("g.png", &data("hfield_grey.png")).unwrap();
    let mj = [
        0.11764705926179886,
        0.1568627506494522,
        1.0,
        0.0,
        0.03921568766236305,
        0.0784313753247261,
    ];
    check(d, &[30.0, 40.0, 255.0, 0.0, 10.0, 20.0], &mj);
}

#[test]
fn rgb_png_uses_the_red_channel() {
    let d = decode_hfield_png("c.png", &data("hfield_rgb.png")).unwrap();
    let mj = [0.19607843458652496, 1.0, 0.0, 0.3921568691730499, 0.0, 0.0];
    check(d, &[50.0, 255.0, 0.0, 100.0, 0.0, 0.0], &mj);
    // RGBA: alpha ignored
    let px = [
        100, 0, 0, 7, 0, 100, 0, 8, 0, 0, 100, 9, 50, 60, 70, 1, 255, 255, 255, 0, 0, 0, 0, 255,
    ];
    let png = encode(3, 2, png::ColorType::Rgba, png::BitDepth::Eight, None, &px);
    check(
        decode_hfield_png("a.png", &png).unwrap(),
        &[50.0, 255.0, 0.0, 100.0, 0.0, 0.0],
        &mj,
    );
}

#[test]
fn sixteen_bit_png_uses_the_high_byte() {
    let d = decode_hfield_png("s.png", &data("hfield_grey16.png")).unwrap();
    let mj = [
        0.0,
        0.0,
        0.003921568859368563,
        0.07058823853731155,
        0.501960813999176,
        1.0,
    ];
    check(d, &[0.0, 0.0, 1.0, 18.0, 128.0, 255.0], &mj);
}

#[test]
fn palette_and_grey_alpha_png() {
    let plte = [10, 200, 30, 90, 0, 0, 255, 1, 2];
    let png = encode(
        3,
        2,
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        Some(&plte),
        &[0, 1, 2, 2, 1, 0],
    );
    let mj = [1.0, 0.3265306055545807, 0.0, 0.0, 0.3265306055545807, 1.0];
    check(
        decode_hfield_png("p.png", &png).unwrap(),
        &[255.0, 90.0, 10.0, 10.0, 90.0, 255.0],
        &mj,
    );

    let px = [10, 0, 20, 255, 30, 7, 40, 1, 50, 2, 60, 3];
    let png = encode(
        3,
        2,
        png::ColorType::GrayscaleAlpha,
        png::BitDepth::Eight,
        None,
        &px,
    );
    let mj = [
        0.6000000238418579,
        0.800000011920929,
        1.0,
        0.0,
        0.20000000298023224,
        0.4000000059604645,
    ];
    check(
        decode_hfield_png("ga.png", &png).unwrap(),
        &[40.0, 50.0, 60.0, 10.0, 20.0, 30.0],
        &mj,
    );
}

#[test]
fn low_bit_depth_grey_is_scaled_to_255() {
    // 2-bit grey, 4 pixels per row: values 0..3 scale by 85
    let png = encode(
        4,
        2,
        png::ColorType::Grayscale,
        png::BitDepth::Two,
        None,
        &[0b0001_1011, 0b1110_0100],
    );
    let (nrow, ncol, d) = decode_hfield_png("b.png", &png).unwrap();
    assert_eq!((nrow, ncol), (2, 4));
    assert_eq!(d, [255.0, 170.0, 85.0, 0.0, 0.0, 85.0, 170.0, 255.0]);
}

#[test]
fn binary_rows_as_stored() {
    let d = decode_hfield_bin("h.bin", &data("hfield.bin")).unwrap();
    let mj = [
        0.0,
        0.20000000298023224,
        0.4000000059604645,
        0.6000000238418579,
        0.800000011920929,
        1.0,
    ];
    check(d, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &mj);
}

#[test]
fn inline_elevation_normalization() {
    // the caller reverses the XML rows: "0.1 0.2 0.3 / 0.7 0.9 1.3" becomes this
    let h = build_hfield("h", SIZE, 2, 3, vec![0.7, 0.9, 1.3, 0.1, 0.2, 0.3]).unwrap();
    let got: Vec<f64> = h.data.iter().map(|&x| x as f64).collect();
    assert_eq!(
        got,
        [
            0.5,
            0.6666666865348816,
            1.0,
            0.0,
            0.0833333432674408,
            0.1666666865348816
        ]
    );
    assert_eq!((h.name.as_str(), h.size, h.nrow, h.ncol), ("h", SIZE, 2, 3));
    // MuJoCo starts the range at (1e10, -1e10): values above 1e10 are shifted by 1e10 only
    let h = build_hfield("h", SIZE, 2, 2, vec![4e10, 2e10, 2e10, 3e10]).unwrap();
    let got: Vec<f64> = h.data.iter().map(|&x| x as f64).collect();
    assert_eq!(
        got,
        [
            1.0,
            0.3333333134651184,
            0.3333333134651184,
            0.6666666865348816
        ]
    );
    // a flat field is shifted to 0, not divided
    let h = build_hfield("h", SIZE, 2, 2, vec![3.0; 4]).unwrap();
    assert_eq!(h.data, [0.0; 4]);
}

#[test]
fn build_errors() {
    let e = build_hfield("h", SIZE, 1, 3, vec![0.0; 3]).unwrap_err();
    assert!(e.contains("at least 2"), "{e}");
    let e = build_hfield("h", SIZE, 2, 3, vec![0.0; 5]).unwrap_err();
    assert!(e.contains("must match nrow*ncol"), "{e}");
    let e = build_hfield("h", [1.0, 0.0, 1.0, 1.0], 2, 2, vec![0.0; 4]).unwrap_err();
    assert!(e.contains("size parameter 2"), "{e}");
    assert!(build_hfield("h", [1.0, 1.0, f64::INFINITY, 1.0], 2, 2, vec![0.0; 4]).is_err());
    let e = build_hfield("h", SIZE, 2, 2, vec![0.0, f32::NAN, 1.0, 2.0]).unwrap_err();
    assert!(e.contains("elevation value 1 is not finite"), "{e}");
    assert!(build_hfield("h", SIZE, usize::MAX, 2, vec![])
        .unwrap_err()
        .contains("overflow"));
}

#[test]
fn decode_errors() {
    let bin = data("hfield.bin");
    let e = decode_hfield_bin("h.bin", &bin[..bin.len() - 2]).unwrap_err();
    assert!(
        e.contains("unexpected file size") && e.contains("got 30"),
        "{e}"
    );
    assert!(decode_hfield_bin("h.bin", &bin[..5])
        .unwrap_err()
        .contains("missing header"));
    assert!(decode_hfield_bin("h.bin", &[])
        .unwrap_err()
        .contains("empty"));
    let mut neg = bin.clone();
    neg[..4].copy_from_slice(&(-2i32).to_le_bytes());
    assert!(decode_hfield_bin("h.bin", &neg)
        .unwrap_err()
        .contains("non-positive"));
    let mut big = bin.clone();
    big[..8].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f]);
    assert!(decode_hfield_bin("h.bin", &big)
        .unwrap_err()
        .contains("unexpected file size"));

    let png = data("hfield_grey.png");
    for cut in [0, 8, 20, 40, 50] {
        assert!(
            decode_hfield_png("g.png", &png[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut bad = png.clone();
    bad[30] ^= 0x55; // breaks a checksum
    assert!(decode_hfield_png("g.png", &bad).is_err());
    assert!(decode_hfield_png("g.png", b"not a png")
        .unwrap_err()
        .contains("g.png"));
}
