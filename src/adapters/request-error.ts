/** What the adapters read of an Octokit request error, whichever of its error classes threw it. */
export interface RequestErrorLike {
  status: number
  message: string
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown }
}

export function isRequestError(error: unknown): error is RequestErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number'
}

/** The HTTP status of a failed request, or undefined when the error carries none (a network error). */
export function statusOf(error: unknown): number | undefined {
  return isRequestError(error) ? error.status : undefined
}
