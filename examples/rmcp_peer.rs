//! A peer server written with the official Rust SDK, `rmcp`, serving one tool — the same `get_weather`
//! that `tests/peers/weather.toml` gives mcpick — so the two can be driven by the same client and
//! compared. Not part of mcpick: a test and benchmark peer only.
//!
//!     cargo run --release --example rmcp_peer -- --stdio
//!     cargo run --release --example rmcp_peer -- --http 127.0.0.1:0     (prints the URL on stderr)

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(Debug, Clone)]
pub struct WeatherPeer {
    #[allow(dead_code, reason = "read by the code tool_handler generates")]
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct WeatherRequest {
    #[schemars(description = "City name such as 'Paris'")]
    city: String,
}

impl Default for WeatherPeer {
    fn default() -> Self {
        WeatherPeer {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl WeatherPeer {
    #[tool(description = "Current weather for one city; not forecasts.")]
    async fn get_weather(
        &self,
        Parameters(WeatherRequest { city }): Parameters<WeatherRequest>,
    ) -> String {
        format!("{city}: 18 degrees, light rain")
    }
}

#[tool_handler]
impl ServerHandler for WeatherPeer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--http") => {
            let address = args.get(2).map_or("127.0.0.1:0", String::as_str);
            let service: StreamableHttpService<WeatherPeer, LocalSessionManager> =
                StreamableHttpService::new(
                    || Ok(WeatherPeer::default()),
                    Default::default(),
                    StreamableHttpServerConfig::default(),
                );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!(
                "rmcp_peer: serving on http://{}/mcp",
                listener.local_addr()?
            );
            // The same socket option mcpick sets, so the comparison is of the servers, not of Nagle.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, router).await?;
        }
        _ => {
            let service = WeatherPeer::default()
                .serve(rmcp::transport::stdio())
                .await?;
            service.waiting().await?;
        }
    }
    Ok(())
}
