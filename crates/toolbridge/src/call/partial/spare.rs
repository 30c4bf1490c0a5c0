//! Emptied text buffers kept for reuse: the text of a new change or event
//! is copied into one instead of a new allocation.

/// A few emptied text buffers, none larger than [`SpareTexts::LARGEST`] (so
/// that one large text does not pin its memory).
#[derive(Clone, Debug, Default)]
pub(crate) struct SpareTexts(Vec<String>);

impl SpareTexts {
    /// How many buffers are kept.
    pub(crate) const KEPT: usize = 8;
    /// The largest buffer kept, in bytes of capacity.
    const LARGEST: usize = 4096;

    /// Keeps `text`'s buffer, emptied, when there is room for it.
    pub(crate) fn keep(&mut self, mut text: String) {
        if self.0.len() < SpareTexts::KEPT && (1..=SpareTexts::LARGEST).contains(&text.capacity()) {
            text.clear();
            self.0.push(text);
        }
    }

    /// A copy of `text`, in a kept buffer when there is one.
    #[inline]
    pub(crate) fn copy_of(&mut self, text: &str) -> String {
        match self.0.pop() {
            Some(mut buffer) => {
                buffer.push_str(text);
                buffer
            }
            None => text.to_string(),
        }
    }
}
