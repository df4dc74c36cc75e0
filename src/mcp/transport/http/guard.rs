//! The header rules every Streamable HTTP request passes before any JSON is read: the DNS-rebinding
//! guard (one `Host`, and at most one `Origin`, naming this machine), `Accept`, `Content-Type` and
//! `MCP-Protocol-Version`. Host and Origin are parsed strictly — a host of `localhost`, `127.0.0.1`
//! or `[::1]`, an optional numeric port, nothing else — because a loose reading is a way around the
//! guard (`Host: [::1]evil.example`, `localhost:evil`, a second `Host` naming another machine).
//! Pure functions of the headers; the transport turns a refusal into its response.

use crate::mcp::protocol::revision::SESSION_REVISIONS;
use axum::http::{HeaderMap, StatusCode};

/// Why a request is refused: its status and the plain-text reason.
pub type Refusal = (StatusCode, &'static str);

const NOT_THIS_HOST: Refusal = (
    StatusCode::FORBIDDEN,
    "Forbidden: Host is not this machine (DNS rebinding protection)",
);
const NOT_THIS_ORIGIN: Refusal = (
    StatusCode::FORBIDDEN,
    "Forbidden: Origin is not this machine (DNS rebinding protection)",
);

/// The DNS-rebinding guard and the session revisions' protocol-version check, for every method on a
/// session.
pub(super) fn guard(headers: &HeaderMap) -> Result<(), Refusal> {
    guard_host(headers)?;
    if let Some(version) = single(headers, "mcp-protocol-version")?
        && !SESSION_REVISIONS.contains(&version)
    {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: unsupported MCP-Protocol-Version",
        ));
    }
    Ok(())
}

/// The DNS-rebinding guard alone: what a stateless request passes before its headers are checked
/// against its body.
pub(super) fn guard_host(headers: &HeaderMap) -> Result<(), Refusal> {
    match single(headers, "host")? {
        Some(host) if is_local_authority(host) => {}
        _ => return Err(NOT_THIS_HOST),
    }
    if let Some(origin) = single(headers, "origin")?
        && !is_local_origin(origin)
    {
        return Err(NOT_THIS_ORIGIN);
    }
    Ok(())
}

/// A header that may appear at most once, as text. Two of them (which one would a proxy read?), or
/// one that is not visible ASCII, is a bad request.
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, Refusal> {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (None, _) => Ok(None),
        (Some(_), Some(_)) => Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: Host, Origin, Content-Type and MCP-Protocol-Version may appear once each",
        )),
        (Some(value), None) => value.to_str().map(Some).map_err(|_| {
            (
                StatusCode::BAD_REQUEST,
                "Bad Request: a header is not visible ASCII",
            )
        }),
    }
}

/// `localhost`, `127.0.0.1` or `[::1]`, then nothing or `:` and a port number (RFC 3986's
/// authority without user info, as `Host` carries it).
pub(super) fn is_local_authority(authority: &str) -> bool {
    let (host, rest) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(end) => authority.split_at(end + 1),
            None => return false,
        }
    } else {
        authority.split_at(authority.find(':').unwrap_or(authority.len()))
    };
    let port_ok = rest.is_empty()
        || rest.strip_prefix(':').is_some_and(|port| {
            (1..=5).contains(&port.len())
                && port.bytes().all(|b| b.is_ascii_digit())
                && port.parse::<u32>().is_ok_and(|p| p <= 65_535)
        });
    port_ok
        && matches!(
            host.to_ascii_lowercase().as_str(),
            "localhost" | "127.0.0.1" | "[::1]"
        )
}

/// An `Origin` (RFC 6454): `http` or `https`, `://`, a local authority, and nothing after it.
pub(super) fn is_local_origin(origin: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && is_local_authority(authority)
}

/// Whether the one `Content-Type` is `application/json` (parameters such as `charset` allowed);
/// `application/jsonp` or `application/json-patch+json` are other media types.
pub(super) fn is_json_body(headers: &HeaderMap) -> bool {
    let Ok(Some(content_type)) = single(headers, "content-type") else {
        return false;
    };
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    media_type.eq_ignore_ascii_case("application/json")
}

