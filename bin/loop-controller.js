#!/usr/bin/env node
// The `loop-controller` (alias `loop`) command: the bundled CLI, built by `npm run bundle`.
import '../dist/cli/index.js'
