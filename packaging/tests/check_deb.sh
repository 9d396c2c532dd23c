#!/bin/sh
# Builds the .deb and .tar.gz with CPack from an already built tree and checks what they hold:
# programs, shared data, man page, (with the GUI) icons, desktop entry and metainfo, and that
# dpkg-shlibdeps produced the Depends of the libraries the binaries link.
# Then it installs the .deb into a scratch root (dpkg-deb -x, no root needed) and runs both
# programs from there: headroom-cli --version and a plan, and the GUI offscreen.
#   check_deb.sh BUILD_DIR SOURCE_DIR DESKTOP(ON|OFF) APP_ID
set -eu
build=$1 src=$2 desktop=$3 id=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work" >cpack.log 2>&1 || {
    cat cpack.log
    exit 1
}
deb=$(ls "$work"/*.deb)
tgz=$(ls "$work"/*.tar.gz)
fail() { echo "FAIL: $*"; exit 1; }
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >contents
dpkg-deb -I "$deb" >info
cat info
need() { grep -qx "$1" contents || fail "$deb lacks $1"; }
lacks() { ! grep -qx "$1" contents || fail "$deb should not hold $1"; }
need /usr/bin/headroom-cli
need /usr/share/headroom/catalog.json
[ ! -f "$src/resources/presets.json" ] || need /usr/share/headroom/presets.json
need /usr/share/man/man1/headroom-cli.1.gz
if [ "$desktop" = ON ]; then
    need "/usr/share/applications/$id.desktop"
    need "/usr/share/metainfo/$id.metainfo.xml"
    need "/usr/share/icons/hicolor/scalable/apps/$id.svg"
    for s in 16 22 24 32 48 64 128 256 512; do
        need "/usr/share/icons/hicolor/${s}x$s/apps/$id.png"
    done
else
    lacks "/usr/share/applications/$id.desktop"
fi
grep -q '^ Package: headroom$' info || fail "package name"
grep -q '^ Architecture: ' info || fail "no Architecture"
depends=$(sed -n 's/^ Depends: //p' info)
[ -n "$depends" ] || fail "no Depends (dpkg-shlibdeps did not run?)"
for lib in libc6 libstdc++6 libyaml-cpp; do
    echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib: $depends"
done
if [ "$desktop" = ON ]; then
    echo "$depends" | grep -q 'libqt6widgets6' || fail "Depends lacks Qt Widgets: $depends"
fi
grep -q '^ Recommends: libvulkan1' info || fail "Recommends lacks libvulkan1"
# The packaged program runs from its unpacked tree and finds its data in ../share/headroom.
mkdir root
dpkg-deb -x "$deb" root
env -u HEADROOM_RESOURCES root/usr/bin/headroom-cli --version | grep -q "headroom-cli" ||
    fail "the packaged headroom-cli does not run"
# A plan of a catalog model: the catalog is read from the package's share/headroom.
env -u HEADROOM_RESOURCES root/usr/bin/headroom-cli plan --model qwen3-8b --vram 24GiB \
    --ram 64GiB --json >plan.json || fail "the packaged headroom-cli cannot plan"
grep -q '"schema": "headroom.plan/1"' plan.json || fail "the packaged plan is not headroom.plan/1"
if [ "$desktop" = ON ]; then
    # The GUI has no --help or --version yet (its command line is another issue): it is started
    # offscreen, with an empty home, and must still be running after 5 s (timeout's 124), not
    # have exited or crashed on start.
    mkdir home
    rc=0
    env -u HEADROOM_RESOURCES HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
        XDG_CACHE_HOME="$work/home/.cache" QT_QPA_PLATFORM=offscreen \
        timeout 5 root/usr/bin/headroom >gui.log 2>&1 || rc=$?
    [ "$rc" -eq 124 ] || { cat gui.log; fail "the packaged headroom exited with $rc on start"; }
fi
# The TGZ carries the same files.
tar -tzf "$tgz" | grep -q '/bin/headroom-cli$' || fail "$tgz lacks bin/headroom-cli"
tar -tzf "$tgz" | grep -q '/share/man/man1/headroom-cli.1.gz$' || fail "$tgz lacks the man page"
echo "ok: $(basename "$deb"), $(wc -l <contents) entries; Depends: $depends"
