//! Catalog sessions for screen tests: a server declaring resources, prompts and completions,
//! and each request the app sends answered in the live order (the frame sent, the frame
//! received, then `SessionEvent::Requested`). Included by path next to `mod common;`.

#![allow(dead_code, clippy::unwrap_used)] // each test file uses part of it

use serde_json::{Value, json};
use sightline::app::action::Shelves;
use sightline::mcp::Timestamp;
use sightline::mcp::era::Era;
use sightline::mcp::jsonrpc::{Id, parse};
use sightline::mcp::log::SessionEvent;
use sightline::mcp::messages::ServerInfo;
use sightline::mcp::session::{End, Exchange};
use sightline::runner::{Connection, LogEvent};

use crate::common::{Session, T0};

/// The demo server's resources, templates and prompts.
pub fn resources() -> Value {
    json!({"resources": [
        {"uri": "demo://timetable", "name": "timetable", "title": "Today's timetable",
         "description": "Today's departures, as plain text.", "mimeType": "text/plain", "size": 158},
        {"uri": "demo://logo.png", "name": "logo", "title": "Airline logo",
         "description": "The airline's logo, a tiny PNG.", "mimeType": "image/png"},
    ]})
}

pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "flights://{number}", "name": "flight", "mimeType": "application/json",
         "description": "One flight's status as JSON; number is a flight number such as LH123."},
    ]})
}

pub fn prompts() -> Value {
    json!({"prompts": [
        {"name": "plan_trip", "title": "Plan a trip",
         "description": "Ask for an itinerary to a destination, on a date if given.",
         "arguments": [
            {"name": "destination", "description": "Where to go", "required": true},
            {"name": "date", "description": "Departure date, dd/mm/yyyy"},
         ]},
        {"name": "review_booking", "title": "Review a booking",
         "description": "Review one booking.", "arguments": [{"name": "reference", "required": true}]},
    ]})
}

impl Session {
    /// The demo session, then a server that declares the catalog's capabilities (legacy era),
    /// with both shelves shown once and their listings answered.
    pub fn catalog(&mut self) -> &mut Self {
        self.catalog_in(Era::Legacy, "2025-11-25")
    }

    /// [`Session::catalog`] in `era`, speaking `version`.
    pub fn catalog_in(&mut self, era: Era, version: &str) -> &mut Self {
        self.connected(era, version, "sightline-demo");
        self.event(SessionEvent::Connected(Box::new(Connection {
            era,
            protocol_version: version.into(),
            server: ServerInfo {
                name: "sightline-demo".into(),
                version: "0.1.0".into(),
            },
            capabilities: Some(sightline::mcp::json::Json::from_value(&json!({
                "tools": {}, "resources": {"subscribe": true}, "prompts": {}, "completions": {}
            }))),
            http_session: None,
            probe: None,
        })));
        // Each shelf is listed when first shown, as a user would show it.
        self.command(sightline::app::Command::Shelves(Shelves::Resources));
        self.answer(
            3,
            "resources/list",
            &json!({}),
            &json!({"result": resources()}),
        );
        self.answer(
            4,
            "resources/templates/list",
            &json!({}),
            &json!({"result": templates()}),
        );
        self.command(sightline::app::Command::Shelves(Shelves::Prompts));
        self.answer(5, "prompts/list", &json!({}), &json!({"result": prompts()}));
        self.command(sightline::app::Command::Shelves(Shelves::Tools))
    }

    /// Request `id` of `method` answered with `reply` (`{"result": …}` or `{"error": …}`).
    pub fn answer(&mut self, id: i64, method: &str, params: &Value, reply: &Value) -> &mut Self {
        let request =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let mut response = json!({"jsonrpc": "2.0", "id": id});
        if let (Some(object), Some(members)) = (response.as_object_mut(), reply.as_object()) {
            object.extend(members.clone());
        }
        let response = response.to_string();
        self.sent(&request);
        self.received(&response, method);
        let exchange = Exchange {
            id: Id::Number(id),
            method: method.into(),
            request: parse(&request).unwrap(),
            sent_at: Timestamp(T0),
            end: End::Replied(parse(&response).unwrap()),
            ended_at: Timestamp(T0),
            http: None,
            rounds: Vec::new(),
            task: None,
        };
        self.event(SessionEvent::Requested(Box::new(exchange)))
    }

    /// A notification from the server.
    pub fn notified(&mut self, raw: &str) -> &mut Self {
        self.log(LogEvent::Received {
            frame: parse(raw).unwrap(),
            role: sightline::runner::Role::Notification,
        })
    }
}
