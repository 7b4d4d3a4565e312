//! Two `f64` lanes with the IEEE operations the mid phase's box test needs. On x86-64 they are
//! one SSE2 register (SSE2 is part of the x86-64 baseline: the intrinsics are called in
//! `unsafe` blocks only because Rust asks it of every `#[target_feature]` function); elsewhere
//! two scalars. Every operation rounds each lane exactly as the scalar operation does (no fused
//! multiply-add), so the lane form of a computation equals its scalar form bit for bit.

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use std::arch::x86_64::{
    __m128d, _mm_add_pd, _mm_andnot_pd, _mm_cmplt_pd, _mm_movemask_pd, _mm_mul_pd, _mm_set1_pd,
    _mm_set_pd, _mm_setzero_pd, _mm_sub_pd,
};

/// Two lanes of `f64`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[derive(Clone, Copy, Debug)]
pub struct Lanes(__m128d);

/// Two lanes of `f64`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[derive(Clone, Copy, Debug)]
pub struct Lanes([f64; 2]);

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
impl Lanes {
    /// Lanes `(a, b)`.
    #[inline(always)]
    pub fn new(a: f64, b: f64) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_set_pd(b, a)) }
    }
    /// Both lanes `x`.
    #[inline(always)]
    pub fn splat(x: f64) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_set1_pd(x)) }
    }
    /// Zeros.
    #[inline(always)]
    pub fn zero() -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_setzero_pd()) }
    }
    /// Lane-wise sum.
    #[inline(always)]
    pub fn add(self, o: Lanes) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_add_pd(self.0, o.0)) }
    }
    /// Lane-wise difference.
    #[inline(always)]
    pub fn sub(self, o: Lanes) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_sub_pd(self.0, o.0)) }
    }
    /// Lane-wise product.
    #[inline(always)]
    pub fn mul(self, o: Lanes) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_mul_pd(self.0, o.0)) }
    }
    /// Lane-wise absolute value (the sign bit cleared, as `f64::abs`).
    #[inline(always)]
    pub fn abs(self) -> Lanes {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { Lanes(_mm_andnot_pd(_mm_set1_pd(-0.0), self.0)) }
    }
    /// Bit `k` set when lane `k` of `self` is less than lane `k` of `o` (false for NaN).
    #[inline(always)]
    pub fn lt_mask(self, o: Lanes) -> u32 {
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe { _mm_movemask_pd(_mm_cmplt_pd(self.0, o.0)) as u32 }
    }
    /// The two lanes.
    #[cfg(test)]
    pub fn to_array(self) -> [f64; 2] {
        use std::arch::x86_64::{_mm_cvtsd_f64, _mm_unpackhi_pd};
        // SAFETY: SSE2 is enabled for this target (cfg above)
        unsafe {
            [
                _mm_cvtsd_f64(self.0),
                _mm_cvtsd_f64(_mm_unpackhi_pd(self.0, self.0)),
            ]
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
impl Lanes {
    /// Lanes `(a, b)`.
    #[inline(always)]
    pub fn new(a: f64, b: f64) -> Lanes {
        Lanes([a, b])
    }
    /// Both lanes `x`.
    #[inline(always)]
    pub fn splat(x: f64) -> Lanes {
        Lanes([x, x])
    }
    /// Zeros.
    #[inline(always)]
    pub fn zero() -> Lanes {
        Lanes([0.0, 0.0])
    }
    /// Lane-wise sum.
    #[inline(always)]
    pub fn add(self, o: Lanes) -> Lanes {
        Lanes([self.0[0] + o.0[0], self.0[1] + o.0[1]])
    }
    /// Lane-wise difference.
    #[inline(always)]
    pub fn sub(self, o: Lanes) -> Lanes {
        Lanes([self.0[0] - o.0[0], self.0[1] - o.0[1]])
    }
    /// Lane-wise product.
    #[inline(always)]
    pub fn mul(self, o: Lanes) -> Lanes {
        Lanes([self.0[0] * o.0[0], self.0[1] * o.0[1]])
    }
    /// Lane-wise absolute value.
    #[inline(always)]
    pub fn abs(self) -> Lanes {
        Lanes([self.0[0].abs(), self.0[1].abs()])
    }
    /// Bit `k` set when lane `k` of `self` is less than lane `k` of `o` (false for NaN).
    #[inline(always)]
    pub fn lt_mask(self, o: Lanes) -> u32 {
        u32::from(self.0[0] < o.0[0]) | (u32::from(self.0[1] < o.0[1]) << 1)
    }
    /// The two lanes.
    #[cfg(test)]
    pub fn to_array(self) -> [f64; 2] {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_round_as_scalars() {
        let v = [
            0.1,
            -3.7e-17,
            1e300,
            -2.5,
            f64::MIN_POSITIVE,
            7.0 / 3.0,
            -0.0,
            f64::NAN,
        ];
        let bits = |l: Lanes| l.to_array().map(f64::to_bits);
        for &a in &v {
            for &b in &v {
                let (x, y) = (Lanes::new(a, b), Lanes::new(b, a));
                assert_eq!(bits(x), [a.to_bits(), b.to_bits()]);
                assert_eq!(bits(x.add(y)), [(a + b).to_bits(), (b + a).to_bits()]);
                assert_eq!(bits(x.sub(y)), [(a - b).to_bits(), (b - a).to_bits()]);
                assert_eq!(bits(x.mul(y)), [(a * b).to_bits(), (b * a).to_bits()]);
                assert_eq!(bits(x.abs()), [a.abs().to_bits(), b.abs().to_bits()]);
                assert_eq!(bits(Lanes::splat(a)), [a.to_bits(), a.to_bits()]);
                assert_eq!(bits(Lanes::zero()), [0, 0]);
                assert_eq!(x.lt_mask(y), u32::from(a < b) | (u32::from(b < a) << 1));
            }
        }
    }
}
