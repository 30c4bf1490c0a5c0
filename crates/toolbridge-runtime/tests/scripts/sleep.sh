#!/bin/sh
# Never answers in time.
exec sleep 30
