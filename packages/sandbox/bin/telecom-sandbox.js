#!/usr/bin/env node
// `telecom-sandbox`: the built program (src/bin.ts; `npm run build` at the repository's root builds
// it). A file of its own, checked in, so that `npm ci` links the bin before anything is built.
import "../dist/bin.js";
