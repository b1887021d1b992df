//! Field types and typed values: JSON ⇄ [`Value`] (range-checked) and [`Value`] ⇄ wire bytes.
//!
//! Wire encoding is little-endian for every multi-byte type; `bool` is one byte 0 or 1;
//! `float` is IEEE-754 binary32, `float64` binary64.

/// The type of one packet field, as written in a definition's `"type"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// `int8`: 1 byte, signed.
    Int8,
    /// `uint8`: 1 byte.
    UInt8,
    /// `int16`: 2 bytes little-endian, signed.
    Int16,
    /// `uint16`: 2 bytes little-endian.
    UInt16,
    /// `int32`: 4 bytes little-endian, signed.
    Int32,
    /// `uint32`: 4 bytes little-endian.
    UInt32,
    /// `bool`: 1 byte, 0 or 1.
    Bool,
    /// IEEE-754 binary32.
    Float,
    /// IEEE-754 binary64.
    Float64,
}

/// The type names accepted in definitions, for error messages.
pub const TYPE_NAMES: &str = "int8, uint8, int16, uint16, int32, uint32, bool, float, float64";

/// Why a JSON value could not become a [`Value`]; the caller adds packet and field names.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueProblem {
    /// JSON kind does not match (expected description, what was given).
    WrongType {
        /// The JSON kind the type needs.
        expected: &'static str,
        /// The JSON value given.
        got: String,
    },
    /// A number outside the type's range (the number as written).
    OutOfRange {
        /// The number given, as written.
        value: String,
    },
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueProblem::WrongType { expected, got } => {
                write!(f, "expected {expected}, got {got}")
            }
            ValueProblem::OutOfRange { value } => write!(f, "{value} is out of range"),
        }
    }
}

/// A typed field value. Its variant always matches the field's [`FieldType`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An `int8`.
    I8(i8),
    /// A `uint8`.
    U8(u8),
    /// An `int16`.
    I16(i16),
    /// A `uint16`.
    U16(u16),
    /// An `int32`.
    I32(i32),
    /// A `uint32`.
    U32(u32),
    /// `bool`: 1 byte, 0 or 1.
    Bool(bool),
    /// A `float32`.
    F32(f32),
    /// A `float64`.
    F64(f64),
}

impl FieldType {
    /// All types, for property tests and docs.
    pub const ALL: [FieldType; 9] = [
        FieldType::Int8,
        FieldType::UInt8,
        FieldType::Int16,
        FieldType::UInt16,
        FieldType::Int32,
        FieldType::UInt32,
        FieldType::Bool,
        FieldType::Float,
        FieldType::Float64,
    ];

