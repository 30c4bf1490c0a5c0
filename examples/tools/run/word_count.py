"""The word_count tool (word_count.json): arguments as JSON on stdin, the counts as JSON on stdout."""

import json
import sys

arguments = json.load(sys.stdin)
text = arguments["text"]
json.dump({"words": len(text.split()), "lines": len(text.splitlines())}, sys.stdout)
print()