/// Whether some `Accept` header lists `media_type` (or `*/*`).
pub(super) fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all("accept")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|accept| {
            accept.split(',').any(|item| {
                let item = item.split(';').next().unwrap_or("").trim();
                item.eq_ignore_ascii_case(media_type) || item == "*/*"
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn hosts_naming_this_machine_pass_and_nothing_else_does() {
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:65535",
        ] {
            assert!(is_local_authority(host), "{host}");
        }
        for host in [
            "",
            "[::1]evil.example",
            "[::1]:evil",
            "[::1",
            "localhost:evil",
            "localhost:",
            "localhost:65536",
            "localhost:123456",
            "localhost:+80",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "127.0.0.1:80@evil.example",
            "evil.example",
            "evil.example:80",
            "[::2]",
            " localhost",
        ] {
            assert!(!is_local_authority(host), "{host}");
        }
    }

    #[test]
    fn origins_are_a_scheme_and_a_local_authority_only() {
        for origin in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "HTTP://[::1]:8",
        ] {
            assert!(is_local_origin(origin), "{origin}");
        }
        for origin in [
            "http://[::1]evil.example",
            "http://localhost:evil",
            "http://localhost/",
            "http://evil.example",
            "file://localhost",
            "null",
            "localhost",
            "http://localhost.evil.example",
        ] {
            assert!(!is_local_origin(origin), "{origin}");
        }
    }

    #[test]
    fn two_hosts_or_two_origins_are_refused() {
        let two_hosts = headers(&[("host", "127.0.0.1"), ("host", "evil.example")]);
        assert_eq!(guard(&two_hosts).unwrap_err().0, StatusCode::BAD_REQUEST);
        let two_origins = headers(&[
            ("host", "127.0.0.1"),
            ("origin", "http://localhost"),
            ("origin", "http://evil.example"),
        ]);
        assert_eq!(guard(&two_origins).unwrap_err().0, StatusCode::BAD_REQUEST);
        assert_eq!(guard(&headers(&[])).unwrap_err().0, StatusCode::FORBIDDEN);
        let fine = headers(&[("host", "127.0.0.1:9"), ("origin", "http://localhost:9")]);
        assert!(guard(&fine).is_ok());
    }

    #[test]
    fn only_application_json_is_a_json_body() {
        for value in [
            "application/json",
            "Application/JSON; charset=utf-8",
            " application/json ;x=y",
        ] {
            assert!(
                is_json_body(&headers(&[("content-type", value)])),
                "{value}"
            );
        }
        for value in [
            "application/jsonp",
            "application/json-patch+json",
            "application/json5",
            "text/json",
            "",
        ] {
            assert!(
                !is_json_body(&headers(&[("content-type", value)])),
                "{value}"
            );
        }
        assert!(!is_json_body(&headers(&[])));
        let two = headers(&[
            ("content-type", "application/json"),
            ("content-type", "text/plain"),
        ]);
        assert!(!is_json_body(&two));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Fuzzing: an authority passes exactly when it is one of the three local hosts with an
        /// optional port of at most 65535, and an origin exactly when it is http(s):// and one.
        #[test]
        fn only_local_authorities_pass(authority in "(localhost|LocalHost|127\\.0\\.0\\.1|\\[::1\\]|evil|\\[|:|\\]|[0-9]|@|\\.|/| ){0,6}") {
            let pattern = regex::Regex::new(r"(?i)^(localhost|127\.0\.0\.1|\[::1\])(:([0-9]{1,5}))?$").unwrap();
            let documented = pattern.captures(&authority).is_some_and(|c| {
                c.get(3).is_none_or(|port| port.as_str().parse::<u32>().is_ok_and(|p| p <= 65_535))
            });
            proptest::prop_assert_eq!(is_local_authority(&authority), documented, "{:?}", authority);
            let origin = format!("http://{authority}");
            proptest::prop_assert_eq!(is_local_origin(&origin), is_local_authority(&authority));
        }

        #[test]
        fn any_text_is_judged_without_panicking(text in ".{0,40}") {
            let _ = is_local_authority(&text);
            let _ = is_local_origin(&text);
        }
    }
}
