//! RFC 6570 URI templates, levels 1–4: parsing, the variable names a form asks for, and pure
//! expansion of JSON values (strings, numbers and booleans as text, arrays as lists, objects as
//! associative arrays, `null` and empty composites as undefined).

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// A parsed template: literal text and expressions, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression {
        operator: Operator,
        vars: Vec<VarSpec>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    /// `:n`: at most this many characters of a string value.
    prefix: Option<usize>,
    /// `*`: each member of a list or pair of a map as its own item.
    explode: bool,
}

/// The operators of RFC 6570 section 3.2, with the expansion table of its appendix A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParameter,
    Query,
    QueryContinuation,
}

impl Operator {
    fn of(c: char) -> Option<Self> {
        Some(match c {
            '+' => Operator::Reserved,
            '#' => Operator::Fragment,
            '.' => Operator::Label,
            '/' => Operator::Path,
            ';' => Operator::PathParameter,
            '?' => Operator::Query,
            '&' => Operator::QueryContinuation,
            _ => return None,
        })
    }

    fn first(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved => "",
            Operator::Fragment => "#",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParameter => ";",
            Operator::Query => "?",
            Operator::QueryContinuation => "&",
        }
    }

    fn separator(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ",",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParameter => ";",
            Operator::Query | Operator::QueryContinuation => "&",
        }
    }

    fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParameter | Operator::Query | Operator::QueryContinuation
        )
    }

    /// What follows a name whose value is empty.
    fn if_empty(self) -> &'static str {
        match self {
            Operator::Query | Operator::QueryContinuation => "=",
            _ => "",
        }
    }

    /// Reserved characters pass unencoded (`+` and `#`).
    fn allows_reserved(self) -> bool {
        matches!(self, Operator::Reserved | Operator::Fragment)
    }
}

impl UriTemplate {
    /// Parses `text`; an unclosed brace, an empty expression or a bad variable name is refused,
    /// saying where.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest
                        .find('}')
                        .ok_or_else(|| format!("unclosed '{{' in {text}"))?;
                    parts.push(parse_expression(&rest[1..end])?);
                    rest = &rest[end + 1..];
                }
                Some(start) => {
                    parts.push(Part::Literal(rest[..start].to_owned()));
                    rest = &rest[start..];
                }
                None => {
                    parts.push(Part::Literal(rest.to_owned()));
                    rest = "";
                }
            }
        }
        Ok(Self { parts })
    }

    /// The variables the template names, each once, in order of appearance.
    pub fn variables(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expression { vars, .. } = part {
                for var in vars {
                    if !names.contains(&var.name.as_str()) {
                        names.push(&var.name);
                    }
                }
            }
        }
        names
    }

    /// The URI for `values`; variables without a value are left out, as the RFC says.
    pub fn expand(&self, values: &Map<String, Value>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => encode_into(&mut out, text, true),
                Part::Expression { operator, vars } => {
                    expand_expression(&mut out, *operator, vars, values);
                }
            }
        }
        out
    }
}

fn parse_expression(body: &str) -> Result<Part, String> {
    let mut chars = body.chars();
    let (operator, list) = match chars.next().and_then(Operator::of) {
        Some(operator) => (operator, chars.as_str()),
        None => (Operator::Simple, body),
    };
    let vars = list
        .split(',')
        .map(parse_varspec)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Part::Expression { operator, vars })
}

fn parse_varspec(spec: &str) -> Result<VarSpec, String> {
    let (name, explode, prefix) = if let Some(name) = spec.strip_suffix('*') {
        (name, true, None)
    } else if let Some((name, length)) = spec.split_once(':') {
        let length = length
            .parse::<usize>()
            .ok()
            .filter(|length| (1..10_000).contains(length))
            .ok_or_else(|| format!("bad prefix length in '{{{spec}}}'"))?;
        (name, false, Some(length))
    } else {
        (spec, false, None)
    };
    let valid = !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'));
    if !valid {
        return Err(format!("bad variable name '{spec}'"));
    }
    Ok(VarSpec {
        name: name.to_owned(),
        prefix,
        explode,
    })
}

