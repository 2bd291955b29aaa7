//! `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, RFC 7521 §4.2, as SEP-1046
//! uses it), sans I/O: the PEM key read, the assertion's header, claims and signing input, and
//! its ES256 signature; the key's bytes, the time and the randomness come from the caller.

use ring::rand::SecureRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

use super::oauth::base64url;

/// RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion.
pub const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The method's name in `token_endpoint_auth_methods_supported` (RFC 8414 §2, `OpenID` Connect
/// Core §9).
pub const METHOD: &str = "private_key_jwt";
/// The one JWS algorithm signed with (RFC 7518 §3.4): ECDSA on P-256 with SHA-256.
pub const ALGORITHM: &str = "ES256";
/// How long an assertion is good for, in seconds: it is sent at once, so a short life only
/// narrows the window in which a captured one could be replayed.
pub const LIFETIME_SECS: u64 = 300;

/// A client's signing key: an EC P-256 private key. Never printed, not even by `{:?}`.
pub struct ClientKey {
    pair: EcdsaKeyPair,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientKey({ALGORITHM}, ****)")
    }
}

impl ClientKey {
    /// The key of a PEM file's contents: an unencrypted PKCS#8 EC P-256 private key
    /// (`-----BEGIN PRIVATE KEY-----`); anything else is refused, saying what it is and, where
    /// there is one, how to convert it. `rng` is what ring checks the key pair with.
    pub fn from_pem(pem: &[u8], rng: &dyn SecureRandom) -> Result<Self, String> {
        let der = pkcs8_der(pem)?;
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, rng)
            .map(|pair| Self { pair })
            .map_err(|_| refused(&der))
    }

    /// The public key, as an uncompressed point (SEC 1 §2.3.3): what a verifier needs.
    pub fn public_key(&self) -> &[u8] {
        self.pair.public_key().as_ref()
    }

    /// The signed assertion (JWS compact serialization, RFC 7515 §7.1) of `claims`.
    pub fn assertion(&self, claims: &Value, rng: &dyn SecureRandom) -> Result<String, String> {
        let input = signing_input(&header(), claims);
        let signature = self
            .pair
            .sign(rng, input.as_bytes())
            .map_err(|_| "signing the client assertion failed (no randomness?)".to_owned())?;
        // The FIXED encoding is JWS's own for ES256 (RFC 7518 §3.4): R and S, 32 bytes each.
        Ok(format!("{input}.{}", base64url(signature.as_ref())))
    }
}

/// The JOSE header: ES256, `typ` JWT. No `kid`: none is given, and the authorization server
/// knows the client's key by the client id.
pub fn header() -> Value {
    json!({"alg": ALGORITHM, "typ": "JWT"})
}

/// RFC 7523 §3's claims for `client_id` at the authorization server `audience` (its issuer
/// identifier, which draft-ietf-oauth-rfc7523bis makes the only value, and the audience the
/// conformance suite checks), issued at `now` (seconds since the Unix epoch), once: `jti`.
pub fn claims(client_id: &str, audience: &str, now: u64, jti: &str) -> Value {
    json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + LIFETIME_SECS,
        "jti": jti,
    })
}

/// What is signed (RFC 7515 §5.1): the header and the claims, each base64url, joined by a dot.
pub fn signing_input(header: &Value, claims: &Value) -> String {
    format!(
        "{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(claims.to_string().as_bytes())
    )
}

