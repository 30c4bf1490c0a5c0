#!/bin/sh
# Writes 100,000 bytes to stdout, or with "stderr" 100,000 bytes to stderr and "ok" to stdout.
if [ "$1" = stderr ]; then
  head -c 100000 /dev/zero | tr '\0' e >&2
  printf 'ok\n'
else
  head -c 100000 /dev/zero | tr '\0' x
fi