/// A value as the RFC sees it; `None` is undefined.
enum Defined<'a> {
    Text(String),
    List(&'a [Value]),
    Pairs(&'a Map<String, Value>),
}

fn defined(value: Option<&Value>) -> Option<Defined<'_>> {
    match value? {
        Value::Null => None,
        Value::Array(items) if items.is_empty() => None,
        Value::Object(pairs) if pairs.is_empty() => None,
        Value::Array(items) => Some(Defined::List(items)),
        Value::Object(pairs) => Some(Defined::Pairs(pairs)),
        scalar => scalar_text(scalar).map(Defined::Text),
    }
}

/// A list member or map value as text; nested composites have no expansion and are skipped.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn expand_expression(
    out: &mut String,
    operator: Operator,
    vars: &[VarSpec],
    values: &Map<String, Value>,
) {
    let reserved = operator.allows_reserved();
    let mut first = true;
    for var in vars {
        let Some(value) = defined(values.get(&var.name)) else {
            continue;
        };
        out.push_str(if first {
            operator.first()
        } else {
            operator.separator()
        });
        first = false;
        let name_equals = |out: &mut String, empty: bool| {
            out.push_str(&var.name);
            out.push_str(if empty { operator.if_empty() } else { "=" });
        };
        match value {
            Defined::Text(text) => {
                if operator.named() {
                    name_equals(out, text.is_empty());
                }
                let text = match var.prefix {
                    Some(length) => text.chars().take(length).collect(),
                    None => text,
                };
                encode_into(out, &text, reserved);
            }
            Defined::List(items) => {
                let items: Vec<String> = items.iter().filter_map(scalar_text).collect();
                if var.explode {
                    for (index, item) in items.iter().enumerate() {
                        if index > 0 {
                            out.push_str(operator.separator());
                        }
                        if operator.named() {
                            name_equals(out, item.is_empty());
                        }
                        encode_into(out, item, reserved);
                    }
                } else {
                    if operator.named() {
                        name_equals(out, false);
                    }
                    for (index, item) in items.iter().enumerate() {
                        if index > 0 {
                            out.push(',');
                        }
                        encode_into(out, item, reserved);
                    }
                }
            }
            Defined::Pairs(pairs) => {
                let pairs: Vec<(&String, String)> = pairs
                    .iter()
                    .filter_map(|(key, value)| scalar_text(value).map(|text| (key, text)))
                    .collect();
                if var.explode {
                    for (index, (key, value)) in pairs.iter().enumerate() {
                        if index > 0 {
                            out.push_str(operator.separator());
                        }
                        encode_into(out, key, reserved);
                        out.push_str(if value.is_empty() && operator.named() {
                            operator.if_empty()
                        } else {
                            "="
                        });
                        encode_into(out, value, reserved);
                    }
                } else {
                    if operator.named() {
                        name_equals(out, false);
                    }
                    for (index, (key, value)) in pairs.iter().enumerate() {
                        if index > 0 {
                            out.push(',');
                        }
                        encode_into(out, key, reserved);
                        out.push(',');
                        encode_into(out, value, reserved);
                    }
                }
            }
        }
    }
}

