//! 4x4 homogeneous transforms between a device frame and the global frame.
//!
//! A transform is written as in the Spine config: rows split by `;`, values by
//! whitespace (`"0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1"`; extra spaces are fine). It is
//! applied to the column `[x y z 1]` made of the first three values of an item; the
//! result is divided by `w` when the last row is not `0 0 0 1`. Values after the third
//! (e.g. a confidence) pass through; items with fewer than three values are unchanged.
//!
//! Inputs use `p_global = T · p_device`, outputs `p_device = T⁻¹ · p_global`.
//! (Fix: the original dropped any result equal to exactly 1.0; nothing is dropped here.)

use nalgebra::{Matrix4, Vector4};

use crate::Item;

/// Why a matrix string could not be parsed (wrapped by [`crate::LoadError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatrixError {
    /// The string did not have 4 rows separated by `;`.
    #[error("has {found} rows, expected 4")]
    RowCount {
        /// Rows found.
        found: usize,
    },
    /// A row did not have 4 values (`row` counts from 1).
    #[error("row {row} has {found} values, expected 4")]
    RowLength {
        /// Row number, from 1.
        row: usize,
        /// Values found in that row.
        found: usize,
    },
    /// A value is not a number (`row`, `col` count from 1).
    #[error("row {row} value {col} {text:?} is not a number")]
    NotANumber {
        /// Row number, from 1.
        row: usize,
        /// Column number, from 1.
        col: usize,
        /// The text that failed to parse.
        text: String,
    },
    /// A value is NaN or infinite.
    #[error("row {row} value {col} is not finite")]
    NotFinite {
        /// Row number, from 1.
        row: usize,
        /// Column number, from 1.
        col: usize,
    },
}

/// A 4x4 homogeneous transform (row-major as written in the config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    m: Matrix4<f64>,
    /// True when the last row is exactly `0 0 0 1`, so no division by `w` is needed.
    affine: bool,
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The identity transform (the config's usual `default`).
    pub fn identity() -> Self {
        Self::from_matrix(Matrix4::identity())
    }

    /// Wraps a matrix.
    pub fn from_matrix(m: Matrix4<f64>) -> Self {
        let affine = m[(3, 0)] == 0.0 && m[(3, 1)] == 0.0 && m[(3, 2)] == 0.0 && m[(3, 3)] == 1.0;
        Self { m, affine }
    }

    /// Parses the config's matrix string.
    ///
    /// # Errors
    /// [`MatrixError`] when there are not exactly 4 rows of 4 finite numbers.
    pub fn parse(text: &str) -> Result<Self, MatrixError> {
        let rows: Vec<&str> = text.split(';').collect();
        if rows.len() != 4 {
            return Err(MatrixError::RowCount { found: rows.len() });
        }
        let mut m = Matrix4::zeros();
        for (r, row) in rows.iter().enumerate() {
            let values: Vec<&str> = row.split_whitespace().collect();
            if values.len() != 4 {
                return Err(MatrixError::RowLength {
                    row: r + 1,
                    found: values.len(),
                });
            }
            for (c, v) in values.iter().enumerate() {
                let x: f64 = v.parse().map_err(|_| MatrixError::NotANumber {
                    row: r + 1,
                    col: c + 1,
                    text: (*v).to_string(),
                })?;
                if !x.is_finite() {
                    return Err(MatrixError::NotFinite {
                        row: r + 1,
                        col: c + 1,
                    });
                }
                m[(r, c)] = x;
            }
        }
        Ok(Self::from_matrix(m))
    }

    /// The matrix.
    pub fn matrix(&self) -> &Matrix4<f64> {
        &self.m
    }

    /// The inverse transform, or `None` when the matrix is singular (or its inverse is
    /// not finite).
    pub fn inverse(&self) -> Option<Self> {
        let inv = self.m.try_inverse()?;
        if inv.iter().all(|x| x.is_finite()) {
            Some(Self::from_matrix(inv))
        } else {
            None
        }
    }

    /// Applies the transform to the first three values of `item`; the rest pass through.
    /// Items with fewer than three values are returned unchanged. The result may be
    /// non-finite for a projective matrix with `w = 0`: callers check.
    pub fn apply(&self, item: &[f64]) -> Item {
        let mut out = item.to_vec();
        self.apply_in_place(&mut out);
        out
    }

    /// In-place form of [`Transform::apply`].
    pub fn apply_in_place(&self, item: &mut [f64]) {
        if item.len() < 3 {
            return;
        }
        let p = self.m * Vector4::new(item[0], item[1], item[2], 1.0);
        let (x, y, z) = if self.affine {
            (p[0], p[1], p[2])
        } else {
            (p[0] / p[3], p[1] / p[3], p[2] / p[3])
        };
        item[0] = x;
        item[1] = y;
        item[2] = z;
    }

    /// Applies the transform to every item.
    pub fn apply_all(&self, items: &[Item]) -> Vec<Item> {
        items.iter().map(|i| self.apply(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_extra_spaces() {
        let t = Transform::parse("-0.5 0 0 160;0 -0.5 0 240; 0 0 -0.333333 233.31313131;0 0 0 1")
            .unwrap();
        assert_eq!(t.matrix()[(2, 3)], 233.31313131);
        assert_eq!(t.matrix()[(0, 0)], -0.5);
    }

    #[test]
    fn reports_short_row() {
        assert_eq!(
            Transform::parse("1 0 0 0;0 1 0 0;0 0 1;0 0 0 1"),
            Err(MatrixError::RowLength { row: 3, found: 3 })
        );
        assert_eq!(
            Transform::parse("1 0 0 0;0 1 0 0"),
            Err(MatrixError::RowCount { found: 2 })
        );
        assert!(matches!(
            Transform::parse("1 0 0 0;0 x 0 0;0 0 1 0;0 0 0 1"),
            Err(MatrixError::NotANumber { row: 2, col: 2, .. })
        ));
        assert_eq!(
            Transform::parse("1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 inf"),
            Err(MatrixError::NotFinite { row: 4, col: 4 })
        );
    }

    #[test]
    fn extras_pass_through_and_short_items_unchanged() {
        let t = Transform::parse("1 0 0 10;0 1 0 20;0 0 1 30;0 0 0 1").unwrap();
        assert_eq!(t.apply(&[1.0, 2.0, 3.0, 0.9]), vec![11.0, 22.0, 33.0, 0.9]);
        assert_eq!(t.apply(&[1.0, 2.0]), vec![1.0, 2.0]);
        assert_eq!(t.apply(&[]), Vec::<f64>::new());
    }

    /// The original dropped any transformed value equal to exactly 1.0.
    #[test]
    fn spine_kept_results_equal_to_one() {
        let t = Transform::identity();
        assert_eq!(t.apply(&[1.0, 1.0, 1.0]), vec![1.0, 1.0, 1.0]);
    }

    #[test]
    fn projective_divides_by_w() {
        let t = Transform::parse("1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 2").unwrap();
        assert_eq!(t.apply(&[2.0, 4.0, 6.0]), vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn singular_has_no_inverse() {
        let t = Transform::parse("1 0 0 0;0 1 0 0;0 0 0 0;0 0 0 1").unwrap();
        assert!(t.inverse().is_none());
    }
}