/// The DER of the PEM's PKCS#8 private key block (RFC 7468 §10), or why it is not one.
pub(crate) fn pkcs8_der(pem: &[u8]) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let text = std::str::from_utf8(pem).map_err(|_| {
        "not PEM text (a DER file? convert it: openssl pkcs8 -topk8 -nocrypt -inform DER -in KEY)"
            .to_owned()
    })?;
    let mut lines = text.lines().map(str::trim);
    let label = lines
        .by_ref()
        .find_map(|line| line.strip_prefix("-----BEGIN ")?.strip_suffix("-----"))
        .ok_or("no PEM block: expected -----BEGIN PRIVATE KEY-----")?;
    match label {
        "PRIVATE KEY" => {}
        "ENCRYPTED PRIVATE KEY" => {
            return Err("an encrypted key: sightline takes an unencrypted PKCS#8 key (openssl pkcs8 -topk8 -nocrypt -in KEY), kept readable by its owner only".to_owned());
        }
        "EC PRIVATE KEY" => {
            return Err("a SEC 1 EC key (BEGIN EC PRIVATE KEY): convert it to PKCS#8 (openssl pkcs8 -topk8 -nocrypt -in KEY)".to_owned());
        }
        "RSA PRIVATE KEY" => return Err(unsupported("an RSA key")),
        "PUBLIC KEY" | "CERTIFICATE" => {
            return Err(format!(
                "a {label}, not a private key: the client signs with its private key"
            ));
        }
        other => {
            return Err(format!(
                "a PEM {other:?} block, not a PKCS#8 private key (BEGIN PRIVATE KEY)"
            ));
        }
    }
    let end = format!("-----END {label}-----");
    let mut body = String::new();
    let mut ended = false;
    for line in lines {
        if line == end {
            ended = true;
            break;
        }
        body.push_str(line);
    }
    if !ended {
        return Err(format!("the PEM block has no {end} line"));
    }
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|_| "the PEM block's body is not base64".to_owned())
}

/// Why ring refused a PKCS#8 key, by the algorithm its `AlgorithmIdentifier` names.
fn refused(der: &[u8]) -> String {
    // DER encodings of the OIDs (X.690 §8.19), searched for rather than parsed: the message
    // only names the key; ring has already decided it is not one to sign with.
    const KINDS: [(&[u8], &str); 5] = [
        (
            &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01],
            "an RSA key",
        ),
        (&[0x2b, 0x65, 0x70], "an Ed25519 key"),
        (&[0x2b, 0x81, 0x04, 0x00, 0x22], "an EC P-384 key"),
        (&[0x2b, 0x81, 0x04, 0x00, 0x23], "an EC P-521 key"),
        (&[0x2b, 0x81, 0x04, 0x00, 0x0a], "an EC secp256k1 key"),
    ];
    let contains = |oid: &[u8]| der.windows(oid.len()).any(|window| window == oid);
    KINDS.iter().find(|(oid, _)| contains(oid)).map_or_else(
        || "not a PKCS#8 EC P-256 private key (or a malformed one)".to_owned(),
        |(_, kind)| unsupported(kind),
    )
}

fn unsupported(kind: &str) -> String {
    format!(
        "{kind}: sightline signs client assertions with ES256 only, which needs an EC P-256 key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)"
    )
}

