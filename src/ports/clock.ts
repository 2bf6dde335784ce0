/** Time is passed into the domain; only adapters read the real clock. */
export interface Clock {
  now(): Date
  sleep(ms: number): Promise<void>
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}
