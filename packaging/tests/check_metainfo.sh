#!/bin/sh
# The AppStream metainfo passes `appstreamcli validate --pedantic` with nothing to say: no error,
# warning, info or pedantic hint. One info is expected and allowed: Debian 12's appstream (0.16)
# predates AppStream 1.0's <developer id="…"> and calls it an unknown tag; the file keeps
# <developer_name> beside it for such readers. It also holds what a software centre shows: a
# developer id, release notes with a date, and a caption on every screenshot.
#   check_metainfo.sh METAINFO.xml [APPSTREAMCLI]
set -eu
file=$1 appstreamcli=${2:-appstreamcli}
fail() { echo "FAIL: $*"; exit 1; }
out=$("$appstreamcli" validate --pedantic --no-net --explain "$file" 2>&1) || {
    echo "$out"
    fail "appstreamcli validate --pedantic failed"
}
echo "$out"
issues=$(printf '%s\n' "$out" | grep -E '^[EWIP]: ' |
    grep -v -E '^I: [^ ]+:[0-9]+: unknown-tag developer$' || true)
[ -z "$issues" ] || fail "appstreamcli reported: $issues"
grep -q '<developer id="[a-z0-9.]*">' "$file" || fail "no <developer id=\"…\">"
grep -q '<release version="[^"]*" date="[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\}">' "$file" ||
    fail "no dated <release>"
awk '/<release /,/<\/release>/' "$file" | grep -q '<description>' || fail "the release has no notes"
shots=$(grep -c '<screenshot[ >]' "$file")
captions=$(awk '/<screenshots>/,/<\/screenshots>/' "$file" | grep -c '<caption>')
[ "$shots" -gt 0 ] || fail "no screenshot"
[ "$shots" -eq "$captions" ] || fail "$shots screenshots but $captions captions"
echo "ok: $file ($shots captioned screenshots)"
