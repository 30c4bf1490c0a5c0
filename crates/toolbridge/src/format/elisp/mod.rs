//! The Emacs Lisp formats: `gptel` and `llm` (llm.el), which take the same
//! tool plist. `sexp` reads and prints the Emacs Lisp itself; `gptel` holds
//! the tool reader and writer both formats share; `llm` adds what llm.el does
//! differently.

mod sexp;

pub(crate) mod gptel;
pub(crate) mod llm;
