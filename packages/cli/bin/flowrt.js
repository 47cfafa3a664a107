#!/usr/bin/env node
// A committed entry point, so that package managers can link the `flowrt` command before `dist/` is built.
import "../dist/cli.js";
