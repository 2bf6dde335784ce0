/** The version of loop-controller, named in messages (e.g. when a state is from a newer version). */
export const VERSION = '1.0.0'
