#!/bin/sh
# Builds the release packages: installs what the build and CPack's DEB generator need (deps.sh
# package), configures and builds the `app` preset (build-app/: Release, no tests or benchmarks)
# with its man page, and runs CPack (packaging/CMakeLists.txt): a .deb and a .tar.gz in
# build-app/packages/. Install the .deb with `sudo apt install ./build-app/packages/headroom_*.deb`.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh package
mkdir -p build-app
cmake --preset app >build-app/configure.log 2>&1 || {
  cat build-app/configure.log
  sh scripts/check_deps.sh --set package --configure-failed build-app/configure.log build-app
  exit 1
}
sh scripts/check_deps.sh --set package build-app
# Everything CPack installs: the two programs and the man page made from headroom-cli --help.
cmake --build build-app -j"$(nproc)" --target headroom headroom-cli headroom-man
rm -rf build-app/packages
cpack --config build-app/CPackConfig.cmake -G "DEB;TGZ" -B build-app/packages >build-app/cpack.log 2>&1 || {
  cat build-app/cpack.log
  exit 1
}
rm -rf build-app/packages/_CPack_Packages
for f in build-app/packages/*.deb build-app/packages/*.tar.gz; do
  echo "package.sh: $f"
done
