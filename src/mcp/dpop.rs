//! DPoP (RFC 9449, the MCP extension SEP-1932), sans I/O: the client's proof-of-possession key
//! (made here or read from the user's PEM), its public JWK and thumbprint, and the proof JWT
//! for one HTTP request; the time and the randomness come from the caller.

use ring::rand::SecureRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};
use url::Url;

use super::jwt;
use super::oauth::base64url;

/// The proof's `typ` (RFC 9449 §4.2).
pub const PROOF_TYPE: &str = "dpop+jwt";
/// The `Authorization` scheme of a DPoP-bound token (RFC 9449 §7.1), and its `token_type`.
pub const SCHEME: &str = "DPoP";
/// The error a server gives when it wants a nonce in the proof (RFC 9449 §8, §9).
pub const USE_NONCE: &str = "use_dpop_nonce";
/// The header a server's nonce comes in.
pub const NONCE_HEADER: &str = "DPoP-Nonce";

/// A proof-of-possession key: EC P-256, signing ES256. Its PKCS#8 document is kept so that the
/// key outlives the run with the tokens bound to it (in the token cache, mode 0600). Never
/// printed, not even by `{:?}`.
#[derive(Clone)]
pub struct DpopKey {
    pair: std::sync::Arc<EcdsaKeyPair>,
    pkcs8: Vec<u8>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DpopKey({}, {})", jwt::ALGORITHM, self.thumbprint())
    }
}

impl DpopKey {
    /// A new key.
    pub fn generate(rng: &dyn SecureRandom) -> Result<Self, String> {
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, rng)
            .map_err(|_| "making a DPoP key failed (no randomness?)".to_owned())?;
        Self::from_pkcs8(document.as_ref(), rng)
    }

    /// The key of a PKCS#8 document (DER); `rng` is what ring checks the key pair with.
    pub fn from_pkcs8(der: &[u8], rng: &dyn SecureRandom) -> Result<Self, String> {
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, rng)
            .map(|pair| Self {
                pair: std::sync::Arc::new(pair),
                pkcs8: der.to_vec(),
            })
            .map_err(|_| "not a PKCS#8 EC P-256 private key".to_owned())
    }

    /// The key of a PEM file's contents, as `--client-key` takes one.
    pub fn from_pem(pem: &[u8], rng: &dyn SecureRandom) -> Result<Self, String> {
        Self::from_pkcs8(&jwt::pkcs8_der(pem)?, rng)
    }

    /// The PKCS#8 document, to keep the key.
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The public key as a JWK (RFC 7517, RFC 7518 §6.2.1): what the proof's header carries.
    pub fn jwk(&self) -> Value {
        let (x, y) = self.coordinates();
        json!({"kty": "EC", "crv": "P-256", "x": base64url(x), "y": base64url(y)})
    }

    /// The JWK thumbprint (RFC 7638, SHA-256): what a bound token's `cnf.jkt` names.
    pub fn thumbprint(&self) -> String {
        thumbprint(&self.jwk())
    }

    /// The uncompressed point's X and Y (SEC 1 §2.3.3: 0x04, then 32 bytes each).
    fn coordinates(&self) -> (&[u8], &[u8]) {
        let point = self.pair.public_key().as_ref();
        let xy = point.get(1..).unwrap_or_default();
        xy.split_at(xy.len() / 2)
    }

    /// The proof for one request (RFC 9449 §4.2): `method` to `url` (its query and fragment
    /// left out), at `now` (seconds since the epoch), once (`jti`); with the access token's
    /// hash where one is presented (`ath`, §7.1) and the server's nonce where it gave one.
    pub fn proof(
        &self,
        request: &ProofRequest<'_>,
        rng: &dyn SecureRandom,
    ) -> Result<String, String> {
        let header = json!({"typ": PROOF_TYPE, "alg": jwt::ALGORITHM, "jwk": self.jwk()});
        let claims = claims(request);
        let input = jwt::signing_input(&header, &claims);
        let signature = self
            .pair
            .sign(rng, input.as_bytes())
            .map_err(|_| "signing the DPoP proof failed (no randomness?)".to_owned())?;
        Ok(format!("{input}.{}", base64url(signature.as_ref())))
    }
}

/// An EC public JWK's thumbprint (RFC 7638, SHA-256).
pub fn thumbprint(jwk: &Value) -> String {
    let member = |name: &str| jwk.get(name).and_then(Value::as_str).unwrap_or_default();
    // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
    let canonical = format!(
        r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
        member("crv"),
        member("kty"),
        member("x"),
        member("y")
    );
    base64url(ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes()).as_ref())
}

/// What one proof is for.
#[derive(Debug, Clone, Copy)]
pub struct ProofRequest<'a> {
    pub method: &'a str,
    pub url: &'a Url,
    pub access_token: Option<&'a str>,
    pub nonce: Option<&'a str>,
    pub now: u64,
    pub jti: &'a str,
}

