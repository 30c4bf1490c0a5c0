"""The word_count tool: the arguments as JSON on stdin, the result as JSON on stdout."""
import json
import sys

arguments = json.load(sys.stdin)
print(json.dumps({"words": len(arguments["text"].split())}))
