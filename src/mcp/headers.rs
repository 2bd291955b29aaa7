//! 2026-07-28 headers read from a body, pure: values encoded, `x-mcp-header` checked and mirrored.

mod annotations;

use serde_json::{Number, Value};

pub use annotations::{MAX_SCHEMA_DEPTH, header_params};

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";
/// 2^53 − 1: the spec bounds mirrored integers to what a JavaScript number holds exactly.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
const MAX_SAFE_INTEGER_FLOAT: f64 = 9_007_199_254_740_991.0;

/// A header value as the spec writes it: as is when it is visible ASCII or inner spaces and
/// could not be mistaken for an encoded value, otherwise `=?base64?…?=` of its UTF-8.
pub fn encode_value(value: &str) -> String {
    let visible = value.bytes().all(|byte| (0x20..=0x7e).contains(&byte));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    // Prefix and suffix may overlap (`=?base64?=`): a decoder testing each on its own would
    // still take it for encoded, so it is encoded.
    let looks_encoded = value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX);
    if visible && !padded && !looks_encoded {
        value.to_owned()
    } else {
        format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            base64(value.as_bytes())
        )
    }
}

/// Standard base64 (RFC 4648 alphabet) with `=` padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (i, &byte)| {
            group | u32::from(byte) << (16 - 8 * i)
        });
        // n bytes carry 8n bits, which need n + 1 six-bit digits; `=` fills the rest of four.
        for digit in 0..4 {
            if digit <= chunk.len() {
                let sextet = (group >> (18 - 6 * digit)) & 0x3f;
                out.push(char::from(ALPHABET[sextet as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The annotation's value, the `{name}` of `Mcp-Param-{name}` (e.g. `Region`).
    pub header: String,
    /// The `properties` keys from the schema root to the annotated property: also where its
    /// value sits in the call's `arguments`.
    pub path: Vec<String>,
}

/// The `Mcp-Param-*` headers a `tools/call` with `arguments` carries, values encoded.
///
/// A value that is missing or null sends no header, as the spec says. Strings go as they are,
/// booleans as `true`/`false`, integers in decimal. A number with a zero fraction (`42.0`) is
/// an integer to JSON Schema and compares equal on the server, so it goes as `42`. A number
/// with a fraction, or beyond ±(2^53 − 1), and arrays and objects send no header: the schema
/// did not allow them, and the server's `HeaderMismatch` says so better than a guess would.
pub fn param_headers(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|param| {
            let value = param
                .path
                .iter()
                .try_fold(arguments, |object, name| object.get(name))?;
            let text = header_text(value)?;
            Some((format!("Mcp-Param-{}", param.header), encode_value(&text)))
        })
        .collect()
}

fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => safe_integer(number).map(|integer| integer.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn safe_integer(number: &Number) -> Option<i64> {
    if let Some(integer) = number.as_i64() {
        return (integer.unsigned_abs() <= MAX_SAFE_INTEGER).then_some(integer);
    }
    if number.is_u64() {
        return None; // above i64::MAX, far outside the safe range
    }
    let float = number.as_f64()?;
    #[allow(clippy::cast_possible_truncation)] // integral and within ±2^53, so exact
    let integer = float as i64;
    (float.fract() == 0.0 && float.abs() <= MAX_SAFE_INTEGER_FLOAT).then_some(integer)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{HeaderParam, encode_value, param_headers};

    fn param(header: &str, path: &[&str]) -> HeaderParam {
        HeaderParam {
            header: header.to_owned(),
            path: path.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    #[test]
    fn values_encode_as_the_spec_table_shows() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn values_on_the_edges_of_plain() {
        assert_eq!(encode_value(""), "");
        assert_eq!(encode_value("a b ~!"), "a b ~!");
        assert_eq!(encode_value("trailing "), "=?base64?dHJhaWxpbmcg?=");
        assert_eq!(encode_value("tab\there"), "=?base64?dGFiCWhlcmU=?=");
        assert_eq!(encode_value("del\u{7f}"), "=?base64?ZGVsfw==?=");
        // Overlapping prefix and suffix still look encoded to a decoder.
        assert_eq!(encode_value("=?base64?="), "=?base64?PT9iYXNlNjQ/PQ==?=");
        assert_eq!(encode_value("=?base64?abc"), "=?base64?abc");
        assert_eq!(encode_value("x=?base64?abc?="), "x=?base64?abc?=");
    }

    #[test]
    fn base64_pads_each_remainder() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }

    #[test]
    fn missing_and_null_values_send_no_header() {
        let params = [
            param("Region", &["region"]),
            param("Limit", &["options", "limit"]),
        ];
        let none: [(String, String); 0] = [];
        for arguments in [
            json!({}),
            json!({ "region": null, "options": null }),
            json!({ "options": { "limit": null } }),
            json!({ "options": "limit" }),
            json!({ "options": [5] }),
            json!(null),
            json!("region"),
        ] {
            assert_eq!(param_headers(&params, &arguments), none, "{arguments}");
        }
    }

    #[test]
    fn scalars_convert_to_header_text() {
        let params = [param("V", &["v"])];
        let header = |value: Value| param_headers(&params, &json!({ "v": value }));
        let sent = |text: &str| vec![("Mcp-Param-V".to_owned(), text.to_owned())];
        assert_eq!(header(json!(true)), sent("true"));
        assert_eq!(header(json!(false)), sent("false"));
        assert_eq!(header(json!(42)), sent("42"));
        assert_eq!(header(json!(-7)), sent("-7"));
        assert_eq!(header(json!(42.0)), sent("42"));
        assert_eq!(header(json!(-0.0)), sent("0"));
        assert_eq!(
            header(json!(9_007_199_254_740_991_i64)),
            sent("9007199254740991")
        );
        assert_eq!(
            header(json!(-9_007_199_254_740_991_i64)),
            sent("-9007199254740991")
        );
        assert_eq!(header(json!(" 42")), sent("=?base64?IDQy?="));
        assert_eq!(header(json!("")), sent(""));
        for omitted in [
            json!(1.5),
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_992_i64),
            json!(u64::MAX),
            json!(9_007_199_254_740_992.0),
            json!(1e300),
            json!([1]),
            json!({ "a": 1 }),
        ] {
            assert_eq!(header(omitted.clone()), vec![], "{omitted}");
        }
    }
}
