//! What a handler may need beyond its typed request.

use actix_web::HttpRequest;
use std::fmt;

/// What a handler may need beyond the typed request: the HTTP request itself,
/// and what middleware attached to it (the authenticated caller, say).
#[derive(Clone)]
pub struct RequestContext {
    request: HttpRequest,
}

impl RequestContext {
    /// The context of one request.
    pub fn new(request: HttpRequest) -> Self {
        RequestContext { request }
    }

    /// The underlying request: headers, peer address, matched route.
    pub fn http(&self) -> &HttpRequest {
        &self.request
    }

    /// A value middleware stored in the request's extensions.
    pub fn extension<T: Clone + 'static>(&self) -> Option<T> {
        use actix_web::HttpMessage as _;
        self.request.extensions().get::<T>().cloned()
    }
}

impl fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestContext")
            .field("method", self.request.method())
            .field("path", &self.request.path())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::HttpMessage as _;

    #[test]
    fn middleware_extensions_reach_the_handler() {
        let request = actix_web::test::TestRequest::default().to_http_request();
        request.extensions_mut().insert(7_u32);
        let context = RequestContext::new(request);
        assert_eq!(context.extension::<u32>(), Some(7));
        assert_eq!(context.extension::<u64>(), None);
    }
}
