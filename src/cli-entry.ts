// The CLI's entry point (bundled to dist/cli/index.js): runs the CLI and exits with its code.
import { runCli } from './cli/main.js'

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  isTTY: Boolean(process.stdout.isTTY),
  cwd: process.cwd(),
  env: process.env,
}).then((code) => {
  process.exitCode = code
})
