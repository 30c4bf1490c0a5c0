;;; real_check.el --- serialise toolbridge's gptel and llm output with the real gptel and llm.el  -*- lexical-binding: t; -*-

;; Usage (by hand: CI has neither gptel nor llm.el):
;;
;;   emacs --batch -Q -L GPTEL-DIR -L LLM-DIR [-L COMPAT-DIR] -l real_check.el \
;;         --eval '(real-check-main "IN.el" "OUT.json")'
;;
;; GPTEL-DIR and LLM-DIR are checkouts of github karthink/gptel and
;; github ahyatt/llm; on Emacs 28 gptel needs the compat package
;; (Debian: elpa-compat) for `plistp'.  `tests/emacs.rs' runs this when
;; TOOLBRIDGE_GPTEL_DIR and TOOLBRIDGE_LLM_DIR are set (and
;; TOOLBRIDGE_COMPAT_DIR where needed) and checks that it writes exactly
;; what the stand-ins of `tool_check.el' write for the same file.
;;
;; IN.el is loaded with the real `gptel-make-tool' and `llm-make-tool'.
;; Each tool made is then serialised the way the packages build a request:
;; - gptel: `gptel--parse-tools' of the `gptel-openai', `gptel-anthropic'
;;   and `gptel-gemini' backends (in that order: the Gemini method edits
;;   argument plists destructively), encoded as `gptel--json-encode' does;
;; - llm.el: `llm-provider-utils-openai-tool-spec' (OpenAI chat), the
;;   `:input_schema' object of `llm-claude--tool-call' and the
;;   `:function_declarations' entry of `llm-vertex--chat-request' (both
;;   built from `llm-provider-utils-openai-arguments'), encoded with
;;   `json-serialize' as `llm-request-plz' does.
;; OUT.json has the format `tool_check.el' writes.

(require 'cl-lib)
(require 'compat nil t)
;; llm.el's HTTP layer needs plz, which tool serialisation never calls.
(dolist (feature '(plz plz-event-source plz-media-type))
  (unless (locate-library (symbol-name feature))
    (provide feature)))
(require 'gptel-request)
(require 'gptel-openai)
(require 'gptel-anthropic)
(require 'gptel-gemini)
(require 'llm)
(require 'llm-provider-utils)

(defvar real-check--made nil
  "Tools made while loading, newest first: (PACKAGE . STRUCT).")

(advice-add 'gptel-make-tool :around
            (lambda (make &rest slots)
              (let ((tool (apply make slots)))
                (push (cons 'gptel tool) real-check--made)
                tool)))

(advice-add 'llm-make-tool :around
            (lambda (make &rest slots)
              (let ((tool (apply make slots)))
                (push (cons 'llm tool) real-check--made)
                tool)))

(defun real-check--gptel-json (object)
  "OBJECT encoded as `gptel--json-encode' does."
  (json-serialize object :null-object :null :false-object :json-false))

(defun real-check--gptel (tool)
  "The OpenAI, Anthropic and Gemini JSON gptel sends for TOOL."
  (let ((openai (aref (gptel--parse-tools (gptel--make-openai) (list tool)) 0))
        (anthropic (aref (gptel--parse-tools (gptel--make-anthropic) (list tool)) 0)))
    ;; Encode before the Gemini method edits the shared argument plists.
    (setq openai (real-check--gptel-json openai)
          anthropic (real-check--gptel-json anthropic))
    (let* ((gemini (gptel--parse-tools (gptel--make-gemini) (list tool)))
           (declaration (aref (plist-get (aref gemini 0) :functionDeclarations) 0)))
      (list :openai openai :anthropic anthropic
            :gemini (real-check--gptel-json declaration)))))

(defun real-check--llm (tool)
  "The OpenAI, Claude and Gemini JSON llm.el sends for TOOL."
  (let ((parameters (lambda () (llm-provider-utils-openai-arguments (llm-tool-args tool)))))
    (list :openai (json-serialize (llm-provider-utils-openai-tool-spec tool))
          :anthropic (json-serialize
                      `(:name ,(llm-tool-name tool)
                              :description ,(llm-tool-description tool)
                              :input_schema ,(funcall parameters)))
          :gemini (json-serialize
                   `(:name ,(llm-tool-name tool)
                           :description ,(llm-tool-description tool)
                           :parameters ,(funcall parameters))))))

(defun real-check--placeholder-message (fn)
  "The error message of FN if it is toolbridge's placeholder, else nil."
  (when (and (eq (car-safe fn) 'closure)
             (equal (nth 2 fn) '(&rest _))
             (= (length (nthcdr 3 fn)) 1)
             (eq (car-safe (nth 3 fn)) 'error))
    (condition-case err
        (progn (funcall fn) "no error")
      (error (error-message-string err)))))

(defun real-check-main (in out)
  "Load IN with the real packages; write what they send to OUT."
  (condition-case err
      (progn
        (setq real-check--made nil)
        (load (expand-file-name in) nil t t)
        (let ((entries
               (mapcar
                (lambda (made)
                  (let* ((package (car made))
                         (tool (cdr made))
                         (name (if (eq package 'gptel) (gptel-tool-name tool) (llm-tool-name tool)))
                         (fn (if (eq package 'gptel) (gptel-tool-function tool) (llm-tool-function tool)))
                         (sent (condition-case err
                                   (if (eq package 'gptel) (real-check--gptel tool) (real-check--llm tool))
                                 (error (error "tool %S: %s cannot serialise it: %S"
                                               name package err))))
                         (placeholder (real-check--placeholder-message fn)))
                    (format "{\"name\":%s,\"package\":%s,\"placeholder\":%s,\"openai\":%s,\"anthropic\":%s,\"gemini\":%s}"
                            (json-serialize name)
                            (json-serialize (symbol-name package))
                            (if placeholder (json-serialize placeholder) "null")
                            (plist-get sent :openai)
                            (plist-get sent :anthropic)
                            (plist-get sent :gemini))))
                (reverse real-check--made))))
          (let ((coding-system-for-write 'utf-8-unix))
            (with-temp-file out
              (insert "[" (mapconcat #'identity entries ",\n") "]\n")))))
    (error
     (message "real_check: %s" (error-message-string err))
     (kill-emacs 1))))

;;; real_check.el ends here
