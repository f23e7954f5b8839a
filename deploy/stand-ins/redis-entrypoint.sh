#!/bin/sh
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  case "${1:-}" in
    *.conf) ;;
    *) set -- --protected-mode no "$@" ;;
  esac
  set -- redis-server "$@"
  [ "$(id -u)" = 0 ] && exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
