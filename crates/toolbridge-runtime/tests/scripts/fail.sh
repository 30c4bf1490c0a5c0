#!/bin/sh
# Reads its input, complains on stderr and exits 3.
cat >/dev/null
printf '  the city %s is unknown  \n' "nowhere" >&2
exit 3
