//! The order POSTs reach the server in: a line the protocol orders (a notification, a response
//! to a server request) is accepted before anything after it is sent; other requests overlap.

use tokio::sync::watch;

/// Told when a POST has been accepted: its response status arrived (202 for a notification),
/// or it failed. Dropped unsent, it counts as told.
#[derive(Debug, Clone, Default)]
pub struct Accepted(Option<std::sync::Arc<watch::Sender<bool>>>);

impl Accepted {
    pub fn tell(&self) {
        if let Some(sender) = &self.0 {
            sender.send_replace(true);
        }
    }
}

/// What the lines sent so far make the next one wait for.
#[derive(Debug, Default)]
pub struct Order {
    /// The acceptance of the last ordered line, while it may still be pending.
    gate: Option<watch::Receiver<bool>>,
}

/// What one line waits for before its POST, and how it tells that it was accepted.
pub struct Turn {
    pub waits_for: Option<watch::Receiver<bool>>,
    pub accepted: Accepted,
}

impl Order {
    /// The turn of the next line; `ordered` when what follows must wait for it to be accepted.
    pub fn next(&mut self, ordered: bool) -> Turn {
        let (sender, receiver) = watch::channel(false);
        let waits_for = self.gate.take().filter(|gate| !*gate.borrow());
        self.gate = if ordered {
            Some(receiver)
        } else {
            waits_for.clone()
        };
        Turn {
            waits_for,
            accepted: Accepted(Some(std::sync::Arc::new(sender))),
        }
    }
}

impl Turn {
    /// Waits until the line before may be followed.
    pub async fn wait(&mut self) {
        if let Some(gate) = &mut self.waits_for {
            // An error means the POST ended without telling: nothing to wait for any more.
            let _ = gate.wait_for(|accepted| *accepted).await;
        }
    }
}

/// Whether a line orders what follows it: a notification (`notifications/initialized` before
/// any request of the session) or a response to a server request (before the request that
/// depends on it). A cancellation orders nothing: it refers to a request already sent, and
/// must not wait behind anything.
pub fn orders_what_follows(method: Option<&str>, has_id: bool) -> bool {
    match method {
        None => true,
        Some("notifications/cancelled") => false,
        Some(_) => !has_id,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn pending(turn: &mut Turn) -> bool {
        let wait = turn.wait();
        futures_util::FutureExt::now_or_never(Box::pin(wait)).is_none()
    }

    #[test]
    fn notifications_and_responses_order_what_follows_requests_do_not() {
        assert!(orders_what_follows(
            Some("notifications/initialized"),
            false
        ));
        assert!(orders_what_follows(None, true));
        assert!(!orders_what_follows(Some("tools/list"), true));
        assert!(!orders_what_follows(Some("notifications/cancelled"), false));
    }

    #[test]
    fn a_request_after_a_notification_waits_until_it_is_accepted() {
        let mut order = Order::default();
        let mut initialize = order.next(false);
        assert!(!pending(&mut initialize));
        let mut initialized = order.next(true);
        assert!(!pending(&mut initialized), "nothing ordered before it");
        let mut list = order.next(false);
        let mut call = order.next(false);
        assert!(pending(&mut list) && pending(&mut call));
        initialized.accepted.tell();
        assert!(!pending(&mut list) && !pending(&mut call));
        // Requests overlap: a request after requests waits for none of them.
        let mut another = order.next(false);
        assert!(!pending(&mut another));
    }

    #[test]
    fn ordered_lines_wait_for_each_other_and_a_dropped_post_releases_its_followers() {
        let mut order = Order::default();
        let first = order.next(true);
        let mut second = order.next(true);
        assert!(pending(&mut second));
        drop(first);
        assert!(!pending(&mut second));
    }

    #[tokio::test]
    async fn waiting_ends_when_the_gate_opens_later() {
        let mut order = Order::default();
        let notification = order.next(true);
        let mut request = order.next(false);
        let opener = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            notification.accepted.tell();
            notification
        });
        tokio::time::timeout(Duration::from_secs(5), request.wait())
            .await
            .expect("the request is released");
        drop(opener.await);
    }
}