    /// Parses a definition's type name (exact, lower case).
    pub fn from_name(name: &str) -> Option<FieldType> {
        FieldType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The name used in definitions.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::Int8 => "int8",
            FieldType::UInt8 => "uint8",
            FieldType::Int16 => "int16",
            FieldType::UInt16 => "uint16",
            FieldType::Int32 => "int32",
            FieldType::UInt32 => "uint32",
            FieldType::Bool => "bool",
            FieldType::Float => "float",
            FieldType::Float64 => "float64",
        }
    }

    /// Bytes on the wire.
    pub fn size(self) -> usize {
        match self {
            FieldType::Int8 | FieldType::UInt8 | FieldType::Bool => 1,
            FieldType::Int16 | FieldType::UInt16 => 2,
            FieldType::Int32 | FieldType::UInt32 | FieldType::Float => 4,
            FieldType::Float64 => 8,
        }
    }

    /// The value used when a definition gives no `default`.
    pub fn zero(self) -> Value {
        match self {
            FieldType::Int8 => Value::I8(0),
            FieldType::UInt8 => Value::U8(0),
            FieldType::Int16 => Value::I16(0),
            FieldType::UInt16 => Value::U16(0),
            FieldType::Int32 => Value::I32(0),
            FieldType::UInt32 => Value::U32(0),
            FieldType::Bool => Value::Bool(false),
            FieldType::Float => Value::F32(0.0),
            FieldType::Float64 => Value::F64(0.0),
        }
    }

    /// Converts JSON to a value of this type. Integers must be JSON integers in range;
    /// floats any finite number within range (binary32 rounds to nearest); bools
    /// `true`/`false` only. Nothing is clamped or coerced.
    pub fn from_json(self, json: &serde_json::Value) -> Result<Value, ValueProblem> {
        use serde_json::Value as J;
        let wrong = |expected: &'static str| ValueProblem::WrongType {
            expected,
            got: describe(json),
        };
        let range = || ValueProblem::OutOfRange {
            value: json.to_string(),
        };
        match self {
            FieldType::Bool => match json {
                J::Bool(b) => Ok(Value::Bool(*b)),
                _ => Err(wrong("true or false")),
            },
            FieldType::Float | FieldType::Float64 => {
                let x = match json {
                    J::Number(n) => n.as_f64().ok_or_else(range)?,
                    _ => return Err(wrong("a number")),
                };
                if !x.is_finite() {
                    return Err(range());
                }
                if self == FieldType::Float64 {
                    return Ok(Value::F64(x));
                }
                let y = x as f32;
                if y.is_finite() {
                    Ok(Value::F32(y))
                } else {
                    Err(range())
                }
            }
            _ => {
                let n = match json {
                    J::Number(n) => n,
                    _ => return Err(wrong("an integer")),
                };
                // u64 covers what i64 does not (and vice versa); floats are not integers.
                let v: i128 = match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) => i128::from(i),
                    (None, Some(u)) => i128::from(u),
                    (None, None) => return Err(wrong("an integer")),
                };
                let out = match self {
                    FieldType::Int8 => i8::try_from(v).map(Value::I8).ok(),
                    FieldType::UInt8 => u8::try_from(v).map(Value::U8).ok(),
                    FieldType::Int16 => i16::try_from(v).map(Value::I16).ok(),
                    FieldType::UInt16 => u16::try_from(v).map(Value::U16).ok(),
                    FieldType::Int32 => i32::try_from(v).map(Value::I32).ok(),
                    FieldType::UInt32 => u32::try_from(v).map(Value::U32).ok(),
                    FieldType::Bool | FieldType::Float | FieldType::Float64 => None,
                };
                out.ok_or_else(range)
            }
        }
    }

    /// Reads one value from the start of `bytes`. `None` if too short, or for a bool
    /// byte other than 0 or 1 (never guessed).
    pub fn read(self, bytes: &[u8]) -> Option<Value> {
        let b = bytes.get(..self.size())?;
        let v = match self {
            FieldType::Int8 => Value::I8(i8::from_le_bytes([b[0]])),
            FieldType::UInt8 => Value::U8(b[0]),
            FieldType::Int16 => Value::I16(i16::from_le_bytes([b[0], b[1]])),
            FieldType::UInt16 => Value::U16(u16::from_le_bytes([b[0], b[1]])),
            FieldType::Int32 => Value::I32(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            FieldType::UInt32 => Value::U32(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            FieldType::Bool => match b[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                _ => return None,
            },
            FieldType::Float => Value::F32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            FieldType::Float64 => Value::F64(f64::from_le_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ])),
        };
        Some(v)
    }
}

impl Value {
    /// The type this value encodes as.
    pub fn field_type(&self) -> FieldType {
        match self {
            Value::I8(_) => FieldType::Int8,
            Value::U8(_) => FieldType::UInt8,
            Value::I16(_) => FieldType::Int16,
            Value::U16(_) => FieldType::UInt16,
            Value::I32(_) => FieldType::Int32,
            Value::U32(_) => FieldType::UInt32,
            Value::Bool(_) => FieldType::Bool,
            Value::F32(_) => FieldType::Float,
            Value::F64(_) => FieldType::Float64,
        }
    }

