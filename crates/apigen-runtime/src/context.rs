//! The request as every framework gives it: what the glue reads parameters
//! from, and what a handler may need beyond its typed request.

use super::operation::Operation;
use http::request::Parts;
use http::{Extensions, HeaderMap, Method, Uri};
use std::fmt;

/// A request's parts, whatever framework received it: its method, URI and
/// headers, the path parameters its route matched, and what middleware
/// attached to it (the authenticated caller, say). The generated glue reads
/// the operation's parameters from it, then hands it to the handler. It is
/// `Send`, so a handler's future may hold it across an `.await`.
#[derive(Clone)]
pub struct RequestContext {
    parts: Parts,
    path: Vec<(String, String)>,
    /// The operation the request was routed to: held apart from the
    /// extensions, so that a request with nothing else attached needs no
    /// map of them.
    operation: Option<&'static Operation>,
}

impl RequestContext {
    /// The context of one request: its parts, and the path parameters its
    /// route matched, by name, as the router decoded them. The operation is
    /// the one its extensions hold, if any.
    pub fn new(parts: Parts, path: Vec<(String, String)>) -> Self {
        let operation = parts.extensions.get::<&'static Operation>().copied();
        RequestContext {
            parts,
            path,
            operation,
        }
    }

    /// With the operation the request was routed to.
    pub fn with_operation(mut self, operation: Option<&'static Operation>) -> Self {
        self.operation = operation.or(self.operation);
        self
    }

    /// A context of a request with nothing but a method and a URI (a
    /// test's, say); an unparseable URI is `/`.
    pub fn of(method: Method, uri: &str) -> Self {
        let (mut parts, ()) = http::Request::new(()).into_parts();
        parts.method = method;
        parts.uri = uri.parse().unwrap_or_default();
        RequestContext::new(parts, Vec::new())
    }

    /// The request's method.
    pub fn method(&self) -> &Method {
        &self.parts.method
    }

    /// The request's URI, as it came on the request line.
    pub fn uri(&self) -> &Uri {
        &self.parts.uri
    }

    /// The request's path, not decoded.
    pub fn path(&self) -> &str {
        self.parts.uri.path()
    }

    /// The query string, without its `?` (empty when there is none).
    pub fn query_string(&self) -> &str {
        self.parts.uri.query().unwrap_or("")
    }

    /// The request's headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.parts.headers
    }

    /// A path parameter's value, by its name in the route's template.
    pub fn path_parameter(&self, name: &str) -> Option<&str> {
        self.path
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.as_str())
    }

    /// A value middleware attached to the request (see each framework's
    /// adapter for how: `runtime::actix::attach`, or axum's extensions).
    pub fn extension<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.parts.extensions.get::<T>().cloned()
    }

    /// Everything middleware attached to the request.
    pub fn extensions(&self) -> &Extensions {
        &self.parts.extensions
    }

    /// The extensions, to attach a value.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.parts.extensions
    }

    /// The operation the request was routed to, when the glue attached it.
    pub fn operation(&self) -> Option<&'static Operation> {
        self.operation
    }
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("method", self.method())
            .field("path", &self.path())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middleware_extensions_and_path_parameters_reach_the_handler() {
        let (mut parts, ()) = http::Request::get("/pets/7?x=1")
            .body(())
            .unwrap()
            .into_parts();
        parts.extensions.insert(7_u32);
        let context = RequestContext::new(parts, vec![("petId".into(), "7".into())]);
        assert_eq!(context.extension::<u32>(), Some(7));
        assert_eq!(context.extension::<u64>(), None);
        assert_eq!(context.path_parameter("petId"), Some("7"));
        assert_eq!(context.path_parameter("id"), None);
        assert_eq!(context.query_string(), "x=1");
        assert_eq!(context.path(), "/pets/7");
    }

    #[test]
    fn a_context_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<RequestContext>();
    }
}
