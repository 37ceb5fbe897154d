#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded here and is not needed:
# `prisma generate` only checks that the file exists, and migrations run on the Wasm engine
# (src/db/migrator.ts). Anything that really calls this fails loudly.
echo "secwire uses @prisma/schema-engine-wasm; the native schema engine is not installed" >&2
exit 1
