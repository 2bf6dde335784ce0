// The action's entry point: nothing but `run()` (STYLE.md point 2).
import { run } from './main.js'

await run()
