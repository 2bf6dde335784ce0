// The action's entry point: nothing but `run()`, so importing the action's modules (in tests) runs nothing.
import { run } from './main.js'

await run()
