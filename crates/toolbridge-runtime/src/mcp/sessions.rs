//! The sessions of `serve --http`, bounded in number: rmcp's
//! `LocalSessionManager` keeps any number (an idle one ends after five
//! minutes), so a flood of `initialize` requests would grow the server
//! without limit; past the limit, `initialize` is refused, naming it (over
//! HTTP with 503 and `Retry-After`).

use std::sync::Arc;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

/// A `LocalSessionManager` that keeps at most `max` sessions.
#[derive(Debug)]
pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// Held while a session is counted and created, so that two
    /// `initialize` requests cannot both take the last place.
    creating: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    pub(crate) fn new(max: usize) -> BoundedSessions {
        BoundedSessions {
            inner: LocalSessionManager::default(),
            max,
            creating: tokio::sync::Mutex::new(()),
        }
    }

    async fn count(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

/// Why a session request failed.
#[derive(Debug)]
pub(crate) enum SessionError {
    /// The server already keeps its most sessions.
    Full(usize),
    /// rmcp's own error.
    Local(LocalSessionManagerError),
}

impl SessionError {
    /// The start of the message for [`SessionError::Full`], by which the
    /// HTTP layer tells it from rmcp's own failures (rmcp answers both with
    /// 500 and the error's text).
    pub(crate) const FULL_MARK: &'static str = "the server keeps at most ";
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Full(max) => write!(
                f,
                "{}{max} sessions (max_sessions, `serve --max-sessions`); \
                 close one (HTTP DELETE) or retry when an idle one has ended",
                SessionError::FULL_MARK
            ),
            SessionError::Local(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {}

impl From<LocalSessionManagerError> for SessionError {
    fn from(error: LocalSessionManagerError) -> SessionError {
        SessionError::Local(error)
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.count().await >= self.max {
            return Err(SessionError::Full(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let _creating = self.creating.lock().await;
        if !self.inner.has_session(&id).await? && self.count().await >= self.max {
            return Err(SessionError::Full(self.max));
        }
        Ok(self.inner.restore_session(id).await?)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