/// Appends `text`, percent-encoding every byte outside the unreserved set (and, when
/// `reserved`, outside the reserved set too; an existing `%XX` triplet is kept then).
fn encode_into(out: &mut String, text: &str, reserved: bool) {
    let bytes = text.as_bytes();
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let unreserved = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~');
        let kept_reserved = reserved && b":/?#[]@!$&'()*+,;=".contains(&byte);
        let triplet = reserved
            && byte == b'%'
            && bytes
                .get(index + 1..index + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit));
        if unreserved || kept_reserved || triplet {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
        index += 1;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The variables of RFC 6570 section 3.2.
    fn rfc_values() -> Map<String, Value> {
        let values = json!({
            "count": ["one", "two", "three"],
            "dom": ["example", "com"],
            "dub": "me/too",
            "hello": "Hello World!",
            "half": "50%",
            "var": "value",
            "who": "fred",
            "base": "http://example.com/home/",
            "path": "/foo/bar",
            "list": ["red", "green", "blue"],
            "keys": {"semi": ";", "dot": ".", "comma": ","},
            "v": "6",
            "x": "1024",
            "y": "768",
            "empty": "",
            "empty_keys": {},
            "undef": null
        });
        match values {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn check(cases: &[(&str, &str)]) {
        let values = rfc_values();
        for (template, expected) in cases {
            let parsed = UriTemplate::parse(template).expect(template);
            assert_eq!(parsed.expand(&values), *expected, "{template}");
        }
    }

    #[test]
    fn section_3_2_1_variable_expansion() {
        check(&[
            ("{count}", "one,two,three"),
            ("{count*}", "one,two,three"),
            ("{/count}", "/one,two,three"),
            ("{/count*}", "/one/two/three"),
            ("{;count}", ";count=one,two,three"),
            ("{;count*}", ";count=one;count=two;count=three"),
            ("{?count}", "?count=one,two,three"),
            ("{?count*}", "?count=one&count=two&count=three"),
            ("{&count*}", "&count=one&count=two&count=three"),
        ]);
    }

    #[test]
    fn section_3_2_2_simple_string_expansion() {
        check(&[
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("O{undef}X", "OX"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("?{x,empty}", "?1024,"),
            ("?{x,undef}", "?1024"),
            ("?{undef,y}", "?768"),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ]);
    }

    #[test]
    fn section_3_2_3_reserved_expansion() {
        check(&[
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("O{+undef}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
        ]);
    }

    #[test]
    fn section_3_2_4_fragment_expansion() {
        check(&[
            ("{#var}", "#value"),
            ("{#hello}", "#Hello%20World!"),
            ("{#half}", "#50%25"),
            ("foo{#empty}", "foo#"),
            ("foo{#undef}", "foo"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ]);
    }

    #[test]
    fn section_3_2_5_label_expansion() {
        check(&[
            ("{.who}", ".fred"),
            ("{.who,who}", ".fred.fred"),
            ("{.half,who}", ".50%25.fred"),
            ("www{.dom*}", "www.example.com"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("X{.undef}", "X"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("X{.empty_keys}", "X"),
            ("X{.empty_keys*}", "X"),
        ]);
    }

    #[test]
    fn section_3_2_6_path_segment_expansion() {
        check(&[
            ("{/who}", "/fred"),
            ("{/who,who}", "/fred/fred"),
            ("{/half,who}", "/50%25/fred"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,empty}", "/value/"),
            ("{/var,undef}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/var:1,var}", "/v/value"),
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ]);
    }

    #[test]
    fn section_3_2_7_path_style_parameter_expansion() {
        check(&[
            ("{;who}", ";who=fred"),
            ("{;half}", ";half=50%25"),
            ("{;empty}", ";empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{;v,bar,who}", ";v=6;who=fred"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;x,y,undef}", ";x=1024;y=768"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ]);
    }

    #[test]
    fn section_3_2_8_form_style_query_expansion() {
        check(&[
            ("{?who}", "?who=fred"),
            ("{?half}", "?half=50%25"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,y,undef}", "?x=1024&y=768"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ]);
    }

    #[test]
    fn section_3_2_9_form_style_query_continuation() {
        check(&[
            ("{&who}", "&who=fred"),
            ("{&half}", "&half=50%25"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ]);
    }

    #[test]
    fn variables_are_named_once_in_order_for_the_form() {
        let template = UriTemplate::parse("flights://{number}{?when,number}{/path*}").expect("ok");
        assert_eq!(template.variables(), ["number", "when", "path"]);
    }

    #[test]
    fn a_malformed_template_is_refused_saying_why() {
        assert!(UriTemplate::parse("a{b").is_err());
        assert!(UriTemplate::parse("a{}").is_err());
        assert!(UriTemplate::parse("{x:0}").is_err());
        assert!(UriTemplate::parse("{a b}").is_err());
    }

    #[test]
    fn numbers_and_booleans_expand_as_their_text() {
        let values = match json!({"n": 42, "b": true}) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let template = UriTemplate::parse("x://{n}/{b}").expect("ok");
        assert_eq!(template.expand(&values), "x://42/true");
    }
}
