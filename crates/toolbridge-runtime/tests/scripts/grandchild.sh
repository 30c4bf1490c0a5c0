#!/bin/sh
# Starts a grandchild, `sleep 60`, that holds stdout and writes its pid to the file "$1";
# then waits for it, or with "exit" as "$2" prints "started" and exits at once.
cat >/dev/null
sleep 60 &
echo $! > "$1"
if [ "$2" = exit ]; then
  printf 'started\n'
  exit 0
fi
wait