    /// Appends the little-endian wire bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        match *self {
            Value::I8(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U8(v) => out.push(v),
            Value::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Bool(v) => out.push(u8::from(v)),
            Value::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
        }
    }

    /// JSON form. A binary32 is written with its shortest decimal form (0.6, not
    /// 0.6000000238…), which reads back to the same bits. NaN and infinities, which only
    /// the wire can produce, become `null`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        let float = |x: f64| serde_json::Number::from_f64(x).map_or(J::Null, J::Number);
        match *self {
            Value::I8(v) => J::from(v),
            Value::U8(v) => J::from(v),
            Value::I16(v) => J::from(v),
            Value::U16(v) => J::from(v),
            Value::I32(v) => J::from(v),
            Value::U32(v) => J::from(v),
            Value::Bool(v) => J::Bool(v),
            Value::F32(v) => float(v.to_string().parse::<f64>().unwrap_or(f64::NAN)),
            Value::F64(v) => float(v),
        }
    }
}

/// Short description of a JSON value's kind for error messages.
fn describe(json: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match json {
        J::Null => "null".into(),
        J::Bool(b) => format!("bool {b}"),
        J::Number(n) => format!("number {n}"),
        J::String(s) => format!("string {s:?}"),
        J::Array(_) => "an array".into(),
        J::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_are_range_checked_never_clamped() {
        assert_eq!(FieldType::Int8.from_json(&json!(-128)), Ok(Value::I8(-128)));
        assert!(matches!(
            FieldType::Int8.from_json(&json!(128)),
            Err(ValueProblem::OutOfRange { .. })
        ));
        assert!(matches!(
            FieldType::UInt8.from_json(&json!(-1)),
            Err(ValueProblem::OutOfRange { .. })
        ));
        assert_eq!(
            FieldType::UInt32.from_json(&json!(4294967295u64)),
            Ok(Value::U32(u32::MAX))
        );
        assert!(matches!(
            FieldType::UInt32.from_json(&json!(u64::MAX)),
            Err(ValueProblem::OutOfRange { .. })
        ));
        assert!(matches!(
            FieldType::Int16.from_json(&json!(1.5)),
            Err(ValueProblem::WrongType { .. })
        ));
        assert!(matches!(
            FieldType::Int16.from_json(&json!("3")),
            Err(ValueProblem::WrongType { .. })
        ));
    }

    #[test]
    fn floats_and_bools() {
        assert_eq!(FieldType::Float.from_json(&json!(2)), Ok(Value::F32(2.0)));
        assert!(matches!(
            FieldType::Float.from_json(&json!(1e39)),
            Err(ValueProblem::OutOfRange { .. })
        ));
        assert_eq!(
            FieldType::Float64.from_json(&json!(1e39)),
            Ok(Value::F64(1e39))
        );
        assert_eq!(
            FieldType::Bool.from_json(&json!(true)),
            Ok(Value::Bool(true))
        );
        assert!(matches!(
            FieldType::Bool.from_json(&json!(1)),
            Err(ValueProblem::WrongType { .. })
        ));
    }

    #[test]
    fn f32_json_is_shortest_and_round_trips() {
        let v = Value::F32(0.6);
        assert_eq!(v.to_json(), json!(0.6));
        assert_eq!(FieldType::Float.from_json(&v.to_json()), Ok(v));
        assert_eq!(Value::F32(f32::NAN).to_json(), serde_json::Value::Null);
    }

    #[test]
    fn wire_round_trip_and_bad_bool() {
        for v in [
            Value::I16(-2),
            Value::U32(70000),
            Value::F64(-0.25),
            Value::Bool(true),
        ] {
            let mut buf = Vec::new();
            v.write(&mut buf);
            assert_eq!(buf.len(), v.field_type().size());
            assert_eq!(v.field_type().read(&buf), Some(v));
        }
        assert_eq!(FieldType::Bool.read(&[2]), None);
        assert_eq!(FieldType::Int32.read(&[1, 2, 3]), None);
    }

    #[test]
    fn names_round_trip() {
        for t in FieldType::ALL {
            assert_eq!(FieldType::from_name(t.name()), Some(t));
        }
        assert_eq!(FieldType::from_name("double"), None);
    }
}
