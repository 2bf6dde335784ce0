// The post step: the runner passes what main saved with GITHUB_STATE as STATE_<name>.
import { appendFileSync } from 'node:fs'

appendFileSync(process.env.GITHUB_STEP_SUMMARY, `\npost step saw started-step=${process.env['STATE_started-step']}\n`)
