#!/bin/sh
# Answers JSON (for a tool with an outputSchema), or non-JSON with "text".
cat >/dev/null
if [ "$1" = text ]; then printf 'not json\n'; else printf '{"ok": true}\n'; fi