#[cfg(test)]
mod tests {
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    fn pem(label: &str, der: &[u8]) -> String {
        use base64::Engine;
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect();
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
            lines.join("\n")
        )
    }

    fn generated() -> (String, Vec<u8>) {
        let rng = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        (pem("PRIVATE KEY", der.as_ref()), der.as_ref().to_vec())
    }

    fn decode(part: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap()
    }

    #[test]
    fn a_pkcs8_pem_is_read_with_text_around_it_and_crlf() {
        let (text, der) = generated();
        assert_eq!(pkcs8_der(text.as_bytes()).unwrap(), der);
        let framed = format!("a comment\r\n{}", text.replace('\n', "\r\n"));
        assert_eq!(pkcs8_der(framed.as_bytes()).unwrap(), der);
        assert!(ClientKey::from_pem(framed.as_bytes(), &SystemRandom::new()).is_ok());
    }

    #[test]
    fn other_pem_blocks_and_key_types_are_refused_saying_what_they_are() {
        let rng = SystemRandom::new();
        let refusal = |text: &str| ClientKey::from_pem(text.as_bytes(), &rng).unwrap_err();
        let cases = [
            (pem("EC PRIVATE KEY", b"x"), "a SEC 1 EC key"),
            (pem("ENCRYPTED PRIVATE KEY", b"x"), "an encrypted key"),
            (pem("RSA PRIVATE KEY", b"x"), "an RSA key: sightline signs"),
            (pem("PUBLIC KEY", b"x"), "a PUBLIC KEY, not a private key"),
            (
                pem("OPENSSH PRIVATE KEY", b"x"),
                "a PEM \"OPENSSH PRIVATE KEY\" block",
            ),
            ("nothing here".to_owned(), "no PEM block"),
            (
                "-----BEGIN PRIVATE KEY-----\nAAAA\n".to_owned(),
                "no -----END PRIVATE KEY----- line",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----".to_owned(),
                "not base64",
            ),
            (pem("PRIVATE KEY", b"not der"), "not a PKCS#8 EC P-256"),
        ];
        for (text, said) in cases {
            let refused = refusal(&text);
            assert!(refused.contains(said), "{said}: {refused}");
        }
        assert!(
            ClientKey::from_pem(&[0x30, 0x82, 0xff, 0xfe], &rng)
                .unwrap_err()
                .contains("not PEM text")
        );
        // An Ed25519 key, which ring reads but is not ES256's.
        let ed = ring::signature::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let refused = refusal(&pem("PRIVATE KEY", ed.as_ref()));
        assert!(
            refused
                .starts_with("an Ed25519 key: sightline signs client assertions with ES256 only"),
            "{refused}"
        );
        // A P-384 key.
        let p384 =
            EcdsaKeyPair::generate_pkcs8(&ring::signature::ECDSA_P384_SHA384_FIXED_SIGNING, &rng)
                .unwrap();
        assert!(refusal(&pem("PRIVATE KEY", p384.as_ref())).starts_with("an EC P-384 key"));
    }

    #[test]
    fn the_header_and_claims_are_rfc_7523s() {
        assert_eq!(header(), json!({"alg": "ES256", "typ": "JWT"}));
        let claims = claims("client-1", "https://auth.example.com", 1_700_000_000, "j1");
        assert_eq!(
            claims,
            json!({
                "iss": "client-1",
                "sub": "client-1",
                "aud": "https://auth.example.com",
                "iat": 1_700_000_000,
                "exp": 1_700_000_300,
                "jti": "j1",
            })
        );
        let input = signing_input(&header(), &claims);
        let (head, body) = input.split_once('.').unwrap();
        assert_eq!(head, "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9");
        let read: Value = serde_json::from_slice(&decode(body)).unwrap();
        assert_eq!(read, claims);
        assert!(!input.contains('=') && !input.contains('+') && !input.contains('/'));
    }

    #[test]
    fn the_assertion_verifies_with_the_public_key_and_only_as_signed() {
        let rng = SystemRandom::new();
        let (text, _) = generated();
        let key = ClientKey::from_pem(text.as_bytes(), &rng).unwrap();
        let claims = claims("client-1", "https://auth.example.com", 1_700_000_000, "j1");
        let assertion = key.assertion(&claims, &rng).unwrap();
        let parts: Vec<&str> = assertion.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(
            format!("{}.{}", parts[0], parts[1]),
            signing_input(&header(), &claims)
        );
        let signature = decode(parts[2]);
        assert_eq!(signature.len(), 64, "ES256 is R and S, 32 bytes each");
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.public_key());
        let signed = format!("{}.{}", parts[0], parts[1]);
        assert!(public.verify(signed.as_bytes(), &signature).is_ok());
        let other = signing_input(&header(), &json!({"iss": "someone-else"}));
        assert!(public.verify(other.as_bytes(), &signature).is_err());
    }

    #[test]
    fn the_key_is_not_printed() {
        let (text, der) = generated();
        let key = ClientKey::from_pem(text.as_bytes(), &SystemRandom::new()).unwrap();
        let shown = format!("{key:?}");
        assert_eq!(shown, "ClientKey(ES256, ****)");
        assert!(!shown.contains(&base64url(&der)[..16]));
    }
}
