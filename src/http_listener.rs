//! The one HTTP listener of the servers sightline runs itself (the demo server, a recording's
//! replay): bound to an address with its endpoint's URL printed on stdout for whoever started
//! the server, every connection served over HTTP/1 by one handler, and the plain-text answer
//! they share.

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// The body of an answer that may be a stream.
pub type Body = BoxBody<Bytes, Infallible>;

/// Listens on `address` and prints the endpoint's URL (`http://HOST:PORT/mcp`) on stdout, for
/// whoever started this server to read.
pub async fn listen(address: SocketAddr) -> std::io::Result<(TcpListener, String)> {
    let listener = TcpListener::bind(address).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let mut stdout = tokio::io::stdout();
    stdout.write_all(format!("{url}\n").as_bytes()).await?;
    stdout.flush().await?;
    Ok((listener, url))
}

/// Serves every connection `listener` accepts, each request answered by `answer`, until the
/// process ends (or accepting fails).
pub async fn serve<A, F, B>(listener: TcpListener, answer: A) -> std::io::Result<()>
where
    A: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Result<Response<B>, Infallible>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    loop {
        let (stream, _) = listener.accept().await?;
        let answer = answer.clone();
        tokio::spawn(async move {
            let service = service_fn(answer);
            // A client that goes away mid-answer is that client's business.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A plain-text answer with `status`.
pub fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}
