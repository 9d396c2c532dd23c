#!/bin/sh
# Renders the hicolor PNG sizes from headroom.svg (rsvg-convert, Debian package librsvg2-bin).
# The PNGs are committed so a build needs no SVG renderer; rerun this after editing the SVG.
set -eu
cd "$(dirname "$0")"
for s in 16 22 24 32 48 64 128 256 512; do
    rsvg-convert -w "$s" -h "$s" headroom.svg -o "headroom-$s.png"
done
