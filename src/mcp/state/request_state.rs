//! The `requestState` of a multi-round-trip request (2026-07-28, SEP-2322): an opaque string the
//! server hands the client in an `input_required` result and gets back on the retry. The revision
//! says to treat it as attacker-controlled, so it is signed: HMAC-SHA-256 under a key drawn when the
//! server starts, over a payload that binds the tool, a digest of its arguments, the round the
//! request is in and when it was issued. A state that fails the check, names another call or is
//! older than `STATE_TTL` is refused — never half-trusted.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a client may take to answer an `input_required` result.
pub const STATE_TTL: Duration = Duration::from_secs(15 * 60);

const BLOCK: usize = 64;

/// The server's signing key, drawn from the operating system once per server.
pub struct StateKey([u8; 32]);

impl StateKey {
    pub fn generate() -> StateKey {
        let mut key = [0u8; 32];
        // Without the OS's randomness a key from the clock still differs per start; states only
        // need to be unforgeable by clients, and a failing getrandom is not something to crash on.
        if getrandom::fill(&mut key).is_err() {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos();
            key = Sha256::digest(nanos.to_le_bytes()).into();
        }
        StateKey(key)
    }

    /// The signed state for `payload`: base64url of its JSON, a dot, base64url of the MAC.
    pub fn seal(&self, payload: &StatePayload) -> String {
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(payload).unwrap_or_default());
        let mac = URL_SAFE_NO_PAD.encode(hmac_sha256(&self.0, body.as_bytes()));
        format!("{body}.{mac}")
    }

    /// The payload of a state this key sealed, for this call; why not, otherwise.
    pub fn open(&self, state: &str, tool: &str, arguments_digest: &str) -> Result<u32, String> {
        let refused = |why: &str| Err(format!("requestState refused: {why}"));
        let Some((body, mac)) = state.split_once('.') else {
            return refused("not a state this server issued");
        };
        let Ok(mac) = URL_SAFE_NO_PAD.decode(mac) else {
            return refused("not a state this server issued");
        };
        if !constant_time_eq(&mac, &hmac_sha256(&self.0, body.as_bytes())) {
            return refused("its signature does not match (altered, or from another server run)");
        }
        let payload: StatePayload = match URL_SAFE_NO_PAD
            .decode(body)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        {
            Some(payload) => payload,
            None => return refused("its payload cannot be read"),
        };
        if payload.tool != tool || payload.arguments != arguments_digest {
            return refused("it was issued for another call");
        }
        let age = now_secs().saturating_sub(payload.issued);
        if age > STATE_TTL.as_secs() {
            return refused("it has expired; call the tool again");
        }
        Ok(payload.round)
    }
}

/// What a state binds.
#[derive(Debug, Serialize, Deserialize)]
pub struct StatePayload {
    pub tool: String,
    /// SHA-256 of the call's arguments, as compact JSON.
    pub arguments: String,
    /// The round of input requests the state belongs to, from 0.
    pub round: u32,
    /// Seconds since the Unix epoch.
    pub issued: u64,
}

impl StatePayload {
    pub fn new(tool: &str, arguments_digest: &str, round: u32) -> StatePayload {
        StatePayload {
            tool: tool.to_string(),
            arguments: arguments_digest.to_string(),
            round,
            issued: now_secs(),
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// HMAC (RFC 2104) with SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_test_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            crate::hashing::hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_state_opens_only_unaltered_and_for_its_own_call() {
        let key = StateKey::generate();
        let state = key.seal(&StatePayload::new("tool_a", "digest", 2));
        assert_eq!(key.open(&state, "tool_a", "digest"), Ok(2));
        assert!(
            key.open(&format!("{state}-TAMPERED"), "tool_a", "digest")
                .is_err()
        );
        assert!(key.open(&state, "tool_b", "digest").is_err());
        assert!(key.open(&state, "tool_a", "other").is_err());
        assert!(
            StateKey::generate()
                .open(&state, "tool_a", "digest")
                .is_err()
        );
        assert!(key.open("no-dot", "tool_a", "digest").is_err());
        let mut old = StatePayload::new("tool_a", "digest", 0);
        old.issued -= STATE_TTL.as_secs() + 1;
        assert!(key.open(&key.seal(&old), "tool_a", "digest").is_err());
    }
}
