#!/bin/sh
# Installs what Headroom needs to build and test on Debian 12, from Debian's archive only.
# The list, with a reason per package, is scripts/packages.txt (scripts/check_deps.sh reads it
# too). Idempotent: packages already present are skipped, so repeated runs are quick.
#   deps.sh          install what is missing
#   deps.sh --list   print the list, one package a line
set -eu
here=$(dirname "$0")
PACKAGES=$(sed 's/#.*//' "$here/packages.txt" | awk 'NF { print $1 }')
if [ "${1:-}" = --list ]; then
  printf '%s\n' $PACKAGES
  exit 0
fi
# node/npm run the llama.cpp ground truth (node-llama-cpp) in the validation suite; the image
# usually ships a newer Node.js than Debian's, which is kept when present.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs npm"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
