//! The registry's `server.json` read: entries named by registry type, packages started pinned
//! with nothing secret recorded, remotes filled and recorded as templates.

use super::*;
use serde_json::json;
use std::path::PathBuf;

fn environment() -> Environment {
    Environment::from_pairs(
        [
            ("API_KEY".to_string(), "sk-secret".to_string()),
            ("MCPICK_INPUT_TENANT".to_string(), "acme".to_string()),
        ],
        &[],
        PathBuf::from("/w"),
    )
}

fn document() -> Map<String, Value> {
    let value = json!({
        "name": "io.github.me/weather", "version": "1.2.0", "description": "Weather",
        "packages": [
            {"registryType": "pypi", "identifier": "weather-mcp", "version": "1.2.0",
             "transport": {"type": "stdio"},
             "packageArguments": [{"type": "named", "name": "--units", "value": "metric"}],
             "environmentVariables": [{"name": "API_KEY", "isRequired": true, "isSecret": true},
                                      {"name": "LOG", "default": "warn"},
                                      {"name": "OPTIONAL"}]},
            {"registryType": "oci", "identifier": "ghcr.io/me/weather:1.2.0",
             "transport": {"type": "stdio"},
             "environmentVariables": [{"name": "API_KEY", "isRequired": true, "isSecret": true}]},
            {"registryType": "npm", "identifier": "weather-mcp", "version": "latest",
             "transport": {"type": "stdio"}}
        ],
        "remotes": [{"type": "streamable-http", "url": "https://{tenant}.example.com/mcp",
                     "variables": {"tenant": {"isRequired": true}},
                     "headers": [{"name": "Authorization", "value": "Bearer {key}",
                                  "variables": {"key": {"isRequired": true, "isSecret": true}}}]}]
    });
    value.as_object().unwrap().clone()
}

fn stdio(place: &str, env: &Environment) -> StdioServer {
    match registry_server(&document(), place, env).unwrap() {
        ServerSource::Stdio(server) => server,
        ServerSource::Http(_) => panic!("{place} is a package"),
    }
}

#[test]
fn entries_are_named_by_registry_type() {
    let names: Vec<String> = entry_names(&document())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["pypi", "oci", "npm", "remote"]);
}

#[test]
fn packages_start_pinned_and_record_no_secret() {
    let env = environment();
    let pypi = stdio("packages[0]", &env);
    let argv = pypi.argv.as_ref().unwrap();
    assert_eq!(
        argv.words,
        ["uvx", "weather-mcp==1.2.0", "--units", "metric"]
    );
    assert_eq!(
        pypi.env,
        [
            ("API_KEY".to_string(), "sk-secret".to_string()),
            ("LOG".to_string(), "warn".to_string())
        ]
    );
    let oci = stdio("packages[1]", &env);
    let argv = oci.argv.as_ref().unwrap();
    assert_eq!(
        argv.words,
        [
            "docker",
            "run",
            "-i",
            "--rm",
            "-e",
            "API_KEY",
            "ghcr.io/me/weather:1.2.0"
        ]
    );
    assert!(!format!("{:?}", argv.as_written).contains("sk-secret"));
    let latest = registry_server(&document(), "packages[2]", &env).unwrap_err();
    assert!(
        latest.contains("packages[2].version is \"latest\""),
        "{latest}"
    );
    let missing = Environment::from_pairs([], &[], PathBuf::from("/w"));
    let error = registry_server(&document(), "packages[0]", &missing).unwrap_err();
    assert!(
        error.contains("environmentVariables[0]") && error.contains("$API_KEY"),
        "{error}"
    );
}

#[test]
fn a_remote_s_url_and_headers_are_filled_and_recorded_as_templates() {
    let env = Environment::from_pairs(
        [
            ("MCPICK_INPUT_TENANT".to_string(), "acme".to_string()),
            ("MCPICK_INPUT_KEY".to_string(), "sk-secret".to_string()),
        ],
        &[],
        PathBuf::from("/w"),
    );
    let ServerSource::Http(server) = registry_server(&document(), "remotes[0]", &env).unwrap()
    else {
        panic!("a remote")
    };
    assert_eq!(server.endpoint.url, "https://acme.example.com/mcp");
    assert_eq!(
        server.url_as_written,
        "https://${MCPICK_INPUT_TENANT}.example.com/mcp"
    );
    assert_eq!(
        server.endpoint.headers,
        [("Authorization".to_string(), "Bearer sk-secret".to_string())]
    );
}
