//! A rejection as the result the model reads on its next turn, and what a
//! result echoes of a checked call.

use crate::call::{answerable, ToolCall, ToolResult};
use crate::check::{Accepted, Rejection};

impl Rejection {
    /// The error result answering `call` (the call this rejection is
    /// about), whose text is the rejection's message. The violations stay
    /// out: MCP clients check `structuredContent` against a tool's
    /// `outputSchema`, and the message already lists every one.
    ///
    /// ```
    /// use toolbridge::{call::ToolCall, Format, Tool, Toolbox};
    /// let toolbox = Toolbox::new([Tool::new("now", serde_json::json!({"type": "object"}))])?;
    /// let call = ToolCall::new("call_1", "nwo", serde_json::json!({}));
    /// let rejection = toolbox.check(&call).rejection().cloned().unwrap();
    /// let reply = Format::OpenAi.write_results(&[rejection.to_result(&call)])?.value;
    /// assert_eq!(reply[0]["content"], rejection.message);
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn to_result(&self, call: &ToolCall) -> ToolResult {
        ToolResult::error(call, self.message.clone())
    }

    /// [`to_result`](Rejection::to_result) without the call: the rejection
    /// carries the ids and names the result echoes (what a caller of
    /// [`Toolbox::check_owned`](crate::Toolbox::check_owned) has).
    pub fn result(&self) -> ToolResult {
        ToolResult::error(self, self.message.clone())
    }
}

answerable!(Accepted);
answerable!(Rejection);
