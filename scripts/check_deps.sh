#!/bin/sh
# Proves that the dependencies configure found are the ones scripts/deps.sh installs, so that a
# package only this machine happens to have is caught here and not on a user's fresh Debian 12.
#   check_deps.sh [--set SET] [--configure-failed LOG] [BUILD_DIR [PACKAGES_FILE]]
#                 (defaults: build, the list of deps.sh --list SET; SET app, package or all,
#                  default all: the app-only build of scripts/run.sh is checked against `app`)
# Every `<Name>_DIR` entry of BUILD_DIR/CMakeCache.txt is a CMake package config that
# find_package() looked for, Qt 6 components and their transitive find_dependency() included.
# Each config file found is mapped to the Debian package that owns it (dpkg -S); that package
# must be in PACKAGES_FILE or in the dependency closure of its packages
# (apt-cache depends --recurse, Depends and Pre-Depends only). A config that no Debian package
# owns (built from source into /usr/local, say) fails too. Exit 0 when all are accounted for.
# With --configure-failed LOG (after configure stopped; LOG is its output) it names each package
# config that was looked for and not found; after a successful configure those are optional.
set -eu
cd "$(dirname "$0")/.."
failed_configure=0
log=""
set_name=all
if [ "${1:-}" = --set ]; then
  set_name=$2
  shift 2
fi
if [ "${1:-}" = --configure-failed ]; then
  failed_configure=1
  log=$2
  shift 2
fi
build=${1:-build}
list=${2:-}
listname=$list
if [ -z "$list" ]; then
  listname="the list in scripts/deps.sh"
  [ "$set_name" = all ] || listname="the '$set_name' set in scripts/deps.sh"
  # The list deps.sh installs (printed by deps.sh --list SET), in a temporary file.
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  sh "$(dirname "$0")/deps.sh" --list "$set_name" >"$list"
fi
cache=$build/CMakeCache.txt
[ -f "$cache" ] || { echo "check_deps: $cache not found (configure first)" >&2; exit 2; }

packages=$(sed 's/#.*//' "$list" | awk 'NF { print $1 }')
fail=0
# deps.sh must have run: the closure below is read from what dpkg has installed.
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "check_deps: $p (listed in $listname) is not installed: run sh scripts/deps.sh" \
      "$set_name" >&2
    fail=1
  fi
done
[ "$fail" -eq 0 ] || exit 1

# Installed packages carry their dependencies in dpkg's status file, so this works without
# `apt-get update`. Alternatives (a | b) are all followed: the check is about packages that no
# listed package can pull in at all. Architecture qualifiers (:amd64) are dropped.
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $packages 2>/dev/null |
  awk '/^[^ ]/ { name = $1; gsub(/[<>]/, "", name); sub(/:.*/, "", name); print name }' | sort -u)

checked=0
for entry in $(sed -n 's/^\([A-Za-z0-9_.+-]*_DIR\):PATH=\(.*\)$/\1=\2/p' "$cache"); do
  var=${entry%%=*}
  dir=${entry#*=}
  name=${var%_DIR}
  # find_path() results (*_INCLUDE_DIR) share the suffix; they are not package configs.
  case $name in CMAKE_* | headroom_* | *_INCLUDE) continue ;; esac
  if [ "$dir" = "$var-NOTFOUND" ]; then
    if [ "$failed_configure" -eq 1 ]; then
      echo "check_deps: CMake looked for the package config of $name and found none:" \
        "add the Debian package that ships ${name}Config.cmake to $listname" >&2
      fail=1
    fi
    continue
  fi
  lower=$(echo "$name" | tr 'A-Z' 'a-z')
  config=""
  for f in "$dir/${name}Config.cmake" "$dir/$lower-config.cmake"; do
    [ -f "$f" ] && config=$f && break
  done
  [ -n "$config" ] || continue # a *_DIR cache entry that is not a package config directory
  config=$(readlink -f "$config")
  checked=$((checked + 1))
  if ! owner=$(dpkg -S "$config" 2>/dev/null); then
    echo "check_deps: $name comes from $config, which no Debian package owns:" \
      "install it from Debian's archive and add the package to $listname" >&2
    fail=1
    continue
  fi
  pkg=${owner%%:*}
  pkg=${pkg%%,*}
  if ! echo "$closure" | grep -qx "$pkg"; then
    echo "check_deps: $pkg provides $name ($config) but is neither in $listname" \
      "nor pulled in by its packages: add $pkg to $listname" >&2
    fail=1
  fi
