#!/usr/bin/env node
// `npx ducklake-edge …`: the CLI is TypeScript, run through tsx's loader (a dev dependency of this repo).
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
