;;; notes.el --- two Emacs Lisp functions to offer a model as tools  -*- lexical-binding: t; -*-

(defun my-notes-search (query &optional limit)
  "Search my notes for QUERY.
LIMIT is an integer: at most this many notes are returned."
  (declare (type string query))
  (seq-take (my-notes--matching query) (or limit 10)))

(cl-defun my-notes-add (title &key body (pinned nil))
  "Add a note called TITLE.
BODY is the text of the note.  If PINNED is non-nil, the note stays on top."
  (my-notes--insert title body pinned))

(defun my-notes--log (&rest parts)
  "Log PARTS to the notes buffer."
  (apply #'message parts))
