#!/usr/bin/env node
import { main } from "./main.js";

const code = await main(process.argv.slice(2));
// Exit explicitly: keep-alive sockets or a log transport must not keep a finished command alive.
process.exit(code);