done
# What find_path(), find_file(), find_library() and find_program() found (FILEPATH entries and
# the *_INCLUDE_DIR directories, Qt's and FindCURL's included). A file is
# owned by one package; a directory like /usr/include by dozens, so dpkg's first owner says
# nothing: an include directory is attributed by the header its find module looks for.
header_for() {
  case $1 in
  CURL_INCLUDE_DIR) echo curl/curl.h ;;
  Vulkan_INCLUDE_DIR) echo vulkan/vulkan_core.h ;;
  OPENGL_INCLUDE_DIR) echo GL/gl.h ;;
  OPENGL_EGL_INCLUDE_DIR) echo EGL/egl.h ;;
  OPENGL_GLX_INCLUDE_DIR) echo GL/glx.h ;;
  *) echo "" ;;
  esac
}
found=0
for entry in $(sed -n -e 's/^\([A-Za-z0-9_.+-]*\):FILEPATH=\(\/.*\)$/\1=\2/p' \
  -e 's/^\([A-Za-z0-9_.+-]*_INCLUDE_DIR\):PATH=\(\/.*\)$/\1=\2/p' "$cache"); do
  var=${entry%%=*}
  path=${entry#*=}
  case $var in CMAKE_*) continue ;; esac # the toolchain: build-essential, listed
  if [ -d "$path" ]; then
    header=$(header_for "$var")
    if [ -z "$header" ]; then
      echo "check_deps: $var is the directory $path; name the header it was found by in" \
        "scripts/check_deps.sh (header_for) so its package can be told" >&2
      fail=1
      continue
    fi
    path=$path/$header
  fi
  [ -e "$path" ] || continue # not found (optional), or a path configure only computed
  found=$((found + 1))
  # The path as found first (libGLU.so belongs to the -dev package, its target to the runtime),
  # then without /usr (Debian 12 is usrmerged; dpkg still records /bin/gzip), then resolved.
  if ! owner=$(dpkg -S "$path" 2>/dev/null) && ! owner=$(dpkg -S "${path#/usr}" 2>/dev/null); then
    path=$(readlink -f "$path")
    owner=$(dpkg -S "$path" 2>/dev/null) || owner=""
  fi
  if [ -z "$owner" ]; then
    echo "check_deps: $var is $path, which no Debian package owns:" \
      "install it from Debian's archive and add the package to $listname" >&2
    fail=1
    continue
  fi
  pkg=${owner%%:*}
  pkg=${pkg%%,*}
  # Essential packages (gzip, coreutils…) are on every Debian system by definition.
  [ "$(dpkg-query -W -f='${Essential}' "$pkg" 2>/dev/null)" = yes ] && continue
  if ! echo "$closure" | grep -qx "$pkg"; then
    echo "check_deps: $pkg provides $var ($path) but is neither in $listname" \
      "nor pulled in by its packages: add $pkg to $listname" >&2
    fail=1
  fi
done
if [ "$failed_configure" -eq 1 ]; then
  # CMake's own words for a missing config: `Could not find a package configuration file
  # provided by "X"` and `X could not be found because dependency Y could not be found`.
  for name in $(sed -n -e 's/.*provided by "\([A-Za-z0-9_.+-]*\)".*/\1/p' \
    -e 's/.*because dependency \([A-Za-z0-9_.+-]*\) could.*/\1/p' "$log" | sort -u); do
    echo "check_deps: CMake could not find $name (${name}Config.cmake): install the Debian" \
      "package that ships it (apt-file search ${name}Config.cmake) and add it to $listname" >&2
  done
  exit 1
fi
[ "$fail" -eq 0 ] || exit 1
echo "check_deps: $checked package configs and $found found files and headers, all from" \
  "$listname or its dependencies"
