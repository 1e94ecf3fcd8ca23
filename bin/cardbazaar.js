#!/usr/bin/env node
// The compiled CLI (`npm run build` makes it; `npm install` and `npm start` run that build).
import '../dist/cli.js';
