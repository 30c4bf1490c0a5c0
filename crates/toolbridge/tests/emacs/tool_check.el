;;; tool_check.el --- check toolbridge's gptel and llm output with a real Emacs  -*- lexical-binding: t; -*-

;; Usage: emacs --batch -Q -l tool_check.el --eval '(tool-check-main "IN.el" "OUT.json")'
;;
;; Checks toolbridge's gptel and llm output with a real Emacs:
;; 1. every form of IN.el must be read by Emacs's own reader, to the end of
;;    the file;
;; 2. IN.el is then loaded (so every form is evaluated: quotes, backquotes,
;;    vectors, string escapes, lambdas, #'fn) against stand-ins for
;;    `gptel-make-tool' and `llm-make-tool' that keep their keyword
;;    arguments.  gptel and llm.el themselves are not installed (CI cannot
;;    install them): the stand-ins, the checks and the serialisation below
;;    restate the rules of their real sources, each naming the function it
;;    comes from (github karthink/gptel at cd2cd73: gptel-request.el,
;;    gptel-anthropic.el, gptel-gemini.el; github ahyatt/llm at a8d893b:
;;    llm.el, llm-provider-utils.el), and `real_check.el' loads the real
;;    packages by hand to confirm that they agree;
;; 3. each captured tool must have the shape gptel (resp. llm.el) needs:
;;    otherwise the run stops with an error naming the tool and the problem;
;; 4. each tool is serialised as gptel's `gptel--parse-tools' does for its
;;    OpenAI, Anthropic and Gemini backends (resp. as llm.el's
;;    `llm-provider-utils-openai-arguments' does for OpenAI, Claude and
;;    Gemini), with Emacs's own `json-serialize'.
;;
;; OUT.json gets one JSON array, one object per tool in load order:
;; {"name", "package": "gptel"|"llm", "placeholder": the error message of
;; toolbridge's placeholder :function or null, "openai", "anthropic",
;; "gemini": the tool as that backend's request carries it}.

(require 'cl-lib)

(defvar tool-check--captured nil
  "The tools made while loading, newest first: (PACKAGE . SLOTS).")

(defun gptel-make-tool (&rest slots)
  "Stand-in for gptel's constructor: keep SLOTS (a plist)."
  (push (cons 'gptel slots) tool-check--captured)
  (cons 'gptel-tool slots))

(defun llm-make-tool (&rest slots)
  "Stand-in for llm.el's constructor: keep SLOTS (a plist)."
  (push (cons 'llm slots) tool-check--captured)
  (cons 'llm-tool slots))

;;;; Checks

(defvar tool-check--tool-name "?"
  "The tool being checked, for error messages.")

(defun tool-check--fail (where format-string &rest args)
  "Stop: the current tool is wrong at WHERE; FORMAT-STRING and ARGS say how."
  (error "tool %S: %s: %s" tool-check--tool-name where
         (apply #'format format-string args)))

(defun tool-check--plist-p (value)
  "Non-nil if VALUE is a proper list of keyword/value pairs (nil included)."
  (and (proper-list-p value)
       (cl-evenp (length value))
       (cl-loop for key in value by #'cddr always (keywordp key))))

(defun tool-check--check-plist (value where)
  "VALUE at WHERE must be a plist whose keys appear once."
  (unless (tool-check--plist-p value)
    (tool-check--fail where "must be a plist of :keyword value pairs, found %S" value))
  (let (seen)
    (cl-loop for key in value by #'cddr
             do (when (memq key seen)
                  (tool-check--fail where "%s appears twice (only the first counts)" key))
             (push key seen))))

(defun tool-check--json-value (value where)
  "VALUE at WHERE must be something `json-serialize' sends.
Strings, numbers, t, :null, :json-false, :false, vectors and plists."
  (cond
   ((or (stringp value) (integerp value) (memq value '(t nil :null :json-false :false))))
   ((floatp value)
    (when (or (isnan value) (= value 1.0e+INF) (= value -1.0e+INF))
      (tool-check--fail where "%S has no JSON form" value)))
   ((vectorp value)
    (dotimes (i (length value))
      (tool-check--json-value (aref value i) (format "%s[%d]" where i))))
   ((consp value)
    (tool-check--check-plist value where)
    (cl-loop for (key item) on value by #'cddr
             ;; gptel turns every symbol :type value into a string first.
             unless (and (eq key :type) item (symbolp item) (not (keywordp item)))
             do (tool-check--json-value item (format "%s %s" where key))))
   ((symbolp value)
    (tool-check--fail where "the symbol %S is not JSON (only a :type may be a symbol)" value))
   (t (tool-check--fail where "%S is not JSON" value))))

(defun tool-check--schema (schema where package)
  "SCHEMA at WHERE is an argument plist (without :name/:optional) or a
nested schema plist, as PACKAGE (`gptel' or `llm') reads it."
  (tool-check--check-plist schema where)
  (cl-loop
   for (key value) on schema by #'cddr
   for at = (format "%s %s" where key)
   do (pcase key
        (:type
         (cond ((and (symbolp value) value (not (keywordp value)) (not (eq value t))))
               ((and (eq package 'gptel) (stringp value)))
               ((and (eq package 'gptel) (vectorp value)
                     (cl-every #'stringp value)))
               ((eq package 'llm)
                (tool-check--fail at "llm.el needs a symbol (it calls symbol-name), found %S" value))
               (t (tool-check--fail at "must be a symbol (or a string, or a vector of type strings), found %S" value))))
        (:description
         (unless (stringp value)
           (tool-check--fail at "must be a string, found %S" value)))
        (:enum
         (unless (vectorp value)
           (tool-check--fail at "must be a vector (a list fails json-serialize), found %S" value))
         (tool-check--json-value value at))
        (:required
         (unless (and (vectorp value) (cl-every #'stringp value))
           (tool-check--fail at "must be a vector of strings, found %S" value)))
        (:items
         (unless (and (consp value) (tool-check--plist-p value))
           (tool-check--fail at "must be a schema plist, found %S" value))
         (tool-check--schema value at package))
        (:properties
         (tool-check--check-plist value at)
         (cl-loop for (name property) on value by #'cddr
                  do (unless (tool-check--plist-p property)
                       (tool-check--fail (format "%s %s" at name)
                                         "a property's schema must be a plist, found %S" property))
                  (tool-check--schema property (format "%s %s" at name) package)))
        ((or :anyOf :oneOf :allOf :prefixItems)
         (unless (vectorp value)
           (tool-check--fail at "must be a vector of schemas, found %S" value))
         (tool-check--json-value value at))
        ((or :name :optional)
         (tool-check--fail at "is an argument's own key; a nested schema cannot hold it"))
        (_ (tool-check--json-value value at)))))

(defun tool-check--arg (arg index package)
  "Check argument plist ARG, number INDEX (from 0) in :args, for PACKAGE."
  (let ((where (format ":args[%d]" index)))
    (tool-check--check-plist arg where)
    (let ((name (plist-get arg :name)))
      (unless (and (stringp name) (> (length name) 0))
        (tool-check--fail where ":name must be a non-empty string, found %S" name)))
    (unless (memq (plist-get arg :optional) '(t nil))
      (tool-check--fail where ":optional must be t or nil, found %S" (plist-get arg :optional)))
    ;; `gptel-make-tool''s docstring: every argument needs a :type (a symbol)
    ;; and a string :description.  `llm-provider-utils-openai-arguments'
    ;; calls `symbol-name' on :type, so without one llm.el sends "nil".
    (unless (plist-member arg :type)
      (tool-check--fail where (if (eq package 'llm)
                                  "llm.el needs a :type (it would send \"type\": \"nil\")"
                                "gptel-make-tool needs a :type on every argument")))
    (unless (stringp (plist-get arg :description))
      (tool-check--fail where "gptel-make-tool needs a string :description on every argument, found %S"
                        (plist-get arg :description)))
    (let ((schema (copy-sequence arg)))
      (cl-remf schema :name)
      (cl-remf schema :optional)
      (tool-check--schema schema where package))))

(defun tool-check--tool (package slots)
  "Check the SLOTS given to PACKAGE's constructor (§1.1 / §2.1)."
  (tool-check--check-plist slots "the tool")
  (let ((name (plist-get slots :name))
        (fn (plist-get slots :function))
        (description (plist-get slots :description))
        (args (plist-get slots :args)))
    (unless (and (stringp name) (> (length name) 0))
      (tool-check--fail ":name" "must be a non-empty string, found %S" name))
    (setq tool-check--tool-name name)
    (unless (or (functionp fn) (and fn (symbolp fn) (not (keywordp fn)) (not (eq fn t))))
      (tool-check--fail ":function" "must be a function or a function's symbol, found %S" fn))
    (unless (stringp description)
      (tool-check--fail ":description" "must be a string, found %S" description))
    (unless (proper-list-p args)
      (tool-check--fail ":args" "must be a list of argument plists, found %S" args))
    (when (and args (keywordp (car args)))
      (tool-check--fail ":args" "is one plist, not a list of them"))
    (cl-loop for arg in args for index from 0
             do (tool-check--arg arg index package))
    (let ((names (mapcar (lambda (arg) (plist-get arg :name)) args)))
      (unless (equal names (delete-dups (copy-sequence names)))
        (tool-check--fail ":args" "two arguments have the same :name: %S" names)))
    (unless (memq (plist-get slots :async) '(t nil))
      (tool-check--fail ":async" "must be t or nil, found %S" (plist-get slots :async)))
    (when (eq package 'gptel)
      (let ((category (plist-get slots :category))
            (confirm (plist-get slots :confirm))
            (include (plist-get slots :include)))
        (unless (or (null category) (stringp category))
          (tool-check--fail ":category" "must be a string, found %S" category))
        (unless (or (memq confirm '(t nil)) (functionp confirm))
          (tool-check--fail ":confirm" "must be t, nil or a function, found %S" confirm))
        (unless (memq include '(t nil call))
          (tool-check--fail ":include" "must be t, call or nil, found %S" include))))
    (when (eq package 'llm)
      (dolist (slot '(:category :confirm :include))
        (when (plist-member slots slot)
          (tool-check--fail (symbol-name slot) "is a gptel slot; toolbridge's llm writer leaves it out"))))))

;;;; gptel's serialisation: `gptel--preprocess-tool-args' (gptel-request.el) and
;;;; `gptel--parse-tools' of the generic (OpenAI), Anthropic and Gemini backends

(defun tool-check--stringify-types (spec)
  "Turn every symbol :type value in SPEC into its name, recursively.
As `gptel--preprocess-tool-args' does (destructively, in `gptel--make-tool');
SPEC here is a copy."
  (cond
   ((vectorp spec) (vconcat (mapcar #'tool-check--stringify-types spec)))
   ((and (consp spec) (keywordp (car spec)))
    (cl-loop for (key value) on spec by #'cddr
             append (list key
                          (if (and (eq key :type) value (symbolp value))
                              (symbol-name value)
                            (tool-check--stringify-types value)))))
   ((consp spec) (mapcar #'tool-check--stringify-types spec))
   (t spec)))

(defun tool-check--gptel-properties (args backend)
  "The \"properties\" plist gptel sends for ARGS to BACKEND.
The loop of `gptel--parse-tools': each arg without :name and :optional; an
object arg gets :required [] when it has none and, for the generic (OpenAI)
method, :additionalProperties :json-false; the Gemini method removes
:format from string args and filters the rest."
  (cl-loop
   for arg in args
   for name = (plist-get arg :name)
   for spec = (copy-sequence arg)
   do (cl-remf spec :name)
   (cl-remf spec :optional)
   (when (equal (plist-get spec :type) "object")
     (unless (plist-member spec :required)
       (setq spec (append spec (list :required []))))
     (when (eq backend 'openai)
       (setq spec (plist-put spec :additionalProperties :json-false))))
   (when (eq backend 'gemini)
     (when (equal (plist-get spec :type) "string")
       (cl-remf spec :format))
     (setq spec (tool-check--strip-additional spec)))
   append (list (make-symbol (concat ":" name)) spec)))

(defun tool-check--strip-additional (schema)
  "SCHEMA without :additionalProperties, in nested plists and in the
schemas of :anyOf and :allOf (`gptel--gemini-filter-schema')."
  (if (not (and (consp schema) (tool-check--plist-p schema)))
      schema
    (cl-loop for (key value) on schema by #'cddr
             unless (eq key :additionalProperties)
             append (list key
                          (cond
                           ((and (memq key '(:anyOf :allOf)) (vectorp value))
                            (vconcat (mapcar #'tool-check--strip-additional value)))
                           (t (tool-check--strip-additional value)))))))

(defun tool-check--gptel-required (args)
  "The names of ARGS without :optional t, as a vector, in :args order."
  (vconcat (cl-loop for arg in args
                    unless (plist-get arg :optional)
                    collect (plist-get arg :name))))

(defun tool-check--gptel-json (object)
  "OBJECT as `gptel--json-encode' encodes it."
  (json-serialize object :null-object :null :false-object :json-false))

(defun tool-check--gptel (slots)
  "The three backend JSON texts gptel sends for the tool SLOTS."
  (let* ((name (plist-get slots :name))
         (description (plist-get slots :description))
         (args (tool-check--stringify-types (plist-get slots :args))))
    (list
     :openai
     (tool-check--gptel-json
      (list :type "function"
            :function
            (list :name name :description description
                  :parameters
                  (if args
                      (list :type "object"
                            :properties (tool-check--gptel-properties args 'openai)
                            :required (tool-check--gptel-required args)
                            :additionalProperties :json-false)
                    (list :type "object" :properties nil)))))
     :anthropic
     (tool-check--gptel-json
      (list :name name :description description
            :input_schema
            (list :type "object"
                  :properties (tool-check--gptel-properties args 'anthropic)
                  :required (tool-check--gptel-required args))))
     :gemini
     (tool-check--gptel-json
      (list :name name :description description
            :parameters
            (if args
                (list :type "object"
                      :properties (tool-check--gptel-properties args 'gemini)
                      :required (tool-check--gptel-required args))
              :null))))))

;;;; llm.el's serialisation: `llm-provider-utils-openai-arguments' and
;;;; `llm-provider-utils-convert-to-serializable' (llm-provider-utils.el)

(defun tool-check--llm-serializable (plist)
  "PLIST as `llm-provider-utils-convert-to-serializable' converts it:
symbols to strings, nil to null, t to true, :json-false and :false to
false, nested plists converted the same way; anything else as it is."
  (cl-loop for (key value) on plist by #'cddr
           append (list key
                        (cond ((memq value '(:json-false :false)) :false)
                              ((eq value t) t)
                              ((null value) :null)
                              ((symbolp value) (symbol-name value))
                              ((consp value) (tool-check--llm-serializable value))
                              (t value)))))

(defun tool-check--llm-parameters (args)
  "The parameters object `llm-provider-utils-openai-arguments' builds for ARGS."
  (let (properties required)
    (dolist (arg args)
      (let* ((items (plist-get arg :items))
             (object-properties (tool-check--llm-serializable (plist-get arg :properties)))
             (schema (list :type (symbol-name (plist-get arg :type)))))
        (when (plist-get arg :description)
          (setq schema (append schema (list :description (plist-get arg :description)))))
        (when (plist-get arg :enum)
          (setq schema (append schema (list :enum (plist-get arg :enum)))))
        (when items
          (setq schema (append schema (list :items (tool-check--llm-serializable items)))))
        (when object-properties
          (setq schema (append schema (list :properties object-properties))))
        (unless (plist-get arg :optional)
          (push (plist-get arg :name) required))
        (setq properties
              (append properties (list (intern (concat ":" (plist-get arg :name))) schema)))))
    (append (list :type "object" :properties properties)
            (and required (list :required (vconcat (nreverse required)))))))

(defun tool-check--llm (slots)
  "The three backend JSON texts llm.el sends for the tool SLOTS."
  (let ((name (plist-get slots :name))
        (description (plist-get slots :description))
        (parameters (tool-check--llm-parameters (plist-get slots :args))))
    (list
     :openai (json-serialize
              (list :type "function"
                    :function (list :name name :description description
                                    :parameters parameters)))
     :anthropic (json-serialize
                 (list :name name :description description :input_schema parameters))
     :gemini (json-serialize
              (list :name name :description description :parameters parameters)))))

;;;; Driver

(defun tool-check--read-all (file)
  "Read every form of FILE with Emacs's reader, to the end of the file.
Signal an error naming the line of a form that does not read."
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8))
      (insert-file-contents file))
    (goto-char (point-min))
    (let ((count 0))
      (while (progn (forward-comment (buffer-size)) (not (eobp)))
        (let ((line (line-number-at-pos)))
          (condition-case err
              (progn (read (current-buffer)) (setq count (1+ count)))
            (end-of-file
             (error "%s: the form at line %d is never finished" file line))
            (invalid-read-syntax
             (error "%s: the form at line %d does not read: %S" file line err)))))
      count)))

(defun tool-check--placeholder-message (fn)
  "The error message of FN if it is toolbridge's placeholder, else nil.
The placeholder is (lambda (&rest _) (error FORMAT NAME)); only a
function of exactly that shape is called."
  (when (and (eq (car-safe fn) 'closure)
             (equal (nth 2 fn) '(&rest _))
             (= (length (nthcdr 3 fn)) 1)
             (eq (car-safe (nth 3 fn)) 'error))
    (condition-case err
        (progn (funcall fn) "no error")
      (error (error-message-string err)))))

(defun tool-check--json-string (text)
  "TEXT as a JSON string."
  (json-serialize text))

(defun tool-check-main (in out)
  "Check the toolbridge output IN; write the JSON described above to OUT."
  (condition-case err
      (progn
        (tool-check--read-all in)
        (setq tool-check--captured nil)
        (load (expand-file-name in) nil t t)
        (let ((entries
               (mapcar
                (lambda (captured)
                  (let* ((package (car captured))
                         (slots (cdr captured))
                         (tool-check--tool-name "?"))
                    (tool-check--tool package slots)
                    (let ((sent (if (eq package 'gptel)
                                    (tool-check--gptel slots)
                                  (tool-check--llm slots)))
                          (placeholder (tool-check--placeholder-message
                                        (plist-get slots :function))))
                      (format "{\"name\":%s,\"package\":%s,\"placeholder\":%s,\"openai\":%s,\"anthropic\":%s,\"gemini\":%s}"
                              (tool-check--json-string (plist-get slots :name))
                              (tool-check--json-string (symbol-name package))
                              (if placeholder (tool-check--json-string placeholder) "null")
                              (plist-get sent :openai)
                              (plist-get sent :anthropic)
                              (plist-get sent :gemini)))))
                (reverse tool-check--captured))))
          (let ((coding-system-for-write 'utf-8-unix))
            (with-temp-file out
              (insert "[" (mapconcat #'identity entries ",\n") "]\n")))))
    (error
     (message "tool_check: %s" (error-message-string err))
     (kill-emacs 1))))

;;; tool_check.el ends here