/// The proof's claims (RFC 9449 §4.2).
pub fn claims(request: &ProofRequest<'_>) -> Value {
    let mut claims = json!({
        "jti": request.jti,
        "htm": request.method,
        "htu": htu(request.url),
        "iat": request.now,
    });
    if let Some(token) = request.access_token {
        claims["ath"] = json!(access_token_hash(token));
    }
    if let Some(nonce) = request.nonce {
        claims["nonce"] = json!(nonce);
    }
    claims
}

/// `htu`: the request's URI without its query and fragment (RFC 9449 §4.2).
pub fn htu(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// `ath`: base64url of the SHA-256 of the access token's ASCII (RFC 9449 §4.2).
pub fn access_token_hash(token: &str) -> String {
    base64url(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()).as_ref())
}

/// Whether an authorization server's metadata says it binds tokens with a key sightline can
/// make proofs with: `dpop_signing_alg_values_supported` lists ES256 (RFC 9449 §5.1).
pub fn offered(metadata: &Value) -> bool {
    metadata
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|alg| alg.as_str() == Some(jwt::ALGORITHM)))
}

#[cfg(test)]
mod tests {
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    fn decode(part: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap_or_default()
    }

    fn key() -> DpopKey {
        DpopKey::generate(&ring::rand::SystemRandom::new()).expect("a key")
    }

    #[test]
    fn the_proof_is_rfc_9449s_and_verifies_with_the_jwk_it_carries() {
        let key = key();
        let url = Url::parse("https://mcp.example.com/mcp?x=1#top").expect("url");
        let proof = key
            .proof(
                &ProofRequest {
                    method: "POST",
                    url: &url,
                    access_token: Some("tok"),
                    nonce: Some("n-1"),
                    now: 1_700_000_000,
                    jti: "j-1",
                },
                &ring::rand::SystemRandom::new(),
            )
            .expect("proof");
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: Value = serde_json::from_slice(&decode(parts[0])).expect("header");
        let claims: Value = serde_json::from_slice(&decode(parts[1])).expect("claims");
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(
            header["jwk"].get("d").is_none(),
            "no private part: {header}"
        );
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["iat"], 1_700_000_000);
        assert_eq!(claims["jti"], "j-1");
        assert_eq!(claims["nonce"], "n-1");
        // RFC 9449 §7.1's example: ath of "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU".
        assert_eq!(
            access_token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
        assert_eq!(claims["ath"], access_token_hash("tok"));
        // The signature verifies with the point the JWK gives, and only over what was signed.
        let x = decode(header["jwk"]["x"].as_str().unwrap_or_default());
        let y = decode(header["jwk"]["y"].as_str().unwrap_or_default());
        let point = [&[4u8][..], &x, &y].concat();
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point);
        let signed = format!("{}.{}", parts[0], parts[1]);
        assert!(public.verify(signed.as_bytes(), &decode(parts[2])).is_ok());
        assert!(public.verify(b"other", &decode(parts[2])).is_err());
    }

    #[test]
    fn without_a_token_or_nonce_the_claims_have_neither() {
        let url = Url::parse("https://as.example.com/token").expect("url");
        let claims = claims(&ProofRequest {
            method: "POST",
            url: &url,
            access_token: None,
            nonce: None,
            now: 1,
            jti: "j",
        });
        assert!(
            claims.get("ath").is_none() && claims.get("nonce").is_none(),
            "{claims}"
        );
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7515 A.3's P-256 key; its thumbprint as jose's calculateJwkThumbprint gives it.
        let jwk = json!({"kty": "EC", "crv": "P-256",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRjmB9o4RFHN0ABCJfIIFkGAZHA6iF6A3k8N4q4"});
        assert_eq!(
            thumbprint(&jwk),
            "VDrVKZR3uJI6la1hnP728a8WX418AE7lzR2eabwULD0"
        );
        let rng = ring::rand::SystemRandom::new();
        let key = key();
        assert_eq!(
            decode(key.jwk()["x"].as_str().unwrap_or_default()).len(),
            32
        );
        // A key kept and read back is the same key.
        let again = DpopKey::from_pkcs8(key.pkcs8(), &rng).expect("read back");
        assert_eq!(again.thumbprint(), key.thumbprint());
        assert!(!format!("{key:?}").contains(&base64url(key.pkcs8())));
    }

    #[test]
    fn only_es256_in_the_metadata_means_offered() {
        assert!(offered(
            &json!({"dpop_signing_alg_values_supported": ["RS256", "ES256"]})
        ));
        assert!(!offered(
            &json!({"dpop_signing_alg_values_supported": ["RS256"]})
        ));
        assert!(!offered(&json!({})));
    }
}
