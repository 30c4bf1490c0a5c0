;;; native_check.el --- toolbridge's native plists checked against json-parse-string  -*- lexical-binding: t; -*-

;; Each case in the input file is a list (JSON DECODING PRINTED).  The
;; expected value is what the package's own decoding gives for JSON
;; (settings from karthink/gptel `gptel-request.el' `gptel--json-read-string'
;; / `gptel--json-read', and from ahyatt/llm
;; `llm-provider-utils-parse-openai-tool-arguments' and plz-media-type's
;; application/json class, then llm.el's false-keyword normalisation); the
;; actual value is PRINTED read back with `read'.  Prints "ok N" or every
;; mismatch.

(defun native-check--unfalse (value)
  "VALUE with every `:false' and `:json-false' replaced by nil, recursively."
  (cond ((memq value '(:false :json-false)) nil)
        ((vectorp value) (vconcat (mapcar #'native-check--unfalse value)))
        ((consp value) (cons (native-check--unfalse (car value))
                             (native-check--unfalse (cdr value))))
        (t value)))

(defun native-check--decode (json decoding)
  "JSON as DECODING reads it."
  (pcase decoding
    ('gptel-string (json-parse-string json :object-type 'plist
                                      :null-object nil :false-object :json-false))
    ('gptel-body (json-parse-string json :object-type 'plist
                                    :null-object :null :false-object :json-false))
    ('llm-string (native-check--unfalse (json-parse-string json :object-type 'alist)))
    ('llm-body (native-check--unfalse
                (json-parse-string json :object-type 'alist :array-type 'array
                                   :null-object nil :false-object :json-false)))))

(defun native-check-main (input)
  "Check every case in file INPUT."
  (let ((cases (with-temp-buffer
                 (insert-file-contents input)
                 (read (current-buffer))))
        (failures 0))
    (dolist (case cases)
      (let* ((expected (native-check--decode (nth 0 case) (nth 1 case)))
             (read-back (read (nth 2 case))))
        (unless (equal expected read-back)
          (setq failures (1+ failures))
          (princ (format "FAIL %s %s\n  expected %S\n  printed  %s\n"
                         (nth 1 case) (nth 0 case) expected (nth 2 case))))))
    (princ (format "ok %d\n" (- (length cases) failures)))
    (kill-emacs (if (zerop failures) 0 1))))

;;; native_check.el ends here
