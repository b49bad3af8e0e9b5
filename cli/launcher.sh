#!/bin/sh
# The `shadow` command: starts node on shadow.cjs beside this file (found
# through the symlinks a package manager puts on the PATH).
# NODE_EXTRA_CA_CERTS is set aside for node's start (it costs about 45 ms of
# certificate parsing, and shadow makes no TLS connection of its own) and put
# back before anything runs, so what shadow starts gets it (launcher-env.ts).
p=$0
while [ -h "$p" ]; do
  l=$(readlink "$p")
  case $l in
    /*) p=$l ;;
    *) p=${p%/*}/$l ;;
  esac
done
case $p in
  */*) d=${p%/*} ;;
  *) d=. ;;
esac
if [ -n "${NODE_EXTRA_CA_CERTS+set}" ]; then
  SHADOW_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS
  export SHADOW_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
exec node "$d/shadow.cjs" "$@"
