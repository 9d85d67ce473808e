#!/usr/bin/env node
import { main } from "./main.js";

// `telecom-etl status | head -1`: a reader that closed the pipe early is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const code = await main(process.argv.slice(2));
// Exit explicitly: keep-alive sockets or a log transport must not keep a finished command alive.
process.exit(code);
